/* This machine's CPU identity for catalog selection.  The identity is read
 * once, by the topology (src/topo: /proc/cpuinfo's first processor and each
 * CPU's regs/identification/midr_el1); this file only turns it into a
 * selection: x86 vendor-family-model[-stepping] in perf's get_cpuid_str form
 * (tools/perf/arch/x86/util/header.c), or the arm64 MIDR_EL1 of one CPU
 * (arch/arm64/kernel/cpuinfo.c). */
#include <stdio.h>
#include <stdlib.h>

#include "pmuscope/catalog.h"
#include "pmuscope/topo.h"
#include "util/error.h"
#include "topo/topo_int.h"

int pms_catalog_select_for_topo(const struct pms_topo *t, int cpu, struct pms_catalog_select *sel,
				char *idbuf, size_t idlen)
{
	const struct pms_topo_cpu *c;

	if (!t || !sel || cpu < 0)
		return pms_err(PMS_EINVAL, "pms_catalog_select_for_topo: bad argument");
	if ((c = pms_topo_cpu(t, cpu)) && c->midr) {
		sel->midr = c->midr;
		sel->has_midr = true;
		return 0;
	}
	if (!t->vendor[0] || t->family < 0 || t->model < 0 || !idbuf || !idlen)
		return pms_err(PMS_ENOENT,
			       "cannot identify the CPU: cpu%d exposes no MIDR and proc/cpuinfo has no "
			       "vendor_id/cpu family/model; give --cpu", cpu);
	if (t->stepping >= 0)
		snprintf(idbuf, idlen, "%s-%d-%X-%X", t->vendor, t->family, (unsigned)t->model,
			 (unsigned)t->stepping);
	else
		snprintf(idbuf, idlen, "%s-%d-%X", t->vendor, t->family, (unsigned)t->model);
	sel->x86_id = idbuf;
	return 0;
}

int pms_catalog_identify(struct pms_sys *sys, int cpu, struct pms_catalog_select *sel,
			 char *idbuf, size_t idlen)
{
	/* Only the identity part of the topology: snapshots for catalog
	 * selection may hold nothing but proc/cpuinfo or the MIDR files. */
	struct pms_topo *t = NULL;
	int r;

	if (!sys || !sel || cpu < 0)
		return pms_err(PMS_EINVAL, "pms_catalog_identify: bad argument");
	if ((r = pms_topo_load_cpuid(sys, &t)) < 0)
		return r;
	r = pms_catalog_select_for_topo(t, cpu, sel, idbuf, idlen);
	pms_topo_free(t);
	return r;
}
