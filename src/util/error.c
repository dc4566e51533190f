#include "util/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_msg[1024];
static _Thread_local int last_errno;
/* Messages are formatted here and then copied to last_msg, so a message
 * may quote the previous one (pms_err(c, "%s: %s", path, pms_error_last()))
 * without vsnprintf reading the buffer it writes, which is undefined. */
static _Thread_local char scratch[sizeof(last_msg)];

static void set_msg(void)
{
	/* the message only, not the whole buffer: lookups that miss set one
	 * per sample */
	size_t n = strnlen(scratch, sizeof(scratch) - 1);
	memcpy(last_msg, scratch, n);
	last_msg[n] = '\0';
}

const char *pms_error_last(void)
{
	return last_msg;
}

int pms_error_errno(void)
{
	return last_errno;
}

void pms_error_clear(void)
{
	last_msg[0] = '\0';
	last_errno = 0;
}

const char *pms_error_name(int code)
{
	static const char *const names[] = {
		"PMS_OK",     "PMS_EINVAL",  "PMS_ENOMEM", "PMS_EIO",
		"PMS_EPARSE", "PMS_ENOENT",  "PMS_EPERM",  "PMS_ENOTSUP",
		"PMS_ERANGE", "PMS_EBUSY",   "PMS_ESYS",   "PMS_ENOTLIVE",
	};
	if (code > 0)
		return "PMS_OK";
	if (-code >= (int)(sizeof(names) / sizeof(names[0])))
		return "PMS_E?";
	return names[-code];
}

int pms_err(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(scratch, sizeof(scratch), fmt, ap);
	va_end(ap);
	set_msg();
	last_errno = 0;
	return code;
}

int pms_code_from_errno(int err)
{
	switch (err) {
	case EINVAL: return PMS_EINVAL;
	case ENOMEM: return PMS_ENOMEM;
	case ENOENT: case ENODEV: case ESRCH: return PMS_ENOENT;
	case EACCES: case EPERM: return PMS_EPERM;
	case EOPNOTSUPP: case ENOSYS: return PMS_ENOTSUP;
	case EBUSY: case EMFILE: case ENFILE: return PMS_EBUSY;
	case ERANGE: case E2BIG: return PMS_ERANGE;
	case EIO: return PMS_EIO;
	default: return PMS_ESYS;
	}
}

int pms_err_errno(int code, int err, const char *fmt, ...)
{
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(scratch, sizeof(scratch), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(scratch))
		snprintf(scratch + n, sizeof(scratch) - (size_t)n, ": %s (errno %d)",
			 strerror(err), err);
	set_msg();
	last_errno = err;
	return code ? code : pms_code_from_errno(err);
}
