/* `pmuscope report --types`: samples per data type and member (issue 29),
 * the session's type profile (pms_session_typeprof) rendered as text or
 * JSON. */
#ifndef PMUSCOPE_TOOLS_TYPES_RENDER_H
#define PMUSCOPE_TOOLS_TYPES_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "pmuscope/types.h"

/* The table: text (top rows) or JSON; 0, or 1 when it cannot be built. */
int types_cli_render(struct pms_typeprof *tp, bool json, size_t top);

#endif
