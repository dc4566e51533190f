/* Overflow (IP) sampling plans on the fake kernel: a generic event on a
 * hybrid machine opens once per core PMU, each on its own CPUs; without a
 * hardware PMU cycles becomes cpu-clock with the reason said; modifiers,
 * period and frequency reach the attr. */
#include "check.h"
#include "sample_helpers.h"

#include "pmuscope/error.h"
#include "pmuscope/sampler.h"

#include <errno.h>

PMS_TEST(hybrid_cycles_one_event_per_core_pmu)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_info info;

	if (th_root_open(&r, "adl-hybrid", "0-15", -1, true) < 0)
		goto out;
	r.m.npebs = 2;
	r.m.pebs[0] = (struct fkr_pebs_pmu){ .type = 4, .max_precise = 3, .cpus = 0x00ff };
	r.m.pebs[1] = (struct fkr_pebs_pmu){ .type = 10, .max_precise = 3, .cpus = 0xff00 };
	/* The rule itself: cpu_atom's cycles on a P-core CPU is ENOENT. */
	{
		struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE };
		a.config = (10ULL << 32) | PERF_COUNT_HW_CPU_CYCLES;
		CHECK_EQ_INT(fk_ops(r.fk)->perf_event_open(r.fk, &a, -1, 0, -1, 0), -ENOENT);
	}
	o.target = PMS_TARGET_CPUS;
	o.event = "cycles:u";
	o.period = 100003;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	pms_sampler_info(s, &info);
	CHECK_EQ_INT(info.engine, PMS_ENG_OVERFLOW);
	CHECK(strstr(info.pmus, "cpu_core") != NULL);
	CHECK(strstr(info.pmus, "cpu_atom") != NULL);
	CHECK(strstr(info.notes, "FALLBACK") == NULL);
	int core = 0, atom = 0, wrong = 0;
	for (int i = 0; i < FK_MAX_FDS; i++) {
		const struct fk_fd *f = &r.fk->fds[i];
		if (!f->used || f->attr.type != PERF_TYPE_HARDWARE)
			continue;
		uint32_t ext = (uint32_t)(f->attr.config >> 32);
		CHECK_EQ_U64(f->attr.config & 0xffffffffu, PERF_COUNT_HW_CPU_CYCLES);
		CHECK_EQ_INT(f->attr.exclude_kernel, 1); /* :u */
		CHECK_EQ_U64(f->attr.sample_period, 100003);
		CHECK_EQ_INT(f->attr.freq, 0);
		CHECK(f->attr.sample_type & PMS_SAMPLE_IP);
		if (ext == 4 && f->cpu >= 0 && f->cpu < 8)
			core++;
		else if (ext == 10 && f->cpu >= 8 && f->cpu < 16)
			atom++;
		else
			wrong++;
	}
	CHECK_EQ_INT(core, 8);
	CHECK_EQ_INT(atom, 8);
	CHECK_EQ_INT(wrong, 0);
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST(no_pmu_cycles_becomes_cpu_clock_with_the_reason)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_info info;
	const struct pms_sampler_attempt *att;
	size_t n = 0;

	if (th_root_open(&r, "vm-nopmu", "0-1", 2, true) < 0)
		goto out;
	o.pid = 5;
	o.event = "cycles";
	o.freq = 999;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	pms_sampler_info(s, &info);
	CHECK_EQ_INT(info.engine, PMS_ENG_OVERFLOW);
	CHECK(strstr(info.notes, "FALLBACK: the kernel refused 'cycles' (ENOENT") != NULL);
	CHECK(strstr(info.notes, "cpu-clock") != NULL);
	att = pms_sampler_attempts(s, &n);
	CHECK(n >= 2);
	if (n >= 2) {
		CHECK_EQ_INT(att[0].err, ENOENT);
		CHECK_EQ_INT(att[n - 1].err, 0);
		CHECK(att[n - 1].chosen);
	}
	int fd = th_fd_of_type(r.fk, PERF_TYPE_SOFTWARE, 0);
	CHECK(fd >= 0);
	if (fd >= 0) {
		const struct perf_event_attr *a = &fk_fd(r.fk, fd)->attr;
		CHECK_EQ_U64(a->config, PERF_COUNT_SW_CPU_CLOCK);
		CHECK_EQ_INT(a->freq, 1);
		CHECK_EQ_U64(a->sample_freq, 999);
	}
	pms_sampler_free(s);
	s = NULL;
	/* --no-fallback: the refusal is the answer */
	o.no_fallback = true;
	CHECK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s) < 0);
	CHECK(s == NULL);
	/* a software event needs no PMU: no fallback, perf's 4000 Hz */
	o.no_fallback = false;
	o.freq = 0;
	o.event = "page-faults";
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (s) {
		pms_sampler_info(s, &info);
		CHECK(strstr(info.notes, "FALLBACK") == NULL);
		fd = th_fd_of_type(r.fk, PERF_TYPE_SOFTWARE, 0);
		CHECK(fd >= 0 && fk_fd(r.fk, fd)->attr.config == PERF_COUNT_SW_PAGE_FAULTS);
		CHECK(fd >= 0 && fk_fd(r.fk, fd)->attr.sample_freq == 4000);
	}
	pms_sampler_free(s);
	s = NULL;
	/* an event that does not parse */
	o.event = "no-such-event-xyz";
	CHECK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s) < 0);
	CHECK(strstr(pms_error_last(), "no-such-event-xyz") != NULL);
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

/* Branch stacks: each vendor's acceptance through the sampler (record -b /
 * -j), and the refusals said before opening. */
static int open_branches(struct th_root *r, int kind, int lbr_nr, bool callstack,
			 const char *event, uint64_t filter, struct pms_sampler **s)
{
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	r->m.npebs = 1;
	r->m.pebs[0] = (struct fkr_pebs_pmu){ .type = 4, .max_precise = 3 };
	r->m.pebs[0].lbr_nr = lbr_nr;
	r->m.pebs[0].branch_kind = kind;
	r->m.pebs[0].lbr_callstack = callstack;
	o.pid = 9;
	o.event = event;
	o.period = 10007;
	o.branch_filter = filter;
	o.no_fallback = true;
	return pms_sampler_open(r->sys, r->pmus, NULL, &o, s);
}

#define BR_U (1ULL << 0)
#define BR_ANY (1ULL << 3)
#define BR_CALL_STACK (1ULL << 11)
#define BR_IN_TX (1ULL << 8)
#define BR_COND (1ULL << 10)

PMS_TEST(branch_stacks_per_vendor)
{
	struct th_root r;
	struct pms_sampler *s = NULL;

	if (th_root_open(&r, "zen4-ibs", "0", -1, true) < 0)
		goto out;
	/* Intel LBR: any ok; call stack only with call-stack LBRs */
	CHECK_OK(open_branches(&r, FKR_BR_INTEL_LBR, 32, false, "cycles", BR_ANY | BR_U, &s));
	if (s) {
		int fd = th_fd_of_type(r.fk, PERF_TYPE_HARDWARE, 0);
		CHECK(fd >= 0 && (fk_fd(r.fk, fd)->attr.sample_type & PMS_SAMPLE_BRANCH_STACK));
		CHECK(fd >= 0 && fk_fd(r.fk, fd)->attr.branch_sample_type == (BR_ANY | BR_U));
	}
	pms_sampler_free(s);
	s = NULL;
	CHECK(open_branches(&r, FKR_BR_INTEL_LBR, 32, false, "cycles", BR_CALL_STACK | BR_U, &s) < 0);
	CHECK_OK(open_branches(&r, FKR_BR_INTEL_LBR, 32, true, "cycles", BR_CALL_STACK | BR_U, &s));
	pms_sampler_free(s);
	s = NULL;
	/* no LBRs at all */
	CHECK(open_branches(&r, FKR_BR_INTEL_LBR, 0, false, "cycles", BR_ANY, &s) < 0);
	/* AMD LbrExtV2: any and cond ok, in_tx and call stack not */
	CHECK_OK(open_branches(&r, FKR_BR_AMD_LBR, 16, false, "cycles", BR_ANY, &s));
	pms_sampler_free(s);
	s = NULL;
	CHECK_OK(open_branches(&r, FKR_BR_AMD_LBR, 16, false, "cycles", BR_COND | BR_U, &s));
	pms_sampler_free(s);
	s = NULL;
	CHECK(open_branches(&r, FKR_BR_AMD_LBR, 16, false, "cycles", BR_ANY | BR_IN_TX, &s) < 0);
	CHECK(open_branches(&r, FKR_BR_AMD_LBR, 16, false, "cycles", BR_CALL_STACK, &s) < 0);
	/* Arm BRBE on the core PMU: any ok; call stack and in_tx excluded;
	 * a branch stack on a software event is refused (BRBE is no PMU of
	 * its own: cpu-clock cannot carry it) */
	CHECK_OK(open_branches(&r, FKR_BR_ARM_BRBE, 64, false, "cycles", BR_ANY, &s));
	pms_sampler_free(s);
	s = NULL;
	CHECK(open_branches(&r, FKR_BR_ARM_BRBE, 64, false, "cycles", BR_ANY | BR_CALL_STACK, &s) < 0);
	CHECK(open_branches(&r, FKR_BR_ARM_BRBE, 64, false, "cycles", BR_ANY | BR_IN_TX, &s) < 0);
	CHECK_EQ_INT(open_branches(&r, FKR_BR_ARM_BRBE, 64, false, "cpu-clock", BR_ANY, &s),
		     PMS_ENOTSUP);
	CHECK(strstr(pms_error_last(), "perf_swevent_init") != NULL);
	/* the kernel's own rule, below the library's check */
	{
		struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE };
		a.config = PERF_COUNT_SW_CPU_CLOCK;
		a.sample_period = 1000;
		a.sample_type = PMS_SAMPLE_BRANCH_STACK;
		a.branch_sample_type = BR_ANY;
		CHECK_EQ_INT(fk_ops(r.fk)->perf_event_open(r.fk, &a, 1, 0, -1, 0), -EOPNOTSUPP);
		a.type = PERF_TYPE_HARDWARE;
		a.config = 0;
		a.branch_sample_type = BR_U; /* no branch type */
		CHECK_EQ_INT(fk_ops(r.fk)->perf_event_open(r.fk, &a, 1, 0, -1, 0), -EINVAL);
	}
	/* IBS memory samples cannot carry one: said before opening */
	{
		struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
		r.m.ibs_op_type = 10;
		r.m.ibs_caps = (1u << 0) | (1u << 4);
		o.pid = 9;
		o.engine = PMS_ENG_IBS;
		o.branch_filter = BR_ANY;
		CHECK_EQ_INT(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s), PMS_ENOTSUP);
		CHECK(strstr(pms_error_last(), "ibs.c") != NULL);
	}
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST(branch_filter_words)
{
	uint64_t v = 0;
	CHECK_OK(pms_branch_filter_parse("any", &v));
	CHECK_EQ_U64(v, BR_ANY);
	CHECK_OK(pms_branch_filter_parse("call,ind_call,u", &v));
	CHECK_EQ_U64(v, (1ULL << 13) | (1ULL << 6) | BR_U);
	CHECK_OK(pms_branch_filter_parse("any_ret,k,save_type", &v));
	CHECK_EQ_U64(v, (1ULL << 5) | (1ULL << 1) | (1ULL << 16));
	CHECK_EQ_INT(pms_branch_filter_parse("u,k", &v), PMS_EINVAL); /* no branch type */
	CHECK_EQ_INT(pms_branch_filter_parse("any,bogus", &v), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "'bogus'") != NULL);
	CHECK_EQ_INT(pms_branch_filter_parse("", &v), PMS_EINVAL);
}

PMS_TEST_MAIN()
