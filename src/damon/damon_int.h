/* Internal: the DAMON session (src/damon/damon.c) as the report sees it. */
#ifndef PMS_DAMON_INT_H
#define PMS_DAMON_INT_H

#include "pmuscope/damon.h"

struct pms_numa_oracle;
struct pms_maps;

/* One page asked about: node >= 0, -1 unknown (no oracle), -2 absent. */
struct pms_damon_page {
	uint64_t addr;
	unsigned target;
	int node;
	size_t snap;
};

struct pms_damon {
	struct pms_sys *sys;
	const struct pms_topo *topo;
	struct pms_damon_opts opts; /* defaults filled, pids NULL */
	pid_t pids[PMS_DAMON_MAX_TARGETS];
	size_t npids;
	enum pms_damon_state state;
	char kdir[256];             /* our kdamond, below the root */
	uint64_t t0;
	struct pms_numa_oracle *oracle[PMS_DAMON_MAX_TARGETS];
	struct pms_maps *maps[PMS_DAMON_MAX_TARGETS];
	struct pms_damon_snapshot *snaps;
	size_t nsnaps, snaps_cap;
	struct pms_damon_page *pages;
	size_t npages, pages_cap;
};

/* The effective intervals and region limits (defaults filled in). */
void pms_damon_effective(const struct pms_damon *d, struct pms_damon_opts *out);

/* The mapping addr of target falls in, from its /proc/PID/maps as read at
 * the snapshots: a file path, [heap], [stack], [anon] or [unmapped]. */
const char *pms_damon_object_name(const struct pms_damon *d, unsigned target, uint64_t addr);

/* "DAMON access-frequency regions: no IP, no data source, no latency ..." */
const char *pms_damon_label(void);

#endif
