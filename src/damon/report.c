/* The DAMON report: heat = access frequency x bytes, summed over snapshots;
 * ranges cut on every snapshot's region boundaries and joined back where
 * mapping and heat class agree; mappings; heat over time; CPU node x memory
 * node.  Pure computation over what the session kept. */
#include "pmuscope/damon.h"
#include "pmuscope/symbols.h"
#include "damon/damon_int.h"
#include "util/error.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

const char *pms_damon_heat_name(enum pms_damon_heat h)
{
	return h == PMS_DAMON_HOT ? "hot" : h == PMS_DAMON_WARM ? "warm" : "cold";
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_page(const void *a, const void *b)
{
	const struct pms_damon_page *x = a, *y = b;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->snap < y->snap ? -1 : x->snap > y->snap;
}

static int cmp_range(const void *a, const void *b)
{
	const struct pms_damon_range *x = a, *y = b;
	if (x->heat != y->heat)
		return x->heat > y->heat ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_object(const void *a, const void *b)
{
	const struct pms_damon_object *x = a, *y = b;
	if (x->heat != y->heat)
		return x->heat > y->heat ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

struct seg {
	uint64_t start, end;
	double heat, fmax;
	uint32_t age_max;
	bool covered;
	enum pms_damon_heat cls;
	const struct pms_map *map;
};

/* Count the latest sample of each page of target t in [start, end). */
static void count_nodes(const struct pms_damon_page *pg, size_t n, unsigned t, uint64_t start,
			uint64_t end, struct pms_damon_nodes *out, int *maxnode)
{
	size_t lo = 0, hi = n;
	while (lo < hi) { /* first page of (t, >= start) */
		size_t mid = lo + (hi - lo) / 2;
		if (pg[mid].target < t || (pg[mid].target == t && pg[mid].addr < start))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < n && pg[i].target == t && pg[i].addr < end;) {
		/* one page: its latest node if any sample had one, else
		 * absent if a sample said so (samples are in time order) */
		int node = -1;
		bool absent = false;
		uint64_t a = pg[i].addr;
		for (; i < n && pg[i].target == t && pg[i].addr == a; i++) {
			if (pg[i].node >= 0 && pg[i].node < PMS_DAMON_MAX_NODES)
				node = pg[i].node;
			else if (pg[i].node == -2)
				absent = true;
		}
		if (node < 0 && !absent)
			continue; /* never answered */
		out->sampled++;
		if (node >= 0) {
			out->pages[node]++;
			if (node > *maxnode)
				*maxnode = node;
		} else {
			out->absent++;
		}
	}
}

static void finish_nodes(struct pms_damon_nodes *nd)
{
	uint32_t best = 0;
	nd->node = -1;
	for (int i = 0; i < PMS_DAMON_MAX_NODES; i++)
		if (nd->pages[i] > best) {
			best = nd->pages[i];
			nd->node = i;
		}
}

static const char *map_name(const struct pms_map *m)
{
	if (!m)
		return "[unmapped]";
	if (m->path && m->path[0])
		return m->path;
	return "[anon]";
}

void pms_damon_report_free(struct pms_damon_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nranges; i++)
		free((char *)r->ranges[i].object);
	for (size_t i = 0; i < r->nobjects; i++)
		free((char *)r->objects[i].name);
	for (size_t i = 0; i < r->nsteps; i++)
		free((char *)r->steps[i].hot_object);
	free(r->ranges);
	free(r->objects);
	free(r->steps);
	free(r->cpu_nodes);
	free(r);
}

static char *dup_name(const struct pms_map *m)
{
	return strdup(map_name(m));
}

/* The report being built, and the work arrays of its passes. */
struct build {
	const struct pms_damon *d;
	struct pms_damon_report_opts o;
	struct pms_damon_report *r;
	struct pms_damon_page *pg;        /* the sampled pages, sorted */
	struct seg *segs;                 /* every target's segments */
	size_t nseg, segcap;
	size_t seg_first[PMS_DAMON_MAX_TARGETS + 1];
	size_t nsnap_t[PMS_DAMON_MAX_TARGETS]; /* snapshots of each target */
	uint64_t *bounds;
	size_t bcap;
	double densest;                   /* the highest heat per byte and snapshot */
	double (*mat)[PMS_DAMON_MAX_NODES]; /* CPU node x memory node heat */
	int maxnode;
	size_t rcap, ocap;
};

static int nomem(void)
{
	return pms_err(PMS_ENOMEM, "DAMON report: out of memory");
}

/* Target t's region boundaries over every snapshot and its mapping
 * boundaries, sorted and unique, in b->bounds; how many (< 2: no
 * segment), or a failure. */
static long target_bounds(struct build *b, unsigned t)
{
	const struct pms_damon *d = b->d;
	size_t nb = 0;
	int ret;
	for (size_t s = 0; s < d->nsnaps; s++) {
		const struct pms_damon_snapshot *sn = &d->snaps[s];
		if (sn->target != t)
			continue;
		b->nsnap_t[t]++;
		if ((ret = pms_grow(&b->bounds, &b->bcap, nb + 2 * sn->nregions, sizeof(*b->bounds),
				    1024, "DAMON region boundaries")) < 0)
			return ret;
		for (size_t j = 0; j < sn->nregions; j++) {
			b->bounds[nb++] = sn->regions[j].start;
			b->bounds[nb++] = sn->regions[j].end;
		}
	}
	if (nb < 2)
		return 0;
	/* mapping boundaries too: a DAMON region across two mappings gives
	 * each its bytes' part (DAMON's own uniformity premise) */
	if (d->maps[t] && d->maps[t]->n) {
		if ((ret = pms_grow(&b->bounds, &b->bcap, nb + 2 * d->maps[t]->n, sizeof(*b->bounds),
				    1024, "DAMON region boundaries")) < 0)
			return ret;
		for (size_t m = 0; m < d->maps[t]->n; m++) {
			b->bounds[nb++] = d->maps[t]->v[m].start;
			b->bounds[nb++] = d->maps[t]->v[m].end;
		}
	}
	qsort(b->bounds, nb, sizeof(*b->bounds), cmp_u64);
	size_t u = 1;
	for (size_t i = 1; i < nb; i++)
		if (b->bounds[i] != b->bounds[u - 1])
			b->bounds[u++] = b->bounds[i];
	return (long)u;
}

/* Add target t's snapshots' heat, highest frequency and age to its
 * segments sg[0..ns-1]. */
static void segments_heat(struct build *b, unsigned t, struct seg *sg, size_t ns)
{
	const struct pms_damon *d = b->d;
	for (size_t s = 0; s < d->nsnaps; s++) {
		const struct pms_damon_snapshot *sn = &d->snaps[s];
		if (sn->target != t)
			continue;
		size_t k = 0;
		for (size_t j = 0; j < sn->nregions; j++) {
			const struct pms_damon_region *rg = &sn->regions[j];
			double f = rg->nr_accesses / b->r->max_nr_accesses;
			if (f > 1)
				f = 1;
			while (k < ns && sg[k].end <= rg->start)
				k++;
			for (size_t q = k; q < ns && sg[q].start < rg->end; q++) {
				sg[q].covered = true;
				sg[q].heat += f * (double)(sg[q].end - sg[q].start);
				if (f > sg[q].fmax)
					sg[q].fmax = f;
				if (rg->age > sg[q].age_max)
					sg[q].age_max = rg->age;
			}
		}
	}
}

/* Target t's segments: its region and mapping boundaries cut each other;
 * each segment's heat, mapping, and the densest so far. */
static int target_segments(struct build *b, unsigned t)
{
	const struct pms_damon *d = b->d;
	long u = target_bounds(b, t);
	int ret;
	b->seg_first[t] = b->nseg;
	if (u < 2)
		return u < 0 ? (int)u : 0;
	if ((ret = pms_grow(&b->segs, &b->segcap, b->nseg + (size_t)u, sizeof(*b->segs), 256,
			    "DAMON segments")) < 0)
		return ret;
	struct seg *sg = b->segs + b->nseg;
	size_t ns = (size_t)u - 1;
	memset(sg, 0, ns * sizeof(*sg));
	for (size_t i = 0; i < ns; i++) {
		sg[i].start = b->bounds[i];
		sg[i].end = b->bounds[i + 1];
	}
	segments_heat(b, t, sg, ns);
	for (size_t i = 0; i < ns; i++) {
		double dens = sg[i].heat / ((double)(sg[i].end - sg[i].start) * b->nsnap_t[t]);
		if (sg[i].covered && dens > b->densest)
			b->densest = dens;
		sg[i].map = pms_maps_find(d->maps[t], sg[i].start);
		b->r->total_heat += sg[i].heat;
	}
	b->nseg += ns;
	return 0;
}

/* One range of target t from its covered segments sg[i..j-1]. */
static int add_range(struct build *b, unsigned t, const struct seg *sg, size_t i, size_t j)
{
	struct pms_damon_report *r = b->r;
	int ret;
	if ((ret = pms_grow(&r->ranges, &b->rcap, r->nranges + 1, sizeof(*r->ranges), 64,
			    "DAMON ranges")) < 0)
		return ret;
	struct pms_damon_range *x = &r->ranges[r->nranges];
	memset(x, 0, sizeof(*x));
	x->target = t;
	x->start = sg[i].start;
	x->end = sg[j - 1].end;
	x->heat_class = sg[i].cls;
	for (size_t q = i; q < j; q++) {
		x->heat += sg[q].heat;
		if (sg[q].fmax > x->freq_max)
			x->freq_max = sg[q].fmax;
		if (sg[q].age_max > x->age_max)
			x->age_max = sg[q].age_max;
	}
	x->freq_mean = x->heat / ((double)(x->end - x->start) * b->nsnap_t[t]);
	x->object_start = sg[i].map ? sg[i].map->start : 0;
	if (!(x->object = dup_name(sg[i].map)))
		return nomem();
	r->nranges++;
	count_nodes(b->pg, b->d->npages, t, x->start, x->end, &x->nodes, &b->maxnode);
	finish_nodes(&x->nodes);
	return 0;
}

/* Target t's segments classed by their density against the densest, and
 * neighbours of the same mapping and class joined into ranges. */
static int target_ranges(struct build *b, unsigned t)
{
	struct seg *sg = b->segs + b->seg_first[t];
	size_t ns = b->seg_first[t + 1] - b->seg_first[t];
	double densest = b->densest;
	int ret;
	for (size_t i = 0; i < ns; i++) {
		double dens = sg[i].heat / ((double)(sg[i].end - sg[i].start) * b->nsnap_t[t]);
		sg[i].cls = densest <= 0 || dens < b->o.cold_ratio * densest ? PMS_DAMON_COLD
			    : dens >= b->o.hot_ratio * densest		       ? PMS_DAMON_HOT
									       : PMS_DAMON_WARM;
	}
	for (size_t i = 0; i < ns;) {
		if (!sg[i].covered) {
			i++;
			continue;
		}
		size_t j = i + 1;
		while (j < ns && sg[j].covered && sg[j].start == sg[j - 1].end &&
		       sg[j].map == sg[i].map && sg[j].cls == sg[i].cls)
			j++;
		if ((ret = add_range(b, t, sg, i, j)) < 0)
			return ret;
		i = j;
	}
	return 0;
}

/* The object (mapping) range x belongs to, added when new; NULL on failure. */
static struct pms_damon_object *object_of(struct build *b, const struct pms_damon_range *x)
{
	struct pms_damon_report *r = b->r;
	struct pms_damon_object *ob = NULL;
	for (size_t k = 0; k < r->nobjects; k++)
		if (r->objects[k].target == x->target && !strcmp(r->objects[k].name, x->object) &&
		    r->objects[k].start == x->object_start)
			ob = &r->objects[k];
	if (ob)
		return ob;
	if (pms_grow(&r->objects, &b->ocap, r->nobjects + 1, sizeof(*r->objects), 32,
		     "DAMON objects") < 0)
		return NULL;
	ob = &r->objects[r->nobjects];
	memset(ob, 0, sizeof(*ob));
	ob->target = x->target;
	/* "[unmapped]" (regions over no mapping, e.g. before the exec) is one
	 * object without an address range */
	const struct pms_map *m = pms_maps_find(b->d->maps[x->target], x->start);
	ob->start = m ? m->start : 0;
	ob->end = m ? m->end : 0;
	if (!(ob->name = strdup(x->object))) {
		nomem();
		return NULL;
	}
	r->nobjects++;
	return ob;
}

/* The mappings' heat, bytes and nodes from the ranges; the shares; ranges
 * and objects by heat; the top ranges kept. */
static int build_objects(struct build *b)
{
	struct pms_damon_report *r = b->r;
	for (size_t i = 0; i < r->nranges; i++) {
		const struct pms_damon_range *x = &r->ranges[i];
		struct pms_damon_object *ob = object_of(b, x);
		if (!ob)
			return PMS_ENOMEM;
		ob->heat += x->heat;
		ob->bytes += x->end - x->start;
		ob->nodes.sampled += x->nodes.sampled;
		ob->nodes.absent += x->nodes.absent;
		for (int n = 0; n < PMS_DAMON_MAX_NODES; n++)
			ob->nodes.pages[n] += x->nodes.pages[n];
	}
	for (size_t k = 0; k < r->nobjects; k++) {
		struct pms_damon_object *ob = &r->objects[k];
		double bytes = (double)ob->bytes;
		ob->freq_mean = bytes > 0 ? ob->heat / (bytes * b->nsnap_t[ob->target]) : 0;
		ob->share = r->total_heat > 0 ? ob->heat / r->total_heat : 0;
		finish_nodes(&ob->nodes);
	}
	for (size_t i = 0; i < r->nranges; i++)
		r->ranges[i].share = r->total_heat > 0 ? r->ranges[i].heat / r->total_heat : 0;
	qsort(r->ranges, r->nranges, sizeof(*r->ranges), cmp_range);
	qsort(r->objects, r->nobjects, sizeof(*r->objects), cmp_object);
	if (b->o.top && r->nranges > b->o.top) {
		for (size_t i = b->o.top; i < r->nranges; i++)
			free((char *)r->ranges[i].object);
		r->nranges = b->o.top;
	}
	return 0;
}

/* Snapshot s's step: its heat, hottest region, heat by page node, from
 * the pages at *p0 on (d->pages are in snapshot order, regions in order
 * within); the CPU node x memory node matrix gets its share. */
static int snapshot_step(struct build *b, size_t s, size_t *p0)
{
	const struct pms_damon *d = b->d;
	const struct pms_damon_snapshot *sn = &d->snaps[s];
	struct pms_damon_step *st = &b->r->steps[b->r->nsteps++];
	const struct pms_damon_region *hot = NULL;
	double hf = -1;
	st->t_us = sn->t_us;
	st->target = sn->target;
	while (*p0 < d->npages && d->pages[*p0].snap < s)
		(*p0)++;
	size_t p = *p0;
	for (size_t j = 0; j < sn->nregions; j++) {
		const struct pms_damon_region *rg = &sn->regions[j];
		double f = rg->nr_accesses / b->r->max_nr_accesses, h;
		uint32_t cnt[PMS_DAMON_MAX_NODES] = { 0 }, known = 0;
		if (f > 1)
			f = 1;
		h = f * (double)(rg->end - rg->start);
		st->heat += h;
		if (f > hf || (f == hf && hot && rg->end - rg->start > hot->end - hot->start)) {
			hf = f;
			hot = rg;
		}
		while (p < d->npages && d->pages[p].snap == s && d->pages[p].addr < rg->end) {
			if (d->pages[p].addr >= rg->start && d->pages[p].node >= 0 &&
			    d->pages[p].node < PMS_DAMON_MAX_NODES) {
				cnt[d->pages[p].node]++;
				known++;
			}
			p++;
		}
		for (int n = 0; known && n < PMS_DAMON_MAX_NODES; n++)
			st->heat_on_node[n] += h * cnt[n] / known;
	}
	if (hot) {
		st->hot_start = hot->start;
		st->hot_end = hot->end;
		st->hot_freq = hf;
		if (!(st->hot_object = dup_name(pms_maps_find(d->maps[sn->target], hot->start))))
			return nomem();
	}
	unsigned threads = 0;
	for (int c = 0; c < PMS_DAMON_MAX_NODES; c++)
		threads += sn->thread_nodes[c];
	for (int c = 0; threads && c < PMS_DAMON_MAX_NODES; c++) {
		if (!sn->thread_nodes[c])
			continue;
		if (c > b->maxnode)
			b->maxnode = c;
		for (int m = 0; m < PMS_DAMON_MAX_NODES; m++)
			b->mat[c][m] += st->heat_on_node[m] * sn->thread_nodes[c] / threads;
	}
	return 0;
}

/* Heat by CPU node: of the nodes with heat, the part on other nodes. */
static int build_cpu_nodes(struct build *b)
{
	struct pms_damon_report *r = b->r;
	r->nnodes = b->maxnode + 1;
	r->cpu_nodes = calloc(r->nnodes ? (size_t)r->nnodes : 1, sizeof(*r->cpu_nodes));
	if (!r->cpu_nodes)
		return nomem();
	for (int c = 0; c < r->nnodes; c++) {
		double h = 0, rem = 0;
		for (int m = 0; m < PMS_DAMON_MAX_NODES; m++) {
			h += b->mat[c][m];
			if (m != c)
				rem += b->mat[c][m];
		}
		if (h <= 0)
			continue;
		struct pms_damon_cpu_node *cn = &r->cpu_nodes[r->ncpu_nodes++];
		cn->node = c;
		cn->heat = h;
		cn->remote_heat = rem;
		cn->remote_share = rem / h;
	}
	return 0;
}

/* The report's header fields, and the sampled pages sorted. */
static void report_head(struct build *b)
{
	const struct pms_damon *d = b->d;
	struct pms_damon_report *r = b->r;
	r->label = pms_damon_label();
	r->attrs = d->opts;
	r->npids = d->npids;
	memcpy(r->pids, d->pids, sizeof(r->pids));
	r->nsnapshots = d->nsnaps;
	r->max_nr_accesses = (double)d->opts.aggr_us / (double)d->opts.sample_us;
	if (d->nsnaps)
		r->duration_us = d->snaps[d->nsnaps - 1].t_us;
	if (d->npages)
		memcpy(b->pg, d->pages, d->npages * sizeof(*b->pg));
	qsort(b->pg, d->npages, sizeof(*b->pg), cmp_page);
	for (size_t i = 0; i < d->npages; i++)
		if (b->pg[i].node > b->maxnode && b->pg[i].node < PMS_DAMON_MAX_NODES)
			b->maxnode = b->pg[i].node;
}

/* Ranges per target, then mappings, then heat over time and by CPU node. */
static int build_all(struct build *b)
{
	const struct pms_damon *d = b->d;
	int ret;
	report_head(b);
	for (unsigned t = 0; t < d->npids; t++)
		if ((ret = target_segments(b, t)) < 0)
			return ret;
	b->seg_first[d->npids] = b->nseg;
	for (unsigned t = 0; t < d->npids; t++)
		if ((ret = target_ranges(b, t)) < 0)
			return ret;
	if ((ret = build_objects(b)) < 0)
		return ret;
	b->r->steps = calloc(d->nsnaps ? d->nsnaps : 1, sizeof(*b->r->steps));
	if (!b->r->steps)
		return nomem();
	size_t p0 = 0;
	for (size_t s = 0; s < d->nsnaps; s++)
		if ((ret = snapshot_step(b, s, &p0)) < 0)
			return ret;
	return build_cpu_nodes(b);
}

int pms_damon_report_build(const struct pms_damon *d, const struct pms_damon_report_opts *opts,
			   struct pms_damon_report **out)
{
	struct build b = { .d = d, .o = PMS_DAMON_REPORT_OPTS_INIT, .maxnode = -1 };
	int ret;

	if (!d || !out)
		return pms_err(PMS_EINVAL, "pms_damon_report_build: NULL argument");
	*out = NULL;
	if (opts)
		b.o = *opts;
	if (b.o.hot_ratio <= 0)
		b.o.hot_ratio = 0.25;
	if (b.o.cold_ratio <= 0)
		b.o.cold_ratio = 0.05;
	b.r = calloc(1, sizeof(*b.r));
	b.pg = malloc((d->npages ? d->npages : 1) * sizeof(*b.pg));
	b.mat = calloc(PMS_DAMON_MAX_NODES, sizeof(*b.mat));
	if (!b.r || !b.pg || !b.mat)
		ret = nomem();
	else
		ret = build_all(&b);
	if (ret == 0) {
		*out = b.r;
		b.r = NULL;
	}
	pms_damon_report_free(b.r);
	free(b.pg);
	free(b.segs);
	free(b.bounds);
	free(b.mat);
	return ret;
}
