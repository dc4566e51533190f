/* Internal to the library: functions that only library code calls, kept
 * out of the exported API (docs/api.md "Opaque objects, accessors and the
 * exported set"). */
#ifndef PMS_REPORT_C2C_INT_H
#define PMS_REPORT_C2C_INT_H

#include "pmuscope/c2c.h"

/* Keep each sample's process, data address and time per line (before the
 * first pms_c2c_add), for pms_c2c_line_touches: what an allocation table
 * needs to name a line's allocation (the session does, docs/mem.md). */
struct pms_c2c_touch {
	uint64_t addr, time;
	uint32_t pid;
};
void pms_c2c_keep_touches(struct pms_c2c *c);
/* Whether the samples' kernel IPs go unnamed (pms_c2c_opts.recorded): the
 * session clears it for files whose kernel is the running one
 * (session/symtrack_int.h symtrack_kernel_here), as report names them. */
void pms_c2c_set_recorded(struct pms_c2c *c, bool recorded);

/* No kernel address in rep (its lines' addresses and their accesses' IPs
 * of kernel code zeroed) for a caller that may not see them. */
void pms_c2c_report_hide_kernel(struct pms_c2c_report *rep);

/* The kept samples (pms_c2c_keep_touches) of the model's line that a
 * report line l shows, in the order they came; *n 0 (NULL) when none. */
const struct pms_c2c_touch *pms_c2c_line_touches(const struct pms_c2c *c,
						 const struct pms_c2c_line *l, size_t *n);

/* perf c2c's per-line "Total Loads" (builtin-c2c.c total_loads): the sum of
 * the load level counts (FB, L1, L2, LLC, local HITM, local/remote DRAM,
 * remote HIT and HITM), and "Total records" (total_records): that plus the
 * store L1 hit, L1 miss and N/A counts.  They differ from load, store and
 * nr_entries where a data source sets several level bits or none. */
uint64_t pms_c2c_perf_loads(const struct pms_c2c_stats *st);

uint64_t pms_c2c_perf_records(const struct pms_c2c_stats *st);

#endif
