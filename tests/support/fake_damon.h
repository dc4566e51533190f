/* A fake DAMON sysfs (mm/damon/sysfs.c, sysfs-schemes.c of Linux 6.12) in a
 * temporary directory laid out like /sys/kernel/mm/damon/admin, behind the
 * seam's write_file op: writes to nr_* files make and remove directories,
 * "state" runs the commands, every write is logged.  Reads are plain files.
 * move_pages answers from address ranges -> node.
 *
 * Ownership: fdm_new() returns a fake released with fdm_free() (which removes
 * the tree); it must outlive every pms_sys built on fdm_ops().
 */
#ifndef PMS_TESTS_FAKE_DAMON_H
#define PMS_TESTS_FAKE_DAMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/damon.h"
#include "pmuscope/sys.h"

#define FDM_MAX_WRITES 4096
#define FDM_MAX_REGIONS 256
#define FDM_MAX_NODE_RANGES 16

struct fdm {
	char root[64];
	struct pms_sys_ops ops;
	/* log: every write_file call, path below the root and the result */
	char *writes[FDM_MAX_WRITES];
	int results[FDM_MAX_WRITES];
	size_t nwrites;
	/* knobs */
	const char *fail_path;  /* a write whose path ends with this fails ... */
	int fail_errno;         /* ... with -fail_errno */
	bool exclusive_busy;    /* "on" -> -EBUSY (core.c:1104 damon_start) */
	int busy_writes;        /* the next N writes fail -EBUSY (trylock, sysfs.c:1604) */
	bool other_writer;      /* after our nr_kdamonds write, someone makes it 2 */
	int live_pids[8];       /* pids "on" accepts (0 ends the list) */
	/* the regions each target's scheme is tried on, per update */
	struct pms_damon_region regions[PMS_DAMON_MAX_TARGETS][FDM_MAX_REGIONS];
	size_t nregions[PMS_DAMON_MAX_TARGETS];
	void (*on_update)(struct fdm *f, unsigned round, void *ud);
	void *ud;
	unsigned updates;
	/* move_pages: [start, end) -> node; other addresses -EFAULT */
	struct { uint64_t start, end; int node; } node_ranges[FDM_MAX_NODE_RANGES];
	size_t nnode_ranges;
	long move_pages_calls;
	int move_pages_err; /* non-zero: every call fails with -this (process gone) */
};

struct fdm *fdm_new(void);
void fdm_free(struct fdm *f);
const struct pms_sys_ops *fdm_ops(struct fdm *f);
/* Write a plain file below the root, making its directories. */
void fdm_put(struct fdm *f, const char *rel, const char *text);
/* Read a file below the root (malloc'd, NULL when absent). */
char *fdm_get(struct fdm *f, const char *rel);
/* Someone else's kdamond 0, configured (and "on" when running), made
 * without going through the seam. */
void fdm_preexisting(struct fdm *f, bool running);
/* Every target exited: the kdamond stops by itself (core.c:1890-1905). */
void fdm_targets_exit(struct fdm *f);
/* Every path and content below the root, sorted, as one string (malloc'd). */
char *fdm_digest(struct fdm *f);

#endif
