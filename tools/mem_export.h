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
#include "pmuscope/render.h"
#include "pmuscope/export.h"
#include "pmuscope/pathprof.h"
#include "pmuscope/topo.h"

struct mem_export {
	const char *html;   /* --html FILE */
	const char *pprof;  /* --pprof FILE */
	bool folded;        /* --folded: the collapsed stacks on stdout instead of the report */
	enum pms_export_weight folded_weight;
	/* --folded-to FILE: the stacks there ('-': stdout); NULL: stdout.  A
	 * command's run needs it (mem -- CMD: the command's own output would
	 * share stdout; issue 30) */
	const char *folded_to;
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
	/* Call paths of the report's samples (-g, --call-graph, or a file
	 * recorded so; kept-samples mode): the one set of stacks of all three
	 * exports (pms_export_stacks_new).  NULL: one frame per sample. */
	const struct pms_pathreport *paths;
	/* Allocation sites (issue 28; pms_render_alloc_labels/_folded): each report
	 * sample's site (NULL: none) as the pprof label "alloc_site", and
	 * --folded=alloc: the allocation paths' stacks written instead. */
	const char *const *site_labels;
	size_t nsite_labels;
	/* --types: each report sample's site's type (NULL: none) as the pprof
	 * label "alloc_type" (pms_render_alloc_type_labels) */
	const char *const *site_type_labels;
	size_t nsite_type_labels;
	/* --types (issue 29): each report sample's type and member (NULL:
	 * none) as the pprof labels "type" and "member" */
	const char *const *type_labels, *const *member_labels;
	size_t ntype_labels;
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
/* --types with --pprof (mem and report): each sample of r's type and member
 * (pms_session_type_hits) as x->type_labels/member_labels; *hits and
 * *labels are the caller's to free() after mem_export_write.  Without
 * --pprof nothing.  A failure is said (the profile is then written without
 * the labels). */
struct pms_session;
struct pms_type_hit;
void mem_export_type_labels(struct mem_export *x, struct pms_session *ses,
			    const struct pms_memreport *r, const char *cmd,
			    struct pms_type_hit **hits, const char ***labels);

#endif
