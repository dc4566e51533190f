/* This machine's CPU identity for catalog selection, read through the kernel
 * seam: x86 vendor-family-model from /proc/cpuinfo (perf's get_cpuid_str
 * form, tools/perf/arch/x86/util/header.c), arm64 MIDR_EL1 from
 * /sys/devices/system/cpu/cpuN/regs/identification/midr_el1
 * (arch/arm64/kernel/cpuinfo.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/catalog.h"
#include "util/error.h"

/* The value of "key\t: value" in cpuinfo text, copied to buf. */
static bool cpuinfo_field(const char *text, const char *key, char *buf, size_t size)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, kl) || (p[kl] != ' ' && p[kl] != '\t' && p[kl] != ':'))
			continue;
		const char *c = strchr(p, ':');
		const char *nl = strchr(p, '\n');
		if (!c || (nl && c > nl))
			continue;
		c++;
		while (*c == ' ' || *c == '\t')
			c++;
		size_t l = nl ? (size_t)(nl - c) : strlen(c);
		snprintf(buf, size, "%.*s", (int)l, c);
		return true;
	}
	return false;
}

int pms_catalog_identify(struct pms_sys *sys, int cpu, struct pms_catalog_select *sel,
			 char *idbuf, size_t idlen)
{
	char path[128];
	uint64_t midr;
	char *text = NULL;

	if (!sys || !sel || cpu < 0)
		return pms_err(PMS_EINVAL, "pms_catalog_identify: bad argument");
	snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu%d/regs/identification/midr_el1", cpu);
	if (pms_sys_exists(sys, path) && pms_sys_read_u64(sys, path, &midr) == 0) {
		sel->midr = midr;
		sel->has_midr = true;
		return 0;
	}
	if (pms_sys_read_file(sys, "proc/cpuinfo", &text, NULL) < 0)
		return pms_err(PMS_ENOENT,
			       "cannot identify the CPU: neither %s nor proc/cpuinfo is readable; give --cpu",
			       path);
	char vendor[64], family[16], model[16], stepping[16];
	int r = 0;
	if (cpuinfo_field(text, "vendor_id", vendor, sizeof(vendor)) &&
	    cpuinfo_field(text, "cpu family", family, sizeof(family)) &&
	    cpuinfo_field(text, "model", model, sizeof(model))) {
		if (cpuinfo_field(text, "stepping", stepping, sizeof(stepping)))
			snprintf(idbuf, idlen, "%s-%lu-%lX-%lX", vendor, strtoul(family, NULL, 10),
				 strtoul(model, NULL, 10), strtoul(stepping, NULL, 10));
		else
			snprintf(idbuf, idlen, "%s-%lu-%lX", vendor, strtoul(family, NULL, 10),
				 strtoul(model, NULL, 10));
		sel->x86_id = idbuf;
	} else {
		r = pms_err(PMS_ENOENT,
			    "cannot identify the CPU: proc/cpuinfo has no vendor_id/cpu family/model and no MIDR is exposed; give --cpu");
	}
	free(text);
	return r;
}
