/* Intel PEBS: arch/x86/events/core.c x86_pmu_hw_config and
 * arch/x86/events/intel/core.c intel_pmu_hw_config (v6.x-7.x). */
#include "fake_rules.h"

#include <errno.h>

int fkr_pebs(struct fk *fk, const struct fkr_machine *m, const struct fkr_pebs_pmu *p,
	     const struct perf_event_attr *attr, int group_fd)
{
	uint64_t code = attr->config & 0xffff; /* event | umask << 8 */
	(void)m;
	/* x86_pmu_hw_config: precise_ip above x86_pmu_max_precise() is
	 * EOPNOTSUPP. */
	if ((int)attr->precise_ip > p->max_precise)
		return -EOPNOTSUPP;
	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK) {
		int r = fkr_branch(m, p, attr);
		if (r)
			return r;
	}
	/* Level 3 (PDIR/PDist) needs a counter the event's constraint allows
	 * (intel/core.c, precise_ip == 3 special cases); when none fits, the
	 * group validation at open fails with EINVAL.  Modelled by pdir_mem. */
	if (attr->precise_ip == 3 && !p->pdir_mem)
		return -EINVAL;
	/* intel_pmu_hw_config: with require_mem_loads_aux_event, a mem-loads
	 * event sampling DATA_SRC needs mem-loads-aux in its group: -ENODATA. */
	if (p->needs_loads_aux && code == p->loads_config &&
	    (attr->sample_type & (1ULL << 15))) {
		struct fk_fd *leader = group_fd >= 0 ? fk_fd(fk, group_fd) : NULL;
		if (!leader || (leader->attr.config & 0xffff) != p->loads_aux_config)
			return -ENODATA;
	}
	return 0;
}
