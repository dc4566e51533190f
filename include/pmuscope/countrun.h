/* A counting run: what `pmuscope stat` does between its arguments and its
 * table.  Start the command (or watch a process, a thread or CPUs), open the
 * counters, read them every interval and at the end, repeat the command N
 * times with the means and their relative standard deviation (perf stat -r),
 * retry the default event set for user space only (':u') when the kernel
 * refuses it for privilege, and keep the command's exit code and the
 * children's CPU times.  Also: the default event set, and perf stat's
 * derived metrics of a row (CPUs utilized, events per second, IPC, GHz).
 *
 * The library prints nothing: the ':u' retry and each interval are
 * callbacks; the final rows are in the result.  Signals are the caller's:
 * its handler calls pms_countrun_stop() (async-signal safe).
 *
 * Ownership: pms_countrun_new() gives the caller a run released with
 * pms_countrun_free(); sys, pmus, topo and what opts points to (argv, cpus,
 * the catalog in parse) are borrowed and must outlive the run.  The result,
 * its rows and the counter belong to the run (valid until the next
 * pms_countrun_run or pms_countrun_free).
 */
#ifndef PMUSCOPE_COUNTRUN_H
#define PMUSCOPE_COUNTRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "pmuscope/count.h"
#include "pmuscope/event.h"
#include "pmuscope/pmu.h"
#include "pmuscope/sys.h"
#include "pmuscope/topo.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* The default set: task-clock, context-switches, cpu-migrations,
 * page-faults, and cycles, instructions where a core PMU exists; user_only
 * adds ':u' to each.  Returns what snprintf returns. */
int pms_count_default_events(const struct pms_pmus *pmus, bool user_only, char *buf,
			     size_t size);

/* Whether a row counted: it was enabled and some instance ran.  cum (may be
 * NULL) is the cumulative row an interval's delta row came from: it decides
 * then (an idle interval of a counted task is 0, not "not counted"). */
bool pms_count_row_counted(const struct pms_count_row *row, const struct pms_count_row *cum);

/* perf stat's derived metric of rows[i] (tools/perf/util/stat-shadow.c): the
 * clocks' CPUs utilized over elapsed_s, the software events per second of
 * task-clock ("/sec", "K/sec", "M/sec", "G/sec"), instructions per cycle,
 * and the cycles' GHz, each from the row of the same bucket.  cum (may be
 * NULL) as pms_count_row_counted's, per row.  false when none applies. */
bool pms_count_metric(const struct pms_count_row *rows, size_t n, size_t i,
		      const struct pms_count_row *cum, double elapsed_s, double *value,
		      const char **unit);

/* Where a failed run failed (pms_countrun_result()->failed); the error's
 * message is pms_error_last(), PMS_COUNTRUN_EXEC's errno pms_error_errno(). */
enum pms_countrun_stage {
	PMS_COUNTRUN_OK = 0,
	PMS_COUNTRUN_EVENTS,    /* parsing the events (or the ':u' retry's) */
	PMS_COUNTRUN_SPAWN,     /* starting the command */
	PMS_COUNTRUN_OPEN,      /* opening the counters */
	PMS_COUNTRUN_EXEC,      /* the command could not be executed */
	PMS_COUNTRUN_READ,      /* reading the counters at an interval */
	PMS_COUNTRUN_FINAL,     /* reading the counters at the end */
	PMS_COUNTRUN_AGGREGATE, /* aggregating the rows */
	PMS_COUNTRUN_RUNS,      /* a repeated run gave another number of rows,
				 * or no memory for the statistics */
};

struct pms_countrun;

/* One interval: rows minus the previous interval's (the first: since the
 * start), and the cumulative rows they came from. */
struct pms_countrun_interval {
	double t;            /* seconds since the start, at this read */
	double elapsed;      /* seconds of this interval */
	const struct pms_count_row *rows;
	const struct pms_count_row *cum;
	size_t nrows;
	const struct pms_counter *counter;
};

struct pms_countrun_callbacks {
	/* The default set was refused for privilege (why: the refusal); the
	 * run goes on with the set for user space only.  May be NULL. */
	void (*user_only)(void *ud, const char *why);
	/* Every interval_ms, and once more when the target ends.  May be NULL. */
	void (*interval)(void *ud, const struct pms_countrun_interval *iv);
};

#define PMS_COUNTRUN_OPTS_VERSION 1
struct pms_countrun_opts {
	unsigned version;          /* PMS_COUNTRUN_OPTS_VERSION */
	const char *events;        /* NULL: pms_count_default_events, retried
				    * with ':u' when refused with PMS_EPERM */
	const struct pms_event_parse_opts *parse; /* NULL: the defaults */
	/* target (PID, TID, CPUS; CHILD is set for argv), pid, cpus, strict,
	 * no_inherit, skip_unsupported.  NULL: the defaults. */
	const struct pms_count_opts *count;
	char *const *argv;         /* a command started for each run (execvp),
				    * its pid the target unless CPUS; NULL: none */
	enum pms_count_agg agg;
	unsigned interval_ms;      /* 0: read at the end only */
	unsigned repeat;           /* runs of argv (needs argv when > 1); 0: 1 */
	const struct pms_countrun_callbacks *callbacks; /* copied; may be NULL */
	void *ud;                  /* for the callbacks */
};
#define PMS_COUNTRUN_OPTS_INIT                                                               \
	{ PMS_COUNTRUN_OPTS_VERSION, NULL, NULL, NULL, NULL, PMS_AGG_GLOBAL, 0, 0, NULL, NULL }

/* How the run went; after pms_countrun_run. */
struct pms_countrun_result {
	enum pms_countrun_stage failed; /* PMS_COUNTRUN_OK when the run returned 0 */
	int runs;                  /* runs that completed */
	bool stopped;              /* pms_countrun_stop() was called */
	/* Without interval_ms: the rows, means over the runs (raw rounded when
	 * runs > 1); NULL with interval_ms (the callback had them). */
	const struct pms_count_row *rows;
	size_t nrows;
	const double *rsd;         /* runs > 1: per row, the relative standard
				    * deviation of the mean in %; else NULL */
	double elapsed;            /* seconds, the mean over the runs */
	double elapsed_rsd;        /* runs > 1: of the elapsed time, % */
	double user_s, sys_s;      /* argv: the children's CPU times, the mean
				    * over the runs; -1 without argv */
	int exit_code;             /* argv: pms_exit_code of the command's wait
				    * status, of the last run that saw it end;
				    * -1 when none did (stopped, no argv) */
	const struct pms_counter *counter; /* the last run's counters, or NULL */
};

/* Check the options and parse the events (a parse error fails here, stage
 * PMS_COUNTRUN_EVENTS).  Nothing is started until pms_countrun_run. */
int pms_countrun_new(struct pms_sys *sys, const struct pms_pmus *pmus,
		     const struct pms_topo *topo, const struct pms_countrun_opts *opts,
		     struct pms_countrun **out);
/* Every run, until the target ends (the command exits, the process or thread
 * is gone) or pms_countrun_stop; with repeat, that many commands one after
 * another.  Once per pms_countrun.  0, or the first error
 * (pms_countrun_result()->failed says where). */
int pms_countrun_run(struct pms_countrun *cr);
/* End the run at its next poll (5 ms); async-signal safe. */
void pms_countrun_stop(struct pms_countrun *cr);
const struct pms_countrun_result *pms_countrun_result(const struct pms_countrun *cr);
/* Kills (SIGKILL) and reaps a command still running.  NULL is accepted. */
void pms_countrun_free(struct pms_countrun *cr);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
