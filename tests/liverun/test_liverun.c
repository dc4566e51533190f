/* The live-run driver (include/pmuscope/liverun.h).
 * Fake kernel: a system-wide run feeds the profile, the caller's callbacks
 * and the recording in one pass, resolves the samples' nodes through the
 * oracle while they live, stops on a signal (caught or pms_liverun_stop) or
 * the duration, notices a -p process going away, and the file it wrote
 * reads back with every sample; the options rule.
 * Live host (software page faults): a command's exit status, its pages
 * resolved at its held exit after it called exit(), a command that ignores
 * the forwarded signal killed, an exec failure; exit holds served at the
 * exit stop (an hour-long poll timeout, many processes, the caller's
 * SIGCHLD handler chained and put back) and the hold budget's rule (only
 * the first process of a batch asked about with the smallest budget). */
#include "check.h"
#include "../sample/sample_helpers.h"

#include "pmuscope/error.h"
#include "pmuscope/liverun.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"
#include "pmuscope/report.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- fake kernel ------------------------------------------------------------- */

struct seen {
	int samples, sideband, progress;
	int stop_at; /* pms_liverun_stop(run, SIGTERM) from the stop_at-th sample */
	struct pms_liverun *run;
};

static int seen_sample(void *ud, const struct pms_memsrc_sample *s)
{
	struct seen *g = ud;
	(void)s;
	if (++g->samples == g->stop_at)
		pms_liverun_stop(g->run, SIGTERM);
	return 0;
}

static int seen_side(void *ud, const struct pms_record *r, size_t i)
{
	struct seen *g = ud;
	(void)r;
	(void)i;
	g->sideband++;
	return 0;
}

static void seen_progress(void *ud, const struct pms_liverun_progress *p)
{
	struct seen *g = ud;
	(void)p;
	g->progress++;
}

static const struct pms_liverun_callbacks seen_cb = { seen_sample, seen_side, seen_progress };

static int put_sample(struct fk *fk, int fd, uint32_t pid, uint64_t ip, uint64_t addr)
{
	struct fk_fd *f = fk_fd(fk, fd);
	struct pms_sample_layout l;
	struct pms_record r;
	unsigned char buf[512];
	size_t len = 0;
	if (!f)
		return -EBADF;
	memset(&r, 0, sizeof(r));
	r.type = PMS_RECORD_SAMPLE;
	r.sample.misc = PMS_MISC_USER;
	r.sample.ip = ip;
	r.sample.pid = r.sample.tid = pid;
	r.sample.addr = addr;
	r.sample.period = 1;
	r.sample.time = 1000 + addr / 4096;
	pms_sample_layout_from_attr(&l, &f->attr);
	int rc = pms_record_encode(&l, &r, buf, sizeof(buf), &len);
	return rc < 0 ? rc : fk_ring_put(fk, fd, buf, len);
}

static int put_comm(struct fk *fk, int fd, uint32_t pid, const char *comm)
{
	struct fk_fd *f = fk_fd(fk, fd);
	struct pms_sample_layout l;
	struct pms_record r;
	unsigned char buf[512];
	size_t len = 0;
	if (!f)
		return -EBADF;
	memset(&r, 0, sizeof(r));
	r.type = PMS_RECORD_COMM;
	r.comm.pid = r.comm.tid = pid;
	r.comm.comm = comm;
	pms_sample_layout_from_attr(&l, &f->attr);
	int rc = pms_record_encode(&l, &r, buf, sizeof(buf), &len);
	return rc < 0 ? rc : fk_ring_put(fk, fd, buf, len);
}

/* Samples in a perf.data file, through the recorded source. */
static int count_file(FILE *f, uint64_t *samples)
{
	struct pms_perfdata_reader *rd = NULL;
	struct pms_memsrc *src = NULL;
	struct pms_memsrc_stats st;
	int rc = pms_perfdata_reader_open_fd(fileno(f), &rd);
	if (rc == 0)
		rc = pms_memsrc_open_reader(rd, &src);
	while (rc == 0 && (rc = pms_memsrc_poll(src, 0, NULL, NULL)) > 0)
		rc = 0;
	if (rc == 0) {
		pms_memsrc_stats(src, &st);
		*samples = st.samples;
	}
	pms_memsrc_free(src);
	pms_perfdata_reader_free(rd);
	return rc;
}

PMS_TEST(system_wide_feeds_profile_callbacks_and_recording)
{
	struct th_root r;
	struct pms_liverun *run = NULL;
	struct pms_memprof *prof = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_liverun_result res;
	struct seen g = { 0 };
	FILE *out = tmpfile();

	if (th_root_open(&r, "vm-nopmu", "0", -1, true) < 0 || !out)
		goto out;
	struct pms_liverun_opts lo = PMS_LIVERUN_OPTS_INIT;
	lo.target = PMS_LIVERUN_SYSTEM;
	lo.resolve = true;
	lo.callbacks = &seen_cb;
	lo.ud = &g;
	lo.poll_ms = 1;
	lo.progress_s = 1e-9; /* every step */
	CHECK_OK(pms_liverun_open(r.sys, r.pmus, NULL, &lo, &run));
	if (!run)
		goto out;
	g.run = run;
	CHECK_EQ_INT(pms_liverun_pid(run), 0);
	CHECK(pms_liverun_oracle(run) != NULL);
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.functions_per_pid = true;
	CHECK_OK(pms_memprof_new(NULL, &po, &prof));
	pms_liverun_set_profile(run, prof);
	CHECK_OK(pms_liverun_record(run, fileno(out), NULL));
	CHECK(pms_liverun_record(run, fileno(out), NULL) == PMS_EINVAL); /* one recorder */
	CHECK(pms_liverun_step(run) == PMS_EINVAL); /* not started */
	CHECK_OK(pms_liverun_start(run));
	int fd = th_fd_of_type(r.fk, PERF_TYPE_SOFTWARE, 0);
	CHECK(fd >= 0);
	if (fd < 0)
		goto out;
	/* two processes' pages on two nodes; one page the kernel does not
	 * know (-EFAULT: asked again later, then counted) */
	fk_set_page(r.fk, 0x10000, 0);
	fk_set_page(r.fk, 0x20000, 1);
	CHECK_OK(put_comm(r.fk, fd, 100, "alpha"));
	CHECK_OK(put_sample(r.fk, fd, 100, 0x401000, 0x10008));
	CHECK_OK(put_sample(r.fk, fd, 100, 0x401004, 0x10010));
	CHECK_OK(put_sample(r.fk, fd, 200, 0x402000, 0x20000));
	CHECK_OK(put_sample(r.fk, fd, 200, 0x402000, 0x30000));
	/* the observer's own (system-wide): counted, not delivered */
	CHECK_OK(put_sample(r.fk, fd, (uint32_t)getpid(), 0x403000, 0x40000));
	CHECK_EQ_INT(pms_liverun_step(run), 1);
	CHECK_EQ_INT(g.samples, 4);
	struct pms_memsrc_stats sst;
	pms_memsrc_stats(pms_liverun_source(run), &sst);
	CHECK_EQ_U64(sst.samples_excluded, 1);
	CHECK_EQ_INT(g.sideband, 1);
	CHECK(g.progress >= 1);
	CHECK_EQ_U64(pms_memprof_count(prof), 4);
	/* the next sample asks the run to stop (as a signal would) */
	g.stop_at = 5;
	CHECK_OK(put_sample(r.fk, fd, 100, 0x401008, 0x10018));
	CHECK_EQ_INT(pms_liverun_step(run), 0);
	CHECK_EQ_INT(pms_liverun_step(run), 0); /* over stays over */
	CHECK_OK(pms_liverun_finish(run));
	pms_liverun_result(run, &res);
	CHECK(res.interrupted);
	CHECK_EQ_INT(res.stop_signal, SIGTERM);
	CHECK(!res.timed_out && !res.have_status && !res.holding);
	CHECK_EQ_INT(res.write_error, 0);
	CHECK(res.write_message == NULL);
	/* the recording: the header and every sample, readable */
	CHECK_EQ_U64(pms_recorder_records(pms_liverun_recorder(run)), 6);
	uint64_t n = 0;
	rewind(out);
	CHECK_OK(count_file(out, &n));
	CHECK_EQ_U64(n, 5);
	/* the nodes, each asked in its own process while it lived */
	struct pms_memreport_input in = { .duration_ns = 0 };
	CHECK_OK(pms_memprof_report(prof, NULL, &in, &rep));
	if (rep) {
		CHECK_EQ_U64(rep->samples, 5);
		CHECK_EQ_U64(rep->resolved, 4);
		CHECK_EQ_U64(rep->unresolved, 1);
		CHECK_EQ_U64(rep->st_not_asked, 0);
		for (size_t i = 0; i < rep->nall; i++) {
			const struct pms_memreport_sample *s = &rep->all[i];
			if (s->s.addr >> 16 == 1)
				CHECK_EQ_INT(s->mem_node, 0);
			else if (s->s.addr == 0x20000)
				CHECK_EQ_INT(s->mem_node, 1);
			else
				CHECK(s->mem_node < 0);
		}
	}
out:
	pms_memreport_free(rep);
	pms_liverun_free(run);
	pms_memprof_free(prof);
	if (out)
		fclose(out);
	th_root_close(&r);
}

PMS_TEST(duration_and_caught_signal)
{
	struct th_root r;
	struct pms_liverun *run = NULL, *two = NULL;
	struct pms_liverun_result res;
	struct sigaction before, now;

	if (th_root_open(&r, "vm-nopmu", "0", -1, true) < 0)
		goto out;
	struct pms_liverun_opts lo = PMS_LIVERUN_OPTS_INIT;
	lo.target = PMS_LIVERUN_SYSTEM;
	lo.duration_s = 0.05;
	lo.poll_ms = 5;
	CHECK_OK(pms_liverun_open(r.sys, r.pmus, NULL, &lo, &run));
	if (!run)
		goto out;
	CHECK_OK(pms_liverun_start(run));
	/* the fake kernel's poll does not wait: many steps, until the clock
	 * says 50 ms (a guard of 60 s against a run that never ends) */
	struct timespec t0, t1;
	long steps = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		steps++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while (pms_liverun_step(run) > 0 && t1.tv_sec - t0.tv_sec < 60);
	CHECK(steps >= 1 && t1.tv_sec - t0.tv_sec < 60);
	CHECK_OK(pms_liverun_finish(run));
	pms_liverun_result(run, &res);
	CHECK(res.timed_out);
	CHECK(!res.interrupted);
	CHECK(res.seconds >= 0.05);
	pms_liverun_free(run);
	run = NULL;

	/* catch_signals: SIGINT ends the run; the handler found is put back */
	sigaction(SIGINT, NULL, &before);
	lo.duration_s = 0;
	lo.catch_signals = true;
	CHECK_OK(pms_liverun_open(r.sys, r.pmus, NULL, &lo, &run));
	if (!run)
		goto out;
	CHECK(pms_liverun_open(r.sys, r.pmus, NULL, &lo, &two) == PMS_EBUSY); /* one at a time */
	CHECK(two == NULL);
	CHECK_OK(pms_liverun_start(run));
	CHECK_EQ_INT(pms_liverun_step(run), 1);
	raise(SIGINT);
	CHECK_EQ_INT(pms_liverun_run(run), 0);
	pms_liverun_result(run, &res);
	CHECK(res.interrupted && res.stop_signal == SIGINT && !res.timed_out);
	pms_liverun_free(run);
	run = NULL;
	sigaction(SIGINT, NULL, &now);
	CHECK(now.sa_handler == before.sa_handler);
out:
	pms_liverun_free(run);
	th_root_close(&r);
}

PMS_TEST(pid_gone_ends_the_run)
{
	struct th_root r;
	struct pms_liverun *run = NULL;
	struct pms_liverun_result res;
	pid_t kid = -1;

	if (th_root_open(&r, "vm-nopmu", "0", -1, true) < 0)
		goto out;
	kid = fork();
	if (kid == 0) {
		pause();
		_exit(0);
	}
	CHECK(kid > 0);
	if (kid < 0)
		goto out;
	struct pms_liverun_opts lo = PMS_LIVERUN_OPTS_INIT;
	lo.target = PMS_LIVERUN_PID;
	lo.pid = kid;
	lo.poll_ms = 1;
	CHECK_OK(pms_liverun_open(r.sys, r.pmus, NULL, &lo, &run));
	if (!run)
		goto out;
	CHECK_EQ_INT(pms_liverun_pid(run), kid);
	CHECK(pms_liverun_oracle(run) == NULL); /* resolve not asked */
	CHECK_OK(pms_liverun_start(run));
	CHECK_EQ_INT(pms_liverun_step(run), 1);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	CHECK_EQ_INT(pms_liverun_step(run), 0);
	pms_liverun_result(run, &res);
	CHECK(res.target_gone && !res.interrupted && !res.timed_out);
	/* and a process that is not there is refused at open */
	pms_liverun_free(run);
	run = NULL;
	CHECK(pms_liverun_open(r.sys, r.pmus, NULL, &lo, &run) == PMS_ENOENT);
	CHECK(run == NULL);
	CHECK(strstr(pms_error_last(), "no process") != NULL);
out:
	pms_liverun_free(run);
	th_root_close(&r);
}

PMS_TEST(options_rule)
{
	struct th_root r;
	struct pms_liverun *run = NULL;
	if (th_root_open(&r, "vm-nopmu", "0", -1, true) < 0)
		goto out;
	struct pms_liverun_opts lo = PMS_LIVERUN_OPTS_INIT;
	/* NULL opts: the defaults, a command without argv */
	CHECK(pms_liverun_open(r.sys, r.pmus, NULL, NULL, &run) == PMS_EINVAL);
	lo.version = 0;
	lo.target = PMS_LIVERUN_SYSTEM;
	CHECK(pms_liverun_open(r.sys, r.pmus, NULL, &lo, &run) == PMS_EINVAL);
	lo.version = PMS_LIVERUN_OPTS_VERSION + 1;
	CHECK(pms_liverun_open(r.sys, r.pmus, NULL, &lo, &run) == PMS_EINVAL);
	/* version 1 (no hold_budget_ms) is still accepted */
	lo.version = 1;
	CHECK_OK(pms_liverun_open(r.sys, r.pmus, NULL, &lo, &run));
	pms_liverun_free(run);
	run = NULL;
	lo.version = PMS_LIVERUN_OPTS_VERSION;
	lo.target = PMS_LIVERUN_PID;
	lo.pid = 0;
	CHECK(pms_liverun_open(r.sys, r.pmus, NULL, &lo, &run) == PMS_EINVAL);
	/* a fake kernel starts no command */
	char *argv[] = { "true", NULL };
	lo.target = PMS_LIVERUN_COMMAND;
	lo.argv = argv;
	CHECK(pms_liverun_open(r.sys, r.pmus, NULL, &lo, &run) == PMS_ENOTLIVE);
	/* a sampler options struct of version 1 (shorter) is read as one */
	struct pms_sampler_opts so = PMS_SAMPLER_OPTS_INIT;
	so.version = 1;
	so.callgraph = PMS_CALLGRAPH_FP; /* past version 1: not read */
	lo.target = PMS_LIVERUN_SYSTEM;
	lo.sampler = &so;
	CHECK_OK(pms_liverun_open(r.sys, r.pmus, NULL, &lo, &run));
	if (run) {
		int fd = th_fd_of_type(r.fk, PERF_TYPE_SOFTWARE, 0);
		CHECK(fd >= 0 && !(fk_fd(r.fk, fd)->attr.sample_type & PMS_SAMPLE_CALLCHAIN));
	}
	CHECK(run != NULL);
	pms_liverun_free(run);
	run = NULL;
	pms_liverun_free(NULL);
out:
	th_root_close(&r);
}

/* ---- live host ------------------------------------------------------------------ */

static struct pms_sys *live_sys(void)
{
	struct pms_sys *sys = NULL;
	return pms_sys_new(&sys, NULL) < 0 ? NULL : sys;
}

/* A live run of argv with the software engine, or a skip reason. */
static int live_open(struct pms_sys *sys, struct pms_pmus **pmus, char **argv, bool hold,
		     double kill_after, struct pms_liverun **run, char *why, size_t nwhy)
{
	if (!*pmus && pms_pmus_load(sys, pmus) < 0) {
		snprintf(why, nwhy, "PMU discovery: %s", pms_error_last());
		return 77;
	}
	struct pms_sampler_opts so = PMS_SAMPLER_OPTS_INIT;
	so.engine = PMS_ENG_SOFTWARE;
	struct pms_liverun_opts lo = PMS_LIVERUN_OPTS_INIT;
	lo.argv = argv;
	lo.hold_exits = hold;
	lo.sampler = &so;
	lo.resolve = true;
	lo.kill_after_s = kill_after;
	int rc = pms_liverun_open(sys, *pmus, NULL, &lo, run);
	if (rc < 0) {
		snprintf(why, nwhy, "no live run here: %s", pms_error_last());
		return 77;
	}
	return 0;
}

PMS_TEST(live_command_status_and_pages_resolved_at_held_exit)
{
	struct pms_sys *sys = live_sys();
	struct pms_pmus *pmus = NULL;
	struct pms_liverun *run = NULL;
	struct pms_memprof *prof = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_liverun_result res;
	char exe[512], why[512], file[] = "/tmp/pms_liverun_XXXXXX";
	struct stat st;
	int fd = mkstemp(file);
	const char *b = pms_t_build_dir();
	snprintf(exe, sizeof(exe), "%s/tests/sample/pms_touch_pages", b ? b : ".");
	if (!sys || fd < 0 || stat(exe, &st) < 0)
		PMS_SKIP("no live context or pms_touch_pages not built");
	close(fd);
	/* 2000 pages touched, then exit at once: the pages exist only while
	 * the process is held */
	char *argv[] = { exe, "2000", file, NULL };
	if (live_open(sys, &pmus, argv, true, 0, &run, why, sizeof(why))) {
		pms_pmus_free(pmus);
		pms_sys_free(sys);
		unlink(file);
		PMS_SKIP("%s", why);
	}
	pms_liverun_result(run, &res);
	if (!res.holding) {
		pms_liverun_free(run);
		pms_pmus_free(pmus);
		pms_sys_free(sys);
		unlink(file);
		PMS_SKIP("ptrace refused here: %s", res.hold_why ? res.hold_why : "?");
	}
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.pid = pms_liverun_pid(run);
	CHECK_OK(pms_memprof_new(NULL, &po, &prof));
	pms_liverun_set_profile(run, prof);
	CHECK_OK(pms_liverun_start(run));
	CHECK_OK(pms_liverun_run(run));
	CHECK_OK(pms_liverun_finish(run));
	pms_liverun_result(run, &res);
	CHECK(res.have_status && WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0);
	CHECK(res.held_exits >= 1);
	CHECK_EQ_U64(res.release_errors, 0);
	/* it started no other process (tests/cli/forkfast.sh: one that does) */
	CHECK_EQ_U64(pms_liverun_left_running(run), 0);
	struct pms_memreport_input in = { .duration_ns = 0 };
	CHECK_OK(pms_memprof_report(prof, NULL, &in, &rep));
	if (rep) {
		/* every first touch is a sample; the process had exited before
		 * anything but the hold could ask */
		CHECK(rep->samples >= 2000);
		CHECK_EQ_U64(rep->st_gone, 0);
		/* asked while the process was held (by the timer or at the
		 * HELD event): none gone */
		CHECK(rep->resolved * 100 >= (rep->resolved + rep->unresolved) * 99);
	}
	pms_memreport_free(rep);
	pms_liverun_free(run);
	pms_memprof_free(prof);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	unlink(file);
}

PMS_TEST(live_stop_forwarded_then_killed)
{
	struct pms_sys *sys = live_sys();
	struct pms_pmus *pmus = NULL;
	struct pms_liverun *run = NULL;
	struct pms_liverun_result res;
	char why[512];
	if (!sys)
		PMS_SKIP("no live context");
	/* ignores the forwarded SIGTERM: SIGKILL after kill_after_s */
	char *argv[] = { "sh", "-c", "trap '' TERM; exec sleep 60", NULL };
	if (live_open(sys, &pmus, argv, false, 0.3, &run, why, sizeof(why))) {
		pms_pmus_free(pmus);
		pms_sys_free(sys);
		PMS_SKIP("%s", why);
	}
	CHECK_OK(pms_liverun_start(run));
	CHECK_EQ_INT(pms_liverun_step(run), 1);
	pms_liverun_stop(run, SIGTERM);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_OK(pms_liverun_run(run));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pms_liverun_result(run, &res);
	CHECK(res.interrupted && res.stop_signal == SIGTERM);
	CHECK(res.killed);
	CHECK(res.have_status && WIFSIGNALED(res.status) && WTERMSIG(res.status) == SIGKILL);
	CHECK(t1.tv_sec - t0.tv_sec < 50); /* not the sleep's 60 s */
	pms_liverun_free(run);
	run = NULL;

	/* a command that could not be executed: its error, reaped */
	char *bad[] = { "/nonexistent/pms-liverun-no-such", NULL };
	if (live_open(sys, &pmus, bad, true, 0, &run, why, sizeof(why)) == 0) {
		CHECK(pms_liverun_start(run) == PMS_ENOENT);
		CHECK_EQ_INT(pms_error_errno(), ENOENT);
		CHECK_EQ_INT(pms_liverun_step(run), 0);
		pms_liverun_free(run);
	}
	pms_pmus_free(pmus);
	pms_sys_free(sys);
}

/* ---- exit holds: served at the exit stop, not at the poll timeout ---------- */

static volatile sig_atomic_t chld_seen;

static void count_chld(int sig)
{
	(void)sig;
	chld_seen++;
}

/* A run of argv held at its exits, with an hour-long poll timeout: only a
 * wake at each ptrace stop (SIGCHLD) lets it end.  The profile's report
 * and the holds come back; 77 with why when it cannot run here. */
static int hour_poll_run(struct pms_sys *sys, struct pms_pmus **pmus, char **argv,
			 double budget_ms, struct pms_liverun_holds *h,
			 struct pms_liverun_result *res, struct pms_memreport **rep, char *why,
			 size_t nwhy)
{
	struct pms_liverun *run = NULL;
	struct pms_memprof *prof = NULL;
	if (!*pmus && pms_pmus_load(sys, pmus) < 0) {
		snprintf(why, nwhy, "PMU discovery: %s", pms_error_last());
		return 77;
	}
	struct pms_sampler_opts so = PMS_SAMPLER_OPTS_INIT;
	so.engine = PMS_ENG_SOFTWARE;
	struct pms_liverun_opts lo = PMS_LIVERUN_OPTS_INIT;
	lo.argv = argv;
	lo.hold_exits = true;
	lo.sampler = &so;
	lo.resolve = true;
	lo.poll_ms = 3600 * 1000;
	lo.hold_budget_ms = budget_ms;
	if (pms_liverun_open(sys, *pmus, NULL, &lo, &run) < 0) {
		snprintf(why, nwhy, "no live run here: %s", pms_error_last());
		return 77;
	}
	pms_liverun_result(run, res);
	if (!res->holding) {
		snprintf(why, nwhy, "ptrace refused here: %s", res->hold_why ? res->hold_why : "?");
		pms_liverun_free(run);
		return 77;
	}
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.pid = pms_liverun_pid(run);
	CHECK_OK(pms_memprof_new(NULL, &po, &prof));
	pms_liverun_set_profile(run, prof);
	CHECK_OK(pms_liverun_start(run));
	CHECK_OK(pms_liverun_run(run)); /* the hang guard is the test's timeout */
	CHECK_OK(pms_liverun_finish(run));
	pms_liverun_result(run, res);
	pms_liverun_holds(run, h);
	struct pms_memreport_input in = { .duration_ns = 0 };
	CHECK_OK(pms_memprof_report(prof, NULL, &in, rep));
	pms_liverun_free(run);
	pms_memprof_free(prof);
	return 0;
}

PMS_TEST(live_exit_holds_released_without_the_poll_timeout)
{
	struct pms_sys *sys = live_sys();
	struct pms_pmus *pmus = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_liverun_result res;
	struct pms_liverun_holds h;
	char why[512];
	if (!sys)
		PMS_SKIP("no live context");
	/* the caller's own SIGCHLD handler: chained while the run holds,
	 * back in place afterwards */
	struct sigaction mine, old, now;
	memset(&mine, 0, sizeof(mine));
	mine.sa_handler = count_chld;
	sigemptyset(&mine.sa_mask);
	sigaction(SIGCHLD, &mine, &old);
	chld_seen = 0;
	/* 20 short processes in turn, each forked, exec'd and held at exit */
	char *argv[] = { "sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; "
				     "do /bin/true; done", NULL };
	if (hour_poll_run(sys, &pmus, argv, -1, &h, &res, &rep, why, sizeof(why))) {
		sigaction(SIGCHLD, &old, NULL);
		pms_pmus_free(pmus);
		pms_sys_free(sys);
		PMS_SKIP("%s", why);
	}
	sigaction(SIGCHLD, NULL, &now);
	sigaction(SIGCHLD, &old, NULL);
	CHECK(now.sa_handler == count_chld); /* put back */
	CHECK(chld_seen > 0);                /* chained */
	CHECK(res.have_status && WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0);
	/* the shell and its 20 children, each held (single-threaded) */
	CHECK(h.processes >= 21);
	CHECK_EQ_U64(h.threads, res.held_exits);
	CHECK(h.threads >= h.processes);
	CHECK(h.batches >= 1 && h.batches <= h.threads);
	CHECK(h.longest_ns <= h.total_ns);
	CHECK_EQ_U64(h.budget_released, 0); /* no budget */
	CHECK_EQ_U64(res.release_errors, 0);
	if (rep) {
		/* every process was asked about while it was held */
		CHECK(rep->samples > 0);
		CHECK_EQ_U64(rep->st_gone, 0);
		CHECK_EQ_U64(rep->st_hold_budget, 0);
		CHECK(rep->resolved > 0);
	}
	pms_memreport_free(rep);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
}

PMS_TEST(live_hold_budget_lets_all_but_the_first_of_a_batch_go)
{
	struct pms_sys *sys = live_sys();
	struct pms_pmus *pmus = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_liverun_result res;
	struct pms_liverun_holds h;
	char why[512];
	if (!sys)
		PMS_SKIP("no live context");
	/* exits that come together (batches of several, however the machine
	 * runs them); every process single-threaded */
	char *argv[] = { "sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do /bin/true & done; wait",
			 NULL };
	/* the smallest budget: only the first process of each batch is asked
	 * about, whatever its size and however long that takes */
	if (hour_poll_run(sys, &pmus, argv, 1e-9, &h, &res, &rep, why, sizeof(why))) {
		pms_pmus_free(pmus);
		pms_sys_free(sys);
		PMS_SKIP("%s", why);
	}
	CHECK(res.have_status && WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0);
	CHECK(h.processes >= 13);
	/* one process (thread) asked per batch, the rest let go at the budget */
	CHECK_EQ_U64(h.budget_released, h.threads - h.batches);
	if (rep) {
		/* a process let go at the budget had its samples counted so, not
		 * as gone */
		CHECK_EQ_U64(rep->st_gone, 0);
		CHECK(h.budget_released > 0 || rep->st_hold_budget == 0);
		printf("# %" PRIu64 " batches of %" PRIu64 " held; %" PRIu64
		       " let go at the budget with %" PRIu64 " samples\n",
		       h.batches, h.threads, h.budget_released, rep->st_hold_budget);
	}
	pms_memreport_free(rep);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
}

PMS_TEST_MAIN()
