/* The sampler on this machine's real kernel.  This machine has no hardware
 * PMU, so the ladder must fall back to software page faults, log why, and
 * the fallback must see every first touch of a deterministic child; the
 * count is compared with perf record -e page-faults -c 1 -d. */
#include "check.h"

#include "pmuscope/error.h"
#include "pmuscope/pmu.h"
#include "pmuscope/sampler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NPAGES 3000

struct count {
	pid_t pid;
	uint64_t lo, hi;   /* the child's buffer, once known */
	uint64_t all, mine, in_buf, no_addr, wrong_pid;
	uint64_t addrs_cap, naddrs;
	uint64_t *addrs;   /* every address, to check against the buffer later */
	int comm_exec;
};

static int count_sample(void *ud, const struct pms_memsample *s)
{
	struct count *c = ud;
	c->all++;
	if (!(s->valid & PMS_MS_ADDR))
		c->no_addr++;
	if ((s->valid & PMS_MS_TID) && (pid_t)s->pid == c->pid)
		c->mine++;
	else
		c->wrong_pid++;
	if (c->naddrs == c->addrs_cap) {
		uint64_t n = c->addrs_cap ? c->addrs_cap * 2 : 4096;
		uint64_t *a = realloc(c->addrs, n * sizeof(*a));
		if (!a)
			return PMS_ENOMEM;
		c->addrs = a;
		c->addrs_cap = n;
	}
	c->addrs[c->naddrs++] = s->addr;
	return 0;
}

static int count_side(void *ud, const struct pms_record *r)
{
	struct count *c = ud;
	if (r->type == PMS_RECORD_COMM && (r->misc & PMS_MISC_COMM_EXEC))
		c->comm_exec++;
	return 0;
}

static const struct pms_sampler_callbacks cbs = { count_sample, count_side };

static const char *touch_exe(char *buf, size_t n)
{
	const char *b = getenv("PMS_BUILD_DIR");
	struct stat st;
	if (!b)
		return NULL;
	snprintf(buf, n, "%s/tests/sample/pms_touch_pages", b);
	return stat(buf, &st) == 0 ? buf : NULL;
}

static int read_range(const char *file, uint64_t *lo, uint64_t *hi)
{
	unsigned long long a = 0, l = 0;
	FILE *f = fopen(file, "r");
	int ok;
	if (!f)
		return -1;
	ok = fscanf(f, "%llu %llu", &a, &l) == 2;
	fclose(f);
	*lo = a;
	*hi = a + l;
	return ok ? 0 : -1;
}

static struct pms_sys *live_sys(void)
{
	struct pms_sys *sys = NULL;
	CHECK_OK(pms_sys_new(&sys, NULL));
	return sys;
}

PMS_TEST(ladder_on_this_machine_falls_back_and_logs_every_attempt)
{
	struct pms_sys *sys = live_sys();
	struct pms_pmus *pmus = NULL;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler_attempt *att = NULL;
	enum pms_engine e;
	size_t n = 0;

	if (!sys)
		return;
	CHECK_OK(pms_pmus_load(sys, &pmus));
	o.pid = getpid();
	CHECK_OK(pms_sampler_probe(sys, pmus, NULL, &o, &e, &att, &n));
	if (pmus && pms_pmus_has_hardware(pmus)) {
		fprintf(stderr, "note: this machine has a hardware PMU; engine %s\n",
			pms_engine_label(e));
		CHECK(n >= 1);
	} else {
		CHECK_EQ_INT(e, PMS_ENG_SOFTWARE);
		CHECK_EQ_INT(n, 4);
		for (size_t i = 0; i + 1 < n && i < 3; i++) {
			CHECK_EQ_INT(att[i].err, ENOENT);
			CHECK(att[i].reason[0] != 0);
		}
		if (n == 4) {
			CHECK_EQ_INT(att[3].engine, PMS_ENG_SOFTWARE);
			CHECK_EQ_INT(att[3].err, 0);
			CHECK(att[3].chosen);
			CHECK(strstr(att[3].attr, "sample_type") != NULL);
		}
	}
	free(att);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
}

/* Run the child under the sampler until it exits; returns 0 on success. */
static int run_child(struct pms_sys *sys, const struct pms_pmus *pmus, char *const argv[],
		     enum pms_sampler_target target, struct count *c,
		     struct pms_sampler_stats *st)
{
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_child *ch = NULL;
	struct pms_sampler_info info;
	int status = -1, r, ret = -1;

	CHECK_OK(pms_child_spawn(sys, argv, &ch));
	if (!ch)
		return -1;
	c->pid = pms_child_pid(ch);
	o.target = target;
	o.pid = c->pid;
	if (target == PMS_TARGET_PID) {
		/* Attach to a running process whose threads already exist (the
		 * child waits before touching its pages). */
		struct timespec ts = { 0, 200 * 1000000L };
		CHECK_OK(pms_child_start(ch));
		nanosleep(&ts, NULL);
	}
	CHECK_OK(pms_sampler_open(sys, pmus, NULL, &o, &s));
	if (!s)
		goto out;
	pms_sampler_info(s, &info);
	CHECK_EQ_INT(info.engine, PMS_ENG_SOFTWARE);
	CHECK(strstr(info.label, "FALLBACK") != NULL);
	if (target == PMS_TARGET_PID)
		CHECK_OK(pms_sampler_enable(s));
	else
		CHECK_OK(pms_child_start(ch)); /* enable_on_exec starts the events */
	{
		time_t t0 = time(NULL);
		int polls = 0;
		for (;;) {
			CHECK((r = pms_sampler_poll(s, 20, &cbs, c)) >= 0);
			if (r < 0)
				goto out;
			polls++;
			r = pms_child_wait(ch, true, &status);
			if (r == 0) {
				fprintf(stderr, "%d polls until the child exited\n", polls);
				break;
			}
			if (r < 0 || time(NULL) - t0 > 60) {
				CHECK_MSG(0, "child did not exit (wait %d, %d polls)", r, polls);
				goto out;
			}
		}
	}
	CHECK((r = pms_sampler_poll(s, 0, &cbs, c)) >= 0);
	pms_sampler_stats(s, st);
	/* Once the child has gone its fds hang up and are no longer waited on. */
	CHECK(st->streams_hup <= info.nstreams);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);
	pms_sampler_stats(s, st);
	ret = 0;
out:
	pms_sampler_free(s);
	pms_child_free(ch);
	return ret;
}

static void check_in_buffer(struct count *c, const char *file)
{
	CHECK_OK(read_range(file, &c->lo, &c->hi) == 0 ? 0 : PMS_EIO);
	for (uint64_t i = 0; i < c->naddrs; i++)
		if (c->addrs[i] >= c->lo && c->addrs[i] < c->hi)
			c->in_buf++;
}

/* Run pms_touch_pages over NPAGES pages (extra arguments: the delay before
 * touching, in ms, and the thread count; NULL ends them) under the software
 * fallback with `target`; fill c (its addresses owned by the caller) and st.
 * Returns true when the run happened and its samples were counted. */
static bool touch_run(const char *delay, const char *threads, enum pms_sampler_target target,
		      struct count *c, struct pms_sampler_stats *st)
{
	struct pms_sys *sys = live_sys();
	struct pms_pmus *pmus = NULL;
	char exe[512], file[] = "/tmp/pms_touch_XXXXXX", nbuf[16];
	bool ran = false;
	int fd;

	if (!sys)
		return false;
	if (!touch_exe(exe, sizeof(exe))) {
		pms_sys_free(sys);
		PMS_SKIP_PART("pms_touch_pages not built (PMS_BUILD_DIR unset?)");
		return false;
	}
	fd = mkstemp(file);
	if (fd >= 0)
		close(fd);
	snprintf(nbuf, sizeof(nbuf), "%d", NPAGES);
	char *argv[] = { exe, nbuf, file, (char *)delay, (char *)threads, NULL };
	CHECK_OK(pms_pmus_load(sys, &pmus));
	if (pmus && run_child(sys, pmus, argv, target, c, st) == 0) {
		check_in_buffer(c, file);
		fprintf(stderr, "%s: %llu samples, %llu in the %d-page buffer, lost %llu\n",
			target == PMS_TARGET_CHILD ? "child" : "pid attach",
			(unsigned long long)c->all, (unsigned long long)c->in_buf, NPAGES,
			(unsigned long long)st->lost);
		ran = true;
	}
	unlink(file);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	return ran;
}

PMS_TEST(fallback_on_a_child_sees_every_first_touch)
{
	struct pms_sampler_stats st;
	struct count c = { 0 };

	if (touch_run(NULL, NULL, PMS_TARGET_CHILD, &c, &st)) {
		CHECK(c.in_buf >= NPAGES);
		CHECK_EQ_INT(c.no_addr, 0);
		CHECK_EQ_INT(c.wrong_pid, 0);
		CHECK_EQ_INT(st.lost, 0);
		CHECK_EQ_INT(st.lost_samples, 0);
		CHECK_EQ_INT(st.parse_errors, 0);
		CHECK(c.comm_exec >= 1); /* the exec of the child, as side-band */
	}
	free(c.addrs);
}

PMS_TEST(fallback_attached_to_a_running_pid)
{
	struct pms_sampler_stats st;
	struct count c = { 0 };

	/* The child waits 500 ms before touching, time enough to attach. */
	if (touch_run("500", NULL, PMS_TARGET_PID, &c, &st)) {
		CHECK(c.in_buf >= NPAGES);
		CHECK_EQ_INT(c.wrong_pid, 0);
		CHECK_EQ_INT(st.lost, 0);
	}
	free(c.addrs);
}

PMS_TEST(fallback_attached_to_a_running_multithreaded_pid)
{
	struct pms_sampler_stats st;
	struct count c = { 0 };

	/* 4 threads exist before the attach; each touches a quarter.  Without
	 * per-thread attach only the main thread's quarter would be seen. */
	if (touch_run("700", "4", PMS_TARGET_PID, &c, &st)) {
		CHECK(c.in_buf >= NPAGES);
		CHECK_EQ_INT(st.lost, 0);
	}
	free(c.addrs);
}

/* perf record -e page-faults -c 1 -d on the same deterministic child. */
static long perf_count(const char *exe, const char *n, const char *file, const char *data)
{
	char cmd[2048];
	FILE *p;
	long count = -1;

	snprintf(cmd, sizeof(cmd),
		 "perf record -q -e page-faults -c 1 -d -o %s -- %s %s %s >/dev/null 2>&1 && "
		 "perf script -i %s -F addr 2>/dev/null | wc -l",
		 data, exe, n, file, data);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (fscanf(p, "%ld", &count) != 1)
		count = -1;
	pclose(p);
	return count;
}

PMS_TEST(fallback_count_matches_perf_record_within_one_percent)
{
	struct pms_sys *sys;
	struct pms_pmus *pmus = NULL;
	char exe[512], file[] = "/tmp/pms_touch_XXXXXX", data[] = "/tmp/pms_perfdata_XXXXXX";
	char nbuf[16];
	long perf_n[3], ours[3];
	int fd, runs = 3;

	if (access("/usr/bin/perf", X_OK) != 0)
		PMS_SKIP("perf is not installed at /usr/bin/perf");
	if (!touch_exe(exe, sizeof(exe)))
		PMS_SKIP("pms_touch_pages not built (PMS_BUILD_DIR unset?)");
	sys = live_sys();
	if (!sys)
		return;
	CHECK_OK(pms_pmus_load(sys, &pmus));
	if ((fd = mkstemp(file)) >= 0)
		close(fd);
	if ((fd = mkstemp(data)) >= 0)
		close(fd);
	snprintf(nbuf, sizeof(nbuf), "%d", NPAGES);
	for (int i = 0; i < runs; i++) {
		char *argv[] = { exe, nbuf, file, NULL };
		struct pms_sampler_stats st;
		struct count c = { 0 };
		perf_n[i] = perf_count(exe, nbuf, file, data);
		ours[i] = -1;
		if (run_child(sys, pmus, argv, PMS_TARGET_CHILD, &c, &st) == 0)
			ours[i] = (long)c.all;
		free(c.addrs);
		fprintf(stderr, "run %d: perf record %ld samples, pmuscope %ld\n", i, perf_n[i],
			ours[i]);
	}
	if (perf_n[0] <= 0) {
		PMS_SKIP_PART("perf record produced no samples here: counts not compared");
	} else {
		/* Compare medians: single runs differ by a few faults (ld.so,
		 * ASLR placement). */
		long a[3], b[3];
		for (int i = 0; i < 3; i++) {
			a[i] = perf_n[i];
			b[i] = ours[i];
		}
		for (int i = 0; i < 3; i++)
			for (int j = i + 1; j < 3; j++) {
				long t;
				if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t; }
				if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t; }
			}
		CHECK_MSG(labs(a[1] - b[1]) * 100 <= a[1], "median perf %ld vs pmuscope %ld", a[1],
			  b[1]);
		CHECK(b[1] >= NPAGES);
	}
	unlink(file);
	unlink(data);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
}

PMS_TEST(child_spawn_reports_exec_failure_and_refuses_fake_roots)
{
	struct pms_sys *sys = live_sys();
	struct pms_child *ch = NULL;
	char *argv[] = { "/nonexistent/pmuscope-no-such-binary", NULL };

	if (!sys)
		return;
	CHECK_OK(pms_child_spawn(sys, argv, &ch));
	if (ch) {
		CHECK_EQ_INT(pms_child_start(ch), PMS_ENOENT);
		CHECK(strstr(pms_error_last(), "exec") != NULL);
		pms_child_free(ch);
	}
	/* A spawned child that is never started exits on its own. */
	{
		char *ok[] = { "true", NULL };
		ch = NULL;
		CHECK_OK(pms_child_spawn(sys, ok, &ch));
		pms_child_free(ch);
	}
	pms_sys_free(sys);
	{
		struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
		struct pms_sys *fake = NULL;
		char path[512];
		snprintf(path, sizeof(path), "%s/machines/vm-nopmu", pms_t_fixtures());
		so.root = path;
		CHECK_OK(pms_sys_new(&fake, &so));
		ch = NULL;
		CHECK_EQ_INT(pms_child_spawn(fake, argv, &ch), PMS_ENOTLIVE);
		CHECK(ch == NULL);
		pms_sys_free(fake);
	}
}

PMS_TEST_MAIN()
