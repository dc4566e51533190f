/* perf report's histogram of samples by sort keys (`report -s k1,k2`,
 * issue 30 item 4): each key is a sample's text as perf prints it (pid, tid,
 * tgid, cpu, mem, snoop, tlb, locked, dcacheline, phys_daddr, node,
 * memnode, comm, sym, dso, symbol_daddr, type, typeoff, typecln); a row is
 * the samples whose keys' texts are all equal, with their count and summed
 * period (perf's overhead).  Fed by a session (pms_session_set_sort), the
 * same for a live run and for files: comm, sym, dso and symbol_daddr from
 * the side-band at each sample's point of the stream (pmuscope/symtrack.h;
 * kernel names only where the file's kernel is the running one), type,
 * typeoff and typecln from the session's types sink (pmuscope/types.h).
 *
 * Ownership: pms_sorthist_new() gives the caller a histogram released with
 * pms_sorthist_free(), or handed to a session (pms_session_set_sort); the
 * result's rows are borrowed until the next call or the free.
 */
#ifndef PMUSCOPE_SORTHIST_H
#define PMUSCOPE_SORTHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

#define PMS_SORTHIST_MAXKEYS 8

struct pms_sorthist;

/* keys: "k1,k2" as perf's -s takes them.  PMS_EINVAL with a message naming
 * the key and listing the keys there are; PMS_ENOMEM. */
int pms_sorthist_new(const char *keys, struct pms_sorthist **out);
void pms_sorthist_free(struct pms_sorthist *h);

struct pms_sorthist_row {
	const char *text;          /* the keys' texts joined by '\t' */
	uint64_t samples, period;  /* period: the samples' periods (1 when none) */
};

struct pms_sorthist_result {
	const struct pms_sorthist_row *rows; /* by period descending, then text */
	size_t n_rows;
	const char *titles[PMS_SORTHIST_MAXKEYS]; /* perf's column titles */
	size_t nkeys;
	uint64_t samples, period;
};
int pms_sorthist_result(struct pms_sorthist *h, struct pms_sorthist_result *out);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
