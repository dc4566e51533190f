/* Exports of a memory report for other tools: the call path of each sample
 * as a list of frames (leaf first), collapsed stacks for flamegraph.pl and
 * speedscope, and a gzip-compressed pprof profile.proto for continuous-
 * profiling backends (Pyroscope, Parca, `go tool pprof`), which keeps the
 * memory dimensions as sample labels.  Everything is computed from the
 * report pms_memprof_report() built, in its kept-samples mode (report.all).
 *
 * Ownership: pms_export_stacks_new() gives stacks released with
 * pms_export_stacks_free(); they borrow the report, which must outlive them.
 * Buffers returned in *out are the caller's, released with free().
 */
#ifndef PMUSCOPE_EXPORT_H
#define PMUSCOPE_EXPORT_H

#include "pmuscope/api.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/report.h"
#include "pmuscope/symbols.h"

#ifdef __cplusplus
extern "C" {
#endif

PMS_API_BEGIN

/* The call path of every sample as frames, leaf first.  A frame is an
 * instruction of report.sites (address, function, file:line, module).
 * Today a sample carries its IP only, so its path is that one frame; a
 * sample without an IP has none.  When samples carry call chains, the
 * frames after the leaf are the callers. */
struct pms_export_stacks {
	const struct pms_memreport *report;
	size_t nsamples;    /* = report->nall */
	size_t *off;        /* sample i: frame[off[i]] .. frame[off[i + 1] - 1] */
	size_t *frame;      /* indexes into report->sites */
};

int pms_export_stacks_new(const struct pms_memreport *r, struct pms_export_stacks **out);
void pms_export_stacks_free(struct pms_export_stacks *st);

/* The name a frame shows: the function, or "[unknown]" / "[kernel]", with
 * the module's file name in brackets when the function is unknown
 * ("[unknown] [libfoo.so]").  Borrowed from the report, or written to buf. */
const char *pms_export_frame_name(const struct pms_memreport_site *f, char *buf, size_t size);

enum pms_export_weight {
	PMS_EXPORT_SAMPLES = 0, /* each sample counts 1 */
	PMS_EXPORT_LATENCY,     /* each sample counts its latency (weight), 0 if none */
};

/* Collapsed stacks: one line per distinct path, root first, frames joined
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

#define PMS_EXPORT_PPROF_OPTS_VERSION 1
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
};
#define PMS_EXPORT_PPROF_OPTS_INIT { PMS_EXPORT_PPROF_OPTS_VERSION, 0, 0, NULL, NULL, 0, NULL, NULL }

/* The profile as pprof's profile.proto, gzip-compressed (what `go tool
 * pprof`, Pyroscope and Parca read).  Sample types: samples/count and
 * latency/cycles.  One pprof sample per distinct (call path, labels) of
 * the report's samples, its values summed over them; labels: level
 * (perf's data-source text), snoop, op (perf mem-stat names), object (its
 * data object), remote ("yes"/"no", when both nodes are known), and the
 * numeric labels mem_node and cpu_node (unit "node") when known, and host
 * (the sample's source in a merged report, else opts->host).
 * Locations are the report's instructions, with function, file and line
 * where known, and a mapping per module (its range from opts->maps, its
 * build id from opts->build_ids).  opts may be NULL. */
int pms_export_pprof(const struct pms_export_stacks *st, const struct pms_export_pprof_opts *opts,
		     void **out, size_t *len);

PMS_API_END

#ifdef __cplusplus
}
#endif
#endif
