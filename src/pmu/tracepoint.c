/* Tracepoints: the events of the "tracepoint" PMU (PERF_TYPE_TRACEPOINT),
 * named "subsystem:event" as perf names them, with the id that goes in
 * attr.config (tracefs events/<subsystem>/<event>/id; kernel/trace/
 * trace_event_perf.c perf_trace_init matches attr.config against it). */
#include "pmuscope/pmu.h"
#include "util/error.h"
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
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

/* fnmatch-like glob (* ? [set]) without a locale; perf matches tracepoint
 * globs on the subsystem and the event separately (strglobmatch). */
static bool glob_match(const char *pat, const char *s)
{
	for (; *pat; pat++, s++) {
		if (*pat == '*') {
			while (pat[1] == '*')
				pat++;
			if (!pat[1])
				return true;
			for (; *s; s++)
				if (glob_match(pat + 1, s))
					return true;
			return false;
		}
		if (!*s)
			return false;
		if (*pat == '[') {
			const char *q = pat + 1;
			bool neg = *q == '!' || *q == '^', hit = false;
			if (neg)
				q++;
			for (; *q && *q != ']'; q++) {
				if (q[1] == '-' && q[2] && q[2] != ']') {
					hit |= *s >= q[0] && *s <= q[2];
					q += 2;
				} else {
					hit |= *q == *s;
				}
			}
			if (!*q || hit == neg)
				return false;
			pat = q;
			continue;
		}
		if (*pat != '?' && *pat != *s)
			return false;
	}
	return !*s;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* The events directory: its root, or the error (EACCES as perf says it). */
static int events_root(struct pms_sys *sys, const char **root, char ***subs, size_t *nsubs)
{
	int denied = 0;
	*root = NULL;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]) && !*root; i++) {
		if (pms_sys_list_dir(sys, roots[i], subs, nsubs) == 0)
			*root = roots[i];
		else if (!denied && (pms_error_errno() == EACCES || pms_error_errno() == EPERM))
			denied = (int)i + 1;
	}
	if (!*root && denied)
		/* there but not readable (tracefs is 0700): perf says so too
		 * ("failed to open tracing events directory") */
		return pms_err_errno(PMS_EPERM, EACCES, "cannot open the tracing events directory "
				     "/%s (tracefs is readable by root only here)",
				     roots[denied - 1]);
	if (!*root)
		return pms_err(PMS_ENOENT, "no tracefs events directory (/%s or /%s): tracefs is "
			       "not mounted or not readable (mount -t tracefs nodev /sys/kernel/tracing)",
			       roots[0], roots[1]);
	return 0;
}

/* Append subsystem:event with the id its id file holds; 0 when the
 * directory is not an event (no id file), 1 when added. */
static int add_one(struct pms_sys *sys, const char *root, const char *sub, const char *ev,
		   struct pms_tracepoint **tp, size_t *ntp, size_t *cap)
{
	char path[512], *line = NULL, *end;
	unsigned long long id;
	snprintf(path, sizeof(path), "%s/%s/%s/id", root, sub, ev);
	if (pms_sys_read_line(sys, path, &line) < 0)
		return 0;
	errno = 0;
	id = strtoull(line, &end, 10);
	bool bad = errno || end == line;
	free(line);
	if (bad)
		return 0;
	if (*ntp == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct pms_tracepoint *g = realloc(*tp, nc * sizeof(**tp));
		if (!g)
			return pms_err(PMS_ENOMEM, "out of memory for tracepoints");
		*tp = g;
		*cap = nc;
	}
	size_t len = strlen(sub) + strlen(ev) + 2;
	char *name = malloc(len);
	if (!name)
		return pms_err(PMS_ENOMEM, "out of memory for tracepoints");
	snprintf(name, len, "%s:%s", sub, ev);
	(*tp)[*ntp].name = name;
	(*tp)[*ntp].id = (uint64_t)id;
	(*ntp)++;
	return 1;
}

int pms_tracepoints_find(struct pms_sys *sys, const char *pattern, struct pms_tracepoint **out,
			 size_t *n)
{
	struct pms_tracepoint *tp = NULL;
	size_t ntp = 0, cap = 0;
	char **subs = NULL, **evs = NULL;
	size_t nsubs = 0, nevs = 0;
	const char *root = NULL;
	char psub[256] = "", pev[256] = "";
	int r;

	if (!out || !n)
		return pms_err(PMS_EINVAL, "pms_tracepoints_find: out and n are required");
	*out = NULL;
	*n = 0;
	if (pattern) {
		const char *colon = strchr(pattern, ':');
		if (!colon || colon == pattern || !colon[1] || strchr(colon + 1, ':') ||
		    (size_t)(colon - pattern) >= sizeof(psub) || strlen(colon + 1) >= sizeof(pev) ||
		    strchr(pattern, '/'))
			return pms_err(PMS_EINVAL, "tracepoint '%s': want subsystem:event", pattern);
		snprintf(psub, sizeof(psub), "%.*s", (int)(colon - pattern), pattern);
		snprintf(pev, sizeof(pev), "%s", colon + 1);
	}
	if ((r = events_root(sys, &root, &subs, &nsubs)) < 0)
		return r;
	if (pattern && !is_glob(psub) && !is_glob(pev)) {
		/* one name: its id file alone, not the whole tree */
		r = add_one(sys, root, psub, pev, &tp, &ntp, &cap);
		goto done;
	}
	for (size_t s = 0; s < nsubs; s++) {
		char path[512];
		if (pattern && !glob_match(psub, subs[s]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, subs[s]);
		if (pms_sys_list_dir(sys, path, &evs, &nevs) < 0)
			continue; /* a plain file (enable, header_page ...) */
		for (size_t e = 0; e < nevs; e++) {
			if (pattern && !glob_match(pev, evs[e]))
				continue;
			if ((r = add_one(sys, root, subs[s], evs[e], &tp, &ntp, &cap)) < 0)
				goto out;
		}
		pms_sys_names_free(evs, nevs);
		evs = NULL;
		nevs = 0;
	}
	r = 0;
done:
	if (r < 0)
		goto out;
	if (pattern && !ntp) {
		r = pms_err(PMS_ENOENT, "unknown tracepoint '%s' (no /%s/%s/%s/id)", pattern, root,
			    psub, pev);
		goto out;
	}
	pms_error_clear();
	*out = tp;
	*n = ntp;
	tp = NULL;
	ntp = 0;
	r = 0;
out:
	pms_sys_names_free(evs, nevs);
	pms_sys_names_free(subs, nsubs);
	pms_tracepoints_free(tp, ntp);
	return r;
}

int pms_tracepoints_list(struct pms_sys *sys, struct pms_tracepoint **out, size_t *n)
{
	return pms_tracepoints_find(sys, NULL, out, n);
}
