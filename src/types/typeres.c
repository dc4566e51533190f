/* Type resolution per (binary, IP): the instruction's memory operand, the
 * DWARF variable its base register holds at the IP (location lists), the
 * stack variable it addresses (frame base / CFA), or the type the register
 * got from the instructions before it; globals and TLS by address. */
#include <dwarf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "types/typeres_int.h"
#include "util/error.h"
#include "util/grow.h"

#define TY_MAX_BINS 64
#define TY_WALK_MAX 4096

struct ty_str {
	struct ty_str *next;
	struct ty_bin *bin;  /* a type name: where its DIE is (NULL: none) */
	Dwarf_Off die;
	char s[];
};

struct pms_typeres {
	struct ty_bin *bins[TY_MAX_BINS];
	size_t nbins;
	struct ty_str *strs[1024];
};

const char *pms_type_status_name(enum pms_type_status s)
{
	static const char *const n[PMS_TYPE__COUNT] = {
		"ok", "no-binary", "no-debug", "no-insn", "no-memop", "no-scope",
		"no-var", "optimized", "not-pointer", "bad-offset", "kernel",
	};
	return (unsigned)s < PMS_TYPE__COUNT ? n[s] : "?";
}

const char *pms_type_via_name(enum pms_type_via v)
{
	static const char *const n[PMS_TYPE_VIA__COUNT] = {
		"none", "global", "tls", "register", "stack", "tracked",
	};
	return (unsigned)v < PMS_TYPE_VIA__COUNT ? n[v] : "?";
}

int pms_typeres_new(struct pms_typeres **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : pms_err(PMS_ENOMEM, "types: resolver");
}

void pms_typeres_free(struct pms_typeres *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nbins; i++)
		ty_bin_free(r->bins[i]);
	for (size_t i = 0; i < 1024; i++)
		for (struct ty_str *s = r->strs[i], *n; s; s = n) {
			n = s->next;
			free(s);
		}
	free(r);
}

static const char *intern(struct pms_typeres *r, const char *s)
{
	uint32_t h = 2166136261u;
	for (const char *p = s; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	for (struct ty_str *e = r->strs[h % 1024]; e; e = e->next)
		if (!strcmp(e->s, s))
			return e->s;
	size_t len = strlen(s);
	struct ty_str *e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return NULL;
	memcpy(e->s, s, len + 1);
	e->bin = NULL;
	e->die = 0;
	e->next = r->strs[h % 1024];
	r->strs[h % 1024] = e;
	return e->s;
}

static int get_bin(struct pms_typeres *r, const char *path, struct ty_bin **out)
{
	for (size_t i = 0; i < r->nbins; i++)
		if (!strcmp(r->bins[i]->path, path)) {
			*out = r->bins[i];
			return 0;
		}
	if (r->nbins == TY_MAX_BINS) { /* forget the oldest */
		ty_bin_free(r->bins[0]);
		memmove(r->bins, r->bins + 1, (TY_MAX_BINS - 1) * sizeof(r->bins[0]));
		r->nbins--;
	}
	struct ty_bin *b;
	int rc = ty_bin_open(path, &b);
	if (rc < 0) {
		ty_bin_free(b);
		return rc;
	}
	r->bins[r->nbins++] = b;
	*out = b;
	return 0;
}

/* ---- the per-IP cache (open addressing on pc) ---- */

static struct ty_ipres *cache_slot(struct ty_bin *b, uint64_t pc, bool *found)
{
	if (b->ncache * 2 >= b->capcache) {
		size_t nc = b->capcache ? b->capcache * 2 : 256;
		struct ty_ipres *nv = malloc(nc * sizeof(*nv));
		if (!nv)
			return NULL;
		for (size_t i = 0; i < nc; i++)
			nv[i].pc = ~0ull;
		for (size_t i = 0; i < b->capcache; i++) {
			if (b->cache[i].pc == ~0ull)
				continue;
			size_t j = (b->cache[i].pc * 0x9e3779b97f4a7c15ull >> 20) & (nc - 1);
			while (nv[j].pc != ~0ull)
				j = (j + 1) & (nc - 1);
			nv[j] = b->cache[i];
		}
		free(b->cache);
		b->cache = nv;
		b->capcache = nc;
	}
	size_t j = (pc * 0x9e3779b97f4a7c15ull >> 20) & (b->capcache - 1);
	while (b->cache[j].pc != ~0ull && b->cache[j].pc != pc)
		j = (j + 1) & (b->capcache - 1);
	*found = b->cache[j].pc == pc;
	return &b->cache[j];
}

/* ---- DWARF scopes at a pc ---- */

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

/* The CU covering pc: .debug_aranges, else each CU's ranges (clang
 * writes no aranges). */
static bool cu_of(struct ty_bin *b, uint64_t pc, Dwarf_Die *cu)
{
	if (dwarf_addrdie(b->dw, pc, cu))
		return true;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(b->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(b->dw, off + hsize, cu) && dwarf_haspc(cu, pc) == 1)
			return true;
		off = next;
	}
	return false;
}

struct ty_scan { /* what a search of the scopes found */
	bool found, optimized, not_ptr;
	struct ty_obj obj;
};

/* One variable: is the access (base reg + disp) through it? */
static void try_var(struct ty_bin *b, Dwarf_Die *v, uint64_t pc, int reg, int64_t disp,
		    const struct ty_frame *fb, struct ty_scan *s)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops[4];
	size_t lens[4];
	Dwarf_Die t;
	if (!ty_type_of(v, &t) || !dwarf_attr_integrate(v, DW_AT_location, &a))
		return;
	int n = dwarf_getlocation_addr(&a, pc, ops, lens, 4);
	Dwarf_Die pt;
	bool is_ptr = ty_pointee(&t, &pt) && ty_peel(&t, &pt) && dwarf_tag(&pt) == DW_TAG_pointer_type;
	if (n < 1) {
		if (is_ptr)
			s->optimized = true;
		return;
	}
	const char *name = dwarf_diename(v);
	int r;
	int64_t off;
	if (lens[0] == 1 && reg_of(&ops[0][0], &r) && r == reg) {
		/* the variable's value is in the base register */
		Dwarf_Die obj;
		if (!is_ptr || !ty_pointee(&t, &obj)) {
			s->not_ptr = true;
			return;
		}
		s->found = true;
		s->obj = (struct ty_obj){ obj, 0, PMS_TYPE_VIA_REG, name };
		return;
	}
	/* in memory at reg + off (bregN) or frame base + off (fbreg) */
	bool at = false;
	if (lens[0] >= 1 && ops[0][0].atom == DW_OP_fbreg && fb->ok && fb->reg == reg) {
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
	s->obj = (struct ty_obj){ t, -off, PMS_TYPE_VIA_STACK, name };
}

/* The variables of the scopes at pc (innermost first) against base reg. */
static enum pms_type_status scan_scopes(struct ty_bin *b, uint64_t pc, int reg, int64_t disp,
					struct ty_obj *out, Dwarf_Die *func)
{
	Dwarf_Die cu, *scopes = NULL;
	if (!cu_of(b, pc, &cu))
		return PMS_TYPE_NO_SCOPE;
	int n = dwarf_getscopes(&cu, pc, &scopes);
	if (n <= 0) {
		free(scopes);
		return PMS_TYPE_NO_SCOPE;
	}
	int sub = -1;
	for (int i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			sub = i;
	if (sub < 0) {
		free(scopes);
		return PMS_TYPE_NO_SCOPE;
	}
	if (func)
		*func = scopes[sub];
	struct ty_frame fb = frame_base(b, &scopes[sub], pc);
	struct ty_scan s = { 0 };
	for (int i = 0; i < n && !s.found; i++) {
		Dwarf_Die c;
		if (dwarf_child(&scopes[i], &c) != 0)
			continue;
		do {
			int tag = dwarf_tag(&c);
			if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter)
				try_var(b, &c, pc, reg, disp, &fb, &s);
		} while (!s.found && dwarf_siblingof(&c, &c) == 0);
	}
	free(scopes);
	if (s.found) {
		*out = s.obj;
		return PMS_TYPE_OK;
	}
	return s.not_ptr ? PMS_TYPE_NOT_PTR : s.optimized ? PMS_TYPE_OPTIMIZED : PMS_TYPE_NO_VAR;
}

/* ---- register types along the function's instructions ---- */

struct ty_rstate {
	bool valid;
	struct ty_obj obj;
};

/* The object a memory operand addresses at pc, given the registers' tracked
 * types: globals (RIP-relative), stack and register variables, tracked. */
static bool operand_obj(struct ty_bin *b, const struct ty_insn *in,
			const struct ty_rstate *st, struct ty_obj *obj, int64_t *off)
{
	if (in->rip_rel) {
		uint64_t target = in->addr + in->size + (uint64_t)in->disp;
		const struct ty_gvar *g = ty_bin_global(b, target);
		if (!g)
			return false;
		*obj = (struct ty_obj){ g->type, 0, PMS_TYPE_VIA_GLOBAL, g->name };
		*off = (int64_t)(target - g->addr);
		return true;
	}
	if (in->base < 0 || in->base >= TY_NREGS || in->fs_seg)
		return false;
	if (st && st[in->base].valid) {
		*obj = st[in->base].obj;
		*off = in->disp + obj->adj;
		return true;
	}
	if (scan_scopes(b, in->addr, in->base, in->disp, obj, NULL) != PMS_TYPE_OK)
		return false;
	*off = in->disp + obj->adj;
	return true;
}

/* What a load of size bytes at off in obj puts in a register: the pointee
 * of a pointer member. */
static bool loaded_pointer(struct ty_obj *obj, int64_t off, unsigned size, struct ty_obj *res)
{
	char path[256];
	uint64_t mo, ms;
	Dwarf_Die leaf, pt, target;
	if (off < 0 || !ty_member_at(&obj->type, (uint64_t)off, size, path, sizeof(path), &mo, &ms,
				     &leaf))
		return false;
	if ((uint64_t)off != mo || ms != size || !ty_peel(&leaf, &pt) ||
	    dwarf_tag(&pt) != DW_TAG_pointer_type || !ty_type_of(&pt, &target))
		return false;
	*res = (struct ty_obj){ target, 0, PMS_TYPE_VIA_TRACK, obj->var };
	return true;
}

/* A direct call's return value: the callee's DWARF return type, when it
 * is a pointer (an allocator returning struct T *). */
static bool callee_ret(struct ty_bin *b, uint64_t target, struct ty_obj *out)
{
	Dwarf_Die cu, *scopes = NULL;
	if (!target || !cu_of(b, target, &cu))
		return false;
	int n = dwarf_getscopes(&cu, target, &scopes);
	bool ok = false;
	for (int i = 0; i < n && !ok; i++) {
		Dwarf_Addr entry;
		Dwarf_Die rt, obj, pt;
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram ||
		    dwarf_entrypc(&scopes[i], &entry) != 0 || entry != target)
			continue;
		if (ty_type_of(&scopes[i], &rt) && ty_peel(&rt, &pt) &&
		    dwarf_tag(&pt) == DW_TAG_pointer_type && ty_type_of(&pt, &obj)) {
			*out = (struct ty_obj){ obj, 0, PMS_TYPE_VIA_TRACK, dwarf_diename(&scopes[i]) };
			ok = true;
		}
	}
	free(scopes);
	return ok;
}

static void track_step(struct ty_bin *b, const struct ty_insn *in, struct ty_rstate *st)
{
	struct ty_rstate nv = { 0 };
	int dst = TY_REG_NONE;
	struct ty_obj obj;
	int64_t off;
	if (in->kind == TY_K_LOAD && operand_obj(b, in, st, &obj, &off)) {
		dst = in->dst;
		nv.valid = loaded_pointer(&obj, off, in->mem_size ? in->mem_size : 8, &nv.obj);
	} else if (in->kind == TY_K_LEA && !in->rip_rel && in->base >= 0 && in->base < TY_NREGS &&
		   st[in->base].valid &&
		   (in->index < 0 || (in->index < TY_NREGS && !st[in->index].valid))) {
		/* base + disp, or an element (index * scale) of what base
		 * points to: the same type */
		dst = in->dst;
		nv = st[in->base];
		nv.obj.adj += in->disp;
	} else if (in->kind == TY_K_ADD && in->dst >= 0 && in->dst < TY_NREGS &&
		   st[in->dst].valid) {
		dst = in->dst;
		nv = st[in->dst];
		if (in->src < 0)
			nv.obj.adj += in->disp;
		else if (in->src >= TY_NREGS || st[in->src].valid)
			nv.valid = false; /* pointer + pointer: not an element */
	} else if (in->kind == TY_K_LEA && operand_obj(b, in, st, &obj, &off) && in->index < 0) {
		dst = in->dst;
		nv.valid = true;
		nv.obj = obj;
		nv.obj.adj = off;
		nv.obj.via = PMS_TYPE_VIA_TRACK;
	} else if (in->kind == TY_K_MOVRR && in->src == ty_reg_sp(b->arch) && !st[in->src].valid) {
		/* mov %rsp, %reg: the address of the stack variable at sp + 0 */
		struct ty_insn lea = *in;
		lea.kind = TY_K_LEA;
		lea.base = in->src;
		lea.index = TY_REG_NONE;
		lea.disp = 0;
		lea.rip_rel = lea.fs_seg = false;
		dst = in->dst;
		if (operand_obj(b, &lea, st, &obj, &off)) {
			nv.valid = true;
			nv.obj = obj;
			nv.obj.adj = off;
			nv.obj.via = PMS_TYPE_VIA_TRACK;
		}
	} else if (in->kind == TY_K_MOVRR && in->src >= 0 && in->src < TY_NREGS) {
		dst = in->dst;
		nv = st[in->src];
	} else if (in->kind == TY_K_CALL && in->target) {
		dst = 0; /* x86-64 rax, aarch64 x0 */
		nv.valid = callee_ret(b, in->target, &nv.obj);
	}
	for (int r = 0; r < TY_NREGS && r < 64; r++)
		if (in->written & (1ull << r))
			st[r].valid = false;
	if (in->kind == TY_K_RET)
		memset(st, 0, TY_NREGS * sizeof(*st));
	if (dst >= 0 && dst < TY_NREGS)
		st[dst] = nv;
}

/* The start of the address range of func that holds pc. */
static bool func_start(Dwarf_Die *func, uint64_t pc, uint64_t *start)
{
	Dwarf_Addr base, s, e;
	ptrdiff_t o = 0;
	while ((o = dwarf_ranges(func, o, &base, &s, &e)) > 0)
		if (pc >= s && pc < e) {
			*start = s;
			return true;
		}
	return false;
}

static bool track(struct ty_bin *b, Dwarf_Die *func, uint64_t pc, int reg, struct ty_obj *out)
{
	uint64_t a;
	if (!func_start(func, pc, &a))
		return false;
	struct ty_rstate st[TY_NREGS];
	memset(st, 0, sizeof(st));
	for (int i = 0; a < pc && i < TY_WALK_MAX; i++) {
		struct ty_insn in;
		if (ty_bin_insn(b, a, &in) != 0)
			return false;
		track_step(b, &in, st);
		a += in.size;
	}
	if (a != pc || !st[reg].valid)
		return false;
	*out = st[reg].obj;
	out->via = PMS_TYPE_VIA_TRACK;
	return true;
}

/* ---- one IP ---- */

static void resolve_ip(struct ty_bin *b, uint64_t pc, struct ty_ipres *res)
{
	struct ty_insn in;
	if (ty_bin_insn(b, pc, &in) != 0) {
		res->status = PMS_TYPE_NO_INSN;
		return;
	}
	res->store = in.store;
	res->load = in.load;
	res->mem_size = in.mem_size;
	if (!in.has_mem) {
		res->status = PMS_TYPE_NO_MEMOP;
		return;
	}
	if (in.fs_seg && in.base < 0) {
		const struct ty_gvar *g = ty_bin_tls(b, (uint64_t)in.disp + b->tls_aligned);
		if (!g) {
			res->status = PMS_TYPE_NO_VAR;
			return;
		}
		res->has_obj = true;
		res->obj = (struct ty_obj){ g->type, 0, PMS_TYPE_VIA_TLS, g->name };
		res->offset = (int64_t)((uint64_t)in.disp + b->tls_aligned - g->addr);
		res->status = PMS_TYPE_OK;
		return;
	}
	int64_t off;
	if (in.rip_rel) {
		res->status = operand_obj(b, &in, NULL, &res->obj, &off) ? PMS_TYPE_OK
									   : PMS_TYPE_NO_VAR;
		res->has_obj = res->status == PMS_TYPE_OK;
		res->offset = off;
		return;
	}
	if (in.base < 0 || in.base >= TY_NREGS) {
		res->status = PMS_TYPE_NO_VAR;
		return;
	}
	Dwarf_Die func;
	memset(&func, 0, sizeof(func));
	enum pms_type_status s = scan_scopes(b, pc, in.base, in.disp, &res->obj, &func);
	if (s != PMS_TYPE_OK && s != PMS_TYPE_NO_SCOPE && track(b, &func, pc, in.base, &res->obj))
		s = PMS_TYPE_OK;
	/* base + index * 1: either may be the pointer (clang puts the
	 * scaled index in the base) */
	if (s != PMS_TYPE_OK && s != PMS_TYPE_NO_SCOPE && in.index >= 0 && in.index < TY_NREGS &&
	    in.scale == 1 &&
	    (scan_scopes(b, pc, in.index, in.disp, &res->obj, NULL) == PMS_TYPE_OK ||
	     track(b, &func, pc, in.index, &res->obj)))
		s = PMS_TYPE_OK;
	res->status = s;
	res->has_obj = s == PMS_TYPE_OK;
	res->offset = in.disp + res->obj.adj;
	/* an element of an array of the type: a constant part of the index
	 * folded into the displacement */
	uint64_t size = res->has_obj ? ty_size(&res->obj.type) : 0;
	if (res->has_obj && in.index >= 0 && size && res->obj.via != PMS_TYPE_VIA_STACK &&
	    (res->offset < 0 || (uint64_t)res->offset >= size))
		res->offset = ((res->offset % (int64_t)size) + (int64_t)size) % (int64_t)size;
}

/* Remember where a type name's DIE is (for its layout). */
static void note_type(struct pms_typeres *r, const char *name, struct ty_bin *b, Dwarf_Die *t)
{
	struct ty_str *e = name ? (struct ty_str *)(void *)(name - offsetof(struct ty_str, s)) : NULL;
	Dwarf_Die p;
	if (e && !e->bin && ty_peel(t, &p)) {
		e->bin = b;
		e->die = dwarf_dieoffset(&p);
	}
	(void)r;
}

static void fill_hit(struct pms_typeres *r, struct ty_bin *b, const struct ty_obj *obj,
		     int64_t offset, unsigned size, struct pms_type_hit *out)
{
	char path[256], tname[256];
	uint64_t mo = 0, ms = 0;
	Dwarf_Die leaf, t = obj->type;
	if (offset < 0 || !ty_member_at(&t, (uint64_t)offset, 0, path, sizeof(path), &mo, &ms,
					&leaf)) {
		out->status = PMS_TYPE_BAD_OFFSET;
		return;
	}
	(void)size;
	ty_name(&t, tname, sizeof(tname));
	out->status = PMS_TYPE_OK;
	out->via = obj->via;
	out->type = intern(r, tname);
	note_type(r, out->type, b, &t);
	out->type_size = ty_size(&t);
	out->offset = offset;
	out->member = intern(r, path);
	out->member_offset = mo;
	out->member_size = ms;
	out->var = intern(r, obj->var ? obj->var : "");
	if (!out->type || !out->member || !out->var)
		out->status = PMS_TYPE_NO_VAR;
}

int pms_typeres_lookup(struct pms_typeres *r, const char *path, uint64_t bias, uint64_t ip,
		       uint64_t addr, bool has_addr, struct pms_type_hit *out)
{
	memset(out, 0, sizeof(*out));
	if (!path || !*path) {
		out->status = PMS_TYPE_NO_BINARY;
		return 0;
	}
	struct ty_bin *b;
	int rc = get_bin(r, path, &b);
	if (rc < 0)
		return rc;
	if (b->bad) {
		out->status = PMS_TYPE_NO_BINARY;
		return 0;
	}
	if (b->no_debug) {
		out->status = PMS_TYPE_NO_DEBUG;
		return 0;
	}
	uint64_t pc = ip - bias;
	bool found;
	struct ty_ipres *res = cache_slot(b, pc, &found);
	if (!res)
		return pms_err(PMS_ENOMEM, "types: cache");
	if (!found) {
		memset(res, 0, sizeof(*res));
		resolve_ip(b, pc, res);
		res->pc = pc;
		b->ncache++;
	}
	out->store = res->store;
	/* a global of this binary at the sampled address: the address says */
	const struct ty_gvar *g = has_addr ? ty_bin_global(b, addr - bias) : NULL;
	if (g && res->status != PMS_TYPE_NO_INSN) {
		struct ty_obj obj = { g->type, 0, PMS_TYPE_VIA_GLOBAL, g->name };
		fill_hit(r, b, &obj, (int64_t)(addr - bias - g->addr), res->mem_size, out);
		return 0;
	}
	if (!res->has_obj) {
		out->status = res->status;
		return 0;
	}
	fill_hit(r, b, &res->obj, res->offset, res->mem_size, out);
	return 0;
}

int pms_typeres_bias(struct pms_typeres *r, const char *path, uint64_t map_start,
		     uint64_t map_pgoff, uint64_t *bias)
{
	struct ty_bin *b;
	int rc = get_bin(r, path, &b);
	if (rc < 0)
		return rc;
	if (b->bad || !b->elf)
		return PMS_ENOENT;
	size_t phnum;
	if (elf_getphdrnum(b->elf, &phnum) != 0)
		return PMS_ENOENT;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(b->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		uint64_t al = ph.p_align > 1 ? ph.p_align : 1;
		uint64_t off0 = ph.p_offset & ~(al - 1);
		if (map_pgoff < off0 || map_pgoff >= ph.p_offset + ph.p_filesz)
			continue;
		/* runtime = link + bias; the mapping's start is the segment's
		 * page at map_pgoff */
		uint64_t link = ph.p_vaddr - ph.p_offset + map_pgoff;
		*bias = map_start - link;
		return 0;
	}
	return PMS_ENOENT;
}

int pms_typeres_layout(struct pms_typeres *r, const char *type, struct pms_type_field **out,
		       size_t *n)
{
	*out = NULL;
	*n = 0;
	const char *name = intern(r, type);
	if (!name)
		return pms_err(PMS_ENOMEM, "types: layout");
	struct ty_str *e = (struct ty_str *)(void *)(name - offsetof(struct ty_str, s));
	bool live = false;
	for (size_t i = 0; i < r->nbins && !live; i++)
		live = r->bins[i] == e->bin;
	Dwarf_Die t, m;
	if (!live || !e->bin->dw || !dwarf_offdie(e->bin->dw, e->die, &t))
		return PMS_ENOENT;
	int tag = dwarf_tag(&t);
	if ((tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
	     tag != DW_TAG_class_type) || dwarf_child(&t, &m) != 0)
		return PMS_ENOENT;
	size_t cap = 0;
	struct pms_type_field *v = NULL;
	do {
		Dwarf_Attribute a;
		Dwarf_Word off = 0;
		Dwarf_Die mt;
		if (dwarf_tag(&m) != DW_TAG_member || !ty_type_of(&m, &mt))
			continue;
		if (dwarf_attr(&m, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &off) != 0)
			continue;
		if (pms_grow(&v, &cap, *n + 1, sizeof(*v), 16, "types: layout") < 0) {
			free(v);
			*n = 0;
			return PMS_ENOMEM;
		}
		char tn[256];
		ty_name(&mt, tn, sizeof(tn));
		const char *mn = dwarf_diename(&m);
		v[*n] = (struct pms_type_field){ intern(r, mn ? mn : ""), intern(r, tn), off,
						 ty_size(&mt), 0 };
		if (!v[*n].name || !v[*n].type) {
			free(v);
			*n = 0;
			return pms_err(PMS_ENOMEM, "types: layout");
		}
		(*n)++;
	} while (dwarf_siblingof(&m, &m) == 0);
	uint64_t total = ty_size(&t);
	for (size_t i = 0; i < *n; i++) {
		uint64_t end = v[i].offset + v[i].size;
		uint64_t next = i + 1 < *n ? v[i + 1].offset : total;
		v[i].hole = tag == DW_TAG_structure_type && next > end ? next - end : 0;
	}
	*out = v;
	return 0;
}
