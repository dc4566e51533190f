/* AMD IBS op registers -> perf sample fields (data_src, weight, addr).
 *
 * Source: arch/x86/events/amd/ibs.c (v7.3-rc7; identical in 7.2.13):
 * perf_ibs_handle_irq, perf_ibs_parse_ld_st_data, perf_ibs_get_mem_lvl,
 * perf_ibs_get_mem_snoop, perf_ibs_get_tlb_lvl, perf_ibs_get_op_data2;
 * DataSrc codes and register fields from arch/x86/include/asm/amd/ibs.h;
 * caps bits from arch/x86/include/asm/perf_event.h. */
#include <stdlib.h>
#include <string.h>

#include "pmuscope/datasrc.h"
#include "pmuscope/memsample.h"
#include "util/error.h"

#define BIT(n) (1ULL << (n))
#define MEM_NA PMS_MEM_NA_VALUE

/* IbsOpCtl */
#define CTL_VAL BIT(18)
/* IbsOpData */
#define DATA_RIP_INVALID BIT(38)
#define DATA_TAG_TO_RET(v) ((uint16_t)((v) >> 16))
/* IbsOpData2 */
#define D2_RMT_NODE BIT(4)
#define D2_CACHE_HIT_ST BIT(5)
/* IbsOpData3 */
#define D3_LD_OP BIT(0)
#define D3_ST_OP BIT(1)
#define D3_L1TLB_MISS BIT(2)
#define D3_L2TLB_MISS BIT(3)
#define D3_DC_MISS BIT(7)
#define D3_UC_MEM_ACC BIT(14)
#define D3_LOCKED_OP BIT(15)
#define D3_MISS_NO_MAB BIT(16)
#define D3_LIN_ADDR_VALID BIT(17)
#define D3_PHY_ADDR_VALID BIT(18)
#define D3_L2_MISS BIT(20)
#define D3_SW_PF BIT(21)
#define D3_MISS_LAT(v) ((uint32_t)(((v) >> 32) & 0xffff))

#define S(g, n) PMS_MEM_S(g, n)
#define LH(lvl) (S(LVL, lvl) | S(LVL, HIT))

/* The EXT_IO code: perf_ibs_get_mem_lvl compares against it even before
 * Zen4 (where 7 is IO too). */
#define IBS_DATA_SRC_EXT_IO 7

enum rmt_rule { RMT_NONE, RMT_REPLACE, RMT_OR };

struct ibs_src_row {
	uint8_t code;
	uint64_t val;        /* lvl | lvl_num | remote | hops */
	bool hitm_ok;        /* CacheHitSt=0 means HitM for this code (get_mem_snoop) */
	enum rmt_rule rmt;   /* what RmtNode=1 does (get_mem_lvl) */
	uint64_t rmt_val;
};

/* RmtNode: IBS cannot tell a remote node from a remote socket, so HOPS_1. */
#define RMT_DRAM (LH(REM_RAM1) | S(LVLNUM, RAM) | S(REMOTE, REMOTE) | S(HOPS, 1))
#define RMT_ADD (S(REMOTE, REMOTE) | S(HOPS, 1))

/* g_data_src[8] (pre-Zen4, IbsOpData2[2:0]); other codes: no info. */
static const struct ibs_src_row legacy_rows[] = {
	{ 2 /* LOC_CACHE */, LH(L3) | LH(REM_CCE1) | S(LVLNUM, ANY_CACHE) | S(HOPS, 0), true,
	  RMT_NONE, 0 },
	{ 3 /* DRAM */, LH(LOC_RAM) | S(LVLNUM, RAM), false, RMT_REPLACE, RMT_DRAM },
	{ 4 /* REM_CACHE */,
	  LH(REM_CCE2) | S(LVLNUM, ANY_CACHE) | S(REMOTE, REMOTE) | S(HOPS, 1), false, RMT_NONE,
	  0 },
	{ 7 /* IO */, LH(IO) | S(LVLNUM, IO), false, RMT_NONE, 0 },
};

/* g_zen4_data_src[32] ((IbsOpData2[7:6] << 3) | [2:0]); 12 (PEER_AGENT_MEM)
 * is defined in ibs.h but not mapped. */
static const struct ibs_src_row zen4_rows[] = {
	{ 1 /* EXT_LOC_CACHE */, LH(L3) | S(LVLNUM, L3), true, RMT_NONE, 0 },
	{ 2 /* EXT_NEAR_CCX_CACHE */,
	  LH(REM_CCE1) | S(LVLNUM, ANY_CACHE) | S(REMOTE, REMOTE) | S(HOPS, 0), true, RMT_NONE,
	  0 },
	{ 3 /* EXT_DRAM */, LH(LOC_RAM) | S(LVLNUM, RAM), false, RMT_REPLACE, RMT_DRAM },
	{ 5 /* EXT_FAR_CCX_CACHE */,
	  LH(REM_CCE2) | S(LVLNUM, ANY_CACHE) | S(REMOTE, REMOTE) | S(HOPS, 1), true, RMT_NONE,
	  0 },
	{ 6 /* EXT_PMEM */, S(LVLNUM, PMEM), false, RMT_OR, RMT_ADD },
	{ 7 /* EXT_IO */, LH(IO) | S(LVLNUM, IO), false, RMT_NONE, 0 },
	{ 8 /* EXT_EXT_MEM */, S(LVLNUM, CXL), false, RMT_OR, RMT_ADD },
};

/* Fixed level results of perf_ibs_get_mem_lvl. */
#define LVL_UNC (LH(UNC) | S(LVLNUM, UNC))
#define LVL_L1 (LH(L1) | S(LVLNUM, L1))
#define LVL_L2 (LH(L2) | S(LVLNUM, L2))
#define LVL_MAB (LH(LFB) | S(LVLNUM, LFB))
#define LVL_NONE (S(LVL, NA) | S(LVLNUM, NA))

/* Family/model ranges with a quirk. */
struct model_range {
	unsigned family, lo, hi;
};

/* Erratum 1293 (perf_ibs_get_op_data2, perf_ibs_get_mem_lvl). */
static const struct model_range erratum_1293[] = { { 0x19, 0x00, 0x0f } };
/* CacheHitSt not trustworthy (perf_ibs_cache_hit_st_valid). */
static const struct model_range cache_hit_st_bad[] = {
	{ 0x19, 0x00, 0x0f },
	{ 0x19, 0x20, 0x5f },
};

static bool in_ranges(const struct model_range *r, size_t n, const struct pms_ibs_cpu *cpu)
{
	for (size_t i = 0; i < n; i++)
		if (cpu->family == r[i].family && cpu->model >= r[i].lo && cpu->model <= r[i].hi)
			return true;
	return false;
}

#define IN(tbl, cpu) in_ranges((tbl), sizeof(tbl) / sizeof((tbl)[0]), (cpu))

static const struct ibs_src_row *find_row(bool zen4, unsigned code)
{
	const struct ibs_src_row *rows = zen4 ? zen4_rows : legacy_rows;
	size_t n = zen4 ? sizeof(zen4_rows) / sizeof(zen4_rows[0])
			: sizeof(legacy_rows) / sizeof(legacy_rows[0]);
	for (size_t i = 0; i < n; i++)
		if (rows[i].code == code)
			return &rows[i];
	return NULL;
}

static uint64_t row_value(const struct ibs_src_row *row, bool rmt_node)
{
	if (!row)
		return 0;
	if (rmt_node && row->rmt == RMT_REPLACE)
		return row->rmt_val;
	if (rmt_node && row->rmt == RMT_OR)
		return row->val | row->rmt_val;
	return row->val;
}

uint64_t pms_ibs_data_src_entry(bool zen4, unsigned code, bool rmt_node)
{
	return row_value(find_row(zen4, code), rmt_node);
}

static unsigned data_src_code(uint64_t d2, bool zen4)
{
	unsigned lo = (unsigned)(d2 & 7), hi = (unsigned)((d2 >> 6) & 3);
	return zen4 ? (hi << 3) | lo : lo;
}

/* perf_ibs_get_mem_lvl: the decision order is the kernel's. */
static uint64_t mem_lvl(uint64_t d2, uint64_t d3, bool zen4, bool erratum)
{
	unsigned code = data_src_code(d2, zen4);

	if ((d3 & D3_UC_MEM_ACC) && code != IBS_DATA_SRC_EXT_IO)
		return LVL_UNC;
	if (!(d3 & D3_DC_MISS))
		return LVL_L1;
	if (!(d3 & D3_L2_MISS) && !(erratum && (d3 & (D3_SW_PF | D3_MISS_NO_MAB))))
		return LVL_L2;
	/* IbsOpData2 is valid for loads only. */
	if (d3 & D3_LD_OP) {
		uint64_t v = row_value(find_row(zen4, code), d2 & D2_RMT_NODE);
		if (v)
			return v;
	}
	if (d3 & D3_MISS_NO_MAB)
		return LVL_MAB;
	return LVL_NONE;
}

#define FIELD_MASK(g) ((((1ULL << PMS_MEM_##g##_WIDTH) - 1)) << PMS_MEM_##g##_SHIFT)

int pms_ibs_op_decode(const struct pms_ibs_op_regs *regs, const struct pms_ibs_cpu *cpu,
		      uint64_t sample_type, unsigned ldlat, struct pms_ibs_op_sample *out)
{
	if (!regs || !cpu || !out)
		return pms_err(PMS_EINVAL, "pms_ibs_op_decode: NULL argument");

	memset(out, 0, sizeof(*out));
	out->data_src = MEM_NA;

	if (!(regs->op_ctl & CTL_VAL)) {
		out->dropped = true;
		out->drop_reason = "IbsOpVal (IbsOpCtl bit 18) is clear";
		return 0;
	}

	uint64_t d3 = regs->op_data3;
	bool zen4 = cpu->caps & PMS_IBS_CAPS_ZEN4;
	bool erratum = IN(erratum_1293, cpu);

	if ((cpu->caps & PMS_IBS_CAPS_RIPINVALIDCHK) && (regs->op_data & DATA_RIP_INVALID)) {
		out->ip_from_regs = true;
	} else {
		out->ip = regs->op_rip;
		out->exact_ip = true;
	}

	/* ldlat: kept only for a load that missed with DcMissLat > ldlat
	 * (strictly greater than the exact config1 value). */
	if (ldlat && (cpu->caps & PMS_IBS_CAPS_OPLDLAT) &&
	    !((d3 & D3_LD_OP) && (d3 & D3_DC_MISS) && D3_MISS_LAT(d3) > ldlat)) {
		out->dropped = true;
		out->drop_reason = "below the ldlat threshold (needs LdOp, DcMiss, DcMissLat > ldlat)";
		return 0;
	}

	unsigned op;
	if (d3 & D3_LD_OP)
		op = PMS_MEM_OP_LOAD;
	else if (d3 & D3_ST_OP)
		op = PMS_MEM_OP_STORE;
	else
		return 0; /* neither: nothing filled, the core reports PERF_MEM_NA */

	/* Erratum 1293: OpData2 is garbage when SwPf or DcMissNoMabAlloc. */
	uint64_t d2 = regs->op_data2;
	if (erratum && (d3 & (D3_SW_PF | D3_MISS_NO_MAB)))
		d2 = 0;

	if (sample_type & PMS_IBS_SAMPLE_DATA_SRC) {
		uint64_t lvl = mem_lvl(d2, d3, zen4, erratum);
		unsigned snoop = PMS_MEM_SNOOP_NA, tlb = PMS_MEM_TLB_NA, lock = PMS_MEM_LOCK_NA;
		const struct ibs_src_row *row = find_row(zen4, data_src_code(d2, zen4));
		uint64_t lvl_bits = (lvl >> PMS_MEM_LVL_SHIFT);

		if (!IN(cache_hit_st_bad, cpu) && op == PMS_MEM_OP_LOAD &&
		    !(lvl_bits & (PMS_MEM_LVL_L1 | PMS_MEM_LVL_L2)) && !(d2 & D2_CACHE_HIT_ST) &&
		    row && row->hitm_ok)
			snoop = PMS_MEM_SNOOP_HITM;

		if ((d3 & D3_LIN_ADDR_VALID) &&
		    (!(cpu->caps & PMS_IBS_CAPS_OPDTLBPGSIZE) || (d3 & D3_PHY_ADDR_VALID))) {
			if (!(d3 & D3_L1TLB_MISS))
				tlb = PMS_MEM_TLB_L1 | PMS_MEM_TLB_HIT;
			else if (!(d3 & D3_L2TLB_MISS))
				tlb = PMS_MEM_TLB_L2 | PMS_MEM_TLB_HIT;
			else
				tlb = PMS_MEM_TLB_L2 | PMS_MEM_TLB_MISS;
		}
		if (d3 & D3_LOCKED_OP)
			lock = PMS_MEM_LOCK_LOCKED;

		uint64_t v = MEM_NA & ~(FIELD_MASK(OP) | FIELD_MASK(LVL) | FIELD_MASK(LVLNUM) |
				    FIELD_MASK(SNOOP) | FIELD_MASK(TLB) | FIELD_MASK(LOCK));
		v |= (uint64_t)op << PMS_MEM_OP_SHIFT;
		v |= lvl;
		v |= (uint64_t)snoop << PMS_MEM_SNOOP_SHIFT;
		v |= (uint64_t)tlb << PMS_MEM_TLB_SHIFT;
		v |= (uint64_t)lock << PMS_MEM_LOCK_SHIFT;
		out->data_src = v;
		out->data_src_filled = true;
	}

	if ((sample_type & (PMS_IBS_SAMPLE_WEIGHT | PMS_IBS_SAMPLE_WEIGHT_STRUCT)) &&
	    (d3 & D3_DC_MISS) && op == PMS_MEM_OP_LOAD) {
		out->weight_var1 = D3_MISS_LAT(d3);
		if (sample_type & PMS_IBS_SAMPLE_WEIGHT_STRUCT) {
			out->weight_var2 = DATA_TAG_TO_RET(regs->op_data);
			/* union perf_sample_weight: var1_dw low 32 bits, var2_w next. */
			out->weight = (uint64_t)out->weight_var1 | ((uint64_t)out->weight_var2 << 32);
		} else {
			out->weight = out->weight_var1;
		}
		out->weight_filled = true;
	}

	if ((sample_type & PMS_IBS_SAMPLE_ADDR) && (d3 & D3_LIN_ADDR_VALID)) {
		out->addr = regs->dc_lin_ad;
		out->addr_filled = true;
	}
	if ((sample_type & PMS_IBS_SAMPLE_PHYS_ADDR) && (d3 & D3_PHY_ADDR_VALID)) {
		out->phys_addr = regs->dc_phys_ad;
		out->phys_addr_filled = true;
	}
	return 0;
}

/* ---- PERF_SAMPLE_RAW payload (perf_ibs_handle_irq) ----------------------- */

#define IBS_OP_BASE_REGS 7

int pms_ibs_op_raw_parse(const void *raw, size_t size, struct pms_ibs_op_regs *regs,
			 uint32_t *caps)
{
	const unsigned char *p = raw;
	uint32_t c;

	if (!raw || !regs)
		return pms_err(PMS_EINVAL, "pms_ibs_op_raw_parse: NULL argument");
	memset(regs, 0, sizeof(*regs));
	if (size < 4)
		return pms_err(PMS_EPARSE,
			       "IBS raw payload: %zu bytes, too short for the caps word "
			       "(expected 4 + 8 * registers)",
			       size);
	memcpy(&c, p, 4);
	bool brt = c & PMS_IBS_CAPS_BRNTRGT, d4 = c & PMS_IBS_CAPS_OPDATA4;
	size_t n = IBS_OP_BASE_REGS + (brt ? 1 : 0) + (d4 ? 1 : 0);
	if (size != 4 + 8 * n)
		return pms_err(PMS_EPARSE,
			       "IBS op raw payload: %zu bytes, but caps 0x%x announce %zu registers "
			       "(%zu bytes); is this an ibs_fetch sample?",
			       size, c, n, 4 + 8 * n);

	uint64_t r[IBS_OP_BASE_REGS + 2];
	memcpy(r, p + 4, 8 * n);
	regs->op_ctl = r[0];
	regs->op_rip = r[1];
	regs->op_data = r[2];
	regs->op_data2 = r[3];
	regs->op_data3 = r[4];
	regs->dc_lin_ad = r[5];
	regs->dc_phys_ad = r[6];
	size_t i = IBS_OP_BASE_REGS;
	if (brt) {
		regs->br_target = r[i++];
		regs->has_br_target = true;
	}
	if (d4) {
		regs->op_data4 = r[i++];
		regs->has_op_data4 = true;
	}
	if (caps)
		*caps = c;
	return 0;
}

/* ---- Every field (arch/x86/include/asm/amd/ibs.h) -------------------------- */

#define FLD(v, lo, w) ((unsigned)(((v) >> (lo)) & ((1ULL << (w)) - 1)))
#define BITF(v, n) ((((v) >> (n)) & 1) != 0)

int pms_ibs_op_fields_decode(const struct pms_ibs_op_regs *regs, const struct pms_ibs_cpu *cpu,
			     struct pms_ibs_op_fields *out)
{
	uint64_t c, d, d2, d3;
	bool erratum;

	if (!regs || !cpu || !out)
		return pms_err(PMS_EINVAL, "pms_ibs_op_fields_decode: NULL argument");
	memset(out, 0, sizeof(*out));
	c = regs->op_ctl;
	d = regs->op_data;
	d2 = regs->op_data2;
	d3 = regs->op_data3;
	out->zen4 = cpu->caps & PMS_IBS_CAPS_ZEN4;
	/* IbsOpCtl: MaxCnt [15:0], L3MissOnly 16, En 17, Val 18, CntCtl 19,
	 * MaxCntExt [26:20], CurCnt [58:32], LdLatThrsh [62:59], LdLatEn 63. */
	out->max_cnt = (uint32_t)(((FLD(c, 20, 7) << 16) | FLD(c, 0, 16)) << 4);
	out->l3_miss_only = BITF(c, 16);
	out->en = BITF(c, 17);
	out->val = BITF(c, 18);
	out->cnt_ctl = BITF(c, 19);
	out->cur_cnt = FLD(c, 32, 27);
	out->ldlat_thrsh = FLD(c, 59, 4);
	out->ldlat_en = BITF(c, 63);
	/* IbsOpData: CompToRetCtr [15:0], TagToRetCtr [31:16], OpReturn 34,
	 * OpBrnTaken 35, OpBrnMisp 36, OpBrnRet 37, RipInvalid 38, BrnFuse 39,
	 * Microcode 40. */
	out->comp_to_ret_ctr = (uint16_t)FLD(d, 0, 16);
	out->tag_to_ret_ctr = (uint16_t)FLD(d, 16, 16);
	out->op_return = BITF(d, 34);
	out->brn_taken = BITF(d, 35);
	out->brn_misp = BITF(d, 36);
	out->brn_ret = BITF(d, 37);
	out->rip_invalid = BITF(d, 38);
	out->brn_fuse = BITF(d, 39);
	out->microcode = BITF(d, 40);
	/* IbsOpData2: DataSrcLo [2:0], RmtNode 4, CacheHitSt 5, DataSrcHi [7:6],
	 * StrmSt 8, RmtSocket 9. */
	out->data_src = data_src_code(d2, out->zen4);
	out->rmt_node = BITF(d2, 4);
	out->cache_hit_st = BITF(d2, 5);
	out->strm_st = BITF(d2, 8);
	out->rmt_socket = BITF(d2, 9);
	/* IbsOpData3 (bit numbers in the defines at the top and ibs.h). */
	out->ld_op = BITF(d3, 0);
	out->st_op = BITF(d3, 1);
	out->dc_l1tlb_miss = BITF(d3, 2);
	out->dc_l2tlb_miss = BITF(d3, 3);
	out->dc_l1tlb_hit_2m = BITF(d3, 4);
	out->dc_l1tlb_hit_1g = BITF(d3, 5);
	out->dc_l2tlb_hit_2m = BITF(d3, 6);
	out->dc_miss = BITF(d3, 7);
	out->dc_mis_acc = BITF(d3, 8);
	out->dc_wc_mem_acc = BITF(d3, 13);
	out->dc_uc_mem_acc = BITF(d3, 14);
	out->dc_locked_op = BITF(d3, 15);
	out->dc_miss_no_mab_alloc = BITF(d3, 16);
	out->dc_lin_addr_valid = BITF(d3, 17);
	out->dc_phy_addr_valid = BITF(d3, 18);
	out->dc_l2tlb_hit_1g = BITF(d3, 19);
	out->l2_miss = BITF(d3, 20);
	out->sw_pf = BITF(d3, 21);
	out->op_mem_width = FLD(d3, 22, 4) ? 1u << (FLD(d3, 22, 4) - 1) : 0;
	out->op_dc_miss_open_mem_reqs = FLD(d3, 26, 6);
	out->dc_miss_lat = (uint16_t)FLD(d3, 32, 16);
	out->tlb_refill_lat = (uint16_t)FLD(d3, 48, 16);
	erratum = IN(erratum_1293, cpu) && (out->sw_pf || out->dc_miss_no_mab_alloc);
	out->data2_valid = !erratum;
	out->l2_miss_valid = !erratum;
	return 0;
}

/* ---- Fetch samples ---------------------------------------------------------- */

#define IBS_FETCH_BASE_REGS 3

int pms_ibs_fetch_raw_parse(const void *raw, size_t size, struct pms_ibs_fetch_regs *regs,
			    uint32_t *caps)
{
	const unsigned char *p = raw;
	uint64_t r[IBS_FETCH_BASE_REGS + 1];
	uint32_t c;
	size_t n;

	if (!raw || !regs)
		return pms_err(PMS_EINVAL, "pms_ibs_fetch_raw_parse: NULL argument");
	memset(regs, 0, sizeof(*regs));
	if (size < 4)
		return pms_err(PMS_EPARSE,
			       "IBS fetch raw payload: %zu bytes, too short for the caps word", size);
	memcpy(&c, p, 4);
	n = IBS_FETCH_BASE_REGS + ((c & PMS_IBS_CAPS_FETCHCTLEXTD) ? 1 : 0);
	if (size != 4 + 8 * n)
		return pms_err(PMS_EPARSE,
			       "IBS fetch raw payload: %zu bytes, but caps 0x%x announce %zu "
			       "registers (%zu bytes); is this an ibs_op sample?",
			       size, c, n, 4 + 8 * n);
	memcpy(r, p + 4, 8 * n);
	regs->fetch_ctl = r[0];
	regs->lin_ad = r[1];
	regs->phys_ad = r[2];
	if (n > IBS_FETCH_BASE_REGS) {
		regs->extd_ctl = r[3];
		regs->has_extd_ctl = true;
	}
	if (caps)
		*caps = c;
	return 0;
}

int pms_ibs_fetch_fields_decode(const struct pms_ibs_fetch_regs *regs,
				struct pms_ibs_fetch_fields *out)
{
	uint64_t f;

	if (!regs || !out)
		return pms_err(PMS_EINVAL, "pms_ibs_fetch_fields_decode: NULL argument");
	memset(out, 0, sizeof(*out));
	f = regs->fetch_ctl;
	/* IbsFetchCtl: MaxCnt [15:0], Cnt [31:16], Lat [47:32], En 48, Val 49,
	 * Comp 50, IcMiss 51, PhyAddrValid 52, L1TlbPgSz [54:53], L1TlbMiss 55,
	 * L2TlbMiss 56, RandEn 57, L2Miss 58, L3MissOnly 59, OcMiss 60, L3Miss 61. */
	out->max_cnt = FLD(f, 0, 16) << 4;
	out->cnt = FLD(f, 16, 16) << 4;
	out->lat = (uint16_t)FLD(f, 32, 16);
	out->en = BITF(f, 48);
	out->val = BITF(f, 49);
	out->comp = BITF(f, 50);
	out->ic_miss = BITF(f, 51);
	out->phy_addr_valid = BITF(f, 52);
	out->l1tlb_pgsz = FLD(f, 53, 2);
	out->l1tlb_miss = BITF(f, 55);
	out->l2tlb_miss = BITF(f, 56);
	out->rand_en = BITF(f, 57);
	out->l2_miss = BITF(f, 58);
	out->l3_miss_only = BITF(f, 59);
	out->oc_miss = BITF(f, 60);
	out->l3_miss = BITF(f, 61);
	out->itlb_refill_lat = (uint16_t)FLD(regs->extd_ctl, 0, 16);
	return 0;
}

int pms_ibs_cpu_from_cpuid(const char *cpuid, uint32_t caps, struct pms_ibs_cpu *out)
{
	struct pms_cpuid c;
	int rc;

	if (!cpuid || !out)
		return pms_err(PMS_EINVAL, "pms_ibs_cpu_from_cpuid: NULL argument");
	rc = pms_cpuid_parse(cpuid, &c);
	if (!c.amd)
		return pms_err(PMS_ENOENT,
			       "CPUID \"%.40s\" is not an AMD one (\"AuthenticAMD,family,model,"
			       "stepping\"): the file was not recorded on an IBS machine",
			       cpuid);
	if (rc < 0)
		return rc;
	out->family = (unsigned)c.family;
	out->model = (unsigned)c.model;
	out->caps = caps;
	return 0;
}

/* ---- Raw sample -> memory sample ---------------------------------------------- */

static const struct model_range erratum_1197[] = { { 0x19, 0x00, 0x0f } };

int pms_ibs_raw_memsample(const void *raw, size_t size, bool fetch, const struct pms_ibs_cpu *cpu,
			  struct pms_memsample *out)
{
	struct pms_ibs_cpu c;
	uint32_t caps = 0;
	int rc;

	if (!raw || !cpu || !out)
		return pms_err(PMS_EINVAL, "pms_ibs_raw_memsample: NULL argument");
	c = *cpu;
	if (fetch) {
		struct pms_ibs_fetch_regs fr;
		struct pms_memsample m = { 0 };
		if ((rc = pms_ibs_fetch_raw_parse(raw, size, &fr, &caps)) < 0)
			return rc;
		c.caps = caps;
		if (!(fr.fetch_ctl & BIT(49)))
			return pms_err(PMS_ENOENT, "IBS fetch sample: IbsFetchVal (bit 49) is clear; "
						   "the driver drops it");
		if (IN(erratum_1197, &c) && !fr.lin_ad)
			return pms_err(PMS_ENOENT, "IBS fetch sample: zero IbsFetchLinAd on family "
						   "0x19 model < 0x10 (erratum 1197); the driver "
						   "drops it");
		m.engine = PMS_ENG_IBS;
		m.ip = fr.lin_ad;
		m.valid = PMS_MS_IP | PMS_MS_EXACT_IP;
		if (fr.fetch_ctl & BIT(52)) {
			m.phys_addr = fr.phys_ad;
			m.valid |= PMS_MS_PHYS;
		}
		*out = m;
		return 0;
	} else {
		struct pms_ibs_op_regs r;
		struct pms_ibs_op_sample s;
		struct pms_memsample m = { 0 };
		if ((rc = pms_ibs_op_raw_parse(raw, size, &r, &caps)) < 0)
			return rc;
		c.caps = caps;
		rc = pms_ibs_op_decode(&r, &c,
				       PMS_IBS_SAMPLE_DATA_SRC | PMS_IBS_SAMPLE_WEIGHT |
					       PMS_IBS_SAMPLE_ADDR | PMS_IBS_SAMPLE_PHYS_ADDR,
				       0, &s);
		if (rc < 0)
			return rc;
		if (s.dropped)
			return pms_err(PMS_ENOENT, "IBS op sample: %s; the driver drops it",
				       s.drop_reason);
		m.engine = PMS_ENG_IBS;
		if (!s.ip_from_regs) {
			m.ip = s.ip;
			m.valid |= PMS_MS_IP | PMS_MS_EXACT_IP;
		}
		if (s.data_src_filled) {
			m.data_src = s.data_src;
			m.valid |= PMS_MS_DATA_SRC;
		}
		if (s.weight_filled) {
			m.weight = s.weight_var1;
			m.ins_lat = DATA_TAG_TO_RET(r.op_data);
			m.valid |= PMS_MS_WEIGHT | PMS_MS_INS_LAT;
		}
		/* The driver fills ADDR and PHYS_ADDR for loads and stores only
		 * (perf_ibs_parse_ld_st_data returns before them otherwise). */
		if (s.addr_filled && (s.data_src_filled)) {
			m.addr = s.addr;
			m.valid |= PMS_MS_ADDR;
		}
		if (s.phys_addr_filled && (s.data_src_filled)) {
			m.phys_addr = s.phys_addr;
			m.valid |= PMS_MS_PHYS;
		}
		*out = m;
		return 0;
	}
}
