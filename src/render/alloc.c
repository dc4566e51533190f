/* The "allocation sites" section of the memory report (text, JSON, CSV
 * columns) and the sites' views for the exports (pmuscope/render.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/error.h"
#include "pmuscope/render.h"
#include "fields.h"
#include "render_int.h"
#include "util/error.h"

static void json_frame(struct pms_json *j, const struct pms_alloc_frame *f)
{
	pms_json_begin_object(j, NULL);
	PMS_JSON_FIELDS(j, JX("ip", true, f->ip), JS("function", f->func), JS("file", f->file),
			JI("line", f->line), JS("module", f->module));
	pms_json_end_object(j);
}

/* The site's data type (issue 29): the type of over half of its typed
 * samples and its most sampled member, null when none has. */
static void json_type(struct pms_json *j, const struct pms_alloc_site *s)
{
	pms_json_uint(j, "typed_samples", s->typed);
	if (!s->type) {
		pms_json_null(j, "type");
		return;
	}
	pms_json_begin_object(j, "type");
	pms_json_str(j, "name", s->type);
	pms_json_uint(j, "samples", s->type_samples);
	pms_json_str(j, "member", s->member);
	pms_json_uint(j, "member_samples", s->member_samples);
	pms_json_end_object(j);
}

void pms_render_alloc_json(struct pms_json *j, const struct pms_render_alloc *a)
{
	const char *why = a->why ? a->why : "";
	if (!a->want && !why[0])
		return;
	pms_json_begin_object(j, "allocation_sites");
	const struct pms_alloc_report *r = a->ar;
	pms_json_bool(j, "tracked", r != NULL);
	pms_json_str(j, "why_not", r ? NULL : why[0] ? why : "no report");
	pms_json_uint(j, "rate", a->rate);
	pms_json_uint(j, "threshold", a->threshold);
	if (r) {
		pms_json_str(j, "clock_calibration", r->calibration_why ? r->calibration_why : "ok");
		PMS_JSON_FIELDS(j, JU("records", r->stats.records), JU("allocations", r->stats.allocs),
				JU("sampled", r->stats.sampled), JU("always", r->stats.always),
				JU("frees", r->stats.frees), JU("processes", r->stats.processes),
				JU("samples_with_addr", r->with_addr),
				JU("samples_placed", r->placed));
		pms_json_begin_array(j, "sites");
		for (size_t i = 0; i < r->nsites; i++) {
			const struct pms_alloc_site *s = &r->sites[i];
			pms_json_begin_object(j, NULL);
			PMS_JSON_FIELDS(j, JU("samples", s->samples), JU("latency_total", s->latency),
					JU("latency_samples", s->weighted), JU("resolved", s->resolved),
					JU("remote", s->remote), JIQ("node", s->node >= 0, s->node),
					JU("node_samples", s->node_samples),
					JU("allocations", s->allocs), JU("bytes", s->bytes),
					JD("est_bytes", s->est_bytes), JD("est_count", s->est_count),
					JS("kind", pms_alloc_kind_name(s->kind)), JU("pid", s->pid),
					JU("tid", s->tid));
			if (r->types)
				json_type(j, s);
			pms_json_begin_array(j, "call_path");
			for (size_t f = 0; f < s->nframes; f++)
				json_frame(j, &s->frames[f]);
			pms_json_end_array(j);
			pms_json_end_object(j);
		}
		pms_json_end_array(j);
		if (a->samples) {
			/* the site of each sample of sample_list, -1 none */
			pms_json_begin_array(j, "sample_sites");
			for (size_t i = 0; i < r->nsample_site; i++)
				pms_json_int(j, NULL, r->sample_site[i]);
			pms_json_end_array(j);
		}
	}
	pms_json_end_object(j);
}

static void text_path(FILE *out, const struct pms_alloc_site *s)
{
	if (s->kind == PMS_ALLOC_TLS && s->nframes && s->frames[0].module &&
	    *s->frames[0].module) { /* its one frame: the module */
		const char *m = strrchr(s->frames[0].module, '/');
		fprintf(out, "TLS of %s\n", m ? m + 1 : s->frames[0].module);
		return;
	}
	for (size_t f = 0; f < s->nframes && f < 6; f++) {
		const struct pms_alloc_frame *fr = &s->frames[f];
		fprintf(out, "%s", f ? " <- " : "");
		if (fr->func)
			fprintf(out, "%s", fr->func);
		else
			fprintf(out, "0x%" PRIx64, fr->ip);
		if (fr->file)
			fprintf(out, " (%s:%d)", strrchr(fr->file, '/') ? strrchr(fr->file, '/') + 1 : fr->file,
			       fr->line);
	}
	if (s->nframes > 6)
		fprintf(out, " <- ...");
	fprintf(out, "\n");
}

/* "struct rec (b) 87%": the type of over half of the site's typed
 * samples, its hot member and the type's share of them; "mixed" when
 * samples resolved but no type has half, "-" when none resolved. */
static void text_type(FILE *out, const struct pms_alloc_site *s)
{
	char t[160];
	if (s->type)
		snprintf(t, sizeof(t), "%.100s (%.40s) %.0f%%", s->type,
			 s->member && *s->member ? s->member : "whole",
			 100.0 * (double)s->type_samples / (double)s->typed);
	else
		snprintf(t, sizeof(t), "%s", s->typed ? "mixed" : "-");
	fprintf(out, "%-32s ", t);
}

void pms_render_alloc_text(FILE *out, const struct pms_render_alloc *a)
{
	const char *why = a->why ? a->why : "";
	if (!a->want && !why[0])
		return;
	const struct pms_alloc_report *r = a->ar;
	if (!r) {
		fprintf(out, "\n%s\n", why[0] ? why : "allocations are not tracked");
		return;
	}
	fprintf(out, "\nTop allocation sites (libpmuscope-alloc.so: --alloc-rate %" PRIu64
	       " B, --alloc-threshold %" PRIu64 " B; %" PRIu64 " allocations tracked, %" PRIu64
	       " sampled by bytes; %" PRIu64 " of %" PRIu64 " samples with a data address placed)\n",
	       a->rate, a->threshold, r->stats.allocs, r->stats.sampled, r->placed, r->with_addr);
	if (r->calibration_why)
		fprintf(out, "  clock: %s; times compared uncorrected\n", r->calibration_why);
	if (!r->nsites) {
		fprintf(out, "  no sample fell in a tracked allocation\n");
		return;
	}
	fprintf(out, "  %8s %6s %9s %7s %9s %8s %10s %-14s ", "samples", "share", "lat.mean",
	       "remote", "node", "allocs", "est.bytes", "kind");
	if (r->types)
		fprintf(out, "%-32s ", "type (member) share");
	fprintf(out, "call path\n");
	size_t top = a->top ? a->top : 10;
	for (size_t i = 0; i < r->nsites && i < top; i++) {
		const struct pms_alloc_site *s = &r->sites[i];
		char lat[32] = "-", rem[32] = "-", node[32] = "-";
		if (s->weighted)
			snprintf(lat, sizeof(lat), "%.1f", (double)s->latency / (double)s->weighted);
		if (s->resolved)
			snprintf(rem, sizeof(rem), "%.1f%%",
				 100.0 * (double)s->remote / (double)s->resolved);
		/* the node that served most of its resolved samples, and its
		 * share where another node served some */
		if (s->node >= 0 && s->node_samples == s->resolved)
			snprintf(node, sizeof(node), "%d", s->node);
		else if (s->node >= 0)
			snprintf(node, sizeof(node), "%d:%.0f%%", s->node,
				 100.0 * (double)s->node_samples / (double)s->resolved);
		char kind[40]; /* a thread's stack or TLS: [stack:TID], [tls:TID] */
		if (s->tid)
			snprintf(kind, sizeof(kind), "[%s:%u]",
				 s->kind == PMS_ALLOC_TLS ? "tls" : "stack", s->tid);
		else
			snprintf(kind, sizeof(kind), "%s", pms_alloc_kind_name(s->kind));
		fprintf(out, "  %8" PRIu64 " %5.1f%% %9s %7s %9s %8" PRIu64 " %10.0f %-14s ",
		       s->samples, r->placed ? 100.0 * (double)s->samples / (double)r->placed : 0.0,
		       lat, rem, node, s->allocs, s->est_bytes, kind);
		if (r->types)
			text_type(out, s);
		text_path(out, s);
	}
}

/* ---- sites in the other outputs (issue 28) ------------------------------ */

void pms_render_alloc_where(const struct pms_alloc_site *s, char *buf, size_t len)
{
	size_t f = 0;
	if (!s->nframes) {
		snprintf(buf, len, "[%s]", pms_alloc_kind_name(s->kind));
		return;
	}
	if (s->kind == PMS_ALLOC_TLS) { /* its one frame: the module */
		const char *m = s->frames[0].module ? strrchr(s->frames[0].module, '/') : NULL;
		snprintf(buf, len, "[tls:%u] %.200s", s->tid,
			 m ? m + 1 : s->frames[0].module ? s->frames[0].module : "?");
		return;
	}
	while (f < s->nframes && !s->frames[f].file)
		f++;
	if (f == s->nframes)
		f = 0;
	const struct pms_alloc_frame *a = &s->frames[f];
	const char *file = a->file ? (strrchr(a->file, '/') ? strrchr(a->file, '/') + 1 : a->file)
				   : NULL;
	char at[256];
	if (file)
		snprintf(at, sizeof(at), "%s:%d", file, a->line);
	else
		snprintf(at, sizeof(at), "0x%" PRIx64, a->ip);
	if (f + 1 < s->nframes && s->frames[f + 1].func)
		snprintf(buf, len, "%s (%.200s <- %.200s)", at, a->func ? a->func : "?",
			 s->frames[f + 1].func);
	else
		snprintf(buf, len, "%s (%.200s)", at, a->func ? a->func : "?");
}

static const struct pms_alloc_site *sample_site(const struct pms_alloc_report *r, size_t i)
{
	long k = r && i < r->nsample_site ? r->sample_site[i] : -1;
	return k >= 0 && (size_t)k < r->nsites ? &r->sites[k] : NULL;
}


static int by_line(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* one frame's name in a collapsed stack: no ';', no newline */
static void folded_name(char *buf, size_t len, const struct pms_alloc_frame *f)
{
	if (f->func)
		snprintf(buf, len, "%s", f->func);
	else if (f->module && f->module[0])
		snprintf(buf, len, "[unknown] [%s]", strrchr(f->module, '/') ? strrchr(f->module, '/') + 1
									 : f->module);
	else
		snprintf(buf, len, "[unknown]");
	for (char *c = buf; *c; c++)
		if (*c == ';')
			*c = ':';
		else if (*c == '\n')
			*c = ' ';
}

int pms_render_alloc_folded(const struct pms_render_alloc *a, char **text, size_t *len)
{
	const struct pms_alloc_report *r = a->ar;
	*text = NULL;
	*len = 0;
	if (!r)
		return 0;
	char **lines = calloc(r->nsites ? r->nsites : 1, sizeof(*lines));
	size_t n = 0;
	int rc = 0;
	if (!lines)
		return pms_err(PMS_ENOMEM, "render: allocation stacks: out of memory");
	for (size_t i = 0; i < r->nsites && rc == 0; i++) {
		const struct pms_alloc_site *s = &r->sites[i];
		char *line = NULL;
		size_t linelen = 0;
		FILE *f = open_memstream(&line, &linelen);
		if (!f) {
			rc = PMS_ENOMEM;
			break;
		}
		char name[512];
		for (size_t k = s->nframes; k-- > 0;) {
			folded_name(name, sizeof(name), &s->frames[k]);
			fprintf(f, "%s;", name);
		}
		/* the leaf: the allocating call, so that one path's sites sum up */
		fprintf(f, "[%s]\t%" PRIu64, pms_alloc_kind_name(s->kind), s->samples);
		if (fclose(f) != 0 || !line) {
			free(line);
			rc = PMS_ENOMEM;
			break;
		}
		lines[n++] = line;
	}
	if (rc == 0)
		qsort(lines, n, sizeof(*lines), by_line);
	/* equal paths (sites that differ only below the names) summed */
	FILE *out = rc == 0 ? open_memstream(text, len) : NULL;
	for (size_t i = 0; out && i < n;) {
		char *tab = strchr(lines[i], '\t');
		*tab = 0;
		uint64_t w = strtoull(tab + 1, NULL, 10);
		size_t j = i + 1;
		for (; j < n; j++) {
			char *t2 = strchr(lines[j], '\t');
			*t2 = 0;
			bool same = !strcmp(lines[i], lines[j]);
			*t2 = '\t';
			if (!same)
				break;
			w += strtoull(t2 + 1, NULL, 10);
		}
		fprintf(out, "%s %" PRIu64 "\n", lines[i], w);
		i = j;
	}
	if (rc == 0 && (!out || fclose(out) != 0))
		rc = PMS_ENOMEM;
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	if (rc < 0) {
		free(*text);
		*text = NULL;
		*len = 0;
		return pms_err(rc, "render: allocation stacks: out of memory");
	}
	return 0;
}

int pms_render_alloc_labels(const struct pms_render_alloc *a, char ***labels, size_t *n)
{
	const struct pms_alloc_report *r = a->ar;
	char where[600];
	*labels = NULL;
	*n = 0;
	if (!r)
		return 0;
	char **v = calloc(r->nsample_site ? r->nsample_site : 1, sizeof(*v));
	if (!v)
		return pms_err(PMS_ENOMEM, "render: allocation labels: out of memory");
	for (size_t i = 0; i < r->nsample_site; i++) {
		const struct pms_alloc_site *s = sample_site(r, i);
		if (!s)
			continue;
		pms_render_alloc_where(s, where, sizeof(where));
		if (!(v[i] = strdup(where))) {
			for (size_t k = 0; k < i; k++)
				free(v[k]);
			free(v);
			return pms_err(PMS_ENOMEM, "render: allocation labels: out of memory");
		}
	}
	*labels = v;
	*n = r->nsample_site;
	return 0;
}

int pms_render_alloc_type_labels(const struct pms_render_alloc *a, const char ***labels, size_t *n)
{
	const struct pms_alloc_report *r = a->ar;
	*labels = NULL;
	*n = 0;
	if (!r || !r->types)
		return 0;
	const char **v = calloc(r->nsample_site ? r->nsample_site : 1, sizeof(*v));
	if (!v)
		return pms_err(PMS_ENOMEM, "render: allocation type labels: out of memory");
	for (size_t i = 0; i < r->nsample_site; i++) {
		const struct pms_alloc_site *s = sample_site(r, i);
		v[i] = s ? s->type : NULL; /* NULL: no site, or no dominant type */
	}
	*labels = v;
	*n = r->nsample_site;
	return 0;
}
