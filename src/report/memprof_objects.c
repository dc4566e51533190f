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
			if (x->mem_node >= 0 && (rc = mp_objnode_add(o, x->mem_node, 0, 1)) < 0)
				goto out;
		}
		if ((rc = mp_object_residency(p, o)) < 0)
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
