/* Every stream and file the CLI writes (output-file policy is CLI policy).
 *
 * Standard output is a checked stream: main() installs it before a command
 * runs and finishes it after, so every command's printf/fputs/fwrite goes
 * through one buffered writer that keeps the first write error (its errno).
 * EPIPE (a reader that went away) is quiet and keeps the status, as perf
 * does for pipes; any other error names "standard output" and its errno and
 * the exit status becomes CLI_EXIT_IO.
 *
 * Output files (--html, --pprof, --report-file, --folded FILE, stat -o, and
 * the perf.data of -o) are created new, never written through a name that
 * already exists:
 *  - CLI_OUT_REPLACE: a temporary file made with O_CREAT|O_EXCL (so never a
 *    symlink, never another user's file), mode 0600, in the target's
 *    directory; cli_out_commit() flushes, fsyncs and closes it, then renames
 *    it over the target (a symlink there is replaced, not followed).
 *    Nothing is left under the target's name when writing fails.
 *  - CLI_OUT_PERFDATA: perf record's rule for a file that is written while
 *    the measurement runs (a SIGKILL must leave a readable file there): an
 *    existing target (file or symlink) is renamed to TARGET.old, then TARGET
 *    is created O_EXCL|O_NOFOLLOW, 0600.
 *  - CLI_OUT_APPEND: stat --append: the caller's own regular file, opened
 *    O_APPEND|O_NOFOLLOW (created as CLI_OUT_PERFDATA when absent).
 * An existing character device or FIFO (/dev/null, /dev/full, a named pipe)
 * is written in place; a symlink to one (/dev/stdout) is followed only
 * where fs.protected_symlinks would follow it.  Every failure names the
 * option, the path and the errno; the exit status is CLI_EXIT_IO for a file
 * that cannot be created (before anything runs) and for one that could not
 * be written (write, flush, fsync, close or rename failed), 1 for a file
 * refused by the rules above (stat --append onto a link or another user's
 * file). */
#ifndef PMS_TOOLS_CLI_OUT_H
#define PMS_TOOLS_CLI_OUT_H

#include <stdbool.h>
#include <stdio.h>

struct sink;

#define CLI_EXIT_IO 74 /* EX_IOERR */

enum cli_out_mode { CLI_OUT_REPLACE, CLI_OUT_PERFDATA, CLI_OUT_APPEND };

struct cli_out {
	const char *cmd, *opt; /* "mem", "--html": for messages */
	char *path;            /* the target */
	char *tmp;             /* CLI_OUT_REPLACE: the temporary name (NULL: in place) */
	int fd;                /* -1: not open */
	FILE *f;               /* cli_out_stream(): a checked stream on fd */
	struct sink *sink;     /* ... its writer (cli_out.c) */
	int err;               /* first error of cli_out_write (errno), 0 none */
	bool created;          /* CLI_OUT_PERFDATA: made under the target's name */
	bool done;
};

/* main(): standard output through the checked writer. */
void cli_stdout_init(void);
/* main(): flush standard output and check it; returns status, or
 * CLI_EXIT_IO after naming the error (EPIPE: status, quietly). */
int cli_stdout_finish(const char *cmd, int status);
/* Whether standard output has failed so far (EPIPE included). */
bool cli_stdout_failed(void);

/* Open o for path (NULL path: o stays closed, returns 0).  Returns 0, or
 * CLI_EXIT_IO (the system refused) or 1 (refused by the rules) after
 * printing "pmuscope: CMD: OPT PATH: why". */
int cli_out_open(struct cli_out *o, const char *cmd, const char *opt, const char *path,
		 enum cli_out_mode mode);
/* A buffered stream on o whose write errors are kept in o->err (NULL after
 * printing why when it cannot be made). */
FILE *cli_out_stream(struct cli_out *o);
/* The renderers print on stdout: point it at `to` (a report file, or stderr
 * for the text report of a COMMAND, docs/cli.md), the old stream flushed
 * first; returns the stream to put back with the same call. */
FILE *cli_stdout_to(FILE *to);
/* Write len bytes, checked (the stream when there is one). */
int cli_out_write(struct cli_out *o, const void *buf, size_t len);
/* Finish o: flush, fsync, close, rename into place.  0, or CLI_EXIT_IO after
 * naming the path and the errno (the temporary file is removed).  A closed o
 * (no path) gives 0. */
int cli_out_commit(struct cli_out *o);
/* Give o up (an error elsewhere): close it and remove its temporary file
 * (a perf.data file made under the target's name is removed while still
 * empty, kept once it has records).  Safe after commit and on a closed o. */
void cli_out_abandon(struct cli_out *o);
/* Give o up and remove what it made, whatever it holds (a perf.data whose
 * header could not be written). */
void cli_out_remove(struct cli_out *o);
/* Print "pmuscope: CMD: writing PATH: strerror(err)" and return CLI_EXIT_IO. */
int cli_out_fail(const struct cli_out *o, int err);

#endif
