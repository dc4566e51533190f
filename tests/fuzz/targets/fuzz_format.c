/* libFuzzer target for the sysfs format-term parser (src/pmu/format.c).
 * Input: the text of one format file.  An accepted term must be internally
 * consistent, print back to text that parses to the same term, and place
 * values only inside its own mask, recoverably. */
#include "pmuscope/error.h"
#include "pmuscope/pmu.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t range_mask(int lo, int hi)
{
	return (hi == 63 ? ~UINT64_C(0) : ((UINT64_C(1) << (hi + 1)) - 1)) &
	       ~((UINT64_C(1) << lo) - 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pms_format f, g;
	char *text, buf[256];
	uint64_t mask, v = 0, w = 0, back = 0;
	int sum = 0, shift = 0;

	if (size > 4096)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&f, 0, sizeof(f));
	if (pms_format_parse(text, &f) < 0) {
		if (f.nranges != 0 || f.width != 0)
			abort();
		free(text);
		return 0;
	}
	f.name = (char *)"fuzz";
	/* ranges ascending, disjoint, within 0..63; width and mask agree */
	mask = 0;
	for (int i = 0; i < f.nranges; i++) {
		if (f.ranges[i].lo > f.ranges[i].hi || f.ranges[i].hi > 63)
			abort();
		if (i && f.ranges[i].lo <= f.ranges[i - 1].hi)
			abort();
		if (mask & range_mask(f.ranges[i].lo, f.ranges[i].hi))
			abort();
		mask |= range_mask(f.ranges[i].lo, f.ranges[i].hi);
		sum += f.ranges[i].hi - f.ranges[i].lo + 1;
	}
	if (f.nranges < 1 || f.nranges > PMS_FORMAT_MAX_RANGES || sum != f.width ||
	    mask != pms_format_mask(&f) || __builtin_popcountll(mask) != f.width)
		abort();
	/* print and parse again: the same term */
	if (pms_format_str(&f, buf, sizeof(buf)) >= sizeof(buf))
		abort();
	memset(&g, 0, sizeof(g));
	if (pms_format_parse(buf, &g) < 0 || g.field != f.field || g.nranges != f.nranges ||
	    memcmp(g.ranges, f.ranges, sizeof(f.ranges[0]) * (size_t)f.nranges) != 0)
		abort();
	/* encode a value taken from the input; it lands inside the mask and
	 * reads back from the ranges in ascending order */
	for (size_t i = 0; i < size && i < 8; i++)
		v = v << 8 | data[size - 1 - i];
	if (f.width < 64)
		v &= (UINT64_C(1) << f.width) - 1;
	if (pms_format_encode(&f, v, &w) < 0 || (w & ~mask))
		abort();
	for (int i = 0; i < f.nranges; i++) {
		int n = f.ranges[i].hi - f.ranges[i].lo + 1;
		uint64_t part = (w & range_mask(f.ranges[i].lo, f.ranges[i].hi)) >> f.ranges[i].lo;
		back |= shift < 64 ? part << shift : 0;
		shift += n;
	}
	if (back != v)
		abort();
	/* one bit too wide is refused and leaves the word alone */
	if (f.width < 64) {
		uint64_t w2 = 0x5a5a;
		if (pms_format_encode(&f, UINT64_C(1) << f.width, &w2) != PMS_ERANGE || w2 != 0x5a5a)
			abort();
	}
	free(text);
	return 0;
}
