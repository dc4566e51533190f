/* Counting: a list of parsed events opened as perf groups on a task or on
 * CPUs, read with time_enabled/time_running, and aggregated per CPU, core,
 * cluster, L3, die, socket, NUMA node (uncore boxes by their SNC node), core
 * type or globally.
 *
 * Placement rules:
 *  - task targets (PMS_COUNT_CHILD/PID/TID) open core and software events with
 *    pid = the thread(s), cpu = -1; a CHILD's group leaders are opened
 *    disabled with enable_on_exec and inherit, so counting starts at its exec;
 *  - PMS_COUNT_CPUS opens them with pid = -1 on every CPU of the set that the
 *    event's PMU covers (hybrid expansions only on their core type's CPUs);
 *  - uncore events are always per box: once on each box's reader CPU from
 *    pms_uncore_map() (SNC-correct), pid = -1, whatever the target.
 *  - a group on an Arm PMUv3 PMU is checked against that PMU's counter
 *    budget (pms_count_budget_probe) before it is opened: one that cannot be
 *    scheduled fails (PMS_ERANGE), is left out with skip_unsupported, or,
 *    written with the W modifier, is split into lone events
 *    (pms_counter_split_groups says which).
 *
 * Ownership: pms_counter_open() gives the caller a counter released with
 * pms_counter_free().  sys, pmus, topo and the event list are borrowed and
 * must outlive it.  Rows from pms_counter_rows() belong to the caller
 * (pms_count_rows_free()); their strings point into the counter.
 */
#ifndef PMUSCOPE_COUNT_H
#define PMUSCOPE_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmuscope/cpuset.h"
#include "pmuscope/event.h"
#include "pmuscope/pmu.h"
#include "pmuscope/sys.h"
#include "pmuscope/topo.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

enum pms_count_target {
	PMS_COUNT_CHILD = 0, /* pid is a child stopped before exec (pms_child_spawn) */
	PMS_COUNT_PID,       /* every thread listed in /proc/<pid>/task */
	PMS_COUNT_TID,       /* exactly one thread */
	PMS_COUNT_CPUS,      /* system-wide on cpus (empty = every online CPU) */
};

#define PMS_COUNT_OPTS_VERSION 2
struct pms_count_opts {
	unsigned version;            /* PMS_COUNT_OPTS_VERSION */
	enum pms_count_target target;
	pid_t pid;                   /* CHILD / PID / TID */
	const struct pms_cpuset *cpus; /* CPUS: borrowed during open; NULL = all online */
	bool strict;                 /* pms_counter_read fails unless every counter ran 100% */
	bool no_inherit;             /* do not count children of the task */
	/* version >= 2: an event (or group) the kernel or machine does not
	 * support (perf_event_open EINVAL, ENOENT, ENODEV, ENXIO, EOPNOTSUPP,
	 * ENOSYS, or no CPU of the target covered by its PMU) is left out
	 * instead of failing the open, as perf stat does; its rows say why
	 * (pms_count_row.unsupported).  Privilege and fd-limit errors still fail. */
	bool skip_unsupported;
};
#define PMS_COUNT_OPTS_INIT { PMS_COUNT_OPTS_VERSION, PMS_COUNT_CHILD, 0, NULL, false, false, false }

/* One value as the kernel reports it, with the multiplexing estimate. */
struct pms_count_value {
	uint64_t raw;          /* counted while on the PMU */
	uint64_t enabled;      /* time_enabled, ns */
	uint64_t running;      /* time_running, ns */
	double scaled;         /* raw * enabled / running (raw when equal, 0 when running is 0) */
	double fraction;       /* running / enabled (1 when enabled is 0) */
};

/* One opened perf fd. */
struct pms_count_instance {
	size_t event;      /* index into the counter's event list */
	int cpu;           /* -1 for task counters */
	pid_t tid;         /* -1 for CPU counters */
	int node;          /* NUMA node (uncore: the box's SNC node), -1 if unknown */
	int package;       /* -1 if unknown */
	const struct pms_uncore_box *box; /* uncore placement, or NULL */
	int group_slot;    /* which group instance it belongs to, -1 alone */
	struct pms_count_value v; /* last read, cumulative since open */
};

enum pms_count_agg {
	PMS_AGG_GLOBAL = 0,
	PMS_AGG_CPU,
	PMS_AGG_CORE,      /* id = core_id, package = its package */
	PMS_AGG_CLUSTER,   /* id = cluster_id, package = its package */
	PMS_AGG_L3,        /* id = logical L3 number */
	PMS_AGG_DIE,       /* id = die_id, package = its package */
	PMS_AGG_SOCKET,    /* id = package */
	PMS_AGG_NODE,      /* id = NUMA node; uncore boxes by their SNC node */
	PMS_AGG_CORE_TYPE, /* id = core type index / core PMU; name says which */
	PMS_AGG_THREAD,    /* id = tid */
};

/* One aggregated line: an event (hybrid expansions of one written event
 * merged unless split by core type) summed over the instances in a bucket. */
struct pms_count_row {
	size_t event;        /* first event of the list it stands for */
	const char *name;    /* the event as written (or its name= term) */
	const char *pmu;     /* the PMU when the row is one PMU's, else NULL */
	enum pms_count_agg agg;
	int id;              /* bucket id, -1 = unknown / not per CPU (task counters) */
	int package;         /* for CORE / CLUSTER / DIE, else -1 */
	const char *type_name; /* CORE_TYPE: "cpu_core", "Cortex-A76", "type0" */
	int ninstances;      /* fds summed */
	int nunscheduled;    /* of them: enabled > 0 but never running */
	uint64_t raw, enabled, running; /* sums */
	double scaled;       /* sum of the instances' estimates */
	double fraction;     /* running / enabled of the sums */
	double scale;        /* the alias's .scale (1.0 otherwise) */
	const char *unit;    /* the alias's .unit, or NULL */
	/* skip_unsupported: why the event could not be opened (the counter's
	 * message), the row then has no instances; NULL when it counts */
	const char *unsupported;
};

struct pms_counter;

/* Open every event of list for the target.  topo may be NULL for task targets
 * without uncore events; it is needed for PMS_COUNT_CPUS and uncore boxes.
 * Errors name the event, the CPU / pid and the cause read from the machine
 * (paranoid level, capabilities, fd limit, missing PMU, VM without vPMU). */
int pms_counter_open(struct pms_sys *sys, const struct pms_pmus *pmus,
		     const struct pms_topo *topo, const struct pms_event_list *list,
		     const struct pms_count_opts *opts, struct pms_counter **out);
void pms_counter_free(struct pms_counter *c);

/* PERF_EVENT_IOC_ENABLE / DISABLE / RESET on every group leader. */
int pms_counter_enable(struct pms_counter *c);
int pms_counter_disable(struct pms_counter *c);

/* Read every fd (group leaders with PERF_FORMAT_GROUP).  Strict mode fails
 * with PMS_EBUSY naming the first event that did not run all the time. */
int pms_counter_read(struct pms_counter *c);

const struct pms_event_list *pms_counter_events(const struct pms_counter *c);
size_t pms_counter_ninstances(const struct pms_counter *c);
const struct pms_count_instance *pms_counter_instance(const struct pms_counter *c, size_t i);
/* The fd of instance i (for poll, or tests that script the fake kernel). */
int pms_counter_fd(const struct pms_counter *c, size_t i);

/* Groups whose leader was enabled but never ran in the last read (they could
 * not be scheduled together); the count, and with buf the event names. */
int pms_counter_unscheduled_groups(const struct pms_counter *c, char *buf, size_t size);

/* With skip_unsupported: how many events were left out; with buf, the reason
 * of the first ("event 'cycles': ... (ENOENT)"). */
size_t pms_counter_unsupported(const struct pms_counter *c, char *buf, size_t size);

/* Aggregate the last read.  Rows are ordered by event, then bucket id; an
 * event left out by skip_unsupported has one row (id -1) with .unsupported. */
int pms_counter_rows(const struct pms_counter *c, enum pms_count_agg agg,
		     struct pms_count_row **rows, size_t *n);
void pms_count_rows_free(struct pms_count_row *rows);

/* Counter budget of one Arm PMUv3 core PMU (drivers/perf/arm_pmuv3.c),
 * as the kernel schedules a group on it.  Linux shows PMCR_EL0.N nowhere in
 * sysfs (caps/ has slots, bus_slots, bus_width, threshold_max); its group
 * check (drivers/perf/arm_pmu.c validate_group) is what tells user space, so
 * pms_count_budget_probe() opens groups of events on the calling thread
 * (pid 0, user only) until the kernel refuses one with EINVAL, and closes
 * them. */
struct pms_count_budget {
	char pmu[64];
	int general;        /* programmable event counters: PMCR_EL0.N */
	bool cycle_counter; /* PMCCNTR: CPU_CYCLES (0x11) takes it before a general one */
	bool instr_counter; /* PMUv3p9 PMICNTR: INST_RETIRED (0x08) takes it first */
	bool chained_long;  /* a 64-bit `long` (config1:0) event takes an even/odd pair
			     * of general counters: the PMU has no PMUv3p5 long counters */
	/* Apple M1/M2 PMUs (apple_m1_cpu_pmu.c): not probed but taken from the
	 * driver: counters 0 (cycles) and 1 (instructions) fixed, 2-9 general,
	 * every event placed by its own affinity mask (pms_apple_event_affinity) */
	bool apple_affinity;
	unsigned counter_bits; /* Apple: 47 (M1) or 63 (M2) as the driver advertises; else 0 */
};

/* Probe pmu (an Arm PMUv3 core PMU by name; an Apple M1/M2 PMU's budget is
 * the driver's fixed model, not probed).  PMS_ENOTSUP when it is not
 * one, or when the kernel accepted every group up to the driver's 33
 * counters (not the PMUv3 rule); the open's error otherwise. */
int pms_count_budget_probe(struct pms_sys *sys, const struct pms_pmus *pmus, const char *pmu,
			   struct pms_count_budget *out);

/* Whether attrs[0..n-1] (a group, leader first, as opened) fit b the way
 * armv8pmu_get_event_idx() places them.  0 when they do; PMS_ERANGE with a
 * message that names the counters needed and what takes two, else.
 * Events of other PMU types (software) are not counted. */
int pms_count_budget_fit(const struct pms_count_budget *b, const struct pms_pmus *pmus,
			 const struct perf_event_attr *attrs, const char *const *names, size_t n);

/* The budgets pms_counter_open() probed for the groups it checked (Arm
 * PMUv3 PMUs only): how many, and the i-th. */
size_t pms_counter_nbudgets(const struct pms_counter *c);
const struct pms_count_budget *pms_counter_budget(const struct pms_counter *c, size_t i);

/* A task target (CHILD, PID, TID) with uncore events: those count their
 * whole domain (every CPU and process the box serves) while the task runs,
 * not the task (the kernel has no per-task uncore counts).  How many such
 * events; with buf, their names joined by ','.  0 for CPU targets. */
size_t pms_counter_whole_domain(const struct pms_counter *c, char *buf, size_t size);

/* Weak groups (W) split into lone events because they did not fit: the
 * count, and with buf the reason of the first. */
size_t pms_counter_split_groups(const struct pms_counter *c, char *buf, size_t size);

/* Estimate from one value: fills scaled and fraction from raw/enabled/running. */
void pms_count_value_scale(struct pms_count_value *v);

const char *pms_count_agg_name(enum pms_count_agg agg);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
