/* Apple M1/M2 core PMUs (drivers/perf/apple_m1_cpu_pmu.c at torvalds/linux
 * 0401bbf5, and drivers/perf/arm_pmu.c validate_group): the event number
 * (m1_pmu_map_event: m1_pmu_perf_map for cycles/instructions, no cache map,
 * config:0-7 otherwise), the guest filter rule of m1_pmu_set_event_filter
 * and the placement of m1_pmu_get_event_idx, written here from the driver
 * independently of src/catalog/apple.c. */
#include "fake_rules.h"

#include <errno.h>

static int ap_event(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_HARDWARE)
		return (uint32_t)a->config == PERF_COUNT_HW_CPU_CYCLES     ? 0x02
		       : (uint32_t)a->config == PERF_COUNT_HW_INSTRUCTIONS ? 0x8c
									   : -1;
	if (a->type == PERF_TYPE_HW_CACHE)
		return -1;
	return (int)(a->config & 0xff);
}

/* m1_pmu_event_affinity: counters 2-9 by default; the driver's exceptions */
static unsigned ap_affinity(int ev)
{
	switch (ev) {
	case 0x01: case 0x96: case 0x97: case 0x9a: case 0x9b: case 0x9f:
		return 1u << 7;
	case 0x02:
		return 0x3fcu | 1u;
	case 0x8c:
		return (1u << 7) | (1u << 1);
	case 0x8d: case 0x8e: case 0x8f: case 0x90: case 0x93: case 0x94: case 0x95:
	case 0x98: case 0x99: case 0x9c: case 0xbf: case 0xc0: case 0xc1: case 0xc4:
	case 0xc5: case 0xc6: case 0xc8: case 0xca: case 0xcb:
		return 0xe0u;
	case 0xf5: case 0xf6: case 0xf7: case 0xfd:
		return (1u << 2) | (1u << 4) | (1u << 6);
	case 0xf8:
		return 0xfcu;
	}
	return 0x3fcu;
}

static bool ap_take(unsigned *used, const struct perf_event_attr *a)
{
	unsigned aff = ap_affinity(ap_event(a));
	for (int i = 0; i < 10; i++)
		if ((aff >> i & 1) && !(*used >> i & 1)) {
			*used |= 1u << i;
			return true;
		}
	return false;
}

/* validate_event() (arm_pmu.c): software events pass, another PMU fails,
 * an OFF event not enabled at exec is not counted. */
static int ap_validate(const struct fkr_apple_pmu *p, unsigned *used,
		       const struct perf_event_attr *a, bool off)
{
	if (a->type == PERF_TYPE_SOFTWARE)
		return 1;
	if (a->type != p->type && a->type != PERF_TYPE_HARDWARE && a->type != PERF_TYPE_RAW)
		return 0;
	if (off && !a->enable_on_exec)
		return 1;
	return ap_take(used, a);
}

int fkr_apple(struct fk *fk, const struct fkr_apple_pmu *p, const struct perf_event_attr *attr,
	      int cpu, int group_fd)
{
	unsigned used = 0;
	if (p->cpus && cpu >= 0 && (cpu >= 64 || !(p->cpus & (1ULL << cpu))))
		return -ENOENT;
	if (ap_event(attr) < 0)
		return -ENOENT;
	/* m1_pmu_set_event_filter: "if (!attr->exclude_guest) ... return
	 * -EOPNOTSUPP;" */
	if (!attr->exclude_guest)
		return -EOPNOTSUPP;
	if (group_fd != -1) {
		const struct fk_fd *lf = fk_fd(fk, group_fd);
		if (!lf)
			return -EBADF;
		if (!ap_validate(p, &used, &lf->attr, lf->attr.disabled && !lf->enabled))
			return -EINVAL;
		for (int i = 0; i < FK_MAX_FDS; i++) {
			const struct fk_fd *s = &fk->fds[i];
			if (s->used && s->group_fd == group_fd &&
			    !ap_validate(p, &used, &s->attr, s->attr.disabled && !s->enabled))
				return -EINVAL;
		}
	}
	return ap_take(&used, attr) ? 0 : -EINVAL;
}
