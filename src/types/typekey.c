/* A type hit as perf's sort keys print it (type, typeoff, typecln). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pmuscope/types.h"

int pms_type_hit_key(const struct pms_type_hit *h, enum pms_type_key key, char *buf, size_t len)
{
	bool ok = h->status == PMS_TYPE_OK && h->type;
	switch (key) {
	case PMS_TYPE_KEY_TYPEOFF: {
		/* perf's member name stops at the first array */
		const char *m = ok && h->member ? h->member : "";
		int n = (int)strcspn(m, "[");
		if (!ok)
			return snprintf(buf, len, "(unknown) +0 (no field)");
		if (!n)
			return snprintf(buf, len, "%s +%#" PRIx64 " (no field)", h->type,
					(uint64_t)h->offset);
		return snprintf(buf, len, "%s +%#" PRIx64 " (%.*s)", h->type, (uint64_t)h->offset,
				n, m);
	}
	case PMS_TYPE_KEY_TYPECLN:
		if (!ok)
			return snprintf(buf, len, "(unknown): cache-line 0");
		return snprintf(buf, len, "%s: cache-line %" PRIu64, h->type,
				(uint64_t)h->offset / 64);
	case PMS_TYPE_KEY_TYPE:
	default:
		if (!ok)
			return snprintf(buf, len, "(unknown)");
		return snprintf(buf, len, "%s", h->type);
	}
}
