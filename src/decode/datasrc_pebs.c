/* Intel PEBS status/aux ("dse") word -> data_src.
 *
 * Source: arch/x86/events/intel/ds.c (v7.3-rc7): pebs_data_source[],
 * intel_pmu_pebs_data_source_{nhm,skl,grt,cmt}(), lnc_pebs_data_source[],
 * pnc_pebs_l2_hit_data_source[], arw_pebs_l2_hit_data_source[],
 * omr_data_source[], parse_omr_data_source(), pebs_set_tlb_lock(),
 * load_latency_data(), store_latency_data(), __grt_latency_data(),
 * grt/cmt/lnc/pnc/arw_latency_data(), precise_store_data(),
 * precise_datala_hsw(), get_data_src(); the CPU -> path choice is from
 * arch/x86/events/intel/core.c (intel_pmu_init), model numbers from
 * arch/x86/include/asm/intel-family.h. */
#include <string.h>

#include "pmuscope/datasrc.h"
#include "util/error.h"

#define S(g, n) PMS_MEM_S(g, n)
#define OP_LH (S(OP, LOAD) | S(LVL, HIT))
#define LEVEL(x) S(LVLNUM, x)
#define REM S(REMOTE, REMOTE)
#define SNOOP_NONE_MISS (S(SNOOP, NONE) | S(SNOOP, MISS))

/* ---- tables -------------------------------------------------------------- */

/* pebs_data_source[] (SNB and later); entries 0x10..0xff are 0. */
static const uint64_t tbl_default[16] = {
	[0x00] = S(OP, LOAD) | S(LVL, MISS) | LEVEL(L3) | S(SNOOP, NA), /* unknown L3 */
	[0x01] = OP_LH | S(LVL, L1) | LEVEL(L1) | S(SNOOP, NONE),       /* L1 local */
	[0x02] = OP_LH | S(LVL, LFB) | LEVEL(LFB) | S(SNOOP, NONE),     /* LFB hit */
	[0x03] = OP_LH | S(LVL, L2) | LEVEL(L2) | S(SNOOP, NONE),       /* L2 hit */
	[0x04] = OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOP, NONE),       /* L3 hit */
	[0x05] = OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOP, MISS),       /* L3 hit, snoop miss */
	[0x06] = OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOP, HIT),        /* L3 hit, snoop hit */
	[0x07] = OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOP, HITM),       /* L3 hit, snoop hitm */
	[0x08] = OP_LH | S(LVL, REM_CCE1) | REM | LEVEL(L3) | S(SNOOP, HIT),  /* L3 miss, snoop hit */
	[0x09] = OP_LH | S(LVL, REM_CCE1) | REM | LEVEL(L3) | S(SNOOP, HITM), /* L3 miss, snoop hitm */
	[0x0a] = OP_LH | S(LVL, LOC_RAM) | LEVEL(RAM) | S(SNOOP, HIT),  /* L3 miss, shared */
	[0x0b] = OP_LH | S(LVL, REM_RAM1) | REM | LEVEL(L3) | S(SNOOP, HIT), /* L3 miss, shared */
	[0x0c] = OP_LH | S(LVL, LOC_RAM) | LEVEL(RAM) | SNOOP_NONE_MISS, /* L3 miss, excl */
	[0x0d] = OP_LH | S(LVL, REM_RAM1) | LEVEL(RAM) | REM | SNOOP_NONE_MISS, /* L3 miss, excl */
	[0x0e] = OP_LH | S(LVL, IO) | LEVEL(NA) | S(SNOOP, NONE),       /* I/O */
	[0x0f] = OP_LH | S(LVL, UNC) | LEVEL(NA) | S(SNOOP, NONE),      /* uncached */
};

struct patch {
	uint8_t idx;
	uint64_t val;
};

/* intel_pmu_pebs_data_source_nhm() */
static const struct patch patch_nhm[] = {
	{ 0x05, OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOP, HIT) },
	{ 0x06, OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOP, HITM) },
	{ 0x07, OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOP, HITM) },
};

/* intel_pmu_pebs_data_source_skl(pmem): 0x08/0x09 differ by pmem. */
#define SKL_COMMON                                                            \
	{ 0x0b, OP_LH | LEVEL(RAM) | REM | S(SNOOP, NONE) },                  \
	{ 0x0c, OP_LH | LEVEL(ANY_CACHE) | REM | S(SNOOPX, FWD) },            \
	{ 0x0d, OP_LH | LEVEL(ANY_CACHE) | REM | S(SNOOP, HITM) }
static const struct patch patch_skl[] = {
	{ 0x08, OP_LH | LEVEL(L4) | S(SNOOP, HIT) },
	{ 0x09, OP_LH | LEVEL(L4) | REM | S(SNOOP, HIT) },
	SKL_COMMON,
};
static const struct patch patch_skl_pmem[] = {
	{ 0x08, OP_LH | LEVEL(PMEM) | S(SNOOP, HIT) },
	{ 0x09, OP_LH | LEVEL(PMEM) | REM | S(SNOOP, HIT) },
	SKL_COMMON,
};

/* intel_pmu_pebs_data_source_grt() */
static const struct patch patch_grt[] = {
	{ 0x05, OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOP, HIT) },
	{ 0x06, OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOP, HITM) },
	{ 0x08, OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOPX, FWD) },
};

/* intel_pmu_pebs_data_source_cmt() */
static const struct patch patch_cmt[] = {
	{ 0x07, OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOPX, FWD) },
	{ 0x08, OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOP, HITM) },
	{ 0x0a, OP_LH | S(LVL, LOC_RAM) | LEVEL(RAM) | S(SNOOP, NONE) },
	{ 0x0b, OP_LH | LEVEL(RAM) | REM | S(SNOOP, NONE) },
	{ 0x0c, OP_LH | LEVEL(RAM) | REM | S(SNOOPX, FWD) },
	{ 0x0d, OP_LH | LEVEL(RAM) | REM | S(SNOOP, HITM) },
};

/* lnc_pebs_data_source[] (indexed by the full 8-bit dse; 0x12..0xff are 0). */
static const uint64_t tbl_lnc[0x12] = {
	[0x00] = S(OP, LOAD) | S(LVL, MISS) | LEVEL(L3) | S(SNOOP, NA), /* unknown L3 */
	[0x01] = OP_LH | S(LVL, L1) | LEVEL(L1) | S(SNOOP, NONE),       /* L1 hit */
	[0x02] = OP_LH | S(LVL, L1) | LEVEL(L1) | S(SNOOP, NONE),       /* L1 hit */
	[0x03] = OP_LH | S(LVL, LFB) | LEVEL(LFB) | S(SNOOP, NONE),     /* LFB/L1 MHB hit */
	[0x05] = OP_LH | S(LVL, L2) | LEVEL(L2) | S(SNOOP, NONE),       /* L2 hit */
	[0x06] = OP_LH | LEVEL(L2_MHB) | S(SNOOP, NONE),                /* L2 MHB hit */
	[0x08] = OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOP, NONE),       /* L3 hit */
	[0x0c] = OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOPX, FWD),       /* L3 hit, fwd */
	[0x0d] = OP_LH | S(LVL, L3) | LEVEL(L3) | S(SNOOP, HITM),       /* L3 hit, hitm */
	[0x0f] = S(OP, LOAD) | S(LVL, MISS) | S(LVL, L3) | LEVEL(L3) | S(SNOOP, HITM), /* L3 miss, hitm */
	[0x10] = OP_LH | LEVEL(MSC) | S(SNOOP, NONE),                   /* memory-side cache */
	[0x11] = OP_LH | S(LVL, LOC_RAM) | LEVEL(RAM) | S(SNOOP, NONE), /* local DRAM */
};

#define NON_CACHE (S(OP, LOAD) | S(LVL, NA) | LEVEL(NA) | S(SNOOP, NA))
#define UNCACHED (OP_LH | S(LVL, UNC) | LEVEL(NA) | S(SNOOP, NONE))

/* pnc_pebs_l2_hit_data_source[16] (dse bit 8 = 0, index dse & 0xf). */
static const uint64_t tbl_pnc_l2hit[16] = {
	[0x00] = NON_CACHE,                                            /* non-cache access */
	[0x01] = OP_LH | LEVEL(L0) | S(SNOOP, NONE),                   /* L0 hit */
	[0x02] = OP_LH | S(LVL, L1) | LEVEL(L1) | S(SNOOP, NONE),      /* L1 hit */
	[0x03] = OP_LH | S(LVL, LFB) | LEVEL(LFB) | S(SNOOP, NONE),    /* L1 MHB hit */
	[0x04] = OP_LH | S(LVL, L2) | LEVEL(L2) | S(SNOOP, NONE),      /* L2 hit clean */
	[0x07] = OP_LH | S(LVL, L2) | LEVEL(L2) | S(SNOOP, HIT),       /* L2 snoop hit */
	[0x08] = OP_LH | S(LVL, L2) | LEVEL(L2) | S(SNOOP, HITM),      /* L2 snoop hitm */
	[0x09] = OP_LH | S(LVL, L2) | LEVEL(L2) | S(SNOOP, NONE),      /* L2 prefetch promotion */
	[0x0a] = OP_LH | S(LVL, L2) | LEVEL(L2) | S(SNOOP, NONE),      /* cross-core pf promotion */
	[0x0f] = UNCACHED,                                             /* uncached */
};

/* arw_pebs_l2_hit_data_source[16] (NVL E-core). */
static const uint64_t tbl_arw_l2hit[16] = {
	[0x00] = NON_CACHE,                                         /* non-cache access */
	[0x01] = OP_LH | S(LVL, L1) | LEVEL(L1) | S(SNOOP, NONE),   /* L1 hit */
	[0x02] = OP_LH | S(LVL, LFB) | LEVEL(LFB) | S(SNOOP, NONE), /* WCB hit */
	[0x03] = OP_LH | S(LVL, L2) | LEVEL(L2) | S(SNOOP, NONE),   /* L2 hit clean */
	[0x04] = OP_LH | S(LVL, L2) | LEVEL(L2) | S(SNOOP, HIT),    /* L2 snoop hit */
	[0x05] = OP_LH | S(LVL, L2) | LEVEL(L2) | S(SNOOP, HITM),   /* L2 snoop hitm */
	[0x06] = UNCACHED,                                          /* uncached */
};

#define OMR_L3(r) (OP_LH | S(LVL, L3) | LEVEL(L3) | S(REGION, r))
#define OMR_RAM(r) (OP_LH | LEVEL(RAM) | S(REGION, r))
/* omr_data_source[16] (dse bit 8 = 1, the L2 miss). */
static const uint64_t tbl_omr[16] = {
	[0x00] = NON_CACHE, /* invalid */
	[0x02] = OMR_L3(L_SHARE),      [0x03] = OMR_L3(L_NON_SHARE),
	[0x04] = OMR_L3(O_IO),         [0x05] = OMR_L3(O_SHARE),
	[0x06] = OMR_L3(O_NON_SHARE),  [0x07] = OMR_RAM(MMIO),
	[0x08] = OMR_RAM(MEM0),        [0x09] = OMR_RAM(MEM1),
	[0x0a] = OMR_RAM(MEM2),        [0x0b] = OMR_RAM(MEM3),
	[0x0c] = OMR_RAM(MEM4),        [0x0d] = OMR_RAM(MEM5),
	[0x0e] = OMR_RAM(MEM6),        [0x0f] = OMR_RAM(MEM7),
};

/* Each table: a base array plus patches, like the kernel's copies. */
struct table_def {
	const char *name;
	const uint64_t *base;
	size_t len;      /* entries in base; the kernel array is 0 beyond */
	size_t kern_len; /* the kernel array's size */
	const struct patch *patches;
	size_t npatches;
};

#define ARR(a) (a), (sizeof(a) / sizeof((a)[0]))
#define NOPATCH NULL, 0
#define PATCHES(p) (p), (sizeof(p) / sizeof((p)[0]))

static const struct table_def tables[PMS_PEBS_TBL_COUNT] = {
	[PMS_PEBS_TBL_DEFAULT] = { "default", ARR(tbl_default), 0x100, NOPATCH },
	[PMS_PEBS_TBL_NHM] = { "nhm", ARR(tbl_default), 0x100, PATCHES(patch_nhm) },
	[PMS_PEBS_TBL_SKL] = { "skl", ARR(tbl_default), 0x100, PATCHES(patch_skl) },
	[PMS_PEBS_TBL_SKL_PMEM] = { "skl_pmem", ARR(tbl_default), 0x100, PATCHES(patch_skl_pmem) },
	[PMS_PEBS_TBL_GRT] = { "grt", ARR(tbl_default), 0x100, PATCHES(patch_grt) },
	[PMS_PEBS_TBL_CMT] = { "cmt", ARR(tbl_default), 0x100, PATCHES(patch_cmt) },
	[PMS_PEBS_TBL_LNC] = { "lnc", ARR(tbl_lnc), 0x100, NOPATCH },
	[PMS_PEBS_TBL_PNC_L2HIT] = { "pnc_l2hit", ARR(tbl_pnc_l2hit), 16, NOPATCH },
	[PMS_PEBS_TBL_ARW_L2HIT] = { "arw_l2hit", ARR(tbl_arw_l2hit), 16, NOPATCH },
	[PMS_PEBS_TBL_OMR] = { "omr", ARR(tbl_omr), 16, NOPATCH },
};

uint64_t pms_pebs_table_entry(enum pms_pebs_table t, unsigned idx)
{
	if ((unsigned)t >= PMS_PEBS_TBL_COUNT)
		return 0;
	const struct table_def *d = &tables[t];
	for (size_t i = 0; i < d->npatches; i++)
		if (d->patches[i].idx == idx)
			return d->patches[i].val;
	return idx < d->len ? d->base[idx] : 0;
}

const char *pms_pebs_table_name(enum pms_pebs_table t)
{
	return (unsigned)t < PMS_PEBS_TBL_COUNT ? tables[t].name : NULL;
}

/* ---- dse layouts (union intel_x86_pebs_dse) ------------------------------ */

#define BITV(v, n) ((unsigned)(((v) >> (n)) & 1))

/* parse_omr_data_source (7.3-rc7): dse = source[3:0], remote 4, hitm 5,
 * snoop 6, promoted 7.  Snoop bits are ORed into the entry, so the invalid
 * source 0 carries SNOOP NA|NONE and reserved source 1 SNOOP NONE alone. */
static uint64_t parse_omr(unsigned dse)
{
	unsigned src = dse & 0xf, remote = BITV(dse, 4), hitm = BITV(dse, 5);
	unsigned snoop = BITV(dse, 6), promoted = BITV(dse, 7);
	uint64_t val = tbl_omr[src];

	if (src >= 0x2 && src <= 0x6) {
		if (remote)
			val |= S(LVL, REM_CCE1);
	} else if (src >= 0x8) {
		val |= remote ? S(LVL, REM_RAM1) : S(LVL, LOC_RAM);
	}
	if (remote)
		val |= REM;

	if (src == 0x2) {
		/* (snoop | promoted << 1): 0 NA, 1 MISS, 2 HIT, 3 NONE */
		static const uint64_t l_share_snoop[4] = {
			S(SNOOP, NA), S(SNOOP, MISS), S(SNOOP, HIT), S(SNOOP, NONE),
		};
		val |= hitm ? S(SNOOP, HITM) : l_share_snoop[snoop | (promoted << 1)];
	} else if (src >= 0x3 && src <= 0x6) {
		val |= hitm ? S(SNOOP, HITM) : S(SNOOP, HIT);
		if (snoop)
			val |= S(SNOOPX, FWD);
	} else {
		val |= S(SNOOP, NONE);
	}
	return val;
}

/* pebs_set_tlb_lock */
static uint64_t tlb_lock(unsigned stlb_miss, unsigned locked)
{
	uint64_t v = stlb_miss ? (S(TLB, MISS) | S(TLB, L2))
			       : (S(TLB, HIT) | S(TLB, L1) | S(TLB, L2));
	if (locked)
		v |= S(LOCK, LOCKED);
	return v;
}

static uint64_t blk2(unsigned data_blk, unsigned addr_blk)
{
	uint64_t v = 0;
	if (data_blk)
		v |= S(BLK, DATA);
	if (addr_blk)
		v |= S(BLK, ADDR);
	if (!data_blk && !addr_blk)
		v |= S(BLK, NA);
	return v;
}

#define OP_MASK ((uint64_t)((1u << PMS_MEM_OP_WIDTH) - 1))

static uint64_t set_op(uint64_t v, unsigned op)
{
	return (v & ~OP_MASK) | op;
}

/* ---- per-uarch profiles -------------------------------------------------- */

enum lat_fn { FN_LOAD, FN_GRT, FN_CMT, FN_LNC, FN_PNC, FN_ARW };

struct uarch_def {
	const char *name;
	enum lat_fn fn;
	enum pms_pebs_table table;
	bool no_tlb; /* x86_pmu.pebs_no_tlb (Nehalem) */
	bool block;  /* x86_pmu.pebs_block (Golden Cove, Gracemont and later) */
};

static const struct uarch_def uarchs[PMS_PEBS_UARCH_COUNT] = {
	[PMS_PEBS_UARCH_NHM] = { "nhm", FN_LOAD, PMS_PEBS_TBL_NHM, true, false },
	[PMS_PEBS_UARCH_SNB] = { "snb", FN_LOAD, PMS_PEBS_TBL_DEFAULT, false, false },
	[PMS_PEBS_UARCH_SKL] = { "skl", FN_LOAD, PMS_PEBS_TBL_SKL, false, false },
	[PMS_PEBS_UARCH_SKX] = { "skx", FN_LOAD, PMS_PEBS_TBL_SKL_PMEM, false, false },
	[PMS_PEBS_UARCH_GLC] = { "glc", FN_LOAD, PMS_PEBS_TBL_SKL_PMEM, false, true },
	[PMS_PEBS_UARCH_GLC_HYBRID] = { "glc_hybrid", FN_LOAD, PMS_PEBS_TBL_SKL, false, true },
	[PMS_PEBS_UARCH_GRT] = { "grt", FN_GRT, PMS_PEBS_TBL_GRT, false, true },
	[PMS_PEBS_UARCH_CMT] = { "cmt", FN_CMT, PMS_PEBS_TBL_CMT, false, true },
	[PMS_PEBS_UARCH_LNC] = { "lnc", FN_LNC, PMS_PEBS_TBL_LNC, false, true },
	[PMS_PEBS_UARCH_PNC] = { "pnc", FN_PNC, PMS_PEBS_TBL_PNC_L2HIT, false, true },
	[PMS_PEBS_UARCH_ARW] = { "arw", FN_ARW, PMS_PEBS_TBL_ARW_L2HIT, false, true },
};

const char *pms_pebs_uarch_name(enum pms_pebs_uarch u)
{
	return (unsigned)u < PMS_PEBS_UARCH_COUNT ? uarchs[u].name : NULL;
}

int pms_pebs_uarch_from_name(const char *name, enum pms_pebs_uarch *out)
{
	for (unsigned i = 0; name && i < PMS_PEBS_UARCH_COUNT; i++) {
		if (!strcmp(name, uarchs[i].name)) {
			*out = (enum pms_pebs_uarch)i;
			return 0;
		}
	}
	return pms_err(PMS_ENOENT,
		       "unknown PEBS microarchitecture '%s' (known: nhm snb skl skx glc "
		       "glc_hybrid grt cmt lnc pnc arw)",
		       name ? name : "(null)");
}

enum pms_pebs_table pms_pebs_uarch_table(enum pms_pebs_uarch u)
{
	return (unsigned)u < PMS_PEBS_UARCH_COUNT ? uarchs[u].table : PMS_PEBS_TBL_COUNT;
}

/* ---- the latency functions ----------------------------------------------- */

#define ENTRY(d, i) pms_pebs_table_entry((d)->table, (i))

/* load_latency_data: ld layout dse[3:0], stlb_miss 4, locked 5, data_blk 6,
 * addr_blk 7. */
static uint64_t load_latency(const struct uarch_def *d, uint64_t st)
{
	uint64_t val = ENTRY(d, (unsigned)(st & 0xf));
	if (d->no_tlb)
		return val | S(TLB, NA) | S(LOCK, NA);
	val |= tlb_lock(BITV(st, 4), BITV(st, 5));
	if (!d->block)
		return val | S(BLK, NA);
	return val | blk2(BITV(st, 6), BITV(st, 7));
}

/* store_latency_data: st_lat layout dse[3:0], stlb_miss 4, locked 5; the
 * table is for loads, so mem_op becomes STORE. */
static uint64_t store_latency(const struct uarch_def *d, uint64_t st)
{
	uint64_t val = ENTRY(d, (unsigned)(st & 0xf));
	val |= tlb_lock(BITV(st, 4), BITV(st, 5)) | S(BLK, NA);
	return set_op(val, PMS_MEM_OP_STORE);
}

/* __grt_latency_data(dse, tlb, lock, blk): 16-entry index. */
static uint64_t grt_common(const struct uarch_def *d, unsigned dse, unsigned tlb,
			   unsigned lock, unsigned blk)
{
	uint64_t val = ENTRY(d, dse & 0xf);
	val |= tlb_lock(tlb, lock);
	val |= blk ? S(BLK, DATA) : S(BLK, NA);
	return val;
}

static uint64_t hybrid_latency(const struct uarch_def *d, uint64_t st)
{
	uint64_t val;

	switch (d->fn) {
	case FN_GRT:
		/* Upstream quirk, kept: grt_latency_data passes (ld_locked,
		 * ld_stlb_miss) into (tlb, lock), so on Gracemont a locked access
		 * reads as an STLB miss and an STLB miss as locked. */
		return grt_common(d, (unsigned)(st & 0xf), BITV(st, 5), BITV(st, 4), BITV(st, 6));
	case FN_CMT:
		/* mtl layout: dse[4:0], locked 5, stlb_miss 6, fwd_blk 7. */
		return grt_common(d, (unsigned)(st & 0x1f), BITV(st, 6), BITV(st, 5), BITV(st, 7));
	case FN_LNC:
		/* lnc layout: dse[7:0], stlb_miss 10, locked 11, data_blk 12, addr_blk 13 */
		val = ENTRY(d, (unsigned)(st & 0xff));
		if (!val)
			val = S(OP, LOAD) | LEVEL(NA) | S(SNOOP, NA);
		return val | tlb_lock(BITV(st, 10), BITV(st, 11)) | blk2(BITV(st, 12), BITV(st, 13));
	case FN_PNC:
	case FN_ARW:
		/* pnc/arw layout: dse[7:0], l2_miss 8, stlb_miss 11, locked 12,
		 * data_blk 13, addr_blk 14. */
		if (BITV(st, 8))
			val = parse_omr((unsigned)(st & 0xff));
		else
			val = ENTRY(d, (unsigned)(st & 0xf));
		if (!val)
			val = S(OP, LOAD) | LEVEL(NA) | S(SNOOP, NA);
		return val | tlb_lock(BITV(st, 11), BITV(st, 12)) | blk2(BITV(st, 13), BITV(st, 14));
	case FN_LOAD:
		break;
	}
	return load_latency(d, st);
}

/* precise_store_data (pre-HSW): st layout l1d_hit 0, stlb_miss 4, locked 5. */
static uint64_t precise_store(uint64_t st)
{
	uint64_t val = S(OP, STORE) | S(SNOOP, NA) | S(LVL, L1) | S(TLB, L2);
	val |= BITV(st, 4) ? S(TLB, MISS) : S(TLB, HIT);
	val |= BITV(st, 0) ? S(LVL, HIT) : S(LVL, MISS);
	if (BITV(st, 5))
		val |= S(LOCK, LOCKED);
	return val;
}

/* precise_datala_hsw: PERF_MEM_NA with mem_op set; stores get L1 hit/miss
 * from status bit 0. */
static uint64_t precise_hsw(enum pms_pebs_kind kind, uint64_t st)
{
	uint64_t val = PMS_MEM_NA_VALUE;
	if (kind == PMS_PEBS_HSW_STORE)
		val = set_op(val, PMS_MEM_OP_STORE);
	else if (kind == PMS_PEBS_HSW_LOAD)
		val = set_op(val, PMS_MEM_OP_LOAD);
	if (kind == PMS_PEBS_HSW_STORE) {
		uint64_t lvl_mask = (uint64_t)((1u << PMS_MEM_LVL_WIDTH) - 1) << PMS_MEM_LVL_SHIFT;
		val &= ~lvl_mask;
		val |= S(LVL, L1) | (BITV(st, 0) ? S(LVL, HIT) : S(LVL, MISS));
	}
	return val;
}

int pms_pebs_data_src(enum pms_pebs_uarch u, enum pms_pebs_kind kind, uint64_t status,
		      uint64_t *out)
{
	if (!out)
		return pms_err(PMS_EINVAL, "pms_pebs_data_src: NULL out");
	if ((unsigned)u >= PMS_PEBS_UARCH_COUNT)
		return pms_err(PMS_EINVAL, "pms_pebs_data_src: unknown uarch %d", (int)u);
	const struct uarch_def *d = &uarchs[u];

	switch (kind) {
	case PMS_PEBS_LOAD_LATENCY:
		/* Hybrid-latency paths force mem_op LOAD (a no-op on loads here:
		 * every non-zero entry is already a load). */
		*out = d->fn == FN_LOAD ? load_latency(d, status)
					: set_op(hybrid_latency(d, status), PMS_MEM_OP_LOAD);
		return 0;
	case PMS_PEBS_STORE_LATENCY:
		*out = d->fn == FN_LOAD ? store_latency(d, status)
					: set_op(hybrid_latency(d, status), PMS_MEM_OP_STORE);
		return 0;
	case PMS_PEBS_PRECISE_STORE:
		*out = precise_store(status);
		return 0;
	case PMS_PEBS_HSW_LOAD:
	case PMS_PEBS_HSW_STORE:
	case PMS_PEBS_HSW_NA:
		*out = precise_hsw(kind, status);
		return 0;
	case PMS_PEBS_OTHER:
		*out = PMS_MEM_NA_VALUE;
		return 0;
	}
	return pms_err(PMS_EINVAL, "pms_pebs_data_src: unknown kind %d", (int)kind);
}

/* ---- CPU -> uarch (arch/x86/events/intel/core.c intel_pmu_init) ---------- */

#define NONE_E PMS_PEBS_UARCH_COUNT

struct cpu_row {
	unsigned family, model;
	const char *name; /* intel-family.h */
	enum pms_pebs_uarch p_core, e_core; /* e_core NONE_E: not hybrid */
};

/* Model numbers: arch/x86/include/asm/intel-family.h (not in the facts file;
 * checked against a recent copy).  Westmere shares the Nehalem setup
 * (nhm table, pebs_no_tlb).  Parts core.c knows but the facts do not place
 * (Bartlett Lake, Panther Lake-R, Lakefield, Tremont and older Atoms) are
 * left out, so they get PMS_ENOENT rather than a guess. */
static const struct cpu_row cpu_rows[] = {
	{ 6, 0x1e, "NEHALEM", PMS_PEBS_UARCH_NHM, NONE_E },
	{ 6, 0x1f, "NEHALEM_G", PMS_PEBS_UARCH_NHM, NONE_E },
	{ 6, 0x1a, "NEHALEM_EP", PMS_PEBS_UARCH_NHM, NONE_E },
	{ 6, 0x2e, "NEHALEM_EX", PMS_PEBS_UARCH_NHM, NONE_E },
	{ 6, 0x25, "WESTMERE", PMS_PEBS_UARCH_NHM, NONE_E },
	{ 6, 0x2c, "WESTMERE_EP", PMS_PEBS_UARCH_NHM, NONE_E },
	{ 6, 0x2f, "WESTMERE_EX", PMS_PEBS_UARCH_NHM, NONE_E },
	{ 6, 0x2a, "SANDYBRIDGE", PMS_PEBS_UARCH_SNB, NONE_E },
	{ 6, 0x2d, "SANDYBRIDGE_X", PMS_PEBS_UARCH_SNB, NONE_E },
	{ 6, 0x3a, "IVYBRIDGE", PMS_PEBS_UARCH_SNB, NONE_E },
	{ 6, 0x3e, "IVYBRIDGE_X", PMS_PEBS_UARCH_SNB, NONE_E },
	{ 6, 0x3c, "HASWELL", PMS_PEBS_UARCH_SNB, NONE_E },
	{ 6, 0x3f, "HASWELL_X", PMS_PEBS_UARCH_SNB, NONE_E },
	{ 6, 0x45, "HASWELL_L", PMS_PEBS_UARCH_SNB, NONE_E },
	{ 6, 0x46, "HASWELL_G", PMS_PEBS_UARCH_SNB, NONE_E },
	{ 6, 0x3d, "BROADWELL", PMS_PEBS_UARCH_SNB, NONE_E },
	{ 6, 0x47, "BROADWELL_G", PMS_PEBS_UARCH_SNB, NONE_E },
	{ 6, 0x4f, "BROADWELL_X", PMS_PEBS_UARCH_SNB, NONE_E },
	{ 6, 0x56, "BROADWELL_D", PMS_PEBS_UARCH_SNB, NONE_E },
	{ 6, 0x4e, "SKYLAKE_L", PMS_PEBS_UARCH_SKL, NONE_E },
	{ 6, 0x5e, "SKYLAKE", PMS_PEBS_UARCH_SKL, NONE_E },
	{ 6, 0x8e, "KABYLAKE_L", PMS_PEBS_UARCH_SKL, NONE_E },
	{ 6, 0x9e, "KABYLAKE", PMS_PEBS_UARCH_SKL, NONE_E },
	{ 6, 0xa5, "COMETLAKE", PMS_PEBS_UARCH_SKL, NONE_E },
	{ 6, 0xa6, "COMETLAKE_L", PMS_PEBS_UARCH_SKL, NONE_E },
	{ 6, 0x7d, "ICELAKE", PMS_PEBS_UARCH_SKL, NONE_E },
	{ 6, 0x7e, "ICELAKE_L", PMS_PEBS_UARCH_SKL, NONE_E },
	{ 6, 0x8c, "TIGERLAKE_L", PMS_PEBS_UARCH_SKL, NONE_E },
	{ 6, 0x8d, "TIGERLAKE", PMS_PEBS_UARCH_SKL, NONE_E },
	{ 6, 0xa7, "ROCKETLAKE", PMS_PEBS_UARCH_SKL, NONE_E },
	{ 6, 0x55, "SKYLAKE_X", PMS_PEBS_UARCH_SKX, NONE_E },
	{ 6, 0x6a, "ICELAKE_X", PMS_PEBS_UARCH_SKX, NONE_E },
	{ 6, 0x6c, "ICELAKE_D", PMS_PEBS_UARCH_SKX, NONE_E },
	{ 6, 0x8f, "SAPPHIRERAPIDS_X", PMS_PEBS_UARCH_GLC, NONE_E },
	{ 6, 0xcf, "EMERALDRAPIDS_X", PMS_PEBS_UARCH_GLC, NONE_E },
	{ 6, 0xad, "GRANITERAPIDS_X", PMS_PEBS_UARCH_GLC, NONE_E },
	{ 6, 0xae, "GRANITERAPIDS_D", PMS_PEBS_UARCH_GLC, NONE_E },
	{ 6, 0xbe, "ATOM_GRACEMONT", PMS_PEBS_UARCH_GRT, NONE_E },
	{ 6, 0xaf, "ATOM_CRESTMONT_X", PMS_PEBS_UARCH_CMT, NONE_E },
	{ 6, 0xb6, "ATOM_CRESTMONT", PMS_PEBS_UARCH_CMT, NONE_E },
	{ 6, 0xdd, "ATOM_DARKMONT_X", PMS_PEBS_UARCH_CMT, NONE_E },
	{ 6, 0x97, "ALDERLAKE", PMS_PEBS_UARCH_GLC_HYBRID, PMS_PEBS_UARCH_GRT },
	{ 6, 0x9a, "ALDERLAKE_L", PMS_PEBS_UARCH_GLC_HYBRID, PMS_PEBS_UARCH_GRT },
	{ 6, 0xb7, "RAPTORLAKE", PMS_PEBS_UARCH_GLC_HYBRID, PMS_PEBS_UARCH_GRT },
	{ 6, 0xba, "RAPTORLAKE_P", PMS_PEBS_UARCH_GLC_HYBRID, PMS_PEBS_UARCH_GRT },
	{ 6, 0xbf, "RAPTORLAKE_S", PMS_PEBS_UARCH_GLC_HYBRID, PMS_PEBS_UARCH_GRT },
	{ 6, 0xac, "METEORLAKE", PMS_PEBS_UARCH_GLC_HYBRID, PMS_PEBS_UARCH_CMT },
	{ 6, 0xaa, "METEORLAKE_L", PMS_PEBS_UARCH_GLC_HYBRID, PMS_PEBS_UARCH_CMT },
	{ 6, 0xb5, "ARROWLAKE_U", PMS_PEBS_UARCH_GLC_HYBRID, PMS_PEBS_UARCH_CMT },
	{ 6, 0xbd, "LUNARLAKE_M", PMS_PEBS_UARCH_LNC, PMS_PEBS_UARCH_CMT },
	{ 6, 0xc6, "ARROWLAKE", PMS_PEBS_UARCH_LNC, PMS_PEBS_UARCH_CMT },
	{ 6, 0xc5, "ARROWLAKE_H", PMS_PEBS_UARCH_LNC, PMS_PEBS_UARCH_CMT },
	{ 6, 0xcc, "PANTHERLAKE_L", PMS_PEBS_UARCH_LNC, PMS_PEBS_UARCH_CMT },
	{ 6, 0xd5, "WILDCATLAKE_L", PMS_PEBS_UARCH_LNC, PMS_PEBS_UARCH_CMT },
	{ 19, 0x01, "DIAMONDRAPIDS_X", PMS_PEBS_UARCH_PNC, NONE_E },
	{ 18, 0x01, "NOVALAKE", PMS_PEBS_UARCH_PNC, PMS_PEBS_UARCH_ARW },
	{ 18, 0x03, "NOVALAKE_L", PMS_PEBS_UARCH_PNC, PMS_PEBS_UARCH_ARW },
};

int pms_pebs_uarch_for_cpu(unsigned family, unsigned model, bool e_core,
			   enum pms_pebs_uarch *out)
{
	for (size_t i = 0; i < sizeof(cpu_rows) / sizeof(cpu_rows[0]); i++) {
		const struct cpu_row *r = &cpu_rows[i];
		if (r->family != family || r->model != model)
			continue;
		*out = (e_core && r->e_core != NONE_E) ? r->e_core : r->p_core;
		return 0;
	}
	return pms_err(PMS_ENOENT,
		       "no PEBS data-source table known for Intel family 0x%x model 0x%x", family,
		       model);
}
