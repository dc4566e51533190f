/* Internal to the library: the body of struct pms_pmus, which the public
 * header keeps opaque (callers walk it with pms_pmus_count / pms_pmus_at).
 * src/pmu fills it; tests that build a PMU list by hand include this. */
#ifndef PMS_PMU_INT_H
#define PMS_PMU_INT_H

#include <stddef.h>

#include "pmuscope/pmu.h"

struct pms_pmus {
	struct pms_pmu *pmus;
	size_t count;
};

#endif
