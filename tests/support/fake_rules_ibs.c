/* AMD IBS op: perf_ibs_init() (arch/x86/events/amd/ibs.c, v7.x), as summarised
 * in reference/kernel-abi-facts.md §3.4 and observed in seed 000 (E2). */
#include "fake_rules.h"

#include <errno.h>

#define IBS_OP_MAX_CNT 0xffffULL          /* IbsOpCtl MaxCnt [15:0] */
#define IBS_OP_L3MISSONLY (1ULL << 16)    /* Zen 4+ */
#define IBS_OP_CNT_CTL (1ULL << 19)       /* with IBS_CAPS_OPCNT */
#define IBS_OP_MAX_CNT_EXT (0x7fULL << 20) /* [26:20] with IBS_CAPS_OPCNTEXT */
#define IBS_SW_FILTER_MASK 1ULL            /* config2:0, "swfilt" */
#define IBS_OP_MIN_PERIOD 0x90

int fkr_ibs_op(const struct fkr_machine *m, const struct perf_event_attr *attr)
{
	uint64_t mask = IBS_OP_MAX_CNT;
	uint32_t caps = m->ibs_caps;
	bool swfilt = attr->config2 & IBS_SW_FILTER_MASK;

	/* ibs.c v6.12.95:1228-1229 "if (ibs_caps & IBS_CAPS_OPCNT)
	 * perf_ibs_op.config_mask |= IBS_OP_CNT_CTL;" */
	if (caps & FKR_IBS_CAPS_OPCNT)
		mask |= IBS_OP_CNT_CTL;
	if (caps & FKR_IBS_CAPS_OPCNTEXT)
		mask |= IBS_OP_MAX_CNT_EXT;
	if (caps & FKR_IBS_CAPS_ZEN4)
		mask |= IBS_OP_L3MISSONLY;
	/* perf_ibs_init (ibs.c v6.12.95:287): config bits outside config_mask
	 * are EINVAL. */
	if (attr->config & ~mask)
		return -EINVAL;
	/* perf_ibs_init: has_branch_stack() is EOPNOTSUPP. */
	if (attr->sample_type & (1ULL << 11))
		return -EOPNOTSUPP;
	/* perf_ibs_init: exclude_host/guest/idle are always EINVAL. */
	if (attr->exclude_host || attr->exclude_guest || attr->exclude_idle)
		return -EINVAL;
	/* Seed 000 E2 (ibs.c:346-370 at v7.1-rc6): exclude_hv is never
	 * accepted, and exclude_kernel/exclude_user need BIT63 filtering or
	 * swfilt. */
	if (attr->exclude_hv)
		return -EINVAL;
	if ((attr->exclude_kernel || attr->exclude_user) &&
	    !(caps & FKR_IBS_CAPS_BIT63_FILTER) && !swfilt)
		return -EINVAL;
	/* perf_ibs_init: period rules (kernel-abi-facts §3.4). */
	if (!attr->freq) {
		if (attr->sample_period) {
			if (attr->config & IBS_OP_MAX_CNT)
				return -EINVAL; /* raw MaxCnt and a period */
			if ((attr->sample_period & ~0xfULL) < IBS_OP_MIN_PERIOD)
				return -EINVAL;
		} else if (!(attr->config & IBS_OP_MAX_CNT)) {
			return -EINVAL; /* no period at all */
		}
	}
	/* perf_ibs_init: ldlat (config1[11:0]) must be in [128, 2048] where
	 * IBS_CAPS_OPLDLAT makes it meaningful. */
	if (caps & FKR_IBS_CAPS_OPLDLAT) {
		uint64_t ldlat = attr->config1 & 0xfff;
		if (ldlat && (ldlat < 128 || ldlat > 2048))
			return -EINVAL;
	}
	return 0;
}

/* amd_pmu_hw_config -> forward_event_to_ibs (ibs.c v7.1-rc6 :240-258, seed
 * 000) -> perf_ibs_precise_event, then perf_init_event's retry on the new
 * type: written from the kernel source separately from src/event/ibsfwd.c. */
int fkr_amd_precise(const struct fkr_machine *m, const struct perf_event_attr *attr)
{
	struct perf_event_attr op = *attr;
	if (attr->precise_ip > 2)
		return -EOPNOTSUPP;
	if (attr->type == PERF_TYPE_HARDWARE && attr->config == PERF_COUNT_HW_CPU_CYCLES)
		op.config = 0;
	else if (attr->type == PERF_TYPE_RAW && attr->config == 0x76)
		op.config = 0;
	else if (attr->type == PERF_TYPE_RAW && attr->config == 0xc1)
		op.config = IBS_OP_CNT_CTL;
	else
		return -ENOENT; /* type unchanged: perf_init_event gives up */
	op.type = m->ibs_op_type;
	return fkr_ibs_op(m, &op);
}
