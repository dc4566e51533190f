/* Internal: the built-in ARM and Apple tables shared by src/catalog files. */
#ifndef PMS_CATALOG_ARM_INT_H
#define PMS_CATALOG_ARM_INT_H

#include <stddef.h>

#include "pmuscope/armpmu.h"

extern const struct pms_arm_event pms_arm_events[];
extern const size_t pms_arm_nevents;

#endif
