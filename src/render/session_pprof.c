/* The pprof profile of a session's report (pmuscope/render.h,
 * pms_render_session_pprof): the options pms_export_pprof takes, filled
 * from what the session knows, the same for `mem` (live) and `report`
 * (its -o file): mapping ranges, build ids, host, and the per-sample
 * labels alloc_site, alloc_type, type and member. */
#include <stdlib.h>

#include "pmuscope/error.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/render.h"
#include "pmuscope/session.h"
#include "render_int.h"
#include "util/error.h"

/* What the options point to, freed after the encoding. */
struct held {
	struct pms_export_build_id *ids;
	const struct pms_perfdata_info **infos;
	char **sites;
	size_t nsites;
	const char **site_types;
	struct pms_type_hit *hits;
	const char **types;
};

static void held_free(struct held *h)
{
	free(h->ids);
	free(h->infos);
	for (size_t i = 0; i < h->nsites; i++)
		free(h->sites[i]);
	free(h->sites);
	free(h->site_types);
	free(h->hits);
	free(h->types);
}

/* The modules' build ids: a files session's from its headers (perf names
 * the kernel [kernel.kallsyms], the profile [kernel]); a live one's from
 * the report's module files.  None when they cannot be listed. */
static void build_ids(struct pms_session *s, const struct pms_memreport *r, struct held *h,
		      struct pms_export_pprof_opts *po)
{
	size_t nin = pms_session_nfiles(s), n = 0;
	if (nin) {
		if (!(h->infos = calloc(nin, sizeof(*h->infos))))
			return;
		for (size_t i = 0; i < nin; i++) {
			const struct pms_perfdata_reader *rd = pms_session_reader(s, i);
			if (!rd) /* a file not opened (the session did not run) */
				return;
			h->infos[i] = pms_perfdata_reader_info(rd);
		}
	}
	if (pms_export_build_ids(nin ? NULL : r, h->infos, nin, &h->ids, &n) < 0) {
		h->ids = NULL;
		return;
	}
	po->build_ids = h->ids;
	po->nbuild_ids = n;
}

/* The labels of r's samples: their allocation sites (ar placed r's
 * samples) and the sites' types, and with the types sink each sample's
 * type and member.  0, or the failed step's PMS_E*. */
static int labels(struct pms_session *s, const struct pms_memreport *r,
		  const struct pms_alloc_report *ar, struct held *h, struct pms_export_pprof_opts *po)
{
	if (ar && ar->nsample_site == r->nall) {
		struct pms_render_alloc v = { .want = true, .ar = ar, .rep = r };
		size_t n = 0;
		if (pms_render_alloc_labels(&v, &h->sites, &h->nsites) < 0 ||
		    pms_render_alloc_type_labels(&v, &h->site_types, &n) < 0)
			return PMS_ENOMEM; /* said */
		po->extra_key = "alloc_site";
		po->extra_values = (const char *const *)h->sites;
		po->nextra_values = h->nsites;
		po->alloc_type_values = h->site_types;
		po->nalloc_type_values = n;
	}
	if (pms_session_typeprof(s)) {
		int rc = pms_session_type_hits(s, r, &h->hits);
		if (rc < 0 || (rc = pms_render_types_labels(h->hits, r->nall, &h->types)) < 0)
			return rc;
		po->type_values = h->types;
		po->member_values = h->types + r->nall;
		po->ntype_values = r->nall;
	}
	return 0;
}

int pms_render_session_pprof(struct pms_session *s, const struct pms_memreport *r,
			     const struct pms_alloc_report *ar, const struct pms_export_stacks *st,
			     const char *comment, void **out, size_t *len)
{
	struct pms_export_pprof_opts po = PMS_EXPORT_PPROF_OPTS_INIT;
	struct held h = { 0 };
	int rc;
	if (!s || !r || !st || !out || !len)
		return pms_err(PMS_EINVAL, "pms_render_session_pprof: NULL argument");
	*out = NULL;
	*len = 0;
	po.comment = comment;
	po.maps = pms_memprof_maps(pms_session_profile(s));
	if (pms_session_nfiles(s) == 1 && pms_session_reader(s, 0)) /* merged: each sample's file */
		po.host = pms_perfdata_reader_info(pms_session_reader(s, 0))->hostname;
	build_ids(s, r, &h, &po);
	rc = labels(s, r, ar, &h, &po); /* its error said by the step that failed */
	if (rc == 0)
		rc = pms_export_pprof(st, &po, out, len);
	held_free(&h);
	return rc;
}
