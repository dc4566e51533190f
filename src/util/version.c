#include "version.h"

const char *pms_version(void)
{
	return PMS_VERSION_STRING;
}
