/* The pmuscope CLI: one file per subcommand (cmd_<name>.c), registered in
 * commands[] in main.c.  Subcommands print; the library never does. */
#ifndef PMS_TOOLS_CLI_H
#define PMS_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmuscope/render.h"
#include "pmuscope/sys.h"
#include "pmuscope/util.h"

struct cli_spec;

struct cli_global {
	const char *root; /* --root DIR or $PMUSCOPE_ROOT, NULL = this machine */
	const char *prog; /* argv[0] */
};

/* Each subcommand: argv[0] is the subcommand name. Returns the exit code. */
typedef int (*cli_cmd_fn)(const struct cli_global *g, int argc, char **argv);

struct cli_cmd {
	const char *name;
	cli_cmd_fn fn;
	const char *summary;
	const struct cli_spec *spec; /* options and help (cli_opt.h); NULL for help */
};

/* Open the kernel seam for g->root; prints the error and returns NULL on failure. */
struct pms_sys *cli_open_sys(const struct cli_global *g);

/* Print "pmuscope: <what>: <pms_error_last()>" to stderr; returns exit code 1. */
int cli_fail(const char *what);

/* A COMMAND that could not be started (exec failed): prints
 * "pmuscope: <cmd>: cannot run '<file>': <cause>" and returns the exit code,
 * 127 when it does not exist and 126 otherwise (as env(1), time(1)). */
int cli_exec_failed(const char *cmd, const char *file);

/* The command's processes could not be held at exit (pms_liverun_result
 * holding false; why = its hold_why, NULL: ptrace refused): one warning
 * with what is lost without the hold ("without") and how to allow it. */
void cli_warn_no_hold(const char *cmd, const char *why, const char *without);
/* --hold-budget MS (mem, record, c2c): milliseconds >= 0 (at most an
 * hour) or "none" (-1); 0 becomes the smallest budget (the library's 0 is
 * its default).  -1 when arg is neither. */
int cli_hold_budget(const char *arg, double *ms);
#define CLI_HOLD_BUDGET_WANT "milliseconds >= 0 or 'none'"
#define CLI_HOLD_BUDGET_HELP                                                                \
	"exit holds: the most a process held at exit waits, in ms,\n"                          \
	"for others that exited with it to be asked about; past\n"                             \
	"it, it is let go unasked (its samples: 'released at the\n"                            \
	"hold budget'); 'none': no limit (default 5)"

/* What a source skipped or found corrupt (pms_memsrc_problem: the one
 * library place report and c2c ask), each on stderr as
 * "pmuscope: CMD: PATH: warning: ...".  Returns how many there were. */
struct pms_memsrc;
struct pms_session;
/* A live command's processes still running when it exited, said on
 * stderr (nothing when there were none). */
void cli_warn_left_running(const char *cmd, const struct pms_session *ses);
/* The session's reader problems on stderr, file by file (paths[0..n)). */
void cli_session_problems(const char *cmd, const struct pms_session *ses,
			  const char *const *paths, size_t n);

/* Loss above 2 % of samples + lost, said on stderr (whatever the report's
 * form): "pmuscope: CMD: warning: lost R% of the samples (N lost, M kept)". */
void cli_warn_loss(const char *cmd, uint64_t samples, uint64_t lost);

/* JSON output: the library's writer (pmuscope/render.h, pms_json_*);
 * cli_json_finish writes a document with the meta object of the machine
 * described (the --root main sets) and says when it could not be written. */
void cli_json_set_global(const struct cli_global *g);
const struct pms_json_meta *cli_json_meta(void);
void cli_json_finish(struct pms_json *j);

#endif
