/* The built-in `pmuscope mem` workload: a dependent pointer chase over a
 * buffer (default 64 MiB, wider than any L3), optionally bound to a node. */
#ifndef PMS_TOOLS_MEM_WORKLOAD_H
#define PMS_TOOLS_MEM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mem_workload_opts {
	size_t size;       /* buffer bytes */
	int node;          /* bind the buffer here (-1: first touch, the default policy) */
	int threads;       /* chasing threads */
	uint64_t steps;    /* dependent loads per thread; 0 = one lap (the word count) */
	int report_fd;     /* where to write the "buffer ..." line, -1 = none */
	int release_fd;    /* after "done", wait for EOF here (the parent has
			    * asked about our pages), -1 = exit at once */
	int verify;        /* cross-check every buffer page: get_mempolicy vs move_pages */
};

/* Run it (in the process that is being profiled); returns the exit status. */
int mem_workload_run(const struct mem_workload_opts *o);

/* What the workload child tells its parent on the report pipe. */
struct wl_info {
	bool have;
	bool done; /* the chase finished; the workload waits for release */
	uint64_t start, size;
	int home;
	int threads;
	long vchecked, vdis, verr;
};

/* The parent's side: pmuscope re-executes itself (`mem --run-workload`)
 * with a report pipe and a release pipe. */
struct wl_child {
	int pipefd[2], relfd[2];
	char *exe;
	char *argv[20]; /* 17 at most: wl_child_prepare */
	char argbuf[6][32];
	char buf[256];
	size_t len;
	struct wl_info wi;
};

/* The pipes and the child's argv (c->argv); -1 (said) on failure. */
int wl_child_prepare(struct wl_child *c, const char *prog, const struct mem_workload_opts *o,
		     bool verify);
/* The child is started: the parent's copies of its pipe ends go. */
void wl_child_started(struct wl_child *c);
/* Read what the child said so far (non-blocking). */
void wl_child_poll(struct wl_child *c);
/* Let a finished child exit; true when it was released now. */
bool wl_child_release(struct wl_child *c);
void wl_child_close(struct wl_child *c);

#endif
