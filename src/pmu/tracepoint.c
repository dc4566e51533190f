/* Tracepoints: the events of the "tracepoint" PMU (PERF_TYPE_TRACEPOINT),
 * named "subsystem:event" as perf names them, with the id that goes in
 * attr.config (tracefs events/<subsystem>/<event>/id; kernel/trace/
 * trace_event_perf.c perf_trace_init matches attr.config against it). */
#include "pmuscope/pmu.h"
#include "util/error.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tracefs: its own mount, else below debugfs (tools/lib/api/fs/tracing_path.c). */
static const char *const roots[] = { "sys/kernel/tracing/events", "sys/kernel/debug/tracing/events" };

void pms_tracepoints_free(struct pms_tracepoint *tp, size_t n)
{
	for (size_t i = 0; tp && i < n; i++)
		free(tp[i].name);
	free(tp);
}

int pms_tracepoints_list(struct pms_sys *sys, struct pms_tracepoint **out, size_t *n)
{
	struct pms_tracepoint *tp = NULL;
	size_t ntp = 0, cap = 0;
	char **subs = NULL, **evs = NULL;
	size_t nsubs = 0, nevs = 0;
	const char *root = NULL;
	int r = 0;

	*out = NULL;
	*n = 0;
	int denied = 0;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]) && !root; i++) {
		if (pms_sys_list_dir(sys, roots[i], &subs, &nsubs) == 0)
			root = roots[i];
		else if (!denied && (pms_error_errno() == EACCES || pms_error_errno() == EPERM))
			denied = (int)i + 1;
	}
	if (!root && denied)
		/* there but not readable (tracefs is 0700): perf says so too
		 * ("failed to open tracing events directory") */
		return pms_err_errno(PMS_EPERM, EACCES, "cannot open the tracing events directory "
				     "/%s (tracefs is readable by root only here)",
				     roots[denied - 1]);
	if (!root)
		return pms_err(PMS_ENOENT, "no tracefs events directory (/%s or /%s): tracefs is "
			       "not mounted or not readable (mount -t tracefs nodev /sys/kernel/tracing)",
			       roots[0], roots[1]);
	for (size_t s = 0; s < nsubs; s++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", root, subs[s]);
		if (pms_sys_list_dir(sys, path, &evs, &nevs) < 0)
			continue; /* a plain file (enable, header_page ...) */
		for (size_t e = 0; e < nevs; e++) {
			char *line = NULL, *end;
			unsigned long long id;
			snprintf(path, sizeof(path), "%s/%s/%s/id", root, subs[s], evs[e]);
			if (pms_sys_read_line(sys, path, &line) < 0)
				continue; /* not an event directory */
			errno = 0;
			id = strtoull(line, &end, 10);
			if (errno || end == line) {
				free(line);
				continue;
			}
			free(line);
			if (ntp == cap) {
				size_t nc = cap ? cap * 2 : 256;
				struct pms_tracepoint *g = realloc(tp, nc * sizeof(*tp));
				if (!g) {
					r = pms_err(PMS_ENOMEM, "out of memory for tracepoints");
					goto out;
				}
				tp = g;
				cap = nc;
			}
			size_t len = strlen(subs[s]) + strlen(evs[e]) + 2;
			tp[ntp].name = malloc(len);
			if (!tp[ntp].name) {
				r = pms_err(PMS_ENOMEM, "out of memory for tracepoints");
				goto out;
			}
			snprintf(tp[ntp].name, len, "%s:%s", subs[s], evs[e]);
			tp[ntp].id = (uint64_t)id;
			ntp++;
		}
		pms_sys_names_free(evs, nevs);
		evs = NULL;
		nevs = 0;
	}
	pms_error_clear();
	*out = tp;
	*n = ntp;
	tp = NULL;
	ntp = 0;
out:
	pms_sys_names_free(evs, nevs);
	pms_sys_names_free(subs, nsubs);
	pms_tracepoints_free(tp, ntp);
	return r;
}
