/* Type resolution per (binary, IP): the instruction's memory operand, the
 * DWARF variable its base register holds at the IP (location lists), the
 * stack variable it addresses (frame base / CFA) -- both searched in
 * scopes.c -- or the type the register got from the instructions before
 * it; globals and TLS by address. */
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
	struct ty_bin *last;  /* get_bin's last answer */
	struct ty_str *strs[1024];
	struct { /* pms_typeres_bias's last answer (samples of one mapping) */
		struct ty_bin *bin;
		uint64_t start, pgoff, bias;
	} lastbias;
	uint64_t lookups, computed; /* pms_typeres_cache_stats */
	uint64_t gen;         /* ty_res_bins_gen: bumped when a binary is let go */
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

static void walks_free(struct ty_bin *b);
static void fills_free(struct ty_bin *b);

/* A binary with what typeres.c and scopes.c keep for it. */
static void bin_free(struct ty_bin *b)
{
	if (!b)
		return;
	walks_free(b);
	fills_free(b);
	ty_scopes_free(b);
	ty_bin_free(b);
}

void pms_typeres_free(struct pms_typeres *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nbins; i++)
		bin_free(r->bins[i]);
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
	/* most samples are of the binary the one before was of */
	if (r->last && !strcmp(r->last->path, path)) {
		*out = r->last;
		return 0;
	}
	for (size_t i = 0; i < r->nbins; i++)
		if (!strcmp(r->bins[i]->path, path)) {
			*out = r->last = r->bins[i];
			return 0;
		}
	if (r->nbins == TY_MAX_BINS) { /* forget the oldest */
		bin_free(r->bins[0]);
		r->gen++;
		r->lastbias.bin = r->last = NULL;
		memmove(r->bins, r->bins + 1, (TY_MAX_BINS - 1) * sizeof(r->bins[0]));
		r->nbins--;
	}
	struct ty_bin *b;
	int rc = ty_bin_open(path, &b);
	if (rc < 0) {
		bin_free(b);
		return rc;
	}
	r->bins[r->nbins++] = b;
	*out = r->last = b;
	return 0;
}

/* ---- the per-IP cache (open addressing on pc) ---- */

_Static_assert(offsetof(struct ty_ipkey, pc) == 0, "ty_pc_slot: pc first");
_Static_assert(offsetof(struct ty_scanmemo, pc) == 0, "ty_pc_slot: pc first");

/* The index slot of pc, *fresh when new (its ipres[i] zeroed, to be
 * resolved and its slot's copies set); NULL without memory. */
static struct ty_ipkey *cache_get(struct ty_bin *b, uint64_t pc, bool *fresh)
{
	void *t = b->cache;
	struct ty_ipkey *k = ty_pc_slot_full(&t, &b->ncache, &b->capcache, sizeof(*k), 256, pc, 4);
	b->cache = t;
	if (!k)
		return NULL;
	if (k->pc == pc) {
		*fresh = false;
		return k;
	}
	if (b->nipres >= UINT32_MAX ||
	    pms_grow(&b->ipres, &b->capipres, b->nipres + 1, sizeof(*b->ipres), 256,
		     "types: cache") < 0)
		return NULL;
	k->pc = pc;
	k->i = (uint32_t)b->nipres;
	b->ncache++;
	memset(&b->ipres[b->nipres++], 0, sizeof(*b->ipres));
	*fresh = true;
	return k;
}

/* The index slot of a cached pc, NULL when pc is not cached: each sample's
 * probe (the table's hash, without ty_pc_slot_full's growth and sizes). */
static inline struct ty_ipkey *cache_find(struct ty_bin *b, uint64_t pc)
{
	if (!b->capcache)
		return NULL;
	size_t mask = b->capcache - 1, j = ty_pc_hash(pc) & mask;
	for (;; j = (j + 1) & mask) {
		struct ty_ipkey *k = &b->cache[j];
		if (k->pc == ~0ull)
			return NULL;
		if (k->pc == pc)
			return k;
	}
}

/* ---- register types along the function's instructions ---- */

struct ty_rstate {
	bool valid;
	struct ty_obj obj;
	bool isconst;   /* (not valid) the register holds the constant cval */
	/* (not valid) loaded by the instruction at lpc from [lbase + ldisp],
	 * lbase holding no tracked type: the operand's scope search that says
	 * what was loaded is asked only if an instruction reads the register
	 * (lazy_force; most loaded registers are never a base) */
	bool lazy;
	int8_t lbase;
	uint8_t lsize;
	int64_t cval;   /* isconst: the constant; lazy: ldisp */
	uint64_t lpc;
};

/* The object a memory operand addresses at pc, given the registers' tracked
 * types: globals (RIP-relative), stack and register variables, tracked. */
/* The memo slot of pc (its pc field ~0 when new), NULL without memory. */
static struct ty_scanmemo *scan_slot(struct ty_bin *b, uint64_t pc)
{
	void *t = b->scan;
	struct ty_scanmemo *e = ty_pc_slot(&t, &b->nscan, &b->capscan, sizeof(*e), 1024, pc);
	b->scan = t;
	return e;
}

/* Keep a scan's answer at m (pc, status; obj when ok, func when given);
 * without memory m stays empty (pc asked again next time). */
static void scan_keep(struct ty_bin *b, struct ty_scanmemo *m, uint64_t pc, uint8_t status,
		      bool ok, const struct ty_obj *obj, const Dwarf_Die *func)
{
	uint32_t res = 0;
	if (ok || func) {
		if (b->nscanres == b->capscanres) {
			size_t nc = b->capscanres ? b->capscanres * 2 : 256;
			struct ty_scanres *nv = realloc(b->scanres, nc * sizeof(*nv));
			if (!nv || b->nscanres >= UINT32_MAX - 1) {
				if (nv)
					b->scanres = nv;
				return;
			}
			b->scanres = nv;
			b->capscanres = nc;
		}
		struct ty_scanres *r = &b->scanres[b->nscanres];
		memset(r, 0, sizeof(*r));
		if (ok)
			r->obj = *obj;
		if (func)
			r->func = *func;
		res = (uint32_t)++b->nscanres;
	}
	*m = (struct ty_scanmemo){ .pc = pc, .res = res, .status = status, .ok = ok };
	b->nscan++;
}

static bool operand_obj(struct ty_bin *b, const struct ty_insn *in,
			const struct ty_rstate *st, struct ty_obj *obj, int64_t *off)
{
	if (in->rip_rel) {
		uint64_t target = in->addr + in->size + (uint64_t)in->disp;
		const struct ty_gvar *g = ty_bin_global(b, target);
		if (!g)
			return false;
		*obj = (struct ty_obj){ g->type, 0, PMS_TYPE_VIA_GLOBAL, g->name, false };
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
	struct ty_scanmemo *m = scan_slot(b, in->addr);
	if (m && m->pc == in->addr && m->ok) {
		*obj = b->scanres[m->res - 1].obj;
	} else if (m && m->pc == in->addr) {
		return false;
	} else {
		Dwarf_Die func;
		enum pms_type_status ss = ty_scan_scopes(b, in->addr, in->base, in->disp, obj, &func);
		bool ok = ss == PMS_TYPE_OK;
		if (m)
			scan_keep(b, m, in->addr, (uint8_t)ss, ok, obj,
				  ss != PMS_TYPE_NO_SCOPE ? &func : NULL);
		if (!ok)
			return false;
	}
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
	*res = (struct ty_obj){ target, 0, PMS_TYPE_VIA_TRACK, obj->var, false };
	return true;
}

/* A direct call's return value: the callee's DWARF return type, when it
 * is a pointer (an allocator returning struct T *). */
static bool callee_ret(struct ty_bin *b, uint64_t target, struct ty_obj *out)
{
	Dwarf_Addr entry;
	Dwarf_Die sub, rt, obj, pt;
	if (!target || !ty_scope_func(b, target, &sub) || dwarf_entrypc(&sub, &entry) != 0 ||
	    entry != target)
		return false;
	if (!ty_type_of(&sub, &rt) || !ty_peel(&rt, &pt) || dwarf_tag(&pt) != DW_TAG_pointer_type ||
	    !ty_type_of(&pt, &obj))
		return false;
	*out = (struct ty_obj){ obj, 0, PMS_TYPE_VIA_TRACK, dwarf_diename(&sub), false };
	return true;
}

/* An offset outside an object reached through an index register added
 * before (an element of an array of the type, a constant part of the index
 * folded into the displacement): taken modulo the type's size. */
static int64_t elem_off(struct ty_obj *obj, int64_t off)
{
	uint64_t size = obj->indexed ? ty_size(&obj->type) : 0;
	if (size && (off < 0 || (uint64_t)off >= size))
		off = ((off % (int64_t)size) + (int64_t)size) % (int64_t)size;
	return off;
}

/* A lazy state made what the load it stands for gives (track_step's load
 * of a base holding no tracked type: the operand's scope search). */
static void lazy_resolve(struct ty_bin *b, struct ty_rstate *r)
{
	if (!r->lazy)
		return;
	struct ty_insn in;
	memset(&in, 0, sizeof(in));
	in.addr = r->lpc;
	in.kind = TY_K_LOAD;
	in.base = r->lbase;
	in.index = TY_REG_NONE;
	in.disp = r->cval;
	unsigned size = r->lsize;
	struct ty_obj obj;
	int64_t off;
	memset(r, 0, sizeof(*r));
	if (operand_obj(b, &in, NULL, &obj, &off))
		r->valid = loaded_pointer(&obj, elem_off(&obj, off), size, &r->obj);
}

static void lazy_force(struct ty_bin *b, struct ty_rstate *st, int reg)
{
	if (reg >= 0 && reg < TY_NREGS)
		lazy_resolve(b, &st[reg]);
}

static void track_step(struct ty_bin *b, const struct ty_insn *in, struct ty_rstate *st)
{
	struct ty_rstate nv = { 0 };
	int dst = TY_REG_NONE;
	struct ty_obj obj;
	int64_t off;
	/* the registers whose type this instruction reads (a copy keeps a
	 * lazy state as it is) */
	lazy_force(b, st, in->base);
	lazy_force(b, st, in->index);
	if (in->kind == TY_K_ADD) {
		lazy_force(b, st, in->dst);
		lazy_force(b, st, in->src);
	}
	if (in->kind == TY_K_MOVRR && in->src == ty_reg_sp(b->arch))
		lazy_force(b, st, in->src);
	if (in->kind == TY_K_LOAD && in->mem_size && in->mem_size != 8) {
		/* what loaded_pointer asks of the member (a pointer, as wide
		 * as the load) no load of another width meets: the operand's
		 * scan would find nothing for the register */
		dst = in->dst;
	} else if (in->kind == TY_K_LOAD && !in->rip_rel && !in->fs_seg && in->base >= 0 &&
		   in->base < TY_NREGS && !st[in->base].valid) {
		/* what operand_obj would find by the scope search, later */
		dst = in->dst;
		nv.lazy = true;
		nv.lpc = in->addr;
		nv.lbase = (int8_t)in->base;
		nv.cval = in->disp;
		nv.lsize = (uint8_t)(in->mem_size ? in->mem_size : 8);
	} else if (in->kind == TY_K_LOAD && operand_obj(b, in, st, &obj, &off)) {
		dst = in->dst;
		off = elem_off(&obj, off);
		nv.valid = loaded_pointer(&obj, off, in->mem_size ? in->mem_size : 8, &nv.obj);
	} else if (in->kind == TY_K_LEA && !in->rip_rel && in->base >= 0 && in->base < TY_NREGS &&
		   st[in->base].valid &&
		   (in->index < 0 || (in->index < TY_NREGS && !st[in->index].valid))) {
		/* base + disp, or an element (index * scale) of what base
		 * points to: the same type */
		dst = in->dst;
		nv = st[in->base];
		nv.obj.adj += in->disp;
		if (in->index >= 0 && st[in->index].isconst && in->scale > 0)
			nv.obj.adj += st[in->index].cval * in->scale; /* a known offset */
		else
			nv.obj.indexed |= in->index >= 0;
	} else if (in->kind == TY_K_ADD && in->dst >= 0 && in->dst < TY_NREGS &&
		   st[in->dst].valid) {
		dst = in->dst;
		nv = st[in->dst];
		if (in->src < 0)
			nv.obj.adj += in->disp;
		else if (in->src >= TY_NREGS || st[in->src].valid)
			nv.valid = false; /* pointer + pointer: not an element */
	} else if (in->kind == TY_K_LEA &&
		   (in->index < 0 || (b->arch == TY_ARCH_AARCH64 && in->index < TY_NREGS &&
				      !st[in->index].valid)) &&
		   operand_obj(b, in, st, &obj, &off)) {
		/* aarch64 add/madd with an untracked index register: an
		 * element of what the base (a DWARF variable) points to */
		dst = in->dst;
		nv.valid = true;
		nv.obj = obj;
		nv.obj.adj = off;
		nv.obj.via = PMS_TYPE_VIA_TRACK;
		nv.obj.indexed |= in->index >= 0;
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
		/* memoized per callee (key: the target with bit 63 set) */
		uint64_t key = in->target | 1ull << 63;
		struct ty_scanmemo *m = scan_slot(b, key);
		if (m && m->pc == key) {
			nv.valid = m->ok;
			if (m->ok)
				nv.obj = b->scanres[m->res - 1].obj;
		} else {
			nv.valid = callee_ret(b, in->target, &nv.obj);
			if (m) /* (status: not a scan's) */
				scan_keep(b, m, key, PMS_TYPE_NO_SCOPE, nv.valid, &nv.obj, NULL);
		}
	}
	if (in->kind == TY_K_MOVI && in->dst >= 0 && in->dst < TY_NREGS) {
		dst = in->dst; /* mov xN, #imm */
		nv.isconst = true;
		nv.cval = in->disp;
	}
	for (int r = 0; r < TY_NREGS && r < 64; r++)
		if (in->written & (1ull << r))
			st[r].valid = st[r].isconst = st[r].lazy = false;
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

/* The walk from the function's start to pc (no memory for the record). */
static bool track_full(struct ty_bin *b, uint64_t a, uint64_t pc, int reg, struct ty_obj *out,
		       struct ty_rstate *rs)
{
	struct ty_rstate st[TY_NREGS];
	memset(st, 0, sizeof(st));
	for (int i = 0; a < pc && i < TY_WALK_MAX; i++) {
		struct ty_insn in;
		if (ty_bin_insn(b, a, &in) != 0)
			return false;
		track_step(b, &in, st);
		a += in.size;
	}
	if (a == pc)
		lazy_force(b, st, reg);
	if (a == pc && rs)
		*rs = st[reg];
	if (a != pc || !st[reg].valid)
		return false;
	*out = st[reg].obj;
	out->via = PMS_TYPE_VIA_TRACK;
	return true;
}

/* A function's linear walk from its start, done once and as far as the IPs
 * asked so far need (each IP of a function walked it again from the start):
 * the state at its frontier, and for each memory instruction passed, the
 * types its base and index registers held (the only registers asked about
 * at an IP). */
struct ty_wrec {
	uint64_t addr;
	int16_t base, index;
	uint32_t sb, si;      /* the registers' states: 1 + their index in the
			       * walk's pool, 0 for none (neither a type nor
			       * a constant, as most are) */
};

struct ty_walk {
	uint64_t start;       /* ~0 for an empty slot (ty_pc_slot's key) */
	uint64_t a;           /* the frontier: the next instruction */
	int step;             /* instructions walked to it */
	bool dead;            /* the instruction at a does not decode */
	struct ty_rstate *st; /* the registers at the frontier */
	struct ty_wrec *rec;  /* by addr (the walk only goes forward) */
	size_t nrec, caprec;
	struct ty_rstate *pool; /* the records' states that are something */
	size_t npool, cappool;
};

_Static_assert(offsetof(struct ty_walk, start) == 0, "ty_pc_slot: pc first");

static struct ty_walk *walk_of(struct ty_bin *b, uint64_t start)
{
	void *t = b->walks;
	struct ty_walk *w = ty_pc_slot(&t, &b->nwalks, &b->capwalks, sizeof(*w), 64, start);
	b->walks = t;
	if (!w || w->start == start)
		return w;
	struct ty_rstate *st = calloc(TY_NREGS, sizeof(*st));
	if (!st)
		return NULL;
	*w = (struct ty_walk){ .start = start, .a = start, .st = st };
	b->nwalks++;
	return w;
}

static void walks_free(struct ty_bin *b)
{
	struct ty_walk *w = b->walks;
	for (size_t i = 0; i < b->capwalks; i++)
		if (w[i].start != ~0ull) {
			free(w[i].st);
			free(w[i].rec);
			free(w[i].pool);
		}
	free(w);
}

/* A register's state kept for a record: 0 (none), or 1 + its place in the
 * pool; false without memory. */
static bool wrec_state(struct ty_walk *w, int reg, uint32_t *out)
{
	*out = 0;
	if (reg < 0 || reg >= TY_NREGS ||
	    (!w->st[reg].valid && !w->st[reg].isconst && !w->st[reg].lazy))
		return true;
	if (w->npool == w->cappool) {
		size_t nc = w->cappool ? w->cappool * 2 : 8;
		struct ty_rstate *nv = realloc(w->pool, nc * sizeof(*nv));
		if (!nv || w->npool >= UINT32_MAX - 1) {
			if (nv)
				w->pool = nv;
			return false;
		}
		w->pool = nv;
		w->cappool = nc;
	}
	w->pool[w->npool] = w->st[reg];
	*out = (uint32_t)++w->npool;
	return true;
}

static bool wrec_add(struct ty_walk *w, const struct ty_insn *in)
{
	if (w->nrec == w->caprec) {
		size_t nc = w->caprec ? w->caprec * 2 : 16;
		struct ty_wrec *nv = realloc(w->rec, nc * sizeof(*nv));
		if (!nv)
			return false;
		w->rec = nv;
		w->caprec = nc;
	}
	struct ty_wrec r = { in->addr, (int16_t)in->base, (int16_t)in->index, 0, 0 };
	if (!wrec_state(w, in->base, &r.sb) || !wrec_state(w, in->index, &r.si))
		return false;
	w->rec[w->nrec++] = r;
	return true;
}

/* The type register reg holds at pc (rs, when given: its whole state,
 * a constant included). */
static bool track(struct ty_bin *b, Dwarf_Die *func, uint64_t pc, int reg, struct ty_obj *out,
		  struct ty_rstate *rs)
{
	uint64_t a;
	if (!func_start(func, pc, &a))
		return false;
	struct ty_walk *w = walk_of(b, a);
	if (!w)
		return track_full(b, a, pc, reg, out, rs);
	while (!w->dead && w->a < pc && w->step < TY_WALK_MAX) {
		struct ty_insn in;
		if (ty_bin_insn(b, w->a, &in) != 0) {
			w->dead = true;
			break;
		}
		if (in.has_mem && !wrec_add(w, &in))
			return track_full(b, a, pc, reg, out, rs);
		track_step(b, &in, w->st);
		w->a += in.size;
		w->step++;
	}
	struct ty_rstate *st = NULL;
	if (pc == w->a) {
		lazy_force(b, w->st, reg);
		st = &w->st[reg];
	} else if (pc < w->a) {
		size_t lo = 0, hi = w->nrec;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (w->rec[mid].addr < pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == w->nrec || w->rec[lo].addr != pc)
			return false; /* not an instruction of the walk */
		const struct ty_wrec *r = &w->rec[lo];
		static struct ty_rstate none; /* (never lazy: never written) */
		uint32_t k;
		if (reg == r->base)
			k = r->sb;
		else if (reg == r->index)
			k = r->si;
		else
			return track_full(b, a, pc, reg, out, rs);
		st = k ? &w->pool[k - 1] : &none;
		lazy_resolve(b, st);
	}
	if (st && rs)
		*rs = *st;
	if (!st || !st->valid)
		return false;
	*out = st->obj;
	out->via = PMS_TYPE_VIA_TRACK;
	return true;
}

/* ---- one IP ---- */

/* ty_scan_scopes of the IP's instruction's base and displacement, through the
 * memo that operand_obj keeps by pc (a walk may have scanned it, or will). */
static enum pms_type_status ip_scan(struct ty_bin *b, const struct ty_insn *in,
				    struct ty_obj *obj, Dwarf_Die *func)
{
	struct ty_scanmemo *m = scan_slot(b, in->addr);
	if (m && m->pc == in->addr) {
		const struct ty_scanres *r = m->res ? &b->scanres[m->res - 1] : NULL;
		if (m->ok)
			*obj = r->obj;
		if (m->status != PMS_TYPE_NO_SCOPE)
			*func = r->func;
		return (enum pms_type_status)m->status;
	}
	enum pms_type_status st = ty_scan_scopes(b, in->addr, in->base, in->disp, obj, func);
	if (m)
		scan_keep(b, m, in->addr, (uint8_t)st, st == PMS_TYPE_OK, obj,
			  st != PMS_TYPE_NO_SCOPE ? func : NULL);
	return st;
}

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
		res->obj = (struct ty_obj){ g->type, 0, PMS_TYPE_VIA_TLS, g->name, false };
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
	enum pms_type_status s = ip_scan(b, &in, &res->obj, &func);
	if (s != PMS_TYPE_OK && s != PMS_TYPE_NO_SCOPE && track(b, &func, pc, in.base, &res->obj, NULL))
		s = PMS_TYPE_OK;
	/* base + index * 1: either may be the pointer (clang puts the
	 * scaled index in the base) */
	if (s != PMS_TYPE_OK && s != PMS_TYPE_NO_SCOPE && in.index >= 0 && in.index < TY_NREGS &&
	    in.scale == 1 &&
	    (ty_scan_scopes(b, pc, in.index, in.disp, &res->obj, NULL) == PMS_TYPE_OK ||
	     track(b, &func, pc, in.index, &res->obj, NULL)))
		s = PMS_TYPE_OK;
	res->status = s;
	res->has_obj = s == PMS_TYPE_OK;
	res->offset = in.disp + res->obj.adj;
	/* an element of an array of the type: a constant part of the index
	 * folded into the displacement */
	uint64_t size = res->has_obj ? ty_size(&res->obj.type) : 0;
	/* an index register holding a known constant (mov xN, #imm): an
	 * offset, not an element */
	struct ty_rstate ix = { 0 };
	struct ty_obj ixo;
	/* (only aarch64's decoding gives constants, TY_K_MOVI: on x86-64 the
	 * walk would be for nothing) */
	if (res->has_obj && in.index >= 0 && in.index < TY_NREGS && in.scale > 0 &&
	    b->arch == TY_ARCH_AARCH64) {
		(void)track(b, &func, pc, in.index, &ixo, &ix);
		if (ix.isconst)
			res->offset += ix.cval * in.scale;
	}
	if (res->has_obj && ((in.index >= 0 && !ix.isconst) || res->obj.indexed) && size &&
	    res->obj.via != PMS_TYPE_VIA_STACK &&
	    (res->offset < 0 || (uint64_t)res->offset >= size))
		res->offset = ((res->offset % (int64_t)size) + (int64_t)size) % (int64_t)size;
}

/* Remember where a type name's DIE is (for its layout).  Of several types
 * of one name (a `struct opts` per source file) the one first by binary
 * path and DIE offset, whatever order the IPs were resolved in (--jobs
 * resolves them as the chunks ask). */
static void note_type(struct pms_typeres *r, const char *name, struct ty_bin *b, Dwarf_Die *t)
{
	struct ty_str *e = name ? (struct ty_str *)(void *)(name - offsetof(struct ty_str, s)) : NULL;
	Dwarf_Die p;
	if (!e || !ty_peel(t, &p))
		return;
	Dwarf_Off off = dwarf_dieoffset(&p);
	int c = e->bin ? (e->bin == b ? 0 : strcmp(b->path, e->bin->path)) : -1;
	if (c < 0 || (c == 0 && e->bin == b && off < e->die)) {
		e->bin = b;
		e->die = off;
	}
	(void)r;
}

/* What fill_hit found for a (type DIE, offset): many IPs (and every
 * sample of a global) ask the same member of the same type. */
struct ty_fillmemo {
	uint64_t key;         /* a hash of the two; ~0 for an empty slot */
	void *die;            /* the type DIE (Dwarf_Die.addr) */
	int64_t offset;
	bool ok;              /* false: the offset is outside the type */
	const char *type, *member;
	uint64_t type_size, moff, msize;
};

_Static_assert(offsetof(struct ty_fillmemo, key) == 0, "ty_pc_slot: pc first");

static void fills_free(struct ty_bin *b)
{
	free(b->fills);
}

static void fill_out(struct pms_typeres *r, const struct ty_obj *obj, int64_t offset,
		     const struct ty_fillmemo *m, struct pms_type_hit *out)
{
	out->status = PMS_TYPE_OK;
	out->via = obj->via;
	out->type = m->type;
	out->type_size = m->type_size;
	out->offset = offset;
	out->member = m->member;
	out->member_offset = m->moff;
	out->member_size = m->msize;
	out->var = intern(r, obj->var ? obj->var : "");
	if (!out->var)
		out->status = PMS_TYPE_NO_VAR;
}

static void fill_hit(struct pms_typeres *r, struct ty_bin *b, const struct ty_obj *obj,
		     int64_t offset, unsigned size, struct pms_type_hit *out)
{
	(void)size;
	if (offset < 0) {
		out->status = PMS_TYPE_BAD_OFFSET;
		return;
	}
	uint64_t key = ((uint64_t)(uintptr_t)obj->type.addr * 0x9e3779b97f4a7c15ull) ^
		       (uint64_t)offset;
	if (key == ~0ull)
		key = 0;
	void *tab = b->fills;
	struct ty_fillmemo *m = ty_pc_slot(&tab, &b->nfills, &b->capfills, sizeof(*m), 256, key);
	b->fills = tab;
	if (m && m->key == key && (m->die != obj->type.addr || m->offset != offset))
		m = NULL; /* another (type, offset) with the same hash: not kept */
	if (!m || m->key != key) {
		char path[256], tname[256];
		struct ty_fillmemo f = { key, obj->type.addr, offset, false, NULL, NULL, 0, 0, 0 };
		Dwarf_Die leaf, t = obj->type;
		if (ty_member_at(&t, (uint64_t)offset, 0, path, sizeof(path), &f.moff, &f.msize,
				 &leaf)) {
			ty_name(&t, tname, sizeof(tname));
			f.ok = true;
			f.type = intern(r, tname);
			note_type(r, f.type, b, &t);
			f.type_size = ty_size(&t);
			f.member = intern(r, path);
		}
		if (f.ok && (!f.type || !f.member)) {
			out->status = PMS_TYPE_NO_VAR;
			return;
		}
		if (m) {
			*m = f;
			b->nfills++;
		}
		m = &f;
		if (!f.ok) {
			out->status = PMS_TYPE_BAD_OFFSET;
			return;
		}
		fill_out(r, obj, offset, m, out);
		return;
	}
	if (!m->ok) {
		out->status = PMS_TYPE_BAD_OFFSET;
		return;
	}
	fill_out(r, obj, offset, m, out);
}

/* The first formal parameter of the function entered at target, when it
 * is a pointer: its pointee (a C++ constructor's `this`). */
static bool callee_this(struct ty_bin *b, uint64_t target, struct ty_obj *out)
{
	Dwarf_Die sub, c, pt, obj, t;
	Dwarf_Addr entry;
	if (!target || !ty_scope_func(b, target, &sub) || dwarf_entrypc(&sub, &entry) != 0 ||
	    entry != target || dwarf_child(&sub, &c) != 0)
		return false;
	do {
		if (dwarf_tag(&c) != DW_TAG_formal_parameter)
			continue;
		if (!ty_type_of(&c, &t) || !ty_peel(&t, &pt) || dwarf_tag(&pt) != DW_TAG_pointer_type ||
		    !ty_type_of(&pt, &obj))
			return false; /* the first parameter only */
		*out = (struct ty_obj){ obj, 0, PMS_TYPE_VIA_TRACK, dwarf_diename(&c), false };
		return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* A return (not a jump): x86 ret (c3, c2 iw), aarch64 ret. */
static bool is_return(struct ty_bin *b, const struct ty_insn *in)
{
	for (size_t i = 0; i < b->ncode; i++) {
		const struct ty_code *c = &b->code[i];
		if (in->addr < c->addr || in->addr - c->addr >= c->size)
			continue;
		const uint8_t *p = c->bytes + (in->addr - c->addr);
		if (b->arch == TY_ARCH_X86_64)
			return p[0] == 0xc3 || p[0] == 0xc2;
		return in->size == 4 && c->addr + c->size - in->addr >= 4 &&
		       (p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24) == 0xd65f03c0u;
	}
	return false;
}

/* The pointee of the return type of the function that holds pc (the
 * allocation returned at once: `return new T`). */
static bool func_ret(struct ty_bin *b, uint64_t pc, struct ty_obj *out)
{
	Dwarf_Die sub, rt, pt, obj;
	if (!ty_scope_func(b, pc, &sub) || !ty_type_of(&sub, &rt) || !ty_peel(&rt, &pt) ||
	    dwarf_tag(&pt) != DW_TAG_pointer_type || !ty_type_of(&pt, &obj))
		return false;
	*out = (struct ty_obj){ obj, 0, PMS_TYPE_VIA_TRACK, dwarf_diename(&sub), false };
	return true;
}

/* After an allocator's call returns at pc (its result in rax / x0): the
 * first thing done with the result that DWARF types.  0: *obj found. */
static int alloc_obj(struct ty_bin *b, uint64_t pc, struct ty_obj *obj)
{
	uint64_t held = 1; /* DWARF reg 0: rax on x86-64, x0 on aarch64 */
	int arg0 = b->arch == TY_ARCH_X86_64 ? 5 : 0; /* rdi / x0 */
	for (int k = 0; k < 24 && held; k++) {
		struct ty_insn in;
		if (ty_bin_insn(b, pc, &in) != 0)
			return -1;
		struct ty_ipres res;
		memset(&res, 0, sizeof(res));
		bool through = in.has_mem && !in.rip_rel && in.kind != TY_K_LEA && in.base >= 0 &&
			       in.base < TY_NREGS && (held >> in.base & 1);
		bool stored = in.kind == TY_K_STORE && in.src >= 0 && in.src < TY_NREGS &&
			      (held >> in.src & 1);
		if (through || stored)
			resolve_ip(b, pc, &res);
		/* an access through the new pointer: the object it points at */
		if (through && res.has_obj && res.obj.adj == 0) {
			*obj = res.obj;
			return 0;
		}
		/* the pointer stored into a typed slot (a variable, a member):
		 * the slot's pointer type names the object */
		if (stored && res.has_obj && res.offset >= 0) {
			char path[256];
			uint64_t mo, ms;
			Dwarf_Die leaf, pt, t = res.obj.type;
			if (ty_member_at(&t, (uint64_t)res.offset, in.mem_size, path, sizeof(path), &mo,
					 &ms, &leaf) &&
			    ty_peel(&leaf, &pt) && dwarf_tag(&pt) == DW_TAG_pointer_type &&
			    ty_type_of(&pt, &obj->type)) {
				obj->adj = 0;
				obj->via = res.obj.via;
				obj->var = res.obj.var;
				return 0;
			}
		}
		if (in.kind == TY_K_CALL)
			return held >> arg0 & 1 && callee_this(b, in.target, obj) ? 0 : -1;
		/* a return: the function's return type; a jump (a loop's back
		 * edge, -O0 value-initialisation): the walk goes on past it */
		if (in.kind == TY_K_RET && is_return(b, &in))
			return held & 1 && func_ret(b, pc, obj) ? 0 : -1;
		uint64_t add = 0;
		if (in.kind == TY_K_MOVRR && in.src >= 0 && in.src < TY_NREGS && (held >> in.src & 1) &&
		    in.dst >= 0 && in.dst < TY_NREGS)
			add = 1ull << in.dst;
		held = (held & ~in.written) | add;
		pc += in.size;
	}
	return -1;
}

int pms_typeres_alloc_type(struct pms_typeres *r, const char *path, uint64_t bias,
			   uint64_t ret_ip, struct pms_type_hit *out)
{
	memset(out, 0, sizeof(*out));
	struct ty_bin *b = NULL;
	int rc = path && *path ? get_bin(r, path, &b) : 0;
	if (rc < 0)
		return rc;
	if (!b || b->bad) {
		out->status = PMS_TYPE_NO_BINARY;
		return 0;
	}
	if (b->no_debug) {
		out->status = PMS_TYPE_NO_DEBUG;
		return 0;
	}
	struct ty_obj obj;
	if (alloc_obj(b, ret_ip - bias, &obj) < 0) {
		out->status = PMS_TYPE_NO_VAR;
		return 0;
	}
	fill_hit(r, b, &obj, 0, 0, out);
	return 0;
}

void ty_res_set_lookups(struct pms_typeres *r, uint64_t lookups)
{
	r->lookups = lookups;
}

void pms_typeres_cache_stats(const struct pms_typeres *r, uint64_t *lookups, uint64_t *computed)
{
	*lookups = r->lookups;
	*computed = r->computed;
}

static int lookup_bin(struct pms_typeres *r, struct ty_bin *b, uint64_t bias, uint64_t ip,
		      uint64_t addr, bool has_addr, struct pms_type_hit *out)
{
	if (b->bad) {
		memset(out, 0, sizeof(*out));
		out->status = PMS_TYPE_NO_BINARY;
		return 0;
	}
	if (b->no_debug) {
		memset(out, 0, sizeof(*out));
		out->status = PMS_TYPE_NO_DEBUG;
		return 0;
	}
	uint64_t pc = ip - bias;
	if (pc == ~0ull) { /* the tables' empty key: no instruction there */
		r->lookups++;
		r->computed++;
		memset(out, 0, sizeof(*out));
		out->status = PMS_TYPE_NO_INSN;
		return 0;
	}
	bool fresh = false;
	struct ty_ipkey *k = cache_find(b, pc);
	if (!k && !(k = cache_get(b, pc, &fresh)))
		return pms_err(PMS_ENOMEM, "types: cache");
	r->lookups++;
	if (fresh) { /* resolve_ip asks no lookup: k stays in place */
		r->computed++;
		struct ty_ipres *n = &b->ipres[k->i];
		resolve_ip(b, pc, n);
		k->status = (uint8_t)n->status;
		k->has_obj = n->has_obj;
		k->store = n->store;
	}
	/* a global of this binary at the sampled address: the address says */
	const struct ty_gvar *g =
		has_addr && addr - bias < b->gv_end ? ty_bin_global(b, addr - bias) : NULL;
	if (g && k->status != PMS_TYPE_NO_INSN) {
		struct ty_obj obj = { g->type, 0, PMS_TYPE_VIA_GLOBAL, g->name, false };
		memset(out, 0, sizeof(*out));
		out->store = k->store;
		fill_hit(r, b, &obj, (int64_t)(addr - bias - g->addr), b->ipres[k->i].mem_size,
			 out);
		return 0;
	}
	if (!k->has_obj) {
		memset(out, 0, sizeof(*out));
		out->store = k->store;
		out->status = (enum pms_type_status)k->status;
		return 0;
	}
	struct ty_ipres *res = &b->ipres[k->i];
	/* the answer depends on the IP alone: filled once (its strings are
	 * interned, its type noted for the layout on the first fill) */
	if (!res->hit_done) {
		fill_hit(r, b, &res->obj, res->offset, res->mem_size, &res->hit);
		res->hit.store = res->store;
		res->hit_done = true;
	}
	*out = res->hit;
	return 0;
}

int pms_typeres_lookup(struct pms_typeres *r, const char *path, uint64_t bias, uint64_t ip,
		       uint64_t addr, bool has_addr, struct pms_type_hit *out)
{
	if (!path || !*path) {
		memset(out, 0, sizeof(*out));
		out->status = PMS_TYPE_NO_BINARY;
		return 0;
	}
	struct ty_bin *b;
	int rc = get_bin(r, path, &b);
	if (rc < 0) {
		memset(out, 0, sizeof(*out));
		return rc;
	}
	return lookup_bin(r, b, bias, ip, addr, has_addr, out);
}

/* The load bias of b mapped at map_start from map_pgoff (pms_typeres_bias). */
static int bin_bias(struct pms_typeres *r, struct ty_bin *b, uint64_t map_start,
		    uint64_t map_pgoff, uint64_t *bias)
{
	if (b->bad || !b->elf)
		return PMS_ENOENT;
	if (r->lastbias.bin == b && r->lastbias.start == map_start &&
	    r->lastbias.pgoff == map_pgoff) {
		*bias = r->lastbias.bias;
		return 0;
	}
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
		r->lastbias.bin = b;
		r->lastbias.start = map_start;
		r->lastbias.pgoff = map_pgoff;
		r->lastbias.bias = *bias;
		return 0;
	}
	return PMS_ENOENT;
}

int pms_typeres_bias(struct pms_typeres *r, const char *path, uint64_t map_start,
		     uint64_t map_pgoff, uint64_t *bias)
{
	struct ty_bin *b;
	int rc = get_bin(r, path, &b);
	if (rc < 0)
		return rc;
	return bin_bias(r, b, map_start, map_pgoff, bias);
}

uint64_t ty_res_bins_gen(const struct pms_typeres *r)
{
	return r->gen;
}

int ty_res_map_bin(struct pms_typeres *r, const char *path, uint64_t map_start,
		   uint64_t map_pgoff, struct ty_bin **b, uint64_t *bias)
{
	if (!path || !*path)
		return 1;
	int rc = get_bin(r, path, b);
	if (rc < 0)
		return rc;
	*bias = 0;
	rc = bin_bias(r, *b, map_start, map_pgoff, bias);
	return rc == PMS_ENOENT ? 1 : rc;
}

int ty_res_lookup_in(struct pms_typeres *r, struct ty_bin *b, uint64_t bias, uint64_t ip,
		     uint64_t addr, bool has_addr, struct pms_type_hit *out)
{
	if (!b) /* as pms_typeres_lookup without a path */
		return pms_typeres_lookup(r, NULL, 0, ip, addr, has_addr, out);
	return lookup_bin(r, b, bias, ip, addr, has_addr, out);
}

int ty_res_lookup_mapped(struct pms_typeres *r, const char *path, uint64_t map_start,
			 uint64_t map_pgoff, uint64_t ip, uint64_t addr, bool has_addr,
			 struct pms_type_hit *out)
{
	struct ty_bin *b = NULL;
	uint64_t bias = 0;
	int rc = ty_res_map_bin(r, path, map_start, map_pgoff, &b, &bias);
	if (rc < 0) {
		memset(out, 0, sizeof(*out));
		return rc;
	}
	return ty_res_lookup_in(r, rc ? NULL : b, bias, ip, addr, has_addr, out);
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
