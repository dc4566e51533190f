/* union perf_mem_data_src: pack/unpack and perf's text.
 *
 * The text rules and vocabularies are those of tools/perf/util/mem-events.c
 * (perf v7.3-rc7: perf_mem__{op,lvl,snp,tlb,lck,blk}_scnprintf,
 * perf_script__meminfo_scnprintf, mem_stat_index) and builtin-script.c
 * data_src__fprintf.  See include/pmuscope/datasrc.h for the length policy. */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pmuscope/datasrc.h"
#include "decode/datasrc_int.h"
#include "util/fmtnum.h"

/* ---- pack / unpack ------------------------------------------------------- */

#define FIELD(v, grp) \
	((unsigned)(((v) >> PMS_MEM_##grp##_SHIFT) & ((1u << PMS_MEM_##grp##_WIDTH) - 1)))
#define PUT(x, grp) \
	((uint64_t)((x) & ((1u << PMS_MEM_##grp##_WIDTH) - 1)) << PMS_MEM_##grp##_SHIFT)

void pms_datasrc_unpack(uint64_t val, struct pms_datasrc *out)
{
	out->op = FIELD(val, OP);
	out->lvl = FIELD(val, LVL);
	out->snoop = FIELD(val, SNOOP);
	out->lock = FIELD(val, LOCK);
	out->dtlb = FIELD(val, TLB);
	out->lvl_num = FIELD(val, LVLNUM);
	out->remote = FIELD(val, REMOTE);
	out->snoopx = FIELD(val, SNOOPX);
	out->blk = FIELD(val, BLK);
	out->hops = FIELD(val, HOPS);
	out->region = FIELD(val, REGION);
}

uint64_t pms_datasrc_pack(const struct pms_datasrc *d)
{
	return PUT(d->op, OP) | PUT(d->lvl, LVL) | PUT(d->snoop, SNOOP) | PUT(d->lock, LOCK) |
	       PUT(d->dtlb, TLB) | PUT(d->lvl_num, LVLNUM) | PUT(d->remote, REMOTE) |
	       PUT(d->snoopx, SNOOPX) | PUT(d->blk, BLK) | PUT(d->hops, HOPS) |
	       PUT(d->region, REGION);
}

/* ---- vocabularies (mem-events.c string tables, indexed by bit or value) --- */

/* A name and its length (no strlen a piece: the pieces were a third of
 * formatting a word). */
struct name {
	const char *s;
	unsigned char n;
};
#define NM(lit) { (lit), sizeof(lit) - 1 }

/* tlb_access[]: by bit of mem_dtlb. */
static const struct name tlb_names[PMS_MEM_TLB_WIDTH] = {
	NM("N/A"), NM("HIT"), NM("MISS"), NM("L1"), NM("L2"), NM("Walker"), NM("Fault"),
};

/* mem_lvl[]: by bit of mem_lvl. */
static const struct name lvl_names[PMS_MEM_LVL_WIDTH] = {
	NM("N/A"), NM("HIT"), NM("MISS"), NM("L1"), NM("LFB/MAB"), NM("L2"), NM("L3"),
	NM("Local RAM"),
	NM("Remote RAM (1 hop)"), NM("Remote RAM (2 hops)"), NM("Remote Cache (1 hop)"),
	NM("Remote Cache (2 hops)"), NM("I/O"), NM("Uncached"),
};

/* snoop_access[] then snoopx_access[]: by bit. */
static const struct name snoop_names[PMS_MEM_SNOOP_WIDTH] = {
	NM("N/A"), NM("None"), NM("Hit"), NM("Miss"), NM("HitM"),
};
static const struct name snoopx_names[PMS_MEM_SNOOPX_WIDTH] = { NM("Fwd"), NM("Peer") };

/* mem_lvlnum[]: by value; no name prints "Unknown level N" (L0 = 7 has no name
 * in perf 7.3). */
static const struct name lvlnum_names[1u << PMS_MEM_LVLNUM_WIDTH] = {
	[PMS_MEM_LVLNUM_L1] = NM("L1"),
	[PMS_MEM_LVLNUM_L2] = NM("L2"),
	[PMS_MEM_LVLNUM_L3] = NM("L3"),
	[PMS_MEM_LVLNUM_L4] = NM("L4"),
	[PMS_MEM_LVLNUM_L2_MHB] = NM("L2 MHB"),
	[PMS_MEM_LVLNUM_MSC] = NM("Memory-side Cache"),
	[PMS_MEM_LVLNUM_UNC] = NM("Uncached"),
	[PMS_MEM_LVLNUM_CXL] = NM("CXL"),
	[PMS_MEM_LVLNUM_IO] = NM("I/O"),
	[PMS_MEM_LVLNUM_ANY_CACHE] = NM("Any cache"),
	[PMS_MEM_LVLNUM_LFB] = NM("LFB/MAB"),
	[PMS_MEM_LVLNUM_RAM] = NM("RAM"),
	[PMS_MEM_LVLNUM_PMEM] = NM("PMEM"),
	[PMS_MEM_LVLNUM_NA] = NM("N/A"),
};

/* mem_hops[]: by value; 5..7 are outside perf's array. */
static const struct name hops_names[5] = {
	NM("N/A"), NM("core, same node"), NM("node, same socket"), NM("socket, same board"),
	NM("board"),
};

/* perf_mem__op_scnprintf: first matching bit wins, in this order. */
static const struct {
	unsigned bit;
	struct name name;
} op_order[] = {
	{ PMS_MEM_OP_NA, NM("N/A") },
	{ PMS_MEM_OP_LOAD, NM("LOAD") },
	{ PMS_MEM_OP_STORE, NM("STORE") },
	{ PMS_MEM_OP_PFETCH, NM("PFETCH") },
	{ PMS_MEM_OP_EXEC, NM("EXEC") },
};

/* ---- a bounded string builder that counts the full length ---------------- */

struct sb {
	char *buf;
	size_t size; /* capacity including the NUL */
	size_t len;  /* full length of the text so far */
};

static void sb_init(struct sb *s, char *buf, size_t size)
{
	s->buf = buf;
	s->size = size;
	s->len = 0;
	if (buf && size)
		buf[0] = '\0';
}

/* The text is NUL-terminated by sb_end, not by each put (a piece is a
 * few bytes: the per-put terminator and call were most of a decode). */
static inline __attribute__((always_inline)) void sb_putn(struct sb *s, const char *str, size_t n)
{
	if (s->buf && s->len + n < s->size) {
		memcpy(s->buf + s->len, str, n);
	} else if (s->buf && s->size && s->len < s->size - 1) {
		size_t room = s->size - 1 - s->len;
		memcpy(s->buf + s->len, str, n < room ? n : room);
	}
	s->len += n;
}

static void sb_end(struct sb *s)
{
	if (s->buf && s->size)
		s->buf[s->len < s->size - 1 ? s->len : s->size - 1] = '\0';
}

/* A string literal: its length known at compile time (no strlen). */
#define SB_LIT(s, lit) sb_putn((s), (lit), sizeof(lit) - 1)

static void sb_putu(struct sb *s, unsigned v)
{
	char tmp[16];
	size_t i = sizeof(tmp);
	do
		tmp[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	sb_putn(s, tmp + i, sizeof(tmp) - i);
}

/* Copy text (full length len) into buf with the snprintf contract. */
static size_t out_text(const char *text, size_t len, char *buf, size_t size)
{
	if (buf && size) {
		size_t k = len < size - 1 ? len : size - 1;
		memcpy(buf, text, k);
		buf[k] = '\0';
	}
	return len;
}

/* ---- the pieces ---------------------------------------------------------- */

static void piece_op(struct sb *s, uint64_t val)
{
	unsigned op = FIELD(val, OP);
	for (size_t i = 0; i < sizeof(op_order) / sizeof(op_order[0]); i++) {
		if (op & op_order[i].bit) {
			sb_putn(s, op_order[i].name.s, op_order[i].name.n);
			return;
		}
	}
	SB_LIT(s, "No");
}

/* perf_mem__lvl_scnprintf. */
static void piece_lvl(struct sb *s, uint64_t val)
{
	unsigned lvl = FIELD(val, LVL), num = FIELD(val, LVLNUM);
	struct name hit_miss = NM("");

	if (lvl & PMS_MEM_LVL_HIT)
		hit_miss = (struct name)NM("hit");
	else if (lvl & PMS_MEM_LVL_MISS)
		hit_miss = (struct name)NM("miss");

	if (num != 0 && num != PMS_MEM_LVLNUM_NA) {
		unsigned hops = FIELD(val, HOPS);
		if (FIELD(val, REMOTE))
			SB_LIT(s, "Remote ");
		if (hops) {
			if (hops < sizeof(hops_names) / sizeof(hops_names[0])) {
				sb_putn(s, hops_names[hops].s, hops_names[hops].n);
			} else {
				/* perf reads past mem_hops[] here (undefined). */
				SB_LIT(s, "Unknown hops ");
				sb_putu(s, hops);
			}
			SB_LIT(s, " ");
		}
		if (lvlnum_names[num].s) {
			sb_putn(s, lvlnum_names[num].s, lvlnum_names[num].n);
		} else {
			SB_LIT(s, "Unknown level ");
			sb_putu(s, num);
		}
		SB_LIT(s, " ");
		sb_putn(s, hit_miss.s, hit_miss.n);
		return;
	}

	lvl &= ~(PMS_MEM_LVL_NA | PMS_MEM_LVL_HIT | PMS_MEM_LVL_MISS);
	if (!lvl) {
		SB_LIT(s, "N/A");
		return;
	}
	bool first = true;
	for (unsigned i = 3; i < PMS_MEM_LVL_WIDTH; i++) {
		if (!(lvl & (1u << i)))
			continue;
		if (!first)
			SB_LIT(s, " or ");
		sb_putn(s, lvl_names[i].s, lvl_names[i].n);
		first = false;
	}
	SB_LIT(s, " ");
	sb_putn(s, hit_miss.s, hit_miss.n);
}

/* perf_mem__snp_scnprintf: snoop bits then snoopx bits, one " or " list;
 * snp: the snoop field, the snoopx field above it (SNP_BITS). */
#define SNP_BITS (PMS_MEM_SNOOP_WIDTH + PMS_MEM_SNOOPX_WIDTH)
static void snoop_build(struct sb *s, unsigned snp)
{
	unsigned snpx = snp >> PMS_MEM_SNOOP_WIDTH;
	bool any = false;

	for (unsigned i = 0; i < PMS_MEM_SNOOP_WIDTH; i++) {
		if (!(snp & (1u << i)))
			continue;
		if (any)
			SB_LIT(s, " or ");
		sb_putn(s, snoop_names[i].s, snoop_names[i].n);
		any = true;
	}
	for (unsigned i = 0; i < PMS_MEM_SNOOPX_WIDTH; i++) {
		if (!(snpx & (1u << i)))
			continue;
		if (any)
			SB_LIT(s, " or ");
		sb_putn(s, snoopx_names[i].s, snoopx_names[i].n);
		any = true;
	}
	if (!any)
		SB_LIT(s, "N/A");
}

/* perf_mem__tlb_scnprintf: HIT/MISS become suffixes after the level names. */
static void tlb_build(struct sb *s, unsigned m)
{
	bool hit = m & PMS_MEM_TLB_HIT, miss = m & PMS_MEM_TLB_MISS, any = false;

	m &= ~(PMS_MEM_TLB_HIT | PMS_MEM_TLB_MISS);
	for (unsigned i = 0; i < PMS_MEM_TLB_WIDTH; i++) {
		if (!(m & (1u << i)))
			continue;
		if (any)
			SB_LIT(s, " or ");
		sb_putn(s, tlb_names[i].s, tlb_names[i].n);
		any = true;
	}
	if (!any)
		SB_LIT(s, "N/A");
	if (hit)
		SB_LIT(s, " hit");
	if (miss)
		SB_LIT(s, " miss");
}

/* The snoop and TLB pieces of every value of their bits (128 each), built
 * once by the rules above: a file of many distinct words formats a word a
 * sample, and the bit loops, a branch a bit on random bits, were a fifth
 * of `script -F data_src` there.  The longest piece is 49 characters. */
struct piece_text {
	unsigned char n;
	char s[63];
};
static struct piece_text snp_text[1u << SNP_BITS], tlb_text[1u << PMS_MEM_TLB_WIDTH];
/* The other pieces by their bits, built by the same rules: "|OP x" by the
 * op field; "|LVL x" of a word with a level number by (remote, hops,
 * level number, hit/miss), LVLN_INDEX; "|LCK x|BLK y" by the lock and
 * block fields.  A word's text is then six copies (put_meminfo). */
#define LVLN_INDEX(remote, hops, num, hm) ((((remote) * 8u + (hops)) * 16u + (num)) * 3u + (hm))
static struct piece_text op_text[1u << PMS_MEM_OP_WIDTH], lvln_text[2 * 8 * 16 * 3],
	lckblk_text[1u << (PMS_MEM_LOCK_WIDTH + PMS_MEM_BLK_WIDTH)];
static pthread_once_t text_once = PTHREAD_ONCE_INIT;

static void piece_op(struct sb *s, uint64_t val);
static void piece_lvl(struct sb *s, uint64_t val);
static void piece_lock(struct sb *s, uint64_t val);
static void piece_blk(struct sb *s, uint64_t val);

static void text_init(void)
{
	struct sb s;
	for (unsigned i = 0; i < (1u << PMS_MEM_OP_WIDTH); i++) {
		sb_init(&s, op_text[i].s, sizeof(op_text[i].s));
		SB_LIT(&s, "|OP ");
		piece_op(&s, PUT(i, OP));
		SB_LIT(&s, "|LVL ");
		op_text[i].n = (unsigned char)s.len;
	}
	for (unsigned r = 0; r < 2; r++)
		for (unsigned h = 0; h < 8; h++)
			for (unsigned num = 0; num < 16; num++)
				for (unsigned hm = 0; hm < 3; hm++) {
					struct piece_text *t = &lvln_text[LVLN_INDEX(r, h, num, hm)];
					uint64_t lvl = hm == 1 ? PMS_MEM_LVL_HIT
						       : hm == 2 ? PMS_MEM_LVL_MISS : 0;
					sb_init(&s, t->s, sizeof(t->s));
					piece_lvl(&s, PUT(r, REMOTE) | PUT(h, HOPS) | PUT(num, LVLNUM) |
							      PUT(lvl, LVL));
					SB_LIT(&s, "|SNP ");
					t->n = (unsigned char)s.len;
				}
	for (unsigned i = 0; i < (1u << (PMS_MEM_LOCK_WIDTH + PMS_MEM_BLK_WIDTH)); i++) {
		struct piece_text *t = &lckblk_text[i];
		uint64_t v = PUT(i, LOCK) | PUT(i >> PMS_MEM_LOCK_WIDTH, BLK);
		sb_init(&s, t->s, sizeof(t->s));
		SB_LIT(&s, "|LCK ");
		piece_lock(&s, v);
		SB_LIT(&s, "|BLK ");
		piece_blk(&s, v);
		t->n = (unsigned char)s.len;
	}
	for (unsigned i = 0; i < (1u << SNP_BITS); i++) {
		sb_init(&s, snp_text[i].s, sizeof(snp_text[i].s));
		snoop_build(&s, i);
		snp_text[i].n = (unsigned char)s.len;
	}
	for (unsigned i = 0; i < (1u << PMS_MEM_TLB_WIDTH); i++) {
		sb_init(&s, tlb_text[i].s, sizeof(tlb_text[i].s));
		tlb_build(&s, i);
		tlb_text[i].n = (unsigned char)s.len;
	}
}

static inline void pieces_ready(void)
{
	(void)pthread_once(&text_once, text_init);
}

static void piece_snoop(struct sb *s, uint64_t val)
{
	const struct piece_text *t =
		&snp_text[FIELD(val, SNOOP) | FIELD(val, SNOOPX) << PMS_MEM_SNOOP_WIDTH];
	sb_putn(s, t->s, t->n);
}

static void piece_tlb(struct sb *s, uint64_t val)
{
	const struct piece_text *t = &tlb_text[FIELD(val, TLB)];
	sb_putn(s, t->s, t->n);
}

/* perf_mem__lck_scnprintf: NA wins over LOCKED; 0 is "No". */
static void piece_lock(struct sb *s, uint64_t val)
{
	unsigned l = FIELD(val, LOCK);
	if (l & PMS_MEM_LOCK_NA)
		SB_LIT(s, "N/A");
	else if (l & PMS_MEM_LOCK_LOCKED)
		SB_LIT(s, "Yes");
	else
		SB_LIT(s, "No");
}

/* perf_mem__blk_scnprintf: always starts with a space. */
static void piece_blk(struct sb *s, uint64_t val)
{
	unsigned b = FIELD(val, BLK);
	if (!b || (b & PMS_MEM_BLK_NA)) {
		SB_LIT(s, " N/A");
		return;
	}
	if (b & PMS_MEM_BLK_DATA)
		SB_LIT(s, " Data");
	if (b & PMS_MEM_BLK_ADDR)
		SB_LIT(s, " Addr");
}

/* Enough for the longest decode (every level bit: ~170 characters). */
#define FULL_MAX 512

/* A table's piece at d: a fixed 64-byte copy (the bytes past its length
 * are overwritten by what follows), its length. */
static inline __attribute__((always_inline)) size_t put_piece(char *d, const struct piece_text *t)
{
	memcpy(d, t->s, sizeof(t->s));
	return t->n;
}

/* perf_script__meminfo_scnprintf's text of val at d (room for
 * PMS_DATASRC_PUT_ROOM bytes, written past the text), uncut: the pieces
 * from the tables above, the level's "or" list of a word without a level
 * number by its rule.  Its length. */
static size_t put_meminfo(char *d, uint64_t val)
{
	unsigned num = FIELD(val, LVLNUM), lvl = FIELD(val, LVL);
	size_t n;
	pieces_ready();
	n = put_piece(d, &op_text[FIELD(val, OP)]);
	if (num != 0 && num != PMS_MEM_LVLNUM_NA) {
		unsigned hm = (lvl & PMS_MEM_LVL_HIT) ? 1 : (lvl & PMS_MEM_LVL_MISS) ? 2 : 0;
		n += put_piece(d + n, &lvln_text[LVLN_INDEX(FIELD(val, REMOTE), FIELD(val, HOPS),
							    num, hm)]);
	} else {
		struct sb s;
		sb_init(&s, d + n, FULL_MAX);
		piece_lvl(&s, val);
		SB_LIT(&s, "|SNP ");
		n += s.len;
	}
	n += put_piece(d + n, &snp_text[FIELD(val, SNOOP) | FIELD(val, SNOOPX) << PMS_MEM_SNOOP_WIDTH]);
	memcpy(d + n, "|TLB ", 5);
	n += 5;
	n += put_piece(d + n, &tlb_text[FIELD(val, TLB)]);
	n += put_piece(d + n, &lckblk_text[FIELD(val, LOCK) | FIELD(val, BLK) << PMS_MEM_LOCK_WIDTH]);
	return n;
}

size_t pms_datasrc_put_script_(uint64_t val, char *d)
{
	/* "%16" PRIx64 " ": right-aligned in 16 columns, then a space */
	size_t n;
	memset(d, ' ', 17);
	(void)pms_fmt_hex(d + 16, val);
	n = 17 + put_meminfo(d + 17, val);
	return n < PMS_DATASRC_TEXT_MAX ? n : PMS_DATASRC_TEXT_MAX;
}

size_t pms_datasrc_put_(uint64_t val, char *d)
{
	size_t n = put_meminfo(d, val);
	return n < PMS_DATASRC_TEXT_MAX ? n : PMS_DATASRC_TEXT_MAX;
}

size_t pms_datasrc_format(uint64_t val, char *buf, size_t size)
{
	char full[PMS_DATASRC_PUT_ROOM];
	return out_text(full, pms_datasrc_put_(val, full), buf, size);
}

size_t pms_datasrc_format_script(uint64_t val, char *buf, size_t size)
{
	char full[PMS_DATASRC_PUT_ROOM];
	return out_text(full, pms_datasrc_put_script_(val, full), buf, size);
}

#define COLUMN_FN(name, piece)                                        \
	size_t pms_datasrc_format_##name(uint64_t val, char *buf, size_t size) \
	{                                                             \
		struct sb s;                                          \
		pieces_ready();                                       \
		sb_init(&s, buf, size);                               \
		piece(&s, val);                                       \
		sb_end(&s);                                           \
		return s.len;                                         \
	}

COLUMN_FN(op, piece_op)
COLUMN_FN(mem, piece_lvl)
COLUMN_FN(snoop, piece_snoop)
COLUMN_FN(tlb, piece_tlb)
COLUMN_FN(lock, piece_lock)
COLUMN_FN(blk, piece_blk)

/* ---- mem-stat names (tools/perf/util/mem-events.c mem_stat_index) -------- */

struct stat_row {
	unsigned key;
	const char *name;
};

static const char *stat_lookup(const struct stat_row *rows, size_t n, unsigned key)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].key == key)
			return rows[i].name;
	return NULL;
}

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

const char *pms_datasrc_stat_op(uint64_t val)
{
	/* Exact mem_op values first, then single bits in this order. */
	static const struct stat_row exact[] = {
		{ PMS_MEM_OP_LOAD, "Load" },
		{ PMS_MEM_OP_STORE, "Store" },
		{ PMS_MEM_OP_LOAD | PMS_MEM_OP_STORE, "Ld+St" },
	};
	static const struct stat_row bits[] = {
		{ PMS_MEM_OP_PFETCH, "Pfetch" },
		{ PMS_MEM_OP_EXEC, "Exec" },
	};
	unsigned op = FIELD(val, OP);
	const char *n = stat_lookup(exact, NROWS(exact), op);
	if (n)
		return n;
	for (size_t i = 0; i < NROWS(bits); i++)
		if (op & bits[i].key)
			return bits[i].name;
	return "Other";
}

const char *pms_datasrc_stat_cache(uint64_t val)
{
	static const struct stat_row rows[] = {
		{ PMS_MEM_LVLNUM_L1, "L1" },
		{ PMS_MEM_LVLNUM_L2, "L2" },
		{ PMS_MEM_LVLNUM_L3, "L3" },
		{ PMS_MEM_LVLNUM_L4, "L4" },
		{ PMS_MEM_LVLNUM_LFB, "L1-buf" },
		{ PMS_MEM_LVLNUM_L2_MHB, "L2-buf" },
	};
	const char *n = stat_lookup(rows, NROWS(rows), FIELD(val, LVLNUM));
	return n ? n : "Other";
}

const char *pms_datasrc_stat_memory(uint64_t val)
{
	static const struct stat_row rows[] = {
		{ PMS_MEM_LVLNUM_RAM, "RAM" },
		{ PMS_MEM_LVLNUM_MSC, "MSC" },
		{ PMS_MEM_LVLNUM_UNC, "Uncach" },
		{ PMS_MEM_LVLNUM_CXL, "CXL" },
		{ PMS_MEM_LVLNUM_IO, "IO" },
		{ PMS_MEM_LVLNUM_PMEM, "PMEM" },
	};
	const char *n = stat_lookup(rows, NROWS(rows), FIELD(val, LVLNUM));
	return n ? n : "Other";
}

const char *pms_datasrc_stat_snoop(uint64_t val)
{
	static const struct stat_row rows[] = {
		{ PMS_MEM_SNOOP_HIT, "Hit" },
		{ PMS_MEM_SNOOP_HITM, "HitM" },
		{ PMS_MEM_SNOOP_MISS, "Miss" },
	};
	const char *n = stat_lookup(rows, NROWS(rows), FIELD(val, SNOOP));
	return n ? n : "Other";
}

const char *pms_datasrc_stat_dtlb(uint64_t val)
{
	static const struct stat_row rows[] = {
		{ PMS_MEM_TLB_L1 | PMS_MEM_TLB_HIT, "L1-Hit" },
		{ PMS_MEM_TLB_L2 | PMS_MEM_TLB_HIT, "L2-Hit" },
		{ PMS_MEM_TLB_L1 | PMS_MEM_TLB_L2 | PMS_MEM_TLB_HIT, "L?-Hit" },
	};
	unsigned t = FIELD(val, TLB);
	const char *n = stat_lookup(rows, NROWS(rows), t);
	if (n)
		return n;
	return (t & PMS_MEM_TLB_MISS) ? "Miss" : "Other";
}
