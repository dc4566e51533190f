/* pms_catalog_open_machine over fixture machines: the built-in ARM PMUv3
 * table without a path on an Arm CPU, none on x86, a file loaded per
 * cluster on big.LITTLE (each cluster's events named for its PMU), one load
 * with --cpu given, and the failures' "catalog WHAT: " messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/catalog.h"
#include "pmuscope/error.h"
#include "pmuscope/pmu.h"
#include "pmuscope/sys.h"

static int open_machine(const char *machine, struct pms_sys **sys, struct pms_pmus **pmus)
{
	char root[1024];
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	snprintf(root, sizeof(root), "%s/machines/%s", pms_t_fixtures(), machine);
	o.root = root;
	*sys = NULL;
	*pmus = NULL;
	if (pms_sys_new(sys, &o) < 0 || pms_pmus_load(*sys, pmus) < 0) {
		CHECK_MSG(0, "%s: %s", machine, pms_error_last());
		return -1;
	}
	return 0;
}

static void close_machine(struct pms_sys *sys, struct pms_pmus *pmus)
{
	pms_pmus_free(pmus);
	pms_sys_free(sys);
}

PMS_TEST(no_path_builtin_on_arm_none_on_x86)
{
	struct pms_sys *sys;
	struct pms_pmus *pmus;
	struct pms_catalog *cat = (struct pms_catalog *)1;
	if (open_machine("zen4-ibs", &sys, &pmus) == 0) {
		CHECK_OK(pms_catalog_open_machine(sys, pmus, NULL, NULL, &cat));
		CHECK(cat == NULL);
		CHECK_OK(pms_catalog_open_machine(sys, pmus, "", NULL, &cat));
		CHECK(cat == NULL);
	}
	close_machine(sys, pmus);
	if (open_machine("arm-biglittle", &sys, &pmus) == 0) {
		struct pms_cat_match m;
		CHECK_OK(pms_catalog_open_machine(sys, pmus, NULL, NULL, &cat));
		CHECK(cat != NULL && pms_catalog_count(cat) > 0);
		if (cat)
			CHECK_OK(pms_catalog_lookup(cat, "INST_RETIRED", NULL, &m));
		pms_catalog_free(cat);
	}
	close_machine(sys, pmus);
}

PMS_TEST(file_per_cluster_on_big_little_once_with_cpu)
{
	static const char json[] = "[{\"EventName\": \"A\", \"EventCode\": \"0x1\"},"
				   " {\"EventName\": \"B\", \"EventCode\": \"0x2\"}]";
	char tmp[] = "/tmp/pms_catmachine_XXXXXX";
	struct pms_sys *sys;
	struct pms_pmus *pmus;
	struct pms_catalog *cat = NULL;
	const struct pms_cat_event *m[4];
	int fd = mkstemp(tmp);
	CHECK(fd >= 0);
	CHECK(write(fd, json, sizeof(json) - 1) == (ssize_t)(sizeof(json) - 1));
	close(fd);
	if (open_machine("arm-biglittle", &sys, &pmus) == 0) {
		CHECK_OK(pms_catalog_open_machine(sys, pmus, tmp, NULL, &cat));
		CHECK(cat != NULL);
		if (cat) {
			CHECK_EQ_INT((int)pms_catalog_count(cat), 4);
			CHECK_EQ_INT((int)pms_catalog_lookup_all(cat, "A", NULL, m, 4), 2);
			CHECK_EQ_STR(m[0]->pmu, "armv8_cortex_a53");
			CHECK_EQ_STR(m[1]->pmu, "armv8_cortex_a72");
		}
		pms_catalog_free(cat);
		/* a CPU given: one load, no per-cluster names */
		CHECK_OK(pms_catalog_open_machine(sys, pmus, tmp, "0x410fd082", &cat));
		if (cat) {
			CHECK_EQ_INT((int)pms_catalog_count(cat), 2);
			CHECK(pms_catalog_event(cat, 0)->pmu == NULL);
		}
		pms_catalog_free(cat);
		/* no pmus: one load */
		CHECK_OK(pms_catalog_open_machine(sys, NULL, tmp, NULL, &cat));
		if (cat)
			CHECK_EQ_INT((int)pms_catalog_count(cat), 2);
		pms_catalog_free(cat);
	}
	close_machine(sys, pmus);
	unlink(tmp);
}

PMS_TEST(failures_name_what_failed)
{
	struct pms_sys *sys;
	struct pms_pmus *pmus;
	struct pms_catalog *cat = NULL;
	if (open_machine("zen4-ibs", &sys, &pmus) == 0) {
		CHECK(pms_catalog_open_machine(sys, pmus, NULL, "0xzz", &cat) < 0);
		CHECK(cat == NULL);
		CHECK_MSG(!strncmp(pms_error_last(), "catalog 0xzz: ", 14), "%s",
			  pms_error_last());
		CHECK(pms_catalog_open_machine(sys, pmus, "/nonexistent/pms-cat", NULL, &cat) < 0);
		CHECK(cat == NULL);
		CHECK_MSG(strstr(pms_error_last(), "catalog /nonexistent/pms-cat: ") ==
				  pms_error_last(),
			  "%s", pms_error_last());
		CHECK_EQ_INT(pms_catalog_open_machine(sys, pmus, NULL, NULL, NULL), PMS_EINVAL);
	}
	close_machine(sys, pmus);
}

PMS_TEST_MAIN()
