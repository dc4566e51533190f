/* Exports of a memory report for other tools: the stack of each sample
 * (its instruction and recorded callers, leaf first), collapsed stacks for flamegraph.pl and
 * speedscope, and a gzip-compressed pprof profile.proto for continuous-
 * profiling backends (Pyroscope, Parca, `go tool pprof`), which keeps the
 * memory dimensions as sample labels.  Everything is computed from the
 * report pms_memprof_report() built, in its kept-samples mode (report.all).
 *
 * Ownership: pms_export_stacks_new() gives stacks released with
 * pms_export_stacks_free(); they borrow the report, which must outlive them
 * (the call paths only for the call).
 * Buffers returned in *out are the caller's, released with free().
 */
#ifndef PMUSCOPE_EXPORT_H
#define PMUSCOPE_EXPORT_H

#include "pmuscope/api.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/pathprof.h"
#include "pmuscope/report.h"
#include "pmuscope/symbols.h"

#ifdef __cplusplus
extern "C" {
#endif

PMS_API_BEGIN

/* One frame of the exports: a sample's own instruction (the leaf, one of
 * report.sites) or a caller from its recorded call path. */
struct pms_export_frame {
	uint64_t addr;   /* the instruction; a caller's return address (as the
			  * callchain holds it); 0 for a hidden kernel frame */
	char *name;      /* the name the exports show (never NULL): the function,
			  * "[unknown] [module file]" / "[unknown]" when it is not
			  * known (pms_export_frame_name), "[kernel]" for a kernel
			  * frame without a name (hidden, or not named) */
	char *file;      /* source file, NULL if unknown */
	int line;
	char *module;    /* binary or mapping path, "[kernel]", "" if none */
	bool kernel;
	long site;       /* the leaf's index in report.sites; -1 for a caller */
};

/* The stack of every sample, leaf first: the one source of stacks for the
 * collapsed stacks, the pprof locations and the HTML page's icicle.  The
 * leaf is the sampled instruction (report.sites, as the report counts its
 * functions); its callers come from the sample's recorded call path
 * (pathprof.h, built in kept-samples mode from the same samples).  The
 * path's first frame is where the kernel took it (the interrupted IP):
 * the sampled instruction itself, or for a precise event (IBS, PEBS) an
 * instruction after it; it is left out when it is the leaf's address or
 * in the leaf's function (or both are hidden kernel frames), else kept as
 * the first caller.  A sample without a path has its leaf alone, one
 * without an IP its recorded path (or nothing).  Samples with equal
 * stacks share one. */
struct pms_export_stacks; /* opaque: read through the functions below */

/* The stacks of the report's samples.  paths: the call paths of the same
 * samples (pms_pathprof_report of a collector built with kept_samples and
 * fed every sample the report was), or NULL: one frame per sample.
 * PMS_EINVAL when the report kept no samples or paths covers other
 * samples.  The stacks copy what they need of paths; they borrow r. */
int pms_export_stacks_new(const struct pms_memreport *r, const struct pms_pathreport *paths,
			  struct pms_export_stacks **out);
void pms_export_stacks_free(struct pms_export_stacks *st);
/* The distinct stacks: how many, how many frames stack j has (0 past the
 * end), and the index (for pms_export_stacks_frame) of its k-th frame, leaf
 * first ((size_t)-1 past the end). */
size_t pms_export_stacks_count(const struct pms_export_stacks *st);
size_t pms_export_stacks_depth(const struct pms_export_stacks *st, size_t j);
size_t pms_export_stacks_frame_index(const struct pms_export_stacks *st, size_t j, size_t k);
/* The frames the stacks share: how many, and the i-th (NULL past the end). */
size_t pms_export_stacks_frame_count(const struct pms_export_stacks *st);
const struct pms_export_frame *pms_export_stacks_frame(const struct pms_export_stacks *st,
							size_t i);
/* The report's kept samples (its nall): how many, and sample i's stack
 * ((size_t)-1 past the end). */
size_t pms_export_stacks_sample_count(const struct pms_export_stacks *st);
size_t pms_export_stacks_of_sample(const struct pms_export_stacks *st, size_t i);
/* Whether some stack has a caller (call paths were recorded). */
bool pms_export_stacks_callers(const struct pms_export_stacks *st);

/* The name a report site shows: the function, or "[unknown]" / "[kernel]", with
 * the module's file name in brackets when the function is unknown
 * ("[unknown] [libfoo.so]").  Borrowed from the report, or written to buf. */
const char *pms_export_frame_name(const struct pms_memreport_site *f, char *buf, size_t size);

enum pms_export_weight {
	PMS_EXPORT_SAMPLES = 0, /* each sample counts 1 */
	PMS_EXPORT_LATENCY,     /* each sample counts its latency (weight), 0 if none */
};

/* Collapsed stacks: one line per distinct stack of names, root first, frames joined
 * with ';', a space and the total ("main;work;load_row 42\n"), paths in
 * sorted order; samples without a frame count under "[no ip]", and paths
 * whose total is 0 are left out.  ';' and newlines inside a name become
 * ':' and ' '.  *out is NUL-terminated, *len its length. */
int pms_export_folded(const struct pms_export_stacks *st, enum pms_export_weight w, char **out,
		      size_t *len);

/* A build id for the mappings of a pprof profile, by module path. */
struct pms_export_build_id {
	const char *path;
	const uint8_t *id;
	size_t size;
};

/* The build ids of a profile's modules, one way for both sources: the
 * perf.data headers' build-id lists of infos[0..ninfos-1] (a recorded file;
 * perf's "[kernel.kallsyms]" named "[kernel]" as the report names it), or,
 * with ninfos 0, the report's modules that are files, read from their ELF
 * notes (pms_elf_build_id; a live run; each path once, files without a note
 * left out).  *out is one allocation, released with free(); its paths and
 * ids point into infos and the report (borrowed: they must outlive it) or
 * into the allocation.  infos may be NULL with ninfos 0; r may be NULL with
 * ninfos > 0. */
struct pms_perfdata_info;
int pms_export_build_ids(const struct pms_memreport *r,
			 const struct pms_perfdata_info *const *infos, size_t ninfos,
			 struct pms_export_build_id **out, size_t *n);

#define PMS_EXPORT_PPROF_OPTS_VERSION 4
struct pms_export_pprof_opts {
	unsigned version;                 /* PMS_EXPORT_PPROF_OPTS_VERSION */
	int64_t time_ns;                  /* start of the profile (wall clock), 0 = unknown */
	int64_t duration_ns;              /* 0 = the report's duration */
	const struct pms_maps *maps;      /* mapping ranges of the modules; may be NULL */
	const struct pms_export_build_id *build_ids; /* may be NULL */
	size_t nbuild_ids;
	const char *host;                 /* a "host" label on every sample without a
					   * source (report.sources); NULL = none */
	const char *comment;              /* a profile comment; NULL = none */
	/* version 2: one more string label per sample, key extra_key and
	 * value extra_values[i] for report.all[i] (NULL or "": none; samples
	 * past nextra_values: none), e.g. the allocation site (issue 28) */
	const char *extra_key;
	const char *const *extra_values;
	size_t nextra_values;
	/* version 3: the labels "type" and "member" of report.all[i] (issue
	 * 29; pms_session_type_hits): type_values[i] ("struct rec") and
	 * member_values[i] ("b[2].y[1]"); NULL or "": none; samples past
	 * ntype_values: none */
	const char *const *type_values;
	const char *const *member_values;
	size_t ntype_values;
	/* version 4: the label "alloc_type" of report.all[i]: the data type
	 * of the allocation site the sample fell in (issue 29; the site's
	 * pms_alloc_site.type), e.g. "struct rec"; NULL or "": none; samples
	 * past nalloc_type_values: none */
	const char *const *alloc_type_values;
	size_t nalloc_type_values;
};
#define PMS_EXPORT_PPROF_OPTS_INIT                                                         \
	{ PMS_EXPORT_PPROF_OPTS_VERSION, 0, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0,    \
	  NULL, NULL, 0, NULL, 0 }

/* The profile as pprof's profile.proto, gzip-compressed (what `go tool
 * pprof`, Pyroscope and Parca read).  Sample types: samples/count and
 * latency/cycles.  One pprof sample per distinct (call path, labels) of
 * the report's samples, its values summed over them; labels: level
 * (perf's data-source text), snoop, op (perf mem-stat names), object (its
 * data object), remote ("yes"/"no", when both nodes are known), and the
 * numeric labels mem_node and cpu_node (unit "node") when known, and host
 * (the sample's source in a merged report, else opts->host).
 * Each sample's location ids are its stack, leaf first; a location per
 * frame of the stacks, with function, file and line where known, and a
 * mapping per module (its range from opts->maps, its build id from
 * opts->build_ids).  opts may be NULL. */
int pms_export_pprof(const struct pms_export_stacks *st, const struct pms_export_pprof_opts *opts,
		     void **out, size_t *len);

PMS_API_END

#ifdef __cplusplus
}
#endif
#endif
