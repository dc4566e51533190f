/* `pmuscope c2c`'s JSON document (docs/c2c.md; pmuscope/render_cmd.h): the
 * source, perf c2c's counts, the shared cache lines with their nodes, data
 * object and allocation site, and per line the offsets with their threads,
 * CPUs, nodes and instructions.  Its text and CSV are report's
 * (pmuscope/c2c_text.h). */
#include <inttypes.h>
#include <stdio.h>

#include "pmuscope/render_cmd.h"
#include "report/c2c_int.h"

static void json_stats(struct pms_json *j, const char *key, const struct pms_c2c_stats *s)
{
	pms_json_begin_object(j, key);
	for (size_t i = 0; i < pms_c2c_stat_count(); i++)
		pms_json_uint(j, pms_c2c_stat_name(i), pms_c2c_stat_value(s, i));
	pms_json_uint(j, "llc_misses", pms_c2c_llc_misses(s));
	pms_json_uint(j, "tot_loads", pms_c2c_perf_loads(s));
	pms_json_uint(j, "tot_recs", pms_c2c_perf_records(s));
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
	pms_json_uint(j, "n", l->n);
	if (l->n) {
		pms_json_uint(j, "min", l->min);
		pms_json_uint(j, "max", l->max);
		pms_json_double(j, "mean", (double)l->sum / (double)l->n);
	} else {
		pms_json_null(j, "min");
		pms_json_null(j, "max");
		pms_json_null(j, "mean");
	}
	pms_json_end_object(j);
}

void pms_render_c2c_json(struct pms_json *j, const struct pms_render_c2c_src *src,
			 const struct pms_c2c_report *r)
{
	char hx[24];
	static const char *const latn[PMS_C2C_LAT_N] = { "rmt_hitm", "lcl_hitm", "rmt_peer",
							 "lcl_peer", "load" };
	pms_json_begin_object(j, NULL);
	pms_json_uint(j, "schema_version", 1);
	pms_json_str(j, "command", "c2c");
	pms_json_begin_object(j, "source");
	pms_json_str(j, "kind", src->kind);
	pms_json_str(j, "path", src->path);
	pms_json_str(j, "target", src->what);
	pms_json_str(j, "label", src->label);
	pms_json_uint(j, "records", src->records);
	pms_json_uint(j, "skipped_records", src->skipped);
	pms_json_bool(j, "truncated", src->truncated);
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
	pms_json_uint(j, "lost", src->lost);
	pms_json_uint(j, "excluded_self", src->excluded_self);
	pms_json_str(j, "nodes_unavailable", src->nodes_why);
	if (src->exit_status >= 0)
		pms_json_int(j, "exit_status", src->exit_status);
	else
		pms_json_null(j, "exit_status");
	pms_json_end_object(j);
	pms_json_str(j, "engine", pms_engine_name(r->engine));
	pms_json_bool(j, "hitm_available", r->hitm_available);
	pms_json_begin_object(j, "metric");
	pms_json_str(j, "name", r->metric_name);
	pms_json_str(j, "label", r->metric_label);
	pms_json_end_object(j);
	pms_json_uint(j, "line_size", r->double_cl ? 128 : 64);
	pms_json_uint(j, "samples", r->samples);
	json_stats(j, "totals", &r->total);
	pms_json_uint(j, "lines_seen", r->nlines_seen);
	pms_json_uint(j, "shared_lines", r->nshared);
	json_stats(j, "shared", &r->shared);
	pms_json_begin_array(j, "lines");
	for (size_t i = 0; i < r->nlines; i++) {
		const struct pms_c2c_line *l = &r->lines[i];
		pms_json_begin_object(j, NULL);
		pms_json_uint(j, "index", i);
		snprintf(hx, sizeof(hx), "0x%" PRIx64, l->addr);
		pms_json_str(j, "address", hx);
		pms_json_uint(j, "size", l->size);
		pms_json_uint(j, "pid", l->pid);
		pms_json_bool(j, "kernel", l->kernel);
		pms_json_uint(j, "metric", l->metric);
		json_ints(j, "mem_nodes", l->mem_nodes, l->nmem_nodes);
		pms_json_uint(j, "node_unknown", l->node_unknown);
		pms_json_uint(j, "pa_changes", l->paddr_cnt);
		pms_json_begin_object(j, "object");
		pms_json_str(j, "name", l->object);
		pms_json_str(j, "kind", l->object_kind);
		snprintf(hx, sizeof(hx), "0x%" PRIx64, l->object_start);
		pms_json_str(j, "start", hx);
		pms_json_end_object(j);
		if (l->alloc_site >= 0) {
			pms_json_begin_object(j, "alloc_site");
			pms_json_int(j, "rank", l->alloc_site);
			pms_json_str(j, "kind", pms_alloc_kind_name(l->alloc_kind));
			pms_json_str(j, "function", l->alloc_func);
			pms_json_str(j, "caller", l->alloc_caller);
			pms_json_str(j, "file", l->alloc_file);
			pms_json_int(j, "line", l->alloc_line);
			pms_json_uint(j, "samples", l->alloc_samples);
			pms_json_uint(j, "placed", l->alloc_placed);
			pms_json_end_object(j);
		} else {
			pms_json_null(j, "alloc_site");
		}
		pms_json_uint(j, "threads", l->nthreads);
		pms_json_uint(j, "writers", l->nwriters);
		json_ints(j, "cpu_nodes", l->cpu_nodes, l->ncpu_nodes);
		json_stats(j, "stats", &l->st);
		json_lat(j, "latency", &l->lat_all);
		pms_json_begin_array(j, "offsets");
		for (size_t k = 0; k < l->nacc; k++) {
			const struct pms_c2c_access *a = &l->acc[k];
			pms_json_begin_object(j, NULL);
			pms_json_uint(j, "offset", a->offset);
			pms_json_hex(j, "ip", a->ip_valid, a->ip);
			pms_json_bool(j, "kernel", a->kernel);
			pms_json_str(j, "function", a->func);
			pms_json_str(j, "file", a->file);
			if (a->file)
				pms_json_int(j, "line", a->line);
			else
				pms_json_null(j, "line");
			pms_json_str(j, "module", a->module);
			json_stats(j, "stats", &a->st);
			pms_json_begin_object(j, "latency");
			json_lat(j, "all", &a->lat_all);
			for (int q = 0; q < PMS_C2C_LAT_N; q++)
				json_lat(j, latn[q], &a->lat[q]);
			pms_json_end_object(j);
			pms_json_begin_array(j, "threads");
			for (size_t t = 0; t < a->nthreads; t++) {
				pms_json_begin_object(j, NULL);
				pms_json_uint(j, "pid", a->threads[t].pid);
				pms_json_uint(j, "tid", a->threads[t].tid);
				pms_json_uint(j, "samples", a->threads[t].samples);
				pms_json_uint(j, "loads", a->threads[t].loads);
				pms_json_uint(j, "stores", a->threads[t].stores);
				pms_json_end_object(j);
			}
			pms_json_end_array(j);
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
