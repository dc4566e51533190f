/* Advice per type (issue 29, pmuscope/types.h): from the profile's member
 * rows and the types' layouts (pahole-like, pms_typeres_layout):
 *   pad      a cache line whose members different threads write: each
 *            written member starts a line of its own (and the member after
 *            the last one too), the proposed layout with its padding;
 *   hot/cold the hot members (together 90% of the type's samples) touch
 *            more lines than they would fill: hot members first, those
 *            that different threads write on lines of their own (a
 *            group per writing thread, the only-read ones with the first:
 *            the advice never puts two threads' writes on one line), the
 *            cold ones after in groups by writing thread the same way;
 *   per-node a hot member mostly accessed remotely, from two nodes or more:
 *            one copy per node. */
#include <stdlib.h>
#include <string.h>

#include "pmuscope/types.h"
#include "types/typeprof_int.h"
#include "util/error.h"
#include "util/grow.h"

#define LINE 64u
#define HOT_SHARE 90      /* % of a type's samples the hot members cover */
#define PERNODE_MIN 4     /* samples with known nodes before a per-node call */
#define PERNODE_REMOTE 50 /* % remote */

struct field_heat {
	uint64_t samples, stores, hitm, remote, node_known, cpu_nodes;
	size_t writers;
	uint32_t *wtids; /* the threads that stored to it (its rows' together) */
	size_t nwtids, capw;
};

/* Whether two different threads write fields a and b (one thread writing
 * both, or either only read: no). */
static bool two_writers(const struct field_heat *a, const struct field_heat *b)
{
	for (size_t i = 0; i < a->nwtids; i++)
		for (size_t k = 0; k < b->nwtids; k++)
			if (a->wtids[i] != b->wtids[k])
				return true;
	return false;
}

static int heat_writers(struct field_heat *h, const uint32_t *tids, size_t n)
{
	for (size_t t = 0; t < n; t++) {
		bool have = false;
		for (size_t i = 0; i < h->nwtids && !have; i++)
			have = h->wtids[i] == tids[t];
		if (have)
			continue;
		if (pms_grow(&h->wtids, &h->capw, h->nwtids + 1, sizeof(*h->wtids), 4,
			     "types: advice threads") < 0)
			return PMS_ENOMEM;
		h->wtids[h->nwtids++] = tids[t];
	}
	return 0;
}

/* The top-level field of layout f holding offset off (n: none). */
static size_t field_of(const struct pms_type_field *f, size_t n, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		if (off >= f[i].offset && off < f[i].offset + (f[i].size ? f[i].size : 1))
			return i;
	return n;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* A field's alignment guessed from its size (the ABI's for scalars). */
static uint64_t natural(uint64_t size)
{
	uint64_t a = 1;
	while (a < size && a < 8)
		a *= 2;
	return a;
}

/* The layout of the fields in the order ord, each at its natural alignment,
 * those with start[i] at a line's start; holes recomputed; the size. */
static uint64_t lay_out(const struct pms_type_field *f, const size_t *ord, size_t n,
			const bool *start, struct pms_type_field *out)
{
	uint64_t off = 0;
	for (size_t k = 0; k < n; k++) {
		const struct pms_type_field *x = &f[ord[k]];
		off = align_up(off, start[ord[k]] ? LINE : natural(x->size));
		out[k] = *x;
		out[k].offset = off;
		out[k].hole = 0;
		if (k)
			out[k - 1].hole = off - (out[k - 1].offset + out[k - 1].size);
		off += x->size;
	}
	uint64_t size = align_up(off, 8);
	if (n)
		out[n - 1].hole = size - off;
	return size;
}

static uint64_t lines_of(const struct pms_type_field *f, size_t n, const bool *sel)
{
	uint64_t mask = 0, c = 0;
	for (size_t i = 0; i < n; i++)
		if (sel[i] && f[i].size)
			for (uint64_t l = f[i].offset / LINE; l <= (f[i].offset + f[i].size - 1) / LINE &&
							     l < 64; l++)
				mask |= 1ull << l;
	for (; mask; mask &= mask - 1)
		c++;
	return c;
}

struct adv_list {
	struct pms_type_advice *v;
	size_t n, cap;
};

static struct pms_type_advice *adv_push(struct adv_list *l, enum pms_type_advice_kind kind,
					const char *type)
{
	if (pms_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v), 8, "types: advice") < 0)
		return NULL;
	struct pms_type_advice *a = &l->v[l->n++];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->type = type;
	return a;
}

static int add_member(struct pms_type_advice *a, const char *name, const struct field_heat *h)
{
	size_t cap = a->n_members ? 4 : 0; /* what pms_grow gave: 4, 8, 16, ... */
	while (cap < a->n_members)
		cap *= 2;
	if (pms_grow(&a->members, &cap, a->n_members + 1, sizeof(*a->members), 4,
		     "types: advice members") < 0)
		return PMS_ENOMEM;
	a->members[a->n_members++] = name;
	a->samples += h->samples;
	a->stores += h->stores;
	a->hitm += h->hitm;
	a->remote += h->remote;
	a->node_known += h->node_known;
	a->cpu_nodes |= h->cpu_nodes;
	a->writer_threads = a->writer_threads > h->writers ? a->writer_threads : h->writers;
	return 0;
}

/* Pad: the written fields of flagged line `line` start lines of their own
 * (and the field after the last of them). */
static int advise_pad(struct adv_list *l, const char *type, const struct pms_typeprof_line *ln,
		      const struct pms_type_field *f, size_t n, const struct field_heat *heat,
		      size_t *ord, bool *sel)
{
	uint64_t line = ln->line;
	struct pms_type_advice *a = adv_push(l, PMS_TYPE_ADVICE_PAD, type);
	if (!a)
		return PMS_ENOMEM;
	a->line = line;
	bool *start = sel + n;
	memset(sel, 0, 2 * n * sizeof(*sel));
	for (size_t i = 0; i < n; i++) {
		ord[i] = i;
		if (heat[i].stores && f[i].offset / LINE == line) {
			sel[i] = start[i] = true;
			if (i + 1 < n)
				start[i + 1] = true;
			if (add_member(a, f[i].name, &heat[i]) < 0)
				return PMS_ENOMEM;
		}
	}
	a->writer_threads = ln->writer_threads;
	if (a->n_members < 2) {
		/* two threads write elements of one array member: no layout
		 * of the members separates them */
		a->elements = true;
		return 0;
	}
	if (!(a->layout = calloc(n, sizeof(*a->layout))))
		return pms_err(PMS_ENOMEM, "types: advice");
	a->n_layout = n;
	a->lines_before = lines_of(f, n, sel);
	a->size_after = lay_out(f, ord, n, start, a->layout);
	a->lines_after = lines_of(a->layout, n, sel);
	return 0;
}

/* Hot/cold: hot fields first (most sampled first), then the others in their
 * order grouped by writing thread, when that packs the hot ones into fewer
 * lines. */
static int advise_hotcold(struct adv_list *l, const char *type, const struct pms_type_field *f,
			  size_t n, const struct field_heat *heat, uint64_t total, size_t *ord,
			  bool *sel)
{
	bool *start = sel + n;
	memset(sel, 0, 2 * n * sizeof(*sel));
	/* the fields by samples, descending, until HOT_SHARE% */
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && heat[ord[k]].samples > heat[ord[k - 1]].samples; k--) {
			size_t t = ord[k];
			ord[k] = ord[k - 1];
			ord[k - 1] = t;
		}
	uint64_t cum = 0;
	size_t nhot = 0;
	while (nhot < n && heat[ord[nhot]].samples && cum * 100 < total * HOT_SHARE) {
		cum += heat[ord[nhot]].samples;
		sel[ord[nhot++]] = true;
	}
	if (!nhot || nhot == n)
		return 0;
	/* the hot in groups, each hot field (in heat order) in the first group
	 * with no field another thread writes; the groups in the order of
	 * their hottest, each after the first from a line's start */
	size_t *gid = calloc(2 * nhot, sizeof(*gid)), *hot = gid + nhot, ngroups = 0;
	if (!gid)
		return pms_err(PMS_ENOMEM, "types: advice");
	for (size_t h = 0; h < nhot; h++) {
		size_t g = 0;
		for (; g < ngroups; g++) {
			bool clash = false;
			for (size_t m = 0; m < h && !clash; m++)
				clash = gid[m] == g && two_writers(&heat[ord[h]], &heat[ord[m]]);
			if (!clash)
				break;
		}
		gid[h] = g;
		ngroups += g == ngroups;
	}
	size_t k = 0;
	for (size_t g = 0; g < ngroups; g++) {
		bool first = true;
		for (size_t h = 0; h < nhot; h++)
			if (gid[h] == g) {
				start[ord[h]] = g > 0 && first;
				first = false;
				hot[k++] = ord[h];
			}
	}
	memcpy(ord, hot, nhot * sizeof(*ord));
	/* the cold after, grouped the same way (each in declaration order in
	 * the first cold group with no field another thread writes): a group
	 * per writing thread, the only-read ones with the first; each group
	 * after the first from a line's start, and the first too when a field
	 * of it clashes with the last hot group (which may end on its line) */
	size_t ncold = n - nhot, *cgid = calloc(ncold ? 2 * ncold : 1, sizeof(*cgid));
	if (!cgid) {
		free(gid);
		return pms_err(PMS_ENOMEM, "types: advice");
	}
	size_t *cold = cgid + ncold, nc = 0, ncg = 0;
	for (size_t i = 0; i < n; i++)
		if (!sel[i])
			cold[nc++] = i;
	for (size_t c = 0; c < ncold; c++) {
		size_t g = 0;
		for (; g < ncg; g++) {
			bool clash = false;
			for (size_t m = 0; m < c && !clash; m++)
				clash = cgid[m] == g && two_writers(&heat[cold[c]], &heat[cold[m]]);
			if (!clash)
				break;
		}
		cgid[c] = g;
		ncg += g == ncg;
	}
	/* the last hot group: the end of the hot ones */
	size_t lastn = 0;
	for (size_t h = 0; h < nhot; h++)
		lastn += gid[h] == ngroups - 1;
	bool clash0 = false;
	for (size_t c = 0; c < ncold && !clash0; c++)
		for (size_t h = nhot - lastn; h < nhot && cgid[c] == 0 && !clash0; h++)
			clash0 = two_writers(&heat[cold[c]], &heat[ord[h]]);
	for (size_t g = 0; g < ncg; g++) {
		bool first = true;
		for (size_t c = 0; c < ncold; c++)
			if (cgid[c] == g) {
				start[cold[c]] = first && (g > 0 || clash0);
				first = false;
				ord[k++] = cold[c];
			}
	}
	free(cgid);
	free(gid);
	struct pms_type_field *lay = calloc(n, sizeof(*lay));
	if (!lay)
		return pms_err(PMS_ENOMEM, "types: advice");
	uint64_t size = lay_out(f, ord, n, start, lay);
	uint64_t before = lines_of(f, n, sel);
	bool *hot_after = start; /* reuse: hot flags in the new order */
	for (size_t i = 0; i < n; i++)
		hot_after[i] = i < nhot;
	uint64_t after = lines_of(lay, n, hot_after);
	if (after >= before) {
		free(lay);
		return 0;
	}
	struct pms_type_advice *a = adv_push(l, PMS_TYPE_ADVICE_HOTCOLD, type);
	if (!a) {
		free(lay);
		return PMS_ENOMEM;
	}
	a->layout = lay;
	a->n_layout = n;
	a->size_after = size;
	a->lines_before = before;
	a->lines_after = after;
	for (size_t i = 0; i < nhot; i++)
		if (add_member(a, f[ord[i]].name, &heat[ord[i]]) < 0)
			return PMS_ENOMEM;
	return 0;
}

static int advise_pernode(struct adv_list *l, const char *type, const struct pms_type_field *f,
			  size_t n, const struct field_heat *heat, uint64_t total)
{
	struct pms_type_advice *a = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct field_heat *h = &heat[i];
		bool spread = h->cpu_nodes & (h->cpu_nodes - 1);
		if (h->samples * 10 < total || h->node_known < PERNODE_MIN || !spread ||
		    h->remote * 100 < h->node_known * PERNODE_REMOTE)
			continue;
		if (!a && !(a = adv_push(l, PMS_TYPE_ADVICE_PERNODE, type)))
			return PMS_ENOMEM;
		if (add_member(a, f[i].name, h) < 0)
			return PMS_ENOMEM;
	}
	return 0;
}

/* The advice for one type: its rows' heat per top-level field. */
static int advise_type(struct pms_typeprof *p, const struct pms_typeprof_result *r,
		       const char *type, struct adv_list *l)
{
	struct pms_type_field *f;
	size_t n;
	if (pms_typeres_layout(pms_typeprof_resolver(p), type, &f, &n) < 0 || !n)
		return 0; /* no layout (not a struct): nothing to say */
	struct field_heat *heat = calloc(n, sizeof(*heat));
	size_t *ord = calloc(n, sizeof(*ord));
	bool *sel = calloc(2 * n, sizeof(*sel));
	int rc = heat && ord && sel ? 0 : pms_err(PMS_ENOMEM, "types: advice");
	uint64_t total = 0;
	for (size_t i = 0; rc == 0 && i < r->n_rows; i++) {
		const struct pms_typeprof_row *w = &r->rows[i];
		size_t k = w->type == type ? field_of(f, n, w->member_offset) : n;
		if (k == n)
			continue;
		heat[k].samples += w->samples;
		heat[k].stores += w->stores;
		heat[k].hitm += w->hitm;
		heat[k].remote += w->remote;
		heat[k].node_known += w->node_known;
		heat[k].cpu_nodes |= w->cpu_nodes;
		if (w->writer_threads > heat[k].writers)
			heat[k].writers = w->writer_threads;
		const uint32_t *tids;
		size_t ntids;
		ty_prof_writers(p, w->type, w->member, &tids, &ntids);
		rc = heat_writers(&heat[k], tids, ntids);
		total += w->samples;
	}
	for (size_t i = 0; rc == 0 && i < r->n_lines; i++)
		if (r->lines[i].type == type && r->lines[i].false_sharing)
			rc = advise_pad(l, type, &r->lines[i], f, n, heat, ord, sel);
	if (rc == 0 && total)
		rc = advise_hotcold(l, type, f, n, heat, total, ord, sel);
	if (rc == 0 && total)
		rc = advise_pernode(l, type, f, n, heat, total);
	for (size_t i = 0; heat && i < n; i++)
		free(heat[i].wtids);
	free(heat);
	free(ord);
	free(sel);
	free(f);
	return rc;
}

int pms_typeprof_advise(struct pms_typeprof *p, struct pms_type_advice **out, size_t *n)
{
	struct pms_typeprof_result r;
	struct adv_list l = { 0 };
	*out = NULL;
	*n = 0;
	int rc = pms_typeprof_result(p, &r);
	/* each type once, in the rows' order (most sampled first) */
	for (size_t i = 0; rc == 0 && i < r.n_rows; i++) {
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = r.rows[k].type == r.rows[i].type;
		if (!seen)
			rc = advise_type(p, &r, r.rows[i].type, &l);
	}
	if (rc < 0) {
		pms_type_advice_free(l.v, l.n);
		return rc;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

void pms_type_advice_free(struct pms_type_advice *a, size_t n)
{
	for (size_t i = 0; a && i < n; i++) {
		free(a[i].members);
		free(a[i].layout);
	}
	free(a);
}
