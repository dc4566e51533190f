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
#include "mem_render.h"
#include "report_feed.h"
#include "pmuscope/cpuset.h"
#include "pmuscope/error.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/report.h"
#include "pmuscope/symbols.h"

int cmd_report(const struct cli_global *g, int argc, char **argv);

/* In cmd_script.c. */
void cli_perfdata_print_header(FILE *o, struct pms_perfdata_reader *r);
int cli_perfdata_open(const char *cmd, const char *path, int *fd, struct pms_perfdata_reader **r);

static void help(FILE *f)
{
	fprintf(f,
		"usage: pmuscope report [-i FILE] [--json [--samples] | --csv] [--top N] [--header]\n\n"
		"The `pmuscope mem` report of a perf.data file (file or pipe mode, either\n"
		"byte order, zstd-compressed; pmuscope's own `mem -o` files and `perf mem\n"
		"record` files): data-source levels in perf's text, latency percentiles,\n"
		"NUMA nodes, CPU-node x memory-node matrix, top instructions, functions\n"
		"and data objects, in the same layout as `pmuscope mem`.\n"
		"  - Nodes come from each sample's PHYS_ADDR and the file's MEM_TOPOLOGY\n"
		"    header (a physical address of 0 counts as not mapped, one in no\n"
		"    recorded block as not present); otherwise the report says why they\n"
		"    are unavailable.  No live process is asked.\n"
		"  - Instructions are named from the file's MMAP/MMAP2 records and the\n"
		"    binaries found here (below --root); kernel IPs are not named (this\n"
		"    machine's kallsyms would not describe the recording's kernel).\n"
		"  - Latency percentiles come from a histogram: exact below 65536 cycles,\n"
		"    9 significant bits above (docs/perfdata.md); `pmuscope mem` sorts\n"
		"    every weight of a live run.\n\n"
		"  -i FILE      the perf.data file; '-' reads a pipe-mode stream from stdin\n"
		"               (default perf.data)\n"
		"  --top N      entries per top list (default 10)\n"
		"  --json       the report as JSON (schema: docs/mem.md; target.kind \"file\")\n"
		"  --samples    with --json: every sample too (keeps them all in memory)\n"
		"  --csv        one CSV row per sample, as `pmuscope mem --csv`\n"
		"  --header     also print the header features (text)\n"
		"  --no-symbols do not name instructions or data objects\n"
		"  --help       this text\n\n"
		"Exit status: 0 ok, 1 the file cannot be read, 2 usage error.\n");
}

/* Engine of a recorded event, from its PMU's name (PMU_MAPPINGS) or type.
 * PMU names as the kernel registers them: arch/x86/events/amd/ibs.c
 * ("ibs_op", "ibs_fetch"), arch/x86/events/intel/core.c ("cpu", and
 * "cpu_core"/"cpu_atom" on hybrids), drivers/perf/arm_spe_pmu.c
 * ("arm_spe_N"). */
static const struct {
	const char *prefix;
	enum pms_engine e;
} pmu_engines[] = {
	{ "ibs_op", PMS_ENG_IBS },
	{ "ibs_fetch", PMS_ENG_IBS },
	{ "arm_spe", PMS_ENG_SPE },
	{ "cpu_core", PMS_ENG_PEBS },
	{ "cpu_atom", PMS_ENG_PEBS },
	{ "cpu", PMS_ENG_PEBS },
};

static const char *pmu_name(const struct pms_perfdata_info *in, uint32_t type)
{
	for (size_t i = 0; i < in->npmu; i++)
		if (in->pmu[i].type == type)
			return in->pmu[i].name;
	return NULL;
}

enum pms_engine attr_engine(const struct pms_perfdata_info *in,
				   const struct pms_perfdata_attr *a)
{
	const char *name = pmu_name(in, a->attr->type);
	if (a->attr->type == 1 /* PERF_TYPE_SOFTWARE */)
		return PMS_ENG_SOFTWARE;
	for (size_t i = 0; name && i < sizeof(pmu_engines) / sizeof(pmu_engines[0]); i++)
		if (!strncmp(name, pmu_engines[i].prefix, strlen(pmu_engines[i].prefix)))
			return pmu_engines[i].e;
	return PMS_ENG_NONE;
}

/* CPU -> node from the file's NUMA_TOPOLOGY cpu lists. */
int cpunodes_load(const struct pms_perfdata_info *in, struct cpunodes *cn)
{
	for (size_t i = 0; i < in->nnuma; i++) {
		struct pms_cpuset cs = { 0 };
		if (!in->numa[i].cpus || pms_cpuset_parse_list(&cs, in->numa[i].cpus) < 0)
			continue;
		for (int c = pms_cpuset_first(&cs); c >= 0; c = pms_cpuset_next(&cs, c + 1)) {
			if ((size_t)c >= cn->n) {
				size_t n = (size_t)c + 64;
				int *v = realloc(cn->node, n * sizeof(*v));
				if (!v) {
					pms_cpuset_fini(&cs);
					return -1;
				}
				for (size_t k = cn->n; k < n; k++)
					v[k] = -1;
				cn->node = v;
				cn->n = n;
			}
			cn->node[c] = (int)in->numa[i].node;
		}
		pms_cpuset_fini(&cs);
	}
	return 0;
}

/* One SAMPLE as the engine-neutral memory sample the builder takes.  A weight
 * counts only when it is not 0 (what the live engines mark valid). */
void to_memsample(const struct pms_perfdata_event *ev, enum pms_engine eng,
			 struct pms_memsample *m)
{
	const struct pms_sample *s = &ev->rec.sample;
	memset(m, 0, sizeof(*m));
	m->engine = eng;
	if (s->present & PMS_SAMPLE_IP) {
		m->valid |= PMS_MS_IP;
		m->ip = s->ip;
		if (s->cpumode == PMS_MISC_KERNEL || s->cpumode == PMS_MISC_GUEST_KERNEL)
			m->valid |= PMS_MS_KERNEL_IP;
		if (s->exact_ip)
			m->valid |= PMS_MS_EXACT_IP;
	}
	if (s->present & PMS_SAMPLE_TID) {
		m->valid |= PMS_MS_TID;
		m->pid = s->pid;
		m->tid = s->tid;
	}
	if (s->present & PMS_SAMPLE_TIME) {
		m->valid |= PMS_MS_TIME;
		m->time = s->time;
	}
	if (s->present & PMS_SAMPLE_CPU) {
		m->valid |= PMS_MS_CPU;
		m->cpu = s->cpu;
	}
	if (s->present & PMS_SAMPLE_ADDR) {
		m->valid |= PMS_MS_ADDR;
		m->addr = s->addr;
	}
	if (s->present & PMS_SAMPLE_PHYS_ADDR) {
		m->valid |= PMS_MS_PHYS;
		m->phys_addr = s->phys_addr;
	}
	if (s->present & PMS_SAMPLE_DATA_SRC) {
		m->valid |= PMS_MS_DATA_SRC;
		m->data_src = s->data_src;
	}
	/* WEIGHT_STRUCT's var1 is the latency perf shows as "weight", var2
	 * the instruction latency (uapi perf_event.h, union perf_sample_weight) */
	uint64_t w = (s->present & PMS_SAMPLE_WEIGHT_STRUCT) ? s->weight_var1_dw : s->weight;
	if ((s->present & PMS_SAMPLE_WEIGHT_TYPE) && w) {
		m->valid |= PMS_MS_WEIGHT;
		m->weight = w;
	}
	if ((s->present & PMS_SAMPLE_WEIGHT_STRUCT) && s->weight_var2_w) {
		m->valid |= PMS_MS_INS_LAT;
		m->ins_lat = s->weight_var2_w;
	}
	if (s->present & PMS_SAMPLE_DATA_PAGE_SIZE) {
		m->valid |= PMS_MS_PAGE_SIZE;
		m->page_size = s->data_page_size;
	}
	if (s->present & PMS_SAMPLE_PERIOD)
		m->period = s->period;
}

/* Memory node of a sample: from PHYS_ADDR and MEM_TOPOLOGY (the reader's
 * ev->node), else not asked. */
int mem_node_of(const struct pms_perfdata_event *ev, bool nodes_ok)
{
	const struct pms_sample *s = &ev->rec.sample;
	if (!nodes_ok || !(s->present & PMS_SAMPLE_PHYS_ADDR))
		return PMS_NODE_UNKNOWN;
	if (ev->node >= 0)
		return ev->node;
	return s->phys_addr ? -ENOENT : -EFAULT;
}

/* What the text and JSON say about the file (the report's "target"). */
struct file_desc {
	const char *path;
	bool pipe;
	const struct pms_perfdata_stats *st;
	double seconds;
	size_t nattrs;
	struct pms_perfdata_reader *r;
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
}

struct pass {
	struct pms_memprof *prof;
	struct pms_perfdata_reader *r;
	struct cpunodes cn;
	bool started;    /* the first sample came: headers are all known */
	bool nodes_ok, csv;
	uint64_t t0, t1;
};

/* In pipe mode the attrs and features come as records before the data, so
 * what depends on them is settled at the first sample. */
static int first_sample(struct pass *ps)
{
	const struct pms_perfdata_info *info = pms_perfdata_reader_info(ps->r);
	ps->started = true;
	ps->nodes_ok = pms_perfdata_reader_nodes_why(ps->r) == NULL;
	if (cpunodes_load(info, &ps->cn) < 0)
		return PMS_ENOMEM;
	if (info->nnuma) {
		int ids[256];
		size_t n = 0;
		for (size_t i = 0; i < info->nnuma && n < 256; i++)
			ids[n++] = (int)info->numa[i].node;
		(void)pms_memprof_set_node_ids(ps->prof, ids, n); /* aggregate mode only */
	}
	return 0;
}

/* An MMAP/MMAP2 record of a process (false: the kernel's own, or empty).
 * perf records only executable mappings without -d; the symbolizer places
 * an ELF by the mapping of its offset 0, so stand one in below the text
 * where none is known (shared objects map file offset = address - base). */
bool mmap_standin(struct pms_maps *pm, const struct pms_record *rec)
{
	const struct pms_rec_mmap *m = &rec->mmap;
	/* pid -1: the kernel's own maps, not a process's */
	if (m->pid == UINT32_MAX || !m->filename || !m->len)
		return false;
	bool exec = rec->type == PMS_RECORD_MMAP2 ? (m->prot & 4 /* PROT_EXEC */) != 0
						  : !(rec->misc & PMS_MISC_MMAP_DATA);
	if (exec && m->pgoff && m->pgoff <= m->addr && m->filename[0] == '/' &&
	    !pms_maps_find(pm, m->addr - m->pgoff))
		(void)pms_maps_add(pm, m->addr - m->pgoff, m->pgoff, 0, m->ino, false, m->filename);
	return true;
}

static int feed(struct pass *ps, const struct pms_perfdata_event *ev)
{
	const struct pms_record *rec = &ev->rec;
	if (rec->type == PMS_RECORD_SAMPLE) {
		struct pms_memsample m;
		int rc;
		if (!ps->started && (rc = first_sample(ps)) < 0)
			return rc;
		to_memsample(ev, attr_engine(pms_perfdata_reader_info(ps->r), ev->attr), &m);
		if (m.valid & PMS_MS_TIME) {
			if (!ps->t0 || m.time < ps->t0)
				ps->t0 = m.time;
			if (m.time > ps->t1)
				ps->t1 = m.time;
		}
		int cn = (m.valid & PMS_MS_CPU) && m.cpu < ps->cn.n ? ps->cn.node[m.cpu] : -1;
		int mn = mem_node_of(ev, ps->nodes_ok);
		if (ps->csv) {
			struct pms_memreport_sample x = { m, mn, cn, mn >= 0 };
			mem_render_csv_row(&x);
			return 0;
		}
		return pms_memprof_add_node(ps->prof, &m, mn, cn);
	}
	if (rec->type == PMS_RECORD_MMAP || rec->type == PMS_RECORD_MMAP2) {
		if (!mmap_standin(pms_memprof_maps(ps->prof), rec))
			return 0;
		return pms_memprof_sideband(ps->prof, rec, NULL);
	}
	if (rec->type == PMS_RECORD_COMM || rec->type == PMS_RECORD_EXIT)
		return pms_memprof_sideband(ps->prof, rec, NULL);
	return 0;
}

int cmd_report(const struct cli_global *g, int argc, char **argv)
{
	const char *path = "perf.data";
	bool json = false, csv = false, header = false, symbols = true, samples = false;
	size_t top = 10;
	struct pms_perfdata_reader *r = NULL;
	struct pms_perfdata_event ev;
	struct pms_sys *sys = NULL;
	struct pms_symbolizer *sym = NULL;
	struct pms_memreport *rep = NULL;
	struct pass ps;
	int fd = -1, rc, ret = 0;
	char *pmus = NULL, *label = NULL;

	memset(&ps, 0, sizeof(ps));
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--csv")) {
			csv = true;
		} else if (!strcmp(argv[i], "--samples")) {
			samples = true;
		} else if (!strcmp(argv[i], "--header")) {
			header = true;
		} else if (!strcmp(argv[i], "--no-symbols")) {
			symbols = false;
		} else if ((!strcmp(argv[i], "-i") || !strcmp(argv[i], "--input")) && i + 1 < argc) {
			path = argv[++i];
		} else if (!strcmp(argv[i], "--top") && i + 1 < argc) {
			char *end;
			unsigned long v = strtoul(argv[++i], &end, 10);
			if (*end || v == 0 || v > 100000) {
				fprintf(stderr, "pmuscope: report: --top '%s': give 1..100000\n", argv[i]);
				return 2;
			}
			top = v;
		} else {
			fprintf(stderr, "pmuscope: report: unknown argument '%s' (see --help)\n",
				argv[i]);
			return 2;
		}
	}
	if (json && csv) {
		fprintf(stderr, "pmuscope: report: --json and --csv exclude each other\n");
		return 2;
	}
	if (samples && !json) {
		fprintf(stderr, "pmuscope: report: --samples goes with --json\n");
		return 2;
	}
	if (cli_perfdata_open("report", path, &fd, &r))
		return 1;

	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.top = top;
	po.aggregate = !samples;
	if (pms_memprof_new(NULL, &po, &ps.prof) < 0) {
		ret = cli_fail("report: profile");
		goto out;
	}
	ps.r = r;
	ps.csv = csv;
	if (csv)
		mem_render_csv_header();
	while ((rc = pms_perfdata_next(r, &ev)) > 0) {
		if (feed(&ps, &ev) < 0) {
			ret = cli_fail("report");
			goto out;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "pmuscope: report: %s: %s (the report covers the records before it)\n",
			path, pms_error_last());
		ret = 1;
	}
	if (csv)
		goto out;

	/* The events, now that the file (or stream) has given all of them. */
	size_t nattrs = pms_perfdata_reader_nattrs(r);
	const struct pms_perfdata_info *info = pms_perfdata_reader_info(r);
	pmus = calloc(1, 512);
	label = calloc(1, 512);
	if (!pmus || !label) {
		fprintf(stderr, "pmuscope: report: out of memory\n");
		ret = 1;
		goto out;
	}
	enum pms_engine engine = PMS_ENG_NONE;
	bool data_src = false, phys = false;
	uint64_t sample_type = 0;
	size_t lp = 0, ll = 0;
	for (size_t i = 0; i < nattrs; i++) {
		const struct pms_perfdata_attr *a = pms_perfdata_reader_attr(r, i);
		const char *pn = pmu_name(info, a->attr->type);
		enum pms_engine e = attr_engine(info, a);
		if (engine == PMS_ENG_NONE || (a->sample_type & PMS_SAMPLE_DATA_SRC && !data_src))
			engine = e;
		data_src |= (a->sample_type & PMS_SAMPLE_DATA_SRC) != 0;
		phys |= (a->sample_type & PMS_SAMPLE_PHYS_ADDR) != 0;
		sample_type |= a->sample_type;
		if (lp < 500)
			lp += (size_t)snprintf(pmus + lp, 512 - lp, "%s%s", i ? "," : "",
					       pn ? pn : "?");
		if (ll < 500)
			ll += (size_t)snprintf(label + ll, 512 - ll, "%s%s", i ? ", " : "recorded: ",
					       a->name ? a->name : "?");
	}
	const char *why = pms_perfdata_reader_nodes_why(r);


	const struct pms_perfdata_stats *st = pms_perfdata_reader_stats(r);
	struct pms_sampler_stats sst;
	memset(&sst, 0, sizeof(sst));
	sst.samples = st->samples;
	sst.records = st->records;
	sst.parse_errors = st->bad_records;
	sst.lost_records = st->by_type[2];  /* PERF_RECORD_LOST */
	sst.lost = st->lost;
	sst.lost_samples = st->lost_samples;
	sst.throttle = st->by_type[5];      /* PERF_RECORD_THROTTLE */
	sst.unthrottle = st->by_type[6];    /* PERF_RECORD_UNTHROTTLE */
	struct file_desc fdsc = { path, pms_perfdata_reader_is_pipe(r), st,
				  ps.t1 > ps.t0 ? (double)(ps.t1 - ps.t0) / 1e9 : 0.0, nattrs, r };
	char notes[256];
	snprintf(notes, sizeof(notes), "from a recorded file; %" PRIu64 " records%s%s", st->records,
		 st->bad_records ? ", some skipped" : "", st->truncated ? ", data truncated" : "");
	if (symbols) {
		sys = cli_open_sys(g);
		if (!sys || pms_symbolizer_new(sys, pms_memprof_maps(ps.prof), &sym) < 0)
			sym = NULL; /* names are a nicety: the numbers stand without them */
	}
	struct pms_memreport_input in = {
		.engine = engine, .pmus = pmus, .label = label, .notes = notes,
		.data_src = data_src && engine != PMS_ENG_SOFTWARE, .phys = phys, .stats = &sst,
		.duration_ns = (uint64_t)(fdsc.seconds * 1e9), .recorded = true,
	};
	if (pms_memprof_report(ps.prof, sym, &in, &rep) < 0) {
		ret = cli_fail("report: building the report");
		goto out;
	}
	char target[1024];
	snprintf(target, sizeof(target), "%s (%s mode, %" PRIu64 " records, %" PRIu64 " skipped)",
		 path, fdsc.pipe ? "pipe" : "file", st->records, st->bad_records);
	struct mem_render mr = {
		.command = "report", .target_text = target, .seconds = fdsc.seconds,
		.sample_type = sample_type, .samples = samples, .oracle = false, .nodes_why = why,
		.json_run = report_json_run, .ud = &fdsc,
	};
	if (json) {
		mem_render_json(&mr, rep);
	} else {
		mem_render_text(&mr, rep);
		if (header) {
			printf("\n");
			cli_perfdata_print_header(stdout, r);
		}
	}
out:
	fflush(stdout);
	pms_memreport_free(rep);
	pms_symbolizer_free(sym);
	pms_sys_free(sys);
	pms_memprof_free(ps.prof);
	free(ps.cn.node);
	free(pmus);
	free(label);
	pms_perfdata_reader_free(r);
	if (fd > 0)
		close(fd);
	return ret;
}
