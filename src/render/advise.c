/* `--advise` / `--apply`'s documents (docs/advise.md; pmuscope/render_cmd.h):
 * the plan, its allocation sites with their hints, what --apply moved and
 * the before/after comparison, as text or the "advice" (and "apply") JSON
 * members; the migration result pmuscope migrate shares. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/render_cmd.h"
#include "pmuscope/util.h"
#include "advise/advise_text_int.h"
#include "fields.h"
#include "render_int.h"

static void json_nodes(struct pms_json *j, const char *key, const struct pms_advice_node *v, size_t n,
		       bool mem);
static void json_action(struct pms_json *j, enum pms_advice_action a, int target, const int *nodes,
			size_t n);


static const struct pms_alloc_site *site_of(const struct pms_render_advice *ma,
					    const struct pms_site_advice *it)
{
	const struct pms_alloc_report *ar = ma->sites_ar;
	return ar && it->site < ar->nsites ? &ar->sites[it->site] : NULL;
}

static void site_line(const struct pms_site_advice *it, const struct pms_alloc_site *s,
		      char *buf, size_t len)
{
	char where[600] = "?", act[128];
	if (s)
		pms_render_alloc_where(s, where, sizeof(where));
	if (it->action == PMS_ADVICE_MOVE)
		snprintf(act, sizeof(act), "allocate on node %d", it->target);
	else if (it->action == PMS_ADVICE_INTERLEAVE) {
		char nl[96];
		pms_advice_nodes_text(nl, sizeof(nl), it->nodes, it->nnodes);
		snprintf(act, sizeof(act), "interleave across nodes %s", nl);
	} else
		snprintf(act, sizeof(act), "leave it");
	if (it->from_node >= 0)
		snprintf(buf, len, "allocation at %s: %.1f %% of samples, %.1f %% remote from node %d "
			 "threads -> %s", where, 100 * it->share, 100 * it->remote_share,
			 it->from_node, act);
	else
		snprintf(buf, len, "allocation at %s: %.1f %% of samples, %.1f %% remote -> %s", where,
			 100 * it->share, 100 * it->remote_share, act);
}

/* The source-level hint: what to call at that line, and the whole-run
 * numactl (empty for leave). */
static void site_hint(const struct pms_site_advice *it, char **cmd, char *hint, size_t hlen,
		      char *run, size_t rlen)
{
	char c[512], nl[96];
	pms_advice_command_text(c, sizeof(c), cmd);
	hint[0] = run[0] = 0;
	if (it->action == PMS_ADVICE_MOVE) {
		snprintf(hint, hlen, "numa_alloc_onnode(size, %d) instead of that allocation, or "
			 "mbind(addr, len, MPOL_BIND, {%d}) on its block before first touch",
			 it->target, it->target);
		snprintf(run, rlen, "numactl --membind=%d -- %.300s", it->target, c);
	} else if (it->action == PMS_ADVICE_INTERLEAVE) {
		pms_advice_nodes_text(nl, sizeof(nl), it->nodes, it->nnodes);
		snprintf(hint, hlen, "numa_alloc_interleaved_subset(size, {%s}) instead of that "
			 "allocation, or mbind(addr, len, MPOL_INTERLEAVE, {%s}) on its block", nl, nl);
		snprintf(run, rlen, "numactl --interleave=%s -- %.300s", nl, c);
	}
}

static void sites_text(FILE *out, const struct pms_render_advice *ma,
		       const struct pms_memreport *after, char **cmd)
{
	const struct pms_site_plan *p = ma->sites;
	char line[1024], hint[512], run[600], hs[32];
	fprintf(out, "\nAllocation-site advice (%" PRIu64 " samples in tracked allocations):\n",
	       p->placed);
	if (!p->nitems)
		fprintf(out, "  no sample fell in a tracked allocation\n");
	for (size_t i = 0; i < p->nitems && i < 10; i++) {
		const struct pms_site_advice *it = &p->items[i];
		site_line(it, site_of(ma, it), line, sizeof(line));
		fprintf(out, "  #%zu %s\n", i + 1, line);
		fprintf(out, "     %zu block%s (%s) sampled; remote share %.1f %% (95 %% interval "
		       "%.1f-%.1f %%); why: %s\n", it->nblocks, it->nblocks == 1 ? "" : "s",
		       pms_human_size(it->bytes, hs, sizeof(hs)), 100 * it->remote_share,
		       100 * it->remote_lo, 100 * it->remote_hi, it->reason);
		site_hint(it, cmd, hint, sizeof(hint), run, sizeof(run));
		if (hint[0])
			fprintf(out, "     hint: %s; whole run: %s\n", hint, run);
		if (!ma->sites_applied || it->action == PMS_ADVICE_LEAVE)
			continue;
		fprintf(out, "     applied (its blocks only): ");
		if (it->action == PMS_ADVICE_MOVE)
			pms_migrate_render_text(out, &ma->site_res[i], &it->target, 1);
		else
			pms_migrate_render_text(out, &ma->site_res[i], it->nodes, it->nnodes);
		struct pms_advice_range b, a;
		pms_site_measure(it, ma->before, &b);
		pms_site_measure(it, after, &a);
		fprintf(out, "     re-measured: remote share %.1f %% (%" PRIu64 " samples) before, %.1f %% "
		       "(%" PRIu64 " samples) after\n", 100 * b.remote_share, b.samples,
		       100 * a.remote_share, a.samples);
		pms_advice_range_release(&b);
		pms_advice_range_release(&a);
	}
}

static void json_block(struct pms_json *j, const void *ctx, size_t i)
{
	const struct pms_site_block *b = &((const struct pms_site_block *)ctx)[i];
	PMS_JSON_FIELDS(j, JU("pid", b->pid), JX("start", true, b->start),
			JX("end", true, b->end));
}

static void sites_json(struct pms_json *j, const struct pms_render_advice *ma,
		       const struct pms_memreport *after, char **cmd)
{
	const struct pms_site_plan *p = ma->sites;
	pms_json_begin_array(j, "sites");
	for (size_t i = 0; i < p->nitems; i++) {
		const struct pms_site_advice *it = &p->items[i];
		const struct pms_alloc_site *s = site_of(ma, it);
		char line[1024], hint[512], run[600], where[600] = "?";
		pms_json_begin_object(j, NULL);
		pms_json_uint(j, "site", it->site);
		if (s)
			pms_render_alloc_where(s, where, sizeof(where));
		pms_json_str(j, "where", where);
		site_line(it, s, line, sizeof(line));
		pms_json_str(j, "text", line);
		PMS_JSON_FIELDS(j, JU("samples", it->samples), JD("share", it->share),
				JU("resolved", it->resolved), JU("remote", it->remote),
				JD("remote_share", it->remote_share), JD("remote_lo", it->remote_lo),
				JD("remote_hi", it->remote_hi),
				JIQ("remote_from_node", it->from_node >= 0, it->from_node));
		json_nodes(j, "cpu_nodes", it->cpus, it->ncpus, false);
		json_nodes(j, "mem_nodes", it->mems, it->nmems, true);
		json_action(j, it->action, it->target, it->nodes, it->nnodes);
		pms_json_rows(j, "blocks", it->nblocks, json_block, it->blocks);
		pms_json_uint(j, "bytes", it->bytes);
		pms_json_str(j, "reason", it->reason);
		site_hint(it, cmd, hint, sizeof(hint), run, sizeof(run));
		pms_json_str(j, "hint", hint[0] ? hint : NULL);
		pms_json_str(j, "numactl", run[0] ? run : NULL);
		if (ma->sites_applied && it->action != PMS_ADVICE_LEAVE) {
			pms_render_migrate_json(j, "applied", &ma->site_res[i]);
			struct pms_advice_range b, a;
			pms_site_measure(it, ma->before, &b);
			pms_site_measure(it, after, &a);
			pms_json_begin_object(j, "remeasure");
			PMS_JSON_FIELDS(j, JU("before_samples", b.samples),
					JD("before_remote_share", b.remote_share),
					JU("after_samples", a.samples),
					JD("after_remote_share", a.remote_share));
			pms_json_end_object(j);
			pms_advice_range_release(&b);
			pms_advice_range_release(&a);
		}
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
}

/* ---- text ------------------------------------------------------------------ */

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);
	return n ? n : "?";
}

void pms_render_advice_text(FILE *out, const struct pms_render_advice *ma,
			    const struct pms_memreport *after, pid_t pid, char **cmd)
{
	if (!ma->advise)
		return;
	if (ma->err[0])
		fprintf(out, "\nadvise: %s\n", ma->err);
	if (ma->sites)
		sites_text(out, ma, after ? after : ma->before, cmd);
	if (!ma->plan)
		return;
	pms_advice_render_plan(out, ma->plan, pid, cmd);
	if (!ma->apply)
		return;
	pms_advice_render_applied(out, ma->plan, ma->rows, ma->nrows, pid, ma->before_s,
				  ma->sites_applied);
	if (!ma->adv_after || !after)
		return;
	pms_advice_render_compare(out, ma->plan, ma->adv_before, ma->adv_after, ma->before, after,
				  ma->before_s);
}

/* ---- JSON ------------------------------------------------------------------ */

/* An item's or a site's action: its name, the target node, the nodes to
 * interleave across. */
static void json_action(struct pms_json *j, enum pms_advice_action a, int target, const int *nodes,
			size_t n)
{
	PMS_JSON_FIELDS(j, JS("action", pms_advice_action_name(a)),
			JIQ("target", target >= 0, target));
	pms_json_begin_array(j, "interleave");
	for (size_t k = 0; k < n; k++)
		pms_json_int(j, NULL, nodes[k]);
	pms_json_end_array(j);
}

/* A node of an item's or a site's mem_nodes (its pages) or cpu_nodes (its
 * distance). */
static void json_node(struct pms_json *j, const struct pms_advice_node *v, bool mem)
{
	PMS_JSON_FIELDS(j, JI("node", v->node), JU("accesses", v->accesses),
			JD("share", v->share));
	if (mem)
		pms_json_uint(j, "pages_sampled", v->pages);
	else
		pms_json_double(j, "distance", v->cost);
	PMS_JSON_FIELDS(j, JU("latency_samples", v->latency_n),
			JDQ("latency_mean", v->latency_n, v->latency_mean));
}

static void json_mem_node(struct pms_json *j, const void *ctx, size_t i)
{
	json_node(j, &((const struct pms_advice_node *)ctx)[i], true);
}

static void json_cpu_node(struct pms_json *j, const void *ctx, size_t i)
{
	json_node(j, &((const struct pms_advice_node *)ctx)[i], false);
}

static void json_nodes(struct pms_json *j, const char *key, const struct pms_advice_node *v, size_t n,
		       bool mem)
{
	pms_json_rows(j, key, n, mem ? json_mem_node : json_cpu_node, v);
}

void pms_render_migrate_json(struct pms_json *j, const char *key, const struct pms_migrate_result *r)
{
	pms_json_begin_object(j, key);
	PMS_JSON_FIELDS(j, JU("pages", r->pages), JU("moved", r->moved), JU("already", r->already),
			JU("not_present", r->not_present), JU("failed", r->failed));
	pms_json_begin_object(j, "failed_by_errno");
	for (size_t i = 0; i < r->nerrs; i++)
		pms_json_uint(j, errname(r->errs[i].err), r->errs[i].pages);
	pms_json_end_object(j);
	PMS_JSON_FIELDS(j, JU("on_target_after", r->after_on_target),
			JU("moved_after_retry", r->retried), JU("move_pages_calls", r->calls),
			JS("call_error", r->call_errno ? errname(r->call_errno) : NULL));
	pms_json_end_object(j);
}

static void json_range(struct pms_json *j, const char *key, const struct pms_advisor *a,
		       const struct pms_advice_item *it)
{
	struct pms_advice_range x;
	if (!a || pms_advisor_range(a, it->pid, it->start, it->end, &x) < 0) {
		pms_json_null(j, key);
		return;
	}
	pms_json_begin_object(j, key);
	PMS_JSON_FIELDS(j, JU("samples", x.samples), JU("remote", x.remote),
			JD("remote_share", x.remote_share), JD("remote_lo", x.remote_lo),
			JD("remote_hi", x.remote_hi),
			JDQ("latency_mean", x.latency_n, x.latency_mean));
	json_nodes(j, "mem_nodes", x.mems, x.nmems, true);
	pms_json_end_object(j);
	pms_advice_range_release(&x);
}

static void json_totals(struct pms_json *j, const char *key, const struct pms_memreport *r)
{
	uint64_t all, remote;
	pms_memreport_remote_totals(r, &all, &remote);
	pms_json_begin_object(j, key);
	PMS_JSON_FIELDS(j, JU("samples", all),
			JD("remote_share", all ? (double)remote / (double)all : 0));
	pms_json_begin_object(j, "accesses_per_node");
	for (size_t k = 0; k < r->nnodes; k++) {
		uint64_t col = 0;
		char name[16];
		for (size_t i = 0; i < r->nnodes; i++)
			col += r->matrix[i * r->nnodes + k];
		snprintf(name, sizeof(name), "%d", r->node_ids[k]);
		pms_json_uint(j, name, col);
	}
	pms_json_end_object(j);
	PMS_JSON_FIELDS(j, JDQ("latency_mean", r->latency.n, r->latency.mean));
	pms_json_end_object(j);
}

void pms_render_advice_json(struct pms_json *j, const struct pms_render_advice *ma,
			    const struct pms_memreport *after, pid_t pid, char **cmd)
{
	if (!ma || !ma->advise)
		return;
	if (!ma->plan) {
		pms_json_null(j, "advice");
		return;
	}
	const struct pms_advice *p = ma->plan;
	pms_json_begin_object(j, "advice");
	PMS_JSON_FIELDS(j, JU("samples", p->samples), JB("distances_assumed", p->distances_assumed),
			JB("capacity_checked", p->capacity_checked), JU("page_size", p->page_size));
	if (ma->err[0])
		pms_json_str(j, "note", ma->err);
	if (ma->sites)
		sites_json(j, ma, after, cmd);
	else
		pms_json_null(j, "sites"); /* no allocation tracking (a file, -p, -a) */
	pms_json_bool(j, "sites_applied", ma->sites_applied);
	pms_json_begin_array(j, "items");
	for (size_t i = 0; i < p->nitems; i++) {
		const struct pms_advice_item *it = &p->items[i];
		char nl[512], ml[512];
		pms_json_begin_object(j, NULL);
		PMS_JSON_FIELDS(j, JS("name", it->name), JS("kind", it->kind),
				JX("start", true, it->start), JX("end", true, it->end),
				JU("bytes", it->end - it->start), JU("samples", it->samples),
				JD("store_share", it->store_share),
				JD("remote_share", it->remote_share), JD("remote_lo", it->remote_lo),
				JD("remote_hi", it->remote_hi), JB("sure", it->sure),
				JB("latency_measured", it->latency_measured));
		json_nodes(j, "mem_nodes", it->mems, it->nmems, true);
		json_nodes(j, "cpu_nodes", it->cpus, it->ncpus, false);
		json_action(j, it->action, it->target, it->nodes, it->nnodes);
		PMS_JSON_FIELDS(j, JD("distance_now", it->cost_now),
				JD("distance_after", it->cost_after),
				JD("predicted_remote_share", it->predicted_remote),
				JU("move_pages", it->move_pages), JU("move_bytes", it->move_bytes),
				JS("reason", it->reason));
		pms_advice_item_commands(it, pid, cmd, nl, sizeof(nl), ml, sizeof(ml));
		pms_json_str(j, "numactl", nl[0] ? nl : NULL);
		pms_json_str(j, "migrate", ml[0] ? ml : NULL);
		if (ma->apply) {
			const struct pms_advice_applied *row = NULL;
			for (size_t r = 0; r < ma->nrows; r++)
				if (ma->rows[r].item == i)
					row = &ma->rows[r];
			if (row) {
				pms_render_migrate_json(j, "applied", &row->res);
				pms_json_str(j, "apply_error", row->rc < 0 ? row->err : NULL);
			} else {
				PMS_JSON_FIELDS(j, JS("applied", NULL), JS("apply_error", NULL));
			}
			json_range(j, "before", ma->adv_before, it);
			json_range(j, "after", ma->adv_after, it);
		}
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
	if (ma->apply && ma->before && after && ma->adv_after) {
		pms_json_double(j, "measure_s", ma->before_s);
		json_totals(j, "before", ma->before);
		json_totals(j, "after", after);
	}
	pms_json_end_object(j);
}
