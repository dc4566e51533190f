/* The sampler (sampler.c): its streams, one event fd and ring each, opened
 * per CPU or per thread, and closed. */
#include "sample/sampler_int.h"
#include "sample/sampler_obj_int.h"
#include "util/error.h"
#include "util/grow.h"

#include "pmuscope/datasrc.h"
#include "pmuscope/event.h"
#include "pmuscope/ring.h"
#include "pmuscope/spe.h"

#include <errno.h>
#include <stddef.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int map_ring(struct pms_sampler *s, struct stream *st, size_t pages)
{
	int ret;
	/* Shrink on refusal: unprivileged users hit perf_event_mlock_kb. */
	for (;;) {
		ret = pms_ring_open(s->sys, st->fd, pages, &st->ring);
		if (ret >= 0 || pages <= 1 || (ret != PMS_EPERM && ret != PMS_ENOMEM))
			return ret;
		pages /= 2;
	}
}

/* MIDR_EL1 of a CPU (the topology's), 0 when unknown: the SPE data-source
 * tables are chosen by it (kernel-abi-facts §4.1). */
static uint32_t cpu_midr(const struct pms_sampler *s, int cpu)
{
	const struct pms_topo_cpu *c = s->id ? pms_topo_cpu(s->id, cpu) : NULL;
	return c ? (uint32_t)c->midr : 0;
}

/* The threads to attach to: every task of an existing process (an event on
 * a pid follows that one thread; inherit only covers threads created later),
 * the single pid of a child waiting before exec, or -1 for CPU-wide. */
static int target_tids(struct pms_sampler *s, pid_t **out, size_t *n)
{
	char path[64], **names = NULL;
	size_t count = 0;
	pid_t *t;

	*out = NULL;
	*n = 0;
	if (s->o.target == PMS_TARGET_PID) {
		snprintf(path, sizeof(path), "proc/%d/task", (int)s->o.pid);
		if (pms_sys_list_dir(s->sys, path, &names, &count) < 0)
			count = 0; /* a fake root: the pid alone */
	}
	t = calloc(count ? count : 1, sizeof(*t));
	if (!t) {
		pms_sys_names_free(names, count);
		return pms_err(PMS_ENOMEM, "out of memory for the thread list");
	}
	if (count == 0) {
		t[0] = s->o.target == PMS_TARGET_CPUS ? -1 : s->o.pid;
		*n = 1;
	} else {
		for (size_t i = 0; i < count; i++) {
			char *end;
			long v = strtol(names[i], &end, 10);
			if (*end == 0 && v > 0)
				t[(*n)++] = (pid_t)v;
		}
	}
	pms_sys_names_free(names, count);
	*out = t;
	return 0;
}

/* Ring data pages: the caller's, else perf record's default of 512 KiB
 * (tools/perf/util/evlist.c, perf_event_mlock_kb's 516 KiB less the user
 * page): the ring perf keeps the same workload's samples in. */

size_t smp_ring_pages(const struct pms_sampler *s)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t bytes = 512 << 10, n;
	/* With adaptation, the first rings must also hold what comes before
	 * the first poll (a loaded machine may not run the poller for tens of
	 * milliseconds): 4 MiB each, 64 MiB over all CPUs at most, never
	 * less than perf's 512 KiB. */
	if (s->o.adapt && smp_adaptable(&s->plan)) {
		int ncpu = pms_cpuset_count(&s->plan.cpus);
		size_t per = ncpu > 0 ? (size_t)(64 << 20) / (size_t)ncpu : bytes;
		bytes = per > (4 << 20) ? (4 << 20) : per < bytes ? bytes : per;
		for (size_t p = 1;; p *= 2)
			if (p * 2 > bytes) {
				bytes = p;
				break;
			}
	}
	n = psz > 0 && (size_t)psz <= bytes ? bytes / (size_t)psz : 1;
	return s->o.data_pages ? s->o.data_pages : n;
}

/* Open the plan's events on each of tids x each CPU, appending streams with
 * rings of pages data pages. */
int smp_open_gen(struct pms_sampler *s, const pid_t *tids, size_t ntids, size_t pages)
{
	struct smp_plan *p = &s->plan;
	size_t cap = s->nst;
	int ret = 0;

	for (size_t ti = 0; ti < ntids; ti++)
	for (int cpu = pms_cpuset_first(&p->cpus); cpu >= 0;
	     cpu = pms_cpuset_next(&p->cpus, cpu + 1)) {
		pid_t pid = tids[ti];
		int fds[SMP_MAX_EVENTS];
		for (int i = 0; i < p->nev; i++) {
			struct smp_event *ev = &p->ev[i];
			struct stream *st;
			char what[160];
			int gfd = -1, fd;

			fds[i] = -1;
			if (!pms_smp_event_on_cpu(ev, cpu))
				continue;
			if (ev->leader >= 0) {
				gfd = fds[ev->leader];
				if (gfd < 0)
					continue;
			}
			snprintf(what, sizeof(what), "perf_event_open(%s, pid %d, cpu %d)",
				 ev->pmu_name, (int)pid, cpu);
			fd = pms_sys_perf_event_open(s->sys, &ev->attr, pid, cpu, gfd,
						     PERF_FLAG_FD_CLOEXEC, what);
			if (fd < 0) {
				/* A thread that exited since the task list was read. */
				if ((ntids > 1 || s->gen) && pms_error_errno() == ESRCH)
					break;
				return fd;
			}
			fds[i] = fd;
			uint64_t id = 0;
			if (ev->attr.sample_type & PMS_SAMPLE_IDENTIFIER) {
				const struct pms_sys_ops *ops = pms_sys_ops(s->sys);
				int r = ops->ioctl(ops->ud, fd, PERF_EVENT_IOC_ID,
						   (unsigned long)(uintptr_t)&id);
				if (r < 0) {
					pms_sys_close(s->sys, fd);
					return pms_err_errno(0, -r, "PERF_EVENT_IOC_ID on %s", what);
				}
			}
			if (s->nst == cap) {
				size_t n = cap ? cap * 2 : 16;
				struct stream *ns;
				/* the copier reads streams [0, nst_pub) under mu */
				if (s->st_unlocked)
					pthread_mutex_lock(&s->mu);
				ns = realloc(s->st, n * sizeof(*ns));
				if (ns)
					s->st = ns;
				if (s->st_unlocked)
					pthread_mutex_unlock(&s->mu);
				if (!ns) {
					pms_sys_close(s->sys, fd);
					return pms_err(PMS_ENOMEM, "out of memory for sampler streams");
				}
				cap = n;
			}
			st = &s->st[s->nst++];
			memset(st, 0, sizeof(*st));
			st->fd = fd;
			st->id = id;
			st->ev = i;
			st->cpu = cpu;
			st->period = ev->attr.freq ? ev->attr.sample_freq : ev->attr.sample_period;
			st->gen = s->gen;
			st->root = s->o.target == PMS_TARGET_CPUS ? -1 : pid;
			pms_sample_layout_from_attr(&st->layout, &ev->attr);
			if ((ret = map_ring(s, st, pages)) < 0)
				return ret;
			if (ev->engine == PMS_ENG_SPE && ev->role != SMP_ROLE_SIDEBAND) {
				size_t ap = s->o.aux_pages ? s->o.aux_pages : 128;
				if ((ret = pms_ring_aux_open(st->ring, ap)) < 0)
					return ret;
				st->midr = cpu_midr(s, cpu);
			}
		}
	}
	return 0;
}

int smp_open_streams(struct pms_sampler *s)
{
	size_t ntids = 0;
	pid_t *tids = NULL;
	int ret;

	if ((ret = target_tids(s, &tids, &ntids)) < 0)
		return ret;
	s->pages = smp_ring_pages(s);
	ret = smp_open_gen(s, tids, ntids, s->pages);
	free(tids);
	return ret;
}

void smp_close_streams(struct pms_sampler *s)
{
	/* Members before leaders: close in reverse order of opening. */
	for (size_t i = s->nst; i-- > 0;) {
		free(s->st[i].carry);
		pms_ring_free(s->st[i].ring);
		pms_sys_close(s->sys, s->st[i].fd);
	}
	free(s->st);
	s->st = NULL;
	s->nst = 0;
}

int smp_build_pfd(struct pms_sampler *s)
{
	struct pollfd *p = realloc(s->pfd, (s->nst ? s->nst : 1) * sizeof(*p));
	if (!p)
		return pms_err(PMS_ENOMEM, "out of memory for poll fds");
	s->pfd = p;
	for (size_t i = 0; i < s->nst; i++) {
		s->pfd[i].fd = s->st[i].hup ? -1 : s->st[i].fd;
		s->pfd[i].events = POLLIN;
		s->pfd[i].revents = 0;
	}
	return 0;
}

void smp_note_append(struct smp_plan *p, const char *text)
{
	size_t len = strlen(p->notes);
	snprintf(p->notes + len, sizeof(p->notes) - len, "%s%s", len ? "; " : "", text);
}

/* A plan the adaptation can reopen event by event: no groups (a member's
 * group fd would have to be reopened with it) and no AUX areas. */
bool smp_adaptable(const struct smp_plan *p)
{
	for (int i = 0; i < p->nev; i++)
		if (p->ev[i].leader >= 0 || p->ev[i].role == SMP_ROLE_AUX_LEADER ||
		    p->ev[i].engine == PMS_ENG_SPE)
			return false;
	return true;
}
