/* Internal to the library: functions that only library code calls, kept
 * out of the exported API (docs/api.md "Opaque objects, accessors and the
 * exported set"). */
#ifndef PMS_COUNT_STAT_TEXT_INT_H
#define PMS_COUNT_STAT_TEXT_INT_H

#include "pmuscope/stat_text.h"

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

#endif
