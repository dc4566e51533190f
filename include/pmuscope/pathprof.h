/* Memory samples by call path: which call paths led to the samples, the
 * slow accesses and the remote ones (`pmuscope mem -g`, `pmuscope report`
 * on a file recorded with -g).  Paths come from each sample's callchain
 * (frame pointers) or from a DWARF unwind of its copied user stack
 * (unwind.h); the report lists the top paths by samples, by total latency
 * and by remote share, each frame named (function, source line, module),
 * and every distinct path for flame graphs (folded stacks).
 *
 * Ownership: pms_pathprof_new() gives the caller a collector released with
 * pms_pathprof_free(); pms_pathprof_report() gives a report released with
 * pms_pathreport_free(), which owns every pointer inside it.  sys, maps,
 * the memory report and the symbolizer are borrowed.
 */
#ifndef PMUSCOPE_PATHPROF_H
#define PMUSCOPE_PATHPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/callpath.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/report.h"
#include "pmuscope/symbols.h"
#include "pmuscope/sys.h"
#include "pmuscope/unwind.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

#define PMS_PATHPROF_OPTS_VERSION 2
struct pms_pathprof_opts {
	unsigned version;  /* PMS_PATHPROF_OPTS_VERSION */
	size_t top;        /* paths per top list; 0 = 10 */
	/* Kernel addresses may not be shown (kallsyms hides them): a path's
	 * kernel frames fold into one hidden frame (ip 0, PMS_FRAME_HIDDEN). */
	bool hide_kernel;
	/* The memory report keeps every sample in arrival order (the
	 * kept-samples mode of pms_memprof): remote shares are taken from its
	 * resolved nodes.  Otherwise from the nodes each sample came with. */
	bool kept_samples;
	/* Version 2: only the top lists are built and named; the report's
	 * `all` (every distinct path, named: folded stacks, exports) stays
	 * empty.  Naming every frame of every distinct path (a source line
	 * each) was most of a text report's time on files of many paths. */
	bool top_only;
};
#define PMS_PATHPROF_OPTS_INIT { PMS_PATHPROF_OPTS_VERSION, 0, false, false, false }

struct pms_pathprof;

int pms_pathprof_new(struct pms_sys *sys, const struct pms_pathprof_opts *opts,
		     struct pms_pathprof **out);
void pms_pathprof_free(struct pms_pathprof *p);

/* One memory sample of a source (its branch stack, when it has one, gives
 * the last branch before it).  A DWARF sample (s->path.how DWARF) is
 * unwound now, against maps (the process's mappings so far, e.g.
 * pms_memprof_maps()); maps may be NULL for FP samples.  A sample without
 * a path is counted as such.  0 or a negative PMS_E*. */
int pms_pathprof_add_src(struct pms_pathprof *p, const struct pms_memsrc_sample *s,
			 const struct pms_maps *maps);

struct pms_pathreport_frame {
	uint64_t ip;
	uint32_t flags;      /* PMS_FRAME_* */
	char *func;          /* NULL when unknown */
	uint64_t offset;     /* ip - function start */
	char *file;          /* source file, NULL if unknown */
	int line;
	char *module;        /* "" if unknown, "[kernel]" for the kernel */
};

struct pms_pathreport_path {
	struct pms_pathreport_frame *frames; /* leaf first */
	size_t nframes;
	uint64_t samples;
	uint64_t latency;    /* total weight of its samples with one */
	uint64_t weighted;
	uint64_t resolved;   /* samples with a memory node */
	uint64_t remote;     /* ... on another node than the sampling CPU's */
	bool truncated;      /* some of its samples' paths were cut */
};

/* The last branch taken before samples (entry 0 of their branch stacks:
 * the path into the sampled access). */
struct pms_pathreport_branch {
	uint64_t from, to;
	char *from_func, *to_func;  /* NULL when unknown */
	char *to_file;              /* source of the branch target, NULL if unknown */
	int to_line;
	uint64_t samples;
	uint64_t latency;           /* total weight of its samples with one */
	uint64_t weighted;
	uint64_t mispredicted;      /* of its samples, the branch was mispredicted */
};

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

/* Build the report.  mem: the memory report of the same samples (its
 * `all` gives the resolved nodes in kept-samples mode; may be NULL).
 * sym may be NULL (no names); kernel frames are named only when
 * name_kernel (a live run whose kallsyms is visible). */
int pms_pathprof_report(struct pms_pathprof *p, const struct pms_memreport *mem,
			struct pms_symbolizer *sym, bool name_kernel,
			struct pms_pathreport **out);
void pms_pathreport_free(struct pms_pathreport *r);

/* A path as one folded-stack line ("root;caller;leaf"), the form flame
 * graph tools read: function names, else module+0xoffset, else the
 * address.  Writes at most cap bytes (NUL-terminated); returns the length
 * it needed. */
size_t pms_pathreport_folded(const struct pms_pathreport_path *path, char *buf, size_t cap);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
