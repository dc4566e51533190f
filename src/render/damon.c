/* `pmuscope mem --engine damon`'s JSON document (docs/damon.md;
 * pmuscope/render_cmd.h): the run, its regions by heat with their nodes,
 * the snapshots.  Its text and CSV are damon's (pmuscope/damon_text.h). */
#include <inttypes.h>
#include <stdio.h>

#include "pmuscope/render_cmd.h"

static void json_nodes(struct pms_json *j, const char *key, const struct pms_damon_nodes *nd)
{
	pms_json_begin_object(j, key);
	if (nd->node >= 0)
		pms_json_int(j, "node", nd->node);
	else
		pms_json_null(j, "node");
	pms_json_uint(j, "pages_sampled", nd->sampled);
	pms_json_uint(j, "pages_absent", nd->absent);
	pms_json_begin_object(j, "pages_by_node");
	for (int i = 0; i < PMS_DAMON_MAX_NODES; i++)
		if (nd->pages[i]) {
			char k[16];
			snprintf(k, sizeof(k), "%d", i);
			pms_json_uint(j, k, nd->pages[i]);
		}
	pms_json_end_object(j);
	pms_json_end_object(j);
}

static void hexs(char *buf, size_t n, uint64_t v)
{
	snprintf(buf, n, "0x%" PRIx64, v);
}

static void render_json(struct pms_json *j, const struct pms_damon *d,
			const struct pms_damon_report *r, bool samples, const char *why,
			const char *kdir, int cleanup_rc, const char *cleanup_msg,
			const char *outcome)
{
	char b[64];
	pms_json_begin_object(j, NULL);
	pms_json_str(j, "engine", "damon");
	pms_json_str(j, "label", r->label);
	pms_json_bool(j, "has_ip", false);
	pms_json_bool(j, "has_data_source", false);
	pms_json_bool(j, "has_latency", false);
	pms_json_str(j, "engine_reason", why ? why : "asked for with --engine damon");
	pms_json_str(j, "kdamond", kdir);
	pms_json_bool(j, "kdamond_removed", cleanup_rc == 0);
	if (cleanup_rc)
		pms_json_str(j, "cleanup_error", cleanup_msg);
	pms_json_str(j, "outcome", outcome);
	pms_json_begin_array(j, "pids");
	for (size_t i = 0; i < r->npids; i++)
		pms_json_int(j, NULL, r->pids[i]);
	pms_json_end_array(j);
	pms_json_begin_object(j, "attrs");
	pms_json_uint(j, "sample_us", r->attrs.sample_us);
	pms_json_uint(j, "aggr_us", r->attrs.aggr_us);
	pms_json_uint(j, "update_us", r->attrs.update_us);
	pms_json_uint(j, "min_regions", r->attrs.min_regions);
	pms_json_uint(j, "max_regions", r->attrs.max_regions);
	pms_json_uint(j, "pages_per_region", r->attrs.pages_per_region);
	pms_json_end_object(j);
	pms_json_uint(j, "snapshots", r->nsnapshots);
	pms_json_double(j, "duration_s", (double)r->duration_us / 1e6);
	pms_json_double(j, "max_nr_accesses", r->max_nr_accesses);
	pms_json_double(j, "total_heat", r->total_heat);
	pms_json_begin_array(j, "ranges");
	for (size_t i = 0; i < r->nranges; i++) {
		const struct pms_damon_range *x = &r->ranges[i];
		pms_json_begin_object(j, NULL);
		pms_json_int(j, "pid", r->pids[x->target]);
		hexs(b, sizeof(b), x->start);
		pms_json_str(j, "start", b);
		hexs(b, sizeof(b), x->end);
		pms_json_str(j, "end", b);
		pms_json_uint(j, "bytes", x->end - x->start);
		pms_json_double(j, "heat", x->heat);
		pms_json_double(j, "share", x->share);
		pms_json_double(j, "freq_mean", x->freq_mean);
		pms_json_double(j, "freq_max", x->freq_max);
		pms_json_uint(j, "age_max", x->age_max);
		pms_json_str(j, "class", pms_damon_heat_name(x->heat_class));
		pms_json_str(j, "object", x->object);
		json_nodes(j, "nodes", &x->nodes);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
	pms_json_begin_array(j, "objects");
	for (size_t i = 0; i < r->nobjects; i++) {
		const struct pms_damon_object *x = &r->objects[i];
		pms_json_begin_object(j, NULL);
		pms_json_int(j, "pid", r->pids[x->target]);
		pms_json_str(j, "name", x->name);
		hexs(b, sizeof(b), x->start);
		pms_json_str(j, "start", b);
		hexs(b, sizeof(b), x->end);
		pms_json_str(j, "end", b);
		pms_json_uint(j, "bytes_monitored", x->bytes);
		pms_json_double(j, "heat", x->heat);
		pms_json_double(j, "share", x->share);
		pms_json_double(j, "freq_mean", x->freq_mean);
		json_nodes(j, "nodes", &x->nodes);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
	pms_json_begin_array(j, "cpu_nodes");
	for (size_t i = 0; i < r->ncpu_nodes; i++) {
		pms_json_begin_object(j, NULL);
		pms_json_int(j, "node", r->cpu_nodes[i].node);
		pms_json_double(j, "heat", r->cpu_nodes[i].heat);
		pms_json_double(j, "remote_heat", r->cpu_nodes[i].remote_heat);
		pms_json_double(j, "remote_share", r->cpu_nodes[i].remote_share);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
	pms_json_begin_array(j, "timeline");
	size_t nsn = 0;
	const struct pms_damon_snapshot *sn = pms_damon_snapshots(d, &nsn);
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct pms_damon_step *s = &r->steps[i];
		pms_json_begin_object(j, NULL);
		pms_json_double(j, "t_s", (double)s->t_us / 1e6);
		pms_json_int(j, "pid", r->pids[s->target]);
		pms_json_double(j, "heat", s->heat);
		hexs(b, sizeof(b), s->hot_start);
		pms_json_str(j, "hottest_start", b);
		hexs(b, sizeof(b), s->hot_end);
		pms_json_str(j, "hottest_end", b);
		pms_json_double(j, "hottest_freq", s->hot_freq);
		pms_json_str(j, "hottest_object", s->hot_object);
		pms_json_begin_object(j, "heat_by_node");
		for (int n = 0; n < r->nnodes && n < PMS_DAMON_MAX_NODES; n++) {
			char k[16];
			snprintf(k, sizeof(k), "%d", n);
			pms_json_double(j, k, s->heat_on_node[n]);
		}
		pms_json_end_object(j);
		if (samples && i < nsn) {
			pms_json_begin_array(j, "regions");
			for (size_t k = 0; k < sn[i].nregions; k++) {
				const struct pms_damon_region *g = &sn[i].regions[k];
				pms_json_begin_object(j, NULL);
				hexs(b, sizeof(b), g->start);
				pms_json_str(j, "start", b);
				hexs(b, sizeof(b), g->end);
				pms_json_str(j, "end", b);
				pms_json_uint(j, "nr_accesses", g->nr_accesses);
				pms_json_uint(j, "age", g->age);
				pms_json_end_object(j);
			}
			pms_json_end_array(j);
		}
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
	pms_json_end_object(j);
}

void pms_render_damon_json(struct pms_json *j, const struct pms_damon_run_result *res,
			   bool samples, const char *why)
{
	render_json(j, res->session, res->report, samples, why, res->kdamond_dir,
		    res->cleanup_rc, res->cleanup_msg, res->outcome);
}
