/* pmuscope top: the rows of one interval's report (per process, thread,
 * data object or function), their order, and a frame as text for a
 * terminal or a log (docs/top.md), written into the caller's FILE.  The
 * CLI runs the session and the terminal.
 *
 * Ownership: a pms_top_table owns its rows (pms_top_table_free); the
 * report is borrowed and must outlive the table (rows point at its names).
 */
#ifndef PMUSCOPE_TOP_H
#define PMUSCOPE_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmuscope/report.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

enum pms_top_view { PMS_TOP_PROCESS, PMS_TOP_THREAD, PMS_TOP_OBJECT, PMS_TOP_FUNCTION, PMS_TOP_NVIEWS };
/* the sortable columns, in their order on screen ('<' and '>' step) */
enum pms_top_sort {
	PMS_TOP_BY_SAMPLES, PMS_TOP_BY_LATENCY, PMS_TOP_BY_LOCAL, PMS_TOP_BY_REMOTE, PMS_TOP_BY_RMT_SHARE, PMS_TOP_BY_NAME,
	PMS_TOP_NSORTS
};

const char *pms_top_view_name(enum pms_top_view v);   /* "process", "thread", ... */
const char *pms_top_sort_name(enum pms_top_sort s);   /* "samples", "latency", ... */
int pms_top_view_parse(const char *s, enum pms_top_view *v);
int pms_top_sort_parse(const char *s, enum pms_top_sort *v);

/* One row: a process, a thread, a data object or a function (of a process
 * when the report's functions are per process). */
struct pms_top_row {
	uint32_t pid, tid;      /* process/thread rows; functions per process */
	const char *name;       /* comm, object or function name (the report's) */
	const char *extra;      /* object kind, function module; NULL none */
	uint64_t samples;
	uint64_t weighted, latency; /* samples with a latency, its sum */
	uint64_t local, remote;     /* memory node vs the sampling CPU's node */
	uint64_t resolved;          /* samples with a memory node */
	uint64_t *nodes;            /* [report nnodes]: resolved samples per node */
};

struct pms_top_table {
	struct pms_top_row *rows;
	size_t nrows;
	uint64_t *nodebuf;
	size_t nnodes;
};

/* The rows of view v from the report's kept samples (r->all, with their
 * site and object indices); per_pid: functions of different processes are
 * different rows.  0, or -1 out of memory (t emptied). */
int pms_top_table_build(struct pms_top_table *t, const struct pms_memreport *r, enum pms_top_view v,
		    bool per_pid);
/* Most first (name: alphabetical); ties by samples, then name. */
void pms_top_table_sort(struct pms_top_table *t, enum pms_top_sort s);
void pms_top_table_free(struct pms_top_table *t);

/* What a frame's header says beside the report. */
struct pms_top_frame {
	unsigned number;          /* 1, 2, ... */
	double seconds;           /* since the start */
	double interval;          /* this frame's interval */
	const char *target;       /* "system-wide", "pid 123 (prog)", ... */
	uint64_t samples_total;   /* since the start */
	uint64_t lost, lost_total; /* this interval, since the start */
	enum pms_top_view view;
	enum pms_top_sort sort;
	bool per_pid;             /* functions per process (system-wide) */
	bool keys;                /* a terminal: show the keys line */
	const char *message;      /* one status line, or NULL */
};

/* The frame as text: header, column titles, at most max_rows rows.
 * width > 0: every line cut to width columns; term: each line ends with
 * "erase to the end of the line" (a redraw over the last frame); lines:
 * at most this many lines (0: no limit). */
void pms_top_render_text(FILE *f, const struct pms_top_frame *fr, const struct pms_memreport *r,
		     const struct pms_top_table *t, size_t max_rows, int width, bool term,
		     size_t lines);
PMS_API_END
#ifdef __cplusplus
}
#endif

#endif
