/* PMU discovery from /sys/bus/event_source/devices (through the kernel seam).
 *
 * pms_pmus_load() reads every PMU directory below the context's root: type,
 * cpumask / cpus, caps/..., format/... (parsed into bit ranges), events/... (with
 * .scale/.unit/.per-pkg/.snapshot), nr_addr_filters; and classifies each PMU
 * (core, uncore, software, tracepoint, precise engine...).
 *
 * Ownership: pms_pmus_load() gives the caller a struct pms_pmus released with
 * pms_pmus_free(); every pointer inside (PMUs, strings, arrays) is owned by it
 * and lives until that call.  Lookups return borrowed pointers.
 */
#ifndef PMUSCOPE_PMU_H
#define PMUSCOPE_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/cpuset.h"
#include "pmuscope/memsample.h"
#include "pmuscope/sys.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

struct perf_event_attr;

/* Which perf_event_attr word a format term writes. */
enum pms_cfg_field {
	PMS_CFG_CONFIG = 0,
	PMS_CFG_CONFIG1 = 1,
	PMS_CFG_CONFIG2 = 2,
	PMS_CFG_CONFIG3 = 3,
	PMS_CFG_CONFIG4 = 4,
};
#define PMS_CFG_NFIELDS 5

/* One contiguous bit range lo..hi (inclusive) of a config word. */
struct pms_bitrange {
	uint8_t lo, hi;
};

#define PMS_FORMAT_MAX_RANGES 8
/* A sysfs format term, e.g. "event" -> "config:0-7,32-35". The value's bits
 * are scattered over the ranges in order, least significant first. */
struct pms_format {
	char *name;
	enum pms_cfg_field field;
	struct pms_bitrange ranges[PMS_FORMAT_MAX_RANGES];
	int nranges;
	int width; /* total bits */
};

/* An events/ alias, e.g. "cpu-cycles" -> "event=0x3c". */
struct pms_pmu_event {
	char *name;
	char *value;  /* the alias text, trailing newline removed */
	char *unit;   /* from NAME.unit, or NULL */
	double scale; /* from NAME.scale, 1.0 if absent */
	bool per_pkg;
	bool snapshot;
};

struct pms_pmu_cap {
	char *name;
	char *value;
};

enum pms_pmu_kind {
	PMS_PMU_OTHER = 0,
	PMS_PMU_CORE,       /* "cpu", cpu_core/cpu_atom, armv8_*, armv9_*, apple_*_pmu */
	PMS_PMU_UNCORE,     /* uncore_*, amd_df, amd_l3, arm_cmn, arm_dsu, dmc620 ... */
	PMS_PMU_SOFTWARE,   /* "software" */
	PMS_PMU_TRACEPOINT, /* "tracepoint" */
	PMS_PMU_BREAKPOINT, /* "breakpoint" */
	PMS_PMU_PRECISE,    /* ibs_op, ibs_fetch, arm_spe_N */
};

enum pms_uncore_scope {
	PMS_SCOPE_NONE = 0,
	PMS_SCOPE_SYSTEM,  /* one instance for the machine */
	PMS_SCOPE_PACKAGE, /* one reader CPU per socket in cpumask */
	PMS_SCOPE_DIE,
	PMS_SCOPE_CLUSTER, /* e.g. arm_dsu per cluster */
	PMS_SCOPE_CPU,
	PMS_SCOPE_LLC,     /* one reader CPU per last-level cache (amd_l3: per CCX) */
};

struct pms_pmu {
	char *name;
	uint32_t type;
	enum pms_pmu_kind kind;
	/* the precise engine it is (memsample.h): PMS_ENG_IBS (ibs_op),
	 * PMS_ENG_IBS_FETCH, PMS_ENG_SPE, PMS_ENG_PEBS (a core PMU with
	 * caps/max_precise > 0), else PMS_ENG_NONE */
	enum pms_engine engine;
	enum pms_uncore_scope scope;
	bool has_cpus;         /* a "cpus" file (hybrid/big.LITTLE core PMUs) */
	bool has_cpumask;      /* a "cpumask" file (uncore reader CPUs) */
	struct pms_cpuset cpus; /* from "cpus" or "cpumask"; empty = all CPUs */
	int nr_addr_filters;   /* -1 if absent */
	int max_precise;       /* caps/max_precise, -1 if absent */
	char *box;             /* uncore box family ("uncore_cha"), NULL otherwise */
	int box_index;         /* uncore box number (uncore_cha_12 -> 12), -1 if none */
	struct pms_format *formats;
	size_t nformats;
	struct pms_pmu_event *events;
	size_t nevents;
	struct pms_pmu_cap *caps;
	size_t ncaps;
	/* "associated_cpus" (arm_dsu: the cluster's CPUs, while cpumask holds the
	 * one reader CPU); empty when has_associated_cpus is false. */
	bool has_associated_cpus;
	struct pms_cpuset associated_cpus;
};

/* The loaded PMU list (opaque): walk it with pms_pmus_count / pms_pmus_at,
 * or look one up with pms_pmu_find / pms_pmu_find_type. */
struct pms_pmus;

/* Load every PMU; a missing event_source directory gives an empty list (not
 * an error).  A PMU whose own files are unreadable or malformed fails the
 * call with a message naming the file. */
int pms_pmus_load(struct pms_sys *sys, struct pms_pmus **out);
/* Load every PMU that reads: a PMU whose own files are unreadable or
 * malformed is left out (perf skips it too), and *skipped gets one message
 * per PMU left out ("NAME not read: why", the why naming the file; free
 * with pms_sys_names_free).  Fails only when the list itself cannot be
 * read or memory runs out (then *skipped is NULL, *nskipped 0). */
int pms_pmus_load_each(struct pms_sys *sys, struct pms_pmus **out, char ***skipped,
		       size_t *nskipped);
void pms_pmus_free(struct pms_pmus *pmus);
/* The PMUs as loaded: how many, and the i-th (NULL past the end or for a NULL
 * list). */
size_t pms_pmus_count(const struct pms_pmus *pmus);
const struct pms_pmu *pms_pmus_at(const struct pms_pmus *pmus, size_t i);

/* A tracepoint: "subsystem:event" (perf's name) and the id that goes in
 * attr.config of a PERF_TYPE_TRACEPOINT event. */
struct pms_tracepoint {
	char *name;
	uint64_t id;
};
/* The tracepoints tracefs lists (sys/kernel/tracing/events, else below
 * debugfs), in directory order; PMS_ENOENT naming the paths when tracefs
 * is not there.  *out is the caller's, released with pms_tracepoints_free. */
int pms_tracepoints_list(struct pms_sys *sys, struct pms_tracepoint **out, size_t *n);
/* The tracepoints matching pattern, "subsystem:event" where either side may
 * be a glob (* ? [set]) as perf takes them ("sched:*"); NULL is every one
 * (pms_tracepoints_list).  A name without glob characters reads only its
 * own id file.  PMS_ENOENT when nothing matches (naming the pattern),
 * PMS_EPERM when tracefs is not readable, PMS_EINVAL for a pattern that is
 * not subsystem:event. */
int pms_tracepoints_find(struct pms_sys *sys, const char *pattern, struct pms_tracepoint **out,
			 size_t *n);
void pms_tracepoints_free(struct pms_tracepoint *tp, size_t n);

const struct pms_pmu *pms_pmu_find(const struct pms_pmus *pmus, const char *name);
const struct pms_pmu *pms_pmu_find_type(const struct pms_pmus *pmus, uint32_t type);
const struct pms_format *pms_pmu_format(const struct pms_pmu *pmu, const char *term);
const struct pms_pmu_event *pms_pmu_event(const struct pms_pmu *pmu, const char *name);
/* Whether pmu's sysfs events/ has an alias whose terms give event=code
 * (an Arm core PMU lists there the common events PMCEID advertises). */
bool pms_pmu_lists_code(const struct pms_pmu *pmu, uint64_t code);
/* Value of caps/NAME, or NULL. */
const char *pms_pmu_cap(const struct pms_pmu *pmu, const char *name);

/* The core PMU that counts on CPU n: the one whose "cpus" contains n, else the
 * single core PMU without a cpus file; NULL if none. */
const struct pms_pmu *pms_pmus_core_for_cpu(const struct pms_pmus *pmus, int cpu);

/* Number of hardware core PMUs (2+ on hybrid / big.LITTLE machines). */
size_t pms_pmus_core_count(const struct pms_pmus *pmus);

/* Parse one format file's text ("config1:0-7,32-35\n") into f (name not set).
 * PMS_EPARSE with the column on malformed input. */
int pms_format_parse(const char *text, struct pms_format *f);

/* Place value into a format term's bits: ORs them into *word.  Fails with
 * PMS_ERANGE when value does not fit in f->width bits. */
int pms_format_encode(const struct pms_format *f, uint64_t value, uint64_t *word);
/* Mask of all bits the term covers. */
uint64_t pms_format_mask(const struct pms_format *f);
/* The one field -> perf_event_attr word mapping (config, config1, config2,
 * config3).  set: the term's bits in attr become value (cleared first);
 * get: *word is the attr word that holds the term.  PMS_ENOTSUP for a term
 * in config4, which perf_event_attr does not have. */
int pms_format_attr_set(const struct pms_format *f, struct perf_event_attr *attr,
			uint64_t value);
int pms_format_attr_get(const struct pms_format *f, const struct perf_event_attr *attr,
			uint64_t *word);

const char *pms_pmu_kind_name(enum pms_pmu_kind kind);
const char *pms_scope_name(enum pms_uncore_scope scope);

/* "config", "config1" ... "config4". */
const char *pms_cfg_field_name(enum pms_cfg_field field);

/* Write a term back in sysfs form ("config1:0-7,32-35"); returns the length
 * it needed, like snprintf. */
size_t pms_format_str(const struct pms_format *f, char *buf, size_t size);

/* True when at least one hardware PMU (core, uncore or precise engine) is
 * exposed; false on e.g. a VM without a virtual PMU. */
bool pms_pmus_has_hardware(const struct pms_pmus *pmus);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
