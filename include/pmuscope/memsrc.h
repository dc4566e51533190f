/* One source of memory samples, live or recorded.
 *
 * A source delivers, through one set of callbacks, every memory sample with
 * its node hints, the decoded record it came from and the event (attr) that
 * wrote it, and the side-band records (COMM, MMAP, MMAP2, FORK, EXIT) a
 * report needs to name code and data (and the LOST/THROTTLE accounting
 * records, so that a recording keeps them).  Two implementations:
 *   live      the sampler (pms_sampler) on this machine: its rings
 *   recorded  a perf.data reader (pms_perfdata_reader), file or pipe mode
 * Both turn records into samples with pms_memsample_from_sample() (one set
 * of validity rules per engine) and give one info struct and one statistics
 * struct.  The report builder (report.h), the perf.data recorder (record.h
 * "pms_recorder") and the CLI take a source and do not care which kind.
 *
 * Node hints: the memory node of a sample from its physical address and the
 * memory topology (the live topology's memory blocks, or the file's
 * MEM_TOPOLOGY); otherwise PMS_NODE_UNKNOWN, which the live NUMA oracle
 * resolves later (pms_memprof_resolve).  The CPU node from the live topology
 * or the file's NUMA_TOPOLOGY (pms_memsrc_cpu_node).
 *
 * Ownership: pms_memsrc_open_live() and pms_memsrc_open_reader() give the
 * caller a source released with pms_memsrc_free(); the sampler, reader and
 * topology they are given are borrowed and must outlive it.  Everything a
 * source returns (info strings, attrs, attempts) is owned by the source;
 * what the callbacks get is borrowed for the call only.
 */
#ifndef PMUSCOPE_MEMSRC_H
#define PMUSCOPE_MEMSRC_H

#include "pmuscope/api.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/callpath.h"
#include "pmuscope/memsample.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"
#include "pmuscope/sampler.h"
#include "pmuscope/spe.h"
#include "pmuscope/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

PMS_API_BEGIN

struct perf_event_attr;
struct pms_memsrc;

enum pms_memsrc_kind {
	PMS_MEMSRC_LIVE = 1, /* a sampler on this machine */
	PMS_MEMSRC_FILE,     /* a perf.data file or pipe-mode stream */
};

/* One event of the source, as it really was opened (live) or recorded. */
struct pms_memsrc_attr {
	const struct perf_event_attr *attr;
	const uint64_t *ids;  /* sample ids of this event (a file's), may be NULL */
	size_t nids;
	const char *name;     /* the file's EVENT_DESC name, or the PMU's */
	const char *pmu;      /* PMU name ("ibs_op", "cpu", "software"), "" unknown */
	enum pms_engine engine;
	bool samples;         /* its samples are memory samples (not a side-band
			       * or AUX-leader event) */
};

/* What the source is.  In pipe mode, complete only once the first sample
 * came (the attrs and features travel as records before it). */
struct pms_memsrc_info {
	enum pms_memsrc_kind kind;
	enum pms_engine engine;   /* of the samples */
	const char *pmus;         /* PMU name(s), comma-separated */
	const char *label;        /* one line for every output */
	const char *notes;        /* caveats, "" if none */
	bool phys;                /* PHYS_ADDR is in the samples */
	bool data_src;            /* the engine gives a real data source */
	uint64_t sample_type;     /* of the sample events, OR-ed */
	const struct pms_sampler_attempt *attempts; /* live: the ladder log */
	size_t nattempts;
	size_t nstreams;          /* live: fds opened */
	bool pipe;                /* recorded: pipe mode */
	/* Why samples get no memory node from a physical address (no
	 * PHYS_ADDR, no memory topology), NULL when they do. */
	const char *nodes_why;
	const char *vendor;       /* CPU vendor of the machine that sampled, "" unknown */
};

/* Counts of both kinds; a field that does not apply to a kind stays 0. */
struct pms_memsrc_stats {
	uint64_t samples;         /* memory samples delivered */
	uint64_t samples_dropped; /* parsed but not delivered (side-band or AUX
				   * leader events, privilege filter) */
	uint64_t records;         /* records read (ring or file) */
	uint64_t wrapped;         /* live: records that straddled the ring's end */
	uint64_t corrupt_bytes;   /* live: ring bytes skipped after a bad header */
	uint64_t parse_errors;    /* records that did not decode */
	uint64_t lost_records;    /* PERF_RECORD_LOST records */
	uint64_t lost;            /* sum of their counts */
	uint64_t lost_samples;    /* sum of PERF_RECORD_LOST_SAMPLES counts */
	uint64_t throttle, unthrottle;
	uint64_t sideband;        /* MMAP/MMAP2/COMM/FORK/EXIT delivered */
	uint64_t aux_records;     /* PERF_RECORD_AUX */
	uint64_t aux_bytes;       /* AUX bytes decoded */
	uint64_t aux_truncated, aux_overwrite, aux_partial, aux_collision; /* PERF_AUX_FLAG_* */
	uint64_t aux_decode_errors;
	uint64_t aux_cut_records; /* recorded: SPE records cut by the end of their
				   * AUXTRACE chunk (truncated data), dropped */
	uint64_t aux_cut_bytes;   /* ... and their bytes */
	uint64_t aux_overrun;     /* live: AUX bytes overwritten before read */
	uint64_t ibs_raw_checked;  /* IBS samples whose RAW registers were decoded */
	uint64_t ibs_raw_mismatch; /* ... and disagreed with the kernel's fields */
	uint64_t streams_hup;     /* live: fds whose task is gone */
	uint64_t unknown_id;      /* recorded: samples whose id matched no attr */
	uint64_t compressed;      /* recorded: COMPRESSED records unpacked */
	uint64_t bad_features;    /* recorded: header features that did not parse */
	bool truncated;           /* recorded: the data ended inside a record */
	uint64_t samples_excluded; /* live: the observer's own samples, not
				    * delivered (pms_sampler_opts.exclude_pid) */
	/* The samples lost, counted once as perf counts them: perf 6.x
	 * writes both a LOST record (from the ring) and a LOST_SAMPLES record
	 * (the event's PERF_FORMAT_LOST count at the end) for the same drops,
	 * so this is the larger of lost and lost_samples, not their sum. */
	uint64_t lost_total;
};

/* One memory sample and what came with it. */
struct pms_memsrc_sample {
	struct pms_memsample ms;
	/* >= 0 node; an enum pms_node_status (PMS_NODE_NO_PHYS: the kernel
	 * had no physical address, PMS_NODE_NO_BLOCK: it is in no memory
	 * block); PMS_NODE_UNKNOWN: not known here, for the oracle to resolve.
	 * Decided by the decoration stage (pmuscope/memdeco.h). */
	int mem_node;
	int cpu_node;         /* >= 0, or -1 unknown */
	bool node_from_phys;  /* mem_node came from the physical address */
	/* The decoded record (type SAMPLE) the sample came from, NULL when it
	 * was decoded from an AUX trace (SPE): a recorder writes this record
	 * under attr_idx's attr. */
	const struct pms_record *rec;
	size_t attr_idx;      /* index into pms_memsrc_attrs() */
	/* Its call path, leaf first (how NONE: the record has none).  FP: the
	 * kernel's callchain, every frame.  DWARF (the record carries the
	 * user registers and a stack copy): only the kernel frames are here;
	 * pms_unwinder_sample() (unwind.h) gives the whole path.  The frames
	 * are borrowed for the call only. */
	struct pms_callpath path;
};

/* One chunk of AUX trace from a live SPE ring: the PERF_RECORD_AUX that
 * announced it and its bytes (joined when the AUX area wrapped), for a
 * recorder to write as PERF_RECORD_AUX + PERF_RECORD_AUXTRACE.  The samples
 * decoded from it were delivered (rec NULL) before this call. */
struct pms_memsrc_aux {
	const struct pms_record *rec; /* type AUX: aux_offset, aux_size, flags, sample_id */
	const void *data;
	size_t len;
	size_t attr_idx;  /* the SPE event, index into pms_memsrc_attrs() */
	uint32_t idx;     /* the ring (AUXTRACE queue): unique per ring */
	uint32_t cpu;     /* the ring's CPU, (uint32_t)-1 per-thread */
	uint32_t tid;     /* a per-thread ring's task, (uint32_t)-1 per-CPU */
	/* The ring's time conversion (user page), NULL when it has none. */
	const struct pms_spe_time_conv *tc;
};

struct pms_memsrc_callbacks {
	/* One memory sample; return 0 to go on, negative to stop. */
	int (*sample)(void *ud, const struct pms_memsrc_sample *s);
	/* Side-band records of event attr_idx: COMM, MMAP, MMAP2, FORK, EXIT,
	 * and the accounting records LOST, LOST_SAMPLES, THROTTLE, UNTHROTTLE
	 * (already counted in the stats; a recorder writes them); may be
	 * NULL. */
	int (*sideband)(void *ud, const struct pms_record *rec, size_t attr_idx);
	/* Live SPE: each AUX chunk (above); may be NULL.  Added after the
	 * first two: an initializer that names only those leaves it NULL. */
	int (*aux)(void *ud, const struct pms_memsrc_aux *a);
};

/* A live source over an open sampler (pms_sampler_open) and this machine's
 * topology (for node hints; may be NULL: no hints). */
int pms_memsrc_open_live(struct pms_sampler *smp, const struct pms_topo *topo,
			 struct pms_memsrc **out);

/* A recorded source over a perf.data reader positioned before its first
 * record (pms_perfdata_reader_open_fd / _open_mem). */
int pms_memsrc_open_reader(struct pms_perfdata_reader *r, struct pms_memsrc **out);

void pms_memsrc_free(struct pms_memsrc *s);

/* Deliver what is there.  Live: wait up to timeout_ms for the rings (as
 * pms_sampler_poll), drain them; returns records read (>= 0).  A live
 * source hands out samples and side-band in time order: each poll those
 * of the drains before it (one drain's records are in order only per
 * ring), the poll after pms_sampler_disable everything it holds (docs/mem.md
 * "Time order").  Recorded:
 * read a batch of records (timeout_ms is ignored); returns records read,
 * 0 at the end of the data.  Or a callback's negative code, or a negative
 * PMS_E* (a recorded source's read error: what came before stands). */
int pms_memsrc_poll(struct pms_memsrc *s, int timeout_ms, const struct pms_memsrc_callbacks *cb,
		    void *ud);

enum pms_memsrc_kind pms_memsrc_kind(const struct pms_memsrc *s);
void pms_memsrc_info(const struct pms_memsrc *s, struct pms_memsrc_info *out);
void pms_memsrc_stats(const struct pms_memsrc *s, struct pms_memsrc_stats *out);
/* What the source skipped or found corrupt so far, as sentences: the one
 * place every consumer (report, c2c) asks.  A recorded source gives its
 * reader's (pms_perfdata_reader_problem: records skipped by type, cut or
 * unfinished data, features left out), then its own: per event, the IBS
 * op samples whose RAW payload did not parse (how the first did not; such
 * a sentence stays valid until the next call); a live source none.  nproblems
 * counts all; problem(i) is NULL past the ones kept.  Ask again after
 * pms_memsrc_poll() returned 0 (records add problems as they are read). */
size_t pms_memsrc_nproblems(const struct pms_memsrc *s);
const char *pms_memsrc_problem(const struct pms_memsrc *s, size_t i);
const struct pms_memsrc_attr *pms_memsrc_attrs(const struct pms_memsrc *s, size_t *n);

/* Node of a CPU: the live topology's, or the file's NUMA_TOPOLOGY; -1 when
 * unknown. */
int pms_memsrc_cpu_node(const struct pms_memsrc *s, int cpu);
/* The node ids the source's topology lists (live topology or the file's
 * NUMA_TOPOLOGY), owned by the source; n = 0 when none. */
const int *pms_memsrc_node_ids(const struct pms_memsrc *s, size_t *n);

/* The SPE timestamp -> perf time conversion: live, the first SPE ring's
 * user page; recorded, the file's PERF_RECORD_TIME_CONV.  PMS_ENOENT when
 * there is none (no SPE ring, no such record, or the record says the
 * counter has no perf time). */
int pms_memsrc_time_conv(const struct pms_memsrc *s, struct pms_spe_time_conv *out);


/* The underlying sampler (live) or reader (recorded), NULL for the other. */
struct pms_sampler *pms_memsrc_sampler(const struct pms_memsrc *s);
struct pms_perfdata_reader *pms_memsrc_reader(const struct pms_memsrc *s);

PMS_API_END

#ifdef __cplusplus
}
#endif
#endif
