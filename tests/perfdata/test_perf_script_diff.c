/* Differential test: pmuscope's data_src text against the real `perf script`.
 *
 * Writes a perf.data (one raw attr, sample_type IP|TID|TIME|ADDR|CPU|WEIGHT|
 * DATA_SRC, sample_id_all, a COMM and an MMAP2 naming the thread) holding
 * more than 10,000 samples whose data_src values cover
 *   - every golden vector of kernel-abi-facts.md 2.3, 2.4, 3, 4 and 5,
 *   - 0 and every single bit of the 64-bit value,
 *   - every value of each field (op, lvl, snoop, lock, tlb, lvl_num x
 *     hit/miss x remote, snoopx, blk, hops, region),
 *   - combinations of one value per field, and
 *   - random values (fixed-seed PRNG) with at most 2 bits set in each
 *     bitmask field,
 * runs `perf script -F data_src` on it and requires every line to equal
 * pms_datasrc_format_script() for the same value.
 *
 * perf pads each data_src line to the longest one printed so far (a static
 * maxlen in builtin-script.c data_src__fprintf), so lines are compared after
 * cutting at 99 characters (its 100-byte buffer) and dropping trailing
 * spaces.
 *
 * Values perf does not define are not written (and counted as dropped):
 *   - decodes longer than 98 characters: perf_mem__{lvl,snp,tlb}_scnprintf
 *     join names with an unbounded strcat and compute "sz - l" in size_t, and
 *     perf_script__meminfo_scnprintf hands the level printer the whole buffer
 *     size, so a long decode is cut at a piece-dependent place or overruns
 *     perf's 100-byte buffer (mem-events.c).  Up to 98 characters every
 *     piece fits with the one byte each printer reserves.  The length is the
 *     sum of pms_datasrc_format_{op,mem,snoop,tlb,lock,blk}; the test checks
 *     that no golden or single-bit value is dropped this way.  Two bits per
 *     bitmask field alone does not keep a decode that short (remote + hops +
 *     "Memory-side Cache" + two snoop and two snoopx names exceed it), so
 *     random values need this filter too; about 5% are dropped.
 *   - mem_hops 5..7 together with a mem_lvl_num other than 0 and N/A: perf
 *     indexes mem_hops[] (5 entries) out of bounds.  Hops 5..7 are written
 *     with lvl_num 0 or N/A, where perf prints the legacy level text and
 *     never reads mem_hops. */
#include "check.h"
#include "perf_tool.h"
#include "records.h"

#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/perfdata.h"

#include <errno.h>
#include <fcntl.h>

/* Field positions (kernel-abi-facts.md 1.1). */
#define DS_OP 0
#define DS_LVL 5
#define DS_SNOOP 19
#define DS_LOCK 24
#define DS_TLB 26
#define DS_LVLNUM 33
#define DS_REMOTE 37
#define DS_SNOOPX 38
#define DS_BLK 40
#define DS_HOPS 43
#define DS_REGION 46
#define DS_RSVD 51

#define LVL_HIT (UINT64_C(0x2) << DS_LVL)
#define LVL_MISS (UINT64_C(0x4) << DS_LVL)
#define LVL_L3 (UINT64_C(0x40) << DS_LVL)
#define LVLNUM(n) ((uint64_t)(n) << DS_LVLNUM)

/* Perf's text is only compared up to its buffer: 99 characters. */
#define LINE_MAX_CMP 99
/* Longest decode perf prints without truncation or overrun (see top). */
#define DECODE_DEFINED_MAX 98

/* Golden vectors; labels name the section of
 * /work/shared/reference/kernel-abi-facts.md and the table row. */
static const struct {
	uint64_t val;
	const char *what;
} golden[] = {
	{ 0x800000040ULL, "2.3 tests/mem.c step 1" },
	{ 0x2800000040ULL, "2.3 tests/mem.c step 2" },
	{ 0x1c00000080ULL, "2.3 tests/mem.c step 3" },
	{ 0x3c00000080ULL, "2.3 tests/mem.c step 4" },
	{ 0x7a00000080ULL, "2.3 tests/mem.c step 5" },
	{ 0x0ULL, "2.4 all zero" },
	{ 0x540ULL, "2.4 lvl L1|L2|HIT" },
	{ 0x40ULL, "2.4 lvl HIT only" },
	{ 0x20ULL, "2.4 lvl NA only" },
	{ 0x800ULL, "2.4 lvl L3 no hit/miss" },
	{ 0x1e00000840ULL, "2.4 lvl L3|HIT, lvlnum NA" },
	{ 0xe00000040ULL, "2.4 lvlnum L0 (7) hit" },
	{ 0x183a00000040ULL, "2.4 lvlnum RAM + remote + hops2 hit" },
	{ 0x100600000040ULL, "2.4 lvlnum L3 + hops1 (no remote) hit" },
	{ 0xc00000040ULL, "2.4 lvlnum MSC hit" },
	{ 0xa00000080ULL, "2.4 lvlnum L2_MHB miss" },
	{ 0x2000000c0ULL, "2.4 lvl HIT|MISS both + lvlnum L1" },
	{ 0x28000000ULL, "2.4 dtlb L1|HIT" },
	{ 0x68000000ULL, "2.4 dtlb L1|L2|HIT" },
	{ 0x50000000ULL, "2.4 dtlb L2|MISS" },
	{ 0x90000000ULL, "2.4 dtlb WK|MISS" },
	{ 0x190000000ULL, "2.4 dtlb WK|OS|MISS" },
	{ 0x8000000ULL, "2.4 dtlb HIT only" },
	{ 0x18000000ULL, "2.4 dtlb HIT|MISS" },
	{ 0x24000000ULL, "2.4 dtlb NA|L1" },
	{ 0x500000ULL, "2.4 snoop NONE|MISS" },
	{ 0x8000200000ULL, "2.4 snoop HIT + snoopx PEER" },
	{ 0xc000000000ULL, "2.4 snoopx FWD|PEER" },
	{ 0x880000ULL, "2.4 snoop NA|HITM" },
	{ 0x3000000ULL, "2.4 lock NA|LOCKED" },
	{ 0x2000000ULL, "2.4 lock LOCKED" },
	{ 0x60000000000ULL, "2.4 blk DATA|ADDR" },
	{ 0x30000000000ULL, "2.4 blk NA|DATA" },
	{ 0x40000000000ULL, "2.4 blk ADDR" },
	{ 0x6ULL, "2.4 op LOAD|STORE" },
	{ 0x3ULL, "2.4 op NA|LOAD" },
	{ 0x8ULL, "2.4 op PFETCH" },
	{ 0x10ULL, "2.4 op EXEC" },
	{ 0x800600000842ULL, "2.4 region L_SHARE on L3 hit (region not printed)" },
	{ 0x81600008840ULL, "3.1 2 LOC_CACHE" },
	{ 0x1a00001040ULL, "3.1 3 DRAM" },
	{ 0x103600010040ULL, "3.1 4 REM_CACHE" },
	{ 0x1400020040ULL, "3.1 7 IO" },
	{ 0x600000840ULL, "3.1 1 EXT_LOC_CACHE" },
	{ 0x83600008040ULL, "3.1 2 EXT_NEAR_CCX_CACHE" },
	{ 0x1c00000000ULL, "3.1 6 EXT_PMEM" },
	{ 0x1200000000ULL, "3.1 8 EXT_EXT_MEM" },
	{ 0x0000001a29081042ULL, "3.3 IBS zen4 load DataSrc=3 local DRAM, L1TLB hit" },
	{ 0x0000103a49082042ULL, "3.3 IBS zen4 load DataSrc=3 + RmtNode, L2TLB hit" },
	{ 0x0000083652808042ULL, "3.3 IBS zen4 load DataSrc=2 near CCX, CacheHitSt=0 (" },
	{ 0x0000000229080142ULL, "3.3 IBS load L1 hit (DcMiss=0)" },
	{ 0x0000081629808842ULL, "3.3 IBS pre-zen4 load DataSrc=2 LOC_CACHE, HitM" },
	{ 0x0000000429080444ULL, "3.3 IBS store L2 hit" },
	{ 0x0000001e05080024ULL, "3.3 IBS store L2 miss (no DataSrc for stores, no MAB" },
	{ 0x0000081600008840ULL, "3.3 ibs_g[0x02]" },
	{ 0x0000001a00001040ULL, "3.3 ibs_g[0x03]" },
	{ 0x0000103600010040ULL, "3.3 ibs_g[0x04]" },
	{ 0x0000001400020040ULL, "3.3 ibs_g[0x07]" },
	{ 0x0000103a00002040ULL, "3.3 ibs_g[0x03]+rmt_node" },
	{ 0x0000000600000840ULL, "3.3 ibs_zen4[0x01]" },
	{ 0x0000083600008040ULL, "3.3 ibs_zen4[0x02]" },
	{ 0x0000001c00000000ULL, "3.3 ibs_zen4[0x06]" },
	{ 0x0000001200000000ULL, "3.3 ibs_zen4[0x08]" },
	{ 0x0000103c00000000ULL, "3.3 ibs_zen4[0x06]+rmt_node" },
	{ 0x0000103200000000ULL, "3.3 ibs_zen4[0x08]+rmt_node" },
	{ 0x0000001000040040ULL, "3.3 ibs_uncached" },
	{ 0x0000000200000140ULL, "3.3 ibs_L1hit" },
	{ 0x0000000400000440ULL, "3.3 ibs_L2hit" },
	{ 0x0000001800000240ULL, "3.3 ibs_MAB" },
	{ 0x0000001e00000020ULL, "3.3 ibs_none" },
	{ 0x0000001a88101042ULL, "4.4 SPE common load src=0xe DRAM, TLB-access" },
	{ 0x0000008490080442ULL, "4.4 SPE common load src=0x9 peer core (snoop event u" },
	{ 0x0000001e00080024ULL, "4.4 SPE common store (no TLB event)" },
	{ 0x000000be00080022ULL, "4.4 SPE common load src=0xd remote" },
	{ 0x0000000600080082ULL, "5.1 pebs_default[0x00]" },
	{ 0x0000000200100142ULL, "5.1 pebs_default[0x01]" },
	{ 0x0000001800100242ULL, "5.1 pebs_default[0x02]" },
	{ 0x0000000400100442ULL, "5.1 pebs_default[0x03]" },
	{ 0x0000000600100842ULL, "5.1 pebs_default[0x04]" },
	{ 0x0000000600400842ULL, "5.1 pebs_default[0x05]" },
	{ 0x0000000600200842ULL, "5.1 pebs_default[0x06]" },
	{ 0x0000000600800842ULL, "5.1 pebs_default[0x07]" },
	{ 0x0000002600208042ULL, "5.1 pebs_default[0x08]" },
	{ 0x0000002600808042ULL, "5.1 pebs_default[0x09]" },
	{ 0x0000001a00201042ULL, "5.1 pebs_default[0x0a]" },
	{ 0x0000002600202042ULL, "5.1 pebs_default[0x0b]" },
	{ 0x0000001a00501042ULL, "5.1 pebs_default[0x0c]" },
	{ 0x0000003a00502042ULL, "5.1 pebs_default[0x0d]" },
	{ 0x0000001e00120042ULL, "5.1 pebs_default[0x0e]" },
	{ 0x0000001e00140042ULL, "5.1 pebs_default[0x0f]" },
	{ 0x0000000800200042ULL, "5.1 skl_l4[0x08]" },
	{ 0x0000002800200042ULL, "5.1 skl_l4[0x09]" },
	{ 0x0000001c00200042ULL, "5.1 skl_pmem[0x08]" },
	{ 0x0000003c00200042ULL, "5.1 skl_pmem[0x09]" },
	{ 0x0000003a00100042ULL, "5.1 skl[0x0b]" },
	{ 0x0000007600000042ULL, "5.1 skl[0x0c]" },
	{ 0x0000003600800042ULL, "5.1 skl[0x0d]" },
	{ 0x0000004600000842ULL, "5.1 grt[0x08]" },
	{ 0x0000001a00101042ULL, "5.1 cmt[0x0a]" },
	{ 0x0000007a00000042ULL, "5.1 cmt[0x0c]" },
	{ 0x0000003a00800042ULL, "5.1 cmt[0x0d]" },
	{ 0x0000000000000000ULL, "5.1 lnc[0x04]" },
	{ 0x0000000a00100042ULL, "5.1 lnc[0x06]" },
	{ 0x0000000600800882ULL, "5.1 lnc[0x0f]" },
	{ 0x0000000c00100042ULL, "5.1 lnc[0x10]" },
	{ 0x0000001e00080022ULL, "5.1 pnc_l2hit[0x00]" },
	{ 0x0000000e00100042ULL, "5.1 pnc_l2hit[0x01]" },
	{ 0x0000000400200442ULL, "5.1 pnc_l2hit[0x07]" },
	{ 0x0000000400800442ULL, "5.1 pnc_l2hit[0x08]" },
	{ 0x0000800600000842ULL, "5.1 omr_base[0x02]" },
	{ 0x0000c00600000842ULL, "5.1 omr_base[0x03]" },
	{ 0x0001000600000842ULL, "5.1 omr_base[0x04]" },
	{ 0x0001400600000842ULL, "5.1 omr_base[0x05]" },
	{ 0x0001800600000842ULL, "5.1 omr_base[0x06]" },
	{ 0x0001c01a00000042ULL, "5.1 omr_base[0x07]" },
	{ 0x0002001a00000042ULL, "5.1 omr_base[0x08]" },
	{ 0x0002401a00000042ULL, "5.1 omr_base[0x09]" },
	{ 0x0002801a00000042ULL, "5.1 omr_base[0x0a]" },
	{ 0x0002c01a00000042ULL, "5.1 omr_base[0x0b]" },
	{ 0x0003001a00000042ULL, "5.1 omr_base[0x0c]" },
	{ 0x0003401a00000042ULL, "5.1 omr_base[0x0d]" },
	{ 0x0003801a00000042ULL, "5.1 omr_base[0x0e]" },
	{ 0x0003c01a00000042ULL, "5.1 omr_base[0x0f]" },
	{ 0x0000010268100142ULL, "5.3 PEBS SKL ldlat dse=0x1 L1 (TLB hit, BLK NA)" },
	{ 0x0000011a52501042ULL, "5.3 PEBS SNB–BDW (default table, no block info) ldla" },
	{ 0x0000017668000042ULL, "5.3 PEBS SKL-family ldlat dse=0xc (skl override) rem" },
	{ 0x0000010468100444ULL, "5.3 PEBS stlat dse=0x3" },
	{ 0x0000000048080144ULL, "5.3 PEBS precise_store (pre-HSW) L1 hit, STLB hit" },
	{ 0x0000001e05080144ULL, "5.3 PEBS HSW precise store (status bit0=1)" },
	{ 0x1e05080021ULL, "1.1 PERF_MEM_NA" },
	{ 0x103a00002040ULL, "3.1 IBS DRAM + RmtNode" },
	{ 0x103c00000000ULL, "3.1 IBS PMEM + RmtNode" },
	{ 0x103200000000ULL, "3.1 IBS CXL + RmtNode" },
	{ 0x1000040040ULL, "3.2 IBS uncached" },
	{ 0x200000140ULL, "3.2 IBS L1" },
	{ 0x400000440ULL, "3.2 IBS L2" },
	{ 0x1800000240ULL, "3.2 IBS MAB" },
	{ 0x1e00000020ULL, "3.2 IBS none" },
};

enum cat { C_GOLDEN, C_BIT, C_FIELD, C_COMBO, C_RANDOM, C_N };
static const char *const cat_name[C_N] = { "golden", "single-bit", "field-value",
					   "one-per-field", "random" };

struct vals {
	uint64_t *v;
	unsigned char *cat;
	size_t n, cap;
	size_t kept[C_N], dropped_long[C_N], dropped_hops[C_N];
};

static size_t decode_len(uint64_t v)
{
	/* "|OP " op "|LVL " lvl "|SNP " snp "|TLB " tlb "|LCK " lck "|BLK " blk */
	return 5 * 6 - 1 + pms_datasrc_format_op(v, NULL, 0) +
	       pms_datasrc_format_mem(v, NULL, 0) + pms_datasrc_format_snoop(v, NULL, 0) +
	       pms_datasrc_format_tlb(v, NULL, 0) + pms_datasrc_format_lock(v, NULL, 0) +
	       pms_datasrc_format_blk(v, NULL, 0);
}

static void add(struct vals *s, enum cat c, uint64_t v)
{
	unsigned lvlnum = (unsigned)(v >> DS_LVLNUM) & 0xf;
	unsigned hops = (unsigned)(v >> DS_HOPS) & 0x7;

	if (hops >= 5 && lvlnum != 0 && lvlnum != 0xf) {
		s->dropped_hops[c]++;
		return;
	}
	if (decode_len(v) > DECODE_DEFINED_MAX) {
		s->dropped_long[c]++;
		return;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		uint64_t *nv = realloc(s->v, cap * sizeof(*nv));
		unsigned char *nc;
		if (!nv)
			return;
		s->v = nv;
		nc = realloc(s->cat, cap);
		if (!nc)
			return;
		s->cat = nc;
		s->cap = cap;
	}
	s->v[s->n] = v;
	s->cat[s->n] = (unsigned char)c;
	s->n++;
	s->kept[c]++;
}

/* xorshift64*: a fixed seed gives the same values on every run. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

/* 0, 1 or 2 distinct bits of a width-bit field. */
static uint64_t rnd_bits(uint64_t *s, unsigned width)
{
	unsigned k = (unsigned)(rnd(s) % 3);
	uint64_t v = 0;
	for (unsigned i = 0; i < k; i++)
		v |= UINT64_C(1) << (rnd(s) % width);
	return v;
}

/* One named value of a bitmask field: 0 or a single bit. */
static uint64_t one_bit(uint64_t *s, unsigned width)
{
	unsigned k = (unsigned)(rnd(s) % (width + 1));
	return k == width ? 0 : UINT64_C(1) << k;
}

static void gen_values(struct vals *s)
{
	uint64_t seed;

	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++)
		add(s, C_GOLDEN, golden[i].val);

	add(s, C_BIT, 0);
	for (unsigned b = 0; b < 64; b++)
		add(s, C_BIT, UINT64_C(1) << b);

	/* Every value of every field, the other fields 0. */
	for (uint64_t v = 0; v < 32; v++)
		add(s, C_FIELD, v << DS_OP);
	for (uint64_t v = 0; v < (1u << 14); v++)
		add(s, C_FIELD, v << DS_LVL);
	for (uint64_t v = 0; v < 32; v++)
		add(s, C_FIELD, v << DS_SNOOP);
	for (uint64_t v = 0; v < 4; v++)
		add(s, C_FIELD, v << DS_LOCK);
	for (uint64_t v = 0; v < 128; v++)
		add(s, C_FIELD, v << DS_TLB);
	for (uint64_t n = 0; n < 16; n++) {
		static const uint64_t hm[4] = { 0, LVL_HIT, LVL_MISS, LVL_HIT | LVL_MISS };
		for (int h = 0; h < 4; h++)
			for (uint64_t r = 0; r < 2; r++)
				add(s, C_FIELD, LVLNUM(n) | hm[h] | r << DS_REMOTE);
		/* With a legacy level bit: ignored unless lvl_num is 0 or N/A. */
		add(s, C_FIELD, LVLNUM(n) | LVL_L3 | LVL_MISS);
	}
	for (uint64_t v = 0; v < 4; v++) {
		add(s, C_FIELD, v << DS_SNOOPX);
		add(s, C_FIELD, v << DS_SNOOPX | UINT64_C(0x4) << DS_SNOOP);
	}
	for (uint64_t v = 0; v < 8; v++)
		add(s, C_FIELD, v << DS_BLK);
	for (uint64_t h = 0; h < 8; h++) {
		/* hops 5..7 are dropped with lvl_num L3/RAM (see top). */
		static const uint64_t lv[4] = { 3, 0xd, 0, 0xf };
		for (int i = 0; i < 4; i++)
			for (uint64_t r = 0; r < 2; r++)
				add(s, C_FIELD,
				    h << DS_HOPS | LVLNUM(lv[i]) | LVL_L3 | LVL_HIT | r << DS_REMOTE);
	}
	for (uint64_t v = 0; v < 32; v++) {
		add(s, C_FIELD, v << DS_REGION);
		add(s, C_FIELD, v << DS_REGION | LVLNUM(3) | LVL_L3 | LVL_HIT | 2);
	}
	for (uint64_t v = 1; v < (1u << 13); v = v * 3 + 1)
		add(s, C_FIELD, v << DS_RSVD | 0x1a00001042);

	/* One value per field, fields chosen independently. */
	seed = UINT64_C(0x9e3779b97f4a7c15);
	for (int i = 0; i < 4000; i++) {
		uint64_t lvlnum = rnd(&seed) % 16;
		uint64_t hops = rnd(&seed) % (lvlnum == 0 || lvlnum == 0xf ? 8 : 5);
		uint64_t v = one_bit(&seed, 5) << DS_OP | one_bit(&seed, 14) << DS_LVL |
			     one_bit(&seed, 5) << DS_SNOOP | one_bit(&seed, 2) << DS_LOCK |
			     one_bit(&seed, 7) << DS_TLB | lvlnum << DS_LVLNUM |
			     (rnd(&seed) & 1) << DS_REMOTE | one_bit(&seed, 2) << DS_SNOOPX |
			     one_bit(&seed, 3) << DS_BLK | hops << DS_HOPS |
			     (rnd(&seed) % 32) << DS_REGION;
		add(s, C_COMBO, v);
	}

	/* Random values, at most 2 bits per bitmask field; 1 in 8 with
	 * reserved bits (perf must ignore them). */
	seed = UINT64_C(0x243f6a8885a308d3);
	for (int i = 0; i < 8000; i++) {
		uint64_t lvlnum = rnd(&seed) % 16;
		uint64_t hops = rnd(&seed) % (lvlnum == 0 || lvlnum == 0xf ? 8 : 5);
		uint64_t v = rnd_bits(&seed, 5) << DS_OP | rnd_bits(&seed, 14) << DS_LVL |
			     rnd_bits(&seed, 5) << DS_SNOOP | rnd_bits(&seed, 2) << DS_LOCK |
			     rnd_bits(&seed, 7) << DS_TLB | lvlnum << DS_LVLNUM |
			     (rnd(&seed) & 1) << DS_REMOTE | rnd_bits(&seed, 2) << DS_SNOOPX |
			     rnd_bits(&seed, 3) << DS_BLK | hops << DS_HOPS |
			     (rnd(&seed) % 32) << DS_REGION;
		if (rnd(&seed) % 8 == 0)
			v |= rnd_bits(&seed, 13) << DS_RSVD;
		add(s, C_RANDOM, v);
	}
}

static int write_file(const char *path, const struct vals *s)
{
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a = rec_attr();
	struct rec r;
	size_t n;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	int rc;

	if (fd < 0) {
		fprintf(stderr, "open %s: %s\n", path, strerror(errno));
		return -1;
	}
	rc = pms_perfdata_writer_open(fd, &w);
	if (rc < 0)
		goto out;
	rc = pms_perfdata_writer_add_attr(w, &a, NULL, 0);
	if (rc >= 0)
		rc = pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_HOSTNAME, "pmsdiff");
	if (rc >= 0)
		rc = pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_ARCH, "x86_64");
	if (rc >= 0)
		rc = pms_perfdata_writer_set_nrcpus(w, 2, 2);
	n = rec_comm(&r, 4242, 4242, "pmsdiff", 1000, 1);
	if (rc >= 0)
		rc = pms_perfdata_writer_write(w, r.b, n);
	n = rec_mmap2(&r, 4242, 4242, 0x400000, 0x100000, 0, "/usr/bin/pmsdiff", 1001, 1);
	if (rc >= 0)
		rc = pms_perfdata_writer_write(w, r.b, n);
	for (size_t i = 0; rc >= 0 && i < s->n; i++) {
		/* Strictly increasing times keep perf's output in file order. */
		n = rec_sample(&r, 0x401000 + 4 * (uint64_t)(i % 4096), 4242, 4242,
			       10000 + (uint64_t)i, 0x7f0000000000 + 64 * (uint64_t)i, 1,
			       20 + i % 300, s->v[i]);
		rc = pms_perfdata_writer_write(w, r.b, n);
	}
	if (rc >= 0)
		rc = pms_perfdata_writer_close(w);
out:
	pms_perfdata_writer_free(w);
	close(fd);
	return rc;
}

/* Cut at LINE_MAX_CMP and drop the newline and trailing spaces. */
static void normalise(char *line)
{
	size_t n = strcspn(line, "\n");
	if (n > LINE_MAX_CMP)
		n = LINE_MAX_CMP;
	while (n > 0 && line[n - 1] == ' ')
		n--;
	line[n] = '\0';
}

PMS_TEST(perf_script_data_src_matches)
{
	char dir[256], path[512], errpath[512], cmd[1400], ver[128];
	char line[1024], ours[256], alt[256];
	struct vals s;
	size_t lines = 0, mismatches = 0, split_mismatches = 0, per_cat[C_N] = { 0 };
	FILE *p;
	int rc;

	if (!pt_perf_version(ver, sizeof(ver)))
		PMS_SKIP(PT_SKIP_MSG);
	if (!pt_mkdtemp(dir, sizeof(dir)))
		PMS_SKIP("mkdtemp failed: %s", strerror(errno));
	pt_perf_env(dir);

	memset(&s, 0, sizeof(s));
	gen_values(&s);
	/* Nothing deterministic may be dropped as "perf undefined". */
	CHECK_EQ_INT(s.dropped_long[C_GOLDEN] + s.dropped_hops[C_GOLDEN], 0);
	CHECK_EQ_INT(s.dropped_long[C_BIT] + s.dropped_hops[C_BIT], 0);
	CHECK(s.n >= 10000);

	snprintf(path, sizeof(path), "%s/perf.data", dir);
	snprintf(errpath, sizeof(errpath), "%s/perf-script.err", dir);
	rc = write_file(path, &s);
	CHECK_OK(rc);
	if (rc < 0)
		goto out;

	snprintf(cmd, sizeof(cmd), "perf script -i '%s' -F data_src 2>'%s'", path, errpath);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	if (!p)
		goto out;
	while (fgets(line, sizeof(line), p)) {
		size_t i = lines++;
		if (i >= s.n)
			continue;
		normalise(line);
		pms_datasrc_format_script(s.v[i], ours, sizeof(ours));
		normalise(ours);
		/* The same text from its parts: "%16" PRIx64 " " and the decode. */
		snprintf(alt, sizeof(alt), "%16" PRIx64 " ", s.v[i]);
		pms_datasrc_format(s.v[i], alt + 17, sizeof(alt) - 17);
		normalise(alt);
		if (strcmp(ours, alt) != 0) {
			if (split_mismatches < 5)
				fprintf(stderr,
					"format_script and format disagree on 0x%" PRIx64
					":\n  \"%s\"\n  \"%s\"\n",
					s.v[i], ours, alt);
			split_mismatches++;
		}
		if (strcmp(line, ours) != 0) {
			if (mismatches < 20)
				fprintf(stderr,
					"MISMATCH %s value 0x%" PRIx64 "\n  perf: \"%s\"\n  ours: \"%s\"\n",
					cat_name[s.cat[i]], s.v[i], line, ours);
			mismatches++;
			per_cat[s.cat[i]]++;
		}
	}
	rc = pt_status(pclose(p));
	if (rc != 0) {
		FILE *e = fopen(errpath, "r");
		fprintf(stderr, "%s exited %d; its stderr:\n", cmd, rc);
		while (e && fgets(line, sizeof(line), e))
			fputs(line, stderr);
		if (e)
			fclose(e);
	}
	CHECK_EQ_INT(rc, 0);

	fprintf(stderr, "%s: %zu samples written, %zu lines compared, %zu mismatches\n", ver,
		s.n, lines, mismatches);
	for (int c = 0; c < C_N; c++)
		fprintf(stderr,
			"  %-13s %6zu compared, %4zu mismatched; not written: %zu decode > %d "
			"chars, %zu hops 5..7 with lvl_num\n",
			cat_name[c], s.kept[c], per_cat[c], s.dropped_long[c],
			DECODE_DEFINED_MAX, s.dropped_hops[c]);
	CHECK_EQ_U64(lines, s.n);
	CHECK_EQ_U64(mismatches, 0);
	CHECK_EQ_U64(split_mismatches, 0);
out:
	free(s.v);
	free(s.cat);
	pt_rmdir(dir);
}

PMS_TEST_MAIN()
