/* The CLI's side of the library's JSON writer (pmuscope/render.h): the
 * "pmuscope" meta object of the machine --root describes, read once, and
 * the one message when a document cannot be written. */
#include "cli.h"

#include "pmuscope/error.h"
#include "pmuscope/render_cmd.h"

static const struct cli_global *meta_global;

void cli_json_set_global(const struct cli_global *g)
{
	meta_global = g;
}

const struct pms_json_meta *cli_json_meta(void)
{
	static struct pms_json_meta m;
	static bool have;
	if (!have) {
		struct pms_sys *sys = NULL;
		struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
		o.root = meta_global ? meta_global->root : NULL;
		if (pms_sys_new(&sys, &o) < 0)
			sys = NULL;
		pms_json_meta_read(sys, &m);
		pms_sys_free(sys);
		pms_error_clear();
		have = true;
	}
	return &m;
}

void cli_json_finish(struct pms_json *j)
{
	if (j->pretty && !j->meta)
		j->meta = cli_json_meta();
	if (pms_json_finish(j) < 0)
		fprintf(stderr, "pmuscope: writing JSON failed\n");
}

/* cmd_report.c's name for pms_render_perfdata_header (it declares it). */
void cli_perfdata_print_header(FILE *o, struct pms_perfdata_reader *r);
void cli_perfdata_print_header(FILE *o, struct pms_perfdata_reader *r)
{
	pms_render_perfdata_header(o, r);
}
