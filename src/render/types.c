/* `pmuscope report --types`: the session's type profile (its types sink
 * places each sample's IP in the mappings, resolves it to a type and member
 * and counts it; pms_session_typeprof) rendered: the table lists types and members
 * with loads/stores, remote share, latency percentiles and threads, and
 * the unresolved samples by reason (as perf annotate --data-type --stat). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmuscope/error.h"
#include "pmuscope/render.h"
#include "render_int.h"
#include "pmuscope/types.h"
#include "util/error.h"

static double share(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* The distinct types of the rows, most sampled first (at most max). */
static size_t top_types(const struct pms_typeprof_result *r, const char **types, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_rows && n < max; i++) {
		bool seen = false;
		for (size_t k = 0; k < n && !seen; k++)
			seen = types[k] == r->rows[i].type;
		if (!seen)
			types[n++] = r->rows[i].type;
	}
	return n;
}

/* Samples and stores of the rows of type inside [off, off + size). */
static void field_heat(const struct pms_typeprof_result *r, const char *type, uint64_t off,
		       uint64_t size, uint64_t *samples, uint64_t *stores)
{
	*samples = *stores = 0;
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct pms_typeprof_row *w = &r->rows[i];
		if (w->type == type && w->member[0] && w->member_offset >= off &&
		    w->member_offset < off + (size ? size : 1)) {
			*samples += w->samples;
			*stores += w->stores;
		}
	}
}

#define LAYOUT_TYPES 3

static void layout_json(struct pms_json *j, struct pms_typeprof *tp, const struct pms_typeprof_result *r)
{
	const char *types[LAYOUT_TYPES];
	size_t nt = top_types(r, types, LAYOUT_TYPES);
	pms_json_begin_array(j, "layouts");
	for (size_t i = 0; i < nt; i++) {
		struct pms_type_field *f;
		size_t n;
		if (pms_typeres_layout(pms_typeprof_resolver(tp), types[i], &f, &n) < 0)
			continue;
		pms_json_begin_object(j, NULL);
		pms_json_str(j, "type", types[i]);
		pms_json_begin_array(j, "fields");
		for (size_t k = 0; k < n; k++) {
			uint64_t smp, st;
			field_heat(r, types[i], f[k].offset, f[k].size, &smp, &st);
			pms_json_begin_object(j, NULL);
			pms_json_str(j, "name", f[k].name);
			pms_json_str(j, "type", f[k].type);
			pms_json_uint(j, "offset", f[k].offset);
			pms_json_uint(j, "size", f[k].size);
			pms_json_uint(j, "hole", f[k].hole);
			pms_json_uint(j, "samples", smp);
			pms_json_uint(j, "stores", st);
			pms_json_end_object(j);
		}
		pms_json_end_array(j);
		pms_json_end_object(j);
		free(f);
	}
	pms_json_end_array(j);
}

static void layout_text(FILE *out, struct pms_typeprof *tp, const struct pms_typeprof_result *r)
{
	const char *types[LAYOUT_TYPES];
	size_t nt = top_types(r, types, LAYOUT_TYPES);
	for (size_t i = 0; i < nt; i++) {
		struct pms_type_field *f;
		size_t n;
		if (pms_typeres_layout(pms_typeprof_resolver(tp), types[i], &f, &n) < 0)
			continue;
		fprintf(out, "\nLayout of %s (samples per member; 64-byte cache lines):\n", types[i]);
		fprintf(out, "%8s %6s %8s %6s %7s  %s\n", "offset", "size", "samples", "share", "stores",
		       "member (type)");
		uint64_t line = 0;
		for (size_t k = 0; k < n; k++) {
			uint64_t smp, st;
			if (f[k].offset / 64 != line) {
				line = f[k].offset / 64;
				fprintf(out, "%8s --- cache line %" PRIu64 " (offset %#" PRIx64 ") ---\n", "",
				       line, line * 64);
			}
			field_heat(r, types[i], f[k].offset, f[k].size, &smp, &st);
			fprintf(out, "%8" PRIu64 " %6" PRIu64 " %8" PRIu64 " %5.1f%% %7" PRIu64 "  %s (%s)\n",
			       f[k].offset, f[k].size, smp, share(smp, r->total), st,
			       f[k].name[0] ? f[k].name : "(anonymous)", f[k].type);
			if (f[k].hole)
				fprintf(out, "%8s /* %" PRIu64 "-byte hole */\n", "", f[k].hole);
		}
		free(f);
	}
}

static const char *const advice_name[] = { "", "pad", "hot-cold", "per-node" };

static size_t popcount(uint64_t v)
{
	size_t c = 0;
	for (; v; v &= v - 1)
		c++;
	return c;
}

static void advice_json(struct pms_json *j, const struct pms_type_advice *a, size_t n)
{
	pms_json_begin_array(j, "advice");
	for (size_t i = 0; i < n; i++) {
		pms_json_begin_object(j, NULL);
		pms_json_str(j, "kind", advice_name[a[i].kind]);
		pms_json_str(j, "type", a[i].type);
		if (a[i].kind == PMS_TYPE_ADVICE_PAD) {
			pms_json_uint(j, "cache_line", a[i].line);
			pms_json_bool(j, "elements", a[i].elements);
		}
		pms_json_begin_array(j, "members");
		for (size_t k = 0; k < a[i].n_members; k++)
			pms_json_str(j, NULL, a[i].members[k]);
		pms_json_end_array(j);
		pms_json_uint(j, "samples", a[i].samples);
		pms_json_uint(j, "stores", a[i].stores);
		pms_json_uint(j, "hitm", a[i].hitm);
		pms_json_uint(j, "remote", a[i].remote);
		pms_json_uint(j, "node_known", a[i].node_known);
		pms_json_uint(j, "nodes", popcount(a[i].cpu_nodes));
		pms_json_uint(j, "writer_threads", a[i].writer_threads);
		if (a[i].layout) {
			pms_json_uint(j, "lines_before", a[i].lines_before);
			pms_json_uint(j, "lines_after", a[i].lines_after);
			pms_json_uint(j, "size_after", a[i].size_after);
			pms_json_begin_array(j, "layout");
			for (size_t k = 0; k < a[i].n_layout; k++) {
				const struct pms_type_field *f = &a[i].layout[k];
				pms_json_begin_object(j, NULL);
				pms_json_str(j, "name", f->name);
				pms_json_uint(j, "offset", f->offset);
				pms_json_uint(j, "size", f->size);
				pms_json_uint(j, "hole", f->hole);
				pms_json_end_object(j);
			}
			pms_json_end_array(j);
		}
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
}

static void advice_text(FILE *out, const struct pms_type_advice *a, size_t n)
{
	if (n)
		fprintf(out, "\nAdvice per type:\n");
	for (size_t i = 0; i < n; i++) {
		const struct pms_type_advice *x = &a[i];
		fprintf(out, "  %s: ", x->type);
		if (x->kind == PMS_TYPE_ADVICE_PAD && x->elements)
			fprintf(out, "pad the elements: %zu threads write elements of one array on cache "
			       "line %" PRIu64 " (false sharing): align each element to a cache line",
			       x->writer_threads, x->line);
		else if (x->kind == PMS_TYPE_ADVICE_PAD)
			fprintf(out, "pad/reorder: %zu threads write members of cache line %" PRIu64
			       " (false sharing): each written member on a line of its own",
			       x->writer_threads, x->line);
		else if (x->kind == PMS_TYPE_ADVICE_HOTCOLD)
			fprintf(out, "hot/cold split: the hot members touch %" PRIu64 " lines, %" PRIu64
			       " when put first", x->lines_before, x->lines_after);
		else
			fprintf(out, "split per node: hot members accessed from %zu nodes, %.1f%% remote",
			       popcount(x->cpu_nodes), share(x->remote, x->node_known));
		fprintf(out, "\n    members:");
		for (size_t k = 0; k < x->n_members; k++)
			fprintf(out, "%s %s", k ? "," : "", x->members[k][0] ? x->members[k] : "(anonymous)");
		fprintf(out, "  (%" PRIu64 " samples, %" PRIu64 " stores, %" PRIu64 " HITM, %zu nodes)\n",
		       x->samples, x->stores, x->hitm, popcount(x->cpu_nodes));
		if (!x->layout)
			continue;
		fprintf(out, "    proposed layout (%" PRIu64 " bytes):\n", x->size_after);
		for (size_t k = 0; k < x->n_layout; k++) {
			const struct pms_type_field *f = &x->layout[k];
			fprintf(out, "    %8" PRIu64 " %6" PRIu64 "  %s (%s)", f->offset, f->size,
			       f->name[0] ? f->name : "(anonymous)", f->type);
			if (f->hole)
				fprintf(out, "  /* %" PRIu64 "-byte pad */", f->hole);
			fprintf(out, "\n");
		}
	}
}

/* The fields of the types JSON object, inside an open object of j. */
static void render_json_fields(struct pms_json *j, struct pms_typeprof *tp,
			       const struct pms_typeprof_result *r)
{
	pms_json_uint(j, "samples", r->total);
	pms_json_uint(j, "resolved", r->resolved);
	pms_json_begin_object(j, "unresolved");
	for (int i = 1; i < PMS_TYPE__COUNT; i++)
		pms_json_uint(j, pms_type_status_name(i), r->unresolved[i]);
	pms_json_end_object(j);
	pms_json_begin_array(j, "members");
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct pms_typeprof_row *w = &r->rows[i];
		pms_json_begin_object(j, NULL);
		pms_json_str(j, "type", w->type);
		pms_json_uint(j, "type_size", w->type_size);
		pms_json_str(j, "member", w->member);
		pms_json_uint(j, "offset", w->member_offset);
		pms_json_uint(j, "size", w->member_size);
		pms_json_uint(j, "cache_line", w->member_offset / 64);
		pms_json_uint(j, "samples", w->samples);
		pms_json_uint(j, "loads", w->loads);
		pms_json_uint(j, "stores", w->stores);
		pms_json_uint(j, "remote", w->remote);
		pms_json_uint(j, "node_known", w->node_known);
		pms_json_begin_object(j, "latency");
		pms_json_uint(j, "n", w->lat_n);
		pms_json_uint(j, "p50", w->lat_p50);
		pms_json_uint(j, "p90", w->lat_p90);
		pms_json_uint(j, "p99", w->lat_p99);
		pms_json_uint(j, "max", w->lat_max);
		pms_json_end_object(j);
		pms_json_uint(j, "threads", w->threads);
		pms_json_uint(j, "writer_threads", w->writer_threads);
		pms_json_begin_object(j, "via");
		for (int v = 1; v < PMS_TYPE_VIA__COUNT; v++)
			if (w->via[v])
				pms_json_uint(j, pms_type_via_name(v), w->via[v]);
		pms_json_end_object(j);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
	pms_json_begin_array(j, "cache_lines");
	for (size_t i = 0; i < r->n_lines; i++) {
		const struct pms_typeprof_line *l = &r->lines[i];
		pms_json_begin_object(j, NULL);
		pms_json_str(j, "type", l->type);
		pms_json_uint(j, "line", l->line);
		pms_json_uint(j, "samples", l->samples);
		pms_json_uint(j, "stores", l->stores);
		pms_json_uint(j, "members", l->members);
		pms_json_uint(j, "written_members", l->written_members);
		pms_json_uint(j, "writer_threads", l->writer_threads);
		pms_json_bool(j, "false_sharing", l->false_sharing);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
	uint64_t lk, comp;
	pms_typeres_cache_stats(pms_typeprof_resolver(tp), &lk, &comp);
	pms_json_begin_object(j, "ip_cache");
	pms_json_uint(j, "lookups", lk);
	pms_json_uint(j, "resolved_ips", comp);
	pms_json_end_object(j);
	layout_json(j, tp, r);
	struct pms_type_advice *adv = NULL;
	size_t nadv = 0;
	if (pms_typeprof_advise(tp, &adv, &nadv) == 0)
		advice_json(j, adv, nadv);
	pms_type_advice_free(adv, nadv);
}

static int render_json(FILE *out, struct pms_typeprof *tp, const struct pms_typeprof_result *r,
		       const struct pms_json_meta *meta)
{
	struct pms_json j;
	pms_json_init(&j, out);
	j.meta = meta;
	pms_json_begin_object(&j, NULL);
	pms_json_int(&j, "schema_version", 1);
	render_json_fields(&j, tp, r);
	pms_json_end_object(&j);
	return pms_json_finish(&j);
}

int pms_render_types_json_section(struct pms_json *j, const char *key, struct pms_typeprof *tp)
{
	struct pms_typeprof_result r;
	if (pms_typeprof_result(tp, &r) < 0)
		return -1;
	pms_json_begin_object(j, key);
	pms_json_int(j, "schema_version", 1);
	render_json_fields(j, tp, &r);
	pms_json_end_object(j);
	return 0;
}

static void render_text(FILE *out, struct pms_typeprof *tp, const struct pms_typeprof_result *r, size_t top)
{
	fprintf(out, "Data types and members: %" PRIu64 " samples, %" PRIu64 " resolved (%.1f%%)\n",
	       r->total, r->resolved, share(r->resolved, r->total));
	fprintf(out, "\n%8s %6s %7s %7s %7s %7s %7s %4s %4s  %s\n", "samples", "share", "loads",
	       "stores", "remote", "lat p50", "lat p90", "thr", "wthr", "type +offset (member)");
	for (size_t i = 0; i < r->n_rows && i < top; i++) {
		const struct pms_typeprof_row *w = &r->rows[i];
		char rem[16] = "-", p50[24] = "-", p90[24] = "-";
		if (w->node_known)
			snprintf(rem, sizeof(rem), "%.1f%%", share(w->remote, w->node_known));
		if (w->lat_n) {
			snprintf(p50, sizeof(p50), "%" PRIu64, w->lat_p50);
			snprintf(p90, sizeof(p90), "%" PRIu64, w->lat_p90);
		}
		fprintf(out, "%8" PRIu64 " %5.1f%% %7" PRIu64 " %7" PRIu64 " %7s %7s %7s %4zu %4zu  %s +%#" PRIx64
		       " (%s)\n",
		       w->samples, share(w->samples, r->total), w->loads, w->stores, rem, p50, p90,
		       w->threads, w->writer_threads, w->type, w->member_offset,
		       w->member[0] ? w->member : "whole");
	}
	if (r->n_rows > top)
		fprintf(out, "%8s (%zu more members: --top)\n", "", r->n_rows - top);
	layout_text(out, tp, r);
	size_t fs = 0;
	for (size_t i = 0; i < r->n_lines; i++)
		fs += r->lines[i].false_sharing;
	if (fs) {
		fprintf(out, "\nCache lines whose members different threads write (false sharing):\n");
		for (size_t i = 0; i < r->n_lines; i++) {
			const struct pms_typeprof_line *l = &r->lines[i];
			if (!l->false_sharing)
				continue;
			fprintf(out, "%8" PRIu64 " samples  %s: cache-line %" PRIu64
			       "  %zu members written by %zu threads\n",
			       l->samples, l->type, l->line, l->written_members, l->writer_threads);
			for (size_t k = 0; k < r->n_rows; k++) {
				const struct pms_typeprof_row *w = &r->rows[k];
				if (w->type == l->type && w->member_offset / 64 == l->line && w->stores)
					fprintf(out, "%17s +%#" PRIx64 " (%s): %" PRIu64 " stores, %zu threads\n",
					       "", w->member_offset, w->member[0] ? w->member : "whole",
					       w->stores, w->writer_threads);
			}
		}
	}
	struct pms_type_advice *adv = NULL;
	size_t nadv = 0;
	if (pms_typeprof_advise(tp, &adv, &nadv) == 0)
		advice_text(out, adv, nadv);
	pms_type_advice_free(adv, nadv);
	if (r->resolved == r->total)
		return;
	fprintf(out, "\nUnresolved samples by reason:\n");
	for (int i = 1; i < PMS_TYPE__COUNT; i++)
		if (r->unresolved[i])
			fprintf(out, "%8" PRIu64 " %5.1f%%  %s\n", r->unresolved[i],
			       share(r->unresolved[i], r->total), pms_type_status_name(i));
}

int pms_render_types(FILE *out, struct pms_typeprof *tp, bool json, size_t top,
		     const struct pms_json_meta *meta)
{
	struct pms_typeprof_result r;
	int rc;
	if (!out || !tp)
		return pms_err(PMS_EINVAL, "render: types: NULL argument");
	if ((rc = pms_typeprof_result(tp, &r)) < 0)
		return rc;
	if (json)
		return render_json(out, tp, &r, meta);
	render_text(out, tp, &r, top);
	return 0;
}

int pms_render_types_labels(const struct pms_type_hit *hits, size_t n, const char ***labels)
{
	*labels = NULL;
	const char **l = calloc(2 * n + 1, sizeof(*l));
	if (!l)
		return pms_err(PMS_ENOMEM, "render: types: pprof labels: out of memory");
	for (size_t i = 0; i < n; i++) {
		const struct pms_type_hit *h = &hits[i];
		if (h->status != PMS_TYPE_OK)
			continue;
		l[i] = h->type;
		l[n + i] = h->member[0] ? h->member : "(whole)";
	}
	*labels = l;
	return 0;
}
