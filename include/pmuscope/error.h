/* pmuscope error convention.
 *
 * Every fallible function returns 0 (or a non-negative count) on success and a
 * negative PMS_E* code on failure.  The failing call also records a message in
 * a per-thread buffer, read with pms_error_last(); the message names what
 * failed (path, event string, attr field, errno) and what to try.
 *
 * Ownership: the string returned by pms_error_last() belongs to the library and
 * stays valid until the next pmuscope call on the same thread.
 */
#ifndef PMUSCOPE_ERROR_H
#define PMUSCOPE_ERROR_H

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

enum pms_error {
	PMS_OK = 0,
	PMS_EINVAL = -1,   /* bad argument or option */
	PMS_ENOMEM = -2,   /* allocation failed */
	PMS_EIO = -3,      /* read/write of a file or fd failed */
	PMS_EPARSE = -4,   /* malformed input (record, file, string); message has the offset */
	PMS_ENOENT = -5,   /* no such file, PMU, event, node ... */
	PMS_EPERM = -6,    /* the kernel refused for lack of privilege */
	PMS_ENOTSUP = -7,  /* the kernel or hardware does not support it */
	PMS_ERANGE = -8,   /* value out of range, buffer too small */
	PMS_EBUSY = -9,    /* resource in use (counters, fds) */
	PMS_ESYS = -10,    /* other kernel error; pms_error_errno() has the errno */
	PMS_ENOTLIVE = -11 /* live-only call on a context that is not this system */
};

/* The message of the last failure on this thread ("" if none). */
const char *pms_error_last(void);

/* The errno behind the last failure on this thread, 0 if none was involved. */
int pms_error_errno(void);

/* A short constant name for a PMS_E* code ("PMS_EPARSE"). */
const char *pms_error_name(int code);

/* Forget the last error on this thread. */
void pms_error_clear(void);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
