/* pmuscope list: the PMUs the kernel exposes, how pmuscope classifies them,
 * and their caps, format terms and event aliases.
 * JSON schema: docs/json-list.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opt.h"
#include "pmuscope/error.h"
#include "pmuscope/pmu.h"
#include "pmuscope/render_cmd.h"
#include "pmuscope/topo.h"

int cmd_list(const struct cli_global *g, int argc, char **argv);

enum { O_JSON = 256 };

static const struct cli_opt opts[] = {
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "machine-readable output (schema: docs/json-list.md)" },
	{ 0 },
};

const struct cli_spec cli_spec_list = {
	.name = "list",
	.synopsis = "[--root DIR] list [PATTERN] [--json]",
	.description =
		"List the PMUs in /sys/bus/event_source/devices: type, kind (core,\n"
		"uncore, precise engine, software...), uncore scope, the CPUs they count\n"
		"on or are read from, caps, precise sampling engine (PEBS, IBS, SPE),\n"
		"format terms and event aliases.\n\n"
		"PATTERN: only PMUs whose name contains PATTERN, or matches it as a\n"
		"shell glob when it has * ? or [ (e.g. 'uncore_cha_*').",
	.opts = opts,
	.footer = "Exit status: 0 ok, 1 the PMUs cannot be read, 2 usage error.",
};

int cmd_list(const struct cli_global *g, int argc, char **argv)
{
	const char *pattern = NULL;
	bool json = false, hv = false, has_hw;
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	char hv_what[160] = "", note[1024] = "";
	size_t shown = 0;
	int rc = 0;

	struct cli_parser p;
	int c;
	cli_parser_init(&p, &cli_spec_list, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		if (c == O_JSON) {
			json = true;
		} else if (!pattern) {
			pattern = p.arg;
		} else {
			return cli_usage(&cli_spec_list, "one PATTERN only ('%s' is extra)", p.arg);
		}
	}
	if (c != CLI_END)
		return cli_exit_code(c);
	for (int k = p.ind; k < argc; k++) {
		if (pattern)
			return cli_usage(&cli_spec_list, "one PATTERN only ('%s' is extra)", argv[k]);
		pattern = argv[k];
	}
	sys = cli_open_sys(g);
	if (!sys)
		return 1;
	if (pms_pmus_load(sys, &pmus) < 0) {
		rc = cli_fail("cannot list PMUs");
		goto out;
	}
	has_hw = pms_pmus_has_hardware(pmus);
	hv = pms_hypervisor_detect(sys, hv_what, sizeof(hv_what));
	if (!has_hw)
		pms_render_pmus_no_hw_note(note, sizeof(note), pmus, hv, hv_what);
	shown = pms_render_pmus_matching(pmus, pattern);

	if (json) {
		struct pms_json j;
		pms_json_init(&j, stdout);
		pms_render_pmus_json(&j, pmus, pattern, pms_sys_root(sys), has_hw, hv,
				     has_hw ? NULL : note);
		cli_json_finish(&j);
	} else {
		if (pms_pmus_count(pmus) == 0)
			printf("The kernel lists no PMUs at all (%s/sys/bus/event_source/devices is "
			       "missing or empty): perf_events is not available.\n",
			       strcmp(pms_sys_root(sys), "/") ? pms_sys_root(sys) : "");
		pms_render_pmus_text(stdout, pmus, pattern);
		if (!has_hw)
			printf("\n%s\n", note);
	}
	if (pattern && shown == 0) {
		fprintf(stderr, "pmuscope: list: no PMU name matches '%s'\n", pattern);
		rc = 1;
	}
out:
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	return rc;
}
