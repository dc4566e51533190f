/* pmuscope events: named events from a catalog (a JSON catalog directory or
 * file, the built-in ARM PMUv3 table, or the Apple tables), their perf
 * encodings, ARM tiers and availability on this machine; --explain for an
 * ARM event number.  JSON schema: docs/json-events.md. */
#include <fnmatch.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "cli_opt.h"
#include "cli_catalog.h"
#include "pmuscope/armpmu.h"
#include "pmuscope/catalog.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/pmu.h"

int cmd_events(const struct cli_global *g, int argc, char **argv);

enum { O_JSON = 256, O_FACTS, O_PMU, O_CPU, O_APPLE, O_CATALOG, O_EXPLAIN };

static const struct cli_opt opts[] = {
	{ "pmu", 0, CLI_ARG, "PMU", O_PMU, "only events of PMU (cpu_core, uncore_imc, uncore_imc_3 ...)" },
	{ "cpu", 0, CLI_ARG, "ID", O_CPU,
	  "the CPU to pick catalog files for: a MIDR (0x413fd0c1) or\n"
	  "vendor-family-model (GenuineIntel-6-AD); default: this\n"
	  "machine (per core PMU on big.LITTLE)" },
	{ "catalog", 0, CLI_ARG, "PATH", O_CATALOG,
	  "a kernel tools/perf/pmu-events/arch tree, an Intel perfmon\n"
	  "or ARM-software/data checkout, or one JSON file (also\n"
	  "'perf list -j' output); default $PMUSCOPE_CATALOG, else\n"
	  "the built-in ARM PMUv3 architected events" },
	{ "apple", 0, CLI_ARG, "GEN", O_APPLE,
	  "the built-in Apple table for as1, a14, as3, as4-1 or as5;\n"
	  "'all' prints each event's number on every generation" },
	{ "explain", 0, CLI_ARG, "N", O_EXPLAIN, "explain an ARM PMUv3 event number (tier, block, discovery)" },
	{ "facts", 0, CLI_NOARG, NULL, O_FACTS, "the ARM PMUv3 counter facts (long/chained, user access ...)" },
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "machine-readable output (schema: docs/json-events.md)" },
	{ 0 },
};

const struct cli_spec cli_spec_events = {
	.name = "events",
	.synopsis = "[--root DIR] events [PATTERN] [--pmu PMU] [--cpu ID] [--apple GEN]\n"
		    "                [--catalog PATH] [--json]\n"
		    "events --explain NUMBER [--json]\n"
		    "events --facts [--json]",
	.description =
		"List catalog events with the perf encoding to use with 'stat -e', the ARM\n"
		"tier, whether this machine's PMUs have them, and the description.\n\n"
		"PATTERN: names containing PATTERN (case-insensitive), or a shell glob\n"
		"when it has * ? or [.",
	.opts = opts,
	.footer = "Exit status: 0 ok, 1 failure, 2 usage error.",
};

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

static int explain(uint32_t number, bool json, const struct pms_pmus *pmus)
{
	struct pms_arm_class c;
	char text[2048];
	pms_arm_explain(number, text, sizeof(text));
	if (pms_arm_classify(number, &c) < 0)
		return cli_fail("--explain");
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
	if (json) {
		struct json j;
		cli_json_init(&j, stdout);
		cli_json_begin_object(&j, NULL);
		cli_json_int(&j, "schema_version", 1);
		cli_json_uint(&j, "number", c.number);
		cli_json_str(&j, "name", c.event ? c.event->name : NULL);
		cli_json_str(&j, "tier", pms_event_tier_name(c.tier));
		cli_json_bool(&j, "architectural", c.tier == PMS_TIER_ARCHITECTURAL);
		cli_json_str(&j, "block", c.block->name);
		cli_json_uint(&j, "block_first", c.block->first);
		cli_json_uint(&j, "block_last", c.block->last);
		cli_json_str(&j, "block_description", c.block->what);
		if (c.pmceid_reg >= 0) {
			cli_json_int(&j, "pmceid_register", c.pmceid_reg);
			cli_json_int(&j, "pmceid_bit", c.pmceid_bit);
		} else {
			cli_json_null(&j, "pmceid_register");
			cli_json_null(&j, "pmceid_bit");
		}
		cli_json_str(&j, "description", c.event ? c.event->desc : NULL);
		cli_json_str(&j, "here", hl ? here : NULL);
		cli_json_end_object(&j);
		cli_json_finish(&j);
		return 0;
	}
	fputs(text, stdout);
	if (hl)
		printf("  here: %s\n", here);
	return 0;
}

static int facts(bool json)
{
	if (json) {
		struct json j;
		cli_json_init(&j, stdout);
		cli_json_begin_object(&j, NULL);
		cli_json_int(&j, "schema_version", 1);
		cli_json_begin_array(&j, "facts");
		for (size_t i = 0; i < pms_arm_fact_count(); i++) {
			const struct pms_arm_fact *f = pms_arm_fact_at(i);
			cli_json_begin_object(&j, NULL);
			cli_json_str(&j, "key", f->key);
			cli_json_str(&j, "term", f->term);
			cli_json_str(&j, "fact", f->fact);
			cli_json_str(&j, "source", f->cite);
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
		cli_json_end_object(&j);
		cli_json_finish(&j);
		return 0;
	}
	for (size_t i = 0; i < pms_arm_fact_count(); i++) {
		const struct pms_arm_fact *f = pms_arm_fact_at(i);
		printf("%-20s %s\n", f->key, f->term ? f->term : "");
		printf("    %s\n    [%s]\n", f->fact, f->cite);
	}
	return 0;
}

/* --apple all: each known event's number on every generation. */
static int apple_all(const char *pattern, bool json)
{
	struct json j;
	if (json) {
		cli_json_init(&j, stdout);
		cli_json_begin_object(&j, NULL);
		cli_json_int(&j, "schema_version", 1);
		cli_json_begin_array(&j, "generations");
		for (size_t g = 0; g < pms_apple_gen_count(); g++) {
			const struct pms_apple_gen *ag = pms_apple_gen_at(g);
			cli_json_begin_object(&j, NULL);
			cli_json_str(&j, "id", ag->id);
			cli_json_str(&j, "chip", ag->chip);
			cli_json_uint(&j, "events", ag->n_events);
			cli_json_uint(&j, "arm_prefixed", ag->n_arm_prefixed);
			cli_json_uint(&j, "fixed_counters", ag->fixed_counters);
			cli_json_uint(&j, "config_counters_mask", ag->config_counters);
			cli_json_bool(&j, "pmuv3_numbering", ag->pmuv3_numbering);
			cli_json_bool(&j, "partial", ag->partial);
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
		cli_json_begin_array(&j, "events");
	} else {
		printf("%-24s", "EVENT");
		for (size_t g = 0; g < pms_apple_gen_count(); g++)
			printf(" %7s", pms_apple_gen_at(g)->id);
		printf("\n");
	}
	for (size_t i = 0; i < pms_apple_event_count(); i++) {
		const struct pms_apple_event *e = pms_apple_event_at(i);
		if (!matches(pattern, e->name))
			continue;
		if (json) {
			cli_json_begin_object(&j, NULL);
			cli_json_str(&j, "name", e->name);
			cli_json_begin_object(&j, "numbers");
			for (size_t g = 0; g < pms_apple_gen_count(); g++) {
				if (e->number[g] >= 0)
					cli_json_uint(&j, pms_apple_gen_at(g)->id, (unsigned)e->number[g]);
				else
					cli_json_null(&j, pms_apple_gen_at(g)->id);
			}
			cli_json_end_object(&j);
			cli_json_end_object(&j);
			continue;
		}
		printf("%-24s", e->name);
		for (size_t g = 0; g < pms_apple_gen_count(); g++) {
			char b[16];
			if (e->number[g] >= 0)
				snprintf(b, sizeof(b), "%s0x%x", pms_apple_linux_expressible((uint32_t)e->number[g]) ? "" : "*", (unsigned)e->number[g]);
			else
				snprintf(b, sizeof(b), "%s", e->number[g] == PMS_APPLE_ABSENT ? "-" : "?");
			printf(" %7s", b);
		}
		printf("\n");
	}
	if (json) {
		cli_json_end_array(&j);
		cli_json_end_object(&j);
		cli_json_finish(&j);
	} else {
		printf("\n* above 0xFF: not expressible through Linux's event=config:0-7\n"
		       "- not in that generation's catalog; ? not known to pmuscope\n"
		       "From as4-1 (M4) on, the common subset uses PMUv3 numbers. The table is partial.\n");
	}
	return 0;
}

struct source {
	struct pms_catalog *cat;
	const char *core_pmu; /* PMU the catalog's pmu-less events belong to, or NULL */
};

/* One row of the machine's own events, in the catalog rows' layout. */
static void machine_row(struct json *j, const char *name, const char *pmu, const char *enc,
			const char *kind, const char *desc)
{
	if (j) {
		cli_json_begin_object(j, NULL);
		cli_json_str(j, "name", name);
		cli_json_str(j, "pmu", pmu);
		cli_json_str(j, "encoding", enc);
		cli_json_str(j, "kind", kind);
		cli_json_str(j, "tier", NULL);
		cli_json_str(j, "available", "yes");
		cli_json_str(j, "description", desc);
		cli_json_str(j, "source", "machine");
		cli_json_end_object(j);
		return;
	}
	if (desc && *desc)
		printf("%-40s %-44s %-18s %-3s %s\n", name, enc, kind, "yes", desc);
	else
		printf("%-40s %-44s %-18s yes\n", name, enc, kind);
}

/* What this machine can count (pms_machine_events_list), those matching
 * pattern and pmu.  Returns the rows shown. */
static size_t machine_events(struct pms_sys *sys, const struct pms_pmus *pmus,
			     const char *pattern, const char *pmu, struct json *j)
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
		machine_row(j, e->name, e->pmu, e->encoding, pms_machine_event_kind_name(e->kind),
			    e->desc);
		shown++;
	}
	if (tracepoints && !tp_rows) {
		/* none listed: say why where tracefs is there but unreadable, as perf */
		struct pms_tracepoint *tp = NULL;
		size_t ntp = 0;
		int trc = pms_tracepoints_list(sys, &tp, &ntp);
		if (trc < 0 && trc != PMS_ENOENT)
			fprintf(stderr, "pmuscope: events: tracepoints not listed: %s\n",
				pms_error_last());
		pms_error_clear();
		pms_tracepoints_free(tp, ntp);
	}
	pms_machine_events_free(ev, n);
	return shown;
}

/* The name of the machine's only core PMU; NULL with none or several. */
static const char *single_core_pmu(const struct pms_pmus *pmus)
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
static size_t catalog_rows(const struct source *src, const struct pms_pmus *pmus,
			   const char *pattern, const char *pmu, struct json *j)
{
	size_t shown = 0;
	for (size_t i = 0; i < pms_catalog_count(src->cat); i++) {
		const struct pms_cat_event *e = pms_catalog_event(src->cat, i);
		/* A catalog that does not name the PMU takes --pmu's. */
		const char *epmu = e->pmu ? e->pmu : src->core_pmu ? src->core_pmu : pmu;
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
			cli_json_begin_object(j, NULL);
			cli_json_str(j, "name", e->name);
			cli_json_str(j, "pmu", epmu);
			cli_json_str(j, "encoding", enc);
			cli_json_uint(j, "code", e->code);
			cli_json_str(j, "tier", e->tier ? pms_event_tier_name(e->tier) : NULL);
			cli_json_str(j, "available", here);
			cli_json_bool(j, "uncore", e->uncore);
			cli_json_bool(j, "per_pkg", e->per_pkg);
			cli_json_bool(j, "experimental", e->experimental);
			cli_json_bool(j, "deprecated", e->deprecated);
			cli_json_str(j, "description", desc);
			cli_json_str(j, "note", e->note);
			cli_json_str(j, "format", pms_catalog_format_name(e->format));
			cli_json_str(j, "source", e->source);
			cli_json_end_object(j);
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
		printf("%s\n", line);
	}
	return shown;
}

/* The catalog to list: --apple's table, --catalog (the selection encode and
 * stat use), the built-in ARM events for --cpu, or this machine's own
 * events and its CPU's catalog.  0, or the exit code. */
static int open_source(struct pms_sys *sys, const struct pms_pmus *pmus, const char *apple,
		       const char *catalog, const char *cpu, struct source *src, size_t *nsrc,
		       const char **what, bool *machine)
{
	if (apple) {
		if (pms_catalog_new(&src->cat) < 0 || pms_catalog_add_apple(src->cat, apple) < 0)
			return cli_fail("--apple");
		src->core_pmu = NULL;
		*nsrc = 1;
		*what = "built-in Apple table (partial)";
	} else if (catalog && *catalog) {
		/* The selection encode and stat use: per cluster PMU on big.LITTLE
		 * (core events then carry their PMU), or the --cpu given. */
		*what = catalog;
		if (cli_catalog_open_cpu("events", sys, pmus, catalog, cpu, &src->cat))
			return 1;
		src->core_pmu = NULL;
		*nsrc = 1;
	} else if (cpu) {
		if (pms_catalog_new(&src->cat) < 0 || pms_catalog_add_arm_common(src->cat) < 0)
			return cli_fail("built-in catalog");
		*nsrc = 1;
		src->core_pmu = NULL;
	} else {
		/* "what can I count here": this machine's events, then the
		 * catalog of its CPU where there is one (built-in ARM PMUv3
		 * events on arm64; none elsewhere without --catalog) */
		*machine = true;
		*what = "this machine (software, hardware, PMU sysfs and tracepoint events)";
		if (cli_catalog_open("events", sys, pmus, NULL, &src->cat))
			return 1;
		src->core_pmu = NULL;
		*nsrc = src->cat ? 1 : 0;
		if (*nsrc)
			*what = "this machine (software, hardware, PMU sysfs and tracepoint events) and "
			       "its CPU's catalog";
	}
	return 0;
}

int cmd_events(const struct cli_global *g, int argc, char **argv)
{
	const char *pattern = NULL, *pmu = NULL, *cpu = NULL, *apple = NULL, *explain_arg = NULL;
	const char *catalog = getenv("PMUSCOPE_CATALOG");
	bool json = false, want_facts = false;
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	struct source src[1];
	size_t nsrc = 0;
	int rc = 1;
	const char *what = "built-in ARM PMUv3 architected events";
	bool machine = false;

	struct cli_parser p;
	int c;
	cli_parser_init(&p, &cli_spec_events, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		const char *v = p.arg;
		switch (c) {
		case O_JSON: json = true; break;
		case O_FACTS: want_facts = true; break;
		case O_PMU: pmu = v; break;
		case O_CPU: cpu = v; break;
		case O_APPLE: apple = v; break;
		case O_CATALOG: catalog = v; break;
		case O_EXPLAIN: explain_arg = v; break;
		default:
			if (pattern)
				return cli_usage(&cli_spec_events, "more than one PATTERN ('%s', '%s')",
						 pattern, v);
			pattern = v;
		}
	}
	if (c != CLI_END)
		return cli_exit_code(c);
	for (int k = p.ind; k < argc; k++) {
		if (pattern)
			return cli_usage(&cli_spec_events, "more than one PATTERN ('%s', '%s')", pattern,
					 argv[k]);
		pattern = argv[k];
	}
	if (want_facts)
		return facts(json);
	if (apple && !strcmp(apple, "all"))
		return apple_all(pattern, json);

	/* This machine's PMUs, for availability; a machine without them is fine. */
	sys = cli_open_sys(g);
	if (!sys)
		return 1;
	char **skipped = NULL;
	size_t nskipped = 0;
	if (pms_pmus_load_each(sys, &pmus, &skipped, &nskipped) < 0) {
		fprintf(stderr, "pmuscope: events: warning: PMUs not read: %s\n", pms_error_last());
		pmus = NULL;
		pms_error_clear();
	}
	for (size_t i = 0; i < nskipped; i++)
		fprintf(stderr, "pmuscope: events: warning: PMU %s; its events are not listed\n",
			skipped[i]);
	pms_sys_names_free(skipped, nskipped);
	if (explain_arg) {
		char *end;
		unsigned long long n = strtoull(explain_arg, &end, 0);
		if (*end || end == explain_arg) {
			rc = cli_usage(&cli_spec_events, "--explain '%s': want an event number (0x4005)",
				       explain_arg);
			goto out;
		}
		rc = explain(n > UINT32_MAX ? UINT32_MAX : (uint32_t)n, json, pmus);
		goto out;
	}

	src[0].cat = NULL;
	if ((rc = open_source(sys, pmus, apple, catalog, cpu, src, &nsrc, &what, &machine))) {
		if (!nsrc)
			pms_catalog_free(src[0].cat); /* made, then a table failed */
		goto out_cats;
	}
	rc = 1;
	/* pmu-less events on a single-core-PMU machine belong to that PMU. */
	if (nsrc == 1 && !src[0].core_pmu)
		src[0].core_pmu = single_core_pmu(pmus);

	struct json j;
	size_t shown = 0;
	if (json) {
		cli_json_init(&j, stdout);
		cli_json_begin_object(&j, NULL);
		cli_json_int(&j, "schema_version", 1);
		cli_json_str(&j, "catalog", what);
		cli_json_str(&j, "pattern", pattern);
		cli_json_str(&j, "pmu", pmu);
		cli_json_begin_array(&j, "events");
	} else {
		printf("catalog: %s\n%-40s %-44s %-18s %-3s %s\n", what, "NAME", "ENCODING (stat -e)",
		       "TIER", "OK?", "DESCRIPTION");
	}
	if (machine)
		shown += machine_events(sys, pmus, pattern, pmu, json ? &j : NULL);
	for (size_t s = 0; s < nsrc; s++)
		shown += catalog_rows(&src[s], pmus, pattern, pmu, json ? &j : NULL);
	if (json) {
		cli_json_end_array(&j);
		cli_json_uint(&j, "count", shown);
		cli_json_end_object(&j);
		cli_json_finish(&j);
	}
	rc = 0;
	if (!shown) {
		fprintf(stderr, "pmuscope: events: no event matches%s%s%s%s%s\n",
			pattern ? " '" : "", pattern ? pattern : "", pattern ? "'" : "",
			pmu ? " on PMU " : "", pmu ? pmu : "");
		rc = 1;
	}
out_cats:
	for (size_t s = 0; s < nsrc; s++)
		pms_catalog_free(src[s].cat);
out:
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	return rc;
}
