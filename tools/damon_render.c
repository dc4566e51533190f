/* `pmuscope mem --engine damon` (see damon_render.h, docs/damon.md). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_opt.h"
#include "damon_render.h"
#include "pmuscope/damon.h"
#include "pmuscope/damon_text.h"
#include "pmuscope/error.h"
#include "pmuscope/render_cmd.h"
#include "pmuscope/topo.h"
#include "pmuscope/util.h"

enum {
	D_SIZE = 256, D_NODE, D_THREADS, D_STEPS, D_DURATION, D_ENGINE, D_JSON, D_CSV, D_SAMPLES,
	D_TOP, D_QUIET, D_PROGRESS, D_SUS, D_AUS, D_UUS, D_MINR, D_MAXR, D_PAGES,
	D_NOTHERE,
};

static const struct cli_opt damon_opts[] = {
	{ "pid", 'p', CLI_ARG, "PID[,PID]", 'p', "monitor running processes (up to 8)" },
	{ "duration", 0, CLI_ARG, "SEC", D_DURATION, "stop after SEC seconds" },
	{ "engine", 0, CLI_ARG, "damon", D_ENGINE, "this engine (the page you are reading)" },
	{ "damon-sample-us", 0, CLI_ARG, "US", D_SUS, "sampling interval (default 5000)" },
	{ "damon-aggr-us", 0, CLI_ARG, "US", D_AUS,
	  "aggregation interval = one snapshot (default 100000)" },
	{ "damon-update-us", 0, CLI_ARG, "US", D_UUS, "regions update interval (default 1000000)" },
	{ "damon-min-regions", 0, CLI_ARG, "N", D_MINR, "(default 10)" },
	{ "damon-max-regions", 0, CLI_ARG, "N", D_MAXR, "(default 1000)" },
	{ "damon-pages", 0, CLI_ARG, "N", D_PAGES, "pages per region asked for their node (default 4)" },
	{ "size", 0, CLI_ARG, "BYTES", D_SIZE, "the built-in workload, as in `mem`" },
	{ "node", 0, CLI_ARG, "N", D_NODE, "the built-in workload, as in `mem`" },
	{ "threads", 0, CLI_ARG, "N", D_THREADS, "the built-in workload, as in `mem`" },
	{ "steps", 0, CLI_ARG, "N", D_STEPS, "the built-in workload, as in `mem`" },
	{ "json", 0, CLI_NOARG, NULL, D_JSON,
	  "JSON (schema: docs/damon.md); with --samples every snapshot's regions\n"
	  "too (the address x time heatmap)" },
	{ "samples", 0, CLI_NOARG, NULL, D_SAMPLES, "with --json: every snapshot's regions" },
	{ "csv", 0, CLI_NOARG, NULL, D_CSV, "one row per region per snapshot (heatmap data)" },
	{ "top", 0, CLI_ARG, "N", D_TOP, "ranges listed (default 10)" },
	{ "progress", 0, CLI_NOARG, NULL, D_PROGRESS, "progress line on stderr (default when a terminal)" },
	{ "quiet", 'q', CLI_NOARG, NULL, D_QUIET, "no progress line" },
	{ "all-cpus", 'a', CLI_NOARG, NULL, 'a', "not supported: DAMON monitors processes" },
	{ "output", 'o', CLI_ARG, "FILE", 'o', "not supported: DAMON gives no samples" },
	{ "period", 0, CLI_ARG, "N", D_NOTHERE, "not supported with damon" },
	{ "phys", 0, CLI_NOARG, NULL, D_NOTHERE, "not supported with damon" },
	{ "verify-node", 0, CLI_NOARG, NULL, D_NOTHERE, "not supported with damon" },
	{ 0 },
};

const struct cli_spec cli_spec_mem_damon = {
	.name = "mem",
	.synopsis = "mem --engine damon [OPTIONS] -- COMMAND ...\n"
		    "mem --engine damon [OPTIONS] -p PID[,PID...]\n"
		    "mem --engine damon [OPTIONS]     (the built-in workload)",
	.description =
		"Profile memory access frequency with DAMON (the kernel's Data Access\n"
		"MONitor: page-table Accessed bits sampled per adaptive address region),\n"
		"for machines without a precise memory-sampling PMU.  pmuscope adds its\n"
		"own kdamond, only when DAMON has none, and removes it on exit, error,\n"
		"Ctrl-C and when the command dies.  Reported: hot ranges (access\n"
		"frequency x size, over time), their mapping, the NUMA node of sampled\n"
		"pages, the remote-hot share per CPU node.  NOT reported: instruction\n"
		"pointers, data sources, latencies (DAMON has none).",
	.opts = damon_opts,
	.footer = "Needs root and a kernel with CONFIG_DAMON_SYSFS and DAMON vaddr.\n"
		  "Exit status: the command's; 128+N after signal N; 1 when pmuscope failed;\n"
		  "2 for a usage error.",
	.stop_at_operand = true,
};

bool mem_damon_requested(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--engine=damon") ||
		    (!strcmp(argv[i], "--engine") && i + 1 < argc && !strcmp(argv[i + 1], "damon")))
			return true;
	}
	return false;
}

struct dopts {
	pid_t pids[PMS_DAMON_MAX_TARGETS];
	size_t npids;
	char **cmd;
	double duration;
	struct pms_damon_opts d;
	bool json, csv, samples, quiet, progress;
	size_t top;
	const char *size, *node, *threads, *steps; /* built-in workload, passed on */
};


static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* 0 parsed, CLI_HELP (help printed) or CLI_USAGE (usage error printed). */
static int parse(int argc, char **argv, struct dopts *o)
{
	struct cli_parser cp;
	int c;
	uint64_t v;
	cli_parser_init(&cp, &cli_spec_mem_damon, argc, argv);
	while ((c = cli_next(&cp)) > 0) {
		const char *arg = cp.arg;
		switch (c) {
		case D_SIZE: o->size = arg; break;
		case D_NODE: o->node = arg; break;
		case D_THREADS: o->threads = arg; break;
		case D_STEPS: o->steps = arg; break;
		case 'p': {
			char buf[256], *tok, *save = NULL;
			snprintf(buf, sizeof(buf), "%s", arg);
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (o->npids == PMS_DAMON_MAX_TARGETS ||
				    parse_u64(tok, 1, 0x7fffffff, &v) < 0) {
					cli_bad_arg(&cp, "up to 8 process ids, comma-separated");
					return CLI_USAGE;
				}
				o->pids[o->npids++] = (pid_t)v;
			}
			break;
		}
		case 'a':
			cli_usage(&cli_spec_mem_damon, "--engine damon monitors processes' virtual "
				  "addresses; -a (system-wide) is not supported");
			return CLI_USAGE;
		case 'o':
		case D_NOTHERE:
			cli_usage(&cli_spec_mem_damon, "%s has no meaning with the damon engine (no "
				  "samples, no perf.data)", cp.opt);
			return CLI_USAGE;
		case D_DURATION:
			if (cli_parse_double(arg, 1e-6, 1e9, &o->duration) < 0) {
				cli_bad_arg(&cp, "seconds > 0");
				return CLI_USAGE;
			}
			break;
		case D_ENGINE:
			if (strcmp(arg, "damon")) {
				cli_usage(&cli_spec_mem_damon, "--engine '%s' here, where damon was chosen", arg);
				return CLI_USAGE;
			}
			break;
		case D_JSON: o->json = true; break;
		case D_CSV: o->csv = true; break;
		case D_SAMPLES: o->samples = true; break;
		case D_QUIET: o->quiet = true; break;
		case D_PROGRESS: o->progress = true; break;
		case D_TOP:
			if (parse_u64(arg, 1, 100000, &v) < 0) {
				cli_bad_arg(&cp, "a count 1..100000");
				return CLI_USAGE;
			}
			o->top = (size_t)v;
			break;
		case D_SUS: case D_AUS: case D_UUS: case D_MINR: case D_MAXR: case D_PAGES: {
			uint64_t hi = c == D_PAGES ? 64 : c == D_MINR || c == D_MAXR ? 1000000
										   : 3600000000ull;
			if (parse_u64(arg, 1, hi, &v) < 0) {
				char want[64];
				snprintf(want, sizeof(want), "1..%" PRIu64, hi);
				cli_bad_arg(&cp, want);
				return CLI_USAGE;
			}
			if (c == D_SUS) o->d.sample_us = v;
			if (c == D_AUS) o->d.aggr_us = v;
			if (c == D_UUS) o->d.update_us = v;
			if (c == D_MINR) o->d.min_regions = v;
			if (c == D_MAXR) o->d.max_regions = v;
			if (c == D_PAGES) o->d.pages_per_region = (unsigned)v;
			break;
		}
		default:
			cli_usage(&cli_spec_mem_damon, "unexpected option %s", cp.opt);
			return CLI_USAGE;
		}
	}
	if (c != CLI_END)
		return c;
	if (cp.ind < argc) {
		if (o->npids) {
			cli_usage(&cli_spec_mem_damon, "give a command or -p, not both");
			return CLI_USAGE;
		}
		o->cmd = argv + cp.ind;
	}
	if (o->json && o->csv) {
		cli_usage(&cli_spec_mem_damon, "--json and --csv exclude each other");
		return CLI_USAGE;
	}
	return 0;
}

static char *self_exe(const char *fallback)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return strdup(fallback);
	buf[n] = '\0';
	return strdup(buf);
}

static struct pms_damon_run *volatile running;
static void on_signal(int sig)
{
	if (running)
		pms_damon_run_stop(running, sig);
}

static void on_progress(void *ud, const struct pms_damon_run_progress *p)
{
	(void)ud;
	fprintf(stderr, "\rpmuscope: mem: damon: %zu snapshots, %.1f s", p->snapshots, p->seconds);
}

/* The built-in workload's command line (this binary, mem --run-workload). */
static void workload_argv(const struct cli_global *g, const struct dopts *o, char **exe,
			  char *wl[16])
{
	int k = 0;
	*exe = self_exe(g->prog);
	wl[k++] = *exe;
	wl[k++] = (char *)"mem";
	wl[k++] = (char *)"--run-workload";
	if (o->size) { wl[k++] = (char *)"--size"; wl[k++] = (char *)o->size; }
	if (o->node) { wl[k++] = (char *)"--node"; wl[k++] = (char *)o->node; }
	if (o->threads) { wl[k++] = (char *)"--threads"; wl[k++] = (char *)o->threads; }
	if (o->steps) { wl[k++] = (char *)"--steps"; wl[k++] = (char *)o->steps; }
}

/* A run that failed before its report: what failed, and the exit code. */
static int run_failed(const struct pms_damon_run_result *res, const char *auto_reason)
{
	switch (res->failed) {
	case PMS_DAMON_RUN_SPAWN:
		cli_fail("mem: starting the command");
		return 1;
	case PMS_DAMON_RUN_START:
		cli_fail("mem: DAMON");
		if (auto_reason) {
			/* the command never ran (it waits before exec and is
			 * killed): the ladder's next engine takes over */
			fprintf(stderr, "pmuscope: mem: DAMON could not be used; falling back to "
				"software page-fault samples\n");
			return MEM_DAMON_FALLBACK;
		}
		fprintf(stderr, "pmuscope: mem: DAMON could not be used; try --engine "
			"software (page-fault samples, first touch only)\n");
		return 1;
	case PMS_DAMON_RUN_EXEC:
		cli_fail("mem: running the command");
		return 1;
	default:
		cli_fail("mem: DAMON report");
		return 1;
	}
}

/* Run DAMON (pms_damon_run) with the signal handlers set, and render. */
static int run_and_render(struct pms_sys *sys, const struct pms_topo *topo, struct dopts *o,
			  char *const *argv, const char *auto_reason)
{
	struct pms_damon_run_opts ro = PMS_DAMON_RUN_OPTS_INIT;
	struct pms_damon_run *run = NULL;
	const struct pms_damon_run_result *res;
	struct sigaction sa, old_int, old_term;
	bool show = !o->quiet && (o->progress || isatty(2)), sampled;
	int exit_code = 1, rc;

	o->d.pids = o->pids;
	o->d.npids = o->npids;
	ro.damon = &o->d;
	ro.argv = o->npids ? NULL : argv;
	ro.duration_s = o->duration;
	ro.progress = show ? on_progress : NULL;
	if (pms_damon_run_new(sys, topo, &ro, &run) < 0)
		return cli_fail("mem: DAMON");
	running = run;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = pms_damon_run(run);
	res = pms_damon_run_result(run);
	if (res->sample_failed)
		fprintf(stderr, "pmuscope: mem: reading DAMON regions: %s\n", res->sample_error);
	sampled = rc == 0 || res->failed == PMS_DAMON_RUN_REPORT;
	if (sampled && show)
		fputc('\n', stderr);
	if (sampled && res->cleanup_rc < 0)
		fprintf(stderr, "pmuscope: mem: %s\n", res->cleanup_msg);
	if (rc < 0) {
		exit_code = run_failed(res, auto_reason);
		goto out;
	}
	if (o->json) {
		struct pms_json j;
		pms_json_init(&j, stdout);
		pms_render_damon_json(&j, res, o->samples, auto_reason);
		cli_json_finish(&j);
	} else if (o->csv) {
		pms_damon_render_csv(stdout, res);
	} else {
		pms_damon_render_text(stdout, res, o->top, auto_reason);
	}
	fflush(stdout);
	if (res->term_signal && res->have_status) {
		char how[128];
		pms_exit_describe(res->status, how, sizeof(how));
		fprintf(stderr, "pmuscope: mem: the command %s\n", how);
	}
	exit_code = res->exit_code;
out:
	running = NULL;
	pms_damon_run_free(run); /* removes the kdamond on every error path */
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return exit_code;
}

int mem_damon_main(const struct cli_global *g, int argc, char **argv, const char *auto_reason)
{
	struct dopts o;
	struct pms_sys *sys = NULL;
	struct pms_topo *topo = NULL;
	char *exe = NULL, *wl[16] = { 0 };
	int exit_code = 1;

	memset(&o, 0, sizeof(o));
	o.d = (struct pms_damon_opts)PMS_DAMON_OPTS_INIT;
	int prc = parse(argc, argv, &o);
	if (prc)
		return cli_exit_code(prc);
	sys = cli_open_sys(g);
	if (!sys)
		goto out;
	if (!pms_sys_is_live(sys)) {
		fprintf(stderr, "pmuscope: mem: DAMON runs on this machine only; --root %s is a "
			"snapshot\n", pms_sys_root(sys));
		goto out;
	}
	if (pms_topo_load(sys, &topo) < 0) {
		cli_fail("mem: topology");
		goto out;
	}
	if (!o.npids && !o.cmd)
		workload_argv(g, &o, &exe, wl);
	exit_code = run_and_render(sys, topo, &o, o.cmd ? o.cmd : wl, auto_reason);
out:
	pms_topo_free(topo);
	pms_sys_free(sys);
	free(exe);
	return exit_code;
}
