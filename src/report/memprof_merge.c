/* `pmuscope mem` aggregation (memprof.c): merging aggregate profiles. */
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
	if (!mp_iptab_resize(t, cap, t->nv != NULL || nodes))
		return pms_err(PMS_ENOMEM, "memprof merge: no memory for %zu instructions", n);
	return 0;
}

/* Over 150 lines: one merge per table of the profile, in one order with one
 * error path; not split this round, as issue 33 reworks
 * src/report/memprof*.c in parallel. */
int pms_memprof_merge(struct pms_memprof *dst, struct pms_memprof *src)
{
	if (!dst || !src)
		return pms_err(PMS_EINVAL, "memprof merge: NULL argument");
	if (!dst->agg || !src->agg)
		return pms_err(PMS_EINVAL, "memprof merge: both profiles must be in aggregate mode "
					   "(opts.aggregate)");
	if (dst == src)
		return pms_err(PMS_EINVAL, "memprof merge: a profile into itself");
	int rc = mp_agg_flush(dst);
	if (rc >= 0)
		rc = mp_agg_flush(src);
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
		if ((rc = mp_grow((void **)&d->ds, &d->dscap, d->nds, sizeof(*d->ds))) < 0)
			return rc;
		if ((k = mp_u64map_get(&d->dsmap, s->ds[i].key, d->nds, &added)) < 0)
			return pms_err(PMS_ENOMEM, "memprof merge: no memory");
		if (added)
			d->ds[d->nds++] = (struct dsc){ s->ds[i].key, 0 };
		d->ds[k].n += s->ds[i].n;
	}
	bool nodes = s->ipt.nv != NULL;
	/* room for the larger of the two, at least src's slots: the halves of
	 * one file share most instructions, and a table sized for the sum
	 * (twice the union there) was a fresh table of megabytes for the
	 * kernel to clear; a union that outgrows it grows it as one profile's
	 * table grows (mp_iptab_get) */
	if (s->ipt.n &&
	    (rc = iptab_reserve(&d->ipt, d->ipt.n > s->ipt.n ? d->ipt.n : s->ipt.n, s->ipt.cap,
				nodes)) < 0)
		return rc;
	for (size_t i = 0; i < s->ipt.cap; i++) {
		const struct ipslot *x = &s->ipt.v[i];
		if (!x->samples)
			continue;
		size_t j = mp_iptab_get(&d->ipt, x->ip, nodes);
		if (j == SIZE_MAX)
			return pms_err(PMS_ENOMEM, "memprof merge: no memory for %zu instructions",
				       d->ipt.n + 1);
		struct ipslot *e = &d->ipt.v[j];
		if (!e->samples) {
			e->ip = x->ip;
			e->wk = x->wk & 3; /* kernel, foreign */
			d->ipt.n++;
		}
		e->samples += x->samples;
		e->latency += x->latency;
		e->wk += x->wk & ~3ULL; /* weighted << 2 */
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
		if ((rc = mp_grow((void **)&d->objs, &d->objcap, d->nobjs, sizeof(*d->objs))) < 0)
			break;
		if ((k = mp_u64map_get(&d->objmap, key[i], d->nobjs, &added)) < 0) {
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
			n->site.section = o->site.section ? strdup(o->site.section) : NULL;
			n->site.nodes = NULL; /* aggregate objects have none */
			n->site.nnodes = 0;
			if ((o->site.section && !n->site.section) || (o->site.name && !n->site.name) || (o->site.kind && !n->site.kind) ||
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
	if (s->hn) {
		if (!d->hn || s->hmin < d->hmin)
			d->hmin = s->hmin;
		if (!d->hn || s->hmax > d->hmax)
			d->hmax = s->hmax;
		d->hn += s->hn;
		d->hsum += s->hsum;
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
