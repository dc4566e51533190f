/* Internal: the inline stack at a code address, from the module's DWARF
 * (inline.c), as perf 6.12 expands a DWARF-unwound call-chain frame
 * (util/machine.c append_inlines over util/srcline.c addr2inlines: one
 * record per function holding the address, the innermost first, each with
 * its source line: the address's own line for the innermost, the call
 * site of the function inside it for each outer one).
 *
 * A module's DWARF is the symbolizer's handle on its file (symbols_int.h
 * pms_sym_dwfile: opened once per symbolizer, its separate debug file found
 * as the symbolizer's modules find theirs, shared with the symbolizer's own
 * libdw line lookups); one with no DWARF costs nothing more.  Each (module,
 * offset) is looked up once, in an index of its unit's code scopes built at
 * the unit's first question (scopeidx.h).
 *
 * Ownership: pms_inline_new() gives the caller an object released with
 * pms_inline_free(); the symbolizer is borrowed and must outlive every
 * pms_inline_at (the free does not touch it); the frames given are valid
 * until the next pms_inline_at, their strings until the free or the
 * symbolizer's, whichever comes first. */
#ifndef PMS_SYMBOLS_INLINE_INT_H
#define PMS_SYMBOLS_INLINE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "pmuscope/symbols.h"

struct pms_inline;

struct pms_inl_frame {
	const char *name; /* the function (a C++ linkage name demangled); "??" unnamed */
	const char *file; /* source file, NULL when no line is known; the
			   * innermost's is the address's own line (the line
			   * table's: not given here, NULL) */
	unsigned line;
};

/* sym: the symbolizer whose file handles give the DWARF (paths below its
 * root); NULL: no frames at all. */
int pms_inline_new(struct pms_symbolizer *sym, struct pms_inline **out);
void pms_inline_free(struct pms_inline *c);

/* The functions holding file offset off of the module at path (perf's
 * map_ip: the offset in the file, as the module's mapping gives it): *n
 * frames, innermost first, the last the subprogram itself.  0 frames where
 * the module has no DWARF or no function's DIE holds the address.  0, or
 * PMS_ENOMEM (0 frames). */
int pms_inline_at(struct pms_inline *c, const char *path, uint64_t off,
		  const struct pms_inl_frame **fr, size_t *n);

#endif
