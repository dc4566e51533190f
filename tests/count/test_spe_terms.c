/* Feature-gated SPE terms (issue 31 row 4) and the PMUv3 threshold hint:
 * FEAT_SPE_EFT's simd_filter/float_filter and *_filter_mask (config:35-42)
 * and FEAT_SPE_FDS's inv_data_src_filter (config4:0-63, the inverse of
 * PMSDSFR_EL1), from the FEAT_SPE_EFT/FDS series for
 * drivers/perf/arm_spe_pmu.c (v5, July 2025): the formats appear only with
 * PMSIDR_EL1.EFT / .FDS; the fake kernel refuses EFT bits without the
 * feature (EOPNOTSUPP, arm_spe_pmu_event_init). */
#include "check.h"
#include "count_helpers.h"
#include "fake_kernel.h"
#include "fake_rules.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/sys.h"

#include <errno.h>
#include <string.h>

static int spe_root(struct ch_root *r)
{
	static const char *const files[][2] = {
		{ "type", "9\n" },
		{ "cpumask", "0-3\n" },
		{ "format/ts_enable", "config:0\n" },
		{ "format/load_filter", "config:33\n" },
		{ "format/branch_filter_mask", "config:35\n" },
		{ "format/load_filter_mask", "config:37\n" },
		{ "format/simd_filter", "config:39\n" },
		{ "format/simd_filter_mask", "config:40\n" },
		{ "format/float_filter", "config:41\n" },
		{ "format/float_filter_mask", "config:42\n" },
		{ "format/event_filter", "config1:0-63\n" },
		{ "format/inv_data_src_filter", "config4:0-63\n" },
	};
	char rel[256];
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "/tmp/pms_speterms_XXXXXX");
	if (!mkdtemp(r->dir))
		return -1;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(rel, sizeof(rel), "sys/bus/event_source/devices/arm_spe_0/%s", files[i][0]);
		ch_put(r, rel, files[i][1]);
	}
	ch_put(r, "sys/devices/system/cpu/online", "0-3\n");
	ch_put(r, "proc/sys/kernel/perf_event_paranoid", "-1\n");
	r->fk = fk_new();
	r->m.paranoid = -1;
	r->m.perfmon = true;
	r->m.spe_type = 9;
	r->m.spe_cpus = 0xf;
	r->m.spe_eft = true;
	fkr_install(r->fk, &r->m);
	o.root = r->dir;
	o.ops = fk_ops(r->fk);
	CHECK_OK(pms_sys_new(&r->sys, &o));
	if (!r->sys)
		return -1;
	CHECK_OK(pms_pmus_load(r->sys, &r->pmus));
	return r->pmus ? 0 : -1;
}

PMS_TEST(spe_eft_and_fds_where_advertised)
{
	struct ch_root r;
	struct pms_event_list *l = NULL;
	if (spe_root(&r) < 0)
		return;
	/* FP ops only, no SIMD ops: float_filter + its mask, simd mask alone */
	CHECK_OK(pms_event_parse(r.pmus,
				 "arm_spe_0/float_filter=1,float_filter_mask=1,simd_filter_mask=1/", &l));
	if (l) {
		struct perf_event_attr a = pms_event_list_at(l, 0)->attr;
		CHECK_EQ_U64(a.config, (1ULL << 41) | (1ULL << 42) | (1ULL << 40));
		int fd = pms_sys_perf_event_open(r.sys, &a, -1, 0, -1, 0, "spe eft");
		CHECK_MSG(fd >= 0, "%s", pms_error_last());
		if (fd >= 0)
			pms_sys_close(r.sys, fd);
		/* the same bits on a CPU without EFT: the driver's EOPNOTSUPP */
		r.m.spe_eft = false;
		CHECK(pms_sys_perf_event_open(r.sys, &a, -1, 0, -1, 0, "spe eft") < 0 &&
		      pms_error_errno() == EOPNOTSUPP);
		r.m.spe_eft = true;
		pms_event_list_free(l);
		l = NULL;
	}
	/* keep data sources 0 and 3: the driver writes PMSDSFR_EL1 =
	 * ~inv_data_src_filter, so the term is ~0x9 in config4 */
	CHECK_OK(pms_event_parse(r.pmus, "arm_spe_0/inv_data_src_filter=0xfffffffffffffff6/", &l));
	if (l) {
		CHECK_EQ_U64(pms_event_list_at(l, 0)->config4, 0xfffffffffffffff6ULL);
		CHECK_EQ_U64(~pms_event_list_at(l, 0)->config4, 0x9);
		char buf[256];
		pms_event_describe(pms_event_list_at(l, 0), buf, sizeof(buf));
		CHECK(strstr(buf, "config4=0xfffffffffffffff6") != NULL);
	}
	pms_event_list_free(l);
	ch_root_close(&r);
}

PMS_TEST(feature_terms_refused_with_the_drivers_reason)
{
	struct ch_root r;
	struct pms_event_list *l = NULL;
	if (ch_root_open(&r, "neoverse-n1-spe", -1, true) < 0)
		return;
	CHECK_EQ_INT(pms_event_parse(r.pmus, "arm_spe_0/simd_filter=1/", &l), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "FEAT_SPE_EFT") != NULL);
	CHECK(strstr(pms_error_last(), "PMSIDR_EL1.EFT") != NULL);
	CHECK_EQ_INT(pms_event_parse(r.pmus, "arm_spe_0/float_filter_mask=1/", &l), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "FEAT_SPE_EFT") != NULL);
	CHECK_EQ_INT(pms_event_parse(r.pmus, "arm_spe_0/inv_data_src_filter=1/", &l), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "FEAT_SPE_FDS") != NULL);
	CHECK_EQ_INT(pms_event_parse(r.pmus, "armv8_pmuv3_0/event=0x11,threshold=2/", &l),
		     PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "FEAT_PMUv3_TH") != NULL);
	/* no hint for a term no driver hides */
	CHECK_EQ_INT(pms_event_parse(r.pmus, "arm_spe_0/bogus=1/", &l), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "FEAT_") == NULL);
	ch_root_close(&r);
}

PMS_TEST_MAIN()
