/* pmuscope: command-line front end.  Dispatches to cmd_<name>.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pmuscope/error.h"
#include "version.h"

/* Subcommands, one file each. */
#define CLI_COMMANDS(X) \
	X(mem, "memory-access profile: levels, latency, NUMA node of every sample, top code/data") \
	X(datasrc, "decode perf_mem_data_src values as perf prints them; IBS/PEBS/SPE raw words") \
	X(list, "PMUs: type, kind, scope, CPUs, caps, precise engine, formats, events") \
	X(encode, "event strings -> perf_event_attr (perf syntax)") \
	X(topology, "packages, NUMA nodes, SNC, core types, uncore box -> node") \
	X(events, "catalog events: perf encodings, ARM tiers, Apple tables; --explain N") \
	X(report, "memory-access report of a perf.data file (also from perf mem record)") \
	X(c2c, "cache-line contention (false/true sharing) with each line's NUMA node, any engine") \
	X(script, "one line or JSON object per sample of a perf.data file") \
	X(stat, "count events for a command, pid or CPUs; per node/socket/core type; -I, -x, --json") \


#define DECLARE(name, summary) int cmd_##name(const struct cli_global *g, int argc, char **argv);
CLI_COMMANDS(DECLARE)
#undef DECLARE

static int cmd_help(const struct cli_global *g, int argc, char **argv);

static const struct cli_cmd commands[] = {
#define ENTRY(name, summary) { #name, cmd_##name, summary },
	CLI_COMMANDS(ENTRY)
#undef ENTRY
	{ "help", cmd_help, "this overview ('pmuscope COMMAND --help' for one command)" },
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

static void usage(FILE *f)
{
	fprintf(f, "usage: pmuscope [--root DIR] COMMAND [ARGS...]\n\n"
		   "Hardware performance monitoring and precise memory sampling for Linux.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nGlobal options:\n"
		   "  --root DIR   read /sys and /proc below DIR (a machine snapshot);\n"
		   "               also taken from $PMUSCOPE_ROOT\n"
		   "  --version    print the version\n"
		   "  --help       this text; 'pmuscope COMMAND --help' for a command\n");
}

static int cmd_help(const struct cli_global *g, int argc, char **argv)
{
	(void)g;
	(void)argc;
	(void)argv;
	usage(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct cli_global g = { .root = getenv("PMUSCOPE_ROOT"), .prog = argv[0] };
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("pmuscope %s\n", pms_version());
			return 0;
		} else if (!strcmp(argv[i], "--root") && i + 1 < argc) {
			g.root = argv[++i];
		} else if (!strncmp(argv[i], "--root=", 7)) {
			g.root = argv[i] + 7;
		} else {
			fprintf(stderr, "pmuscope: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (g.root && !*g.root)
		g.root = NULL;
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (!strcmp(argv[i], commands[c].name))
			return commands[c].fn(&g, argc - i, argv + i);
	fprintf(stderr, "pmuscope: unknown command '%s' (see 'pmuscope --help')\n", argv[i]);
	return 2;
}
