/* pms_child on the live host: a command started before exec, its exit
 * status, and (hold_exits) every process of its tree held at exit with its
 * memory still there, so move_pages answers for pages that a process which
 * has already called exit() touched. */
#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/sampler.h"
#include "pmuscope/sys.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NPAGES 16384 /* 64 MiB of 4 KiB pages */

static struct pms_sys *live(void)
{
	struct pms_sys *sys = NULL;
	if (pms_sys_new(&sys, NULL) < 0)
		return NULL;
	return sys;
}

static const char *touch_exe(char *buf, size_t n)
{
	const char *b = pms_t_build_dir();
	struct stat st;
	if (!b)
		return NULL;
	snprintf(buf, n, "%s/tests/sample/pms_touch_pages", b);
	return stat(buf, &st) == 0 ? buf : NULL;
}

static bool read_range(const char *file, uint64_t *lo, uint64_t *len)
{
	unsigned long long a = 0, l = 0;
	FILE *f = fopen(file, "r");
	if (!f)
		return false;
	int n = fscanf(f, "%llu %llu", &a, &l);
	fclose(f);
	*lo = a;
	*len = l;
	return n == 2 && l > 0;
}

/* Ask move_pages (query) about every page of [lo, lo + len) of tid; the
 * number of pages that have a node. */
static size_t pages_on_a_node(struct pms_sys *sys, pid_t tid, uint64_t lo, uint64_t len,
			      int *first_status)
{
	size_t n = (size_t)(len / 4096), ok = 0;
	void **pages = calloc(n, sizeof(*pages));
	int *status = calloc(n, sizeof(*status));
	const struct pms_sys_ops *ops = pms_sys_ops(sys);
	*first_status = 0;
	if (!pages || !status) {
		free(pages);
		free(status);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		pages[i] = (void *)(uintptr_t)(lo + i * 4096);
	long r = ops->move_pages(ops->ud, (int)tid, n, pages, NULL, status, 0);
	if (r < 0) {
		*first_status = (int)r;
	} else {
		for (size_t i = 0; i < n; i++)
			ok += status[i] >= 0;
		*first_status = status[0];
	}
	free(pages);
	free(status);
	return ok;
}

static int poll_until(struct pms_child *c, enum pms_child_event_kind kind,
		      struct pms_child_event *ev)
{
	for (int i = 0; i < 10000; i++) {
		int rc = pms_child_poll(c, true, ev);
		if (rc < 0)
			return rc;
		if (ev->kind == kind)
			return 0;
		if (ev->kind == PMS_CHILD_EV_HELD)
			pms_child_release(c, ev->tid); /* not the one asked for */
	}
	return -1;
}

PMS_TEST(exit_status_without_hold)
{
	struct pms_sys *sys = live();
	struct pms_child *c = NULL;
	char *argv[] = { "sh", "-c", "exit 3", NULL };
	int st = -1;
	CHECK(sys);
	CHECK_OK(pms_child_spawn(sys, argv, &c));
	CHECK(!pms_child_holding(c, NULL));
	CHECK_OK(pms_child_start(c));
	CHECK_OK(pms_child_wait(c, false, &st));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	pms_child_free(c);
	pms_sys_free(sys);
}

/* Without the hold the pages of a process that exited cannot be asked
 * about: what the hold is for. */
PMS_TEST(gone_without_hold)
{
	struct pms_sys *sys = live();
	struct pms_child *c = NULL;
	char exe[512], file[] = "/tmp/pms_child_XXXXXX", nb[16];
	int fd = mkstemp(file), st = -1, first;
	uint64_t lo, len;
	if (!touch_exe(exe, sizeof(exe)) || fd < 0)
		PMS_SKIP("pms_touch_pages not built (PMS_BUILD_DIR)");
	close(fd);
	snprintf(nb, sizeof(nb), "%d", 256);
	char *argv[] = { exe, nb, file, NULL };
	CHECK_OK(pms_child_spawn(sys, argv, &c));
	CHECK_OK(pms_child_start(c));
	pid_t pid = pms_child_pid(c);
	CHECK_OK(pms_child_wait(c, false, &st));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(read_range(file, &lo, &len));
	CHECK_EQ_INT(pages_on_a_node(sys, pid, lo, len, &first), 0);
	CHECK_EQ_INT(first, -ESRCH);
	pms_child_free(c);
	unlink(file);
	pms_sys_free(sys);
}

/* The command maps and touches 64 MiB and exits at once: held at exit,
 * every page of its buffer still has a node. */
PMS_TEST(hold_resolves_after_exit)
{
	struct pms_sys *sys = live();
	struct pms_child *c = NULL;
	struct pms_child_opts o = PMS_CHILD_OPTS_INIT;
	struct pms_child_event ev;
	char exe[512], file[] = "/tmp/pms_child_XXXXXX", nb[16];
	int fd = mkstemp(file), first;
	uint64_t lo = 0, len = 0;
	const char *why = NULL;
	if (!touch_exe(exe, sizeof(exe)) || fd < 0)
		PMS_SKIP("pms_touch_pages not built (PMS_BUILD_DIR)");
	close(fd);
	snprintf(nb, sizeof(nb), "%d", NPAGES);
	char *argv[] = { exe, nb, file, NULL };
	o.hold_exits = true;
	CHECK_OK(pms_child_spawn_opts(sys, argv, &o, &c));
	if (!pms_child_holding(c, &why)) {
		pms_child_free(c);
		pms_sys_free(sys);
		PMS_SKIP("ptrace refused here: %s", why ? why : "?");
	}
	CHECK_OK(pms_child_start(c));
	CHECK_OK(poll_until(c, PMS_CHILD_EV_HELD, &ev));
	CHECK_EQ_INT(ev.pid, pms_child_pid(c));
	CHECK_EQ_INT(ev.tid, pms_child_pid(c));
	CHECK_EQ_INT(ev.status, 0);
	CHECK_EQ_INT(pms_child_held(c), 1);
	CHECK(read_range(file, &lo, &len));
	CHECK_EQ_U64(len, (uint64_t)NPAGES * 4096);
	CHECK_EQ_INT(pages_on_a_node(sys, ev.tid, lo, len, &first), NPAGES);
	CHECK_OK(pms_child_release(c, ev.tid));
	CHECK_EQ_INT(pms_child_held(c), 0);
	CHECK(pms_child_release(c, ev.tid) == PMS_ENOENT);
	CHECK_OK(poll_until(c, PMS_CHILD_EV_EXITED, &ev));
	CHECK(WIFEXITED(ev.status) && WEXITSTATUS(ev.status) == 0);
	pms_child_free(c);
	unlink(file);
	pms_sys_free(sys);
}

/* A signal that reaches the seized child before its exec (a Ctrl-C to the
 * process group while it waits for the go byte) stops it until its tracer
 * resumes it: start must do so (it once blocked on the status pipe for
 * ever).  SIGCHLD, ignored by default, is delivered and the command runs. */
PMS_TEST(hold_signal_before_exec)
{
	struct pms_sys *sys = live();
	struct pms_child *c = NULL;
	struct pms_child_opts o = PMS_CHILD_OPTS_INIT;
	struct pms_child_event ev;
	char *argv[] = { "sh", "-c", "exit 5", NULL };
	const char *why = NULL;
	char path[64];
	bool stopped = false;
	CHECK(sys);
	o.hold_exits = true;
	CHECK_OK(pms_child_spawn_opts(sys, argv, &o, &c));
	if (!pms_child_holding(c, &why)) {
		pms_child_free(c);
		pms_sys_free(sys);
		PMS_SKIP("ptrace refused here: %s", why ? why : "?");
	}
	CHECK_EQ_INT(kill(pms_child_pid(c), SIGCHLD), 0);
	/* wait (up to 60 s under load) for its tracing stop: state 't' */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pms_child_pid(c));
	for (int i = 0; i < 6000 && !stopped; i++) {
		FILE *f = fopen(path, "r");
		char line[512] = "";
		if (f) {
			if (!fgets(line, sizeof(line), f))
				line[0] = 0;
			fclose(f);
		}
		const char *p = strrchr(line, ')');
		stopped = p && p[1] == ' ' && p[2] == 't';
		if (!stopped)
			usleep(10000);
	}
	CHECK(stopped);
	CHECK_OK(pms_child_start(c));
	CHECK_OK(poll_until(c, PMS_CHILD_EV_HELD, &ev));
	CHECK_EQ_INT(ev.status, 5);
	CHECK_OK(pms_child_release(c, ev.tid));
	CHECK_OK(poll_until(c, PMS_CHILD_EV_EXITED, &ev));
	CHECK(WIFEXITED(ev.status) && WEXITSTATUS(ev.status) == 5);
	pms_child_free(c);
	pms_sys_free(sys);
}

/* A runtime that starts threads in a forked child before its exec (the
 * sanitizers' do): with the child seized, the thread's clone stops the
 * child at a ptrace event, the thread at its first stop and its exit; left
 * alone, the child never reaches its exec and start waits for ever (seen
 * under ThreadSanitizer).  Here an atfork handler, once its process is
 * traced, starts a thread it joins and one it leaves blocked (the exec
 * ends it). */
static volatile int atfork_threads;
static int blocker[2] = { -1, -1 };

static void *thread_quick(void *a)
{
	return a;
}

static void *thread_blocked(void *a)
{
	char b;
	while (read(blocker[0], &b, 1) < 0 && errno == EINTR)
		;
	return a;
}

static void child_after_fork(void)
{
	if (!atfork_threads)
		return;
	/* wait (up to 60 s) until the parent has seized us */
	for (int i = 0; i < 60000; i++) {
		FILE *f = fopen("/proc/self/status", "r");
		char line[256];
		int tracer = 0;
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "TracerPid:", 10))
				tracer = atoi(line + 10);
		if (f)
			fclose(f);
		if (tracer)
			break;
		usleep(1000);
	}
	pthread_t a, b;
	if (pthread_create(&a, NULL, thread_quick, NULL) == 0)
		pthread_join(a, NULL);
	if (pthread_create(&b, NULL, thread_blocked, NULL) == 0)
		pthread_detach(b);
}

PMS_TEST(hold_threads_before_exec)
{
	struct pms_sys *sys = live();
	struct pms_child *c = NULL;
	struct pms_child_opts o = PMS_CHILD_OPTS_INIT;
	struct pms_child_event ev;
	char *argv[] = { "sh", "-c", "exit 5", NULL };
	const char *why = NULL;
	CHECK(sys);
	CHECK_EQ_INT(pipe(blocker), 0);
	CHECK_EQ_INT(pthread_atfork(NULL, NULL, child_after_fork), 0);
	atfork_threads = 1;
	o.hold_exits = true;
	CHECK_OK(pms_child_spawn_opts(sys, argv, &o, &c));
	atfork_threads = 0;
	if (!pms_child_holding(c, &why)) {
		pms_child_free(c);
		pms_sys_free(sys);
		PMS_SKIP("ptrace refused here: %s", why ? why : "?");
	}
	CHECK_OK(pms_child_start(c));
	CHECK_OK(poll_until(c, PMS_CHILD_EV_HELD, &ev));
	CHECK_EQ_INT(ev.tid, pms_child_pid(c));
	CHECK_EQ_INT(ev.status, 5);
	CHECK_OK(pms_child_release(c, ev.tid));
	CHECK_OK(poll_until(c, PMS_CHILD_EV_EXITED, &ev));
	CHECK(WIFEXITED(ev.status) && WEXITSTATUS(ev.status) == 5);
	pms_child_free(c);
	pms_sys_free(sys);
	close(blocker[0]);
	close(blocker[1]);
}

/* A shell starting three programs, one in the background: each is held at
 * its own exit with its own buffer, then the shell; the shell's status comes
 * through. */
PMS_TEST(hold_pipeline_tree)
{
	struct pms_sys *sys = live();
	struct pms_child *c = NULL;
	struct pms_child_opts o = PMS_CHILD_OPTS_INIT;
	struct pms_child_event ev;
	char exe[512], dir[] = "/tmp/pms_childd_XXXXXX", script[2048];
	int held_programs = 0, resolved_ok = 0, first;
	if (!touch_exe(exe, sizeof(exe)) || !mkdtemp(dir))
		PMS_SKIP("pms_touch_pages not built (PMS_BUILD_DIR)");
	snprintf(script, sizeof(script),
		 "%s 1024 %s/a & %s 2048 %s/b | cat; %s 512 %s/c; wait; exit 5", exe, dir, exe,
		 dir, exe, dir);
	char *argv[] = { "sh", "-c", script, NULL };
	o.hold_exits = true;
	CHECK_OK(pms_child_spawn_opts(sys, argv, &o, &c));
	if (!pms_child_holding(c, NULL)) {
		pms_child_free(c);
		pms_sys_free(sys);
		PMS_SKIP("ptrace refused here");
	}
	CHECK_OK(pms_child_start(c));
	for (int guard = 0; guard < 1000; guard++) {
		CHECK_OK(pms_child_poll(c, true, &ev));
		if (ev.kind == PMS_CHILD_EV_EXITED)
			break;
		if (ev.kind != PMS_CHILD_EV_HELD)
			continue;
		/* Which program is it?  Its buffer file names it once written. */
		char cmd[64], path[600], *text = NULL;
		snprintf(cmd, sizeof(cmd), "proc/%d/cmdline", (int)ev.tid);
		if (pms_sys_read_file(sys, cmd, &text, NULL) == 0 && strstr(text, "pms_touch_pages")) {
			const char *f = text + strlen(text) + 1;  /* NPAGES */
			f += strlen(f) + 1;                       /* the output file */
			uint64_t lo, len;
			snprintf(path, sizeof(path), "%s", f);
			held_programs++;
			if (read_range(path, &lo, &len) &&
			    pages_on_a_node(sys, ev.tid, lo, len, &first) == len / 4096)
				resolved_ok++;
		}
		free(text);
		CHECK_OK(pms_child_release(c, ev.tid));
	}
	CHECK_EQ_INT(ev.kind, PMS_CHILD_EV_EXITED);
	CHECK(WIFEXITED(ev.status) && WEXITSTATUS(ev.status) == 5);
	CHECK_EQ_INT(held_programs, 3);
	CHECK_EQ_INT(resolved_ok, 3);
	pms_child_free(c);
	char rm[600];
	snprintf(rm, sizeof(rm), "rm -rf %s", dir);
	CHECK(system(rm) == 0);
	pms_sys_free(sys);
}

/* Signals reach the command unchanged, and a job-control stop stays a stop
 * until SIGCONT (PTRACE_LISTEN). */
PMS_TEST(hold_passes_signals)
{
	struct pms_sys *sys = live();
	struct pms_child *c = NULL;
	struct pms_child_opts o = PMS_CHILD_OPTS_INIT;
	struct pms_child_event ev;
	char *argv[] = { "sh", "-c", "kill -USR1 $$; exit 9", NULL };
	o.hold_exits = true;
	CHECK_OK(pms_child_spawn_opts(sys, argv, &o, &c));
	if (!pms_child_holding(c, NULL)) {
		pms_child_free(c);
		pms_sys_free(sys);
		PMS_SKIP("ptrace refused here");
	}
	CHECK_OK(pms_child_start(c));
	CHECK_OK(poll_until(c, PMS_CHILD_EV_EXITED, &ev));
	CHECK(WIFSIGNALED(ev.status) && WTERMSIG(ev.status) == SIGUSR1);
	pms_child_free(c);

	char *argv2[] = { "sh", "-c", "kill -STOP $$; exit 4", NULL };
	CHECK_OK(pms_child_spawn_opts(sys, argv2, &o, &c));
	CHECK_OK(pms_child_start(c));
	/* Stopped: nothing for a while (the shell cannot exit). */
	bool exited_early = false;
	for (int i = 0; i < 20; i++) {
		CHECK_OK(pms_child_poll(c, false, &ev));
		if (ev.kind == PMS_CHILD_EV_HELD)
			pms_child_release(c, ev.tid);
		if (ev.kind == PMS_CHILD_EV_EXITED)
			exited_early = true;
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	CHECK(!exited_early);
	CHECK(kill(pms_child_pid(c), SIGCONT) == 0);
	if (!exited_early)
		CHECK_OK(poll_until(c, PMS_CHILD_EV_EXITED, &ev));
	CHECK(WIFEXITED(ev.status) && WEXITSTATUS(ev.status) == 4);
	pms_child_free(c);
	pms_sys_free(sys);
}

/* exec fails: the error names it, and nothing is left behind (the traced
 * child's exit stop is let go). */
PMS_TEST(hold_exec_failure)
{
	struct pms_sys *sys = live();
	struct pms_child *c = NULL;
	struct pms_child_opts o = PMS_CHILD_OPTS_INIT;
	char *argv[] = { "/nonexistent/pms-no-such-command", NULL };
	o.hold_exits = true;
	CHECK_OK(pms_child_spawn_opts(sys, argv, &o, &c));
	pid_t pid = pms_child_pid(c);
	CHECK(pms_child_start(c) == PMS_ENOENT);
	CHECK(waitpid(pid, NULL, WNOHANG) < 0 && errno == ECHILD);
	pms_child_free(c);
	pms_sys_free(sys);
}

/* Freed while held and while running: the tree is let go, nothing hangs. */
PMS_TEST(hold_free_while_running)
{
	struct pms_sys *sys = live();
	struct pms_child *c = NULL;
	struct pms_child_opts o = PMS_CHILD_OPTS_INIT;
	char *argv[] = { "sh", "-c", "sleep 2 & sleep 2", NULL };
	o.hold_exits = true;
	CHECK_OK(pms_child_spawn_opts(sys, argv, &o, &c));
	CHECK_OK(pms_child_start(c));
	struct timespec ts = { 0, 100000000 };
	nanosleep(&ts, NULL);
	struct pms_child_event ev;
	CHECK_OK(pms_child_poll(c, false, &ev));
	pms_child_free(c);
	pms_sys_free(sys);

	struct pms_child_opts bad = PMS_CHILD_OPTS_INIT;
	bad.version = PMS_CHILD_OPTS_VERSION + 1;
	sys = live();
	CHECK(pms_child_spawn_opts(sys, argv, &bad, &c) == PMS_EINVAL);
	pms_sys_free(sys);
}

PMS_TEST_MAIN()
