/* pmuscope mem: the memory-access profile with NUMA-node attribution.
 * Records with the best engine the machine offers (IBS, PEBS, SPE, or the
 * labelled software fallback), resolves every sampled data address to its
 * node while the process lives, and prints which instruction touched which
 * data, served from which level, how slowly, and from which node.
 * JSON schema and field meanings: docs/mem.md. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_opt.h"
#include "damon_render.h"
#include "mem_advise.h"
#include "mem_export.h"
#include "mem_render.h"
#include "alloc_render.h"
#include "pmuscope/damon.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/workload.h"
#include "pmuscope/session.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/numa.h"
#include "pmuscope/recorder.h"
#include "pmuscope/pmu.h"
#include "pmuscope/record.h"
#include "pmuscope/report.h"
#include "pmuscope/sampler.h"
#include "pmuscope/symbols.h"
#include "pmuscope/topo.h"
#include "pmuscope/util.h"

int cmd_mem(const struct cli_global *g, int argc, char **argv);

/* ---- options ------------------------------------------------------------- */

enum target_kind { T_WORKLOAD, T_COMMAND, T_PID, T_SYSTEM };

struct mem_opts {
	enum target_kind kind;
	struct pms_workload_opts wl;
	pid_t pid;
	double duration;
	enum pms_engine engine;
	uint64_t period, freq;
	size_t mmap_pages; /* 0: the sampler's default */
	unsigned ops, ldlat;
	enum pms_sampler_priv priv;
	bool phys, strict, verify, json, samples, csv, quiet, progress;
	bool no_hold, per_process, per_thread, no_demangle, no_inline;
	double hold_budget; /* --hold-budget ms; 0: the library's default, < 0: none */
	bool adapt; /* --adapt: raise the period and ring on loss */
	const char *out;
	const char *report_file;
	size_t top;
	char **cmd;
	bool run_workload; /* internal: this process is the workload */
	enum pms_callgraph cg; /* -g / --call-graph */
	uint32_t cg_stack;
	uint64_t branches;     /* -b / -j: branch_sample_type */
	uint64_t spe_evf, spe_invevf, spe_invdsf; /* --spe-*-filter */
	bool spe_filters;
	bool advise, apply; /* --advise, --apply (docs/advise.md) */
	struct mem_export exp; /* --html, --pprof, --folded */
	bool no_alloc;         /* --no-alloc */
	uint64_t alloc_rate, alloc_threshold; /* --alloc-rate, --alloc-threshold */
	bool types; /* --types: data types and members (docs/types.md) */
};

enum {
	O_SIZE = 256, O_NODE, O_THREADS, O_STEPS, O_DURATION, O_ENGINE, O_PERIOD, O_ADAPT, O_PHYS,
	O_VERIFY, O_STRICT, O_JSON, O_SAMPLES, O_CSV, O_TOP, O_QUIET, O_PROGRESS, O_HELP, O_RUNWL,
	O_REPORTFD, O_RELEASEFD, O_REPORTFILE, O_LDLAT, O_USER, O_KERNEL, O_ADVISE, O_APPLY,
	O_CALLGRAPH = 400,
	O_MMAP_PAGES,
	O_NOHOLD, O_PERPROC, O_PERTHREAD, O_NODEMANGLE, O_NOINLINE,
	O_SPE_EVF, O_SPE_INVEVF, O_SPE_INVDSF, O_SPE_DSRC, O_HOLD_BUDGET,
	O_NOALLOC, O_ALLOC_RATE, O_ALLOC_THRESHOLD, O_TYPES,
};

static const struct cli_opt opts[] = {
	{ NULL, 0, 0, NULL, 0, "Built-in workload (a dependent pointer chase over a random cycle):" },
	{ "size", 0, CLI_ARG, "BYTES", O_SIZE, "buffer size (K/M/G suffixes; default 64M)" },
	{ "node", 0, CLI_ARG, "N", O_NODE, "bind the buffer to node N (default: first touch)" },
	{ "threads", 0, CLI_ARG, "N", O_THREADS, "chasing threads (default 1)" },
	{ "steps", 0, CLI_ARG, "N", O_STEPS,
	  "dependent loads per thread (default: one lap,\nthe buffer's word count)" },
	{ NULL, 0, 0, NULL, 0, "Recording:" },
	{ "pid", 'p', CLI_ARG, "PID", 'p', "attach to PID (until it exits, Ctrl-C or --duration)" },
	{ "all-cpus", 'a', CLI_NOARG, NULL, 'a', "system-wide (nodes only from physical addresses)" },
	{ "duration", 0, CLI_ARG, "SEC", O_DURATION, "stop after SEC seconds" },
	{ "engine", 0, CLI_ARG, "NAME", O_ENGINE, "ibs, pebs, spe, damon or software (default: best available;\ndamon before software: pmuscope mem --engine damon --help)" },
	{ "period", 0, CLI_ARG, "N", O_PERIOD, "sample period (default: the engine's)" },
	{ "count", 'c', CLI_ARG, "N", 'c', "the same as --period (perf record -c)" },
	{ "mmap-pages", 'm', CLI_ARG, "N", O_MMAP_PAGES,
	  "ring buffer data pages per ring (a power of two) or a size\n"
	  "with a K/M/G suffix rounded up to one (perf record -m;\n"
	  "default 512K, perf's)" },
	{ "freq", 'F', CLI_ARG, "HZ", 'F', "sample at HZ samples per second instead of a period\n(perf record -F)" },
	{ "adapt", 0, CLI_NOARG, NULL, O_ADAPT,
	  "when the kernel drops samples (ring full), reopen the\n"
	  "events with a larger period and ring and go on; the\n"
	  "report lists each change; with -o every sample in the\n"
	  "file carries its period, which perf report weights by" },
	{ "type", 't', CLI_ARG, "OPS", 't', "load, store or load,store: the memory operations to\nsample (perf mem -t; default both)" },
	{ "ldlat", 0, CLI_ARG, "CYCLES", O_LDLAT, "load-latency threshold (perf mem --ldlat; PEBS, IBS)" },
	{ "event", 'e', CLI_ARG, "EVENT", 'e',
	  "perf mem's event names: mem-loads / ldlat-loads (= -t load),\n"
	  "mem-stores / ldlat-stores (= -t store); 'list' lists them.\n"
	  "The engine's own event is chosen for it (see --engine)" },
	{ "all-user", 'U', CLI_NOARG, NULL, O_USER, "sample user space only (perf mem -U)" },
	{ "all-kernel", 'K', CLI_NOARG, NULL, O_KERNEL, "sample the kernel only (perf mem -K)" },
	{ "phys", 0, CLI_NOARG, NULL, O_PHYS, "ask for physical addresses (privileged)" },
	{ "strict", 0, CLI_NOARG, NULL, O_STRICT,
	  "an option the chosen engine cannot honour (-t load on\nsoftware, --ldlat ...) is an error, not a note" },
	{ "spe-event-filter", 0, CLI_ARG, "MASK", O_SPE_EVF,
	  "Arm SPE: keep records with all these events (the\narm_spe event_filter term, PMSEVFR_EL1; bit n = event n);\nimplies --engine spe, refused where the PMU lacks it" },
	{ "spe-inv-event-filter", 0, CLI_ARG, "MASK", O_SPE_INVEVF,
	  "Arm SPE: drop records with any of these events\n(inv_event_filter, PMSNEVFR_EL1, FEAT_SPEv1p2)" },
	{ "spe-inv-data-src-filter", 0, CLI_ARG, "MASK", O_SPE_INVDSF,
	  "Arm SPE: drop records with these data sources\n(inv_data_src_filter, PMSDSFR_EL1, FEAT_SPE_FDS; no\nkernel up to 6.12 has it: refused there)" },
	{ "spe-data-src", 0, CLI_ARG, "LIST", O_SPE_DSRC,
	  "Arm SPE: keep only records with these data sources\n(0-63, e.g. 0,3,8-11; written as the driver's inverted\ninv_data_src_filter = ~LIST, PMSDSFR_EL1 = LIST;\nFEAT_SPE_FDS, refused where the PMU lacks it)" },
	{ "no-hold", 0, CLI_NOARG, NULL, O_NOHOLD,
	  "do not hold the COMMAND's processes at exit (ptrace) to\n"
	  "resolve their pages; a set-user-ID command keeps its\n"
	  "privileges only with --no-hold (docs/mem.md)" },
	{ "hold-budget", 0, CLI_ARG, "MS", O_HOLD_BUDGET, CLI_HOLD_BUDGET_HELP },
	{ "no-alloc", 0, CLI_NOARG, NULL, O_NOALLOC,
	  "do not track the COMMAND's allocations (by default\n"
	  "libpmuscope-alloc.so is preloaded and samples are\n"
	  "attributed to allocation sites; docs/mem.md)" },
	{ "alloc-rate", 0, CLI_ARG, "BYTES", O_ALLOC_RATE,
	  "track allocations sampled by bytes, one per BYTES on\naverage (default 32K; 0: every allocation)" },
	{ "alloc-threshold", 0, CLI_ARG, "BYTES", O_ALLOC_THRESHOLD,
	  "always track allocations of BYTES and more (default 64K)" },
	{ "verify-node", 0, CLI_NOARG, NULL, O_VERIFY,
	  "cross-check page nodes with get_mempolicy (built-in\n"
	  "workload: every buffer page, in the workload itself)" },
	{ NULL, 0, 0, NULL, 0, "Output:" },
	{ NULL, 'g', CLI_NOARG, NULL, 'g', "a call path with every sample: frame pointers\n(perf record -g)" },
	{ "call-graph", 0, CLI_ARG, "MODE", O_CALLGRAPH,
	  "fp, dwarf or dwarf,SIZE (bytes of stack copied per\nsample, default 8192): how call paths are taken\n(perf record --call-graph)" },
	{ "branch-any", 'b', CLI_NOARG, NULL, 'b', "a branch stack with every sample: the last taken\nbranches before it (perf record -b; LBR, BRBE)" },
	{ "branch-filter", 'j', CLI_ARG, "LIST", 'j', "branch stack of these types: any, call, any_ret,\nind_call, cond, ..., u, k (perf record -j)" },
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "everything as JSON (schema: docs/mem.md)" },
	{ "samples", 0, CLI_NOARG, NULL, O_SAMPLES, "with --json: every sample too" },
	{ "csv", 0, CLI_NOARG, NULL, O_CSV, "one CSV row per sample" },
	{ "types", 0, CLI_NOARG, NULL, O_TYPES,
	  "after the report: data types and struct members of the\nsamples, as report --types on the -o file (docs/types.md)" },
	{ "output", 'o', CLI_ARG, "FILE", 'o', "also write the samples as perf.data to FILE" },
	{ "report-file", 0, CLI_ARG, "FILE", O_REPORTFILE,
	  "write the report (text, --json or --csv) to FILE instead\n"
	  "of stdout, apart from the COMMAND's output (perf stat -o)" },
	{ "top", 0, CLI_ARG, "N", O_TOP, "entries per top list (default 10)" },
	{ "per-process", 0, CLI_NOARG, NULL, O_PERPROC,
	  "a row per process: pid, command, samples, levels, latency,\nhome node, remote share (always in --json)" },
	{ "per-thread", 0, CLI_NOARG, NULL, O_PERTHREAD, "the same per thread (tid)" },
	{ "no-demangle", 0, CLI_NOARG, NULL, O_NODEMANGLE, "show C++/Rust symbols as they are in the binary" },
	{ "no-inline", 0, CLI_NOARG, NULL, O_NOINLINE, "DWARF call paths: no inlined frames (perf's)" },
	{ "progress", 0, CLI_NOARG, NULL, O_PROGRESS, "progress line on stderr (default when it is a terminal)" },
	{ "quiet", 'q', CLI_NOARG, NULL, O_QUIET, "no progress line" },
	MEM_EXPORT_CLI_OPTS,
	{ NULL, 0, 0, NULL, 0, "NUMA placement advice (docs/advise.md):" },
	{ "advise", 0, CLI_NOARG, NULL, O_ADVISE,
	  "after the report: for each hot data object and page range,\n"
	  "move it, interleave it, move the threads, or leave it, with\n"
	  "the reason, confidence, cost and the commands to do it" },
	{ "apply", 0, CLI_NOARG, NULL, O_APPLY,
	  "with --duration SEC: measure SEC, migrate what the advice\n"
	  "moves (move_pages), measure SEC again, print before/after\n"
	  "(a command, the workload or -p PID; implies --advise)" },
	/* internal: the re-executed built-in workload */
	{ "run-workload", 0, CLI_NOARG, NULL, O_RUNWL, NULL },
	{ "report-fd", 0, CLI_ARG, NULL, O_REPORTFD, NULL },
	{ "release-fd", 0, CLI_ARG, NULL, O_RELEASEFD, NULL },
	{ 0 },
};

const struct cli_spec cli_spec_mem = {
	.name = "mem",
	.synopsis = "mem [OPTIONS]                 profile the built-in workload\n"
		    "mem [OPTIONS] -- COMMAND ...  profile a command\n"
		    "mem [OPTIONS] -p PID          attach to a process\n"
		    "mem [OPTIONS] -a              system-wide",
	.description =
		"Sample memory accesses with the best precise engine this machine has\n"
		"(AMD IBS, Intel PEBS, Arm SPE; else software page-fault sampling, said\n"
		"so), resolve each data address to its NUMA node while the process\n"
		"lives (batched move_pages, cached per page), and report data-source\n"
		"levels, latency percentiles, home node vs elsewhere, the CPU-node x\n"
		"memory-node matrix, and top instructions, functions and data objects.",
	.opts = opts,
	.footer = "Exit status: the command's exit status; 128+N when a signal N ended it;\n"
		  "1 when pmuscope itself failed, 2 usage error; 0 for -p/-a and the\n"
		  "built-in workload, also when nothing was sampled (then the report and\n"
		  "stderr say why and what to try).",
	.stop_at_operand = true,
};

/* perf mem -t: "load", "store", "load,store" (also "ldlat-loads" ...). */
static int parse_ops(const char *s, unsigned *ops)
{
	unsigned v = 0;
	while (*s) {
		size_t n = strcspn(s, ",");
		if ((n == 4 && !strncmp(s, "load", 4)) || (n == 5 && !strncmp(s, "loads", 5)))
			v |= PMS_SAMPLER_LOADS;
		else if ((n == 5 && !strncmp(s, "store", 5)) || (n == 6 && !strncmp(s, "stores", 6)))
			v |= PMS_SAMPLER_STORES;
		else
			return -1;
		s += n;
		if (*s == ',')
			s++;
	}
	if (!v)
		return -1;
	*ops = v;
	return 0;
}

/* The sampling options (engine, period, event, filters, ring): 1 taken,
 * 0 not one of them, or CLI_HELP / CLI_USAGE (printed). */
static int parse_sampling(struct mem_opts *o, int c, const char *arg)
{
	long v;
	switch (c) {
	case O_ENGINE:
		if (mem_engine_parse(arg, &o->engine) < 0) {
			fprintf(stderr, "pmuscope: mem: --engine '%s': want ibs, pebs, spe, damon or software\n",
				arg);
			return CLI_USAGE;
		}
		break;
	case 'F':
		if (cli_parse_long(arg, 1, 1000000, &v) < 0) {
			fprintf(stderr, "pmuscope: mem: -F '%s': want samples per second 1..1000000\n", arg);
			return CLI_USAGE;
		}
		o->freq = (uint64_t)v;
		break;
	case 't':
		if (parse_ops(arg, &o->ops) < 0) {
			fprintf(stderr, "pmuscope: mem: -t '%s': want load, store or load,store\n", arg);
			return CLI_USAGE;
		}
		break;
	case 'e':
		if (!strcmp(arg, "list")) {
			printf("mem-loads      (= -t load; ldlat-loads too)\n"
			       "mem-stores     (= -t store; ldlat-stores too)\n"
			       "the engine's event is chosen for each: ibs_op, PEBS mem-loads/mem-stores,\n"
			       "arm_spe, or software page faults (--engine)\n");
			return CLI_HELP;
		}
		if (!strcmp(arg, "mem-loads") || !strcmp(arg, "ldlat-loads")) {
			o->ops |= PMS_SAMPLER_LOADS;
		} else if (!strcmp(arg, "mem-stores") || !strcmp(arg, "ldlat-stores")) {
			o->ops |= PMS_SAMPLER_STORES;
		} else {
			fprintf(stderr, "pmuscope: mem: -e '%s': mem samples with the engine's own "
					"event; say what to sample with -t load|store and which "
					"engine with --engine ibs|pebs|spe|software (to count any "
					"event: pmuscope stat -e)\n", arg);
			return CLI_USAGE;
		}
		break;
	case O_LDLAT:
		if (cli_parse_long(arg, 1, 65535, &v) < 0) {
			fprintf(stderr, "pmuscope: mem: --ldlat '%s': want cycles 1..65535\n", arg);
			return CLI_USAGE;
		}
		o->ldlat = (unsigned)v;
		break;
	case O_SPE_EVF:
	case O_SPE_INVEVF:
	case O_SPE_INVDSF: {
		char *end;
		errno = 0;
		unsigned long long m = strtoull(arg, &end, 0);
		if (errno || end == arg || *end || strchr(arg, '-') || !m) {
			fprintf(stderr, "pmuscope: mem: --%s '%s': want a non-zero bit mask "
					"(e.g. 0x8 for event 3)\n",
				c == O_SPE_EVF ? "spe-event-filter"
				: c == O_SPE_INVEVF ? "spe-inv-event-filter"
						    : "spe-inv-data-src-filter",
				arg);
			return CLI_USAGE;
		}
		*(c == O_SPE_EVF ? &o->spe_evf : c == O_SPE_INVEVF ? &o->spe_invevf
								 : &o->spe_invdsf) = m;
		o->spe_filters = true;
		break;
	}
	case O_SPE_DSRC: {
		/* a list of data-source numbers; arm_spe_pmu.c writes
		 * PMSDSFR_EL1 = ~inv_data_src_filter (FEAT_SPE_FDS series) */
		uint64_t keep = 0;
		if (pms_parse_bit_list(arg, &keep) < 0) {
			fprintf(stderr, "pmuscope: mem: --spe-data-src '%s': want data-source "
					"numbers 0-63 (e.g. 0,3,8-11)\n", arg);
			return CLI_USAGE;
		}
		o->spe_invdsf = ~keep;
		o->spe_filters = true;
		break;
	}
	case O_USER: o->priv = PMS_PRIV_USER; break;
	case O_KERNEL: o->priv = PMS_PRIV_KERNEL; break;
	case 'c':
	case O_PERIOD:
		if (cli_parse_long(arg, 1, 0x7fffffffffffffffL, &v) < 0) {
			fprintf(stderr, "pmuscope: mem: --period '%s': want a positive count\n", arg);
			return CLI_USAGE;
		}
		o->period = (uint64_t)v;
		break;
	case O_MMAP_PAGES: {
		int e = pms_parse_mmap_pages(arg, (size_t)sysconf(_SC_PAGESIZE), &o->mmap_pages);
		if (e == -1)
			fprintf(stderr, "pmuscope: mem: -m '%s': want a size (K/M/G)\n", arg);
		else if (e == -2)
			fprintf(stderr, "pmuscope: mem: -m '%s': want a power of two of pages "
					"or a size with K/M/G\n", arg);
		if (e < 0)
			return CLI_USAGE;
		break;
	}
	default:
	return 0;
	}
	return 1;
}

/* The built-in workload's options (and its internal ones): 1 taken, 0 not
 * one of them, or CLI_USAGE (printed). */
static int parse_workload(struct mem_opts *o, int c, const char *arg)
{
	long v;
	switch (c) {
	case O_SIZE:
		if (pms_parse_size(arg, &o->wl.size) < 0 || o->wl.size < 16) {
			fprintf(stderr, "pmuscope: mem: --size '%s': want bytes 16..1T (K/M/G suffixes)\n", arg);
			return CLI_USAGE;
		}
		break;
	case O_NODE:
		if (cli_parse_long(arg, 0, 1023, &v) < 0) {
			fprintf(stderr, "pmuscope: mem: --node '%s': want a node number 0..1023\n", arg);
			return CLI_USAGE;
		}
		o->wl.node = (int)v;
		break;
	case O_THREADS:
		if (cli_parse_long(arg, 1, 1024, &v) < 0) {
			fprintf(stderr, "pmuscope: mem: --threads '%s': want 1..1024\n", arg);
			return CLI_USAGE;
		}
		o->wl.threads = (int)v;
		break;
	case O_STEPS:
		if (cli_parse_long(arg, 1, 0x7fffffffffffffffL, &v) < 0) {
			fprintf(stderr, "pmuscope: mem: --steps '%s': want a positive count\n", arg);
			return CLI_USAGE;
		}
		o->wl.steps = (uint64_t)v;
		break;
	case O_RUNWL: o->run_workload = true; break;
	case O_REPORTFD:
		if (cli_parse_long(arg, 0, 1 << 20, &v) < 0)
			return CLI_USAGE;
		o->wl.report_fd = (int)v;
		break;
	case O_RELEASEFD:
		if (cli_parse_long(arg, 0, 1 << 20, &v) < 0)
			return CLI_USAGE;
		o->wl.release_fd = (int)v;
		break;
	default:
	return 0;
	}
	return 1;
}

static int check_opts(struct mem_opts *o, int argc, char **argv, int ind);

/* 0, or CLI_HELP / CLI_USAGE (printed) */
static int parse_opts(int argc, char **argv, struct mem_opts *o)
{
	struct cli_parser p;
	const char *arg;
	long v;
	int c;
	memset(o, 0, sizeof(*o));
	o->wl.size = 64u << 20;
	o->wl.node = -1;
	o->wl.threads = 1;
	o->wl.report_fd = -1;
	o->wl.release_fd = -1;
	o->kind = T_WORKLOAD;
	o->top = 10;
	o->alloc_rate = ALLOC_CLI_RATE;
	o->alloc_threshold = ALLOC_CLI_THRESHOLD;
	o->engine = PMS_ENG_NONE;
	cli_parser_init(&p, &cli_spec_mem, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		arg = p.arg;
		switch (c) {
		case 'p':
			if (cli_parse_long(arg, 1, 0x7fffffff, &v) < 0) {
				fprintf(stderr, "pmuscope: mem: -p '%s': want a process id\n", arg);
				return CLI_USAGE;
			}
			o->pid = (pid_t)v;
			o->kind = T_PID;
			break;
		case 'a':
			o->kind = T_SYSTEM;
			break;
		case O_DURATION: {
			char *end;
			o->duration = strtod(arg, &end);
			if (end == arg || *end || o->duration <= 0) {
				fprintf(stderr, "pmuscope: mem: --duration '%s': want seconds > 0\n", arg);
				return CLI_USAGE;
			}
			break;
		}
		case O_PHYS: o->phys = true; break;
		case O_STRICT: o->strict = true; break;
		case O_NOHOLD: o->no_hold = true; break;
		case O_NOALLOC: o->no_alloc = true; break;
		case O_ALLOC_RATE:
		case O_ALLOC_THRESHOLD: {
			size_t n;
			if (pms_parse_size(arg, &n) < 0) {
				fprintf(stderr, "pmuscope: mem: --%s '%s': want a size in bytes\n",
					c == O_ALLOC_RATE ? "alloc-rate" : "alloc-threshold", arg);
				return CLI_USAGE;
			}
			*(c == O_ALLOC_RATE ? &o->alloc_rate : &o->alloc_threshold) = n;
			break;
		}
		case O_HOLD_BUDGET:
			if (cli_hold_budget(arg, &o->hold_budget) < 0) {
				fprintf(stderr, "pmuscope: mem: --hold-budget '%s': want %s\n", arg,
					CLI_HOLD_BUDGET_WANT);
				return CLI_USAGE;
			}
			break;
		case O_PERPROC: o->per_process = true; break;
		case O_PERTHREAD: o->per_thread = true; break;
		case O_NODEMANGLE: o->no_demangle = true; break;
		case O_NOINLINE: o->no_inline = true; break;
		case O_ADAPT: o->adapt = true; break;
		case O_VERIFY: o->verify = true; break;
		case O_JSON: o->json = true; break;
		case 'g':
			if (o->cg == PMS_CALLGRAPH_NONE)
				o->cg = PMS_CALLGRAPH_FP;
			break;
		case O_CALLGRAPH:
			if (pms_callgraph_parse(arg, &o->cg, &o->cg_stack) < 0) {
				fprintf(stderr, "pmuscope: mem: --call-graph: %s\n", pms_error_last());
				return CLI_USAGE;
			}
			break;
		case 'b': o->branches |= 1ULL << 3; break; /* PERF_SAMPLE_BRANCH_ANY */
		case 'j':
			if (pms_branch_filter_parse(arg, &o->branches) < 0) {
				fprintf(stderr, "pmuscope: mem: -j: %s\n", pms_error_last());
				return CLI_USAGE;
			}
			break;
		case O_SAMPLES: o->samples = true; break;
		case O_CSV: o->csv = true; break;
		case O_TYPES: o->types = true; break;
		case 'o': o->out = arg; break;
		case O_REPORTFILE: o->report_file = arg; break;
		case O_TOP:
			if (cli_parse_long(arg, 1, 100000, &v) < 0) {
				fprintf(stderr, "pmuscope: mem: --top '%s': want 1..100000\n", arg);
				return CLI_USAGE;
			}
			o->top = (size_t)v;
			break;
		case O_QUIET: o->quiet = true; break;
		case O_ADVISE: o->advise = true; break;
		case O_APPLY: o->apply = o->advise = true; break;
		case O_PROGRESS: o->progress = true; break;
		default: {
			int sr = parse_sampling(o, c, arg);
			if (!sr)
				sr = parse_workload(o, c, arg);
			if (sr < 0)
				return sr;
			if (sr)
				break;
			int xr = mem_export_cli(&o->exp, &p, c);
			if (xr == 0)
				return cli_usage(&cli_spec_mem, "'%s' is not an option of mem", p.opt);
			if (xr != 1)
				return CLI_USAGE;
			break;
		}
		}
	}
	if (c != CLI_END)
		return c;
	return check_opts(o, argc, argv, p.ind);
}

/* The options together: 0, or CLI_USAGE (printed). */
static int check_opts(struct mem_opts *o, int argc, char **argv, int ind)
{
	if (ind < argc) {
		if (o->kind != T_WORKLOAD) {
			fprintf(stderr, "pmuscope: mem: a COMMAND cannot be combined with -p or -a\n");
			return CLI_USAGE;
		}
		o->kind = T_COMMAND;
		o->cmd = argv + ind;
	}
	/* SPE filters name the SPE engine: no fallback to another one that
	 * would sample unfiltered */
	if (o->spe_filters) {
		if (o->engine != PMS_ENG_NONE && o->engine != PMS_ENG_SPE) {
			fprintf(stderr, "pmuscope: mem: --spe-*-filter options are Arm SPE terms; "
					"they do not go with --engine %s\n",
				pms_engine_name(o->engine));
			return CLI_USAGE;
		}
		o->engine = PMS_ENG_SPE;
	}
	if (o->freq && o->period) {
		fprintf(stderr, "pmuscope: mem: -F and --period/-c exclude each other\n");
		return CLI_USAGE;
	}
	if (o->json + o->csv + o->exp.folded > 1) {
		fprintf(stderr, "pmuscope: mem: --json, --csv and --folded exclude each other\n");
		return CLI_USAGE;
	}
	if (o->exp.folded && o->kind == T_COMMAND && !o->exp.folded_to) {
		/* the command writes to this stdout too (issue 30) */
		fprintf(stderr, "pmuscope: mem: --folded with a COMMAND: its output would share "
				"stdout with the stacks; give --folded-to FILE (or --folded-to - "
				"to share it)\n");
		return CLI_USAGE;
	}
	if (o->advise && (o->csv || o->exp.folded || o->kind == T_SYSTEM)) {
		fprintf(stderr, "pmuscope: mem: --advise needs one process (not -a) and the text or "
				"--json report (not --csv or --folded)\n");
		return CLI_USAGE;
	}
	if (o->types && (o->csv || o->exp.folded || o->apply)) {
		fprintf(stderr, "pmuscope: mem: --types goes with the text or --json report (not "
				"--csv, --folded or --apply)\n");
		return CLI_USAGE;
	}
	if (o->apply && o->duration <= 0) {
		fprintf(stderr, "pmuscope: mem: --apply needs --duration SEC: it measures SEC, "
				"applies the advice, and measures SEC again\n");
		return CLI_USAGE;
	}
	return 0;
}

/* ---- recording ----------------------------------------------------------- */

/* One `mem` run: what the steps below share.  The session runs the
 * pipeline (include/pmuscope/session.h); this is its wiring from the
 * options and the report's rendering. */
struct mem_run;

struct outcome {
	bool have_status;
	int status;       /* wait status */
	bool interrupted; /* Ctrl-C / SIGTERM reached pmuscope */
	int stop_signal;
	bool timed_out;   /* --duration */
	bool target_gone; /* -p: the process went away */
	double seconds;
};

/* ---- main ---------------------------------------------------------------- */

struct mem_run {
	const struct cli_global *g;
	struct mem_opts *o;
	int argc;
	char **argv;
	int exit_code;
	struct pms_sys *sys;
	struct pms_pmus *pmus;
	struct pms_topo *topo;
	struct pms_session *ses;
	struct pms_memprof *prof;
	struct pms_memreport *rep;
	struct pms_pathreport *prep;
	struct mem_advise ma;
	struct pms_workload_child wc;
	struct outcome oc;
	struct pms_sampler_info info;
	struct cli_out rep_out, out_o;
	pid_t pid;
	bool kvis, show_progress, write_failed;
	int xrc, rrc; /* an export's, the report file's status */
	char **cargv;
	struct alloc_cli ac;
	struct pms_alloc_report *arep;
	struct pms_sampler_opts so;
	struct pms_sampler_unhonoured unh[8];
	size_t nunh;
	struct pms_liverun_opts lo;
	struct pms_memprof_opts po;
	struct pms_pathprof_opts pp;
	struct pms_session_opts sopt;
	struct pms_session_callbacks scb;
	struct pms_liverun_result res;
};

/* Each step: 0 go on, -1 pmuscope failed (exit 1), 1 the run ends with
 * r->exit_code (said). */

static void on_progress(void *ud, const struct pms_liverun_progress *p)
{
	const struct mem_run *r = ud;
	fprintf(stderr, "\rpmuscope mem: %.0f s, %zu samples, %" PRIu64 " lost   ", p->seconds,
		pms_memprof_count(pms_session_profile(r->ses)), p->lost);
}

/* Outputs, the machine, and the causes that need no run. */
static int mem_setup(struct mem_run *r)
{
	const struct mem_opts *o = r->o;
	/* every output opened before anything runs: a bad path costs no
	 * recording (new files, 0600: tools/cli_out.h) */
	(void)cli_out_open(&r->out_o, "mem", "-o", NULL, CLI_OUT_PERFDATA);
	if ((r->exit_code = cli_out_open(&r->rep_out, "mem", "--report-file", o->report_file,
					 CLI_OUT_REPLACE)) != 0 ||
	    (r->exit_code = mem_export_open(&r->o->exp, "mem")) != 0)
		return 1;
	r->sys = cli_open_sys(r->g);
	if (!r->sys)
		return -1;
	if (!pms_sys_is_live(r->sys)) {
		fprintf(stderr, "pmuscope: mem: records this machine only; --root %s is a snapshot\n",
			pms_sys_root(r->sys));
		return -1;
	}
	if (pms_pmus_load(r->sys, &r->pmus) < 0) {
		cli_fail("mem: PMU discovery");
		return -1;
	}
	if (pms_topo_load(r->sys, &r->topo) < 0) {
		cli_fail("mem: topology");
		return -1;
	}
	/* read before the sampler opens: between its open and its enable no
	 * slow work (a system-wide run misses what runs meanwhile) */
	/* only what reads it asks (call paths, the -o file): the answer
	 * reads the whole proc/kallsyms, 40 ms of system time (issue 21);
	 * the report asks the symbolizer, which reads it for the names */
	r->kvis = (o->cg != PMS_CALLGRAPH_NONE || o->branches || o->out) &&
		  pms_kernel_addrs_visible(r->sys);
	/* causes first, before anything runs */
	if (o->kind == T_PID && kill(o->pid, 0) < 0 && errno == ESRCH) {
		fprintf(stderr, "pmuscope: mem: no process %d\n", (int)o->pid);
		return -1;
	}
	if (o->wl.node >= 0 && o->kind == T_WORKLOAD && !pms_topo_node(r->topo, o->wl.node)) {
		char have[256];
		size_t len = 0;
		for (size_t i = 0; i < pms_topo_node_count(r->topo) && len < sizeof(have); i++)
			len += (size_t)snprintf(have + len, sizeof(have) - len, "%s%d", i ? ", " : "",
						pms_topo_node_at(r->topo, i)->id);
		fprintf(stderr, "pmuscope: mem: node %d does not exist (this machine has node%s %s)\n",
			o->wl.node, pms_topo_node_count(r->topo) == 1 ? "" : "s", have);
		return -1;
	}
	return 0;
}

/* No precise engine: DAMON before page faults (docs/damon.md);
 * PMUSCOPE_NO_DAMON keeps the automatic choice off (the test suites).
 * 1 when DAMON ran the whole command. */
static int mem_try_damon(struct mem_run *r)
{
	const struct mem_opts *o = r->o;
	if (o->engine != PMS_ENG_NONE || o->kind == T_SYSTEM || o->out || o->samples ||
	    o->advise || o->phys || o->verify || o->period || getenv("PMUSCOPE_NO_DAMON"))
		return 0;
	bool use_damon = false;
	char why[400];
	if (pms_damon_choose(r->sys, r->pmus, r->topo, &use_damon, why, sizeof(why)) < 0 ||
	    !use_damon)
		return 0;
	fprintf(stderr, "pmuscope: mem: engine damon: %s\n", why);
	int dr = mem_damon_main(r->g, r->argc, r->argv, why);
	if (dr == MEM_DAMON_FALLBACK)
		return 0;
	r->exit_code = dr;
	return 1;
}

/* The sampler's options from mem's. */
static void mem_sampler_opts(const struct mem_opts *o, struct pms_sampler_opts *so)
{
	*so = (struct pms_sampler_opts)PMS_SAMPLER_OPTS_INIT;
	so->period = o->period;
	so->freq = o->freq;
	so->data_pages = o->mmap_pages;
	so->adapt = o->adapt;
	so->ops = o->ops;
	so->ldlat = o->ldlat;
	so->priv = o->priv;
	so->want_phys = o->phys;
	so->engine = o->engine;
	so->callgraph = o->cg;
	so->stack_size = o->cg_stack;
	so->branch_filter = o->branches;
	so->spe_events = o->spe_evf;
	so->spe_not_events = o->spe_invevf;
	so->spe_inv_data_src = o->spe_invdsf;
	so->spe_filters_required = o->spe_filters;
}

/* The target, the sampler and the run's options; the preload set. */
static int mem_prepare(struct mem_run *r)
{
	const struct mem_opts *o = r->o;
	r->cargv = o->cmd;
	if (o->kind == T_WORKLOAD) {
		if (pms_workload_child_prepare(&r->wc, r->g->prog, &o->wl, o->verify) < 0) {
			fprintf(stderr, "pmuscope: mem: %s\n", pms_error_last());
			return -1;
		}
		r->cargv = r->wc.argv;
	}
	mem_sampler_opts(o, &r->so);
	r->show_progress = !o->quiet && cli_verbosity >= 0 && (o->progress || isatty(2));
	r->lo = (struct pms_liverun_opts)PMS_LIVERUN_OPTS_INIT;
	r->lo.target = o->kind == T_SYSTEM ? PMS_LIVERUN_SYSTEM
		       : o->kind == T_PID  ? PMS_LIVERUN_PID
					   : PMS_LIVERUN_COMMAND;
	r->lo.argv = r->cargv;
	/* A started command's processes are held at exit until their pages
	 * are resolved (ptrace exit stop); the built-in workload waits for
	 * its release on a pipe instead. */
	r->lo.hold_exits = o->kind == T_COMMAND && !o->no_hold;
	r->lo.hold_budget_ms = o->hold_budget;
	r->lo.pid = o->pid;
	r->lo.sampler = &r->so;
	r->lo.resolve = true;
	/* --apply ends the first measurement itself (mem_loop) */
	r->lo.duration_s = o->apply ? 0 : o->duration;
	/* SIGINT/SIGTERM are caught before the command is forked (reset to
	 * their default at exec: the command stays interruptible even where
	 * pmuscope was started with SIGINT ignored) and forwarded to it */
	r->lo.catch_signals = true;
	/* Allocation tracking: a started command gets the preload (its
	 * environment set here, put back once it is forked); -p and -a say
	 * why they cannot have it. */
	if (o->kind == T_COMMAND && !o->no_alloc) {
		r->ac.want = true;
		if (alloc_cli_prepare(&r->ac, r->cargv) < 0)
			return -1;
		/* the tracker's records and the samples on one clock */
		r->so.clock_monotonic = r->ac.fd >= 0;
	} else if ((o->kind == T_PID || o->kind == T_SYSTEM) && !o->no_alloc) {
		snprintf(r->ac.why, sizeof(r->ac.why),
			 "allocations are not tracked: %s, and the allocation tracker is preloaded "
			 "only into a command pmuscope starts (pmuscope mem -- CMD)",
			 o->kind == T_PID ? "-p attaches to a process already running"
					  : "-a samples processes already running");
	}
	return 0;
}

/* The session: the run, its profile (the run's pid), and -g's call paths
 * (kernel frames shown only where kallsyms shows them). */
static int mem_open(struct mem_run *r)
{
	const struct mem_opts *o = r->o;
	r->po = (struct pms_memprof_opts)PMS_MEMPROF_OPTS_INIT;
	r->po.functions_per_pid = o->kind == T_SYSTEM;
	r->po.top = o->top;
	r->po.home_name = "workload buffer (pointer chase)";
	/* the samples one by one only for what shows or reads them: a
	 * smaller form otherwise (issue 21: resident memory) */
	r->po.no_sample_list = !o->samples && !o->csv && !o->advise &&
			       !mem_export_wanted(&o->exp) && o->cg == PMS_CALLGRAPH_NONE &&
			       !o->branches && r->ac.fd < 0;
	r->pp = (struct pms_pathprof_opts)PMS_PATHPROF_OPTS_INIT;
	r->pp.top = o->top;
	r->pp.hide_kernel = !r->kvis;
	r->pp.kept_samples = true;
	r->pp.no_inline = o->no_inline;
	r->scb = (struct pms_session_callbacks){ NULL, NULL,
						 r->show_progress ? on_progress : NULL };
	r->sopt = (struct pms_session_opts)PMS_SESSION_OPTS_INIT;
	r->sopt.profile_opts = &r->po;
	r->sopt.paths_opts = o->cg != PMS_CALLGRAPH_NONE || o->branches ? &r->pp : NULL;
	r->sopt.demangle = !o->no_demangle;
	r->sopt.kernel_visible = r->kvis;
	r->sopt.callbacks = &r->scb;
	r->sopt.ud = r;
	int orc = pms_session_open_live(r->sys, r->pmus, r->topo, &r->lo, &r->sopt, &r->ses);
	alloc_cli_restore(&r->ac);
	if (orc == 0 && o->types && pms_session_set_types(r->ses) < 0) {
		fprintf(stderr, "pmuscope: mem: --types: %s\n", pms_error_last());
		return -1;
	}
	if (orc == 0 && r->ac.fd >= 0) {
		int afd = r->ac.fd;
		r->ac.fd = -1; /* the session's now */
		if (pms_session_set_alloc(r->ses, afd, r->ac.rate, r->ac.threshold) < 0)
			snprintf(r->ac.why, sizeof(r->ac.why), "allocations are not tracked: %s",
				 pms_error_last());
		else
			r->ma.track_sites = true; /* --advise per allocation site (issue 28) */
	}
	if (orc < 0) {
		char hint[512];
		fprintf(stderr, "pmuscope: mem: %s\n", pms_error_last());
		if (pms_session_permission_hint(r->sys, &r->lo, hint, sizeof(hint)))
			fprintf(stderr, "pmuscope: mem: %s\n", hint);
		return -1;
	}
	r->prof = pms_session_profile(r->ses);
	r->pid = o->kind == T_SYSTEM ? -1 : pms_session_pid(r->ses);
	pms_workload_child_started(&r->wc);
	pms_session_result(r->ses, &r->res);
	if (r->lo.hold_exits && !r->res.holding)
		cli_warn_no_hold("mem", r->res.hold_why,
				 "pages of a process that exits before they are asked about "
				 "count as \"process gone\"");
	pms_sampler_info(pms_session_sampler(r->ses), &r->info);
	/* options the engine cannot honour: said (the report has them), an
	 * error with --strict before anything runs (issue 30) */
	r->nunh = pms_sampler_unhonoured(r->info.engine, &r->so, r->unh,
					 sizeof(r->unh) / sizeof(r->unh[0]));
	if (mem_say_unhonoured("mem", r->info.engine, r->unh, r->nunh, o->strict,
			       o->json || o->csv || o->exp.folded)) {
		r->exit_code = 1;
		return 1;
	}
	if (!o->out)
		return 0;
	/* 0600 as perf, an existing file moved to .old (cli_out.h) */
	if ((r->exit_code = cli_out_open(&r->out_o, "mem", "-o", o->out, CLI_OUT_PERFDATA)) != 0)
		return 1;
	/* perf.data gets the same rule as the report: no kernel addresses
	 * for a caller that proc/kallsyms hides them from */
	struct pms_recorder_opts ro = PMS_RECORDER_OPTS_INIT;
	ro.hide_kernel_ips = !r->kvis;
	if (pms_session_record(r->ses, r->out_o.fd, &ro) < 0) {
		fprintf(stderr, "pmuscope: mem: -o %s: %s\n", o->out, pms_error_last());
		r->exit_code = CLI_EXIT_IO;
		cli_out_remove(&r->out_o); /* not a perf.data file: nothing is left */
		return 1;
	}
	return 0;
}

/* The run: started, stepped (the workload released once done, --apply's
 * switch), finished; the -o file's outcome said. */
static int mem_loop(struct mem_run *r)
{
	const struct mem_opts *o = r->o;
	if (pms_session_start(r->ses) < 0) {
		if (o->kind == T_WORKLOAD || o->kind == T_COMMAND) {
			r->exit_code = cli_exec_failed("mem", r->cargv[0]);
			return 1;
		}
		cli_fail("mem: enabling the sampler");
		return -1;
	}
	struct pms_workload_info *wi = &r->wc.wi;
	/* --apply's first measurement of the built-in workload lasts
	 * --duration from when the workload said where its buffer is: on a
	 * loaded machine it may take longer than that to start its chase */
	double t_from = o->kind == T_WORKLOAD ? -1 : 0;
	for (;;) {
		int sr = pms_session_step(r->ses);
		if (sr < 0)
			cli_fail("mem: reading samples");
		pms_workload_child_poll(&r->wc);
		if (wi->done && r->wc.relfd[1] >= 0) {
			/* the workload finished and waits: drain what is left
			 * while its pages still exist, then let it exit */
			(void)pms_session_drain(r->ses);
			pms_workload_child_release(&r->wc);
		}
		if (sr <= 0)
			break;
		double t = pms_session_elapsed(r->ses);
		if (t_from < 0 && wi->have)
			t_from = t;
		if (r->ma.apply && r->ma.phase == 0 && t_from >= 0 && t - t_from >= o->duration) {
			/* the first measurement is done: plan, migrate, measure again */
			(void)pms_session_drain(r->ses);
			if (wi->have)
				pms_memprof_set_home(r->prof, wi->home, wi->start, wi->start + wi->size);
			if (mem_advise_switch(&r->ma, r->sys, r->topo, r->pid, r->ses, t) < 0)
				return -1;
			r->prof = pms_session_profile(r->ses);
			pms_session_set_duration(r->ses, o->duration);
		}
	}
	if (r->show_progress)
		fprintf(stderr, "\n");
	/* The file is finished before anything is printed: a reader that
	 * closes stdout early (| head) must not cost the recording. */
	(void)pms_session_finish(r->ses);
	cli_warn_left_running("mem", r->ses);
	pms_workload_child_poll(&r->wc);
	pms_session_result(r->ses, &r->res);
	r->oc = (struct outcome){
		.have_status = r->res.have_status, .status = r->res.status,
		.interrupted = r->res.interrupted, .stop_signal = r->res.stop_signal,
		.timed_out = r->res.timed_out, .target_gone = r->res.target_gone,
		.seconds = r->res.seconds,
	};
	struct pms_recorder *recd = pms_session_recorder(r->ses);
	if (recd && r->res.write_error) {
		r->write_failed = true;
		fprintf(stderr, "pmuscope: mem: writing %s failed: %s; the %" PRIu64
				" records before the failure are readable (pmuscope report, "
				"perf report); free space or choose another -o\n",
			o->out, r->res.write_message, pms_recorder_records(recd));
	} else if (recd) {
		fprintf(stderr, "pmuscope: mem: wrote %" PRIu64 " records to %s\n",
			pms_recorder_records(recd), o->out);
	}
	return 0;
}

/* Where the human report goes: the --report-file, else stderr when a
 * COMMAND ran (its stdout is the command's: perf stat's rule, issue 30),
 * else stdout.  --json, --csv and --folded stay on stdout (asked for). */
static FILE *mem_report_stream(struct mem_run *r)
{
	const struct mem_opts *o = r->o;
	if (r->rep_out.fd >= 0)
		return cli_out_stream(&r->rep_out);
	if (o->kind == T_COMMAND && !o->json && !o->csv && !o->exp.folded)
		return stderr;
	return stdout;
}

/* The report built and rendered; the exports written.  0, or -1. */
static int mem_print(struct mem_run *r)
{
	struct mem_opts *o = r->o;
	struct pms_workload_info *wi = &r->wc.wi;
	struct pms_numa_stats nst;
	pms_numa_oracle_stats(pms_session_oracle(r->ses), &nst);
	if (wi->have) /* the workload said where its buffer is and on which node */
		pms_memprof_set_home(r->prof, wi->home, wi->start, wi->start + wi->size);
	struct pms_memreport_input in = {
		.numa = &nst, .verify_requested = o->verify,
		.duration_ns = (uint64_t)(r->oc.seconds * 1e9),
	};
	if (pms_session_report(r->ses, &in, &r->rep, &r->prep) < 0) {
		cli_fail("mem: building the report");
		return -1;
	}
	if (mem_advise_finish(&r->ma, r->topo, r->rep) < 0)
		return -1;
	struct alloc_cli *ac = &r->ac;
	if (ac->want && !ac->why[0] && r->ma.phase != 1 &&
	    pms_session_alloc_report(r->ses, r->rep, &r->arep) < 0)
		snprintf(ac->why, sizeof(ac->why), "allocation sites: %s", pms_error_last());
	if (r->arep && mem_advise_sites(&r->ma, r->ses, r->rep, r->arep) < 0)
		return -1;
	ac->ar = r->arep ? r->arep : r->ma.own_ar; /* --apply: the first measurement's sites */
	ac->paths = r->prep;
	ac->rep = r->ma.phase == 1 ? r->ma.before : r->rep; /* the report shown */
	ac->samples = o->samples;
	ac->top = o->top;
	/* --apply: the main report is the first measurement's */
	const struct mem_advise *ma = &r->ma;
	const struct pms_memreport *shown = ma->phase == 1 ? ma->before : r->rep;
	struct pms_render_advice adv;
	mem_advise_view(ma, &adv);
	struct pms_render_mem_run d = {
		.kind = (enum pms_render_run_kind)o->kind, .pid = r->pid, .cmd = o->cmd,
		.wl_size = o->wl.size, .wl_threads = o->wl.threads, .wl_node = o->wl.node,
		.wl = { wi->have, wi->start, wi->size, wi->home, wi->vchecked, wi->vdis, wi->verr },
		.verify = o->verify, .advice = &adv,
		.after = ma->phase == 1 ? r->rep : NULL,
		.oc = { r->oc.have_status, r->oc.status, r->oc.interrupted, r->oc.timed_out,
			r->oc.seconds },
	};
	char target[512];
	pms_render_mem_target(&d, target, sizeof(target));
	struct pms_render_alloc av;
	alloc_cli_view(ac, &av);
	struct pms_render_mem_opts mr = {
		.version = PMS_RENDER_MEM_OPTS_VERSION, .meta = cli_json_meta(),
		.verbosity = cli_verbosity, .command = "mem", .target_text = target, .seconds = r->oc.seconds,
		.sample_type = r->info.sample_type, .samples = o->samples, .oracle = true,
		.per_process = o->per_process, .per_thread = o->per_thread,
		.hold = o->kind == T_COMMAND ? (r->res.holding ? 1 : -1) : 0,
		.system_wide = o->kind == T_SYSTEM,
		.json_run = pms_render_mem_run_json, .json_verify = pms_render_mem_verify_json,
		.text_verify = pms_render_mem_verify_text, .ud = &d,
		.paths = ac->paths, .alloc = &av,
		.adapt_on = o->adapt, .unhonoured = r->unh, .nunhonoured = r->nunh,
	};
	mr.types = o->types ? pms_session_typeprof(r->ses) : NULL;
	pms_session_holds(r->ses, &mr.holds);
	mr.hold_budget_ms = o->hold_budget < 0 ? -1
			    : o->hold_budget > 0 ? o->hold_budget : PMS_LIVERUN_HOLD_BUDGET_MS;
	mr.adapt = pms_sampler_adaptations(pms_session_sampler(r->ses), &mr.nadapt, &mr.adapt_dups);
	mr.events = pms_sampler_events(pms_session_sampler(r->ses));
	if (alloc_export_prepare(ac, &o->exp) < 0)
		return -1;
	FILE *to = mem_report_stream(r);
	if (!to)
		return -1;
	FILE *saved_stdout = cli_stdout_to(to); /* the report's stream meanwhile */
	mr.out = stdout;
	if (ma->phase == 1)
		mr.seconds = ma->before_s;
	/* the exports are of the report shown (the page embeds its JSON) */
	o->exp.ses = r->ses;
	o->exp.topo = r->topo;
	o->exp.paths = ma->phase == 1 ? NULL : r->prep; /* --apply: paths of both measurements */
	r->xrc = mem_export_write(&o->exp, &mr, shown);
	if (o->exp.folded) {
		; /* the collapsed stacks were the output */
	} else if (o->json) {
		if (pms_render_mem_json(&mr, shown) < 0)
			fprintf(stderr, "pmuscope: writing JSON failed\n");
	} else if (o->csv) {
		pms_render_alloc_csv(stdout, &av, r->rep);
	} else {
		(void)pms_render_mem_text(&mr, shown);
		mem_advise_text(ma, r->rep, r->pid, o->cmd);
		if (o->types) {
			printf("\n");
			if (pms_render_types(stdout, pms_session_typeprof(r->ses), false, o->top,
					     NULL) < 0) {
				fprintf(stderr, "pmuscope: mem: types: %s\n", pms_error_last());
				r->xrc = 1;
			}
		}
	}
	{
		/* an empty result is said, on stderr too (the report may be JSON
		 * or CSV, or in a file) */
		char why[600];
		if (pms_render_mem_empty(&mr, shown, why, sizeof(why)))
			fprintf(stderr, "pmuscope: mem: %s\n", why);
		mem_render_warn_loss(&mr, shown);
	}
	/* the report file flushed, checked and renamed into place; stdout is
	 * checked as every command's (main.c) */
	cli_stdout_to(saved_stdout);
	if (r->rep_out.fd >= 0)
		r->rrc = cli_out_commit(&r->rep_out);
	return 0;
}

/* Exit status: what happened to the command or the workload. */
static int mem_exit_status(const struct outcome *oc)
{
	if (oc->have_status) {
		char how[128];
		int code = pms_exit_describe(oc->status, how, sizeof(how));
		if (code > 0) /* a clean exit is not said */
			fprintf(stderr, "pmuscope: mem: the command %s\n", how);
		return code < 0 ? 0 : code;
	}
	return oc->interrupted ? 128 + oc->stop_signal : 0;
}

static int mem_steps(struct mem_run *r)
{
	int s;
	if ((s = mem_setup(r)) || (s = mem_try_damon(r)) || (s = mem_prepare(r)) ||
	    (s = mem_open(r)) || (s = mem_loop(r)))
		return s;
	if (mem_print(r) < 0)
		return -1;
	/* a report file that could not be written wins over the command's
	 * status, as does an incomplete -o file; an export's failure only
	 * over success */
	r->exit_code = mem_exit_status(&r->oc);
	if (r->xrc && !r->exit_code)
		r->exit_code = r->xrc; /* an export could not be written (said why) */
	if (r->rrc)
		r->exit_code = r->rrc;
	if (r->write_failed)
		r->exit_code = 74; /* EX_IOERR: the -o file is incomplete (said above) */
	return 1;
}

int cmd_mem(const struct cli_global *g, int argc, char **argv)
{
	struct mem_opts o;
	if (mem_damon_requested(argc, argv))
		return mem_damon_main(g, argc, argv, NULL);
	int prc = parse_opts(argc, argv, &o);
	if (prc != 0)
		return cli_exit_code(prc);
	if (o.run_workload) {
		o.wl.verify = o.verify;
		pms_error_clear();
		int wrc = pms_workload_run(&o.wl);
		if (wrc == 2 && pms_error_last()[0])
			fprintf(stderr, "pmuscope mem workload: %s\n", pms_error_last());
		return wrc;
	}
#ifdef M_MMAP_THRESHOLD
	/* Blocks of 256 KiB and more are mapped on their own and unmapped
	 * when freed.  glibc's default threshold rises to the largest block
	 * freed (up to 32 MiB): the recording's transient buffers (staged
	 * records, node lookup batches, the oracle's page table) then stay in
	 * the heap as free but resident memory through the report, 18 MB of
	 * 137 MB peak on bench/mem_vs_perf.sh (issue 21, docs/bench.md). */
	(void)mallopt(M_MMAP_THRESHOLD, 256 << 10);
#endif
	struct mem_run *r = calloc(1, sizeof(*r));
	if (!r) {
		fprintf(stderr, "pmuscope: mem: out of memory\n");
		return 1;
	}
	*r = (struct mem_run){
		.g = g, .o = &o, .argc = argc, .argv = argv, .exit_code = 1, .pid = -1,
		.ma = { .advise = o.advise, .apply = o.apply },
		.wc = { .pipefd = { -1, -1 }, .relfd = { -1, -1 } },
		.ac = { .fd = -1, .rate = o.alloc_rate, .threshold = o.alloc_threshold },
	};
	r->rep_out.fd = -1;
	int s = mem_steps(r);
	int exit_code = s < 0 ? 1 : r->exit_code;
	pms_memreport_free(r->rep);
	pms_pathreport_free(r->prep);
	pms_alloc_report_free(r->arep);
	alloc_cli_done(&r->ac);
	mem_advise_release(&r->ma);
	/* the session's run owns the sampler, source, oracle, command and
	 * recorder; it goes before the file it wrote to, and puts the signal
	 * handlers back */
	pms_session_free(r->ses);
	/* the -o file closed (checked); on a failure before it had records
	 * an empty one is removed, a partial one kept (readable) */
	if (s >= 0 && cli_out_commit(&r->out_o))
		exit_code = CLI_EXIT_IO;
	cli_out_abandon(&r->out_o);
	cli_out_abandon(&r->rep_out);
	mem_export_abandon(&o.exp);
	pms_workload_child_close(&r->wc);
	pms_topo_free(r->topo);
	pms_pmus_free(r->pmus);
	pms_sys_free(r->sys);
	free(r);
	return exit_code;
}
