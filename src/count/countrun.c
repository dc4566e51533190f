/* A counting run (include/pmuscope/countrun.h): the command, process,
 * thread or CPUs; the counters opened per run (the default set retried for
 * user space on PMS_EPERM); the poll loop with its interval reads; the
 * means and relative standard deviations over -r runs.
 *
 * fork/exec/wait (pms_child), kill(pid, 0) for a watched process's
 * liveness, getrusage and clock_gettime are not perf syscalls and are not
 * in the seam's ops table (as in liverun). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "pmuscope/countrun.h"
#include "pmuscope/error.h"
#include "pmuscope/sampler.h"
#include "pmuscope/util.h"
#include "util/error.h"
#include "util/opts.h"

struct pms_countrun {
	struct pms_sys *sys;
	const struct pms_pmus *pmus;
	const struct pms_topo *topo;
	struct pms_countrun_opts o;
	struct pms_event_parse_opts parse;
	struct pms_count_opts co;     /* as given; each run sets target/pid */
	struct pms_countrun_callbacks cb;
	bool defaults;                /* the default set, not yet retried */
	struct pms_event_list *list;
	struct pms_counter *c;
	struct pms_child *child;
	volatile sig_atomic_t stop;
	/* the final statistics */
	struct pms_count_row *rows;
	size_t nrows;
	double *sum, *sq, *rsd;
	double el_sum, el_sq, user_s, sys_s;
	struct pms_countrun_result res;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

int pms_count_default_events(const struct pms_pmus *pmus, bool user_only, char *buf,
			     size_t size)
{
	const char *u = user_only ? ":u" : "";
	if (pmus && pms_pmus_core_count(pmus) > 0)
		return snprintf(buf, size,
				"task-clock%s,context-switches%s,cpu-migrations%s,page-faults%s,"
				"cycles%s,instructions%s", u, u, u, u, u, u);
	return snprintf(buf, size, "task-clock%s,context-switches%s,cpu-migrations%s,page-faults%s",
			u, u, u, u);
}

static int fail(struct pms_countrun *cr, enum pms_countrun_stage stage, int rc)
{
	cr->res.failed = stage;
	return rc;
}

PMS_OPTS_LAYOUT(PMS_COUNTRUN_OPTS, struct pms_countrun_opts, PMS_OPTS_END(struct pms_countrun_opts, ud));

int pms_countrun_new(struct pms_sys *sys, const struct pms_pmus *pmus,
		     const struct pms_topo *topo, const struct pms_countrun_opts *opts,
		     struct pms_countrun **out)
{
	struct pms_countrun_opts o;
	static const struct pms_event_parse_opts parse0 = PMS_EVENT_PARSE_OPTS_INIT;
	static const struct pms_count_opts count0 = PMS_COUNT_OPTS_INIT;
	struct pms_countrun *cr;
	char buf[256];
	int rc;

	if (!sys || !out)
		return pms_err(PMS_EINVAL, "pms_countrun_new: sys and out are required");
	if ((rc = PMS_OPTS_TAKE("pms_countrun_new", PMS_COUNTRUN_OPTS, opts, &o)) < 0)
		return rc;
	opts = &o;
	if (opts->repeat > 1 && !opts->argv)
		return pms_err(PMS_EINVAL, "repeat %u: repeating needs a command (argv)",
			       opts->repeat);
	if (opts->repeat > 1 && opts->interval_ms)
		return pms_err(PMS_EINVAL, "repeat and interval_ms exclude each other");
	cr = calloc(1, sizeof(*cr));
	if (!cr)
		return pms_err(PMS_ENOMEM, "out of memory");
	cr->sys = sys;
	cr->pmus = pmus;
	cr->topo = topo;
	cr->o = *opts;
	cr->parse = opts->parse ? *opts->parse : parse0;
	cr->co = opts->count ? *opts->count : count0;
	if (opts->callbacks)
		cr->cb = *opts->callbacks;
	cr->res.exit_code = -1;
	cr->res.user_s = cr->res.sys_s = -1;
	cr->defaults = !opts->events;
	if (cr->defaults)
		pms_count_default_events(pmus, false, buf, sizeof(buf));
	rc = pms_event_parse_ex(pmus, cr->defaults ? buf : opts->events, &cr->parse, &cr->list);
	if (rc < 0) {
		free(cr);
		return rc;
	}
	*out = cr;
	return 0;
}

void pms_countrun_stop(struct pms_countrun *cr)
{
	if (cr)
		cr->stop = 1;
}

const struct pms_countrun_result *pms_countrun_result(const struct pms_countrun *cr)
{
	return &cr->res;
}

/* Free the previous run's counters, command and rows. */
static void run_reset(struct pms_countrun *cr)
{
	pms_counter_free(cr->c);
	cr->c = NULL;
	cr->res.counter = NULL;
	pms_child_free(cr->child);
	cr->child = NULL;
	pms_count_rows_free(cr->rows);
	cr->rows = NULL;
	cr->nrows = 0;
}

/* Start the command (when there is one) and open the counters; the default
 * set is retried once for user space only when refused for privilege. */
static int run_open(struct pms_countrun *cr)
{
	struct pms_count_opts co = cr->co;
	char buf[256];
	int rc;

	if (cr->o.argv) {
		rc = pms_child_spawn(cr->sys, cr->o.argv, &cr->child);
		if (rc < 0)
			return fail(cr, PMS_COUNTRUN_SPAWN, rc);
		if (co.target != PMS_COUNT_CPUS) {
			co.target = PMS_COUNT_CHILD;
			co.pid = pms_child_pid(cr->child);
		}
	}
	rc = pms_counter_open(cr->sys, cr->pmus, cr->topo, cr->list, &co, &cr->c);
	if (rc == PMS_EPERM && cr->defaults) {
		if (cr->cb.user_only)
			cr->cb.user_only(cr->o.ud, pms_error_last());
		pms_event_list_free(cr->list);
		cr->list = NULL;
		pms_count_default_events(cr->pmus, true, buf, sizeof(buf));
		rc = pms_event_parse_ex(cr->pmus, buf, &cr->parse, &cr->list);
		if (rc < 0)
			return fail(cr, PMS_COUNTRUN_EVENTS, rc);
		cr->defaults = false;
		rc = pms_counter_open(cr->sys, cr->pmus, cr->topo, cr->list, &co, &cr->c);
	}
	if (rc < 0)
		return fail(cr, PMS_COUNTRUN_OPEN, rc);
	cr->res.counter = cr->c;
	cr->co.pid = co.pid; /* the watched target of this run */
	cr->co.target = co.target;
	return 0;
}

/* Is the target still there?  A command's wait status becomes the exit
 * code (not after a stop: the command is still running then). */
static bool target_alive(struct pms_countrun *cr)
{
	int status = 0;
	if (cr->stop)
		return false;
	if (cr->child) {
		if (pms_child_wait(cr->child, true, &status) == 1)
			return true;
		if (!cr->stop)
			cr->res.exit_code = pms_exit_code(status);
		return false;
	}
	if (cr->co.target == PMS_COUNT_PID || cr->co.target == PMS_COUNT_TID)
		return kill(cr->co.pid, 0) == 0 || errno != ESRCH;
	return true;
}

/* rows minus prev, for interval output (same aggregation: same order). */
static void delta_rows(struct pms_count_row *rows, const struct pms_count_row *prev, size_t n)
{
	for (size_t i = 0; i < n && prev; i++) {
		struct pms_count_value v = { rows[i].raw - prev[i].raw,
					     rows[i].enabled - prev[i].enabled,
					     rows[i].running - prev[i].running, 0, 0 };
		pms_count_value_scale(&v);
		/* Sum of the instances' estimates, minus the previous sum. */
		rows[i].scaled = rows[i].scaled - prev[i].scaled;
		rows[i].raw = v.raw;
		rows[i].enabled = v.enabled;
		rows[i].running = v.running;
		rows[i].fraction = v.enabled ? v.fraction : 1.0;
	}
}

/* One interval: read, aggregate, give the deltas to the callback; *prev
 * (with *nprev rows) becomes this read's cumulative rows. */
static int run_interval(struct pms_countrun *cr, double t0, double next, double tnow,
			struct pms_count_row **prev, size_t *nprev)
{
	struct pms_count_row *rows = NULL, *keep;
	size_t n = 0;
	double ival = (double)cr->o.interval_ms / 1000.0;
	int rc;

	if ((rc = pms_counter_read(cr->c)) < 0)
		return fail(cr, PMS_COUNTRUN_READ, rc);
	if ((rc = pms_counter_rows(cr->c, cr->o.agg, &rows, &n)) < 0)
		return fail(cr, PMS_COUNTRUN_AGGREGATE, rc);
	keep = malloc((n ? n : 1) * sizeof(*keep));
	if (!keep) {
		pms_count_rows_free(rows);
		return fail(cr, PMS_COUNTRUN_RUNS, pms_err(PMS_ENOMEM, "out of memory"));
	}
	memcpy(keep, rows, n * sizeof(*rows));
	delta_rows(rows, *nprev == n ? *prev : NULL, n);
	struct pms_countrun_interval iv = { tnow - t0, tnow - (next - ival), rows, keep, n, cr->c };
	if (iv.elapsed <= 0 || iv.elapsed > tnow - t0)
		iv.elapsed = tnow - t0;
	if (cr->cb.interval)
		cr->cb.interval(cr->o.ud, &iv);
	pms_count_rows_free(*prev);
	pms_count_rows_free(rows);
	*prev = keep;
	*nprev = n;
	return 0;
}

/* Poll the target every 5 ms until it ends, reading at each interval. */
static int run_poll(struct pms_countrun *cr, double t0)
{
	struct pms_count_row *prev = NULL;
	size_t nprev = 0;
	double ival = (double)cr->o.interval_ms / 1000.0, next = t0 + ival;
	int rc = 0;
	/* The end is seen within a poll: from 50 us, doubling to 5 ms, so a
	 * short command's elapsed time is not a 5 ms poll's (perf waits for
	 * the child; issue 30: `true` took 5-7 ms here, 1.5 ms in perf). */
	long nap_ns = 50 * 1000;

	for (;;) {
		struct timespec ts = { 0, nap_ns };
		bool alive = target_alive(cr);
		bool tick = cr->o.interval_ms && now_s() >= next;
		if (tick || (cr->o.interval_ms && !alive)) {
			rc = run_interval(cr, t0, next, now_s(), &prev, &nprev);
			if (rc < 0)
				break;
			next += ival;
		}
		if (!alive)
			break;
		nanosleep(&ts, NULL);
		if (nap_ns < 5 * 1000 * 1000)
			nap_ns = nap_ns * 2 > 5 * 1000 * 1000 ? 5 * 1000 * 1000 : nap_ns * 2;
	}
	pms_count_rows_free(prev);
	return rc;
}

/* The end of one run without intervals: read, aggregate, add to the sums. */
static int run_final(struct pms_countrun *cr, int run, double el)
{
	size_t n = 0;
	int rc;

	if ((rc = pms_counter_read(cr->c)) < 0)
		return fail(cr, PMS_COUNTRUN_FINAL, rc);
	if ((rc = pms_counter_rows(cr->c, cr->o.agg, &cr->rows, &n)) < 0)
		return fail(cr, PMS_COUNTRUN_AGGREGATE, rc);
	cr->nrows = n;
	if (run == 0) {
		cr->res.nrows = n;
		cr->sum = calloc(n + 1, sizeof(*cr->sum));
		cr->sq = calloc(n + 1, sizeof(*cr->sq));
		cr->rsd = calloc(n + 1, sizeof(*cr->rsd));
		if (!cr->sum || !cr->sq || !cr->rsd)
			return fail(cr, PMS_COUNTRUN_RUNS, pms_err(PMS_ENOMEM, "out of memory"));
	} else if (n != cr->res.nrows) {
		return fail(cr, PMS_COUNTRUN_RUNS,
			    pms_err(PMS_EINVAL, "run %d gave %zu rows, the first %zu", run + 1, n,
				    cr->res.nrows));
	}
	for (size_t k = 0; k < n; k++) {
		cr->sum[k] += cr->rows[k].scaled;
		cr->sq[k] += cr->rows[k].scaled * cr->rows[k].scaled;
	}
	cr->el_sum += el;
	cr->el_sq += el * el;
	cr->res.runs++;
	return 0;
}

/* The relative standard deviation of the mean, in % (perf's "( +- x% )",
 * tools/perf/util/stat.c rel_stddev_stats). */
static double rel_stddev(double sum, double sq, int runs)
{
	double mean = sum / runs, var = (sq - runs * mean * mean) / (runs - 1);
	return mean > 0 && var > 0 ? 100.0 * sqrt(var / runs) / mean : 0;
}

/* -r: the last run's rows become the means. */
static void run_stats(struct pms_countrun *cr)
{
	int runs = cr->res.runs;
	for (size_t k = 0; k < cr->nrows; k++) {
		double mean = cr->sum[k] / runs;
		if (runs > 1) {
			cr->rsd[k] = rel_stddev(cr->sum[k], cr->sq[k], runs);
			cr->rows[k].raw = (uint64_t)(mean + 0.5);
		}
		cr->rows[k].scaled = mean;
	}
	cr->res.rows = cr->rows;
	cr->res.nrows = cr->nrows;
	cr->res.rsd = runs > 1 ? cr->rsd : NULL;
	cr->res.elapsed = cr->el_sum / runs;
	if (runs > 1)
		cr->res.elapsed_rsd = rel_stddev(cr->el_sum, cr->el_sq, runs);
	if (cr->o.argv) {
		cr->res.user_s = cr->user_s / runs;
		cr->res.sys_s = cr->sys_s / runs;
	}
}

static int run_once(struct pms_countrun *cr, int run)
{
	struct rusage ru0, ru1;
	double t0;
	int rc;

	if ((rc = run_open(cr)) < 0)
		return rc;
	getrusage(RUSAGE_CHILDREN, &ru0);
	t0 = now_s();
	if (cr->child && (rc = pms_child_start(cr->child)) < 0)
		return fail(cr, PMS_COUNTRUN_EXEC, rc);
	if ((rc = run_poll(cr, t0)) < 0 || cr->o.interval_ms)
		return rc;
	double el = now_s() - t0;
	if ((rc = run_final(cr, run, el)) < 0)
		return rc;
	getrusage(RUSAGE_CHILDREN, &ru1);
	cr->user_s += tv_s(&ru1.ru_utime) - tv_s(&ru0.ru_utime);
	cr->sys_s += tv_s(&ru1.ru_stime) - tv_s(&ru0.ru_stime);
	return 0;
}

int pms_countrun_run(struct pms_countrun *cr)
{
	const struct pms_count_opts co0 = cr->co;
	unsigned repeat = cr->o.repeat ? cr->o.repeat : 1;
	int rc = 0;

	for (unsigned run = 0; run < repeat && !cr->stop; run++) {
		if (run) {
			run_reset(cr);
			cr->co = co0;
		}
		if ((rc = run_once(cr, (int)run)) < 0)
			break;
		if (cr->o.interval_ms)
			break;
	}
	if (rc == 0 && !cr->o.interval_ms && cr->res.runs)
		run_stats(cr);
	cr->co = co0;
	cr->res.stopped = cr->stop;
	return rc;
}

void pms_countrun_free(struct pms_countrun *cr)
{
	if (!cr)
		return;
	run_reset(cr);
	pms_event_list_free(cr->list);
	free(cr->sum);
	free(cr->sq);
	free(cr->rsd);
	free(cr);
}
