/* The allocation site of each contended cache line (`c2c -- CMD` with
 * allocation tracking, or `c2c -i` of such a run's file): the line's kept
 * samples (pms_c2c_keep_touches) looked up in the allocation table.
 * Internal to the session concern (pms_session_c2c_report). */
#ifndef PMS_SESSION_C2C_SITES_H
#define PMS_SESSION_C2C_SITES_H

#include "pmuscope/alloc.h"
#include "pmuscope/c2c.h"
#include "report/c2c_int.h"

/* Fill rep's lines' alloc_* fields: each line's samples go to the blocks
 * that held their addresses at their times; the site with most of them
 * is the line's, named by name(ud, ...).  0 or a negative PMS_E*. */
int pms_c2c_sites_name(struct pms_alloc_table *t, const struct pms_c2c *c,
		       struct pms_c2c_report *rep, pms_alloc_namer name, void *ud);

#endif
