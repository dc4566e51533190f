/* Internal to src/topo: pieces of pms_topo_load() that live in other files,
 * and the uncore platform tables (data, in uncore_tables.c). */
#ifndef PMS_TOPO_INTERNAL_H
#define PMS_TOPO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "pmuscope/topo.h"

/* Fill vendor/family/model/stepping/model_name from proc/cpuinfo (absent
 * file: fields stay "" / -1). */
int pms_topo_read_cpuinfo(struct pms_sys *sys, struct pms_topo *topo);

/* How one box family is placed on SNC domains. */
struct pms_uncore_rule {
	const char *box;            /* PMU box family, e.g. "uncore_cha" */
	enum pms_uncore_how how;    /* PMS_UNCORE_SPLIT or PMS_UNCORE_TABLE */
	/* PMS_UNCORE_TABLE: box index -> SNC domain, per SNC count
	 * (maps[n] for SNCn; NULL = no table for that count). */
	const uint8_t *maps[5];
	size_t map_len[5];
};

/* One platform: CPUs it covers and its rules. */
struct pms_uncore_platform {
	const char *name;   /* "Granite Rapids" */
	const char *vendor; /* /proc/cpuinfo vendor_id */
	int family;
	int model;
	const struct pms_uncore_rule *rules;
	size_t nrules;
	const char *source; /* where the facts come from */
};

extern const struct pms_uncore_platform pms_uncore_platforms[];
extern const size_t pms_uncore_nplatforms;

#endif
