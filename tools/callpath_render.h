/* Call-path sections of `pmuscope mem -g` and `pmuscope report`: text,
 * JSON members and folded stacks for flame graphs.
 * Ownership: everything is borrowed for the call. */
#ifndef PMUSCOPE_TOOLS_CALLPATH_RENDER_H
#define PMUSCOPE_TOOLS_CALLPATH_RENDER_H

#include <stdio.h>

#include "cli.h"
#include "pmuscope/pathprof.h"

void callpath_render_text(const struct pms_pathreport *r);
/* The "callpaths" member (an object). */
void callpath_render_json(struct json *j, const struct pms_pathreport *r);
/* One folded line per distinct path ("a;b;c COUNT"), most samples first.
 * 0, or -1 with errno set when writing failed. */
int callpath_write_folded(FILE *f, const struct pms_pathreport *r);

/* mem_render's json_extra / text_extra with extra_ud = the path report */
void callpath_json_extra(struct json *j, const void *ud);
void callpath_text_extra(const void *ud);

#endif
