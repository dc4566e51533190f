/* `pmuscope mem` aggregation: samples in, node resolution in batches, and a
 * report struct out (levels, latency percentiles, node classification, the
 * CPU-node x memory-node matrix, top instructions/functions/data objects).
 * This file: the profile object (struct in memprof_int.h), its mappings,
 * processes and threads, and side-band records.  The per-sample path is
 * memprof_add.c, node resolution memprof_resolve.c, the report
 * memprof_sites.c, memprof_tasks.c and memprof_report.c, merging
 * memprof_merge.c. */
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

#define DEFAULT_TOP 10

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

/* An array of bytes, zeroed.  One of IPTAB_HUGE bytes or more is fresh
 * anonymous memory on a 2 MiB boundary, on 2 MiB pages where the kernel
 * gives them (transparent huge pages on madvise): the kernel clears the
 * pages as they are first touched (a memset after an allocation wrote them
 * a second time), and a table of megabytes probed at random stops missing
 * the TLB; an array of megabytes read in order (the report's instructions)
 * takes one fault each 2 MiB, not each 4 KiB (of 52 MB of sites on 262 K
 * instructions, the faults were a fifth of building the report). */
void *mp_big_calloc(size_t bytes)
{
	if (bytes < IPTAB_HUGE)
		return calloc(1, bytes ? bytes : 1);
	if (bytes > SIZE_MAX - 2 * IPTAB_HUGE)
		return NULL;
	bytes = (bytes + IPTAB_HUGE - 1) & ~(IPTAB_HUGE - 1);
	size_t len = bytes + IPTAB_HUGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	uintptr_t a = ((uintptr_t)p + IPTAB_HUGE - 1) & ~(uintptr_t)(IPTAB_HUGE - 1);
	size_t head = a - (uintptr_t)p, tail = len - head - bytes;
	if (head)
		(void)munmap(p, head);
	if (tail)
		(void)munmap((char *)a + bytes, tail);
	(void)madvise((void *)a, bytes, MADV_HUGEPAGE);
	return (void *)a;
}

/* Free what mp_big_calloc(bytes) gave (NULL: nothing). */
void mp_big_free(void *v, size_t bytes)
{
	if (!v)
		return;
	if (bytes < IPTAB_HUGE)
		free(v);
	else
		(void)munmap(v, (bytes + IPTAB_HUGE - 1) & ~(IPTAB_HUGE - 1));
}

void mp_iptab_free(struct iptab *t)
{
	mp_big_free(t->v, t->cap * sizeof(struct ipslot));
	free(t->nv);
	t->v = NULL;
	t->nv = NULL;
}


static void agg_free(struct agg *a)
{
	if (!a)
		return;
	mp_iptab_free(&a->ipt);
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
	for (size_t i = 0; i < p->nres; i++) /* memprof_residency.c's */
		free(p->res[i].node);
	free(p->res);
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

static long u64map_find(const struct u64map *m, uint64_t key);

/* A key's home slot in a table of cap (a power of two >= 2) slots: the
 * top bits of the product, which every bit of the key moves (bits 20 up,
 * as before, ignored the key's high bits: mapping starts 256 MiB apart,
 * data sources differing only in lvl_num, remote or hops went to a few
 * homes and probed long runs). */
static inline size_t u64map_home_cap(size_t cap, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> (64u - (unsigned)__builtin_ctzll(cap)));
}

static inline size_t u64map_home(const struct u64map *m, uint64_t key)
{
	return u64map_home_cap(m->cap, key);
}

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
	if (mp_u64map_get(p->pmmap, pid, p->npm, &added) < 0) {
		pms_maps_free(m);
		return NULL;
	}
	p->pm[p->npm++] = (struct pidmaps){ pid, m, false };
	return m;
}

/* The maps a kept sample's addresses are looked up in. */
const struct pms_maps *mp_maps_of(struct pms_memprof *p, const struct ksample *s)
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
	size_t j = u64map_home(m, key);
	while (m->vals[j]) {
		if (m->keys[j] == key)
			return (long)m->vals[j] - 1;
		j = (j + 1) & (m->cap - 1);
	}
	return -1;
}

long mp_u64map_get(struct u64map *m, uint64_t key, size_t next, bool *added)
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
			size_t j = u64map_home_cap(cap, m->keys[i]);
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
	size_t j = u64map_home(m, key);
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
int mp_grow(void **v, size_t *cap, size_t n, size_t sz)
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


/* The process a sample's page is asked about in: its own, else the
 * profiled one's; 0 = none (never asked). */
pid_t mp_ask_pid(const struct pms_memprof *p, const struct ksample *x)
{
	if (x->valid & PMS_MS_TID)
		return (pid_t)kpid(p, x);
	return p->pid;
}

/* Whether a sample may be asked about (again): an address, a process, and
 * no node yet, only the race statuses retried and no more than max times. */
bool mp_askable(const struct pms_memprof *p, const struct ksample *x, unsigned max)
{
	if (!(x->valid & PMS_MS_ADDR) || mp_ask_pid(p, x) <= 0)
		return false;
	if (x->mem_node == PMS_NODE_UNKNOWN)
		return x->tries < max;
	return (x->mem_node == PMS_NODE_NO_PHYS || x->mem_node == PMS_NODE_NO_BLOCK) && x->tries < max;
}

/* ---- processes and threads ------------------------------------------------
 * One entry per (pid, tid) seen in a sample, COMM or FORK; a process is its
 * (pid, pid) entry. */
static long task_get(struct pms_memprof *p, uint32_t pid, uint32_t tid)
{
	bool added;
	if (!p->tmap && !(p->tmap = calloc(1, sizeof(*p->tmap))))
		return -1;
	if (mp_grow((void **)&p->tn, &p->tncap, p->ntn, sizeof(*p->tn)) < 0)
		return -1;
	long i = mp_u64map_get(p->tmap, (uint64_t)pid << 32 | tid, p->ntn, &added);
	if (i >= 0 && added)
		p->tn[p->ntn++] = (struct taskname){ pid, tid, NULL, false, false, false, 0 };
	return i;
}

const char *mp_task_comm(const struct pms_memprof *p, uint32_t pid, uint32_t tid)
{
	if (!p->tmap || !p->tmap->cap)
		return "";
	const struct u64map *m = p->tmap;
	uint64_t key = (uint64_t)pid << 32 | tid;
	size_t j = u64map_home(m, key);
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
int mp_task_sampled(struct pms_memprof *p, const struct pms_memsample *s, uint32_t *task)
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


/* Live (an oracle to ask): process pid exec'd.  Its samples not asked
 * about yet are of the address space the exec replaced, and asking the new
 * one at their addresses would answer for other pages: they take
 * PMS_NODE_EXEC_REPLACED.  With the samples' times kept, only those before
 * the exec; later ones from before it (another ring) are caught as they
 * come (the thread's exec_time, memprof_add.c). */
static int exec_replaced(struct pms_memprof *p, const struct pms_record *rec)
{
	pid_t pid = (pid_t)rec->comm.pid;
	uint64_t t = (rec->sample_id.present & PMS_SAMPLE_TIME) ? rec->sample_id.time : 0;
	long ti = task_get(p, rec->comm.pid, rec->comm.tid);
	if (ti < 0)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	if (t)
		p->tn[ti].exec_time = t;
	size_t nopen = 0;
	for (size_t j = 0; j < p->nopen; j++) {
		size_t i = p->open[j];
		struct ksample *x = &p->v[i];
		if (mp_askable(p, x, PMS_MEMPROF_RESOLVE_TRIES + 1) && mp_ask_pid(p, x) == pid &&
		    (!t || !p->xv || !p->xv[i].time || p->xv[i].time < t)) {
			x->mem_node = PMS_NODE_EXEC_REPLACED;
			continue; /* final: no longer open */
		}
		p->open[nopen++] = i;
	}
	p->nopen = nopen;
	return 0;
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
			if (oracle && !p->agg && (rc = exec_replaced(p, rec)) < 0)
				return rc;
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
			const char *c = mp_task_comm(p, rec->fork.ppid, rec->fork.ptid);
			if (!*c)
				c = mp_task_comm(p, rec->fork.ppid, rec->fork.ppid);
			if (*c && !*mp_task_comm(p, rec->fork.pid, rec->fork.tid)) {
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

/* A site's own strings and nodes.  The instruction rows of an aggregate
 * report (hundreds of thousands) own none once named: one test of them
 * all rather than seven calls of free a row (2 % of `report
 * --no-symbols` on 300 K instructions). */
static void site_free(struct pms_memreport_site *s)
{
	if (!s->comm && !s->name && !s->file && !s->module && !s->kind && !s->section &&
	    !s->nodes)
		return;
	free(s->comm);
	free(s->name);
	free(s->file);
	free(s->module);
	free(s->kind);
	free(s->section);
	free(s->nodes);
}

void mp_sites_free(struct pms_memreport_site *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		site_free(&v[i]);
	free(v);
}
