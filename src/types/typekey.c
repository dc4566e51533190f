/* A type hit as perf's sort keys print it (type, typeoff, typecln). */
#include <inttypes.h>
#include <stdio.h>

#include "pmuscope/types.h"

int pms_type_hit_key(const struct pms_type_hit *h, enum pms_type_key key, char *buf, size_t len)
{
	if (h->status != PMS_TYPE_OK || !h->type)
		return snprintf(buf, len, "(unknown)");
	switch (key) {
	case PMS_TYPE_KEY_TYPEOFF:
		return snprintf(buf, len, "%s +%#" PRIx64 " (%s)", h->type, (uint64_t)h->offset,
				h->member && h->member[0] ? h->member : "no field");
	case PMS_TYPE_KEY_TYPECLN:
		return snprintf(buf, len, "%s: cache-line %" PRIu64, h->type,
				(uint64_t)h->offset / 64);
	case PMS_TYPE_KEY_TYPE:
	default:
		return snprintf(buf, len, "%s", h->type);
	}
}
