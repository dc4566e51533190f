/* Allocation tracking in the CLI (`mem -- CMD`): the preload's environment
 * for a started command, and the "allocation sites" section of the report
 * (pms_render_alloc_*: text and JSON after the call-path section).
 * Ownership: alloc_cli_prepare's strings are the struct's (alloc_cli_done);
 * the reports are borrowed for the render. */
#ifndef PMUSCOPE_TOOLS_ALLOC_RENDER_H
#define PMUSCOPE_TOOLS_ALLOC_RENDER_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "mem_export.h"
#include "pmuscope/alloc.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/pathprof.h"
#include "pmuscope/report.h"

#define ALLOC_CLI_RATE 32768      /* --alloc-rate default, bytes */
#define ALLOC_CLI_THRESHOLD 65536 /* --alloc-threshold default, bytes */

struct alloc_cli {
	bool want;                 /* tracking asked (a started command, no --no-alloc) */
	uint64_t rate, threshold;
	int fd;                    /* the channel, -1 none (handed to the session) */
	char why[512];             /* why allocations are not tracked ("" tracked) */
	char *saved_preload;       /* the caller's LD_PRELOAD, put back after the start */
	bool had_preload;
	char *saved_asan;          /* the caller's ASAN_OPTIONS, the same way */
	bool had_asan, set_asan;
	/* for the render */
	const struct pms_pathreport *paths;
	const struct pms_alloc_report *ar;
	const struct pms_memreport *rep;
	bool samples;              /* --samples: the per-sample site list in JSON */
	size_t top;
	/* alloc_export_prepare's: the allocation paths' collapsed stacks
	 * (--folded=alloc) */
	char *folded;
	size_t folded_len;
};

/* A started command: find the preload (beside this binary in the build tree,
 * else the installed path), check that argv[0] is dynamically linked, open
 * the channel and put LD_PRELOAD and PMUSCOPE_ALLOC in this process's
 * environment (the command inherits them at its fork).  Not tracked: why
 * says it.  0, or -1 when the channel could not be opened (said). */
int alloc_cli_prepare(struct alloc_cli *a, char *const *argv);
/* After the command was forked: this process's environment as it was. */
void alloc_cli_restore(struct alloc_cli *a);
void alloc_cli_done(struct alloc_cli *a);

/* The library's view of a (pms_render_mem_opts.alloc, pms_render_alloc_*). */
void alloc_cli_view(const struct alloc_cli *a, struct pms_render_alloc *v);
/* The exports' view of the sites (a->ar placing a->rep's samples): x->ar
 * for the pprof's labels and x->alloc_folded for --folded=alloc.  0, or
 * -1 out of memory (said). */
int alloc_export_prepare(struct alloc_cli *a, struct mem_export *x);

#endif
