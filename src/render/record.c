/* `pmuscope record`'s summary (pmuscope/render_cmd.h): the events sampled,
 * the samples, the hot functions and instructions and the call paths, as
 * text or JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pmuscope/render_cmd.h"
#include "render_int.h"

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void text_sites(FILE *out, const char *title, const struct pms_memreport_site *v, size_t n,
		       uint64_t total, bool lines)
{
	fprintf(out, "\n%s:\n", title);
	if (!n)
		fprintf(out, "  (none)\n");
	for (size_t i = 0; i < n; i++) {
		const struct pms_memreport_site *s = &v[i];
		const char *mod = s->module ? strrchr(s->module, '/') : NULL;
		mod = mod ? mod + 1 : s->module ? s->module : "";
		fprintf(out, "  %8" PRIu64 " %5.1f%%  %s", s->samples, pct(s->samples, total), s->name);
		if (lines && s->file)
			fprintf(out, "  %s:%d", s->file, s->line);
		else if (!lines && s->file)
			fprintf(out, "  %s", s->file);
		fprintf(out, "  (%s)\n", *mod ? mod : "?");
	}
}

static void json_sites(struct pms_json *j, const char *key, const struct pms_memreport_site *v,
		       size_t n)
{
	pms_json_begin_array(j, key);
	for (size_t i = 0; i < n; i++) {
		char hx[24];
		pms_json_begin_object(j, NULL);
		pms_json_uint(j, "samples", v[i].samples);
		if (v[i].addr_hidden)
			pms_json_null(j, "ip");
		else {
			snprintf(hx, sizeof(hx), "0x%" PRIx64, v[i].addr);
			pms_json_str(j, "ip", hx);
		}
		pms_json_str(j, "func", v[i].name);
		pms_json_str(j, "file", v[i].file);
		if (v[i].file)
			pms_json_int(j, "line", v[i].line);
		else
			pms_json_null(j, "line");
		pms_json_str(j, "module", v[i].module);
		pms_json_bool(j, "kernel", v[i].kernel);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
}

/* perf's name of a generic event ("cpu-clock"), else the source's name. */
static const char *event_name(const struct pms_memsrc_attr *a)
{
	const char *g = pms_event_generic_name(a->attr->type, a->attr->config);
	return g ? g : a->name;
}

void pms_render_record_json(struct pms_json *j, const char *event, const struct pms_memsrc_info *si,
			    const struct pms_memsrc_attr *attrs, size_t nattrs,
			    const struct pms_memreport *rep, const struct pms_pathreport *prep,
			    const struct pms_memsrc_stats *sst, double secs)
{
	pms_json_begin_object(j, NULL);
	pms_json_str(j, "event", event);
	pms_json_str(j, "engine", pms_engine_name(si->engine));
	pms_json_str(j, "pmus", si->pmus);
	pms_json_str(j, "notes", si->notes);
	pms_json_bool(j, "fallback_cpu_clock", strstr(si->notes, "FALLBACK") != NULL);
	pms_json_begin_array(j, "events");
	for (size_t i = 0; i < nattrs; i++) {
		if (!attrs[i].samples)
			continue;
		pms_json_begin_object(j, NULL);
		pms_json_str(j, "name", event_name(&attrs[i]));
		pms_json_str(j, "pmu", attrs[i].pmu);
		pms_json_uint(j, "type", attrs[i].attr->type);
		pms_json_uint(j, "config", attrs[i].attr->config);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
	pms_json_uint(j, "samples", rep->samples);
	pms_json_uint(j, "lost", sst->lost_total);
	pms_json_uint(j, "excluded_self", sst->samples_excluded);
	pms_json_double(j, "duration_s", secs);
	json_sites(j, "hot_functions", rep->top_funcs_samples, rep->ntop_funcs_samples);
	json_sites(j, "hot_instructions", rep->top_ips_samples, rep->ntop_ips_samples);
	if (prep)
		pms_render_callpath_json(j, prep);
	pms_json_end_object(j);
}

void pms_render_record_text(FILE *out, const char *event, const struct pms_memsrc_info *si,
			    const struct pms_memsrc_attr *attrs, size_t nattrs,
			    const struct pms_memreport *rep, const struct pms_pathreport *prep,
			    const struct pms_memsrc_stats *sst, double secs)
{
	fprintf(out, "pmuscope record: %s, %" PRIu64 " samples in %.2f s", event, rep->samples,
	       secs);
	if (sst->lost_total)
		fprintf(out, " (%" PRIu64 " lost)", sst->lost_total);
	if (sst->samples_excluded)
		fprintf(out, " (%" PRIu64 " of pmuscope itself left out)", sst->samples_excluded);
	fprintf(out, "\nsampled: ");
	bool first = true;
	for (size_t i = 0; i < nattrs; i++) {
		if (!attrs[i].samples)
			continue;
		fprintf(out, "%s%s on %s", first ? "" : ", ", event_name(&attrs[i]), attrs[i].pmu);
		first = false;
	}
	fprintf(out, "\n");
	if (si->notes && *si->notes)
		fprintf(out, "notes: %s\n", si->notes);
	text_sites(out, "hot functions", rep->top_funcs_samples, rep->ntop_funcs_samples,
		   rep->samples, false);
	text_sites(out, "hot instructions", rep->top_ips_samples, rep->ntop_ips_samples, rep->samples,
		   true);
	if (prep)
		pms_render_callpath_text(out, prep);
}
