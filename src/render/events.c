/* `pmuscope events`' documents (pmuscope/render_cmd.h): named events from a
 * catalog with their perf encodings, ARM tiers and availability on this
 * machine, this machine's own events, --explain of an ARM event number,
 * the ARM counter facts and the Apple tables, as text or JSON
 * (docs/json-events.md), into the caller's stream or tree. */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pmuscope/armpmu.h"
#include "pmuscope/error.h"
#include "pmuscope/render_cmd.h"
#include "fields.h"

static bool matches(const char *pattern, const char *name)
{
	if (!pattern)
		return true;
	if (strpbrk(pattern, "*?["))
		return fnmatch(pattern, name, FNM_CASEFOLD) == 0;
	size_t pl = strlen(pattern);
	for (const char *p = name; *p; p++)
		if (!strncasecmp(p, pattern, pl))
			return true;
	return false;
}

/* Is ev countable here?  "yes", "no" or "?" (the machine cannot say). */
static const char *availability(const struct pms_pmus *pmus, const struct pms_cat_event *ev,
				const char *core_pmu)
{
	int a = pms_catalog_event_available(pmus, ev, core_pmu);
	return a > 0 ? "yes" : a == 0 ? "no" : "?";
}

int pms_render_arm_explain(FILE *out, struct pms_json *j, uint32_t number,
			   const struct pms_pmus *pmus)
{
	struct pms_arm_class c;
	char text[2048];
	pms_arm_explain(number, text, sizeof(text));
	if (pms_arm_classify(number, &c) < 0)
		return -1;
	/* Which of this machine's ARM core PMUs list it. */
	char here[512] = "";
	size_t hl = 0;
	for (size_t i = 0; pmus && i < pms_pmus_count(pmus); i++) {
		const struct pms_pmu *p = pms_pmus_at(pmus, i);
		if (p->kind != PMS_PMU_CORE || strncmp(p->name, "armv", 4))
			continue;
		bool has = pms_pmu_lists_code(p, number);
		int n = snprintf(here + hl, sizeof(here) - hl, "%s%s: %s", hl ? ", " : "", p->name,
				 has ? "listed in events/" : c.pmceid_reg >= 0 ? "not advertised" : "not listed (not PMCEID-discoverable)");
		if (n > 0 && (size_t)n < sizeof(here) - hl)
			hl += (size_t)n;
	}
	if (j) {
		pms_json_begin_object(j, NULL);
		pms_json_int(j, "schema_version", 1);
		pms_json_uint(j, "number", c.number);
		pms_json_str(j, "name", c.event ? c.event->name : NULL);
		pms_json_str(j, "tier", pms_event_tier_name(c.tier));
		pms_json_bool(j, "architectural", c.tier == PMS_TIER_ARCHITECTURAL);
		pms_json_str(j, "block", c.block->name);
		pms_json_uint(j, "block_first", c.block->first);
		pms_json_uint(j, "block_last", c.block->last);
		pms_json_str(j, "block_description", c.block->what);
		if (c.pmceid_reg >= 0) {
			pms_json_int(j, "pmceid_register", c.pmceid_reg);
			pms_json_int(j, "pmceid_bit", c.pmceid_bit);
		} else {
			pms_json_null(j, "pmceid_register");
			pms_json_null(j, "pmceid_bit");
		}
		pms_json_str(j, "description", c.event ? c.event->desc : NULL);
		pms_json_str(j, "here", hl ? here : NULL);
		pms_json_end_object(j);
		return 0;
	}
	fputs(text, out);
	if (hl)
		fprintf(out, "  here: %s\n", here);
	return 0;
}

static void json_fact(struct pms_json *j, const void *ctx, size_t i)
{
	const struct pms_arm_fact *f = pms_arm_fact_at(i);
	(void)ctx;
	PMS_JSON_FIELDS(j, JS("key", f->key), JS("term", f->term), JS("fact", f->fact),
			JS("source", f->cite));
}

void pms_render_arm_facts(FILE *out, struct pms_json *j)
{
	if (j) {
		pms_json_begin_object(j, NULL);
		pms_json_int(j, "schema_version", 1);
		pms_json_rows(j, "facts", pms_arm_fact_count(), json_fact, NULL);
		pms_json_end_object(j);
		return;
	}
	for (size_t i = 0; i < pms_arm_fact_count(); i++) {
		const struct pms_arm_fact *f = pms_arm_fact_at(i);
		fprintf(out, "%-20s %s\n", f->key, f->term ? f->term : "");
		fprintf(out, "    %s\n    [%s]\n", f->fact, f->cite);
	}
}

static void json_gen(struct pms_json *j, const void *ctx, size_t g)
{
	const struct pms_apple_gen *ag = pms_apple_gen_at(g);
	(void)ctx;
	PMS_JSON_FIELDS(j, JS("id", ag->id), JS("chip", ag->chip), JU("events", ag->n_events),
			JU("arm_prefixed", ag->n_arm_prefixed),
			JU("fixed_counters", ag->fixed_counters),
			JU("config_counters_mask", ag->config_counters),
			JB("pmuv3_numbering", ag->pmuv3_numbering), JB("partial", ag->partial));
}

/* --apple all: each known event's number on every generation. */
void pms_render_apple_all(FILE *out, struct pms_json *j, const char *pattern)
{
	if (j) {
		pms_json_begin_object(j, NULL);
		pms_json_int(j, "schema_version", 1);
		pms_json_rows(j, "generations", pms_apple_gen_count(), json_gen, NULL);
		pms_json_begin_array(j, "events");
	} else {
		fprintf(out, "%-24s", "EVENT");
		for (size_t g = 0; g < pms_apple_gen_count(); g++)
			fprintf(out, " %7s", pms_apple_gen_at(g)->id);
		fprintf(out, "\n");
	}
	for (size_t i = 0; i < pms_apple_event_count(); i++) {
		const struct pms_apple_event *e = pms_apple_event_at(i);
		if (!matches(pattern, e->name))
			continue;
		if (j) {
			pms_json_begin_object(j, NULL);
			pms_json_str(j, "name", e->name);
			pms_json_begin_object(j, "numbers");
			for (size_t g = 0; g < pms_apple_gen_count(); g++) {
				if (e->number[g] >= 0)
					pms_json_uint(j, pms_apple_gen_at(g)->id, (unsigned)e->number[g]);
				else
					pms_json_null(j, pms_apple_gen_at(g)->id);
			}
			pms_json_end_object(j);
			pms_json_end_object(j);
			continue;
		}
		fprintf(out, "%-24s", e->name);
		for (size_t g = 0; g < pms_apple_gen_count(); g++) {
			char b[16];
			if (e->number[g] >= 0)
				snprintf(b, sizeof(b), "%s0x%x", pms_apple_linux_expressible((uint32_t)e->number[g]) ? "" : "*", (unsigned)e->number[g]);
			else
				snprintf(b, sizeof(b), "%s", e->number[g] == PMS_APPLE_ABSENT ? "-" : "?");
			fprintf(out, " %7s", b);
		}
		fprintf(out, "\n");
	}
	if (j) {
		pms_json_end_array(j);
		pms_json_end_object(j);
	} else {
		fprintf(out, "\n* above 0xFF: not expressible through Linux's event=config:0-7\n"
		       "- not in that generation's catalog; ? not known to pmuscope\n"
		       "From as4-1 (M4) on, the common subset uses PMUv3 numbers. The table is partial.\n");
	}
}

/* One row of the machine's own events, in the catalog rows' layout. */
static void machine_row(FILE *out, struct pms_json *j, const char *name, const char *pmu, const char *enc,
			const char *kind, const char *desc)
{
	if (j) {
		pms_json_begin_object(j, NULL);
		pms_json_str(j, "name", name);
		pms_json_str(j, "pmu", pmu);
		pms_json_str(j, "encoding", enc);
		pms_json_str(j, "kind", kind);
		pms_json_str(j, "tier", NULL);
		pms_json_str(j, "available", "yes");
		pms_json_str(j, "description", desc);
		pms_json_str(j, "source", "machine");
		pms_json_end_object(j);
		return;
	}
	if (desc && *desc)
		fprintf(out, "%-40s %-44s %-18s %-3s %s\n", name, enc, kind, "yes", desc);
	else
		fprintf(out, "%-40s %-44s %-18s yes\n", name, enc, kind);
}

/* What this machine can count (pms_machine_events_list), those matching
 * pattern and pmu.  Returns the rows shown. */
static size_t machine_events(FILE *out, struct pms_sys *sys, const struct pms_pmus *pmus,
			     const char *pattern, const char *pmu, struct pms_json *j,
			     char *why, size_t whylen)
{
	struct pms_machine_event *ev = NULL;
	size_t n = 0, shown = 0;
	bool tracepoints = !pmu || !strcasecmp(pmu, "tracepoint");
	if (pms_machine_events_list(sys, pmus, tracepoints, &ev, &n) < 0)
		return 0;
	size_t tp_rows = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pms_machine_event *e = &ev[i];
		tp_rows += e->kind == PMS_MEV_TRACEPOINT;
		if (pmu && (!e->pmu || strcasecmp(pmu, e->pmu)))
			continue;
		if (!matches(pattern, e->name))
			continue;
		machine_row(out, j, e->name, e->pmu, e->encoding, pms_machine_event_kind_name(e->kind),
			    e->desc);
		shown++;
	}
	if (tracepoints && !tp_rows) {
		/* none listed: say why where tracefs is there but unreadable, as perf */
		struct pms_tracepoint *tp = NULL;
		size_t ntp = 0;
		int trc = pms_tracepoints_list(sys, &tp, &ntp);
		if (trc < 0 && trc != PMS_ENOENT)
			snprintf(why, whylen, "%s", pms_error_last());
		pms_error_clear();
		pms_tracepoints_free(tp, ntp);
	}
	pms_machine_events_free(ev, n);
	return shown;
}

const char *pms_render_events_core_pmu(const struct pms_pmus *pmus)
{
	const char *name = NULL;
	if (!pmus || pms_pmus_core_count(pmus) != 1)
		return NULL;
	for (size_t i = 0; i < pms_pmus_count(pmus); i++)
		if (pms_pmus_at(pmus, i)->kind == PMS_PMU_CORE)
			name = pms_pmus_at(pmus, i)->name;
	return name;
}

/* The catalog's events matching pattern and pmu: a row each.  Returns the
 * rows shown. */
static size_t catalog_rows(FILE *out, const struct pms_catalog *cat, const char *core_pmu,
			   const struct pms_pmus *pmus, const char *pattern, const char *pmu,
			   struct pms_json *j)
{
	size_t shown = 0;
	for (size_t i = 0; i < pms_catalog_count(cat); i++) {
		const struct pms_cat_event *e = pms_catalog_event(cat, i);
		/* A catalog that does not name the PMU takes --pmu's. */
		const char *epmu = e->pmu ? e->pmu : core_pmu ? core_pmu : pmu;
		if (!e->pmu && e->format == PMS_CATFMT_PERFLIST)
			epmu = NULL; /* perf's generic events: the name is the encoding */
		char enc[600];
		if (!matches(pattern, e->name))
			continue;
		if (pmu && epmu != pmu && strncasecmp(epmu, pmu, strlen(epmu)))
			continue;
		pms_cat_event_string(e, epmu, enc, sizeof(enc));
		const char *here = availability(pmus, e, epmu);
		const char *desc = e->desc ? e->desc : e->long_desc;
		shown++;
		if (j) {
			pms_json_begin_object(j, NULL);
			pms_json_str(j, "name", e->name);
			pms_json_str(j, "pmu", epmu);
			pms_json_str(j, "encoding", enc);
			pms_json_uint(j, "code", e->code);
			pms_json_str(j, "tier", e->tier ? pms_event_tier_name(e->tier) : NULL);
			pms_json_str(j, "available", here);
			pms_json_bool(j, "uncore", e->uncore);
			pms_json_bool(j, "per_pkg", e->per_pkg);
			pms_json_bool(j, "experimental", e->experimental);
			pms_json_bool(j, "deprecated", e->deprecated);
			pms_json_str(j, "description", desc);
			pms_json_str(j, "note", e->note);
			pms_json_str(j, "format", pms_catalog_format_name(e->format));
			pms_json_str(j, "source", e->source);
			pms_json_end_object(j);
			continue;
		}
		/* Text keeps one line per event; --json has the whole text. */
		char brief[76];
		snprintf(brief, sizeof(brief), "%s", desc ? desc : "");
		if (desc && strlen(desc) >= sizeof(brief))
			memcpy(brief + sizeof(brief) - 4, "...", 4);
		char line[1024];
		snprintf(line, sizeof(line), "%-40s %-44s %-18s %-3s %s%s%s%s", e->name, enc,
			 e->tier ? pms_event_tier_name(e->tier) : "-", here, brief,
			 e->uncore ? " [per-domain]" : "", e->note ? " NOTE: " : "",
			 e->note ? e->note : "");
		size_t ll = strlen(line);
		while (ll && line[ll - 1] == ' ')
			line[--ll] = '\0'; /* no description: no trailing padding */
		fprintf(out, "%s\n", line);
	}
	return shown;
}

size_t pms_render_events(FILE *out, struct pms_json *j, const struct pms_render_events_src *s,
			 char *why, size_t whylen)
{
	size_t shown = 0;
	if (whylen)
		why[0] = '\0';
	if (j) {
		pms_json_begin_object(j, NULL);
		pms_json_int(j, "schema_version", 1);
		pms_json_str(j, "catalog", s->what);
		pms_json_str(j, "pattern", s->pattern);
		pms_json_str(j, "pmu", s->pmu);
		pms_json_begin_array(j, "events");
	} else {
		fprintf(out, "catalog: %s\n%-40s %-44s %-18s %-3s %s\n", s->what, "NAME",
			"ENCODING (stat -e)", "TIER", "OK?", "DESCRIPTION");
	}
	if (s->machine)
		shown += machine_events(out, s->sys, s->pmus, s->pattern, s->pmu, j, why, whylen);
	if (s->cat)
		shown += catalog_rows(out, s->cat, s->core_pmu, s->pmus, s->pattern, s->pmu, j);
	if (j) {
		pms_json_end_array(j);
		pms_json_uint(j, "count", shown);
		pms_json_end_object(j);
	}
	return shown;
}
