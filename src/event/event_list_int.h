/* Internal to the library: the body of struct pms_event_list, which the
 * public header keeps opaque (callers walk it with pms_event_list_count /
 * pms_event_list_at).  src/event builds it; library code that fills or
 * reads a list whole (counting, probes) and tests that check a parse whole
 * include this. */
#ifndef PMS_EVENT_LIST_INT_H
#define PMS_EVENT_LIST_INT_H

#include <stddef.h>

#include "pmuscope/event.h"

struct pms_event_list {
	struct pms_event *events;
	size_t count;
	int ngroups; /* groups are numbered 0 .. ngroups-1 */
};

#endif
