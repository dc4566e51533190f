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
	PMS_ENG_IBS_FETCH, /* AMD IBS fetch sampling (ibs_fetch): instruction
			    * fetches, no data address; not a memory engine */
	PMS_ENG_OVERFLOW,  /* overflow (IP) sampling of any event (cycles,
			    * instructions, cpu-clock ...): the IP, thread,
			    * CPU and call path when a counter overflows; no
			    * data address; not a memory engine */
};

/* A node that is not known (not asked: no address, no pid, no topology);
 * node results are ids >= 0, or a negative enum pms_node_status, or this. */
#define PMS_NODE_UNKNOWN (-100000)
/* The one encoding of a memory node that is not a node id, used by the
 * decoration stage (pmuscope/memdeco.h), the NUMA oracle and the reports.
 * The values are the negative errno statuses move_pages(2) writes, so an
 * oracle status is one of them as is. */
enum pms_node_status {
	PMS_NODE_NO_BLOCK = -2,      /* -ENOENT: the physical address is in no memory
				      * block, or the page is not present */
	PMS_NODE_TASK_GONE = -3,     /* -ESRCH: the task exited before it was asked */
	PMS_NODE_NO_PHYS = -14,      /* -EFAULT: the kernel had no physical address
				      * (phys 0), or the page is not mapped */
	PMS_NODE_BAD_ADDR = -22,     /* -EINVAL: the address is not a user page */
	PMS_NODE_NOT_ASKED = PMS_NODE_UNKNOWN, /* nothing could tell */
	/* Final statuses of a live run's samples that were not asked about:
	 * their process was let go at the exit hold's budget (pms_liverun_opts
	 * hold_budget_ms) before its pages were asked about; or the sample was
	 * taken in an address space that an exec of its process replaced
	 * before it was asked about (the new image's pages at that address say
	 * nothing about the old ones). */
	PMS_NODE_HOLD_BUDGET = -100001,
	PMS_NODE_EXEC_REPLACED = -100002,
};
/* A short constant phrase for a node result: "node" for ids >= 0, the
 * reason of a status, "other" for any other negative value. */
const char *pms_node_status_name(int node);

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
	/* the sample's kernel addresses (IP, call path, branches) are of another
	 * kernel than the one a report names them from (a merged report's file
	 * recorded under another kernel): they stay unnamed, apart from the
	 * same addresses of the naming kernel's files */
	PMS_MS_KERNEL_FOREIGN = 1u << 12,
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

/* The one engine name table.  name: the identifier options and JSON use
 * ("ibs", "pebs", "spe", "software", "ibs_fetch", "none"); brand: for
 * sentences ("AMD IBS"); label: one line for reports.  "?" for a value
 * outside the enum. */
const char *pms_engine_name(enum pms_engine e);
const char *pms_engine_brand(enum pms_engine e);
const char *pms_engine_label(enum pms_engine e);
/* The engine of a name as pms_engine_name writes it: 0, or PMS_ENOENT. */
int pms_engine_parse(const char *name, enum pms_engine *out);

/* ---- one record -> one memory sample ------------------------------------ */

struct pms_sample;
struct pms_ibs_cpu;

/* What the converter needs besides the record: the engine that wrote it and
 * that engine's context. */
struct pms_memconv_ctx {
	enum pms_engine engine;
	uint64_t sample_type;              /* the event's attr.sample_type */
	/* IBS: the CPU (family, model) to decode a PERF_SAMPLE_RAW payload
	 * with (its caps word comes from the payload); NULL = RAW is not
	 * decoded and the kernel's fields are taken as they are. */
	const struct pms_ibs_cpu *ibs_cpu;
	unsigned ibs_ldlat;                /* IBS: attr.config1 bits 0-11 */
	/* attr.sample_period when the event is not in frequency mode: a
	 * sample without PERIOD stands for that many events (0 = unknown) */
	uint64_t fixed_period;
};

/* *flags of pms_memsample_from_sample */
#define PMS_MEMCONV_RAW_CHECKED  0x1u /* IBS RAW registers were decoded */
#define PMS_MEMCONV_RAW_MISMATCH 0x2u /* ... and disagreed with the kernel's fields */
#define PMS_MEMCONV_RAW_MALFORMED 0x4u /* an IBS op RAW payload that does not parse
					* (shorter than its caps announce ...):
					* pms_error_last() says how */

/* Turn one decoded PERF_RECORD_SAMPLE into a memory sample, with one set of
 * validity rules per engine (docs/mem.md "Validity rules"; the rules cite
 * the kernel code that fills each field).  Used by the live sampler and by
 * the recorded-file source alike.  flags may be NULL.  Returns 0, or
 * PMS_EINVAL for a NULL argument. */
int pms_memsample_from_sample(const struct pms_sample *in, const struct pms_memconv_ctx *ctx,
			      struct pms_memsample *out, unsigned *flags);

/* The engine of an event from its PMU's name as the kernel registers it
 * ("ibs_op", "cpu", "cpu_core", "arm_spe_0", "software") and the CPU
 * vendor ("GenuineIntel", "AuthenticAMD"; NULL or "" when unknown): the
 * core PMU "cpu" is PEBS only on Intel (AMD's core PMU has the same name).
 * PMS_ENG_NONE when the PMU is no memory-sampling engine. */
enum pms_engine pms_engine_of_pmu(const char *pmu, const char *vendor);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
