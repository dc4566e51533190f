/* The front-end view of a recorded file's AMD IBS fetch samples: fetch
 * latency, iTLB level and page size, instruction-cache miss, L2/L3 miss per
 * function or per source line (docs/ibs.md), each sample decoded by
 * pms_ibs_fetch_decode (pmuscope/ibsfetch.h).
 *
 * Ownership: pms_ibs_fetch_view_file() gives the caller a view released
 * with pms_ibs_fetch_view_free(); its strings live as long as it does.
 */
#ifndef PMUSCOPE_FETCHVIEW_H
#define PMUSCOPE_FETCHVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/ibsfetch.h"
#include "pmuscope/sys.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* One row of the view: a function (file NULL, line 0) or a source line. */
struct pms_ibs_fetch_row {
	const char *func;        /* "[unknown]" where nothing names the IP */
	const char *module;      /* "" when unknown */
	const char *file;        /* by line: the source file, NULL if no line info */
	int line;
	uint64_t samples;
	uint64_t completed;      /* IbsFetchComp */
	uint64_t lat_sum;        /* IbsFetchLat over completed fetches */
	uint64_t ic_known, ic_miss;
	uint64_t itlb[3];        /* by enum pms_itlb_level */
	uint64_t pgsz_known, pgsz_4k, pgsz_16k, pgsz_2m, pgsz_1g;
	uint64_t l2_known, l2_miss;
	uint64_t l3_known, l3_miss, oc_miss;
	uint64_t itlb_lat_n, itlb_lat_sum; /* IcIbsExtdCtl refill latency, on L1 misses */
};

/* The view (opaque): its rows through the accessors below. */
struct pms_ibs_fetch_view;

/* The view of the ibs_fetch samples of the perf.data file open on fd (its
 * events on the PMU that PMU_MAPPINGS names ibs_fetch), by function or, with
 * by_line, by source line, IPs named through the file's MMAP/MMAP2 records
 * with files opened under sys's root; kernel IPs named (modules from the
 * file's kernel MMAPs and build ids) only when the file lists the running
 * kernel's build id, as every report names them, else "[kernel]" rows.
 * PMS_ENOENT when the file has no ibs_fetch event; PMS_EPARSE when its
 * CPUID is not an AMD one. */
int pms_ibs_fetch_view_file(struct pms_sys *sys, int fd, bool by_line,
			    struct pms_ibs_fetch_view **out);
void pms_ibs_fetch_view_free(struct pms_ibs_fetch_view *v);
/* The rows, by samples descending: how many, and the i-th (NULL past the
 * end or for a NULL view). */
size_t pms_ibs_fetch_view_count(const struct pms_ibs_fetch_view *v);
const struct pms_ibs_fetch_row *pms_ibs_fetch_view_row(const struct pms_ibs_fetch_view *v,
						       size_t i);
/* Every sample as one row (func "total"); NULL for a NULL view. */
const struct pms_ibs_fetch_row *pms_ibs_fetch_view_total(const struct pms_ibs_fetch_view *v);
/* Samples the driver would have dropped (not counted), and fetch samples
 * without a fetch RAW payload. */
uint64_t pms_ibs_fetch_view_dropped(const struct pms_ibs_fetch_view *v);
uint64_t pms_ibs_fetch_view_bad(const struct pms_ibs_fetch_view *v);
/* The file's HEADER_CPUID, NULL when absent. */
const char *pms_ibs_fetch_view_cpuid(const struct pms_ibs_fetch_view *v);

PMS_API_END
#ifdef __cplusplus
}
#endif

#endif
