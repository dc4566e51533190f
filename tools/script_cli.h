/* script's options beside cmd_script.c; its --header text
 * (pms_render_perfdata_header) and JSON rows (pms_render_script_*) are the
 * library's. */
#ifndef PMUSCOPE_TOOLS_SCRIPT_CLI_H
#define PMUSCOPE_TOOLS_SCRIPT_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "pmuscope/script.h"

struct cli_spec;
extern const struct cli_spec cli_spec_script;

#endif
