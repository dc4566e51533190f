/* pmuscope topology: packages, dies, L3 domains, NUMA nodes, distances,
 * sub-NUMA clustering, core types, and where each uncore box's counts belong.
 * JSON schema: docs/json-topology.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opt.h"
#include "pmuscope/error.h"
#include "pmuscope/pmu.h"
#include "pmuscope/render_cmd.h"
#include "pmuscope/topo.h"

int cmd_topology(const struct cli_global *g, int argc, char **argv);

enum { O_JSON = 256 };

static const struct cli_opt opts[] = {
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "machine-readable output (schema: docs/json-topology.md)" },
	{ 0 },
};

const struct cli_spec cli_spec_topology = {
	.name = "topology",
	.synopsis = "[--root DIR] topology [--json]",
	.description =
		"Show packages, dies, L3 domains, NUMA nodes and their distances,\n"
		"sub-NUMA clustering (SNC-N per package), core types (big.LITTLE /\n"
		"hybrid), and for every uncore PMU the NUMA node its counts belong to\n"
		"and the CPU to read it on (corrected for SNC where the platform is\n"
		"known; otherwise reported per socket with a warning).",
	.opts = opts,
	.footer = "Exit status: 0 ok, 1 the machine's topology cannot be read, 2 usage error.",
};

int cmd_topology(const struct cli_global *g, int argc, char **argv)
{
	struct pms_sys *sys = NULL;
	struct pms_topo *topo = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_uncore_box *boxes = NULL;
	size_t nboxes = 0;
	char *uncore_error = NULL;
	bool json = false;
	int rc = 1;

	struct cli_parser p;
	int c;
	cli_parser_init(&p, &cli_spec_topology, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		if (c == O_JSON)
			json = true;
		else
			return cli_usage(&cli_spec_topology, "'%s' is not an argument of topology", p.arg);
	}
	if (c != CLI_END)
		return cli_exit_code(c);
	if (p.ind < argc)
		return cli_usage(&cli_spec_topology, "'%s' is not an argument of topology", argv[p.ind]);
	sys = cli_open_sys(g);
	if (!sys)
		return 1;
	if (pms_topo_load(sys, &topo) < 0) {
		rc = cli_fail("topology");
		goto out;
	}
	/* The topology stands without the PMUs: a PMU directory that fails to
	 * load costs only the uncore section, and says why. */
	if (pms_pmus_load(sys, &pmus) < 0 || pms_uncore_map(topo, pmus, &boxes, &nboxes) < 0) {
		uncore_error = strdup(pms_error_last());
		fprintf(stderr, "pmuscope: topology: uncore mapping skipped: %s\n",
			pms_error_last());
	}
	if (json) {
		struct pms_json j;
		pms_json_init(&j, stdout);
		if (pms_render_topology_json(&j, g->root, topo, boxes, nboxes, uncore_error) == 0)
			cli_json_finish(&j);
	} else {
		pms_render_topology_text(stdout, topo, boxes, nboxes, uncore_error);
	}
	rc = 0;
out:
	free(uncore_error);
	pms_uncore_boxes_free(boxes, nboxes);
	pms_pmus_free(pmus);
	pms_topo_free(topo);
	pms_sys_free(sys);
	return rc;
}
