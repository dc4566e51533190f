/* The built-in `pmuscope mem` workload: a dependent pointer chase over a
 * buffer (default 64 MiB, wider than any L3), optionally bound to a node,
 * run in a child the front end starts (src/sys/workload.c: its mmap, mbind
 * and pipes are syscalls, so it lives in the seam's concern).
 * Ownership: a pms_workload_child owns its pipes and argv until
 * pms_workload_child_close. */
#ifndef PMUSCOPE_WORKLOAD_H
#define PMUSCOPE_WORKLOAD_H

#include "pmuscope/api.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pms_workload_opts {
	size_t size;       /* buffer bytes */
	int node;          /* bind the buffer here (-1: first touch, the default policy) */
	int threads;       /* chasing threads */
	uint64_t steps;    /* dependent loads per thread; 0 = one lap (the word count) */
	int report_fd;     /* where to write the "buffer ..." line, -1 = none */
	int release_fd;    /* after "done", wait for EOF here (the parent has
			    * asked about our pages), -1 = exit at once */
	int verify;        /* cross-check every buffer page: get_mempolicy vs move_pages */
};

#ifdef __cplusplus
extern "C" {
#endif

PMS_API_BEGIN

/* Run it (in the process that is being profiled); returns the exit status:
 * 0, or 2 when it could not run (pms_error_last() says why). */
int pms_workload_run(const struct pms_workload_opts *o);

/* What the workload child tells its parent on the report pipe. */
struct pms_workload_info {
	bool have;
	bool done; /* the chase finished; the workload waits for release */
	uint64_t start, size;
	int home;
	int threads;
	long vchecked, vdis, verr;
};

/* The parent's side: pmuscope re-executes itself (`mem --run-workload`)
 * with a report pipe and a release pipe. */
struct pms_workload_child {
	int pipefd[2], relfd[2];
	char *exe;
	char *argv[20]; /* 17 at most: wl_child_prepare */
	char argbuf[6][32];
	char buf[256];
	size_t len;
	struct pms_workload_info wi;
};

/* The pipes and the child's argv (c->argv: prog re-executed as
 * `mem --run-workload`); 0, or PMS_ESYS. */
int pms_workload_child_prepare(struct pms_workload_child *c, const char *prog,
				const struct pms_workload_opts *o, bool verify);
/* The child is started: the parent's copies of its pipe ends go. */
void pms_workload_child_started(struct pms_workload_child *c);
/* Read what the child said so far (non-blocking). */
void pms_workload_child_poll(struct pms_workload_child *c);
/* Let a finished child exit; true when it was released now. */
bool pms_workload_child_release(struct pms_workload_child *c);
void pms_workload_child_close(struct pms_workload_child *c);

PMS_API_END

#ifdef __cplusplus
}
#endif

#endif
