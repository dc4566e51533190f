/* CMN / DSU / DMC-620 config packing: round trips, refusals, terms. */
#include <string.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/uncore_enc.h"

PMS_TEST(cmn_layout_and_round_trip)
{
	/* Seed 004: TYPE[15:0] | EVENTID[26:16] | OCCUPID[30:27] | BYNODEID[31] | NODEID[47:32]. */
	static const struct {
		struct pms_cmn_event ev;
		uint64_t config;
	} rows[] = {
		{ { .type = 0x5, .eventid = 0x1 }, 0x0000000000010005ull },
		{ { .type = 0xffff }, 0xffffull },
		{ { .eventid = 0x7ff }, 0x7ffull << 16 },
		{ { .occupid = 0xf }, 0xfull << 27 },
		{ { .bynodeid = true }, 1ull << 31 },
		{ { .nodeid = 0xffff }, 0xffffull << 32 },
		{ { .type = 0x5, .eventid = 0x21, .occupid = 3, .bynodeid = true, .nodeid = 0x68 },
		  (0x68ull << 32) | (1ull << 31) | (3ull << 27) | (0x21ull << 16) | 0x5 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pms_uncore_config c;
		struct pms_cmn_event back;
		CHECK_OK(pms_cmn_encode(&rows[i].ev, &c));
		CHECK_MSG(c.config == rows[i].config && !c.config1 && !c.config2, "row %zu: 0x%llx", i,
			  (unsigned long long)c.config);
		CHECK_OK(pms_cmn_decode(&c, &back));
		CHECK_MSG(!memcmp(&back, &rows[i].ev, sizeof(back)) ||
				  (back.type == rows[i].ev.type && back.eventid == rows[i].ev.eventid &&
				   back.occupid == rows[i].ev.occupid &&
				   back.bynodeid == rows[i].ev.bynodeid && back.nodeid == rows[i].ev.nodeid),
			  "row %zu decode", i);
	}
}

PMS_TEST(cmn_watchpoint)
{
	struct pms_cmn_event ev = { .type = PMS_CMN_TYPE_WP, .eventid = PMS_CMN_WP_DOWN,
				    .bynodeid = true, .nodeid = 0x8, .wp_combine = 1,
				    .wp_dev_sel = 7, .wp_chn_sel = 0x1f, .wp_grp = 2,
				    .wp_exclusive = true, .wp_val = 0x1234, .wp_mask = ~0ull };
	struct pms_uncore_config c;
	struct pms_cmn_event back;
	CHECK_OK(pms_cmn_encode(&ev, &c));
	CHECK_EQ_U64(c.config, 0x7770ull | (2ull << 16) | (1ull << 27) | (1ull << 31) | (8ull << 32) |
				       (7ull << 48) | (0x1full << 51) | (2ull << 56) | (1ull << 58));
	CHECK_EQ_U64(c.config1, 0x1234);
	CHECK_EQ_U64(c.config2, ~0ull);
	CHECK_OK(pms_cmn_decode(&c, &back));
	CHECK(back.wp_combine == 1 && back.wp_dev_sel == 7 && back.wp_chn_sel == 0x1f &&
	      back.wp_grp == 2 && back.wp_exclusive && back.wp_val == 0x1234 && back.wp_mask == ~0ull &&
	      back.occupid == 0 && back.nodeid == 8);
	/* Watchpoint directions are 0 and 2 only. */
	ev.eventid = 1;
	CHECK_EQ_INT(pms_cmn_encode(&ev, &c), PMS_ERANGE);
	/* wp_* on an ordinary node type is refused. */
	struct pms_cmn_event bad = { .type = 0x5, .wp_dev_sel = 1 };
	CHECK_EQ_INT(pms_cmn_encode(&bad, &c), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "0x7770") != NULL);
	/* config1 set on a non-watchpoint event: not part of that layout. */
	struct pms_uncore_config stray = { 0x5, 1, 0 };
	CHECK_EQ_INT(pms_cmn_decode(&stray, &back), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "config1") != NULL);
}

PMS_TEST(cmn_out_of_range)
{
	struct pms_cmn_event ev = { .type = 0x5, .eventid = 0x800 };
	struct pms_uncore_config c;
	CHECK_EQ_INT(pms_cmn_encode(&ev, &c), PMS_ERANGE);
	CHECK(strstr(pms_error_last(), "eventid=0x800") && strstr(pms_error_last(), "config:16-26"));
	ev.eventid = 1;
	ev.occupid = 0x10;
	CHECK_EQ_INT(pms_cmn_encode(&ev, &c), PMS_ERANGE);
	CHECK(strstr(pms_error_last(), "occupid") != NULL);
	struct pms_cmn_event wp = { .type = PMS_CMN_TYPE_WP, .wp_chn_sel = 0x20 };
	CHECK_EQ_INT(pms_cmn_encode(&wp, &c), PMS_ERANGE);
	struct pms_cmn_event back;
	struct pms_uncore_config high = { 1ull << 48, 0, 0 };
	CHECK_EQ_INT(pms_cmn_decode(&high, &back), PMS_EPARSE);
}

PMS_TEST(dsu)
{
	struct pms_dsu_event ev = { PMS_DSU_EVT_CYCLES }, back;
	struct pms_uncore_config c;
	CHECK_OK(pms_dsu_encode(&ev, &c));
	CHECK_EQ_U64(c.config, 0x11);
	ev.event = 0xffffffffu;
	CHECK_OK(pms_dsu_encode(&ev, &c));
	CHECK_OK(pms_dsu_decode(&c, &back));
	CHECK_EQ_U64(back.event, 0xffffffffu);
	struct pms_uncore_config bad = { 1ull << 32, 0, 0 };
	CHECK_EQ_INT(pms_dsu_decode(&bad, &back), PMS_EPARSE);
}

PMS_TEST(dmc620)
{
	struct pms_dmc620_event ev = { .eventid = 0x19, .clkdiv2 = true, .invert = true, .incr = 2,
				       .mask = 0x1fffffffffffull, .match = 0x123 },
				back;
	struct pms_uncore_config c;
	CHECK_OK(pms_dmc620_encode(&ev, &c));
	CHECK_EQ_U64(c.config2, 1 | (2 << 1) | (0x19 << 3) | (1 << 9));
	CHECK_EQ_U64(c.config, 0x1fffffffffffull);
	CHECK_EQ_U64(c.config1, 0x123);
	CHECK_OK(pms_dmc620_decode(&c, &back));
	CHECK(back.eventid == 0x19 && back.clkdiv2 && back.invert && back.incr == 2 &&
	      back.mask == ev.mask && back.match == 0x123);
	ev.eventid = 0x40;
	CHECK_EQ_INT(pms_dmc620_encode(&ev, &c), PMS_ERANGE);
	CHECK(strstr(pms_error_last(), "config2:3-8") != NULL);
	ev.eventid = 1;
	ev.mask = 1ull << 45;
	CHECK_EQ_INT(pms_dmc620_encode(&ev, &c), PMS_ERANGE);
}

PMS_TEST(terms_parse_and_format)
{
	static const struct {
		enum pms_uncore_device dev;
		const char *in, *out;
	} rows[] = {
		{ PMS_UNCORE_CMN, "type=0x5,eventid=0x1,bynodeid=1,nodeid=0x68",
		  "type=0x5,eventid=0x1,bynodeid=0x1,nodeid=0x68" },
		{ PMS_UNCORE_CMN, "type=0x7770,eventid=0,wp_dev_sel=2,wp_val=0xff,wp_mask=0xf0",
		  "type=0x7770,eventid=0x0,wp_dev_sel=0x2,wp_val=0xff,wp_mask=0xf0" },
		{ PMS_UNCORE_DSU, "event=0x11", "event=0x11" },
		{ PMS_UNCORE_DMC620, "eventid=0x3,clkdiv2", "event=0x3,clkdiv2=0x1" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pms_uncore_config c;
		char buf[256];
		CHECK_OK(pms_uncore_parse(rows[i].dev, rows[i].in, &c));
		int n = pms_uncore_format(rows[i].dev, &c, buf, sizeof(buf));
		CHECK_MSG(n > 0 && !strcmp(buf, rows[i].out), "row %zu: \"%s\"", i, buf);
		struct pms_uncore_config c2;
		CHECK_OK(pms_uncore_parse(rows[i].dev, buf, &c2));
		CHECK_MSG(!memcmp(&c, &c2, sizeof(c)), "row %zu: format does not parse back", i);
	}
	struct pms_uncore_config c;
	CHECK_EQ_INT(pms_uncore_parse(PMS_UNCORE_CMN, "type=0x5,bogus=1", &c), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "bogus") && strstr(pms_error_last(), "column 10"));
	CHECK_EQ_INT(pms_uncore_parse(PMS_UNCORE_CMN, "eventid=0x1000", &c), PMS_ERANGE);
	CHECK_EQ_INT(pms_uncore_parse(PMS_UNCORE_CMN, "type=5,wp_grp=1", &c), PMS_EINVAL);
	CHECK_EQ_INT(pms_uncore_parse(PMS_UNCORE_CMN, "type=0x7770,occupid=1", &c), PMS_EINVAL);
	CHECK_EQ_INT(pms_uncore_parse(PMS_UNCORE_DSU, "event=xyz", &c), PMS_EPARSE);
	CHECK_EQ_INT(pms_uncore_parse(PMS_UNCORE_DSU, "event=1,event=2", &c), PMS_EINVAL);
	CHECK_EQ_STR(pms_uncore_device_pmu(PMS_UNCORE_DMC620), "arm_dmc620");
}

PMS_TEST_MAIN()
