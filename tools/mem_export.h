/* `--html FILE`, `--pprof FILE` and `--folded[=latency]` for `pmuscope mem`
 * and `pmuscope report`: one call after the report is built.  The pprof
 * encoder and the collapsed stacks are the library's (pmuscope/export.h);
 * the HTML page is rendering, so it lives here.
 * Ownership: everything is borrowed for the call. */
#ifndef PMUSCOPE_TOOLS_MEM_EXPORT_H
#define PMUSCOPE_TOOLS_MEM_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem_render.h"
#include "pmuscope/export.h"
#include "pmuscope/topo.h"

struct mem_export {
	const char *html;   /* --html FILE */
	const char *pprof;  /* --pprof FILE */
	bool folded;        /* --folded: the collapsed stacks on stdout instead of the report */
	enum pms_export_weight folded_weight;
	/* What the command knows besides the report (all may be NULL/0). */
	const char *host;                /* pprof "host" label */
	const struct pms_maps *maps;     /* pprof mapping ranges */
	const struct pms_export_build_id *build_ids;
	size_t nbuild_ids;
	const struct pms_topo *topo;     /* node distances for the HTML page */
	int64_t time_ns;                 /* wall-clock start, pprof time_nanos */
	/* Live runs: read the modules' build ids from their files
	 * (pms_elf_build_id) when build_ids gives none. */
	bool read_build_ids;
};

/* Options help text, for the commands' --help. */
#define MEM_EXPORT_HELP                                                                          \
	"  --html FILE       also write a self-contained HTML report (docs/export.md)\n"          \
	"  --pprof FILE      also write a gzip-compressed pprof profile (go tool pprof, Pyroscope)\n" \
	"  --folded[=latency] collapsed stacks (flamegraph.pl, speedscope) on stdout instead\n"    \
	"                    of the report, counted in samples or in latency cycles\n"

/* Take one export option by its long name ("html", "pprof", "folded") and
 * value (NULL when none).  0, or -1 after printing why. */
int mem_export_opt(struct mem_export *x, const char *cmd, const char *name, const char *val);
/* For hand-written option loops: consume argv[*i] (and its value) when it
 * is an export option.  1 taken, 0 not one, -1 bad (printed). */
int mem_export_arg(struct mem_export *x, const char *cmd, int argc, char **argv, int *i);
/* Whether the report must keep its samples (every export needs them). */
bool mem_export_wanted(const struct mem_export *x);
/* Write what was asked.  m is how the command renders the report (the HTML
 * page embeds its JSON and its text).  Returns 0, or 1 after printing why. */
int mem_export_write(const struct mem_export *x, const struct mem_render *m,
		     const struct pms_memreport *r);

#endif
