#include "check.h"
#include "util/error.h"

#include <errno.h>

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

PMS_TEST_MAIN()
