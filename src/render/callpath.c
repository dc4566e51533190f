/* Call-path sections of `pmuscope mem -g`, `report` and `record`: text,
 * JSON members and folded stacks for flame graphs (pmuscope/render.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmuscope/render.h"
#include "render_int.h"

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void frame_text(const struct pms_pathreport_frame *f, char *buf, size_t cap)
{
	const char *mod = f->module && *f->module ? f->module : NULL;
	const char *base = mod ? mod : "";
	for (const char *c = base; *c; c++)
		if (*c == '/')
			base = c + 1;
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

static void text_list(FILE *out, const char *title, const struct pms_pathreport *r,
		      enum pms_pathreport_order which, uint64_t total)
{
	size_t n = pms_pathreport_path_count(r, which);
	fprintf(out, "\n%s:\n", title);
	if (!n)
		fprintf(out, "  (none)\n");
	for (size_t i = 0; i < n; i++) {
		const struct pms_pathreport_path *p = pms_pathreport_path_at(r, which, i);
		fprintf(out, "  %8" PRIu64 " %5.1f%%", p->samples, pct(p->samples, total));
		if (p->weighted)
			fprintf(out, "  latency %" PRIu64 " (mean %.0f)", p->latency,
			       (double)p->latency / (double)p->weighted);
		if (p->resolved)
			fprintf(out, "  remote %.0f%% of %" PRIu64, pct(p->remote, p->resolved),
			       p->resolved);
		if (p->truncated)
			fprintf(out, "  (cut)");
		fprintf(out, "\n");
		for (size_t k = 0; k < p->nframes; k++) {
			char line[1024];
			frame_text(&p->frames[k], line, sizeof(line));
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
		fprintf(out, "  %8" PRIu64 " %5.1f%%", b->samples, pct(b->samples, total));
		if (b->weighted)
			fprintf(out, "  latency %" PRIu64 " (mean %.0f)", b->latency,
			       (double)b->latency / (double)b->weighted);
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

static void hexs(struct pms_json *j, const char *key, uint64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	pms_json_str(j, key, b);
}

static void json_list(struct pms_json *j, const char *key, const struct pms_pathreport *r,
		      enum pms_pathreport_order which)
{
	size_t n = pms_pathreport_path_count(r, which);
	pms_json_begin_array(j, key);
	for (size_t i = 0; i < n; i++) {
		const struct pms_pathreport_path *p = pms_pathreport_path_at(r, which, i);
		pms_json_begin_object(j, NULL);
		pms_json_uint(j, "samples", p->samples);
		pms_json_uint(j, "latency", p->latency);
		pms_json_uint(j, "weighted", p->weighted);
		pms_json_uint(j, "resolved", p->resolved);
		pms_json_uint(j, "remote", p->remote);
		if (p->resolved)
			pms_json_double(j, "remote_share", (double)p->remote / (double)p->resolved);
		else
			pms_json_null(j, "remote_share");
		pms_json_bool(j, "truncated", p->truncated);
		pms_json_begin_array(j, "frames");
		for (size_t k = 0; k < p->nframes; k++) {
			const struct pms_pathreport_frame *f = &p->frames[k];
			pms_json_begin_object(j, NULL);
			if (f->flags & PMS_FRAME_HIDDEN)
				pms_json_null(j, "ip");
			else
				hexs(j, "ip", f->ip);
			pms_json_bool(j, "kernel", (f->flags & PMS_FRAME_KERNEL) != 0);
			pms_json_bool(j, "dwarf", (f->flags & PMS_FRAME_DWARF) != 0);
			pms_json_str(j, "func", f->func);
			if (f->func)
				hexs(j, "offset", f->offset);
			else
				pms_json_null(j, "offset");
			pms_json_str(j, "file", f->file);
			if (f->file)
				pms_json_int(j, "line", f->line);
			else
				pms_json_null(j, "line");
			pms_json_str(j, "module", f->module);
			pms_json_end_object(j);
		}
		pms_json_end_array(j);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
}

static void json_branches(struct pms_json *j, const char *key, const struct pms_pathreport *r,
			  enum pms_pathreport_branch_order which)
{
	size_t n = pms_pathreport_branch_count(r, which);
	pms_json_begin_array(j, key);
	for (size_t i = 0; i < n; i++) {
		const struct pms_pathreport_branch *v = pms_pathreport_branch_at(r, which, i);
		pms_json_begin_object(j, NULL);
		hexs(j, "from", v->from);
		hexs(j, "to", v->to);
		pms_json_str(j, "from_func", v->from_func);
		pms_json_str(j, "to_func", v->to_func);
		pms_json_str(j, "to_file", v->to_file);
		if (v->to_file)
			pms_json_int(j, "to_line", v->to_line);
		else
			pms_json_null(j, "to_line");
		pms_json_uint(j, "samples", v->samples);
		pms_json_uint(j, "latency", v->latency);
		pms_json_uint(j, "weighted", v->weighted);
		pms_json_uint(j, "mispredicted", v->mispredicted);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
}

void pms_render_callpath_json(struct pms_json *j, const struct pms_pathreport *r)
{
	pms_json_begin_object(j, "callpaths");
	const struct pms_unwinder_stats *u = pms_pathreport_unwind(r);
	pms_json_str(j, "mode", pms_callgraph_name(pms_pathreport_how(r)));
	pms_json_uint(j, "samples", pms_pathreport_samples(r));
	pms_json_uint(j, "with_path", pms_pathreport_with_path(r));
	pms_json_uint(j, "without_path", pms_pathreport_without_path(r));
	pms_json_uint(j, "truncated", pms_pathreport_truncated(r));
	pms_json_uint(j, "distinct", pms_pathreport_distinct(r));
	pms_json_begin_object(j, "dwarf_unwind");
	pms_json_uint(j, "samples", u->samples);
	pms_json_uint(j, "unwound", u->unwound);
	pms_json_uint(j, "failed", u->failed);
	pms_json_uint(j, "no_user_regs", u->no_regs);
	pms_json_uint(j, "no_user_stack", u->no_stack);
	pms_json_uint(j, "user_frames", u->frames);
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
