/* The last sorted entry at or below a value (util/lastle.h). */
#include <string.h>

#include "util/lastle.h"

static uint64_t key_at(const unsigned char *base, size_t i, size_t size, size_t key_off)
{
	uint64_t k;
	memcpy(&k, base + i * size + key_off, sizeof(k));
	return k;
}

size_t pms_last_le(const void *base, size_t n, size_t size, size_t key_off, uint64_t x)
{
	const unsigned char *b = base;
	if (!n || key_at(b, 0, size, key_off) > x)
		return SIZE_MAX;
	/* invariant: entry lo's start <= x, entry hi's (hi < n) above it */
	size_t lo = 0, hi = n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (key_at(b, mid, size, key_off) <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}
