/* Facts about the machine that several concerns and the CLI want, each read
 * in one place (sys.h): perf_event_paranoid and the host's names. */
#include "pmuscope/error.h"
#include "pmuscope/sys.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pms_sys_perf_paranoid(const struct pms_sys *sys, int *level)
{
	char *line = NULL, *end;
	long v;
	int rc;

	if (!sys || !level)
		return pms_err(PMS_EINVAL, "pms_sys_perf_paranoid: NULL argument");
	if ((rc = pms_sys_read_line(sys, "proc/sys/kernel/perf_event_paranoid", &line)) < 0)
		return rc;
	v = strtol(line, &end, 10);
	rc = end == line ? pms_err(PMS_EPARSE, "perf_event_paranoid \"%.20s\" is no integer", line)
			 : 0;
	if (!rc)
		*level = (int)v;
	free(line);
	return rc;
}

/* The first line of proc/sys/kernel/<name> into buf; false when unreadable. */
static bool kernel_line(const struct pms_sys *sys, const char *name, char *buf, size_t size)
{
	char rel[64], *text = NULL;
	snprintf(rel, sizeof(rel), "proc/sys/kernel/%s", name);
	if (pms_sys_read_file(sys, rel, &text, NULL) < 0)
		return false;
	text[strcspn(text, "\n")] = 0;
	snprintf(buf, size, "%s", text);
	free(text);
	return true;
}

int pms_host_facts_read(const struct pms_sys *sys, struct pms_host_facts *out)
{
	if (!sys || !out)
		return pms_err(PMS_EINVAL, "pms_host_facts_read: NULL argument");
	memset(out, 0, sizeof(*out));
	out->has_hostname = kernel_line(sys, "hostname", out->hostname, sizeof(out->hostname));
	out->has_osrelease = kernel_line(sys, "osrelease", out->osrelease, sizeof(out->osrelease));
	out->has_arch = kernel_line(sys, "arch", out->arch, sizeof(out->arch));
	pms_error_clear(); /* an unreadable fact is no error */
	return 0;
}
