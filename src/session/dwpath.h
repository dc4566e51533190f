/* Internal: a DWARF sample's whole call path as perf shows it, the one place
 * where the session's readers of call chains (perf report's histogram,
 * sorthist.c; perf script's text, script_text.c) turn a sample recorded
 * with --call-graph dwarf (PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER)
 * into frames: the kernel part of its callchain, then the user frames
 * unwound from its registers and stack copy (pms_unwinder_sample), with
 * perf's rules around them (dwpath.c).
 *
 * Ownership: the struct is the caller's (zeroed, then sys set: borrowed);
 * dwpath_fini() frees what the calls allocated.  The frames given are the
 * struct's, valid until the next call. */
#ifndef PMS_SESSION_DWPATH_H
#define PMS_SESSION_DWPATH_H

#include <stdbool.h>
#include <stddef.h>

#include "pmuscope/callpath.h"
#include "pmuscope/record.h"
#include "pmuscope/symbols.h"
#include "pmuscope/sys.h"
#include "pmuscope/unwind.h"

struct dwpath {
	struct pms_sys *sys;      /* binaries are opened below its root (borrowed) */
	struct pms_symbolizer *sym; /* NULL, or the caller's, whose per-file DWARF the
				     * unwinder asks before opening a debug file
				     * (pms_unwinder_files_from; borrowed) */
	struct pms_unwinder *uw;  /* made at the first DWARF sample */
	struct pms_frame *buf;    /* PMS_CALLPATH_MAX frames */
	bool no_unwinder;         /* pms_unwinder_new failed: the fallback's frames */
};

/* The sample carries the user registers and stack of a DWARF unwind. */
bool dwpath_applies(const struct pms_sample *s);

/* The path of s (dwpath_applies), leaf first, as perf 6.12 builds its
 * callchain cursor (machine.c thread__resolve_callchain, callee order):
 * the kernel frames of its callchain, then the user frames unwound with the
 * process's mappings maps (NULL: none known), each caller's return address
 * less one (unwind-libdw.c frame_callback: the call, not the next line).
 * Where perf has no user frame the path has none: the sampled user PC in
 * no mapping (the unwind does not start), no stack byte captured
 * (thread__resolve_callchain_unwind "Bail out if nothing was captured");
 * where the unwind cannot start (no ELF of the module here) the user PC
 * alone.  *n gets the count (0 is a path: perf prints no frame).  0, or
 * PMS_ENOMEM (*n is 0). */
int dwpath_frames(struct dwpath *d, const struct pms_maps *maps, const struct pms_sample *s,
		  const struct pms_frame **out, size_t *n);

void dwpath_fini(struct dwpath *d);

#endif
