/* The self-monitoring read loop against a fake user page: the test fills
 * struct perf_event_mmap_page as the kernel would and stands in for rdpmc /
 * the cycle counter with hooks, so the seqlock, index-0, pmc_width sign
 * extension and time_mult/shift/cycles/mask arithmetic run anywhere. */
#include "check.h"
#include "count_helpers.h"
#include "pmuscope/catalog.h"
#include "pmuscope/error.h"
#include "pmuscope/selfmon.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

#define CAP_RDPMC (1ULL << 2)
#define CAP_TIME (1ULL << 3)
#define CAP_TIME_SHORT (1ULL << 5)

struct hook_state {
	uint64_t counter;      /* what "rdpmc" returns */
	uint64_t cycles;       /* what "rdtsc" returns */
	uint32_t last_counter; /* the counter number asked for */
	int calls;
	int bump_lock;         /* the kernel "updates" the page this many times */
	struct perf_event_mmap_page *pc;
};

static uint64_t hook_counter(void *ud, uint32_t counter)
{
	struct hook_state *h = ud;
	h->last_counter = counter;
	h->calls++;
	if (h->bump_lock > 0) {
		/* A schedule between the two lock reads: the seqcount moves. */
		h->pc->lock += 2;
		h->bump_lock--;
	}
	return h->counter;
}

static uint64_t hook_cycles(void *ud)
{
	return ((struct hook_state *)ud)->cycles;
}

static int accept(struct fk *fk, const struct perf_event_attr *attr, pid_t pid, int cpu,
		  int group_fd, unsigned long flags)
{
	(void)fk;
	(void)attr;
	(void)pid;
	(void)cpu;
	(void)group_fd;
	(void)flags;
	return 0;
}

struct fixture {
	struct ch_root r;
	struct pms_selfmon *s;
	struct hook_state h;
	struct pms_selfmon_hooks hooks;
	struct perf_event_mmap_page *pc;
	struct fk_fd *fd;
};

static int setup(struct fixture *f, unsigned max_retries, bool no_user_read)
{
	struct pms_selfmon_opts o = PMS_SELFMON_OPTS_INIT;
	memset(f, 0, sizeof(*f));
	if (ch_root_open(&f->r, "zen4-ibs", 2, true) < 0)
		return -1;
	f->r.fk->rule = accept;
	f->hooks = (struct pms_selfmon_hooks){ &f->h, hook_counter, hook_cycles };
	o.hooks = &f->hooks;
	o.max_retries = max_retries;
	o.no_user_read = no_user_read;
	CHECK_OK(pms_selfmon_open(f->r.sys, f->r.pmus, "cycles:u", &o, &f->s));
	if (!f->s) {
		ch_root_close(&f->r);
		return -1;
	}
	f->pc = pms_selfmon_page(f->s, 0);
	f->fd = fk_fd(f->r.fk, pms_selfmon_fd(f->s, 0));
	f->h.pc = f->pc;
	CHECK(f->pc != NULL && f->fd != NULL);
	/* What read() would return. */
	uint64_t v[3] = { 5555, 9000, 9000 };
	memcpy(f->fd->read_data, v, sizeof(v));
	f->fd->read_len = sizeof(v);
	/* A running counter on hardware counter 2 (index 3), 48 bits wide. */
	f->pc->lock = 2;
	f->pc->index = 3;
	f->pc->pmc_width = 48;
	f->pc->capabilities = CAP_RDPMC;
	f->pc->time_enabled = 1000;
	f->pc->time_running = 1000;
	return 0;
}

static void teardown(struct fixture *f)
{
	pms_selfmon_free(f->s);
	CHECK_EQ_INT(f->r.fk->nopen, 0);
	ch_root_close(&f->r);
}

PMS_TEST(user_read_sign_extension)
{
	static const struct {
		int64_t offset;
		uint64_t pmc;
		uint16_t width;
		uint64_t want;
	} rows[] = {
		{ 100, 0x0000FFFFFFFFFFF0ULL, 48, 84 },           /* -16 in 48 bits */
		{ 0x1000, 0x0000FFFFFFFFFFFFULL, 48, 0xFFF },     /* -1: just wrapped */
		{ 0, 0x00007FFFFFFFFFFFULL, 48, 0x7FFFFFFFFFFFULL }, /* largest positive */
		{ -5, 0x0000000000000010ULL, 48, 11 },
		{ 7, 0xFFFFFFFFULL, 32, 6 },                     /* arm64 32-bit counter */
		{ 7, 0xFFFFFFFFULL, 64, 7 + 0xFFFFFFFFULL },     /* 64-bit: no extension */
		{ 1, 0xFFFF800000000000ULL, 48, 0xFFFF800000000001ULL }, /* bit 47 set: negative */
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct fixture f;
		struct pms_selfmon_value v;
		if (setup(&f, 0, false) < 0)
			return;
		f.pc->offset = rows[i].offset;
		f.pc->pmc_width = rows[i].width;
		f.h.counter = rows[i].pmc;
		CHECK_OK(pms_selfmon_read(f.s, 0, &v));
		CHECK_MSG(v.value == rows[i].want, "row %zu: 0x%llx != 0x%llx", i,
			  (unsigned long long)v.value, (unsigned long long)rows[i].want);
		CHECK_EQ_INT(v.path, PMS_PATH_USER);
		CHECK_EQ_INT(v.why, PMS_WHY_NONE);
		CHECK_EQ_INT(f.h.last_counter, 2); /* index - 1 */
		CHECK_EQ_U64(v.enabled, 1000);
		CHECK_EQ_U64(v.running, 1000);
		teardown(&f);
	}
}

PMS_TEST(fallbacks_to_read)
{
	static const struct {
		uint32_t index;
		uint64_t caps;
		uint64_t running;
		bool no_user_read;
		enum pms_selfmon_why why;
	} rows[] = {
		{ 0, CAP_RDPMC, 1000, false, PMS_WHY_INDEX0 },
		{ 3, 0, 1000, false, PMS_WHY_NO_CAP },         /* software events */
		{ 3, CAP_RDPMC, 500, false, PMS_WHY_NO_TIME }, /* multiplexed, no time caps */
		{ 3, CAP_RDPMC, 1000, true, PMS_WHY_DISABLED },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct fixture f;
		struct pms_selfmon_value v;
		if (setup(&f, 0, rows[i].no_user_read) < 0)
			return;
		f.pc->index = rows[i].index;
		f.pc->capabilities = rows[i].caps;
		f.pc->time_running = rows[i].running;
		CHECK_OK(pms_selfmon_read(f.s, 0, &v));
		CHECK_MSG(v.path == PMS_PATH_SYSCALL && v.why == rows[i].why,
			  "row %zu: path %s why %s", i, pms_read_path_name(v.path),
			  pms_selfmon_why_name(v.why));
		CHECK_EQ_U64(v.value, 5555);
		CHECK_EQ_U64(v.enabled, 9000);
		teardown(&f);
	}
}

PMS_TEST(seqlock_retry)
{
	struct fixture f;
	struct pms_selfmon_value v;
	if (setup(&f, 0, false) < 0)
		return;
	f.pc->offset = 10;
	f.h.counter = 5;
	f.h.bump_lock = 2; /* two updates land inside the loop */
	CHECK_OK(pms_selfmon_read(f.s, 0, &v));
	CHECK_EQ_INT(v.retries, 2);
	CHECK_EQ_INT(f.h.calls, 3);
	CHECK_EQ_U64(v.value, 15);
	CHECK_EQ_INT(v.path, PMS_PATH_USER);
	teardown(&f);

	/* A lock that never settles: give up after max_retries, use read(). */
	if (setup(&f, 3, false) < 0)
		return;
	f.h.bump_lock = 1000;
	CHECK_OK(pms_selfmon_read(f.s, 0, &v));
	CHECK_EQ_INT(v.why, PMS_WHY_SEQ_RETRIES);
	CHECK_EQ_INT(v.path, PMS_PATH_SYSCALL);
	CHECK_EQ_INT(f.h.calls, 3);
	CHECK_EQ_U64(v.value, 5555);
	teardown(&f);
}

PMS_TEST(time_scaling)
{
	struct fixture f;
	struct pms_selfmon_value v;
	uint64_t cyc, delta;
	if (setup(&f, 0, false) < 0)
		return;
	f.pc->offset = 0;
	f.h.counter = 1000;
	f.pc->capabilities = CAP_RDPMC | CAP_TIME;
	f.pc->time_enabled = 1000;
	f.pc->time_running = 500;
	f.pc->time_offset = 10;
	f.pc->time_mult = 3;
	f.pc->time_shift = 1;
	f.h.cycles = 101;
	/* quot = 50, rem = 1: delta = 10 + 50*3 + (1*3 >> 1) = 161 */
	CHECK_OK(pms_selfmon_read(f.s, 0, &v));
	CHECK_EQ_INT(v.path, PMS_PATH_USER);
	CHECK_EQ_U64(v.enabled, 1161);
	CHECK_EQ_U64(v.running, 661);
	CHECK(v.scaled > 1756.42 && v.scaled < 1756.43); /* 1000 * 1161 / 661 */

	/* cap_user_time_short: the cycle count is rebased on time_cycles
	 * within time_mask before the same arithmetic. */
	f.pc->capabilities = CAP_RDPMC | CAP_TIME | CAP_TIME_SHORT;
	f.pc->time_cycles = 0x1000;
	f.pc->time_mask = 0xff;
	f.pc->time_shift = 2;
	f.pc->time_mult = 5;
	f.pc->time_offset = 0;
	f.h.cycles = 0x12345;
	cyc = 0x1000 + ((0x12345 - 0x1000) & 0xff);
	delta = (cyc >> 2) * 5 + (((cyc & 3) * 5) >> 2);
	CHECK_OK(pms_selfmon_read(f.s, 0, &v));
	CHECK_EQ_U64(v.enabled, 1000 + delta);
	CHECK_EQ_U64(v.running, 500 + delta);

	/* A large mult: the split into quot and rem keeps precision that
	 * (cyc * mult) >> shift would lose to overflow. */
	f.pc->capabilities = CAP_RDPMC | CAP_TIME;
	f.pc->time_mult = 0x80000000u;
	f.pc->time_shift = 31;
	f.pc->time_offset = 0;
	f.h.cycles = 0x123456789ULL; /* mult/2^shift = 1: delta = cycles */
	CHECK_OK(pms_selfmon_read(f.s, 0, &v));
	CHECK_EQ_U64(v.enabled, 1000 + 0x123456789ULL);
	teardown(&f);
}

/* arm64: config1 bit 1 (the PMU's "rdpmc" format term) only when
 * /proc/sys/kernel/perf_user_access is 1, and with it bit 0 ("long": a
 * 64-bit counter, pmc_width 64). */
PMS_TEST(arm64_user_access_request)
{
	for (int on = 0; on <= 1; on++) {
		struct ch_root r;
		struct pms_selfmon *s = NULL;
		if (ch_root_open(&r, "neoverse-n1-spe", 2, true) < 0)
			return;
		r.fk->rule = accept;
		ch_put(&r, "proc/sys/kernel/perf_user_access", on ? "1\n" : "0\n");
		CHECK_OK(pms_selfmon_open(r.sys, r.pmus, "cpu_cycles:u", NULL, &s));
		if (s) {
			CHECK_EQ_INT(pms_selfmon_arm64_access(s, 0), on);
			CHECK_EQ_INT(pms_selfmon_arm64_long(s, 0), on);
			CHECK_EQ_U64(r.fk->log[0].attr.config1, on ? 3 : 0);
			CHECK_EQ_INT(r.fk->nlog, 1);
			CHECK_EQ_INT(r.fk->log[0].pid, 0);
			CHECK_EQ_INT(r.fk->log[0].cpu, -1);
		}
		pms_selfmon_free(s);
		ch_root_close(&r);
	}
}

/* The armv8 PMU without 64-bit event counters (before PMUv3p5): user access
 * + long is EOPNOTSUPP except for CPU_CYCLES, which takes the 64-bit cycle
 * counter (armv8pmu map_event, drivers/perf/arm_pmuv3.c). */
static int no_long_events(struct fk *fk, const struct perf_event_attr *attr, pid_t pid, int cpu,
			  int group_fd, unsigned long flags)
{
	(void)fk;
	(void)pid;
	(void)cpu;
	(void)group_fd;
	(void)flags;
	if ((attr->config1 & 3) == 3 && (attr->config & 0xffff) != 0x11)
		return -EOPNOTSUPP;
	return 0;
}

PMS_TEST(arm64_long_refused_retries_without)
{
	struct ch_root r;
	struct pms_selfmon *s = NULL;
	if (ch_root_open(&r, "neoverse-n1-spe", 2, true) < 0)
		return;
	r.fk->rule = no_long_events;
	ch_put(&r, "proc/sys/kernel/perf_user_access", "1\n");
	CHECK_OK(pms_selfmon_open(r.sys, r.pmus, "cpu_cycles:u,inst_retired:u", NULL, &s));
	if (s) {
		CHECK_EQ_INT(r.fk->nlog, 3);
		CHECK_EQ_U64(r.fk->log[0].attr.config, 0x11);
		CHECK_EQ_U64(r.fk->log[0].attr.config1, 3);
		CHECK(r.fk->log[0].result >= 0);
		CHECK_EQ_U64(r.fk->log[1].attr.config, 0x8);
		CHECK_EQ_U64(r.fk->log[1].attr.config1, 3);
		CHECK_EQ_INT(r.fk->log[1].result, -EOPNOTSUPP);
		CHECK_EQ_U64(r.fk->log[2].attr.config, 0x8);
		CHECK_EQ_U64(r.fk->log[2].attr.config1, 2); /* user access kept */
		CHECK(r.fk->log[2].result >= 0);
		CHECK_EQ_INT(pms_selfmon_arm64_long(s, 0), 1);
		CHECK_EQ_INT(pms_selfmon_arm64_long(s, 1), 0);
		CHECK_EQ_INT(pms_selfmon_arm64_access(s, 1), 1);
		CHECK_EQ_INT(r.fk->nopen, 2);
	}
	pms_selfmon_free(s);
	ch_root_close(&r);

	/* Without user access there is no long to drop: EOPNOTSUPP is the
	 * answer, explained, and nothing is retried. */
	if (ch_root_open(&r, "neoverse-n1-spe", 2, true) < 0)
		return;
	r.fk->rule = no_long_events;
	ch_put(&r, "proc/sys/kernel/perf_user_access", "0\n");
	CHECK_OK(pms_selfmon_open(r.sys, r.pmus, "inst_retired:u", NULL, &s));
	CHECK_EQ_INT(r.fk->nlog, 1);
	CHECK_EQ_U64(r.fk->log[0].attr.config1, 0);
	pms_selfmon_free(s);
	ch_root_close(&r);
}

/* opts.no_arm64_long: user access with a 32-bit counter. */
PMS_TEST(arm64_no_long_option)
{
	struct ch_root r;
	struct pms_selfmon *s = NULL;
	struct pms_selfmon_opts o = PMS_SELFMON_OPTS_INIT;
	if (ch_root_open(&r, "neoverse-n1-spe", 2, true) < 0)
		return;
	r.fk->rule = accept;
	ch_put(&r, "proc/sys/kernel/perf_user_access", "1\n");
	o.no_arm64_long = true;
	CHECK_OK(pms_selfmon_open(r.sys, r.pmus, "cpu_cycles:u", &o, &s));
	if (s) {
		CHECK_EQ_U64(r.fk->log[0].attr.config1, 2);
		CHECK_EQ_INT(pms_selfmon_arm64_access(s, 0), 1);
		CHECK_EQ_INT(pms_selfmon_arm64_long(s, 0), 0);
	}
	pms_selfmon_free(s);
	ch_root_close(&r);
}

/* Reset of running counters goes DISABLE, RESET, ENABLE (the user page is
 * then rewritten when the counter is programmed again); of stopped ones,
 * RESET alone, and they stay stopped. */
PMS_TEST(reset_stops_running_counters)
{
	struct ch_root r;
	struct pms_selfmon *s = NULL;
	if (ch_root_open(&r, "zen4-ibs", 2, true) < 0)
		return;
	r.fk->rule = accept;
	CHECK_OK(pms_selfmon_open(r.sys, r.pmus, "cycles:u,instructions:u", NULL, &s));
	if (!s) {
		ch_root_close(&r);
		return;
	}
	static const struct {
		int (*op)(struct pms_selfmon *);
		const char *what;
		int count;           /* ioctls on each fd so far */
		unsigned long last;
	} steps[] = {
		{ pms_selfmon_reset, "reset while enabled", 3, PERF_EVENT_IOC_ENABLE },
		{ pms_selfmon_disable, "disable", 4, PERF_EVENT_IOC_DISABLE },
		{ pms_selfmon_reset, "reset while disabled", 5, PERF_EVENT_IOC_RESET },
		{ pms_selfmon_enable, "enable", 6, PERF_EVENT_IOC_ENABLE },
		{ pms_selfmon_reset, "reset after enable", 9, PERF_EVENT_IOC_ENABLE },
	};
	for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		CHECK_OK(steps[k].op(s));
		for (size_t i = 0; i < pms_selfmon_count(s); i++) {
			struct fk_fd *f = fk_fd(r.fk, pms_selfmon_fd(s, i));
			CHECK_MSG(f && f->ioctl_count == steps[k].count &&
					  f->ioctl_last == steps[k].last,
				  "step %zu (%s), counter %zu: %d ioctls, last 0x%lx", k,
				  steps[k].what, i, f ? f->ioctl_count : -1,
				  f ? f->ioctl_last : 0UL);
		}
	}
	pms_selfmon_free(s);
	ch_root_close(&r);
}

/* Hide pmu's events/ alias name (in place, same length) as QEMU's guest
 * kernel does for INST_RETIRED without -icount (PMCEID). */
static void hide_alias(struct pms_pmus *pmus, const char *pmu, const char *name)
{
	const struct pms_pmu *p = pms_pmu_find(pmus, pmu);
	CHECK(p != NULL);
	for (size_t i = 0; p && i < p->nevents; i++)
		if (!strcmp(p->events[i].name, name))
			p->events[i].name[0] = '_';
}

PMS_TEST(catalog_names_without_alias)
{
	struct ch_root r;
	struct pms_selfmon *s = NULL;
	struct pms_selfmon_opts o = PMS_SELFMON_OPTS_INIT;
	struct pms_catalog *empty = NULL;
	const struct pms_pmu *p;

	if (ch_root_open(&r, "neoverse-n1-spe", 2, true) < 0)
		return;
	r.fk->rule = accept;
	ch_put(&r, "proc/sys/kernel/perf_user_access", "1\n");
	hide_alias(r.pmus, "armv8_pmuv3_0", "inst_retired");
	p = pms_pmu_find(r.pmus, "armv8_pmuv3_0");
	/* NULL catalog on arm64 (the fixture has a MIDR): the built-in ARM
	 * PMUv3 table names INST_RETIRED (0x08) and BR_RETIRED (0x21, never an
	 * alias in this fixture). */
	CHECK_OK(pms_selfmon_open(r.sys, r.pmus, "cpu_cycles:u,inst_retired:u,br_retired:u", NULL,
				  &s));
	if (s && p) {
		static const uint64_t cfg[] = { 0x11, 0x8, 0x21 };
		CHECK_EQ_INT(r.fk->nlog, 3);
		for (int i = 0; i < 3 && i < r.fk->nlog; i++) {
			const struct perf_event_attr *a = &r.fk->log[i].attr;
			CHECK_MSG(a->type == p->type && a->config == cfg[i] && a->exclude_kernel &&
					  pms_selfmon_arm64_access(s, (size_t)i),
				  "event %d: type %u config 0x%llx", i, a->type,
				  (unsigned long long)a->config);
		}
	}
	pms_selfmon_free(s);
	s = NULL;

	/* The caller's catalog replaces the built-in table: an empty one
	 * leaves the name unknown. */
	CHECK_OK(pms_catalog_new(&empty));
	o.catalog = empty;
	CHECK(pms_selfmon_open(r.sys, r.pmus, "inst_retired:u", &o, &s) < 0);
	CHECK(s == NULL);
	/* A version-1 caller's struct has no catalog field: never read. */
	o.version = 1;
	CHECK_OK(pms_selfmon_open(r.sys, r.pmus, "inst_retired:u", &o, &s));
	pms_selfmon_free(s);
	s = NULL;
	o.version = PMS_SELFMON_OPTS_VERSION + 1;
	CHECK_EQ_INT(pms_selfmon_open(r.sys, r.pmus, "cpu_cycles:u", &o, &s), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "version") != NULL);
	pms_catalog_free(empty);
	ch_root_close(&r);

	/* Not arm64 (x86 fixture, no MIDR): no ARM names. */
	if (ch_root_open(&r, "zen4-ibs", 2, true) < 0)
		return;
	r.fk->rule = accept;
	CHECK(pms_selfmon_open(r.sys, r.pmus, "br_retired:u", NULL, &s) < 0);
	CHECK(s == NULL);
	CHECK_EQ_INT(r.fk->nlog, 0);
	ch_root_close(&r);
}

PMS_TEST(open_error_names_cause)
{
	struct ch_root r;
	struct pms_selfmon *s = NULL;
	if (ch_root_open(&r, "zen4-ibs", 2, false) < 0)
		return;
	/* The fake's real rules: paranoid 2 refuses counting the kernel. */
	CHECK_EQ_INT(pms_selfmon_open(r.sys, r.pmus, "page-faults", NULL, &s), PMS_EPERM);
	CHECK(strstr(pms_error_last(), "perf_event_paranoid is 2") != NULL);
	CHECK(s == NULL);
	CHECK_EQ_INT(r.fk->nopen, 0);
	ch_root_close(&r);
}

PMS_TEST_MAIN()
