/* report --sort: perf report's histogram of samples by sort keys, built by
 * the library (pmuscope/sorthist.h, fed by the session), printed here. */
#ifndef PMUSCOPE_TOOLS_REPORT_SORT_H
#define PMUSCOPE_TOOLS_REPORT_SORT_H

#include <stdbool.h>
#include <stdio.h>

#include "pmuscope/sorthist.h"

/* The rows by overhead (the samples' periods) as perf report --stdio
 * prints them; nr: the Samples column (-n); rows under percent_limit are
 * left out (said on a comment line).  0, or -1 when the result cannot be
 * built (pms_error_last says why). */
int report_sort_print(struct pms_sorthist *h, bool nr, double percent_limit, FILE *f);

#endif
