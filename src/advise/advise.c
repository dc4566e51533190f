/* The NUMA placement advisor: samples grouped by cache line, CPU node and
 * memory node; items from the report's data objects and hot page ranges;
 * one decision per item (rules and sources: docs/advise.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/advise.h"
#include "util/error.h"
#include "util/opts.h"
#include "topo/topo_int.h"

#define LINE_SHIFT 6 /* samples are kept per 64-byte line */

struct entry {
	uint64_t line;  /* addr >> LINE_SHIFT; 0 with used == false: empty */
	uint32_t pid;
	int cpu, mem;
	bool used;
	uint64_t n, stores, lat_sum, lat_n;
};

struct pms_advisor {
	const struct pms_topo *topo;
	struct pms_advise_opts o;
	struct entry *tab;
	size_t cap, len;
	uint64_t total; /* samples added with both nodes */
};

const char *pms_advice_action_name(enum pms_advice_action a)
{
	switch (a) {
	case PMS_ADVICE_LEAVE: return "leave";
	case PMS_ADVICE_MOVE: return "move";
	case PMS_ADVICE_INTERLEAVE: return "interleave";
	case PMS_ADVICE_MOVE_THREADS: return "move-threads";
	}
	return "?";
}

void pms_wilson(uint64_t k, uint64_t n, double *lo, double *hi)
{
	/* Wilson (1927) score interval; Agresti & Coull (1998) for why it
	 * beats the normal approximation at small n and shares near 0 or 1. */
	if (n == 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	const double z = 1.96, z2 = z * z;
	double nn = (double)n, p = (double)k / nn;
	double den = 1 + z2 / nn;
	double mid = (p + z2 / (2 * nn)) / den;
	double half = z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / den;
	*lo = k == 0 || mid - half < 0 ? 0 : mid - half;
	*hi = k == n || mid + half > 1 ? 1 : mid + half;
}

PMS_OPTS_LAYOUT(PMS_ADVISE_OPTS, struct pms_advise_opts,
		PMS_OPTS_END(struct pms_advise_opts, stores_unknown));

int pms_advisor_new(const struct pms_topo *topo, const struct pms_advise_opts *opts,
		    struct pms_advisor **out)
{
	struct pms_advise_opts o;
	int rc;
	if (!out)
		return pms_err(PMS_EINVAL, "pms_advisor_new: out is NULL");
	if ((rc = PMS_OPTS_TAKE("pms_advisor_new", PMS_ADVISE_OPTS, opts, &o)) < 0)
		return rc;
	opts = &o;
	struct pms_advisor *a = calloc(1, sizeof(*a));
	if (!a)
		return pms_err(PMS_ENOMEM, "pms_advisor_new: out of memory");
	a->topo = topo;
	a->o = *opts;
	if (!a->o.min_samples)
		a->o.min_samples = 30;
	if (a->o.hot_share <= 0)
		a->o.hot_share = 0.02;
	if (a->o.min_gain <= 0)
		a->o.min_gain = 0.10;
	if (a->o.shared_share <= 0)
		a->o.shared_share = 0.25;
	if (a->o.read_mostly <= 0)
		a->o.read_mostly = 0.10;
	if (a->o.local_enough <= 0)
		a->o.local_enough = 0.10;
	if (!a->o.headroom)
		a->o.headroom = 64u << 20;
	if (!a->o.page_size)
		a->o.page_size = 4096;
	if (a->o.page_size & (a->o.page_size - 1) || a->o.page_size < 64) {
		free(a);
		return pms_err(PMS_EINVAL, "pms_advisor_new: page_size %zu is not a power of two >= 64",
			       opts->page_size);
	}
	if (!a->o.max_items)
		a->o.max_items = 16;
	*out = a;
	return 0;
}

void pms_advisor_free(struct pms_advisor *a)
{
	if (!a)
		return;
	free(a->tab);
	free(a);
}

static size_t slot_of(const struct pms_advisor *a, uint64_t line, uint32_t pid, int cpu, int mem)
{
	uint64_t h = line * 0x9e3779b97f4a7c15ull ^ ((uint64_t)pid << 32) ^
		     ((uint64_t)(unsigned)cpu * 0xff51afd7ed558ccdull) ^ ((uint64_t)(unsigned)mem << 17);
	h ^= h >> 29;
	size_t i = (size_t)h & (a->cap - 1);
	while (a->tab[i].used && !(a->tab[i].line == line && a->tab[i].pid == pid &&
				   a->tab[i].cpu == cpu && a->tab[i].mem == mem))
		i = (i + 1) & (a->cap - 1);
	return i;
}

static int grow(struct pms_advisor *a)
{
	size_t ncap = a->cap ? a->cap * 2 : 1024;
	struct entry *old = a->tab;
	size_t ocap = a->cap;
	struct entry *t = calloc(ncap, sizeof(*t));
	if (!t)
		return pms_err(PMS_ENOMEM, "advisor: out of memory for %zu entries", ncap);
	a->tab = t;
	a->cap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].used)
			a->tab[slot_of(a, old[i].line, old[i].pid, old[i].cpu, old[i].mem)] = old[i];
	free(old);
	return 0;
}

int pms_advisor_add(struct pms_advisor *a, uint32_t pid, uint64_t addr, int mem_node,
		    int cpu_node, uint64_t weight, bool store)
{
	if (!a)
		return pms_err(PMS_EINVAL, "pms_advisor_add: advisor is NULL");
	if (mem_node < 0 || cpu_node < 0 || !addr)
		return 0;
	if ((a->len + 1) * 2 > a->cap) {
		int rc = grow(a);
		if (rc < 0)
			return rc;
	}
	uint64_t line = addr >> LINE_SHIFT;
	struct entry *e = &a->tab[slot_of(a, line, pid, cpu_node, mem_node)];
	if (!e->used) {
		*e = (struct entry){ .line = line, .pid = pid, .cpu = cpu_node, .mem = mem_node,
				     .used = true };
		a->len++;
	}
	e->n++;
	if (store)
		e->stores++;
	if (weight) {
		e->lat_sum += weight;
		e->lat_n++;
	}
	a->total++;
	return 0;
}

/* PERF_MEM_OP_STORE of perf_mem_data_src.mem_op (include/uapi/linux/perf_event.h) */
#define MEM_OP_STORE 0x04

int pms_advisor_add_report(struct pms_advisor *a, const struct pms_memreport *r)
{
	if (!a || !r)
		return pms_err(PMS_EINVAL, "pms_advisor_add_report: NULL argument");
	for (size_t i = 0; i < r->nall; i++) {
		const struct pms_memreport_sample *s = &r->all[i];
		if (!(s->s.valid & PMS_MS_ADDR))
			continue;
		bool store = (s->s.valid & PMS_MS_DATA_SRC) && (s->s.data_src & MEM_OP_STORE);
		uint64_t w = (s->s.valid & PMS_MS_WEIGHT) ? s->s.weight : 0;
		int rc = pms_advisor_add(a, s->s.pid, s->s.addr, s->mem_node, s->cpu_node, w, store);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- distances and nodes -------------------------------------------------- */

static int distance(const struct pms_topo *t, int from, int to, bool *assumed)
{
	if (t) {
		const struct pms_topo_node *a = pms_topo_node(t, from);
		if (a && a->ndistances == t->nnodes)
			for (size_t j = 0; j < t->nnodes; j++)
				if (t->nodes[j].id == to && a->distances[j] > 0)
					return a->distances[j];
	}
	/* ACPI SLIT: 10 = local; 20 is the default remote value Linux gives
	 * when firmware has no table (include/linux/topology.h REMOTE_DISTANCE) */
	if (assumed)
		*assumed = true;
	return from == to ? 10 : 20;
}

struct nodeacc {
	struct pms_advice_node *v;
	size_t n;
};

static struct pms_advice_node *nodeacc_get(struct nodeacc *na, int node)
{
	for (size_t i = 0; i < na->n; i++)
		if (na->v[i].node == node)
			return &na->v[i];
	struct pms_advice_node *nv = realloc(na->v, (na->n + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	na->v = nv;
	na->v[na->n] = (struct pms_advice_node){ .node = node };
	return &na->v[na->n++];
}

static int cmp_node_acc(const void *x, const void *y)
{
	const struct pms_advice_node *a = x, *b = y;
	if (a->accesses != b->accesses)
		return a->accesses > b->accesses ? -1 : 1;
	return a->node - b->node;
}

struct pagenode {
	uint64_t page;
	int mem;
};

static int cmp_pagenode(const void *x, const void *y)
{
	const struct pagenode *a = x, *b = y;
	if (a->page != b->page)
		return a->page < b->page ? -1 : 1;
	return a->mem - b->mem;
}

/* Everything an item needs from the entries of [start, end). */
struct stats {
	uint64_t samples, remote, stores, lat_sum, lat_n;
	double dist_sum; /* sum of distance(cpu, mem) over samples */
	struct nodeacc cpus, mems;
	uint64_t pages;
	struct pagenode *pn; /* distinct (page, node) pairs */
	size_t npn;
};

static void stats_release(struct stats *s)
{
	free(s->cpus.v);
	free(s->mems.v);
	free(s->pn);
	memset(s, 0, sizeof(*s));
}

static bool in_range(const struct entry *e, uint32_t pid, uint64_t start, uint64_t end)
{
	uint64_t addr = e->line << LINE_SHIFT;
	if (pid && e->pid && e->pid != pid)
		return false;
	return addr + (1u << LINE_SHIFT) > start && addr < end;
}

static int gather(const struct pms_advisor *a, uint32_t pid, uint64_t start, uint64_t end,
		  struct stats *s, bool *assumed)
{
	size_t cap = 0;
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < a->cap; i++) {
		const struct entry *e = &a->tab[i];
		if (!e->used || !in_range(e, pid, start, end))
			continue;
		s->samples += e->n;
		s->stores += e->stores;
		s->lat_sum += e->lat_sum;
		s->lat_n += e->lat_n;
		if (e->cpu != e->mem)
			s->remote += e->n;
		s->dist_sum += (double)e->n * distance(a->topo, e->cpu, e->mem, assumed);
		struct pms_advice_node *c = nodeacc_get(&s->cpus, e->cpu);
		struct pms_advice_node *m = nodeacc_get(&s->mems, e->mem);
		if (!c || !m)
			goto nomem;
		c->accesses += e->n;
		c->cost += (double)e->n * distance(a->topo, e->cpu, e->mem, assumed);
		c->latency_n += e->lat_n;
		c->latency_mean += (double)e->lat_sum;
		m->accesses += e->n;
		m->latency_n += e->lat_n;
		m->latency_mean += (double)e->lat_sum;
		if (s->npn == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct pagenode *np = realloc(s->pn, nc * sizeof(*np));
			if (!np)
				goto nomem;
			s->pn = np;
			cap = nc;
		}
		s->pn[s->npn++] = (struct pagenode){
			(e->line << LINE_SHIFT) & ~(uint64_t)(a->o.page_size - 1), e->mem };
	}
	/* distinct pages per memory node */
	if (s->npn)
		qsort(s->pn, s->npn, sizeof(*s->pn), cmp_pagenode);
	size_t w = 0;
	for (size_t i = 0; i < s->npn; i++)
		if (!w || s->pn[w - 1].page != s->pn[i].page || s->pn[w - 1].mem != s->pn[i].mem)
			s->pn[w++] = s->pn[i];
	s->npn = w;
	for (size_t i = 0; i < s->npn; i++) {
		if (!i || s->pn[i - 1].page != s->pn[i].page)
			s->pages++;
		struct pms_advice_node *m = nodeacc_get(&s->mems, s->pn[i].mem);
		if (!m)
			goto nomem;
		m->pages++;
	}
	for (size_t i = 0; i < s->cpus.n; i++) {
		struct pms_advice_node *c = &s->cpus.v[i];
		c->share = s->samples ? (double)c->accesses / (double)s->samples : 0;
		c->cost = c->accesses ? c->cost / (double)c->accesses : 0;
		c->latency_mean = c->latency_n ? c->latency_mean / (double)c->latency_n : 0;
	}
	for (size_t i = 0; i < s->mems.n; i++) {
		struct pms_advice_node *m = &s->mems.v[i];
		m->share = s->samples ? (double)m->accesses / (double)s->samples : 0;
		m->latency_mean = m->latency_n ? m->latency_mean / (double)m->latency_n : 0;
	}
	if (s->cpus.n)
		qsort(s->cpus.v, s->cpus.n, sizeof(*s->cpus.v), cmp_node_acc);
	if (s->mems.n)
		qsort(s->mems.v, s->mems.n, sizeof(*s->mems.v), cmp_node_acc);
	return 0;
nomem:
	stats_release(s);
	return pms_err(PMS_ENOMEM, "advisor: out of memory");
}

int pms_advisor_range(const struct pms_advisor *a, uint32_t pid, uint64_t start, uint64_t end,
		      struct pms_advice_range *out)
{
	struct stats s;
	if (!a || !out)
		return pms_err(PMS_EINVAL, "pms_advisor_range: NULL argument");
	int rc = gather(a, pid, start, end, &s, NULL);
	if (rc < 0)
		return rc;
	memset(out, 0, sizeof(*out));
	out->samples = s.samples;
	out->remote = s.remote;
	out->stores = s.stores;
	out->remote_share = s.samples ? (double)s.remote / (double)s.samples : 0;
	pms_wilson(s.remote, s.samples, &out->remote_lo, &out->remote_hi);
	out->latency_n = s.lat_n;
	out->latency_mean = s.lat_n ? (double)s.lat_sum / (double)s.lat_n : 0;
	out->mems = s.mems.v;
	out->nmems = s.mems.n;
	s.mems.v = NULL;
	stats_release(&s);
	return 0;
}

void pms_advice_range_release(struct pms_advice_range *r)
{
	if (!r)
		return;
	free(r->mems);
	memset(r, 0, sizeof(*r));
}

/* ---- decisions ------------------------------------------------------------ */

/* Nodes a hot item may go to: nodes with memory and CPUs (memory-only nodes
 * are for cold data); without a topology, every node seen. */
static bool candidate(const struct pms_advisor *a, int node, const struct stats *s)
{
	if (!a->topo) {
		for (size_t i = 0; i < s->cpus.n; i++)
			if (s->cpus.v[i].node == node)
				return true;
		for (size_t i = 0; i < s->mems.n; i++)
			if (s->mems.v[i].node == node)
				return true;
		return false;
	}
	const struct pms_topo_node *n = pms_topo_node(a->topo, node);
	return n && n->has_memory && n->has_cpu;
}

/* Estimated bytes to move [start, end) to node: the range's pages scaled by
 * the share of sampled pages held elsewhere. */
static uint64_t move_bytes(const struct pms_advisor *a, const struct stats *s, uint64_t start,
			   uint64_t end, int node)
{
	uint64_t ps = a->o.page_size;
	uint64_t pages = ((end + ps - 1) / ps) - (start / ps);
	uint64_t elsewhere = 0;
	if (!s->pages)
		return 0;
	/* a page seen on several nodes (moved while sampled) is elsewhere only
	 * when none of them is node */
	for (size_t i = 0; i < s->npn;) {
		size_t j = i;
		bool on = false;
		while (j < s->npn && s->pn[j].page == s->pn[i].page)
			on |= s->pn[j++].mem == node;
		if (!on)
			elsewhere++;
		i = j;
	}
	return (uint64_t)((double)pages * (double)elsewhere / (double)s->pages + 0.5) * ps;
}

/* 0 = room, else the free bytes there (less headroom) */
static bool has_room(const struct pms_advisor *a, int node, uint64_t bytes, uint64_t *free_out)
{
	*free_out = 0;
	if (!a->topo)
		return true;
	const struct pms_topo_node *n = pms_topo_node(a->topo, node);
	if (!n || !n->mem_total)
		return true; /* unknown: said in the plan (capacity_checked) */
	*free_out = n->mem_free > a->o.headroom ? n->mem_free - a->o.headroom : 0;
	return bytes <= *free_out;
}

static double cost_at(const struct pms_advisor *a, const struct stats *s, int node, bool *assumed)
{
	double c = 0;
	for (size_t i = 0; i < s->cpus.n; i++)
		c += (double)s->cpus.v[i].accesses * distance(a->topo, s->cpus.v[i].node, node, assumed);
	return s->samples ? c / (double)s->samples : 0;
}

static void fmt_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= (1ull << 30))
		snprintf(buf, len, "%.1f GiB", (double)b / (double)(1ull << 30));
	else if (b >= (1ull << 20))
		snprintf(buf, len, "%.1f MiB", (double)b / (double)(1ull << 20));
	else
		snprintf(buf, len, "%.1f KiB", (double)b / 1024.0);
}

/* Candidate nodes: every node the topology has, else those seen (at most
 * 256, into cand); how many. */
static size_t candidates(const struct pms_advisor *a, const struct stats *s, int *cand)
{
	size_t ncand = 0;
	if (a->topo) {
		for (size_t i = 0; i < a->topo->nnodes && ncand < 256; i++)
			cand[ncand++] = a->topo->nodes[i].id;
	} else {
		for (size_t i = 0; i < s->cpus.n && ncand < 256; i++)
			cand[ncand++] = s->cpus.v[i].node;
		for (size_t i = 0; i < s->mems.n && ncand < 256; i++) {
			bool dup = false;
			for (size_t j = 0; j < ncand; j++)
				dup |= cand[j] == s->mems.v[i].node;
			if (!dup)
				cand[ncand++] = s->mems.v[i].node;
		}
	}
	return ncand;
}

/* Shared read-mostly data: interleave across the sharers when each has
 * room.  true when that is the advice (it filled). */
static bool try_interleave(const struct pms_advisor *a, struct pms_advice *p,
			   struct pms_advice_item *it, const struct stats *s)
{
	bool *assumed = &p->distances_assumed;
	int sh[64];
	double shs[64];
	size_t nsh = 0;
	for (size_t i = 0; i < s->cpus.n && nsh < 64; i++)
		if (s->cpus.v[i].share >= a->o.shared_share && candidate(a, s->cpus.v[i].node, s)) {
			shs[nsh] = s->cpus.v[i].share;
			sh[nsh++] = s->cpus.v[i].node;
		}
	if (nsh >= 2 && it->store_share <= a->o.read_mostly) {
		uint64_t bytes = 0, room, per;
		uint64_t ps = a->o.page_size;
		uint64_t pages = ((it->end + ps - 1) / ps) - (it->start / ps);
		bytes = pages * ps * (nsh - 1) / nsh;
		per = bytes / nsh + ps;
		bool ok = true;
		for (size_t k = 0; k < nsh; k++)
			if (!has_room(a, sh[k], per, &room))
				ok = false;
		if (ok) {
			double cost = 0, remote = 0;
			for (size_t i = 0; i < s->cpus.n; i++) {
				double sum = 0;
				bool in = false;
				for (size_t k = 0; k < nsh; k++) {
					sum += distance(a->topo, s->cpus.v[i].node, sh[k], assumed);
					in |= sh[k] == s->cpus.v[i].node;
				}
				cost += s->cpus.v[i].share * sum / (double)nsh;
				remote += s->cpus.v[i].share * (1.0 - (in ? 1.0 / (double)nsh : 0));
			}
			it->action = PMS_ADVICE_INTERLEAVE;
			it->nodes = malloc(nsh * sizeof(int));
			if (it->nodes) {
				memcpy(it->nodes, sh, nsh * sizeof(int));
				it->nnodes = nsh;
			}
			it->cost_after = cost;
			it->predicted_remote = remote;
			it->move_pages = bytes / ps;
			it->move_bytes = it->move_pages * ps;
			int len = a->o.stores_unknown
					  ? snprintf(it->reason, sizeof(it->reason),
						     "shared, read-mostly assumed (this engine does not "
						     "tell stores from loads): ")
					  : snprintf(it->reason, sizeof(it->reason),
						     "read-mostly (%.0f %% stores) and shared: ",
						     100 * it->store_share);
			for (size_t k = 0; k < nsh && len > 0 && (size_t)len < sizeof(it->reason); k++)
				len += snprintf(it->reason + len, sizeof(it->reason) - (size_t)len,
						"%snode %d %.0f %%", k ? ", " : "", sh[k],
						100 * shs[k]);
			if (len > 0 && (size_t)len < sizeof(it->reason))
				snprintf(it->reason + len, sizeof(it->reason) - (size_t)len,
					 "; one home leaves the others remote, interleaving spreads "
					 "the pages and the bandwidth over the sharers");
			return true;
		}
	}
	return false;
}

static void decide(const struct pms_advisor *a, struct pms_advice *p, struct pms_advice_item *it,
		   struct stats *s)
{
	bool *assumed = &p->distances_assumed;
	it->target = -1;
	it->action = PMS_ADVICE_LEAVE;
	it->cost_now = s->samples ? s->dist_sum / (double)s->samples : 0;
	it->cost_after = it->cost_now;
	it->predicted_remote = it->remote_share;
	if (s->samples < a->o.min_samples) {
		snprintf(it->reason, sizeof(it->reason),
			 "too few samples (%llu < %llu): the remote share is %.0f-%.0f %% at 95 %%",
			 (unsigned long long)s->samples, (unsigned long long)a->o.min_samples,
			 100 * it->remote_lo, 100 * it->remote_hi);
		return;
	}
	if (it->remote_hi < a->o.local_enough) {
		snprintf(it->reason, sizeof(it->reason),
			 "already local: remote share %.1f %% (at most %.1f %% at 95 %%)",
			 100 * it->remote_share, 100 * it->remote_hi);
		return;
	}
	int cand[256];
	size_t ncand = candidates(a, s, cand);
	if (try_interleave(a, p, it, s))
		return;
	/* one node: the cheapest candidate with room */
	int best = -1, best_any = -1;
	double best_cost = 0, best_any_cost = 0;
	uint64_t best_bytes = 0, any_bytes = 0, any_room = 0;
	for (size_t i = 0; i < ncand; i++) {
		int t = cand[i];
		if (!candidate(a, t, s))
			continue;
		double c = cost_at(a, s, t, assumed);
		uint64_t b = move_bytes(a, s, it->start, it->end, t), room;
		bool fits = has_room(a, t, b, &room);
		/* ties: the node that makes more of the accesses */
		if (best_any < 0 || c < best_any_cost - 1e-9) {
			best_any = t;
			best_any_cost = c;
			any_bytes = b;
			any_room = room;
		}
		if (fits && (best < 0 || c < best_cost - 1e-9)) {
			best = t;
			best_cost = c;
			best_bytes = b;
		}
	}
	const struct pms_advice_node *top = s->cpus.n ? &s->cpus.v[0] : NULL;
	const struct pms_advice_node *home = s->mems.n ? &s->mems.v[0] : NULL;
	if (best >= 0 && best_cost <= (1 - a->o.min_gain) * it->cost_now && best_bytes > 0) {
		double cpu_share = 0;
		for (size_t i = 0; i < s->cpus.n; i++)
			if (s->cpus.v[i].node == best)
				cpu_share = s->cpus.v[i].share;
		char bb[32];
		fmt_bytes(bb, sizeof(bb), best_bytes);
		it->action = PMS_ADVICE_MOVE;
		it->target = best;
		it->cost_after = best_cost;
		it->predicted_remote = 1 - cpu_share;
		it->move_bytes = best_bytes;
		it->move_pages = best_bytes / a->o.page_size;
		snprintf(it->reason, sizeof(it->reason),
			 "accessed %.0f %% from node %d, held %.0f %% on node %d: on node %d the mean "
			 "distance per access falls %.1f -> %.1f (-%.0f %%); moves ~%s",
			 top ? 100 * top->share : 0, top ? top->node : -1,
			 home ? 100 * home->share : 0, home ? home->node : -1, best, it->cost_now,
			 best_cost, it->cost_now > 0 ? 100 * (1 - best_cost / it->cost_now) : 0, bb);
		return;
	}
	if (best_any >= 0 && best_any != best && best_any_cost <= (1 - a->o.min_gain) * it->cost_now &&
	    top && top->share >= 1 - a->o.shared_share && home && candidate(a, home->node, s) &&
	    home->node != top->node) {
		/* the memory cannot go where the threads are: bring the threads */
		char need[32], room[32];
		fmt_bytes(need, sizeof(need), any_bytes);
		fmt_bytes(room, sizeof(room), any_room);
		it->action = PMS_ADVICE_MOVE_THREADS;
		it->target = home->node;
		it->cost_after = distance(a->topo, home->node, home->node, assumed) * home->share +
				 (1 - home->share) * it->cost_now;
		it->predicted_remote = 1 - home->share;
		snprintf(it->reason, sizeof(it->reason),
			 "node %d would be cheapest but has %s free (less headroom) for ~%s: run the "
			 "threads on node %d, which holds %.0f %% of the accesses' pages",
			 best_any, room, need, home->node, 100 * home->share);
		return;
	}
	if (best_any >= 0 && best < 0) {
		snprintf(it->reason, sizeof(it->reason),
			 "no node with room: the cheapest, node %d, lacks space for it", best_any);
		return;
	}
	snprintf(it->reason, sizeof(it->reason),
		 "no move gains %.0f %% or more: mean distance %.1f now, %.1f at best (node %d)",
		 100 * a->o.min_gain, it->cost_now, best >= 0 ? best_cost : it->cost_now, best);
}

static int fill_item(const struct pms_advisor *a, struct pms_advice *p, struct pms_advice_item *it,
		     const char *name, const char *kind, uint32_t pid, uint64_t start, uint64_t end)
{
	struct stats s;
	int rc = gather(a, pid, start, end, &s, &p->distances_assumed);
	if (rc < 0)
		return rc;
	memset(it, 0, sizeof(*it));
	it->name = strdup(name ? name : "[unknown]");
	it->kind = strdup(kind ? kind : "");
	if (!it->name || !it->kind) {
		stats_release(&s);
		return pms_err(PMS_ENOMEM, "advisor: out of memory");
	}
	it->pid = pid;
	it->start = start;
	it->end = end;
	it->samples = s.samples;
	it->stores = s.stores;
	it->store_share = s.samples ? (double)s.stores / (double)s.samples : 0;
	it->remote = s.remote;
	it->remote_share = s.samples ? (double)s.remote / (double)s.samples : 0;
	pms_wilson(s.remote, s.samples, &it->remote_lo, &it->remote_hi);
	it->sure = s.samples >= a->o.min_samples && it->remote_hi - it->remote_lo <= 0.2;
	it->pages_sampled = s.pages;
	it->latency_measured = s.lat_n * 2 >= s.samples && s.lat_n > 0;
	decide(a, p, it, &s);
	it->cpus = s.cpus.v;
	it->ncpus = s.cpus.n;
	it->mems = s.mems.v;
	it->nmems = s.mems.n;
	s.cpus.v = s.mems.v = NULL;
	stats_release(&s);
	return 0;
}

static void item_release(struct pms_advice_item *it)
{
	free(it->name);
	free(it->kind);
	free(it->cpus);
	free(it->mems);
	free(it->nodes);
}

void pms_advice_free(struct pms_advice *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nitems; i++)
		item_release(&p->items[i]);
	free(p->items);
	free(p);
}

struct range {
	uint64_t start, end, samples;
	uint32_t pid;
	const char *name, *kind;
};

struct lineacc {
	uint32_t pid;
	uint64_t page, n;
};

static int cmp_lineacc(const void *x, const void *y)
{
	const struct lineacc *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->page != b->page)
		return a->page < b->page ? -1 : 1;
	return 0;
}

static int cmp_range(const void *x, const void *y)
{
	const struct range *a = x, *b = y;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* Page ranges run on while the gap between sampled pages is at most this. */
#define RANGE_GAP_PAGES 16

int pms_advisor_plan(const struct pms_advisor *a, const struct pms_memreport *r,
		     struct pms_advice **out)
{
	struct range *rg = NULL;
	struct lineacc *la = NULL;
	size_t nrg = 0, capr = 0, nla = 0;
	int rc = 0;
	if (!a || !out)
		return pms_err(PMS_EINVAL, "pms_advisor_plan: NULL argument");
	struct pms_advice *p = calloc(1, sizeof(*p));
	if (!p)
		return pms_err(PMS_ENOMEM, "pms_advisor_plan: out of memory");
	p->samples = a->total;
	p->page_size = a->o.page_size;
	p->capacity_checked = false;
	if (a->topo)
		for (size_t i = 0; i < a->topo->nnodes; i++)
			if (a->topo->nodes[i].mem_total)
				p->capacity_checked = true;
	if (!a->topo)
		p->distances_assumed = true;
	uint64_t hot = (uint64_t)ceil(a->o.hot_share * (double)a->total);
	if (hot < 1)
		hot = 1;

	/* the report's data objects */
	for (size_t i = 0; r && i < r->ntop_objects; i++) {
		const struct pms_memreport_site *o = &r->top_objects[i];
		if (o->kernel || o->addr_hidden || !o->size || o->addr + o->size < o->addr)
			continue;
		if (nrg == capr) {
			size_t nc = capr ? capr * 2 : 16;
			struct range *nr = realloc(rg, nc * sizeof(*nr));
			if (!nr)
				goto nomem;
			rg = nr;
			capr = nc;
		}
		rg[nrg++] = (struct range){ o->addr, o->addr + o->size, 0, 0, o->name, o->kind };
	}
	size_t nobj = nrg;
	/* samples per page outside every object */
	la = malloc((a->len ? a->len : 1) * sizeof(*la));
	if (!la)
		goto nomem;
	for (size_t i = 0; i < a->cap; i++) {
		const struct entry *e = &a->tab[i];
		if (!e->used)
			continue;
		uint64_t addr = e->line << LINE_SHIFT;
		bool inside = false;
		for (size_t k = 0; k < nobj && !inside; k++)
			inside = addr >= rg[k].start && addr < rg[k].end;
		if (inside)
			continue;
		la[nla++] = (struct lineacc){ e->pid, addr & ~(uint64_t)(a->o.page_size - 1), e->n };
	}
	if (nla)
		qsort(la, nla, sizeof(*la), cmp_lineacc);
	for (size_t i = 0; i < nla;) {
		size_t j = i;
		uint64_t n = 0;
		while (j < nla && la[j].pid == la[i].pid &&
		       (j == i || la[j].page <= la[j - 1].page + RANGE_GAP_PAGES * a->o.page_size))
			n += la[j++].n;
		/* a page range is an item only with enough samples to judge */
		if (n >= hot && n >= a->o.min_samples) {
			if (nrg == capr) {
				size_t nc = capr ? capr * 2 : 16;
				struct range *nr = realloc(rg, nc * sizeof(*nr));
				if (!nr)
					goto nomem;
				rg = nr;
				capr = nc;
			}
			rg[nrg++] = (struct range){ la[i].page, la[j - 1].page + a->o.page_size, n,
						    la[i].pid, "[pages]", "pages" };
		}
		i = j;
	}
	/* sample counts of the objects, then the hot ones, hottest first */
	for (size_t k = 0; k < nobj; k++) {
		struct pms_advice_range x;
		if ((rc = pms_advisor_range(a, 0, rg[k].start, rg[k].end, &x)) < 0)
			goto out;
		rg[k].samples = x.samples;
		pms_advice_range_release(&x);
	}
	size_t w = 0;
	for (size_t k = 0; k < nrg; k++)
		if (rg[k].samples >= hot && rg[k].samples > 0)
			rg[w++] = rg[k];
	nrg = w;
	if (nrg)
		qsort(rg, nrg, sizeof(*rg), cmp_range);
	if (nrg > a->o.max_items)
		nrg = a->o.max_items;
	p->items = calloc(nrg ? nrg : 1, sizeof(*p->items));
	if (!p->items)
		goto nomem;
	for (size_t k = 0; k < nrg; k++) {
		if ((rc = fill_item(a, p, &p->items[k], rg[k].name, rg[k].kind, rg[k].pid, rg[k].start,
				    rg[k].end)) < 0)
			goto out;
		p->nitems++;
	}
	*out = p;
	p = NULL;
out:
	free(rg);
	free(la);
	pms_advice_free(p);
	return rc;
nomem:
	rc = pms_err(PMS_ENOMEM, "pms_advisor_plan: out of memory");
	goto out;
}
