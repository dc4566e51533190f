/* The kept symbolizer of a live session's intervals (symkeep.h). */
#include "session/symkeep.h"
#include "util/error.h"

static int maps_copy(const struct pms_maps *from, struct pms_maps **out)
{
	struct pms_maps *m = NULL;
	int rc = pms_maps_new(&m);
	for (size_t i = 0; rc >= 0 && i < from->n; i++) {
		const struct pms_map *x = &from->v[i];
		rc = pms_maps_add(m, x->start, x->end - x->start, x->pgoff, x->ino, x->exec,
				  x->path ? x->path : "");
	}
	if (rc < 0) {
		pms_maps_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

int pms_symkeep_refresh(struct pms_symbolizer **sym, struct pms_maps **made_from,
			struct pms_sys *sys, const struct pms_maps *maps, bool demangle)
{
	if (*sym && pms_maps_equal(*made_from, maps))
		return 0;
	pms_symbolizer_free(*sym);
	pms_maps_free(*made_from);
	*sym = NULL;
	*made_from = NULL;
	if (!sys || !maps)
		return 0;
	int rc = maps_copy(maps, made_from);
	if (rc < 0)
		return rc;
	if (pms_symbolizer_new(sys, maps, sym) < 0) {
		*sym = NULL; /* the numbers stand without names */
		return 0;
	}
	if (!demangle)
		pms_symbolizer_set_demangle(*sym, false);
	/* the live run's processes map the running kernel's vDSO */
	if (pms_symbolizer_use_running_vdso(*sym, sys) < 0)
		pms_error_clear();
	return 1;
}
