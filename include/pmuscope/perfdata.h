/* Writing perf.data files (the "PERFILE2" format that `perf report` and
 * `perf script` read).
 *
 * A writer lays a file out as perf does
 *     [header 104 B][ids][attrs][data: the records][feature table + payloads]
 * (perf finds the feature table at data.offset + data.size,
 * tools/perf/util/header.c perf_header__process_sections).  The ids and
 * attrs go down with the first record (or pms_perfdata_writer_sync()),
 * together with a header that makes the file readable from then on: no
 * features yet, data.size brought up to date every MiB of records and at
 * each sync.  A file whose writer was killed thus reads, with perf, up to
 * the last update, and pmuscope's reader recovers the records after it and
 * says the file was not finished (stats.unfinished).  Close writes the
 * features and the final header.  The writer only does pwrite() on the fd
 * it is given; it never opens, seeks, syncs or closes anything.
 *
 * A failed write (a full disk) is kept: every later call that writes
 * returns the same PMS_EIO with the same message (the section and the
 * errno), and close still writes the header that makes the records before
 * the failure readable, then returns that first failure.
 *
 * Attrs are written with the size of the struct perf_event_attr this library
 * was compiled against (attr.size is set to it).  perf refuses attrs larger
 * than its own struct, so a perf older than the headers may not read the file.
 *
 * Ownership: pms_perfdata_writer_open() gives the caller a writer released
 * with pms_perfdata_writer_free(), which does not close the fd; the fd stays
 * the caller's.  Every pointer argument is borrowed and copied.
 */
#ifndef PMUSCOPE_PERFDATA_H
#define PMUSCOPE_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/record.h"
#include "pmuscope/spe.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

struct perf_event_attr;
struct pms_perfdata_writer;

/* "PERFILE2" read as a little-endian u64. */
#define PMS_PERFDATA_MAGIC 0x32454c4946524550ULL
/* "UNFINISH" read as a little-endian u64: while a writer has not closed the
 * file, the header's event_types.offset holds it (perf has ignored that
 * obsolete section since 2012; pmuscope's reader takes it as "not
 * finished"). */
#define PMS_PERFDATA_UNFINISHED_MARK 0x4853494e49464e55ULL
/* sizeof(struct perf_file_header): magic, size, attr_size, 3 sections,
 * 256-bit feature bitmap. */
#define PMS_PERFDATA_HEADER_SIZE 104

/* Feature bits of the header's adds_features bitmap
 * (tools/perf/util/header.h, enum HEADER_*). */
enum pms_perfdata_feature {
	PMS_PERFDATA_FEAT_BUILD_ID = 2,
	PMS_PERFDATA_FEAT_HOSTNAME = 3,
	PMS_PERFDATA_FEAT_OSRELEASE = 4,
	PMS_PERFDATA_FEAT_VERSION = 5,
	PMS_PERFDATA_FEAT_ARCH = 6,
	PMS_PERFDATA_FEAT_NRCPUS = 7,
	PMS_PERFDATA_FEAT_CPUDESC = 8,
	PMS_PERFDATA_FEAT_CPUID = 9,
	PMS_PERFDATA_FEAT_TOTAL_MEM = 10,
	PMS_PERFDATA_FEAT_CMDLINE = 11,
	PMS_PERFDATA_FEAT_EVENT_DESC = 12,
	PMS_PERFDATA_FEAT_CPU_TOPOLOGY = 13,
	PMS_PERFDATA_FEAT_NUMA_TOPOLOGY = 14,
	PMS_PERFDATA_FEAT_BRANCH_STACK = 15,
	PMS_PERFDATA_FEAT_PMU_MAPPINGS = 16,
	PMS_PERFDATA_FEAT_GROUP_DESC = 17,
	PMS_PERFDATA_FEAT_AUXTRACE = 18,
	PMS_PERFDATA_FEAT_STAT = 19,
	PMS_PERFDATA_FEAT_CACHE = 20,
	PMS_PERFDATA_FEAT_SAMPLE_TIME = 21,
	PMS_PERFDATA_FEAT_MEM_TOPOLOGY = 22,
	PMS_PERFDATA_FEAT_CLOCKID = 23,
	PMS_PERFDATA_FEAT_DIR_FORMAT = 24,
	PMS_PERFDATA_FEAT_BPF_PROG_INFO = 25,
	PMS_PERFDATA_FEAT_BPF_BTF = 26,
	PMS_PERFDATA_FEAT_COMPRESSED = 27,
	PMS_PERFDATA_FEAT_CPU_PMU_CAPS = 28,
	PMS_PERFDATA_FEAT_CLOCK_DATA = 29,
	PMS_PERFDATA_FEAT_HYBRID_TOPOLOGY = 30,
	PMS_PERFDATA_FEAT_PMU_CAPS = 31,
	/* pmuscope's own: the allocation records of a tracked command
	 * (include/pmuscope/alloc.h, back to back in time order; docs/mem.md).
	 * perf 6.12 skips a feature it does not know (header.c,
	 * perf_file_section__process: "unknown feature", a debug line). */
	PMS_PERFDATA_FEAT_PMUSCOPE_ALLOC = 192,
	PMS_PERFDATA_FEAT_MAX = 256 /* size of the bitmap, not a feature */
};

/* Start a perf.data file on fd (opened for writing by the caller; must
 * support pwrite).  Writes a zeroed placeholder header at offset 0; records
 * follow it.  PMS_EIO (naming "header" and the errno) if that write fails. */
int pms_perfdata_writer_open(int fd, struct pms_perfdata_writer **out);

/* Add an event: attr (sizeof(struct perf_event_attr) bytes are copied; the
 * copy's size field is set to that) and the nids sample ids that records of
 * this event carry (PERF_SAMPLE_ID / IDENTIFIER; may be 0 with one attr).
 * Only before the first record: readers need every attr to parse any record.
 * PMS_EINVAL after the first record or after close. */
int pms_perfdata_writer_add_attr(struct pms_perfdata_writer *w,
				 const struct perf_event_attr *attr,
				 const uint64_t *ids, size_t nids);

/* Append one complete record (struct perf_event_header first).  len must
 * equal header.size, be at least 8 and a multiple of 8 (PMS_EINVAL
 * otherwise); at least one attr must have been added.  PMS_EIO naming the
 * data section, the record's number and offset if the write fails. */
int pms_perfdata_writer_write(struct pms_perfdata_writer *w, const void *record,
			      size_t len);

/* Accounting records, as the kernel writes them to the ring (uapi
 * perf_event.h) and perf copies them into the file, so that `perf report
 * --stats` and readers see what was lost: LOST (id of the event, number of
 * records lost) and LOST_SAMPLES (samples the kernel dropped).  Attr 0's
 * sample_id trailer is appended when it has sample_id_all (zero but for the
 * id).  THROTTLE/UNTHROTTLE records come from the kernel whole and are
 * written with pms_perfdata_writer_write(). */
int pms_perfdata_writer_lost(struct pms_perfdata_writer *w, uint64_t id, uint64_t lost);
int pms_perfdata_writer_lost_samples(struct pms_perfdata_writer *w, uint64_t lost);

/* Make the file on disk readable as it is now: the attrs (once) and a
 * header whose data.size covers every record written so far (no features:
 * those come at close).  Cheap (one 104-byte write); call it now and then
 * (the writer also does it every MiB).  PMS_EINVAL before any attr; a
 * kept write failure otherwise. */
int pms_perfdata_writer_sync(struct pms_perfdata_writer *w);
/* ---- AUX traces (perf-tool records, tools/lib/perf/include/perf/event.h) ----
 * PERF_RECORD_AUXTRACE_INFO (70): u32 type, u32 reserved, u64 priv[];
 * PERF_RECORD_AUXTRACE (71): u64 size, offset, reference; u32 idx, tid, cpu,
 * reserved; then `size` bytes of trace that header.size does not count. */
#define PMS_PERFDATA_RECORD_AUXTRACE_INFO 70
#define PMS_PERFDATA_RECORD_AUXTRACE 71
/* PERF_RECORD_TIME_CONV (79): u64 time_shift, time_mult, time_zero,
 * time_cycles, time_mask; u8 cap_user_time_zero, cap_user_time_short,
 * reserved[6] (struct perf_record_time_conv). */
#define PMS_PERFDATA_RECORD_TIME_CONV 79
/* auxtrace_info.type (tools/perf/util/auxtrace.h, enum auxtrace_type). */
#define PMS_AUXTRACE_TYPE_INTEL_PT 1
#define PMS_AUXTRACE_TYPE_ARM_SPE 4

struct pms_perfdata_auxtrace {
	uint64_t size;      /* trace bytes after the record (a multiple of 8) */
	uint64_t offset;    /* of the chunk in the AUX area */
	uint64_t reference; /* a unique value perf uses to order chunks */
	uint32_t idx;       /* AUX mmap index: the queue */
	uint32_t tid;       /* thread of a per-thread mmap, (u32)-1 for per-CPU */
	uint32_t cpu;       /* CPU of a per-CPU mmap, (u32)-1 for per-thread */
};

/* Append a PERF_RECORD_AUXTRACE_INFO of the given type with npriv u64s. */
int pms_perfdata_writer_write_auxtrace_info(struct pms_perfdata_writer *w, uint32_t type,
					    const uint64_t *priv, size_t npriv);

/* Append a PERF_RECORD_AUXTRACE and its len trace bytes, padded with zero
 * bytes to a multiple of 8 as perf record does (auxtrace_mmap__read); a->size
 * is ignored and the padded size written.  a->offset/reference/idx/tid/cpu
 * are written as given. */
int pms_perfdata_writer_write_auxtrace(struct pms_perfdata_writer *w,
				       const struct pms_perfdata_auxtrace *a, const void *data,
				       size_t len);

/* Append a PERF_RECORD_TIME_CONV as perf record synthesizes it from a
 * ring's user page (tools/perf/util/tsc.c perf_event__synth_time_conv). */
int pms_perfdata_writer_write_time_conv(struct pms_perfdata_writer *w,
					const struct pms_spe_time_conv *tc);

/* Set PMU_CAPS to one PMU's caps (name/value pairs), e.g. "ibs_op" with
 * "zen4_ibs_extensions" = "1": u32 nr_pmu (1), then u32 nr_caps, the pairs
 * as strings, then the PMU name (header.c, write_pmu_caps). */
struct pms_perfdata_str_pair;
int pms_perfdata_writer_set_pmu_caps(struct pms_perfdata_writer *w, const char *pmu,
				     const struct pms_perfdata_str_pair *caps, size_t ncaps);

/* Set feature feat's payload to len raw bytes (replacing an earlier one). */
int pms_perfdata_writer_set_feature(struct pms_perfdata_writer *w, unsigned feat,
				    const void *payload, size_t len);

/* Set a string feature (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID)
 * in perf's string form: u32 len, then s, its NUL and zero padding, len
 * counting all of them rounded up to 64 (header.c, do_write_string). */
int pms_perfdata_writer_set_string(struct pms_perfdata_writer *w, unsigned feat,
				   const char *s);

/* Set NRCPUS: u32 available (max present CPU + 1), then u32 online. */
int pms_perfdata_writer_set_nrcpus(struct pms_perfdata_writer *w, uint32_t online,
				   uint32_t avail);

/* Structured features, in the payload formats perf reads
 * (tools/perf/util/header.c write_*); the structs are the reader's, declared
 * below.  Each replaces an earlier payload of the same feature.
 * NUMA_TOPOLOGY: u32 nr; per node u32 node, u64 mem_total, u64 mem_free
 * (kB), string cpus. */
struct pms_perfdata_numa_node;
struct pms_perfdata_mem_node;
struct pms_perfdata_pmu_map;
int pms_perfdata_writer_set_numa_topology(struct pms_perfdata_writer *w,
					  const struct pms_perfdata_numa_node *nodes, size_t n);
/* MEM_TOPOLOGY: u64 version (1), u64 block_size, u64 nr; per node u64 node,
 * u64 size (= nbits), then the bitmap as u64 nbits and its words. */
int pms_perfdata_writer_set_mem_topology(struct pms_perfdata_writer *w, uint64_t block_size,
					 const struct pms_perfdata_mem_node *nodes, size_t n);
/* PMU_MAPPINGS: u32 nr; per PMU u32 type, string name. */
int pms_perfdata_writer_set_pmu_mappings(struct pms_perfdata_writer *w,
					 const struct pms_perfdata_pmu_map *pmus, size_t n);
/* Append one entry to BUILD_ID: a perf_record_header_build_id (pid, 20-byte
 * id of which size bytes are used, filename padded to 8).  pid is the
 * machine's: -1 for the host, as perf writes it.  misc says KERNEL for
 * "[kernel...]" names and kernel modules (.ko), USER otherwise. */
int pms_perfdata_writer_add_build_id(struct pms_perfdata_writer *w, int32_t pid,
				     const uint8_t *id, uint8_t size, const char *filename);

/* Number of records and bytes written to the data section so far. */
uint64_t pms_perfdata_writer_records(const struct pms_perfdata_writer *w);
uint64_t pms_perfdata_writer_data_size(const struct pms_perfdata_writer *w);
/* File offset at which the next record goes (data.offset + data size), for
 * indexes of records by offset (AUXTRACE); 0 until the attrs are down (the
 * first record or pms_perfdata_writer_sync()). */
uint64_t pms_perfdata_writer_next_offset(const struct pms_perfdata_writer *w);

/* Finish the file: write the feature table and payloads after the data, then
 * the ids and attrs, then the real header.  PMS_EIO names the section
 * ("feature table", "feature 3 payload", "ids", "attrs", "header") and the
 * errno.  The writer accepts nothing after close (successful or not). */
int pms_perfdata_writer_close(struct pms_perfdata_writer *w);

/* Release w (NULL is fine).  Does not close the fd or finish the file. */
void pms_perfdata_writer_free(struct pms_perfdata_writer *w);

/* ======================================================================
 * Reading perf.data
 *
 * A reader takes the bytes of a perf.data file in file mode ("PERFILE2"
 * header with attr, data and feature sections) or pipe mode (a 16-byte
 * header, then a stream in which HEADER_ATTR, HEADER_FEATURE, ... records
 * carry what file mode keeps in sections), written in either byte order.
 * Everything it hands out is in host byte order.  Records come in file
 * order (perf sorts by time between FINISHED_ROUNDs: pms_perfdata_ordered);
 * PERF_RECORD_COMPRESSED/COMPRESSED2 are unpacked (zstd) and their records
 * returned in their place.  AUXTRACE payloads are skipped (size is given).
 *
 * Every offset and size is checked against the bytes there are.  A file
 * whose header, attrs or data section cannot be trusted is refused with
 * PMS_EPARSE naming the section and offset.  Inside the data, a record that
 * does not decode is skipped and counted (stats.bad_records), like perf,
 * which warns and goes on; a record whose size cannot be trusted ends the
 * data there (stats.truncated).  A bad feature section is left out
 * (stats.bad_features) and the rest is read.
 *
 * Ownership: pms_perfdata_reader_open_fd/_open_mem give the caller a reader
 * released with pms_perfdata_reader_free() (which does not close the fd).
 * A memory buffer is borrowed and must outlive the reader.  Everything the
 * reader returns (info, attrs, event contents) is owned by the reader;
 * what pms_perfdata_next() fills stays valid until the next call.
 * ====================================================================== */

struct pms_perfdata_reader;

/* One event (attr) of the file. */
struct pms_perfdata_attr {
	struct perf_event_attr *attr; /* host order, zero past the recorded size */
	uint32_t recorded_size;       /* attr.size as written (64..) */
	const uint64_t *ids;          /* sample ids of this event */
	size_t nids;
	const char *name;             /* EVENT_DESC name, or NULL */
	uint64_t sample_type;         /* attr->sample_type, for convenience */
};

struct pms_perfdata_str_pair {
	const char *a, *b;
};

struct pms_perfdata_numa_node {
	uint32_t node;
	uint64_t mem_total_kb, mem_free_kb;
	const char *cpus; /* cpu list, "0-27,56-83" */
};

struct pms_perfdata_mem_node {
	uint64_t node;
	uint64_t size;          /* perf's n->size: the bitmap's length in blocks
				 * (memory = blocks set x mem_block_size) */
	uint64_t nbits;         /* memory block bitmap (as recorded; = size) */
	const uint64_t *bitmap; /* ceil(nbits/64) words; bit b = block b */
};

struct pms_perfdata_pmu_map {
	uint32_t type;
	const char *name;
};

struct pms_perfdata_pmu_caps {
	const char *pmu; /* "cpu" for CPU_PMU_CAPS */
	size_t ncaps;
	const struct pms_perfdata_str_pair *caps; /* name, value */
};

struct pms_perfdata_build_id {
	int32_t pid;
	uint16_t misc;
	uint8_t size; /* bytes of id used (20 when the record does not say) */
	uint8_t id[20];
	const char *filename;
};

struct pms_perfdata_group {
	const char *name; /* as written: "{anon_group}" for unnamed groups */
	uint32_t leader_idx, nr_members;
};

/* The header features found (a `has` bit per feature number; fields of
 * absent features are 0/NULL). */
struct pms_perfdata_info {
	uint64_t has[PMS_PERFDATA_FEAT_MAX / 64];
	const char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem_kb;
	size_t ncmdline;
	const char *const *cmdline;
	/* CPU_TOPOLOGY */
	size_t ncore_sibs, nthread_sibs, ndie_sibs;
	const char *const *core_sibs, *const *thread_sibs, *const *die_sibs;
	size_t ncpu_topo;          /* entries in core_id/socket_id (0 if absent) */
	const uint32_t *core_id, *socket_id, *die_id; /* die_id may be NULL */
	/* NUMA_TOPOLOGY */
	size_t nnuma;
	const struct pms_perfdata_numa_node *numa;
	/* MEM_TOPOLOGY */
	uint64_t mem_version, mem_block_size;
	size_t nmem;
	const struct pms_perfdata_mem_node *mem;
	/* PMU_MAPPINGS */
	size_t npmu;
	const struct pms_perfdata_pmu_map *pmu;
	/* HYBRID_TOPOLOGY: a = pmu name, b = cpus */
	size_t nhybrid;
	const struct pms_perfdata_str_pair *hybrid;
	/* CPU_PMU_CAPS then PMU_CAPS, one entry per PMU */
	size_t npmu_caps;
	const struct pms_perfdata_pmu_caps *pmu_caps;
	/* BUILD_ID */
	size_t nbuild_ids;
	const struct pms_perfdata_build_id *build_ids;
	/* GROUP_DESC */
	size_t ngroups;
	const struct pms_perfdata_group *groups;
	/* CLOCKID: resolution of the sampling clock */
	uint64_t clockid_res_ns;
	/* COMPRESSED */
	uint32_t comp_version, comp_type, comp_level, comp_ratio, comp_mmap_len;
	/* The AUXTRACE_INFO record (the first one met; perf uses one):
	 * auxtrace_type 0 when none has been read yet. */
	uint32_t auxtrace_type;   /* PMS_AUXTRACE_TYPE_* */
	size_t nauxtrace_priv;
	const uint64_t *auxtrace_priv;
	/* PERF_RECORD_TIME_CONV (79, the first one met): the AUX trace's
	 * counter -> perf time conversion (pms_spe_time_to_perf).  A record
	 * from before time_cycles existed (32 bytes of fields) reads as
	 * cap_user_time_zero set, cap_user_time_short clear, as perf takes it
	 * (tools/perf/util/arm-spe.c arm_spe_process_auxtrace_info). */
	bool has_time_conv;
	struct pms_spe_time_conv time_conv;
};

struct pms_perfdata_stats {
	uint64_t records;        /* records returned (after unpacking) */
	uint64_t samples;
	uint64_t by_type[128];   /* records by type (< 128), COMPRESSED ones
				  * included (unpacked, not returned) */
	uint64_t bad_records;    /* skipped: did not decode */
	uint64_t unknown_id;     /* samples whose id matched no attr (given attr 0) */
	uint64_t compressed;     /* COMPRESSED/COMPRESSED2 records unpacked */
	uint64_t lost;           /* sum of LOST.lost */
	uint64_t lost_samples;   /* sum of LOST_SAMPLES.lost */
	uint64_t bad_features;   /* feature sections that did not parse */
	bool truncated;          /* the data ended inside a record */
	/* The writer did not finish the file (killed, power cut, full disk):
	 * the header has PMS_PERFDATA_UNFINISHED_MARK, or lists no features
	 * and has data.size 0 (perf's own unfinished files), records after the
	 * data section or a data section past the end of the file.  The
	 * records are read up to the end of the file (the last complete one). */
	bool unfinished;
	uint64_t recovered_bytes; /* data bytes read past the header's data.size */
	/* AUX traces: PERF_RECORD_AUX flags (each record counted once per
	 * flag) and the AUXTRACE bytes.  Truncated: the AUX buffer was full and
	 * data was lost; partial: the record holds an incomplete sample;
	 * collision: the hardware overwrote data. */
	uint64_t aux_records, aux_truncated, aux_partial, aux_collision;
	uint64_t auxtrace_bytes;  /* trace bytes of AUXTRACE records */
	uint64_t auxtrace_short;  /* AUXTRACE records whose bytes the data cut */
	/* Records of a type that is neither the kernel's nor perf's (a
	 * retyped or corrupt record; perf refuses the file): skipped, counted
	 * in bad_records too, and said by type in the problems. */
	uint64_t unknown_type;
};

/* One record from pms_perfdata_next(). */
struct pms_perfdata_event {
	struct pms_record rec;         /* decoded (see record.h); host order */
	const void *raw;               /* the record's bytes, host order */
	size_t raw_len;
	const struct pms_perfdata_attr *attr; /* the event it belongs to (never NULL) */
	size_t attr_idx;
	uint64_t file_offset;          /* of the record, or of its COMPRESSED record */
	bool from_compressed;
	/* (A SAMPLE's node from its PHYS_ADDR and MEM_TOPOLOGY is the
	 * decoration stage's: pmuscope/memdeco.h.) */
	/* PERF_RECORD_AUXTRACE: its fields and the trace bytes after it
	 * (aux_data, aux_len; borrowed, valid until the next call; aux_len is
	 * less than auxtrace.size when the data ends early).  Zero otherwise. */
	struct pms_perfdata_auxtrace auxtrace;
	const void *aux_data;
	size_t aux_len;
	/* PERF_RECORD_AUXTRACE: the task its trace records belong to when they
	 * carry no CONTEXT packet (pms_spe_chunk_ctx.pid/tid): a per-thread
	 * buffer's thread (auxtrace.tid; aux_pid 0: not known), else the task
	 * in the sample_id of the CPU's last PERF_RECORD_AUX (what the live
	 * sampler takes); aux_tid (uint32_t)-1 when there is none. */
	uint32_t aux_pid, aux_tid;
};

/* Open a reader on fd (a regular file is mapped; a pipe or other stream is
 * read as it comes, in pipe mode only).  The fd is not closed.  PMS_EPARSE
 * for a file that is not perf.data or whose header, attrs or ids cannot be
 * trusted; PMS_EIO when reading fails. */
int pms_perfdata_reader_open_fd(int fd, struct pms_perfdata_reader **out);

/* Open a reader on len bytes at buf (borrowed; either mode). */
int pms_perfdata_reader_open_mem(const void *buf, size_t len,
				 struct pms_perfdata_reader **out);

/* Next record into *ev: 1, 0 at the end of the data, or a negative PMS_E*
 * (PMS_EIO reading a stream, PMS_ENOMEM, PMS_EPARSE for a pipe-mode stream
 * that cannot be followed).  Records that do not decode are skipped and
 * counted, and the last one's message is kept for
 * pms_perfdata_reader_last_skip(). */
int pms_perfdata_next(struct pms_perfdata_reader *r, struct pms_perfdata_event *ev);

/* perf's time order over a reader (perf report's and perf script's ordered
 * events): kernel records with a time are held and handed out by time
 * (equal times in file order); at each FINISHED_ROUND those up to the
 * latest time seen at the round before go out, then the FINISHED_ROUND
 * itself; at the end the rest.  Records without a time and perf's own
 * records (type >= 64: AUXTRACE with its payload, HEADER_ATTR, ...) go out
 * as they come (an AUXTRACE after everything held: its samples are decoded
 * from it).  pms_perfdata_ordered_next() fills *ev as
 * pms_perfdata_next() does (valid until the next call; aux_tid is
 * (uint32_t)-1 in a held record) and returns the same values.  The queue
 * borrows r, which must outlive it, and reads it alone from then on (it
 * asks r for samples undecoded until it hands them out). */
struct pms_perfdata_ordered;
struct pms_perfdata_ordered_stats {
	uint64_t queued;     /* records held */
	uint64_t rounds;     /* FINISHED_ROUNDs */
	uint64_t sorts;      /* flushes that found the held records out of time order */
	uint64_t late;       /* records older than ones already handed out */
	uint64_t full;       /* the queue's older half handed out at its size limit */
	uint64_t aux_flushes; /* the queue handed out whole before an AUXTRACE */
	uint64_t last_flush; /* the time of the latest record handed out from the queue */
};
int pms_perfdata_ordered_new(struct pms_perfdata_reader *r, struct pms_perfdata_ordered **out);
int pms_perfdata_ordered_next(struct pms_perfdata_ordered *q, struct pms_perfdata_event *ev);
const struct pms_perfdata_ordered_stats *
pms_perfdata_ordered_stats(const struct pms_perfdata_ordered *q);
void pms_perfdata_ordered_free(struct pms_perfdata_ordered *q);

/* The features and events.  In pipe mode, what the stream has delivered so
 * far (perf writes HEADER_ATTR and HEADER_FEATURE records first). */
const struct pms_perfdata_info *pms_perfdata_reader_info(const struct pms_perfdata_reader *r);
size_t pms_perfdata_reader_nattrs(const struct pms_perfdata_reader *r);
const struct pms_perfdata_attr *pms_perfdata_reader_attr(const struct pms_perfdata_reader *r,
							 size_t i);
const struct pms_perfdata_stats *pms_perfdata_reader_stats(const struct pms_perfdata_reader *r);

/* File facts: pipe mode, foreign byte order, the file's attr_size (0 in
 * pipe mode), data section offset and size (file mode). */
bool pms_perfdata_reader_is_pipe(const struct pms_perfdata_reader *r);
bool pms_perfdata_reader_swapped(const struct pms_perfdata_reader *r);
uint64_t pms_perfdata_reader_attr_size(const struct pms_perfdata_reader *r);

/* What the reader skipped or found corrupt so far, as sentences naming the
 * part and its offset: features left out, records skipped, a truncated
 * data section, an unfinished file.  nproblems counts all of them; the
 * first 32 are kept (problem(i) is NULL past those).  Records add problems
 * as they are read: ask again after pms_perfdata_next() returned 0. */
size_t pms_perfdata_reader_nproblems(const struct pms_perfdata_reader *r);
const char *pms_perfdata_reader_problem(const struct pms_perfdata_reader *r, size_t i);

/* Message of the last skipped record ("" if none). */
const char *pms_perfdata_reader_last_skip(const struct pms_perfdata_reader *r);

/* NUMA node holding physical address phys per the MEM_TOPOLOGY header:
 * >= 0; PMS_ENOENT when no recorded block holds it; PMS_ENOTSUP without a
 * usable MEM_TOPOLOGY header (the message says which). */
int pms_perfdata_reader_node_of_phys(const struct pms_perfdata_reader *r, uint64_t phys);

/* NULL when samples get nodes (some attr has PHYS_ADDR and MEM_TOPOLOGY is
 * there), else why not, as a sentence. */
const char *pms_perfdata_reader_nodes_why(const struct pms_perfdata_reader *r);

/* ---- Arm SPE metadata (AUXTRACE_INFO of type ARM_SPE) ---------------------
 * tools/perf/util/arm-spe.h: version 1 priv[] = {PMU type, per-CPU mmaps}
 * (a record of exactly 2 words); version 2 priv[] = {version, header words
 * (4), PMU type, nr CPUs}, then per CPU {magic 0x1010101010101010, cpu,
 * nr_params, MIDR, PMU type, min interval[, event filter]}. */
struct pms_perfdata_spe_cpu {
	uint32_t cpu;
	uint64_t midr;
	uint64_t pmu_type;     /* UINT64_MAX: the CPU has no SPE PMU */
	uint64_t min_interval; /* caps/min_interval, 0 when unknown */
	uint64_t event_filter; /* caps/event_filter, when has_event_filter */
	bool has_event_filter;
};

struct pms_perfdata_spe_meta {
	unsigned version;         /* 1 or 2 (or higher: header words still read) */
	uint64_t pmu_type;        /* the attr.type of the SPE event */
	bool per_cpu_mmaps;       /* version 1 only */
	size_t ncpus;
	const struct pms_perfdata_spe_cpu *cpus; /* version 2; owned by the reader */
};

/* The SPE metadata of the file's AUXTRACE_INFO: 0; PMS_ENOENT when the file
 * has no AUXTRACE_INFO of type ARM_SPE (yet: it comes before the trace);
 * PMS_EPARSE when it is malformed (the message names the word). */
int pms_perfdata_reader_spe_meta(const struct pms_perfdata_reader *r,
				 struct pms_perfdata_spe_meta *out);

/* MIDR of cpu: version-2 per-CPU metadata, else the HEADER_CPUID string
 * (hex, "0x00000000410fd0c0", as perf writes it on arm64).  0, or PMS_ENOENT
 * when neither says (perf then has no data-source table either). */
int pms_perfdata_reader_spe_midr(const struct pms_perfdata_reader *r, uint32_t cpu,
				 uint64_t *midr);

/* Release r (NULL is fine); does not close the fd. */
void pms_perfdata_reader_free(struct pms_perfdata_reader *r);

/* Human name of feature number feat ("NUMA_TOPOLOGY"), or NULL. */
const char *pms_perfdata_feature_name(unsigned feat);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
