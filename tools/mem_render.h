/* The CLI's words around the memory report (the report itself is the
 * library's: pmuscope/render.h): engine names for options and the
 * warnings it says on stderr. */
#ifndef PMUSCOPE_TOOLS_MEM_RENDER_H
#define PMUSCOPE_TOOLS_MEM_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "pmuscope/render.h"

/* The options the engine does not honour, one line each on stderr
 * ("pmuscope: CMD: OPTION is not honoured by the E engine: WHY"); with
 * strict an error each and true (the caller stops, exit 1); with say false
 * (the report shows them) only the strict errors. */
bool mem_say_unhonoured(const char *cmd, enum pms_engine e,
			const struct pms_sampler_unhonoured *u, size_t n, bool strict, bool say);
/* The loss warning (when loss is high) on stderr, whatever the report's
 * form or destination (--json, --report-file): the report has it too. */
void mem_render_warn_loss(const struct pms_render_mem_opts *m, const struct pms_memreport *r);
/* ibs, pebs, spe, software: 0, else -1. */
int mem_engine_parse(const char *name, enum pms_engine *e);

#endif
