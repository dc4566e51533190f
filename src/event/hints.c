/* Why a PMU lacks a format term the user wrote, where the driver hides the
 * term on hardware without the feature (data: one row per term family, each
 * citing the driver rule).  Used by the "unknown term" error. */
#include <string.h>

#include "event/event_int.h"
#include "pmuscope/pmuv3.h"

struct hint {
	const char *pmu_prefix;
	const char *terms[8];
	const char *why;
};

static const struct hint hints[] = {
	/* FEAT_SPE_EFT: arm_spe_pmu_format_attr_is_visible hides the
	 * *_filter_mask, simd_filter and float_filter formats without
	 * SPE_PMU_FEAT_EFT (PMSIDR_EL1.EFT); the FEAT_SPE_EFT series (v5, July
	 * 2025, drivers/perf/arm_spe_pmu.c) put them in config:35-42 */
	{ "arm_spe_",
	  { "simd_filter", "simd_filter_mask", "float_filter", "float_filter_mask",
	    "branch_filter_mask", "load_filter_mask", "store_filter_mask", NULL },
	  "the SIMD/FP and mask filters need FEAT_SPE_EFT: arm_spe_pmu.c shows these formats only "
	  "when PMSIDR_EL1.EFT is set (SPE_PMU_FEAT_EFT), and no kernel up to 6.12 has them" },
	/* FEAT_SPE_FDS: the same rule with SPE_PMU_FEAT_FDS (PMSIDR_EL1.FDS);
	 * the term is config4:0-63, inverse of PMSDSFR_EL1 */
	{ "arm_spe_", { "inv_data_src_filter", NULL },
	  "the data-source filter needs FEAT_SPE_FDS: arm_spe_pmu.c shows inv_data_src_filter "
	  "(config4, the inverse of PMSDSFR_EL1) only when PMSIDR_EL1.FDS is set, and no kernel "
	  "up to 6.12 has it" },
	/* FEAT_PMUv3_TH: arm_pmuv3.c lists the terms on every PMUv3 PMU from
	 * Linux 6.8; caps/threshold_max says whether the core has the feature */
	{ "armv", { "threshold", "threshold_compare", "threshold_count", NULL },
	  "threshold counting needs Linux 6.8 or later (arm_pmuv3.c's threshold, threshold_compare "
	  "and threshold_count formats); the core needs FEAT_PMUv3_TH (caps/threshold_max > 0)" },
};

const char *pms_ev_term_hint(const struct pms_pmu *pmu, const char *term)
{
	if (!pmu || !pmu->name || !term)
		return NULL;
	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		const struct hint *h = &hints[i];
		if (strncmp(pmu->name, h->pmu_prefix, strlen(h->pmu_prefix)))
			continue;
		if (!strcmp(h->pmu_prefix, "armv") && !pms_pmu_is_pmuv3(pmu))
			continue;
		for (size_t k = 0; h->terms[k]; k++)
			if (!strcmp(h->terms[k], term))
				return h->why;
	}
	return NULL;
}
