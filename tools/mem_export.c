/* `--html FILE`, `--pprof FILE` and `--folded[=latency]` of `pmuscope mem`
 * and `pmuscope report`: the options, the files (tools/cli_out.h) and the
 * messages; the documents are the library's (pmuscope/export.h: pprof and
 * collapsed stacks; pmuscope/render.h: the HTML page). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mem_export.h"
#include "pmuscope/error.h"

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


/* The page into the --html file, flushed, checked, closed and renamed
 * into place. */
static int write_html(struct mem_export *x, const struct pms_render_mem_opts *m,
		      const struct pms_memreport *r, const struct pms_export_stacks *st)
{
	FILE *f = cli_out_stream(&x->html_out);
	int ret = 1, rc;
	if (!f)
		goto out;
	rc = pms_render_mem_html(f, m, r, st, x->topo);
	if (rc == PMS_ENOMEM) {
		fprintf(stderr, "pmuscope: %s: --html: out of memory\n", m->command);
		goto out;
	}
	ret = cli_out_commit(&x->html_out);
out:
	if (ret)
		cli_out_abandon(&x->html_out);
	return ret;
}

int mem_export_write(struct mem_export *x, const struct pms_render_mem_opts *m,
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
		const char *out = NULL;
		size_t len = 0;
		if (x->folded_alloc) {
			/* the allocation paths (alloc_render.c), or why none */
			if (!x->alloc_folded || !x->alloc_folded_len)
				fprintf(stderr, "pmuscope: %s: --folded=alloc: no stacks to write (%s)\n",
					m->command, x->alloc_folded ? "no sample in a tracked allocation"
								    : "allocations are not tracked");
			else
				out = x->alloc_folded, len = x->alloc_folded_len;
		} else if (pms_export_folded(st, x->folded_weight, &txt, &len) < 0) {
			ret = cli_fail(m->command);
		} else if (!len) {
			/* nothing to draw: said, not an empty file that looks fine */
			fprintf(stderr, "pmuscope: %s: --folded%s: no stacks to write (%s)\n",
				m->command, x->folded_weight == PMS_EXPORT_LATENCY ? "=latency" : "",
				x->folded_weight == PMS_EXPORT_LATENCY
					? "no sample has a latency: this engine or file gives none"
					: "no samples");
		} else {
			out = txt;
		}
		if (out && x->folded_to && strcmp(x->folded_to, "-")) {
			if (write_file(&x->folded_out, out, len))
				ret = CLI_EXIT_IO;
		} else if (out) {
			fwrite(out, 1, len, stdout);
			fflush(stdout); /* checked at the end (cli_out.h) */
		}
		free(txt);
	}
	if (x->pprof) {
		void *buf = NULL;
		size_t len = 0;
		char comment[600];
		snprintf(comment, sizeof(comment), "pmuscope %s: %s", m->command,
			 m->target_text ? m->target_text : "");
		if (pms_render_session_pprof(x->ses, r, x->ar, st, comment, &buf, &len) < 0)
			ret = cli_fail(m->command);
		else if (write_file(&x->pprof_out, buf, len))
			ret = CLI_EXIT_IO;
		free(buf);
	}
	if (x->html && write_html(x, m, r, st))
		ret = CLI_EXIT_IO;
	pms_export_stacks_free(st);
	mem_export_abandon(x); /* what was not written */
	return ret;
}
