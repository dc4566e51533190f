/* The catalog for a machine (pms_catalog_open_machine): the given or the
 * machine's CPU identity, per cluster on big.LITTLE, the built-in ARM PMUv3
 * table without a path; whether the machine can count a catalog event
 * (pms_catalog_event_available). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/catalog.h"
#include "pmuscope/error.h"
#include "pmuscope/pmu.h"
#include "util/error.h"

/* Free cat and prefix the failure's message with what failed. */
static int fail(struct pms_catalog *cat, int rc, const char *what)
{
	char msg[512];
	snprintf(msg, sizeof(msg), "%s", pms_error_last());
	pms_catalog_free(cat);
	return pms_err(rc < 0 ? rc : PMS_EINVAL, "catalog %s: %s", what, msg);
}

/* big.LITTLE: each core PMU's files by its first CPU's MIDR.  The number of
 * clusters loaded, or a failure. */
static int load_per_cluster(struct pms_catalog *cat, struct pms_sys *sys,
			    const struct pms_pmus *pmus, const char *path)
{
	char idbuf[64];
	int loaded = 0, rc;
	for (size_t i = 0; i < pms_pmus_count(pmus); i++) {
		const struct pms_pmu *p = pms_pmus_at(pmus, i);
		struct pms_catalog_select cs = PMS_CATALOG_SELECT_INIT;
		if (p->kind != PMS_PMU_CORE)
			continue;
		int first = p->has_cpus ? pms_cpuset_first(&p->cpus) : 0;
		if (first < 0 || pms_catalog_identify(sys, first, &cs, idbuf, sizeof(idbuf)) < 0 ||
		    !cs.has_midr) {
			pms_error_clear();
			continue;
		}
		if ((rc = pms_catalog_load_for_pmu(cat, path, &cs, p->name)) < 0)
			return rc;
		loaded++;
	}
	return loaded;
}

int pms_catalog_open_machine(struct pms_sys *sys, const struct pms_pmus *pmus,
			     const char *path, const char *cpu, struct pms_catalog **out)
{
	struct pms_catalog *cat = NULL;
	struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
	char idbuf[64];
	bool known;
	int loaded = 0, rc;

	if (!out)
		return pms_err(PMS_EINVAL, "pms_catalog_open_machine: out is required");
	*out = NULL;
	if (cpu) {
		if ((rc = pms_catalog_select_parse(&sel, cpu)) < 0)
			return fail(NULL, rc, cpu);
		known = true;
	} else {
		known = pms_catalog_identify(sys, 0, &sel, idbuf, sizeof(idbuf)) == 0;
		if (!known)
			pms_error_clear(); /* the loader says what it needs */
	}
	if ((!path || !*path) && !(known && sel.has_midr))
		return 0; /* no catalog: sysfs names only */
	if ((rc = pms_catalog_new(&cat)) < 0)
		return fail(NULL, rc, "(new)");
	if (!path || !*path) {
		if ((rc = pms_catalog_add_arm_common(cat)) < 0)
			return fail(cat, rc, "built-in ARM PMUv3");
		*out = cat;
		return 0;
	}
	if (!cpu && known && sel.has_midr && pmus && pms_pmus_core_count(pmus) > 1) {
		if ((loaded = load_per_cluster(cat, sys, pmus, path)) < 0)
			return fail(cat, loaded, path);
	}
	if (!loaded && (rc = pms_catalog_load(cat, path, known ? &sel : NULL)) < 0)
		return fail(cat, rc, path);
	*out = cat;
	return 0;
}

/* The event numbers PMCEID0/1_EL0 (and their upper halves) advertise:
 * common events 0x0-0x3f and 0x4000-0x403f. */
static bool pmceid_discoverable(uint64_t code)
{
	return code < 0x40 || (code >= 0x4000 && code < 0x4040);
}

int pms_catalog_event_available(const struct pms_pmus *pmus, const struct pms_cat_event *ev,
				const char *pmu)
{
	const char *want = ev->pmu ? ev->pmu : pmu;
	const struct pms_pmu *hit;
	if (!pmus || !want)
		return -1;
	hit = pms_pmu_find(pmus, want);
	for (size_t i = 0; !hit && i < pms_pmus_count(pmus); i++)
		if (pms_pmus_at(pmus, i)->box && !strcmp(pms_pmus_at(pmus, i)->box, want))
			hit = pms_pmus_at(pmus, i);
	if (!hit)
		return 0;
	if (ev->pmu)
		return 1;
	/* ARM core events advertised by PMCEID appear in events/. */
	if (ev->tier != PMS_TIER_NONE && pmceid_discoverable(ev->code)) {
		return pms_pmu_lists_code(hit, ev->code) ? 1 : 0;
	}
	return -1;
}
