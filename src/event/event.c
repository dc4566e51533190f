/* Binding parsed event strings to PMUs: format terms -> config words,
 * aliases -> their terms, generic events -> one event per core PMU. */
#include "pmuscope/event.h"
#include "pmuscope/catalog.h"
#include "pmuscope/pmuv3.h"
#include "event/event_int.h"
#include "event/event_list_int.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/opts.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small PMU helpers ---- */

/* Scatter value over the term's bits (width already checked). */
static uint64_t format_place(const struct pms_format *f, uint64_t value)
{
	uint64_t w = 0;
	(void)pms_format_encode(f, value, &w);
	return w;
}

static bool is_core(const struct pms_pmu *p)
{
	return p->kind == PMS_PMU_CORE;
}

/* ---- binding context ---- */

struct evvec {
	struct pms_event *v;
	size_t n, cap;
};

struct bctx {
	const struct pms_pmus *pmus;
	const char *src;
	size_t ncores;
	const struct pms_catalog *cat; /* may be NULL */
	struct pms_sys *sys;           /* for tracepoints; may be NULL */
};

static void event_fini(struct pms_event *e)
{
	free(e->name);
	free(e->pmu);
	free(e->unit);
	free(e->metric_id);
	free(e->call_graph);
	free(e->branch_type);
	pms_cpuset_fini(&e->cpus);
}

static void evvec_fini(struct evvec *v)
{
	for (size_t i = 0; i < v->n; i++)
		event_fini(&v->v[i]);
	free(v->v);
	memset(v, 0, sizeof(*v));
}

/* Takes ownership of *e (also on failure). */
static int evvec_push(struct evvec *v, struct pms_event *e)
{
	if (pms_grow(&v->v, &v->cap, v->n + 1, sizeof(*v->v), 4, "the bound events") < 0) {
		event_fini(e);
		return PMS_ENOMEM;
	}
	v->v[v->n++] = *e;
	return 0;
}

static int set_str(char **dst, const char *s)
{
	char *d = s ? strdup(s) : NULL;
	if (s && !d)
		return pms_err(PMS_ENOMEM, "out of memory binding events");
	free(*dst);
	*dst = d;
	return 0;
}

static int event_init(struct pms_event *e, const struct ev_ast *a, const struct pms_pmu *pmu)
{
	memset(e, 0, sizeof(*e));
	e->attr.size = sizeof(e->attr);
	e->group = -1;
	e->scale = 1.0;
	e->column = a->col;
	if (set_str(&e->name, a->text) < 0)
		return PMS_ENOMEM;
	if (pmu) {
		if (set_str(&e->pmu, pmu->name) < 0 || pms_cpuset_copy(&e->cpus, &pmu->cpus) < 0) {
			event_fini(e);
			return pms_err(PMS_ENOMEM, "out of memory binding events");
		}
	}
	return 0;
}

/* ---- terms ---- */

#define MAX_WRITES 64
#define MAX_PENDING 8

struct wrec {
	const char *key;
	const struct pms_format *fmt; /* NULL for config..config4 terms */
	uint64_t value;               /* as written, before placement */
	unsigned field;
	uint64_t mask;
	bool alias;
};

struct tstate {
	uint64_t words[PMS_CFG_NFIELDS];
	uint64_t written[PMS_CFG_NFIELDS];
	struct wrec recs[MAX_WRITES];
	size_t nrecs;
	bool generic;
	const char *generic_key;
	bool raw_write; /* a format or config term was written */
	bool period, freq;
	const char *pending[MAX_PENDING]; /* alias terms given as '?' */
	size_t npending;
	/* the alias being expanded, for messages */
	const char *alias_name;
	const char *alias_text;
	const char *alias_what; /* "alias" (sysfs) or "catalog event" */
};

struct tctx {
	const struct bctx *b;
	const struct pms_pmu *pmu;
	struct pms_event *ev;
	struct tstate *st;
};

static int terr(const struct tctx *t, int code, int col, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;
static int terr(const struct tctx *t, int code, int col, const char *fmt, ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (t->st->alias_name)
		return pms_ev_err(code, t->b->src, col, "in %s '%s' of PMU '%s' ('%s'): %s",
				  t->st->alias_what, t->st->alias_name, t->pmu->name,
				  t->st->alias_text, what);
	return pms_ev_err(code, t->b->src, col, "%s", what);
}

static void describe_write(const struct pms_format *fmt, unsigned f, char *buf, size_t size)
{
	if (fmt)
		pms_format_str(fmt, buf, size);
	else
		snprintf(buf, size, "%s:0-63", pms_cfg_field_name((enum pms_cfg_field)f));
}

/* Write raw into config word f (placed by fmt, or the whole word when fmt
 * is NULL), refusing two terms that set the same bit differently.  A term written
 * by the user wins over one that came from an alias, whatever the order. */
static int write_bits(const struct tctx *t, unsigned f, const struct pms_format *fmt,
		      uint64_t raw, bool alias, int col, const char *key)
{
	uint64_t mask = fmt ? pms_format_mask(fmt) : UINT64_MAX;
	uint64_t value = fmt ? format_place(fmt, raw) : raw;
	struct tstate *st = t->st;
	uint64_t overlap = st->written[f] & mask;
	uint64_t differ = (st->words[f] ^ value) & overlap;

	if (differ) {
		for (size_t i = 0; i < st->nrecs; i++) {
			const struct wrec *r = &st->recs[i];
			if (r->field != f || !(r->mask & differ))
				continue;
			if (r->alias && !alias)
				continue; /* the user's term overrides the alias */
			if (!r->alias && alias) {
				/* keep the user's bits */
				value = (value & ~(r->mask & differ)) | (st->words[f] & r->mask & differ);
				continue;
			}
			char d1[96], d2[96];
			describe_write(fmt, f, d1, sizeof(d1));
			describe_write(r->fmt, f, d2, sizeof(d2));
			return terr(t, PMS_EPARSE, col,
				    "term '%s=0x%" PRIx64 "' (%s) overlaps term '%s=0x%" PRIx64
				    "' (%s) with a different value in bits 0x%" PRIx64,
				    key, raw, d1, r->key, r->value, d2, r->mask & differ);
		}
	}
	if (st->nrecs == MAX_WRITES)
		return terr(t, PMS_ERANGE, col, "more than %d terms", MAX_WRITES);
	st->recs[st->nrecs++] = (struct wrec){ key, fmt, raw, f, mask, alias };
	st->words[f] = (st->words[f] & ~mask) | (value & mask);
	st->written[f] |= mask;
	st->raw_write = true;
	return 0;
}

static int need_value(const struct tctx *t, const struct ev_term *term, int col,
		      uint64_t *v)
{
	if (!term->val)
		return terr(t, PMS_EPARSE, col, "term '%s' needs a value ('%s=N')", term->key,
			    term->key);
	if (!pms_ev_parse_u64(term->val, v))
		return terr(t, PMS_EPARSE, col,
			    "value '%s' of term '%s' is not a number (decimal or 0x hex, 64 bits)",
			    term->val, term->key);
	return 0;
}

static int need_string(const struct tctx *t, const struct ev_term *term, int col,
		       char **dst)
{
	if (!term->val || !*term->val)
		return terr(t, PMS_EPARSE, col, "term '%s' needs a value", term->key);
	return set_str(dst, term->val);
}

static int need_bool(const struct tctx *t, const struct ev_term *term, int col, bool *b)
{
	uint64_t v = 1;
	if (term->val && (!pms_ev_parse_u64(term->val, &v) || v > 1))
		return terr(t, PMS_EPARSE, col, "term '%s' takes 0 or 1, not '%s'", term->key,
			    term->val);
	*b = v != 0;
	return 0;
}

static int apply_terms(const struct tctx *t, const struct ev_term *terms, size_t n,
		       bool alias, int alias_col);

/* what: "alias" for a sysfs events/ alias, "catalog event" for a catalog
 * entry dressed as one (see expand_catalog). */
static int expand_alias(const struct tctx *t, const struct pms_pmu_event *al, int col,
			const char *what)
{
	struct ev_term *terms = NULL;
	size_t n = 0;
	int bad = 0, ret;

	ret = pms_ev_terms_parse(al->value ? al->value : "", &terms, &n, &bad);
	if (ret < 0)
		return pms_ev_err(PMS_EPARSE, t->b->src, col,
				  "%s '%s' of PMU '%s' has malformed text '%s' (at its column %d)",
				  what, al->name, t->pmu->name, al->value ? al->value : "", bad);
	t->st->alias_name = al->name;
	t->st->alias_text = al->value;
	t->st->alias_what = what;
	ret = apply_terms(t, terms, n, true, col);
	t->st->alias_name = NULL;
	t->st->alias_text = NULL;
	t->st->alias_what = NULL;
	pms_ev_terms_free(terms, n);
	if (ret < 0)
		return ret;
	t->ev->scale = al->scale;
	t->ev->per_pkg = al->per_pkg;
	t->ev->snapshot = al->snapshot;
	return set_str(&t->ev->unit, al->unit);
}

static int set_generic(const struct tctx *t, const struct ev_term *term, int col,
		       enum ev_generic_kind kind, uint64_t config)
{
	struct tstate *st = t->st;
	if (st->generic || st->raw_write)
		return terr(t, PMS_EPARSE, col,
			    "generic event '%s' cannot be combined with %s '%s'", term->key,
			    st->generic ? "generic event" : "config terms such as",
			    st->generic ? st->generic_key : st->recs[0].key);
	st->generic = true;
	st->generic_key = term->key;
	t->ev->attr.type = kind == EV_GEN_HW ? PERF_TYPE_HARDWARE : PERF_TYPE_HW_CACHE;
	if (t->b->ncores > 1)
		config |= (uint64_t)t->pmu->type << PMS_PMU_TYPE_SHIFT;
	t->ev->attr.config = config;
	return 0;
}

/* Keyword terms perf accepts in any PMU's term list
 * (tools/perf/util/parse-events.c config_term_names). */
static int apply_keyword(const struct tctx *t, const struct ev_term *term, int col,
			 bool alias, bool *handled)
{
	struct pms_event *ev = t->ev;
	struct tstate *st = t->st;
	const char *k = term->key;
	uint64_t v;
	int ret;

	*handled = true;
	for (unsigned f = 0; f < PMS_CFG_NFIELDS; f++) {
		if (strcmp(k, pms_cfg_field_name((enum pms_cfg_field)f)))
			continue;
		if ((ret = need_value(t, term, col, &v)) < 0)
			return ret;
		if (st->generic)
			return terr(t, PMS_EPARSE, col,
				    "term '%s' cannot be combined with generic event '%s'", k,
				    st->generic_key);
		return write_bits(t, f, NULL, v, alias, col, k);
	}
	if (!strcmp(k, "period")) {
		if ((ret = need_value(t, term, col, &v)) < 0)
			return ret;
		if (st->freq)
			return terr(t, PMS_EPARSE, col, "'period' and 'freq' exclude each other");
		st->period = true;
		ev->attr.sample_period = v;
		ev->attr.freq = 0;
		return 0;
	}
	if (!strcmp(k, "freq")) {
		if ((ret = need_value(t, term, col, &v)) < 0)
			return ret;
		if (st->period)
			return terr(t, PMS_EPARSE, col, "'period' and 'freq' exclude each other");
		st->freq = true;
		ev->attr.sample_freq = v;
		ev->attr.freq = 1;
		return 0;
	}
	if (!strcmp(k, "name"))
		return alias ? 0 : need_string(t, term, col, &ev->name);
	if (!strcmp(k, "metric-id"))
		return need_string(t, term, col, &ev->metric_id);
	if (!strcmp(k, "call-graph"))
		return need_string(t, term, col, &ev->call_graph);
	if (!strcmp(k, "branch_type"))
		return need_string(t, term, col, &ev->branch_type);
	if (!strcmp(k, "stack-size"))
		return need_value(t, term, col, &ev->stack_size);
	if (!strcmp(k, "percore"))
		return need_bool(t, term, col, &ev->percore);
	if (!strcmp(k, "time")) {
		bool b;
		if ((ret = need_bool(t, term, col, &b)) < 0)
			return ret;
		if (b)
			ev->attr.sample_type |= PERF_SAMPLE_TIME;
		else
			ev->attr.sample_type &= ~(uint64_t)PERF_SAMPLE_TIME;
		return 0;
	}
	if (!strcmp(k, "inherit") || !strcmp(k, "no-inherit")) {
		if (term->val)
			return terr(t, PMS_EPARSE, col, "term '%s' takes no value", k);
		ev->attr.inherit = k[0] == 'i';
		return 0;
	}
	*handled = false;
	return 0;
}

/* ---- catalog names ---- */

#define MAX_CAT_MATCHES 16

/* The catalog entry for name on pmu, or NULL.  An entry names its PMU (or
 * box family: "uncore_imc" fits uncore_imc_3), or has none, meaning the core
 * PMU of the CPU the catalog was chosen for: that fits core PMUs only.  An
 * entry naming the PMU beats one without. */
static const struct pms_cat_event *catalog_entry(const struct pms_catalog *cat,
						 const char *name, const struct pms_pmu *pmu)
{
	const struct pms_cat_event *m[MAX_CAT_MATCHES], *pmuless = NULL;
	size_t n = pms_catalog_lookup_all(cat, name, pmu->name, m, MAX_CAT_MATCHES);
	if (n > MAX_CAT_MATCHES)
		n = MAX_CAT_MATCHES;
	for (size_t i = 0; i < n; i++) {
		if (m[i]->pmu)
			return m[i];
		if (!pmuless && is_core(pmu))
			pmuless = m[i];
	}
	return pmuless;
}

/* Where the catalog's entries for name belong, for messages:
 * "PMU 'cpu_atom', 'cpu_core'", "a core PMU" (entries without a PMU), or
 * "PMU 'uncore_imc' or a core PMU". */
static void catalog_pmus(const struct pms_catalog *cat, const char *name, char *buf,
			 size_t size)
{
	const struct pms_cat_event *m[MAX_CAT_MATCHES];
	size_t n = pms_catalog_lookup_all(cat, name, NULL, m, MAX_CAT_MATCHES), len = 0;
	bool core = false;
	if (n > MAX_CAT_MATCHES)
		n = MAX_CAT_MATCHES;
	buf[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++) {
		bool dup = false;
		if (!m[i]->pmu) {
			core = true;
			continue;
		}
		for (size_t k = 0; k < i; k++)
			dup |= m[k]->pmu && !strcmp(m[k]->pmu, m[i]->pmu);
		if (dup)
			continue;
		int w = snprintf(buf + len, size - len, "%s'%s'", len ? ", " : "PMU ", m[i]->pmu);
		len += w > 0 ? (size_t)w : 0;
	}
	if (core && len < size)
		snprintf(buf + len, size - len, "%sa core PMU", len ? " or " : "");
}

/* pmu/NAME/ where NAME is in the catalog: expand its terms as an alias. */
static int expand_catalog(const struct tctx *t, const struct ev_term *term, int col)
{
	const struct pms_cat_event *ce = catalog_entry(t->b->cat, term->key, t->pmu);
	char where[256];

	if (!ce) {
		catalog_pmus(t->b->cat, term->key, where, sizeof(where));
		return terr(t, PMS_ENOENT, col,
			    "catalog event '%s' is for %s, not for %s PMU '%s'; write it "
			    "bare or on its own PMU",
			    term->key, where, pms_pmu_kind_name(t->pmu->kind), t->pmu->name);
	}
	/* a catalog entry reads like a sysfs alias: name -> terms, plus per_pkg
	 * and ScaleUnit as the alias's .per-pkg, .scale and .unit */
	struct pms_pmu_event al = {
		.name = (char *)ce->name, .value = (char *)ce->terms,
		.scale = ce->scale > 0 ? ce->scale : 1.0, .unit = (char *)ce->scale_unit,
		.per_pkg = ce->per_pkg,
	};
	return expand_alias(t, &al, col, "catalog event");
}

static void known_terms(const struct pms_pmu *pmu, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < pmu->nformats && n < size; i++) {
		int w = snprintf(buf + n, size - n, "%s%s", i ? ", " : "", pmu->formats[i].name);
		n += w > 0 ? (size_t)w : 0;
	}
	if (!pmu->nformats)
		snprintf(buf, size, "none");
}

static int apply_term(const struct tctx *t, const struct ev_term *term, bool alias,
		      int alias_col)
{
	int col = alias ? alias_col : term->col;
	const struct pms_format *f;
	const struct pms_pmu_event *al;
	enum ev_generic_kind kind;
	uint64_t v = 1, cfg = 0;
	bool handled;
	int ret;
	char desc[128];

	ret = apply_keyword(t, term, col, alias, &handled);
	if (ret < 0 || handled)
		return ret;

	if ((f = pms_pmu_format(t->pmu, term->key))) {
		unsigned fld = (unsigned)f->field;
		pms_format_str(f, desc, sizeof(desc));
		if (fld >= PMS_CFG_NFIELDS)
			return terr(t, PMS_EPARSE, col, "term '%s' (%s) names no config word",
				    term->key, desc);
		if (alias && term->val && !strcmp(term->val, "?")) {
			/* the user must give this one (e.g. "chip=?") */
			if (t->st->npending < MAX_PENDING)
				t->st->pending[t->st->npending++] = f->name;
			return 0;
		}
		if (term->val && !pms_ev_parse_u64(term->val, &v))
			return terr(t, PMS_EPARSE, col,
				    "value '%s' of term '%s' is not a number (decimal or 0x hex)",
				    term->val, term->key);
		if (f->width < 64 && f->width >= 0 && v >> f->width)
			return terr(t, PMS_ERANGE, col,
				    "value 0x%" PRIx64 " does not fit term '%s' (%s, %d bits)", v,
				    term->key, desc, f->width);
		if (t->st->generic)
			return terr(t, PMS_EPARSE, col,
				    "term '%s' cannot be combined with generic event '%s'",
				    term->key, t->st->generic_key);
		return write_bits(t, fld, f, v, alias, col, f->name);
	}
	if (!term->val && !alias && (al = pms_pmu_event(t->pmu, term->key)))
		return expand_alias(t, al, col, "alias");
	if (!term->val && is_core(t->pmu)) {
		kind = pms_ev_generic_lookup(term->key, &cfg);
		if (kind == EV_GEN_HW || kind == EV_GEN_CACHE)
			return set_generic(t, term, col, kind, cfg);
	}
	if (!term->val && !alias && t->b->cat &&
	    pms_catalog_lookup_all(t->b->cat, term->key, NULL, NULL, 0))
		return expand_catalog(t, term, col);
	known_terms(t->pmu, desc, sizeof(desc));
	const char *hint = pms_ev_term_hint(t->pmu, term->key);
	return terr(t, PMS_ENOENT, col, "unknown term '%s' for PMU '%s' (format terms: %s%s)%s%s",
		    term->key, t->pmu->name, desc,
		    t->b->cat && !alias ? "; not in the catalog either" : "", hint ? ": " : "",
		    hint ? hint : "");
}

static int apply_terms(const struct tctx *t, const struct ev_term *terms, size_t n,
		       bool alias, int alias_col)
{
	for (size_t i = 0; i < n; i++) {
		int ret = apply_term(t, &terms[i], alias, alias_col);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Build one event for pmu from a term list (the user's, or a bare alias). */
static int bind_terms(const struct bctx *b, const struct ev_ast *a, const struct pms_pmu *pmu,
		      const struct ev_term *terms, size_t n, struct pms_event *ev)
{
	struct tstate st;
	struct tctx t = { b, pmu, ev, &st };
	int ret;

	memset(&st, 0, sizeof(st));
	if ((ret = event_init(ev, a, pmu)) < 0)
		return ret;
	ret = apply_terms(&t, terms, n, false, 0);
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < st.npending; i++) {
		bool given = false;
		for (size_t r = 0; r < st.nrecs; r++)
			if (!st.recs[r].alias && !strcmp(st.recs[r].key, st.pending[i]))
				given = true;
		if (!given) {
			ret = pms_ev_err(PMS_EPARSE, b->src, a->col,
					 "PMU '%s' needs a value for term '%s' (add '%s=N')",
					 pmu->name, st.pending[i], st.pending[i]);
			goto out;
		}
	}
	if (!st.generic) {
		ev->attr.type = pmu->type;
		ev->attr.config = st.words[PMS_CFG_CONFIG];
		ev->attr.config1 = st.words[PMS_CFG_CONFIG1];
		ev->attr.config2 = st.words[PMS_CFG_CONFIG2];
		ev->attr.config3 = st.words[PMS_CFG_CONFIG3];
		ev->config4 = st.words[PMS_CFG_CONFIG4];
		/* FEAT_PMUv3_TH: the driver's threshold cap (catalog/pmuv3.c) */
		struct pms_pmuv3_threshold th;
		if (pms_pmuv3_threshold(pmu, &ev->attr, &th) < 0) {
			char why[512];
			snprintf(why, sizeof(why), "%s", pms_error_last());
			ret = pms_ev_err(PMS_EINVAL, b->src, a->col, "%s", why);
		}
	}
out:
	if (ret < 0)
		event_fini(ev);
	return ret;
}

/* ---- modifiers ---- */

/* perf's modifier rules (tools/perf/util/parse-events.c): the first of u/k/h
 * excludes every level, then each one re-includes its own; G/H likewise for
 * guest/host.  Group modifiers add to the event's own. */
static void apply_mods(struct pms_event *ev, const struct ev_mods *m, const struct ev_mods *g,
		       const struct pms_pmu *pmu)
{
	static const struct ev_mods none;
	if (!g)
		g = &none;
	bool u = m->u || g->u, k = m->k || g->k, h = m->h || g->h;
	bool G = m->G || g->G, H = m->H || g->H;
	int precise = m->precise > g->precise ? m->precise : g->precise;

	if (u || k || h) {
		ev->attr.exclude_user = !u;
		ev->attr.exclude_kernel = !k;
		ev->attr.exclude_hv = !h;
	}
	if (G || H) {
		ev->attr.exclude_host = !H;
		ev->attr.exclude_guest = !G;
	}
	if (m->P || g->P) {
		ev->precise_max = true;
		if (pmu && pmu->max_precise > precise)
			precise = pmu->max_precise > 3 ? 3 : pmu->max_precise;
	}
	ev->attr.precise_ip = (unsigned)precise & 3;
	if (m->I || g->I)
		ev->attr.exclude_idle = 1;
	/* D, e, S, W of a group go to its leader only (see fix_groups) */
	if (m->D)
		ev->attr.pinned = 1;
	if (m->e)
		ev->attr.exclusive = 1;
	if (m->S)
		ev->sample_read = true;
	if (m->W)
		ev->weak = true;
}

/* ---- one parsed event -> its bound events ---- */

static bool parse_raw(const char *name, uint64_t *v, bool *too_wide)
{
	size_t n = strlen(name);
	*too_wide = false;
	if (n < 2 || name[0] != 'r')
		return false;
	for (size_t i = 1; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", name[i]))
			return false;
	if (n - 1 > 16) {
		*too_wide = true;
		return true;
	}
	*v = strtoull(name + 1, NULL, 16);
	return true;
}

static int push_simple(const struct bctx *b, const struct ev_ast *a, const struct ev_mods *gm,
		       const struct pms_pmu *pmu, uint32_t type, uint64_t config,
		       struct evvec *out)
{
	struct pms_event ev;
	int ret = event_init(&ev, a, pmu);
	if (ret < 0)
		return ret;
	ev.attr.type = type;
	ev.attr.config = config;
	apply_mods(&ev, &a->mods, gm, pmu);
	return evvec_push(out, &ev);
}

static int bind_on_pmu(const struct bctx *b, const struct ev_ast *a, const struct ev_mods *gm,
		       const struct pms_pmu *pmu, const struct ev_term *terms, size_t n,
		       struct evvec *out)
{
	struct pms_event ev;
	int ret = bind_terms(b, a, pmu, terms, n, &ev);
	if (ret < 0)
		return ret;
	apply_mods(&ev, &a->mods, gm, pmu);
	return evvec_push(out, &ev);
}

static int bind_bare(const struct bctx *b, const struct ev_ast *a, const struct ev_mods *gm,
		     struct evvec *out)
{
	const struct pms_pmus *pmus = b->pmus;
	const char *name = a->name;
	uint64_t cfg = 0;
	bool too_wide;
	int ret;
	size_t found = 0;

	if (parse_raw(name, &cfg, &too_wide)) {
		if (too_wide)
			return pms_ev_err(PMS_ERANGE, b->src, a->name_col,
					  "raw event '%s' is wider than 64 bits", name);
		if (b->ncores > 1) {
			/* PERF_TYPE_RAW has no extended type: use each core PMU's own */
			for (size_t i = 0; i < pms_pmus_count(pmus); i++)
				if (is_core(pms_pmus_at(pmus, i)) &&
				    (ret = push_simple(b, a, gm, pms_pmus_at(pmus, i),
						       pms_pmus_at(pmus, i)->type, cfg, out)) < 0)
					return ret;
			return 0;
		}
		for (size_t i = 0; pmus && i < pms_pmus_count(pmus); i++)
			if (is_core(pms_pmus_at(pmus, i)))
				return push_simple(b, a, gm, pms_pmus_at(pmus, i), PERF_TYPE_RAW, cfg, out);
		return push_simple(b, a, gm, NULL, PERF_TYPE_RAW, cfg, out);
	}

	enum ev_generic_kind kind = pms_ev_generic_lookup(name, &cfg);
	if (kind == EV_GEN_SW)
		return push_simple(b, a, gm, NULL, PERF_TYPE_SOFTWARE, cfg, out);
	if (kind == EV_GEN_HW || kind == EV_GEN_CACHE) {
		uint32_t type = kind == EV_GEN_HW ? PERF_TYPE_HARDWARE : PERF_TYPE_HW_CACHE;
		for (size_t i = 0; pmus && i < pms_pmus_count(pmus); i++) {
			const struct pms_pmu *p = pms_pmus_at(pmus, i);
			if (!is_core(p))
				continue;
			uint64_t c = cfg;
			if (b->ncores > 1)
				c |= (uint64_t)p->type << PMS_PMU_TYPE_SHIFT;
			if ((ret = push_simple(b, a, gm, p, type, c, out)) < 0)
				return ret;
			found++;
		}
		if (!found)
			return push_simple(b, a, gm, NULL, type, cfg, out);
		return 0;
	}

	/* an events/ alias: core PMUs first, then every other PMU that has it */
	struct ev_term term = { a->name, NULL, a->name_col };
	for (int pass = 0; pass < 2 && !found; pass++) {
		for (size_t i = 0; pmus && i < pms_pmus_count(pmus); i++) {
			const struct pms_pmu *p = pms_pmus_at(pmus, i);
			if (is_core(p) != (pass == 0) || !pms_pmu_event(p, name))
				continue;
			if ((ret = bind_on_pmu(b, a, gm, p, &term, 1, out)) < 0)
				return ret;
			found++;
		}
	}
	if (found)
		return 0;

	/* a PMU named alone, as perf takes "ibs_op" for "ibs_op//" */
	const struct pms_pmu *p = pms_pmu_find(pmus, name);
	if (p)
		return bind_on_pmu(b, a, gm, p, NULL, 0, out);

	/* a catalog name: every PMU it has an entry for (core PMUs first), so a
	 * hybrid name gives one event per core PMU and an uncore one every box */
	if (b->cat && pms_catalog_lookup_all(b->cat, name, NULL, NULL, 0)) {
		for (int pass = 0; pass < 2; pass++) {
			for (size_t i = 0; pmus && i < pms_pmus_count(pmus); i++) {
				p = pms_pmus_at(pmus, i);
				if (is_core(p) != (pass == 0) || !catalog_entry(b->cat, name, p))
					continue;
				if ((ret = bind_on_pmu(b, a, gm, p, &term, 1, out)) < 0)
					return ret;
				found++;
			}
		}
		if (found)
			return 0;
		char where[256];
		catalog_pmus(b->cat, name, where, sizeof(where));
		return pms_ev_err(PMS_ENOENT, b->src, a->name_col,
				  "catalog event '%s' is for %s, which this machine does not "
				  "have (was the catalog chosen for this CPU?)",
				  name, where);
	}
	return pms_ev_err(PMS_ENOENT, b->src, a->name_col,
			  "unknown event '%s' (not a generic event, raw rNNN, PMU alias%s or PMU)",
			  name, b->cat ? ", catalog name" : "");
}

static int bind_pmu_form(const struct bctx *b, const struct ev_ast *a, const struct ev_mods *gm,
			 struct evvec *out)
{
	const struct pms_pmus *pmus = b->pmus;
	const struct pms_pmu *p = pms_pmu_find(pmus, a->pmu);
	size_t found = 0;
	int ret;

	if (p)
		return bind_on_pmu(b, a, gm, p, a->terms, a->nterms, out);
	/* a box family ("uncore_cha") stands for all its instances */
	for (size_t i = 0; pmus && i < pms_pmus_count(pmus); i++) {
		p = pms_pmus_at(pmus, i);
		if (!p->box || strcmp(p->box, a->pmu))
			continue;
		if ((ret = bind_on_pmu(b, a, gm, p, a->terms, a->nterms, out)) < 0)
			return ret;
		found++;
	}
	if (!found)
		return pms_ev_err(PMS_ENOENT, b->src, a->col, "unknown PMU '%s'", a->pmu);
	return 0;
}

/* A tracepoint by name or glob: one PERF_TYPE_TRACEPOINT event per match,
 * config its tracefs id, named "sys:name" (with the modifiers as written). */
static int bind_tracepoint(const struct bctx *b, const struct ev_ast *a, const struct ev_mods *gm,
			   struct evvec *out)
{
	struct pms_tracepoint *tp = NULL;
	size_t ntp = 0;
	int ret;
	if (!b->sys)
		return pms_ev_err(PMS_ENOENT, b->src, a->name_col,
				  "tracepoint '%s' needs tracefs (no kernel seam given to the parser)",
				  a->name);
	if ((ret = pms_tracepoints_find(b->sys, a->name, &tp, &ntp)) < 0) {
		char why[400];
		snprintf(why, sizeof(why), "%s", pms_error_last());
		return pms_ev_err(ret, b->src, a->name_col, "%s", why);
	}
	const struct pms_pmu *pmu = pms_pmu_find(b->pmus, "tracepoint");
	const char *mods = strchr(a->text + strlen(a->name), ':');
	for (size_t i = 0; i < ntp && ret == 0; i++) {
		struct pms_event ev;
		char name[512];
		if ((ret = event_init(&ev, a, pmu)) < 0)
			break;
		snprintf(name, sizeof(name), "%s%s", tp[i].name, mods ? mods : "");
		if ((ret = set_str(&ev.name, name)) < 0) {
			event_fini(&ev);
			break;
		}
		ev.attr.type = PERF_TYPE_TRACEPOINT;
		ev.attr.config = tp[i].id;
		/* perf samples every hit of a tracepoint by default */
		ev.attr.sample_period = 1;
		apply_mods(&ev, &a->mods, gm, pmu);
		ret = evvec_push(out, &ev);
	}
	pms_tracepoints_free(tp, ntp);
	return ret;
}

/* ---- groups ---- */

static bool hybrid_expanded(const struct evvec *v)
{
	for (size_t i = 1; i < v->n; i++)
		if (v->v[i].pmu && v->v[0].pmu && strcmp(v->v[i].pmu, v->v[0].pmu))
			return true;
	return false;
}

static void leader_mods(struct pms_event *ev, const struct ev_mods *gm)
{
	if (gm->D)
		ev->attr.pinned = 1;
	if (gm->e)
		ev->attr.exclusive = 1;
	if (gm->S)
		ev->sample_read = true;
	if (gm->W)
		ev->weak = true;
}

/* Move events [first, last) of exps into final as group(s).  When a generic
 * event in the group expanded over several core PMUs, the group is split
 * into one group per PMU (a group cannot span PMUs); events without a PMU
 * (software) stay in the first one. */
static int emit_group(const struct bctx *b, const struct ev_ast_list *al, struct evvec *exps,
		      size_t first, size_t last, struct evvec *final, int *ngroups)
{
	const char *keys[64];
	size_t nkeys = 0;
	bool split = false;
	const struct ev_mods *gm = &al->group_mods[al->evs[first].group];

	for (size_t m = first; m < last; m++)
		split |= hybrid_expanded(&exps[m]);
	if (split) {
		for (size_t m = first; m < last; m++)
			for (size_t e = 0; e < exps[m].n; e++) {
				const char *pm = exps[m].v[e].pmu;
				bool seen = false;
				if (!pm)
					continue;
				for (size_t k = 0; k < nkeys; k++)
					seen |= !strcmp(keys[k], pm);
				if (!seen) {
					if (nkeys == 64)
						return pms_ev_err(PMS_ERANGE, b->src, al->evs[first].col,
								  "group spans more than 64 PMUs");
					keys[nkeys++] = pm;
				}
			}
	}
	size_t nparts = split ? nkeys : 1;
	for (size_t part = 0; part < nparts; part++) {
		int gid = (*ngroups)++;
		bool leader = true;
		for (size_t m = first; m < last; m++) {
			for (size_t e = 0; e < exps[m].n; e++) {
				struct pms_event *ev = &exps[m].v[e];
				if (!ev->name)
					continue; /* already moved */
				if (split && !(ev->pmu ? !strcmp(ev->pmu, keys[part]) : part == 0))
					continue;
				if (!leader && (ev->attr.pinned || ev->attr.exclusive))
					return pms_ev_err(PMS_EPARSE, b->src, ev->column,
							  "modifiers 'D' and 'e' apply to a group's "
							  "leader only, not to '%s'", ev->name);
				ev->group = gid;
				ev->group_leader = leader;
				if (leader)
					leader_mods(ev, gm);
				leader = false;
				int ret = evvec_push(final, ev);
				memset(ev, 0, sizeof(*ev)); /* moved */
				if (ret < 0)
					return ret;
			}
		}
	}
	return 0;
}

int pms_event_parse(const struct pms_pmus *pmus, const char *text,
		    struct pms_event_list **out)
{
	return pms_event_parse_ex(pmus, text, NULL, out);
}

PMS_OPTS_LAYOUT(PMS_EVENT_PARSE_OPTS, struct pms_event_parse_opts,
		PMS_OPTS_END(struct pms_event_parse_opts, catalog),
		PMS_OPTS_END(struct pms_event_parse_opts, sys));

int pms_event_parse_ex(const struct pms_pmus *pmus, const char *text,
		       const struct pms_event_parse_opts *opts, struct pms_event_list **out)
{
	struct pms_event_parse_opts o;
	struct ev_ast_list al = { 0 };
	struct bctx b = { pmus, text, 0, NULL, NULL };
	struct evvec *exps = NULL, final = { 0 };
	struct pms_event_list *list = NULL;
	int ngroups = 0;
	int ret;

	if (out)
		*out = NULL;
	if (!text || !out)
		return pms_err(PMS_EINVAL, "pms_event_parse: NULL %s", text ? "out" : "text");
	if ((ret = PMS_OPTS_TAKE("pms_event_parse_ex", PMS_EVENT_PARSE_OPTS, opts, &o)) < 0)
		return ret;
	b.cat = o.catalog;
	b.sys = o.sys;
	b.ncores = pms_pmus_core_count(pmus);

	if ((ret = pms_ev_ast_parse(text, &al)) < 0)
		return ret;
	exps = calloc(al.count, sizeof(*exps));
	if (!exps) {
		ret = pms_err(PMS_ENOMEM, "out of memory binding events");
		goto out;
	}
	for (size_t i = 0; i < al.count; i++) {
		const struct ev_ast *a = &al.evs[i];
		const struct ev_mods *gm = a->group >= 0 ? &al.group_mods[a->group] : NULL;
		ret = a->pmu ? bind_pmu_form(&b, a, gm, &exps[i])
		      : a->tracepoint ? bind_tracepoint(&b, a, gm, &exps[i])
				      : bind_bare(&b, a, gm, &exps[i]);
		if (ret < 0)
			goto out;
	}
	for (size_t i = 0; i < al.count;) {
		if (al.evs[i].group < 0) {
			for (size_t e = 0; e < exps[i].n; e++) {
				ret = evvec_push(&final, &exps[i].v[e]);
				memset(&exps[i].v[e], 0, sizeof(exps[i].v[e]));
				if (ret < 0)
					goto out;
			}
			i++;
			continue;
		}
		size_t j = i + 1;
		while (j < al.count && al.evs[j].group == al.evs[i].group)
			j++;
		if ((ret = emit_group(&b, &al, exps, i, j, &final, &ngroups)) < 0)
			goto out;
		i = j;
	}
	list = calloc(1, sizeof(*list));
	if (!list) {
		ret = pms_err(PMS_ENOMEM, "out of memory binding events");
		goto out;
	}
	list->events = final.v;
	list->count = final.n;
	list->ngroups = ngroups;
	memset(&final, 0, sizeof(final));
	*out = list;
	ret = 0;
out:
	for (size_t i = 0; exps && i < al.count; i++)
		evvec_fini(&exps[i]);
	free(exps);
	evvec_fini(&final);
	pms_ev_ast_fini(&al);
	return ret;
}

size_t pms_event_list_count(const struct pms_event_list *list)
{
	return list ? list->count : 0;
}

const struct pms_event *pms_event_list_at(const struct pms_event_list *list, size_t i)
{
	return list && i < list->count ? &list->events[i] : NULL;
}

int pms_event_list_groups(const struct pms_event_list *list)
{
	return list ? list->ngroups : 0;
}

void pms_event_list_free(struct pms_event_list *list)
{
	if (!list)
		return;
	for (size_t i = 0; i < list->count; i++)
		event_fini(&list->events[i]);
	free(list->events);
	free(list);
}
