/* The one rule for options structs (docs/api.md, "Options structs").
 *
 * Every public function that takes `const struct pms_X_opts *opts` takes it
 * with PMS_OPTS_TAKE into a struct of its own and reads only that copy:
 *   - NULL gives the defaults, exactly the PMS_X_OPTS_INIT value;
 *   - opts->version 0 is refused (a struct not started from PMS_X_OPTS_INIT);
 *   - versions 1..PMS_X_OPTS_VERSION are accepted: a program built against an
 *     older header has a shorter struct, so only the bytes its version has
 *     are copied (the struct's layout table, PMS_OPTS_LAYOUT) and every
 *     later field keeps its default; the copy's version is the library's;
 *   - a version above PMS_X_OPTS_VERSION is refused with PMS_EINVAL: the
 *     program was built against a newer pmuscope than the one it runs with.
 *
 * A struct's layout is defined once, in the concern that consumes it, with
 * PMS_OPTS_LAYOUT, and declared below (tests/util/test_opts.c finds every
 * `PMS_*_VERSION` of include/pmuscope/ and fails on one without a layout).
 */
#ifndef PMS_UTIL_OPTS_H
#define PMS_UTIL_OPTS_H

#include <stddef.h>

struct pms_opts_layout {
	const char *name;     /* the macros' prefix: "PMS_SAMPLER_OPTS" */
	unsigned known;       /* PMS_X_VERSION: this library's version */
	size_t size;          /* sizeof the struct */
	const size_t *sizes;  /* sizes[v - 1]: bytes a version-v caller's struct has
			       * (the end of that version's last field) */
	const void *defaults; /* the PMS_X_INIT value */
};

/* The end of a field: a version's size is the end of its last field. */
#define PMS_OPTS_END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/* Defines pms_opts_layout_<P> for the struct `type` whose macros are
 * P##_VERSION and P##_INIT, from one size per version (PMS_OPTS_END of each
 * version's last field, oldest first). */
#define PMS_OPTS_LAYOUT(P, type, ...)                                                    \
	static const size_t pms_opts_sizes_##P[] = { __VA_ARGS__ };                        \
	static const type pms_opts_defaults_##P = P##_INIT;                                \
	_Static_assert(sizeof(pms_opts_sizes_##P) / sizeof(size_t) == P##_VERSION,        \
		       #P ": one size per version, oldest first");                         \
	const struct pms_opts_layout pms_opts_layout_##P = { #P, P##_VERSION, sizeof(type), \
							     pms_opts_sizes_##P,           \
							     &pms_opts_defaults_##P }

/* 0 with *copy the defaults overlaid with what the caller's version has, or
 * PMS_EINVAL (copy left at the defaults) with a message naming fn, the
 * version and P##_INIT.  `opts` and `copy` point to the same struct type. */
#define PMS_OPTS_TAKE(fn, P, opts, copy)                                                  \
	pms_opts_take((fn), &pms_opts_layout_##P, (opts), (copy),                           \
		      sizeof(*(copy)) + 0 * sizeof((opts) == (copy)))

int pms_opts_take(const char *fn, const struct pms_opts_layout *l, const void *opts, void *copy,
		  size_t copy_size);

/* The version check alone (0 when 1..known, else PMS_EINVAL naming fn, the
 * version and init), the first step of pms_opts_take.  A consumer uses
 * PMS_OPTS_TAKE; this stays for a struct not yet converted (test_opts.c
 * fails on any struct without a layout). */
int pms_opts_check(const char *fn, const char *init, unsigned version, unsigned known);

/* Every options struct's layout (one per PMS_*_VERSION in include/pmuscope/). */
extern const struct pms_opts_layout pms_opts_layout_PMS_ADVISE_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_C2C_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_CATALOG_SELECT;
extern const struct pms_opts_layout pms_opts_layout_PMS_CHILD_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_COUNT_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_COUNTRUN_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_DAMON_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_DAMON_REPORT_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_DAMON_RUN_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_EVENT_PARSE_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_EXPORT_PPROF_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_LIVERUN_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_MEMPROF_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_MIGRATE_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_NUMA_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_PATHPROF_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_RECORDER_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_RENDER_MEM_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_SAMPLER_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_SELFMON_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_SESSION_OPTS;
extern const struct pms_opts_layout pms_opts_layout_PMS_SYS_OPTS;

#endif
