/* AMD precise events forwarded to IBS op.  Kernel rules (seed 000 reads
 * linux@e43ffb69e043 v7.1-rc6; the same code in 6.12):
 *  - arch/x86/events/amd/core.c amd_pmu_hw_config: "if
 *    (event->attr.precise_ip && get_ibs_caps()) return
 *    forward_event_to_ibs(event);" (before any other core check);
 *  - arch/x86/events/amd/ibs.c forward_event_to_ibs (:240-258):
 *    precise_ip 0 or > 2 is EOPNOTSUPP; otherwise perf_ibs_precise_event
 *    may rewrite type/config to ibs_op, and -ENOENT makes perf_init_event
 *    retry with the new type (an unchanged type ends in ENOENT);
 *  - perf_ibs_precise_event: PERF_TYPE_HARDWARE cpu-cycles -> config 0;
 *    PERF_TYPE_RAW 0x76 (cycles) -> 0, 0xC1 (retired ops) -> IBS_OP_CNT_CTL
 *    (bit 19); anything else is not forwarded.
 * The ibs_op PMU existing stands for get_ibs_caps() != 0 (ibs.c registers
 * it only with IBS caps). */
#include <errno.h>
#include <string.h>

#include "pmuscope/ibsfwd.h"
#include "util/error.h"

#define IBS_OP_CNT_CTL (1ULL << 19)

/* The forward rule itself, on the attr and the core PMU's type (x86's
 * "cpu" registers as PERF_TYPE_RAW, arch/x86/events/core.c
 * init_hw_perf_events: perf_pmu_register(&pmu, "cpu", PERF_TYPE_RAW)).
 * Fills out but its type; returns whether it is a forward case at all. */
static bool fwd_rule(const struct perf_event_attr *attr, uint32_t core_type,
		     struct pms_ibs_forward *out)
{
	if (!attr->precise_ip)
		return false;
	/* the core PMU gets PERF_TYPE_HARDWARE/HW_CACHE/RAW and its own type */
	if (attr->type != PERF_TYPE_HARDWARE && attr->type != PERF_TYPE_HW_CACHE &&
	    attr->type != PERF_TYPE_RAW && attr->type != core_type)
		return false;
	out->status = PMS_IBS_FWD_REFUSED;
	if (attr->precise_ip > 2) {
		out->kernel_errno = EOPNOTSUPP;
		out->why = "forward_event_to_ibs: IBS has precise levels 1 and 2 only (precise_ip 3 is EOPNOTSUPP)";
		return true;
	}
	uint64_t cfg = attr->config;
	if (attr->type == PERF_TYPE_HARDWARE && cfg == PERF_COUNT_HW_CPU_CYCLES) {
		out->config = 0;
		out->why = "perf_ibs_precise_event: cpu-cycles -> ibs_op, IbsOpCntCtl clear (cycles)";
	} else if ((attr->type == PERF_TYPE_RAW || attr->type == core_type) && cfg == 0x76) {
		out->config = 0;
		out->why = "perf_ibs_precise_event: raw 0x76 (cycles) -> ibs_op, IbsOpCntCtl clear";
	} else if ((attr->type == PERF_TYPE_RAW || attr->type == core_type) && cfg == 0xc1) {
		out->config = IBS_OP_CNT_CTL;
		out->why = "perf_ibs_precise_event: raw 0xC1 (retired ops) -> ibs_op with IbsOpCntCtl";
	} else {
		out->kernel_errno = ENOENT;
		out->why = "perf_ibs_precise_event: only cpu-cycles and raw 0x76/0xC1 have a precise "
			   "(IBS) form on AMD; the kernel answers ENOENT";
		return true;
	}
	out->status = PMS_IBS_FWD_FORWARDED;
	return true;
}

int pms_event_ibs_forward(const struct pms_pmus *pmus, const struct perf_event_attr *attr,
			  struct pms_ibs_forward *out)
{
	const struct pms_pmu *op, *core = NULL;
	if (!pmus || !attr || !out)
		return pms_err(PMS_EINVAL, "pms_event_ibs_forward: NULL argument");
	memset(out, 0, sizeof(*out));
	op = pms_pmu_find(pmus, "ibs_op");
	for (size_t i = 0; i < pms_pmus_count(pmus) && !core; i++)
		if (pms_pmus_at(pmus, i)->kind == PMS_PMU_CORE && !strcmp(pms_pmus_at(pmus, i)->name, "cpu"))
			core = pms_pmus_at(pmus, i);
	if (!op || !core || !fwd_rule(attr, core->type, out))
		return 0;
	if (out->status == PMS_IBS_FWD_FORWARDED)
		out->type = op->type;
	return 0;
}

bool pms_ibs_attr_forwarded(const struct perf_event_attr *attr, uint32_t core_type)
{
	struct pms_ibs_forward fw;
	memset(&fw, 0, sizeof(fw));
	return attr && fwd_rule(attr, core_type, &fw) && fw.status == PMS_IBS_FWD_FORWARDED;
}
