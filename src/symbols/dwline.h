/* Internal: file:line of code addresses from .debug_line alone (dwline.c).
 *
 * Why the project reads .debug_line itself: elfutils' dwarf_begin_elf
 * inflates every compressed debug section of a file when it is opened
 * (.debug_info, .debug_abbrev, .debug_loclists, ... : 45 ms of libz for
 * libc's debug file), and its line lookups need .debug_info to find the
 * unit.  This reader inflates only .debug_line (and the string sections it
 * names, when a name is asked for), keeps the address range of every line
 * sequence, and decodes a line program's rows only when an address in it is
 * looked up.  Its answers follow libdw's rules (see dwline.c); where it
 * cannot answer as libdw would it says so (PMS_DWLINE_ASK) and the caller
 * asks libdw.
 *
 * Ownership: a pms_dwline owns its file descriptor, ELF handle and every
 * string it hands out; they live until pms_dwline_free. */
#ifndef PMS_SYMBOLS_DWLINE_H
#define PMS_SYMBOLS_DWLINE_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pms_dwline;

enum {
	PMS_DWLINE_NONE = 0,  /* no line row holds the address */
	PMS_DWLINE_FOUND = 1, /* *file and *line set */
	/* libdw may know more than this reader: a DWARF 2-4 file entry
	 * relative to directory 0 (the compilation directory, which only
	 * .debug_info's unit DIE holds), or names in forms that live in other
	 * sections or files (DW_FORM_strx*, DW_FORM_strp_sup, GNU_strp_alt) */
	PMS_DWLINE_ASK = 2,
};

/* The sections a reader works on, borrowed for its life (tests and the
 * fuzz target; pms_dwline_open finds them in a file).  str and line_str
 * may be NULL. */
struct pms_dwline_mem {
	const uint8_t *line, *line_str, *str;
	size_t line_size, line_str_size, str_size;
	unsigned addr_size; /* 4 or 8 */
	bool big_endian;
};

/* A reader over sections in memory: every line program is checked and its
 * sequences indexed.  PMS_EPARSE (with a message) when a program is
 * malformed in a way libdw would reject. */
int pms_dwline_new(const struct pms_dwline_mem *m, struct pms_dwline **out);

/* Whether elf holds DWARF as libdw decides it (a .debug_info, .debug_line
 * or .debug_frame section with contents, or the .zdebug_ forms). */
bool pms_dwline_elf_has_dwarf(Elf *elf);

/* A reader over the ELF file at path (ET_EXEC or ET_DYN; its .debug_line
 * inflated when compressed, string sections only once a name needs them).
 * PMS_ENOENT when the file has no .debug_line, PMS_ENOTSUP for a
 * relocatable object, PMS_EPARSE when malformed. */
int pms_dwline_open(const char *path, struct pms_dwline **out);

/* The row holding addr (link-time address, the module's bias removed), by
 * libdw's rule: the unit found by address, the last row at or below addr in
 * its sorted rows unless that row ends a sequence.  *file lives as long as
 * d.  Returns a PMS_DWLINE_* value. */
int pms_dwline_find(struct pms_dwline *d, uint64_t addr, const char **file, int *line);

/* How many line programs and sequences d indexed (tests). */
size_t pms_dwline_nseqs(const struct pms_dwline *d);
/* The address range [lo, end) of sequence i in address order (tests). */
void pms_dwline_seq(const struct pms_dwline *d, size_t i, uint64_t *lo, uint64_t *end);

void pms_dwline_free(struct pms_dwline *d);

#endif
