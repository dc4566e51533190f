/* AMD precise events: the kernel forwards a core-PMU event with precise_ip
 * to the IBS op PMU (arch/x86/events/amd/core.c amd_pmu_hw_config ->
 * arch/x86/events/amd/ibs.c forward_event_to_ibs / perf_ibs_precise_event,
 * v7.1-rc6 :240-258 per seed 000).  pms_event_ibs_forward says what the
 * kernel will do with an event before it is opened.
 *
 * Ownership: fills a caller struct; its strings are static.  The PMU list
 * and the event are borrowed for the call.
 */
#ifndef PMUSCOPE_IBSFWD_H
#define PMUSCOPE_IBSFWD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "pmuscope/pmu.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

enum pms_ibs_forward_status {
	PMS_IBS_FWD_NONE = 0,  /* not a precise core event on a machine with ibs_op */
	PMS_IBS_FWD_FORWARDED, /* opened as ibs_op: .type, .config; IBS's rules apply */
	PMS_IBS_FWD_REFUSED,   /* the forward refuses it: .kernel_errno */
};

struct pms_ibs_forward {
	enum pms_ibs_forward_status status;
	uint32_t type;     /* FORWARDED: the ibs_op PMU's type */
	uint64_t config;   /* FORWARDED: the IbsOpCtl bits (0, or IbsOpCntCtl for 0xC1) */
	int kernel_errno;  /* REFUSED: EOPNOTSUPP (precise_ip > 2) or ENOENT */
	const char *why;   /* the driver rule, for people */
};

/* What the kernel does with attr (as opened: type, config, precise_ip) on
 * this machine.  Returns 0; PMS_EINVAL for NULL arguments. */
int pms_event_ibs_forward(const struct pms_pmus *pmus, const struct perf_event_attr *attr,
			  struct pms_ibs_forward *out);

/* Whether an attr opened on an AMD machine with IBS came back as ibs_op
 * samples (the same rule without a PMU list, for a recorded file: the
 * file's core PMU type, 4 (PERF_TYPE_RAW) on x86).  The caller knows the
 * machine is AMD with IBS; false for NULL. */
bool pms_ibs_attr_forwarded(const struct perf_event_attr *attr, uint32_t core_type);

PMS_API_END
#ifdef __cplusplus
}
#endif

#endif
