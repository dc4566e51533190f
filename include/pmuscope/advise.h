/* The NUMA placement advisor and page migration.
 *
 * The advisor takes resolved memory samples (address, the node holding its
 * page, the node of the CPU that touched it, latency where the engine
 * measures it), groups them by the data objects of a finished `pmuscope mem`
 * report (and by hot page ranges outside them), and plans for each: move it
 * to a node, interleave it across nodes, move the threads instead, or leave
 * it, with the reason, the predicted effect, how sure it is (Wilson interval
 * on the remote share) and what a move costs (bytes, pages).  It never moves
 * anything: pms_migrate_range() does, through the seam's move_pages, only
 * when called.  Decision rules and their sources: docs/advise.md.
 *
 * Ownership: pms_advisor_new() gives the caller an advisor released with
 * pms_advisor_free(); pms_advisor_plan() gives a plan released with
 * pms_advice_free(), which owns every pointer inside it.  topo, sys and
 * reports passed in are borrowed (topo must outlive the advisor).
 */
#ifndef PMUSCOPE_ADVISE_H
#define PMUSCOPE_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmuscope/report.h"
#include "pmuscope/sys.h"
#include "pmuscope/topo.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

#define PMS_ADVISE_OPTS_VERSION 1
struct pms_advise_opts {
	unsigned version;       /* PMS_ADVISE_OPTS_VERSION */
	uint64_t min_samples;   /* fewer resolved samples: leave it; 0 = 30 */
	double hot_share;       /* share of all resolved samples that makes an object
				 * or page range hot; 0 = 0.02 */
	double min_gain;        /* smallest predicted cost reduction worth a move;
				 * 0 = 0.10 */
	double shared_share;    /* a CPU node with at least this share of the
				 * accesses counts as a sharer; 0 = 0.25 */
	double read_mostly;     /* store share at or below which shared data is
				 * read-mostly; 0 = 0.10 */
	double local_enough;    /* leave it when the remote share's upper bound is
				 * below this; 0 = 0.10 */
	uint64_t headroom;      /* bytes a target node keeps free; 0 = 64 MiB */
	size_t page_size;       /* 0 = 4096 */
	size_t max_items;       /* 0 = 16 */
	/* The engine tells no loads from stores (no data source): shared data
	 * is taken as read-mostly, and the reason says it was assumed. */
	bool stores_unknown;
};
#define PMS_ADVISE_OPTS_INIT { PMS_ADVISE_OPTS_VERSION, 0, 0, 0, 0, 0, 0, 0, 0, 0, false }

enum pms_advice_action {
	PMS_ADVICE_LEAVE = 0,
	PMS_ADVICE_MOVE,         /* move (bind) the memory to target */
	PMS_ADVICE_INTERLEAVE,   /* interleave it across nodes[] */
	PMS_ADVICE_MOVE_THREADS, /* run the accessing threads on target instead */
};
const char *pms_advice_action_name(enum pms_advice_action a);

/* Accesses of one node: as the CPU node that made them, or as the memory
 * node that served them. */
struct pms_advice_node {
	int node;
	uint64_t accesses;
	double share;          /* of the item's accesses */
	uint64_t pages;        /* memory nodes: distinct sampled pages held there */
	double cost;           /* CPU nodes: mean cost of their accesses now (mean
				* latency where measured, else SLIT distance) */
	uint64_t latency_n;    /* accesses with a measured latency */
	double latency_mean;   /* their mean weight (cycles), 0 if none */
};

struct pms_advice_item {
	char *name;            /* object name, or "[pages]" for a hot page range */
	char *kind;            /* the report's kind ("anon", "heap" ...) or "pages" */
	uint32_t pid;          /* 0 = any (the report's process) */
	uint64_t start, end;   /* address range [start, end) */
	uint64_t samples;      /* resolved accesses with a known CPU node */
	uint64_t stores;
	double store_share;
	uint64_t remote;       /* of samples, served by another node than the CPU's */
	double remote_share;   /* remote / samples */
	double remote_lo, remote_hi; /* Wilson 95 % interval of remote_share */
	bool sure;             /* enough samples and a narrow interval */
	struct pms_advice_node *cpus; /* accessing CPU nodes, most accesses first */
	size_t ncpus;
	struct pms_advice_node *mems; /* nodes holding it (sampled pages), most first */
	size_t nmems;
	uint64_t pages_sampled;
	bool latency_measured; /* costs are mean latencies, not distances */
	enum pms_advice_action action;
	int target;            /* MOVE / MOVE_THREADS: the node; else -1 */
	int *nodes;            /* INTERLEAVE: the nodes */
	size_t nnodes;
	double cost_now;       /* mean SLIT distance per access now */
	double cost_after;     /* ... predicted after the action */
	double predicted_remote; /* remote share predicted after the action */
	uint64_t move_pages;   /* estimated pages to move (from the sampled pages'
				* nodes scaled to the range) */
	uint64_t move_bytes;
	char reason[320];      /* why this action (or why it is left) */
};

struct pms_advice {
	struct pms_advice_item *items; /* hottest first */
	size_t nitems;
	uint64_t samples;          /* resolved samples with a CPU node seen */
	bool distances_assumed;    /* no distance matrix: 10 local, 20 remote */
	bool capacity_checked;     /* node free memory was known */
	size_t page_size;
};

struct pms_advisor;

/* topo may be NULL (a recorded file: distances are assumed, capacity is not
 * checked, every node seen is a candidate). */
int pms_advisor_new(const struct pms_topo *topo, const struct pms_advise_opts *opts,
		    struct pms_advisor **out);
void pms_advisor_free(struct pms_advisor *a);

/* One sample: pid (0 = any), data address, the node holding the page
 * (< 0: not resolved, ignored), the CPU's node (< 0: unknown, ignored),
 * its latency weight (0 = none) and whether it was a store. */
int pms_advisor_add(struct pms_advisor *a, uint32_t pid, uint64_t addr, int mem_node,
		    int cpu_node, uint64_t weight, bool store);
/* Every kept sample of a report (its `all` array; nothing in aggregate
 * mode, whose samples must be given one by one with pms_advisor_add). */
int pms_advisor_add_report(struct pms_advisor *a, const struct pms_memreport *r);

/* Plan for the report's data objects (r may be NULL: hot page ranges only)
 * and the hot page ranges outside them. */
int pms_advisor_plan(const struct pms_advisor *a, const struct pms_memreport *r,
		     struct pms_advice **out);
void pms_advice_free(struct pms_advice *p);

/* What the advisor saw in [start, end) of pid (0 = any): the same counts as
 * a plan item (for before/after comparisons on the same range). */
struct pms_advice_range {
	uint64_t samples, remote, stores;
	double remote_share, remote_lo, remote_hi;
	uint64_t latency_n;
	double latency_mean;
	struct pms_advice_node *mems;  /* accesses per memory node, most first */
	size_t nmems;
};
int pms_advisor_range(const struct pms_advisor *a, uint32_t pid, uint64_t start, uint64_t end,
		      struct pms_advice_range *out);
void pms_advice_range_release(struct pms_advice_range *r);

/* Wilson score interval (95 %, z = 1.96) of k successes out of n. */
void pms_wilson(uint64_t k, uint64_t n, double *lo, double *hi);

/* ---- migration ----------------------------------------------------------- */

#define PMS_MIGRATE_OPTS_VERSION 1
struct pms_migrate_opts {
	unsigned version;     /* PMS_MIGRATE_OPTS_VERSION */
	size_t batch;         /* pages per move_pages call; 0 = 512 */
	size_t page_size;     /* 0 = 4096 */
	/* Refuse before moving anything when the pages to move exceed a
	 * target's free memory less headroom (topo: its nodes' mem_free);
	 * NULL = not checked. */
	const struct pms_topo *topo;
	uint64_t headroom;    /* 0 = none */
};
#define PMS_MIGRATE_OPTS_INIT { PMS_MIGRATE_OPTS_VERSION, 0, 0, NULL, 0 }

#define PMS_MIGRATE_MAX_ERRNOS 16
struct pms_migrate_result {
	uint64_t pages;        /* pages in the range */
	uint64_t already;      /* on their target before */
	uint64_t moved;        /* on their target after, not before */
	uint64_t not_present;  /* never touched (-ENOENT) or not mapped (-EFAULT)
				* before: nothing to move */
	uint64_t failed;       /* present, not on the target after the move */
	/* failed pages by the reason move_pages gave (per-page status, or the
	 * call's error for the pages it did not report); errnos positive */
	struct { int err; uint64_t pages; } errs[PMS_MIGRATE_MAX_ERRNOS];
	size_t nerrs;
	uint64_t calls;        /* move_pages calls (queries included) */
	uint64_t after_on_target; /* pages the final query found on their target */
	int call_errno;        /* first whole-call failure's errno, 0 if none */
	uint64_t retried;      /* pages moved again after a busy answer (EAGAIN,
				* EBUSY; up to PMS_MIGRATE_RETRIES more tries each) */
};

#define PMS_MIGRATE_RETRIES 3

/* Move the pages of [start, end) of process pid (0 = the caller) to
 * nodes[i % nnodes] (one node: move; several: interleave page by page),
 * in batches: query, move what is elsewhere, query again.  Returns 0 when
 * the calls ran (per-page failures are in *res, counted by errno), or a
 * negative PMS_E* when nothing could be done (the process is gone or not
 * ours to move, a node has no memory or no room); *res is filled in both
 * cases. */
int pms_migrate_range(struct pms_sys *sys, pid_t pid, uint64_t start, uint64_t end,
		      const int *nodes, size_t nnodes, const struct pms_migrate_opts *opts,
		      struct pms_migrate_result *res);

/* One migration of a plan's item (pms_advice_apply). */
struct pms_advice_applied {
	size_t item;                  /* index into plan->items */
	int rc;                       /* pms_migrate_range's result */
	char err[256];                /* its message when rc < 0 */
	struct pms_migrate_result res;
};

/* --apply: move pid's pages of every MOVE item of plan to its target and
 * interleave those of every INTERLEAVE item over its nodes
 * (pms_migrate_range with opts), in plan order, one row each; a failed
 * item is kept with its message and the next one is tried.  *out (free()
 * it) gets *n rows, none for other actions or pid <= 0.  PMS_ENOMEM or
 * PMS_EINVAL (NULL argument) when nothing was tried. */
int pms_advice_apply(struct pms_sys *sys, pid_t pid, const struct pms_advice *plan,
		     const struct pms_migrate_opts *opts, struct pms_advice_applied **out,
		     size_t *n);

/* ---- allocation sites (issue 28) ------------------------------------------
 * Advice per allocation site: the samples of a report attributed to sites
 * (sample_site[i] for r->all[i], -1 none, as pms_alloc_report's), their CPU
 * and memory nodes, and the blocks of the site that the samples fell in
 * (lookup names the allocation that held a sample's address at its time).
 * --apply moves only those blocks' pages (pms_site_apply). */
struct pms_site_block {
	uint32_t pid;
	uint64_t start, end;   /* the allocation's bytes [start, end) */
};
/* The allocation of pid holding addr at time: true and its bytes, or false. */
typedef bool (*pms_site_lookup)(void *ud, uint32_t pid, uint64_t addr, uint64_t time,
				uint64_t *start, uint64_t *end);

struct pms_site_advice {
	size_t site;            /* the caller's site index */
	uint64_t samples;       /* samples attributed to the site */
	double share;           /* of all samples attributed to a site */
	uint64_t resolved;      /* with a memory node and a CPU node */
	uint64_t remote;        /* ... on different nodes */
	double remote_share, remote_lo, remote_hi; /* Wilson 95 % */
	int from_node;          /* the CPU node most remote accesses came from, -1 none */
	double from_share;      /* its share of the remote accesses */
	struct pms_advice_node *cpus; /* accesses by CPU node, most first */
	size_t ncpus;
	struct pms_advice_node *mems; /* accesses by memory node, most first */
	size_t nmems;
	enum pms_advice_action action; /* MOVE, INTERLEAVE or LEAVE */
	int target;             /* MOVE: the node; else -1 */
	int *nodes;             /* INTERLEAVE: the nodes */
	size_t nnodes;
	struct pms_site_block *blocks; /* sampled blocks, by pid and address */
	size_t nblocks;
	uint64_t bytes;         /* their bytes summed */
	char reason[256];
};
struct pms_site_plan {
	struct pms_site_advice *items; /* most samples first; sites with none left out */
	size_t nitems;
	uint64_t placed;        /* samples attributed to a site */
};
/* opts as pms_advisor_new's (min_samples, hot_share, shared_share,
 * local_enough; NULL: defaults). */
int pms_site_plan_new(const struct pms_memreport *r, const long *sample_site, size_t nsample_site,
		      pms_site_lookup lookup, void *ud, const struct pms_advise_opts *opts,
		      struct pms_site_plan **out);
void pms_site_plan_free(struct pms_site_plan *p);
/* Move the pages of it's blocks (whole pages: a page shared with another
 * allocation moves too) to its target, or interleave them; results summed
 * into *res.  LEAVE: nothing, 0.  Errors as pms_migrate_range's (the first
 * one; the next blocks are still tried). */
int pms_site_apply(struct pms_sys *sys, const struct pms_site_advice *it,
		   const struct pms_migrate_opts *opts, struct pms_migrate_result *res);
/* Report r's samples inside it's blocks (the re-measure): counts as a
 * pms_advisor_range's (no latency or store fields). */
void pms_site_measure(const struct pms_site_advice *it, const struct pms_memreport *r,
		      struct pms_advice_range *out);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
