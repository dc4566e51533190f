/* The counting run (include/pmuscope/countrun.h): perf stat's derived
 * metrics on built rows; the default set; the run against the fake kernel
 * (a thread target: the ':u' retry on a privilege refusal, interval deltas,
 * the final rows, the stop); the options' checks; and commands on the real
 * kernel with a software event (-r statistics, exit codes, exec failure). */
#include "check.h"
#include "count_helpers.h"
#include "pmuscope/countrun.h"
#include "pmuscope/error.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct pms_count_row row(const char *name, int id, double scaled)
{
	struct pms_count_row r;
	memset(&r, 0, sizeof(r));
	r.name = name;
	r.id = id;
	r.package = -1;
	r.scaled = scaled;
	r.raw = (uint64_t)scaled;
	r.enabled = r.running = 1000;
	r.ninstances = 1;
	r.fraction = 1.0;
	r.scale = 1.0;
	return r;
}

PMS_TEST(metric_ipc_ghz_cpus_and_rates)
{
	struct pms_count_row rows[] = {
		row("task-clock", -1, 2e9),       /* 2 s of CPU */
		row("page-faults:u", -1, 3e6),    /* 1.5 M/sec */
		row("cycles", -1, 6e9),           /* 3 GHz */
		row("instructions", -1, 12e9),    /* 2 IPC */
		row("context-switches", -1, 10),  /* 5 /sec */
		row("branches", -1, 5),           /* no metric */
	};
	size_t n = sizeof(rows) / sizeof(rows[0]);
	double v;
	const char *u;
	CHECK(pms_count_metric(rows, n, 0, NULL, 4.0, &v, &u));
	CHECK(v == 0.5);
	CHECK_EQ_STR(u, "CPUs utilized");
	CHECK(!pms_count_metric(rows, n, 0, NULL, 0, &v, &u)); /* no elapsed time */
	CHECK(pms_count_metric(rows, n, 1, NULL, 4.0, &v, &u));
	CHECK(v == 1.5);
	CHECK_EQ_STR(u, "M/sec");
	CHECK(pms_count_metric(rows, n, 2, NULL, 4.0, &v, &u));
	CHECK(v == 3.0);
	CHECK_EQ_STR(u, "GHz");
	CHECK(pms_count_metric(rows, n, 3, NULL, 4.0, &v, &u));
	CHECK(v == 2.0);
	CHECK_EQ_STR(u, "insn per cycle");
	CHECK(pms_count_metric(rows, n, 4, NULL, 4.0, &v, &u));
	CHECK(v == 5.0);
	CHECK_EQ_STR(u, "/sec");
	CHECK(!pms_count_metric(rows, n, 5, NULL, 4.0, &v, &u));
	CHECK(!pms_count_metric(rows, n, n, NULL, 4.0, &v, &u)); /* out of range */
}

PMS_TEST(metric_needs_a_counted_row_of_the_same_bucket)
{
	struct pms_count_row rows[] = {
		row("cycles", 0, 100), row("cycles", 1, 0),
		row("instructions", 0, 300), row("instructions", 1, 50),
		row("instructions", 2, 50),
	};
	size_t n = sizeof(rows) / sizeof(rows[0]);
	double v;
	const char *u;
	CHECK(pms_count_metric(rows, n, 2, NULL, 1, &v, &u));
	CHECK(v == 3.0);
	CHECK(!pms_count_metric(rows, n, 3, NULL, 1, &v, &u)); /* its cycles are 0 */
	CHECK(!pms_count_metric(rows, n, 4, NULL, 1, &v, &u)); /* no cycles in bucket 2 */
	/* not counted: never enabled, or unsupported */
	rows[2].enabled = 0;
	CHECK(!pms_count_row_counted(&rows[2], NULL));
	CHECK(!pms_count_metric(rows, n, 2, NULL, 1, &v, &u));
	/* an interval's delta row: the cumulative row decides */
	struct pms_count_row cum[5];
	memcpy(cum, rows, sizeof(cum));
	cum[2].enabled = 500;
	CHECK(pms_count_row_counted(&rows[2], &cum[2]));
	CHECK(pms_count_metric(rows, n, 2, cum, 1, &v, &u));
	rows[0].unsupported = "no such event";
	CHECK(!pms_count_metric(rows, n, 2, cum, 1, &v, &u));
	/* every instance unscheduled */
	rows[4].nunscheduled = 1;
	CHECK(!pms_count_row_counted(&rows[4], NULL));
}

PMS_TEST(default_events)
{
	char buf[256];
	pms_count_default_events(NULL, false, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "task-clock,context-switches,cpu-migrations,page-faults");
	struct ch_root r;
	if (ch_root_open(&r, "zen4-ibs", 2, false) < 0)
		return;
	pms_count_default_events(r.pmus, true, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "task-clock:u,context-switches:u,cpu-migrations:u,page-faults:u,"
			  "cycles:u,instructions:u");
	ch_root_close(&r);
}

/* Accept what the generic kernel checks accept (paranoid, capabilities:
 * fkr_core) for any PMU type, as test_count.c does. */
static int accept_rule(struct fk *fk, const struct perf_event_attr *attr, pid_t pid, int cpu,
		       int group_fd, unsigned long flags)
{
	struct fkr_machine *m = fk->rule_ud;
	(void)group_fd;
	(void)flags;
	return fkr_core(m, attr, pid, cpu);
}

/* Reads: each fd counts 100 more events and 1000 ns more per read. */
static ssize_t (*fk_read_op)(void *ud, int fd, void *buf, size_t count);
static uint64_t nreads[4096];
static ssize_t scripted_read(void *ud, int fd, void *buf, size_t count)
{
	struct fk_fd *f = fk_fd(ud, fd);
	if (f && fd >= 0 && fd < 4096) {
		uint64_t k = ++nreads[fd], v[3] = { 100 * k, 1000 * k, 1000 * k };
		memcpy(f->read_data, v, sizeof(v));
		f->read_len = sizeof(v);
	}
	return fk_read_op(ud, fd, buf, count);
}

/* A second sys on the fixture root, its reads scripted. */
static struct pms_sys *scripted_sys(struct ch_root *r)
{
	static struct pms_sys_ops ops;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	struct pms_sys *sys = NULL;
	r->fk->rule = accept_rule;
	ops = *fk_ops(r->fk);
	fk_read_op = ops.read;
	ops.read = scripted_read;
	memset(nreads, 0, sizeof(nreads));
	o.root = r->dir;
	o.ops = &ops;
	CHECK_OK(pms_sys_new(&sys, &o));
	return sys;
}

struct seen {
	struct pms_countrun *cr;
	int user_only, intervals, stop_after;
	char why[256];
	bool deltas_ok, cum_ok, elapsed_ok;
	size_t nrows;
};

static void seen_user_only(void *ud, const char *why)
{
	struct seen *s = ud;
	s->user_only++;
	snprintf(s->why, sizeof(s->why), "%s", why);
}

static void seen_interval(void *ud, const struct pms_countrun_interval *iv)
{
	struct seen *s = ud;
	s->intervals++;
	s->nrows = iv->nrows;
	for (size_t i = 0; i < iv->nrows; i++) {
		if (iv->rows[i].raw != 100 || iv->rows[i].scaled != 100.0 ||
		    iv->rows[i].enabled != 1000)
			s->deltas_ok = false;
		if (iv->cum[i].raw != 100 * (uint64_t)s->intervals)
			s->cum_ok = false;
	}
	if (!(iv->elapsed > 0 && iv->elapsed <= iv->t) || !iv->counter)
		s->elapsed_ok = false;
	if (s->intervals == s->stop_after)
		pms_countrun_stop(s->cr);
}

PMS_TEST(interval_deltas_and_user_only_retry)
{
	struct ch_root r;
	if (ch_root_open(&r, "zen4-ibs", 2, false) < 0)
		return;
	struct pms_sys *sys = scripted_sys(&r);
	struct pms_count_opts co = PMS_COUNT_OPTS_INIT;
	struct pms_countrun_opts o = PMS_COUNTRUN_OPTS_INIT;
	struct pms_countrun_callbacks cb = { seen_user_only, seen_interval };
	struct seen s = { .stop_after = 3, .deltas_ok = true, .cum_ok = true, .elapsed_ok = true };
	co.target = PMS_COUNT_TID;
	co.pid = getpid(); /* alive: the run ends by the stop */
	o.count = &co;
	o.interval_ms = 10;
	o.callbacks = &cb;
	o.ud = &s;
	CHECK_OK(pms_countrun_new(sys, r.pmus, r.topo, &o, &s.cr));
	if (s.cr) {
		CHECK_OK(pms_countrun_run(s.cr));
		const struct pms_countrun_result *res = pms_countrun_result(s.cr);
		/* paranoid 2 without CAP_PERFMON refuses kernel counting: the
		 * default set is retried with ':u', once */
		CHECK_EQ_INT(s.user_only, 1);
		CHECK_MSG(strstr(s.why, "paranoid") != NULL, "why: %s", s.why);
		CHECK(r.fk->nlog > 0 && r.fk->log[r.fk->nlog - 1].attr.exclude_kernel);
		/* the stop after the third interval reads once more */
		CHECK_EQ_INT(s.intervals, 4);
		CHECK_EQ_INT(s.nrows, 6);
		CHECK(s.deltas_ok);
		CHECK(s.cum_ok);
		CHECK(s.elapsed_ok);
		CHECK(res->stopped);
		CHECK(res->rows == NULL);
		CHECK_EQ_INT(res->exit_code, -1);
		CHECK(res->counter != NULL);
		CHECK_EQ_INT(res->failed, PMS_COUNTRUN_OK);
	}
	pms_countrun_free(s.cr);
	CHECK_EQ_INT(r.fk->nopen, 0);
	pms_sys_free(sys);
	ch_root_close(&r);
}

static void *stop_later(void *arg)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	pms_countrun_stop(arg);
	return NULL;
}

PMS_TEST(final_rows_after_a_stop)
{
	struct ch_root r;
	if (ch_root_open(&r, "zen4-ibs", 0, false) < 0)
		return;
	struct pms_sys *sys = scripted_sys(&r);
	struct pms_count_opts co = PMS_COUNT_OPTS_INIT;
	struct pms_countrun_opts o = PMS_COUNTRUN_OPTS_INIT;
	struct pms_countrun_callbacks cb = { seen_user_only, NULL };
	struct seen s = { 0 };
	struct pms_countrun *cr = NULL;
	pthread_t th;
	co.target = PMS_COUNT_TID;
	co.pid = getpid();
	o.count = &co;
	o.events = "page-faults,cycles";
	o.callbacks = &cb;
	o.ud = &s;
	CHECK_OK(pms_countrun_new(sys, r.pmus, r.topo, &o, &cr));
	if (cr && pthread_create(&th, NULL, stop_later, cr) == 0) {
		CHECK_OK(pms_countrun_run(cr));
		pthread_join(th, NULL);
		const struct pms_countrun_result *res = pms_countrun_result(cr);
		CHECK_EQ_INT(s.user_only, 0); /* paranoid 0: no retry */
		CHECK_EQ_INT(res->runs, 1);
		CHECK_EQ_INT(res->nrows, 2);
		if (res->nrows == 2) {
			CHECK_EQ_STR(res->rows[0].name, "page-faults");
			CHECK_EQ_U64(res->rows[0].raw, 100); /* one read */
			CHECK(res->rows[1].scaled == 100.0);
		}
		CHECK(res->rsd == NULL);
		CHECK(res->elapsed > 0);
		CHECK(res->user_s == -1 && res->sys_s == -1); /* no command */
		CHECK(res->stopped);
		CHECK_EQ_INT(res->exit_code, -1);
	}
	pms_countrun_free(cr);
	CHECK_EQ_INT(r.fk->nopen, 0);
	pms_sys_free(sys);
	ch_root_close(&r);
}

PMS_TEST(options_are_checked)
{
	struct ch_root r;
	struct pms_countrun *cr = NULL;
	static char *argv[] = { "true", NULL };
	if (ch_root_open(&r, "zen4-ibs", 0, false) < 0)
		return;
	struct pms_countrun_opts o = PMS_COUNTRUN_OPTS_INIT;
	o.version = 0;
	CHECK_EQ_INT(pms_countrun_new(r.sys, r.pmus, r.topo, &o, &cr), PMS_EINVAL);
	o.version = PMS_COUNTRUN_OPTS_VERSION + 1;
	CHECK_EQ_INT(pms_countrun_new(r.sys, r.pmus, r.topo, &o, &cr), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "newer") != NULL);
	o = (struct pms_countrun_opts)PMS_COUNTRUN_OPTS_INIT;
	o.repeat = 2;
	CHECK_EQ_INT(pms_countrun_new(r.sys, r.pmus, r.topo, &o, &cr), PMS_EINVAL);
	o.argv = argv;
	o.interval_ms = 100;
	CHECK_EQ_INT(pms_countrun_new(r.sys, r.pmus, r.topo, &o, &cr), PMS_EINVAL);
	o = (struct pms_countrun_opts)PMS_COUNTRUN_OPTS_INIT;
	o.events = "no-such-event-here";
	CHECK(pms_countrun_new(r.sys, r.pmus, r.topo, &o, &cr) < 0);
	CHECK(cr == NULL);
	/* NULL opts: the defaults (the default set parses) */
	CHECK_OK(pms_countrun_new(r.sys, r.pmus, r.topo, NULL, &cr));
	pms_countrun_free(cr);
	pms_countrun_free(NULL);
	ch_root_close(&r);
}

/* ---- the real kernel: commands, software events ---- */

static struct pms_countrun *live_run(struct pms_sys *sys, const struct pms_pmus *pmus,
				     char *const *argv, unsigned repeat, int *rc)
{
	struct pms_countrun_opts o = PMS_COUNTRUN_OPTS_INIT;
	struct pms_countrun *cr = NULL;
	o.events = "task-clock,page-faults";
	o.argv = argv;
	o.repeat = repeat;
	CHECK_OK(pms_countrun_new(sys, pmus, NULL, &o, &cr));
	*rc = cr ? pms_countrun_run(cr) : -1;
	return cr;
}

PMS_TEST(live_commands_repeat_and_exit_codes)
{
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	static char *exit3[] = { "sh", "-c", "exit 3", NULL };
	static char *killed[] = { "sh", "-c", "kill -TERM $$", NULL };
	static char *missing[] = { "/nonexistent/pmuscope-test", NULL };
	struct pms_countrun *cr;
	int rc;
	if (pms_sys_new(&sys, NULL) < 0 || pms_pmus_load(sys, &pmus) < 0) {
		CHECK_MSG(0, "live system: %s", pms_error_last());
		pms_sys_free(sys);
		return;
	}
	cr = live_run(sys, pmus, exit3, 3, &rc);
	if (rc == PMS_EPERM || rc == PMS_ENOTSUP) {
		fprintf(stderr, "SKIP live: %s\n", pms_error_last());
	} else if (cr) {
		const struct pms_countrun_result *res = pms_countrun_result(cr);
		CHECK_MSG(rc == 0, "run: %s", pms_error_last());
		CHECK_EQ_INT(res->runs, 3);
		CHECK_EQ_INT(res->exit_code, 3);
		CHECK_EQ_INT(res->nrows, 2);
		CHECK(res->rsd != NULL);
		if (res->nrows == 2) {
			CHECK(res->rows[0].scaled > 0);  /* task-clock of sh */
			CHECK(res->rows[1].scaled >= 1); /* sh faults pages in */
			CHECK(res->rsd[0] >= 0);
		}
		CHECK(res->elapsed > 0 && res->elapsed_rsd >= 0);
		CHECK(res->user_s >= 0 && res->sys_s >= 0);
		CHECK(!res->stopped);
		pms_countrun_free(cr);
		cr = live_run(sys, pmus, killed, 1, &rc);
		CHECK_OK(rc);
		if (cr)
			CHECK_EQ_INT(pms_countrun_result(cr)->exit_code, 128 + SIGTERM);
		pms_countrun_free(cr);
		cr = live_run(sys, pmus, missing, 1, &rc);
		CHECK(rc < 0);
		if (cr) {
			CHECK_EQ_INT(pms_countrun_result(cr)->failed, PMS_COUNTRUN_EXEC);
			CHECK_EQ_INT(pms_error_errno(), ENOENT);
		}
	}
	pms_countrun_free(cr);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
}

PMS_TEST_MAIN()
