/* `--html FILE`, `--pprof FILE` and `--folded[=latency]` for `pmuscope mem`
 * and `pmuscope report`: one call after the report is built.  The pprof
 * encoder, the collapsed stacks (pmuscope/export.h) and the HTML page
 * (pmuscope/render.h) are the library's; the options and files are here.
 * Ownership: everything is borrowed for the call. */
#ifndef PMUSCOPE_TOOLS_MEM_EXPORT_H
#define PMUSCOPE_TOOLS_MEM_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli_opt.h"
#include "cli_out.h"
#include "pmuscope/render.h" /* export.h, pathprof.h, topo.h */

struct mem_export {
	const char *html;   /* --html FILE */
	const char *pprof;  /* --pprof FILE */
	bool folded;        /* --folded: the collapsed stacks on stdout instead of the report */
	enum pms_export_weight folded_weight;
	/* --folded-to FILE: the stacks there ('-': stdout); NULL: stdout.  A
	 * command's run needs it (mem -- CMD: the command's own output would
	 * share stdout; issue 30) */
	const char *folded_to;
	/* The pprof's session and the allocation sites of the report's samples
	 * (NULL: none): its options and labels (pms_render_session_pprof). */
	struct pms_session *ses;
	const struct pms_alloc_report *ar;
	const struct pms_topo *topo;     /* node distances for the HTML page */
	/* Call paths of the report's samples (-g, --call-graph, or a file
	 * recorded so; kept-samples mode): the one set of stacks of all three
	 * exports (pms_export_stacks_new).  NULL: one frame per sample. */
	const struct pms_pathreport *paths;
	/* --folded=alloc: the allocation paths' stacks written instead
	 * (alloc_export_prepare) */
	bool folded_alloc;
	const char *alloc_folded;
	size_t alloc_folded_len;
	/* The files, opened by mem_export_open before the measurement. */
	struct cli_out html_out, pprof_out, folded_out;
};

/* The export options, for a command's option table (tools/cli_opt.h): the
 * help text comes from these entries.  Their ids are above every command's
 * own (which start at 256). */
enum { MEM_EXPORT_O_HTML = 0x1000, MEM_EXPORT_O_PPROF, MEM_EXPORT_O_FOLDED, MEM_EXPORT_O_FOLDED_TO };
#define MEM_EXPORT_CLI_OPTS                                                                     \
	{ "html", 0, CLI_ARG, "FILE", MEM_EXPORT_O_HTML,                                         \
	  "also write a self-contained HTML report (docs/export.md)" },                          \
	{ "pprof", 0, CLI_ARG, "FILE", MEM_EXPORT_O_PPROF,                                       \
	  "also write a gzip-compressed pprof profile (go tool pprof,\nPyroscope)" },           \
	{ "folded", 0, CLI_OPTARG, "latency", MEM_EXPORT_O_FOLDED,                               \
	  "collapsed stacks (flamegraph.pl, speedscope) on stdout instead\n"                     \
	  "of the report, counted in samples (the default) or in latency\ncycles; "            \
	  "=alloc: the allocation paths, by samples" }, \
	{ "folded-to", 0, CLI_ARG, "FILE", MEM_EXPORT_O_FOLDED_TO,                               \
	  "--folded's stacks to FILE ('-': stdout); needed with\n"                            \
	  "-- COMMAND, whose own output would share stdout" }

/* Take an option cli_next returned: 1 when id is an export option and its
 * argument is good, 0 when id is not an export option, CLI_EXIT_USAGE after
 * printing the usage error. */
int mem_export_cli(struct mem_export *x, const struct cli_parser *p, int id);
/* Whether the report must keep its samples (every export needs them). */
bool mem_export_wanted(const struct mem_export *x);
/* Open the --html and --pprof files (new, 0600; tools/cli_out.h) before
 * anything runs: a bad path costs no measurement.  0, or 1 after saying
 * why (nothing is left open). */
int mem_export_open(struct mem_export *x, const char *cmd);
/* Remove what mem_export_open made and mem_export_write did not finish. */
void mem_export_abandon(struct mem_export *x);
/* Write what was asked (into the files mem_export_open opened).  m is how the command renders the report (the HTML
 * page embeds its JSON and its text).  Returns 0, or 1 (CLI_EXIT_IO when a
 * file could not be written) after printing why. */
int mem_export_write(struct mem_export *x, const struct pms_render_mem_opts *m,
		     const struct pms_memreport *r);
#endif
