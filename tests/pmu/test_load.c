/* pms_pmus_load over every fixture machine (tests/fixtures/machines), and
 * over small trees written here for the cases no machine shows (per-pkg and
 * snapshot side files, malformed files, hex cpumasks). */
#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/pmu.h"
#include "pmu/pmu_int.h" /* the accessors checked against the body */

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct pms_pmus *load_machine(const char *machine, struct pms_sys **sysp)
{
	char root[1024];
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	struct pms_pmus *pmus = NULL;
	snprintf(root, sizeof(root), "%s/machines/%s", pms_t_fixtures(), machine);
	o.root = root;
	*sysp = NULL;
	if (pms_sys_new(sysp, &o) < 0) {
		CHECK_MSG(0, "%s: pms_sys_new: %s", machine, pms_error_last());
		return NULL;
	}
	if (pms_pmus_load(*sysp, &pmus) < 0)
		CHECK_MSG(0, "%s: pms_pmus_load: %s", machine, pms_error_last());
	return pmus;
}

/* ---- per machine: every PMU with its type and classification */

struct pmu_row {
	const char *name;
	unsigned type;
	enum pms_pmu_kind kind;
	enum pms_engine engine;
	enum pms_uncore_scope scope;
	const char *cpus; /* NULL: no cpus/cpumask file */
	int has_cpus;     /* 1: "cpus" file, 0: "cpumask" (when cpus != NULL) */
};

struct machine_row {
	const char *machine;
	size_t count;
	size_t ncore;
	int has_hw;
	const struct pmu_row *pmus; /* terminated by a NULL name */
};

#define K(x) PMS_PMU_##x
#define E(x) PMS_ENG_##x
#define S(x) PMS_SCOPE_##x

static const struct pmu_row zen4_pmus[] = {
	{ "cpu", 4, K(CORE), E(NONE), S(NONE), NULL, 0 },
	{ "ibs_fetch", 9, K(PRECISE), E(IBS_FETCH), S(NONE), NULL, 0 },
	{ "ibs_op", 10, K(PRECISE), E(IBS), S(NONE), NULL, 0 },
	{ "amd_df", 11, K(UNCORE), E(NONE), S(PACKAGE), "0,96", 0 },
	{ "amd_l3", 12, K(UNCORE), E(NONE), S(LLC),
	  "0,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128,136,144,152,160,168,176,184", 0 },
	{ "amd_iommu_0", 13, K(UNCORE), E(NONE), S(SYSTEM), "0", 0 },
	{ "amd_iommu_7", 20, K(UNCORE), E(NONE), S(SYSTEM), "0", 0 },
	{ "power", 8, K(UNCORE), E(NONE), S(PACKAGE), "0,96", 0 },
	{ "msr", 21, K(OTHER), E(NONE), S(NONE), NULL, 0 },
	{ "software", 1, K(SOFTWARE), E(NONE), S(NONE), NULL, 0 },
	{ "tracepoint", 2, K(TRACEPOINT), E(NONE), S(NONE), NULL, 0 },
	{ "breakpoint", 5, K(BREAKPOINT), E(NONE), S(NONE), NULL, 0 },
	{ "kprobe", 6, K(OTHER), E(NONE), S(NONE), NULL, 0 },
	{ "uprobe", 7, K(OTHER), E(NONE), S(NONE), NULL, 0 },
	{ NULL, 0, 0, 0, 0, NULL, 0 },
};

static const struct pmu_row adl_pmus[] = {
	{ "cpu_core", 4, K(CORE), E(PEBS), S(NONE), "0-7", 1 },
	{ "cpu_atom", 10, K(CORE), E(PEBS), S(NONE), "8-15", 1 },
	{ "intel_pt", 12, K(OTHER), E(NONE), S(NONE), NULL, 0 },
	{ "intel_bts", 11, K(OTHER), E(NONE), S(NONE), NULL, 0 },
	{ "msr", 13, K(OTHER), E(NONE), S(NONE), NULL, 0 },
	{ "cstate_core", 27, K(UNCORE), E(NONE), S(CPU), "0,2,4,6,8-15", 0 },
	{ "cstate_pkg", 28, K(UNCORE), E(NONE), S(PACKAGE), "0", 0 },
	{ "power", 29, K(UNCORE), E(NONE), S(PACKAGE), "0", 0 },
	{ "i915", 30, K(UNCORE), E(NONE), S(NONE), "0", 0 },
	{ "uncore_cbox_0", 14, K(UNCORE), E(NONE), S(PACKAGE), "0", 0 },
	{ "uncore_cbox_5", 19, K(UNCORE), E(NONE), S(PACKAGE), "0", 0 },
	{ "uncore_arb_1", 21, K(UNCORE), E(NONE), S(PACKAGE), "0", 0 },
	{ "uncore_clock", 22, K(UNCORE), E(NONE), S(PACKAGE), "0", 0 },
	{ "uncore_imc_0", 23, K(UNCORE), E(NONE), S(PACKAGE), "0", 0 },
	{ "uncore_imc_free_running_1", 26, K(UNCORE), E(NONE), S(PACKAGE), "0", 0 },
	{ "kprobe", 8, K(OTHER), E(NONE), S(NONE), NULL, 0 },
	{ "uprobe", 9, K(OTHER), E(NONE), S(NONE), NULL, 0 },
	{ NULL, 0, 0, 0, 0, NULL, 0 },
};

static const struct pmu_row biglittle_pmus[] = {
	{ "armv8_cortex_a53", 8, K(CORE), E(NONE), S(NONE), "0-3", 1 },
	{ "armv8_cortex_a72", 9, K(CORE), E(NONE), S(NONE), "4-5", 1 },
	{ "software", 1, K(SOFTWARE), E(NONE), S(NONE), NULL, 0 },
	{ NULL, 0, 0, 0, 0, NULL, 0 },
};

static const struct pmu_row n1_pmus[] = {
	{ "armv8_pmuv3_0", 8, K(CORE), E(NONE), S(NONE), "0-3", 1 },
	{ "arm_spe_0", 9, K(PRECISE), E(SPE), S(NONE), "0-3", 0 },
	{ "arm_cmn_0", 10, K(UNCORE), E(NONE), S(PACKAGE), "0", 0 },
	{ "arm_dsu_0", 11, K(UNCORE), E(NONE), S(CLUSTER), "0", 0 },
	{ "arm_dsu_1", 12, K(UNCORE), E(NONE), S(CLUSTER), "2", 0 },
	{ NULL, 0, 0, 0, 0, NULL, 0 },
};

static const struct pmu_row m1_pmus[] = {
	{ "apple_icestorm_pmu", 8, K(CORE), E(NONE), S(NONE), "0-3", 1 },
	{ "apple_firestorm_pmu", 9, K(CORE), E(NONE), S(NONE), "4-7", 1 },
	{ "kprobe", 6, K(OTHER), E(NONE), S(NONE), NULL, 0 },
	{ NULL, 0, 0, 0, 0, NULL, 0 },
};

static const struct pmu_row vm_pmus[] = {
	{ "software", 1, K(SOFTWARE), E(NONE), S(NONE), NULL, 0 },
	{ "tracepoint", 2, K(TRACEPOINT), E(NONE), S(NONE), NULL, 0 },
	{ "breakpoint", 5, K(BREAKPOINT), E(NONE), S(NONE), NULL, 0 },
	{ "uprobe", 8, K(OTHER), E(NONE), S(NONE), NULL, 0 },
	{ "msr", 9, K(OTHER), E(NONE), S(NONE), NULL, 0 },
	{ NULL, 0, 0, 0, 0, NULL, 0 },
};

static const struct machine_row machines[] = {
	{ "zen4-ibs", 20, 1, 1, zen4_pmus },
	{ "adl-hybrid", 27, 2, 1, adl_pmus },
	{ "arm-biglittle", 7, 2, 1, biglittle_pmus },
	{ "neoverse-n1-spe", 10, 1, 1, n1_pmus },
	{ "apple-m1", 7, 2, 1, m1_pmus },
	{ "vm-nopmu", 5, 0, 0, vm_pmus },
};

PMS_TEST(every_machine_pmus)
{
	for (size_t m = 0; m < sizeof(machines) / sizeof(machines[0]); m++) {
		const struct machine_row *mr = &machines[m];
		struct pms_sys *sys = NULL;
		struct pms_pmus *pmus = load_machine(mr->machine, &sys);
		if (!pmus) {
			pms_sys_free(sys);
			continue;
		}
		CHECK_MSG(pmus->count == mr->count, "%s: %zu PMUs, expected %zu", mr->machine,
			  pmus->count, mr->count);
		/* the accessors give the same PMUs as the array, NULL past it */
		CHECK_EQ_INT(pms_pmus_count(pmus), pmus->count);
		for (size_t i = 0; i < pms_pmus_count(pmus); i++)
			CHECK(pms_pmus_at(pmus, i) == &pmus->pmus[i]);
		CHECK(pms_pmus_at(pmus, pmus->count) == NULL);
		CHECK(pms_pmus_at(NULL, 0) == NULL && pms_pmus_count(NULL) == 0);
		CHECK_MSG(pms_pmus_core_count(pmus) == mr->ncore, "%s: %zu core PMUs, expected %zu",
			  mr->machine, pms_pmus_core_count(pmus), mr->ncore);
		CHECK_MSG(pms_pmus_has_hardware(pmus) == (mr->has_hw != 0), "%s: has_hardware",
			  mr->machine);
		for (const struct pmu_row *r = mr->pmus; r->name; r++) {
			const struct pms_pmu *p = pms_pmu_find(pmus, r->name);
			char cpus[512];
			CHECK_MSG(p != NULL, "%s: PMU %s missing", mr->machine, r->name);
			if (!p)
				continue;
			CHECK_MSG(p->type == r->type, "%s/%s: type %u, expected %u", mr->machine,
				  r->name, p->type, r->type);
			CHECK_MSG(pms_pmu_find_type(pmus, r->type) == p, "%s/%s: find_type(%u)",
				  mr->machine, r->name, r->type);
			CHECK_MSG(p->kind == r->kind, "%s/%s: kind %s, expected %s", mr->machine,
				  r->name, pms_pmu_kind_name(p->kind), pms_pmu_kind_name(r->kind));
			CHECK_MSG(p->engine == r->engine, "%s/%s: engine %s, expected %s",
				  mr->machine, r->name, pms_engine_name(p->engine),
				  pms_engine_name(r->engine));
			CHECK_MSG(p->scope == r->scope, "%s/%s: scope %s, expected %s", mr->machine,
				  r->name, pms_scope_name(p->scope), pms_scope_name(r->scope));
			pms_cpuset_format(&p->cpus, cpus, sizeof(cpus));
			if (r->cpus) {
				CHECK_MSG(!strcmp(cpus, r->cpus), "%s/%s: cpus '%s', expected '%s'",
					  mr->machine, r->name, cpus, r->cpus);
				CHECK_MSG(p->has_cpus == (r->has_cpus != 0) &&
						  p->has_cpumask == (r->has_cpus == 0),
					  "%s/%s: has_cpus %d has_cpumask %d", mr->machine, r->name,
					  p->has_cpus, p->has_cpumask);
			} else {
				CHECK_MSG(!p->has_cpus && !p->has_cpumask && cpus[0] == '\0',
					  "%s/%s: unexpected cpus '%s'", mr->machine, r->name, cpus);
			}
		}
		pms_pmus_free(pmus);
		pms_sys_free(sys);
	}
}

/* ---- formats, caps, events, nr_addr_filters, box names */

struct format_row {
	const char *machine, *pmu, *term;
	enum pms_cfg_field field;
	const char *text; /* as pms_format_str writes it */
	int width;
	uint64_t mask;
};

static const struct format_row format_rows[] = {
	{ "zen4-ibs", "cpu", "event", PMS_CFG_CONFIG, "config:0-7,32-35", 12, 0xf000000ffull },
	{ "zen4-ibs", "cpu", "cmask", PMS_CFG_CONFIG, "config:24-31", 8, 0xff000000ull },
	{ "zen4-ibs", "ibs_op", "swfilt", PMS_CFG_CONFIG2, "config2:0", 1, 1 },
	{ "zen4-ibs", "ibs_op", "ldlat", PMS_CFG_CONFIG1, "config1:0-11", 12, 0xfff },
	{ "zen4-ibs", "ibs_op", "cnt_ctl", PMS_CFG_CONFIG, "config:19", 1, 1ull << 19 },
	{ "zen4-ibs", "ibs_op", "l3missonly", PMS_CFG_CONFIG, "config:16", 1, 1ull << 16 },
	{ "zen4-ibs", "ibs_fetch", "rand_en", PMS_CFG_CONFIG, "config:57", 1, 1ull << 57 },
	{ "zen4-ibs", "ibs_fetch", "l3missonly", PMS_CFG_CONFIG, "config:59", 1, 1ull << 59 },
	{ "zen4-ibs", "amd_df", "umask", PMS_CFG_CONFIG, "config:8-15,24-27", 12, 0xf00ff00ull },
	{ "zen4-ibs", "msr", "event", PMS_CFG_CONFIG, "config:0-63", 64, ~0ull },
	{ "adl-hybrid", "cpu_core", "frontend", PMS_CFG_CONFIG1, "config1:0-23", 24, 0xffffff },
	{ "adl-hybrid", "cpu_core", "ldlat", PMS_CFG_CONFIG1, "config1:0-15", 16, 0xffff },
	{ "adl-hybrid", "cpu_core", "offcore_rsp", PMS_CFG_CONFIG1, "config1:0-63", 64, ~0ull },
	{ "adl-hybrid", "cpu_atom", "inv", PMS_CFG_CONFIG, "config:23", 1, 1ull << 23 },
	{ "adl-hybrid", "intel_pt", "mtc_period", PMS_CFG_CONFIG, "config:14-17", 4, 0x3c000 },
	{ "arm-biglittle", "armv8_cortex_a53", "event", PMS_CFG_CONFIG, "config:0-15", 16, 0xffff },
	{ "arm-biglittle", "armv8_cortex_a72", "rdpmc", PMS_CFG_CONFIG1, "config1:1", 1, 2 },
	{ "neoverse-n1-spe", "arm_spe_0", "min_latency", PMS_CFG_CONFIG2, "config2:0-11", 12, 0xfff },
	{ "neoverse-n1-spe", "arm_spe_0", "event_filter", PMS_CFG_CONFIG1, "config1:0-63", 64, ~0ull },
	{ "neoverse-n1-spe", "arm_spe_0", "store_filter", PMS_CFG_CONFIG, "config:34", 1, 1ull << 34 },
	{ "neoverse-n1-spe", "arm_cmn_0", "nodeid", PMS_CFG_CONFIG, "config:32-47", 16,
	  0xffff00000000ull },
	{ "neoverse-n1-spe", "arm_dsu_1", "event", PMS_CFG_CONFIG, "config:0-31", 32, 0xffffffffull },
	{ "apple-m1", "apple_firestorm_pmu", "event", PMS_CFG_CONFIG, "config:0-7", 8, 0xff },
	{ "vm-nopmu", "uprobe", "ref_ctr_offset", PMS_CFG_CONFIG, "config:32-63", 32,
	  0xffffffff00000000ull },
};

struct cap_row {
	const char *machine, *pmu, *cap, *value;
};

static const struct cap_row cap_rows[] = {
	{ "zen4-ibs", "cpu", "max_precise", "0" },
	{ "zen4-ibs", "ibs_op", "zen4_ibs_extensions", "1" },
	{ "zen4-ibs", "ibs_op", "ldlat", "1" },
	{ "zen4-ibs", "ibs_op", "dtlb_pgsize", "1" },
	{ "zen4-ibs", "ibs_fetch", "zen4_ibs_extensions", "1" },
	{ "adl-hybrid", "cpu_core", "pmu_name", "alderlake_hybrid" },
	{ "adl-hybrid", "cpu_atom", "max_precise", "3" },
	{ "adl-hybrid", "intel_pt", "psb_periods", "3f" },
	{ "neoverse-n1-spe", "arm_spe_0", "count_size", "12" },
	{ "neoverse-n1-spe", "arm_spe_0", "min_interval", "1024" },
};

struct event_row {
	const char *machine, *pmu, *event, *value, *unit;
	double scale;
};

static const struct event_row event_rows[] = {
	{ "zen4-ibs", "cpu", "cpu-cycles", "event=0x76", NULL, 1.0 },
	{ "zen4-ibs", "cpu", "cache-misses", "event=0x64,umask=0x09", NULL, 1.0 },
	{ "zen4-ibs", "power", "energy-pkg", "event=0x02", "Joules", 2.3283064365386962890625e-10 },
	{ "zen4-ibs", "msr", "irperf", "event=0x06", NULL, 1.0 },
	{ "adl-hybrid", "cpu_core", "mem-loads", "event=0xcd,umask=0x1,ldlat=3", NULL, 1.0 },
	{ "adl-hybrid", "cpu_atom", "mem-loads", "event=0xd0,umask=0x5,ldlat=3", NULL, 1.0 },
	{ "adl-hybrid", "cpu_core", "topdown-retiring", "event=0x00,umask=0x80", NULL, 1.0 },
	{ "adl-hybrid", "uncore_imc_free_running_0", "data_read", "event=0xff,umask=0x20", "MiB",
	  6.103515625e-5 },
	{ "adl-hybrid", "power", "energy-psys", "event=0x05", "Joules", 2.3283064365386962890625e-10 },
	{ "arm-biglittle", "armv8_cortex_a53", "cpu_cycles", "event=0x0011", NULL, 1.0 },
	{ "arm-biglittle", "armv8_cortex_a72", "inst_retired", "event=0x0008", NULL, 1.0 },
	{ "neoverse-n1-spe", "arm_cmn_0", "hnf_cache_miss", "type=0x5,eventid=0x1", NULL, 1.0 },
	{ "neoverse-n1-spe", "arm_dsu_0", "cycles", "event=0x11", NULL, 1.0 },
	{ "apple-m1", "apple_icestorm_pmu", "instructions", "event=0x008c", NULL, 1.0 },
	{ "vm-nopmu", "msr", "tsc", "event=0x00", NULL, 1.0 },
};

struct count_row {
	const char *machine, *pmu;
	size_t nformats, nevents, ncaps;
	int nr_addr_filters, max_precise;
	const char *box;
	int box_index;
};

static const struct count_row count_rows[] = {
	{ "zen4-ibs", "cpu", 5, 7, 2, -1, 0, NULL, -1 },
	{ "zen4-ibs", "ibs_op", 4, 0, 3, -1, -1, NULL, -1 },
	{ "zen4-ibs", "power", 1, 1, 0, -1, -1, "power", -1 },
	{ "zen4-ibs", "amd_iommu_5", 7, 1, 0, -1, -1, "amd_iommu", 5 },
	{ "adl-hybrid", "cpu_core", 9, 16, 3, -1, 3, NULL, -1 },
	{ "adl-hybrid", "cpu_atom", 8, 10, 3, -1, 3, NULL, -1 },
	{ "adl-hybrid", "intel_pt", 12, 0, 18, 2, -1, NULL, -1 },
	{ "adl-hybrid", "uncore_imc_free_running_1", 2, 2, 0, -1, -1, "uncore_imc_free_running", 1 },
	{ "adl-hybrid", "uncore_cbox_3", 4, 0, 0, -1, -1, "uncore_cbox", 3 },
	{ "adl-hybrid", "uncore_clock", 1, 1, 0, -1, -1, "uncore_clock", -1 },
	{ "neoverse-n1-spe", "arm_spe_0", 9, 0, 4, -1, -1, NULL, -1 },
	{ "neoverse-n1-spe", "arm_cmn_0", 7, 3, 0, -1, -1, "arm_cmn", 0 },
	{ "neoverse-n1-spe", "arm_dsu_1", 1, 4, 0, -1, -1, "arm_dsu", 1 },
	{ "vm-nopmu", "software", 0, 0, 0, -1, -1, NULL, -1 },
	{ "vm-nopmu", "uprobe", 2, 0, 0, -1, -1, NULL, -1 },
};

/* Load each machine once per table lookup; the trees are small. */
static const struct pms_pmu *get(const char *machine, const char *pmu, struct pms_sys **sys,
				 struct pms_pmus **pmus)
{
	*pmus = load_machine(machine, sys);
	return *pmus ? pms_pmu_find(*pmus, pmu) : NULL;
}

PMS_TEST(machine_formats)
{
	for (size_t i = 0; i < sizeof(format_rows) / sizeof(format_rows[0]); i++) {
		const struct format_row *r = &format_rows[i];
		struct pms_sys *sys;
		struct pms_pmus *pmus;
		const struct pms_pmu *p = get(r->machine, r->pmu, &sys, &pmus);
		const struct pms_format *f = pms_pmu_format(p, r->term);
		char text[128];
		CHECK_MSG(f != NULL, "row %zu %s/%s/%s: no such format", i, r->machine, r->pmu,
			  r->term);
		if (f) {
			pms_format_str(f, text, sizeof(text));
			CHECK_MSG(f->field == r->field && !strcmp(text, r->text) &&
					  f->width == r->width && pms_format_mask(f) == r->mask,
				  "row %zu %s/%s/%s: '%s' width %d mask 0x%llx, expected '%s' %d "
				  "0x%llx",
				  i, r->machine, r->pmu, r->term, text, f->width,
				  (unsigned long long)pms_format_mask(f), r->text, r->width,
				  (unsigned long long)r->mask);
		}
		pms_pmus_free(pmus);
		pms_sys_free(sys);
	}
}

PMS_TEST(machine_caps)
{
	for (size_t i = 0; i < sizeof(cap_rows) / sizeof(cap_rows[0]); i++) {
		const struct cap_row *r = &cap_rows[i];
		struct pms_sys *sys;
		struct pms_pmus *pmus;
		const struct pms_pmu *p = get(r->machine, r->pmu, &sys, &pmus);
		const char *v = pms_pmu_cap(p, r->cap);
		CHECK_MSG(v && !strcmp(v, r->value), "row %zu %s/%s caps/%s = '%s', expected '%s'",
			  i, r->machine, r->pmu, r->cap, v ? v : "(none)", r->value);
		pms_pmus_free(pmus);
		pms_sys_free(sys);
	}
}

PMS_TEST(machine_events)
{
	for (size_t i = 0; i < sizeof(event_rows) / sizeof(event_rows[0]); i++) {
		const struct event_row *r = &event_rows[i];
		struct pms_sys *sys;
		struct pms_pmus *pmus;
		const struct pms_pmu *p = get(r->machine, r->pmu, &sys, &pmus);
		const struct pms_pmu_event *e = pms_pmu_event(p, r->event);
		CHECK_MSG(e != NULL, "row %zu %s/%s/%s: no such event", i, r->machine, r->pmu,
			  r->event);
		if (e) {
			CHECK_MSG(!strcmp(e->value, r->value), "row %zu %s/%s: '%s' != '%s'", i,
				  r->pmu, r->event, e->value, r->value);
			CHECK_MSG(r->unit ? (e->unit && !strcmp(e->unit, r->unit)) : !e->unit,
				  "row %zu %s/%s: unit '%s'", i, r->pmu, r->event,
				  e->unit ? e->unit : "(none)");
			CHECK_MSG(e->scale == r->scale, "row %zu %s/%s: scale %g, expected %g", i,
				  r->pmu, r->event, e->scale, r->scale);
			CHECK(!e->per_pkg && !e->snapshot);
		}
		/* side files never become events of their own */
		if (p)
			for (size_t k = 0; k < p->nevents; k++)
				CHECK_MSG(!strchr(p->events[k].name, '.'), "%s/%s: event '%s'",
					  r->machine, r->pmu, p->events[k].name);
		pms_pmus_free(pmus);
		pms_sys_free(sys);
	}
}

PMS_TEST(machine_counts_and_boxes)
{
	for (size_t i = 0; i < sizeof(count_rows) / sizeof(count_rows[0]); i++) {
		const struct count_row *r = &count_rows[i];
		struct pms_sys *sys;
		struct pms_pmus *pmus;
		const struct pms_pmu *p = get(r->machine, r->pmu, &sys, &pmus);
		CHECK_MSG(p != NULL, "row %zu %s/%s missing", i, r->machine, r->pmu);
		if (p) {
			CHECK_MSG(p->nformats == r->nformats && p->nevents == r->nevents &&
					  p->ncaps == r->ncaps,
				  "row %zu %s/%s: formats %zu events %zu caps %zu, expected %zu %zu "
				  "%zu",
				  i, r->machine, r->pmu, p->nformats, p->nevents, p->ncaps,
				  r->nformats, r->nevents, r->ncaps);
			CHECK_MSG(p->nr_addr_filters == r->nr_addr_filters &&
					  p->max_precise == r->max_precise,
				  "row %zu %s/%s: nr_addr_filters %d max_precise %d", i, r->machine,
				  r->pmu, p->nr_addr_filters, p->max_precise);
			CHECK_MSG(r->box ? (p->box && !strcmp(p->box, r->box)) : !p->box,
				  "row %zu %s/%s: box '%s'", i, r->machine, r->pmu,
				  p->box ? p->box : "(null)");
			CHECK_MSG(p->box_index == r->box_index, "row %zu %s/%s: box_index %d", i,
				  r->machine, r->pmu, p->box_index);
		}
		pms_pmus_free(pmus);
		pms_sys_free(sys);
	}
}

/* ---- which core PMU counts on CPU n */

struct core_row {
	const char *machine;
	int cpu;
	const char *pmu; /* NULL: none */
};

static const struct core_row core_rows[] = {
	{ "adl-hybrid", 0, "cpu_core" },   { "adl-hybrid", 3, "cpu_core" },
	{ "adl-hybrid", 7, "cpu_core" },   { "adl-hybrid", 8, "cpu_atom" },
	{ "adl-hybrid", 12, "cpu_atom" },  { "adl-hybrid", 15, "cpu_atom" },
	{ "adl-hybrid", 16, NULL },        { "adl-hybrid", -1, NULL },
	{ "arm-biglittle", 0, "armv8_cortex_a53" }, { "arm-biglittle", 3, "armv8_cortex_a53" },
	{ "arm-biglittle", 4, "armv8_cortex_a72" }, { "arm-biglittle", 5, "armv8_cortex_a72" },
	{ "arm-biglittle", 6, NULL },
	{ "apple-m1", 2, "apple_icestorm_pmu" },    { "apple-m1", 6, "apple_firestorm_pmu" },
	{ "neoverse-n1-spe", 1, "armv8_pmuv3_0" },
	/* x86 "cpu" has no cpus file: it counts everywhere */
	{ "zen4-ibs", 0, "cpu" },          { "zen4-ibs", 383, "cpu" },
	{ "vm-nopmu", 0, NULL },
};

PMS_TEST(dsu_associated_cpus)
{
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = load_machine("neoverse-n1-spe", &sys);
	const char *want[] = { "arm_dsu_0", "0-1", "arm_dsu_1", "2-3" };
	for (int i = 0; pmus && i < 4; i += 2) {
		const struct pms_pmu *p = pms_pmu_find(pmus, want[i]);
		char buf[64];
		CHECK(p && p->has_associated_cpus);
		if (!p)
			continue;
		pms_cpuset_format(&p->associated_cpus, buf, sizeof(buf));
		CHECK_MSG(!strcmp(buf, want[i + 1]), "%s associated_cpus '%s'", want[i], buf);
	}
	if (pmus) {
		const struct pms_pmu *p = pms_pmu_find(pmus, "arm_cmn_0");
		CHECK(p && !p->has_associated_cpus && pms_cpuset_count(&p->associated_cpus) == 0);
	}
	pms_pmus_free(pmus);
	pms_sys_free(sys);
}

PMS_TEST(core_for_cpu)
{
	for (size_t i = 0; i < sizeof(core_rows) / sizeof(core_rows[0]); i++) {
		const struct core_row *r = &core_rows[i];
		struct pms_sys *sys = NULL;
		struct pms_pmus *pmus = load_machine(r->machine, &sys);
		const struct pms_pmu *p = pms_pmus_core_for_cpu(pmus, r->cpu);
		CHECK_MSG(r->pmu ? (p && !strcmp(p->name, r->pmu)) : p == NULL,
			  "row %zu %s cpu %d: got %s, expected %s", i, r->machine, r->cpu,
			  p ? p->name : "(none)", r->pmu ? r->pmu : "(none)");
		pms_pmus_free(pmus);
		pms_sys_free(sys);
	}
}

/* ---- trees written here */

static char tmp[64];

static void put(const char *rel, const char *text)
{
	char path[512], dir[512];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + strlen(tmp) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0755);
			*p = '/';
		}
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void rm_tree(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	CHECK(system(cmd) == 0);
}

static int load_tmp(struct pms_pmus **pmus)
{
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	int ret;
	o.root = tmp;
	*pmus = NULL;
	ret = pms_sys_new(&sys, &o);
	if (ret >= 0)
		ret = pms_pmus_load(sys, pmus);
	pms_sys_free(sys);
	return ret;
}

static void new_tmp(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/pms_pmu_XXXXXX");
	CHECK(mkdtemp(tmp) != NULL);
}

#define DEV "sys/bus/event_source/devices/"

PMS_TEST(side_files_per_pkg_snapshot)
{
	struct pms_pmus *pmus = NULL;
	const struct pms_pmu_event *e;
	new_tmp();
	put(DEV "box_0/type", "42\n");
	put(DEV "box_0/cpumask", "00000000,00000101\n");
	put(DEV "box_0/events/occ", "event=0x01\n");
	put(DEV "box_0/events/occ.per-pkg", "1\n");
	put(DEV "box_0/events/occ.snapshot", "1\n");
	put(DEV "box_0/events/occ.scale", "0.5\n");
	put(DEV "box_0/events/occ.unit", "Bytes\n");
	put(DEV "box_0/events/plain", "event=0x02\n");
	put(DEV "box_0/events/plain.per-pkg", "0\n");
	put(DEV "box_0/events/orphan.unit", "MiB\n");
	CHECK_OK(load_tmp(&pmus));
	if (pmus) {
		const struct pms_pmu *p = pms_pmu_find(pmus, "box_0");
		char cpus[64];
		CHECK(p != NULL);
		if (p) {
			CHECK_EQ_INT(p->nevents, 2);
			e = pms_pmu_event(p, "occ");
			CHECK(e && e->per_pkg && e->snapshot && e->scale == 0.5);
			CHECK(e && e->unit && !strcmp(e->unit, "Bytes"));
			e = pms_pmu_event(p, "plain");
			CHECK(e && !e->per_pkg && !e->snapshot && e->scale == 1.0 && !e->unit);
			CHECK(pms_pmu_event(p, "orphan") == NULL);
			/* a hex mask cpumask is accepted too */
			pms_cpuset_format(&p->cpus, cpus, sizeof(cpus));
			CHECK_EQ_STR(cpus, "0,8");
			/* unknown driver with reader CPUs: uncore, scope unknown */
			CHECK_EQ_INT(p->kind, PMS_PMU_UNCORE);
			CHECK_EQ_INT(p->scope, PMS_SCOPE_NONE);
			CHECK_EQ_STR(p->box, "box");
			CHECK_EQ_INT(p->box_index, 0);
		}
	}
	pms_pmus_free(pmus);
	rm_tree();
}

struct bad_row {
	const char *file, *text, *want; /* want: substring of the message */
	int code;
};

static const struct bad_row bad_rows[] = {
	{ "format/event", "config:8-3\n", "p/format/event", PMS_EPARSE },
	{ "format/event", "confog:0-7\n", "unknown field 'confog'", PMS_EPARSE },
	{ "format/event", "config:0-64\n", "column 10", PMS_EPARSE },
	{ "type", "four\n", "p/type", PMS_EPARSE },
	{ "cpus", "0-3x\n", "p/cpus", PMS_EPARSE },
	{ "events/e.scale", "fast\n", "p/events/e.scale", PMS_EPARSE },
	{ "caps/max_precise", "-1\n", "p/caps/max_precise", PMS_EPARSE },
	{ "nr_addr_filters", "lots\n", "p/nr_addr_filters", PMS_EPARSE },
	{ "associated_cpus", "0-1-2\n", "p/associated_cpus", PMS_EPARSE },
};

PMS_TEST(malformed_files_name_the_file)
{
	for (size_t i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
		const struct bad_row *r = &bad_rows[i];
		struct pms_pmus *pmus = NULL;
		char rel[256];
		int ret;
		new_tmp();
		put(DEV "p/type", "7\n");
		put(DEV "p/events/e", "event=1\n");
		snprintf(rel, sizeof(rel), DEV "p/%s", r->file);
		put(rel, r->text);
		ret = load_tmp(&pmus);
		CHECK_MSG(ret == r->code && pmus == NULL, "row %zu (%s): returned %d", i, r->file,
			  ret);
		CHECK_MSG(strstr(pms_error_last(), r->want) != NULL,
			  "row %zu (%s): message '%s' lacks '%s'", i, r->file, pms_error_last(),
			  r->want);
		pms_pmus_free(pmus);
		rm_tree();
	}
}

PMS_TEST(missing_type_fails_missing_tree_is_empty)
{
	struct pms_pmus *pmus = NULL;
	new_tmp();
	/* no sys/bus/event_source at all: an empty list */
	put("sys/devices/system/cpu/online", "0\n");
	CHECK_OK(load_tmp(&pmus));
	CHECK(pmus && pms_pmus_count(pmus) == 0);
	CHECK(!pms_pmus_has_hardware(pmus));
	CHECK(pms_pmus_core_for_cpu(pmus, 0) == NULL);
	pms_pmus_free(pmus);
	pmus = NULL;
	/* a PMU without its type file */
	put(DEV "broken/cpumask", "0\n");
	CHECK_EQ_INT(load_tmp(&pmus), PMS_ENOENT);
	CHECK(pmus == NULL);
	CHECK(strstr(pms_error_last(), "broken/type") != NULL);
	rm_tree();
}

PMS_TEST(two_core_pmus_without_cpus_are_ambiguous)
{
	struct pms_pmus *pmus = NULL;
	new_tmp();
	put(DEV "cpu/type", "4\n");
	put(DEV "armv8_pmuv3_0/type", "8\n");
	CHECK_OK(load_tmp(&pmus));
	CHECK_EQ_INT(pms_pmus_core_count(pmus), 2);
	CHECK(pms_pmus_core_for_cpu(pmus, 0) == NULL);
	pms_pmus_free(pmus);
	rm_tree();
}

PMS_TEST_MAIN()
