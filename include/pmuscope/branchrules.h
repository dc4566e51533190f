/* Branch-stack acceptance of the core PMUs' branch record hardware (Intel
 * LBR, AMD LbrExtV2, Arm BRBE), as their drivers decide, before an event
 * is opened; and for BRBE the perf branch types a filter delivers (the
 * driver filters the records it reads by type, arm_brbe.c).
 *
 * Ownership: fills caller structs; strings are static.
 */
#ifndef PMUSCOPE_BRANCHRULES_H
#define PMUSCOPE_BRANCHRULES_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "pmuscope/pmu.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

enum pms_branch_hw {
	PMS_BRHW_NONE = 0,  /* no branch records known for this PMU */
	PMS_BRHW_INTEL_LBR,
	PMS_BRHW_AMD_LBR,   /* AMD LbrExtV2 (Zen 4) */
	PMS_BRHW_ARM_BRBE,
};

struct pms_branch_hwinfo {
	enum pms_branch_hw hw;
	int records;        /* caps/branches; -1 when sysfs does not say (BRBE) */
	int callstack;      /* 1 call-stack mode, 0 none, -1 not known (Intel) */
};

/* The branch hardware a core PMU's events use: Intel or AMD by vendor
 * ("GenuineIntel", "AuthenticAMD") for cpu / cpu_core / cpu_atom, with the
 * record count from caps/branches (arch/x86/events/intel/core.c and
 * amd/core.c "branches" attributes); BRBE for an Arm PMUv3 PMU (armv8_*,
 * armv9_*: BRBE is probed per PMU, arm_pmuv3.c __armv8pmu_probe_pmu ->
 * brbe_probe, and has no sysfs count).  NONE otherwise. */
void pms_branch_hw_of_pmu(const struct pms_pmu *pmu, const char *vendor,
			  struct pms_branch_hwinfo *out);

/* What the driver answers to attr (branch_sample_type, exclude_* and
 * sample_period) on that hardware: 0 accepted, else the positive errno;
 * *why (may be NULL) the rule with its source. */
int pms_branch_attr_check(const struct pms_branch_hwinfo *hw, const struct perf_event_attr *attr,
			  const char **why);

/* BRBE: the perf branch types (bit PERF_BR_x, and bit PERF_BR_MAX +
 * PERF_BR_NEW_x for the extended ones) whose records the driver keeps for
 * a branch_sample_type (arm_brbe.c prepare_event_branch_type_mask). */
uint64_t pms_brbe_branch_types(uint64_t branch_sample_type);

PMS_API_END
#ifdef __cplusplus
}
#endif

#endif
