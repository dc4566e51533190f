/* Instruction decoding for type resolution: the memory operand of one
 * instruction (base, index, scale, displacement, read or written) and the
 * registers it writes, through capstone (x86-64 and aarch64). */
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#include "types/types_int.h"
#include "util/error.h"

#define TY_REGMEMO 1024

struct ty_decoder {
	csh cs;
	enum ty_arch arch;
	cs_insn *insn;
	/* dwreg's answers by capstone register (its name compares were a
	 * third of the decoding): 0 unknown, else 1 + (reg + 1) * 2 + full */
	uint16_t regmemo[TY_REGMEMO];
};

int ty_decoder_new(enum ty_arch arch, struct ty_decoder **out)
{
	struct ty_decoder *d = calloc(1, sizeof(*d));
	if (!d)
		return pms_err(PMS_ENOMEM, "types: decoder");
	d->arch = arch;
	cs_err e = arch == TY_ARCH_X86_64 ? cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs)
					  : cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &d->cs);
	if (e != CS_ERR_OK) {
		free(d);
		return pms_err(PMS_ENOTSUP, "types: capstone: %s", cs_strerror(e));
	}
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->cs);
	if (!d->insn) {
		cs_close(&d->cs);
		free(d);
		return pms_err(PMS_ENOMEM, "types: capstone insn");
	}
	*out = d;
	return 0;
}

void ty_decoder_free(struct ty_decoder *d)
{
	if (!d)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->cs);
	free(d);
}

static const char *const x86_names[17][4] = {
	{ "rax", "eax", "ax", "al" }, { "rdx", "edx", "dx", "dl" }, { "rcx", "ecx", "cx", "cl" },
	{ "rbx", "ebx", "bx", "bl" }, { "rsi", "esi", "si", "sil" }, { "rdi", "edi", "di", "dil" },
	{ "rbp", "ebp", "bp", "bpl" }, { "rsp", "esp", "sp", "spl" }, { "r8", "r8d", "r8w", "r8b" },
	{ "r9", "r9d", "r9w", "r9b" }, { "r10", "r10d", "r10w", "r10b" },
	{ "r11", "r11d", "r11w", "r11b" }, { "r12", "r12d", "r12w", "r12b" },
	{ "r13", "r13d", "r13w", "r13b" }, { "r14", "r14d", "r14w", "r14b" },
	{ "r15", "r15d", "r15w", "r15b" }, { "rip", "eip", "ip", "" },
};

/* DWARF number of a capstone register; *full: the register is written
 * whole (64-bit, or 32-bit, which zero-extends on both targets). */
static int dwreg_name(const struct ty_decoder *d, unsigned reg, bool *full)
{
	if (full)
		*full = false;
	if (reg == 0)
		return TY_REG_NONE;
	const char *n = cs_reg_name(d->cs, reg);
	if (!n)
		return TY_REG_NONE;
	if (d->arch == TY_ARCH_X86_64) {
		if (!strcmp(n, "ah") || !strcmp(n, "bh") || !strcmp(n, "ch") || !strcmp(n, "dh"))
			return !strcmp(n, "ah") ? 0 : !strcmp(n, "dh") ? 1 : !strcmp(n, "ch") ? 2 : 3;
		for (int r = 0; r < 17; r++)
			for (int w = 0; w < 4; w++)
				if (x86_names[r][w][0] && !strcmp(n, x86_names[r][w])) {
					if (full)
						*full = w == 0;
					return r;
				}
		return TY_REG_NONE;
	}
	if (!strcmp(n, "sp") || !strcmp(n, "wsp"))
		return 31;
	if (!strcmp(n, "fp"))
		return 29;
	if (!strcmp(n, "lr"))
		return 30;
	if ((n[0] == 'x' || n[0] == 'w') && n[1] >= '0' && n[1] <= '9') {
		int v = atoi(n + 1);
		if (v <= 30) {
			if (full)
				*full = n[0] == 'x';
			return v;
		}
	}
	return TY_REG_NONE;
}

static int dwreg(struct ty_decoder *d, unsigned reg, bool *full)
{
	if (reg >= TY_REGMEMO)
		return dwreg_name(d, reg, full);
	if (!d->regmemo[reg]) {
		bool f = false;
		int r = dwreg_name(d, reg, &f);
		d->regmemo[reg] = (uint16_t)(1 + (r + 1) * 2 + f);
	}
	unsigned v = d->regmemo[reg] - 1u;
	if (full)
		*full = v & 1;
	return (int)(v / 2) - 1;
}

static void written_regs(struct ty_decoder *d, struct ty_insn *o)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;
	if (cs_regs_access(d->cs, d->insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return;
	for (unsigned i = 0; i < nwr; i++) {
		int r = dwreg(d, wr[i], NULL);
		if (r >= 0 && r < 64)
			o->written |= 1ull << r;
	}
}

static void decode_x86(struct ty_decoder *d, struct ty_insn *o)
{
	const cs_x86 *x = &d->insn->detail->x86;
	unsigned id = d->insn->id;
	int mem = -1;
	for (int i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && id != X86_INS_NOP) {
			mem = i;
			break;
		}
	if (mem >= 0) {
		const cs_x86_op *op = &x->operands[mem];
		o->has_mem = id != X86_INS_LEA;
		o->base = dwreg(d, op->mem.base, NULL);
		o->index = dwreg(d, op->mem.index, NULL);
		o->scale = op->mem.scale;
		o->disp = op->mem.disp;
		o->rip_rel = o->base == 16;
		o->fs_seg = op->mem.segment == X86_REG_FS;
		o->mem_size = op->size;
		o->store = (op->access & CS_AC_WRITE) != 0;
		o->load = (op->access & CS_AC_READ) != 0 || !o->store;
	}
	bool full = false;
	if (id == X86_INS_CALL) {
		o->kind = TY_K_CALL;
		if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
			o->target = (uint64_t)x->operands[0].imm;
	} else if (id == X86_INS_RET || id == X86_INS_JMP) {
		o->kind = TY_K_RET;
	} else if (x->op_count == 2 && x->operands[0].type == X86_OP_REG) {
		int dst = dwreg(d, x->operands[0].reg, &full);
		if (id == X86_INS_MOV && mem == 1 && full) {
			o->kind = TY_K_LOAD;
			o->dst = dst;
		} else if (id == X86_INS_LEA && full) {
			o->kind = TY_K_LEA;
			o->dst = dst;
		} else if ((id == X86_INS_ADD || id == X86_INS_SUB) && full && mem < 0) {
			/* pointer arithmetic: an index added, a constant moved */
			o->kind = TY_K_ADD;
			o->dst = dst;
			if (x->operands[1].type == X86_OP_REG)
				o->src = dwreg(d, x->operands[1].reg, NULL);
			else if (x->operands[1].type == X86_OP_IMM)
				o->disp = id == X86_INS_SUB ? -x->operands[1].imm : x->operands[1].imm;
			else
				o->kind = TY_K_OTHER;
		} else if (id == X86_INS_MOV && x->operands[1].type == X86_OP_REG && full) {
			o->kind = TY_K_MOVRR;
			o->dst = dst;
			o->src = dwreg(d, x->operands[1].reg, NULL);
		}
	} else if (mem == 0 && o->store) {
		o->kind = TY_K_STORE;
		/* mov %reg, mem: the register stored (a whole one) */
		if (id == X86_INS_MOV && x->op_count == 2 && x->operands[1].type == X86_OP_REG) {
			int s = dwreg(d, x->operands[1].reg, &full);
			o->src = full ? s : TY_REG_NONE;
		}
	}
}

static void decode_a64(struct ty_decoder *d, struct ty_insn *o)
{
	const cs_arm64 *a = &d->insn->detail->arm64;
	unsigned id = d->insn->id;
	int mem = -1;
	for (int i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM64_OP_MEM) {
			mem = i;
			break;
		}
	bool full = false;
	if (mem >= 0) {
		const cs_arm64_op *op = &a->operands[mem];
		o->has_mem = true;
		o->base = dwreg(d, op->mem.base, NULL);
		o->index = dwreg(d, op->mem.index, NULL);
		/* [xn, xm, lsl #k]: the index times 2^k (other shifts: 0) */
		o->scale = op->shift.type == ARM64_SFT_INVALID ? 1
			   : op->shift.type == ARM64_SFT_LSL && op->shift.value < 16
				   ? 1 << op->shift.value
				   : 0;
		o->disp = op->mem.disp;
		o->pre_index = a->writeback;
		bool st = id == ARM64_INS_STR || id == ARM64_INS_STRB || id == ARM64_INS_STRH ||
			  id == ARM64_INS_STP || id == ARM64_INS_STUR || id == ARM64_INS_STURB ||
			  id == ARM64_INS_STURH || id == ARM64_INS_STLR || id == ARM64_INS_STXR;
		o->store = st;
		o->load = !st;
		if (a->op_count >= 1 && a->operands[0].type == ARM64_OP_REG) {
			const char *n = cs_reg_name(d->cs, a->operands[0].reg);
			unsigned sz = n && n[0] == 'x' ? 8 : n && n[0] == 'w' ? 4 : 0;
			if (id == ARM64_INS_LDRB || id == ARM64_INS_STRB || id == ARM64_INS_LDURB ||
			    id == ARM64_INS_STURB || id == ARM64_INS_LDRSB)
				sz = 1;
			else if (id == ARM64_INS_LDRH || id == ARM64_INS_STRH ||
				 id == ARM64_INS_LDURH || id == ARM64_INS_STURH || id == ARM64_INS_LDRSH)
				sz = 2;
			else if (n && (n[0] == 'q'))
				sz = 16;
			else if (n && (n[0] == 'd'))
				sz = 8;
			else if (n && (n[0] == 's'))
				sz = 4;
			o->mem_size = sz;
		}
		if ((id == ARM64_INS_LDR || id == ARM64_INS_LDUR) && mem == 1 && !o->pre_index) {
			int dst = dwreg(d, a->operands[0].reg, &full);
			if (full) {
				o->kind = TY_K_LOAD;
				o->dst = dst;
			}
		} else if (st) {
			o->kind = TY_K_STORE;
			/* str xN, [mem]: the register stored (a whole one) */
			if ((id == ARM64_INS_STR || id == ARM64_INS_STUR) && mem == 1) {
				int s = dwreg(d, a->operands[0].reg, &full);
				o->src = full ? s : TY_REG_NONE;
			}
		}
		return;
	}
	if (id == ARM64_INS_BL || id == ARM64_INS_BLR) {
		o->kind = TY_K_CALL;
		if (id == ARM64_INS_BL && a->op_count == 1 && a->operands[0].type == ARM64_OP_IMM)
			o->target = (uint64_t)a->operands[0].imm;
	} else if (id == ARM64_INS_RET || id == ARM64_INS_B || id == ARM64_INS_BR) {
		o->kind = a->cc == ARM64_CC_INVALID || a->cc == ARM64_CC_AL ? TY_K_RET : TY_K_OTHER;
	} else if (id == ARM64_INS_MOV && a->op_count == 2 && a->operands[1].type == ARM64_OP_REG) {
		int dst = dwreg(d, a->operands[0].reg, &full);
		if (full) {
			o->kind = TY_K_MOVRR;
			o->dst = dst;
			o->src = dwreg(d, a->operands[1].reg, NULL);
		}
	} else if (id == ARM64_INS_ADD && a->op_count == 3 && a->operands[1].type == ARM64_OP_REG &&
		   a->operands[2].type == ARM64_OP_REG) {
		/* add xd, xn, xm (, lsl #k): an element of what xn points to */
		int dst = dwreg(d, a->operands[0].reg, &full);
		const cs_arm64_op *ix = &a->operands[2];
		if (full) {
			o->kind = TY_K_LEA;
			o->dst = dst;
			o->base = dwreg(d, a->operands[1].reg, NULL);
			o->index = dwreg(d, ix->reg, NULL);
			o->disp = 0;
			/* the index's multiplier where it is a plain shift (else
			 * 0: unknown, an extended register) */
			o->scale = ix->ext != ARM64_EXT_INVALID ? 0
				   : ix->shift.type == ARM64_SFT_INVALID ? 1
				   : ix->shift.type == ARM64_SFT_LSL && ix->shift.value < 16
					   ? 1 << ix->shift.value
					   : 0;
		}
	} else if ((id == ARM64_INS_MOV || id == ARM64_INS_MOVZ) && a->op_count == 2 &&
		   a->operands[1].type == ARM64_OP_IMM && a->operands[1].shift.value == 0) {
		/* a W register's write zero-extends into its X register */
		int dst = dwreg(d, a->operands[0].reg, &full);
		if (dst >= 0) {
			o->kind = TY_K_MOVI;
			o->dst = dst;
			o->disp = full ? a->operands[1].imm : (int64_t)(uint32_t)a->operands[1].imm;
		}
	} else if ((id == ARM64_INS_MADD || id == ARM64_INS_SMADDL || id == ARM64_INS_UMADDL) &&
		   a->op_count == 4 && a->operands[3].type == ARM64_OP_REG) {
		/* madd xd, xn, xm, xa (xd = xa + xn * xm): an element of what
		 * xa points to */
		int dst = dwreg(d, a->operands[0].reg, &full);
		if (full) {
			o->kind = TY_K_LEA;
			o->dst = dst;
			o->base = dwreg(d, a->operands[3].reg, NULL);
			o->index = dwreg(d, a->operands[1].reg, NULL);
			o->disp = 0;
		}
	} else if (id == ARM64_INS_ADD && a->op_count == 3 && a->operands[1].type == ARM64_OP_REG &&
		   a->operands[2].type == ARM64_OP_IMM && a->operands[2].shift.value == 0) {
		/* add xd, xn, #imm: an address inside what xn points to */
		int dst = dwreg(d, a->operands[0].reg, &full);
		if (full) {
			o->kind = TY_K_LEA;
			o->dst = dst;
			o->base = dwreg(d, a->operands[1].reg, NULL);
			o->index = TY_REG_NONE;
			o->disp = a->operands[2].imm;
		}
	}
}

int ty_decode(struct ty_decoder *d, const uint8_t *code, size_t len, uint64_t addr,
	      struct ty_insn *out)
{
	memset(out, 0, sizeof(*out));
	out->base = out->index = out->dst = out->src = TY_REG_NONE;
	const uint8_t *p = code;
	size_t n = len;
	uint64_t a = addr;
	if (!cs_disasm_iter(d->cs, &p, &n, &a, d->insn))
		return -1;
	out->addr = addr;
	out->size = d->insn->size;
	if (d->arch == TY_ARCH_X86_64)
		decode_x86(d, out);
	else
		decode_a64(d, out);
	written_regs(d, out);
	if (out->kind == TY_K_CALL)
		out->written |= ty_call_clobbered(d->arch);
	return 0;
}

uint64_t ty_call_clobbered(enum ty_arch arch)
{
	if (arch == TY_ARCH_X86_64) /* rax rdx rcx rsi rdi r8-r11 */
		return (1u << 0) | (1u << 1) | (1u << 2) | (1u << 4) | (1u << 5) | (0xfu << 8);
	return 0x7ffffull | (1ull << 30); /* x0-x18, lr */
}

int ty_reg_sp(enum ty_arch arch)
{
	return arch == TY_ARCH_X86_64 ? 7 : 31;
}
