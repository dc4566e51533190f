/* pmuscope c2c: cache-line contention from a perf.data file (pmuscope's own,
 * `perf c2c record`, `perf mem record`) or a live run (command, -p, -a):
 * perf c2c's counts, the shared cache lines with their NUMA node and data
 * object, and per line the offsets with the threads, CPUs, nodes and
 * instructions that touch them (model: include/pmuscope/c2c.h).  This file
 * parses options and calls the renderers: text and CSV (pmuscope/c2c_text.h),
 * JSON (docs/c2c.md; pmuscope/render_cmd.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alloc_render.h"
#include "cli.h"
#include "cli_out.h"
#include "cli_opt.h"
#include "mem_render.h"
#include "pmuscope/c2c.h"
#include "pmuscope/c2c_text.h"
#include "pmuscope/error.h"
#include "pmuscope/session.h"
#include "pmuscope/numa.h"
#include "pmuscope/pmu.h"
#include "pmuscope/render_cmd.h"
#include "pmuscope/report.h"
#include "pmuscope/symbols.h"
#include "pmuscope/topo.h"
#include "pmuscope/util.h"

int cmd_c2c(const struct cli_global *g, int argc, char **argv);

/* ---- options (the one parser: tools/cli_opt.h) ------------------------------- */

enum { O_DURATION = 256, O_ENGINE, O_PERIOD, O_PHYS, O_DOUBLE, O_DISPLAY, O_SORT, O_ALL,
       O_LINES, O_NOSYM, O_JSON, O_CSV, O_NOHOLD, O_OUTPUT, O_HOLD_BUDGET, O_NOALLOC,
       O_ALLOC_RATE };

static const struct cli_opt opts[] = {
	{ NULL, 0, CLI_NOARG, NULL, 0, "Target (exactly one):" },
	{ "input", 'i', CLI_ARG, "FILE", 'i', "read FILE ('-' a pipe on stdin); several: one model" },
	{ "pid", 'p', CLI_ARG, "PID", 'p', "attach to PID (until it exits, Ctrl-C or --duration)" },
	{ "all-cpus", 'a', CLI_NOARG, NULL, 'a', "system-wide (nodes only from physical addresses)" },
	{ NULL, 0, CLI_NOARG, NULL, 0, "Live runs:" },
	{ "duration", 0, CLI_ARG, "SEC", O_DURATION, "stop a live run after SEC seconds" },
	{ "engine", 0, CLI_ARG, "NAME", O_ENGINE, "ibs, pebs, spe or software (default: best available)" },
	{ "period", 0, CLI_ARG, "N", O_PERIOD, "sample period (default: the engine's)" },
	{ "phys", 0, CLI_NOARG, NULL, O_PHYS, "ask for physical addresses (privileged)" },
	{ "output", 'o', CLI_ARG, "FILE", 'o',
	  "also write the samples to FILE (perf.data, as `pmuscope\n"
	  "mem -o`): `c2c -i FILE` reports them again" },
	{ "no-hold", 0, CLI_NOARG, NULL, O_NOHOLD,
	  "do not hold the COMMAND's processes at exit (ptrace) to\n"
	  "ask about their lines' nodes; a set-user-ID command keeps\n"
	  "its privileges only with --no-hold" },
	{ "hold-budget", 0, CLI_ARG, "MS", O_HOLD_BUDGET, CLI_HOLD_BUDGET_HELP },
	{ "no-alloc", 0, CLI_NOARG, NULL, O_NOALLOC,
	  "do not track the COMMAND's allocations (by default\n"
	  "libpmuscope-alloc.so is preloaded and each line names\n"
	  "its allocation site; docs/mem.md)" },
	{ "alloc-rate", 0, CLI_ARG, "BYTES", O_ALLOC_RATE,
	  "track allocations sampled by bytes, one per BYTES on\naverage (default 32K; 0: every allocation, for\nsmall contended objects)" },
	{ NULL, 0, CLI_NOARG, NULL, 0, "The model and the report:" },
	{ "double-cl", 0, CLI_NOARG, NULL, O_DOUBLE, "128-byte lines (adjacent-line prefetch makes pairs one)" },
	{ "display", 0, CLI_ARG, "M", O_DISPLAY,
	  "rank and select lines by M: tot (tot_hitm), lcl, rmt,\n"
	  "peer, score, sharers (default by engine: tot for PEBS\n"
	  "and IBS, score for SPE, sharers for software)" },
	{ "sort", 0, CLI_ARG, "KEY", O_SORT,
	  "order of the line table: metric (default), hitm,\n"
	  "rmt_hitm, lcl_hitm, peer, loads, stores, samples,\n"
	  "threads, latency, address" },
	{ "all", 0, CLI_NOARG, NULL, O_ALL, "list every line with a data address, not only shared" },
	{ "lines", 0, CLI_ARG, "N", O_LINES, "list at most N lines" },
	{ "no-symbols", 0, CLI_NOARG, NULL, O_NOSYM, "do not name instructions or data objects" },
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "the report as JSON (schema: docs/c2c.md)" },
	{ "csv", 0, CLI_NOARG, NULL, O_CSV, "one CSV row per (line, offset, instruction)" },
	{ 0 },
};

const struct cli_spec cli_spec_c2c = {
	.name = "c2c",
	.synopsis = "c2c [OPTIONS] -i FILE          a recorded perf.data file\n"
		    "c2c [OPTIONS] -- COMMAND ...   profile a command\n"
		    "c2c [OPTIONS] -p PID | -a      attach to a process / system-wide",
	.description =
		"Cache-line contention (false and true sharing), as `perf c2c report`\n"
		"shows it, on every engine:\n\n"
		"  - the counts perf c2c prints (loads and stores by level, local/remote\n"
		"    HITM, peer hits, LLC misses to local/remote DRAM, locked and blocked\n"
		"    accesses), classified by perf's rules (mem-events.c c2c_decode_stats);\n"
		"  - the shared cache lines (HITM or peer hits): per line HITM, peer,\n"
		"    load, store and per-level counts, the line's NUMA node and its data\n"
		"    object; per line the offsets with the threads (pid/tid), CPUs, CPU\n"
		"    nodes and instructions (function, source line) that touch them and\n"
		"    their latency.\n"
		"  - Arm SPE reports no HITM: lines are ranked by a contention score (peer\n"
		"    hits + remote cache hits), labelled so.  The software fallback has no\n"
		"    data source: lines touched by several threads are listed instead.\n\n"
		"Files from `perf c2c record` / `perf mem record` read as they are; nodes\n"
		"come from PHYS_ADDR and the file's MEM_TOPOLOGY.  Live runs resolve each\n"
		"data page's node while the process lives (move_pages).",
	.opts = opts,
	.footer = "Exit status: the command's exit status (128+N when a signal N ended it)\n"
		  "with -- COMMAND; else 0 ok; 1 the file cannot be read or recording\n"
		  "failed, 2 usage error.",
	.stop_at_operand = true,
};

struct c2c_opts {
	const char *input;  /* the first of in[] */
	const char *in[8];
	int nin;
	const char *out;    /* -o: the live run's recording */
	pid_t pid;
	bool system, json, csv, symbols, phys, no_hold, no_alloc;
	uint64_t alloc_rate; /* --alloc-rate */
	double hold_budget; /* --hold-budget ms; 0: default, < 0: none */
	double duration;
	enum pms_engine engine;
	uint64_t period;
	struct pms_c2c_opts mo;
	char **cmd;
};

/* -1: go on; else the exit code. */
static int parse_opts(int argc, char **argv, struct c2c_opts *o)
{
	const struct cli_spec *sp = &cli_spec_c2c;
	struct pms_c2c_opts def = PMS_C2C_OPTS_INIT;
	struct cli_parser p;
	double d;
	long v;
	int c;
	memset(o, 0, sizeof(*o));
	o->mo = def;
	o->symbols = true;
	o->alloc_rate = ALLOC_CLI_RATE;
	o->engine = PMS_ENG_NONE;
	cli_parser_init(&p, sp, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		switch (c) {
		case 'i':
			if (o->nin == 8)
				return cli_usage(sp, "at most 8 input files");
			o->in[o->nin++] = p.arg;
			o->input = o->in[0];
			break;
		case 'o': o->out = p.arg; break;
		case 'p':
			if (cli_parse_long(p.arg, 1, 0x7fffffff, &v) < 0)
				return cli_bad_arg(&p, "a process id");
			o->pid = (pid_t)v;
			break;
		case 'a': o->system = true; break;
		case O_DURATION:
			if (cli_parse_double(p.arg, 1e-9, 1e9, &d) < 0)
				return cli_bad_arg(&p, "seconds > 0");
			o->duration = d;
			break;
		case O_ENGINE:
			if (mem_engine_parse(p.arg, &o->engine) < 0)
				return cli_bad_arg(&p, "ibs, pebs, spe or software");
			break;
		case O_PERIOD:
			if (cli_parse_long(p.arg, 1, LONG_MAX, &v) < 0)
				return cli_bad_arg(&p, "a positive count");
			o->period = (uint64_t)v;
			break;
		case O_PHYS: o->phys = true; break;
		case O_NOHOLD: o->no_hold = true; break;
		case O_NOALLOC: o->no_alloc = true; break;
		case O_ALLOC_RATE:
			if (cli_parse_long(p.arg, 0, LONG_MAX, &v) < 0)
				return cli_bad_arg(&p, "bytes, 0 or more");
			o->alloc_rate = (uint64_t)v;
			break;
		case O_HOLD_BUDGET:
			if (cli_hold_budget(p.arg, &o->hold_budget) < 0)
				return cli_bad_arg(&p, CLI_HOLD_BUDGET_WANT);
			break;
		case O_DOUBLE: o->mo.double_cl = true; break;
		case O_DISPLAY:
			if (pms_c2c_metric_parse(p.arg, &o->mo.metric) < 0 || o->mo.metric == PMS_C2C_AUTO)
				return cli_bad_arg(&p, "tot, lcl, rmt, peer, score or sharers");
			break;
		case O_SORT:
			if (pms_c2c_sort_parse(p.arg, &o->mo.sort) < 0)
				return cli_usage(sp, "%s '%s': %s", p.opt, p.arg, pms_error_last());
			break;
		case O_ALL: o->mo.all_lines = true; break;
		case O_LINES:
			if (cli_parse_long(p.arg, 1, LONG_MAX, &v) < 0)
				return cli_bad_arg(&p, "a count > 0");
			o->mo.max_lines = (size_t)v;
			break;
		case O_NOSYM: o->symbols = false; break;
		case O_JSON: o->json = true; break;
		case O_CSV: o->csv = true; break;
		default: return cli_usage(sp, "'%s' is not an argument of c2c", p.arg);
		}
	}
	if (c != CLI_END)
		return cli_exit_code(c);
	if (p.ind < argc)
		o->cmd = argv + p.ind;
	int targets = (o->input != NULL) + (o->pid > 0) + o->system + (o->cmd != NULL);
	if (targets != 1)
		return cli_usage(sp, "give exactly one of -i FILE, -p PID, -a or -- COMMAND");
	if (o->json && o->csv)
		return cli_usage(sp, "--json and --csv exclude each other");
	if (o->input && (o->duration > 0 || o->engine != PMS_ENG_NONE || o->period || o->phys ||
			 o->no_hold || o->hold_budget != 0 || o->out))
		return cli_usage(sp, "--duration, --engine, --period, --phys, --no-hold, "
				     "--hold-budget and -o are for live runs");
	return -1; /* go on */
}

static void render(const struct c2c_opts *o, const struct pms_render_c2c_src *src,
		   const struct pms_c2c_report *r)
{
	const struct pms_c2c_source ts = {
		.what = src->what, .label = src->label, .nodes_why = src->nodes_why,
		.records = src->records, .skipped = src->skipped, .lost = src->lost,
		.truncated = src->truncated, .unfinished = src->unfinished,
	};
	if (o->json) {
		struct pms_json j;
		pms_json_init(&j, stdout);
		pms_render_c2c_json(&j, src, r);
		cli_json_finish(&j);
	} else if (o->csv) {
		pms_c2c_render_csv(stdout, r);
	} else if (o->cmd) {
		/* the text report of a COMMAND: stderr, after the run (perf
		 * stat's rule, docs/cli.md), the command's stdout its own */
		fflush(stdout);
		pms_c2c_render_text(stderr, &ts, r, o->mo.sort);
	} else {
		pms_c2c_render_text(stdout, &ts, r, o->mo.sort);
	}
	fflush(stdout);
}

/* ---- the samples: one session, live or recorded ---------------------------------- */

/* After the session ran: the report, rendered. */
static int finish(const struct c2c_opts *o, struct pms_session *ses, struct pms_render_c2c_src *src)
{
	struct pms_memsrc_info info;
	struct pms_memsrc_stats st;
	struct pms_c2c_report *rep = NULL;
	pms_session_info(ses, &info);
	pms_session_stats(ses, &st);
	if (pms_session_c2c_report(ses, &rep) < 0) {
		cli_fail("c2c: building the report");
		return 1;
	}
	src->records = st.records;
	src->skipped = st.parse_errors;
	src->truncated = st.truncated;
	src->lost = st.lost_total;
	src->excluded_self = st.samples_excluded;
	src->nodes_why = info.kind == PMS_MEMSRC_FILE ? info.nodes_why : NULL;
	snprintf(src->label, sizeof(src->label), "%s", info.label ? info.label : "");
	render(o, src, rep);
	cli_warn_loss("c2c", st.samples, st.lost_total);
	pms_c2c_report_free(rep);
	return 0;
}

static int run_file(const struct cli_global *g, const struct c2c_opts *o)
{
	struct pms_session *ses = NULL;
	struct pms_sys *sys = NULL;
	struct pms_render_c2c_src src;
	int rc, ret = 1;

	memset(&src, 0, sizeof(src));
	src.kind = "file";
	src.path = o->input;
	src.exit_status = -1;
	/* the model fed as the samples come; the profile keeps the maps */
	struct pms_session_opts so = PMS_SESSION_OPTS_INIT;
	so.profile = false;
	so.c2c_opts = &o->mo;
	so.symbols = o->symbols;
	/* names are a nicety: without a seam the numbers stand alone; with
	 * it, several files' kernels are judged as they are read */
	if (o->symbols)
		sys = cli_open_sys(g);
	if (pms_session_open_files(sys, o->in, (size_t)o->nin, &so, &ses) < 0) {
		cli_fail("c2c");
		goto out;
	}
	if ((rc = pms_session_run(ses)) < 0) {
		fprintf(stderr, "pmuscope: c2c: %s\n", pms_error_last());
		goto out;
	}
	bool ferr = false;
	for (int i = 0; i < o->nin; i++)
		if (pms_session_file_error(ses, (size_t)i) && (ferr = true))
			fprintf(stderr, "pmuscope: c2c: %s: %s (the report covers the records "
					"before it)\n", o->in[i], pms_session_file_error(ses, (size_t)i));
	struct pms_memsrc_stats st;
	struct pms_memsrc_info info;
	pms_session_stats(ses, &st);
	pms_session_info(ses, &info);
	/* what the reader skipped, on stderr and in the JSON (as report) */
	cli_session_problems("c2c", ses, o->in, (size_t)o->nin);
	src.ses = ses;
	struct pms_perfdata_stats fst;
	pms_session_file_stats(ses, &fst);
	src.unfinished = fst.unfinished;
	size_t k = 0;
	for (int i = 0; i < o->nin && k < sizeof(src.what); i++)
		k += (size_t)snprintf(src.what + k, sizeof(src.what) - k, "%s%s", i ? ", " : "", o->in[i]);
	if (k < sizeof(src.what))
		snprintf(src.what + k, sizeof(src.what) - k, " (%s mode, %" PRIu64 " samples)",
			 info.pipe ? "pipe" : "file", st.samples);
	ret = finish(o, ses, &src);
	if (ferr)
		ret = 1;
out:
	pms_session_free(ses);
	pms_sys_free(sys);
	return ret;
}

/* Live: the session's profile keeps the samples (nodes resolved in
 * batches while the process lives); they go into the c2c model at the
 * end. */
static int run_live(const struct cli_global *g, const struct c2c_opts *o)
{
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_topo *topo = NULL;
	struct pms_session *ses = NULL;
	struct pms_render_c2c_src src;
	struct pms_liverun_result res;
	int ret = 1, outfd = -1;
	struct alloc_cli ac = { .fd = -1, .rate = o->alloc_rate, .threshold = ALLOC_CLI_THRESHOLD };

	memset(&src, 0, sizeof(src));
	src.kind = "live";
	src.exit_status = -1;
	sys = cli_open_sys(g);
	if (!sys)
		goto out;
	if (!pms_sys_is_live(sys)) {
		fprintf(stderr, "pmuscope: c2c: records this machine only; --root %s is a snapshot\n",
			pms_sys_root(sys));
		goto out;
	}
	if (pms_pmus_load(sys, &pmus) < 0 || pms_topo_load(sys, &topo) < 0) {
		cli_fail("c2c: PMU discovery / topology");
		goto out;
	}
	/* the run: a command held at its processes' exits until their lines'
	 * nodes are asked about; -p/-a resolved on a short timer */
	struct pms_sampler_opts so = PMS_SAMPLER_OPTS_INIT;
	so.period = o->period;
	so.want_phys = o->phys;
	so.engine = o->engine;
	struct pms_liverun_opts lo = PMS_LIVERUN_OPTS_INIT;
	lo.target = o->system ? PMS_LIVERUN_SYSTEM : o->pid ? PMS_LIVERUN_PID : PMS_LIVERUN_COMMAND;
	lo.argv = o->cmd;
	lo.hold_exits = o->cmd && !o->no_hold;
	lo.hold_budget_ms = o->hold_budget;
	lo.pid = o->pid;
	lo.sampler = &so;
	lo.resolve = true;
	lo.duration_s = o->duration;
	lo.catch_signals = true;
	/* a live run shows no kernel address its caller may not see (the rule
	 * of `pmuscope mem`: proc/kallsyms hides them from this caller) */
	struct pms_session_opts sopt = PMS_SESSION_OPTS_INIT;
	sopt.c2c_opts = &o->mo;
	sopt.symbols = o->symbols;
	sopt.kernel_visible = pms_kernel_addrs_visible(sys);
	/* a started command's allocations: each line's site (docs/mem.md) */
	if (o->cmd && !o->no_alloc && alloc_cli_prepare(&ac, o->cmd) < 0)
		goto out;
	so.clock_monotonic = ac.fd >= 0;
	int orc = pms_session_open_live(sys, pmus, topo, &lo, &sopt, &ses);
	alloc_cli_restore(&ac);
	if (orc == 0 && ac.fd >= 0) {
		int afd = ac.fd;
		ac.fd = -1; /* the session's now */
		if (pms_session_set_alloc(ses, afd, ac.rate, ac.threshold) < 0)
			fprintf(stderr, "pmuscope: c2c: allocations are not tracked: %s\n",
				pms_error_last());
	}
	if (ac.why[0])
		fprintf(stderr, "pmuscope: c2c: %s\n", ac.why);
	if (orc < 0) {
		fprintf(stderr, "pmuscope: c2c: %s\n", pms_error_last());
		goto out;
	}
	if (o->out) {
		/* 0600 as perf: samples show code and data addresses; no
		 * kernel addresses for a caller that kallsyms hides them from */
		outfd = open(o->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		struct pms_recorder_opts ro = PMS_RECORDER_OPTS_INIT;
		ro.hide_kernel_ips = !sopt.kernel_visible;
		if (outfd < 0) {
			fprintf(stderr, "pmuscope: c2c: -o %s: %s\n", o->out, strerror(errno));
			goto out;
		}
		if (pms_session_record(ses, outfd, &ro) < 0) {
			cli_fail("c2c: perf.data");
			goto out;
		}
	}
	pms_session_result(ses, &res);
	if (lo.hold_exits && !res.holding)
		cli_warn_no_hold("c2c", res.hold_why,
				 "lines of a process that exits before they are asked about have "
				 "no node");
	if (pms_session_start(ses) < 0) {
		if (o->cmd)
			ret = cli_exec_failed("c2c", o->cmd[0]);
		else
			cli_fail("c2c: enabling the sampler");
		goto out;
	}
	if (pms_session_run(ses) < 0)
		cli_fail("c2c: reading samples");
	(void)pms_session_finish(ses);
	cli_warn_left_running("c2c", ses);
	pms_session_result(ses, &res);
	if (res.have_status)
		src.exit_status = res.status;
	struct pms_recorder *recd = pms_session_recorder(ses);
	if (recd && res.write_error) {
		fprintf(stderr, "pmuscope: c2c: writing %s failed: %s; the %" PRIu64
				" records before the failure are readable\n",
			o->out, res.write_message, pms_recorder_records(recd));
	} else if (recd) {
		fprintf(stderr, "pmuscope: c2c: wrote %" PRIu64 " records to %s\n",
			pms_recorder_records(recd), o->out);
	}
	if (o->cmd) {
		size_t p = (size_t)snprintf(src.what, sizeof(src.what), "command");
		for (char **a = o->cmd; *a && p + 2 < sizeof(src.what); a++)
			p += (size_t)snprintf(src.what + p, sizeof(src.what) - p, " %s", *a);
	} else if (o->pid) {
		snprintf(src.what, sizeof(src.what), "pid %d", (int)o->pid);
	} else {
		snprintf(src.what, sizeof(src.what), "system-wide");
	}
	ret = finish(o, ses, &src);
	if (recd && res.write_error)
		ret = 1; /* "1 ... recording failed" */
	if (ret == 0 && src.exit_status >= 0 && src.exit_status != 0) {
		char how[128];
		ret = pms_exit_describe(src.exit_status, how, sizeof(how));
		fprintf(stderr, "pmuscope: c2c: the command %s\n", how);
		if (ret < 0)
			ret = 1; /* a stop report: not a status to pass on */
	}
out:
	alloc_cli_done(&ac);
	pms_session_free(ses); /* owns the run, its source, the profile and the model */
	if (outfd >= 0)
		close(outfd);
	pms_topo_free(topo);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	return ret;
}

int cmd_c2c(const struct cli_global *g, int argc, char **argv)
{
	struct c2c_opts o;
	int rc = parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	return o.input ? run_file(g, &o) : run_live(g, &o);
}
