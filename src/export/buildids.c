/* The build ids of a profile's modules (pms_export_build_ids): from the
 * recorded perf.data headers, or read from the report's module files. */
#include <stdlib.h>
#include <string.h>

#include "pmuscope/export.h"
#include "pmuscope/perfdata.h"
#include "util/error.h"

static int from_headers(const struct pms_perfdata_info *const *infos, size_t ninfos,
			struct pms_export_build_id **out, size_t *n)
{
	size_t nb = 0, k = 0;
	struct pms_export_build_id *b;
	for (size_t i = 0; i < ninfos; i++)
		nb += infos[i]->nbuild_ids;
	b = calloc(nb + 1, sizeof(*b));
	if (!b)
		return pms_err(PMS_ENOMEM, "out of memory for %zu build ids", nb);
	for (size_t i = 0; i < ninfos; i++) {
		for (size_t j = 0; j < infos[i]->nbuild_ids; j++) {
			const struct pms_perfdata_build_id *p = &infos[i]->build_ids[j];
			bool kernel = p->filename && !strcmp(p->filename, "[kernel.kallsyms]");
			b[k++] = (struct pms_export_build_id){ kernel ? "[kernel]" : p->filename, p->id,
								p->size };
		}
	}
	*out = b;
	*n = k;
	return 0;
}

/* Each module path of the report's sites that is a file with a build-id
 * note, once; the ids are kept behind the array in the same allocation. */
static int from_files(const struct pms_memreport *r, struct pms_export_build_id **out, size_t *n)
{
	size_t nsites = r ? r->nsites : 0, k = 0;
	struct pms_export_build_id *b = calloc(nsites + 1, sizeof(*b) + 20);
	uint8_t *ids;
	if (!b)
		return pms_err(PMS_ENOMEM, "out of memory for %zu build ids", nsites);
	ids = (uint8_t *)(b + nsites + 1);
	for (size_t i = 0; i < nsites; i++) {
		const char *mod = r->sites[i].module;
		bool seen = false;
		size_t len = 0;
		if (!mod || mod[0] != '/')
			continue;
		for (size_t j = 0; j < k && !seen; j++)
			seen = !strcmp(b[j].path, mod);
		if (seen)
			continue;
		if (pms_elf_build_id(mod, ids + 20 * k, &len) < 0 || !len)
			continue;
		b[k] = (struct pms_export_build_id){ mod, ids + 20 * k, len };
		k++;
	}
	pms_error_clear(); /* a module without a note is left out, not an error */
	*out = b;
	*n = k;
	return 0;
}

int pms_export_build_ids(const struct pms_memreport *r,
			 const struct pms_perfdata_info *const *infos, size_t ninfos,
			 struct pms_export_build_id **out, size_t *n)
{
	if (!out || !n || (ninfos && !infos))
		return pms_err(PMS_EINVAL, "pms_export_build_ids: out and n (and infos with "
					   "ninfos) are required");
	if (ninfos)
		return from_headers(infos, ninfos, out, n);
	return from_files(r, out, n);
}
