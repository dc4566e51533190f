/* The built-in `pmuscope mem` workload: a dependent pointer chase over a
 * buffer (default 64 MiB, wider than any L3), optionally bound to a node. */
#ifndef PMS_TOOLS_MEM_WORKLOAD_H
#define PMS_TOOLS_MEM_WORKLOAD_H

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

#endif
