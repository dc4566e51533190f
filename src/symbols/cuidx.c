/* The units of a DWARF file by address (cuidx.h). */
#include <stdlib.h>

#include "symbols/cuidx.h"

static int curng_cmp(const void *a, const void *b)
{
	const struct pms_curng *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Every unit's ranges, sorted by start, each with the largest end so far. */
static int build(struct pms_cuidx *x, Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	uint32_t order = 0;
	x->built = true;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t it = 0;
		if (dwarf_offdie(dw, off + hsize, &cu)) {
			while ((it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0) {
				if (x->n == cap) {
					size_t nc = cap ? 2 * cap : 64;
					struct pms_curng *v = realloc(x->v, nc * sizeof(*v));
					if (!v) {
						x->failed = true;
						return -1;
					}
					x->v = v;
					cap = nc;
				}
				x->v[x->n++] = (struct pms_curng){ lo, hi, 0, order, off + hsize };
			}
			order++;
		}
		off = next;
	}
	qsort(x->v, x->n, sizeof(*x->v), curng_cmp);
	uint64_t m = 0;
	for (size_t i = 0; i < x->n; i++) {
		m = x->v[i].hi > m ? x->v[i].hi : m;
		x->v[i].maxhi = m;
	}
	return 0;
}

int pms_cuidx_find(struct pms_cuidx *x, Dwarf *dw, Dwarf_Addr a, Dwarf_Die *cu)
{
	if (!x->built && build(x, dw) < 0)
		return -1;
	if (x->failed)
		return -1;
	size_t lo = 0, hi = x->n;
	while (lo < hi) { /* the first entry starting above a */
		size_t mid = lo + (hi - lo) / 2;
		if (x->v[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* back while an entry at or below may still reach a: the lowest
	 * order holding it */
	const struct pms_curng *best = NULL;
	for (size_t j = lo; j-- > 0 && x->v[j].maxhi > a;)
		if (a < x->v[j].hi && (!best || x->v[j].order < best->order))
			best = &x->v[j];
	return best && dwarf_offdie(dw, best->die, cu) ? 1 : 0;
}

void pms_cuidx_free(struct pms_cuidx *x)
{
	free(x->v);
	*x = (struct pms_cuidx){ 0 };
}
