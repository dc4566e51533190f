/* The memory report's CSV with the allocation site's columns when
 * allocations were tracked (pmuscope/render.h; the rows are mem.c's). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pmuscope/render.h"
#include "render_int.h"

static const struct pms_alloc_site *sample_site(const struct pms_alloc_report *r, size_t i)
{
	long k = r && i < r->nsample_site ? r->sample_site[i] : -1;
	return k >= 0 && (size_t)k < r->nsites ? &r->sites[k] : NULL;
}

void pms_render_alloc_csv(FILE *out, const struct pms_render_alloc *a,
			  const struct pms_memreport *r)
{
	const struct pms_alloc_report *ar = a->ar;
	if (!ar || ar->nsample_site != r->nall) {
		pms_render_mem_csv(out, r);
		return;
	}
	fprintf(out, "%s,alloc_site,alloc_where\n", PMS_RENDER_MEM_CSV_COLUMNS);
	char where[600];
	for (size_t i = 0; i < r->nall; i++) {
		long o = r->all[i].object;
		pms_render_mem_csv_fields(out, &r->all[i], o >= 0 && (size_t)o < r->nobjects ? &r->objects[o]
										: NULL);
		const struct pms_alloc_site *s = sample_site(ar, i);
		if (!s) {
			fprintf(out, ",,\n");
			continue;
		}
		pms_render_alloc_where(s, where, sizeof(where));
		fprintf(out, ",%ld,\"", ar->sample_site[i]);
		for (const char *c = where; *c; c++)
			fprintf(out, *c == '"' ? "\"\"" : "%c", *c);
		fprintf(out, "\"\n");
	}
}
