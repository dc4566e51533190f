/* Address -> node oracle: batched move_pages(2) in query mode, a per-process
 * page cache, and memory-block lookup for physical addresses.
 *
 * The cache is per process (a directory keyed by pid finds it): a hash table
 * of regions of 256 pages (1 MiB of 4 KiB pages), each slot pointing at its
 * leaf's 256 16-bit values.  A densely sampled GiB costs about 2 bytes a
 * page (a region table of some 32 KiB and 512 KiB of leaves, within the
 * second-level cache); a region sampled once costs 512 bytes and a slot.
 * Leaves are made in chunks that never move, so a value's pointer stays
 * good while its process is cached.  Regions of 64 pages measured 2-4 %
 * slower on bench/numa_oracle.  A process's exit or exec frees its cache
 * (its chunks and table); other processes' pages are not touched.
 *
 * A resolve call looks every address up once, in a loop that writes
 * nothing to the cache and has no branch but the probe's (the cold path's
 * floor is this loop: on bench/numa_oracle it is most of the time spent
 * outside the kernel).  Then, for the misses only: it marks their pages
 * pending in the cache itself (which also removes duplicates), sorts them
 * with their value pointers (the kernel walks a call's pages in its order;
 * pages already in order are left as they are), writes each page's status
 * into its value, answers the misses from there, and drops the pages that
 * got no node (a -ENOENT page may be faulted in later). */
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

/* A page's value: status + BIAS for statuses in [VAL_MIN, VAL_MAX]; 0 is
 * no value.  ESCAPE: a status that does not fit (answered from the sorted
 * page list); PENDING: asked about in this call, status not yet known.
 * Nodes are below MAX_NUMNODES (1 << CONFIG_NODES_SHIFT, at most 1024:
 * include/linux/numa.h, arch Kconfig NODES_SHIFT ranges); a node that does
 * not fit is answered, never cached. */
#define BIAS 2048
#define VAL_MIN (-2047)
#define VAL_MAX 2045
#define ESCAPE 4094u
#define PENDING 4095u

#define LEAF_SHIFT 8
#define LEAF_PAGES (1u << LEAF_SHIFT)

struct leaf {
	uint16_t v[LEAF_PAGES];
};

/* The values of every region without a leaf: none.  Never written. */
static const struct leaf zero_leaf;

/* A region slot: key is the region number + 1 (0 = empty), v its leaf's
 * values (an empty slot's: the zero leaf's, so that a lookup needs no
 * branch for it). */
struct rslot {
	uint64_t key;
	uint16_t *v;
};

/* Leaves come in chunks that never move (value pointers stay good while
 * the process is cached): chunk k holds CHUNK0 << k leaves. */
#define CHUNK0 16
#define MAX_CHUNKS 40

/* One process's pages. */
struct proc {
	pid_t pid;
	struct rslot *rs;
	size_t rcap;     /* power of two */
	struct leaf *chunk[MAX_CHUNKS];
	size_t nchunks;
	size_t nleaves; /* leaves made */
	size_t chunk_free; /* leaves not yet used in the last chunk */
	size_t used; /* pages with a value */
};

struct pms_numa_oracle {
	struct pms_sys *sys;
	const struct pms_topo *topo;
	pid_t pid;
	size_t batch;
	unsigned page_shift;
	bool verify;
	/* the process directory: open addressing on pid, NULL = empty */
	struct proc **dir;
	size_t dir_cap, dir_used;
	struct proc *last; /* the process of the last call */
	struct pms_numa_stats st;
	/* scratch for one resolve call */
	uint64_t *pg, *tmp; /* pages to ask about (page numbers), sort buffer */
	uint16_t **pval, **ptmp; /* each page's value, sort buffer */
	size_t *miss;       /* indices of the addresses not answered from the cache */
	uint16_t **mval;    /* ... and their values */
	void **ptrs;
	int *status;
	int *rstatus;       /* a retry's statuses (batch) */
	size_t scratch_cap;
};

static inline size_t region_home(const struct proc *p, uint64_t region)
{
	/* Fibonacci hashing: sequential regions land far apart (the
	 * product's bits from 32 up: lookup_all's constant shift) */
	return (size_t)((region * 0x9e3779b97f4a7c15ULL) >> 32) & (p->rcap - 1);
}

static inline struct rslot *region_find(const struct proc *p, uint64_t region)
{
	size_t m = p->rcap - 1;
	for (size_t i = region_home(p, region);; i = (i + 1) & m) {
		struct rslot *s = &p->rs[i];
		if (!s->key || s->key == region + 1)
			return s;
	}
}

/* The value of page, or NULL when its region has no leaf. */
static inline uint16_t *val_find(const struct proc *p, uint64_t page)
{
	const struct rslot *s = region_find(p, page >> LEAF_SHIFT);
	return s->key ? &s->v[page & (LEAF_PAGES - 1)] : NULL;
}

/* A new leaf, all values 0. */
static int leaf_new(struct proc *p, struct leaf **out)
{
	if (!p->chunk_free) {
		if (p->nchunks == MAX_CHUNKS)
			return pms_err(PMS_ENOMEM, "numa oracle: more than %zu page leaves",
				       p->nleaves);
		size_t cnt = (size_t)CHUNK0 << p->nchunks;
		struct leaf *c = calloc(cnt, sizeof(*c));
		if (!c)
			return pms_err(PMS_ENOMEM, "numa oracle: no memory for %zu page leaves",
				       cnt);
		p->chunk[p->nchunks++] = c;
		p->chunk_free = cnt;
	}
	size_t cnt = (size_t)CHUNK0 << (p->nchunks - 1);
	*out = &p->chunk[p->nchunks - 1][cnt - p->chunk_free--];
	p->nleaves++;
	return 0;
}

static int regions_alloc(struct proc *p, size_t cap)
{
	struct rslot *s = malloc(cap * sizeof(*s));
	if (!s)
		return pms_err(PMS_ENOMEM, "numa oracle: no memory for a %zu-region table", cap);
	for (size_t i = 0; i < cap; i++)
		s[i] = (struct rslot){ 0, (uint16_t *)zero_leaf.v }; /* read only */
	p->rs = s;
	p->rcap = cap;
	return 0;
}

/* The value of page, its leaf made when missing.  Moves the region table
 * (slot pointers taken before are stale), not the leaves. */
static int val_make(struct proc *p, uint64_t page, uint16_t **out)
{
	uint64_t region = page >> LEAF_SHIFT;
	struct rslot *s = region_find(p, region);
	int rc;
	if (!s->key) {
		if ((p->nleaves + 1) * 2 > p->rcap) {
			struct proc n = *p;
			if ((rc = regions_alloc(&n, p->rcap * 2)) < 0)
				return rc;
			for (size_t i = 0; i < p->rcap; i++)
				if (p->rs[i].key)
					*region_find(&n, p->rs[i].key - 1) = p->rs[i];
			free(p->rs);
			*p = n;
			s = region_find(p, region);
		}
		struct leaf *l = NULL;
		if ((rc = leaf_new(p, &l)) < 0)
			return rc;
		s->key = region + 1;
		s->v = l->v;
	}
	*out = &s->v[page & (LEAF_PAGES - 1)];
	return 0;
}

static void proc_free(struct proc *p)
{
	if (!p)
		return;
	free(p->rs);
	for (size_t k = 0; k < p->nchunks; k++)
		free(p->chunk[k]);
	free(p);
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
	if ((rc = regions_alloc(p, 64)) < 0) {
		proc_free(p);
		return rc;
	}
	*dir_find(o, pid) = p;
	o->dir_used++;
	o->last = p;
	*out = p;
	return 0;
}

/* Forget process pid's pages: O(1) in the cache's size (its regions and
 * leaves are freed; the directory entry is removed by a backward shift of
 * its probe run). */
static void proc_drop(struct pms_numa_oracle *o, pid_t pid)
{
	struct proc **pp = dir_find(o, pid), *p = *pp;
	if (!p)
		return;
	o->st.invalidations += p->used;
	o->st.cached -= p->used;
	if (o->last == p)
		o->last = NULL;
	proc_free(p);
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
		proc_free(o->dir[i]);
		o->dir[i] = NULL;
	}
	o->dir_used = 0;
	o->last = NULL;
	o->st.cached = 0;
}

PMS_OPTS_LAYOUT(PMS_NUMA_OPTS, struct pms_numa_opts, PMS_OPTS_END(struct pms_numa_opts, verify));

int pms_numa_oracle_new(struct pms_sys *sys, const struct pms_topo *topo,
			const struct pms_numa_opts *opts, struct pms_numa_oracle **out)
{
	struct pms_numa_opts no;
	struct pms_numa_oracle *o = NULL;
	int rc;

	if (out)
		*out = NULL;
	if (!sys || !out)
		return pms_err(PMS_EINVAL, "numa oracle: NULL sys or out");
	if ((rc = PMS_OPTS_TAKE("pms_numa_oracle_new", PMS_NUMA_OPTS, opts, &no)) < 0)
		return rc;
	opts = &no;
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
	free(o->pval);
	free(o->ptmp);
	free(o->miss);
	free(o->mval);
	free(o->ptrs);
	free(o->status);
	free(o->rstatus);
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
	uint16_t **pval = realloc(o->pval, cap * sizeof(*pval));
	if (!pval)
		goto nomem;
	o->pval = pval;
	uint16_t **ptmp = realloc(o->ptmp, cap * sizeof(*ptmp));
	if (!ptmp)
		goto nomem;
	o->ptmp = ptmp;
	size_t *miss = realloc(o->miss, cap * sizeof(*miss));
	if (!miss)
		goto nomem;
	o->miss = miss;
	uint16_t **mval = realloc(o->mval, cap * sizeof(*mval));
	if (!mval)
		goto nomem;
	o->mval = mval;
	int *s = realloc(o->status, cap * sizeof(*s));
	if (!s)
		goto nomem;
	o->status = s;
	void **p = realloc(o->ptrs, (cap < o->batch ? cap : o->batch) * sizeof(*p));
	if (!p)
		goto nomem;
	o->ptrs = p;
	int *rs = realloc(o->rstatus, (cap < o->batch ? cap : o->batch) * sizeof(*rs));
	if (!rs)
		goto nomem;
	o->rstatus = rs;
	o->scratch_cap = cap;
	return 0;
nomem:
	return pms_err(PMS_ENOMEM, "numa oracle: no memory for %zu pages", cap);
}

/* A whole call's failure that may pass: made again once. */
static bool transient_errno(long r)
{
	return r == -EINTR || r == -EAGAIN || r == -ENOMEM || r == -EBUSY;
}

/* One query of the n pages in o->ptrs, statuses to status; made again once
 * when it failed with a transient errno.  Returns the last call's result. */
static long query(struct pms_numa_oracle *o, pid_t pid, size_t n, int *status, int *calls)
{
	const struct pms_sys_ops *ops = pms_sys_ops(o->sys);
	long r = ops->move_pages(ops->ud, (int)pid, n, o->ptrs, NULL, status, 0);
	(*calls)++;
	o->st.move_pages_calls++;
	if (r < 0 && transient_errno(r)) {
		o->st.retried_calls++;
		r = ops->move_pages(ops->ud, (int)pid, n, o->ptrs, NULL, status, 0);
		(*calls)++;
		o->st.move_pages_calls++;
	}
	return r;
}

/* A query gives a page its node, -ENOENT (mapped, no page there) or
 * -EFAULT (no mapping there, or the shared zero page): mm/migrate.c
 * do_pages_stat_array().  Any other status (a fake kernel's, a future
 * kernel's) is not an answer about the page: those pages of a batch of n
 * (o->ptrs, status) are asked once more, in one call. */
static void requery_odd(struct pms_numa_oracle *o, pid_t pid, size_t n, int *status, int *calls)
{
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		int s = status[k];
		if (s < 0 && s != -ENOENT && s != -EFAULT)
			o->ptrs[m++] = o->ptrs[k]; /* m <= k: in place */
	}
	if (!m)
		return;
	o->st.retried_pages += m;
	const struct pms_sys_ops *ops = pms_sys_ops(o->sys);
	long r = ops->move_pages(ops->ud, (int)pid, m, o->ptrs, NULL, o->rstatus, 0);
	(*calls)++;
	o->st.move_pages_calls++;
	if (r < 0)
		return; /* the first statuses stay */
	for (size_t k = 0, j = 0; k < n && j < m; k++) {
		int s = status[k];
		if (s < 0 && s != -ENOENT && s != -EFAULT) {
			int t = o->rstatus[j++];
			status[k] = t;
			o->st.retry_answered += t >= 0 || t == -ENOENT || t == -EFAULT;
		}
	}
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

/* Sort n page numbers ascending, each carrying its value index (pay):
 * nothing to do when they are sorted already (a caller that sorts its
 * addresses); else a least-significant-digit radix sort over only the bits
 * in which they differ (a drain's pages usually span a few GiB: two or
 * three passes), at most 8 or 11 bits a pass (few pages: a small histogram
 * to clear), spread evenly over the passes. */
static void sort_pages(uint64_t *v, uint16_t **pay, uint64_t *tmp, uint16_t **ptmp, size_t n)
{
	size_t k = 1;
	while (k < n && v[k - 1] <= v[k])
		k++;
	if (k >= n)
		return;
	if (n <= 32) {
		for (size_t i = k; i < n; i++) {
			uint64_t x = v[i];
			uint16_t *y = pay[i];
			size_t j = i;
			for (; j && v[j - 1] > x; j--) {
				v[j] = v[j - 1];
				pay[j] = pay[j - 1];
			}
			v[j] = x;
			pay[j] = y;
		}
		return;
	}
	uint64_t lo = v[0], hi = v[0];
	for (size_t i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	unsigned bits = 64u - (unsigned)__builtin_clzll(hi - lo);
	unsigned maxd = n < 2048 ? 8 : 11, passes = (bits + maxd - 1) / maxd;
	unsigned dbits = (bits + passes - 1) / passes; /* as few buckets as the passes allow */
	size_t nd = (size_t)1 << dbits, dm = nd - 1;
	uint64_t *src = v, *dst = tmp;
	uint16_t **psrc = pay, **pdst = ptmp;
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
		for (size_t i = 0; i < n; i++) {
			size_t at = cnt[((src[i] - lo) >> sh) & dm]++;
			dst[at] = src[i];
			pdst[at] = psrc[i];
		}
		uint64_t *t = src;
		src = dst;
		dst = t;
		uint16_t **pt = psrc;
		psrc = pdst;
		pdst = pt;
	}
	if (src != v) {
		memcpy(v, src, n * sizeof(*v));
		memcpy(pay, psrc, n * sizeof(*pay));
	}
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
static void unmark(uint16_t *const *pval, size_t npages)
{
	for (size_t k = 0; k < npages; k++)
		*pval[k] = 0;
}

/* Look up every address's page: its value, written to nodes[i] as the
 * node it is; each address whose page has no value is listed as a miss
 * (its index and value pointer), without a branch: the slot is overwritten
 * when it is not one.  Between calls the cache holds nodes or nothing (no
 * ESCAPE, no PENDING: a call takes them out before it returns).  Nothing
 * is written to the cache.  A region without a leaf reads the zero leaf:
 * no value, no branch for it.  The probe hashes with the product's bits
 * from 32 up (a constant shift; the region table has fewer than 2^32
 * slots).  Returns the number of misses. */
static inline __attribute__((always_inline)) size_t
lookup_all(const struct proc *p, unsigned shift, const uint64_t *restrict addrs, size_t n,
	   int *restrict nodes, size_t *restrict miss, uint16_t **restrict mval)
{
	const struct rslot *restrict rs = p->rs;
	const size_t rmask = p->rcap - 1;
	const unsigned rsh = shift + LEAF_SHIFT;
	size_t nmiss = 0;
	/* Prefetch the region slot PF_SLOT addresses ahead and, through it
	 * (its first probe), the value PF_VAL ahead: after a move_pages call
	 * the kernel's page walk has pushed the leaves out of the cache, and
	 * this loop waits on them (a timing probe around it, not committed,
	 * on bench/numa_oracle's stream at load 7-10: a median 14 ms of CPU
	 * for the cold pass's 4 M lookups with 40/20, 18 ms without, 16/8
	 * and 24/12 in between; the warm pass about 1 ms slower).  Each
	 * address's home slot is computed once, kept in a ring until its
	 * lookup. */
	enum { PF_SLOT = 40, PF_VAL = 20, RING = 64 };
	size_t ring[RING];
#define HOME(a) ((size_t)((((a) >> rsh) * 0x9e3779b97f4a7c15ULL) >> 32) & rmask)
	for (size_t j = 0; j < n && j < PF_SLOT; j++)
		ring[j] = HOME(addrs[j]);
	for (size_t i = 0; i < n; i++) {
		if (i + PF_SLOT < n) {
			size_t h2 = HOME(addrs[i + PF_SLOT]);
			ring[(i + PF_SLOT) % RING] = h2;
			__builtin_prefetch(&rs[h2]);
		}
		if (i + PF_VAL < n)
			__builtin_prefetch(rs[ring[(i + PF_VAL) % RING]].v +
					   ((addrs[i + PF_VAL] >> shift) & (LEAF_PAGES - 1)));
		uint64_t a = addrs[i], key = (a >> rsh) + 1, k;
		size_t h = ring[i % RING];
		while ((k = rs[h].key) != key && k)
			h = (h + 1) & rmask;
		uint16_t *pv = rs[h].v + ((a >> shift) & (LEAF_PAGES - 1));
		unsigned v = *pv;
		nodes[i] = (int)v - BIAS;
		miss[nmiss] = i;
		mval[nmiss] = pv;
		nmiss += !v;
	}
#undef HOME
	return nmiss;
}

static inline bool in_zero_leaf(const uint16_t *v)
{
	return (uintptr_t)v - (uintptr_t)zero_leaf.v < sizeof(zero_leaf.v);
}

int pms_numa_oracle_resolve_pid(struct pms_numa_oracle *o, pid_t pid, const uint64_t *addrs,
				size_t n, int *nodes)
{
	size_t npages = 0, nmiss = 0;
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
	/* Pass 1, every address (the only per-address work when the pages
	 * are cached; a function of its own, so that its pointers stay in
	 * registers and 4 KiB pages get constant shifts). */
	if (shift == 12)
		nmiss = lookup_all(p, 12, addrs, n, nodes, o->miss, o->mval);
	else
		nmiss = lookup_all(p, shift, addrs, n, nodes, o->miss, o->mval);
	o->st.cache_hits += n - nmiss;
	o->st.resolved += n - nmiss; /* cached pages have a node */
	if (!nmiss)
		return 0;
	/* Pass 2, the misses: mark each page pending once (its leaf made
	 * when its region had none) and list it with its value. */
	for (size_t j = 0; j < nmiss; j++) {
		uint16_t *v = o->mval[j];
		uint64_t page = addrs[o->miss[j]] >> shift;
		if (in_zero_leaf(v)) { /* find or make its region's own leaf */
			if ((rc = val_make(p, page, &v)) < 0) {
				unmark(o->pval, npages);
				for (size_t m = 0; m < nmiss; m++)
					nodes[o->miss[m]] = PMS_NODE_UNKNOWN;
				return rc;
			}
			o->mval[j] = v;
		}
		if (*v)
			continue; /* pending already */
		*v = PENDING;
		o->pg[npages] = page;
		o->pval[npages++] = v;
	}
	p->used += npages;
	sort_pages(o->pg, o->pval, o->tmp, o->ptmp, npages);
	/* Pass 3: one move_pages per batch (nodes == NULL: query only,
	 * mm/migrate.c do_pages_stat), all of them first: the values are
	 * written after the last call, so that the kernel's page walks do not
	 * push them out of the cache between their write and their read in
	 * pass 4. */
	int call_err = 0;
	for (size_t off = 0; off < npages; off += o->batch) {
		size_t cnt = npages - off < o->batch ? npages - off : o->batch;
		const uint64_t *pg = o->pg + off;
		int *status = o->status + off;
		for (size_t k = 0; k < cnt; k++)
			o->ptrs[k] = (void *)(uintptr_t)(pg[k] << shift);
		o->st.pages_queried += cnt;
		long r = query(o, pid, cnt, status, &calls);
		if (r < 0) {
			o->st.call_errors++;
			o->st.last_call_errno = (int)-r;
			call_err = (int)-r;
			for (size_t k = 0; k < cnt; k++)
				status[k] = (int)r;
		} else {
			requery_odd(o, pid, cnt, status, &calls);
		}
	}
	/* Each status into its page's value; count the pages that get no
	 * value to keep.  Values are scattered over the leaves: fetched
	 * ahead. */
	enum { PF = 16 };
	size_t dropped = 0;
	for (size_t k = 0; k < npages; k++) {
		if (k + PF < npages)
			__builtin_prefetch(o->pval[k + PF], 1);
		int stt = o->status[k];
		uint64_t e = encode(stt);
		*o->pval[k] = (uint16_t)e;
		dropped += stt < 0 || e == ESCAPE;
	}
	/* Pass 4: the misses' nodes from their values. */
	if (!dropped) {
		for (size_t j = 0; j < nmiss; j++) {
			if (j + PF < nmiss)
				__builtin_prefetch(o->mval[j + PF]);
			nodes[o->miss[j]] = (int)*o->mval[j] - BIAS;
		}
		o->st.resolved += nmiss;
	} else {
		for (size_t j = 0; j < nmiss; j++) {
			size_t i = o->miss[j];
			unsigned v = *o->mval[j];
			nodes[i] = v == ESCAPE ? status_of(o, npages, addrs[i] >> shift)
					       : (int)v - BIAS;
			count_status(&o->st, nodes[i]);
		}
	}
	/* Pass 5 (only with pages to drop, or to verify): keep the pages with
	 * a node, drop the rest (a -ENOENT page may be faulted in later). */
	bool check = o->verify && pid == 0;
	if (dropped || check) {
		for (size_t k = 0; k < npages; k++) {
			int stt = o->status[k];
			uint16_t *v = o->pval[k];
			if (stt >= 0 && *v != ESCAPE) {
				if (check)
					verify_page(o, (void *)(uintptr_t)(o->pg[k] << shift), stt);
			} else {
				*v = 0;
			}
		}
		p->used -= dropped;
	}
	o->st.cached += npages - dropped;
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
	const uint16_t *v = p ? val_find(p, addr >> o->page_shift) : NULL;
	return v && *v ? (int)*v - BIAS : PMS_NODE_UNKNOWN;
}

/* Clear the values of [first, last] in the leaf values v (region r). */
static void leaf_clear(struct proc *p, uint16_t *v, uint64_t r, uint64_t first, uint64_t last)
{
	uint64_t base = r << LEAF_SHIFT;
	unsigned a = first > base ? (unsigned)(first - base) : 0;
	unsigned b = last - base < LEAF_PAGES - 1 ? (unsigned)(last - base) : LEAF_PAGES - 1;
	for (unsigned k = a; k <= b; k++)
		if (v[k]) {
			v[k] = 0;
			p->used--;
		}
}

/* Drop process p's cached pages in [first, last]: the leaves of the range's
 * regions when it spans fewer regions than p has leaves (an mmap or munmap,
 * the common case and, system-wide, one per MMAP record of every process),
 * else one pass over p's leaves.  Leaves stay (empty) until p goes. */
static void drop_range(struct pms_numa_oracle *o, struct proc *p, uint64_t first, uint64_t last)
{
	uint64_t before = p->used;
	if (!p->used)
		return;
	uint64_t r0 = first >> LEAF_SHIFT, r1 = last >> LEAF_SHIFT;
	if (r1 - r0 < p->nleaves) {
		for (uint64_t r = r0;; r++) {
			const struct rslot *s = region_find(p, r);
			if (s->key)
				leaf_clear(p, s->v, r, first, last);
			if (r == r1)
				break;
		}
	} else {
		for (size_t i = 0; i < p->rcap; i++) {
			const struct rslot *s = &p->rs[i];
			if (s->key && s->key - 1 >= r0 && s->key - 1 <= r1)
				leaf_clear(p, s->v, s->key - 1, first, last);
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
