/* Adaptation to loss (opts.adapt) against the fake kernel's task model
 * (tests/support/fake_kernel.c: inheritance, ENABLE/DISABLE reaching
 * inherited events, output into the top parent's ring, LOST records, each
 * rule citing kernel/events/core.c and ring_buffer.c).  A child target with
 * running tasks overflows its rings; the sampler reopens on every task with
 * a larger period, the old events stop everywhere, every sample carries
 * the period that wrote it, and a task that got the new events twice during
 * the change is counted once. */
#include "check.h"
#include "sample_helpers.h"

#include "pmuscope/error.h"
#include "pmuscope/sampler.h"
#include "sample/sampler_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PID 100
#ifndef PHASE3
#define PHASE3 40
#endif

struct tally {
	uint64_t n, weight, n_old; /* samples, sum of periods, with period 1 */
	uint64_t per_tid[8];       /* samples of tasks PID..PID+7 */
	uint64_t last_period;
	bool mixed;
};

static int on_sample(void *ud, const struct pms_memsample *m)
{
	struct tally *t = ud;
	t->n++;
	t->weight += m->period;
	t->n_old += m->period == 1;
	if (m->tid >= PID && m->tid < PID + 8)
		t->per_tid[m->tid - PID]++;
	return 0;
}

static const struct pms_sampler_callbacks cbs = { on_sample, NULL };

static void mkfile(const char *dir, const char *rel, const char *text)
{
	char path[512], *q;
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (q = path + strlen(dir) + 1; (q = strchr(q, '/')); q++) {
		*q = 0;
		mkdir(path, 0755);
		*q = '/';
	}
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The rule hook: while the new events are being opened (their period is
 * above 1), task PID forks task PID+4 once, after PID's new events exist
 * and before the other tasks' are open, and task PID+2 faults three times
 * into the old events' ring. */
static struct {
	struct th_root *r;
	bool forked;
} hook;

static int hook_rule(struct fk *fk, const struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, unsigned long flags)
{
	int ret = fkr_rule(fk, attr, pid, cpu, group_fd, flags);
	if (ret >= 0 && !hook.forked && pid == PID + 1 && attr->sample_period > 1) {
		hook.forked = true;
		CHECK(fk_task_fork(fk, PID, PID + 4) > 0);
		mkfile(hook.r->dir, "proc/100/task/104/children", "");
		for (int i = 0; i < 3; i++)
			fk_task_fault(fk, PID + 2, 0, 0x401000, 0x7f0000900000 + 4096u * i);
	}
	return ret;
}

static void fault_all(struct fk *fk, pid_t first, pid_t last, int per_cpu, uint64_t *faults)
{
	for (int k = 0; k < per_cpu; k++)
		for (pid_t t = first; t <= last; t++)
			for (int cpu = 0; cpu < 2; cpu++) {
				fk_task_fault(fk, t, cpu, 0x401000 + (uint64_t)t,
					      0x7f0000000000 + 4096u * (uint64_t)(*faults));
				(*faults)++;
			}
}

PMS_TEST(child_with_running_tasks_reopened_with_a_larger_period)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_stats st;
	struct tally t;
	const struct pms_sampler_adaptation *a;
	size_t na = 0;
	uint64_t faults = 0, dups = 0, p2, w1 = 0;
	int old_fd[2] = { -1, -1 }, nlog0;

	if (th_root_open(&r, "vm-nopmu", "0-1", 2, true) < 0)
		return;
	hook.r = &r;
	hook.forked = false;
	r.fk->rule = hook_rule;
	/* the child and its tasks: threads PID, PID+1; a child process PID+2 */
	mkfile(r.dir, "proc/100/task/100/children", "102 ");
	mkfile(r.dir, "proc/100/task/101/children", "");
	mkfile(r.dir, "proc/102/task/102/children", "");
	o.target = PMS_TARGET_CHILD;
	o.pid = PID;
	o.adapt = true;
	o.data_pages = 1; /* 4 KiB rings: they overflow */
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	for (int i = 0, n = 0; i < FK_MAX_FDS; i++)
		if (r.fk->fds[i].used && n < 2)
			old_fd[n++] = FK_FD_BASE + i;
	CHECK(old_fd[1] >= 0);
	CHECK_EQ_INT((int)fk_fd(r.fk, old_fd[0])->attr.inherit, 1);
	CHECK_OK(pms_sampler_enable(s));
	CHECK(fk_task_fork(r.fk, PID, PID + 1) == 2);
	CHECK(fk_task_fork(r.fk, PID, PID + 2) == 2);

	/* Phase 1, period 1: 600 faults into two 4 KiB rings: both full, the
	 * kernel counting the records it drops (no LOST record yet: it writes
	 * one only before a later record that fits, ring_buffer.c:190-191).
	 * The poll finds the rings full before draining them and adapts. */
	memset(&t, 0, sizeof(t));
	fault_all(r.fk, PID, PID + 2, 100, &faults);
	nlog0 = r.fk->nlog;
	CHECK(pms_sampler_poll(s, 0, &cbs, &t) > 0);
	a = pms_sampler_adaptations(s, &na, &dups);
	CHECK_EQ_INT((int)na, 1);
	if (na != 1)
		goto out;
	pms_sampler_stats(s, &st);
	/* why: full rings, nothing reported lost yet: the period x 8 */
	CHECK(a[0].fill_pct >= 95); /* no room for one more sample */
	CHECK_EQ_U64(a[0].lost, 0);
	CHECK_EQ_U64(a[0].old_period, 1);
	p2 = a[0].new_period;
	CHECK_EQ_U64(p2, 8);
	CHECK_EQ_U64(a[0].old_pages, 1);
	CHECK_EQ_U64(a[0].new_pages, 2);
	CHECK_EQ_U64(a[0].old_streams, 2);
	/* tasks PID, PID+1, PID+2 from the walk, PID+4 from the second walk */
	CHECK_EQ_U64(a[0].tasks, 4);
	CHECK_EQ_U64(a[0].new_streams, 8);
	CHECK(a[0].at_ns > 0);
	/* Nothing lost at period 1 was hidden: the samples kept plus the
	 * records lost make every fault (3 more by the hook while the new
	 * events were opened, into the full old ring): the losses no LOST
	 * record reported come from the old events' PERF_FORMAT_LOST count at
	 * close. */
	CHECK_EQ_U64(t.n_old, t.n);
	CHECK_EQ_U64(t.weight + st.lost, faults + 3);
	CHECK_EQ_U64(st.lost_records, 0);
	CHECK_EQ_U64(a[0].old_samples, t.n);
	CHECK_EQ_U64(pms_sampler_events(s), t.weight);
	w1 = t.weight;
	/* The new events: every task, each CPU, inherit, the new period, no
	 * PERIOD in the sample (a software event sampling PERIOD without freq
	 * overflows on every event, core.c:10079-10081), disabled at open. */
	{
		int seen[8][2] = { { 0 } };
		for (int i = nlog0; i < r.fk->nlog; i++) {
			const struct fk_open_log *l = &r.fk->log[i];
			if (l->result < 0)
				continue;
			CHECK_EQ_U64(l->attr.sample_period, p2);
			CHECK_EQ_U64(l->attr.read_format, PERF_FORMAT_LOST);
			CHECK_EQ_INT((int)l->attr.inherit, 1);
			CHECK_EQ_INT((int)l->attr.disabled, 1);
			CHECK_EQ_INT((int)l->attr.enable_on_exec, 0);
			CHECK(!(l->attr.sample_type & PERF_SAMPLE_PERIOD));
			if (l->pid >= PID && l->pid < PID + 8 && l->cpu >= 0 && l->cpu < 2)
				seen[l->pid - PID][l->cpu]++;
		}
		for (int k = 0; k < 5; k++)
			for (int c = 0; c < 2; c++)
				CHECK_EQ_INT(seen[k][c], k == 3 ? 0 : 1);
	}
	/* the old events and everything inherited from them are gone */
	CHECK(fk_fd(r.fk, old_fd[0]) == NULL && fk_fd(r.fk, old_fd[1]) == NULL);
	CHECK_EQ_INT(fk_inh_count(r.fk, old_fd[0]), 0);

	/* Phase 2: a thread forked now inherits the new events; every task
	 * faults 5 periods on each CPU: 5 tasks x 2 CPUs x 5 samples, each
	 * weighing the new period.  Task PID+4 has the new events twice
	 * (inherited from PID during the change, and its own): counted once. */
	CHECK(fk_task_fork(r.fk, PID + 1, PID + 3) > 0);
	memset(&t, 0, sizeof(t));
	faults = 0;
	fault_all(r.fk, PID, PID + 4, (int)(5 * p2), &faults);
	CHECK(pms_sampler_poll(s, 0, &cbs, &t) > 0);
	CHECK_EQ_U64(t.n, 50);
	CHECK_EQ_U64(t.weight, faults);
	CHECK_EQ_U64(t.n_old, 0);
	for (int k = 0; k < 5; k++)
		CHECK_EQ_U64(t.per_tid[k], 10);
	pms_sampler_adaptations(s, &na, &dups);
	CHECK_EQ_U64(dups, 10);
	CHECK_EQ_U64(pms_sampler_events(s), w1 + t.weight);
	CHECK_EQ_INT((int)na, 1);

	/* Phase 3 (issue 32 item 8): the rings fill past 3/4 without loss, so
	 * the poll changes again before it drains them; the retired rings
	 * then still hold task PID+4's samples of both lineages.  They are
	 * counted once: the lineage table keeps each generation's entries
	 * (before, it was reset for the new generation and the retired
	 * rings' second lineage passed, the total over the faults). */
	{
		uint64_t lost0, dups0 = dups;
		pms_sampler_stats(s, &st);
		lost0 = st.lost;
		memset(&t, 0, sizeof(t));
		faults = 0;
		fault_all(r.fk, PID, PID + 4, (int)(PHASE3 * p2), &faults);
		CHECK(pms_sampler_poll(s, 0, &cbs, &t) > 0);
		pms_sampler_adaptations(s, &na, &dups);
		pms_sampler_stats(s, &st);
		CHECK_EQ_INT((int)na, 2);
		CHECK_EQ_U64(st.lost, lost0);
		CHECK_EQ_U64(dups - dups0, 2 * PHASE3);
		CHECK_EQ_U64(t.weight, faults);
	}
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

/* A task the second walk finds (PID+4, forked from PID while the new
 * events were opened) has its own events and those it inherited from PID.
 * The ENABLEs go one event after the other, last opened first, so its own
 * count from before PID's: its faults while PID's are enabled (the hook)
 * are counted once, by its own events, and the inherited events' copies
 * are the duplicates the one-lineage rule drops, with or without a common
 * clock.  (Before, PID's came first and PID+4's faults in between reached
 * PID's ring only: a clang CI rehearsal of cli_adapt lost 2,261 of 8,192
 * page faults of a dd done within the change so.) */
static struct {
	int gap_faults, done;
	pid_t task;
} gap;

static void gap_enable(struct fk *fk, int fd)
{
	const struct fk_fd *f = fk_fd(fk, fd);
	if (gap.done || !f || f->pid != PID || f->cpu != 0 || f->attr.sample_period <= 1)
		return;
	gap.done = 1;
	for (int i = 0; i < gap.gap_faults; i++)
		fk_task_fault(fk, gap.task, 0, 0x401004, 0x7f0000a00000 + 4096u * (uint64_t)i);
}

static bool early_forked;

/* Both races' runs: tasks PID, PID+1, PID+2 (a child process), one-page
 * rings, the rule hook RULE during the opens, gap_enable faulting TASK
 * while PID's new events are enabled; faults until the first poll adapts.
 * 0 with the sampler in *sp and the poll's samples in *t. */
static int race_run(struct th_root *r, fk_open_rule rule, bool mono,
		    pid_t task, struct pms_sampler **sp, struct tally *t)
{
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	uint64_t faults = 0;

	*sp = NULL;
	if (th_root_open(r, "vm-nopmu", "0-1", 2, true) < 0)
		return -1;
	hook.r = r;
	hook.forked = false;
	early_forked = false;
	r->fk->rule = rule;
	r->fk->enable_hook = gap_enable;
	mkfile(r->dir, "proc/100/task/100/children", "102 ");
	mkfile(r->dir, "proc/100/task/101/children", "");
	mkfile(r->dir, "proc/102/task/102/children", "");
	o.target = PMS_TARGET_CHILD;
	o.pid = PID;
	o.adapt = true;
	o.data_pages = 1;
	o.clock_monotonic = mono;
	CHECK_OK(pms_sampler_open(r->sys, r->pmus, NULL, &o, sp));
	if (!*sp) {
		th_root_close(r);
		return -1;
	}
	CHECK_OK(pms_sampler_enable(*sp));
	CHECK(fk_task_fork(r->fk, PID, PID + 1) == 2);
	CHECK(fk_task_fork(r->fk, PID, PID + 2) == 2);
	memset(&gap, 0, sizeof(gap));
	gap.gap_faults = 3 * 8; /* three periods of the new events */
	gap.task = task;
	memset(t, 0, sizeof(*t));
	fault_all(r->fk, PID, PID + 2, 100, &faults);
	CHECK(pms_sampler_poll(*sp, 0, &cbs, t) > 0);
	return 0;
}

PMS_TEST(second_walk_task_counted_once_from_the_switch)
{
	for (int mono = 1; mono >= 0; mono--) {
		struct th_root r;
		struct pms_sampler *s = NULL;
		struct tally t;
		const struct pms_sampler_adaptation *a;
		size_t na = 0;
		uint64_t faults = 0, dups = 0, p2;

		if (race_run(&r, hook_rule, mono, PID + 4, &s, &t) < 0)
			return;
		a = pms_sampler_adaptations(s, &na, &dups);
		CHECK_EQ_INT((int)na, 1);
		if (na != 1)
			goto next;
		p2 = a[0].new_period;
		CHECK_EQ_U64(p2, 8);
		CHECK_EQ_U64(a[0].tasks, 4); /* PID+4 from the second walk */
		CHECK(gap.done);
		pms_sampler_poll(s, 0, &cbs, &t); /* the gap's samples: this poll's or the last */
		pms_sampler_adaptations(s, &na, &dups);
		CHECK_MSG(t.per_tid[4] == 3u, "clock_monotonic %d: %llu of PID+4's 3 gap samples kept",
			  mono, (unsigned long long)t.per_tid[4]);
		CHECK_EQ_U64(dups, 3);
		/* later faults: PID+4 counted once, by its own events */
		memset(&t, 0, sizeof(t));
		faults = 0;
		fault_all(r.fk, PID + 4, PID + 4, (int)(2 * p2), &faults);
		pms_sampler_poll(s, 0, &cbs, &t);
		pms_sampler_adaptations(s, &na, &dups);
		CHECK_EQ_U64(t.per_tid[4], 4);
		CHECK_EQ_U64(t.weight, faults);
		CHECK_EQ_U64(dups, 7);
	next:
		pms_sampler_free(s);
		th_root_close(&r);
	}
}

/* A task forked from PID before PID's new events were open (PID+5) holds
 * only the old events, which the switch disables.  The walks before the
 * switch give it events of its own, so its faults right after the switch
 * are counted.  (Before, the second walk came after the switch: what it
 * did until its events were opened was lost -- a gcc CI run of cli_adapt
 * counted 7,536 of its 8,192 page faults, none lost.) */
static int early_rule(struct fk *fk, const struct perf_event_attr *attr, pid_t pid, int cpu,
		      int group_fd, unsigned long flags)
{
	if (!early_forked && pid == PID && attr->sample_period > 1) {
		early_forked = true;
		CHECK(fk_task_fork(fk, PID, PID + 5) > 0);
		mkfile(hook.r->dir, "proc/100/task/105/children", "");
	}
	return fkr_rule(fk, attr, pid, cpu, group_fd, flags);
}

PMS_TEST(task_forked_before_its_creators_new_events_counted_across_the_switch)
{
	struct th_root r;
	struct pms_sampler *s = NULL;
	struct tally t;
	const struct pms_sampler_adaptation *a;
	size_t na = 0;
	uint64_t dups = 0;

	if (race_run(&r, early_rule, true, PID + 5, &s, &t) < 0)
		return;
	a = pms_sampler_adaptations(s, &na, &dups);
	CHECK_EQ_INT((int)na, 1);
	CHECK(early_forked && gap.done);
	if (na == 1) {
		CHECK_EQ_U64(a[0].new_period, 8);
		CHECK_EQ_U64(a[0].tasks, 4); /* PID+5 from the walk before the switch */
	}
	pms_sampler_poll(s, 0, &cbs, &t);
	pms_sampler_adaptations(s, &na, &dups);
	CHECK_MSG(t.per_tid[5] == 3u, "%llu of PID+5's 3 samples after the switch",
		  (unsigned long long)t.per_tid[5]);
	CHECK_EQ_U64(dups, 0);
	pms_sampler_free(s);
	th_root_close(&r);
}

/* Every task exited between the walk and the opens (a task past
 * perf_event_exit_task refuses new events with ESRCH: kernel/events/core.c
 * find_get_context, PF_EXITING): the poll that finds the rings full at the
 * end of a run records no change (before: one with 0 new streams), notes
 * no failure, and the old rings give every record they hold. */
static int gone_rule(struct fk *fk, const struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, unsigned long flags)
{
	if (pid > 0 && attr->sample_period > 1)
		return -ESRCH;
	return fkr_rule(fk, attr, pid, cpu, group_fd, flags);
}

PMS_TEST(tasks_gone_at_the_change_no_adaptation)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_stats st;
	struct pms_sampler_info info;
	struct tally t;
	size_t na = 5, nst0;
	uint64_t faults = 0;

	if (th_root_open(&r, "vm-nopmu", "0-1", 2, true) < 0)
		return;
	r.fk->rule = gone_rule;
	mkfile(r.dir, "proc/100/task/100/children", "");
	o.target = PMS_TARGET_CHILD;
	o.pid = PID;
	o.adapt = true;
	o.data_pages = 1;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	CHECK_OK(pms_sampler_enable(s));
	pms_sampler_info(s, &info);
	nst0 = info.nstreams;
	memset(&t, 0, sizeof(t));
	fault_all(r.fk, PID, PID, 300, &faults); /* 600 faults: full rings */
	CHECK(pms_sampler_poll(s, 0, &cbs, &t) > 0);
	pms_sampler_adaptations(s, &na, NULL);
	CHECK_EQ_INT((int)na, 0);
	pms_sampler_info(s, &info);
	CHECK(strstr(info.notes, "adaptation to loss stopped") == NULL);
	CHECK_EQ_U64(info.nstreams, nst0);
	/* the old rings go on: the next faults' records follow the LOST
	 * record the kernel writes first (ring_buffer.c:248-256); kept plus
	 * lost make every fault */
	fault_all(r.fk, PID, PID, 10, &faults);
	CHECK(pms_sampler_poll(s, 0, &cbs, &t) > 0);
	pms_sampler_stats(s, &st);
	CHECK_EQ_U64(t.weight + st.lost, faults);
	CHECK(t.n > 0);
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST(system_wide_reopened_per_cpu)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct tally t;
	const struct pms_sampler_adaptation *a;
	size_t na = 0;
	uint64_t faults = 0;

	if (th_root_open(&r, "vm-nopmu", "0-1", 0, true) < 0)
		return;
	o.target = PMS_TARGET_CPUS;
	o.adapt = true;
	o.data_pages = 1;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	CHECK_OK(pms_sampler_enable(s));
	/* The loss path: the kernel dropped 500 records per ring earlier
	 * (rb->lost and the event's lost_samples), reported by the LOST
	 * record it writes before the next sample (ring_buffer.c:248-256);
	 * the rings are nearly empty when the poll reads them. */
	for (int i = 0; i < FK_MAX_FDS; i++)
		if (r.fk->fds[i].used) {
			r.fk->fds[i].lost = 500;
			r.fk->fds[i].lost_samples = 500;
		}
	memset(&t, 0, sizeof(t));
	fault_all(r.fk, 500, 503, 2, &faults);
	pms_sampler_poll(s, 0, &cbs, &t);
	a = pms_sampler_adaptations(s, &na, NULL);
	CHECK_EQ_INT((int)na, 1);
	if (na != 1)
		goto out;
	/* kept 2 x 9 records (a LOST and 8 samples a ring), lost 1000: the
	 * period x 64, the most one change makes */
	CHECK_EQ_U64(a[0].lost, 1000);
	CHECK_EQ_U64(a[0].kept, 18);
	CHECK(a[0].fill_pct < 75);
	CHECK_EQ_U64(a[0].new_period, 64);
	CHECK_EQ_U64(t.n, 16);
	CHECK_EQ_U64(a[0].tasks, 0);
	CHECK_EQ_U64(a[0].new_streams, 2);
	memset(&t, 0, sizeof(t));
	faults = 0;
	fault_all(r.fk, 500, 503, (int)(3 * a[0].new_period), &faults);
	pms_sampler_poll(s, 0, &cbs, &t);
	/* per CPU one event counts all four tasks: 4 x 3 periods each */
	CHECK_EQ_U64(t.n, 24);
	CHECK_EQ_U64(t.weight, faults);
out:
	pms_sampler_free(s);
	th_root_close(&r);
}


/* The workload goes on while the sampler drains: the callback faults on
 * CPU 1 while ring 0 is read.  Every 256 records the drain looks at the
 * other rings, stops to adapt when one is 3/4 full, and reads the rest:
 * the poll returns records, not the internal stop. */
static struct {
	struct fk *fk;
	int at, n;
	uint64_t weight, faults;
} busy;

static int busy_sample(void *ud, const struct pms_memsample *m)
{
	(void)ud;
	busy.n++;
	busy.weight += m->period;
	if (busy.n == busy.at)
		for (int k = 0; k < 400; k++) {
			fk_task_fault(busy.fk, 600, 1, 0x401000, 0x7f0000000000 + 4096u * (uint64_t)k);
			busy.faults++;
		}
	return 0;
}

PMS_TEST(drain_stops_to_adapt_when_another_ring_fills)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_stats st;
	static const struct pms_sampler_callbacks bcb = { busy_sample, NULL };
	size_t na = 0;
	int rc;

	if (th_root_open(&r, "vm-nopmu", "0-1", 0, true) < 0)
		return;
	o.target = PMS_TARGET_CPUS;
	o.adapt = true;
	o.data_pages = 8; /* 32 KiB: some 400 samples */
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	CHECK_OK(pms_sampler_enable(s));
	memset(&busy, 0, sizeof(busy));
	busy.fk = r.fk;
	busy.at = 10;
	for (int k = 0; k < 300; k++) {
		fk_task_fault(r.fk, 600, 0, 0x401000, 0x7f1000000000 + 4096u * (uint64_t)k);
		busy.faults++;
	}
	rc = pms_sampler_poll(s, 0, &bcb, NULL);
	CHECK_MSG(rc > 0, "poll returned %d", rc);
	pms_sampler_adaptations(s, &na, NULL);
	CHECK_EQ_INT((int)na, 1);
	/* every fault: a sample at period 1 or a record lost at period 1 */
	pms_sampler_stats(s, &st);
	CHECK_EQ_U64(busy.weight + st.lost, busy.faults);
	CHECK_EQ_U64(pms_sampler_events(s), busy.weight);
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

/* ---- the staged drain (a live sampler's drain thread) -----------------------
 * pms_smp_stage_on gives a fake-context sampler the drain thread's path:
 * records are copied out of the rings into a stage and handed out at the
 * next poll; pms_smp_copy_step is one wake of the thread.  The copier keeps
 * the rings from overflowing; it notes how full each ring was, and the
 * poller adapts under the stage's lock. */

static int old_fds(struct fk *fk, int *out, int cap)
{
	int n = 0;
	for (int i = 0; i < FK_MAX_FDS; i++)
		if (fk->fds[i].used && n < cap)
			out[n++] = FK_FD_BASE + i;
	return n;
}

PMS_TEST(staged_copier_keeps_the_rings_free_and_the_poller_adapts)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_stats st;
	struct tally t;
	const struct pms_sampler_adaptation *a;
	size_t na = 0;
	uint64_t faults = 0, w1;
	int old_fd[2] = { -1, -1 };

	if (th_root_open(&r, "vm-nopmu", "0-1", 2, true) < 0)
		return;
	mkfile(r.dir, "proc/100/task/100/children", "102 ");
	mkfile(r.dir, "proc/100/task/101/children", "");
	mkfile(r.dir, "proc/102/task/102/children", "");
	o.target = PMS_TARGET_CHILD;
	o.pid = PID;
	o.adapt = true;
	o.data_pages = 1; /* 4 KiB rings: 64 records of 64 bytes */
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	pms_smp_stage_on(s);
	CHECK_EQ_INT(old_fds(r.fk, old_fd, 2), 2);
	CHECK_OK(pms_sampler_enable(s));
	CHECK(fk_task_fork(r.fk, PID, PID + 1) == 2);
	CHECK(fk_task_fork(r.fk, PID, PID + 2) == 2);

	/* Phase 1, period 1: 3 x 39 faults into each 4 KiB ring (2,808 of
	 * 4,096 bytes), copied out; as many again, copied out: 156 records a
	 * ring went through rings that hold 56, none lost. */
	fault_all(r.fk, PID, PID + 2, 13, &faults);
	pms_smp_copy_step(s);
	fault_all(r.fk, PID, PID + 2, 13, &faults);
	pms_smp_copy_step(s);
	fault_all(r.fk, PID, PID + 2, 13, &faults);
	pms_smp_copy_step(s);
	CHECK_EQ_INT(fk_fd(r.fk, old_fd[0])->lost_samples, 0);
	/* The poll: the copier found the rings 68 % full (past half: it came
	 * a quarter ring after its watermark), so the poller reopens with
	 * twice the period, then hands the staged records out. */
	memset(&t, 0, sizeof(t));
	CHECK_EQ_INT(pms_sampler_poll(s, 0, &cbs, &t), (int)faults);
	a = pms_sampler_adaptations(s, &na, NULL);
	CHECK_EQ_INT((int)na, 1);
	if (na != 1)
		goto out;
	CHECK(a[0].fill_pct >= 50 && a[0].fill_pct < 75);
	CHECK_EQ_U64(a[0].lost, 0);
	CHECK_EQ_U64(a[0].old_period, 1);
	CHECK_EQ_U64(a[0].new_period, 2);
	CHECK_EQ_U64(a[0].tasks, 3);
	CHECK_EQ_U64(a[0].new_streams, 6);
	CHECK_EQ_U64(t.n, faults);
	CHECK_EQ_U64(t.weight, faults);
	pms_sampler_stats(s, &st);
	CHECK_EQ_U64(st.lost, 0);
	/* the old rings' records are all handed out: the old events are
	 * closed at the end of the poll, their samples counted as old */
	CHECK(fk_fd(r.fk, old_fd[0]) == NULL && fk_fd(r.fk, old_fd[1]) == NULL);
	CHECK_EQ_U64(a[0].old_samples, faults);
	w1 = t.weight;

	/* Phase 2: the new events, staged too: 10 periods per task and CPU. */
	memset(&t, 0, sizeof(t));
	faults = 0;
	fault_all(r.fk, PID, PID + 2, 10 * 2, &faults);
	pms_smp_copy_step(s);
	CHECK(pms_sampler_poll(s, 0, &cbs, &t) > 0);
	CHECK_EQ_U64(t.n, 60);
	CHECK_EQ_U64(t.weight, faults);
	CHECK_EQ_U64(pms_sampler_events(s), w1 + t.weight);
	for (int k = 0; k < 3; k++)
		CHECK_EQ_U64(t.per_tid[k], 20);
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

/* The copier runs while the poller hands records out: the callback faults
 * 900 times on CPU 1 (7/8 of its ring) and the copier takes them.  The
 * poller sees the copier's note at its next 256th record, adapts, and
 * hands the rest out; the retired ring closes once its records are out. */
static struct {
	struct fk *fk;
	struct pms_sampler *s;
	int at, n;
	uint64_t weight, faults;
} sbusy;

static int sbusy_sample(void *ud, const struct pms_memsample *m)
{
	(void)ud;
	sbusy.n++;
	sbusy.weight += m->period;
	if (sbusy.n == sbusy.at) {
		for (int k = 0; k < 900; k++) {
			fk_task_fault(sbusy.fk, PID, 1, 0x401000,
				      0x7f0000000000 + 4096u * (uint64_t)k);
			sbusy.faults++;
		}
		pms_smp_copy_step(sbusy.s);
	}
	return 0;
}

PMS_TEST(staged_hand_out_stops_to_adapt_when_the_copier_finds_a_ring_filling)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_stats st;
	static const struct pms_sampler_callbacks bcb = { sbusy_sample, NULL };
	const struct pms_sampler_adaptation *a;
	size_t na = 0;
	int rc, fds[2] = { -1, -1 };

	if (th_root_open(&r, "vm-nopmu", "0-1", 2, true) < 0)
		return;
	mkfile(r.dir, "proc/100/task/100/children", "");
	o.target = PMS_TARGET_CHILD;
	o.pid = PID;
	o.adapt = true;
	o.data_pages = 16; /* 64 KiB: 1024 records of 64 bytes (software, PERIOD kept to adapt) */
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	pms_smp_stage_on(s);
	CHECK_EQ_INT(old_fds(r.fk, fds, 2), 2);
	CHECK_OK(pms_sampler_enable(s));
	memset(&sbusy, 0, sizeof(sbusy));
	sbusy.fk = r.fk;
	sbusy.s = s;
	sbusy.at = 10;
	/* 400 records on CPU 0: 39 %, under the trigger */
	for (int k = 0; k < 400; k++) {
		fk_task_fault(r.fk, PID, 0, 0x401000, 0x7f1000000000 + 4096u * (uint64_t)k);
		sbusy.faults++;
	}
	pms_smp_copy_step(s);
	rc = pms_sampler_poll(s, 0, &bcb, NULL);
	CHECK_MSG(rc == 400, "poll returned %d", rc);
	a = pms_sampler_adaptations(s, &na, NULL);
	CHECK_EQ_INT((int)na, 1);
	if (na == 1) {
		CHECK(a[0].fill_pct >= 85); /* 900 x 64 of 65,536 bytes */
		CHECK_EQ_U64(a[0].kept, 256); /* the stop came at the 256th */
		/* 88 % of the ring written since the poll began: x 8 brings
		 * that rate to 1/8 of a ring */
		CHECK(a[0].rate_pct >= 85);
		CHECK_EQ_U64(a[0].new_period, 8);
	}
	/* the adaptation came during the hand-out: the old events are
	 * retired, and CPU 1's records wait in the stage */
	CHECK(fk_fd(r.fk, fds[1]) != NULL);
	rc = pms_sampler_poll(s, 0, &bcb, NULL);
	CHECK_MSG(rc == 900, "second poll returned %d", rc);
	CHECK(fk_fd(r.fk, fds[0]) == NULL && fk_fd(r.fk, fds[1]) == NULL);
	pms_sampler_stats(s, &st);
	CHECK_EQ_U64(st.lost, 0);
	CHECK_EQ_U64(sbusy.weight, sbusy.faults);
	CHECK_EQ_U64(pms_sampler_events(s), sbusy.weight);
	if (na == 1)
		CHECK_EQ_U64(a[0].old_samples, 1300);
	/* after pms_sampler_disable nothing is reopened */
	CHECK_OK(pms_sampler_disable(s));
	for (int k = 0; k < 900; k++)
		fk_task_fault(r.fk, PID, 0, 0x401000, 0x7f2000000000 + 4096u * (uint64_t)k);
	pms_smp_copy_step(s);
	(void)pms_sampler_poll(s, 0, &bcb, NULL);
	pms_sampler_adaptations(s, &na, NULL);
	CHECK_EQ_INT((int)na, 1);
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

/* The copier is not held up while the new events are opened and mapped
 * (tens of ms on a loaded machine, while the old rings fill fastest): the
 * poller opens them without the stage's lock.  The rule hook faults 30
 * times into the old events' ring while task PID+1's new events are being
 * opened, and runs one wake of the copier there: it must get the lock and
 * copy them. */
static struct {
	struct th_root *r;
	struct pms_sampler *s;
	bool done;
	int copied;
} shook;

static int staged_hook_rule(struct fk *fk, const struct perf_event_attr *attr, pid_t pid,
			    int cpu, int group_fd, unsigned long flags)
{
	int ret = fkr_rule(fk, attr, pid, cpu, group_fd, flags);
	if (ret >= 0 && !shook.done && pid == PID + 1 && attr->sample_period > 1) {
		shook.done = true;
		for (int i = 0; i < 30; i++)
			fk_task_fault(fk, PID + 2, 0, 0x401000, 0x7f0000a00000 + 4096u * i);
		shook.copied = pms_smp_copy_step(shook.s);
	}
	return ret;
}

PMS_TEST(staged_copier_runs_while_the_new_events_are_opened)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_stats st;
	struct tally t;
	size_t na = 0;
	uint64_t faults = 0;
	int fds[2] = { -1, -1 };

	if (th_root_open(&r, "vm-nopmu", "0-1", 2, true) < 0)
		return;
	mkfile(r.dir, "proc/100/task/100/children", "102 ");
	mkfile(r.dir, "proc/100/task/101/children", "");
	mkfile(r.dir, "proc/102/task/102/children", "");
	o.target = PMS_TARGET_CHILD;
	o.pid = PID;
	o.adapt = true;
	o.data_pages = 1;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	pms_smp_stage_on(s);
	CHECK_EQ_INT(old_fds(r.fk, fds, 2), 2);
	memset(&shook, 0, sizeof(shook));
	shook.r = &r;
	shook.s = s;
	r.fk->rule = staged_hook_rule;
	CHECK_OK(pms_sampler_enable(s));
	CHECK(fk_task_fork(r.fk, PID, PID + 1) == 2);
	CHECK(fk_task_fork(r.fk, PID, PID + 2) == 2);
	fault_all(r.fk, PID, PID + 2, 13, &faults); /* 68 % of each ring */
	CHECK_EQ_INT(pms_smp_copy_step(s), 1);
	memset(&t, 0, sizeof(t));
	CHECK(pms_sampler_poll(s, 0, &cbs, &t) > 0);
	pms_sampler_adaptations(s, &na, NULL);
	CHECK_EQ_INT((int)na, 1);
	CHECK(shook.done);
	CHECK_MSG(shook.copied == 1, "copier during the opening: %d", shook.copied);
	/* the 30 records copied during the opening came with that poll's
	 * refill, before the hand-out; the old events close after it */
	CHECK_EQ_INT(pms_sampler_poll(s, 0, &cbs, &t), 0);
	pms_sampler_stats(s, &st);
	CHECK_EQ_U64(st.lost, 0);
	CHECK_EQ_U64(t.weight, faults + 30);
	CHECK_EQ_U64(t.n_old, faults + 30);
	CHECK(fk_fd(r.fk, fds[0]) == NULL && fk_fd(r.fk, fds[1]) == NULL);
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST_MAIN()
