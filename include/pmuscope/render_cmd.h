/* The other subcommands' documents, written into a caller's FILE * or a
 * caller's JSON tree (pmuscope/render.h's writer: the caller inits it and
 * writes it with pms_json_finish, adding the "pmuscope" meta object it
 * knows): mem's run, record's summary, top's frames, topology, list, encode, datasrc, events, c2c, stat, DAMON, advice, a perf.data file's header, IBS
 * fetch rows.  The library writes only into what it is given.
 * Ownership: everything passed in is borrowed for the call. */
#ifndef PMUSCOPE_RENDER_CMD_H
#define PMUSCOPE_RENDER_CMD_H

#include "pmuscope/api.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pmuscope/advise.h"
#include "pmuscope/advise_text.h"
#include "pmuscope/alloc.h"
#include "pmuscope/c2c.h"
#include "pmuscope/c2c_text.h"
#include "pmuscope/catalog.h"
#include "pmuscope/count.h"
#include "pmuscope/stat_text.h"
#include "pmuscope/damon.h"
#include "pmuscope/event.h"
#include "pmuscope/fetchview.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/pmu.h"
#include "pmuscope/render.h"
#include "pmuscope/session.h"
#include "pmuscope/sorthist.h"
#include "pmuscope/sys.h"
#include "pmuscope/top.h"
#include "pmuscope/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

PMS_API_BEGIN

/* ---- record ----------------------------------------------------------------
 * The run's summary: event (what was asked), the source's info, stats and
 * attrs (those with samples are named), the report's samples and hot
 * functions and instructions, prep's call paths (NULL: none), secs long. */
void pms_render_record_json(struct pms_json *j, const char *event,
			    const struct pms_memsrc_info *si, const struct pms_memsrc_attr *attrs,
			    size_t nattrs, const struct pms_memreport *rep,
			    const struct pms_pathreport *prep, const struct pms_memsrc_stats *sst,
			    double secs);
void pms_render_record_text(FILE *out, const char *event, const struct pms_memsrc_info *si,
			    const struct pms_memsrc_attr *attrs, size_t nattrs,
			    const struct pms_memreport *rep, const struct pms_pathreport *prep,
			    const struct pms_memsrc_stats *sst, double secs);

/* ---- top (docs/top.md) ----------------------------------------------------
 * One frame of r as one JSON object into j (the caller writes it as one
 * line), each view's first max_rows rows.  0, or -1 when a view's table
 * could not be built (the object is then cut short). */
int pms_render_top_json(struct pms_json *j, const struct pms_top_frame *fr,
			const struct pms_memreport *r, size_t max_rows);

/* ---- topology (docs/json-topology.md) ------------------------------------
 * The machine's topology and its uncore boxes' nodes (boxes may be NULL
 * with uncore_error saying why); root: the --root directory, NULL = "/".
 * The JSON form fills j with one object: 0, or -1 out of memory (nothing
 * added). */
int pms_render_topology_json(struct pms_json *j, const char *root, const struct pms_topo *t,
			     const struct pms_uncore_box *boxes, size_t nboxes,
			     const char *uncore_error);
void pms_render_topology_text(FILE *out, const struct pms_topo *t,
			      const struct pms_uncore_box *boxes, size_t nboxes,
			      const char *uncore_error);

/* ---- list (docs/json-list.md) ---------------------------------------------
 * The PMUs whose name matches pattern (NULL: all; a substring, or a shell
 * glob when it has * ? or [): how many; their text; their JSON document
 * (root: the --root directory; has_hw: a hardware PMU is exposed; hv: a
 * hypervisor was detected; note: why there is no hardware PMU, or NULL). */
size_t pms_render_pmus_matching(const struct pms_pmus *pmus, const char *pattern);
void pms_render_pmus_text(FILE *out, const struct pms_pmus *pmus, const char *pattern);
void pms_render_pmus_json(struct pms_json *j, const struct pms_pmus *pmus, const char *pattern,
			  const char *root, bool has_hw, bool hv, const char *note);
/* Why no hardware event can be counted here, naming pmus' PMUs and the
 * hypervisor (hv_what) when there is one. */
void pms_render_pmus_no_hw_note(char *buf, size_t size, const struct pms_pmus *pmus, bool hv,
				const char *hv_what);

/* ---- encode ----------------------------------------------------------------
 * One parsed event of pmus: its attr, CPUs, group and what the kernel will
 * program (PMUv3 mapping and threshold, IBS forward), as one JSON object
 * into j or one text line; buf (len bytes) is scratch. */
void pms_render_event_json(struct pms_json *j, const struct pms_pmus *pmus,
			   const struct pms_event *e, char *buf, size_t len);
void pms_render_event_text(FILE *out, const struct pms_pmus *pmus, const struct pms_event *e,
			   char *buf, size_t len);

/* ---- datasrc ---------------------------------------------------------------
 * A perf_mem_data_src word v (given as input): one JSON object into j, or
 * one tab-separated row (perf mem's columns). */
void pms_render_datasrc_json(struct pms_json *j, const char *input, uint64_t v);
void pms_render_datasrc_columns(FILE *out, uint64_t v);

/* ---- events (docs/json-events.md) -----------------------------------------
 * Where j is not NULL the JSON form fills it with one object and out is
 * not used; else the text goes to out. */
/* --explain: an ARM PMUv3 event number, its tier, block and discovery, and
 * which of pmus' (may be NULL) ARM core PMUs list it.  0, or -1 when the
 * number cannot be classified (pms_error_last() says why). */
int pms_render_arm_explain(FILE *out, struct pms_json *j, uint32_t number,
			   const struct pms_pmus *pmus);
/* --facts: the ARM PMUv3 counter facts. */
void pms_render_arm_facts(FILE *out, struct pms_json *j);
/* --apple all: each known Apple event's number on every generation, those
 * whose name matches pattern (NULL: all; a substring, case-insensitive, or
 * a shell glob when it has * ? or [). */
void pms_render_apple_all(FILE *out, struct pms_json *j, const char *pattern);
/* The name of the machine's only core PMU; NULL with none or several. */
const char *pms_render_events_core_pmu(const struct pms_pmus *pmus);
/* The listing: this machine's own events (machine: pms_machine_events_list
 * on sys), then cat's (NULL: none; its pmu-less events belong to core_pmu
 * where set), those matching pattern and pmu (NULL: any), with what (the
 * catalog's description) in the heading. */
struct pms_render_events_src {
	struct pms_sys *sys;
	const struct pms_pmus *pmus; /* availability; may be NULL */
	const struct pms_catalog *cat;
	const char *core_pmu;
	bool machine;
	const char *what, *pattern, *pmu;
};
/* Returns the rows shown.  why (whylen bytes) gets why the tracepoints
 * could not be listed when the machine listing wanted them and found none
 * ("" otherwise). */
size_t pms_render_events(FILE *out, struct pms_json *j, const struct pms_render_events_src *s,
			 char *why, size_t whylen);

/* ---- c2c (docs/c2c.md) ----------------------------------------------------
 * What was profiled, as the JSON's "source" object says it. */
struct pms_render_c2c_src {
	const char *kind;   /* "file" or "live" */
	const char *path;   /* file */
	char what[512];     /* text: the target */
	char label[512];    /* engine label / recorded events */
	uint64_t records, skipped, lost, excluded_self;
	const struct pms_session *ses; /* a file's session: its problems; NULL */
	bool unfinished;
	bool truncated;
	const char *nodes_why;
	int exit_status;    /* live command: wait status, -1 none */
};
/* The report as one JSON object into j. */
void pms_render_c2c_json(struct pms_json *j, const struct pms_render_c2c_src *src,
			 const struct pms_c2c_report *r);

/* ---- stat (docs/stat.md) --------------------------------------------------
 * One result (t < 0: the run's; else the interval ending at t s) of the
 * rows into o->f as JSON (a document; one line per interval), CSV (o->sep)
 * or perf stat's table. */
struct pms_render_stat {
	FILE *f;           /* stderr as perf stat, or -o FILE */
	enum pms_count_agg agg;
	const char *sep;   /* CSV */
	bool json;
	const char *target_desc;
	char *const *cmd;
	const struct pms_counter *c;
	enum pms_count_target target;
	pid_t pid;
	const struct pms_count_row *cum; /* interval mode: the cumulative rows */
	const double *rsd; /* -r N: per row, relative stddev of the mean in %, or NULL */
	int runs;
	double elapsed;     /* s: the run, or the interval (for CPUs utilized) */
	double elapsed_rsd; /* -r N: of the elapsed time, % */
	double user_s, sys_s; /* the command's rusage, -1 without one */
	/* a task target with uncore events: their names ("a,b"), else empty */
	char whole_domain[512];
	const struct pms_json_meta *meta; /* a pretty JSON's "pmuscope" object; NULL */
};
#define PMS_STAT_WHOLE_DOMAIN_NOTE \
	"uncore and system PMUs are not thread-attributable: these events count their whole " \
	"domain (every CPU and process the box serves) while the target runs, not only the target"
/* 0, or PMS_EIO when the JSON could not be written. */
int pms_render_stat(const struct pms_render_stat *o, const struct pms_count_row *rows, size_t n,
		    double t, double elapsed, int exit_status);

/* ---- mem --engine damon (docs/damon.md) ----------------------------------
 * The run's result as one JSON object into j; samples: every snapshot's
 * regions too; why: why DAMON was chosen automatically (NULL: asked for). */
void pms_render_damon_json(struct pms_json *j, const struct pms_damon_run_result *res,
			   bool samples, const char *why);

/* ---- --advise / --apply (docs/advise.md) ----------------------------------
 * What the advisor gave: the plan (of the report, or with --apply of the
 * first measurement `before`, before_s long), its rows applied, the sites'
 * plan (of the sites report sites_ar) and what moved per site, err: why
 * there is no plan or nothing was applied ("" none).  Borrowed. */
struct pms_render_advice {
	bool advise, apply;
	double before_s;
	const struct pms_memreport *before;
	const struct pms_advisor *adv_before, *adv_after;
	const struct pms_advice *plan;
	const struct pms_advice_applied *rows;
	size_t nrows;
	const char *err;
	const struct pms_site_plan *sites;
	const struct pms_alloc_report *sites_ar;
	const struct pms_migrate_result *site_res;
	bool sites_applied;
};
/* The text after the report (nothing without advise); after: the second
 * measurement's report with --apply, else NULL; pid and cmd (NULL-ended)
 * name the target in the runnable commands. */
void pms_render_advice_text(FILE *out, const struct pms_render_advice *a,
			    const struct pms_memreport *after, pid_t pid, char **cmd);
/* The "advice" member (and "apply" with --apply) of the mem/report JSON
 * (a NULL a or one without advise: nothing). */
void pms_render_advice_json(struct pms_json *j, const struct pms_render_advice *a,
			    const struct pms_memreport *after, pid_t pid, char **cmd);
/* One migration's result as the object key of j (pmuscope migrate's too). */
void pms_render_migrate_json(struct pms_json *j, const char *key,
			     const struct pms_migrate_result *r);

/* ---- mem's run --------------------------------------------------------------
 * What only the front end knows of a live `mem` run, for the memory
 * report's callbacks (pms_render_mem_opts: json_run, json_verify and
 * text_verify take a struct pms_render_mem_run as ud). */
enum pms_render_run_kind {
	PMS_RUN_WORKLOAD, PMS_RUN_COMMAND, PMS_RUN_PID, PMS_RUN_SYSTEM,
};
struct pms_render_mem_run {
	enum pms_render_run_kind kind;
	pid_t pid;        /* the command's or -p's; 0 none */
	char **cmd;       /* the command, NULL-ended; NULL none */
	size_t wl_size;   /* the built-in workload as asked: bytes, threads, */
	int wl_threads;   /* node (-1: none) */
	int wl_node;
	struct {          /* what the workload said: its buffer, home node and */
		bool have;    /* the --verify-node check (vchecked < 0: none) */
		uint64_t start, size;
		int home;
		long vchecked, vdis, verr;
	} wl;
	bool verify;      /* --verify-node */
	struct {
		bool have_status;
		int status;   /* wait status */
		bool interrupted, timed_out;
		double seconds;
	} oc;
	const struct pms_render_advice *advice; /* --advise */
	const struct pms_memreport *after;      /* --apply: the second measurement */
};
void pms_render_mem_run_json(struct pms_json *j, const void *ud);
void pms_render_mem_verify_json(struct pms_json *j, const void *ud);
void pms_render_mem_verify_text(FILE *out, const void *ud);
/* The report's first line's target ("built-in pointer chase, 64 MiB, 1
 * thread(s)", "command ...", "pid N", "system-wide"). */
void pms_render_mem_target(const struct pms_render_mem_run *d, char *buf, size_t size);

/* ---- perf.data files -------------------------------------------------------
 * --header (script, report): the file's mode, header features and record
 * counts, as text. */
void pms_render_perfdata_header(FILE *o, struct pms_perfdata_reader *r);
/* report --fetch[=line]: the IBS fetch view of the file at path, its top
 * rows (per function, or per source line with by_line) and the total. */
void pms_render_ibs_fetch(FILE *out, const char *path, const struct pms_ibs_fetch_view *v,
			  bool by_line, size_t top);

/* ---- perf report's sort table ------------------------------------------
 * report -s/-F/--children/-g: a sort histogram's rows as perf report
 * --stdio prints them.  Columns (cols, NULL: perf's default Overhead,
 * [Samples with nr], the keys): PMS_SORT_COL_* or a key's index; with cols
 * the rows are in perf's -F order (the fields in turn).  Rows under
 * percent_limit are left out (said on a comment line with say_hidden).
 * chains (NULL: none): a Children column before Self where the histogram
 * has them, and each row's call chains as -g flat or folded print them
 * (perf's threshold in percent of the total period, at most print_limit
 * chains a row, 0: all).  0, or -1 when the result cannot be built
 * (pms_error_last says why). */
#define PMS_SORT_COL_OVERHEAD (-1)
#define PMS_SORT_COL_SAMPLES (-2)
#define PMS_SORT_COL_PERIOD (-3)
enum pms_cg_mode { PMS_CG_GRAPH, PMS_CG_FRACTAL, PMS_CG_FLAT, PMS_CG_FOLDED, PMS_CG_NONE };
enum pms_cg_value { PMS_CG_PERCENT, PMS_CG_PERIOD, PMS_CG_COUNT };
struct pms_render_chains {
	enum pms_cg_mode mode;   /* only FLAT and FOLDED print chains */
	enum pms_cg_value value;
	double threshold;
	long print_limit;
};
int pms_render_sort_table(struct pms_sorthist *h, bool nr, double percent_limit, bool say_hidden,
			  const int *cols, size_t ncols, const struct pms_render_chains *chains,
			  FILE *f);

PMS_API_END

#ifdef __cplusplus
}
#endif

#endif
