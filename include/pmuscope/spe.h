/* Arm SPE (Statistical Profiling Extension) packet stream: one packet, one
 * record, the record as an engine-neutral memory sample, and the inverse
 * encoder used to build fake AUX streams in tests.
 *
 * Ownership: pure byte work.  Input buffers are borrowed (a reader keeps a
 * borrowed pointer, valid as long as the caller keeps the bytes); results go
 * into caller-owned structs; nothing is allocated.
 *
 * The packet layouts are the architected ones (Arm ARM DDI 0487, "The
 * Statistical Profiling Extension", sample record specification); the facts
 * each layout rests on are listed at the top of src/decode/spe_packet.c.
 * Verified on synthetic streams only, never on SPE silicon.
 */
#ifndef PMUSCOPE_SPE_H
#define PMUSCOPE_SPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/memsample.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* ---- One packet ----------------------------------------------------------- */

enum pms_spe_pkt_kind {
	PMS_SPE_PKT_PAD = 0,     /* 0x00; a run of them is one packet */
	PMS_SPE_PKT_END,         /* 0x01: end of record (no timestamp) */
	PMS_SPE_PKT_TIMESTAMP,   /* 0x71: ends a record, 8-byte payload */
	PMS_SPE_PKT_ADDRESS,     /* 0xb0-0xb7 (+extended index), 8-byte payload */
	PMS_SPE_PKT_COUNTER,     /* 0x98-0x9f (+extended index), 2-byte payload */
	PMS_SPE_PKT_CONTEXT,     /* 0x64-0x67, 4-byte payload */
	PMS_SPE_PKT_OP_TYPE,     /* 0x48-0x4b, 1-byte payload; index = class */
	PMS_SPE_PKT_EVENTS,      /* 0x42/0x52/0x62/0x72, 1/2/4/8-byte payload */
	PMS_SPE_PKT_DATA_SOURCE, /* 0x43/0x53/0x63/0x73, 1/2/4/8-byte payload */
	PMS_SPE_PKT_UNKNOWN      /* any other header: skipped by its size field */
};

/* Address packet indexes. */
#define PMS_SPE_ADDR_PC 0            /* instruction virtual address (INS) */
#define PMS_SPE_ADDR_BRANCH_TARGET 1
#define PMS_SPE_ADDR_DATA_VIRT 2
#define PMS_SPE_ADDR_DATA_PHYS 3
#define PMS_SPE_ADDR_PREV_BRANCH 4   /* previous branch target (FEAT_SPE_PBT) */

/* Counter packet indexes. */
#define PMS_SPE_CNT_TOTAL_LAT 0
#define PMS_SPE_CNT_ISSUE_LAT 1
#define PMS_SPE_CNT_XLAT_LAT 2

/* Context packet indexes. */
#define PMS_SPE_CTX_EL1 0 /* CONTEXTIDR_EL1 */
#define PMS_SPE_CTX_EL2 1 /* CONTEXTIDR_EL2 */

/* Operation type classes (low 2 bits of the header). */
#define PMS_SPE_OPC_OTHER 0
#define PMS_SPE_OPC_LDST 1   /* load, store, atomic */
#define PMS_SPE_OPC_BRANCH 2 /* branch or exception return */

struct pms_spe_packet {
	enum pms_spe_pkt_kind kind;
	size_t size;          /* bytes the packet takes: header(s) + payload (PAD: the run) */
	uint8_t header;       /* the header byte that names the packet (the 2nd if extended) */
	bool extended;        /* a 2-byte header (0b001000xx prefix) */
	unsigned index;       /* ADDRESS/COUNTER index 0..31, CONTEXT index, OP_TYPE class */
	unsigned payload_len; /* 0, 1, 2, 4 or 8 */
	uint64_t payload;     /* the payload, little-endian as stored */
};

/* Decode the packet at buf[0].  Returns its size (> 0), 0 when len is 0, or
 * PMS_EPARSE when the header is invalid or the buffer ends inside the packet;
 * pkt->size then holds the bytes the packet needs (0 for an invalid
 * header), so size > len means "cut, give me more".  PMS_EINVAL for NULL. */
int pms_spe_packet_next(const uint8_t *buf, size_t len, struct pms_spe_packet *pkt);

/* Stable name of a packet kind ("ADDRESS"). */
const char *pms_spe_packet_kind_name(enum pms_spe_pkt_kind kind);

/* ---- One record ---------------------------------------------------------- */

/* SPE event numbers (bit n of pms_spe_record.events is event n;
 * kernel-abi-facts.md 4). */
#define PMS_SPE_EVENT_EXCEPTION_GEN 0
#define PMS_SPE_EVENT_RETIRED 1
#define PMS_SPE_EVENT_L1D_ACCESS 2
#define PMS_SPE_EVENT_L1D_REFILL 3
#define PMS_SPE_EVENT_TLB_ACCESS 4
#define PMS_SPE_EVENT_TLB_WALK 5
#define PMS_SPE_EVENT_NOT_TAKEN 6
#define PMS_SPE_EVENT_MISPRED 7
#define PMS_SPE_EVENT_LLC_ACCESS 8
#define PMS_SPE_EVENT_LLC_MISS 9
#define PMS_SPE_EVENT_REMOTE_ACCESS 10
#define PMS_SPE_EVENT_ALIGNMENT 11
#define PMS_SPE_EVENT_TRANSACTIONAL 16
#define PMS_SPE_EVENT_PARTIAL_PREDICATE 17
#define PMS_SPE_EVENT_EMPTY_PREDICATE 18
#define PMS_SPE_EVENT_L2D_ACCESS 19
#define PMS_SPE_EVENT_L2D_MISS 20
#define PMS_SPE_EVENT_CACHE_DATA_MODIFIED 21
#define PMS_SPE_EVENT_RECENTLY_FETCHED 22
#define PMS_SPE_EVENT_DATA_SNOOPED 23
#define PMS_SPE_EVENT_STREAMING_SVE_MODE 24
#define PMS_SPE_EVENT_SMCU 25
#define PMS_SPE_EVENT_BIT(n) (1ULL << (n))

/* Which fields of a record its packets really carried. */
enum pms_spe_record_valid {
	PMS_SPE_R_PC = 1u << 0,
	PMS_SPE_R_BRANCH_TARGET = 1u << 1,
	PMS_SPE_R_PREV_BRANCH = 1u << 2,
	PMS_SPE_R_VADDR = 1u << 3,
	PMS_SPE_R_PADDR = 1u << 4,
	PMS_SPE_R_TOTAL_LAT = 1u << 5,
	PMS_SPE_R_ISSUE_LAT = 1u << 6,
	PMS_SPE_R_XLAT_LAT = 1u << 7,
	PMS_SPE_R_EVENTS = 1u << 8,
	PMS_SPE_R_OP = 1u << 9,
	PMS_SPE_R_DATA_SOURCE = 1u << 10,
	PMS_SPE_R_CONTEXT = 1u << 11,
	PMS_SPE_R_TIMESTAMP = 1u << 12,
};

/* Operation flags decoded from the Operation Type packet (op_flags). */
enum pms_spe_op_flag {
	PMS_SPE_F_LOAD = 1u << 0,       /* LDST class, ST bit clear */
	PMS_SPE_F_STORE = 1u << 1,      /* LDST class, ST bit set */
	PMS_SPE_F_ATOMIC = 1u << 2,     /* GP extended: AT */
	PMS_SPE_F_EXCLUSIVE = 1u << 3,  /* GP extended: EXCL */
	PMS_SPE_F_ACQREL = 1u << 4,     /* GP extended: AR (acquire/release) */
	PMS_SPE_F_GP_REG = 1u << 5,     /* general-purpose register load/store */
	PMS_SPE_F_SIMD_FP = 1u << 6,    /* SIMD&FP register load/store */
	PMS_SPE_F_SVE = 1u << 7,        /* SVE/SME register load/store, or SVE other op */
	PMS_SPE_F_SME = 1u << 8,        /* SME other op */
	PMS_SPE_F_GATHER = 1u << 9,     /* SVE load/store: gather/scatter (SG) */
	PMS_SPE_F_PRED = 1u << 10,      /* SVE: predicated */
	PMS_SPE_F_FP = 1u << 11,        /* other class (plain, SVE, SME): floating point */
	PMS_SPE_F_ASE = 1u << 12,       /* other: Advanced SIMD */
	PMS_SPE_F_UNSPEC_REG = 1u << 13,
	PMS_SPE_F_NV_SYSREG = 1u << 14,
	PMS_SPE_F_MTE_TAG = 1u << 15,
	PMS_SPE_F_MEMCPY = 1u << 16,
	PMS_SPE_F_MEMSET = 1u << 17,
	PMS_SPE_F_GCS = 1u << 18,       /* GCS load/store, or GCS branch */
	PMS_SPE_F_GCS_COMM = 1u << 19,  /* GCS load/store: common */
	PMS_SPE_F_BRANCH = 1u << 20,    /* branch/ERET class */
	PMS_SPE_F_COND = 1u << 21,      /* conditional (branch or other) */
	PMS_SPE_F_INDIRECT = 1u << 22,  /* indirect branch */
	PMS_SPE_F_CALL = 1u << 23,      /* branch with link (CR = 1) */
	PMS_SPE_F_RETURN = 1u << 24,    /* procedure return (CR = 2) */
	PMS_SPE_F_CR_OTHER = 1u << 25,  /* other call/return kind (CR = 3) */
};

struct pms_spe_record {
	uint32_t valid;          /* PMS_SPE_R_*; a field whose bit is clear is 0 */
	size_t offset;           /* first byte of the record in the stream (padding before it excluded) */
	size_t size;             /* bytes from offset through the END/TIMESTAMP packet */

	/* Addresses: virtual ones are bits [55:0] sign-extended from bit 55. */
	uint64_t pc;
	uint8_t pc_el;           /* exception level 0..3 */
	bool pc_ns;              /* non-secure */
	uint64_t branch_target;
	uint8_t branch_el;
	bool branch_ns;
	uint64_t prev_branch;
	uint8_t prev_branch_el;
	bool prev_branch_ns;
	uint64_t vaddr;
	uint8_t vaddr_tag;       /* bits [63:56] of the data VA packet (TBI tag) */
	uint64_t paddr;          /* bits [55:0] */
	bool paddr_ns;
	bool paddr_ch;           /* physical address: checked (MTE) */
	uint8_t paddr_pat;       /* physical address tag, bits [59:56] */

	uint16_t total_lat, issue_lat, xlat_lat; /* cycles */

	uint64_t events;         /* bit n = SPE event n (PMS_SPE_EVENT_*) */

	uint8_t op_class;        /* PMS_SPE_OPC_* */
	uint8_t op_raw;          /* the Operation Type payload byte */
	uint32_t op_flags;       /* PMS_SPE_F_* */
	unsigned vec_bits;       /* SVE EVL / SME ETS in bits when the op carries one, else 0 */

	uint64_t data_source;    /* Data Source payload (implementation-defined code) */
	uint8_t data_source_len; /* its payload size */

	uint32_t context;        /* CONTEXTIDR value */
	uint8_t context_el;      /* PMS_SPE_CTX_* index of the packet */

	uint64_t timestamp;      /* raw TIMESTAMP payload (counter ticks, not ns) */

	unsigned unknown_packets; /* packets of unknown kind skipped inside this record */
	unsigned other_packets;   /* known kinds with an index not kept (counter 3+, address 5+) */
};

/* A stream reader over a byte range (e.g. one AUX chunk). */
struct pms_spe_reader {
	const uint8_t *buf;
	size_t len;
	size_t pos;              /* next byte to read */
	uint64_t records;        /* records returned */
	uint64_t unknown_packets;/* unknown packets skipped */
	uint64_t pad_bytes;      /* padding bytes skipped */
	uint64_t bad_headers;    /* invalid headers met (each one PMS_EPARSE) */
	size_t left;             /* at the end: bytes after the last complete record */
	bool cut;                /* at the end: the stream stops inside a packet */
};

void pms_spe_reader_init(struct pms_spe_reader *r, const void *buf, size_t len);

/* Assemble the next record: packets up to and including an END or TIMESTAMP
 * packet.  Padding is skipped; unknown packets are skipped by their size and
 * counted.  Returns 1 with *rec filled; 0 at the end of the bytes, with
 * r->left = bytes after the last complete record (an unterminated record
 * and/or a packet cut by the end; r->cut tells the latter; keep them and
 * prepend them to the next chunk); PMS_EPARSE for an invalid header, the
 * message naming its stream offset: the record in progress is dropped and
 * r->pos moves one byte past the bad header, so calling again resumes;
 * PMS_EINVAL for NULL arguments. */
int pms_spe_record_next(struct pms_spe_reader *r, struct pms_spe_record *rec);

/* The record as a memory sample: engine PMS_ENG_SPE; ip (+EXACT_IP, and
 * KERNEL_IP when the PC's EL is not 0), addr, phys_addr, weight = total
 * latency, time = the raw timestamp (counter ticks; converting to perf time
 * is the caller's business), each only when the record carries it.
 * data_src (pms_spe_data_src, datasrc.h) is set for load/store/atomic ops
 * only; midr selects the vendor source table (0 = none) and is used only
 * when the record has a Data Source packet, so a missing packet never reads
 * as source code 0 (perf would use 0 there).  snoop_event_supported: the
 * CPU implements the DATA_SNOOPED event.  Returns 0 or PMS_EINVAL. */
int pms_spe_record_memsample(const struct pms_spe_record *r, uint32_t midr,
			     bool snoop_event_supported, struct pms_memsample *out);

/* ---- One AUX chunk of a recording (a PERF_RECORD_AUXTRACE payload) -------- */

/* Where the chunk came from: the AUXTRACE record's cpu and tid, and the MIDR
 * of that CPU (perfdata.h, pms_perfdata_reader_spe_midr; 0 = unknown). */
struct pms_spe_chunk_ctx {
	uint64_t midr;
	bool snoop_event_supported; /* the CPU implements DATA_SNOOPED */
	uint32_t cpu;               /* (uint32_t)-1: per-thread buffer */
	uint32_t tid;               /* the task of records without a CONTEXT
				     * packet: a per-thread buffer's thread,
				     * or pms_perfdata_event.aux_tid;
				     * (uint32_t)-1: none known */
	uint32_t pid;               /* its process; 0: not known (pid = tid) */
};

struct pms_spe_chunk_stats {
	uint64_t chunks;          /* chunks decoded */
	uint64_t records;         /* complete records */
	uint64_t mem_records;     /* of which memory operations (pms_spe_record_is_mem) */
	uint64_t context_records; /* of which carried a CONTEXT packet */
	uint64_t pad_bytes;
	uint64_t unknown_packets;
	uint64_t bad_headers;     /* invalid headers (the record in progress is dropped) */
	uint64_t cut_chunks;      /* chunks ending inside a record (lost, truncated data) */
	uint64_t cut_bytes;       /* bytes of those incomplete records */
};

/* Called for every complete record, with the record and its memory sample
 * (pms_spe_record_memsample with the context's MIDR; cpu from the chunk;
 * pid = tid = the CONTEXT packet's value when the record has one, which is
 * what the kernel writes there (CONTEXTIDR_EL1 holds the pid when the
 * kernel runs with CONFIG_PID_IN_CONTEXTIDR), else the context's task).  A
 * non-zero return stops the decoding and is returned. */
typedef int (*pms_spe_record_fn)(void *arg, const struct pms_spe_record *rec,
				 const struct pms_memsample *ms);

/* Decode one chunk.  Each chunk is decoded on its own, as perf does (the
 * driver pads every AUX record to a record boundary, so a record never
 * straddles two chunks); bytes after the last complete record are counted as
 * cut (stats.cut_chunks, cut_bytes).  stats accumulates (zero it first).
 * Returns 0, fn's non-zero value, or PMS_EINVAL. */
int pms_spe_chunk_decode(const void *buf, size_t len, const struct pms_spe_chunk_ctx *ctx,
			 struct pms_spe_chunk_stats *stats, pms_spe_record_fn fn, void *arg);

/* A record perf turns into a "memory" sample (tools/perf/util/arm-spe.c,
 * arm_spe_sample: a load/store/atomic operation type). */
bool pms_spe_record_is_mem(const struct pms_spe_record *rec);

/* A mispredicted branch (issue 14's SPE branch packets), as perf's
 * --itrace=b "branch-miss" sample takes it (tools/perf/util/arm-spe.c
 * arm_spe__synth_branch_sample; the record's MISPRED event,
 * arm-spe-decoder.c:238-239): from = the PC, to = the Branch Target address
 * packet (0 when the record has none), latency = the total latency. */
struct pms_spe_branch {
	uint64_t from, to;
	uint16_t latency;
	bool not_taken;    /* the NOT_TAKEN event: a conditional branch not taken */
	uint32_t op_flags; /* PMS_SPE_F_BRANCH, _COND, _INDIRECT, _CALL, _RETURN ... */
};

/* 1 and *out when rec has the MISPRED event, else 0 (*out untouched). */
int pms_spe_record_branch_miss(const struct pms_spe_record *rec, struct pms_spe_branch *out);

/* ---- The inverse, for tests and fake AUX streams ------------------------- */

/* Write rec as packets: CONTEXT, PC, OP_TYPE (op_class/op_raw; op_flags is
 * ignored), EVENTS (smallest of 1/2/4/8 bytes that holds them), counters,
 * data VA (with vaddr_tag), data PA, DATA_SOURCE (data_source_len if 1/2/4/8,
 * else 2 bytes), branch target, previous branch, then TIMESTAMP if valid,
 * else END.  Only fields whose valid bit is set are written.  Returns the
 * record's size in bytes; the bytes are written only when size is at least
 * that (buf may be NULL with size 0 to measure).  PMS_EINVAL for NULL rec. */
int pms_spe_encode_record(const struct pms_spe_record *rec, uint8_t *buf, size_t size);

/* ---- Timestamps -------------------------------------------------------------
 * SPE TIMESTAMP packets hold the generic timer's counter; perf time is
 * time_zero + cyc * time_mult >> time_shift, with the fields of the ring's
 * user page (include/uapi/linux/perf_event.h, the time_zero comment) or of a
 * recording's PERF_RECORD_TIME_CONV (tools/lib/perf/include/perf/event.h
 * struct perf_record_time_conv; perf's tsc_to_perf_time,
 * tools/perf/util/tsc.c).  One conversion for the live sampler and files. */
struct pms_spe_time_conv {
	uint64_t time_shift, time_mult, time_zero;
	uint64_t time_cycles, time_mask; /* with cap_user_time_short */
	bool cap_user_time_zero;         /* false: the counter has no perf time */
	bool cap_user_time_short;
};

/* cyc in perf time into *ns; false (and *ns untouched) when tc says there
 * is no conversion (cap_user_time_zero clear, or a shift of 64 and up). */
bool pms_spe_time_to_perf(const struct pms_spe_time_conv *tc, uint64_t cyc, uint64_t *ns);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
