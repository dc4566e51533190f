/* Internal: perf report's -g graph and fractal trees of a sort histogram
 * row (cgtree.c), for the sort table (sort.c). */
#ifndef PMS_RENDER_CGTREE_INT_H
#define PMS_RENDER_CGTREE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pmuscope/render_cmd.h"
#include "pmuscope/sorthist.h"

/* Row w's call chains as a tree, as perf report --stdio -g graph (percent
 * of the total) or fractal (percent of the parent) prints it below the row.
 * skip_first: the first frame of a lone root is the row's own symbol (perf
 * leaves it out when the first sort key is sym and -F was not given). */
void render_cg_tree(FILE *f, const struct pms_sorthist_row *w,
		    const struct pms_sorthist_result *r, const struct pms_render_chains *cg,
		    bool skip_first);

/* Each chain's value as -g flat prints it (perf's cumulative node value):
 * its period and samples and those of every chain it begins, for all of
 * w's chains in one pass (arrays of w->nchains).  0, or -1 out of memory. */
int render_cg_cumul(const struct pms_sorthist_row *w, uint64_t *period, uint64_t *samples);

#endif
