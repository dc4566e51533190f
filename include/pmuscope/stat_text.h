/* How `pmuscope stat` renders counted rows (pms_countrun's, or
 * pms_count_read's) as perf stat's table and its -x CSV: the view a caller
 * hands to pms_render_stat (render_cmd.h).  The table and CSV writers
 * themselves are the renderer's (src/count/stat_text_int.h).
 *
 * Ownership: nothing here allocates; everything is borrowed for the call.
 */
#ifndef PMUSCOPE_STAT_TEXT_H
#define PMUSCOPE_STAT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "pmuscope/count.h"
#include "pmuscope/countrun.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* How the rows were counted, for their rendering. */
struct pms_stat_view {
	enum pms_count_agg agg;          /* the rows' aggregation (labels, CSV fields) */
	const char *sep;                 /* the CSV's separator (-x) */
	const struct pms_count_row *cum; /* interval mode: the cumulative rows, else NULL */
	const double *rsd;               /* -r N: per row, relative stddev of the mean in %, or NULL */
	int runs;
	double elapsed;                  /* s: the run, or the interval (CPUs utilized) */
	double elapsed_rsd;              /* -r N: of the elapsed time, % */
	double user_s, sys_s;            /* the command's rusage, -1 without one */
};

PMS_API_END
#ifdef __cplusplus
}
#endif

#endif
