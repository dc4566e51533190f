/* The sampler (sampler.c): adaptation to loss, a new generation of streams
 * at a larger period with larger rings. */
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

/* ---- adaptation to loss (opts.adapt) ------------------------------------------
 * PERF_EVENT_IOC_PERIOD changes only the event it is given
 * (kernel/events/core.c:6089-6096 -> _perf_event_period, 6009-6030), not the
 * events inherited from it, which copy the period once, when their task is
 * forked (inherit_event: perf_event_alloc from the top parent's attr,
 * core.c:13706-13713; in freq mode its hw period, 13752-13760).  A running
 * child's threads would keep the old period.  So the sampler reopens: new events (larger
 * period, larger rings) on every task of the target, found through
 * /proc/PID/task and /proc/PID/task/TID/children, with inherit for the tasks
 * they fork; then PERF_EVENT_IOC_DISABLE on the old events, which reaches
 * every event inherited from them (_perf_ioctl, core.c:6178-6180 ->
 * perf_event_for_each_child, 5938-5950), and ENABLE on the new ones; the old
 * rings are drained and closed (closing frees the inherited events,
 * perf_event_release_kernel).  A task forked while the new events were being
 * opened may miss them (a second walk opens events on it) or get them twice,
 * from its creator and directly: its samples are then kept from one lineage
 * only (the task's own events, else the first seen), by the ring they come
 * from -- inherited events write into their parent's ring (ring_buffer.c:
 * 171-172; smp_root_keep). */

struct tidset {
	pid_t *v;
	size_t n, cap;
};

static int tid_add(struct tidset *t, pid_t v)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i] == v)
			return 0;
	int rc = pms_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v), 32, "the task list");
	if (rc < 0)
		return rc;
	t->v[t->n++] = v;
	return 1;
}

/* The target's tasks now: the threads of the target process and of every
 * descendant process (CONFIG_PROC_CHILDREN's children files), which the
 * first events reach by inheritance. */
static int walk_tasks(struct pms_sampler *s, struct tidset *out)
{
	struct tidset procs = { NULL, 0, 0 };
	int ret = tid_add(&procs, s->o.pid);

	for (size_t pi = 0; ret >= 0 && pi < procs.n && pi < 65536; pi++) {
		char path[96], **names = NULL;
		size_t count = 0;
		snprintf(path, sizeof(path), "proc/%d/task", (int)procs.v[pi]);
		if (pms_sys_list_dir(s->sys, path, &names, &count) < 0)
			continue; /* gone since its parent listed it */
		for (size_t i = 0; ret >= 0 && i < count; i++) {
			char *end, *text = NULL;
			long tid = strtol(names[i], &end, 10);
			if (*end || tid <= 0)
				continue;
			if ((ret = tid_add(out, (pid_t)tid)) < 0)
				break;
			snprintf(path, sizeof(path), "proc/%d/task/%ld/children", (int)procs.v[pi],
				 tid);
			if (pms_sys_read_file(s->sys, path, &text, NULL) < 0)
				continue;
			for (char *q = text;;) {
				long c = strtol(q, &end, 10);
				if (end == q)
					break;
				if (c > 0 && (ret = tid_add(&procs, (pid_t)c)) < 0)
					break;
				q = end;
			}
			free(text);
		}
		pms_sys_names_free(names, count);
	}
	if (ret >= 0 && out->n == 0)
		ret = tid_add(out, s->o.pid); /* a root without /proc: the pid alone */
	free(procs.v);
	pms_error_clear();
	return ret < 0 ? ret : 0;
}

/* The lineage table is keyed by (generation, task): a retired generation's
 * rings are drained after the next change too (issue 32 item 8: their
 * second-lineage samples passed unfiltered once the table was reset for
 * the new generation, and the total overshot the faults). */
static uint32_t root_hash(unsigned gen, int32_t tid)
{
	return ((uint32_t)tid ^ (gen * 0x9e3779b9u)) * 2654435761u;
}

static struct root_slot *root_find(struct pms_sampler *s, unsigned gen, int32_t tid, bool add)
{
	if (add && (s->nroots + 1) * 2 > s->caproots) {
		size_t ncap = s->caproots ? s->caproots * 2 : 64;
		struct root_slot *n = calloc(ncap, sizeof(*n));
		if (!n)
			return NULL;
		for (size_t i = 0; i < s->caproots; i++) {
			size_t h;
			if (!s->roots[i].tid)
				continue;
			for (h = root_hash(s->roots[i].gen, s->roots[i].tid) & (ncap - 1); n[h].tid;
			     h = (h + 1) & (ncap - 1))
				;
			n[h] = s->roots[i];
		}
		free(s->roots);
		s->roots = n;
		s->caproots = ncap;
	}
	if (!s->caproots)
		return NULL;
	for (size_t h = root_hash(gen, tid) & (s->caproots - 1);; h = (h + 1) & (s->caproots - 1)) {
		if (s->roots[h].tid == tid && s->roots[h].gen == gen)
			return &s->roots[h];
		if (!s->roots[h].tid) {
			if (!add)
				return NULL;
			s->roots[h].tid = tid;
			s->roots[h].gen = gen;
			s->roots[h].root = 0;
			s->nroots++;
			return &s->roots[h];
		}
	}
}

/* Whether a sample of task tid that came from events opened on root is
 * from the one lineage kept for that task in this generation: its own
 * events where it has them (found by a walk), else the first seen.  Its
 * own and inherited events are enabled at the same switch (adapt_now). */
bool smp_root_keep(struct pms_sampler *s, unsigned gen, int32_t tid, pid_t root)
{
	struct root_slot *r;
	if (tid <= 0 || root <= 0)
		return true;
	r = root_find(s, gen, tid, true);
	if (!r)
		return true; /* out of memory: keep */
	if (!r->root)
		r->root = root;
	return r->root == root;
}

uint64_t smp_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* PERF_EVENT_IOC_ENABLE / DISABLE on streams [from, to). */
static void ioctl_range(struct pms_sampler *s, size_t from, size_t to, unsigned long req)
{
	const struct pms_sys_ops *ops = pms_sys_ops(s->sys);
	for (size_t i = from; i < to; i++)
		(void)ops->ioctl(ops->ud, s->st[i].fd, req, 0);
}

static void close_from(struct pms_sampler *s, size_t from)
{
	for (size_t i = s->nst; i-- > from;) {
		free(s->st[i].carry);
		pms_ring_free(s->st[i].ring);
		pms_sys_close(s->sys, s->st[i].fd);
	}
	s->nst = from;
}

/* Open the next generation with a period factor times larger, switch to
 * it and retire the current one.  On failure the current one runs on and
 * adaptation stops (noted). */
struct adapt_why {
	uint64_t kept, lost;
	unsigned fill, rate;
};

/* Over 150 lines on purpose: one transaction (save the plan's attrs, widen
 * the period or the rings, reopen, and on any failure restore every step);
 * the rollback needs the saved attrs, the old generation and the thread
 * set together, which a split would pass around by pointer. */
static int adapt_now(struct pms_sampler *s, const struct adapt_why *w)
{
	uint64_t kept = w->kept, lost = w->lost;
	unsigned fill = w->fill;
	struct smp_plan *p = &s->plan;
	struct perf_event_attr saved[SMP_MAX_EVENTS];
	struct pms_sampler_adaptation a, *na;
	struct tidset tids = { NULL, 0, 0 };
	long psz = sysconf(_SC_PAGESIZE);
	size_t maxpages = psz > 0 ? (size_t)(4 << 20) / (size_t)psz : 1024;
	size_t first = s->nst, old_n = 0;
	uint64_t factor = 2, t0, t1;
	unsigned old_gen = s->gen;
	bool gone = false;
	int ret;

	memset(&a, 0, sizeof(a));
	/* Keep the records the drain can take: scale by (kept + lost) / kept,
	 * twice that for headroom; a ring 3/4 full: 4, a full one (>= 95 %):
	 * 8; a ring that received r % of its size between two polls: enough
	 * to bring r to 1/8 (the next interval may be far longer: the caller
	 * resolves nodes between polls); a power of two from 2 to 64. */
	factor = fill >= 95 ? 8 : fill >= 75 ? 4 : 2;
	while (factor < 64 && lost && (!kept || factor * kept < 2 * (kept + lost)))
		factor *= 2;
	while (factor < 64 && w->rate > 12 * factor)
		factor *= 2;
	for (int i = 0; i < p->nev; i++) {
		struct perf_event_attr *at = &p->ev[i].attr;
		saved[i] = *at;
		if (p->ev[i].role == SMP_ROLE_MAIN || p->ev[i].role == SMP_ROLE_EXTRA) {
			if (!a.new_period) {
				a.freq = at->freq;
				a.old_period = at->freq ? at->sample_freq : at->sample_period;
			}
			if (at->freq)
				at->sample_freq = at->sample_freq / factor ? at->sample_freq / factor : 1;
			else if (at->sample_period < (1ULL << 40))
				at->sample_period *= factor;
			if (!a.new_period)
				a.new_period = at->freq ? at->sample_freq : at->sample_period;
			/* A software event sampling PERIOD without freq overflows
			 * on every event (kernel/events/core.c:10079-10081
			 * perf_swevent_event): the new events leave PERIOD out and
			 * each sample takes its stream's period (as build_sw). */
			if (at->type == PERF_TYPE_SOFTWARE && !at->freq && at->sample_period > 1)
				at->sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
		}
		at->disabled = 1;
		at->enable_on_exec = 0;
	}
	a.old_pages = s->pages;
	a.new_pages = s->pages * 2 <= maxpages ? s->pages * 2 : s->pages;
	a.kept = kept;
	a.lost = lost;
	a.fill_pct = fill;
	a.rate_pct = w->rate;
	for (size_t i = 0; i < s->nst; i++)
		old_n += s->st[i].gen == old_gen && !s->st[i].retired;
	a.old_streams = old_n;
	if (s->staged) {
		/* Staged (the caller holds mu): the copier goes on copying the
		 * old rings while the new events are opened and mapped (tens
		 * of ms on a loaded machine, when the old rings fill fastest).
		 * It reads streams [0, nst_pub) only; this appends after them
		 * and moves the array only under mu (smp_open_gen). */
		s->nst_pub = s->nst;
		s->st_unlocked = true;
		pthread_mutex_unlock(&s->mu);
	}
	if (s->o.target == PMS_TARGET_CPUS)
		ret = tid_add(&tids, -1);
	else
		ret = walk_tasks(s, &tids);
	s->gen = old_gen + 1;
	if (ret >= 0)
		ret = smp_open_gen(s, tids.v, tids.n, a.new_pages);
	if (ret < 0)
		goto fail;
	/* Every task exited since the walk (a task past perf_event_exit_task
	 * refuses new events with ESRCH: kernel/events/core.c
	 * find_get_context, PF_EXITING): nothing to move to; the old rings
	 * hold the last records.  No change is recorded (it would say 0 new
	 * streams: an ASan CI run of cli_adapt adapted at the final drain). */
	if (s->nst == first && s->o.target != PMS_TARGET_CPUS) {
		gone = true;
		goto fail;
	}
	/* Tasks forked from one whose new events were not yet open: found and
	 * given events of their own before the switch, while the old events
	 * still count them (they inherited those).  After the switch such a
	 * task counted nothing until a later walk opened its events: a CI run
	 * of cli_adapt lost 656 of its 8,192 page faults so.  Events open
	 * disabled; a task forked after its creator's new events opened
	 * inherits them and is enabled with them (PERF_EVENT_IOC_ENABLE reaches
	 * every inherited event: _perf_ioctl, kernel/events/core.c:6178-6180). */
	for (int round = 0; s->o.target != PMS_TARGET_CPUS && round < 3; round++) {
		struct tidset now = { NULL, 0, 0 }, fresh = { NULL, 0, 0 };
		if (walk_tasks(s, &now) < 0) {
			free(now.v);
			break;
		}
		for (size_t i = 0; i < now.n; i++) {
			bool known = false;
			for (size_t k = 0; k < tids.n && !known; k++)
				known = tids.v[k] == now.v[i];
			if (!known && (tid_add(&fresh, now.v[i]) < 0 || tid_add(&tids, now.v[i]) < 0))
				break;
		}
		free(now.v);
		if (fresh.n && smp_open_gen(s, fresh.v, fresh.n, a.new_pages) < 0)
			pms_error_clear(); /* gone again: nothing to sample */
		bool none = !fresh.n;
		free(fresh.v);
		if (none)
			break;
	}
	/* This generation's lineages: each task with events of its own (the
	 * older generations' entries stay for their rings' last drains).  A task
	 * with its own events and ones inherited from its creator keeps its own
	 * samples only: both were enabled at the same switch. */
	for (size_t i = 0; s->o.target != PMS_TARGET_CPUS && i < tids.n; i++) {
		struct root_slot *r = root_find(s, s->gen, tids.v[i], true);
		if (r)
			r->root = tids.v[i];
	}
	/* The ENABLEs go one event after the other, last opened first: a task
	 * found by a later walk has its own events counting before those it
	 * inherited from its creator (opened earlier), so what the inherited
	 * ones take is a duplicate from the start. */
	t0 = smp_mono_ns();
	for (size_t i = 0; i < first; i++)
		if (s->st[i].gen == old_gen && !s->st[i].retired)
			ioctl_range(s, i, i + 1, PERF_EVENT_IOC_DISABLE);
	for (size_t i = s->nst; i > first; i--)
		ioctl_range(s, i - 1, i, PERF_EVENT_IOC_ENABLE);
	t1 = smp_mono_ns();
	if (s->st_unlocked) {
		pthread_mutex_lock(&s->mu);
		s->st_unlocked = false;
	}
	for (size_t i = 0; i < first; i++)
		if (s->st[i].gen == old_gen)
			s->st[i].retired = true;
	s->nst_pub = s->nst;
	s->fdver++; /* the copier's poll set follows */
	a.at_ns = t1 - s->t_open; /* old_samples: when the old streams close */
	a.gap_ns = t1 - t0;
	a.new_streams = s->nst - first;
	a.tasks = s->o.target == PMS_TARGET_CPUS ? 0 : tids.n;
	na = realloc(s->adapt, (s->nadapt + 1) * sizeof(*na));
	if (na) {
		s->adapt = na;
		s->adapt[s->nadapt++] = a;
	}
	s->pages = a.new_pages;
	free(tids.v);
	return smp_build_pfd(s);
fail:
	if (s->st_unlocked) {
		pthread_mutex_lock(&s->mu);
		s->st_unlocked = false;
	}
	close_from(s, first);
	s->nst_pub = s->nst;
	s->fdver++;
	s->gen = old_gen;
	for (int i = 0; i < p->nev; i++)
		p->ev[i].attr = saved[i];
	if (gone) {
		free(tids.v);
		s->adapt_ok = false; /* the target is gone: nothing more to adapt */
		return 0;
	}
	{
		char msg[256];
		snprintf(msg, sizeof(msg), "adaptation to loss stopped: %s", pms_error_last());
		smp_note_append(p, msg);
	}
	s->adapt_ok = false;
	free(tids.v);
	return ret;
}

/* Adapt when this generation lost more than 2 % of its records (at least
 * 64), or when one of its rings is 3/4 full.  Called before a drain (the
 * sooner the workload writes into larger rings at a larger period, the less
 * it loses while the old rings are read) and after it (the LOST records
 * it read). */
void smp_note_fill(struct stream *st)
{
	size_t sz = pms_ring_data_size(st->ring);
	uint64_t pend = pms_ring_pending(st->ring);
	if (sz) {
		unsigned pct = pend >= sz ? 100 : (unsigned)(pend * 100 / sz);
		if (pct > st->fill_pct)
			st->fill_pct = pct;
	}
}

/* How much a ring received since the start of the last poll, in % of its
 * size; interval: this is the start of a poll. */
static void note_rate(struct stream *st, bool interval)
{
	const struct perf_event_mmap_page *pg = pms_ring_user_page(st->ring);
	size_t sz = pms_ring_data_size(st->ring);
	/* data_head: every byte the kernel wrote into the ring so far */
	uint64_t written = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	if (st->rate_known && sz) {
		uint64_t d = written - st->last_written;
		unsigned pct = d >= sz ? 100 : (unsigned)(d * 100 / sz);
		if (pct > st->rate_pct)
			st->rate_pct = pct;
	}
	if (interval || !st->rate_known) {
		st->last_written = written;
		st->rate_known = true;
	}
}

/* A ring this full (%) when it is read calls for a change.  In place: 3/4.
 * Staged: the copier wakes when a quarter is written (the watermark), so a
 * ring found half full means the copier came a quarter ring late: the
 * machine does not give it the CPU often enough for this rate. */
unsigned smp_fill_trigger(const struct pms_sampler *s)
{
	return s->staged ? 50 : 75;
}

/* This generation's counts, fullest ring and fastest ring; whether it
 * needs a change. */
static bool adapt_state(struct pms_sampler *s, bool interval, struct adapt_why *w)
{
	memset(w, 0, sizeof(*w));
	if (!s->adapt_ok || s->nadapt >= 8 || s->disabled)
		return false;
	for (size_t i = 0; i < s->nst; i++) {
		struct stream *st = &s->st[i];
		if (st->gen != s->gen || st->retired)
			continue;
		smp_note_fill(st);
		note_rate(st, interval);
		w->kept += st->kept;
		w->lost += st->lost;
		if (st->fill_pct > w->fill)
			w->fill = st->fill_pct;
		if (st->rate_pct > w->rate)
			w->rate = st->rate_pct;
	}
	return (w->lost >= 64 && w->lost * 50 > w->kept + w->lost) || w->fill >= smp_fill_trigger(s) ||
	       w->rate >= 25;
}

bool smp_adapt_due(struct pms_sampler *s)
{
	struct adapt_why w;
	/* a look costs a pass over the streams: not for thousands of them */
	return s->nst <= 1024 && adapt_state(s, false, &w);
}

/* interval: at the start of a poll (the rates are measured then) */
void smp_adapt_check(struct pms_sampler *s, bool interval)
{
	struct adapt_why w;
	if (adapt_state(s, interval, &w))
		(void)adapt_now(s, &w); /* a failure is noted, not fatal */
}

/* The records a retired stream lost that no LOST record reported: the
 * event's lost count (PERF_FORMAT_LOST) less the LOST records read. */
void smp_retired_lost(struct pms_sampler *s, struct stream *st)
{
	const struct pms_sys_ops *ops = pms_sys_ops(s->sys);
	const struct perf_event_attr *a = &s->plan.ev[st->ev].attr;
	uint64_t v[8];
	size_t n = 1;
	ssize_t r;

	if (!(a->read_format & PERF_FORMAT_LOST))
		return;
	n += !!(a->read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
	     !!(a->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) + !!(a->read_format & PERF_FORMAT_ID);
	r = ops->read(ops->ud, st->fd, v, (n + 1) * sizeof(v[0]));
	if (r != (ssize_t)((n + 1) * sizeof(v[0])) || v[n] <= st->lost)
		return;
	s->stats.lost += v[n] - st->lost;
	s->unreported_lost += v[n] - st->lost;
	st->lost = v[n];
}

/* Before draining stream i (the drain of the others took time): adapt
 * when its ring is 3/4 full. */
void smp_adapt_check_one(struct pms_sampler *s, size_t i)
{
	struct stream *st = &s->st[i];
	if (!s->adapt_ok || s->nadapt >= 8 || s->disabled || st->gen != s->gen || st->retired)
		return;
	smp_note_fill(st);
	if (st->fill_pct >= 75)
		smp_adapt_check(s, false);
}
