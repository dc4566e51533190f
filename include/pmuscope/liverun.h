/* One live run: the target (a command started here, held at each of its
 * processes' exits; an existing process; or the whole system or some CPUs),
 * its sampler and memory-sample source, the poll loop, node resolution while
 * the sampled processes live, the stop (a signal, forwarded to the command,
 * SIGKILL if it does not end; --duration; the process gone), the periodic
 * sync of a perf.data recording, progress, and the command's exit status.
 * `pmuscope mem`, `record` and `c2c` drive it and only parse and render.
 *
 * Per step the run drains the rings into the profile (pms_memprof, when one
 * is set), the caller's callbacks and the recorder, in that order; then,
 * while the processes live, it reads the target's mappings, resolves the
 * samples' memory nodes (the NUMA oracle, each sample in its own process,
 * -p and -a on a short timer), names the tasks; at a held exit it drains
 * what the rings hold and resolves that process's pages through the stopped
 * thread before letting it go.
 *
 * The library prints nothing: progress is a callback.  With catch_signals
 * the run catches SIGINT and SIGTERM from pms_liverun_open (before the
 * command is forked: a caught signal is reset to its default at exec, so
 * the command stays interruptible) until pms_liverun_free, and puts back
 * the handlers it found; only one such run per process at a time.  A
 * caller that handles signals itself calls pms_liverun_stop (async-signal
 * safe) instead.
 *
 * Ownership: pms_liverun_open() gives the caller a run released with
 * pms_liverun_free(); sys, pmus and topo are borrowed and must outlive it;
 * the profile given with pms_liverun_set_profile() is borrowed; the
 * sampler, source, oracle, child and recorder are the run's (the getters'
 * pointers are valid until pms_liverun_free).
 */
#ifndef PMUSCOPE_LIVERUN_H
#define PMUSCOPE_LIVERUN_H

#include "pmuscope/api.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmuscope/memsrc.h"
#include "pmuscope/numa.h"
#include "pmuscope/pmu.h"
#include "pmuscope/recorder.h"
#include "pmuscope/report.h"
#include "pmuscope/sampler.h"
#include "pmuscope/sys.h"
#include "pmuscope/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

PMS_API_BEGIN

enum pms_liverun_target {
	PMS_LIVERUN_COMMAND = 0, /* argv, started here (pms_child_spawn_opts) */
	PMS_LIVERUN_PID,         /* an existing process (and its new children) */
	PMS_LIVERUN_SYSTEM,      /* every task on sampler->cpus (empty: all CPUs) */
};

struct pms_liverun;

struct pms_liverun_progress {
	double seconds;          /* since the start (or the last set_duration) */
	uint64_t samples;        /* memory samples delivered so far */
	uint64_t lost;           /* LOST + LOST_SAMPLES counts */
};

struct pms_liverun_callbacks {
	/* After the profile took the sample, before the recorder; may be NULL.
	 * 0 to go on, negative to stop the step (the run returns it). */
	int (*sample)(void *ud, const struct pms_memsrc_sample *s);
	/* Side-band records, the same way; may be NULL. */
	int (*sideband)(void *ud, const struct pms_record *rec, size_t attr_idx);
	/* Every progress_s seconds while the run goes on; may be NULL. */
	void (*progress)(void *ud, const struct pms_liverun_progress *p);
};

#define PMS_LIVERUN_OPTS_VERSION 2
struct pms_liverun_opts {
	unsigned version;                /* PMS_LIVERUN_OPTS_VERSION */
	enum pms_liverun_target target;
	char *const *argv;               /* COMMAND: what to run (execvp) */
	bool hold_exits;                 /* COMMAND: hold each process at exit
					  * (ptrace; see pms_child_opts) */
	pid_t pid;                       /* PID */
	/* What to sample (NULL: the defaults), borrowed until
	 * pms_liverun_open returns; its target and pid are the run's. */
	const struct pms_sampler_opts *sampler;
	/* Ask about the samples' memory nodes (a NUMA oracle the run owns);
	 * false: no oracle (nodes only from physical addresses). */
	bool resolve;
	double duration_s;               /* 0: no limit */
	int poll_ms;                     /* 0: 100 for a command, 20 for -p/-a */
	double sync_s;                   /* recorder sync period, 0: 1 s */
	double progress_s;               /* 0: 1 s */
	double kill_after_s;             /* SIGKILL this long after the stop
					  * signal was forwarded, 0: 5 s */
	bool catch_signals;              /* SIGINT, SIGTERM (above) */
	const struct pms_liverun_callbacks *callbacks; /* copied; may be NULL */
	void *ud;                        /* for the callbacks */
	/* version 2: */
	/* Exit holds (hold_exits): the most one held process waits, in ms,
	 * for the others of its batch (the processes found held at the same
	 * wake) to be asked about; past it, it is let go unasked and its
	 * samples count as released at the hold budget
	 * (PMS_NODE_HOLD_BUDGET).  The first process of a batch is always
	 * asked about.  0: PMS_LIVERUN_HOLD_BUDGET_MS; < 0: no budget. */
	double hold_budget_ms;
};
#define PMS_LIVERUN_HOLD_BUDGET_MS 5.0
#define PMS_LIVERUN_OPTS_INIT                                                                  \
	{ PMS_LIVERUN_OPTS_VERSION, PMS_LIVERUN_COMMAND, NULL, false, 0, NULL, false, 0, 0, 0,  \
	  0, 0, false, NULL, NULL, 0 }

/* How the run ended. */
struct pms_liverun_result {
	bool have_status;    /* COMMAND: it ended and status is its wait status */
	int status;
	bool interrupted;    /* a stop signal (caught, or pms_liverun_stop) */
	int stop_signal;
	bool timed_out;      /* duration_s passed */
	bool killed;         /* the command got SIGKILL after the stop signal */
	bool target_gone;    /* PID: the process went away */
	double seconds;      /* since the start (or the last set_duration) */
	bool holding;        /* COMMAND: exits were really held */
	const char *hold_why; /* asked but refused: why (static text), else NULL */
	uint64_t held_exits; /* threads held at exit, resolved and released */
	uint64_t release_errors; /* ... whose release failed */
	int write_error;     /* first recorder error (0 none) */
	const char *write_message; /* its message, owned by the run */
};

/* The exit holds of a command run (hold_exits).  A held thread is served
 * as soon as its exit stop is seen: a SIGCHLD handler (the kernel sends
 * SIGCHLD to the tracer at every ptrace stop; the run chains to the
 * handler it found and puts it back at pms_liverun_free) wakes the
 * sampler's wait (pms_sampler_wake), so no step waits for poll_ms.  The
 * threads found held at one wake are one batch: one drain of the rings,
 * then each process asked about (one oracle batch through its stopped
 * thread) and let go at once, in turn, within the hold budget. */
struct pms_liverun_holds {
	uint64_t processes;      /* held at exit: process leaders (tid == pid) */
	uint64_t threads;        /* every held thread, leaders included */
	uint64_t batches;        /* wakes that served at least one held thread */
	uint64_t budget_released; /* processes let go unasked at the hold budget */
	/* From the SIGCHLD that woke the loop (or the step that saw the stop)
	 * to the release, per thread: the sum and the longest */
	uint64_t total_ns, longest_ns;
};

/* Catch the signals (catch_signals), start the command held before exec
 * (COMMAND) or check the process (PID), open the sampler and its source,
 * and the oracle (resolve).  Nothing is sampled until pms_liverun_start.
 * PMS_ENOENT: no process opts->pid; the sampler's own error (its message
 * names the engines' refusals) when no engine opens. */
int pms_liverun_open(struct pms_sys *sys, const struct pms_pmus *pmus,
		     const struct pms_topo *topo, const struct pms_liverun_opts *opts,
		     struct pms_liverun **out);
/* Kills (SIGKILL) and reaps a command still running, closes what the run
 * owns, puts the signal handlers back.  NULL is accepted. */
void pms_liverun_free(struct pms_liverun *run);

/* The profile the samples go to (borrowed; NULL: none); may be changed
 * between steps (the report of a first measurement is kept, a second one
 * starts). */
void pms_liverun_set_profile(struct pms_liverun *run, struct pms_memprof *prof);
/* Write the recording to fd (the run's recorder, opened on its source and
 * synced at once, then every sync_s seconds and finished by
 * pms_liverun_finish).  Before pms_liverun_start. */
int pms_liverun_record(struct pms_liverun *run, int fd, const struct pms_recorder_opts *ropts);

/* Let the command exec (COMMAND; its events enable at exec), or enable the
 * sampler.  A command that could not be executed (PMS_ENOENT, PMS_ESYS;
 * errno in the message) has been reaped. */
int pms_liverun_start(struct pms_liverun *run);
/* One round: wait up to poll_ms for samples and deliver them, then the
 * work listed at the top, the stop rules and the command's events.
 * 1: go on; 0: the run is over (call pms_liverun_finish); negative: reading
 * the samples failed (the run is over too; what came before stands). */
int pms_liverun_step(struct pms_liverun *run);
/* Steps until the run is over; 0 or the failed step's code. */
int pms_liverun_run(struct pms_liverun *run);
/* Stop as if sig had been caught (async-signal safe). */
void pms_liverun_stop(struct pms_liverun *run, int sig);
/* Disable the sampler, deliver and resolve what is left, finish the
 * recording (the header features from sys, topo, pmus; pms_recorder_finish).
 * Returns the recording's first error, else 0. */
int pms_liverun_finish(struct pms_liverun *run);

void pms_liverun_result(const struct pms_liverun *run, struct pms_liverun_result *out);
/* The exit holds so far (all zero without them). */
void pms_liverun_holds(const struct pms_liverun *run, struct pms_liverun_holds *out);
/* COMMAND, after pms_liverun_finish: how many processes the command's
 * tree had started (side-band FORK records) were still running when it
 * exited.  The run ends with the command, as perf record's does, so what
 * they did after that is not sampled; they are left running.  0 before
 * the finish, for other targets, and when the command did not exit by
 * itself. */
uint64_t pms_liverun_left_running(const struct pms_liverun *run);
/* The pid the run samples: the command's, opts->pid, or 0 system-wide. */
pid_t pms_liverun_pid(const struct pms_liverun *run);
struct pms_memsrc *pms_liverun_source(const struct pms_liverun *run);
/* NULL without opts->resolve. */
struct pms_numa_oracle *pms_liverun_oracle(const struct pms_liverun *run);
/* NULL without pms_liverun_record. */
struct pms_recorder *pms_liverun_recorder(const struct pms_liverun *run);

PMS_API_END

#ifdef __cplusplus
}
#endif
#endif
