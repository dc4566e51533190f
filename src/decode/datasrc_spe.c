/* Arm SPE record -> data_src, as the perf tool synthesises it.
 *
 * Source: tools/perf/util/arm-spe.c (perf v7.3-rc7; identical in 7.2.13):
 * data_source_handles[] (MIDR list), arm_spe__synth_data_source_common,
 * arm_spe__synth_data_source_ampereone, arm_spe__synth_data_source_hisi_hip,
 * arm_spe__synth_memory_level, arm_spe__synth_data_source; event numbers
 * from tools/perf/util/arm-spe-decoder/arm-spe-decoder.h. */
#include <stddef.h>

#include "pmuscope/datasrc.h"

#define S(g, n) PMS_MEM_S(g, n)
#define LH(x) (S(LVL, x) | S(LVL, HIT))

/* ---- MIDR -> decoder ----------------------------------------------------- */

/* MIDR_CPU_MODEL_MASK: implementer [31:24], architecture [19:16], part
 * [15:4]; variant and revision are ignored. */
#define MIDR_MODEL_MASK 0xff0ffff0u
#define MIDR(impl, part) (((uint32_t)(impl) << 24) | (0xfu << 16) | ((uint32_t)(part) << 4))

struct midr_row {
	uint32_t midr;
	enum pms_spe_decoder dec;
	const char *name;
};

static const struct midr_row midr_rows[] = {
	{ MIDR(0x41, 0xd4d), PMS_SPE_DEC_COMMON, "Cortex-A715" },
	{ MIDR(0x41, 0xd81), PMS_SPE_DEC_COMMON, "Cortex-A720" },
	{ MIDR(0x41, 0xd89), PMS_SPE_DEC_COMMON, "Cortex-A720AE" },
	{ MIDR(0x41, 0xd87), PMS_SPE_DEC_COMMON, "Cortex-A725" },
	{ MIDR(0x41, 0xd4b), PMS_SPE_DEC_COMMON, "Cortex-A78C" },
	{ MIDR(0x41, 0xd44), PMS_SPE_DEC_COMMON, "Cortex-X1" },
	{ MIDR(0x41, 0xd4c), PMS_SPE_DEC_COMMON, "Cortex-X1C" },
	{ MIDR(0x41, 0xd4e), PMS_SPE_DEC_COMMON, "Cortex-X3" },
	{ MIDR(0x41, 0xd82), PMS_SPE_DEC_COMMON, "Cortex-X4" },
	{ MIDR(0x41, 0xd85), PMS_SPE_DEC_COMMON, "Cortex-X925" },
	{ MIDR(0x41, 0xd0c), PMS_SPE_DEC_COMMON, "Neoverse N1" },
	{ MIDR(0x41, 0xd49), PMS_SPE_DEC_COMMON, "Neoverse N2" },
	{ MIDR(0x41, 0xd40), PMS_SPE_DEC_COMMON, "Neoverse V1" },
	{ MIDR(0x41, 0xd4f), PMS_SPE_DEC_COMMON, "Neoverse V2" },
	{ MIDR(0x41, 0xd84), PMS_SPE_DEC_COMMON, "Neoverse V3" },
	{ MIDR(0x4e, 0x010), PMS_SPE_DEC_COMMON, "NVIDIA Olympus" },
	{ MIDR(0xc0, 0xac4), PMS_SPE_DEC_AMPEREONE, "AmpereOne A" },
	{ MIDR(0x48, 0xd06), PMS_SPE_DEC_HIP12, "HiSilicon HIP12" },
};

enum pms_spe_decoder pms_spe_decoder_for_midr(uint64_t midr)
{
	for (size_t i = 0; i < sizeof(midr_rows) / sizeof(midr_rows[0]); i++)
		if (((uint32_t)midr & MIDR_MODEL_MASK) == midr_rows[i].midr)
			return midr_rows[i].dec;
	return PMS_SPE_DEC_NONE;
}

/* ---- source tables ------------------------------------------------------- */

struct src_row {
	uint16_t code;
	uint64_t val; /* lvl | lvl_num | snoop | snoopx | remote */
};

/* arm_spe__synth_data_source_common, loads. */
static const struct src_row common_rows[] = {
	{ 0x0 /* L1D */, LH(L1) | S(LVLNUM, L1) | S(SNOOP, NONE) },
	{ 0x8 /* L2 */, LH(L2) | S(LVLNUM, L2) | S(SNOOP, NONE) },
	{ 0x9 /* PEER_CORE */, LH(L2) | S(LVLNUM, L2) | S(SNOOPX, PEER) },
	{ 0xa /* LOCAL_CLUSTER */, LH(L3) | S(LVLNUM, L3) | S(SNOOPX, PEER) },
	{ 0xc /* PEER_CLUSTER */, LH(L3) | S(LVLNUM, L3) | S(SNOOPX, PEER) },
	{ 0xb /* SYS_CACHE */, LH(L3) | S(LVLNUM, L3) | S(SNOOP, HIT) },
	{ 0xd /* REMOTE */, S(LVL, NA) | S(LVLNUM, NA) | S(REMOTE, REMOTE) | S(SNOOPX, PEER) },
	{ 0xe /* DRAM */, LH(LOC_RAM) | S(LVLNUM, RAM) | S(SNOOP, NONE) },
};

/* arm_spe__synth_data_source_ampereone: AmpereOne code -> common code. */
static const struct {
	uint16_t from, to;
} ampereone_map[] = {
	{ 0x0 /* LOCAL_CHIP_CACHE_OR_DEVICE */, 0x9 /* PEER_CORE */ },
	{ 0x3 /* SLC */, 0xb /* SYS_CACHE */ },
	{ 0x5 /* REMOTE_CHIP_CACHE */, 0xd /* REMOTE */ },
	{ 0x7 /* DDR */, 0xe /* DRAM */ },
	{ 0x8 /* L1D */, 0x0 /* L1D */ },
	{ 0x9 /* L2D */, 0x8 /* L2 */ },
};

/* arm_spe__synth_data_source_hisi_hip, loads. */
static const struct src_row hip12_rows[] = {
	{ 0, LH(L2) | S(LVLNUM, L2) | S(SNOOPX, PEER) },                     /* PEER_CPU */
	{ 1, LH(L2) | S(LVLNUM, L2) | S(SNOOP, HITM) | S(SNOOPX, PEER) },     /* PEER_CPU_HITM */
	{ 2, LH(L3) | S(LVLNUM, L3) | S(SNOOP, HIT) },                       /* L3 */
	{ 3, LH(L3) | S(LVLNUM, L3) | S(SNOOP, HITM) },                      /* L3_HITM */
	{ 4, LH(REM_CCE1) | S(LVLNUM, L3) | S(SNOOPX, PEER) },                /* PEER_CLUSTER */
	{ 5, LH(REM_CCE1) | S(LVLNUM, L3) | S(SNOOP, HITM) | S(SNOOPX, PEER) }, /* PEER_CLUSTER_HITM */
	{ 6, S(LVL, REM_CCE2) | S(LVLNUM, ANY_CACHE) | S(REMOTE, REMOTE) | S(SNOOPX, PEER) }, /* REMOTE_SOCKET */
	{ 7, S(LVL, REM_CCE2) | S(LVLNUM, ANY_CACHE) | S(SNOOP, HITM) | S(REMOTE, REMOTE) |
		     S(SNOOPX, PEER) },                                      /* REMOTE_SOCKET_HITM */
	{ 8, LH(LOC_RAM) | S(LVLNUM, RAM) | S(SNOOP, NONE) },                /* LOCAL_MEM */
	{ 9, LH(REM_RAM1) | S(LVLNUM, RAM) | S(REMOTE, REMOTE) },            /* REMOTE_MEM */
	{ 13, LH(IO) | S(LVLNUM, IO) | S(SNOOP, NONE) },                     /* NC_DEV */
	{ 16, LH(L2) | S(LVLNUM, L2) | S(SNOOP, NONE) },                     /* L2 */
	{ 17, LH(L2) | S(LVLNUM, L2) | S(SNOOP, HITM) },                     /* L2_HITM */
	{ 18, LH(L1) | S(LVLNUM, L1) | S(SNOOP, NONE) },                     /* L1 */
};

/* Every vendor decoder: stores get LVL NA, LVLNUM NA, SNOOP NA. */
#define STORE_VAL (S(LVL, NA) | S(LVLNUM, NA) | S(SNOOP, NA))

static uint64_t lookup(const struct src_row *rows, size_t n, unsigned code)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].code == code)
			return rows[i].val;
	return 0; /* unknown code: data_src unchanged */
}

#define LOOKUP(rows, code) lookup((rows), sizeof(rows) / sizeof((rows)[0]), (code))

static uint64_t vendor(enum pms_spe_decoder dec, const struct pms_spe_in *in)
{
	bool store = in->op & PMS_SPE_OP_ST;
	unsigned code = in->source;

	switch (dec) {
	case PMS_SPE_DEC_AMPEREONE: {
		size_t i, n = sizeof(ampereone_map) / sizeof(ampereone_map[0]);
		for (i = 0; i < n && ampereone_map[i].from != code; i++)
			;
		if (i == n)
			return 0; /* perf warns once and leaves data_src as it is */
		code = ampereone_map[i].to;
	}
		/* fall through */
	case PMS_SPE_DEC_COMMON:
		return store ? STORE_VAL : LOOKUP(common_rows, code);
	case PMS_SPE_DEC_HIP12:
		return store ? STORE_VAL : LOOKUP(hip12_rows, code);
	case PMS_SPE_DEC_NONE:
		break;
	}
	return 0;
}

/* Fallback levels from cache events (arm_spe__synth_memory_level). */
struct ev_row {
	uint64_t need, absent; /* events that must be set / clear */
	uint64_t val;
};

#define EV(x) PMS_SPE_EV_##x
/* Loads: first row that matches wins. */
static const struct ev_row load_levels[] = {
	{ EV(L1D_ACCESS), EV(L1D_REFILL), LH(L1) | S(LVLNUM, L1) },
	{ EV(RECENTLY_FETCHED), 0, LH(LFB) | S(LVLNUM, LFB) },
	{ EV(L2D_ACCESS), EV(L2D_MISS), LH(L2) | S(LVLNUM, L2) },
	{ EV(LLC_ACCESS), EV(LLC_MISS), LH(L3) | S(LVLNUM, L3) },
	{ EV(LLC_MISS), 0, S(LVL, L3) | S(LVL, MISS) | S(LVLNUM, L3) },
	{ EV(L2D_MISS), 0, S(LVL, L2) | S(LVL, MISS) | S(LVLNUM, L2) },
	{ EV(L1D_REFILL), 0, S(LVL, L1) | S(LVL, MISS) | S(LVLNUM, L1) },
};

/* Stores: the highest level with any access or miss event, miss if its miss
 * event is set. */
static const struct {
	uint64_t access, miss;
	uint64_t lvl; /* level bit | lvl_num */
} store_levels[] = {
	{ EV(LLC_ACCESS), EV(LLC_MISS), S(LVL, L3) | S(LVLNUM, L3) },
	{ EV(L2D_ACCESS), EV(L2D_MISS), S(LVL, L2) | S(LVLNUM, L2) },
	{ EV(L1D_ACCESS), EV(L1D_REFILL), S(LVL, L1) | S(LVLNUM, L1) },
};

static uint64_t memory_level(const struct pms_spe_in *in)
{
	uint64_t ev = in->events;

	if (in->op & PMS_SPE_OP_ST) {
		for (size_t i = 0; i < sizeof(store_levels) / sizeof(store_levels[0]); i++) {
			if (!(ev & (store_levels[i].access | store_levels[i].miss)))
				continue;
			return store_levels[i].lvl |
			       ((ev & store_levels[i].miss) ? S(LVL, MISS) : S(LVL, HIT));
		}
	} else {
		for (size_t i = 0; i < sizeof(load_levels) / sizeof(load_levels[0]); i++)
			if ((ev & load_levels[i].need) == load_levels[i].need &&
			    !(ev & load_levels[i].absent))
				return load_levels[i].val;
	}
	return S(LVL, NA) | S(LVLNUM, NA);
}

#define MASK(g) ((((1ULL << PMS_MEM_##g##_WIDTH) - 1)) << PMS_MEM_##g##_SHIFT)

uint64_t pms_spe_data_src(const struct pms_spe_in *in)
{
	uint64_t v = 0, ev;

	if (!in || !(in->op & PMS_SPE_OP_MEM))
		return 0;
	ev = in->events;

	if (in->op & PMS_SPE_OP_LD)
		v |= S(OP, LOAD);
	else if (in->op & PMS_SPE_OP_ST)
		v |= S(OP, STORE);
	else
		v |= S(OP, NA);

	if (in->midr_valid)
		v |= vendor(pms_spe_decoder_for_midr(in->midr), in);

	if (!(v & MASK(LVL)))
		v |= memory_level(in);

	if (!(v & MASK(SNOOP))) {
		if (ev & EV(DATA_SNOOPED))
			v |= (ev & EV(CACHE_DATA_MODIFIED)) ? S(SNOOP, HITM) : S(SNOOP, HIT);
		else
			v |= in->data_snooped_supported ? S(SNOOP, NONE) : S(SNOOP, NA);
	}

	if (!(v & MASK(REMOTE)) && (ev & EV(REMOTE_ACCESS)))
		v |= S(REMOTE, REMOTE);

	if (ev & (EV(TLB_ACCESS) | EV(TLB_WALK)))
		v |= S(TLB, WK) | ((ev & EV(TLB_WALK)) ? S(TLB, MISS) : S(TLB, HIT));

	return v;
}
