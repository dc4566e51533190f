/* union perf_mem_data_src: pack/unpack, perf's text for every golden vector
 * of kernel-abi-facts.md, the mem report columns and mem-stat names, and the
 * 99-character cut. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "test_datasrc_golden.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

PMS_TEST(constants_match_facts_1_2)
{
	/* value << shift, straight from the facts table */
	static const struct {
		const char *name;
		uint64_t got, want;
	} rows[] = {
		{ "OP_NA", PMS_MEM_S(OP, NA), 0x1 },
		{ "OP_EXEC", PMS_MEM_S(OP, EXEC), 0x10 },
		{ "LVL_NA", PMS_MEM_S(LVL, NA), 0x20 },
		{ "LVL_L1", PMS_MEM_S(LVL, L1), 0x100 },
		{ "LVL_UNC", PMS_MEM_S(LVL, UNC), 0x40000 },
		{ "SNOOP_NA", PMS_MEM_S(SNOOP, NA), 0x80000 },
		{ "SNOOP_HITM", PMS_MEM_S(SNOOP, HITM), 0x800000 },
		{ "LOCK_NA", PMS_MEM_S(LOCK, NA), 0x1000000 },
		{ "LOCK_LOCKED", PMS_MEM_S(LOCK, LOCKED), 0x2000000 },
		{ "TLB_NA", PMS_MEM_S(TLB, NA), 0x4000000 },
		{ "TLB_OS", PMS_MEM_S(TLB, OS), 0x100000000 },
		{ "LVLNUM_L1", PMS_MEM_S(LVLNUM, L1), 0x200000000 },
		{ "LVLNUM_L2_MHB", PMS_MEM_S(LVLNUM, L2_MHB), 0xa00000000 },
		{ "LVLNUM_MSC", PMS_MEM_S(LVLNUM, MSC), 0xc00000000 },
		{ "LVLNUM_L0", PMS_MEM_S(LVLNUM, L0), 0xe00000000 },
		{ "LVLNUM_UNC", PMS_MEM_S(LVLNUM, UNC), 0x1000000000 },
		{ "LVLNUM_CXL", PMS_MEM_S(LVLNUM, CXL), 0x1200000000 },
		{ "LVLNUM_NA", PMS_MEM_S(LVLNUM, NA), 0x1e00000000 },
		{ "REMOTE", PMS_MEM_S(REMOTE, REMOTE), 0x2000000000 },
		{ "SNOOPX_FWD", PMS_MEM_S(SNOOPX, FWD), 0x4000000000 },
		{ "SNOOPX_PEER", PMS_MEM_S(SNOOPX, PEER), 0x8000000000 },
		{ "BLK_NA", PMS_MEM_S(BLK, NA), 0x10000000000 },
		{ "BLK_ADDR", PMS_MEM_S(BLK, ADDR), 0x40000000000 },
		{ "HOPS_0", PMS_MEM_S(HOPS, 0), 0x80000000000 },
		{ "HOPS_3", PMS_MEM_S(HOPS, 3), 0x200000000000 },
		{ "REGION_NA", PMS_MEM_S(REGION, NA), 0 },
		{ "REGION_RSVD", PMS_MEM_S(REGION, RSVD), 0x400000000000 },
		{ "REGION_MMIO", PMS_MEM_S(REGION, MMIO), 0x1c00000000000 },
		{ "REGION_MEM7", PMS_MEM_S(REGION, MEM7), 0x3c00000000000 },
	};
	for (size_t i = 0; i < N(rows); i++)
		CHECK_MSG(rows[i].got == rows[i].want, "row %s: 0x%" PRIx64 " != 0x%" PRIx64,
			  rows[i].name, rows[i].got, rows[i].want);
	CHECK_EQ_U64(PMS_MEM_NA_VALUE, PMS_MEM_S(OP, NA) | PMS_MEM_S(LVL, NA) |
					       PMS_MEM_S(SNOOP, NA) | PMS_MEM_S(LOCK, NA) |
					       PMS_MEM_S(TLB, NA) | PMS_MEM_S(LVLNUM, NA));
	CHECK_EQ_U64(PMS_MEM_NA_VALUE, 0x1e05080021ULL);
}

PMS_TEST(unpack_fields)
{
	struct pms_datasrc d;
	/* 0x183a00000040: lvlnum RAM + remote + hops2 hit (facts 2.4) */
	pms_datasrc_unpack(0x183a00000040ULL, &d);
	CHECK_EQ_INT(d.lvl, PMS_MEM_LVL_HIT);
	CHECK_EQ_INT(d.lvl_num, PMS_MEM_LVLNUM_RAM);
	CHECK_EQ_INT(d.remote, 1);
	CHECK_EQ_INT(d.hops, PMS_MEM_HOPS_2);
	CHECK_EQ_INT(d.op, 0);
	CHECK_EQ_INT(d.region, 0);

	pms_datasrc_unpack(0x0000800600000842ULL, &d); /* omr_base[0x02] */
	CHECK_EQ_INT(d.op, PMS_MEM_OP_LOAD);
	CHECK_EQ_INT(d.lvl, PMS_MEM_LVL_L3 | PMS_MEM_LVL_HIT);
	CHECK_EQ_INT(d.lvl_num, PMS_MEM_LVLNUM_L3);
	CHECK_EQ_INT(d.region, PMS_MEM_REGION_L_SHARE);

	pms_datasrc_unpack(~0ULL, &d);
	CHECK_EQ_INT(d.op, 0x1f);
	CHECK_EQ_INT(d.lvl, 0x3fff);
	CHECK_EQ_INT(d.snoop, 0x1f);
	CHECK_EQ_INT(d.lock, 3);
	CHECK_EQ_INT(d.dtlb, 0x7f);
	CHECK_EQ_INT(d.lvl_num, 0xf);
	CHECK_EQ_INT(d.remote, 1);
	CHECK_EQ_INT(d.snoopx, 3);
	CHECK_EQ_INT(d.blk, 7);
	CHECK_EQ_INT(d.hops, 7);
	CHECK_EQ_INT(d.region, 0x1f);
}

PMS_TEST(pack_masks_and_roundtrips)
{
	struct pms_datasrc d = { 0 };
	d.op = PMS_MEM_OP_LOAD | 0x20; /* bit above the 5-bit field is dropped */
	d.lvl_num = PMS_MEM_LVLNUM_PMEM;
	d.remote = 3; /* 1-bit field: only bit 0 */
	CHECK_EQ_U64(pms_datasrc_pack(&d), 0x3c00000002ULL);

	/* xorshift64 over many values: pack(unpack(v)) == v without mem_rsvd */
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		pms_datasrc_unpack(x, &d);
		uint64_t back = pms_datasrc_pack(&d);
		if (back != (x & ~PMS_MEM_RSVD_MASK)) {
			CHECK_MSG(0, "round trip of 0x%" PRIx64 " gave 0x%" PRIx64, x, back);
			break;
		}
	}
}

PMS_TEST(golden_meminfo_and_script)
{
	char buf[128];
	for (size_t i = 0; i < N(golden_text); i++) {
		const struct golden_text *g = &golden_text[i];
		size_t n = pms_datasrc_format(g->val, buf, sizeof(buf));
		CHECK_MSG(!strcmp(buf, g->meminfo) && n == strlen(g->meminfo),
			  "section %s row '%s' 0x%" PRIx64 ": got \"%s\" (%zu), want \"%s\"",
			  g->section, g->name, g->val, buf, n, g->meminfo);
		if (g->script) {
			n = pms_datasrc_format_script(g->val, buf, sizeof(buf));
			CHECK_MSG(!strcmp(buf, g->script) && n == strlen(g->script),
				  "section %s row '%s': script got \"%s\", want \"%s\"",
				  g->section, g->name, buf, g->script);
		}
		if (g->snp_lvl) {
			char s[64], l[64], both[128];
			pms_datasrc_format_snoop(g->val, s, sizeof(s));
			pms_datasrc_format_mem(g->val, l, sizeof(l));
			snprintf(both, sizeof(both), "%s%s", s, l);
			CHECK_MSG(!strcmp(both, g->snp_lvl),
				  "section %s row '%s': snp+lvl got \"%s\", want \"%s\"",
				  g->section, g->name, both, g->snp_lvl);
		}
	}
}

PMS_TEST(golden_tests_mem_c)
{
	/* tools/perf/tests/mem.c builds snoop text then level text. */
	for (size_t i = 0; i < N(golden_mem_c); i++) {
		char s[64], l[64], both[128];
		pms_datasrc_format_snoop(golden_mem_c[i].val, s, sizeof(s));
		pms_datasrc_format_mem(golden_mem_c[i].val, l, sizeof(l));
		snprintf(both, sizeof(both), "%s%s", s, l);
		CHECK_MSG(!strcmp(both, golden_mem_c[i].snp_lvl),
			  "tests/mem.c step %zu 0x%" PRIx64 ": got \"%s\", want \"%s\"", i + 1,
			  golden_mem_c[i].val, both, golden_mem_c[i].snp_lvl);
	}
}

PMS_TEST(columns)
{
	static const struct {
		uint64_t val;
		const char *op, *mem, *snoop, *tlb, *lock, *blk;
	} rows[] = {
		{ 0x0, "No", "N/A", "N/A", "N/A", "No", " N/A" },
		{ 0x0000010268100142ULL, "LOAD", "L1 hit", "None", "L1 or L2 hit", "No", " N/A" },
		{ 0x1c00000000ULL, "No", "PMEM ", "N/A", "N/A", "No", " N/A" },
		{ 0xe00000040ULL, "No", "Unknown level 7 hit", "N/A", "N/A", "No", " N/A" },
		{ 0x3000000, "No", "N/A", "N/A", "N/A", "N/A", " N/A" },
		{ 0x60000000000ULL, "No", "N/A", "N/A", "N/A", "No", " Data Addr" },
		{ 0x20000000000ULL, "No", "N/A", "N/A", "N/A", "No", " Data" },
		{ 0x18000000, "No", "N/A", "N/A", "N/A hit miss", "No", " N/A" },
		{ 0x4000000000ULL, "No", "N/A", "Fwd", "N/A", "No", " N/A" },
		{ 0x1e, "LOAD", "N/A", "N/A", "N/A", "No", " N/A" }, /* LOAD wins over STORE.. */
		{ 0x18, "PFETCH", "N/A", "N/A", "N/A", "No", " N/A" },
	};
	char b[256];
	for (size_t i = 0; i < N(rows); i++) {
#define COL(fn, want)                                                                     \
	do {                                                                              \
		size_t n_ = pms_datasrc_format_##fn(rows[i].val, b, sizeof(b));           \
		CHECK_MSG(!strcmp(b, want) && n_ == strlen(want),                         \
			  "row %zu 0x%" PRIx64 " " #fn ": got \"%s\", want \"%s\"", i,     \
			  rows[i].val, b, want);                                          \
	} while (0)
		COL(op, rows[i].op);
		COL(mem, rows[i].mem);
		COL(snoop, rows[i].snoop);
		COL(tlb, rows[i].tlb);
		COL(lock, rows[i].lock);
		COL(blk, rows[i].blk);
#undef COL
	}
}

PMS_TEST(stat_names)
{
	static const struct {
		uint64_t val;
		const char *op, *cache, *memory, *snoop, *dtlb;
	} rows[] = {
		{ 0x0000010268100142ULL, "Load", "L1", "Other", "Other", "L?-Hit" },
		{ 0x0000000229080142ULL, "Load", "L1", "Other", "Other", "L1-Hit" },
		{ 0x0000103a49082042ULL, "Load", "Other", "RAM", "Other", "L2-Hit" },
		{ 0x0000083652808042ULL, "Load", "Other", "Other", "HitM", "Miss" },
		{ 0x0000010468100444ULL, "Store", "L2", "Other", "Other", "L?-Hit" },
		{ 0x6, "Ld+St", "Other", "Other", "Other", "Other" },
		{ 0x3, "Other", "Other", "Other", "Other", "Other" }, /* NA|LOAD is not exact */
		{ 0x18, "Pfetch", "Other", "Other", "Other", "Other" },
		{ 0x10, "Exec", "Other", "Other", "Other", "Other" },
		{ 0x1800000000ULL, "Other", "L1-buf", "Other", "Other", "Other" },
		{ 0xa00000000ULL, "Other", "L2-buf", "Other", "Other", "Other" },
		{ 0x800000000ULL, "Other", "L4", "Other", "Other", "Other" },
		{ 0xc00000000ULL, "Other", "Other", "MSC", "Other", "Other" },
		{ 0x1000000000ULL, "Other", "Other", "Uncach", "Other", "Other" },
		{ 0x1200000000ULL, "Other", "Other", "CXL", "Other", "Other" },
		{ 0x1400000000ULL, "Other", "Other", "IO", "Other", "Other" },
		{ 0x1c00000000ULL, "Other", "Other", "PMEM", "Other", "Other" },
		{ 0x200000, "Other", "Other", "Other", "Hit", "Other" },
		{ 0x400000, "Other", "Other", "Other", "Miss", "Other" },
		{ 0x500000, "Other", "Other", "Other", "Other", "Other" }, /* NONE|MISS */
		{ 0x50000000, "Other", "Other", "Other", "Other", "Miss" },
		{ 0x8000000, "Other", "Other", "Other", "Other", "Other" },
	};
	for (size_t i = 0; i < N(rows); i++) {
		const char *got[5] = { pms_datasrc_stat_op(rows[i].val),
				       pms_datasrc_stat_cache(rows[i].val),
				       pms_datasrc_stat_memory(rows[i].val),
				       pms_datasrc_stat_snoop(rows[i].val),
				       pms_datasrc_stat_dtlb(rows[i].val) };
		const char *want[5] = { rows[i].op, rows[i].cache, rows[i].memory, rows[i].snoop,
					rows[i].dtlb };
		static const char *const what[5] = { "op", "cache", "memory", "snoop", "dtlb" };
		for (int k = 0; k < 5; k++)
			CHECK_MSG(!strcmp(got[k], want[k]), "row %zu 0x%" PRIx64 " %s: %s != %s", i,
				  rows[i].val, what[k], got[k], want[k]);
	}
}

PMS_TEST(snprintf_contract)
{
	char b[8];
	size_t full = pms_datasrc_format(0, NULL, 0);
	CHECK_EQ_INT(full, strlen("|OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A"));
	memset(b, 'x', sizeof(b));
	CHECK_EQ_INT(pms_datasrc_format(0, b, sizeof(b)), full);
	CHECK_EQ_STR(b, "|OP No|");
	memset(b, 'x', sizeof(b));
	CHECK_EQ_INT(pms_datasrc_format_mem(0x183a00000040ULL, b, 1), 33);
	CHECK_EQ_INT(b[0], '\0');
	CHECK_EQ_INT(b[1], 'x');
	CHECK_EQ_INT(pms_datasrc_format_blk(0, b, 3), 4);
	CHECK_EQ_STR(b, " N");
}

PMS_TEST(long_decodes_cut_at_99)
{
	/* Every level, snoop and TLB bit: perf's own text is undefined here
	 * (strcat overflow); we cut the full text at 99 characters. */
	char big[512], full_mem[512], full_snp[128], b[640], want[64];
	uint64_t v = ~0ULL & ~PMS_MEM_RSVD_MASK & ~(0xfULL << PMS_MEM_LVLNUM_SHIFT);
	size_t n = pms_datasrc_format(v, big, sizeof(big));
	CHECK_EQ_INT(n, PMS_DATASRC_TEXT_MAX);
	CHECK_EQ_INT(strlen(big), 99);
	pms_datasrc_format_mem(v, full_mem, sizeof(full_mem));
	pms_datasrc_format_snoop(v, full_snp, sizeof(full_snp));
	CHECK_EQ_STR(full_snp, "N/A or None or Hit or Miss or HitM or Fwd or Peer");
	/* the cut text is a prefix of "|OP N/A|LVL " + the whole level text */
	snprintf(b, sizeof(b), "|OP N/A|LVL %s", full_mem);
	CHECK(strncmp(big, b, 99) == 0);
	CHECK(strstr(full_mem, "L1 or LFB/MAB or L2 or L3 or Local RAM or Remote RAM (1 hop)") ==
	      full_mem);
	CHECK(strlen(full_mem) > 150);

	n = pms_datasrc_format_script(v, b, sizeof(b));
	CHECK_EQ_INT(n, 99);
	snprintf(want, sizeof(want), "%16" PRIx64 " |OP N/A|LVL L1 or", v);
	CHECK_EQ_STR(want, "   7ffe1ffffffff |OP N/A|LVL L1 or");
	CHECK(strncmp(b, want, strlen(want)) == 0);

	/* hops 5..7 (undefined in perf): our documented text */
	char m[64];
	pms_datasrc_format_mem((5ULL << PMS_MEM_HOPS_SHIFT) | PMS_MEM_S(LVLNUM, L3) |
				       PMS_MEM_S(LVL, HIT),
			       m, sizeof(m));
	CHECK_EQ_STR(m, "Unknown hops 5 L3 hit");
}

/* The memo gives each word's text exactly as the formatters do, first time
 * and from memory, within its bound and past it; texts need no JSON escape. */
static uint64_t memo_rng = 0x243f6a8885a308d3ULL;
static uint64_t memo_rand(void)
{
	memo_rng ^= memo_rng << 13;
	memo_rng ^= memo_rng >> 7;
	memo_rng ^= memo_rng << 17;
	return memo_rng;
}

static void memo_check(enum pms_datasrc_memo_kind kind, size_t max, size_t words)
{
	struct pms_datasrc_memo *m = NULL;
	char want[PMS_DATASRC_TEXT_MAX + 1];
	CHECK_OK(pms_datasrc_memo_new(kind, max, &m));
	for (int pass = 0; pass < 2; pass++) {
		memo_rng = 0x243f6a8885a308d3ULL;
		for (size_t i = 0; i < words; i++) {
			/* a few values of every kind: 0, all ones, random words */
			uint64_t v = i == 0 ? 0 : i == 1 ? ~0ULL : memo_rand() >> (i % 23);
			size_t n = 0;
			const char *t = pms_datasrc_memo_text(m, v, &n);
			size_t wn = kind == PMS_DATASRC_MEMO_SCRIPT
					    ? pms_datasrc_format_script(v, want, sizeof(want))
					    : pms_datasrc_format(v, want, sizeof(want));
			CHECK_MSG(n == wn && !memcmp(t, want, n), "0x%" PRIx64 ": '%.*s' != '%s'", v,
				  (int)n, t, want);
			for (size_t k = 0; k < n; k++)
				CHECK(t[k] >= 0x20 && t[k] < 0x7f && t[k] != '"' && t[k] != '\\');
		}
	}
	CHECK(pms_datasrc_memo_size(m) <= (max ? max : PMS_DATASRC_MEMO_DEFAULT));
	CHECK(pms_datasrc_memo_size(m) == (words < max || !max ? words : max) ||
	      pms_datasrc_memo_size(m) < words); /* repeats among the random words */
	pms_datasrc_memo_free(m);
}

/* A full memo fed a new word almost every call (it then formats without
 * looking for a while, and looks again): every text still that of the
 * formatter, through more than one such stretch, and the kept words
 * still served after it. */
PMS_TEST(memo_full_of_new_words)
{
	struct pms_datasrc_memo *m = NULL;
	char want[PMS_DATASRC_TEXT_MAX + 1];
	CHECK_OK(pms_datasrc_memo_new(PMS_DATASRC_MEMO_SCRIPT, 64, &m));
	memo_rng = 0x13198a2e03707344ULL;
	for (size_t i = 0; i < 150000; i++) {
		/* one word in 64 from the first 64 (kept), the rest new */
		uint64_t v = (i & 63) == 0 ? (uint64_t)(i >> 6 & 63) << 24 : memo_rand();
		if (i < 64)
			v = (uint64_t)i << 24;
		size_t n = 0;
		const char *t = pms_datasrc_memo_text(m, v, &n);
		size_t wn = pms_datasrc_format_script(v, want, sizeof(want));
		CHECK_MSG(n == wn && !memcmp(t, want, n), "call %zu, 0x%" PRIx64 ": '%.*s' != '%s'",
			  i, v, (int)n, t, want);
		if (n != wn || memcmp(t, want, n))
			break;
	}
	CHECK_EQ_INT(pms_datasrc_memo_size(m), 64);
	pms_datasrc_memo_free(m);
}

PMS_TEST(memo_matches_format)
{
	memo_check(PMS_DATASRC_MEMO_SCRIPT, 0, 5000);
	memo_check(PMS_DATASRC_MEMO_TEXT, 0, 5000);
	memo_check(PMS_DATASRC_MEMO_SCRIPT, 100, 1000); /* past the bound */
	memo_check(PMS_DATASRC_MEMO_TEXT, 1, 50);

	struct pms_datasrc_memo *m = NULL;
	size_t n;
	CHECK_OK(pms_datasrc_memo_new(PMS_DATASRC_MEMO_SCRIPT, 10, &m));
	const char *t = pms_datasrc_memo_text(m, 0, &n);
	CHECK(n == 17 + strlen("|OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A"));
	CHECK(!memcmp(t, "               0 |OP No", 22));
	CHECK_EQ_INT(pms_datasrc_memo_size(m), 1);
	pms_datasrc_memo_free(m);
	pms_datasrc_memo_free(NULL);
	CHECK_EQ_INT(pms_datasrc_memo_size(NULL), 0);
	m = NULL;
	CHECK_EQ_INT(pms_datasrc_memo_new((enum pms_datasrc_memo_kind)7, 0, &m), PMS_EINVAL);
	CHECK(m == NULL);
	CHECK_EQ_INT(pms_datasrc_memo_new(PMS_DATASRC_MEMO_TEXT, 0, NULL), PMS_EINVAL);
}

/* The whole text (made from per-piece tables, in place) is the six columns
 * (made piece by piece by perf's rules) joined as perf joins them, cut at
 * 99, for words of every shape: random bits, with a level number, without
 * one (the level's "or" list), every level bit (a text past the cut). */
PMS_TEST(text_is_the_columns_joined)
{
	static const char *const head[6] = { "|OP ", "|LVL ", "|SNP ", "|TLB ", "|LCK ", "|BLK " };
	size_t (*const col[6])(uint64_t, char *, size_t) = {
		pms_datasrc_format_op, pms_datasrc_format_mem, pms_datasrc_format_snoop,
		pms_datasrc_format_tlb, pms_datasrc_format_lock, pms_datasrc_format_blk,
	};
	memo_rng = 0x452821e638d01377ULL;
	for (int i = 0; i < 200000; i++) {
		uint64_t v = memo_rand();
		char want[1024], got[128], hex[24], piece[256];
		size_t n = 0, k;
		switch (i % 5) {
		case 1: v &= (1ULL << PMS_MEM_REGION_SHIFT) - 1; break;
		case 2: v &= ~(0xfULL << PMS_MEM_LVLNUM_SHIFT); break;
		case 3: v |= 0x3fffULL << PMS_MEM_LVL_SHIFT; v &= ~(0xfULL << PMS_MEM_LVLNUM_SHIFT); break;
		case 4: v = (v & 0xffULL) << (i % 48); break;
		}
		for (int c = 0; c < 6; c++) {
			size_t pl = col[c](v, piece, sizeof(piece));
			CHECK(pl < sizeof(piece));
			memcpy(want + n, head[c], strlen(head[c]));
			n += strlen(head[c]);
			memcpy(want + n, piece, pl);
			n += pl;
		}
		k = n < PMS_DATASRC_TEXT_MAX ? n : PMS_DATASRC_TEXT_MAX;
		CHECK_EQ_INT(pms_datasrc_format(v, got, sizeof(got)), k);
		CHECK(!memcmp(got, want, k) && got[k] == 0);
		snprintf(hex, sizeof(hex), "%16llx ", (unsigned long long)v);
		memmove(want + 17, want, n);
		memcpy(want, hex, 17);
		k = n + 17 < PMS_DATASRC_TEXT_MAX ? n + 17 : PMS_DATASRC_TEXT_MAX;
		CHECK_EQ_INT(pms_datasrc_format_script(v, got, sizeof(got)), k);
		CHECK(!memcmp(got, want, k) && got[k] == 0);
		/* a short buffer: snprintf's contract */
		CHECK_EQ_INT(pms_datasrc_format_script(v, got, 8), k);
		CHECK(!memcmp(got, want, 7) && got[7] == 0);
	}
}

PMS_TEST_MAIN()
