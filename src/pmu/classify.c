/* PMU classification: a table keyed by the name the driver registers.
 *
 * Each row cites the kernel file whose perf_pmu_register() call chooses the
 * name.  The first matching row wins, so exact names come before prefixes. */
#include "pmu/classify.h"
#include "pmuscope/memsample.h"
#include "util/error.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum match { EXACT, PREFIX, PREFIX_SUFFIX };

struct pmu_rule {
	enum match match;
	const char *pattern; /* exact name or prefix */
	const char *suffix;  /* PREFIX_SUFFIX only */
	enum pms_pmu_kind kind;
	enum pms_uncore_scope scope;
	const char *source; /* kernel file that registers the name */
};

static const struct pmu_rule rules[] = {
	/* Generic PMUs with fixed types (include/uapi/linux/perf_event.h PERF_TYPE_*). */
	{ EXACT, "software", NULL, PMS_PMU_SOFTWARE, 0, "kernel/events/core.c" },
	{ EXACT, "tracepoint", NULL, PMS_PMU_TRACEPOINT, 0, "kernel/events/core.c" },
	{ EXACT, "breakpoint", NULL, PMS_PMU_BREAKPOINT, 0, "kernel/events/hw_breakpoint.c" },
	{ EXACT, "kprobe", NULL, PMS_PMU_OTHER, 0, "kernel/events/core.c" },
	{ EXACT, "uprobe", NULL, PMS_PMU_OTHER, 0, "kernel/events/core.c" },

	/* Core PMUs. */
	{ EXACT, "cpu", NULL, PMS_PMU_CORE, 0, "arch/x86/events/core.c (also riscv, powerpc)" },
	{ EXACT, "cpu_core", NULL, PMS_PMU_CORE, 0, "arch/x86/events/intel/core.c (hybrid)" },
	{ EXACT, "cpu_atom", NULL, PMS_PMU_CORE, 0, "arch/x86/events/intel/core.c (hybrid)" },
	{ EXACT, "cpu_lowpower", NULL, PMS_PMU_CORE, 0, "arch/x86/events/intel/core.c (hybrid)" },
	{ PREFIX, "armv8_", NULL, PMS_PMU_CORE, 0, "drivers/perf/arm_pmuv3.c" },
	{ PREFIX, "armv9_", NULL, PMS_PMU_CORE, 0, "drivers/perf/arm_pmuv3.c" },
	{ PREFIX_SUFFIX, "apple_", "_pmu", PMS_PMU_CORE, 0, "drivers/perf/apple_m1_cpu_pmu.c" },

	/* Precise sampling engines. */
	{ EXACT, "ibs_op", NULL, PMS_PMU_PRECISE, 0, "arch/x86/events/amd/ibs.c" },
	{ EXACT, "ibs_fetch", NULL, PMS_PMU_PRECISE, 0, "arch/x86/events/amd/ibs.c" },
	{ PREFIX, "arm_spe_", NULL, PMS_PMU_PRECISE, 0, "drivers/perf/arm_spe_pmu.c" },

	/* Uncore and other system-wide PMUs, with the scope of one instance. */
	{ PREFIX, "uncore_", NULL, PMS_PMU_UNCORE, PMS_SCOPE_PACKAGE,
	  "arch/x86/events/intel/uncore.c (one reader CPU per die/package)" },
	{ EXACT, "amd_df", NULL, PMS_PMU_UNCORE, PMS_SCOPE_PACKAGE, "arch/x86/events/amd/uncore.c" },
	{ EXACT, "amd_l3", NULL, PMS_PMU_UNCORE, PMS_SCOPE_LLC,
	  "arch/x86/events/amd/uncore.c (one reader CPU per L3/CCX)" },
	{ PREFIX, "amd_umc_", NULL, PMS_PMU_UNCORE, PMS_SCOPE_PACKAGE, "arch/x86/events/amd/uncore.c" },
	{ PREFIX, "amd_iommu_", NULL, PMS_PMU_UNCORE, PMS_SCOPE_SYSTEM, "arch/x86/events/amd/iommu.c" },
	{ EXACT, "power", NULL, PMS_PMU_UNCORE, PMS_SCOPE_PACKAGE, "arch/x86/events/rapl.c" },
	{ EXACT, "cstate_pkg", NULL, PMS_PMU_UNCORE, PMS_SCOPE_PACKAGE,
	  "arch/x86/events/intel/cstate.c" },
	{ EXACT, "cstate_core", NULL, PMS_PMU_UNCORE, PMS_SCOPE_CPU,
	  "arch/x86/events/intel/cstate.c (one reader CPU per core)" },
	{ PREFIX, "arm_cmn_", NULL, PMS_PMU_UNCORE, PMS_SCOPE_PACKAGE, "drivers/perf/arm-cmn.c" },
	{ PREFIX, "arm_ccn_", NULL, PMS_PMU_UNCORE, PMS_SCOPE_PACKAGE, "drivers/perf/arm-ccn.c" },
	{ PREFIX, "arm_dsu_", NULL, PMS_PMU_UNCORE, PMS_SCOPE_CLUSTER, "drivers/perf/arm_dsu_pmu.c" },
	{ PREFIX, "arm_dmc620_", NULL, PMS_PMU_UNCORE, PMS_SCOPE_PACKAGE,
	  "drivers/perf/arm_dmc620_pmu.c" },
	{ PREFIX, "hisi_sccl", NULL, PMS_PMU_UNCORE, PMS_SCOPE_DIE,
	  "drivers/perf/hisilicon/hisi_uncore_pmu.c" },
};

static bool rule_matches(const struct pmu_rule *r, const char *name)
{
	size_t n = strlen(name), pl = strlen(r->pattern), sl;
	switch (r->match) {
	case EXACT:
		return strcmp(name, r->pattern) == 0;
	case PREFIX:
		return n > pl && strncmp(name, r->pattern, pl) == 0;
	case PREFIX_SUFFIX:
		sl = strlen(r->suffix);
		return n > pl + sl && strncmp(name, r->pattern, pl) == 0 &&
		       strcmp(name + n - sl, r->suffix) == 0;
	}
	return false;
}

/* "uncore_cha_12" -> box "uncore_cha", index 12; "uncore_ubox" -> index -1. */
static int split_box(struct pms_pmu *pmu)
{
	const char *us = strrchr(pmu->name, '_');
	size_t len = strlen(pmu->name);
	pmu->box_index = -1;
	if (us && us[1] && us - pmu->name > 0) {
		const char *d = us + 1;
		while (isdigit((unsigned char)*d))
			d++;
		if (*d == '\0' && d - (us + 1) <= 6) {
			pmu->box_index = atoi(us + 1);
			len = (size_t)(us - pmu->name);
		}
	}
	pmu->box = strndup(pmu->name, len);
	if (!pmu->box)
		return pms_err(PMS_ENOMEM, "out of memory classifying PMU %s", pmu->name);
	return 0;
}

int pms_pmu_classify(struct pms_pmu *pmu)
{
	const struct pmu_rule *r = NULL;

	pmu->kind = PMS_PMU_OTHER;
	pmu->engine = PMS_ENG_NONE;
	pmu->scope = PMS_SCOPE_NONE;
	pmu->box = NULL;
	pmu->box_index = -1;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rule_matches(&rules[i], pmu->name)) {
			r = &rules[i];
			break;
		}
	if (r) {
		pmu->kind = r->kind;
		/* the precise engines' names: the one PMU -> engine rule */
		if (r->kind == PMS_PMU_PRECISE)
			pmu->engine = pms_engine_of_pmu(pmu->name, NULL);
		pmu->scope = r->scope;
	} else if (pmu->has_cpumask && !pmu->has_cpus) {
		/* An unknown driver that names reader CPUs is system-wide (uncore-like);
		 * its scope is not known from the name. */
		pmu->kind = PMS_PMU_UNCORE;
	}
	/* PEBS: the x86 core PMU reports caps/max_precise > 0 (arch/x86/events/core.c
	 * max_precise_show -> x86_pmu_max_precise). */
	if (pmu->kind == PMS_PMU_CORE && pmu->max_precise > 0)
		pmu->engine = PMS_ENG_PEBS;
	if (pmu->kind == PMS_PMU_UNCORE)
		return split_box(pmu);
	return 0;
}
