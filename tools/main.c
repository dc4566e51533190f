/* pmuscope: command-line front end.  Dispatches to cmd_<name>.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pmuscope/session.h"
#include "cli_out.h"
#include "cli_opt.h"
#include "pmuscope/error.h"
#include "pmuscope/util.h"
#include "version.h"

/* Subcommands, one file each. */
#define CLI_COMMANDS(X) \
	X(mem, "memory-access profile: levels, latency, NUMA node of every sample, top code/data") \
	X(datasrc, "decode perf_mem_data_src values as perf prints them; IBS/PEBS/SPE raw words") \
	X(list, "PMUs: type, kind, scope, CPUs, caps, precise engine, formats, events") \
	X(encode, "event strings -> perf_event_attr (perf syntax)") \
	X(topology, "packages, NUMA nodes, SNC, core types, uncore box -> node") \
	X(events, "what this machine can count (as perf list); catalogs, ARM tiers, --explain N") \
	X(report, "memory-access report of a perf.data file (also from perf mem record)") \
	X(record, "overflow (IP) sampling of any event: hot functions, lines, call paths; -o perf.data") \
	X(c2c, "cache-line contention (false/true sharing) with each line's NUMA node, any engine") \
	X(script, "one line or JSON object per sample of a perf.data file") \
	X(stat, "count events for a command, pid or CPUs; per node/socket/core type; -I, -x, --json") \
	X(migrate, "move a live process's pages (an address range) to a NUMA node; moved/failed by errno") \
	X(top, "live view of memory samples by process, thread, data object, function (numatop)") \


#define DECLARE(name, summary) \
	int cmd_##name(const struct cli_global *g, int argc, char **argv); \
	extern const struct cli_spec cli_spec_##name;
CLI_COMMANDS(DECLARE)
#undef DECLARE

static int cmd_help(const struct cli_global *g, int argc, char **argv);

static const struct cli_cmd commands[] = {
#define ENTRY(name, summary) { #name, cmd_##name, summary, &cli_spec_##name },
	CLI_COMMANDS(ENTRY)
#undef ENTRY
	{ "help", cmd_help, "this overview; 'pmuscope help COMMAND' for one command", NULL },
};

struct pms_sys *cli_open_sys(const struct cli_global *g)
{
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	o.root = g->root;
	if (pms_sys_new(&sys, &o) < 0) {
		cli_fail("cannot open the system root");
		return NULL;
	}
	return sys;
}

int cli_fail(const char *what)
{
	fprintf(stderr, "pmuscope: %s: %s\n", what, pms_error_last());
	return 1;
}

int cli_exec_failed(const char *cmd, const char *file)
{
	int e = pms_error_errno();
	fprintf(stderr, "pmuscope: %s: cannot run '%s': %s\n", cmd, file,
		e ? strerror(e) : pms_error_last());
	return e == ENOENT ? 127 : 126;
}

void cli_warn_no_hold(const char *cmd, const char *why, const char *without)
{
	fprintf(stderr,
		"pmuscope: %s: cannot hold the command's processes at exit (%s); going on "
		"without: %s (allow ptrace of one's own child: kernel.yama.ptrace_scope <= 1, "
		"or CAP_SYS_PTRACE)\n",
		cmd, why ? why : "ptrace refused", without);
}

int cli_hold_budget(const char *arg, double *ms)
{
	char *end;
	if (!strcmp(arg, "none")) {
		*ms = -1;
		return 0;
	}
	double v = strtod(arg, &end);
	if (end == arg || *end || !(v >= 0) || v > 3600e3)
		return -1;
	/* 0: only the first process of each batch is asked about (the
	 * library's 0 is its default) */
	*ms = v > 0 ? v : 1e-6;
	return 0;
}

void cli_session_problems(const char *cmd, const struct pms_session *ses,
			  const char *const *paths, size_t n)
{
	/* what the readers skipped or found corrupt, file by file */
	size_t at = 0, f = 0;
	const char *m = pms_session_problem(ses, 0, &f);
	for (size_t k = 0; k < n; k++) {
		for (; m && f == k; m = pms_session_problem(ses, ++at, &f))
			fprintf(stderr, "pmuscope: %s: %s: warning: %s\n", cmd, paths[k], m);
		size_t more = pms_session_problems_unlisted(ses, k);
		if (more)
			fprintf(stderr, "pmuscope: %s: %s: warning: %zu more problems not shown\n",
				cmd, paths[k], more);
	}
}

void cli_warn_left_running(const char *cmd, const struct pms_session *ses)
{
	uint64_t n = pms_session_left_running(ses);
	if (n)
		fprintf(stderr, "pmuscope: %s: warning: %llu process%s of the command %s still "
			"running when it exited: the run ended with the command (as perf record's), "
			"so what %s did after that is not sampled; %s left running\n", cmd,
			(unsigned long long)n, n == 1 ? "" : "es", n == 1 ? "was" : "were",
			n == 1 ? "it" : "they", n == 1 ? "it is" : "they are");
}

void cli_warn_loss(const char *cmd, uint64_t samples, uint64_t lost)
{
	double ratio = samples + lost ? (double)lost / (double)(samples + lost) : 0.0;
	if (ratio > 0.02)
		fprintf(stderr, "pmuscope: %s: warning: lost %.1f%% of the samples (%llu lost, %llu "
			"kept): the ring buffer was full; sample less often\n", cmd, 100.0 * ratio,
			(unsigned long long)lost, (unsigned long long)samples);
}

static const char global_opts[] =
	"Global options:\n"
	"  --root DIR      read /sys and /proc below DIR (a machine snapshot);\n"
	"                  also taken from $PMUSCOPE_ROOT\n"
	"  -v, --version   print the version\n"
	"  -h, --help      this text; 'pmuscope help COMMAND' for a command\n";

static const char exit_text[] =
	"Exit status (every command): 0 success, 1 failure, 2 usage error; mem and\n"
	"stat running a COMMAND exit with the command's status (128+N when signal N\n"
	"ended it) once pmuscope itself succeeded.  See docs/cli.md.";

static void usage(FILE *f)
{
	fprintf(f, "usage: pmuscope [--root DIR] COMMAND [ARGS...]\n\n"
		   "Hardware performance monitoring and precise memory sampling for Linux.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n%s\n%s\n", global_opts, exit_text);
}

static const struct cli_cmd *find_cmd(const char *name)
{
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (!strcmp(name, commands[c].name))
			return &commands[c];
	return NULL;
}

/* The pmuscope(1) page: the overview above in troff. */
static void man_main(FILE *f)
{
	fprintf(f, ".\\\" Generated by 'pmuscope --man' (tools/main.c); do not edit.\n"
		   ".TH PMUSCOPE 1 \"\" \"pmuscope %s\" \"pmuscope manual\"\n"
		   ".SH NAME\npmuscope \\- hardware performance monitoring and precise memory "
		   "sampling for Linux\n.SH SYNOPSIS\n.B pmuscope\n[\\-\\-root DIR] COMMAND "
		   "[ARGS...]\n.SH COMMANDS\n", pms_version());
	for (size_t i = 0; i + 1 < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, ".TP\n.BR pmuscope\\-%s (1)\n%s\n", commands[i].name, commands[i].summary);
	fprintf(f, ".SH OPTIONS\n.TP\n.B \\-\\-root DIR\nread /sys and /proc below DIR (a machine "
		   "snapshot); also taken from $PMUSCOPE_ROOT\n.TP\n.B \\-v, \\-\\-version\nprint "
		   "the version\n.TP\n.B \\-h, \\-\\-help\nthe overview; \\fBpmuscope help "
		   "COMMAND\\fR for one command\n.SH EXIT STATUS\n0 success, 1 failure, 2 usage "
		   "error; mem and stat running a COMMAND exit with the command's status "
		   "(128+N when signal N ended it) once pmuscope itself succeeded.\n"
		   ".SH SEE ALSO\n.BR perf (1)\n");
}

static int cmd_help(const struct cli_global *g, int argc, char **argv)
{
	const struct cli_cmd *c;
	(void)g;
	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "pmuscope help: one COMMAND only ('%s' is extra)\n", argv[2]);
		return CLI_EXIT_USAGE;
	}
	c = find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr, "pmuscope help: no command '%s' (see 'pmuscope help')\n", argv[1]);
		return CLI_EXIT_USAGE;
	}
	if (!c->spec) {
		usage(stdout);
		return 0;
	}
	cli_spec_help(c->spec, stdout);
	return 0;
}

/* declared: the fuzz build renames main (-Dmain=pms_cli_main), which then
 * needs a prototype under -Wmissing-prototypes */
int main(int argc, char **argv);

int main(int argc, char **argv)
{
	struct cli_global g = { .root = getenv("PMUSCOPE_ROOT"), .prog = argv[0] };
	const struct cli_cmd *c;
	int i = 1;

	/* everything printed goes through the checked standard output */
	cli_stdout_init();
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return cli_stdout_finish("--help", 0);
		} else if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-v")) {
			printf("pmuscope version %s\n", pms_version());
			return cli_stdout_finish("--version", 0);
		} else if (!strcmp(argv[i], "--man")) {
			/* build-time man page generation (tools/meson.build) */
			if (i + 1 >= argc) {
				man_main(stdout);
				return cli_stdout_finish("--man", 0);
			}
			c = find_cmd(argv[i + 1]);
			if (!c || !c->spec) {
				fprintf(stderr, "pmuscope: --man: no command '%s'\n", argv[i + 1]);
				return CLI_EXIT_USAGE;
			}
			cli_spec_man(c->spec, c->summary, pms_version(), stdout);
			return cli_stdout_finish("--man", 0);
		} else if (!strcmp(argv[i], "--root") && i + 1 < argc) {
			g.root = argv[++i];
		} else if (!strncmp(argv[i], "--root=", 7)) {
			g.root = argv[i] + 7;
		} else {
			fprintf(stderr, "pmuscope: unknown option '%s' (see 'pmuscope --help')\n",
				argv[i]);
			return CLI_EXIT_USAGE;
		}
	}
	if (g.root && !*g.root)
		g.root = NULL;
	if (i >= argc) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	c = find_cmd(argv[i]);
	cli_json_set_global(&g);
	if (c)
		return cli_stdout_finish(c->name, c->fn(&g, argc - i, argv + i));
	fprintf(stderr, "pmuscope: unknown command '%s' (see 'pmuscope --help')\n", argv[i]);
	return CLI_EXIT_USAGE;
}
