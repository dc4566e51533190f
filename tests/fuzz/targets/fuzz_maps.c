/* libFuzzer target for the mappings parser and editor (src/symbols/maps.c).
 * Input: 16 bytes choosing a range to remove and one to add, then
 * /proc/PID/maps text.  Whatever is accepted, the mappings must stay sorted,
 * non-empty and non-overlapping, and every mapping must be found at its own
 * start and end - 1. */
#include "pmuscope/error.h"
#include "pmuscope/symbols.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct pms_maps *m)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct pms_map *p = &m->v[i];
		if (p->start >= p->end)
			abort();
		if (i && m->v[i - 1].end > p->start)
			abort();
		if (pms_maps_find(m, p->start) != p || pms_maps_find(m, p->end - 1) != p)
			abort();
		if (!p->path)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pms_maps *m = NULL;
	uint64_t r[2];
	char *text;

	if (size < 16 || size > 16384)
		return 0;
	memcpy(r, data, 16);
	text = malloc(size - 16 + 1);
	if (!text)
		return 0;
	memcpy(text, data + 16, size - 16);
	text[size - 16] = '\0';
	if (pms_maps_new(&m) < 0) {
		free(text);
		return 0;
	}
	int rc = pms_maps_parse(m, text);
	if (rc < 0 && pms_error_last()[0] == '\0')
		abort(); /* a refusal always says why */
	check(m);
	/* small ranges, so they hit the parsed mappings */
	uint64_t base = m->n ? m->v[0].start : 0;
	uint64_t start = base + (r[0] & 0xfffff), len = (r[0] >> 20) & 0xfffff;
	pms_maps_remove(m, start, len);
	check(m);
	start = base + (r[1] & 0xfffff);
	len = ((r[1] >> 20) & 0xfffff) + 1;
	if (start + len > start && pms_maps_add(m, start, len, 0, 0, r[1] >> 63, "[x]") == 0) {
		if (pms_maps_find(m, start) == NULL || pms_maps_find(m, start + len - 1) == NULL)
			abort();
	}
	check(m);
	pms_maps_free(m);
	free(text);
	return 0;
}
