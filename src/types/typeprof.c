/* Samples per type and member: counts, loads and stores, remote share,
 * latency percentiles, threads; unresolved samples by reason. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/types.h"
#include "types/typeprof_int.h"
#include "types/typeres_int.h"
#include "util/error.h"
#include "util/grow.h"

struct tp_row {
	struct pms_typeprof_row r;
	uint64_t *lat;
	size_t nlat, caplat;
	uint32_t *tids, *wtids;
	size_t ntids, captids, nwtids, capwtids;
};

/* One IP's answer in a profile whose paths are memoized (the mappings
 * fixed until the next ty_prof_memo_paths, so that an IP and its path's
 * pointer name one mapping): the hit lookup_bin gave for an address that
 * is not below the binary's last global (gv_end, past the load bias), and
 * whether the look-up was counted (0 or 1).  Open addressing on ip; an
 * entry of an older epoch is an empty slot.  One cache line: a hit that
 * is its status and store alone (every unresolved one) is kept here, any
 * other in the profile's ipmhit (hix). */
struct tp_ipm {
	uint64_t ip;
	const char *path;
	uint64_t bias, gv_end;
	uint32_t epoch;
	int32_t row;          /* the hit's row in rows, -1 not yet */
	uint32_t hix;         /* ipmhit's index + 1; 0: the hit is status, store */
	uint8_t status, counted;
	bool store;
	char pad[64 - 47];
};

_Static_assert(sizeof(struct tp_ipm) == 64, "tp_ipm: one cache line");

struct pms_typeprof {
	struct pms_typeres *res;
	/* a twin (ty_prof_twin) shares its first's resolver, asked under the
	 * first's lock; the first owns it */
	struct pms_typeprof *first;
	pthread_mutex_t lock;
	uint64_t lookups; /* a twin's, added to the resolver's when merged */
	/* ty_prof_memo_paths: the last sample's mapping (its path by pointer)
	 * and the binary and bias the resolver gave for it */
	struct {
		bool on, valid;
		const char *path;
		uint64_t start, pgoff, gen, bias;
		struct ty_bin *bin; /* NULL: no binary answers */
	} memo;
	/* the IPs' answers while the memo is on (tp_ipm): each sample of a
	 * known IP answered here, without the resolver or the first's lock */
	struct tp_ipm *ipm;
	size_t nipm, capipm;
	struct pms_type_hit *ipmhit;
	size_t nipmhit, capipmhit;
	uint32_t epoch;       /* ty_prof_memo_paths' calls: older entries are gone */
	struct tp_row *rows;
	size_t n, cap;
	size_t *idx, capidx; /* open addressing on (type, member): row + 1 */
	struct pms_typeprof_row *out;
	struct pms_typeprof_line *lines;
	uint64_t total, resolved;
	uint64_t unresolved[PMS_TYPE__COUNT];
};

int pms_typeprof_new(struct pms_typeprof **out)
{
	struct pms_typeprof *p = calloc(1, sizeof(*p));
	if (!p)
		return pms_err(PMS_ENOMEM, "types: profile");
	int rc = pms_typeres_new(&p->res);
	if (rc < 0) {
		free(p);
		return rc;
	}
	pthread_mutex_init(&p->lock, NULL);
	p->epoch = 1;
	*out = p;
	return 0;
}

int ty_prof_twin(struct pms_typeprof *p, struct pms_typeprof **out)
{
	struct pms_typeprof *t = calloc(1, sizeof(*t));
	if (!t)
		return pms_err(PMS_ENOMEM, "types: profile");
	t->first = p->first ? p->first : p;
	t->res = p->res;
	t->epoch = 1;
	*out = t;
	return 0;
}

void pms_typeprof_free(struct pms_typeprof *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->rows[i].lat);
		free(p->rows[i].tids);
		free(p->rows[i].wtids);
	}
	free(p->ipm);
	free(p->ipmhit);
	free(p->rows);
	free(p->idx);
	free(p->out);
	free(p->lines);
	if (!p->first) {
		pms_typeres_free(p->res);
		pthread_mutex_destroy(&p->lock);
	}
	free(p);
}

static inline int add_tid(uint32_t **v, size_t *n, size_t *cap, uint32_t tid)
{
	/* without an early exit: the few threads of a row compared at once
	 * (the tid of one sample to the next is not predictable) */
	const uint32_t *t = *v;
	size_t k = *n;
	bool seen = false;
	for (size_t i = 0; i < k; i++)
		seen |= t[i] == tid;
	if (seen)
		return 0;
	int rc = *n < *cap ? 0 : pms_grow(v, cap, *n + 1, sizeof(**v), 8, "types: threads");
	if (rc < 0)
		return rc;
	(*v)[(*n)++] = tid;
	return 0;
}

static size_t row_hash(const char *type, const char *member, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)type * 0x9e3779b97f4a7c15ull ^
		     (uint64_t)(uintptr_t)member * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h >> 17) & (cap - 1);
}

/* Keep the index at most half full: rebuild it from the rows. */
static int index_grow(struct pms_typeprof *p)
{
	if ((p->n + 1) * 2 <= p->capidx)
		return 0;
	size_t nc = p->capidx ? p->capidx * 2 : 64;
	size_t *ni = calloc(nc, sizeof(*ni));
	if (!ni)
		return pms_err(PMS_ENOMEM, "types: profile index");
	for (size_t i = 0; i < p->n; i++) {
		size_t j = row_hash(p->rows[i].r.type, p->rows[i].r.member, nc);
		while (ni[j])
			j = (j + 1) & (nc - 1);
		ni[j] = i + 1;
	}
	free(p->idx);
	p->idx = ni;
	p->capidx = nc;
	return 0;
}

static struct tp_row *row_of(struct pms_typeprof *p, const struct pms_type_hit *h)
{
	if (index_grow(p) < 0)
		return NULL;
	/* interned strings: pointers compare */
	size_t j = row_hash(h->type, h->member, p->capidx);
	for (; p->idx[j]; j = (j + 1) & (p->capidx - 1)) {
		struct tp_row *w = &p->rows[p->idx[j] - 1];
		if (w->r.type == h->type && w->r.member == h->member)
			return w;
	}
	if (pms_grow(&p->rows, &p->cap, p->n + 1, sizeof(*p->rows), 8, "types: rows") < 0)
		return NULL;
	p->idx[j] = p->n + 1;
	struct tp_row *w = &p->rows[p->n++];
	memset(w, 0, sizeof(*w));
	w->r.type = h->type;
	w->r.member = h->member;
	w->r.type_size = h->type_size;
	w->r.member_offset = h->member_offset;
	w->r.member_size = h->member_size;
	return w;
}

void ty_prof_writers(const struct pms_typeprof *p, const char *type, const char *member,
		     const uint32_t **tids, size_t *n)
{
	*tids = NULL;
	*n = 0;
	if (!p->capidx)
		return;
	size_t j = row_hash(type, member, p->capidx);
	for (; p->idx[j]; j = (j + 1) & (p->capidx - 1)) {
		const struct tp_row *w = &p->rows[p->idx[j] - 1];
		if (w->r.type == type && w->r.member == member) {
			*tids = w->wtids;
			*n = w->nwtids;
			return;
		}
	}
}

void ty_prof_memo_paths(struct pms_typeprof *p, bool on)
{
	p->memo.on = on;
	p->memo.valid = false;
	if (++p->epoch == 0) { /* wrapped: every entry forgotten for good */
		for (size_t i = 0; i < p->capipm; i++)
			p->ipm[i].epoch = 0;
		p->epoch = 1;
	}
	p->nipm = p->nipmhit = 0;
}

static inline size_t ipm_hash(uint64_t ip, size_t cap)
{
	return (size_t)(ip * 0x9e3779b97f4a7c15ull >> 24) & (cap - 1);
}

/* s's entry in the IP memo, NULL when none. */
static inline struct tp_ipm *ipm_find(struct pms_typeprof *p, const struct pms_typeprof_sample *s)
{
	if (!p->capipm)
		return NULL;
	size_t mask = p->capipm - 1;
	for (size_t j = ipm_hash(s->ip, p->capipm);; j = (j + 1) & mask) {
		struct tp_ipm *e = &p->ipm[j];
		if (e->epoch != p->epoch)
			return NULL;
		if (e->ip == s->ip && e->path == s->path)
			return e;
	}
}

/* A new entry for s (not in the memo), NULL without memory: the table
 * grows at three quarters full of this epoch's entries. */
static struct tp_ipm *ipm_add(struct pms_typeprof *p, const struct pms_typeprof_sample *s)
{
	if ((p->nipm + 1) * 4 > p->capipm * 3) {
		size_t nc = p->capipm ? p->capipm * 2 : 256;
		struct tp_ipm *nv = aligned_alloc(64, nc * sizeof(*nv));
		if (!nv)
			return NULL;
		memset(nv, 0, nc * sizeof(*nv));
		for (size_t i = 0; i < p->capipm; i++) {
			struct tp_ipm *e = &p->ipm[i];
			if (e->epoch != p->epoch)
				continue;
			size_t j = ipm_hash(e->ip, nc);
			while (nv[j].epoch == p->epoch)
				j = (j + 1) & (nc - 1);
			nv[j] = *e;
		}
		free(p->ipm);
		p->ipm = nv;
		p->capipm = nc;
	}
	size_t j = ipm_hash(s->ip, p->capipm);
	while (p->ipm[j].epoch == p->epoch)
		j = (j + 1) & (p->capipm - 1);
	struct tp_ipm *e = &p->ipm[j];
	e->ip = s->ip;
	e->path = s->path;
	e->epoch = p->epoch;
	e->row = -1;
	p->nipm++;
	return e;
}

/* ty_res_lookup_mapped, the binary and bias found once per mapping while
 * the memo is on (called under the first's lock for a twin); *gv_end (0:
 * none) and *bias: what the IP memo needs to know whether another address
 * would take the same answer (lookup_bin's global by address). */
static int tp_lookup(struct pms_typeprof *p, const struct pms_typeprof_sample *s,
		     struct pms_type_hit *h, uint64_t *gv_end, uint64_t *bias)
{
	*gv_end = *bias = 0;
	if (!p->memo.on || !s->path)
		return ty_res_lookup_mapped(p->res, s->path, s->map_start, s->map_pgoff, s->ip,
					    s->addr, s->has_addr, h);
	uint64_t gen = ty_res_bins_gen(p->res);
	if (!p->memo.valid || p->memo.path != s->path || p->memo.start != s->map_start ||
	    p->memo.pgoff != s->map_pgoff || p->memo.gen != gen) {
		struct ty_bin *b = NULL;
		uint64_t mb = 0;
		int rc = ty_res_map_bin(p->res, s->path, s->map_start, s->map_pgoff, &b, &mb);
		if (rc < 0) {
			p->memo.valid = false;
			memset(h, 0, sizeof(*h));
			return rc;
		}
		p->memo.valid = true;
		p->memo.path = s->path;
		p->memo.start = s->map_start;
		p->memo.pgoff = s->map_pgoff;
		p->memo.gen = ty_res_bins_gen(p->res); /* opening b may have let one go */
		p->memo.bin = rc ? NULL : b;
		p->memo.bias = mb;
	}
	const struct ty_bin *b = p->memo.bin;
	if (b && !b->bad && !b->no_debug) {
		*gv_end = b->gv_end;
		*bias = p->memo.bias;
	}
	return ty_res_lookup_in(p->res, p->memo.bin, p->memo.bias, s->ip, s->addr, s->has_addr, h);
}

/* Whether lookup_bin could answer s from a global by its address (the IP
 * memo's entries hold the answer of the other addresses only). */
static inline bool maybe_global(const struct pms_typeprof_sample *s, uint64_t bias,
				uint64_t gv_end)
{
	return s->has_addr && s->addr - bias < gv_end;
}

/* s's answer h kept in the IP memo (*ent: its entry; left NULL without
 * memory, the memo being only a shortcut). */
static void ipm_keep(struct pms_typeprof *p, const struct pms_typeprof_sample *s,
		     const struct pms_type_hit *h, uint64_t bias, uint64_t gv_end, uint8_t counted,
		     struct tp_ipm **ent)
{
	struct pms_type_hit bare;
	memset(&bare, 0, sizeof(bare));
	bare.status = h->status;
	bare.store = h->store;
	bool full = memcmp(&bare, h, sizeof(bare)) != 0;
	if (full && (p->nipmhit >= UINT32_MAX - 1 ||
		     (p->nipmhit == p->capipmhit &&
		      pms_grow(&p->ipmhit, &p->capipmhit, p->nipmhit + 1, sizeof(*p->ipmhit), 256,
			       "types: ip memo") < 0)))
		return;
	struct tp_ipm *e = ipm_add(p, s);
	if (!e)
		return;
	e->bias = bias;
	e->gv_end = gv_end;
	e->counted = counted;
	e->status = (uint8_t)h->status;
	e->store = h->store;
	e->hix = 0;
	if (full) {
		p->ipmhit[p->nipmhit++] = *h;
		e->hix = (uint32_t)p->nipmhit;
	}
	*ent = e;
}

/* s's hit: from the IP memo when it holds s's IP (*ent: the entry, NULL
 * when the answer did not come from or go to the memo), else from the
 * resolver (a twin's under the first's lock), kept in the memo. */
static int tp_hit(struct pms_typeprof *p, const struct pms_typeprof_sample *s,
		  struct pms_type_hit *h, struct tp_ipm **ent)
{
	*ent = NULL;
	if (s->kernel) {
		memset(h, 0, sizeof(*h));
		h->status = PMS_TYPE_KERNEL;
		return 0;
	}
	uint64_t l0, l1, comp, gv_end, bias;
	struct tp_ipm *e = p->memo.on ? ipm_find(p, s) : NULL;
	if (e && !maybe_global(s, e->bias, e->gv_end)) {
		/* counted as the resolver would have counted it */
		if (e->hix) {
			*h = p->ipmhit[e->hix - 1];
		} else {
			memset(h, 0, sizeof(*h));
			h->status = (enum pms_type_status)e->status;
			h->store = e->store;
		}
		*ent = e;
		if (p->first) {
			p->lookups += e->counted;
		} else if (e->counted) {
			pms_typeres_cache_stats(p->res, &l0, &comp);
			ty_res_set_lookups(p->res, l0 + 1);
		}
		return 0;
	}
	/* a twin: its lookups its own until merged (a chunk dropped is not
	 * counted), the cache the resolver's */
	if (p->first)
		pthread_mutex_lock(&p->first->lock);
	pms_typeres_cache_stats(p->res, &l0, &comp);
	int rc = tp_lookup(p, s, h, &gv_end, &bias);
	pms_typeres_cache_stats(p->res, &l1, &comp);
	if (p->first) {
		ty_res_set_lookups(p->res, l0);
		pthread_mutex_unlock(&p->first->lock);
		p->lookups += l1 - l0;
	}
	if (rc < 0)
		return rc;
	if (!e && p->memo.on && !maybe_global(s, bias, gv_end))
		ipm_keep(p, s, h, bias, gv_end, (uint8_t)(l1 - l0), ent);
	return 0;
}

/* Not counted: the profile's samples and the cache's lookups are
 * pms_typeprof_add's alone (a later join, e.g. the allocation sites' types
 * or an export's labels, leaves the report's ip_cache as it was). */
int pms_typeprof_hit(struct pms_typeprof *p, const struct pms_typeprof_sample *s,
		     struct pms_type_hit *h)
{
	uint64_t lookups, computed;
	struct tp_ipm *e;
	pms_typeres_cache_stats(p->res, &lookups, &computed);
	int rc = tp_hit(p, s, h, &e);
	ty_res_set_lookups(p->res, lookups);
	return rc;
}

int pms_typeprof_add(struct pms_typeprof *p, const struct pms_typeprof_sample *s,
		     struct pms_type_hit *hit)
{
	struct pms_type_hit h;
	struct tp_ipm *e;
	int rc = tp_hit(p, s, &h, &e);
	if (rc < 0)
		return rc;
	if (hit)
		*hit = h;
	p->total++;
	if (h.status != PMS_TYPE_OK) {
		p->unresolved[h.status]++;
		return 0;
	}
	p->resolved++;
	/* the IP's row, found once (a merge adds rows after; none moves) */
	struct tp_row *w = e && e->row >= 0 ? &p->rows[e->row] : row_of(p, &h);
	if (!w)
		return PMS_ENOMEM;
	if (e && e->row < 0 && p->n <= INT32_MAX)
		e->row = (int32_t)(w - p->rows);
	w->r.samples++;
	bool store = s->store >= 0 ? s->store == 1 : h.store;
	if (store)
		w->r.stores++;
	else
		w->r.loads++;
	w->r.via[h.via]++;
	w->r.hitm += s->hitm;
	if (s->cpu_node >= 0 && s->cpu_node < 64)
		w->r.cpu_nodes |= 1ull << s->cpu_node;
	if (s->mem_node >= 0 && s->mem_node < 64)
		w->r.mem_nodes |= 1ull << s->mem_node;
	if (s->mem_node >= 0 && s->cpu_node >= 0) {
		w->r.node_known++;
		if (s->mem_node != s->cpu_node)
			w->r.remote++;
	}
	if (s->has_weight && s->weight) {
		if (w->nlat == w->caplat &&
		    (rc = pms_grow(&w->lat, &w->caplat, w->nlat + 1, sizeof(*w->lat), 8,
				   "types: latencies")) < 0)
			return rc;
		w->lat[w->nlat++] = s->weight;
	}
	if ((rc = add_tid(&w->tids, &w->ntids, &w->captids, s->tid)) < 0)
		return rc;
	if (store && (rc = add_tid(&w->wtids, &w->nwtids, &w->capwtids, s->tid)) < 0)
		return rc;
	return 0;
}

/* The tids of src not yet in *v, appended in src's order. */
static int tids_union(uint32_t **v, size_t *n, size_t *cap, const uint32_t *src, size_t ns)
{
	for (size_t i = 0; i < ns; i++) {
		int rc = add_tid(v, n, cap, src[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int ty_prof_merge(struct pms_typeprof *p, const struct pms_typeprof *t)
{
	uint64_t lookups, comp;
	pms_typeres_cache_stats(p->res, &lookups, &comp);
	ty_res_set_lookups(p->res, lookups + t->lookups);
	p->total += t->total;
	p->resolved += t->resolved;
	for (size_t i = 0; i < PMS_TYPE__COUNT; i++)
		p->unresolved[i] += t->unresolved[i];
	for (size_t i = 0; i < t->n; i++) {
		const struct tp_row *x = &t->rows[i];
		struct pms_type_hit key = { .type = x->r.type, .member = x->r.member,
					    .type_size = x->r.type_size,
					    .member_offset = x->r.member_offset,
					    .member_size = x->r.member_size };
		struct tp_row *w = row_of(p, &key);
		if (!w)
			return PMS_ENOMEM;
		w->r.samples += x->r.samples;
		w->r.loads += x->r.loads;
		w->r.stores += x->r.stores;
		w->r.remote += x->r.remote;
		w->r.node_known += x->r.node_known;
		for (size_t k = 0; k < PMS_TYPE_VIA__COUNT; k++)
			w->r.via[k] += x->r.via[k];
		w->r.hitm += x->r.hitm;
		w->r.cpu_nodes |= x->r.cpu_nodes;
		w->r.mem_nodes |= x->r.mem_nodes;
		if (x->nlat) {
			if (w->nlat + x->nlat > w->caplat &&
			    pms_grow(&w->lat, &w->caplat, w->nlat + x->nlat, sizeof(*w->lat), 8,
				     "types: latencies") < 0)
				return PMS_ENOMEM;
			memcpy(w->lat + w->nlat, x->lat, x->nlat * sizeof(*x->lat));
			w->nlat += x->nlat;
		}
		int rc;
		if ((rc = tids_union(&w->tids, &w->ntids, &w->captids, x->tids, x->ntids)) < 0 ||
		    (rc = tids_union(&w->wtids, &w->nwtids, &w->capwtids, x->wtids, x->nwtids)) < 0)
			return rc;
	}
	return 0;
}

struct pms_typeres *pms_typeprof_resolver(struct pms_typeprof *p)
{
	return p->res;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* v ascending, as qsort with u64_cmp would leave it: a least significant
 * digit first radix sort (8-bit digits, a digit all values share skipped)
 * through tmp (n values). */
static void radix_u64(uint64_t *v, uint64_t *tmp, size_t n)
{
	size_t cnt[8][256] = { { 0 } }; /* 16 KB on the stack */
	for (size_t i = 0; i < n; i++)
		for (unsigned d = 0; d < 8; d++)
			cnt[d][(v[i] >> (8 * d)) & 0xff]++;
	uint64_t *src = v, *dst = tmp;
	for (unsigned d = 0; d < 8; d++) {
		if (cnt[d][(src[0] >> (8 * d)) & 0xff] == n)
			continue;
		size_t at = 0;
		for (unsigned k = 0; k < 256; k++) {
			size_t c = cnt[d][k];
			cnt[d][k] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[cnt[d][(src[i] >> (8 * d)) & 0xff]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

/* A row's latencies sorted (the percentiles' order): the radix sort for
 * many, qsort for few or without memory for the radix sort's buffer. */
static void lat_sort(uint64_t *v, size_t n)
{
	uint64_t *tmp = n >= 256 ? malloc(n * sizeof(*tmp)) : NULL;
	if (tmp)
		radix_u64(v, tmp, n);
	else if (n > 1)
		qsort(v, n, sizeof(*v), u64_cmp);
	free(tmp);
}

#define CMP_U(a, b) ((a) < (b) ? -1 : (a) > (b))

/* By samples, then what the row prints: two types of one name (a `struct
 * opts` per source file) are told apart by size and members, so the
 * order does not depend on the order the rows were made in (--jobs). */
static int row_cmp(const void *a, const void *b)
{
	const struct pms_typeprof_row *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	int c = strcmp(x->type, y->type);
	if (!c)
		c = CMP_U(x->member_offset, y->member_offset);
	if (!c)
		c = CMP_U(x->type_size, y->type_size);
	if (!c)
		c = strcmp(x->member, y->member);
	if (!c)
		c = CMP_U(x->member_size, y->member_size);
	if (!c)
		c = CMP_U(x->stores, y->stores);
	if (!c)
		c = CMP_U(x->lat_max, y->lat_max);
	return c ? c : CMP_U(x->writer_threads, y->writer_threads);
}

static uint64_t pct(const uint64_t *v, size_t n, unsigned p)
{
	if (!n)
		return 0;
	size_t i = (n * p + 99) / 100; /* nearest rank */
	return v[i ? i - 1 : 0];
}

static int line_cmp(const void *a, const void *b)
{
	const struct pms_typeprof_line *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	int c = strcmp(x->type, y->type);
	if (!c)
		c = CMP_U(x->line, y->line);
	if (!c) /* two types of one name (row_cmp) */
		c = CMP_U(x->stores, y->stores);
	if (!c)
		c = CMP_U(x->members, y->members);
	if (!c)
		c = CMP_U(x->written_members, y->written_members);
	return c ? c : CMP_U(x->writer_threads, y->writer_threads);
}

/* Whether member rows a and b were written by two different threads. */
static bool two_writers(const struct tp_row *a, const struct tp_row *b)
{
	for (size_t i = 0; i < a->nwtids; i++)
		for (size_t k = 0; k < b->nwtids; k++)
			if (a->wtids[i] != b->wtids[k])
				return true;
	return false;
}

/* A row's place for build_lines' sort: each line's rows together. */
struct tp_lkey {
	uintptr_t type;
	uint64_t line;
	size_t i;
};

static int lkey_cmp(const void *a, const void *b)
{
	const struct tp_lkey *x = a, *y = b;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The cache lines of the types: rows grouped by (type, offset / 64), the
 * groups found by sorting the rows' indexes (each line's rows in their
 * order); the lines then sorted by line_cmp, a total order. */
static int build_lines(struct pms_typeprof *p, size_t *n_out)
{
	free(p->lines);
	p->lines = calloc(p->n ? p->n : 1, sizeof(*p->lines));
	struct tp_lkey *ix = malloc((p->n ? p->n : 1) * sizeof(*ix));
	if (!p->lines || !ix) {
		free(ix);
		return pms_err(PMS_ENOMEM, "types: lines");
	}
	for (size_t i = 0; i < p->n; i++)
		ix[i] = (struct tp_lkey){ (uintptr_t)p->rows[i].r.type,
					  p->rows[i].r.member_offset / 64, i };
	if (p->n > 1)
		qsort(ix, p->n, sizeof(*ix), lkey_cmp);
	size_t n = 0;
	for (size_t a = 0, e; a < p->n; a = e) {
		const struct tp_row *w = &p->rows[ix[a].i];
		uint64_t line = ix[a].line;
		for (e = a + 1; e < p->n && ix[e].type == ix[a].type && ix[e].line == line; e++)
			;
		struct pms_typeprof_line *l = &p->lines[n++];
		l->type = w->r.type;
		l->line = line;
		uint32_t *tids = NULL;
		size_t ntids = 0, cap = 0;
		for (size_t k = a; k < e; k++) {
			const struct tp_row *x = &p->rows[ix[k].i];
			l->samples += x->r.samples;
			l->stores += x->r.stores;
			l->members++;
			l->written_members += x->nwtids > 0;
			for (size_t t = 0; t < x->nwtids; t++)
				if (add_tid(&tids, &ntids, &cap, x->wtids[t]) < 0) {
					free(tids);
					free(ix);
					return PMS_ENOMEM;
				}
			for (size_t m = a; m < k && !l->false_sharing; m++) {
				const struct tp_row *y = &p->rows[ix[m].i];
				l->false_sharing = y->r.member != x->r.member && two_writers(x, y);
			}
		}
		l->writer_threads = ntids;
		free(tids);
	}
	free(ix);
	qsort(p->lines, n, sizeof(*p->lines), line_cmp);
	*n_out = n;
	return 0;
}

int pms_typeprof_result(struct pms_typeprof *p, struct pms_typeprof_result *out)
{
	memset(out, 0, sizeof(*out));
	free(p->out);
	p->out = calloc(p->n ? p->n : 1, sizeof(*p->out));
	if (!p->out)
		return pms_err(PMS_ENOMEM, "types: result");
	for (size_t i = 0; i < p->n; i++) {
		struct tp_row *w = &p->rows[i];
		lat_sort(w->lat, w->nlat);
		w->r.lat_n = w->nlat;
		w->r.lat_p50 = pct(w->lat, w->nlat, 50);
		w->r.lat_p90 = pct(w->lat, w->nlat, 90);
		w->r.lat_p99 = pct(w->lat, w->nlat, 99);
		w->r.lat_max = w->nlat ? w->lat[w->nlat - 1] : 0;
		w->r.threads = w->ntids;
		w->r.writer_threads = w->nwtids;
		p->out[i] = w->r;
	}
	qsort(p->out, p->n, sizeof(*p->out), row_cmp);
	int rc = build_lines(p, &out->n_lines);
	if (rc < 0)
		return rc;
	out->lines = p->lines;
	out->rows = p->out;
	out->n_rows = p->n;
	out->total = p->total;
	out->resolved = p->resolved;
	memcpy(out->unresolved, p->unresolved, sizeof(out->unresolved));
	return 0;
}
