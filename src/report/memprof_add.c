/* `pmuscope mem` aggregation (memprof.c): the per-sample path, into kept
 * samples or the aggregate (IP table, latency histogram, data objects). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pmuscope/datasrc.h"
#include "pmuscope/report.h"
#include "report/memprof_int.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/opts.h"

static size_t iptab_home(const struct iptab *t, uint64_t ip)
{
	return (size_t)((ip * 0x9e3779b97f4a7c15ULL) >> t->shift);
}

/* A table of cap slots (and node counters when with_nodes) holding t's
 * entries; false when there is no memory (t unchanged). */
bool mp_iptab_resize(struct iptab *t, size_t cap, bool with_nodes)
{
	unsigned shift = 64u - (unsigned)__builtin_ctzll(cap);
	size_t bytes = cap * sizeof(struct ipslot);
	struct ipslot *v = mp_big_calloc(bytes);
	struct ipnode *nv = with_nodes ? calloc(cap, sizeof(*nv)) : NULL;
	if (!v || (with_nodes && !nv)) {
		struct iptab bad = { v, nv, cap, 0, shift };
		if (v)
			mp_iptab_free(&bad);
		else
			free(nv);
		return false;
	}
	struct iptab nt = { v, nv, cap, t->n, shift };
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->v[i].samples)
			continue;
		size_t j = iptab_home(&nt, t->v[i].ip);
		while (v[j].samples)
			j = (j + 1) & (cap - 1);
		v[j] = t->v[i];
		if (t->nv)
			nv[j] = t->nv[i];
	}
	mp_iptab_free(t);
	*t = nt;
	return true;
}

/* The slot of ip, or the free one where it goes; the table has one free. */
static inline size_t iptab_slot(const struct iptab *t, uint64_t ip)
{
	size_t j = iptab_home(t, ip);
	while (t->v[j].samples && t->v[j].ip != ip)
		j = (j + 1) & (t->cap - 1);
	return j;
}

/* Room for n more instructions at most 3/4 full, with node counters from
 * now on when nodes; false when there is no memory. */
static bool iptab_room(struct iptab *t, size_t n, bool nodes)
{
	if (nodes && !t->nv && t->cap && !mp_iptab_resize(t, t->cap, true))
		return false;
	size_t cap = t->cap ? t->cap : 4096;
	while ((t->n + n) * 4 > cap * 3)
		cap *= 2;
	return cap == t->cap || mp_iptab_resize(t, cap, t->nv != NULL || nodes);
}

/* The slot index of ip (samples == 0: a free one for it), growing the
 * table to keep it at most 3/4 full, with node counters from now on when
 * nodes; SIZE_MAX when there is no memory. */
size_t mp_iptab_get(struct iptab *t, uint64_t ip, bool nodes)
{
	if (!iptab_room(t, 1, nodes))
		return SIZE_MAX;
	return iptab_slot(t, ip);
}
/* The histogram bucket of a weight >= WH_EXACT: its power of two above
 * 2^16 and its next 8 bits. */
static size_t wh_bucket(uint64_t w)
{
	unsigned msb = 63u - (unsigned)__builtin_clzll(w);
	return (size_t)(msb - 16) * WH_SUB + (size_t)((w >> (msb - 8)) & (WH_SUB - 1));
}

static uint64_t wh_value(size_t b)
{
	unsigned msb = (unsigned)(b / WH_SUB) + 16;
	return (1ULL << msb) | ((uint64_t)(b % WH_SUB) << (msb - 8));
}

static int agg_weight(struct agg *a, uint64_t w)
{
	if (w < WH_EXACT) {
		if (!a->wlo && !(a->wlo = calloc(WH_EXACT, sizeof(*a->wlo))))
			return pms_err(PMS_ENOMEM, "memprof: no memory for the latency histogram");
		a->wlo[w]++;
		return 0;
	}
	if (!a->whi && !(a->whi = calloc((64 - 16) * WH_SUB, sizeof(*a->whi))))
		return pms_err(PMS_ENOMEM, "memprof: no memory for the latency histogram");
	a->whi[wh_bucket(w)]++;
	if (!a->hn || w < a->hmin)
		a->hmin = w;
	if (!a->hn || w > a->hmax)
		a->hmax = w;
	a->hn++;
	a->hsum += (double)w;
	return 0;
}

void mp_agg_wstats(const struct agg *a, struct wstats *w)
{
	uint64_t n = 0, sum = 0;
	size_t lo = WH_EXACT, hi = 0;
	for (size_t i = 0; a->wlo && i < WH_EXACT; i++) {
		if (!a->wlo[i])
			continue;
		if (lo == WH_EXACT)
			lo = i;
		hi = i;
		n += a->wlo[i];
		sum += a->wlo[i] * i;
	}
	w->n = n + a->hn;
	w->min = n ? lo : a->hmin;
	w->max = a->hn ? a->hmax : hi;
	w->sum = (double)sum + a->hsum;
}

/* Nearest-rank percentile from the histogram (same rank rule as
 * pms_percentile); w: mp_agg_wstats(a). */
uint64_t mp_agg_pct(const struct agg *a, const struct wstats *w, double pct)
{
	if (!w->n)
		return 0;
	double rank = ceil(pct / 100.0 * (double)w->n);
	uint64_t want = rank < 1 ? 1 : (uint64_t)rank, cum = 0;
	if (want > w->n)
		want = w->n;
	for (size_t i = 0; a->wlo && i < WH_EXACT; i++)
		if ((cum += a->wlo[i]) >= want)
			return i;
	for (size_t b = 0; a->whi && b < (64 - 16) * WH_SUB; b++)
		if ((cum += a->whi[b]) >= want)
			return wh_value(b) > w->max ? w->max : wh_value(b);
	return w->max;
}

/* The data source a sample counts under: its own, or PERF_MEM_NA (perf's
 * "N/A") when it has none (not given, 0, or NA already). */
/* A sample's level key: its data_src, reduced to the bits the report reads
 * (DS_KEY_MASK), or PERF_MEM_NA's value when it has none ("N/A" as perf). */
uint64_t mp_level_key_of(uint32_t valid, uint64_t data_src)
{
	if (!(valid & PMS_MS_DATA_SRC) || !data_src || data_src == PMS_MEM_NA_VALUE)
		return PMS_MEM_NA_VALUE;
	return data_src & DS_KEY_MASK;
}

static uint64_t level_key(const struct pms_memsample *s)
{
	return mp_level_key_of(s->valid, s->data_src);
}

/* The entry of agg.oc an address's 2 MiB granule goes to. */
static inline size_t oc_slot(uint64_t addr)
{
	return (size_t)(((addr >> 21) * 0x9e3779b97f4a7c15ULL) >> (64 - OC_BITS));
}

/* Whether addr is in entry e's range and the maps still have it as they
 * had (a mapping, or a gap bounded by the same two mappings: sorted and
 * not overlapping, so nothing is between them). */
static inline __attribute__((always_inline)) bool oc_holds(const struct objcache *e, const struct pms_maps *ms, uint64_t addr)
{
	size_t k = e->k;
	if (addr < e->lo || addr >= e->hi)
		return false;
	if (e->mapped)
		return k < ms->n && ms->v[k].start == e->lo && ms->v[k].end == e->hi;
	if (k > ms->n || (k ? ms->v[k - 1].end != e->lo : e->lo != 0))
		return false;
	return k < ms->n ? ms->v[k].start == e->hi : e->hi == UINT64_MAX;
}

/* The object of addr when a remembered range still holds it (the last
 * one used, then its granule's), else -1. */
static long agg_obj_cached(struct agg *a, const struct pms_maps *ms, uint64_t addr)
{
	if (oc_holds(&a->oc[a->oc_last], ms, addr))
		return a->oc[a->oc_last].obj;
	size_t j = oc_slot(addr);
	if (!oc_holds(&a->oc[j], ms, addr))
		return -1;
	a->oc_last = j;
	return a->oc[j].obj;
}

/* Remember the range of addr's object i (m: its mapping, NULL: none). */
static void agg_obj_remember(struct agg *a, const struct pms_maps *ms, const struct pms_map *m,
			     uint64_t addr, long i)
{
	size_t j = oc_slot(addr);
	struct objcache *e = &a->oc[j];
	a->oc_last = j;
	e->obj = i;
	e->mapped = m != NULL;
	if (m) {
		e->k = (size_t)(m - ms->v);
		e->lo = m->start;
		e->hi = m->end;
		return;
	}
	size_t lo = 0, hi = ms->n; /* the first mapping starting above addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ms->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	e->k = lo;
	e->lo = lo ? ms->v[lo - 1].end : 0;
	e->hi = lo < ms->n ? ms->v[lo].start : UINT64_MAX;
}

/* An aggregated sample counted into a data object's row. */
static inline __attribute__((always_inline)) void agg_obj_account(struct pms_memreport_site *o, const struct aggin *x, int home)
{
	mp_site_count(o, x->valid, x->weight, x->mem_node, x->cpu_node, home);
}

/* Count the held-back instructions into the IP table: one pass, each slot
 * prefetched IPB_AHEAD ahead (the table grows first, so the slots stay). */
static int agg_ipflush(struct agg *a)
{
	struct iptab *t = &a->ipt;
	size_t n = a->nipb;
	bool nodes = a->ipb_nodes;
	a->nipb = 0;
	a->ipb_nodes = false;
	if (!n)
		return 0;
	if (!iptab_room(t, n, nodes))
		return pms_err(PMS_ENOMEM, "memprof: no memory for %zu instructions", t->n + n);
	for (size_t i = 0; i < IPB_AHEAD && i < n; i++)
		__builtin_prefetch(&t->v[iptab_home(t, a->ipb[i].ip)]);
	for (size_t i = 0; i < n; i++) {
		const struct ipb *b = &a->ipb[i];
		if (i + IPB_AHEAD < n)
			__builtin_prefetch(&t->v[iptab_home(t, a->ipb[i + IPB_AHEAD].ip)]);
		size_t j = iptab_slot(t, b->ip);
		struct ipslot *e = &t->v[j];
		if (!e->samples) {
			e->ip = b->ip;
			e->wk = (b->fl & IPB_KERNEL) | ((b->fl & IPB_FOREIGN) ? 2 : 0);
			t->n++;
		}
		e->samples++;
		if (b->fl & IPB_WEIGHT) {
			e->latency += b->weight;
			e->wk += 4;
		}
		if (b->fl & IPB_RESOLVED) {
			struct ipnode *nd = &t->nv[j];
			nd->resolved++;
			nd->remote += (b->fl & IPB_REMOTE) != 0;
			nd->on_home += (b->fl & IPB_HOME) != 0;
		}
	}
	return 0;
}

/* The index in a->objs of the data object starting at start (UINT64_MAX:
 * unmapped; m: its mapping, NULL for the workload's or an unmapped
 * address), added at its first address addr; a negative PMS_E* when
 * there is no memory.  Out of agg_add: only an address no remembered
 * range holds comes here. */
static __attribute__((noinline)) long agg_obj_of(struct pms_memprof *p, const struct pms_map *m,
						 uint64_t start, uint64_t addr)
{
	struct agg *a = p->agg;
	bool added;
	long i;
	int rc;
	if ((rc = mp_grow((void **)&a->objs, &a->objcap, a->nobjs, sizeof(*a->objs))) < 0)
		return rc;
	if ((i = mp_u64map_get(&a->objmap, start, a->nobjs, &added)) < 0)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	if (added) {
		struct objacc *o = &a->objs[a->nobjs++];
		memset(o, 0, sizeof(*o));
		char buf[256];
		const char *name, *kind, *module = "";
		o->addr0 = addr;
		if (start == UINT64_MAX) {
			name = "[unmapped]";
			kind = "unmapped";
		} else if (!m) {
			o->site.addr = p->home_start;
			o->site.size = p->home_end - p->home_start;
			name = p->home_name;
			kind = "workload";
		} else {
			o->site.addr = m->start;
			o->site.size = m->end - m->start;
			kind = pms_map_kind_name(m->kind);
			module = m->path;
			if (m->kind == PMS_MAP_ANON) {
				snprintf(buf, sizeof(buf), "[anon 0x%" PRIx64 "]", m->start);
				name = buf;
			} else {
				name = *m->path ? m->path : "[anon]";
			}
		}
		o->site.name = strdup(name);
		o->site.kind = strdup(kind);
		o->site.module = strdup(module);
		if (!o->site.name || !o->site.kind || !o->site.module)
			return pms_err(PMS_ENOMEM, "memprof: no memory");
	}
	return i;
}

/* The index in a->ds of a level key the hint (slot h) did not give, added
 * when new, and the hint set to it; a negative PMS_E* when there is no
 * memory. */
static __attribute__((noinline)) long agg_level_new(struct agg *a, uint64_t key, unsigned h)
{
	bool added;
	long i;
	int rc;
	if ((rc = mp_grow((void **)&a->ds, &a->dscap, a->nds, sizeof(*a->ds))) < 0)
		return rc;
	if ((i = mp_u64map_get(&a->dsmap, key, a->nds, &added)) < 0)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	if (added)
		a->ds[a->nds++] = (struct dsc){ key, 0 };
	if (i < UINT16_MAX)
		a->ds_hint[h] = (uint16_t)(i + 1);
	return i;
}

/* The aggregation of one sample, on the report's hottest path: what most
 * samples do stays inline (the level hint, the weight histogram, the
 * remembered object range), what few do (a new level, a new object's
 * row) is a call out of line, so that this one keeps a small frame. */
static int agg_add(struct pms_memprof *p, const struct aggin *x)
{
	struct agg *a = p->agg;
	const struct aggin *s = x;
	long i;
	int rc;

	if ((s->valid & PMS_MS_KERNEL_IP) || ((s->valid & PMS_MS_ADDR) && s->addr >= (1ULL << 63)))
		a->any_kernel = true;
	if ((s->valid & PMS_MS_WEIGHT) && (rc = agg_weight(a, s->weight)) < 0)
		return rc;
	{
		uint64_t key = s->level;
		if (key != PMS_MEM_NA_VALUE)
			a->with_data_src++;
		/* a few levels are the usual, up to a hundred in files of many
		 * data sources (PEBS/IBS/SPE decoders' words): a 1024-entry
		 * direct-mapped hint, asked for every sample (one test that
		 * holds, where "the same as the last sample's" failed on most
		 * samples of a file of mixed levels), then the map */
		unsigned h = (unsigned)((key * 0x9e3779b97f4a7c15ULL) >> (64 - DS_HINT_BITS));
		size_t k = a->ds_hint[h];
		if (__builtin_expect(!k || a->ds[k - 1].key != key, 0)) {
			long j = agg_level_new(a, key, h);
			if (j < 0)
				return (int)j;
			k = (size_t)j + 1;
		}
		a->ds[k - 1].n++;
	}
	if (s->valid & PMS_MS_IP) {
		/* counted in the IP table with the next IPB_N (agg_ipflush) */
		struct ipb *b = &a->ipb[a->nipb++];
		/* a foreign kernel IP (a merged report's): its key and mark,
		 * without a branch */
		uint32_t fgn = (s->valid >> 11) & (s->valid >> 12) & 1u;
		_Static_assert(PMS_MS_KERNEL_IP == 1u << 11 && PMS_MS_KERNEL_FOREIGN == 1u << 12,
			       "the shifts above");
		uint32_t fl = ((s->valid & PMS_MS_KERNEL_IP) ? IPB_KERNEL : 0) | fgn * IPB_FOREIGN;
		uint64_t ip = s->ip ^ ((uint64_t)fgn * MP_FOREIGN_BIT);
		if (s->valid & PMS_MS_WEIGHT)
			fl |= IPB_WEIGHT;
		if (x->mem_node >= 0) {
			fl |= IPB_RESOLVED;
			if (x->cpu_node >= 0 && x->mem_node != x->cpu_node)
				fl |= IPB_REMOTE;
			if (p->home_node >= 0 && x->mem_node == p->home_node)
				fl |= IPB_HOME;
			a->ipb_nodes = true;
		}
		b->ip = ip;
		b->weight = s->weight;
		b->fl = fl;
		if (a->nipb == IPB_N && (rc = agg_ipflush(a)) < 0)
			return rc;
	}
	/* nodes, as build_nodes counts them */
	if (!(s->valid & (PMS_MS_ADDR | PMS_MS_PHYS))) {
		a->no_addr++;
	} else if (x->mem_node < 0) {
		a->unresolved++;
		if (x->mem_node == PMS_NODE_NO_PHYS)
			a->st_efault++;
		else if (x->mem_node == PMS_NODE_NO_BLOCK)
			a->st_enoent++;
		else if (x->mem_node == PMS_NODE_NOT_ASKED)
			a->st_not_asked++;
		else if (x->mem_node == PMS_NODE_TASK_GONE || x->mem_node == PMS_NODE_BAD_ADDR)
			a->st_gone++;
		else
			a->st_other++;
	} else {
		a->resolved++;
		a->from_phys += x->node_from_phys;
		if (p->home_node >= 0) {
			if (x->mem_node == p->home_node)
				a->on_home++;
			else
				a->elsewhere++;
		}
		size_t k;
		for (k = 0; k < a->npairs; k++)
			if (a->pairs[k].cpu == x->cpu_node && a->pairs[k].mem == x->mem_node)
				break;
		if (k == a->npairs) {
			struct pair *np = realloc(a->pairs, (k + 1) * sizeof(*np));
			if (!np)
				return pms_err(PMS_ENOMEM, "memprof: no memory");
			a->pairs = np;
			np[k] = (struct pair){ x->cpu_node, x->mem_node, 0 };
			a->npairs++;
		}
		a->pairs[k].n++;
	}
	if (!(s->valid & PMS_MS_ADDR))
		return 0;
	a->with_addr++;
	/* the data object, named by the mappings as they are now */
	uint64_t addr = s->addr, start;
	const struct pms_map *m = NULL;
	bool home = p->home_end > p->home_start && addr >= p->home_start && addr < p->home_end;
	if (home) {
		start = p->home_start;
	} else if ((i = agg_obj_cached(a, p->maps, addr)) >= 0) {
		/* a remembered object, still the one holding addr */
		agg_obj_account(&a->objs[i].site, x, p->home_node);
		return 0;
	} else {
		m = pms_maps_find(p->maps, addr);
		start = m ? m->start : UINT64_MAX;
	}
	if ((i = agg_obj_of(p, m, start, addr)) < 0)
		return (int)i;
	if (!home)
		agg_obj_remember(a, p->maps, m, addr, i);
	agg_obj_account(&a->objs[i].site, x, p->home_node);
	return 0;
}


static int agg_push(struct pms_memprof *p, const struct pms_memsample *s, int mem_node,
		    int cpu_node)
{
	struct aggin x = {
		.ip = s->ip, .addr = s->addr, .weight = s->weight, .level = level_key(s),
		.valid = s->valid, .mem_node = mem_node, .cpu_node = cpu_node,
		.node_from_phys = mem_node >= 0 && (s->valid & PMS_MS_PHYS),
	};
	p->agg->samples++;
	return agg_add(p, &x);
}

/* Count the instructions held back (before a report or a merge reads the
 * IP table). */
int mp_agg_flush(struct pms_memprof *p)
{
	return p->agg ? agg_ipflush(p->agg) : 0;
}

int pms_memprof_add_node(struct pms_memprof *p, const struct pms_memsample *s, int mem_node,
			 int cpu_node)
{
	if (!p || !s)
		return pms_err(PMS_EINVAL, "memprof add: NULL argument");
	if (p->agg) {
		if (p->cur_source >= 0)
			p->sources[p->cur_source].samples++;
		return agg_push(p, s, mem_node, cpu_node >= 0 ? cpu_node : -1);
	}
	struct pms_memreport_sample x;
	memset(&x, 0, sizeof(x));
	x.s = *s;
	x.mem_node = mem_node;
	x.cpu_node = cpu_node >= 0 ? cpu_node : -1;
	x.node_from_phys = mem_node >= 0 && (s->valid & PMS_MS_PHYS);
	x.site = x.object = -1;
	x.source = p->cur_source;
	if (p->cur_source >= 0)
		p->sources[p->cur_source].samples++;
	if (p->released)
		return pms_err(PMS_EINVAL, "memprof add: the report of this profile was built "
					   "(no_sample_list: its samples are gone)");
	uint32_t task;
	int rc = mp_task_sampled(p, s, &task);
	if (rc < 0)
		return rc;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 4096;
		struct ksample *v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return pms_err(PMS_ENOMEM, "memprof: no memory for %zu samples", cap);
		p->v = v;
		if (p->keep_all) {
			struct kextra *xv = realloc(p->xv, cap * sizeof(*xv));
			if (!xv)
				return pms_err(PMS_ENOMEM, "memprof: no memory for %zu samples", cap);
			p->xv = xv;
		}
		p->cap = cap;
	}
	/* the sample's data_src, one copy of each value */
	uint64_t dsval = s->data_src;
	long ds;
	if (p->n && p->dsv[p->v[p->n - 1].ds] == dsval) {
		ds = (long)p->v[p->n - 1].ds; /* as the last sample's (runs are common) */
	} else {
		bool added;
		if ((!p->dsvmap && !(p->dsvmap = calloc(1, sizeof(*p->dsvmap)))) ||
		    mp_grow((void **)&p->dsv, &p->dsvcap, p->ndsv, sizeof(*p->dsv)) < 0 ||
		    (ds = mp_u64map_get(p->dsvmap, dsval, p->ndsv, &added)) < 0)
			return pms_err(PMS_ENOMEM, "memprof: no memory for data sources");
		if (added)
			p->dsv[p->ndsv++] = dsval;
	}
	/* its CPU's node, one copy of each */
	size_t cn = p->n ? p->v[p->n - 1].cpu : 0;
	if (!p->ncpun || p->cpun[cn] != x.cpu_node) {
		for (cn = 0; cn < p->ncpun && p->cpun[cn] != x.cpu_node; cn++)
			;
		if (cn == p->ncpun) {
			if (cn > 0x7fff)
				return pms_err(PMS_EINVAL, "memprof: more than 32768 CPU nodes");
			if (mp_grow((void **)&p->cpun, &p->cpuncap, p->ncpun, sizeof(*p->cpun)) < 0)
				return pms_err(PMS_ENOMEM, "memprof: no memory for CPU nodes");
			p->cpun[p->ncpun++] = x.cpu_node;
		}
	}
	/* taken before its thread's exec (the exec's COMM came first, from
	 * another ring): that address space is gone */
	if (x.mem_node == PMS_NODE_UNKNOWN && task != KNO_TASK && p->tn[task].exec_time &&
	    (s->valid & PMS_MS_TIME) && s->time < p->tn[task].exec_time)
		x.mem_node = PMS_NODE_EXEC_REPLACED;
	/* a node given here is kept: pms_memprof_resolve passes over it */
	p->v[p->n] = (struct ksample){
		.ip = s->ip, .addr = s->addr, .weight = s->weight, .task = task,
		.ds = (uint32_t)ds, .mem_node = x.mem_node, .valid = s->valid & 0x1fffu,
		.from_phys = x.node_from_phys, .cpu = (unsigned)cn,
	};
	if (mp_askable(p, &p->v[p->n], PMS_MEMPROF_RESOLVE_TRIES + 1)) {
		if (mp_grow((void **)&p->open, &p->opencap, p->nopen, sizeof(*p->open)) < 0)
			return pms_err(PMS_ENOMEM, "memprof: no memory for %zu samples", p->n + 1);
		p->open[p->nopen++] = p->n;
	}
	if (p->xv)
		p->xv[p->n] = (struct kextra){
			.time = s->time, .phys_addr = s->phys_addr, .page_size = s->page_size,
			.period = s->period, .site = -1, .object = -1, .pid = s->pid, .tid = s->tid,
			.cpu = s->cpu,
			.ins_lat = s->ins_lat, .source = (int32_t)x.source, .engine = (uint8_t)s->engine,
		};
	p->n++;
	return 0;
}

int pms_memprof_add_src(struct pms_memprof *p, const struct pms_memsrc_sample *s)
{
	if (!p || !s)
		return pms_err(PMS_EINVAL, "memprof add: NULL argument");
	return pms_memprof_add_node(p, &s->ms, s->mem_node, s->cpu_node);
}

void pms_memreport_input_from_src(struct pms_memreport_input *in,
				  const struct pms_memsrc_info *info,
				  const struct pms_memsrc_stats *st)
{
	in->engine = info->engine;
	in->pmus = info->pmus;
	in->label = info->label;
	in->notes = info->notes;
	in->data_src = info->data_src;
	in->phys = info->phys;
	in->attempts = info->attempts;
	in->nattempts = info->nattempts;
	in->stats = st;
	in->recorded = info->kind == PMS_MEMSRC_FILE;
}

int pms_memprof_set_node_ids(struct pms_memprof *p, const int *ids, size_t n)
{
	if (!p || (n && !ids))
		return pms_err(PMS_EINVAL, "memprof set_node_ids: NULL argument");
	if (!p->agg)
		return pms_err(PMS_EINVAL, "memprof set_node_ids: only in aggregate mode");
	int *v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	if (n)
		memcpy(v, ids, n * sizeof(*v));
	free(p->agg->ids);
	p->agg->ids = v;
	p->agg->nids = n;
	return 0;
}

int pms_memprof_add(struct pms_memprof *p, const struct pms_memsample *s)
{
	if (!p || !s)
		return pms_err(PMS_EINVAL, "memprof add: NULL argument");
	/* The hints a live source gives (memsrc.c live_sample): the CPU's
	 * node from the topology, the memory's from a physical address in a
	 * known memory block; the rest is for the oracle. */
	int cn = (s->valid & PMS_MS_CPU) && p->topo ? pms_topo_node_of_cpu(p->topo, (int)s->cpu) : -1;
	int mn = (s->valid & PMS_MS_PHYS) && p->topo ? pms_topo_node_of_phys(p->topo, s->phys_addr)
						     : PMS_NODE_UNKNOWN;
	return pms_memprof_add_node(p, s, mn >= 0 ? mn : PMS_NODE_UNKNOWN, cn);
}
