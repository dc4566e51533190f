/* The stream's channel and the clock calibration (include/pmuscope/alloc.h).
 * The channel is a memfd the started command inherits: the preload writes
 * to it with O_APPEND, the table reads it with pread while the run goes on,
 * so the command never waits for pmuscope.  (memfd_create, fcntl and fstat
 * are called here directly, as sample/child.c calls fork: they are not
 * perf or /proc accesses that a fake kernel would stand in for.)
 * Calibration: the preload stamps records with CLOCK_MONOTONIC (a vDSO
 * read); perf stamps samples with its own clock (local_clock unless
 * use_clockid), which on this project's test VM runs about 1.4 ms ahead
 * of CLOCK_MONOTONIC and has no user-page time conversion
 * (cap_user_time 0).  One page fault of this process, counted by two
 * software events that sample every fault, one on each clock, gives both
 * times of the same instant. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc/alloc_int.h"
#include "pmuscope/sys.h"
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

struct calev {
	int fd;
	void *map;
};

static int ev_open(const struct pms_sys_ops *ops, bool mono, struct calev *e)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TIME;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	if (mono) {
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
	}
	e->fd = ops->perf_event_open(ops->ud, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (e->fd < 0)
		return pms_err_errno(PMS_ESYS, errno, "clock calibration: perf_event_open");
	long pg = sysconf(_SC_PAGESIZE);
	if (ops->mmap(ops->ud, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0,
		      &e->map) < 0) {
		ops->close(ops->ud, e->fd);
		e->fd = -1;
		return pms_err_errno(PMS_ESYS, errno, "clock calibration: mmap");
	}
	return 0;
}

static void ev_close(const struct pms_sys_ops *ops, struct calev *e)
{
	if (e->fd < 0)
		return;
	ops->munmap(ops->ud, e->map, 2 * (size_t)sysconf(_SC_PAGESIZE));
	ops->close(ops->ud, e->fd);
}

/* The time of the last sample in the ring, 0 when none. */
static uint64_t ev_last_time(const struct calev *e)
{
	const struct perf_event_mmap_page *pg = e->map;
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	const unsigned char *data = (const unsigned char *)e->map + psz;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), t = 0;
	for (uint64_t off = 0; off + 8 <= head && head <= psz;) {
		struct perf_event_header h;
		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || off + h.size > head)
			break;
		if (h.type == PERF_RECORD_SAMPLE && h.size >= 16)
			memcpy(&t, data + off + 8, 8);
		off += h.size;
	}
	return t;
}

int pms_alloc_calibrate_now(struct pms_sys *sys, struct pms_alloc_table *t)
{
	const struct pms_sys_ops *ops = pms_sys_ops(sys);
	struct calev a = { -1, NULL }, b = { -1, NULL };
	int rc;
	if ((rc = ev_open(ops, false, &a)) < 0 || (rc = ev_open(ops, true, &b)) < 0) {
		ev_close(ops, &a);
		return rc;
	}
	long psz = sysconf(_SC_PAGESIZE);
	void *page = mmap(NULL, (size_t)psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	if (page == MAP_FAILED) {
		rc = pms_err_errno(PMS_ESYS, errno, "clock calibration: mmap");
	} else {
		*(volatile char *)page = 1; /* the fault both events sample */
		uint64_t ta = ev_last_time(&a), tb = ev_last_time(&b);
		munmap(page, (size_t)psz);
		rc = ta && tb ? pms_alloc_table_calibrate(t, tb, (int64_t)(ta - tb))
			      : pms_err(PMS_ENOENT, "clock calibration: no sample of the fault");
	}
	ev_close(ops, &a);
	ev_close(ops, &b);
	return rc;
}
