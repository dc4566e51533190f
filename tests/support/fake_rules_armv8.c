/* Arm PMUv3 core PMUs (drivers/perf/arm_pmu.c and drivers/perf/arm_pmuv3.c,
 * Linux 6.12.117 as Debian's linux-source-6.12 ships it): event init and the
 * group check that decides whether a group fits the PMU's counters. */
#include "fake_rules.h"

#include <errno.h>
#include <string.h>

#define A8_CYCLE_IDX 31 /* include/linux/perf/arm_pmuv3.h:10 */
#define A8_INSTR_IDX 32 /* include/linux/perf/arm_pmuv3.h:11 */
#define A8_MAX_GENERAL 31 /* include/linux/perf/arm_pmuv3.h:9 */

/* The event number the driver programs (PMEVTYPER.evtCount, 16 bits):
 * PERF_TYPE_HARDWARE through armv8_pmuv3_perf_map (arm_pmuv3.c:43-53; branch-instructions BR_RETIRED),
 * raw and the PMU's own type from config:0-15.  -1: not mapped (ENOENT). */
static int a8_event(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_HARDWARE) {
		static const int map[] = { 0x11, 0x08, 0x04, 0x03, 0x21, 0x10, 0x1d, 0x23, 0x24 };
		uint32_t id = (uint32_t)a->config;
		return id < sizeof(map) / sizeof(map[0]) ? map[id] : -1;
	}
	if (a->type == PERF_TYPE_HW_CACHE)
		return 0x04; /* L1D_CACHE: any cache event takes a general counter */
	return (int)(a->config & 0xffff);
}

static bool a8_long(const struct perf_event_attr *a)
{
	return a->config1 & 1; /* format "long" = config1:0 (arm_pmuv3.c:304-306, 329-332) */
}

static bool a8_user(const struct perf_event_attr *a)
{
	return a->config1 & 2; /* format "rdpmc" = config1:1 (arm_pmuv3.c:307-309, 334-337) */
}

/* armv8pmu_get_event_idx() (arm_pmuv3.c:929-967) on a used mask; the
 * cycle counter first for CPU_CYCLES, PMICNTR for INST_RETIRED without
 * user access, then one counter, or an even/odd pair for a chained 64-bit
 * event (armv8pmu_get_chain_idx(), :906-927; chained when 64-bit, no user
 * read and no PMUv3p5 long counters, :477-486).  -1 = EAGAIN. */
static int a8_get_idx(const struct fkr_armv8_pmu *p, uint64_t *used, const struct perf_event_attr *a)
{
	int ev = a8_event(a);
	bool chained = a8_long(a) && !a8_user(a) && !p->pmuv3p5;
	if (ev == 0x11) {
		if (!(*used & (1ULL << A8_CYCLE_IDX))) {
			*used |= 1ULL << A8_CYCLE_IDX;
			return A8_CYCLE_IDX;
		}
		if (a8_long(a) && a8_user(a) && !p->pmuv3p5)
			return -1;
	}
	if (ev == 0x08 && p->icntr && !a8_user(a) && !(*used & (1ULL << A8_INSTR_IDX))) {
		*used |= 1ULL << A8_INSTR_IDX;
		return A8_INSTR_IDX;
	}
	for (int i = 0; i < p->pmcr_n && i < A8_MAX_GENERAL; i++) {
		if (chained) {
			if (!(i & 1) || (*used & (1ULL << i)))
				continue;
			if (*used & (1ULL << (i - 1)))
				continue;
			*used |= (1ULL << i) | (1ULL << (i - 1));
			return i;
		}
		if (!(*used & (1ULL << i))) {
			*used |= 1ULL << i;
			return i;
		}
	}
	return -1;
}

static bool a8_is_sw(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE;
}

/* validate_event() (arm_pmu.c:361-386): software events pass, another PMU
 * fails, an OFF event that will not be enabled at exec is not counted. */
static int a8_validate(const struct fkr_armv8_pmu *p, uint64_t *used,
		       const struct perf_event_attr *a, bool off)
{
	if (a8_is_sw(a))
		return 1;
	if (a->type != p->type && a->type != PERF_TYPE_HARDWARE && a->type != PERF_TYPE_RAW &&
	    a->type != PERF_TYPE_HW_CACHE)
		return 0;
	if (off && !a->enable_on_exec)
		return 1;
	return a8_get_idx(p, used, a) >= 0;
}

int fkr_armv8(struct fk *fk, const struct fkr_armv8_pmu *p, const struct perf_event_attr *attr,
	      pid_t pid, int cpu, int group_fd)
{
	int ev = a8_event(attr);
	uint64_t used = 0;
	/* armpmu_event_init() (arm_pmu.c:497-516): a CPU-bound event on a CPU
	 * of another class is ENOENT; no branch stack (EOPNOTSUPP). */
	if (p->cpus && cpu >= 0 && (cpu >= 64 || !(p->cpus & (1ULL << cpu))))
		return -ENOENT;
	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;
	if (ev < 0)
		return -ENOENT;
	/* armv8pmu_set_event_filter(): no idle filter (arm_pmuv3.c:999-1002). */
	if (attr->exclude_idle)
		return -EOPNOTSUPP;
	/* __armv8_pmuv3_map_event() (arm_pmuv3.c:1105-1156): CHAIN (0x1e) alone
	 * is EINVAL; user access needs a task event, and a 64-bit one other
	 * than CPU_CYCLES needs long counters (EOPNOTSUPP). */
	if (ev == 0x1e)
		return -EINVAL;
	if (a8_user(attr)) {
		if (pid == -1)
			return -EINVAL;
		if (a8_long(attr) && ev != 0x11 && !p->pmuv3p5)
			return -EOPNOTSUPP;
	}
	/* validate_group() (arm_pmu.c:388-415): the leader, its siblings, then
	 * the new event (INACTIVE while it is created: kernel/events/core.c
	 * perf_event_alloc, :12364) on an empty used mask; EINVAL when one
	 * does not get a counter. */
	if (group_fd != -1) {
		const struct fk_fd *lf = fk_fd(fk, group_fd);
		if (!lf)
			return -EBADF;
		if (!a8_validate(p, &used, &lf->attr, lf->attr.disabled && !lf->enabled))
			return -EINVAL;
		for (int i = 0; i < FK_MAX_FDS; i++) {
			const struct fk_fd *s = &fk->fds[i];
			if (!s->used || s->group_fd != group_fd)
				continue;
			if (!a8_validate(p, &used, &s->attr, s->attr.disabled && !s->enabled))
				return -EINVAL;
		}
	}
	if (!a8_validate(p, &used, attr, false))
		return -EINVAL;
	return 0;
}
