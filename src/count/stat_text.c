/* `pmuscope stat`'s table and CSV (perf stat's, -x) of counted rows:
 * src/count/stat_text_int.h (the view: pmuscope/stat_text.h).  Written into
 * the caller's FILE. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pmuscope/stat_text.h"
#include "count/stat_text_int.h"

/* Clock events count nanoseconds; perf prints them in msec
 * (tools/perf/util/stat-display.c, evsel__is_clock). */
static bool is_clock(const char *name)
{
	static const char *const clocks[] = { "task-clock", "cpu-clock" };
	size_t n;
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		n = strlen(clocks[i]);
		if (!strncmp(name, clocks[i], n) && (name[n] == '\0' || name[n] == ':'))
			return true;
	}
	return false;
}

static void agg_label(const struct pms_count_row *r, char *buf, size_t size)
{
	static const char *const prefix[] = {
		[PMS_AGG_GLOBAL] = "",  [PMS_AGG_CPU] = "CPU", [PMS_AGG_CORE] = "C",
		[PMS_AGG_CLUSTER] = "K", [PMS_AGG_L3] = "L3-", [PMS_AGG_DIE] = "D",
		[PMS_AGG_SOCKET] = "S", [PMS_AGG_NODE] = "N",  [PMS_AGG_CORE_TYPE] = "",
		[PMS_AGG_THREAD] = "T",
	};
	if (r->agg == PMS_AGG_CORE_TYPE) {
		if (r->type_name)
			snprintf(buf, size, "%s", r->type_name);
		else if (r->id >= 0)
			snprintf(buf, size, "type%d", r->id);
		else
			snprintf(buf, size, "all");
		return;
	}
	if (r->id < 0) {
		snprintf(buf, size, "-");
		return;
	}
	if (r->package >= 0)
		snprintf(buf, size, "S%d-%s%d", r->package, prefix[r->agg], r->id);
	else
		snprintf(buf, size, "%s%d", prefix[r->agg], r->id);
}

/* The displayed value and unit of a row. */
double pms_count_row_display(const struct pms_count_row *r, const char **unit)
{
	if (is_clock(r->name)) {
		*unit = "msec";
		return r->scaled / 1e6;
	}
	*unit = r->unit;
	return r->scaled * r->scale;
}

/* Never enabled, or no instance ever ran (interval mode: the cumulative
 * rows decide). */
static bool not_counted(const struct pms_stat_view *o, size_t i, const struct pms_count_row *r)
{
	return !pms_count_row_counted(r, o->cum ? &o->cum[i] : NULL);
}

/* perf stat's shadow metric of a row (pms_count_metric). */
static bool metric(const struct pms_stat_view *o, const struct pms_count_row *rows, size_t n,
		   const struct pms_count_row *r, double *val, const char **unit)
{
	return pms_count_metric(rows, n, (size_t)(r - rows), o->cum, o->elapsed, val, unit);
}

void pms_stat_render_text(FILE *f, const struct pms_stat_view *o, const struct pms_count_row *rows,
			  size_t n, double t)
{
	char label[64], line[512];
	for (size_t i = 0; i < n; i++) {
		const struct pms_count_row *r = &rows[i];
		const char *unit, *munit;
		double v = pms_count_row_display(r, &unit), mv;
		int len = 0;
#define ADD(...) len += snprintf(line + len, len < (int)sizeof(line) ? sizeof(line) - (size_t)len : 0, __VA_ARGS__)
		if (t >= 0)
			ADD("%16.9f ", t);
		if (o->agg != PMS_AGG_GLOBAL) {
			agg_label(r, label, sizeof(label));
			ADD("%-12s ", label);
		}
		if (r->unsupported)
			ADD("%18s %-5s ", "<not supported>", "");
		else if (not_counted(o, i, r))
			ADD("%18s %-5s ", "<not counted>", "");
		else if (unit || r->scale != 1.0)
			ADD("%18.2f %-5s ", v, unit ? unit : "");
		else
			ADD("%18.0f %-5s ", v, "");
		ADD("%-32s", r->name);
		if (r->pmu && o->agg != PMS_AGG_CORE_TYPE)
			ADD(" [%s]", r->pmu);
		if (metric(o, rows, n, r, &mv, &munit))
			ADD(" # %8.3f %-14s", mv, munit);
		if (r->nunscheduled)
			ADD("  (%d of %d never scheduled: group does not fit)", r->nunscheduled,
			    r->ninstances);
		else if (!r->unsupported && !not_counted(o, i, r) && r->fraction < 1.0)
			ADD("  (%.2f%%)", 100.0 * r->fraction);
		if (o->rsd && !r->unsupported)
			ADD("  ( +- %5.2f%% )", o->rsd[i]);
#undef ADD
		/* no trailing spaces */
		if (len >= (int)sizeof(line))
			len = (int)sizeof(line) - 1;
		while (len > 0 && line[len - 1] == ' ')
			len--;
		fprintf(f, "%.*s\n", len, line);
	}
	if (t < 0) {
		fprintf(f, "\n%18.9f seconds time elapsed", o->elapsed);
		if (o->runs > 1)
			fprintf(f, "  ( +- %5.2f%% )", o->elapsed_rsd);
		fputc('\n', f);
		if (o->user_s >= 0)
			fprintf(f, "\n%18.9f seconds user\n%18.9f seconds sys\n", o->user_s, o->sys_s);
	}
}

/* perf stat -x's fields (tools/perf/util/stat-display.c, CSV): [time,]
 * [aggregate,] value, unit, event, [variance% with -r,] run time (ns),
 * percent running, metric value, metric unit. */
void pms_stat_render_csv(FILE *f, const struct pms_stat_view *o, const struct pms_count_row *rows,
			 size_t n, double t)
{
	char label[64];
	for (size_t i = 0; i < n; i++) {
		const struct pms_count_row *r = &rows[i];
		const char *unit, *munit;
		double v = pms_count_row_display(r, &unit), mv;
		if (t >= 0)
			fprintf(f, "%.9f%s", t, o->sep);
		if (o->agg != PMS_AGG_GLOBAL) {
			agg_label(r, label, sizeof(label));
			fprintf(f, "%s%s", label, o->sep);
			/* perf's aggregate rows carry how many CPUs (counters)
			 * they sum: "N0,2,83,,page-faults" (stat-display.c) */
			if (o->agg != PMS_AGG_CPU && o->agg != PMS_AGG_THREAD &&
			    o->agg != PMS_AGG_CORE_TYPE)
				fprintf(f, "%d%s", r->ninstances, o->sep);
		}
		if (r->unsupported)
			fprintf(f, "<not supported>");
		else if (not_counted(o, i, r))
			fprintf(f, "<not counted>");
		else if (unit || r->scale != 1.0)
			fprintf(f, "%.2f", v);
		else
			fprintf(f, "%.0f", v);
		fprintf(f, "%s%s%s%s", o->sep, unit ? unit : "", o->sep, r->name);
		if (o->rsd)
			fprintf(f, "%s%.2f%%", o->sep, o->rsd[i]);
		fprintf(f, "%s%llu%s%.2f", o->sep, (unsigned long long)r->running, o->sep,
			100.0 * r->fraction);
		if (metric(o, rows, n, r, &mv, &munit))
			fprintf(f, "%s%.3f%s%s\n", o->sep, mv, o->sep, munit);
		else
			fprintf(f, "%s%s\n", o->sep, o->sep);
	}
}
