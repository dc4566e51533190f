/* Event catalogs: named events loaded from JSON catalogs (kernel pmu-events,
 * Intel perfmon, ARM-software/data, `perf list -j`) or built in, selected by
 * CPU identity, looked up by name and turned into perf event-term strings.
 *
 * Ownership: pms_catalog_new() gives the caller a catalog released with
 * pms_catalog_free(); every event and string inside belongs to the catalog and
 * lives until that call.  Lookups return borrowed pointers.  Paths and names
 * passed in are borrowed for the call only.  The library reads the catalog
 * files it is pointed at; it reads no environment variable.
 */
#ifndef PMUSCOPE_CATALOG_H
#define PMUSCOPE_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/sys.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

struct pms_topo;

/* Where a catalog entry came from. */
enum pms_catalog_format {
	PMS_CATFMT_UNKNOWN = 0,
	PMS_CATFMT_KERNEL,   /* tools/perf/pmu-events/arch/... JSON array */
	PMS_CATFMT_PERFMON,  /* Intel perfmon {"Header":..., "Events":[...]} */
	PMS_CATFMT_ARMDATA,  /* ARM-software/data pmu/<core>.json */
	PMS_CATFMT_PERFLIST, /* `perf list -j` output */
	PMS_CATFMT_BUILTIN,  /* pmuscope's own tables (ARM common, Apple) */
};

/* ARM PMUv3 tier of an event number (see armpmu.h); PMS_TIER_NONE elsewhere. */
enum pms_event_tier {
	PMS_TIER_NONE = 0,
	PMS_TIER_ARCHITECTURAL, /* mandatory (arm-data "architectural": true) */
	PMS_TIER_COMMON,        /* 0x0000-0x003F: present if PMCEID says so */
	PMS_TIER_RECOMMENDED,   /* 0x0040-0x00BF: Arm-recommended IMPDEF numbering */
	PMS_TIER_IMPDEF,        /* 0x00C0-0x3FFF: vendor-specific */
	PMS_TIER_EXTENSION,     /* 0x4000+: architected extension blocks */
};

struct pms_cat_event {
	const char *name;      /* as the catalog spells it */
	const char *pmu;       /* perf PMU ("cpu", "cpu_core", "uncore_imc"); NULL =
				  the core PMU of the CPU the catalog was chosen for */
	const char *unit;      /* the source's Unit field as written, or NULL */
	const char *terms;     /* "event=0xb0,umask=0x1,cmask=1" (no PMU prefix) */
	uint64_t code;         /* event code (x86 EventCode|ExtSel<<8, ARM/Apple number) */
	uint64_t umask;        /* x86 UMask | UMaskExt<<8; 0 elsewhere */
	const char *desc;      /* brief description, or NULL */
	const char *long_desc; /* public/long description, or NULL */
	const char *topic;     /* the file's base name or perf's Topic, or NULL */
	const char *source;    /* the file it was read from ("built-in:..." for tables) */
	const char *note;      /* caveat (e.g. Apple number above 0xFF), or NULL */
	uint64_t sample_after; /* SampleAfterValue, 0 if none */
	enum pms_catalog_format format;
	enum pms_event_tier tier;
	bool uncore;           /* counts per domain (socket, cluster, controller), never per thread */
	bool per_pkg;
	bool experimental;
	bool deprecated;
	/* ScaleUnit ("64Bytes", "6.103515625e-5MiB"; kernel and perf list -j
	 * rows): count * scale is in scale_unit.  0 and NULL when absent. */
	double scale;
	const char *scale_unit;
};

/* Which CPU the catalog is for.  NULL selects nothing (every row). */
#define PMS_CATALOG_SELECT_VERSION 1
struct pms_catalog_select {
	unsigned version;     /* PMS_CATALOG_SELECT_VERSION */
	const char *x86_id;   /* "GenuineIntel-6-AD" (vendor-family-model), or NULL */
	uint64_t midr;        /* arm64 MIDR_EL1 (variant and revision ignored) */
	bool has_midr;
	const char *apple_gen; /* "as1", "a14", "as3", "as4-1", "as5", or NULL */
};
#define PMS_CATALOG_SELECT_INIT { PMS_CATALOG_SELECT_VERSION, NULL, 0, false, NULL }

struct pms_catalog;

int pms_catalog_new(struct pms_catalog **out);
void pms_catalog_free(struct pms_catalog *cat);

/* Load a catalog file or directory into cat.  A file is read in whichever of
 * the formats above it is (detected from its shape).  A directory that holds
 * a mapfile.csv (a kernel arch/x86 or arch/arm64 tree, an Intel perfmon
 * checkout) or a cpus.json + pmu/ (ARM-software/data) loads the files for
 * sel's CPU; without sel (or a CPU the directory does not list) it fails with
 * PMS_ENOENT naming the identity.  Any other directory loads every *.json in
 * it.  Malformed JSON fails with PMS_EPARSE naming the file, line and column.
 * sel may be NULL.  Returns the number of events added; a failed load adds
 * none. */
int pms_catalog_load(struct pms_catalog *cat, const char *path,
		     const struct pms_catalog_select *sel);

/* pms_catalog_load, then give pmu to every event it added without one (core
 * events, which otherwise belong to "the core PMU of the CPU the catalog was
 * chosen for"): how a big.LITTLE machine keeps each cluster's catalog, chosen
 * by that cluster's MIDR, in one catalog ("armv8_cortex_a53" for the A53's
 * files).  pmu NULL is pms_catalog_load.  Returns the number of events added;
 * a failed load adds none. */
int pms_catalog_load_for_pmu(struct pms_catalog *cat, const char *path,
			     const struct pms_catalog_select *sel, const char *pmu);

/* Load one catalog from memory; name is used in messages and as the source. */
int pms_catalog_load_buffer(struct pms_catalog *cat, const char *name, const char *data,
			    size_t len);

/* Add the built-in ARM PMUv3 common/architectural/extension events (pmu NULL). */
int pms_catalog_add_arm_common(struct pms_catalog *cat);

/* Add the built-in Apple table for one generation ("as1" ... "as5"); PMS_ENOENT
 * for an unknown generation. */
int pms_catalog_add_apple(struct pms_catalog *cat, const char *gen);

size_t pms_catalog_count(const struct pms_catalog *cat);
const struct pms_cat_event *pms_catalog_event(const struct pms_catalog *cat, size_t i);

/* What a lookup found. */
struct pms_cat_match {
	const struct pms_cat_event *event; /* borrowed from the catalog */
	size_t nmatches;    /* catalog entries with this name and a PMU that fits the
			       hint (2 for a hybrid name without a hint) */
	char perf_string[512]; /* "cpu_core/event=0xb0,umask=0x1,cmask=1/"; for an
				  event with pmu NULL: the terms, or "HINT/terms/" */
};

/* Find name (case-insensitively, as perf does) in cat.  pmu_hint (may be NULL)
 * restricts the match to events of that PMU: "cpu_atom", "uncore_imc", or a
 * sysfs instance such as "uncore_imc_3" (matches "uncore_imc"); events with
 * pmu NULL fit any hint.  0 when found, PMS_ENOENT with a message otherwise. */
int pms_catalog_lookup(const struct pms_catalog *cat, const char *name, const char *pmu_hint,
		       struct pms_cat_match *result);

/* Every entry matching name and hint, in catalog order; fills at most max and
 * returns how many there are. */
size_t pms_catalog_lookup_all(const struct pms_catalog *cat, const char *name,
			      const char *pmu_hint, const struct pms_cat_event **out, size_t max);

/* The perf string for ev ("pmu/terms/", or the bare terms when both ev->pmu
 * and pmu are NULL); returns the length needed, like snprintf. */
size_t pms_cat_event_string(const struct pms_cat_event *ev, const char *pmu, char *buf,
			    size_t size);

/* Parse a --cpu value: "0x413fd0c1" (a MIDR) or "GenuineIntel-6-AD".  The
 * string is borrowed by sel->x86_id.  PMS_EINVAL on anything else. */
int pms_catalog_select_parse(struct pms_catalog_select *sel, const char *text);

/* The selection for CPU cpu of a loaded topology, which holds the machine's
 * identity: the MIDR of that CPU (arm64), else x86 vendor-family-model
 * [-stepping] written to idbuf (sel->x86_id points at it).  PMS_ENOENT when
 * the topology has neither. */
int pms_catalog_select_for_topo(const struct pms_topo *topo, int cpu,
				struct pms_catalog_select *sel, char *idbuf, size_t idlen);
/* The same for the machine below sys: loads its identity
 * (pms_topo_load_cpuid) and calls pms_catalog_select_for_topo. */
int pms_catalog_identify(struct pms_sys *sys, int cpu, struct pms_catalog_select *sel,
			 char *idbuf, size_t idlen);

/* The catalog for the machine below sys: path (a file or a tree, as
 * pms_catalog_load takes; NULL or "" for none) loaded for cpu (a --cpu
 * value, pms_catalog_select_parse), or, with cpu NULL, for the machine's own
 * identity (pms_catalog_identify); on big.LITTLE (pmus with more than one
 * core PMU) each core PMU's files by its first CPU's MIDR
 * (pms_catalog_load_for_pmu).  Without a path: the built-in ARM PMUv3 events
 * when the CPU has a MIDR, else *out = NULL and 0 (sysfs names only).  pmus
 * may be NULL.  A failure's message starts "catalog WHAT: " (WHAT: the
 * path, the cpu value, or the built-in table).  The caller owns *out
 * (pms_catalog_free). */
struct pms_pmus;
int pms_catalog_open_machine(struct pms_sys *sys, const struct pms_pmus *pmus,
			     const char *path, const char *cpu, struct pms_catalog **out);

/* Whether this machine can count ev (its PMU given as pmu when the catalog
 * names none, e.g. the single core PMU): 1 yes, 0 no, -1 the machine cannot
 * say.  A named PMU (or uncore box) that exists: yes; none: no.  An Arm
 * architected event of the PMCEID-discoverable ranges (0x0-0x3f,
 * 0x4000-0x403f) on a core PMU: yes when its sysfs events/ lists that
 * number (the kernel lists what PMCEID0/1 advertise), else no.  pmus NULL,
 * or no PMU to look at: -1. */
int pms_catalog_event_available(const struct pms_pmus *pmus, const struct pms_cat_event *ev,
				const char *pmu);

const char *pms_catalog_format_name(enum pms_catalog_format f);
const char *pms_event_tier_name(enum pms_event_tier t);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
