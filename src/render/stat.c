/* `pmuscope stat`'s results (pmuscope/render_cmd.h): the JSON document
 * (docs/json-stat.md), or count's table and CSV (pmuscope/stat_text.h),
 * into the caller's stream. */
#include <stdio.h>
#include <string.h>

#include "pmuscope/render_cmd.h"
#include "count/stat_text_int.h"

/* Never enabled, or no instance ever ran (interval mode: the cumulative
 * rows decide). */
static bool not_counted(const struct pms_render_stat *o, size_t i, const struct pms_count_row *r)
{
	return !pms_count_row_counted(r, o->cum ? &o->cum[i] : NULL);
}

/* perf stat's shadow metric of a row (pms_count_metric). */
static bool metric(const struct pms_render_stat *o, const struct pms_count_row *rows, size_t n,
		   const struct pms_count_row *r, double *val, const char **unit)
{
	return pms_count_metric(rows, n, (size_t)(r - rows), o->cum, o->elapsed, val, unit);
}

static int print_json(const struct pms_render_stat *o, const struct pms_count_row *rows, size_t n,
		      double t, double elapsed, int exit_status)
{
	struct pms_json j;
	char groups[1024];
	pms_json_init(&j, o->f);
	j.pretty = t < 0; /* interval mode: one object per line */
	pms_json_begin_object(&j, NULL);
	pms_json_int(&j, "schema_version", 1);
	pms_json_str(&j, "target", o->target_desc);
	if (o->target != PMS_COUNT_CPUS && o->target != PMS_COUNT_CHILD)
		pms_json_int(&j, "pid", o->pid);
	if (o->cmd) {
		pms_json_begin_array(&j, "command");
		for (char *const *a = o->cmd; *a; a++)
			pms_json_str(&j, NULL, *a);
		pms_json_end_array(&j);
	}
	pms_json_str(&j, "aggregation", pms_count_agg_name(o->agg));
	if (t >= 0)
		pms_json_double(&j, "interval_end_s", t);
	else
		pms_json_double(&j, "elapsed_s", elapsed);
	if (exit_status >= 0)
		pms_json_int(&j, "exit_status", exit_status);
	if (t < 0) {
		pms_json_int(&j, "runs", o->runs);
		if (o->runs > 1)
			pms_json_double(&j, "elapsed_stddev_pct", o->elapsed_rsd);
		if (o->user_s >= 0) {
			pms_json_double(&j, "user_s", o->user_s);
			pms_json_double(&j, "sys_s", o->sys_s);
		}
	}
	pms_json_begin_array(&j, "rows");
	for (size_t i = 0; i < n; i++) {
		const struct pms_count_row *r = &rows[i];
		const char *unit;
		double v = pms_count_row_display(r, &unit);
		pms_json_begin_object(&j, NULL);
		pms_json_str(&j, "event", r->name);
		pms_json_str(&j, "pmu", r->pmu);
		pms_json_int(&j, "id", r->id);
		if (r->package >= 0)
			pms_json_int(&j, "package", r->package);
		if (r->agg == PMS_AGG_CORE_TYPE)
			pms_json_str(&j, "core_type", r->type_name);
		pms_json_double(&j, "value", v);
		pms_json_str(&j, "unit", unit);
		pms_json_double(&j, "scaled", r->scaled);
		pms_json_uint(&j, "raw", r->raw);
		pms_json_uint(&j, "time_enabled", r->enabled);
		pms_json_uint(&j, "time_running", r->running);
		pms_json_double(&j, "fraction_running", r->fraction);
		pms_json_bool(&j, "counted", !r->unsupported && !not_counted(o, i, r));
		pms_json_bool(&j, "supported", !r->unsupported);
		if (r->unsupported)
			pms_json_str(&j, "unsupported_reason", r->unsupported);
		pms_json_int(&j, "instances", r->ninstances);
		pms_json_int(&j, "unscheduled", r->nunscheduled);
		{
			double mv;
			const char *mu;
			if (metric(o, rows, n, r, &mv, &mu)) {
				pms_json_double(&j, "metric_value", mv);
				pms_json_str(&j, "metric_unit", mu);
			}
		}
		if (o->rsd)
			pms_json_double(&j, "stddev_pct", o->rsd[i]);
		pms_json_end_object(&j);
	}
	pms_json_end_array(&j);
	if (pms_counter_unscheduled_groups(o->c, groups, sizeof(groups)) > 0)
		pms_json_str(&j, "unscheduled_groups", groups);
	if (pms_counter_split_groups(o->c, groups, sizeof(groups)) > 0)
		pms_json_str(&j, "split_groups_reason", groups);
	if (pms_counter_nbudgets(o->c)) {
		pms_json_begin_array(&j, "counter_budgets");
		for (size_t i = 0; i < pms_counter_nbudgets(o->c); i++) {
			const struct pms_count_budget *b = pms_counter_budget(o->c, i);
			pms_json_begin_object(&j, NULL);
			pms_json_str(&j, "pmu", b->pmu);
			pms_json_int(&j, "general_counters", b->general);
			pms_json_bool(&j, "cycle_counter", b->cycle_counter);
			pms_json_bool(&j, "instruction_counter", b->instr_counter);
			pms_json_bool(&j, "long_events_chained", b->chained_long);
			pms_json_end_object(&j);
		}
		pms_json_end_array(&j);
	}
	if (o->whole_domain[0]) {
		char *save = NULL, names[sizeof(o->whole_domain)];
		snprintf(names, sizeof(names), "%s", o->whole_domain);
		pms_json_begin_array(&j, "whole_domain_events");
		for (char *w = strtok_r(names, ",", &save); w; w = strtok_r(NULL, ",", &save))
			pms_json_str(&j, NULL, w);
		pms_json_end_array(&j);
		pms_json_str(&j, "whole_domain_note", PMS_STAT_WHOLE_DOMAIN_NOTE);
	}
	pms_json_end_object(&j);
	if (j.pretty)
		j.meta = o->meta;
	return pms_json_finish(&j);
}

int pms_render_stat(const struct pms_render_stat *o, const struct pms_count_row *rows, size_t n,
		    double t, double elapsed, int exit_status)
{
	const struct pms_stat_view v = {
		.agg = o->agg, .sep = o->sep, .cum = o->cum, .rsd = o->rsd, .runs = o->runs,
		.elapsed = o->elapsed, .elapsed_rsd = o->elapsed_rsd, .user_s = o->user_s,
		.sys_s = o->sys_s,
	};
	int rc = 0;
	if (o->json)
		rc = print_json(o, rows, n, t, elapsed, exit_status);
	else if (o->sep)
		pms_stat_render_csv(o->f, &v, rows, n, t);
	else
		pms_stat_render_text(o->f, &v, rows, n, t);
	fflush(o->f);
	return rc;
}
