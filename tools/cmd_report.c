/* pmuscope report: the memory-access summary of a recorded perf.data file
 * (pmuscope's own recordings and `perf mem record` / `perf record -d`
 * files): samples by data source level in perf's text, latency
 * percentiles, NUMA nodes when the file can give them, and top IPs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/symbols.h"

int cmd_report(const struct cli_global *g, int argc, char **argv);

/* In cmd_script.c. */
void cli_perfdata_print_header(FILE *o, struct pms_perfdata_reader *r);
int cli_perfdata_open(const char *cmd, const char *path, int *fd, struct pms_perfdata_reader **r);

static void help(FILE *f)
{
	fprintf(f,
		"usage: pmuscope report [-i FILE] [--json] [--top N] [--header]\n\n"
		"Summarise the samples of a perf.data file (file or pipe mode, either byte\n"
		"order, zstd-compressed) like `pmuscope mem` does for a live run:\n"
		"  - samples and memory samples (those with PERF_SAMPLE_DATA_SRC),\n"
		"  - samples by memory level (perf mem report's \"Memory access\" text)\n"
		"    and by full data_src value (perf script's text),\n"
		"  - weight (load latency) percentiles,\n"
		"  - NUMA node of each sample from PHYS_ADDR and the MEM_TOPOLOGY header,\n"
		"    or why nodes are unavailable,\n"
		"  - the top IPs, named from the file's MMAP/MMAP2 records and the binaries\n"
		"    found here (below --root); kernel IPs are not named (this machine's\n"
		"    kallsyms would not describe the recording's kernel).\n\n"
		"  -i FILE   the perf.data file; '-' reads a pipe-mode stream from stdin\n"
		"            (default perf.data)\n"
		"  --top N   rows per table (default 10)\n"
		"  --json    the same as one JSON object\n"
		"  --header  also print the header features\n"
		"  --no-symbols  do not name the top IPs (skips the second pass)\n"
		"  --help    this text\n\n"
		"Exit status: 0 ok, 1 the file cannot be read, 2 usage error.\n");
}

/* Samples of data_src rows grouped by a text of the value. */
struct group {
	char text[PMS_DATASRC_TEXT_MAX + 1];
	uint64_t samples, weight;
};

static int by_samples(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->text, y->text);
}

static size_t group_levels(const struct pms_perfdata_summary_row *rows, size_t n,
			   struct group *g)
{
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		char t[PMS_DATASRC_TEXT_MAX + 1];
		size_t k;
		pms_datasrc_format_mem(rows[i].key, t, sizeof(t));
		for (k = 0; k < ng && strcmp(g[k].text, t); k++)
			;
		if (k == ng) {
			memcpy(g[k].text, t, sizeof(t));
			g[k].samples = g[k].weight = 0;
			ng++;
		}
		g[k].samples += rows[i].samples;
		g[k].weight += rows[i].weight;
	}
	qsort(g, ng, sizeof(*g), by_samples);
	return ng;
}

/* ---- naming the top IPs -------------------------------------------------
 * A second pass over the file: MMAP/MMAP2 records build each process's
 * mappings as perf does (no FORK inheritance: a child's own mmaps only), and
 * the first user-mode sample of each top IP whose mapping is known by then
 * is looked up with the mappings of its process at that moment. */

#define MAX_NAMED 64

struct named {
	char sym[512];
	bool done;
};

struct pidmaps {
	uint32_t pid;
	struct pms_maps *maps;
};

struct pidtab {
	struct pidmaps *v;
	size_t n, cap;
};

static struct pms_maps *pid_maps(struct pidtab *t, uint32_t pid, bool create)
{
	size_t j;
	if (t->cap == 0 || (t->n + 1) * 2 > t->cap) {
		struct pidtab nt = { NULL, 0, t->cap ? t->cap * 2 : 256 };
		if (!create && t->cap)
			goto look;
		nt.v = calloc(nt.cap, sizeof(*nt.v));
		if (!nt.v)
			return NULL;
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->v[i].maps)
				continue;
			for (j = (t->v[i].pid * 2654435761u) & (nt.cap - 1); nt.v[j].maps;
			     j = (j + 1) & (nt.cap - 1))
				;
			nt.v[j] = t->v[i];
			nt.n++;
		}
		free(t->v);
		*t = nt;
	}
look:
	if (!t->cap)
		return NULL;
	for (j = (pid * 2654435761u) & (t->cap - 1); t->v[j].maps; j = (j + 1) & (t->cap - 1))
		if (t->v[j].pid == pid)
			return t->v[j].maps;
	if (!create || pms_maps_new(&t->v[j].maps) < 0)
		return NULL;
	t->v[j].pid = pid;
	t->n++;
	return t->v[j].maps;
}

static void name_ips(const struct cli_global *g, const char *path,
		     const struct pms_perfdata_summary_row *ips, size_t n, struct named *out)
{
	struct pms_perfdata_reader *r = NULL;
	struct pms_perfdata_event ev;
	struct pidtab pt = { NULL, 0, 0 };
	struct pms_sys *sys = NULL;
	size_t left = n;
	int fd = -1;

	if (!n || !strcmp(path, "-"))
		return; /* a stream cannot be read twice */
	sys = cli_open_sys(g);
	if (!sys || cli_perfdata_open("report", path, &fd, &r))
		goto out;
	while (left && pms_perfdata_next(r, &ev) > 0) {
		const struct pms_rec_mmap *m = &ev.rec.mmap;
		if ((ev.rec.type == PMS_RECORD_MMAP || ev.rec.type == PMS_RECORD_MMAP2) &&
		    m->pid != UINT32_MAX && m->filename && m->len) {
			struct pms_maps *pm = pid_maps(&pt, m->pid, true);
			/* MMAP has no prot: data mappings carry MMAP_DATA. */
			bool exec = ev.rec.type == PMS_RECORD_MMAP2 ? (m->prot & 4) != 0
				    : !(ev.rec.misc & PMS_MISC_MMAP_DATA);
			/* perf records only executable mappings without -d; the
			 * symbolizer places an ELF by the mapping of its offset
			 * 0, so stand one in below the text where none is known
			 * (shared objects map file offset = address - base). */
			if (pm && exec && m->pgoff && m->pgoff <= m->addr && m->filename[0] == '/' &&
			    !pms_maps_find(pm, m->addr - m->pgoff))
				pms_maps_add(pm, m->addr - m->pgoff, m->pgoff, 0, m->ino, false,
					     m->filename);
			if (pm)
				pms_maps_add(pm, m->addr, m->len, m->pgoff, m->ino, exec, m->filename);
			continue;
		}
		if (ev.rec.type != PMS_RECORD_SAMPLE)
			continue;
		for (size_t i = 0; i < n; i++) {
			struct pms_symbolizer *sy = NULL;
			struct pms_symbol so;
			struct pms_maps *pm;
			const struct pms_map *mp;
			if (out[i].done || ips[i].key != ev.rec.sample.ip)
				continue;
			if (ev.rec.sample.cpumode == PMS_MISC_KERNEL ||
			    ev.rec.sample.cpumode == PMS_MISC_GUEST_KERNEL) {
				snprintf(out[i].sym, sizeof(out[i].sym), "[kernel]");
				out[i].done = true;
				left--;
				break;
			}
			/* Records are in file order, not time order (perf sorts
			 * per FINISHED_ROUND): a sample may come before the MMAP2
			 * of its mapping, so a later sample of the IP may do. */
			pm = pid_maps(&pt, ev.rec.sample.pid, false);
			mp = pm ? pms_maps_find(pm, ev.rec.sample.ip) : NULL;
			if (!mp)
				break;
			out[i].done = true;
			left--;
			if (pms_symbolizer_new(sys, pm, &sy) == 0 &&
			    pms_symbolizer_code(sy, ev.rec.sample.ip, false, &so) == 0 && so.func)
				snprintf(out[i].sym, sizeof(out[i].sym), "%s+0x%" PRIx64 " (%s)", so.func,
					 so.offset, mp->path);
			else
				snprintf(out[i].sym, sizeof(out[i].sym), "(%s)", mp->path);
			pms_symbolizer_free(sy);
			break;
		}
	}
out:
	for (size_t i = 0; i < pt.cap; i++)
		pms_maps_free(pt.v[i].maps);
	free(pt.v);
	pms_perfdata_reader_free(r);
	if (fd > 0)
		close(fd);
	pms_sys_free(sys);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static double avg(uint64_t w, uint64_t n)
{
	return n ? (double)w / (double)n : 0.0;
}

int cmd_report(const struct cli_global *g, int argc, char **argv)
{
	const char *path = "perf.data";
	bool json = false, header = false, symbols = true;
	size_t top = 10;
	struct named *names = NULL;
	struct pms_perfdata_reader *r = NULL;
	struct pms_perfdata_summary *s = NULL;
	struct pms_perfdata_event ev;
	struct pms_perfdata_summary_row *rows = NULL, *ips = NULL, *nodes = NULL;
	struct group *groups = NULL;
	size_t nds = 0, nips = 0, nnodes = 0, ngroups = 0;
	uint64_t total, mem;
	static const double pcts[] = { 50, 90, 99, 100 };
	const struct pms_perfdata_stats *st;
	const char *why;
	int fd = -1, rc, ret = 0;

	(void)g;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
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
	if (cli_perfdata_open("report", path, &fd, &r))
		return 1;
	if (pms_perfdata_summary_new(&s) < 0) {
		ret = cli_fail("report");
		goto out;
	}
	while ((rc = pms_perfdata_next(r, &ev)) > 0) {
		if (pms_perfdata_summary_add(s, &ev) < 0) {
			ret = cli_fail("report");
			goto out;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "pmuscope: report: %s: %s (the report covers the records before it)\n",
			path, pms_error_last());
		ret = 1;
	}
	st = pms_perfdata_reader_stats(r);
	total = pms_perfdata_summary_samples(s);
	mem = pms_perfdata_summary_mem_samples(s);
	nds = pms_perfdata_summary_rows(s, 0, NULL, 0);
	nips = pms_perfdata_summary_rows(s, 1, NULL, 0);
	nnodes = pms_perfdata_summary_rows(s, 2, NULL, 0);
	rows = calloc(nds + 1, sizeof(*rows));
	groups = calloc(nds + 1, sizeof(*groups));
	ips = calloc((nips < top ? nips : top) + 1, sizeof(*ips));
	nodes = calloc(nnodes + 1, sizeof(*nodes));
	if (!rows || !groups || !ips || !nodes) {
		fprintf(stderr, "pmuscope: report: out of memory\n");
		ret = 1;
		goto out;
	}
	pms_perfdata_summary_rows(s, 0, rows, nds);
	pms_perfdata_summary_rows(s, 1, ips, top);
	pms_perfdata_summary_rows(s, 2, nodes, nnodes);
	ngroups = group_levels(rows, nds, groups);
	why = pms_perfdata_reader_nodes_why(r);
	{
		size_t nn = nips < top ? nips : top;
		if (nn > MAX_NAMED)
			nn = MAX_NAMED;
		names = calloc(nn + 1, sizeof(*names));
		if (names && symbols)
			name_ips(g, path, ips, nn, names);
	}

	if (json) {
		struct json j;
		char hx[24];
		cli_json_init(&j, stdout);
		cli_json_begin_object(&j, NULL);
		cli_json_str(&j, "file", path);
		cli_json_bool(&j, "pipe_mode", pms_perfdata_reader_is_pipe(r));
		cli_json_uint(&j, "records", st->records);
		cli_json_uint(&j, "samples", total);
		cli_json_uint(&j, "mem_samples", mem);
		cli_json_uint(&j, "skipped_records", st->bad_records);
		cli_json_uint(&j, "lost", st->lost);
		cli_json_begin_array(&j, "events");
		for (size_t i = 0; i < pms_perfdata_reader_nattrs(r); i++) {
			const struct pms_perfdata_attr *a = pms_perfdata_reader_attr(r, i);
			cli_json_begin_object(&j, NULL);
			cli_json_str(&j, "name", a->name);
			cli_json_uint(&j, "type", a->attr->type);
			snprintf(hx, sizeof(hx), "0x%" PRIx64, (uint64_t)a->attr->config);
			cli_json_str(&j, "config", hx);
			snprintf(hx, sizeof(hx), "0x%" PRIx64, (uint64_t)a->attr->sample_type);
			cli_json_str(&j, "sample_type", hx);
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
		cli_json_begin_array(&j, "levels");
		for (size_t i = 0; i < ngroups && i < top; i++) {
			cli_json_begin_object(&j, NULL);
			cli_json_str(&j, "memory_access", groups[i].text);
			cli_json_uint(&j, "samples", groups[i].samples);
			cli_json_double(&j, "percent", pct(groups[i].samples, mem));
			cli_json_double(&j, "avg_weight", avg(groups[i].weight, groups[i].samples));
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
		cli_json_begin_array(&j, "data_src");
		for (size_t i = 0; i < nds && i < top; i++) {
			char t[PMS_DATASRC_TEXT_MAX + 1];
			cli_json_begin_object(&j, NULL);
			snprintf(hx, sizeof(hx), "0x%" PRIx64, rows[i].key);
			cli_json_str(&j, "value", hx);
			pms_datasrc_format(rows[i].key, t, sizeof(t));
			cli_json_str(&j, "text", t);
			cli_json_uint(&j, "samples", rows[i].samples);
			cli_json_double(&j, "avg_weight", avg(rows[i].weight, rows[i].samples));
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
		cli_json_begin_object(&j, "weight_percentiles");
		for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
			char k[8];
			snprintf(k, sizeof(k), "p%.0f", pcts[i]);
			cli_json_uint(&j, k, pms_perfdata_summary_weight_pct(s, pcts[i]));
		}
		cli_json_end_object(&j);
		if (why) {
			cli_json_null(&j, "nodes");
			cli_json_str(&j, "nodes_unavailable", why);
		} else {
			cli_json_begin_array(&j, "nodes");
			for (size_t i = 0; i < nnodes; i++) {
				cli_json_begin_object(&j, NULL);
				if (nodes[i].key == ~UINT64_C(0))
					cli_json_null(&j, "node");
				else
					cli_json_uint(&j, "node", nodes[i].key);
				cli_json_uint(&j, "samples", nodes[i].samples);
				cli_json_double(&j, "avg_weight", avg(nodes[i].weight, nodes[i].samples));
				cli_json_end_object(&j);
			}
			cli_json_end_array(&j);
		}
		cli_json_begin_array(&j, "top_ips");
		for (size_t i = 0; i < nips && i < top; i++) {
			cli_json_begin_object(&j, NULL);
			snprintf(hx, sizeof(hx), "0x%" PRIx64, ips[i].key);
			cli_json_str(&j, "ip", hx);
			cli_json_str(&j, "symbol", i < MAX_NAMED && names && names[i].sym[0] ? names[i].sym : NULL);
			cli_json_uint(&j, "samples", ips[i].samples);
			cli_json_double(&j, "avg_weight", avg(ips[i].weight, ips[i].samples));
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
		cli_json_end_object(&j);
		cli_json_finish(&j);
		goto out;
	}

	printf("# pmuscope report of %s (%s mode)\n", path,
	       pms_perfdata_reader_is_pipe(r) ? "pipe" : "file");
	for (size_t i = 0; i < pms_perfdata_reader_nattrs(r); i++) {
		const struct pms_perfdata_attr *a = pms_perfdata_reader_attr(r, i);
		printf("# event %zu: %s (type %" PRIu32 ", config 0x%" PRIx64 ")\n", i,
		       a->name ? a->name : "?", a->attr->type, (uint64_t)a->attr->config);
	}
	printf("# samples: %" PRIu64 ", memory samples (with data_src): %" PRIu64
	       ", records: %" PRIu64 ", skipped: %" PRIu64 ", lost: %" PRIu64 "\n",
	       total, mem, st->records, st->bad_records, st->lost);
	printf("\n%-28s %10s %8s %10s\n", "Memory access", "Samples", "%", "Avg weight");
	for (size_t i = 0; i < ngroups && i < top; i++)
		printf("%-28s %10" PRIu64 " %7.2f%% %10.1f\n", groups[i].text, groups[i].samples,
		       pct(groups[i].samples, mem), avg(groups[i].weight, groups[i].samples));
	printf("\n%10s %8s %10s  %s\n", "Samples", "%", "Avg weight", "data_src");
	for (size_t i = 0; i < nds && i < top; i++) {
		char t[PMS_DATASRC_TEXT_MAX + 1];
		pms_datasrc_format_script(rows[i].key, t, sizeof(t));
		printf("%10" PRIu64 " %7.2f%% %10.1f  %s\n", rows[i].samples,
		       pct(rows[i].samples, mem), avg(rows[i].weight, rows[i].samples), t);
	}
	printf("\n# weight percentiles:");
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		printf(" p%.0f=%" PRIu64, pcts[i], pms_perfdata_summary_weight_pct(s, pcts[i]));
	printf("\n");
	if (why) {
		printf("# nodes: unavailable: %s\n", why);
	} else {
		printf("\n%-6s %10s %8s %10s\n", "Node", "Samples", "%", "Avg weight");
		for (size_t i = 0; i < nnodes; i++) {
			if (nodes[i].key == ~UINT64_C(0))
				printf("%-6s", "?");
			else
				printf("%-6" PRIu64, nodes[i].key);
			printf(" %10" PRIu64 " %7.2f%% %10.1f\n", nodes[i].samples,
			       pct(nodes[i].samples, total), avg(nodes[i].weight, nodes[i].samples));
		}
	}
	printf("\n%18s %10s %8s %10s  %s\n", "IP", "Samples", "%", "Avg weight", "Symbol");
	for (size_t i = 0; i < nips && i < top; i++)
		printf("%#18" PRIx64 " %10" PRIu64 " %7.2f%% %10.1f  %s\n", ips[i].key, ips[i].samples,
		       pct(ips[i].samples, total), avg(ips[i].weight, ips[i].samples),
		       i < MAX_NAMED && names && names[i].sym[0] ? names[i].sym : "");
	if (header) {
		printf("\n");
		cli_perfdata_print_header(stdout, r);
	}
out:
	free(names);
	free(rows);
	free(groups);
	free(ips);
	free(nodes);
	pms_perfdata_summary_free(s);
	pms_perfdata_reader_free(r);
	if (fd > 0)
		close(fd);
	return ret;
}
