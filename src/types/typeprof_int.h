/* Internals of the types profile (typeprof.c) for its advice
 * (typeadvise.c). */
#ifndef PMS_TYPES_TYPEPROF_INT_H
#define PMS_TYPES_TYPEPROF_INT_H

#include <stddef.h>
#include <stdint.h>

struct pms_typeprof;
/* The threads that stored to the profile's row (type, member), the
 * interned strings of its result's rows: *tids (the profile's, valid until
 * the next pms_typeprof_add) and *n; none (or no such row): *n 0. */
void ty_prof_writers(const struct pms_typeprof *p, const char *type, const char *member,
		     const uint32_t **tids, size_t *n);

#endif
