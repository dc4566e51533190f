/* A scriptable fake kernel behind the pms_sys ops table.
 *
 * It keeps a table of fake fds, logs every perf_event_open attr, lets a test
 * install an acceptance rule (which encodes a real kernel's rules and cites
 * them), serves mmap with zeroed memory a test can fill like the kernel
 * fills a ring, and answers move_pages/get_mempolicy from a page -> node map.
 *
 * Ownership: fk_new() returns a fake released with fk_free(); it must outlive
 * every pms_sys built on fk_ops().
 */
#ifndef PMS_TESTS_FAKE_KERNEL_H
#define PMS_TESTS_FAKE_KERNEL_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmuscope/sys.h"

#define FK_MAX_FDS 256
#define FK_MAX_PAGES 4096
#define FK_FD_BASE 1000
#define FK_MAX_NODES 64

struct fk;

/* Return a non-negative value to accept (the fake then allocates the fd) or a
 * negative errno to refuse, as the real kernel would. */
typedef int (*fk_open_rule)(struct fk *fk, const struct perf_event_attr *attr, pid_t pid,
			    int cpu, int group_fd, unsigned long flags);

struct fk_open_log {
	struct perf_event_attr attr;
	pid_t pid;
	int cpu;
	int group_fd;
	unsigned long flags;
	int result; /* fd or -errno */
};

/* The id the fake gives the event behind fd (PERF_EVENT_IOC_ID); tests put
 * it into records of events that sample PERF_SAMPLE_IDENTIFIER. */
#define FK_EVENT_ID(fd) (1000u + (uint64_t)(fd))

struct fk_fd {
	int used;
	struct perf_event_attr attr;
	int cpu;
	pid_t pid;
	/* What read() returns (copied; at most 4096 bytes). */
	unsigned char read_data[4096];
	size_t read_len;
	int read_errno; /* when non-zero, read fails with it */
	void *map;      /* the ring mmap of this fd (offset 0) */
	size_t map_len;
	void *aux_map;  /* the AUX mmap (offset = user page aux_offset), or NULL */
	size_t aux_map_len;
	unsigned long ioctl_last;
	int ioctl_count;
	int group_fd;   /* the group_fd it was opened with (-1 = its own leader) */
	bool enabled;   /* PERF_EVENT_IOC_ENABLE seen (attr.disabled events leave OFF) */
	/* The task model (fk_task_fork / fk_task_fault): */
	bool on;            /* enabled (state >= INACTIVE), from attr.disabled */
	uint64_t period;    /* attr.sample_period, changed by PERF_EVENT_IOC_PERIOD */
	uint64_t left;      /* events until the next sample */
	uint64_t lost;      /* rb->lost: records not written since the last LOST */
	uint64_t written;   /* samples written into this fd's ring */
	uint64_t lost_samples; /* event->lost_samples: every record lost */
	uint64_t counted;   /* events counted (read()'s value) */
};

/* An event the kernel made by inheritance: it has no fd; it counts for its
 * task and writes into its top parent's ring. */
#define FK_MAX_INH 512
struct fk_inh {
	int used;
	int top;            /* the fd of the event it descends from */
	pid_t tid;
	bool on;
	uint64_t period, left;
};

struct fk {
	fk_open_rule rule;
	void *rule_ud;
	struct fk_open_log log[512];
	int nlog;
	struct fk_fd fds[FK_MAX_FDS];
	int nopen; /* currently open fds */
	/* page -> node map for move_pages / get_mempolicy */
	uint64_t page_addr[FK_MAX_PAGES];
	int page_node[FK_MAX_PAGES];
	int npages;
	long page_size;
	long move_pages_calls;
	long get_mempolicy_calls;
	struct pms_sys_ops ops;
	/* Migration (move_pages with nodes), the kernel's rules
	 * (mm/migrate.c; fake_kernel.c cites each): */
	int page_flags[FK_MAX_PAGES]; /* FK_PAGE_* of each page */
	uint64_t nodes_with_memory;   /* N_MEMORY mask; 0 = every node */
	uint64_t nodes_allowed;       /* the task's cpuset mems; 0 = every node */
	long node_free_pages[FK_MAX_NODES]; /* free pages; < 0 = unlimited (fk_new) */
	int find_mm_errno;            /* ESRCH / EPERM refusing the task, 0 = ok */
	bool cap_sys_nice;            /* MPOL_MF_MOVE_ALL allowed */
	long pages_moved;             /* pages the fake migrated */
	long move_calls;              /* move_pages calls with nodes */
	struct fk_inh inh[FK_MAX_INH];
	uint64_t clock;               /* sample times (events without use_clockid) */
	/* Called after an ENABLE reached fd and its inherited events: a test
	 * makes tasks run between two enables of one change. */
	void (*enable_hook)(struct fk *fk, int fd);
	/* Transient failures of queries (move_pages without nodes): the next
	 * query_fail_calls queries fail whole with -query_fail_errno; page
	 * flaky_page answers flaky_status to its next flaky_left queries;
	 * query_fail_skip queries pass before the failures start. */
	int query_fail_errno, query_fail_calls, query_fail_skip;
	uint64_t flaky_page;
	int flaky_status, flaky_left;
};

enum {
	FK_PAGE_BUSY = 1,   /* isolate_lru_page fails: -EBUSY */
	FK_PAGE_SHARED = 2, /* mapcount > 1: -EACCES without MPOL_MF_MOVE_ALL */
	FK_PAGE_AGAIN = 4,  /* migrate_pages fails it (counted, status not written) */
	/* the same once (then the flag clears): a page busy for a moment
	 * (referenced or locked while migration tries it) */
	FK_PAGE_AGAIN_ONCE = 8,
	FK_PAGE_BUSY_ONCE = 16,
};
/* Flags of the page holding addr (after fk_set_page). */
void fk_set_page_flags(struct fk *fk, uint64_t addr, int flags);

struct fk *fk_new(void);
void fk_free(struct fk *fk);
const struct pms_sys_ops *fk_ops(struct fk *fk);
struct fk_fd *fk_fd(struct fk *fk, int fd);
/* Map the page holding addr to node (negative = that -errno status). */
void fk_set_page(struct fk *fk, uint64_t addr, int node);

/* Write one record into fd's ring at data_head the way the kernel does
 * (kernel/events/ring_buffer.c perf_output_copy: byte-wise wrap at the end of
 * the data area) and publish the new data_head.  Returns 0, or -ENOSPC when
 * the record does not fit before data_tail (the kernel would then count it as
 * lost), -EBADF without a ring. */
int fk_ring_put(struct fk *fk, int fd, const void *rec, size_t len);
/* Write len bytes at aux_head of fd's AUX area (wrapping) and publish the new
 * aux_head; -ENOSPC when they would overrun aux_tail, -EBADF without an AUX
 * area. *offset (optional) gets the stream offset of the first byte. */
int fk_aux_put(struct fk *fk, int fd, const void *bytes, size_t len, uint64_t *offset);

/* Tasks (kernel/events/core.c, Linux 6.12; fake_kernel.c cites each rule):
 * parent forks child: every event with inherit on parent (its own fds, and
 * the events it inherited) is copied to child, linked to the top parent,
 * with the top parent's attr (so its current period) and the state of the
 * forking task's event.  Returns how many events child got. */
int fk_task_fork(struct fk *fk, pid_t parent, pid_t child);
/* One page fault of task tid on cpu: every enabled PERF_COUNT_SW_PAGE_FAULTS
 * event of the task (its fds opened on tid or on the CPU, and its inherited
 * events) counts it; one that reaches its period writes a SAMPLE (ip, addr)
 * into its top parent's ring, after a LOST record when records were lost
 * since the last one, or counts it lost when the ring is full.  Returns the
 * samples written. */
int fk_task_fault(struct fk *fk, pid_t tid, int cpu, uint64_t ip, uint64_t addr);
/* Inherited events that descend from fd (0 after fd is closed). */
int fk_inh_count(struct fk *fk, int fd);

#endif
