/* The NUMA placement advisor's text (docs/advise.md): a pms_migrate_range
 * result line, written into a caller's FILE (the library prints nothing on
 * its own).  The plan, --apply and comparison texts are the renderers'
 * (src/advise/advise_text_int.h, called by src/render/advise.c).
 *
 * Ownership: nothing here allocates; everything is borrowed for the call.
 */
#ifndef PMUSCOPE_ADVISE_TEXT_H
#define PMUSCOPE_ADVISE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pmuscope/advise.h"
#include "pmuscope/report.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* One pms_migrate_range result: pages moved, already there, not present,
 * failed (by errno), on target after, move_pages calls. */
void pms_migrate_render_text(FILE *f, const struct pms_migrate_result *r, const int *nodes,
			     size_t nnodes);

PMS_API_END
#ifdef __cplusplus
}
#endif

#endif
