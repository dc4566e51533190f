/* Apple M1 PMUs' counter model in stat's budget (issue 31 row 7): every
 * event's counter affinity mask and the width the driver advertises, from
 * drivers/perf/apple_m1_cpu_pmu.c (m1_pmu_event_affinity,
 * m1_pmu_get_event_idx, m1_pmu_ice_init/fire_init ARMPMU_EVT_47BIT), against
 * the fake kernel's Apple driver (tests/support/fake_rules_apple.c, written
 * separately from the same source). */
#include "check.h"
#include "count_helpers.h"
#include "fake_kernel.h"
#include "fake_rules.h"
#include "pmuscope/armpmu.h"
#include "pmuscope/count.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/sys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int m1_open(struct ch_root *r)
{
	if (ch_root_open(r, "apple-m1", -1, true) < 0)
		return -1;
	r->m.apple[0] = (struct fkr_apple_pmu){ 8, 0x0f }; /* icestorm */
	r->m.apple[1] = (struct fkr_apple_pmu){ 9, 0xf0 }; /* firestorm */
	r->m.napple = 2;
	return 0;
}

PMS_TEST(apple_budget_is_the_drivers_model)
{
	struct ch_root r;
	struct pms_count_budget b;
	if (m1_open(&r) < 0)
		return;
	CHECK_OK(pms_count_budget_probe(r.sys, r.pmus, "apple_firestorm_pmu", &b));
	CHECK(b.apple_affinity);
	CHECK_EQ_INT(b.general, 8);
	CHECK_EQ_INT(b.counter_bits, 47);
	CHECK(b.cycle_counter && b.instr_counter);
	CHECK_EQ_INT(pms_apple_event_affinity(0x96), 0x80);
	CHECK_EQ_INT(pms_apple_event_affinity(0x8c), 0x82);
	CHECK_EQ_INT(pms_apple_event_affinity(0x02), 0x3fd);
	CHECK_EQ_INT(pms_apple_event_affinity(0x10), 0x3fc);
	CHECK_EQ_INT(pms_apple_event_affinity(0x1de), 0);
	CHECK_EQ_INT(pms_apple_pmu_counter_bits("apple_blizzard_pmu"), 63);
	CHECK_EQ_INT(pms_apple_pmu_counter_bits("armv8_pmuv3_0"), 0);
	ch_root_close(&r);
}

/* A group of event numbers on apple_firestorm_pmu: the library's verdict
 * and the fake driver's open agree. */
static void agree(struct ch_root *r, struct pms_count_budget *b, const int *evs, int n,
		  int *fits, int *refused)
{
	char text[512];
	size_t len = 0;
	struct pms_event_list *l = NULL;
	len += (size_t)snprintf(text + len, sizeof(text) - len, "{");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%sapple_firestorm_pmu/event=0x%x/",
					i ? "," : "", evs[i]);
	snprintf(text + len, sizeof(text) - len, "}:H");
	CHECK_OK(pms_event_parse(r->pmus, text, &l));
	if (!l)
		return;
	struct perf_event_attr attrs[16];
	const char *names[16];
	for (size_t i = 0; i < pms_event_list_count(l); i++) {
		attrs[i] = pms_event_list_at(l, i)->attr;
		names[i] = pms_event_list_at(l, i)->name;
	}
	int lib = pms_count_budget_fit(b, r->pmus, attrs, names, pms_event_list_count(l));
	int fds[16], nfd = 0, kern = 0;
	for (size_t i = 0; i < pms_event_list_count(l); i++) {
		int fd = pms_sys_perf_event_open(r->sys, &attrs[i], 4242, -1, nfd ? fds[0] : -1, 0,
						 "apple group");
		if (fd < 0) {
			kern = pms_error_errno();
			break;
		}
		fds[nfd++] = fd;
	}
	while (nfd)
		pms_sys_close(r->sys, fds[--nfd]);
	CHECK_MSG((lib == 0) == (kern == 0), "%s: library %d, fake driver errno %d", text, lib, kern);
	CHECK(kern == 0 || kern == EINVAL);
	if (lib == 0)
		(*fits)++;
	else
		(*refused)++;
	pms_event_list_free(l);
}

PMS_TEST(apple_groups_library_equals_driver)
{
	static const int pool[] = { 0x01, 0x02, 0x8c, 0x8d, 0x96, 0x97, 0xcb, 0xf5, 0xf8, 0x10, 0x52 };
	struct ch_root r;
	struct pms_count_budget b;
	int fits = 0, refused = 0;
	if (m1_open(&r) < 0)
		return;
	CHECK_OK(pms_count_budget_probe(r.sys, r.pmus, "apple_firestorm_pmu", &b));
	/* the driver's own cases: two counter-7-only events; four 5-7 events */
	int seven[] = { 0x96, 0x97 }, five[] = { 0x8d, 0x8e, 0x8f, 0x90 };
	int ok1[] = { 0x01, 0x8c }, ok2[] = { 0x8c, 0x01 }, three8c[] = { 0x8c, 0x8c, 0x8c };
	agree(&r, &b, seven, 2, &fits, &refused);
	agree(&r, &b, five, 4, &fits, &refused);
	agree(&r, &b, ok1, 2, &fits, &refused);
	agree(&r, &b, ok2, 2, &fits, &refused);
	agree(&r, &b, three8c, 3, &fits, &refused);
	CHECK_EQ_INT(fits, 2);
	CHECK_EQ_INT(refused, 3);
	srand(31);
	for (int k = 0; k < 400; k++) {
		int evs[10], n = 2 + rand() % 8;
		for (int i = 0; i < n; i++)
			evs[i] = pool[rand() % (int)(sizeof(pool) / sizeof(pool[0]))];
		agree(&r, &b, evs, n, &fits, &refused);
	}
	CHECK(fits > 20 && refused > 20);
	ch_root_close(&r);
}

PMS_TEST(apple_stat_refuses_with_the_affinity)
{
	struct ch_root r;
	struct pms_event_list *l = NULL;
	struct pms_counter *c = NULL;
	struct pms_count_opts o = PMS_COUNT_OPTS_INIT;
	if (m1_open(&r) < 0)
		return;
	CHECK_OK(pms_event_parse(r.pmus, "{apple_firestorm_pmu/event=0x96/,apple_firestorm_pmu/event=0x97/}:H", &l));
	o.target = PMS_COUNT_CHILD;
	o.pid = 4242;
	int rc = pms_counter_open(r.sys, r.pmus, r.topo, l, &o, &c);
	CHECK_EQ_INT(rc, PMS_ERANGE);
	CHECK(strstr(pms_error_last(), "may use only counter 7") != NULL);
	CHECK(strstr(pms_error_last(), "m1_pmu_event_affinity") != NULL);
	pms_counter_free(c);
	pms_event_list_free(l);
	ch_root_close(&r);
}

PMS_TEST_MAIN()
