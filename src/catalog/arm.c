/* ARM PMUv3 event space: blocks, classification, --explain, counter facts. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "catalog/arm_int.h"
#include "util/error.h"

/* The 16-bit number line, in order, with no gaps.  Boundaries:
 * include/linux/perf/arm_pmu.h:125 (ARMV8_PMUV3_MAX_COMMON_EVENTS 0x40),
 * include/linux/perf/arm_pmuv3.h:16-206 (common 0x00-0x3F, then IMPDEF 0x40+)
 * and :82-119 (0x4000+ extension events); PMCEID halves per
 * drivers/perf/arm_pmuv3.c:1333-1343.  The 0x8000+ rows follow the numbers
 * ARM-software/data common_armv9.json assigns. */
static const struct pms_arm_block blocks[] = {
	{ 0x0000, 0x001F, PMS_TIER_COMMON, "common",
	  "common architectural and microarchitectural events; present only where the core's PMCEID bit is set (Linux lists them in the PMU's events/ directory)",
	  "PMCEID0_EL0 bits 0-31" },
	{ 0x0020, 0x003F, PMS_TIER_COMMON, "common",
	  "common architectural and microarchitectural events; present only where the core's PMCEID bit is set (Linux lists them in the PMU's events/ directory)",
	  "PMCEID1_EL0 bits 0-31" },
	{ 0x0040, 0x00BF, PMS_TIER_RECOMMENDED, "recommended IMPDEF",
	  "implementation-defined events with Arm-recommended numbers and names; whether a core has one is known only from its vendor table",
	  NULL },
	{ 0x00C0, 0x3FFF, PMS_TIER_IMPDEF, "IMPDEF",
	  "implementation-defined events: vendor-specific meaning, named only by the core's own catalog",
	  NULL },
	{ 0x4000, 0x4003, PMS_TIER_EXTENSION, "SPE",
	  "Statistical Profiling Extension sample-pipeline events",
	  "PMCEID0_EL0 bits 32-35" },
	{ 0x4004, 0x4005, PMS_TIER_EXTENSION, "AMUv1",
	  "Activity Monitors events also countable by the PMU (constant-frequency cycles, memory-bound stalls)",
	  "PMCEID0_EL0 bits 36-37" },
	{ 0x4006, 0x400B, PMS_TIER_EXTENSION, "long-latency miss",
	  "cache misses that take long enough to stall (long-latency miss events)",
	  "PMCEID0_EL0 bits 38-43" },
	{ 0x400C, 0x401F, PMS_TIER_EXTENSION, "trace",
	  "trace buffer / trace unit / cross-trigger events (TRB, TRCEXTOUT, CTI_TRIGOUT, PMU overflow)",
	  "PMCEID0_EL0 bits 44-63" },
	{ 0x4020, 0x4023, PMS_TIER_EXTENSION, "alignment latency",
	  "accesses that pay extra latency for misalignment",
	  "PMCEID1_EL0 bits 32-35" },
	{ 0x4024, 0x403F, PMS_TIER_EXTENSION, "MTE",
	  "Memory Tagging Extension checked accesses (0x4024-0x4026; the rest of the block is unallocated)",
	  "PMCEID1_EL0 bits 36-63" },
	{ 0x4040, 0x7FFF, PMS_TIER_EXTENSION, "extension (unallocated)",
	  "architected extension space with no event pmuscope knows of; not advertised by PMCEID",
	  NULL },
	{ 0x8000, 0x80FF, PMS_TIER_EXTENSION, "SIMD/SVE/FP operations",
	  "Armv8.x/Armv9 operation-type events (SIMD, SVE, FP, integer, load/store widths)",
	  NULL },
	{ 0x8100, 0x81FF, PMS_TIER_EXTENSION, "branch/TLB/cache/stall detail",
	  "Armv9 branch-kind, BRBE, per-cycle, TLB-walk, cache-prefetch and stall-cause events",
	  NULL },
	{ 0x8200, 0xFFFF, PMS_TIER_EXTENSION, "extension (unallocated)",
	  "architected extension space with no event pmuscope knows of; not advertised by PMCEID",
	  NULL },
};

size_t pms_arm_block_count(void)
{
	return sizeof(blocks) / sizeof(blocks[0]);
}

const struct pms_arm_block *pms_arm_block_at(size_t i)
{
	return i < pms_arm_block_count() ? &blocks[i] : NULL;
}

size_t pms_arm_event_count(void)
{
	return pms_arm_nevents;
}

const struct pms_arm_event *pms_arm_event_at(size_t i)
{
	return i < pms_arm_nevents ? &pms_arm_events[i] : NULL;
}

/* The table is sorted by number. */
const struct pms_arm_event *pms_arm_event_by_number(uint16_t number)
{
	size_t lo = 0, hi = pms_arm_nevents;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pms_arm_events[mid].number == number)
			return &pms_arm_events[mid];
		if (pms_arm_events[mid].number < number)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct pms_arm_event *pms_arm_event_by_name(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < pms_arm_nevents; i++)
		if (!strcasecmp(pms_arm_events[i].name, name))
			return &pms_arm_events[i];
	return NULL;
}

int pms_arm_classify(uint32_t number, struct pms_arm_class *out)
{
	if (!out)
		return pms_err(PMS_EINVAL, "pms_arm_classify: out is NULL");
	memset(out, 0, sizeof(*out));
	if (number > 0xFFFF)
		return pms_err(PMS_ERANGE,
			       "ARM event number 0x%" PRIx32 " does not fit PMEVTYPER's 16-bit event field (0x0000-0xFFFF)",
			       number);
	out->number = (uint16_t)number;
	for (size_t i = 0; i < pms_arm_block_count(); i++) {
		if (number >= blocks[i].first && number <= blocks[i].last) {
			out->block = &blocks[i];
			break;
		}
	}
	out->tier = out->block->tier;
	out->event = pms_arm_event_by_number((uint16_t)number);
	if (out->event && out->event->architectural)
		out->tier = PMS_TIER_ARCHITECTURAL;
	/* PMCEIDn_EL0 bit b (b < 32) advertises common event n*32+b; bit b >= 32
	 * advertises 0x4000 + n*32 + (b-32) (arm_pmuv3.c:1333-1343). */
	out->pmceid_reg = out->pmceid_bit = -1;
	if (number < 0x40) {
		out->pmceid_reg = (int)(number / 32);
		out->pmceid_bit = (int)(number % 32);
	} else if (number >= 0x4000 && number < 0x4040) {
		out->pmceid_reg = (int)((number - 0x4000) / 32);
		out->pmceid_bit = 32 + (int)((number - 0x4000) % 32);
	}
	return 0;
}

const char *pms_event_tier_name(enum pms_event_tier t)
{
	switch (t) {
	case PMS_TIER_ARCHITECTURAL: return "architectural";
	case PMS_TIER_COMMON: return "common";
	case PMS_TIER_RECOMMENDED: return "recommended-impdef";
	case PMS_TIER_IMPDEF: return "impdef";
	case PMS_TIER_EXTENSION: return "extension";
	case PMS_TIER_NONE: break;
	}
	return "none";
}

/* snprintf into buf+*len without overrunning, accumulating the needed length. */
static void cat_printf(char *buf, size_t size, size_t *len, const char *fmt, ...)
	PMS_PRINTF(4, 5);

static void cat_printf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(*len < size ? buf + *len : NULL, *len < size ? size - *len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n;
}

size_t pms_arm_explain(uint32_t number, char *buf, size_t size)
{
	struct pms_arm_class c;
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	if (pms_arm_classify(number, &c) < 0) {
		cat_printf(buf, size, &len, "0x%" PRIx32 ": %s\n", number, pms_error_last());
		return len;
	}
	cat_printf(buf, size, &len, "0x%04x", c.number);
	if (c.event)
		cat_printf(buf, size, &len, " %s", c.event->name);
	cat_printf(buf, size, &len, ": tier %s, block \"%s\" (0x%04x-0x%04x)\n",
		   pms_event_tier_name(c.tier), c.block->name, c.block->first, c.block->last);
	if (c.event && c.event->desc)
		cat_printf(buf, size, &len, "  event: %s\n", c.event->desc);
	cat_printf(buf, size, &len, "  block: %s\n", c.block->what);
	if (c.tier == PMS_TIER_ARCHITECTURAL)
		cat_printf(buf, size, &len,
			   "  architectural: mandatory wherever the architecture feature it belongs to is implemented\n");
	if (c.pmceid_reg >= 0)
		cat_printf(buf, size, &len,
			   "  discovery: PMCEID%d_EL0 bit %d says whether this core implements it; Linux exposes it in events/ only then (arm_pmuv3.c:1261-1264)\n",
			   c.pmceid_reg, c.pmceid_bit);
	else
		cat_printf(buf, size, &len,
			   "  discovery: not advertised by PMCEID; only the core's own catalog says whether it exists\n");
	cat_printf(buf, size, &len, "  perf: armv8_pmuv3/event=0x%x/ (PMEVTYPER.evtCount, 16 bits)\n",
		   c.number);
	if (!c.event && (c.tier == PMS_TIER_COMMON || c.tier == PMS_TIER_EXTENSION))
		cat_printf(buf, size, &len, "  name: none known to pmuscope for this number\n");
	return len;
}

/* Counter facts of the Linux PMUv3 driver (drivers/perf/arm_pmuv3.c at
 * linux@e43ffb69e043, via seed 004). */
static const struct pms_arm_fact facts[] = {
	{ "event_bits", "config:0-15",
	  "the event selector is 16 bits; config is the event number for PERF_TYPE_RAW and the per-cluster PMU types",
	  "include/linux/perf/arm_pmuv3.h:239 (ARMV8_PMU_EVTYPE_EVENT)" },
	{ "long", "config1:0",
	  "request a 64-bit event: before PMUv3p5 the driver chains two adjacent 32-bit counters (halving the counters left for a group); from PMUv3p5 PMCR.LP makes event counters 64-bit",
	  "drivers/perf/arm_pmuv3.c:309-311,489-492,504-513,545-583,1189-1190" },
	{ "rdpmc", "config1:1",
	  "user-space counter reads (the rdpmc analog): also needs /proc/sys/kernel/perf_user_access=1, a task-bound event and a single unchained counter; the mmap page then publishes cap_user_rdpmc and pmc_width",
	  "drivers/perf/arm_pmuv3.c:309-311,324,336-339,1249-1258,1412-1422,1605-1622" },
	{ "threshold", "config1 (threshold, threshold_compare, threshold_count when format/ lists them)",
	  "FEAT_PMUv3_TH threshold counting: count only when the per-cycle event value crosses a threshold; the width is capped by PMMIR.THWIDTH",
	  "drivers/perf/arm_pmuv3.c:311-360,416-441,1142-1152" },
	{ "exclude_idle", NULL,
	  "not supported: PMUv3 has no idle filter, so exclude_idle=1 makes perf_event_open fail with EOPNOTSUPP",
	  "drivers/perf/arm_pmuv3.c:1099-1102" },
	{ "exclude_el", NULL,
	  "exclude_user/kernel/hv/host/guest map onto PMEVTYPER's EL filter bits (EXCLUDE_EL0/EL1, INCLUDE_EL2, EXCLUDE_EL3), VHE-aware",
	  "include/linux/perf/arm_pmuv3.h:246-251; drivers/perf/arm_pmuv3.c:1117-1136" },
	{ "counters", NULL,
	  "PMCR.N (bits 15:11) gives the number of general event counters; the cycle counter is index 31 and always 64-bit",
	  "drivers/perf/arm_pmuv3.c:1322-1331; include/linux/perf/arm_pmuv3.h:9-11,219" },
	{ "instruction_counter", NULL,
	  "PMUv3p9 (FEAT_PMUv3_ICNTR) adds a fixed instruction counter at index 32, found through ID_AA64DFR1_EL1.PMICNTR; it is never handed to user-space reads",
	  "arch/arm64/include/asm/arm_pmuv3.h:57-62,92-97; drivers/perf/arm_pmuv3.c:1034-1045" },
	{ "pmceid", NULL,
	  "PMCEID0/1_EL0 say which common events (0x0000-0x003F) and extension events (0x4000-0x403F) the core implements; the driver exposes and accepts only those",
	  "drivers/perf/arm_pmuv3.c:281-289,1261-1264,1333-1343" },
	{ "branch_instructions", NULL,
	  "perf's branch-instructions maps to BR_RETIRED (0x21), falling back to PC_WRITE_RETIRED (0x0C) where PMCEID lacks BR_RETIRED",
	  "drivers/perf/arm_pmuv3.c:1198-1214" },
	{ "big_little", NULL,
	  "each core type has its own PMU (armv8_cortex_a53, ...) with a cpus mask; an event opened on the wrong cluster's PMU never counts",
	  "drivers/perf/arm_pmu.c:519-524,566-573" },
};

size_t pms_arm_fact_count(void)
{
	return sizeof(facts) / sizeof(facts[0]);
}

const struct pms_arm_fact *pms_arm_fact_at(size_t i)
{
	return i < pms_arm_fact_count() ? &facts[i] : NULL;
}

const struct pms_arm_fact *pms_arm_fact_find(const char *key)
{
	for (size_t i = 0; key && i < pms_arm_fact_count(); i++)
		if (!strcmp(facts[i].key, key))
			return &facts[i];
	return NULL;
}
