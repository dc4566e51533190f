/* pmuscope encode: event strings -> the perf_event_attr(s) they open. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opt.h"
#include "cli_catalog.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/pmu.h"
#include "pmuscope/render_cmd.h"

int cmd_encode(const struct cli_global *g, int argc, char **argv);

enum { O_JSON = 256, O_CATALOG };

static const struct cli_opt encode_opts[] = {
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "machine-readable output" },
	CLI_CATALOG_OPT(O_CATALOG),
	{ 0 },
};

const struct cli_spec cli_spec_encode = {
	.name = "encode",
	.synopsis = "[--root DIR] encode [--json] [--catalog PATH] EVENT...",
	.description =
		"Parse perf-style event strings against this machine's PMUs and print\n"
		"the perf_event_attr each one opens, one line per event:\n"
		"  NAME  PMU  ATTR  cpus=LIST  [group=N [leader]]\n"
		"Generic events on hybrid machines print one line per core PMU.\n"
		"On Arm PMUv3 PMUs a generic event also shows programs=EVENT, what the\n"
		"driver programs (its generic map, PMCEID from events/, the BR_RETIRED ->\n"
		"PC_WRITE_RETIRED fallback), or programs=none with the driver's errno;\n"
		"threshold terms (FEAT_PMUv3_TH) show the PMEVTYPER TH/TC bits.\n"
		"Syntax: cycles:u, r1a8, L1-dcache-load-misses, cpu/event=0x3c,umask=0/pp,\n"
		"cpu/mem-loads,ldlat=30/P, {cycles,instructions}:W (see perf-list(1)),\n"
		"and catalog names: inst_retired, uncore_imc/UNC_M_CAS_COUNT_SCH0.RD/.",
	.opts = encode_opts,
	.footer = "Exit status: 0 ok, 1 an event does not parse or the PMUs cannot be read,\n"
		  "2 usage error.",
};

#define SETBUF 8192

/* Arm PMUv3: what the driver programs for a generic event, and the
 * threshold terms it writes (pmuscope/pmuv3.h). */
int cmd_encode(const struct cli_global *g, int argc, char **argv)
{
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_event_list **lists = NULL;
	struct pms_catalog *cat = NULL;
	struct pms_event_parse_opts opts = PMS_EVENT_PARSE_OPTS_INIT;
	const char *catalog = NULL;
	bool json_out = false;
	int first = 1, rc = 1;
	char *buf = NULL;

	struct cli_parser p;
	int c, nev = 0;
	cli_parser_init(&p, &cli_spec_encode, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		switch (c) {
		case O_JSON: json_out = true; break;
		case O_CATALOG: catalog = p.arg; break;
		case CLI_OPERAND: argv[1 + nev++] = (char *)p.arg; break;
		}
	}
	if (c != CLI_END)
		return cli_exit_code(c);
	for (int k = p.ind; k < argc; k++)
		argv[1 + nev++] = argv[k];
	argc = 1 + nev;
	if (first >= argc)
		return cli_usage(&cli_spec_encode, "give at least one EVENT");
	if (!(sys = cli_open_sys(g)))
		return 1;
	if (pms_pmus_load(sys, &pmus) < 0) {
		rc = cli_fail("cannot load PMUs");
		goto out;
	}
	if (cli_catalog_open("encode", sys, pmus, catalog, &cat))
		goto out;
	opts.catalog = cat;
	opts.sys = sys;
	lists = calloc((size_t)argc, sizeof(*lists));
	buf = malloc(SETBUF);
	if (!lists || !buf) {
		fprintf(stderr, "pmuscope: encode: out of memory\n");
		goto out;
	}
	/* parse everything first so an error prints nothing on stdout */
	for (int i = first; i < argc; i++)
		if (pms_event_parse_ex(pmus, argv[i], &opts, &lists[i]) < 0) {
			rc = cli_fail("encode");
			goto out;
		}
	if (json_out) {
		struct pms_json j;
		pms_json_init(&j, stdout);
		pms_json_begin_object(&j, NULL);
		pms_json_begin_array(&j, "events");
		for (int i = first; i < argc; i++)
			for (size_t e = 0; e < pms_event_list_count(lists[i]); e++)
				pms_render_event_json(&j, pmus, pms_event_list_at(lists[i], e), buf, SETBUF);
		pms_json_end_array(&j);
		pms_json_end_object(&j);
		cli_json_finish(&j);
	} else {
		for (int i = first; i < argc; i++)
			for (size_t e = 0; e < pms_event_list_count(lists[i]); e++)
				pms_render_event_text(stdout, pmus, pms_event_list_at(lists[i], e), buf,
						      SETBUF);
	}
	rc = 0;
out:
	for (int i = 0; lists && i < argc; i++)
		pms_event_list_free(lists[i]);
	free(lists);
	free(buf);
	pms_catalog_free(cat);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	return rc;
}
