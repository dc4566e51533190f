/* JSON output of every subcommand, written with jansson (already linked for
 * the catalogs) rather than by hand: the pms_json_* calls build a tree that
 * pms_json_finish dumps.  Strings that are not valid UTF-8 (an argv byte
 * 0xff) are repaired with U+FFFD; reals are printed with 10 significant
 * digits; non-finite reals are null.  Every pretty (one-document) output
 * starts with schema_version and the caller's "pmuscope" object: version,
 * host, kernel, CPU model (docs/cli.md; pms_json_meta_read). */
#include "pmuscope/render.h"

#include <jansson.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/error.h"
#include "pmuscope/topo.h"
#include "util/error.h"
#include "version.h"
#include "render_int.h"

void pms_json_init(struct pms_json *j, FILE *f)
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
static void add(struct pms_json *j, const char *key, json_t *v)
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

static void begin(struct pms_json *j, const char *key, json_t *c)
{
	add(j, key, c);
	if (j->depth < (int)(sizeof(j->stack) / sizeof(j->stack[0])))
		j->stack[j->depth++] = c;
	json_decref(c); /* held by its parent (or j->root) */
}

void pms_json_begin_object(struct pms_json *j, const char *key)
{
	begin(j, key, json_object());
}

void pms_json_end_object(struct pms_json *j)
{
	if (j->depth > 0)
		j->depth--;
}

void pms_json_begin_array(struct pms_json *j, const char *key)
{
	begin(j, key, json_array());
}

void pms_json_end_array(struct pms_json *j)
{
	if (j->depth > 0)
		j->depth--;
}

static void put(struct pms_json *j, const char *key, json_t *v)
{
	add(j, key, v);
	json_decref(v);
}

void pms_json_str(struct pms_json *j, const char *k, const char *v)
{
	put(j, k, v ? jstring(v) : json_null());
}

void pms_json_int(struct pms_json *j, const char *k, long long v)
{
	put(j, k, json_integer(v));
}

/* jansson's integers are long long: a larger u64 (a config word with bit 63)
 * goes in as a marked string that pms_json_finish turns back into the exact
 * number in the text jansson wrote. */
#define BIG_MARK "\x01u64:"
#define BIG_MARK_DUMPED "\"\\u0001u64:"

void pms_json_uint(struct pms_json *j, const char *k, unsigned long long v)
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

void pms_json_bool(struct pms_json *j, const char *k, bool v)
{
	put(j, k, json_boolean(v));
}

void pms_json_double(struct pms_json *j, const char *k, double v)
{
	put(j, k, isfinite(v) ? json_real(v) : json_null());
}

void pms_json_null(struct pms_json *j, const char *k)
{
	put(j, k, json_null());
}

void pms_json_hex(struct pms_json *j, const char *key, bool valid, uint64_t v)
{
	char b[24];
	if (!valid) {
		pms_json_null(j, key);
		return;
	}
	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	pms_json_str(j, key, b);
}

void pms_json_meta_read(struct pms_sys *sys, struct pms_json_meta *m)
{
	struct pms_topo *topo = NULL;
	struct pms_host_facts h = { 0 };
	memset(m, 0, sizeof(*m));
	snprintf(m->version, sizeof(m->version), "%s", pms_version());
	if (sys) {
		(void)pms_host_facts_read(sys, &h);
		if (pms_topo_load(sys, &topo) < 0)
			topo = NULL;
	}
	pms_error_clear();
	if ((m->has_host = h.has_hostname))
		snprintf(m->host, sizeof(m->host), "%s", h.hostname);
	if ((m->has_kernel = h.has_osrelease))
		snprintf(m->kernel, sizeof(m->kernel), "%s", h.osrelease);
	if ((m->has_cpu_model = pms_topo_model_name(topo) != NULL))
		snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", pms_topo_model_name(topo));
	pms_topo_free(topo);
}

/* {"version", "host", "kernel", "cpu_model"} of the caller's meta. */
static json_t *meta(const struct pms_json_meta *mt)
{
	json_t *m = json_object();
	if (!m)
		return NULL;
	json_object_set_new(m, "version", json_string(mt->version));
	json_object_set_new(m, "host", mt->has_host ? jstring(mt->host) : json_null());
	json_object_set_new(m, "kernel", mt->has_kernel ? jstring(mt->kernel) : json_null());
	json_object_set_new(m, "cpu_model",
			    mt->has_cpu_model ? jstring(mt->cpu_model) : json_null());
	return m;
}

int pms_json_finish(struct pms_json *j)
{
	json_t *out = j->root, *m = NULL;
	size_t flags = JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10) |
		       (j->pretty ? JSON_INDENT(2) : JSON_COMPACT);
	int rc = 0;
	if (!out)
		return 0;
	if (j->pretty && json_is_object(out)) {
		/* schema_version and the producer first, then the document */
		json_t *doc = json_object();
		if (j->meta)
			m = meta(j->meta);
		if (doc) {
			json_object_set_new(doc, "schema_version", json_integer(1));
			if (m)
				json_object_set(doc, "pmuscope", m);
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
			rc = pms_err(PMS_EIO, "writing JSON failed");
		free(text);
	} else if (json_dumpf(out, j->f, flags) < 0) {
		rc = pms_err(PMS_EIO, "writing JSON failed");
	}
	fputc('\n', j->f);
	json_decref(m);
	json_decref(out);
	json_decref(j->root);
	j->root = NULL;
	j->depth = 0;
	j->big = false;
	return rc;
}

/* ---- flat rows --------------------------------------------------------------
 * One flat object per line written straight into a buffer: the same text as
 * the tree's compact dump (jansson's escapes, invalid UTF-8 as U+FFFD), for
 * JSON Lines of millions of rows, where a tree per row was most of the time. */
static void row_raw(struct pms_json_row *r, const char *s, size_t n)
{
	if (r->n + n + 4 > sizeof(r->b)) /* room for "}\n" stays */
		n = r->n + 4 < sizeof(r->b) ? sizeof(r->b) - 4 - r->n : 0;
	memcpy(r->b + r->n, s, n);
	r->n += n;
}

static void row_quoted(struct pms_json_row *r, const char *s)
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

static void row_key(struct pms_json_row *r, const char *k)
{
	if (r->n > 1)
		row_raw(r, ",", 1);
	row_quoted(r, k);
	row_raw(r, ":", 1);
}

void pms_jrow_begin(struct pms_json_row *r)
{
	r->b[0] = '{';
	r->n = 1;
}

void pms_jrow_str(struct pms_json_row *r, const char *k, const char *v)
{
	row_key(r, k);
	if (v)
		row_quoted(r, v);
	else
		row_raw(r, "null", 4);
}

void pms_jrow_uint(struct pms_json_row *r, const char *k, unsigned long long v)
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

void pms_jrow_hex(struct pms_json_row *r, const char *k, unsigned long long v)
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

void pms_jrow_raw(struct pms_json_row *r, const char *k, const char *json, size_t len)
{
	row_key(r, k);
	row_raw(r, json, len);
}

size_t pms_json_quote(const char *s, char *out, size_t size)
{
	struct pms_json_row *t = malloc(sizeof(*t));
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

void pms_jrow_int(struct pms_json_row *r, const char *k, long long v)
{
	if (v >= 0) {
		pms_jrow_uint(r, k, (unsigned long long)v);
		return;
	}
	char t[24];
	int n = snprintf(t, sizeof(t), "%lld", v);
	row_key(r, k);
	row_raw(r, t, (size_t)n);
}

void pms_jrow_null(struct pms_json_row *r, const char *k)
{
	row_key(r, k);
	row_raw(r, "null", 4);
}

void pms_jrow_text(struct pms_json_row *r, const char *text, size_t len)
{
	row_raw(r, text, len);
}

size_t pms_jrow_close(struct pms_json_row *r)
{
	r->b[r->n++] = '}';
	r->b[r->n++] = '\n';
	return r->n;
}

void pms_jrow_end(struct pms_json_row *r, FILE *f)
{
	fwrite(r->b, 1, pms_jrow_close(r), f);
}
