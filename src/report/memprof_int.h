/* Internal: the memory profile (struct pms_memprof) and what the files of
 * memprof*.c share.  They build on each other in this order, each calling
 * only files before it: memprof.c, memprof_resolve.c, memprof_add.c,
 * memprof_sites.c, memprof_tasks.c, memprof_report.c; memprof_merge.c
 * calls memprof.c and memprof_add.c. */
#ifndef PMS_REPORT_MEMPROF_INT_H
#define PMS_REPORT_MEMPROF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/datasrc.h"
#include "pmuscope/report.h"


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
	unsigned valid : 13;    /* PMS_MS_* */
	unsigned tries : 3;     /* times its page was asked about (at most
				 * PMS_MEMPROF_RESOLVE_TRIES + 1) */
	unsigned from_phys : 1;
	unsigned cpu : 15;      /* its CPU's node: the index in pms_memprof.cpun */
};
#define KNO_TASK UINT32_MAX
_Static_assert(sizeof(struct ksample) == 40, "a kept sample is 40 bytes");
_Static_assert(PMS_MS_KERNEL_FOREIGN < (1u << 13), "PMS_MS_* bits fit a kept sample's valid");
/* A foreign kernel IP (PMS_MS_KERNEL_FOREIGN) is keyed with this bit flipped:
 * apart from the same IP of the naming kernel (a kernel IP has it set, the
 * key then is no address), the rows restoring it (mp_row_addr). */
#define MP_FOREIGN_BIT (1ULL << 62)
static inline uint64_t mp_ip_key(uint64_t ip, uint32_t valid)
{
	const uint32_t both = PMS_MS_KERNEL_FOREIGN | PMS_MS_KERNEL_IP;
	return (valid & both) == both ? ip ^ MP_FOREIGN_BIT : ip;
}
_Static_assert(PMS_MEMPROF_RESOLVE_TRIES + 1 < 8, "a kept sample's tries fit 3 bits");

struct kextra {
	uint64_t time, phys_addr, page_size, period;
	int64_t site, object;
	uint32_t pid, tid, cpu, ins_lat;
	int32_t source;
	uint8_t engine;
};

/* One mapping's pages, each's node when read (residency, read while its
 * process was held at exit): node[k] is page k's node, or a negative
 * status (not present, ...). */
struct resmap {
	uint32_t pid;
	uint64_t start, end; /* page-aligned */
	int16_t *node;
};

struct pms_memprof {
	const struct pms_topo *topo;
	pid_t pid;
	int home_node;
	uint64_t home_start, home_end;
	char *home_name;
	size_t top;
	struct resmap *res; /* residency read at held exits (memprof_objects.c) */
	size_t nres;
	uint64_t res_pages;  /* pages in res (bounded: MP_RES_MAX_PAGES) */
	bool res_capped;     /* some were not read: the bound was reached */
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
		/* live (an oracle): the time of its exec, 0 none; its samples
		 * taken before are of the address space the exec replaced */
		uint64_t exec_time;
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
 * samples 0: a free slot.  ip: its key (mp_ip_key).  wk: the samples with
 * a weight << 2 | foreign kernel << 1 | kernel.
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
#define IPB_FOREIGN 32u /* PMS_MS_KERNEL_FOREIGN (wk's bit 1) */

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

#define DS_HINT_BITS 10
#define OC_BITS 8 /* entries of agg.oc: 1 << OC_BITS */
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
	size_t nds, dscap;
	uint16_t ds_hint[1u << DS_HINT_BITS]; /* hash of a key -> its index + 1 (0: none) */
	struct pair *pairs;
	size_t npairs;
	uint64_t *wlo, *whi; /* histogram: exact part, log part */
	/* The weights of WH_EXACT or more (whi's): their count, least, most
	 * and sum.  Those below are counted in wlo only, one increment a
	 * sample: their count, least, most and sum are read off it when
	 * asked (mp_agg_wstats). */
	uint64_t hn, hmin, hmax;
	double hsum;
	/* node counters, as build_nodes computes them from kept samples */
	uint64_t no_addr, unresolved, resolved, from_phys, on_home, elsewhere;
	uint64_t st_efault, st_enoent, st_not_asked, st_gone, st_other;
	int *ids; /* node ids named by pms_memprof_set_node_ids */
	size_t nids;
	/* The samples' instructions not yet in ipt (agg_flush counts them) */
	struct ipb ipb[IPB_N];
	size_t nipb;
	bool ipb_nodes; /* one of them has a memory node */
	/* Data objects' ranges seen lately, direct-mapped by the 2 MiB
	 * granule of the address that found them, and the one used last
	 * (oc_last, checked first).  An entry of object obj: mapped, the
	 * mapping maps->v[k] = [lo, hi); else the gap [lo, hi) between
	 * maps->v[k - 1] and maps->v[k].  Checked again at each use (the maps
	 * may have changed since): agg_obj_cached.  Zeroed: lo = hi = 0 holds
	 * no address. */
	struct objcache {
		uint64_t lo, hi;
		size_t k;
		long obj;
		bool mapped;
	} oc[1u << OC_BITS];
	size_t oc_last;
};
/* A sample's counts into a row's (as struct pms_memreport_site has them). */
struct mp_counts {
	uint64_t samples, latency, weighted, resolved, remote, on_home;
};

static inline void mp_counts_add(struct mp_counts *c, uint32_t valid, uint64_t weight,
				 int mem_node, int cpu_node, int home)
{
	c->samples++;
	if (valid & PMS_MS_WEIGHT) {
		c->latency += weight;
		c->weighted++;
	}
	if (mem_node >= 0) {
		c->resolved++;
		if (cpu_node >= 0 && mem_node != cpu_node)
			c->remote++;
		if (home >= 0 && mem_node == home)
			c->on_home++;
	}
}

/* One instruction as the report's code side reads it (mp_finish_code): 72
 * bytes, not the 200 of a struct pms_memreport_site, which only the rows
 * that are shown become (the rows of hundreds of thousands of
 * instructions were most of the memory building the report touched).  i:
 * its index in the caller's order (the names found for it). */
struct irow {
	uint64_t addr;
	struct mp_counts n;
	size_t i;
	uint32_t pid;
	bool kernel, addr_hidden;
	bool foreign; /* addr is a foreign kernel IP's key (mp_ip_key) */
};

/* A sort key of the kept samples: (major, minor) and the sample. */
struct skey {
	uint64_t major, minor;
	size_t i;
};

/* memprof.c */
/* Arrays of IPTAB_HUGE bytes or more are mapped on 2 MiB boundaries (on
 * huge pages where the kernel gives them), the others allocated; zeroed.
 * mp_big_free takes the size given to mp_big_calloc. */
void *mp_big_calloc(size_t bytes);
void mp_big_free(void *v, size_t bytes);
const struct pms_maps *mp_maps_of(struct pms_memprof *p, const struct ksample *s);
long mp_u64map_get(struct u64map *m, uint64_t key, size_t next, bool *added);
int mp_grow(void **v, size_t *cap, size_t n, size_t sz);
const char *mp_task_comm(const struct pms_memprof *p, uint32_t pid, uint32_t tid);
int mp_task_sampled(struct pms_memprof *p, const struct pms_memsample *s, uint32_t *task);
void mp_sites_free(struct pms_memreport_site *v, size_t n);
pid_t mp_ask_pid(const struct pms_memprof *p, const struct ksample *x);
bool mp_askable(const struct pms_memprof *p, const struct ksample *x, unsigned max);

/* memprof_resolve.c */
int mp_skey_cmp(const void *a, const void *b);
void mp_skey_sort(struct skey *v, size_t n);

/* memprof_add.c */
/* IP tables of at least this many bytes are mapped on 2 MiB boundaries
 * (mp_big_calloc), the others allocated; mp_iptab_free frees either. */
#define IPTAB_HUGE ((size_t)2 << 20)
void mp_iptab_free(struct iptab *t);
bool mp_iptab_resize(struct iptab *t, size_t cap, bool with_nodes);
size_t mp_iptab_get(struct iptab *t, uint64_t ip, bool nodes);
/* The weights' count, least, most and sum (wlo's read off it, whi's
 * kept as they came); the sum is exact while below 2^53, as a sum of
 * each weight in turn would be. */
struct wstats {
	uint64_t n, min, max;
	double sum;
};
void mp_agg_wstats(const struct agg *a, struct wstats *w);
uint64_t mp_agg_pct(const struct agg *a, const struct wstats *w, double pct);
uint64_t mp_level_key_of(uint32_t valid, uint64_t data_src);
int mp_agg_flush(struct pms_memprof *p);

/* memprof_sites.c */
char *mp_xstrdup(const char *s, int *rc);
int mp_count_addn(struct pms_memreport_count **v, size_t *n, const char *name, uint64_t k);
int mp_count_cmp(const void *a, const void *b);
/* Accumulate one sample (its validity bits, weight and nodes) into a site:
 * inline, as the aggregate counts every sample with an address into its
 * data object's row with it (a call was 3 % of a report's CPU). */
static inline void mp_site_count(struct pms_memreport_site *s, uint32_t valid, uint64_t weight,
				 int mem_node, int cpu_node, int home)
{
	struct mp_counts c = { s->samples, s->latency, s->weighted, s->resolved, s->remote,
			       s->on_home };
	mp_counts_add(&c, valid, weight, mem_node, cpu_node, home);
	s->samples = c.samples;
	s->latency = c.latency;
	s->weighted = c.weighted;
	s->resolved = c.resolved;
	s->remote = c.remote;
	s->on_home = c.on_home;
}
int mp_site_copy(struct pms_memreport_site *d, const struct pms_memreport_site *s);
int mp_by_samples(const void *a, const void *b);
int mp_top_of(struct pms_memreport_site *all, size_t n, size_t top,
	      int (*cmp)(const void *, const void *), bool need_latency,
	      struct pms_memreport_site **out, size_t *nout);
int mp_finish_code(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym,
		   struct irow *ips, size_t nips);
int mp_build_code(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym);
void mp_site_account_k(const struct pms_memprof *p, struct pms_memreport_site *s,
		       const struct ksample *x);
int mp_sites_copy(const struct pms_memreport_site *v, size_t n, struct pms_memreport_site **out,
		  size_t *nout);

/* memprof_objects.c */
/* THE naming of a sampled data address (live and from files alike): the
 * seam where allocation tracking comes in.  An allocation that held addr
 * at time (of process pid; time 0: unknown) would name it first; there is
 * none yet, so the mapping's truth (pms_data_object) names it.  0, or a
 * negative PMS_E*. */
int mp_data_object(struct pms_memprof *p, struct pms_symbolizer *sym, const struct pms_maps *maps,
		   uint32_t pid, uint64_t time, uint64_t addr, struct pms_dataobj *out);
int mp_build_objects(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym);

/* memprof_residency.c */
/* Read the residency of process pid's sampled mappings (its pages' nodes)
 * through thread tid, in oracle batches: while it is held at exit. */
int mp_residency_read(struct pms_memprof *p, struct pms_numa_oracle *oracle, pid_t pid, pid_t tid);
/* Add pages and samples to node's entry of object o (node order). */
int mp_objnode_add(struct pms_memreport_site *o, int node, uint64_t pages, uint64_t samples);
/* o's pages per node from the residency read. */
int mp_object_residency(const struct pms_memprof *p, struct pms_memreport_site *o);

/* memprof_tasks.c */
void mp_task_free(struct pms_memreport_task *t);
int mp_build_tasks(struct pms_memprof *p, bool threads, struct pms_memreport_task **out,
		   size_t *nout);

/* Process pid is gone, or about to be, before its pages were asked about
 * (why: PMS_NODE_HOLD_BUDGET, the run let it go at the exit hold's
 * budget): every one of its samples without a node yet takes why as its
 * final status and is not asked about again.  Returns how many. */
int pms_memprof_give_up_task(struct pms_memprof *p, pid_t pid, int why);

/* Name the sampled processes and threads that no COMM record named yet
 * from proc/PID/comm and proc/PID/task/TID/comm (a process that was
 * running before the recording began); each is asked once.  Returns how
 * many were named. */
int pms_memprof_name_tasks(struct pms_memprof *p, struct pms_sys *sys);

#endif
