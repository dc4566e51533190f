/* A command started stopped before exec, so events opened with
 * enable_on_exec on its pid start exactly at its exec; optionally every
 * process of its tree held at exit (ptrace) so that the pages it touched can
 * still be asked about.
 *
 * fork/exec/wait/ptrace are not perf syscalls and are not in the seam's ops
 * table; they only run on a live context (a snapshot or fake kernel
 * refuses). */
#include "pmuscope/sampler.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/opts.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* One traced thread of the command's tree. */
struct tracee {
	pid_t tid;
	bool held; /* stopped at PTRACE_EVENT_EXIT, not yet released */
};

struct pms_child {
	struct pms_sys *sys;
	pid_t pid;
	int go_fd;     /* write end: one byte lets the child exec */
	int status_fd; /* read end: EOF = exec succeeded, else the child's errno */
	bool started, reaped;
	bool holding;        /* the tree is traced and exits are held */
	const char *why_not; /* hold asked but refused: why */
	struct tracee *t;
	size_t nt, capt;
};

static int tracee_add(struct pms_child *c, pid_t tid)
{
	for (size_t i = 0; i < c->nt; i++)
		if (c->t[i].tid == tid)
			return 0;
	int rc = pms_grow(&c->t, &c->capt, c->nt + 1, sizeof(*c->t), 8, "traced threads");
	if (rc < 0)
		return rc;
	c->t[c->nt++] = (struct tracee){ tid, false };
	return 0;
}

static void tracee_del(struct pms_child *c, size_t i)
{
	c->t[i] = c->t[--c->nt];
}

int pms_child_spawn(struct pms_sys *sys, char *const argv[], struct pms_child **out)
{
	return pms_child_spawn_opts(sys, argv, NULL, out);
}

PMS_OPTS_LAYOUT(PMS_CHILD_OPTS, struct pms_child_opts,
		PMS_OPTS_END(struct pms_child_opts, hold_exits));

int pms_child_spawn_opts(struct pms_sys *sys, char *const argv[],
			 const struct pms_child_opts *opts, struct pms_child **out)
{
	struct pms_child *c;
	int go[2], st[2];
	bool hold = false;

	struct pms_child_opts copts;
	int rc;

	*out = NULL;
	if ((rc = PMS_OPTS_TAKE("pms_child_spawn_opts", PMS_CHILD_OPTS, opts, &copts)) < 0)
		return rc;
	hold = copts.hold_exits;
	if (!pms_sys_is_live(sys))
		return pms_err(PMS_ENOTLIVE, "starting a command needs the live system, not %s",
			       pms_sys_root(sys));
	if (!argv || !argv[0])
		return pms_err(PMS_EINVAL, "no command to start");
	c = calloc(1, sizeof(*c));
	if (!c)
		return pms_err(PMS_ENOMEM, "out of memory for a child");
	c->sys = sys;
	if (pipe2(go, O_CLOEXEC) < 0) {
		free(c);
		return pms_err_errno(0, errno, "pipe for starting %s", argv[0]);
	}
	if (pipe2(st, O_CLOEXEC) < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		free(c);
		return pms_err_errno(0, e, "pipe for starting %s", argv[0]);
	}
	c->pid = fork();
	if (c->pid < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		close(st[0]);
		close(st[1]);
		free(c);
		return pms_err_errno(0, e, "fork for %s", argv[0]);
	}
	if (c->pid == 0) {
		char b;
		int e;
		ssize_t n;
		close(go[1]);
		close(st[0]);
		/* Wait for the parent: EOF without the byte means it gave up. */
		do
			n = read(go[0], &b, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(st[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(st[1]);
	c->go_fd = go[1];
	c->status_fd = st[0];
	if (hold) {
		/* The child is blocked on the pipe: seize it there.  FORK, VFORK
		 * and CLONE attach the whole tree; no TRACEEXEC, and a seized
		 * tracee gets no legacy SIGTRAP at exec (kernel/ptrace.c,
		 * fs/exec.c ptrace_event(PTRACE_EVENT_EXEC)). */
		long o = PTRACE_O_TRACEEXIT | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			 PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL;
		if (ptrace(PTRACE_SEIZE, c->pid, NULL, (void *)o) == 0 && tracee_add(c, c->pid) == 0) {
			c->holding = true;
		} else {
			c->why_not = errno == EPERM ? "ptrace of the child refused (EPERM: Yama ptrace_scope "
						      "or a seccomp/LSM policy)"
						    : "ptrace of the child failed";
		}
	}
	*out = c;
	return 0;
}

bool pms_child_holding(const struct pms_child *c, const char **why)
{
	if (why)
		*why = c ? c->why_not : NULL;
	return c && c->holding;
}

size_t pms_child_held(const struct pms_child *c)
{
	size_t n = 0;
	for (size_t i = 0; c && i < c->nt; i++)
		n += c->t[i].held;
	return n;
}

/* Thread group of a thread, from proc/TID/status (the tid itself when that
 * cannot be read). */
static pid_t tgid_of(struct pms_child *c, pid_t tid)
{
	char path[64], *text = NULL;
	pid_t tg = tid;
	snprintf(path, sizeof(path), "proc/%d/status", (int)tid);
	if (pms_sys_read_file(c->sys, path, &text, NULL) == 0) {
		const char *p = strstr(text, "\nTgid:");
		if (p)
			tg = (pid_t)strtol(p + 7, NULL, 10);
	}
	free(text);
	pms_error_clear();
	return tg;
}

/* One wait status of a tracee: handle it; fill ev and return 1 when it is
 * an event for the caller, 0 when handled inside. */
static int on_status(struct pms_child *c, size_t i, int st, struct pms_child_event *ev)
{
	pid_t tid = c->t[i].tid;
	unsigned long msg = 0;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		tracee_del(c, i);
		if (tid == c->pid) {
			c->reaped = true;
			*ev = (struct pms_child_event){ PMS_CHILD_EV_EXITED, 0, tid, st };
			return 1;
		}
		return 0;
	}
	if (!WIFSTOPPED(st))
		return 0;
	int sig = WSTOPSIG(st);
	switch ((unsigned)st >> 16) {
	case PTRACE_EVENT_EXIT:
		ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg);
		c->t[i].held = true;
		*ev = (struct pms_child_event){ PMS_CHILD_EV_HELD, tid, tgid_of(c, tid),
						(int)msg };
		if (WIFEXITED((int)msg))
			ev->status = WEXITSTATUS((int)msg);
		return 1;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) == 0 && msg)
			tracee_add(c, (pid_t)msg); /* its first stop is collected later */
		ptrace(PTRACE_CONT, tid, NULL, NULL);
		return 0;
	case PTRACE_EVENT_STOP:
		/* A group stop keeps the tracee stopped until SIGCONT
		 * (PTRACE_LISTEN); the first stop of a new tracee goes on. */
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
			ptrace(PTRACE_LISTEN, tid, NULL, NULL);
		else
			ptrace(PTRACE_CONT, tid, NULL, NULL);
		return 0;
	case 0:
		/* Signal-delivery stop: deliver it unchanged. */
		ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig);
		return 0;
	default:
		ptrace(PTRACE_CONT, tid, NULL, NULL);
		return 0;
	}
}

int pms_child_poll(struct pms_child *c, bool block, struct pms_child_event *ev)
{
	long sleep_ns = 100000;

	if (!c || !ev)
		return pms_err(PMS_EINVAL, "child poll: NULL argument");
	*ev = (struct pms_child_event){ PMS_CHILD_EV_NONE, 0, 0, 0 };
	if (c->reaped)
		return pms_err(PMS_EINVAL, "child %d was already reaped", (int)c->pid);
	if (!c->holding) {
		int st = 0;
		pid_t r;
		do
			r = waitpid(c->pid, &st, block ? 0 : WNOHANG);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return pms_err_errno(0, errno, "waitpid(%d)", (int)c->pid);
		if (r > 0) {
			c->reaped = true;
			*ev = (struct pms_child_event){ PMS_CHILD_EV_EXITED, 0, c->pid, st };
		}
		return 0;
	}
	/* Only the tree's own threads are waited for (never waitpid(-1): the
	 * caller's other children are not ours to reap), so a blocking poll
	 * sleeps between rounds, 0.1 ms growing to 10 ms. */
	for (;;) {
		for (size_t i = 0; i < c->nt; i++) {
			int st = 0;
			pid_t tid = c->t[i].tid;
			if (c->t[i].held)
				continue;
			pid_t r = waitpid(tid, &st, __WALL | WNOHANG);
			if (r < 0 && errno == EINTR) {
				i--;
				continue;
			}
			if (r < 0) {
				/* ECHILD: gone without a status for us (reaped
				 * by its parent after we saw its exit stop). */
				tracee_del(c, i--);
				continue;
			}
			if (r == 0)
				continue;
			if (on_status(c, i, st, ev))
				return 0;
			i = (size_t)-1; /* the set changed: start over */
		}
		if (!block || !c->nt)
			return c->nt ? 0 : pms_err(PMS_ESYS, "child %d: no traced thread left",
						   (int)c->pid);
		struct timespec ts = { 0, sleep_ns };
		nanosleep(&ts, NULL);
		if (sleep_ns < 10000000)
			sleep_ns *= 2;
	}
}

int pms_child_release(struct pms_child *c, pid_t tid)
{
	if (!c)
		return pms_err(PMS_EINVAL, "child release: NULL argument");
	for (size_t i = 0; i < c->nt; i++) {
		if (c->t[i].tid != tid || !c->t[i].held)
			continue;
		c->t[i].held = false;
		if (ptrace(PTRACE_CONT, tid, NULL, NULL) < 0 && errno != ESRCH)
			return pms_err_errno(0, errno, "letting thread %d exit", (int)tid);
		return 0;
	}
	return pms_err(PMS_ENOENT, "thread %d is not held at exit", (int)tid);
}

pid_t pms_child_pid(const struct pms_child *c)
{
	return c->pid;
}

/* Until the status pipe has data or EOF: the seized child's ptrace stops
 * before its exec are handled as pms_child_poll handles them (on_status):
 * a signal-delivery-stop resumes with its signal (delivered, as without
 * ptrace); a thread it starts (a sanitizer runtime's after fork) is traced
 * and resumed; a thread's exit before the exec is let go (it is not the
 * command's).  Left alone, any of these stops would keep the exec, and so
 * the pipe's EOF, from coming.  The command's own end is only peeked at
 * (WNOWAIT): pms_child_poll or the exec-failure path reaps it. */
static void start_wait_traced(struct pms_child *c)
{
	struct pollfd pfd = { c->status_fd, POLLIN, 0 };
	for (;;) {
		int r = poll(&pfd, 1, 20);
		if (r > 0 || (r < 0 && errno != EINTR))
			return;
		for (size_t i = 0; i < c->nt; i++) {
			siginfo_t si;
			struct pms_child_event ev;
			pid_t tid = c->t[i].tid;
			int st = 0;
			if (c->t[i].held)
				continue;
			memset(&si, 0, sizeof(si));
			if (waitid(P_PID, (id_t)tid, &si,
				   WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL) < 0 ||
			    si.si_pid != tid)
				continue;
			if (si.si_code != CLD_TRAPPED && tid == c->pid)
				return; /* it ended: the pipe's EOF follows */
			/* A stop after the exec (the command's own, for
			 * pms_child_poll) comes after the exec closed the pipe:
			 * so a stop seen while the pipe is still open came
			 * before the exec. */
			if (poll(&pfd, 1, 0) != 0)
				return;
			if (waitpid(tid, &st, __WALL | WNOHANG) != tid)
				continue;
			if (on_status(c, i, st, &ev) && ev.kind == PMS_CHILD_EV_HELD)
				(void)pms_child_release(c, ev.tid);
			i = (size_t)-1; /* the set may have changed: start over */
		}
	}
}

int pms_child_start(struct pms_child *c)
{
	ssize_t n;
	int e = 0;

	if (c->started)
		return pms_err(PMS_EINVAL, "child %d already started", (int)c->pid);
	c->started = true;
	n = write(c->go_fd, "x", 1);
	close(c->go_fd);
	c->go_fd = -1;
	if (n != 1)
		return pms_err_errno(0, errno, "releasing child %d", (int)c->pid);
	/* The status pipe closes on a successful exec (O_CLOEXEC).  A seized
	 * child that gets a signal before its exec (a Ctrl-C to the process
	 * group while it waits for the go byte) stops in signal-delivery-stop
	 * until its tracer resumes it (kernel/signal.c ptrace_signal): so,
	 * while holding, wait for the pipe and the child's stops together. */
	if (c->holding)
		start_wait_traced(c);
	do
		n = read(c->status_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->status_fd);
	c->status_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		int st;
		/* A traced child stops at its exit first: let it go. */
		while (waitpid(c->pid, &st, __WALL) > 0 && WIFSTOPPED(st))
			ptrace(PTRACE_CONT, c->pid, NULL, NULL);
		c->nt = 0;
		c->reaped = true;
		return pms_err_errno(e == ENOENT ? PMS_ENOENT : 0, e, "exec of child %d failed",
				     (int)c->pid);
	}
	return 0;
}

int pms_child_wait(struct pms_child *c, bool nohang, int *status)
{
	int st = 0;
	pid_t r;

	if (c->holding && !c->reaped) {
		/* Nobody asks about held exits here: let them go. */
		struct pms_child_event ev;
		for (;;) {
			int rc = pms_child_poll(c, !nohang, &ev);
			if (rc < 0)
				return rc;
			if (ev.kind == PMS_CHILD_EV_HELD) {
				pms_child_release(c, ev.tid);
				continue;
			}
			if (ev.kind == PMS_CHILD_EV_NONE)
				return 1;
			if (status)
				*status = ev.status;
			return 0;
		}
	}
	if (c->reaped)
		return pms_err(PMS_EINVAL, "child %d was already reaped", (int)c->pid);
	do
		r = waitpid(c->pid, &st, nohang ? WNOHANG : 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return pms_err_errno(0, errno, "waitpid(%d)", (int)c->pid);
	if (r == 0)
		return 1;
	c->reaped = true;
	if (status)
		*status = st;
	return 0;
}

/* Let every held thread go and detach the rest of the tree
 * (PTRACE_O_EXITKILL only acts when the tracer exits).  The others are
 * interrupted, then reaped without blocking: a parent inside vfork() cannot
 * stop until its child (stopped, traced) is detached and execs or exits, so
 * a blocking waitpid on it would wait for ever (seen with dash's vfork in
 * tests/cli/forkfast.sh).  A process forked at that moment is traced
 * already (the kernel attached it): it is added and detached in its turn.
 * What has not stopped within two seconds stays traced. */
static void detach_all(struct pms_child *c)
{
	unsigned char *pend = NULL;
	size_t issued = 0;
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (issued < c->nt) {
			unsigned char *np = realloc(pend, c->nt);
			if (!np)
				break;
			pend = np;
		}
		for (; issued < c->nt; issued++) {
			pid_t tid = c->t[issued].tid;
			pend[issued] = 0;
			if (tid == c->pid && !c->reaped && c->started)
				continue;
			if (!c->t[issued].held && ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) == 0)
				pend[issued] = 1;
			else
				ptrace(PTRACE_DETACH, tid, NULL, NULL);
		}
		bool waiting = false, progress = false;
		for (size_t i = 0; i < issued; i++) {
			if (!pend[i])
				continue;
			pid_t tid = c->t[i].tid;
			int st = 0;
			pid_t r = waitpid(tid, &st, __WALL | WNOHANG);
			if (r == 0 || (r < 0 && errno == EINTR)) {
				waiting = true;
				continue;
			}
			pend[i] = 0;
			progress = true;
			if (r < 0 || !WIFSTOPPED(st))
				continue;
			unsigned ev = (unsigned)st >> 16;
			unsigned long msg = 0;
			if ((ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK ||
			     ev == PTRACE_EVENT_CLONE) &&
			    ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) == 0 && msg)
				(void)tracee_add(c, (pid_t)msg);
			ptrace(PTRACE_DETACH, tid, NULL, NULL);
		}
		if (!waiting && issued == c->nt)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) * 1000000000L + (now.tv_nsec - t0.tv_nsec) > 2000000000L)
			break;
		if (!progress) {
			struct timespec ms = { 0, 1000000L };
			nanosleep(&ms, NULL);
		}
	}
	free(pend);
}

void pms_child_free(struct pms_child *c)
{
	if (!c)
		return;
	if (c->go_fd >= 0)
		close(c->go_fd); /* an unstarted child reads EOF and exits */
	if (c->status_fd >= 0)
		close(c->status_fd);
	if (c->holding)
		detach_all(c);
	if (!c->reaped) {
		if (c->started)
			kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, __WALL) > 0 || errno == EINTR) {
			/* a traced child reports its exit stop first */
			if (c->holding)
				ptrace(PTRACE_CONT, c->pid, NULL, NULL);
		}
	}
	free(c->t);
	free(c);
}
