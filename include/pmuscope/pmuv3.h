/* Arm PMUv3 driver rules applied by the library before an event is opened:
 * what drivers/perf/arm_pmuv3.c programs for perf's generic hardware and
 * cache events on a PMUv3 core PMU (armv8_pmuv3_perf_map, the cache map and
 * the per-core override cache maps, the BR_RETIRED -> PC_WRITE_RETIRED
 * fallback, gated by PMCEID as the PMU's events/ directory shows it), and
 * FEAT_PMUv3_TH threshold counting (the threshold, threshold_compare and
 * threshold_count terms, capped by caps/threshold_max).
 *
 * Ownership: the functions fill caller structs; every string in them is
 * static.  The pms_pmu arguments are borrowed for the call.
 */
#ifndef PMUSCOPE_PMUV3_H
#define PMUSCOPE_PMUV3_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "pmuscope/pmu.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* Whether pmu is registered by drivers/perf/arm_pmuv3.c (armv8_* / armv9_*
 * names: armv8_pmuv3_0 under ACPI, armv8_cortex_a53 ... under devicetree). */
bool pms_pmu_is_pmuv3(const struct pms_pmu *pmu);

enum pms_pmuv3_map_status {
	PMS_PMUV3_NOT_GENERIC = 0, /* not a PMUv3 PMU, or not a generic event type */
	PMS_PMUV3_MAPPED,          /* the driver programs .event */
	PMS_PMUV3_UNSUPPORTED,     /* the driver refuses with .kernel_errno */
};

struct pms_pmuv3_mapping {
	enum pms_pmuv3_map_status status;
	uint16_t event;         /* MAPPED: the PMEVTYPER event number */
	const char *event_name; /* its mnemonic ("BR_RETIRED"), NULL if unknown */
	int kernel_errno;       /* UNSUPPORTED: ENOENT, or EINVAL for a config past the enums */
	/* false when the PMU's events/ lists nothing: PMCEID is not known and
	 * every common event is taken as implemented */
	bool pmceid_known;
	const char *rule;       /* the driver rule that decided, for people */
};

/* What the driver does with a PERF_TYPE_HARDWARE or PERF_TYPE_HW_CACHE event
 * (config without the extended PMU type) opened on pmu.  Returns 0; out's
 * status says the outcome.  PMS_EINVAL for NULL arguments. */
int pms_pmuv3_map_generic(const struct pms_pmu *pmu, uint32_t type, uint64_t config,
			  struct pms_pmuv3_mapping *out);

/* FEAT_PMUv3_TH threshold counting as armv8pmu_set_event_filter() applies it. */
struct pms_pmuv3_threshold {
	uint32_t threshold;   /* the threshold term (PMEVTYPER.TH) */
	uint32_t max;         /* caps/threshold_max: (1 << PMMIR.THWIDTH) - 1; 0 = no FEAT_PMUv3_TH */
	unsigned compare;     /* threshold_compare: 0 not-equal, 1 equal, 2 >=, 3 < */
	unsigned count;       /* threshold_count: 1 counts cycles meeting the condition */
	bool applied;         /* threshold != 0: TH and TC are written */
	uint64_t evtyper_bits; /* the TH (43:32) and TC (63:61) bits of PMEVTYPER */
};

/* Read the threshold terms of attr on a PMUv3 pmu (through its format/) and
 * apply the driver's check.  PMS_EINVAL when the threshold exceeds
 * caps/threshold_max (the driver's EINVAL, "PMU event threshold exceeds max
 * value"), with the reason; 0 otherwise (also when pmu has no threshold
 * format: out->threshold is 0 then). */
int pms_pmuv3_threshold(const struct pms_pmu *pmu, const struct perf_event_attr *attr,
			struct pms_pmuv3_threshold *out);

/* "not-equal", "equal", "greater-or-equal", "less-than"; NULL past 3. */
const char *pms_pmuv3_compare_name(unsigned compare);

PMS_API_END
#ifdef __cplusplus
}
#endif

#endif
