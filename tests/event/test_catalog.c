/* Catalog event names in event strings (pms_event_parse_ex with a catalog)
 * on the fixture machines, with the real catalogs from ../shared/data and the
 * built-in ARM PMUv3 table.  Expected encodings are computed from the JSON
 * rows themselves, not copied from pmuscope's output. */
#include "event_t.h"
#include "pmuscope/catalog.h"
#include "pmuscope/pmu.h"
#include "pmuscope/sys.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KERNEL "linux-pmu-events/tools/perf/pmu-events/arch"
#define DEV "sys/bus/event_source/devices/"

/* ---- helpers ---- */

static struct pms_pmus *load_root(const char *root)
{
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	struct pms_pmus *pmus = NULL;
	o.root = root;
	CHECK_OK(pms_sys_new(&sys, &o));
	if (sys)
		CHECK_OK(pms_pmus_load(sys, &pmus));
	pms_sys_free(sys);
	return pmus;
}

static struct pms_pmus *load_fixture(const char *machine)
{
	char root[1024];
	snprintf(root, sizeof(root), "%s/machines/%s", pms_t_fixtures(), machine);
	return load_root(root);
}

/* A scratch copy of a fixture machine, so a test can add or remove files
 * without touching the generated trees. */
static bool copy_fixture(const char *machine, char *tmp, size_t size)
{
	char cmd[2048];
	snprintf(tmp, size, "/tmp/pms_evcat_XXXXXX");
	if (!mkdtemp(tmp))
		return false;
	snprintf(cmd, sizeof(cmd), "cp -r '%s/machines/%s/.' '%s'", pms_t_fixtures(), machine, tmp);
	return system(cmd) == 0;
}

static void rm_tree(const char *tmp)
{
	char cmd[1100];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	CHECK(system(cmd) == 0);
}

/* config = EventCode | UMask << 8 | CounterMask << 24 of the row named name
 * in a JSON file (a kernel array or a perfmon {"Events": [...]}); false when
 * the row is absent. */
static bool json_config(const char *path, const char *name, unsigned long long *config)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	bool found = false;
	if (!root)
		return false;
	json_t *arr = json_is_array(root) ? root : json_object_get(root, "Events");
	for (size_t i = 0; arr && i < json_array_size(arr) && !found; i++) {
		json_t *o = json_array_get(arr, i);
		const char *n = json_string_value(json_object_get(o, "EventName"));
		if (!n || strcmp(n, name))
			continue;
		const char *c = json_string_value(json_object_get(o, "EventCode"));
		const char *u = json_string_value(json_object_get(o, "UMask"));
		const char *m = json_string_value(json_object_get(o, "CounterMask"));
		*config = strtoull(c ? c : "0", NULL, 0) | strtoull(u ? u : "0", NULL, 0) << 8 |
			  strtoull(m ? m : "0", NULL, 0) << 24;
		found = true;
	}
	json_decref(root);
	return found;
}

static void run(const struct pms_pmus *pmus, const struct pms_catalog *cat, const char *where,
		const struct ev_row *rows, size_t n)
{
	struct pms_event_parse_opts o = PMS_EVENT_PARSE_OPTS_INIT;
	o.catalog = cat;
	ev_run_rows_opts(pmus, &o, where, rows, n);
}

/* ---- GNR: uncore_imc/UNC_M_CAS_COUNT_SCH0.RD/ over the 12 IMC boxes ---- */

/* gnr-snc3's uncore boxes carry the generic Intel uncore raw format terms
 * (event config:0-7, umask config:8-15, ...; see gen_gnr.py). */
static bool gnr_with_formats(char *tmp, size_t size)
{
	return copy_fixture("gnr-snc3", tmp, size);
}

/* "uncore_imc_0:type=150,config=0x..@0,120 ; ... uncore_imc_11:..." */
static void imc_family(char *buf, size_t size, unsigned long long config)
{
	size_t n = 0;
	for (int i = 0; i < 12 && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%suncore_imc_%d:type=%d,config=0x%llx@0,120",
				      i ? " ; " : "", i, 150 + i, config);
}

static void gnr_rows(const struct pms_pmus *pmus, const struct pms_catalog *cat,
		     const char *where, unsigned long long cfg)
{
	char fam[2048], one[128], user[2048];
	imc_family(fam, sizeof(fam), cfg);
	snprintf(one, sizeof(one), "uncore_imc_3:type=153,config=0x%llx@0,120", cfg);
	/* the user's umask wins over the catalog's, as over a sysfs alias's */
	imc_family(user, sizeof(user), (cfg & ~0xff00ull) | 0x100);
	const struct ev_row rows[] = {
		{ "uncore_imc/UNC_M_CAS_COUNT_SCH0.RD/", 0, fam },
		{ "UNC_M_CAS_COUNT_SCH0.RD", 0, fam },
		{ "unc_m_cas_count_sch0.rd", 0, fam }, /* names match case-insensitively, as in perf */
		{ "uncore_imc_3/UNC_M_CAS_COUNT_SCH0.RD/", 0, one },
		{ "uncore_imc/UNC_M_CAS_COUNT_SCH0.RD,umask=0x1/", 0, user },
		{ "cpu/UNC_M_CAS_COUNT_SCH0.RD/", PMS_ENOENT,
		  "catalog event 'UNC_M_CAS_COUNT_SCH0.RD' is for PMU 'uncore_imc', not for core "
		  "PMU 'cpu'; write it bare or on its own PMU at column 5" },
		{ "uncore_upi/UNC_M_CAS_COUNT_SCH0.RD/", PMS_ENOENT,
		  "is for PMU 'uncore_imc', not for uncore PMU 'uncore_upi_0'" },
		{ "cycles,UNC_M_CAS_COUNT_SCH0.RDX", PMS_ENOENT,
		  "unknown event 'UNC_M_CAS_COUNT_SCH0.RDX' (not a generic event, raw rNNN, PMU "
		  "alias, catalog name or PMU) at column 8" },
		{ "uncore_imc/UNC_M_CAS_COUNT_SCH0.RDX/", PMS_ENOENT,
		  "unknown term 'UNC_M_CAS_COUNT_SCH0.RDX' for PMU 'uncore_imc_0' (format terms: "
		  "edge, event, inv, thresh, umask; not in the catalog either) at column 12" },
	};
	run(pmus, cat, where, rows, sizeof(rows) / sizeof(rows[0]));

	/* uncore catalog events count per package: the event says so */
	struct pms_event_parse_opts o = PMS_EVENT_PARSE_OPTS_INIT;
	struct pms_event_list *l = NULL;
	o.catalog = cat;
	CHECK_OK(pms_event_parse_ex(pmus, "UNC_M_CAS_COUNT_SCH0.RD", &o, &l));
	for (size_t i = 0; l && i < pms_event_list_count(l); i++)
		CHECK_MSG(pms_event_list_at(l, i)->per_pkg, "[%s] %s not per_pkg", where, pms_event_list_at(l, i)->pmu);
	pms_event_list_free(l);
}

PMS_TEST(gnr_imc_family_kernel_and_perfmon)
{
	char tmp[64], p[1024];
	unsigned long long cfg = 0;
	if (!pms_t_shared_data())
		PMS_SKIP("../shared/data absent: no GNR catalog (intel-perfmon GNR, linux-pmu-events)");
	CHECK(gnr_with_formats(tmp, sizeof(tmp)));
	struct pms_pmus *pmus = load_root(tmp);

	snprintf(p, sizeof(p), "%s/" KERNEL "/x86/graniterapids/uncore-memory.json",
		 pms_t_shared_data());
	CHECK_MSG(json_config(p, "UNC_M_CAS_COUNT_SCH0.RD", &cfg), "no row in %s", p);
	CHECK_EQ_U64(cfg, 0xcf05); /* the JSON's EventCode 0x05, UMask 0xcf */
	struct pms_catalog *k = NULL;
	CHECK_OK(pms_catalog_new(&k));
	CHECK(pms_catalog_load(k, p, NULL) > 0);
	gnr_rows(pmus, k, "gnr-snc3 kernel", cfg);
	pms_catalog_free(k);

	/* Intel perfmon, selected for the fixture's CPU through its cpuinfo */
	struct pms_catalog *pm = NULL;
	struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
	struct pms_sys *sys = NULL;
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	char id[64];
	so.root = tmp;
	CHECK_OK(pms_sys_new(&sys, &so));
	CHECK_OK(pms_catalog_identify(sys, 0, &sel, id, sizeof(id)));
	pms_sys_free(sys);
	snprintf(p, sizeof(p), "%s/intel-perfmon/GNR/events/graniterapids_uncore.json",
		 pms_t_shared_data());
	CHECK(json_config(p, "UNC_M_CAS_COUNT_SCH0.RD", &cfg));
	CHECK_OK(pms_catalog_new(&pm));
	snprintf(p, sizeof(p), "%s/intel-perfmon", pms_t_shared_data());
	CHECK(pms_catalog_load(pm, p, &sel) > 0);
	gnr_rows(pmus, pm, "gnr-snc3 perfmon", cfg);
	pms_catalog_free(pm);

	pms_pmus_free(pmus);
	rm_tree(tmp);
}

/* ---- ADL hybrid: one name, a different encoding per core PMU ---- */

PMS_TEST(adl_hybrid_name_per_core_pmu)
{
	char p[1024], both[600], core[256], atom[256], grp[1024];
	unsigned long long cc = 0, ca = 0;
	if (!pms_t_shared_data())
		PMS_SKIP("../shared/data absent: no Alder Lake catalog (intel-perfmon ADL)");
	snprintf(p, sizeof(p), "%s/intel-perfmon/ADL/events/alderlake_goldencove_core.json",
		 pms_t_shared_data());
	CHECK(json_config(p, "ARITH.FPDIV_ACTIVE", &cc));
	snprintf(p, sizeof(p), "%s/intel-perfmon/ADL/events/alderlake_gracemont_core.json",
		 pms_t_shared_data());
	CHECK(json_config(p, "ARITH.FPDIV_ACTIVE", &ca));
	CHECK(cc != ca); /* the point of the test: P and E cores differ */

	char root[1024];
	struct pms_sys *sys = NULL;
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
	struct pms_catalog *cat = NULL;
	char id[64];
	snprintf(root, sizeof(root), "%s/machines/adl-hybrid", pms_t_fixtures());
	so.root = root;
	CHECK_OK(pms_sys_new(&sys, &so));
	CHECK_OK(pms_catalog_identify(sys, 0, &sel, id, sizeof(id)));
	pms_sys_free(sys);
	CHECK_OK(pms_catalog_new(&cat));
	snprintf(p, sizeof(p), "%s/intel-perfmon", pms_t_shared_data());
	CHECK(pms_catalog_load(cat, p, &sel) > 0);
	struct pms_pmus *pmus = load_fixture("adl-hybrid");

	/* cpu_atom is type 10 on CPUs 8-15, cpu_core type 4 on CPUs 0-7 */
	snprintf(atom, sizeof(atom), "cpu_atom:type=10,config=0x%llx@8-15", ca);
	snprintf(core, sizeof(core), "cpu_core:type=4,config=0x%llx@0-7", cc);
	snprintf(both, sizeof(both), "%s ; %s", atom, core);
	snprintf(grp, sizeof(grp),
		 "%s g0L ; cpu_atom:type=0,config=0xa00000000@8-15 g0 ; %s g1L ; "
		 "cpu_core:type=0,config=0x400000000@0-7 g1",
		 atom, core);
	const struct ev_row rows[] = {
		{ "ARITH.FPDIV_ACTIVE", 0, both },
		{ "cpu_core/ARITH.FPDIV_ACTIVE/", 0, core },
		{ "cpu_atom/ARITH.FPDIV_ACTIVE/", 0, atom },
		{ "{ARITH.FPDIV_ACTIVE,cycles}", 0, grp }, /* split per core PMU like cycles */
		{ "uncore_imc_0/ARITH.FPDIV_ACTIVE/", PMS_ENOENT,
		  "catalog event 'ARITH.FPDIV_ACTIVE' is for PMU 'cpu_atom', 'cpu_core', not for "
		  "uncore PMU 'uncore_imc_0'" },
		{ "NO.SUCH_EVENT", PMS_ENOENT, "unknown event 'NO.SUCH_EVENT'" },
		/* names that resolved before still resolve the same way */
		{ "cpu_core/mem-loads/pp", 0,
		  "cpu_core:type=4,config=0x1cd,config1=0x3,precise_ip=2@0-7" },
		{ "instructions:u", 0,
		  "cpu_atom:type=0,config=0xa00000001,exclude_kernel,exclude_hv@8-15 ; "
		  "cpu_core:type=0,config=0x400000001,exclude_kernel,exclude_hv@0-7" },
	};
	run(pmus, cat, "adl-hybrid perfmon", rows, sizeof(rows) / sizeof(rows[0]));
	pms_catalog_free(cat);
	pms_pmus_free(pmus);
}

/* ---- sysfs aliases win over catalog names ---- */

PMS_TEST(sysfs_alias_wins)
{
	/* a catalog that (wrongly) gives mem-loads and cpu_cycles other codes */
	static const char json[] =
		"[{\"EventName\": \"mem-loads\", \"EventCode\": \"0x99\", \"UMask\": \"0x7\"},"
		" {\"EventName\": \"cpu_cycles\", \"EventCode\": \"0x77\"},"
		" {\"EventName\": \"only_here\", \"EventCode\": \"0x66\"}]";
	struct pms_catalog *cat = NULL;
	CHECK_OK(pms_catalog_new(&cat));
	CHECK_EQ_INT(pms_catalog_load_buffer(cat, "test.json", json, sizeof(json) - 1), 3);

	struct pms_pmus *adl = load_fixture("adl-hybrid");
	const struct ev_row adl_rows[] = {
		{ "cpu_core/mem-loads/", 0, "cpu_core:type=4,config=0x1cd,config1=0x3@0-7" },
		{ "cpu_core/only_here/", 0, "cpu_core:type=4,config=0x66@0-7" },
	};
	run(adl, cat, "adl-hybrid alias vs catalog", adl_rows, sizeof(adl_rows) / sizeof(adl_rows[0]));
	pms_pmus_free(adl);

	struct pms_pmus *big = load_fixture("arm-biglittle");
	const struct ev_row arm_rows[] = {
		{ "cpu_cycles", 0, "armv8_cortex_a53:type=8,config=0x11@0-3 ; "
				   "armv8_cortex_a72:type=9,config=0x11@4-5" },
		{ "armv8_cortex_a72/cpu_cycles/", 0, "armv8_cortex_a72:type=9,config=0x11@4-5" },
	};
	run(big, cat, "arm-biglittle alias vs catalog", arm_rows, sizeof(arm_rows) / sizeof(arm_rows[0]));
	pms_pmus_free(big);
	pms_catalog_free(cat);
}

/* ---- ARM: the built-in PMUv3 table where sysfs has no alias ---- */

PMS_TEST(arm_builtin_table_without_sysfs_alias)
{
	char tmp[64], rel[256];
	struct pms_catalog *cat = NULL;
	CHECK_OK(pms_catalog_new(&cat));
	CHECK(pms_catalog_add_arm_common(cat) > 0);

	/* arm-biglittle with inst_retired removed from both clusters' events/ */
	CHECK(copy_fixture("arm-biglittle", tmp, sizeof(tmp)));
	for (int i = 0; i < 2; i++) {
		char path[1400];
		snprintf(rel, sizeof(rel), DEV "armv8_cortex_a%s/events/inst_retired",
			 i ? "72" : "53");
		snprintf(path, sizeof(path), "%s/%s", tmp, rel);
		CHECK_MSG(unlink(path) == 0, "cannot remove %s", path);
	}
	struct pms_pmus *pmus = load_root(tmp);
	const struct ev_row no_cat[] = {
		{ "inst_retired", PMS_ENOENT,
		  "unknown event 'inst_retired' (not a generic event, raw rNNN, PMU alias or PMU) "
		  "at column 1" },
	};
	ev_run_rows(pmus, "arm-biglittle, no catalog", no_cat, 1);
	/* INST_RETIRED is architectural event 0x08 (Arm ARM, PMU event numbers) */
	const struct ev_row rows[] = {
		{ "inst_retired", 0, "armv8_cortex_a53:type=8,config=0x8@0-3 ; "
				     "armv8_cortex_a72:type=9,config=0x8@4-5" },
		{ "INST_RETIRED:u", 0,
		  "armv8_cortex_a53:type=8,config=0x8,exclude_kernel,exclude_hv@0-3 ; "
		  "armv8_cortex_a72:type=9,config=0x8,exclude_kernel,exclude_hv@4-5" },
		{ "armv8_cortex_a72/inst_retired/", 0, "armv8_cortex_a72:type=9,config=0x8@4-5" },
		/* a53 lists no inst_spec: the a72 alias wins for the bare name */
		{ "inst_spec", 0, "armv8_cortex_a72:type=9,config=0x1b@4-5" },
		{ "armv8_cortex_a53/inst_spec/", 0, "armv8_cortex_a53:type=8,config=0x1b@0-3" },
		{ "inst_retired,nosuch_arm_event", PMS_ENOENT,
		  "unknown event 'nosuch_arm_event' (not a generic event, raw rNNN, PMU alias, "
		  "catalog name or PMU) at column 14" },
	};
	run(pmus, cat, "arm-biglittle built-in", rows, sizeof(rows) / sizeof(rows[0]));
	pms_pmus_free(pmus);
	rm_tree(tmp);

	/* neoverse-n1-spe lists no l1d_tlb_refill (0x05) in events/ */
	pmus = load_fixture("neoverse-n1-spe");
	const struct ev_row n1[] = {
		{ "l1d_tlb_refill", 0, "armv8_pmuv3_0:type=8,config=0x5@0-3" },
		{ "armv8_pmuv3_0/l1d_tlb_refill/k", 0,
		  "armv8_pmuv3_0:type=8,config=0x5,exclude_user,exclude_hv@0-3" },
		{ "arm_cmn_0/l1d_tlb_refill/", PMS_ENOENT,
		  "catalog event 'l1d_tlb_refill' is for a core PMU, not for uncore PMU 'arm_cmn_0'" },
		{ "arm_dsu/l1d_tlb_refill/", PMS_ENOENT, "is for a core PMU, not for uncore PMU 'arm_dsu_0'" },
	};
	run(pmus, cat, "neoverse-n1-spe built-in", n1, sizeof(n1) / sizeof(n1[0]));
	pms_pmus_free(pmus);
	pms_catalog_free(cat);
}

/* ---- ScaleUnit becomes the event's scale and unit, like .scale/.unit ---- */

PMS_TEST(scale_unit_and_per_pkg)
{
	static const char json[] =
		"[{\"EventName\": \"UNC_RD\", \"EventCode\": \"0x4\", \"UMask\": \"0x3\","
		"  \"Unit\": \"L3PMC\", \"PerPkg\": \"1\", \"ScaleUnit\": \"64Bytes\"},"
		" {\"EventName\": \"CORE_X\", \"EventCode\": \"0x76\"}]";
	struct pms_catalog *cat = NULL;
	struct pms_pmus *pmus = load_fixture("zen4-ibs");
	struct pms_event_parse_opts o = PMS_EVENT_PARSE_OPTS_INIT;
	struct pms_event_list *l = NULL;
	CHECK_OK(pms_catalog_new(&cat));
	CHECK_EQ_INT(pms_catalog_load_buffer(cat, "t.json", json, sizeof(json) - 1), 2);
	o.catalog = cat;
	/* L3PMC is amd_l3 (jevents.py unit_to_pmu) */
	CHECK_OK(pms_event_parse_ex(pmus, "UNC_RD,CORE_X", &o, &l));
	if (l) {
		CHECK_EQ_INT((int)pms_event_list_count(l), 2);
		CHECK_EQ_STR(pms_event_list_at(l, 0)->pmu, "amd_l3");
		CHECK_EQ_U64(pms_event_list_at(l, 0)->attr.config, 0x304);
		CHECK(pms_event_list_at(l, 0)->per_pkg);
		CHECK(pms_event_list_at(l, 0)->scale == 64.0);
		CHECK_EQ_STR(pms_event_list_at(l, 0)->unit ? pms_event_list_at(l, 0)->unit : "(null)", "Bytes");
		CHECK_EQ_STR(pms_event_list_at(l, 1)->pmu, "cpu");
		CHECK(!pms_event_list_at(l, 1)->per_pkg && pms_event_list_at(l, 1)->scale == 1.0 && !pms_event_list_at(l, 1)->unit);
	}
	pms_event_list_free(l);
	pms_catalog_free(cat);
	pms_pmus_free(pmus);
}

/* ---- a catalog chosen for another machine ---- */

PMS_TEST(catalog_pmu_absent_here)
{
	static const char json[] =
		"[{\"EventName\": \"UNC_X\", \"EventCode\": \"0x1\", \"Unit\": \"IMC\"}]";
	struct pms_catalog *cat = NULL;
	CHECK_OK(pms_catalog_new(&cat));
	CHECK_EQ_INT(pms_catalog_load_buffer(cat, "x.json", json, sizeof(json) - 1), 1);
	struct pms_pmus *pmus = load_fixture("zen4-ibs");
	const struct ev_row rows[] = {
		{ "UNC_X", PMS_ENOENT,
		  "catalog event 'UNC_X' is for PMU 'uncore_imc', which this machine does not have "
		  "(was the catalog chosen for this CPU?) at column 1" },
	};
	run(pmus, cat, "zen4-ibs", rows, 1);
	pms_pmus_free(pmus);
	pms_catalog_free(cat);
}

/* ---- options ---- */

PMS_TEST(options_version_and_defaults)
{
	struct pms_pmus *pmus = load_fixture("zen4-ibs");
	struct pms_event_parse_opts o = PMS_EVENT_PARSE_OPTS_INIT;
	struct pms_event_list *l = (struct pms_event_list *)1;
	char a[512], b[512];

	CHECK_EQ_INT(o.version, PMS_EVENT_PARSE_OPTS_VERSION);
	CHECK(o.catalog == NULL);
	/* NULL options and a NULL catalog behave as pms_event_parse */
	CHECK_OK(pms_event_parse_ex(pmus, "cycles:u,cpu/event=0x76/", NULL, &l));
	ev_render(l, a, sizeof(a));
	pms_event_list_free(l);
	CHECK_OK(pms_event_parse_ex(pmus, "cycles:u,cpu/event=0x76/", &o, &l));
	ev_render(l, b, sizeof(b));
	pms_event_list_free(l);
	CHECK_EQ_STR(a, b);
	CHECK_EQ_STR(a, "cpu:type=0,config=0x0,exclude_kernel,exclude_hv ; cpu:type=4,config=0x76");

	o.version = 0;
	l = (struct pms_event_list *)1;
	CHECK_EQ_INT(pms_event_parse_ex(pmus, "cycles", &o, &l), PMS_EINVAL);
	CHECK(l == NULL);
	CHECK(strstr(pms_error_last(), "options version 0") != NULL);
	o.version = PMS_EVENT_PARSE_OPTS_VERSION + 1;
	CHECK_EQ_INT(pms_event_parse_ex(pmus, "cycles", &o, &l), PMS_EINVAL);
	pms_event_list_free(l);
	pms_pmus_free(pmus);
}

PMS_TEST_MAIN()
