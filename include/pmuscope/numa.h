/* The address -> NUMA node oracle: which node holds the page behind a sampled
 * data address, asked of the kernel in batches (move_pages in query mode) and
 * cached per page, or taken from the topology's memory blocks for a physical
 * address.
 *
 * Ownership: pms_numa_oracle_new() gives the caller an oracle released with
 * pms_numa_oracle_free(); sys and topo are borrowed and must outlive it.
 */
#ifndef PMUSCOPE_NUMA_H
#define PMUSCOPE_NUMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmuscope/memsample.h"
#include "pmuscope/sys.h"
#include "pmuscope/topo.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* A node result that is not a node: the oracle never guesses.  Values >= 0
 * are node ids; values < 0 are either the page's negative errno status as
 * move_pages reported it (-EFAULT, -ENOENT, ...) or PMS_NODE_UNKNOWN (not
 * asked; memsample.h). */

#define PMS_NUMA_OPTS_VERSION 1
struct pms_numa_opts {
	unsigned version;  /* PMS_NUMA_OPTS_VERSION */
	pid_t pid;         /* process whose pages are asked about; 0 = the caller */
	size_t batch;      /* pages per move_pages call; 0 = 512 */
	size_t page_size;  /* 0 = 4096 */
	/* Cross-check every newly resolved page with get_mempolicy(MPOL_F_NODE|
	 * MPOL_F_ADDR).  That call only answers for the calling process, so it
	 * is done only when pid is 0; stats say how many pages were checked. */
	bool verify;
};
#define PMS_NUMA_OPTS_INIT { PMS_NUMA_OPTS_VERSION, 0, 0, 0, false }

struct pms_numa_stats {
	uint64_t lookups;          /* addresses asked about */
	uint64_t cache_hits;       /* answered from the page cache */
	uint64_t pages_queried;    /* unique pages sent to move_pages */
	uint64_t move_pages_calls; /* syscalls made */
	uint64_t resolved;         /* lookups answered with a node */
	uint64_t efault;           /* lookups whose page status was -EFAULT (not mapped) */
	uint64_t enoent;           /* ... -ENOENT (mapped, not present) */
	uint64_t other_errors;     /* ... another negative status */
	uint64_t call_errors;      /* move_pages calls that failed as a whole */
	int last_call_errno;       /* positive errno of the last failed call, 0 if none */
	uint64_t verify_checked;   /* pages cross-checked with get_mempolicy */
	uint64_t verify_disagree;  /* ... whose node differed */
	uint64_t verify_errors;    /* ... where get_mempolicy failed */
	uint64_t get_mempolicy_calls;
	uint64_t invalidations;    /* cached pages dropped by invalidate/clear */
	uint64_t cached;           /* pages in the cache now */
	/* Retries (once each): a call that failed whole with a transient
	 * errno (EINTR, EAGAIN, ENOMEM, EBUSY) is made again; a page whose
	 * status was neither a node nor -ENOENT / -EFAULT (the only statuses
	 * a query gives: mm/migrate.c do_pages_stat_array) is asked again. */
	uint64_t retried_calls;    /* calls made again */
	uint64_t retried_pages;    /* pages asked again */
	uint64_t retry_answered;   /* ... that got a node, -ENOENT or -EFAULT then */
};

struct pms_numa_oracle;

int pms_numa_oracle_new(struct pms_sys *sys, const struct pms_topo *topo,
			const struct pms_numa_opts *opts, struct pms_numa_oracle **out);
void pms_numa_oracle_free(struct pms_numa_oracle *o);

/* Resolve n addresses: nodes[i] gets the node of addrs[i]'s page or its
 * negative status.  Cached pages cost nothing; the unique uncached pages are
 * asked about with one move_pages call per `batch` pages.  Only pages with a
 * node are cached (a -ENOENT page may be faulted in later).  Returns the
 * number of move_pages calls made (>= 0), or a negative PMS_E* when a call
 * failed as a whole (nodes of the pages it covered are then that -errno). */
int pms_numa_oracle_resolve(struct pms_numa_oracle *o, const uint64_t *addrs, size_t n,
			    int *nodes);

/* The same for the pages of process pid (0 = the caller), whatever
 * opts.pid says: one oracle serves every process of a system-wide or
 * multi-process run, its cache keyed by (pid, page).  A pid can also be a
 * thread id (move_pages finds the task by id, mm/migrate.c find_mm_struct),
 * which is how a process held at exit is asked about. */
int pms_numa_oracle_resolve_pid(struct pms_numa_oracle *o, pid_t pid, const uint64_t *addrs,
				size_t n, int *nodes);

/* Cached node of addr's page (of opts.pid), or PMS_NODE_UNKNOWN; never makes
 * a syscall. */
int pms_numa_oracle_cached(const struct pms_numa_oracle *o, uint64_t addr);

/* Drop cached pages overlapping [start, start + len) (a new mapping or an
 * unmap there) of every process; len 0 drops everything. */
void pms_numa_oracle_invalidate(struct pms_numa_oracle *o, uint64_t start, uint64_t len);
/* The same for one process only (its MMAP, or len 0: it exited or exec'd;
 * each process's pages are kept apart, so len 0 frees that process's
 * cache whole, at a cost that does not grow with what it or the others
 * hold). */
void pms_numa_oracle_invalidate_pid(struct pms_numa_oracle *o, pid_t pid, uint64_t start,
				    uint64_t len);

/* Change the process asked about (drops the cache). */
void pms_numa_oracle_set_pid(struct pms_numa_oracle *o, pid_t pid);

/* Node of a physical address through the topology's memory blocks (no pid,
 * no syscall; works for memory-only nodes).  PMS_ENOENT when no block holds
 * it, PMS_ENOTSUP without block_size_bytes. */
int pms_numa_node_of_phys(const struct pms_topo *topo, uint64_t paddr);

void pms_numa_oracle_stats(const struct pms_numa_oracle *o, struct pms_numa_stats *out);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
