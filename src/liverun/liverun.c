/* One live run (include/pmuscope/liverun.h): target, sampler, source, the
 * poll loop with node resolution while processes live and at held exits,
 * stop rules, recording sync, exit status.
 *
 * kill(2) and sigaction(2) are not perf syscalls and are not in the seam's
 * ops table (as fork/wait/ptrace in sample/child.c): they run only on a
 * live context, which the sampler and child already demand for a command;
 * for -p the liveness probe is kill(pid, 0). */
#include "pmuscope/liverun.h"
#include "pmuscope/symbols.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/opts.h"
#include "liverun/liverun_int.h"
#include "report/memprof_int.h"
#include "recorder/recorder_int.h"
#include "sample/sampler_obj_int.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct pms_liverun {
	struct pms_sys *sys;
	const struct pms_pmus *pmus;
	const struct pms_topo *topo;
	enum pms_liverun_target target;
	pid_t pid;
	struct pms_child *child;
	struct pms_sampler *smp;
	struct pms_memsrc *src;
	struct pms_numa_oracle *oracle;
	struct pms_memprof *prof;
	struct pms_recorder *rec;
	struct pms_liverun_callbacks cb;
	void *ud;
	double duration, sync_s, progress_s, kill_after;
	int poll_ms;
	double hold_budget; /* seconds; < 0: none */
	int wake_slot;      /* in wake_smp[] (a held command), else -1 */
	struct pms_child_event *batch; /* held threads of one wake */
	size_t nbatch, capbatch;
	struct pms_liverun_holds holds;
	bool catching, started, done, finished;
	volatile sig_atomic_t stop_req;
	/* the outcome */
	bool have_status, interrupted, timed_out, killed, target_gone, forwarded;
	int status, stop_signal;
	double t0, forwarded_at, last_sync, last_progress, seconds;
	uint64_t held_exits, release_errors;
	/* COMMAND: the processes its tree forked whose EXIT was not seen yet
	 * (side-band FORK/EXIT); at the end, those still alive */
	pid_t *procs;
	size_t nprocs, capprocs;
	uint64_t left_running;
	int werr;
	char wmsg[512];
};

/* proc/PID/maps files read per round (pms_memprof_read_maps). */
#define MAPS_PER_ROUND 8

/* The caught signal of the one run that catches them. */
static volatile sig_atomic_t caught_sig;
static bool catching_now;
static struct sigaction old_int, old_term;

/* The samplers of the runs that hold exits: SIGCHLD wakes them all (a
 * few runs at once at most; a run beyond them waits for its poll_ms). */
#define WAKE_SLOTS 8
static struct pms_sampler *volatile wake_smp[WAKE_SLOTS];
static int wake_users;
static struct sigaction old_chld;
/* CLOCK_MONOTONIC ns of the first SIGCHLD not yet looked at (0: none) */
static volatile uint64_t chld_ns;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* handlers inside wake_all now (a run being freed waits for them) */
static int wake_busy;

static void wake_all(void)
{
	__atomic_add_fetch(&wake_busy, 1, __ATOMIC_ACQ_REL);
	for (int i = 0; i < WAKE_SLOTS; i++) {
		struct pms_sampler *smp = __atomic_load_n(&wake_smp[i], __ATOMIC_ACQUIRE);
		if (smp)
			pms_sampler_wake(smp);
	}
	__atomic_sub_fetch(&wake_busy, 1, __ATOMIC_ACQ_REL);
}

static void on_signal(int sig)
{
	caught_sig = sig;
	wake_all(); /* the stop is seen now, not at the poll timeout */
}

/* The kernel sends the tracer SIGCHLD at every ptrace stop of its tracees
 * (kernel/signal.c do_notify_parent_cldstop): an exit stop, a fork, a new
 * thread's first stop all wake the run's poll at once.  Then the handler
 * found at install time runs, as it would have. */
static void on_chld(int sig, siginfo_t *si, void *ctx)
{
	int e = errno;
	uint64_t zero = 0;
	(void)__atomic_compare_exchange_n(&chld_ns, &zero, mono_ns(), false, __ATOMIC_RELAXED,
					  __ATOMIC_RELAXED);
	wake_all();
	errno = e;
	if (old_chld.sa_flags & SA_SIGINFO) {
		if (old_chld.sa_sigaction)
			old_chld.sa_sigaction(sig, si, ctx);
	} else if (old_chld.sa_handler != SIG_DFL && old_chld.sa_handler != SIG_IGN &&
		   old_chld.sa_handler) {
		old_chld.sa_handler(sig);
	}
}

/* Register the run's sampler for SIGCHLD wakes; the first one installs
 * the handler.  Not thread safe (as catch_signals: one thread opens and
 * frees runs). */
static void wake_register(struct pms_liverun *r)
{
	int slot = -1;
	for (int i = 0; i < WAKE_SLOTS && slot < 0; i++)
		if (!wake_smp[i])
			slot = i;
	if (slot < 0)
		return; /* the run waits for its poll timeout */
	if (!wake_users) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_chld;
		/* no SA_NOCLDSTOP: the stops are what it is for */
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGCHLD, &sa, &old_chld) < 0)
			return;
	}
	wake_users++;
	r->wake_slot = slot;
	__atomic_store_n(&wake_smp[slot], r->smp, __ATOMIC_RELEASE);
}

static void wake_unregister(struct pms_liverun *r)
{
	if (r->wake_slot < 0)
		return;
	__atomic_store_n(&wake_smp[r->wake_slot], NULL, __ATOMIC_SEQ_CST);
	r->wake_slot = -1;
	/* a handler on another thread may hold the sampler it loaded: the
	 * sampler is freed only once none is inside (they are a few
	 * instructions long) */
	while (__atomic_load_n(&wake_busy, __ATOMIC_SEQ_CST))
		sched_yield();
	if (--wake_users == 0)
		sigaction(SIGCHLD, &old_chld, NULL);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void note_werr(struct pms_liverun *r, int rc)
{
	if (rc < 0 && !r->werr) {
		r->werr = rc;
		snprintf(r->wmsg, sizeof(r->wmsg), "%s", pms_error_last());
	}
}

static int on_sample(void *ud, const struct pms_memsrc_sample *s)
{
	struct pms_liverun *r = ud;
	int rc;
	if (r->prof && (rc = pms_memprof_add_src(r->prof, s)) < 0)
		return rc;
	if (r->cb.sample && (rc = r->cb.sample(r->ud, s)) < 0)
		return rc;
	if (r->rec && !r->werr)
		note_werr(r, pms_recorder_sample(r->rec, s));
	return 0;
}

/* A command's processes from the side-band (attr.task): a FORK whose pid
 * is not its parent's is a new process, an EXIT whose tid is its pid the
 * end of one.  A full list only means some go uncounted. */
static void track_process(struct pms_liverun *r, const struct pms_record *rec)
{
	if (r->target != PMS_LIVERUN_COMMAND)
		return;
	pid_t pid = (pid_t)rec->fork.pid;
	if (rec->type == PMS_RECORD_FORK && rec->fork.pid != rec->fork.ppid) {
		for (size_t i = 0; i < r->nprocs; i++)
			if (r->procs[i] == pid)
				return;
		if (pms_grow(&r->procs, &r->capprocs, r->nprocs + 1, sizeof(*r->procs), 16,
			     "processes") == 0)
			r->procs[r->nprocs++] = pid;
		else
			pms_error_clear();
	} else if (rec->type == PMS_RECORD_EXIT && rec->fork.pid == rec->fork.tid) {
		for (size_t i = 0; i < r->nprocs; i++)
			if (r->procs[i] == pid) {
				r->procs[i] = r->procs[--r->nprocs];
				break;
			}
	}
}

/* At the end: the command's processes other than itself that are still
 * alive (no EXIT seen, and kill(pid, 0) finds them: a lost EXIT record
 * does not count one that is gone). */
static uint64_t count_left_running(const struct pms_liverun *r)
{
	uint64_t n = 0;
	for (size_t i = 0; i < r->nprocs; i++)
		if (r->procs[i] != r->pid && (kill(r->procs[i], 0) == 0 || errno == EPERM))
			n++;
	return n;
}

static int on_sideband(void *ud, const struct pms_record *rec, size_t attr_idx)
{
	struct pms_liverun *r = ud;
	int rc;
	track_process(r, rec);
	if (r->prof && (rc = pms_memprof_sideband(r->prof, rec, r->oracle)) < 0)
		return rc;
	if (r->cb.sideband && (rc = r->cb.sideband(r->ud, rec, attr_idx)) < 0)
		return rc;
	if (r->rec && !r->werr)
		note_werr(r, pms_recorder_sideband(r->rec, rec, attr_idx));
	return 0;
}

/* Live SPE: the AUX trace goes to the recording as it was (its samples
 * were delivered before). */
static int on_aux(void *ud, const struct pms_memsrc_aux *a)
{
	struct pms_liverun *r = ud;
	if (r->rec && !r->werr)
		note_werr(r, pms_recorder_aux(r->rec, a));
	return 0;
}

static const struct pms_memsrc_callbacks src_cb = { on_sample, on_sideband, on_aux };

static void restore_signals(struct pms_liverun *r)
{
	if (!r->catching)
		return;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	catching_now = false;
	r->catching = false;
}

void pms_liverun_free(struct pms_liverun *r)
{
	if (!r)
		return;
	/* before the sampler goes: the handler must not wake a freed one */
	wake_unregister(r);
	free(r->batch);
	free(r->procs);
	pms_recorder_free(r->rec);
	pms_numa_oracle_free(r->oracle);
	pms_memsrc_free(r->src);
	pms_sampler_free(r->smp);
	pms_child_free(r->child);
	restore_signals(r);
	free(r);
}

PMS_OPTS_LAYOUT(PMS_LIVERUN_OPTS, struct pms_liverun_opts,
		PMS_OPTS_END(struct pms_liverun_opts, ud),
		PMS_OPTS_END(struct pms_liverun_opts, hold_budget_ms));

int pms_liverun_open(struct pms_sys *sys, const struct pms_pmus *pmus,
		     const struct pms_topo *topo, const struct pms_liverun_opts *opts,
		     struct pms_liverun **out)
{
	struct pms_liverun_opts lo;
	struct pms_sampler_opts so;
	struct pms_liverun *r;
	int rc;

	if (!sys || !out)
		return pms_err(PMS_EINVAL, "pms_liverun_open: NULL argument");
	if ((rc = PMS_OPTS_TAKE("pms_liverun_open", PMS_LIVERUN_OPTS, opts, &lo)) < 0)
		return rc;
	opts = &lo;
	if (opts->target == PMS_LIVERUN_COMMAND && (!opts->argv || !opts->argv[0]))
		return pms_err(PMS_EINVAL, "live run: no command to start");
	if (opts->target == PMS_LIVERUN_PID && opts->pid <= 0)
		return pms_err(PMS_EINVAL, "live run: -p needs a process id > 0, not %d",
			       (int)opts->pid);
	if (opts->target > PMS_LIVERUN_SYSTEM)
		return pms_err(PMS_EINVAL, "live run: unknown target %d", (int)opts->target);
	if (opts->catch_signals && catching_now)
		return pms_err(PMS_EBUSY, "live run: another run of this process catches "
					  "SIGINT/SIGTERM already; free it first");
	if (opts->target == PMS_LIVERUN_PID && kill(opts->pid, 0) < 0 && errno == ESRCH)
		return pms_err(PMS_ENOENT, "no process %d", (int)opts->pid);
	r = calloc(1, sizeof(*r));
	if (!r)
		return pms_err(PMS_ENOMEM, "live run: out of memory");
	r->sys = sys;
	r->pmus = pmus;
	r->topo = topo;
	r->wake_slot = -1;
	r->target = opts->target;
	{
		double b = opts->hold_budget_ms;
		r->hold_budget = b < 0 ? -1 : (b > 0 ? b : PMS_LIVERUN_HOLD_BUDGET_MS) / 1000.0;
	}
	r->cb = opts->callbacks ? *opts->callbacks : (struct pms_liverun_callbacks){ 0 };
	r->ud = opts->ud;
	r->duration = opts->duration_s > 0 ? opts->duration_s : 0;
	r->sync_s = opts->sync_s > 0 ? opts->sync_s : 1.0;
	r->progress_s = opts->progress_s > 0 ? opts->progress_s : 1.0;
	r->kill_after = opts->kill_after_s > 0 ? opts->kill_after_s : 5.0;
	r->poll_ms = opts->poll_ms > 0 ? opts->poll_ms
		     : opts->target == PMS_LIVERUN_COMMAND ? 100
							   : 20; /* a process living a few
								  * hundred ms is asked about */
	if (opts->catch_signals) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		caught_sig = 0;
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGTERM, &sa, &old_term);
		catching_now = r->catching = true;
	}

	if (opts->target == PMS_LIVERUN_COMMAND) {
		struct pms_child_opts co = PMS_CHILD_OPTS_INIT;
		co.hold_exits = opts->hold_exits;
		if ((rc = pms_child_spawn_opts(sys, opts->argv, &co, &r->child)) < 0)
			goto fail;
		r->pid = pms_child_pid(r->child);
	} else if (opts->target == PMS_LIVERUN_PID) {
		r->pid = opts->pid;
	}

	/* the caller's struct may be older (shorter) than ours: what its
	 * version has, the rest the defaults */
	if ((rc = PMS_OPTS_TAKE("pms_liverun_open (sampler)", PMS_SAMPLER_OPTS, opts->sampler,
				&so)) < 0)
		goto fail;
	so.target = opts->target == PMS_LIVERUN_SYSTEM ? PMS_TARGET_CPUS
		    : opts->target == PMS_LIVERUN_PID  ? PMS_TARGET_PID
						       : PMS_TARGET_CHILD;
	so.pid = opts->target == PMS_LIVERUN_SYSTEM ? -1 : r->pid;
	/* system-wide: the observer's own samples (its work for each sample)
	 * are not part of the profile */
	if (opts->target == PMS_LIVERUN_SYSTEM && !so.exclude_pid)
		so.exclude_pid = getpid();
	if ((rc = pms_sampler_open(sys, pmus, topo, &so, &r->smp)) < 0)
		goto fail; /* the sampler's message says which engines refused and why */
	if ((rc = pms_memsrc_open_live(r->smp, topo, &r->src)) < 0)
		goto fail;
	if (opts->resolve) {
		struct pms_numa_opts no = PMS_NUMA_OPTS_INIT;
		long psz = sysconf(_SC_PAGESIZE);
		/* each sample is asked about in its own process (the oracle's
		 * cache is per process), system-wide too */
		no.pid = r->pid > 0 ? r->pid : 0;
		no.page_size = psz > 0 ? (size_t)psz : 4096;
		if ((rc = pms_numa_oracle_new(sys, topo, &no, &r->oracle)) < 0)
			goto fail;
	}
	if (r->child && pms_child_holding(r->child, NULL))
		wake_register(r);
	*out = r;
	return 0;
fail:
	pms_liverun_free(r);
	return rc;
}

void pms_liverun_set_profile(struct pms_liverun *r, struct pms_memprof *prof)
{
	if (r)
		r->prof = prof;
}

int pms_liverun_record(struct pms_liverun *r, int fd, const struct pms_recorder_opts *ropts)
{
	int rc;
	if (!r || fd < 0)
		return pms_err(PMS_EINVAL, "pms_liverun_record: no run or no file");
	if (r->rec || r->started)
		return pms_err(PMS_EINVAL, "pms_liverun_record: %s",
			       r->rec ? "the run records already" : "the run has started");
	if ((rc = pms_recorder_open(fd, r->src, ropts, &r->rec)) < 0)
		return rc;
	/* the header down at once: a killed run leaves a readable file */
	if ((rc = pms_recorder_sync(r->rec)) < 0) {
		pms_recorder_free(r->rec);
		r->rec = NULL;
		return rc;
	}
	return 0;
}

int pms_liverun_start(struct pms_liverun *r)
{
	int rc;
	if (!r)
		return pms_err(PMS_EINVAL, "pms_liverun_start: NULL run");
	if (r->started)
		return pms_err(PMS_EINVAL, "pms_liverun_start: started already");
	if (r->child) {
		if ((rc = pms_child_start(r->child)) < 0) {
			/* pms_child_start reaped a child whose exec failed */
			r->done = r->finished = true;
			return rc;
		}
	} else if ((rc = pms_sampler_enable(r->smp)) < 0) {
		return rc;
	}
	r->started = true;
	r->t0 = r->last_sync = r->last_progress = now_s();
	return 0;
}

/* While the processes live: the target's mappings, the nodes, the names. */
static void while_alive(struct pms_liverun *r)
{
	if (!r->prof)
		return;
	if (r->pid > 0 && r->target != PMS_LIVERUN_SYSTEM)
		(void)pms_maps_read_proc(pms_memprof_maps(r->prof), r->sys, r->pid);
	/* the nodes first: a process living a few hundred ms must be asked
	 * about before anything slower */
	if (r->oracle)
		(void)pms_memprof_resolve(r->prof, r->oracle);
	(void)pms_memprof_name_tasks(r->prof, r->sys);
	/* a profile with each process's own mappings (system-wide): the
	 * sampled processes' proc/PID/maps, once each while they live, a few
	 * per round (hundreds of processes at the start of a system-wide run
	 * must not delay the next round's nodes) */
	(void)pms_memprof_read_maps(r->prof, r->sys, MAPS_PER_ROUND);
}

/* Everything the rings held now, handed out: the source hands out a
 * drain's records at the drain after it (their time order is known then,
 * memsrc.h), so two drains. */
static int drain_now(struct pms_liverun *r)
{
	int rc = pms_memsrc_poll(r->src, 0, &src_cb, r);
	if (rc >= 0)
		rc = pms_memsrc_poll(r->src, 0, &src_cb, r);
	return rc;
}

int pms_liverun_drain(struct pms_liverun *r)
{
	if (!r || !r->src)
		return pms_err(PMS_EINVAL, "pms_liverun_drain: NULL run");
	int rc = drain_now(r);
	if (r->prof && r->oracle)
		(void)pms_memprof_resolve(r->prof, r->oracle);
	return rc < 0 ? rc : 0;
}

/* Let one held thread go, its hold time counted from t0 (ns). */
static void hold_release(struct pms_liverun *r, const struct pms_child_event *ev, uint64_t t0)
{
	uint64_t t = mono_ns(), d = t > t0 ? t - t0 : 0;
	r->held_exits++;
	r->holds.threads++;
	r->holds.processes += ev->tid == ev->pid;
	r->holds.total_ns += d;
	if (d > r->holds.longest_ns)
		r->holds.longest_ns = d;
	if (pms_child_release(r->child, ev->tid) < 0)
		r->release_errors++;
}

/* Threads of the command's tree stopped at exit (the batch of one wake):
 * their memory is still there.  The rings drained, all handed out (drain_now: the kernel wrote
 * their last samples before the exit stop), then each process in turn:
 * its pages asked about through a stopped thread (one oracle batch), its
 * held threads let go at once.  A process whose wait for the ones before
 * it passed the hold budget is let go unasked (the first never is). */
static void serve_batch(struct pms_liverun *r, uint64_t t0)
{
	size_t n = r->nbatch;
	(void)drain_now(r);
	if (r->prof) {
		for (size_t i = 0; i < n; i++)
			if (r->batch[i].pid == r->pid) {
				(void)pms_maps_read_proc(pms_memprof_maps(r->prof), r->sys, r->pid);
				break;
			}
		(void)pms_memprof_name_tasks(r->prof, r->sys);
	}
	double start = now_s();
	for (size_t i = 0; i < n; i++) {
		struct pms_child_event *ev = &r->batch[i];
		if (ev->kind != PMS_CHILD_EV_HELD)
			continue; /* served with an earlier thread of its process */
		bool late = i > 0 && r->hold_budget >= 0 && now_s() - start > r->hold_budget;
		if (late) {
			r->holds.budget_released++;
			/* a thread's exit (others of its process live on) loses
			 * nothing: its samples are asked about later */
			if (r->prof && ev->tid == ev->pid)
				(void)pms_memprof_give_up_task(r->prof, ev->pid,
							       PMS_NODE_HOLD_BUDGET);
		} else if (r->prof && r->oracle) {
			(void)pms_memprof_resolve_task(r->prof, r->oracle, ev->pid, ev->tid);
		}
		/* this process's held threads go together */
		for (size_t j = i; j < n; j++)
			if (r->batch[j].kind == PMS_CHILD_EV_HELD && r->batch[j].pid == ev->pid) {
				hold_release(r, &r->batch[j], t0);
				r->batch[j].kind = PMS_CHILD_EV_NONE;
			}
	}
	r->holds.batches++;
	r->nbatch = 0;
}

/* The command's events: held exits (one batch), its end.  The stops that
 * need no caller (a fork, a new thread) are handled inside pms_child_poll. */
static void child_events(struct pms_liverun *r)
{
	struct pms_child_event ev;
	int cr = 0;
	/* the first SIGCHLD since the last look: the batch's hold began then */
	uint64_t t0 = __atomic_exchange_n(&chld_ns, 0, __ATOMIC_RELAXED);
	uint64_t seen = mono_ns();
	if (!t0 || t0 > seen)
		t0 = seen;
	while (!r->done && (cr = pms_child_poll(r->child, false, &ev)) == 0 &&
	       ev.kind != PMS_CHILD_EV_NONE) {
		if (ev.kind == PMS_CHILD_EV_HELD) {
			if (r->nbatch == r->capbatch) {
				size_t cap = r->capbatch ? 2 * r->capbatch : 16;
				struct pms_child_event *b = realloc(r->batch, cap * sizeof(*b));
				if (!b) {
					/* no room to batch: serve what is there */
					serve_batch(r, t0);
					hold_release(r, &ev, t0);
					continue;
				}
				r->batch = b;
				r->capbatch = cap;
			}
			r->batch[r->nbatch++] = ev;
		} else if (ev.kind == PMS_CHILD_EV_EXITED) {
			r->have_status = true;
			r->status = ev.status;
			r->done = true;
		}
	}
	if (r->nbatch)
		serve_batch(r, t0);
	if (!r->done && cr < 0) {
		int st;
		if (pms_child_wait(r->child, false, &st) == 0) {
			r->have_status = true;
			r->status = st;
		}
		r->done = true;
	}
}

int pms_liverun_step(struct pms_liverun *r)
{
	if (!r)
		return pms_err(PMS_EINVAL, "pms_liverun_step: NULL run");
	if (!r->started)
		return r->done ? 0 : pms_err(PMS_EINVAL, "pms_liverun_step: not started");
	if (r->done)
		return 0;
	int pr = pms_memsrc_poll(r->src, r->poll_ms, &src_cb, r);
	int sig = r->stop_req ? (int)r->stop_req : r->catching ? (int)caught_sig : 0;
	if (pr < 0 && !sig) {
		r->done = true;
		r->seconds = now_s() - r->t0;
		return pr;
	}
	while_alive(r);
	double t = now_s();
	if (r->rec && !r->werr && t - r->last_sync >= r->sync_s) {
		/* the file stays readable (by perf too) if we are killed */
		note_werr(r, pms_recorder_sync(r->rec));
		r->last_sync = t;
	}
	if (r->cb.progress && t - r->last_progress >= r->progress_s) {
		struct pms_memsrc_stats st;
		pms_memsrc_stats(r->src, &st);
		struct pms_liverun_progress p = { t - r->t0, st.samples, st.lost_total };
		r->cb.progress(r->ud, &p);
		r->last_progress = t;
	}
	if (sig && !r->interrupted) {
		r->interrupted = true;
		r->stop_signal = sig;
	}
	bool timeout_now = false;
	if (r->duration > 0 && t - r->t0 >= r->duration && !r->timed_out) {
		r->timed_out = true;
		timeout_now = true;
	}
	if (r->child) {
		if ((r->interrupted || timeout_now) && !r->forwarded) {
			/* the command stops as under perf: the signal that reached
			 * us, SIGINT at the end of the duration */
			kill(r->pid, r->interrupted ? r->stop_signal : SIGINT);
			r->forwarded = true;
			r->forwarded_at = t;
		} else if (r->forwarded && !r->killed && t - r->forwarded_at > r->kill_after) {
			/* it did not stop on the forwarded signal */
			kill(r->pid, SIGKILL);
			r->killed = true;
		}
		child_events(r);
	} else {
		if (r->interrupted || r->timed_out)
			r->done = true;
		if (r->target == PMS_LIVERUN_PID && kill(r->pid, 0) < 0 && errno == ESRCH) {
			r->target_gone = true;
			r->done = true;
		}
	}
	r->seconds = now_s() - r->t0;
	return r->done ? 0 : 1;
}

int pms_liverun_run(struct pms_liverun *r)
{
	int rc;
	while ((rc = pms_liverun_step(r)) > 0)
		;
	return rc;
}

void pms_liverun_stop(struct pms_liverun *r, int sig)
{
	if (r)
		r->stop_req = sig > 0 ? sig : SIGINT;
}

void pms_liverun_set_duration(struct pms_liverun *r, double seconds)
{
	if (!r)
		return;
	r->duration = seconds > 0 ? seconds : 0;
	r->timed_out = false;
	r->t0 = now_s();
}

int pms_liverun_finish(struct pms_liverun *r)
{
	if (!r)
		return pms_err(PMS_EINVAL, "pms_liverun_finish: NULL run");
	if (r->finished)
		return r->werr;
	r->finished = true;
	if (r->started)
		r->seconds = now_s() - r->t0;
	(void)pms_sampler_disable(r->smp);
	(void)pms_memsrc_poll(r->src, 0, &src_cb, r);
	if (r->have_status)
		r->left_running = count_left_running(r);
	if (r->prof && r->oracle)
		(void)pms_memprof_resolve(r->prof, r->oracle);
	if (r->rec)
		/* finish writes what it can (the records before a failure stay
		 * readable) and returns the first failure */
		note_werr(r, pms_recorder_finish(r->rec, r->sys, r->topo, r->pmus));
	return r->werr;
}

void pms_liverun_result(const struct pms_liverun *r, struct pms_liverun_result *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (!r)
		return;
	out->have_status = r->have_status;
	out->status = r->status;
	out->interrupted = r->interrupted;
	out->stop_signal = r->stop_signal;
	out->timed_out = r->timed_out;
	out->killed = r->killed;
	out->target_gone = r->target_gone;
	out->seconds = r->started && !r->done && !r->finished ? now_s() - r->t0 : r->seconds;
	out->holding = r->child && pms_child_holding(r->child, &out->hold_why);
	if (out->holding)
		out->hold_why = NULL;
	out->held_exits = r->held_exits;
	out->release_errors = r->release_errors;
	out->write_error = r->werr;
	out->write_message = r->werr ? r->wmsg : NULL;
}

void pms_liverun_holds(const struct pms_liverun *r, struct pms_liverun_holds *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (r)
		*out = r->holds;
}

uint64_t pms_liverun_left_running(const struct pms_liverun *r)
{
	return r ? r->left_running : 0;
}

double pms_liverun_elapsed(const struct pms_liverun *r)
{
	return r && r->started ? now_s() - r->t0 : 0;
}

pid_t pms_liverun_pid(const struct pms_liverun *r)
{
	return r && r->pid > 0 ? r->pid : 0;
}

struct pms_sampler *pms_liverun_sampler(const struct pms_liverun *r)
{
	return r ? r->smp : NULL;
}

struct pms_memsrc *pms_liverun_source(const struct pms_liverun *r)
{
	return r ? r->src : NULL;
}

struct pms_numa_oracle *pms_liverun_oracle(const struct pms_liverun *r)
{
	return r ? r->oracle : NULL;
}

struct pms_recorder *pms_liverun_recorder(const struct pms_liverun *r)
{
	return r ? r->rec : NULL;
}
