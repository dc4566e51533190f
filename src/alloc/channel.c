/* The stream's channel and the clock calibration (include/pmuscope/alloc.h).
 * The channel is a memfd the started command inherits: the preload writes
 * to it with O_APPEND, the table reads it with pread while the run goes on,
 * so the command never waits for pmuscope.  (memfd_create, fcntl and fstat
 * are called here directly, as sample/child.c calls fork: they are not
 * perf or /proc accesses that a fake kernel would stand in for.) */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc/alloc_int.h"
#include "util/error.h"

#define CHANNEL_FD_MIN 512 /* out of the way of a shell's redirections */

int pms_alloc_channel_open(unsigned long *ino)
{
	int fd = memfd_create("pmuscope-alloc", 0);
	if (fd < 0)
		return pms_err_errno(PMS_ESYS, errno, "allocation channel: memfd_create");
	int hi = fcntl(fd, F_DUPFD, CHANNEL_FD_MIN);
	if (hi >= 0) {
		close(fd);
		fd = hi;
	}
	struct stat st;
	if (fcntl(fd, F_SETFL, O_APPEND) < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return pms_err_errno(PMS_ESYS, e, "allocation channel: fcntl/fstat");
	}
	if (ino)
		*ino = (unsigned long)st.st_ino;
	return fd;
}
