/* The stack of each report sample (its instruction and the callers its
 * recorded call path gives), and collapsed stacks (flamegraph.pl's input,
 * also read by speedscope) built from them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/stacks_int.h"
#include "pmuscope/export.h"
#include "util/error.h"

/* Stacks are built in one pass over the samples: frames and stacks are
 * interned through open-addressing tables keyed by what makes them equal
 * (a caller frame: its address and kernel flags; a stack: its leaf site
 * and its call path). */
struct build {
	struct pms_export_stacks *st;
	size_t capframes, capstacks, capframe, nframe;
	/* caller frames: (ip, flags) -> frame index + 1 */
	uint64_t *fkey;
	uint32_t *fflags;
	size_t *fval, nfslot;
	/* stacks: (site + 1, path) -> stack index + 1 */
	uint64_t *skey1, *skey2;
	size_t *sval, nsslot;
	size_t nslots_used_f, nslots_used_s;
};

static void build_done(struct build *b)
{
	free(b->fkey);
	free(b->fflags);
	free(b->fval);
	free(b->skey1);
	free(b->skey2);
	free(b->sval);
}

static size_t paths_n(const struct pms_pathreport *p)
{
	return pms_pathreport_path_count(p, PMS_PATHS_ALL);
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x7f4a7c15ULL + (a << 6) + (a >> 2));
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

static char *dup_or_null(const char *s, bool *bad)
{
	char *d;
	if (!s)
		return NULL;
	if (!(d = strdup(s)))
		*bad = true;
	return d;
}

static long add_frame(struct build *b, struct pms_export_frame fr, unsigned inl)
{
	struct pms_export_stacks *st = b->st;
	if (st->nframes == b->capframes) {
		size_t c = b->capframes ? b->capframes * 2 : 256;
		struct pms_export_frame *v = realloc(st->frames, c * sizeof(*v));
		if (!v)
			return -1;
		st->frames = v;
		unsigned *d = realloc(st->inl, c * sizeof(*d));
		if (!d)
			return -1;
		st->inl = d;
		b->capframes = c;
	}
	st->frames[st->nframes] = fr;
	st->inl[st->nframes] = inl;
	return (long)st->nframes++;
}

static void frame_free(struct pms_export_frame *f)
{
	free(f->name);
	free(f->file);
	free(f->module);
}

/* The leaf frame of site s: frame index s (the sites come first). */
static int add_sites(struct build *b, const struct pms_memreport *r)
{
	char nb[512];
	for (size_t i = 0; i < r->nsites; i++) {
		const struct pms_memreport_site *s = &r->sites[i];
		bool bad = false;
		struct pms_export_frame f = { s->addr, NULL, NULL, s->line, NULL, s->kernel, (long)i };
		f.name = dup_or_null(pms_export_frame_name(s, nb, sizeof(nb)), &bad);
		f.file = dup_or_null(s->file, &bad);
		f.module = dup_or_null(s->module ? s->module : "", &bad);
		if (bad || add_frame(b, f, 0) < 0) {
			frame_free(&f);
			return -1;
		}
	}
	return 0;
}

static int grow_fslots(struct build *b)
{
	size_t ns = b->nfslot ? b->nfslot * 2 : 1024;
	uint64_t *k = calloc(ns, sizeof(*k));
	uint32_t *fl = calloc(ns, sizeof(*fl));
	size_t *v = calloc(ns, sizeof(*v));
	if (!k || !fl || !v) {
		free(k);
		free(fl);
		free(v);
		return -1;
	}
	for (size_t i = 0; i < b->nfslot; i++) {
		if (!b->fval[i])
			continue;
		size_t h = (size_t)mix(b->fkey[i], b->fflags[i]) & (ns - 1);
		while (v[h])
			h = (h + 1) & (ns - 1);
		k[h] = b->fkey[i];
		fl[h] = b->fflags[i];
		v[h] = b->fval[i];
	}
	free(b->fkey);
	free(b->fflags);
	free(b->fval);
	b->fkey = k;
	b->fflags = fl;
	b->fval = v;
	b->nfslot = ns;
	return 0;
}

/* The export frame of a path's frame (named by the path report); first:
 * the path's first frame. */
static long caller_frame(struct build *b, const struct pms_pathreport_frame *pf, bool first)
{
	if ((b->nslots_used_f + 1) * 2 > b->nfslot && grow_fslots(b) < 0)
		return -1;
	/* a path's first frame is named at its address, a later one at its
	 * return address - 1 (pathprof.c): keyed apart */
	uint32_t key = pf->flags | (first ? 0x80000000u : 0);
	size_t h = (size_t)mix(pf->ip, key) & (b->nfslot - 1);
	for (; b->fval[h]; h = (h + 1) & (b->nfslot - 1))
		if (b->fkey[h] == pf->ip && b->fflags[h] == key)
			return (long)(b->fval[h] - 1);
	bool bad = false, kern = pf->flags & PMS_FRAME_KERNEL;
	char nb[512];
	const char *name = pf->func;
	if (!name && kern)
		name = "[kernel]"; /* as the report names a kernel site it cannot name */
	else if (!name && pf->module && *pf->module && !kern) {
		const char *base = strrchr(pf->module, '/');
		snprintf(nb, sizeof(nb), "[unknown] [%s]", base ? base + 1 : pf->module);
		name = nb;
	} else if (!name)
		name = "[unknown]";
	struct pms_export_frame f = { pf->ip, NULL, NULL, pf->line, NULL, kern, -1 };
	f.name = dup_or_null(name, &bad);
	f.file = dup_or_null(pf->file, &bad);
	f.module = dup_or_null(pf->module ? pf->module : "", &bad);
	unsigned inl = (pf->flags & PMS_FRAME_INLINE) ? (pf->flags >> PMS_FRAME_INLINE_SHIFT) + 1 : 0;
	long idx = bad ? -1 : add_frame(b, f, inl);
	if (idx < 0) {
		frame_free(&f);
		return -1;
	}
	b->fkey[h] = pf->ip;
	b->fflags[h] = key;
	b->fval[h] = (size_t)idx + 1;
	b->nslots_used_f++;
	return idx;
}

/* Whether the path's first frame is the leaf itself (see export.h). */
static bool is_leaf(const struct pms_memreport_site *s, const struct pms_pathreport_frame *pf)
{
	bool kern = pf->flags & PMS_FRAME_KERNEL;
	if (kern != s->kernel)
		return false;
	if ((pf->flags & PMS_FRAME_HIDDEN) || s->addr_hidden)
		return (pf->flags & PMS_FRAME_HIDDEN) && s->addr_hidden;
	if (pf->ip == s->addr)
		return true;
	return pf->func && !strcmp(pf->func, s->name);
}

static int grow_sslots(struct build *b)
{
	size_t ns = b->nsslot ? b->nsslot * 2 : 1024;
	uint64_t *k1 = calloc(ns, sizeof(*k1)), *k2 = calloc(ns, sizeof(*k2));
	size_t *v = calloc(ns, sizeof(*v));
	if (!k1 || !k2 || !v) {
		free(k1);
		free(k2);
		free(v);
		return -1;
	}
	for (size_t i = 0; i < b->nsslot; i++) {
		if (!b->sval[i])
			continue;
		size_t h = (size_t)mix(b->skey1[i], b->skey2[i]) & (ns - 1);
		while (v[h])
			h = (h + 1) & (ns - 1);
		k1[h] = b->skey1[i];
		k2[h] = b->skey2[i];
		v[h] = b->sval[i];
	}
	free(b->skey1);
	free(b->skey2);
	free(b->sval);
	b->skey1 = k1;
	b->skey2 = k2;
	b->sval = v;
	b->nsslot = ns;
	return 0;
}

static int push_frame(struct build *b, size_t f)
{
	struct pms_export_stacks *st = b->st;
	if (b->nframe == b->capframe) {
		size_t c = b->capframe ? b->capframe * 2 : 1024;
		size_t *v = realloc(st->frame, c * sizeof(*v));
		if (!v)
			return -1;
		st->frame = v;
		b->capframe = c;
	}
	st->frame[b->nframe++] = f;
	return 0;
}

/* The stack of (site, path): site -1 none, path 0 none else 1 + index
 * into paths->all.  Its index, or -1 on no memory. */
static long stack_of(struct build *b, const struct pms_memreport *r,
		     const struct pms_pathreport *paths, long site, uint32_t path)
{
	struct pms_export_stacks *st = b->st;
	uint64_t k1 = (uint64_t)(site + 1), k2 = path;
	if ((b->nslots_used_s + 1) * 2 > b->nsslot && grow_sslots(b) < 0)
		return -1;
	size_t h = (size_t)mix(k1, k2) & (b->nsslot - 1);
	for (; b->sval[h]; h = (h + 1) & (b->nsslot - 1))
		if (b->skey1[h] == k1 && b->skey2[h] == k2)
			return (long)(b->sval[h] - 1);
	if (st->nstacks + 1 >= b->capstacks) {
		size_t c = b->capstacks ? b->capstacks * 2 : 256;
		size_t *v = realloc(st->off, (c + 1) * sizeof(*v));
		if (!v)
			return -1;
		st->off = v;
		b->capstacks = c;
	}
	size_t j = st->nstacks;
	st->off[j] = b->nframe;
	if (site >= 0 && push_frame(b, (size_t)site) < 0)
		return -1;
	if (path) {
		/* A sample without an IP: its path's first frame is its leaf. */
		const struct pms_pathreport_path *p = pms_pathreport_path_at(paths, PMS_PATHS_ALL, path - 1);
		bool leaf = site >= 0 && p->nframes && is_leaf(&r->sites[site], &p->frames[0]);
		size_t k = leaf ? 1 : 0, lead = 1;
		/* the leaf's inline stack (pathprof's frames expanded,
		 * session/inlpath.c): its frames stand for the site, all named
		 * at the leaf's address */
		while (p->nframes && lead < p->nframes && p->frames[lead].ip == p->frames[0].ip &&
		       (p->frames[lead].flags & PMS_FRAME_INLINE) &&
		       (p->frames[lead].flags >> PMS_FRAME_INLINE_SHIFT) == lead)
			lead++;
		if (leaf && (p->frames[0].flags & PMS_FRAME_INLINE)) {
			b->nframe--; /* the site's frame pushed above */
			k = 0;
		}
		for (; k < p->nframes; k++) {
			long f = caller_frame(b, &p->frames[k], k < lead);
			if (f < 0 || push_frame(b, (size_t)f) < 0)
				return -1;
		}
		if (b->nframe - st->off[j] > 1)
			st->callers = true;
	}
	st->off[j + 1] = b->nframe;
	st->nstacks++;
	b->skey1[h] = k1;
	b->skey2[h] = k2;
	b->sval[h] = j + 1;
	b->nslots_used_s++;
	return (long)j;
}

int pms_export_stacks_new(const struct pms_memreport *r, const struct pms_pathreport *paths,
			  struct pms_export_stacks **out)
{
	struct build b;
	struct pms_export_stacks *st = NULL;
	memset(&b, 0, sizeof(b));
	if (out)
		*out = NULL;
	if (!r || !out)
		return pms_err(PMS_EINVAL, "export: NULL argument");
	if (r->samples && !r->nall)
		return pms_err(PMS_EINVAL, "export: the report kept no samples (aggregate mode): "
					   "build it with opts.aggregate false");
	if (paths && (!pms_pathreport_kept(paths) || pms_pathreport_sample_path_count(paths) != r->nall))
		return pms_err(PMS_EINVAL,
			       "export: the call paths are of %zu samples, the report has %zu: build "
			       "them from the same samples with pathprof opts.kept_samples",
			       pms_pathreport_sample_path_count(paths), r->nall);
	st = calloc(1, sizeof(*st));
	if (!st)
		goto nomem;
	b.st = st;
	st->report = r;
	st->nsamples = r->nall;
	st->stack = calloc(r->nall ? r->nall : 1, sizeof(*st->stack));
	st->off = calloc(2, sizeof(*st->off));
	if (!st->stack || !st->off || add_sites(&b, r) < 0)
		goto nomem;
	for (size_t i = 0; i < r->nall; i++) {
		long s = r->all[i].site;
		if (s < 0 || (size_t)s >= r->nsites)
			s = -1;
		uint32_t p = pms_pathreport_sample_path(paths, i);
		if (p > paths_n(paths))
			p = 0;
		long j = stack_of(&b, r, paths, s, p);
		if (j < 0)
			goto nomem;
		st->stack[i] = (size_t)j;
	}
	build_done(&b);
	*out = st;
	return 0;
nomem:
	build_done(&b);
	pms_export_stacks_free(st);
	return pms_err(PMS_ENOMEM, "export: no memory for %zu samples' stacks", r->nall);
}

size_t pms_export_stacks_count(const struct pms_export_stacks *st)
{
	return st ? st->nstacks : 0;
}

size_t pms_export_stacks_depth(const struct pms_export_stacks *st, size_t j)
{
	return st && j < st->nstacks ? st->off[j + 1] - st->off[j] : 0;
}

size_t pms_export_stacks_frame_index(const struct pms_export_stacks *st, size_t j, size_t k)
{
	return k < pms_export_stacks_depth(st, j) ? st->frame[st->off[j] + k] : (size_t)-1;
}

size_t pms_export_stacks_frame_count(const struct pms_export_stacks *st)
{
	return st ? st->nframes : 0;
}

const struct pms_export_frame *pms_export_stacks_frame(const struct pms_export_stacks *st,
							size_t i)
{
	return st && i < st->nframes ? &st->frames[i] : NULL;
}

size_t pms_export_stacks_sample_count(const struct pms_export_stacks *st)
{
	return st ? st->nsamples : 0;
}

size_t pms_export_stacks_of_sample(const struct pms_export_stacks *st, size_t i)
{
	return st && i < st->nsamples ? st->stack[i] : (size_t)-1;
}

bool pms_export_stacks_callers(const struct pms_export_stacks *st)
{
	return st && st->callers;
}

void pms_export_stacks_free(struct pms_export_stacks *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nframes; i++)
		frame_free(&st->frames[i]);
	free(st->frames);
	free(st->inl);
	free(st->stack);
	free(st->off);
	free(st->frame);
	free(st);
}

const char *pms_export_frame_name(const struct pms_memreport_site *f, char *buf, size_t size)
{
	if (strcmp(f->name, "[unknown]") || !f->module || !*f->module)
		return f->name;
	const char *base = strrchr(f->module, '/');
	snprintf(buf, size, "[unknown] [%s]", base ? base + 1 : f->module);
	return buf;
}

struct path {
	char *text;
	uint64_t v;
};

static int path_cmp(const void *a, const void *b)
{
	return strcmp(((const struct path *)a)->text, ((const struct path *)b)->text);
}

/* Append s to *buf (growing it); unless raw, ';' and newlines replaced. */
static int put(char **buf, size_t *len, size_t *cap, const char *s, bool raw)
{
	size_t n = strlen(s);
	if (*len + n + 1 > *cap) {
		size_t c = (*cap ? *cap * 2 : 256) + n;
		char *b = realloc(*buf, c);
		if (!b)
			return -1;
		*buf = b;
		*cap = c;
	}
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		(*buf)[(*len)++] = raw ? c : c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
	}
	(*buf)[*len] = 0;
	return 0;
}

int pms_export_folded(const struct pms_export_stacks *st, enum pms_export_weight w, char **out,
		      size_t *len)
{
	struct path *p = NULL;
	uint64_t *sum = NULL;
	size_t np = 0;
	char *txt = NULL;
	size_t tlen = 0, tcap = 0;
	int rc = 0;
	if (out)
		*out = NULL;
	if (!st || !out)
		return pms_err(PMS_EINVAL, "export: NULL argument");
	const struct pms_memreport *r = st->report;
	/* each stack's total, then its text; stacks of equal names add up */
	sum = calloc(st->nstacks + 1, sizeof(*sum));
	p = calloc(st->nstacks + 1, sizeof(*p));
	if (!sum || !p)
		goto nomem;
	for (size_t i = 0; i < st->nsamples; i++) {
		const struct pms_memsample *s = &r->all[i].s;
		sum[st->stack[i]] += w == PMS_EXPORT_LATENCY ? ((s->valid & PMS_MS_WEIGHT) ? s->weight : 0) : 1;
	}
	for (size_t j = 0; j < st->nstacks; j++) {
		char *b = NULL;
		size_t bl = 0, bc = 0;
		if (!sum[j])
			continue;
		if (st->off[j] == st->off[j + 1] && put(&b, &bl, &bc, "[no ip]", false) < 0)
			goto nomem;
		/* root first: the frames are stored leaf first */
		for (size_t k = st->off[j + 1]; k > st->off[j]; k--) {
			if ((k < st->off[j + 1] && put(&b, &bl, &bc, ";", true) < 0) ||
			    put(&b, &bl, &bc, st->frames[st->frame[k - 1]].name, false) < 0) {
				free(b);
				goto nomem;
			}
		}
		p[np++] = (struct path){ b, sum[j] };
	}
	qsort(p, np, sizeof(*p), path_cmp);
	if (put(&txt, &tlen, &tcap, "", true) < 0)
		goto nomem;
	for (size_t a = 0; a < np;) {
		uint64_t tot = 0;
		size_t b = a;
		char num[32];
		for (; b < np && !strcmp(p[b].text, p[a].text); b++)
			tot += p[b].v;
		snprintf(num, sizeof(num), " %llu\n", (unsigned long long)tot);
		if (put(&txt, &tlen, &tcap, p[a].text, true) < 0 || put(&txt, &tlen, &tcap, num, true) < 0)
			goto nomem;
		a = b;
	}
	*out = txt;
	txt = NULL;
	if (len)
		*len = tlen;
	goto out;
nomem:
	rc = pms_err(PMS_ENOMEM, "export: no memory for the collapsed stacks");
out:
	for (size_t i = 0; i < np; i++)
		free(p[i].text);
	free(p);
	free(sum);
	free(txt);
	return rc;
}
