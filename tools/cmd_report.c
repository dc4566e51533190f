/* pmuscope report: the `pmuscope mem` report of a recorded perf.data file
 * (pmuscope's own recordings and `perf mem record` / `perf record -d`
 * files), rendered by the same code (mem_render.c) in text, JSON and CSV.
 * The samples and the file's COMM/MMAP2 side-band go through the memprof
 * builder in aggregate mode, so memory grows with distinct IPs, data
 * objects and data_src values, not with samples.  Nodes come from
 * PHYS_ADDR and the file's MEM_TOPOLOGY header; nothing is asked of live
 * processes. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc_render.h"
#include "cli.h"
#include "cli_opt.h"
#include "mem_advise.h"
#include "mem_export.h"
#include "mem_render.h"
#include "pmuscope/error.h"
#include "pmuscope/session.h"
#include "pmuscope/event.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/report.h"
#include "pmuscope/symbols.h"

#include "report_sort.h"

int cmd_report(const struct cli_global *g, int argc, char **argv);

/* In cmd_script.c. */
void cli_perfdata_print_header(FILE *o, struct pms_perfdata_reader *r);
int cli_perfdata_open(const char *cmd, const char *path, int *fd, struct pms_perfdata_reader **r);

enum { O_JSON = 256, O_CSV, O_SAMPLES, O_HEADER, O_NOSYM, O_TOP, O_STDIO, O_ADVISE, O_NODEMANGLE,
       O_JOBS, O_PCTLIMIT, O_HEADERONLY, O_TYPES, O_FETCH, O_CHILDREN, O_NOCHILDREN,
       O_NOINLINE };
int report_fetch(const struct cli_global *g, const char *path, bool by_line, size_t top);

static const struct cli_opt opts[] = {
	{ "input", 'i', CLI_ARG, "FILE", 'i',
	  "the perf.data file; '-' reads a pipe-mode stream from stdin\n"
	  "(default perf.data).  Several -i merge their files into one\n"
	  "report (e.g. one per host), each file's samples labelled\n"
	  "with its host name (HOSTNAME header, else its path)" },
	{ "top", 0, CLI_ARG, "N", O_TOP, "entries per top list (default 10)" },
	{ "jobs", 0, CLI_ARG, "N", O_JOBS,
	  "decode on up to N threads (default: the online CPUs; 1: one\n"
	  "thread, the same report): several files one thread each, one\n"
	  "file in chunks of its data, one profile each, merged in order" },
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "the report as JSON (schema: docs/mem.md; target.kind \"file\")" },
	{ "samples", 0, CLI_NOARG, NULL, O_SAMPLES, "with --json: every sample too (keeps them all in memory)" },
	{ "csv", 0, CLI_NOARG, NULL, O_CSV, "one CSV row per sample, as `pmuscope mem --csv`" },
	{ "types", 0, CLI_NOARG, NULL, O_TYPES,
	  "samples per data type and struct member (DWARF of the\n"
	  "binaries here; docs/types.md): loads, stores, remote share,\n"
	  "latency, threads; unresolved samples by reason; with --json\n"
	  "as JSON; --html, --pprof: also the page's types and the\n"
	  "type, member and alloc_type labels, as mem --types" },
	{ "header", 0, CLI_NOARG, NULL, O_HEADER, "also print the header features (text)" },
	{ "no-symbols", 0, CLI_NOARG, NULL, O_NOSYM, "do not name instructions or data objects" },
	{ "no-demangle", 0, CLI_NOARG, NULL, O_NODEMANGLE, "show C++/Rust symbols as they are in the binary" },
	MEM_EXPORT_CLI_OPTS,
	{ "advise", 0, CLI_NOARG, NULL, O_ADVISE,
	  "NUMA placement advice for the hot data (docs/advise.md);\n"
	  "needs samples with both nodes (a file with physical\n"
	  "addresses: pmuscope mem --phys -o, perf mem record --phys-data)" },
	{ "stdio", 0, CLI_NOARG, NULL, O_STDIO, "accepted for perf's habit: the text report is the default" },
	{ "sort", 's', CLI_ARG, "KEYS", 's',
	  "perf report's table of samples by these keys instead of the\n"
	  "report: pid (the thread, as perf's), tid, tgid, cpu, mem,\n"
	  "snoop, tlb, locked, dcacheline, phys_daddr (64-byte line\n"
	  "and physical address), node (the CPU's), memnode (the data's),\n"
	  "comm, sym, dso, symbol_daddr, type, typeoff, typecln" },
	{ "fields", 'F', CLI_ARG, "FIELDS", 'F',
	  "perf's -F: the table's columns in this order, overhead,\n"
	  "sample, period and the --sort keys (rows in that order)" },
	{ "show-nr-samples", 'n', CLI_NOARG, NULL, 'n', "with --sort: a Samples column" },
	{ "children", 0, CLI_NOARG, NULL, O_CHILDREN,
	  "perf's table with a Children column: each row's samples and\n"
	  "those of every function it called (the file's call paths:\n"
	  "frame pointers or DWARF); keys comm,dso,sym unless --sort\n"
	  "(perf's default on a file with call paths; here when asked)" },
	{ "no-children", 0, CLI_NOARG, NULL, O_NOCHILDREN,
	  "perf's table without the Children column (each sample to its\n"
	  "own function only), keys comm,dso,sym unless --sort" },
	{ "no-inline", 0, CLI_NOARG, NULL, O_NOINLINE, "DWARF call paths: no inlined frames (perf's)" },
	{ "call-graph", 'g', CLI_ARG, "MODE,...", 'g',
	  "perf report -g: the table (as --children unless\n"
	  "--no-children) with each row's call chains: flat, folded\n"
	  "(perf's text), graph (perf's default: the tree, percent of\n"
	  "all), fractal (percent of the parent), none; caller/callee;\n"
	  "THRESHOLD (percent, default 0.5) and PRINT_LIMIT; percent,\n"
	  "period, count" },
	{ "percent-limit", 0, CLI_ARG, "PCT", O_PCTLIMIT, "with --sort: no rows under PCT% overhead" },
	{ "header-only", 0, CLI_NOARG, NULL, O_HEADERONLY, "print the header features only" },
	{ "fetch", 0, CLI_OPTARG, "line", O_FETCH,
	  "AMD IBS fetch samples (record -e ibs_fetch//): latency,\n"
	  "iTLB level and page size, IC/L2/L3 miss per function, or\n"
	  "per source line with =line (docs/ibs.md)" },
	{ 0 },
};

const struct cli_spec cli_spec_report = {
	.name = "report",
	.synopsis = "report [-i FILE | FILE]... [--json [--samples] | --csv | --folded[=latency]]\n"
		    "       [--html FILE] [--pprof FILE] [--top N] [--header] [--advise]",
	.description =
		"The `pmuscope mem` report of a perf.data file (file or pipe mode, either\n"
		"byte order, zstd-compressed; pmuscope's own `mem -o` files and `perf mem\n"
		"record` files): data-source levels in perf's text, latency percentiles,\n"
		"NUMA nodes, CPU-node x memory-node matrix, top instructions, functions\n"
		"and data objects, in the same layout as `pmuscope mem`.\n\n"
		"  - Nodes come from each sample's PHYS_ADDR and the file's MEM_TOPOLOGY\n"
		"    header (a physical address of 0 counts as not mapped, one in no\n"
		"    recorded block as not present); otherwise the report says why they\n"
		"    are unavailable.  No live process is asked.\n"
		"  - Instructions are named from the file's MMAP/MMAP2 records and the\n"
		"    binaries found here (below --root); kernel IPs are not named (this\n"
		"    machine's kallsyms would not describe the recording's kernel).\n"
		"  - Latency percentiles come from a histogram: exact below 65536 cycles,\n"
		"    9 significant bits above (docs/perfdata.md); `pmuscope mem` sorts\n"
		"    every weight of a live run.\n"
		"  - Several files (the aggregate report: no --samples, --csv, exports,\n"
		"    --advise, call paths or '-') are decoded in parallel, one profile per\n"
		"    file, each file's data addresses named through its own mappings,\n"
		"    merged in file order: the report is the same for every --jobs.\n"
		"    One such file is decoded in chunks of its data on --jobs threads\n"
		"    where its records allow (docs/cli.md), with the same report.",
	.opts = opts,
	.footer = "Exit status: 0 ok, 1 the file cannot be read, 2 usage error.",
};


#define MAX_INPUTS 64

/* What the text and JSON say about the files (the report's "target"). */
struct file_desc {
	const struct pms_session *ses;
	size_t nin;
	bool pipe;
	struct pms_perfdata_stats st; /* summed over the files */
	double seconds;
	const struct mem_advise *ma; /* --advise */
};

static void json_events(struct pms_json *j, struct pms_perfdata_reader *r)
{
	char hx[24];
	size_t nattrs = pms_perfdata_reader_nattrs(r);
	pms_json_begin_array(j, "events");
	for (size_t i = 0; i < nattrs; i++) {
		const struct pms_perfdata_attr *a = pms_perfdata_reader_attr(r, i);
		pms_json_begin_object(j, NULL);
		pms_json_str(j, "name", a->name);
		pms_json_uint(j, "type", a->attr->type);
		snprintf(hx, sizeof(hx), "0x%" PRIx64, (uint64_t)a->attr->config);
		pms_json_str(j, "config", hx);
		snprintf(hx, sizeof(hx), "0x%" PRIx64, (uint64_t)a->attr->sample_type);
		pms_json_str(j, "sample_type", hx);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
}

static void report_json_run(struct pms_json *j, const void *ud)
{
	const struct file_desc *d = ud;
	pms_json_begin_object(j, "target");
	pms_json_str(j, "kind", "file");
	pms_json_null(j, "pid");
	pms_json_begin_array(j, "argv");
	pms_json_end_array(j);
	/* the first file; "files" lists every one of a merged report */
	pms_json_str(j, "path", pms_session_file_path(d->ses, 0));
	pms_json_bool(j, "pipe_mode", d->pipe);
	pms_json_uint(j, "records", d->st.records);
	pms_json_uint(j, "skipped_records", d->st.bad_records);
	pms_json_bool(j, "truncated", d->st.truncated);
	pms_json_bool(j, "unfinished", d->st.unfinished);
	pms_json_uint(j, "skipped_features", d->st.bad_features);
	/* what the reader skipped, of every file (a merged report names it) */
	pms_json_begin_array(j, "problems");
	const char *pr;
	size_t f;
	for (size_t i = 0; (pr = pms_session_problem(d->ses, i, &f)); i++) {
		if (d->nin == 1) {
			pms_json_str(j, NULL, pr);
		} else {
			char *m = NULL;
			if (asprintf(&m, "%s: %s", pms_session_file_path(d->ses, f), pr) < 0)
				m = NULL;
			pms_json_str(j, NULL, m ? m : pr);
			free(m);
		}
	}
	pms_json_end_array(j);
	json_events(j, pms_session_reader(d->ses, 0));
	pms_json_begin_array(j, "files");
	for (size_t i = 0; i < d->nin; i++) {
		const struct pms_perfdata_reader *r = pms_session_reader(d->ses, i);
		const struct pms_perfdata_info *info = pms_perfdata_reader_info(r);
		const struct pms_perfdata_stats *st = pms_perfdata_reader_stats(r);
		pms_json_begin_object(j, NULL);
		pms_json_str(j, "path", pms_session_file_path(d->ses, i));
		pms_json_str(j, "host", info->hostname);
		pms_json_uint(j, "records", st->records);
		pms_json_uint(j, "skipped_records", st->bad_records);
		pms_json_bool(j, "truncated", st->truncated);
		pms_json_bool(j, "unfinished", st->unfinished);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
	pms_json_end_object(j);
	pms_json_null(j, "workload");
	pms_json_begin_object(j, "exit");
	pms_json_str(j, "how", "none");
	pms_json_null(j, "code");
	pms_json_null(j, "signal");
	pms_json_bool(j, "interrupted", false);
	pms_json_bool(j, "timed_out", false);
	pms_json_end_object(j);
	pms_json_double(j, "duration_s", d->seconds);
	mem_advise_json(j, d->ma, NULL, 0, NULL);
}

static int csv_row(void *ud, const struct pms_memsrc_sample *x)
{
	(void)ud;
	struct pms_memreport_sample row = { x->ms, x->mem_node, x->cpu_node, x->node_from_phys,
					    -1, -1, -1, 0 };
	pms_render_mem_csv_row(stdout, &row, NULL);
	return 0;
}

/* The report's first line: the file, or the files merged. */
static void report_target(char *buf, size_t size, const char *const *paths, size_t nin,
			  const struct file_desc *fdsc)
{
	if (nin == 1)
		snprintf(buf, size, "%s (%s mode, %" PRIu64 " records, %" PRIu64 " skipped)",
			 paths[0], fdsc->pipe ? "pipe" : "file", fdsc->st.records, fdsc->st.bad_records);
	else
		snprintf(buf, size, "%s and %zu more file(s) merged (%" PRIu64
			 " records, %" PRIu64 " skipped)",
			 paths[0], nin - 1, fdsc->st.records, fdsc->st.bad_records);
}

/* The files' header features (--header, --header-only). */
static void report_headers(struct pms_session *ses, const char *const *paths, size_t nin,
			   bool after_report)
{
	for (size_t i = 0; i < nin; i++) {
		if (after_report)
			printf("\n");
		if (nin > 1)
			printf("%s# %s\n", i && !after_report ? "\n" : "", paths[i]);
		cli_perfdata_print_header(stdout, pms_session_reader(ses, i));
	}
}

struct report_opts {
	bool json, csv, header, symbols, samples, demangle, types, show_nr, header_only;
	int fetch; /* --fetch: 1 by function, 2 by line */
	size_t top, jobs, nin;
	const char *paths[MAX_INPUTS];
	const char *sort_keys, *fields;
	char field_keys[256];
	int cols[PMS_SORTHIST_MAXKEYS + 3];
	size_t ncols;
	double pct_limit;
	struct report_cg cg; /* --children, --no-children, -g */
	bool no_inline;
	struct pms_sorthist *sorter; /* the session's once handed over */
	bool sorter_given;
	struct mem_export *xo;
	struct mem_advise *ma;
};

/* The library's call-graph flags of --children/--no-children/-g: perf's
 * children unless --no-children, chains for flat and folded, perf's
 * caller order by default with children, else callee. */
static unsigned report_cg_flags(const struct report_cg *cg)
{
	unsigned fl = 0;
	if (cg->children != 0)
		fl |= PMS_SORTHIST_CHILDREN;
	if (cg->ch.mode != PMS_CG_NONE)
		fl |= PMS_SORTHIST_CHAINS;
	if (cg->order == 1 || (cg->order < 0 && cg->children != 0))
		fl |= PMS_SORTHIST_CALLER;
	return fl;
}

/* -1: go on; else the exit status (a usage error printed). */
static int report_parse(int argc, char **argv, struct report_opts *o)
{
	struct cli_parser p;
	int c, xr;
	long v;
	bool g_given = false;
	cli_parser_init(&p, &cli_spec_report, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		switch (c) {
		case O_JSON: o->json = true; break;
		case O_CSV: o->csv = true; break;
		case O_TYPES: o->types = true; break;
		case O_FETCH:
			if (p.arg && strcmp(p.arg, "line"))
				return cli_bad_arg(&p, "'line' or nothing");
			o->fetch = p.arg ? 2 : 1;
			break;
		case O_SAMPLES: o->samples = true; break;
		case O_HEADER: o->header = true; break;
		case O_HEADERONLY: o->header_only = o->header = true; break;
		case 's': o->sort_keys = p.arg; break;
		case 'n': o->show_nr = true; break;
		case O_CHILDREN: o->cg.set = true; o->cg.children = 1; break;
		case O_NOCHILDREN: o->cg.set = true; o->cg.children = 0; break;
		case O_NOINLINE: o->no_inline = true; break;
		case 'g': {
			const char *bad = NULL;
			if (report_cg_parse(p.arg, &o->cg, &bad) < 0)
				return cli_usage(&cli_spec_report, "-g %s: %s", p.arg, bad);
			g_given = true;
			break;
		}
		case 'F': o->fields = p.arg; break;
		case O_PCTLIMIT:
			if (cli_parse_double(p.arg, 0, 100, &o->pct_limit) < 0)
				return cli_bad_arg(&p, "a percentage 0..100");
			break;
		case O_NOSYM: o->symbols = false; break;
		case O_NODEMANGLE: o->demangle = false; break;
		case O_STDIO: break;
		case O_ADVISE: o->ma->advise = true; break;
		case 'i':
		case CLI_OPERAND:
			/* -i FILE as perf takes it, or `report FILE` as users type it;
			 * several files make one merged report */
			if (o->nin == MAX_INPUTS)
				return cli_usage(&cli_spec_report, "at most %d input files", MAX_INPUTS);
			o->paths[o->nin++] = p.arg;
			break;
		case O_TOP:
			if (cli_parse_long(p.arg, 1, 100000, &v) < 0)
				return cli_bad_arg(&p, "1..100000");
			o->top = (size_t)v;
			break;
		case O_JOBS:
			if (cli_parse_long(p.arg, 1, 4096, &v) < 0)
				return cli_bad_arg(&p, "1..4096");
			o->jobs = (size_t)v;
			break;
		default:
			xr = mem_export_cli(o->xo, &p, c);
			if (xr == 0)
				return cli_usage(&cli_spec_report, "'%s' is not an argument of report", p.opt);
			if (xr != 1)
				return CLI_EXIT_USAGE;
			break;
		}
	}
	if (c != CLI_END)
		return cli_exit_code(c);
	/* --children or --no-children alone: the table (perf would add its
	 * graph); -g without a mode word: perf's graph */
	if (!g_given)
		o->cg.ch.mode = PMS_CG_NONE;
	if (p.ind < argc)
		return cli_usage(&cli_spec_report, "'%s' is not an argument of report", argv[p.ind]);
	if (o->json + o->csv + o->xo->folded > 1) {
		return cli_usage(&cli_spec_report, "--json, --csv and --folded exclude each other");
	}
	if (o->types && (o->csv || o->samples || o->xo->folded || o->ma->advise))
		return cli_usage(&cli_spec_report,
				 "--types goes with the text or --json report, --html and --pprof");
	if (o->samples && !o->json) {
		return cli_usage(&cli_spec_report, "--samples goes with --json");
	}
	if (o->cg.set && !o->sort_keys && !o->fields)
		o->sort_keys = "comm,dso,sym"; /* perf report's default keys */
	if ((o->sort_keys || o->fields) && (o->json || o->csv || o->xo->folded || o->samples || o->ma->advise || o->header_only))
		return cli_usage(&cli_spec_report, "--sort is a report of its own: not with --json, "
				 "--csv, --folded, --samples, --advise or --header-only");
	if (o->fields) {
		const char *bad = NULL;
		o->ncols = sizeof(o->cols) / sizeof(o->cols[0]);
		if (o->sort_keys)
			return cli_usage(&cli_spec_report, "-F names the sort keys itself: not with --sort");
		if (report_fields_parse(o->fields, o->field_keys, sizeof(o->field_keys), o->cols,
					&o->ncols, &bad) < 0)
			return cli_usage(&cli_spec_report, "-F %s: %s", o->fields, bad);
		o->sort_keys = o->field_keys;
	}
	if (o->sort_keys) {
		if (pms_sorthist_new(o->sort_keys, &o->sorter) < 0)
			return cli_usage(&cli_spec_report, "--sort %s: %s", o->sort_keys,
					 pms_error_last());
		if (o->cg.set && pms_sorthist_set_callgraph(o->sorter, report_cg_flags(&o->cg) |
				(o->no_inline ? PMS_SORTHIST_NO_INLINE : 0)) < 0)
			return cli_fail("report: -g");
	}
	if (o->ma->advise && (o->csv || o->xo->folded))
		return cli_usage(&cli_spec_report, "--advise goes with the text or --json report");
	if (!o->nin)
		o->paths[o->nin++] = "perf.data";
	for (size_t i = 0; i < o->nin; i++)
		for (size_t k = 0; k < i; k++)
			if (!strcmp(o->paths[i], "-") && !strcmp(o->paths[k], "-"))
				return cli_usage(&cli_spec_report, "stdin ('-') can be read once");

	return -1;
}

/* The session: the files decoded (several of the aggregate report in
 * parallel, one profile each, merged in file order) into the profile, the
 * call paths and the advisor; --csv and --sort take each sample, --types
 * its own sinks.  0, or the exit status (said). */
static int report_open(const struct cli_global *g, struct report_opts *o,
		       struct pms_sys **sys, struct pms_session **ses)
{
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.top = o->top;
	/* exports need the samples (and the files of a tracked command keep
	 * them for the allocation sites: the session decides, docs/mem.md) */
	po.aggregate = !o->samples && !mem_export_wanted(o->xo);
	/* a recorded file: no distances of its machine, no free memory */
	struct pms_advise_opts ao = PMS_ADVISE_OPTS_INIT;
	ao.page_size = (size_t)sysconf(_SC_PAGESIZE);
	/* Kernel frames are shown as recorded (the recording's kernel, not
	 * this one's kallsyms). */
	struct pms_pathprof_opts pp = PMS_PATHPROF_OPTS_INIT;
	pp.top = o->top;
	pp.kept_samples = o->samples || mem_export_wanted(o->xo); /* the exports' stacks */
	pp.top_only = !o->xo->folded && !mem_export_wanted(o->xo); /* no stack needs `all` */
	pp.no_inline = o->no_inline;
	const struct pms_session_callbacks scb = { csv_row, NULL, NULL };
	struct pms_session_opts so = PMS_SESSION_OPTS_INIT;
	so.profile = !o->csv && !o->sorter && !o->header_only;
	so.profile_opts = &po;
	so.advise_opts = o->ma->advise ? &ao : NULL;
	so.jobs = o->jobs;
	so.symbols = o->symbols;
	so.demangle = o->demangle;
	if (o->sorter) {
		*sys = cli_open_sys(g); /* names of sym, dso, symbol_daddr */
	} else if (o->header_only) {
		; /* the files' headers alone */
	} else if (o->types && !mem_export_wanted(o->xo)) {
		so.profile = false; /* the types sink alone (--html, --pprof: mem's
				     * exports of the report, with the types) */
	} else if (o->csv) {
		pms_render_mem_csv_header(stdout);
		so.callbacks = &scb;
	} else if ((*sys = cli_open_sys(g))) {
		so.paths_opts = &pp;
	}
	if (pms_session_open_files(*sys, o->paths, o->nin, &so, ses) < 0 ||
	    (o->types && pms_session_set_types(*ses) < 0) ||
	    (o->sorter && (o->sorter_given = true) && pms_session_set_sort(*ses, o->sorter) < 0))
		return cli_fail("report: profile");
	return 0;
}

/* The allocation sites of a tracked run's file (report -i of `mem -o`). */
static void report_alloc(struct pms_session *ses, const struct report_opts *o,
			 struct pms_memreport *rep, struct pms_pathreport *prep,
			 struct alloc_cli *ac, struct pms_alloc_report **arep)
{
	if (!pms_session_has_alloc(ses))
		return;
	ac->want = true;
	ac->paths = prep;
	ac->rep = rep;
	ac->samples = o->samples;
	ac->top = o->top;
	if (pms_session_alloc_report(ses, rep, arep) < 0)
		snprintf(ac->why, sizeof(ac->why), "allocation sites: %s", pms_error_last());
	ac->ar = *arep;
	if (*arep) {
		ac->rate = (*arep)->rate;
		ac->threshold = (*arep)->threshold;
	}
}

int cmd_report(const struct cli_global *g, int argc, char **argv)
{
	struct pms_sys *sys = NULL;
	struct pms_session *ses = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_pathreport *prep = NULL;
	struct mem_export xo = { 0 };
	struct mem_advise ma = { 0 };
	struct alloc_cli ac = { .fd = -1 };
	struct pms_alloc_report *arep = NULL;
	int rc, ret;

	struct report_opts o = { .symbols = true, .demangle = true, .top = 10, .xo = &xo, .ma = &ma,
				 .cg = REPORT_CG_INIT };
	ret = report_parse(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (o.fetch) /* the front-end view of one file, a report of its own */
		return report_fetch(g, o.nin ? o.paths[0] : "perf.data", o.fetch == 2, o.top);
	ret = 0;
	bool json = o.json, csv = o.csv, header = o.header;
	bool samples = o.samples, types = o.types;
	bool show_nr = o.show_nr, header_only = o.header_only;
	size_t top = o.top, nin = o.nin;
	const char *const *paths = o.paths;
	double pct_limit = o.pct_limit;
	bool sorter = o.sorter != NULL;
	/* the export files before any reading: a bad path costs no work */
	if ((ret = mem_export_open(&xo, "report")) != 0)
		goto out;
	if ((ret = report_open(g, &o, &sys, &ses)) != 0)
		goto out;
	rc = pms_session_run(ses);
	for (size_t i = 0; i < nin; i++) {
		const char *e = pms_session_file_error(ses, i);
		if (e) {
			fprintf(stderr, "pmuscope: report: %s: %s (the report covers the records before it)\n",
				paths[i], e);
			ret = 1;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "pmuscope: report: %s\n", pms_error_last());
		ret = 1;
		goto out;
	}
	if (csv)
		goto out;
	if (sorter) {
		if (pms_render_sort_table(o.sorter, show_nr, pct_limit, cli_verbosity >= 0,
					  o.fields ? o.cols : NULL, o.ncols, o.cg.set ? &o.cg.ch : NULL,
					  stdout) < 0)
			ret = cli_fail("report: --sort");
		goto out;
	}
	if (header_only) {
		report_headers(ses, paths, nin, false);
		goto out;
	}
	if (types && !mem_export_wanted(&xo)) {
		cli_session_problems("report", ses, paths, nin);
		if (pms_render_types(stdout, pms_session_typeprof(ses), json, top, cli_json_meta()) < 0) {
			fprintf(stderr, "pmuscope: report: types: %s\n", pms_error_last());
			ret = 1;
		}
		goto out;
	}

	/* The events, now that the files (or streams) have given all of them;
	 * a merged report takes its engine from the first file whose engine
	 * gives a data source, else from the first file. */
	struct pms_memsrc_info info;
	pms_session_info(ses, &info);
	struct file_desc fdsc = { ses, nin, info.pipe, { 0 },
				  (double)pms_session_span_ns(ses) / 1e9, &ma };
	pms_session_file_stats(ses, &fdsc.st);
	cli_session_problems("report", ses, paths, nin);
	if (pms_session_report(ses, NULL, &rep, &prep) < 0) {
		ret = cli_fail("report: building the report");
		goto out;
	}
	report_alloc(ses, &o, rep, prep, &ac, &arep);
	ma.adv_before = pms_session_take_advisor(ses);
	if (mem_advise_finish(&ma, NULL, rep) < 0) {
		ret = 1;
		goto out;
	}
	char target[1024];
	report_target(target, sizeof(target), paths, nin, &fdsc);
	struct pms_render_alloc av;
	alloc_cli_view(&ac, &av);
	struct pms_render_mem_opts mr = {
		.version = PMS_RENDER_MEM_OPTS_VERSION, .out = stdout, .meta = cli_json_meta(),
		.verbosity = cli_verbosity, .command = "report", .target_text = target, .seconds = fdsc.seconds,
		.sample_type = info.sample_type, .samples = samples, .oracle = false,
		.nodes_why = info.nodes_why,
		.json_run = report_json_run, .ud = &fdsc,
		.paths = ac.want ? ac.paths : prep, .alloc = ac.want ? &av : NULL,
	};
	pms_session_periods(ses, &mr.events, &mr.period_min, &mr.period_max);
	xo.ses = ses;
	xo.paths = prep;
	/* --types: the page's types section; the pprof labels as mem's */
	mr.types = types ? pms_session_typeprof(ses) : NULL;
	if (alloc_export_prepare(&ac, &xo) < 0) {
		ret = 1;
		goto out;
	}
	mem_render_warn_loss(&mr, rep); /* on the terminal too, whatever the form */
	int xrc = mem_export_write(&xo, &mr, rep);
	if (xrc)
		ret = xrc;
	if (types) {
		/* the report --types alone would print */
		if (pms_render_types(stdout, mr.types, json, top, cli_json_meta()) < 0) {
			fprintf(stderr, "pmuscope: report: types: %s\n", pms_error_last());
			ret = 1;
		}
	} else if (xo.folded) {
		/* the collapsed stacks were the output */
	} else if (json) {
		if (pms_render_mem_json(&mr, rep) < 0)
			fprintf(stderr, "pmuscope: writing JSON failed\n");
	} else {
		(void)pms_render_mem_text(&mr, rep);
		mem_advise_text(&ma, NULL, 0, NULL);
		if (header)
			report_headers(ses, paths, nin, true);
	}
out:
	mem_export_abandon(&xo); /* not written: nothing left under their names */
	fflush(stdout);
	alloc_cli_done(&ac);
	pms_alloc_report_free(arep);
	pms_memreport_free(rep);
	pms_pathreport_free(prep);
	mem_advise_release(&ma);
	pms_session_free(ses);
	pms_sys_free(sys);
	if (!o.sorter_given)
		pms_sorthist_free(o.sorter);
	return ret;
}
