/* The symbolizer a live session keeps from one interval to the next
 * (pms_session_interval, `pmuscope top`): remade only when the mappings it
 * names from changed, so that a frame does not reopen every module and
 * reread kallsyms.  Internal to the session concern. */
#ifndef PMS_SESSION_SYMKEEP_H
#define PMS_SESSION_SYMKEEP_H

#include <stdbool.h>

#include "pmuscope/symbols.h"
#include "pmuscope/sys.h"

/* *sym for maps: kept when *made_from (the copy kept with it) equals maps
 * (pms_maps_equal),
 * else freed and made again, with demangling as asked, *made_from then a
 * copy of maps.  A symbolizer that cannot be made leaves *sym NULL (names
 * are a nicety).  Returns 1 when it was made, 0 when kept or none, or a
 * negative code (no memory for the copy; *sym NULL). */
int pms_symkeep_refresh(struct pms_symbolizer **sym, struct pms_maps **made_from,
			struct pms_sys *sys, const struct pms_maps *maps, bool demangle);

#endif
