/* libFuzzer target for the catalog loaders (src/catalog/load.c): any bytes
 * as a catalog file.  A failure must leave a message and no events; a success
 * must give events whose names look up and whose perf strings fit.  The same
 * bytes also go through the uncore term parser for each device. */
#include "pmuscope/catalog.h"
#include "pmuscope/error.h"
#include "pmuscope/uncore_enc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pms_catalog *cat = NULL;
	if (size > 65536)
		return 0;
	if (pms_catalog_new(&cat) < 0)
		return 0;
	int r = pms_catalog_load_buffer(cat, "fuzz.json", (const char *)data, size);
	if (r < 0) {
		if (pms_catalog_count(cat) != 0)
			abort(); /* a failed load adds nothing */
		if (pms_error_last()[0] == '\0')
			abort();
	} else {
		if ((size_t)r != pms_catalog_count(cat))
			abort();
		for (size_t i = 0; i < pms_catalog_count(cat) && i < 64; i++) {
			const struct pms_cat_event *e = pms_catalog_event(cat, i);
			struct pms_cat_match m;
			if (!e->name || !e->terms)
				abort();
			if (pms_catalog_lookup(cat, e->name, e->pmu, &m) < 0 &&
			    strlen(e->terms) + (e->pmu ? strlen(e->pmu) : 0) + 3 < sizeof(m.perf_string))
				abort();
		}
	}
	pms_catalog_free(cat);

	/* The uncore term parser on the same bytes as text. */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (int dev = PMS_UNCORE_CMN; dev <= PMS_UNCORE_DMC620; dev++) {
		struct pms_uncore_config c, c2;
		char buf[512];
		if (pms_uncore_parse((enum pms_uncore_device)dev, text, &c) < 0)
			continue;
		/* Whatever parses formats back and parses to the same words. */
		int n = pms_uncore_format((enum pms_uncore_device)dev, &c, buf, sizeof(buf));
		if (n < 0 || (size_t)n >= sizeof(buf))
			abort();
		if (pms_uncore_parse((enum pms_uncore_device)dev, buf, &c2) < 0 ||
		    memcmp(&c, &c2, sizeof(c)))
			abort();
	}
	free(text);
	return 0;
}
