/* Counting and self-monitoring on the real kernel of this machine, with
 * software events (they need no PMU): page faults of fresh pages, a child
 * started at exec, CPU-wide cpu-clock, and the read() fallback of the
 * self-monitoring read (cap_user_rdpmc is 0 for software events). */
#include "check.h"
#include "pmuscope/count.h"
#include "pmuscope/error.h"
#include "pmuscope/sampler.h"
#include "pmuscope/selfmon.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NPAGES 1000

/* Touch n fresh anonymous pages: n page faults at least. */
static void touch_pages(size_t n)
{
	long psz = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, n * (size_t)psz, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		CHECK(!"mmap");
		return;
	}
	for (size_t i = 0; i < n; i++)
		p[i * (size_t)psz] = 1;
	munmap((void *)p, n * (size_t)psz);
}

struct live {
	struct pms_sys *sys;
	struct pms_pmus *pmus;
	struct pms_topo *topo;
};

static int live_open(struct live *l)
{
	memset(l, 0, sizeof(*l));
	if (pms_sys_new(&l->sys, NULL) < 0 || pms_pmus_load(l->sys, &l->pmus) < 0) {
		CHECK_MSG(0, "live system: %s", pms_error_last());
		return -1;
	}
	if (pms_topo_load(l->sys, &l->topo) < 0)
		l->topo = NULL;
	return 0;
}

static void live_close(struct live *l)
{
	pms_topo_free(l->topo);
	pms_pmus_free(l->pmus);
	pms_sys_free(l->sys);
}

/* EACCES/EPERM here means the sandbox forbids perf: skip, saying why. */
static bool refused(int rc)
{
	return rc == PMS_EPERM;
}

PMS_TEST(selfmon_software_uses_read)
{
	struct live l;
	struct pms_selfmon *s = NULL;
	struct pms_selfmon_value a, b;
	int rc;
	if (live_open(&l) < 0)
		return;
	rc = pms_selfmon_open(l.sys, l.pmus, "page-faults:u,task-clock:u", NULL, &s);
	if (refused(rc)) {
		PMS_SKIP_PART("selfmon: %s", pms_error_last());
		live_close(&l);
		return;
	}
	CHECK_MSG(rc == 0, "%s", pms_error_last());
	if (s) {
		CHECK(pms_selfmon_page(s, 0) != NULL);
		CHECK_OK(pms_selfmon_read(s, 0, &a));
		touch_pages(NPAGES);
		CHECK_OK(pms_selfmon_read(s, 0, &b));
		/* Software events: the kernel leaves cap_user_rdpmc at 0. */
		CHECK_EQ_INT(b.path, PMS_PATH_SYSCALL);
		CHECK_MSG(b.why == PMS_WHY_NO_CAP, "why: %s", pms_selfmon_why_name(b.why));
		CHECK_MSG(b.value - a.value >= NPAGES, "page faults %llu -> %llu",
			  (unsigned long long)a.value, (unsigned long long)b.value);
		CHECK(b.enabled > 0 && b.running == b.enabled);
		CHECK_OK(pms_selfmon_read(s, 1, &b));
		CHECK(b.value > 0);
		CHECK_OK(pms_selfmon_disable(s));
		CHECK_OK(pms_selfmon_read(s, 0, &a));
		touch_pages(10);
		CHECK_OK(pms_selfmon_read(s, 0, &b));
		CHECK_EQ_U64(a.value, b.value);
		CHECK_OK(pms_selfmon_reset(s));
		CHECK_OK(pms_selfmon_read(s, 0, &b));
		CHECK_EQ_U64(b.value, 0);
	}
	pms_selfmon_free(s);
	live_close(&l);
}

PMS_TEST(count_own_thread)
{
	struct live l;
	struct pms_event_list *list = NULL;
	struct pms_count_opts o = PMS_COUNT_OPTS_INIT;
	struct pms_counter *c = NULL;
	int rc;
	if (live_open(&l) < 0)
		return;
	CHECK_OK(pms_event_parse(l.pmus, "{page-faults:u,task-clock:u},context-switches:u", &list));
	o.target = PMS_COUNT_TID;
	o.pid = (pid_t)syscall(SYS_gettid);
	rc = pms_counter_open(l.sys, l.pmus, l.topo, list, &o, &c);
	if (refused(rc)) {
		PMS_SKIP_PART("count: %s", pms_error_last());
	} else {
		CHECK_MSG(rc == 0, "%s", pms_error_last());
	}
	if (c) {
		struct pms_count_row *rows;
		size_t n;
		touch_pages(NPAGES);
		CHECK_OK(pms_counter_read(c));
		CHECK_OK(pms_counter_rows(c, PMS_AGG_GLOBAL, &rows, &n));
		CHECK_EQ_INT(n, 3);
		if (n == 3) {
			CHECK_MSG(rows[0].raw >= NPAGES, "page-faults %llu",
				  (unsigned long long)rows[0].raw);
			CHECK(rows[1].raw > 0); /* task-clock ns */
			CHECK(rows[0].enabled > 0 && rows[0].fraction == 1.0);
		}
		pms_count_rows_free(rows);
	}
	pms_counter_free(c);
	pms_event_list_free(list);
	live_close(&l);
}

PMS_TEST(count_child_group_inherit)
{
	struct live l;
	struct pms_event_list *list = NULL;
	struct pms_count_opts o = PMS_COUNT_OPTS_INIT;
	struct pms_counter *c = NULL;
	struct pms_child *child = NULL;
	char *argv[] = { "sh", "-c", "true; true", NULL };
	int rc;
	if (live_open(&l) < 0)
		return;
	CHECK_OK(pms_event_parse(l.pmus, "{task-clock,page-faults},context-switches", &list));
	CHECK_OK(pms_child_spawn(l.sys, argv, &child));
	if (!child)
		goto out;
	o.target = PMS_COUNT_CHILD;
	o.pid = pms_child_pid(child);
	rc = pms_counter_open(l.sys, l.pmus, l.topo, list, &o, &c);
	if (refused(rc))
		PMS_SKIP_PART("child: %s", pms_error_last());
	else
		CHECK_MSG(rc == 0, "%s", pms_error_last());
	if (c) {
		struct pms_count_row *rows;
		size_t n;
		/* Before exec nothing counts (enable_on_exec). */
		CHECK_OK(pms_counter_read(c));
		CHECK_EQ_U64(pms_counter_instance(c, 1)->v.raw, 0);
		CHECK_OK(pms_child_start(child));
		CHECK_OK(pms_child_wait(child, false, NULL));
		CHECK_OK(pms_counter_read(c));
		CHECK_OK(pms_counter_rows(c, PMS_AGG_GLOBAL, &rows, &n));
		CHECK_EQ_INT(n, 3);
		if (n == 3) {
			/* sh and its inherited children fault in pages. */
			CHECK(rows[0].raw > 0);
			CHECK_MSG(rows[1].raw > 10, "page-faults %llu", (unsigned long long)rows[1].raw);
		}
		pms_count_rows_free(rows);
	}
out:
	pms_counter_free(c);
	pms_child_free(child);
	pms_event_list_free(list);
	live_close(&l);
}

PMS_TEST(count_all_cpus)
{
	struct live l;
	struct pms_event_list *list = NULL;
	struct pms_count_opts o = PMS_COUNT_OPTS_INIT;
	struct pms_counter *c = NULL;
	int rc;
	if (live_open(&l) < 0)
		return;
	if (!l.topo) {
		PMS_SKIP_PART("all cpus: no topology: %s", pms_error_last());
		live_close(&l);
		return;
	}
	CHECK_OK(pms_event_parse(l.pmus, "cpu-clock", &list));
	o.target = PMS_COUNT_CPUS;
	rc = pms_counter_open(l.sys, l.pmus, l.topo, list, &o, &c);
	if (refused(rc))
		PMS_SKIP_PART("all cpus: %s", pms_error_last());
	else
		CHECK_MSG(rc == 0, "%s", pms_error_last());
	if (c) {
		struct pms_count_row *rows;
		size_t n;
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		CHECK_OK(pms_counter_read(c));
		CHECK_EQ_INT(pms_counter_ninstances(c), pms_cpuset_count(pms_topo_online(l.topo)));
		CHECK_OK(pms_counter_rows(c, PMS_AGG_CPU, &rows, &n));
		CHECK_EQ_INT(n, pms_cpuset_count(pms_topo_online(l.topo)));
		for (size_t i = 0; i < n; i++)
			/* cpu-clock runs on every CPU, idle or not: >= 40 ms. */
			CHECK_MSG(rows[i].raw >= 40 * 1000 * 1000ULL, "cpu %d: %llu ns", rows[i].id,
				  (unsigned long long)rows[i].raw);
		pms_count_rows_free(rows);
		CHECK_OK(pms_counter_rows(c, PMS_AGG_NODE, &rows, &n));
		CHECK(n >= 1);
		pms_count_rows_free(rows);
	}
	pms_counter_free(c);
	pms_event_list_free(list);
	live_close(&l);
}

PMS_TEST_MAIN()
