#include "check.h"
#include "util/error.h"

#include <errno.h>
#include <string.h>

PMS_TEST(error_messages)
{
	pms_error_clear();
	CHECK_EQ_STR(pms_error_last(), "");
	CHECK_EQ_INT(pms_err(PMS_EPARSE, "record at offset %d truncated", 40), PMS_EPARSE);
	CHECK_EQ_STR(pms_error_last(), "record at offset 40 truncated");
	CHECK_EQ_INT(pms_error_errno(), 0);
	CHECK_EQ_INT(pms_err_errno(0, EACCES, "perf_event_open(%s)", "cycles"), PMS_EPERM);
	CHECK(strstr(pms_error_last(), "perf_event_open(cycles): ") == pms_error_last());
	CHECK(strstr(pms_error_last(), "(errno 13)") != NULL);
	CHECK_EQ_INT(pms_error_errno(), EACCES);
	CHECK_EQ_INT(pms_err_errno(PMS_EIO, ENOENT, "x"), PMS_EIO);
	CHECK_EQ_STR(pms_error_name(PMS_EPARSE), "PMS_EPARSE");
	CHECK_EQ_STR(pms_error_name(-100), "PMS_E?");
	CHECK_EQ_INT(pms_code_from_errno(EOPNOTSUPP), PMS_ENOTSUP);
	CHECK_EQ_INT(pms_code_from_errno(EMFILE), PMS_EBUSY);
	CHECK_EQ_INT(pms_code_from_errno(ENODEV), PMS_ENOENT);
}

/* A message that quotes the previous one (the pattern of topo.c and
 * count.c: pms_err(c, "%s: %s", path, pms_error_last())) must read as
 * written, not as vsnprintf reading the buffer it writes. */
PMS_TEST(error_quotes_previous)
{
	pms_err(PMS_EPARSE, "bad cpu list \"%s\"", "0-3,zz");
	pms_err(PMS_EPARSE, "%s: %s", "devices/system/cpu/online", pms_error_last());
	CHECK_EQ_STR(pms_error_last(), "devices/system/cpu/online: bad cpu list \"0-3,zz\"");
	pms_err_errno(PMS_EIO, ENOENT, "reading %s", "x");
	pms_err_errno(PMS_EIO, EIO, "%s, then %s", pms_error_last(), "y");
	CHECK_EQ_STR(pms_error_last(), "reading x: No such file or directory (errno 2), then y: "
				       "Input/output error (errno 5)");
	CHECK_EQ_INT(pms_error_errno(), EIO);
	/* a long message is cut, never overrun */
	char big[2000];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	pms_err(PMS_EINVAL, "%s", big);
	pms_err(PMS_EINVAL, "%s%s", pms_error_last(), "b");
	CHECK_EQ_INT((long)strlen(pms_error_last()), 1023);
}

PMS_TEST_MAIN()
