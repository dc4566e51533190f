/* PLT entry names, as perf synthesizes them (tools/perf/util/symbol-elf.c,
 * dso__synthesize_plt_symbols: facts read there, the code written here).
 *
 * A module's .rela.plt (or .rel.plt) has one relocation per PLT entry; the
 * entries are in the order of their GOT slots (r_offset), so the
 * relocations sorted by r_offset give the entries in order: in .plt after
 * its header (x86: 16 bytes, aarch64: 32; perf's symbol ".plt" covers it),
 * or in .plt.sec where there is one (x86 IBT, no header).  Each entry is
 * 16 bytes and named "NAME@plt" from the relocation's dynamic symbol; an
 * IRELATIVE relocation (no symbol) is named by the IFUNC symbol at its
 * addend (perf's choice among aliases: a global before a weak before a
 * local, fewer leading underscores, then the longer name), else
 * "offset_0xADDEND@plt".  Not done: .plt.got entries (perf decodes their
 * jumps), other architectures' sizes.
 */
#include "symbols/symbols_int.h"

#include <elf.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct prel {
	uint64_t off, addend;
	uint32_t sym, type;
};

static int prel_cmp(const void *a, const void *b)
{
	const struct prel *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

static Elf_Scn *scn_named(Elf *e, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		const char *n;
		if (gelf_getshdr(scn, sh) && (n = elf_strptr(e, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static unsigned underscores(const char *n)
{
	unsigned k = 0;
	while (n[k] == '_')
		k++;
	return k;
}

/* perf's choose_best_symbol between two names of one address. */
static bool better(const struct pms_plt_alias *a, const struct pms_plt_alias *b)
{
	if (a->bind != b->bind)
		return a->bind > b->bind;
	if (underscores(a->name) != underscores(b->name))
		return underscores(a->name) < underscores(b->name);
	return strlen(a->name) > strlen(b->name);
}

/* The IFUNC named at addr (file address) among the module's symbols. */
static const char *ifunc_at(const struct pms_plt_alias *v, size_t n, uint64_t addr)
{
	const struct pms_plt_alias *best = NULL;
	for (size_t i = 0; i < n; i++)
		if (v[i].addr == addr && v[i].ifunc && (!best || better(&v[i], best)))
			best = &v[i];
	return best ? best->name : NULL;
}

static int add(struct pms_plt *p, uint64_t addr, uint64_t size, const char *name)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct pms_plt_sym *v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return -1;
		p->v = v;
		p->cap = cap;
	}
	char *c = strdup(name);
	if (!c)
		return -1;
	p->v[p->n++] = (struct pms_plt_sym){ addr, size, c };
	return 0;
}

/* The relocations of the PLT, sorted by GOT slot; NULL when there are none. */
static struct prel *plt_rels(Elf *e, size_t shstrndx, bool *rela, GElf_Shdr *rsh, size_t *n)
{
	Elf_Scn *rs = scn_named(e, shstrndx, ".rela.plt", rsh);
	*rela = rs != NULL;
	if (!rs)
		rs = scn_named(e, shstrndx, ".rel.plt", rsh);
	Elf_Data *d = rs ? elf_getdata(rs, NULL) : NULL;
	if (!d || !rsh->sh_entsize)
		return NULL;
	*n = rsh->sh_size / rsh->sh_entsize;
	struct prel *v = *n ? calloc(*n, sizeof(*v)) : NULL;
	if (!v)
		return NULL;
	for (size_t i = 0; i < *n; i++) {
		if (*rela) {
			GElf_Rela r;
			if (!gelf_getrela(d, (int)i, &r))
				break;
			v[i] = (struct prel){ r.r_offset, (uint64_t)r.r_addend,
					      (uint32_t)GELF_R_SYM(r.r_info), (uint32_t)GELF_R_TYPE(r.r_info) };
		} else {
			GElf_Rel r;
			if (!gelf_getrel(d, (int)i, &r))
				break;
			v[i] = (struct prel){ r.r_offset, 0, (uint32_t)GELF_R_SYM(r.r_info),
					      (uint32_t)GELF_R_TYPE(r.r_info) };
		}
	}
	qsort(v, *n, sizeof(*v), prel_cmp);
	return v;
}

int pms_plt_synth(Elf *e, const struct pms_plt_alias *syms, size_t nsyms, struct pms_plt *out)
{
	GElf_Ehdr eh;
	GElf_Shdr psh, ssh, rsh, dsh;
	size_t shstrndx, n = 0;
	bool rela;
	memset(out, 0, sizeof(*out));
	if (!e || !gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx) != 0)
		return 0;
	uint64_t header = eh.e_machine == EM_X86_64 || eh.e_machine == EM_386 ? 16
			  : eh.e_machine == EM_AARCH64				 ? 32
										 : 0;
	if (!header)
		return 0; /* sizes known for x86 and aarch64 only */
	Elf_Scn *plt = scn_named(e, shstrndx, ".plt", &psh);
	Elf_Scn *sec = scn_named(e, shstrndx, ".plt.sec", &ssh);
	struct prel *r = plt ? plt_rels(e, shstrndx, &rela, &rsh, &n) : NULL;
	Elf_Scn *dyn = r ? elf_getscn(e, rsh.sh_link) : NULL;
	Elf_Data *dd = dyn && gelf_getshdr(dyn, &dsh) ? elf_getdata(dyn, NULL) : NULL;
	if (!dd) {
		free(r);
		return 0;
	}
	int rc = add(out, psh.sh_addr, header, ".plt");
	uint64_t base = sec ? ssh.sh_addr : psh.sh_addr + header;
	uint64_t end = sec ? ssh.sh_addr + ssh.sh_size : psh.sh_addr + psh.sh_size;
	for (size_t i = 0; i < n && rc == 0; i++) {
		uint64_t at = base + 16 * i;
		char name[512];
		const char *nm = NULL;
		GElf_Sym sym;
		if (at + 16 > end)
			break;
		if (r[i].sym && gelf_getsym(dd, (int)r[i].sym, &sym))
			nm = elf_strptr(e, dsh.sh_link, sym.st_name);
		if ((!nm || !*nm) && rela)
			nm = ifunc_at(syms, nsyms, r[i].addend);
		if (nm && *nm)
			snprintf(name, sizeof(name), "%s@plt", nm);
		else
			snprintf(name, sizeof(name), "offset_%#" PRIx64 "@plt", r[i].addend);
		rc = add(out, at, 16, name);
	}
	free(r);
	if (rc) {
		pms_plt_free(out);
		return -1;
	}
	return 0;
}

void pms_plt_free(struct pms_plt *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].name);
	free(p->v);
	memset(p, 0, sizeof(*p));
}
