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
#include "callpath_render.h"
#include "mem_advise.h"
#include "mem_export.h"
#include "mem_render.h"
#include "types_render.h"
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
       O_JOBS, O_PCTLIMIT, O_HEADERONLY, O_TYPES };

static const struct cli_opt opts[] = {
	{ "input", 'i', CLI_ARG, "FILE", 'i',
	  "the perf.data file; '-' reads a pipe-mode stream from stdin\n"
	  "(default perf.data).  Several -i merge their files into one\n"
	  "report (e.g. one per host), each file's samples labelled\n"
	  "with its host name (HOSTNAME header, else its path)" },
	{ "top", 0, CLI_ARG, "N", O_TOP, "entries per top list (default 10)" },
	{ "jobs", 0, CLI_ARG, "N", O_JOBS,
	  "several files: decode up to N at a time, one thread each,\n"
	  "into one profile each, merged in file order (default: the\n"
	  "online CPUs; 1: one after the other, the same report)" },
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "the report as JSON (schema: docs/mem.md; target.kind \"file\")" },
	{ "samples", 0, CLI_NOARG, NULL, O_SAMPLES, "with --json: every sample too (keeps them all in memory)" },
	{ "csv", 0, CLI_NOARG, NULL, O_CSV, "one CSV row per sample, as `pmuscope mem --csv`" },
	{ "types", 0, CLI_NOARG, NULL, O_TYPES,
	  "samples per data type and struct member (DWARF of the\n"
	  "binaries here; docs/types.md): loads, stores, remote share,\n"
	  "latency, threads; unresolved samples by reason; with --json\n"
	  "as JSON" },
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
	  "and physical address), node (the CPU's), memnode (the data's)" },
	{ "show-nr-samples", 'n', CLI_NOARG, NULL, 'n', "with --sort: a Samples column" },
	{ "percent-limit", 0, CLI_ARG, "PCT", O_PCTLIMIT, "with --sort: no rows under PCT% overhead" },
	{ "header-only", 0, CLI_NOARG, NULL, O_HEADERONLY, "print the header features only" },
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
		"    merged in file order: the report is the same for every --jobs.",
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

static void json_events(struct json *j, struct pms_perfdata_reader *r)
{
	char hx[24];
	size_t nattrs = pms_perfdata_reader_nattrs(r);
	cli_json_begin_array(j, "events");
	for (size_t i = 0; i < nattrs; i++) {
		const struct pms_perfdata_attr *a = pms_perfdata_reader_attr(r, i);
		cli_json_begin_object(j, NULL);
		cli_json_str(j, "name", a->name);
		cli_json_uint(j, "type", a->attr->type);
		snprintf(hx, sizeof(hx), "0x%" PRIx64, (uint64_t)a->attr->config);
		cli_json_str(j, "config", hx);
		snprintf(hx, sizeof(hx), "0x%" PRIx64, (uint64_t)a->attr->sample_type);
		cli_json_str(j, "sample_type", hx);
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
}

static void report_json_run(struct json *j, const void *ud)
{
	const struct file_desc *d = ud;
	cli_json_begin_object(j, "target");
	cli_json_str(j, "kind", "file");
	cli_json_null(j, "pid");
	cli_json_begin_array(j, "argv");
	cli_json_end_array(j);
	/* the first file; "files" lists every one of a merged report */
	cli_json_str(j, "path", pms_session_file_path(d->ses, 0));
	cli_json_bool(j, "pipe_mode", d->pipe);
	cli_json_uint(j, "records", d->st.records);
	cli_json_uint(j, "skipped_records", d->st.bad_records);
	cli_json_bool(j, "truncated", d->st.truncated);
	cli_json_bool(j, "unfinished", d->st.unfinished);
	cli_json_uint(j, "skipped_features", d->st.bad_features);
	/* what the reader skipped, of every file (a merged report names it) */
	cli_json_begin_array(j, "problems");
	const char *pr;
	size_t f;
	for (size_t i = 0; (pr = pms_session_problem(d->ses, i, &f)); i++) {
		if (d->nin == 1) {
			cli_json_str(j, NULL, pr);
		} else {
			char *m = NULL;
			if (asprintf(&m, "%s: %s", pms_session_file_path(d->ses, f), pr) < 0)
				m = NULL;
			cli_json_str(j, NULL, m ? m : pr);
			free(m);
		}
	}
	cli_json_end_array(j);
	json_events(j, pms_session_reader(d->ses, 0));
	cli_json_begin_array(j, "files");
	for (size_t i = 0; i < d->nin; i++) {
		const struct pms_perfdata_reader *r = pms_session_reader(d->ses, i);
		const struct pms_perfdata_info *info = pms_perfdata_reader_info(r);
		const struct pms_perfdata_stats *st = pms_perfdata_reader_stats(r);
		cli_json_begin_object(j, NULL);
		cli_json_str(j, "path", pms_session_file_path(d->ses, i));
		cli_json_str(j, "host", info->hostname);
		cli_json_uint(j, "records", st->records);
		cli_json_uint(j, "skipped_records", st->bad_records);
		cli_json_bool(j, "truncated", st->truncated);
		cli_json_bool(j, "unfinished", st->unfinished);
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
	cli_json_end_object(j);
	cli_json_null(j, "workload");
	cli_json_begin_object(j, "exit");
	cli_json_str(j, "how", "none");
	cli_json_null(j, "code");
	cli_json_null(j, "signal");
	cli_json_bool(j, "interrupted", false);
	cli_json_bool(j, "timed_out", false);
	cli_json_end_object(j);
	cli_json_double(j, "duration_s", d->seconds);
	mem_advise_json(j, d->ma, NULL, 0, NULL);
}

static int csv_row(void *ud, const struct pms_memsrc_sample *x)
{
	(void)ud;
	struct pms_memreport_sample row = { x->ms, x->mem_node, x->cpu_node, x->node_from_phys,
					    -1, -1, -1, 0 };
	mem_render_csv_row(&row, NULL);
	return 0;
}

int cmd_report(const struct cli_global *g, int argc, char **argv)
{
	bool json = false, csv = false, header = false, symbols = true, samples = false;
	bool demangle = true, types = false;
	size_t top = 10, jobs = 0;
	struct types_cli *tc = NULL;
	const char *paths[MAX_INPUTS];
	size_t nin = 0;
	struct pms_sys *sys = NULL;
	struct pms_session *ses = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_export_build_id *bids = NULL;
	struct pms_pathreport *prep = NULL;
	struct alloc_cli ac = { .fd = -1 };
	struct pms_alloc_report *arep = NULL;
	struct mem_export xo = { 0 };
	struct mem_advise ma = { 0 };
	struct report_sort *sorter = NULL;
	const char *sort_keys = NULL;
	bool show_nr = false, header_only = false;
	double pct_limit = 0;
	int rc, ret = 0;

	struct cli_parser p;
	int c, xr;
	long v;
	cli_parser_init(&p, &cli_spec_report, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		switch (c) {
		case O_JSON: json = true; break;
		case O_CSV: csv = true; break;
		case O_TYPES: types = true; break;
		case O_SAMPLES: samples = true; break;
		case O_HEADER: header = true; break;
		case O_HEADERONLY: header_only = header = true; break;
		case 's': sort_keys = p.arg; break;
		case 'n': show_nr = true; break;
		case O_PCTLIMIT:
			if (cli_parse_double(p.arg, 0, 100, &pct_limit) < 0)
				return cli_bad_arg(&p, "a percentage 0..100");
			break;
		case O_NOSYM: symbols = false; break;
		case O_NODEMANGLE: demangle = false; break;
		case O_STDIO: break;
		case O_ADVISE: ma.advise = true; break;
		case 'i':
		case CLI_OPERAND:
			/* -i FILE as perf takes it, or `report FILE` as users type it;
			 * several files make one merged report */
			if (nin == MAX_INPUTS)
				return cli_usage(&cli_spec_report, "at most %d input files", MAX_INPUTS);
			paths[nin++] = p.arg;
			break;
		case O_TOP:
			if (cli_parse_long(p.arg, 1, 100000, &v) < 0)
				return cli_bad_arg(&p, "1..100000");
			top = (size_t)v;
			break;
		case O_JOBS:
			if (cli_parse_long(p.arg, 1, 4096, &v) < 0)
				return cli_bad_arg(&p, "1..4096");
			jobs = (size_t)v;
			break;
		default:
			xr = mem_export_cli(&xo, &p, c);
			if (xr == 0)
				return cli_usage(&cli_spec_report, "'%s' is not an argument of report", p.opt);
			if (xr != 1)
				return CLI_EXIT_USAGE;
			break;
		}
	}
	if (c != CLI_END)
		return cli_exit_code(c);
	if (p.ind < argc)
		return cli_usage(&cli_spec_report, "'%s' is not an argument of report", argv[p.ind]);
	if (json + csv + xo.folded > 1) {
		return cli_usage(&cli_spec_report, "--json, --csv and --folded exclude each other");
	}
	if (types && (csv || samples || xo.folded || ma.advise || mem_export_wanted(&xo)))
		return cli_usage(&cli_spec_report, "--types goes with the text or --json report alone");
	if (samples && !json) {
		return cli_usage(&cli_spec_report, "--samples goes with --json");
	}
	if (sort_keys && (json || csv || xo.folded || samples || ma.advise || header_only))
		return cli_usage(&cli_spec_report, "--sort is a report of its own: not with --json, "
				 "--csv, --folded, --samples, --advise or --header-only");
	if (sort_keys) {
		char err[512];
		if (report_sort_new(sort_keys, &sorter, err, sizeof(err)) < 0)
			return cli_usage(&cli_spec_report, "--sort %s: %s", sort_keys, err);
	}
	if (ma.advise && (csv || xo.folded))
		return cli_usage(&cli_spec_report, "--advise goes with the text or --json report");
	if (!nin)
		paths[nin++] = "perf.data";
	for (size_t i = 0; i < nin; i++)
		for (size_t k = 0; k < i; k++)
			if (!strcmp(paths[i], "-") && !strcmp(paths[k], "-"))
				return cli_usage(&cli_spec_report, "stdin ('-') can be read once");

	/* The session: the files decoded (several of the aggregate report in
	 * parallel, one profile each, merged in file order) into the profile,
	 * the call paths and the advisor; --csv only prints each sample. */
	/* the export files before any reading: a bad path costs no work */
	if ((ret = mem_export_open(&xo, "report")) != 0)
		return ret;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.top = top;
	/* a `mem -o` file of a tracked command: the samples are kept for the
	 * allocation sites (docs/mem.md) */
	bool with_alloc = nin == 1 && pms_session_file_has_alloc(paths[0]);
	po.aggregate = !samples && !mem_export_wanted(&xo) && !with_alloc; /* exports need the samples */
	/* a recorded file: no distances of its machine, no free memory */
	struct pms_advise_opts ao = PMS_ADVISE_OPTS_INIT;
	ao.page_size = (size_t)sysconf(_SC_PAGESIZE);
	/* Kernel frames are shown as recorded (the recording's kernel, not
	 * this one's kallsyms). */
	struct pms_pathprof_opts pp = PMS_PATHPROF_OPTS_INIT;
	pp.top = top;
	pp.kept_samples = samples || mem_export_wanted(&xo); /* the exports' stacks */
	pp.top_only = !xo.folded && !mem_export_wanted(&xo); /* no stack needs `all` */
	const struct pms_session_callbacks scb = { sorter ? report_sort_add : csv_row, NULL, NULL };
	const struct pms_session_callbacks tcb = { types_cli_sample, types_cli_sideband, NULL };
	struct pms_session_opts so = PMS_SESSION_OPTS_INIT;
	so.profile = !csv && !sorter && !header_only;
	so.profile_opts = &po;
	so.advise_opts = ma.advise ? &ao : NULL;
	so.jobs = jobs;
	so.symbols = symbols;
	so.demangle = demangle;
	if (sorter) {
		so.callbacks = &scb;
		so.ud = sorter;
	} else if (header_only) {
		; /* the files' headers alone */
	} else if (types) {
		if (types_cli_open(&tc) < 0) {
			ret = cli_fail("report: types");
			goto out;
		}
		so.profile = false;
		so.callbacks = &tcb;
		so.ud = tc;
	} else if (csv) {
		mem_render_csv_header();
		so.callbacks = &scb;
	} else if ((sys = cli_open_sys(g))) {
		so.paths_opts = &pp;
	}
	if (pms_session_open_files(sys, paths, nin, &so, &ses) < 0) {
		ret = cli_fail("report: profile");
		goto out;
	}
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
		if (report_sort_failed(sorter))
			ret = cli_fail("report: --sort");
		else
			report_sort_print(sorter, show_nr, pct_limit, stdout);
		goto out;
	}
	for (size_t i = 0; header_only && i < nin; i++) {
		if (nin > 1)
			printf("%s# %s\n", i ? "\n" : "", paths[i]);
		cli_perfdata_print_header(stdout, pms_session_reader(ses, i));
	}
	if (header_only)
		goto out;
	if (types) {
		cli_session_problems("report", ses, paths, nin);
		if (types_cli_render(tc, json, top))
			ret = 1;
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
	if (with_alloc && pms_session_has_alloc(ses)) {
		ac.want = true;
		ac.paths = prep;
		ac.rep = rep;
		ac.samples = samples;
		ac.top = top;
		if (pms_session_alloc_report(ses, rep, &arep) < 0)
			snprintf(ac.why, sizeof(ac.why), "allocation sites: %s", pms_error_last());
		ac.ar = arep;
		if (arep) {
			ac.rate = arep->rate;
			ac.threshold = arep->threshold;
		}
	}
	ma.adv_before = pms_session_take_advisor(ses);
	if (mem_advise_finish(&ma, NULL, rep) < 0) {
		ret = 1;
		goto out;
	}
	char target[1024];
	if (nin == 1)
		snprintf(target, sizeof(target), "%s (%s mode, %" PRIu64 " records, %" PRIu64 " skipped)",
			 paths[0], fdsc.pipe ? "pipe" : "file", fdsc.st.records, fdsc.st.bad_records);
	else
		snprintf(target, sizeof(target), "%s and %zu more file(s) merged (%" PRIu64
			 " records, %" PRIu64 " skipped)",
			 paths[0], nin - 1, fdsc.st.records, fdsc.st.bad_records);
	struct mem_render mr = {
		.command = "report", .target_text = target, .seconds = fdsc.seconds,
		.sample_type = info.sample_type, .samples = samples, .oracle = false,
		.nodes_why = info.nodes_why,
		.json_run = report_json_run, .ud = &fdsc,
		.json_extra = callpath_json_extra, .text_extra = callpath_text_extra, .extra_ud = prep,
	};
	if (ac.want) {
		mr.json_extra = alloc_json_extra;
		mr.text_extra = alloc_text_extra;
		mr.extra_ud = &ac;
	}
	pms_session_periods(ses, &mr.events, &mr.period_min, &mr.period_max);
	/* Build ids of every file (perf names the kernel [kernel.kallsyms];
	 * the report [kernel]). */
	size_t nbids = 0;
	const struct pms_perfdata_info **infos = calloc(nin + 1, sizeof(*infos));
	for (size_t i = 0; infos && i < nin; i++)
		infos[i] = pms_perfdata_reader_info(pms_session_reader(ses, i));
	if (!infos || pms_export_build_ids(NULL, infos, nin, &bids, &nbids) < 0) {
		bids = NULL;
		nbids = 0;
	}
	free(infos);
	xo.host = nin == 1 ? pms_perfdata_reader_info(pms_session_reader(ses, 0))->hostname : NULL;
	xo.maps = pms_memprof_maps(pms_session_profile(ses));
	xo.paths = prep;
	xo.build_ids = bids;
	xo.nbuild_ids = nbids;
	mem_render_warn_loss(&mr, rep); /* on the terminal too, whatever the form */
	int xrc = mem_export_write(&xo, &mr, rep);
	if (xrc)
		ret = xrc;
	if (xo.folded) {
		/* the collapsed stacks were the output */
	} else if (json) {
		mem_render_json(&mr, rep);
	} else {
		mem_render_text(&mr, rep);
		mem_advise_text(&ma, NULL, 0, NULL);
		for (size_t i = 0; header && i < nin; i++) {
			printf("\n");
			if (nin > 1)
				printf("# %s\n", paths[i]);
			cli_perfdata_print_header(stdout, pms_session_reader(ses, i));
		}
	}
out:
	mem_export_abandon(&xo); /* not written: nothing left under their names */
	fflush(stdout);
	free(bids);
	pms_alloc_report_free(arep);
	pms_memreport_free(rep);
	pms_pathreport_free(prep);
	mem_advise_release(&ma);
	pms_session_free(ses);
	types_cli_close(tc);
	pms_sys_free(sys);
	report_sort_free(sorter);
	return ret;
}
