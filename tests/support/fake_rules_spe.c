/* Arm SPE: arm_spe_pmu_event_init() (drivers/perf/arm_spe_pmu.c; quotes
 * from v6.18, line numbers of v6.12.95, Debian linux-source-6.12
 * 6.12.95-1~bpo12+1, where the function starts at line 702). */
#include "fake_rules.h"

#include <errno.h>

#define SPE_PA_ENABLE (1ULL << 1)  /* config:1  PMSCR_EL1.PA */
#define SPE_PCT_ENABLE (1ULL << 2) /* config:2  PMSCR_EL1.PCT */
#define SPE_MIN_LATENCY 0xfffULL   /* config2:0-11 PMSLATFR_EL1.MINLAT */
#define SPE_BRANCH_FILTER (1ULL << 32) /* config:32 PMSFCR_EL1.B */
#define SPE_LOAD_FILTER (1ULL << 33)   /* config:33 PMSFCR_EL1.LD */
#define SPE_STORE_FILTER (1ULL << 34)  /* config:34 PMSFCR_EL1.ST */
/* FEAT_SPE_EFT: branch/load/store_filter_mask config:35-37 (PMSFCR_EL1.Bm,
 * LDm, STm), simd_filter 39 and its mask 40, float_filter 41 and its mask
 * 42 (PMSFCR_EL1.SIMD, SIMDm, FP, FPm) */
#define SPE_EFT_BITS (0x7ULL << 35 | 0xfULL << 39)

int fkr_spe(const struct fkr_machine *m, const struct perf_event_attr *attr, int cpu)
{
	/* "if (event->cpu >= 0 && !cpumask_test_cpu(event->cpu,
	 * &spe_pmu->supported_cpus)) return -ENOENT;" */
	if (cpu >= 0 && (cpu >= 64 || !(m->spe_cpus >> cpu & 1)))
		return -ENOENT;
	/* :716-720 "if (arm_spe_event_to_pmsevfr(event) &
	 * arm_spe_pmsevfr_res0(spe_pmu->pmsver)) return -EOPNOTSUPP;" and the
	 * same for pmsnevfr: inv_event_filter is config3:0-63 (:208-210). */
	if (attr->config1 & m->spe_evfr_res0)
		return -EOPNOTSUPP;
	if (attr->config3 & m->spe_evfr_res0)
		return -EOPNOTSUPP;
	/* "if (attr->exclude_idle) return -EOPNOTSUPP;" */
	if (attr->exclude_idle)
		return -EOPNOTSUPP;
	/* "Feedback-directed frequency throttling doesn't work ... if
	 * (attr->freq) return -EINVAL;" */
	if (attr->freq)
		return -EINVAL;
	/* :736-738 PMSFCR_EL1.FE (event_filter non-zero) without
	 * SPE_PMU_FEAT_FILT_EVT: -EOPNOTSUPP. */
	if (attr->config1 && m->spe_no_filt_evt)
		return -EOPNOTSUPP;
	/* :740-742 PMSFCR_EL1.FnE (inv_event_filter non-zero, :347) without
	 * SPE_PMU_FEAT_INV_FILT_EVT (PMSIDR_EL1.FnE, :1019-1020):
	 * -EOPNOTSUPP. */
	if (attr->config3 && !m->spe_inv_filt_evt)
		return -EOPNOTSUPP;
	/* :744-746 PMSFCR_EL1.FT (any of branch/load/store_filter) without
	 * SPE_PMU_FEAT_FILT_TYP: -EOPNOTSUPP. */
	if ((attr->config & (SPE_BRANCH_FILTER | SPE_LOAD_FILTER | SPE_STORE_FILTER)) &&
	    m->spe_no_filt_typ)
		return -EOPNOTSUPP;
	/* FEAT_SPE_EFT (the v5 series, July 2025, arm_spe_pmu_event_init):
	 * simd_filter, float_filter or a *_filter_mask bit (config:35-42)
	 * without SPE_PMU_FEAT_EFT: -EOPNOTSUPP. */
	if ((attr->config & SPE_EFT_BITS) && !m->spe_eft)
		return -EOPNOTSUPP;
	/* :748-750 PMSFCR_EL1.FL without SPE_PMU_FEAT_FILT_LAT: -EOPNOTSUPP. */
	if ((attr->config2 & SPE_MIN_LATENCY) && !m->spe_filt_lat)
		return -EOPNOTSUPP;
	/* "if (reg & (PMSCR_EL1_PA | PMSCR_EL1_PCT)) return perf_allow_kernel();" */
	if (attr->config & (SPE_PA_ENABLE | SPE_PCT_ENABLE))
		return fkr_allow_kernel(m);
	return 0;
}
