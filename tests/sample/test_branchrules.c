/* Branch-stack acceptance in the library (src/event/branchrules.c, issue
 * 31 row 3) against the fake kernel's driver rules (tests/support/
 * fake_rules_branch.c, written separately from the same sources: intel/
 * core.c + intel/lbr.c, amd/lbr.c v6.12, drivers/perf/arm_brbe.c
 * brbe_branch_attr_valid as merged in 6.17): every single filter bit and
 * every pair, with each privilege exclusion, on each vendor, with and
 * without records; the BRBE type sets of prepare_event_branch_type_mask;
 * the hardware of the fixture machines' core PMUs. */
#include "check.h"
#include "sample_helpers.h"

#include "pmuscope/branchrules.h"
#include "pmuscope/error.h"
#include "pmuscope/sampler.h"

#include <errno.h>
#include <string.h>

PMS_TEST(library_equals_fake_driver_rules)
{
	static const struct {
		enum pms_branch_hw hw;
		int fk;
	} kinds[] = { { PMS_BRHW_INTEL_LBR, FKR_BR_INTEL_LBR },
		      { PMS_BRHW_AMD_LBR, FKR_BR_AMD_LBR },
		      { PMS_BRHW_ARM_BRBE, FKR_BR_ARM_BRBE } };
	struct fkr_machine m;
	size_t n = 0, refused = 0;
	memset(&m, 0, sizeof(m));
	for (size_t k = 0; k < 3; k++)
		for (int rec = 0; rec <= 32; rec += 32)
			for (int cs = 0; cs < 2; cs++)
				for (int a = 0; a < 20; a++)
					for (int b = a; b < 20; b++)
						for (int ex = 0; ex < 8; ex++) {
			struct fkr_pebs_pmu p;
			struct perf_event_attr at;
			struct pms_branch_hwinfo hw = { kinds[k].hw, rec, cs };
			const char *why = NULL;
			memset(&p, 0, sizeof(p));
			p.lbr_nr = rec;
			p.branch_kind = kinds[k].fk;
			p.lbr_callstack = cs;
			memset(&at, 0, sizeof(at));
			at.size = sizeof(at);
			at.sample_period = ex & 4 ? 0 : 1000;
			at.branch_sample_type = (1ULL << a) | (1ULL << b);
			at.exclude_user = ex & 1;
			at.exclude_kernel = (ex & 2) != 0;
			int lib = pms_branch_attr_check(&hw, &at, &why);
			int fk = -fkr_branch(&m, &p, &at);
			CHECK_MSG(lib == fk, "kind %zu rec %d cs %d bits %d,%d ex %d: library %d, fake %d",
				  k, rec, cs, a, b, ex, lib, fk);
			CHECK(lib == 0 || why != NULL);
			n++;
			refused += lib != 0;
		}
	CHECK(n > 10000 && refused > 0 && refused < n);
	/* exclude_host: BRBE refuses it */
	{
		struct perf_event_attr at = { .size = sizeof(at), .sample_period = 1 };
		struct pms_branch_hwinfo hw = { PMS_BRHW_ARM_BRBE, 64, 0 };
		at.branch_sample_type = 1ULL << 3;
		at.exclude_host = 1;
		CHECK_EQ_INT(pms_branch_attr_check(&hw, &at, NULL), EOPNOTSUPP);
		struct fkr_pebs_pmu p = { 0 };
		p.lbr_nr = 64;
		p.branch_kind = FKR_BR_ARM_BRBE;
		CHECK_EQ_INT(fkr_branch(&m, &p, &at), -EOPNOTSUPP);
	}
}

/* arm_brbe.c prepare_event_branch_type_mask */
PMS_TEST(brbe_branch_types_per_filter)
{
#define T(x) (1ULL << (x))
	const uint64_t all = T(PERF_BR_COND) | T(PERF_BR_UNCOND) | T(PERF_BR_IND) |
			     T(PERF_BR_CALL) | T(PERF_BR_IND_CALL) | T(PERF_BR_RET);
	const uint64_t kern = T(PERF_BR_SYSCALL) | T(PERF_BR_IRQ) | T(PERF_BR_SERROR) |
			      T(PERF_BR_MAX + PERF_BR_NEW_FAULT_ALGN) |
			      T(PERF_BR_MAX + PERF_BR_NEW_FAULT_DATA) |
			      T(PERF_BR_MAX + PERF_BR_NEW_FAULT_INST);
	const uint64_t U = T(0), K = T(1), ANY = T(3), ANY_CALL = T(4), ANY_RET = T(5),
		       COND = T(10), IND_JUMP = T(12);
	CHECK_EQ_U64(pms_brbe_branch_types(ANY | U), all);
	CHECK_EQ_U64(pms_brbe_branch_types(ANY | U | K), all | kern | T(PERF_BR_ERET));
	CHECK_EQ_U64(pms_brbe_branch_types(ANY_CALL | U), T(PERF_BR_CALL) | T(PERF_BR_IND_CALL));
	CHECK_EQ_U64(pms_brbe_branch_types(ANY_CALL | K),
		     kern | T(PERF_BR_CALL) | T(PERF_BR_IND_CALL));
	CHECK_EQ_U64(pms_brbe_branch_types(ANY_RET | K), T(PERF_BR_RET) | T(PERF_BR_ERET));
	CHECK_EQ_U64(pms_brbe_branch_types(COND | IND_JUMP | U), T(PERF_BR_COND) | T(PERF_BR_IND));
#undef T
}

PMS_TEST(branch_hardware_of_the_fixture_pmus)
{
	static const struct {
		const char *machine, *pmu, *vendor;
		enum pms_branch_hw hw;
		int records;
	} cases[] = {
		{ "zen4-ibs", "cpu", "AuthenticAMD", PMS_BRHW_AMD_LBR, 16 },
		{ "adl-hybrid", "cpu_core", "GenuineIntel", PMS_BRHW_INTEL_LBR, 32 },
		{ "neoverse-n1-spe", "armv8_pmuv3_0", NULL, PMS_BRHW_ARM_BRBE, -1 },
		{ "neoverse-n1-spe", "arm_spe_0", NULL, PMS_BRHW_NONE, -1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct th_root r;
		struct pms_branch_hwinfo hw;
		if (th_root_open(&r, cases[i].machine, "0", -1, true) < 0)
			continue;
		pms_branch_hw_of_pmu(pms_pmu_find(r.pmus, cases[i].pmu), cases[i].vendor, &hw);
		CHECK_MSG(hw.hw == cases[i].hw, "%s %s: %d", cases[i].machine, cases[i].pmu, hw.hw);
		CHECK_EQ_INT(hw.records, cases[i].records);
		th_root_close(&r);
	}
}

/* The sampler says the BRBE refusal before opening (callgraph.c). */
PMS_TEST(sampler_refuses_brbe_filters_with_the_driver_reason)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	if (th_root_open(&r, "neoverse-n1-spe", "0", -1, true) < 0)
		return;
	r.m.narmv8 = 1;
	r.m.armv8[0] = (struct fkr_armv8_pmu){ .type = 8, .pmcr_n = 6 };
	o.pid = 9;
	o.event = "armv8_pmuv3_0/cpu_cycles/";
	o.period = 10007;
	o.no_fallback = true;
	o.branch_filter = (1ULL << 3) | (1ULL << 11); /* any, call stack */
	CHECK_EQ_INT(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s), PMS_ENOTSUP);
	CHECK_MSG(strstr(pms_error_last(), "brbe_branch_attr_valid") != NULL, "%s", pms_error_last());
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST_MAIN()
