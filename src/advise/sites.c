/* Placement advice per allocation site (issue 28): the samples a report
 * attributes to each site, the nodes of the threads that touched them and
 * of the pages that served them, a move / interleave / leave decision with
 * the same thresholds as the object advisor's (docs/advise.md), and the
 * migration of only the site's sampled blocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/advise.h"
#include "util/error.h"
#include "util/opts.h"

struct acc {
	struct pms_advice_node *v;
	size_t n;
};

static int acc_add(struct acc *a, int node, bool remote, uint64_t weight)
{
	size_t i = 0;
	while (i < a->n && a->v[i].node != node)
		i++;
	if (i == a->n) {
		struct pms_advice_node *nv = realloc(a->v, (a->n + 1) * sizeof(*nv));
		if (!nv)
			return pms_err(PMS_ENOMEM, "site advice: out of memory");
		a->v = nv;
		memset(&nv[a->n], 0, sizeof(*nv));
		nv[a->n++].node = node;
	}
	a->v[i].accesses++;
	a->v[i].pages += remote; /* the remote accesses, while counting */
	if (weight) {
		a->v[i].latency_mean += (double)weight;
		a->v[i].latency_n++;
	}
	return 0;
}

static int by_accesses(const void *x, const void *y)
{
	const struct pms_advice_node *a = x, *b = y;
	if (a->accesses != b->accesses)
		return a->accesses > b->accesses ? -1 : 1;
	return a->node - b->node;
}

static void acc_finish(struct acc *a, uint64_t total)
{
	for (size_t i = 0; i < a->n; i++) {
		a->v[i].share = total ? (double)a->v[i].accesses / (double)total : 0;
		if (a->v[i].latency_n)
			a->v[i].latency_mean /= (double)a->v[i].latency_n;
	}
	if (a->n) /* v is NULL while empty (UBSan: qsort on NULL) */
		qsort(a->v, a->n, sizeof(*a->v), by_accesses);
}

static int block_cmp(const void *x, const void *y)
{
	const struct pms_site_block *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

static int block_add(struct pms_site_advice *it, uint32_t pid, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < it->nblocks; i++)
		if (it->blocks[i].pid == pid && it->blocks[i].start == start)
			return 0;
	struct pms_site_block *nb = realloc(it->blocks, (it->nblocks + 1) * sizeof(*nb));
	if (!nb)
		return pms_err(PMS_ENOMEM, "site advice: out of memory");
	it->blocks = nb;
	nb[it->nblocks++] = (struct pms_site_block){ pid, start, end };
	it->bytes += end - start;
	return 0;
}

/* The decision: too few samples or local enough -> leave; the threads of one
 * node make (nearly) all the accesses -> move there; several nodes each
 * with shared_share or more -> interleave across them. */
static int decide(struct pms_site_advice *it, const struct pms_advise_opts *o, uint64_t placed)
{
	uint64_t min = o->min_samples ? o->min_samples : 30;
	double hot = o->hot_share > 0 ? o->hot_share : 0.02;
	double shared = o->shared_share > 0 ? o->shared_share : 0.25;
	double local = o->local_enough > 0 ? o->local_enough : 0.10;
	it->action = PMS_ADVICE_LEAVE;
	it->target = -1;
	if (it->resolved < min) {
		snprintf(it->reason, sizeof(it->reason),
			 "%llu samples with both nodes known (fewer than %llu): too few to judge",
			 (unsigned long long)it->resolved, (unsigned long long)min);
		return 0;
	}
	if (placed && (double)it->samples < hot * (double)placed) {
		snprintf(it->reason, sizeof(it->reason), "cold: %.1f %% of the placed samples (< %.0f %%)",
			 100 * it->share, 100 * hot);
		return 0;
	}
	if (it->remote_hi < local || !it->remote) {
		snprintf(it->reason, sizeof(it->reason),
			 "already local: %llu of %llu accesses remote (share at most %.1f %%, 95 %% "
			 "interval)", (unsigned long long)it->remote, (unsigned long long)it->resolved,
			 100 * it->remote_hi);
		return 0;
	}
	size_t nsh = 0;
	for (size_t i = 0; i < it->ncpus; i++)
		nsh += it->cpus[i].share >= shared;
	if (nsh <= 1) {
		if (it->nmems == 1 && it->mems[0].node == it->cpus[0].node) {
			snprintf(it->reason, sizeof(it->reason),
				 "already on node %d, where %.0f %% of its accesses come from",
				 it->cpus[0].node, 100 * it->cpus[0].share);
			return 0;
		}
		it->action = PMS_ADVICE_MOVE;
		it->target = it->cpus[0].node;
		snprintf(it->reason, sizeof(it->reason),
			 "%.0f %% of its accesses come from node %d threads and %.0f %% are remote: "
			 "allocate it on node %d",
			 100 * it->cpus[0].share, it->target, 100 * it->remote_share, it->target);
		return 0;
	}
	it->nodes = malloc(nsh * sizeof(*it->nodes));
	if (!it->nodes)
		return pms_err(PMS_ENOMEM, "site advice: out of memory");
	for (size_t i = 0; i < it->ncpus; i++)
		if (it->cpus[i].share >= shared)
			it->nodes[it->nnodes++] = it->cpus[i].node;
	it->action = PMS_ADVICE_INTERLEAVE;
	snprintf(it->reason, sizeof(it->reason),
		 "threads of %zu nodes each make %.0f %% or more of its accesses (%.0f %% remote): "
		 "interleave it across them",
		 it->nnodes, 100 * shared, 100 * it->remote_share);
	return 0;
}

static int by_samples(const void *x, const void *y)
{
	const struct pms_site_advice *a = x, *b = y;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return a->site < b->site ? -1 : a->site > b->site;
}

static void item_release(struct pms_site_advice *it)
{
	free(it->cpus);
	free(it->mems);
	free(it->nodes);
	free(it->blocks);
}

/* One site's counts over the report's samples. */
static int fill_site(struct pms_site_advice *it, const struct pms_memreport *r,
		     const long *sample_site, size_t n, pms_site_lookup lookup, void *ud)
{
	struct acc cpus = { 0 }, mems = { 0 };
	struct acc from = { 0 };
	int rc = 0;
	for (size_t i = 0; i < n && rc >= 0; i++) {
		if (sample_site[i] < 0 || (size_t)sample_site[i] != it->site)
			continue;
		const struct pms_memreport_sample *x = &r->all[i];
		uint64_t w = (x->s.valid & PMS_MS_WEIGHT) ? x->s.weight : 0;
		it->samples++;
		uint64_t bs, be;
		if (lookup && lookup(ud, x->s.pid, x->s.addr, x->s.time, &bs, &be))
			rc = block_add(it, x->s.pid, bs, be);
		if (x->mem_node < 0 || x->cpu_node < 0 || rc < 0)
			continue;
		bool remote = x->mem_node != x->cpu_node;
		it->resolved++;
		it->remote += remote;
		if ((rc = acc_add(&cpus, x->cpu_node, remote, w)) < 0 ||
		    (rc = acc_add(&mems, x->mem_node, remote, w)) < 0)
			break;
		if (remote)
			rc = acc_add(&from, x->cpu_node, true, 0);
	}
	acc_finish(&cpus, it->resolved);
	acc_finish(&mems, it->resolved);
	acc_finish(&from, it->remote);
	for (size_t i = 0; i < cpus.n; i++)
		cpus.v[i].pages = 0;
	for (size_t i = 0; i < mems.n; i++)
		mems.v[i].pages = 0;
	it->cpus = cpus.v;
	it->ncpus = cpus.n;
	it->mems = mems.v;
	it->nmems = mems.n;
	it->from_node = from.n ? from.v[0].node : -1;
	it->from_share = from.n ? from.v[0].share : 0;
	free(from.v);
	it->remote_share = it->resolved ? (double)it->remote / (double)it->resolved : 0;
	pms_wilson(it->remote, it->resolved, &it->remote_lo, &it->remote_hi);
	if (it->nblocks > 1)
		qsort(it->blocks, it->nblocks, sizeof(*it->blocks), block_cmp);
	return rc;
}

int pms_site_plan_new(const struct pms_memreport *r, const long *sample_site, size_t nsample_site,
		      pms_site_lookup lookup, void *ud, const struct pms_advise_opts *opts,
		      struct pms_site_plan **out)
{
	struct pms_advise_opts o;
	int rc;
	if (!r || !out || (nsample_site && !sample_site))
		return pms_err(PMS_EINVAL, "pms_site_plan_new: NULL argument");
	*out = NULL;
	if ((rc = PMS_OPTS_TAKE("pms_site_plan_new", PMS_ADVISE_OPTS, opts, &o)) < 0)
		return rc;
	size_t n = nsample_site < r->nall ? nsample_site : r->nall, nsites = 0;
	struct pms_site_plan *p = calloc(1, sizeof(*p));
	if (!p)
		return pms_err(PMS_ENOMEM, "pms_site_plan_new: out of memory");
	for (size_t i = 0; i < n; i++)
		if (sample_site[i] >= 0) {
			p->placed++;
			if ((size_t)sample_site[i] + 1 > nsites)
				nsites = (size_t)sample_site[i] + 1;
		}
	p->items = calloc(nsites ? nsites : 1, sizeof(*p->items));
	if (!p->items) {
		free(p);
		return pms_err(PMS_ENOMEM, "pms_site_plan_new: out of memory");
	}
	/* one pass per site: a report keeps a few thousand samples and lists
	 * a few dozen sites */
	for (size_t s = 0; s < nsites && rc >= 0; s++) {
		struct pms_site_advice *it = &p->items[p->nitems++];
		it->site = s;
		rc = fill_site(it, r, sample_site, n, lookup, ud);
		if (rc >= 0 && !it->samples) {
			item_release(it);
			memset(it, 0, sizeof(*it));
			p->nitems--;
			continue;
		}
		it->share = p->placed ? (double)it->samples / (double)p->placed : 0;
		if (rc >= 0)
			rc = decide(it, &o, p->placed);
	}
	if (rc < 0) {
		pms_site_plan_free(p);
		return rc;
	}
	if (p->nitems)
		qsort(p->items, p->nitems, sizeof(*p->items), by_samples);
	*out = p;
	return 0;
}

void pms_site_plan_free(struct pms_site_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nitems; i++)
		item_release(&p->items[i]);
	free(p->items);
	free(p);
}

static void add_result(struct pms_migrate_result *t, const struct pms_migrate_result *r)
{
	t->pages += r->pages;
	t->already += r->already;
	t->moved += r->moved;
	t->not_present += r->not_present;
	t->failed += r->failed;
	t->calls += r->calls;
	t->after_on_target += r->after_on_target;
	t->retried += r->retried;
	if (!t->call_errno)
		t->call_errno = r->call_errno;
	for (size_t i = 0; i < r->nerrs; i++) {
		size_t k = 0;
		while (k < t->nerrs && t->errs[k].err != r->errs[i].err)
			k++;
		if (k == t->nerrs && t->nerrs < PMS_MIGRATE_MAX_ERRNOS)
			t->errs[t->nerrs++].err = r->errs[i].err;
		if (k < t->nerrs)
			t->errs[k].pages += r->errs[i].pages;
	}
}

int pms_site_apply(struct pms_sys *sys, const struct pms_site_advice *it,
		   const struct pms_migrate_opts *opts, struct pms_migrate_result *res)
{
	if (!sys || !it || !res)
		return pms_err(PMS_EINVAL, "pms_site_apply: NULL argument");
	memset(res, 0, sizeof(*res));
	const int *nodes = it->action == PMS_ADVICE_MOVE ? &it->target : it->nodes;
	size_t nn = it->action == PMS_ADVICE_MOVE ? 1
		    : it->action == PMS_ADVICE_INTERLEAVE ? it->nnodes : 0;
	if (!nn)
		return 0;
	uint64_t ps = opts && opts->page_size ? opts->page_size : 4096;
	int first_rc = 0;
	/* the blocks are sorted by (pid, start): whole pages, those of
	 * neighbouring blocks merged, each page asked once */
	for (size_t i = 0; i < it->nblocks;) {
		uint32_t pid = it->blocks[i].pid;
		uint64_t lo = it->blocks[i].start & ~(ps - 1);
		uint64_t hi = (it->blocks[i].end + ps - 1) & ~(ps - 1);
		size_t j = i + 1;
		for (; j < it->nblocks && it->blocks[j].pid == pid &&
		       (it->blocks[j].start & ~(ps - 1)) <= hi; j++) {
			uint64_t e = (it->blocks[j].end + ps - 1) & ~(ps - 1);
			hi = e > hi ? e : hi;
		}
		struct pms_migrate_result r;
		int rc = pms_migrate_range(sys, (pid_t)pid, lo, hi, nodes, nn, opts, &r);
		add_result(res, &r);
		if (rc < 0 && !first_rc)
			first_rc = rc;
		i = j;
	}
	return first_rc;
}

void pms_site_measure(const struct pms_site_advice *it, const struct pms_memreport *r,
		      struct pms_advice_range *out)
{
	memset(out, 0, sizeof(*out));
	if (!it || !r)
		return;
	struct acc mems = { 0 };
	uint64_t lat = 0;
	for (size_t i = 0; i < r->nall; i++) {
		const struct pms_memreport_sample *x = &r->all[i];
		if (!(x->s.valid & PMS_MS_ADDR) || x->mem_node < 0 || x->cpu_node < 0)
			continue;
		bool in = false;
		for (size_t b = 0; b < it->nblocks && !in; b++)
			in = it->blocks[b].pid == x->s.pid && x->s.addr >= it->blocks[b].start &&
			     x->s.addr < it->blocks[b].end;
		if (!in)
			continue;
		out->samples++;
		out->remote += x->mem_node != x->cpu_node;
		if (x->s.valid & PMS_MS_WEIGHT) {
			lat += x->s.weight;
			out->latency_n++;
		}
		if (acc_add(&mems, x->mem_node, false, 0) < 0)
			break; /* out of memory: the per-node list stays short */
	}
	acc_finish(&mems, out->samples);
	out->mems = mems.v;
	out->nmems = mems.n;
	out->remote_share = out->samples ? (double)out->remote / (double)out->samples : 0;
	out->latency_mean = out->latency_n ? (double)lat / (double)out->latency_n : 0;
	pms_wilson(out->remote, out->samples, &out->remote_lo, &out->remote_hi);
}
