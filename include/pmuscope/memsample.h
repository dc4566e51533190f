/* One engine-neutral memory sample: what IBS, PEBS, SPE and the software
 * fallback all produce, and what `pmuscope mem` consumes.
 *
 * Every optional field has a validity bit in `valid`; a field whose bit is
 * clear holds 0 and must not be shown (never a made-up value).
 * Ownership: a plain value type; it points to nothing.
 */
#ifndef PMUSCOPE_MEMSAMPLE_H
#define PMUSCOPE_MEMSAMPLE_H

#include <stdint.h>

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

enum pms_engine {
	PMS_ENG_NONE = 0,
	PMS_ENG_IBS,      /* AMD IBS op sampling (ibs_op) */
	PMS_ENG_PEBS,     /* Intel PEBS load latency / stores */
	PMS_ENG_SPE,      /* Arm SPE through the AUX area */
	PMS_ENG_SOFTWARE, /* fallback: software page-fault samples (first touch) */
};

enum pms_memsample_valid {
	PMS_MS_IP = 1u << 0,
	PMS_MS_TID = 1u << 1,
	PMS_MS_TIME = 1u << 2,
	PMS_MS_CPU = 1u << 3,
	PMS_MS_ADDR = 1u << 4,      /* data virtual address */
	PMS_MS_PHYS = 1u << 5,      /* data physical address */
	PMS_MS_DATA_SRC = 1u << 6,  /* perf_mem_data_src */
	PMS_MS_WEIGHT = 1u << 7,    /* access latency in cycles */
	PMS_MS_INS_LAT = 1u << 8,   /* instruction latency (WEIGHT_STRUCT var2) */
	PMS_MS_PAGE_SIZE = 1u << 9, /* data page size */
	PMS_MS_EXACT_IP = 1u << 10, /* IP is the sampled instruction (no skid) */
	PMS_MS_KERNEL_IP = 1u << 11,/* IP is in the kernel */
};

struct pms_memsample {
	uint32_t valid; /* PMS_MS_* */
	enum pms_engine engine;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t addr;
	uint64_t phys_addr;
	uint64_t data_src;
	uint64_t weight;
	uint32_t ins_lat;
	uint64_t page_size;
	uint64_t period;
};

const char *pms_engine_label(enum pms_engine e);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
