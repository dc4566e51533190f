/* A whole DAMON run (pms_damon_run, include/pmuscope/damon.h): the
 * command held before exec, the session, the sampling loop and its stop
 * rules, the cleanup first, the command's end, the report.
 *
 * fork/exec/wait (pms_child), kill(2) and clock_gettime are not perf
 * syscalls and are not in the seam's ops table (as in liverun). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>

#include "pmuscope/damon.h"
#include "pmuscope/error.h"
#include "pmuscope/sampler.h"
#include "pmuscope/util.h"
#include "damon/damon_int.h"
#include "util/error.h"
#include "util/opts.h"

struct pms_damon_run {
	struct pms_sys *sys;
	const struct pms_topo *topo;
	struct pms_damon_run_opts o;
	struct pms_damon_opts d;
	struct pms_damon_report_opts ro;
	pid_t pids[PMS_DAMON_MAX_TARGETS];
	struct pms_child *child;
	struct pms_damon *session;
	struct pms_damon_report *report;
	volatile sig_atomic_t stop_sig;
	struct pms_damon_run_result res;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

PMS_OPTS_LAYOUT(PMS_DAMON_RUN_OPTS, struct pms_damon_run_opts, PMS_OPTS_END(struct pms_damon_run_opts, ud));

int pms_damon_run_new(struct pms_sys *sys, const struct pms_topo *topo,
		      const struct pms_damon_run_opts *opts, struct pms_damon_run **out)
{
	struct pms_damon_run_opts o;
	static const struct pms_damon_opts d0 = PMS_DAMON_OPTS_INIT;
	static const struct pms_damon_report_opts r0 = PMS_DAMON_REPORT_OPTS_INIT;
	struct pms_damon_run *run;
	int rc;

	if (!sys || !out)
		return pms_err(PMS_EINVAL, "pms_damon_run_new: sys and out are required");
	if ((rc = PMS_OPTS_TAKE("pms_damon_run_new", PMS_DAMON_RUN_OPTS, opts, &o)) < 0)
		return rc;
	opts = &o;
	const struct pms_damon_opts *d = opts->damon ? opts->damon : &d0;
	if (!d->npids == !opts->argv)
		return pms_err(PMS_EINVAL, "a DAMON run watches either processes (pids) or a "
					   "command it starts (argv): give one");
	if (d->npids > PMS_DAMON_MAX_TARGETS)
		return pms_err(PMS_EINVAL, "%zu processes: DAMON runs watch at most %d", d->npids,
			       PMS_DAMON_MAX_TARGETS);
	run = calloc(1, sizeof(*run));
	if (!run)
		return pms_err(PMS_ENOMEM, "out of memory");
	run->sys = sys;
	run->topo = topo;
	run->o = *opts;
	run->d = *d;
	run->ro = opts->report ? *opts->report : r0;
	if (d->npids)
		memcpy(run->pids, d->pids, d->npids * sizeof(*d->pids));
	run->d.pids = run->pids;
	run->res.outcome = "the command exited";
	*out = run;
	return 0;
}

void pms_damon_run_stop(struct pms_damon_run *run, int sig)
{
	if (run)
		run->stop_sig = sig;
}

const struct pms_damon_run_result *pms_damon_run_result(const struct pms_damon_run *run)
{
	return &run->res;
}

static int fail(struct pms_damon_run *run, enum pms_damon_run_stage stage, int rc)
{
	run->res.failed = stage;
	return rc;
}

/* Start the command held before exec (when there is one) and the session;
 * then let the command exec.  The child waits before exec: DAMON watches
 * its pid across the exec (vaddr re-reads the mappings every update
 * interval). */
static int run_start(struct pms_damon_run *run)
{
	int rc;
	if (run->o.argv) {
		if ((rc = pms_child_spawn(run->sys, run->o.argv, &run->child)) < 0)
			return fail(run, PMS_DAMON_RUN_SPAWN, rc);
		run->pids[run->d.npids++] = pms_child_pid(run->child);
	}
	if ((rc = pms_damon_start(run->sys, run->topo, &run->d, &run->session)) < 0)
		return fail(run, PMS_DAMON_RUN_START, rc);
	run->res.session = run->session;
	snprintf(run->res.kdamond_dir, sizeof(run->res.kdamond_dir), "%s",
		 pms_damon_kdamond_dir(run->session));
	if (run->child && (rc = pms_child_start(run->child)) < 0)
		return fail(run, PMS_DAMON_RUN_EXEC, rc);
	return 0;
}

/* Sample until a stop rule holds; the outcome says which. */
static void run_sample(struct pms_damon_run *run)
{
	struct pms_damon_run_result *res = &run->res;
	struct pms_damon_opts eff;
	double t0 = now_s();
	pms_damon_effective(run->session, &eff);
	for (;;) {
		int sig = run->stop_sig, status = 0;
		if (sig) {
			res->outcome = sig == SIGINT ? "interrupted (SIGINT)" : "interrupted (SIGTERM)";
			break;
		}
		if (run->o.duration_s > 0 && now_s() - t0 >= run->o.duration_s) {
			res->outcome = "--duration reached";
			break;
		}
		if (run->child && pms_child_wait(run->child, true, &status) == 0) {
			res->have_status = true;
			res->status = status;
			res->outcome = WIFSIGNALED(status) ? "the command was killed by a signal"
							   : "the command exited";
			break;
		}
		int r = pms_damon_sample(run->session);
		if (r == PMS_ENOENT) {
			res->outcome = "the targets exited (kdamond stopped by itself)";
			break;
		}
		if (r < 0 && !run->stop_sig) {
			res->sample_failed = true;
			snprintf(res->sample_error, sizeof(res->sample_error), "%s", pms_error_last());
			res->outcome = "reading DAMON regions failed";
			break;
		}
		if (run->o.progress) {
			struct pms_damon_run_progress p = { 0, now_s() - t0 };
			pms_damon_snapshots(run->session, &p.snapshots);
			run->o.progress(run->o.ud, &p);
		}
		/* the update command already waits about one aggregation */
		struct timespec ts = { 0, (long)(eff.aggr_us * 1000 / 4) };
		nanosleep(&ts, NULL);
	}
}

/* The command's end: the stop signal forwarded (SIGTERM after --duration)
 * when it still runs, and its wait status. */
static void run_end_command(struct pms_damon_run *run)
{
	struct pms_damon_run_result *res = &run->res;
	int status = 0;
	if (!run->child || res->have_status)
		return;
	kill(pms_child_pid(run->child), run->stop_sig ? run->stop_sig : SIGTERM);
	if (pms_child_wait(run->child, false, &status) == 0) {
		res->have_status = true;
		res->status = status;
	}
}

static void run_exit_code(struct pms_damon_run *run)
{
	struct pms_damon_run_result *res = &run->res;
	res->stop_signal = run->stop_sig;
	res->exit_code = 0;
	if (res->stop_signal)
		res->exit_code = 128 + res->stop_signal;
	else if (res->have_status && pms_exit_code(res->status) >= 0)
		res->exit_code = pms_exit_code(res->status);
	if (!res->stop_signal && res->have_status && WIFSIGNALED(res->status))
		res->term_signal = WTERMSIG(res->status);
	if (res->cleanup_rc < 0)
		res->exit_code = 1;
}

int pms_damon_run(struct pms_damon_run *run)
{
	struct pms_damon_run_result *res = &run->res;
	int rc;
	if ((rc = run_start(run)) < 0)
		return rc;
	run_sample(run);
	/* Cleanup before anything else can fail: off, then removed. */
	res->cleanup_rc = pms_damon_stop(run->session);
	if (res->cleanup_rc < 0)
		snprintf(res->cleanup_msg, sizeof(res->cleanup_msg), "%s", pms_error_last());
	run_end_command(run);
	if ((rc = pms_damon_report_build(run->session, &run->ro, &run->report)) < 0)
		return fail(run, PMS_DAMON_RUN_REPORT, rc);
	res->report = run->report;
	run_exit_code(run);
	return 0;
}

void pms_damon_run_free(struct pms_damon_run *run)
{
	if (!run)
		return;
	pms_damon_report_free(run->report);
	pms_damon_free(run->session); /* removes the kdamond on every error path */
	pms_child_free(run->child);
	free(run);
}
