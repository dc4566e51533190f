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
#include "pmuscope/error.h"
#include "pmuscope/topo.h"

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

static const char *human(uint64_t b, char *buf, size_t n)
{
	static const char u[] = "BKMGTP";
	double v = (double)b;
	int i = 0;
	while (v >= 1024 && i < 5) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, n, "%" PRIu64 "B", b);
	else
		snprintf(buf, n, "%.1f%c", v, u[i]);
	return buf;
}

static void nodes_text(const struct pms_damon_nodes *nd, char *buf, size_t n)
{
	size_t k = 0;
	if (!nd->sampled) {
		snprintf(buf, n, "-");
		return;
	}
	buf[0] = '\0';
	for (int i = 0; i < PMS_DAMON_MAX_NODES && k + 1 < n; i++)
		if (nd->pages[i])
			k += (size_t)snprintf(buf + k, n - k, "%sn%d:%u", k ? " " : "", i,
					      nd->pages[i]);
	if (nd->absent && k + 1 < n)
		k += (size_t)snprintf(buf + k, n - k, "%sabsent:%u", k ? " " : "", nd->absent);
	if (!k)
		snprintf(buf, n, "unknown");
}

static void json_nodes(struct json *j, const char *key, const struct pms_damon_nodes *nd)
{
	cli_json_begin_object(j, key);
	if (nd->node >= 0)
		cli_json_int(j, "node", nd->node);
	else
		cli_json_null(j, "node");
	cli_json_uint(j, "pages_sampled", nd->sampled);
	cli_json_uint(j, "pages_absent", nd->absent);
	cli_json_begin_object(j, "pages_by_node");
	for (int i = 0; i < PMS_DAMON_MAX_NODES; i++)
		if (nd->pages[i]) {
			char k[16];
			snprintf(k, sizeof(k), "%d", i);
			cli_json_uint(j, k, nd->pages[i]);
		}
	cli_json_end_object(j);
	cli_json_end_object(j);
}

static void hexs(char *buf, size_t n, uint64_t v)
{
	snprintf(buf, n, "0x%" PRIx64, v);
}

static void render_json(const struct pms_damon *d, const struct pms_damon_report *r,
			const struct dopts *o, const char *why, const char *kdir, int cleanup_rc,
			const char *cleanup_msg, const char *outcome)
{
	struct json j;
	char b[64];
	cli_json_init(&j, stdout);
	cli_json_begin_object(&j, NULL);
	cli_json_str(&j, "engine", "damon");
	cli_json_str(&j, "label", r->label);
	cli_json_bool(&j, "has_ip", false);
	cli_json_bool(&j, "has_data_source", false);
	cli_json_bool(&j, "has_latency", false);
	cli_json_str(&j, "engine_reason", why ? why : "asked for with --engine damon");
	cli_json_str(&j, "kdamond", kdir);
	cli_json_bool(&j, "kdamond_removed", cleanup_rc == 0);
	if (cleanup_rc)
		cli_json_str(&j, "cleanup_error", cleanup_msg);
	cli_json_str(&j, "outcome", outcome);
	cli_json_begin_array(&j, "pids");
	for (size_t i = 0; i < r->npids; i++)
		cli_json_int(&j, NULL, r->pids[i]);
	cli_json_end_array(&j);
	cli_json_begin_object(&j, "attrs");
	cli_json_uint(&j, "sample_us", r->attrs.sample_us);
	cli_json_uint(&j, "aggr_us", r->attrs.aggr_us);
	cli_json_uint(&j, "update_us", r->attrs.update_us);
	cli_json_uint(&j, "min_regions", r->attrs.min_regions);
	cli_json_uint(&j, "max_regions", r->attrs.max_regions);
	cli_json_uint(&j, "pages_per_region", r->attrs.pages_per_region);
	cli_json_end_object(&j);
	cli_json_uint(&j, "snapshots", r->nsnapshots);
	cli_json_double(&j, "duration_s", (double)r->duration_us / 1e6);
	cli_json_double(&j, "max_nr_accesses", r->max_nr_accesses);
	cli_json_double(&j, "total_heat", r->total_heat);
	cli_json_begin_array(&j, "ranges");
	for (size_t i = 0; i < r->nranges; i++) {
		const struct pms_damon_range *x = &r->ranges[i];
		cli_json_begin_object(&j, NULL);
		cli_json_int(&j, "pid", r->pids[x->target]);
		hexs(b, sizeof(b), x->start);
		cli_json_str(&j, "start", b);
		hexs(b, sizeof(b), x->end);
		cli_json_str(&j, "end", b);
		cli_json_uint(&j, "bytes", x->end - x->start);
		cli_json_double(&j, "heat", x->heat);
		cli_json_double(&j, "share", x->share);
		cli_json_double(&j, "freq_mean", x->freq_mean);
		cli_json_double(&j, "freq_max", x->freq_max);
		cli_json_uint(&j, "age_max", x->age_max);
		cli_json_str(&j, "class", pms_damon_heat_name(x->heat_class));
		cli_json_str(&j, "object", x->object);
		json_nodes(&j, "nodes", &x->nodes);
		cli_json_end_object(&j);
	}
	cli_json_end_array(&j);
	cli_json_begin_array(&j, "objects");
	for (size_t i = 0; i < r->nobjects; i++) {
		const struct pms_damon_object *x = &r->objects[i];
		cli_json_begin_object(&j, NULL);
		cli_json_int(&j, "pid", r->pids[x->target]);
		cli_json_str(&j, "name", x->name);
		hexs(b, sizeof(b), x->start);
		cli_json_str(&j, "start", b);
		hexs(b, sizeof(b), x->end);
		cli_json_str(&j, "end", b);
		cli_json_uint(&j, "bytes_monitored", x->bytes);
		cli_json_double(&j, "heat", x->heat);
		cli_json_double(&j, "share", x->share);
		cli_json_double(&j, "freq_mean", x->freq_mean);
		json_nodes(&j, "nodes", &x->nodes);
		cli_json_end_object(&j);
	}
	cli_json_end_array(&j);
	cli_json_begin_array(&j, "cpu_nodes");
	for (size_t i = 0; i < r->ncpu_nodes; i++) {
		cli_json_begin_object(&j, NULL);
		cli_json_int(&j, "node", r->cpu_nodes[i].node);
		cli_json_double(&j, "heat", r->cpu_nodes[i].heat);
		cli_json_double(&j, "remote_heat", r->cpu_nodes[i].remote_heat);
		cli_json_double(&j, "remote_share", r->cpu_nodes[i].remote_share);
		cli_json_end_object(&j);
	}
	cli_json_end_array(&j);
	cli_json_begin_array(&j, "timeline");
	size_t nsn = 0;
	const struct pms_damon_snapshot *sn = pms_damon_snapshots(d, &nsn);
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct pms_damon_step *s = &r->steps[i];
		cli_json_begin_object(&j, NULL);
		cli_json_double(&j, "t_s", (double)s->t_us / 1e6);
		cli_json_int(&j, "pid", r->pids[s->target]);
		cli_json_double(&j, "heat", s->heat);
		hexs(b, sizeof(b), s->hot_start);
		cli_json_str(&j, "hottest_start", b);
		hexs(b, sizeof(b), s->hot_end);
		cli_json_str(&j, "hottest_end", b);
		cli_json_double(&j, "hottest_freq", s->hot_freq);
		cli_json_str(&j, "hottest_object", s->hot_object);
		cli_json_begin_object(&j, "heat_by_node");
		for (int n = 0; n < r->nnodes && n < PMS_DAMON_MAX_NODES; n++) {
			char k[16];
			snprintf(k, sizeof(k), "%d", n);
			cli_json_double(&j, k, s->heat_on_node[n]);
		}
		cli_json_end_object(&j);
		if (o->samples && i < nsn) {
			cli_json_begin_array(&j, "regions");
			for (size_t k = 0; k < sn[i].nregions; k++) {
				const struct pms_damon_region *g = &sn[i].regions[k];
				cli_json_begin_object(&j, NULL);
				hexs(b, sizeof(b), g->start);
				cli_json_str(&j, "start", b);
				hexs(b, sizeof(b), g->end);
				cli_json_str(&j, "end", b);
				cli_json_uint(&j, "nr_accesses", g->nr_accesses);
				cli_json_uint(&j, "age", g->age);
				cli_json_end_object(&j);
			}
			cli_json_end_array(&j);
		}
		cli_json_end_object(&j);
	}
	cli_json_end_array(&j);
	cli_json_end_object(&j);
	cli_json_finish(&j);
}

static void csv_field(const char *s)
{
	bool q = strpbrk(s, ",\"\n") != NULL;
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

static void render_csv(const struct pms_damon *d, const struct pms_damon_report *r)
{
	size_t n = 0;
	const struct pms_damon_snapshot *sn = pms_damon_snapshots(d, &n);
	printf("# %s\n", r->label);
	printf("t_s,pid,start,end,bytes,nr_accesses,freq,age,object\n");
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sn[i].nregions; k++) {
			const struct pms_damon_region *g = &sn[i].regions[k];
			printf("%.6f,%d,0x%" PRIx64 ",0x%" PRIx64 ",%" PRIu64 ",%u,%.4f,%u,",
			       (double)sn[i].t_us / 1e6, (int)r->pids[sn[i].target], g->start, g->end,
			       g->end - g->start, g->nr_accesses,
			       g->nr_accesses / r->max_nr_accesses, g->age);
			csv_field(pms_damon_object_name(d, sn[i].target, g->start));
			putchar('\n');
		}
}

static void render_text(const struct pms_damon_report *r, const struct dopts *o,
			const char *why, const char *kdir, int cleanup_rc, const char *cleanup_msg,
			const char *outcome)
{
	char a[32], b[32], c[160];
	printf("DAMON memory-access profile: ");
	for (size_t i = 0; i < r->npids; i++)
		printf("%spid %d", i ? ", " : "", (int)r->pids[i]);
	printf(", %zu snapshots over %.1f s (%s)\n", r->nsnapshots, (double)r->duration_us / 1e6,
	       outcome);
	printf("  engine: damon (%s)\n", why ? why : "asked for with --engine damon");
	printf("  NOTE: %s.\n", r->label);
	printf("  sampling %" PRIu64 " us, aggregation %" PRIu64 " us (frequency 1.0 = %.0f "
	       "accesses seen), update %" PRIu64 " us, regions %" PRIu64 "..%" PRIu64 "\n",
	       r->attrs.sample_us, r->attrs.aggr_us, r->max_nr_accesses, r->attrs.update_us,
	       r->attrs.min_regions, r->attrs.max_regions);
	if (cleanup_rc == 0)
		printf("  kdamond %s: created by pmuscope, removed\n\n", kdir);
	else
		printf("  kdamond %s: NOT removed: %s\n\n", kdir, cleanup_msg);

	printf("Hot ranges (heat = access frequency x bytes, summed over snapshots)\n");
	printf("  %-4s %-31s %8s %7s %6s %6s %5s %-5s %-22s %s\n", "#", "range", "size", "heat%",
	       "freq", "max", "age", "class", "nodes (sampled pages)", "object");
	size_t top = o->top ? o->top : 10;
	for (size_t i = 0; i < r->nranges && i < top; i++) {
		const struct pms_damon_range *x = &r->ranges[i];
		char rg[64];
		snprintf(rg, sizeof(rg), "%" PRIx64 "-%" PRIx64, x->start, x->end);
		nodes_text(&x->nodes, c, sizeof(c));
		printf("  %-4zu %-31s %8s %6.1f%% %6.3f %6.3f %5u %-5s %-22s %s\n", i + 1, rg,
		       human(x->end - x->start, a, sizeof(a)), 100 * x->share, x->freq_mean,
		       x->freq_max, x->age_max, pms_damon_heat_name(x->heat_class), c, x->object);
	}
	if (!r->nranges)
		printf("  (no regions were read)\n");

	printf("\nData objects (mappings)\n");
	printf("  %7s %6s %8s %-22s %s\n", "heat%", "freq", "size", "nodes", "name");
	for (size_t i = 0; i < r->nobjects && i < top; i++) {
		const struct pms_damon_object *x = &r->objects[i];
		nodes_text(&x->nodes, c, sizeof(c));
		printf("  %6.1f%% %6.3f %8s %-22s %s\n", 100 * x->share, x->freq_mean,
		       human(x->bytes, b, sizeof(b)), c, x->name);
	}

	printf("\nRemote-hot share by CPU node (threads' last CPU at each snapshot, not per "
	       "access)\n");
	if (!r->ncpu_nodes)
		printf("  (no thread CPUs or page nodes known)\n");
	for (size_t i = 0; i < r->ncpu_nodes; i++)
		printf("  cpu node %d: %5.1f%% of its heat on other nodes' pages\n",
		       r->cpu_nodes[i].node, 100 * r->cpu_nodes[i].remote_share);

	printf("\nHeat over time (hottest region of each snapshot%s)\n",
	       r->nsteps > 20 ? "; every step of 20" : "");
	size_t every = r->nsteps > 20 ? (r->nsteps + 19) / 20 : 1;
	for (size_t i = 0; i < r->nsteps; i += every) {
		const struct pms_damon_step *s = &r->steps[i];
		printf("  t=%6.2fs heat %8s  hottest %" PRIx64 "-%" PRIx64 " freq %.2f %s", 
		       (double)s->t_us / 1e6, human((uint64_t)s->heat, a, sizeof(a)), s->hot_start,
		       s->hot_end, s->hot_freq, s->hot_object ? s->hot_object : "-");
		for (int n = 0; n < r->nnodes && n < PMS_DAMON_MAX_NODES; n++)
			if (s->heat > 0)
				printf("  n%d %.0f%%", n, 100 * s->heat_on_node[n] / s->heat);
		putchar('\n');
	}
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
	if (o->json)
		render_json(res->session, res->report, o, auto_reason, res->kdamond_dir,
			    res->cleanup_rc, res->cleanup_msg, res->outcome);
	else if (o->csv)
		render_csv(res->session, res->report);
	else
		render_text(res->report, o, auto_reason, res->kdamond_dir, res->cleanup_rc,
			    res->cleanup_msg, res->outcome);
	fflush(stdout);
	if (res->term_signal)
		fprintf(stderr, "pmuscope: mem: the command was killed by signal %d\n",
			res->term_signal);
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
