/* Internal: the front-end view of a file's AMD IBS fetch samples
 * (ibs_fetch.c) read under a kernel rule its caller gives: the session's
 * (session/session_fetch.c pms_ibs_fetch_view_file), the one rule by which
 * report, script and c2c name a file's kernel IPs. */
#ifndef PMS_REPORT_FETCHVIEW_INT_H
#define PMS_REPORT_FETCHVIEW_INT_H

#include <stdbool.h>

#include "pmuscope/fetchview.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"
#include "pmuscope/symbols.h"

struct fetch_kernel_rule {
	void *ud;
	/* each MMAP/MMAP2 record of the file, in stream order (the rule keeps
	 * the kernel's and its modules'): 0 or a negative code */
	int (*kernel_mmap)(void *ud, const struct pms_record *rec);
	/* at the file's first sample that may hold a kernel address
	 * (decode/kaddr.h), with the header read by then (pipe mode: the
	 * build ids before it): the file's kernel judged, once */
	void (*kernel_judge)(void *ud, const struct pms_perfdata_info *info);
	/* once the file is read (pipe mode: its in-stream build ids too):
	 * whether its kernel IPs are named by sym (the view's symbolizer,
	 * whose kernel modules the rule may set; it outlives sym), under the
	 * judgment made (none made: no such sample, judged from info) */
	bool (*kernel_named)(void *ud, const struct pms_perfdata_info *info,
			     struct pms_symbolizer *sym);
};

/* pms_ibs_fetch_view_file's work (pmuscope/fetchview.h), kernel IPs named
 * where k says so ("[kernel]" rows elsewhere). */
int ibs_fetch_view_read(struct pms_sys *sys, int fd, bool by_line,
			const struct fetch_kernel_rule *k, struct pms_ibs_fetch_view **out);

#endif
