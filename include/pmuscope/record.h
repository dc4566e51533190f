/* Pure decoding and encoding of perf ring-buffer / perf.data records
 * (PERF_RECORD_SAMPLE and the side-band records a sampler meets).
 *
 * Ownership: every pointer that pms_sample_parse()/pms_record_parse() put in
 * their out-structs (callchain, raw, branch entries, registers, user stack,
 * aux data, strings) borrows from the record buffer the caller passed and is
 * valid only while that buffer is; the decoder allocates nothing.
 *
 * Records are in the byte order of the machine that wrote them; these
 * functions read and write the host's order (a perf.data reader swaps first).
 * Borrowed arrays may be unaligned: read them with pms_u64_at(),
 * pms_branch_at(), pms_sample_read_entry() and pms_sample_regs_get().
 *
 * Layouts follow include/uapi/linux/perf_event.h and the order in which
 * kernel/events/core.c perf_output_sample() writes (see
 * reference/kernel-abi-facts.md 1.4-1.6).
 */
#ifndef PMUSCOPE_RECORD_H
#define PMUSCOPE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/perf_event.h>

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* attr.sample_type bits (include/uapi/linux/perf_event.h enum
 * perf_event_sample_format).  Defined here so the decoder does not depend on
 * the age of the installed UAPI header. */
#define PMS_SAMPLE_IP             (1ULL << 0)
#define PMS_SAMPLE_TID            (1ULL << 1)
#define PMS_SAMPLE_TIME           (1ULL << 2)
#define PMS_SAMPLE_ADDR           (1ULL << 3)
#define PMS_SAMPLE_READ           (1ULL << 4)
#define PMS_SAMPLE_CALLCHAIN      (1ULL << 5)
#define PMS_SAMPLE_ID             (1ULL << 6)
#define PMS_SAMPLE_CPU            (1ULL << 7)
#define PMS_SAMPLE_PERIOD         (1ULL << 8)
#define PMS_SAMPLE_STREAM_ID      (1ULL << 9)
#define PMS_SAMPLE_RAW            (1ULL << 10)
#define PMS_SAMPLE_BRANCH_STACK   (1ULL << 11)
#define PMS_SAMPLE_REGS_USER      (1ULL << 12)
#define PMS_SAMPLE_STACK_USER     (1ULL << 13)
#define PMS_SAMPLE_WEIGHT         (1ULL << 14)
#define PMS_SAMPLE_DATA_SRC       (1ULL << 15)
#define PMS_SAMPLE_IDENTIFIER     (1ULL << 16)
#define PMS_SAMPLE_TRANSACTION    (1ULL << 17)
#define PMS_SAMPLE_REGS_INTR      (1ULL << 18)
#define PMS_SAMPLE_PHYS_ADDR      (1ULL << 19)
#define PMS_SAMPLE_AUX            (1ULL << 20)
#define PMS_SAMPLE_CGROUP         (1ULL << 21)
#define PMS_SAMPLE_DATA_PAGE_SIZE (1ULL << 22)
#define PMS_SAMPLE_CODE_PAGE_SIZE (1ULL << 23)
#define PMS_SAMPLE_WEIGHT_STRUCT  (1ULL << 24)
/* Every bit this decoder knows; records using others are refused. */
#define PMS_SAMPLE_KNOWN_MASK     ((1ULL << 25) - 1)
#define PMS_SAMPLE_WEIGHT_TYPE    (PMS_SAMPLE_WEIGHT | PMS_SAMPLE_WEIGHT_STRUCT)
/* The bits that make up the sample_id trailer of non-sample records. */
#define PMS_SAMPLE_ID_ALL_MASK                                                    \
	(PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_ID | PMS_SAMPLE_STREAM_ID | \
	 PMS_SAMPLE_CPU | PMS_SAMPLE_IDENTIFIER)

/* attr.read_format bits (enum perf_event_read_format). */
#define PMS_READ_TOTAL_TIME_ENABLED (1ULL << 0)
#define PMS_READ_TOTAL_TIME_RUNNING (1ULL << 1)
#define PMS_READ_ID                 (1ULL << 2)
#define PMS_READ_GROUP              (1ULL << 3)
#define PMS_READ_LOST               (1ULL << 4)
#define PMS_READ_KNOWN_MASK         ((1ULL << 5) - 1)

/* attr.branch_sample_type bits that change the record layout
 * (PERF_SAMPLE_BRANCH_HW_INDEX_SHIFT 17, PERF_SAMPLE_BRANCH_COUNTERS_SHIFT 19;
 * COUNTERS is missing from 6.1-era headers). */
#define PMS_BRANCH_HW_INDEX (1ULL << 17)
#define PMS_BRANCH_COUNTERS (1ULL << 19)

/* Record types (enum perf_event_type). */
#define PMS_RECORD_MMAP              1
#define PMS_RECORD_LOST              2
#define PMS_RECORD_COMM              3
#define PMS_RECORD_EXIT              4
#define PMS_RECORD_THROTTLE          5
#define PMS_RECORD_UNTHROTTLE        6
#define PMS_RECORD_FORK              7
#define PMS_RECORD_READ              8
#define PMS_RECORD_SAMPLE            9
#define PMS_RECORD_MMAP2             10
#define PMS_RECORD_AUX               11
#define PMS_RECORD_ITRACE_START      12
#define PMS_RECORD_LOST_SAMPLES      13
#define PMS_RECORD_SWITCH            14
#define PMS_RECORD_SWITCH_CPU_WIDE   15
#define PMS_RECORD_NAMESPACES        16
#define PMS_RECORD_KSYMBOL           17
#define PMS_RECORD_BPF_EVENT         18
#define PMS_RECORD_CGROUP            19
#define PMS_RECORD_TEXT_POKE         20
#define PMS_RECORD_AUX_OUTPUT_HW_ID  21
#define PMS_RECORD_CALLCHAIN_DEFERRED 22
/* perf-tool synthetic types start here (tools/lib/perf/include/perf/event.h);
 * they carry no sample_id trailer. */
#define PMS_RECORD_USER_TYPE_START   64

/* header.misc bits (PERF_RECORD_MISC_*).  Bits 13 and 14 mean different
 * things depending on the record type. */
#define PMS_MISC_CPUMODE_MASK      0x7
#define PMS_MISC_CPUMODE_UNKNOWN   0
#define PMS_MISC_KERNEL            1
#define PMS_MISC_USER              2
#define PMS_MISC_HYPERVISOR        3
#define PMS_MISC_GUEST_KERNEL      4
#define PMS_MISC_GUEST_USER        5
#define PMS_MISC_PROC_MAP_PARSE_TIMEOUT (1U << 12)
#define PMS_MISC_MMAP_DATA         (1U << 13)
#define PMS_MISC_COMM_EXEC         (1U << 13)
#define PMS_MISC_FORK_EXEC         (1U << 13)
#define PMS_MISC_SWITCH_OUT        (1U << 13)
#define PMS_MISC_EXACT_IP          (1U << 14)
#define PMS_MISC_SWITCH_OUT_PREEMPT (1U << 14)
#define PMS_MISC_MMAP_BUILD_ID     (1U << 14)
#define PMS_MISC_EXT_RESERVED      (1U << 15)

/* PERF_RECORD_AUX flags (PERF_AUX_FLAG_*). */
#define PMS_AUX_FLAG_TRUNCATED     0x01ULL
#define PMS_AUX_FLAG_OVERWRITE     0x02ULL
#define PMS_AUX_FLAG_PARTIAL       0x04ULL
#define PMS_AUX_FLAG_COLLISION     0x08ULL
#define PMS_AUX_FLAG_PMU_FORMAT_TYPE_MASK 0xff00ULL

/* Largest record: header.size is a u16 and records are 8-byte multiples. */
#define PMS_RECORD_MAX_SIZE 65528

/* How the records of one event are laid out: the attr fields that decide it. */
struct pms_sample_layout {
	uint64_t sample_type;        /* PMS_SAMPLE_* */
	uint64_t read_format;        /* PMS_READ_* */
	uint64_t branch_sample_type; /* only HW_INDEX and COUNTERS matter */
	uint64_t sample_regs_user;   /* register mask: popcount = regs per sample */
	uint64_t sample_regs_intr;
	bool sample_id_all;          /* non-sample records carry a sample_id trailer */
};

/* Fill *l from attr.  Fields past attr->size (when attr->size is not 0, as
 * with an old, shorter attr from a perf.data file copied into a zeroed
 * struct) are taken as 0. */
void pms_sample_layout_from_attr(struct pms_sample_layout *l,
				 const struct perf_event_attr *attr);

/* Read the i-th u64 of a borrowed (possibly unaligned) array. */
static inline uint64_t pms_u64_at(const void *p, size_t i)
{
	uint64_t v;
	memcpy(&v, (const unsigned char *)p + i * 8, sizeof(v));
	return v;
}

/* One struct perf_branch_entry (24 bytes: from, to, flags), with the flag
 * bit-fields split out (LSB first: mispred 1, predicted 1, in_tx 1, abort 1,
 * cycles 16, type 4, spec 2, new_type 4, priv 3). */
struct pms_branch {
	uint64_t from, to, flags;
	bool mispred, predicted, in_tx, abort;
	uint16_t cycles;
	uint8_t type, spec, new_type, priv;
};

/* The i-th entry of a borrowed branch array (pms_sample.branch.entries). */
struct pms_branch pms_branch_at(const void *entries, size_t i);

/* A read_format value: value, plus id and lost when read_format has them. */
struct pms_read_entry {
	uint64_t value, id, lost;
};

/* PERF_SAMPLE_READ / PERF_RECORD_READ values.  Without PMS_READ_GROUP,
 * nr is 1 and the single entry is in `one`; with it, `entries` borrows nr
 * entries of entry_words u64 each (value, id?, lost?) from the record.
 * Read any entry with pms_sample_read_entry(). */
struct pms_sample_read {
	uint64_t read_format; /* the layout's, set by the parser (the encoder uses the layout's) */
	uint64_t time_enabled, time_running; /* when read_format has them */
	uint64_t nr;
	const void *entries;  /* group only */
	unsigned entry_words; /* 1 + ID? + LOST? */
	struct pms_read_entry one; /* non-group only */
};

/* Entry i (< r->nr) of a read group or the single value: 0, or PMS_ERANGE. */
int pms_sample_read_entry(const struct pms_sample_read *r, uint64_t i,
			  struct pms_read_entry *out);

/* Sampled registers: abi (0 none, 1 32-bit, 2 64-bit); when abi != 0, nr =
 * popcount(mask) u64 values borrowed from the record, lowest register first. */
struct pms_sample_regs {
	uint64_t abi;
	uint64_t mask;
	uint32_t nr;
	const void *regs;
};

/* The value of register number regno (a bit of mask): 0, or PMS_ENOENT when
 * it was not sampled (abi 0, or regno not in the mask). */
int pms_sample_regs_get(const struct pms_sample_regs *r, unsigned regno, uint64_t *out);

/* One decoded PERF_RECORD_SAMPLE.  `present` holds the PMS_SAMPLE_* bits that
 * were decoded (the layout's sample_type); fields of other bits are 0/NULL. */
struct pms_sample {
	uint64_t present;
	uint16_t misc;       /* header.misc; the encoder writes this */
	uint8_t cpumode;     /* misc & PMS_MISC_CPUMODE_MASK (parse only) */
	bool exact_ip;       /* misc & PMS_MISC_EXACT_IP (parse only) */

	uint64_t id;         /* IDENTIFIER and/or ID (the kernel writes the same value) */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu, cpu_res;
	uint64_t period;
	struct pms_sample_read read;

	uint64_t callchain_nr;
	const void *callchain; /* callchain_nr u64s, context markers mixed in */

	uint32_t raw_size;     /* bytes at raw (the kernel pads so 4 + size is 8-aligned) */
	const void *raw;

	struct {
		uint64_t nr;
		uint64_t hw_idx;        /* when branch_sample_type has HW_INDEX */
		const void *entries;    /* nr x 24 bytes; read with pms_branch_at() */
		const void *counters;   /* nr u64s when branch_sample_type has COUNTERS */
	} branch;

	struct pms_sample_regs regs_user;

	uint64_t stack_size;      /* bytes at stack_data */
	const void *stack_data;
	uint64_t stack_dyn_size;  /* valid bytes of the dump (<= stack_size) */

	uint64_t weight;          /* the whole u64 (WEIGHT or WEIGHT_STRUCT) */
	uint32_t weight_var1_dw;  /* WEIGHT_STRUCT view: weight / latency */
	uint16_t weight_var2_w;   /* ins_lat */
	uint16_t weight_var3_w;   /* retire_lat / p_stage_cyc */

	uint64_t data_src;        /* union perf_mem_data_src */
	uint64_t transaction;
	struct pms_sample_regs regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;

	uint64_t aux_size;
	const void *aux;
};

/* Decode a PERF_RECORD_SAMPLE that starts (with its perf_event_header) at rec.
 * Reads at most min(len, header.size) bytes.  Returns 0, or PMS_EPARSE (with
 * the byte offset and field in the message) for a truncated or inconsistent
 * record, PMS_EINVAL for a record of another type, PMS_ENOTSUP for a
 * sample_type/read_format bit this decoder does not know. */
int pms_sample_parse(const struct pms_sample_layout *l, const void *rec, size_t len,
		     struct pms_sample *out);

/* Encode s as a PERF_RECORD_SAMPLE under layout l (only the layout's bits are
 * written; s->present is ignored) into buf.  The size is rounded up to 8 with
 * zero bytes, like the kernel.  For read groups, s->read.entries must hold
 * nr entries in the record's form for l->read_format.  *len gets the record
 * size, also when the result is PMS_ERANGE (cap too small; nothing is written
 * past cap) or PMS_ERANGE for a record over PMS_RECORD_MAX_SIZE;
 * PMS_EINVAL for a NULL array with a non-zero count. */
int pms_sample_encode(const struct pms_sample_layout *l, const struct pms_sample *s,
		      void *buf, size_t cap, size_t *len);

/* The sample_id trailer of non-sample records (when sample_id_all). */
struct pms_sample_id {
	uint64_t present; /* subset of PMS_SAMPLE_ID_ALL_MASK */
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;      /* ID and/or IDENTIFIER */
	uint64_t stream_id;
	uint32_t cpu, cpu_res;
};

struct pms_rec_mmap {       /* MMAP, MMAP2 */
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	/* MMAP2 only: */
	bool has_build_id;  /* misc has PMS_MISC_MMAP_BUILD_ID */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint8_t build_id_size; /* <= 20 */
	uint8_t build_id[20];
	uint32_t prot, flags;
	const char *filename; /* NUL-terminated, borrowed */
};

struct pms_rec_comm {       /* COMM; misc PMS_MISC_COMM_EXEC marks exec */
	uint32_t pid, tid;
	const char *comm;     /* NUL-terminated, borrowed */
};

struct pms_rec_fork {       /* FORK, EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct pms_rec_lost {       /* LOST: id is 0 for LOST_SAMPLES */
	uint64_t id, lost;
};

struct pms_rec_throttle {   /* THROTTLE, UNTHROTTLE */
	uint64_t time, id, stream_id;
};

struct pms_rec_aux {        /* AUX */
	uint64_t aux_offset, aux_size, flags; /* PMS_AUX_FLAG_* */
};

struct pms_rec_pid_tid {    /* ITRACE_START; SWITCH_CPU_WIDE (next/prev task) */
	uint32_t pid, tid;
};

struct pms_rec_read {       /* READ */
	uint32_t pid, tid;
	struct pms_sample_read values;
};

/* Any record.  Which union member is valid depends on type:
 * MMAP/MMAP2 mmap, COMM comm, FORK/EXIT fork, LOST/LOST_SAMPLES lost,
 * THROTTLE/UNTHROTTLE throttle, AUX aux, ITRACE_START itrace,
 * SWITCH_CPU_WIDE switch_cpu_wide (SWITCH has no body), READ read,
 * SAMPLE sample.  Other types are passed through: body/body_len borrow the
 * bytes between the header and the sample_id trailer. */
struct pms_record {
	uint32_t type;
	uint16_t misc;
	uint16_t size;  /* header.size (parse only; the encoder computes it) */
	union {
		struct pms_rec_mmap mmap;
		struct pms_rec_comm comm;
		struct pms_rec_fork fork;
		struct pms_rec_lost lost;
		struct pms_rec_throttle throttle;
		struct pms_rec_aux aux;
		struct pms_rec_pid_tid itrace;
		struct pms_rec_pid_tid switch_cpu_wide;
		struct pms_rec_read read;
		struct pms_sample sample;
	};
	struct pms_sample_id sample_id; /* not for SAMPLE (its fields are in sample) */
	const void *body;  /* types without a decoder here */
	size_t body_len;
};

/* Decode any record at rec (see pms_sample_parse for the rules; SAMPLE is
 * delegated to it).  Strings must be NUL-terminated inside the record.
 * Types without a decoder here return 0 with body/body_len set. */
int pms_record_parse(const struct pms_sample_layout *l, const void *rec, size_t len,
		     struct pms_record *out);

/* Encode r (type, misc, the union member for type, sample_id when
 * l->sample_id_all) into buf; same size rules and errors as
 * pms_sample_encode.  Strings are padded with NULs to the next 8 bytes.
 * A SAMPLE is encoded from r->sample (header.misc from r->sample.misc);
 * types without a decoder here from body/body_len. */
int pms_record_encode(const struct pms_sample_layout *l, const struct pms_record *r,
		      void *buf, size_t cap, size_t *len);

/* The event id of a record without decoding it, from the position the layout
 * fixes (IDENTIFIER, else ID; for non-sample records only with
 * sample_id_all).  0, PMS_ENOENT when the layout puts no id in this record,
 * PMS_EPARSE when the record is too short. */
int pms_record_peek_id(const struct pms_sample_layout *l, const void *rec, size_t len,
		       uint64_t *id);

/* "SAMPLE", "MMAP2", ...; "UNKNOWN" for other types. */
const char *pms_record_type_name(uint32_t type);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
