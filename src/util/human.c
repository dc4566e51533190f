/* Byte counts for people and from them, the ring's page count, bit lists
 * (include/pmuscope/util.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/cpuset.h"
#include "pmuscope/util.h"

const char *pms_human_size(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = 0;
	while (v >= 1024 && u < 6) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
	else if (v == (double)(uint64_t)v)
		snprintf(buf, size, "%.0f %s", v, units[u]);
	else
		snprintf(buf, size, "%.1f %s", v, units[u]);
	return buf;
}

int pms_parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned shift = 0;
	errno = 0;
	/* strtoull takes "-1" as 2^64-1: no sign here */
	if (strchr(s, '-'))
		return -1;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	/* at most 1 TiB, and no wrap in the shift */
	if (v > (UINT64_C(1) << 40) >> shift)
		return -1;
	v <<= shift;
	if (*end == 'i' || *end == 'B')
		end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
	if (*end)
		return -1;
	*out = (size_t)v;
	return 0;
}

int pms_parse_mmap_pages(const char *s, size_t page_size, size_t *pages)
{
	/* perf's rule (evlist.c __perf_evlist__parse_mmap_pages): a page
	 * count must be a power of two; a size is rounded up to one */
	size_t n = 0;
	const char *e = s + strspn(s, "0123456789");
	if (*e && e != s) {
		size_t b = 0;
		if (pms_parse_size(s, &b) < 0 || !b)
			return -1;
		n = 1;
		while (n * page_size < b && n < ((size_t)1 << 30))
			n <<= 1;
	} else {
		char *end;
		errno = 0;
		long v = strtol(s, &end, 0);
		if (!*s || errno || end == s || *end || v < 1 || v > 1L << 30 || (v & (v - 1)))
			return -2;
		n = (size_t)v;
	}
	*pages = n;
	return 0;
}

int pms_parse_bit_list(const char *s, uint64_t *mask)
{
	uint64_t keep = 0;
	struct pms_cpuset set = { 0 };
	bool bad = pms_cpuset_parse_list(&set, s) < 0 || !pms_cpuset_count(&set);
	for (int b = bad ? -1 : pms_cpuset_first(&set); b >= 0; b = pms_cpuset_next(&set, b + 1)) {
		if (b > 63) {
			bad = true;
			break;
		}
		keep |= 1ULL << b;
	}
	pms_cpuset_fini(&set);
	if (bad || !keep)
		return -1;
	*mask = keep;
	return 0;
}
