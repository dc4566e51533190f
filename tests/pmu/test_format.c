/* pms_format_parse / pms_format_encode / pms_format_mask, table-driven. */
#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/pmu.h"

#include <linux/perf_event.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct parse_row {
	const char *text;
	int code;           /* 0 or the PMS_E* expected */
	enum pms_cfg_field field;
	int nranges, width;
	uint64_t mask;
	const char *canon;  /* pms_format_str output, or the message substring on error */
};

static const struct parse_row parse_rows[] = {
	/* good: single bit, range, split ranges, every configN, no newline */
	{ "config:0\n", 0, PMS_CFG_CONFIG, 1, 1, 0x1, "config:0" },
	{ "config:0-7\n", 0, PMS_CFG_CONFIG, 1, 8, 0xff, "config:0-7" },
	{ "config:0-7,32-35\n", 0, PMS_CFG_CONFIG, 2, 12, 0xf000000ffull, "config:0-7,32-35" },
	{ "config:0-7,32-35,59-60\n", 0, PMS_CFG_CONFIG, 3, 14, 0x1800000f000000ffull,
	  "config:0-7,32-35,59-60" },
	{ "config1:0-63\n", 0, PMS_CFG_CONFIG1, 1, 64, ~0ull, "config1:0-63" },
	{ "config2:0", 0, PMS_CFG_CONFIG2, 1, 1, 1, "config2:0" },
	{ "config3:5-9\n", 0, PMS_CFG_CONFIG3, 1, 5, 0x3e0, "config3:5-9" },
	{ "config4:63\n", 0, PMS_CFG_CONFIG4, 1, 1, 1ull << 63, "config4:63" },
	{ "config:63-63\n", 0, PMS_CFG_CONFIG, 1, 1, 1ull << 63, "config:63" },
	{ "config:8-15,24-27\r\n", 0, PMS_CFG_CONFIG, 2, 12, 0xf00ff00, "config:8-15,24-27" },
	/* ranges out of order are kept ascending, as perf assigns value bits */
	{ "config:32-35,0-7\n", 0, PMS_CFG_CONFIG, 2, 12, 0xf000000ffull, "config:0-7,32-35" },
	{ "config:0,2,4,6,8,10,12,14\n", 0, PMS_CFG_CONFIG, 8, 8, 0x5555, "config:0,2,4,6,8,10,12,14" },
	/* bad, with the column or the reason in the message */
	{ "", PMS_EPARSE, 0, 0, 0, 0, "column 1" },
	{ "\n", PMS_EPARSE, 0, 0, 0, 0, "column 1" },
	{ "conf:0-7\n", PMS_EPARSE, 0, 0, 0, 0, "unknown field 'conf'" },
	{ "config5:0\n", PMS_EPARSE, 0, 0, 0, 0, "unknown field 'config5'" },
	{ "config0:0\n", PMS_EPARSE, 0, 0, 0, 0, "unknown field 'config0'" },
	{ "config 0-7\n", PMS_EPARSE, 0, 0, 0, 0, "expected ':' at column 7" },
	{ "config:\n", PMS_EPARSE, 0, 0, 0, 0, "bit number at column 8" },
	{ "config:8-3\n", PMS_EPARSE, 0, 0, 0, 0, "range 8-3 at column 8 is backwards" },
	{ "config:0-64\n", PMS_EPARSE, 0, 0, 0, 0, "column 10 is above 63" },
	{ "config:64\n", PMS_EPARSE, 0, 0, 0, 0, "column 8 is above 63" },
	{ "config:99999999999\n", PMS_EPARSE, 0, 0, 0, 0, "above 63" },
	{ "config:0-7x\n", PMS_EPARSE, 0, 0, 0, 0, "unexpected 'x' at column 11" },
	{ "config:0-7 junk\n", PMS_EPARSE, 0, 0, 0, 0, "unexpected 'j' at column 12" },
	{ "config:0-7,\n", PMS_EPARSE, 0, 0, 0, 0, "bit number at column 12" },
	{ "config:0-7,4-9\n", PMS_EPARSE, 0, 0, 0, 0, "column 12 overlaps" },
	{ "config:-1\n", PMS_EPARSE, 0, 0, 0, 0, "column 8" },
	{ "config:0,1,2,3,4,5,6,7,8\n", PMS_EPARSE, 0, 0, 0, 0, "more than 8 ranges (column 24)" },
};

PMS_TEST(parse_rows_table)
{
	for (size_t i = 0; i < sizeof(parse_rows) / sizeof(parse_rows[0]); i++) {
		const struct parse_row *r = &parse_rows[i];
		struct pms_format f;
		char buf[128];
		int ret;
		memset(&f, 0xa5, sizeof(f));
		f.name = NULL;
		ret = pms_format_parse(r->text, &f);
		CHECK_MSG(ret == r->code, "row %zu '%s': returned %d (%s), expected %d", i, r->text,
			  ret, pms_error_last(), r->code);
		if (ret != r->code)
			continue;
		if (r->code) {
			CHECK_MSG(strstr(pms_error_last(), r->canon) != NULL,
				  "row %zu '%s': message '%s' lacks '%s'", i, r->text,
				  pms_error_last(), r->canon);
			CHECK_MSG(f.nranges == 0 && f.width == 0, "row %zu: f left non-empty", i);
			continue;
		}
		pms_format_str(&f, buf, sizeof(buf));
		CHECK_MSG(f.field == r->field && f.nranges == r->nranges && f.width == r->width &&
				  pms_format_mask(&f) == r->mask && !strcmp(buf, r->canon),
			  "row %zu '%s': field %d nranges %d width %d mask 0x%llx '%s'", i, r->text,
			  f.field, f.nranges, f.width, (unsigned long long)pms_format_mask(&f),
			  buf);
	}
}

struct encode_row {
	const char *format;
	uint64_t value, before, after;
	int code;
};

static const struct encode_row encode_rows[] = {
	{ "config:0-7", 0x3c, 0, 0x3c, 0 },
	{ "config:8-15", 0x41, 0x2e, 0x412e, 0 },
	{ "config:0-7", 0x100, 0, 0, PMS_ERANGE },
	{ "config:18", 1, 0, 1ull << 18, 0 },
	{ "config:18", 2, 0, 0, PMS_ERANGE },
	/* AMD split event field: bits 8-11 of the value go to config 32-35 */
	{ "config:0-7,32-35", 0x1d6, 0, 0x1000000d6ull, 0 },
	{ "config:0-7,32-35", 0xfff, 0, 0xf000000ffull, 0 },
	{ "config:0-7,32-35", 0x1000, 0, 0, PMS_ERANGE },
	/* three pieces */
	{ "config:0-7,32-35,59-60", 0x3fff, 0, 0x1800000f000000ffull, 0 },
	{ "config:0-7,32-35,59-60", 0x2000, 0, 1ull << 60, 0 },
	/* ranges given high-first still fill from the lowest bit */
	{ "config:32-35,0-7", 0x1d6, 0, 0x1000000d6ull, 0 },
	/* full 64-bit word */
	{ "config1:0-63", ~0ull, 0, ~0ull, 0 },
	{ "config1:0-63", 0x123456789abcdef0ull, 0, 0x123456789abcdef0ull, 0 },
	{ "config:63", 1, 0, 1ull << 63, 0 },
	/* ORs into what is there, and 0 changes nothing */
	{ "config:0-7", 0, 0xff00, 0xff00, 0 },
	{ "config2:0-11", 4095, 1ull << 40, (1ull << 40) | 0xfff, 0 },
	{ "config2:0-11", 4096, 7, 7, PMS_ERANGE },
};

PMS_TEST(encode_rows_table)
{
	for (size_t i = 0; i < sizeof(encode_rows) / sizeof(encode_rows[0]); i++) {
		const struct encode_row *r = &encode_rows[i];
		struct pms_format f = { 0 };
		uint64_t w = r->before;
		int ret;
		CHECK_OK(pms_format_parse(r->format, &f));
		f.name = (char *)"t";
		ret = pms_format_encode(&f, r->value, &w);
		CHECK_MSG(ret == r->code, "row %zu %s value 0x%llx: returned %d (%s)", i, r->format,
			  (unsigned long long)r->value, ret, pms_error_last());
		CHECK_MSG(w == r->after, "row %zu %s value 0x%llx: word 0x%llx, expected 0x%llx", i,
			  r->format, (unsigned long long)r->value, (unsigned long long)w,
			  (unsigned long long)r->after);
		if (ret == PMS_ERANGE)
			CHECK_MSG(strstr(pms_error_last(), "'t'") != NULL, "row %zu: message '%s'",
				  i, pms_error_last());
		/* whatever lands in the word stays inside the term's mask */
		if (ret == 0)
			CHECK((w & ~r->before & ~pms_format_mask(&f)) == 0);
	}
}

PMS_TEST(encode_empty_term_refused)
{
	struct pms_format f = { 0 };
	uint64_t w = 0;
	f.name = (char *)"empty";
	CHECK_EQ_INT(pms_format_encode(&f, 0, &w), PMS_EINVAL);
	CHECK_EQ_INT(pms_format_parse(NULL, &f), PMS_EINVAL);
}

PMS_TEST(names)
{
	CHECK_EQ_STR(pms_cfg_field_name(PMS_CFG_CONFIG), "config");
	CHECK_EQ_STR(pms_cfg_field_name(PMS_CFG_CONFIG4), "config4");
	CHECK_EQ_STR(pms_pmu_kind_name(PMS_PMU_PRECISE), "precise");
	CHECK_EQ_STR(pms_engine_name(PMS_ENG_SPE), "spe");
	CHECK_EQ_STR(pms_scope_name(PMS_SCOPE_LLC), "llc");
	CHECK_EQ_STR(pms_scope_name((enum pms_uncore_scope)99), "?");
}

PMS_TEST(format_str_truncates_like_snprintf)
{
	struct pms_format f = { 0 };
	char small[8];
	CHECK_OK(pms_format_parse("config1:0-7,32-35", &f));
	CHECK_EQ_INT(pms_format_str(&f, small, sizeof(small)), 17);
	CHECK_EQ_STR(small, "config1");
	CHECK_EQ_INT(pms_format_str(&f, NULL, 0), 17);
}

/* The one field -> attr word mapping: each of config..config3 lands in its
 * own word, other bits are kept, set clears the term first; config4 (not in
 * perf_event_attr) is refused. */
PMS_TEST(attr_words)
{
	static const struct {
		const char *format;
		size_t off;
	} rows[] = {
		{ "config:8-15", offsetof(struct perf_event_attr, config) },
		{ "config1:0-3", offsetof(struct perf_event_attr, config1) },
		{ "config2:32-39", offsetof(struct perf_event_attr, config2) },
		{ "config3:1", offsetof(struct perf_event_attr, config3) },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pms_format f = { 0 }; /* name is the sysfs file's, unset here */
		struct perf_event_attr a;
		uint64_t w = 0, mask;
		memset(&a, 0, sizeof(a));
		CHECK_OK(pms_format_parse(rows[i].format, &f));
		mask = pms_format_mask(&f);
		/* Neighbouring bits in the same word survive. */
		memcpy((char *)&a + rows[i].off, &(uint64_t){ ~mask }, 8);
		CHECK_OK(pms_format_attr_set(&f, &a, 1));
		CHECK_OK(pms_format_attr_get(&f, &a, &w));
		CHECK_EQ_U64(w & mask, mask & -mask); /* value 1: the lowest bit */
		CHECK_EQ_U64(w & ~mask, ~mask);
		CHECK_OK(pms_format_attr_set(&f, &a, 0));
		CHECK_OK(pms_format_attr_get(&f, &a, &w));
		CHECK_EQ_U64(w, ~mask);
		/* No other word was touched. */
		for (size_t o = offsetof(struct perf_event_attr, config);
		     o <= offsetof(struct perf_event_attr, config3); o += 8) {
			uint64_t v;
			if (o != rows[i].off && (o == offsetof(struct perf_event_attr, config) ||
						 o == offsetof(struct perf_event_attr, config1) ||
						 o == offsetof(struct perf_event_attr, config2) ||
						 o == offsetof(struct perf_event_attr, config3))) {
				memcpy(&v, (char *)&a + o, 8);
				CHECK_EQ_U64(v, 0);
			}
		}
		CHECK_EQ_INT(pms_format_attr_set(&f, &a, 0x1ff), f.width < 9 ? PMS_ERANGE : 0);
	}
	struct pms_format f4 = { 0 };
	struct perf_event_attr a;
	uint64_t w;
	memset(&a, 0, sizeof(a));
	CHECK_OK(pms_format_parse("config4:0-7", &f4));
	CHECK_EQ_INT(pms_format_attr_set(&f4, &a, 1), PMS_ENOTSUP);
	CHECK_EQ_INT(pms_format_attr_get(&f4, &a, &w), PMS_ENOTSUP);
	CHECK(strstr(pms_error_last(), "config..config3") != NULL);
	f4.name = (char *)"wide";
	CHECK_EQ_INT(pms_format_attr_get(&f4, &a, &w), PMS_ENOTSUP);
	CHECK(strstr(pms_error_last(), "'wide'") != NULL);
}

PMS_TEST_MAIN()
