/* The DWARF scopes at a pc, as dwarf_getscopes() returns them, answered
 * from a per-binary index instead of a walk from the CU's root each time
 * (issue 29: that walk, repeated for every instruction the resolver asks
 * about, was most of the cost of `report --types`).
 *
 * dwarf_getscopes(cu, pc) visits the CU's children in order, descends into
 * the first one whose ranges hold pc (every other DIE is pruned), and so on
 * down; the result is the chain innermost first, ending with the CU.  When
 * the chain holds an inlined subroutine, it ends at the deepest one and goes
 * on with the scopes that hold its abstract origin (the origin excluded).
 * Here: the CUs' ranges (when .debug_aranges does not answer) and each CU's
 * children's ranges are indexed once, the CU's lazily on its first pc; the
 * descent below the CU's child is the same walk libdw does; the origin's
 * chain (dwarf_getscopes_die, a walk of the origin's CU) is remembered per
 * origin.  A CU that imports partial units (DW_TAG_imported_unit), or a
 * chain deeper than TY_SCOPE_DEPTH, is answered by dwarf_getscopes itself. */
#include <dwarf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/cuidx.h"
#include "types/typeres_int.h"

#define TY_SCOPE_DEPTH 64

/* One DIE's address ranges, in an array sorted by lo whose maxhi is the
 * largest hi up to and including the entry: the first (lowest order) DIE
 * holding pc is found by scanning back from the last lo <= pc while
 * maxhi > pc. */
struct ty_rng {
	uint64_t lo, hi, maxhi;
	uint32_t order;    /* the DIE's place among its siblings */
	Dwarf_Off off;     /* the DIE */
};

struct ty_cuix {
	Dwarf_Off off;     /* the CU DIE */
	bool built, fallback;
	struct ty_rng *rng;
	size_t nrng;
	Dwarf_Off *kids;   /* all its children, in order (so by offset) */
	size_t nkids, capkids;
};

/* The scopes below one child of a CU that hold a pc somewhere: node 0 is
 * the child; a node's children (first, next: indexes, -1 none) are, in
 * sibling order, those of its children that have ranges (the others never
 * hold a pc, and the walk never goes below them). */
struct ty_snode {
	Dwarf_Die die;
	int first, next;
	uint32_t r0, nr;   /* its ranges in the tree's rng */
};

struct ty_stree {
	Dwarf_Off off;     /* ty_pc_slot's key: the CU child; ~0 empty */
	bool fallback;     /* it imports a unit: dwarf_getscopes answers */
	struct ty_snode *n;
	size_t nn, capn;
	uint64_t (*rng)[2];
	size_t nrng, caprng;
};

/* A CU as dwarf_getscopes_die walks it: every DIE it visits (by offset,
 * the walk's order) with its parent, an index in par, the DIEs it
 * descends into. */
struct ty_dpar {
	Dwarf_Off off;
	int parent;
};

struct ty_pnode {
	Dwarf_Die die;
	int parent;        /* -1: the CU */
};

struct ty_cupar {
	Dwarf_Off off;     /* ty_pc_slot's key: the CU DIE; ~0 empty */
	bool fallback;
	Dwarf_Die cu;
	struct ty_dpar *d;
	size_t nd, capd;
	struct ty_pnode *p;
	size_t np, capp;
};

/* A scope's variables and parameters (its children of those tags), in
 * order: scan_scopes asks the same scopes (the CU's above all) for every
 * instruction. */
struct ty_svars {
	Dwarf_Off off;     /* ty_pc_slot's key: the scope; ~0 empty */
	struct ty_var *v;
	size_t n;
};

struct ty_scopeix {
	struct ty_cuix *cus;   /* by CU DIE offset */
	size_t ncus;
	struct pms_cuidx cux;  /* the CUs by their own ranges (symbols/cuidx.h) */
	struct ty_stree *trees;   /* by CU child */
	size_t ntrees, captrees;
	struct ty_cupar *pars;    /* by CU */
	size_t npars, cappars;
	struct ty_svars *vars;    /* by scope */
	size_t nvars, capvars;
};

_Static_assert(offsetof(struct ty_stree, off) == 0, "ty_pc_slot: key first");
_Static_assert(offsetof(struct ty_cupar, off) == 0, "ty_pc_slot: key first");
_Static_assert(offsetof(struct ty_svars, off) == 0, "ty_pc_slot: key first");

/* Make room for one more element in *v (grown by doubling from 16). */
static bool more(void *v, size_t n, size_t *cap, size_t sz)
{
	if (n < *cap)
		return true;
	size_t nc = *cap ? *cap * 2 : 16;
	void *nv = realloc(*(void **)v, nc * sz);
	if (!nv)
		return false;
	*(void **)v = nv;
	*cap = nc;
	return true;
}

static int rng_cmp(const void *a, const void *b)
{
	const struct ty_rng *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Append die's ranges (as dwarf_haspc reads them) to *v. */
static int add_ranges(Dwarf_Die *die, uint32_t order, struct ty_rng **v, size_t *n, size_t *cap)
{
	Dwarf_Addr base, s, e;
	ptrdiff_t o = 0;
	while ((o = dwarf_ranges(die, o, &base, &s, &e)) > 0) {
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			struct ty_rng *nv = realloc(*v, nc * sizeof(*nv));
			if (!nv)
				return -1;
			*v = nv;
			*cap = nc;
		}
		(*v)[(*n)++] = (struct ty_rng){ s, e, 0, order, dwarf_dieoffset(die) };
	}
	return 0;
}

static void rng_finish(struct ty_rng *v, size_t n)
{
	qsort(v, n, sizeof(*v), rng_cmp);
	uint64_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].hi > m)
			m = v[i].hi;
		v[i].maxhi = m;
	}
}

/* The lowest-order entry holding pc, NULL when none does. */
static const struct ty_rng *rng_find(const struct ty_rng *v, size_t n, uint64_t pc)
{
	size_t lo = 0, hi = n;
	while (lo < hi) { /* first entry with lo > pc */
		size_t mid = (lo + hi) / 2;
		if (v[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct ty_rng *best = NULL;
	for (size_t j = lo; j-- > 0 && v[j].maxhi > pc;)
		if (pc < v[j].hi && (!best || v[j].order < best->order))
			best = &v[j];
	return best;
}

static int cuix_cmp(const void *key, const void *el)
{
	Dwarf_Off k = *(const Dwarf_Off *)key, o = ((const struct ty_cuix *)el)->off;
	return k < o ? -1 : k > o;
}

/* The CUs, once per binary: their DIE offsets. */
static int index_cus(struct ty_bin *b)
{
	struct ty_scopeix *x = calloc(1, sizeof(*x));
	if (!x)
		return -1;
	b->scopes = x;
	size_t cap = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(b->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(b->dw, off + hsize, &cu)) {
			if (x->ncus == cap) {
				size_t nc = cap ? cap * 2 : 64;
				struct ty_cuix *nv = realloc(x->cus, nc * sizeof(*nv));
				if (!nv)
					return -1;
				x->cus = nv;
				cap = nc;
			}
			x->cus[x->ncus++] = (struct ty_cuix){ .off = off + hsize };
		}
		off = next;
	}
	return 0;
}

/* A CU's children's ranges, on the CU's first pc. */
static int index_cu(struct ty_cuix *c, Dwarf_Die *cu)
{
	c->built = true;
	size_t cap = 0;
	uint32_t k = 0;
	Dwarf_Die ch;
	if (dwarf_child(cu, &ch) != 0)
		return 0;
	do {
		if (dwarf_tag(&ch) == DW_TAG_imported_unit) {
			c->fallback = true;
			return 0;
		}
		if (add_ranges(&ch, k++, &c->rng, &c->nrng, &cap) < 0 ||
		    !more(&c->kids, c->nkids, &c->capkids, sizeof(*c->kids)))
			return -1;
		c->kids[c->nkids++] = dwarf_dieoffset(&ch);
	} while (dwarf_siblingof(&ch, &ch) == 0);
	rng_finish(c->rng, c->nrng);
	return 0;
}

/* The CU covering pc: .debug_aranges, else the first CU whose ranges hold
 * it (clang writes no aranges; the units' index, symbols/cuidx.h).  -1:
 * none; 0: *cu, with *ix its index (NULL for a unit that dwarf_nextcu does
 * not list). */
static int cu_at(struct ty_bin *b, uint64_t pc, Dwarf_Die *cu, struct ty_cuix **ix)
{
	*ix = NULL;
	if (!b->scopes && index_cus(b) < 0)
		return -1;
	struct ty_scopeix *x = b->scopes;
	if (!dwarf_addrdie(b->dw, pc, cu) && pms_cuidx_find(&x->cux, b->dw, pc, cu) <= 0)
		return -1;
	Dwarf_Off off = dwarf_dieoffset(cu);
	*ix = bsearch(&off, x->cus, x->ncus, sizeof(*x->cus), cuix_cmp);
	return 0;
}

static bool may_have_scopes(Dwarf_Die *die)
{
	switch (dwarf_tag(die)) {
	case DW_TAG_compile_unit: case DW_TAG_module: case DW_TAG_lexical_block:
	case DW_TAG_with_stmt: case DW_TAG_catch_block: case DW_TAG_try_block:
	case DW_TAG_entry_point: case DW_TAG_inlined_subroutine: case DW_TAG_subprogram:
	case DW_TAG_namespace: case DW_TAG_class_type: case DW_TAG_structure_type:
		return true;
	default:
		return false;
	}
}

/* The children of node k of t that have ranges, and theirs. */
static int tree_add(struct ty_stree *t, int k, int depth)
{
	Dwarf_Die c;
	if (!may_have_scopes(&t->n[k].die) || dwarf_haschildren(&t->n[k].die) <= 0 ||
	    dwarf_child(&t->n[k].die, &c) != 0)
		return 0;
	if (depth >= TY_SCOPE_DEPTH) {
		t->fallback = true;
		return 0;
	}
	int prev = -1;
	do {
		if (dwarf_tag(&c) == DW_TAG_imported_unit) {
			t->fallback = true;
			return 0;
		}
		size_t r0 = t->nrng;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t o = 0;
		/* dwarf_ranges reads a DIE's own high_pc / ranges (only a CU
		 * inherits them): most children (variables, types) have none */
		if (!dwarf_hasattr(&c, DW_AT_high_pc) && !dwarf_hasattr(&c, DW_AT_ranges))
			continue;
		while ((o = dwarf_ranges(&c, o, &base, &lo, &hi)) > 0) {
			if (!more(&t->rng, t->nrng, &t->caprng, sizeof(*t->rng)))
				return -1;
			t->rng[t->nrng][0] = lo;
			t->rng[t->nrng++][1] = hi;
		}
		if (t->nrng == r0)
			continue;
		if (!more(&t->n, t->nn, &t->capn, sizeof(*t->n)))
			return -1;
		int j = (int)t->nn++;
		t->n[j] = (struct ty_snode){ c, -1, -1, (uint32_t)r0, (uint32_t)(t->nrng - r0) };
		if (prev < 0)
			t->n[k].first = j;
		else
			t->n[prev].next = j;
		prev = j;
		if (tree_add(t, j, depth + 1) < 0)
			return -1;
	} while (!t->fallback && dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* The tree below the CU child at off, built on its first pc. */
static struct ty_stree *tree_of(struct ty_bin *b, Dwarf_Off off)
{
	struct ty_scopeix *x = b->scopes;
	void *tab = x->trees;
	struct ty_stree *t = ty_pc_slot(&tab, &x->ntrees, &x->captrees, sizeof(*t), 64, off);
	x->trees = tab;
	if (!t || t->off == off)
		return t;
	*t = (struct ty_stree){ .off = off };
	x->ntrees++;
	if (!more(&t->n, 0, &t->capn, sizeof(*t->n)) ||
	    !dwarf_offdie(b->dw, off, &t->n[0].die))
		return NULL;
	t->n[0].first = t->n[0].next = -1;
	t->nn = 1;
	return tree_add(t, 0, 2) < 0 ? NULL : t;
}

static bool node_has(const struct ty_stree *t, const struct ty_snode *n, uint64_t pc)
{
	for (uint32_t i = 0; i < n->nr; i++)
		if (pc >= t->rng[n->r0 + i][0] && pc < t->rng[n->r0 + i][1])
			return true;
	return false;
}

/* A CU's DIEs as dwarf_getscopes_die visits them, once per CU. */
static int par_add(struct ty_cupar *c, Dwarf_Die *die, int parent, int depth)
{
	Dwarf_Die ch;
	if (dwarf_child(die, &ch) != 0)
		return 0;
	do {
		Dwarf_Off off = dwarf_dieoffset(&ch);
		if (dwarf_tag(&ch) == DW_TAG_imported_unit || depth >= TY_SCOPE_DEPTH ||
		    (c->nd && off <= c->d[c->nd - 1].off)) {
			c->fallback = true;
			return 0;
		}
		if (!more(&c->d, c->nd, &c->capd, sizeof(*c->d)))
			return -1;
		c->d[c->nd++] = (struct ty_dpar){ off, parent };
		if (may_have_scopes(&ch) && dwarf_haschildren(&ch) > 0) {
			if (!more(&c->p, c->np, &c->capp, sizeof(*c->p)))
				return -1;
			c->p[c->np] = (struct ty_pnode){ ch, parent };
			if (par_add(c, &ch, (int)c->np++, depth + 1) < 0)
				return -1;
		}
	} while (!c->fallback && dwarf_siblingof(&ch, &ch) == 0);
	return 0;
}

static int off_cmp(const void *key, const void *el)
{
	Dwarf_Off k = *(const Dwarf_Off *)key, o = *(const Dwarf_Off *)el;
	return k < o ? -1 : k > o;
}

static int dpar_cmp(const void *key, const void *el)
{
	Dwarf_Off k = *(const Dwarf_Off *)key, o = ((const struct ty_dpar *)el)->off;
	return k < o ? -1 : k > o;
}

/* The scopes holding the abstract origin (dwarf_getscopes_die of it less
 * the origin itself): appended to s from index at; the count, 0 when the
 * walk does not reach it, -1 on error or where libdw must answer (-2). */
static int origin_tail(struct ty_bin *b, Dwarf_Die *origin, Dwarf_Die *s, int at, int max)
{
	struct ty_scopeix *x = b->scopes;
	Dwarf_Die cu;
	if (!dwarf_diecu(origin, &cu, NULL, NULL))
		return -1;
	Dwarf_Off cuoff = dwarf_dieoffset(&cu), off = dwarf_dieoffset(origin);
	if (at >= max)
		return -2;
	/* the usual case: the origin is a child of its CU */
	struct ty_cuix *ci = bsearch(&cuoff, x->cus, x->ncus, sizeof(*x->cus), cuix_cmp);
	if (ci && (ci->built || index_cu(ci, &cu) == 0) && !ci->fallback &&
	    bsearch(&off, ci->kids, ci->nkids, sizeof(*ci->kids), off_cmp)) {
		s[at] = cu;
		return 1;
	}
	void *tab = x->pars;
	struct ty_cupar *c = ty_pc_slot(&tab, &x->npars, &x->cappars, sizeof(*c), 64, cuoff);
	x->pars = tab;
	if (!c)
		return -1;
	if (c->off != cuoff) {
		*c = (struct ty_cupar){ .off = cuoff, .cu = cu };
		x->npars++;
		if (par_add(c, &cu, -1, 2) < 0)
			return -1;
	}
	if (c->fallback)
		return -2;
	const struct ty_dpar *d = bsearch(&off, c->d, c->nd, sizeof(*c->d), dpar_cmp);
	if (!d)
		return 0;
	int n = 0;
	for (int p = d->parent; p >= 0; p = c->p[p].parent) {
		if (at + n >= max)
			return -2;
		s[at + n++] = c->p[p].die;
	}
	if (at + n >= max)
		return -2;
	s[at + n++] = c->cu;
	return n;
}

static int libdw_scopes(Dwarf_Die *cu, uint64_t pc, Dwarf_Die **scopes)
{
	*scopes = NULL;
	int n = dwarf_getscopes(cu, pc, scopes);
	if (n <= 0) {
		free(*scopes);
		*scopes = NULL;
	}
	return n;
}

/* ty_scopes and ty_scopes_concrete: concrete leaves the origin's chain out
 * and gives the DIEs the descent went through, the CU last. */
static int scopes_at(struct ty_bin *b, uint64_t pc, Dwarf_Die **scopes, bool concrete)
{
	*scopes = NULL;
	Dwarf_Die chain[TY_SCOPE_DEPTH], tail[TY_SCOPE_DEPTH];
	struct ty_cuix *c;
	if (cu_at(b, pc, &chain[0], &c) < 0)
		return -1;
	if (c && !c->built && index_cu(c, &chain[0]) < 0)
		return -1;
	if (!c || c->fallback)
		return libdw_scopes(&chain[0], pc, scopes);
	const struct ty_rng *r = rng_find(c->rng, c->nrng, pc);
	if (!r)
		return 0;
	struct ty_stree *t = tree_of(b, r->off);
	if (!t)
		return -1;
	if (t->fallback)
		return libdw_scopes(&chain[0], pc, scopes);
	/* down from the CU's child: the first child holding pc, as libdw */
	int d = 1, inl = 0;
	for (int k = 0; k >= 0;) {
		chain[d] = t->n[k].die;
		if (dwarf_tag(&chain[d]) == DW_TAG_inlined_subroutine)
			inl = d;
		int j = t->n[k].first;
		while (j >= 0 && !node_has(t, &t->n[j], pc))
			j = t->n[j].next;
		if (j >= 0 && ++d >= TY_SCOPE_DEPTH)
			return libdw_scopes(&chain[0], pc, scopes);
		k = j;
	}
	if (concrete)
		inl = 0;
	int ntail = 0;
	if (inl > 0) {
		Dwarf_Attribute a;
		Dwarf_Die origin;
		if (!dwarf_formref_die(dwarf_attr(&chain[inl], DW_AT_abstract_origin, &a), &origin))
			return -1;
		ntail = origin_tail(b, &origin, tail, 0, TY_SCOPE_DEPTH);
		if (ntail == -2)
			return libdw_scopes(&chain[0], pc, scopes);
		if (ntail <= 0)
			return ntail;
	}
	int n = d + 1 - inl + ntail;
	Dwarf_Die *s = malloc((size_t)n * sizeof(*s));
	if (!s)
		return -1;
	for (int i = 0; i <= d - inl; i++)
		s[i] = chain[d - i];
	if (ntail)
		memcpy(s + (d + 1 - inl), tail, (size_t)ntail * sizeof(*s));
	*scopes = s;
	return n;
}

int ty_scopes(struct ty_bin *b, uint64_t pc, Dwarf_Die **scopes)
{
	return scopes_at(b, pc, scopes, false);
}

int ty_scopes_concrete(struct ty_bin *b, uint64_t pc, Dwarf_Die **scopes)
{
	return scopes_at(b, pc, scopes, true);
}

int ty_scope_vars(struct ty_bin *b, Dwarf_Die *scope, struct ty_var **vars)
{
	*vars = NULL;
	struct ty_scopeix *x = b->scopes;
	if (!x)
		return -1;
	Dwarf_Off off = dwarf_dieoffset(scope);
	void *tab = x->vars;
	struct ty_svars *e = ty_pc_slot(&tab, &x->nvars, &x->capvars, sizeof(*e), 256, off);
	x->vars = tab;
	if (!e)
		return -1;
	if (e->off != off) {
		struct ty_svars nv = { .off = off };
		size_t cap = 0;
		Dwarf_Die c;
		if (dwarf_child(scope, &c) == 0)
			do {
				int tag = dwarf_tag(&c);
				if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter)
					continue;
				if (!more(&nv.v, nv.n, &cap, sizeof(*nv.v))) {
					free(nv.v);
					return -1;
				}
				nv.v[nv.n++] = (struct ty_var){ .die = c };
			} while (dwarf_siblingof(&c, &c) == 0);
		/* to its size: most scopes hold a few variables, not the 16
		 * the growth starts at (the rest stays free for the next) */
		if (nv.n && nv.n < cap) {
			struct ty_var *sv = realloc(nv.v, nv.n * sizeof(*nv.v));
			if (sv)
				nv.v = sv;
		}
		*e = nv;
		x->nvars++;
	}
	*vars = e->v;
	return (int)e->n;
}

void ty_scopes_free(struct ty_bin *b)
{
	struct ty_scopeix *x = b->scopes;
	if (!x)
		return;
	for (size_t i = 0; i < x->ncus; i++) {
		free(x->cus[i].rng);
		free(x->cus[i].kids);
	}
	for (size_t i = 0; i < x->captrees; i++)
		if (x->trees[i].off != ~0ull) {
			free(x->trees[i].n);
			free(x->trees[i].rng);
		}
	for (size_t i = 0; i < x->cappars; i++)
		if (x->pars[i].off != ~0ull) {
			free(x->pars[i].d);
			free(x->pars[i].p);
		}
	free(x->cus);
	pms_cuidx_free(&x->cux);
	for (size_t i = 0; i < x->capvars; i++)
		if (x->vars[i].off != ~0ull) {
			for (size_t k = 0; k < x->vars[i].n; k++)
				free(x->vars[i].v[k].lr);
			free(x->vars[i].v);
		}
	free(x->trees);
	free(x->pars);
	free(x->vars);
	free(x);
	b->scopes = NULL;
}
