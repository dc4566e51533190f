/* Counting against the fake kernel: placement (task, CPUs, hybrid, SNC
 * uncore boxes), read layouts, multiplexing scaling, strict mode,
 * unschedulable groups, aggregation, and errno -> message rows. */
#include "check.h"
#include "count_helpers.h"
#include "pmuscope/count.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Accept what the generic kernel checks accept (paranoid, capabilities:
 * fkr_core) for any PMU type: these tests are about placement and reads. */
static int accept_rule(struct fk *fk, const struct perf_event_attr *attr, pid_t pid, int cpu,
		       int group_fd, unsigned long flags)
{
	struct fkr_machine *m = fk->rule_ud;
	int r = fkr_core(m, attr, pid, cpu);
	(void)group_fd;
	(void)flags;
	/* find_get_context(): CPU-wide needs perf_allow_cpu(). */
	if (r == 0 && pid == -1 && m->paranoid > 0 && !m->perfmon)
		r = -EACCES;
	return r;
}

static int fixed_errno;
static int errno_rule(struct fk *fk, const struct perf_event_attr *attr, pid_t pid, int cpu,
		      int group_fd, unsigned long flags)
{
	(void)fk;
	(void)attr;
	(void)pid;
	(void)cpu;
	(void)group_fd;
	(void)flags;
	return -fixed_errno;
}

static void script_one(struct fk *fk, int fd, uint64_t value, uint64_t te, uint64_t tr)
{
	struct fk_fd *f = fk_fd(fk, fd);
	uint64_t v[3] = { value, te, tr };
	if (!f)
		return;
	memcpy(f->read_data, v, sizeof(v));
	f->read_len = sizeof(v);
}

static void script_group(struct fk *fk, int fd, uint64_t te, uint64_t tr, const uint64_t *vals,
			 size_t n)
{
	struct fk_fd *f = fk_fd(fk, fd);
	uint64_t v[32];
	v[0] = n;
	v[1] = te;
	v[2] = tr;
	memcpy(v + 3, vals, n * sizeof(uint64_t));
	memcpy(f->read_data, v, (3 + n) * sizeof(uint64_t));
	f->read_len = (3 + n) * sizeof(uint64_t);
}

static struct pms_counter *open_count(struct ch_root *r, const char *events,
				      enum pms_count_target target, const char *cpus,
				      bool strict, struct pms_event_list **list)
{
	struct pms_count_opts o = PMS_COUNT_OPTS_INIT;
	struct pms_counter *c = NULL;
	struct pms_cpuset set = { 0 };
	int rc;
	*list = NULL;
	CHECK_OK(pms_event_parse(r->pmus, events, list));
	if (!*list)
		return NULL;
	o.target = target;
	o.pid = 4242;
	o.strict = strict;
	if (cpus) {
		CHECK_OK(pms_cpuset_parse_list(&set, cpus));
		o.cpus = &set;
	}
	rc = pms_counter_open(r->sys, r->pmus, r->topo, *list, &o, &c);
	CHECK_MSG(rc == 0, "open '%s': %s", events, pms_error_last());
	pms_cpuset_fini(&set);
	return c;
}

PMS_TEST(multiplex_scaling)
{
	struct ch_root r;
	struct pms_event_list *l;
	struct pms_counter *c;
	struct pms_count_row *rows;
	size_t n;
	if (ch_root_open(&r, "zen4-ibs", 2, false) < 0)
		return;
	r.fk->rule = accept_rule;
	c = open_count(&r, "page-faults:u,context-switches:u", PMS_COUNT_TID, NULL, false, &l);
	if (c) {
		CHECK_EQ_INT(pms_counter_ninstances(c), 2);
		/* enabled 200 ns, running 100 ns: scaled = raw * 2. */
		script_one(r.fk, pms_counter_fd(c, 0), 1000, 200, 100);
		script_one(r.fk, pms_counter_fd(c, 1), 7, 300, 300);
		CHECK_OK(pms_counter_read(c));
		const struct pms_count_instance *in = pms_counter_instance(c, 0);
		CHECK_EQ_U64(in->v.raw, 1000);
		CHECK(in->v.scaled == 2000.0);
		CHECK(in->v.fraction == 0.5);
		CHECK_EQ_INT(in->tid, 4242);
		CHECK_EQ_INT(in->cpu, -1);
		CHECK_OK(pms_counter_rows(c, PMS_AGG_GLOBAL, &rows, &n));
		CHECK_EQ_INT(n, 2);
		if (n == 2) {
			CHECK_EQ_STR(rows[0].name, "page-faults:u");
			CHECK(rows[0].scaled == 2000.0);
			CHECK(rows[0].fraction == 0.5);
			CHECK(rows[1].scaled == 7.0);
			CHECK(rows[1].fraction == 1.0);
		}
		pms_count_rows_free(rows);
		/* Task counters: inherit, opened disabled, enabled by ioctl
		 * (not a CHILD: no enable_on_exec). */
		CHECK_EQ_INT(r.fk->nlog, 2);
		CHECK(r.fk->log[0].attr.inherit);
		CHECK(r.fk->log[0].attr.disabled);
		CHECK(!r.fk->log[0].attr.enable_on_exec);
		CHECK_EQ_INT(r.fk->log[0].pid, 4242);
		CHECK_EQ_INT(r.fk->log[0].cpu, -1);
		CHECK_EQ_U64(r.fk->log[0].attr.read_format,
			     PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
		CHECK_EQ_U64(fk_fd(r.fk, pms_counter_fd(c, 0))->ioctl_last, PERF_EVENT_IOC_ENABLE);
	}
	pms_counter_free(c);
	pms_event_list_free(l);
	CHECK_EQ_INT(r.fk->nopen, 0);
	ch_root_close(&r);
}

PMS_TEST(scale_math)
{
	static const struct {
		uint64_t raw, te, tr;
		double scaled, fraction;
	} rows[] = {
		{ 100, 0, 0, 0.0, 1.0 },       /* never enabled */
		{ 0, 500, 0, 0.0, 0.0 },       /* enabled, never ran */
		{ 100, 500, 500, 100.0, 1.0 },
		{ 100, 400, 100, 400.0, 0.25 },
		{ 3, 3, 2, 4.5, 2.0 / 3.0 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pms_count_value v = { rows[i].raw, rows[i].te, rows[i].tr, 0, 0 };
		pms_count_value_scale(&v);
		CHECK_MSG(v.scaled == rows[i].scaled && v.fraction == rows[i].fraction,
			  "row %zu: scaled %g fraction %g", i, v.scaled, v.fraction);
	}
}

PMS_TEST(group_read_and_child)
{
	struct ch_root r;
	struct pms_event_list *l;
	struct pms_counter *c;
	const uint64_t vals[3] = { 11, 22, 33 };
	if (ch_root_open(&r, "zen4-ibs", 2, false) < 0)
		return;
	r.fk->rule = accept_rule;
	c = open_count(&r, "{task-clock:u,page-faults:u,context-switches:u}", PMS_COUNT_CHILD,
		       NULL, false, &l);
	if (c) {
		int lead = pms_counter_fd(c, 0);
		CHECK_EQ_INT(pms_counter_ninstances(c), 3);
		CHECK_EQ_INT(r.fk->nlog, 3);
		/* The leader: disabled + enable_on_exec + group read; members
		 * follow it (group_fd = leader, not disabled). */
		CHECK(r.fk->log[0].attr.disabled && r.fk->log[0].attr.enable_on_exec);
		CHECK(r.fk->log[0].attr.inherit);
		CHECK(r.fk->log[0].attr.read_format & PERF_FORMAT_GROUP);
		CHECK_EQ_INT(r.fk->log[0].group_fd, -1);
		for (int i = 1; i < 3; i++) {
			CHECK_EQ_INT(r.fk->log[i].group_fd, lead);
			CHECK(!r.fk->log[i].attr.disabled && !r.fk->log[i].attr.enable_on_exec);
		}
		/* Nothing enabled by ioctl: the child's exec does it. */
		CHECK_EQ_INT(fk_fd(r.fk, lead)->ioctl_count, 0);
		script_group(r.fk, lead, 1000, 1000, vals, 3);
		CHECK_OK(pms_counter_read(c));
		for (size_t i = 0; i < 3; i++) {
			const struct pms_count_instance *in = pms_counter_instance(c, i);
			CHECK_EQ_U64(in->v.raw, vals[i]);
			CHECK_EQ_U64(in->v.enabled, 1000);
			CHECK_EQ_INT(in->group_slot, 0);
		}
		/* A group read of the wrong size / nr is refused, not misread. */
		script_group(r.fk, lead, 1000, 1000, vals, 2);
		CHECK_EQ_INT(pms_counter_read(c), PMS_EPARSE);
		CHECK(strstr(pms_error_last(), "group") != NULL);
	}
	pms_counter_free(c);
	pms_event_list_free(l);
	ch_root_close(&r);
}

/* Enable, disable and the event list, on the fake kernel: each leader gets
 * PERF_EVENT_IOC_ENABLE / DISABLE, and the counter gives back its list. */
PMS_TEST(enable_disable_and_events)
{
	struct ch_root r;
	struct pms_event_list *l;
	struct pms_counter *c;
	if (ch_root_open(&r, "zen4-ibs", 2, false) < 0)
		return;
	r.fk->rule = accept_rule;
	c = open_count(&r, "{task-clock:u,page-faults:u}", PMS_COUNT_CHILD, NULL, false, &l);
	CHECK(c != NULL);
	if (c) {
		int lead = pms_counter_fd(c, 0);
		CHECK(pms_counter_events(c) == l);
		CHECK_EQ_INT(fk_fd(r.fk, lead)->ioctl_count, 0);
		CHECK_OK(pms_counter_enable(c));
		CHECK(fk_fd(r.fk, lead)->on);
		CHECK_EQ_INT(fk_fd(r.fk, lead)->ioctl_count, 1);
		CHECK_OK(pms_counter_disable(c));
		CHECK(!fk_fd(r.fk, lead)->on);
		CHECK_EQ_INT(fk_fd(r.fk, lead)->ioctl_count, 2);
		/* members follow their leader: no ioctl of their own */
		CHECK_EQ_INT(fk_fd(r.fk, pms_counter_fd(c, 1))->ioctl_count, 0);
	}
	pms_counter_free(c);
	pms_event_list_free(l);
	ch_root_close(&r);
}

PMS_TEST(strict_and_unschedulable)
{
	struct ch_root r;
	struct pms_event_list *l;
	struct pms_counter *c;
	struct pms_count_row *rows;
	size_t n;
	char buf[256];
	const uint64_t vals[2] = { 0, 0 };
	if (ch_root_open(&r, "zen4-ibs", 2, false) < 0)
		return;
	r.fk->rule = accept_rule;
	c = open_count(&r, "page-faults:u,{task-clock:u,context-switches:u}", PMS_COUNT_TID,
		       NULL, true, &l);
	if (c) {
		script_one(r.fk, pms_counter_fd(c, 0), 10, 400, 100);
		script_group(r.fk, pms_counter_fd(c, 1), 400, 400, vals, 2);
		CHECK_EQ_INT(pms_counter_read(c), PMS_EBUSY);
		CHECK_MSG(strstr(pms_error_last(), "25.00%") &&
				  strstr(pms_error_last(), "page-faults:u"),
			  "%s", pms_error_last());
		/* Group enabled but never running: reported, not split. */
		script_one(r.fk, pms_counter_fd(c, 0), 10, 400, 400);
		script_group(r.fk, pms_counter_fd(c, 1), 400, 0, vals, 2);
		CHECK_EQ_INT(pms_counter_read(c), PMS_EBUSY);
		CHECK(strstr(pms_error_last(), "never scheduled") != NULL);
		CHECK_EQ_INT(pms_counter_unscheduled_groups(c, buf, sizeof(buf)), 1);
		CHECK_MSG(strstr(buf, "{task-clock:u,context-switches:u}@tid4242") != NULL, "%s",
			  buf);
		CHECK_OK(pms_counter_rows(c, PMS_AGG_GLOBAL, &rows, &n));
		CHECK_EQ_INT(n, 3);
		if (n == 3) {
			CHECK_EQ_INT(rows[0].nunscheduled, 0);
			CHECK_EQ_INT(rows[1].nunscheduled, 1);
			CHECK(rows[1].fraction == 0.0);
		}
		pms_count_rows_free(rows);
		/* Everything at 100%: strict passes. */
		script_group(r.fk, pms_counter_fd(c, 1), 400, 400, vals, 2);
		CHECK_OK(pms_counter_read(c));
		CHECK_EQ_INT(pms_counter_unscheduled_groups(c, NULL, 0), 0);
	}
	pms_counter_free(c);
	pms_event_list_free(l);
	ch_root_close(&r);
}

PMS_TEST(hybrid_sum_per_core_type)
{
	struct ch_root r;
	struct pms_event_list *l;
	struct pms_counter *c;
	struct pms_count_row *rows;
	size_t n;
	if (ch_root_open(&r, "adl-hybrid", 2, false) < 0)
		return;
	r.fk->rule = accept_rule;
	c = open_count(&r, "cycles:u,instructions:u", PMS_COUNT_CHILD, NULL, false, &l);
	if (c) {
		/* One counter per core PMU for each generic event. */
		CHECK_EQ_INT(pms_counter_ninstances(c), 4);
		for (size_t i = 0; i < pms_counter_ninstances(c); i++) {
			const struct pms_count_instance *in = pms_counter_instance(c, i);
			const struct pms_event *ev = pms_event_list_at(l, in->event);
			uint32_t type = (uint32_t)(r.fk->log[i].attr.config >> 32);
			const struct pms_pmu *p = pms_pmu_find(r.pmus, ev->pmu);
			CHECK(p && p->type == type);
			/* cpu_core counts 3x what cpu_atom does. */
			script_one(r.fk, pms_counter_fd(c, i),
				   strcmp(ev->pmu, "cpu_core") ? 100 : 300, 50, 50);
		}
		CHECK_OK(pms_counter_read(c));
		CHECK_OK(pms_counter_rows(c, PMS_AGG_GLOBAL, &rows, &n));
		CHECK_EQ_INT(n, 2);
		if (n == 2) {
			CHECK_EQ_STR(rows[0].name, "cycles:u");
			CHECK_EQ_U64(rows[0].raw, 400);
			CHECK_EQ_INT(rows[0].ninstances, 2);
			CHECK(rows[0].pmu == NULL);
		}
		pms_count_rows_free(rows);
		CHECK_OK(pms_counter_rows(c, PMS_AGG_CORE_TYPE, &rows, &n));
		CHECK_EQ_INT(n, 4);
		for (size_t i = 0; i < n; i++) {
			CHECK(rows[i].type_name != NULL);
			if (!rows[i].type_name)
				continue;
			CHECK_EQ_STR(rows[i].pmu, rows[i].type_name);
			CHECK_EQ_U64(rows[i].raw, strcmp(rows[i].type_name, "cpu_core") ? 100 : 300);
		}
		pms_count_rows_free(rows);
	}
	pms_counter_free(c);
	pms_event_list_free(l);
	ch_root_close(&r);
}

PMS_TEST(uncore_per_node_gnr_snc3)
{
	struct ch_root r;
	struct pms_event_list *l;
	struct pms_counter *c;
	struct pms_count_row *rows;
	size_t n;
	if (ch_root_open(&r, "gnr-snc3", 2, true) < 0)
		return;
	if (!r.topo) {
		CHECK(!"gnr-snc3 topology");
		ch_root_close(&r);
		return;
	}
	r.fk->rule = accept_rule;
	/* Counting a child: the uncore boxes are still opened per box, CPU-wide. */
	c = open_count(&r, "uncore_imc/config=0x1/", PMS_COUNT_CHILD, NULL, false, &l);
	if (c) {
		int seen[256] = { 0 };
		CHECK_EQ_INT(pms_counter_ninstances(c), 24); /* 12 IMCs x 2 sockets */
		for (size_t i = 0; i < pms_counter_ninstances(c); i++) {
			const struct pms_count_instance *in = pms_counter_instance(c, i);
			CHECK_EQ_INT(r.fk->log[i].pid, -1);
			CHECK_EQ_INT(r.fk->log[i].cpu, in->cpu);
			CHECK(in->box != NULL);
			if (in->cpu >= 0 && in->cpu < 256)
				seen[in->cpu]++;
			/* SNC3: node = package * 3 + domain, reader = first CPU of
			 * the node (40 CPUs per node). */
			CHECK_EQ_INT(in->cpu, in->node * 40);
			script_one(r.fk, pms_counter_fd(c, i), (uint64_t)in->node + 1, 10, 10);
		}
		/* The six SNC nodes' first CPUs, four IMCs each. */
		static const int cpus[] = { 0, 120, 40, 160, 80, 200 };
		for (size_t k = 0; k < 6; k++)
			CHECK_MSG(seen[cpus[k]] == 4, "cpu %d opened %d times", cpus[k],
				  seen[cpus[k]]);
		/* Enabled at open (CPU-wide events are not enable_on_exec). */
		CHECK_EQ_U64(fk_fd(r.fk, pms_counter_fd(c, 0))->ioctl_last, PERF_EVENT_IOC_ENABLE);
		CHECK_OK(pms_counter_read(c));
		CHECK_OK(pms_counter_rows(c, PMS_AGG_NODE, &rows, &n));
		CHECK_EQ_INT(n, 6);
		for (size_t i = 0; i < n; i++) {
			CHECK_EQ_INT(rows[i].id, (int)i);
			CHECK_EQ_INT(rows[i].ninstances, 4);
			CHECK_EQ_U64(rows[i].raw, 4 * (i + 1));
		}
		pms_count_rows_free(rows);
		CHECK_OK(pms_counter_rows(c, PMS_AGG_SOCKET, &rows, &n));
		CHECK_EQ_INT(n, 2);
		if (n == 2) {
			CHECK_EQ_U64(rows[0].raw, 4 * (1 + 2 + 3));
			CHECK_EQ_U64(rows[1].raw, 4 * (4 + 5 + 6));
		}
		pms_count_rows_free(rows);
	}
	pms_counter_free(c);
	pms_event_list_free(l);
	ch_root_close(&r);
}

PMS_TEST(cpus_target_aggregation)
{
	struct ch_root r;
	struct pms_event_list *l;
	struct pms_counter *c;
	struct pms_count_row *rows;
	size_t n;
	if (ch_root_open(&r, "gnr-snc3", 0, false) < 0)
		return;
	if (!r.topo) {
		ch_root_close(&r);
		return;
	}
	r.fk->rule = accept_rule;
	c = open_count(&r, "cpu-clock", PMS_COUNT_CPUS, "0,1,40,120,121", false, &l);
	if (c) {
		CHECK_EQ_INT(pms_counter_ninstances(c), 5);
		for (size_t i = 0; i < 5; i++) {
			CHECK_EQ_INT(r.fk->log[i].pid, -1);
			CHECK(!r.fk->log[i].attr.inherit);
			script_one(r.fk, pms_counter_fd(c, i), 1000, 1000, 1000);
		}
		CHECK_OK(pms_counter_read(c));
		static const struct {
			enum pms_count_agg agg;
			size_t nrows;
		} want[] = {
			{ PMS_AGG_GLOBAL, 1 }, { PMS_AGG_CPU, 5 },  { PMS_AGG_NODE, 3 },
			{ PMS_AGG_SOCKET, 2 }, { PMS_AGG_CORE, 5 }, { PMS_AGG_L3, 2 },
			{ PMS_AGG_THREAD, 1 },
		};
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
			uint64_t sum = 0;
			CHECK_OK(pms_counter_rows(c, want[k].agg, &rows, &n));
			CHECK_MSG(n == want[k].nrows, "agg %s: %zu rows, want %zu",
				  pms_count_agg_name(want[k].agg), n, want[k].nrows);
			for (size_t i = 0; i < n; i++)
				sum += rows[i].raw;
			CHECK_EQ_U64(sum, 5000);
			pms_count_rows_free(rows);
		}
		CHECK_OK(pms_counter_rows(c, PMS_AGG_NODE, &rows, &n));
		if (n == 3) {
			CHECK(rows[0].id == 0 && rows[0].ninstances == 2);
			CHECK(rows[1].id == 1 && rows[1].ninstances == 1);
			CHECK(rows[2].id == 3 && rows[2].ninstances == 2);
		}
		pms_count_rows_free(rows);
	}
	pms_counter_free(c);
	pms_event_list_free(l);
	ch_root_close(&r);
}

PMS_TEST(pid_threads)
{
	struct ch_root r;
	struct pms_event_list *l;
	struct pms_counter *c;
	if (ch_root_open(&r, "zen4-ibs", 2, false) < 0)
		return;
	r.fk->rule = accept_rule;
	ch_put(&r, "proc/4242/task/4242/stat", "x");
	ch_put(&r, "proc/4242/task/4250/stat", "x");
	c = open_count(&r, "page-faults:u", PMS_COUNT_PID, NULL, false, &l);
	if (c) {
		CHECK_EQ_INT(pms_counter_ninstances(c), 2);
		CHECK_EQ_INT(r.fk->log[0].pid, 4242);
		CHECK_EQ_INT(r.fk->log[1].pid, 4250);
	}
	pms_counter_free(c);
	pms_event_list_free(l);
	ch_root_close(&r);
}

/* errno -> message: each row opens events and checks the message names the
 * cause read from the machine. */
PMS_TEST(errno_messages)
{
	static const struct {
		const char *machine;
		int paranoid;
		bool perfmon;
		int err; /* 0 = the fake's real rules decide (fkr_rule / accept_rule) */
		const char *events;
		enum pms_count_target target;
		int code;
		const char *want[3];
	} rows[] = {
		/* kernel/events/core.c perf_allow_kernel(): paranoid 2, no :u. */
		{ "zen4-ibs", 2, false, 0, "page-faults", PMS_COUNT_TID, PMS_EPERM,
		  { "perf_event_paranoid is 2", "CAP_PERFMON: no", "':u'" } },
		/* perf_allow_cpu(): CPU-wide at paranoid 1. */
		{ "gnr-snc3", 1, false, 0, "page-faults", PMS_COUNT_CPUS, PMS_EPERM,
		  { "perf_event_paranoid is 1", "on cpu 0", "needs perf_event_paranoid <= 0" } },
		{ "zen4-ibs", 4, false, EACCES, "page-faults:u", PMS_COUNT_TID, PMS_EPERM,
		  { "perf_event_paranoid is 4", "distribution patch", NULL } },
		{ "zen4-ibs", 2, true, EMFILE, "page-faults:u", PMS_COUNT_TID, PMS_EBUSY,
		  { "soft 1024, hard 524288", "ulimit -n", "Too many open files" } },
		{ "vm-nopmu", 2, true, ENOENT, "cycles:u", PMS_COUNT_TID, PMS_ENOENT,
		  { "virtual machine", "'hypervisor' flag", "no core PMU" } },
		{ "zen4-ibs", 2, true, ENOENT, "r1234:u", PMS_COUNT_TID, PMS_ENOENT,
		  { "no such event", "config=0x1234", NULL } },
		{ "neoverse-n1-spe", 2, true, EOPNOTSUPP, "cycles:uI", PMS_COUNT_TID, PMS_ENOTSUP,
		  { "exclude_idle", "Arm PMUs refuse it", NULL } },
		{ "gnr-snc3", 0, true, EOPNOTSUPP, "uncore_imc_0/config=1,period=1000/",
		  PMS_COUNT_TID, PMS_ENOTSUP, { "sampling", "sample_period=1000", "counting-only" } },
		{ "zen4-ibs", 2, true, EINVAL, "r1234:u", PMS_COUNT_TID, PMS_EINVAL,
		  { "fields set:", "config=0x1234", "exclude_kernel" } },
		{ "zen4-ibs", 2, true, ESRCH, "page-faults:u", PMS_COUNT_TID, PMS_ENOENT,
		  { "no process or thread 4242", NULL, NULL } },
		{ "zen4-ibs", 2, true, EBUSY, "cycles:u", PMS_COUNT_TID, PMS_EBUSY,
		  { "held by someone else", NULL, NULL } },
		{ "adl-hybrid", 2, true, ENODEV, "cpu_atom/cycles/u", PMS_COUNT_TID, PMS_ENOENT,
		  { "cpu_atom does not count", "core type", NULL } },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ch_root r;
		struct pms_event_list *l = NULL;
		struct pms_count_opts o = PMS_COUNT_OPTS_INIT;
		struct pms_counter *c = NULL;
		int rc;
		if (ch_root_open(&r, rows[i].machine, rows[i].paranoid, rows[i].perfmon) < 0)
			continue;
		if (rows[i].err) {
			fixed_errno = rows[i].err;
			r.fk->rule = errno_rule;
		} else {
			r.fk->rule = accept_rule;
		}
		rc = pms_event_parse(r.pmus, rows[i].events, &l);
		CHECK_MSG(rc == 0, "row %zu: parse %s: %s", i, rows[i].events, pms_error_last());
		if (rc == 0) {
			struct pms_cpuset one = { 0 };
			pms_cpuset_add(&one, 0);
			o.target = rows[i].target;
			o.pid = 4242;
			o.cpus = &one;
			rc = pms_counter_open(r.sys, r.pmus, r.topo, l, &o, &c);
			CHECK_MSG(rc == rows[i].code, "row %zu (%s): rc %s, want %s: %s", i,
				  rows[i].events, pms_error_name(rc), pms_error_name(rows[i].code),
				  pms_error_last());
			for (int k = 0; k < 3; k++)
				if (rows[i].want[k])
					CHECK_MSG(strstr(pms_error_last(), rows[i].want[k]) != NULL,
						  "row %zu: no '%s' in: %s", i, rows[i].want[k],
						  pms_error_last());
			CHECK_MSG(r.fk->nopen == 0, "row %zu: %d fds left open", i, r.fk->nopen);
			pms_cpuset_fini(&one);
		}
		pms_counter_free(c);
		pms_event_list_free(l);
		ch_root_close(&r);
	}
}

/* skip_unsupported: the kernel refuses hardware events (ENOENT, as a VM
 * without a vPMU does); the software events beside them count, a group with
 * one refused member is left out whole (its opened leader closed again),
 * and a privilege error still fails the open. */
static int hw_errno;
static int no_hw_rule(struct fk *fk, const struct perf_event_attr *attr, pid_t pid, int cpu,
		      int group_fd, unsigned long flags)
{
	if (attr->type == PERF_TYPE_HARDWARE)
		return -hw_errno;
	return accept_rule(fk, attr, pid, cpu, group_fd, flags);
}

PMS_TEST(skip_unsupported)
{
	struct ch_root r;
	struct pms_event_list *l = NULL;
	struct pms_count_opts o = PMS_COUNT_OPTS_INIT;
	struct pms_counter *c = NULL;
	struct pms_count_row *rows = NULL;
	size_t n = 0;
	char why[512];
	if (ch_root_open(&r, "zen4-ibs", 2, true) < 0)
		return;
	r.fk->rule = no_hw_rule;
	hw_errno = ENOENT;
	CHECK_OK(pms_event_parse(r.pmus, "page-faults:u,cycles:u,{context-switches:u,instructions:u}", &l));
	o.target = PMS_COUNT_TID;
	o.pid = 4242;
	/* default: all or nothing */
	CHECK_EQ_INT(pms_counter_open(r.sys, r.pmus, r.topo, l, &o, &c), PMS_ENOENT);
	CHECK_EQ_INT(r.fk->nopen, 0);
	o.skip_unsupported = true;
	CHECK_OK(pms_counter_open(r.sys, r.pmus, r.topo, l, &o, &c));
	if (c) {
		CHECK_EQ_INT(pms_counter_ninstances(c), 1);
		CHECK_EQ_INT(r.fk->nopen, 1); /* the group's leader was closed again */
		CHECK_EQ_INT(pms_counter_unsupported(c, why, sizeof(why)), 3);
		CHECK(strstr(why, "cycles") != NULL);
		script_one(r.fk, pms_counter_fd(c, 0), 12, 100, 100);
		CHECK_OK(pms_counter_read(c));
		CHECK_OK(pms_counter_rows(c, PMS_AGG_GLOBAL, &rows, &n));
		CHECK_EQ_INT(n, 4);
		if (n == 4) {
			CHECK_EQ_STR(rows[0].name, "page-faults:u");
			CHECK(rows[0].unsupported == NULL && rows[0].raw == 12);
			CHECK_EQ_STR(rows[1].name, "cycles:u");
			CHECK(rows[1].unsupported && strstr(rows[1].unsupported, "cycles"));
			CHECK_EQ_INT(rows[1].ninstances, 0);
			CHECK_EQ_STR(rows[2].name, "context-switches:u");
			CHECK(rows[2].unsupported != NULL);
			CHECK_EQ_STR(rows[3].name, "instructions:u");
			CHECK(rows[3].unsupported != NULL);
		}
		pms_count_rows_free(rows);
	}
	pms_counter_free(c);
	c = NULL;
	CHECK_EQ_INT(r.fk->nopen, 0);
	/* not a matter of support: fails whatever skip_unsupported says */
	hw_errno = EACCES;
	CHECK_EQ_INT(pms_counter_open(r.sys, r.pmus, r.topo, l, &o, &c), PMS_EPERM);
	CHECK_EQ_INT(r.fk->nopen, 0);
	pms_event_list_free(l);
	ch_root_close(&r);
}

PMS_TEST_MAIN()
