/* Arm PMUv3 counter budget against the fake kernel's driver rules
 * (tests/support/fake_rules_armv8.c): the probe reads PMCR_EL0.N, the cycle
 * and instruction counters and chaining through the group check; the
 * library's placement agrees with the fake's for random groups; groups that
 * do not fit are refused, left out or (W) split with the reason; big.LITTLE
 * budgets per core PMU; uncore events on a task count their whole domain. */
#include "check.h"
#include "count_helpers.h"
#include "pmuscope/count.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC (1UL << 3)
#endif

static int eacces_rule(struct fk *fk, const struct perf_event_attr *attr, pid_t pid, int cpu,
		       int group_fd, unsigned long flags)
{
	(void)fk, (void)attr, (void)pid, (void)cpu, (void)group_fd, (void)flags;
	return -EACCES;
}

/* Uncore placement only: accept what the generic checks accept. */
static int accept_rule(struct fk *fk, const struct perf_event_attr *attr, pid_t pid, int cpu,
		       int group_fd, unsigned long flags)
{
	(void)group_fd, (void)flags;
	return fkr_core(fk->rule_ud, attr, pid, cpu);
}

static int n1_open(struct ch_root *r, int n, bool p5, bool icntr)
{
	if (ch_root_open(r, "neoverse-n1-spe", -1, true) < 0)
		return -1;
	r->m.armv8[0] = (struct fkr_armv8_pmu){ 8, n, p5, icntr, 0, 0, FKR_A8_EXTRA_NONE, 0 };
	r->m.narmv8 = 1;
	return 0;
}

static struct pms_counter *count(struct ch_root *r, const char *events, bool skip,
				 struct pms_event_list **l, int *rc)
{
	struct pms_count_opts o = PMS_COUNT_OPTS_INIT;
	struct pms_counter *c = NULL;
	*l = NULL;
	CHECK_OK(pms_event_parse(r->pmus, events, l));
	if (!*l)
		return NULL;
	o.target = PMS_COUNT_CHILD;
	o.pid = 4242;
	o.skip_unsupported = skip;
	*rc = pms_counter_open(r->sys, r->pmus, r->topo, *l, &o, &c);
	return c;
}

PMS_TEST(probe_reads_the_driver)
{
	static const struct {
		int n;
		bool p5, icntr;
	} cases[] = { { 6, false, false }, { 6, true, false }, { 5, false, false },
		      { 20, true, true }, { 1, false, false }, { 31, false, false } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ch_root r;
		struct pms_count_budget b;
		if (n1_open(&r, cases[i].n, cases[i].p5, cases[i].icntr) < 0)
			return;
		r.m.armv8[0].icntr = cases[i].icntr;
		CHECK_OK(pms_count_budget_probe(r.sys, r.pmus, "armv8_pmuv3_0", &b));
		CHECK_EQ_STR(b.pmu, "armv8_pmuv3_0");
		CHECK_EQ_INT(b.general, cases[i].n);
		CHECK(b.cycle_counter);
		CHECK_EQ_INT(b.instr_counter, cases[i].icntr);
		CHECK_EQ_INT(b.chained_long, !cases[i].p5);
		/* every probe fd closed */
		CHECK_EQ_INT(r.fk->nopen, 0);
		/* probes run on the calling thread, user space only */
		for (int k = 0; k < r.fk->nlog; k++) {
			CHECK_EQ_INT(r.fk->log[k].pid, 0);
			CHECK_EQ_INT(r.fk->log[k].cpu, -1);
			CHECK(r.fk->log[k].attr.exclude_kernel);
		}
		ch_root_close(&r);
	}
	{
		struct ch_root r;
		struct pms_count_budget b;
		if (n1_open(&r, 6, false, false) < 0)
			return;
		/* not a PMUv3 PMU */
		CHECK_EQ_INT(pms_count_budget_probe(r.sys, r.pmus, "arm_dsu_0", &b), PMS_ENOTSUP);
		/* a kernel without the group check: no budget claimed */
		r.m.narmv8 = 0;
		r.fk->rule = NULL;
		CHECK_EQ_INT(pms_count_budget_probe(r.sys, r.pmus, "armv8_pmuv3_0", &b), PMS_ENOTSUP);
		/* no privilege: the error says so */
		r.fk->rule = eacces_rule;
		CHECK(pms_count_budget_probe(r.sys, r.pmus, "armv8_pmuv3_0", &b) < 0);
		CHECK(strstr(pms_error_last(), "armv8_pmuv3_0") != NULL);
		ch_root_close(&r);
	}
}

/* Random groups of cycles, instructions, general events, `long` and
 * `rdpmc` variants: pms_count_budget_fit says "fits" exactly when the fake
 * kernel accepts the whole group opened on a task with every member
 * enabled (validate_group counts them all). */
PMS_TEST(fit_agrees_with_the_driver)
{
	unsigned seed = 12345;
	int agree = 0, fits = 0, total = 0;
	for (int machine = 0; machine < 4; machine++) {
		struct ch_root r;
		struct pms_count_budget b;
		const struct pms_sys_ops *ops;
		if (n1_open(&r, machine == 3 ? 3 : 6, machine == 1, machine == 2) < 0)
			return;
		CHECK_OK(pms_count_budget_probe(r.sys, r.pmus, "armv8_pmuv3_0", &b));
		ops = pms_sys_ops(r.sys);
		for (int t = 0; t < 300; t++) {
			struct perf_event_attr a[10];
			const char *names[10];
			int fds[10], n = 2 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 8, opened = 0;
			bool ok = true;
			for (int k = 0; k < n; k++) {
				unsigned x = (seed = seed * 1103515245u + 12345u) >> 16;
				static const uint64_t evs[] = { 0x11, 0x08, 0x03, 0x04, 0x10 };
				memset(&a[k], 0, sizeof(a[k]));
				a[k].size = sizeof(a[k]);
				a[k].type = x % 7 == 0 ? PERF_TYPE_HARDWARE : 8;
				a[k].config = a[k].type == PERF_TYPE_HARDWARE ? x % 2 : evs[x % 5];
				a[k].config1 = (x >> 4) % 3 == 0 ? 1 : 0;
				if ((x >> 6) % 9 == 0)
					a[k].config1 |= 2; /* rdpmc */
				a[k].exclude_kernel = 1;
				names[k] = "e";
			}
			for (int k = 0; k < n && ok; k++) {
				int fd = ops->perf_event_open(ops->ud, &a[k], 4242, -1,
							      k ? fds[0] : -1, PERF_FLAG_FD_CLOEXEC);
				if (fd < 0)
					ok = false;
				else
					fds[opened++] = fd;
			}
			while (opened > 0)
				pms_sys_close(r.sys, fds[--opened]);
			/* the lone-event refusals (EOPNOTSUPP for a 64-bit user
			 * read without long counters) are not about the budget */
			int lone_bad = 0;
			for (int k = 0; k < n; k++)
				if ((a[k].config1 & 3) == 3 && (a[k].type == 8 ? a[k].config != 0x11 : a[k].config != 0) &&
				    !b.chained_long == false)
					lone_bad = 1;
			if (lone_bad)
				continue;
			int fr = pms_count_budget_fit(&b, r.pmus, a, names, (size_t)n);
			total++;
			fits += fr == 0;
			agree += (fr == 0) == ok;
			CHECK_MSG((fr == 0) == ok, "machine %d group %d of %d: fit says %d, kernel %s",
				  machine, t, n, fr, ok ? "accepts" : "refuses");
			if ((fr == 0) != ok)
				for (int k = 0; k < n; k++)
					printf("  type %u config 0x%llx config1 %llu\n", a[k].type,
					       (unsigned long long)a[k].config, (unsigned long long)a[k].config1);
		}
		ch_root_close(&r);
	}
	/* both outcomes were exercised */
	CHECK(fits > 20 && total - fits > 20);
	printf("fit vs fake driver: %d/%d agree, %d fit\n", agree, total, fits);
}

PMS_TEST(refused_skipped_or_split)
{
	struct ch_root r;
	struct pms_event_list *l;
	struct pms_counter *c;
	struct pms_count_row *rows;
	size_t n;
	int rc;
	char why[1024];
	if (n1_open(&r, 6, false, false) < 0)
		return;
	/* cycles takes the cycle counter, six general events fit N = 6 */
	c = count(&r, "{cycles:u,r3:u,r4:u,r5:u,r6:u,r7:u,r8:u}", false, &l, &rc);
	CHECK_MSG(rc == 0, "%s", pms_error_last());
	CHECK_EQ_INT(pms_counter_ninstances(c), 7);
	CHECK_EQ_INT(pms_counter_nbudgets(c), 1);
	if (pms_counter_nbudgets(c))
		CHECK_EQ_INT(pms_counter_budget(c, 0)->general, 6);
	pms_counter_free(c);
	pms_event_list_free(l);
	/* one more general event: refused before opening, with the numbers */
	int nlog0 = r.fk->nlog;
	c = count(&r, "{cycles:u,r3:u,r4:u,r5:u,r6:u,r7:u,r8:u,r9:u}", false, &l, &rc);
	CHECK(c == NULL);
	CHECK_EQ_INT(rc, PMS_ERANGE);
	CHECK(strstr(pms_error_last(), "cannot be scheduled on armv8_pmuv3_0") != NULL);
	CHECK(strstr(pms_error_last(), "need 7 general counters plus the cycle counter") != NULL);
	CHECK(strstr(pms_error_last(), "has 6 (PMCR_EL0.N") != NULL);
	CHECK(strstr(pms_error_last(), "r9:u did not fit") != NULL);
	for (int k = nlog0; k < r.fk->nlog; k++)
		CHECK(r.fk->log[k].pid == 0); /* only probes: nothing opened for the task */
	CHECK_EQ_INT(r.fk->nopen, 0);
	pms_event_list_free(l);
	/* 64-bit events chain pairs before PMUv3p5: three fit, four do not */
	c = count(&r, "{armv8_pmuv3_0/event=0x3,long/u,armv8_pmuv3_0/event=0x4,long/u,"
		      "armv8_pmuv3_0/event=0x5,long/u}", false, &l, &rc);
	CHECK_MSG(rc == 0, "%s", pms_error_last());
	pms_counter_free(c);
	pms_event_list_free(l);
	c = count(&r, "{armv8_pmuv3_0/event=0x3,long/u,armv8_pmuv3_0/event=0x4,long/u,"
		      "armv8_pmuv3_0/event=0x5,long/u,armv8_pmuv3_0/event=0x6,long/u}", false, &l, &rc);
	CHECK_EQ_INT(rc, PMS_ERANGE);
	CHECK(strstr(pms_error_last(), "need 8 general counters") != NULL);
	CHECK(strstr(pms_error_last(), "two chained counters") != NULL);
	pms_event_list_free(l);
	/* skip_unsupported (stat's default): the group's rows say why, the
	 * lone event still counts */
	c = count(&r, "page-faults:u,{cycles:u,r3:u,r4:u,r5:u,r6:u,r7:u,r8:u,r9:u}", true, &l, &rc);
	CHECK_MSG(rc == 0, "%s", pms_error_last());
	if (c) {
		CHECK_EQ_INT(pms_counter_unsupported(c, why, sizeof(why)), 8);
		CHECK(strstr(why, "cannot be scheduled") != NULL);
		CHECK_EQ_INT(pms_counter_ninstances(c), 1);
		CHECK_OK(pms_counter_rows(c, PMS_AGG_GLOBAL, &rows, &n));
		CHECK_EQ_INT(n, 9);
		if (n == 9) {
			CHECK(rows[0].unsupported == NULL);
			CHECK(rows[8].unsupported && strstr(rows[8].unsupported, "PMCR_EL0.N"));
		}
		pms_count_rows_free(rows);
	}
	pms_counter_free(c);
	pms_event_list_free(l);
	/* weak group: split into lone events (multiplexed by the kernel) */
	c = count(&r, "{cycles:u,r3:u,r4:u,r5:u,r6:u,r7:u,r8:u,r9:u}:W", false, &l, &rc);
	CHECK_MSG(rc == 0, "%s", pms_error_last());
	if (c) {
		CHECK_EQ_INT(pms_counter_ninstances(c), 8);
		CHECK_EQ_INT(pms_counter_split_groups(c, why, sizeof(why)), 1);
		CHECK(strstr(why, "cannot be scheduled") != NULL);
		for (size_t i = 0; i < pms_counter_ninstances(c); i++)
			CHECK_EQ_INT(pms_counter_instance(c, i)->group_slot, (int)i);
		/* lone events: each opened without a group_fd */
		for (int k = r.fk->nlog - 8; k < r.fk->nlog; k++)
			CHECK_EQ_INT(r.fk->log[k].group_fd, -1);
	}
	pms_counter_free(c);
	pms_event_list_free(l);
	/* a weak group that fits stays one group */
	c = count(&r, "{cycles:u,r3:u}:W", false, &l, &rc);
	CHECK_MSG(rc == 0, "%s", pms_error_last());
	CHECK_EQ_INT(pms_counter_split_groups(c, NULL, 0), 0);
	CHECK_EQ_INT(r.fk->log[r.fk->nlog - 1].group_fd, r.fk->log[r.fk->nlog - 2].result);
	pms_counter_free(c);
	pms_event_list_free(l);
	/* with PMUv3p5 long events take one counter: four fit */
	ch_root_close(&r);
	if (n1_open(&r, 6, true, false) < 0)
		return;
	c = count(&r, "{armv8_pmuv3_0/event=0x3,long/u,armv8_pmuv3_0/event=0x4,long/u,"
		      "armv8_pmuv3_0/event=0x5,long/u,armv8_pmuv3_0/event=0x6,long/u}", false, &l, &rc);
	CHECK_MSG(rc == 0, "%s", pms_error_last());
	pms_counter_free(c);
	pms_event_list_free(l);
	ch_root_close(&r);
}

/* big.LITTLE: a generic group expands to one group per core PMU, each
 * checked against its own PMU's counters. */
PMS_TEST(big_little_per_pmu)
{
	struct ch_root r;
	struct pms_event_list *l;
	struct pms_counter *c;
	struct pms_count_row *rows;
	size_t n;
	int rc;
	if (ch_root_open(&r, "arm-biglittle", -1, true) < 0)
		return;
	r.m.armv8[0] = (struct fkr_armv8_pmu){ 8, 6, false, false, 0x0f, 0, FKR_A8_EXTRA_NONE, 0 }; /* cortex_a53 */
	r.m.armv8[1] = (struct fkr_armv8_pmu){ 9, 4, false, false, 0x30, 0, FKR_A8_EXTRA_NONE, 0 }; /* cortex_a72 */
	r.m.narmv8 = 2;
	c = count(&r, "{cycles:u,instructions:u,cache-references:u,cache-misses:u,branch-misses:u,"
		      "bus-cycles:u}", true, &l, &rc);
	CHECK_MSG(rc == 0, "%s", pms_error_last());
	if (c) {
		char why[1024];
		CHECK_EQ_INT(pms_counter_nbudgets(c), 2);
		for (size_t i = 0; i < pms_counter_nbudgets(c); i++) {
			const struct pms_count_budget *b = pms_counter_budget(c, i);
			CHECK_EQ_INT(b->general, strcmp(b->pmu, "armv8_cortex_a53") ? 4 : 6);
		}
		/* five general events: fit the A53's 6, not the A72's 4 */
		CHECK(pms_counter_unsupported(c, why, sizeof(why)) > 0);
		CHECK(strstr(why, "armv8_cortex_a72") != NULL);
		CHECK_EQ_INT(pms_counter_ninstances(c), 6);
		for (size_t i = 0; i < pms_counter_ninstances(c); i++) {
			const struct pms_count_instance *in = pms_counter_instance(c, i);
			CHECK_EQ_STR(pms_event_list_at(l, in->event)->pmu, "armv8_cortex_a53");
		}
		CHECK_OK(pms_counter_rows(c, PMS_AGG_CORE_TYPE, &rows, &n));
		for (size_t i = 0; i < n; i++)
			if (rows[i].type_name && !strcmp(rows[i].type_name, "armv8_cortex_a72"))
				CHECK(rows[i].unsupported != NULL);
		pms_count_rows_free(rows);
	}
	pms_counter_free(c);
	pms_event_list_free(l);
	ch_root_close(&r);
}

/* Uncore events on a task count their whole domain: the counter says
 * which; on CPUs nothing is said. */
PMS_TEST(uncore_whole_domain)
{
	struct ch_root r;
	struct pms_event_list *l = NULL;
	struct pms_counter *c = NULL;
	struct pms_count_opts o = PMS_COUNT_OPTS_INIT;
	struct pms_cpuset set = { 0 };
	char buf[256];
	if (ch_root_open(&r, "gnr-snc3", 2, true) < 0)
		return;
	if (!r.topo) {
		CHECK(!"gnr-snc3 topology");
		ch_root_close(&r);
		return;
	}
	r.fk->rule = accept_rule;
	CHECK_OK(pms_event_parse(r.pmus, "uncore_imc/config=0x1/,page-faults", &l));
	o.target = PMS_COUNT_CHILD;
	o.pid = 4242;
	CHECK_OK(pms_counter_open(r.sys, r.pmus, r.topo, l, &o, &c));
	CHECK_EQ_INT(pms_counter_whole_domain(c, buf, sizeof(buf)), 1);
	CHECK_EQ_STR(buf, "uncore_imc/config=0x1/");
	pms_counter_free(c);
	c = NULL;
	o.target = PMS_COUNT_CPUS;
	CHECK_OK(pms_cpuset_parse_list(&set, "0"));
	o.cpus = &set;
	CHECK_OK(pms_counter_open(r.sys, r.pmus, r.topo, l, &o, &c));
	CHECK_EQ_INT(pms_counter_whole_domain(c, buf, sizeof(buf)), 0);
	CHECK_EQ_STR(buf, "");
	pms_counter_free(c);
	pms_event_list_free(l);
	pms_cpuset_fini(&set);
	ch_root_close(&r);
}

PMS_TEST_MAIN()
