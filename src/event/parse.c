/* The event-string grammar (perf's syntax), without any PMU knowledge:
 *
 *   list   := item (',' item)*
 *   item   := '{' event (',' event)* '}' [':' mods] | event
 *   event  := NAME '/' [term (',' term)*] '/' [[':'] mods]
 *           | TP ':' TP [':' mods]     a tracepoint, sys:name (globs allowed)
 *           | NAME [':' mods]
 *
 * TP ':' TP is a tracepoint when the part after ':' is not made of modifier
 * letters alone and the part before is not a generic event (so "cycles:u"
 * and "cycles:x" stay modifiers, as in perf's lexer, which takes a modifier
 * token before a name of the same length).
 *   term   := KEY ['=' VALUE]        VALUE: up to ',' or '/', or quoted
 *   mods   := [ukhGHpPSDIWe]+
 *
 * Spaces are allowed around items; columns in messages are 1-based. */
#include "event/event_int.h"
#include "util/error.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pms_ev_err(int code, const char *src, int col, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	/* keep the column in the (bounded) message even for very long strings */
	if (strlen(src) > 200)
		return pms_err(code, "event '%.200s...': %s at column %d", src, what, col);
	return pms_err(code, "event '%s': %s at column %d", src, what, col);
}

bool pms_ev_parse_u64(const char *text, uint64_t *out)
{
	char *end;
	if (!text || !*text || !isdigit((unsigned char)text[0]))
		return false;
	errno = 0;
	unsigned long long v;
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		if (!isxdigit((unsigned char)text[2]))
			return false;
		v = strtoull(text + 2, &end, 16);
	} else {
		v = strtoull(text, &end, 10);
	}
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* A tracepoint part: a name with glob characters. */
static size_t tp_len(const char *s)
{
	size_t n = 0;
	while (is_name_char(s[n]) || s[n] == '*' || s[n] == '?' || s[n] == '[' || s[n] == ']')
		n++;
	return n;
}

/* Whether s[0..n) holds modifier letters only. */
static bool all_mods(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr("ukhGHpPSDIWe", s[i]))
			return false;
	return n > 0;
}

/* The length of "sys:event" at s when it is a tracepoint, else 0. */
static size_t tracepoint_len(const char *s)
{
	size_t sl = tp_len(s), el;
	uint64_t cfg;
	char sys[128];
	if (!sl || s[sl] != ':' || sl >= sizeof(sys))
		return 0;
	el = tp_len(s + sl + 1);
	if (!el || all_mods(s + sl + 1, el))
		return 0;
	snprintf(sys, sizeof(sys), "%.*s", (int)sl, s);
	if (pms_ev_generic_lookup(sys, &cfg) != EV_GEN_NONE)
		return 0;
	return sl + 1 + el;
}

struct pp {
	const char *s;
	size_t i;
	int bad_col;
	struct ev_ast_list *l;
};

static int col_of(const struct pp *p, size_t i)
{
	return (int)i + 1;
}

static int perr(struct pp *p, int code, size_t at, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;
static int perr(struct pp *p, int code, size_t at, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	p->bad_col = col_of(p, at);
	return pms_ev_err(code, p->s, col_of(p, at), "%s", what);
}

/* Describe the character at i for a message. */
static const char *char_desc(const struct pp *p, size_t i, char *buf, size_t size)
{
	char c = p->s[i];
	if (!c)
		return "end of string";
	if (isprint((unsigned char)c))
		snprintf(buf, size, "'%c'", c);
	else
		snprintf(buf, size, "byte 0x%02x", (unsigned char)c);
	return buf;
}

static char *dup_range(const char *s, size_t len)
{
	char *d = malloc(len + 1);
	if (!d)
		return NULL;
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

static size_t name_len(const char *s)
{
	size_t n = 0;
	while (is_name_char(s[n]))
		n++;
	return n;
}

void pms_ev_terms_free(struct ev_term *terms, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(terms[i].key);
		free(terms[i].val);
	}
	free(terms);
}

/* Terms up to the closing '/' (or the end of the string when in_alias). */
static int parse_terms(struct pp *p, struct ev_term **terms, size_t *nterms,
		       bool in_alias, size_t open_at)
{
	char cb[16];
	size_t cap = 0;
	*terms = NULL;
	*nterms = 0;

	if ((!in_alias && p->s[p->i] == '/') || (in_alias && !p->s[p->i]))
		return 0;
	for (;;) {
		struct ev_term t = { 0 };
		size_t kl = name_len(p->s + p->i);
		if (!kl) {
			if (!p->s[p->i] && !in_alias)
				return perr(p, PMS_EPARSE, open_at,
					    "missing the closing '/' of the term list opened");
			return perr(p, PMS_EPARSE, p->i, "expected a term name, found %s",
				    char_desc(p, p->i, cb, sizeof(cb)));
		}
		t.col = col_of(p, p->i);
		t.key = dup_range(p->s + p->i, kl);
		if (!t.key)
			return pms_err(PMS_ENOMEM, "out of memory parsing an event");
		p->i += kl;
		if (p->s[p->i] == '=') {
			size_t vs = ++p->i, vl;
			char q = p->s[vs];
			if (q == '\'' || q == '"') {
				const char *e = strchr(p->s + vs + 1, q);
				if (!e) {
					int r = perr(p, PMS_EPARSE, vs,
						     "unterminated quoted value of term '%s'", t.key);
					free(t.key);
					return r;
				}
				vl = (size_t)(e - (p->s + vs + 1));
				t.val = dup_range(p->s + vs + 1, vl);
				p->i = (size_t)(e - p->s) + 1;
			} else {
				while (p->s[p->i] && p->s[p->i] != ',' && p->s[p->i] != '/')
					p->i++;
				vl = p->i - vs;
				if (!vl) {
					int r = perr(p, PMS_EPARSE, vs,
						     "term '%s' has '=' but no value", t.key);
					free(t.key);
					return r;
				}
				t.val = dup_range(p->s + vs, vl);
			}
			if (!t.val) {
				free(t.key);
				return pms_err(PMS_ENOMEM, "out of memory parsing an event");
			}
		}
		if (*nterms == cap) {
			size_t nc = cap ? cap * 2 : 4;
			struct ev_term *nt = realloc(*terms, nc * sizeof(*nt));
			if (!nt) {
				free(t.key);
				free(t.val);
				return pms_err(PMS_ENOMEM, "out of memory parsing an event");
			}
			*terms = nt;
			cap = nc;
		}
		(*terms)[(*nterms)++] = t;

		char c = p->s[p->i];
		if (c == ',') {
			p->i++;
			continue;
		}
		if (in_alias ? c == '\0' : c == '/')
			return 0;
		if (!c)
			return perr(p, PMS_EPARSE, open_at,
				    "missing the closing '/' of the term list opened");
		return perr(p, PMS_EPARSE, p->i, "expected ',' or '/' after term '%s', found %s",
			    (*terms)[*nterms - 1].key, char_desc(p, p->i, cb, sizeof(cb)));
	}
}

static bool is_mod_end(char c)
{
	return c == '\0' || c == ',' || c == '}' || isspace((unsigned char)c);
}

static int parse_mods(struct pp *p, struct ev_mods *m)
{
	char cb[16];
	size_t start = p->i;
	for (; !is_mod_end(p->s[p->i]); p->i++) {
		switch (p->s[p->i]) {
		case 'u': m->u = true; break;
		case 'k': m->k = true; break;
		case 'h': m->h = true; break;
		case 'G': m->G = true; break;
		case 'H': m->H = true; break;
		case 'P': m->P = true; break;
		case 'S': m->S = true; break;
		case 'D': m->D = true; break;
		case 'I': m->I = true; break;
		case 'W': m->W = true; break;
		case 'e': m->e = true; break;
		case 'p':
			/* precise_ip is 2 bits wide (include/uapi/linux/perf_event.h) */
			if (++m->precise > 3)
				return perr(p, PMS_EPARSE, p->i,
					    "more than 3 'p' modifiers (precise_ip is 0-3)");
			break;
		default:
			return perr(p, PMS_EPARSE, p->i,
				    "unknown modifier %s (known: u k h G H p pp ppp P S D I W e)",
				    char_desc(p, p->i, cb, sizeof(cb)));
		}
	}
	if (p->i == start)
		return perr(p, PMS_EPARSE, p->i, "expected modifiers after ':', found %s",
			    char_desc(p, p->i, cb, sizeof(cb)));
	return 0;
}

static void ast_fini(struct ev_ast *a)
{
	free(a->pmu);
	free(a->name);
	free(a->text);
	pms_ev_terms_free(a->terms, a->nterms);
}

static int parse_event(struct pp *p, struct ev_ast *a)
{
	char cb[16];
	size_t start = p->i;
	size_t nl = name_len(p->s + p->i);
	size_t tl = tracepoint_len(p->s + p->i);
	int ret;

	if (tl) {
		a->col = a->name_col = col_of(p, start);
		a->tracepoint = true;
		a->name = dup_range(p->s + p->i, tl);
		if (!a->name)
			return pms_err(PMS_ENOMEM, "out of memory parsing an event");
		p->i += tl;
		if (p->s[p->i] == ':') {
			p->i++;
			if ((ret = parse_mods(p, &a->mods)) < 0)
				return ret;
		}
		a->text = dup_range(p->s + start, p->i - start);
		return a->text ? 0 : pms_err(PMS_ENOMEM, "out of memory parsing an event");
	}
	if (!nl)
		return perr(p, PMS_EPARSE, p->i, "expected an event name, found %s",
			    char_desc(p, p->i, cb, sizeof(cb)));
	a->col = col_of(p, start);
	a->name_col = a->col;
	if (p->s[p->i + nl] == '/') {
		size_t open_at = p->i + nl;
		a->pmu = dup_range(p->s + p->i, nl);
		if (!a->pmu)
			return pms_err(PMS_ENOMEM, "out of memory parsing an event");
		p->i = open_at + 1;
		ret = parse_terms(p, &a->terms, &a->nterms, false, open_at);
		if (ret < 0)
			return ret;
		p->i++; /* closing '/' */
		if (p->s[p->i] == ':')
			p->i++;
		if (!is_mod_end(p->s[p->i]) || p->s[p->i - 1] == ':') {
			ret = parse_mods(p, &a->mods);
			if (ret < 0)
				return ret;
		}
	} else {
		a->name = dup_range(p->s + p->i, nl);
		if (!a->name)
			return pms_err(PMS_ENOMEM, "out of memory parsing an event");
		p->i += nl;
		if (p->s[p->i] == ':') {
			p->i++;
			ret = parse_mods(p, &a->mods);
			if (ret < 0)
				return ret;
		}
	}
	a->text = dup_range(p->s + start, p->i - start);
	if (!a->text)
		return pms_err(PMS_ENOMEM, "out of memory parsing an event");
	return 0;
}

static int push_event(struct pp *p, size_t *cap, int group)
{
	struct ev_ast_list *l = p->l;
	int ret;
	if (l->count == *cap) {
		size_t nc = *cap ? *cap * 2 : 4;
		struct ev_ast *n = realloc(l->evs, nc * sizeof(*n));
		if (!n)
			return pms_err(PMS_ENOMEM, "out of memory parsing an event");
		l->evs = n;
		*cap = nc;
	}
	struct ev_ast *a = &l->evs[l->count++];
	memset(a, 0, sizeof(*a));
	a->group = group;
	ret = parse_event(p, a);
	return ret;
}

static void skip_space(struct pp *p)
{
	while (isspace((unsigned char)p->s[p->i]))
		p->i++;
}

int pms_ev_ast_parse(const char *text, struct ev_ast_list *out)
{
	struct pp p = { .s = text, .i = 0, .l = out };
	size_t cap = 0;
	char cb[16];
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->src = text;
	skip_space(&p);
	if (!text[p.i]) {
		ret = perr(&p, PMS_EPARSE, p.i, "empty event list");
		goto out;
	}
	for (;;) {
		skip_space(&p);
		if (text[p.i] == '{') {
			size_t open_at = p.i;
			int g = (int)out->ngroups;
			struct ev_mods *gm = realloc(out->group_mods, (out->ngroups + 1) * sizeof(*gm));
			if (!gm) {
				ret = pms_err(PMS_ENOMEM, "out of memory parsing an event");
				goto out;
			}
			out->group_mods = gm;
			memset(&gm[out->ngroups++], 0, sizeof(*gm));
			p.i++;
			for (;;) {
				skip_space(&p);
				if (text[p.i] == '{') {
					ret = perr(&p, PMS_EPARSE, p.i, "groups cannot be nested");
					goto out;
				}
				if ((ret = push_event(&p, &cap, g)) < 0)
					goto out;
				skip_space(&p);
				if (text[p.i] == ',') {
					p.i++;
					continue;
				}
				if (text[p.i] == '}')
					break;
				if (!text[p.i])
					ret = perr(&p, PMS_EPARSE, open_at,
						   "missing the '}' of the group opened");
				else
					ret = perr(&p, PMS_EPARSE, p.i,
						   "expected ',' or '}' in a group, found %s",
						   char_desc(&p, p.i, cb, sizeof(cb)));
				goto out;
			}
			p.i++; /* '}' */
			if (text[p.i] == ':') {
				p.i++;
				if ((ret = parse_mods(&p, &out->group_mods[g])) < 0)
					goto out;
			}
		} else {
			if ((ret = push_event(&p, &cap, -1)) < 0)
				goto out;
		}
		skip_space(&p);
		if (!text[p.i])
			break;
		if (text[p.i] != ',') {
			ret = perr(&p, PMS_EPARSE, p.i, "expected ',' between events, found %s",
				   char_desc(&p, p.i, cb, sizeof(cb)));
			goto out;
		}
		p.i++;
	}
out:
	if (ret < 0)
		pms_ev_ast_fini(out);
	return ret;
}

void pms_ev_ast_fini(struct ev_ast_list *l)
{
	for (size_t i = 0; i < l->count; i++)
		ast_fini(&l->evs[i]);
	free(l->evs);
	free(l->group_mods);
	l->evs = NULL;
	l->group_mods = NULL;
	l->count = l->ngroups = 0;
}

int pms_ev_terms_parse(const char *text, struct ev_term **terms, size_t *n, int *bad_col)
{
	struct ev_ast_list dummy = { 0 };
	struct pp p = { .s = text, .i = 0, .l = &dummy };
	int ret = parse_terms(&p, terms, n, true, 0);
	if (ret < 0) {
		*bad_col = p.bad_col;
		pms_ev_terms_free(*terms, *n);
		*terms = NULL;
		*n = 0;
	}
	return ret;
}
