/* Memory sampling: pick the best precise engine the machine offers (AMD IBS,
 * Intel PEBS, Arm SPE) or an honestly labelled software fallback, open it per
 * CPU or per thread, drain its rings and deliver engine-neutral
 * struct pms_memsample values plus the side-band records (MMAP2, COMM, FORK,
 * EXIT) a report needs to name code and data.
 *
 * Ownership: pms_sampler_open() gives the caller a sampler released with
 * pms_sampler_free(); sys, pmus and topo are borrowed and must outlive it.
 * Pointers it returns (attempts, info strings) are owned by the sampler.
 * Records and samples passed to callbacks are borrowed for the callback only.
 * pms_child_spawn() gives the caller a child released with pms_child_free().
 */
#ifndef PMUSCOPE_SAMPLER_H
#define PMUSCOPE_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmuscope/callpath.h"
#include "pmuscope/cpuset.h"
#include "pmuscope/memsample.h"
#include "pmuscope/pmu.h"
#include "pmuscope/record.h"
#include "pmuscope/sys.h"
#include "pmuscope/topo.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

enum pms_sampler_target {
	PMS_TARGET_CHILD = 0, /* pid from pms_child_spawn(): inherit + enable_on_exec */
	PMS_TARGET_PID,       /* an existing process: inherit (new children) */
	PMS_TARGET_CPUS,      /* system-wide on opts.cpus (empty = every online CPU) */
};

/* Which privilege levels to sample.  On IBS without BIT63 filtering this goes
 * through the swfilt term, never through a bare exclude_* bit. */
enum pms_sampler_priv {
	PMS_PRIV_ANY = 0,  /* user and kernel (retried as user-only when refused) */
	PMS_PRIV_USER,
	PMS_PRIV_KERNEL,
};

/* opts.ops */
#define PMS_SAMPLER_LOADS  0x1u
#define PMS_SAMPLER_STORES 0x2u

/* Version 2 added callgraph, stack_size, max_stack, event and branch_filter;
 * version 3 exclude_pid; version 4 spe_inv_data_src and spe_filters_required;
 * version 5 adapt; version 6 clock_monotonic. */
#define PMS_SAMPLER_OPTS_VERSION 6
struct pms_sampler_opts {
	unsigned version;             /* PMS_SAMPLER_OPTS_VERSION */
	enum pms_sampler_target target;
	pid_t pid;                    /* CHILD and PID targets */
	struct pms_cpuset cpus;       /* CPUS target; empty = all online */
	uint64_t period;              /* sample period; 0 = engine default */
	uint64_t freq;                /* when non-zero: frequency mode (Hz), period ignored */
	unsigned ldlat;               /* load-latency threshold in cycles; 0 = none */
	enum pms_sampler_priv priv;
	unsigned ops;                 /* PMS_SAMPLER_LOADS|STORES; 0 = both */
	bool want_phys;               /* ask for PERF_SAMPLE_PHYS_ADDR (dropped with a reason) */
	bool want_raw;                /* IBS: also PERF_SAMPLE_RAW, cross-checked with the
					 * register decoder (counted in stats) */
	bool l3missonly;              /* IBS: only ops that missed L3 (skews the period) */
	enum pms_engine engine;       /* PMS_ENG_NONE = best available; else only this one */
	bool no_fallback;             /* do not fall back to software page faults */
	size_t data_pages;            /* ring data pages (power of two); 0 = 512 KiB of them
					 * (perf record's default) */
	size_t aux_pages;             /* SPE AUX pages (power of two); 0 = 128 */
	uint32_t wakeup_bytes;        /* poll watermark; 0 = a quarter of the ring */
	/* Arm SPE filters (drivers/perf/arm_spe_pmu.c formats; each dropped
	 * with a note where the PMU lacks it): */
	uint64_t spe_events;          /* event_filter (PMSEVFR_EL1): keep records with all
				       * these event bits (PMS_SPE_EVENT_BIT); 0 = none */
	uint64_t spe_not_events;      /* inv_event_filter (PMSNEVFR_EL1, FEAT_SPEv1p2): drop
				       * records with any of these; 0 = none */
	bool spe_branches;            /* also sample branches (branch_filter) */
	/* AMD IBS op: the period counts dispatched ops (IbsOpCntCtl = 1, the
	 * cnt_ctl term, IBS_CAPS_OPCNT) instead of cycles */
	bool ibs_count_ops;
	/* version 2 */
	/* Call paths on every sample (perf record -g / --call-graph): FP asks
	 * the kernel for PERF_SAMPLE_CALLCHAIN; DWARF for the kernel part of
	 * it plus PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER, unwound by
	 * the consumer (unwind.h).  SPE samples (decoded from AUX data) get
	 * none: the info notes say so. */
	enum pms_callgraph callgraph;
	uint32_t stack_size;          /* DWARF: user stack bytes per sample; 0 = 8192 */
	uint16_t max_stack;           /* attr.sample_max_stack; 0 = the kernel's sysctl */
	/* Overflow (IP) sampling instead of a memory engine (pmuscope record):
	 * these events in perf's syntax (event.h), each sampled on its own
	 * (hybrid machines: one event per core PMU, on that PMU's CPUs), with
	 * freq / period (neither: 4000 Hz, perf's default; a period= term
	 * wins).  When a hardware event is refused (no PMU: a VM) and
	 * no_fallback is not set, cpu-clock is sampled instead and the info
	 * notes say why.  NULL: memory sampling (the engine ladder). */
	const char *event;
	/* A branch stack with every sample (perf record -b / -j): the
	 * PERF_SAMPLE_BRANCH_* filter (pms_branch_filter_parse); without u/k/hv
	 * the kernel takes the event's privilege levels.  Needs the core PMU's
	 * branch records (Intel LBR, AMD LbrExtV2/BRS, Arm BRBE): IBS, SPE and
	 * software events have none (refused before opening, with the reason).
	 * 0 = none. */
	uint64_t branch_filter;
	/* A process whose samples are counted (stats.samples_excluded) and not
	 * delivered: the observer itself in a system-wide or CPU run, whose
	 * own work for each sample (page faults under the software engine,
	 * loads under a precise one) would otherwise feed the profile it
	 * measures.  The kernel has no per-process exclusion for per-CPU
	 * events, so the records still take ring space; they are dropped
	 * before conversion.  0 = none. */
	pid_t exclude_pid;
	/* version 4 */
	/* Arm SPE data-source filter (FEAT_SPE_FDS, PMSDSFR_EL1): drop records
	 * whose data source (bits [5:0] of the Data Source payload) has its bit
	 * set here, the kernel's inv_data_src_filter term; 0 = none.  No
	 * kernel up to 6.12 has the term (drivers/perf/arm_spe_pmu.c v6.12
	 * formats, :212-234); later ones put it in config4, which this
	 * build's perf_event_attr (PERF_ATTR_SIZE_VER8) lacks: asked for, it
	 * is refused (see spe_filters_required). */
	uint64_t spe_inv_data_src;
	/* SPE filters (spe_events, spe_not_events, spe_inv_data_src) the PMU
	 * cannot program refuse the SPE engine with the reason (the open fails
	 * when no other engine is allowed), instead of being dropped with a
	 * note: a filtered profile that is silently unfiltered misleads. */
	bool spe_filters_required;
	/* version 5 */
	/* Adapt to loss: when a poll finds that the kernel dropped more than
	 * 2 % of the records since the last change (PERF_RECORD_LOST), a
	 * ring 3/4 full when it came to drain it (half full when the drain
	 * thread copied it: it came a quarter ring late), or a ring that
	 * received a quarter of its size between two polls (loss is near),
	 * the sampler
	 * reopens its events with a larger period (and, up to 4 MiB, larger
	 * rings), disables the old ones, drains and closes them (a live
	 * sampler's drain thread goes on copying the old rings while the new
	 * events are opened).  Each
	 * sample carries the period of the event that wrote it; each change is
	 * listed by pms_sampler_adaptations().  Events with groups or AUX
	 * areas (PEBS with an aux leader, SPE) are not adapted (the info notes
	 * say so). */
	bool adapt;
	/* version 6 */
	/* Stamp samples with CLOCK_MONOTONIC (attr.use_clockid), the clock
	 * the allocation tracker stamps its records with (pmuscope/alloc.h):
	 * perf's default clock, local_clock, ran a steady 1.4 ms ahead of
	 * CLOCK_MONOTONIC for a sampled command on this project's test VM
	 * (kvm-clock, no stable sched_clock).  perf reads such files (the
	 * clock is in each attr). */
	bool clock_monotonic;
};
#define PMS_SAMPLER_OPTS_INIT                                                    \
	{ PMS_SAMPLER_OPTS_VERSION, PMS_TARGET_CHILD, -1, { NULL, 0 }, 0, 0, 0,     \
	  PMS_PRIV_ANY, 0, false, false, false, PMS_ENG_NONE, false, 0, 0, 0,      \
	  0, 0, false, false, PMS_CALLGRAPH_NONE, 0, 0, NULL, 0, 0, 0, false, false, false }

/* One perf_event_open tried by the ladder. */
struct pms_sampler_attempt {
	enum pms_engine engine;
	char pmu[32];        /* "ibs_op", "cpu_core", "arm_spe_0", "software" */
	char attr[320];      /* the attr as pms_event_attr_describe() writes it */
	pid_t pid;
	int cpu;
	int err;             /* 0 = the kernel accepted it, else the positive errno */
	bool chosen;         /* this attr is the one the sampler runs */
	char reason[256];    /* why it was tried / why it was refused / what was dropped */
};

/* What was chosen. */
struct pms_sampler_info {
	enum pms_engine engine;
	const char *pmus;         /* PMU name(s) opened, comma-separated */
	const char *label;        /* one line for every output, e.g. the fallback warning */
	const char *notes;        /* caveats (l3missonly skew, PA dropped ...), "" if none */
	bool phys;                /* PHYS_ADDR is in the samples */
	bool data_src;            /* the engine gives a real data source */
	uint64_t sample_type;     /* of the main event(s) */
	size_t nstreams;          /* fds opened (per CPU / per core PMU) */
};

struct pms_sampler_stats {
	uint64_t samples;         /* delivered to cb->sample */
	uint64_t samples_dropped; /* parsed but not delivered (e.g. no data address) */
	uint64_t records;         /* records read from the rings */
	uint64_t wrapped;         /* records that straddled the end of a ring */
	uint64_t corrupt_bytes;   /* ring bytes skipped after an impossible header */
	uint64_t parse_errors;    /* records pms_record_parse refused */
	uint64_t lost_records;    /* PERF_RECORD_LOST records */
	uint64_t lost;            /* sum of their counts (records the kernel dropped) */
	uint64_t lost_samples;    /* sum of PERF_RECORD_LOST_SAMPLES counts */
	uint64_t throttle, unthrottle;
	uint64_t sideband;        /* MMAP/MMAP2/COMM/FORK/EXIT delivered */
	uint64_t aux_records;     /* PERF_RECORD_AUX */
	uint64_t aux_bytes;       /* AUX bytes handed to the decoder */
	uint64_t aux_truncated, aux_overwrite, aux_partial, aux_collision; /* PERF_AUX_FLAG_* */
	uint64_t aux_decode_errors;
	uint64_t ibs_raw_checked;  /* IBS samples whose RAW registers were decoded */
	uint64_t ibs_raw_mismatch; /* ... and disagreed with the kernel's fields */
	uint64_t streams_hup;      /* fds whose task is gone (POLLHUP); when this
				    * equals pms_sampler_info.nstreams, every
				    * target has exited */
	uint64_t aux_overrun;      /* AUX bytes overwritten before they were read */
	uint64_t samples_excluded; /* samples of opts.exclude_pid, not delivered */
};

/* One adaptation to loss (opts.adapt). */
struct pms_sampler_adaptation {
	uint64_t at_ns;          /* when, in ns since pms_sampler_open (CLOCK_MONOTONIC) */
	uint64_t old_period, new_period; /* sample_period (sample_freq in freq mode) */
	bool freq;               /* the events are in frequency mode */
	size_t old_pages, new_pages; /* ring data pages per stream */
	uint64_t kept, lost;     /* records kept / lost (PERF_RECORD_LOST) since the
				  * previous change: why */
	unsigned fill_pct;       /* the fullest ring found at a drain since then, % of
				  * its size: why, when nothing was lost yet (>= 75) */
	unsigned rate_pct;       /* the most one ring received between two polls, % of
				  * its size: why, when the caller polls too seldom for
				  * the rate (>= 25) */
	size_t old_streams, new_streams; /* fds before and after */
	size_t tasks;            /* tasks the new events were opened on (0: per CPU) */
	uint64_t gap_ns;         /* between disabling the old events and enabling
				  * the new ones: events then are not sampled */
	uint64_t old_samples;    /* samples the old events delivered (at old_period) */
};

struct pms_sampler_callbacks {
	/* One memory sample; return 0 to go on, negative to stop the poll. */
	int (*sample)(void *ud, const struct pms_memsample *s);
	/* MMAP, MMAP2, COMM, FORK, EXIT, and the accounting records LOST,
	 * LOST_SAMPLES, THROTTLE, UNTHROTTLE (rec->type says which); may be NULL. */
	int (*sideband)(void *ud, const struct pms_record *rec);
};

struct pms_sampler;

/* Run the ladder on the target, open the chosen engine on every CPU/thread
 * (disabled; see pms_sampler_enable) and map its rings.  Fails with
 * PMS_ENOTSUP when no engine (fallback included, unless opts.no_fallback)
 * could be opened; the message then lists each attempt's errno. */
int pms_sampler_open(struct pms_sys *sys, const struct pms_pmus *pmus,
		     const struct pms_topo *topo, const struct pms_sampler_opts *opts,
		     struct pms_sampler **out);
void pms_sampler_free(struct pms_sampler *s);

/* PERF_EVENT_IOC_ENABLE / DISABLE on every fd.  A CHILD target needs no
 * enable: its events start at exec (enable_on_exec). */
int pms_sampler_enable(struct pms_sampler *s);
int pms_sampler_disable(struct pms_sampler *s);

/* Wait up to timeout_ms (0 = do not wait, -1 = forever) for a ring to pass its
 * watermark, then drain every ring, delivering samples and side-band records.
 * On a context that is not this system (a fake kernel) it drains without
 * waiting.  Returns the number of records read (>= 0), or a callback's
 * negative code, or a negative PMS_E*. */
int pms_sampler_poll(struct pms_sampler *s, int timeout_ms,
		     const struct pms_sampler_callbacks *cb, void *ud);

void pms_sampler_stats(const struct pms_sampler *s, struct pms_sampler_stats *out);
void pms_sampler_info(const struct pms_sampler *s, struct pms_sampler_info *out);

/* The memory-sampling options in o that the engine cannot honour (issue 30:
 * an option that changes nothing is said, never silent): one table in the
 * library, rows (option as perf mem spells it, the engines that apply it,
 * what the others do instead).  Fills up to max entries of out (may be
 * NULL) in table order and returns how many there are; none for
 * PMS_ENG_NONE and PMS_ENG_OVERFLOW.  The strings are static. */
struct pms_sampler_unhonoured {
	const char *option; /* "-t load", "--ldlat", ... */
	const char *why;    /* "stores are sampled too (only PEBS and SPE ...)" */
};
size_t pms_sampler_unhonoured(enum pms_engine engine, const struct pms_sampler_opts *o,
			      struct pms_sampler_unhonoured *out, size_t max);
/* The adaptations made so far (opts.adapt), oldest first; *count gets how
 * many.  Owned by the sampler.  Samples removed as duplicates (a task that
 * got the new events twice, directly and by inheritance, during a change)
 * are counted in *dups when dups is not NULL. */
const struct pms_sampler_adaptation *pms_sampler_adaptations(const struct pms_sampler *s,
							      size_t *count, uint64_t *dups);
/* The sum of the periods of the samples delivered so far: the events they
 * stand for (with adaptation, samples of different periods mix). */
uint64_t pms_sampler_events(const struct pms_sampler *s);
/* The ladder log, in the order tried. */
const struct pms_sampler_attempt *pms_sampler_attempts(const struct pms_sampler *s,
						       size_t *count);

/* Run only the ladder (open and close a probe event per candidate) and give
 * the log; *engine gets the engine that would be chosen (PMS_ENG_NONE when
 * none).  attempts is malloc'd, freed by the caller with free(). */
int pms_sampler_probe(struct pms_sys *sys, const struct pms_pmus *pmus,
		      const struct pms_topo *topo, const struct pms_sampler_opts *opts,
		      enum pms_engine *engine, struct pms_sampler_attempt **attempts,
		      size_t *count);

/* A command started stopped before exec: fork, the child waits on a pipe,
 * then execvp(argv[0], argv) once pms_child_start() is called.  Live contexts
 * only (PMS_ENOTLIVE otherwise). */
struct pms_child;
int pms_child_spawn(struct pms_sys *sys, char *const argv[], struct pms_child **out);
pid_t pms_child_pid(const struct pms_child *c);
/* Let the child exec; fails with PMS_ENOENT/PMS_ESYS (errno in the message)
 * when execvp failed in the child. */
int pms_child_start(struct pms_child *c);
/* waitpid; *status (optional) gets the wait status.  Returns 0 when the child
 * has exited, 1 when it still runs and nohang is set, or a negative code. */
int pms_child_wait(struct pms_child *c, bool nohang, int *status);
/* Kills (SIGKILL) and reaps a child that was never waited for. */
void pms_child_free(struct pms_child *c);

/* Exit hold: with opts.hold_exits every process of the command's tree (the
 * command and whatever it forks, clones or execs) is traced with ptrace
 * (PTRACE_SEIZE + PTRACE_O_TRACEEXIT, kernel/ptrace.c) and stops in do_exit
 * before its memory is released (kernel/exit.c: ptrace_event(PTRACE_EVENT_EXIT)
 * comes before exit_mm()).  The caller then asks about the pages it sampled
 * (move_pages with the held thread's id works while it is stopped there) and
 * lets it go with pms_child_release().  Signals are passed on unchanged and
 * job-control stops are kept (PTRACE_LISTEN).  Tracing needs the right to
 * ptrace one's own child (Yama ptrace_scope <= 1, or CAP_SYS_PTRACE); a
 * set-user-ID program runs without its privileges while traced (fs/exec.c,
 * LSM_UNSAFE_PTRACE), so callers should not hold such commands.
 * Only the thread that spawned the child may poll and release. */
#define PMS_CHILD_OPTS_VERSION 1
struct pms_child_opts {
	unsigned version; /* PMS_CHILD_OPTS_VERSION */
	bool hold_exits;  /* stop every process of the tree at exit (above) */
};
#define PMS_CHILD_OPTS_INIT { PMS_CHILD_OPTS_VERSION, false }

/* pms_child_spawn with options; opts NULL = defaults (no hold). */
int pms_child_spawn_opts(struct pms_sys *sys, char *const argv[],
			 const struct pms_child_opts *opts, struct pms_child **out);

enum pms_child_event_kind {
	PMS_CHILD_EV_NONE = 0, /* nothing happened (non-blocking poll) */
	PMS_CHILD_EV_HELD,     /* a thread stopped at exit; memory still mapped */
	PMS_CHILD_EV_EXITED,   /* the command itself ended; status is its wait status */
};

struct pms_child_event {
	enum pms_child_event_kind kind;
	pid_t tid;  /* HELD: the stopped thread (release it with this id) */
	pid_t pid;  /* HELD: its process (thread group); EXITED: the command */
	int status; /* HELD: the exit code given to exit(); EXITED: the wait status */
};

/* Wait for the next event of the command's tree (block: wait, else return
 * PMS_CHILD_EV_NONE at once).  Every other ptrace stop (fork, clone, exec,
 * signal delivery, group stop) is handled inside.  Works without hold_exits
 * too (then it only reports EXITED).  0 or a negative PMS_E*. */
int pms_child_poll(struct pms_child *c, bool block, struct pms_child_event *ev);
/* Let a thread held at exit go on exiting. */
int pms_child_release(struct pms_child *c, pid_t tid);
/* Threads held now (not yet released). */
size_t pms_child_held(const struct pms_child *c);
/* Whether exits are really held (hold_exits asked and ptrace accepted); when
 * asked but refused, the reason is in *why (static text, may be NULL). */
bool pms_child_holding(const struct pms_child *c, const char **why);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
