/* Address -> node oracle: batched move_pages(2) in query mode, a per-page
 * open-addressing cache, and memory-block lookup for physical addresses. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/numa.h"
#include "util/error.h"
#include "util/opts.h"

/* include/uapi/linux/mempolicy.h: get_mempolicy flags. */
#define MPOL_F_NODE_ (1u << 0)
#define MPOL_F_ADDR_ (1u << 1)

#define DEFAULT_BATCH 512

/* One cache slot: key is page number + 1 (0 = empty), of process pid. */
struct slot {
	uint64_t key;
	int node;
	pid_t pid;
};

struct table {
	struct slot *slots;
	size_t cap; /* power of two */
	size_t used;
};

struct pms_numa_oracle {
	struct pms_sys *sys;
	const struct pms_topo *topo;
	pid_t pid;
	size_t batch;
	uint64_t page_mask;
	unsigned page_shift;
	bool verify;
	struct table cache;
	struct pms_numa_stats st;
	/* scratch for one resolve call */
	struct table pending; /* page -> index into pages[] */
	void **pages;
	int *status;
	size_t scratch_cap;
};

static uint64_t mix(uint64_t k)
{
	/* splitmix64 finaliser: page numbers are sequential, spread them. */
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ULL;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebULL;
	k ^= k >> 31;
	return k;
}

static int table_init(struct table *t, size_t cap)
{
	t->slots = calloc(cap, sizeof(*t->slots));
	if (!t->slots)
		return pms_err(PMS_ENOMEM, "numa oracle: no memory for a %zu-slot page table", cap);
	t->cap = cap;
	t->used = 0;
	return 0;
}

static struct slot *table_find(const struct table *t, pid_t pid, uint64_t key)
{
	size_t m = t->cap - 1;
	for (size_t i = mix(key ^ ((uint64_t)(uint32_t)pid << 44)) & m;; i = (i + 1) & m) {
		struct slot *s = &t->slots[i];
		if ((s->key == key && s->pid == pid) || s->key == 0)
			return s;
	}
}

static size_t table_home(const struct table *t, pid_t pid, uint64_t key)
{
	return mix(key ^ ((uint64_t)(uint32_t)pid << 44)) & (t->cap - 1);
}

/* Remove the slot at i (linear probing, no tombstones): the entries after
 * it in its probe run move back where their home slot allows. */
static void table_del(struct table *t, size_t i)
{
	size_t m = t->cap - 1, j = i;
	for (;;) {
		j = (j + 1) & m;
		struct slot *s = &t->slots[j];
		if (!s->key)
			break;
		size_t k = table_home(t, s->pid, s->key);
		/* s may fill the hole at i when i lies cyclically in [k, j) */
		bool movable = i <= j ? (k <= i || k > j) : (k <= i && k > j);
		if (movable) {
			t->slots[i] = *s;
			i = j;
		}
	}
	memset(&t->slots[i], 0, sizeof(t->slots[i]));
	t->used--;
}

static int table_grow(struct table *t)
{
	struct table n;
	int rc = table_init(&n, t->cap * 2);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].key) {
			*table_find(&n, t->slots[i].pid, t->slots[i].key) = t->slots[i];
			n.used++;
		}
	free(t->slots);
	*t = n;
	return 0;
}

/* Insert or overwrite; keeps the load under one half. */
static int table_put(struct table *t, pid_t pid, uint64_t key, int val)
{
	struct slot *s = table_find(t, pid, key);
	if (s->key == 0) {
		if ((t->used + 1) * 2 > t->cap) {
			int rc = table_grow(t);
			if (rc < 0)
				return rc;
			s = table_find(t, pid, key);
		}
		s->key = key;
		s->pid = pid;
		t->used++;
	}
	s->node = val;
	return 0;
}

static void table_clear(struct table *t)
{
	memset(t->slots, 0, t->cap * sizeof(*t->slots));
	t->used = 0;
}

int pms_numa_oracle_new(struct pms_sys *sys, const struct pms_topo *topo,
			const struct pms_numa_opts *opts, struct pms_numa_oracle **out)
{
	struct pms_numa_opts def = PMS_NUMA_OPTS_INIT;
	struct pms_numa_oracle *o = NULL;
	int rc;

	if (out)
		*out = NULL;
	if (!sys || !out)
		return pms_err(PMS_EINVAL, "numa oracle: NULL sys or out");
	if (!opts)
		opts = &def;
	if ((rc = pms_opts_check("pms_numa_oracle_new", "PMS_NUMA_OPTS_INIT", opts->version,
				 PMS_NUMA_OPTS_VERSION)) < 0)
		return rc;
	size_t psz = opts->page_size ? opts->page_size : 4096;
	if (psz & (psz - 1))
		return pms_err(PMS_EINVAL, "numa oracle: page size %zu is not a power of two", psz);
	o = calloc(1, sizeof(*o));
	if (!o)
		return pms_err(PMS_ENOMEM, "numa oracle: no memory");
	o->sys = sys;
	o->topo = topo;
	o->pid = opts->pid;
	o->batch = opts->batch ? opts->batch : DEFAULT_BATCH;
	o->page_mask = ~(uint64_t)(psz - 1);
	while (((size_t)1 << o->page_shift) < psz)
		o->page_shift++;
	o->verify = opts->verify;
	rc = table_init(&o->cache, 4096);
	if (rc < 0)
		goto out;
	rc = table_init(&o->pending, 1024);
	if (rc < 0)
		goto out;
	*out = o;
	o = NULL;
out:
	pms_numa_oracle_free(o);
	return rc;
}

void pms_numa_oracle_free(struct pms_numa_oracle *o)
{
	if (!o)
		return;
	free(o->cache.slots);
	free(o->pending.slots);
	free(o->pages);
	free(o->status);
	free(o);
}

static int scratch_reserve(struct pms_numa_oracle *o, size_t n)
{
	if (n <= o->scratch_cap)
		return 0;
	size_t cap = o->scratch_cap ? o->scratch_cap : 1024;
	while (cap < n)
		cap *= 2;
	void **p = realloc(o->pages, cap * sizeof(*p));
	if (!p)
		return pms_err(PMS_ENOMEM, "numa oracle: no memory for %zu pages", cap);
	o->pages = p;
	int *s = realloc(o->status, cap * sizeof(*s));
	if (!s)
		return pms_err(PMS_ENOMEM, "numa oracle: no memory for %zu statuses", cap);
	o->status = s;
	o->scratch_cap = cap;
	return 0;
}

static void count_status(struct pms_numa_stats *st, int node)
{
	if (node >= 0)
		st->resolved++;
	else if (node == -EFAULT)
		st->efault++;
	else if (node == -ENOENT)
		st->enoent++;
	else
		st->other_errors++;
}

static void verify_page(struct pms_numa_oracle *o, void *page, int node)
{
	const struct pms_sys_ops *ops = pms_sys_ops(o->sys);
	int mode = -1;
	o->st.get_mempolicy_calls++;
	long r = ops->get_mempolicy(ops->ud, &mode, NULL, 0, page, MPOL_F_NODE_ | MPOL_F_ADDR_);
	o->st.verify_checked++;
	if (r < 0)
		o->st.verify_errors++;
	else if (mode != node)
		o->st.verify_disagree++;
}

static int ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
	return x < y ? -1 : x > y;
}

int pms_numa_oracle_resolve(struct pms_numa_oracle *o, const uint64_t *addrs, size_t n,
			    int *nodes)
{
	if (!o)
		return pms_err(PMS_EINVAL, "numa oracle resolve: NULL argument");
	return pms_numa_oracle_resolve_pid(o, o->pid, addrs, n, nodes);
}

int pms_numa_oracle_resolve_pid(struct pms_numa_oracle *o, pid_t pid, const uint64_t *addrs,
				size_t n, int *nodes)
{
	size_t npages = 0;
	int calls = 0, rc = 0;

	if (!o || (n && (!addrs || !nodes)))
		return pms_err(PMS_EINVAL, "numa oracle resolve: NULL argument");
	o->st.lookups += n;
	table_clear(&o->pending);
	/* Pass 1: answer from the cache, collect unique uncached pages. */
	for (size_t i = 0; i < n; i++) {
		uint64_t key = (addrs[i] >> o->page_shift) + 1;
		const struct slot *s = table_find(&o->cache, pid, key);
		if (s->key) {
			nodes[i] = s->node;
			o->st.cache_hits++;
			continue;
		}
		nodes[i] = PMS_NODE_UNKNOWN;
		struct slot *p = table_find(&o->pending, 0, key);
		if (p->key)
			continue;
		rc = scratch_reserve(o, npages + 1);
		if (rc < 0)
			return rc;
		o->pages[npages] = (void *)(uintptr_t)(addrs[i] & o->page_mask);
		rc = table_put(&o->pending, 0, key, 0);
		if (rc < 0)
			return rc;
		npages++;
	}
	/* The kernel walks the page tables of a call in its order: pages in
	 * address order cost it about half as much as random ones (bench/
	 * numa_oracle), so each batch goes sorted. */
	qsort(o->pages, npages, sizeof(*o->pages), ptr_cmp);
	for (size_t k = 0; k < npages; k++)
		table_find(&o->pending, 0, ((uint64_t)(uintptr_t)o->pages[k] >> o->page_shift) + 1)->node =
			(int)k;
	/* Pass 2: one move_pages per batch (nodes == NULL: query only,
	 * mm/migrate.c do_pages_stat). */
	const struct pms_sys_ops *ops = pms_sys_ops(o->sys);
	int call_err = 0;
	for (size_t off = 0; off < npages; off += o->batch) {
		size_t cnt = npages - off < o->batch ? npages - off : o->batch;
		long r = ops->move_pages(ops->ud, (int)pid, cnt, o->pages + off, NULL,
					 o->status + off, 0);
		calls++;
		o->st.move_pages_calls++;
		o->st.pages_queried += cnt;
		if (r < 0) {
			o->st.call_errors++;
			o->st.last_call_errno = (int)-r;
			call_err = (int)-r;
			for (size_t k = 0; k < cnt; k++)
				o->status[off + k] = (int)r;
			continue;
		}
		for (size_t k = 0; k < cnt; k++) {
			int st = o->status[off + k];
			if (st < 0)
				continue;
			if (o->verify && pid == 0)
				verify_page(o, o->pages[off + k], st);
			rc = table_put(&o->cache, pid,
				       ((uint64_t)(uintptr_t)o->pages[off + k] >> o->page_shift) + 1, st);
			if (rc < 0)
				return rc;
		}
	}
	/* Pass 3: fill the misses. */
	for (size_t i = 0; i < n; i++) {
		if (nodes[i] == PMS_NODE_UNKNOWN) {
			const struct slot *p = table_find(&o->pending, 0, (addrs[i] >> o->page_shift) + 1);
			nodes[i] = o->status[p->node];
		}
		count_status(&o->st, nodes[i]);
	}
	o->st.cached = o->cache.used;
	if (call_err)
		return pms_err_errno(0, call_err, "move_pages(pid %d, %zu pages, query)",
				     (int)pid, npages);
	return calls;
}

int pms_numa_oracle_cached(const struct pms_numa_oracle *o, uint64_t addr)
{
	if (!o)
		return PMS_NODE_UNKNOWN;
	const struct slot *s = table_find(&o->cache, o->pid, (addr >> o->page_shift) + 1);
	return s->key ? s->node : PMS_NODE_UNKNOWN;
}

/* Drop the cached pages of [start, start + len) (len 0: every page) of one
 * process (all: every process). */
static void drop(struct pms_numa_oracle *o, bool all, pid_t pid, uint64_t start, uint64_t len)
{
	uint64_t first = 1, last = UINT64_MAX;
	if (len) {
		first = (start >> o->page_shift) + 1;
		last = ((start + len - 1) >> o->page_shift) + 1;
		if (last < first)
			last = UINT64_MAX; /* wrapped: to the end */
	}
	if (all && !len) {
		o->st.invalidations += o->cache.used;
		table_clear(&o->cache);
		o->st.cached = 0;
		return;
	}
	if (!o->cache.used)
		return;
	/* One process's small range (an mmap or munmap, the common case and,
	 * system-wide, one per MMAP record of every process): delete its
	 * pages one by one; a rebuild per record made the side-band cost
	 * grow with the cache. */
	if (!all && len && last != UINT64_MAX && last - first < o->cache.used / 4) {
		for (uint64_t k = first; k <= last; k++) {
			struct slot *s = table_find(&o->cache, pid, k);
			if (s->key) {
				table_del(&o->cache, (size_t)(s - o->cache.slots));
				o->st.invalidations++;
			}
		}
		o->st.cached = o->cache.used;
		return;
	}
	/* Otherwise rebuild without the range: lookups are hot, so no
	 * tombstones on the lookup path. */
	struct table n;
	if (table_init(&n, o->cache.cap) < 0) {
		o->st.invalidations += o->cache.used;
		table_clear(&o->cache);
		o->st.cached = 0;
		return;
	}
	for (size_t i = 0; i < o->cache.cap; i++) {
		const struct slot *s = &o->cache.slots[i];
		if (!s->key)
			continue;
		if ((all || s->pid == pid) && s->key >= first && s->key <= last) {
			o->st.invalidations++;
			continue;
		}
		*table_find(&n, s->pid, s->key) = *s;
		n.used++;
	}
	free(o->cache.slots);
	o->cache = n;
	o->st.cached = n.used;
}

void pms_numa_oracle_invalidate(struct pms_numa_oracle *o, uint64_t start, uint64_t len)
{
	if (o)
		drop(o, true, 0, start, len);
}

void pms_numa_oracle_invalidate_pid(struct pms_numa_oracle *o, pid_t pid, uint64_t start,
				    uint64_t len)
{
	if (o)
		drop(o, false, pid, start, len);
}

void pms_numa_oracle_set_pid(struct pms_numa_oracle *o, pid_t pid)
{
	if (!o)
		return;
	o->pid = pid;
	pms_numa_oracle_invalidate(o, 0, 0);
}

int pms_numa_node_of_phys(const struct pms_topo *topo, uint64_t paddr)
{
	if (!topo)
		return pms_err(PMS_EINVAL, "node of physical address: no topology");
	return pms_topo_node_of_phys(topo, paddr);
}

void pms_numa_oracle_stats(const struct pms_numa_oracle *o, struct pms_numa_stats *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (o)
		*out = o->st;
}
