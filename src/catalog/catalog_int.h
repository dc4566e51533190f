/* Internal: the catalog object shared by the files of src/catalog. */
#ifndef PMS_CATALOG_CATALOG_INT_H
#define PMS_CATALOG_CATALOG_INT_H

#include "pmuscope/catalog.h"

struct pms_catalog {
	struct pms_cat_event *ev;
	size_t n, cap;
};

/* Append a copy of *tmpl (every string duplicated). */
int pms_cat_add(struct pms_catalog *cat, const struct pms_cat_event *tmpl);

/* Drop the events added after the first n (a failed load leaves none). */
void pms_cat_truncate(struct pms_catalog *cat, size_t n);

/* Load one JSON file (format detected); pmu_override (may be NULL) names the
 * PMU for events without a Unit (perfmon hybrid rows). Returns events added. */
int pms_cat_load_file(struct pms_catalog *cat, const char *path, const char *pmu_override);

#endif
