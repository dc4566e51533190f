/* LD_PRELOAD fault shim for tests/cli/outputs.sh: makes chosen calls fail.
 *   PMS_FAULT_WRITE=N   the Nth write()/pwrite() (counting those not to fd 2)
 *                       fails with PMS_FAULT_ERRNO (default EIO), and every
 *                       later one too when PMS_FAULT_STICKY=1
 *   PMS_FAULT_REGULAR=1 count only writes to regular files
 *   PMS_FAULT_FSYNC=1   every fsync()/fdatasync() fails with EIO
 *   PMS_FAULT_CLOSE=1   close() of a regular file open for writing fails
 *                       with EIO (after closing it, as NFS may)
 * Only calls through the dynamic linker are seen (the program's and the
 * library's; the C library's own stdio writes are not). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static long nwrite;

static int env_int(const char *name)
{
	const char *v = getenv(name);
	return v ? atoi(v) : 0;
}

static int write_fails(int fd)
{
	long n = env_int("PMS_FAULT_WRITE");
	struct stat st;
	if (fd == 2 || n <= 0)
		return 0;
	if (env_int("PMS_FAULT_REGULAR") && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)))
		return 0;
	long k = __atomic_add_fetch(&nwrite, 1, __ATOMIC_SEQ_CST);
	if (k == n || (k > n && env_int("PMS_FAULT_STICKY"))) {
		int e = env_int("PMS_FAULT_ERRNO");
		errno = e ? e : EIO;
		return 1;
	}
	return 0;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	static ssize_t (*real)(int, const void *, size_t);
	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (write_fails(fd))
		return -1;
	return real(fd, buf, len);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);
	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	if (write_fails(fd))
		return -1;
	return real(fd, buf, len, off);
}

int fsync(int fd)
{
	static int (*real)(int);
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	if (env_int("PMS_FAULT_FSYNC")) {
		errno = EIO;
		return -1;
	}
	return real(fd);
}

int fdatasync(int fd)
{
	return fsync(fd);
}

int close(int fd)
{
	static int (*real)(int);
	struct stat st;
	int fl;
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "close");
	int hit = env_int("PMS_FAULT_CLOSE") && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		  (fl = fcntl(fd, F_GETFL)) >= 0 && (fl & O_ACCMODE) != O_RDONLY;
	int r = real(fd);
	if (hit && r == 0) {
		errno = EIO;
		return -1;
	}
	return r;
}
