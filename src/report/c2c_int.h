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

/* The kept samples (pms_c2c_keep_touches) of the model's line that a
 * report line l shows, in the order they came; *n 0 (NULL) when none. */
const struct pms_c2c_touch *pms_c2c_line_touches(const struct pms_c2c *c,
						 const struct pms_c2c_line *l, size_t *n);

#endif
