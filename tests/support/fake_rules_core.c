/* Generic perf_event_open checks (kernel/events/core.c, v6.x-7.x) and the
 * dispatcher that hands an attr to the engine rule for its PMU type. */
#include "fake_rules.h"

#include <errno.h>

/* kernel/events/core.c perf_allow_kernel(): paranoid > 1 without
 * perfmon_capable() is EACCES. */
int fkr_allow_kernel(const struct fkr_machine *m)
{
	return m->paranoid > 1 && !m->perfmon ? -EACCES : 0;
}

/* The checks perf_event_open() makes before the PMU sees the event. */
int fkr_core(const struct fkr_machine *m, const struct perf_event_attr *attr, pid_t pid,
	     int cpu)
{
	/* perf_copy_attr(): unknown sample_type bits are EINVAL.  WEIGHT_STRUCT
	 * (bit 24) is unknown before Linux 5.12. */
	uint64_t max = m->no_weight_struct ? (1ULL << 24) : (1ULL << 25);
	(void)pid;
	(void)cpu;
	if (attr->sample_type & ~(max - 1))
		return -EINVAL;
	/* perf_copy_attr(): REGS_USER goes through perf_reg_validate()
	 * (arch/x86/kernel/perf_regs.c: an empty mask or one with DS, ES, FS,
	 * GS or a bit past R15 is EINVAL on x86-64); STACK_USER needs a size
	 * below USHRT_MAX that is a multiple of 8. */
	if (attr->sample_type & PERF_SAMPLE_REGS_USER) {
		uint64_t mask = attr->sample_regs_user;
		if (!mask || (mask & (0xfULL << 12)) || (mask >> 24))
			return -EINVAL;
	}
	if ((attr->sample_type & PERF_SAMPLE_STACK_USER) &&
	    (attr->sample_stack_user >= 0xffff || attr->sample_stack_user % 8))
		return -EINVAL;
	/* kernel/events/callchain.c get_callchain_buffers(): a
	 * sample_max_stack above the sysctl perf_event_max_stack is
	 * EOVERFLOW (0 means the sysctl's value, perf_copy_attr()). */
	if ((attr->sample_type & PERF_SAMPLE_CALLCHAIN) &&
	    attr->sample_max_stack > (m->max_stack ? m->max_stack : 127))
		return -EOVERFLOW;
	/* perf_copy_attr(): a branch stack needs a branch type besides the
	 * privilege bits (EINVAL), known bits only (EINVAL); without
	 * privilege bits it takes the event's; kernel or hv branches need
	 * perf_allow_kernel() (EACCES). */
	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t mask = attr->branch_sample_type;
		if (mask >> 20 || !(mask & ~7ULL))
			return -EINVAL;
		if (!(mask & 7ULL))
			mask |= (attr->exclude_kernel ? 0 : 2ULL) | (attr->exclude_user ? 0 : 1ULL) |
				(attr->exclude_hv ? 0 : 4ULL);
		if ((mask & 6ULL) && fkr_allow_kernel(m))
			return -EACCES;
	}
	/* perf_event_open(): "if (!attr.exclude_kernel) perf_allow_kernel()". */
	if (!attr->exclude_kernel && fkr_allow_kernel(m))
		return -EACCES;
	/* perf_event_open(): "Only privileged users can get physical
	 * addresses" -> perf_allow_kernel(). */
	if ((attr->sample_type & (1ULL << 19)) && fkr_allow_kernel(m))
		return -EACCES;
	return 0;
}

int fkr_core_hw(struct fk *fk, const struct fkr_machine *m, const struct perf_event_attr *attr,
		int cpu, int group_fd)
{
	/* kernel/events/core.c perf_init_event(): for HARDWARE and HW_CACHE
	 * the PMU type may sit in config bits 32-63 (extended type); 0 there,
	 * and PERF_TYPE_RAW, mean the (first) core PMU.  No core PMU
	 * registered (a VM without a vPMU): nothing takes the type, ENOENT. */
	uint32_t ext = attr->type == PERF_TYPE_RAW ? 0 : (uint32_t)(attr->config >> 32);
	const struct fkr_pebs_pmu *p = NULL;
	for (int i = 0; i < m->npebs; i++)
		if (!ext || m->pebs[i].type == ext) {
			p = &m->pebs[i];
			break;
		}
	if (!p)
		return -ENOENT;
	/* A hybrid core PMU serves only its own CPUs: arch/x86/events/core.c
	 * x86_pmu_event_init() / drivers/perf/arm_pmu.c armpmu_event_init()
	 * refuse an event bound to another CPU with ENOENT. */
	if (p->cpus && cpu >= 0 && (cpu >= 64 || !(p->cpus & (1ULL << cpu))))
		return -ENOENT;
	return fkr_pebs(fk, m, p, attr, group_fd);
}

int fkr_rule(struct fk *fk, const struct perf_event_attr *attr, pid_t pid, int cpu,
	     int group_fd, unsigned long flags)
{
	struct fkr_machine *m = fk->rule_ud;
	int r = fkr_core(m, attr, pid, cpu);
	(void)flags;

	if (r == 0) {
		/* kernel/events/core.c perf_init_event(): the PMU is found by type;
		 * no PMU for the type is ENOENT. */
		if (attr->type == PERF_TYPE_SOFTWARE) {
			r = attr->config < PERF_COUNT_SW_MAX ? 0 : -ENOENT;
			/* perf_swevent_init() and cpu_clock_event_init(): "no
			 * branch sampling for software events" */
			if (r == 0 && (attr->sample_type & PERF_SAMPLE_BRANCH_STACK))
				r = -EOPNOTSUPP;
		} else if (attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE ||
			   attr->type == PERF_TYPE_RAW) {
			uint32_t ext = attr->type == PERF_TYPE_RAW ? 0 : (uint32_t)(attr->config >> 32);
			if (m->ibs_op_type && !m->npebs && !m->narmv8 && attr->precise_ip)
				return fkr_amd_precise(m, attr);
			r = m->npebs || (!m->narmv8 && !m->napple) ? fkr_core_hw(fk, m, attr, cpu, group_fd)
								   : -ENOENT;
			/* drivers/perf/arm_pmu.c: the (first) Arm core PMU takes
			 * the generic types; with the extended type, that PMU. */
			for (int i = 0; i < m->narmv8; i++)
				if (!ext || m->armv8[i].type == ext) {
					r = fkr_armv8(fk, &m->armv8[i], attr, pid, cpu, group_fd);
					break;
				}
			for (int i = 0; i < m->napple; i++)
				if (!ext || m->apple[i].type == ext) {
					r = fkr_apple(fk, &m->apple[i], attr, cpu, group_fd);
					break;
				}
		} else if (m->ibs_op_type && attr->type == m->ibs_op_type) {
			r = fkr_ibs_op(m, attr);
		} else if (m->ibs_fetch_type && attr->type == m->ibs_fetch_type) {
			r = fkr_ibs_fetch(m, attr);
		} else if (m->spe_type && attr->type == m->spe_type) {
			r = fkr_spe(m, attr, cpu);
		} else {
			r = -ENOENT;
			for (int i = 0; i < m->narmv8; i++)
				if (attr->type == m->armv8[i].type)
					r = fkr_armv8(fk, &m->armv8[i], attr, pid, cpu, group_fd);
			for (int i = 0; i < m->napple; i++)
				if (attr->type == m->apple[i].type)
					r = fkr_apple(fk, &m->apple[i], attr, cpu, group_fd);
			for (int i = 0; i < m->npebs; i++)
				if (attr->type == m->pebs[i].type)
					r = fkr_pebs(fk, m, &m->pebs[i], attr, group_fd);
		}
	}
	/* kernel/events/core.c find_get_context(): a CPU-wide event (no task)
	 * needs perf_allow_cpu(): paranoid > 0 without perfmon is EACCES. */
	if (r == 0 && pid == -1 && m->paranoid > 0 && !m->perfmon)
		r = -EACCES;
	if (r == 0)
		m->opens_ok++;
	else
		m->opens_refused++;
	return r;
}

void fkr_install(struct fk *fk, struct fkr_machine *m)
{
	fk->rule = fkr_rule;
	fk->rule_ud = m;
}
