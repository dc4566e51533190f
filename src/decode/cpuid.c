/* The one parser of a recording's HEADER_CPUID string (datasrc.h). */
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

int pms_cpuid_parse(const char *cpuid, struct pms_cpuid *out)
{
	const char *comma, *p;
	char *end;
	unsigned long v;

	if (!cpuid || !out)
		return pms_err(PMS_EINVAL, "pms_cpuid_parse: NULL argument");
	memset(out, 0, sizeof(*out));
	out->family = out->model = out->stepping = -1;
	comma = strchr(cpuid, ',');
	if (!comma) {
		/* arm64: the MIDR_EL1 in hex, "0x%016lx" */
		if (cpuid[0] == '0' && (cpuid[1] == 'x' || cpuid[1] == 'X') && cpuid[2]) {
			unsigned long long m = strtoull(cpuid + 2, &end, 16);
			if (!*end) {
				out->midr = m;
				out->has_midr = true;
				return 0;
			}
		}
		return pms_err(PMS_EPARSE, "CPUID \"%.40s\": neither vendor,family,model,stepping "
					   "nor a MIDR", cpuid);
	}
	if (comma == cpuid || (size_t)(comma - cpuid) >= sizeof(out->vendor))
		return pms_err(PMS_EPARSE, "CPUID \"%.40s\": no vendor before the first comma", cpuid);
	memcpy(out->vendor, cpuid, (size_t)(comma - cpuid));
	out->vendor[comma - cpuid] = 0;
	out->amd = !strcmp(out->vendor, "AuthenticAMD") || !strcmp(out->vendor, "HygonGenuine");
	p = comma + 1;
	v = strtoul(p, &end, 10);
	if (end == p || *end != ',' || v > 0xffff)
		return pms_err(PMS_EPARSE, "CPUID \"%.40s\": no family after the vendor", cpuid);
	out->family = (int)v;
	p = end + 1;
	v = strtoul(p, &end, 10);
	if (end == p || v > 0xffff) {
		out->family = -1;
		return pms_err(PMS_EPARSE, "CPUID \"%.40s\": no model after the family", cpuid);
	}
	out->model = (int)v;
	if (*end == ',') {
		p = end + 1;
		v = strtoul(p, &end, 10);
		if (end != p && v <= 0xffff)
			out->stepping = (int)v;
	}
	return 0;
}
