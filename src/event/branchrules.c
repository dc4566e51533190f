/* Branch-stack acceptance per vendor (issue 31 row 3), from the drivers:
 *  - Intel: arch/x86/events/intel/core.c intel_pmu_hw_config (a branch
 *    stack needs x86_pmu.lbr_nr, else EOPNOTSUPP) and intel/lbr.c
 *    intel_pmu_setup_hw_lbr_filter (call-stack mode without call-stack
 *    LBRs maps to LBR_NOT_SUPP: EOPNOTSUPP), v6.12;
 *  - AMD: arch/x86/events/amd/lbr.c amd_pmu_lbr_hw_config (counting mode
 *    EINVAL) and amd_pmu_lbr_setup_filter (no LBRs, or abort_tx, in_tx,
 *    no_tx, call_stack, no_flags, no_cycles: LBR_NOT_SUPP, EOPNOTSUPP),
 *    v6.12;
 *  - Arm BRBE: drivers/perf/arm_brbe.c (merged in Linux 6.17, torvalds/
 *    linux 2369f056) brbe_branch_attr_valid: BRBE_EXCLUDE_BRANCH_FILTERS
 *    (abort_tx, in_tx, no_tx, call_stack, counters) refused, at least one
 *    of BRBE_ALLOWED_BRANCH_TYPES, not exclude_host, not both exclude_user
 *    and exclude_kernel; arm_pmuv3.c armv8pmu_set_event_filter refuses a
 *    branch stack where brbe_num_branch_records() is 0 (the PMU's CPUs
 *    have no valid BRBE) with EOPNOTSUPP.
 * The fake kernel's rules (tests/support/fake_rules_branch.c) were written
 * separately; tests/sample/test_branchrules.c compares the two. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/branchrules.h"

#define B(n) (1ULL << (n)) /* PERF_SAMPLE_BRANCH_*_SHIFT */
#define BR_ANY B(3)
#define BR_ANY_CALL B(4)
#define BR_ANY_RET B(5)
#define BR_IND_CALL B(6)
#define BR_ABORT_TX B(7)
#define BR_IN_TX B(8)
#define BR_NO_TX B(9)
#define BR_COND B(10)
#define BR_CALL_STACK B(11)
#define BR_IND_JUMP B(12)
#define BR_CALL B(13)
#define BR_NO_FLAGS B(14)
#define BR_NO_CYCLES B(15)
#define BR_COUNTERS B(19)
#define BR_KERNEL B(1)

void pms_branch_hw_of_pmu(const struct pms_pmu *pmu, const char *vendor,
			  struct pms_branch_hwinfo *out)
{
	memset(out, 0, sizeof(*out));
	out->records = -1;
	out->callstack = -1;
	if (!pmu || !pmu->name)
		return;
	if (!strncmp(pmu->name, "armv8_", 6) || !strncmp(pmu->name, "armv9_", 6)) {
		out->hw = PMS_BRHW_ARM_BRBE;
		out->callstack = 0; /* BRBE_EXCLUDE_BRANCH_FILTERS */
		return;
	}
	if (strcmp(pmu->name, "cpu") && strcmp(pmu->name, "cpu_core") &&
	    strcmp(pmu->name, "cpu_atom"))
		return;
	const char *n = pms_pmu_cap(pmu, "branches");
	out->records = n ? (int)strtol(n, NULL, 10) : 0;
	if (vendor && !strcmp(vendor, "AuthenticAMD")) {
		out->hw = PMS_BRHW_AMD_LBR;
		out->callstack = 0;
	} else {
		out->hw = PMS_BRHW_INTEL_LBR;
	}
}

int pms_branch_attr_check(const struct pms_branch_hwinfo *hw, const struct perf_event_attr *attr,
			  const char **why)
{
	static const char *dummy;
	uint64_t t = attr->branch_sample_type;
	if (!why)
		why = &dummy;
	*why = NULL;
	switch (hw->hw) {
	case PMS_BRHW_INTEL_LBR:
		if (hw->records == 0) {
			*why = "no LBRs (caps/branches 0): intel_pmu_hw_config refuses a branch stack";
			return EOPNOTSUPP;
		}
		if ((t & BR_CALL_STACK) && hw->callstack == 0) {
			*why = "call-stack mode needs call-stack LBRs "
			       "(intel/lbr.c intel_pmu_setup_hw_lbr_filter: LBR_NOT_SUPP)";
			return EOPNOTSUPP;
		}
		return 0;
	case PMS_BRHW_AMD_LBR:
		if (!attr->sample_period && !attr->freq) {
			*why = "AMD LBRs only with sampling (amd/lbr.c amd_pmu_lbr_hw_config)";
			return EINVAL;
		}
		if (hw->records == 0) {
			*why = "no LBRs (caps/branches 0; LbrExtV2 is Zen 4 and later)";
			return EOPNOTSUPP;
		}
		if (t & (BR_ABORT_TX | BR_IN_TX | BR_NO_TX | BR_CALL_STACK | BR_NO_FLAGS |
			 BR_NO_CYCLES)) {
			*why = "abort_tx, in_tx, no_tx, call stack, no_flags and no_cycles map to "
			       "LBR_NOT_SUPP (amd/lbr.c amd_pmu_lbr_setup_filter)";
			return EOPNOTSUPP;
		}
		return 0;
	case PMS_BRHW_ARM_BRBE:
		if (hw->records == 0) {
			*why = "this PMU's CPUs have no valid BRBE (brbe_probe left "
			       "brbe_num_branch_records 0): arm_pmuv3.c refuses a branch stack";
			return EOPNOTSUPP;
		}
		if (t & (BR_ABORT_TX | BR_IN_TX | BR_NO_TX | BR_CALL_STACK | BR_COUNTERS)) {
			*why = "abort_tx, in_tx, no_tx, call stack and counters are "
			       "BRBE_EXCLUDE_BRANCH_FILTERS (arm_brbe.c brbe_branch_attr_valid)";
			return EOPNOTSUPP;
		}
		if (!(t & (BR_ANY | BR_ANY_CALL | BR_ANY_RET | BR_IND_CALL | BR_COND | BR_IND_JUMP |
			   BR_CALL))) {
			*why = "no branch type among BRBE_ALLOWED_BRANCH_TYPES "
			       "(arm_brbe.c brbe_branch_attr_valid)";
			return EOPNOTSUPP;
		}
		if (attr->exclude_host || (attr->exclude_user && attr->exclude_kernel)) {
			*why = "BRBE records no guest or nVHE hypervisor branches: exclude_host, or "
			       "both exclude_user and exclude_kernel, is refused "
			       "(arm_brbe.c brbe_branch_attr_valid)";
			return EOPNOTSUPP;
		}
		return 0;
	case PMS_BRHW_NONE:
		break;
	}
	*why = "no branch record hardware known for this PMU";
	return EOPNOTSUPP;
}

/* The sets of arm_brbe.c (PERF_BR_ARM64_ALL, PERF_BR_ARM64_ALL_KERNEL),
 * with the uapi enum perf_branch_type / perf_branch_type_new values. */
#define T(n) (1ULL << (n))
#define ARM64_ALL                                                                      \
	(T(PERF_BR_COND) | T(PERF_BR_UNCOND) | T(PERF_BR_IND) | T(PERF_BR_CALL) |      \
	 T(PERF_BR_IND_CALL) | T(PERF_BR_RET))
#define ARM64_ALL_KERNEL                                                               \
	(T(PERF_BR_SYSCALL) | T(PERF_BR_IRQ) | T(PERF_BR_SERROR) |                    \
	 T(PERF_BR_MAX + PERF_BR_NEW_FAULT_ALGN) | T(PERF_BR_MAX + PERF_BR_NEW_FAULT_DATA) | \
	 T(PERF_BR_MAX + PERF_BR_NEW_FAULT_INST))

uint64_t pms_brbe_branch_types(uint64_t t)
{
	uint64_t m = 0;
	bool k = t & BR_KERNEL;
	if (t & BR_ANY)
		return k ? T(PERF_BR_ERET) | ARM64_ALL | ARM64_ALL_KERNEL : ARM64_ALL;
	if (t & BR_ANY_CALL) {
		if (k)
			m |= ARM64_ALL_KERNEL;
		m |= T(PERF_BR_CALL) | T(PERF_BR_IND_CALL);
	}
	if (t & BR_IND_JUMP)
		m |= T(PERF_BR_IND);
	if (t & BR_COND)
		m |= T(PERF_BR_COND);
	if (t & BR_CALL)
		m |= T(PERF_BR_CALL);
	if (t & BR_IND_CALL)
		m |= T(PERF_BR_IND_CALL);
	if (t & BR_ANY_RET) {
		m |= T(PERF_BR_RET);
		if (k)
			m |= T(PERF_BR_ERET);
	}
	return m;
}
