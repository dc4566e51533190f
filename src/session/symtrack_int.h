/* Internal: what the session's other parts ask of a symtrack. */
#ifndef PMS_SESSION_SYMTRACK_INT_H
#define PMS_SESSION_SYMTRACK_INT_H

#include "pmuscope/symbols.h"
#include "pmuscope/symtrack.h"

/* Process pid's mappings at this point of the stream (the DWARF unwinder's
 * modules), NULL when none were seen; borrowed until the next record. */
const struct pms_maps *symtrack_maps(struct pms_symtrack *t, uint32_t pid);

#endif
