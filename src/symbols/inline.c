/* The inline stack at a code address from the module's DWARF (inline_int.h):
 * the scopes holding the address, as libdw's dwarf_getscopes finds them,
 * from an index of its unit's code scopes built once (scopeidx.h); each
 * DW_TAG_inlined_subroutine and the DW_TAG_subprogram around them named by
 * their abstract origin (a linkage name first, as binutils' addr2line reads
 * them, then DW_AT_name), each outer one's line from the inlined call's
 * DW_AT_call_file/DW_AT_call_line. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/cuidx.h"
#include "symbols/inline_int.h"
#include "symbols/scopeidx.h"
#include "symbols/symbols_int.h"
#include "util/error.h"

/* One address's answer: frames [first, first + n) of the pool. */
struct slot {
	uint64_t off;
	uint32_t first, n;
	bool used;
};

/* A unit's scope index, by its unit DIE. */
struct unit {
	const void *addr; /* the unit DIE's; NULL: free slot */
	Dwarf_Die cu;
	struct pms_scopeidx *x;
};

struct module {
	char *path;
	/* the symbolizer's handle on the file's DWARF (its units' index too);
	 * NULL: no DWARF (or not readable): no frame, no more work */
	struct pms_sym_dwfile *f;
	struct slot *slots;
	size_t cap, used;
	struct unit *units; /* open addressing by unit DIE address */
	size_t capu, nu;
};

struct pms_inline {
	struct pms_symbolizer *sym;
	struct module *mods;
	size_t nmods, capmods;
	size_t last; /* the module of the last lookup */
	struct pms_inl_frame *pool;
	size_t npool, cappool;
	char **owned; /* demangled names */
	size_t nowned, capowned;
};

int pms_inline_new(struct pms_symbolizer *sym, struct pms_inline **out)
{
	struct pms_inline *c = calloc(1, sizeof(*c));
	*out = c;
	if (!c)
		return pms_err(PMS_ENOMEM, "inline frames: out of memory");
	c->sym = sym;
	return 0;
}

void pms_inline_free(struct pms_inline *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nmods; i++) {
		free(c->mods[i].path);
		free(c->mods[i].slots);
		for (size_t j = 0; j < c->mods[i].capu; j++)
			pms_scopeidx_free(c->mods[i].units[j].x);
		free(c->mods[i].units);
	}
	for (size_t i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
	free(c->mods);
	free(c->pool);
	free(c);
}

static struct module *module_of(struct pms_inline *c, const char *path)
{
	if (c->last < c->nmods &&
	    (c->mods[c->last].path == path || !strcmp(c->mods[c->last].path, path)))
		return &c->mods[c->last];
	for (size_t i = 0; i < c->nmods; i++)
		if (!strcmp(c->mods[i].path, path)) {
			c->last = i;
			return &c->mods[i];
		}
	if (c->nmods == c->capmods) {
		size_t cap = c->capmods ? 2 * c->capmods : 16;
		struct module *n = realloc(c->mods, cap * sizeof(*n));
		if (!n)
			return NULL;
		c->mods = n;
		c->capmods = cap;
	}
	struct module *m = &c->mods[c->nmods];
	memset(m, 0, sizeof(*m));
	if (!(m->path = strdup(path)))
		return NULL;
	c->last = c->nmods++;
	m->f = pms_sym_dwfile(c->sym, path);
	return m;
}

/* The link-time address of file offset off (its PT_LOAD segment). */
static bool vaddr_of(Elf *elf, uint64_t off, uint64_t *va)
{
	size_t np;
	if (elf_getphdrnum(elf, &np) < 0)
		return false;
	for (size_t i = 0; i < np; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && off >= ph.p_offset &&
		    off < ph.p_offset + ph.p_filesz) {
			*va = off - ph.p_offset + ph.p_vaddr;
			return true;
		}
	}
	return false;
}

static int pool_add(struct pms_inline *c, const char *name, const char *file, unsigned line)
{
	if (c->npool == c->cappool) {
		size_t cap = c->cappool ? 2 * c->cappool : 256;
		struct pms_inl_frame *n = realloc(c->pool, cap * sizeof(*n));
		if (!n)
			return -1;
		c->pool = n;
		c->cappool = cap;
	}
	c->pool[c->npool++] = (struct pms_inl_frame){ name, file, line };
	return 0;
}

/* A function's name as binutils reads it: the linkage name (through the
 * abstract origin or specification) demangled, else DW_AT_name. */
static const char *fn_name(struct pms_inline *c, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a)) {
		s = dwarf_formstring(&a);
		char *d = s ? pms_sym_demangle(s) : NULL;
		if (d) {
			if (c->nowned == c->capowned) {
				size_t cap = c->capowned ? 2 * c->capowned : 64;
				char **n = realloc(c->owned, cap * sizeof(*n));
				if (!n) {
					free(d);
					return s;
				}
				c->owned = n;
				c->capowned = cap;
			}
			c->owned[c->nowned++] = d;
			return d;
		}
	}
	if (!s && dwarf_attr_integrate(die, DW_AT_name, &a))
		s = dwarf_formstring(&a);
	return s ? s : "??";
}

/* The call site of inlined subroutine die: its file (in cu's file table)
 * and line. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *die, const char **file, unsigned *line)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Files *files;
	size_t nf;
	*file = NULL;
	*line = 0;
	if (dwarf_attr(die, DW_AT_call_line, &a) && dwarf_formudata(&a, &w) == 0)
		*line = (unsigned)w;
	if (dwarf_attr(die, DW_AT_call_file, &a) && dwarf_formudata(&a, &w) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nf) == 0 && w < nf)
		*file = dwarf_filesrc(files, w, NULL, NULL);
}

/* The unit holding DWARF address a: libdw's (its .debug_aranges), else the
 * units' own ranges (cuidx.h). */
static bool unit_of(struct module *m, uint64_t a, Dwarf_Die *cu)
{
	Dwarf_Addr bias;
	Dwarf_Die *d = dwfl_module_addrdie(m->f->mod, a + m->f->dwbias, &bias);
	if (d) {
		*cu = *d;
		return true;
	}
	return pms_cuidx_find(&m->f->cux, m->f->dw, a, cu) > 0;
}

static size_t unit_hash(const void *addr, size_t cap)
{
	return (size_t)((uintptr_t)addr * 0x9e3779b97f4a7c15ULL >> 24) & (cap - 1);
}

/* The scope index of unit cu, built at its first question: NULL when out
 * of memory. */
static struct unit *unit_index(struct module *m, Dwarf_Die *cu)
{
	if ((m->nu + 1) * 2 > m->capu) {
		size_t cap = m->capu ? 2 * m->capu : 64;
		struct unit *nu = calloc(cap, sizeof(*nu));
		if (!nu)
			return NULL;
		for (size_t i = 0; i < m->capu; i++) {
			if (!m->units[i].addr)
				continue;
			size_t h = unit_hash(m->units[i].addr, cap);
			while (nu[h].addr)
				h = (h + 1) & (cap - 1);
			nu[h] = m->units[i];
		}
		free(m->units);
		m->units = nu;
		m->capu = cap;
	}
	size_t h = unit_hash(cu->addr, m->capu);
	while (m->units[h].addr && m->units[h].addr != cu->addr)
		h = (h + 1) & (m->capu - 1);
	struct unit *u = &m->units[h];
	if (!u->addr) {
		if (pms_scopeidx_build(cu, &u->x) < 0)
			return NULL;
		u->addr = cu->addr;
		u->cu = *cu;
		m->nu++;
	}
	return u;
}

/* The frames at link-time address va of m, appended to the pool: their
 * count.  The innermost function (scopeidx.h) and each scope around it
 * that is a function, up to the first subprogram, as libdw's
 * dwarf_getscopes_die lists them. */
static uint32_t lookup(struct pms_inline *c, struct module *m, uint64_t va)
{
	Dwarf_Die cuc;
	struct unit *u;
	uint32_t n = 0;
	/* DWARF addresses: the link-time ones, as libdwfl relocates them */
	Dwarf_Addr a = va + m->f->mainbias - m->f->dwbias;
	if (!unit_of(m, a, &cuc) || !(u = unit_index(m, &cuc)))
		return 0;
	struct pms_scopeidx *x = u->x;
	/* the innermost line is the address's own: the caller's line
	 * lookup (symbols/dwline.c) gives it */
	const char *file = NULL;
	unsigned line = 0;
	for (uint32_t i = pms_scopeidx_func(x, a); i != PMS_SCOPE_NONE; i = x->s[i].parent) {
		struct pms_scope *sc = &x->s[i];
		if (sc->tag != DW_TAG_inlined_subroutine && sc->tag != DW_TAG_subprogram)
			continue;
		if (!sc->named) {
			sc->name = fn_name(c, &sc->die);
			sc->named = true;
		}
		if (pool_add(c, sc->name, file, line) < 0) {
			c->npool -= n;
			return 0;
		}
		n++;
		if (sc->tag == DW_TAG_subprogram)
			break;
		if (!sc->sited) {
			call_site(&u->cu, &sc->die, &sc->file, &sc->line);
			sc->sited = true;
		}
		file = sc->file;
		line = sc->line;
	}
	return n;
}

int pms_inline_at(struct pms_inline *c, const char *path, uint64_t off,
		  const struct pms_inl_frame **fr, size_t *n)
{
	struct module *m;
	uint64_t va;
	*fr = NULL;
	*n = 0;
	if (!c || !path || !(m = module_of(c, path)))
		return c && path ? pms_err(PMS_ENOMEM, "inline frames: out of memory") : 0;
	if (!m->f)
		return 0;
	if ((m->used + 1) * 2 > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 256;
		struct slot *ns = calloc(cap, sizeof(*ns));
		if (!ns)
			return pms_err(PMS_ENOMEM, "inline frames: out of memory");
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->slots[i].used)
				continue;
			size_t h = (size_t)(m->slots[i].off * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1);
			while (ns[h].used)
				h = (h + 1) & (cap - 1);
			ns[h] = m->slots[i];
		}
		free(m->slots);
		m->slots = ns;
		m->cap = cap;
	}
	size_t h = (size_t)(off * 0x9e3779b97f4a7c15ULL >> 20) & (m->cap - 1);
	while (m->slots[h].used && m->slots[h].off != off)
		h = (h + 1) & (m->cap - 1);
	struct slot *s = &m->slots[h];
	if (!s->used) {
		s->used = true;
		s->off = off;
		s->first = (uint32_t)c->npool;
		s->n = vaddr_of(m->f->elf, off, &va) ? lookup(c, m, va) : 0;
		m->used++;
	}
	*fr = s->n ? &c->pool[s->first] : NULL;
	*n = s->n;
	return 0;
}
