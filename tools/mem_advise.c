/* `--advise` / `--apply` of pmuscope mem and report, and the migration
 * renderers of pmuscope migrate (docs/advise.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc_render.h"
#include "mem_advise.h"
#include "pmuscope/error.h"
#include "pmuscope/symbols.h"

static size_t page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	return ps > 0 ? (size_t)ps : 4096;
}

static int new_advisor(const struct pms_topo *topo, const struct pms_memreport *rep,
		       struct pms_advisor **out)
{
	struct pms_advise_opts ao = PMS_ADVISE_OPTS_INIT;
	ao.page_size = page_size();
	ao.stores_unknown = !rep->data_src_available;
	if (pms_advisor_new(topo, &ao, out) < 0) {
		fprintf(stderr, "pmuscope: advise: %s\n", pms_error_last());
		return -1;
	}
	return 0;
}

static int plan_from(struct mem_advise *ma, const struct pms_topo *topo,
		     const struct pms_memreport *rep, struct pms_advisor **adv)
{
	if (!*adv) {
		if (new_advisor(topo, rep, adv) < 0)
			return -1;
		if (pms_advisor_add_report(*adv, rep) < 0) {
			fprintf(stderr, "pmuscope: advise: %s\n", pms_error_last());
			return -1;
		}
	}
	if (pms_advisor_plan(*adv, rep, &ma->plan) < 0) {
		fprintf(stderr, "pmuscope: advise: %s\n", pms_error_last());
		return -1;
	}
	return 0;
}

/* ---- allocation sites (issue 28) --------------------------------------- */

static void nodes_list(char *buf, size_t len, const int *nodes, size_t n);
static void cmd_text(char *buf, size_t len, char **cmd);
static void json_nodes(struct json *j, const char *key, const struct pms_advice_node *v, size_t n,
		       bool mem);
static void json_hex(struct json *j, const char *key, uint64_t v);
static void json_action(struct json *j, enum pms_advice_action a, int target, const int *nodes,
			size_t n);

static bool site_lookup(void *ud, uint32_t pid, uint64_t addr, uint64_t time, uint64_t *start,
			uint64_t *end)
{
	struct pms_alloc_info info;
	if (pms_session_alloc_lookup(ud, pid, addr, time, &info) < 0)
		return false;
	*start = info.addr;
	*end = info.addr + (info.bytes ? info.bytes : 1);
	return true;
}

int mem_advise_sites(struct mem_advise *ma, struct pms_session *ses,
		     const struct pms_memreport *rep, const struct pms_alloc_report *ar)
{
	if (!ma->advise || !ar || ma->sites)
		return 0;
	struct pms_advise_opts ao = PMS_ADVISE_OPTS_INIT;
	ao.page_size = page_size();
	if (pms_site_plan_new(rep, ar->sample_site, ar->nsample_site, site_lookup, ses, &ao,
			      &ma->sites) < 0) {
		fprintf(stderr, "pmuscope: advise: allocation sites: %s\n", pms_error_last());
		return -1;
	}
	ma->sites_ar = ar;
	return 0;
}

/* --apply of the sites advised to move or interleave: true when one was */
static bool sites_apply(struct mem_advise *ma, struct pms_sys *sys,
			const struct pms_migrate_opts *mo)
{
	const struct pms_site_plan *p = ma->sites;
	size_t n = 0;
	for (size_t i = 0; i < p->nitems; i++)
		n += p->items[i].action != PMS_ADVICE_LEAVE && p->items[i].nblocks;
	if (!n)
		return false;
	ma->site_res = calloc(p->nitems, sizeof(*ma->site_res));
	ma->site_rc = calloc(p->nitems, sizeof(*ma->site_rc));
	if (!ma->site_res || !ma->site_rc)
		return false;
	for (size_t i = 0; i < p->nitems; i++)
		ma->site_rc[i] = pms_site_apply(sys, &p->items[i], mo, &ma->site_res[i]);
	ma->sites_applied = true;
	return true;
}

static const struct pms_alloc_site *site_of(const struct mem_advise *ma,
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
		alloc_site_where(s, where, sizeof(where));
	if (it->action == PMS_ADVICE_MOVE)
		snprintf(act, sizeof(act), "allocate on node %d", it->target);
	else if (it->action == PMS_ADVICE_INTERLEAVE) {
		char nl[96];
		nodes_list(nl, sizeof(nl), it->nodes, it->nnodes);
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
	cmd_text(c, sizeof(c), cmd);
	hint[0] = run[0] = 0;
	if (it->action == PMS_ADVICE_MOVE) {
		snprintf(hint, hlen, "numa_alloc_onnode(size, %d) instead of that allocation, or "
			 "mbind(addr, len, MPOL_BIND, {%d}) on its block before first touch",
			 it->target, it->target);
		snprintf(run, rlen, "numactl --membind=%d -- %.300s", it->target, c);
	} else if (it->action == PMS_ADVICE_INTERLEAVE) {
		nodes_list(nl, sizeof(nl), it->nodes, it->nnodes);
		snprintf(hint, hlen, "numa_alloc_interleaved_subset(size, {%s}) instead of that "
			 "allocation, or mbind(addr, len, MPOL_INTERLEAVE, {%s}) on its block", nl, nl);
		snprintf(run, rlen, "numactl --interleave=%s -- %.300s", nl, c);
	}
}

static void sites_text(const struct mem_advise *ma, const struct pms_memreport *after,
		       char **cmd)
{
	const struct pms_site_plan *p = ma->sites;
	char line[1024], hint[512], run[600], hs[32];
	printf("\nAllocation-site advice (%" PRIu64 " samples in tracked allocations):\n",
	       p->placed);
	if (!p->nitems)
		printf("  no sample fell in a tracked allocation\n");
	for (size_t i = 0; i < p->nitems && i < 10; i++) {
		const struct pms_site_advice *it = &p->items[i];
		site_line(it, site_of(ma, it), line, sizeof(line));
		printf("  #%zu %s\n", i + 1, line);
		printf("     %zu block%s (%s) sampled; remote share %.1f %% (95 %% interval "
		       "%.1f-%.1f %%); why: %s\n", it->nblocks, it->nblocks == 1 ? "" : "s",
		       cli_human_size(it->bytes, hs, sizeof(hs)), 100 * it->remote_share,
		       100 * it->remote_lo, 100 * it->remote_hi, it->reason);
		site_hint(it, cmd, hint, sizeof(hint), run, sizeof(run));
		if (hint[0])
			printf("     hint: %s; whole run: %s\n", hint, run);
		if (!ma->sites_applied || it->action == PMS_ADVICE_LEAVE)
			continue;
		printf("     applied (its blocks only): ");
		if (it->action == PMS_ADVICE_MOVE)
			advise_migrate_text(stdout, &ma->site_res[i], &it->target, 1);
		else
			advise_migrate_text(stdout, &ma->site_res[i], it->nodes, it->nnodes);
		struct pms_advice_range b, a;
		pms_site_measure(it, ma->before, &b);
		pms_site_measure(it, after, &a);
		printf("     re-measured: remote share %.1f %% (%" PRIu64 " samples) before, %.1f %% "
		       "(%" PRIu64 " samples) after\n", 100 * b.remote_share, b.samples,
		       100 * a.remote_share, a.samples);
		pms_advice_range_release(&b);
		pms_advice_range_release(&a);
	}
}

static void sites_json(struct json *j, const struct mem_advise *ma,
		       const struct pms_memreport *after, char **cmd)
{
	const struct pms_site_plan *p = ma->sites;
	cli_json_begin_array(j, "sites");
	for (size_t i = 0; i < p->nitems; i++) {
		const struct pms_site_advice *it = &p->items[i];
		const struct pms_alloc_site *s = site_of(ma, it);
		char line[1024], hint[512], run[600], where[600] = "?";
		cli_json_begin_object(j, NULL);
		cli_json_uint(j, "site", it->site);
		if (s)
			alloc_site_where(s, where, sizeof(where));
		cli_json_str(j, "where", where);
		site_line(it, s, line, sizeof(line));
		cli_json_str(j, "text", line);
		cli_json_uint(j, "samples", it->samples);
		cli_json_double(j, "share", it->share);
		cli_json_uint(j, "resolved", it->resolved);
		cli_json_uint(j, "remote", it->remote);
		cli_json_double(j, "remote_share", it->remote_share);
		cli_json_double(j, "remote_lo", it->remote_lo);
		cli_json_double(j, "remote_hi", it->remote_hi);
		if (it->from_node >= 0)
			cli_json_int(j, "remote_from_node", it->from_node);
		else
			cli_json_null(j, "remote_from_node");
		json_nodes(j, "cpu_nodes", it->cpus, it->ncpus, false);
		json_nodes(j, "mem_nodes", it->mems, it->nmems, true);
		json_action(j, it->action, it->target, it->nodes, it->nnodes);
		cli_json_begin_array(j, "blocks");
		for (size_t b = 0; b < it->nblocks; b++) {
			cli_json_begin_object(j, NULL);
			cli_json_uint(j, "pid", it->blocks[b].pid);
			json_hex(j, "start", it->blocks[b].start);
			json_hex(j, "end", it->blocks[b].end);
			cli_json_end_object(j);
		}
		cli_json_end_array(j);
		cli_json_uint(j, "bytes", it->bytes);
		cli_json_str(j, "reason", it->reason);
		site_hint(it, cmd, hint, sizeof(hint), run, sizeof(run));
		cli_json_str(j, "hint", hint[0] ? hint : NULL);
		cli_json_str(j, "numactl", run[0] ? run : NULL);
		if (ma->sites_applied && it->action != PMS_ADVICE_LEAVE) {
			advise_migrate_json(j, "applied", &ma->site_res[i]);
			struct pms_advice_range b, a;
			pms_site_measure(it, ma->before, &b);
			pms_site_measure(it, after, &a);
			cli_json_begin_object(j, "remeasure");
			cli_json_uint(j, "before_samples", b.samples);
			cli_json_double(j, "before_remote_share", b.remote_share);
			cli_json_uint(j, "after_samples", a.samples);
			cli_json_double(j, "after_remote_share", a.remote_share);
			cli_json_end_object(j);
			pms_advice_range_release(&b);
			pms_advice_range_release(&a);
		}
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
}

int mem_advise_switch(struct mem_advise *ma, struct pms_sys *sys, const struct pms_topo *topo,
		      pid_t pid, struct pms_session *ses, double seconds)
{
	/* the first measurement's report; the session starts the second */
	if (pms_session_remeasure(ses, seconds, &ma->before) < 0) {
		fprintf(stderr, "pmuscope: mem: the first measurement's report: %s\n",
			pms_error_last());
		return -1;
	}
	ma->before_s = seconds;
	if (plan_from(ma, topo, ma->before, &ma->adv_before) < 0)
		return -1;
	/* apply: the items to move or interleave, one migration each */
	struct pms_migrate_opts mo = PMS_MIGRATE_OPTS_INIT;
	mo.topo = topo;
	mo.page_size = page_size();
	/* tracked allocations: only the advised sites' blocks move */
	if (ma->track_sites && pms_session_alloc_report(ses, ma->before, &ma->own_ar) == 0 &&
	    mem_advise_sites(ma, ses, ma->before, ma->own_ar) == 0 && sites_apply(ma, sys, &mo)) {
		ma->phase = 1;
		return 0;
	}
	if (pms_advice_apply(sys, pid, ma->plan, &mo, &ma->rows, &ma->nrows) < 0) {
		fprintf(stderr, "pmuscope: mem: %s\n", pms_error_last());
		return -1;
	}
	ma->phase = 1;
	return 0;
}

int mem_advise_finish(struct mem_advise *ma, const struct pms_topo *topo,
		      const struct pms_memreport *rep)
{
	if (!ma->advise)
		return 0;
	if (ma->apply && ma->phase == 0) {
		snprintf(ma->err, sizeof(ma->err),
			 "nothing applied: the target ended before --duration ran out");
	}
	if (ma->phase == 1) {
		if (new_advisor(topo, rep, &ma->adv_after) < 0 ||
		    pms_advisor_add_report(ma->adv_after, rep) < 0)
			return -1;
		return 0;
	}
	return plan_from(ma, topo, rep, &ma->adv_before);
}

void mem_advise_release(struct mem_advise *ma)
{
	pms_memreport_free(ma->before);
	pms_advisor_free(ma->adv_before);
	pms_advisor_free(ma->adv_after);
	pms_advice_free(ma->plan);
	free(ma->rows);
	pms_site_plan_free(ma->sites);
	pms_alloc_report_free(ma->own_ar);
	free(ma->site_res);
	free(ma->site_rc);
	memset(ma, 0, sizeof(*ma));
}

/* ---- text ------------------------------------------------------------------ */

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);
	return n ? n : "?";
}

static void nodes_list(char *buf, size_t len, const int *nodes, size_t n)
{
	size_t at = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? "," : "", nodes[i]);
}

static void cmd_text(char *buf, size_t len, char **cmd)
{
	size_t at = 0;
	if (!cmd || !*cmd) {
		snprintf(buf, len, "COMMAND");
		return;
	}
	buf[0] = 0;
	for (char **a = cmd; *a && at < len; a++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", a == cmd ? "" : " ", *a);
}

/* the runnable lines of an item: numactl for a new run, pmuscope migrate
 * for the live process (when there is something to migrate) */
static void item_commands(const struct pms_advice_item *it, pid_t pid, char **cmd, char *numactl,
			  size_t nlen, char *migrate, size_t mlen)
{
	char c[512], nl[128], ps[16];
	cmd_text(c, sizeof(c), cmd);
	if (pid > 0)
		snprintf(ps, sizeof(ps), "%d", (int)pid);
	else
		snprintf(ps, sizeof(ps), "PID");
	numactl[0] = migrate[0] = 0;
	switch (it->action) {
	case PMS_ADVICE_MOVE:
		snprintf(numactl, nlen, "numactl --preferred=%d -- %.300s", it->target, c);
		snprintf(migrate, mlen, "pmuscope migrate -p %s --range 0x%" PRIx64 "-0x%" PRIx64
			 " --to %d", ps, it->start, it->end, it->target);
		break;
	case PMS_ADVICE_INTERLEAVE:
		nodes_list(nl, sizeof(nl), it->nodes, it->nnodes);
		snprintf(numactl, nlen, "numactl --interleave=%s -- %.300s", nl, c);
		snprintf(migrate, mlen, "pmuscope migrate -p %s --range 0x%" PRIx64 "-0x%" PRIx64
			 " --to %s", ps, it->start, it->end, nl);
		break;
	case PMS_ADVICE_MOVE_THREADS:
		snprintf(numactl, nlen, "numactl --cpunodebind=%d -- %.300s", it->target, c);
		break;
	case PMS_ADVICE_LEAVE:
		break;
	}
}

static void node_shares(char *buf, size_t len, const struct pms_advice_node *v, size_t n,
			bool pages, bool latency)
{
	size_t at = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n && at < len; i++) {
		at += (size_t)snprintf(buf + at, len - at, "%snode %d %.1f %%", i ? ", " : "",
				       v[i].node, 100 * v[i].share);
		if (pages && at < len)
			at += (size_t)snprintf(buf + at, len - at, " (%" PRIu64 " pages sampled)",
					       v[i].pages);
		if (latency && at < len) {
			if (v[i].latency_n)
				at += (size_t)snprintf(buf + at, len - at, " (latency %.0f cycles, distance %.1f)",
						       v[i].latency_mean, v[i].cost);
			else
				at += (size_t)snprintf(buf + at, len - at, " (distance %.1f)", v[i].cost);
		}
	}
}

static void plan_text(const struct pms_advice *p, pid_t pid, char **cmd)
{
	char hs[32], buf[1024], nl[512], ml[512];
	printf("\nPlacement advice (%" PRIu64 " resolved samples with a CPU node; %s; %s):\n",
	       p->samples,
	       p->distances_assumed ? "distances assumed 10 local / 20 remote"
				    : "costs from the node distance matrix",
	       p->capacity_checked ? "capacity checked against node free memory"
				   : "node free memory unknown: capacity not checked");
	if (!p->samples)
		printf("  no sample has both a memory node and a CPU node: nothing to advise on (a "
		       "recorded file needs physical addresses: pmuscope mem --phys -o, perf mem "
		       "record --phys-data)\n");
	else if (!p->nitems)
		printf("  no hot data object or page range (each needs >= 2 %% of the samples)\n");
	for (size_t i = 0; i < p->nitems; i++) {
		const struct pms_advice_item *it = &p->items[i];
		printf("  #%zu %s [%s] 0x%" PRIx64 "-0x%" PRIx64 " (%s), %" PRIu64 " samples\n", i + 1,
		       it->name, it->kind, it->start, it->end,
		       cli_human_size(it->end - it->start, hs, sizeof(hs)), it->samples);
		node_shares(buf, sizeof(buf), it->mems, it->nmems, true, false);
		printf("     held on:       %s\n", buf);
		node_shares(buf, sizeof(buf), it->cpus, it->ncpus, false, true);
		printf("     accessed from: %s\n", buf);
		printf("     remote share %.1f %% (95 %% interval %.1f-%.1f %%), stores %.0f %%, %s\n",
		       100 * it->remote_share, 100 * it->remote_lo, 100 * it->remote_hi,
		       100 * it->store_share, it->sure ? "sure" : "tentative");
		switch (it->action) {
		case PMS_ADVICE_MOVE:
			printf("     advice: MOVE to node %d: mean distance %.1f -> %.1f, remote share "
			       "-> %.0f %%; moves ~%s (%" PRIu64 " pages)\n",
			       it->target, it->cost_now, it->cost_after, 100 * it->predicted_remote,
			       cli_human_size(it->move_bytes, hs, sizeof(hs)), it->move_pages);
			break;
		case PMS_ADVICE_INTERLEAVE:
			nodes_list(nl, sizeof(nl), it->nodes, it->nnodes);
			printf("     advice: INTERLEAVE across nodes %s: mean distance %.1f -> %.1f, "
			       "remote share -> %.0f %%; moves ~%s (%" PRIu64 " pages)\n",
			       nl, it->cost_now, it->cost_after, 100 * it->predicted_remote,
			       cli_human_size(it->move_bytes, hs, sizeof(hs)), it->move_pages);
			break;
		case PMS_ADVICE_MOVE_THREADS:
			printf("     advice: MOVE THE THREADS to node %d: remote share -> %.0f %%; "
			       "moves no memory\n",
			       it->target, 100 * it->predicted_remote);
			break;
		case PMS_ADVICE_LEAVE:
			printf("     advice: LEAVE it\n");
			break;
		}
		printf("     why: %s\n", it->reason);
		item_commands(it, pid, cmd, nl, sizeof(nl), ml, sizeof(ml));
		if (nl[0])
			printf("     new run:  %s\n", nl);
		if (ml[0])
			printf("     live:     %s\n", ml);
	}
}

void advise_migrate_text(FILE *f, const struct pms_migrate_result *r, const int *nodes,
			 size_t nnodes)
{
	char nl[128];
	nodes_list(nl, sizeof(nl), nodes, nnodes);
	fprintf(f, "%" PRIu64 " pages -> node%s %s: moved %" PRIu64 ", already there %" PRIu64
		   ", not present %" PRIu64 ", failed %" PRIu64,
		r->pages, nnodes > 1 ? "s" : "", nl, r->moved, r->already, r->not_present, r->failed);
	for (size_t i = 0; i < r->nerrs; i++)
		fprintf(f, "%s%s %" PRIu64, i ? ", " : " (", errname(r->errs[i].err), r->errs[i].pages);
	if (r->nerrs)
		fprintf(f, ")");
	fprintf(f, "; on target after: %" PRIu64 " (%.1f %%), %" PRIu64 " move_pages calls\n",
		r->after_on_target,
		r->pages ? 100.0 * (double)r->after_on_target / (double)r->pages : 0, r->calls);
}

/* remote share and accesses per memory node over a whole report's matrix */
static void matrix_totals(const struct pms_memreport *r, uint64_t *all, uint64_t *remote)
{
	*all = *remote = 0;
	for (size_t i = 0; i < r->nnodes; i++)
		for (size_t k = 0; k < r->nnodes; k++) {
			uint64_t v = r->matrix[i * r->nnodes + k];
			*all += v;
			if (i != k)
				*remote += v;
		}
}

static void matrix_columns(char *buf, size_t len, const struct pms_memreport *r)
{
	size_t at = 0;
	buf[0] = 0;
	for (size_t k = 0; k < r->nnodes && at < len; k++) {
		uint64_t col = 0;
		for (size_t i = 0; i < r->nnodes; i++)
			col += r->matrix[i * r->nnodes + k];
		at += (size_t)snprintf(buf + at, len - at, "%sn%d:%" PRIu64, k ? " " : "",
				       r->node_ids[k], col);
	}
}

static void range_line(const char *label, const struct pms_advice_range *x)
{
	char buf[512], lat[32];
	size_t at = 0;
	buf[0] = 0;
	for (size_t i = 0; i < x->nmems && at < sizeof(buf); i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%sn%d:%" PRIu64, i ? " " : "",
				       x->mems[i].node, x->mems[i].accesses);
	if (x->latency_n)
		snprintf(lat, sizeof(lat), "%.0f cyc", x->latency_mean);
	else
		snprintf(lat, sizeof(lat), "-");
	printf("     %-7s %8" PRIu64 "  %6.1f %% [%5.1f-%5.1f]  %9s  %s\n", label, x->samples,
	       100 * x->remote_share, 100 * x->remote_lo, 100 * x->remote_hi, lat, buf);
}

void mem_advise_text(const struct mem_advise *ma, const struct pms_memreport *after, pid_t pid,
		     char **cmd)
{
	if (!ma->advise)
		return;
	if (ma->err[0])
		printf("\nadvise: %s\n", ma->err);
	if (ma->sites)
		sites_text(ma, after ? after : ma->before, cmd);
	if (!ma->plan)
		return;
	plan_text(ma->plan, pid, cmd);
	if (!ma->apply)
		return;
	printf("\nApplied to pid %d (move_pages, after %.1f s of measuring):\n", (int)pid,
	       ma->before_s);
	if (ma->sites_applied)
		printf("  the advised allocation sites' blocks only (above); no object range\n");
	else if (!ma->nrows)
		printf("  nothing to move: no item is advised to move or interleave\n");
	for (size_t i = 0; i < ma->nrows; i++) {
		const struct pms_advice_applied *row = &ma->rows[i];
		const struct pms_advice_item *it = &ma->plan->items[row->item];
		printf("  #%zu %s: ", row->item + 1, it->name);
		if (it->action == PMS_ADVICE_MOVE)
			advise_migrate_text(stdout, &row->res, &it->target, 1);
		else
			advise_migrate_text(stdout, &row->res, it->nodes, it->nnodes);
		if (row->rc < 0)
			printf("     stopped: %s\n", row->err);
	}
	if (!ma->adv_after || !after)
		return;
	printf("\nBefore / after (%.1f s each; remote share with its 95 %% interval; accesses per "
	       "memory node):\n",
	       ma->before_s);
	printf("     %-7s %8s  %-22s  %9s  %s\n", "", "samples", "remote share", "latency",
	       "per node");
	for (size_t i = 0; i < ma->plan->nitems; i++) {
		const struct pms_advice_item *it = &ma->plan->items[i];
		struct pms_advice_range b, a;
		printf("  #%zu %s (%s)\n", i + 1, it->name, pms_advice_action_name(it->action));
		if (pms_advisor_range(ma->adv_before, it->pid, it->start, it->end, &b) == 0) {
			range_line("before", &b);
			pms_advice_range_release(&b);
		}
		if (pms_advisor_range(ma->adv_after, it->pid, it->start, it->end, &a) == 0) {
			range_line("after", &a);
			pms_advice_range_release(&a);
		}
	}
	uint64_t ba, br, aa, ar;
	char cb[512], ca[512];
	matrix_totals(ma->before, &ba, &br);
	matrix_totals(after, &aa, &ar);
	matrix_columns(cb, sizeof(cb), ma->before);
	matrix_columns(ca, sizeof(ca), after);
	printf("  all resolved samples\n");
	printf("     %-7s %8" PRIu64 "  %6.1f %%                  %9s  %s\n", "before", ba,
	       ba ? 100.0 * (double)br / (double)ba : 0, "", cb);
	printf("     %-7s %8" PRIu64 "  %6.1f %%                  %9s  %s\n", "after", aa,
	       aa ? 100.0 * (double)ar / (double)aa : 0, "", ca);
	if (ma->before->latency.n || after->latency.n)
		printf("     latency mean: before %.0f, after %.0f cycles (median %" PRIu64
		       " -> %" PRIu64 ")\n",
		       ma->before->latency.mean, after->latency.mean, ma->before->latency.median,
		       after->latency.median);
}

/* ---- JSON ------------------------------------------------------------------ */

/* An item's or a site's action: its name, the target node, the nodes to
 * interleave across. */
static void json_action(struct json *j, enum pms_advice_action a, int target, const int *nodes,
			size_t n)
{
	cli_json_str(j, "action", pms_advice_action_name(a));
	if (target >= 0)
		cli_json_int(j, "target", target);
	else
		cli_json_null(j, "target");
	cli_json_begin_array(j, "interleave");
	for (size_t k = 0; k < n; k++)
		cli_json_int(j, NULL, nodes[k]);
	cli_json_end_array(j);
}

static void json_nodes(struct json *j, const char *key, const struct pms_advice_node *v, size_t n,
		       bool mem)
{
	cli_json_begin_array(j, key);
	for (size_t i = 0; i < n; i++) {
		cli_json_begin_object(j, NULL);
		cli_json_int(j, "node", v[i].node);
		cli_json_uint(j, "accesses", v[i].accesses);
		cli_json_double(j, "share", v[i].share);
		if (mem)
			cli_json_uint(j, "pages_sampled", v[i].pages);
		else
			cli_json_double(j, "distance", v[i].cost);
		cli_json_uint(j, "latency_samples", v[i].latency_n);
		if (v[i].latency_n)
			cli_json_double(j, "latency_mean", v[i].latency_mean);
		else
			cli_json_null(j, "latency_mean");
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
}

static void json_hex(struct json *j, const char *key, uint64_t v)
{
	char b[32];
	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	cli_json_str(j, key, b);
}

void advise_migrate_json(struct json *j, const char *key, const struct pms_migrate_result *r)
{
	cli_json_begin_object(j, key);
	cli_json_uint(j, "pages", r->pages);
	cli_json_uint(j, "moved", r->moved);
	cli_json_uint(j, "already", r->already);
	cli_json_uint(j, "not_present", r->not_present);
	cli_json_uint(j, "failed", r->failed);
	cli_json_begin_object(j, "failed_by_errno");
	for (size_t i = 0; i < r->nerrs; i++)
		cli_json_uint(j, errname(r->errs[i].err), r->errs[i].pages);
	cli_json_end_object(j);
	cli_json_uint(j, "on_target_after", r->after_on_target);
	cli_json_uint(j, "move_pages_calls", r->calls);
	if (r->call_errno)
		cli_json_str(j, "call_error", errname(r->call_errno));
	else
		cli_json_null(j, "call_error");
	cli_json_end_object(j);
}

static void json_range(struct json *j, const char *key, const struct pms_advisor *a,
		       const struct pms_advice_item *it)
{
	struct pms_advice_range x;
	if (!a || pms_advisor_range(a, it->pid, it->start, it->end, &x) < 0) {
		cli_json_null(j, key);
		return;
	}
	cli_json_begin_object(j, key);
	cli_json_uint(j, "samples", x.samples);
	cli_json_uint(j, "remote", x.remote);
	cli_json_double(j, "remote_share", x.remote_share);
	cli_json_double(j, "remote_lo", x.remote_lo);
	cli_json_double(j, "remote_hi", x.remote_hi);
	if (x.latency_n)
		cli_json_double(j, "latency_mean", x.latency_mean);
	else
		cli_json_null(j, "latency_mean");
	json_nodes(j, "mem_nodes", x.mems, x.nmems, true);
	cli_json_end_object(j);
	pms_advice_range_release(&x);
}

static void json_totals(struct json *j, const char *key, const struct pms_memreport *r)
{
	uint64_t all, remote;
	matrix_totals(r, &all, &remote);
	cli_json_begin_object(j, key);
	cli_json_uint(j, "samples", all);
	cli_json_double(j, "remote_share", all ? (double)remote / (double)all : 0);
	cli_json_begin_object(j, "accesses_per_node");
	for (size_t k = 0; k < r->nnodes; k++) {
		uint64_t col = 0;
		char name[16];
		for (size_t i = 0; i < r->nnodes; i++)
			col += r->matrix[i * r->nnodes + k];
		snprintf(name, sizeof(name), "%d", r->node_ids[k]);
		cli_json_uint(j, name, col);
	}
	cli_json_end_object(j);
	if (r->latency.n)
		cli_json_double(j, "latency_mean", r->latency.mean);
	else
		cli_json_null(j, "latency_mean");
	cli_json_end_object(j);
}

void mem_advise_json(struct json *j, const struct mem_advise *ma,
		     const struct pms_memreport *after, pid_t pid, char **cmd)
{
	if (!ma || !ma->advise)
		return;
	if (!ma->plan) {
		cli_json_null(j, "advice");
		return;
	}
	const struct pms_advice *p = ma->plan;
	cli_json_begin_object(j, "advice");
	cli_json_uint(j, "samples", p->samples);
	cli_json_bool(j, "distances_assumed", p->distances_assumed);
	cli_json_bool(j, "capacity_checked", p->capacity_checked);
	cli_json_uint(j, "page_size", p->page_size);
	if (ma->err[0])
		cli_json_str(j, "note", ma->err);
	if (ma->sites)
		sites_json(j, ma, after, cmd);
	else
		cli_json_null(j, "sites"); /* no allocation tracking (a file, -p, -a) */
	cli_json_bool(j, "sites_applied", ma->sites_applied);
	cli_json_begin_array(j, "items");
	for (size_t i = 0; i < p->nitems; i++) {
		const struct pms_advice_item *it = &p->items[i];
		char nl[512], ml[512];
		cli_json_begin_object(j, NULL);
		cli_json_str(j, "name", it->name);
		cli_json_str(j, "kind", it->kind);
		json_hex(j, "start", it->start);
		json_hex(j, "end", it->end);
		cli_json_uint(j, "bytes", it->end - it->start);
		cli_json_uint(j, "samples", it->samples);
		cli_json_double(j, "store_share", it->store_share);
		cli_json_double(j, "remote_share", it->remote_share);
		cli_json_double(j, "remote_lo", it->remote_lo);
		cli_json_double(j, "remote_hi", it->remote_hi);
		cli_json_bool(j, "sure", it->sure);
		cli_json_bool(j, "latency_measured", it->latency_measured);
		json_nodes(j, "mem_nodes", it->mems, it->nmems, true);
		json_nodes(j, "cpu_nodes", it->cpus, it->ncpus, false);
		json_action(j, it->action, it->target, it->nodes, it->nnodes);
		cli_json_double(j, "distance_now", it->cost_now);
		cli_json_double(j, "distance_after", it->cost_after);
		cli_json_double(j, "predicted_remote_share", it->predicted_remote);
		cli_json_uint(j, "move_pages", it->move_pages);
		cli_json_uint(j, "move_bytes", it->move_bytes);
		cli_json_str(j, "reason", it->reason);
		item_commands(it, pid, cmd, nl, sizeof(nl), ml, sizeof(ml));
		cli_json_str(j, "numactl", nl[0] ? nl : NULL);
		cli_json_str(j, "migrate", ml[0] ? ml : NULL);
		if (ma->apply) {
			const struct pms_advice_applied *row = NULL;
			for (size_t r = 0; r < ma->nrows; r++)
				if (ma->rows[r].item == i)
					row = &ma->rows[r];
			if (row) {
				advise_migrate_json(j, "applied", &row->res);
				cli_json_str(j, "apply_error", row->rc < 0 ? row->err : NULL);
			} else {
				cli_json_null(j, "applied");
				cli_json_null(j, "apply_error");
			}
			json_range(j, "before", ma->adv_before, it);
			json_range(j, "after", ma->adv_after, it);
		}
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
	if (ma->apply && ma->before && after && ma->adv_after) {
		cli_json_double(j, "measure_s", ma->before_s);
		json_totals(j, "before", ma->before);
		json_totals(j, "after", after);
	}
	cli_json_end_object(j);
}
