/* Cache-line contention: memory samples folded into cache lines, each line
 * into (offset, instruction) accesses, with perf c2c's classification of
 * every data source (tools/perf/util/mem-events.c c2c_decode_stats) and its
 * choice of shared lines (tools/perf/builtin-c2c.c resort_shared_cl_cb,
 * he__display).  Written from those rules, not from perf's code. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/c2c.h"
#include "pmuscope/datasrc.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/opts.h"
#include "report/c2c_int.h"

/* ---- classification (perf's c2c_decode_stats rules) ----------------------- */

int pms_c2c_classify(uint64_t data_src, bool has_addr, struct pms_c2c_stats *st)
{
	struct pms_datasrc d;
	pms_datasrc_unpack(data_src, &d);
	/* Skylake reports "remote, level unknown" with the remote bit; Power
	 * sets remote with hops for another core of the same node, so only
	 * remote without hops means a remote node. */
	bool mrem = d.remote && !d.hops;
	st->nr_entries++;
	if (d.lock & PMS_MEM_LOCK_LOCKED)
		st->locks++;
	if (d.blk & PMS_MEM_BLK_DATA)
		st->blk_data++;
	if (d.blk & PMS_MEM_BLK_ADDR)
		st->blk_addr++;
	if (d.op & PMS_MEM_OP_LOAD) {
		st->load++;
		if (!has_addr) {
			st->ld_noadrs++;
			return -1;
		}
		if (d.lvl & PMS_MEM_LVL_HIT) {
			if (d.lvl & PMS_MEM_LVL_UNC)
				st->ld_uncache++;
			if (d.lvl & PMS_MEM_LVL_IO)
				st->ld_io++;
			if (d.lvl & PMS_MEM_LVL_LFB)
				st->ld_fbhit++;
			if (d.lvl & PMS_MEM_LVL_L1)
				st->ld_l1hit++;
			if (d.lvl & PMS_MEM_LVL_L2) {
				st->ld_l2hit++;
				if (d.snoopx & PMS_MEM_SNOOPX_PEER) {
					st->lcl_peer++;
					st->tot_peer++;
				}
			}
			if (d.lvl & PMS_MEM_LVL_L3) {
				if (d.snoop & PMS_MEM_SNOOP_HITM) {
					st->lcl_hitm++;
					st->tot_hitm++;
				} else {
					st->ld_llchit++;
				}
				if (d.snoopx & PMS_MEM_SNOOPX_PEER) {
					st->lcl_peer++;
					st->tot_peer++;
				}
			}
			if (d.lvl & PMS_MEM_LVL_LOC_RAM) {
				st->lcl_dram++;
				if (d.snoop & PMS_MEM_SNOOP_HIT)
					st->ld_shared++;
				else
					st->ld_excl++;
			}
			if ((d.lvl & (PMS_MEM_LVL_REM_RAM1 | PMS_MEM_LVL_REM_RAM2)) || mrem) {
				st->rmt_dram++;
				if (d.snoop & PMS_MEM_SNOOP_HIT)
					st->ld_shared++;
				else
					st->ld_excl++;
			}
		}
		/* remote caches are judged with or without the hit bit */
		if ((d.lvl & (PMS_MEM_LVL_REM_CCE1 | PMS_MEM_LVL_REM_CCE2)) || mrem) {
			if (d.snoop & PMS_MEM_SNOOP_HIT) {
				st->rmt_hit++;
			} else if (d.snoop & PMS_MEM_SNOOP_HITM) {
				st->rmt_hitm++;
				st->tot_hitm++;
			} else if (d.snoopx & PMS_MEM_SNOOPX_PEER) {
				st->rmt_hit++;
				st->rmt_peer++;
				st->tot_peer++;
			}
		}
		if (d.lvl & PMS_MEM_LVL_MISS)
			st->ld_miss++;
		return 0;
	}
	if (d.op & PMS_MEM_OP_STORE) {
		st->store++;
		if (!has_addr) {
			st->st_noadrs++;
			return -1;
		}
		if (d.lvl & PMS_MEM_LVL_HIT) {
			if (d.lvl & PMS_MEM_LVL_UNC)
				st->st_uncache++;
			if (d.lvl & PMS_MEM_LVL_L1)
				st->st_l1hit++;
		}
		if ((d.lvl & PMS_MEM_LVL_MISS) && (d.lvl & PMS_MEM_LVL_L1))
			st->st_l1miss++;
		if (d.lvl & PMS_MEM_LVL_NA)
			st->st_na++;
		return 0;
	}
	st->noparse++;
	return -1;
}

uint64_t pms_c2c_llc_misses(const struct pms_c2c_stats *st)
{
	return st->lcl_dram + st->rmt_dram + st->rmt_hitm + st->rmt_hit;
}

uint64_t pms_c2c_perf_loads(const struct pms_c2c_stats *st)
{
	return pms_c2c_llc_misses(st) + st->ld_fbhit + st->ld_l1hit + st->ld_l2hit + st->ld_llchit +
	       st->lcl_hitm;
}

uint64_t pms_c2c_perf_records(const struct pms_c2c_stats *st)
{
	return pms_c2c_perf_loads(st) + st->st_l1hit + st->st_l1miss + st->st_na;
}

#define NSTATS (sizeof(struct pms_c2c_stats) / sizeof(uint64_t))

static void stats_add(struct pms_c2c_stats *a, const struct pms_c2c_stats *b)
{
	uint64_t *x = (uint64_t *)a;
	const uint64_t *y = (const uint64_t *)b;
	for (size_t i = 0; i < NSTATS; i++)
		x[i] += y[i];
}

/* ---- names ------------------------------------------------------------------ */

static const char *const metric_names[] = {
	[PMS_C2C_AUTO] = "auto", [PMS_C2C_TOT_HITM] = "tot_hitm",
	[PMS_C2C_LCL_HITM] = "lcl_hitm", [PMS_C2C_RMT_HITM] = "rmt_hitm",
	[PMS_C2C_PEER] = "peer", [PMS_C2C_SCORE] = "score", [PMS_C2C_SHARERS] = "sharers",
};

static const char *const metric_labels[] = {
	[PMS_C2C_AUTO] = "",
	[PMS_C2C_TOT_HITM] = "Total HITMs (loads that hit a line modified in another core's cache)",
	[PMS_C2C_LCL_HITM] = "Local HITMs (HITM in the local node's caches)",
	[PMS_C2C_RMT_HITM] = "Remote HITMs (HITM in a remote node's cache)",
	[PMS_C2C_PEER] = "Peer snoops (loads served by a peer core's cache, local or remote)",
	[PMS_C2C_SCORE] = "contention score, not HITM: loads served by a peer cache (local) or any "
			  "remote cache (lcl_peer + rmt_hit); this engine reports no HITM",
	[PMS_C2C_SHARERS] = "threads touching the line: this engine reports no data source (no "
			    "HITM, no peer hits), so lines touched by several threads are listed "
			    "(loads and stores cannot be told apart)",
};

const char *pms_c2c_metric_name(enum pms_c2c_metric m)
{
	return (unsigned)m < sizeof(metric_names) / sizeof(metric_names[0]) ? metric_names[m] : "?";
}

int pms_c2c_metric_parse(const char *s, enum pms_c2c_metric *out)
{
	static const struct {
		const char *n;
		enum pms_c2c_metric m;
	} alias[] = { { "tot", PMS_C2C_TOT_HITM }, { "lcl", PMS_C2C_LCL_HITM },
		      { "rmt", PMS_C2C_RMT_HITM } };
	for (size_t i = 0; s && i < sizeof(metric_names) / sizeof(metric_names[0]); i++)
		if (!strcmp(s, metric_names[i])) {
			*out = (enum pms_c2c_metric)i;
			return 0;
		}
	for (size_t i = 0; s && i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcmp(s, alias[i].n)) {
			*out = alias[i].m;
			return 0;
		}
	return pms_err(PMS_EINVAL,
		       "c2c metric '%s': give tot_hitm, lcl_hitm, rmt_hitm, peer, score or sharers",
		       s ? s : "(null)");
}

static const char *const sort_names[] = {
	[PMS_C2C_SORT_METRIC] = "metric", [PMS_C2C_SORT_HITM] = "hitm",
	[PMS_C2C_SORT_RMT_HITM] = "rmt_hitm", [PMS_C2C_SORT_LCL_HITM] = "lcl_hitm",
	[PMS_C2C_SORT_PEER] = "peer", [PMS_C2C_SORT_LOADS] = "loads",
	[PMS_C2C_SORT_STORES] = "stores", [PMS_C2C_SORT_SAMPLES] = "samples",
	[PMS_C2C_SORT_THREADS] = "threads", [PMS_C2C_SORT_LATENCY] = "latency",
	[PMS_C2C_SORT_ADDRESS] = "address",
};

const char *pms_c2c_sort_name(enum pms_c2c_sort s)
{
	return (unsigned)s < sizeof(sort_names) / sizeof(sort_names[0]) ? sort_names[s] : "?";
}

int pms_c2c_sort_parse(const char *s, enum pms_c2c_sort *out)
{
	for (size_t i = 0; s && i < sizeof(sort_names) / sizeof(sort_names[0]); i++)
		if (!strcmp(s, sort_names[i])) {
			*out = (enum pms_c2c_sort)i;
			return 0;
		}
	return pms_err(PMS_EINVAL,
		       "c2c sort key '%s': give metric, hitm, rmt_hitm, lcl_hitm, peer, loads, "
		       "stores, samples, threads, latency or address",
		       s ? s : "(null)");
}

/* ---- the collector ------------------------------------------------------------ */

struct ivec { /* sorted distinct ints */
	int *v;
	size_t n, cap;
};

static int ivec_add(struct ivec *s, int x)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->v[mid] == x)
			return 0;
		if (s->v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (pms_grow(&s->v, &s->cap, s->n + 1, sizeof(int), 4, "c2c set") < 0)
		return PMS_ENOMEM;
	memmove(s->v + lo + 1, s->v + lo, (s->n - lo) * sizeof(int));
	s->v[lo] = x;
	s->n++;
	return 0;
}

struct acc {
	uint32_t offset;
	uint64_t ip;
	bool kernel, ip_valid;
	bool foreign; /* a PMS_MS_KERNEL_FOREIGN sample's kernel IP: unnamed */
	struct pms_c2c_stats st;
	uint64_t reached; /* samples that got to perf's nomap check */
	uint64_t nomap_sb; /* ... and had no mapping by the side-band (pms_c2c_sideband) */
	struct pms_c2c_lat lat[PMS_C2C_LAT_N], lat_all;
	struct pms_c2c_thread *th;
	size_t nth, thcap;
	struct ivec cpus, cpu_nodes;
};

struct line {
	uint64_t addr;
	uint32_t pid;
	bool kernel;
	struct pms_c2c_stats st;
	struct ivec mem_nodes;
	uint64_t node_unknown, paddr, paddr_cnt;
	struct acc *acc;
	size_t nacc, acccap;
	struct pms_c2c_touch *tv;  /* pms_c2c_keep_touches: its samples */
	size_t ntv, tvcap;
};

struct pms_c2c {
	enum pms_engine engine;
	struct pms_c2c_opts o;
	struct pms_c2c_stats total;
	uint64_t samples;
	struct line *lines;
	size_t nlines, cap;
	uint32_t *slots; /* open addressing: line index + 1, 0 = empty */
	size_t nslots;
	/* side-band given (pms_c2c_sideband): each process's maps (sorted by
	 * pid) and the kernel's, for perf's nomap at the sample's time */
	bool have_sb;
	struct pidmaps *pm;
	size_t npm, pmcap;
	struct pms_maps *kmaps;
	bool keep_touches;
};

struct pidmaps {
	uint32_t pid;
	struct pms_maps *m;
};

/* The maps of process pid; created (empty) when create is set. */
static struct pms_maps *maps_of(struct pms_c2c *c, uint32_t pid, bool create)
{
	size_t lo = 0, hi = c->npm;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (c->pm[mid].pid == pid)
			return c->pm[mid].m;
		if (c->pm[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	struct pms_maps *m = NULL;
	if (!create || pms_grow(&c->pm, &c->pmcap, c->npm + 1, sizeof(*c->pm), 16, "c2c maps") < 0 ||
	    pms_maps_new(&m) < 0)
		return NULL;
	memmove(c->pm + lo + 1, c->pm + lo, (c->npm - lo) * sizeof(*c->pm));
	c->pm[lo].pid = pid;
	c->pm[lo].m = m;
	c->npm++;
	return m;
}

int pms_c2c_sideband(struct pms_c2c *c, const struct pms_record *rec)
{
	if (!c || !rec)
		return pms_err(PMS_EINVAL, "c2c sideband: NULL argument");
	c->have_sb = true;
	if (!c->kmaps && pms_maps_new(&c->kmaps) < 0)
		return PMS_ENOMEM;
	switch (rec->type) {
	case PMS_RECORD_MMAP:
	case PMS_RECORD_MMAP2: {
		const struct pms_rec_mmap *m = &rec->mmap;
		if (!m->len)
			return 0;
		struct pms_maps *to = m->pid == UINT32_MAX ? c->kmaps : maps_of(c, m->pid, true);
		if (!to)
			return PMS_ENOMEM;
		return pms_maps_add(to, m->addr, m->len, m->pgoff, 0, false,
				    m->filename ? m->filename : "");
	}
	case PMS_RECORD_FORK: {
		/* a new process starts with a copy of its parent's maps
		 * (perf: thread__fork); a new thread shares them */
		const struct pms_rec_fork *f = &rec->fork;
		if (f->pid == f->ppid || maps_of(c, f->pid, false))
			return 0;
		struct pms_maps *from = maps_of(c, f->ppid, false);
		struct pms_maps *to = maps_of(c, f->pid, true);
		if (!to)
			return PMS_ENOMEM;
		for (size_t i = 0; from && i < from->n; i++) {
			const struct pms_map *x = &from->v[i];
			int rc = pms_maps_add(to, x->start, x->end - x->start, x->pgoff, x->ino, x->exec,
					      x->path);
			if (rc < 0)
				return rc;
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* perf's "mapped" (util/machine.c sample__resolve_mem): the IP is looked
 * up in the process's maps and the kernel's (ip__resolve_ams tries every
 * cpumode), the data address only in the space of the sample's cpumode
 * (ip__resolve_data): the kernel's maps for a sample taken in the kernel,
 * else the process's. */
static bool sb_mapped(struct pms_c2c *c, uint32_t pid, uint64_t addr, int space)
{
	const struct pms_maps *m = space != 1 ? maps_of(c, pid, false) : NULL;
	const struct pms_maps *k = space != 0 ? c->kmaps : NULL;
	return (m && pms_maps_find(m, addr)) || (k && pms_maps_find(k, addr));
}

PMS_OPTS_LAYOUT(PMS_C2C_OPTS, struct pms_c2c_opts, PMS_OPTS_END(struct pms_c2c_opts, recorded));

int pms_c2c_new(enum pms_engine engine, const struct pms_c2c_opts *opts, struct pms_c2c **out)
{
	struct pms_c2c_opts o;
	int rc;
	if ((rc = PMS_OPTS_TAKE("pms_c2c_new", PMS_C2C_OPTS, opts, &o)) < 0)
		return rc;
	struct pms_c2c *c = calloc(1, sizeof(*c));
	if (!c)
		return pms_err(PMS_ENOMEM, "c2c collector: out of memory");
	c->engine = engine;
	c->o = o;
	*out = c;
	return 0;
}

static void lat_add(struct pms_c2c_lat *l, uint64_t w)
{
	if (!l->n || w < l->min)
		l->min = w;
	if (w > l->max)
		l->max = w;
	l->n++;
	l->sum += w;
}

static uint64_t hash2(uint64_t a, uint32_t b)
{
	uint64_t h = (a ^ ((uint64_t)b << 32 | b)) * 0x9E3779B97F4A7C15ULL;
	return h ^ (h >> 29);
}

static int rehash(struct pms_c2c *c)
{
	size_t n = c->nslots ? c->nslots * 2 : 1024;
	uint32_t *s = calloc(n, sizeof(*s));
	if (!s)
		return pms_err(PMS_ENOMEM, "c2c line table: out of memory");
	for (size_t i = 0; i < c->nlines; i++) {
		size_t k = hash2(c->lines[i].addr, c->lines[i].pid) & (n - 1);
		while (s[k])
			k = (k + 1) & (n - 1);
		s[k] = (uint32_t)i + 1;
	}
	free(c->slots);
	c->slots = s;
	c->nslots = n;
	return 0;
}

static struct line *line_get(struct pms_c2c *c, uint64_t addr, uint32_t pid, bool kernel)
{
	if ((c->nlines + 1) * 2 > c->nslots && rehash(c) < 0)
		return NULL;
	size_t k = hash2(addr, pid) & (c->nslots - 1);
	while (c->slots[k]) {
		struct line *l = &c->lines[c->slots[k] - 1];
		if (l->addr == addr && l->pid == pid)
			return l;
		k = (k + 1) & (c->nslots - 1);
	}
	if (c->nlines >= UINT32_MAX - 1 ||
	    pms_grow(&c->lines, &c->cap, c->nlines + 1, sizeof(*c->lines), 256, "c2c lines") < 0)
		return NULL;
	struct line *l = &c->lines[c->nlines];
	memset(l, 0, sizeof(*l));
	l->addr = addr;
	l->pid = pid;
	l->kernel = kernel;
	c->slots[k] = (uint32_t)++c->nlines;
	return l;
}

static struct acc *acc_get(struct line *l, uint32_t off, uint64_t ip, bool ip_valid, bool kernel,
			   bool foreign)
{
	for (size_t i = 0; i < l->nacc; i++)
		if (l->acc[i].offset == off && l->acc[i].ip == ip && l->acc[i].ip_valid == ip_valid &&
		    l->acc[i].foreign == foreign)
			return &l->acc[i];
	if (pms_grow(&l->acc, &l->acccap, l->nacc + 1, sizeof(*l->acc), 4, "c2c accesses") < 0)
		return NULL;
	struct acc *a = &l->acc[l->nacc++];
	memset(a, 0, sizeof(*a));
	a->offset = off;
	a->ip = ip;
	a->ip_valid = ip_valid;
	a->kernel = kernel;
	a->foreign = foreign;
	return a;
}

static int thread_add(struct acc *a, uint32_t pid, uint32_t tid, bool load, bool store)
{
	struct pms_c2c_thread *t = NULL;
	for (size_t i = 0; i < a->nth; i++)
		if (a->th[i].tid == tid && a->th[i].pid == pid)
			t = &a->th[i];
	if (!t) {
		if (pms_grow(&a->th, &a->thcap, a->nth + 1, sizeof(*a->th), 2, "c2c threads") < 0)
			return PMS_ENOMEM;
		t = &a->th[a->nth++];
		memset(t, 0, sizeof(*t));
		t->pid = pid;
		t->tid = tid;
	}
	t->samples++;
	t->loads += load;
	t->stores += store;
	return 0;
}

int pms_c2c_add(struct pms_c2c *c, const struct pms_memreport_sample *rs)
{
	const struct pms_memsample *s = &rs->s;
	uint64_t ds = (s->valid & PMS_MS_DATA_SRC) ? s->data_src : PMS_MEM_NA_VALUE;
	bool has_addr = (s->valid & PMS_MS_ADDR) && s->addr;
	struct pms_c2c_stats one;
	memset(&one, 0, sizeof(one));
	int reached = pms_c2c_classify(ds, has_addr, &one);
	stats_add(&c->total, &one);
	c->samples++;
	if (!has_addr)
		return 0; /* perf files these under line 0, which never has HITM or peers */

	uint64_t size = c->o.double_cl ? 128 : 64;
	uint64_t addr = s->addr & ~(size - 1);
	bool kernel = s->addr >= (1ULL << 63);
	/* perf keeps user lines apart per process (sort__dcacheline_cmp, for
	 * private anonymous memory); kernel lines are one space */
	uint32_t pid = kernel || !(s->valid & PMS_MS_TID) ? 0 : s->pid;
	struct line *l = line_get(c, addr, pid, kernel);
	if (!l)
		return PMS_ENOMEM;
	stats_add(&l->st, &one);
	if (c->keep_touches && (s->valid & PMS_MS_TIME)) {
		if (pms_grow(&l->tv, &l->tvcap, l->ntv + 1, sizeof(*l->tv), 4, "c2c samples") < 0)
			return PMS_ENOMEM;
		l->tv[l->ntv++] = (struct pms_c2c_touch){ s->addr, s->time, s->pid };
	}
	if (rs->mem_node >= 0) {
		if (ivec_add(&l->mem_nodes, rs->mem_node) < 0)
			return PMS_ENOMEM;
	} else {
		l->node_unknown++;
	}
	/* perf's PA cnt: how often the physical address changed */
	if ((s->valid & PMS_MS_PHYS) && s->phys_addr && s->phys_addr != l->paddr) {
		l->paddr_cnt++;
		l->paddr = s->phys_addr;
	}
	bool ipv = (s->valid & PMS_MS_IP) != 0;
	bool kip = (s->valid & PMS_MS_KERNEL_IP) != 0;
	struct acc *a = acc_get(l, (uint32_t)(s->addr - addr), ipv ? s->ip : 0, ipv, kip,
				kip && (s->valid & PMS_MS_KERNEL_FOREIGN));
	if (!a)
		return PMS_ENOMEM;
	stats_add(&a->st, &one);
	a->reached += reached == 0;
	if (c->have_sb && reached == 0) {
		uint32_t p = (s->valid & PMS_MS_TID) ? s->pid : 0;
		bool kmode = (s->valid & PMS_MS_KERNEL_IP) != 0;
		if (!sb_mapped(c, p, s->addr, kmode ? 1 : 0) || !ipv || !sb_mapped(c, p, s->ip, 2))
			a->nomap_sb++;
	}
	struct pms_datasrc d;
	pms_datasrc_unpack(ds, &d);
	if ((s->valid & PMS_MS_TID) &&
	    thread_add(a, s->pid, s->tid, (d.op & PMS_MEM_OP_LOAD) != 0, (d.op & PMS_MEM_OP_STORE) != 0) < 0)
		return PMS_ENOMEM;
	if ((s->valid & PMS_MS_CPU) && ivec_add(&a->cpus, (int)s->cpu) < 0)
		return PMS_ENOMEM;
	if (rs->cpu_node >= 0 && ivec_add(&a->cpu_nodes, rs->cpu_node) < 0)
		return PMS_ENOMEM;
	if (s->valid & PMS_MS_WEIGHT) {
		lat_add(&a->lat_all, s->weight);
		/* builtin-c2c.c compute_stats: the first class the sample is in */
		int k = one.rmt_hitm ? PMS_C2C_LAT_RMT_HITM
			: one.lcl_hitm ? PMS_C2C_LAT_LCL_HITM
			: one.rmt_peer ? PMS_C2C_LAT_RMT_PEER
			: one.lcl_peer ? PMS_C2C_LAT_LCL_PEER
			: one.load     ? PMS_C2C_LAT_LOAD : -1;
		if (k >= 0)
			lat_add(&a->lat[k], s->weight);
	}
	return 0;
}

void pms_c2c_keep_touches(struct pms_c2c *c)
{
	c->keep_touches = true;
}

void pms_c2c_set_recorded(struct pms_c2c *c, bool recorded)
{
	c->o.recorded = recorded;
}

const struct pms_c2c_touch *pms_c2c_line_touches(const struct pms_c2c *c,
						 const struct pms_c2c_line *l, size_t *n)
{
	*n = 0;
	if (!c->nslots)
		return NULL;
	size_t k = hash2(l->addr, l->pid) & (c->nslots - 1);
	for (; c->slots[k]; k = (k + 1) & (c->nslots - 1)) {
		const struct line *x = &c->lines[c->slots[k] - 1];
		if (x->addr == l->addr && x->pid == l->pid) {
			*n = x->ntv;
			return x->tv;
		}
	}
	return NULL;
}

int pms_c2c_add_src(struct pms_c2c *c, const struct pms_memsrc_sample *s)
{
	struct pms_memreport_sample x = { s->ms, s->mem_node, s->cpu_node, s->node_from_phys, -1, -1, -1, 0 };
	return pms_c2c_add(c, &x);
}

void pms_c2c_set_engine(struct pms_c2c *c, enum pms_engine engine)
{
	if (c)
		c->engine = engine;
}

uint64_t pms_c2c_count(const struct pms_c2c *c)
{
	return c->samples;
}

static void acc_fini(struct acc *a)
{
	free(a->th);
	free(a->cpus.v);
	free(a->cpu_nodes.v);
}

void pms_c2c_free(struct pms_c2c *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nlines; i++) {
		for (size_t k = 0; k < c->lines[i].nacc; k++)
			acc_fini(&c->lines[i].acc[k]);
		free(c->lines[i].acc);
		free(c->lines[i].mem_nodes.v);
		free(c->lines[i].tv);
	}
	free(c->lines);
	free(c->slots);
	for (size_t i = 0; i < c->npm; i++)
		pms_maps_free(c->pm[i].m);
	free(c->pm);
	pms_maps_free(c->kmaps);
	free(c);
}

/* ---- the report ------------------------------------------------------------------ */

static enum pms_c2c_metric auto_metric(enum pms_engine e)
{
	switch (e) {
	case PMS_ENG_PEBS:
	case PMS_ENG_IBS:
		return PMS_C2C_TOT_HITM;
	case PMS_ENG_SPE:
		return PMS_C2C_SCORE;
	case PMS_ENG_SOFTWARE:
		return PMS_C2C_SHARERS;
	default:
		return PMS_C2C_TOT_HITM; /* a recorded file of an unknown PMU: perf's default */
	}
}

/* Per-line facts the metric and sort need, before the report is built. */
struct lsum {
	size_t idx;
	size_t nthreads, nwriters;
	uint64_t metric;
	uint64_t lat_sum;
};

static uint64_t metric_of(enum pms_c2c_metric m, const struct pms_c2c_stats *st, size_t nthreads)
{
	switch (m) {
	case PMS_C2C_LCL_HITM:
		return st->lcl_hitm;
	case PMS_C2C_RMT_HITM:
		return st->rmt_hitm;
	case PMS_C2C_PEER:
		return st->tot_peer;
	case PMS_C2C_SCORE:
		return st->lcl_peer + st->rmt_hit;
	case PMS_C2C_SHARERS:
		return nthreads;
	default:
		return st->tot_hitm;
	}
}

static void line_threads(const struct line *l, size_t *nthreads, size_t *nwriters)
{
	/* distinct (pid, tid) over the accesses; lines have few */
	size_t n = 0, w = 0;
	for (size_t a = 0; a < l->nacc; a++)
		for (size_t t = 0; t < l->acc[a].nth; t++) {
			const struct pms_c2c_thread *x = &l->acc[a].th[t];
			bool seen = false, wrote = false;
			for (size_t b = 0; b <= a && !seen; b++)
				for (size_t u = 0; u < (b == a ? t : l->acc[b].nth); u++)
					if (l->acc[b].th[u].tid == x->tid && l->acc[b].th[u].pid == x->pid) {
						seen = true;
						break;
					}
			if (seen)
				continue;
			n++;
			for (size_t b = a; b < l->nacc && !wrote; b++)
				for (size_t u = 0; u < l->acc[b].nth; u++)
					if (l->acc[b].th[u].tid == x->tid && l->acc[b].th[u].pid == x->pid &&
					    l->acc[b].th[u].stores) {
						wrote = true;
						break;
					}
			w += wrote;
		}
	*nthreads = n;
	*nwriters = w;
}

struct sort_ctx {
	const struct pms_c2c *c;
	enum pms_c2c_sort key;
};

static uint64_t sort_val(const struct sort_ctx *x, const struct lsum *s)
{
	const struct pms_c2c_stats *st = &x->c->lines[s->idx].st;
	switch (x->key) {
	case PMS_C2C_SORT_HITM: return st->tot_hitm;
	case PMS_C2C_SORT_RMT_HITM: return st->rmt_hitm;
	case PMS_C2C_SORT_LCL_HITM: return st->lcl_hitm;
	case PMS_C2C_SORT_PEER: return st->tot_peer;
	case PMS_C2C_SORT_LOADS: return st->load;
	case PMS_C2C_SORT_STORES: return st->store;
	case PMS_C2C_SORT_SAMPLES: return st->nr_entries;
	case PMS_C2C_SORT_THREADS: return s->nthreads;
	case PMS_C2C_SORT_LATENCY: return s->lat_sum;
	default: return s->metric;
	}
}

static int cmp_lsum(const void *pa, const void *pb, void *ud)
{
	const struct sort_ctx *cx = ud;
	const struct lsum *a = pa, *b = pb;
	const struct line *la = &cx->c->lines[a->idx], *lb = &cx->c->lines[b->idx];
	if (cx->key != PMS_C2C_SORT_ADDRESS) {
		uint64_t x = sort_val(cx, a), y = sort_val(cx, b);
		if (x != y)
			return x > y ? -1 : 1;
	}
	if (la->addr != lb->addr)
		return la->addr < lb->addr ? -1 : 1;
	return la->pid < lb->pid ? -1 : la->pid > lb->pid;
}

static int cmp_acc(const void *pa, const void *pb)
{
	const struct pms_c2c_access *a = pa, *b = pb;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	if (a->st.nr_entries != b->st.nr_entries)
		return a->st.nr_entries > b->st.nr_entries ? -1 : 1;
	return a->ip < b->ip ? -1 : a->ip > b->ip;
}

static char *dup_or(const char *s, const char *fallback, int *rc)
{
	char *d = strdup(s ? s : fallback);
	if (!d)
		*rc = PMS_ENOMEM;
	return d;
}

static int ivec_copy(const struct ivec *s, int **out, size_t *n)
{
	*n = 0;
	*out = NULL;
	if (!s->n)
		return 0;
	*out = malloc(s->n * sizeof(int));
	if (!*out)
		return PMS_ENOMEM;
	memcpy(*out, s->v, s->n * sizeof(int));
	*n = s->n;
	return 0;
}

static int build_access(const struct acc *a, struct pms_symbolizer *sym, bool recorded,
			struct pms_c2c_access *o)
{
	int rc = 0;
	o->offset = a->offset;
	o->ip = a->ip;
	o->ip_valid = a->ip_valid;
	o->kernel = a->kernel;
	o->st = a->st;
	memcpy(o->lat, a->lat, sizeof(o->lat));
	o->lat_all = a->lat_all;
	struct pms_symbol sy;
	memset(&sy, 0, sizeof(sy));
	bool named = a->ip_valid && sym && !(a->kernel && (recorded || a->foreign)) &&
		     pms_symbolizer_code(sym, a->ip, a->kernel, &sy) == 0;
	o->func = dup_or(named ? sy.func : NULL, a->kernel ? "[kernel]" : "[unknown]", &rc);
	o->file = named && sy.file ? dup_or(sy.file, "", &rc) : NULL;
	o->line = named ? sy.line : 0;
	o->module = dup_or(sy.module, a->kernel ? "[kernel]" : "", &rc);
	if (a->nth) {
		o->threads = malloc(a->nth * sizeof(*o->threads));
		if (!o->threads)
			return PMS_ENOMEM;
		memcpy(o->threads, a->th, a->nth * sizeof(*o->threads));
		o->nthreads = a->nth;
	}
	if (ivec_copy(&a->cpus, &o->cpus, &o->ncpus) < 0 ||
	    ivec_copy(&a->cpu_nodes, &o->cpu_nodes, &o->ncpu_nodes) < 0)
		return PMS_ENOMEM;
	return rc;
}

static int build_line(const struct line *l, const struct lsum *ls, uint32_t size,
		      const struct pms_maps *maps, struct pms_symbolizer *sym, bool recorded,
		      struct pms_c2c_line *o)
{
	int rc = 0;
	char buf[320];
	o->addr = l->addr;
	o->size = size;
	o->pid = l->pid;
	o->kernel = l->kernel;
	o->st = l->st;
	o->metric = ls->metric;
	o->node_unknown = l->node_unknown;
	o->paddr_cnt = l->paddr_cnt;
	o->nthreads = ls->nthreads;
	o->nwriters = ls->nwriters;
	o->alloc_site = -1;
	if (ivec_copy(&l->mem_nodes, &o->mem_nodes, &o->nmem_nodes) < 0)
		return PMS_ENOMEM;
	const struct pms_map *m = maps ? pms_maps_find(maps, l->addr) : NULL;
	const char *name = l->kernel ? "[kernel]" : "[unknown]", *kind = l->kernel ? "kernel" : "";
	struct pms_dataobj d;
	/* the one naming of data addresses (symbols.h), the mapping's truth */
	if (m && pms_data_object(l->kernel ? NULL : sym, 0, maps, l->addr, &d) == 0) {
		o->object_start = m->start;
		name = pms_dataobj_format(&d, buf, sizeof(buf));
		kind = pms_dataobj_kind_name(d.kind);
	}
	o->object = dup_or(name, "", &rc);
	o->object_kind = dup_or(kind, "", &rc);
	struct ivec cn = { 0 };
	o->acc = calloc(l->nacc ? l->nacc : 1, sizeof(*o->acc));
	if (!o->acc)
		return PMS_ENOMEM;
	o->nacc = l->nacc;
	for (size_t i = 0; i < l->nacc && rc >= 0; i++) {
		rc = build_access(&l->acc[i], sym, recorded, &o->acc[i]);
		for (size_t k = 0; k < l->acc[i].cpu_nodes.n && rc >= 0; k++)
			rc = ivec_add(&cn, l->acc[i].cpu_nodes.v[k]);
		if (l->acc[i].lat_all.n) {
			const struct pms_c2c_lat *x = &l->acc[i].lat_all;
			if (!o->lat_all.n || x->min < o->lat_all.min)
				o->lat_all.min = x->min;
			if (x->max > o->lat_all.max)
				o->lat_all.max = x->max;
			o->lat_all.n += x->n;
			o->lat_all.sum += x->sum;
		}
	}
	o->cpu_nodes = cn.v;
	o->ncpu_nodes = cn.n;
	if (rc >= 0)
		qsort(o->acc, o->nacc, sizeof(*o->acc), cmp_acc);
	return rc;
}

/* perf's nomap: a sample that got past the level counts whose data address
 * or IP is in no mapping.  Kernel addresses are judged by the maps when
 * they hold a kernel mapping (a file's kernel MMAP records), else count as
 * mapped (a live run knows no kernel mappings).  perf looks in the
 * sampled process's maps; these maps are every process's together. */
static void count_nomap(struct pms_c2c *c, const struct pms_maps *maps)
{
	if (c->have_sb) {
		/* judged per process when each sample came (pms_c2c_sideband) */
		for (size_t i = 0; i < c->nlines; i++)
			for (size_t k = 0; k < c->lines[i].nacc; k++)
				c->lines[i].acc[k].st.nomap = c->lines[i].acc[k].nomap_sb;
		goto sum;
	}
	if (!maps)
		return;
	bool kmaps = maps->n && maps->v[maps->n - 1].start >= (1ULL << 63);
	for (size_t i = 0; i < c->nlines; i++) {
		struct line *l = &c->lines[i];
		bool dmapped = (l->kernel && !kmaps) || pms_maps_find(maps, l->addr) != NULL;
		for (size_t k = 0; k < l->nacc; k++) {
			struct acc *a = &l->acc[k];
			bool kip = a->kernel || a->ip >= (1ULL << 63);
			bool imapped = a->ip_valid && ((kip && !kmaps) || pms_maps_find(maps, a->ip) != NULL);
			a->st.nomap = (!dmapped || !imapped) ? a->reached : 0;
		}
	}
sum:
	c->total.nomap = 0;
	for (size_t i = 0; i < c->nlines; i++) {
		struct line *l = &c->lines[i];
		l->st.nomap = 0;
		for (size_t k = 0; k < l->nacc; k++)
			l->st.nomap += l->acc[k].st.nomap;
		c->total.nomap += l->st.nomap;
	}
}

int pms_c2c_report(struct pms_c2c *c, const struct pms_maps *maps, struct pms_symbolizer *sym,
		   struct pms_c2c_report **out)
{
	int rc = 0;
	struct lsum *ls = NULL;
	struct pms_c2c_report *r = calloc(1, sizeof(*r));
	if (!r)
		return pms_err(PMS_ENOMEM, "c2c report: out of memory");
	count_nomap(c, maps);
	r->engine = c->engine;
	r->metric = c->o.metric == PMS_C2C_AUTO ? auto_metric(c->engine) : c->o.metric;
	r->metric_name = metric_names[r->metric];
	r->metric_label = metric_labels[r->metric];
	r->hitm_available = c->engine == PMS_ENG_PEBS || c->engine == PMS_ENG_IBS;
	r->double_cl = c->o.double_cl;
	r->samples = c->samples;
	r->total = c->total;
	r->nlines_seen = c->nlines;

	ls = calloc(c->nlines ? c->nlines : 1, sizeof(*ls));
	if (!ls) {
		rc = pms_err(PMS_ENOMEM, "c2c report: out of memory");
		goto out;
	}
	/* The shared lines (builtin-c2c.c resort_shared_cl_cb: lines with HITM
	 * or peer hits; the score adds remote clean hits; sharers: lines with
	 * several threads), then the listed ones (he__display: at least 0.1%
	 * of the shared lines' total of the metric). */
	size_t nls = 0;
	for (size_t i = 0; i < c->nlines; i++) {
		const struct line *l = &c->lines[i];
		struct lsum s = { .idx = i };
		line_threads(l, &s.nthreads, &s.nwriters);
		s.metric = metric_of(r->metric, &l->st, s.nthreads);
		for (size_t k = 0; k < l->nacc; k++)
			s.lat_sum += l->acc[k].lat_all.sum;
		bool shared;
		if (r->metric == PMS_C2C_SHARERS)
			shared = s.nthreads >= 2;
		else if (r->metric == PMS_C2C_SCORE)
			shared = l->st.tot_hitm || l->st.tot_peer || l->st.rmt_hit;
		else
			shared = l->st.tot_hitm || l->st.tot_peer;
		if (shared) {
			r->nshared++;
			stats_add(&r->shared, &l->st);
		}
		if (shared || c->o.all_lines)
			ls[nls++] = s;
	}
	uint64_t mtotal = 0;
	if (r->metric != PMS_C2C_SHARERS)
		mtotal = metric_of(r->metric, &r->shared, 0);
	size_t keep = 0;
	for (size_t i = 0; i < nls; i++) {
		bool show = c->o.all_lines;
		if (!show && r->metric == PMS_C2C_SHARERS)
			show = true; /* every shared line */
		else if (!show)
			show = mtotal && (double)ls[i].metric / (double)mtotal >= 0.001;
		if (show)
			ls[keep++] = ls[i];
	}
	struct sort_ctx cx = { c, c->o.sort };
	qsort_r(ls, keep, sizeof(*ls), cmp_lsum, &cx);
	if (c->o.max_lines && keep > c->o.max_lines)
		keep = c->o.max_lines;
	r->lines = calloc(keep ? keep : 1, sizeof(*r->lines));
	if (!r->lines) {
		rc = pms_err(PMS_ENOMEM, "c2c report: out of memory");
		goto out;
	}
	for (size_t i = 0; i < keep; i++) {
		r->nlines = i + 1;
		rc = build_line(&c->lines[ls[i].idx], &ls[i], c->o.double_cl ? 128 : 64, maps, sym,
				c->o.recorded, &r->lines[i]);
		if (rc < 0) {
			rc = pms_err(PMS_ENOMEM, "c2c report: out of memory");
			goto out;
		}
	}
out:
	free(ls);
	if (rc < 0) {
		pms_c2c_report_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void pms_c2c_report_hide_kernel(struct pms_c2c_report *rep)
{
	for (size_t i = 0; i < rep->nlines; i++) {
		if (rep->lines[i].kernel)
			rep->lines[i].addr = 0;
		for (size_t k = 0; k < rep->lines[i].nacc; k++)
			if (rep->lines[i].acc[k].kernel) {
				rep->lines[i].acc[k].ip = 0;
				rep->lines[i].acc[k].ip_valid = false;
			}
	}
}

void pms_c2c_report_free(struct pms_c2c_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nlines; i++) {
		struct pms_c2c_line *l = &r->lines[i];
		for (size_t k = 0; k < l->nacc; k++) {
			struct pms_c2c_access *a = &l->acc[k];
			free(a->func);
			free(a->file);
			free(a->module);
			free(a->threads);
			free(a->cpus);
			free(a->cpu_nodes);
		}
		free(l->acc);
		free(l->mem_nodes);
		free(l->object);
		free(l->object_kind);
		free(l->cpu_nodes);
		free(l->alloc_func);
		free(l->alloc_caller);
		free(l->alloc_file);
	}
	free(r->lines);
	free(r);
}
