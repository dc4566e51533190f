/* Internal: setting the per-thread error (see include/pmuscope/error.h). */
#ifndef PMS_UTIL_ERROR_H
#define PMS_UTIL_ERROR_H

#include "pmuscope/error.h"

#if defined(__GNUC__)
#define PMS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PMS_PRINTF(a, b)
#endif

/* Record a failure and return code (so callers can `return pms_err(...)`). */
int pms_err(int code, const char *fmt, ...) PMS_PRINTF(2, 3);

/* Record a failure caused by errno value err (positive); the message gets
 * ": <strerror> (errno N)" appended.  The code is chosen from err unless
 * code is not 0. */
int pms_err_errno(int code, int err, const char *fmt, ...) PMS_PRINTF(3, 4);

/* Map a positive errno to the PMS_E* code used by pms_err_errno. */
int pms_code_from_errno(int err);

#endif
