/* Self-monitoring: counters on the calling thread read from the mmap'd user
 * page (include/pmuscope/selfmon.h).  The read loop is the one documented
 * above struct perf_event_mmap_page in include/uapi/linux/perf_event.h;
 * kernel-abi-facts.md §1.3 has the offsets and capability bits. */
#include "pmuscope/selfmon.h"

#include "count/explain.h"
#include "pmuscope/catalog.h"
#include "pmuscope/event.h"
#include "util/error.h"
#include "util/opts.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC (1UL << 3)
#endif

/* capabilities word bits (include/uapi/linux/perf_event.h). */
#define CAP_USER_RDPMC (1ULL << 2)
#define CAP_USER_TIME (1ULL << 3)
#define CAP_USER_TIME_ZERO (1ULL << 4)
#define CAP_USER_TIME_SHORT (1ULL << 5)

struct sm_counter {
	char *name;
	int fd;
	void *page;
	size_t page_len;
	bool arm64_access;
	bool arm64_long;
};

struct pms_selfmon {
	struct pms_sys *sys;
	struct sm_counter *c;
	size_t n;
	struct pms_selfmon_opts opts;
	struct pms_selfmon_hooks hooks;
	bool have_user_read;
	bool enabled; /* as the last open/enable/disable left the counters */
};

/* ---- the instructions ------------------------------------------------ */

#if defined(__x86_64__) || defined(__i386__)
#define PMS_HAVE_USER_READ 1
/* rdpmc ECX = index - 1 (kernel-abi-facts §1.3: fixed counters carry bit 30
 * in the index the kernel publishes). */
static uint64_t hw_read_counter(void *ud, uint32_t counter)
{
	uint32_t lo, hi;
	(void)ud;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return ((uint64_t)hi << 32) | lo;
}

static uint64_t hw_read_cycles(void *ud)
{
	uint32_t lo, hi;
	(void)ud;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
#elif defined(__aarch64__)
#define PMS_HAVE_USER_READ 1
/* arm64 PMUv3 user access (Documentation/arch/arm64/perf.rst): counter
 * index - 1 is PMEVCNTR<n>_EL0 for n < 31 and PMCCNTR_EL0 for 31, the
 * numbering tools/lib/perf/mmap.c read_perf_counter() uses.  The register is
 * part of the instruction, hence one case per counter. */
#define PMS_PMEV(n)                                                              \
	case n:                                                                  \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v));       \
		break;
static uint64_t hw_read_counter(void *ud, uint32_t counter)
{
	uint64_t v = 0;
	(void)ud;
	switch (counter) {
		PMS_PMEV(0) PMS_PMEV(1) PMS_PMEV(2) PMS_PMEV(3) PMS_PMEV(4) PMS_PMEV(5)
		PMS_PMEV(6) PMS_PMEV(7) PMS_PMEV(8) PMS_PMEV(9) PMS_PMEV(10) PMS_PMEV(11)
		PMS_PMEV(12) PMS_PMEV(13) PMS_PMEV(14) PMS_PMEV(15) PMS_PMEV(16)
		PMS_PMEV(17) PMS_PMEV(18) PMS_PMEV(19) PMS_PMEV(20) PMS_PMEV(21)
		PMS_PMEV(22) PMS_PMEV(23) PMS_PMEV(24) PMS_PMEV(25) PMS_PMEV(26)
		PMS_PMEV(27) PMS_PMEV(28) PMS_PMEV(29) PMS_PMEV(30)
	case 31:
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	default:
		break;
	}
	return v;
}
#undef PMS_PMEV

/* The perf clock on arm64 is the virtual counter (time_mult/shift convert
 * it; arch/arm64/kernel/perf_event.c arch_perf_update_userpage). */
static uint64_t hw_read_cycles(void *ud)
{
	uint64_t v;
	(void)ud;
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
}
#else
#define PMS_HAVE_USER_READ 0
#endif

/* ---- open ------------------------------------------------------------ */

static const struct pms_pmu *event_pmu(const struct pms_pmus *pmus, const struct pms_event *ev)
{
	if (!pmus)
		return NULL;
	if (ev->pmu)
		return pms_pmu_find(pmus, ev->pmu);
	if ((ev->attr.type == PERF_TYPE_HARDWARE || ev->attr.type == PERF_TYPE_HW_CACHE ||
	     ev->attr.type == PERF_TYPE_RAW) && pms_pmus_core_count(pmus) == 1)
		return pms_pmus_core_for_cpu(pmus, 0);
	return NULL;
}

/* Set (on) or clear one single-bit format term of pmu in a. */
static bool format_term(const struct pms_pmu *pmu, const char *term, bool on,
			struct perf_event_attr *a)
{
	const struct pms_format *f = pmu ? pms_pmu_format(pmu, term) : NULL;
	if (!f || pms_format_attr_set(f, a, on ? 1 : 0) < 0) {
		pms_error_clear();
		return false;
	}
	return true;
}

/* arm64: ask for user access with the PMU's "rdpmc" format term (config1:1,
 * drivers/perf/arm_pmuv3.c; arch/arm64/kernel/perf_event.c before 6.4) when
 * /proc/sys/kernel/perf_user_access is 1. */
static bool arm64_user_access(struct pms_sys *sys, const struct pms_pmu *pmu,
			      struct perf_event_attr *a)
{
	uint64_t on = 0;
	if (!pmu || !pms_pmu_format(pmu, "rdpmc") ||
	    pms_sys_read_u64(sys, "proc/sys/kernel/perf_user_access", &on) < 0 || on != 1) {
		pms_error_clear();
		return false;
	}
	return format_term(pmu, "rdpmc", true, a);
}

/* The catalog names resolve through: the caller's, else on arm64 (a MIDR in
 * sysfs) the built-in ARM PMUv3 table -- what `pmuscope stat` does
 * (tools/cli_catalog.c) -- so a common event QEMU's PMCEID leaves out of
 * events/ ("inst_retired" without -icount) still has its name. */
static int parse_events(struct pms_sys *sys, const struct pms_pmus *pmus, const char *events,
			const struct pms_catalog *catalog, struct pms_event_list **list)
{
	struct pms_event_parse_opts po = PMS_EVENT_PARSE_OPTS_INIT;
	struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
	struct pms_catalog *own = NULL;
	char idbuf[64];
	int r;

	if (!catalog) {
		if (pms_catalog_identify(sys, 0, &sel, idbuf, sizeof(idbuf)) < 0 || !sel.has_midr)
			pms_error_clear(); /* not arm64: sysfs names only */
		else if ((r = pms_catalog_new(&own)) < 0 ||
			 (r = pms_catalog_add_arm_common(own)) < 0)
			goto out;
		catalog = own;
	}
	po.catalog = catalog;
	po.sys = sys;
	r = pms_event_parse_ex(pmus, events, &po, list);
out:
	pms_catalog_free(own);
	return r;
}

void pms_selfmon_free(struct pms_selfmon *s)
{
	const struct pms_sys_ops *ops;
	if (!s)
		return;
	ops = pms_sys_ops(s->sys);
	for (size_t i = 0; i < s->n; i++) {
		if (s->c[i].page)
			ops->munmap(ops->ud, s->c[i].page, s->c[i].page_len);
		if (s->c[i].fd >= 0)
			ops->close(ops->ud, s->c[i].fd);
		free(s->c[i].name);
	}
	free(s->c);
	free(s);
}

PMS_OPTS_LAYOUT(PMS_SELFMON_OPTS, struct pms_selfmon_opts,
		PMS_OPTS_END(struct pms_selfmon_opts, hooks),
		PMS_OPTS_END(struct pms_selfmon_opts, no_arm64_long));

int pms_selfmon_open(struct pms_sys *sys, const struct pms_pmus *pmus, const char *events,
		     const struct pms_selfmon_opts *opts, struct pms_selfmon **out)
{
	struct pms_selfmon_opts o;
	struct pms_event_list *list = NULL;
	struct pms_selfmon *s = NULL;
	const struct pms_sys_ops *ops;
	long psz = sysconf(_SC_PAGESIZE);
	int r;

	*out = NULL;
	if (!sys || !events)
		return pms_err(PMS_EINVAL, "pms_selfmon_open: missing sys or events");
	if ((r = PMS_OPTS_TAKE("pms_selfmon_open", PMS_SELFMON_OPTS, opts, &o)) < 0)
		return r;
	opts = &o; /* a version-1 caller's catalog and no_arm64_long: the defaults */
	ops = pms_sys_ops(sys);
	r = parse_events(sys, pmus, events, opts->catalog, &list);
	if (r < 0)
		return r;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->c = calloc(pms_event_list_count(list), sizeof(*s->c)))) {
		r = pms_err(PMS_ENOMEM, "out of memory for self-monitoring counters");
		goto out;
	}
	s->sys = sys;
	s->opts.version = PMS_SELFMON_OPTS_VERSION;
	s->opts.no_user_read = opts->no_user_read;
	s->opts.no_arm64_user_access = opts->no_arm64_user_access;
	s->opts.max_retries = opts->max_retries;
	s->opts.hooks = opts->hooks;
	if (!s->opts.max_retries)
		s->opts.max_retries = 1000;
	if (opts->hooks) {
		s->hooks = *opts->hooks;
		s->have_user_read = s->hooks.read_counter != NULL;
	} else {
#if PMS_HAVE_USER_READ
		s->hooks.read_counter = hw_read_counter;
		s->hooks.read_cycles = hw_read_cycles;
		s->have_user_read = true;
#endif
	}
	for (size_t i = 0; i < pms_event_list_count(list); i++) {
		const struct pms_event *ev = pms_event_list_at(list, i);
		struct sm_counter *c = &s->c[s->n];
		struct perf_event_attr a = ev->attr;
		void *page = NULL;
		int fd;

		c->fd = -1;
		c->name = strdup(ev->name);
		if (!c->name) {
			r = pms_err(PMS_ENOMEM, "out of memory");
			goto out;
		}
		s->n++;
		a.size = sizeof(a);
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.disabled = 0;
		a.inherit = 0;
		if (!opts->no_arm64_user_access) {
			const struct pms_pmu *pmu = event_pmu(pmus, ev);
			c->arm64_access = arm64_user_access(sys, pmu, &a);
			/* With user access, ask for a 64-bit counter ("long",
			 * config1:0): pmc_width is then 64 and the user page
			 * needs no sign extension.  With 32-bit counters Linux
			 * 6.1's armpmu_event_update (drivers/perf/arm_pmu.c)
			 * leaves prev_count zero-extended while
			 * armpmu_event_set_period stores it sign-extended, so a
			 * user page computed after a read (PERF_EVENT_IOC_RESET
			 * does one) is 2^32 off whenever bit 31 of the counter
			 * is set. */
			if (c->arm64_access && !opts->no_arm64_long)
				c->arm64_long = format_term(pmu, "long", true, &a);
		}
		fd = ops->perf_event_open(ops->ud, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd == -EOPNOTSUPP && c->arm64_long) {
			/* armv8pmu map_event refuses user access + long on a
			 * PMU without 64-bit event counters (no PMUv3p5) for
			 * anything but CPU_CYCLES (drivers/perf/arm_pmuv3.c;
			 * arch/arm64/kernel/perf_event.c in 6.1): a 32-bit
			 * counter then, pms_selfmon_reset copes with it. */
			format_term(event_pmu(pmus, ev), "long", false, &a);
			c->arm64_long = false;
			fd = ops->perf_event_open(ops->ud, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0) {
			struct pms_open_ctx ctx = { ev->name, ev->pmu, -1, 0, (int)i };
			r = pms_count_explain(sys, pmus, &a, &ctx, -fd);
			goto out;
		}
		c->fd = fd;
		/* One page: the user page alone, no ring (perf_mmap accepts a
		 * length of one page for counting events). */
		if (ops->mmap(ops->ud, (size_t)psz, PROT_READ, MAP_SHARED, fd, 0, &page) == 0) {
			c->page = page;
			c->page_len = (size_t)psz;
		}
	}
	s->enabled = true; /* opened with disabled = 0 */
	*out = s;
	s = NULL;
	r = 0;
out:
	pms_event_list_free(list);
	pms_selfmon_free(s);
	return r;
}

/* ---- read ------------------------------------------------------------ */

static int read_syscall(struct pms_selfmon *s, size_t i, struct pms_selfmon_value *v)
{
	const struct pms_sys_ops *ops = pms_sys_ops(s->sys);
	uint64_t buf[3];
	ssize_t got = ops->read(ops->ud, s->c[i].fd, buf, sizeof(buf));
	if (got < 0)
		return pms_err_errno(0, (int)-got, "read of '%s' (fd %d)", s->c[i].name,
				     s->c[i].fd);
	if (got != (ssize_t)sizeof(buf))
		return pms_err(PMS_EPARSE, "read of '%s' (fd %d) returned %zd bytes, expected %zu",
			       s->c[i].name, s->c[i].fd, got, sizeof(buf));
	v->value = buf[0];
	v->enabled = buf[1];
	v->running = buf[2];
	v->path = PMS_PATH_SYSCALL;
	return 0;
}

static void finish(struct pms_selfmon_value *v)
{
	if (v->running && v->running < v->enabled)
		v->scaled = (double)v->value * ((double)v->enabled / (double)v->running);
	else
		v->scaled = v->running ? (double)v->value : 0.0;
}

/* The kernel writes the page from the task's own CPU at schedule and update
 * time; a same-thread reader needs only compiler barriers around the
 * seqcount (the uapi comment's barrier()). */
#define PMS_BARRIER() __asm__ volatile("" ::: "memory")

int pms_selfmon_read(struct pms_selfmon *s, size_t i, struct pms_selfmon_value *out)
{
	const volatile struct perf_event_mmap_page *pc;
	uint64_t cap = 0, cyc = 0, time_offset = 0, time_cycles = 0, time_mask = 0;
	uint64_t enabled, running, count;
	uint32_t seq, idx = 0, time_mult = 0;
	uint16_t time_shift = 0;
	unsigned tries = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (i >= s->n)
		return pms_err(PMS_ERANGE, "no self-monitoring counter %zu (have %zu)", i, s->n);
	pc = s->c[i].page;
	out->why = s->opts.no_user_read ? PMS_WHY_DISABLED
		   : !pc                ? PMS_WHY_NO_MMAP
		   : !s->have_user_read ? PMS_WHY_NOT_BUILT
					: PMS_WHY_NONE;
	if (out->why != PMS_WHY_NONE)
		goto syscall;
	for (;;) {
		seq = pc->lock;
		PMS_BARRIER();
		enabled = pc->time_enabled;
		running = pc->time_running;
		cap = pc->capabilities;
		if ((cap & CAP_USER_TIME) && enabled != running && s->hooks.read_cycles) {
			cyc = s->hooks.read_cycles(s->hooks.ud);
			time_offset = pc->time_offset;
			time_mult = pc->time_mult;
			time_shift = pc->time_shift;
			time_cycles = pc->time_cycles;
			time_mask = pc->time_mask;
		}
		idx = pc->index;
		count = (uint64_t)pc->offset;
		if ((cap & CAP_USER_RDPMC) && idx) {
			uint16_t width = pc->pmc_width;
			uint64_t pmc = s->hooks.read_counter(s->hooks.ud, idx - 1);
			/* Sign-extend the width-bit reading: offset was computed
			 * against the sign-extended value (kernel-abi-facts §1.3). */
			if (width > 0 && width < 64)
				pmc = (uint64_t)((int64_t)(pmc << (64 - width)) >> (64 - width));
			count += pmc;
		}
		PMS_BARRIER();
		if (pc->lock == seq)
			break;
		if (++tries >= s->opts.max_retries) {
			out->why = PMS_WHY_SEQ_RETRIES;
			goto syscall;
		}
	}
	out->retries = tries;
	if (!(cap & CAP_USER_RDPMC)) {
		out->why = PMS_WHY_NO_CAP;
		goto syscall;
	}
	if (!idx) {
		/* Not on the PMU right now (inactive or multiplexed out):
		 * the page's offset is not the full count. */
		out->why = PMS_WHY_INDEX0;
		goto syscall;
	}
	if (enabled != running) {
		uint64_t quot, rem, delta;
		if (!(cap & CAP_USER_TIME) || !s->hooks.read_cycles) {
			out->why = PMS_WHY_NO_TIME;
			goto syscall;
		}
		if (cap & CAP_USER_TIME_SHORT)
			cyc = time_cycles + ((cyc - time_cycles) & time_mask);
		quot = time_shift < 64 ? cyc >> time_shift : 0;
		rem = time_shift < 64 ? cyc & ((1ULL << time_shift) - 1) : cyc;
		delta = time_offset + quot * time_mult + ((rem * time_mult) >> time_shift);
		enabled += delta;
		running += delta; /* index != 0: running now */
	}
	out->value = count;
	out->enabled = enabled;
	out->running = running;
	out->path = PMS_PATH_USER;
	finish(out);
	return 0;
syscall:
	r = read_syscall(s, i, out);
	if (r < 0)
		return r;
	finish(out);
	return 0;
}

static int ioctl_all(struct pms_selfmon *s, unsigned long req, const char *what)
{
	const struct pms_sys_ops *ops = pms_sys_ops(s->sys);
	for (size_t i = 0; i < s->n; i++) {
		int r = ops->ioctl(ops->ud, s->c[i].fd, req, 0);
		if (r < 0)
			return pms_err_errno(0, -r, "ioctl %s on '%s'", what, s->c[i].name);
	}
	return 0;
}

/* PERF_EVENT_IOC_RESET of a running event (kernel/events/core.c
 * _perf_event_reset) reads it -- the PMU's event_update, which on arm's PMUs
 * (drivers/perf/arm_pmu.c armpmu_event_update) stores prev_count as the
 * unsigned counter value -- then writes the user page with offset =
 * 0 - prev_count.  The page's documented read sign-extends the counter by
 * pmc_width, so with 32-bit arm64 counters (bit 31 set, as the kernel
 * starts them at 2^31 + 1) the sum comes out 2^32 low.  Stopping the counter
 * first avoids that page: the reset then finds it inactive (index 0), and
 * ENABLE programs it again through armpmu_event_set_period (x86:
 * x86_perf_event_set_period), which stores prev_count sign-extended and
 * writes the page.  Right for every width and architecture, at the cost of
 * two more ioctls per counter. */
int pms_selfmon_reset(struct pms_selfmon *s)
{
	int r;
	if (!s->enabled)
		return ioctl_all(s, PERF_EVENT_IOC_RESET, "PERF_EVENT_IOC_RESET");
	r = pms_selfmon_disable(s);
	if (r < 0)
		return r;
	r = ioctl_all(s, PERF_EVENT_IOC_RESET, "PERF_EVENT_IOC_RESET");
	if (r < 0)
		return r;
	return pms_selfmon_enable(s);
}

int pms_selfmon_enable(struct pms_selfmon *s)
{
	int r = ioctl_all(s, PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE");
	if (r == 0)
		s->enabled = true;
	return r;
}

int pms_selfmon_disable(struct pms_selfmon *s)
{
	int r = ioctl_all(s, PERF_EVENT_IOC_DISABLE, "PERF_EVENT_IOC_DISABLE");
	if (r == 0)
		s->enabled = false;
	return r;
}

size_t pms_selfmon_count(const struct pms_selfmon *s)
{
	return s->n;
}

const char *pms_selfmon_name(const struct pms_selfmon *s, size_t i)
{
	return i < s->n ? s->c[i].name : NULL;
}

int pms_selfmon_fd(const struct pms_selfmon *s, size_t i)
{
	return i < s->n ? s->c[i].fd : PMS_ERANGE;
}

void *pms_selfmon_page(const struct pms_selfmon *s, size_t i)
{
	return i < s->n ? s->c[i].page : NULL;
}

bool pms_selfmon_arm64_access(const struct pms_selfmon *s, size_t i)
{
	return i < s->n && s->c[i].arm64_access;
}

bool pms_selfmon_arm64_long(const struct pms_selfmon *s, size_t i)
{
	return i < s->n && s->c[i].arm64_long;
}

const char *pms_read_path_name(enum pms_read_path p)
{
	return p == PMS_PATH_USER ? "user" : "syscall";
}

const char *pms_selfmon_why_name(enum pms_selfmon_why w)
{
	static const char *const names[] = {
		[PMS_WHY_NONE] = "none",
		[PMS_WHY_NO_CAP] = "cap_user_rdpmc is 0",
		[PMS_WHY_INDEX0] = "index 0 (counter not on the PMU now)",
		[PMS_WHY_NO_MMAP] = "user page not mapped",
		[PMS_WHY_NOT_BUILT] = "no user-space read on this architecture",
		[PMS_WHY_DISABLED] = "user-space read disabled by option",
		[PMS_WHY_SEQ_RETRIES] = "seqlock kept changing",
		[PMS_WHY_NO_TIME] = "multiplexed without cap_user_time",
	};
	return (unsigned)w < sizeof(names) / sizeof(names[0]) ? names[w] : "?";
}
