/* The self-contained HTML page of the memory report (pmuscope/render.h).
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

#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/render.h"
#include "render_int.h"
#include "util/error.h"

/* tools/html: embedded by embed.py */
extern const char pms_html_d3[];
extern const char pms_html_js[];
extern const char pms_html_css[];

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

/* A renderer's document in a string. */
static char *capture(int (*fn)(const struct pms_render_mem_opts *, const struct pms_memreport *),
		     const struct pms_render_mem_opts *m, const struct pms_memreport *r)
{
	char *buf = NULL;
	size_t len = 0;
	struct pms_render_mem_opts o = *m;
	FILE *mf = open_memstream(&buf, &len);
	if (!mf)
		return NULL;
	o.out = mf;
	int rc = fn(&o, r);
	if (fclose(mf) != 0 || rc < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The per-sample columns the charts bin: time, level, latency, nodes and
 * call path of each sample; the paths as frame lists (leaf first); the
 * frames; the level names; the node distances. */
static void samples_blob(FILE *f, const struct pms_memreport *r,
			 const struct pms_export_stacks *st, const struct pms_topo *topo)
{
	size_t n = r->nall;
	char txt[128];
	/* the stacks (frame indexes, leaf first) and their frames, as the
	 * pprof and the collapsed stacks take them (export.h) */
	fprintf(f, "{\"callers\":%s,\n\"paths\":[",
		pms_export_stacks_callers(st) ? "true" : "false");
	for (size_t j = 0; j < pms_export_stacks_count(st); j++) {
		fputs(j ? ",[" : "[", f);
		for (size_t q = 0; q < pms_export_stacks_depth(st, j); q++)
			fprintf(f, "%s%zu", q ? "," : "", pms_export_stacks_frame_index(st, j, q));
		fputc(']', f);
	}
	fputs("],\n\"frames\":[", f);
	for (size_t i = 0; i < pms_export_stacks_frame_count(st); i++) {
		const struct pms_export_frame *s = pms_export_stacks_frame(st, i);
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
		fprintf(f, "%s%zu", i ? "," : "", pms_export_stacks_of_sample(st, i));
	fputs("],\n\"distances\":", f);
	if (topo && r->nnodes) {
		fputc('[', f);
		for (size_t a = 0; a < r->nnodes; a++) {
			fputs(a ? ",[" : "[", f);
			for (size_t b = 0; b < r->nnodes; b++)
				fprintf(f, "%s%d", b ? "," : "",
					pms_topo_distance(topo, r->node_ids[a], r->node_ids[b]));
			fputc(']', f);
		}
		fputc(']', f);
	} else {
		fputs("null", f);
	}
	fputs("}", f);
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

int pms_render_mem_html(FILE *f, const struct pms_render_mem_opts *opts,
			const struct pms_memreport *r, const struct pms_export_stacks *st,
			const struct pms_topo *topo)
{
	struct pms_render_mem_opts m0;
	const struct pms_render_mem_opts *m = &m0;
	int rc = pms_render_mem_take("pms_render_mem_html", opts, &m0);
	if (rc < 0)
		return rc;
	if (!f || !r || !st)
		return pms_err(PMS_EINVAL, "render: html: NULL argument");
	struct pms_render_mem_opts mj = *m;
	mj.samples = false; /* the page carries its own per-sample columns */
	char *json = capture(pms_render_mem_json, &mj, r);
	char *text = capture(pms_render_mem_text, m, r);
	if (!json || !text) {
		rc = pms_err(PMS_ENOMEM, "render: html: out of memory");
		goto out;
	}
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
	samples_blob(f, r, st, topo);
	fputs("\n</script>\n<script>\n", f);
	fputs(pms_html_d3, f);
	fputs("\n</script>\n<script>\n", f);
	fputs(pms_html_js, f);
	fputs("\n</script>\n</body></html>\n", f);
	rc = ferror(f) ? pms_err(PMS_EIO, "render: html: writing failed") : 0;
out:
	free(json);
	free(text);
	return rc;
}
