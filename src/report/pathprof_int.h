/* Internal to the library: the body of struct pms_pathreport, which the
 * public header keeps opaque (callers read it with the pms_pathreport_*
 * accessors).  src/report/pathprof.c builds it; library code that reads a
 * report whole (the exports' stacks) and tests that check it whole include
 * this. */
#ifndef PMS_PATHPROF_INT_H
#define PMS_PATHPROF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "pmuscope/pathprof.h"

struct pms_pathreport {
	enum pms_callgraph how;          /* of the samples (NONE when none had a path) */
	uint64_t samples;                /* added */
	uint64_t with_path, without_path;
	uint64_t truncated;              /* samples whose path was cut */
	size_t distinct;                 /* distinct paths */
	struct pms_unwinder_stats unwind; /* DWARF samples */
	struct pms_pathreport_path *by_samples, *by_latency, *by_remote;
	size_t nby_samples, nby_latency, nby_remote;
	/* every distinct path, most samples first (for folded stacks) */
	struct pms_pathreport_path *all;
	size_t nall;
	/* samples with a branch stack, and their last branches by samples and
	 * by total latency */
	uint64_t with_branches;
	struct pms_pathreport_branch *branches_by_samples, *branches_by_latency;
	size_t nbranches_by_samples, nbranches_by_latency;
	/* Kept-samples mode (opts.kept_samples): the path of each sample
	 * added, in the order added (the memory report's `all` order): 1 + its
	 * index in `all`, 0 for a sample without a path.  NULL otherwise.
	 * The exports take each sample's call path from here (export.h). */
	uint32_t *sample_path;
	size_t nsample_path;
};

#endif
