/* The kernel seam: root fd + ops table (see include/pmuscope/sys.h). */
#include "pmuscope/sys.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/natsort.h"
#include "util/opts.h"
#include "sys/sys_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct pms_sys {
	int root_fd;
	char *root;
	struct pms_sys_ops ops;
	bool live;
};

static int real_perf_event_open(void *ud, struct perf_event_attr *attr, pid_t pid,
				int cpu, int group_fd, unsigned long flags)
{
	(void)ud;
	long r = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
	return r < 0 ? -errno : (int)r;
}

static int real_ioctl(void *ud, int fd, unsigned long request, unsigned long arg)
{
	(void)ud;
	int r = ioctl(fd, request, arg);
	return r < 0 ? -errno : r;
}

static ssize_t real_read(void *ud, int fd, void *buf, size_t count)
{
	(void)ud;
	ssize_t r;
	do
		r = read(fd, buf, count);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

static int real_mmap(void *ud, size_t length, int prot, int flags, int fd, off_t offset,
		     void **out)
{
	(void)ud;
	void *p = mmap(NULL, length, prot, flags, fd, offset);
	if (p == MAP_FAILED)
		return -errno;
	*out = p;
	return 0;
}

static int real_munmap(void *ud, void *addr, size_t length)
{
	(void)ud;
	return munmap(addr, length) < 0 ? -errno : 0;
}

static int real_close(void *ud, int fd)
{
	(void)ud;
	return close(fd) < 0 ? -errno : 0;
}

static long real_move_pages(void *ud, int pid, unsigned long count, void **pages,
			    const int *nodes, int *status, int flags)
{
	(void)ud;
	long r = syscall(SYS_move_pages, pid, count, pages, nodes, status, flags);
	return r < 0 ? -errno : r;
}

static long real_get_mempolicy(void *ud, int *mode, unsigned long *nodemask,
			       unsigned long maxnode, void *addr, unsigned long flags)
{
	(void)ud;
	long r = syscall(SYS_get_mempolicy, mode, nodemask, maxnode, addr, flags);
	return r < 0 ? -errno : r;
}

#ifndef RESOLVE_BENEATH
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS 0x04
#define RESOLVE_BENEATH 0x08
#endif
struct pms_open_how { /* struct open_how, linux/openat2.h (5.6) */
	uint64_t flags, mode, resolve;
};

static bool has_dotdot(const char *p)
{
	for (const char *c = p; *c; c++)
		if (c[0] == '.' && c[1] == '.' && (c == p || c[-1] == '/') &&
		    (c[2] == '/' || c[2] == '\0'))
			return true;
	return false;
}

static int real_write_file(void *ud, int dirfd, const char *relpath, const void *buf,
			   size_t len)
{
	(void)ud;
	int fd = -1;
	if (relpath[0] == '/' || has_dotdot(relpath))
		return -EINVAL;
#ifdef SYS_openat2
	struct pms_open_how how = { O_WRONLY | O_TRUNC | O_CLOEXEC, 0,
				    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
					    RESOLVE_NO_MAGICLINKS };
	long r = syscall(SYS_openat2, dirfd, relpath, &how, sizeof(how));
	if (r >= 0)
		fd = (int)r;
	else if (errno != ENOSYS)
		return -errno;
#endif
	if (fd < 0) {
		/* kernels before 5.6: no "..", and the last component is
		 * no symlink (a symlinked directory above it is not caught) */
		fd = openat(dirfd, relpath, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			return -errno;
	}
	ssize_t w;
	do
		w = write(fd, buf, len);
	while (w < 0 && errno == EINTR);
	int err = w < 0 ? errno : (size_t)w != len ? EIO : 0;
	close(fd);
	return -err;
}

static const struct pms_sys_ops real_ops = {
	.ud = NULL,
	.perf_event_open = real_perf_event_open,
	.ioctl = real_ioctl,
	.read = real_read,
	.mmap = real_mmap,
	.munmap = real_munmap,
	.close = real_close,
	.move_pages = real_move_pages,
	.get_mempolicy = real_get_mempolicy,
	.write_file = real_write_file,
};

const struct pms_sys_ops *pms_sys_real_ops(void)
{
	return &real_ops;
}

PMS_OPTS_LAYOUT(PMS_SYS_OPTS, struct pms_sys_opts, PMS_OPTS_END(struct pms_sys_opts, ops));

int pms_sys_new(struct pms_sys **out, const struct pms_sys_opts *opts)
{
	struct pms_sys_opts o;
	struct pms_sys *sys = NULL;
	const char *root = "/";
	int ret = 0;

	if (!out)
		return pms_err(PMS_EINVAL, "pms_sys_new: out is NULL");
	*out = NULL;
	if ((ret = PMS_OPTS_TAKE("pms_sys_new", PMS_SYS_OPTS, opts, &o)) < 0)
		return ret;
	if (o.root && o.root[0])
		root = o.root;

	sys = calloc(1, sizeof(*sys));
	if (!sys)
		return pms_err(PMS_ENOMEM, "pms_sys_new: out of memory");
	sys->root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sys->root_fd < 0) {
		ret = pms_err_errno(0, errno, "cannot open root directory '%s'", root);
		goto out;
	}
	/* a relative root is made absolute once, here: the paths built below
	 * it (the recorded binaries, modules and debug files the symbolizer
	 * and libdwfl open, perf's --symfs) hold wherever they are used */
	sys->root = root[0] == '/' ? strdup(root) : realpath(root, NULL);
	if (!sys->root) {
		ret = root[0] == '/' ? pms_err(PMS_ENOMEM, "pms_sys_new: out of memory")
				     : pms_err_errno(0, errno, "cannot resolve root directory '%s'",
						     root);
		goto out;
	}
	sys->ops = o.ops ? *o.ops : real_ops;
	if (!sys->ops.write_file)
		sys->ops.write_file = real_write_file;
	sys->live = strcmp(root, "/") == 0 && !(o.ops && o.ops != &real_ops);
	*out = sys;
	sys = NULL;
out:
	pms_sys_free(sys);
	return ret;
}

void pms_sys_free(struct pms_sys *sys)
{
	if (!sys)
		return;
	if (sys->root_fd >= 0)
		close(sys->root_fd);
	free(sys->root);
	free(sys);
}

const struct pms_sys_ops *pms_sys_ops(const struct pms_sys *sys)
{
	return &sys->ops;
}

int pms_sys_root_fd(const struct pms_sys *sys)
{
	return sys->root_fd;
}

const char *pms_sys_root(const struct pms_sys *sys)
{
	return sys->root;
}

bool pms_sys_is_live(const struct pms_sys *sys)
{
	return sys->live;
}

static const char *rel(const char *p)
{
	while (*p == '/')
		p++;
	return *p ? p : ".";
}

#define PMS_SYS_MAX_FILE (16u << 20)

struct pms_sys_stream {
	int fd;
	char *path; /* root/relpath, for messages */
};

int pms_sys_stream_open(const struct pms_sys *sys, const char *relpath,
			struct pms_sys_stream **out)
{
	struct pms_sys_stream *f;
	struct stat st;
	int fd, ret;

	if (!out)
		return pms_err(PMS_EINVAL, "pms_sys_stream_open: out is NULL");
	*out = NULL;
	if (!sys || !relpath)
		return pms_err(PMS_EINVAL, "pms_sys_stream_open: NULL argument");
	/* O_NONBLOCK: a FIFO (or a device) in a --root tree must not hang the
	 * open; then only regular files are read (sysfs and procfs files are
	 * regular files). */
	fd = openat(sys->root_fd, rel(relpath), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return pms_err_errno(0, errno, "cannot open %s/%s", sys->root, rel(relpath));
	if (fstat(fd, &st) < 0) {
		ret = pms_err_errno(PMS_EIO, errno, "cannot stat %s/%s", sys->root, rel(relpath));
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = pms_err(PMS_EIO,
			      "%s/%s is not a regular file (%s); a machine's sysfs and "
			      "procfs files are: check the --root tree",
			      sys->root, rel(relpath),
			      S_ISFIFO(st.st_mode)   ? "a FIFO"
			      : S_ISDIR(st.st_mode)  ? "a directory"
			      : S_ISSOCK(st.st_mode) ? "a socket"
						     : "a device");
		close(fd);
		return ret;
	}
	f = malloc(sizeof(*f));
	size_t plen = strlen(sys->root) + 1 + strlen(rel(relpath)) + 1;
	char *path = malloc(plen);
	if (!f || !path) {
		free(f);
		free(path);
		close(fd);
		return pms_err(PMS_ENOMEM, "out of memory reading %s", relpath);
	}
	snprintf(path, plen, "%s/%s", sys->root, rel(relpath));
	f->fd = fd;
	f->path = path;
	*out = f;
	return 0;
}

ssize_t pms_sys_stream_read(struct pms_sys_stream *f, void *buf, size_t max)
{
	if (!f || (!buf && max))
		return pms_err(PMS_EINVAL, "pms_sys_stream_read: NULL argument");
	for (;;) {
		ssize_t r = read(f->fd, buf, max);
		if (r >= 0)
			return r;
		if (errno != EINTR)
			return pms_err_errno(PMS_EIO, errno, "cannot read %s", f->path);
	}
}

int pms_sys_stream_fd(const struct pms_sys_stream *f)
{
	return f ? f->fd : -1;
}

void pms_sys_stream_close(struct pms_sys_stream *f)
{
	if (!f)
		return;
	close(f->fd);
	free(f->path);
	free(f);
}

int pms_sys_read_file(const struct pms_sys *sys, const char *relpath, char **out,
		      size_t *len)
{
	struct pms_sys_stream *f = NULL;
	char *buf = NULL;
	size_t cap = 4096, n = 0;
	int ret;

	*out = NULL;
	if ((ret = pms_sys_stream_open(sys, relpath, &f)) < 0)
		return ret;
	buf = malloc(cap + 1);
	if (!buf) {
		ret = pms_err(PMS_ENOMEM, "out of memory reading %s", relpath);
		goto out;
	}
	for (;;) {
		ssize_t r;
		if (n == cap) {
			char *nb;
			if (cap >= PMS_SYS_MAX_FILE) {
				ret = pms_err(PMS_ERANGE, "%s is larger than %u bytes", f->path,
					      PMS_SYS_MAX_FILE);
				goto out;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				ret = pms_err(PMS_ENOMEM, "out of memory reading %s", relpath);
				goto out;
			}
			buf = nb;
		}
		r = pms_sys_stream_read(f, buf + n, cap - n);
		if (r < 0) {
			ret = (int)r;
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	*out = buf;
	buf = NULL;
out:
	free(buf);
	pms_sys_stream_close(f);
	return ret;
}

int pms_sys_read_line(const struct pms_sys *sys, const char *relpath, char **out)
{
	size_t len;
	int ret = pms_sys_read_file(sys, relpath, out, &len);
	if (ret < 0)
		return ret;
	while (len && strchr(" \t\r\n", (*out)[len - 1]))
		(*out)[--len] = '\0';
	return 0;
}

int pms_sys_read_u64(const struct pms_sys *sys, const char *relpath, uint64_t *out)
{
	char *s = NULL, *end;
	unsigned long long v;
	int ret = pms_sys_read_line(sys, relpath, &s);
	if (ret < 0)
		return ret;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end != '\0' || s[0] == '-') {
		ret = pms_err(PMS_EPARSE, "%s/%s: expected an unsigned integer, found '%.40s'",
			      sys->root, rel(relpath), s);
	} else {
		*out = v;
	}
	free(s);
	return ret;
}

bool pms_sys_exists(const struct pms_sys *sys, const char *relpath)
{
	if (faccessat(sys->root_fd, rel(relpath), F_OK, 0) == 0)
		return true;
	/* A symlink loop is there, and broken: say "exists" so that reading
	 * it fails with an error naming the path, rather than taking it for
	 * absent (a CPU left out of the topology). */
	return errno == ELOOP;
}

void pms_sys_names_free(char **names, size_t count)
{
	if (!names)
		return;
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

static int cmp_names(const void *a, const void *b)
{
	return pms_natcmp(*(char *const *)a, *(char *const *)b);
}

int pms_sys_list_dir(const struct pms_sys *sys, const char *relpath, char ***names,
		     size_t *count)
{
	char **v = NULL;
	size_t n = 0, cap = 0;
	DIR *d;
	struct dirent *de;
	int fd, ret = 0;

	*names = NULL;
	*count = 0;
	fd = openat(sys->root_fd, rel(relpath), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return pms_err_errno(0, errno, "cannot open directory %s/%s", sys->root,
				     rel(relpath));
	d = fdopendir(fd);
	if (!d) {
		ret = pms_err_errno(0, errno, "cannot read directory %s/%s", sys->root,
				    rel(relpath));
		close(fd);
		return ret;
	}
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((ret = pms_grow(&v, &cap, n + 1, sizeof(*v), 16, "a directory listing")) < 0)
			goto out;
		v[n] = strdup(de->d_name);
		if (!v[n]) {
			ret = pms_err(PMS_ENOMEM, "out of memory listing %s", relpath);
			goto out;
		}
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_names);
	*names = v;
	*count = n;
	v = NULL;
out:
	if (v)
		pms_sys_names_free(v, n);
	closedir(d);
	return ret;
}

int pms_sys_write_file(const struct pms_sys *sys, const char *relpath, const char *data)
{
	const char *p = rel(relpath);
	if (has_dotdot(p) || !strcmp(p, "."))
		return pms_err(PMS_EINVAL, "refusing to write '%s': the path must stay below %s",
			       relpath, sys->root);
	int r = sys->ops.write_file(sys->ops.ud, sys->root_fd, p, data, strlen(data));
	if (r < 0)
		return pms_err_errno(0, -r, "cannot write '%.60s' to %s/%s", data, sys->root, p);
	return 0;
}

int pms_sys_perf_event_open(const struct pms_sys *sys, struct perf_event_attr *attr,
			    pid_t pid, int cpu, int group_fd, unsigned long flags,
			    const char *what)
{
	int r = sys->ops.perf_event_open(sys->ops.ud, attr, pid, cpu, group_fd, flags);
	if (r < 0)
		return pms_err_errno(0, -r,
				     "perf_event_open(%s, type=%" PRIu32 " config=0x%" PRIx64
				     ", pid=%d, cpu=%d) failed",
				     what ? what : "event", attr->type, (uint64_t)attr->config,
				     (int)pid, cpu);
	return r;
}

int pms_sys_close(const struct pms_sys *sys, int fd)
{
	int r = sys->ops.close(sys->ops.ud, fd);
	if (r < 0)
		return pms_err_errno(0, -r, "close(fd %d) failed", fd);
	return 0;
}
