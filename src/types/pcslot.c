/* The open-addressing tables keyed by a uint64_t (an IP, a DIE offset)
 * that typeres.c and scopes.c keep per binary. */
#include <stdlib.h>
#include <string.h>

#include "types/typeres_int.h"

/* The slot of pc in an open-addressing table of elements of size sz whose
 * first member is a uint64_t pc (~0 empty), growing it (doubling from
 * first) at half full; NULL without memory.  typeres.c's per-IP cache,
 * scan memo, walks and members, and scopes.c's indexes are such tables. */
void *ty_pc_slot(void **tab, size_t *n, size_t *cap, size_t sz, size_t first, uint64_t pc)
{
	return ty_pc_slot_full(tab, n, cap, sz, first, pc, 2);
}

/* ty_pc_slot growing at (den - 1) / den full instead (den 2: half, 4:
 * three quarters): a smaller table for one probed by every sample. */
void *ty_pc_slot_full(void **tab, size_t *n, size_t *cap, size_t sz, size_t first, uint64_t pc,
		      unsigned den)
{
#define PC_AT(t, i) ((uint64_t *)(void *)((char *)(t) + (i) * sz))
	if (*n * den >= *cap * (den - 1)) {
		size_t nc = *cap ? *cap * 2 : first;
		char *nv = malloc(nc * sz);
		if (!nv)
			return NULL;
		for (size_t i = 0; i < nc; i++)
			*PC_AT(nv, i) = ~0ull;
		for (size_t i = 0; i < *cap; i++) {
			uint64_t k = *PC_AT(*tab, i);
			if (k == ~0ull)
				continue;
			size_t j = ty_pc_hash(k) & (nc - 1);
			while (*PC_AT(nv, j) != ~0ull)
				j = (j + 1) & (nc - 1);
			memcpy(nv + j * sz, (char *)*tab + i * sz, sz);
		}
		free(*tab);
		*tab = nv;
		*cap = nc;
	}
	size_t j = ty_pc_hash(pc) & (*cap - 1);
	while (*PC_AT(*tab, j) != ~0ull && *PC_AT(*tab, j) != pc)
		j = (j + 1) & (*cap - 1);
	return (char *)*tab + j * sz;
#undef PC_AT
}
