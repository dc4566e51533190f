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

#define PMS_PATHPROF_OPTS_VERSION 3
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
	/* Version 3, read by the session (pms_session_report): perf's
	 * --no-inline.  By default each DWARF frame in inlined code is its
	 * inline stack in the report's paths, as perf 6.12 shows it
	 * (PMS_FRAME_INLINE frames); with this they stay one frame each. */
	bool no_inline;
};
#define PMS_PATHPROF_OPTS_INIT { PMS_PATHPROF_OPTS_VERSION, 0, false, false, false, false }

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

/* The report of a pathprof is opaque (docs/api.md "Opaque objects"): its
 * lists and totals are read through the functions below.  Rows are the
 * structs above, returned as const pointers that live as long as the
 * report.  For a NULL report every count and total is 0, every _at NULL,
 * and pms_pathreport_how PMS_CALLGRAPH_NONE. */
struct pms_pathreport;

/* Which list of paths: the top paths by samples, by total latency, by
 * share of remote samples, or every distinct path (most samples first, the
 * one folded stacks are written from). */
enum pms_pathreport_order {
	PMS_PATHS_BY_SAMPLES,
	PMS_PATHS_BY_LATENCY,
	PMS_PATHS_BY_REMOTE,
	PMS_PATHS_ALL,
};
/* Which list of last branches: by samples or by total latency. */
enum pms_pathreport_branch_order {
	PMS_BRANCHES_BY_SAMPLES,
	PMS_BRANCHES_BY_LATENCY,
};

/* How the samples' paths were taken (NONE when none had a path). */
enum pms_callgraph pms_pathreport_how(const struct pms_pathreport *r);
/* Samples added; of them with and without a path, whose path was cut, with
 * a branch stack; and the number of distinct paths. */
uint64_t pms_pathreport_samples(const struct pms_pathreport *r);
uint64_t pms_pathreport_with_path(const struct pms_pathreport *r);
uint64_t pms_pathreport_without_path(const struct pms_pathreport *r);
uint64_t pms_pathreport_truncated(const struct pms_pathreport *r);
uint64_t pms_pathreport_with_branches(const struct pms_pathreport *r);
size_t pms_pathreport_distinct(const struct pms_pathreport *r);
/* The DWARF unwinder's counts for the samples (all 0 without DWARF
 * samples); NULL for a NULL report. */
const struct pms_unwinder_stats *pms_pathreport_unwind(const struct pms_pathreport *r);
size_t pms_pathreport_path_count(const struct pms_pathreport *r, enum pms_pathreport_order which);
/* Path i of a list; NULL past the end or for an unknown list. */
const struct pms_pathreport_path *pms_pathreport_path_at(const struct pms_pathreport *r,
							 enum pms_pathreport_order which, size_t i);
size_t pms_pathreport_branch_count(const struct pms_pathreport *r,
				   enum pms_pathreport_branch_order which);
const struct pms_pathreport_branch *pms_pathreport_branch_at(const struct pms_pathreport *r,
							     enum pms_pathreport_branch_order which,
							     size_t i);
/* Kept-samples mode (opts.kept_samples): the path of each sample added, in
 * the order added (the memory report's `all` order): 1 + its index in the
 * PMS_PATHS_ALL list, 0 for a sample without a path.  The count is that of
 * the samples added in that mode, 0 otherwise (and pms_pathreport_kept
 * false); pms_pathreport_sample_path is 0 past the end. */
bool pms_pathreport_kept(const struct pms_pathreport *r);
size_t pms_pathreport_sample_path_count(const struct pms_pathreport *r);
uint32_t pms_pathreport_sample_path(const struct pms_pathreport *r, size_t i);

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
