/* Internal: what unwind.c takes from symbolizer.c. */
#ifndef PMS_SYMBOLS_SYMBOLS_INT_H
#define PMS_SYMBOLS_SYMBOLS_INT_H

#include <stddef.h>

#include "pmuscope/symbols.h"

/* The file-backed mappings of m as /proc/PID/maps text (paths prefixed
 * with root unless it is "/"), for dwfl_linux_proc_maps_report; malloc'd,
 * *len bytes; NULL when out of memory. */
char *pms_sym_maps_text(const struct pms_maps *m, const char *root, size_t *len);

#endif
