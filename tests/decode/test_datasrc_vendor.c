/* Vendor raw -> data_src: every table entry and worked example of
 * kernel-abi-facts.md sections 3 (AMD IBS), 4 (Arm SPE) and 5 (Intel PEBS),
 * built from raw register values / status words / SPE inputs, checked as a
 * value and as perf's decoded text. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "test_datasrc_golden.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define B(n) (1ULL << (n))

/* perf's decode of a golden value, from the golden text table. */
static const char *golden_decode(uint64_t val)
{
	for (size_t i = 0; i < N(golden_text); i++)
		if (golden_text[i].val == val)
			return golden_text[i].meminfo;
	return NULL;
}

/* Check value and, when the facts give one, its decode. */
static void check_val(const char *row, uint64_t got, uint64_t want, const char *want_text)
{
	char buf[128];
	CHECK_MSG(got == want, "row '%s': 0x%016" PRIx64 " != 0x%016" PRIx64, row, got, want);
	if (!want_text)
		want_text = golden_decode(want);
	if (want_text && *want_text) { /* "" = value only */
		pms_datasrc_format(got, buf, sizeof(buf));
		CHECK_MSG(!strcmp(buf, want_text), "row '%s': decode \"%s\" != \"%s\"", row, buf,
			  want_text);
	}
}

/* ---- table entries (facts 3.3 and 5.1 "table entries" lists) ------------- */

static int pebs_table_by_golden_name(const char *n, enum pms_pebs_table *t)
{
	static const struct {
		const char *golden, *ours;
	} alias[] = {
		{ "pebs_default", "default" }, { "skl_l4", "skl" }, { "omr_base", "omr" },
	};
	for (size_t i = 0; i < N(alias); i++)
		if (!strcmp(n, alias[i].golden))
			n = alias[i].ours;
	for (int i = 0; i < PMS_PEBS_TBL_COUNT; i++) {
		if (!strcmp(n, pms_pebs_table_name((enum pms_pebs_table)i))) {
			*t = (enum pms_pebs_table)i;
			return 0;
		}
	}
	return -1;
}

PMS_TEST(table_entries)
{
	int seen = 0;
	for (size_t i = 0; i < N(golden_entries); i++) {
		const struct golden_entry *g = &golden_entries[i];
		char row[64];
		uint64_t got;
		enum pms_pebs_table t;

		snprintf(row, sizeof(row), "%s[0x%02x]%s", g->table, g->idx,
			 g->rmt_node ? "+rmt_node" : "");
		if (!strcmp(g->table, "ibs_g"))
			got = pms_ibs_data_src_entry(false, g->idx, g->rmt_node);
		else if (!strcmp(g->table, "ibs_zen4"))
			got = pms_ibs_data_src_entry(true, g->idx, g->rmt_node);
		else if (pebs_table_by_golden_name(g->table, &t) == 0)
			got = pms_pebs_table_entry(t, g->idx);
		else {
			CHECK_MSG(0, "row %s: unknown table", row);
			continue;
		}
		check_val(row, got, g->val, NULL);
		seen++;
	}
	CHECK(seen >= 100);
}

PMS_TEST(table_entries_outside_the_lists)
{
	/* Unmapped codes give 0 (no information). */
	static const unsigned legacy0[] = { 0, 1, 5, 6 };
	for (size_t i = 0; i < N(legacy0); i++)
		CHECK_EQ_U64(pms_ibs_data_src_entry(false, legacy0[i], false), 0);
	static const unsigned zen40[] = { 0, 4, 9, 12, 31 };
	for (size_t i = 0; i < N(zen40); i++)
		CHECK_EQ_U64(pms_ibs_data_src_entry(true, zen40[i], true), 0);
	/* RmtNode does nothing outside {3} (legacy) / {3,6,8} (Zen4). */
	CHECK_EQ_U64(pms_ibs_data_src_entry(false, 2, true), pms_ibs_data_src_entry(false, 2, false));
	CHECK_EQ_U64(pms_ibs_data_src_entry(true, 5, true), pms_ibs_data_src_entry(true, 5, false));
	/* PEBS arrays are 0 past their meaningful entries. */
	CHECK_EQ_U64(pms_pebs_table_entry(PMS_PEBS_TBL_DEFAULT, 0x10), 0);
	CHECK_EQ_U64(pms_pebs_table_entry(PMS_PEBS_TBL_SKL, 0xff), 0);
	CHECK_EQ_U64(pms_pebs_table_entry(PMS_PEBS_TBL_LNC, 0x12), 0);
	CHECK_EQ_U64(pms_pebs_table_entry(PMS_PEBS_TBL_ARW_L2HIT, 0x0f), 0);
	CHECK_EQ_U64(pms_pebs_table_entry(PMS_PEBS_TBL_OMR, 16), 0);
	CHECK_EQ_U64(pms_pebs_table_entry(PMS_PEBS_TBL_COUNT, 1), 0);
	/* Patched copies leave the rest of the default table alone. */
	for (unsigned i = 0; i < 16; i++) {
		if (i == 5 || i == 6 || i == 7)
			continue;
		CHECK_EQ_U64(pms_pebs_table_entry(PMS_PEBS_TBL_NHM, i),
			     pms_pebs_table_entry(PMS_PEBS_TBL_DEFAULT, i));
	}
	CHECK_EQ_U64(pms_pebs_table_entry(PMS_PEBS_TBL_SKL_PMEM, 0x0c),
		     pms_pebs_table_entry(PMS_PEBS_TBL_SKL, 0x0c));
	CHECK_EQ_U64(pms_pebs_table_entry(PMS_PEBS_TBL_CMT, 0x05),
		     pms_pebs_table_entry(PMS_PEBS_TBL_DEFAULT, 0x05));
}

/* ---- AMD IBS ------------------------------------------------------------- */

/* IbsOpData3 bits */
#define LD B(0)
#define ST B(1)
#define L1TLBMISS B(2)
#define L2TLBMISS B(3)
#define DCMISS B(7)
#define UCMEM B(14)
#define LOCKED B(15)
#define NOMAB B(16)
#define LINVALID B(17)
#define PHYVALID B(18)
#define L2MISS B(20)
#define SWPF B(21)
#define MISSLAT(x) ((uint64_t)(x) << 32)
#define OPVAL B(18)

static const struct pms_ibs_cpu zen4 = { 0x19, 0x61, PMS_IBS_CAPS_ZEN4 }; /* Ryzen 7940HX */
static const struct pms_ibs_cpu zen2 = { 0x17, 0x31, 0 };
static const struct pms_ibs_cpu zen3_1293 = { 0x19, 0x01, 0 };            /* erratum 1293 */
static const struct pms_ibs_cpu zen4_badhitst = { 0x19, 0x21, PMS_IBS_CAPS_ZEN4 };

#define ST_ALL (PMS_IBS_SAMPLE_DATA_SRC | PMS_IBS_SAMPLE_ADDR | PMS_IBS_SAMPLE_PHYS_ADDR | \
		PMS_IBS_SAMPLE_WEIGHT_STRUCT)

PMS_TEST(ibs_worked_examples)
{
	static const struct {
		const char *name;
		const struct pms_ibs_cpu *cpu;
		uint64_t data2, data3;
		uint64_t want;
	} rows[] = {
		{ "IBS zen4 load DataSrc=3 local DRAM, L1TLB hit", &zen4, 3,
		  LD | DCMISS | L2MISS | LINVALID, 0x0000001a29081042ULL },
		{ "IBS zen4 load DataSrc=3 + RmtNode, L2TLB hit", &zen4, 3 | B(4),
		  LD | DCMISS | L2MISS | LINVALID | L1TLBMISS, 0x0000103a49082042ULL },
		{ "IBS zen4 load DataSrc=2 near CCX, HitM, TLB miss, locked", &zen4, 2,
		  LD | DCMISS | L2MISS | LINVALID | L1TLBMISS | L2TLBMISS | LOCKED,
		  0x0000083652808042ULL },
		{ "IBS load L1 hit (DcMiss=0)", &zen4, 3, LD | LINVALID, 0x0000000229080142ULL },
		{ "IBS pre-zen4 load DataSrc=2 LOC_CACHE, HitM", &zen2, 2,
		  LD | DCMISS | L2MISS | LINVALID, 0x0000081629808842ULL },
		{ "IBS store L2 hit", &zen4, 0, ST | DCMISS | LINVALID, 0x0000000429080444ULL },
		{ "IBS store L2 miss (no DataSrc for stores, no MAB)", &zen4, 3,
		  ST | DCMISS | L2MISS, 0x0000001e05080024ULL },
	};
	for (size_t i = 0; i < N(rows); i++) {
		struct pms_ibs_op_regs r = { 0 };
		struct pms_ibs_op_sample s;
		r.op_ctl = OPVAL;
		r.op_rip = 0x401000;
		r.op_data2 = rows[i].data2;
		r.op_data3 = rows[i].data3;
		CHECK_OK(pms_ibs_op_decode(&r, rows[i].cpu, ST_ALL, 0, &s));
		CHECK_MSG(!s.dropped && s.data_src_filled, "row '%s'", rows[i].name);
		check_val(rows[i].name, s.data_src, rows[i].want, NULL);
		CHECK(s.exact_ip && s.ip == 0x401000);
	}
}

/* Level decision (3.2) and the other rules, each from raw registers. */
PMS_TEST(ibs_rules)
{
	static const struct {
		const char *name;
		const struct pms_ibs_cpu *cpu;
		uint64_t data2, data3;
		uint64_t want; /* whole data_src */
	} rows[] = {
		/* 1. UC access outranks everything unless DataSrc is IO (7) */
		{ "uncached", &zen4, 0, LD | UCMEM, 0x1000040040ULL | 0x5080002ULL },
		{ "uncached but DataSrc=IO", &zen4, 7, LD | UCMEM | DCMISS | L2MISS,
		  0x1400020040ULL | 0x5080002ULL },
		{ "uncached, IO code on pre-Zen4 too", &zen2, 7, LD | UCMEM | DCMISS | L2MISS,
		  0x1400020040ULL | 0x5080002ULL },
		/* 2., 3. */
		{ "L1 hit", &zen4, 0, LD, 0x200000140ULL | 0x5080002ULL },
		{ "L2 hit", &zen4, 3, LD | DCMISS, 0x400000440ULL | 0x5080002ULL },
		/* erratum 1293: L2 step skipped and OpData2 ignored with SwPf/NoMab */
		{ "1293 SwPf: no L2, no DataSrc", &zen3_1293, 3, LD | DCMISS | SWPF,
		  0x1e00000020ULL | 0x5080002ULL },
		{ "1293 NoMab: MAB", &zen3_1293, 3, LD | DCMISS | NOMAB,
		  0x1800000240ULL | 0x5080002ULL },
		{ "no 1293 on Zen4: L2 hit", &zen4, 3, LD | DCMISS | SWPF,
		  0x400000440ULL | 0x5080002ULL },
		{ "1293 without SwPf/NoMab: DataSrc used", &zen3_1293, 3, LD | DCMISS | L2MISS,
		  0x1a00001040ULL | 0x5080002ULL },
		/* 4.-7. */
		{ "store skips DataSrc -> MAB", &zen4, 3, ST | DCMISS | L2MISS | NOMAB,
		  0x1800000240ULL | 0x5080004ULL },
		{ "unmapped code 12 -> NA", &zen4, 4 | (1 << 6), LD | DCMISS | L2MISS,
		  0x1e00000020ULL | 0x5080002ULL },
		{ "zen4 PMEM + RmtNode (no HIT bit)", &zen4, 6 | B(4), LD | DCMISS | L2MISS,
		  0x103c00000000ULL | 0x5080002ULL },
		{ "zen4 CXL code 8 (DataSrcHi=1)", &zen4, 0 | (1 << 6), LD | DCMISS | L2MISS,
		  0x1200000000ULL | 0x5080002ULL },
		{ "legacy uses only bits 2:0", &zen2, 3 | (1 << 6), LD | DCMISS | L2MISS,
		  0x1a00001040ULL | 0x5080002ULL },
		/* snoop: CacheHitSt=1 -> no HitM; untrusted models; not on L1/L2 */
		{ "CacheHitSt=1: snoop NA", &zen4, 2 | B(5), LD | DCMISS | L2MISS,
		  0x83600008040ULL | 0x5080002ULL },
		{ "untrusted CacheHitSt model", &zen4_badhitst, 2, LD | DCMISS | L2MISS,
		  0x83600008040ULL | 0x5080002ULL },
		{ "zen4 code 5 HitM", &zen4, 5, LD | DCMISS | L2MISS,
		  0x103600010040ULL | 0x5800002ULL | 0x1000000ULL },
		{ "zen4 code 3 never HitM", &zen4, 3, LD | DCMISS | L2MISS,
		  0x1a00001040ULL | 0x5080002ULL },
		{ "legacy code 4 never HitM", &zen2, 4, LD | DCMISS | L2MISS,
		  0x103600010040ULL | 0x5080002ULL },
	};
	for (size_t i = 0; i < N(rows); i++) {
		struct pms_ibs_op_regs r = { 0 };
		struct pms_ibs_op_sample s;
		r.op_ctl = OPVAL;
		r.op_data2 = rows[i].data2;
		r.op_data3 = rows[i].data3;
		CHECK_OK(pms_ibs_op_decode(&r, rows[i].cpu, PMS_IBS_SAMPLE_DATA_SRC, 0, &s));
		check_val(rows[i].name, s.data_src, rows[i].want, "");
	}
}

PMS_TEST(ibs_tlb_lock_and_gating)
{
	struct pms_ibs_op_regs r = { 0 };
	struct pms_ibs_op_sample s;
	struct pms_ibs_cpu pg = zen4;
	pg.caps |= PMS_IBS_CAPS_OPDTLBPGSIZE;

	r.op_ctl = OPVAL;
	r.op_rip = 0xffffffff81000000ULL;
	r.op_data = (0x45ULL << 16) | 0x7;
	r.op_data3 = LD | DCMISS | LINVALID | MISSLAT(0x123);
	r.dc_lin_ad = 0x7fff0000;
	r.dc_phys_ad = 0x12345000;

	/* OPDTLBPGSIZE: the TLB needs DcPhyAddrValid too */
	CHECK_OK(pms_ibs_op_decode(&r, &pg, ST_ALL, 0, &s));
	CHECK_EQ_U64(s.data_src >> PMS_MEM_TLB_SHIFT & 0x7f, PMS_MEM_TLB_NA);
	CHECK(s.addr_filled && s.addr == 0x7fff0000);
	CHECK(!s.phys_addr_filled && s.phys_addr == 0);
	CHECK(s.weight_filled);
	CHECK_EQ_U64(s.weight_var1, 0x123);
	CHECK_EQ_U64(s.weight_var2, 0x45);
	CHECK_EQ_U64(s.weight, 0x0000004500000123ULL);

	r.op_data3 |= PHYVALID;
	CHECK_OK(pms_ibs_op_decode(&r, &pg, ST_ALL, 0, &s));
	CHECK_EQ_U64(s.data_src >> PMS_MEM_TLB_SHIFT & 0x7f, PMS_MEM_TLB_L1 | PMS_MEM_TLB_HIT);
	CHECK(s.phys_addr_filled && s.phys_addr == 0x12345000);

	/* plain WEIGHT = DcMissLat */
	CHECK_OK(pms_ibs_op_decode(&r, &zen4, PMS_IBS_SAMPLE_WEIGHT, 0, &s));
	CHECK(s.weight_filled && s.weight == 0x123);
	CHECK(!s.data_src_filled && s.data_src == PMS_MEM_NA_VALUE);
	CHECK(!s.addr_filled && s.addr == 0);

	/* no weight without DcMiss or for stores */
	r.op_data3 = LD | LINVALID | MISSLAT(0x123);
	CHECK_OK(pms_ibs_op_decode(&r, &zen4, ST_ALL, 0, &s));
	CHECK(!s.weight_filled && s.weight == 0);
	r.op_data3 = ST | DCMISS | LINVALID | MISSLAT(0x123);
	CHECK_OK(pms_ibs_op_decode(&r, &zen4, ST_ALL, 0, &s));
	CHECK(!s.weight_filled);
	CHECK(s.addr_filled);

	/* neither load nor store: nothing filled, PERF_MEM_NA */
	r.op_data3 = DCMISS | LINVALID | PHYVALID | MISSLAT(0x123);
	CHECK_OK(pms_ibs_op_decode(&r, &zen4, ST_ALL, 0, &s));
	CHECK(!s.dropped && !s.data_src_filled && !s.weight_filled && !s.addr_filled &&
	      !s.phys_addr_filled);
	CHECK_EQ_U64(s.data_src, PMS_MEM_NA_VALUE);

	/* RipInvalid with the cap: IP from the interrupt regs, not exact */
	struct pms_ibs_cpu rip = zen4;
	rip.caps |= PMS_IBS_CAPS_RIPINVALIDCHK;
	r.op_data |= B(38);
	CHECK_OK(pms_ibs_op_decode(&r, &rip, ST_ALL, 0, &s));
	CHECK(!s.exact_ip && s.ip_from_regs && s.ip == 0);
	CHECK_OK(pms_ibs_op_decode(&r, &zen4, ST_ALL, 0, &s)); /* no cap: bit ignored */
	CHECK(s.exact_ip && s.ip == 0xffffffff81000000ULL);

	/* IbsOpVal clear: dropped */
	r.op_ctl = 0;
	CHECK_OK(pms_ibs_op_decode(&r, &zen4, ST_ALL, 0, &s));
	CHECK(s.dropped && s.drop_reason);

	/* ldlat: kept only when DcMissLat > ldlat (strict), with the cap */
	struct pms_ibs_cpu ll = zen4;
	ll.caps |= PMS_IBS_CAPS_OPLDLAT;
	r.op_ctl = OPVAL;
	r.op_data3 = LD | DCMISS | L2MISS | MISSLAT(128);
	CHECK_OK(pms_ibs_op_decode(&r, &ll, ST_ALL, 128, &s));
	CHECK(s.dropped);
	r.op_data3 = LD | DCMISS | L2MISS | MISSLAT(129);
	CHECK_OK(pms_ibs_op_decode(&r, &ll, ST_ALL, 128, &s));
	CHECK(!s.dropped);
	r.op_data3 = LD | L2MISS | MISSLAT(300); /* DcMiss=0 */
	CHECK_OK(pms_ibs_op_decode(&r, &ll, ST_ALL, 128, &s));
	CHECK(s.dropped);
	CHECK_OK(pms_ibs_op_decode(&r, &zen4, ST_ALL, 128, &s)); /* no OPLDLAT: ignored */
	CHECK(!s.dropped);

	CHECK_EQ_INT(pms_ibs_op_decode(NULL, &zen4, 0, 0, &s), PMS_EINVAL);
}

PMS_TEST(ibs_raw_parse)
{
	uint64_t regs[9] = { OPVAL, 0x401000, 0x45ULL << 16, 3, LD | DCMISS | L2MISS | LINVALID,
			     0x7fff0000, 0x1234000, 0xffffffff81000000ULL, 0xdd };
	unsigned char buf[4 + 8 * 9];
	uint32_t caps = PMS_IBS_CAPS_ZEN4 | PMS_IBS_CAPS_BRNTRGT, got_caps = 0;
	struct pms_ibs_op_regs r;

	memcpy(buf, &caps, 4);
	memcpy(buf + 4, regs, 8 * 8);
	CHECK_OK(pms_ibs_op_raw_parse(buf, 4 + 8 * 8, &r, &got_caps));
	CHECK_EQ_U64(got_caps, caps);
	CHECK_EQ_U64(r.op_ctl, OPVAL);
	CHECK_EQ_U64(r.op_rip, 0x401000);
	CHECK_EQ_U64(r.op_data2, 3);
	CHECK_EQ_U64(r.dc_phys_ad, 0x1234000);
	CHECK(r.has_br_target && r.br_target == 0xffffffff81000000ULL);
	CHECK(!r.has_op_data4);

	struct pms_ibs_cpu c = { 0x19, 0x61, caps };
	struct pms_ibs_op_sample s;
	CHECK_OK(pms_ibs_op_decode(&r, &c, ST_ALL, 0, &s));
	check_val("raw payload zen4 DRAM", s.data_src, 0x0000001a29081042ULL, NULL);

	/* OPDATA4 as well: 9 registers */
	caps |= PMS_IBS_CAPS_OPDATA4;
	memcpy(buf, &caps, 4);
	memcpy(buf + 4, regs, 8 * 9);
	CHECK_OK(pms_ibs_op_raw_parse(buf, sizeof(buf), &r, NULL));
	CHECK(r.has_op_data4 && r.op_data4 == 0xdd);

	/* sizes that disagree with the caps word */
	CHECK_EQ_INT(pms_ibs_op_raw_parse(buf, 4 + 8 * 8, &r, NULL), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "caps") != NULL);
	CHECK_EQ_INT(pms_ibs_op_raw_parse(buf, 3, &r, NULL), PMS_EPARSE);
	CHECK_EQ_INT(pms_ibs_op_raw_parse(buf, 4 + 8 * 3, &r, NULL), PMS_EPARSE);
}

/* ---- Intel PEBS ---------------------------------------------------------- */

#define TLB_HIT_L1L2 0x68000000ULL
#define TLB_MISS_L2 0x50000000ULL
#define LCK_LOCKED 0x2000000ULL
#define BLK_NA 0x10000000000ULL
#define BLK_DATA 0x20000000000ULL
#define BLK_ADDR 0x40000000000ULL

PMS_TEST(pebs_worked_examples)
{
	static const struct {
		const char *name;
		enum pms_pebs_uarch u;
		enum pms_pebs_kind kind;
		uint64_t status, want;
	} rows[] = {
		{ "PEBS SKL ldlat dse=0x1 L1 (TLB hit, BLK NA)", PMS_PEBS_UARCH_SKL,
		  PMS_PEBS_LOAD_LATENCY, 0x1, 0x0000010268100142ULL },
		{ "PEBS SNB-BDW ldlat dse=0xc, STLB miss, locked", PMS_PEBS_UARCH_SNB,
		  PMS_PEBS_LOAD_LATENCY, 0xc | B(4) | B(5), 0x0000011a52501042ULL },
		{ "PEBS SKL-family ldlat dse=0xc remote fwd, STLB hit", PMS_PEBS_UARCH_SKX,
		  PMS_PEBS_LOAD_LATENCY, 0xc, 0x0000017668000042ULL },
		{ "PEBS stlat dse=0x3", PMS_PEBS_UARCH_GLC, PMS_PEBS_STORE_LATENCY, 0x3,
		  0x0000010468100444ULL },
		{ "PEBS precise_store (pre-HSW) L1 hit, STLB hit", PMS_PEBS_UARCH_SNB,
		  PMS_PEBS_PRECISE_STORE, 0x1, 0x0000000048080144ULL },
		{ "PEBS HSW precise store (status bit0=1)", PMS_PEBS_UARCH_SNB, PMS_PEBS_HSW_STORE,
		  0x1, 0x0000001e05080144ULL },
	};
	for (size_t i = 0; i < N(rows); i++) {
		uint64_t v = 0;
		CHECK_OK(pms_pebs_data_src(rows[i].u, rows[i].kind, rows[i].status, &v));
		check_val(rows[i].name, v, rows[i].want, NULL);
	}
}

PMS_TEST(pebs_paths)
{
	uint64_t def = pms_pebs_table_entry(PMS_PEBS_TBL_DEFAULT, 0x4);
	uint64_t lnc11 = pms_pebs_table_entry(PMS_PEBS_TBL_LNC, 0x11);
	const struct {
		const char *name;
		enum pms_pebs_uarch u;
		enum pms_pebs_kind kind;
		uint64_t status, want;
	} rows[] = {
		/* Nehalem: no TLB/lock info, no BLK */
		{ "nhm ldlat 0x5 (snoop hit patch)", PMS_PEBS_UARCH_NHM, PMS_PEBS_LOAD_LATENCY,
		  0x5 | B(4) | B(5), 0x0000000600200842ULL | 0x4000000ULL | 0x1000000ULL },
		/* pebs_block: data/addr blk on Golden Cove, never before */
		{ "glc ldlat data+addr blk", PMS_PEBS_UARCH_GLC, PMS_PEBS_LOAD_LATENCY,
		  0x4 | B(6) | B(7), def | TLB_HIT_L1L2 | BLK_DATA | BLK_ADDR },
		{ "skl ldlat blk bits ignored", PMS_PEBS_UARCH_SKL, PMS_PEBS_LOAD_LATENCY,
		  0x4 | B(6) | B(7), def | TLB_HIT_L1L2 | BLK_NA },
		{ "glc ldlat no blk -> NA", PMS_PEBS_UARCH_GLC, PMS_PEBS_LOAD_LATENCY, 0x4,
		  def | TLB_HIT_L1L2 | BLK_NA },
		{ "skl index uses 4 bits", PMS_PEBS_UARCH_SKL, PMS_PEBS_LOAD_LATENCY, 0x14 | B(8),
		  def | TLB_MISS_L2 | BLK_NA },
		{ "skx 0x08 -> PMEM", PMS_PEBS_UARCH_SKX, PMS_PEBS_LOAD_LATENCY, 0x8,
		  0x0000001c00200042ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "glc_hybrid 0x08 -> L4", PMS_PEBS_UARCH_GLC_HYBRID, PMS_PEBS_LOAD_LATENCY, 0x8,
		  0x0000000800200042ULL | TLB_HIT_L1L2 | BLK_NA },
		/* GRT: upstream swaps tlb and lock (stlb_miss bit 4 reads as locked) */
		{ "grt stlb_miss reads as locked", PMS_PEBS_UARCH_GRT, PMS_PEBS_LOAD_LATENCY,
		  0x4 | B(4), def | TLB_HIT_L1L2 | LCK_LOCKED | BLK_NA },
		{ "grt locked reads as stlb miss", PMS_PEBS_UARCH_GRT, PMS_PEBS_LOAD_LATENCY,
		  0x4 | B(5), def | TLB_MISS_L2 | BLK_NA },
		{ "grt data blk", PMS_PEBS_UARCH_GRT, PMS_PEBS_LOAD_LATENCY, 0x8 | B(6),
		  0x0000004600000842ULL | TLB_HIT_L1L2 | BLK_DATA },
		/* CMT: mtl layout, correct order */
		{ "cmt stlb_miss bit 6, locked bit 5, fwd_blk 7", PMS_PEBS_UARCH_CMT,
		  PMS_PEBS_LOAD_LATENCY, 0x0c | B(5) | B(6) | B(7),
		  0x0000007a00000042ULL | TLB_MISS_L2 | LCK_LOCKED | BLK_DATA },
		{ "cmt index masked to 4 bits", PMS_PEBS_UARCH_CMT, PMS_PEBS_LOAD_LATENCY,
		  0x10 | 0x4, def | TLB_HIT_L1L2 | BLK_NA },
		{ "cmt store latency -> STORE", PMS_PEBS_UARCH_CMT, PMS_PEBS_STORE_LATENCY, 0x4,
		  (def & ~0x1fULL) | 0x4 | TLB_HIT_L1L2 | BLK_NA },
		/* LNC: full 8-bit index, bits 10-13, empty entry replaced */
		{ "lnc 0x11 stlb miss locked data+addr blk", PMS_PEBS_UARCH_LNC,
		  PMS_PEBS_LOAD_LATENCY, 0x11 | B(10) | B(11) | B(12) | B(13),
		  lnc11 | TLB_MISS_L2 | LCK_LOCKED | BLK_DATA | BLK_ADDR },
		{ "lnc reserved 0x04 -> LOAD|LVLNUM NA|SNOOP NA", PMS_PEBS_UARCH_LNC,
		  PMS_PEBS_LOAD_LATENCY, 0x04, 0x1e00080002ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "lnc 0x40 is past the table", PMS_PEBS_UARCH_LNC, PMS_PEBS_LOAD_LATENCY, 0x40,
		  0x1e00080002ULL | TLB_HIT_L1L2 | BLK_NA },
		/* PNC: L2-hit table (bit 8 = 0) */
		{ "pnc L0 hit", PMS_PEBS_UARCH_PNC, PMS_PEBS_LOAD_LATENCY, 0x01,
		  0x0000000e00100042ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "pnc l2hit uses dse & 0xf", PMS_PEBS_UARCH_PNC, PMS_PEBS_LOAD_LATENCY,
		  0xf8 | B(11) | B(12) | B(14),
		  0x0000000400800442ULL | TLB_MISS_L2 | LCK_LOCKED | BLK_ADDR },
		{ "pnc reserved 0x05 replaced", PMS_PEBS_UARCH_PNC, PMS_PEBS_LOAD_LATENCY, 0x05,
		  0x1e00080002ULL | TLB_HIT_L1L2 | BLK_NA },
		/* PNC OMR (bit 8 = 1): source[3:0] remote 4 hitm 5 snoop 6 promoted 7 */
		{ "omr 0x2 snoop=0 promoted=0 -> NA", PMS_PEBS_UARCH_PNC, PMS_PEBS_LOAD_LATENCY,
		  B(8) | 0x02, 0x0000800600080842ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "omr 0x2 snoop=1 -> MISS", PMS_PEBS_UARCH_PNC, PMS_PEBS_LOAD_LATENCY,
		  B(8) | 0x42, 0x0000800600400842ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "omr 0x2 promoted=1 -> HIT", PMS_PEBS_UARCH_PNC, PMS_PEBS_LOAD_LATENCY,
		  B(8) | 0x82, 0x0000800600200842ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "omr 0x2 snoop+promoted -> NONE", PMS_PEBS_UARCH_PNC, PMS_PEBS_LOAD_LATENCY,
		  B(8) | 0xc2, 0x0000800600100842ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "omr 0x2 hitm wins, remote", PMS_PEBS_UARCH_PNC, PMS_PEBS_LOAD_LATENCY,
		  B(8) | 0xf2, 0x0000802600808842ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "omr 0x5 snoop -> HIT + FWD", PMS_PEBS_UARCH_PNC, PMS_PEBS_LOAD_LATENCY,
		  B(8) | 0x45, 0x0001404600200842ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "omr 0x3 hitm", PMS_PEBS_UARCH_PNC, PMS_PEBS_LOAD_LATENCY, B(8) | 0x23,
		  0x0000c00600800842ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "omr 0x8 local -> LOC_RAM, snoop NONE", PMS_PEBS_UARCH_PNC,
		  PMS_PEBS_LOAD_LATENCY, B(8) | 0x08, 0x0002001a00101042ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "omr 0xf remote -> REM_RAM1 + REMOTE", PMS_PEBS_UARCH_PNC, PMS_PEBS_LOAD_LATENCY,
		  B(8) | 0x1f, 0x0003c03a00102042ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "omr 0x7 MMIO remote: REMOTE, no LVL bit", PMS_PEBS_UARCH_PNC,
		  PMS_PEBS_LOAD_LATENCY, B(8) | 0x17, 0x0001c03a00100042ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "omr reserved 0x1 -> SNOOP NONE alone", PMS_PEBS_UARCH_PNC, PMS_PEBS_LOAD_LATENCY,
		  B(8) | 0x01, 0x100002ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "omr invalid 0x0 -> snoop NA|NONE (ORed)", PMS_PEBS_UARCH_PNC,
		  PMS_PEBS_LOAD_LATENCY, B(8) | 0x00, 0x1e00180022ULL | TLB_HIT_L1L2 | BLK_NA },
		/* ARW */
		{ "arw WCB hit", PMS_PEBS_UARCH_ARW, PMS_PEBS_LOAD_LATENCY, 0x02,
		  0x0000001800100242ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "arw reserved 0x07 replaced", PMS_PEBS_UARCH_ARW, PMS_PEBS_LOAD_LATENCY, 0x07,
		  0x1e00080002ULL | TLB_HIT_L1L2 | BLK_NA },
		{ "arw store latency -> STORE", PMS_PEBS_UARCH_ARW, PMS_PEBS_STORE_LATENCY,
		  0x03 | B(13), 0x0000000400100444ULL | TLB_HIT_L1L2 | BLK_DATA },
		{ "arw OMR", PMS_PEBS_UARCH_ARW, PMS_PEBS_LOAD_LATENCY, B(8) | 0x09,
		  0x0002401a00101042ULL | TLB_HIT_L1L2 | BLK_NA },
		/* precise stores and HSW */
		{ "precise_store miss, stlb miss, locked", PMS_PEBS_UARCH_SNB,
		  PMS_PEBS_PRECISE_STORE, B(4) | B(5), 0x0000000052080184ULL },
		{ "hsw store L1 miss", PMS_PEBS_UARCH_SNB, PMS_PEBS_HSW_STORE, 0x0,
		  0x0000001e05080184ULL },
		{ "hsw load: NA + LOAD", PMS_PEBS_UARCH_SNB, PMS_PEBS_HSW_LOAD, 0x1,
		  0x0000001e05080022ULL },
		{ "hsw NA: PERF_MEM_NA", PMS_PEBS_UARCH_SNB, PMS_PEBS_HSW_NA, 0x1,
		  PMS_MEM_NA_VALUE },
		{ "other: PERF_MEM_NA", PMS_PEBS_UARCH_PNC, PMS_PEBS_OTHER, 0x1234,
		  PMS_MEM_NA_VALUE },
	};
	for (size_t i = 0; i < N(rows); i++) {
		uint64_t v = 0;
		CHECK_OK(pms_pebs_data_src(rows[i].u, rows[i].kind, rows[i].status, &v));
		check_val(rows[i].name, v, rows[i].want, "");
	}
	uint64_t v;
	CHECK_EQ_INT(pms_pebs_data_src(PMS_PEBS_UARCH_COUNT, PMS_PEBS_LOAD_LATENCY, 0, &v),
		     PMS_EINVAL);
	CHECK_EQ_INT(pms_pebs_data_src(PMS_PEBS_UARCH_SKL, (enum pms_pebs_kind)99, 0, &v),
		     PMS_EINVAL);
}

PMS_TEST(pebs_omr_decodes)
{
	/* A few OMR results through perf's text */
	static const struct {
		uint64_t status;
		const char *text;
	} rows[] = {
		{ B(8) | 0x1f, "|OP LOAD|LVL Remote RAM hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A" },
		{ B(8) | 0x45, "|OP LOAD|LVL L3 hit|SNP Hit or Fwd|TLB L1 or L2 hit|LCK No|BLK  N/A" },
		{ 0x01, "|OP LOAD|LVL Unknown level 7 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A" },
	};
	for (size_t i = 0; i < N(rows); i++) {
		uint64_t v;
		char b[128];
		CHECK_OK(pms_pebs_data_src(PMS_PEBS_UARCH_PNC, PMS_PEBS_LOAD_LATENCY, rows[i].status,
					   &v));
		pms_datasrc_format(v, b, sizeof(b));
		CHECK_MSG(!strcmp(b, rows[i].text), "row %zu: \"%s\" != \"%s\"", i, b, rows[i].text);
	}
}

PMS_TEST(pebs_cpu_table)
{
	static const struct {
		unsigned fam, model;
		bool e;
		enum pms_pebs_uarch want;
	} rows[] = {
		{ 6, 0x1a, false, PMS_PEBS_UARCH_NHM },   { 6, 0x3c, false, PMS_PEBS_UARCH_SNB },
		{ 6, 0x4f, false, PMS_PEBS_UARCH_SNB },   { 6, 0x5e, false, PMS_PEBS_UARCH_SKL },
		{ 6, 0xa7, false, PMS_PEBS_UARCH_SKL },   { 6, 0x55, false, PMS_PEBS_UARCH_SKX },
		{ 6, 0x6a, false, PMS_PEBS_UARCH_SKX },   { 6, 0x8f, false, PMS_PEBS_UARCH_GLC },
		{ 6, 0xad, false, PMS_PEBS_UARCH_GLC },   { 6, 0xbe, false, PMS_PEBS_UARCH_GRT },
		{ 6, 0xaf, true, PMS_PEBS_UARCH_CMT },    { 6, 0xdd, false, PMS_PEBS_UARCH_CMT },
		{ 6, 0x97, false, PMS_PEBS_UARCH_GLC_HYBRID }, { 6, 0x97, true, PMS_PEBS_UARCH_GRT },
		{ 6, 0xaa, true, PMS_PEBS_UARCH_CMT },    { 6, 0xbd, false, PMS_PEBS_UARCH_LNC },
		{ 6, 0xbd, true, PMS_PEBS_UARCH_CMT },    { 6, 0xc5, false, PMS_PEBS_UARCH_LNC },
		{ 6, 0xcc, true, PMS_PEBS_UARCH_CMT },    { 19, 0x01, false, PMS_PEBS_UARCH_PNC },
		{ 19, 0x01, true, PMS_PEBS_UARCH_PNC },   { 18, 0x01, false, PMS_PEBS_UARCH_PNC },
		{ 18, 0x03, true, PMS_PEBS_UARCH_ARW },
	};
	for (size_t i = 0; i < N(rows); i++) {
		enum pms_pebs_uarch u = PMS_PEBS_UARCH_COUNT;
		CHECK_OK(pms_pebs_uarch_for_cpu(rows[i].fam, rows[i].model, rows[i].e, &u));
		CHECK_MSG(u == rows[i].want, "row %zu (family %u model 0x%x%s): %s != %s", i,
			  rows[i].fam, rows[i].model, rows[i].e ? " E-core" : "",
			  pms_pebs_uarch_name(u), pms_pebs_uarch_name(rows[i].want));
	}
	enum pms_pebs_uarch u;
	CHECK_EQ_INT(pms_pebs_uarch_for_cpu(6, 0x0f, false, &u), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "model 0xf") != NULL);

	for (int i = 0; i < PMS_PEBS_UARCH_COUNT; i++) {
		CHECK_OK(pms_pebs_uarch_from_name(pms_pebs_uarch_name((enum pms_pebs_uarch)i), &u));
		CHECK_EQ_INT(u, i);
	}
	CHECK_EQ_INT(pms_pebs_uarch_from_name("zen4", &u), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "zen4") != NULL);
	CHECK_EQ_INT(pms_pebs_uarch_table(PMS_PEBS_UARCH_GLC), PMS_PEBS_TBL_SKL_PMEM);
	CHECK_EQ_INT(pms_pebs_uarch_table(PMS_PEBS_UARCH_ARW), PMS_PEBS_TBL_ARW_L2HIT);
}

/* Real data: the 14 load-latency samples of quipper's perf.data.weight_struct
 * (Skylake-SP, model 0x55, MEM_TRANS_RETIRED.LOAD_LATENCY) as decoded into
 * ../shared/data/derived/weight_struct_samples.txt.  Every data_src the
 * kernel wrote must be what pms_pebs_data_src gives for some status byte. */
PMS_TEST(pebs_real_skx_samples)
{
	const char *dir = pms_t_shared_data();
	char path[1024], line[1024];
	if (!dir)
		PMS_SKIP("no ../shared/data: the real SKX samples are not available");
	snprintf(path, sizeof(path), "%s/derived/weight_struct_samples.txt", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		PMS_SKIP("%s is missing", path);

	enum pms_pebs_uarch u;
	CHECK_OK(pms_pebs_uarch_for_cpu(6, 0x55, false, &u));
	CHECK_EQ_INT(u, PMS_PEBS_UARCH_SKX);
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "'data_src': '0x");
		if (!p)
			continue;
		uint64_t want = strtoull(p + strlen("'data_src': '0x"), NULL, 16);
		int found = -1;
		for (unsigned st = 0; st < 0x100 && found < 0; st++) {
			uint64_t v;
			if (pms_pebs_data_src(u, PMS_PEBS_LOAD_LATENCY, st, &v) == 0 && v == want)
				found = (int)st;
		}
		CHECK_MSG(found >= 0, "sample %d: data_src 0x%" PRIx64 " is no SKX ldlat output", n,
			  want);
		n++;
	}
	fclose(f);
	CHECK_EQ_INT(n, 14);
}

/* ---- Arm SPE ------------------------------------------------------------- */

#define EV(x) PMS_SPE_EV_##x
#define LDOP (PMS_SPE_OP_MEM | PMS_SPE_OP_LD)
#define STOP (PMS_SPE_OP_MEM | PMS_SPE_OP_ST)
#define N1 0x413fd0c1ULL       /* Neoverse N1 r3p1 */
#define AMPERE1A 0xc00fac40ULL
#define HIP12 0x481fd060ULL
#define UNKNOWN_MIDR 0x410fd030ULL /* Cortex-A53: no decoder */

PMS_TEST(spe_examples_and_rules)
{
	static const struct {
		const char *name;
		struct pms_spe_in in;
		uint64_t want;
	} rows[] = {
		{ "SPE common load src=0xe DRAM, TLB-access",
		  { N1, true, LDOP, EV(TLB_ACCESS), 0xe, false }, 0x0000001a88101042ULL },
		{ "SPE common load src=0x9 peer core (snoop event unsupported), TLB walk",
		  { N1, true, LDOP, EV(TLB_ACCESS) | EV(TLB_WALK), 0x9, false },
		  0x0000008490080442ULL },
		{ "SPE common store (no TLB event)", { N1, true, STOP, 0, 0xe, true },
		  0x0000001e00080024ULL },
		{ "SPE common load src=0xd remote", { N1, true, LDOP, 0, 0xd, false },
		  0x000000be00080022ULL },
		/* same with snoop supported: 0x9 -> NONE or Peer */
		{ "common 0x9, DATA_SNOOPED supported", { N1, true, LDOP, 0, 0x9, true },
		  0x0000008400100442ULL },
		/* AmpereOne: remapped to common codes */
		{ "ampereone 0x7 DDR = common DRAM", { AMPERE1A, true, LDOP, EV(TLB_ACCESS), 0x7, false },
		  0x0000001a88101042ULL },
		{ "ampereone 0x0 = peer core", { AMPERE1A | 0x00100003, true, LDOP, 0, 0x0, false },
		  0x0000008400080442ULL },
		{ "ampereone unknown 0x2: events decide", { AMPERE1A, true, LDOP, EV(L1D_ACCESS), 0x2, false },
		  0x0000000200080142ULL },
		{ "ampereone store", { AMPERE1A, true, STOP, 0, 0x8, false }, 0x0000001e00080024ULL },
		/* HIP12 */
		{ "hip12 7 remote socket hitm", { HIP12, true, LDOP, 0, 7, false },
		  0x000000b600810002ULL },
		{ "hip12 9 remote mem", { HIP12, true, LDOP, 0, 9, true }, 0x0000003a00102042ULL },
		{ "hip12 18 L1", { HIP12, true, LDOP, 0, 18, false }, 0x0000000200100142ULL },
		{ "hip12 unknown code 20 -> events", { HIP12, true, LDOP, EV(LLC_MISS), 20, false },
		  0x0000000600080882ULL },
		/* no decoder: events only */
		{ "no MIDR: L1D hit", { 0, false, LDOP, EV(L1D_ACCESS), 0xe, false },
		  0x0000000200080142ULL },
		{ "unknown MIDR: recently fetched -> LFB", { UNKNOWN_MIDR, true, LDOP,
		  EV(L1D_ACCESS) | EV(L1D_REFILL) | EV(RECENTLY_FETCHED), 0, false },
		  0x0000001800080242ULL },
		{ "L2D hit", { 0, false, LDOP, EV(L1D_REFILL) | EV(L2D_ACCESS), 0, false },
		  0x0000000400080442ULL },
		{ "LLC hit", { 0, false, LDOP, EV(L2D_MISS) | EV(LLC_ACCESS), 0, false },
		  0x0000000600080842ULL },
		{ "LLC miss", { 0, false, LDOP, EV(LLC_ACCESS) | EV(LLC_MISS) | EV(L2D_MISS), 0, false },
		  0x0000000600080882ULL },
		{ "L2D miss", { 0, false, LDOP, EV(L2D_MISS) | EV(L1D_REFILL), 0, false },
		  0x0000000400080482ULL },
		{ "L1D refill only", { 0, false, LDOP, EV(L1D_REFILL), 0, false },
		  0x0000000200080182ULL },
		{ "no events: NA", { 0, false, LDOP, 0, 0, false }, 0x0000001e00080022ULL },
		{ "store L2D access+miss -> L2 miss", { 0, false, STOP,
		  EV(L1D_ACCESS) | EV(L2D_ACCESS) | EV(L2D_MISS), 0, false }, 0x0000000400080484ULL },
		{ "store L1D access -> L1 hit", { 0, false, STOP, EV(L1D_ACCESS), 0, false },
		  0x0000000200080144ULL },
		{ "store LLC access -> L3 hit", { 0, false, STOP, EV(LLC_ACCESS) | EV(L1D_REFILL), 0,
		  false }, 0x0000000600080844ULL },
		{ "snooped + modified -> HITM, remote", { 0, false, LDOP,
		  EV(L1D_ACCESS) | EV(DATA_SNOOPED) | EV(CACHE_DATA_MODIFIED) | EV(REMOTE_ACCESS), 0,
		  false }, 0x0000002200800142ULL },
		{ "snooped -> HIT", { 0, false, LDOP, EV(L1D_ACCESS) | EV(DATA_SNOOPED), 0, false },
		  0x0000000200200142ULL },
		{ "memory op neither ld nor st -> OP NA", { 0, false, PMS_SPE_OP_MEM, 0, 0, false },
		  0x0000001e00080021ULL },
		{ "not a memory op", { N1, true, PMS_SPE_OP_LD, EV(L1D_ACCESS), 0, false }, 0 },
	};
	for (size_t i = 0; i < N(rows); i++)
		check_val(rows[i].name, pms_spe_data_src(&rows[i].in), rows[i].want, "");
	for (size_t i = 0; i < 4; i++) /* the facts' four examples, through perf's text */
		check_val(rows[i].name, pms_spe_data_src(&rows[i].in), rows[i].want, NULL);
	CHECK_EQ_U64(pms_spe_data_src(NULL), 0);
}

PMS_TEST(spe_midr_match)
{
	static const struct {
		uint64_t midr;
		enum pms_spe_decoder want;
	} rows[] = {
		{ 0x410fd4d0, PMS_SPE_DEC_COMMON }, { 0x410fd810, PMS_SPE_DEC_COMMON },
		{ 0x410fd890, PMS_SPE_DEC_COMMON }, { 0x410fd870, PMS_SPE_DEC_COMMON },
		{ 0x410fd4b0, PMS_SPE_DEC_COMMON }, { 0x410fd440, PMS_SPE_DEC_COMMON },
		{ 0x410fd4c0, PMS_SPE_DEC_COMMON }, { 0x410fd4e0, PMS_SPE_DEC_COMMON },
		{ 0x410fd820, PMS_SPE_DEC_COMMON }, { 0x410fd850, PMS_SPE_DEC_COMMON },
		{ 0x410fd0c0, PMS_SPE_DEC_COMMON }, { 0x410fd490, PMS_SPE_DEC_COMMON },
		{ 0x410fd400, PMS_SPE_DEC_COMMON }, { 0x410fd4f0, PMS_SPE_DEC_COMMON },
		{ 0x410fd840, PMS_SPE_DEC_COMMON }, { 0x4e0f0100, PMS_SPE_DEC_COMMON },
		{ 0xc00fac40, PMS_SPE_DEC_AMPEREONE }, { 0x480fd060, PMS_SPE_DEC_HIP12 },
		{ 0x41ffd0cf, PMS_SPE_DEC_COMMON }, /* any variant and revision */
		{ 0x410ed0c0, PMS_SPE_DEC_NONE },   /* architecture field differs */
		{ 0x420fd0c0, PMS_SPE_DEC_NONE },   /* other implementer */
		{ 0x410fd030, PMS_SPE_DEC_NONE },   /* Cortex-A53 */
		{ 0xc00fac30, PMS_SPE_DEC_NONE },   /* AmpereOne (not A) */
	};
	for (size_t i = 0; i < N(rows); i++)
		CHECK_MSG(pms_spe_decoder_for_midr(rows[i].midr) == rows[i].want,
			  "row %zu midr 0x%08" PRIx64 ": %d != %d", i, rows[i].midr,
			  (int)pms_spe_decoder_for_midr(rows[i].midr), (int)rows[i].want);
}

PMS_TEST_MAIN()
