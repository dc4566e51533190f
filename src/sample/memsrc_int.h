/* Internal: what the session's split decode of one file (issue 33,
 * src/session/session.c) and the live run (src/liverun/liverun.c) need of
 * the memory-sample source. */
#ifndef PMS_SAMPLE_MEMSRC_INT_H
#define PMS_SAMPLE_MEMSRC_INT_H

#include "pmuscope/memsrc.h"

/* Add what part, a recorded source over a chunk of the same file (its
 * records delivered after dst's), counted itself to dst: its counts, its
 * time span, its malformed raw payloads (the first's text kept where dst
 * has none).  The reader's statistics stay dst's. */
void pms_memsrc_absorb(struct pms_memsrc *dst, const struct pms_memsrc *part);

/* A live source: hand out every record it holds now, in time order, as
 * the poll after pms_sampler_disable does (a poll hands out only those up
 * to the latest time of the drains before its own).  For a caller that
 * needs the records drained so far now (the samples of threads stopped at
 * their exit): one pms_memsrc_poll (the rings drained) then this.  A
 * record the kernel stamped during that drain on a ring already read
 * comes with the next poll, after the later ones handed out here (counted
 * late).  A recorded source: nothing (0).  0, or a callback's negative
 * code (the rest stays held for the next poll or flush). */
int pms_memsrc_flush(struct pms_memsrc *s, const struct pms_memsrc_callbacks *cb, void *ud);

#endif
