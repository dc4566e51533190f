/* `pmuscope mem` data objects (memprof.c): every sampled data address named
 * by what holds it, through one function (mp_data_object), for live runs
 * and recorded files alike. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/numa.h"
#include "pmuscope/report.h"
#include "pmuscope/symbols.h"
#include "report/memprof_int.h"
#include "util/error.h"

static int objnode_add(struct pms_memreport_site *o, int node, uint64_t pages, uint64_t samples);
static int object_residency(const struct pms_memprof *p, struct pms_memreport_site *o);

int mp_data_object(struct pms_memprof *p, struct pms_symbolizer *sym, const struct pms_maps *maps,
		   uint32_t pid, uint64_t time, uint64_t addr, struct pms_dataobj *out)
{
	(void)p;
	(void)time; /* for the allocation that held addr then (not tracked yet) */
	return pms_data_object(sym, (pid_t)pid, maps, addr, out);
}

/* The process whose symbolizer space names s's address (0: the shared). */
static uint32_t obj_pid(const struct pms_memprof *p, const struct ksample *s)
{
	return p->per_pid_maps && (s->valid & PMS_MS_TID) ? kpid(p, s) : 0;
}

/* Each sample's object as (start, end) in its key: samples in address
 * order, one lookup per change of object (a section's samples are asked
 * each: a global may lie inside it). */
static int key_objects(struct pms_memprof *p, struct pms_symbolizer *sym, struct skey *keys,
		       size_t nk)
{
	mp_skey_sort(keys, nk);
	bool cached = false;
	uint64_t clo = 0, chi = 0, cpid = 0;
	for (size_t j = 0; j < nk; j++) {
		const struct ksample *s = &p->v[keys[j].i];
		uint64_t a = keys[j].minor;
		if (!cached || keys[j].major != cpid || a < clo || a >= chi) {
			struct pms_dataobj o;
			int rc = mp_data_object(p, sym, mp_maps_of(p, s), obj_pid(p, s),
						p->xv ? p->xv[keys[j].i].time : 0, a, &o);
			if (rc < 0)
				return rc;
			cpid = keys[j].major;
			clo = o.kind == PMS_DOBJ_UNMAPPED ? UINT64_MAX : o.start;
			chi = o.kind == PMS_DOBJ_UNMAPPED ? UINT64_MAX : o.end;
			cached = o.kind != PMS_DOBJ_SEGMENT && o.kind != PMS_DOBJ_UNMAPPED;
		}
		keys[j].major = clo;
		keys[j].minor = chi;
	}
	return 0;
}

/* Name object o (its first sample s0). */
static int name_object(struct pms_memprof *p, struct pms_symbolizer *sym,
		       struct pms_memreport_site *o, size_t i0, uint64_t start)
{
	const struct ksample *s0 = &p->v[i0];
	int rc = 0;
	char buf[320];
	const char *name, *kind, *module = "", *section = NULL;
	if (start == UINT64_MAX) {
		name = "[unmapped]";
		kind = "unmapped";
	} else if (p->home_end > p->home_start && start == p->home_start &&
		   s0->addr >= p->home_start && s0->addr < p->home_end) {
		o->addr = p->home_start;
		o->size = p->home_end - p->home_start;
		name = p->home_name;
		kind = "workload";
	} else {
		struct pms_dataobj d;
		rc = mp_data_object(p, sym, mp_maps_of(p, s0), obj_pid(p, s0),
				    p->xv ? p->xv[i0].time : 0, s0->addr, &d);
		if (rc < 0)
			return rc;
		o->addr = d.start;
		o->size = d.end - d.start;
		name = pms_dataobj_format(&d, buf, sizeof(buf));
		kind = pms_dataobj_kind_name(d.kind);
		module = d.module ? d.module : "";
		section = d.section;
	}
	o->name = mp_xstrdup(name, &rc);
	o->kind = mp_xstrdup(kind, &rc);
	o->module = mp_xstrdup(module, &rc);
	o->section = section ? mp_xstrdup(section, &rc) : NULL;
	return rc;
}

/* Data objects: the workload buffer, else what mp_data_object says. */
int mp_build_objects(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym)
{
	int rc = 0;
	size_t no = 0, nk = 0, nhome = 0;
	struct pms_memreport_site *objs = NULL;
	struct skey *keys = malloc((p->n ? p->n : 1) * sizeof(*keys));
	if (!keys)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	(void)pms_memprof_maps(p); /* the union of the processes' maps, as now */
	/* (pid, address), then the workload buffer's samples */
	for (int home = 0; home < 2; home++)
		for (size_t i = 0; i < p->n; i++) {
			const struct ksample *s = &p->v[i];
			if (p->xv)
				p->xv[i].object = -1;
			if (!(s->valid & PMS_MS_ADDR))
				continue;
			bool in = p->home_end > p->home_start && s->addr >= p->home_start &&
				  s->addr < p->home_end;
			if (in && home)
				keys[nk++] = (struct skey){ p->home_start, p->home_end, i };
			else if (!in && !home)
				keys[nk++] = (struct skey){ obj_pid(p, s), s->addr, i };
			nhome += in && home;
		}
	if ((rc = key_objects(p, sym, keys, nk - nhome)) < 0)
		goto out;
	mp_skey_sort(keys, nk);
	objs = calloc(nk ? nk : 1, sizeof(*objs));
	if (!objs) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	for (size_t a = 0; a < nk;) {
		size_t b = a;
		struct pms_memreport_site *o = &objs[no++];
		if ((rc = name_object(p, sym, o, keys[a].i, keys[a].major)) < 0)
			goto out;
		for (; b < nk && keys[b].major == keys[a].major && keys[b].minor == keys[a].minor;
		     b++) {
			const struct ksample *x = &p->v[keys[b].i];
			mp_site_account_k(p, o, x);
			if (p->xv)
				p->xv[keys[b].i].object = (int64_t)(no - 1);
			if (x->mem_node >= 0 && (rc = objnode_add(o, x->mem_node, 0, 1)) < 0)
				goto out;
		}
		if ((rc = object_residency(p, o)) < 0)
			goto out;
		if (!r->kernel_visible && o->addr >= (1ULL << 63)) {
			o->addr = 0;
			o->addr_hidden = true;
		}
		a = b;
	}
	rc = mp_sites_copy(objs, no, &r->objects, &r->nobjects);
	if (rc >= 0)
		rc = mp_top_of(objs, no, p->top, mp_by_samples, false, &r->top_objects, &r->ntop_objects);
out:
	free(keys);
	mp_sites_free(objs, no);
	return rc;
}

/* Residency: all pages of the mappings a process's samples fell in, each's
 * node, read while the process is held at exit (its memory is there for
 * the last time); an object's pages per node are counted from them. */

#define MP_RES_MAX_PAGES (1u << 20) /* 4 GiB of 4 KiB pages: 2 MiB of nodes */
#define MP_RES_CHUNK 16384          /* pages per oracle call */

void mp_residency_free(struct pms_memprof *p)
{
	for (size_t i = 0; i < p->nres; i++)
		free(p->res[i].node);
	free(p->res);
	p->res = NULL;
	p->nres = 0;
}

/* Read one mapping's pages [start, end) of pid through tid. */
static int res_read_map(struct pms_memprof *p, struct pms_numa_oracle *oracle, pid_t pid,
			pid_t tid, uint64_t start, uint64_t end, uint64_t *addrs, int *nodes)
{
	size_t np = (size_t)((end - start) / 4096);
	if (p->res_pages + np > MP_RES_MAX_PAGES) {
		p->res_capped = true;
		return 0;
	}
	struct resmap *v = realloc(p->res, (p->nres + 1) * sizeof(*v));
	if (!v)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	p->res = v;
	int16_t *nd = malloc(np * sizeof(*nd));
	if (!nd)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	for (size_t k = 0; k < np; k += MP_RES_CHUNK) {
		size_t m = np - k < MP_RES_CHUNK ? np - k : MP_RES_CHUNK;
		for (size_t j = 0; j < m; j++)
			addrs[j] = start + (uint64_t)(k + j) * 4096;
		int r = pms_numa_oracle_resolve_pid(oracle, tid, addrs, m, nodes);
		if (r == PMS_ENOMEM) {
			free(nd);
			return r;
		}
		for (size_t j = 0; j < m; j++)
			nd[k + j] = (int16_t)(r < 0 ? PMS_NODE_UNKNOWN
					  : nodes[j] < INT16_MIN ? INT16_MIN : nodes[j]);
	}
	p->res[p->nres++] = (struct resmap){ (uint32_t)pid, start, end, nd };
	p->res_pages += np;
	return 0;
}

int mp_residency_read(struct pms_memprof *p, struct pms_numa_oracle *oracle, pid_t pid, pid_t tid)
{
	if (!p->v || !p->n)
		return 0;
	const struct pms_maps *ms = p->per_pid_maps ? pms_memprof_maps_pid(p, pid) : p->maps;
	bool *want = ms && ms->n ? calloc(ms->n, sizeof(*want)) : NULL;
	uint64_t *addrs = malloc(MP_RES_CHUNK * sizeof(*addrs));
	int *nodes = malloc(MP_RES_CHUNK * sizeof(*nodes)), rc = 0;
	if (!want || !addrs || !nodes) {
		rc = ms && ms->n ? pms_err(PMS_ENOMEM, "memprof: no memory") : 0;
		goto out;
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct ksample *s = &p->v[i];
		if (!(s->valid & PMS_MS_ADDR) || !(s->valid & PMS_MS_TID) || kpid(p, s) != (uint32_t)pid)
			continue;
		const struct pms_map *m = pms_maps_find(ms, s->addr);
		if (m)
			want[m - ms->v] = true;
	}
	for (size_t k = 0; k < ms->n && rc >= 0; k++) {
		uint64_t a = ms->v[k].start & ~4095ULL, b = (ms->v[k].end + 4095) & ~4095ULL;
		bool seen = false; /* a pid's mapping read once (several held threads) */
		for (size_t j = 0; j < p->nres && !seen; j++)
			seen = p->res[j].pid == (uint32_t)pid && p->res[j].start == a && p->res[j].end == b;
		if (want[k] && !seen)
			rc = res_read_map(p, oracle, pid, tid, a, b, addrs, nodes);
	}
out:
	free(want);
	free(addrs);
	free(nodes);
	return rc;
}

/* Add k to node's entry of o (pages or samples). */
static int objnode_add(struct pms_memreport_site *o, int node, uint64_t pages, uint64_t samples)
{
	size_t i = 0;
	while (i < o->nnodes && o->nodes[i].node < node)
		i++;
	if (i == o->nnodes || o->nodes[i].node != node) {
		struct pms_memreport_objnode *v = realloc(o->nodes, (o->nnodes + 1) * sizeof(*v));
		if (!v)
			return pms_err(PMS_ENOMEM, "memreport: no memory");
		o->nodes = v;
		memmove(&v[i + 1], &v[i], (o->nnodes - i) * sizeof(*v));
		v[i] = (struct pms_memreport_objnode){ node, 0, 0 };
		o->nnodes++;
	}
	o->nodes[i].pages += pages;
	o->nodes[i].samples += samples;
	return 0;
}

/* o's pages per node from the residency read (the pages its range
 * touches, in every process's read mappings holding it). */
static int object_residency(const struct pms_memprof *p, struct pms_memreport_site *o)
{
	if (!o->size || o->size == UINT64_MAX)
		return 0;
	uint64_t lo = o->addr & ~4095ULL, hi = (o->addr + o->size + 4095) & ~4095ULL;
	for (size_t j = 0; j < p->nres; j++) {
		const struct resmap *m = &p->res[j];
		if (m->end <= lo || m->start >= hi)
			continue;
		uint64_t a = lo > m->start ? lo : m->start, b = hi < m->end ? hi : m->end;
		o->resident_read = true;
		for (uint64_t x = a; x < b; x += 4096) {
			int nd = m->node[(x - m->start) / 4096];
			int rc = nd >= 0 ? objnode_add(o, nd, 1, 0) : 0;
			if (rc < 0)
				return rc;
			o->pages_absent += nd < 0;
		}
	}
	return 0;
}
