/* Apple Silicon event tables (not PMUv3).  Facts from seed 004: macOS kpep
 * catalogs /usr/share/kpep/{as1,a14,as3,as4-1,as5}.plist read on an M4 Max
 * [hw-verified: aarch64-darwin], and drivers/perf/apple_m1_cpu_pmu.c at
 * linux@e43ffb69e043 [source-verified].  Partial: the seed lists only the
 * common subset below, not the 60-103 events of each generation. */
#include <string.h>
#include <strings.h>

#include "catalog/arm_int.h"
#include "util/error.h"

/* Order fixes the index used by pms_apple_event.number[]. */
static const struct pms_apple_gen gens[PMS_APPLE_NGENS] = {
	/* id      chip      events ARM_ fixed config  bits partial pmuv3-numbering */
	{ "as1", "M1", 66, 0, 3, 1020, 48, true, false },
	{ "a14", "A14", 60, 0, 3, 1020, 0, true, false },
	{ "as3", "M3", 66, 0, 3, 1020, 64, true, false },
	{ "as4-1", "M4 Max", 103, 12, 3, 1020, 64, true, true },
	{ "as5", "M5", 103, 12, 3, 1020, 64, true, true },
};

#define A PMS_APPLE_ABSENT
#define U PMS_APPLE_UNKNOWN
/* kpep numbers per generation (seed 004, "The M4 encoding change" table).
 * From as4-1 on, the common subset moved onto PMUv3 numbers. */
static const struct pms_apple_event events[] = {
	{ "INST_ALL", { 0x8c, 0x8c, 0x8c, 0x8, 0x8 }, { 0, 0, 0, 252, 0 } },
	{ "CORE_ACTIVE_CYCLE", { 0x2, 0x2, 0x2, 0x11, 0x11 }, { 0 } },
	{ "INST_BRANCH", { 0x8d, 0x8d, 0x8d, 0x21, 0x21 }, { 0 } },
	{ "RETIRE_UOP", { 0x1, 0x1, 0x1, 0x3a, 0x3a }, { 0 } },
	{ "BRANCH_MISPRED_NONSPEC", { 0xcb, 0xcb, 0xcb, 0x22, 0x22 }, { 0 } },
	/* The 8-bit values Linux reverse-engineered (0xa3, 0xde) match A14's
	 * encoding, not M1's wide one (apple_m1_cpu_pmu.c:24). */
	{ "L1D_CACHE_MISS_LD", { 0x5a3, 0xa3, 0x5a3, 0x5a3, 0x5a3 }, { 0 } },
	{ "FETCH_RESTART", { 0x1de, 0xde, 0x1de, 0x1de, 0x1de }, { 0 } },
	{ "L1I_CACHE_MISS_DEMAND", { 0x1db, U, U, U, U }, { 0 } },
	{ "ARM_L1D_CACHE", { A, A, A, 0x4, 0x4 }, { 0 } },
	{ "ARM_BR_MIS_PRED", { A, A, A, 0x10, 0x10 }, { 0 } },
};
#undef A
#undef U

/* m1_pmu_pmceid_map: the only PMUv3 names Linux maps onto Apple numbers
 * (apple_m1_cpu_pmu.c:170-187,568-586). */
static const struct pms_apple_compat compat[] = {
	{ "INST_RETIRED", 0x08, "INST_ALL", 0x8c },
	{ "CPU_CYCLES", 0x11, "CORE_ACTIVE_CYCLE", 0x02 },
	{ "BR_RETIRED", 0x21, "INST_BRANCH", 0x8d },
	{ "BR_MIS_PRED_RETIRED", 0x22, "BRANCH_MISPRED_NONSPEC", 0xcb },
};

size_t pms_apple_gen_count(void)
{
	return PMS_APPLE_NGENS;
}

const struct pms_apple_gen *pms_apple_gen_at(size_t i)
{
	return i < PMS_APPLE_NGENS ? &gens[i] : NULL;
}

int pms_apple_gen_index(const char *id)
{
	for (int i = 0; id && i < PMS_APPLE_NGENS; i++)
		if (!strcasecmp(gens[i].id, id))
			return i;
	return -1;
}

size_t pms_apple_event_count(void)
{
	return sizeof(events) / sizeof(events[0]);
}

const struct pms_apple_event *pms_apple_event_at(size_t i)
{
	return i < pms_apple_event_count() ? &events[i] : NULL;
}

const struct pms_apple_event *pms_apple_event_find(const char *name)
{
	for (size_t i = 0; name && i < pms_apple_event_count(); i++)
		if (!strcasecmp(events[i].name, name))
			return &events[i];
	return NULL;
}

int pms_apple_number(const char *gen, const char *name, uint32_t *number)
{
	int g = pms_apple_gen_index(gen);
	if (g < 0)
		return pms_err(PMS_ENOENT,
			       "unknown Apple generation \"%s\" (known: as1, a14, as3, as4-1, as5)",
			       gen ? gen : "(null)");
	const struct pms_apple_event *ev = pms_apple_event_find(name);
	if (!ev)
		return pms_err(PMS_ENOENT,
			       "Apple event \"%s\" is not in pmuscope's partial table for %s",
			       name ? name : "(null)", gens[g].id);
	if (ev->number[g] == PMS_APPLE_ABSENT)
		return pms_err(PMS_ENOENT, "Apple event %s does not exist on %s (%s)", ev->name,
			       gens[g].id, gens[g].chip);
	if (ev->number[g] < 0)
		return pms_err(PMS_ENOENT, "the number of Apple event %s on %s is not known to pmuscope",
			       ev->name, gens[g].id);
	*number = (uint32_t)ev->number[g];
	return 0;
}

/* M1_PMU_CFG_EVENT GENMASK(7,0), format event=config:0-7
 * (apple_m1_cpu_pmu.c:24,215). */
bool pms_apple_linux_expressible(uint32_t number)
{
	return number <= 0xFF;
}

size_t pms_apple_compat_count(void)
{
	return sizeof(compat) / sizeof(compat[0]);
}

const struct pms_apple_compat *pms_apple_compat_at(size_t i)
{
	return i < pms_apple_compat_count() ? &compat[i] : NULL;
}

/* drivers/perf/apple_m1_cpu_pmu.c (torvalds/linux at 0401bbf5; the same
 * table since the driver's v5.17 merge): ANY_BUT_0_1 GENMASK(9,2),
 * ONLY_2_TO_7 GENMASK(7,2), ONLY_2_4_6, ONLY_5_6_7, and the per-event rows
 * of m1_pmu_event_affinity. */
#define ANY_BUT_0_1 0x3fc
#define ONLY_2_TO_7 0x0fc
#define ONLY_2_4_6 0x054
#define ONLY_5_6_7 0x0e0
#define C7 0x080
static const struct {
	uint8_t event;
	uint16_t mask;
} affinity[] = {
	{ 0x01, C7 },                       /* RETIRE_UOP */
	{ 0x02, ANY_BUT_0_1 | 0x1 },        /* CORE_ACTIVE_CYCLE: also counter 0 */
	{ 0x8c, C7 | 0x2 },                 /* INST_ALL: counter 7 or 1 */
	{ 0x8d, ONLY_5_6_7 }, { 0x8e, ONLY_5_6_7 }, { 0x8f, ONLY_5_6_7 },
	{ 0x90, ONLY_5_6_7 }, { 0x93, ONLY_5_6_7 }, { 0x94, ONLY_5_6_7 },
	{ 0x95, ONLY_5_6_7 }, { 0x96, C7 }, { 0x97, C7 }, { 0x98, ONLY_5_6_7 },
	{ 0x99, ONLY_5_6_7 }, { 0x9a, C7 }, { 0x9b, C7 }, { 0x9c, ONLY_5_6_7 },
	{ 0x9f, C7 }, { 0xbf, ONLY_5_6_7 }, { 0xc0, ONLY_5_6_7 }, { 0xc1, ONLY_5_6_7 },
	{ 0xc4, ONLY_5_6_7 }, { 0xc5, ONLY_5_6_7 }, { 0xc6, ONLY_5_6_7 },
	{ 0xc8, ONLY_5_6_7 }, { 0xca, ONLY_5_6_7 }, { 0xcb, ONLY_5_6_7 },
	{ 0xf5, ONLY_2_4_6 }, { 0xf6, ONLY_2_4_6 }, { 0xf7, ONLY_2_4_6 },
	{ 0xf8, ONLY_2_TO_7 }, { 0xfd, ONLY_2_4_6 },
};

uint16_t pms_apple_event_affinity(uint32_t event)
{
	if (event > 0xff)
		return 0;
	for (size_t i = 0; i < sizeof(affinity) / sizeof(affinity[0]); i++)
		if (affinity[i].event == event)
			return affinity[i].mask;
	return ANY_BUT_0_1;
}

/* m1_pmu_ice_init/m1_pmu_fire_init (ARMPMU_EVT_47BIT: "bit 47 is what
 * triggers the overflow interrupt"), m2_pmu_avalanche_init/_blizzard_init
 * (ARMPMU_EVT_63BIT). */
unsigned pms_apple_pmu_counter_bits(const char *pmu)
{
	if (!pmu)
		return 0;
	if (!strcmp(pmu, "apple_icestorm_pmu") || !strcmp(pmu, "apple_firestorm_pmu"))
		return 47;
	if (!strcmp(pmu, "apple_avalanche_pmu") || !strcmp(pmu, "apple_blizzard_pmu"))
		return 63;
	return 0;
}

int pms_apple_hw_event(uint64_t hw_id)
{
	return hw_id == 0 ? 0x02 : hw_id == 1 ? 0x8c : -1;
}
