/* The exports of the memory report: collapsed stacks and pprof through the
 * library (pmuscope/export.h), and the self-contained HTML page.
 *
 * The page is one file with no network access (its Content-Security-Policy
 * allows nothing but its own inline script and style): d3 (Debian's
 * libjs-d3, embedded at build time by tools/html/embed.py), the page's
 * script and style, the report as the same JSON `--json` prints, the text
 * report (every caveat it prints), and per-sample columns for the charts. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem_export.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/symbols.h"

/* tools/html: embedded by embed.py */
extern const char pms_html_d3[];
extern const char pms_html_js[];
extern const char pms_html_css[];

int mem_export_cli(struct mem_export *x, const struct cli_parser *p, int id)
{
	switch (id) {
	case MEM_EXPORT_O_HTML:
	case MEM_EXPORT_O_PPROF:
		if (!p->arg || !*p->arg)
			return cli_bad_arg(p, "a file name");
		if (id == MEM_EXPORT_O_HTML)
			x->html = p->arg;
		else
			x->pprof = p->arg;
		return 1;
	case MEM_EXPORT_O_FOLDED_TO:
		if (!p->arg || !*p->arg)
			return cli_bad_arg(p, "a file name or '-'");
		x->folded_to = p->arg;
		if (!x->folded)
			x->folded_weight = PMS_EXPORT_SAMPLES;
		x->folded = true;
		return 1;
	case MEM_EXPORT_O_FOLDED:
		x->folded = true;
		if (!p->arg || !strcmp(p->arg, "samples"))
			x->folded_weight = PMS_EXPORT_SAMPLES;
		else if (!strcmp(p->arg, "latency"))
			x->folded_weight = PMS_EXPORT_LATENCY;
		else if (!strcmp(p->arg, "alloc"))
			x->folded_alloc = true;
		else
			return cli_bad_arg(p, "samples, latency or alloc");
		return 1;
	default:
		return 0;
	}
}

bool mem_export_wanted(const struct mem_export *x)
{
	return x->html || x->pprof || x->folded;
}

int mem_export_open(struct mem_export *x, const char *cmd)
{
	int ret = cli_out_open(&x->html_out, cmd, "--html", x->html, CLI_OUT_REPLACE);
	if (!ret)
		ret = cli_out_open(&x->pprof_out, cmd, "--pprof", x->pprof, CLI_OUT_REPLACE);
	if (!ret)
		ret = cli_out_open(&x->folded_out, cmd, "--folded-to",
				   x->folded_to && strcmp(x->folded_to, "-") ? x->folded_to : NULL,
				   CLI_OUT_REPLACE);
	if (ret)
		mem_export_abandon(x);
	return ret;
}

void mem_export_abandon(struct mem_export *x)
{
	cli_out_abandon(&x->html_out);
	cli_out_abandon(&x->pprof_out);
	cli_out_abandon(&x->folded_out);
}

static int write_file(struct cli_out *o, const void *buf, size_t len)
{
	(void)cli_out_write(o, buf, len);
	return cli_out_commit(o);
}

/* ---- the HTML page ---------------------------------------------------------- */

/* A JSON string, safe inside <script>: '<' as \u003c. */
static void js_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Run a renderer that prints to stdout into a string.  In the GNU C
 * library stdout is an ordinary variable the program may set (glibc
 * manual, "Standard Streams"). */
static char *capture(void (*fn)(const struct mem_render *, const struct pms_memreport *),
		     const struct mem_render *m, const struct pms_memreport *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	if (!mf)
		return NULL;
	fflush(stdout);
	FILE *saved = stdout;
	stdout = mf;
	fn(m, r);
	fflush(mf);
	stdout = saved;
	fclose(mf);
	return buf;
}

/* The per-sample columns the charts bin: time, level, latency, nodes and
 * call path of each sample; the paths as frame lists (leaf first); the
 * frames; the level names; the node distances. */
static int samples_blob(FILE *f, const struct mem_export *x, const struct pms_memreport *r,
			const struct pms_export_stacks *st)
{
	size_t n = r->nall;
	char txt[128];
	/* the stacks (frame indexes, leaf first) and their frames, as the
	 * pprof and the collapsed stacks take them (export.h) */
	fprintf(f, "{\"callers\":%s,\n\"paths\":[", st->callers ? "true" : "false");
	for (size_t j = 0; j < st->nstacks; j++) {
		fputs(j ? ",[" : "[", f);
		for (size_t q = st->off[j]; q < st->off[j + 1]; q++)
			fprintf(f, "%s%zu", q > st->off[j] ? "," : "", st->frame[q]);
		fputc(']', f);
	}
	fputs("],\n\"frames\":[", f);
	for (size_t i = 0; i < st->nframes; i++) {
		const struct pms_export_frame *s = &st->frames[i];
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		js_str(f, s->name);
		fputs(",\"module\":", f);
		js_str(f, s->module);
		fprintf(f, ",\"line\":%d,\"file\":", s->line);
		js_str(f, s->file);
		fputc('}', f);
	}
	/* levels: the report's names, in its order */
	fputs("],\n\"levels\":[", f);
	for (size_t i = 0; i < r->nlevels; i++) {
		fputs(i ? "," : "", f);
		js_str(f, r->levels[i].name);
	}
	fputs("],\n\"time\":[", f);
	for (size_t i = 0; i < n; i++) {
		const struct pms_memsample *s = &r->all[i].s;
		if (s->valid & PMS_MS_TIME)
			fprintf(f, "%s%" PRIu64, i ? "," : "", s->time);
		else
			fputs(i ? ",null" : "null", f);
	}
	fputs("],\n\"level\":[", f);
	for (size_t i = 0; i < n; i++) {
		const struct pms_memsample *s = &r->all[i].s;
		long lv = -1;
		if ((s->valid & PMS_MS_DATA_SRC) && s->data_src && s->data_src != PMS_MEM_NA_VALUE) {
			pms_datasrc_format_mem(s->data_src, txt, sizeof(txt));
			for (size_t k = 0; k < r->nlevels; k++)
				if (!strcmp(r->levels[k].name, txt))
					lv = (long)k;
		}
		fprintf(f, "%s%ld", i ? "," : "", lv);
	}
	fputs("],\n\"weight\":[", f);
	for (size_t i = 0; i < n; i++) {
		const struct pms_memsample *s = &r->all[i].s;
		fprintf(f, "%s%" PRIu64, i ? "," : "", (s->valid & PMS_MS_WEIGHT) ? s->weight : 0);
	}
	fputs("],\n\"mem_node\":[", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%d", i ? "," : "", r->all[i].mem_node >= 0 ? r->all[i].mem_node : -1);
	fputs("],\n\"cpu_node\":[", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%d", i ? "," : "", r->all[i].cpu_node);
	fputs("],\n\"path\":[", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%zu", i ? "," : "", st->stack[i]);
	fputs("],\n\"distances\":", f);
	if (x->topo && r->nnodes) {
		fputc('[', f);
		for (size_t a = 0; a < r->nnodes; a++) {
			fputs(a ? ",[" : "[", f);
			for (size_t b = 0; b < r->nnodes; b++)
				fprintf(f, "%s%d", b ? "," : "",
					pms_topo_distance(x->topo, r->node_ids[a], r->node_ids[b]));
			fputc(']', f);
		}
		fputc(']', f);
	} else {
		fputs("null", f);
	}
	fputs("}", f);
	return 0;
}

/* Copy s into f with "</" written as "<\/" (valid in JSON strings, and
 * cannot close the <script> element). */
static void put_script_safe(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (s[0] == '<' && s[1] == '/')
			fputs("<\\", f);
		else
			fputc(*s, f);
	}
}

static void put_html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

static int write_html(struct mem_export *x, const struct mem_render *m,
		      const struct pms_memreport *r, const struct pms_export_stacks *st)
{
	struct mem_render mj = *m;
	mj.samples = false; /* the page carries its own per-sample columns */
	char *json = capture(mem_render_json, &mj, r);
	char *text = capture(mem_render_text, m, r);
	int ret = 1;
	FILE *f = NULL;
	if (!json || !text) {
		fprintf(stderr, "pmuscope: %s: --html: out of memory\n", m->command);
		goto out;
	}
	f = cli_out_stream(&x->html_out);
	if (!f)
		goto out;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>pmuscope ",
	      f);
	put_html_text(f, m->command);
	fputs(": ", f);
	put_html_text(f, m->target_text ? m->target_text : "");
	fputs("</title>\n<style>\n", f);
	fputs(pms_html_css, f);
	fputs("</style></head>\n<body>\n<header><h1>pmuscope ", f);
	put_html_text(f, m->command);
	fputs("</h1><p class=\"target\">", f);
	put_html_text(f, m->target_text ? m->target_text : "");
	fputs("</p></header>\n<main id=\"main\"><noscript>The charts need JavaScript; the text "
	      "report is at the end.</noscript></main>\n<section><h2>Text report</h2>\n"
	      "<p>What <code>pmuscope ", f);
	put_html_text(f, m->command);
	fputs("</code> prints, with every caveat.</p>\n<pre id=\"pms-text\">", f);
	put_html_text(f, text);
	fputs("</pre></section>\n"
	      "<pre id=\"pms-check\" hidden></pre><pre id=\"pms-status\" hidden>loading</pre>"
	      "<pre id=\"pms-errors\" hidden></pre>\n"
	      "<script type=\"application/json\" id=\"pms-report\">\n", f);
	put_script_safe(f, json);
	fputs("</script>\n<script type=\"application/json\" id=\"pms-samples\">\n", f);
	if (samples_blob(f, x, r, st) < 0) {
		fprintf(stderr, "pmuscope: %s: --html: out of memory\n", m->command);
		goto out;
	}
	fputs("\n</script>\n<script>\n", f);
	fputs(pms_html_d3, f);
	fputs("\n</script>\n<script>\n", f);
	fputs(pms_html_js, f);
	fputs("\n</script>\n</body></html>\n", f);
	/* flushed, checked, closed and renamed into place */
	ret = cli_out_commit(&x->html_out);
out:
	if (ret)
		cli_out_abandon(&x->html_out);
	free(json);
	free(text);
	return ret;
}

int mem_export_write(struct mem_export *x, const struct mem_render *m,
		     const struct pms_memreport *r)
{
	struct pms_export_stacks *st = NULL;
	int ret = 0;
	if (!mem_export_wanted(x))
		return 0;
	/* one set of stacks for the three: the samples' call paths when they
	 * were recorded (x->paths), else their instructions */
	if (pms_export_stacks_new(r, x->paths, &st) < 0) {
		mem_export_abandon(x);
		return cli_fail(m->command);
	}
	if (x->folded) {
		char *txt = NULL;
		size_t len = 0;
		if (x->folded_alloc) {
			/* the allocation paths (alloc_render.c), or why none */
			if (!x->alloc_folded || !x->alloc_folded_len)
				fprintf(stderr, "pmuscope: %s: --folded=alloc: no stacks to write (%s)\n",
					m->command, x->alloc_folded ? "no sample in a tracked allocation"
								    : "allocations are not tracked");
			else if (x->folded_to && strcmp(x->folded_to, "-")) {
				if (write_file(&x->folded_out, x->alloc_folded, x->alloc_folded_len))
					ret = CLI_EXIT_IO;
			} else {
				fwrite(x->alloc_folded, 1, x->alloc_folded_len, stdout);
				fflush(stdout);
			}
		} else if (pms_export_folded(st, x->folded_weight, &txt, &len) < 0) {
			ret = cli_fail(m->command);
		} else if (!len) {
			/* nothing to draw: said, not an empty file that looks fine */
			fprintf(stderr, "pmuscope: %s: --folded%s: no stacks to write (%s)\n",
				m->command, x->folded_weight == PMS_EXPORT_LATENCY ? "=latency" : "",
				x->folded_weight == PMS_EXPORT_LATENCY
					? "no sample has a latency: this engine or file gives none"
					: "no samples");
		} else if (x->folded_to && strcmp(x->folded_to, "-")) {
			if (write_file(&x->folded_out, txt, len))
				ret = CLI_EXIT_IO;
		} else {
			fwrite(txt, 1, len, stdout);
			fflush(stdout); /* checked at the end (cli_out.h) */
		}
		free(txt);
	}
	if (x->pprof) {
		struct pms_export_pprof_opts po = PMS_EXPORT_PPROF_OPTS_INIT;
		void *buf = NULL;
		size_t len = 0, nids = 0;
		struct pms_export_build_id *ids = NULL;
		char comment[600];
		snprintf(comment, sizeof(comment), "pmuscope %s: %s", m->command,
			 m->target_text ? m->target_text : "");
		po.time_ns = x->time_ns;
		po.maps = x->maps;
		po.build_ids = x->build_ids;
		po.nbuild_ids = x->nbuild_ids;
		if (!x->nbuild_ids && x->read_build_ids && pms_export_build_ids(r, NULL, 0, &ids, &nids) == 0) {
			po.build_ids = ids;
			po.nbuild_ids = nids;
		}
		po.host = x->host;
		po.comment = comment;
		if (x->site_labels) {
			po.extra_key = "alloc_site";
			po.extra_values = x->site_labels;
			po.nextra_values = x->nsite_labels;
		}
		if (pms_export_pprof(st, &po, &buf, &len) < 0)
			ret = cli_fail(m->command);
		else if (write_file(&x->pprof_out, buf, len))
			ret = CLI_EXIT_IO;
		free(buf);
		free(ids);
	}
	if (x->html && write_html(x, m, r, st))
		ret = CLI_EXIT_IO;
	pms_export_stacks_free(st);
	mem_export_abandon(x); /* what was not written */
	return ret;
}
