/* One binary for type resolution: its ELF and DWARF (libdw), call-frame
 * information, static and thread-local variables sorted by address, and
 * its executable sections' bytes for the decoder. */
#include <dwarf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "types/typeres_int.h"
#include "util/error.h"
#include "util/grow.h"

struct gv_list {
	struct ty_gvar *v;
	size_t n, cap;
};

static int gv_push(struct gv_list *l, const struct ty_gvar *g)
{
	int rc = pms_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v), 64, "types: globals");
	if (rc < 0)
		return rc;
	l->v[l->n++] = *g;
	return 0;
}

/* A variable DIE with a static location: DW_OP_addr (global) or a constant
 * and a TLS operator (thread-local). */
static int add_var(Dwarf_Die *die, struct gv_list *g, struct gv_list *t)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	if (!dwarf_attr(die, DW_AT_location, &a) || dwarf_getlocation(&a, &ops, &n) != 0)
		return 0;
	struct ty_gvar v = { 0 };
	if (!ty_type_of(die, &v.type))
		return 0;
	v.name = dwarf_diename(die);
	if (!v.name) {
		Dwarf_Attribute na;
		v.name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &na));
	}
	v.size = ty_size(&v.type);
	if (!v.size)
		return 0;
	if (n == 1 && ops[0].atom == DW_OP_addr) {
		v.addr = ops[0].number;
		return gv_push(g, &v);
	}
	if (n == 1 && (ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index)) {
		/* DWARF 5 (clang): the address is in .debug_addr */
		Dwarf_Attribute r;
		Dwarf_Addr ad;
		if (dwarf_getlocation_attr(&a, ops, &r) != 0 || dwarf_formaddr(&r, &ad) != 0)
			return 0;
		v.addr = ad;
		return gv_push(g, &v);
	}
	if (n == 2 && (ops[1].atom == DW_OP_GNU_push_tls_address ||
		       ops[1].atom == DW_OP_form_tls_address) &&
	    (ops[0].atom == DW_OP_const8u || ops[0].atom == DW_OP_const4u ||
	     ops[0].atom == DW_OP_constu || ops[0].atom == DW_OP_const1u ||
	     ops[0].atom == DW_OP_const2u)) {
		v.addr = ops[0].number;
		return gv_push(t, &v);
	}
	return 0;
}

static int walk_vars(Dwarf_Die *parent, struct gv_list *g, struct gv_list *t, int depth)
{
	Dwarf_Die c;
	if (depth > 16 || dwarf_child(parent, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c), rc = 0;
		if (tag == DW_TAG_variable)
			rc = add_var(&c, g, t);
		else if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
			 tag == DW_TAG_namespace || tag == DW_TAG_inlined_subroutine)
			rc = walk_vars(&c, g, t, depth + 1);
		if (rc < 0)
			return rc;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int gv_cmp(const void *a, const void *b)
{
	const struct ty_gvar *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int load_vars(struct ty_bin *b)
{
	struct gv_list g = { 0 }, t = { 0 };
	Dwarf_Off off = 0, next;
	size_t hsize;
	int rc = 0;
	while (rc == 0 && dwarf_nextcu(b->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(b->dw, off + hsize, &cu))
			rc = walk_vars(&cu, &g, &t, 0);
		off = next;
	}
	if (rc < 0) {
		free(g.v);
		free(t.v);
		return rc;
	}
	if (g.n > 1)
		qsort(g.v, g.n, sizeof(*g.v), gv_cmp);
	if (t.n > 1) /* none: v is NULL, which qsort may not take */
		qsort(t.v, t.n, sizeof(*t.v), gv_cmp);
	b->gv = g.v;
	b->ngv = g.n;
	for (size_t i = 0; i < g.n; i++)
		if (g.v[i].addr + g.v[i].size > b->gv_end)
			b->gv_end = g.v[i].addr + g.v[i].size;
	b->tls = t.v;
	b->ntls = t.n;
	return 0;
}

static const struct ty_gvar *find(const struct ty_gvar *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the last variable starting at or before addr that covers it */
	for (size_t i = lo; i-- > 0 && lo - i < 8;)
		if (addr < v[i].addr + v[i].size)
			return &v[i];
	return NULL;
}

const struct ty_gvar *ty_bin_global(const struct ty_bin *b, uint64_t addr)
{
	/* most sampled addresses (heap, stack) lie past every global */
	if (addr >= b->gv_end)
		return NULL;
	return find(b->gv, b->ngv, addr);
}

const struct ty_gvar *ty_bin_tls(const struct ty_bin *b, uint64_t off)
{
	return find(b->tls, b->ntls, off);
}

static int load_code(struct ty_bin *b)
{
	size_t shnum;
	if (elf_getshdrnum(b->elf, &shnum) != 0)
		return 0;
	b->code = calloc(shnum ? shnum : 1, sizeof(*b->code));
	if (!b->code)
		return pms_err(PMS_ENOMEM, "types: sections");
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(b->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		b->code[b->ncode++] = (struct ty_code){ sh.sh_addr, d->d_size, d->d_buf };
	}
	size_t phnum;
	if (elf_getphdrnum(b->elf, &phnum) == 0)
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(b->elf, (int)i, &ph) && ph.p_type == PT_TLS) {
				uint64_t al = ph.p_align ? ph.p_align : 1;
				b->tls_aligned = (ph.p_memsz + al - 1) / al * al;
			}
		}
	return 0;
}

int ty_bin_insn(struct ty_bin *b, uint64_t pc, struct ty_insn *out)
{
	for (size_t i = 0; i < b->ncode; i++) {
		const struct ty_code *c = &b->code[i];
		if (pc >= c->addr && pc < c->addr + c->size) {
			size_t left = c->addr + c->size - pc;
			return ty_decode(b->dec, c->bytes + (pc - c->addr), left < 16 ? left : 16, pc,
					 out);
		}
	}
	return -1;
}

int ty_bin_open(const char *path, struct ty_bin **out)
{
	struct ty_bin *b = calloc(1, sizeof(*b));
	if (!b || !(b->path = strdup(path))) {
		free(b);
		return pms_err(PMS_ENOMEM, "types: binary");
	}
	b->fd = open(path, O_RDONLY | O_CLOEXEC);
	*out = b;
	elf_version(EV_CURRENT);
	if (b->fd < 0 || !(b->elf = elf_begin(b->fd, ELF_C_READ_MMAP, NULL)) ||
	    elf_kind(b->elf) != ELF_K_ELF) {
		b->bad = true;
		return 0;
	}
	GElf_Ehdr eh;
	if (!gelf_getehdr(b->elf, &eh) ||
	    (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64)) {
		b->bad = true;
		return 0;
	}
	b->arch = eh.e_machine == EM_X86_64 ? TY_ARCH_X86_64 : TY_ARCH_AARCH64;
	int rc = ty_decoder_new(b->arch, &b->dec);
	if (rc == 0)
		rc = load_code(b);
	if (rc < 0)
		return rc;
	b->dw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
	if (!b->dw) {
		b->no_debug = true;
		return 0;
	}
	b->cfi = dwarf_getcfi(b->dw);
	b->ehcfi = dwarf_getcfi_elf(b->elf);
	return load_vars(b);
}

void ty_bin_free(struct ty_bin *b)
{
	if (!b)
		return;
	free(b->gv);
	free(b->tls);
	free(b->code);
	free(b->cache);
	free(b->ipres);
	free(b->scan);
	free(b->scanres);
	ty_decoder_free(b->dec);
	if (b->ehcfi)
		dwarf_cfi_end(b->ehcfi);
	if (b->dw)
		dwarf_end(b->dw);
	if (b->elf)
		elf_end(b->elf);
	if (b->fd >= 0)
		close(b->fd);
	free(b->path);
	free(b);
}
