/* Event strings in perf's syntax -> struct perf_event_attr (+ target CPUs).
 *
 * Accepted forms (comma-separated, optionally grouped as {a,b}:mods):
 *   cycles, instructions, ...        generic hardware / software events
 *   L1-dcache-load-misses, LLC-...   generic hardware-cache events
 *   r1a8                             raw event (hex) on the core PMU(s)
 *   cpu/event=0x3c,umask=0,period=1000,name=x/   PMU terms from format/
 *   cpu/mem-loads,ldlat=30/          an alias from the PMU's events/ dir
 *   cpu_cycles                       a bare alias looked up in the PMUs
 *   sched:sched_switch, sched:*     a tracepoint by name, or a glob of them
 *                                    (pms_event_parse_ex with a sys)
 *   inst_retired, uncore_imc/UNC_M_CAS_COUNT_SCH0.RD/
 *                                    a catalog event name (pms_event_parse_ex
 *                                    with a catalog; see there)
 * followed by modifiers ":u k h G H p pp ppp P S D I W e" (after a PMU's
 * closing '/' the ':' may be left out).
 *
 * Generic hardware and cache events on machines with several core PMUs
 * (hybrid / big.LITTLE) expand to one event per core PMU, with that PMU's type
 * in config bits 32-63 and its CPUs as target; groups are split per core PMU.
 *
 * Ownership: pms_event_parse() gives the caller a struct pms_event_list
 * released with pms_event_list_free(); every pointer inside it is owned by the
 * list.  The pms_pmus argument and the options (with their catalog) are
 * borrowed for the duration of the call only.
 */
#ifndef PMUSCOPE_EVENT_H
#define PMUSCOPE_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/cpuset.h"
#include "pmuscope/pmu.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

struct pms_catalog; /* pmuscope/catalog.h */

/* Extended type for PERF_TYPE_HARDWARE / PERF_TYPE_HW_CACHE: the PMU type
 * goes in config bits 32-63 (include/uapi/linux/perf_event.h). */
#define PMS_PMU_TYPE_SHIFT 32

struct pms_event {
	struct perf_event_attr attr; /* size = sizeof(struct perf_event_attr) */
	uint64_t config4;    /* format terms on config4 (not in every uapi header) */
	char *name;          /* the name= term, else the event as written */
	char *pmu;           /* PMU it binds to; NULL for software / PMU-less */
	struct pms_cpuset cpus; /* target CPUs; empty = every CPU */
	int group;           /* group index, -1 when not in a group */
	bool group_leader;
	bool weak;           /* W: the group may be broken up if it fails */
	bool precise_max;    /* P: the highest precise_ip the PMU accepts */
	bool sample_read;    /* S */
	bool percore;        /* percore term */
	bool per_pkg;        /* from the alias's .per-pkg, or the catalog's PerPkg */
	bool snapshot;       /* from the alias's .snapshot */
	double scale;        /* from the alias's .scale (or catalog ScaleUnit), 1.0 otherwise */
	char *unit;          /* from the alias's .unit (or catalog ScaleUnit), or NULL */
	char *metric_id;     /* metric-id term, or NULL */
	char *call_graph;    /* call-graph term ("fp", "dwarf", "lbr"), or NULL */
	char *branch_type;   /* branch_type term, or NULL */
	uint64_t stack_size; /* stack-size term, 0 if absent */
	int column;          /* 1-based column where the event starts in the text */
};

/* The parsed events are opaque (docs/api.md "Opaque objects"): walk them
 * with pms_event_list_count / pms_event_list_at (NULL past the end and for
 * a NULL list); each event lives as long as the list. */
struct pms_event_list;
size_t pms_event_list_count(const struct pms_event_list *list);
const struct pms_event *pms_event_list_at(const struct pms_event_list *list, size_t i);
/* Number of groups ({a,b} or a group leader's members): events' group
 * fields run 0 .. this - 1.  0 for a NULL list. */
int pms_event_list_groups(const struct pms_event_list *list);

/* perf's name of a generic hardware or software event (PERF_TYPE_HARDWARE
 * or PERF_TYPE_SOFTWARE and its config: "cycles", "page-faults"), as perf
 * prints it for an attr; NULL for anything else.  The string is static. */
const char *pms_event_generic_name(uint32_t type, uint64_t config);

/* Parse text (one or more comma-separated events) against pmus (may be NULL:
 * only generic, software and raw events then resolve).
 * Errors: PMS_EPARSE (syntax, overlapping terms), PMS_ENOENT (unknown event,
 * PMU or term), PMS_ERANGE (a value wider than its term); the message holds
 * the original string and the 1-based column of the offending part. */
int pms_event_parse(const struct pms_pmus *pmus, const char *text,
		    struct pms_event_list **out);
void pms_event_list_free(struct pms_event_list *list);

/* Options for pms_event_parse_ex.  Set version to PMS_EVENT_PARSE_OPTS_VERSION
 * (the _INIT macro does); fields are only ever appended. */
#define PMS_EVENT_PARSE_OPTS_VERSION 2
struct pms_event_parse_opts {
	unsigned version;
	/* Named events from a catalog (pms_catalog_new/load), or NULL.  A name
	 * resolves in this order: generic event, raw rNNN, the PMU's sysfs
	 * events/ alias, then the catalog -- sysfs aliases win over catalog
	 * names.  Bare names bind to every PMU the catalog gives them: a core
	 * event (catalog PMU NULL) to every core PMU, a hybrid name to each core
	 * PMU with its own encoding, an uncore name ("uncore_imc") to every box of
	 * the family (uncore_imc_0 .. N).  In pmu/NAME/ the catalog entry must be
	 * for that PMU (or its family); a core event on an uncore PMU or the
	 * other way round fails with PMS_ENOENT naming the PMU it is for.  The
	 * event gets the entry's per_pkg, and scale/unit from its ScaleUnit. */
	const struct pms_catalog *catalog;
	/* (version 2) The kernel seam tracepoints are looked up through: a
	 * tracepoint "sys:name" takes its id from tracefs (sys/kernel/tracing/
	 * events/SYS/NAME/id), a glob ("sched:*", "*:sched_switch") gives one
	 * event per match, named "sys:name", as perf expands it.  NULL: a
	 * tracepoint fails with PMS_ENOENT saying no kernel seam was given.
	 * Borrowed for the call. */
	struct pms_sys *sys;
};
#define PMS_EVENT_PARSE_OPTS_INIT { PMS_EVENT_PARSE_OPTS_VERSION, NULL, NULL }

/* pms_event_parse with options; opts NULL is the same as pms_event_parse.
 * Options versions follow docs/api.md (older accepted, newer refused). */
int pms_event_parse_ex(const struct pms_pmus *pmus, const char *text,
		       const struct pms_event_parse_opts *opts, struct pms_event_list **out);

/* What this machine can count, as perf list shows it: the generic hardware
 * events (where a core PMU exists), the software events (not dummy and
 * bpf-output, which count nothing), each PMU's sysfs event aliases, and,
 * with tracepoints, tracefs's tracepoints (none when tracefs is absent: not
 * an error).  *out is the caller's, released with pms_machine_events_free. */
enum pms_machine_event_kind {
	PMS_MEV_HARDWARE = 0, /* "hardware event": a generic PERF_TYPE_HARDWARE name */
	PMS_MEV_SOFTWARE,     /* "software event" */
	PMS_MEV_KERNEL_PMU,   /* "kernel PMU event": a core or other PMU's alias */
	PMS_MEV_UNCORE_PMU,   /* "uncore PMU event" */
	PMS_MEV_TRACEPOINT,   /* "tracepoint event" */
};
struct pms_machine_event {
	char *name;          /* "cycles", "cpu/mem-loads/", "sched:sched_switch" */
	char *pmu;           /* "software", the PMU, "tracepoint"; NULL for hardware */
	char *encoding;      /* what stat -e takes */
	char *desc;          /* a sysfs alias's terms, else NULL */
	enum pms_machine_event_kind kind;
};
int pms_machine_events_list(struct pms_sys *sys, const struct pms_pmus *pmus, bool tracepoints,
			    struct pms_machine_event **out, size_t *n);
void pms_machine_events_free(struct pms_machine_event *ev, size_t n);
/* "hardware event", "software event", "kernel PMU event", ... */
const char *pms_machine_event_kind_name(enum pms_machine_event_kind kind);

/* Format attr's set fields perf-style, e.g.
 * "type=4,config=0x1cd,config1=0x40,precise_ip=2,exclude_kernel".
 * Returns the length it needed (like snprintf). */
size_t pms_event_attr_describe(const struct perf_event_attr *attr, char *buf,
			       size_t size);

/* Like pms_event_attr_describe, plus config4 when set. */
size_t pms_event_describe(const struct pms_event *ev, char *buf, size_t size);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
