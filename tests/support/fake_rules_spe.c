/* Arm SPE: arm_spe_pmu_event_init() (drivers/perf/arm_spe_pmu.c, v6.18). */
#include "fake_rules.h"

#include <errno.h>

#define SPE_PA_ENABLE (1ULL << 1)  /* config:1  PMSCR_EL1.PA */
#define SPE_PCT_ENABLE (1ULL << 2) /* config:2  PMSCR_EL1.PCT */
#define SPE_MIN_LATENCY 0xfffULL   /* config2:0-11 PMSLATFR_EL1.MINLAT */

int fkr_spe(const struct fkr_machine *m, const struct perf_event_attr *attr, int cpu)
{
	/* "if (event->cpu >= 0 && !cpumask_test_cpu(event->cpu,
	 * &spe_pmu->supported_cpus)) return -ENOENT;" */
	if (cpu >= 0 && (cpu >= 64 || !(m->spe_cpus >> cpu & 1)))
		return -ENOENT;
	/* "if (attr->exclude_idle) return -EOPNOTSUPP;" */
	if (attr->exclude_idle)
		return -EOPNOTSUPP;
	/* "Feedback-directed frequency throttling doesn't work ... if
	 * (attr->freq) return -EINVAL;" */
	if (attr->freq)
		return -EINVAL;
	/* PMSFCR_EL1.FL without SPE_PMU_FEAT_FILT_LAT: -EOPNOTSUPP. */
	if ((attr->config2 & SPE_MIN_LATENCY) && !m->spe_filt_lat)
		return -EOPNOTSUPP;
	/* "if (reg & (PMSCR_EL1_PA | PMSCR_EL1_PCT)) return perf_allow_kernel();" */
	if (attr->config & (SPE_PA_ENABLE | SPE_PCT_ENABLE))
		return fkr_allow_kernel(m);
	return 0;
}
