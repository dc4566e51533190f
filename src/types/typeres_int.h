/* The resolver's binaries (typebin.c: ELF, DWARF, globals, code bytes) and
 * the per-IP resolution (typeres.c builds on typebin.c). */
#ifndef PMS_TYPERES_INT_H
#define PMS_TYPERES_INT_H

#include <elfutils/libdw.h>
#include <gelf.h>

#include "pmuscope/types.h"
#include "types/types_int.h"

struct ty_gvar {
	uint64_t addr, size;  /* link-time address (TLS: offset in the block) */
	Dwarf_Die type;
	const char *name;     /* DWARF's string */
};

struct ty_code {
	uint64_t addr, size;
	const uint8_t *bytes;
};

/* What the base register of an access points into. */
struct ty_obj {
	Dwarf_Die type;       /* the object's type */
	int64_t adj;          /* base register = &object + adj */
	enum pms_type_via via;
	const char *var;
	bool indexed;         /* an index register was added to the base */
};

/* One IP's answer, in the binary's dense array (ty_bin.ipres); what each
 * sample reads first (the filled hit and the flags), the resolution's
 * details after. */
struct ty_ipres {
	bool hit_done;        /* hit: the answer for obj (not by address) */
	bool has_obj, store, load, global_by_addr;
	enum pms_type_status status;
	unsigned mem_size;
	struct pms_type_hit hit;
	int64_t offset;       /* of the access within obj.type */
	struct ty_obj obj;
};

/* The per-IP cache's index: pc -> ipres[i] (16 bytes a slot, so that the
 * probe of each sample stays in a small table). */
struct ty_ipkey {
	uint64_t pc;          /* link-time IP; ~0 for an empty slot */
	uint32_t i;
	uint8_t status;       /* ipres[i]'s, so that an IP without an */
	bool has_obj, store;  /* object is answered from the slot alone */
};

/* A memory operand's DWARF scope search at one pc (the tracked walks ask
 * the same instructions again for every later IP of a function): 16 bytes
 * a slot, so that the table (two to four times the instructions walked)
 * stays small; what a search found is kept apart, densely (ty_scanres). */
struct ty_scanmemo {
	uint64_t pc;          /* ~0 for an empty slot */
	uint32_t res;         /* 1 + the index of its ty_scanres, 0 for none */
	/* the scan's status (the IP's own resolution asks the same scan:
	 * pc's instruction's base and displacement) */
	uint8_t status;
	bool ok;
};

/* A scan's answer: obj when ok, the function unless the status is
 * PMS_TYPE_NO_SCOPE. */
struct ty_scanres {
	struct ty_obj obj;
	Dwarf_Die func;
};

struct ty_bin {
	char *path;
	int fd;
	Elf *elf;
	Dwarf *dw;
	Dwarf_CFI *cfi, *ehcfi;
	enum ty_arch arch;
	bool no_debug, bad;
	struct ty_gvar *gv, *tls;
	size_t ngv, ntls;
	uint64_t tls_aligned;  /* PT_TLS memsz rounded up to its alignment */
	struct ty_code *code;
	size_t ncode;
	struct ty_decoder *dec;
	struct ty_ipkey *cache;
	size_t ncache, capcache;
	struct ty_ipres *ipres;
	size_t nipres, capipres;
	uint64_t gv_end;       /* the end of the last-ending global */
	struct ty_scanmemo *scan;
	size_t nscan, capscan;
	struct ty_scanres *scanres;
	size_t nscanres, capscanres;
	struct ty_fillmemo *fills; /* typeres.c's members by (type, offset) */
	size_t nfills, capfills;
	struct ty_walk *walks;    /* typeres.c's tracked walks by function */
	size_t nwalks, capwalks;
	struct ty_scopeix *scopes; /* scopes.c's index, built lazily */
};

/* The hash of those tables' keys (masked by the table's size). */
static inline size_t ty_pc_hash(uint64_t pc)
{
	return (size_t)(pc * 0x9e3779b97f4a7c15ull >> 20);
}

/* The slot of pc in an open-addressing table of elements of size sz whose
 * first member is a uint64_t pc (pcslot.c). */
void *ty_pc_slot(void **tab, size_t *n, size_t *cap, size_t sz, size_t first, uint64_t pc);
void *ty_pc_slot_full(void **tab, size_t *n, size_t *cap, size_t sz, size_t first, uint64_t pc,
		      unsigned den);

/* The resolver's count of lookups (pms_typeres_cache_stats) set back to
 * lookups: pms_typeprof_hit's are not counted, as its samples are not. */
struct pms_typeres;
void ty_res_set_lookups(struct pms_typeres *r, uint64_t lookups);
int ty_bin_open(const char *path, struct ty_bin **out);
void ty_bin_free(struct ty_bin *b);
const struct ty_gvar *ty_bin_global(const struct ty_bin *b, uint64_t addr);
const struct ty_gvar *ty_bin_tls(const struct ty_bin *b, uint64_t off);
/* Decode the instruction at pc: 0, or -1 when no code maps it / no decode. */
int ty_bin_insn(struct ty_bin *b, uint64_t pc, struct ty_insn *out);
/* The subprogram holding pc where pc is not in inlined code (the innermost
 * function is a subprogram): what dwarf_getscopes lists first of that tag. */
bool ty_scope_func(struct ty_bin *b, uint64_t pc, Dwarf_Die *sub);
/* The variables of the scopes at pc (innermost first, out to the function)
 * against an access through base register reg + disp: PMS_TYPE_OK with
 * *out (what reg points into: a pointer variable's pointee, a stack
 * variable), else why not (no-scope, not-pointer, optimized, no-var); *func
 * (when given) the function holding pc unless no-scope. */
enum pms_type_status ty_scan_scopes(struct ty_bin *b, uint64_t pc, int reg, int64_t disp,
				    struct ty_obj *out, Dwarf_Die *func);
void ty_scopes_free(struct ty_bin *b);

/* The load bias of path mapped at map_start from file offset map_pgoff
 * (its PT_LOAD segment's address - offset taken away): 0, or PMS_ENOENT
 * when the file cannot be read or no segment holds that offset. */
int pms_typeres_bias(struct pms_typeres *r, const char *path, uint64_t map_start,
		     uint64_t map_pgoff, uint64_t *bias);

/* pms_typeres_bias and pms_typeres_lookup of a mapped sample in one (the
 * binary found once): what the profile asks for each sample. */
int ty_res_lookup_mapped(struct pms_typeres *r, const char *path, uint64_t map_start,
			 uint64_t map_pgoff, uint64_t ip, uint64_t addr, bool has_addr,
			 struct pms_type_hit *out);

/* ty_res_lookup_mapped in two steps, for a caller that keeps the first's
 * answer per mapping (typeprof.c's memo): the binary and load bias of
 * path mapped at map_start from map_pgoff (0), 1 when no binary answers
 * (no path, no segment at that offset: look up with b NULL), or a
 * negative PMS_E*; then the look-up in b (NULL: as without a path).  b is
 * valid while ty_res_bins_gen stays the same (a binary let go bumps it). */
int ty_res_map_bin(struct pms_typeres *r, const char *path, uint64_t map_start,
		   uint64_t map_pgoff, struct ty_bin **b, uint64_t *bias);
int ty_res_lookup_in(struct pms_typeres *r, struct ty_bin *b, uint64_t bias, uint64_t ip,
		     uint64_t addr, bool has_addr, struct pms_type_hit *out);
uint64_t ty_res_bins_gen(const struct pms_typeres *r);

#endif
