/* The pmuscope CLI: one file per subcommand (cmd_<name>.c), registered in
 * commands[] in main.c.  Subcommands print; the library never does. */
#ifndef PMS_TOOLS_CLI_H
#define PMS_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmuscope/sys.h"

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

/* bytes as people read them: "64 MiB", "1.5 GiB", "512 bytes" (IEC units,
 * one decimal when not whole); returns buf. */
const char *cli_human_size(uint64_t bytes, char *buf, size_t size);

/* JSON output (tools/json.c, on jansson): the calls build a tree that
 * cli_json_finish writes to f and releases. */
struct json_t;
struct json {
	FILE *f;
	int depth;
	struct json_t *stack[64];
	struct json_t *root;
	/* true: one indented document with schema_version and the "pmuscope"
	 * producer object first; false: one compact line as it was built */
	bool pretty;
	bool big; /* a u64 beyond long long was written (json.c) */
};
/* The --root the producer object describes (main sets it). */
void cli_json_set_global(const struct cli_global *g);
void cli_json_init(struct json *j, FILE *f);
void cli_json_begin_object(struct json *j, const char *key);
void cli_json_end_object(struct json *j);
void cli_json_begin_array(struct json *j, const char *key);
void cli_json_end_array(struct json *j);
void cli_json_str(struct json *j, const char *key, const char *val); /* NULL -> null */
void cli_json_int(struct json *j, const char *key, long long val);
void cli_json_uint(struct json *j, const char *key, unsigned long long val);
void cli_json_bool(struct json *j, const char *key, bool val);
void cli_json_double(struct json *j, const char *key, double val);
void cli_json_null(struct json *j, const char *key);
/* One flat JSON object per line (JSON Lines rows), the text the tree's
 * compact dump would write, built in r's buffer (json.c). */
struct json_row {
	char b[8192];
	size_t n;
};
void cli_jrow_begin(struct json_row *r);
void cli_jrow_str(struct json_row *r, const char *key, const char *val); /* NULL -> null */
void cli_jrow_uint(struct json_row *r, const char *key, unsigned long long val);
void cli_jrow_int(struct json_row *r, const char *key, long long val);
/* A value already in JSON (len bytes), e.g. one quoted once by
 * cli_json_quote (s as a JSON string, NUL-terminated in out; its length). */
void cli_jrow_raw(struct json_row *r, const char *key, const char *json, size_t len);
size_t cli_json_quote(const char *s, char *out, size_t size);
void cli_jrow_hex(struct json_row *r, const char *key, unsigned long long val); /* "0x..." */
void cli_jrow_null(struct json_row *r, const char *key);
void cli_jrow_end(struct json_row *r, FILE *f); /* "}\n" and the line out */
/* Text already in JSON (a key quoted once with its ',' and ':', a value),
 * cut at the row's end as every cli_jrow_* is; "}\n" ending the row in
 * r->b, its length returned, for a caller that writes many rows at once. */
void cli_jrow_text(struct json_row *r, const char *text, size_t len);
size_t cli_jrow_close(struct json_row *r);
void cli_json_finish(struct json *j); /* writes, newline, releases the tree */

#endif
