/* Internal to the library: functions that only library code calls, kept
 * out of the exported API (docs/api.md "Opaque objects, accessors and the
 * exported set"). */
#ifndef PMS_LIVERUN_LIVERUN_INT_H
#define PMS_LIVERUN_LIVERUN_INT_H

#include "pmuscope/liverun.h"

/* Deliver what the rings hold now and resolve it (the caller is about to
 * let a waiting process go, or to close a measurement). */
int pms_liverun_drain(struct pms_liverun *run);

/* Seconds since the start (or the last set_duration). */
double pms_liverun_elapsed(const struct pms_liverun *run);

struct pms_sampler *pms_liverun_sampler(const struct pms_liverun *run);

/* Restart the clock with a new limit (0: none) and keep going. */
void pms_liverun_set_duration(struct pms_liverun *run, double seconds);

#endif
