/* The data type of each allocation site (issue 29): the samples placed in a
 * site's blocks (pms_alloc_report.sample_site) resolved by the session's
 * types sink, and the type most of them touched named on the site.
 *
 * Dominance: among the site's samples that resolved to a type ("typed"),
 * the type with the most samples is the site's when it has more than half
 * of them (so a block used as two types half and half has none); its
 * member of most samples (the member path report --types rows use, ties:
 * the lower offset, then the name) is the hot member.  Types are compared
 * by name (one type's name from two binaries is one type). */
#include <stdlib.h>
#include <string.h>

#include "session/types_sink.h"
#include "util/error.h"

struct styped {
	long site;
	const char *type, *member;
	uint64_t member_offset;
};

static int str_cmp(const char *a, const char *b)
{
	return a == b ? 0 : strcmp(a ? a : "", b ? b : "");
}

static int styped_cmp(const void *a, const void *b)
{
	const struct styped *x = a, *y = b;
	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	int c = str_cmp(x->type, y->type);
	if (c)
		return c;
	if (x->member_offset != y->member_offset)
		return x->member_offset < y->member_offset ? -1 : 1;
	return str_cmp(x->member, y->member);
}

/* One site's typed samples v[0..n) (sorted): its type and hot member. */
static int site_type(struct pms_alloc_site *s, const struct styped *v, size_t n)
{
	size_t best = 0, bestn = 0;
	s->typed = n;
	for (size_t a = 0; a < n;) {
		size_t b = a;
		while (b < n && !str_cmp(v[b].type, v[a].type))
			b++;
		if (b - a > bestn) {
			best = a;
			bestn = b - a;
		}
		a = b;
	}
	if (!n || 2 * bestn <= n)
		return 0;
	size_t hot = best, hotn = 0;
	for (size_t a = best; a < best + bestn;) {
		size_t b = a;
		while (b < best + bestn && !styped_cmp(&v[b], &v[a]))
			b++;
		if (b - a > hotn) {
			hot = a;
			hotn = b - a;
		}
		a = b;
	}
	s->type_samples = bestn;
	s->member_samples = hotn;
	s->type = strdup(v[best].type);
	s->member = strdup(v[hot].member ? v[hot].member : "");
	if (!s->type || !s->member)
		return pms_err(PMS_ENOMEM, "allocation sites: types: no memory");
	return 0;
}

int types_sink_alloc_sites(struct types_sink *t, const struct pms_memreport *rep,
			   struct pms_alloc_report *r)
{
	size_t n = rep->nall < r->nsample_site ? rep->nall : r->nsample_site, k = 0;
	struct styped *v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return pms_err(PMS_ENOMEM, "allocation sites: types: no memory");
	int rc = 0;
	for (size_t i = 0; i < n && rc >= 0; i++) {
		long site = r->sample_site[i];
		if (site < 0 || (size_t)site >= r->nsites)
			continue;
		struct pms_type_hit h;
		rc = types_sink_hit(t, &rep->all[i].s, &h);
		if (rc >= 0 && h.status == PMS_TYPE_OK && h.type)
			v[k++] = (struct styped){ site, h.type, h.member, h.member_offset };
	}
	if (rc >= 0) {
		qsort(v, k, sizeof(*v), styped_cmp);
		for (size_t a = 0; a < k && rc >= 0;) {
			size_t b = a;
			while (b < k && v[b].site == v[a].site)
				b++;
			rc = site_type(&r->sites[v[a].site], &v[a], b - a);
			a = b;
		}
	}
	free(v);
	r->types = true;
	return rc;
}
