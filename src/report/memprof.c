/* `pmuscope mem` aggregation: samples in, node resolution in batches, and a
 * report struct out (levels, latency percentiles, node classification, the
 * CPU-node x memory-node matrix, top instructions/functions/data objects). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pmuscope/datasrc.h"
#include "pmuscope/report.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/opts.h"

#define DEFAULT_TOP 10

/* One kept sample as the report reads it: 40 bytes, not the 144 of a
 * struct pms_memreport_sample (a live run keeps hundreds of thousands).
 * The rest of a sample, and its site/object indexes, are kept beside it
 * (struct kextra) only when report.all is to be built. */
struct ksample {
	uint64_t ip, addr, weight;
	uint32_t task;    /* its thread: the index in pms_memprof.tn; KNO_TASK
			   * without PMS_MS_TID */
	uint32_t ds;      /* its data_src: the index in pms_memprof.dsv */
	int32_t mem_node; /* as pms_memreport_sample.mem_node */
	unsigned valid : 12;    /* PMS_MS_* */
	unsigned tries : 3;     /* times its page was asked about (at most
				 * PMS_MEMPROF_RESOLVE_TRIES + 1) */
	unsigned from_phys : 1;
	unsigned cpu : 16;      /* its CPU's node: the index in pms_memprof.cpun */
};
#define KNO_TASK UINT32_MAX
_Static_assert(sizeof(struct ksample) == 40, "a kept sample is 40 bytes");
_Static_assert(PMS_MS_KERNEL_IP < (1u << 12), "PMS_MS_* bits fit a kept sample's valid");
_Static_assert(PMS_MEMPROF_RESOLVE_TRIES + 1 < 8, "a kept sample's tries fit 3 bits");

struct kextra {
	uint64_t time, phys_addr, page_size, period;
	int64_t site, object;
	uint32_t pid, tid, cpu, ins_lat;
	int32_t source;
	uint8_t engine;
};

struct pms_memprof {
	const struct pms_topo *topo;
	pid_t pid;
	int home_node;
	uint64_t home_start, home_end;
	char *home_name;
	size_t top;
	struct ksample *v;  /* kept-samples mode: every sample, in arrival order */
	struct kextra *xv;  /* ... and the rest of each (NULL: no report.all) */
	bool keep_all;      /* report.all is built (not opts.no_sample_list) */
	bool released;      /* no_sample_list: the report was built, v is gone */
	uint32_t last_pid, last_tid, last_task; /* task_sampled's last answer */
	bool last_ok;
	size_t n, cap;
	uint64_t *dsv;      /* the distinct data_src values of the kept samples */
	size_t ndsv, dsvcap;
	int *cpun;          /* ... and their distinct CPU nodes (-1: unknown) */
	size_t ncpun, cpuncap;
	struct u64map *dsvmap; /* data_src -> index in dsv */
	/* kept samples whose node may still be asked about, in arrival
	 * order (a resolve looks at these, not at every sample) */
	size_t *open;
	size_t nopen, opencap;
	uint64_t resolved_held; /* samples resolved while their process was held */
	bool per_pid_funcs;
	/* sampled (and COMM/FORK-named) processes and threads */
	struct u64map *tmap;
	struct taskname {
		uint32_t pid, tid;
		char *comm;
		bool sampled, asked;
		bool maps_done; /* its process's maps were looked at (read_maps) */
	} *tn;
	size_t ntn, tncap;
	struct pms_maps *maps;
	/* live system-wide (no pid, not aggregate): each process's own
	 * mappings; maps is then their union, rebuilt when asked for after a
	 * change (pms_memprof_maps) */
	bool per_pid_maps, maps_dirty;
	struct u64map *pmmap; /* pid -> index into pm */
	struct pidmaps {
		uint32_t pid;
		struct pms_maps *maps;
		bool read; /* its proc/PID/maps read (pms_memprof_read_maps) */
	} *pm;
	size_t npm, pmcap;
	uint64_t *addrs;
	int *nodes;
	size_t scratch_cap;
	struct agg *agg; /* aggregate mode: everything below instead of v */
	bool recorded;   /* the report being built is of a recorded file */
	struct pms_memreport_count *sources; /* pms_memprof_set_source */
	size_t nsources;
	long cur_source; /* -1: none */
};

/* A kept sample's process, thread (0 without PMS_MS_TID) and CPU node. */
static inline uint32_t kpid(const struct pms_memprof *p, const struct ksample *x)
{
	return x->task == KNO_TASK ? 0 : p->tn[x->task].pid;
}

static inline uint32_t ktid(const struct pms_memprof *p, const struct ksample *x)
{
	return x->task == KNO_TASK ? 0 : p->tn[x->task].tid;
}

static inline int kcpu(const struct pms_memprof *p, const struct ksample *x)
{
	return p->cpun[x->cpu];
}

/* ---- aggregate mode ---------------------------------------------------------
 * Samples are folded into per-key counters as they come; memory grows with
 * distinct IPs, data objects, data_src values and node pairs, not with
 * samples.  Latency percentiles come from a histogram that is exact below
 * WH_EXACT cycles and, above, keeps each value's 9 most significant bits
 * (relative error < 1/256, the bucket's lowest value is reported); min,
 * max and mean stay exact. */
#define WH_EXACT 65536u
#define WH_SUB 256u /* buckets per power of two above WH_EXACT */

struct u64map { /* open addressing, key -> index + 1 (0 = empty) */
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n;
};

struct objacc {
	struct pms_memreport_site site; /* name/kind/module set at first sight */
	uint64_t addr0;                 /* first data address seen in it */
};

struct pair {
	int cpu, mem;
	uint64_t n;
};

/* One instruction's counters in one 32-byte slot of an open-addressing
 * table (two to a cache line): the hottest lookup of the aggregate costs
 * one cache miss (a key map, an index and a separate site were three).
 * samples 0: a free slot.  wk: the samples with a weight << 1 | kernel.
 * The node counters sit in a parallel array that exists only once a
 * sample had a memory node (most recorded files have none). */
struct ipslot {
	uint64_t ip, samples, latency, wk;
};

struct ipnode {
	uint64_t resolved, remote, on_home;
};

struct iptab {
	struct ipslot *v;
	struct ipnode *nv; /* NULL until needed; cap entries, slot order */
	size_t cap, n;
	unsigned shift; /* 64 - log2(cap) */
};

/* Instructions an aggregate holds back to count in one pass over the IP
 * table (agg_ipflush): the table outgrows the caches at a few hundred
 * thousand instructions, and a tight loop over IPB_N of them, each slot
 * prefetched IPB_AHEAD ahead, overlaps their misses, where one lookup per
 * sample amid the decoding waits for each (0.2 s of 0.6 s on 5 M samples
 * over 300 K instructions). */
#define IPB_N 256
#define IPB_AHEAD 16
#define IPB_KERNEL 1u   /* PMS_MS_KERNEL_IP */
#define IPB_WEIGHT 2u   /* PMS_MS_WEIGHT */
#define IPB_RESOLVED 4u /* a memory node */
#define IPB_REMOTE 8u   /* ... not the CPU's */
#define IPB_HOME 16u    /* ... the home node */

/* One sample as the IP table counts it, its node flags fixed when it came. */
struct ipb {
	uint64_t ip, weight;
	uint32_t fl; /* IPB_* */
};

/* What the aggregate reads of a sample. */
struct aggin {
	uint64_t ip, addr, weight;
	uint64_t level; /* level_key */
	uint32_t valid; /* PMS_MS_* */
	int mem_node, cpu_node;
	bool node_from_phys;
};

/* The data_src bits the report reads: the level text (lvl, lvl_num,
 * remote, hops) and the op; snoop, TLB, lock, block and the rest do not
 * change a line, so they do not make a key of their own. */
#define DS_KEY_MASK                                                                   \
	((((1ULL << PMS_MEM_OP_WIDTH) - 1) << PMS_MEM_OP_SHIFT) |                     \
	 (((1ULL << PMS_MEM_LVL_WIDTH) - 1) << PMS_MEM_LVL_SHIFT) |                   \
	 (((1ULL << PMS_MEM_LVLNUM_WIDTH) - 1) << PMS_MEM_LVLNUM_SHIFT) |             \
	 (((1ULL << PMS_MEM_REMOTE_WIDTH) - 1) << PMS_MEM_REMOTE_SHIFT) |             \
	 (((1ULL << PMS_MEM_HOPS_WIDTH) - 1) << PMS_MEM_HOPS_SHIFT))

struct agg {
	uint64_t samples, with_addr, with_data_src;
	bool any_kernel;
	struct u64map objmap, dsmap;
	struct iptab ipt;
	struct objacc *objs;
	size_t nobjs, objcap;
	struct dsc {
		uint64_t key, n; /* key: data_src & DS_KEY_MASK */
	} *ds;
	size_t nds, dscap, ds_last;
	uint8_t ds_hint[64]; /* hash of a key -> its index + 1 (0: none) */
	struct pair *pairs;
	size_t npairs;
	uint64_t *wlo, *whi; /* histogram: exact part, log part */
	uint64_t wn, wmin, wmax;
	double wsum;
	/* node counters, as build_nodes computes them from kept samples */
	uint64_t no_addr, unresolved, resolved, from_phys, on_home, elsewhere;
	uint64_t st_efault, st_enoent, st_not_asked, st_gone, st_other;
	int *ids; /* node ids named by pms_memprof_set_node_ids */
	size_t nids;
	/* The samples' instructions not yet in ipt (agg_flush counts them) */
	struct ipb ipb[IPB_N];
	size_t nipb;
	bool ipb_nodes; /* one of them has a memory node */
	/* The last data object's range and object oc_obj: mapped, the
	 * mapping maps->v[oc_k] = [oc_lo, oc_hi); else the gap [oc_lo, oc_hi)
	 * between maps->v[oc_k - 1] and maps->v[oc_k].  Checked again at each
	 * use (the maps may have changed since): agg_obj_cached. */
	size_t oc_k;
	uint64_t oc_lo, oc_hi;
	long oc_obj;
	bool oc_mapped;
};

PMS_OPTS_LAYOUT(PMS_MEMPROF_OPTS, struct pms_memprof_opts,
		PMS_OPTS_END(struct pms_memprof_opts, top),
		PMS_OPTS_END(struct pms_memprof_opts, aggregate),
		PMS_OPTS_END(struct pms_memprof_opts, functions_per_pid),
		PMS_OPTS_END(struct pms_memprof_opts, no_sample_list));

int pms_memprof_new(const struct pms_topo *topo, const struct pms_memprof_opts *opts,
		    struct pms_memprof **out)
{
	struct pms_memprof_opts o;
	struct pms_memprof *p = NULL;
	int rc = 0;

	if (out)
		*out = NULL;
	if (!out)
		return pms_err(PMS_EINVAL, "memprof: NULL out");
	if ((rc = PMS_OPTS_TAKE("pms_memprof_new", PMS_MEMPROF_OPTS, opts, &o)) < 0)
		return rc;
	opts = &o; /* an older caller's later fields: the defaults */
	p = calloc(1, sizeof(*p));
	if (!p)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	p->topo = topo;
	p->pid = opts->pid;
	p->home_node = opts->home_node;
	p->home_start = opts->home_start;
	p->home_end = opts->home_end;
	p->home_name = strdup(opts->home_name ? opts->home_name : "workload buffer");
	p->top = opts->top ? opts->top : DEFAULT_TOP;
	p->per_pid_funcs = opts->functions_per_pid;
	p->keep_all = !opts->no_sample_list;
	p->cur_source = -1;
	if (opts->aggregate) {
		p->agg = calloc(1, sizeof(*p->agg));
		if (!p->agg) {
			rc = pms_err(PMS_ENOMEM, "memprof: no memory");
			goto out;
		}
	}
	if (!p->home_name) {
		rc = pms_err(PMS_ENOMEM, "memprof: no memory");
		goto out;
	}
	rc = pms_maps_new(&p->maps);
	if (rc < 0)
		goto out;
	p->per_pid_maps = !p->pid && !p->agg;
	*out = p;
	p = NULL;
out:
	pms_memprof_free(p);
	return rc;
}

static void site_free(struct pms_memreport_site *s);
static void sites_free(struct pms_memreport_site *v, size_t n);
static void task_free(struct pms_memreport_task *t);

static void agg_free(struct agg *a)
{
	if (!a)
		return;
	free(a->ipt.v);
	free(a->ipt.nv);
	free(a->objmap.keys);
	free(a->objmap.vals);
	free(a->dsmap.keys);
	free(a->dsmap.vals);
	for (size_t i = 0; i < a->nobjs; i++)
		site_free(&a->objs[i].site);
	free(a->objs);
	free(a->ds);
	free(a->pairs);
	free(a->wlo);
	free(a->whi);
	free(a->ids);
	free(a);
}

void pms_memprof_free(struct pms_memprof *p)
{
	if (!p)
		return;
	agg_free(p->agg);
	free(p->v);
	free(p->xv);
	free(p->open);
	free(p->cpun);
	free(p->dsv);
	if (p->dsvmap) {
		free(p->dsvmap->keys);
		free(p->dsvmap->vals);
		free(p->dsvmap);
	}
	free(p->home_name);
	pms_maps_free(p->maps);
	for (size_t i = 0; i < p->npm; i++)
		pms_maps_free(p->pm[i].maps);
	free(p->pm);
	if (p->pmmap) {
		free(p->pmmap->keys);
		free(p->pmmap->vals);
		free(p->pmmap);
	}
	free(p->addrs);
	free(p->nodes);
	for (size_t i = 0; i < p->ntn; i++)
		free(p->tn[i].comm);
	free(p->tn);
	if (p->tmap) {
		free(p->tmap->keys);
		free(p->tmap->vals);
		free(p->tmap);
	}
	for (size_t i = 0; i < p->nsources; i++)
		free(p->sources[i].name);
	free(p->sources);
	free(p);
}

int pms_memprof_set_source(struct pms_memprof *p, const char *name)
{
	if (!p || !name)
		return pms_err(PMS_EINVAL, "memprof set_source: NULL argument");
	for (size_t i = 0; i < p->nsources; i++)
		if (!strcmp(p->sources[i].name, name)) {
			p->cur_source = (long)i;
			return 0;
		}
	struct pms_memreport_count *v = realloc(p->sources, (p->nsources + 1) * sizeof(*v));
	if (!v)
		return pms_err(PMS_ENOMEM, "memprof: no memory for source '%s'", name);
	p->sources = v;
	if (!(v[p->nsources].name = strdup(name)))
		return pms_err(PMS_ENOMEM, "memprof: no memory for source '%s'", name);
	v[p->nsources].samples = 0;
	p->cur_source = (long)p->nsources++;
	return 0;
}

static long u64map_get(struct u64map *m, uint64_t key, size_t next, bool *added);
static long u64map_find(const struct u64map *m, uint64_t key);

/* The mappings of one process; with create, made when absent (NULL: no
 * memory), else NULL when absent. */
static struct pms_maps *pid_maps(struct pms_memprof *p, uint32_t pid, bool create)
{
	long i = p->pmmap ? u64map_find(p->pmmap, pid) : -1;
	if (i >= 0)
		return p->pm[i].maps;
	if (!create)
		return NULL;
	struct pms_maps *m = NULL;
	bool added;
	if ((!p->pmmap && !(p->pmmap = calloc(1, sizeof(*p->pmmap)))) ||
	    pms_grow(&p->pm, &p->pmcap, p->npm + 1, sizeof(*p->pm), 64, "per-process maps") < 0 ||
	    pms_maps_new(&m) < 0)
		return NULL;
	if (u64map_get(p->pmmap, pid, p->npm, &added) < 0) {
		pms_maps_free(m);
		return NULL;
	}
	p->pm[p->npm++] = (struct pidmaps){ pid, m, false };
	return m;
}

/* The maps a kept sample's addresses are looked up in. */
static const struct pms_maps *maps_of(struct pms_memprof *p, const struct ksample *s)
{
	if (!p->per_pid_maps || !(s->valid & PMS_MS_TID))
		return p->maps;
	const struct pms_maps *m = pid_maps(p, kpid(p, s), false);
	return m ? m : p->maps;
}

static int mapref_cmp(const void *a, const void *b)
{
	const struct pms_map *x = *(const struct pms_map *const *)a,
			     *y = *(const struct pms_map *const *)b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The union of every process's mappings, in address order (where two
 * processes map the same range, one of them). */
static int union_maps(struct pms_memprof *p)
{
	size_t n = 0, k = 0;
	for (size_t i = 0; i < p->npm; i++)
		n += p->pm[i].maps->n;
	const struct pms_map **v = malloc((n ? n : 1) * sizeof(*v));
	struct pms_maps *u = NULL;
	int rc;
	if (!v)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	for (size_t i = 0; i < p->npm; i++)
		for (size_t j = 0; j < p->pm[i].maps->n; j++)
			v[k++] = &p->pm[i].maps->v[j];
	qsort(v, n, sizeof(*v), mapref_cmp);
	if ((rc = pms_maps_new(&u)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		if ((rc = pms_maps_add(u, v[i]->start, v[i]->end - v[i]->start, v[i]->pgoff,
				       v[i]->ino, v[i]->exec, v[i]->path)) < 0)
			goto out;
	pms_maps_free(p->maps);
	p->maps = u;
	u = NULL;
	p->maps_dirty = false;
out:
	pms_maps_free(u);
	free(v);
	return rc;
}

struct pms_maps *pms_memprof_maps(struct pms_memprof *p)
{
	if (p && p->per_pid_maps && p->maps_dirty)
		(void)union_maps(p); /* on no memory: the last union */
	return p ? p->maps : NULL;
}

const struct pms_maps *pms_memprof_maps_pid(struct pms_memprof *p, pid_t pid)
{
	if (!p)
		return NULL;
	if (!p->per_pid_maps)
		return p->maps;
	const struct pms_maps *m = pid_maps(p, (uint32_t)pid, false);
	return m ? m : pms_memprof_maps(p);
}

void pms_memprof_set_home(struct pms_memprof *p, int node, uint64_t start, uint64_t end)
{
	if (!p)
		return;
	p->home_node = node;
	p->home_start = start;
	p->home_end = end;
}

size_t pms_memprof_count(const struct pms_memprof *p)
{
	return !p ? 0 : p->agg ? (size_t)p->agg->samples : p->n;
}

/* Index of key in m, adding it as `next` (the caller's new slot) when absent:
 * the index, or -1 when there is no memory. */
static long u64map_find(const struct u64map *m, uint64_t key)
{
	if (!m->cap)
		return -1;
	size_t j = (key * 0x9e3779b97f4a7c15ULL >> 20) & (m->cap - 1);
	while (m->vals[j]) {
		if (m->keys[j] == key)
			return (long)m->vals[j] - 1;
		j = (j + 1) & (m->cap - 1);
	}
	return -1;
}

static long u64map_get(struct u64map *m, uint64_t key, size_t next, bool *added)
{
	*added = false;
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		uint64_t *k = calloc(cap, sizeof(*k));
		uint32_t *v = calloc(cap, sizeof(*v));
		if (!k || !v) {
			free(k);
			free(v);
			return -1;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->vals[i])
				continue;
			size_t j = (m->keys[i] * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1);
			while (v[j])
				j = (j + 1) & (cap - 1);
			k[j] = m->keys[i];
			v[j] = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		m->keys = k;
		m->vals = v;
		m->cap = cap;
	}
	size_t j = (key * 0x9e3779b97f4a7c15ULL >> 20) & (m->cap - 1);
	while (m->vals[j]) {
		if (m->keys[j] == key)
			return (long)m->vals[j] - 1;
		j = (j + 1) & (m->cap - 1);
	}
	if (next >= UINT32_MAX)
		return -1;
	m->keys[j] = key;
	m->vals[j] = (uint32_t)next + 1;
	m->n++;
	*added = true;
	return (long)next;
}

/* Grow *v (elements of size sz) to hold n + 1. */
static int grow(void **v, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 256;
	void *nv = realloc(*v, c * sz);
	if (!nv)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	*v = nv; /* the caller zeroes each entry it takes (untouched pages stay free) */
	*cap = c;
	return 0;
}

static void site_count(struct pms_memreport_site *s, uint32_t valid, uint64_t weight, int mem_node,
		       int cpu_node, int home);
static bool kernel_ip(const struct pms_memsample *s);

static size_t iptab_home(const struct iptab *t, uint64_t ip)
{
	return (size_t)((ip * 0x9e3779b97f4a7c15ULL) >> t->shift);
}

#define IPTAB_HUGE ((size_t)2 << 20)

/* A table of cap slots (and node counters when with_nodes) holding t's
 * entries; false when there is no memory (t unchanged). */
static bool iptab_resize(struct iptab *t, size_t cap, bool with_nodes)
{
	unsigned shift = 64u - (unsigned)__builtin_ctzll(cap);
	size_t bytes = cap * sizeof(struct ipslot);
	struct ipslot *v;
	if (bytes >= IPTAB_HUGE) {
		/* a table of megabytes is probed at random: on 2 MiB pages (where
		 * the kernel gives them: transparent huge pages on madvise) the
		 * probes stop missing the TLB */
		v = aligned_alloc(IPTAB_HUGE, bytes);
		if (v) {
			(void)madvise(v, bytes, MADV_HUGEPAGE);
			memset(v, 0, bytes);
		}
	} else {
		v = calloc(cap, sizeof(*v));
	}
	struct ipnode *nv = with_nodes ? calloc(cap, sizeof(*nv)) : NULL;
	if (!v || (with_nodes && !nv)) {
		free(v);
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
	free(t->v);
	free(t->nv);
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
	if (nodes && !t->nv && t->cap && !iptab_resize(t, t->cap, true))
		return false;
	size_t cap = t->cap ? t->cap : 4096;
	while ((t->n + n) * 4 > cap * 3)
		cap *= 2;
	return cap == t->cap || iptab_resize(t, cap, t->nv != NULL || nodes);
}

/* The slot index of ip (samples == 0: a free one for it), growing the
 * table to keep it at most 3/4 full, with node counters from now on when
 * nodes; SIZE_MAX when there is no memory. */
static size_t iptab_get(struct iptab *t, uint64_t ip, bool nodes)
{
	if (!iptab_room(t, 1, nodes))
		return SIZE_MAX;
	return iptab_slot(t, ip);
}

/* ---- processes and threads ------------------------------------------------
 * One entry per (pid, tid) seen in a sample, COMM or FORK; a process is its
 * (pid, pid) entry. */
static long task_get(struct pms_memprof *p, uint32_t pid, uint32_t tid)
{
	bool added;
	if (!p->tmap && !(p->tmap = calloc(1, sizeof(*p->tmap))))
		return -1;
	if (grow((void **)&p->tn, &p->tncap, p->ntn, sizeof(*p->tn)) < 0)
		return -1;
	long i = u64map_get(p->tmap, (uint64_t)pid << 32 | tid, p->ntn, &added);
	if (i >= 0 && added)
		p->tn[p->ntn++] = (struct taskname){ pid, tid, NULL, false, false, false };
	return i;
}

static const char *task_comm(const struct pms_memprof *p, uint32_t pid, uint32_t tid)
{
	if (!p->tmap || !p->tmap->cap)
		return "";
	const struct u64map *m = p->tmap;
	uint64_t key = (uint64_t)pid << 32 | tid;
	size_t j = (key * 0x9e3779b97f4a7c15ULL >> 20) & (m->cap - 1);
	while (m->vals[j]) {
		if (m->keys[j] == key) {
			const char *c = p->tn[m->vals[j] - 1].comm;
			return c ? c : "";
		}
		j = (j + 1) & (m->cap - 1);
	}
	return "";
}

static int task_set_comm(struct pms_memprof *p, uint32_t pid, uint32_t tid, const char *comm)
{
	long i = task_get(p, pid, tid);
	char *c = strdup(comm ? comm : "");
	if (i < 0 || !c) {
		free(c);
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	}
	free(p->tn[i].comm);
	p->tn[i].comm = c;
	return 0;
}

/* Mark a sample's thread and process sampled; *task: the thread's index
 * in tn, KNO_TASK without PMS_MS_TID. */
static int task_sampled(struct pms_memprof *p, const struct pms_memsample *s, uint32_t *task)
{
	*task = KNO_TASK;
	if (!(s->valid & PMS_MS_TID))
		return 0;
	if (p->last_ok && p->last_pid == s->pid && p->last_tid == s->tid) {
		*task = p->last_task; /* runs of one thread are common */
		return 0;
	}
	long a = task_get(p, s->pid, s->tid), b = task_get(p, s->pid, s->pid);
	if (a < 0 || b < 0)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	p->tn[a].sampled = p->tn[b].sampled = true;
	*task = (uint32_t)a;
	p->last_pid = s->pid;
	p->last_tid = s->tid;
	p->last_task = *task;
	p->last_ok = true;
	return 0;
}

int pms_memprof_read_maps(struct pms_memprof *p, struct pms_sys *sys, size_t max)
{
	if (!p || !sys)
		return pms_err(PMS_EINVAL, "memprof read_maps: NULL argument");
	if (!p->per_pid_maps)
		return 0;
	int nread = 0;
	for (size_t i = 0; i < p->ntn && (!max || (size_t)nread < max); i++) {
		struct taskname *t = &p->tn[i];
		if (t->maps_done || !t->sampled || !t->pid || t->pid == UINT32_MAX)
			continue;
		struct pms_maps *m = pid_maps(p, t->pid, true);
		if (!m)
			return pms_err(PMS_ENOMEM, "memprof: no memory for a process's mappings");
		t->maps_done = true;
		struct pidmaps *e = &p->pm[u64map_find(p->pmmap, t->pid)];
		if (e->read)
			continue;
		/* once: a process gone by now keeps what its MMAP records said,
		 * and after an exec its MMAP records give the new image */
		e->read = true;
		if (pms_maps_read_proc(m, sys, (pid_t)t->pid) == 0) {
			nread++;
			p->maps_dirty = true;
		}
	}
	return nread;
}

int pms_memprof_name_tasks(struct pms_memprof *p, struct pms_sys *sys)
{
	if (!p || !sys)
		return pms_err(PMS_EINVAL, "memprof name_tasks: NULL argument");
	int named = 0;
	for (size_t i = 0; i < p->ntn; i++) {
		struct taskname *t = &p->tn[i];
		if (!t->sampled || t->comm || t->asked)
			continue;
		t->asked = true;
		char path[64], *line = NULL;
		snprintf(path, sizeof(path), "proc/%u/task/%u/comm", t->pid, t->tid);
		if (pms_sys_read_line(sys, path, &line) == 0) {
			t->comm = line;
			named++;
		}
	}
	return named;
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
	} else {
		if (!a->whi && !(a->whi = calloc((64 - 16) * WH_SUB, sizeof(*a->whi))))
			return pms_err(PMS_ENOMEM, "memprof: no memory for the latency histogram");
		a->whi[wh_bucket(w)]++;
	}
	if (!a->wn || w < a->wmin)
		a->wmin = w;
	if (!a->wn || w > a->wmax)
		a->wmax = w;
	a->wn++;
	a->wsum += (double)w;
	return 0;
}

/* Nearest-rank percentile from the histogram (same rank rule as
 * pms_percentile). */
static uint64_t agg_pct(const struct agg *a, double pct)
{
	if (!a->wn)
		return 0;
	double rank = ceil(pct / 100.0 * (double)a->wn);
	uint64_t want = rank < 1 ? 1 : (uint64_t)rank, cum = 0;
	if (want > a->wn)
		want = a->wn;
	for (size_t i = 0; a->wlo && i < WH_EXACT; i++)
		if ((cum += a->wlo[i]) >= want)
			return i;
	for (size_t b = 0; a->whi && b < (64 - 16) * WH_SUB; b++)
		if ((cum += a->whi[b]) >= want)
			return wh_value(b) > a->wmax ? a->wmax : wh_value(b);
	return a->wmax;
}

/* The data source a sample counts under: its own, or PERF_MEM_NA (perf's
 * "N/A") when it has none (not given, 0, or NA already). */
/* A sample's level key: its data_src, reduced to the bits the report reads
 * (DS_KEY_MASK), or PERF_MEM_NA's value when it has none ("N/A" as perf). */
static uint64_t level_key_of(uint32_t valid, uint64_t data_src)
{
	if (!(valid & PMS_MS_DATA_SRC) || !data_src || data_src == PMS_MEM_NA_VALUE)
		return PMS_MEM_NA_VALUE;
	return data_src & DS_KEY_MASK;
}

static uint64_t level_key(const struct pms_memsample *s)
{
	return level_key_of(s->valid, s->data_src);
}

/* Whether addr is in the remembered range and the maps still have it as
 * they had (a mapping, or a gap bounded by the same two mappings: sorted
 * and not overlapping, so nothing is between them). */
static bool agg_obj_cached(const struct agg *a, const struct pms_maps *ms, uint64_t addr)
{
	size_t k = a->oc_k;
	if (addr < a->oc_lo || addr >= a->oc_hi)
		return false;
	if (a->oc_mapped)
		return k < ms->n && ms->v[k].start == a->oc_lo && ms->v[k].end == a->oc_hi;
	if (k > ms->n || (k ? ms->v[k - 1].end != a->oc_lo : a->oc_lo != 0))
		return false;
	return k < ms->n ? ms->v[k].start == a->oc_hi : a->oc_hi == UINT64_MAX;
}

/* Remember the range of addr's object i (m: its mapping, NULL: none). */
static void agg_obj_remember(struct agg *a, const struct pms_maps *ms, const struct pms_map *m,
			     uint64_t addr, long i)
{
	a->oc_obj = i;
	a->oc_mapped = m != NULL;
	if (m) {
		a->oc_k = (size_t)(m - ms->v);
		a->oc_lo = m->start;
		a->oc_hi = m->end;
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
	a->oc_k = lo;
	a->oc_lo = lo ? ms->v[lo - 1].end : 0;
	a->oc_hi = lo < ms->n ? ms->v[lo].start : UINT64_MAX;
}

/* An aggregated sample counted into a data object's row. */
static void agg_obj_account(struct pms_memreport_site *o, const struct aggin *x, int home)
{
	site_count(o, x->valid, x->weight, x->mem_node, x->cpu_node, home);
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
			e->wk = b->fl & IPB_KERNEL;
			t->n++;
		}
		e->samples++;
		if (b->fl & IPB_WEIGHT) {
			e->latency += b->weight;
			e->wk += 2;
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

static int agg_add(struct pms_memprof *p, const struct aggin *x)
{
	struct agg *a = p->agg;
	const struct aggin *s = x;
	bool added;
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
		if (!a->nds || a->ds[a->ds_last].key != key) {
			/* a few levels are the usual: a 64-entry direct-mapped
			 * hint before the map (no data-dependent loop) */
			unsigned h = (unsigned)((key * 0x9e3779b97f4a7c15ULL) >> 58);
			size_t k = a->ds_hint[h];
			if (k && a->ds[k - 1].key == key) {
				a->ds_last = k - 1;
			} else {
				if ((rc = grow((void **)&a->ds, &a->dscap, a->nds, sizeof(*a->ds))) < 0)
					return rc;
				if ((i = u64map_get(&a->dsmap, key, a->nds, &added)) < 0)
					return pms_err(PMS_ENOMEM, "memprof: no memory");
				if (added)
					a->ds[a->nds++] = (struct dsc){ key, 0 };
				a->ds_last = (size_t)i;
				if (i < 255)
					a->ds_hint[h] = (uint8_t)(i + 1);
			}
		}
		a->ds[a->ds_last].n++;
	}
	if (s->valid & PMS_MS_IP) {
		/* counted in the IP table with the next IPB_N (agg_ipflush) */
		struct ipb *b = &a->ipb[a->nipb++];
		uint32_t fl = (s->valid & PMS_MS_KERNEL_IP) ? IPB_KERNEL : 0;
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
		b->ip = s->ip;
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
		if (x->mem_node == -EFAULT)
			a->st_efault++;
		else if (x->mem_node == -ENOENT)
			a->st_enoent++;
		else if (x->mem_node == PMS_NODE_UNKNOWN)
			a->st_not_asked++;
		else if (x->mem_node == -ESRCH || x->mem_node == -EINVAL)
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
	} else if (agg_obj_cached(a, p->maps, addr)) {
		/* the last sample's object, still the one holding addr */
		agg_obj_account(&a->objs[a->oc_obj].site, x, p->home_node);
		return 0;
	} else {
		m = pms_maps_find(p->maps, addr);
		start = m ? m->start : UINT64_MAX;
	}
	if ((rc = grow((void **)&a->objs, &a->objcap, a->nobjs, sizeof(*a->objs))) < 0)
		return rc;
	if ((i = u64map_get(&a->objmap, start, a->nobjs, &added)) < 0)
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
				snprintf(buf, sizeof(buf), "anon 0x%" PRIx64 " (%" PRIu64 " KiB)", m->start,
					 (m->end - m->start) >> 10);
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
	if (!home)
		agg_obj_remember(a, p->maps, m, addr, i);
	agg_obj_account(&a->objs[i].site, x, p->home_node);
	return 0;
}

static bool askable(const struct pms_memprof *p, const struct ksample *x, unsigned max);

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
static int agg_flush(struct pms_memprof *p)
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
	int rc = task_sampled(p, s, &task);
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
		    grow((void **)&p->dsv, &p->dsvcap, p->ndsv, sizeof(*p->dsv)) < 0 ||
		    (ds = u64map_get(p->dsvmap, dsval, p->ndsv, &added)) < 0)
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
			if (cn > 0xffff)
				return pms_err(PMS_EINVAL, "memprof: more than 65536 CPU nodes");
			if (grow((void **)&p->cpun, &p->cpuncap, p->ncpun, sizeof(*p->cpun)) < 0)
				return pms_err(PMS_ENOMEM, "memprof: no memory for CPU nodes");
			p->cpun[p->ncpun++] = x.cpu_node;
		}
	}
	/* a node given here is kept: pms_memprof_resolve passes over it */
	p->v[p->n] = (struct ksample){
		.ip = s->ip, .addr = s->addr, .weight = s->weight, .task = task,
		.ds = (uint32_t)ds, .mem_node = x.mem_node, .valid = s->valid & 0xfffu,
		.from_phys = x.node_from_phys, .cpu = (unsigned)cn,
	};
	if (askable(p, &p->v[p->n], PMS_MEMPROF_RESOLVE_TRIES + 1)) {
		if (grow((void **)&p->open, &p->opencap, p->nopen, sizeof(*p->open)) < 0)
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

int pms_memprof_sideband(struct pms_memprof *p, const struct pms_record *rec,
			 struct pms_numa_oracle *oracle)
{
	if (!p || !rec)
		return pms_err(PMS_EINVAL, "memprof sideband: NULL argument");
	switch (rec->type) {
	case PMS_RECORD_MMAP:
	case PMS_RECORD_MMAP2: {
		const struct pms_rec_mmap *m = &rec->mmap;
		/* pid -1: the kernel's own maps (perf synthesizes them), not a
		 * process's */
		if ((p->pid && (pid_t)m->pid != p->pid) || !m->len || m->pid == UINT32_MAX)
			return 0;
		struct pms_maps *into = p->maps;
		if (p->per_pid_maps) {
			if (!(into = pid_maps(p, m->pid, true)))
				return pms_err(PMS_ENOMEM, "memprof: no memory for a process's mappings");
			p->maps_dirty = true;
		}
		bool exec = rec->type == PMS_RECORD_MMAP2 ? (m->prot & PROT_EXEC) != 0
							  : !(rec->misc & PMS_MISC_MMAP_DATA);
		/* A file path, or perf's names for the rest ("//anon", "[heap]"). */
		const char *path = m->filename ? m->filename : "";
		if (!strcmp(path, "//anon"))
			path = "";
		int rc;
		/* perf records only executable mappings without -d; the
		 * symbolizer places an ELF by the mapping of its offset 0, so
		 * stand one in below the text where none is known (shared
		 * objects map file offset = address - base). */
		if (exec && m->pgoff && m->pgoff <= m->addr && path[0] == '/' &&
		    !pms_maps_find(into, m->addr - m->pgoff) &&
		    (rc = pms_maps_add(into, m->addr - m->pgoff, m->pgoff, 0,
				       rec->type == PMS_RECORD_MMAP2 ? m->ino : 0, false, path)) < 0)
			return rc;
		rc = pms_maps_add(into, m->addr, m->len, m->pgoff,
				      rec->type == PMS_RECORD_MMAP2 ? m->ino : 0, exec, path);
		if (rc < 0)
			return rc;
		pms_numa_oracle_invalidate_pid(oracle, (pid_t)m->pid, m->addr, m->len);
		return 0;
	}
	case PMS_RECORD_COMM: {
		int rc = p->agg ? 0 : task_set_comm(p, rec->comm.pid, rec->comm.tid, rec->comm.comm);
		if (rc < 0)
			return rc;
		if (rec->misc & PMS_MISC_COMM_EXEC) {
			/* exec replaced the address space: the pages this
			 * process had are no more */
			pms_numa_oracle_invalidate_pid(oracle, (pid_t)rec->comm.pid, 0, 0);
			/* aggregate mode (a recorded file, many processes): a
			 * later mapping replaces what it overlaps, nothing is
			 * dropped; the maps are the profiled process's */
			if (!p->agg && p->pid && (pid_t)rec->comm.pid == p->pid)
				pms_maps_remove(p->maps, 0, UINT64_MAX);
			struct pms_maps *own = p->per_pid_maps ? pid_maps(p, rec->comm.pid, false) : NULL;
			if (own) {
				pms_maps_remove(own, 0, UINT64_MAX);
				p->maps_dirty = true;
			}
		}
		return 0;
	}
	case PMS_RECORD_FORK:
		if (!p->agg) {
			/* a fork keeps its parent's name until it execs */
			const char *c = task_comm(p, rec->fork.ppid, rec->fork.ptid);
			if (!*c)
				c = task_comm(p, rec->fork.ppid, rec->fork.ppid);
			if (*c && !*task_comm(p, rec->fork.pid, rec->fork.tid)) {
				char *dup = strdup(c);
				int rc = dup ? task_set_comm(p, rec->fork.pid, rec->fork.tid, dup)
					     : pms_err(PMS_ENOMEM, "memprof: no memory");
				free(dup);
				if (rc < 0)
					return rc;
			}
		}
		return 0;
	case PMS_RECORD_EXIT:
		if (rec->fork.pid == rec->fork.tid)
			pms_numa_oracle_invalidate_pid(oracle, (pid_t)rec->fork.pid, 0, 0);
		return 0;
	default:
		return 0;
	}
}

static int scratch(struct pms_memprof *p, size_t n)
{
	if (n <= p->scratch_cap)
		return 0;
	size_t cap = p->scratch_cap ? p->scratch_cap : 1024;
	while (cap < n)
		cap *= 2;
	uint64_t *a = realloc(p->addrs, cap * sizeof(*a));
	if (!a)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	p->addrs = a;
	int *nd = realloc(p->nodes, cap * sizeof(*nd));
	if (!nd)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	p->nodes = nd;
	p->scratch_cap = cap;
	return 0;
}

/* The process a sample's page is asked about in: its own, else the
 * profiled one's; 0 = none (never asked). */
static pid_t ask_pid(const struct pms_memprof *p, const struct ksample *x)
{
	if (x->valid & PMS_MS_TID)
		return (pid_t)kpid(p, x);
	return p->pid;
}

/* Whether a sample may be asked about (again): an address, a process, and
 * no node yet, only the race statuses retried and no more than max times. */
static bool askable(const struct pms_memprof *p, const struct ksample *x, unsigned max)
{
	if (!(x->valid & PMS_MS_ADDR) || ask_pid(p, x) <= 0)
		return false;
	if (x->mem_node == PMS_NODE_UNKNOWN)
		return x->tries < max;
	return (x->mem_node == -EFAULT || x->mem_node == -ENOENT) && x->tries < max;
}

/* A sort key of the kept samples: (major, minor) and the sample. */
struct skey {
	uint64_t major, minor;
	size_t i;
};

static int skey_cmp(const void *a, const void *b)
{
	const struct skey *x = a, *y = b;
	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Sort by (major, minor), ties in their order (the order skey_cmp gives
 * when i rises with the position, as the callers fill them): a stable
 * radix sort, 16 bits a pass, minor's digits first, passes whose digit is
 * the same for all skipped.  A comparison sort of every sample's key was
 * most of a report's and a resolve's instructions.  Few keys, or no memory
 * for the radix's buffers: qsort. */
static void skey_sort(struct skey *v, size_t n)
{
	struct skey *tmp = n >= 8192 ? malloc(n * sizeof(*tmp)) : NULL;
	size_t *cnt = tmp ? malloc(65536 * sizeof(*cnt)) : NULL;
	struct skey *src = v, *dst = tmp;

	if (!tmp || !cnt) {
		free(tmp);
		free(cnt);
		if (n > 1)
			qsort(v, n, sizeof(*v), skey_cmp);
		return;
	}
	for (unsigned d = 0; d < 8; d++) {
		unsigned sh = (d % 4) * 16;
#define SKEY_DIGIT(k) ((unsigned)((d < 4 ? (k).minor : (k).major) >> sh) & 0xffffu)
		unsigned first = SKEY_DIGIT(src[0]);
		size_t i;
		for (i = 1; i < n && SKEY_DIGIT(src[i]) == first; i++)
			;
		if (i == n)
			continue; /* one digit for all: nothing moves */
		memset(cnt, 0, 65536 * sizeof(*cnt));
		for (i = 0; i < n; i++)
			cnt[SKEY_DIGIT(src[i])]++;
		for (size_t x = 0, sum = 0; x < 65536; x++) {
			size_t c = cnt[x];
			cnt[x] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[SKEY_DIGIT(src[i])]++] = src[i];
#undef SKEY_DIGIT
		struct skey *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	free(cnt);
}

/* The most addresses one oracle call gets: its scratch (and ours) grows
 * to the largest call and stays; a backlog of a whole run's pages was
 * megabytes resident through the report (issue 21). */
#define RESOLVE_CHUNK 16384

/* Ask about the askable samples (of process only, 0 = all) in one batch
 * per process (of at most RESOLVE_CHUNK addresses), through thread as_tid
 * when given. */
static int resolve_some(struct pms_memprof *p, struct pms_numa_oracle *oracle, pid_t only,
			pid_t as_tid, unsigned max)
{
	if (!p)
		return pms_err(PMS_EINVAL, "memprof resolve: NULL argument");
	if (p->agg || !oracle)
		return 0; /* aggregate: resolved as they were added */
	size_t k = 0, nopen = 0;
	int rc = 0, calls = 0;
	struct skey *keys = NULL;
	for (size_t j = 0; j < p->nopen; j++) {
		const struct ksample *x = &p->v[p->open[j]];
		/* nodes come from the source's hints (given when the sample
		 * was added) or from the oracle, nowhere else */
		if (!askable(p, x, PMS_MEMPROF_RESOLVE_TRIES + 1))
			continue; /* final: no longer open */
		p->open[nopen++] = p->open[j];
		if ((!only || ask_pid(p, x) == only) && askable(p, x, max))
			k++;
	}
	p->nopen = nopen;
	if (!k)
		return 0;
	if ((rc = scratch(p, k < RESOLVE_CHUNK ? k : RESOLVE_CHUNK)) < 0)
		return rc;
	keys = malloc(k * sizeof(*keys));
	if (!keys)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	k = 0;
	for (size_t j = 0; j < p->nopen; j++) {
		size_t i = p->open[j];
		const struct ksample *x = &p->v[i];
		if ((!only || ask_pid(p, x) == only) && askable(p, x, max))
			keys[k++] = (struct skey){ (uint32_t)ask_pid(p, x), x->addr, i };
	}
	/* by process (pids are > 0 here), then address: the oracle's calls
	 * go fastest in address order */
	skey_sort(keys, k);
	for (size_t a = 0; a < k;) {
		size_t b = a, m = 0;
		for (; b < k && keys[b].major == keys[a].major && m < RESOLVE_CHUNK; b++)
			p->addrs[m++] = keys[b].minor;
		int r = pms_numa_oracle_resolve_pid(oracle,
						    as_tid > 0 ? as_tid : (pid_t)keys[a].major,
						    p->addrs, m, p->nodes);
		if (r == PMS_ENOMEM) {
			rc = r;
			goto out;
		}
		if (r > 0)
			calls += r;
		for (size_t j = 0; j < m; j++) {
			struct ksample *x = &p->v[keys[a + j].i];
			int nd = p->nodes[j];
			if (x->tries < PMS_MEMPROF_RESOLVE_TRIES + 1)
				x->tries++;
			if ((nd == -ESRCH || nd == -EINVAL) &&
			    (x->mem_node == -EFAULT || x->mem_node == -ENOENT)) {
				/* gone by the retry: the page was not there
				 * while it lived, which says more; no more asks */
				x->tries = PMS_MEMPROF_RESOLVE_TRIES + 1;
				continue;
			}
			x->mem_node = nd;
			if (as_tid > 0 && x->mem_node >= 0)
				p->resolved_held++;
		}
		a = b;
	}
	rc = calls;
out:
	free(keys);
	return rc;
}

int pms_memprof_resolve(struct pms_memprof *p, struct pms_numa_oracle *oracle)
{
	return resolve_some(p, oracle, 0, 0, PMS_MEMPROF_RESOLVE_TRIES);
}

int pms_memprof_resolve_task(struct pms_memprof *p, struct pms_numa_oracle *oracle, pid_t pid,
			     pid_t tid)
{
	if (!p || pid <= 0)
		return pms_err(PMS_EINVAL, "memprof resolve_task: NULL argument or no pid");
	return resolve_some(p, oracle, pid, tid, PMS_MEMPROF_RESOLVE_TRIES + 1);
}

/* ---- report ---------------------------------------------------------------- */

uint64_t pms_percentile(const uint64_t *sorted, size_t n, double pct)
{
	if (!n)
		return 0;
	double rank = ceil(pct / 100.0 * (double)n);
	size_t i = rank < 1 ? 0 : (size_t)rank - 1;
	return sorted[i < n ? i : n - 1];
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static char *xstrdup(const char *s, int *rc)
{
	char *d = strdup(s ? s : "");
	if (!d && *rc >= 0)
		*rc = pms_err(PMS_ENOMEM, "memreport: no memory");
	return d;
}

static int count_addn(struct pms_memreport_count **v, size_t *n, const char *name, uint64_t k)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name)) {
			(*v)[i].samples += k;
			return 0;
		}
	struct pms_memreport_count *nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	*v = nv;
	nv[*n].name = strdup(name);
	if (!nv[*n].name)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	nv[*n].samples = k;
	(*n)++;
	return 0;
}

static int count_cmp(const void *a, const void *b)
{
	const struct pms_memreport_count *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void site_free(struct pms_memreport_site *s)
{
	free(s->comm);
	free(s->name);
	free(s->file);
	free(s->module);
	free(s->kind);
}

static void sites_free(struct pms_memreport_site *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		site_free(&v[i]);
	free(v);
}

void pms_memreport_free(struct pms_memreport *r)
{
	if (!r)
		return;
	free(r->pmus);
	free(r->label);
	free(r->notes);
	free(r->data_src_note);
	free(r->attempts);
	for (size_t i = 0; i < r->nlevels; i++)
		free(r->levels[i].name);
	free(r->levels);
	for (size_t i = 0; i < r->nops; i++)
		free(r->ops[i].name);
	free(r->ops);
	free(r->node_ids);
	free(r->matrix);
	sites_free(r->top_ips_samples, r->ntop_ips_samples);
	sites_free(r->top_ips_latency, r->ntop_ips_latency);
	sites_free(r->top_funcs_samples, r->ntop_funcs_samples);
	sites_free(r->top_funcs_latency, r->ntop_funcs_latency);
	sites_free(r->top_objects, r->ntop_objects);
	for (size_t i = 0; i < r->nprocs; i++)
		task_free(&r->procs[i]);
	free(r->procs);
	for (size_t i = 0; i < r->nthreads; i++)
		task_free(&r->threads[i]);
	free(r->threads);
	sites_free(r->sites, r->nsites);
	sites_free(r->objects, r->nobjects);
	for (size_t i = 0; i < r->nsources; i++)
		free(r->sources[i].name);
	free(r->sources);
	free(r->all);
	free(r);
}

/* Accumulate one sample (its validity bits, weight and nodes) into a site. */
static void site_count(struct pms_memreport_site *s, uint32_t valid, uint64_t weight, int mem_node,
		       int cpu_node, int home)
{
	s->samples++;
	if (valid & PMS_MS_WEIGHT) {
		s->latency += weight;
		s->weighted++;
	}
	if (mem_node >= 0) {
		s->resolved++;
		if (cpu_node >= 0 && mem_node != cpu_node)
			s->remote++;
		if (home >= 0 && mem_node == home)
			s->on_home++;
	}
}

static void site_account_k(const struct pms_memprof *p, struct pms_memreport_site *s,
			   const struct ksample *x)
{
	site_count(s, x->valid, x->weight, x->mem_node, kcpu(p, x), p->home_node);
}

static int site_copy(struct pms_memreport_site *d, const struct pms_memreport_site *s)
{
	int rc = 0;
	*d = *s;
	d->name = xstrdup(s->name, &rc);
	d->file = s->file ? xstrdup(s->file, &rc) : NULL;
	d->module = xstrdup(s->module, &rc);
	d->kind = s->kind ? xstrdup(s->kind, &rc) : NULL;
	d->comm = s->comm ? xstrdup(s->comm, &rc) : NULL;
	return rc;
}

static int by_samples(const void *a, const void *b)
{
	const struct pms_memreport_site *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->latency != y->latency)
		return x->latency > y->latency ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_latency(const void *a, const void *b)
{
	const struct pms_memreport_site *x = a, *y = b;
	if (x->latency != y->latency)
		return x->latency > y->latency ? -1 : 1;
	return by_samples(a, b);
}

/* Copy n sites into *out (the report's full lists). */
static int sites_copy(const struct pms_memreport_site *v, size_t n, struct pms_memreport_site **out,
		      size_t *nout)
{
	int rc = 0;
	*nout = 0;
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < n && rc >= 0; i++) {
		rc = site_copy(&(*out)[i], &v[i]);
		*nout = i + 1;
	}
	return rc;
}

/* The first `top` of all n sites in cmp's order, as a stable sort would
 * give them, copied into *out.  Few of many: kept in a sorted array of
 * `top` (a candidate goes after the ones equal to it), not a sort of all. */
static int top_of(struct pms_memreport_site *all, size_t n, size_t top,
		  int (*cmp)(const void *, const void *), bool need_latency,
		  struct pms_memreport_site **out, size_t *nout)
{
	size_t k = 0, nb = 0;
	const struct pms_memreport_site **best = NULL;
	*nout = 0;
	*out = calloc(top ? top : 1, sizeof(**out));
	if (!*out)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	if (top >= n / 8) {
		qsort(all, n, sizeof(*all), cmp);
	} else {
		best = malloc((top ? top : 1) * sizeof(*best));
		if (!best)
			return pms_err(PMS_ENOMEM, "memreport: no memory");
		for (size_t i = 0; i < n && top; i++) {
			if (nb == top && cmp(&all[i], best[nb - 1]) >= 0)
				continue;
			size_t lo = 0, hi = nb;
			while (lo < hi) { /* first one that sorts after all[i] */
				size_t mid = lo + (hi - lo) / 2;
				if (cmp(best[mid], &all[i]) <= 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (nb < top)
				nb++;
			memmove(&best[lo + 1], &best[lo], (nb - 1 - lo) * sizeof(*best));
			best[lo] = &all[i];
		}
	}
	for (size_t i = 0; i < (best ? nb : n) && k < top; i++) {
		const struct pms_memreport_site *x = best ? best[i] : &all[i];
		if (need_latency && !x->weighted)
			break;
		int rc = site_copy(&(*out)[k++], x);
		*nout = k;
		if (rc < 0) {
			free(best);
			return rc;
		}
	}
	free(best);
	*nout = k;
	return 0;
}

static bool kernel_ip(const struct pms_memsample *s)
{
	return (s->valid & PMS_MS_KERNEL_IP) != 0;
}

/* Name each instruction site, group them into functions (same module and
 * name; sorted, so n log n), and fill the four top lists.  ips is consumed. */
struct fkey {
	size_t i;
	const struct pms_memreport_site *s;
	/* the strings the site's copies were made from (the symbolizer's,
	 * the maps' or literals): the same function mostly has the same
	 * pointers, which compare without strcmp */
	const char *module, *name;
};

static int str_cmp(const char *a, const char *b)
{
	return a == b ? 0 : strcmp(a, b);
}

/* Same process, module and name: the same function. */
static bool fkey_same(const struct fkey *x, const struct fkey *y)
{
	return x->s->pid == y->s->pid && !str_cmp(x->module, y->module) &&
	       !str_cmp(x->name, y->name);
}

/* Consecutive instructions (in address order) of one function. */
struct frun {
	struct fkey k; /* its first instruction's */
	size_t from, to; /* positions in address order */
};

/* By (process, module, name); runs of one function in address order. */
static int frun_cmp(const void *a, const void *b)
{
	const struct frun *x = a, *y = b;
	int c = x->k.s->pid < y->k.s->pid ? -1 : x->k.s->pid > y->k.s->pid;
	if (!c)
		c = str_cmp(x->k.module, y->k.module);
	if (!c)
		c = str_cmp(x->k.name, y->k.name);
	if (!c)
		c = x->from < y->from ? -1 : x->from > y->from;
	return c;
}

struct symres {
	const char *func, *module, *file; /* the symbolizer's strings */
	int line;
	uint64_t start;
	bool done, between;
};

static bool may_name(const struct pms_memprof *p, const struct pms_memreport *r,
		     const struct pms_symbolizer *sym, bool kern)
{
	return sym && (!kern || (r->kernel_visible && !p->recorded));
}

/* Look up the k-th IP in address order. */
static void sym_at(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym,
		   const struct pms_memreport_site *ips, const struct skey *ord, struct symres *res,
		   size_t k)
{
	size_t i = ord[k].i;
	struct pms_symbol sy = { 0 };
	if (res[i].done)
		return;
	res[i].done = true;
	if (!may_name(p, r, sym, ips[i].kernel))
		return;
	if (pms_symbolizer_code_pid(sym, (pid_t)ips[i].pid, ips[i].addr, ips[i].kernel, false,
				    &sy) < 0) {
		/* no name, but the binary may be known: "[unknown] (/path)";
		 * unknown ones group per module */
		res[i].module = sy.module;
		return;
	}
	res[i] = (struct symres){ sy.func, sy.module, sy.file, sy.line, ips[i].addr - sy.offset,
				  true, false };
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void sym_between(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym,
			const struct pms_memreport_site *ips, const struct skey *ord,
			struct symres *res, size_t lo, size_t hi)
{
	while (hi - lo > 1) {
		const struct symres *a = &res[ord[lo].i], *b = &res[ord[hi].i];
		if (ips[ord[lo].i].pid != ips[ord[hi].i].pid) {
			/* two processes (-a, sorted by process): each its own */
			size_t mid = lo + (hi - lo) / 2;
			sym_at(p, r, sym, ips, ord, res, mid);
			sym_between(p, r, sym, ips, ord, res, lo, mid);
			lo = mid;
			continue;
		}
		if (ips[ord[lo].i].addr == ips[ord[hi].i].addr &&
		    ips[ord[lo].i].kernel == ips[ord[hi].i].kernel) {
			/* one address (of several threads): one lookup */
			for (size_t k = lo + 1; k < hi; k++)
				res[ord[k].i] = *a;
			return;
		}
		if (a->func && b->func && str_eq(a->func, b->func) && str_eq(a->module, b->module) &&
		    a->start == b->start && ips[ord[lo].i].kernel == ips[ord[hi].i].kernel) {
			for (size_t k = lo + 1; k < hi; k++) {
				struct symres *x = &res[ord[k].i];
				*x = *a;
				x->file = NULL;
				x->line = 0;
				x->between = true;
			}
			return;
		}
		size_t mid = lo + (hi - lo) / 2;
		sym_at(p, r, sym, ips, ord, res, mid);
		sym_between(p, r, sym, ips, ord, res, lo, mid);
		lo = mid;
	}
}

/* The top instructions named one by one (file and line of each; a
 * function gets the file of its first instruction, no line). */
static int top_lines(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym,
		     struct pms_memreport_site *v, size_t n, bool line)
{
	int rc = 0;
	for (size_t i = 0; i < n && rc >= 0; i++) {
		struct pms_symbol sy = { 0 };
		if (v[i].addr_hidden || v[i].file || !may_name(p, r, sym, v[i].kernel) ||
		    (!line && !strcmp(v[i].name, "[unknown]")) ||
		    pms_symbolizer_code_pid(sym, (pid_t)v[i].pid, v[i].addr, v[i].kernel, true, &sy) < 0 ||
		    !sy.file)
			continue;
		v[i].file = xstrdup(sy.file, &rc);
		v[i].line = line ? sy.line : 0;
	}
	return rc;
}

static int finish_code(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym,
		       struct pms_memreport_site *ips, size_t nips)
{
	int rc = 0;
	size_t nfuncs = 0, nruns = 0;
	struct skey *ord = NULL;
	struct symres *res = NULL;
	struct frun *runs = NULL;
	struct pms_memreport_site *funcs = calloc(nips ? nips : 1, sizeof(*funcs));
	struct fkey *fk = calloc(nips ? nips : 1, sizeof(*fk));
	if (!funcs || !fk) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	/* Name the IPs in address order (names only: lines are looked up for
	 * the top lists below), bisecting: when two IPs resolve to
	 * the same symbol (same module, name and start), every IP between them
	 * lies in it too (a symbol is one contiguous range), so a function
	 * costs about log2(its distinct IPs) lookups, not one per IP (each
	 * lookup scans a symbol table).  Those in between get no line; the top
	 * lists are looked up again one by one below. */
	ord = calloc(nips ? nips : 1, sizeof(*ord));
	res = calloc(nips ? nips : 1, sizeof(*res));
	if (!ord || !res) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	for (size_t i = 0; i < nips; i++)
		ord[i] = (struct skey){ ips[i].pid, ips[i].addr, i };
	/* by (process, address), process 0 without per-process functions:
	 * the aggregate and the kept samples give them in that order already */
	bool sorted = true;
	for (size_t k = 1; k < nips && sorted; k++)
		sorted = skey_cmp(&ord[k - 1], &ord[k]) < 0;
	if (!sorted)
		skey_sort(ord, nips);
	if (nips && sym) { /* without a symbolizer nothing is named */
		sym_at(p, r, sym, ips, ord, res, 0);
		sym_at(p, r, sym, ips, ord, res, nips - 1);
		sym_between(p, r, sym, ips, ord, res, 0, nips - 1);
	}
	const struct pms_maps *lmaps = NULL;
	const struct pms_map *lm = NULL;
	for (size_t i = 0; i < nips; i++) {
		struct pms_memreport_site *st = &ips[i];
		bool kern = st->kernel;
		const struct symres *sy = &res[i];
		if (kern && !r->kernel_visible) {
			st->addr = 0;
			st->addr_hidden = true;
		}
		const char *name = sy->func ? sy->func : (kern ? "[kernel]" : "[unknown]");
		/* borrowed (the symbolizer's, the maps' or literals) until the
		 * copies below; cleared at the end, before the caller frees ips */
		st->name = (char *)name;
		st->file = (char *)sy->file;
		st->line = sy->line;
		const char *mod = sy->module;
		if (!mod && !kern) {
			/* perf's "[unknown]" with the binary it is in (in address
			 * order, mostly the one of the instruction before) */
			const struct pms_maps *ms = st->pid ? pms_memprof_maps_pid(p, (pid_t)st->pid)
							    : pms_memprof_maps(p);
			const struct pms_map *m = ms == lmaps && lm && st->addr >= lm->start &&
							  st->addr < lm->end
							  ? lm
							  : pms_maps_find(ms, st->addr);
			lmaps = ms;
			lm = m;
			mod = m && m->path[0] == '/' ? m->path : NULL;
		}
		mod = mod ? mod : (kern ? "[kernel]" : "");
		st->module = (char *)mod;
		fk[i] = (struct fkey){ i, st, mod, name };
	}
	/* Functions: instructions with the same (module, name); the unknown
	 * ones stay per module.  A function's first IP is its lowest (as
	 * shown: hidden kernel ones are all 0, then the first in site
	 * order).  Runs of one function in address order are sorted, not
	 * every instruction: a symbol is one range, so there are about as
	 * many runs as functions. */
	runs = calloc(nips ? nips : 1, sizeof(*runs));
	if (!runs) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	for (size_t k = 0; k < nips; k++) {
		size_t i = ord[k].i;
		if (!nruns || !fkey_same(&fk[i], &runs[nruns - 1].k))
			runs[nruns++] = (struct frun){ fk[i], k, k };
		runs[nruns - 1].to = k + 1;
	}
	qsort(runs, nruns, sizeof(*runs), frun_cmp);
	for (size_t a = 0; a < nruns;) {
		size_t b = a;
		const struct pms_memreport_site *s0 = NULL;
		for (size_t q = a; q < nruns && fkey_same(&runs[q].k, &runs[a].k); q++)
			for (size_t k = runs[q].from; k < runs[q].to; k++) {
				const struct pms_memreport_site *x = &ips[ord[k].i];
				if (!s0 || x->addr < s0->addr || (x->addr == s0->addr && x < s0))
					s0 = x;
			}
		struct pms_memreport_site *f = &funcs[nfuncs++];
		*f = *s0; /* its strings borrowed too; comm is its own */
		f->comm = NULL;
		f->samples = f->latency = f->weighted = 0;
		f->resolved = f->remote = f->on_home = 0;
		/* a function's line would be one instruction's: keep the file */
		f->line = 0;
		if (p->per_pid_funcs && s0->pid)
			f->comm = xstrdup(task_comm(p, s0->pid, s0->pid), &rc);
		for (; b < nruns && fkey_same(&runs[b].k, &runs[a].k); b++)
			for (size_t k = runs[b].from; k < runs[b].to; k++) {
				const struct pms_memreport_site *x = &ips[ord[k].i];
				f->samples += x->samples;
				f->latency += x->latency;
				f->weighted += x->weighted;
				f->resolved += x->resolved;
				f->remote += x->remote;
				f->on_home += x->on_home;
			}
		a = b;
	}
	/* kept samples: every instruction, before top_of reorders them
	 * (samples index them); none in aggregate mode (report.h) */
	if (rc >= 0 && !p->agg)
		rc = sites_copy(ips, nips, &r->sites, &r->nsites);
	if (rc >= 0)
		rc = top_of(ips, nips, p->top, by_samples, false, &r->top_ips_samples,
			    &r->ntop_ips_samples);
	if (rc >= 0)
		rc = top_of(ips, nips, p->top, by_latency, true, &r->top_ips_latency, &r->ntop_ips_latency);
	if (rc >= 0)
		rc = top_of(funcs, nfuncs, p->top, by_samples, false, &r->top_funcs_samples,
			    &r->ntop_funcs_samples);
	if (rc >= 0)
		rc = top_of(funcs, nfuncs, p->top, by_latency, true, &r->top_funcs_latency,
			    &r->ntop_funcs_latency);
	if (rc >= 0)
		rc = top_lines(p, r, sym, r->top_ips_samples, r->ntop_ips_samples, true);
	if (rc >= 0)
		rc = top_lines(p, r, sym, r->top_ips_latency, r->ntop_ips_latency, true);
	if (rc >= 0)
		rc = top_lines(p, r, sym, r->top_funcs_samples, r->ntop_funcs_samples, false);
	if (rc >= 0)
		rc = top_lines(p, r, sym, r->top_funcs_latency, r->ntop_funcs_latency, false);
out:
	for (size_t i = 0; i < nips; i++)
		ips[i].name = ips[i].file = ips[i].module = NULL;
	for (size_t i = 0; funcs && i < nfuncs; i++)
		free(funcs[i].comm);
	free(ord);
	free(res);
	free(fk);
	free(runs);
	free(funcs);
	return rc;
}

/* An instruction of one process (pid 0: of all). */

/* Instructions and functions from the kept samples. */
static int build_code(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym)
{
	int rc = 0;
	size_t nk = 0, nips = 0;
	/* (ip, pid), pid 0 unless per-process functions */
	struct skey *keys = malloc((p->n ? p->n : 1) * sizeof(*keys));
	struct pms_memreport_site *ips = NULL;
	if (!keys)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < p->n; i++) {
		if (p->xv)
			p->xv[i].site = -1;
		if (p->v[i].valid & PMS_MS_IP)
			keys[nk++] = (struct skey){ p->v[i].ip, p->per_pid_funcs ? kpid(p, &p->v[i]) : 0,
						    i };
	}
	skey_sort(keys, nk);
	size_t ndist = 0;
	for (size_t a = 0; a < nk; a++)
		ndist += !a || keys[a].major != keys[a - 1].major || keys[a].minor != keys[a - 1].minor;
	ips = calloc(ndist ? ndist : 1, sizeof(*ips));
	if (!ips) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	for (size_t a = 0; a < nk;) {
		size_t b = a;
		const struct ksample *s0 = &p->v[keys[a].i];
		struct pms_memreport_site *st = &ips[nips++];
		st->addr = s0->ip;
		st->kernel = (s0->valid & PMS_MS_KERNEL_IP) != 0;
		st->pid = (uint32_t)keys[a].minor;
		for (; b < nk && keys[b].major == keys[a].major && keys[b].minor == keys[a].minor; b++) {
			site_account_k(p, st, &p->v[keys[b].i]);
			if (p->xv)
				p->xv[keys[b].i].site = (int64_t)(nips - 1);
		}
		a = b;
	}
	free(keys); /* before naming: it may load debug information */
	keys = NULL;
	if (!p->keep_all && !p->agg) {
		/* no_sample_list: every number from the samples is taken; they
		 * go before the names (debug information) come in */
		free(p->v);
		p->v = NULL;
		p->cap = 0;
		free(p->open);
		p->open = NULL;
		p->nopen = p->opencap = 0;
		p->released = true;
	}
	rc = finish_code(p, r, sym, ips, nips);
out:
	free(keys);
	sites_free(ips, nips);
	return rc;
}

/* Data objects: the workload buffer, a file's static symbol, or the mapping. */

static int build_objects(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym)
{
	int rc = 0;
	size_t no = 0;
	struct pms_memreport_site *objs = NULL;
	struct skey *keys = malloc((p->n ? p->n : 1) * sizeof(*keys)); /* (start, 0) */
	size_t nk = 0;
	if (!keys)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	(void)pms_memprof_maps(p); /* the union of the processes' maps, as now */
	/* Key each sample by the start of the object it falls in. */
	for (size_t i = 0; i < p->n; i++) {
		const struct ksample *s = &p->v[i];
		if (p->xv)
			p->xv[i].object = -1;
		if (!(s->valid & PMS_MS_ADDR))
			continue;
		uint64_t a = s->addr, start;
		if (p->home_end > p->home_start && a >= p->home_start && a < p->home_end) {
			start = p->home_start;
		} else {
			const struct pms_map *m = pms_maps_find(maps_of(p, s), a);
			start = m ? m->start : UINT64_MAX; /* UINT64_MAX: not mapped */
		}
		keys[nk++] = (struct skey){ start, 0, i };
	}
	skey_sort(keys, nk);
	objs = calloc(nk ? nk : 1, sizeof(*objs));
	if (!objs) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	for (size_t a = 0; a < nk;) {
		size_t b = a;
		uint64_t addr0 = p->v[keys[a].i].addr;
		struct pms_memreport_site *o = &objs[no++];
		char buf[256];
		const char *name = NULL, *kind = NULL, *module = "";
		if (keys[a].major == UINT64_MAX) {
			name = "[unmapped]";
			kind = "unmapped";
		} else if (p->home_end > p->home_start && keys[a].major == p->home_start) {
			o->addr = p->home_start;
			o->size = p->home_end - p->home_start;
			name = p->home_name;
			kind = "workload";
		} else {
			const struct pms_map *m = pms_maps_find(maps_of(p, &p->v[keys[a].i]), addr0);
			o->addr = m->start;
			o->size = m->end - m->start;
			kind = pms_map_kind_name(m->kind);
			module = m->path;
			struct pms_symbol sy = { 0 };
			if (m->kind == PMS_MAP_FILE && sym && pms_symbolizer_data(sym, addr0, &sy) == 0 &&
			    sy.func) {
				name = sy.func;
				/* an object symbol is the object; else the mapping */
			} else if (m->kind == PMS_MAP_ANON) {
				snprintf(buf, sizeof(buf), "anon 0x%" PRIx64 " (%" PRIu64 " KiB)", m->start,
					 (m->end - m->start) >> 10);
				name = buf;
			} else {
				name = *m->path ? m->path : "[anon]";
			}
		}
		if (!r->kernel_visible && o->addr >= (1ULL << 63)) {
			o->addr = 0;
			o->addr_hidden = true;
		}
		o->name = xstrdup(name, &rc);
		o->kind = xstrdup(kind, &rc);
		o->module = xstrdup(module, &rc);
		if (rc < 0)
			goto out;
		for (; b < nk && keys[b].major == keys[a].major; b++) {
			site_account_k(p, o, &p->v[keys[b].i]);
			if (p->xv)
				p->xv[keys[b].i].object = (int64_t)(no - 1);
		}
		a = b;
	}
	rc = sites_copy(objs, no, &r->objects, &r->nobjects);
	if (rc >= 0)
		rc = top_of(objs, no, p->top, by_samples, false, &r->top_objects, &r->ntop_objects);
out:
	free(keys);
	sites_free(objs, no);
	return rc;
}

/* Data objects from the aggregate: named at first sight; a file's static
 * symbol is looked up now. */
static int agg_objects(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym)
{
	struct agg *a = p->agg;
	size_t no = 0;
	int rc = 0;
	struct pms_memreport_site *objs = calloc(a->nobjs ? a->nobjs : 1, sizeof(*objs));
	if (!objs)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < a->nobjs; i++) {
		struct pms_memreport_site *o = &objs[no];
		rc = site_copy(o, &a->objs[i].site);
		no++;
		if (rc < 0)
			goto out;
		struct pms_symbol sy = { 0 };
		if (!strcmp(o->kind, "file") && sym &&
		    pms_symbolizer_data(sym, a->objs[i].addr0, &sy) == 0 && sy.func) {
			free(o->name);
			o->name = xstrdup(sy.func, &rc);
			if (rc < 0)
				goto out;
		}
		if (!r->kernel_visible && o->addr >= (1ULL << 63)) {
			o->addr = 0;
			o->addr_hidden = true;
		}
	}
	rc = top_of(objs, no, p->top, by_samples, false, &r->top_objects, &r->ntop_objects);
out:
	sites_free(objs, no);
	return rc;
}

static int int_cmp(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return a < b ? -1 : a > b;
}

/* Node counters and the matrix from the aggregate; the nodes are the
 * topology's, those named by pms_memprof_set_node_ids, and any seen. */
static int agg_nodes(struct pms_memprof *p, struct pms_memreport *r)
{
	struct agg *a = p->agg;
	size_t tn = p->topo ? p->topo->nnodes : 0, cap = tn + a->nids + 2 * a->npairs, nn = 0;
	int *ids = calloc(cap ? cap : 1, sizeof(*ids));
	if (!ids)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < tn; i++)
		ids[nn++] = p->topo->nodes[i].id;
	for (size_t i = 0; i < a->nids; i++)
		ids[nn++] = a->ids[i];
	for (size_t i = 0; i < a->npairs; i++) {
		if (a->pairs[i].cpu >= 0)
			ids[nn++] = a->pairs[i].cpu;
		ids[nn++] = a->pairs[i].mem;
	}
	qsort(ids, nn, sizeof(*ids), int_cmp);
	size_t u = 0;
	for (size_t i = 0; i < nn; i++)
		if (!u || ids[u - 1] != ids[i])
			ids[u++] = ids[i];
	r->node_ids = ids;
	r->nnodes = u;
	r->matrix = calloc(u ? u * u : 1, sizeof(*r->matrix));
	if (!r->matrix)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < a->npairs; i++) {
		size_t row = u, col = u;
		for (size_t k = 0; k < u; k++) {
			if (ids[k] == a->pairs[i].cpu)
				row = k;
			if (ids[k] == a->pairs[i].mem)
				col = k;
		}
		if (row < u && col < u)
			r->matrix[row * u + col] += a->pairs[i].n;
		else
			r->matrix_cpu_unknown += a->pairs[i].n;
	}
	r->no_addr = a->no_addr;
	r->unresolved = a->unresolved;
	r->resolved = a->resolved;
	r->from_phys = a->from_phys;
	r->on_home = a->on_home;
	r->elsewhere = a->elsewhere;
	r->st_efault = a->st_efault;
	r->st_enoent = a->st_enoent;
	r->st_not_asked = a->st_not_asked;
	r->st_gone = a->st_gone;
	r->st_other = a->st_other;
	return 0;
}

/* Everything the kept-samples path computes, from the aggregate. */
static int agg_report(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym)
{
	struct agg *a = p->agg;
	int rc = 0;
	r->samples = a->samples;
	r->with_addr = a->with_addr;
	r->with_data_src = a->with_data_src;
	for (size_t i = 0; i < a->nds && rc >= 0; i++) {
		char txt[128];
		pms_datasrc_format_mem(a->ds[i].key, txt, sizeof(txt));
		rc = count_addn(&r->levels, &r->nlevels, txt, a->ds[i].n);
		if (rc >= 0 && a->ds[i].key != PMS_MEM_NA_VALUE)
			rc = count_addn(&r->ops, &r->nops, pms_datasrc_stat_op(a->ds[i].key), a->ds[i].n);
	}
	if (rc < 0)
		return rc;
	if (r->nlevels)
		qsort(r->levels, r->nlevels, sizeof(*r->levels), count_cmp);
	if (r->nops)
		qsort(r->ops, r->nops, sizeof(*r->ops), count_cmp);
	r->latency.n = a->wn;
	if (a->wn) {
		r->latency.min = a->wmin;
		r->latency.max = a->wmax;
		r->latency.median = agg_pct(a, 50);
		r->latency.p90 = agg_pct(a, 90);
		r->latency.p99 = agg_pct(a, 99);
		r->latency.mean = a->wsum / (double)a->wn;
	}
	if ((rc = agg_nodes(p, r)) < 0)
		return rc;
	/* the code sites are named into a copy, so a second report works;
	 * in address order (finish_code's order: its passes then go through
	 * memory in sequence, not a cache miss an instruction) */
	size_t nips = 0, nk = 0;
	struct pms_memreport_site *ips = calloc(a->ipt.n ? a->ipt.n : 1, sizeof(*ips));
	struct skey *keys = malloc((a->ipt.n ? a->ipt.n : 1) * sizeof(*keys));
	if (!ips || !keys) {
		free(ips);
		free(keys);
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	}
	for (size_t i = 0; i < a->ipt.cap; i++)
		if (a->ipt.v[i].samples)
			keys[nk++] = (struct skey){ 0, a->ipt.v[i].ip, i };
	skey_sort(keys, nk);
	for (size_t k = 0; k < nk; k++) {
		size_t i = keys[k].i;
		const struct ipslot *e = &a->ipt.v[i];
		struct pms_memreport_site *st = &ips[nips++];
		st->addr = e->ip;
		st->kernel = e->wk & 1;
		st->samples = e->samples;
		st->latency = e->latency;
		st->weighted = e->wk >> 1;
		if (a->ipt.nv) {
			st->resolved = a->ipt.nv[i].resolved;
			st->remote = a->ipt.nv[i].remote;
			st->on_home = a->ipt.nv[i].on_home;
		}
	}
	free(keys);
	rc = finish_code(p, r, sym, ips, nips);
	sites_free(ips, nips);
	if (rc >= 0)
		rc = agg_objects(p, r, sym);
	return rc;
}

static int build_nodes(struct pms_memprof *p, struct pms_memreport *r)
{
	size_t nn = p->topo ? p->topo->nnodes : 0;
	r->nnodes = nn;
	r->node_ids = calloc(nn ? nn : 1, sizeof(*r->node_ids));
	r->matrix = calloc(nn ? nn * nn : 1, sizeof(*r->matrix));
	if (!r->node_ids || !r->matrix)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < nn; i++)
		r->node_ids[i] = p->topo->nodes[i].id;
	r->resolved_held = p->resolved_held;
	for (size_t i = 0; i < p->n; i++) {
		const struct ksample *x = &p->v[i];
		if (x->tries > 1) {
			r->retried_samples++;
			r->retries += x->tries - 1u;
			r->retry_resolved += x->mem_node >= 0;
		}
		if (!(x->valid & (PMS_MS_ADDR | PMS_MS_PHYS))) {
			r->no_addr++;
			continue;
		}
		if (x->mem_node < 0) {
			r->unresolved++;
			if (x->mem_node == -EFAULT)
				r->st_efault++;
			else if (x->mem_node == -ENOENT)
				r->st_enoent++;
			else if (x->mem_node == PMS_NODE_UNKNOWN)
				r->st_not_asked++;
			else if (x->mem_node == -ESRCH || x->mem_node == -EINVAL)
				r->st_gone++;
			else
				r->st_other++;
			continue;
		}
		r->resolved++;
		r->from_phys += x->from_phys;
		if (p->home_node >= 0) {
			if (x->mem_node == p->home_node)
				r->on_home++;
			else
				r->elsewhere++;
		}
		size_t row = nn, col = nn;
		for (size_t k = 0; k < nn; k++) {
			if (r->node_ids[k] == kcpu(p, x))
				row = k;
			if (r->node_ids[k] == x->mem_node)
				col = k;
		}
		if (row < nn && col < nn)
			r->matrix[row * nn + col]++;
		else
			r->matrix_cpu_unknown++;
	}
	return 0;
}

/* ---- per process and per thread ------------------------------------------ */

struct taskacc {
	struct pms_memreport_task t;
	struct dsc *ds;  /* level keys and counts */
	size_t nds;
	struct pair *nodes; /* .mem = node, .n = resolved samples on it */
	size_t nnodes;
};

static int taskacc_add(struct taskacc *a, const struct ksample *x, int cpu_node, uint64_t key)
{
	const struct ksample *s = x;
	struct pms_memreport_task *t = &a->t;
	size_t k;
	t->samples++;
	if (s->valid & PMS_MS_WEIGHT) {
		t->weighted++;
		t->latency += s->weight;
	}
	for (k = 0; k < a->nds && a->ds[k].key != key; k++)
		;
	if (k == a->nds) {
		struct dsc *nv = realloc(a->ds, (k + 1) * sizeof(*nv));
		if (!nv)
			return pms_err(PMS_ENOMEM, "memreport: no memory");
		a->ds = nv;
		nv[a->nds++] = (struct dsc){ key, 0 };
	}
	a->ds[k].n++;
	if (!(s->valid & (PMS_MS_ADDR | PMS_MS_PHYS)))
		return 0;
	t->with_addr++;
	if (x->mem_node < 0) {
		t->unresolved++;
		return 0;
	}
	t->resolved++;
	if (cpu_node >= 0) {
		if (cpu_node == x->mem_node)
			t->local++;
		else
			t->remote++;
	}
	for (k = 0; k < a->nnodes && a->nodes[k].mem != x->mem_node; k++)
		;
	if (k == a->nnodes) {
		struct pair *nv = realloc(a->nodes, (k + 1) * sizeof(*nv));
		if (!nv)
			return pms_err(PMS_ENOMEM, "memreport: no memory");
		a->nodes = nv;
		nv[a->nnodes++] = (struct pair){ -1, x->mem_node, 0 };
	}
	a->nodes[k].n++;
	return 0;
}

static int task_cmp(const void *x, const void *y)
{
	const struct pms_memreport_task *a = x, *b = y;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static void task_free(struct pms_memreport_task *t)
{
	free(t->comm);
	for (size_t i = 0; i < t->nlevels; i++)
		free(t->levels[i].name);
	free(t->levels);
}

/* Rows per process (threads false) or per thread, from the kept samples;
 * samples without a pid are in no row. */
static int build_tasks(struct pms_memprof *p, bool threads, struct pms_memreport_task **out,
		       size_t *nout)
{
	struct u64map m = { 0 };
	struct taskacc *acc = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	bool added;
	/* the row of each sampled thread (its index in tn), found once */
	long *slot = malloc((p->ntn ? p->ntn : 1) * sizeof(*slot));
	if (!slot)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < p->ntn; i++)
		slot[i] = -1;
	for (size_t i = 0; i < p->n; i++) {
		const struct ksample *s = &p->v[i];
		if (!(s->valid & PMS_MS_TID))
			continue;
		long k = slot[s->task];
		if (k < 0) {
			uint32_t pid = kpid(p, s), tid = threads ? ktid(p, s) : 0;
			if ((rc = grow((void **)&acc, &cap, n, sizeof(*acc))) < 0)
				goto out;
			k = u64map_get(&m, (uint64_t)pid << 32 | tid, n, &added);
			if (k < 0) {
				rc = pms_err(PMS_ENOMEM, "memreport: no memory");
				goto out;
			}
			if (added) {
				memset(&acc[n], 0, sizeof(acc[n]));
				acc[n].t.pid = pid;
				acc[n].t.tid = tid;
				n++;
			}
			slot[s->task] = k;
		}
		if ((rc = taskacc_add(&acc[k], s, kcpu(p, s), level_key_of(s->valid, p->dsv[s->ds]))) < 0)
			goto out;
	}
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct pms_memreport_task *t = &(*out)[i];
		*t = acc[i].t;
		*nout = i + 1;
		t->comm = xstrdup(task_comm(p, t->pid, threads ? t->tid : t->pid), &rc);
		t->home_node = -1;
		for (size_t k = 0; k < acc[i].nnodes; k++)
			if (acc[i].nodes[k].n > t->on_home_node ||
			    (acc[i].nodes[k].n == t->on_home_node && acc[i].nodes[k].mem < t->home_node)) {
				t->home_node = acc[i].nodes[k].mem;
				t->on_home_node = acc[i].nodes[k].n;
			}
		for (size_t k = 0; k < acc[i].nds && rc >= 0; k++) {
			char txt[128];
			pms_datasrc_format_mem(acc[i].ds[k].key, txt, sizeof(txt));
			rc = count_addn(&t->levels, &t->nlevels, txt, acc[i].ds[k].n);
		}
		if (rc < 0)
			goto out;
		if (t->nlevels)
			qsort(t->levels, t->nlevels, sizeof(*t->levels), count_cmp);
	}
	if (n)
		qsort(*out, n, sizeof(**out), task_cmp);
out:
	for (size_t i = 0; i < n; i++) {
		free(acc[i].ds);
		free(acc[i].nodes);
	}
	free(acc);
	free(slot);
	free(m.keys);
	free(m.vals);
	return rc;
}

/* report.all from the kept samples and the rest of each. */
static int build_all(struct pms_memprof *p, struct pms_memreport *r)
{
	r->all = calloc(p->n ? p->n : 1, sizeof(*r->all));
	if (!r->all)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < p->n; i++) {
		const struct ksample *k = &p->v[i];
		const struct kextra *e = &p->xv[i];
		struct pms_memreport_sample *x = &r->all[i];
		x->s.valid = k->valid;
		x->s.engine = (enum pms_engine)e->engine;
		x->s.ip = k->ip;
		x->s.pid = e->pid;
		x->s.tid = e->tid;
		x->s.time = e->time;
		x->s.cpu = e->cpu;
		x->s.addr = k->addr;
		x->s.phys_addr = e->phys_addr;
		x->s.data_src = p->dsv[k->ds];
		x->s.weight = k->weight;
		x->s.ins_lat = e->ins_lat;
		x->s.page_size = e->page_size;
		x->s.period = e->period;
		x->mem_node = k->mem_node;
		x->cpu_node = kcpu(p, k);
		x->node_from_phys = k->from_phys;
		x->site = (long)e->site;
		x->object = (long)e->object;
		x->source = e->source;
		x->tries = k->tries;
	}
	r->nall = p->n;
	return 0;
}

static void data_src_note(struct pms_memreport *r, const struct pms_memreport_input *in, int *rc)
{
	char note[256] = "";
	const char *eng = pms_engine_brand(in->engine);
	r->data_src_available = in->data_src && r->with_data_src > 0;
	if (!in->data_src)
		snprintf(note, sizeof(note), "data source unavailable: %s does not report it", eng);
	else if (!r->with_data_src)
		snprintf(note, sizeof(note), "data source unavailable: no %s sample carried one", eng);
	r->data_src_note = xstrdup(note, rc);
}

int pms_memprof_report(struct pms_memprof *p, struct pms_symbolizer *sym,
		       const struct pms_memreport_input *in, struct pms_memreport **out)
{
	struct pms_memreport *r = NULL;
	uint64_t *w = NULL, *dsn = NULL;
	int rc = 0;

	if (out)
		*out = NULL;
	if (!p || !in || !out)
		return pms_err(PMS_EINVAL, "memreport: NULL argument");
	if (p->released)
		return pms_err(PMS_EINVAL, "memreport: built once for a no_sample_list profile "
					   "(its samples are gone)");
	if (sym && p->per_pid_maps)
		/* each process's code named from its own mappings */
		for (size_t i = 0; i < p->npm; i++)
			if (p->pm[i].maps->n &&
			    (rc = pms_symbolizer_add_process(sym, (pid_t)p->pm[i].pid, p->pm[i].maps)) < 0)
				return rc;
	r = calloc(1, sizeof(*r));
	if (!r)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	r->engine = in->engine;
	r->pmus = xstrdup(in->pmus, &rc);
	r->label = xstrdup(in->label, &rc);
	r->notes = xstrdup(in->notes, &rc);
	r->phys = in->phys;
	r->verify_requested = in->verify_requested;
	r->duration_ns = in->duration_ns;
	r->home_node = p->home_node;
	if (in->stats)
		r->stats = *in->stats;
	if (in->numa)
		r->numa = *in->numa;
	if (in->nattempts) {
		r->attempts = calloc(in->nattempts, sizeof(*r->attempts));
		if (!r->attempts) {
			rc = pms_err(PMS_ENOMEM, "memreport: no memory");
			goto out;
		}
		memcpy(r->attempts, in->attempts, in->nattempts * sizeof(*r->attempts));
		r->nattempts = in->nattempts;
	}
	if (rc < 0)
		goto out;

	if (p->nsources) {
		r->sources = calloc(p->nsources, sizeof(*r->sources));
		if (!r->sources) {
			rc = pms_err(PMS_ENOMEM, "memreport: no memory");
			goto out;
		}
		for (size_t i = 0; i < p->nsources; i++) {
			r->sources[i].name = xstrdup(p->sources[i].name, &rc);
			r->sources[i].samples = p->sources[i].samples;
			r->nsources = i + 1;
		}
		if (rc < 0)
			goto out;
	}
	p->recorded = in->recorded;
	if (p->agg) {
		if ((rc = agg_flush(p)) < 0)
			goto out;
		r->kernel_visible = p->agg->any_kernel &&
				    (in->recorded || (sym && pms_symbolizer_kernel_visible(sym)));
		if ((rc = agg_report(p, r, sym)) < 0)
			goto out;
		data_src_note(r, in, &rc);
		if (rc < 0)
			goto out;
		*out = r;
		r = NULL;
		goto out;
	}
	bool any_kernel = false;
	for (size_t i = 0; i < p->n && !any_kernel; i++)
		any_kernel = (p->v[i].valid & PMS_MS_KERNEL_IP) ||
			     ((p->v[i].valid & PMS_MS_ADDR) && p->v[i].addr >= (1ULL << 63));
	r->kernel_visible = any_kernel && (in->recorded || (sym && pms_symbolizer_kernel_visible(sym)));

	/* Levels and ops over samples with a real data source. */
	r->samples = p->n;
	w = calloc(p->n ? p->n : 1, sizeof(*w));
	if (!w) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	size_t nw = 0;
	uint64_t nna = 0; /* samples without PMS_MS_DATA_SRC */
	/* samples per distinct data_src (the kept samples index dsv), both
	 * lists from those: a text per value, not per sample */
	dsn = calloc(p->ndsv ? p->ndsv : 1, sizeof(*dsn));
	if (!dsn) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct ksample *s = &p->v[i];
		if (s->valid & PMS_MS_ADDR)
			r->with_addr++;
		if (s->valid & PMS_MS_WEIGHT)
			w[nw++] = s->weight;
		if (s->valid & PMS_MS_DATA_SRC)
			dsn[s->ds]++;
		else
			nna++;
	}
	for (size_t i = 0; i <= p->ndsv; i++) {
		uint64_t n = i < p->ndsv ? dsn[i] : nna;
		if (!n)
			continue;
		/* every sample has a level, "N/A" without a data source (perf) */
		uint64_t key = i < p->ndsv ? level_key_of(PMS_MS_DATA_SRC, p->dsv[i]) : PMS_MEM_NA_VALUE;
		char txt[128];
		pms_datasrc_format_mem(key, txt, sizeof(txt));
		rc = count_addn(&r->levels, &r->nlevels, txt, n);
		if (rc < 0)
			goto out;
		if (key == PMS_MEM_NA_VALUE)
			continue;
		r->with_data_src += n;
		rc = count_addn(&r->ops, &r->nops, pms_datasrc_stat_op(p->dsv[i]), n);
		if (rc < 0)
			goto out;
	}
	if (r->nlevels)
		qsort(r->levels, r->nlevels, sizeof(*r->levels), count_cmp);
	if (r->nops)
		qsort(r->ops, r->nops, sizeof(*r->ops), count_cmp);
	data_src_note(r, in, &rc);
	if (rc < 0)
		goto out;
	qsort(w, nw, sizeof(*w), u64_cmp);
	r->latency.n = nw;
	if (nw) {
		double sum = 0;
		for (size_t i = 0; i < nw; i++)
			sum += (double)w[i];
		r->latency.min = w[0];
		r->latency.max = w[nw - 1];
		r->latency.median = pms_percentile(w, nw, 50);
		r->latency.p90 = pms_percentile(w, nw, 90);
		r->latency.p99 = pms_percentile(w, nw, 99);
		r->latency.mean = sum / (double)nw;
	}
	rc = build_nodes(p, r);
	if (rc >= 0)
		rc = build_tasks(p, false, &r->procs, &r->nprocs);
	if (rc >= 0)
		rc = build_tasks(p, true, &r->threads, &r->nthreads);
	/* the objects first: their per-sample keys are gone before naming
	 * the code loads debug information (the report phase's peak) */
	if (rc >= 0)
		rc = build_objects(p, r, sym);
	if (rc >= 0)
		rc = build_code(p, r, sym);
	if (rc < 0)
		goto out;
	/* Every sample, with what the caller may not see masked. */
	if (p->xv && (rc = build_all(p, r)) < 0)
		goto out;
	if (!r->kernel_visible)
		for (size_t i = 0; i < r->nall; i++) {
			struct pms_memsample *s = &r->all[i].s;
			if (kernel_ip(s))
				s->ip = 0;
			if ((s->valid & PMS_MS_ADDR) && s->addr >= (1ULL << 63))
				s->addr = 0;
		}
	*out = r;
	r = NULL;
out:
	free(w);
	free(dsn);
	pms_memreport_free(r);
	return rc;
}

/* ---- merging aggregate profiles --------------------------------------------
 * (issue 21: one profile per file, decoded in parallel, merged in file
 * order.)  Everything src counted is added to dst as if src's samples had
 * been added to dst after dst's own: the first-seen orders (data sources,
 * objects, node pairs, sources) continue with src's new entries, an entry
 * both have keeps dst's name; src's mappings are added after dst's (each
 * replacing what it overlaps, as an MMAP record does).  dst's node ids and
 * current source stay. */
/* Make t hold n instructions at most 3/4 full, and at least min_cap slots:
 * merging src's table slot by slot into a smaller one would pile its keys
 * (in hash order) into long probe runs. */
static int iptab_reserve(struct iptab *t, size_t n, size_t min_cap, bool nodes)
{
	size_t cap = t->cap ? t->cap : 4096;
	while (cap < min_cap || n * 4 > cap * 3)
		cap *= 2;
	if (cap == t->cap && (!nodes || t->nv))
		return 0;
	if (!iptab_resize(t, cap, t->nv != NULL || nodes))
		return pms_err(PMS_ENOMEM, "memprof merge: no memory for %zu instructions", n);
	return 0;
}

int pms_memprof_merge(struct pms_memprof *dst, struct pms_memprof *src)
{
	if (!dst || !src)
		return pms_err(PMS_EINVAL, "memprof merge: NULL argument");
	if (!dst->agg || !src->agg)
		return pms_err(PMS_EINVAL, "memprof merge: both profiles must be in aggregate mode "
					   "(opts.aggregate)");
	if (dst == src)
		return pms_err(PMS_EINVAL, "memprof merge: a profile into itself");
	int rc = agg_flush(dst);
	if (rc >= 0)
		rc = agg_flush(src);
	if (rc < 0)
		return rc;
	struct agg *d = dst->agg, *s = src->agg;
	bool added;
	long k;
	d->samples += s->samples;
	d->with_addr += s->with_addr;
	d->with_data_src += s->with_data_src;
	d->any_kernel |= s->any_kernel;
	for (size_t i = 0; i < s->nds; i++) {
		if ((rc = grow((void **)&d->ds, &d->dscap, d->nds, sizeof(*d->ds))) < 0)
			return rc;
		if ((k = u64map_get(&d->dsmap, s->ds[i].key, d->nds, &added)) < 0)
			return pms_err(PMS_ENOMEM, "memprof merge: no memory");
		if (added)
			d->ds[d->nds++] = (struct dsc){ s->ds[i].key, 0 };
		d->ds[k].n += s->ds[i].n;
	}
	bool nodes = s->ipt.nv != NULL;
	if (s->ipt.n &&
	    (rc = iptab_reserve(&d->ipt, d->ipt.n + s->ipt.n, s->ipt.cap, nodes)) < 0)
		return rc;
	for (size_t i = 0; i < s->ipt.cap; i++) {
		const struct ipslot *x = &s->ipt.v[i];
		if (!x->samples)
			continue;
		size_t j = iptab_get(&d->ipt, x->ip, nodes);
		if (j == SIZE_MAX)
			return pms_err(PMS_ENOMEM, "memprof merge: no memory for %zu instructions",
				       d->ipt.n + 1);
		struct ipslot *e = &d->ipt.v[j];
		if (!e->samples) {
			e->ip = x->ip;
			e->wk = x->wk & 1; /* kernel */
			d->ipt.n++;
		}
		e->samples += x->samples;
		e->latency += x->latency;
		e->wk += x->wk & ~1ULL; /* weighted << 1 */
		if (nodes) {
			d->ipt.nv[j].resolved += s->ipt.nv[i].resolved;
			d->ipt.nv[j].remote += s->ipt.nv[i].remote;
			d->ipt.nv[j].on_home += s->ipt.nv[i].on_home;
		}
	}
	/* objects: their keys (mapping start, UINT64_MAX unmapped) from the
	 * key map, then in src's first-seen order */
	uint64_t *key = calloc(s->nobjs ? s->nobjs : 1, sizeof(*key));
	if (!key)
		return pms_err(PMS_ENOMEM, "memprof merge: no memory");
	for (size_t j = 0; j < s->objmap.cap; j++)
		if (s->objmap.vals[j])
			key[s->objmap.vals[j] - 1] = s->objmap.keys[j];
	for (size_t i = 0; i < s->nobjs && rc >= 0; i++) {
		const struct objacc *o = &s->objs[i];
		if ((rc = grow((void **)&d->objs, &d->objcap, d->nobjs, sizeof(*d->objs))) < 0)
			break;
		if ((k = u64map_get(&d->objmap, key[i], d->nobjs, &added)) < 0) {
			rc = pms_err(PMS_ENOMEM, "memprof merge: no memory");
			break;
		}
		struct pms_memreport_site *t = &d->objs[k].site;
		if (added) {
			struct objacc *n = &d->objs[d->nobjs++];
			memset(n, 0, sizeof(*n));
			n->addr0 = o->addr0;
			n->site = o->site;
			n->site.samples = n->site.latency = n->site.weighted = 0;
			n->site.resolved = n->site.remote = n->site.on_home = 0;
			n->site.name = o->site.name ? strdup(o->site.name) : NULL;
			n->site.kind = o->site.kind ? strdup(o->site.kind) : NULL;
			n->site.module = o->site.module ? strdup(o->site.module) : NULL;
			n->site.file = o->site.file ? strdup(o->site.file) : NULL;
			n->site.comm = o->site.comm ? strdup(o->site.comm) : NULL;
			if ((o->site.name && !n->site.name) || (o->site.kind && !n->site.kind) ||
			    (o->site.module && !n->site.module) || (o->site.file && !n->site.file) ||
			    (o->site.comm && !n->site.comm)) {
				rc = pms_err(PMS_ENOMEM, "memprof merge: no memory");
				break;
			}
		}
		t->samples += o->site.samples;
		t->latency += o->site.latency;
		t->weighted += o->site.weighted;
		t->resolved += o->site.resolved;
		t->remote += o->site.remote;
		t->on_home += o->site.on_home;
	}
	free(key);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < s->npairs; i++) {
		size_t j = 0;
		while (j < d->npairs && (d->pairs[j].cpu != s->pairs[i].cpu ||
					 d->pairs[j].mem != s->pairs[i].mem))
			j++;
		if (j == d->npairs) {
			struct pair *np = realloc(d->pairs, (j + 1) * sizeof(*np));
			if (!np)
				return pms_err(PMS_ENOMEM, "memprof merge: no memory");
			d->pairs = np;
			np[j] = (struct pair){ s->pairs[i].cpu, s->pairs[i].mem, 0 };
			d->npairs++;
		}
		d->pairs[j].n += s->pairs[i].n;
	}
	if (s->wlo && !d->wlo && !(d->wlo = calloc(WH_EXACT, sizeof(*d->wlo))))
		return pms_err(PMS_ENOMEM, "memprof merge: no memory for the latency histogram");
	if (s->whi && !d->whi && !(d->whi = calloc((64 - 16) * WH_SUB, sizeof(*d->whi))))
		return pms_err(PMS_ENOMEM, "memprof merge: no memory for the latency histogram");
	for (size_t i = 0; s->wlo && i < WH_EXACT; i++)
		d->wlo[i] += s->wlo[i];
	for (size_t i = 0; s->whi && i < (64 - 16) * WH_SUB; i++)
		d->whi[i] += s->whi[i];
	if (s->wn) {
		if (!d->wn || s->wmin < d->wmin)
			d->wmin = s->wmin;
		if (!d->wn || s->wmax > d->wmax)
			d->wmax = s->wmax;
		d->wn += s->wn;
		d->wsum += s->wsum;
	}
	d->no_addr += s->no_addr;
	d->unresolved += s->unresolved;
	d->resolved += s->resolved;
	d->from_phys += s->from_phys;
	d->on_home += s->on_home;
	d->elsewhere += s->elsewhere;
	d->st_efault += s->st_efault;
	d->st_enoent += s->st_enoent;
	d->st_not_asked += s->st_not_asked;
	d->st_gone += s->st_gone;
	d->st_other += s->st_other;
	for (size_t i = 0; i < src->nsources; i++) {
		size_t j = 0;
		while (j < dst->nsources && strcmp(dst->sources[j].name, src->sources[i].name))
			j++;
		if (j == dst->nsources) {
			long cur = dst->cur_source;
			if ((rc = pms_memprof_set_source(dst, src->sources[i].name)) < 0)
				return rc;
			dst->cur_source = cur;
		}
		dst->sources[j].samples += src->sources[i].samples;
	}
	for (size_t i = 0; i < src->maps->n; i++) {
		const struct pms_map *m = &src->maps->v[i];
		if ((rc = pms_maps_add(dst->maps, m->start, m->end - m->start, m->pgoff, m->ino,
				       m->exec, m->path)) < 0)
			return rc;
	}
	return 0;
}
