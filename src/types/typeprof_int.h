/* Internals of the types profile (typeprof.c) for its advice
 * (typeadvise.c). */
#ifndef PMS_TYPES_TYPEPROF_INT_H
#define PMS_TYPES_TYPEPROF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pms_typeprof;
/* The threads that stored to the profile's row (type, member), the
 * interned strings of its result's rows: *tids (the profile's, valid until
 * the next pms_typeprof_add) and *n; none (or no such row): *n 0. */
void ty_prof_writers(const struct pms_typeprof *p, const char *type, const char *member,
		     const uint32_t **tids, size_t *n);

/* A profile for one part of the samples (one chunk of a file read on its
 * own thread, src/session/session_split.c): empty, sharing p's resolver
 * (and so its per-(binary, IP) cache, its counts and its interned
 * strings), which the twin asks under p's lock; freed with
 * pms_typeprof_free before p.  0 or PMS_ENOMEM. */
int ty_prof_twin(struct pms_typeprof *p, struct pms_typeprof **out);
/* Twin t's counts added to p's (the twins merged in their samples' order
 * give what one profile that counted them all gives: the rows, threads
 * and latencies in the order of first sight).  0 or PMS_ENOMEM. */
int ty_prof_merge(struct pms_typeprof *p, const struct pms_typeprof *t);

/* on: the samples' path strings stay put and keep their text until the
 * caller says otherwise (calling this again; a sink's mappings), so the
 * profile keeps the binary and load bias of the last mapping by the path's
 * pointer instead of comparing the text per sample.  Each call forgets
 * what was kept. */
void ty_prof_memo_paths(struct pms_typeprof *p, bool on);

#endif
