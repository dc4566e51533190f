/* The catalog that event-taking subcommands (encode, stat) resolve catalog
 * event names with: --catalog PATH, else $PMUSCOPE_CATALOG, selected for this
 * machine's CPU; the built-in ARM PMUv3 table on arm64 without either. */
#ifndef PMS_TOOLS_CLI_CATALOG_H
#define PMS_TOOLS_CLI_CATALOG_H

#include "cli_opt.h"
#include "pmuscope/catalog.h"
#include "pmuscope/pmu.h"
#include "pmuscope/sys.h"

/* The --catalog option's entry in a subcommand's option table (cli_opt.h). */
#define CLI_CATALOG_OPT(id)                                                      \
	{ "catalog", 0, CLI_ARG, "PATH", (id),                                        \
	  "resolve catalog event names (inst_retired,\n"                             \
	  "uncore_imc/UNC_M_CAS_COUNT_SCH0.RD/) with PATH: a kernel\n"               \
	  "pmu-events arch tree, an Intel perfmon or ARM-software/data\n"            \
	  "checkout, one JSON file or `perf list -j` output, chosen for\n"           \
	  "this CPU; default $PMUSCOPE_CATALOG, else the built-in ARM\n"             \
	  "PMUv3 events on arm64 and none elsewhere; sysfs aliases win" }

/* Load the catalog for this machine into *out: path (NULL: $PMUSCOPE_CATALOG)
 * selected by pms_catalog_identify (per core PMU on big.LITTLE, each
 * cluster's core events then named for its PMU); with neither, the built-in
 * ARM PMUv3 events when the CPU has a MIDR, else *out = NULL.  pmus may be
 * NULL.  On failure prints "pmuscope: <cmd>: ..." and returns 1; 0 otherwise.
 * Release with pms_catalog_free. */
int cli_catalog_open(const char *cmd, struct pms_sys *sys, const struct pms_pmus *pmus,
		     const char *path, struct pms_catalog **out);

/* The same, with the CPU given (cpu: a MIDR or vendor-family-model, as
 * `events --cpu` takes) instead of this machine's; no per-cluster split then. */
int cli_catalog_open_cpu(const char *cmd, struct pms_sys *sys, const struct pms_pmus *pmus,
			 const char *path, const char *cpu, struct pms_catalog **out);

#endif
