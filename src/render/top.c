/* `pmuscope top --json`'s frame (docs/top.md; pmuscope/render_cmd.h): the
 * frame's counts and each view's rows (processes, threads, objects,
 * functions) in the frame's order, as one JSON object. */
#include <stdio.h>

#include "pmuscope/render_cmd.h"

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void json_row(struct pms_json *j, const struct pms_top_frame *fr, enum pms_top_view v,
		     const struct pms_memreport *r, const struct pms_top_row *row)
{
	pms_json_begin_object(j, NULL);
	if (v == PMS_TOP_PROCESS || v == PMS_TOP_THREAD || fr->per_pid)
		pms_json_uint(j, "pid", row->pid);
	if (v == PMS_TOP_THREAD)
		pms_json_uint(j, "tid", row->tid);
	pms_json_str(j, v == PMS_TOP_PROCESS || v == PMS_TOP_THREAD ? "comm" : "name", row->name);
	if (v == PMS_TOP_OBJECT)
		pms_json_str(j, "kind", row->extra);
	if (v == PMS_TOP_FUNCTION)
		pms_json_str(j, "module", row->extra);
	pms_json_uint(j, "samples", row->samples);
	pms_json_double(j, "share", share(row->samples, r->samples) / 100.0);
	if (row->weighted)
		pms_json_double(j, "latency_mean", (double)row->latency / (double)row->weighted);
	else
		pms_json_null(j, "latency_mean");
	pms_json_uint(j, "local", row->local);
	pms_json_uint(j, "remote", row->remote);
	pms_json_uint(j, "resolved", row->resolved);
	pms_json_begin_object(j, "nodes");
	for (size_t n = 0; n < r->nnodes; n++)
		if (row->nodes[n]) {
			char k[16];
			snprintf(k, sizeof(k), "%d", r->node_ids[n]);
			pms_json_uint(j, k, row->nodes[n]);
		}
	pms_json_end_object(j);
	pms_json_end_object(j);
}

int pms_render_top_json(struct pms_json *j, const struct pms_top_frame *fr,
			const struct pms_memreport *r, size_t max_rows)
{
	pms_json_begin_object(j, NULL);
	pms_json_uint(j, "frame", fr->number);
	pms_json_double(j, "time_s", fr->seconds);
	pms_json_double(j, "interval_s", fr->interval);
	pms_json_str(j, "target", fr->target);
	pms_json_begin_object(j, "engine");
	pms_json_str(j, "name", pms_engine_name(r->engine));
	pms_json_str(j, "label", r->label);
	pms_json_str(j, "pmus", r->pmus);
	pms_json_bool(j, "latency", r->latency.n > 0);
	pms_json_end_object(j);
	pms_json_uint(j, "samples", r->samples);
	pms_json_uint(j, "samples_total", fr->samples_total);
	pms_json_uint(j, "lost", fr->lost);
	pms_json_uint(j, "lost_total", fr->lost_total);
	pms_json_uint(j, "with_addr", r->with_addr);
	pms_json_uint(j, "resolved", r->resolved);
	pms_json_str(j, "sort", pms_top_sort_name(fr->sort));
	int rc = 0;
	for (int v = 0; v < PMS_TOP_NVIEWS; v++) {
		static const char *const keys[PMS_TOP_NVIEWS] = { "processes", "threads", "objects",
							      "functions" };
		struct pms_top_table t;
		if (pms_top_table_build(&t, r, (enum pms_top_view)v, fr->per_pid) < 0) {
			rc = -1;
			break;
		}
		pms_top_table_sort(&t, fr->sort);
		pms_json_begin_array(j, keys[v]);
		for (size_t i = 0; i < t.nrows && i < max_rows; i++)
			json_row(j, fr, (enum pms_top_view)v, r, &t.rows[i]);
		pms_json_end_array(j);
		pms_top_table_free(&t);
	}
	pms_json_end_object(j);
	return rc;
}
