#include "cli.h"

#include <math.h>

void cli_json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->need_comma[0] = false;
	j->pretty = true;
}

static void indent(struct json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void key(struct json *j, const char *k)
{
	if (j->depth > 0) {
		if (j->need_comma[j->depth])
			fputc(',', j->f);
		indent(j);
	}
	j->need_comma[j->depth] = true;
	if (k) {
		put_string(j->f, k);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

void cli_json_begin_object(struct json *j, const char *k)
{
	key(j, k);
	fputc('{', j->f);
	if (j->depth < 63)
		j->depth++;
	j->need_comma[j->depth] = false;
}

void cli_json_end_object(struct json *j)
{
	bool had = j->need_comma[j->depth];
	j->depth--;
	if (had)
		indent(j);
	fputc('}', j->f);
}

void cli_json_begin_array(struct json *j, const char *k)
{
	key(j, k);
	fputc('[', j->f);
	if (j->depth < 63)
		j->depth++;
	j->need_comma[j->depth] = false;
}

void cli_json_end_array(struct json *j)
{
	bool had = j->need_comma[j->depth];
	j->depth--;
	if (had)
		indent(j);
	fputc(']', j->f);
}

void cli_json_str(struct json *j, const char *k, const char *v)
{
	key(j, k);
	if (v)
		put_string(j->f, v);
	else
		fputs("null", j->f);
}

void cli_json_int(struct json *j, const char *k, long long v)
{
	key(j, k);
	fprintf(j->f, "%lld", v);
}

void cli_json_uint(struct json *j, const char *k, unsigned long long v)
{
	key(j, k);
	fprintf(j->f, "%llu", v);
}

void cli_json_bool(struct json *j, const char *k, bool v)
{
	key(j, k);
	fputs(v ? "true" : "false", j->f);
}

void cli_json_double(struct json *j, const char *k, double v)
{
	key(j, k);
	if (isfinite(v))
		fprintf(j->f, "%.17g", v);
	else
		fputs("null", j->f);
}

void cli_json_null(struct json *j, const char *k)
{
	key(j, k);
	fputs("null", j->f);
}

void cli_json_finish(struct json *j)
{
	fputc('\n', j->f);
}
