/* Internal: the last entry of a sorted array whose start is at or below a
 * value, one binary search for every "which range holds x" table. */
#ifndef PMS_UTIL_LASTLE_H
#define PMS_UTIL_LASTLE_H

#include <stddef.h>
#include <stdint.h>

/* In the n entries of size bytes at base, each holding a uint64_t start at
 * byte key_off (offsetof) and sorted by it, the index of the last entry
 * whose start is <= x; SIZE_MAX when none is (n 0, or x below the first).
 * Of equal starts the last one is given. */
size_t pms_last_le(const void *base, size_t n, size_t size, size_t key_off, uint64_t x);

#endif
