/* Checked output: standard output and every output file (cli_out.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_out.h"

/* ---- one writer under every stream ------------------------------------------ */

struct sink {
	int fd;
	int err; /* the first error; later writes are dropped */
};

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
	struct sink *s = cookie;
	size_t done = 0;
	if (s->err)
		return (ssize_t)len; /* said once (ferror is set), not retried */
	while (done < len) {
		ssize_t n = write(s->fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			s->err = n < 0 ? errno : EIO;
			return -1; /* the stream's error flag */
		}
		done += (size_t)n;
	}
	return (ssize_t)len;
}

static FILE *sink_stream(struct sink *s, int buftype)
{
	cookie_io_functions_t io = { .write = sink_write };
	FILE *f = fopencookie(s, "w", io);
	if (f)
		setvbuf(f, NULL, buftype, 1 << 16);
	return f;
}

/* ---- standard output ------------------------------------------------------- */

static struct sink out_sink = { STDOUT_FILENO, 0 };
static bool out_installed;

void cli_stdout_init(void)
{
	if (out_installed)
		return;
	FILE *f = sink_stream(&out_sink, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF);
	if (!f)
		return; /* the plain stream then; finish still checks it */
	stdout = f;
	out_installed = true;
}

static int stdout_error(void)
{
	int e = 0;
	errno = 0;
	if (fflush(stdout) != 0)
		e = errno ? errno : EIO;
	if (out_installed && out_sink.err)
		return out_sink.err;
	if (!e && ferror(stdout))
		e = EIO;
	return e;
}

bool cli_stdout_failed(void)
{
	return stdout_error() != 0;
}

int cli_stdout_finish(const char *cmd, int status)
{
	int e = stdout_error();
	if (!e || e == EPIPE)
		return status; /* the reader went away: as perf, quietly */
	fprintf(stderr, "pmuscope: %s: writing standard output: %s\n", cmd ? cmd : "output",
		strerror(e));
	return CLI_EXIT_IO;
}

/* ---- output files ------------------------------------------------------------- */

/* The system refused the file (it cannot be created or opened): 74, as a
 * write that fails; a refusal by policy (another user's file) is 1. */
static int open_fail(const struct cli_out *o, int err)
{
	fprintf(stderr, "pmuscope: %s: %s %s: %s\n", o->cmd, o->opt, o->path ? o->path : "?",
		strerror(err));
	return CLI_EXIT_IO;
}

int cli_out_fail(const struct cli_out *o, int err)
{
	fprintf(stderr, "pmuscope: %s: %s %s: %s\n", o->cmd, o->opt, o->path ? o->path : "?",
		strerror(err));
	return CLI_EXIT_IO;
}

/* The directory part of path ("." for a bare name), malloc'd. */
static char *dir_of(const char *path)
{
	const char *sl = strrchr(path, '/');
	if (!sl)
		return strdup(".");
	if (sl == path)
		return strdup("/");
	return strndup(path, (size_t)(sl - path));
}

/* fs.protected_symlinks' rule: a link in a sticky world-writable directory
 * is followed only when its owner is the caller or the directory's owner. */
static bool may_follow(const char *path, const struct stat *lst)
{
	char *dir = dir_of(path);
	struct stat ds;
	bool ok = dir && stat(dir, &ds) == 0 &&
		  (!((ds.st_mode & S_ISVTX) && (ds.st_mode & S_IWOTH)) ||
		   lst->st_uid == geteuid() || lst->st_uid == ds.st_uid);
	free(dir);
	return ok;
}

static bool is_stream_node(mode_t m)
{
	return S_ISCHR(m) || S_ISFIFO(m) || S_ISSOCK(m);
}

/* An existing device, FIFO or socket (or a link to one that may be
 * followed): written in place.  0 not one, 1 itself, 2 through a link. */
static int in_place(const char *path)
{
	struct stat lst, st;
	if (lstat(path, &lst) < 0)
		return 0;
	if (is_stream_node(lst.st_mode))
		return 1;
	if (S_ISLNK(lst.st_mode) && stat(path, &st) == 0 && is_stream_node(st.st_mode) &&
	    may_follow(path, &lst))
		return 2;
	return 0;
}

static int open_in_place(struct cli_out *o, int how)
{
	struct stat st;
	o->fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (how == 1 ? O_NOFOLLOW : 0));
	if (o->fd < 0)
		return open_fail(o, errno);
	if (fstat(o->fd, &st) < 0 || !is_stream_node(st.st_mode)) {
		/* changed since it was looked at: not written */
		close(o->fd);
		o->fd = -1;
		return open_fail(o, EEXIST);
	}
	return 0;
}

static int open_replace(struct cli_out *o)
{
	char *dir = dir_of(o->path);
	const char *base = strrchr(o->path, '/') ? strrchr(o->path, '/') + 1 : o->path;
	size_t n = (dir ? strlen(dir) : 0) + strlen(base) + 16;
	o->tmp = dir ? malloc(n) : NULL;
	if (!o->tmp) {
		free(dir);
		return open_fail(o, ENOMEM);
	}
	snprintf(o->tmp, n, "%s/.%s.XXXXXX", dir, base);
	free(dir);
	/* O_CREAT|O_EXCL, 0600: a new file, never one that was there */
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		int e = errno;
		free(o->tmp);
		o->tmp = NULL;
		return open_fail(o, e);
	}
	return 0;
}

static int open_new(struct cli_out *o)
{
	struct stat lst;
	if (lstat(o->path, &lst) == 0) {
		if (S_ISDIR(lst.st_mode))
			return open_fail(o, EISDIR);
		/* as perf record: the old one is kept as PATH.old */
		size_t n = strlen(o->path) + 5;
		char *old = malloc(n);
		if (!old)
			return open_fail(o, ENOMEM);
		snprintf(old, n, "%s.old", o->path);
		if (rename(o->path, old) < 0) {
			int e = errno;
			fprintf(stderr, "pmuscope: %s: %s %s: cannot move the existing file to %s: %s\n",
				o->cmd, o->opt, o->path, old, strerror(e));
			free(old);
			return CLI_EXIT_IO;
		}
		free(old);
	}
	o->fd = open(o->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (o->fd < 0)
		return open_fail(o, errno);
	o->created = true;
	return 0;
}

static int open_append(struct cli_out *o)
{
	struct stat st;
	if (lstat(o->path, &st) < 0)
		return open_new(o);
	o->fd = open(o->path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (o->fd < 0) {
		if (errno != ELOOP)
			return open_fail(o, errno);
		/* a symlink: refused by the rule, not by the system */
		open_fail(o, EPERM);
		return 1;
	}
	if (fstat(o->fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		/* only the caller's own regular file is appended to */
		fprintf(stderr, "pmuscope: %s: %s %s: not appended to: %s\n", o->cmd, o->opt,
			o->path, S_ISREG(st.st_mode) ? "the file belongs to another user"
						     : "not a regular file");
		close(o->fd);
		o->fd = -1;
		return 1;
	}
	return 0;
}

int cli_out_open(struct cli_out *o, const char *cmd, const char *opt, const char *path,
		 enum cli_out_mode mode)
{
	int ret, how;
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->cmd = cmd;
	o->opt = opt;
	if (!path)
		return 0;
	o->path = strdup(path);
	if (!o->path) {
		fprintf(stderr, "pmuscope: %s: out of memory\n", cmd);
		return 1;
	}
	how = in_place(path);
	if (how)
		ret = open_in_place(o, how);
	else if (mode == CLI_OUT_REPLACE)
		ret = open_replace(o);
	else if (mode == CLI_OUT_APPEND)
		ret = open_append(o);
	else
		ret = open_new(o);
	if (ret) {
		free(o->path);
		o->path = NULL;
		o->done = true;
	}
	return ret;
}

FILE *cli_stdout_to(FILE *to)
{
	FILE *old = stdout;
	fflush(old);
	stdout = to;
	return old;
}

FILE *cli_out_stream(struct cli_out *o)
{
	if (!o->f && o->fd >= 0) {
		/* a sink of its own: the stream keeps its first error */
		struct sink *s = calloc(1, sizeof(*s));
		if (s) {
			s->fd = o->fd;
			o->f = sink_stream(s, _IOFBF);
		}
		if (!o->f) {
			free(s);
			cli_out_fail(o, ENOMEM);
			return NULL;
		}
		o->sink = s;
	}
	return o->f;
}

int cli_out_write(struct cli_out *o, const void *buf, size_t len)
{
	if (o->f)
		return fwrite(buf, 1, len, o->f) == len ? 0 : -1;
	const char *p = buf;
	while (len && !o->err) {
		ssize_t n = write(o->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->err = n < 0 ? errno : EIO;
		else {
			p += n;
			len -= (size_t)n;
		}
	}
	return o->err ? -1 : 0;
}

static int close_stream(struct cli_out *o)
{
	int e = 0;
	if (!o->f)
		return 0;
	errno = 0;
	if (fflush(o->f) != 0)
		e = errno ? errno : EIO;
	if (o->sink && o->sink->err)
		e = o->sink->err;
	else if (!e && ferror(o->f))
		e = EIO;
	fclose(o->f); /* the cookie has no close: the fd stays open */
	o->f = NULL;
	free(o->sink);
	o->sink = NULL;
	return e;
}

int cli_out_commit(struct cli_out *o)
{
	int e;
	if (!o->path || o->done)
		return 0;
	e = close_stream(o);
	if (!e)
		e = o->err;
	/* a file renamed into place is on the disk first (the rename must not
	 * reach the disk before the data) */
	if (!e && o->tmp && fsync(o->fd) < 0)
		e = errno;
	if (close(o->fd) < 0 && !e && errno != EINTR)
		e = errno;
	o->fd = -1;
	if (!e && o->tmp && rename(o->tmp, o->path) < 0)
		e = errno;
	if (e && o->tmp)
		unlink(o->tmp);
	o->done = true;
	int ret = e ? cli_out_fail(o, e) : 0;
	free(o->tmp);
	o->tmp = NULL;
	free(o->path);
	o->path = NULL;
	return ret;
}

static void give_up(struct cli_out *o, bool remove_made)
{
	if (!o->path || o->done)
		return;
	(void)close_stream(o);
	struct stat st;
	if (o->created && o->fd >= 0 &&
	    (remove_made || (fstat(o->fd, &st) == 0 && st.st_size == 0)))
		unlink(o->path); /* nothing readable was recorded into it */
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	free(o->path);
	o->path = NULL;
	o->done = true;
}

void cli_out_abandon(struct cli_out *o)
{
	give_up(o, false);
}

void cli_out_remove(struct cli_out *o)
{
	give_up(o, true);
}
