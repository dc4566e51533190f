/* Catalog loading from the real catalogs (kernel pmu-events, Intel perfmon,
 * ARM-software/data), perf list -j, selection by CPU identity, lookups, and
 * loader errors. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/catalog.h"
#include "pmuscope/error.h"
#include "pmuscope/sys.h"

#define KERNEL "linux-pmu-events/tools/perf/pmu-events/arch"

static const char *data_path(char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s/%s", pms_t_shared_data(), rel);
	return buf;
}

/* Expected perf term string built straight from a kernel JSON row. */
static void expected_terms(json_t *o, char *buf, size_t size)
{
	unsigned long long code = strtoull(json_string_value(json_object_get(o, "EventCode")), NULL, 0);
	json_t *u = json_object_get(o, "UMask");
	unsigned long long umask = u ? strtoull(json_string_value(u), NULL, 0) : 0;
	if (umask)
		snprintf(buf, size, "event=0x%llx,umask=0x%llx", code, umask);
	else
		snprintf(buf, size, "event=0x%llx", code);
}

/* The 82 GNR IMC events of the kernel JSON encode to the kernel's values,
 * and the Intel perfmon catalog (selected by mapfile for GenuineIntel-6-AD)
 * gives the same strings. */
PMS_TEST(gnr_imc_kernel_vs_perfmon)
{
	if (!pms_t_shared_data())
		PMS_SKIP("../shared/data absent: no GNR catalogs");
	char p[1024];
	struct pms_catalog *k = NULL, *pm = NULL;
	struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
	json_error_t err;

	data_path(p, sizeof(p), KERNEL "/x86/graniterapids/uncore-memory.json");
	json_t *raw = json_load_file(p, 0, &err);
	CHECK(raw && json_array_size(raw) == 82);
	CHECK_OK(pms_catalog_new(&k));
	int n = pms_catalog_load(k, p, NULL);
	CHECK_EQ_INT(n, 82);

	CHECK_OK(pms_catalog_new(&pm));
	sel.x86_id = "GenuineIntel-6-AD";
	CHECK_OK(pms_catalog_load(pm, data_path(p, sizeof(p), "intel-perfmon"), &sel));
	CHECK(pms_catalog_count(pm) > 1000);

	size_t same = 0;
	for (size_t i = 0; raw && i < json_array_size(raw); i++) {
		json_t *o = json_array_get(raw, i);
		const char *name = json_string_value(json_object_get(o, "EventName"));
		char want[256];
		struct pms_cat_match mk, mp;
		expected_terms(o, want, sizeof(want));
		CHECK_OK(pms_catalog_lookup(k, name, "uncore_imc", &mk));
		CHECK_MSG(mk.event && !strcmp(mk.event->terms, want), "%s: kernel terms %s want %s", name,
			  mk.event ? mk.event->terms : "-", want);
		CHECK(mk.event && mk.event->per_pkg && mk.event->uncore &&
		      !strcmp(mk.event->pmu, "uncore_imc"));
		CHECK_EQ_INT(mk.event->experimental, json_object_get(o, "Experimental") != NULL);
		if (pms_catalog_lookup(pm, name, "uncore_imc", &mp) == 0 &&
		    !strcmp(mp.perf_string, mk.perf_string))
			same++;
		else
			fprintf(stderr, "perfmon differs for %s: %s vs %s\n", name, mp.perf_string,
				mk.perf_string);
	}
	CHECK_EQ_INT(same, 82);
	struct pms_cat_match m;
	CHECK_OK(pms_catalog_lookup(k, "unc_m_cas_count_sch0.rd", NULL, &m));
	CHECK_EQ_STR(m.perf_string, "uncore_imc/event=0x5,umask=0xcf/");
	/* A sysfs instance as hint names the PMU to open. */
	CHECK_OK(pms_catalog_lookup(k, "UNC_M_CAS_COUNT_SCH0.RD", "uncore_imc_3", &m));
	CHECK_EQ_STR(m.perf_string, "uncore_imc_3/event=0x5,umask=0xcf/");
	CHECK_EQ_INT(pms_catalog_lookup(k, "UNC_M_CAS_COUNT_SCH0.RD", "uncore_cha", &m), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "uncore_cha") != NULL);
	/* Perfmon folds UMaskExt above bit 8, as the kernel JSON does. */
	CHECK_OK(pms_catalog_lookup(pm, "UNC_B2CMI_IMC_READS.NORMAL", NULL, &m));
	CHECK_EQ_STR(m.perf_string, "uncore_b2cmi/event=0x24,umask=0x101/");
	json_decref(raw);
	pms_catalog_free(k);
	pms_catalog_free(pm);
}

/* ARITH.FPDIV_ACTIVE exists on both Alder Lake core types with different
 * codes: the hint picks one, no hint finds both. */
PMS_TEST(alder_lake_hybrid)
{
	if (!pms_t_shared_data())
		PMS_SKIP("../shared/data absent: no Alder Lake catalogs");
	char p[1024];
	struct pms_catalog *k = NULL, *pm = NULL;
	struct pms_cat_match m;
	const struct pms_cat_event *all[4];

	CHECK_OK(pms_catalog_new(&k));
	CHECK_EQ_INT(pms_catalog_load(k, data_path(p, sizeof(p), KERNEL "/x86/alderlake/floating-point.json"), NULL), 22);
	CHECK_OK(pms_catalog_lookup(k, "ARITH.FPDIV_ACTIVE", "cpu_core", &m));
	CHECK_EQ_STR(m.perf_string, "cpu_core/event=0xb0,cmask=0x1,umask=0x1/");
	CHECK_EQ_INT(m.event->sample_after, 1000003);
	CHECK(!m.event->uncore);
	CHECK_OK(pms_catalog_lookup(k, "arith.fpdiv_active", "cpu_atom", &m));
	CHECK_EQ_STR(m.perf_string, "cpu_atom/event=0xcd,umask=0x2/");
	CHECK_EQ_INT(pms_catalog_lookup_all(k, "ARITH.FPDIV_ACTIVE", NULL, all, 4), 2);
	CHECK_OK(pms_catalog_lookup(k, "ARITH.FPDIV_ACTIVE", NULL, &m));
	CHECK_EQ_INT(m.nmatches, 2);

	/* The perfmon checkout, selected through mapfile.csv's hybridcore rows
	 * (Core Role Name Core/Atom -> cpu_core/cpu_atom), agrees. */
	struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
	CHECK_OK(pms_catalog_select_parse(&sel, "GenuineIntel-6-9A"));
	CHECK_OK(pms_catalog_new(&pm));
	CHECK_OK(pms_catalog_load(pm, data_path(p, sizeof(p), "intel-perfmon"), &sel));
	for (size_t i = 0; i < pms_catalog_count(k); i++) {
		const struct pms_cat_event *e = pms_catalog_event(k, i);
		struct pms_cat_match a, b;
		CHECK_OK(pms_catalog_lookup(k, e->name, e->pmu, &a));
		int r = pms_catalog_lookup(pm, e->name, e->pmu, &b);
		/* Match the same entry for the hybrid name. */
		CHECK_MSG(r == 0 && !strcmp(e->terms, b.event->terms), "%s %s: %s vs %s", e->pmu,
			  e->name, e->terms, r == 0 ? b.event->terms : "missing");
		(void)a;
	}
	pms_catalog_free(k);
	pms_catalog_free(pm);
}

/* arm64 kernel JSON: ArchStdEvent references resolve against the built-in
 * architected table. */
PMS_TEST(neoverse_n1_kernel_archstd)
{
	if (!pms_t_shared_data())
		PMS_SKIP("../shared/data absent: no Neoverse N1 kernel JSON");
	char p[1024];
	struct pms_catalog *cat = NULL;
	struct pms_cat_match m;
	CHECK_OK(pms_catalog_new(&cat));
	CHECK_EQ_INT(pms_catalog_load(cat, data_path(p, sizeof(p), KERNEL "/arm64/arm/neoverse-n1"), NULL), 9);
	static const struct {
		const char *name, *terms;
		enum pms_event_tier tier;
	} rows[] = {
		{ "MEM_ACCESS", "event=0x13", PMS_TIER_COMMON },
		{ "MEMORY_ERROR", "event=0x1a", PMS_TIER_COMMON },
		{ "REMOTE_ACCESS", "event=0x31", PMS_TIER_COMMON },
		{ "MEM_ACCESS_RD", "event=0x66", PMS_TIER_RECOMMENDED },
		{ "SAMPLE_POP", "event=0x4000", PMS_TIER_EXTENSION },
		{ "SAMPLE_COLLISION", "event=0x4003", PMS_TIER_EXTENSION },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		CHECK_OK(pms_catalog_lookup(cat, rows[i].name, NULL, &m));
		CHECK_MSG(m.event && !strcmp(m.perf_string, rows[i].terms) && m.event->tier == rows[i].tier,
			  "row %zu %s: %s tier %s", i, rows[i].name, m.perf_string,
			  m.event ? pms_event_tier_name(m.event->tier) : "-");
	}
	/* The kernel's own description text is kept. */
	CHECK_OK(pms_catalog_lookup(cat, "sample_pop", "armv8_pmuv3_0", &m));
	CHECK_EQ_STR(m.perf_string, "armv8_pmuv3_0/event=0x4000/");
	CHECK(m.event->long_desc && strstr(m.event->long_desc, "statistical profiling"));
	pms_catalog_free(cat);
}

/* ARM-software/data: MIDR -> pmu/<core>.json via its cpuid. */
PMS_TEST(arm_data_by_midr)
{
	if (!pms_t_shared_data())
		PMS_SKIP("../shared/data absent: no ARM-software/data");
	char p[1024];
	struct pms_catalog *cat = NULL;
	struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
	struct pms_cat_match m;
	data_path(p, sizeof(p), "arm-software-data");
	CHECK_OK(pms_catalog_new(&cat));
	CHECK_EQ_INT(pms_catalog_load(cat, p, NULL), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "MIDR") != NULL);
	CHECK_OK(pms_catalog_select_parse(&sel, "0x413fd0c1")); /* N1 r3p1 */
	CHECK_EQ_INT(pms_catalog_load(cat, p, &sel), 110);
	CHECK_OK(pms_catalog_lookup(cat, "inst_retired", NULL, &m));
	CHECK_EQ_STR(m.perf_string, "event=0x8");
	CHECK_EQ_INT(m.event->tier, PMS_TIER_ARCHITECTURAL);
	CHECK_EQ_INT(m.event->format, PMS_CATFMT_ARMDATA);
	CHECK_OK(pms_catalog_lookup(cat, "L1D_CACHE_RD", NULL, &m));
	CHECK_EQ_INT(m.event->tier, PMS_TIER_RECOMMENDED);
	pms_catalog_free(cat);
	/* A big.LITTLE Cortex-A53 (0x410fd034) gets its own catalog. */
	CHECK_OK(pms_catalog_new(&cat));
	CHECK_OK(pms_catalog_select_parse(&sel, "0x410fd034"));
	CHECK(pms_catalog_load(cat, p, &sel) > 0);
	CHECK(pms_catalog_count(cat) > 0 && strstr(pms_catalog_event(cat, 0)->source, "cortex-a53.json"));
	sel.midr = 0x41000000;
	CHECK_EQ_INT(pms_catalog_load(cat, p, &sel), PMS_ENOENT);
	pms_catalog_free(cat);
}

/* big.LITTLE in one catalog: each cluster's files loaded for its PMU, so the
 * A53-only LD_RETIRED and the A72-only L1D_CACHE_RD each name one PMU and a
 * shared name has an entry per cluster; events that name a PMU keep it. */
PMS_TEST(load_for_pmu_per_cluster)
{
	if (!pms_t_shared_data())
		PMS_SKIP("../shared/data absent: no ARM-software/data");
	char p[1024];
	struct pms_catalog *cat = NULL;
	struct pms_catalog_select a53 = PMS_CATALOG_SELECT_INIT, a72 = PMS_CATALOG_SELECT_INIT;
	const struct pms_cat_event *m[4];
	struct pms_cat_match r;
	data_path(p, sizeof(p), "arm-software-data");
	CHECK_OK(pms_catalog_select_parse(&a53, "0x410fd034"));
	CHECK_OK(pms_catalog_select_parse(&a72, "0x410fd082"));
	CHECK_OK(pms_catalog_new(&cat));
	int n53 = pms_catalog_load_for_pmu(cat, p, &a53, "armv8_cortex_a53");
	int n72 = pms_catalog_load_for_pmu(cat, p, &a72, "armv8_cortex_a72");
	CHECK(n53 > 0 && n72 > 0);
	CHECK_EQ_INT((int)pms_catalog_count(cat), n53 + n72);
	for (size_t i = 0; i < pms_catalog_count(cat); i++)
		CHECK_EQ_STR(pms_catalog_event(cat, i)->pmu,
			     (int)i < n53 ? "armv8_cortex_a53" : "armv8_cortex_a72");
	CHECK_EQ_INT((int)pms_catalog_lookup_all(cat, "LD_RETIRED", NULL, m, 4), 1);
	CHECK_EQ_STR(m[0]->pmu, "armv8_cortex_a53");
	CHECK_EQ_INT((int)pms_catalog_lookup_all(cat, "L1D_CACHE_RD", NULL, m, 4), 1);
	CHECK_EQ_STR(m[0]->pmu, "armv8_cortex_a72");
	CHECK_EQ_INT((int)pms_catalog_lookup_all(cat, "INST_RETIRED", NULL, m, 4), 2);
	CHECK_OK(pms_catalog_lookup(cat, "INST_RETIRED", "armv8_cortex_a72", &r));
	CHECK_EQ_STR(r.perf_string, "armv8_cortex_a72/event=0x8/");
	CHECK_EQ_INT(pms_catalog_lookup(cat, "LD_RETIRED", "armv8_cortex_a72", &r), PMS_ENOENT);
	/* a failed load adds nothing; pmu NULL is pms_catalog_load */
	a72.midr = 0x41000000;
	CHECK_EQ_INT(pms_catalog_load_for_pmu(cat, p, &a72, "x"), PMS_ENOENT);
	CHECK_EQ_INT((int)pms_catalog_count(cat), n53 + n72);
	pms_catalog_free(cat);

	static const char json[] = "[{\"EventName\": \"A\", \"EventCode\": \"0x1\"},"
				   " {\"EventName\": \"B\", \"EventCode\": \"0x2\", \"Unit\": \"IMC\"}]";
	char tmp[] = "/tmp/pms_catpmu_XXXXXX";
	int fd = mkstemp(tmp);
	CHECK(fd >= 0);
	CHECK(write(fd, json, sizeof(json) - 1) == (ssize_t)(sizeof(json) - 1));
	close(fd);
	CHECK_OK(pms_catalog_new(&cat));
	CHECK_EQ_INT(pms_catalog_load_for_pmu(cat, tmp, NULL, "cpu_core"), 2);
	CHECK_EQ_STR(pms_catalog_event(cat, 0)->pmu, "cpu_core");
	CHECK_EQ_STR(pms_catalog_event(cat, 1)->pmu, "uncore_imc");
	CHECK_EQ_INT(pms_catalog_load_for_pmu(cat, tmp, NULL, NULL), 2);
	CHECK(pms_catalog_event(cat, 2)->pmu == NULL);
	pms_catalog_free(cat);
	unlink(tmp);
}

/* ScaleUnit: the number is the scale, the rest the unit, as perf reads it. */
PMS_TEST(scale_unit_kernel_and_perf_list)
{
	static const char kernel[] =
		"[{\"EventName\": \"RD\", \"EventCode\": \"0x5\", \"Unit\": \"IMC\","
		"  \"ScaleUnit\": \"64Bytes\"},"
		" {\"EventName\": \"MB\", \"EventCode\": \"0x6\", \"ScaleUnit\": \"6.103515625e-5MiB\"},"
		" {\"EventName\": \"PCT\", \"EventCode\": \"0x7\", \"ScaleUnit\": \"100%\"},"
		" {\"EventName\": \"JUST\", \"EventCode\": \"0x8\", \"ScaleUnit\": \"Joules\"},"
		" {\"EventName\": \"NONE\", \"EventCode\": \"0x9\"}]";
	static const char perflist[] =
		"[{\"EventName\": \"X\", \"Encoding\": \"uncore_imc/event=0x1/\", \"ScaleUnit\": \"32Bytes\"}]";
	static const char bad[] =
		"[{\"EventName\": \"Y\", \"EventCode\": \"0x1\", \"ScaleUnit\": \"-1Bytes\"}]";
	struct pms_catalog *cat = NULL;
	CHECK_OK(pms_catalog_new(&cat));
	CHECK_EQ_INT(pms_catalog_load_buffer(cat, "k.json", kernel, sizeof(kernel) - 1), 5);
	CHECK_EQ_INT(pms_catalog_load_buffer(cat, "p.json", perflist, sizeof(perflist) - 1), 1);
	static const struct {
		const char *name;
		double scale;
		const char *unit;
	} rows[] = {
		{ "RD", 64, "Bytes" }, { "MB", 6.103515625e-5, "MiB" }, { "PCT", 100, "%" },
		{ "JUST", 1, "Joules" }, { "NONE", 0, NULL }, { "X", 32, "Bytes" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pms_cat_match m;
		CHECK_OK(pms_catalog_lookup(cat, rows[i].name, NULL, &m));
		if (!m.event)
			continue;
		CHECK_MSG(m.event->scale == rows[i].scale, "row %zu %s: scale %g", i, rows[i].name,
			  m.event->scale);
		CHECK_MSG(rows[i].unit ? m.event->scale_unit && !strcmp(m.event->scale_unit, rows[i].unit)
				       : !m.event->scale_unit,
			  "row %zu %s: unit %s", i, rows[i].name,
			  m.event->scale_unit ? m.event->scale_unit : "(null)");
	}
	CHECK_EQ_INT(pms_catalog_load_buffer(cat, "bad.json", bad, sizeof(bad) - 1), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "bad.json: event #0: ScaleUnit \"-1Bytes\"") != NULL);
	CHECK_EQ_INT((int)pms_catalog_count(cat), 6);
	pms_catalog_free(cat);
}

/* Rows with a stepping range: SKX is stepping 0-4 of model 0x55, CLX 5-F. */
PMS_TEST(perfmon_stepping_rows)
{
	if (!pms_t_shared_data())
		PMS_SKIP("../shared/data absent: no perfmon mapfile");
	static const struct {
		const char *id, *file;
	} rows[] = {
		{ "GenuineIntel-6-55-4", "skylakex_core.json" },
		{ "GenuineIntel-6-55-7", "cascadelakex_core.json" },
		{ "GenuineIntel-6-55", "skylakex_core.json" },
		{ "genuineintel-6-ad-1", "graniterapids_core.json" }, /* row without stepping */
	};
	char p[1024];
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pms_catalog *cat = NULL;
		struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
		sel.x86_id = rows[i].id;
		CHECK_OK(pms_catalog_new(&cat));
		CHECK_OK(pms_catalog_load(cat, data_path(p, sizeof(p), "intel-perfmon"), &sel));
		bool found = false, other = false;
		for (size_t k = 0; k < pms_catalog_count(cat); k++) {
			const char *src = pms_catalog_event(cat, k)->source;
			if (strstr(src, rows[i].file))
				found = true;
			else if (strstr(src, "_core.json"))
				other = true;
		}
		CHECK_MSG(found && !other, "row %zu %s: found %d other %d", i, rows[i].id, found, other);
		pms_catalog_free(cat);
	}
}

PMS_TEST(kernel_mapfile_selection)
{
	if (!pms_t_shared_data())
		PMS_SKIP("../shared/data absent: no kernel mapfile");
	char p[1024];
	struct pms_catalog *cat = NULL;
	struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
	CHECK_OK(pms_catalog_new(&cat));
	/* The stored x86 mapfile predates Granite Rapids. */
	sel.x86_id = "GenuineIntel-6-AD";
	CHECK_EQ_INT(pms_catalog_load(cat, data_path(p, sizeof(p), KERNEL), &sel), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "GenuineIntel-6-AD") && strstr(pms_error_last(), "mapfile.csv"));
	/* A whole arch tree needs an identity rather than loading every CPU. */
	CHECK_EQ_INT(pms_catalog_load(cat, data_path(p, sizeof(p), KERNEL), NULL), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "pmu-events/arch tree") != NULL);
	/* Without an identity a mapfile directory says what to give. */
	CHECK_EQ_INT(pms_catalog_load(cat, data_path(p, sizeof(p), KERNEL "/x86"), NULL), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "--cpu") != NULL);
	pms_catalog_free(cat);
}

PMS_TEST(perf_list_json)
{
	static const char doc[] =
		"[\n{\n\t\"Unit\": \"cpu_core\",\n\t\"Topic\": \"cache\",\n"
		"\t\"EventName\": \"l1d.replacement\",\n\t\"EventType\": \"Kernel PMU event\",\n"
		"\t\"BriefDescription\": \"Counts L1D data line replacements\",\n"
		"\t\"Encoding\": \"cpu_core/event=0x51,umask=0x1/\"\n},\n"
		"{\n\t\"EventName\": \"cpu-clock\",\n\t\"EventType\": \"Software event\"\n},\n"
		"{\n\t\"Unit\": \"uncore_imc_free_running\",\n\t\"EventName\": \"unc_mc0_rdcas_count_freerun\",\n"
		"\t\"EventType\": \"Kernel PMU event\",\n"
		"\t\"Encoding\": \"uncore_imc_free_running/event=0xff,umask=0x20/\"\n},\n"
		"{\"Unit\": \"msr\", \"EventName\": \"msr/tsc/\", \"EventType\": \"Kernel PMU event\", \"Encoding\": \"msr/event=0/\"},\n"
		"{\"EventName\": \"cpu/config=0..0xffffffffffffffff,.../modifier\", \"EventType\": \"Raw event descriptor\",\n"
		" \"Encoding\": \"cpu/config=0..0xffffffffffffffff,name=string/modifier\"},\n"
		"{\"MetricName\": \"backend_bound\", \"MetricExpr\": \"a / b\"}\n]\n";
	struct pms_catalog *cat = NULL;
	struct pms_cat_match m;
	CHECK_OK(pms_catalog_new(&cat));
	CHECK_EQ_INT(pms_catalog_load_buffer(cat, "perf-list.json", doc, sizeof(doc) - 1), 4);
	CHECK_OK(pms_catalog_lookup(cat, "tsc", "msr", &m));
	CHECK_EQ_STR(m.perf_string, "msr/event=0/");
	CHECK_OK(pms_catalog_lookup(cat, "L1D.REPLACEMENT", NULL, &m));
	CHECK_EQ_STR(m.perf_string, "cpu_core/event=0x51,umask=0x1/");
	CHECK_EQ_INT(m.event->format, PMS_CATFMT_PERFLIST);
	CHECK_OK(pms_catalog_lookup(cat, "unc_mc0_rdcas_count_freerun", NULL, &m));
	CHECK(m.event->uncore);
	/* a generic event has no encoding: its name is one (as the parser reads it) */
	CHECK_OK(pms_catalog_lookup(cat, "cpu-clock", NULL, &m));
	CHECK_EQ_STR(m.perf_string, "cpu-clock");
	pms_catalog_free(cat);
}

PMS_TEST(malformed_json_names_file_line_column)
{
	struct pms_catalog *cat = NULL;
	CHECK_OK(pms_catalog_new(&cat));
	static const char bad[] = "[\n  {\"EventName\": \"X\",\n   \"EventCode\": }\n]\n";
	CHECK_EQ_INT(pms_catalog_load_buffer(cat, "snippet.json", bad, sizeof(bad) - 1), PMS_EPARSE);
	CHECK_MSG(strstr(pms_error_last(), "snippet.json:3:") != NULL, "%s", pms_error_last());

	char tmpl[] = "/tmp/pms_catalog_XXXXXX";
	int fd = mkstemp(tmpl);
	CHECK(fd >= 0);
	if (fd >= 0) {
		static const char trunc[] = "{\"Header\": {}, \"Events\": [\n {\"EventName\": \"A\",";
		CHECK(write(fd, trunc, sizeof(trunc) - 1) == (ssize_t)(sizeof(trunc) - 1));
		close(fd);
		CHECK_EQ_INT(pms_catalog_load(cat, tmpl, NULL), PMS_EPARSE);
		char want[64];
		snprintf(want, sizeof(want), "%s:2:", tmpl);
		CHECK_MSG(strstr(pms_error_last(), want) != NULL, "%s", pms_error_last());
		unlink(tmpl);
	}
	/* Well-formed JSON of the wrong shape, and bad field values. */
	CHECK_EQ_INT(pms_catalog_load_buffer(cat, "obj.json", "{\"a\": 1}", 8), PMS_EPARSE);
	static const char badcode[] = "[{\"EventName\": \"X\", \"EventCode\": \"0xZZ\"}]";
	CHECK_EQ_INT(pms_catalog_load_buffer(cat, "code.json", badcode, sizeof(badcode) - 1), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "code.json") && strstr(pms_error_last(), "EventCode"));
	/* A bad row after good ones: the load fails and adds nothing. */
	static const char late[] = "[{\"EventName\": \"OK1\", \"EventCode\": \"0x1\"},"
				   " {\"EventName\": \"BAD\", \"EventCode\": \"0x1q\"}]";
	CHECK_EQ_INT(pms_catalog_load_buffer(cat, "late.json", late, sizeof(late) - 1), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "event #1") != NULL);
	CHECK_EQ_INT(pms_catalog_count(cat), 0);
	static const char badstd[] = "[{\"ArchStdEvent\": \"NOT_AN_EVENT\"}]";
	CHECK_EQ_INT(pms_catalog_load_buffer(cat, "std.json", badstd, sizeof(badstd) - 1), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "NOT_AN_EVENT") != NULL);
	CHECK_EQ_INT(pms_catalog_load(cat, "/nonexistent/catalog.json", NULL), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "/nonexistent/catalog.json") != NULL);
	CHECK_EQ_INT(pms_catalog_count(cat), 0);
	pms_catalog_free(cat);
}

PMS_TEST(builtin_arm_and_select_parse)
{
	struct pms_catalog *cat = NULL;
	struct pms_cat_match m;
	CHECK_OK(pms_catalog_new(&cat));
	CHECK(pms_catalog_add_arm_common(cat) > 400);
	CHECK_OK(pms_catalog_lookup(cat, "stall_backend_mem", "armv8_pmuv3_0", &m));
	CHECK_EQ_STR(m.perf_string, "armv8_pmuv3_0/event=0x4005/");
	CHECK_EQ_INT(m.event->tier, PMS_TIER_EXTENSION);
	pms_catalog_free(cat);

	struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
	CHECK_OK(pms_catalog_select_parse(&sel, "0x413fd0c1"));
	CHECK(sel.has_midr && sel.midr == 0x413fd0c1);
	CHECK_EQ_INT(pms_catalog_select_parse(&sel, "0x1234567890"), PMS_EINVAL);
	CHECK_EQ_INT(pms_catalog_select_parse(&sel, "skylake"), PMS_EINVAL);
	CHECK_OK(pms_catalog_select_parse(&sel, "AuthenticAMD-25-11"));
	CHECK_EQ_STR(sel.x86_id, "AuthenticAMD-25-11");
}

/* Identity through the kernel seam, on captured machines. */
PMS_TEST(identify_fixture_machines)
{
	static const struct {
		const char *machine;
		int cpu;
		const char *x86;
		uint64_t midr;
	} rows[] = {
		{ "adl-hybrid", 0, "GenuineIntel-6-9A-3", 0 },
		{ "gnr-nosnc", 0, "GenuineIntel-6-AD-1", 0 },
		{ "neoverse-n1-spe", 0, NULL, 0x413fd0c1 },
		{ "arm-biglittle", 0, NULL, 0x410fd034 },
		{ "arm-biglittle", 4, NULL, 0x410fd082 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char root[1024], id[64];
		struct pms_sys *sys = NULL;
		struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
		struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
		snprintf(root, sizeof(root), "%s/machines/%s", pms_t_fixtures(), rows[i].machine);
		o.root = root;
		CHECK_OK(pms_sys_new(&sys, &o));
		if (!sys)
			continue;
		CHECK_OK(pms_catalog_identify(sys, rows[i].cpu, &sel, id, sizeof(id)));
		if (rows[i].x86)
			CHECK_MSG(sel.x86_id && !strcmp(sel.x86_id, rows[i].x86), "row %zu: %s", i,
				  sel.x86_id ? sel.x86_id : "-");
		else
			CHECK_MSG(sel.has_midr && sel.midr == rows[i].midr, "row %zu: 0x%llx", i,
				  (unsigned long long)sel.midr);
		pms_sys_free(sys);
	}
}

/* A catalog event's perf string: its own PMU first, else the one given,
 * else the bare terms; the length needed, as snprintf. */
PMS_TEST(event_string_and_format_names)
{
	struct pms_cat_event ev = { 0 };
	char b[64];
	ev.terms = "event=0xb0,umask=0x1";
	CHECK_EQ_U64(pms_cat_event_string(&ev, NULL, b, sizeof(b)), strlen("event=0xb0,umask=0x1"));
	CHECK_EQ_STR(b, "event=0xb0,umask=0x1");
	CHECK_EQ_U64(pms_cat_event_string(&ev, "cpu", b, sizeof(b)), strlen("cpu/event=0xb0,umask=0x1/"));
	CHECK_EQ_STR(b, "cpu/event=0xb0,umask=0x1/");
	ev.pmu = "uncore_imc";
	pms_cat_event_string(&ev, "cpu", b, sizeof(b));
	CHECK_EQ_STR(b, "uncore_imc/event=0xb0,umask=0x1/");
	char small[8];
	CHECK_EQ_U64(pms_cat_event_string(&ev, NULL, small, sizeof(small)), strlen(b));
	CHECK_EQ_STR(small, "uncore_");
	CHECK_EQ_STR(pms_catalog_format_name(PMS_CATFMT_KERNEL), "kernel");
	CHECK_EQ_STR(pms_catalog_format_name(PMS_CATFMT_PERFMON), "perfmon");
	CHECK_EQ_STR(pms_catalog_format_name(PMS_CATFMT_ARMDATA), "arm-data");
	CHECK_EQ_STR(pms_catalog_format_name(PMS_CATFMT_PERFLIST), "perf-list");
	CHECK_EQ_STR(pms_catalog_format_name(PMS_CATFMT_BUILTIN), "built-in");
	CHECK_EQ_STR(pms_catalog_format_name(PMS_CATFMT_UNKNOWN), "unknown");
}

PMS_TEST_MAIN()
