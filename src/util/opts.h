/* The one rule for options structs (docs/api.md, "Options structs").
 *
 * Every public constructor that takes `const struct pms_X_opts *opts`:
 *   - NULL means the defaults, exactly as if the caller passed
 *     &(struct pms_X_opts)PMS_X_OPTS_INIT;
 *   - opts->version 0 is refused (a struct not started from PMS_X_OPTS_INIT);
 *   - versions 1..PMS_X_OPTS_VERSION are accepted: a program built against an
 *     older header has a shorter struct, so a field added in version N is read
 *     only when opts->version >= N (its default otherwise);
 *   - a version above PMS_X_OPTS_VERSION is refused with PMS_EINVAL: the
 *     program was built against a newer pmuscope than the one it runs with.
 */
#ifndef PMS_UTIL_OPTS_H
#define PMS_UTIL_OPTS_H

/* 0 when version is one this library knows (1..known), else PMS_EINVAL with a
 * message naming fn, the version, and init (the PMS_X_OPTS_INIT macro). */
int pms_opts_check(const char *fn, const char *init, unsigned version, unsigned known);

#endif
