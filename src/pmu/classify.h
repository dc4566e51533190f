/* Internal: naming PMUs by kind, precise engine and uncore scope. */
#ifndef PMS_PMU_CLASSIFY_H
#define PMS_PMU_CLASSIFY_H

#include "pmuscope/pmu.h"

/* Fill pmu->kind, engine, scope, box and box_index from its name and the
 * files already loaded (cpus/cpumask, caps).  Returns 0 or PMS_ENOMEM. */
int pms_pmu_classify(struct pms_pmu *pmu);

#endif
