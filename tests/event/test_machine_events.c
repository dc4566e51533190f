/* pms_machine_events_list over fixture machines (generic hardware events
 * only with a core PMU, software events without dummy and bpf-output, the
 * PMUs' sysfs aliases as PMU/NAME/ with their terms, tracepoints from a
 * written tracefs), pms_pmu_lists_code and pms_catalog_event_available
 * (the PMCEID ranges). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/catalog.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/pmu.h"
#include "pmuscope/sys.h"

static int open_root(const char *root, struct pms_sys **sys, struct pms_pmus **pmus)
{
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	o.root = root;
	*sys = NULL;
	*pmus = NULL;
	if (pms_sys_new(sys, &o) < 0 || pms_pmus_load(*sys, pmus) < 0) {
		CHECK_MSG(0, "%s: %s", root, pms_error_last());
		return -1;
	}
	return 0;
}

static int open_machine(const char *machine, struct pms_sys **sys, struct pms_pmus **pmus)
{
	char root[1024];
	snprintf(root, sizeof(root), "%s/machines/%s", pms_t_fixtures(), machine);
	return open_root(root, sys, pmus);
}

static const struct pms_machine_event *find(const struct pms_machine_event *ev, size_t n,
					    const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ev[i].name, name))
			return &ev[i];
	return NULL;
}

PMS_TEST(machine_with_a_core_pmu)
{
	struct pms_sys *sys;
	struct pms_pmus *pmus;
	struct pms_machine_event *ev = NULL;
	size_t n = 0;
	const struct pms_machine_event *e;
	if (open_machine("zen4-ibs", &sys, &pmus) == 0) {
		CHECK_OK(pms_machine_events_list(sys, pmus, false, &ev, &n));
		CHECK((e = find(ev, n, "cycles")) != NULL);
		if (e) {
			CHECK(e->pmu == NULL && e->desc == NULL);
			CHECK_EQ_STR(e->encoding, "cycles");
			CHECK_EQ_STR(pms_machine_event_kind_name(e->kind), "hardware event");
		}
		CHECK((e = find(ev, n, "task-clock")) != NULL);
		if (e) {
			CHECK_EQ_STR(e->pmu, "software");
			CHECK_EQ_INT(e->kind, PMS_MEV_SOFTWARE);
		}
		CHECK(find(ev, n, "dummy") == NULL);
		CHECK(find(ev, n, "bpf-output") == NULL);
		CHECK((e = find(ev, n, "cpu/branch-misses/")) != NULL);
		if (e) {
			CHECK_EQ_STR(e->pmu, "cpu");
			CHECK_EQ_STR(e->encoding, "cpu/branch-misses/");
			CHECK_EQ_INT(e->kind, PMS_MEV_KERNEL_PMU);
			CHECK(e->desc && strstr(e->desc, "event=") != NULL);
		}
		/* generic first, then the PMUs in their order */
		CHECK(n > 0 && ev[0].kind == PMS_MEV_HARDWARE);
		for (size_t i = 0; i < n; i++)
			CHECK(ev[i].kind != PMS_MEV_TRACEPOINT);
		pms_machine_events_free(ev, n);
	}
	pms_pmus_free(pmus);
	pms_sys_free(sys);
}

PMS_TEST(vm_without_pmu_has_no_hardware_events)
{
	struct pms_sys *sys;
	struct pms_pmus *pmus;
	struct pms_machine_event *ev = NULL;
	size_t n = 0;
	if (open_machine("vm-nopmu", &sys, &pmus) == 0) {
		CHECK_OK(pms_machine_events_list(sys, pmus, false, &ev, &n));
		CHECK(find(ev, n, "cycles") == NULL);
		CHECK(find(ev, n, "page-faults") != NULL);
		for (size_t i = 0; i < n; i++)
			CHECK(ev[i].kind != PMS_MEV_HARDWARE);
		pms_machine_events_free(ev, n);
		/* no pmus at all: the software events */
		CHECK_OK(pms_machine_events_list(sys, NULL, false, &ev, &n));
		CHECK(n > 0 && find(ev, n, "cpu-clock") != NULL);
		pms_machine_events_free(ev, n);
	}
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	CHECK_EQ_INT(pms_machine_events_list(NULL, NULL, true, &ev, &n), PMS_EINVAL);
	pms_machine_events_free(NULL, 0);
	CHECK_EQ_STR(pms_machine_event_kind_name((enum pms_machine_event_kind)99), "?");
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[1024], cmd[1200];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	CHECK(system(cmd) == 0);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

PMS_TEST(tracepoints_from_tracefs)
{
	char root[] = "/tmp/pms_mev_XXXXXX", cmd[256];
	struct pms_sys *sys;
	struct pms_pmus *pmus;
	struct pms_machine_event *ev = NULL;
	size_t n = 0;
	const struct pms_machine_event *e;
	CHECK(mkdtemp(root) != NULL);
	put(root, "sys/kernel/tracing/events/sched/sched_switch/id", "316\n");
	put(root, "sys/bus/event_source/devices/software/type", "1\n");
	put(root, "sys/kernel/tracing/events/irq/irq_handler_entry/id", "44\n");
	if (open_root(root, &sys, &pmus) == 0) {
		/* the tracefs listing itself (pmu.h): every event with its id */
		struct pms_tracepoint *tp = NULL;
		size_t ntp = 0, seen = 0;
		CHECK_OK(pms_tracepoints_list(sys, &tp, &ntp));
		CHECK_EQ_U64(ntp, 2);
		for (size_t i = 0; i < ntp; i++) {
			if (!strcmp(tp[i].name, "sched:sched_switch") && tp[i].id == 316)
				seen++;
			if (!strcmp(tp[i].name, "irq:irq_handler_entry") && tp[i].id == 44)
				seen++;
		}
		CHECK_EQ_U64(seen, 2);
		pms_tracepoints_free(tp, ntp);
		CHECK_OK(pms_machine_events_list(sys, pmus, true, &ev, &n));
		CHECK((e = find(ev, n, "sched:sched_switch")) != NULL);
		if (e) {
			CHECK_EQ_STR(e->pmu, "tracepoint");
			CHECK_EQ_STR(e->encoding, "tracepoint/config=316/");
			CHECK_EQ_STR(pms_machine_event_kind_name(e->kind), "tracepoint event");
		}
		pms_machine_events_free(ev, n);
		/* without tracefs: no tracepoints, and not an error */
		snprintf(cmd, sizeof(cmd), "rm -rf '%s/sys/kernel'", root);
		CHECK(system(cmd) == 0);
		CHECK_OK(pms_machine_events_list(sys, pmus, true, &ev, &n));
		CHECK(find(ev, n, "sched:sched_switch") == NULL);
		CHECK(pms_error_last()[0] == '\0');
		pms_machine_events_free(ev, n);
		/* the listing itself says tracefs is not there */
		tp = NULL;
		ntp = 0;
		CHECK_EQ_INT(pms_tracepoints_list(sys, &tp, &ntp), PMS_ENOENT);
		pms_tracepoints_free(tp, ntp);
	}
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

/* Issue 30 item 2: "sys:name" and globs through the one event parser, the
 * ids from a fake tracefs through the seam. */
PMS_TEST(tracepoints_by_name)
{
	char root[] = "/tmp/pms_tpn_XXXXXX", cmd[256], d[256];
	struct pms_sys *sys;
	struct pms_pmus *pmus;
	struct pms_event_list *l = NULL;
	struct pms_event_parse_opts po = PMS_EVENT_PARSE_OPTS_INIT;
	CHECK(mkdtemp(root) != NULL);
	put(root, "sys/kernel/tracing/events/sched/sched_switch/id", "316\n");
	put(root, "sys/kernel/tracing/events/sched/sched_wakeup/id", "317\n");
	put(root, "sys/kernel/tracing/events/sched/enable", "0\n");
	put(root, "sys/kernel/tracing/events/irq/irq_handler_entry/id", "40\n");
	put(root, "sys/bus/event_source/devices/software/type", "1\n");
	put(root, "sys/bus/event_source/devices/tracepoint/type", "2\n");
	if (open_root(root, &sys, &pmus) == 0) {
		po.sys = sys;
		CHECK_OK(pms_event_parse_ex(pmus, "sched:sched_switch", &po, &l));
		CHECK(l && pms_event_list_count(l) == 1);
		if (l && pms_event_list_count(l) == 1) {
			CHECK_EQ_INT(pms_event_list_at(l, 0)->attr.type, PERF_TYPE_TRACEPOINT);
			CHECK_EQ_INT(pms_event_list_at(l, 0)->attr.config, 316);
			CHECK_EQ_INT(pms_event_list_at(l, 0)->attr.sample_period, 1);
			CHECK_EQ_STR(pms_event_list_at(l, 0)->name, "sched:sched_switch");
			CHECK_EQ_STR(pms_event_list_at(l, 0)->pmu, "tracepoint");
		}
		pms_event_list_free(l);
		/* a glob: one event per match, named as matched; modifiers kept */
		CHECK_OK(pms_event_parse_ex(pmus, "sched:*:u,page-faults", &po, &l));
		CHECK(l && pms_event_list_count(l) == 3);
		if (l && pms_event_list_count(l) == 3) {
			CHECK_EQ_STR(pms_event_list_at(l, 0)->name, "sched:sched_switch:u");
			CHECK_EQ_INT(pms_event_list_at(l, 1)->attr.config, 317);
			CHECK(pms_event_list_at(l, 1)->attr.exclude_kernel);
			CHECK_EQ_STR(pms_event_list_at(l, 2)->name, "page-faults");
		}
		pms_event_list_free(l);
		CHECK_OK(pms_event_parse_ex(pmus, "*:irq_*", &po, &l));
		CHECK(l && pms_event_list_count(l) == 1 && pms_event_list_at(l, 0)->attr.config == 40);
		pms_event_list_free(l);
		CHECK_OK(pms_event_parse_ex(pmus, "{sched:sched_switch,sched:sched_wakeup}", &po, &l));
		CHECK(l && pms_event_list_count(l) == 2 && pms_event_list_at(l, 0)->group_leader && pms_event_list_at(l, 1)->group == 0);
		pms_event_list_free(l);
		/* modifiers alone after ':' stay modifiers */
		CHECK_OK(pms_event_parse_ex(pmus, "page-faults:u", &po, &l));
		CHECK(l && pms_event_list_count(l) == 1 && pms_event_list_at(l, 0)->attr.type == PERF_TYPE_SOFTWARE);
		pms_event_list_free(l);
		/* unknown name, no glob match, no seam */
		CHECK_EQ_INT(pms_event_parse_ex(pmus, "sched:nosuch", &po, &l), PMS_ENOENT);
		CHECK(strstr(pms_error_last(), "unknown tracepoint 'sched:nosuch'") != NULL);
		CHECK_EQ_INT(pms_event_parse_ex(pmus, "nosys:*", &po, &l), PMS_ENOENT);
		CHECK_EQ_INT(pms_event_parse_ex(pmus, "sched:sched_switch", NULL, &l), PMS_ENOENT);
		CHECK(strstr(pms_error_last(), "needs tracefs") != NULL);
		/* the finder alone */
		struct pms_tracepoint *tp = NULL;
		size_t n = 0;
		CHECK_OK(pms_tracepoints_find(sys, "s[a-d]hed:sched_w*", &tp, &n));
		CHECK(n == 1 && !strcmp(tp[0].name, "sched:sched_wakeup") && tp[0].id == 317);
		pms_tracepoints_free(tp, n);
		CHECK_EQ_INT(pms_tracepoints_find(sys, "sched", &tp, &n), PMS_EINVAL);
		/* tracefs not readable: perf's reason, not "unknown" */
		snprintf(d, sizeof(d), "%s/sys/kernel/tracing/events", root);
		if (geteuid() != 0 && chmod(d, 0) == 0) {
			CHECK_EQ_INT(pms_event_parse_ex(pmus, "sched:sched_switch", &po, &l), PMS_EPERM);
			chmod(d, 0755);
		}
	}
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

PMS_TEST(pmceid_availability)
{
	struct pms_sys *sys;
	struct pms_pmus *pmus;
	if (open_machine("arm-biglittle", &sys, &pmus) == 0) {
		const struct pms_pmu *a53 = pms_pmu_find(pmus, "armv8_cortex_a53");
		CHECK(a53 != NULL);
		CHECK(pms_pmu_lists_code(a53, 0x8));   /* inst_retired: event=0x0008 */
		CHECK(pms_pmu_lists_code(a53, 0x11));  /* cpu_cycles */
		CHECK(!pms_pmu_lists_code(a53, 0x3f));
		CHECK(!pms_pmu_lists_code(NULL, 0x8));
		struct pms_cat_event ev;
		memset(&ev, 0, sizeof(ev));
		ev.name = "INST_RETIRED";
		ev.code = 0x8;
		ev.tier = PMS_TIER_COMMON;
		CHECK_EQ_INT(pms_catalog_event_available(pmus, &ev, "armv8_cortex_a53"), 1);
		ev.code = 0x3f; /* PMCEID-discoverable, not listed: not advertised */
		CHECK_EQ_INT(pms_catalog_event_available(pmus, &ev, "armv8_cortex_a53"), 0);
		ev.code = 0x4004; /* the upper range too */
		CHECK_EQ_INT(pms_catalog_event_available(pmus, &ev, "armv8_cortex_a53"), 0);
		ev.code = 0x8000; /* not discoverable: the machine cannot say */
		CHECK_EQ_INT(pms_catalog_event_available(pmus, &ev, "armv8_cortex_a53"), -1);
		ev.code = 0x8;
		ev.tier = PMS_TIER_NONE; /* not an Arm architected event */
		CHECK_EQ_INT(pms_catalog_event_available(pmus, &ev, "armv8_cortex_a53"), -1);
		CHECK_EQ_INT(pms_catalog_event_available(pmus, &ev, "no_such_pmu"), 0);
		CHECK_EQ_INT(pms_catalog_event_available(pmus, &ev, NULL), -1);
		CHECK_EQ_INT(pms_catalog_event_available(NULL, &ev, "armv8_cortex_a53"), -1);
		ev.pmu = "armv8_cortex_a72"; /* a named PMU that exists */
		CHECK_EQ_INT(pms_catalog_event_available(pmus, &ev, NULL), 1);
	}
	pms_pmus_free(pmus);
	pms_sys_free(sys);
}

PMS_TEST_MAIN()
