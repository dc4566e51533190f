/* Internal: a DWARF call path with its inline stacks expanded, as perf 6.12
 * prints it by default (util/machine.c unwind_entry -> append_inlines: each
 * frame the DWARF unwinder gives, in a module with DWARF and with a symbol,
 * becomes the functions holding its address, innermost first, all at the
 * one ip; frames of the kernel's callchain are not expanded, nor frame
 * pointer or LBR chains: add_callchain_ip does not call it in 6.12).  The
 * one place script's text and JSON (script_text.c), report's call
 * graphs (sorthist.c) and the session's call-path report (session.c:
 * text, JSON, folded stacks, pprof, HTML) expand a path; the stacks come from
 * symbols/inline.c, looked up once per (module, offset).
 *
 * Ownership: the struct is the caller's (zeroed; sym, borrowed, is taken
 * from the symtrack at the first expansion, or set by the caller);
 * inlpath_fini() frees what the calls allocated.  The frames given are the
 * struct's, valid until the next inlpath_expand. */
#ifndef PMS_SESSION_INLPATH_H
#define PMS_SESSION_INLPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/callpath.h"
#include "pmuscope/pathprof.h"
#include "pmuscope/sys.h"
#include "session/symtrack_int.h"

struct pms_inline;
struct pms_symbolizer;

struct inlpath {
	struct pms_symbolizer *sym; /* whose module handles the stacks read */
	struct pms_inline *c; /* made at the first expansion */
	struct pms_frame *buf;
	size_t cap;
	bool failed; /* pms_inline_new failed: paths stay as they are */
};

/* fr[0..n) of process pid (leaf first), each PMS_FRAME_DWARF user frame
 * in code with inlined functions replaced by its inline stack (flags
 * PMS_FRAME_INLINE and the depth): *out, *nout (fr itself where nothing
 * was expanded).  0, or PMS_ENOMEM (the path unexpanded). */
int inlpath_expand(struct inlpath *p, struct pms_symtrack *st, uint32_t pid,
		   const struct pms_frame *fr, size_t n, const struct pms_frame **out,
		   size_t *nout);

/* A PMS_FRAME_INLINE frame f named: nm (pms_symtrack_code's answer for
 * f->ip, with its line) gets the function of f's depth in the stack and,
 * for the outer ones, the line of the call inside it (NULL, 0 where none
 * is known).  True when that function is not the
 * address's own symbol (perf's fake "(inlined)" symbol: its dso is not
 * printed, its offset is the symbol's). */
bool inlpath_name(struct inlpath *p, const struct pms_frame *f, struct pms_symtrack_name *nm);

/* Every path of a call-path report (pms_pathprof_report: its top lists
 * and `all`), named, with the same expansion: each DWARF user frame whose
 * address (a caller's return address less one, as pathprof.c names it)
 * is in inlined code becomes its inline stack, innermost first, each at
 * the frame's ip and flagged PMS_FRAME_INLINE with its depth: the
 * function (the symbol's own name for the frame of the symbol), the
 * innermost's line the frame's, an outer one's the line of the call in
 * it.  maps: the mappings the report's symbolizer named the paths with
 * (file offsets of the modules), sym the report's symbolizer (its
 * handles on the module files).  The paths' counts and the samples'
 * indexes stay.  0, or PMS_ENOMEM (a path left as it was). */
int inlpath_report(struct pms_symbolizer *sym, const struct pms_maps *maps,
		   struct pms_pathreport *r);

void inlpath_fini(struct inlpath *p);

#endif
