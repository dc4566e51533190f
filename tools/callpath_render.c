/* Call-path sections: text, JSON and folded stacks. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "callpath_render.h"

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

static void text_list(const char *title, const struct pms_pathreport_path *v, size_t n,
		      uint64_t total)
{
	printf("\n%s:\n", title);
	if (!n)
		printf("  (none)\n");
	for (size_t i = 0; i < n; i++) {
		const struct pms_pathreport_path *p = &v[i];
		printf("  %8" PRIu64 " %5.1f%%", p->samples, pct(p->samples, total));
		if (p->weighted)
			printf("  latency %" PRIu64 " (mean %.0f)", p->latency,
			       (double)p->latency / (double)p->weighted);
		if (p->resolved)
			printf("  remote %.0f%% of %" PRIu64, pct(p->remote, p->resolved),
			       p->resolved);
		if (p->truncated)
			printf("  (cut)");
		printf("\n");
		for (size_t k = 0; k < p->nframes; k++) {
			char line[1024];
			frame_text(&p->frames[k], line, sizeof(line));
			printf("      %s\n", line);
		}
	}
}

static void text_branches(const char *title, const struct pms_pathreport_branch *v, size_t n,
			  uint64_t total)
{
	printf("\n%s:\n", title);
	for (size_t i = 0; i < n; i++) {
		const struct pms_pathreport_branch *b = &v[i];
		printf("  %8" PRIu64 " %5.1f%%", b->samples, pct(b->samples, total));
		if (b->weighted)
			printf("  latency %" PRIu64 " (mean %.0f)", b->latency,
			       (double)b->latency / (double)b->weighted);
		if (b->mispredicted)
			printf("  mispredicted %.0f%%", pct(b->mispredicted, b->samples));
		printf("\n      %016" PRIx64 " %s -> %016" PRIx64 " %s", b->from,
		       b->from_func ? b->from_func : "[unknown]", b->to,
		       b->to_func ? b->to_func : "[unknown]");
		if (b->to_file)
			printf(" %s:%d", b->to_file, b->to_line);
		printf("\n");
	}
}

static void text_branch_section(const struct pms_pathreport *r)
{
	if (!r->with_branches)
		return;
	printf("\nlast branch before the sample (branch stacks: %" PRIu64 " of %" PRIu64
	       " samples):\n",
	       r->with_branches, r->samples);
	text_branches("  by samples", r->branches_by_samples, r->nbranches_by_samples,
		      r->with_branches);
	if (r->nbranches_by_latency)
		text_branches("  by total latency of the samples", r->branches_by_latency,
			      r->nbranches_by_latency, r->with_branches);
}

void callpath_render_text(const struct pms_pathreport *r)
{
	if (!r->with_path) {
		text_branch_section(r);
		return;
	}
	printf("\ncall paths (%s): %" PRIu64 " of %" PRIu64 " samples with one, %zu distinct",
	       pms_callgraph_name(r->how), r->with_path, r->samples, r->distinct);
	if (r->truncated)
		printf(", %" PRIu64 " cut", r->truncated);
	printf("\n");
	if (r->unwind.samples)
		printf("  DWARF unwinding: %" PRIu64 " of %" PRIu64
		       " samples got callers (%" PRIu64 " user frames; %" PRIu64
		       " without user registers)\n",
		       r->unwind.unwound, r->unwind.samples, r->unwind.frames, r->unwind.no_regs);
	text_list("top call paths by samples", r->by_samples, r->nby_samples, r->with_path);
	if (r->nby_latency)
		text_list("top call paths by total latency", r->by_latency, r->nby_latency,
			  r->with_path);
	if (r->nby_remote)
		text_list("top call paths by remote share (of samples with a memory node)",
			  r->by_remote, r->nby_remote, r->with_path);
	text_branch_section(r);
}

static void hexs(struct json *j, const char *key, uint64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	cli_json_str(j, key, b);
}

static void json_list(struct json *j, const char *key, const struct pms_pathreport_path *v,
		      size_t n)
{
	cli_json_begin_array(j, key);
	for (size_t i = 0; i < n; i++) {
		const struct pms_pathreport_path *p = &v[i];
		cli_json_begin_object(j, NULL);
		cli_json_uint(j, "samples", p->samples);
		cli_json_uint(j, "latency", p->latency);
		cli_json_uint(j, "weighted", p->weighted);
		cli_json_uint(j, "resolved", p->resolved);
		cli_json_uint(j, "remote", p->remote);
		if (p->resolved)
			cli_json_double(j, "remote_share", (double)p->remote / (double)p->resolved);
		else
			cli_json_null(j, "remote_share");
		cli_json_bool(j, "truncated", p->truncated);
		cli_json_begin_array(j, "frames");
		for (size_t k = 0; k < p->nframes; k++) {
			const struct pms_pathreport_frame *f = &p->frames[k];
			cli_json_begin_object(j, NULL);
			if (f->flags & PMS_FRAME_HIDDEN)
				cli_json_null(j, "ip");
			else
				hexs(j, "ip", f->ip);
			cli_json_bool(j, "kernel", (f->flags & PMS_FRAME_KERNEL) != 0);
			cli_json_bool(j, "dwarf", (f->flags & PMS_FRAME_DWARF) != 0);
			cli_json_str(j, "func", f->func);
			if (f->func)
				hexs(j, "offset", f->offset);
			else
				cli_json_null(j, "offset");
			cli_json_str(j, "file", f->file);
			if (f->file)
				cli_json_int(j, "line", f->line);
			else
				cli_json_null(j, "line");
			cli_json_str(j, "module", f->module);
			cli_json_end_object(j);
		}
		cli_json_end_array(j);
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
}

static void json_branches(struct json *j, const char *key, const struct pms_pathreport_branch *v,
			  size_t n)
{
	cli_json_begin_array(j, key);
	for (size_t i = 0; i < n; i++) {
		cli_json_begin_object(j, NULL);
		hexs(j, "from", v[i].from);
		hexs(j, "to", v[i].to);
		cli_json_str(j, "from_func", v[i].from_func);
		cli_json_str(j, "to_func", v[i].to_func);
		cli_json_str(j, "to_file", v[i].to_file);
		if (v[i].to_file)
			cli_json_int(j, "to_line", v[i].to_line);
		else
			cli_json_null(j, "to_line");
		cli_json_uint(j, "samples", v[i].samples);
		cli_json_uint(j, "latency", v[i].latency);
		cli_json_uint(j, "weighted", v[i].weighted);
		cli_json_uint(j, "mispredicted", v[i].mispredicted);
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
}

void callpath_render_json(struct json *j, const struct pms_pathreport *r)
{
	cli_json_begin_object(j, "callpaths");
	cli_json_str(j, "mode", pms_callgraph_name(r->how));
	cli_json_uint(j, "samples", r->samples);
	cli_json_uint(j, "with_path", r->with_path);
	cli_json_uint(j, "without_path", r->without_path);
	cli_json_uint(j, "truncated", r->truncated);
	cli_json_uint(j, "distinct", r->distinct);
	cli_json_begin_object(j, "dwarf_unwind");
	cli_json_uint(j, "samples", r->unwind.samples);
	cli_json_uint(j, "unwound", r->unwind.unwound);
	cli_json_uint(j, "failed", r->unwind.failed);
	cli_json_uint(j, "no_user_regs", r->unwind.no_regs);
	cli_json_uint(j, "user_frames", r->unwind.frames);
	cli_json_end_object(j);
	json_list(j, "by_samples", r->by_samples, r->nby_samples);
	json_list(j, "by_latency", r->by_latency, r->nby_latency);
	json_list(j, "by_remote_share", r->by_remote, r->nby_remote);
	cli_json_uint(j, "with_branches", r->with_branches);
	json_branches(j, "last_branch_by_samples", r->branches_by_samples, r->nbranches_by_samples);
	json_branches(j, "last_branch_by_latency", r->branches_by_latency, r->nbranches_by_latency);
	cli_json_end_object(j);
}

int callpath_write_folded(FILE *f, const struct pms_pathreport *r)
{
	char *buf = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < r->nall; i++) {
		size_t need = pms_pathreport_folded(&r->all[i], buf, cap);
		if (need + 1 > cap) {
			char *nb = realloc(buf, need + 1);
			if (!nb) {
				free(buf);
				return -1;
			}
			buf = nb;
			cap = need + 1;
			pms_pathreport_folded(&r->all[i], buf, cap);
		}
		if (fprintf(f, "%s %" PRIu64 "\n", buf, r->all[i].samples) < 0) {
			free(buf);
			return -1;
		}
	}
	free(buf);
	return 0;
}

void callpath_json_extra(struct json *j, const void *ud)
{
	if (ud)
		callpath_render_json(j, ud);
}

void callpath_text_extra(const void *ud)
{
	if (ud)
		callpath_render_text(ud);
}
