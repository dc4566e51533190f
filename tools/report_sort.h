/* report --sort: perf report's histogram of samples by sort keys (one
 * table of keys in report_sort.c).  Ownership: the report_sort is the
 * caller's, released with report_sort_free. */
#ifndef PMUSCOPE_TOOLS_REPORT_SORT_H
#define PMUSCOPE_TOOLS_REPORT_SORT_H

#include <stdbool.h>
#include <stdio.h>

#include "pmuscope/memsrc.h"

struct report_sort;

/* Keys "k1,k2" as perf's -s takes them: 0, or -1 with the reason (naming
 * the keys there are) in err. */
int report_sort_new(const char *keys, struct report_sort **out, char *err, size_t errsz);
/* A session callback (pms_session_callbacks.sample): one sample counted. */
int report_sort_add(void *ud, const struct pms_memsrc_sample *x);
/* The rows by overhead (the samples' periods) as perf report --stdio
 * prints them; nr: the Samples column (-n); rows under percent_limit are
 * left out (said on a comment line). */
void report_sort_print(struct report_sort *s, bool nr, double percent_limit, FILE *f);
bool report_sort_failed(const struct report_sort *s);
void report_sort_free(struct report_sort *s);

#endif
