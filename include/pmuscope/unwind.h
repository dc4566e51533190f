/* DWARF unwinding of sampled user stacks (perf record --call-graph dwarf):
 * a sample's user registers (PERF_SAMPLE_REGS_USER) and the copy of its
 * user stack (PERF_SAMPLE_STACK_USER) are unwound with the call frame
 * information of the mapped binaries through elfutils libdwfl
 * (dwfl_attach_state with callbacks that read the copied stack, then
 * dwfl_getthread_frames), so that code built without frame pointers gets
 * whole call paths.
 *
 * Ownership: pms_unwinder_new() gives the caller an unwinder released with
 * pms_unwinder_free(); sys and the maps passed to each call are borrowed.
 * Frames are written into the caller's buffer.
 */
#ifndef PMUSCOPE_UNWIND_H
#define PMUSCOPE_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/callpath.h"
#include "pmuscope/record.h"
#include "pmuscope/symbols.h"
#include "pmuscope/sys.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

struct pms_unwinder;

struct pms_unwinder_stats {
	uint64_t samples;   /* asked to unwind */
	uint64_t unwound;   /* gave at least one caller beyond the sampled IP */
	uint64_t no_regs;   /* the sample had no user registers (a kernel thread) */
	uint64_t failed;    /* nothing beyond the sampled IP (no CFI, stack cut) */
	uint64_t frames;    /* user frames found */
	uint64_t rebuilds;  /* times the module list was rebuilt (the maps changed) */
	uint64_t no_stack;  /* registers but no stack bytes captured: no user frame,
			     * not even the sampled IP (as perf) */
};

/* Binaries are opened below sys's root. */
int pms_unwinder_new(struct pms_sys *sys, struct pms_unwinder **out);
void pms_unwinder_free(struct pms_unwinder *u);

/* The whole path of a decoded sample, leaf first: the kernel frames of its
 * callchain (when it has one), then the user frames unwound from its
 * registers and stack copy with the binaries mapped in maps (the process's
 * mappings when it was sampled: MMAP2 records or /proc/PID/maps).  The
 * registers are read as this machine's architecture's (x86-64, AArch64).
 * Writes at most cap frames; *n gets the count.  Returns 0, or 1 when the
 * path is incomplete: frames dropped for want of room, or the unwind
 * stopped on an error before the outermost frame (no CFI, the stack copy
 * too short, a PC in a module whose ELF is not on this machine, from which
 * perf takes no step either: the frames found are given); PMS_ENOTSUP when the sample has
 * no user registers and stack, or this architecture has no register map
 * here; PMS_EINVAL for NULL. */
int pms_unwinder_sample(struct pms_unwinder *u, const struct pms_maps *maps,
			const struct pms_sample *s, struct pms_frame *out, size_t cap, size_t *n);

void pms_unwinder_stats(const struct pms_unwinder *u, struct pms_unwinder_stats *out);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
