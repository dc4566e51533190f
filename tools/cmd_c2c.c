/* pmuscope c2c: cache-line contention from a perf.data file (pmuscope's own,
 * `perf c2c record`, `perf mem record`) or a live run (command, -p, -a):
 * perf c2c's counts, the shared cache lines with their NUMA node and data
 * object, and per line the offsets with the threads, CPUs, nodes and
 * instructions that touch them (model: include/pmuscope/c2c.h).  This file
 * parses options and renders text, JSON (docs/c2c.md) and CSV. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_out.h"
#include "cli_opt.h"
#include "mem_render.h"
#include "pmuscope/c2c.h"
#include "pmuscope/error.h"
#include "pmuscope/session.h"
#include "pmuscope/numa.h"
#include "pmuscope/pmu.h"
#include "pmuscope/report.h"
#include "pmuscope/symbols.h"
#include "pmuscope/topo.h"
#include "pmuscope/util.h"

int cmd_c2c(const struct cli_global *g, int argc, char **argv);

/* ---- options (the one parser: tools/cli_opt.h) ------------------------------- */

enum { O_DURATION = 256, O_ENGINE, O_PERIOD, O_PHYS, O_DOUBLE, O_DISPLAY, O_SORT, O_ALL,
       O_LINES, O_NOSYM, O_JSON, O_CSV, O_NOHOLD, O_OUTPUT, O_HOLD_BUDGET };

static const struct cli_opt opts[] = {
	{ NULL, 0, CLI_NOARG, NULL, 0, "Target (exactly one):" },
	{ "input", 'i', CLI_ARG, "FILE", 'i', "read FILE ('-' a pipe-mode stream on stdin)" },
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
	const char *input;
	const char *out;    /* -o: the live run's recording */
	pid_t pid;
	bool system, json, csv, symbols, phys, no_hold;
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
	o->engine = PMS_ENG_NONE;
	cli_parser_init(&p, sp, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		switch (c) {
		case 'i': o->input = p.arg; break;
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

/* ---- what was profiled --------------------------------------------------------- */

struct source {
	const char *kind;   /* "file" or "live" */
	const char *path;   /* file */
	char what[512];     /* text: the target */
	char label[512];    /* engine label / recorded events */
	uint64_t records, skipped, lost, excluded_self;
	const struct pms_session *ses; /* a file's session: its problems (JSON) */
	bool unfinished;
	bool truncated;
	const char *nodes_why;
	int exit_status;    /* live command: wait status, -1 none */
};

/* ---- rendering ----------------------------------------------------------------- */

struct statf {
	const char *key;   /* JSON / CSV name (perf's c2c_stats field) */
	size_t off;
};
#define SF(f) { #f, offsetof(struct pms_c2c_stats, f) }
static const struct statf stat_fields[] = {
	SF(nr_entries), SF(locks), SF(load), SF(ld_uncache), SF(ld_io), SF(ld_miss), SF(ld_noadrs),
	SF(ld_fbhit), SF(ld_l1hit), SF(ld_l2hit), SF(ld_llchit), SF(lcl_hitm), SF(rmt_hitm),
	SF(tot_hitm), SF(lcl_peer), SF(rmt_peer), SF(tot_peer), SF(rmt_hit), SF(lcl_dram),
	SF(rmt_dram), SF(ld_excl), SF(ld_shared), SF(blk_data), SF(blk_addr), SF(store),
	SF(st_uncache), SF(st_noadrs), SF(st_l1hit), SF(st_l1miss), SF(st_na), SF(nomap),
	SF(noparse),
};
#define NSF (sizeof(stat_fields) / sizeof(stat_fields[0]))

static uint64_t sv(const struct pms_c2c_stats *s, size_t i)
{
	return *(const uint64_t *)((const char *)s + stat_fields[i].off);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void nodes_text(char *buf, size_t n, const int *v, size_t k, const char *none)
{
	size_t p = 0;
	buf[0] = 0;
	for (size_t i = 0; i < k && p + 12 < n; i++)
		p += (size_t)snprintf(buf + p, n - p, "%s%d", i ? "," : "", v[i]);
	if (!k)
		snprintf(buf, n, "%s", none);
}

static void text_report(const struct source *src, const struct pms_c2c_report *r,
			enum pms_c2c_sort sort)
{
	const struct pms_c2c_stats *t = &r->total, *s = &r->shared;
	uint64_t llc = pms_c2c_llc_misses(t);
	printf("pmuscope c2c: %s\n", src->what);
	printf("engine: %s%s%s\n", mem_engine_name(r->engine), *src->label ? " - " : "", src->label);
	printf("lines ranked by: %s\n", r->metric_label);
	if (!r->hitm_available && r->engine != PMS_ENG_NONE)
		printf("note: %s reports no HITM; HITM counts below are 0 by construction, not "
		       "measured\n", mem_engine_name(r->engine));
	if (src->nodes_why)
		printf("note: memory nodes unavailable: %s\n", src->nodes_why);
	printf("line size: %d bytes%s\n\n", r->double_cl ? 128 : 64,
	       r->double_cl ? " (--double-cl: 128-byte pairs)" : "");

	printf("Trace event information (perf c2c's counts and rules)\n");
	printf("  Total records                     : %10" PRIu64 "\n", t->nr_entries);
	printf("  Locked Load/Store Operations      : %10" PRIu64 "\n", t->locks);
	printf("  Load Operations                   : %10" PRIu64 "\n", t->load);
	printf("  Loads - uncacheable               : %10" PRIu64 "\n", t->ld_uncache);
	printf("  Loads - IO                        : %10" PRIu64 "\n", t->ld_io);
	printf("  Loads - Miss                      : %10" PRIu64 "\n", t->ld_miss);
	printf("  Loads - no mapping                : %10" PRIu64 "\n", t->ld_noadrs);
	printf("  Load Fill Buffer Hit              : %10" PRIu64 "\n", t->ld_fbhit);
	printf("  Load L1D hit                      : %10" PRIu64 "\n", t->ld_l1hit);
	printf("  Load L2D hit                      : %10" PRIu64 "\n", t->ld_l2hit);
	printf("  Load LLC hit                      : %10" PRIu64 "\n", t->ld_llchit + t->lcl_hitm);
	printf("  Load Local HITM                   : %10" PRIu64 "\n", t->lcl_hitm);
	printf("  Load Remote HITM                  : %10" PRIu64 "\n", t->rmt_hitm);
	printf("  Load Remote HIT                   : %10" PRIu64 "\n", t->rmt_hit);
	printf("  Load Local DRAM                   : %10" PRIu64 "\n", t->lcl_dram);
	printf("  Load Remote DRAM                  : %10" PRIu64 "\n", t->rmt_dram);
	printf("  Load MESI State Exclusive         : %10" PRIu64 "\n", t->ld_excl);
	printf("  Load MESI State Shared            : %10" PRIu64 "\n", t->ld_shared);
	printf("  Load LLC Misses                   : %10" PRIu64 "\n", llc);
	printf("  Load access blocked by data       : %10" PRIu64 "\n", t->blk_data);
	printf("  Load access blocked by address    : %10" PRIu64 "\n", t->blk_addr);
	printf("  Load HIT Local Peer               : %10" PRIu64 "\n", t->lcl_peer);
	printf("  Load HIT Remote Peer              : %10" PRIu64 "\n", t->rmt_peer);
	printf("  LLC Misses to Local DRAM          : %9.1f%%\n", pct(t->lcl_dram, llc));
	printf("  LLC Misses to Remote DRAM         : %9.1f%%\n", pct(t->rmt_dram, llc));
	printf("  LLC Misses to Remote cache (HIT)  : %9.1f%%\n", pct(t->rmt_hit, llc));
	printf("  LLC Misses to Remote cache (HITM) : %9.1f%%\n", pct(t->rmt_hitm, llc));
	printf("  Store Operations                  : %10" PRIu64 "\n", t->store);
	printf("  Store - uncacheable               : %10" PRIu64 "\n", t->st_uncache);
	printf("  Store - no mapping                : %10" PRIu64 "\n", t->st_noadrs);
	printf("  Store L1D Hit                     : %10" PRIu64 "\n", t->st_l1hit);
	printf("  Store L1D Miss                    : %10" PRIu64 "\n", t->st_l1miss);
	printf("  Store No available memory level   : %10" PRIu64 "\n", t->st_na);
	printf("  No Page Map Rejects               : %10" PRIu64 "\n", t->nomap);
	printf("  Unable to parse data source       : %10" PRIu64 "\n", t->noparse);
	if (src->records)
		printf("  (file: %" PRIu64 " records, %" PRIu64 " skipped%s%s; %" PRIu64 " samples lost)\n",
		       src->records, src->skipped, src->truncated ? ", data truncated" : "",
		       src->unfinished ? ", unfinished file" : "", src->lost);
	printf("\nShared cache lines (%s)\n",
	       r->metric == PMS_C2C_SHARERS ? "touched by several threads"
	       : r->metric == PMS_C2C_SCORE ? "with HITM, peer or remote cache hits"
					    : "with HITM or peer hits");
	printf("  Total Shared Cache Lines          : %10" PRIu64 "  (of %" PRIu64 " lines seen)\n",
	       r->nshared, r->nlines_seen);
	printf("  Load HITs on shared lines         : %10" PRIu64 "\n", s->load);
	printf("  Fill Buffer Hits on shared lines  : %10" PRIu64 "\n", s->ld_fbhit);
	printf("  L1D hits on shared lines          : %10" PRIu64 "\n", s->ld_l1hit);
	printf("  L2D hits on shared lines          : %10" PRIu64 "\n", s->ld_l2hit);
	printf("  LLC hits on shared lines          : %10" PRIu64 "\n", s->ld_llchit + s->lcl_hitm);
	printf("  Load hits on peer cache or nodes  : %10" PRIu64 "\n", s->lcl_peer + s->rmt_peer);
	printf("  Locked Access on shared lines     : %10" PRIu64 "\n", s->locks);
	printf("  Blocked Access on shared lines    : %10" PRIu64 "\n", s->blk_data + s->blk_addr);
	printf("  Store HITs on shared lines        : %10" PRIu64 "\n", s->store);
	printf("  Store L1D hits on shared lines    : %10" PRIu64 "\n", s->st_l1hit);
	printf("  Store No available memory level   : %10" PRIu64 "\n", s->st_na);
	printf("  Total Merged records              : %10" PRIu64 "\n", s->lcl_hitm + s->rmt_hitm + s->store);

	printf("\nShared cache line table (%zu lines, metric %s, sorted by %s)\n", r->nlines,
	       r->metric_name, pms_c2c_sort_name(sort));
	if (!r->nlines) {
		printf("  (none)\n");
		return;
	}
	printf("  %3s %18s %7s %6s %8s %6s %6s %6s %6s %7s %6s %6s %5s %5s %5s %5s %5s %5s %5s %6s %6s %6s %6s %3s %3s  %s\n",
	       "#", "address", "pid", "node", "metric", "hitm", "lcl", "rmt", "peer", "recs",
	       "loads", "stores", "stL1h", "stL1m", "stNA", "FB", "L1", "L2", "LLC", "RmtHit",
	       "LclDrm", "RmtDrm", "cpuN", "thr", "wr", "object");
	for (size_t i = 0; i < r->nlines; i++) {
		const struct pms_c2c_line *l = &r->lines[i];
		char nodes[64], cn[64];
		nodes_text(nodes, sizeof(nodes), l->mem_nodes, l->nmem_nodes, "?");
		nodes_text(cn, sizeof(cn), l->cpu_nodes, l->ncpu_nodes, "?");
		printf("  %3zu %#18" PRIx64 " %7u %6s %8" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64
		       " %6" PRIu64 " %7" PRIu64 " %6" PRIu64 " %6" PRIu64 " %5" PRIu64 " %5" PRIu64
		       " %5" PRIu64 " %5" PRIu64 " %5" PRIu64 " %5" PRIu64 " %5" PRIu64 " %6" PRIu64
		       " %6" PRIu64 " %6" PRIu64 " %6s %3zu %3zu  %s\n",
		       i, l->addr, l->pid, nodes, l->metric, l->st.tot_hitm, l->st.lcl_hitm,
		       l->st.rmt_hitm, l->st.tot_peer, pms_c2c_perf_records(&l->st), pms_c2c_perf_loads(&l->st), l->st.store,
		       l->st.st_l1hit, l->st.st_l1miss, l->st.st_na, l->st.ld_fbhit, l->st.ld_l1hit,
		       l->st.ld_l2hit, l->st.ld_llchit, l->st.rmt_hit, l->st.lcl_dram, l->st.rmt_dram,
		       cn, l->nthreads, l->nwriters, l->object);
	}
	printf("\nPer line: offsets, instructions, threads (pid/tid), CPUs, latency (mean cycles)\n");
	for (size_t i = 0; i < r->nlines; i++) {
		const struct pms_c2c_line *l = &r->lines[i];
		char nodes[64];
		nodes_text(nodes, sizeof(nodes), l->mem_nodes, l->nmem_nodes, "unknown");
		printf("  line %zu  %#" PRIx64 "  node %s  %s (%s)  %zu threads, %zu with stores\n", i,
		       l->addr, nodes, l->object, *l->object_kind ? l->object_kind : "?", l->nthreads,
		       l->nwriters);
		printf("    %6s %18s %6s %5s %5s %5s %5s %5s %8s %8s %8s  %-24s %-22s %s\n", "offset",
		       "ip", "smpl", "loads", "strs", "lHitm", "rHitm", "peer", "lat:rHitm", "lHitm",
		       "load", "function", "source", "threads / cpus / cpu nodes");
		for (size_t k = 0; k < l->nacc; k++) {
			const struct pms_c2c_access *a = &l->acc[k];
			char where[64], th[160], cpus[64], cn[32], lat[3][16];
			if (a->file)
				snprintf(where, sizeof(where), "%s:%d", strrchr(a->file, '/') ? strrchr(a->file, '/') + 1 : a->file, a->line);
			else
				snprintf(where, sizeof(where), "-");
			size_t p = 0;
			th[0] = 0;
			for (size_t u = 0; u < a->nthreads && p + 24 < sizeof(th); u++)
				p += (size_t)snprintf(th + p, sizeof(th) - p, "%s%u/%u", u ? "," : "",
						      a->threads[u].pid, a->threads[u].tid);
			nodes_text(cpus, sizeof(cpus), a->cpus, a->ncpus, "?");
			nodes_text(cn, sizeof(cn), a->cpu_nodes, a->ncpu_nodes, "?");
			const int li[3] = { PMS_C2C_LAT_RMT_HITM, PMS_C2C_LAT_LCL_HITM, PMS_C2C_LAT_LOAD };
			for (int q = 0; q < 3; q++) {
				const struct pms_c2c_lat *x = &a->lat[li[q]];
				if (x->n)
					snprintf(lat[q], sizeof(lat[q]), "%.0f", (double)x->sum / (double)x->n);
				else
					snprintf(lat[q], sizeof(lat[q]), "-");
			}
			printf("    %#6x %#18" PRIx64 " %6" PRIu64 " %5" PRIu64 " %5" PRIu64 " %5" PRIu64
			       " %5" PRIu64 " %5" PRIu64 " %8s %8s %8s  %-24.24s %-22.22s %s / %s / %s\n",
			       a->offset, a->ip, a->st.nr_entries, a->st.load, a->st.store, a->st.lcl_hitm,
			       a->st.rmt_hitm, a->st.tot_peer, lat[0], lat[1], lat[2], a->func, where, th,
			       cpus, cn);
		}
	}
}

static void json_stats(struct json *j, const char *key, const struct pms_c2c_stats *s)
{
	cli_json_begin_object(j, key);
	for (size_t i = 0; i < NSF; i++)
		cli_json_uint(j, stat_fields[i].key, sv(s, i));
	cli_json_uint(j, "llc_misses", pms_c2c_llc_misses(s));
	cli_json_uint(j, "tot_loads", pms_c2c_perf_loads(s));
	cli_json_uint(j, "tot_recs", pms_c2c_perf_records(s));
	cli_json_end_object(j);
}

static void json_ints(struct json *j, const char *key, const int *v, size_t n)
{
	cli_json_begin_array(j, key);
	for (size_t i = 0; i < n; i++)
		cli_json_int(j, NULL, v[i]);
	cli_json_end_array(j);
}

static void json_lat(struct json *j, const char *key, const struct pms_c2c_lat *l)
{
	cli_json_begin_object(j, key);
	cli_json_uint(j, "n", l->n);
	if (l->n) {
		cli_json_uint(j, "min", l->min);
		cli_json_uint(j, "max", l->max);
		cli_json_double(j, "mean", (double)l->sum / (double)l->n);
	} else {
		cli_json_null(j, "min");
		cli_json_null(j, "max");
		cli_json_null(j, "mean");
	}
	cli_json_end_object(j);
}

static void json_report(const struct source *src, const struct pms_c2c_report *r)
{
	struct json j;
	char hx[24];
	static const char *const latn[PMS_C2C_LAT_N] = { "rmt_hitm", "lcl_hitm", "rmt_peer",
							 "lcl_peer", "load" };
	cli_json_init(&j, stdout);
	cli_json_begin_object(&j, NULL);
	cli_json_uint(&j, "schema_version", 1);
	cli_json_str(&j, "command", "c2c");
	cli_json_begin_object(&j, "source");
	cli_json_str(&j, "kind", src->kind);
	cli_json_str(&j, "path", src->path);
	cli_json_str(&j, "target", src->what);
	cli_json_str(&j, "label", src->label);
	cli_json_uint(&j, "records", src->records);
	cli_json_uint(&j, "skipped_records", src->skipped);
	cli_json_bool(&j, "truncated", src->truncated);
	/* what the reader skipped or found corrupt (pms_session_problem), when
	 * there is something to say */
	if (src->unfinished)
		cli_json_bool(&j, "unfinished", true);
	if (src->ses && (pms_session_problem(src->ses, 0, NULL) ||
			 pms_session_problems_unlisted(src->ses, 0))) {
		const char *pr;
		cli_json_begin_array(&j, "problems");
		for (size_t i = 0; (pr = pms_session_problem(src->ses, i, NULL)); i++)
			cli_json_str(&j, NULL, pr);
		cli_json_end_array(&j);
	}
	cli_json_uint(&j, "lost", src->lost);
	cli_json_uint(&j, "excluded_self", src->excluded_self);
	cli_json_str(&j, "nodes_unavailable", src->nodes_why);
	if (src->exit_status >= 0)
		cli_json_int(&j, "exit_status", src->exit_status);
	else
		cli_json_null(&j, "exit_status");
	cli_json_end_object(&j);
	cli_json_str(&j, "engine", mem_engine_name(r->engine));
	cli_json_bool(&j, "hitm_available", r->hitm_available);
	cli_json_begin_object(&j, "metric");
	cli_json_str(&j, "name", r->metric_name);
	cli_json_str(&j, "label", r->metric_label);
	cli_json_end_object(&j);
	cli_json_uint(&j, "line_size", r->double_cl ? 128 : 64);
	cli_json_uint(&j, "samples", r->samples);
	json_stats(&j, "totals", &r->total);
	cli_json_uint(&j, "lines_seen", r->nlines_seen);
	cli_json_uint(&j, "shared_lines", r->nshared);
	json_stats(&j, "shared", &r->shared);
	cli_json_begin_array(&j, "lines");
	for (size_t i = 0; i < r->nlines; i++) {
		const struct pms_c2c_line *l = &r->lines[i];
		cli_json_begin_object(&j, NULL);
		cli_json_uint(&j, "index", i);
		snprintf(hx, sizeof(hx), "0x%" PRIx64, l->addr);
		cli_json_str(&j, "address", hx);
		cli_json_uint(&j, "size", l->size);
		cli_json_uint(&j, "pid", l->pid);
		cli_json_bool(&j, "kernel", l->kernel);
		cli_json_uint(&j, "metric", l->metric);
		json_ints(&j, "mem_nodes", l->mem_nodes, l->nmem_nodes);
		cli_json_uint(&j, "node_unknown", l->node_unknown);
		cli_json_uint(&j, "pa_changes", l->paddr_cnt);
		cli_json_begin_object(&j, "object");
		cli_json_str(&j, "name", l->object);
		cli_json_str(&j, "kind", l->object_kind);
		snprintf(hx, sizeof(hx), "0x%" PRIx64, l->object_start);
		cli_json_str(&j, "start", hx);
		cli_json_end_object(&j);
		cli_json_uint(&j, "threads", l->nthreads);
		cli_json_uint(&j, "writers", l->nwriters);
		json_ints(&j, "cpu_nodes", l->cpu_nodes, l->ncpu_nodes);
		json_stats(&j, "stats", &l->st);
		json_lat(&j, "latency", &l->lat_all);
		cli_json_begin_array(&j, "offsets");
		for (size_t k = 0; k < l->nacc; k++) {
			const struct pms_c2c_access *a = &l->acc[k];
			cli_json_begin_object(&j, NULL);
			cli_json_uint(&j, "offset", a->offset);
			mem_render_json_hex(&j, "ip", a->ip_valid, a->ip);
			cli_json_bool(&j, "kernel", a->kernel);
			cli_json_str(&j, "function", a->func);
			cli_json_str(&j, "file", a->file);
			if (a->file)
				cli_json_int(&j, "line", a->line);
			else
				cli_json_null(&j, "line");
			cli_json_str(&j, "module", a->module);
			json_stats(&j, "stats", &a->st);
			cli_json_begin_object(&j, "latency");
			json_lat(&j, "all", &a->lat_all);
			for (int q = 0; q < PMS_C2C_LAT_N; q++)
				json_lat(&j, latn[q], &a->lat[q]);
			cli_json_end_object(&j);
			cli_json_begin_array(&j, "threads");
			for (size_t t = 0; t < a->nthreads; t++) {
				cli_json_begin_object(&j, NULL);
				cli_json_uint(&j, "pid", a->threads[t].pid);
				cli_json_uint(&j, "tid", a->threads[t].tid);
				cli_json_uint(&j, "samples", a->threads[t].samples);
				cli_json_uint(&j, "loads", a->threads[t].loads);
				cli_json_uint(&j, "stores", a->threads[t].stores);
				cli_json_end_object(&j);
			}
			cli_json_end_array(&j);
			json_ints(&j, "cpus", a->cpus, a->ncpus);
			json_ints(&j, "cpu_nodes", a->cpu_nodes, a->ncpu_nodes);
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
		cli_json_end_object(&j);
	}
	cli_json_end_array(&j);
	cli_json_end_object(&j);
	cli_json_finish(&j);
}

static void csv_field(const char *s)
{
	bool q = s && strpbrk(s, ",\"\n");
	if (!s)
		return;
	if (!q) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void csv_report(const struct pms_c2c_report *r)
{
	printf("line,address,pid,mem_nodes,metric,object,offset,ip,function,file,line_no,tids,cpus,cpu_nodes,lat_mean");
	for (size_t i = 0; i < NSF; i++)
		printf(",%s", stat_fields[i].key);
	printf("\n");
	for (size_t i = 0; i < r->nlines; i++) {
		const struct pms_c2c_line *l = &r->lines[i];
		char nodes[64];
		nodes_text(nodes, sizeof(nodes), l->mem_nodes, l->nmem_nodes, "");
		for (size_t k = 0; k < l->nacc; k++) {
			const struct pms_c2c_access *a = &l->acc[k];
			char cpus[256], cn[64];
			printf("%zu,0x%" PRIx64 ",%u,\"%s\",%" PRIu64 ",", i, l->addr, l->pid, nodes, l->metric);
			csv_field(l->object);
			printf(",%u,", a->offset);
			if (a->ip_valid)
				printf("0x%" PRIx64, a->ip);
			putchar(',');
			csv_field(a->func);
			putchar(',');
			csv_field(a->file);
			printf(",%d,\"", a->file ? a->line : 0);
			for (size_t t = 0; t < a->nthreads; t++)
				printf("%s%u/%u", t ? " " : "", a->threads[t].pid, a->threads[t].tid);
			nodes_text(cpus, sizeof(cpus), a->cpus, a->ncpus, "");
			nodes_text(cn, sizeof(cn), a->cpu_nodes, a->ncpu_nodes, "");
			printf("\",\"%s\",\"%s\",", cpus, cn);
			if (a->lat_all.n)
				printf("%.1f", (double)a->lat_all.sum / (double)a->lat_all.n);
			for (size_t f = 0; f < NSF; f++)
				printf(",%" PRIu64, sv(&a->st, f));
			printf("\n");
		}
	}
}

static void render(const struct c2c_opts *o, const struct source *src, const struct pms_c2c_report *r)
{
	if (o->json) {
		json_report(src, r);
	} else if (o->csv) {
		csv_report(r);
	} else if (o->cmd) {
		/* the text report of a COMMAND: stderr, after the run (perf
		 * stat's rule, docs/cli.md), the command's stdout its own */
		FILE *saved = cli_stdout_to(stderr);
		text_report(src, r, o->mo.sort);
		cli_stdout_to(saved);
	} else {
		text_report(src, r, o->mo.sort);
	}
	fflush(stdout);
}

/* ---- the samples: one session, live or recorded ---------------------------------- */

/* After the session ran: the report, rendered. */
static int finish(const struct c2c_opts *o, struct pms_session *ses, struct source *src)
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
	struct source src;
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
	const char *paths[1] = { o->input };
	if (pms_session_open_files(NULL, paths, 1, &so, &ses) < 0) {
		cli_fail("c2c");
		goto out;
	}
	if ((rc = pms_session_run(ses)) < 0) {
		fprintf(stderr, "pmuscope: c2c: %s\n", pms_error_last());
		goto out;
	}
	if (pms_session_file_error(ses, 0))
		fprintf(stderr, "pmuscope: c2c: %s: %s (the report covers the records before it)\n",
			o->input, pms_session_file_error(ses, 0));
	struct pms_memsrc_stats st;
	struct pms_memsrc_info info;
	pms_session_stats(ses, &st);
	pms_session_info(ses, &info);
	/* what the reader skipped, on stderr and in the JSON (as report) */
	cli_session_problems("c2c", ses, &o->input, 1);
	src.ses = ses;
	struct pms_perfdata_stats fst;
	pms_session_file_stats(ses, &fst);
	src.unfinished = fst.unfinished;
	snprintf(src.what, sizeof(src.what), "%s (%s mode, %" PRIu64 " samples)", o->input,
		 info.pipe ? "pipe" : "file", st.samples);
	/* names are a nicety: without a seam the numbers stand alone */
	if (o->symbols && (sys = cli_open_sys(g)))
		pms_session_set_sys(ses, sys);
	ret = finish(o, ses, &src);
	if (pms_session_file_error(ses, 0))
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
	struct source src;
	struct pms_liverun_result res;
	int ret = 1, outfd = -1;

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
	if (pms_session_open_live(sys, pmus, topo, &lo, &sopt, &ses) < 0) {
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
	if (ret == 0 && src.exit_status >= 0 &&
	    !(WIFEXITED(src.exit_status) && WEXITSTATUS(src.exit_status) == 0)) {
		fprintf(stderr, "pmuscope: c2c: the command ended with status %d%s\n",
			pms_exit_code(src.exit_status),
			WIFSIGNALED(src.exit_status) ? " (signal)" : "");
		ret = pms_exit_code(src.exit_status); /* passed on, as mem and stat do */
	}
out:
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
