/* `pmuscope mem --engine damon`'s JSON document (docs/damon.md;
 * pmuscope/render_cmd.h): the run, its regions by heat with their nodes,
 * the snapshots.  Its text and CSV are damon's (pmuscope/damon_text.h). */
#include <stdio.h>

#include "pmuscope/render_cmd.h"
#include "fields.h"

static void json_nodes(struct pms_json *j, const char *key, const struct pms_damon_nodes *nd)
{
	pms_json_begin_object(j, key);
	if (nd->node >= 0)
		pms_json_int(j, "node", nd->node);
	else
		pms_json_null(j, "node");
	PMS_JSON_FIELDS(j, JU("pages_sampled", nd->sampled), JU("pages_absent", nd->absent));
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

static void render_json(struct pms_json *j, const struct pms_damon *d,
			const struct pms_damon_report *r, bool samples, const char *why,
			const char *kdir, int cleanup_rc, const char *cleanup_msg,
			const char *outcome)
{
	pms_json_begin_object(j, NULL);
	PMS_JSON_FIELDS(j, JS("engine", "damon"), JS("label", r->label), JB("has_ip", false),
			JB("has_data_source", false), JB("has_latency", false),
			JS("engine_reason", why ? why : "asked for with --engine damon"),
			JS("kdamond", kdir), JB("kdamond_removed", cleanup_rc == 0));
	if (cleanup_rc)
		pms_json_str(j, "cleanup_error", cleanup_msg);
	pms_json_str(j, "outcome", outcome);
	pms_json_begin_array(j, "pids");
	for (size_t i = 0; i < r->npids; i++)
		pms_json_int(j, NULL, r->pids[i]);
	pms_json_end_array(j);
	pms_json_begin_object(j, "attrs");
	const struct pms_damon_opts *at = &r->attrs;
	PMS_JSON_FIELDS(j, JU("sample_us", at->sample_us), JU("aggr_us", at->aggr_us),
			JU("update_us", at->update_us), JU("min_regions", at->min_regions),
			JU("max_regions", at->max_regions),
			JU("pages_per_region", at->pages_per_region));
	pms_json_end_object(j);
	PMS_JSON_FIELDS(j, JU("snapshots", r->nsnapshots),
			JD("duration_s", (double)r->duration_us / 1e6),
			JD("max_nr_accesses", r->max_nr_accesses), JD("total_heat", r->total_heat));
	pms_json_begin_array(j, "ranges");
	for (size_t i = 0; i < r->nranges; i++) {
		const struct pms_damon_range *x = &r->ranges[i];
		pms_json_begin_object(j, NULL);
		PMS_JSON_FIELDS(j, JI("pid", r->pids[x->target]), JX("start", true, x->start),
				JX("end", true, x->end), JU("bytes", x->end - x->start),
				JD("heat", x->heat), JD("share", x->share),
				JD("freq_mean", x->freq_mean), JD("freq_max", x->freq_max),
				JU("age_max", x->age_max),
				JS("class", pms_damon_heat_name(x->heat_class)),
				JS("object", x->object));
		json_nodes(j, "nodes", &x->nodes);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
	pms_json_begin_array(j, "objects");
	for (size_t i = 0; i < r->nobjects; i++) {
		const struct pms_damon_object *x = &r->objects[i];
		pms_json_begin_object(j, NULL);
		PMS_JSON_FIELDS(j, JI("pid", r->pids[x->target]), JS("name", x->name),
				JX("start", true, x->start), JX("end", true, x->end),
				JU("bytes_monitored", x->bytes), JD("heat", x->heat),
				JD("share", x->share), JD("freq_mean", x->freq_mean));
		json_nodes(j, "nodes", &x->nodes);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
	pms_json_begin_array(j, "cpu_nodes");
	for (size_t i = 0; i < r->ncpu_nodes; i++) {
		pms_json_begin_object(j, NULL);
		const struct pms_damon_cpu_node *c = &r->cpu_nodes[i];
		PMS_JSON_FIELDS(j, JI("node", c->node), JD("heat", c->heat),
				JD("remote_heat", c->remote_heat), JD("remote_share", c->remote_share));
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
	pms_json_begin_array(j, "timeline");
	size_t nsn = 0;
	const struct pms_damon_snapshot *sn = pms_damon_snapshots(d, &nsn);
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct pms_damon_step *s = &r->steps[i];
		pms_json_begin_object(j, NULL);
		PMS_JSON_FIELDS(j, JD("t_s", (double)s->t_us / 1e6), JI("pid", r->pids[s->target]),
				JD("heat", s->heat), JX("hottest_start", true, s->hot_start),
				JX("hottest_end", true, s->hot_end),
				JD("hottest_freq", s->hot_freq), JS("hottest_object", s->hot_object));
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
				PMS_JSON_FIELDS(j, JX("start", true, g->start), JX("end", true, g->end),
						JU("nr_accesses", g->nr_accesses), JU("age", g->age));
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
