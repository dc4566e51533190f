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

#define DEFAULT_TOP 10

struct pms_memprof {
	const struct pms_topo *topo;
	pid_t pid;
	int home_node;
	uint64_t home_start, home_end;
	char *home_name;
	size_t top;
	struct pms_memreport_sample *v;
	size_t n, cap;
	size_t pending; /* first sample whose node is not resolved yet */
	struct pms_maps *maps;
	uint64_t *addrs;
	int *nodes;
	size_t *idx;
	size_t scratch_cap;
};

int pms_memprof_new(const struct pms_topo *topo, const struct pms_memprof_opts *opts,
		    struct pms_memprof **out)
{
	struct pms_memprof_opts def = PMS_MEMPROF_OPTS_INIT;
	struct pms_memprof *p = NULL;
	int rc = 0;

	if (out)
		*out = NULL;
	if (!out)
		return pms_err(PMS_EINVAL, "memprof: NULL out");
	if (!opts)
		opts = &def;
	if (opts->version != PMS_MEMPROF_OPTS_VERSION)
		return pms_err(PMS_EINVAL, "memprof: opts.version %u, this library knows %u",
			       opts->version, PMS_MEMPROF_OPTS_VERSION);
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
	if (!p->home_name) {
		rc = pms_err(PMS_ENOMEM, "memprof: no memory");
		goto out;
	}
	rc = pms_maps_new(&p->maps);
	if (rc < 0)
		goto out;
	*out = p;
	p = NULL;
out:
	pms_memprof_free(p);
	return rc;
}

void pms_memprof_free(struct pms_memprof *p)
{
	if (!p)
		return;
	free(p->v);
	free(p->home_name);
	pms_maps_free(p->maps);
	free(p->addrs);
	free(p->nodes);
	free(p->idx);
	free(p);
}

struct pms_maps *pms_memprof_maps(struct pms_memprof *p)
{
	return p ? p->maps : NULL;
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
	return p ? p->n : 0;
}

int pms_memprof_add(struct pms_memprof *p, const struct pms_memsample *s)
{
	if (!p || !s)
		return pms_err(PMS_EINVAL, "memprof add: NULL argument");
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 4096;
		struct pms_memreport_sample *v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return pms_err(PMS_ENOMEM, "memprof: no memory for %zu samples", cap);
		p->v = v;
		p->cap = cap;
	}
	struct pms_memreport_sample *r = &p->v[p->n++];
	memset(r, 0, sizeof(*r));
	r->s = *s;
	r->mem_node = PMS_NODE_UNKNOWN;
	r->cpu_node = -1;
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
		if ((p->pid && (pid_t)m->pid != p->pid) || !m->len)
			return 0;
		bool exec = rec->type == PMS_RECORD_MMAP2 ? (m->prot & PROT_EXEC) != 0
							  : !(rec->misc & PMS_MISC_MMAP_DATA);
		/* A file path, or perf's names for the rest ("//anon", "[heap]"). */
		const char *path = m->filename ? m->filename : "";
		if (!strcmp(path, "//anon"))
			path = "";
		int rc = pms_maps_add(p->maps, m->addr, m->len, m->pgoff,
				      rec->type == PMS_RECORD_MMAP2 ? m->ino : 0, exec, path);
		if (rc < 0)
			return rc;
		pms_numa_oracle_invalidate(oracle, m->addr, m->len);
		return 0;
	}
	case PMS_RECORD_COMM:
		if ((rec->misc & PMS_MISC_COMM_EXEC) && (!p->pid || (pid_t)rec->comm.pid == p->pid)) {
			/* exec replaced the address space */
			pms_maps_remove(p->maps, 0, UINT64_MAX);
			pms_numa_oracle_invalidate(oracle, 0, 0);
		}
		return 0;
	case PMS_RECORD_EXIT:
		if (rec->fork.pid == rec->fork.tid && (!p->pid || (pid_t)rec->fork.pid == p->pid))
			pms_numa_oracle_invalidate(oracle, 0, 0);
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
	size_t *ix = realloc(p->idx, cap * sizeof(*ix));
	if (!ix)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	p->idx = ix;
	p->scratch_cap = cap;
	return 0;
}

int pms_memprof_resolve(struct pms_memprof *p, struct pms_numa_oracle *oracle)
{
	if (!p)
		return pms_err(PMS_EINVAL, "memprof resolve: NULL argument");
	size_t k = 0;
	int rc = scratch(p, p->n - p->pending);
	if (rc < 0)
		return rc;
	for (size_t i = p->pending; i < p->n; i++) {
		struct pms_memreport_sample *r = &p->v[i];
		if ((r->s.valid & PMS_MS_CPU) && p->topo)
			r->cpu_node = pms_topo_node_of_cpu(p->topo, (int)r->s.cpu);
		if (r->cpu_node < 0)
			r->cpu_node = -1;
		if ((r->s.valid & PMS_MS_PHYS) && p->topo) {
			int nd = pms_topo_node_of_phys(p->topo, r->s.phys_addr);
			if (nd >= 0) {
				r->mem_node = nd;
				r->node_from_phys = true;
				continue;
			}
		}
		if ((r->s.valid & PMS_MS_ADDR) && oracle) {
			p->addrs[k] = r->s.addr;
			p->idx[k++] = i;
		}
	}
	p->pending = p->n;
	if (!k)
		return 0;
	rc = pms_numa_oracle_resolve(oracle, p->addrs, k, p->nodes);
	if (rc == PMS_ENOMEM)
		return rc;
	for (size_t j = 0; j < k; j++)
		p->v[p->idx[j]].mem_node = p->nodes[j];
	return rc < 0 ? 0 : rc;
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

static int count_add(struct pms_memreport_count **v, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name)) {
			(*v)[i].samples++;
			return 0;
		}
	struct pms_memreport_count *nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	*v = nv;
	nv[*n].name = strdup(name);
	if (!nv[*n].name)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	nv[*n].samples = 1;
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
	free(r->all);
	free(r);
}

/* Accumulate one sample into a site. */
static void site_account(struct pms_memreport_site *s, const struct pms_memreport_sample *x,
			 int home)
{
	s->samples++;
	if (x->s.valid & PMS_MS_WEIGHT) {
		s->latency += x->s.weight;
		s->weighted++;
	}
	if (x->mem_node >= 0) {
		s->resolved++;
		if (x->cpu_node >= 0 && x->mem_node != x->cpu_node)
			s->remote++;
		if (home >= 0 && x->mem_node == home)
			s->on_home++;
	}
}

static int site_copy(struct pms_memreport_site *d, const struct pms_memreport_site *s)
{
	int rc = 0;
	*d = *s;
	d->name = xstrdup(s->name, &rc);
	d->file = s->file ? xstrdup(s->file, &rc) : NULL;
	d->module = xstrdup(s->module, &rc);
	d->kind = s->kind ? xstrdup(s->kind, &rc) : NULL;
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

/* Sort all n sites with cmp and copy the first `top` into *out. */
static int top_of(struct pms_memreport_site *all, size_t n, size_t top,
		  int (*cmp)(const void *, const void *), bool need_latency,
		  struct pms_memreport_site **out, size_t *nout)
{
	qsort(all, n, sizeof(*all), cmp);
	size_t k = 0;
	*out = calloc(top ? top : 1, sizeof(**out));
	if (!*out)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < n && k < top; i++) {
		if (need_latency && !all[i].weighted)
			break;
		int rc = site_copy(&(*out)[k++], &all[i]);
		*nout = k;
		if (rc < 0)
			return rc;
	}
	*nout = k;
	return 0;
}

struct ipkey {
	uint64_t ip;
	size_t i;
};

static int ipkey_cmp(const void *a, const void *b)
{
	const struct ipkey *x = a, *y = b;
	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static bool kernel_ip(const struct pms_memsample *s)
{
	return (s->valid & PMS_MS_KERNEL_IP) != 0;
}

/* Instructions and functions. */
static int build_code(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym)
{
	int rc = 0;
	size_t nk = 0, nips = 0, nfuncs = 0;
	struct ipkey *keys = calloc(p->n ? p->n : 1, sizeof(*keys));
	struct pms_memreport_site *ips = NULL, *funcs = NULL;
	if (!keys)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].s.valid & PMS_MS_IP)
			keys[nk++] = (struct ipkey){ p->v[i].s.ip, i };
	qsort(keys, nk, sizeof(*keys), ipkey_cmp);
	ips = calloc(nk ? nk : 1, sizeof(*ips));
	funcs = calloc(nk ? nk : 1, sizeof(*funcs));
	if (!ips || !funcs) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	for (size_t a = 0; a < nk;) {
		size_t b = a;
		const struct pms_memsample *s0 = &p->v[keys[a].i].s;
		struct pms_memreport_site *st = &ips[nips++];
		bool kern = kernel_ip(s0);
		st->addr = s0->ip;
		st->kernel = kern;
		struct pms_symbol sy = { 0 };
		if (sym && (!kern || r->kernel_visible))
			(void)pms_symbolizer_code(sym, s0->ip, kern, &sy);
		if (kern && !r->kernel_visible) {
			st->addr = 0;
			st->addr_hidden = true;
		}
		st->name = xstrdup(sy.func ? sy.func : (kern ? "[kernel]" : "[unknown]"), &rc);
		st->file = sy.file ? xstrdup(sy.file, &rc) : NULL;
		st->line = sy.line;
		st->module = xstrdup(sy.module ? sy.module : (kern ? "[kernel]" : ""), &rc);
		if (rc < 0)
			goto out;
		for (; b < nk && keys[b].ip == keys[a].ip; b++)
			site_account(st, &p->v[keys[b].i], p->home_node);
		a = b;
	}
	/* Functions: instructions with the same (module, name); the unknown
	 * ones stay per module. */
	for (size_t i = 0; i < nips; i++) {
		size_t j;
		for (j = 0; j < nfuncs; j++)
			if (!strcmp(funcs[j].name, ips[i].name) && !strcmp(funcs[j].module, ips[i].module))
				break;
		if (j == nfuncs) {
			rc = site_copy(&funcs[nfuncs++], &ips[i]);
			if (rc < 0)
				goto out;
			funcs[j].samples = funcs[j].latency = funcs[j].weighted = 0;
			funcs[j].resolved = funcs[j].remote = funcs[j].on_home = 0;
			if (funcs[j].file && ips[i].line) {
				/* a function's line is where its hottest instruction is;
				 * keep the file, not a misleading line */
				funcs[j].line = 0;
			}
		}
		funcs[j].samples += ips[i].samples;
		funcs[j].latency += ips[i].latency;
		funcs[j].weighted += ips[i].weighted;
		funcs[j].resolved += ips[i].resolved;
		funcs[j].remote += ips[i].remote;
		funcs[j].on_home += ips[i].on_home;
	}
	rc = top_of(ips, nips, p->top, by_samples, false, &r->top_ips_samples, &r->ntop_ips_samples);
	if (rc >= 0)
		rc = top_of(ips, nips, p->top, by_latency, true, &r->top_ips_latency, &r->ntop_ips_latency);
	if (rc >= 0)
		rc = top_of(funcs, nfuncs, p->top, by_samples, false, &r->top_funcs_samples,
			    &r->ntop_funcs_samples);
	if (rc >= 0)
		rc = top_of(funcs, nfuncs, p->top, by_latency, true, &r->top_funcs_latency,
			    &r->ntop_funcs_latency);
out:
	free(keys);
	sites_free(ips, nips);
	sites_free(funcs, nfuncs);
	return rc;
}

/* Data objects: the workload buffer, a file's static symbol, or the mapping. */
struct objkey {
	uint64_t start;
	size_t i;
};

static int build_objects(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym)
{
	int rc = 0;
	size_t no = 0;
	struct pms_memreport_site *objs = NULL;
	struct objkey *keys = calloc(p->n ? p->n : 1, sizeof(*keys));
	size_t nk = 0;
	if (!keys)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	/* Key each sample by the start of the object it falls in. */
	for (size_t i = 0; i < p->n; i++) {
		const struct pms_memsample *s = &p->v[i].s;
		if (!(s->valid & PMS_MS_ADDR))
			continue;
		uint64_t a = s->addr, start;
		if (p->home_end > p->home_start && a >= p->home_start && a < p->home_end) {
			start = p->home_start;
		} else {
			const struct pms_map *m = pms_maps_find(p->maps, a);
			start = m ? m->start : UINT64_MAX; /* UINT64_MAX: not mapped */
		}
		keys[nk++] = (struct objkey){ start, i };
	}
	qsort(keys, nk, sizeof(*keys), ipkey_cmp); /* same layout as ipkey */
	objs = calloc(nk ? nk : 1, sizeof(*objs));
	if (!objs) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	for (size_t a = 0; a < nk;) {
		size_t b = a;
		uint64_t addr0 = p->v[keys[a].i].s.addr;
		struct pms_memreport_site *o = &objs[no++];
		char buf[256];
		const char *name = NULL, *kind = NULL, *module = "";
		if (keys[a].start == UINT64_MAX) {
			name = "[unmapped]";
			kind = "unmapped";
		} else if (p->home_end > p->home_start && keys[a].start == p->home_start) {
			o->addr = p->home_start;
			o->size = p->home_end - p->home_start;
			name = p->home_name;
			kind = "workload";
		} else {
			const struct pms_map *m = pms_maps_find(p->maps, addr0);
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
		for (; b < nk && keys[b].start == keys[a].start; b++)
			site_account(o, &p->v[keys[b].i], p->home_node);
		a = b;
	}
	rc = top_of(objs, no, p->top, by_samples, false, &r->top_objects, &r->ntop_objects);
out:
	free(keys);
	sites_free(objs, no);
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
	for (size_t i = 0; i < p->n; i++) {
		const struct pms_memreport_sample *x = &p->v[i];
		if (!(x->s.valid & (PMS_MS_ADDR | PMS_MS_PHYS))) {
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
		r->from_phys += x->node_from_phys;
		if (p->home_node >= 0) {
			if (x->mem_node == p->home_node)
				r->on_home++;
			else
				r->elsewhere++;
		}
		size_t row = nn, col = nn;
		for (size_t k = 0; k < nn; k++) {
			if (r->node_ids[k] == x->cpu_node)
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

/* Short engine names for sentences ("... does not report it"). */
static const char *engine_short(enum pms_engine e)
{
	static const char *const names[] = {
		[PMS_ENG_NONE] = "no engine",
		[PMS_ENG_IBS] = "AMD IBS",
		[PMS_ENG_PEBS] = "Intel PEBS",
		[PMS_ENG_SPE] = "Arm SPE",
		[PMS_ENG_SOFTWARE] = "software page-fault sampling",
	};
	return (unsigned)e < sizeof(names) / sizeof(names[0]) && names[e] ? names[e] : "?";
}

int pms_memprof_report(struct pms_memprof *p, struct pms_symbolizer *sym,
		       const struct pms_memreport_input *in, struct pms_memreport **out)
{
	struct pms_memreport *r = NULL;
	uint64_t *w = NULL;
	int rc = 0;

	if (out)
		*out = NULL;
	if (!p || !in || !out)
		return pms_err(PMS_EINVAL, "memreport: NULL argument");
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

	bool any_kernel = false;
	for (size_t i = 0; i < p->n && !any_kernel; i++)
		any_kernel = kernel_ip(&p->v[i].s) ||
			     ((p->v[i].s.valid & PMS_MS_ADDR) && p->v[i].s.addr >= (1ULL << 63));
	r->kernel_visible = any_kernel && sym && pms_symbolizer_kernel_visible(sym);

	/* Levels and ops over samples with a real data source. */
	r->samples = p->n;
	w = calloc(p->n ? p->n : 1, sizeof(*w));
	if (!w) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	size_t nw = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct pms_memsample *s = &p->v[i].s;
		if (s->valid & PMS_MS_ADDR)
			r->with_addr++;
		if (s->valid & PMS_MS_WEIGHT)
			w[nw++] = s->weight;
		if (!(s->valid & PMS_MS_DATA_SRC) || !s->data_src || s->data_src == PMS_MEM_NA_VALUE)
			continue;
		r->with_data_src++;
		char txt[128];
		pms_datasrc_format_mem(s->data_src, txt, sizeof(txt));
		rc = count_add(&r->levels, &r->nlevels, txt);
		if (rc >= 0)
			rc = count_add(&r->ops, &r->nops, pms_datasrc_stat_op(s->data_src));
		if (rc < 0)
			goto out;
	}
	if (r->nlevels)
		qsort(r->levels, r->nlevels, sizeof(*r->levels), count_cmp);
	if (r->nops)
		qsort(r->ops, r->nops, sizeof(*r->ops), count_cmp);
	r->data_src_available = in->data_src && r->with_data_src > 0;
	{
		char note[256] = "";
		const char *eng = engine_short(in->engine);
		if (!in->data_src)
			snprintf(note, sizeof(note), "data source unavailable: %s does not report it", eng);
		else if (!r->with_data_src)
			snprintf(note, sizeof(note),
				 "data source unavailable: no %s sample carried one", eng);
		r->data_src_note = xstrdup(note, &rc);
		if (rc < 0)
			goto out;
	}
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
		rc = build_code(p, r, sym);
	if (rc >= 0)
		rc = build_objects(p, r, sym);
	if (rc < 0)
		goto out;
	/* Every sample, with what the caller may not see masked. */
	r->all = calloc(p->n ? p->n : 1, sizeof(*r->all));
	if (!r->all) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	if (p->n)
		memcpy(r->all, p->v, p->n * sizeof(*r->all));
	r->nall = p->n;
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
	pms_memreport_free(r);
	return rc;
}
