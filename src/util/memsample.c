#include "pmuscope/error.h"
#include "pmuscope/memsample.h"

#include <stddef.h>
#include <string.h>

/* The one engine table (names, sentences, labels). */
static const struct {
	enum pms_engine e;
	const char *name, *brand, *label;
} engines[] = {
	{ PMS_ENG_NONE, "none", "no engine", "none" },
	{ PMS_ENG_IBS, "ibs", "AMD IBS", "AMD IBS (ibs_op)" },
	{ PMS_ENG_PEBS, "pebs", "Intel PEBS", "Intel PEBS" },
	{ PMS_ENG_SPE, "spe", "Arm SPE", "Arm SPE" },
	{ PMS_ENG_SOFTWARE, "software", "software-event sampling",
	  "software page-fault sampling (first touch; no data source)" },
	{ PMS_ENG_IBS_FETCH, "ibs_fetch", "AMD IBS fetch sampling",
	  "AMD IBS fetch sampling (ibs_fetch; instruction fetches, no data address)" },
};

static size_t row(enum pms_engine e)
{
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (engines[i].e == e)
			return i;
	return SIZE_MAX;
}

const char *pms_engine_name(enum pms_engine e)
{
	size_t i = row(e);
	return i == SIZE_MAX ? "?" : engines[i].name;
}

const char *pms_engine_brand(enum pms_engine e)
{
	size_t i = row(e);
	return i == SIZE_MAX ? "?" : engines[i].brand;
}

const char *pms_engine_label(enum pms_engine e)
{
	size_t i = row(e);
	return i == SIZE_MAX ? "?" : engines[i].label;
}

int pms_engine_parse(const char *name, enum pms_engine *out)
{
	for (size_t i = 0; name && i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!strcmp(name, engines[i].name)) {
			*out = engines[i].e;
			return 0;
		}
	return PMS_ENOENT;
}

/* PMU names as the kernel registers them: arch/x86/events/amd/ibs.c
 * ("ibs_op", "ibs_fetch"), arch/x86/events/intel/core.c ("cpu", and
 * "cpu_core"/"cpu_atom" on hybrids), arch/x86/events/amd/core.c ("cpu" too),
 * drivers/perf/arm_spe_pmu.c ("arm_spe_N"), kernel/events/core.c
 * ("software"). */
enum pms_engine pms_engine_of_pmu(const char *pmu, const char *vendor)
{
	if (!pmu)
		return PMS_ENG_NONE;
	if (!strcmp(pmu, "ibs_op"))
		return PMS_ENG_IBS;
	if (!strcmp(pmu, "ibs_fetch"))
		return PMS_ENG_IBS_FETCH;
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
