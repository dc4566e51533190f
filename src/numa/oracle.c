/* Address -> node oracle: batched move_pages(2) in query mode, a per-process
 * page cache, and memory-block lookup for physical addresses.
 *
 * The cache is one open-addressing table per process (a directory keyed by
 * pid finds it), each slot one 64-bit word: page number << 12 | value.  A
 * process's exit or exec frees its table (O(1)); other processes' pages are
 * not touched.  A resolve call marks the pages it has to ask about as
 * pending in the table itself (which also removes duplicates), sorts them
 * (the kernel walks a call's pages in its order, and address order costs it
 * about half as much: bench/numa_oracle), writes each page's status into its
 * slot, answers the misses from there, and drops the pages that got no node
 * (a -ENOENT page may be faulted in later). */
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

/* Slot value field (low 12 bits): status + BIAS for statuses in
 * [VAL_MIN, VAL_MAX]; 0 is an empty slot.  ESCAPE: a status that does not
 * fit (answered from the sorted page list); PENDING: asked about in this
 * call, status not yet known.  Nodes are below MAX_NUMNODES (1 <<
 * CONFIG_NODES_SHIFT, at most 1024: include/linux/numa.h, arch Kconfig
 * NODES_SHIFT ranges); a node that does not fit is answered, never cached. */
#define VAL_BITS 12
#define VAL_MASK ((1u << VAL_BITS) - 1)
#define BIAS 2048
#define VAL_MIN (-2047)
#define VAL_MAX 2045
#define ESCAPE 4094u
#define PENDING 4095u
#define PREFETCH_AHEAD 16

/* One process's pages: slots of page << VAL_BITS | value, 0 = empty. */
struct proc {
	pid_t pid;
	uint64_t *slots;
	size_t cap; /* power of two */
	unsigned shift; /* 64 - log2(cap) */
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
	/* the process directory: open addressing on pid, NULL = empty */
	struct proc **dir;
	size_t dir_cap, dir_used;
	struct proc *last; /* the process of the last call */
	struct pms_numa_stats st;
	/* scratch for one resolve call */
	uint64_t *pg, *tmp; /* pages to ask about (page numbers), sort buffer */
	void **ptrs;
	int *status;
	size_t scratch_cap;
};

static inline size_t page_home(const struct proc *p, uint64_t page)
{
	/* Fibonacci hashing: sequential pages land far apart */
	return (size_t)((page * 0x9e3779b97f4a7c15ULL) >> p->shift);
}

/* The slot holding page, or the empty slot where it would go. */
static inline uint64_t *page_find(const struct proc *p, uint64_t page)
{
	size_t m = p->cap - 1;
	for (size_t i = page_home(p, page);; i = (i + 1) & m) {
		uint64_t *s = &p->slots[i];
		if (!*s || *s >> VAL_BITS == page)
			return s;
	}
}

static int proc_alloc_slots(struct proc *p, size_t cap)
{
	uint64_t *s = calloc(cap, sizeof(*s));
	if (!s)
		return pms_err(PMS_ENOMEM, "numa oracle: no memory for a %zu-page table", cap);
	unsigned lg = 0;
	while (((size_t)1 << lg) < cap)
		lg++;
	p->slots = s;
	p->cap = cap;
	p->shift = 64 - lg;
	p->used = 0;
	return 0;
}

static int proc_rehash(struct proc *p, size_t cap)
{
	struct proc n = *p;
	int rc = proc_alloc_slots(&n, cap);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < p->cap; i++)
		if (p->slots[i]) {
			*page_find(&n, p->slots[i] >> VAL_BITS) = p->slots[i];
			n.used++;
		}
	free(p->slots);
	*p = n;
	return 0;
}

/* Remove the slot at i (linear probing, no tombstones): the entries after
 * it in its probe run move back where their home slot allows. */
static void page_del(struct proc *p, size_t i)
{
	size_t m = p->cap - 1, j = i;
	for (;;) {
		j = (j + 1) & m;
		uint64_t s = p->slots[j];
		if (!s)
			break;
		size_t k = page_home(p, s >> VAL_BITS);
		/* s may fill the hole at i when i lies cyclically in [k, j) */
		bool movable = i <= j ? (k <= i || k > j) : (k <= i && k > j);
		if (movable) {
			p->slots[i] = s;
			i = j;
		}
	}
	p->slots[i] = 0;
	p->used--;
}

static inline size_t pid_home(const struct pms_numa_oracle *o, pid_t pid)
{
	return (size_t)(((uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15ULL) >> 32) & (o->dir_cap - 1);
}

static struct proc **dir_find(const struct pms_numa_oracle *o, pid_t pid)
{
	size_t m = o->dir_cap - 1;
	for (size_t i = pid_home(o, pid);; i = (i + 1) & m)
		if (!o->dir[i] || o->dir[i]->pid == pid)
			return &o->dir[i];
}

static struct proc *proc_lookup(struct pms_numa_oracle *o, pid_t pid)
{
	if (o->last && o->last->pid == pid)
		return o->last;
	struct proc *p = *dir_find(o, pid);
	if (p)
		o->last = p;
	return p;
}

static int dir_grow(struct pms_numa_oracle *o)
{
	size_t cap = o->dir_cap * 2;
	struct proc **d = calloc(cap, sizeof(*d)), **old = o->dir;
	if (!d)
		return pms_err(PMS_ENOMEM, "numa oracle: no memory for %zu processes", cap);
	size_t ocap = o->dir_cap;
	o->dir = d;
	o->dir_cap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i])
			*dir_find(o, old[i]->pid) = old[i];
	free(old);
	return 0;
}

static int proc_get(struct pms_numa_oracle *o, pid_t pid, struct proc **out)
{
	struct proc *p = proc_lookup(o, pid);
	if (p) {
		*out = p;
		return 0;
	}
	int rc;
	if ((o->dir_used + 1) * 2 > o->dir_cap && (rc = dir_grow(o)) < 0)
		return rc;
	p = calloc(1, sizeof(*p));
	if (!p)
		return pms_err(PMS_ENOMEM, "numa oracle: no memory for process %d", (int)pid);
	p->pid = pid;
	if ((rc = proc_alloc_slots(p, 1024)) < 0) {
		free(p);
		return rc;
	}
	*dir_find(o, pid) = p;
	o->dir_used++;
	o->last = p;
	*out = p;
	return 0;
}

/* Forget process pid's pages: O(1) in the cache's size (its table is freed;
 * the directory entry is removed by a backward shift of its probe run). */
static void proc_drop(struct pms_numa_oracle *o, pid_t pid)
{
	struct proc **pp = dir_find(o, pid), *p = *pp;
	if (!p)
		return;
	o->st.invalidations += p->used;
	o->st.cached -= p->used;
	if (o->last == p)
		o->last = NULL;
	free(p->slots);
	free(p);
	size_t m = o->dir_cap - 1, i = (size_t)(pp - o->dir), j = i;
	for (;;) {
		j = (j + 1) & m;
		struct proc *s = o->dir[j];
		if (!s)
			break;
		size_t k = pid_home(o, s->pid);
		bool movable = i <= j ? (k <= i || k > j) : (k <= i && k > j);
		if (movable) {
			o->dir[i] = s;
			i = j;
		}
	}
	o->dir[i] = NULL;
	o->dir_used--;
}

static void drop_all(struct pms_numa_oracle *o)
{
	for (size_t i = 0; i < o->dir_cap; i++) {
		if (!o->dir[i])
			continue;
		o->st.invalidations += o->dir[i]->used;
		free(o->dir[i]->slots);
		free(o->dir[i]);
		o->dir[i] = NULL;
	}
	o->dir_used = 0;
	o->last = NULL;
	o->st.cached = 0;
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
	/* a slot keeps 64 - VAL_BITS bits of page number: every page of 4 KiB
	 * or more fits, and no Linux page is smaller */
	if ((psz & (psz - 1)) || psz < ((size_t)1 << VAL_BITS))
		return pms_err(PMS_EINVAL,
			       "numa oracle: page size %zu is not a power of two of 4096 or more", psz);
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
	o->dir = calloc(16, sizeof(*o->dir));
	if (!o->dir) {
		rc = pms_err(PMS_ENOMEM, "numa oracle: no memory");
		goto out;
	}
	o->dir_cap = 16;
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
	if (o->dir)
		drop_all(o);
	free(o->dir);
	free(o->pg);
	free(o->tmp);
	free(o->ptrs);
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
	/* realloc each; a failure leaves the old (smaller) arrays valid */
	uint64_t *pg = realloc(o->pg, cap * sizeof(*pg));
	if (!pg)
		goto nomem;
	o->pg = pg;
	uint64_t *tmp = realloc(o->tmp, cap * sizeof(*tmp));
	if (!tmp)
		goto nomem;
	o->tmp = tmp;
	int *s = realloc(o->status, cap * sizeof(*s));
	if (!s)
		goto nomem;
	o->status = s;
	void **p = realloc(o->ptrs, (cap < o->batch ? cap : o->batch) * sizeof(*p));
	if (!p)
		goto nomem;
	o->ptrs = p;
	o->scratch_cap = cap;
	return 0;
nomem:
	return pms_err(PMS_ENOMEM, "numa oracle: no memory for %zu pages", cap);
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

/* Sort n page numbers ascending: a least-significant-digit radix sort over
 * only the bits in which they differ (a drain's pages usually span a few
 * GiB: two or three passes), 8 or 11 bits a pass (few pages: a small
 * histogram to clear). */
static void sort_pages(uint64_t *v, uint64_t *tmp, size_t n)
{
	if (n < 2)
		return;
	if (n <= 32) {
		for (size_t i = 1; i < n; i++) {
			uint64_t x = v[i];
			size_t j = i;
			for (; j && v[j - 1] > x; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return;
	}
	uint64_t lo = v[0], hi = v[0];
	for (size_t i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	if (lo == hi)
		return;
	unsigned bits = 64u - (unsigned)__builtin_clzll(hi - lo);
	unsigned dbits = n < 2048 ? 8 : 11;
	size_t nd = (size_t)1 << dbits, dm = nd - 1;
	uint64_t *src = v, *dst = tmp;
	for (unsigned sh = 0; sh < bits; sh += dbits) {
		size_t cnt[2048];
		memset(cnt, 0, nd * sizeof(*cnt));
		for (size_t i = 0; i < n; i++)
			cnt[((src[i] - lo) >> sh) & dm]++;
		size_t sum = 0;
		for (size_t d = 0; d < nd; d++) {
			size_t c = cnt[d];
			cnt[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[cnt[((src[i] - lo) >> sh) & dm]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

/* Status of a page asked about in this call, from the sorted list. */
static int status_of(const struct pms_numa_oracle *o, size_t npages, uint64_t page)
{
	size_t lo = 0, hi = npages;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->pg[mid] < page)
			lo = mid + 1;
		else
			hi = mid;
	}
	return o->status[lo];
}

static inline uint64_t encode(int status)
{
	return status >= VAL_MIN && status <= VAL_MAX ? (uint64_t)(status + BIAS) : ESCAPE;
}

int pms_numa_oracle_resolve(struct pms_numa_oracle *o, const uint64_t *addrs, size_t n,
			    int *nodes)
{
	if (!o)
		return pms_err(PMS_EINVAL, "numa oracle resolve: NULL argument");
	return pms_numa_oracle_resolve_pid(o, o->pid, addrs, n, nodes);
}

/* Take the pending marks of this call's pages out again (an error before
 * the statuses were known). */
static void unmark(struct proc *p, const uint64_t *pg, size_t npages)
{
	for (size_t k = 0; k < npages; k++) {
		uint64_t *s = page_find(p, pg[k]);
		if (*s)
			page_del(p, (size_t)(s - p->slots));
	}
}

int pms_numa_oracle_resolve_pid(struct pms_numa_oracle *o, pid_t pid, const uint64_t *addrs,
				size_t n, int *nodes)
{
	size_t npages = 0;
	int calls = 0, rc = 0;
	struct proc *p = NULL;

	if (!o || (n && (!addrs || !nodes)))
		return pms_err(PMS_EINVAL, "numa oracle resolve: NULL argument");
	if (!n)
		return 0;
	if ((rc = proc_get(o, pid, &p)) < 0 || (rc = scratch_reserve(o, n)) < 0)
		return rc;
	o->st.lookups += n;
	const unsigned shift = o->page_shift;
	uint64_t hits = 0;
	/* Pass 1: answer from the cache; mark each uncached page pending
	 * (once) and list it. */
	for (size_t i = 0; i < n; i++) {
		if (i + PREFETCH_AHEAD < n)
			__builtin_prefetch(&p->slots[page_home(p, addrs[i + PREFETCH_AHEAD] >> shift)]);
		uint64_t page = addrs[i] >> shift;
		uint64_t *s = page_find(p, page);
		uint64_t v = *s & VAL_MASK;
		if (*s && v != PENDING) {
			nodes[i] = (int)v - BIAS;
			hits++;
			continue;
		}
		nodes[i] = PMS_NODE_UNKNOWN;
		if (*s)
			continue; /* pending already */
		if ((p->used + 1) * 2 > p->cap) {
			if ((rc = proc_rehash(p, p->cap * 2)) < 0) {
				unmark(p, o->pg, npages);
				return rc;
			}
			s = page_find(p, page);
		}
		*s = page << VAL_BITS | PENDING;
		p->used++;
		o->pg[npages++] = page;
	}
	o->st.cache_hits += hits;
	o->st.resolved += hits; /* cached pages have a node */
	sort_pages(o->pg, o->tmp, npages);
	/* Pass 2: one move_pages per batch (nodes == NULL: query only,
	 * mm/migrate.c do_pages_stat); each status into its page's slot. */
	const struct pms_sys_ops *ops = pms_sys_ops(o->sys);
	int call_err = 0;
	for (size_t off = 0; off < npages; off += o->batch) {
		size_t cnt = npages - off < o->batch ? npages - off : o->batch;
		for (size_t k = 0; k < cnt; k++)
			o->ptrs[k] = (void *)(uintptr_t)(o->pg[off + k] << shift);
		long r = ops->move_pages(ops->ud, (int)pid, cnt, o->ptrs, NULL, o->status + off, 0);
		calls++;
		o->st.move_pages_calls++;
		o->st.pages_queried += cnt;
		if (r < 0) {
			o->st.call_errors++;
			o->st.last_call_errno = (int)-r;
			call_err = (int)-r;
			for (size_t k = 0; k < cnt; k++)
				o->status[off + k] = (int)r;
		}
		for (size_t k = 0; k < cnt; k++) {
			uint64_t page = o->pg[off + k];
			*page_find(p, page) = page << VAL_BITS | encode(o->status[off + k]);
		}
	}
	/* Pass 3: fill the misses. */
	for (size_t i = 0; npages && i < n; i++) {
		if (nodes[i] != PMS_NODE_UNKNOWN)
			continue;
		uint64_t page = addrs[i] >> shift;
		uint64_t v = *page_find(p, page) & VAL_MASK;
		nodes[i] = v == ESCAPE ? status_of(o, npages, page) : (int)v - BIAS;
		count_status(&o->st, nodes[i]);
	}
	/* Pass 4: keep the pages with a node, drop the rest. */
	uint64_t kept = 0;
	for (size_t k = 0; k < npages; k++) {
		uint64_t page = o->pg[k];
		int stt = o->status[k];
		uint64_t *s = page_find(p, page);
		if (stt >= 0 && (*s & VAL_MASK) != ESCAPE) {
			kept++;
			if (o->verify && pid == 0)
				verify_page(o, (void *)(uintptr_t)(page << shift), stt);
		} else {
			page_del(p, (size_t)(s - p->slots));
		}
	}
	o->st.cached += kept;
	if (!p->used)
		proc_drop(o, pid); /* nothing of it kept (gone, or no page present) */
	if (call_err)
		return pms_err_errno(0, call_err, "move_pages(pid %d, %zu pages, query)",
				     (int)pid, npages);
	return calls;
}

int pms_numa_oracle_cached(const struct pms_numa_oracle *o, uint64_t addr)
{
	if (!o)
		return PMS_NODE_UNKNOWN;
	const struct proc *p = *dir_find(o, o->pid);
	if (!p)
		return PMS_NODE_UNKNOWN;
	uint64_t s = *page_find(p, addr >> o->page_shift);
	return s ? (int)(s & VAL_MASK) - BIAS : PMS_NODE_UNKNOWN;
}

/* Drop process p's cached pages in [first, last]. */
static void drop_range(struct pms_numa_oracle *o, struct proc *p, uint64_t first, uint64_t last)
{
	uint64_t before = p->used;
	if (!p->used)
		return;
	if (last - first < p->used / 4) {
		/* a small range (an mmap or munmap, the common case and,
		 * system-wide, one per MMAP record of every process): its
		 * pages one by one */
		for (uint64_t k = first;; k++) {
			uint64_t *s = page_find(p, k);
			if (*s)
				page_del(p, (size_t)(s - p->slots));
			if (k == last)
				break;
		}
	} else {
		/* otherwise one pass over the process's slots; lookups are
		 * hot, so no tombstones: survivors go back to a fresh table */
		size_t w = 0;
		for (size_t i = 0; i < p->cap; i++) {
			uint64_t s = p->slots[i], k = s >> VAL_BITS;
			if (s && (k < first || k > last))
				p->slots[w++] = s;
		}
		size_t keep = w;
		uint64_t *survivors = p->slots;
		struct proc n = *p;
		if (proc_alloc_slots(&n, p->cap) < 0) {
			/* no memory for the rebuild: forget all of them */
			memset(p->slots, 0, p->cap * sizeof(*p->slots));
			p->used = 0;
		} else {
			for (size_t i = 0; i < keep; i++) {
				*page_find(&n, survivors[i] >> VAL_BITS) = survivors[i];
				n.used++;
			}
			free(survivors);
			*p = n;
		}
	}
	o->st.invalidations += before - p->used;
	o->st.cached -= before - p->used;
}

/* Drop the cached pages of [start, start + len) (len 0: every page) of one
 * process (all: every process). */
static void drop(struct pms_numa_oracle *o, bool all, pid_t pid, uint64_t start, uint64_t len)
{
	if (!len) {
		if (all)
			drop_all(o);
		else
			proc_drop(o, pid);
		return;
	}
	uint64_t first = start >> o->page_shift;
	uint64_t last = (start + len - 1) >> o->page_shift;
	if (last < first)
		last = UINT64_MAX >> o->page_shift; /* wrapped: to the end */
	if (!all) {
		struct proc *p = *dir_find(o, pid);
		if (p)
			drop_range(o, p, first, last);
		return;
	}
	for (size_t i = 0; i < o->dir_cap; i++)
		if (o->dir[i])
			drop_range(o, o->dir[i], first, last);
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
