/* libFuzzer target for the CPU set parsers (src/util/cpuset.c): the list
 * form ("0-3,8") and the hex mask form ("ffffffff,000000ff").  Input: one
 * selector byte (bit 0: mask form) then the text.  An accepted set must print
 * as a list that parses back to the same set. */
#include "pmuscope/cpuset.h"
#include "pmuscope/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pms_cpuset a = { 0 }, b = { 0 };
	char *text, *list = NULL;
	size_t n;
	int ret, count;

	if (size < 1 || size > 8192)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	ret = (data[0] & 1) ? pms_cpuset_parse_mask(&a, text) : pms_cpuset_parse_list(&a, text);
	if (ret < 0) {
		if (pms_cpuset_count(&a) != 0 || pms_error_last()[0] == '\0')
			abort();
		goto out;
	}
	count = pms_cpuset_count(&a);
	/* walking with next() visits exactly count members, all <= PMS_CPUSET_MAX */
	{
		int seen = 0, last = -1;
		for (int c = pms_cpuset_first(&a); c >= 0; c = pms_cpuset_next(&a, c + 1)) {
			if (c <= last || c > PMS_CPUSET_MAX || !pms_cpuset_has(&a, c))
				abort();
			last = c;
			seen++;
		}
		if (seen != count)
			abort();
	}
	n = pms_cpuset_format(&a, NULL, 0);
	list = malloc(n + 1);
	if (!list)
		goto out;
	if (pms_cpuset_format(&a, list, n + 1) != n || strlen(list) != n)
		abort();
	if (pms_cpuset_parse_list(&b, list) < 0 || !pms_cpuset_equal(&a, &b) ||
	    !pms_cpuset_subset(&a, &b) || (count && !pms_cpuset_intersects(&a, &b)))
		abort();
out:
	free(list);
	free(text);
	pms_cpuset_fini(&a);
	pms_cpuset_fini(&b);
	return 0;
}
