/* `--advise` / `--apply` of pmuscope mem and report (docs/advise.md): the
 * plan, the sites' plan and --apply's migration; the documents are the
 * library's (pms_render_advice_*). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc_render.h"
#include "mem_advise.h"
#include "pmuscope/error.h"
#include "pmuscope/render_cmd.h"

static size_t page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	return ps > 0 ? (size_t)ps : 4096;
}

static int new_advisor(const struct pms_topo *topo, const struct pms_memreport *rep,
		       struct pms_advisor **out)
{
	struct pms_advise_opts ao = PMS_ADVISE_OPTS_INIT;
	ao.page_size = page_size();
	ao.stores_unknown = !rep->data_src_available;
	if (pms_advisor_new(topo, &ao, out) < 0) {
		fprintf(stderr, "pmuscope: advise: %s\n", pms_error_last());
		return -1;
	}
	return 0;
}

static int plan_from(struct mem_advise *ma, const struct pms_topo *topo,
		     const struct pms_memreport *rep, struct pms_advisor **adv)
{
	if (!*adv) {
		if (new_advisor(topo, rep, adv) < 0)
			return -1;
		if (pms_advisor_add_report(*adv, rep) < 0) {
			fprintf(stderr, "pmuscope: advise: %s\n", pms_error_last());
			return -1;
		}
	}
	if (pms_advisor_plan(*adv, rep, &ma->plan) < 0) {
		fprintf(stderr, "pmuscope: advise: %s\n", pms_error_last());
		return -1;
	}
	return 0;
}

/* ---- allocation sites (issue 28) --------------------------------------- */

int mem_advise_sites(struct mem_advise *ma, struct pms_session *ses,
		     const struct pms_memreport *rep, const struct pms_alloc_report *ar)
{
	if (!ma->advise || !ar || ma->sites)
		return 0;
	struct pms_advise_opts ao = PMS_ADVISE_OPTS_INIT;
	ao.page_size = page_size();
	if (pms_session_site_plan(ses, rep, ar, &ao, &ma->sites) < 0) {
		fprintf(stderr, "pmuscope: advise: allocation sites: %s\n", pms_error_last());
		return -1;
	}
	ma->sites_ar = ar;
	return 0;
}

/* --apply of the sites advised to move or interleave: true when one was */
static bool sites_apply(struct mem_advise *ma, struct pms_sys *sys,
			const struct pms_migrate_opts *mo)
{
	const struct pms_site_plan *p = ma->sites;
	size_t n = 0;
	for (size_t i = 0; i < p->nitems; i++)
		n += p->items[i].action != PMS_ADVICE_LEAVE && p->items[i].nblocks;
	if (!n)
		return false;
	ma->site_res = calloc(p->nitems, sizeof(*ma->site_res));
	ma->site_rc = calloc(p->nitems, sizeof(*ma->site_rc));
	if (!ma->site_res || !ma->site_rc)
		return false;
	for (size_t i = 0; i < p->nitems; i++)
		ma->site_rc[i] = pms_site_apply(sys, &p->items[i], mo, &ma->site_res[i]);
	ma->sites_applied = true;
	return true;
}

int mem_advise_switch(struct mem_advise *ma, struct pms_sys *sys, const struct pms_topo *topo,
		      pid_t pid, struct pms_session *ses, double seconds)
{
	/* the first measurement's report; the session starts the second */
	if (pms_session_remeasure(ses, seconds, &ma->before) < 0) {
		fprintf(stderr, "pmuscope: mem: the first measurement's report: %s\n",
			pms_error_last());
		return -1;
	}
	ma->before_s = seconds;
	if (plan_from(ma, topo, ma->before, &ma->adv_before) < 0)
		return -1;
	/* apply: the items to move or interleave, one migration each */
	struct pms_migrate_opts mo = PMS_MIGRATE_OPTS_INIT;
	mo.topo = topo;
	mo.page_size = page_size();
	/* tracked allocations: only the advised sites' blocks move */
	if (ma->track_sites && pms_session_alloc_report(ses, ma->before, &ma->own_ar) == 0 &&
	    mem_advise_sites(ma, ses, ma->before, ma->own_ar) == 0 && sites_apply(ma, sys, &mo)) {
		ma->phase = 1;
		return 0;
	}
	if (pms_advice_apply(sys, pid, ma->plan, &mo, &ma->rows, &ma->nrows) < 0) {
		fprintf(stderr, "pmuscope: mem: %s\n", pms_error_last());
		return -1;
	}
	ma->phase = 1;
	return 0;
}

int mem_advise_finish(struct mem_advise *ma, const struct pms_topo *topo,
		      const struct pms_memreport *rep)
{
	if (!ma->advise)
		return 0;
	if (ma->apply && ma->phase == 0) {
		snprintf(ma->err, sizeof(ma->err),
			 "nothing applied: the target ended before --duration ran out");
	}
	if (ma->phase == 1) {
		if (new_advisor(topo, rep, &ma->adv_after) < 0 ||
		    pms_advisor_add_report(ma->adv_after, rep) < 0)
			return -1;
		return 0;
	}
	return plan_from(ma, topo, rep, &ma->adv_before);
}

void mem_advise_release(struct mem_advise *ma)
{
	pms_memreport_free(ma->before);
	pms_advisor_free(ma->adv_before);
	pms_advisor_free(ma->adv_after);
	pms_advice_free(ma->plan);
	free(ma->rows);
	pms_site_plan_free(ma->sites);
	pms_alloc_report_free(ma->own_ar);
	free(ma->site_res);
	free(ma->site_rc);
	memset(ma, 0, sizeof(*ma));
}

void mem_advise_view(const struct mem_advise *ma, struct pms_render_advice *v)
{
	*v = (struct pms_render_advice){
		.advise = ma->advise, .apply = ma->apply, .before_s = ma->before_s,
		.before = ma->before, .adv_before = ma->adv_before, .adv_after = ma->adv_after,
		.plan = ma->plan, .rows = ma->rows, .nrows = ma->nrows, .err = ma->err,
		.sites = ma->sites, .sites_ar = ma->sites_ar, .site_res = ma->site_res,
		.sites_applied = ma->sites_applied,
	};
}

void mem_advise_text(const struct mem_advise *ma, const struct pms_memreport *after, pid_t pid,
		     char **cmd)
{
	struct pms_render_advice v;
	mem_advise_view(ma, &v);
	pms_render_advice_text(stdout, &v, after, pid, cmd);
}

void mem_advise_json(struct pms_json *j, const struct mem_advise *ma,
		     const struct pms_memreport *after, pid_t pid, char **cmd)
{
	struct pms_render_advice v;
	if (ma)
		mem_advise_view(ma, &v);
	pms_render_advice_json(j, ma ? &v : NULL, after, pid, cmd);
}
