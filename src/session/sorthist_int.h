/* Internal: what the session feeds a sort histogram (pmuscope/sorthist.h). */
#ifndef PMS_SESSION_SORTHIST_INT_H
#define PMS_SESSION_SORTHIST_INT_H

#include "pmuscope/memsrc.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/sorthist.h"
#include "pmuscope/sys.h"
#include "pmuscope/types.h"

/* A key needs the samples' type hits (the session's types sink). */
bool sorthist_wants_types(const struct pms_sorthist *h);
/* The stream's naming: sys (NULL: no names, sym and dso as perf's
 * unresolved text) and the file's header (NULL live); taken at the first
 * record, and again at the first record of each next file (a merged
 * report -s: each file named by its own side-band and kernel rule). */
void sorthist_bind(struct pms_sorthist *h, struct pms_sys *sys,
		   const struct pms_perfdata_info *info);
/* The bound file's kernel as the session judged it (session_int.h
 * sess_kernel_judge, at its first sample that may hold a kernel address):
 * its kernel IPs named from then on when here (a pipe file's build ids come
 * in-stream, after the bind). */
void sorthist_kernel(struct pms_sorthist *h, bool here);
int sorthist_sideband(struct pms_sorthist *h, const struct pms_record *rec);
/* hit: the sample's type (NULL without a types sink). */
int sorthist_sample(struct pms_sorthist *h, const struct pms_memsrc_sample *x,
		    const struct pms_type_hit *hit);

#endif
