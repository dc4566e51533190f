/* AMD IBS op: perf_ibs_init() (arch/x86/events/amd/ibs.c, v7.x), as summarised
 * in reference/kernel-abi-facts.md §3.4 and observed in seed 000 (E2). */
#include "fake_rules.h"

#include <errno.h>
#include <string.h>

#include "pmuscope/record.h"

#define IBS_OP_MAX_CNT 0xffffULL          /* IbsOpCtl MaxCnt [15:0] */
#define IBS_OP_L3MISSONLY (1ULL << 16)    /* Zen 4+ */
#define IBS_OP_CNT_CTL (1ULL << 19)       /* with IBS_CAPS_OPCNT */
#define IBS_OP_MAX_CNT_EXT (0x7fULL << 20) /* [26:20] with IBS_CAPS_OPCNTEXT */
#define IBS_SW_FILTER_MASK 1ULL            /* config2:0, "swfilt" */
#define IBS_OP_MIN_PERIOD 0x90

/* The checks perf_ibs_init makes for both IBS PMUs (op and fetch), before
 * their period rules. */
static int ibs_init_common(const struct perf_event_attr *attr, uint64_t mask, uint32_t caps)
{
	bool swfilt = attr->config2 & IBS_SW_FILTER_MASK;
	/* perf_ibs_init (ibs.c v6.12.95:287): "if (config &
	 * ~perf_ibs->config_mask) return -EINVAL" */
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
	return 0;
}

int fkr_ibs_op(const struct fkr_machine *m, const struct perf_event_attr *attr)
{
	uint64_t mask = IBS_OP_MAX_CNT;
	uint32_t caps = m->ibs_caps;

	/* ibs.c v6.12.95:1228-1229 "if (ibs_caps & IBS_CAPS_OPCNT)
	 * perf_ibs_op.config_mask |= IBS_OP_CNT_CTL;" */
	if (caps & FKR_IBS_CAPS_OPCNT)
		mask |= IBS_OP_CNT_CTL;
	if (caps & FKR_IBS_CAPS_OPCNTEXT)
		mask |= IBS_OP_MAX_CNT_EXT;
	if (caps & FKR_IBS_CAPS_ZEN4)
		mask |= IBS_OP_L3MISSONLY;
	int rc = ibs_init_common(attr, mask, caps);
	if (rc < 0)
		return rc;
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

/* ---- IBS fetch ---------------------------------------------------------------
 * Written from arch/x86/events/amd/ibs.c (torvalds/linux@003c0414 and
 * v6.12.95, the same rules; kernel-abi-facts §3.4-3.5 for v7.3): the
 * perf_ibs_fetch PMU (config_mask IBS_FETCH_MAX_CNT | IBS_FETCH_RAND_EN,
 * plus IBS_FETCH_L3MISSONLY on Zen 4 from perf_event_ibs_init), perf_ibs_init
 * and perf_ibs_handle_irq. */
#define IBS_FETCH_MAX_CNT 0xffffULL
#define IBS_FETCH_VAL (1ULL << 49)
#define IBS_FETCH_RAND_EN (1ULL << 57)
#define IBS_FETCH_L3MISSONLY (1ULL << 59)

int fkr_ibs_fetch(const struct fkr_machine *m, const struct perf_event_attr *attr)
{
	uint64_t mask = IBS_FETCH_MAX_CNT | IBS_FETCH_RAND_EN;
	uint32_t caps = m->ibs_caps;

	if (caps & FKR_IBS_CAPS_ZEN4)
		mask |= IBS_FETCH_L3MISSONLY;
	int rc = ibs_init_common(attr, mask, caps);
	if (rc < 0)
		return rc;
	/* perf_ibs_init: a period and raw MaxCnt together are EINVAL; no
	 * period and no MaxCnt is EINVAL; the fetch minimum is 0x10 (the
	 * period's low 4 bits are dropped, an empty result becomes 0x10 in
	 * 6.12; later kernels refuse below min_period 0x10: the same floor). */
	if (!attr->freq) {
		if (attr->sample_period) {
			if (attr->config & IBS_FETCH_MAX_CNT)
				return -EINVAL;
		} else if (!(attr->config & IBS_FETCH_MAX_CNT)) {
			return -EINVAL;
		}
	}
	return 0;
}

int fkr_ibs_fetch_nmi(struct fk *fk, const struct fkr_machine *m, int fd, const uint64_t regs[4],
		      uint32_t tid, uint32_t cpu, uint64_t time)
{
	struct fk_fd *f = fk_fd(fk, fd);
	struct pms_sample_layout l;
	struct pms_record r;
	unsigned char raw[4 + 4 * 8], buf[512];
	size_t n = 3, len = 0;
	bool kernel;
	int rc;

	if (!f || f->attr.type != m->ibs_fetch_type)
		return -EBADF;
	/* perf_ibs_handle_irq: "if (!(*buf++ & perf_ibs->valid_mask)) goto
	 * fail" (IbsFetchVal, bit 49) */
	if (!(regs[0] & IBS_FETCH_VAL))
		return 0;
	/* erratum 1197: perf_event_ibs_init sets fetch_ignore_if_zero_rip on
	 * family 0x19 model < 0x10; the handler drops a zero IbsFetchLinAd */
	if (m->amd_family == 0x19 && m->amd_model < 0x10 && !regs[1])
		return 0;
	/* set_linear_ip: the IP is IbsFetchLinAd, cs from kernel_ip(ip); the
	 * swfilt check is perf_exclude_event on those regs */
	kernel = (int64_t)regs[1] < 0;
	if ((f->attr.config2 & IBS_SW_FILTER_MASK) &&
	    ((f->attr.exclude_kernel && kernel) || (f->attr.exclude_user && !kernel)))
		return 0;
	memset(&r, 0, sizeof(r));
	r.type = PMS_RECORD_SAMPLE;
	r.sample.misc = (kernel ? PMS_MISC_KERNEL : PMS_MISC_USER) | PMS_MISC_EXACT_IP;
	r.sample.ip = regs[1];
	r.sample.pid = r.sample.tid = tid;
	r.sample.time = time;
	r.sample.cpu = cpu;
	r.sample.period = f->attr.freq ? 0x10 : (f->attr.sample_period & ~0xfULL);
	if (f->attr.sample_type & PMS_SAMPLE_RAW) {
		/* ibs_data: u32 caps, then IbsFetchCtl, LinAd, PhysAd
		 * (MSR_AMD64_IBSFETCH_REG_COUNT), then IcIbsExtdCtl with
		 * IBS_CAPS_FETCHCTLEXTD */
		uint32_t caps = m->ibs_caps;
		if (caps & FKR_IBS_CAPS_FETCHCTLEXTD)
			n = 4;
		memcpy(raw, &caps, 4);
		memcpy(raw + 4, regs, 8 * n);
		r.sample.raw = raw;
		r.sample.raw_size = 4 + 8 * n;
	}
	pms_sample_layout_from_attr(&l, &f->attr);
	if ((rc = pms_record_encode(&l, &r, buf, sizeof(buf), &len)) < 0)
		return -EINVAL;
	return fk_ring_put(fk, fd, buf, len) < 0 ? -ENOSPC : 1;
}
