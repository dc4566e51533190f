#include "pmuscope/memsample.h"

const char *pms_engine_label(enum pms_engine e)
{
	switch (e) {
	case PMS_ENG_IBS: return "AMD IBS (ibs_op)";
	case PMS_ENG_PEBS: return "Intel PEBS";
	case PMS_ENG_SPE: return "Arm SPE";
	case PMS_ENG_SOFTWARE: return "software page-fault sampling (first touch; no data source)";
	case PMS_ENG_NONE: break;
	}
	return "none";
}

#include <stddef.h>
#include <string.h>

/* PMU names as the kernel registers them: arch/x86/events/amd/ibs.c
 * ("ibs_op", "ibs_fetch"), arch/x86/events/intel/core.c ("cpu", and
 * "cpu_core"/"cpu_atom" on hybrids), arch/x86/events/amd/core.c ("cpu" too),
 * drivers/perf/arm_spe_pmu.c ("arm_spe_N"), kernel/events/core.c
 * ("software"). */
enum pms_engine pms_engine_of_pmu(const char *pmu, const char *vendor)
{
	if (!pmu)
		return PMS_ENG_NONE;
	if (!strcmp(pmu, "ibs_op") || !strcmp(pmu, "ibs_fetch"))
		return PMS_ENG_IBS;
	if (!strncmp(pmu, "arm_spe", 7))
		return PMS_ENG_SPE;
	if (!strcmp(pmu, "software"))
		return PMS_ENG_SOFTWARE;
	if (!strcmp(pmu, "cpu_core") || !strcmp(pmu, "cpu_atom"))
		return PMS_ENG_PEBS;
	/* "cpu" is the core PMU of Intel and AMD alike: PEBS only on
	 * Intel, or when the vendor is not known (a file without CPUID). */
	if (!strcmp(pmu, "cpu"))
		return !vendor || !vendor[0] || !strcmp(vendor, "GenuineIntel") ? PMS_ENG_PEBS
										 : PMS_ENG_NONE;
	return PMS_ENG_NONE;
}
