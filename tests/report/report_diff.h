/* Field-by-field comparison of two memory reports: the live one and the one
 * built from the perf.data file recorded in the same run.  The live-only
 * fields (docs/mem.md "Live-only fields") are not compared. */
#ifndef PMS_TEST_REPORT_DIFF_H
#define PMS_TEST_REPORT_DIFF_H

#include "pmuscope/report.h"

/* Number of fields that differ; each is printed to stderr with both values. */
int pms_t_report_diff(const struct pms_memreport *live, const struct pms_memreport *file);

#endif
