/* The DWARF scopes at a pc for the type resolution, and their variables
 * against an access's base register (ty_scan_scopes).  The scopes come
 * from the per-unit index of code scopes that the inline stacks use
 * (symbols/scopeidx.h): each unit's scopes are read once, at its first pc; a pc's chain is a
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

#define TY_SCOPE_DEPTH 64 /* deeper chains (none in code) get no answer */

/* A scope's variable or parameter: listed with its DIE (scope_vars), the
 * rest filled in on its first use (try_var's init). */
struct ty_var {
	Dwarf_Die die;
	bool init, ok, is_ptr, has_obj;
	Dwarf_Die type, obj;  /* obj: the pointee when has_obj */
	Dwarf_Attribute loc;
	const char *name;
	/* loc a single expression (a block, not a list): its answer does not
	 * depend on the pc, so libdw is asked once (nblock as it returned) */
	bool block;
	int nblock;
	Dwarf_Op *bops;
	size_t blen;
	/* loc a list: its entries read once (dwarf_getlocations), each pc's
	 * matching ones then found here, in the list's order, as
	 * dwarf_getlocation_addr would (which reads the list for every pc);
	 * lr_bad: the list did not read whole, libdw is asked per pc */
	bool lr_done, lr_bad;
	struct ty_locr *lr;
	size_t nlr;
};

/* A location list entry: [start, end) -> ops (libdw's, kept with the Dwarf). */
struct ty_locr {
	uint64_t start, end;
	Dwarf_Op *ops;
	size_t len;
};

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

/* The code scopes at pc: the concrete chain, innermost first (lexical
 * blocks, inlined subroutines, the function that holds the code), the DIEs
 * whose variables are live at pc, out to the outermost subprogram (whose
 * frame base applies): their count (at most max) as scopes of *unit in
 * chain, 0 when no subprogram holds pc (or no unit, no memory). */
static int scope_chain(struct ty_bin *b, uint64_t pc, struct ty_unit **unit, uint32_t *chain,
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

/* Scope s's (of a chain) variable and parameter children in order: the
 * count (*vars kept until ty_scopes_free), -1 without memory. */
static int scope_vars(struct ty_unit *u, uint32_t s, struct ty_var **vars)
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

/* ---- the variables of the scopes at a pc against a base register ---- */

struct ty_frame { /* frame base (or CFA) = reg + off */
	int reg;
	int64_t off;
	bool ok;
};

static bool cfa_at(struct ty_bin *b, uint64_t pc, struct ty_frame *f)
{
	Dwarf_CFI *cfis[2] = { b->cfi, b->ehcfi };
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *fr;
		if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], pc, &fr) != 0)
			continue;
		Dwarf_Op *ops;
		size_t n;
		bool ok = dwarf_frame_cfa(fr, &ops, &n) == 0 && n == 1 &&
			  ops[0].atom == DW_OP_bregx;
		if (ok) {
			f->reg = (int)ops[0].number;
			f->off = (int64_t)ops[0].number2;
			f->ok = true;
		}
		free(fr);
		if (ok)
			return true;
	}
	return false;
}

/* A register + offset location operation: DW_OP_bregN / bregx. */
static bool breg_of(const Dwarf_Op *op, int *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = (int)op->number;
		*off = (int64_t)op->number2;
		return true;
	}
	return false;
}

static bool reg_of(const Dwarf_Op *op, int *reg)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) {
		*reg = op->atom - DW_OP_reg0;
		return true;
	}
	if (op->atom == DW_OP_regx) {
		*reg = (int)op->number;
		return true;
	}
	return false;
}

static struct ty_frame frame_base(struct ty_bin *b, Dwarf_Die *sub, uint64_t pc)
{
	struct ty_frame f = { 0 };
	Dwarf_Attribute a;
	Dwarf_Op *ops[2];
	size_t lens[2];
	if (!dwarf_attr_integrate(sub, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, pc, ops, lens, 2) < 1 || lens[0] != 1)
		return f;
	if (ops[0][0].atom == DW_OP_call_frame_cfa) {
		cfa_at(b, pc, &f);
	} else if (reg_of(&ops[0][0], &f.reg)) {
		f.ok = true;
	} else if (breg_of(&ops[0][0], &f.reg, &f.off)) {
		f.ok = true;
	}
	return f;
}

/* The entries of v's location list that hold pc (at most max, in the list's
 * order): dwarf_getlocation_addr's answer, from the list read once. */
static int var_loc_at(struct ty_var *v, uint64_t pc, Dwarf_Op **ops, size_t *lens, int max)
{
	if (!v->lr_done) {
		v->lr_done = true;
		Dwarf_Addr base, start, end;
		Dwarf_Op *e;
		size_t len, cap = 0;
		ptrdiff_t o = 0;
		while ((o = dwarf_getlocations(&v->loc, o, &base, &start, &end, &e, &len)) > 0) {
			if (v->nlr == cap) {
				size_t nc = cap ? cap * 2 : 8;
				struct ty_locr *nv = realloc(v->lr, nc * sizeof(*nv));
				if (!nv) {
					o = -1;
					break;
				}
				v->lr = nv;
				cap = nc;
			}
			v->lr[v->nlr++] = (struct ty_locr){ start, end, e, len };
		}
		v->lr_bad = o < 0;
	}
	if (v->lr_bad)
		return dwarf_getlocation_addr(&v->loc, pc, ops, lens, (size_t)max);
	int n = 0;
	for (size_t i = 0; i < v->nlr && n < max; i++)
		if (pc >= v->lr[i].start && pc < v->lr[i].end) {
			ops[n] = v->lr[i].ops;
			lens[n++] = v->lr[i].len;
		}
	return n;
}

/* A scan's frame base, computed on its first use (most variables are not
 * fbreg-located: their scans do without it). */
struct ty_lazyfb {
	struct ty_bin *b;
	Dwarf_Die *sub;
	uint64_t pc;
	bool done;
	struct ty_frame f;
};

static const struct ty_frame *lazy_fb(struct ty_lazyfb *l)
{
	if (!l->done) {
		l->f = frame_base(l->b, l->sub, l->pc);
		l->done = true;
	}
	return &l->f;
}

struct ty_scan { /* what a search of the scopes found */
	bool found, optimized, not_ptr;
	struct ty_obj obj;
};

/* One variable: is the access (base reg + disp) through it? */
static void try_var(struct ty_var *v, uint64_t pc, int reg, int64_t disp,
		    struct ty_lazyfb *lfb, struct ty_scan *s)
{
	Dwarf_Op *ops[4];
	size_t lens[4];
	if (!v->init) { /* what does not depend on pc, once */
		Dwarf_Die pt;
		v->init = true;
		v->ok = ty_type_of(&v->die, &v->type) &&
			dwarf_attr_integrate(&v->die, DW_AT_location, &v->loc);
		if (v->ok) {
			v->is_ptr = ty_pointee(&v->type, &pt) && ty_peel(&v->type, &pt) &&
				    dwarf_tag(&pt) == DW_TAG_pointer_type;
			v->has_obj = v->is_ptr && ty_pointee(&v->type, &v->obj);
			v->name = dwarf_diename(&v->die);
			Dwarf_Block blk;
			if (v->loc.form != DW_FORM_data16 && dwarf_formblock(&v->loc, &blk) == 0) {
				v->block = true;
				v->nblock = dwarf_getlocation_addr(&v->loc, pc, ops, lens, 1);
				v->bops = v->nblock >= 1 ? ops[0] : NULL;
				v->blen = v->nblock >= 1 ? lens[0] : 0;
			}
		}
	}
	if (!v->ok)
		return;
	int n;
	if (v->block) {
		n = v->nblock;
		ops[0] = v->bops;
		lens[0] = v->blen;
	} else {
		n = var_loc_at(v, pc, ops, lens, 4);
	}
	bool is_ptr = v->is_ptr;
	Dwarf_Die t = v->type;
	if (n < 1) {
		if (is_ptr)
			s->optimized = true;
		return;
	}
	const char *name = v->name;
	int r;
	int64_t off;
	if (lens[0] == 1 && reg_of(&ops[0][0], &r) && r == reg) {
		/* the variable's value is in the base register */
		if (!v->has_obj) {
			s->not_ptr = true;
			return;
		}
		s->found = true;
		s->obj = (struct ty_obj){ v->obj, 0, PMS_TYPE_VIA_REG, name, false };
		return;
	}
	/* in memory at reg + off (bregN) or frame base + off (fbreg) */
	bool at = false;
	const struct ty_frame *fb;
	if (lens[0] >= 1 && ops[0][0].atom == DW_OP_fbreg && (fb = lazy_fb(lfb))->ok &&
	    fb->reg == reg) {
		off = fb->off + (int64_t)ops[0][0].number;
		at = true;
	} else if (lens[0] == 1 && breg_of(&ops[0][0], &r, &off) && r == reg) {
		at = true;
	}
	if (!at)
		return;
	uint64_t size = ty_size(&t);
	if (disp < off || (uint64_t)(disp - off) >= (size ? size : 1))
		return;
	s->found = true;
	s->obj = (struct ty_obj){ t, -off, PMS_TYPE_VIA_STACK, name, false };
}

enum pms_type_status ty_scan_scopes(struct ty_bin *b, uint64_t pc, int reg, int64_t disp,
				    struct ty_obj *out, Dwarf_Die *func)
{
	struct ty_unit *u;
	uint32_t chain[TY_SCOPE_DEPTH];
	int n = scope_chain(b, pc, &u, chain, TY_SCOPE_DEPTH);
	if (n <= 0)
		return PMS_TYPE_NO_SCOPE;
	Dwarf_Die *sub = &u->x->s[chain[n - 1]].die;
	if (func)
		*func = *sub;
	struct ty_lazyfb fb = { b, sub, pc, false, { 0 } };
	struct ty_scan s = { 0 };
	/* the scopes out to the function: those above it (the CU, a
	 * namespace) hold variables of static storage, at an address, which
	 * no register or frame location names (globals: by the address) */
	for (int i = 0; i < n && !s.found; i++) {
		struct ty_var *v;
		int nv = scope_vars(u, chain[i], &v);
		for (int k = 0; k < nv && !s.found; k++)
			try_var(&v[k], pc, reg, disp, &fb, &s);
	}
	if (s.found) {
		*out = s.obj;
		return PMS_TYPE_OK;
	}
	return s.not_ptr ? PMS_TYPE_NOT_PTR : s.optimized ? PMS_TYPE_OPTIMIZED : PMS_TYPE_NO_VAR;
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
