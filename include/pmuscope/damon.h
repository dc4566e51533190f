/* Memory-access profiling without a PMU: DAMON (Data Access MONitor,
 * /sys/kernel/mm/damon/admin) virtual-address monitoring of processes.
 *
 * DAMON samples page-table Accessed bits per adaptive address region.  Its
 * records are "how often was this range found accessed, and for how long has
 * that held" -- no instruction pointer, no data source, no latency.  Every
 * report carries that label.
 *
 * Safety: a session creates its OWN kdamond and writes only below the
 * kdamond it created.  DAMON sysfs rebuilds every kdamond directory when
 * nr_kdamonds is written (mm/damon/sysfs.c:1712-1723 in 6.12), so a kdamond
 * can be added without touching others only when there are none: with any
 * kdamond present, configured or running, the session refuses (PMS_EBUSY)
 * before writing anything.  It turns its kdamond off and removes it on
 * pms_damon_stop()/pms_damon_free(), also after any failure part-way.
 * All access goes through the seam (sys's root fd), so tests use a fake tree.
 *
 * Ownership: pms_damon_start() gives the caller a session released with
 * pms_damon_free(); sys and topo are borrowed and must outlive it.
 * pms_damon_report_build() gives a report released with
 * pms_damon_report_free(); its strings and arrays are owned by the report.
 * pms_damon_run_new() gives a run released with pms_damon_run_free(); sys,
 * topo and what its opts point to (argv, pids) are borrowed; the run owns
 * its command, session and report (the result's pointers are valid until
 * pms_damon_run_free).
 */
#ifndef PMUSCOPE_DAMON_H
#define PMUSCOPE_DAMON_H

#include "pmuscope/api.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmuscope/sys.h"
#include "pmuscope/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

PMS_API_BEGIN

/* Below the seam's root. */
#define PMS_DAMON_ADMIN "sys/kernel/mm/damon/admin"
#define PMS_DAMON_MAX_TARGETS 8
#define PMS_DAMON_MAX_NODES 64

/* What pms_damon_probe() found; it only reads. */
struct pms_damon_probe {
	bool usable;      /* DAMON sysfs present and no kdamond exists */
	int nr_kdamonds;  /* kdamonds that exist now, -1 when unreadable */
	int running;      /* of those, how many read "on" */
	char reason[256]; /* one sentence: why (not) usable */
};
int pms_damon_probe(struct pms_sys *sys, struct pms_damon_probe *out);

/* The sampler ladder's place for DAMON: after the precise engines (IBS,
 * PEBS, SPE), before software page faults.  Runs the ladder's probe
 * (pms_sampler_probe, which opens and closes one probe event per candidate)
 * and pms_damon_probe; *use_damon is true when no precise engine opens and
 * DAMON is usable.  reason gets one sentence saying why, either way. */
struct pms_pmus;
int pms_damon_choose(struct pms_sys *sys, const struct pms_pmus *pmus,
		     const struct pms_topo *topo, bool *use_damon, char *reason,
		     size_t reason_len);

#define PMS_DAMON_OPTS_VERSION 1
struct pms_damon_opts {
	unsigned version;           /* PMS_DAMON_OPTS_VERSION */
	const pid_t *pids;          /* processes to monitor (1..PMS_DAMON_MAX_TARGETS) */
	size_t npids;
	uint64_t sample_us;         /* sampling interval; 0 = 5000 (DAMON's default) */
	uint64_t aggr_us;           /* aggregation interval; 0 = 100000 */
	uint64_t update_us;         /* regions update interval; 0 = 1000000 */
	uint64_t min_regions;       /* 0 = 10 */
	uint64_t max_regions;       /* 0 = 1000 */
	unsigned pages_per_region;  /* pages asked for their node per region and
				     * snapshot; 0 = 4 */
};
#define PMS_DAMON_OPTS_INIT { PMS_DAMON_OPTS_VERSION, NULL, 0, 0, 0, 0, 0, 0, 0 }

/* The session's state machine.  IDLE -> ADDED (our kdamond exists) ->
 * CONFIGURED -> RUNNING -> (target gone: STOPPED) -> REMOVED.  A failure
 * before RUNNING removes what was added and ends in REMOVED. */
enum pms_damon_state {
	PMS_DAMON_IDLE = 0,
	PMS_DAMON_ADDED,
	PMS_DAMON_CONFIGURED,
	PMS_DAMON_RUNNING,
	PMS_DAMON_STOPPED, /* our kdamond reads "off" (targets exited) */
	PMS_DAMON_REMOVED,
};
const char *pms_damon_state_name(enum pms_damon_state s);

struct pms_damon_region {
	uint64_t start, end;  /* [start, end) */
	uint32_t nr_accesses; /* samples found accessed in the last aggregation */
	uint32_t age;         /* aggregations this access level has held */
};

struct pms_damon_snapshot {
	uint64_t t_us;              /* since pms_damon_start() */
	unsigned target;            /* index into opts.pids */
	struct pms_damon_region *regions;
	size_t nregions;
	/* threads of the target seen on a CPU of node i at this snapshot (the
	 * last CPU each ran on, /proc/PID/task/TID/stat), not per access */
	uint16_t thread_nodes[PMS_DAMON_MAX_NODES];
};

struct pms_damon;

/* Create our kdamond (refusing with PMS_EBUSY when any kdamond exists or
 * DAMON refuses to start because another user runs it exclusively;
 * PMS_EPERM without the privilege; PMS_ENOTSUP without DAMON sysfs or vaddr
 * support), configure one vaddr context with a "stat" scheme per target to
 * read its regions, and turn it on.  topo (optional) gives the NUMA oracle
 * its nodes and thread CPUs their node. */
int pms_damon_start(struct pms_sys *sys, const struct pms_topo *topo,
		    const struct pms_damon_opts *opts, struct pms_damon **out);

enum pms_damon_state pms_damon_state(const struct pms_damon *d);
/* The kdamond directory we created, below the root ("" before ADDED). */
const char *pms_damon_kdamond_dir(const struct pms_damon *d);

/* Ask the kernel for the regions of the last aggregation
 * (update_schemes_tried_regions, which returns once the kdamond has filled
 * schemes/N/tried_regions), read them, the targets' mappings, the nodes of a
 * few pages per region (batched move_pages) and the threads' CPUs, and keep
 * them.  Returns the number of snapshots added, or PMS_ENOENT once the
 * kdamond has stopped by itself (every target exited; state STOPPED). */
int pms_damon_sample(struct pms_damon *d);

const struct pms_damon_snapshot *pms_damon_snapshots(const struct pms_damon *d,
						     size_t *count);
/* The pid of target index t. */
pid_t pms_damon_pid(const struct pms_damon *d, unsigned t);

/* Turn our kdamond off and remove it (nr_kdamonds 0, only while ours is the
 * only one).  Idempotent; not async-signal-safe (call it after the signal
 * handler returned).  The first failure is returned, and cleanup continues
 * past it. */
int pms_damon_stop(struct pms_damon *d);
/* Stops first when needed. */
void pms_damon_free(struct pms_damon *d);

/* ---- the report ------------------------------------------------------- */

enum pms_damon_heat { PMS_DAMON_COLD = 0, PMS_DAMON_WARM, PMS_DAMON_HOT };
const char *pms_damon_heat_name(enum pms_damon_heat h);

/* Sampled pages of a range, by node. */
struct pms_damon_nodes {
	uint32_t sampled;                      /* pages asked about */
	uint32_t absent;                       /* not present / not mapped */
	uint32_t pages[PMS_DAMON_MAX_NODES];   /* pages[i]: on node i */
	int node;                              /* the most pages, -1 if none */
};

/* A range of one target whose heat was alike over the run: DAMON regions of
 * every snapshot cut on each other's boundaries, neighbours of the same
 * mapping and heat class joined. */
struct pms_damon_range {
	unsigned target;
	uint64_t start, end;
	double heat;          /* sum over snapshots of access frequency x bytes */
	double share;         /* heat / total heat */
	double freq_mean;     /* mean access frequency (0..1 of samples) */
	double freq_max;
	uint32_t age_max;
	enum pms_damon_heat heat_class;
	const char *object;   /* mapping: file path, [heap], [stack], [anon] */
	uint64_t object_start;
	struct pms_damon_nodes nodes;
};

/* One mapping (data object) of a target; "[unmapped]" (DAMON regions over
 * no mapping) has start = end = 0. */
struct pms_damon_object {
	unsigned target;
	uint64_t start, end;
	uint64_t bytes;       /* monitored bytes of it (in some region) */
	const char *name;
	double heat, share, freq_mean;
	struct pms_damon_nodes nodes;
};

/* Heat at one snapshot: where it was. */
struct pms_damon_step {
	uint64_t t_us;
	unsigned target;
	double heat;                /* this snapshot's sum of freq x bytes */
	uint64_t hot_start, hot_end; /* its hottest region (highest frequency) */
	double hot_freq;
	const char *hot_object;
	double heat_on_node[PMS_DAMON_MAX_NODES]; /* by the node of sampled pages */
};

/* Heat by CPU node (of the threads) x memory node (of the pages). */
struct pms_damon_cpu_node {
	int node;
	double heat;          /* heat weighted by threads on this node */
	double remote_heat;   /* ... on pages of another node */
	double remote_share;  /* remote_heat / heat (0 when heat is 0) */
};

struct pms_damon_report {
	const char *label;    /* what the numbers are and are not */
	struct pms_damon_opts attrs; /* effective intervals/limits */
	pid_t pids[PMS_DAMON_MAX_TARGETS];
	size_t npids;
	size_t nsnapshots;
	uint64_t duration_us;
	double max_nr_accesses; /* aggr_us / sample_us: frequency 1.0 */
	double total_heat;
	struct pms_damon_range *ranges;   /* by heat, descending */
	size_t nranges;
	struct pms_damon_object *objects; /* by heat, descending */
	size_t nobjects;
	struct pms_damon_step *steps;     /* in time order */
	size_t nsteps;
	struct pms_damon_cpu_node *cpu_nodes;
	size_t ncpu_nodes;
	int nnodes;                       /* node ids < nnodes appear above */
};

#define PMS_DAMON_REPORT_OPTS_VERSION 1
struct pms_damon_report_opts {
	unsigned version;
	size_t top;            /* ranges kept (0 = all) */
	double hot_ratio;      /* HOT when freq_mean >= this x the hottest; 0 = 0.25 */
	double cold_ratio;     /* COLD when freq_mean < this x the hottest; 0 = 0.05 */
};
#define PMS_DAMON_REPORT_OPTS_INIT { PMS_DAMON_REPORT_OPTS_VERSION, 0, 0, 0 }

int pms_damon_report_build(const struct pms_damon *d,
			   const struct pms_damon_report_opts *opts,
			   struct pms_damon_report **out);
void pms_damon_report_free(struct pms_damon_report *r);

/* ---- a whole run ------------------------------------------------------ */

/* What `pmuscope mem --engine damon` does between its arguments and its
 * report: start the command (held before its exec, so DAMON watches its pid
 * across the exec) unless pids are given, start the session, let the
 * command exec, sample until the command ends, the targets exit, duration_s
 * passes or pms_damon_run_stop; then turn the kdamond off and remove it
 * before anything else can fail, end the command (the stop signal, else
 * SIGTERM) and build the report.  The library prints nothing: progress is
 * a callback; signals are the caller's (its handler calls
 * pms_damon_run_stop, async-signal safe). */
struct pms_damon_run;

struct pms_damon_run_progress {
	size_t snapshots;   /* kept so far */
	double seconds;     /* since the session started sampling */
};

#define PMS_DAMON_RUN_OPTS_VERSION 1
struct pms_damon_run_opts {
	unsigned version;                 /* PMS_DAMON_RUN_OPTS_VERSION */
	const struct pms_damon_opts *damon; /* intervals, limits, pids (NULL: defaults) */
	char *const *argv;                /* started when damon has no pids (execvp) */
	double duration_s;                /* 0: no limit */
	const struct pms_damon_report_opts *report; /* NULL: defaults */
	/* after each snapshot; may be NULL */
	void (*progress)(void *ud, const struct pms_damon_run_progress *p);
	void *ud;
};
#define PMS_DAMON_RUN_OPTS_INIT { PMS_DAMON_RUN_OPTS_VERSION, NULL, NULL, 0, NULL, NULL, NULL }

/* Where a failed run failed; pms_error_last() says why. */
enum pms_damon_run_stage {
	PMS_DAMON_RUN_OK = 0,
	PMS_DAMON_RUN_SPAWN,    /* starting the command */
	PMS_DAMON_RUN_START,    /* pms_damon_start refused (the command never ran) */
	PMS_DAMON_RUN_EXEC,     /* the command could not be executed */
	PMS_DAMON_RUN_REPORT,   /* building the report */
};

struct pms_damon_run_result {
	enum pms_damon_run_stage failed;
	const char *outcome;        /* why sampling ended: "the command exited",
				     * "--duration reached", "interrupted (SIGINT)",
				     * "the targets exited (kdamond stopped by itself)" ... */
	int stop_signal;            /* given to pms_damon_run_stop, 0 none */
	bool have_status;           /* the command's wait status is known */
	int status;
	int term_signal;            /* the signal that killed the command (not
				     * after a stop), 0 none */
	bool sample_failed;         /* reading DAMON's regions failed (not after a
				     * stop): sampling ended there */
	char sample_error[512];     /* its message */
	int cleanup_rc;             /* pms_damon_stop's */
	char cleanup_msg[600];      /* its message when it failed */
	char kdamond_dir[256];      /* the kdamond the run created, below the root */
	/* 128 + stop_signal; else the command's pms_exit_code; 0; and 1 when
	 * the cleanup failed */
	int exit_code;
	const struct pms_damon *session;       /* NULL when it never started */
	const struct pms_damon_report *report; /* NULL on failure */
};

/* Check the options (PMS_EINVAL: neither pids nor argv, or both).  Nothing
 * starts until pms_damon_run. */
int pms_damon_run_new(struct pms_sys *sys, const struct pms_topo *topo,
		      const struct pms_damon_run_opts *opts, struct pms_damon_run **out);
/* The run (above); 0, or the first error (result's failed says where; the
 * kdamond is removed and the command killed on every failure). */
int pms_damon_run(struct pms_damon_run *run);
/* End the sampling at its next step with signal sig as the reason (128 +
 * sig the exit code, sig forwarded to the command); async-signal safe. */
void pms_damon_run_stop(struct pms_damon_run *run, int sig);
const struct pms_damon_run_result *pms_damon_run_result(const struct pms_damon_run *run);
/* Removes the kdamond when still there, kills a command still running, and
 * frees the session and report.  NULL is accepted. */
void pms_damon_run_free(struct pms_damon_run *run);


PMS_API_END

#ifdef __cplusplus
}
#endif
#endif
