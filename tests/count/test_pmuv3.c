/* Arm PMUv3 driver rules in the library (src/catalog/pmuv3.c) against the
 * fake kernel's PMUv3 driver (tests/support/fake_rules_armv8.c), each written
 * from drivers/perf/arm_pmuv3.c (v6.12; v7.1-rc6 lines per seed 004):
 *  - generic events: armv8_pmuv3_perf_map / _cache_map, PMCEID gating
 *    (__armv8_pmuv3_map_event, :1275-1300), the branch-instructions
 *    BR_RETIRED -> PC_WRITE_RETIRED fallback (:1198-1214), the a53/a57
 *    extra cache maps (:45-160);
 *  - FEAT_PMUv3_TH: threshold/threshold_compare/threshold_count in config1
 *    (:311-360), EINVAL above caps/threshold_max (:1142-1152). */
#include "check.h"
#include "count_helpers.h"
#include "fake_kernel.h"
#include "fake_rules.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/pmu.h"
#include "pmuscope/pmuv3.h"
#include "pmuscope/sys.h"

#include <errno.h>
#include <string.h>

/* The PMCEID bits the fixture's events/ does not show (the driver shows a
 * common event there only when PMCEID has it). */
static uint64_t absent_from_events(const struct pms_pmu *p)
{
	uint64_t absent = 0;
	for (int ev = 0; ev < 0x40; ev++)
		if (!pms_pmu_lists_code(p, (uint64_t)ev))
			absent |= 1ULL << ev;
	return absent;
}

/* Every generic hardware and cache event (and two out of range): the
 * library's prediction and the fake driver agree, and an open through the
 * fake kernel succeeds exactly where the library says it maps. */
static void agree_on(struct ch_root *r, const struct pms_pmu *p, const struct fkr_armv8_pmu *fp,
		     int *mapped, int *refused)
{
	struct perf_event_attr a;
	/* hardware 0..PERF_COUNT_HW_MAX, then every cache/op/result triple
	 * including one past each enum */
	uint32_t n = PERF_COUNT_HW_MAX + 1 + (PERF_COUNT_HW_CACHE_MAX + 1) *
						   (PERF_COUNT_HW_CACHE_OP_MAX + 1) *
						   (PERF_COUNT_HW_CACHE_RESULT_MAX + 1);
	for (uint32_t i = 0; i < n; i++) {
		int kind = i > PERF_COUNT_HW_MAX;
		uint32_t c = i;
		if (kind) {
			uint32_t k = i - (PERF_COUNT_HW_MAX + 1);
			uint32_t nres = PERF_COUNT_HW_CACHE_RESULT_MAX + 1,
				 nop = PERF_COUNT_HW_CACHE_OP_MAX + 1;
			c = (k / (nres * nop)) | ((k / nres) % nop) << 8 | (k % nres) << 16;
		}
		{
			struct pms_pmuv3_mapping m;
			memset(&a, 0, sizeof(a));
			a.size = sizeof(a);
			a.type = kind == 0 ? PERF_TYPE_HARDWARE : PERF_TYPE_HW_CACHE;
			a.config = c | ((uint64_t)p->type << PMS_PMU_TYPE_SHIFT);
			CHECK_OK(pms_pmuv3_map_generic(p, a.type, a.config, &m));
			int want = fkr_armv8_event(fp, &a);
			int fd = pms_sys_perf_event_open(r->sys, &a, 4242, -1, -1, 0, "pmuv3 generic");
			if (want >= 0) {
				CHECK_MSG(m.status == PMS_PMUV3_MAPPED && m.event == want,
					  "%s type %u config 0x%x: library %d/0x%x, driver 0x%x", p->name,
					  a.type, c, m.status, m.event, want);
				CHECK_MSG(fd >= 0, "%s type %u config 0x%x: %s", p->name, a.type, c,
					  pms_error_last());
				(*mapped)++;
			} else {
				CHECK_MSG(m.status == PMS_PMUV3_UNSUPPORTED && m.kernel_errno == -want,
					  "%s type %u config 0x%x: library %d errno %d, driver %d", p->name,
					  a.type, c, m.status, m.kernel_errno, want);
				CHECK(fd < 0 && pms_error_errno() == -want);
				(*refused)++;
			}
			if (fd >= 0)
				pms_sys_close(r->sys, fd);
		}
	}
}

PMS_TEST(pmuv3_generic_biglittle)
{
	struct ch_root r;
	int mapped = 0, refused = 0;
	if (ch_root_open(&r, "arm-biglittle", -1, true) < 0)
		return;
	const struct pms_pmu *a53 = pms_pmu_find(r.pmus, "armv8_cortex_a53");
	const struct pms_pmu *a72 = pms_pmu_find(r.pmus, "armv8_cortex_a72");
	CHECK(a53 && a72);
	if (!a53 || !a72)
		goto out;
	r.m.armv8[0] = (struct fkr_armv8_pmu){ 8, 6, false, false, 0x0f, absent_from_events(a53),
					       FKR_A8_EXTRA_A53, 0 };
	r.m.armv8[1] = (struct fkr_armv8_pmu){ 9, 6, false, false, 0x30, absent_from_events(a72),
					       FKR_A8_EXTRA_A57, 0 };
	r.m.narmv8 = 2;
	agree_on(&r, a53, &r.m.armv8[0], &mapped, &refused);
	agree_on(&r, a72, &r.m.armv8[1], &mapped, &refused);
	CHECK(mapped > 10 && refused > 10);

	/* the fallback the seed names: these cores lack BR_RETIRED */
	struct pms_pmuv3_mapping m;
	CHECK_OK(pms_pmuv3_map_generic(a53, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, &m));
	CHECK_EQ_INT(m.status, PMS_PMUV3_MAPPED);
	CHECK_EQ_INT(m.event, 0x0c);
	CHECK_EQ_STR(m.event_name, "PC_WRITE_RETIRED");
	CHECK(m.pmceid_known);
	/* the A53 extra cache map: L1D prefetch miss = 0xc2 (PREF_LINEFILL) */
	CHECK_OK(pms_pmuv3_map_generic(a53, PERF_TYPE_HW_CACHE,
				       PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_PREFETCH << 8 |
					       PERF_COUNT_HW_CACHE_RESULT_MISS << 16, &m));
	CHECK_EQ_INT(m.event, 0xc2);
	CHECK_EQ_STR(m.rule, "armv8_a53_perf_cache_map");
	/* ref-cycles: not in armv8_pmuv3_perf_map, ENOENT */
	CHECK_OK(pms_pmuv3_map_generic(a72, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, &m));
	CHECK_EQ_INT(m.status, PMS_PMUV3_UNSUPPORTED);
	CHECK_EQ_INT(m.kernel_errno, ENOENT);
out:
	ch_root_close(&r);
}

PMS_TEST(pmuv3_generic_n1)
{
	struct ch_root r;
	int mapped = 0, refused = 0;
	if (ch_root_open(&r, "neoverse-n1-spe", -1, true) < 0)
		return;
	const struct pms_pmu *p = pms_pmu_find(r.pmus, "armv8_pmuv3_0");
	CHECK(p != NULL);
	if (!p)
		goto out;
	r.m.armv8[0] = (struct fkr_armv8_pmu){ 8, 6, true, false, 0, absent_from_events(p),
					       FKR_A8_EXTRA_NONE, 0 };
	r.m.narmv8 = 1;
	agree_on(&r, p, &r.m.armv8[0], &mapped, &refused);
	CHECK(mapped > 5 && refused > 10);
	struct pms_pmuv3_mapping m;
	CHECK_OK(pms_pmuv3_map_generic(p, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, &m));
	CHECK_EQ_INT(m.event, 0x21);
	CHECK_EQ_STR(m.event_name, "BR_RETIRED");
	/* not a PMUv3 PMU, not a generic type: nothing to say */
	CHECK_OK(pms_pmuv3_map_generic(pms_pmu_find(r.pmus, "arm_spe_0"), PERF_TYPE_HARDWARE, 0, &m));
	CHECK_EQ_INT(m.status, PMS_PMUV3_NOT_GENERIC);
	CHECK_OK(pms_pmuv3_map_generic(p, PERF_TYPE_RAW, 0x11, &m));
	CHECK_EQ_INT(m.status, PMS_PMUV3_NOT_GENERIC);
out:
	ch_root_close(&r);
}

/* A PMUv3 PMU with the threshold format of Linux 6.9+ and caps/threshold_max
 * (written into a scratch root over the N1 fixture's other files). */
static int th_root(struct ch_root *r, const char *max)
{
	static const char *const files[][2] = {
		{ "type", "8\n" },
		{ "cpus", "0-3\n" },
		{ "format/event", "config:0-15\n" },
		{ "format/long", "config1:0\n" },
		{ "format/rdpmc", "config1:1\n" },
		{ "format/threshold_count", "config1:2\n" },
		{ "format/threshold_compare", "config1:3-4\n" },
		{ "format/threshold", "config1:5-16\n" },
		{ "events/cpu_cycles", "event=0x0011\n" },
		{ "events/stall_slot", "event=0x003f\n" },
	};
	char rel[256];
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "/tmp/pms_pmuv3_XXXXXX");
	if (!mkdtemp(r->dir))
		return -1;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(rel, sizeof(rel), "sys/bus/event_source/devices/armv9_pmuv3_th/%s",
			 files[i][0]);
		ch_put(r, rel, files[i][1]);
	}
	if (max)
		ch_put(r, "sys/bus/event_source/devices/armv9_pmuv3_th/caps/threshold_max", max);
	ch_put(r, "sys/devices/system/cpu/online", "0-3\n");
	ch_put(r, "proc/sys/kernel/perf_event_paranoid", "-1\n");
	r->fk = fk_new();
	r->m.paranoid = -1;
	r->m.perfmon = true;
	fkr_install(r->fk, &r->m);
	o.root = r->dir;
	o.ops = fk_ops(r->fk);
	CHECK_OK(pms_sys_new(&r->sys, &o));
	if (!r->sys)
		return -1;
	CHECK_OK(pms_pmus_load(r->sys, &r->pmus));
	return r->pmus ? 0 : -1;
}

PMS_TEST(pmuv3_threshold)
{
	struct ch_root r;
	struct pms_event_list *l = NULL;
	struct pms_pmuv3_threshold th;
	if (th_root(&r, "0x000000ff\n") < 0)
		return;
	const struct pms_pmu *p = pms_pmu_find(r.pmus, "armv9_pmuv3_th");
	CHECK(p && pms_pmu_is_pmuv3(p));
	r.m.armv8[0] = (struct fkr_armv8_pmu){ 8, 6, true, false, 0, 0, FKR_A8_EXTRA_NONE, 0xff };
	r.m.narmv8 = 1;

	/* threshold 5, compare greater-or-equal (2), count 1 */
	CHECK_OK(pms_event_parse(r.pmus,
				 "armv9_pmuv3_th/event=0x3f,threshold=5,threshold_compare=2,threshold_count=1/",
				 &l));
	if (l) {
		struct perf_event_attr attr = pms_event_list_at(l, 0)->attr, *a = &attr;
		CHECK_EQ_U64(a->config1, (1u << 2) | (2u << 3) | (5u << 5));
		CHECK_OK(pms_pmuv3_threshold(p, a, &th));
		CHECK(th.applied);
		CHECK_EQ_INT(th.threshold, 5);
		CHECK_EQ_INT(th.max, 255);
		CHECK_EQ_STR(pms_pmuv3_compare_name(th.compare), "greater-or-equal");
		/* PMEVTYPER.TH = 43:32, TC = 63:61 with TC = compare << 1 | count */
		CHECK_EQ_U64(th.evtyper_bits, (5ULL << 32) | (5ULL << 61));
		int fd = pms_sys_perf_event_open(r.sys, a, 4242, -1, -1, 0, "threshold");
		CHECK_MSG(fd >= 0, "%s", pms_error_last());
		if (fd >= 0)
			pms_sys_close(r.sys, fd);
		pms_event_list_free(l);
		l = NULL;
	}
	/* the cap itself is accepted; one past it is the driver's EINVAL */
	CHECK_OK(pms_event_parse(r.pmus, "armv9_pmuv3_th/event=0x3f,threshold=255/", &l));
	pms_event_list_free(l);
	l = NULL;
	CHECK_EQ_INT(pms_event_parse(r.pmus, "armv9_pmuv3_th/event=0x3f,threshold=256/", &l),
		     PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "threshold_max=255") != NULL);
	CHECK(strstr(pms_error_last(), "exceeds max value") != NULL);
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = 8;
	a.config = 0x3f;
	a.config1 = 256u << 5;
	CHECK(pms_sys_perf_event_open(r.sys, &a, 4242, -1, -1, 0, "threshold") < 0 &&
	      pms_error_errno() == EINVAL);
	/* compare/count without a threshold: the driver writes no TH/TC */
	CHECK_OK(pms_event_parse(r.pmus, "armv9_pmuv3_th/event=0x3f,threshold_compare=1/", &l));
	if (l) {
		struct perf_event_attr attr = pms_event_list_at(l, 0)->attr;
		CHECK_OK(pms_pmuv3_threshold(p, &attr, &th));
		CHECK(!th.applied);
		CHECK_EQ_U64(th.evtyper_bits, 0);
	}
	pms_event_list_free(l);
	ch_root_close(&r);

	/* no FEAT_PMUv3_TH: threshold_max 0, any threshold is EINVAL */
	if (th_root(&r, "0x00000000\n") < 0)
		return;
	r.m.armv8[0] = (struct fkr_armv8_pmu){ 8, 6, true, false, 0, 0, FKR_A8_EXTRA_NONE, 0 };
	r.m.narmv8 = 1;
	l = NULL;
	CHECK_EQ_INT(pms_event_parse(r.pmus, "armv9_pmuv3_th/event=0x3f,threshold=1/", &l),
		     PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "no FEAT_PMUv3_TH") != NULL);
	a.config1 = 1u << 5;
	CHECK(pms_sys_perf_event_open(r.sys, &a, 4242, -1, -1, 0, "threshold") < 0 &&
	      pms_error_errno() == EINVAL);
	ch_root_close(&r);
}

PMS_TEST_MAIN()
