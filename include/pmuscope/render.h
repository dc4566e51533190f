/* The memory report's documents, written into a caller's FILE *: text
 * tables, JSON (docs/mem.md's schema), CSV, the call-path and allocation
 * sections, the data-type tables, the HTML page, script's JSON rows, and
 * the JSON writer (on jansson) every one of them uses.  The front end
 * passes what only it knows (the target, its exit, the built-in workload,
 * the "pmuscope" meta object) in struct pms_render_mem_opts; the library
 * writes only into the streams it is given and prints nothing on its own.
 * Ownership: everything passed in is borrowed for the call; what a
 * function returns through a char ** is the caller's (free()). */
#ifndef PMUSCOPE_RENDER_H
#define PMUSCOPE_RENDER_H

#include "pmuscope/api.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmuscope/alloc.h"
#include "pmuscope/export.h"
#include "pmuscope/liverun.h"
#include "pmuscope/pathprof.h"
#include "pmuscope/report.h"
#include "pmuscope/sampler.h"
#include "pmuscope/script.h"
#include "pmuscope/sys.h"
#include "pmuscope/topo.h"
#include "pmuscope/types.h"

#ifdef __cplusplus
extern "C" {
#endif

PMS_API_BEGIN

/* ---- the JSON writer ----------------------------------------------------
 * The calls build a tree that pms_json_finish writes and releases.  Strings
 * that are not valid UTF-8 get U+FFFD; reals have 10 significant digits;
 * non-finite reals are null; a u64 above LLONG_MAX is written exactly. */

/* The producer object of a pretty document ("pmuscope": version, host,
 * kernel, cpu_model); each has_* false writes null. */
struct pms_json_meta {
	char version[32];
	char host[128], kernel[128], cpu_model[256];
	bool has_host, has_kernel, has_cpu_model;
};
/* The meta object of the machine sys describes (its root: this machine or a
 * snapshot): host facts and the CPU model; what cannot be read is null. */
void pms_json_meta_read(struct pms_sys *sys, struct pms_json_meta *out);

struct json_t;
struct pms_json {
	FILE *f;
	int depth;
	struct json_t *stack[64];
	struct json_t *root;
	/* true: one indented document with schema_version and the "pmuscope"
	 * meta object first (when meta is set); false: one compact line */
	bool pretty;
	bool big; /* a u64 beyond long long was written */
	const struct pms_json_meta *meta;
};
void pms_json_init(struct pms_json *j, FILE *f);
void pms_json_begin_object(struct pms_json *j, const char *key);
void pms_json_end_object(struct pms_json *j);
void pms_json_begin_array(struct pms_json *j, const char *key);
void pms_json_end_array(struct pms_json *j);
void pms_json_str(struct pms_json *j, const char *key, const char *val); /* NULL -> null */
void pms_json_int(struct pms_json *j, const char *key, long long val);
void pms_json_uint(struct pms_json *j, const char *key, unsigned long long val);
void pms_json_bool(struct pms_json *j, const char *key, bool val);
void pms_json_double(struct pms_json *j, const char *key, double val);
void pms_json_null(struct pms_json *j, const char *key);
/* "0x..." string member, or null when !valid. */
void pms_json_hex(struct pms_json *j, const char *key, bool valid, uint64_t v);
/* Writes the document and a newline, releases the tree: 0, or PMS_EIO when
 * it could not be written. */
int pms_json_finish(struct pms_json *j);

/* One flat JSON object per line (JSON Lines rows), the text the tree's
 * compact dump would write, built in r's buffer. */
struct pms_json_row {
	char b[8192];
	size_t n;
};
void pms_jrow_begin(struct pms_json_row *r);
void pms_jrow_str(struct pms_json_row *r, const char *key, const char *val); /* NULL -> null */
void pms_jrow_uint(struct pms_json_row *r, const char *key, unsigned long long val);
void pms_jrow_int(struct pms_json_row *r, const char *key, long long val);
/* A value already in JSON (len bytes), e.g. one quoted once by
 * pms_json_quote (s as a JSON string, NUL-terminated in out; its length). */
void pms_jrow_raw(struct pms_json_row *r, const char *key, const char *json, size_t len);
size_t pms_json_quote(const char *s, char *out, size_t size);
void pms_jrow_hex(struct pms_json_row *r, const char *key, unsigned long long val); /* "0x..." */
void pms_jrow_null(struct pms_json_row *r, const char *key);
void pms_jrow_end(struct pms_json_row *r, FILE *f); /* "}\n" and the line out */

/* ---- call paths (-g) ------------------------------------------------------ */
/* One folded line per distinct path ("a;b;c COUNT"), most samples first.
 * 0, or -1 with errno set when writing failed. */
int pms_render_callpath_folded(FILE *f, const struct pms_pathreport *r);

/* ---- allocation sites (mem -- CMD's tracking) ------------------------------ */
struct pms_render_alloc {
	bool want;                       /* tracking was asked */
	uint64_t rate, threshold;        /* the preload's sampling, bytes */
	const char *why;                 /* why not tracked; NULL or "" tracked */
	const struct pms_alloc_report *ar; /* NULL: not tracked */
	const struct pms_memreport *rep; /* the report whose samples ar placed */
	bool samples;                    /* JSON: the per-sample site list */
	size_t top;                      /* text rows, 0: 10 */
};
/* CSV with the sample's allocation site (alloc_site, alloc_where; empty
 * when none) after the report's columns when allocations are tracked, else
 * the report's CSV. */
void pms_render_alloc_csv(FILE *out, const struct pms_render_alloc *a,
			  const struct pms_memreport *r);
/* The allocation paths' collapsed stacks (root first, the allocating
 * call's kind as the leaf, weighted by samples).  0, or PMS_ENOMEM. */
int pms_render_alloc_folded(const struct pms_render_alloc *a, char **text, size_t *len);

/* ---- the memory report ---------------------------------------------------- */
#define PMS_RENDER_MEM_OPTS_VERSION 1
struct pms_render_mem_opts {
	unsigned version;        /* PMS_RENDER_MEM_OPTS_VERSION */
	FILE *out;               /* where the document goes (NULL: refused) */
	const struct pms_json_meta *meta; /* JSON's "pmuscope" object; NULL: none */
	const char *command;     /* "mem" or "report": the text's first word */
	const char *target_text; /* the text's first line: what was profiled */
	double seconds;
	uint64_t sample_type;    /* JSON engine.sample_type */
	bool samples;            /* JSON: the sample_list (report.all) */
	bool oracle;             /* a live node oracle was asked: show its counts */
	const char *nodes_why;   /* NULL, or why nodes are unavailable */
	bool per_process, per_thread; /* text: the process / thread tables */
	/* a started command's exits: 1 held, -1 not held (ptrace refused or
	 * --no-hold), 0 no command */
	int hold;
	bool system_wide;        /* -a: say so in hints */
	int verbosity;           /* text: > 0 every engine tried, else one line */
	/* The front end's facts.  JSON members after schema_version: target,
	 * workload, exit, duration_s (and what else the run has) */
	void (*json_run)(struct pms_json *j, const void *ud);
	/* JSON numa.verify members; NULL: "not requested" */
	void (*json_verify)(struct pms_json *j, const void *ud);
	/* text lines after the node counts (into out); NULL: none */
	void (*text_verify)(FILE *out, const void *ud);
	const void *ud;
	/* the sections after the report: call paths, then allocation sites
	 * (NULL: none) */
	const struct pms_pathreport *paths;
	const struct pms_render_alloc *alloc;
	/* a live run's adaptations to loss (mem --adapt) */
	bool adapt_on;
	const struct pms_sampler_adaptation *adapt;
	size_t nadapt;
	uint64_t adapt_dups;     /* samples dropped as a task's second lineage */
	uint64_t events;         /* sum of the samples' periods; 0: not known */
	uint64_t period_min, period_max; /* of the samples (report); 0: not known */
	/* a held command's exit holds (hold > 0) and the budget, ms (< 0: none) */
	struct pms_liverun_holds holds;
	double hold_budget_ms;
	/* options the engine could not honour (pms_sampler_unhonoured): a
	 * text line each under the engine line, JSON engine.not_honoured */
	const struct pms_sampler_unhonoured *unhonoured;
	size_t nunhonoured;
	/* mem --types: JSON's "types" member after the allocation sites (the
	 * object report --types --json prints); NULL: none */
	struct pms_typeprof *types;
};
#define PMS_RENDER_MEM_OPTS_INIT                                                               \
	{ PMS_RENDER_MEM_OPTS_VERSION, NULL, NULL, "mem", NULL, 0, 0, false, false, NULL, false,   \
	  false, 0, false, 0, NULL, NULL, NULL, NULL, NULL, NULL, false, NULL, 0, 0, 0, 0, 0,        \
	  { 0 }, -1, NULL, 0, NULL }

/* The text report / the JSON document into opts->out: 0, or a negative
 * PMS_E* (PMS_EINVAL: bad options; PMS_EIO: the JSON could not be
 * written). */
int pms_render_mem_text(const struct pms_render_mem_opts *opts, const struct pms_memreport *r);
int pms_render_mem_json(const struct pms_render_mem_opts *opts, const struct pms_memreport *r);
/* The HTML page (the report's JSON and text, the samples' columns for the
 * charts, stacks st, node distances of topo when not NULL) into f. */
int pms_render_mem_html(FILE *f, const struct pms_render_mem_opts *opts,
			const struct pms_memreport *r, const struct pms_export_stacks *st,
			const struct pms_topo *topo);
/* An empty result (no samples, or addresses but none resolved): true with
 * why it is empty and what to try in buf. */
bool pms_render_mem_empty(const struct pms_render_mem_opts *opts, const struct pms_memreport *r,
			  char *buf, size_t size);
/* The share of samples lost, and in warn ("" when below 2 %) what was lost
 * and what to try. */
double pms_render_mem_loss(const struct pms_render_mem_opts *opts, const struct pms_memreport *r,
			   char *warn, size_t size);

void pms_render_mem_csv_header(FILE *out);
#define PMS_RENDER_MEM_CSV_COLUMNS                                                              \
	"time,pid,tid,cpu,cpu_node,ip,addr,phys_addr,mem_node,node_status,data_src,level,weight," \
	"object,object_kind,section"
void pms_render_mem_csv_row(FILE *out, const struct pms_memreport_sample *x,
			    const struct pms_memreport_site *o);

/* ---- data types (report --types) --------------------------------------- */
/* The table: text (top rows) or a JSON document (meta: its "pmuscope"
 * object); 0, or a negative PMS_E* when it cannot be built. */
int pms_render_types(FILE *out, struct pms_typeprof *tp, bool json, size_t top,
		     const struct pms_json_meta *meta);
/* ---- the pprof profile of a session's report (mem, report) ------------- */
/* pms_export_pprof of st (the stacks of r's samples, pms_export_stacks_new)
 * with what the session knows, the same for a live run and its -o file:
 * the mapping ranges of the session's profile; the modules' build ids (a
 * files session: its headers' lists; live: read from the report's module
 * files); the host of a single file; per sample the labels alloc_site and
 * alloc_type (ar: the allocation sites of r's samples,
 * pms_session_alloc_report; NULL or placing another report: none) and,
 * when the session has the types sink (pms_session_set_types), type and
 * member.  comment: the profile's comment (may be NULL).  *out (gzip
 * pprof) the caller's to free().  0, or a negative PMS_E*. */
struct pms_session;
int pms_render_session_pprof(struct pms_session *s, const struct pms_memreport *r,
			     const struct pms_alloc_report *ar, const struct pms_export_stacks *st,
			     const char *comment, void **out, size_t *len);

/* ---- script's JSON rows ------------------------------------------------ */
/* Output gathered in a buffer (b, cap bytes, the caller's) and written to f
 * a buffer at a time. */
struct pms_render_out {
	FILE *f;
	char *b;
	size_t n, cap;
};
void pms_render_out_flush(struct pms_render_out *o);
struct pms_render_script;
/* fields: the comma-separated list (comm, pid, tid, cpu, time, event, ip,
 * addr, phys_addr, node, period, weight, ins_lat, data_src, type,
 * callchain, brstack); 0, or PMS_EINVAL naming the bad field, PMS_ENOMEM. */
int pms_render_script_new(const char *fields, struct pms_render_script **out);
bool pms_render_script_node(const struct pms_render_script *j);
/* The fields hold callchain: the script's samples need PMS_SCRIPT_CHAIN
 * (and, for --call-graph dwarf samples' user frames, PMS_SCRIPT_SYMBOLS). */
bool pms_render_script_chain(const struct pms_render_script *j);
void pms_render_script_row(struct pms_render_script *j, struct pms_render_out *o,
			   const struct pms_script_sample *smp);
void pms_render_script_free(struct pms_render_script *j);

PMS_API_END

#ifdef __cplusplus
}
#endif

#endif
