/* Internal: what unwind.c, dataobj.c and inline.c take from symbolizer.c. */
#ifndef PMS_SYMBOLS_SYMBOLS_INT_H
#define PMS_SYMBOLS_SYMBOLS_INT_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/symbols.h"
#include "symbols/cuidx.h"

/* The file-backed mappings of m as /proc/PID/maps text (paths prefixed
 * with root unless it is "/"), for dwfl_linux_proc_maps_report; malloc'd,
 * *len bytes; NULL when out of memory. */
char *pms_sym_maps_text(const struct pms_maps *m, const char *root, size_t *len);

struct pms_dwline;

/* A module file's DWARF, opened once per symbolizer by path and kept for its
 * life (the processes' address spaces come and go: a file's DWARF is
 * inflated once however many of them map it): libdwfl offline, in a Dwfl of
 * its own, its separate debug file found as the processes' modules find
 * theirs (dwfl_standard_find_debuginfo).  The symbolizer's libdw line
 * lookups and the inline stacks (inline.c) read it. */
struct pms_sym_dwfile {
	Dwfl_Module *mod;
	Elf *elf;              /* the main file: its segments place file offsets */
	GElf_Addr mainbias;    /* link-time address + mainbias: mod's address */
	Dwarf *dw;
	Dwarf_Addr dwbias;     /* mod's address - dwbias: the DWARF address */
	struct pms_cuidx cux;  /* units by address (no .debug_aranges) */
};
/* The DWARF of the file at path (an absolute path below the symbolizer's
 * root), NULL when it cannot be read, is relocatable or has no DWARF (that
 * answer is kept too).  Lives as long as s. */
struct pms_sym_dwfile *pms_sym_dwfile(struct pms_symbolizer *s, const char *path);
/* Whether the separate debug file of the file at full (the path with the
 * root in front) gives CFI (.debug_frame), from that file's DWARF above
 * (opened here if it was not yet): 1 it does, 0 it does not, -1 not known
 * here (no DWARF, or the main file's own). */
int pms_sym_debug_cfi(struct pms_symbolizer *s, const char *full);

/* The unwinder u asks s (borrowed, outliving u) before it opens a module's
 * separate debug file: libdwfl opens that file for its CFI alone (frames
 * .eh_frame cannot step), and inflates all its DWARF sections to do so; a
 * debug file s has read and found without .debug_frame is not opened
 * again.  The unwind is the same: CFI from such a file is none. */
struct pms_unwinder;
void pms_unwinder_files_from(struct pms_unwinder *u, struct pms_symbolizer *s);

/* The demangled form of a mangled name (Itanium C++, Rust), malloc'd, or
 * NULL when it is not one or no demangler is built in: the symbolizer's
 * and the inline frames' (inline.c) one demangler. */
char *pms_sym_demangle(const char *name);

/* The .debug_line reader for mod's DWARF (the file libdwfl takes it from:
 * the main file when it has DWARF, else its separate debug file, found by
 * the same dwfl_standard_find_debuginfo), and the bias to take off a
 * module address.  Negative PMS_E* when there is none or it cannot be
 * read; lookups then go to libdw. */
int pms_sym_dwline_open(Dwfl_Module *mod, struct pms_dwline **out, uint64_t *bias);

/* For naming data (dataobj.c).  The module of pid's address space (0 or
 * no pms_symbolizer_add_process: the shared one) whose range holds all of
 * [lo, hi); NULL when none does. */
Dwfl_Module *pms_sym_data_module(struct pms_symbolizer *s, pid_t pid, uint64_t lo, uint64_t hi);
/* The STT_OBJECT symbol of mod whose [value, value + size) holds addr:
 * its (demangled) name, *start and *size; NULL when none does. */
const char *pms_sym_data_symbol(struct pms_symbolizer *s, Dwfl_Module *mod, uint64_t addr,
				uint64_t *start, uint64_t *size);
/* The allocated section of mod's main file holding addr: 1, its name and
 * [*lo, *hi).  0 when addr lies between sections (*name NULL, [*lo, *hi)
 * the gap).  PMS_ENOENT when the file's section headers cannot be read. */
int pms_sym_data_section(struct pms_symbolizer *s, Dwfl_Module *mod, uint64_t addr,
			 const char **name, uint64_t *lo, uint64_t *hi);

/* PLT entry names as perf synthesizes them (plt.c): ".plt" for the header
 * and "NAME@plt" per entry, at file addresses.  syms: the module's symbols
 * (file addresses) that may name an IRELATIVE entry's IFUNC. */
struct pms_plt_alias {
	uint64_t addr;
	const char *name;
	unsigned char bind; /* 2 global, 1 weak, 0 local */
	bool ifunc;
};
struct pms_plt_sym {
	uint64_t addr, size;
	char *name;
};
struct pms_plt {
	struct pms_plt_sym *v;
	size_t n, cap;
};
/* 0 (out->n 0 when the file has no PLT to name) or -1 out of memory. */
int pms_plt_synth(Elf *e, const struct pms_plt_alias *syms, size_t nsyms, struct pms_plt *out);
void pms_plt_free(struct pms_plt *p);

/* The vDSO image of a symbolizer (vdso.c): [vdso] mappings are reported
 * as modules whose ELF is this image in memory. */
struct pms_vdso_img {
	void *buf; /* NULL: none; [vdso] addresses stay unnamed */
	size_t len;
	uint8_t id[20];
	size_t idlen;
	/* [vdso] mappings left unnamed whatever the image: [start, end) of a
	 * merged report's files that fail the rule (pms_symbolizer_vdso_exclude) */
	struct pms_vdso_range {
		uint64_t start, end;
	} *deny;
	size_t ndeny;
};
/* A copy of image into v (the old one dropped): 0, PMS_EPARSE when it is
 * not ELF, PMS_ENOMEM. */
int pms_vdso_img_set(struct pms_vdso_img *v, const void *image, size_t len);
/* The image dropped (the excluded ranges kept); pms_vdso_img_free: both. */
void pms_vdso_img_drop(struct pms_vdso_img *v);
void pms_vdso_img_free(struct pms_vdso_img *v);
/* [start, end) added to v's excluded [vdso] mappings: 0 or PMS_ENOMEM. */
int pms_vdso_img_exclude(struct pms_vdso_img *v, uint64_t start, uint64_t end);
/* Report each [vdso] mapping of m to d (between dwfl_report_begin and
 * _end) as a module of v's image, but those v excludes; nothing when v has
 * no image. */
void pms_vdso_report(Dwfl *d, const struct pms_maps *m, struct pms_vdso_img *v);
/* The symbolizer's find_elf: a [vdso] module's ELF from its image, every
 * other module's as dwfl_linux_proc_find_elf finds it. */
int pms_sym_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		     char **file_name, Elf **elfp);

/* pms_symbolizer_data for an address of process pid: its own mappings when
 * pms_symbolizer_add_process gave them, else the shared ones. */
/* pms_symbolizer_code_pid's answer for user code at ip (no line), and
 * the addresses [*lo, *hi) around ip that get the same answer from the
 * module's sorted table (the same symbol, the offset growing with the
 * address; or no symbol): the caller may keep it for them.  *lo == *hi:
 * no such range known (no module, libdwfl's own lookup). */
int pms_sym_code_range(struct pms_symbolizer *s, pid_t pid, uint64_t ip, struct pms_symbol *out,
		       uint64_t *lo, uint64_t *hi);
int pms_symbolizer_data_pid(struct pms_symbolizer *s, pid_t pid, uint64_t addr,
			    struct pms_symbol *out);

#endif
