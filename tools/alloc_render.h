/* Allocation tracking in the CLI (`mem -- CMD`): the preload's environment
 * for a started command, and the "allocation sites" section of the report
 * (text and JSON), chained after the call-path section.
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
	/* alloc_export_prepare's: per sample of rep->all its site's label
	 * (pprof), the allocation paths' collapsed stacks (--folded=alloc) */
	char **labels;
	size_t nlabels;
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

/* mem_render's json_extra / text_extra with extra_ud = a struct alloc_cli
 * (call paths first, then the allocation sites). */
void alloc_json_extra(struct json *j, const void *ud);
void alloc_text_extra(const void *ud);

/* A site by its source: "FILE:LINE (fn <- caller)" of the first frame with a
 * source file (frame 0 may be a wrapper such as operator new), else its
 * address. */
void alloc_site_where(const struct pms_alloc_site *s, char *buf, size_t len);
/* mem --csv with the sample's allocation site (alloc_site, alloc_where;
 * empty when none) after mem_render_csv's columns when allocations are
 * tracked, else mem_render_csv. */
void alloc_render_csv(const struct alloc_cli *a, const struct pms_memreport *r);
/* The exports' view of the sites (a->ar, a->rep): x->site_labels for the
 * pprof "alloc_site" label and x->alloc_folded for --folded=alloc (paths
 * root first, the allocating call's kind as the leaf, weighted by
 * samples).  0, or -1 out of memory (said). */
int alloc_export_prepare(struct alloc_cli *a, struct mem_export *x);

#endif
