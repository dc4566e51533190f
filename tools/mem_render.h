/* The `pmuscope mem` report's text, JSON and CSV renderers, shared by
 * `pmuscope mem` and `pmuscope report`; the command supplies what only it
 * knows (target, exit status, verification) through callbacks.
 * Ownership: everything is borrowed for the call. */
#ifndef PMUSCOPE_TOOLS_MEM_RENDER_H
#define PMUSCOPE_TOOLS_MEM_RENDER_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "pmuscope/liverun.h"
#include "pmuscope/report.h"
#include "pmuscope/sampler.h"

struct mem_render {
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
	/* JSON members after schema_version: target, workload, exit, duration_s */
	void (*json_run)(struct json *j, const void *ud);
	/* JSON numa.verify members; NULL: "not requested" */
	void (*json_verify)(struct json *j, const void *ud);
	/* text lines after the node counts; NULL: none */
	void (*text_verify)(const void *ud);
	const void *ud;
	/* more JSON members at the end of the object / text at the end of the
	 * report (call paths); NULL: none */
	void (*json_extra)(struct json *j, const void *extra_ud);
	void (*text_extra)(const void *extra_ud);
	const void *extra_ud;
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
};

/* The options the engine does not honour, one line each on stderr
 * ("pmuscope: CMD: OPTION is not honoured by the E engine: WHY"); with
 * strict an error each and true (the caller stops, exit 1); with say false
 * (the report shows them) only the strict errors. */
bool mem_say_unhonoured(const char *cmd, enum pms_engine e,
			const struct pms_sampler_unhonoured *u, size_t n, bool strict, bool say);

void mem_render_text(const struct mem_render *m, const struct pms_memreport *r);
void mem_render_json(const struct mem_render *m, const struct pms_memreport *r);
/* CSV: one row per sample (a file report prints rows while it reads). */
void mem_render_csv(const struct pms_memreport *r);
void mem_render_csv_header(void);
#define MEM_RENDER_CSV_COLUMNS                                                                  \
	"time,pid,tid,cpu,cpu_node,ip,addr,phys_addr,mem_node,node_status,data_src,level,weight," \
	"object,object_kind,section"
/* mem_render_csv_row without its newline (for more columns after it). */
void mem_render_csv_fields(const struct pms_memreport_sample *x,
			   const struct pms_memreport_site *o);
/* o: the sample's data object, NULL when not known (report --csv streams
 * samples without building objects) */
void mem_render_csv_row(const struct pms_memreport_sample *x, const struct pms_memreport_site *o);

/* An empty result (no samples, or addresses but none resolved): true with
 * why it is empty and what to try in buf. */
/* The loss warning (when loss is high) on stderr, whatever the report's
 * form or destination (--json, --report-file): the report has it too. */
void mem_render_warn_loss(const struct mem_render *m, const struct pms_memreport *r);
bool mem_render_empty(const struct mem_render *m, const struct pms_memreport *r, char *buf,
		      size_t size);

/* "0x..." string member, or null when !valid. */
void mem_render_json_hex(struct json *j, const char *key, bool valid, uint64_t v);
const char *mem_engine_name(enum pms_engine e);
/* ibs, pebs, spe, software: 0, else -1. */
int mem_engine_parse(const char *name, enum pms_engine *e);

#endif
