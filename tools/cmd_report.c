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
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_opt.h"
#include "callpath_render.h"
#include "mem_advise.h"
#include "mem_export.h"
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

enum { O_JSON = 256, O_CSV, O_SAMPLES, O_HEADER, O_NOSYM, O_TOP, O_STDIO, O_ADVISE, O_NODEMANGLE,
       O_JOBS };

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
	{ "header", 0, CLI_NOARG, NULL, O_HEADER, "also print the header features (text)" },
	{ "no-symbols", 0, CLI_NOARG, NULL, O_NOSYM, "do not name instructions or data objects" },
	{ "no-demangle", 0, CLI_NOARG, NULL, O_NODEMANGLE, "show C++/Rust symbols as they are in the binary" },
	MEM_EXPORT_CLI_OPTS,
	{ "advise", 0, CLI_NOARG, NULL, O_ADVISE,
	  "NUMA placement advice for the hot data (docs/advise.md);\n"
	  "needs samples with both nodes (a file with physical\n"
	  "addresses: pmuscope mem --phys -o, perf mem record --phys-data)" },
	{ "stdio", 0, CLI_NOARG, NULL, O_STDIO, "accepted for perf's habit: the text report is the default" },
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


/* One input file (several -i merge their files into one report). */
#define MAX_INPUTS 64
struct input {
	const char *path;
	int fd;
	struct pms_perfdata_reader *r;
	struct pms_memsrc *src;
};

/* What the text and JSON say about the files (the report's "target"). */
struct file_desc {
	const struct input *in;
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
	cli_json_str(j, "path", d->in[0].path);
	cli_json_bool(j, "pipe_mode", d->pipe);
	cli_json_uint(j, "records", d->st.records);
	cli_json_uint(j, "skipped_records", d->st.bad_records);
	cli_json_bool(j, "truncated", d->st.truncated);
	cli_json_bool(j, "unfinished", d->st.unfinished);
	cli_json_uint(j, "skipped_features", d->st.bad_features);
	/* what the reader skipped, of every file (a merged report names it) */
	cli_json_begin_array(j, "problems");
	for (size_t f = 0; f < d->nin; f++) {
		const char *pr;
		for (size_t i = 0; (pr = pms_perfdata_reader_problem(d->in[f].r, i)); i++) {
			if (d->nin == 1) {
				cli_json_str(j, NULL, pr);
			} else {
				char *m = NULL;
				if (asprintf(&m, "%s: %s", d->in[f].path, pr) < 0)
					m = NULL;
				cli_json_str(j, NULL, m ? m : pr);
				free(m);
			}
		}
	}
	cli_json_end_array(j);
	json_events(j, d->in[0].r);
	cli_json_begin_array(j, "files");
	for (size_t i = 0; i < d->nin; i++) {
		const struct pms_perfdata_info *info = pms_perfdata_reader_info(d->in[i].r);
		const struct pms_perfdata_stats *st = pms_perfdata_reader_stats(d->in[i].r);
		cli_json_begin_object(j, NULL);
		cli_json_str(j, "path", d->in[i].path);
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

struct pass {
	struct pms_memprof *prof;
	const struct input *in; /* the file being read */
	struct pms_advisor *adv; /* --advise */
	bool started;    /* its first sample came: its headers are all known */
	bool csv, merge;
	int ids[256];    /* node ids of the files read so far */
	size_t nids;
	struct pms_pathprof *paths; /* samples by call path (when they have one) */
	uint64_t events, pmin, pmax; /* the samples' periods: sum, least, most */
};

static int on_sample(void *ud, const struct pms_memsrc_sample *x)
{
	struct pass *ps = ud;
	if (!ps->started) {
		/* the CPU-node x memory-node matrix lists the files' nodes */
		size_t n = 0;
		const int *ids = pms_memsrc_node_ids(ps->in->src, &n);
		ps->started = true;
		for (size_t i = 0; i < n; i++) {
			size_t k = 0;
			while (k < ps->nids && ps->ids[k] != ids[i])
				k++;
			if (k == ps->nids && ps->nids < 256)
				ps->ids[ps->nids++] = ids[i];
		}
		if (ps->nids && !ps->csv)
			(void)pms_memprof_set_node_ids(ps->prof, ps->ids, ps->nids); /* aggregate mode only */
		if (ps->merge && !ps->csv) {
			/* in pipe mode the HOSTNAME feature came before the data */
			const char *h = pms_perfdata_reader_info(ps->in->r)->hostname;
			int rc = pms_memprof_set_source(ps->prof, h && *h ? h : ps->in->path);
			if (rc < 0)
				return rc;
		}
	}
	ps->events += x->ms.period;
	if (!ps->pmin || x->ms.period < ps->pmin)
		ps->pmin = x->ms.period;
	if (x->ms.period > ps->pmax)
		ps->pmax = x->ms.period;
	if (ps->csv) {
		struct pms_memreport_sample row = { x->ms, x->mem_node, x->cpu_node, x->node_from_phys,
						    -1, -1, -1, 0 };
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
	int rc = pms_memprof_add_src(ps->prof, x);
	/* the mappings matter only to a DWARF unwind (its user stack) */
	if (rc >= 0 && ps->paths)
		rc = pms_pathprof_add_src(ps->paths, x,
					  x->path.how == PMS_CALLGRAPH_DWARF ? pms_memprof_maps(ps->prof)
									 : NULL);
	return rc;
}

static int on_sideband(void *ud, const struct pms_record *rec, size_t attr_idx)
{
	struct pass *ps = ud;
	(void)attr_idx;
	if (ps->csv)
		return 0;
	/* A file holds many processes (and a merged report many files): keep
	 * every mapping across exec, a later one replacing what it overlaps,
	 * as the aggregate mode does, so that keeping the samples (--samples,
	 * exports) names code and data as the plain report does. */
	if (rec->type == PMS_RECORD_COMM && (rec->misc & PMS_MISC_COMM_EXEC))
		return 0;
	return pms_memprof_sideband(ps->prof, rec, NULL);
}

/* Counts of several sources added up. */
static void stats_add(struct pms_memsrc_stats *a, const struct pms_memsrc_stats *b)
{
#define ADD(f) a->f += b->f
	ADD(samples); ADD(samples_dropped); ADD(records); ADD(wrapped); ADD(corrupt_bytes);
	ADD(parse_errors); ADD(lost_records); ADD(lost); ADD(lost_samples); ADD(throttle);
	ADD(unthrottle); ADD(sideband); ADD(aux_records); ADD(aux_bytes); ADD(aux_truncated);
	ADD(aux_overwrite); ADD(aux_partial); ADD(aux_collision); ADD(aux_decode_errors);
	ADD(aux_cut_records); ADD(aux_cut_bytes);
	ADD(aux_overrun); ADD(ibs_raw_checked); ADD(ibs_raw_mismatch); ADD(streams_hup);
	ADD(unknown_id); ADD(compressed); ADD(bad_features);
#undef ADD
	a->truncated |= b->truncated;
}

/* ---- several files in parallel --------------------------------------------
 * One job per file: its own aggregate profile, filled by the same callbacks
 * as the one-after-the-other loop; the profiles are merged in file order
 * (pms_memprof_merge), so the report does not depend on the number of
 * threads.  Errors are kept and printed in file order after the join. */
struct job {
	struct pass ps;
	int rc;
	char err[1024];
};

struct jobs {
	struct job *v;
	size_t n;
	atomic_size_t next;
};

static void job_run(struct job *j)
{
	const struct pms_memsrc_callbacks cb = { on_sample, on_sideband, NULL };
	int rc;
	while ((rc = pms_memsrc_poll(j->ps.in->src, -1, &cb, &j->ps)) > 0)
		;
	j->rc = rc;
	if (rc < 0)
		snprintf(j->err, sizeof(j->err), "%s", pms_error_last());
}

static void *job_worker(void *ud)
{
	struct jobs *js = ud;
	size_t i;
	while ((i = atomic_fetch_add(&js->next, 1)) < js->n)
		job_run(&js->v[i]);
	return NULL;
}

/* Decode the opened files in[0..nin) on up to `threads` threads into ps's
 * profile; returns 0, or 1 when a file could not be read to its end (said on
 * stderr, as the loop says it), or -1 when a profile could not be made or
 * merged (pms_error_last() says why). */
static int decode_parallel(struct pass *ps, struct input *in, size_t nin, size_t threads,
			   const struct pms_memprof_opts *po)
{
	struct jobs js = { calloc(nin, sizeof(*js.v)), nin, 0 };
	pthread_t *tid = calloc(threads, sizeof(*tid));
	size_t started = 0;
	int ret = 0;
	if (!js.v || !tid) {
		ret = -1;
		goto out;
	}
	for (size_t i = 0; i < nin; i++) {
		js.v[i].ps.in = &in[i];
		js.v[i].ps.merge = true;
		if (pms_memprof_new(NULL, po, &js.v[i].ps.prof) < 0) {
			ret = -1;
			goto out;
		}
	}
	for (; started + 1 < threads; started++)
		if (pthread_create(&tid[started], NULL, job_worker, &js))
			break; /* fewer threads: the others and this one do the rest */
	job_worker(&js);
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	started = 0;
	for (size_t i = 0; i < nin; i++) {
		struct pass *jp = &js.v[i].ps;
		if (js.v[i].rc < 0) {
			fprintf(stderr, "pmuscope: report: %s: %s (the report covers the records before it)\n",
				in[i].path, js.v[i].err);
			ret = 1;
		}
		/* the node ids of the files read so far, as the loop adds them */
		for (size_t k = 0; jp->started && k < jp->nids; k++) {
			size_t q = 0;
			while (q < ps->nids && ps->ids[q] != jp->ids[k])
				q++;
			if (q == ps->nids && ps->nids < 256)
				ps->ids[ps->nids++] = jp->ids[k];
		}
		if (i == 0) {
			/* the first file's profile becomes the report's (made
			 * with the same options): one merge less */
			pms_memprof_free(ps->prof);
			ps->prof = jp->prof;
			jp->prof = NULL;
		} else if (pms_memprof_merge(ps->prof, jp->prof) < 0) {
			ret = -1;
			goto out;
		}
	}
	if (ps->nids && pms_memprof_set_node_ids(ps->prof, ps->ids, ps->nids) < 0)
		ret = -1;
out:
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	for (size_t i = 0; js.v && i < nin; i++)
		pms_memprof_free(js.v[i].ps.prof);
	free(js.v);
	free(tid);
	return ret;
}

/* The files can be decoded one profile each: the aggregate report, files
 * (not a pipe) whose samples carry no call path or branch stack. */
static bool parallel_ok(const struct input *in, size_t nin)
{
	for (size_t i = 0; i < nin; i++) {
		if (!strcmp(in[i].path, "-"))
			return false;
		size_t na = pms_perfdata_reader_nattrs(in[i].r);
		for (size_t k = 0; k < na; k++)
			if (pms_perfdata_reader_attr(in[i].r, k)->attr->sample_type &
			    (PMS_SAMPLE_CALLCHAIN | PMS_SAMPLE_BRANCH_STACK | PMS_SAMPLE_STACK_USER))
				return false;
	}
	return true;
}

int cmd_report(const struct cli_global *g, int argc, char **argv)
{
	bool json = false, csv = false, header = false, symbols = true, samples = false;
	bool demangle = true;
	size_t top = 10, jobs = 0;
	struct input in[MAX_INPUTS];
	size_t nin = 0;
	struct pms_sys *sys = NULL;
	struct pms_symbolizer *sym = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_export_build_id *bids = NULL;
	struct pms_pathreport *prep = NULL;
	struct pass ps;
	struct mem_export xo = { 0 };
	struct mem_advise ma = { 0 };
	int rc, ret = 0;

	memset(&ps, 0, sizeof(ps));
	memset(in, 0, sizeof(in));
	struct cli_parser p;
	int c, xr;
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
		case 'i':
		case CLI_OPERAND:
			/* -i FILE as perf takes it, or `report FILE` as users type it;
			 * several files make one merged report */
			if (nin == MAX_INPUTS)
				return cli_usage(&cli_spec_report, "at most %d input files", MAX_INPUTS);
			in[nin++].path = p.arg;
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
	if (samples && !json) {
		return cli_usage(&cli_spec_report, "--samples goes with --json");
	}
	if (ma.advise && (csv || xo.folded))
		return cli_usage(&cli_spec_report, "--advise goes with the text or --json report");
	if (!nin)
		in[nin++].path = "perf.data";
	for (size_t i = 0; i < nin; i++) {
		in[i].fd = -1;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(in[i].path, "-") && !strcmp(in[k].path, "-"))
				return cli_usage(&cli_spec_report, "stdin ('-') can be read once");
	}

	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.top = top;
	po.aggregate = !samples && !mem_export_wanted(&xo); /* exports need the samples */
	if (pms_memprof_new(NULL, &po, &ps.prof) < 0) {
		ret = cli_fail("report: profile");
		goto out;
	}
	ps.csv = csv;
	ps.merge = nin > 1;
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
	if (!csv && (sys = cli_open_sys(g))) {
		/* Kernel frames are shown as recorded (the recording's kernel, not
		 * this one's kallsyms). */
		struct pms_pathprof_opts pp = PMS_PATHPROF_OPTS_INIT;
		pp.top = top;
		pp.kept_samples = samples || mem_export_wanted(&xo); /* the exports' stacks */
		pp.top_only = !xo.folded && !mem_export_wanted(&xo); /* no stack needs `all` */
		if (pms_pathprof_new(sys, &pp, &ps.paths) < 0) {
			ret = cli_fail("report: call paths");
			goto out;
		}
	}
	/* Several files of the aggregate report: opened here in order, decoded
	 * in parallel, one profile each, merged in file order.  Otherwise the
	 * files one after the other into the one profile: the report of their
	 * samples as if they were one file's. */
	bool parallel = nin > 1 && po.aggregate && !csv && !ma.advise;
	for (size_t i = 0; parallel && i < nin; i++) {
		if (!strcmp(in[i].path, "-")) {
			parallel = false;
			break;
		}
		if (cli_perfdata_open("report", in[i].path, &in[i].fd, &in[i].r)) {
			ret = 1;
			goto out;
		}
		if (pms_memsrc_open_reader(in[i].r, &in[i].src) < 0) {
			ret = cli_fail("report: profile");
			goto out;
		}
	}
	parallel = parallel && parallel_ok(in, nin);
	if (parallel) {
		if (!jobs) {
			long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
			jobs = ncpu > 0 ? (size_t)ncpu : 1;
		}
		int prc = decode_parallel(&ps, in, nin, jobs < nin ? jobs : nin, &po);
		if (prc < 0) {
			ret = cli_fail("report: merging the files' profiles");
			goto out;
		}
		if (prc)
			ret = 1;
	}
	struct pms_memsrc_stats sst;
	memset(&sst, 0, sizeof(sst));
	uint64_t span = 0;
	for (size_t i = 0; i < nin; i++) {
		if (!parallel) {
			if (!in[i].r && cli_perfdata_open("report", in[i].path, &in[i].fd, &in[i].r)) {
				ret = 1;
				goto out;
			}
			if (!in[i].src && pms_memsrc_open_reader(in[i].r, &in[i].src) < 0) {
				ret = cli_fail("report: profile");
				goto out;
			}
			ps.in = &in[i];
			ps.started = false;
			const struct pms_memsrc_callbacks cb = { on_sample, on_sideband, NULL };
			while ((rc = pms_memsrc_poll(in[i].src, -1, &cb, &ps)) > 0)
				;
			if (rc < 0) {
				fprintf(stderr, "pmuscope: report: %s: %s (the report covers the records before it)\n",
					in[i].path, pms_error_last());
				ret = 1;
			}
		}
		struct pms_memsrc_stats one;
		pms_memsrc_stats(in[i].src, &one);
		stats_add(&sst, &one);
		if (pms_memsrc_span_ns(in[i].src) > span)
			span = pms_memsrc_span_ns(in[i].src);
	}
	if (csv)
		goto out;

	/* The events, now that the files (or streams) have given all of them;
	 * a merged report takes its engine from the first file whose engine
	 * gives a data source, else from the first file. */
	struct pms_memsrc_info info;
	pms_memsrc_info(in[0].src, &info);
	for (size_t i = 1; i < nin && !info.data_src; i++) {
		struct pms_memsrc_info one;
		pms_memsrc_info(in[i].src, &one);
		if (one.data_src)
			info = one;
	}
	struct file_desc fdsc = { in, nin, info.pipe, { 0 }, (double)span / 1e9, &ma };
	for (size_t i = 0; i < nin; i++) {
		const struct pms_perfdata_stats *st = pms_perfdata_reader_stats(in[i].r);
		fdsc.st.records += st->records;
		fdsc.st.bad_records += st->bad_records;
		fdsc.st.bad_features += st->bad_features;
		fdsc.st.truncated |= st->truncated;
		fdsc.st.unfinished |= st->unfinished;
		cli_perfdata_problems("report", in[i].path, in[i].r);
	}
	if (symbols) {
		if (!sys || pms_symbolizer_new(sys, pms_memprof_maps(ps.prof), &sym) < 0)
			sym = NULL; /* names are a nicety: the numbers stand without them */
		else if (!demangle)
			pms_symbolizer_set_demangle(sym, false);
	}
	struct pms_memreport_input rin = { .duration_ns = span };
	pms_memreport_input_from_src(&rin, &info, &sst);
	if (pms_memprof_report(ps.prof, sym, &rin, &rep) < 0) {
		ret = cli_fail("report: building the report");
		goto out;
	}
	if (ps.paths && pms_pathprof_report(ps.paths, rep, sym, false, &prep) < 0) {
		ret = cli_fail("report: call paths");
		goto out;
	}
	if (prep && !prep->with_path && !prep->with_branches) { /* neither: no section */
		pms_pathreport_free(prep);
		prep = NULL;
	}
	ma.adv_before = ps.adv;
	ps.adv = NULL;
	if (mem_advise_finish(&ma, NULL, rep) < 0) {
		ret = 1;
		goto out;
	}
	char target[1024];
	if (nin == 1)
		snprintf(target, sizeof(target), "%s (%s mode, %" PRIu64 " records, %" PRIu64 " skipped)",
			 in[0].path, fdsc.pipe ? "pipe" : "file", fdsc.st.records, fdsc.st.bad_records);
	else
		snprintf(target, sizeof(target), "%s and %zu more file(s) merged (%" PRIu64
			 " records, %" PRIu64 " skipped)",
			 in[0].path, nin - 1, fdsc.st.records, fdsc.st.bad_records);
	struct mem_render mr = {
		.command = "report", .target_text = target, .seconds = fdsc.seconds,
		.sample_type = info.sample_type, .samples = samples, .oracle = false,
		.nodes_why = info.nodes_why,
		.json_run = report_json_run, .ud = &fdsc,
		.json_extra = callpath_json_extra, .text_extra = callpath_text_extra, .extra_ud = prep,
		.events = ps.events, .period_min = ps.pmin, .period_max = ps.pmax,
	};
	/* Build ids of every file (perf names the kernel [kernel.kallsyms];
	 * the report [kernel]). */
	size_t nbids = 0;
	const struct pms_perfdata_info **infos = calloc(nin + 1, sizeof(*infos));
	for (size_t i = 0; infos && i < nin; i++)
		infos[i] = pms_perfdata_reader_info(in[i].r);
	if (!infos || pms_export_build_ids(NULL, infos, nin, &bids, &nbids) < 0) {
		bids = NULL;
		nbids = 0;
	}
	free(infos);
	xo.host = nin == 1 ? pms_perfdata_reader_info(in[0].r)->hostname : NULL;
	xo.maps = pms_memprof_maps(ps.prof);
	xo.paths = prep;
	xo.build_ids = bids;
	xo.nbuild_ids = nbids;
	if (mem_export_write(&xo, &mr, rep))
		ret = 1;
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
				printf("# %s\n", in[i].path);
			cli_perfdata_print_header(stdout, in[i].r);
		}
	}
out:
	fflush(stdout);
	free(bids);
	pms_memreport_free(rep);
	pms_pathreport_free(prep);
	pms_pathprof_free(ps.paths);
	mem_advise_release(&ma);
	pms_advisor_free(ps.adv);
	pms_symbolizer_free(sym);
	pms_sys_free(sys);
	pms_memprof_free(ps.prof);
	for (size_t i = 0; i < nin; i++) {
		pms_memsrc_free(in[i].src);
		pms_perfdata_reader_free(in[i].r);
		if (in[i].fd > 0)
			close(in[i].fd);
	}
	return ret;
}
