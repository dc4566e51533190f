/* The address -> node oracle on the fake kernel (batching, caching,
 * negative statuses, invalidation, verify) and on this kernel. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "fake_kernel.h"
#include "pmuscope/error.h"
#include "pmuscope/numa.h"

static struct pms_sys *fake_sys(struct fk *fk)
{
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	o.ops = fk_ops(fk);
	CHECK_OK(pms_sys_new(&sys, &o));
	return sys;
}

#define BASE 0x7f0000000000ULL

PMS_TEST(batches_unique_pages_one_call_per_512)
{
	struct fk *fk = fk_new();
	struct pms_sys *sys = fake_sys(fk);
	struct pms_numa_opts no = PMS_NUMA_OPTS_INIT;
	struct pms_numa_oracle *o = NULL;
	no.pid = 1234;
	CHECK_OK(pms_numa_oracle_new(sys, NULL, &no, &o));
	/* 1200 pages on nodes 0..3; each sampled 3 times at different offsets. */
	enum { NP = 1200, NS = NP * 3 };
	for (int p = 0; p < NP; p++)
		fk_set_page(fk, BASE + (uint64_t)p * 4096, p % 4);
	uint64_t *addrs = calloc(NS, sizeof(*addrs));
	int *nodes = calloc(NS, sizeof(*nodes));
	for (int i = 0; i < NS; i++)
		addrs[i] = BASE + (uint64_t)(i % NP) * 4096 + (uint64_t)(i / NP) * 64 + 8;
	int calls = pms_numa_oracle_resolve(o, addrs, NS, nodes);
	CHECK_EQ_INT(calls, 3); /* ceil(1200 / 512) */
	CHECK_EQ_INT((int)fk->move_pages_calls, 3);
	int bad = 0;
	for (int i = 0; i < NS; i++)
		bad += nodes[i] != (i % NP) % 4;
	CHECK_EQ_INT(bad, 0);
	/* Second drain over the same pages: all from the cache, no syscall. */
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, addrs, NS, nodes), 0);
	CHECK_EQ_INT((int)fk->move_pages_calls, 3);
	struct pms_numa_stats st;
	pms_numa_oracle_stats(o, &st);
	CHECK_EQ_U64(st.lookups, 2 * NS);
	CHECK_EQ_U64(st.pages_queried, NP);
	CHECK_EQ_U64(st.cache_hits, NS); /* second pass only: duplicates in a pass are pending, not cached */
	CHECK_EQ_U64(st.resolved, 2 * NS);
	CHECK_EQ_U64(st.cached, NP);
	CHECK_EQ_INT(pms_numa_oracle_cached(o, BASE + 5 * 4096 + 100), 1);
	/* another process: the cache is dropped, its pages are asked again */
	pms_numa_oracle_set_pid(o, 4321);
	CHECK_EQ_INT(pms_numa_oracle_cached(o, BASE + 5 * 4096 + 100), PMS_NODE_UNKNOWN);
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, addrs, NP, nodes), 3);
	CHECK_EQ_INT((int)fk->move_pages_calls, 6);
	free(addrs);
	free(nodes);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
	fk_free(fk);
}

PMS_TEST(negative_status_kept_counted_not_cached)
{
	struct fk *fk = fk_new();
	struct pms_sys *sys = fake_sys(fk);
	struct pms_numa_oracle *o = NULL;
	CHECK_OK(pms_numa_oracle_new(sys, NULL, NULL, &o));
	fk_set_page(fk, BASE, 1);
	fk_set_page(fk, BASE + 4096, -ENOENT);
	/* BASE + 8192 is unknown to the fake: -EFAULT. */
	uint64_t a[4] = { BASE + 1, BASE + 4096 + 2, BASE + 8192 + 3, BASE + 9 };
	int n[4];
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, a, 4, n), 1);
	CHECK_EQ_INT(n[0], 1);
	CHECK_EQ_INT(n[1], -ENOENT);
	CHECK_EQ_INT(n[2], -EFAULT);
	CHECK_EQ_INT(n[3], 1);
	struct pms_numa_stats st;
	pms_numa_oracle_stats(o, &st);
	CHECK_EQ_U64(st.resolved, 2);
	CHECK_EQ_U64(st.enoent, 1);
	CHECK_EQ_U64(st.efault, 1);
	CHECK_EQ_U64(st.cached, 1);
	/* The not-present page gets faulted in: asked again, now a node. */
	fk_set_page(fk, BASE + 4096, 2);
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, a, 4, n), 1);
	CHECK_EQ_INT(n[1], 2);
	CHECK_EQ_INT(n[2], -EFAULT);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
	fk_free(fk);
}

PMS_TEST(invalidate_range_and_all)
{
	struct fk *fk = fk_new();
	struct pms_sys *sys = fake_sys(fk);
	struct pms_numa_oracle *o = NULL;
	CHECK_OK(pms_numa_oracle_new(sys, NULL, NULL, &o));
	uint64_t a[8];
	int n[8];
	for (int i = 0; i < 8; i++) {
		fk_set_page(fk, BASE + (uint64_t)i * 4096, 0);
		a[i] = BASE + (uint64_t)i * 4096;
	}
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, a, 8, n), 1);
	/* Pages 2..4 remapped (migrated to node 3 behind our back). */
	for (int i = 2; i < 5; i++)
		fk_set_page(fk, a[i], 3);
	pms_numa_oracle_invalidate(o, a[2] + 100, 3 * 4096 - 200);
	CHECK_EQ_INT(pms_numa_oracle_cached(o, a[1]), 0);
	CHECK_EQ_INT(pms_numa_oracle_cached(o, a[2]), PMS_NODE_UNKNOWN);
	CHECK_EQ_INT(pms_numa_oracle_cached(o, a[4]), PMS_NODE_UNKNOWN);
	CHECK_EQ_INT(pms_numa_oracle_cached(o, a[5]), 0);
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, a, 8, n), 1);
	CHECK_EQ_INT(n[3], 3);
	CHECK_EQ_INT(n[5], 0);
	struct pms_numa_stats st;
	pms_numa_oracle_stats(o, &st);
	CHECK_EQ_U64(st.pages_queried, 8 + 3);
	pms_numa_oracle_invalidate(o, 0, 0); /* EXIT */
	CHECK_EQ_INT(pms_numa_oracle_cached(o, a[0]), PMS_NODE_UNKNOWN);
	pms_numa_oracle_stats(o, &st);
	CHECK_EQ_U64(st.cached, 0);
	CHECK_EQ_U64(st.invalidations, 3 + 8);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
	fk_free(fk);
}

/* get_mempolicy that disagrees on one page, to see the counter move. */
static const struct pms_sys_ops *inner;
static long liar_gmp(void *ud, int *mode, unsigned long *nm, unsigned long maxnode,
		     void *addr, unsigned long flags)
{
	long r = inner->get_mempolicy(ud, mode, nm, maxnode, addr, flags);
	if (r == 0 && (uint64_t)(uintptr_t)addr == BASE + 4096)
		*mode = 7;
	return r;
}

PMS_TEST(verify_counts_disagreements_for_the_caller_only)
{
	struct fk *fk = fk_new();
	inner = fk_ops(fk);
	struct pms_sys_ops ops = *inner;
	ops.get_mempolicy = liar_gmp;
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	so.ops = &ops;
	struct pms_sys *sys = NULL;
	CHECK_OK(pms_sys_new(&sys, &so));
	for (int i = 0; i < 4; i++)
		fk_set_page(fk, BASE + (uint64_t)i * 4096, 1);
	uint64_t a[4] = { BASE, BASE + 4096, BASE + 8192, BASE + 12288 };
	int n[4];
	struct pms_numa_opts no = PMS_NUMA_OPTS_INIT;
	no.verify = true;
	struct pms_numa_oracle *o = NULL;
	CHECK_OK(pms_numa_oracle_new(sys, NULL, &no, &o));
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, a, 4, n), 1);
	struct pms_numa_stats st;
	pms_numa_oracle_stats(o, &st);
	CHECK_EQ_U64(st.verify_checked, 4);
	CHECK_EQ_U64(st.verify_disagree, 1);
	CHECK_EQ_INT(n[1], 1); /* move_pages' answer is kept */
	pms_numa_oracle_free(o);
	/* Another process: get_mempolicy cannot answer for it, nothing checked. */
	no.pid = 4321;
	CHECK_OK(pms_numa_oracle_new(sys, NULL, &no, &o));
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, a, 4, n), 1);
	pms_numa_oracle_stats(o, &st);
	CHECK_EQ_U64(st.verify_checked, 0);
	CHECK_EQ_INT((int)fk->get_mempolicy_calls, 4);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
	fk_free(fk);
}

/* Retries: a call failing whole with a transient errno is made again
 * once (a lasting one, ESRCH, is not); a page answering a status a query
 * never gives (mm/migrate.c do_pages_stat_array: a node, -ENOENT, -EFAULT)
 * is asked once more; not-present and unmapped pages are answers, never
 * asked again in the same call. */
PMS_TEST(transient_failures_retried_once)
{
	struct fk *fk = fk_new();
	struct pms_sys *sys = fake_sys(fk);
	struct pms_numa_oracle *o = NULL;
	CHECK_OK(pms_numa_oracle_new(sys, NULL, NULL, &o));
	fk_set_page(fk, BASE, 1);
	fk_set_page(fk, BASE + 4096, -ENOENT);
	fk_set_page(fk, BASE + 2 * 4096, 0);
	uint64_t a[4] = { BASE + 1, BASE + 4096 + 2, BASE + 8192 + 3, BASE + 3 * 4096 };
	int n[4];
	/* one EINTR: the call is made again and answers */
	fk->query_fail_errno = EINTR;
	fk->query_fail_calls = 1;
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, a, 4, n), 2);
	CHECK_EQ_INT((int)fk->move_pages_calls, 2);
	CHECK_EQ_INT(n[0], 1);
	CHECK_EQ_INT(n[1], -ENOENT);
	CHECK_EQ_INT(n[2], 0);
	CHECK_EQ_INT(n[3], -EFAULT);
	struct pms_numa_stats st;
	pms_numa_oracle_stats(o, &st);
	CHECK_EQ_U64(st.retried_calls, 1);
	CHECK_EQ_U64(st.call_errors, 0);
	CHECK_EQ_U64(st.retried_pages, 0); /* -ENOENT, -EFAULT: answers */
	pms_numa_oracle_free(o);

	/* two EAGAINs: retried once, then the call's error for every page */
	CHECK_OK(pms_numa_oracle_new(sys, NULL, NULL, &o));
	long before = fk->move_pages_calls;
	fk->query_fail_errno = EAGAIN;
	fk->query_fail_calls = 2;
	CHECK(pms_numa_oracle_resolve(o, a, 4, n) < 0);
	CHECK_EQ_INT((int)(fk->move_pages_calls - before), 2);
	CHECK_EQ_INT(n[0], -EAGAIN);
	pms_numa_oracle_stats(o, &st);
	CHECK_EQ_U64(st.retried_calls, 1);
	CHECK_EQ_U64(st.call_errors, 1);
	CHECK_EQ_U64(st.cached, 0);
	/* ESRCH (the process is gone) is not retried */
	before = fk->move_pages_calls;
	fk->query_fail_errno = ESRCH;
	fk->query_fail_calls = 1;
	CHECK(pms_numa_oracle_resolve(o, a, 4, n) < 0);
	CHECK_EQ_INT((int)(fk->move_pages_calls - before), 1);
	CHECK_EQ_INT(n[0], -ESRCH);
	pms_numa_oracle_free(o);

	/* a page that answers -EBUSY once: asked again alone, its node then */
	CHECK_OK(pms_numa_oracle_new(sys, NULL, NULL, &o));
	before = fk->move_pages_calls;
	fk->flaky_page = BASE + 2 * 4096;
	fk->flaky_status = -EBUSY;
	fk->flaky_left = 1;
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, a, 4, n), 2);
	CHECK_EQ_INT((int)(fk->move_pages_calls - before), 2);
	CHECK_EQ_INT(n[2], 0);
	CHECK_EQ_INT(n[1], -ENOENT);
	pms_numa_oracle_stats(o, &st);
	CHECK_EQ_U64(st.retried_pages, 1);
	CHECK_EQ_U64(st.retry_answered, 1);
	CHECK_EQ_U64(st.other_errors, 0);
	/* ... and one that keeps answering it: asked once more, then kept as
	 * an error (not cached) */
	fk->flaky_page = BASE;
	fk->flaky_left = 5;
	pms_numa_oracle_invalidate(o, 0, 0);
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, a, 4, n), 2);
	CHECK_EQ_INT(n[0], -EBUSY);
	CHECK_EQ_INT(fk->flaky_left, 3);
	pms_numa_oracle_stats(o, &st);
	CHECK_EQ_U64(st.retried_pages, 2);
	CHECK_EQ_U64(st.retry_answered, 1);
	CHECK_EQ_U64(st.other_errors, 1);
	fk->flaky_left = 0;
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
	fk_free(fk);
}

PMS_TEST(real_kernel_own_pages)
{
	struct pms_sys *sys = NULL;
	CHECK_OK(pms_sys_new(&sys, NULL));
	long psz = sysconf(_SC_PAGESIZE);
	size_t np = 600;
	unsigned char *buf = mmap(NULL, np * (size_t)psz, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(buf != MAP_FAILED);
	if (buf == MAP_FAILED)
		return;
	/* Touch all but the last page; unmap a hole to get -EFAULT. */
	for (size_t i = 0; i + 1 < np; i++)
		buf[i * (size_t)psz] = 1;
	unsigned char *hole = mmap(NULL, (size_t)psz, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(hole, (size_t)psz);
	uint64_t *a = calloc(np + 1, sizeof(*a));
	int *n = calloc(np + 1, sizeof(*n));
	for (size_t i = 0; i < np; i++)
		a[i] = (uint64_t)(uintptr_t)(buf + i * (size_t)psz + 17);
	a[np] = (uint64_t)(uintptr_t)hole;
	struct pms_numa_opts no = PMS_NUMA_OPTS_INIT;
	no.verify = true;
	no.page_size = (size_t)psz;
	struct pms_numa_oracle *o = NULL;
	CHECK_OK(pms_numa_oracle_new(sys, NULL, &no, &o));
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, a, np + 1, n), 2);
	int bad = 0;
	for (size_t i = 0; i + 1 < np; i++)
		bad += n[i] < 0;
	CHECK_EQ_INT(bad, 0);
	/* Mapped, never touched: -ENOENT (mm/migrate.c: no page). */
	CHECK_EQ_INT(n[np - 1], -ENOENT);
	CHECK_EQ_INT(n[np], -EFAULT);
	struct pms_numa_stats st;
	pms_numa_oracle_stats(o, &st);
	CHECK_EQ_U64(st.verify_checked, np - 1);
	CHECK_EQ_U64(st.verify_disagree, 0);
	CHECK_EQ_U64(st.verify_errors, 0);
	CHECK_EQ_U64(st.efault, 1);
	CHECK_EQ_U64(st.enoent, 1);
	free(a);
	free(n);
	munmap(buf, np * (size_t)psz);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
}

PMS_TEST(phys_through_memory_blocks)
{
	struct pms_sys *sys = NULL;
	struct pms_topo *topo = NULL;
	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK_OK(pms_topo_load(sys, &topo));
	size_t nn = pms_topo_node_count(topo);
	if (pms_topo_mem_block_size(topo) && nn && pms_topo_node_at(topo, 0)->nmem_blocks) {
		const struct pms_topo_node *nd = pms_topo_node_at(topo, nn - 1);
		uint64_t pa = nd->mem_blocks[0] * pms_topo_mem_block_size(topo) + 4096;
		CHECK_EQ_INT(pms_numa_node_of_phys(topo, pa), nd->id);
	}
	CHECK(pms_numa_node_of_phys(NULL, 0) == PMS_EINVAL);
	pms_topo_free(topo);
	pms_sys_free(sys);
}

/* A kernel whose processes hold different pages: pid 100 has every page on
 * node page % 2, pid 200 on node 3, any other pid is gone (-ESRCH).  It
 * also checks that every call's pages come in address order. */
static long calls_by_pid[2], unsorted_calls;
static long per_pid_move_pages(void *ud, int pid, unsigned long count, void **pages,
			       const int *nodes, int *status, int flags)
{
	(void)ud;
	(void)nodes;
	(void)flags;
	if (pid != 100 && pid != 200)
		return -ESRCH;
	calls_by_pid[pid == 200]++;
	for (unsigned long i = 0; i < count; i++) {
		uint64_t a = (uint64_t)(uintptr_t)pages[i];
		if (i && a <= (uint64_t)(uintptr_t)pages[i - 1])
			unsorted_calls++;
		status[i] = pid == 100 ? (int)((a / 4096) % 2) : 3;
	}
	return 0;
}

PMS_TEST(one_oracle_many_processes)
{
	struct pms_sys_ops ops = *pms_sys_real_ops();
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	struct pms_sys *sys = NULL;
	struct pms_numa_oracle *o = NULL;
	ops.move_pages = per_pid_move_pages;
	so.ops = &ops;
	CHECK_OK(pms_sys_new(&sys, &so));
	CHECK_OK(pms_numa_oracle_new(sys, NULL, NULL, &o));
	enum { N = 2000 };
	uint64_t *a = calloc(N, sizeof(*a));
	int *n = calloc(N, sizeof(*n));
	/* Random page order: the oracle sorts each batch. */
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		a[i] = BASE + (x % 5000) * 4096 + (x >> 40) % 4096;
	}
	CHECK(pms_numa_oracle_resolve_pid(o, 100, a, N, n) > 0);
	int bad = 0;
	for (int i = 0; i < N; i++)
		bad += n[i] != (int)((a[i] / 4096) % 2);
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(unsorted_calls, 0);
	/* The same addresses in another process: their own nodes, not the
	 * first process's cached ones. */
	CHECK(pms_numa_oracle_resolve_pid(o, 200, a, N, n) > 0);
	bad = 0;
	for (int i = 0; i < N; i++)
		bad += n[i] != 3;
	CHECK_EQ_INT(bad, 0);
	long before = calls_by_pid[0] + calls_by_pid[1];
	CHECK_EQ_INT(pms_numa_oracle_resolve_pid(o, 100, a, N, n), 0); /* all cached */
	CHECK_EQ_INT(pms_numa_oracle_resolve_pid(o, 200, a, N, n), 0);
	CHECK_EQ_INT(calls_by_pid[0] + calls_by_pid[1], before);
	/* pid 100 exits: only its pages are dropped. */
	pms_numa_oracle_invalidate_pid(o, 100, 0, 0);
	CHECK_EQ_INT(pms_numa_oracle_resolve_pid(o, 200, a, N, n), 0);
	CHECK(pms_numa_oracle_resolve_pid(o, 100, a, N, n) > 0);
	/* A range of pid 200 only. */
	pms_numa_oracle_invalidate_pid(o, 200, BASE, 4096);
	CHECK_EQ_INT(pms_numa_oracle_resolve_pid(o, 100, a, N, n), 0);
	/* Many small ranges of pid 200 (deleted in place, not by a rebuild):
	 * exactly their pages are asked again, every other page of both
	 * processes stays cached. */
	CHECK(pms_numa_oracle_resolve_pid(o, 200, a, N, n) >= 0); /* refill */
	{
		static bool gone[5000];
		int ngone = 0;
		for (int r = 0; r < 60; r++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			uint64_t first = x % 5000, len = 1 + (x >> 32) % 8;
			pms_numa_oracle_invalidate_pid(o, 200, BASE + first * 4096 + 17,
						       len * 4096 - 34);
			for (uint64_t k = first; k < first + len && k < 5000; k++)
				gone[k] = true;
		}
		static bool seen[5000];
		for (int i = 0; i < N; i++) {
			uint64_t k = (a[i] - BASE) / 4096;
			if (gone[k] && !seen[k]) {
				seen[k] = true;
				ngone++;
			}
		}
		struct pms_numa_stats s0, s1;
		pms_numa_oracle_stats(o, &s0);
		CHECK_EQ_INT(pms_numa_oracle_resolve_pid(o, 100, a, N, n), 0);
		CHECK(ngone > 0);
		CHECK(pms_numa_oracle_resolve_pid(o, 200, a, N, n) > 0);
		pms_numa_oracle_stats(o, &s1);
		CHECK_EQ_U64(s1.pages_queried - s0.pages_queried, (uint64_t)ngone);
		bad = 0;
		for (int i = 0; i < N; i++)
			bad += n[i] != 3;
		CHECK_EQ_INT(bad, 0);
	}
	/* A process that is gone: every lookup says so, nothing cached. */
	uint64_t g = BASE;
	int gn;
	CHECK(pms_numa_oracle_resolve_pid(o, 300, &g, 1, &gn) < 0);
	CHECK_EQ_INT(gn, -ESRCH);
	free(a);
	free(n);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
}

/* A kernel by rule, for the cache's corners: pids 100, 200 and 300 exist
 * (others -ESRCH, mm/migrate.c find_mm_struct); a page's status is its
 * node, (page + pid) % 4, except for a few pages whose status does not fit
 * a cached value: NODE_BIG (a node id beyond any MAX_NUMNODES, include/
 * linux/numa.h) and STATUS_ODD (a negative status that is no errno), and
 * ENOENT_PAGE (-ENOENT, not present).  It counts the asks of each page
 * below BASE + RULE_PAGES pages, per pid. */
enum { RULE_PAGES = 8192, NODE_BIG = 3000, STATUS_ODD = -3000 };
#define BIG_PAGE (BASE + 77 * 4096ULL)
#define ODD_PAGE (BASE + 78 * 4096ULL)
#define ENOENT_PAGE (BASE + 79 * 4096ULL)
#define KERNEL_ADDR 0xffff888000123000ULL
static unsigned asked[3][RULE_PAGES];
static unsigned asked_low, asked_kernel;
static long rule_calls;

static int rule_status(int pid, uint64_t page)
{
	if (page == BIG_PAGE)
		return NODE_BIG;
	if (page == ODD_PAGE)
		return STATUS_ODD;
	if (page == ENOENT_PAGE)
		return -ENOENT;
	return (int)((page / 4096 + (uint64_t)pid) % 4);
}

static long rule_move_pages(void *ud, int pid, unsigned long count, void **pages,
			    const int *nodes, int *status, int flags)
{
	(void)ud;
	(void)nodes;
	(void)flags;
	if (pid != 100 && pid != 200 && pid != 300)
		return -ESRCH;
	rule_calls++;
	for (unsigned long i = 0; i < count; i++) {
		uint64_t a = (uint64_t)(uintptr_t)pages[i];
		status[i] = rule_status(pid, a);
		if (a >= BASE && (a - BASE) / 4096 < RULE_PAGES)
			asked[pid / 100 - 1][(a - BASE) / 4096]++;
		else if (a < 65536)
			asked_low++;
		else if (a == KERNEL_ADDR)
			asked_kernel++;
	}
	return 0;
}

static struct pms_sys *rule_sys(void)
{
	static struct pms_sys_ops ops;
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	struct pms_sys *sys = NULL;
	ops = *pms_sys_real_ops();
	ops.move_pages = rule_move_pages;
	so.ops = &ops;
	memset(asked, 0, sizeof(asked));
	asked_low = asked_kernel = 0;
	rule_calls = 0;
	CHECK_OK(pms_sys_new(&sys, &so));
	return sys;
}

PMS_TEST(statuses_that_do_not_fit_are_answered_not_cached)
{
	struct pms_sys *sys = rule_sys();
	struct pms_numa_oracle *o = NULL;
	struct pms_numa_opts no = PMS_NUMA_OPTS_INIT;
	no.pid = 100;
	CHECK_OK(pms_numa_oracle_new(sys, NULL, &no, &o));
	/* the odd pages twice each, the NULL page, a kernel-half address,
	 * both sides of a region boundary (256 pages: a multiple of any
	 * region size up to 1 MiB of 4 KiB pages) */
	uint64_t a[] = { BIG_PAGE + 8, ODD_PAGE + 16, ENOENT_PAGE, BIG_PAGE + 24, 8,
			 KERNEL_ADDR + 5, BASE + 255 * 4096 + 1, BASE + 256 * 4096 + 2, ODD_PAGE,
			 BASE + 255 * 4096 + 3 };
	enum { N = sizeof(a) / sizeof(a[0]) };
	int want[N], n[N];
	for (int i = 0; i < N; i++)
		want[i] = rule_status(100, a[i] & ~4095ULL);
	for (int round = 0; round < 2; round++) {
		/* the batch, then the odd page asked once more (no errno: not
		 * an answer a query gives) */
		CHECK_EQ_INT(pms_numa_oracle_resolve(o, a, N, n), 2);
		int bad = 0;
		for (int i = 0; i < N; i++)
			bad += n[i] != want[i];
		CHECK_EQ_INT(bad, 0);
	}
	CHECK_EQ_INT(n[0], NODE_BIG);
	CHECK_EQ_INT(n[1], STATUS_ODD);
	/* Asked once: the pages with a node that fits; twice: the rest
	 * (each once a round, duplicates in a round asked once), and the
	 * odd page twice a round (its retry). */
	CHECK_EQ_INT((int)asked[0][255], 1);
	CHECK_EQ_INT((int)asked[0][256], 1);
	CHECK_EQ_INT((int)asked_low, 1);
	CHECK_EQ_INT((int)asked_kernel, 1);
	CHECK_EQ_INT((int)asked[0][77], 2);
	CHECK_EQ_INT((int)asked[0][78], 4);
	CHECK_EQ_INT((int)asked[0][79], 2);
	struct pms_numa_stats st;
	pms_numa_oracle_stats(o, &st);
	CHECK_EQ_U64(st.cached, 4);
	CHECK_EQ_U64(st.pages_queried, 7 + 3);
	CHECK_EQ_U64(st.enoent, 2);
	CHECK_EQ_U64(st.other_errors, 4); /* STATUS_ODD, twice a round */
	CHECK_EQ_U64(st.retried_pages, 2); /* ... asked again once a round */
	CHECK_EQ_U64(st.retry_answered, 0);
	CHECK_EQ_INT(pms_numa_oracle_cached(o, 8), rule_status(100, 0));
	CHECK_EQ_INT(pms_numa_oracle_cached(o, KERNEL_ADDR), rule_status(100, KERNEL_ADDR));
	CHECK_EQ_INT(pms_numa_oracle_cached(o, BIG_PAGE), PMS_NODE_UNKNOWN);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
}

/* Resolve every page of [first, last) of pid, each address twice. */
static void fill(struct pms_numa_oracle *o, pid_t pid, int first, int last)
{
	int cnt = 2 * (last - first);
	uint64_t *a = calloc((size_t)cnt, sizeof(*a));
	int *n = calloc((size_t)cnt, sizeof(*n));
	for (int i = 0; i < cnt; i++)
		a[i] = BASE + (uint64_t)(first + i % (last - first)) * 4096 + (uint64_t)i % 4096;
	CHECK(pms_numa_oracle_resolve_pid(o, pid, a, (size_t)cnt, n) >= 0);
	int bad = 0;
	for (int i = 0; i < cnt; i++)
		bad += n[i] != rule_status(pid, a[i] & ~4095ULL);
	CHECK_EQ_INT(bad, 0);
	free(a);
	free(n);
}

static unsigned asks(int pid, int first, int last)
{
	unsigned t = 0;
	for (int k = first; k < last; k++)
		t += asked[pid / 100 - 1][k];
	return t;
}

PMS_TEST(exit_drops_one_process_only)
{
	struct pms_sys *sys = rule_sys();
	struct pms_numa_oracle *o = NULL;
	CHECK_OK(pms_numa_oracle_new(sys, NULL, NULL, &o));
	fill(o, 100, 0, 3000);
	fill(o, 200, 1000, 5000);
	fill(o, 300, 0, 10);
	struct pms_numa_stats s0, s1;
	pms_numa_oracle_stats(o, &s0);
	CHECK_EQ_U64(s0.cached, 3000 + 4000 + 10 - 3); /* pages 77-79 of pid 100 do not stay */
	/* pid 200 exits: exactly its pages go */
	pms_numa_oracle_invalidate_pid(o, 200, 0, 0);
	pms_numa_oracle_stats(o, &s1);
	CHECK_EQ_U64(s1.invalidations - s0.invalidations, 4000);
	CHECK_EQ_U64(s1.cached, s0.cached - 4000);
	/* a pid never seen, and the same exit again: nothing */
	pms_numa_oracle_invalidate_pid(o, 200, 0, 0);
	pms_numa_oracle_invalidate_pid(o, 4242, 0, 0);
	pms_numa_oracle_stats(o, &s0);
	CHECK_EQ_U64(s0.invalidations, s1.invalidations);
	/* the others are still cached; pid 200 is asked again, once a page */
	long calls = rule_calls;
	fill(o, 300, 0, 10);
	CHECK_EQ_INT((int)(rule_calls - calls), 0);
	fill(o, 100, 0, 77);
	fill(o, 100, 80, 3000);
	CHECK_EQ_INT((int)(rule_calls - calls), 0);
	fill(o, 200, 1000, 5000);
	CHECK_EQ_U64(asks(200, 1000, 5000), 2 * 4000);
	/* a new process under a pid gone before (exec, or pid reuse) gets
	 * its own answers: pid 300's pages dropped, asked again */
	pms_numa_oracle_invalidate_pid(o, 300, 0, 0);
	fill(o, 300, 0, 10);
	CHECK_EQ_U64(asks(300, 0, 10), 2 * 10);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
}

PMS_TEST(range_invalidation_small_and_large)
{
	struct pms_sys *sys = rule_sys();
	struct pms_numa_oracle *o = NULL;
	CHECK_OK(pms_numa_oracle_new(sys, NULL, NULL, &o));
	fill(o, 200, 0, 8000);
	fill(o, 100, 0, 8000);
	struct pms_numa_stats s0, s1;
	pms_numa_oracle_stats(o, &s0);
	/* two pages across a region boundary (the range's regions), then
	 * most of the process (one pass over its leaves) */
	pms_numa_oracle_invalidate_pid(o, 200, BASE + 255 * 4096 + 100, 4096);
	pms_numa_oracle_invalidate_pid(o, 200, BASE + 1000 * 4096, 6000 * 4096);
	pms_numa_oracle_stats(o, &s1);
	CHECK_EQ_U64(s1.invalidations - s0.invalidations, 2 + 6000);
	memset(asked, 0, sizeof(asked));
	fill(o, 200, 0, 8000);
	fill(o, 100, 0, 8000);
	CHECK_EQ_U64(asks(200, 255, 257), 2);
	CHECK_EQ_U64(asks(200, 0, 255), 4); /* its odd pages, never cached (ODD_PAGE twice) */
	CHECK_EQ_U64(asks(200, 257, 1000), 0);
	CHECK_EQ_U64(asks(200, 1000, 7000), 6000);
	CHECK_EQ_U64(asks(200, 7000, 8000), 0);
	CHECK_EQ_U64(asks(100, 0, 8000), 4); /* its odd pages only */
	/* every process, a range reaching the top of the address space */
	pms_numa_oracle_invalidate(o, BASE + 7990 * 4096, UINT64_MAX - (BASE + 7990 * 4096) + 1);
	memset(asked, 0, sizeof(asked));
	fill(o, 200, 0, 8000);
	fill(o, 100, 0, 8000);
	CHECK_EQ_U64(asks(200, 0, 8000), 4 + 10);
	CHECK_EQ_U64(asks(100, 0, 8000), 4 + 10);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
}

PMS_TEST(large_pages_and_bad_page_size)
{
	struct pms_sys *sys = rule_sys();
	struct pms_numa_oracle *o = NULL;
	struct pms_numa_opts no = PMS_NUMA_OPTS_INIT;
	no.page_size = 65536; /* arm64 with 64 KiB pages */
	no.pid = 300;
	CHECK_OK(pms_numa_oracle_new(sys, NULL, &no, &o));
	uint64_t a[3] = { BASE + 65536 + 4096, BASE + 65536 + 60000, BASE + 131072 };
	int n[3];
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, a, 3, n), 1);
	CHECK_EQ_INT(n[0], rule_status(300, BASE + 65536));
	CHECK_EQ_INT(n[1], n[0]);
	CHECK_EQ_INT(n[2], rule_status(300, BASE + 131072));
	CHECK_EQ_U64(asks(300, 0, 64), 2); /* one ask a 64 KiB page */
	pms_numa_oracle_free(o);
	no.page_size = 12288;
	CHECK(pms_numa_oracle_new(sys, NULL, &no, &o) == PMS_EINVAL);
	CHECK(o == NULL);
	pms_sys_free(sys);
}

/* A kernel for many regions at once, by mm/migrate.c do_pages_stat_array():
 * a page inside the one mapping (SPAN_PAGES from BASE; vma_lookup finds
 * it) has node page % 5, except every 97th page, which is not present
 * (folio_walk_start finds no folio: -ENOENT); a page outside it has no VMA
 * (-EFAULT).  It counts the asks of each page of the mapping, and the
 * calls whose pages are out of address order or more than 512. */
enum { SPAN_PAGES = 3000 * 256 };
static unsigned char *span_asked;
static long span_calls, span_unsorted, span_big;

static int span_status(uint64_t addr)
{
	if (addr < BASE || (addr - BASE) / 4096 >= SPAN_PAGES)
		return -EFAULT;
	uint64_t pg = (addr - BASE) / 4096;
	return pg % 97 == 0 ? -ENOENT : (int)(pg % 5);
}

static long span_move_pages(void *ud, int pid, unsigned long count, void **pages,
			    const int *nodes, int *status, int flags)
{
	(void)ud;
	(void)pid;
	(void)nodes;
	(void)flags;
	span_calls++;
	span_big += count > 512;
	for (unsigned long i = 0; i < count; i++) {
		uint64_t a = (uint64_t)(uintptr_t)pages[i];
		if (i && a <= (uint64_t)(uintptr_t)pages[i - 1])
			span_unsorted++;
		status[i] = span_status(a);
		if (a >= BASE && (a - BASE) / 4096 < SPAN_PAGES && span_asked[(a - BASE) / 4096] < 255)
			span_asked[(a - BASE) / 4096]++;
	}
	return 0;
}

static int u64_cmp(const void *p, const void *q)
{
	uint64_t x = *(const uint64_t *)p, y = *(const uint64_t *)q;
	return x < y ? -1 : x > y;
}

/* One call whose misses open 3000 regions (the region table grows and new
 * leaf chunks are made while the pages seen before are pending), every
 * page three times in random order, some pages not present, a few outside
 * the mapping; then the same addresses in address order (no sort needed). */
PMS_TEST(many_new_regions_in_one_call)
{
	static struct pms_sys_ops ops;
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	struct pms_sys *sys = NULL;
	ops = *pms_sys_real_ops();
	ops.move_pages = span_move_pages;
	so.ops = &ops;
	CHECK_OK(pms_sys_new(&sys, &so));
	span_asked = calloc(SPAN_PAGES, 1);
	span_calls = span_unsorted = span_big = 0;
	enum { R = 3000, OUT = 10, NP = R + OUT, N = 3 * NP };
	uint64_t *a = calloc(N, sizeof(*a));
	int *n = calloc(N, sizeof(*n));
	/* region r's page: r * 256 + r % 256 (some multiples of 97 among
	 * them); OUT pages beyond the mapping */
	for (int i = 0; i < N; i++) {
		int k = i % NP;
		uint64_t pg = k < R ? (uint64_t)k * 256 + (uint64_t)(k % 256)
				    : (uint64_t)SPAN_PAGES + (uint64_t)k * 300;
		a[i] = BASE + pg * 4096 + (uint64_t)(i / NP) * 1000;
	}
	uint64_t x = 0x2545F4914F6CDD1DULL;
	for (int i = N - 1; i > 0; i--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int j = (int)(x % (uint64_t)(i + 1));
		uint64_t t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
	int absent = 0;
	for (int k = 0; k < R; k++)
		absent += ((uint64_t)k * 256 + (uint64_t)(k % 256)) % 97 == 0;
	CHECK(absent > 0);
	struct pms_numa_oracle *o = NULL;
	CHECK_OK(pms_numa_oracle_new(sys, NULL, NULL, &o));
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, a, N, n), (NP + 511) / 512);
	int bad = 0;
	for (int i = 0; i < N; i++)
		bad += n[i] != span_status(a[i] & ~4095ULL);
	CHECK_EQ_INT(bad, 0);
	unsigned asked_twice = 0, asked_once = 0;
	for (int k = 0; k < R; k++) {
		unsigned c = span_asked[(size_t)k * 256 + (size_t)(k % 256)];
		asked_once += c == 1;
		asked_twice += c > 1;
	}
	CHECK_EQ_INT((int)asked_once, R);
	CHECK_EQ_INT((int)asked_twice, 0);
	CHECK_EQ_INT((int)span_unsorted, 0);
	CHECK_EQ_INT((int)span_big, 0);
	struct pms_numa_stats st;
	pms_numa_oracle_stats(o, &st);
	CHECK_EQ_U64(st.pages_queried, NP);
	CHECK_EQ_U64(st.cached, (uint64_t)(R - absent));
	CHECK_EQ_U64(st.resolved, 3 * (uint64_t)(R - absent));
	CHECK_EQ_U64(st.enoent, 3 * (uint64_t)absent);
	CHECK_EQ_U64(st.efault, 3 * (uint64_t)OUT);
	/* Again in address order: only the pages without a node are asked. */
	qsort(a, N, sizeof(*a), u64_cmp);
	long calls0 = span_calls;
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, a, N, n), 1);
	CHECK_EQ_INT((int)(span_calls - calls0), 1);
	bad = 0;
	for (int i = 0; i < N; i++)
		bad += n[i] != span_status(a[i] & ~4095ULL);
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT((int)span_unsorted, 0);
	pms_numa_oracle_stats(o, &st);
	CHECK_EQ_U64(st.pages_queried, NP + (uint64_t)absent + OUT);
	CHECK_EQ_U64(st.cache_hits, 3 * (uint64_t)(R - absent));
	free(a);
	free(n);
	free(span_asked);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
}

PMS_TEST_MAIN()
