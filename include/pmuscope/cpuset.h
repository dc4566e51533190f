/* CPU (and node) sets: bitmaps parsed from the kernel's list form
 * ("0-3,8,10-11") or its hex mask form ("00000000,000000ff").
 *
 * Ownership: a pms_cpuset is a value type owned by whoever holds it; the bits
 * array is malloc'd and released with pms_cpuset_fini().  A zero-initialised
 * struct is a valid empty set.
 */
#ifndef PMUSCOPE_CPUSET_H
#define PMUSCOPE_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

struct pms_cpuset {
	uint64_t *bits;
	size_t nwords;
};

/* Largest CPU/node number accepted by the parsers. */
#define PMS_CPUSET_MAX 65535

void pms_cpuset_fini(struct pms_cpuset *s);
int pms_cpuset_add(struct pms_cpuset *s, int cpu);
int pms_cpuset_add_range(struct pms_cpuset *s, int first, int last);
bool pms_cpuset_has(const struct pms_cpuset *s, int cpu);
int pms_cpuset_count(const struct pms_cpuset *s);
/* First member >= from, or -1. */
int pms_cpuset_next(const struct pms_cpuset *s, int from);
int pms_cpuset_first(const struct pms_cpuset *s);
bool pms_cpuset_equal(const struct pms_cpuset *a, const struct pms_cpuset *b);
bool pms_cpuset_intersects(const struct pms_cpuset *a, const struct pms_cpuset *b);
bool pms_cpuset_subset(const struct pms_cpuset *sub, const struct pms_cpuset *super);
int pms_cpuset_copy(struct pms_cpuset *dst, const struct pms_cpuset *src);
int pms_cpuset_or(struct pms_cpuset *dst, const struct pms_cpuset *src);
void pms_cpuset_clear(struct pms_cpuset *s);

/* Parse "0-3,8" (whitespace/newline at the end allowed, empty = empty set).
 * On error returns PMS_EPARSE with the column in the message; *s is left
 * empty with its storage freed (as after pms_cpuset_fini), so a caller
 * that gives up on it leaks nothing. */
int pms_cpuset_parse_list(struct pms_cpuset *s, const char *text);

/* Parse a hex mask "ffffffff,000000ff" (comma-separated 32-bit words,
 * most significant first; an optional 0x is accepted).  On error *s is
 * left empty with its storage freed. */
int pms_cpuset_parse_mask(struct pms_cpuset *s, const char *text);

/* Format as a list ("0-3,8"); returns the length it needed (like snprintf). */
size_t pms_cpuset_format(const struct pms_cpuset *s, char *buf, size_t size);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
