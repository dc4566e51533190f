/* Catalog selection for event-taking subcommands (see cli_catalog.h); the
 * same choice `pmuscope events` makes for its listing. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "cli_catalog.h"
#include "pmuscope/error.h"

static int fail(const char *cmd, const char *path)
{
	fprintf(stderr, "pmuscope: %s: catalog %s: %s\n", cmd, path, pms_error_last());
	return 1;
}

int cli_catalog_open(const char *cmd, struct pms_sys *sys, const struct pms_pmus *pmus,
		     const char *path, struct pms_catalog **out)
{
	return cli_catalog_open_cpu(cmd, sys, pmus, path, NULL, out);
}

int cli_catalog_open_cpu(const char *cmd, struct pms_sys *sys, const struct pms_pmus *pmus,
			 const char *path, const char *cpu, struct pms_catalog **out)
{
	struct pms_catalog *cat = NULL;
	struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
	char idbuf[64];
	bool known;
	int loaded = 0;

	*out = NULL;
	if (!path)
		path = getenv("PMUSCOPE_CATALOG");
	if (cpu) {
		if (pms_catalog_select_parse(&sel, cpu) < 0)
			return fail(cmd, cpu);
		known = true;
	} else {
		known = pms_catalog_identify(sys, 0, &sel, idbuf, sizeof(idbuf)) == 0;
		if (!known)
			pms_error_clear(); /* the loader says what it needs */
	}
	if ((!path || !*path) && !(known && sel.has_midr))
		return 0; /* no catalog: sysfs names only */
	if (pms_catalog_new(&cat) < 0)
		return fail(cmd, "(new)");
	if (!path || !*path) {
		if (pms_catalog_add_arm_common(cat) < 0) {
			pms_catalog_free(cat);
			return fail(cmd, "built-in ARM PMUv3");
		}
		*out = cat;
		return 0;
	}
	if (!cpu && known && sel.has_midr && pmus && pms_pmus_core_count(pmus) > 1) {
		/* big.LITTLE: each cluster's files by its first CPU's MIDR */
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
			if (pms_catalog_load_for_pmu(cat, path, &cs, p->name) < 0) {
				pms_catalog_free(cat);
				return fail(cmd, path);
			}
			loaded++;
		}
	}
	if (!loaded && pms_catalog_load(cat, path, known ? &sel : NULL) < 0) {
		pms_catalog_free(cat);
		return fail(cmd, path);
	}
	*out = cat;
	return 0;
}
