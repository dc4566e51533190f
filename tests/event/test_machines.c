/* Event strings bound against the fixture machines' PMUs
 * (tests/fixtures/machines/<m>, loaded with pms_pmus_load): one table row per
 * case, rows for "*" run on every machine, plus properties checked on every
 * PMU of every machine. */
#include "event_t.h"
#include "pmuscope/pmu.h"
#include "pmuscope/sys.h"

#include <dirent.h>
#include <stdio.h>

struct mrow {
	const char *machine; /* "*" = every machine */
	struct ev_row row;
};

static const struct mrow rows[] = {
	/* ---- every machine: software events and grammar errors ---- */
	{ "*", { "cs:u", 0, "type=1,config=0x3,exclude_kernel,exclude_hv" } },
	{ "*", { "{cpu-clock,task-clock}:S", 0, "type=1,config=0x0 g0L S ; type=1,config=0x1 g0" } },
	{ "*", { "nosuchpmu/event=1/", PMS_ENOENT, "unknown PMU 'nosuchpmu' at column 1" } },
	{ "*", { "nosuchevent", PMS_ENOENT, "unknown event 'nosuchevent'" } },
	{ "*", { "cycles:q", PMS_EPARSE, "unknown modifier 'q'" } },
	{ "*", { "{cycles", PMS_EPARSE, "missing the '}'" } },

	/* ---- zen4-ibs: one core PMU "cpu" (type 4), IBS, amd_df/amd_l3 ---- */
	{ "zen4-ibs", { "cycles", 0, "cpu:type=0,config=0x0" } },
	{ "zen4-ibs", { "software//", 0, "software:type=1,config=0x0" } },
	{ "zen4-ibs", { "cycles:P", 0, "cpu:type=0,config=0x0 P" } }, /* caps/max_precise = 0 */
	{ "zen4-ibs", { "r76:k", 0, "cpu:type=4,config=0x76,exclude_user,exclude_hv" } },
	{ "zen4-ibs", { "L1-dcache-load-misses", 0, "cpu:type=3,config=0x10000" } },
	/* event is config:0-7,32-35: bit 8 of the value lands in config bit 32 */
	{ "zen4-ibs", { "cpu/event=0x1c0,umask=0x2/u", 0,
			"cpu:type=4,config=0x1000002c0,exclude_kernel,exclude_hv" } },
	{ "zen4-ibs", { "cpu/event=0xfff/", 0, "cpu:type=4,config=0xf000000ff" } },
	{ "zen4-ibs", { "cpu/event=0x1000/", PMS_ERANGE,
			"value 0x1000 does not fit term 'event' (config:0-7,32-35, 12 bits) at column 5" } },
	{ "zen4-ibs", { "cpu/umask=0x100/", PMS_ERANGE,
			"value 0x100 does not fit term 'umask' (config:8-15, 8 bits) at column 5" } },
	{ "zen4-ibs", { "cpu/cpu-cycles,cmask=2,inv,edge/", 0, "cpu:type=4,config=0x2840076" } },
	{ "zen4-ibs", { "cpu/cache-misses/", 0, "cpu:type=4,config=0x964" } },
	{ "zen4-ibs", { "cpu/cache-misses,umask=0x1/", 0, "cpu:type=4,config=0x164" } },
	{ "zen4-ibs", { "cpu/event=0x76,period=100000,name=cyc/", 0,
			"cpu:type=4,config=0x76,sample_period=100000" } },
	{ "zen4-ibs", { "cpu/event=0x76,freq=4000/", 0,
			"cpu:type=4,config=0x76,sample_freq=4000,freq" } },
	{ "zen4-ibs", { "cpu/event=0x76,period=1,freq=2/", PMS_EPARSE,
			"'period' and 'freq' exclude each other at column 25" } },
	{ "zen4-ibs", { "cpu/config=0x1234,config1=5,config2=6,config3=7/", 0,
			"cpu:type=4,config=0x1234,config1=0x5,config2=0x6,config3=0x7" } },
	{ "zen4-ibs", { "cpu/config=0x1234,event=0x34/", 0, "cpu:type=4,config=0x1234" } },
	{ "zen4-ibs", { "cpu/config=0x1234,event=0x35/", PMS_EPARSE,
			"term 'event=0x35' (config:0-7,32-35) overlaps term 'config=0x1234' "
			"(config:0-63) with a different value in bits 0x1 at column 19" } },
	{ "zen4-ibs", { "cpu/event=1,event=2/", PMS_EPARSE, "overlaps term 'event=0x1'" } },
	{ "zen4-ibs", { "cpu/event=1,event=1/", 0, "cpu:type=4,config=0x1" } },
	{ "zen4-ibs", { "cpu/ldlat=3/", PMS_ENOENT,
			"unknown term 'ldlat' for PMU 'cpu' (format terms: cmask, edge, event, "
			"inv, umask) at column 5" } },
	{ "zen4-ibs", { "cpu/event=zz/", PMS_EPARSE, "value 'zz' of term 'event' is not a number" } },
	{ "zen4-ibs", { "cpu/event=1 /", PMS_EPARSE, "value '1 ' of term 'event' is not a number" } },
	{ "zen4-ibs", { "cpu/period/", PMS_EPARSE, "term 'period' needs a value" } },
	{ "zen4-ibs", { "cpu/cycles/", 0, "cpu:type=0,config=0x0" } },
	{ "zen4-ibs", { "cpu/cycles,event=1/", PMS_EPARSE,
			"term 'event' cannot be combined with generic event 'cycles' at column 12" } },
	{ "zen4-ibs", { "ibs_op//", 0, "ibs_op:type=10,config=0x0" } },
	{ "zen4-ibs", { "ibs_op", 0, "ibs_op:type=10,config=0x0" } },
	{ "zen4-ibs", { "ibs_op/cnt_ctl=1,l3missonly,ldlat=128,swfilt=1/", 0,
			"ibs_op:type=10,config=0x90000,config1=0x80,config2=0x1" } },
	{ "zen4-ibs", { "ibs_op/ldlat=4096/", PMS_ERANGE, "(config1:0-11, 12 bits)" } },
	{ "zen4-ibs", { "ibs_fetch/rand_en,l3missonly/u", 0,
			"ibs_fetch:type=9,config=0xa00000000000000,exclude_kernel,exclude_hv" } },
	/* amd_df event config:0-7,32-37, umask config:8-15,24-27 */
	{ "zen4-ibs", { "amd_df/event=0x3ff,umask=0xfff/", 0,
			"amd_df:type=11,config=0x30f00ffff@0,96" } },
	{ "zen4-ibs", { "amd_l3/event=0x4,umask=0xff/", 0,
			"amd_l3:type=12,config=0xff04@0,8,16,24,32,40,48,56,64,72,80,88,96,104,112,"
			"120,128,136,144,152,160,168,176,184" } },
	{ "zen4-ibs", { "energy-pkg", 0, "power:type=8,config=0x2@0,96" } },
	{ "zen4-ibs", { "tsc", 0, "msr:type=21,config=0x0" } },
	{ "zen4-ibs", { "msr/event=0xffffffffffffffff/", 0, "msr:type=21,config=0xffffffffffffffff" } },

	/* ---- adl-hybrid: cpu_core (4, CPUs 0-7), cpu_atom (10, CPUs 8-15) ---- */
	{ "adl-hybrid", { "cycles", 0,
			  "cpu_atom:type=0,config=0xa00000000@8-15 ; "
			  "cpu_core:type=0,config=0x400000000@0-7" } },
	{ "adl-hybrid", { "instructions:upp", 0,
			  "cpu_atom:type=0,config=0xa00000001,exclude_kernel,exclude_hv,precise_ip=2@8-15 ; "
			  "cpu_core:type=0,config=0x400000001,exclude_kernel,exclude_hv,precise_ip=2@0-7" } },
	{ "adl-hybrid", { "cycles:P", 0,
			  "cpu_atom:type=0,config=0xa00000000,precise_ip=3@8-15 P ; "
			  "cpu_core:type=0,config=0x400000000,precise_ip=3@0-7 P" } },
	{ "adl-hybrid", { "LLC-load-misses", 0,
			  "cpu_atom:type=3,config=0xa00010002@8-15 ; "
			  "cpu_core:type=3,config=0x400010002@0-7" } },
	{ "adl-hybrid", { "r1a8", 0,
			  "cpu_atom:type=10,config=0x1a8@8-15 ; cpu_core:type=4,config=0x1a8@0-7" } },
	{ "adl-hybrid", { "cs", 0, "type=1,config=0x3" } },
	{ "adl-hybrid", { "cpu_core/cycles/", 0, "cpu_core:type=0,config=0x400000000@0-7" } },
	{ "adl-hybrid", { "cpu_atom/event=0x3c/k", 0,
			  "cpu_atom:type=10,config=0x3c,exclude_user,exclude_hv@8-15" } },
	/* mem-loads = event=0xcd,umask=0x1,ldlat=3; the user's ldlat wins */
	{ "adl-hybrid", { "cpu_core/mem-loads/pp", 0,
			  "cpu_core:type=4,config=0x1cd,config1=0x3,precise_ip=2@0-7" } },
	{ "adl-hybrid", { "cpu_core/mem-loads,ldlat=30/P", 0,
			  "cpu_core:type=4,config=0x1cd,config1=0x1e,precise_ip=3@0-7 P" } },
	{ "adl-hybrid", { "cpu_core/ldlat=30,mem-loads/", 0,
			  "cpu_core:type=4,config=0x1cd,config1=0x1e@0-7" } },
	{ "adl-hybrid", { "cpu_core/mem-loads,umask=0x2/", 0,
			  "cpu_core:type=4,config=0x2cd,config1=0x3@0-7" } },
	{ "adl-hybrid", { "mem-loads", 0,
			  "cpu_atom:type=10,config=0x5d0,config1=0x3@8-15 ; "
			  "cpu_core:type=4,config=0x1cd,config1=0x3@0-7" } },
	{ "adl-hybrid", { "cpu_core/ldlat=3,frontend=0x10/", PMS_EPARSE,
			  "term 'frontend=0x10' (config1:0-23) overlaps term 'ldlat=0x3' "
			  "(config1:0-15) with a different value in bits 0x13 at column 18" } },
	{ "adl-hybrid", { "cpu_core/ldlat=3,frontend=0x3/", 0, "cpu_core:type=4,config=0x0,config1=0x3@0-7" } },
	{ "adl-hybrid", { "cpu_atom/frontend=1/", PMS_ENOENT, "unknown term 'frontend' for PMU 'cpu_atom'" } },
	{ "adl-hybrid", { "cpu_atom/topdown-retiring/", PMS_ENOENT, "at column 10" } },
	{ "adl-hybrid", { "cpu/event=0x3c/", PMS_ENOENT, "unknown PMU 'cpu'" } },
	{ "adl-hybrid", { "{cycles,instructions}:W", 0,
			  "cpu_atom:type=0,config=0xa00000000@8-15 g0L W ; "
			  "cpu_atom:type=0,config=0xa00000001@8-15 g0 ; "
			  "cpu_core:type=0,config=0x400000000@0-7 g1L W ; "
			  "cpu_core:type=0,config=0x400000001@0-7 g1" } },
	{ "adl-hybrid", { "{cycles,cs},instructions", 0,
			  "cpu_atom:type=0,config=0xa00000000@8-15 g0L ; type=1,config=0x3 g0 ; "
			  "cpu_core:type=0,config=0x400000000@0-7 g1L ; "
			  "cpu_atom:type=0,config=0xa00000001@8-15 ; "
			  "cpu_core:type=0,config=0x400000001@0-7" } },
	{ "adl-hybrid", { "{cpu_core/event=0x3c/,cpu_core/event=0xc0/}", 0,
			  "cpu_core:type=4,config=0x3c@0-7 g0L ; cpu_core:type=4,config=0xc0@0-7 g0" } },
	{ "adl-hybrid", { "uncore_cbox/event=0x22,umask=0x81/", 0,
			  "uncore_cbox_0:type=14,config=0x8122@0 ; uncore_cbox_1:type=15,config=0x8122@0 ; "
			  "uncore_cbox_2:type=16,config=0x8122@0 ; uncore_cbox_3:type=17,config=0x8122@0 ; "
			  "uncore_cbox_4:type=18,config=0x8122@0 ; uncore_cbox_5:type=19,config=0x8122@0" } },
	{ "adl-hybrid", { "uncore_cbox_3/event=0x22/", 0, "uncore_cbox_3:type=17,config=0x22@0" } },
	{ "adl-hybrid", { "data_read", 0,
			  "uncore_imc_free_running_0:type=25,config=0x20ff@0 ; "
			  "uncore_imc_free_running_1:type=26,config=0x20ff@0" } },
	{ "adl-hybrid", { "power/energy-pkg/", 0, "power:type=29,config=0x2@0" } },
	{ "adl-hybrid", { "intel_pt/cyc,mtc_period=3,noretcomp/u", 0, NULL } },

	/* ---- arm-biglittle: Cortex-A53 (8, CPUs 0-3), Cortex-A72 (9, CPUs 4-5) ---- */
	{ "arm-biglittle", { "cycles", 0,
			     "armv8_cortex_a53:type=0,config=0x800000000@0-3 ; "
			     "armv8_cortex_a72:type=0,config=0x900000000@4-5" } },
	{ "arm-biglittle", { "cpu_cycles", 0,
			     "armv8_cortex_a53:type=8,config=0x11@0-3 ; "
			     "armv8_cortex_a72:type=9,config=0x11@4-5" } },
	{ "arm-biglittle", { "armv8_cortex_a72/l2d_cache_refill/u", 0,
			     "armv8_cortex_a72:type=9,config=0x17,exclude_kernel,exclude_hv@4-5" } },
	{ "arm-biglittle", { "armv8_cortex_a53/event=0x11,long/", 0,
			     "armv8_cortex_a53:type=8,config=0x11,config1=0x1@0-3" } },
	{ "arm-biglittle", { "armv8_cortex_a53/event=0x10000/", PMS_ERANGE,
			     "(config:0-15, 16 bits) at column 18" } },
	{ "arm-biglittle", { "r11", 0,
			     "armv8_cortex_a53:type=8,config=0x11@0-3 ; "
			     "armv8_cortex_a72:type=9,config=0x11@4-5" } },
	{ "arm-biglittle", { "{cpu_cycles,inst_retired}", 0,
			     "armv8_cortex_a53:type=8,config=0x11@0-3 g0L ; "
			     "armv8_cortex_a53:type=8,config=0x8@0-3 g0 ; "
			     "armv8_cortex_a72:type=9,config=0x11@4-5 g1L ; "
			     "armv8_cortex_a72:type=9,config=0x8@4-5 g1" } },

	/* ---- apple-m1: Icestorm (8, CPUs 0-3), Firestorm (9, CPUs 4-7) ---- */
	{ "apple-m1", { "cycles", 0,
			"apple_firestorm_pmu:type=0,config=0x900000000@4-7 ; "
			"apple_icestorm_pmu:type=0,config=0x800000000@0-3" } },
	/* inside a PMU the sysfs alias "cycles" wins over the generic event */
	{ "apple-m1", { "apple_firestorm_pmu/cycles/", 0, "apple_firestorm_pmu:type=9,config=0x2@4-7" } },
	{ "apple-m1", { "apple_icestorm_pmu/instructions/u", 0,
			"apple_icestorm_pmu:type=8,config=0x8c,exclude_kernel,exclude_hv@0-3" } },
	{ "apple-m1", { "apple_icestorm_pmu/event=0x100/", PMS_ERANGE, "(config:0-7, 8 bits)" } },

	/* ---- neoverse-n1-spe: one core PMU, SPE, CMN, two DSUs ---- */
	{ "neoverse-n1-spe", { "cycles", 0, "armv8_pmuv3_0:type=0,config=0x0@0-3" } },
	{ "neoverse-n1-spe", { "ll_cache_miss_rd", 0, "armv8_pmuv3_0:type=8,config=0x37@0-3" } },
	{ "neoverse-n1-spe", { "r37", 0, "armv8_pmuv3_0:type=4,config=0x37@0-3" } },
	{ "neoverse-n1-spe", { "arm_spe_0/ts_enable=1,load_filter=1,min_latency=0x40/", 0,
			       "arm_spe_0:type=9,config=0x200000001,config2=0x40@0-3" } },
	{ "neoverse-n1-spe", { "arm_spe_0/min_latency=0x1000/", PMS_ERANGE,
			       "value 0x1000 does not fit term 'min_latency' (config2:0-11, 12 bits) at column 11" } },
	{ "neoverse-n1-spe", { "arm_spe_0/event_filter=0xffffffffffffffff/", 0,
			       "arm_spe_0:type=9,config=0x0,config1=0xffffffffffffffff@0-3" } },
	{ "neoverse-n1-spe", { "arm_spe_0/event_filter=0x10000000000000000/", PMS_EPARSE,
			       "is not a number" } },
	{ "neoverse-n1-spe", { "arm_cmn_0/hnf_cache_miss,nodeid=0x24,bynodeid/", 0,
			       "arm_cmn_0:type=10,config=0x2480010005@0" } },
	{ "neoverse-n1-spe", { "arm_cmn_0/hnf_cache_miss,type=0x3/", 0,
			       "arm_cmn_0:type=10,config=0x10003@0" } },
	{ "neoverse-n1-spe", { "arm_cmn_0/type=0x5,type=0x3/", PMS_EPARSE,
			       "overlaps term 'type=0x5' (config:0-15)" } },
	{ "neoverse-n1-spe", { "l3d_cache", 0,
			       "arm_dsu_0:type=11,config=0x2b@0 ; arm_dsu_1:type=12,config=0x2b@2" } },
	{ "neoverse-n1-spe", { "arm_dsu/cycles/", 0,
			       "arm_dsu_0:type=11,config=0x11@0 ; arm_dsu_1:type=12,config=0x11@2" } },

	/* ---- gnr-snc3: "cpu" plus 120 CHA boxes with only type and cpumask ---- */
	{ "gnr-snc3", { "cycles:pp", 0, "cpu:type=0,config=0x0,precise_ip=2" } },
	{ "gnr-snc3", { "uncore_cha_7//", 0, "uncore_cha_7:type=37,config=0x0@0,120" } },

	/* ---- vm-nopmu: no hardware PMU ---- */
	{ "vm-nopmu", { "cycles", 0, "type=0,config=0x0" } },
	{ "vm-nopmu", { "r1a8", 0, "type=4,config=0x1a8" } },
	{ "vm-nopmu", { "tsc", 0, "msr:type=9,config=0x0" } },
	{ "vm-nopmu", { "cpu/event=0x3c/", PMS_ENOENT, "unknown PMU 'cpu'" } },
	{ "vm-nopmu", { "uprobe/ref_ctr_offset=0xffffffff,retprobe/", 0,
			"uprobe:type=8,config=0xffffffff00000001" } },
};

static int load(const char *machine, struct pms_sys **sys, struct pms_pmus **pmus)
{
	char root[1024];
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	snprintf(root, sizeof(root), "%s/machines/%s", pms_t_fixtures(), machine);
	o.root = root;
	*sys = NULL;
	*pmus = NULL;
	if (pms_sys_new(sys, &o) < 0)
		return -1;
	if (pms_pmus_load(*sys, pmus) < 0) {
		pms_sys_free(*sys);
		*sys = NULL;
		return -1;
	}
	return 0;
}

/* Machines under tests/fixtures/machines that have an event_source tree. */
static size_t list_machines(char names[][64], size_t max)
{
	char path[1024];
	size_t n = 0;
	DIR *d;
	struct dirent *de;
	snprintf(path, sizeof(path), "%s/machines", pms_t_fixtures());
	if (!(d = opendir(path)))
		return 0;
	while ((de = readdir(d)) && n < max) {
		char ev[1400];
		if (de->d_name[0] == '.' || strlen(de->d_name) >= 64)
			continue;
		DIR *sub;
		snprintf(ev, sizeof(ev), "%s/%s/sys/bus/event_source/devices", path, de->d_name);
		if (!(sub = opendir(ev)))
			continue;
		closedir(sub);
		/* length checked above (< 64) */
		memcpy(names[n++], de->d_name, strlen(de->d_name) + 1);
	}
	closedir(d);
	return n;
}

PMS_TEST(table_rows_per_machine)
{
	static const char *const named[] = { "zen4-ibs", "adl-hybrid", "arm-biglittle",
					     "apple-m1", "neoverse-n1-spe", "vm-nopmu",
					     "gnr-snc3" };
	char all[64][64];
	size_t nall = list_machines(all, 64);
	if (!pms_t_fixtures())
		PMS_SKIP("PMS_FIXTURES is not set");

	for (size_t m = 0; m < sizeof(named) / sizeof(named[0]); m++) {
		struct pms_sys *sys;
		struct pms_pmus *pmus;
		if (load(named[m], &sys, &pmus) < 0) {
			CHECK_MSG(0, "cannot load fixture %s: %s", named[m], pms_error_last());
			continue;
		}
		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			struct ev_row r = rows[i].row;
			if (strcmp(rows[i].machine, named[m]))
				continue;
			if (!r.expect) { /* only "it parses" */
				struct pms_event_list *l = NULL;
				int rc = pms_event_parse(pmus, r.text, &l);
				CHECK_MSG(rc == 0, "[%s] '%s': %s", named[m], r.text, pms_error_last());
				pms_event_list_free(l);
				continue;
			}
			ev_run_rows(pmus, named[m], &r, 1);
		}
		pms_pmus_free(pmus);
		pms_sys_free(sys);
	}
	CHECK(nall >= 9);
	for (size_t m = 0; m < nall; m++) {
		struct pms_sys *sys;
		struct pms_pmus *pmus;
		if (load(all[m], &sys, &pmus) < 0) {
			CHECK_MSG(0, "cannot load fixture %s: %s", all[m], pms_error_last());
			continue;
		}
		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
			if (!strcmp(rows[i].machine, "*"))
				ev_run_rows(pmus, all[m], &rows[i].row, 1);
		pms_pmus_free(pmus);
		pms_sys_free(sys);
	}
}

/* On every machine: a generic event gives one event per core PMU, each bound
 * to that PMU's CPUs, with the extended type only when there are several. */
PMS_TEST(generic_events_follow_core_pmus_on_every_machine)
{
	static const char *const generic[] = { "cycles", "instructions:u", "LLC-load-misses",
					       "branch-misses:k" };
	char all[64][64];
	size_t nall = list_machines(all, 64);
	for (size_t m = 0; m < nall; m++) {
		struct pms_sys *sys;
		struct pms_pmus *pmus;
		if (load(all[m], &sys, &pmus) < 0)
			continue;
		size_t ncores = pms_pmus_core_count(pmus);
		for (size_t g = 0; g < sizeof(generic) / sizeof(generic[0]); g++) {
			struct pms_event_list *l = NULL;
			CHECK_OK(pms_event_parse(pmus, generic[g], &l));
			if (!l)
				continue;
			CHECK_MSG(pms_event_list_count(l) == (ncores ? ncores : 1), "[%s] %s: %zu events for %zu cores",
				  all[m], generic[g], pms_event_list_count(l), ncores);
			for (size_t i = 0; i < pms_event_list_count(l); i++) {
				const struct pms_event *e = pms_event_list_at(l, i);
				const struct pms_pmu *p = e->pmu ? pms_pmu_find(pmus, e->pmu) : NULL;
				CHECK_MSG(ncores == 0 || (p && p->kind == PMS_PMU_CORE), "[%s] %s bound to %s",
					  all[m], generic[g], e->pmu ? e->pmu : "(none)");
				if (!p)
					continue;
				CHECK(pms_cpuset_equal(&e->cpus, &p->cpus));
				CHECK_EQ_U64(e->attr.config >> 32, ncores > 1 ? p->type : 0);
			}
			pms_event_list_free(l);
		}
		pms_pmus_free(pmus);
		pms_sys_free(sys);
	}
}

/* On every PMU of every machine: each format term takes its widest value and
 * refuses one bit more (ERANGE naming the term and column); each alias
 * parses as pmu/alias/ and as a bare name. */
PMS_TEST(every_format_term_and_alias_on_every_machine)
{
	char all[64][64];
	size_t nall = list_machines(all, 64);
	size_t nterms = 0, naliases = 0;
	for (size_t m = 0; m < nall; m++) {
		struct pms_sys *sys;
		struct pms_pmus *pmus;
		if (load(all[m], &sys, &pmus) < 0)
			continue;
		for (size_t i = 0; i < pms_pmus_count(pmus); i++) {
			const struct pms_pmu *p = pms_pmus_at(pmus, i);
			char text[512], col[32];
			struct pms_event_list *l = NULL;
			for (size_t f = 0; f < p->nformats; f++) {
				const struct pms_format *fm = &p->formats[f];
				uint64_t max = fm->width >= 64 ? UINT64_MAX
							       : (UINT64_C(1) << fm->width) - 1;
				snprintf(text, sizeof(text), "%s/%s=0x%" PRIx64 "/", p->name, fm->name, max);
				int rc = pms_event_parse(pmus, text, &l);
				CHECK_MSG(rc == 0, "[%s] %s: %s", all[m], text, pms_error_last());
				if (rc == 0) {
					uint64_t w = fm->field == PMS_CFG_CONFIG ? pms_event_list_at(l, 0)->attr.config
						   : fm->field == PMS_CFG_CONFIG1 ? pms_event_list_at(l, 0)->attr.config1
						   : fm->field == PMS_CFG_CONFIG2 ? pms_event_list_at(l, 0)->attr.config2
						   : fm->field == PMS_CFG_CONFIG3 ? pms_event_list_at(l, 0)->attr.config3
										  : pms_event_list_at(l, 0)->config4;
					CHECK_EQ_U64(w, pms_format_mask(fm));
					CHECK_EQ_INT(pms_event_list_at(l, 0)->attr.type, p->type);
				}
				pms_event_list_free(l);
				l = NULL;
				nterms++;
				if (fm->width >= 64)
					continue;
				snprintf(text, sizeof(text), "%s/%s=0x%" PRIx64 "/", p->name, fm->name,
					 max + 1);
				CHECK_EQ_INT(pms_event_parse(pmus, text, &l), PMS_ERANGE);
				snprintf(col, sizeof(col), "at column %zu", strlen(p->name) + 2);
				CHECK_MSG(strstr(pms_error_last(), col) && strstr(pms_error_last(), fm->name),
					  "[%s] %s: %s", all[m], text, pms_error_last());
			}
			for (size_t e = 0; e < p->nevents; e++) {
				snprintf(text, sizeof(text), "%s/%s/", p->name, p->events[e].name);
				int rc = pms_event_parse(pmus, text, &l);
				/* an alias may need a "?" parameter from the user */
				bool param = p->events[e].value && strchr(p->events[e].value, '?');
				CHECK_MSG(rc == 0 || param, "[%s] %s: %s", all[m], text, pms_error_last());
				if (rc == 0) {
					CHECK(pms_event_list_at(l, 0)->scale == p->events[e].scale);
					CHECK_EQ_STR(pms_event_list_at(l, 0)->pmu, p->name);
				}
				pms_event_list_free(l);
				l = NULL;
				rc = pms_event_parse(pmus, p->events[e].name, &l);
				CHECK_MSG(rc == 0 || param, "[%s] %s: %s", all[m], p->events[e].name,
					  pms_error_last());
				pms_event_list_free(l);
				l = NULL;
				naliases++;
			}
		}
		pms_pmus_free(pmus);
		pms_sys_free(sys);
	}
	CHECK(nterms > 50);
	CHECK(naliases > 50);
}

PMS_TEST(alias_carries_scale_and_unit)
{
	struct pms_sys *sys;
	struct pms_pmus *pmus;
	struct pms_event_list *l = NULL;
	if (load("adl-hybrid", &sys, &pmus) < 0) {
		CHECK_MSG(0, "cannot load adl-hybrid: %s", pms_error_last());
		return;
	}
	CHECK_OK(pms_event_parse(pmus, "power/energy-pkg/,data_read,cpu_core/event=0x3c,name=cyc,"
				       "metric-id=m1,call-graph=dwarf,stack-size=8192,percore/",
				 &l));
	if (l) {
		CHECK_EQ_INT(pms_event_list_count(l), 4);
		CHECK(pms_event_list_at(l, 0)->scale == 2.3283064365386962890625e-10);
		CHECK_EQ_STR(pms_event_list_at(l, 0)->unit, "Joules");
		CHECK(pms_event_list_at(l, 1)->scale == 6.103515625e-5);
		CHECK_EQ_STR(pms_event_list_at(l, 1)->unit, "MiB");
		CHECK_EQ_STR(pms_event_list_at(l, 3)->name, "cyc");
		CHECK_EQ_STR(pms_event_list_at(l, 3)->metric_id, "m1");
		CHECK_EQ_STR(pms_event_list_at(l, 3)->call_graph, "dwarf");
		CHECK_EQ_U64(pms_event_list_at(l, 3)->stack_size, 8192);
		CHECK(pms_event_list_at(l, 3)->percore);
		CHECK(pms_event_list_at(l, 3)->scale == 1.0);
		CHECK(pms_event_list_at(l, 3)->unit == NULL);
		CHECK_EQ_INT(pms_event_list_at(l, 3)->column, 29);
	}
	pms_event_list_free(l);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
}

PMS_TEST_MAIN()
