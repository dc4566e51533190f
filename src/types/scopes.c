/* The DWARF scopes at a pc for the type resolution, from the per-unit
 * index of code scopes that the inline stacks use (symbols/scopeidx.h):
 * each unit's scopes are read once, at its first pc; a pc's chain is a
 * binary search per level of nesting, then the parents outward.
 *
 * The chain is the concrete one (the DIEs whose ranges hold the pc, as
 * libdw's walk descends to them: see scopeidx.h), not dwarf_getscopes's,
 * which in inlined code goes on with the abstract origin's scopes: the
 * inlined subroutines' variables and then the caller's are live at the pc,
 * and the caller's subprogram gives the frame base.  A scope's variables
 * and parameters are listed once, on its first use. */
#include <dwarf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/cuidx.h"
#include "symbols/scopeidx.h"
#include "types/typeres_int.h"

#define TY_SCOPE_DEPTH 64

/* A scope's variables and parameters (its children of those tags), in
 * order: the scans ask the same scopes for every instruction. */
struct ty_svars {
	struct ty_var *v;
	uint32_t n;
	bool done;
};

/* One unit: its scope index, built on its first pc, and its scopes'
 * variables by scope (allocated on the first asked). */
struct ty_unit {
	struct pms_scopeidx *x;
	bool failed;           /* no memory for the index: no answers */
	struct ty_svars *sv;   /* [x->ns] */
};

struct ty_uslot {
	uint64_t off;          /* ty_pc_slot's key: the unit DIE; ~0 empty */
	struct ty_unit *u;
};

struct ty_scopeix {
	struct pms_cuidx cux;  /* the units by their own ranges (symbols/cuidx.h) */
	struct ty_uslot *units;
	size_t nunits, capunits;
};

_Static_assert(offsetof(struct ty_uslot, off) == 0, "ty_pc_slot: key first");

/* The unit holding pc, its index built: NULL when none holds it, or
 * without memory. */
static struct ty_unit *unit_at(struct ty_bin *b, uint64_t pc)
{
	if (!b->dw)
		return NULL;
	if (!b->scopes && !(b->scopes = calloc(1, sizeof(*b->scopes))))
		return NULL;
	struct ty_scopeix *x = b->scopes;
	Dwarf_Die cu;
	/* .debug_aranges, else the units' own ranges (clang writes none) */
	if (!dwarf_addrdie(b->dw, pc, &cu) && pms_cuidx_find(&x->cux, b->dw, pc, &cu) <= 0)
		return NULL;
	uint64_t off = dwarf_dieoffset(&cu);
	void *tab = x->units;
	struct ty_uslot *e = ty_pc_slot(&tab, &x->nunits, &x->capunits, sizeof(*e), 64, off);
	x->units = tab;
	if (!e)
		return NULL;
	if (e->off != off) {
		struct ty_unit *u = calloc(1, sizeof(*u));
		if (!u)
			return NULL;
		if (pms_scopeidx_build(&cu, &u->x) < 0)
			u->failed = true;
		*e = (struct ty_uslot){ off, u };
		x->nunits++;
	}
	return e->u->failed ? NULL : e->u;
}

int ty_scope_chain(struct ty_bin *b, uint64_t pc, struct ty_unit **unit, uint32_t *chain,
		   int max)
{
	struct ty_unit *u = unit_at(b, pc);
	*unit = u;
	if (!u)
		return 0;
	const struct pms_scopeidx *x = u->x;
	int n = 0, sub = -1;
	for (uint32_t s = pms_scopeidx_innermost(x, pc); s != PMS_SCOPE_NONE; s = x->s[s].parent) {
		if (n == max)
			return 0; /* deeper than any code: no answer */
		if (x->s[s].tag == DW_TAG_subprogram)
			sub = n;
		chain[n++] = s;
	}
	return sub + 1;
}

Dwarf_Die *ty_scope_die(struct ty_unit *u, uint32_t s)
{
	return &u->x->s[s].die;
}

int ty_scope_tag(const struct ty_unit *u, uint32_t s)
{
	return u->x->s[s].tag;
}

bool ty_scope_func(struct ty_bin *b, uint64_t pc, Dwarf_Die *sub)
{
	struct ty_unit *u = unit_at(b, pc);
	if (!u)
		return false;
	const struct pms_scopeidx *x = u->x;
	for (uint32_t s = pms_scopeidx_innermost(x, pc); s != PMS_SCOPE_NONE; s = x->s[s].parent) {
		if (x->s[s].tag == DW_TAG_inlined_subroutine)
			return false;
		if (x->s[s].tag == DW_TAG_subprogram) {
			*sub = x->s[s].die;
			return true;
		}
	}
	return false;
}

int ty_scope_vars(struct ty_unit *u, uint32_t s, struct ty_var **vars)
{
	*vars = NULL;
	if (!u->sv && !(u->sv = calloc(u->x->ns, sizeof(*u->sv))))
		return -1;
	struct ty_svars *e = &u->sv[s];
	if (!e->done) {
		size_t n = 0, cap = 0;
		struct ty_var *v = NULL;
		Dwarf_Die c;
		if (dwarf_child(&u->x->s[s].die, &c) == 0)
			do {
				int tag = dwarf_tag(&c);
				if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter)
					continue;
				if (n == cap) {
					/* most scopes hold a few variables */
					size_t nc = cap ? cap * 2 : 4;
					struct ty_var *nv = realloc(v, nc * sizeof(*nv));
					if (!nv || nc > UINT32_MAX) {
						free(nv ? nv : v);
						return -1;
					}
					v = nv;
					cap = nc;
				}
				v[n++] = (struct ty_var){ .die = c };
			} while (dwarf_siblingof(&c, &c) == 0);
		*e = (struct ty_svars){ v, (uint32_t)n, true };
	}
	*vars = e->v;
	return (int)e->n;
}

void ty_scopes_free(struct ty_bin *b)
{
	struct ty_scopeix *x = b->scopes;
	if (!x)
		return;
	for (size_t i = 0; i < x->capunits; i++) {
		struct ty_unit *u = x->units[i].off != ~0ull ? x->units[i].u : NULL;
		if (!u)
			continue;
		if (u->sv)
			for (size_t s = 0; s < u->x->ns; s++) {
				for (uint32_t k = 0; k < u->sv[s].n; k++)
					free(u->sv[s].v[k].lr);
				free(u->sv[s].v);
			}
		free(u->sv);
		pms_scopeidx_free(u->x);
		free(u);
	}
	free(x->units);
	pms_cuidx_free(&x->cux);
	free(x);
	b->scopes = NULL;
}
