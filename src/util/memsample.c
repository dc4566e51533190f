#include "pmuscope/memsample.h"

const char *pms_engine_label(enum pms_engine e)
{
	switch (e) {
	case PMS_ENG_IBS: return "AMD IBS (ibs_op)";
	case PMS_ENG_PEBS: return "Intel PEBS";
	case PMS_ENG_SPE: return "Arm SPE";
	case PMS_ENG_SOFTWARE: return "software page-fault sampling (first touch; no data source)";
	case PMS_ENG_NONE: break;
	}
	return "none";
}
