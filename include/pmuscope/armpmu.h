/* The ARM PMUv3 event space (tiers, extension blocks, counter facts) and the
 * Apple Silicon event tables, as built-in data.
 *
 * Ownership: everything returned points into static tables and lives for the
 * life of the program; nothing is allocated or freed.
 */
#ifndef PMUSCOPE_ARMPMU_H
#define PMUSCOPE_ARMPMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/catalog.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* One architected event (common, recommended, or extension-block). */
struct pms_arm_event {
	uint16_t number;
	const char *name;   /* Arm ARM mnemonic, e.g. "INST_RETIRED" */
	bool architectural; /* mandatory when PMUv3 is implemented */
	const char *desc;   /* short description (pmuscope's words), or NULL */
};

/* A block of the 16-bit event space. */
struct pms_arm_block {
	uint16_t first, last;
	enum pms_event_tier tier;
	const char *name;    /* "common", "SPE", "AMUv1", "MTE" ... */
	const char *what;    /* one sentence */
	const char *pmceid;  /* which PMCEID register/bits advertise it, or NULL */
};

/* What is known about one event number. */
struct pms_arm_class {
	uint16_t number;
	enum pms_event_tier tier;
	const struct pms_arm_block *block; /* never NULL for a valid number */
	const struct pms_arm_event *event; /* NULL when pmuscope knows no name */
	int pmceid_reg;  /* 0 or 1 (PMCEID0/1_EL0), -1 when not discoverable */
	int pmceid_bit;  /* bit in that 64-bit register, -1 when not discoverable */
};

/* Classify a number; PMS_ERANGE (with a message) above 0xFFFF, since
 * PMEVTYPER.evtCount is 16 bits (arm_pmuv3.h ARMV8_PMU_EVTYPE_EVENT). */
int pms_arm_classify(uint32_t number, struct pms_arm_class *out);

/* A paragraph explaining the number's tier, block, discovery and name; returns
 * the length needed, like snprintf.  Invalid numbers give a one-line error. */
size_t pms_arm_explain(uint32_t number, char *buf, size_t size);

size_t pms_arm_event_count(void);
const struct pms_arm_event *pms_arm_event_at(size_t i);
const struct pms_arm_event *pms_arm_event_by_number(uint16_t number);
const struct pms_arm_event *pms_arm_event_by_name(const char *name); /* case-insensitive */

size_t pms_arm_block_count(void);
const struct pms_arm_block *pms_arm_block_at(size_t i);

/* Counter facts of the Linux PMUv3 driver, one row each. */
struct pms_arm_fact {
	const char *key;   /* "long", "rdpmc", "exclude_idle" ... */
	const char *term;  /* sysfs format term and bits ("config1:0"), or NULL */
	const char *fact;  /* one sentence */
	const char *cite;  /* kernel file:line */
};
size_t pms_arm_fact_count(void);
const struct pms_arm_fact *pms_arm_fact_at(size_t i);
const struct pms_arm_fact *pms_arm_fact_find(const char *key);

/* ---- Apple Silicon (not PMUv3) ---- */

#define PMS_APPLE_NGENS 5
#define PMS_APPLE_ABSENT (-1)
#define PMS_APPLE_UNKNOWN (-2)

struct pms_apple_gen {
	const char *id;           /* kpep name: "as1", "a14", "as3", "as4-1", "as5" */
	const char *chip;         /* "M1", "A14", "M3", "M4 Max", "M5" */
	unsigned n_events;        /* events kpep lists for the generation */
	unsigned n_arm_prefixed;  /* of which ARM_-prefixed */
	unsigned fixed_counters;  /* kpep's count (Linux models 2) */
	uint32_t config_counters; /* mask of configurable counters (1020 = 2..9) */
	unsigned counter_bits;    /* 48 on M1, 64 from M2 on; 0 unknown */
	bool partial;             /* pmuscope knows only some of the n_events */
	bool pmuv3_numbering;     /* M4 on: common subset on PMUv3 numbers */
};

struct pms_apple_event {
	const char *name;
	/* per generation, in pms_apple_gen order: the number, or
	 * PMS_APPLE_ABSENT (not in that generation's catalog) or
	 * PMS_APPLE_UNKNOWN (pmuscope's sources do not say) */
	int32_t number[PMS_APPLE_NGENS];
	uint32_t counters_mask[PMS_APPLE_NGENS]; /* 0 when not known */
};

size_t pms_apple_gen_count(void);
const struct pms_apple_gen *pms_apple_gen_at(size_t i);
/* Index of a generation by id (case-insensitive), -1 if unknown. */
int pms_apple_gen_index(const char *id);

size_t pms_apple_event_count(void);
const struct pms_apple_event *pms_apple_event_at(size_t i);
const struct pms_apple_event *pms_apple_event_find(const char *name);

/* The event number of name on generation gen; PMS_ENOENT when the generation
 * or the name is unknown or the generation lacks the event. */
int pms_apple_number(const char *gen, const char *name, uint32_t *number);

/* Linux's apple_m1_cpu_pmu exposes event=config:0-7: numbers above 0xFF cannot
 * be requested through it. */
bool pms_apple_linux_expressible(uint32_t number);

/* The driver's PMUv3-compatibility map (m1_pmu_pmceid_map). */
struct pms_apple_compat {
	const char *pmuv3_name;
	uint16_t pmuv3_number;
	const char *apple_name;
	uint16_t apple_number; /* the M1 number the driver programs */
};
size_t pms_apple_compat_count(void);
const struct pms_apple_compat *pms_apple_compat_at(size_t i);

/* The Linux driver's counter model (drivers/perf/apple_m1_cpu_pmu.c, the
 * M1 and M2 PMUs): 10 counters, #0 wired to cycles and #1 to instructions;
 * each event number (config:0-7) may go only on the counters of its
 * affinity mask (m1_pmu_event_affinity; counters 2-9 unless the table says
 * otherwise), and m1_pmu_get_event_idx takes the first free one. */
#define PMS_APPLE_NCOUNTERS 10
/* The affinity mask (bit n = counter n) of event (config:0-7); 0 for a
 * number above 0xFF, which the driver cannot take. */
uint16_t pms_apple_event_affinity(uint32_t event);
/* The counter width the driver advertises for a PMU name: 47 for the M1's
 * apple_icestorm_pmu/apple_firestorm_pmu (ARMPMU_EVT_47BIT), 63 for the
 * M2's apple_blizzard_pmu/apple_avalanche_pmu (ARMPMU_EVT_63BIT), 0 for any
 * other name. */
unsigned pms_apple_pmu_counter_bits(const char *pmu);
/* m1_pmu_perf_map: PERF_COUNT_HW_CPU_CYCLES -> 0x02, INSTRUCTIONS -> 0x8c;
 * -1 for every other generic event (the driver's ENOENT). */
int pms_apple_hw_event(uint64_t hw_id);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
