/* `pmuscope mem` report (memprof.c): sites (instructions, functions, lines,
 * data objects) from the kept samples, and the top lists. */
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

/* ---- report ---------------------------------------------------------------- */

uint64_t pms_percentile(const uint64_t *sorted, size_t n, double pct)
{
	if (!n)
		return 0;
	double rank = ceil(pct / 100.0 * (double)n);
	size_t i = rank < 1 ? 0 : (size_t)rank - 1;
	return sorted[i < n ? i : n - 1];
}


char *mp_xstrdup(const char *s, int *rc)
{
	char *d = strdup(s ? s : "");
	if (!d && *rc >= 0)
		*rc = pms_err(PMS_ENOMEM, "memreport: no memory");
	return d;
}

int mp_count_addn(struct pms_memreport_count **v, size_t *n, const char *name, uint64_t k)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name)) {
			(*v)[i].samples += k;
			return 0;
		}
	struct pms_memreport_count *nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	*v = nv;
	nv[*n].name = strdup(name);
	if (!nv[*n].name)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	nv[*n].samples = k;
	(*n)++;
	return 0;
}

int mp_count_cmp(const void *a, const void *b)
{
	const struct pms_memreport_count *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

void mp_site_account_k(const struct pms_memprof *p, struct pms_memreport_site *s,
		       const struct ksample *x)
{
	mp_site_count(s, x->valid, x->weight, x->mem_node, kcpu(p, x), p->home_node);
}

int mp_site_copy(struct pms_memreport_site *d, const struct pms_memreport_site *s)
{
	int rc = 0;
	*d = *s;
	d->name = mp_xstrdup(s->name, &rc);
	d->file = s->file ? mp_xstrdup(s->file, &rc) : NULL;
	d->module = mp_xstrdup(s->module, &rc);
	d->kind = s->kind ? mp_xstrdup(s->kind, &rc) : NULL;
	d->comm = s->comm ? mp_xstrdup(s->comm, &rc) : NULL;
	d->section = s->section ? mp_xstrdup(s->section, &rc) : NULL;
	d->nodes = NULL;
	d->nnodes = 0;
	if (s->nnodes && rc >= 0) {
		d->nodes = malloc(s->nnodes * sizeof(*d->nodes));
		if (!d->nodes)
			rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		else {
			memcpy(d->nodes, s->nodes, s->nnodes * sizeof(*d->nodes));
			d->nnodes = s->nnodes;
		}
	}
	return rc;
}

int mp_by_samples(const void *a, const void *b)
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
	return mp_by_samples(a, b);
}

/* Copy n sites into *out (the report's full lists). */
int mp_sites_copy(const struct pms_memreport_site *v, size_t n, struct pms_memreport_site **out,
		  size_t *nout)
{
	int rc = 0;
	*nout = 0;
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < n && rc >= 0; i++) {
		rc = mp_site_copy(&(*out)[i], &v[i]);
		*nout = i + 1;
	}
	return rc;
}

/* The first `top` of the n rows of sz bytes at all in cmp's order, as a
 * stable sort would give them: their addresses in best (room for top; at
 * least one), how many the result.  Few of many: kept in a sorted array of
 * `top` (a candidate goes after the ones equal to it), not a sort of all;
 * many of few: all sorted in place. */
static size_t top_pick(void *all, size_t n, size_t sz, size_t top,
		       int (*cmp)(const void *, const void *), const void **best)
{
	char *v = all;
	size_t nb = 0;
	if (top >= n / 8) {
		qsort(all, n, sz, cmp);
		for (; nb < n && nb < top; nb++)
			best[nb] = v + nb * sz;
		return nb;
	}
	for (size_t i = 0; i < n && top; i++) {
		const void *x = v + i * sz;
		if (nb == top && cmp(x, best[nb - 1]) >= 0)
			continue;
		size_t lo = 0, hi = nb;
		while (lo < hi) { /* first one that sorts after x */
			size_t mid = lo + (hi - lo) / 2;
			if (cmp(best[mid], x) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (nb < top)
			nb++;
		memmove(&best[lo + 1], &best[lo], (nb - 1 - lo) * sizeof(*best));
		best[lo] = x;
	}
	return nb;
}

/* One row of a top list copied as a site into *dst: 0, 1 when the list
 * ends before it (not copied), or a negative PMS_E* (dst partly made:
 * freed with the list). */
typedef int (*top_copy_fn)(const void *row, const void *ctx, bool need_latency,
			   struct pms_memreport_site *dst);

/* The first `top` of the n rows of sz bytes at all in cmp's order
 * (top_pick), each copied into *out by copy: the one setup of the sites'
 * and the instructions' top lists. */
static int top_rows(void *all, size_t n, size_t sz, size_t top,
		    int (*cmp)(const void *, const void *), top_copy_fn copy, const void *ctx,
		    bool need_latency, struct pms_memreport_site **out, size_t *nout)
{
	size_t k = 0;
	int rc = 0;
	*nout = 0;
	*out = calloc(top ? top : 1, sizeof(**out));
	const void **best = malloc((top ? top : 1) * sizeof(*best));
	if (!*out || !best) {
		free(best);
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	}
	size_t nb = top_pick(all, n, sz, top, cmp, best);
	for (size_t i = 0; i < nb && rc >= 0; i++) {
		rc = copy(best[i], ctx, need_latency, &(*out)[k]);
		if (rc == 1) {
			rc = 0;
			break;
		}
		*nout = ++k;
	}
	free(best);
	return rc;
}

static int site_row_copy(const void *row, const void *ctx, bool need_latency,
			 struct pms_memreport_site *dst)
{
	const struct pms_memreport_site *x = row;
	(void)ctx;
	if (need_latency && !x->weighted)
		return 1;
	return mp_site_copy(dst, x);
}

/* The first `top` of all n sites in cmp's order, as a stable sort would
 * give them (top_pick), copied into *out; with need_latency, only those
 * with a weight. */
int mp_top_of(struct pms_memreport_site *all, size_t n, size_t top,
	      int (*cmp)(const void *, const void *), bool need_latency,
	      struct pms_memreport_site **out, size_t *nout)
{
	return top_rows(all, n, sizeof(*all), top, cmp, site_row_copy, NULL, need_latency, out,
			nout);
}

/* An instruction's row as the report's orders read it. */
static int irow_by_samples(const void *a, const void *b)
{
	const struct irow *x = a, *y = b;
	if (x->n.samples != y->n.samples)
		return x->n.samples > y->n.samples ? -1 : 1;
	if (x->n.latency != y->n.latency)
		return x->n.latency > y->n.latency ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int irow_by_latency(const void *a, const void *b)
{
	const struct irow *x = a, *y = b;
	if (x->n.latency != y->n.latency)
		return x->n.latency > y->n.latency ? -1 : 1;
	return irow_by_samples(a, b);
}

/* Name each instruction site, group them into functions (same module and
 * name; sorted, so n log n), and fill the four top lists.  ips is consumed:
 * reordered, its rows' strings left borrowed (the symbolizer's, the maps'
 * or literals), so the caller frees the array alone, not a row's strings. */
struct fkey {
	size_t i;
	uint32_t pid;
	/* the strings the site's copies were made from (the symbolizer's,
	 * the maps' or literals): the same function mostly has the same
	 * pointers, which compare without strcmp */
	const char *module, *name;
};

static int str_cmp(const char *a, const char *b)
{
	return a == b ? 0 : strcmp(a, b);
}

/* Same process, module and name: the same function. */
static bool fkey_same(const struct fkey *x, const struct fkey *y)
{
	return x->pid == y->pid && !str_cmp(x->module, y->module) &&
	       !str_cmp(x->name, y->name);
}

/* Consecutive instructions (in address order) of one function. */
struct frun {
	struct fkey k; /* its first instruction's */
	size_t from, to; /* positions in address order */
};

/* By (process, module, name); runs of one function in address order. */
static int frun_cmp(const void *a, const void *b)
{
	const struct frun *x = a, *y = b;
	int c = x->k.pid < y->k.pid ? -1 : x->k.pid > y->k.pid;
	if (!c)
		c = str_cmp(x->k.module, y->k.module);
	if (!c)
		c = str_cmp(x->k.name, y->k.name);
	if (!c)
		c = x->from < y->from ? -1 : x->from > y->from;
	return c;
}

struct symres {
	const char *func, *module, *file; /* the symbolizer's strings */
	int line;
	uint64_t start;
	bool done, between;
};

static bool may_name(const struct pms_memprof *p, const struct pms_memreport *r,
		     const struct pms_symbolizer *sym, bool kern, bool foreign)
{
	return sym && (!kern || (r->kernel_visible && !p->recorded && !foreign));
}

/* The k-th IP in address order: its index (ord NULL: the IPs are in that
 * order). */
static inline size_t ord_i(const struct skey *ord, size_t k)
{
	return ord ? ord[k].i : k;
}

/* Look up the k-th IP in address order. */
static void sym_at(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym,
		   const struct irow *ips, const struct skey *ord, struct symres *res, size_t k)
{
	size_t i = ord_i(ord, k);
	struct pms_symbol sy = { 0 };
	if (res[i].done)
		return;
	res[i].done = true;
	if (!may_name(p, r, sym, ips[i].kernel, ips[i].foreign))
		return;
	if (pms_symbolizer_code_pid(sym, (pid_t)ips[i].pid, ips[i].addr, ips[i].kernel, false,
				    &sy) < 0) {
		/* no name, but the binary may be known: "[unknown] (/path)";
		 * unknown ones group per module */
		res[i].module = sy.module;
		return;
	}
	res[i] = (struct symres){ sy.func, sy.module, sy.file, sy.line, ips[i].addr - sy.offset,
				  true, false };
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void sym_between(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym,
			const struct irow *ips, const struct skey *ord, struct symres *res, size_t lo,
			size_t hi)
{
	while (hi - lo > 1) {
		const struct symres *a = &res[ord_i(ord, lo)], *b = &res[ord_i(ord, hi)];
		if (ips[ord_i(ord, lo)].pid != ips[ord_i(ord, hi)].pid) {
			/* two processes (-a, sorted by process): each its own */
			size_t mid = lo + (hi - lo) / 2;
			sym_at(p, r, sym, ips, ord, res, mid);
			sym_between(p, r, sym, ips, ord, res, lo, mid);
			lo = mid;
			continue;
		}
		if (ips[ord_i(ord, lo)].addr == ips[ord_i(ord, hi)].addr &&
		    ips[ord_i(ord, lo)].kernel == ips[ord_i(ord, hi)].kernel &&
		    ips[ord_i(ord, lo)].foreign == ips[ord_i(ord, hi)].foreign) {
			/* one address (of several threads): one lookup */
			for (size_t k = lo + 1; k < hi; k++)
				res[ord_i(ord, k)] = *a;
			return;
		}
		if (a->func && b->func && str_eq(a->func, b->func) && str_eq(a->module, b->module) &&
		    a->start == b->start && ips[ord_i(ord, lo)].kernel == ips[ord_i(ord, hi)].kernel) {
			for (size_t k = lo + 1; k < hi; k++) {
				struct symres *x = &res[ord_i(ord, k)];
				*x = *a;
				x->file = NULL;
				x->line = 0;
				x->between = true;
			}
			return;
		}
		size_t mid = lo + (hi - lo) / 2;
		sym_at(p, r, sym, ips, ord, res, mid);
		sym_between(p, r, sym, ips, ord, res, lo, mid);
		lo = mid;
	}
}

/* The top instructions named one by one (file and line of each; a
 * function gets the file of its first instruction, no line). */
static int top_lines(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym,
		     struct pms_memreport_site *v, size_t n, bool line)
{
	int rc = 0;
	for (size_t i = 0; i < n && rc >= 0; i++) {
		struct pms_symbol sy = { 0 };
		/* a kernel row left unnamed (a foreign kernel's among them)
		 * has no line either */
		if (v[i].addr_hidden || v[i].file ||
		    !may_name(p, r, sym, v[i].kernel, v[i].kernel && !strcmp(v[i].name, "[kernel]")) ||
		    (!line && !strcmp(v[i].name, "[unknown]")) ||
		    pms_symbolizer_code_pid(sym, (pid_t)v[i].pid, v[i].addr, v[i].kernel, true, &sy) < 0 ||
		    !sy.file)
			continue;
		v[i].file = mp_xstrdup(sy.file, &rc);
		v[i].line = line ? sy.line : 0;
	}
	return rc;
}

/* Instruction x as a site row, its strings borrowed from its names (fk, sy:
 * its fkey and symres). */
static void irow_view(const struct irow *x, const struct fkey *fk, const struct symres *sy,
		      struct pms_memreport_site *d)
{
	memset(d, 0, sizeof(*d));
	/* a foreign kernel IP's key back to the IP (MP_FOREIGN_BIT) */
	d->addr = x->foreign && !x->addr_hidden ? x->addr ^ MP_FOREIGN_BIT : x->addr;
	d->kernel = x->kernel;
	d->addr_hidden = x->addr_hidden;
	d->name = (char *)fk->name;
	d->module = (char *)fk->module;
	d->file = (char *)sy->file;
	d->line = sy->line;
	d->samples = x->n.samples;
	d->latency = x->n.latency;
	d->weighted = x->n.weighted;
	d->resolved = x->n.resolved;
	d->remote = x->n.remote;
	d->on_home = x->n.on_home;
	d->pid = x->pid;
}

/* Every instruction as a site of the report (r->sites), in ips' order. */
static int irow_copy_all(const struct irow *ips, size_t nips, const struct fkey *fk,
			 const struct symres *res, struct pms_memreport *r)
{
	int rc = 0;
	r->nsites = 0;
	r->sites = calloc(nips ? nips : 1, sizeof(*r->sites));
	if (!r->sites)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t k = 0; k < nips && rc >= 0; k++) {
		struct pms_memreport_site v;
		irow_view(&ips[k], &fk[ips[k].i], &res[ips[k].i], &v);
		rc = mp_site_copy(&r->sites[k], &v);
		r->nsites = k + 1;
	}
	return rc;
}

/* What an instruction's row is copied with: the names found for it. */
struct irow_ctx {
	const struct fkey *fk;
	const struct symres *res;
};

static int irow_row_copy(const void *row, const void *ctx, bool need_latency,
			 struct pms_memreport_site *dst)
{
	const struct irow *x = row;
	const struct irow_ctx *c = ctx;
	if (need_latency && !x->n.weighted)
		return 1;
	struct pms_memreport_site v;
	irow_view(x, &c->fk[x->i], &c->res[x->i], &v);
	return mp_site_copy(dst, &v);
}

/* The first `top` instructions in cmp's order (top_pick), copied as sites
 * into *out; with need_latency, only those with a weight. */
static int irow_top(struct irow *ips, size_t nips, const struct fkey *fk, const struct symres *res,
		    size_t top, int (*cmp)(const void *, const void *), bool need_latency,
		    struct pms_memreport_site **out, size_t *nout)
{
	const struct irow_ctx c = { fk, res };
	return top_rows(ips, nips, sizeof(*ips), top, cmp, irow_row_copy, &c, need_latency, out,
			nout);
}

/* Over 150 lines: the code side of the report (sites, functions, their
 * symbols) finished in one pass with one error path; not split this round,
 * as issue 28 reworks src/report/memprof_sites.c in parallel. */
int mp_finish_code(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym,
		   struct irow *ips, size_t nips)
{
	int rc = 0;
	size_t nfuncs = 0, nruns = 0, runcap = 0;
	struct skey *ord = NULL;
	struct symres *res = NULL;
	struct frun *runs = NULL;
	struct pms_memreport_site *funcs = NULL;
	size_t ressz = (nips ? nips : 1) * sizeof(*res);
	struct fkey *fk = malloc((nips ? nips : 1) * sizeof(*fk)); /* each one set below */
	if (!fk) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	/* Name the IPs in address order (names only: lines are looked up for
	 * the top lists below), bisecting: when two IPs resolve to
	 * the same symbol (same module, name and start), every IP between them
	 * lies in it too (a symbol is one contiguous range), so a function
	 * costs about log2(its distinct IPs) lookups, not one per IP (each
	 * lookup scans a symbol table).  Those in between get no line; the top
	 * lists are looked up again one by one below. */
	/* by (process, address), process 0 without per-process functions:
	 * the aggregate and the kept samples give them in that order already,
	 * and then there is no order to keep (ord NULL: ord_i) */
	bool sorted = true;
	for (size_t i = 0; i < nips; i++) {
		ips[i].i = i;
		if (i && sorted)
			sorted = ips[i - 1].pid < ips[i].pid ||
				 (ips[i - 1].pid == ips[i].pid && ips[i - 1].addr < ips[i].addr);
	}
	ord = sorted ? NULL : malloc((nips ? nips : 1) * sizeof(*ord)); /* each one set below */
	res = mp_big_calloc(ressz);
	if ((!sorted && !ord) || !res) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	if (!sorted) {
		for (size_t i = 0; i < nips; i++)
			ord[i] = (struct skey){ ips[i].pid, ips[i].addr, i };
		mp_skey_sort(ord, nips);
	}
	if (nips && sym) { /* without a symbolizer nothing is named */
		sym_at(p, r, sym, ips, ord, res, 0);
		sym_at(p, r, sym, ips, ord, res, nips - 1);
		sym_between(p, r, sym, ips, ord, res, 0, nips - 1);
	}
	const struct pms_maps *lmaps = NULL;
	const struct pms_map *lm = NULL;
	for (size_t i = 0; i < nips; i++) {
		struct irow *st = &ips[i];
		bool kern = st->kernel;
		const struct symres *sy = &res[i];
		if (kern && !r->kernel_visible) {
			st->addr = 0;
			st->addr_hidden = true;
		}
		/* borrowed (the symbolizer's, the maps' or literals); the rows
		 * made below copy them (irow_site) */
		const char *name = sy->func ? sy->func : (kern ? "[kernel]" : "[unknown]");
		const char *mod = sy->module;
		if (!mod && !kern) {
			/* perf's "[unknown]" with the binary it is in (in address
			 * order, mostly the one of the instruction before) */
			const struct pms_maps *ms = st->pid ? pms_memprof_maps_pid(p, (pid_t)st->pid)
							    : pms_memprof_maps(p);
			const struct pms_map *m = ms == lmaps && lm && st->addr >= lm->start &&
							  st->addr < lm->end
							  ? lm
							  : pms_maps_find(ms, st->addr);
			lmaps = ms;
			lm = m;
			mod = m && m->path[0] == '/' ? m->path : NULL;
		}
		mod = mod ? mod : (kern ? "[kernel]" : "");
		fk[i] = (struct fkey){ i, st->pid, mod, name };
	}
	/* Functions: instructions with the same (module, name); the unknown
	 * ones stay per module.  A function's first IP is its lowest (as
	 * shown: hidden kernel ones are all 0, then the first in site
	 * order).  Runs of one function in address order are sorted, not
	 * every instruction: a symbol is one range, so there are about as
	 * many runs as functions, and the runs and the function rows are
	 * sized by them, not by the instructions. */
	for (size_t k = 0; k < nips; k++) {
		size_t i = ord_i(ord, k);
		if (!nruns || !fkey_same(&fk[i], &runs[nruns - 1].k)) {
			if ((rc = mp_grow((void **)&runs, &runcap, nruns, sizeof(*runs))) < 0)
				goto out;
			runs[nruns++] = (struct frun){ fk[i], k, k };
		}
		runs[nruns - 1].to = k + 1;
	}
	if (nruns)
		qsort(runs, nruns, sizeof(*runs), frun_cmp);
	funcs = calloc(nruns ? nruns : 1, sizeof(*funcs));
	if (!funcs) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	for (size_t a = 0; a < nruns;) {
		size_t b = a;
		const struct irow *s0 = NULL;
		struct mp_counts sum = { 0 };
		/* its first instruction and its sums, in one pass */
		for (; b < nruns && fkey_same(&runs[b].k, &runs[a].k); b++)
			for (size_t k = runs[b].from; k < runs[b].to; k++) {
				const struct irow *x = &ips[ord_i(ord, k)];
				if (!s0 || x->addr < s0->addr || (x->addr == s0->addr && x < s0))
					s0 = x;
				sum.samples += x->n.samples;
				sum.latency += x->n.latency;
				sum.weighted += x->n.weighted;
				sum.resolved += x->n.resolved;
				sum.remote += x->n.remote;
				sum.on_home += x->n.on_home;
			}
		struct pms_memreport_site *f = &funcs[nfuncs++];
		/* its strings borrowed too; comm is its own; a function's line
		 * would be one instruction's: keep the file */
		irow_view(s0, &fk[s0->i], &res[s0->i], f);
		f->samples = sum.samples;
		f->latency = sum.latency;
		f->weighted = sum.weighted;
		f->resolved = sum.resolved;
		f->remote = sum.remote;
		f->on_home = sum.on_home;
		f->line = 0;
		if (p->per_pid_funcs && s0->pid)
			f->comm = mp_xstrdup(mp_task_comm(p, s0->pid, s0->pid), &rc);
		a = b;
	}
	/* kept samples: every instruction, before irow_top reorders them
	 * (samples index them); none in aggregate mode (report.h) */
	if (rc >= 0 && !p->agg)
		rc = irow_copy_all(ips, nips, fk, res, r);
	if (rc >= 0)
		rc = irow_top(ips, nips, fk, res, p->top, irow_by_samples, false, &r->top_ips_samples,
			      &r->ntop_ips_samples);
	if (rc >= 0)
		rc = irow_top(ips, nips, fk, res, p->top, irow_by_latency, true, &r->top_ips_latency,
			      &r->ntop_ips_latency);
	if (rc >= 0)
		rc = mp_top_of(funcs, nfuncs, p->top, mp_by_samples, false, &r->top_funcs_samples,
			    &r->ntop_funcs_samples);
	if (rc >= 0)
		rc = mp_top_of(funcs, nfuncs, p->top, by_latency, true, &r->top_funcs_latency,
			    &r->ntop_funcs_latency);
	if (rc >= 0)
		rc = top_lines(p, r, sym, r->top_ips_samples, r->ntop_ips_samples, true);
	if (rc >= 0)
		rc = top_lines(p, r, sym, r->top_ips_latency, r->ntop_ips_latency, true);
	if (rc >= 0)
		rc = top_lines(p, r, sym, r->top_funcs_samples, r->ntop_funcs_samples, false);
	if (rc >= 0)
		rc = top_lines(p, r, sym, r->top_funcs_latency, r->ntop_funcs_latency, false);
out:
	for (size_t i = 0; funcs && i < nfuncs; i++)
		free(funcs[i].comm);
	free(ord);
	mp_big_free(res, ressz);
	free(fk);
	free(runs);
	free(funcs);
	return rc;
}

/* An instruction of one process (pid 0: of all). */

/* Instructions and functions from the kept samples. */
int mp_build_code(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym)
{
	int rc = 0;
	size_t nk = 0, nips = 0, ipsz = 0;
	/* (ip, pid), pid 0 unless per-process functions */
	struct skey *keys = malloc((p->n ? p->n : 1) * sizeof(*keys));
	struct irow *ips = NULL;
	if (!keys)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < p->n; i++) {
		if (p->xv)
			p->xv[i].site = -1;
		if (p->v[i].valid & PMS_MS_IP)
			keys[nk++] = (struct skey){ mp_ip_key(p->v[i].ip, p->v[i].valid),
						    p->per_pid_funcs ? kpid(p, &p->v[i]) : 0, i };
	}
	mp_skey_sort(keys, nk);
	size_t ndist = 0;
	for (size_t a = 0; a < nk; a++)
		ndist += !a || keys[a].major != keys[a - 1].major || keys[a].minor != keys[a - 1].minor;
	ipsz = (ndist ? ndist : 1) * sizeof(*ips);
	ips = mp_big_calloc(ipsz);
	if (!ips) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	for (size_t a = 0; a < nk;) {
		size_t b = a;
		const struct ksample *s0 = &p->v[keys[a].i];
		struct irow *st = &ips[nips++];
		st->addr = keys[a].major;
		st->kernel = (s0->valid & PMS_MS_KERNEL_IP) != 0;
		st->foreign = st->kernel && (s0->valid & PMS_MS_KERNEL_FOREIGN);
		st->pid = (uint32_t)keys[a].minor;
		for (; b < nk && keys[b].major == keys[a].major && keys[b].minor == keys[a].minor; b++) {
			const struct ksample *x = &p->v[keys[b].i];
			mp_counts_add(&st->n, x->valid, x->weight, x->mem_node, kcpu(p, x),
				      p->home_node);
			if (p->xv)
				p->xv[keys[b].i].site = (int64_t)(nips - 1);
		}
		a = b;
	}
	free(keys); /* before naming: it may load debug information */
	keys = NULL;
	if (!p->keep_all && !p->agg) {
		/* no_sample_list: every number from the samples is taken; they
		 * go before the names (debug information) come in */
		free(p->v);
		p->v = NULL;
		p->cap = 0;
		free(p->open);
		p->open = NULL;
		p->nopen = p->opencap = 0;
		p->released = true;
	}
	rc = mp_finish_code(p, r, sym, ips, nips);
out:
	free(keys);
	mp_big_free(ips, ipsz); /* its rows own nothing (mp_finish_code) */
	return rc;
}
