/* Internal to src/export: the body of struct pms_export_stacks, which the
 * public header keeps opaque (callers use the pms_export_stacks_*
 * accessors); stacks.c builds it, pprof.c reads it whole. */
#ifndef PMS_EXPORT_STACKS_INT_H
#define PMS_EXPORT_STACKS_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "pmuscope/export.h"

struct pms_export_stacks {
	const struct pms_memreport *report;
	size_t nsamples;     /* = report->nall */
	size_t *stack;       /* sample i: its stack, < nstacks */
	size_t nstacks;
	size_t *off;         /* stack j: frame[off[j]] .. frame[off[j + 1] - 1] */
	size_t *frame;       /* indexes into frames */
	struct pms_export_frame *frames;
	/* frame i: 1 + its depth in an inline stack (a PMS_FRAME_INLINE
	 * frame of the call paths, session/inlpath.c), 0 for any other; a
	 * stack holds an inline stack's frames together, innermost first */
	unsigned *inl;
	size_t nframes;
	bool callers;        /* some stack has a caller (call paths were recorded) */
};

#endif
