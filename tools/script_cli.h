/* script's rendering beside cmd_script.c: JSON rows (script_json.c) and the
 * --header text of a perf.data file (perfdata_header.c, report's too). */
#ifndef PMUSCOPE_TOOLS_SCRIPT_CLI_H
#define PMUSCOPE_TOOLS_SCRIPT_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "pmuscope/perfdata.h"
#include "pmuscope/script.h"

struct cli_spec;
extern const struct cli_spec cli_spec_script;

/* Output gathered in a buffer and written a megabyte at a time. */
struct script_out {
	FILE *f;
	char *b;
	size_t n, cap;
};
void script_out_flush(struct script_out *o);

struct script_json;
/* fields: the comma-separated list; 0, or the exit status after saying why. */
int script_json_new(const char *fields, struct script_json **out);
bool script_json_node(const struct script_json *j);
void script_json_print(struct script_json *j, struct script_out *o,
		       const struct pms_script_sample *smp);
void script_json_free(struct script_json *j);

void cli_perfdata_print_header(FILE *o, struct pms_perfdata_reader *r);

#endif
