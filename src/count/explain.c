/* perf_event_open errno -> a message naming the cause from the machine.
 *
 * Each errno has a row: its PMS_E* code, what the kernel means by it, and a
 * function that adds what this machine says (paranoid value, capabilities,
 * fd limit ...).  The meanings follow kernel/events/core.c (v6.x-7.x):
 * perf_event_open(), perf_copy_attr(), perf_init_event(), find_get_context(). */
#include "count/explain.h"

#include "pmuscope/event.h"
#include "pmuscope/topo.h"
#include "util/error.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

struct sbuf {
	char *p;
	size_t size, len;
};

static void put(struct sbuf *b, const char *fmt, ...) PMS_PRINTF(2, 3);
static void put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	if (b->len >= b->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->size - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len = b->len + (size_t)n < b->size ? b->len + (size_t)n : b->size - 1;
}

int pms_count_paranoid(const struct pms_sys *sys)
{
	int r;
	if (pms_sys_perf_paranoid(sys, &r) < 0)
		r = INT_MIN;
	pms_error_clear();
	return r;
}

/* What each paranoid level lets an unprivileged process do
 * (Documentation/admin-guide/sysctl/kernel.rst, perf_event_paranoid). */
static const struct {
	int level;
	const char *meaning;
} paranoid_levels[] = {
	{ -1, "no restrictions" },
	{ 0, "CPU-wide events allowed, raw tracepoint data needs CAP_PERFMON" },
	{ 1, "kernel and user counting of own tasks; CPU-wide events need CAP_PERFMON" },
	{ 2, "user-space counting of own tasks only; kernel and CPU-wide need CAP_PERFMON" },
	/* Debian / Android carry a patch adding level 3+ (no perf_event_open
	 * at all without CAP_PERFMON / CAP_SYS_ADMIN). */
	{ 3, "perf_event_open refused to unprivileged users (distribution patch)" },
};

static const char *paranoid_meaning(int level)
{
	const char *m = paranoid_levels[0].meaning;
	for (size_t i = 0; i < sizeof(paranoid_levels) / sizeof(paranoid_levels[0]); i++)
		if (level >= paranoid_levels[i].level)
			m = paranoid_levels[i].meaning;
	return m;
}

/* CapEff bits (include/uapi/linux/capability.h): CAP_SYS_ADMIN 21,
 * CAP_PERFMON 38.  -1 when the status file cannot be read. */
static int has_cap(const struct pms_sys *sys, int bit)
{
	char *text = NULL, *p;
	int r = -1;
	if (pms_sys_read_file(sys, "proc/self/status", &text, NULL) >= 0 &&
	    (p = strstr(text, "CapEff:")) != NULL) {
		unsigned long long caps = strtoull(p + 7, NULL, 16);
		r = (int)((caps >> bit) & 1);
	}
	free(text);
	pms_error_clear();
	return r;
}

static const char *yesno(int v)
{
	return v < 0 ? "unknown" : v ? "yes" : "no";
}

static void why_privilege(const struct pms_sys *sys, const struct pms_pmus *pmus,
			  const struct perf_event_attr *a, const struct pms_open_ctx *c,
			  struct sbuf *b)
{
	int level = pms_count_paranoid(sys);
	int perfmon = has_cap(sys, 38), admin = has_cap(sys, 21);
	(void)pmus;
	if (level == INT_MIN)
		put(b, "perf_event_paranoid could not be read");
	else
		put(b, "perf_event_paranoid is %d (%s)", level, paranoid_meaning(level));
	put(b, "; CAP_PERFMON: %s, CAP_SYS_ADMIN: %s", yesno(perfmon), yesno(admin));
	if (c->pid == -1 && level != INT_MIN && level > 0)
		put(b, "; counting on a CPU (system-wide, uncore) needs perf_event_paranoid <= 0 "
		       "or CAP_PERFMON");
	if (!a->exclude_kernel && level != INT_MIN && level > 1)
		put(b, "; counting the kernel needs perf_event_paranoid <= 1: add ':u' to count "
		       "user space only");
	put(b, "; to allow more: sysctl -w kernel.perf_event_paranoid=<level>, or run with "
	       "CAP_PERFMON");
}

static bool hardware_type(const struct perf_event_attr *a, const struct pms_pmus *pmus)
{
	const struct pms_pmu *p;
	if (a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	    a->type == PERF_TYPE_RAW)
		return true;
	p = pmus ? pms_pmu_find_type(pmus, a->type) : NULL;
	return p && p->kind != PMS_PMU_SOFTWARE && p->kind != PMS_PMU_TRACEPOINT &&
	       p->kind != PMS_PMU_BREAKPOINT;
}

/* A VM without a virtual PMU: hypervisor flag and no core PMU in sysfs. */
static bool vm_without_pmu(const struct pms_sys *sys, const struct pms_pmus *pmus,
			   const struct perf_event_attr *a, struct sbuf *b)
{
	if (!hardware_type(a, pmus) || (pmus && pms_pmus_core_count(pmus) > 0))
		return false;
	char hv[96];
	if (pms_hypervisor_detect(sys, hv, sizeof(hv)))
		put(b, "this is a virtual machine (%s) without a "
		       "virtual PMU (no core PMU in /sys/bus/event_source/devices): hardware "
		       "events cannot be counted here; use software events (task-clock, "
		       "page-faults, context-switches) or enable the vPMU in the hypervisor", hv);
	else
		put(b, "no core PMU in /sys/bus/event_source/devices: this kernel or CPU "
		       "exposes no hardware counters; software events still work");
	return true;
}

static void why_noent(const struct pms_sys *sys, const struct pms_pmus *pmus,
		      const struct perf_event_attr *a, const struct pms_open_ctx *c,
		      struct sbuf *b)
{
	if (vm_without_pmu(sys, pmus, a, b))
		return;
	if (a->type > PERF_TYPE_BREAKPOINT && pmus && !pms_pmu_find_type(pmus, a->type))
		put(b, "no PMU with type %u in /sys/bus/event_source/devices", a->type);
	else
		put(b, "the kernel knows no such event on %s (type=%u, config=0x%llx): the "
		       "event does not exist on this CPU or kernel",
		    c->pmu ? c->pmu : "this PMU", a->type, (unsigned long long)a->config);
}

static void why_nodev(const struct pms_sys *sys, const struct pms_pmus *pmus,
		      const struct perf_event_attr *a, const struct pms_open_ctx *c,
		      struct sbuf *b)
{
	if (vm_without_pmu(sys, pmus, a, b))
		return;
	put(b, "%s does not count on cpu %d (on hybrid / big.LITTLE machines an event "
	       "belongs to one core type's CPUs)", c->pmu ? c->pmu : "the PMU", c->cpu);
}

static void why_notsup(const struct pms_sys *sys, const struct pms_pmus *pmus,
		       const struct perf_event_attr *a, const struct pms_open_ctx *c,
		       struct sbuf *b)
{
	int n = 0;
	(void)c;
	if (vm_without_pmu(sys, pmus, a, b))
		return;
	put(b, "the PMU does not support a requested feature; set:");
	/* drivers/perf/arm_pmuv3.c armv8pmu_set_event_filter(): exclude_idle
	 * is EOPNOTSUPP on Arm. */
	if (a->exclude_idle) {
		put(b, " exclude_idle (Arm PMUs refuse it)");
		n++;
	}
	/* is_sampling_event(): uncore and other counting-only PMUs refuse a
	 * sample period (e.g. arch/x86/events/intel/uncore.c). */
	if (a->sample_period) {
		put(b, "%s sampling (%s=%llu; counting-only PMUs refuse it)", n ? "," : "",
		    a->freq ? "sample_freq" : "sample_period",
		    (unsigned long long)a->sample_period);
		n++;
	}
	if (a->branch_sample_type) {
		put(b, "%s branch_sample_type", n ? "," : "");
		n++;
	}
	if (a->precise_ip) {
		put(b, "%s precise_ip=%u", n ? "," : "", a->precise_ip);
		n++;
	}
	if (a->exclude_hv || a->exclude_host || a->exclude_guest) {
		put(b, "%s exclude_hv/host/guest", n ? "," : "");
		n++;
	}
	if (!n)
		put(b, " (no optional feature set: the event itself is unsupported)");
}

static void why_inval(const struct pms_sys *sys, const struct pms_pmus *pmus,
		      const struct perf_event_attr *a, const struct pms_open_ctx *c,
		      struct sbuf *b)
{
	char desc[384];
	const struct pms_pmu *p = pmus ? pms_pmu_find_type(pmus, a->type) : NULL;
	(void)sys;
	pms_event_attr_describe(a, desc, sizeof(desc));
	put(b, "the kernel or PMU driver rejected the attr; fields set: %s", desc);
	if (p && p->has_cpumask && c->cpu >= 0 && pms_cpuset_count(&p->cpus) > 0 &&
	    !pms_cpuset_has(&p->cpus, c->cpu))
		put(b, "; cpu %d is not in %s's cpumask", c->cpu, p->name);
	if (p && p->kind == PMS_PMU_UNCORE && c->pid != -1)
		put(b, "; uncore PMUs count per CPU only, not per task");
	put(b, "; a group larger than the PMU's counters is also EINVAL; 'dmesg | grep -i "
	       "perf' may say more");
}

static void rlim_str(rlim_t v, char *buf, size_t size)
{
	if (v == RLIM_INFINITY)
		snprintf(buf, size, "unlimited");
	else
		snprintf(buf, size, "%llu", (unsigned long long)v);
}

/* "Max open files   <soft>   <hard>   files" from proc/self/limits.  With
 * no fd left that file cannot be opened: a live context then asks
 * getrlimit(), which needs none. */
static void fd_limits(const struct pms_sys *sys, char *soft, char *hard, size_t size)
{
	char *text = NULL, *p;
	struct rlimit rl;
	snprintf(soft, size, "unknown");
	snprintf(hard, size, "unknown");
	if (pms_sys_read_file(sys, "proc/self/limits", &text, NULL) >= 0 &&
	    (p = strstr(text, "Max open files")) != NULL) {
		char s[32], h[32];
		if (sscanf(p + 14, "%31s %31s", s, h) == 2) {
			snprintf(soft, size, "%s", s);
			snprintf(hard, size, "%s", h);
		}
	} else if (pms_sys_is_live(sys) && getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rlim_str(rl.rlim_cur, soft, size);
		rlim_str(rl.rlim_max, hard, size);
	}
	free(text);
	pms_error_clear();
}

static void why_mfile(const struct pms_sys *sys, const struct pms_pmus *pmus,
		      const struct perf_event_attr *a, const struct pms_open_ctx *c,
		      struct sbuf *b)
{
	char soft[32], hard[32];
	(void)pmus;
	(void)a;
	fd_limits(sys, soft, hard, sizeof(soft));
	put(b, "the per-process open-file limit is reached (RLIMIT_NOFILE soft %s, hard %s) "
	       "with %d counter fds open (one per event per CPU or thread); raise it with "
	       "'ulimit -n <n>' (up to the hard limit) or count fewer events or CPUs",
	    soft, hard, c->nopen);
}

static void why_nfile(const struct pms_sys *sys, const struct pms_pmus *pmus,
		      const struct perf_event_attr *a, const struct pms_open_ctx *c,
		      struct sbuf *b)
{
	(void)sys;
	(void)pmus;
	(void)a;
	put(b, "the system-wide file table is full (fs.file-max) with %d counter fds open here",
	    c->nopen);
}

static void why_busy(const struct pms_sys *sys, const struct pms_pmus *pmus,
		     const struct perf_event_attr *a, const struct pms_open_ctx *c,
		     struct sbuf *b)
{
	(void)sys;
	(void)pmus;
	(void)c;
	put(b, "the counter is held by someone else (an exclusive or pinned event, the NMI "
	       "watchdog, or a tool owning the PMU)%s",
	    a->exclusive ? "; this event asked for exclusive use" : "");
}

static void why_srch(const struct pms_sys *sys, const struct pms_pmus *pmus,
		     const struct perf_event_attr *a, const struct pms_open_ctx *c,
		     struct sbuf *b)
{
	(void)sys;
	(void)pmus;
	(void)a;
	put(b, "no process or thread %d (it may have exited)", (int)c->pid);
}

static void why_2big(const struct pms_sys *sys, const struct pms_pmus *pmus,
		     const struct perf_event_attr *a, const struct pms_open_ctx *c,
		     struct sbuf *b)
{
	(void)sys;
	(void)pmus;
	(void)c;
	put(b, "the kernel is older than this attr (size %u): a field it does not know is set",
	    a->size);
}

typedef void (*why_fn)(const struct pms_sys *, const struct pms_pmus *,
		       const struct perf_event_attr *, const struct pms_open_ctx *,
		       struct sbuf *);

static const struct {
	int err;
	int code;
	why_fn why;
} causes[] = {
	{ EACCES, PMS_EPERM, why_privilege },  /* perf_allow_kernel/cpu/tracepoint */
	{ EPERM, PMS_EPERM, why_privilege },   /* perfmon_capable() checks */
	{ ENOENT, PMS_ENOENT, why_noent },     /* perf_init_event(): no PMU took it */
	{ ENODEV, PMS_ENOENT, why_nodev },     /* PMU not on this CPU */
	{ EOPNOTSUPP, PMS_ENOTSUP, why_notsup },
	{ EINVAL, PMS_EINVAL, why_inval },
	{ EMFILE, PMS_EBUSY, why_mfile },
	{ ENFILE, PMS_EBUSY, why_nfile },
	{ EBUSY, PMS_EBUSY, why_busy },
	{ ESRCH, PMS_ENOENT, why_srch },
	{ E2BIG, PMS_ERANGE, why_2big },
};

int pms_count_explain(const struct pms_sys *sys, const struct pms_pmus *pmus,
		      const struct perf_event_attr *attr, const struct pms_open_ctx *ctx,
		      int err)
{
	char text[900];
	struct sbuf b = { text, sizeof(text), 0 };
	int code = 0;

	text[0] = '\0';
	put(&b, "perf_event_open '%s'", ctx->event ? ctx->event : "?");
	if (ctx->pmu)
		put(&b, " on %s", ctx->pmu);
	if (ctx->pid != -1)
		put(&b, " for pid %d", (int)ctx->pid);
	if (ctx->cpu != -1)
		put(&b, " on cpu %d", ctx->cpu);
	put(&b, ": ");
	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		if (causes[i].err == err) {
			causes[i].why(sys, pmus, attr, ctx, &b);
			code = causes[i].code;
			break;
		}
	if (!code)
		put(&b, "unexpected error from the kernel");
	return pms_err_errno(code, err, "%s", text);
}
