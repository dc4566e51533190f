/* The allocation site of each contended cache line (c2c_sites.h). */
#include <stdlib.h>
#include <string.h>

#include "session/c2c_sites.h"
#include "util/error.h"

struct tally {
	long site;
	uint64_t n;
};

/* The line's samples by table site: the one with most (first on a tie),
 * its count in *best_n and the samples placed at all in *placed. */
static long line_site(struct pms_alloc_sites *st, const struct pms_c2c_touch *tv, size_t n,
		      uint64_t *best_n, uint64_t *placed, int *rc)
{
	struct tally small[8], *v = small;
	size_t nv = 0, cap = 8;
	long best = -1;
	*best_n = *placed = 0;
	for (size_t i = 0; i < n; i++) {
		struct pms_alloc_sample x = { tv[i].pid, tv[i].addr, tv[i].time, 0, -1, -1, 0 };
		long s = pms_alloc_sites_add(st, &x);
		if (s < -1) {
			*rc = (int)s;
			break;
		}
		if (s < 0)
			continue;
		(*placed)++;
		size_t k = 0;
		while (k < nv && v[k].site != s)
			k++;
		if (k == nv) {
			if (nv == cap) {
				struct tally *w = malloc(cap * 2 * sizeof(*w));
				if (!w) {
					*rc = pms_err(PMS_ENOMEM, "c2c sites: out of memory");
					break;
				}
				memcpy(w, v, nv * sizeof(*w));
				if (v != small)
					free(v);
				v = w;
				cap *= 2;
			}
			v[nv++] = (struct tally){ s, 0 };
		}
		if (++v[k].n > *best_n) {
			*best_n = v[k].n;
			best = s;
		}
	}
	if (v != small)
		free(v);
	return best;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int line_fill(struct pms_c2c_line *l, const struct pms_alloc_site *as, long rank)
{
	size_t f = 0;
	while (f < as->nframes && !as->frames[f].file)
		f++;
	if (f == as->nframes)
		f = 0;
	l->alloc_site = rank;
	l->alloc_kind = as->kind;
	l->alloc_kind_name = pms_alloc_kind_name(as->kind);
	if (!as->nframes)
		return 0;
	l->alloc_func = dup_or_null(as->frames[f].func);
	l->alloc_file = dup_or_null(as->frames[f].file);
	l->alloc_line = as->frames[f].line;
	l->alloc_caller = f + 1 < as->nframes ? dup_or_null(as->frames[f + 1].func) : NULL;
	if ((as->frames[f].func && !l->alloc_func) || (as->frames[f].file && !l->alloc_file))
		return pms_err(PMS_ENOMEM, "c2c sites: out of memory");
	return 0;
}

int pms_c2c_sites_name(struct pms_alloc_table *t, const struct pms_c2c *c,
		       struct pms_c2c_report *rep, pms_alloc_namer name, void *ud)
{
	struct pms_alloc_sites *st = NULL;
	struct pms_alloc_report *ar = NULL;
	int rc = pms_alloc_sites_new(t, &st);
	if (rc < 0)
		return rc;
	long *best = calloc(rep->nlines ? rep->nlines : 1, sizeof(*best));
	if (!best) {
		pms_alloc_sites_free(st);
		return pms_err(PMS_ENOMEM, "c2c sites: out of memory");
	}
	for (size_t i = 0; rc >= 0 && i < rep->nlines; i++) {
		struct pms_c2c_line *l = &rep->lines[i];
		size_t n = 0;
		const struct pms_c2c_touch *tv = pms_c2c_line_touches(c, l, &n);
		best[i] = line_site(st, tv, n, &l->alloc_samples, &l->alloc_placed, &rc);
	}
	if (rc >= 0)
		rc = pms_alloc_sites_report(st, 0, name, ud, &ar);
	for (size_t i = 0; rc >= 0 && i < rep->nlines; i++) {
		long rank = best[i] >= 0 && (size_t)best[i] < ar->nsite_rank ? ar->site_rank[best[i]]
									    : -1;
		if (rank >= 0)
			rc = line_fill(&rep->lines[i], &ar->sites[rank], rank);
	}
	pms_alloc_report_free(ar);
	pms_alloc_sites_free(st);
	free(best);
	return rc;
}
