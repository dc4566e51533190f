/* pmuscope top: the rows of one interval's report (per process, thread,
 * data object or function), their order, and the frames (text for a
 * terminal or a log, JSON Lines).  cmd_top.c runs the session and the
 * terminal; this file only computes and prints (docs/top.md). */
#ifndef PMS_TOOLS_TOP_RENDER_H
#define PMS_TOOLS_TOP_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmuscope/report.h"

enum top_view { TOP_PROCESS, TOP_THREAD, TOP_OBJECT, TOP_FUNCTION, TOP_NVIEWS };
/* the sortable columns, in their order on screen ('<' and '>' step) */
enum top_sort {
	TOP_BY_SAMPLES, TOP_BY_LATENCY, TOP_BY_LOCAL, TOP_BY_REMOTE, TOP_BY_RMT_SHARE, TOP_BY_NAME,
	TOP_NSORTS
};

const char *top_view_name(enum top_view v);   /* "process", "thread", ... */
const char *top_sort_name(enum top_sort s);   /* "samples", "latency", ... */
int top_view_parse(const char *s, enum top_view *v);
int top_sort_parse(const char *s, enum top_sort *v);

/* One row: a process, a thread, a data object or a function (of a process
 * when the report's functions are per process). */
struct top_row {
	uint32_t pid, tid;      /* process/thread rows; functions per process */
	const char *name;       /* comm, object or function name (the report's) */
	const char *extra;      /* object kind, function module; NULL none */
	uint64_t samples;
	uint64_t weighted, latency; /* samples with a latency, its sum */
	uint64_t local, remote;     /* memory node vs the sampling CPU's node */
	uint64_t resolved;          /* samples with a memory node */
	uint64_t *nodes;            /* [report nnodes]: resolved samples per node */
};

struct top_table {
	struct top_row *rows;
	size_t nrows;
	uint64_t *nodebuf;
	size_t nnodes;
};

/* The rows of view v from the report's kept samples (r->all, with their
 * site and object indices); per_pid: functions of different processes are
 * different rows.  0, or -1 out of memory (t emptied). */
int top_table_build(struct top_table *t, const struct pms_memreport *r, enum top_view v,
		    bool per_pid);
/* Most first (name: alphabetical); ties by samples, then name. */
void top_table_sort(struct top_table *t, enum top_sort s);
void top_table_free(struct top_table *t);

/* What a frame's header says beside the report. */
struct top_frame {
	unsigned number;          /* 1, 2, ... */
	double seconds;           /* since the start */
	double interval;          /* this frame's interval */
	const char *target;       /* "system-wide", "pid 123 (prog)", ... */
	uint64_t samples_total;   /* since the start */
	uint64_t lost, lost_total; /* this interval, since the start */
	enum top_view view;
	enum top_sort sort;
	bool per_pid;             /* functions per process (system-wide) */
	bool keys;                /* a terminal: show the keys line */
	const char *message;      /* one status line, or NULL */
};

/* The frame as text: header, column titles, at most max_rows rows.
 * width > 0: every line cut to width columns; term: each line ends with
 * "erase to the end of the line" (a redraw over the last frame); lines:
 * at most this many lines (0: no limit). */
void top_render_text(FILE *f, const struct top_frame *fr, const struct pms_memreport *r,
		     const struct top_table *t, size_t max_rows, int width, bool term,
		     size_t lines);
/* The frame as one JSON object on one line: every view's rows (each sorted
 * by fr->sort, at most max_rows); schema in docs/top.md.  0 or -1 (out of
 * memory). */
int top_render_json(FILE *f, const struct top_frame *fr, const struct pms_memreport *r,
		    size_t max_rows);

#endif
