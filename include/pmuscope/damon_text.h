/* `pmuscope mem --engine damon`'s text report and CSV of a finished run
 * (pms_damon_run, include/pmuscope/damon.h), written into a caller's FILE
 * (the library prints nothing on its own).
 *
 * Ownership: nothing here allocates; everything is borrowed for the call.
 */
#ifndef PMUSCOPE_DAMON_TEXT_H
#define PMUSCOPE_DAMON_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "pmuscope/damon.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* The text report of a run whose report was built (res->report set):
 * its hot ranges and data objects (the top, 0: 10), remote-hot share by
 * CPU node, heat over time.  why: why the engine ladder chose DAMON, NULL
 * when the user asked for it. */
void pms_damon_render_text(FILE *f, const struct pms_damon_run_result *res, size_t top,
			   const char *why);

/* Every snapshot's regions as CSV (a '#' label line, a header row). */
void pms_damon_render_csv(FILE *f, const struct pms_damon_run_result *res);

PMS_API_END
#ifdef __cplusplus
}
#endif

#endif
