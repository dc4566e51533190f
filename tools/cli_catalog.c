/* Catalog selection for event-taking subcommands (see cli_catalog.h); the
 * same choice `pmuscope events` makes for its listing
 * (pms_catalog_open_machine). */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "cli_catalog.h"
#include "pmuscope/error.h"

int cli_catalog_open(const char *cmd, struct pms_sys *sys, const struct pms_pmus *pmus,
		     const char *path, struct pms_catalog **out)
{
	return cli_catalog_open_cpu(cmd, sys, pmus, path, NULL, out);
}

int cli_catalog_open_cpu(const char *cmd, struct pms_sys *sys, const struct pms_pmus *pmus,
			 const char *path, const char *cpu, struct pms_catalog **out)
{
	if (!path)
		path = getenv("PMUSCOPE_CATALOG");
	if (pms_catalog_open_machine(sys, pmus, path, cpu, out) < 0) {
		fprintf(stderr, "pmuscope: %s: %s\n", cmd, pms_error_last());
		return 1;
	}
	return 0;
}
