/* pmuscope record: overflow (IP) sampling of any event (perf record):
 * where the time goes -- hot functions and source lines, call paths --
 * and a perf.data file that perf reads. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "alloc_render.h"
#include "cli.h"
#include "cli_opt.h"
#include "cli_out.h"
#include "pmuscope/error.h"
#include "pmuscope/render_cmd.h"
#include "pmuscope/event.h"
#include "pmuscope/session.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/pathprof.h"
#include "pmuscope/recorder.h"
#include "pmuscope/report.h"
#include "pmuscope/sampler.h"
#include "pmuscope/symbols.h"
#include "pmuscope/util.h"


int cmd_record(const struct cli_global *g, int argc, char **argv);

enum { O_CALLGRAPH = 256, O_JSON, O_TOP, O_DURATION, O_FOLDED, O_NOFALLBACK, O_NOHOLD, O_NOALLOC,
       O_HOLD_BUDGET };

static const struct cli_opt opts[] = {
	{ "event", 'e', CLI_ARG, "EVENT",
	  'e', "what to sample, in perf's syntax (default cycles):\ncycles, instructions, cpu-clock, r1a8, cpu/.../, :u :k :p ..." },
	{ "freq", 'F', CLI_ARG, "HZ", 'F', "samples per second (default 4000, as perf)" },
	{ "count", 'c', CLI_ARG, "N", 'c', "one sample every N events (a period)" },
	{ "pid", 'p', CLI_ARG, "PID", 'p', "attach to PID (until it exits, Ctrl-C or --duration)" },
	{ "all-cpus", 'a', CLI_NOARG, NULL, 'a', "system-wide" },
	{ "cpu", 'C', CLI_ARG, "CPUS", 'C', "system-wide on these CPUs only (0-3,8)" },
	{ NULL, 'g', CLI_NOARG, NULL, 'g', "a call path with every sample: frame pointers" },
	{ "call-graph", 0, CLI_ARG, "MODE", O_CALLGRAPH, "fp, dwarf or dwarf,SIZE (perf record --call-graph)" },
	{ "branch-any", 'b', CLI_NOARG, NULL, 'b', "a branch stack with every sample (perf record -b)" },
	{ "branch-filter", 'j', CLI_ARG, "LIST", 'j', "branch stack of these types: any, call, any_ret,\nind_call, cond, ..., u, k (perf record -j)" },
	{ "output", 'o', CLI_ARG, "FILE", 'o', "also write the samples as perf.data to FILE" },
	{ "duration", 0, CLI_ARG, "SEC", O_DURATION, "stop after SEC seconds" },
	{ "no-hold", 0, CLI_NOARG, NULL, O_NOHOLD,
	  "do not hold the COMMAND's processes at exit (ptrace) to\n"
	  "read their mappings; a set-user-ID command keeps its\n"
	  "privileges only with --no-hold" },
	{ "hold-budget", 0, CLI_ARG, "MS", O_HOLD_BUDGET, CLI_HOLD_BUDGET_HELP },
	{ "no-alloc", 0, CLI_NOARG, NULL, O_NOALLOC,
	  "with -o and a COMMAND: do not track its allocations (by\n"
	  "default libpmuscope-alloc.so is preloaded and its records\n"
	  "go into the file for report -i; docs/mem.md)" },
	{ "no-fallback", 0, CLI_NOARG, NULL, O_NOFALLBACK, "fail instead of sampling cpu-clock when the event\nneeds a hardware PMU this machine does not have" },
	{ "top", 0, CLI_ARG, "N", O_TOP, "entries per top list (default 10)" },
	{ "folded", 0, CLI_ARG, "FILE", O_FOLDED, "with -g: every call path as folded stacks (flame graphs)" },
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "the report as JSON" },
	{ 0 },
};

const struct cli_spec cli_spec_record = {
	.name = "record",
	.synopsis = "record [OPTIONS] -- COMMAND ...  sample a command\n"
		    "record [OPTIONS] -p PID          attach to a process\n"
		    "record [OPTIONS] -a | -C CPUS    system-wide",
	.description =
		"Overflow (IP) sampling, as perf record: program a counter to overflow\n"
		"every N events (-c) or about HZ times a second (-F), and take the\n"
		"instruction pointer, thread, CPU and (-g, --call-graph) call path at\n"
		"each overflow.  On hybrid / big.LITTLE machines a generic event opens\n"
		"once per core PMU, each on its own CPUs.  Without a hardware PMU (a\n"
		"VM) a hardware event is replaced by cpu-clock, and the report says so.\n\n"
		"The report: hot functions, hot source lines, call paths (by samples);\n"
		"-o writes a perf.data file perf report / perf script read.",
	.opts = opts,
	.footer = "Exit status: the command's when one was run; 1 failure, 2 usage error.",
	.stop_at_operand = true,
};

/* The report: --json on stdout; the text on stdout, or on stderr for a
 * COMMAND (perf stat's rule, docs/cli.md: its stdout stays its own). */
static void record_print(const char *event, bool json, bool cmd, const struct pms_memsrc_info *si,
			 const struct pms_memsrc_attr *attrs, size_t nattrs,
			 const struct pms_memreport *rep, const struct pms_pathreport *prep,
			 const struct pms_memsrc_stats *sst, double secs)
{
	FILE *saved_stdout = cli_stdout_to(cmd && !json ? stderr : stdout);
	if (json) {
		struct pms_json j;
		pms_json_init(&j, stdout);
		pms_render_record_json(&j, event, si, attrs, nattrs, rep, prep, sst, secs);
		cli_json_finish(&j);
	} else {
		pms_render_record_text(stdout, event, si, attrs, nattrs, rep, prep, sst, secs);
	}
	cli_stdout_to(saved_stdout);
}

struct record_opts {
	const char *event, *out, *folded;
	struct pms_sampler_opts so;
	struct pms_cpuset cpus;
	bool json, system, no_hold, no_alloc;
	double hold_budget, duration;
	size_t top;
	pid_t pid;
	char **cmd;
};

/* -1: go on; else the exit status (a usage error printed). */
static int record_parse(int argc, char **argv, struct record_opts *o)
{
	*o = (struct record_opts){ .event = "cycles", .so = PMS_SAMPLER_OPTS_INIT, .top = 10,
				   .pid = -1 };
	long v;
	int c;

	struct cli_parser p;
	cli_parser_init(&p, &cli_spec_record, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		switch (c) {
		case 'e': o->event = p.arg; break;
		case 'F':
			if (cli_parse_long(p.arg, 1, 1000000, &v) < 0)
				return cli_bad_arg(&p, "samples per second 1..1000000");
			o->so.freq = (uint64_t)v;
			break;
		case 'c':
			if (cli_parse_long(p.arg, 1, 0x7fffffffffffffffL, &v) < 0)
				return cli_bad_arg(&p, "a positive count");
			o->so.period = (uint64_t)v;
			break;
		case 'p':
			if (cli_parse_long(p.arg, 1, 0x7fffffff, &v) < 0)
				return cli_bad_arg(&p, "a process id");
			o->pid = (pid_t)v;
			break;
		case 'a': o->system = true; break;
		case 'C':
			pms_cpuset_fini(&o->cpus);
			if (pms_cpuset_parse_list(&o->cpus, p.arg) < 0 || pms_cpuset_count(&o->cpus) <= 0) {
				pms_cpuset_fini(&o->cpus);
				return cli_bad_arg(&p, "a CPU list such as 0-3,8");
			}
			o->system = true;
			break;
		case 'g':
			if (o->so.callgraph == PMS_CALLGRAPH_NONE)
				o->so.callgraph = PMS_CALLGRAPH_FP;
			break;
		case O_CALLGRAPH:
			if (pms_callgraph_parse(p.arg, &o->so.callgraph, &o->so.stack_size) < 0) {
				pms_cpuset_fini(&o->cpus);
				return cli_usage(&cli_spec_record, "--call-graph: %s", pms_error_last());
			}
			break;
		case 'o': o->out = p.arg; break;
		case 'b': o->so.branch_filter |= 1ULL << 3; break; /* PERF_SAMPLE_BRANCH_ANY */
		case 'j':
			if (pms_branch_filter_parse(p.arg, &o->so.branch_filter) < 0) {
				pms_cpuset_fini(&o->cpus);
				return cli_usage(&cli_spec_record, "-j: %s", pms_error_last());
			}
			break;
		case O_DURATION:
			if (cli_parse_double(p.arg, 0.001, 1e9, &o->duration) < 0)
				return cli_bad_arg(&p, "seconds > 0");
			break;
		case O_NOFALLBACK: o->so.no_fallback = true; break;
		case O_NOALLOC: o->no_alloc = true; break;
		case O_NOHOLD: o->no_hold = true; break;
		case O_HOLD_BUDGET:
			if (cli_hold_budget(p.arg, &o->hold_budget) < 0) {
				pms_cpuset_fini(&o->cpus);
				return cli_bad_arg(&p, CLI_HOLD_BUDGET_WANT);
			}
			break;
		case O_TOP:
			if (cli_parse_long(p.arg, 1, 100000, &v) < 0)
				return cli_bad_arg(&p, "1..100000");
			o->top = (size_t)v;
			break;
		case O_FOLDED: o->folded = p.arg; break;
		case O_JSON: o->json = true; break;
		}
	}
	if (c != CLI_END) {
		pms_cpuset_fini(&o->cpus);
		return cli_exit_code(c);
	}
	o->cmd = p.ind < argc ? argv + p.ind : NULL;
	if ((o->cmd != NULL) + (o->pid > 0) + o->system != 1) {
		pms_cpuset_fini(&o->cpus);
		return cli_usage(&cli_spec_record, "say what to sample: -- COMMAND, -p PID, -a or -C CPUS "
						   "(one of them)");
	}
	if (o->so.freq && o->so.period) {
		pms_cpuset_fini(&o->cpus);
		return cli_usage(&cli_spec_record, "-F and -c exclude each other");
	}
	if (o->folded && o->so.callgraph == PMS_CALLGRAPH_NONE) {
		pms_cpuset_fini(&o->cpus);
		return cli_usage(&cli_spec_record, "--folded needs call paths (-g or --call-graph)");
	}
	return -1;
}

/* The live machine: its PMUs and topology; -1 (said) on failure. */
static int record_machine(const struct cli_global *g, struct pms_sys **sys,
			  struct pms_pmus **pmus, struct pms_topo **topo)
{
	*sys = cli_open_sys(g);
	if (!*sys)
		return -1;
	if (!pms_sys_is_live(*sys)) {
		fprintf(stderr, "pmuscope: record: records this machine only; --root %s is a snapshot\n",
			pms_sys_root(*sys));
		return -1;
	}
	if (pms_pmus_load(*sys, pmus) < 0) {
		cli_fail("record: PMU discovery");
		return -1;
	}
	if (pms_topo_load(*sys, topo) < 0) {
		cli_fail("record: topology");
		return -1;
	}
	return 0;
}

/* --folded FILE written: 0, the file's exit status, or -1 (said). */
static int record_folded(struct cli_out *fold_o, const char *folded,
			 const struct pms_pathreport *prep)
{
	FILE *f = cli_out_stream(fold_o);
	if (!f || pms_render_callpath_folded(f, prep) < 0) {
		fprintf(stderr, "pmuscope: record: --folded %s: out of memory\n", folded);
		return -1;
	}
	return cli_out_commit(fold_o);
}

/* The session opened; with -o and a started command its allocations are
 * tracked (docs/mem.md: the preload's records go into the file for report
 * -i), -p and -a say why not.  0, or -1 (said). */
static int record_open(struct pms_sys *sys, struct pms_pmus *pmus, struct pms_topo *topo,
		       const struct record_opts *o, struct pms_sampler_opts *so,
		       struct pms_liverun_opts *lo, const struct pms_session_opts *sopt,
		       struct alloc_cli *ac,
		       struct pms_session **ses)
{
	if (o->cmd && o->out && !o->no_alloc) {
		ac->want = true;
		if (alloc_cli_prepare(ac, o->cmd) < 0)
			return -1;
		/* the records' clock */
		so->clock_monotonic = ac->fd >= 0; /* lo->sampler */
	} else if (o->out && !o->no_alloc) {
		snprintf(ac->why, sizeof(ac->why),
			 "allocations are not tracked: %s, and the allocation tracker is preloaded "
			 "only into a command pmuscope starts (pmuscope record -o FILE -- CMD)",
			 o->pid > 0 ? "-p attaches to a process already running"
				    : "-a samples processes already running");
	}
	int orc = pms_session_open_live(sys, pmus, topo, lo, sopt, ses);
	alloc_cli_restore(ac);
	if (orc == 0 && ac->fd >= 0) {
		int afd = ac->fd;
		ac->fd = -1; /* the session's now */
		if (pms_session_set_alloc(*ses, afd, ac->rate, ac->threshold) < 0)
			snprintf(ac->why, sizeof(ac->why), "allocations are not tracked: %s",
				 pms_error_last());
	}
	if (ac->why[0])
		fprintf(stderr, "pmuscope: record: %s\n", ac->why);
	if (orc < 0) {
		fprintf(stderr, "pmuscope: record: %s\n", pms_error_last());
		return -1;
	}
	return 0;
}

int cmd_record(const struct cli_global *g, int argc, char **argv)
{
	struct record_opts o;
	int prc = record_parse(argc, argv, &o);
	if (prc >= 0)
		return prc;
	const char *event = o.event, *out = o.out, *folded = o.folded;
	struct pms_sampler_opts so = o.so;
	struct pms_cpuset cpus = o.cpus;
	bool json = o.json, system = o.system, no_hold = o.no_hold;
	double hold_budget = o.hold_budget, duration = o.duration;
	size_t top = o.top;
	pid_t pid = o.pid;
	char **cmd = o.cmd;

	int rc = 1, exit_code = 1, outfd = -1;
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_topo *topo = NULL;
	struct pms_session *ses = NULL;
	struct pms_memsrc *src = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_pathreport *prep = NULL;
	struct pms_liverun_result res;
	struct cli_out fold_o, out_o;
	struct alloc_cli ac = { .fd = -1, .rate = ALLOC_CLI_RATE, .threshold = ALLOC_CLI_THRESHOLD };

	/* the outputs before anything runs (new files, 0600: cli_out.h) */
	(void)cli_out_open(&out_o, "record", "-o", NULL, CLI_OUT_PERFDATA);
	if ((exit_code = cli_out_open(&fold_o, "record", "--folded", folded, CLI_OUT_REPLACE))) {
		rc = 0;
		goto out;
	}
	exit_code = 1;
	if (record_machine(g, &sys, &pmus, &topo) < 0)
		goto out;
	if (pid > 0 && kill(pid, 0) < 0 && errno == ESRCH) {
		fprintf(stderr, "pmuscope: record: no process %d\n", (int)pid);
		goto out;
	}
	bool kvis = pms_kernel_addrs_visible(sys);
	so.event = event;
	so.cpus = cpus;
	/* the run: the command held at its processes' exits (their maps are
	 * read there), signals forwarded, --duration */
	struct pms_liverun_opts lo = PMS_LIVERUN_OPTS_INIT;
	lo.target = system ? PMS_LIVERUN_SYSTEM : cmd ? PMS_LIVERUN_COMMAND : PMS_LIVERUN_PID;
	lo.argv = cmd;
	lo.hold_exits = cmd != NULL && !no_hold;
	lo.hold_budget_ms = hold_budget;
	lo.pid = pid;
	lo.sampler = &so;
	lo.duration_s = duration;
	lo.catch_signals = true;
	/* the session: the run, its profile (the run's pid) and the call
	 * paths (kernel frames only where kallsyms shows them) */
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.top = top;
	struct pms_pathprof_opts pp = PMS_PATHPROF_OPTS_INIT;
	pp.top = top;
	pp.hide_kernel = !kvis;
	pp.kept_samples = true;
	struct pms_session_opts sopt = PMS_SESSION_OPTS_INIT;
	sopt.profile_opts = &po;
	sopt.paths_opts = so.callgraph != PMS_CALLGRAPH_NONE || so.branch_filter ? &pp : NULL;
	sopt.kernel_visible = kvis;
	if (record_open(sys, pmus, topo, &o, &so, &lo, &sopt, &ac, &ses) < 0)
		goto out;
	src = pms_session_source(ses, 0);
	pid = pms_session_pid(ses);
	pms_session_result(ses, &res);
	if (lo.hold_exits && !res.holding)
		cli_warn_no_hold("record", res.hold_why,
				 "a process that exits early may show [unknown] functions");
	if (out) {
		struct pms_recorder_opts ro = PMS_RECORDER_OPTS_INIT;
		ro.hide_kernel_ips = !kvis;
		if ((exit_code = cli_out_open(&out_o, "record", "-o", out, CLI_OUT_PERFDATA))) {
			rc = 0;
			goto out;
		}
		exit_code = 1;
		outfd = out_o.fd;
		if (pms_session_record(ses, outfd, &ro) < 0) {
			fprintf(stderr, "pmuscope: record: -o %s: %s\n", out, pms_error_last());
			exit_code = CLI_EXIT_IO;
			cli_out_remove(&out_o); /* not a perf.data file: nothing is left */
			rc = 0;
			goto out;
		}
	}
	if (pms_session_start(ses) < 0) {
		if (cmd) {
			exit_code = cli_exec_failed("record", cmd[0]);
			rc = 0;
		} else {
			cli_fail("record: enabling the sampler");
		}
		goto out;
	}
	if (pms_session_run(ses) < 0)
		cli_fail("record: reading samples");
	if (pms_session_finish(ses) < 0) {
		pms_session_result(ses, &res);
		fprintf(stderr, "pmuscope: record: writing %s failed: %s\n", out, res.write_message);
	}
	cli_warn_left_running("record", ses);
	pms_session_result(ses, &res);
	double secs = res.seconds;

	struct pms_memsrc_info si;
	struct pms_memsrc_stats sst;
	pms_memsrc_info(src, &si);
	pms_memsrc_stats(src, &sst);
	struct pms_memreport_input in = { .duration_ns = (uint64_t)(secs * 1e9) };
	if (pms_session_report(ses, &in, &rep, &prep) < 0) {
		cli_fail("record: building the report");
		goto out;
	}
	if (folded && (exit_code = record_folded(&fold_o, folded, prep)) != 0) {
		rc = exit_code < 0;
		goto out;
	}
	const struct pms_memsrc_attr *attrs;
	size_t nattrs = 0;
	attrs = pms_memsrc_attrs(src, &nattrs);
	record_print(event, json, cmd != NULL, &si, attrs, nattrs, rep, prep, &sst, secs);
	cli_warn_loss("record", rep->samples, sst.lost_total);
	exit_code = 0;
	if (res.have_status && pms_exit_code(res.status) >= 0)
		exit_code = pms_exit_code(res.status);
	if (res.write_error)
		exit_code = 74;
	rc = 0;
out:
	pms_pathreport_free(prep);
	pms_memreport_free(rep);
	pms_session_free(ses); /* the run goes before the fd it wrote to */
	if (rc == 0 && cli_out_commit(&out_o))
		exit_code = CLI_EXIT_IO;
	cli_out_abandon(&out_o);
	cli_out_abandon(&fold_o);
	pms_topo_free(topo);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	pms_cpuset_fini(&cpus);
	alloc_cli_done(&ac);
	return rc ? 1 : exit_code;
}
