/* The code scopes of a DWARF unit by address (scopeidx.h). */
#include <dwarf.h>
#include <stdlib.h>

#include "symbols/scopeidx.h"
#include "util/error.h"

/* Ranges of one DIE's children, gathered while its subtree is walked. */
struct kids {
	struct pms_scopeiv *v;
	size_t n, cap;
};

struct build {
	struct pms_scopeidx *x;
	size_t caps, capiv;
	size_t capseen;
	bool full; /* the whole walk (origins), not only the address walk's */
	bool nomem;
};

/* libdw_visit_scopes.c: the tags whose children its walks visit. */
static bool may_own(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return true;
	default:
		return false;
	}
}

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t nc = *cap ? 2 * *cap : 64;
	while (nc < need)
		nc *= 2;
	void *n = realloc(*p, nc * size);
	if (!n)
		return false;
	*p = n;
	*cap = nc;
	return true;
}

static uint32_t add_scope(struct build *b, Dwarf_Die *d, int tag, uint32_t parent)
{
	struct pms_scopeidx *x = b->x;
	if (x->ns >= PMS_SCOPE_NONE - 1 ||
	    !grow((void **)&x->s, &b->caps, x->ns + 1, sizeof(*x->s))) {
		b->nomem = true;
		return PMS_SCOPE_NONE;
	}
	x->s[x->ns] = (struct pms_scope){ .die = *d, .parent = parent, .tag = tag };
	return (uint32_t)x->ns++;
}

static int iv_cmp(const void *a, const void *b)
{
	const struct pms_scopeiv *p = a, *q = b;
	if (p->lo != q->lo)
		return p->lo < q->lo ? -1 : 1;
	return p->scope < q->scope ? -1 : p->scope > q->scope;
}

/* k's ranges, sorted by start, appended to the index: [*first, +*n). */
static void flush(struct build *b, struct kids *k, uint32_t *first, uint32_t *n)
{
	struct pms_scopeidx *x = b->x;
	*first = (uint32_t)x->niv;
	*n = 0;
	if (k->n && !grow((void **)&x->iv, &b->capiv, x->niv + k->n, sizeof(*x->iv)))
		b->nomem = true;
	if (k->n && !b->nomem) {
		bool sorted = true; /* mostly: DIE order is address order */
		for (size_t i = 1; i < k->n && sorted; i++)
			sorted = iv_cmp(&k->v[i - 1], &k->v[i]) < 0;
		if (!sorted)
			qsort(k->v, k->n, sizeof(*k->v), iv_cmp);
		uint64_t m = 0;
		for (size_t i = 0; i < k->n; i++) {
			m = k->v[i].hi > m ? k->v[i].hi : m;
			k->v[i].maxhi = m;
			x->iv[x->niv++] = k->v[i];
		}
		*n = (uint32_t)k->n;
	}
	free(k->v);
	*k = (struct kids){ 0 };
}

/* The children of parent as libdw's walks visit them.  k non-NULL: parent
 * is the unit or a scope (ps) that libdw's address walk may descend into:
 * its children's ranges go to k. */
static void walk(struct build *b, Dwarf_Die *parent, uint32_t ps, struct kids *k, int imports)
{
	Dwarf_Die c;
	if (b->nomem || dwarf_child(parent, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_imported_unit) {
			/* its children as if they were parent's; gcc -flto's
			 * imported compile units are skipped, as libdw does */
			Dwarf_Attribute a;
			Dwarf_Die u;
			if (imports < 16 && dwarf_formref_die(dwarf_attr(&c, DW_AT_import, &a), &u) &&
			    dwarf_tag(&u) != DW_TAG_compile_unit)
				walk(b, &u, ps, k, imports + 1);
			continue;
		}
		struct pms_scopeidx *x = b->x;
		if (!grow((void **)&x->seen, &b->capseen, x->nseen + 1, sizeof(*x->seen))) {
			b->nomem = true;
			return;
		}
		x->seen[x->nseen++] = (uintptr_t)c.addr;
		uint32_t me = PMS_SCOPE_NONE;
		/* dwarf_ranges gives none without one of these (the abbreviation
		 * says, the DIE is not read) */
		if (k && (dwarf_hasattr(&c, DW_AT_high_pc) || dwarf_hasattr(&c, DW_AT_ranges))) {
			ptrdiff_t it = 0;
			Dwarf_Addr base, lo, hi;
			while ((it = dwarf_ranges(&c, it, &base, &lo, &hi)) > 0) {
				if (lo >= hi)
					continue;
				if (me == PMS_SCOPE_NONE &&
				    (me = add_scope(b, &c, tag, ps)) == PMS_SCOPE_NONE)
					return;
				if (!grow((void **)&k->v, &k->cap, k->n + 1, sizeof(*k->v))) {
					b->nomem = true;
					return;
				}
				k->v[k->n++] = (struct pms_scopeiv){ lo, hi, 0, me };
			}
		}
		if (!may_own(tag) || dwarf_haschildren(&c) <= 0)
			continue;
		if (me == PMS_SCOPE_NONE) {
			if (b->full)
				walk(b, &c, PMS_SCOPE_NONE, NULL, imports);
		} else {
			struct kids mk = { 0 };
			uint32_t first, n;
			walk(b, &c, me, &mk, imports);
			flush(b, &mk, &first, &n);
			b->x->s[me].kids = first;
			b->x->s[me].nkids = n;
		}
		if (b->nomem)
			return;
	} while (dwarf_siblingof(&c, &c) == 0);
}

static int ptr_cmp(const void *a, const void *b)
{
	uintptr_t p = *(const uintptr_t *)a, q = *(const uintptr_t *)b;
	return p < q ? -1 : p > q;
}

static void seen_sort(struct pms_scopeidx *x)
{
	for (size_t i = 1; i < x->nseen; i++)
		if (x->seen[i - 1] >= x->seen[i]) { /* an imported unit's */
			qsort(x->seen, x->nseen, sizeof(*x->seen), ptr_cmp);
			return;
		}
}

/* Whether libdw's second walk meets the abstract origin of inlined
 * instance s (dwarf_getscopes answers nothing otherwise).  The DIEs the
 * address walk visited are known from the build; most origins (a
 * function's abstract instance, a child of the unit) are among them; for
 * another the unit is walked whole, once. */
static bool origin_found(struct pms_scopeidx *x, struct pms_scope *s)
{
	Dwarf_Attribute a;
	Dwarf_Die o;
	if (s->origin)
		return s->origin == 1;
	s->origin = 2;
	if (!dwarf_formref_die(dwarf_attr(&s->die, DW_AT_abstract_origin, &a), &o))
		return false;
	uintptr_t key = (uintptr_t)o.addr;
	if (!bsearch(&key, x->seen, x->nseen, sizeof(key), ptr_cmp) && !x->full) {
		/* the whole walk: scopes are not made again, only DIEs seen */
		struct build b = { .x = x, .capseen = x->nseen, .full = true };
		size_t ns = x->ns;
		x->nseen = 0;
		x->full = true;
		walk(&b, &x->cu, PMS_SCOPE_NONE, NULL, 0);
		x->ns = ns;
		seen_sort(x);
		if (b.nomem)
			x->nseen = 0; /* no memory: answers none */
	}
	if (bsearch(&key, x->seen, x->nseen, sizeof(key), ptr_cmp))
		s->origin = 1;
	return s->origin == 1;
}

int pms_scopeidx_build(Dwarf_Die *cu, struct pms_scopeidx **out)
{
	struct pms_scopeidx *x = calloc(1, sizeof(*x));
	*out = NULL;
	if (!x)
		return pms_err(PMS_ENOMEM, "inline frames: out of memory");
	struct build b = { .x = x };
	struct kids top = { 0 };
	x->cu = *cu;
	walk(&b, cu, PMS_SCOPE_NONE, &top, 0);
	flush(&b, &top, &x->top, &x->ntop);
	if (!b.nomem)
		seen_sort(x);
	if (b.nomem) {
		pms_scopeidx_free(x);
		return pms_err(PMS_ENOMEM, "inline frames: out of memory");
	}
	*out = x;
	return 0;
}

void pms_scopeidx_free(struct pms_scopeidx *x)
{
	if (!x)
		return;
	free(x->s);
	free(x->iv);
	free(x->seen);
	free(x);
}

/* Of the ranges iv[0, n) (sorted by start), the first scope in DIE order
 * holding a. */
static uint32_t first_holding(const struct pms_scopeiv *iv, uint32_t n, uint64_t a)
{
	uint32_t lo = 0, hi = n, best = PMS_SCOPE_NONE;
	while (lo < hi) { /* the first range starting above a */
		uint32_t mid = lo + (hi - lo) / 2;
		if (iv[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t j = lo; j-- > 0 && iv[j].maxhi > a;)
		if (a < iv[j].hi && iv[j].scope < best)
			best = iv[j].scope;
	return best;
}

uint32_t pms_scopeidx_innermost(const struct pms_scopeidx *x, uint64_t a)
{
	uint32_t in = PMS_SCOPE_NONE, first = x->top, n = x->ntop, at;
	while (n && (at = first_holding(x->iv + first, n, a)) != PMS_SCOPE_NONE) {
		in = at;
		first = x->s[at].kids;
		n = x->s[at].nkids;
	}
	return in;
}

uint32_t pms_scopeidx_func(struct pms_scopeidx *x, uint64_t a)
{
	uint32_t fn = PMS_SCOPE_NONE, inl = PMS_SCOPE_NONE;
	for (uint32_t at = pms_scopeidx_innermost(x, a); at != PMS_SCOPE_NONE; at = x->s[at].parent) {
		const struct pms_scope *s = &x->s[at];
		if (fn == PMS_SCOPE_NONE &&
		    (s->tag == DW_TAG_subprogram || s->tag == DW_TAG_inlined_subroutine))
			fn = at;
		if (s->tag == DW_TAG_inlined_subroutine) {
			inl = at; /* the deepest: the first met going out */
			break;
		}
	}
	if (inl != PMS_SCOPE_NONE && !origin_found(x, &x->s[inl]))
		return PMS_SCOPE_NONE;
	return fn;
}
