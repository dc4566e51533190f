/* pmuscope stat: count events for a command, a process or thread, or CPUs;
 * aggregate per CPU / core / cluster / L3 / die / socket / NUMA node / core
 * type; human, CSV (-x) or JSON output.  JSON schema: docs/stat.md. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opt.h"
#include "cli_out.h"
#include "cli_catalog.h"
#include "pmuscope/count.h"
#include "pmuscope/countrun.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/pmu.h"
#include "pmuscope/topo.h"

int cmd_stat(const struct cli_global *g, int argc, char **argv);

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

/* Never enabled, or no instance ever ran (interval mode: the cumulative
 * rows decide). */
static bool not_counted(const struct out *o, size_t i, const struct pms_count_row *r)
{
	return !pms_count_row_counted(r, o->cum ? &o->cum[i] : NULL);
}

/* perf stat's shadow metric of a row (pms_count_metric). */
static bool metric(const struct out *o, const struct pms_count_row *rows, size_t n,
		   const struct pms_count_row *r, double *val, const char **unit)
{
	return pms_count_metric(rows, n, (size_t)(r - rows), o->cum, o->elapsed, val, unit);
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
			/* perf's aggregate rows carry how many CPUs (counters)
			 * they sum: "N0,2,83,,page-faults" (stat-display.c) */
			if (o->agg != PMS_AGG_CPU && o->agg != PMS_AGG_THREAD &&
			    o->agg != PMS_AGG_CORE_TYPE)
				fprintf(o->f, "%d%s", r->ninstances, o->sep);
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

/* What the command line asked for. */
struct args {
	const char *events, *cpus_arg, *sep, *catalog_path, *out_path;
	bool append, json, all, have_pid, per_cpu_agg;
	long repeat, interval_ms;
	enum pms_count_agg agg;
	struct pms_count_opts co;
	struct pms_cpuset cpus;
	pid_t pid;
	char **cmd;
};

/* Parse the options: true to go on; false when done (--help printed, or a
 * usage error), *exit_code then says how. */
static bool parse_args(int argc, char **argv, struct args *a, int *exit_code)
{
	struct cli_parser cp;
	int oc;
	cli_parser_init(&cp, &cli_spec_stat, argc, argv);
	while ((oc = cli_next(&cp)) > 0) {
		const char *v = cp.arg;
		char *end;
		if (oc >= O_AGG && oc < O_AGG + (int)(sizeof(agg_opts) / sizeof(agg_opts[0]))) {
			a->agg = agg_opts[oc - O_AGG].agg;
			a->per_cpu_agg = agg_opts[oc - O_AGG].per_cpu;
			continue;
		}
		switch (oc) {
		case O_JSON: a->json = true; break;
		case O_STRICT: a->co.strict = true; break;

		case O_NOINHERIT: a->co.no_inherit = true; break;
		case O_CATALOG: a->catalog_path = v; break;
		case 'o': a->out_path = v; break;
		case 'r':
			if (cli_parse_long(v, 1, 100000, &a->repeat) < 0)
				{
				*exit_code = cli_bad_arg(&cp, "a run count 1..100000");
				return false;
			}
			break;
		case O_APPEND: a->append = true; break;
		case 'a': a->all = true; break;
		case 'e': a->events = v; break;
		case 'C': a->cpus_arg = v; break;
		case 'x': a->sep = v; break;
		case 'p':
		case 't':
			a->pid = (pid_t)strtol(v, &end, 10);
			if (*end || a->pid <= 0)
				{
				*exit_code = cli_bad_arg(&cp, "a pid > 0");
				return false;
			}
			a->co.target = oc == 'p' ? PMS_COUNT_PID : PMS_COUNT_TID;
			a->have_pid = true;
			break;
		case 'I':
			if (cli_parse_long(v, 1, 86400000, &a->interval_ms) < 0)
				{
				*exit_code = cli_bad_arg(&cp, "milliseconds 1..86400000 (a day)");
				return false;
			}
			break;
		}
	}
	if (oc != CLI_END) {
		*exit_code = cli_exit_code(oc);
		return false;
	}
	if (cp.ind < argc)
		a->cmd = &argv[cp.ind];
	return true;
}

/* The combinations that make no sense; 0 or a usage error's exit code. */
static int check_args(struct args *a)
{
	if (a->json && a->sep) {
		return cli_usage(&cli_spec_stat, "-x and --json exclude each other");
	}
	if ((a->all || a->cpus_arg) && a->have_pid) {
		return cli_usage(&cli_spec_stat, "-p/-t and -a/-C exclude each other");
	}
	if (a->have_pid && a->cmd) {
		return cli_usage(&cli_spec_stat, "give either -p/-t or a command, not both");
	}
	if (!a->have_pid && !a->all && !a->cpus_arg && !a->cmd) {
		return cli_usage(&cli_spec_stat, "nothing to count: give a command, -p PID, -a or -C");
	}
	if (a->per_cpu_agg && !a->all && !a->cpus_arg) {
		return cli_usage(&cli_spec_stat, "--per-%s needs per-CPU counting (-a or -C): task "
				 "counters have no CPU", pms_count_agg_name(a->agg));
	}
	if (a->all || a->cpus_arg)
		a->co.target = PMS_COUNT_CPUS;
	a->co.skip_unsupported = !a->co.strict;
	if (a->repeat > 1 && !a->cmd)
		return cli_usage(&cli_spec_stat, "-r repeats a COMMAND: give one after --");
	if (a->repeat > 1 && a->interval_ms)
		return cli_usage(&cli_spec_stat, "-r and -I exclude each other");
	if (a->append && !a->out_path)
		return cli_usage(&cli_spec_stat, "--append goes with -o FILE");
	if (a->cpus_arg && pms_cpuset_parse_list(&a->cpus, a->cpus_arg) < 0)
		return cli_usage(&cli_spec_stat, "-C '%s': want a CPU list (0-3,8)", a->cpus_arg);
	return 0;
}

static struct pms_countrun *volatile running;
static void on_signal(int sig)
{
	(void)sig;
	if (running)
		pms_countrun_stop(running);
}

static void on_user_only(void *ud, const char *why)
{
	(void)ud;
	fprintf(stderr, "pmuscope: stat: %s\npmuscope: stat: counting user space only "
			"(':u') instead\n", why);
}

static void on_interval(void *ud, const struct pms_countrun_interval *iv)
{
	struct out *o = ud;
	o->c = iv->counter;
	pms_counter_whole_domain(iv->counter, o->whole_domain, sizeof(o->whole_domain));
	o->cum = iv->cum;
	o->elapsed = iv->elapsed;
	emit(o, iv->rows, iv->nrows, iv->t, 0, -1);
	o->cum = NULL;
}

/* A failed run: what failed, as the counting loop said it before. */
static int run_failed(const struct pms_countrun_result *res, char *const *cmd)
{
	switch (res->failed) {
	case PMS_COUNTRUN_EVENTS: return cli_fail("event");
	case PMS_COUNTRUN_SPAWN: return cli_fail(cmd[0]);
	case PMS_COUNTRUN_EXEC: return cli_exec_failed("stat", cmd[0]);
	case PMS_COUNTRUN_READ: return cli_fail("read");
	case PMS_COUNTRUN_AGGREGATE: return cli_fail("aggregate");
	default: return cli_fail("stat");
	}
}

/* The table's title (human output). */
static void print_title(FILE *f, const struct args *a, const char *desc, int runs)
{
	fprintf(f, "\n Performance counter stats for ");
	if (a->cmd && a->co.target != PMS_COUNT_CPUS) {
		fprintf(f, "'");
		for (char **c = a->cmd; *c; c++)
			fprintf(f, "%s%s", c == a->cmd ? "" : " ", *c);
		fprintf(f, "'");
	} else {
		fprintf(f, "'%s'", desc);
	}
	if (runs > 1)
		fprintf(f, " (%d runs)", runs);
	fprintf(f, ":\n\n");
}

/* The notes below the table: groups that never ran or were split, whole
 * domain events, events left out. */
static void print_notes(const struct out *o, const struct pms_counter *c)
{
	char groups[1024];
	size_t nu;
	const char *nl = o->sep ? "" : "\n";
	if (o->json)
		return;
	if (pms_counter_unscheduled_groups(c, groups, sizeof(groups)) > 0)
		fprintf(stderr, "pmuscope: stat: never scheduled (group does not fit the "
				"PMU's counters): %s\n", groups);
	if (pms_counter_split_groups(c, groups, sizeof(groups)) > 0)
		fprintf(o->f, "%snote: weak group split into lone events: %s\n", nl, groups);
	if (o->whole_domain[0])
		fprintf(o->f, "%snote: %s: %s\n", nl, o->whole_domain, WHOLE_DOMAIN_NOTE);
	/* the reason, once, below the table (--json: in the rows) */
	if ((nu = pms_counter_unsupported(c, groups, sizeof(groups))) > 0)
		fprintf(o->f, "%s<not supported>: %zu event%s; the first: %s\n"
			      "(--strict makes this an error)\n", nl, nu, nu > 1 ? "s" : "", groups);
}

/* Count (pms_countrun) and render; the exit code. */
static int count_and_render(struct pms_sys *sys, const struct pms_pmus *pmus,
			    const struct pms_topo *topo, struct pms_catalog *cat,
			    const struct args *a, FILE *outf, bool *counted)
{
	struct pms_event_parse_opts po = PMS_EVENT_PARSE_OPTS_INIT;
	struct pms_countrun_opts ro = PMS_COUNTRUN_OPTS_INIT;
	struct pms_countrun_callbacks cbs = { on_user_only, on_interval };
	struct pms_countrun *cr = NULL;
	const struct pms_countrun_result *res;
	char desc[128];
	int rc;

	if (a->co.target == PMS_COUNT_CPUS)
		snprintf(desc, sizeof(desc), a->cpus_arg ? "CPU(s) %s" : "system wide",
			 a->cpus_arg ? a->cpus_arg : "");
	else if (a->cmd)
		snprintf(desc, sizeof(desc), "command");
	else
		snprintf(desc, sizeof(desc), "%s %d",
			 a->co.target == PMS_COUNT_PID ? "process" : "thread", (int)a->pid);
	struct out o = { outf, a->agg, a->sep, a->json, desc, a->cmd, NULL, a->co.target, a->pid,
			 NULL, NULL, 1, 0, 0, -1, -1, { 0 } };
	po.catalog = cat;
	po.sys = sys;
	ro.events = a->events;
	ro.parse = &po;
	ro.count = &a->co;
	ro.argv = a->cmd;
	ro.agg = a->agg;
	ro.interval_ms = (unsigned)a->interval_ms;
	ro.repeat = (unsigned)a->repeat;
	ro.callbacks = &cbs;
	ro.ud = &o;
	if (pms_countrun_new(sys, pmus, topo, &ro, &cr) < 0)
		return cli_fail("event");
	running = cr;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (a->interval_ms && !a->json && !a->sep)
		fprintf(outf, "#%15s %s%18s %-5s %s\n", "time",
			a->agg != PMS_AGG_GLOBAL ? "agg          " : "", "counts", "unit", "events");
	rc = pms_countrun_run(cr);
	res = pms_countrun_result(cr);
	if (rc < 0) {
		rc = run_failed(res, a->cmd);
		goto out;
	}
	if (!a->interval_ms && res->runs) {
		o.c = res->counter;
		pms_counter_whole_domain(res->counter, o.whole_domain, sizeof(o.whole_domain));
		o.runs = res->runs;
		o.rsd = res->rsd;
		o.elapsed = res->elapsed;
		o.elapsed_rsd = res->elapsed_rsd;
		o.user_s = res->user_s;
		o.sys_s = res->sys_s;
		if (!a->json && !a->sep)
			print_title(outf, a, desc, res->runs);
		emit(&o, res->rows, res->nrows, -1, o.elapsed, res->exit_code);
	}
	if (res->counter) {
		pms_counter_whole_domain(res->counter, o.whole_domain, sizeof(o.whole_domain));
		print_notes(&o, res->counter);
	}
	rc = res->exit_code > 0 ? res->exit_code : 0;
	*counted = true;
out:
	running = NULL;
	pms_countrun_free(cr);
	return rc;
}

int cmd_stat(const struct cli_global *g, int argc, char **argv)
{
	struct args a = { .repeat = 1, .agg = PMS_AGG_GLOBAL, .co = PMS_COUNT_OPTS_INIT };
	FILE *outf = stderr;
	struct cli_out out_o = { .fd = -1, .done = true };
	bool counted = false;
	struct pms_catalog *cat = NULL;
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_topo *topo = NULL;
	int rc = 1;

	if (!parse_args(argc, argv, &a, &rc) || (rc = check_args(&a)) != 0) {
		pms_cpuset_fini(&a.cpus);
		return rc;
	}
	rc = 1;
	if (a.out_path) {
		/* opened before the command runs: a bad path fails before any work */
		int orc = cli_out_open(&out_o, "stat", "-o", a.out_path,
				       a.append ? CLI_OUT_APPEND : CLI_OUT_REPLACE);
		if (orc || !(outf = cli_out_stream(&out_o))) {
			cli_out_abandon(&out_o);
			pms_cpuset_fini(&a.cpus);
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
		if (a.co.target == PMS_COUNT_CPUS || a.per_cpu_agg) {
			cli_fail("topology");
			goto out;
		}
		topo = NULL; /* task counting works without it */
	}
	if (cli_catalog_open("stat", sys, pmus, a.catalog_path, &cat))
		goto out;
	a.co.cpus = a.cpus_arg ? &a.cpus : NULL;
	a.co.pid = a.pid;
	rc = count_and_render(sys, pmus, topo, cat, &a, outf, &counted);
out:
	pms_catalog_free(cat);
	pms_topo_free(topo);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	pms_cpuset_fini(&a.cpus);
	/* the -o file flushed, checked and renamed into place when the count
	 * was written; removed otherwise */
	if (counted && cli_out_commit(&out_o))
		rc = CLI_EXIT_IO;
	cli_out_abandon(&out_o);
	return rc;
}
