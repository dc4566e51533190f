/* Record type names.  Its own file so that record.c and record_sample.c
 * both build on it without calling each other (src/README.md). */
#include "pmuscope/record.h"

#include <stdint.h>

/* Record type names, indexed by enum perf_event_type value
 * (include/uapi/linux/perf_event.h; kernel-abi-facts.md 1.5). */
static const char *const record_names[] = {
	[PMS_RECORD_MMAP] = "MMAP",
	[PMS_RECORD_LOST] = "LOST",
	[PMS_RECORD_COMM] = "COMM",
	[PMS_RECORD_EXIT] = "EXIT",
	[PMS_RECORD_THROTTLE] = "THROTTLE",
	[PMS_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PMS_RECORD_FORK] = "FORK",
	[PMS_RECORD_READ] = "READ",
	[PMS_RECORD_SAMPLE] = "SAMPLE",
	[PMS_RECORD_MMAP2] = "MMAP2",
	[PMS_RECORD_AUX] = "AUX",
	[PMS_RECORD_ITRACE_START] = "ITRACE_START",
	[PMS_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PMS_RECORD_SWITCH] = "SWITCH",
	[PMS_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PMS_RECORD_NAMESPACES] = "NAMESPACES",
	[PMS_RECORD_KSYMBOL] = "KSYMBOL",
	[PMS_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PMS_RECORD_CGROUP] = "CGROUP",
	[PMS_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PMS_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	[PMS_RECORD_CALLCHAIN_DEFERRED] = "CALLCHAIN_DEFERRED",
};

const char *pms_record_type_name(uint32_t type)
{
	if (type < sizeof(record_names) / sizeof(record_names[0]) && record_names[type])
		return record_names[type];
	return "UNKNOWN";
}
