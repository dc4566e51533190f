/* pmuscope stat: count events for a command, a process or thread, or CPUs;
 * aggregate per CPU / core / cluster / L3 / die / socket / NUMA node / core
 * type; human, CSV (-x) or JSON output.  JSON schema: docs/stat.md. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "cli.h"
#include "cli_opt.h"
#include "cli_out.h"
#include "cli_catalog.h"
#include "pmuscope/count.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/pmu.h"
#include "pmuscope/sampler.h"
#include "pmuscope/topo.h"

int cmd_stat(const struct cli_global *g, int argc, char **argv);

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const struct {
	const char *opt;
	enum pms_count_agg agg;
	bool per_cpu; /* needs CPU counters (-a / -C) to mean anything */
} agg_opts[] = {
	{ "--per-cpu", PMS_AGG_CPU, true },         { "--per-core", PMS_AGG_CORE, true },
	{ "--per-cluster", PMS_AGG_CLUSTER, true }, { "--per-cache", PMS_AGG_L3, true },
	{ "--per-die", PMS_AGG_DIE, true },         { "--per-socket", PMS_AGG_SOCKET, false },
	{ "--per-node", PMS_AGG_NODE, false },      { "--per-core-type", PMS_AGG_CORE_TYPE, false },
	{ "--per-thread", PMS_AGG_THREAD, false },
};

enum { O_JSON = 256, O_STRICT, O_NOINHERIT, O_CATALOG, O_APPEND, O_AGG = 300 };

static const struct cli_opt opts[] = {
	{ "event", 'e', CLI_ARG, "EVENTS", 'e', "events to count" },
	{ "pid", 'p', CLI_ARG, "PID", 'p', "attach to every thread of PID until it exits (or Ctrl-C)" },
	{ "tid", 't', CLI_ARG, "TID", 't', "attach to one thread" },
	{ "all-cpus", 'a', CLI_NOARG, NULL, 'a', "all online CPUs" },
	{ "cpu", 'C', CLI_ARG, "CPUS", 'C', "these CPUs (list: 0-3,8)" },
	{ "per-cpu", 0, CLI_NOARG, NULL, O_AGG + 0, "aggregate per CPU (also -A, --no-aggr)" },
	{ "no-aggr", 'A', CLI_NOARG, NULL, O_AGG + 0, NULL },
	{ "per-core", 0, CLI_NOARG, NULL, O_AGG + 1, "aggregate per core" },
	{ "per-cluster", 0, CLI_NOARG, NULL, O_AGG + 2, "aggregate per cluster" },
	{ "per-cache", 0, CLI_NOARG, NULL, O_AGG + 3, "aggregate per L3 cache" },
	{ "per-die", 0, CLI_NOARG, NULL, O_AGG + 4, "aggregate per die" },
	{ "per-socket", 0, CLI_NOARG, NULL, O_AGG + 5, "aggregate per socket" },
	{ "per-node", 0, CLI_NOARG, NULL, O_AGG + 6, "aggregate per NUMA node" },
	{ "per-core-type", 0, CLI_NOARG, NULL, O_AGG + 7, "aggregate per core type (hybrid, big.LITTLE)" },
	{ "per-thread", 0, CLI_NOARG, NULL, O_AGG + 8, "aggregate per thread (default: global)" },
	{ "interval-print", 'I', CLI_ARG, "MS", 'I', "print counts every MS milliseconds" },
	{ "field-separator", 'x', CLI_ARG, "SEP", 'x',
	  "CSV with perf stat's fields: [agg SEP] value SEP unit SEP\n"
	  "event SEP [variance% SEP] run_ns SEP pct SEP metric SEP unit" },
	{ "json", 'j', CLI_NOARG, NULL, O_JSON, "JSON (schema: docs/stat.md); with -I one object per line" },
	{ "output", 'o', CLI_ARG, "FILE", 'o', "write the counts to FILE instead of stderr" },
	{ "repeat", 'r', CLI_ARG, "N", 'r',
	  "run the COMMAND N times; print the means and the relative\n"
	  "standard deviation of the mean ( +- x% ), as perf stat -r" },
	{ "append", 0, CLI_NOARG, NULL, O_APPEND, "with -o: append to FILE" },
	{ "strict", 0, CLI_NOARG, NULL, O_STRICT,
	  "all or nothing: fail when an event cannot be opened or did\n"
	  "not count 100% of the time (default: an event this machine\n"
	  "does not support reads <not supported>, the rest count)" },
	{ "no-inherit", 'i', CLI_NOARG, NULL, O_NOINHERIT, "do not count the children of the task" },
	CLI_CATALOG_OPT(O_CATALOG),
	{ 0 },
};

const struct cli_spec cli_spec_stat = {
	.name = "stat",
	.synopsis = "[--root DIR] stat [-e EVENTS] [-p PID | -t TID | -a | -C CPUS]\n"
		    "                [--per-cpu|--per-core|--per-cluster|--per-cache|--per-die|\n"
		    "                 --per-socket|--per-node|--per-core-type|--per-thread]\n"
		    "                [-I MS] [-x SEP | --json] [--strict] [--no-inherit] [-- COMMAND ...]",
	.description =
		"Count events (perf syntax, e.g. -e '{cycles,instructions},page-faults') for\n"
		"COMMAND (started at its exec, children included), an existing process (-p,\n"
		"all its threads) or thread (-t), or system-wide on every CPU (-a) or some\n"
		"(-C 0-3).  Without -e: task-clock, context-switches, cpu-migrations,\n"
		"page-faults, plus cycles and instructions where a core PMU exists.\n"
		"Hybrid generic events count on every core PMU and are summed (split them\n"
		"with --per-core-type); uncore events count once per box on the CPU of its\n"
		"NUMA node (sub-NUMA clustering included), so --per-node shows each node's.\n"
		"Values are scaled when counters were multiplexed; the percent of time\n"
		"counted is shown when below 100%.",
	.opts = opts,
	.footer = "Exit status: 0 ok (with a COMMAND: the command's status, 128+N when\n"
		  "signal N ended it), 1 failure, 2 usage error.",
	.stop_at_operand = true,
};

/* Clock events count nanoseconds; perf prints them in msec
 * (tools/perf/util/stat-display.c, evsel__is_clock). */
static bool is_clock(const char *name)
{
	static const char *const clocks[] = { "task-clock", "cpu-clock" };
	size_t n;
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		n = strlen(clocks[i]);
		if (!strncmp(name, clocks[i], n) && (name[n] == '\0' || name[n] == ':'))
			return true;
	}
	return false;
}

struct out {
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
};

#define WHOLE_DOMAIN_NOTE \
	"uncore and system PMUs are not thread-attributable: these events count their whole " \
	"domain (every CPU and process the box serves) while the target runs, not only the target"

static void agg_label(const struct pms_count_row *r, char *buf, size_t size)
{
	static const char *const prefix[] = {
		[PMS_AGG_GLOBAL] = "",  [PMS_AGG_CPU] = "CPU", [PMS_AGG_CORE] = "C",
		[PMS_AGG_CLUSTER] = "K", [PMS_AGG_L3] = "L3-", [PMS_AGG_DIE] = "D",
		[PMS_AGG_SOCKET] = "S", [PMS_AGG_NODE] = "N",  [PMS_AGG_CORE_TYPE] = "",
		[PMS_AGG_THREAD] = "T",
	};
	if (r->agg == PMS_AGG_CORE_TYPE) {
		if (r->type_name)
			snprintf(buf, size, "%s", r->type_name);
		else if (r->id >= 0)
			snprintf(buf, size, "type%d", r->id);
		else
			snprintf(buf, size, "all");
		return;
	}
	if (r->id < 0) {
		snprintf(buf, size, "-");
		return;
	}
	if (r->package >= 0)
		snprintf(buf, size, "S%d-%s%d", r->package, prefix[r->agg], r->id);
	else
		snprintf(buf, size, "%s%d", prefix[r->agg], r->id);
}

/* The displayed value and unit of a row. */
static double display(const struct pms_count_row *r, const char **unit)
{
	if (is_clock(r->name)) {
		*unit = "msec";
		return r->scaled / 1e6;
	}
	*unit = r->unit;
	return r->scaled * r->scale;
}

/* Never enabled, or no instance ever ran.  In interval mode the
 * cumulative rows decide (an idle interval of a counted task is 0, not
 * "not counted"). */
static bool not_counted(const struct out *o, size_t i, const struct pms_count_row *r)
{
	if (o->cum)
		r = &o->cum[i];
	return r->enabled == 0 || r->nunscheduled == r->ninstances;
}

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* The event's name without modifiers ("page-faults:u" -> is "page-faults"). */
static bool name_is(const char *name, const char *base)
{
	size_t n = strlen(base);
	return !strncmp(name, base, n) && (name[n] == '\0' || name[n] == ':');
}

static const struct pms_count_row *sibling(const struct pms_count_row *rows, size_t n,
					   const struct pms_count_row *r, const char *const *names)
{
	for (size_t i = 0; i < n; i++)
		for (const char *const *nm = names; *nm; nm++)
			if (!rows[i].unsupported && name_is(rows[i].name, *nm) &&
			    rows[i].id == r->id && rows[i].package == r->package)
				return &rows[i];
	return NULL;
}

/* perf stat's shadow metrics for the events pmuscope counts by default
 * (tools/perf/util/stat-shadow.c): CPUs utilized for the clocks (over the
 * elapsed time), events per second of task-clock for the software events,
 * instructions per cycle, and the cycles' GHz.  false when none applies. */
static bool metric(const struct out *o, const struct pms_count_row *rows, size_t n,
		   const struct pms_count_row *r, double *val, const char **unit)
{
	static const char *const clocks[] = { "task-clock", "cpu-clock", NULL };
	static const char *const cycles[] = { "cycles", "cpu-cycles", "cpu_cycles", NULL };
	static const char *const sw[] = { "context-switches", "cs", "cpu-migrations", "migrations",
					  "page-faults", "faults", "minor-faults", "major-faults",
					  "alignment-faults", "emulation-faults", NULL };
	const struct pms_count_row *t;
	if (r->unsupported || not_counted(o, (size_t)(r - rows), r))
		return false;
	for (const char *const *nm = clocks; *nm; nm++)
		if (name_is(r->name, *nm)) {
			if (o->elapsed <= 0)
				return false;
			*val = r->scaled / 1e9 / o->elapsed;
			*unit = "CPUs utilized";
			return true;
		}
	for (const char *const *nm = sw; *nm; nm++)
		if (name_is(r->name, *nm)) {
			static const char *const units[] = { "/sec", "K/sec", "M/sec", "G/sec" };
			int k = 0;
			if (!(t = sibling(rows, n, r, clocks)) || t->scaled <= 0)
				return false;
			*val = r->scaled / (t->scaled / 1e9);
			while (*val >= 1000 && k < 3) {
				*val /= 1000;
				k++;
			}
			*unit = units[k];
			return true;
		}
	if (name_is(r->name, "instructions") || name_is(r->name, "inst_retired")) {
		if (!(t = sibling(rows, n, r, cycles)) || t->scaled <= 0)
			return false;
		*val = r->scaled / t->scaled;
		*unit = "insn per cycle";
		return true;
	}
	for (const char *const *nm = cycles; *nm; nm++)
		if (name_is(r->name, *nm)) {
			if (!(t = sibling(rows, n, r, clocks)) || t->scaled <= 0)
				return false;
			*val = r->scaled / t->scaled;
			*unit = "GHz";
			return true;
		}
	return false;
}

static void print_human(const struct out *o, const struct pms_count_row *rows, size_t n,
			double t)
{
	char label[64], line[512];
	for (size_t i = 0; i < n; i++) {
		const struct pms_count_row *r = &rows[i];
		const char *unit, *munit;
		double v = display(r, &unit), mv;
		int len = 0;
#define ADD(...) len += snprintf(line + len, len < (int)sizeof(line) ? sizeof(line) - (size_t)len : 0, __VA_ARGS__)
		if (t >= 0)
			ADD("%16.9f ", t);
		if (o->agg != PMS_AGG_GLOBAL) {
			agg_label(r, label, sizeof(label));
			ADD("%-12s ", label);
		}
		if (r->unsupported)
			ADD("%18s %-5s ", "<not supported>", "");
		else if (not_counted(o, i, r))
			ADD("%18s %-5s ", "<not counted>", "");
		else if (unit || r->scale != 1.0)
			ADD("%18.2f %-5s ", v, unit ? unit : "");
		else
			ADD("%18.0f %-5s ", v, "");
		ADD("%-32s", r->name);
		if (r->pmu && o->agg != PMS_AGG_CORE_TYPE)
			ADD(" [%s]", r->pmu);
		if (metric(o, rows, n, r, &mv, &munit))
			ADD(" # %8.3f %-14s", mv, munit);
		if (r->nunscheduled)
			ADD("  (%d of %d never scheduled: group does not fit)", r->nunscheduled,
			    r->ninstances);
		else if (!r->unsupported && !not_counted(o, i, r) && r->fraction < 1.0)
			ADD("  (%.2f%%)", 100.0 * r->fraction);
		if (o->rsd && !r->unsupported)
			ADD("  ( +- %5.2f%% )", o->rsd[i]);
#undef ADD
		/* no trailing spaces */
		if (len >= (int)sizeof(line))
			len = (int)sizeof(line) - 1;
		while (len > 0 && line[len - 1] == ' ')
			len--;
		fprintf(o->f, "%.*s\n", len, line);
	}
	if (t < 0) {
		fprintf(o->f, "\n%18.9f seconds time elapsed", o->elapsed);
		if (o->runs > 1)
			fprintf(o->f, "  ( +- %5.2f%% )", o->elapsed_rsd);
		fputc('\n', o->f);
		if (o->user_s >= 0)
			fprintf(o->f, "\n%18.9f seconds user\n%18.9f seconds sys\n", o->user_s, o->sys_s);
	}
}

/* perf stat -x's fields (tools/perf/util/stat-display.c, CSV): [time,]
 * [aggregate,] value, unit, event, [variance% with -r,] run time (ns),
 * percent running, metric value, metric unit. */
static void print_csv(const struct out *o, const struct pms_count_row *rows, size_t n,
		      double t)
{
	char label[64];
	for (size_t i = 0; i < n; i++) {
		const struct pms_count_row *r = &rows[i];
		const char *unit, *munit;
		double v = display(r, &unit), mv;
		if (t >= 0)
			fprintf(o->f, "%.9f%s", t, o->sep);
		if (o->agg != PMS_AGG_GLOBAL) {
			agg_label(r, label, sizeof(label));
			fprintf(o->f, "%s%s", label, o->sep);
		}
		if (r->unsupported)
			fprintf(o->f, "<not supported>");
		else if (not_counted(o, i, r))
			fprintf(o->f, "<not counted>");
		else if (unit || r->scale != 1.0)
			fprintf(o->f, "%.2f", v);
		else
			fprintf(o->f, "%.0f", v);
		fprintf(o->f, "%s%s%s%s", o->sep, unit ? unit : "", o->sep, r->name);
		if (o->rsd)
			fprintf(o->f, "%s%.2f%%", o->sep, o->rsd[i]);
		fprintf(o->f, "%s%llu%s%.2f", o->sep, (unsigned long long)r->running, o->sep,
			100.0 * r->fraction);
		if (metric(o, rows, n, r, &mv, &munit))
			fprintf(o->f, "%s%.3f%s%s\n", o->sep, mv, o->sep, munit);
		else
			fprintf(o->f, "%s%s\n", o->sep, o->sep);
	}
}

static void print_json(const struct out *o, const struct pms_count_row *rows, size_t n,
		       double t, double elapsed, int exit_status)
{
	struct json j;
	char groups[1024];
	cli_json_init(&j, o->f);
	j.pretty = t < 0; /* interval mode: one object per line */
	cli_json_begin_object(&j, NULL);
	cli_json_int(&j, "schema_version", 1);
	cli_json_str(&j, "target", o->target_desc);
	if (o->target != PMS_COUNT_CPUS && o->target != PMS_COUNT_CHILD)
		cli_json_int(&j, "pid", o->pid);
	if (o->cmd) {
		cli_json_begin_array(&j, "command");
		for (char *const *a = o->cmd; *a; a++)
			cli_json_str(&j, NULL, *a);
		cli_json_end_array(&j);
	}
	cli_json_str(&j, "aggregation", pms_count_agg_name(o->agg));
	if (t >= 0)
		cli_json_double(&j, "interval_end_s", t);
	else
		cli_json_double(&j, "elapsed_s", elapsed);
	if (exit_status >= 0)
		cli_json_int(&j, "exit_status", exit_status);
	if (t < 0) {
		cli_json_int(&j, "runs", o->runs);
		if (o->runs > 1)
			cli_json_double(&j, "elapsed_stddev_pct", o->elapsed_rsd);
		if (o->user_s >= 0) {
			cli_json_double(&j, "user_s", o->user_s);
			cli_json_double(&j, "sys_s", o->sys_s);
		}
	}
	cli_json_begin_array(&j, "rows");
	for (size_t i = 0; i < n; i++) {
		const struct pms_count_row *r = &rows[i];
		const char *unit;
		double v = display(r, &unit);
		cli_json_begin_object(&j, NULL);
		cli_json_str(&j, "event", r->name);
		cli_json_str(&j, "pmu", r->pmu);
		cli_json_int(&j, "id", r->id);
		if (r->package >= 0)
			cli_json_int(&j, "package", r->package);
		if (r->agg == PMS_AGG_CORE_TYPE)
			cli_json_str(&j, "core_type", r->type_name);
		cli_json_double(&j, "value", v);
		cli_json_str(&j, "unit", unit);
		cli_json_double(&j, "scaled", r->scaled);
		cli_json_uint(&j, "raw", r->raw);
		cli_json_uint(&j, "time_enabled", r->enabled);
		cli_json_uint(&j, "time_running", r->running);
		cli_json_double(&j, "fraction_running", r->fraction);
		cli_json_bool(&j, "counted", !r->unsupported && !not_counted(o, i, r));
		cli_json_bool(&j, "supported", !r->unsupported);
		if (r->unsupported)
			cli_json_str(&j, "unsupported_reason", r->unsupported);
		cli_json_int(&j, "instances", r->ninstances);
		cli_json_int(&j, "unscheduled", r->nunscheduled);
		{
			double mv;
			const char *mu;
			if (metric(o, rows, n, r, &mv, &mu)) {
				cli_json_double(&j, "metric_value", mv);
				cli_json_str(&j, "metric_unit", mu);
			}
		}
		if (o->rsd)
			cli_json_double(&j, "stddev_pct", o->rsd[i]);
		cli_json_end_object(&j);
	}
	cli_json_end_array(&j);
	if (pms_counter_unscheduled_groups(o->c, groups, sizeof(groups)) > 0)
		cli_json_str(&j, "unscheduled_groups", groups);
	if (pms_counter_split_groups(o->c, groups, sizeof(groups)) > 0)
		cli_json_str(&j, "split_groups_reason", groups);
	if (pms_counter_nbudgets(o->c)) {
		cli_json_begin_array(&j, "counter_budgets");
		for (size_t i = 0; i < pms_counter_nbudgets(o->c); i++) {
			const struct pms_count_budget *b = pms_counter_budget(o->c, i);
			cli_json_begin_object(&j, NULL);
			cli_json_str(&j, "pmu", b->pmu);
			cli_json_int(&j, "general_counters", b->general);
			cli_json_bool(&j, "cycle_counter", b->cycle_counter);
			cli_json_bool(&j, "instruction_counter", b->instr_counter);
			cli_json_bool(&j, "long_events_chained", b->chained_long);
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
	}
	if (o->whole_domain[0]) {
		char *save = NULL, names[sizeof(o->whole_domain)];
		snprintf(names, sizeof(names), "%s", o->whole_domain);
		cli_json_begin_array(&j, "whole_domain_events");
		for (char *w = strtok_r(names, ",", &save); w; w = strtok_r(NULL, ",", &save))
			cli_json_str(&j, NULL, w);
		cli_json_end_array(&j);
		cli_json_str(&j, "whole_domain_note", WHOLE_DOMAIN_NOTE);
	}
	cli_json_end_object(&j);
	cli_json_finish(&j);
}

static void emit(const struct out *o, const struct pms_count_row *rows, size_t n, double t,
		 double elapsed, int exit_status)
{
	if (o->json)
		print_json(o, rows, n, t, elapsed, exit_status);
	else if (o->sep)
		print_csv(o, rows, n, t);
	else
		print_human(o, rows, n, t);
	fflush(o->f);
}

/* rows minus prev, for interval output (same aggregation: same order). */
static void delta_rows(struct pms_count_row *rows, const struct pms_count_row *prev,
		       size_t n)
{
	for (size_t i = 0; i < n && prev; i++) {
		struct pms_count_value v = { rows[i].raw - prev[i].raw,
					     rows[i].enabled - prev[i].enabled,
					     rows[i].running - prev[i].running, 0, 0 };
		pms_count_value_scale(&v);
		/* Sum of the instances' estimates, minus the previous sum. */
		rows[i].scaled = rows[i].scaled - prev[i].scaled;
		rows[i].raw = v.raw;
		rows[i].enabled = v.enabled;
		rows[i].running = v.running;
		rows[i].fraction = v.enabled ? v.fraction : 1.0;
	}
}

/* The default set; user_only adds ':u' (what an unprivileged process may
 * count at perf_event_paranoid 2, as perf stat falls back to). */
static int default_events(const struct pms_pmus *pmus, bool user_only, char *buf, size_t size)
{
	const char *u = user_only ? ":u" : "";
	if (pmus && pms_pmus_core_count(pmus) > 0)
		return snprintf(buf, size,
				"task-clock%s,context-switches%s,cpu-migrations%s,page-faults%s,"
				"cycles%s,instructions%s", u, u, u, u, u, u);
	return snprintf(buf, size, "task-clock%s,context-switches%s,cpu-migrations%s,page-faults%s",
			u, u, u, u);
}

/* Is the watched target still there? */
static bool target_alive(struct pms_child *child, enum pms_count_target target, pid_t pid,
			 int *status)
{
	if (child)
		return pms_child_wait(child, true, status) == 1;
	if (target == PMS_COUNT_PID || target == PMS_COUNT_TID)
		return kill(pid, 0) == 0 || errno != ESRCH;
	return true;
}

int cmd_stat(const struct cli_global *g, int argc, char **argv)
{
	const char *events = NULL, *cpus_arg = NULL, *sep = NULL, *catalog_path = NULL;
	const char *out_path = NULL;
	bool append = false;
	FILE *outf = stderr;
	struct cli_out out_o = { .fd = -1, .done = true };
	bool counted = false;
	double *sum = NULL, *sq = NULL, *rsd = NULL;
	long repeat = 1;
	struct pms_catalog *cat = NULL;
	struct pms_event_parse_opts po = PMS_EVENT_PARSE_OPTS_INIT;
	enum pms_count_agg agg = PMS_AGG_GLOBAL;
	bool per_cpu_agg = false, json = false, all = false, defaults = false;
	struct pms_count_opts co = PMS_COUNT_OPTS_INIT;
	long interval_ms = 0;
	char **cmd = NULL, defbuf[256], desc[128];
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_topo *topo = NULL;
	struct pms_event_list *list = NULL;
	struct pms_counter *c = NULL;
	struct pms_child *child = NULL;
	struct pms_cpuset cpus = { 0 };
	struct pms_count_row *rows = NULL, *prev = NULL;
	size_t n = 0, nprev = 0;
	int rc = 1, status = 0, exit_status = -1, i;
	pid_t pid = 0;
	bool have_pid = false;
	double t0, next;

	struct cli_parser cp;
	int oc;
	cli_parser_init(&cp, &cli_spec_stat, argc, argv);
	while ((oc = cli_next(&cp)) > 0) {
		const char *v = cp.arg;
		char *end;
		if (oc >= O_AGG && oc < O_AGG + (int)(sizeof(agg_opts) / sizeof(agg_opts[0]))) {
			agg = agg_opts[oc - O_AGG].agg;
			per_cpu_agg = agg_opts[oc - O_AGG].per_cpu;
			continue;
		}
		switch (oc) {
		case O_JSON: json = true; break;
		case O_STRICT: co.strict = true; break;

		case O_NOINHERIT: co.no_inherit = true; break;
		case O_CATALOG: catalog_path = v; break;
		case 'o': out_path = v; break;
		case 'r':
			if (cli_parse_long(v, 1, 100000, &repeat) < 0)
				return cli_bad_arg(&cp, "a run count 1..100000");
			break;
		case O_APPEND: append = true; break;
		case 'a': all = true; break;
		case 'e': events = v; break;
		case 'C': cpus_arg = v; break;
		case 'x': sep = v; break;
		case 'p':
		case 't':
			pid = (pid_t)strtol(v, &end, 10);
			if (*end || pid <= 0)
				return cli_bad_arg(&cp, "a pid > 0");
			co.target = oc == 'p' ? PMS_COUNT_PID : PMS_COUNT_TID;
			have_pid = true;
			break;
		case 'I':
			if (cli_parse_long(v, 1, 86400000, &interval_ms) < 0)
				return cli_bad_arg(&cp, "milliseconds 1..86400000 (a day)");
			break;
		}
	}
	if (oc != CLI_END)
		return cli_exit_code(oc);
	i = cp.ind;
	if (i < argc)
		cmd = &argv[i];
	if (json && sep) {
		return cli_usage(&cli_spec_stat, "-x and --json exclude each other");
	}
	if ((all || cpus_arg) && have_pid) {
		return cli_usage(&cli_spec_stat, "-p/-t and -a/-C exclude each other");
	}
	if (have_pid && cmd) {
		return cli_usage(&cli_spec_stat, "give either -p/-t or a command, not both");
	}
	if (!have_pid && !all && !cpus_arg && !cmd) {
		return cli_usage(&cli_spec_stat, "nothing to count: give a command, -p PID, -a or -C");
	}
	if (per_cpu_agg && !all && !cpus_arg) {
		return cli_usage(&cli_spec_stat, "--per-%s needs per-CPU counting (-a or -C): task "
				 "counters have no CPU", pms_count_agg_name(agg));
	}
	if (all || cpus_arg)
		co.target = PMS_COUNT_CPUS;
	co.skip_unsupported = !co.strict;
	if (repeat > 1 && !cmd)
		return cli_usage(&cli_spec_stat, "-r repeats a COMMAND: give one after --");
	if (repeat > 1 && interval_ms)
		return cli_usage(&cli_spec_stat, "-r and -I exclude each other");
	if (append && !out_path)
		return cli_usage(&cli_spec_stat, "--append goes with -o FILE");
	if (cpus_arg && pms_cpuset_parse_list(&cpus, cpus_arg) < 0)
		return cli_usage(&cli_spec_stat, "-C '%s': want a CPU list (0-3,8)", cpus_arg);
	if (out_path) {
		/* opened before the command runs: a bad path fails before any work */
		int orc = cli_out_open(&out_o, "stat", "-o", out_path,
				       append ? CLI_OUT_APPEND : CLI_OUT_REPLACE);
		if (orc || !(outf = cli_out_stream(&out_o))) {
			cli_out_abandon(&out_o);
			pms_cpuset_fini(&cpus);
			return orc ? orc : CLI_EXIT_IO;
		}
	}

	sys = cli_open_sys(g);
	if (!sys)
		goto out;
	if (pms_pmus_load(sys, &pmus) < 0) {
		cli_fail("PMU discovery");
		goto out;
	}
	if (pms_topo_load(sys, &topo) < 0) {
		if (co.target == PMS_COUNT_CPUS || per_cpu_agg) {
			cli_fail("topology");
			goto out;
		}
		topo = NULL; /* task counting works without it */
	}
	if (cli_catalog_open("stat", sys, pmus, catalog_path, &cat))
		goto out;
	po.catalog = cat;
	if (!events) {
		default_events(pmus, false, defbuf, sizeof(defbuf));
		events = defbuf;
		defaults = true;
	}
	if (pms_event_parse_ex(pmus, events, &po, &list) < 0) {
		cli_fail("event");
		goto out;
	}
	co.cpus = cpus_arg ? &cpus : NULL;
	if (co.target == PMS_COUNT_CPUS)
		snprintf(desc, sizeof(desc), cpus_arg ? "CPU(s) %s" : "system wide",
			 cpus_arg ? cpus_arg : "");
	else if (cmd)
		snprintf(desc, sizeof(desc), "command");
	else
		snprintf(desc, sizeof(desc), "%s %d", co.target == PMS_COUNT_PID ? "process" : "thread",
			 (int)pid);
	struct out o = { outf, agg, sep, json, desc, cmd, NULL, co.target, pid, NULL,
			 NULL, 1, 0, 0, -1, -1, { 0 } };
	enum pms_count_target target0 = co.target;
	pid_t pid0 = pid;
	double el_sum = 0, el_sq = 0, user_s = 0, sys_s = 0;
	size_t nrows0 = 0;
	int runs = 0;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (interval_ms && !json && !sep)
		fprintf(outf, "#%15s %s%18s %-5s %s\n", "time", agg != PMS_AGG_GLOBAL ? "agg          " : "",
			"counts", "unit", "events");
	for (int run = 0; run < repeat && !stop_flag; run++) {
		struct rusage ru0, ru1;
		if (run) { /* the previous run's counters, child and rows */
			pms_counter_free(c);
			c = NULL;
			pms_child_free(child);
			child = NULL;
			pms_count_rows_free(rows);
			rows = NULL;
			co.target = target0;
			pid = pid0;
		}
		if (cmd) {
			if (pms_child_spawn(sys, cmd, &child) < 0) {
				cli_fail(cmd[0]);
				goto out;
			}
			if (co.target != PMS_COUNT_CPUS) {
				co.target = PMS_COUNT_CHILD;
				pid = pms_child_pid(child);
			}
		}
		co.pid = pid;
		if (pms_counter_open(sys, pmus, topo, list, &co, &c) == PMS_EPERM && defaults) {
			/* Refused for privilege: retry the default set for user space
			 * only, and say so. */
			fprintf(stderr, "pmuscope: stat: %s\npmuscope: stat: counting user space only "
					"(':u') instead\n", pms_error_last());
			pms_event_list_free(list);
			list = NULL;
			default_events(pmus, true, defbuf, sizeof(defbuf));
			if (pms_event_parse_ex(pmus, defbuf, &po, &list) < 0) {
				cli_fail("event");
				goto out;
			}
			defaults = false;
			pms_counter_open(sys, pmus, topo, list, &co, &c);
		}
		if (!c) {
			cli_fail("stat");
			goto out;
		}
		o.c = c;
		pms_counter_whole_domain(c, o.whole_domain, sizeof(o.whole_domain));
		getrusage(RUSAGE_CHILDREN, &ru0);
		t0 = now_s();
		if (child && pms_child_start(child) < 0) {
			rc = cli_exec_failed("stat", cmd[0]);
			goto out;
		}
		next = t0 + (double)interval_ms / 1000.0;
		for (;;) {
			struct timespec ts = { 0, 5 * 1000 * 1000 };
			bool alive = !stop_flag && target_alive(child, co.target, pid, &status);
			bool tick = interval_ms && now_s() >= next;
			if (child && !alive && !stop_flag)
				exit_status = WIFEXITED(status) ? WEXITSTATUS(status)
								: 128 + WTERMSIG(status);
			if (tick || (interval_ms && !alive)) {
				double tnow = now_s();
				if (pms_counter_read(c) < 0) {
					cli_fail("read");
					goto out;
				}
				if (pms_counter_rows(c, agg, &rows, &n) < 0) {
					cli_fail("aggregate");
					goto out;
				}
				struct pms_count_row *keep = malloc((n ? n : 1) * sizeof(*keep));
				if (!keep)
					goto out;
				memcpy(keep, rows, n * sizeof(*rows));
				delta_rows(rows, nprev == n ? prev : NULL, n);
				o.cum = keep;
				o.elapsed = tnow - (next - (double)interval_ms / 1000.0);
				if (o.elapsed <= 0 || o.elapsed > tnow - t0)
					o.elapsed = tnow - t0;
				emit(&o, rows, n, tnow - t0, 0, -1);
				o.cum = NULL;
				pms_count_rows_free(prev);
				pms_count_rows_free(rows);
				rows = NULL;
				prev = keep;
				nprev = n;
				next += (double)interval_ms / 1000.0;
			}
			if (!alive)
				break;
			nanosleep(&ts, NULL);
		}
		if (interval_ms)
			break;
		double el = now_s() - t0;
		if (pms_counter_read(c) < 0) {
			cli_fail("stat");
			goto out;
		}
		if (pms_counter_rows(c, agg, &rows, &n) < 0) {
			cli_fail("aggregate");
			goto out;
		}
		getrusage(RUSAGE_CHILDREN, &ru1);
		user_s += tv_s(&ru1.ru_utime) - tv_s(&ru0.ru_utime);
		sys_s += tv_s(&ru1.ru_stime) - tv_s(&ru0.ru_stime);
		if (run == 0) {
			nrows0 = n;
			sum = calloc(n + 1, sizeof(*sum));
			sq = calloc(n + 1, sizeof(*sq));
			rsd = calloc(n + 1, sizeof(*rsd));
			if (!sum || !sq || !rsd) {
				fprintf(stderr, "pmuscope: stat: out of memory\n");
				goto out;
			}
		} else if (n != nrows0) {
			fprintf(stderr, "pmuscope: stat: run %d gave %zu rows, the first %zu\n", run + 1,
				n, nrows0);
			goto out;
		}
		for (size_t k = 0; k < n; k++) {
			sum[k] += rows[k].scaled;
			sq[k] += rows[k].scaled * rows[k].scaled;
		}
		el_sum += el;
		el_sq += el * el;
		runs++;
	}
	if (!interval_ms && runs) {
		/* -r: means, and the relative standard deviation of the mean
		 * (perf's "( +- x% )", util/stat.c rel_stddev_stats) */
		o.runs = runs;
		for (size_t k = 0; k < n; k++) {
			double mean = sum[k] / runs;
			if (runs > 1) {
				double var = (sq[k] - runs * mean * mean) / (runs - 1);
				rsd[k] = mean > 0 && var > 0 ? 100.0 * sqrt(var / runs) / mean : 0;
				rows[k].raw = (uint64_t)(mean + 0.5);
			}
			rows[k].scaled = mean;
		}
		o.rsd = runs > 1 ? rsd : NULL;
		o.elapsed = el_sum / runs;
		if (runs > 1) {
			double var = (el_sq - runs * o.elapsed * o.elapsed) / (runs - 1);
			o.elapsed_rsd = o.elapsed > 0 && var > 0 ? 100.0 * sqrt(var / runs) / o.elapsed : 0;
		}
		if (!json && !sep) {
			fprintf(outf, "\n Performance counter stats for ");
			if (cmd && co.target != PMS_COUNT_CPUS) {
				fprintf(outf, "'");
				for (char **a = cmd; *a; a++)
					fprintf(outf, "%s%s", a == cmd ? "" : " ", *a);
				fprintf(outf, "'");
			} else {
				fprintf(outf, "'%s'", desc);
			}
			if (runs > 1)
				fprintf(outf, " (%d runs)", runs);
			fprintf(outf, ":\n\n");
		}
		o.user_s = cmd ? user_s / runs : -1;
		o.sys_s = cmd ? sys_s / runs : -1;
		emit(&o, rows, n, -1, o.elapsed, exit_status);
	}
	if (c) {
		char groups[1024];
		size_t nu;
		if (!json && pms_counter_unscheduled_groups(c, groups, sizeof(groups)) > 0)
			fprintf(stderr, "pmuscope: stat: never scheduled (group does not fit the "
					"PMU's counters): %s\n", groups);
		if (!json && pms_counter_split_groups(c, groups, sizeof(groups)) > 0)
			fprintf(outf, "%snote: weak group split into lone events: %s\n", sep ? "" : "\n",
				groups);
		if (!json && o.whole_domain[0])
			fprintf(outf, "%snote: %s: %s\n", sep ? "" : "\n", o.whole_domain,
				WHOLE_DOMAIN_NOTE);
		/* the reason, once, below the table (--json: in the rows) */
		if (!json && (nu = pms_counter_unsupported(c, groups, sizeof(groups))) > 0)
			fprintf(outf, "%s<not supported>: %zu event%s; the first: %s\n"
				      "(--strict makes this an error)\n", sep ? "" : "\n", nu,
				nu > 1 ? "s" : "", groups);
	}
	rc = exit_status > 0 ? exit_status : 0;
	counted = true;
out:
	pms_count_rows_free(rows);
	pms_count_rows_free(prev);
	free(sum);
	free(sq);
	free(rsd);
	pms_counter_free(c);
	pms_child_free(child);
	pms_event_list_free(list);
	pms_catalog_free(cat);
	pms_topo_free(topo);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	pms_cpuset_fini(&cpus);
	/* the -o file flushed, checked and renamed into place when the count
	 * was written; removed otherwise */
	if (counted && cli_out_commit(&out_o))
		rc = CLI_EXIT_IO;
	cli_out_abandon(&out_o);
	return rc;
}
