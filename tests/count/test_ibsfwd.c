/* AMD precise events forwarded to IBS op (issue 31 row 1, open side): the
 * library's prediction (src/event/ibsfwd.c) against the fake kernel's AMD
 * core + IBS driver (tests/support/fake_rules_ibs.c fkr_amd_precise, then
 * perf_ibs_init's rules), both written from amd_pmu_hw_config and ibs.c
 * forward_event_to_ibs / perf_ibs_precise_event (v7.1-rc6 :240-258, seed
 * 000) on the Zen 4 fixture. */
#include "check.h"
#include "count_helpers.h"
#include "fake_kernel.h"
#include "fake_rules.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/ibsfwd.h"
#include "pmuscope/sys.h"

#include <errno.h>
#include <string.h>

PMS_TEST(amd_precise_forward_library_equals_kernel)
{
	static const struct {
		const char *ev;
		enum pms_ibs_forward_status st;
		uint64_t config;
		int err;
	} cases[] = {
		{ "cycles:p", PMS_IBS_FWD_FORWARDED, 0, 0 },
		{ "cycles:pp", PMS_IBS_FWD_FORWARDED, 0, 0 },
		{ "cycles:ppp", PMS_IBS_FWD_REFUSED, 0, EOPNOTSUPP },
		{ "instructions:pp", PMS_IBS_FWD_REFUSED, 0, ENOENT },
		{ "L1-dcache-load-misses:p", PMS_IBS_FWD_REFUSED, 0, ENOENT },
		{ "r76:p", PMS_IBS_FWD_FORWARDED, 0, 0 },
		{ "cpu/event=0x76/pp", PMS_IBS_FWD_FORWARDED, 0, 0 },
		{ "rc1:pp", PMS_IBS_FWD_FORWARDED, 1ULL << 19, 0 },
		{ "cpu/event=0xc0/p", PMS_IBS_FWD_REFUSED, 0, ENOENT },
		{ "cycles", PMS_IBS_FWD_NONE, 0, 0 },
	};
	struct ch_root r;
	if (ch_root_open(&r, "zen4-ibs", -1, true) < 0)
		return;
	r.m.ibs_op_type = 10;
	r.m.ibs_caps = FKR_IBS_CAPS_OPCNT | FKR_IBS_CAPS_OPCNTEXT | FKR_IBS_CAPS_ZEN4 |
		       FKR_IBS_CAPS_BIT63_FILTER;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pms_event_list *l = NULL;
		struct pms_ibs_forward fw;
		CHECK_OK(pms_event_parse(r.pmus, cases[i].ev, &l));
		if (!l)
			continue;
		struct perf_event_attr a = pms_event_list_at(l, 0)->attr;
		a.sample_period = 0x10000; /* IBS needs a period (perf_ibs_init) */
		CHECK_OK(pms_event_ibs_forward(r.pmus, &a, &fw));
		CHECK_MSG(fw.status == cases[i].st, "%s: status %d", cases[i].ev, fw.status);
		int fd = pms_sys_perf_event_open(r.sys, &a, 4242, -1, -1, 0, cases[i].ev);
		int kerr = fd < 0 ? pms_error_errno() : 0;
		if (fd >= 0)
			pms_sys_close(r.sys, fd);
		/* the same rule on a recorded attr (the file's core PMU type 4) */
		CHECK_EQ_INT(pms_ibs_attr_forwarded(&a, PERF_TYPE_RAW),
			     fw.status == PMS_IBS_FWD_FORWARDED);
		if (fw.status == PMS_IBS_FWD_FORWARDED) {
			CHECK_EQ_INT(fw.type, 10);
			CHECK_EQ_U64(fw.config, cases[i].config);
			/* the forwarded event then passes IBS's own rules */
			CHECK_MSG(kerr == 0, "%s: fake kernel errno %d", cases[i].ev, kerr);
		} else if (fw.status == PMS_IBS_FWD_REFUSED) {
			CHECK_EQ_INT(fw.kernel_errno, cases[i].err);
			CHECK_MSG(kerr == cases[i].err, "%s: fake kernel errno %d", cases[i].ev, kerr);
		}
		pms_event_list_free(l);
	}
	/* counting cycles:pp on AMD: forwarded, then IBS refuses an event
	 * without a period (perf_ibs_init) */
	struct pms_event_list *l = NULL;
	CHECK_OK(pms_event_parse(r.pmus, "cycles:pp", &l));
	if (l) {
		struct perf_event_attr a = pms_event_list_at(l, 0)->attr;
		CHECK(pms_sys_perf_event_open(r.sys, &a, 4242, -1, -1, 0, "cycles:pp") < 0 &&
		      pms_error_errno() == EINVAL);
	}
	pms_event_list_free(l);
	/* no ibs_op PMU (Intel, ARM fixtures): nothing is forwarded */
	ch_root_close(&r);
	if (ch_root_open(&r, "adl-hybrid", -1, true) < 0)
		return;
	CHECK_OK(pms_event_parse(r.pmus, "cpu_core/cycles/pp", &l));
	if (l) {
		struct pms_ibs_forward fw;
		CHECK_OK(pms_event_ibs_forward(r.pmus, &pms_event_list_at(l, 0)->attr, &fw));
		CHECK_EQ_INT(fw.status, PMS_IBS_FWD_NONE);
	}
	pms_event_list_free(l);
	ch_root_close(&r);
}

PMS_TEST_MAIN()
