/* The shared option parser and help/man renderer (cli_opt.h). */
#include "cli_opt.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cli_verbosity;

/* The spec's own entry for a long name or a short letter, or NULL. */
static const struct cli_opt *own_opt(const struct cli_spec *spec, const char *lng, int shrt)
{
	for (const struct cli_opt *o = spec->opts; o && (o->lng || o->shrt || o->help); o++)
		if (o->id && ((lng && o->lng && !strcmp(o->lng, lng)) || (shrt && o->shrt == shrt)))
			return o;
	return NULL;
}

/* The generic -v / -q of every command, where the spec has no entry of
 * its own for the name or the letter. */
static void add_generic(struct cli_parser *p, size_t *nl, size_t *ns, const char *lng, int shrt,
			int id)
{
	if (!own_opt(p->spec, lng, 0))
		p->lo[(*nl)++] = (struct option){ lng, no_argument, NULL, id };
	if (!own_opt(p->spec, NULL, shrt))
		p->so[(*ns)++] = (char)shrt;
}

void cli_parser_init(struct cli_parser *p, const struct cli_spec *spec, int argc, char **argv)
{
	size_t nl = 0, ns = 0;
	memset(p, 0, sizeof(*p));
	p->spec = spec;
	p->argc = argc;
	p->argv = argv;
	p->so[ns++] = spec->stop_at_operand ? '+' : '-';
	p->so[ns++] = ':';
	p->so[ns++] = 'h';
	p->lo[nl++] = (struct option){ "help", no_argument, NULL, 'h' };
	add_generic(p, &nl, &ns, "verbose", 'v', CLI_ID_VERBOSE);
	add_generic(p, &nl, &ns, "quiet", 'q', CLI_ID_QUIET);
	for (const struct cli_opt *o = spec->opts; o && (o->lng || o->shrt || o->help); o++) {
		if (!o->id)
			continue;
		if (o->lng && nl + 2 < sizeof(p->lo) / sizeof(p->lo[0]))
			p->lo[nl++] = (struct option){ o->lng, (int)o->arg, NULL, o->id };
		if (o->shrt && ns + 4 < sizeof(p->so)) {
			p->so[ns++] = (char)o->shrt;
			if (o->arg != CLI_NOARG)
				p->so[ns++] = ':';
			if (o->arg == CLI_OPTARG)
				p->so[ns++] = ':';
		}
	}
	p->so[ns] = 0;
	p->lo[nl] = (struct option){ NULL, 0, NULL, 0 };
	optind = 0; /* full re-initialisation of getopt (glibc) */
	opterr = 0;
}

int cli_next(struct cli_parser *p)
{
	int c, li = -1;
again:
	li = -1;
	c = getopt_long(p->argc, p->argv, p->so, p->lo, &li);
	if (c == 'v' && !own_opt(p->spec, NULL, 'v'))
		c = CLI_ID_VERBOSE;
	if (c == 'q' && !own_opt(p->spec, NULL, 'q'))
		c = CLI_ID_QUIET;
	if (c == CLI_ID_VERBOSE || c == CLI_ID_QUIET) {
		cli_verbosity = c == CLI_ID_QUIET ? -1 : cli_verbosity < 0 ? 1 : cli_verbosity + 1;
		goto again;
	}
	p->ind = optind;
	p->arg = optarg;
	p->opt = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "";
	if (c == -1)
		return CLI_END;
	if (c == 1)
		return CLI_OPERAND;
	if (c == 'h') {
		cli_spec_help(p->spec, stdout);
		return CLI_HELP;
	}
	if (c == '?' || c == ':') {
		const char *given = p->argv[optind - 1];
		const char *what = c == ':' ? "needs an argument" : "is not an option of this command";
		if (optopt && !(given[0] == '-' && given[1] == '-')) {
			if (c == '?' && strlen(given) > 2)
				cli_usage(p->spec, "'%s': -%c %s", given, optopt, what);
			else
				cli_usage(p->spec, "'-%c' %s", optopt, what);
		} else if (c == '?' && given[0] == '-' && given[1] == '-' && strchr(given, '=') &&
			   optopt) {
			cli_usage(p->spec, "'%s': this option takes no argument", given);
		} else if (c == '?' && given[0] == '-' && given[1] == '-' && given[2]) {
			/* a prefix of several long options (getopt_long accepts a unique one) */
			char names[256] = "";
			size_t len = strcspn(given + 2, "="), nn = 0, nm = 0;
			for (const struct option *o = p->lo; o->name; o++)
				if (!strncmp(o->name, given + 2, len) && nn + strlen(o->name) + 5 < sizeof(names)) {
					nn += (size_t)snprintf(names + nn, sizeof(names) - nn, "%s--%s",
							       nm ? ", " : "", o->name);
					nm++;
				}
			if (nm > 1)
				cli_usage(p->spec, "'%s' is ambiguous: %s", given, names);
			else
				cli_usage(p->spec, "'%s' %s", given, what);
		} else {
			cli_usage(p->spec, "'%s' %s", given, what);
		}
		return CLI_USAGE;
	}
	if (li >= 0) {
		snprintf(p->optbuf, sizeof(p->optbuf), "--%s", p->lo[li].name);
	} else {
		snprintf(p->optbuf, sizeof(p->optbuf), "-%c", c);
		/* a short letter stands for its entry's id (-j = --json) */
		for (const struct cli_opt *o = p->spec->opts; o && (o->lng || o->shrt || o->help); o++)
			if (o->id && o->shrt == c) {
				c = o->id;
				break;
			}
	}
	p->opt = p->optbuf;
	if (li >= 0 && !strcmp(p->lo[li].name, "quiet"))
		cli_verbosity = -1;
	else if (li >= 0 && !strcmp(p->lo[li].name, "verbose"))
		cli_verbosity = cli_verbosity < 0 ? 1 : cli_verbosity + 1;
	return c;
}

int cli_exit_code(int r)
{
	return r == CLI_HELP ? CLI_EXIT_OK : r == CLI_USAGE ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
}

int cli_usage(const struct cli_spec *spec, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "pmuscope: %s: ", spec->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'pmuscope help %s')\n", spec->name);
	return CLI_EXIT_USAGE;
}

int cli_bad_arg(const struct cli_parser *p, const char *want)
{
	return cli_usage(p->spec, "%s '%s': want %s", p->opt, p->arg ? p->arg : "", want);
}

int cli_parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;
	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;
	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* "-p, --pid PID" / "    --top N" / "-x SEP" */
static int opt_label(const struct cli_opt *o, char *buf, size_t n)
{
	const char *sep = o->arg == CLI_OPTARG ? "[=" : " ";
	const char *end = o->arg == CLI_OPTARG ? "]" : "";
	const char *meta = o->arg != CLI_NOARG && o->meta ? o->meta : NULL;
	if (o->shrt && o->lng)
		return snprintf(buf, n, "-%c, --%s%s%s%s", o->shrt, o->lng, meta ? sep : "",
				meta ? meta : "", meta ? end : "");
	if (o->shrt)
		return snprintf(buf, n, "-%c%s%s", o->shrt, meta ? " " : "", meta ? meta : "");
	return snprintf(buf, n, "    --%s%s%s%s", o->lng, meta ? sep : "", meta ? meta : "",
			meta ? end : "");
}

void cli_spec_help(const struct cli_spec *s, FILE *f)
{
	const char *l = s->synopsis;
	bool first = true;
	while (l && *l) {
		const char *e = strchr(l, '\n');
		int len = e ? (int)(e - l) : (int)strlen(l);
		if (*l == ' ') /* a continuation, aligned in the text itself */
			fprintf(f, "%.*s\n", len, l);
		else
			fprintf(f, "%s pmuscope %.*s\n", first ? "usage:" : "      ", len, l);
		first = false;
		l = e ? e + 1 : l + len;
	}
	if (s->description)
		fprintf(f, "\n%s\n", s->description);
	fputc('\n', f);
	if (s->opts && s->opts[0].id)
		fprintf(f, "Options:\n");
	for (const struct cli_opt *o = s->opts; o && (o->lng || o->shrt || o->help); o++) {
		char lab[96];
		int w;
		if (!o->id) {
			fprintf(f, "%s\n", o->help);
			continue;
		}
		if (!o->help)
			continue; /* internal option */
		w = opt_label(o, lab, sizeof(lab));
		fprintf(f, "  %s", lab);
		const char *h = o->help;
		if (w > 20) { /* at least two spaces before the text */
			fprintf(f, "\n%24s", "");
		} else {
			fprintf(f, "%*s", 22 - w, "");
		}
		while (*h) {
			const char *e = strchr(h, '\n');
			int len = e ? (int)(e - h) : (int)strlen(h);
			fprintf(f, "%.*s\n", len, h);
			if (!e)
				break;
			h = e + 1;
			if (*h)
				fprintf(f, "%24s", "");
		}
	}
	if (!own_opt(s, "verbose", 0))
		fprintf(f, "  -v, --verbose         more detail (the engine ladder's attempts ...)\n");
	if (!own_opt(s, "quiet", 0))
		fprintf(f, "  -q, --quiet           no progress line\n");
	fprintf(f, "  -h, --help            this text (also 'pmuscope help %s')\n", s->name);
	if (s->footer)
		fprintf(f, "\n%s\n", s->footer);
}

/* Text for troff: a leading '.' or '\'' guarded, '\' and '-' escaped. */
static void man_text(FILE *f, const char *s, size_t len)
{
	bool bol = true;
	for (size_t i = 0; i < len && s[i]; i++) {
		char c = s[i];
		if (bol && (c == '.' || c == '\''))
			fputs("\\&", f);
		bol = c == '\n';
		if (c == '\\')
			fputs("\\e", f);
		else if (c == '-')
			fputs("\\-", f);
		else
			fputc(c, f);
	}
}

static void man_paragraphs(FILE *f, const char *s)
{
	while (s && *s) {
		const char *e = strstr(s, "\n\n");
		size_t len = e ? (size_t)(e - s) : strlen(s);
		/* indented lines (tables, examples) are kept as they are */
		bool pre = memchr(s, '\n', len) && strstr(s, "\n  ") && strstr(s, "\n  ") < s + len;
		fputs(pre ? ".PP\n.nf\n" : ".PP\n", f);
		man_text(f, s, len);
		fputs(pre ? "\n.fi\n" : "\n", f);
		s = e ? e + 2 : s + len;
	}
}

void cli_spec_man(const struct cli_spec *s, const char *summary, const char *version, FILE *f)
{
	char up[64];
	size_t i;
	for (i = 0; s->name[i] && i + 1 < sizeof(up); i++)
		up[i] = (char)(s->name[i] >= 'a' && s->name[i] <= 'z' ? s->name[i] - 32 : s->name[i]);
	up[i] = 0;
	fprintf(f, ".\\\" Generated from 'pmuscope %s --help' (tools/cli_opt.c); do not edit.\n", s->name);
	fprintf(f, ".TH PMUSCOPE-%s 1 \"\" \"pmuscope %s\" \"pmuscope manual\"\n", up, version);
	fputs(".SH NAME\npmuscope\\-", f);
	man_text(f, s->name, strlen(s->name));
	fputs(" \\- ", f);
	man_text(f, summary, strlen(summary));
	fputs("\n.SH SYNOPSIS\n.nf\n", f);
	for (const char *l = s->synopsis; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		if (*l == ' ') {
			while (len && *l == ' ') {
				l++;
				len--;
			}
			fputs("    ", f);
		} else {
			fputs("\\fBpmuscope\\fR ", f);
		}
		man_text(f, l, len);
		fputc('\n', f);
		l = e ? e + 1 : l + len;
	}
	fputs(".fi\n.SH DESCRIPTION\n", f);
	man_paragraphs(f, s->description);
	fputs(".SH OPTIONS\n", f);
	for (const struct cli_opt *o = s->opts; o && (o->lng || o->shrt || o->help); o++) {
		char lab[96];
		if (!o->id) {
			fputs(".SS ", f);
			man_text(f, o->help, strlen(o->help));
			fputc('\n', f);
			continue;
		}
		if (!o->help)
			continue;
		opt_label(o, lab, sizeof(lab));
		fputs(".TP\n.B ", f);
		const char *lb = lab;
		while (*lb == ' ')
			lb++;
		man_text(f, lb, strlen(lb));
		fputc('\n', f);
		man_text(f, o->help, strlen(o->help));
		fputc('\n', f);
	}
	if (!own_opt(s, "verbose", 0))
		fputs(".TP\n.B \\-v, \\-\\-verbose\nmore detail (the engine ladder's attempts ...)\n", f);
	if (!own_opt(s, "quiet", 0))
		fputs(".TP\n.B \\-q, \\-\\-quiet\nno progress line\n", f);
	fputs(".TP\n.B \\-h, \\-\\-help\nprint this help\n", f);
	if (s->footer) {
		fputs(".SH NOTES\n", f);
		man_paragraphs(f, s->footer);
	}
	fputs(".SH SEE ALSO\n.BR pmuscope (1),\n.BR perf (1)\n", f);
}
