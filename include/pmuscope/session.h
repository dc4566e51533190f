/* One memory-profiling session: a source of memory samples and the sinks
 * they go to, the same for a live run and for recorded files, so that the
 * two cannot diverge.
 *
 * Sources:
 *   live   a command started here, an existing process, or the whole system
 *          (a pms_liverun the session owns: sampler, source, NUMA oracle,
 *          recorder, the poll loop and its stop rules)
 *   files  one or many perf.data files (or one pipe-mode stream, "-"),
 *          opened in order when the session runs; several files of an
 *          aggregate profile are decoded in parallel, one profile per file,
 *          and joined in file order (the result does not depend on the
 *          number of threads)
 * Sinks, in the order a sample reaches them: the placement advisor (files),
 * the memory profile (pms_memprof), call paths (pms_pathprof), then the
 * caller's callbacks (and, live, the recorder).  The report
 * (pms_session_report) is built from the profile with the session's
 * symbolizer and the source's info and statistics summed over the files.
 *
 * Ownership: pms_session_open_live() and pms_session_open_files() give the
 * caller a session released with pms_session_free(); sys, pmus and topo are
 * borrowed and must outlive it; the liverun, readers, sources, profile,
 * call paths, advisor and symbolizer are the session's (the getters'
 * pointers are valid until pms_session_free, pms_session_take_advisor
 * hands the advisor over); the reports it builds are the caller's.
 */
#ifndef PMUSCOPE_SESSION_H
#define PMUSCOPE_SESSION_H

#include "pmuscope/api.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/advise.h"
#include "pmuscope/alloc.h"
#include "pmuscope/c2c.h"
#include "pmuscope/liverun.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/pathprof.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/recorder.h"
#include "pmuscope/report.h"
#include "pmuscope/symbols.h"
#include "pmuscope/sorthist.h"
#include "pmuscope/sys.h"
#include "pmuscope/types.h"

#ifdef __cplusplus
extern "C" {
#endif

PMS_API_BEGIN

struct pms_session;

/* The caller's sinks: called after the built-in ones, from the thread that
 * runs the session (a session with a sample or sideband callback decodes
 * its files one after the other). */
struct pms_session_callbacks {
	/* 0 to go on, negative to stop (the run returns it); may be NULL. */
	int (*sample)(void *ud, const struct pms_memsrc_sample *s);
	/* Side-band records (COMM, MMAP, ...); may be NULL. */
	int (*sideband)(void *ud, const struct pms_record *rec, size_t attr_idx);
	/* Live: every progress_s seconds (pms_liverun_opts); may be NULL. */
	void (*progress)(void *ud, const struct pms_liverun_progress *p);
};

#define PMS_SESSION_OPTS_VERSION 1
struct pms_session_opts {
	unsigned version;                 /* PMS_SESSION_OPTS_VERSION */
	/* Build the memory profile (the report needs it). */
	bool profile;
	/* Its options (NULL: the defaults); live, pid is the run's. */
	const struct pms_memprof_opts *profile_opts;
	/* Samples by call path and branch (NULL: none). */
	const struct pms_pathprof_opts *paths_opts;
	/* Files: feed a placement advisor with every sample that has an
	 * address (NULL: none); pms_session_take_advisor gives it. */
	const struct pms_advise_opts *advise_opts;
	/* Files: decode threads for several files; 0: the online CPUs. */
	size_t jobs;
	/* The report names code and data (a symbolizer); demangled names. */
	bool symbols;
	bool demangle;
	/* Live: the caller may see kernel addresses (call paths show them). */
	bool kernel_visible;
	const struct pms_session_callbacks *callbacks; /* copied; may be NULL */
	void *ud;                         /* for the callbacks */
	/* The cache-line contention model (NULL: none); its recorded is the
	 * source's.  Files: fed as the samples come, with the side-band; the
	 * profile, when not asked for, keeps only the mappings.  Live: fed
	 * at pms_session_c2c_report from the profile's kept samples (their
	 * nodes resolved while the processes lived). */
	const struct pms_c2c_opts *c2c_opts;
};
#define PMS_SESSION_OPTS_INIT                                                                   \
	{ PMS_SESSION_OPTS_VERSION, true, NULL, NULL, NULL, 0, true, true, false, NULL, NULL, NULL }

/* A live session: opens the run (pms_liverun_open with lo; its callbacks
 * are the session's, lo->callbacks and lo->ud are ignored) and the sinks.
 * Nothing is sampled until pms_session_start.  The run's errors. */
int pms_session_open_live(struct pms_sys *sys, const struct pms_pmus *pmus,
			  const struct pms_topo *topo, const struct pms_liverun_opts *lo,
			  const struct pms_session_opts *opts, struct pms_session **out);
/* Right after pms_session_open_live (or pms_liverun_open) failed: when the
 * kernel refused for lack of privilege, what the target needs (system-wide:
 * CAP_PERFMON or root, or kernel.perf_event_paranoid <= 0, with its value
 * here; a process: the right to ptrace it, or CAP_PERFMON) in buf, and its
 * length; 0 (buf "") when the failure was not a refusal or the target is a
 * command.  Reads the calling thread's last error (pms_error_errno,
 * pms_error_last). */
size_t pms_session_permission_hint(const struct pms_sys *sys, const struct pms_liverun_opts *lo,
				   char *buf, size_t len);
/* A session over perf.data files (paths copied; "-" is stdin, at most
 * once); sys may be NULL (no call paths, no names).  The files are opened
 * when the session runs. */
int pms_session_open_files(struct pms_sys *sys, const char *const *paths, size_t npaths,
			   const struct pms_session_opts *opts, struct pms_session **out);
void pms_session_free(struct pms_session *s);
/* Files: the seam that names code and data and makes call paths, when it
 * was not given at the open (borrowed, must outlive the session); before
 * the report.  Several files' kernels are judged as they are read (each
 * file's kernel IPs named when it lists the running kernel's build id):
 * given only after the run, the kernel IPs of several files stay unnamed. */
void pms_session_set_sys(struct pms_session *s, struct pms_sys *sys);

/* The data-type sink (pmuscope/types.h, issue 29): every sample's IP is
 * placed in the executable mappings of the side-band and resolved to a type
 * and member, live and from files alike; after the files' profile and call
 * paths, before the callbacks.  Before pms_session_start / pms_session_run
 * (PMS_EINVAL after a files session ran); 0, PMS_ENOMEM.  A files session
 * with it decodes its files one after the other.  The profile is the
 * session's (NULL without the sink). */
int pms_session_set_types(struct pms_session *s);
struct pms_typeprof *pms_session_typeprof(const struct pms_session *s);
/* Each of r->all's samples' type and member (the sink's mappings and
 * cache, not counted again), e.g. for pprof labels: *out holds r->nall
 * hits (free(); their strings are the sink's, until pms_session_free).
 * 0, PMS_EINVAL without the sink, PMS_ENOMEM. */
int pms_session_type_hits(struct pms_session *s, const struct pms_memreport *r,
			  struct pms_type_hit **out);
/* Feed a sort histogram (pmuscope/sorthist.h), handed over: the session
 * frees it (also on failure; the caller reads it, pms_sorthist_result,
 * until pms_session_free); its type keys attach the types sink.  Before
 * the run, once; 0, PMS_EINVAL, PMS_ENOMEM.  The names of its sym, dso and
 * symbol_daddr keys come through the session's sys (none without). */
int pms_session_set_sort(struct pms_session *s, struct pms_sorthist *h);

/* Live: write the recording to fd as well (pms_liverun_record: the
 * recorder after the sinks); before pms_session_start. */
int pms_session_record(struct pms_session *s, int fd, const struct pms_recorder_opts *ropts);
/* Live: start the run (pms_liverun_start). */
int pms_session_start(struct pms_session *s);
/* Live: one round (pms_liverun_step: 1 go on, 0 over, negative error).
 * Files: decode them all (as pms_session_run) and return 0. */
int pms_session_step(struct pms_session *s);
/* Until the source is over.  Live: pms_session_start first, then
 * pms_session_finish (pms_liverun_run: 0 or the failed step's code).  Files: open each file (a file that cannot be
 * opened or is no perf.data: its error, the run stops) and decode it; a
 * file whose data fails to read part-way is kept to that point and its
 * error is pms_session_file_error().  0 or a negative PMS_E*. */
int pms_session_run(struct pms_session *s);
/* Stop as if sig had been caught (live; async-signal safe). */
void pms_session_stop(struct pms_session *s, int sig);
/* Live, the run's calls (liverun.h) for the CLI to need no other object:
 * deliver and resolve what the rings hold; restart the clock with a new
 * limit; disable, deliver what is left and finish the recording (its
 * first error); how it ended; seconds since the start; the pid sampled
 * (0 system-wide); the sampler, the oracle (NULL without resolve) and the
 * recorder (NULL without pms_session_record), owned by the session.  For
 * a files session: 0, nothing, NULL. */
int pms_session_drain(struct pms_session *s);
void pms_session_set_duration(struct pms_session *s, double seconds);
int pms_session_finish(struct pms_session *s);
void pms_session_result(const struct pms_session *s, struct pms_liverun_result *out);
double pms_session_elapsed(const struct pms_session *s);
pid_t pms_session_pid(const struct pms_session *s);
/* A live command's processes still running when it exited
 * (pms_liverun_left_running; 0 for files). */
uint64_t pms_session_left_running(const struct pms_session *s);
/* A live run's exit holds so far (all zero for files or without holds). */
void pms_session_holds(const struct pms_session *s, struct pms_liverun_holds *out);
struct pms_sampler *pms_session_sampler(const struct pms_session *s);
struct pms_numa_oracle *pms_session_oracle(const struct pms_session *s);
struct pms_recorder *pms_session_recorder(const struct pms_session *s);

/* The report of the profile so far: nodes, names (the session's
 * symbolizer), the source's info and statistics (summed over the files).
 * base, when not NULL, gives numa, verify_requested and duration_ns (else
 * the live oracle's statistics and the run's seconds, or the files' span).
 * *paths (may be NULL) gets the call-path report, NULL when the samples
 * had no call path nor branch stack.  Both are the caller's. */
int pms_session_report(struct pms_session *s, const struct pms_memreport_input *base,
		       struct pms_memreport **out, struct pms_pathreport **paths);

/* Live, a started command tracked by libpmuscope-alloc.so: its records come
 * on fd (pms_alloc_channel_open; the caller put LD_PRELOAD and
 * PMUSCOPE_ALLOC in the command's environment before
 * pms_session_open_live), which the session owns from here (closed by
 * pms_session_free, also on failure).  rate and threshold are the
 * tracking's options, for the report.  Measures the clock offset now
 * (pms_alloc_calibrate_now; a failure is reported, not fatal).  0 or a
 * negative PMS_E*. */
int pms_session_set_alloc(struct pms_session *s, int fd, uint64_t rate, uint64_t threshold);
/* The samples of rep (pms_session_report of this session; its sample list,
 * kept-samples mode) by allocation site: the stream read to its end, the
 * clock measured again, each sample with a data address given the
 * allocation live at its time; the sites named through the session's
 * symbolizer.  From files: the records the first file holds (`mem -o` of a
 * tracked run).  *out is the caller's (pms_alloc_report_free); PMS_EINVAL
 * without pms_session_set_alloc or such a file, or without a sample list. */
int pms_session_alloc_report(struct pms_session *s, const struct pms_memreport *rep,
			     struct pms_alloc_report **out);
/* The tracked allocation of pid that held addr at perf time `time`
 * (pms_alloc_table_lookup on the session's table, as read so far): its
 * index and *info, or -1 (none, or no tracking). */
long pms_session_alloc_lookup(struct pms_session *s, uint32_t pid, uint64_t addr, uint64_t time,
			      struct pms_alloc_info *info);
/* The advice per allocation site of r (pms_site_plan_new, opts as its):
 * ar places r's samples in sites (pms_session_alloc_report of r), the
 * session's table names each sampled block (pms_session_alloc_lookup).
 * *out the caller's (pms_site_plan_free).  0, or a negative PMS_E*. */
int pms_session_site_plan(struct pms_session *s, const struct pms_memreport *r,
			  const struct pms_alloc_report *ar, const struct pms_advise_opts *opts,
			  struct pms_site_plan **out);
/* 1 when the session tracks allocations (live) or one of its files (once
 * run) holds a tracked run's allocation records (`mem -o`, `record -o`:
 * pms_session_alloc_report then reads every file's, each file its own
 * process space), else 0.  A session of files whose profile takes the
 * samples keeps them (not aggregate) when a file has such records, so
 * that the sites can be built; a pipe's records are not seen in time. */
int pms_session_has_alloc(const struct pms_session *s);

/* The contention report (opts->c2c_opts), the caller's: code and data
 * named through the session's symbolizer and the profile's mappings; a
 * live session whose caller may not see kernel addresses
 * (kernel_visible false) gets none (lines' and instructions' kernel
 * addresses zeroed). */
int pms_session_c2c_report(struct pms_session *s, struct pms_c2c_report **out);

/* Live, --apply's first half: drain, build the report of the measurement so
 * far (*before, the caller's), drop the oracle's cached nodes (pages are
 * about to move) and start a second profile with the same options; the
 * first stays the session's (pms_session_profile_before).  seconds: the
 * first measurement's length. */
int pms_session_remeasure(struct pms_session *s, double seconds, struct pms_memreport **before);

/* Live, a refreshing view's interval: drain, build the report of the
 * samples since the open or the last call (*out, the caller's; names from
 * that profile's mappings, the session's symbolizer remade for it), then
 * free that profile and go on with a fresh one of the same options.  The
 * source's statistics in the report are the run's so far (cumulative);
 * seconds: the interval's length (duration_ns).  Not after
 * pms_session_remeasure. */
int pms_session_interval(struct pms_session *s, double seconds, struct pms_memreport **out);

/* The source's info (files: the first file's, or the first whose engine
 * gives a data source) and statistics summed over the files. */
void pms_session_info(const struct pms_session *s, struct pms_memsrc_info *out);
void pms_session_stats(const struct pms_session *s, struct pms_memsrc_stats *out);
/* Files: the readers' counts summed (records, skipped, truncated, ...). */
void pms_session_file_stats(const struct pms_session *s, struct pms_perfdata_stats *out);
/* The longest time span of a source's samples. */
uint64_t pms_session_span_ns(const struct pms_session *s);
/* The samples' periods: sum, least and most (0 when none). */
void pms_session_periods(const struct pms_session *s, uint64_t *sum, uint64_t *min,
			 uint64_t *max);

/* What the readers skipped or found corrupt, of every file in order: the
 * i-th problem (owned by the session) and its file's index, NULL past the
 * last.  pms_session_problems_unlisted: a file's problems beyond those. */
const char *pms_session_problem(const struct pms_session *s, size_t i, size_t *file);
size_t pms_session_problems_unlisted(const struct pms_session *s, size_t file);

/* Files: how many, each one's path, reader and source (NULL before the
 * run opened it), and the error that stopped its decoding (NULL: none). */
size_t pms_session_nfiles(const struct pms_session *s);
const char *pms_session_file_path(const struct pms_session *s, size_t i);
struct pms_perfdata_reader *pms_session_reader(const struct pms_session *s, size_t i);
struct pms_memsrc *pms_session_source(const struct pms_session *s, size_t i);
const char *pms_session_file_error(const struct pms_session *s, size_t i);

/* The parts: the run (NULL for files), the profile (NULL without
 * opts->profile; after pms_session_remeasure the second one) and the first
 * measurement's, the symbolizer (made by pms_session_report; NULL without
 * symbols or when it could not be made). */
struct pms_liverun *pms_session_liverun(const struct pms_session *s);
struct pms_memprof *pms_session_profile(const struct pms_session *s);
struct pms_memprof *pms_session_profile_before(const struct pms_session *s);
struct pms_symbolizer *pms_session_symbolizer(const struct pms_session *s);
/* The advisor fed by the samples (files, opts->advise_opts), handed over:
 * the caller frees it; NULL when none or already taken. */
struct pms_advisor *pms_session_take_advisor(struct pms_session *s);

PMS_API_END

#ifdef __cplusplus
}
#endif
#endif
