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

#include "cli.h"
#include "cli_opt.h"
#include "mem_advise.h"
#include "mem_render.h"
#include "pmuscope/error.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/event.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/report.h"
#include "pmuscope/symbols.h"

int cmd_report(const struct cli_global *g, int argc, char **argv);

/* In cmd_script.c. */
void cli_perfdata_print_header(FILE *o, struct pms_perfdata_reader *r);
int cli_perfdata_open(const char *cmd, const char *path, int *fd, struct pms_perfdata_reader **r);
void cli_perfdata_problems(const char *cmd, const char *path,
			   const struct pms_perfdata_reader *r);

enum { O_JSON = 256, O_CSV, O_SAMPLES, O_HEADER, O_NOSYM, O_TOP, O_STDIO, O_ADVISE, O_NODEMANGLE };

static const struct cli_opt opts[] = {
	{ "input", 'i', CLI_ARG, "FILE", 'i',
	  "the perf.data file; '-' reads a pipe-mode stream from stdin\n"
	  "(default perf.data)" },
	{ "top", 0, CLI_ARG, "N", O_TOP, "entries per top list (default 10)" },
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "the report as JSON (schema: docs/mem.md; target.kind \"file\")" },
	{ "samples", 0, CLI_NOARG, NULL, O_SAMPLES, "with --json: every sample too (keeps them all in memory)" },
	{ "csv", 0, CLI_NOARG, NULL, O_CSV, "one CSV row per sample, as `pmuscope mem --csv`" },
	{ "header", 0, CLI_NOARG, NULL, O_HEADER, "also print the header features (text)" },
	{ "no-symbols", 0, CLI_NOARG, NULL, O_NOSYM, "do not name instructions or data objects" },
	{ "no-demangle", 0, CLI_NOARG, NULL, O_NODEMANGLE, "show C++/Rust symbols as they are in the binary" },
	{ "advise", 0, CLI_NOARG, NULL, O_ADVISE,
	  "NUMA placement advice for the hot data (docs/advise.md);\n"
	  "needs samples with both nodes (a file with physical\n"
	  "addresses: pmuscope mem --phys -o, perf mem record --phys-data)" },
	{ "stdio", 0, CLI_NOARG, NULL, O_STDIO, "accepted for perf's habit: the text report is the default" },
	{ 0 },
};

const struct cli_spec cli_spec_report = {
	.name = "report",
	.synopsis = "report [-i FILE] [--json [--samples] | --csv] [--top N] [--header]",
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
		"    every weight of a live run.",
	.opts = opts,
	.footer = "Exit status: 0 ok, 1 the file cannot be read, 2 usage error.",
};


/* What the text and JSON say about the file (the report's "target"). */
struct file_desc {
	const char *path;
	bool pipe;
	const struct pms_perfdata_stats *st;
	double seconds;
	size_t nattrs;
	struct pms_perfdata_reader *r;
	const struct mem_advise *ma; /* --advise */
};

static void report_json_run(struct json *j, const void *ud)
{
	const struct file_desc *d = ud;
	char hx[24];
	cli_json_begin_object(j, "target");
	cli_json_str(j, "kind", "file");
	cli_json_null(j, "pid");
	cli_json_begin_array(j, "argv");
	cli_json_end_array(j);
	cli_json_str(j, "path", d->path);
	cli_json_bool(j, "pipe_mode", d->pipe);
	cli_json_uint(j, "records", d->st->records);
	cli_json_uint(j, "skipped_records", d->st->bad_records);
	cli_json_bool(j, "truncated", d->st->truncated);
	cli_json_bool(j, "unfinished", d->st->unfinished);
	cli_json_uint(j, "skipped_features", d->st->bad_features);
	cli_json_begin_array(j, "problems");
	for (size_t i = 0; pms_perfdata_reader_problem(d->r, i); i++)
		cli_json_str(j, NULL, pms_perfdata_reader_problem(d->r, i));
	cli_json_end_array(j);
	cli_json_begin_array(j, "events");
	for (size_t i = 0; i < d->nattrs; i++) {
		const struct pms_perfdata_attr *a = pms_perfdata_reader_attr(d->r, i);
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

struct pass {
	struct pms_memprof *prof;
	struct pms_memsrc *src;
	struct pms_advisor *adv; /* --advise */
	bool started;    /* the first sample came: headers are all known */
	bool csv;
};

static int on_sample(void *ud, const struct pms_memsrc_sample *x)
{
	struct pass *ps = ud;
	if (!ps->started) {
		/* the CPU-node x memory-node matrix lists the file's nodes */
		size_t n = 0;
		const int *ids = pms_memsrc_node_ids(ps->src, &n);
		ps->started = true;
		if (n && !ps->csv)
			(void)pms_memprof_set_node_ids(ps->prof, ids, n); /* aggregate mode only */
	}
	if (ps->csv) {
		struct pms_memreport_sample row = { x->ms, x->mem_node, x->cpu_node, x->node_from_phys, 0 };
		mem_render_csv_row(&row);
		return 0;
	}
	if (ps->adv && (x->ms.valid & PMS_MS_ADDR)) {
		/* PERF_MEM_OP_STORE: bit 2 of data_src's mem_op */
		bool store = (x->ms.valid & PMS_MS_DATA_SRC) && (x->ms.data_src & 0x04);
		int arc = pms_advisor_add(ps->adv, x->ms.pid, x->ms.addr, x->mem_node, x->cpu_node,
					  (x->ms.valid & PMS_MS_WEIGHT) ? x->ms.weight : 0, store);
		if (arc < 0)
			return arc;
	}
	return pms_memprof_add_src(ps->prof, x);
}

static int on_sideband(void *ud, const struct pms_record *rec, size_t attr_idx)
{
	struct pass *ps = ud;
	(void)attr_idx;
	if (ps->csv)
		return 0;
	return pms_memprof_sideband(ps->prof, rec, NULL);
}

int cmd_report(const struct cli_global *g, int argc, char **argv)
{
	const char *path = "perf.data";
	bool json = false, csv = false, header = false, symbols = true, samples = false;
	bool demangle = true;
	size_t top = 10;
	struct pms_perfdata_reader *r = NULL;
	struct pms_sys *sys = NULL;
	struct pms_symbolizer *sym = NULL;
	struct pms_memreport *rep = NULL;
	struct pass ps;
	struct mem_advise ma = { 0 };
	int fd = -1, rc, ret = 0;

	memset(&ps, 0, sizeof(ps));
	struct cli_parser p;
	int c;
	long v;
	cli_parser_init(&p, &cli_spec_report, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		switch (c) {
		case O_JSON: json = true; break;
		case O_CSV: csv = true; break;
		case O_SAMPLES: samples = true; break;
		case O_HEADER: header = true; break;
		case O_NOSYM: symbols = false; break;
		case O_NODEMANGLE: demangle = false; break;
		case O_STDIO: break;
		case O_ADVISE: ma.advise = true; break;
		case 'i': path = p.arg; break;
		case O_TOP:
			if (cli_parse_long(p.arg, 1, 100000, &v) < 0)
				return cli_bad_arg(&p, "1..100000");
			top = (size_t)v;
			break;
		default: return cli_usage(&cli_spec_report, "'%s' is not an argument of report", p.arg);
		}
	}
	if (c != CLI_END)
		return cli_exit_code(c);
	if (p.ind < argc)
		return cli_usage(&cli_spec_report, "'%s' is not an argument of report", argv[p.ind]);
	if (json && csv) {
		return cli_usage(&cli_spec_report, "--json and --csv exclude each other");
	}
	if (samples && !json) {
		return cli_usage(&cli_spec_report, "--samples goes with --json");
	}
	if (ma.advise && csv)
		return cli_usage(&cli_spec_report, "--advise goes with the text or --json report");
	if (cli_perfdata_open("report", path, &fd, &r))
		return 1;

	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.top = top;
	po.aggregate = !samples;
	if (pms_memprof_new(NULL, &po, &ps.prof) < 0 || pms_memsrc_open_reader(r, &ps.src) < 0) {
		ret = cli_fail("report: profile");
		goto out;
	}
	ps.csv = csv;
	if (ma.advise) {
		/* a recorded file: no distances of its machine, no free memory */
		struct pms_advise_opts ao = PMS_ADVISE_OPTS_INIT;
		ao.page_size = (size_t)sysconf(_SC_PAGESIZE);
		if (pms_advisor_new(NULL, &ao, &ps.adv) < 0) {
			ret = cli_fail("report: advise");
			goto out;
		}
	}
	if (csv)
		mem_render_csv_header();
	const struct pms_memsrc_callbacks cb = { on_sample, on_sideband };
	while ((rc = pms_memsrc_poll(ps.src, -1, &cb, &ps)) > 0)
		;
	if (rc < 0) {
		fprintf(stderr, "pmuscope: report: %s: %s (the report covers the records before it)\n",
			path, pms_error_last());
		ret = 1;
	}
	if (csv)
		goto out;

	/* The events, now that the file (or stream) has given all of them. */
	struct pms_memsrc_info info;
	struct pms_memsrc_stats sst;
	pms_memsrc_info(ps.src, &info);
	pms_memsrc_stats(ps.src, &sst);
	const struct pms_perfdata_stats *st = pms_perfdata_reader_stats(r);
	struct file_desc fdsc = { path, info.pipe, st,
				  (double)pms_memsrc_span_ns(ps.src) / 1e9,
				  pms_perfdata_reader_nattrs(r), r, &ma };
	cli_perfdata_problems("report", path, r);
	if (symbols) {
		sys = cli_open_sys(g);
		if (!sys || pms_symbolizer_new(sys, pms_memprof_maps(ps.prof), &sym) < 0)
			sym = NULL; /* names are a nicety: the numbers stand without them */
		else if (!demangle)
			pms_symbolizer_set_demangle(sym, false);
	}
	struct pms_memreport_input in = { .duration_ns = pms_memsrc_span_ns(ps.src) };
	pms_memreport_input_from_src(&in, &info, &sst);
	if (pms_memprof_report(ps.prof, sym, &in, &rep) < 0) {
		ret = cli_fail("report: building the report");
		goto out;
	}
	ma.adv_before = ps.adv;
	ps.adv = NULL;
	if (mem_advise_finish(&ma, NULL, rep) < 0) {
		ret = 1;
		goto out;
	}
	char target[1024];
	snprintf(target, sizeof(target), "%s (%s mode, %" PRIu64 " records, %" PRIu64 " skipped)",
		 path, fdsc.pipe ? "pipe" : "file", st->records, st->bad_records);
	struct mem_render mr = {
		.command = "report", .target_text = target, .seconds = fdsc.seconds,
		.sample_type = info.sample_type, .samples = samples, .oracle = false,
		.nodes_why = info.nodes_why,
		.json_run = report_json_run, .ud = &fdsc,
	};
	if (json) {
		mem_render_json(&mr, rep);
	} else {
		mem_render_text(&mr, rep);
		mem_advise_text(&ma, NULL, 0, NULL);
		if (header) {
			printf("\n");
			cli_perfdata_print_header(stdout, r);
		}
	}
out:
	fflush(stdout);
	pms_memreport_free(rep);
	mem_advise_release(&ma);
	pms_advisor_free(ps.adv);
	pms_symbolizer_free(sym);
	pms_sys_free(sys);
	pms_memsrc_free(ps.src);
	pms_memprof_free(ps.prof);
	pms_perfdata_reader_free(r);
	if (fd > 0)
		close(fd);
	return ret;
}
