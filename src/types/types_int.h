/* Internals of the types concern: instruction decoding (insn.c, capstone)
 * and DWARF type walking (dwtype.c), used by the resolver (typeres.c). */
#ifndef PMS_TYPES_INT_H
#define PMS_TYPES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

enum ty_arch { TY_ARCH_X86_64 = 0, TY_ARCH_AARCH64 };

/* DWARF register numbers used here: x86-64 rax..r15 = 0..15, rip = 16;
 * aarch64 x0..x30 = 0..30, sp = 31. */
#define TY_NREGS 33
#define TY_REG_NONE (-1)

enum ty_kind {
	TY_K_OTHER = 0,
	TY_K_LOAD,    /* reg <- [mem] (mov/ldr of a whole register) */
	TY_K_STORE,   /* [mem] <- reg */
	TY_K_LEA,     /* reg <- address of mem */
	TY_K_MOVRR,   /* reg <- reg */
	TY_K_CALL,
	TY_K_RET,     /* ret, unconditional jmp: the path ends */
	TY_K_ADD,     /* dst += src register (src >= 0) or += imm (disp) */
	TY_K_MOVI,    /* dst <- the constant disp (aarch64 mov/movz #imm) */
};

struct ty_insn {
	uint64_t addr;
	unsigned size;
	enum ty_kind kind;
	bool has_mem;
	int base, index;       /* DWARF regs or TY_REG_NONE */
	int scale;
	int64_t disp;
	bool rip_rel;          /* x86 [rip + disp]: target = addr + size + disp */
	bool fs_seg;           /* x86 %fs: (TLS, thread pointer relative) */
	bool store, load;      /* the memory operand is written / read */
	unsigned mem_size;     /* bytes the operand accesses (0 unknown) */
	int dst, src;          /* TY_K_LOAD/LEA/MOVRR: written reg; MOVRR: read reg;
				* TY_K_STORE: the whole register stored (or none) */
	uint64_t written;      /* mask of DWARF regs the instruction writes */
	bool pre_index;        /* aarch64 writeback of the base register */
	uint64_t target;       /* TY_K_CALL: a direct call's target (0: indirect) */
};

struct ty_decoder;
int ty_decoder_new(enum ty_arch arch, struct ty_decoder **out);
void ty_decoder_free(struct ty_decoder *d);
/* 0 with *out filled, or -1 when the bytes do not decode. */
int ty_decode(struct ty_decoder *d, const uint8_t *code, size_t len, uint64_t addr,
	      struct ty_insn *out);
/* Caller-saved registers of the ABI (clobbered by a call). */
uint64_t ty_call_clobbered(enum ty_arch arch);
/* The DWARF register number of the frame / stack pointer. */
int ty_reg_sp(enum ty_arch arch);

/* ---- DWARF types (dwtype.c) ---- */

/* typedef/const/volatile/restrict/atomic stripped; false when none left. */
bool ty_peel(Dwarf_Die *type, Dwarf_Die *out);
/* The DIE's DW_AT_type (through abstract origins / specifications). */
bool ty_type_of(Dwarf_Die *die, Dwarf_Die *out);
/* Byte size of a type (arrays included); 0 when unknown. */
uint64_t ty_size(Dwarf_Die *type);
/* The type's name as C spells it ("struct rec", "int", "char *", ...). */
void ty_name(Dwarf_Die *type, char *buf, size_t len);
/* The member at offset within type: path ("a.b[3].c", "" for the type
 * itself when offset lands in a base type), its offset and size and the
 * innermost member's type (leaf).  want_size != 0: descend only to a member
 * whose size equals it (a whole-register load).  false: offset outside. */
bool ty_member_at(Dwarf_Die *type, uint64_t offset, unsigned want_size, char *path,
		  size_t len, uint64_t *moff, uint64_t *msize, Dwarf_Die *leaf);
/* A pointer (or array) type's target: false when type is neither. */
bool ty_pointee(Dwarf_Die *type, Dwarf_Die *out);

#endif
