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
};

struct ty_ipres {
	uint64_t pc;          /* link-time IP; ~0 for an empty slot */
	enum pms_type_status status;
	bool has_obj, store, load, global_by_addr;
	unsigned mem_size;
	struct ty_obj obj;
	int64_t offset;       /* of the access within obj.type */
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
	struct ty_ipres *cache;
	size_t ncache, capcache;
};

int ty_bin_open(const char *path, struct ty_bin **out);
void ty_bin_free(struct ty_bin *b);
const struct ty_gvar *ty_bin_global(const struct ty_bin *b, uint64_t addr);
const struct ty_gvar *ty_bin_tls(const struct ty_bin *b, uint64_t off);
/* Decode the instruction at pc: 0, or -1 when no code maps it / no decode. */
int ty_bin_insn(struct ty_bin *b, uint64_t pc, struct ty_insn *out);

#endif
