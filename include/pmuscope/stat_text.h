/* `pmuscope stat`'s renderings of counted rows (pms_countrun's, or
 * pms_count_read's): perf stat's table and its -x CSV, written into a
 * caller's FILE (the library prints nothing on its own).
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

/* The value a row shows and its unit: clock events in msec (perf's
 * evsel__is_clock rule), else the scaled count times the event's scale,
 * unit the event's (NULL none). */
double pms_count_row_display(const struct pms_count_row *r, const char **unit);

/* perf stat's table of n rows (t >= 0: interval mode, each line starting
 * with the interval's end; t < 0: the final table with the time elapsed
 * and, with rusage, user and sys seconds). */
void pms_stat_render_text(FILE *f, const struct pms_stat_view *v,
			  const struct pms_count_row *rows, size_t n, double t);
/* perf stat -x's fields: [time,] [aggregate, [instances,]] value, unit,
 * event, [variance% with -r,] run time (ns), percent running, metric
 * value, metric unit. */
void pms_stat_render_csv(FILE *f, const struct pms_stat_view *v,
			 const struct pms_count_row *rows, size_t n, double t);

PMS_API_END
#ifdef __cplusplus
}
#endif

#endif
