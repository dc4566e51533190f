/* Internal: what unwind.c takes from symbolizer.c. */
#ifndef PMS_SYMBOLS_SYMBOLS_INT_H
#define PMS_SYMBOLS_SYMBOLS_INT_H

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/symbols.h"

/* The file-backed mappings of m as /proc/PID/maps text (paths prefixed
 * with root unless it is "/"), for dwfl_linux_proc_maps_report; malloc'd,
 * *len bytes; NULL when out of memory. */
char *pms_sym_maps_text(const struct pms_maps *m, const char *root, size_t *len);

struct pms_dwline;

/* The .debug_line reader for mod's DWARF (the file libdwfl takes it from:
 * the main file when it has DWARF, else its separate debug file, found by
 * the same dwfl_standard_find_debuginfo), and the bias to take off a
 * module address.  Negative PMS_E* when there is none or it cannot be
 * read; lookups then go to libdw. */
int pms_sym_dwline_open(Dwfl_Module *mod, struct pms_dwline **out, uint64_t *bias);

#endif
