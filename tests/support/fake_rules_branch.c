/* Branch-stack acceptance of the core PMUs (PERF_SAMPLE_BRANCH_STACK with
 * attr.branch_sample_type), one vendor each; bits are the uapi
 * PERF_SAMPLE_BRANCH_*_SHIFT values:
 *   u 0, k 1, hv 2, any 3, any_call 4, any_ret 5, ind_call 6, abort_tx 7,
 *   in_tx 8, no_tx 9, cond 10, call_stack 11, ind_jump 12, call 13,
 *   no_flags 14, no_cycles 15, type_save 16, hw_index 17, priv_save 18,
 *   counters 19. */
#include "fake_rules.h"

#include <errno.h>

#define B(n) (1ULL << (n))

int fkr_branch(const struct fkr_machine *m, const struct fkr_pebs_pmu *p,
	       const struct perf_event_attr *attr)
{
	uint64_t t = attr->branch_sample_type;
	(void)m;
	switch (p->branch_kind) {
	case FKR_BR_INTEL_LBR:
		/* arch/x86/events/intel/core.c intel_pmu_hw_config: a branch
		 * stack needs LBRs (x86_pmu.lbr_nr), else EOPNOTSUPP;
		 * intel/lbr.c intel_pmu_setup_hw_lbr_filter: a filter mapped
		 * to LBR_NOT_SUPP (call-stack mode without the hardware's
		 * call-stack support) is EOPNOTSUPP. */
		if (!p->lbr_nr)
			return -EOPNOTSUPP;
		if ((t & B(11)) && !p->lbr_callstack)
			return -EOPNOTSUPP;
		return 0;
	case FKR_BR_AMD_LBR:
		/* arch/x86/events/amd/lbr.c amd_pmu_lbr_hw_config: counting
		 * mode is EINVAL; amd_pmu_lbr_setup_filter: no LBRs, or a bit
		 * lbr_select_map maps to LBR_NOT_SUPP (abort_tx, in_tx, no_tx,
		 * call_stack, no_flags, no_cycles), is EOPNOTSUPP. */
		if (!attr->sample_period)
			return -EINVAL;
		if (!p->lbr_nr)
			return -EOPNOTSUPP;
		if (t & (B(7) | B(8) | B(9) | B(11) | B(14) | B(15)))
			return -EOPNOTSUPP;
		return 0;
	case FKR_BR_ARM_BRBE:
		/* drivers/perf/arm_pmuv3.c: a branch stack needs BRBE records
		 * (brbe_num_branch_records) and a valid filter, else
		 * EOPNOTSUPP; drivers/perf/arm_brbe.c brbe_branch_attr_valid
		 * (torvalds/linux 2369f056): abort_tx, in_tx, no_tx,
		 * call_stack and counters are excluded; at least one of any,
		 * any_call, any_ret, ind_call, cond, ind_jump, call; not both
		 * exclude_user and exclude_kernel, nor exclude_host.  BRBE is
		 * no PMU of its own: the records come with a core PMU event
		 * (a software event asking for them is refused in
		 * fake_rules_core.c). */
		if (!p->lbr_nr)
			return -EOPNOTSUPP;
		if (t & (B(7) | B(8) | B(9) | B(11) | B(19)))
			return -EOPNOTSUPP;
		if (!(t & (B(3) | B(4) | B(5) | B(6) | B(10) | B(12) | B(13))))
			return -EOPNOTSUPP;
		if (attr->exclude_host || (attr->exclude_user && attr->exclude_kernel))
			return -EOPNOTSUPP;
		return 0;
	}
	return -EOPNOTSUPP;
}
