/* JSON output of every subcommand, written with jansson (already linked for
 * the catalogs) rather than by hand: the cli_json_* calls build a tree that
 * cli_json_finish dumps.  Strings that are not valid UTF-8 (an argv byte
 * 0xff) are repaired with U+FFFD; reals are printed with 10 significant
 * digits; non-finite reals are null.  Every pretty (one-document) output
 * starts with schema_version and a "pmuscope" object: version, host,
 * kernel, CPU model (docs/cli.md). */
#include "cli.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/error.h"
#include "pmuscope/topo.h"
#include "version.h"

static const struct cli_global *meta_global;

void cli_json_set_global(const struct cli_global *g)
{
	meta_global = g;
}

void cli_json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = true;
}

/* Length of the valid UTF-8 sequence at p (1..4), 0 when invalid (RFC 3629:
 * no overlongs, no surrogates, nothing past U+10FFFF). */
static size_t utf8_seq(const unsigned char *p)
{
	unsigned c = p[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f))
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
			return 0;
		return 4;
	}
	return 0;
}

/* A jansson string of s, invalid bytes each replaced by U+FFFD. */
static json_t *jstring(const char *s)
{
	json_t *v = json_string(s);
	size_t n, o = 0;
	char *b;
	if (v)
		return v;
	n = strlen(s);
	b = malloc(3 * n + 1);
	if (!b)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t k = utf8_seq(p);
		if (k) {
			memcpy(b + o, p, k);
			o += k;
			p += k;
		} else {
			memcpy(b + o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
		}
	}
	b[o] = 0;
	v = json_string(b);
	free(b);
	return v;
}

/* Attach v under key (objects) or at the end (arrays); the root otherwise. */
static void add(struct json *j, const char *key, json_t *v)
{
	json_t *parent = j->depth > 0 ? j->stack[j->depth - 1] : NULL;
	if (!v)
		v = json_null(); /* out of memory: keep the document's shape */
	if (!parent) {
		if (j->root)
			json_decref(j->root);
		j->root = json_incref(v);
	} else if (json_is_object(parent)) {
		json_t *k = jstring(key ? key : "");
		json_object_set(parent, k ? json_string_value(k) : "", v);
		json_decref(k);
	} else {
		json_array_append(parent, v);
	}
}

static void begin(struct json *j, const char *key, json_t *c)
{
	add(j, key, c);
	if (j->depth < (int)(sizeof(j->stack) / sizeof(j->stack[0])))
		j->stack[j->depth++] = c;
	json_decref(c); /* held by its parent (or j->root) */
}

void cli_json_begin_object(struct json *j, const char *key)
{
	begin(j, key, json_object());
}

void cli_json_end_object(struct json *j)
{
	if (j->depth > 0)
		j->depth--;
}

void cli_json_begin_array(struct json *j, const char *key)
{
	begin(j, key, json_array());
}

void cli_json_end_array(struct json *j)
{
	if (j->depth > 0)
		j->depth--;
}

static void put(struct json *j, const char *key, json_t *v)
{
	add(j, key, v);
	json_decref(v);
}

void cli_json_str(struct json *j, const char *k, const char *v)
{
	put(j, k, v ? jstring(v) : json_null());
}

void cli_json_int(struct json *j, const char *k, long long v)
{
	put(j, k, json_integer(v));
}

/* jansson's integers are long long: a larger u64 (a config word with bit 63)
 * goes in as a marked string that cli_json_finish turns back into the exact
 * number in the text jansson wrote. */
#define BIG_MARK "\x01u64:"
#define BIG_MARK_DUMPED "\"\\u0001u64:"

void cli_json_uint(struct json *j, const char *k, unsigned long long v)
{
	char b[40];
	if (v <= (unsigned long long)LLONG_MAX) {
		put(j, k, json_integer((json_int_t)v));
		return;
	}
	snprintf(b, sizeof(b), BIG_MARK "%llu", v);
	j->big = true;
	put(j, k, json_string(b));
}

/* The dumped text with each "\u0001u64:DIGITS" string made the bare number. */
static void write_unmarked(FILE *f, const char *text)
{
	const char *p = text, *m;
	size_t ml = strlen(BIG_MARK_DUMPED);
	while ((m = strstr(p, BIG_MARK_DUMPED))) {
		const char *d = m + ml, *e = d;
		while (*e >= '0' && *e <= '9')
			e++;
		fwrite(p, 1, (size_t)(m - p), f);
		if (*e == '"') {
			fwrite(d, 1, (size_t)(e - d), f);
			p = e + 1;
		} else { /* not ours after all: keep it */
			fwrite(m, 1, ml, f);
			p = m + ml;
		}
	}
	fputs(p, f);
}

void cli_json_bool(struct json *j, const char *k, bool v)
{
	put(j, k, json_boolean(v));
}

void cli_json_double(struct json *j, const char *k, double v)
{
	put(j, k, isfinite(v) ? json_real(v) : json_null());
}

void cli_json_null(struct json *j, const char *k)
{
	put(j, k, json_null());
}

/* {"version", "host", "kernel", "cpu_model"} of the machine described:
 * this one, or the --root snapshot's files. */
static json_t *meta(void)
{
	json_t *m = json_object();
	struct pms_sys *sys = NULL;
	struct pms_topo *topo = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	struct pms_host_facts h = { 0 };
	if (!m)
		return NULL;
	json_object_set_new(m, "version", json_string(pms_version()));
	o.root = meta_global ? meta_global->root : NULL;
	if (pms_sys_new(&sys, &o) == 0) {
		(void)pms_host_facts_read(sys, &h);
		if (pms_topo_load(sys, &topo) < 0)
			topo = NULL;
	}
	pms_error_clear();
	json_object_set_new(m, "host", h.has_hostname ? jstring(h.hostname) : json_null());
	json_object_set_new(m, "kernel", h.has_osrelease ? jstring(h.osrelease) : json_null());
	json_object_set_new(m, "cpu_model",
			    topo && topo->model_name ? jstring(topo->model_name) : json_null());
	pms_topo_free(topo);
	pms_sys_free(sys);
	return m;
}

void cli_json_finish(struct json *j)
{
	static json_t *cached_meta;
	json_t *out = j->root;
	size_t flags = JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10) |
		       (j->pretty ? JSON_INDENT(2) : JSON_COMPACT);
	if (!out)
		return;
	if (j->pretty && json_is_object(out)) {
		/* schema_version and the producer first, then the document */
		json_t *doc = json_object();
		if (!cached_meta)
			cached_meta = meta();
		if (doc) {
			json_object_set_new(doc, "schema_version", json_integer(1));
			if (cached_meta)
				json_object_set(doc, "pmuscope", cached_meta);
			json_object_update(doc, out);
			out = doc;
		} else {
			json_incref(out);
		}
	} else {
		json_incref(out);
	}
	if (j->big) {
		char *text = json_dumps(out, flags);
		if (text)
			write_unmarked(j->f, text);
		else
			fprintf(stderr, "pmuscope: writing JSON failed\n");
		free(text);
	} else if (json_dumpf(out, j->f, flags) < 0) {
		fprintf(stderr, "pmuscope: writing JSON failed\n");
	}
	fputc('\n', j->f);
	json_decref(out);
	json_decref(j->root);
	j->root = NULL;
	j->depth = 0;
	j->big = false;
}

/* ---- flat rows --------------------------------------------------------------
 * One flat object per line written straight into a buffer: the same text as
 * the tree's compact dump (jansson's escapes, invalid UTF-8 as U+FFFD), for
 * JSON Lines of millions of rows, where a tree per row was most of the time. */
static void row_raw(struct json_row *r, const char *s, size_t n)
{
	if (r->n + n + 4 > sizeof(r->b)) /* room for "}\n" stays */
		n = r->n + 4 < sizeof(r->b) ? sizeof(r->b) - 4 - r->n : 0;
	memcpy(r->b + r->n, s, n);
	r->n += n;
}

static void row_quoted(struct json_row *r, const char *s)
{
	row_raw(r, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		const char *run = (const char *)p;
		while (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			p++;
		row_raw(r, run, (size_t)((const char *)p - run));
		if (!*p)
			break;
		char e[8];
		size_t k;
		switch (*p) {
		case '"': row_raw(r, "\\\"", 2); p++; continue;
		case '\\': row_raw(r, "\\\\", 2); p++; continue;
		case '\b': row_raw(r, "\\b", 2); p++; continue;
		case '\f': row_raw(r, "\\f", 2); p++; continue;
		case '\n': row_raw(r, "\\n", 2); p++; continue;
		case '\r': row_raw(r, "\\r", 2); p++; continue;
		case '\t': row_raw(r, "\\t", 2); p++; continue;
		default: break;
		}
		if (*p < 0x20) {
			snprintf(e, sizeof(e), "\\u%04X", *p);
			row_raw(r, e, 6);
			p++;
		} else if ((k = utf8_seq(p))) {
			row_raw(r, (const char *)p, k);
			p += k;
		} else {
			row_raw(r, "\xef\xbf\xbd", 3);
			p++;
		}
	}
	row_raw(r, "\"", 1);
}

static void row_key(struct json_row *r, const char *k)
{
	if (r->n > 1)
		row_raw(r, ",", 1);
	row_quoted(r, k);
	row_raw(r, ":", 1);
}

void cli_jrow_begin(struct json_row *r)
{
	r->b[0] = '{';
	r->n = 1;
}

void cli_jrow_str(struct json_row *r, const char *k, const char *v)
{
	row_key(r, k);
	if (v)
		row_quoted(r, v);
	else
		row_raw(r, "null", 4);
}

void cli_jrow_uint(struct json_row *r, const char *k, unsigned long long v)
{
	char t[24];
	size_t n = sizeof(t);
	do {
		t[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	row_key(r, k);
	row_raw(r, t + n, sizeof(t) - n);
}

void cli_jrow_hex(struct json_row *r, const char *k, unsigned long long v)
{
	char t[24];
	size_t n = sizeof(t);
	t[--n] = '"';
	do {
		t[--n] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	t[--n] = 'x';
	t[--n] = '0';
	t[--n] = '"';
	row_key(r, k);
	row_raw(r, t + n, sizeof(t) - n);
}

void cli_jrow_raw(struct json_row *r, const char *k, const char *json, size_t len)
{
	row_key(r, k);
	row_raw(r, json, len);
}

size_t cli_json_quote(const char *s, char *out, size_t size)
{
	struct json_row *t = malloc(sizeof(*t));
	size_t n = 0;
	if (!t || !size) {
		free(t);
		return 0;
	}
	t->n = 0;
	row_quoted(t, s);
	n = t->n < size - 1 ? t->n : size - 1;
	memcpy(out, t->b, n);
	out[n] = 0;
	free(t);
	return n;
}

void cli_jrow_int(struct json_row *r, const char *k, long long v)
{
	if (v >= 0) {
		cli_jrow_uint(r, k, (unsigned long long)v);
		return;
	}
	char t[24];
	int n = snprintf(t, sizeof(t), "%lld", v);
	row_key(r, k);
	row_raw(r, t, (size_t)n);
}

void cli_jrow_null(struct json_row *r, const char *k)
{
	row_key(r, k);
	row_raw(r, "null", 4);
}

void cli_jrow_text(struct json_row *r, const char *text, size_t len)
{
	row_raw(r, text, len);
}

size_t cli_jrow_close(struct json_row *r)
{
	r->b[r->n++] = '}';
	r->b[r->n++] = '\n';
	return r->n;
}

void cli_jrow_end(struct json_row *r, FILE *f)
{
	fwrite(r->b, 1, cli_jrow_close(r), f);
}
