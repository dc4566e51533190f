/* Internal: the unit of a DWARF file holding an address, for files
 * without .debug_aranges (clang's default), where libdw's dwarf_addrdie
 * finds no unit.  The one index of units by address: the symbolizer's libdw
 * line lookup (symbolizer.c), the inline stacks (inline.c) and the types'
 * scopes (types/scopes.c) ask it.
 *
 * Each unit's ranges (dwarf_ranges of the unit DIE, units in section order
 * as dwarf_nextcu lists them) are read once, at the first question, into a
 * table sorted by start; a question is a binary search.  Where ranges
 * overlap, the first unit in section order holding the address answers
 * (a walk of the units in order would find that one).
 *
 * Ownership: the struct is the caller's, zeroed; pms_cuidx_free() releases
 * what the questions built.  It answers for one Dwarf only, which must
 * outlive it.  Includes libdw only: any concern may hold one. */
#ifndef PMS_SYMBOLS_CUIDX_H
#define PMS_SYMBOLS_CUIDX_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pms_curng {
	uint64_t lo, hi, maxhi; /* maxhi: the largest hi up to this entry */
	uint32_t order;         /* the unit's place in section order */
	Dwarf_Off die;          /* the unit DIE */
};

struct pms_cuidx {
	struct pms_curng *v;
	size_t n;
	bool built;
	bool failed; /* out of memory while building: no answers */
};

/* The unit whose ranges hold DWARF address a: 1 and *cu, 0 when none
 * does, -1 when the index could not be built (no memory).  Callers ask
 * libdw first (dwarf_addrdie, dwfl_module_addrdie: .debug_aranges) where
 * the file may have them. */
int pms_cuidx_find(struct pms_cuidx *x, Dwarf *dw, Dwarf_Addr a, Dwarf_Die *cu);

void pms_cuidx_free(struct pms_cuidx *x);

#endif
