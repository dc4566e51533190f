/* Shared by the event tests: render a parsed list as one line and run
 * tables of (event string -> expected rendering or error) rows. */
#ifndef PMS_TESTS_EVENT_T_H
#define PMS_TESTS_EVENT_T_H

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"

/* Each event: "[pmu:]<describe>[@cpus][ gN[L]][ W][ S][ P]", joined by " ; ". */
static inline void ev_render(const struct pms_event_list *l, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < pms_event_list_count(l) && n + 1 < size; i++) {
		const struct pms_event *e = pms_event_list_at(l, i);
		char d[512], c[256];
		pms_event_describe(e, d, sizeof(d));
		c[0] = '\0';
		if (pms_cpuset_count(&e->cpus) > 0) {
			c[0] = '@';
			pms_cpuset_format(&e->cpus, c + 1, sizeof(c) - 1);
		}
		n += (size_t)snprintf(buf + n, size - n, "%s%s%s%s%s", i ? " ; " : "",
				      e->pmu ? e->pmu : "", e->pmu ? ":" : "", d, c);
		if (n < size && e->group >= 0)
			n += (size_t)snprintf(buf + n, size - n, " g%d%s", e->group,
					      e->group_leader ? "L" : "");
		if (n < size && e->weak)
			n += (size_t)snprintf(buf + n, size - n, " W");
		if (n < size && e->sample_read)
			n += (size_t)snprintf(buf + n, size - n, " S");
		if (n < size && e->precise_max)
			n += (size_t)snprintf(buf + n, size - n, " P");
	}
}

/* rc == 0: expect is the exact rendering; rc < 0: expect is a substring of
 * the message (which must also quote the event string). */
struct ev_row {
	const char *text;
	int rc;
	const char *expect;
};

/* The rows parsed with opts (NULL: plain pms_event_parse). */
static inline void ev_run_rows_opts(const struct pms_pmus *pmus,
				    const struct pms_event_parse_opts *opts, const char *where,
				    const struct ev_row *rows, size_t nrows)
{
	for (size_t i = 0; i < nrows; i++) {
		const struct ev_row *r = &rows[i];
		struct pms_event_list *l = (struct pms_event_list *)1;
		char got[4096];
		int rc = opts ? pms_event_parse_ex(pmus, r->text, opts, &l)
			      : pms_event_parse(pmus, r->text, &l);
		if (rc != r->rc) {
			CHECK_MSG(rc == r->rc, "[%s] row %zu '%s': rc %s, want %s (%s)", where, i,
				  r->text, pms_error_name(rc), pms_error_name(r->rc),
				  rc < 0 ? pms_error_last() : "ok");
		} else if (rc == 0) {
			ev_render(l, got, sizeof(got));
			CHECK_MSG(!strcmp(got, r->expect), "[%s] row %zu '%s':\n   got  %s\n   want %s",
				  where, i, r->text, got, r->expect);
		} else {
			const char *msg = pms_error_last();
			CHECK_MSG(l == NULL, "[%s] row %zu: *out not NULL on error", where, i);
			CHECK_MSG(strstr(msg, r->expect) != NULL,
				  "[%s] row %zu '%s': message '%s' lacks '%s'", where, i, r->text, msg,
				  r->expect);
			CHECK_MSG(strstr(msg, r->text) != NULL,
				  "[%s] row %zu: message '%s' does not quote the event", where, i,
				  msg);
		}
		pms_event_list_free(rc == 0 ? l : NULL);
	}
}

static inline void ev_run_rows(const struct pms_pmus *pmus, const char *where,
			       const struct ev_row *rows, size_t nrows)
{
	ev_run_rows_opts(pmus, NULL, where, rows, nrows);
}

#endif
