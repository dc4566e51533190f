/* Apple generations: the seed's numbers round-trip, the M4 renumbering, the
 * 8-bit Linux limit, the PMUv3 compatibility map. */
#include <linux/perf_event.h>
#include <string.h>

#include "check.h"
#include "pmuscope/armpmu.h"
#include "pmuscope/catalog.h"
#include "pmuscope/error.h"

#define X (-1)
/* Seed 004, "The M4 encoding change" table: event, as1, a14, as3, as4-1, as5. */
static const struct {
	const char *name;
	int32_t n[5];
} seed[] = {
	{ "INST_ALL", { 0x8c, 0x8c, 0x8c, 0x8, 0x8 } },
	{ "CORE_ACTIVE_CYCLE", { 0x2, 0x2, 0x2, 0x11, 0x11 } },
	{ "INST_BRANCH", { 0x8d, 0x8d, 0x8d, 0x21, 0x21 } },
	{ "RETIRE_UOP", { 0x1, 0x1, 0x1, 0x3a, 0x3a } },
	{ "BRANCH_MISPRED_NONSPEC", { 0xcb, 0xcb, 0xcb, 0x22, 0x22 } },
	{ "L1D_CACHE_MISS_LD", { 0x5a3, 0xa3, 0x5a3, 0x5a3, 0x5a3 } },
	{ "FETCH_RESTART", { 0x1de, 0xde, 0x1de, 0x1de, 0x1de } },
	{ "ARM_L1D_CACHE", { X, X, X, 0x4, 0x4 } },
	{ "ARM_BR_MIS_PRED", { X, X, X, 0x10, 0x10 } },
};
static const char *gen_ids[5] = { "as1", "a14", "as3", "as4-1", "as5" };

PMS_TEST(seed_numbers_round_trip)
{
	for (size_t i = 0; i < sizeof(seed) / sizeof(seed[0]); i++) {
		for (int g = 0; g < 5; g++) {
			uint32_t num = 0;
			int r = pms_apple_number(gen_ids[g], seed[i].name, &num);
			if (seed[i].n[g] < 0) {
				CHECK_MSG(r == PMS_ENOENT, "%s on %s should be absent", seed[i].name,
					  gen_ids[g]);
				continue;
			}
			CHECK_MSG(r == 0 && num == (uint32_t)seed[i].n[g], "%s on %s: got 0x%x (r=%d) want 0x%x",
				  seed[i].name, gen_ids[g], num, r, seed[i].n[g]);
			/* And back: the catalog for that generation names it with that number. */
			struct pms_catalog *cat = NULL;
			struct pms_cat_match m;
			CHECK_OK(pms_catalog_new(&cat));
			CHECK_OK(pms_catalog_add_apple(cat, gen_ids[g]));
			CHECK_OK(pms_catalog_lookup(cat, seed[i].name, NULL, &m));
			CHECK_MSG(m.event && m.event->code == (uint64_t)seed[i].n[g], "%s %s catalog code",
				  seed[i].name, gen_ids[g]);
			pms_catalog_free(cat);
		}
	}
}

PMS_TEST(generation_facts)
{
	static const unsigned events[5] = { 66, 60, 66, 103, 103 };
	static const unsigned arm[5] = { 0, 0, 0, 12, 12 };
	CHECK_EQ_INT(pms_apple_gen_count(), 5);
	for (int g = 0; g < 5; g++) {
		const struct pms_apple_gen *ag = pms_apple_gen_at((size_t)g);
		CHECK_EQ_STR(ag->id, gen_ids[g]);
		CHECK_EQ_INT(ag->n_events, events[g]);
		CHECK_EQ_INT(ag->n_arm_prefixed, arm[g]);
		CHECK_EQ_INT(ag->fixed_counters, 3);
		CHECK_EQ_INT(ag->config_counters, 1020);
		CHECK(ag->partial);
		CHECK_EQ_INT(ag->pmuv3_numbering, g >= 3);
	}
	CHECK_EQ_INT(pms_apple_gen_index("AS4-1"), 3);
	CHECK_EQ_INT(pms_apple_gen_index("m4"), -1);
	/* INST_ALL on M4 Max: counters_mask 252 = counters 2-7. */
	CHECK_EQ_INT(pms_apple_event_find("INST_ALL")->counters_mask[3], 252);
}

/* From M4 on the common subset sits on the PMUv3 numbers of the same
 * meaning: the renumbering is visible by name. */
PMS_TEST(m4_renumbering)
{
	static const struct {
		const char *apple, *pmuv3;
	} pairs[] = { { "INST_ALL", "INST_RETIRED" },
		      { "CORE_ACTIVE_CYCLE", "CPU_CYCLES" },
		      { "INST_BRANCH", "BR_RETIRED" },
		      { "BRANCH_MISPRED_NONSPEC", "BR_MIS_PRED_RETIRED" },
		      { "RETIRE_UOP", "OP_RETIRED" },
		      { "ARM_L1D_CACHE", "L1D_CACHE" },
		      { "ARM_BR_MIS_PRED", "BR_MIS_PRED" } };
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		uint32_t m4 = 0, m1 = 0;
		CHECK_OK(pms_apple_number("as4-1", pairs[i].apple, &m4));
		CHECK_MSG(m4 == pms_arm_event_by_name(pairs[i].pmuv3)->number, "%s: 0x%x", pairs[i].apple,
			  m4);
		if (pms_apple_number("as1", pairs[i].apple, &m1) == 0)
			CHECK_MSG(m1 != m4, "%s unchanged across M4", pairs[i].apple);
	}
}

PMS_TEST(linux_8bit_limit)
{
	CHECK(pms_apple_linux_expressible(0xff));
	CHECK(!pms_apple_linux_expressible(0x100));
	struct pms_catalog *cat = NULL;
	struct pms_cat_match m;
	CHECK_OK(pms_catalog_new(&cat));
	CHECK_OK(pms_catalog_add_apple(cat, "as1"));
	CHECK_OK(pms_catalog_lookup(cat, "l1d_cache_miss_ld", NULL, &m));
	CHECK_EQ_STR(m.perf_string, "event=0x5a3");
	CHECK(m.event->note && strstr(m.event->note, "0xFF"));
	CHECK_OK(pms_catalog_lookup(cat, "INST_ALL", NULL, &m));
	CHECK(m.event->note == NULL);
	pms_catalog_free(cat);
	CHECK_OK(pms_catalog_new(&cat));
	CHECK_OK(pms_catalog_add_apple(cat, "a14"));
	CHECK_OK(pms_catalog_lookup(cat, "L1D_CACHE_MISS_LD", NULL, &m));
	CHECK(m.event->note == NULL); /* 0xa3: what Linux's driver programs */
	CHECK_EQ_INT(pms_catalog_add_apple(cat, "m9"), PMS_ENOENT);
	pms_catalog_free(cat);
}

PMS_TEST(pmuv3_compat_map)
{
	CHECK_EQ_INT(pms_apple_compat_count(), 4);
	for (size_t i = 0; i < pms_apple_compat_count(); i++) {
		const struct pms_apple_compat *c = pms_apple_compat_at(i);
		uint32_t m1 = 0;
		CHECK_OK(pms_apple_number("as1", c->apple_name, &m1));
		CHECK_MSG(m1 == c->apple_number, "%s", c->apple_name);
		CHECK_MSG(pms_arm_event_by_name(c->pmuv3_name)->number == c->pmuv3_number, "%s",
			  c->pmuv3_name);
	}
}

/* The event table walks by index, each row findable by its name; the
 * generic events map as the driver's m1_pmu_perf_map (cycles 0x02,
 * instructions 0x8c; apple_m1_cpu_pmu.c). */
PMS_TEST(event_table_walk_and_generic_map)
{
	size_t n = pms_apple_event_count();
	CHECK(n > 0);
	for (size_t i = 0; i < n; i++) {
		const struct pms_apple_event *e = pms_apple_event_at(i);
		CHECK(e && e->name);
		if (e && e->name)
			CHECK(pms_apple_event_find(e->name) == e);
	}
	CHECK(pms_apple_event_at(n) == NULL);
	CHECK_EQ_INT(pms_apple_hw_event(PERF_COUNT_HW_CPU_CYCLES), 0x02);
	CHECK_EQ_INT(pms_apple_hw_event(PERF_COUNT_HW_INSTRUCTIONS), 0x8c);
	CHECK_EQ_INT(pms_apple_hw_event(PERF_COUNT_HW_CACHE_MISSES), -1);
}

PMS_TEST_MAIN()
