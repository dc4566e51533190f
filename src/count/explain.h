/* Internal: turn a perf_event_open errno into a message that names the cause
 * read from the machine (paranoid level, capabilities, fd limit, VM without
 * a virtual PMU, the attr fields that were set). */
#ifndef PMS_COUNT_EXPLAIN_H
#define PMS_COUNT_EXPLAIN_H

#include <linux/perf_event.h>
#include <sys/types.h>

#include "pmuscope/pmu.h"
#include "pmuscope/sys.h"

struct pms_open_ctx {
	const char *event;  /* the event as written */
	const char *pmu;    /* its PMU name, or NULL */
	int cpu;
	pid_t pid;
	int nopen;          /* fds this caller holds open */
};

/* Record the error for err (positive errno) and return its PMS_E* code. */
int pms_count_explain(const struct pms_sys *sys, const struct pms_pmus *pmus,
		      const struct perf_event_attr *attr, const struct pms_open_ctx *ctx,
		      int err);

/* /proc/sys/kernel/perf_event_paranoid through the seam; INT_MIN if unreadable. */
int pms_count_paranoid(const struct pms_sys *sys);

#endif
