/* Internal: what the session's split decode of one file (issue 33,
 * src/session/session.c) needs of the memory-sample source. */
#ifndef PMS_SAMPLE_MEMSRC_INT_H
#define PMS_SAMPLE_MEMSRC_INT_H

#include "pmuscope/memsrc.h"

/* Add what part, a recorded source over a chunk of the same file (its
 * records delivered after dst's), counted itself to dst: its counts, its
 * time span, its malformed raw payloads (the first's text kept where dst
 * has none).  The reader's statistics stay dst's. */
void pms_memsrc_absorb(struct pms_memsrc *dst, const struct pms_memsrc *part);

/* Time span of the samples so far (TIME of the first and last), 0 if none. */
uint64_t pms_memsrc_span_ns(const struct pms_memsrc *s);

#endif
