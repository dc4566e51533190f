/* Cache-line contention (`pmuscope c2c`): memory samples with their memory
 * and CPU nodes in, a report out with the counts `perf c2c report` prints
 * (classified by perf's rules, tools/perf/util/mem-events.c
 * c2c_decode_stats), the shared cache lines with their NUMA node and data
 * object, and per line the offsets with the threads, CPUs, nodes and
 * instructions that touch them and their latency.  Engines without HITM
 * (Arm SPE) get a contention score from peer and remote cache hits; the
 * software engine (no data source) gets the lines touched by several
 * threads.  The library never prints.
 *
 * Ownership: pms_c2c_new() gives the caller a collector released with
 * pms_c2c_free(); pms_c2c_report() gives a report released with
 * pms_c2c_report_free(), which owns every pointer inside it; the maps and
 * symbolizer arguments are borrowed.
 */
#ifndef PMUSCOPE_C2C_H
#define PMUSCOPE_C2C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/memsample.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/record.h"
#include "pmuscope/report.h"
#include "pmuscope/symbols.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* perf's struct c2c_stats (tools/perf/util/mem-events.h), field for field,
 * with the same meaning; pms_c2c_classify fills it. */
struct pms_c2c_stats {
	uint64_t nr_entries;  /* samples */
	uint64_t locks;       /* locked loads/stores */
	uint64_t store;       /* stores */
	uint64_t st_uncache, st_noadrs, st_l1hit, st_l1miss, st_na;
	uint64_t load;        /* loads */
	uint64_t ld_excl, ld_shared; /* DRAM loads: snoop miss / snoop hit */
	uint64_t ld_uncache, ld_io, ld_miss, ld_noadrs;
	uint64_t ld_fbhit, ld_l1hit, ld_l2hit, ld_llchit;
	uint64_t lcl_hitm, rmt_hitm, tot_hitm; /* loads hitting a modified line */
	uint64_t lcl_peer, rmt_peer, tot_peer; /* loads served by a peer cache */
	uint64_t rmt_hit;     /* loads hitting a clean line in a remote cache */
	uint64_t lcl_dram, rmt_dram;
	uint64_t blk_data, blk_addr; /* loads blocked by data / address */
	uint64_t nomap;       /* data or code address in no mapping */
	uint64_t noparse;     /* data source neither load nor store */
};

/* Add one sample with data source data_src (PMS_MEM_NA_VALUE when the
 * engine gives none) to st, by perf's rules: a load or store without a
 * data address (has_addr false) stops after the op count; a data source
 * that is neither load nor store counts as noparse.  Returns 0 when the
 * sample reached the level counts, -1 when it stopped early (perf's
 * return value).  nomap is the caller's (pms_c2c_report counts it). */
int pms_c2c_classify(uint64_t data_src, bool has_addr, struct pms_c2c_stats *st);
/* LLC misses as perf prints them: lcl_dram + rmt_dram + rmt_hitm + rmt_hit. */
uint64_t pms_c2c_llc_misses(const struct pms_c2c_stats *st);

/* What ranks the lines and which are listed. */
enum pms_c2c_metric {
	PMS_C2C_AUTO = 0,   /* by engine: HITM for PEBS/IBS, SCORE for SPE,
			     * SHARERS for software */
	PMS_C2C_TOT_HITM,   /* perf's "tot": local + remote HITM */
	PMS_C2C_LCL_HITM,   /* perf's "lcl" */
	PMS_C2C_RMT_HITM,   /* perf's "rmt" */
	PMS_C2C_PEER,       /* perf's "peer": local + remote peer hits */
	/* contention score: loads served by a peer cache or a remote cache
	 * (lcl_peer + rmt_hit; rmt_hit includes remote peer hits) */
	PMS_C2C_SCORE,
	/* threads touching the line (engines without a data source) */
	PMS_C2C_SHARERS,
};

enum pms_c2c_sort {
	PMS_C2C_SORT_METRIC = 0, /* the metric, descending */
	PMS_C2C_SORT_HITM, PMS_C2C_SORT_RMT_HITM, PMS_C2C_SORT_LCL_HITM,
	PMS_C2C_SORT_PEER, PMS_C2C_SORT_LOADS, PMS_C2C_SORT_STORES,
	PMS_C2C_SORT_SAMPLES, PMS_C2C_SORT_THREADS, PMS_C2C_SORT_LATENCY,
	PMS_C2C_SORT_ADDRESS,
};

#define PMS_C2C_OPTS_VERSION 1
struct pms_c2c_opts {
	unsigned version;          /* PMS_C2C_OPTS_VERSION */
	bool double_cl;            /* 128-byte lines (adjacent-line prefetch pairs) */
	enum pms_c2c_metric metric;
	enum pms_c2c_sort sort;
	bool all_lines;            /* list every line with a data address, not
				    * only the shared ones (perf's --show-all) */
	size_t max_lines;          /* 0 = no limit */
	/* the samples come from a recorded file: kernel IPs are not named
	 * (this machine's kallsyms does not describe the recording's kernel) */
	bool recorded;
};
#define PMS_C2C_OPTS_INIT \
	{ PMS_C2C_OPTS_VERSION, false, PMS_C2C_AUTO, PMS_C2C_SORT_METRIC, false, 0, false }

struct pms_c2c;

int pms_c2c_new(enum pms_engine engine, const struct pms_c2c_opts *opts, struct pms_c2c **out);
void pms_c2c_free(struct pms_c2c *c);
/* One sample: s.s (the memory sample), s.mem_node (>= 0, or < 0 unknown),
 * s.cpu_node (-1 unknown).  A sample without a data source counts as
 * PMS_MEM_NA_VALUE (perf: unable to parse). */
int pms_c2c_add(struct pms_c2c *c, const struct pms_memreport_sample *s);
/* One sample of a memory-sample source (include/pmuscope/memsrc.h) with
 * its node hints: the same as pms_c2c_add. */
int pms_c2c_add_src(struct pms_c2c *c, const struct pms_memsrc_sample *s);
uint64_t pms_c2c_count(const struct pms_c2c *c);
/* The engine, once a source knows it (a pipe-mode file: at its first
 * sample); it picks the AUTO metric. */
void pms_c2c_set_engine(struct pms_c2c *c, enum pms_engine engine);
/* Side-band of a recorded source, in record order with the samples
 * (MMAP/MMAP2 of a process or of the kernel, pid -1; FORK: a new process
 * starts with a copy of its parent's maps).  Once given, perf's nomap is
 * judged per process when each later sample is added, against that
 * process's maps and the kernel's, as perf does; without it, at report
 * time against the maps given there. */
int pms_c2c_sideband(struct pms_c2c *c, const struct pms_record *rec);

/* ---- the report ------------------------------------------------------------ */

struct pms_c2c_thread {
	uint32_t pid, tid;
	uint64_t samples, loads, stores;
};

/* Latency (the sample weight, cycles) by what the load met, as perf's
 * per-offset "cycles" columns (builtin-c2c.c compute_stats: a sample counts
 * in the first of rmt_hitm, lcl_hitm, rmt_peer, lcl_peer, load that it is). */
struct pms_c2c_lat {
	uint64_t n, sum, min, max;
};
enum { PMS_C2C_LAT_RMT_HITM, PMS_C2C_LAT_LCL_HITM, PMS_C2C_LAT_RMT_PEER,
       PMS_C2C_LAT_LCL_PEER, PMS_C2C_LAT_LOAD, PMS_C2C_LAT_N };

/* One instruction at one offset of a line. */
struct pms_c2c_access {
	uint32_t offset;             /* bytes into the line */
	uint64_t ip;
	bool kernel, ip_valid;
	char *func;                  /* "[unknown]" when nothing names it */
	char *file;                  /* source file, NULL if unknown */
	int line;
	char *module;                /* "" if none */
	struct pms_c2c_stats st;
	struct pms_c2c_lat lat[PMS_C2C_LAT_N];
	struct pms_c2c_lat lat_all;  /* every sample with a weight */
	struct pms_c2c_thread *threads;
	size_t nthreads;
	int *cpus;                   /* sorted */
	size_t ncpus;
	int *cpu_nodes;              /* sorted, known nodes only */
	size_t ncpu_nodes;
};

struct pms_c2c_line {
	uint64_t addr;               /* first byte of the line (or 128-byte pair) */
	uint32_t size;               /* 64 or 128 */
	uint32_t pid;                /* user lines: the process; 0: kernel */
	bool kernel;
	struct pms_c2c_stats st;
	uint64_t metric;             /* the report's metric for this line */
	int *mem_nodes;              /* memory nodes seen, sorted */
	size_t nmem_nodes;
	uint64_t node_unknown;       /* samples without a memory node */
	uint64_t paddr_cnt;          /* physical address changes (perf's PA cnt) */
	char *object;                /* mapping path / static symbol, "[unknown]" */
	char *object_kind;           /* "file", "heap", "stack", "anon", ... or "" */
	uint64_t object_start;       /* the mapping's start (0 if unknown) */
	size_t nthreads, nwriters;   /* distinct threads; ... with stores */
	int *cpu_nodes;              /* CPU nodes of its samples, sorted */
	size_t ncpu_nodes;
	struct pms_c2c_lat lat_all;
	struct pms_c2c_access *acc;  /* by offset, then samples (descending) */
	size_t nacc;
	/* The allocation site that held most of the line's samples (a session
	 * tracking allocations: pms_session_c2c_report, docs/mem.md): its
	 * rank among the sites of the listed lines (-1 none), the line's
	 * samples in it and in any tracked block, its kind, and its first
	 * frame with a source line (else frame 0) with that frame's caller. */
	long alloc_site;
	uint64_t alloc_samples, alloc_placed;
	uint8_t alloc_kind;          /* enum pms_alloc_kind */
	const char *alloc_kind_name; /* pms_alloc_kind_name(alloc_kind); NULL none */
	char *alloc_func, *alloc_caller, *alloc_file; /* NULL unknown */
	int alloc_line;
};

struct pms_c2c_report {
	enum pms_engine engine;
	enum pms_c2c_metric metric;  /* resolved (never AUTO) */
	const char *metric_name;     /* "tot_hitm", "peer", "score", "sharers" ... */
	const char *metric_label;    /* human sentence, says what it is */
	bool hitm_available;         /* the engine reports HITM (PEBS, IBS) */
	bool double_cl;
	uint64_t samples;
	struct pms_c2c_stats total;  /* every sample (perf: Trace Event Information) */
	/* lines with HITM or peer hits (perf's shared lines; for SHARERS:
	 * lines with several threads) and the sum of their counts (perf:
	 * Global Shared Cache Line Event Information) */
	uint64_t nshared;
	struct pms_c2c_stats shared;
	uint64_t nlines_seen;        /* distinct lines with a data address */
	/* the listed lines: shared ones whose metric is at least 0.1% of the
	 * shared lines' total (perf's he__display), or every line with
	 * opts.all_lines; sorted by opts.sort */
	struct pms_c2c_line *lines;
	size_t nlines;
};

/* Build the report.  maps (the data mappings: object names, perf's nomap
 * check) and sym (function names, source lines, static data symbols) may
 * be NULL.  Without side-band (pms_c2c_sideband), nomap is judged here
 * against maps as a whole (no maps: nothing counts as nomap); kernel
 * addresses count as mapped unless maps hold a kernel-half mapping. */
int pms_c2c_report(struct pms_c2c *c, const struct pms_maps *maps, struct pms_symbolizer *sym,
		   struct pms_c2c_report **out);
void pms_c2c_report_free(struct pms_c2c_report *r);

/* "tot_hitm", "lcl_hitm", "rmt_hitm", "peer", "score", "sharers"; parse the
 * same names ("tot", "lcl", "rmt" too).  PMS_EINVAL for an unknown name. */
const char *pms_c2c_metric_name(enum pms_c2c_metric m);
int pms_c2c_metric_parse(const char *s, enum pms_c2c_metric *out);
/* "metric", "hitm", "rmt_hitm", "lcl_hitm", "peer", "loads", "stores",
 * "samples", "threads", "latency", "address". */
const char *pms_c2c_sort_name(enum pms_c2c_sort s);
int pms_c2c_sort_parse(const char *s, enum pms_c2c_sort *out);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
