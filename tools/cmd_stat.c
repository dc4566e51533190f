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
#include "pmuscope/render_cmd.h"
#include "pmuscope/stat_text.h"
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

static void emit(const struct pms_render_stat *o, const struct pms_count_row *rows, size_t n,
		 double t, double elapsed, int exit_status)
{
	if (pms_render_stat(o, rows, n, t, elapsed, exit_status) < 0)
		fprintf(stderr, "pmuscope: writing JSON failed\n");
}

static void on_interval(void *ud, const struct pms_countrun_interval *iv)
{
	struct pms_render_stat *o = ud;
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
static void print_notes(const struct pms_render_stat *o, const struct pms_counter *c)
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
		fprintf(o->f, "%snote: %s: %s\n", nl, o->whole_domain, PMS_STAT_WHOLE_DOMAIN_NOTE);
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
	struct pms_render_stat o = { outf, a->agg, a->sep, a->json, desc, a->cmd, NULL, a->co.target, a->pid,
			 NULL, NULL, 1, 0, 0, -1, -1, { 0 }, NULL };
	if (a->json)
		o.meta = cli_json_meta();
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
