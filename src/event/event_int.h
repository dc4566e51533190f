/* Internal to src/event: the parsed (not yet bound) form of an event string
 * and the generic event name tables. */
#ifndef PMS_EVENT_EVENT_INT_H
#define PMS_EVENT_EVENT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One pmu/.../ term as written: key[=val]. */
struct ev_term {
	char *key;
	char *val; /* NULL for a bare term */
	int col;   /* 1-based column of key */
};

/* Modifiers after ':' (or right after a PMU's closing '/'). */
struct ev_mods {
	bool u, k, h, G, H, P, S, D, I, W, e;
	int precise; /* number of 'p' */
};

struct ev_ast {
	char *pmu;   /* "cpu" for cpu/.../, NULL for a bare name */
	char *name;  /* the bare name, NULL for the PMU form; "sys:event"
		      * (either side may be a glob) when tracepoint */
	bool tracepoint;
	int name_col;
	struct ev_term *terms;
	size_t nterms;
	struct ev_mods mods;
	char *text;  /* the event as written (no group braces) */
	int col;     /* 1-based column where it starts */
	int group;   /* index into group_mods, -1 when not in braces */
};

struct ev_ast_list {
	const char *src; /* the whole string, for messages */
	struct ev_ast *evs;
	size_t count;
	struct ev_mods *group_mods;
	size_t ngroups;
};

/* Parse the grammar only; PMS_EPARSE with the column on bad syntax. */
int pms_ev_ast_parse(const char *text, struct ev_ast_list *out);
void pms_ev_ast_fini(struct ev_ast_list *l);

/* Parse "k=v,k,..." (an events/ alias text) into terms; columns are relative
 * to text.  Returns PMS_EPARSE without setting a message detail beyond the
 * reason: the caller adds the context. */
int pms_ev_terms_parse(const char *text, struct ev_term **terms, size_t *n,
		       int *bad_col);
void pms_ev_terms_free(struct ev_term *terms, size_t n);

/* Set the error: "event '<src>': <what> at column <col>". */
int pms_ev_err(int code, const char *src, int col, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

/* Parse a term value: decimal, 0x hex or 0 octal-free ("010" = 10), full
 * 64-bit range.  Returns false if text is not a number. */
bool pms_ev_parse_u64(const char *text, uint64_t *out);

/* Generic names (names.c). */
enum ev_generic_kind { EV_GEN_NONE = 0, EV_GEN_HW, EV_GEN_SW, EV_GEN_CACHE };
/* Look a bare name up among perf's generic hardware, software and
 * hardware-cache events: the kind, and the config value in *config. */
enum ev_generic_kind pms_ev_generic_lookup(const char *name, uint64_t *config);

/* Why a PMU lacks term where its driver hides it on hardware without the
 * feature (SPE EFT/FDS, PMUv3 threshold), else NULL (hints.c). */
struct pms_pmu;
const char *pms_ev_term_hint(const struct pms_pmu *pmu, const char *term);

#endif
