/* Internal to the library: functions that only library code calls, kept
 * out of the exported API (docs/api.md "Opaque objects, accessors and the
 * exported set"). */
#ifndef PMS_SYS_SYS_INT_H
#define PMS_SYS_SYS_INT_H

#include "pmuscope/sys.h"

/* A file below the root read piece by piece (for files read only as far
 * as needed, such as proc/kallsyms: the kernel formats every line read).
 * Opened as pms_sys_read_file opens (regular files only); the stream is
 * owned by the caller, who closes it with pms_sys_stream_close (NULL is
 * fine). */
struct pms_sys_stream;
int pms_sys_stream_open(const struct pms_sys *sys, const char *relpath,
			struct pms_sys_stream **out);

/* Up to max bytes into buf: the count read, 0 at the end of the file, or a
 * negative PMS_E* code. */
ssize_t pms_sys_stream_read(struct pms_sys_stream *f, void *buf, size_t max);

void pms_sys_stream_close(struct pms_sys_stream *f);

/* The stream's file descriptor (read-only, a regular file; the stream
 * keeps owning it): for a reader that maps the file (libelf). */
int pms_sys_stream_fd(const struct pms_sys_stream *f);

#endif
