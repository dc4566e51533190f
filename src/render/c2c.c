/* `pmuscope c2c`'s JSON document (docs/c2c.md; pmuscope/render_cmd.h): the
 * source, perf c2c's counts, the shared cache lines with their nodes, data
 * object and allocation site, and per line the offsets with their threads,
 * CPUs, nodes and instructions.  Its text and CSV are report's
 * (pmuscope/c2c_text.h). */
#include <stdio.h>

#include "pmuscope/render_cmd.h"
#include "report/c2c_int.h"
#include "fields.h"

static void json_stats(struct pms_json *j, const char *key, const struct pms_c2c_stats *s)
{
	pms_json_begin_object(j, key);
	for (size_t i = 0; i < pms_c2c_stat_count(); i++)
		pms_json_uint(j, pms_c2c_stat_name(i), pms_c2c_stat_value(s, i));
	PMS_JSON_FIELDS(j, JU("llc_misses", pms_c2c_llc_misses(s)),
			JU("tot_loads", pms_c2c_perf_loads(s)),
			JU("tot_recs", pms_c2c_perf_records(s)));
	pms_json_end_object(j);
}

static void json_ints(struct pms_json *j, const char *key, const int *v, size_t n)
{
	pms_json_begin_array(j, key);
	for (size_t i = 0; i < n; i++)
		pms_json_int(j, NULL, v[i]);
	pms_json_end_array(j);
}

static void json_lat(struct pms_json *j, const char *key, const struct pms_c2c_lat *l)
{
	pms_json_begin_object(j, key);
	PMS_JSON_FIELDS(j, JU("n", l->n), JUQ("min", l->n, l->min), JUQ("max", l->n, l->max),
			JDQ("mean", l->n, (double)l->sum / (double)l->n));
	pms_json_end_object(j);
}

static void json_thread(struct pms_json *j, const void *ctx, size_t t)
{
	const struct pms_c2c_thread *x = &((const struct pms_c2c_thread *)ctx)[t];
	PMS_JSON_FIELDS(j, JU("pid", x->pid), JU("tid", x->tid), JU("samples", x->samples),
			JU("loads", x->loads), JU("stores", x->stores));
}

void pms_render_c2c_json(struct pms_json *j, const struct pms_render_c2c_src *src,
			 const struct pms_c2c_report *r)
{
	static const char *const latn[PMS_C2C_LAT_N] = { "rmt_hitm", "lcl_hitm", "rmt_peer",
							 "lcl_peer", "load" };
	pms_json_begin_object(j, NULL);
	PMS_JSON_FIELDS(j, JU("schema_version", 1), JS("command", "c2c"));
	pms_json_begin_object(j, "source");
	PMS_JSON_FIELDS(j, JS("kind", src->kind), JS("path", src->path), JS("target", src->what),
			JS("label", src->label), JU("records", src->records),
			JU("skipped_records", src->skipped), JB("truncated", src->truncated));
	/* what the reader skipped or found corrupt (pms_session_problem), when
	 * there is something to say */
	if (src->unfinished)
		pms_json_bool(j, "unfinished", true);
	if (src->ses && (pms_session_problem(src->ses, 0, NULL) ||
			 pms_session_problems_unlisted(src->ses, 0))) {
		const char *pr;
		pms_json_begin_array(j, "problems");
		for (size_t i = 0; (pr = pms_session_problem(src->ses, i, NULL)); i++)
			pms_json_str(j, NULL, pr);
		pms_json_end_array(j);
	}
	PMS_JSON_FIELDS(j, JU("lost", src->lost), JU("excluded_self", src->excluded_self),
			JS("nodes_unavailable", src->nodes_why),
			JIQ("exit_status", src->exit_status >= 0, src->exit_status));
	pms_json_end_object(j);
	PMS_JSON_FIELDS(j, JS("engine", pms_engine_name(r->engine)),
			JB("hitm_available", r->hitm_available));
	pms_json_begin_object(j, "metric");
	PMS_JSON_FIELDS(j, JS("name", r->metric_name), JS("label", r->metric_label));
	pms_json_end_object(j);
	PMS_JSON_FIELDS(j, JU("line_size", r->double_cl ? 128 : 64), JU("samples", r->samples));
	json_stats(j, "totals", &r->total);
	PMS_JSON_FIELDS(j, JU("lines_seen", r->nlines_seen), JU("shared_lines", r->nshared));
	json_stats(j, "shared", &r->shared);
	pms_json_begin_array(j, "lines");
	for (size_t i = 0; i < r->nlines; i++) {
		const struct pms_c2c_line *l = &r->lines[i];
		pms_json_begin_object(j, NULL);
		PMS_JSON_FIELDS(j, JU("index", i), JX("address", true, l->addr),
				JU("size", l->size), JU("pid", l->pid), JB("kernel", l->kernel),
				JU("metric", l->metric));
		json_ints(j, "mem_nodes", l->mem_nodes, l->nmem_nodes);
		PMS_JSON_FIELDS(j, JU("node_unknown", l->node_unknown),
				JU("pa_changes", l->paddr_cnt));
		pms_json_begin_object(j, "object");
		PMS_JSON_FIELDS(j, JS("name", l->object), JS("kind", l->object_kind),
				JX("start", true, l->object_start));
		pms_json_end_object(j);
		if (l->alloc_site >= 0) {
			pms_json_begin_object(j, "alloc_site");
			PMS_JSON_FIELDS(j, JI("rank", l->alloc_site),
					JS("kind", pms_alloc_kind_name(l->alloc_kind)),
					JS("function", l->alloc_func), JS("caller", l->alloc_caller),
					JS("file", l->alloc_file), JI("line", l->alloc_line),
					JU("samples", l->alloc_samples), JU("placed", l->alloc_placed));
			pms_json_end_object(j);
		} else {
			pms_json_null(j, "alloc_site");
		}
		PMS_JSON_FIELDS(j, JU("threads", l->nthreads), JU("writers", l->nwriters));
		json_ints(j, "cpu_nodes", l->cpu_nodes, l->ncpu_nodes);
		json_stats(j, "stats", &l->st);
		json_lat(j, "latency", &l->lat_all);
		pms_json_begin_array(j, "offsets");
		for (size_t k = 0; k < l->nacc; k++) {
			const struct pms_c2c_access *a = &l->acc[k];
			pms_json_begin_object(j, NULL);
			PMS_JSON_FIELDS(j, JU("offset", a->offset), JX("ip", a->ip_valid, a->ip),
					JB("kernel", a->kernel), JS("function", a->func),
					JS("file", a->file), JIQ("line", a->file, a->line),
					JS("module", a->module));
			json_stats(j, "stats", &a->st);
			pms_json_begin_object(j, "latency");
			json_lat(j, "all", &a->lat_all);
			for (int q = 0; q < PMS_C2C_LAT_N; q++)
				json_lat(j, latn[q], &a->lat[q]);
			pms_json_end_object(j);
			pms_json_rows(j, "threads", a->nthreads, json_thread, a->threads);
			json_ints(j, "cpus", a->cpus, a->ncpus);
			json_ints(j, "cpu_nodes", a->cpu_nodes, a->ncpu_nodes);
			pms_json_end_object(j);
		}
		pms_json_end_array(j);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
	pms_json_end_object(j);
}
