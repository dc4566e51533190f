/* The real machine's PMUs load without error (root "/"). */
#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/pmu.h"

#include <dirent.h>

PMS_TEST(live_root_loads)
{
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	const struct pms_pmu *sw;

	CHECK_OK(pms_sys_new(&sys, NULL));
	if (!sys)
		return;
	CHECK_OK(pms_pmus_load(sys, &pmus));
	if (pmus) {
		/* Every Linux with perf_events has the software PMU at
		 * PERF_TYPE_SOFTWARE (include/uapi/linux/perf_event.h). */
		sw = pms_pmu_find(pmus, "software");
		CHECK(sw != NULL);
		if (sw) {
			CHECK_EQ_INT(sw->type, 1);
			CHECK_EQ_INT(sw->kind, PMS_PMU_SOFTWARE);
		}
		CHECK(pms_pmu_find_type(pmus, 2) != NULL);
		for (size_t i = 0; i < pms_pmus_count(pmus); i++) {
			const struct pms_pmu *p = pms_pmus_at(pmus, i);
			fprintf(stderr, "  %s type=%u kind=%s engine=%s formats=%zu events=%zu\n",
				p->name, p->type, pms_pmu_kind_name(p->kind),
				pms_engine_name(p->engine), p->nformats, p->nevents);
		}
		/* every entry of the directory became a PMU, with its type file's value */
		{
			DIR *d = opendir("/sys/bus/event_source/devices");
			struct dirent *de;
			size_t n = 0;
			while (d && (de = readdir(d)) != NULL) {
				char path[512];
				FILE *f;
				unsigned t = 0;
				const struct pms_pmu *p;
				if (de->d_name[0] == '.')
					continue;
				n++;
				p = pms_pmu_find(pmus, de->d_name);
				CHECK_MSG(p != NULL, "PMU %s not loaded", de->d_name);
				snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
					 de->d_name);
				f = fopen(path, "r");
				if (f && fscanf(f, "%u", &t) == 1 && p)
					CHECK_MSG(p->type == t, "%s: type %u, file says %u", p->name,
						  p->type, t);
				if (f)
					fclose(f);
			}
			if (d)
				closedir(d);
			CHECK_MSG(n == pms_pmus_count(pmus), "%zu entries, %zu PMUs loaded", n, pms_pmus_count(pmus));
		}
		/* On a machine with a hardware core PMU, every CPU 0 has one. */
		if (pms_pmus_core_count(pmus) > 0)
			CHECK(pms_pmus_core_for_cpu(pmus, 0) != NULL);
		else
			CHECK(pms_pmus_core_for_cpu(pmus, 0) == NULL);
	}
	pms_pmus_free(pmus);
	pms_sys_free(sys);
}

PMS_TEST_MAIN()
