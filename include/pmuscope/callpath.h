/* Call paths of samples: the frames a sample was taken under, from the
 * kernel's frame-pointer callchain (PERF_SAMPLE_CALLCHAIN) or from a DWARF
 * unwind of the user registers and stack copy the sample carries
 * (PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER; see unwind.h), in one
 * form that reports, exports and flame graphs share.
 *
 * Ownership: a struct pms_callpath points to frames owned by whoever filled
 * it (a memory-sample source, an unwinder or the caller's buffer); the
 * functions here allocate nothing.
 */
#ifndef PMUSCOPE_CALLPATH_H
#define PMUSCOPE_CALLPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* How call paths are asked for (perf record -g / --call-graph). */
enum pms_callgraph {
	PMS_CALLGRAPH_NONE = 0,
	PMS_CALLGRAPH_FP,    /* the kernel walks frame pointers: PERF_SAMPLE_CALLCHAIN */
	PMS_CALLGRAPH_DWARF, /* user registers + a copy of the user stack, unwound
			      * afterwards with the binaries' CFI (plus the
			      * kernel part of the callchain) */
};

/* The default stack copy of --call-graph dwarf, as perf's (8192 bytes). */
#define PMS_CALLGRAPH_DWARF_DEFAULT 8192u
/* Largest stack copy the kernel takes: perf_copy_attr() refuses
 * sample_stack_user >= USHRT_MAX and sizes not a multiple of 8. */
#define PMS_CALLGRAPH_DWARF_MAX 65528u

/* "fp" / "dwarf" / "none" (perf's --call-graph words, "lbr" is refused). */
const char *pms_callgraph_name(enum pms_callgraph g);
/* perf's --call-graph argument: "fp", "dwarf" or "dwarf,SIZE" (SIZE in
 * bytes, rounded up to 8, at most PMS_CALLGRAPH_DWARF_MAX).  0, or
 * PMS_EINVAL with a message that says what is accepted. */
int pms_callgraph_parse(const char *arg, enum pms_callgraph *g, uint32_t *stack_size);

/* Branch-stack filters (attr.branch_sample_type, PERF_SAMPLE_BRANCH_*) from
 * perf record -j's comma-separated words: u, k, hv (privilege), any,
 * any_call, any_ret, ind_call, ind_jmp, call, cond, abort_tx, in_tx, no_tx,
 * stack (call stack), save_type, priv, no_flags, no_cycles.  0, or
 * PMS_EINVAL naming the word and listing the accepted ones. */
int pms_branch_filter_parse(const char *text, uint64_t *out);

/* Frame flags */
#define PMS_FRAME_KERNEL 0x1u /* a kernel address */
#define PMS_FRAME_DWARF  0x2u /* found by the DWARF unwinder, not the kernel */
#define PMS_FRAME_HIDDEN 0x4u /* a kernel address this caller may not see: ip is 0 */
/* one of the frames perf 6.12 prints for a DWARF-unwound address inside
 * inlined code: the functions holding it, innermost first, all at its ip;
 * (flags >> PMS_FRAME_INLINE_SHIFT) is the frame's depth in that stack */
#define PMS_FRAME_INLINE 0x8u
#define PMS_FRAME_INLINE_SHIFT 16
/* a kernel address of another kernel than the one naming the report's
 * frames (PMS_MS_KERNEL_FOREIGN): left unnamed */
#define PMS_FRAME_FOREIGN 0x10u

struct pms_frame {
	uint64_t ip;    /* return address (callers) or the sampled IP (leaf) */
	uint32_t flags; /* PMS_FRAME_* */
};

/* One sample's path, leaf first (frames[0] is where the sample was taken). */
struct pms_callpath {
	const struct pms_frame *frames;
	size_t n;
	enum pms_callgraph how;  /* NONE: the sample has no path */
	bool truncated;          /* the buffer, the stack copy or max_stack cut it */
};

/* Most frames a path keeps (the kernel's PERF_MAX_STACK_DEPTH is 127 per
 * part; a DWARF unwind can add as many user frames). */
#define PMS_CALLPATH_MAX 256

/* The frames of a decoded callchain (the u64 array of PERF_SAMPLE_CALLCHAIN,
 * context markers mixed in, kernel part first): markers dropped, each frame
 * flagged kernel or user by the last marker before it (PERF_CONTEXT_KERNEL,
 * PERF_CONTEXT_USER; guest and hypervisor frames count as kernel).  With
 * user = false the user part is left out (a DWARF unwind replaces it).
 * Writes at most cap frames to out; *n gets the count.  Returns 1 when
 * frames were dropped for want of room, else 0; PMS_EINVAL for NULL with a
 * non-zero count. */
int pms_callpath_from_chain(const void *chain, uint64_t nr, bool user, struct pms_frame *out,
			    size_t cap, size_t *n);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
