/* DWARF call paths with their inline stacks (inlpath.h). */
#include <stdlib.h>
#include <string.h>

#include "report/pathprof_int.h"
#include "session/inlpath.h"
#include "symbols/inline_int.h"
#include "util/error.h"

/* The inline stack of a user frame named sym in module dso, at offset
 * map_ip of that file: the one rule of which frames expand. */
static size_t stack_at(struct inlpath *p, const char *sym, const char *dso, uint64_t map_ip,
		       const struct pms_inl_frame **fr)
{
	size_t n = 0;
	*fr = NULL;
	/* perf: a frame with a map and a symbol, in a module that is a file
	 * (srcline.c srcline_dso_name: no "[...]" names) */
	if (!sym || !dso || dso[0] != '/')
		return 0;
	if (!p->c && !p->failed && pms_inline_new(p->sym, &p->c) < 0)
		p->failed = true;
	if (p->failed || pms_inline_at(p->c, dso, map_ip, fr, &n) < 0)
		return 0;
	return n;
}

static size_t stack_of(struct inlpath *p, const struct pms_symtrack_name *nm,
		       const struct pms_inl_frame **fr)
{
	return stack_at(p, nm->sym, nm->dso, nm->map_ip, fr);
}

static int grow(struct inlpath *p, size_t need)
{
	if (need <= p->cap)
		return 0;
	size_t cap = p->cap ? p->cap : 2 * PMS_CALLPATH_MAX;
	while (cap < need)
		cap *= 2;
	struct pms_frame *b = realloc(p->buf, cap * sizeof(*b));
	if (!b)
		return pms_err(PMS_ENOMEM, "call path: out of memory");
	p->buf = b;
	p->cap = cap;
	return 0;
}

int inlpath_expand(struct inlpath *p, struct pms_symtrack *st, uint32_t pid,
		   const struct pms_frame *fr, size_t n, const struct pms_frame **out,
		   size_t *nout)
{
	size_t m = 0;
	bool any = false;
	*out = fr;
	*nout = n;
	if (!st || !n || p->failed)
		return 0;
	if (!p->sym)
		p->sym = symtrack_symbolizer(st);
	if (!p->c && pms_inline_new(p->sym, &p->c) < 0) {
		p->failed = true;
		return PMS_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct pms_inl_frame *ifr;
		struct pms_symtrack_name nm;
		size_t k = 0;
		if ((fr[i].flags & PMS_FRAME_DWARF) && !(fr[i].flags & PMS_FRAME_KERNEL)) {
			(void)pms_symtrack_code(st, pid, fr[i].ip, false, false, &nm);
			k = stack_of(p, &nm, &ifr);
		}
		if (grow(p, m + (k ? k : 1) + (n - i - 1)) < 0)
			return PMS_ENOMEM;
		if (!k) {
			p->buf[m++] = fr[i];
			continue;
		}
		any = true;
		for (size_t j = 0; j < k; j++)
			p->buf[m++] = (struct pms_frame){
				fr[i].ip, fr[i].flags | PMS_FRAME_INLINE |
						  (uint32_t)(j << PMS_FRAME_INLINE_SHIFT) };
	}
	if (any) {
		*out = p->buf;
		*nout = m;
	}
	return 0;
}

bool inlpath_name(struct inlpath *p, const struct pms_frame *f, struct pms_symtrack_name *nm)
{
	const struct pms_inl_frame *ifr;
	size_t k = f->flags >> PMS_FRAME_INLINE_SHIFT;
	size_t n = stack_of(p, nm, &ifr);
	if (k >= n)
		return false;
	bool inlined = strcmp(ifr[k].name, nm->sym) != 0;
	nm->sym = ifr[k].name;
	nm->symlen = 0;
	if (k) { /* the innermost keeps the address's own line */
		nm->srcfile = ifr[k].file;
		nm->line = ifr[k].file ? ifr[k].line : 0;
	}
	return inlined;
}

static void rframe_free(struct pms_pathreport_frame *f)
{
	free(f->func);
	free(f->file);
	free(f->module);
}

/* Frame j of the k of f's inline stack ifr: innermost first, each at f's
 * ip; the innermost keeps f's own line, an outer one the line of the call
 * inside it; the function's name where it is not f's symbol. */
static int rframe_inline(const struct pms_pathreport_frame *f, const struct pms_inl_frame *ifr,
			 size_t j, struct pms_pathreport_frame *o)
{
	const char *name = strcmp(ifr[j].name, f->func) ? ifr[j].name : f->func;
	const char *file = j ? ifr[j].file : f->file;
	*o = (struct pms_pathreport_frame){ f->ip,
					    f->flags | PMS_FRAME_INLINE |
						    (uint32_t)(j << PMS_FRAME_INLINE_SHIFT),
					    strdup(name), f->offset, NULL, 0, strdup(f->module) };
	if (file) {
		o->file = strdup(file);
		o->line = j ? (int)ifr[j].line : f->line;
	}
	if (!o->func || !o->module || (file && !o->file)) {
		rframe_free(o);
		return pms_err(PMS_ENOMEM, "call path: out of memory");
	}
	return 0;
}

/* One named path of a call-path report expanded in place.  A frame's stack
 * is looked up as perf's unwinder reports it (unwind-libdw.c
 * frame_callback): the first user frame at its ip, a caller's at its
 * return address less one. */
static int report_path(struct inlpath *p, const struct pms_maps *maps,
		       struct pms_pathreport_path *x)
{
	struct pms_pathreport_frame *v = NULL;
	size_t m = 0, cap = 0;
	bool any = false, user = false;
	bool *done = calloc(x->nframes ? x->nframes : 1, sizeof(*done)); /* frame i expanded */
	if (!done)
		goto nomem;
	for (size_t i = 0; i < x->nframes; i++) {
		const struct pms_pathreport_frame *f = &x->frames[i];
		const struct pms_inl_frame *ifr = NULL;
		size_t k = 0;
		/* the first user frame is where the unwind started (the
		 * sampled or interrupted user IP, not a return address) */
		uint64_t at = user ? f->ip - 1 : f->ip;
		user |= !(f->flags & PMS_FRAME_KERNEL);
		const struct pms_map *mp;
		if ((f->flags & PMS_FRAME_DWARF) && !(f->flags & (PMS_FRAME_KERNEL | PMS_FRAME_HIDDEN)) &&
		    f->ip && (mp = pms_maps_find(maps, at)) != NULL)
			k = stack_at(p, f->func, f->module, at - mp->start + mp->pgoff, &ifr);
		if (m + (k ? k : 1) + (x->nframes - i - 1) > cap) {
			size_t nc = (m + (k ? k : 1) + (x->nframes - i - 1)) * 2;
			struct pms_pathreport_frame *nv = realloc(v, nc * sizeof(*nv));
			if (!nv) {
				(void)pms_err(PMS_ENOMEM, "call path: out of memory");
				goto fail;
			}
			v = nv;
			cap = nc;
		}
		if (!k) {
			v[m++] = *f; /* the strings move below */
			continue;
		}
		any = done[i] = true;
		/* ifr lives until the next lookup: copied now */
		for (size_t j = 0; j < k; j++, m++)
			if (rframe_inline(f, ifr, j, &v[m]) < 0)
				goto fail;
	}
	if (any) { /* the frames kept moved to v; the expanded ones' strings go */
		for (size_t i = 0; i < x->nframes; i++)
			if (done[i])
				rframe_free(&x->frames[i]);
		free(x->frames);
		x->frames = v;
		x->nframes = m;
		v = NULL;
	}
	free(v);
	free(done);
	return 0;
fail: /* x as it was: only the copies made here go */
	for (size_t q = 0; q < m; q++)
		if (v[q].flags & PMS_FRAME_INLINE)
			rframe_free(&v[q]);
	free(v);
	free(done);
	return PMS_ENOMEM;
nomem:
	free(v);
	free(done);
	return pms_err(PMS_ENOMEM, "call path: out of memory");
}

int inlpath_report(struct pms_symbolizer *sym, const struct pms_maps *maps,
		   struct pms_pathreport *r)
{
	struct inlpath p = { .sym = sym };
	int rc = 0;
	if (!sym || !maps || !r)
		return 0;
	struct {
		struct pms_pathreport_path *v;
		size_t n;
	} lists[] = { { r->by_samples, r->nby_samples },
		      { r->by_latency, r->nby_latency },
		      { r->by_remote, r->nby_remote },
		      { r->all, r->nall } };
	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]) && rc >= 0; l++)
		for (size_t i = 0; i < lists[l].n && rc >= 0 && !p.failed; i++)
			rc = report_path(&p, maps, &lists[l].v[i]);
	inlpath_fini(&p);
	return rc;
}

void inlpath_fini(struct inlpath *p)
{
	pms_inline_free(p->c);
	free(p->buf);
	p->c = NULL;
	p->buf = NULL;
	p->cap = 0;
}
