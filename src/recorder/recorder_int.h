/* Internal to the library: functions that only library code calls, kept
 * out of the exported API (docs/api.md "Opaque objects, accessors and the
 * exported set"). */
#ifndef PMS_RECORDER_RECORDER_INT_H
#define PMS_RECORDER_RECORDER_INT_H

#include "pmuscope/recorder.h"

/* Set feature feat's payload (written by pms_recorder_finish; replaces an
 * earlier one): the allocation records' (PMS_PERFDATA_FEAT_PMUSCOPE_ALLOC,
 * pms_session_finish). */
int pms_recorder_set_feature(struct pms_recorder *r, unsigned feat, const void *payload,
			     size_t len);

/* Put the header down now so the file is readable (by perf too) up to the
 * records written so far if the recorder is killed; cheap enough to call
 * once a second. */
int pms_recorder_sync(struct pms_recorder *r);

#endif
