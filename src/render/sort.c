/* perf report's table of a sort histogram (report -s/-F, --children,
 * -g flat/folded), as perf report --stdio prints it (issue 30 item 4; moved
 * from the CLI, issue 27).  The keys and the grouping are the library's
 * (pmuscope/sorthist.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/render_cmd.h"

#include "cgtree_int.h"

/* One field of a row: its text in w (the key values joined by '\t'). */
static void key_field(const char *text, size_t k, char *b, size_t n)
{
	const char *t = text;
	for (size_t i = 0; i < k && t; i++) {
		t = strchr(t, '\t');
		t = t ? t + 1 : NULL;
	}
	const char *tab = t ? strchr(t, '\t') : NULL;
	snprintf(b, n, "%.*s", t ? (tab ? (int)(tab - t) : (int)strlen(t)) : 0, t ? t : "");
}

struct col_order {
	const int *cols;
	size_t ncols;
};

/* perf's -F order: by the fields in turn (overhead, sample, period
 * descending; a key's text ascending). */
static int col_cmp(const void *a, const void *b, void *ud)
{
	const struct col_order *o = ud;
	const struct pms_sorthist_row *x = a, *y = b;
	for (size_t i = 0; i < o->ncols; i++) {
		int c = o->cols[i];
		if (c == PMS_SORT_COL_SAMPLES && x->samples != y->samples)
			return x->samples > y->samples ? -1 : 1;
		if ((c == PMS_SORT_COL_OVERHEAD || c == PMS_SORT_COL_PERIOD) && x->period != y->period)
			return x->period > y->period ? -1 : 1;
		if (c >= 0) {
			char u[512], v[512];
			key_field(x->text, (size_t)c, u, sizeof(u));
			key_field(y->text, (size_t)c, v, sizeof(v));
			int r = strcmp(u, v);
			if (r)
				return r;
		}
	}
	return 0;
}

/* A chain's value as perf's callchain_node__scnprintf_value: folded its
 * own samples (the node's hit), flat those of every chain it begins too
 * (callchain_cumul_hits: the node and the nodes below it; cum: the row's
 * cumulated periods then samples, render_cg_cumul; NULL for folded). */
static int chain_value(char *b, size_t n, const struct pms_sorthist_row *w, size_t k,
		       const struct pms_sorthist_result *r, const struct pms_render_chains *cg,
		       const uint64_t *cum)
{
	const struct pms_sorthist_chain *c = &w->chains[k];
	uint64_t period = cum ? cum[k] : c->period;
	uint64_t samples = cum ? cum[w->nchains + k] : c->samples;
	if (cg->value == PMS_CG_PERIOD)
		return snprintf(b, n, "%" PRIu64, period);
	if (cg->value == PMS_CG_COUNT)
		return snprintf(b, n, "%" PRIu64, samples);
	return snprintf(b, n, "%.2f%%", r->period ? 100.0 * (double)period / (double)r->period : 0);
}

/* A row's chains as perf report -g flat / folded print them: those of at
 * least threshold percent of the total period (perf's min_callchain_hits,
 * truncated to an integer), at most print_limit. */
static void print_chains(FILE *f, const struct pms_sorthist_row *w,
			 const struct pms_sorthist_result *r, const struct pms_render_chains *cg)
{
	uint64_t min = (uint64_t)((double)r->period * (cg->threshold / 100.0));
	size_t shown = 0;
	uint64_t *cum = NULL;
	if (cg->mode == PMS_CG_FLAT && w->nchains) {
		/* the row's cumulated values in one pass over its chains (not a
		 * scan of them all per chain) */
		cum = malloc(2 * w->nchains * sizeof(*cum));
		if (!cum || render_cg_cumul(w, cum, cum + w->nchains) < 0) {
			free(cum);
			return; /* out of memory: no chains */
		}
	}
	for (size_t i = 0; i < w->nchains; i++) {
		const struct pms_sorthist_chain *c = &w->chains[i];
		char v[64];
		if (c->period < min || (cg->print_limit && shown == (size_t)cg->print_limit))
			continue;
		shown++;
		chain_value(v, sizeof(v), w, i, r, cg, cum);
		if (cg->mode == PMS_CG_FOLDED) {
			fprintf(f, "%s %s\n", v, c->text);
			continue;
		}
		fprintf(f, "           %s\n", v);
		for (const char *t = c->text; t;) {
			const char *e = strchr(t, ';');
			fprintf(f, "                %.*s\n", e ? (int)(e - t) : (int)strlen(t), t);
			t = e ? e + 1 : NULL;
		}
		fputc('\n', f);
	}
	free(cum);
}

int pms_render_sort_table(struct pms_sorthist *h, bool nr, double percent_limit, bool say_hidden,
			  const int *cols, size_t ncols, const struct pms_render_chains *cg, FILE *f)
{
	struct pms_sorthist_result r;
	int defcols[2 + PMS_SORTHIST_MAXKEYS];
	if (pms_sorthist_result(h, &r) < 0)
		return -1;
	/* perf's graph leaves out a lone root's first frame when the first
	 * sort key is sym (the row's own symbol) and -F was not given */
	bool skip_first = !cols && r.nkeys && r.titles[0] &&
			  (!strcmp(r.titles[0], "Symbol") || !strcmp(r.titles[0], "Data Symbol"));
	if (!cols) { /* perf's default: Overhead, [Samples], the keys */
		ncols = 0;
		defcols[ncols++] = PMS_SORT_COL_OVERHEAD;
		if (nr)
			defcols[ncols++] = PMS_SORT_COL_SAMPLES;
		for (size_t i = 0; i < r.nkeys; i++)
			defcols[ncols++] = (int)i;
		cols = defcols;
	} else if (r.n_rows > 1) {
		struct col_order o = { cols, ncols };
		qsort_r((void *)r.rows, r.n_rows, sizeof(*r.rows), col_cmp, &o);
	}
	/* perf shows Children only where the file has call chains */
	bool children = r.children && r.with_path;
	fprintf(f, "# Samples: %" PRIu64 "  Event count (approx.): %" PRIu64 "\n#\n#", r.samples,
		r.period);
	if (children)
		fprintf(f, " Children");
	for (size_t i = 0; i < ncols; i++) {
		int c = cols[i];
		fprintf(f, "%s", c == PMS_SORT_COL_OVERHEAD  ? (children ? "      Self" : " Overhead")
				 : c == PMS_SORT_COL_SAMPLES ? "       Samples"
				 : c == PMS_SORT_COL_PERIOD  ? "        Period"
							   : "  ");
		if (c >= 0)
			fprintf(f, "%s", r.titles[c]);
	}
	fprintf(f, "\n#\n");
	size_t hidden = 0;
	for (size_t i = 0; i < r.n_rows; i++) {
		const struct pms_sorthist_row *w = &r.rows[i];
		double pct = r.period ? 100.0 * (double)w->period / (double)r.period : 0;
		double cpct = r.period ? 100.0 * (double)w->children / (double)r.period : 0;
		if ((children ? cpct : pct) < percent_limit) {
			hidden++;
			continue;
		}
		if (children)
			fprintf(f, "  %7.2f%%", cpct);
		for (size_t j = 0; j < ncols; j++) {
			int c = cols[j];
			char v[512];
			if (c == PMS_SORT_COL_OVERHEAD)
				fprintf(f, "  %7.2f%%", pct);
			else if (c == PMS_SORT_COL_SAMPLES)
				fprintf(f, "  %12" PRIu64, w->samples);
			else if (c == PMS_SORT_COL_PERIOD)
				fprintf(f, "  %12" PRIu64, w->period);
			else {
				key_field(w->text, (size_t)c, v, sizeof(v));
				fprintf(f, "  %s", v);
			}
		}
		fputc('\n', f);
		if (cg && (cg->mode == PMS_CG_FLAT || cg->mode == PMS_CG_FOLDED))
			print_chains(f, w, &r, cg);
		else if (cg && (cg->mode == PMS_CG_GRAPH || cg->mode == PMS_CG_FRACTAL))
			render_cg_tree(f, w, &r, cg, skip_first);
	}
	if (hidden && say_hidden)
		fprintf(f, "#\n# %zu rows under --percent-limit %.2f%% not shown\n", hidden,
			percent_limit);
	return 0;
}
