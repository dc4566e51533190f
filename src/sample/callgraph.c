/* Call paths on the sampler's events: PERF_SAMPLE_CALLCHAIN for frame
 * pointers, and for DWARF the user registers and a copy of the user stack
 * (perf record --call-graph dwarf asks for the same three). */
#include <stdio.h>
#include <string.h>

#include "pmuscope/branchrules.h"
#include "sample/sampler_int.h"
#include "util/error.h"

uint64_t pms_smp_unwind_regs(void)
{
#if defined(__x86_64__)
	/* arch/x86/include/uapi/asm/perf_regs.h: AX..R15 are bits 0-23; DS,
	 * ES, FS, GS (12-15) are refused on 64-bit (arch/x86/kernel/
	 * perf_regs.c perf_reg_validate, REG_NOSUPPORT). */
	return ((1ULL << 24) - 1) & ~(0xfULL << 12);
#elif defined(__aarch64__)
	/* arch/arm64/include/uapi/asm/perf_regs.h: X0..X30, SP, PC (0-32). */
	return (1ULL << 33) - 1;
#else
	return 0;
#endif
}

static void note(struct smp_plan *p, const char *text)
{
	size_t l = strlen(p->notes);
	if (strstr(p->notes, text))
		return;
	snprintf(p->notes + l, sizeof(p->notes) - l, "%s%s", l ? "; " : "", text);
}

/* Branch stacks come from the core PMU's branch records; events of other
 * PMUs have none and their drivers refuse the request. */
static int branches(struct smp_plan *p, const struct pms_sampler_opts *o)
{
	for (int i = 0; i < p->nev; i++) {
		struct smp_event *ev = &p->ev[i];
		struct perf_event_attr *a = &ev->attr;
		if (ev->role != SMP_ROLE_MAIN && ev->role != SMP_ROLE_EXTRA)
			continue;
		if (ev->engine == PMS_ENG_IBS)
			return pms_err(PMS_ENOTSUP,
				       "branch stacks: IBS op samples carry none (arch/x86/events/amd/"
				       "ibs.c perf_ibs_init refuses PERF_SAMPLE_BRANCH_STACK); sample "
				       "a core event instead: pmuscope record -e cycles -b");
		if (ev->engine == PMS_ENG_SPE)
			return pms_err(PMS_ENOTSUP,
				       "branch stacks: SPE records come from the AUX trace, not with "
				       "a branch stack; sample a core event: pmuscope record -e "
				       "cpu_cycles -b (BRBE)");
		if (a->type == PERF_TYPE_SOFTWARE)
			return pms_err(PMS_ENOTSUP,
				       "branch stacks: software events (%s) have no branch records "
				       "(kernel/events/core.c perf_swevent_init: EOPNOTSUPP); they "
				       "need a core PMU with LBR, AMD LbrExtV2 or Arm BRBE",
				       ev->engine == PMS_ENG_SOFTWARE ? "page faults"
					: a->config == PERF_COUNT_SW_CPU_CLOCK ? "cpu-clock" : "this one");
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = o->branch_filter;
		/* Arm BRBE: the driver's filter and privilege rules, said before
		 * the open (branchrules.c, arm_brbe.c brbe_branch_attr_valid);
		 * x86 LBRs are left to the kernel: call-stack support is not in
		 * sysfs, and the vendor is not known here */
		struct pms_branch_hwinfo hw;
		const char *why = NULL;
		pms_branch_hw_of_pmu(ev->pmu, NULL, &hw);
		if (hw.hw == PMS_BRHW_ARM_BRBE && pms_branch_attr_check(&hw, a, &why))
			return pms_err(PMS_ENOTSUP, "branch stacks on %s (BRBE): %s",
				       ev->pmu ? ev->pmu->name : "?", why);
	}
	return 0;
}

int pms_smp_callgraph(struct smp_plan *p, const struct pms_sampler_opts *o)
{
	uint32_t stack = o->stack_size ? o->stack_size : PMS_CALLGRAPH_DWARF_DEFAULT;
	uint64_t regs = pms_smp_unwind_regs();

	if (o->branch_filter) {
		int rc = branches(p, o);
		if (rc < 0)
			return rc;
	}
	if (o->callgraph == PMS_CALLGRAPH_NONE)
		return 0;
	if (o->callgraph != PMS_CALLGRAPH_FP && o->callgraph != PMS_CALLGRAPH_DWARF)
		return pms_err(PMS_EINVAL, "call graph %d is not known (use fp or dwarf)",
			       (int)o->callgraph);
	if (o->callgraph == PMS_CALLGRAPH_DWARF) {
		/* kernel/events/core.c perf_copy_attr(): the dump must be a
		 * multiple of 8 and below USHRT_MAX. */
		if (stack % 8 || stack > PMS_CALLGRAPH_DWARF_MAX)
			return pms_err(PMS_EINVAL,
				       "--call-graph dwarf,%u: the size must be a multiple of 8, "
				       "at most %u",
				       stack, PMS_CALLGRAPH_DWARF_MAX);
		if (!regs)
			return pms_err(PMS_ENOTSUP,
				       "--call-graph dwarf: no register map for this architecture "
				       "(use -g, frame pointers)");
	}
	for (int i = 0; i < p->nev; i++) {
		struct smp_event *ev = &p->ev[i];
		struct perf_event_attr *a = &ev->attr;
		if (ev->role != SMP_ROLE_MAIN && ev->role != SMP_ROLE_EXTRA)
			continue;
		if (ev->engine == PMS_ENG_SPE) {
			/* SPE samples are decoded from the AUX trace, not from
			 * sample records: nothing to attach a callchain to. */
			note(p, "SPE samples carry no call path (they come from the AUX trace)");
			continue;
		}
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (o->max_stack)
			a->sample_max_stack = o->max_stack;
		if (o->callgraph == PMS_CALLGRAPH_DWARF) {
			/* The user part comes from the unwind; the kernel only
			 * walks its own stack (perf: exclude_callchain_user). */
			a->exclude_callchain_user = 1;
			a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a->sample_regs_user = regs;
			a->sample_stack_user = stack;
		}
		if (ev->engine == PMS_ENG_IBS)
			/* arch/x86/events/amd/ibs.c perf_ibs_handle_irq: the
			 * callchain is walked from the interrupt registers, not
			 * from IbsOpRip (kernel-abi-facts 3). */
			note(p, "IBS call paths start at the interrupted instruction, "
				"a few instructions after the sampled one");
	}
	return 0;
}
