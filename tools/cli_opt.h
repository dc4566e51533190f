/* The one option parser of every pmuscope subcommand: a table of options
 * (with their help text) on top of getopt_long, so that every command takes
 * long options with '=' or a separate argument, -h/--help, and the same
 * usage-error handling (a one-line message naming the option, exit 2).
 * The same table renders the command's --help, 'pmuscope help CMD' and its
 * man page (cli_spec_man), so the three never disagree. */
#ifndef PMS_TOOLS_CLI_OPT_H
#define PMS_TOOLS_CLI_OPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

/* Exit codes of every subcommand (docs/cli.md). */
enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2 };

enum cli_arg { CLI_NOARG = no_argument, CLI_ARG = required_argument, CLI_OPTARG = optional_argument };

/* One option.  id > 0 is what cli_next returns for it: the short letter when
 * there is one, else a value >= 256.  An entry with id 0 is a section title
 * (help only).  help may hold '\n' for more lines. */
struct cli_opt {
	const char *lng;  /* long name without "--", or NULL */
	int shrt;         /* short letter, or 0 */
	enum cli_arg arg;
	const char *meta; /* argument name in help, e.g. "N" */
	int id;
	const char *help;
};

struct cli_spec {
	const char *name;        /* "report" */
	const char *synopsis;    /* lines after "pmuscope ", '\n'-separated */
	const char *description; /* paragraphs, '\n\n'-separated */
	const struct cli_opt *opts; /* ends with an all-zero entry */
	const char *footer;      /* e.g. "Exit status: ..." paragraphs, or NULL */
	/* true: stop at the first operand (a COMMAND follows); false: operands
	 * are returned in order among the options as CLI_OPERAND */
	bool stop_at_operand;
};

enum {
	CLI_OPERAND = 1,  /* with !stop_at_operand: p->arg is the operand */
	CLI_END = -1,     /* options done; operands from p->ind */
	CLI_HELP = -2,    /* --help was given and printed: exit 0 */
	CLI_USAGE = -3,   /* usage error, printed: exit 2 */
};

struct cli_parser {
	const struct cli_spec *spec;
	int argc;
	char **argv;
	int ind;          /* with CLI_END: the first operand */
	const char *arg;  /* the option's argument or the operand */
	const char *opt;  /* the option as given, for messages ("--top") */
	char optbuf[64];
	struct option lo[80];
	char so[200];
};

/* -v/--verbose and -q/--quiet, taken by every command's parser (issue 30):
 * 0 by default, +1 per -v, -1 with -q (the last given wins over earlier
 * ones).  A command's own "quiet" or "verbose" option sets it too and is
 * returned as usual; a command whose table uses the letter v or q for
 * something else keeps it, the long names still work.  -v: the details
 * (mem's engine ladder); -q: no progress line (errors and warnings
 * stay). */
extern int cli_verbosity;
#define CLI_ID_VERBOSE 0x7ff0
#define CLI_ID_QUIET 0x7ff1

void cli_parser_init(struct cli_parser *p, const struct cli_spec *spec, int argc, char **argv);
/* The next option's id, CLI_OPERAND, CLI_END, CLI_HELP or CLI_USAGE. */
int cli_next(struct cli_parser *p);
/* Exit code for a CLI_HELP / CLI_USAGE result of cli_next. */
int cli_exit_code(int r);

/* "pmuscope CMD: <message>" and the hint to 'pmuscope help CMD' on stderr;
 * returns CLI_EXIT_USAGE. */
int cli_usage(const struct cli_spec *spec, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "pmuscope CMD: --opt 'ARG': want <what>" ; returns CLI_EXIT_USAGE. */
int cli_bad_arg(const struct cli_parser *p, const char *want);

/* Strict number parsers for option arguments: 0 or -1. */
int cli_parse_long(const char *s, long lo, long hi, long *out);
int cli_parse_double(const char *s, double lo, double hi, double *out);

void cli_spec_help(const struct cli_spec *spec, FILE *f);
/* troff man page (section 1) of the command; summary: the one-line NAME. */
void cli_spec_man(const struct cli_spec *spec, const char *summary, const char *version, FILE *f);

#endif
