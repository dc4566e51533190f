/* A command started stopped before exec, so events opened with
 * enable_on_exec on its pid start exactly at its exec.
 *
 * fork/exec/wait are not perf syscalls and are not in the seam's ops table;
 * they only run on a live context (a snapshot or fake kernel refuses). */
#include "pmuscope/sampler.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct pms_child {
	pid_t pid;
	int go_fd;     /* write end: one byte lets the child exec */
	int status_fd; /* read end: EOF = exec succeeded, else the child's errno */
	bool started, reaped;
};

int pms_child_spawn(struct pms_sys *sys, char *const argv[], struct pms_child **out)
{
	struct pms_child *c;
	int go[2], st[2];

	*out = NULL;
	if (!pms_sys_is_live(sys))
		return pms_err(PMS_ENOTLIVE, "starting a command needs the live system, not %s",
			       pms_sys_root(sys));
	if (!argv || !argv[0])
		return pms_err(PMS_EINVAL, "no command to start");
	c = calloc(1, sizeof(*c));
	if (!c)
		return pms_err(PMS_ENOMEM, "out of memory for a child");
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
	*out = c;
	return 0;
}

pid_t pms_child_pid(const struct pms_child *c)
{
	return c->pid;
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
	/* The status pipe closes on a successful exec (O_CLOEXEC). */
	do
		n = read(c->status_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->status_fd);
	c->status_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		int st;
		waitpid(c->pid, &st, 0);
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

void pms_child_free(struct pms_child *c)
{
	if (!c)
		return;
	if (c->go_fd >= 0)
		close(c->go_fd); /* an unstarted child reads EOF and exits */
	if (c->status_fd >= 0)
		close(c->status_fd);
	if (!c->reaped) {
		if (c->started)
			kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
	}
	free(c);
}
