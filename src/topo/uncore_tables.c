/* Uncore box -> SNC domain rules, one row per platform.
 *
 * Why: under sub-NUMA clustering the kernel still gives CHA and IMC PMUs a
 * per-socket cpumask ("0,120" on a 2-socket Granite Rapids), so counts opened
 * on those CPUs all land on the socket's first node.  These rows say which
 * SNC domain each box really serves.  Adding a platform is adding a row.
 */
#include "topo/topo_internal.h"

/* Granite Rapids IMC index -> SNC domain, from the lookup tables in
 * tools/perf/arch/x86/util/pmu.c (uncore_imc_snc(), "perf pmu intel: Adjust
 * cpumaks for sub-NUMA clusters on graniterapids", Ian Rogers, May 2025). */
static const uint8_t gnr_imc_snc2[] = { 1, 1, 0, 0, 1, 1, 0, 0 };
static const uint8_t gnr_imc_snc3[] = { 1, 1, 0, 0, 2, 2, 1, 1, 0, 0, 2, 2 };

static const struct pms_uncore_rule gnr_rules[] = {
	/* CHA numbers split evenly and in order over the SNC domains
	 * (same file, uncore_cha_snc()). */
	{ .box = "uncore_cha", .how = PMS_UNCORE_SPLIT },
	{ .box = "uncore_imc",
	  .how = PMS_UNCORE_TABLE,
	  .maps = { [2] = gnr_imc_snc2, [3] = gnr_imc_snc3 },
	  .map_len = { [2] = sizeof(gnr_imc_snc2), [3] = sizeof(gnr_imc_snc3) } },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

const struct pms_uncore_platform pms_uncore_platforms[] = {
	/* perf matches "GenuineIntel-6-A[DE]" (x86__is_intel_graniterapids()). */
	{ "Granite Rapids", "GenuineIntel", 6, 0xad, gnr_rules, N(gnr_rules),
	  "tools/perf/arch/x86/util/pmu.c (2025)" },
	{ "Granite Rapids-D", "GenuineIntel", 6, 0xae, gnr_rules, N(gnr_rules),
	  "tools/perf/arch/x86/util/pmu.c (2025)" },
};

const size_t pms_uncore_nplatforms = N(pms_uncore_platforms);
