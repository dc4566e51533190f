/* Call-path sections of `pmuscope mem -g`, `report` and `record`: text,
 * JSON members and folded stacks for flame graphs (pmuscope/render.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmuscope/render.h"
#include "fields.h"
#include "render_int.h"

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* Frame k of p is inlined into the next one (an inline stack's frames,
 * session/inlpath.c: innermost first, at one address). */
static bool inlined(const struct pms_pathreport_path *p, size_t k)
{
	const struct pms_pathreport_frame *f = &p->frames[k];
	return (f->flags & PMS_FRAME_INLINE) && k + 1 < p->nframes &&
	       (p->frames[k + 1].flags & PMS_FRAME_INLINE) && p->frames[k + 1].ip == f->ip &&
	       p->frames[k + 1].flags >> PMS_FRAME_INLINE_SHIFT ==
		       (f->flags >> PMS_FRAME_INLINE_SHIFT) + 1;
}

/* As perf script names an inlined function's frame: "(inlined)" for the
 * module. */
static void frame_text(const struct pms_pathreport_frame *f, bool inl, char *buf, size_t cap)
{
	const char *mod = f->module && *f->module ? f->module : NULL;
	const char *base = mod ? mod : "";
	for (const char *c = base; *c; c++)
		if (*c == '/')
			base = c + 1;
	if (inl && f->func)
		base = "inlined";
	if (f->flags & PMS_FRAME_HIDDEN) {
		snprintf(buf, cap, "[kernel] (addresses hidden: kptr_restrict)");
	} else if (f->func && f->file) {
		snprintf(buf, cap, "%016" PRIx64 " %s+0x%" PRIx64 " %s:%d (%s)", f->ip, f->func,
			 f->offset, f->file, f->line, base);
	} else if (f->func) {
		snprintf(buf, cap, "%016" PRIx64 " %s+0x%" PRIx64 " (%s)", f->ip, f->func, f->offset,
			 base);
	} else {
		snprintf(buf, cap, "%016" PRIx64 " [unknown] (%s)", f->ip, mod ? base : "[unknown]");
	}
}

/* A row's samples, their share of total and, where measured, its latency. */
static void text_head(FILE *out, uint64_t samples, uint64_t total, uint64_t latency,
		      uint64_t weighted)
{
	fprintf(out, "  %8" PRIu64 " %5.1f%%", samples, pct(samples, total));
	if (weighted)
		fprintf(out, "  latency %" PRIu64 " (mean %.0f)", latency,
			(double)latency / (double)weighted);
}

static void text_list(FILE *out, const char *title, const struct pms_pathreport *r,
		      enum pms_pathreport_order which, uint64_t total)
{
	size_t n = pms_pathreport_path_count(r, which);
	fprintf(out, "\n%s:\n", title);
	if (!n)
		fprintf(out, "  (none)\n");
	for (size_t i = 0; i < n; i++) {
		const struct pms_pathreport_path *p = pms_pathreport_path_at(r, which, i);
		text_head(out, p->samples, total, p->latency, p->weighted);
		if (p->resolved)
			fprintf(out, "  remote %.0f%% of %" PRIu64, pct(p->remote, p->resolved),
			       p->resolved);
		if (p->truncated)
			fprintf(out, "  (cut)");
		fprintf(out, "\n");
		for (size_t k = 0; k < p->nframes; k++) {
			char line[1024];
			frame_text(&p->frames[k], inlined(p, k), line, sizeof(line));
			fprintf(out, "      %s\n", line);
		}
	}
}

static void text_branches(FILE *out, const char *title, const struct pms_pathreport *r,
			  enum pms_pathreport_branch_order which, uint64_t total)
{
	size_t n = pms_pathreport_branch_count(r, which);
	fprintf(out, "\n%s:\n", title);
	for (size_t i = 0; i < n; i++) {
		const struct pms_pathreport_branch *b = pms_pathreport_branch_at(r, which, i);
		text_head(out, b->samples, total, b->latency, b->weighted);
		if (b->mispredicted)
			fprintf(out, "  mispredicted %.0f%%", pct(b->mispredicted, b->samples));
		fprintf(out, "\n      %016" PRIx64 " %s -> %016" PRIx64 " %s", b->from,
		       b->from_func ? b->from_func : "[unknown]", b->to,
		       b->to_func ? b->to_func : "[unknown]");
		if (b->to_file)
			fprintf(out, " %s:%d", b->to_file, b->to_line);
		fprintf(out, "\n");
	}
}

static void text_branch_section(FILE *out, const struct pms_pathreport *r)
{
	uint64_t with = pms_pathreport_with_branches(r);
	if (!with)
		return;
	fprintf(out, "\nlast branch before the sample (branch stacks: %" PRIu64 " of %" PRIu64
	       " samples):\n",
	       with, pms_pathreport_samples(r));
	text_branches(out, "  by samples", r, PMS_BRANCHES_BY_SAMPLES, with);
	if (pms_pathreport_branch_count(r, PMS_BRANCHES_BY_LATENCY))
		text_branches(out, "  by total latency of the samples", r, PMS_BRANCHES_BY_LATENCY,
			      with);
}

void pms_render_callpath_text(FILE *out, const struct pms_pathreport *r)
{
	uint64_t with = pms_pathreport_with_path(r);
	const struct pms_unwinder_stats *u = pms_pathreport_unwind(r);
	if (!with) {
		text_branch_section(out, r);
		return;
	}
	fprintf(out, "\ncall paths (%s): %" PRIu64 " of %" PRIu64 " samples with one, %zu distinct",
	       pms_callgraph_name(pms_pathreport_how(r)), with, pms_pathreport_samples(r),
	       pms_pathreport_distinct(r));
	if (pms_pathreport_truncated(r))
		fprintf(out, ", %" PRIu64 " cut", pms_pathreport_truncated(r));
	fprintf(out, "\n");
	if (u->samples)
		fprintf(out, "  DWARF unwinding: %" PRIu64 " of %" PRIu64
		       " samples got callers (%" PRIu64 " user frames; %" PRIu64
		       " without user registers, %" PRIu64 " without stack bytes)\n",
		       u->unwound, u->samples, u->frames, u->no_regs, u->no_stack);
	text_list(out, "top call paths by samples", r, PMS_PATHS_BY_SAMPLES, with);
	if (pms_pathreport_path_count(r, PMS_PATHS_BY_LATENCY))
		text_list(out, "top call paths by total latency", r, PMS_PATHS_BY_LATENCY, with);
	if (pms_pathreport_path_count(r, PMS_PATHS_BY_REMOTE))
		text_list(out, "top call paths by remote share (of samples with a memory node)",
			  r, PMS_PATHS_BY_REMOTE, with);
	text_branch_section(out, r);
}

/* A list of the report in one order, for pms_json_rows. */
struct list_ctx {
	const struct pms_pathreport *r;
	int which; /* enum pms_pathreport_order or _branch_order */
};

static void json_frame(struct pms_json *j, const void *ctx, size_t k)
{
	const struct pms_pathreport_path *p = ctx;
	const struct pms_pathreport_frame *f = &p->frames[k];
	PMS_JSON_FIELDS(j, JX("ip", !(f->flags & PMS_FRAME_HIDDEN), f->ip),
			JB("kernel", (f->flags & PMS_FRAME_KERNEL) != 0),
			JB("dwarf", (f->flags & PMS_FRAME_DWARF) != 0),
			JB("inlined", inlined(p, k)), JS("func", f->func),
			JX("offset", f->func, f->offset), JS("file", f->file),
			JIQ("line", f->file, f->line), JS("module", f->module));
}

static void json_path(struct pms_json *j, const void *ctx, size_t i)
{
	const struct list_ctx *c = ctx;
	const struct pms_pathreport_path *p =
		pms_pathreport_path_at(c->r, (enum pms_pathreport_order)c->which, i);
	PMS_JSON_FIELDS(j, JU("samples", p->samples), JU("latency", p->latency),
			JU("weighted", p->weighted), JU("resolved", p->resolved),
			JU("remote", p->remote),
			JDQ("remote_share", p->resolved, (double)p->remote / (double)p->resolved),
			JB("truncated", p->truncated));
	pms_json_rows(j, "frames", p->nframes, json_frame, p);
}

static void json_list(struct pms_json *j, const char *key, const struct pms_pathreport *r,
		      enum pms_pathreport_order which)
{
	struct list_ctx c = { r, (int)which };
	pms_json_rows(j, key, pms_pathreport_path_count(r, which), json_path, &c);
}

static void json_branch(struct pms_json *j, const void *ctx, size_t i)
{
	const struct list_ctx *c = ctx;
	const struct pms_pathreport_branch *v =
		pms_pathreport_branch_at(c->r, (enum pms_pathreport_branch_order)c->which, i);
	PMS_JSON_FIELDS(j, JX("from", true, v->from), JX("to", true, v->to),
			JS("from_func", v->from_func), JS("to_func", v->to_func),
			JS("to_file", v->to_file), JIQ("to_line", v->to_file, v->to_line),
			JU("samples", v->samples), JU("latency", v->latency),
			JU("weighted", v->weighted), JU("mispredicted", v->mispredicted));
}

static void json_branches(struct pms_json *j, const char *key, const struct pms_pathreport *r,
			  enum pms_pathreport_branch_order which)
{
	struct list_ctx c = { r, (int)which };
	pms_json_rows(j, key, pms_pathreport_branch_count(r, which), json_branch, &c);
}

void pms_render_callpath_json(struct pms_json *j, const struct pms_pathreport *r)
{
	pms_json_begin_object(j, "callpaths");
	const struct pms_unwinder_stats *u = pms_pathreport_unwind(r);
	PMS_JSON_FIELDS(j, JS("mode", pms_callgraph_name(pms_pathreport_how(r))),
			JU("samples", pms_pathreport_samples(r)),
			JU("with_path", pms_pathreport_with_path(r)),
			JU("without_path", pms_pathreport_without_path(r)),
			JU("truncated", pms_pathreport_truncated(r)),
			JU("distinct", pms_pathreport_distinct(r)));
	pms_json_begin_object(j, "dwarf_unwind");
	PMS_JSON_FIELDS(j, JU("samples", u->samples), JU("unwound", u->unwound),
			JU("failed", u->failed), JU("no_user_regs", u->no_regs),
			JU("no_user_stack", u->no_stack), JU("user_frames", u->frames));
	pms_json_end_object(j);
	json_list(j, "by_samples", r, PMS_PATHS_BY_SAMPLES);
	json_list(j, "by_latency", r, PMS_PATHS_BY_LATENCY);
	json_list(j, "by_remote_share", r, PMS_PATHS_BY_REMOTE);
	pms_json_uint(j, "with_branches", pms_pathreport_with_branches(r));
	json_branches(j, "last_branch_by_samples", r, PMS_BRANCHES_BY_SAMPLES);
	json_branches(j, "last_branch_by_latency", r, PMS_BRANCHES_BY_LATENCY);
	pms_json_end_object(j);
}

int pms_render_callpath_folded(FILE *f, const struct pms_pathreport *r)
{
	char *buf = NULL;
	size_t cap = 0;
	size_t n = pms_pathreport_path_count(r, PMS_PATHS_ALL);
	for (size_t i = 0; i < n; i++) {
		const struct pms_pathreport_path *p = pms_pathreport_path_at(r, PMS_PATHS_ALL, i);
		size_t need = pms_pathreport_folded(p, buf, cap);
		if (need + 1 > cap) {
			char *nb = realloc(buf, need + 1);
			if (!nb) {
				free(buf);
				return -1;
			}
			buf = nb;
			cap = need + 1;
			pms_pathreport_folded(p, buf, cap);
		}
		if (fprintf(f, "%s %" PRIu64 "\n", buf, p->samples) < 0) {
			free(buf);
			return -1;
		}
	}
	free(buf);
	return 0;
}
