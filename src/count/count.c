/* Opening event lists as perf groups on a task or on CPUs, and reading them
 * with time_enabled / time_running (include/pmuscope/count.h). */
#include "count/count_int.h"
#include "event/event_list_int.h" /* the counter reads its events whole */
#include "count/explain.h"

#include "pmuscope/error.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/opts.h"
#include "topo/topo_int.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#ifndef PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC (1UL << 3)
#endif

/* Where one group (or lone event) is opened. */
struct place {
	int cpu;
	pid_t tid;
	const struct pms_uncore_box *box;
};

struct places {
	struct place *p;
	size_t n, cap;
};

static int places_add(struct places *ps, int cpu, pid_t tid, const struct pms_uncore_box *box)
{
	if (pms_grow(&ps->p, &ps->cap, ps->n + 1, sizeof(*ps->p), 16, "counter placements") < 0)
		return PMS_ENOMEM;
	ps->p[ps->n++] = (struct place){ cpu, tid, box };
	return 0;
}

void pms_count_value_scale(struct pms_count_value *v)
{
	/* Multiplexing estimate as perf stat makes it (tools/perf/util/counts.c
	 * perf_counts_values__scale): raw * enabled / running. */
	if (v->running == 0) {
		v->scaled = 0;
		v->fraction = v->enabled ? 0.0 : 1.0;
	} else if (v->running >= v->enabled) {
		v->scaled = (double)v->raw;
		v->fraction = 1.0;
	} else {
		v->scaled = (double)v->raw * ((double)v->enabled / (double)v->running);
		v->fraction = (double)v->running / (double)v->enabled;
	}
}

static bool task_target(const struct pms_count_opts *o)
{
	return o->target != PMS_COUNT_CPUS;
}

/* The threads of the target: /proc/<pid>/task for PID, else the one pid. */
static int target_tids(struct pms_counter *c, pid_t **tids, size_t *n)
{
	char rel[64], **names = NULL;
	size_t count = 0;
	int r;

	*tids = NULL;
	*n = 0;
	if (c->opts.target != PMS_COUNT_PID) {
		*tids = malloc(sizeof(pid_t));
		if (!*tids)
			return pms_err(PMS_ENOMEM, "out of memory");
		(*tids)[0] = c->opts.pid;
		*n = 1;
		return 0;
	}
	snprintf(rel, sizeof(rel), "proc/%d/task", (int)c->opts.pid);
	r = pms_sys_list_dir(c->sys, rel, &names, &count);
	if (r < 0)
		return pms_err(r == PMS_ENOENT ? PMS_ENOENT : r,
			       "no process %d: /%s cannot be listed (%s)", (int)c->opts.pid, rel,
			       pms_error_last());
	*tids = malloc((count ? count : 1) * sizeof(pid_t));
	if (!*tids) {
		pms_sys_names_free(names, count);
		return pms_err(PMS_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < count; i++)
		(*tids)[(*n)++] = (pid_t)atoi(names[i]);
	pms_sys_names_free(names, count);
	if (!*n)
		return pms_err(PMS_ENOENT, "process %d has no threads in /%s", (int)c->opts.pid,
			       rel);
	return 0;
}

/* Placements of a group whose leader is ev. */
static int place_group(struct pms_counter *c, const struct pms_event *ev, const pid_t *tids,
		       size_t ntids, struct places *ps)
{
	const struct pms_pmu *pmu = ev->pmu ? pms_pmu_find(c->pmus, ev->pmu) : NULL;
	int r = 0;

	if (pmu && pmu->kind == PMS_PMU_UNCORE) {
		size_t found = 0;
		/* Once per box on the CPU discovery assigned (SNC-correct). */
		for (size_t i = 0; i < c->nboxes && r >= 0; i++)
			if (!strcmp(c->boxes[i].pmu, pmu->name)) {
				r = places_add(ps, c->boxes[i].reader_cpu, -1, &c->boxes[i]);
				found++;
			}
		if (r < 0 || found)
			return r;
	}
	if (pmu && pmu->has_cpumask && pmu->kind != PMS_PMU_CORE) {
		/* A per-socket style PMU without a box map: the kernel's cpumask. */
		for (int cpu = pms_cpuset_first(&pmu->cpus); cpu >= 0 && r >= 0;
		     cpu = pms_cpuset_next(&pmu->cpus, cpu + 1))
			r = places_add(ps, cpu, -1, NULL);
		if (r < 0 || pms_cpuset_count(&pmu->cpus) > 0)
			return r;
	}
	if (task_target(&c->opts)) {
		for (size_t i = 0; i < ntids && r >= 0; i++)
			r = places_add(ps, -1, tids[i], NULL);
		return r;
	}
	{
		const struct pms_cpuset *set = c->opts.cpus && pms_cpuset_count(c->opts.cpus)
						       ? c->opts.cpus
						       : &c->topo->online;
		bool any = pms_cpuset_count(&ev->cpus) == 0;
		for (int cpu = pms_cpuset_first(set); cpu >= 0 && r >= 0;
		     cpu = pms_cpuset_next(set, cpu + 1))
			if (any || pms_cpuset_has(&ev->cpus, cpu))
				r = places_add(ps, cpu, -1, NULL);
	}
	return r;
}

static void inst_location(const struct pms_counter *c, struct pms_count_instance *in,
			  const struct place *pl)
{
	in->cpu = pl->cpu;
	in->tid = pl->tid;
	in->box = pl->box;
	in->node = -1;
	in->package = -1;
	if (pl->box) {
		in->node = pl->box->node;
		in->package = pl->box->package;
	} else if (pl->cpu >= 0 && c->topo) {
		const struct pms_topo_cpu *tc = pms_topo_cpu(c->topo, pl->cpu);
		if (tc) {
			in->node = tc->node;
			in->package = tc->package;
		}
	}
}

/* "cycles (member 2 of group {instructions,cycles})" for messages. */
static void group_label(const struct pms_event_list *l, const size_t *members, size_t n,
			size_t k, char *buf, size_t size)
{
	size_t len;
	if (n == 1) {
		snprintf(buf, size, "%s", l->events[members[0]].name);
		return;
	}
	len = (size_t)snprintf(buf, size, "%s (member %zu of group {", l->events[members[k]].name,
			       k + 1);
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "",
					l->events[members[i]].name);
	if (len < size)
		snprintf(buf + len, size - len, "})");
}

static int open_slot(struct pms_counter *c, const size_t *members, size_t n, int group,
		     const struct place *pl)
{
	const struct pms_sys_ops *ops = pms_sys_ops(c->sys);
	int leader_fd = -1, r;
	size_t first = c->ninst;

	r = pms_grow(&c->inst, &c->cap_inst, c->ninst + n, sizeof(*c->inst), 32, "counters");
	if (r < 0)
		return r;
	r = pms_grow(&c->slots, &c->cap_slots, c->nslots + 1, sizeof(*c->slots), 32, "counter slots");
	if (r < 0)
		return r;
	for (size_t k = 0; k < n; k++) {
		const struct pms_event *ev = &c->list->events[members[k]];
		struct perf_event_attr a = ev->attr;
		bool task = pl->tid != -1;
		pid_t pid = task ? pl->tid : -1;
		int fd;

		if (ev->config4)
			return pms_err(PMS_ENOTSUP,
				       "event '%s' sets config4, which this build's "
				       "perf_event_attr cannot carry", ev->name);
		a.size = sizeof(a);
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		if (n > 1)
			a.read_format |= PERF_FORMAT_GROUP;
		a.inherit = task && !c->opts.no_inherit;
		/* Members follow their leader: only the leader is disabled
		 * (kernel/events/core.c: a sibling is scheduled with its group). */
		a.disabled = k == 0;
		a.enable_on_exec = k == 0 && task && c->opts.target == PMS_COUNT_CHILD;
		fd = ops->perf_event_open(ops->ud, &a, pid, pl->cpu, leader_fd,
					  PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			char label[256];
			c->open_errno = -fd;
			struct pms_open_ctx ctx = { label, ev->pmu, pl->cpu, pid, (int)c->ninst };
			group_label(c->list, members, n, k, label, sizeof(label));
			return pms_count_explain(c->sys, c->pmus, &a, &ctx, -fd);
		}
		struct pms_count_inst *in = &c->inst[c->ninst++];
		memset(in, 0, sizeof(*in));
		in->fd = fd;
		in->leader = k == 0;
		in->pub.event = members[k];
		in->pub.group_slot = (int)c->nslots;
		inst_location(c, &in->pub, pl);
		if (k == 0)
			leader_fd = fd;
	}
	c->slots[c->nslots++] = (struct pms_count_slot){ first, n, group, false };
	return 0;
}

static int ioctl_leaders(struct pms_counter *c, unsigned long req, const char *what,
			 bool skip_exec)
{
	const struct pms_sys_ops *ops = pms_sys_ops(c->sys);
	for (size_t s = 0; s < c->nslots; s++) {
		struct pms_count_inst *in = &c->inst[c->slots[s].first];
		int r;
		/* enable_on_exec leaders start at the child's exec. */
		if (skip_exec && in->pub.tid != -1 && c->opts.target == PMS_COUNT_CHILD)
			continue;
		r = ops->ioctl(ops->ud, in->fd, req, 0);
		if (r < 0)
			return pms_err_errno(0, -r, "ioctl %s on '%s' (fd %d)", what,
					     c->list->events[in->pub.event].name, in->fd);
	}
	return 0;
}

int pms_counter_enable(struct pms_counter *c)
{
	return ioctl_leaders(c, PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE", false);
}

int pms_counter_disable(struct pms_counter *c)
{
	return ioctl_leaders(c, PERF_EVENT_IOC_DISABLE, "PERF_EVENT_IOC_DISABLE", false);
}

/* skip_unsupported: after a failed open of a group whose cause is the
 * machine not supporting it (perf stat's list, builtin-stat.c
 * stat_handle_error: EINVAL ENOSYS ENOENT EOPNOTSUPP ENXIO; ENODEV too, a
 * PMU type that is gone), close what the group opened since inst0/slot0 and
 * remember the message for its events.  0 when skipped, -1 when the error
 * stands. */
static int skip_group(struct pms_counter *c, const size_t *members, size_t n, size_t inst0,
		      size_t slot0)
{
	int e = c->open_errno;
	char *why;
	if (!c->opts.skip_unsupported)
		return -1;
	if (e != EINVAL && e != ENOSYS && e != ENOENT && e != EOPNOTSUPP && e != ENXIO &&
	    e != ENODEV)
		return -1;
	while (c->ninst > inst0)
		pms_sys_close(c->sys, c->inst[--c->ninst].fd);
	c->nslots = slot0;
	why = strdup(pms_error_last());
	if (!why)
		return -1;
	for (size_t k = 0; k < n; k++) {
		if (c->unsupported[members[k]])
			continue;
		c->unsupported[members[k]] = k ? strdup(why) : why;
		c->nunsupported++;
	}
	if (c->unsupported[members[0]] != why)
		free(why);
	return 0;
}

size_t pms_counter_unsupported(const struct pms_counter *c, char *buf, size_t size)
{
	if (buf && size)
		buf[0] = 0;
	if (!c)
		return 0;
	for (size_t i = 0; buf && size && i < c->list->count; i++)
		if (c->unsupported[i]) {
			snprintf(buf, size, "%s", c->unsupported[i]);
			break;
		}
	return c->nunsupported;
}

/* Place and open one group (or lone event) members[0..n-1] led by ev. */
static int open_members(struct pms_counter *c, const size_t *members, size_t n, int group,
			const struct pms_event *ev, const pid_t *tids, size_t ntids,
			struct places *ps)
{
	size_t inst0 = c->ninst, slot0 = c->nslots;
	int r;
	ps->n = 0;
	r = place_group(c, ev, tids, ntids, ps);
	if (r < 0)
		return r;
	if (!ps->n) {
		r = pms_err(PMS_ENOENT, "event '%s': no CPU of the target is covered by %s", ev->name,
			    ev->pmu ? ev->pmu : "its PMU");
		c->open_errno = ENOENT;
		return skip_group(c, members, n, c->ninst, c->nslots) == 0 ? 0 : r;
	}
	for (size_t k = 0; k < ps->n; k++) {
		c->open_errno = 0;
		r = open_slot(c, members, n, group, &ps->p[k]);
		if (r < 0 && skip_group(c, members, n, inst0, slot0) == 0)
			return 0;
		if (r < 0)
			return r;
	}
	return 0;
}

size_t pms_counter_whole_domain(const struct pms_counter *c, char *buf, size_t size)
{
	size_t n = 0, len = 0;
	if (buf && size)
		buf[0] = 0;
	if (!c || !task_target(&c->opts))
		return 0;
	for (size_t i = 0; i < c->list->count; i++) {
		const struct pms_event *ev = &c->list->events[i];
		const struct pms_pmu *p = ev->pmu && c->pmus ? pms_pmu_find(c->pmus, ev->pmu) : NULL;
		bool seen = false;
		if (!p || p->kind != PMS_PMU_UNCORE)
			continue;
		/* one name per written event (its per-box expansions share it) */
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(c->list->events[k].name, ev->name);
		if (seen)
			continue;
		n++;
		if (buf && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "", ev->name);
	}
	return n;
}

PMS_OPTS_LAYOUT(PMS_COUNT_OPTS, struct pms_count_opts,
		PMS_OPTS_END(struct pms_count_opts, no_inherit),
		PMS_OPTS_END(struct pms_count_opts, skip_unsupported));

int pms_counter_open(struct pms_sys *sys, const struct pms_pmus *pmus,
		     const struct pms_topo *topo, const struct pms_event_list *list,
		     const struct pms_count_opts *opts, struct pms_counter **out)
{
	struct pms_count_opts o;
	struct pms_counter *c = NULL;
	struct places ps = { 0 };
	pid_t *tids = NULL;
	size_t ntids = 0, *members = NULL;
	bool need_boxes = false;
	int r;

	*out = NULL;
	if (!sys || !list)
		return pms_err(PMS_EINVAL, "pms_counter_open: missing sys or event list");
	if ((r = PMS_OPTS_TAKE("pms_counter_open", PMS_COUNT_OPTS, opts, &o)) < 0)
		return r;
	opts = &o;
	if (!list->count)
		return pms_err(PMS_EINVAL, "pms_counter_open: no events to count");
	if (opts->target == PMS_COUNT_CPUS && !topo)
		return pms_err(PMS_EINVAL, "counting on CPUs needs the topology (online CPUs)");
	if (task_target(opts) && opts->pid <= 0)
		return pms_err(PMS_EINVAL, "counting a task needs a pid > 0, not %d",
			       (int)opts->pid);
	c = calloc(1, sizeof(*c));
	members = malloc(list->count * sizeof(*members));
	if (!c || !members) {
		r = pms_err(PMS_ENOMEM, "out of memory for a counter");
		goto out;
	}
	c->sys = sys;
	c->pmus = pmus;
	c->topo = topo;
	c->list = list;
	c->opts = o;
	c->unsupported = calloc(list->count, sizeof(*c->unsupported));
	if (!c->unsupported) {
		r = pms_err(PMS_ENOMEM, "out of memory for a counter");
		goto out;
	}
	for (size_t i = 0; i < list->count; i++) {
		const struct pms_pmu *p = list->events[i].pmu && pmus
						  ? pms_pmu_find(pmus, list->events[i].pmu)
						  : NULL;
		if (p && p->kind == PMS_PMU_UNCORE)
			need_boxes = true;
	}
	if (need_boxes && topo && pmus) {
		r = pms_uncore_map(topo, pmus, &c->boxes, &c->nboxes);
		if (r < 0)
			goto out;
	}
	if (task_target(opts)) {
		r = target_tids(c, &tids, &ntids);
		if (r < 0)
			goto out;
	}
	for (size_t i = 0; i < list->count; i++) {
		const struct pms_event *ev = &list->events[i];
		size_t n = 0;
		if (ev->group >= 0 && !ev->group_leader)
			continue; /* opened with its leader */
		members[n++] = i;
		if (ev->group >= 0)
			for (size_t j = 0; j < list->count; j++)
				if (j != i && list->events[j].group == ev->group)
					members[n++] = j;
		/* A group on an Arm PMUv3 PMU that its counters cannot hold:
		 * refused before opening, left out, or split when weak (W). */
		r = n > 1 ? pms_count_budget_check(c, members, n) : 0;
		if (r == PMS_ERANGE && ev->weak) {
			if (!c->nsplit++)
				c->split_why = strdup(pms_error_last());
			for (size_t k = 0; k < n; k++) {
				r = open_members(c, &members[k], 1, -1, &list->events[members[k]], tids,
						 ntids, &ps);
				if (r < 0)
					goto out;
			}
			continue;
		}
		if (r == PMS_ERANGE) {
			c->open_errno = EINVAL;
			if (skip_group(c, members, n, c->ninst, c->nslots) == 0)
				continue;
			goto out;
		}
		if (r < 0)
			goto out;
		r = open_members(c, members, n, ev->group, ev, tids, ntids, &ps);
		if (r < 0)
			goto out;
	}
	pms_error_clear();
	/* CPU-wide counters (and all of a PID/TID/CPUS target) start now;
	 * a CHILD's task counters start at its exec. */
	r = ioctl_leaders(c, PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE", true);
	if (r < 0)
		goto out;
	*out = c;
	c = NULL;
	r = 0;
out:
	free(ps.p);
	free(tids);
	free(members);
	pms_counter_free(c);
	return r;
}

void pms_counter_free(struct pms_counter *c)
{
	if (!c)
		return;
	/* Reverse order of opening: members before their leader. */
	for (size_t i = c->ninst; i-- > 0;)
		pms_sys_close(c->sys, c->inst[i].fd);
	free(c->inst);
	free(c->slots);
	pms_uncore_boxes_free(c->boxes, c->nboxes);
	for (size_t i = 0; c->unsupported && i < c->list->count; i++)
		free(c->unsupported[i]);
	free(c->unsupported);
	free(c->budgets);
	free(c->split_why);
	free(c);
}

/* Parse one read() of a slot (layouts: kernel-abi-facts §1.4 read_format;
 * kernel/events/core.c perf_read_one / perf_read_group). */
static int read_slot(struct pms_counter *c, struct pms_count_slot *s)
{
	const struct pms_sys_ops *ops = pms_sys_ops(c->sys);
	struct pms_count_inst *lead = &c->inst[s->first];
	size_t words = s->n > 1 ? 3 + s->n : 3;
	uint64_t buf[3 + 64], *v = buf;
	uint64_t te, tr;
	ssize_t got;

	if (words > sizeof(buf) / sizeof(buf[0])) {
		v = malloc(words * sizeof(uint64_t));
		if (!v)
			return pms_err(PMS_ENOMEM, "out of memory for a group read");
	}
	got = ops->read(ops->ud, lead->fd, v, words * sizeof(uint64_t));
	if (got < 0) {
		int e = (int)-got;
		if (v != buf)
			free(v);
		return pms_err_errno(0, e, "read of '%s' (fd %d)",
				     c->list->events[lead->pub.event].name, lead->fd);
	}
	if ((size_t)got != words * sizeof(uint64_t) || (s->n > 1 && v[0] != s->n)) {
		int r = pms_err(PMS_EPARSE,
				"read of '%s' (fd %d) returned %zd bytes%s, expected %zu "
				"(read_format enabled+running%s, %zu values)",
				c->list->events[lead->pub.event].name, lead->fd, got,
				s->n > 1 ? " for a group" : "", words * sizeof(uint64_t),
				s->n > 1 ? "+group" : "", s->n);
		if (v != buf)
			free(v);
		return r;
	}
	if (s->n > 1) {
		te = v[1];
		tr = v[2];
		for (size_t i = 0; i < s->n; i++)
			c->inst[s->first + i].pub.v.raw = v[3 + i];
	} else {
		lead->pub.v.raw = v[0];
		te = v[1];
		tr = v[2];
	}
	for (size_t i = 0; i < s->n; i++) {
		struct pms_count_value *cv = &c->inst[s->first + i].pub.v;
		cv->enabled = te;
		cv->running = tr;
		pms_count_value_scale(cv);
	}
	s->unscheduled = te > 0 && tr == 0;
	if (v != buf)
		free(v);
	return 0;
}

int pms_counter_read(struct pms_counter *c)
{
	for (size_t s = 0; s < c->nslots; s++) {
		int r = read_slot(c, &c->slots[s]);
		if (r < 0)
			return r;
	}
	if (!c->opts.strict)
		return 0;
	for (size_t i = 0; i < c->ninst; i++) {
		const struct pms_count_instance *in = &c->inst[i].pub;
		if (in->v.running < in->v.enabled) {
			char where[48];
			if (in->cpu >= 0)
				snprintf(where, sizeof(where), "cpu %d", in->cpu);
			else
				snprintf(where, sizeof(where), "thread %d", (int)in->tid);
			return pms_err(PMS_EBUSY,
				       "strict: '%s' on %s ran %.2f%% of the time it was enabled "
				       "(time_running %llu < time_enabled %llu ns)%s; count fewer "
				       "events at once, or drop strict mode to get scaled estimates",
				       c->list->events[in->event].name, where, 100.0 * in->v.fraction,
				       (unsigned long long)in->v.running,
				       (unsigned long long)in->v.enabled,
				       in->v.running == 0 ? ": its group was never scheduled" : "");
		}
	}
	return 0;
}

const struct pms_event_list *pms_counter_events(const struct pms_counter *c)
{
	return c->list;
}

size_t pms_counter_ninstances(const struct pms_counter *c)
{
	return c->ninst;
}

const struct pms_count_instance *pms_counter_instance(const struct pms_counter *c, size_t i)
{
	return i < c->ninst ? &c->inst[i].pub : NULL;
}

int pms_counter_fd(const struct pms_counter *c, size_t i)
{
	return i < c->ninst ? c->inst[i].fd : PMS_ERANGE;
}

int pms_counter_unscheduled_groups(const struct pms_counter *c, char *buf, size_t size)
{
	int n = 0;
	size_t len = 0;
	if (buf && size)
		buf[0] = '\0';
	for (size_t s = 0; s < c->nslots; s++) {
		const struct pms_count_slot *sl = &c->slots[s];
		if (!sl->unscheduled)
			continue;
		n++;
		if (!buf || len >= size)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s{", n > 1 ? " " : "");
		for (size_t i = 0; i < sl->n && len < size; i++)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "",
						c->list->events[c->inst[sl->first + i].pub.event].name);
		if (len < size) {
			const struct pms_count_instance *in = &c->inst[sl->first].pub;
			if (in->cpu >= 0)
				len += (size_t)snprintf(buf + len, size - len, "}@cpu%d", in->cpu);
			else
				len += (size_t)snprintf(buf + len, size - len, "}@tid%d",
							(int)in->tid);
		}
	}
	return n;
}
