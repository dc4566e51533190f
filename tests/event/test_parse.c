/* Event-string grammar, generic/software/cache/raw names and modifiers,
 * without any PMU (pmus == NULL). */
#include "event_t.h"

static const struct ev_row rows[] = {
	/* generic hardware events (include/uapi/linux/perf_event.h perf_hw_id) */
	{ "cycles", 0, "type=0,config=0x0" },
	{ "cpu-cycles", 0, "type=0,config=0x0" },
	{ "instructions", 0, "type=0,config=0x1" },
	{ "cache-references", 0, "type=0,config=0x2" },
	{ "cache-misses", 0, "type=0,config=0x3" },
	{ "branches", 0, "type=0,config=0x4" },
	{ "branch-instructions", 0, "type=0,config=0x4" },
	{ "branch-misses", 0, "type=0,config=0x5" },
	{ "bus-cycles", 0, "type=0,config=0x6" },
	{ "stalled-cycles-frontend", 0, "type=0,config=0x7" },
	{ "idle-cycles-frontend", 0, "type=0,config=0x7" },
	{ "stalled-cycles-backend", 0, "type=0,config=0x8" },
	{ "idle-cycles-backend", 0, "type=0,config=0x8" },
	{ "ref-cycles", 0, "type=0,config=0x9" },
	/* software events (perf_sw_ids) */
	{ "cpu-clock", 0, "type=1,config=0x0" },
	{ "task-clock", 0, "type=1,config=0x1" },
	{ "page-faults", 0, "type=1,config=0x2" },
	{ "faults", 0, "type=1,config=0x2" },
	{ "context-switches", 0, "type=1,config=0x3" },
	{ "cs", 0, "type=1,config=0x3" },
	{ "cpu-migrations", 0, "type=1,config=0x4" },
	{ "migrations", 0, "type=1,config=0x4" },
	{ "minor-faults", 0, "type=1,config=0x5" },
	{ "major-faults", 0, "type=1,config=0x6" },
	{ "alignment-faults", 0, "type=1,config=0x7" },
	{ "emulation-faults", 0, "type=1,config=0x8" },
	{ "dummy", 0, "type=1,config=0x9" },
	{ "bpf-output", 0, "type=1,config=0xa" },
	{ "cgroup-switches", 0, "type=1,config=0xb" },
	/* hw-cache: id | op << 8 | result << 16 */
	{ "L1-dcache-loads", 0, "type=3,config=0x0" },
	{ "L1-dcache-load-misses", 0, "type=3,config=0x10000" },
	{ "L1-dcache-stores", 0, "type=3,config=0x100" },
	{ "L1-dcache-store-misses", 0, "type=3,config=0x10100" },
	{ "L1-dcache-prefetches", 0, "type=3,config=0x200" },
	{ "L1-icache-load-misses", 0, "type=3,config=0x10001" },
	{ "LLC-loads", 0, "type=3,config=0x2" },
	{ "LLC-prefetch-misses", 0, "type=3,config=0x10202" },
	{ "LLC", 0, "type=3,config=0x2" },
	{ "dTLB-load-misses", 0, "type=3,config=0x10003" },
	{ "dTLB-stores", 0, "type=3,config=0x103" },
	{ "iTLB-loads", 0, "type=3,config=0x4" },
	{ "iTLB-load-misses", 0, "type=3,config=0x10004" },
	{ "branch-loads", 0, "type=3,config=0x5" },
	{ "branch-load-misses", 0, "type=3,config=0x10005" },
	{ "node-loads", 0, "type=3,config=0x6" },
	{ "node-store-misses", 0, "type=3,config=0x10106" },
	{ "l1d-read-miss", 0, "type=3,config=0x10000" },
	{ "L1-icache-stores", PMS_ENOENT, "unknown event 'L1-icache-stores' (not a generic event, raw rNNN, PMU alias or PMU) at column 1" },
	{ "iTLB-stores", PMS_ENOENT, "unknown event" },
	{ "LLC-load-misses-misses", PMS_ENOENT, "unknown event" },
	/* raw */
	{ "r1a8", 0, "type=4,config=0x1a8" },
	{ "rABCD:p", 0, "type=4,config=0xabcd,precise_ip=1" },
	{ "rffffffffffffffff", 0, "type=4,config=0xffffffffffffffff" },
	{ "r12345678901234567", PMS_ERANGE, "wider than 64 bits at column 1" },
	{ "r", PMS_ENOENT, "unknown event 'r'" },
	/* modifiers */
	{ "instructions:u", 0, "type=0,config=0x1,exclude_kernel,exclude_hv" },
	{ "instructions:k", 0, "type=0,config=0x1,exclude_user,exclude_hv" },
	{ "instructions:h", 0, "type=0,config=0x1,exclude_user,exclude_kernel" },
	{ "instructions:uk", 0, "type=0,config=0x1,exclude_hv" },
	{ "instructions:ukh", 0, "type=0,config=0x1" },
	{ "instructions:G", 0, "type=0,config=0x1,exclude_host" },
	{ "instructions:H", 0, "type=0,config=0x1,exclude_guest" },
	{ "instructions:GH", 0, "type=0,config=0x1" },
	{ "cycles:p", 0, "type=0,config=0x0,precise_ip=1" },
	{ "cycles:pp", 0, "type=0,config=0x0,precise_ip=2" },
	{ "cycles:ppp", 0, "type=0,config=0x0,precise_ip=3" },
	{ "cycles:upp", 0, "type=0,config=0x0,exclude_kernel,exclude_hv,precise_ip=2" },
	{ "cycles:P", 0, "type=0,config=0x0 P" },
	{ "cycles:I", 0, "type=0,config=0x0,exclude_idle" },
	{ "cycles:D", 0, "type=0,config=0x0,pinned" },
	{ "cycles:e", 0, "type=0,config=0x0,exclusive" },
	{ "cycles:S", 0, "type=0,config=0x0 S" },
	{ "cycles:W", 0, "type=0,config=0x0 W" },
	{ "cycles:pppp", PMS_EPARSE, "more than 3 'p' modifiers (precise_ip is 0-3) at column 11" },
	{ "cycles:x", PMS_EPARSE, "unknown modifier 'x'" },
	{ "cycles:ux", PMS_EPARSE, "(known: u k h G H p pp ppp P S D I W e) at column 9" },
	{ "sched:sched_switch", PMS_ENOENT, "tracepoint 'sched:sched_switch' needs tracefs (no kernel seam given to the parser) at column 1" },
	{ "cycles:", PMS_EPARSE, "expected modifiers after ':', found end of string at column 8" },
	{ "cycles:,instructions", PMS_EPARSE, "found ',' at column 8" },
	/* lists and groups */
	{ "cycles,instructions", 0, "type=0,config=0x0 ; type=0,config=0x1" },
	{ "  cycles ,  cs  ", 0, "type=0,config=0x0 ; type=1,config=0x3" },
	{ "{cycles,instructions}", 0, "type=0,config=0x0 g0L ; type=0,config=0x1 g0" },
	{ "{cycles,instructions}:u", 0,
	  "type=0,config=0x0,exclude_kernel,exclude_hv g0L ; "
	  "type=0,config=0x1,exclude_kernel,exclude_hv g0" },
	{ "{cycles:k,instructions}:u", 0,
	  "type=0,config=0x0,exclude_hv g0L ; type=0,config=0x1,exclude_kernel,exclude_hv g0" },
	{ "{cycles,instructions}:W", 0, "type=0,config=0x0 g0L W ; type=0,config=0x1 g0" },
	{ "{cycles,instructions}:S", 0, "type=0,config=0x0 g0L S ; type=0,config=0x1 g0" },
	{ "{cycles,instructions}:D", 0, "type=0,config=0x0,pinned g0L ; type=0,config=0x1 g0" },
	{ "{cycles,instructions}:pp", 0,
	  "type=0,config=0x0,precise_ip=2 g0L ; type=0,config=0x1,precise_ip=2 g0" },
	{ "cs,{cycles,instructions},{cpu-clock},task-clock", 0,
	  "type=1,config=0x3 ; type=0,config=0x0 g0L ; type=0,config=0x1 g0 ; "
	  "type=1,config=0x0 g1L ; type=1,config=0x1" },
	{ "{cycles,instructions:D}", PMS_EPARSE, "leader only" },
	{ "{cycles,{instructions}}", PMS_EPARSE, "groups cannot be nested at column 9" },
	{ "{cycles,instructions", PMS_EPARSE, "missing the '}' of the group opened at column 1" },
	{ "{}", PMS_EPARSE, "expected an event name, found '}' at column 2" },
	{ "{cycles}:", PMS_EPARSE, "at column 10" },
	{ "{cycles};", PMS_EPARSE, "expected ',' between events, found ';' at column 9" },
	/* syntax errors with their columns */
	{ "", PMS_EPARSE, "empty event list at column 1" },
	{ "   ", PMS_EPARSE, "empty event list at column 4" },
	{ "cycles,,instructions", PMS_EPARSE, "expected an event name, found ',' at column 8" },
	{ "cycles,", PMS_EPARSE, "found end of string at column 8" },
	{ "cycles instructions", PMS_EPARSE, "expected ',' between events, found 'i' at column 8" },
	{ "cycles\x01", PMS_EPARSE, "byte 0x01 at column 7" },
	{ "foo", PMS_ENOENT, "unknown event 'foo'" },
	{ "cycles,bogus-event", PMS_ENOENT, "unknown event 'bogus-event' (not a generic event, raw rNNN, PMU alias or PMU) at column 8" },
	{ "cpu/event=1/", PMS_ENOENT, "unknown PMU 'cpu' at column 1" },
	{ "cpu/event=1", PMS_EPARSE, "missing the closing '/' of the term list opened at column 4" },
	{ "cpu/event=/", PMS_EPARSE, "term 'event' has '=' but no value at column 11" },
	{ "cpu/event=1,/", PMS_EPARSE, "expected a term name, found '/' at column 13" },
	{ "cpu/name='abc/", PMS_EPARSE, "unterminated quoted value of term 'name' at column 10" },
	{ "cpu/=1/", PMS_EPARSE, "expected a term name, found '=' at column 5" },
	{ "cpu/event=1/x", PMS_EPARSE, "unknown modifier 'x' (known: u k h G H p pp ppp P S D I W e) at column 13" },
	{ "cpu/event=1/:", PMS_EPARSE, "expected modifiers after ':', found end of string at column 14" },
	{ "/event=1/", PMS_EPARSE, "expected an event name, found '/' at column 1" },
};

PMS_TEST(grammar_and_generic_rows)
{
	ev_run_rows(NULL, "no-pmus", rows, sizeof(rows) / sizeof(rows[0]));
}

PMS_TEST(names_columns_and_flags)
{
	struct pms_event_list *l = NULL;
	CHECK_OK(pms_event_parse(NULL, "cycles:u, {instructions:pp,cs}:W", &l));
	if (!l)
		return;
	CHECK_EQ_INT(pms_event_list_count(l), 3);
	CHECK_EQ_INT(pms_event_list_groups(l), 1);
	CHECK_EQ_STR(pms_event_list_at(l, 0)->name, "cycles:u");
	CHECK_EQ_INT(pms_event_list_at(l, 0)->column, 1);
	CHECK_EQ_INT(pms_event_list_at(l, 0)->group, -1);
	CHECK_EQ_STR(pms_event_list_at(l, 1)->name, "instructions:pp");
	CHECK_EQ_INT(pms_event_list_at(l, 1)->column, 12);
	CHECK(pms_event_list_at(l, 1)->group_leader);
	CHECK(pms_event_list_at(l, 1)->weak);
	CHECK(!pms_event_list_at(l, 2)->weak);
	CHECK_EQ_STR(pms_event_list_at(l, 2)->name, "cs");
	CHECK(pms_event_list_at(l, 2)->pmu == NULL);
	CHECK_EQ_INT(pms_event_list_at(l, 0)->attr.size, sizeof(struct perf_event_attr));
	CHECK(pms_event_list_at(l, 0)->scale == 1.0);
	CHECK(pms_event_list_at(l, 0)->unit == NULL);
	CHECK(pms_event_list_at(l, 3) == NULL); /* past the end */
	pms_event_list_free(l);
	/* a NULL list: no events, no groups */
	CHECK_EQ_INT(pms_event_list_count(NULL), 0);
	CHECK(pms_event_list_at(NULL, 0) == NULL);
	CHECK_EQ_INT(pms_event_list_groups(NULL), 0);
}

PMS_TEST(long_strings_keep_the_column)
{
	char text[2048] = "";
	struct pms_event_list *l = NULL;
	for (int i = 0; i < 100; i++)
		strcat(text, "cycles,");
	strcat(text, "nope");
	CHECK_EQ_INT(pms_event_parse(NULL, text, &l), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "unknown event 'nope'") != NULL);
	CHECK(strstr(pms_error_last(), "at column 701") != NULL);
	CHECK(strstr(pms_error_last(), "event 'cycles,cycles,") != NULL);
	text[strlen(text) - 5] = '\0';
	CHECK_OK(pms_event_parse(NULL, text, &l));
	CHECK(l && pms_event_list_count(l) == 100);
	pms_event_list_free(l);
}

PMS_TEST(bad_arguments)
{
	struct pms_event_list *l = (struct pms_event_list *)1;
	CHECK_EQ_INT(pms_event_parse(NULL, NULL, &l), PMS_EINVAL);
	CHECK(l == NULL);
	CHECK_EQ_INT(pms_event_parse(NULL, "cycles", NULL), PMS_EINVAL);
	pms_event_list_free(NULL);
}

PMS_TEST(describe_truncates_like_snprintf)
{
	struct perf_event_attr a;
	char big[256], small[8];
	memset(&a, 0, sizeof(a));
	a.type = 4;
	a.config = 0x1cd;
	a.config1 = 0x40;
	a.precise_ip = 2;
	a.exclude_kernel = 1;
	a.sample_period = 1000;
	size_t n = pms_event_attr_describe(&a, big, sizeof(big));
	CHECK_EQ_STR(big, "type=4,config=0x1cd,config1=0x40,sample_period=1000,exclude_kernel,"
			  "precise_ip=2");
	CHECK_EQ_INT(n, strlen(big));
	CHECK_EQ_INT(pms_event_attr_describe(&a, small, sizeof(small)), n);
	CHECK_EQ_STR(small, "type=4,");
	CHECK_EQ_INT(pms_event_attr_describe(&a, NULL, 0), n);
	a.freq = 1;
	a.sample_freq = 4000;
	a.exclude_kernel = 0;
	a.precise_ip = 0;
	a.config1 = 0;
	a.exclude_guest = 1;
	pms_event_attr_describe(&a, big, sizeof(big));
	CHECK_EQ_STR(big, "type=4,config=0x1cd,sample_freq=4000,freq,exclude_guest");
}

/* The generic name of an attr is the name that parses to it (perf's
 * event_symbols_hw/_sw), and NULL for anything not generic. */
PMS_TEST(generic_names_round_trip)
{
	const char *names[] = { "cycles", "instructions", "cache-misses", "page-faults",
				"cpu-clock", "task-clock", "context-switches" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct pms_event_list *l = NULL;
		CHECK_OK(pms_event_parse(NULL, names[i], &l));
		const struct pms_event *e = pms_event_list_at(l, 0);
		CHECK(e != NULL);
		if (e)
			CHECK_EQ_STR(pms_event_generic_name(e->attr.type, e->attr.config), names[i]);
		pms_event_list_free(l);
	}
	CHECK(pms_event_generic_name(PERF_TYPE_RAW, 0x11) == NULL);
	CHECK(pms_event_generic_name(PERF_TYPE_HARDWARE, 1000) == NULL);
}

PMS_TEST_MAIN()
