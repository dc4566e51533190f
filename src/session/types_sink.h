/* Internal: the session's data-type sink (issue 29): each sample's IP placed
 * in the mappings seen (MMAP/MMAP2 side-band), resolved to a type and member
 * and counted by a pms_typeprof; the same for a live run and for files.
 * Ownership: types_sink_new gives an object freed by types_sink_free; the
 * profile is the sink's. */
#ifndef PMS_SESSION_TYPES_SINK_H
#define PMS_SESSION_TYPES_SINK_H

#include "pmuscope/memsrc.h"
#include "pmuscope/record.h"
#include "pmuscope/alloc.h"
#include "pmuscope/report.h"
#include "pmuscope/types.h"

struct types_sink;
int types_sink_new(struct types_sink **out);
void types_sink_free(struct types_sink *t);
/* A sink for one chunk of a file read on its own thread (session_split.c):
 * its own mappings and profile, the profile a twin of t's (the same
 * resolver and cache, ty_prof_twin).  Freed before t.  0 or PMS_ENOMEM. */
int types_sink_twin(struct types_sink *t, struct types_sink **out);
/* Chunk part's counts added to t's, the chunks joined in file order;
 * t takes part's mappings (after the last chunk: the file's).  0 or
 * PMS_ENOMEM. */
int types_sink_join(struct types_sink *t, struct types_sink *part);
/* An executable MMAP/MMAP2 joins the mappings (others are ignored): 0 or
 * PMS_ENOMEM. */
int types_sink_sideband(struct types_sink *t, const struct pms_record *rec);
/* One sample counted; hit (may be NULL) gets its resolution (status
 * PMS_TYPE_NO_BINARY when the sample has no IP).  0 or a negative PMS_E*. */
int types_sink_sample(struct types_sink *t, const struct pms_memsrc_sample *x,
		      struct pms_type_hit *hit);
struct pms_typeprof *types_sink_profile(struct types_sink *t);
/* One sample's hit, not counted (the same mappings and cache). */
int types_sink_hit(struct types_sink *t, const struct pms_memsample *ms, struct pms_type_hit *hit);
/* The type of each allocation site of r (rep's samples placed by
 * r->sample_site; src/session/alloc_types.c): 0 or PMS_ENOMEM. */
int types_sink_alloc_sites(struct types_sink *t, const struct pms_memreport *rep,
			   struct pms_alloc_report *r);

#endif
