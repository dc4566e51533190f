#include "check.h"
#include "util/lastle.h"

#include <stddef.h>
#include <stdint.h>

struct ent {
	char tag;
	uint64_t start;
	int v;
};

PMS_TEST(last_le_finds_the_last_start_at_or_below)
{
	/* 0x10, 0x20, 0x20, 0x40: equal starts give the last of them */
	struct ent e[] = { { 'a', 0x10, 0 }, { 'b', 0x20, 1 }, { 'c', 0x20, 2 }, { 'd', 0x40, 3 } };
	size_t n = sizeof(e) / sizeof(e[0]), sz = sizeof(e[0]), k = offsetof(struct ent, start);
	CHECK(pms_last_le(e, n, sz, k, 0x0f) == SIZE_MAX);
	CHECK_EQ_INT(pms_last_le(e, n, sz, k, 0x10), 0);
	CHECK_EQ_INT(pms_last_le(e, n, sz, k, 0x1f), 0);
	CHECK_EQ_INT(pms_last_le(e, n, sz, k, 0x20), 2);
	CHECK_EQ_INT(pms_last_le(e, n, sz, k, 0x3f), 2);
	CHECK_EQ_INT(pms_last_le(e, n, sz, k, 0x40), 3);
	CHECK_EQ_INT(pms_last_le(e, n, sz, k, UINT64_MAX), 3);
	CHECK(pms_last_le(e, 0, sz, k, 0x40) == SIZE_MAX);
	CHECK_EQ_INT(pms_last_le(e, 1, sz, k, 0x40), 0);
}

PMS_TEST(last_le_agrees_with_a_scan_at_every_point)
{
	/* starts with runs of equal values, every size 0..40 */
	uint64_t v[40];
	for (size_t i = 0; i < 40; i++)
		v[i] = (i / 3) * 8 + (i % 3 == 2 ? 4 : 0);
	for (size_t n = 0; n <= 40; n++)
		for (uint64_t x = 0; x < 130; x++) {
			size_t want = SIZE_MAX;
			for (size_t i = 0; i < n; i++)
				if (v[i] <= x)
					want = i;
			CHECK(pms_last_le(v, n, sizeof(v[0]), 0, x) == want);
		}
}

PMS_TEST_MAIN()
