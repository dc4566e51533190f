/* `pmuscope report --fetch[=line]`: the file's AMD IBS fetch view, rendered
 * by the library (pms_render_ibs_fetch). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "pmuscope/error.h"
#include "pmuscope/fetchview.h"
#include "pmuscope/render_cmd.h"

struct pms_sys *cli_open_sys(const struct cli_global *g);
int report_fetch(const struct cli_global *g, const char *path, bool by_line, size_t top);

int report_fetch(const struct cli_global *g, const char *path, bool by_line, size_t top)
{
	struct pms_ibs_fetch_view *v = NULL;
	struct pms_sys *sys;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "pmuscope: report: cannot open %s: %m\n", path);
		return 1;
	}
	if (!(sys = cli_open_sys(g))) {
		close(fd);
		return 1;
	}
	rc = pms_ibs_fetch_view_file(sys, fd, by_line, &v);
	close(fd);
	pms_sys_free(sys);
	if (rc < 0) {
		fprintf(stderr, "pmuscope: report --fetch: %s: %s\n", path, pms_error_last());
		return 1;
	}
	pms_render_ibs_fetch(stdout, path, v, by_line, top);
	pms_ibs_fetch_view_free(v);
	return 0;
}
