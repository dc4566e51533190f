/* Samples by allocation site (include/pmuscope/alloc.h): each sample with a
 * data address goes to the site of the allocation that held the address at
 * the sample's time; the report lists the sites with samples, most first,
 * with their call paths named by the caller's namer. */
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc_int.h"
#include "util/error.h"

#define SITE_NODES 64 /* memory nodes counted per site (pms_alloc_site.node) */

struct sitecount {
	uint64_t samples, latency, weighted, resolved, remote;
	uint32_t per_node[SITE_NODES]; /* resolved samples by memory node */
};

struct pms_alloc_sites {
	struct pms_alloc_table *t;
	struct sitecount *c;      /* per site of the table */
	size_t nc;
	uint64_t with_addr, placed;
};

int pms_alloc_sites_new(struct pms_alloc_table *t, struct pms_alloc_sites **out)
{
	struct pms_alloc_sites *s = calloc(1, sizeof(*s));
	if (!s)
		return pms_err(PMS_ENOMEM, "pms_alloc_sites_new: out of memory");
	s->t = t;
	*out = s;
	return 0;
}

void pms_alloc_sites_free(struct pms_alloc_sites *s)
{
	if (!s)
		return;
	free(s->c);
	free(s);
}

long pms_alloc_sites_add(struct pms_alloc_sites *s, const struct pms_alloc_sample *x)
{
	if (!x->addr)
		return -1;
	s->with_addr++;
	struct pms_alloc_info a;
	if (pms_alloc_table_lookup_in(s->t, x->space, x->pid, x->addr, x->time, &a) < 0)
		return -1;
	if ((size_t)a.site >= s->nc) {
		size_t nc = s->t->nsites;
		struct sitecount *n = realloc(s->c, nc * sizeof(*n));
		if (!n)
			return pms_err(PMS_ENOMEM, "pms_alloc_sites_add: out of memory");
		memset(n + s->nc, 0, (nc - s->nc) * sizeof(*n));
		s->c = n;
		s->nc = nc;
	}
	struct sitecount *c = &s->c[a.site];
	s->placed++;
	c->samples++;
	if (x->weight) {
		c->latency += x->weight;
		c->weighted++;
	}
	if (x->mem_node >= 0) {
		c->resolved++;
		if (x->mem_node < SITE_NODES)
			c->per_node[x->mem_node]++;
		if (x->cpu_node >= 0 && x->cpu_node != x->mem_node)
			c->remote++;
	}
	return a.site;
}

static int by_samples(const void *a, const void *b)
{
	const struct pms_alloc_site *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->latency > y->latency ? -1 : x->latency < y->latency;
}

void pms_alloc_report_free(struct pms_alloc_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nsites; i++) {
		for (size_t k = 0; k < r->sites[i].nframes; k++) {
			free(r->sites[i].frames[k].func);
			free(r->sites[i].frames[k].file);
			free(r->sites[i].frames[k].module);
		}
		free(r->sites[i].frames);
		free(r->sites[i].type);
		free(r->sites[i].member);
	}
	free(r->sites);
	free(r->site_rank);
	free(r->sample_site);
	free(r);
}

static int site_fill(const struct pms_alloc_sites *s, size_t i, struct pms_alloc_site *o)
{
	struct pms_alloc_site_key k;
	pms_alloc_table_site(s->t, i, &k);
	const struct sitecount *c = &s->c[i];
	*o = (struct pms_alloc_site){ c->samples, c->latency, c->weighted, c->resolved, c->remote,
				      k.allocs,   k.bytes,    k.est_bytes, k.est_count, k.kind,
				      k.pid,      NULL,       0,           i,
				      k.space,    k.tid,      -1,          0,
				      0,          0,          0,           NULL, NULL /* types */ };
	for (int n = 0; n < SITE_NODES; n++)
		if (c->per_node[n] > o->node_samples) {
			o->node = n;
			o->node_samples = c->per_node[n];
		}
	o->frames = calloc(k.nframes ? k.nframes : 1, sizeof(*o->frames));
	if (!o->frames)
		return pms_err(PMS_ENOMEM, "pms_alloc_sites_report: out of memory");
	o->nframes = k.nframes;
	for (size_t f = 0; f < k.nframes; f++)
		o->frames[f].ip = k.frames[f];
	return 0;
}

static uint32_t parent_of(const struct pms_alloc_table *t, uint32_t space, uint32_t pid)
{
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid && t->procs[i].space == space)
			return t->procs[i].parent;
	return 0;
}

/* A frame named in its process, else (no function) in the process it was
 * forked from, and so on up: a forked child runs its parent's mappings,
 * which a symbolizer built from a perf.data's records may know only under
 * the parent. */
static void name_frame(const struct pms_alloc_table *t, pms_alloc_namer name, void *ud,
		       uint32_t space, uint32_t pid, struct pms_alloc_frame *f)
{
	name(ud, pid, f->ip, f);
	uint32_t p = parent_of(t, space, pid);
	for (int d = 0; !f->func && p && d < 8; d++, p = parent_of(t, space, p)) {
		free(f->func);
		free(f->file);
		free(f->module);
		uint64_t ip = f->ip;
		memset(f, 0, sizeof(*f));
		f->ip = ip;
		name(ud, p, ip, f);
	}
}

int pms_alloc_sites_report(struct pms_alloc_sites *s, size_t top, pms_alloc_namer name, void *ud,
			   struct pms_alloc_report **out)
{
	struct pms_alloc_report *r = calloc(1, sizeof(*r));
	if (!r)
		return pms_err(PMS_ENOMEM, "pms_alloc_sites_report: out of memory");
	pms_alloc_table_stats(s->t, &r->stats);
	r->with_addr = s->with_addr;
	r->placed = s->placed;
	size_t n = 0;
	for (size_t i = 0; i < s->nc; i++)
		n += s->c[i].samples > 0;
	r->sites = calloc(n ? n : 1, sizeof(*r->sites));
	if (!r->sites) {
		free(r);
		return pms_err(PMS_ENOMEM, "pms_alloc_sites_report: out of memory");
	}
	for (size_t i = 0; i < s->nc; i++) {
		if (!s->c[i].samples)
			continue;
		if (site_fill(s, i, &r->sites[r->nsites]) < 0) {
			pms_alloc_report_free(r);
			return PMS_ENOMEM;
		}
		r->nsites++;
	}
	if (r->nsites)
		qsort(r->sites, r->nsites, sizeof(*r->sites), by_samples);
	if (top && r->nsites > top) {
		for (size_t i = top; i < r->nsites; i++)
			free(r->sites[i].frames);
		r->nsites = top;
	}
	r->nsite_rank = s->t->nsites;
	if (!(r->site_rank = malloc((r->nsite_rank ? r->nsite_rank : 1) * sizeof(long)))) {
		pms_alloc_report_free(r);
		return pms_err(PMS_ENOMEM, "pms_alloc_sites_report: out of memory");
	}
	for (size_t i = 0; i < r->nsite_rank; i++)
		r->site_rank[i] = -1;
	for (size_t i = 0; i < r->nsites; i++)
		r->site_rank[r->sites[i].table_site] = (long)i;
	for (size_t i = 0; name && i < r->nsites; i++)
		for (size_t f = 0; f < r->sites[i].nframes; f++)
			name_frame(s->t, name, ud, r->sites[i].space, r->sites[i].pid,
				   &r->sites[i].frames[f]);
	*out = r;
	return 0;
}

const char *pms_alloc_kind_name(unsigned kind)
{
	static const char *const names[PMS_ALLOC_KIND_MAX] = {
		[PMS_ALLOC_MALLOC] = "malloc",
		[PMS_ALLOC_CALLOC] = "calloc",
		[PMS_ALLOC_REALLOC] = "realloc",
		[PMS_ALLOC_REALLOCARRAY] = "reallocarray",
		[PMS_ALLOC_ALIGNED_ALLOC] = "aligned_alloc",
		[PMS_ALLOC_POSIX_MEMALIGN] = "posix_memalign",
		[PMS_ALLOC_MEMALIGN] = "memalign",
		[PMS_ALLOC_VALLOC] = "valloc",
		[PMS_ALLOC_MMAP] = "mmap",
		[PMS_ALLOC_MREMAP] = "mremap",
		[PMS_ALLOC_FREE] = "free",
		[PMS_ALLOC_MUNMAP] = "munmap",
		[PMS_ALLOC_START] = "start",
		[PMS_ALLOC_FORK] = "fork",
		[PMS_ALLOC_THREAD_STACK] = "thread_stack",
		[PMS_ALLOC_TLS] = "tls",
		[PMS_ALLOC_CLOCK] = "clock",
	};
	return kind < PMS_ALLOC_KIND_MAX && names[kind] ? names[kind] : "?";
}
