/* Internal: the code scopes of one DWARF unit by address, for the inline
 * stacks (inline.c).  Built once per unit, at the first question in it; a
 * question is a binary search per level of nesting.
 *
 * The answer is the one libdw's dwarf_getscopes (elfutils
 * libdw/dwarf_getscopes.c) and dwarf_getscopes_die give, which a question
 * used to walk the unit's DIEs for:
 *  - the scopes holding an address are found as libdw's walk finds them
 *    (libdw/libdw_visit_scopes.c): among the children of the unit DIE, the
 *    first in DIE order whose ranges (dwarf_ranges) hold it; then, only
 *    below a DIE of a tag that may own scopes (unit, module, lexical block,
 *    with, catch, try, entry point, inlined subroutine, subprogram,
 *    namespace, class, structure), the first of its children holding it,
 *    and so on; an imported partial unit's children count as children of
 *    the importing DIE;
 *  - the innermost function is the deepest DW_TAG_subprogram or
 *    DW_TAG_inlined_subroutine on that path;
 *  - (pms_scopeidx_innermost: the path itself, for the types' scopes)
 *  - when the path holds an inlined subroutine, libdw finds the deepest
 *    one's DW_AT_abstract_origin by a walk of the whole unit (every DIE
 *    below the tags above, not only those holding the address) and answers
 *    nothing when it is not there (an origin in another unit: gcc -flto):
 *    the index keeps that answer per inlined DIE, and walks the unit whole
 *    (once) only for an origin the address walk did not meet.
 *
 * Ownership: pms_scopeidx_build() gives the caller an index released with
 * pms_scopeidx_free(); the Dwarf it was built from must outlive it. */
#ifndef PMS_SYMBOLS_SCOPEIDX_H
#define PMS_SYMBOLS_SCOPEIDX_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PMS_SCOPE_NONE UINT32_MAX

/* One DIE with code ranges on a path libdw's walk can take. */
struct pms_scope {
	Dwarf_Die die;
	uint32_t parent;     /* its scope (PMS_SCOPE_NONE: a child of the unit) */
	uint32_t kids, nkids; /* its children's ranges: pms_scopeidx.iv[kids...] */
	int tag;
	uint8_t origin;      /* an inlined subroutine: whether libdw's walk finds
			      * its abstract origin: 0 not asked yet, 1 yes, 2 no */
	/* the caller's per-DIE memo (inline.c): name, call site */
	bool named, sited;
	const char *name;
	const char *file;
	unsigned line;
};

struct pms_scopeiv {
	uint64_t lo, hi;
	uint64_t maxhi; /* the largest hi of the slice up to here */
	uint32_t scope;
};

struct pms_scopeidx {
	struct pms_scope *s;
	size_t ns;
	struct pms_scopeiv *iv;
	size_t niv;
	uint32_t top, ntop; /* the unit's children's ranges */
	Dwarf_Die cu;
	uintptr_t *seen; /* DIEs the walk visited, sorted by address */
	size_t nseen;
	bool full;       /* seen: the whole walk's, not only the address walk's */
};

/* The index of unit cu (a unit DIE).  0, or PMS_ENOMEM. */
int pms_scopeidx_build(Dwarf_Die *cu, struct pms_scopeidx **out);
void pms_scopeidx_free(struct pms_scopeidx *x);

/* The innermost function holding DWARF address a: its scope index, or
 * PMS_SCOPE_NONE where libdw's dwarf_getscopes would give no function
 * (none holds a, or the deepest inlined subroutine's origin is not found). */
uint32_t pms_scopeidx_func(struct pms_scopeidx *x, uint64_t a);

/* The innermost scope holding DWARF address a (its enclosing ones by
 * parent, out to a child of the unit), PMS_SCOPE_NONE where none does: the
 * concrete chain, whatever the abstract origins (the types' scope search,
 * types/scopes.c). */
uint32_t pms_scopeidx_innermost(const struct pms_scopeidx *x, uint64_t a);

#endif
