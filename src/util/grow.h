/* Internal: growing arrays, one helper for every "double when full" site. */
#ifndef PMS_UTIL_GROW_H
#define PMS_UTIL_GROW_H

#include <stddef.h>

/* Make room for `need` elements of `elem` bytes in the array whose pointer
 * variable is at `vecp` (e.g. &v->items) and whose capacity is *cap:
 * capacity doubles from `first` until it holds `need`.  On failure the array
 * and *cap are unchanged and PMS_ENOMEM is returned with a message naming
 * `what`; on success 0. */
int pms_grow(void *vecp, size_t *cap, size_t need, size_t elem, size_t first,
	     const char *what);

#endif
