/* The placement advisor's decisions on made-up topologies and samples, and
 * page migration against the fake kernel's move_pages rules. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fake_kernel.h"
#include "pmuscope/advise.h"
#include "pmuscope/error.h"
#include "topo/topo_int.h" /* a topology built or read whole */

#define MiB (1ull << 20)

/* The x86 bed's shape: nodes 0-2 with CPUs, node 3 memory-only; distances
 * 10 local, 12 0->1, 14 1->0, 20 to and from node 2, 11 0->3 (the
 * memory-only node would be the cheapest remote node for node 0). */
static struct pms_topo *make_topo(uint64_t free0, uint64_t free1, uint64_t free2)
{
	static const int dist[4][4] = {
		{ 10, 12, 20, 11 }, { 14, 10, 20, 17 }, { 20, 20, 10, 17 }, { 17, 17, 17, 10 } };
	struct pms_topo *t = calloc(1, sizeof(*t));
	t->nnodes = 4;
	t->nodes = calloc(4, sizeof(*t->nodes));
	uint64_t fr[4] = { free0, free1, free2, 512 * MiB };
	for (int i = 0; i < 4; i++) {
		struct pms_topo_node *n = &t->nodes[i];
		n->id = i;
		n->has_cpu = i < 3;
		n->has_memory = true;
		n->distances = malloc(4 * sizeof(int));
		memcpy(n->distances, dist[i], sizeof(dist[i]));
		n->ndistances = 4;
		n->mem_total = 512 * MiB;
		n->mem_free = fr[i];
	}
	return t;
}

static void free_topo(struct pms_topo *t)
{
	for (size_t i = 0; i < t->nnodes; i++)
		free(t->nodes[i].distances);
	free(t->nodes);
	free(t);
}

/* A report with just the data objects the advisor reads. */
struct objs {
	struct pms_memreport r;
	struct pms_memreport_site s[4];
};

static void add_obj(struct objs *o, const char *name, uint64_t addr, uint64_t size)
{
	struct pms_memreport_site *s = &o->s[o->r.ntop_objects++];
	memset(s, 0, sizeof(*s));
	s->addr = addr;
	s->size = size;
	s->name = (char *)name;
	s->kind = (char *)"anon";
	o->r.top_objects = o->s;
}

#define HOT 0x10000000ull
#define COLD 0x20000000ull

/* n samples spread over the pages of [base, base + size) */
static void feed(struct pms_advisor *a, uint64_t base, uint64_t size, int n, int mem, int cpu,
		 bool store)
{
	for (int i = 0; i < n; i++)
		CHECK_OK(pms_advisor_add(a, 0, base + ((uint64_t)i * 4096 + 64 * (i % 7)) % size, mem,
					 cpu, 0, store));
}

static const struct pms_advice_item *find(const struct pms_advice *p, uint64_t start)
{
	for (size_t i = 0; i < p->nitems; i++)
		if (p->items[i].start == start)
			return &p->items[i];
	return NULL;
}

PMS_TEST(wilson_interval)
{
	double lo, hi;
	pms_wilson(0, 100, &lo, &hi);
	CHECK(lo == 0 && fabs(hi - 0.0370) < 0.001);
	pms_wilson(50, 100, &lo, &hi);
	CHECK(fabs(lo - 0.4038) < 0.001 && fabs(hi - 0.5962) < 0.001);
	pms_wilson(100, 100, &lo, &hi);
	CHECK(hi == 1 && fabs(lo - 0.9630) < 0.001);
	pms_wilson(0, 0, &lo, &hi);
	CHECK(lo == 0 && hi == 1);
}

/* Threads on node 0, hot buffer on node 2, cold buffer on node 0: move the
 * hot one to node 0; the cold one is local and left. */
PMS_TEST(hot_remote_buffer_moves_home)
{
	struct pms_topo *t = make_topo(400 * MiB, 400 * MiB, 400 * MiB);
	struct pms_advisor *a = NULL;
	struct pms_advice *p = NULL;
	struct objs o = { 0 };
	add_obj(&o, "hot", HOT, 4 * MiB);
	add_obj(&o, "cold", COLD, 4 * MiB);
	CHECK_OK(pms_advisor_new(t, NULL, &a));
	feed(a, HOT, 4 * MiB, 1000, 2, 0, false);
	feed(a, COLD, 4 * MiB, 60, 0, 0, false);
	CHECK_OK(pms_advisor_plan(a, &o.r, &p));
	const struct pms_advice_item *h = p ? find(p, HOT) : NULL, *c = p ? find(p, COLD) : NULL;
	CHECK(h && c);
	if (h && c) {
		CHECK_EQ_STR(h->name, "hot");
		CHECK_EQ_INT(h->action, PMS_ADVICE_MOVE);
		CHECK_EQ_INT(h->target, 0);
		CHECK_EQ_U64(h->samples, 1000);
		CHECK(h->remote_share == 1.0 && h->remote_lo > 0.99);
		CHECK(h->sure);
		CHECK(h->cost_now == 20 && h->cost_after == 10);
		CHECK(h->predicted_remote == 0);
		CHECK_EQ_U64(h->move_bytes, 4 * MiB); /* every sampled page is elsewhere */
		CHECK_EQ_U64(h->move_pages, 1024);
		CHECK(h->ncpus == 1 && h->cpus[0].node == 0 && h->cpus[0].share == 1.0);
		CHECK(h->nmems == 1 && h->mems[0].node == 2 && h->mems[0].pages == 1000);
		CHECK_EQ_INT(c->action, PMS_ADVICE_LEAVE);
		CHECK(strstr(c->reason, "already local") != NULL);
		CHECK(p->items == h); /* hottest first */
		CHECK(!p->distances_assumed && p->capacity_checked);
	}
	pms_advice_free(p);
	pms_advisor_free(a);
	free_topo(t);
}

/* Node 0 full: the next cheapest CPU node with room (1, distance 12), never
 * the memory-only node 3 (distance 11) for hot data. */
PMS_TEST(capacity_and_memory_only_nodes)
{
	struct pms_topo *t = make_topo(1 * MiB, 400 * MiB, 400 * MiB);
	struct pms_advisor *a = NULL;
	struct pms_advice *p = NULL;
	struct objs o = { 0 };
	add_obj(&o, "hot", HOT, 4 * MiB);
	CHECK_OK(pms_advisor_new(t, NULL, &a));
	feed(a, HOT, 4 * MiB, 500, 2, 0, false);
	CHECK_OK(pms_advisor_plan(a, &o.r, &p));
	CHECK(p && p->nitems == 1);
	if (p && p->nitems == 1) {
		CHECK_EQ_INT(p->items[0].action, PMS_ADVICE_MOVE);
		CHECK_EQ_INT(p->items[0].target, 1);
		CHECK(p->items[0].cost_after == 12);
	}
	pms_advice_free(p);
	p = NULL;
	pms_advisor_free(a);
	free_topo(t);

	/* no CPU node has room: bring the threads to the data */
	t = make_topo(1 * MiB, 1 * MiB, 400 * MiB);
	CHECK_OK(pms_advisor_new(t, NULL, &a));
	feed(a, HOT, 4 * MiB, 500, 2, 0, false);
	CHECK_OK(pms_advisor_plan(a, &o.r, &p));
	CHECK(p && p->nitems == 1);
	if (p && p->nitems == 1) {
		CHECK_EQ_INT(p->items[0].action, PMS_ADVICE_MOVE_THREADS);
		CHECK_EQ_INT(p->items[0].target, 2);
		CHECK(strstr(p->items[0].reason, "free") != NULL);
	}
	pms_advice_free(p);
	pms_advisor_free(a);
	free_topo(t);
}

PMS_TEST(shared_read_mostly_interleaves)
{
	struct pms_topo *t = make_topo(400 * MiB, 400 * MiB, 400 * MiB);
	struct pms_advisor *a = NULL;
	struct pms_advice *p = NULL;
	struct objs o = { 0 };
	add_obj(&o, "shared", HOT, 4 * MiB);
	CHECK_OK(pms_advisor_new(t, NULL, &a));
	feed(a, HOT, 4 * MiB, 300, 0, 0, false);
	feed(a, HOT + 2 * MiB, 2 * MiB, 300, 0, 1, false);
	CHECK_OK(pms_advisor_plan(a, &o.r, &p));
	CHECK(p && p->nitems == 1);
	if (p && p->nitems == 1) {
		const struct pms_advice_item *it = &p->items[0];
		CHECK_EQ_INT(it->action, PMS_ADVICE_INTERLEAVE);
		CHECK(it->nnodes == 2 && it->nodes[0] + it->nodes[1] == 1);
		CHECK(fabs(it->remote_share - 0.5) < 1e-9);
		CHECK(fabs(it->predicted_remote - 0.5) < 1e-9);
		CHECK(it->store_share == 0);
	}
	pms_advice_free(p);
	p = NULL;
	pms_advisor_free(a);

	/* the same sharing with half stores: no single node is cheaper
	 * (15 now, 14 or 15 elsewhere is under the 10 % bar): leave it */
	CHECK_OK(pms_advisor_new(t, NULL, &a));
	feed(a, HOT, 4 * MiB, 300, 0, 0, true);
	feed(a, HOT + 2 * MiB, 2 * MiB, 300, 0, 1, false);
	CHECK_OK(pms_advisor_plan(a, &o.r, &p));
	CHECK(p && p->nitems == 1);
	if (p && p->nitems == 1) {
		CHECK_EQ_INT(p->items[0].action, PMS_ADVICE_LEAVE);
		CHECK(strstr(p->items[0].reason, "gains") != NULL);
	}
	pms_advice_free(p);
	pms_advisor_free(a);
	free_topo(t);
}

PMS_TEST(few_samples_and_page_ranges)
{
	struct pms_topo *t = make_topo(400 * MiB, 400 * MiB, 400 * MiB);
	struct pms_advisor *a = NULL;
	struct pms_advice *p = NULL;
	struct objs o = { 0 };
	add_obj(&o, "small", HOT, 4 * MiB);
	CHECK_OK(pms_advisor_new(t, NULL, &a));
	feed(a, HOT, 4 * MiB, 10, 2, 0, false);
	/* a hot range no object covers: 100 pages at COLD */
	feed(a, COLD, 400 * 1024, 400, 2, 1, false);
	/* and a lone page with fewer samples than a judgement needs: no item */
	feed(a, COLD + 64 * MiB, 4096, 20, 2, 1, false);
	CHECK_OK(pms_advisor_plan(a, &o.r, &p));
	CHECK(p && p->nitems == 2);
	if (p && p->nitems == 2) {
		const struct pms_advice_item *r = &p->items[0], *s = &p->items[1];
		CHECK_EQ_STR(r->kind, "pages");
		CHECK_EQ_U64(r->start, COLD);
		CHECK_EQ_U64(r->end, COLD + 100 * 4096);
		CHECK_EQ_INT(r->action, PMS_ADVICE_MOVE);
		CHECK_EQ_INT(r->target, 1);
		CHECK_EQ_INT(s->action, PMS_ADVICE_LEAVE);
		CHECK(strstr(s->reason, "too few samples") != NULL);
		CHECK(!s->sure);
	}
	/* the range query sees the same counts */
	struct pms_advice_range rg;
	CHECK_OK(pms_advisor_range(a, 0, COLD, COLD + 100 * 4096, &rg));
	CHECK_EQ_U64(rg.samples, 400);
	CHECK_EQ_U64(rg.remote, 400);
	CHECK(rg.nmems == 1 && rg.mems[0].node == 2);
	pms_advice_range_release(&rg);
	pms_advice_free(p);
	pms_advisor_free(a);
	free_topo(t);

	/* no topology (a recorded file): distances assumed, every node seen
	 * is a candidate */
	CHECK_OK(pms_advisor_new(NULL, NULL, &a));
	feed(a, HOT, 4 * MiB, 100, 1, 0, false);
	CHECK_OK(pms_advisor_plan(a, &o.r, &p));
	CHECK(p && p->nitems == 1 && p->distances_assumed && !p->capacity_checked);
	if (p && p->nitems == 1)
		CHECK(p->items[0].action == PMS_ADVICE_MOVE && p->items[0].target == 0);
	pms_advice_free(p);
	pms_advisor_free(a);
}

PMS_TEST(options_rule)
{
	struct pms_advisor *a = NULL;
	struct pms_advise_opts o = PMS_ADVISE_OPTS_INIT;
	o.version = 0;
	CHECK(pms_advisor_new(NULL, &o, &a) == PMS_EINVAL && !a);
	o.version = PMS_ADVISE_OPTS_VERSION + 1;
	CHECK(pms_advisor_new(NULL, &o, &a) == PMS_EINVAL && !a);
	o.version = PMS_ADVISE_OPTS_VERSION;
	o.page_size = 3000;
	CHECK(pms_advisor_new(NULL, &o, &a) == PMS_EINVAL && !a);
}

/* ---- migration against the fake kernel ---------------------------------- */

#define BASE 0x7f0000000000ull

static struct pms_sys *fake_sys(struct fk *fk)
{
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	o.ops = fk_ops(fk);
	CHECK_OK(pms_sys_new(&sys, &o));
	return sys;
}

static uint64_t errs_of(const struct pms_migrate_result *r, int err)
{
	for (size_t i = 0; i < r->nerrs; i++)
		if (r->errs[i].err == err)
			return r->errs[i].pages;
	return 0;
}

static int count_on(struct fk *fk, int node)
{
	int n = 0;
	for (int i = 0; i < fk->npages; i++)
		n += fk->page_node[i] == node;
	return n;
}

PMS_TEST(migrate_all_and_partial)
{
	struct fk *fk = fk_new();
	struct pms_sys *sys = fake_sys(fk);
	struct pms_migrate_result r;
	struct pms_migrate_opts mo = PMS_MIGRATE_OPTS_INIT;
	mo.batch = 64; /* several batches */
	for (int i = 0; i < 200; i++)
		fk_set_page(fk, BASE + (uint64_t)i * 4096, 2);
	int to0 = 0;
	CHECK_OK(pms_migrate_range(sys, 1234, BASE, BASE + 200 * 4096, &to0, 1, &mo, &r));
	CHECK_EQ_U64(r.pages, 200);
	CHECK_EQ_U64(r.moved, 200);
	CHECK_EQ_U64(r.failed, 0);
	CHECK_EQ_U64(r.after_on_target, 200);
	CHECK_EQ_INT(count_on(fk, 0), 200);
	CHECK(fk->move_calls == 4); /* one move per batch of 64 */

	/* again: everything is there already, nothing moves */
	long moved = fk->pages_moved;
	CHECK_OK(pms_migrate_range(sys, 1234, BASE, BASE + 200 * 4096, &to0, 1, &mo, &r));
	CHECK_EQ_U64(r.already, 200);
	CHECK_EQ_U64(r.moved, 0);
	CHECK(fk->pages_moved == moved);

	/* partial: busy (-EBUSY), shared with another process (-EACCES
	 * without MPOL_MF_MOVE_ALL), never touched (-ENOENT), a hole (-EFAULT) */
	int to1 = 1;
	fk_set_page_flags(fk, BASE + 3 * 4096, FK_PAGE_BUSY);
	fk_set_page_flags(fk, BASE + 70 * 4096, FK_PAGE_BUSY);
	fk_set_page_flags(fk, BASE + 5 * 4096, FK_PAGE_SHARED);
	fk_set_page(fk, BASE + 7 * 4096, -ENOENT);
	CHECK_OK(pms_migrate_range(sys, 1234, BASE, BASE + 201 * 4096, &to1, 1, &mo, &r));
	CHECK_EQ_U64(r.pages, 201);
	CHECK_EQ_U64(r.moved, 196);
	CHECK_EQ_U64(r.failed, 3);
	CHECK_EQ_U64(r.not_present, 2); /* page 7 (-ENOENT) and page 200 (-EFAULT) */
	CHECK_EQ_U64(errs_of(&r, EBUSY), 2);
	CHECK_EQ_U64(errs_of(&r, EACCES), 1);
	CHECK_EQ_U64(r.after_on_target, 196);
	CHECK_EQ_INT(count_on(fk, 1), 196);
	pms_sys_free(sys);
	fk_free(fk);
}

PMS_TEST(migrate_refusals)
{
	struct fk *fk = fk_new();
	struct pms_sys *sys = fake_sys(fk);
	struct pms_migrate_result r;
	int to0 = 0;
	for (int i = 0; i < 100; i++)
		fk_set_page(fk, BASE + (uint64_t)i * 4096, 2);

	/* another user's process: find_mm_struct says -EPERM */
	fk->find_mm_errno = EPERM;
	CHECK(pms_migrate_range(sys, 1, BASE, BASE + 100 * 4096, &to0, 1, NULL, &r) == PMS_EPERM);
	CHECK_EQ_U64(errs_of(&r, EPERM), 100);
	CHECK_EQ_U64(r.failed, 100);
	CHECK_EQ_INT(r.call_errno, EPERM);
	CHECK(strstr(pms_error_last(), "move_pages") != NULL);
	CHECK(fk->pages_moved == 0);
	fk->find_mm_errno = ESRCH;
	CHECK(pms_migrate_range(sys, 1, BASE, BASE + 100 * 4096, &to0, 1, NULL, &r) < 0);
	CHECK_EQ_U64(errs_of(&r, ESRCH), 100);
	fk->find_mm_errno = 0;

	/* a node without memory: -ENODEV for the call */
	fk->nodes_with_memory = 0x7; /* nodes 0-2 */
	int to3 = 3;
	CHECK(pms_migrate_range(sys, 1, BASE, BASE + 100 * 4096, &to3, 1, NULL, &r) < 0);
	CHECK_EQ_U64(errs_of(&r, ENODEV), 100);
	CHECK(fk->pages_moved == 0);

	/* the target fills up after 30 pages: -ENOMEM for the call, the 30
	 * moved stay moved, the rest are counted under ENOMEM */
	fk->node_free_pages[0] = 30;
	CHECK_OK(pms_migrate_range(sys, 1, BASE, BASE + 100 * 4096, &to0, 1, NULL, &r));
	CHECK_EQ_U64(r.moved, 30);
	CHECK_EQ_U64(r.failed, 70);
	CHECK_EQ_U64(errs_of(&r, ENOMEM), 70);
	CHECK_EQ_INT(r.call_errno, ENOMEM);
	CHECK_EQ_INT(count_on(fk, 0), 30);

	/* migrate_pages fails some pages: the call returns their count and
	 * writes no status for that run; they are counted as EAGAIN */
	fk->node_free_pages[1] = -1;
	fk_set_page_flags(fk, BASE + 50 * 4096, FK_PAGE_AGAIN);
	int to1 = 1;
	CHECK_OK(pms_migrate_range(sys, 1, BASE, BASE + 100 * 4096, &to1, 1, NULL, &r));
	CHECK_EQ_U64(r.moved, 99);
	CHECK_EQ_U64(errs_of(&r, EAGAIN), 1);
	CHECK_EQ_U64(r.retried, 0); /* failed every try */

	/* busy for a moment (the x86 bed's readers: 272 of 512 pages EAGAIN
	 * once): tried again, all moved, none counted failed */
	fk_set_page_flags(fk, BASE + 50 * 4096, 0);
	fk_set_page_flags(fk, BASE + 10 * 4096, FK_PAGE_AGAIN_ONCE);
	fk_set_page_flags(fk, BASE + 20 * 4096, FK_PAGE_AGAIN_ONCE);
	fk_set_page_flags(fk, BASE + 30 * 4096, FK_PAGE_BUSY_ONCE);
	int to2 = 2;
	CHECK_OK(pms_migrate_range(sys, 1, BASE, BASE + 100 * 4096, &to2, 1, NULL, &r));
	CHECK_EQ_U64(r.moved + r.already, 100);
	CHECK_EQ_U64(r.failed, 0);
	CHECK_EQ_U64(r.nerrs, 0);
	/* the three, and the pages the kernel left untried after a failed
	 * flush (do_pages_move stops there) */
	CHECK(r.retried >= 3);
	CHECK_EQ_U64(r.after_on_target, 100);
	CHECK_EQ_INT(count_on(fk, 2), 100);
	pms_sys_free(sys);
	fk_free(fk);
}

PMS_TEST(migrate_capacity_and_interleave)
{
	struct fk *fk = fk_new();
	struct pms_sys *sys = fake_sys(fk);
	struct pms_migrate_result r;
	struct pms_topo *t = make_topo(64 * 4096, 400 * MiB, 400 * MiB);
	struct pms_migrate_opts mo = PMS_MIGRATE_OPTS_INIT;
	mo.topo = t;
	for (int i = 0; i < 100; i++)
		fk_set_page(fk, BASE + (uint64_t)i * 4096, 2);
	int to0 = 0;
	/* 100 pages do not fit in 64 pages' room: refused before any move */
	CHECK(pms_migrate_range(sys, 1, BASE, BASE + 100 * 4096, &to0, 1, &mo, &r) == PMS_ERANGE);
	CHECK(strstr(pms_error_last(), "node 0") != NULL);
	CHECK(fk->pages_moved == 0 && fk->move_calls == 0);
	/* 60 do */
	CHECK_OK(pms_migrate_range(sys, 1, BASE, BASE + 60 * 4096, &to0, 1, &mo, &r));
	CHECK_EQ_U64(r.moved, 60);

	/* interleave the other 40 over nodes 0 and 1, page by page */
	int il[2] = { 0, 1 };
	mo.topo = NULL;
	CHECK_OK(pms_migrate_range(sys, 1, BASE + 60 * 4096, BASE + 100 * 4096, il, 2, &mo, &r));
	CHECK_EQ_U64(r.moved, 40);
	CHECK_EQ_INT(count_on(fk, 0), 80);
	CHECK_EQ_INT(count_on(fk, 1), 20);
	int n;
	CHECK(fk->ops.move_pages(fk, 0, 1, (void *[]){ (void *)(uintptr_t)(BASE + 61 * 4096) }, NULL,
				 &n, 0) == 0 && n == 1);
	free_topo(t);
	pms_sys_free(sys);
	fk_free(fk);
}

/* ---- allocation sites (issue 28) ----------------------------------------- */

/* Two nodes.  Site 0: blocks A and B, pages on node 0, read by node 1
 * threads (move to node 1); site 1: block C on node 1, read from node 1
 * (local); site 2: block D, too few samples; block E (site 0's neighbour
 * in the address space) belongs to no sampled site and must not move. */
static const struct pms_site_block site_blocks[] = {
	{ 77, BASE, BASE + 64 * 4096 },                 /* A, site 0 */
	{ 77, BASE + 100 * 4096, BASE + 132 * 4096 },   /* C, site 1 */
	{ 77, BASE + 200 * 4096, BASE + 232 * 4096 },   /* B, site 0 */
	{ 77, BASE + 300 * 4096, BASE + 310 * 4096 },   /* D, site 2 */
	{ 77, BASE + 232 * 4096, BASE + 240 * 4096 },   /* E, unsampled */
};

static bool site_lookup(void *ud, uint32_t pid, uint64_t addr, uint64_t time, uint64_t *start,
			uint64_t *end)
{
	(void)time;
	*(int *)ud += 1;
	for (size_t i = 0; i < sizeof(site_blocks) / sizeof(site_blocks[0]); i++)
		if (site_blocks[i].pid == pid && addr >= site_blocks[i].start &&
		    addr < site_blocks[i].end) {
			*start = site_blocks[i].start;
			*end = site_blocks[i].end;
			return true;
		}
	return false;
}

struct site_rep {
	struct pms_memreport r;
	struct pms_memreport_sample v[400];
	long site[400];
};

static void site_samples(struct site_rep *x, long site, const struct pms_site_block *b, int n,
			 int mem, int cpu)
{
	for (int i = 0; i < n; i++) {
		struct pms_memreport_sample *s = &x->v[x->r.nall];
		memset(s, 0, sizeof(*s));
		s->s.valid = PMS_MS_ADDR | PMS_MS_TID | PMS_MS_TIME;
		s->s.pid = b->pid;
		s->s.addr = b->start + ((uint64_t)i * 4096 + 8) % (b->end - b->start);
		s->mem_node = mem;
		s->cpu_node = cpu;
		x->site[x->r.nall++] = site;
	}
	x->r.all = x->v;
}

PMS_TEST(site_advice_moves_only_the_remote_site)
{
	struct site_rep x;
	memset(&x, 0, sizeof(x));
	site_samples(&x, 0, &site_blocks[0], 90, 0, 1);
	site_samples(&x, 0, &site_blocks[2], 30, 0, 1);
	site_samples(&x, 1, &site_blocks[1], 60, 1, 1);
	site_samples(&x, 2, &site_blocks[3], 10, 0, 1);
	site_samples(&x, -1, &site_blocks[4], 5, 0, 1); /* outside any site */
	int calls = 0;
	struct pms_site_plan *p = NULL;
	CHECK_OK(pms_site_plan_new(&x.r, x.site, x.r.nall, site_lookup, &calls, NULL, &p));
	CHECK(p && p->nitems == 3);
	if (!p || p->nitems != 3)
		return;
	CHECK_EQ_U64(p->placed, 190);
	const struct pms_site_advice *a = &p->items[0], *c = &p->items[1], *d = &p->items[2];
	CHECK(a->site == 0 && c->site == 1 && d->site == 2); /* most samples first */
	CHECK_EQ_U64(a->samples, 120);
	CHECK(a->remote_share == 1.0 && a->from_node == 1 && a->from_share == 1.0);
	CHECK_EQ_INT(a->action, PMS_ADVICE_MOVE);
	CHECK_EQ_INT(a->target, 1);
	CHECK(a->nblocks == 2 && a->blocks[0].start == BASE && a->blocks[1].start == site_blocks[2].start);
	CHECK_EQ_U64(a->bytes, 96 * 4096);
	CHECK(a->ncpus == 1 && a->cpus[0].node == 1 && a->nmems == 1 && a->mems[0].node == 0);
	CHECK_EQ_INT(c->action, PMS_ADVICE_LEAVE);
	CHECK(strstr(c->reason, "already local") != NULL);
	CHECK_EQ_INT(d->action, PMS_ADVICE_LEAVE);
	CHECK(strstr(d->reason, "too few") != NULL);

	/* --apply of site 0: only blocks A and B move, E (adjacent to B) and
	 * D stay on node 0 */
	struct fk *fk = fk_new();
	struct pms_sys *sys = fake_sys(fk);
	for (int i = 0; i < 320; i++)
		fk_set_page(fk, BASE + (uint64_t)i * 4096, i >= 100 && i < 132 ? 1 : 0);
	struct pms_migrate_result r;
	CHECK_OK(pms_site_apply(sys, a, NULL, &r));
	CHECK_EQ_U64(r.pages, 96);
	CHECK_EQ_U64(r.moved, 96);
	CHECK_EQ_U64(r.after_on_target, 96);
	CHECK_EQ_INT(count_on(fk, 1), 96 + 32);
	int n = -1;
	CHECK(fk->ops.move_pages(fk, 0, 1, (void *[]){ (void *)(uintptr_t)(BASE + 235 * 4096) }, NULL,
				 &n, 0) == 0 && n == 0); /* E stayed */
	CHECK_OK(pms_site_apply(sys, c, NULL, &r)); /* leave: nothing asked */
	CHECK_EQ_U64(r.pages, 0);

	/* the re-measure: the same threads now read site 0's blocks on node 1 */
	struct site_rep y;
	memset(&y, 0, sizeof(y));
	site_samples(&y, 0, &site_blocks[0], 80, 1, 1);
	site_samples(&y, 1, &site_blocks[1], 40, 1, 1);
	site_samples(&y, 0, &site_blocks[4], 7, 0, 1); /* E: not site 0's sampled blocks */
	struct pms_advice_range m;
	pms_site_measure(a, &y.r, &m);
	CHECK_EQ_U64(m.samples, 80);
	CHECK_EQ_U64(m.remote, 0);
	CHECK(m.nmems == 1 && m.mems[0].node == 1 && m.remote_hi < 0.1);
	pms_advice_range_release(&m);
	pms_site_plan_free(p);
	pms_sys_free(sys);
	fk_free(fk);
}

/* Threads of two nodes share a site's blocks: interleave them. */
/* 34 local samples: the interval's upper bound is above 10 %, but nothing
 * was remote: left, never "move to the node it is on" (seen live). */
PMS_TEST(site_advice_leaves_local_site_with_few_samples)
{
	struct site_rep x;
	memset(&x, 0, sizeof(x));
	site_samples(&x, 0, &site_blocks[0], 34, 0, 0);
	int calls = 0;
	struct pms_site_plan *p = NULL;
	CHECK_OK(pms_site_plan_new(&x.r, x.site, x.r.nall, site_lookup, &calls, NULL, &p));
	CHECK(p && p->nitems == 1);
	if (p && p->nitems == 1) {
		CHECK(p->items[0].remote_hi >= 0.10);
		CHECK_EQ_INT(p->items[0].action, PMS_ADVICE_LEAVE);
		CHECK(strstr(p->items[0].reason, "already local") != NULL);
	}
	pms_site_plan_free(p);
}

PMS_TEST(site_advice_interleaves_shared_site)
{
	struct site_rep x;
	memset(&x, 0, sizeof(x));
	site_samples(&x, 0, &site_blocks[0], 60, 0, 0);
	site_samples(&x, 0, &site_blocks[0], 60, 0, 1);
	int calls = 0;
	struct pms_site_plan *p = NULL;
	CHECK_OK(pms_site_plan_new(&x.r, x.site, x.r.nall, site_lookup, &calls, NULL, &p));
	CHECK(p && p->nitems == 1);
	if (p && p->nitems == 1) {
		const struct pms_site_advice *a = &p->items[0];
		CHECK_EQ_INT(a->action, PMS_ADVICE_INTERLEAVE);
		CHECK(a->nnodes == 2 && a->nodes[0] == 0 && a->nodes[1] == 1);
		CHECK(fabs(a->remote_share - 0.5) < 1e-9 && a->from_node == 1);
	}
	CHECK(calls == 120);
	pms_site_plan_free(p);
}

PMS_TEST(action_names)
{
	CHECK_EQ_STR(pms_advice_action_name(PMS_ADVICE_LEAVE), "leave");
	CHECK_EQ_STR(pms_advice_action_name(PMS_ADVICE_MOVE), "move");
	CHECK_EQ_STR(pms_advice_action_name(PMS_ADVICE_INTERLEAVE), "interleave");
	CHECK_EQ_STR(pms_advice_action_name(PMS_ADVICE_MOVE_THREADS), "move-threads");
	CHECK_EQ_STR(pms_advice_action_name((enum pms_advice_action)99), "?");
}

PMS_TEST_MAIN()
