/* `pmuscope mem --advise [--apply]` and `report --advise`: the plan from a
 * finished report, its text and JSON, the runnable commands (numactl for a
 * new run, pmuscope migrate for a live process), and with --apply the
 * migration of a live process and the before/after comparison (rendered by
 * the library: pms_render_advice_*).
 * Ownership: struct mem_advise owns what it gathers; mem_advise_release
 * frees it; everything else is borrowed for the call. */
#ifndef PMUSCOPE_TOOLS_MEM_ADVISE_H
#define PMUSCOPE_TOOLS_MEM_ADVISE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "cli.h"
#include "pmuscope/advise.h"
#include "pmuscope/advise_text.h"
#include "pmuscope/alloc.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/numa.h"
#include "pmuscope/session.h"
#include "pmuscope/render_cmd.h"
#include "pmuscope/report.h"

struct mem_advise {
	bool advise, apply;
	int phase;                     /* 0: measuring (before), 1: after applying */
	double before_s;               /* the first measurement's length */
	struct pms_memreport *before;  /* --apply: the first measurement's report */
	struct pms_advisor *adv_before, *adv_after;
	struct pms_advice *plan;
	struct pms_advice_applied *rows; /* pms_advice_apply */
	size_t nrows;
	char err[512];                 /* why no plan / nothing applied */
	/* allocation sites (issue 28): the plan per site, from the report
	 * of the allocation sites (sites_ar; owned with --apply, where it is
	 * the first measurement's) */
	bool track_sites;              /* the session tracks allocations */
	struct pms_site_plan *sites;
	const struct pms_alloc_report *sites_ar;
	struct pms_alloc_report *own_ar;
	struct pms_migrate_result *site_res; /* --apply: per site item */
	int *site_rc;
	bool sites_applied;            /* --apply moved sites, not objects */
};

/* --apply, the first measurement done: the session's report of it
 * (pms_session_remeasure: the oracle's cached nodes dropped, a fresh
 * profile for the second measurement), its plan, and the migration of the
 * plan's move/interleave items of pid.  Returns 0, or -1 (message printed)
 * when pmuscope itself failed. */
int mem_advise_switch(struct mem_advise *ma, struct pms_sys *sys, const struct pms_topo *topo,
		      pid_t pid, struct pms_session *ses, double seconds);

/* At the end: the plan of the final report (no --apply), or the after
 * advisor (--apply).  0 or -1 (printed). */
int mem_advise_finish(struct mem_advise *ma, const struct pms_topo *topo,
		      const struct pms_memreport *rep);

/* The plan per allocation site of rep from its sites report ar (borrowed:
 * it must live until the render); 0 or -1 (printed). */
int mem_advise_sites(struct mem_advise *ma, struct pms_session *ses,
		     const struct pms_memreport *rep, const struct pms_alloc_report *ar);

void mem_advise_text(const struct mem_advise *ma, const struct pms_memreport *after, pid_t pid,
		     char **cmd);
/* The "advice" member (and "apply" with --apply) of the mem/report JSON. */
void mem_advise_json(struct pms_json *j, const struct mem_advise *ma,
		     const struct pms_memreport *after, pid_t pid, char **cmd);
void mem_advise_release(struct mem_advise *ma);
/* What the library's renderers read of ma (borrowed from it). */
void mem_advise_view(const struct mem_advise *ma, struct pms_render_advice *v);

#endif
