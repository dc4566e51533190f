/* The allocation table's insides, shared by table.c (records in),
 * lookup.c (address and time to an allocation, clock calibration) and
 * sites.c (samples by site, the report). */
#ifndef PMS_ALLOC_INT_H
#define PMS_ALLOC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/alloc.h"

struct hent {
	uint64_t key, val;
	bool used;
};
struct hmap {
	struct hent *e;
	size_t cap, n;
};
int pms_alloc_hmap_put(struct hmap *h, uint64_t key, uint64_t val);
bool pms_alloc_hmap_get(const struct hmap *h, uint64_t key, uint64_t *val);
bool pms_alloc_hmap_del(struct hmap *h, uint64_t key, uint64_t *val);
void pms_alloc_hmap_free(struct hmap *h);

struct aproc {
	uint32_t space;           /* its file's (pms_alloc_table_set_space) */
	uint32_t pid, parent;     /* parent: the process it was forked from, 0 none */
	uint64_t fork_time, exec_time; /* CLOCK_MONOTONIC; exec_time 0: none */
	struct hmap open;         /* addr -> index of its open allocation */
	struct hmap inh_free;     /* a forked child: inherited block -> its free time */
	struct hmap ended;        /* addr -> 1: a block there was ended by the next
				   * allocation before its free was read */
	size_t *small, nsmall, csmall; /* allocation indexes, sorted by address */
	size_t *large, nlarge, clarge; /* ... of blocks over SMALL_MAX */
	bool sorted;
};

struct asite {
	size_t frames, nframes;   /* into the table's frames */
	uint32_t space, pid;
	uint32_t tid;             /* PMS_ALLOC_THREAD_STACK / TLS: the thread */
	uint8_t kind;
	long next_same;           /* next site with the same frames hash, -1 */
	uint64_t allocs, bytes;
	double est_bytes, est_count;
};

struct calpt {
	uint64_t mono;
	int64_t offset;           /* perf time - CLOCK_MONOTONIC */
};

struct pms_alloc_table {
	struct aproc *procs;
	size_t nprocs, cprocs;
	struct pms_alloc_info *allocs; /* times CLOCK_MONOTONIC inside */
	size_t nallocs, callocs;
	struct asite *sites;
	size_t nsites, csites;
	uint64_t *frames;
	size_t nframes, cframes;
	struct hmap site_map;     /* frames hash -> first site */
	struct calpt *cal;
	size_t ncal, ccal;
	bool read_done;           /* pms_alloc_table_read_fd ran */
	uint32_t space;           /* records fed now go to this space's processes */
	struct pms_alloc_stats st;
};

/* One record in (table.c): 0 or a negative PMS_E*. */
int pms_alloc_table_feed_one(struct pms_alloc_table *t, const struct pms_alloc_rec *r,
			     const uint64_t *f);

/* The lookup in one process space (lookup.c). */
long pms_alloc_table_lookup_in(struct pms_alloc_table *t, uint32_t space, uint32_t pid,
			       uint64_t addr, uint64_t time, struct pms_alloc_info *info);

/* The stream file on fd as records back to back in time order (equal
 * times in the order of their chunk), in *out (malloc'd, the caller frees):
 * what `mem -o` writes into the perf.data (docs/mem.md).  A file without
 * the stream's magic is given as it is.  0 or a negative PMS_E*. */
int pms_alloc_stream_read(int fd, void **out, size_t *len);

#endif
