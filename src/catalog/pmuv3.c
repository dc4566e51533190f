/* Arm PMUv3 driver rules as data: the generic-event maps and the threshold
 * check of drivers/perf/arm_pmuv3.c.
 *
 * Source: linux@e43ffb69e043 (v7.1-rc6, the seed 004 reading), lines as the
 * seed gives them: arm_pmuv3.c:45-160 (armv8_pmuv3_perf_map,
 * armv8_pmuv3_perf_cache_map and the a53/a57/a73/thunder/vulcan override
 * cache maps), :1198-1214 (__armv8_pmuv3_map_event_id: the
 * branch-instructions special case), :1275-1300 (__armv8_pmuv3_map_event:
 * "Only expose micro/arch events supported by this PMU", then the per-core
 * extra maps), :311-360 (threshold, threshold_compare, threshold_count
 * format fields in config1 and threshold_max in caps/), :1142-1152
 * (armv8pmu_set_event_filter: th > threshold_max is EINVAL; TH/TC written
 * only when th != 0).  drivers/perf/arm_pmu.c armpmu_map_hw_event /
 * armpmu_map_cache_event (v6.12 :80-120): config past the enums is EINVAL, an
 * unsupported slot or a NULL map is ENOENT.  PMCEID is read from events/:
 * the driver shows a common event there only when its PMCEID bit is set
 * (armv8pmu_event_attr_is_visible, arm_pmuv3.c:281-289). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/armpmu.h"
#include "pmuscope/pmuv3.h"
#include "util/error.h"

enum {
	SW_INCR = 0x00, L1I_CACHE_REFILL = 0x01, L1I_TLB_REFILL = 0x02,
	L1D_CACHE_REFILL = 0x03, L1D_CACHE = 0x04, L1D_TLB_REFILL = 0x05,
	INST_RETIRED = 0x08, PC_WRITE_RETIRED = 0x0c, BR_MIS_PRED = 0x10,
	CPU_CYCLES = 0x11, BR_PRED = 0x12, L1I_CACHE = 0x14, BUS_CYCLES = 0x1d,
	BR_RETIRED = 0x21, STALL_FRONTEND = 0x23, STALL_BACKEND = 0x24,
	L1D_TLB = 0x25, L1I_TLB = 0x26, LL_CACHE_RD = 0x36, LL_CACHE_MISS_RD = 0x37,
	/* recommended IMPDEF (include/linux/perf/arm_pmuv3.h ARMV8_IMPDEF_*) */
	L1D_CACHE_RD = 0x40, L1D_CACHE_WR = 0x41, L1D_CACHE_REFILL_RD = 0x42,
	L1D_CACHE_REFILL_WR = 0x43, L1D_TLB_REFILL_RD = 0x4c, L1D_TLB_REFILL_WR = 0x4d,
	L1D_TLB_RD = 0x4e, L1D_TLB_WR = 0x4f, BUS_ACCESS_RD = 0x60, BUS_ACCESS_WR = 0x61,
	/* core-specific (arm_pmuv3.c ARMV8_A53_* and ARMV8_THUNDER_*) */
	A53_PREF_LINEFILL = 0xc2, THUNDER_L1D_MISS_ST = 0xe9, THUNDER_L1D_PREF_ACCESS = 0xea,
	THUNDER_L1D_PREF_MISS = 0xeb, THUNDER_L1I_PREF_ACCESS = 0xec,
	THUNDER_L1I_PREF_MISS = 0xed,
	NONE = -1,
};

/* armv8_pmuv3_perf_map, by PERF_COUNT_HW_* (branch-instructions is the
 * special case before it, see map_hw). */
static const int hw_map[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = CPU_CYCLES,
	[PERF_COUNT_HW_INSTRUCTIONS] = INST_RETIRED,
	[PERF_COUNT_HW_CACHE_REFERENCES] = L1D_CACHE,
	[PERF_COUNT_HW_CACHE_MISSES] = L1D_CACHE_REFILL,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = PC_WRITE_RETIRED,
	[PERF_COUNT_HW_BRANCH_MISSES] = BR_MIS_PRED,
	[PERF_COUNT_HW_BUS_CYCLES] = BUS_CYCLES,
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = STALL_FRONTEND,
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = STALL_BACKEND,
	[PERF_COUNT_HW_REF_CPU_CYCLES] = NONE,
};

/* One cache-map slot: cache id, op, result -> event. */
struct cslot {
	uint8_t cache, op, result;
	int event;
};

#define R PERF_COUNT_HW_CACHE_OP_READ
#define W PERF_COUNT_HW_CACHE_OP_WRITE
#define P PERF_COUNT_HW_CACHE_OP_PREFETCH
#define A PERF_COUNT_HW_CACHE_RESULT_ACCESS
#define M PERF_COUNT_HW_CACHE_RESULT_MISS

static const struct cslot pmuv3_cache[] = {
	{ PERF_COUNT_HW_CACHE_L1D, R, A, L1D_CACHE },
	{ PERF_COUNT_HW_CACHE_L1D, R, M, L1D_CACHE_REFILL },
	{ PERF_COUNT_HW_CACHE_L1I, R, A, L1I_CACHE },
	{ PERF_COUNT_HW_CACHE_L1I, R, M, L1I_CACHE_REFILL },
	{ PERF_COUNT_HW_CACHE_DTLB, R, M, L1D_TLB_REFILL },
	{ PERF_COUNT_HW_CACHE_DTLB, R, A, L1D_TLB },
	{ PERF_COUNT_HW_CACHE_ITLB, R, M, L1I_TLB_REFILL },
	{ PERF_COUNT_HW_CACHE_ITLB, R, A, L1I_TLB },
	{ PERF_COUNT_HW_CACHE_LL, R, M, LL_CACHE_MISS_RD },
	{ PERF_COUNT_HW_CACHE_LL, R, A, LL_CACHE_RD },
	{ PERF_COUNT_HW_CACHE_BPU, R, A, BR_PRED },
	{ PERF_COUNT_HW_CACHE_BPU, R, M, BR_MIS_PRED },
	{ 0, 0, 0, NONE },
};

static const struct cslot a53_cache[] = {
	{ PERF_COUNT_HW_CACHE_L1D, P, M, A53_PREF_LINEFILL },
	{ PERF_COUNT_HW_CACHE_NODE, R, A, BUS_ACCESS_RD },
	{ PERF_COUNT_HW_CACHE_NODE, W, A, BUS_ACCESS_WR },
	{ 0, 0, 0, NONE },
};

static const struct cslot a57_cache[] = {
	{ PERF_COUNT_HW_CACHE_L1D, R, A, L1D_CACHE_RD },
	{ PERF_COUNT_HW_CACHE_L1D, R, M, L1D_CACHE_REFILL_RD },
	{ PERF_COUNT_HW_CACHE_L1D, W, A, L1D_CACHE_WR },
	{ PERF_COUNT_HW_CACHE_L1D, W, M, L1D_CACHE_REFILL_WR },
	{ PERF_COUNT_HW_CACHE_DTLB, R, M, L1D_TLB_REFILL_RD },
	{ PERF_COUNT_HW_CACHE_DTLB, W, M, L1D_TLB_REFILL_WR },
	{ PERF_COUNT_HW_CACHE_NODE, R, A, BUS_ACCESS_RD },
	{ PERF_COUNT_HW_CACHE_NODE, W, A, BUS_ACCESS_WR },
	{ 0, 0, 0, NONE },
};

static const struct cslot a73_cache[] = {
	{ PERF_COUNT_HW_CACHE_L1D, R, A, L1D_CACHE_RD },
	{ PERF_COUNT_HW_CACHE_L1D, W, A, L1D_CACHE_WR },
	{ 0, 0, 0, NONE },
};

static const struct cslot thunder_cache[] = {
	{ PERF_COUNT_HW_CACHE_L1D, R, A, L1D_CACHE_RD },
	{ PERF_COUNT_HW_CACHE_L1D, R, M, L1D_CACHE_REFILL_RD },
	{ PERF_COUNT_HW_CACHE_L1D, W, A, L1D_CACHE_WR },
	{ PERF_COUNT_HW_CACHE_L1D, W, M, THUNDER_L1D_MISS_ST },
	{ PERF_COUNT_HW_CACHE_L1D, P, A, THUNDER_L1D_PREF_ACCESS },
	{ PERF_COUNT_HW_CACHE_L1D, P, M, THUNDER_L1D_PREF_MISS },
	{ PERF_COUNT_HW_CACHE_L1I, P, A, THUNDER_L1I_PREF_ACCESS },
	{ PERF_COUNT_HW_CACHE_L1I, P, M, THUNDER_L1I_PREF_MISS },
	{ PERF_COUNT_HW_CACHE_DTLB, R, A, L1D_TLB_RD },
	{ PERF_COUNT_HW_CACHE_DTLB, R, M, L1D_TLB_REFILL_RD },
	{ PERF_COUNT_HW_CACHE_DTLB, W, A, L1D_TLB_WR },
	{ PERF_COUNT_HW_CACHE_DTLB, W, M, L1D_TLB_REFILL_WR },
	{ 0, 0, 0, NONE },
};

static const struct cslot vulcan_cache[] = {
	{ PERF_COUNT_HW_CACHE_L1D, R, A, L1D_CACHE_RD },
	{ PERF_COUNT_HW_CACHE_L1D, R, M, L1D_CACHE_REFILL_RD },
	{ PERF_COUNT_HW_CACHE_L1D, W, A, L1D_CACHE_WR },
	{ PERF_COUNT_HW_CACHE_L1D, W, M, L1D_CACHE_REFILL_WR },
	{ PERF_COUNT_HW_CACHE_DTLB, R, A, L1D_TLB_RD },
	{ PERF_COUNT_HW_CACHE_DTLB, W, A, L1D_TLB_WR },
	{ PERF_COUNT_HW_CACHE_DTLB, R, M, L1D_TLB_REFILL_RD },
	{ PERF_COUNT_HW_CACHE_DTLB, W, M, L1D_TLB_REFILL_WR },
	{ PERF_COUNT_HW_CACHE_NODE, R, A, BUS_ACCESS_RD },
	{ PERF_COUNT_HW_CACHE_NODE, W, A, BUS_ACCESS_WR },
	{ 0, 0, 0, NONE },
};

#undef R
#undef W
#undef P
#undef A
#undef M

/* The PMUV3_INIT_MAP_EVENT rows (arm_pmuv3.c): the devicetree names whose
 * map_event passes an extra cache map.  Every other PMUv3 name (ACPI's
 * armv8_pmuv3_N, the PMUV3_INIT_SIMPLE cores) has none. */
static const struct {
	const char *name;
	const struct cslot *map;
	const char *rule;
} extra_maps[] = {
	{ "armv8_cortex_a35", a53_cache, "armv8_a53_perf_cache_map" },
	{ "armv8_cortex_a53", a53_cache, "armv8_a53_perf_cache_map" },
	{ "armv8_cortex_a57", a57_cache, "armv8_a57_perf_cache_map" },
	{ "armv8_cortex_a72", a57_cache, "armv8_a57_perf_cache_map" },
	{ "armv8_cortex_a73", a73_cache, "armv8_a73_perf_cache_map" },
	{ "armv8_cavium_thunder", thunder_cache, "armv8_thunder_perf_cache_map" },
	{ "armv8_brcm_vulcan", vulcan_cache, "armv8_vulcan_perf_cache_map" },
};

bool pms_pmu_is_pmuv3(const struct pms_pmu *pmu)
{
	return pmu && pmu->name &&
	       (!strncmp(pmu->name, "armv8_", 6) || !strncmp(pmu->name, "armv9_", 6));
}

static int slot_lookup(const struct cslot *map, unsigned c, unsigned op, unsigned res)
{
	for (; map && map->event != NONE; map++)
		if (map->cache == c && map->op == op && map->result == res)
			return map->event;
	return NONE;
}

/* The common event's PMCEID bit, as events/ shows it. */
static bool implemented(const struct pms_pmu *pmu, int ev)
{
	return !pmu->nevents || pms_pmu_lists_code(pmu, (uint64_t)ev);
}

static void set_mapped(struct pms_pmuv3_mapping *out, int ev, const char *rule)
{
	const struct pms_arm_event *e = pms_arm_event_by_number((uint16_t)ev);
	out->status = PMS_PMUV3_MAPPED;
	out->event = (uint16_t)ev;
	out->event_name = e ? e->name : NULL;
	out->rule = rule;
}

static void set_refused(struct pms_pmuv3_mapping *out, int err, const char *rule)
{
	out->status = PMS_PMUV3_UNSUPPORTED;
	out->kernel_errno = err;
	out->rule = rule;
}

int pms_pmuv3_map_generic(const struct pms_pmu *pmu, uint32_t type, uint64_t config,
			  struct pms_pmuv3_mapping *out)
{
	const struct cslot *extra = NULL;
	const char *extra_rule = NULL;
	int ev = NONE;

	if (!pmu || !out)
		return pms_err(PMS_EINVAL, "pms_pmuv3_map_generic: NULL argument");
	memset(out, 0, sizeof(*out));
	if (!pms_pmu_is_pmuv3(pmu) || (type != PERF_TYPE_HARDWARE && type != PERF_TYPE_HW_CACHE))
		return 0;
	out->pmceid_known = pmu->nevents > 0;
	config &= 0xffffffffu; /* the extended type is gone before the driver sees it */
	for (size_t i = 0; i < sizeof(extra_maps) / sizeof(extra_maps[0]); i++)
		if (!strcmp(pmu->name, extra_maps[i].name)) {
			extra = extra_maps[i].map;
			extra_rule = extra_maps[i].rule;
		}

	if (type == PERF_TYPE_HARDWARE) {
		if (config >= PERF_COUNT_HW_MAX) {
			set_refused(out, EINVAL, "armpmu_map_hw_event: config past PERF_COUNT_HW_MAX");
			return 0;
		}
		if (config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS) {
			/* __armv8_pmuv3_map_event_id: BR_RETIRED where PMCEID has it,
			 * else PC_WRITE_RETIRED, else unsupported */
			if (implemented(pmu, BR_RETIRED)) {
				set_mapped(out, BR_RETIRED, "branch-instructions: BR_RETIRED (PMCEID has it)");
				return 0;
			}
			if (implemented(pmu, PC_WRITE_RETIRED)) {
				set_mapped(out, PC_WRITE_RETIRED,
					   "branch-instructions fallback: PC_WRITE_RETIRED (PMCEID lacks BR_RETIRED)");
				return 0;
			}
			set_refused(out, ENOENT,
				    "branch-instructions: PMCEID has neither BR_RETIRED nor PC_WRITE_RETIRED");
			return 0;
		}
		ev = hw_map[config] ? hw_map[config] : NONE;
		if (ev > 0 && ev < 0x40 && implemented(pmu, ev)) {
			set_mapped(out, ev, "armv8_pmuv3_perf_map");
			return 0;
		}
		/* every PMUv3 map_event passes a NULL extra_event_map: ENOENT */
		set_refused(out, ENOENT, ev == NONE ? "armv8_pmuv3_perf_map has no event for it"
						    : "armv8_pmuv3_perf_map's event is not in PMCEID (not in events/)");
		return 0;
	}

	unsigned c = config & 0xff, op = (config >> 8) & 0xff, res = (config >> 16) & 0xff;
	if (c >= PERF_COUNT_HW_CACHE_MAX || op >= PERF_COUNT_HW_CACHE_OP_MAX ||
	    res >= PERF_COUNT_HW_CACHE_RESULT_MAX || (config >> 24)) {
		set_refused(out, EINVAL, "armpmu_map_cache_event: cache, op or result out of range");
		return 0;
	}
	ev = slot_lookup(pmuv3_cache, c, op, res);
	if (ev > 0 && ev < 0x40 && implemented(pmu, ev)) {
		set_mapped(out, ev, "armv8_pmuv3_perf_cache_map");
		return 0;
	}
	/* the per-core extra cache map; its events are not PMCEID-checked */
	int xev = slot_lookup(extra, c, op, res);
	if (xev != NONE) {
		set_mapped(out, xev, extra_rule);
		return 0;
	}
	if (ev != NONE)
		set_refused(out, ENOENT, extra ? "armv8_pmuv3_perf_cache_map's event is not in PMCEID, and the core's extra cache map has none"
					       : "armv8_pmuv3_perf_cache_map's event is not in PMCEID (not in events/)");
	else
		set_refused(out, ENOENT, extra ? "neither armv8_pmuv3_perf_cache_map nor the core's extra cache map has it"
					       : "armv8_pmuv3_perf_cache_map has no event for it");
	return 0;
}

const char *pms_pmuv3_compare_name(unsigned compare)
{
	static const char *const names[] = { "not-equal", "equal", "greater-or-equal",
					     "less-than" };
	return compare < 4 ? names[compare] : NULL;
}

static int term_value(const struct pms_pmu *pmu, const struct perf_event_attr *attr,
		      const char *term, uint64_t *v)
{
	const struct pms_format *f = pms_pmu_format(pmu, term);
	uint64_t word, mask, out = 0;
	unsigned bit = 0;
	*v = 0;
	if (!f || pms_format_attr_get(f, attr, &word) < 0)
		return 0;
	mask = pms_format_mask(f);
	for (unsigned b = 0; b < 64; b++)
		if (mask & (1ULL << b)) {
			if (word & (1ULL << b))
				out |= 1ULL << bit;
			bit++;
		}
	*v = out;
	return 1;
}

int pms_pmuv3_threshold(const struct pms_pmu *pmu, const struct perf_event_attr *attr,
			struct pms_pmuv3_threshold *out)
{
	uint64_t th, cmp, cnt;
	const char *cap;

	if (!pmu || !attr || !out)
		return pms_err(PMS_EINVAL, "pms_pmuv3_threshold: NULL argument");
	memset(out, 0, sizeof(*out));
	if (!pms_pmu_is_pmuv3(pmu) || !term_value(pmu, attr, "threshold", &th))
		return 0;
	term_value(pmu, attr, "threshold_compare", &cmp);
	term_value(pmu, attr, "threshold_count", &cnt);
	/* threshold_max(): (1 << PMMIR.THWIDTH) - 1, 0 without FEAT_PMUv3_TH */
	cap = pms_pmu_cap(pmu, "threshold_max");
	out->max = cap ? (uint32_t)strtoul(cap, NULL, 0) : 0;
	out->threshold = (uint32_t)th;
	out->compare = (unsigned)cmp & 3;
	out->count = (unsigned)cnt & 1;
	if (th > out->max)
		return pms_err(PMS_EINVAL,
			       "%s: threshold=%" PRIu64 " exceeds caps/threshold_max=%" PRIu32
			       "%s: armv8pmu_set_event_filter() refuses it with EINVAL (\"PMU event threshold exceeds max value\")",
			       pmu->name, th, out->max,
			       out->max ? "" : " (THWIDTH 0: this core has no FEAT_PMUv3_TH)");
	if (th) {
		/* TC[2:1] = compare, TC[0] = count (armv8pmu_event_threshold_control) */
		uint64_t tc = ((uint64_t)out->compare << 1) | out->count;
		out->applied = true;
		out->evtyper_bits = ((th & 0xfff) << 32) | (tc << 61);
	}
	return 0;
}
