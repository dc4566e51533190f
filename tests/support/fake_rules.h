/* Acceptance rules for the fake kernel, one file per engine, each encoding a
 * real kernel's perf_event_open checks (file and function cited at each rule):
 *   fake_rules_core.c  kernel/events/core.c (paranoid, PHYS_ADDR, sample_type)
 *   fake_rules_ibs.c   arch/x86/events/amd/ibs.c perf_ibs_init
 *   fake_rules_pebs.c  arch/x86/events/core.c, arch/x86/events/intel/core.c
 *   fake_rules_spe.c   drivers/perf/arm_spe_pmu.c arm_spe_pmu_event_init
 *   fake_rules_armv8.c drivers/perf/arm_pmu.c validate_group, arm_pmuv3.c
 *
 * A test describes the machine in a struct fkr_machine and installs
 * fkr_rule with it as rule_ud.
 */
#ifndef PMS_TESTS_FAKE_RULES_H
#define PMS_TESTS_FAKE_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "fake_kernel.h"

/* IBS caps bits (CPUID 0x8000001B EAX; kernel-abi-facts §3.5). */
#define FKR_IBS_CAPS_OPCNT (1u << 4)
#define FKR_IBS_CAPS_FETCHCTLEXTD (1u << 9)
#define FKR_IBS_CAPS_OPCNTEXT (1u << 6)
#define FKR_IBS_CAPS_ZEN4 (1u << 11)
#define FKR_IBS_CAPS_OPLDLAT (1u << 12)
#define FKR_IBS_CAPS_BIT63_FILTER (1u << 15)

struct fkr_pebs_pmu {
	uint32_t type;
	int max_precise;       /* caps/max_precise = x86_pmu_max_precise() */
	bool pdir_mem;         /* precise_ip 3 schedulable for the mem events */
	bool needs_loads_aux;  /* require_mem_loads_aux_event (SPR, ADL P-core) */
	uint64_t loads_aux_config; /* mem-loads-aux encoding (event|umask<<8) */
	uint64_t loads_config;     /* mem-loads encoding */
	uint64_t cpus;             /* CPUs it serves (bit mask); 0 = every CPU */
	/* Branch records of this core PMU: how many (0 = none) and whose
	 * rules apply (fake_rules_branch.c). */
	int lbr_nr;
	enum { FKR_BR_INTEL_LBR = 0, FKR_BR_AMD_LBR, FKR_BR_ARM_BRBE } branch_kind;
	bool lbr_callstack;        /* Intel: LBR call-stack mode (Haswell and later) */
};

/* An Arm PMUv3 core PMU (fake_rules_armv8.c). */
struct fkr_armv8_pmu {
	uint32_t type;   /* its sysfs type; PERF_TYPE_HARDWARE/RAW go to the first */
	int pmcr_n;      /* PMCR_EL0.N: general event counters */
	bool pmuv3p5;    /* 64-bit event counters (no chaining for `long`) */
	bool icntr;      /* PMUv3p9 instruction counter (index 32) */
	uint64_t cpus;   /* CPUs it serves (bit mask); 0 = every CPU */
	/* PMCEID0/1_EL0 bits (common events 0x00-0x3f) the core does NOT
	 * implement; 0 = every common event implemented */
	uint64_t pmceid_absent;
	/* the extra cache map its map_event passes (arm_pmuv3.c
	 * PMUV3_INIT_MAP_EVENT): none, armv8_a53_perf_cache_map, a57's */
	enum { FKR_A8_EXTRA_NONE = 0, FKR_A8_EXTRA_A53, FKR_A8_EXTRA_A57 } extra_cache;
	uint32_t threshold_max; /* caps/threshold_max: (1 << PMMIR.THWIDTH) - 1 */
};

/* An Apple M1/M2 core PMU (fake_rules_apple.c). */
struct fkr_apple_pmu {
	uint32_t type;
	uint64_t cpus; /* CPUs it serves (bit mask); 0 = every CPU */
};

struct fkr_machine {
	int paranoid;     /* /proc/sys/kernel/perf_event_paranoid */
	bool perfmon;     /* the opener has CAP_PERFMON or CAP_SYS_ADMIN */
	bool no_weight_struct; /* a kernel before 5.12 */
	int max_stack;    /* /proc/sys/kernel/perf_event_max_stack; 0 = 127 */
	/* AMD IBS op */
	uint32_t ibs_op_type; /* 0 = none */
	uint32_t ibs_caps;
	/* AMD IBS fetch (fake_rules_ibs.c fkr_ibs_fetch); 0 = none.  The CPU
	 * family/model matter for erratum 1197 in its NMI (fkr_ibs_fetch_nmi). */
	uint32_t ibs_fetch_type;
	unsigned amd_family, amd_model;
	/* Intel core PMUs with PEBS */
	struct fkr_pebs_pmu pebs[2];
	int npebs;
	/* Arm SPE */
	uint32_t spe_type;    /* 0 = none */
	uint64_t spe_cpus;    /* bit mask of supported CPUs */
	bool spe_filt_lat;    /* FEAT_FILT_LAT */
	bool spe_no_filt_evt; /* no SPE_PMU_FEAT_FILT_EVT (PMSIDR_EL1.FE clear) */
	bool spe_no_filt_typ; /* no SPE_PMU_FEAT_FILT_TYP (PMSIDR_EL1.FT clear) */
	bool spe_inv_filt_evt; /* SPE_PMU_FEAT_INV_FILT_EVT (FEAT_SPEv1p2) */
	uint64_t spe_evfr_res0; /* PMSEVFR_EL1 RES0 bits for the CPU's PMSVer */
	bool spe_eft;         /* SPE_PMU_FEAT_EFT (PMSIDR_EL1.EFT): SIMD/FP and mask filters */
	/* Arm PMUv3 core PMUs (one per cluster on big.LITTLE) */
	struct fkr_armv8_pmu armv8[2];
	int narmv8;
	int armv8_brbe_nr; /* their FEAT_BRBE records (BRBIDR0_EL1.NUMREC); 0 = no BRBE */
	/* Apple M1/M2 core PMUs (apple_m1_cpu_pmu.c), one per core type */
	struct fkr_apple_pmu apple[2];
	int napple;
	/* counters for tests */
	int opens_ok, opens_refused;
};

int fkr_rule(struct fk *fk, const struct perf_event_attr *attr, pid_t pid, int cpu,
	     int group_fd, unsigned long flags);
void fkr_install(struct fk *fk, struct fkr_machine *m);

/* The per-area checks, each returning 0 or a negative errno. */
int fkr_core(const struct fkr_machine *m, const struct perf_event_attr *attr, pid_t pid,
	     int cpu);
int fkr_ibs_op(const struct fkr_machine *m, const struct perf_event_attr *attr);
int fkr_ibs_fetch(const struct fkr_machine *m, const struct perf_event_attr *attr);
/* The IBS fetch NMI (perf_ibs_handle_irq for ibs_fetch): the fetch
 * registers regs[0..3] (IbsFetchCtl, IbsFetchLinAd, IbsFetchPhysAd,
 * IcIbsExtdCtl) become a sample in fd's ring as the driver writes it, or
 * are dropped by the driver's rules.  1 written, 0 dropped, or -errno. */
int fkr_ibs_fetch_nmi(struct fk *fk, const struct fkr_machine *m, int fd, const uint64_t regs[4],
		      uint32_t tid, uint32_t cpu, uint64_t time);
/* A core event with precise_ip on AMD: forwarded to ibs_op or refused. */
int fkr_amd_precise(const struct fkr_machine *m, const struct perf_event_attr *attr);
int fkr_pebs(struct fk *fk, const struct fkr_machine *m, const struct fkr_pebs_pmu *p,
	     const struct perf_event_attr *attr, int group_fd);
int fkr_spe(const struct fkr_machine *m, const struct perf_event_attr *attr, int cpu);
/* PERF_SAMPLE_BRANCH_STACK on a core PMU event: 0 or a negative errno. */
int fkr_branch(const struct fkr_machine *m, const struct fkr_pebs_pmu *p,
	       const struct perf_event_attr *attr);

/* A generic hardware / cache event (PERF_TYPE_HARDWARE, HW_CACHE) or raw
 * event on the core PMUs. */
int fkr_core_hw(struct fk *fk, const struct fkr_machine *m, const struct perf_event_attr *attr,
		int cpu, int group_fd);

/* An event for an Arm PMUv3 PMU: event init and validate_group(). */
int fkr_armv8(struct fk *fk, const struct fkr_armv8_pmu *p, const struct perf_event_attr *attr,
	      pid_t pid, int cpu, int group_fd);

/* The event number the PMUv3 driver programs for attr (its map_event), or
 * a negative errno (ENOENT unsupported, EINVAL out of range or CHAIN). */
int fkr_armv8_event(const struct fkr_armv8_pmu *p, const struct perf_event_attr *attr);

/* An event for an Apple M1/M2 PMU: m1_pmu_map_event, m1_pmu_set_event_filter
 * and validate_group() with m1_pmu_get_event_idx(). */
int fkr_apple(struct fk *fk, const struct fkr_apple_pmu *p, const struct perf_event_attr *attr,
	      int cpu, int group_fd);

/* perf_allow_kernel(): 0 or -EACCES. */
int fkr_allow_kernel(const struct fkr_machine *m);

#endif
