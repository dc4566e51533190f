#include "util/grow.h"
#include "util/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int pms_grow(void *vecp, size_t *cap, size_t need, size_t elem, size_t first,
	     const char *what)
{
	void *vec, *nv;
	size_t ncap;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : (first ? first : 1);
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			goto nomem;
		ncap *= 2;
	}
	if (elem && ncap > SIZE_MAX / elem)
		goto nomem;
	memcpy(&vec, vecp, sizeof(vec));
	nv = realloc(vec, ncap * elem);
	if (!nv)
		goto nomem;
	memcpy(vecp, &nv, sizeof(nv));
	*cap = ncap;
	return 0;
nomem:
	return pms_err(PMS_ENOMEM, "out of memory growing %s to %zu entries", what, need);
}
