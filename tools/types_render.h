/* `pmuscope report --types`: samples per data type and member (issue 29),
 * fed by the session's sample and side-band callbacks, rendered as text
 * or JSON.  Ownership: types_cli_open gives an object freed by
 * types_cli_close. */
#ifndef PMUSCOPE_TOOLS_TYPES_RENDER_H
#define PMUSCOPE_TOOLS_TYPES_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "pmuscope/record.h"
#include "pmuscope/memsrc.h"

struct types_cli;
int types_cli_open(struct types_cli **out);
void types_cli_close(struct types_cli *t);
/* pms_session_callbacks' sample and sideband */
int types_cli_sample(void *ud, const struct pms_memsrc_sample *s);
int types_cli_sideband(void *ud, const struct pms_record *rec, size_t attr_idx);
/* The table: text (top rows) or JSON; 0, or 1 when it cannot be built. */
int types_cli_render(struct types_cli *t, bool json, size_t top);

#endif
