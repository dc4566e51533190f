/* pmuscope events: named events from a catalog (a JSON catalog directory or
 * file, the built-in ARM PMUv3 table, or the Apple tables), their perf
 * encodings, ARM tiers and availability on this machine; --explain for an
 * ARM event number.  JSON schema: docs/json-events.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opt.h"
#include "cli_catalog.h"
#include "pmuscope/catalog.h"
#include "pmuscope/error.h"
#include "pmuscope/pmu.h"
#include "pmuscope/render_cmd.h"

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

struct source {
	struct pms_catalog *cat;
	const char *core_pmu; /* PMU the catalog's pmu-less events belong to, or NULL */
};

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
	struct pms_json j;
	pms_json_init(&j, stdout);
	if (want_facts || (apple && !strcmp(apple, "all"))) {
		if (want_facts)
			pms_render_arm_facts(stdout, json ? &j : NULL);
		else
			pms_render_apple_all(stdout, json ? &j : NULL, pattern);
		if (json)
			cli_json_finish(&j);
		return 0;
	}

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
		rc = pms_render_arm_explain(stdout, json ? &j : NULL,
					    n > UINT32_MAX ? UINT32_MAX : (uint32_t)n, pmus);
		if (rc < 0)
			rc = cli_fail("--explain");
		else if (json)
			cli_json_finish(&j);
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
		src[0].core_pmu = pms_render_events_core_pmu(pmus);

	struct pms_render_events_src es = {
		.sys = sys, .pmus = pmus, .cat = nsrc ? src[0].cat : NULL,
		.core_pmu = src[0].core_pmu, .machine = machine,
		.what = what, .pattern = pattern, .pmu = pmu,
	};
	char why[512];
	size_t shown = pms_render_events(stdout, json ? &j : NULL, &es, why, sizeof(why));
	if (why[0])
		fprintf(stderr, "pmuscope: events: tracepoints not listed: %s\n", why);
	if (json)
		cli_json_finish(&j);
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
