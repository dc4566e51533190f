/* ARM PMUv3 event space: classification, --explain, the built-in table
 * against ARM-software/data, counter facts. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pmuscope/armpmu.h"
#include "pmuscope/error.h"

PMS_TEST(classify_boundaries)
{
	static const struct {
		uint32_t number;
		enum pms_event_tier tier;
		const char *block;
		int reg, bit;
	} rows[] = {
		{ 0x0000, PMS_TIER_ARCHITECTURAL, "common", 0, 0 },    /* SW_INCR */
		{ 0x0003, PMS_TIER_COMMON, "common", 0, 3 },           /* L1D_CACHE_REFILL */
		{ 0x0008, PMS_TIER_ARCHITECTURAL, "common", 0, 8 },    /* INST_RETIRED */
		{ 0x0011, PMS_TIER_COMMON, "common", 0, 17 },          /* CPU_CYCLES */
		{ 0x0021, PMS_TIER_ARCHITECTURAL, "common", 1, 1 },    /* BR_RETIRED */
		{ 0x003F, PMS_TIER_COMMON, "common", 1, 31 },
		{ 0x0040, PMS_TIER_RECOMMENDED, "recommended IMPDEF", -1, -1 },
		{ 0x0081, PMS_TIER_ARCHITECTURAL, "recommended IMPDEF", -1, -1 }, /* EXC_UNDEF */
		{ 0x00BF, PMS_TIER_RECOMMENDED, "recommended IMPDEF", -1, -1 },
		{ 0x00C0, PMS_TIER_IMPDEF, "IMPDEF", -1, -1 },
		{ 0x3FFF, PMS_TIER_IMPDEF, "IMPDEF", -1, -1 },
		{ 0x4000, PMS_TIER_EXTENSION, "SPE", 0, 32 },
		{ 0x4005, PMS_TIER_EXTENSION, "AMUv1", 0, 37 },
		{ 0x4006, PMS_TIER_EXTENSION, "long-latency miss", 0, 38 },
		{ 0x400C, PMS_TIER_ARCHITECTURAL, "trace", 0, 44 },
		{ 0x4024, PMS_TIER_EXTENSION, "MTE", 1, 36 },
		{ 0x403F, PMS_TIER_EXTENSION, "MTE", 1, 63 },
		{ 0x4040, PMS_TIER_EXTENSION, "extension (unallocated)", -1, -1 },
		{ 0x8000, PMS_TIER_ARCHITECTURAL, "SIMD/SVE/FP operations", -1, -1 },
		{ 0xFFFF, PMS_TIER_EXTENSION, "extension (unallocated)", -1, -1 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pms_arm_class c;
		CHECK_OK(pms_arm_classify(rows[i].number, &c));
		CHECK_MSG(c.tier == rows[i].tier && c.block && !strcmp(c.block->name, rows[i].block) &&
				  c.pmceid_reg == rows[i].reg && c.pmceid_bit == rows[i].bit,
			  "row %zu: 0x%x -> tier %s block %s pmceid %d/%d", i, rows[i].number,
			  pms_event_tier_name(c.tier), c.block ? c.block->name : "-", c.pmceid_reg,
			  c.pmceid_bit);
	}
	struct pms_arm_class c;
	CHECK_EQ_INT(pms_arm_classify(0x10000, &c), PMS_ERANGE);
	CHECK(strstr(pms_error_last(), "16-bit") != NULL);
}

PMS_TEST(blocks_cover_every_number)
{
	uint32_t next = 0;
	for (size_t i = 0; i < pms_arm_block_count(); i++) {
		const struct pms_arm_block *b = pms_arm_block_at(i);
		CHECK_MSG(b->first == next, "block %zu (%s) starts at 0x%x, expected 0x%x", i, b->name,
			  b->first, next);
		CHECK(b->last >= b->first);
		next = (uint32_t)b->last + 1;
	}
	CHECK_EQ_U64(next, 0x10000);
	/* Table sorted and unique, lookups agree. */
	for (size_t i = 1; i < pms_arm_event_count(); i++)
		CHECK(pms_arm_event_at(i - 1)->number < pms_arm_event_at(i)->number);
	CHECK_EQ_STR(pms_arm_event_by_number(0x11)->name, "CPU_CYCLES");
	CHECK_EQ_U64(pms_arm_event_by_name("inst_retired")->number, 0x08);
	CHECK(pms_arm_event_by_name("NO_SUCH_EVENT") == NULL);
}

PMS_TEST(explain_0x4005)
{
	char buf[2048];
	size_t n = pms_arm_explain(0x4005, buf, sizeof(buf));
	CHECK(n > 0 && n < sizeof(buf));
	CHECK(strstr(buf, "STALL_BACKEND_MEM") != NULL);
	CHECK(strstr(buf, "AMUv1") != NULL);
	CHECK(strstr(buf, "PMCEID0_EL0 bit 37") != NULL);
	CHECK(strstr(buf, "tier extension") != NULL);
	/* Truncation still reports the full length. */
	char small[16];
	CHECK_EQ_INT(pms_arm_explain(0x4005, small, sizeof(small)), n);
	CHECK_EQ_INT(strlen(small), sizeof(small) - 1);
	n = pms_arm_explain(0x12345, buf, sizeof(buf));
	CHECK(strstr(buf, "16-bit") != NULL);
}

PMS_TEST(counter_facts)
{
	const struct pms_arm_fact *f = pms_arm_fact_find("long");
	CHECK(f && f->term && !strcmp(f->term, "config1:0"));
	f = pms_arm_fact_find("rdpmc");
	CHECK(f && f->term && !strcmp(f->term, "config1:1"));
	f = pms_arm_fact_find("exclude_idle");
	CHECK(f && strstr(f->fact, "EOPNOTSUPP"));
	for (size_t i = 0; i < pms_arm_fact_count(); i++)
		CHECK_MSG(pms_arm_fact_at(i)->cite && *pms_arm_fact_at(i)->cite, "fact %zu uncited", i);
}

static json_t *load_json(const char *rel)
{
	char p[1024];
	json_error_t err;
	snprintf(p, sizeof(p), "%s/%s", pms_t_shared_data(), rel);
	json_t *j = json_load_file(p, 0, &err);
	if (!j)
		fprintf(stderr, "%s:%d:%d: %s\n", p, err.line, err.column, err.text);
	return j;
}

/* Our architectural set == the "architectural": true rows of the
 * architecture-level catalogs (common_armv8 + common_armv9). */
PMS_TEST(architectural_set_equals_arm_data)
{
	if (!pms_t_shared_data())
		PMS_SKIP("../shared/data absent: cannot compare with ARM-software/data");
	static const char *files[] = { "arm-software-data/pmu/common_armv8.json",
				       "arm-software-data/pmu/common_armv9.json" };
	bool want[0x10000] = { false };
	size_t nwant = 0;
	for (size_t f = 0; f < 2; f++) {
		json_t *j = load_json(files[f]);
		CHECK(j != NULL);
		if (!j)
			return;
		json_t *evs = json_object_get(j, "events");
		for (size_t i = 0; i < json_array_size(evs); i++) {
			json_t *e = json_array_get(evs, i);
			json_int_t code = json_integer_value(json_object_get(e, "code"));
			const char *name = json_string_value(json_object_get(e, "name"));
			const struct pms_arm_event *a = pms_arm_event_by_number((uint16_t)code);
			CHECK_MSG(a && name && !strcmp(a->name, name), "%s: 0x%llx %s missing or renamed",
				  files[f], (long long)code, name ? name : "?");
			if (json_is_true(json_object_get(e, "architectural")) && !want[code]) {
				want[code] = true;
				nwant++;
			}
		}
		json_decref(j);
	}
	size_t nours = 0;
	for (size_t i = 0; i < pms_arm_event_count(); i++) {
		const struct pms_arm_event *a = pms_arm_event_at(i);
		struct pms_arm_class c;
		pms_arm_classify(a->number, &c);
		CHECK_MSG(a->architectural == want[a->number], "0x%04x %s: ours %d, arm-data %d",
			  a->number, a->name, a->architectural, want[a->number]);
		CHECK_MSG((c.tier == PMS_TIER_ARCHITECTURAL) == want[a->number], "0x%04x tier %s",
			  a->number, pms_event_tier_name(c.tier));
		nours += a->architectural;
	}
	CHECK_EQ_INT(nours, nwant);
	CHECK(nwant >= 40);
}

/* Every Neoverse N1 event gets a tier, consistent with its number and its
 * own architectural flag. */
PMS_TEST(neoverse_n1_every_event_classified)
{
	if (!pms_t_shared_data())
		PMS_SKIP("../shared/data absent: no Neoverse N1 catalog");
	json_t *j = load_json("arm-software-data/pmu/neoverse-n1.json");
	CHECK(j != NULL);
	if (!j)
		return;
	json_t *evs = json_object_get(j, "events");
	size_t n = json_array_size(evs), arch = 0, common = 0, rec = 0, ext = 0;
	CHECK_EQ_INT(n, 110);
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(evs, i);
		uint32_t code = (uint32_t)json_integer_value(json_object_get(e, "code"));
		const char *name = json_string_value(json_object_get(e, "name"));
		struct pms_arm_class c;
		CHECK_OK(pms_arm_classify(code, &c));
		CHECK_MSG(c.tier != PMS_TIER_NONE && c.block, "N1 %s 0x%x unclassified", name, code);
		if (json_is_true(json_object_get(e, "architectural")))
			CHECK_MSG(c.tier == PMS_TIER_ARCHITECTURAL, "N1 %s 0x%x: tier %s", name, code,
				  pms_event_tier_name(c.tier));
		if (code < 0x40)
			CHECK_MSG(c.tier == PMS_TIER_ARCHITECTURAL || c.tier == PMS_TIER_COMMON,
				  "N1 %s", name);
		/* N1 uses Arm's names for architected numbers. */
		if (c.event)
			CHECK_MSG(!strcmp(c.event->name, name), "N1 0x%x: %s vs ours %s", code, name,
				  c.event->name);
		switch (c.tier) {
		case PMS_TIER_ARCHITECTURAL: arch++; break;
		case PMS_TIER_COMMON: common++; break;
		case PMS_TIER_RECOMMENDED: rec++; break;
		case PMS_TIER_EXTENSION: ext++; break;
		default: break;
		}
	}
	CHECK_EQ_INT(arch + common + rec + ext, n); /* N1 has no IMPDEF-range event */
	CHECK_EQ_INT(ext, 4);                       /* SPE 0x4000-0x4003 */
	json_decref(j);
}

PMS_TEST_MAIN()
