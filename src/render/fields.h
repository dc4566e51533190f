/* Internal: a JSON object's members written from a table (fields.c).  A
 * renderer lists one object's members in order, each with its kind, and one
 * call writes them; a list of objects is one row function over an index.
 * The values are read when the table is built, before any is written: a
 * table must not hold two values that share one buffer. */
#ifndef PMS_RENDER_FIELDS_H
#define PMS_RENDER_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "pmuscope/render.h"

enum pms_jkind { PMS_JK_UINT, PMS_JK_INT, PMS_JK_DOUBLE, PMS_JK_BOOL, PMS_JK_STR, PMS_JK_HEX };

struct pms_jfield {
	const char *key;
	enum pms_jkind kind;
	bool null; /* null instead of the value */
	union {
		unsigned long long u;
		long long i;
		double d;
		bool b;
		const char *s;
	};
};

/* A member of each kind; the *Q forms write null unless ok; JX writes
 * "0x..." or null unless ok (pms_json_hex); JS writes null for NULL. */
#define JU(k, v) { .key = (k), .kind = PMS_JK_UINT, .u = (v) }
#define JI(k, v) { .key = (k), .kind = PMS_JK_INT, .i = (v) }
#define JD(k, v) { .key = (k), .kind = PMS_JK_DOUBLE, .d = (v) }
#define JB(k, v) { .key = (k), .kind = PMS_JK_BOOL, .b = (v) }
#define JS(k, v) { .key = (k), .kind = PMS_JK_STR, .s = (v) }
#define JX(k, ok, v) { .key = (k), .kind = PMS_JK_HEX, .null = !(ok), .u = (v) }
#define JUQ(k, ok, v) { .key = (k), .kind = PMS_JK_UINT, .null = !(ok), .u = (ok) ? (v) : 0 }
#define JIQ(k, ok, v) { .key = (k), .kind = PMS_JK_INT, .null = !(ok), .i = (ok) ? (v) : 0 }
#define JDQ(k, ok, v) { .key = (k), .kind = PMS_JK_DOUBLE, .null = !(ok), .d = (ok) ? (v) : 0 }

/* The n members of f into the open object (or array, with NULL keys) of j. */
void pms_json_fieldv(struct pms_json *j, const struct pms_jfield *f, size_t n);

/* pms_json_fieldv over the members listed as arguments:
 *   PMS_JSON_FIELDS(j, JU("samples", s->samples), JS("name", s->name));  */
#define PMS_JSON_FIELDS(j, ...)                                                          \
	pms_json_fieldv((j), (const struct pms_jfield[]){ __VA_ARGS__ },                 \
			sizeof((const struct pms_jfield[]){ __VA_ARGS__ }) /             \
				sizeof(struct pms_jfield))

/* The array key (NULL: in an array) of n objects, row(j, ctx, i) writing
 * the members of the i-th into its open object. */
typedef void pms_json_row_fn(struct pms_json *j, const void *ctx, size_t i);
void pms_json_rows(struct pms_json *j, const char *key, size_t n, pms_json_row_fn *row,
		   const void *ctx);

#endif
