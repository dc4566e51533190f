/* `pmuscope mem --engine damon`: DAMON access-frequency profiling where no
 * precise memory-sampling PMU exists (docs/damon.md).  Its own option
 * parsing, the recording loop and the text/JSON/CSV rendering. */
#ifndef PMS_TOOLS_DAMON_RENDER_H
#define PMS_TOOLS_DAMON_RENDER_H

#include <stdbool.h>

#include "cli.h"

/* True when argv (a `mem` command line) asks for --engine damon. */
#include "cli_opt.h"

/* the options of `mem --engine damon` (its --help and man text) */
extern const struct cli_spec cli_spec_mem_damon;

bool mem_damon_requested(int argc, char **argv);

/* mem_damon_main's answer when DAMON was chosen automatically but could not
 * start (busy, refused): nothing ran, the caller goes on with page faults. */
#define MEM_DAMON_FALLBACK (-2)

/* Run `mem` with DAMON.  auto_reason: NULL when the user asked for it, else
 * why the engine ladder chose it (printed).  Returns the exit code, or
 * MEM_DAMON_FALLBACK (auto_reason only). */
int mem_damon_main(const struct cli_global *g, int argc, char **argv, const char *auto_reason);

#endif
