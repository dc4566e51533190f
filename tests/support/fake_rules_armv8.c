/* Arm PMUv3 core PMUs (drivers/perf/arm_pmu.c and drivers/perf/arm_pmuv3.c,
 * Linux 6.12.117 as Debian's linux-source-6.12 ships it): event init and the
 * group check that decides whether a group fits the PMU's counters. */
#include "fake_rules.h"

#include <errno.h>
#include <string.h>

#define A8_CYCLE_IDX 31 /* include/linux/perf/arm_pmuv3.h:10 */
#define A8_INSTR_IDX 32 /* include/linux/perf/arm_pmuv3.h:11 */
#define A8_MAX_GENERAL 31 /* include/linux/perf/arm_pmuv3.h:9 */

/* The driver's generic maps (drivers/perf/arm_pmuv3.c, Linux 6.12:
 * armv8_pmuv3_perf_map and armv8_pmuv3_perf_cache_map; in v7.1-rc6 at
 * :45-160 per seed 004), written here from the kernel source independently
 * of the library's table.  Cache slots: cache | op << 8 | result << 16. */
static int a8_hw(uint32_t id)
{
	switch (id) {
	case PERF_COUNT_HW_CPU_CYCLES: return 0x11;
	case PERF_COUNT_HW_INSTRUCTIONS: return 0x08;
	case PERF_COUNT_HW_CACHE_REFERENCES: return 0x04;
	case PERF_COUNT_HW_CACHE_MISSES: return 0x03;
	case PERF_COUNT_HW_BRANCH_INSTRUCTIONS: return 0x0c;
	case PERF_COUNT_HW_BRANCH_MISSES: return 0x10;
	case PERF_COUNT_HW_BUS_CYCLES: return 0x1d;
	case PERF_COUNT_HW_STALLED_CYCLES_FRONTEND: return 0x23;
	case PERF_COUNT_HW_STALLED_CYCLES_BACKEND: return 0x24;
	}
	return -1;
}

static int a8_cache(uint32_t slot, int map)
{
	/* L1D=0 L1I=1 LL=2 DTLB=3 ITLB=4 BPU=5 NODE=6; READ=0 WRITE=1
	 * PREFETCH=2; ACCESS=0 MISS=1 */
	static const struct { uint32_t slot; int ev; } generic[] = {
		{ 0x00000, 0x04 }, { 0x10000, 0x03 }, { 0x00001, 0x14 }, { 0x10001, 0x01 },
		{ 0x10003, 0x05 }, { 0x00003, 0x25 }, { 0x10004, 0x02 }, { 0x00004, 0x26 },
		{ 0x10002, 0x37 }, { 0x00002, 0x36 }, { 0x00005, 0x12 }, { 0x10005, 0x10 },
	}, a53[] = {
		{ 0x10200, 0xc2 }, { 0x00006, 0x60 }, { 0x00106, 0x61 },
	}, a57[] = {
		{ 0x00000, 0x40 }, { 0x10000, 0x42 }, { 0x00100, 0x41 }, { 0x10100, 0x43 },
		{ 0x10003, 0x4c }, { 0x10103, 0x4d }, { 0x00006, 0x60 }, { 0x00106, 0x61 },
	};
#define A8_FIND(t) for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) \
		if (t[i].slot == slot) return t[i].ev
	if (map == 0) { A8_FIND(generic); }
	if (map == FKR_A8_EXTRA_A53) { A8_FIND(a53); }
	if (map == FKR_A8_EXTRA_A57) { A8_FIND(a57); }
#undef A8_FIND
	return -1;
}

static bool a8_pmceid(const struct fkr_armv8_pmu *p, int ev)
{
	return ev >= 0 && ev < 0x40 && !(p->pmceid_absent & (1ULL << ev));
}

/* __armv8_pmuv3_map_event_id + __armv8_pmuv3_map_event (v6.12; v7.1-rc6
 * :1198-1214, :1275-1300): branch-instructions is BR_RETIRED, else
 * PC_WRITE_RETIRED, by PMCEID; a common event is used only when PMCEID has
 * it, else the extra maps decide (a NULL extra event map: ENOENT);
 * armpmu_map_hw_event/armpmu_map_cache_event (arm_pmu.c): past the enums
 * EINVAL; raw and the PMU's own type: config:0-15. */
int fkr_armv8_event(const struct fkr_armv8_pmu *p, const struct perf_event_attr *a)
{
	uint32_t c = (uint32_t)a->config;
	int ev;
	if (a->type == PERF_TYPE_HARDWARE) {
		if (c >= PERF_COUNT_HW_MAX)
			return -EINVAL;
		if (c == PERF_COUNT_HW_BRANCH_INSTRUCTIONS)
			ev = a8_pmceid(p, 0x21) ? 0x21 : a8_pmceid(p, 0x0c) ? 0x0c : -1;
		else
			ev = a8_hw(c);
		return ev > 0 && a8_pmceid(p, ev) ? ev : -ENOENT;
	}
	if (a->type == PERF_TYPE_HW_CACHE) {
		if ((c & 0xff) >= PERF_COUNT_HW_CACHE_MAX ||
		    ((c >> 8) & 0xff) >= PERF_COUNT_HW_CACHE_OP_MAX ||
		    ((c >> 16) & 0xff) >= PERF_COUNT_HW_CACHE_RESULT_MAX)
			return -EINVAL;
		ev = a8_cache(c & 0xffffff, 0);
		if (ev > 0 && a8_pmceid(p, ev))
			return ev;
		ev = p->extra_cache ? a8_cache(c & 0xffffff, (int)p->extra_cache) : -1;
		return ev >= 0 ? ev : -ENOENT;
	}
	return (int)(a->config & 0xffff);
}

static int a8_event(const struct fkr_armv8_pmu *p, const struct perf_event_attr *a)
{
	int ev = fkr_armv8_event(p, a);
	return ev < 0 ? -1 : ev;
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
	int ev = a8_event(p, a);
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
	int ev = fkr_armv8_event(p, attr);
	uint64_t used = 0;
	/* armpmu_event_init() (arm_pmu.c:497-516): a CPU-bound event on a CPU
	 * of another class is ENOENT; no branch stack (EOPNOTSUPP). */
	if (p->cpus && cpu >= 0 && (cpu >= 64 || !(p->cpus & (1ULL << cpu))))
		return -ENOENT;
	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK) {
		/* with FEAT_BRBE (6.17 arm_pmuv3.c armv8pmu_event_init ->
		 * brbe_branch_attr_valid): fake_rules_branch.c's BRBE rules */
		const struct fkr_machine *m = fk ? fk->rule_ud : NULL;
		int nr = m ? m->armv8_brbe_nr : 0;
		struct fkr_pebs_pmu b = { .lbr_nr = nr, .branch_kind = FKR_BR_ARM_BRBE };
		int r = nr ? fkr_branch(m, &b, attr) : -EOPNOTSUPP;
		if (r < 0)
			return r;
	}
	if (ev < 0)
		return ev;
	/* armv8pmu_set_event_filter(): no idle filter (arm_pmuv3.c:999-1002). */
	if (attr->exclude_idle)
		return -EOPNOTSUPP;
	/* FEAT_PMUv3_TH (v6.12 armv8pmu_set_event_filter; v7.1-rc6
	 * :1142-1152): threshold = config1:5-16 above threshold_max is EINVAL */
	if (((attr->config1 >> 5) & 0xfff) > p->threshold_max)
		return -EINVAL;
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
