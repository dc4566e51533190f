/* report --sort: perf report's histogram of samples by sort keys, built by
 * the library (pmuscope/sorthist.h, fed by the session), printed here. */
#ifndef PMUSCOPE_TOOLS_REPORT_SORT_H
#define PMUSCOPE_TOOLS_REPORT_SORT_H

#include <stdbool.h>
#include <stdio.h>

#include "pmuscope/render_cmd.h"

/* perf report's call-graph view (--children, --no-children, -g): the
 * library's chains (pms_render_chains) and what the CLI decides with them. */
struct report_cg {
	bool set;                   /* -g, --children or --no-children given */
	int children;               /* -1: perf's default (on when the file has call paths) */
	bool mode_set;              /* -g named a mode */
	int order;                  /* -1 default (caller with children, else callee), 0 callee, 1 caller */
	struct pms_render_chains ch; /* mode (perf's default graph), threshold, limit, value */
};
#define REPORT_CG_INIT { false, -1, false, -1, { PMS_CG_GRAPH, PMS_CG_PERCENT, 0.5, 0 } }

/* perf report -g's argument: comma-separated words in any order: a mode
 * (graph, fractal, flat, folded, none), caller/callee, function (address
 * is refused), percent/period/count, then numbers: the threshold and the
 * print limit.  0, or -1 with *bad naming the word. */
int report_cg_parse(const char *arg, struct report_cg *cg, const char **bad);

/* perf report -F FIELDS: overhead, sample, period and sort keys in the
 * order given: the keys joined into keys (for pms_sorthist_new), the
 * columns into cols (at most *ncols, then their number).  -1 with *bad. */
int report_fields_parse(const char *fields, char *keys, size_t nkeys, int *cols, size_t *ncols,
			const char **bad);

#endif
