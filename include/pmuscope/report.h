/* The `pmuscope mem` profile: a collector that takes memory samples and
 * side-band records while recording, resolves each sample's data page to a
 * NUMA node in batches, and, at the end, a report struct with every number
 * the CLI renders (text, JSON, CSV).  The library never prints.
 *
 * Ownership: pms_memprof_new() gives the caller a collector released with
 * pms_memprof_free(); pms_memprof_report() gives a report released with
 * pms_memreport_free(); every pointer inside the report is owned by it.
 * topo, oracle and symbolizer arguments are borrowed.
 */
#ifndef PMUSCOPE_REPORT_H
#define PMUSCOPE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmuscope/memsample.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/numa.h"
#include "pmuscope/record.h"
#include "pmuscope/sampler.h"
#include "pmuscope/symbols.h"
#include "pmuscope/topo.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* Version 2 added `aggregate`, version 3 `functions_per_pid`, version 4
 * `no_sample_list`; older callers are still accepted. */
#define PMS_MEMPROF_OPTS_VERSION 4
struct pms_memprof_opts {
	unsigned version;       /* PMS_MEMPROF_OPTS_VERSION */
	pid_t pid;              /* process whose maps/exit matter; 0 = any */
	int home_node;          /* the workload's home node, -1 = unknown */
	uint64_t home_start;    /* the workload buffer [start, end); 0,0 = none */
	uint64_t home_end;
	const char *home_name;  /* its name in the data-object list (copied) */
	size_t top;             /* entries per top list; 0 = 10 */
	/* Aggregate on the fly instead of keeping every sample (a recorded
	 * file: memory bounded by distinct IPs, data objects, data_src values
	 * and node pairs).  Then: nodes are taken when a sample is added
	 * (pms_memprof_add_node, or pms_memprof_add: CPU node and physical
	 * address through the topology, nothing asked later);
	 * pms_memprof_resolve does nothing; the home node/range must be set
	 * before the samples; COMM exec drops no mappings (a later MMAP
	 * replaces what it overlaps); a data object is named by the mappings
	 * when its first sample came; report.all is empty; and the latency
	 * percentiles come from a histogram: exact for weights below 65536,
	 * above it each weight keeps its 9 most significant bits (the bucket's
	 * lowest value is reported, relative error < 1/256).  min, max and mean
	 * are exact in both modes; the kept-samples mode (live `pmuscope mem`)
	 * sorts every weight and its percentiles are exact. */
	bool aggregate;
	/* Functions of different processes are different rows (a
	 * system-wide run): each function row carries its pid and command. */
	bool functions_per_pid;
	/* Kept-samples mode without report.all: every other number of the
	 * report is the same, but each sample is kept in a 40-byte form
	 * holding only what the report reads (no time, CPU, physical
	 * address, page size, period, instruction latency), against 112
	 * bytes when report.all is to be built; and pms_memprof_report
	 * releases the samples once it has counted them (before it names
	 * code, which loads debug information), so the report is built once:
	 * later reports and samples are refused with PMS_EINVAL.  For a
	 * caller that renders no per-sample output (a sample list, CSV,
	 * exports, advice, call paths).  Ignored in aggregate mode. */
	bool no_sample_list;
};
#define PMS_MEMPROF_OPTS_INIT { PMS_MEMPROF_OPTS_VERSION, 0, -1, 0, 0, NULL, 0, false, false, false }

/* How often one sample's page is asked about while its answer is -EFAULT
 * or -ENOENT (the lookup raced the fault that maps it: a page-fault sample
 * is taken before the page, or the huge page, is mapped), one more when
 * its process is held at exit (pms_memprof_resolve_task). */
#define PMS_MEMPROF_RESOLVE_TRIES 6

struct pms_memprof;

int pms_memprof_new(const struct pms_topo *topo, const struct pms_memprof_opts *opts,
		    struct pms_memprof **out);
void pms_memprof_free(struct pms_memprof *p);

/* Keep one sample with the node hints of the collector's topology (the
 * CPU's node; the memory node of a physical address in a known memory
 * block), as a live source gives them; an unknown memory node is resolved
 * later, by pms_memprof_resolve. */
int pms_memprof_add(struct pms_memprof *p, const struct pms_memsample *s);
/* Add one sample whose nodes the caller knows (a recorded file: PHYS_ADDR
 * through its MEM_TOPOLOGY header, the CPU through its NUMA_TOPOLOGY).
 * mem_node: >= 0, a -errno status, or PMS_NODE_UNKNOWN (not asked);
 * cpu_node: >= 0 or -1.  pms_memprof_resolve leaves a given node (not
 * PMS_NODE_UNKNOWN) alone. */
int pms_memprof_add_node(struct pms_memprof *p, const struct pms_memsample *s, int mem_node,
			 int cpu_node);
/* Aggregate mode: node ids the CPU-node x memory-node matrix lists even
 * without samples (a file's NUMA_TOPOLOGY nodes); besides the topology's
 * and those seen.  PMS_EINVAL in the kept-samples mode. */
int pms_memprof_set_node_ids(struct pms_memprof *p, const int *ids, size_t n);
/* One sample of a memory-sample source, with the source's node hints
 * (pms_memprof_add_node with s->mem_node and s->cpu_node). */
int pms_memprof_add_src(struct pms_memprof *p, const struct pms_memsrc_sample *s);
/* MMAP/MMAP2 add to the maps and drop the oracle's cached pages there; EXIT
 * of the profiled process (and exec, COMM with the exec bit) drops them all.
 * oracle may be NULL. */
int pms_memprof_sideband(struct pms_memprof *p, const struct pms_record *rec,
			 struct pms_numa_oracle *oracle);
/* Resolve the memory nodes the samples added since the last call came
 * without (PMS_NODE_UNKNOWN) through the oracle, one batched call for all
 * of them; nodes come only from the hints given at add time and from here.
 * oracle may be NULL (nothing alive to ask: those samples stay
 * unresolved).  Returns the oracle's syscall count or a negative PMS_E*; a
 * failed move_pages leaves its samples with the -errno status and is not an
 * error here. */
int pms_memprof_resolve(struct pms_memprof *p, struct pms_numa_oracle *oracle);
/* The samples are each asked about for their own process (the sample's
 * pid; without one, opts.pid; without that they stay "not asked"), one
 * batched pms_numa_oracle_resolve_pid per process.  A sample whose answer
 * was -EFAULT or -ENOENT is asked again at later calls, up to
 * PMS_MEMPROF_RESOLVE_TRIES times; the report counts those retries.
 *
 * Resolve now every sample of process pid that has no node yet (retries
 * included, plus one), asking through thread tid: the process is held at
 * exit (pms_child_poll's HELD event) and tid is the stopped thread, whose
 * memory is still mapped.  Returns as pms_memprof_resolve. */
int pms_memprof_resolve_task(struct pms_memprof *p, struct pms_numa_oracle *oracle, pid_t pid,
			     pid_t tid);
/* The mappings gathered so far (add /proc/PID/maps into them while the
 * process lives). */
struct pms_maps *pms_memprof_maps(struct pms_memprof *p);
/* The mappings of one process.  A live system-wide profile (no opts.pid,
 * not aggregate) keeps each process's MMAP records apart, and
 * pms_memprof_maps() gives their union; elsewhere both give the one set.
 * Owned by the profile; valid until its next side-band record. */
const struct pms_maps *pms_memprof_maps_pid(struct pms_memprof *p, pid_t pid);
/* A live system-wide profile (above) also reads proc/PID/maps of the
 * processes it sampled, once each while they live, into their own
 * mappings (a process that was running before the recording has no MMAP
 * records), and its report names each process's code from that process's
 * mappings (pms_symbolizer_add_process).  Reads at most max (0: all) not
 * read yet; returns how many were read (a process gone by then keeps what
 * its MMAP records said).  0 for other profiles. */
int pms_memprof_read_maps(struct pms_memprof *p, struct pms_sys *sys, size_t max);
/* Set the home node and buffer range once they are known (the workload
 * tells them after it starts); same meaning as in the opts. */
void pms_memprof_set_home(struct pms_memprof *p, int node, uint64_t start, uint64_t end);
size_t pms_memprof_count(const struct pms_memprof *p);
/* The samples added from now on come from the source called name (for
 * example the host of one of several merged perf.data files): the report
 * counts them per source and each kept sample says its source.  A name
 * set before continues its source.  0 or a negative PMS_E*. */
int pms_memprof_set_source(struct pms_memprof *p, const char *name);
/* Add everything the aggregate profile src counted to the aggregate profile
 * dst, as if src's samples and mappings had come to dst after its own
 * (first-seen orders continue with src's new entries; an object or source
 * both have keeps dst's name; src's mappings replace what they overlap).
 * dst's node ids (pms_memprof_set_node_ids) and current source stay.  Used
 * to decode several files in parallel, one profile each, merged in file
 * order.  src stays the caller's (its lagging samples are folded); on
 * failure dst is partly merged and should be discarded.  0 or a negative
 * PMS_E* (PMS_EINVAL unless both are in aggregate mode). */
int pms_memprof_merge(struct pms_memprof *dst, struct pms_memprof *src);

/* ---- the report ---------------------------------------------------------- */

struct pms_memreport_sample {
	struct pms_memsample s;
	int mem_node; /* >= 0 node; < 0: -errno status or PMS_NODE_UNKNOWN */
	int cpu_node; /* node of s.cpu, -1 when unknown */
	bool node_from_phys; /* mem_node came from the physical address */
	/* In a built report (kept-samples mode): the index of the sample's
	 * instruction in report.sites and of its data object in
	 * report.objects; -1 when it has none (no IP / no data address). */
	long site, object;
	/* Its source (pms_memprof_set_source) in report.sources; -1 none. */
	long source;
	uint16_t tries;      /* times its page was asked about (retries: tries - 1) */
};

struct pms_memreport_count {
	char *name;
	uint64_t samples;
};

struct pms_memreport_latency {
	uint64_t n; /* samples with a valid weight */
	uint64_t min, median, p90, p99, max; /* nearest-rank percentiles */
	double mean;
};

/* One node of a data object: its pages there, its samples' data there. */
struct pms_memreport_objnode {
	int node;
	uint64_t pages;
	uint64_t samples;
};

/* One instruction, function or data object. */
struct pms_memreport_site {
	uint64_t addr;       /* IP (instructions), first IP seen (functions), start (objects) */
	uint64_t size;       /* objects: bytes of the object; else 0 */
	bool kernel;
	bool addr_hidden;    /* a kernel address the caller may not see: addr is 0 */
	char *name;          /* function / object name; "[unknown]" when none */
	char *file;          /* source file (instructions/functions), NULL if unknown */
	int line;
	char *module;        /* binary or mapping path, "" if none */
	char *kind;          /* objects: "global", "segment", "heap", "stack", "anon",
			      * "special", "unmapped", "workload"
			      * (pms_dataobj_kind_name; "file" in aggregate mode:
			      * a whole file mapping) */
	uint64_t samples;
	uint64_t latency;    /* total weight of its samples with a valid weight */
	uint64_t weighted;   /* how many had one */
	uint64_t resolved;   /* samples with a memory node */
	uint64_t remote;     /* ... on a node other than the sampling CPU's */
	uint64_t on_home;    /* ... on the home node */
	/* functions with opts.functions_per_pid: the process; else 0, NULL */
	uint32_t pid;
	char *comm;
	char *section;       /* objects in a file: its ELF section (".data"), else NULL */
	/* Objects: per node, its pages there when read (residency: all of its
	 * pages, read live at its process's held exit, as numa_maps counts
	 * them) and its resolved samples whose data was there; node order. */
	struct pms_memreport_objnode *nodes;
	size_t nnodes;
	bool resident_read;   /* residency read (false: a file, aggregate mode, a
			       * process not held at exit, or over the bound) */
	uint64_t pages_absent; /* resident_read: its pages not in memory then */
	/* ... by the status the query gave (mm/migrate.c
	 * do_pages_stat_array; their sum is pages_absent): -ENOENT, no page
	 * there (swapped out, or, from Linux 6.12, never touched); -EFAULT, no
	 * mapping there, the shared zero page, or, before 6.12, an anonymous
	 * page never touched; unknown, no answer (the call failed, or another
	 * status, after one retry). */
	uint64_t pages_not_present, pages_efault, pages_unknown;
};

/* One process (tid 0) or one thread, like numatop's process view. */
struct pms_memreport_task {
	uint32_t pid, tid;   /* tid 0 in the process rows */
	char *comm;          /* the last COMM seen (or proc's), "" unknown */
	uint64_t samples;
	uint64_t with_addr;
	uint64_t resolved;   /* with a memory node */
	uint64_t unresolved; /* with an address, no node */
	uint64_t remote;     /* resolved on a node other than the sampling CPU's */
	uint64_t local;      /* resolved on the sampling CPU's node */
	uint64_t weighted, latency; /* samples with a weight, their sum */
	int home_node;       /* the node most of its resolved samples are on, -1 none */
	uint64_t on_home_node; /* resolved samples on that node */
	/* data-source levels of all its samples, "N/A" included, most first */
	struct pms_memreport_count *levels;
	size_t nlevels;
};

struct pms_memreport_input {
	enum pms_engine engine;
	const char *pmus, *label, *notes;
	bool data_src;                /* the engine reports a data source */
	bool phys;
	const struct pms_sampler_attempt *attempts;
	size_t nattempts;
	const struct pms_memsrc_stats *stats;  /* may be NULL */
	const struct pms_numa_stats *numa;     /* may be NULL */
	bool verify_requested;
	uint64_t duration_ns;
	/* The samples come from a recorded file: kernel addresses are shown as
	 * recorded, and kernel IPs are not named (this machine's kallsyms does
	 * not describe the recording's kernel). */
	bool recorded;
	/* Every sample in `all` as sampled, kernel addresses included, for a
	 * caller that applies the visibility rule itself (the live c2c feed:
	 * its report hides them at the end when the caller may not see
	 * them). */
	bool unmasked;
};

struct pms_memreport {
	enum pms_engine engine;
	char *pmus, *label, *notes;
	bool data_src_available;
	char *data_src_note;          /* "data source unavailable: ..." or "" */
	bool phys;
	struct pms_sampler_attempt *attempts;
	size_t nattempts;
	struct pms_memsrc_stats stats;
	struct pms_numa_stats numa;
	bool verify_requested;
	uint64_t duration_ns;
	bool kernel_visible;

	uint64_t samples;             /* total */
	uint64_t with_addr;           /* with a data address */
	uint64_t with_data_src;       /* with a data source other than "not available" */
	/* perf's level text of every sample, most samples first: a sample
	 * without a data source (none given, 0, or PERF_MEM_NA) counts as
	 * "N/A" as in perf, so the counts add up to `samples` */
	struct pms_memreport_count *levels;
	size_t nlevels;
	struct pms_memreport_count *ops;    /* Load / Store / ... (perf mem-stat names) */
	size_t nops;
	struct pms_memreport_latency latency;

	int home_node;
	uint64_t on_home, elsewhere;  /* resolved samples */
	uint64_t resolved, from_phys;
	uint64_t unresolved;          /* with an address but no node */
	uint64_t st_efault, st_enoent, st_other, st_not_asked;
	/* the process was gone when asked (move_pages: -ESRCH, or -EINVAL for
	 * a task without an mm, mm/migrate.c find_mm_struct) */
	uint64_t st_gone;
	uint64_t no_addr;             /* samples without a data address */
	/* race retries: samples asked about more than once (the first answer
	 * was -EFAULT/-ENOENT), extra asks in all, and how many of those
	 * samples then resolved */
	uint64_t retried_samples, retries, retry_resolved;
	/* samples resolved while their process was held at exit */
	uint64_t resolved_held;

	/* CPU node x memory node: node_ids are the topology's node ids; the
	 * matrix is nnodes x nnodes (row = CPU node, column = memory node),
	 * row-major, over resolved samples whose CPU node is known. */
	int *node_ids;
	size_t nnodes;
	uint64_t *matrix;
	uint64_t matrix_cpu_unknown;  /* resolved samples without a CPU node */

	struct pms_memreport_site *top_ips_samples, *top_ips_latency;
	size_t ntop_ips_samples, ntop_ips_latency;
	struct pms_memreport_site *top_funcs_samples, *top_funcs_latency;
	size_t ntop_funcs_samples, ntop_funcs_latency;
	struct pms_memreport_site *top_objects;
	size_t ntop_objects;

	/* per process and per thread, most samples first (kept-samples mode;
	 * empty in aggregate mode) */
	struct pms_memreport_task *procs, *threads;
	size_t nprocs, nthreads;

	struct pms_memreport_sample *all; /* every sample, in arrival order
					   * (none in aggregate mode) */
	size_t nall;
	/* Kept-samples mode: every instruction (named as the top lists; a
	 * function is the instructions with the same module and name) and
	 * every data object, in no particular order; all[i].site and
	 * all[i].object index them.  Empty in aggregate mode. */
	struct pms_memreport_site *sites;
	size_t nsites;
	struct pms_memreport_site *objects;
	size_t nobjects;
	/* The named sources of the samples (one per file of a merged report,
	 * named after its host), in the order they were set, with their
	 * sample counts; empty when none was set.  Both modes. */
	struct pms_memreport_count *sources;
	size_t nsources;
	/* unresolved (appended; counted in unresolved, not in st_other): let go at the
	 * exit hold's budget (PMS_NODE_HOLD_BUDGET); taken in an address
	 * space an exec replaced (PMS_NODE_EXEC_REPLACED) */
	uint64_t st_hold_budget, st_exec_replaced;
};

/* The input's source part from a memory-sample source's info and stats
 * (engine, PMUs, label, notes, data_src, phys, attempts, stats, recorded);
 * numa, verify_requested and duration_ns are left as they are.  The
 * pointers are borrowed from info/st, which must outlive the input. */
void pms_memreport_input_from_src(struct pms_memreport_input *in,
				  const struct pms_memsrc_info *info,
				  const struct pms_memsrc_stats *st);

/* Build the report.  sym may be NULL (no names). */
int pms_memprof_report(struct pms_memprof *p, struct pms_symbolizer *sym,
		       const struct pms_memreport_input *in, struct pms_memreport **out);
void pms_memreport_free(struct pms_memreport *r);

/* Nearest-rank percentile (0 < pct <= 100) of n sorted values; 0 if n == 0. */
uint64_t pms_percentile(const uint64_t *sorted, size_t n, double pct);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
