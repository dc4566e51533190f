/* Internal: the engine ladder's plan, shared by probe.c and sampler.c. */
#ifndef PMS_SAMPLE_SAMPLER_INT_H
#define PMS_SAMPLE_SAMPLER_INT_H

#include "pmuscope/memsrc.h"
#include "pmuscope/sampler.h"
#include "pmuscope/spe.h"

#include <linux/perf_event.h>

#define SMP_MAX_EVENTS 16

enum smp_role {
	SMP_ROLE_MAIN = 0,  /* delivers samples; carries the side-band bits */
	SMP_ROLE_EXTRA,     /* delivers samples (e.g. PEBS mem-stores, 2nd core PMU) */
	SMP_ROLE_AUX_LEADER, /* PEBS mem-loads-aux group leader: its samples are dropped */
	SMP_ROLE_SIDEBAND    /* a dummy software event carrying only the side-band bits */
};

struct smp_event {
	struct perf_event_attr attr;
	enum pms_engine engine;
	const struct pms_pmu *pmu; /* NULL for software events */
	char pmu_name[32];
	enum smp_role role;
	int leader;        /* index of the group leader event, -1 */
	bool ok;           /* the probe open succeeded */
	bool filter_priv;  /* drop samples whose cpumode is not opts.priv (no
			    * kernel-side filter available) */
};

struct smp_plan {
	enum pms_engine engine;
	struct smp_event ev[SMP_MAX_EVENTS];
	int nev;
	bool phys;
	char notes[768];
	int paranoid;      /* -99 when unreadable */
	bool perfmon;      /* CAP_PERFMON or CAP_SYS_ADMIN in CapEff */
	struct pms_cpuset cpus; /* CPUs to open on (target ∩ online) */
	struct pms_sampler_attempt *att;
	size_t natt, catt;
};

/* Run the ladder; fills plan (engine PMS_ENG_NONE when nothing worked).
 * Returns 0, or a negative code for failures that are not the kernel's
 * refusals (out of memory, unreadable CPU list). */
int pms_smp_plan(struct pms_sys *sys, const struct pms_pmus *pmus,
		 const struct pms_topo *topo, const struct pms_sampler_opts *opts,
		 struct smp_plan *plan);
void pms_smp_plan_fini(struct smp_plan *plan);

/* CPUs of an event: plan->cpus ∩ the PMU's CPUs (first one via *first). */
bool pms_smp_event_on_cpu(const struct smp_event *ev, int cpu);

/* A record's bytes as the ring held them and the layout they decode
 * with (the source keeps a copy to hand out in time order, memsrc_order.c). */
struct smp_raw {
	const void *bytes;
	size_t len;
	const struct pms_sample_layout *layout;
};

/* The memory-sample source's view of a sampler (memsrc.c): each sample
 * with its record and raw bytes (both NULL for an AUX-decoded SPE sample)
 * and the index of its event in the plan, and each side-band record with
 * its event and raw bytes. */
struct smp_hooks {
	int (*sample)(void *ud, const struct pms_memsample *m, const struct pms_record *rec,
		      const struct smp_raw *raw, int ev);
	int (*sideband)(void *ud, const struct pms_record *rec, const struct smp_raw *raw, int ev);
	/* an SPE AUX chunk (attr_idx is the plan's event index); may be NULL */
	int (*aux)(void *ud, const struct pms_memsrc_aux *a);
};
/* Tests in fake contexts (no drain thread there): records go through the
 * stage as with a drain thread (pms_smp_stage_on, before the first poll),
 * and pms_smp_copy_step does what one wake of the drain thread does: copy
 * every ring into the stage, noting how full each was.  Returns whether it
 * copied anything, or PMS_EBUSY when the stage's lock is held (where the
 * thread would wait). */
void pms_smp_stage_on(struct pms_sampler *s);
int pms_smp_copy_step(struct pms_sampler *s);
int pms_smp_poll_hooks(struct pms_sampler *s, int timeout_ms, const struct smp_hooks *h,
		       void *ud);
/* Whether no record can come after the ones drained so far, so that the
 * source may hand out all it holds: the sampler is disabled
 * (pms_sampler_disable), or its context is a fake kernel's, which writes
 * nothing while the rings are drained. */
bool pms_smp_quiet(const struct pms_sampler *s);
const struct smp_plan *pms_smp_sampler_plan(const struct pms_sampler *s);
/* The first SPE ring's user-page time conversion; PMS_ENOENT when none. */
int pms_smp_time_conv(const struct pms_sampler *s, struct pms_spe_time_conv *out);
/* The ids (PERF_EVENT_IOC_ID) of event ev's fds, when the events carry
 * PERF_SAMPLE_IDENTIFIER: how many there are (out gets at most cap). */
size_t pms_smp_event_ids(const struct pms_sampler *s, int ev, uint64_t *out, size_t cap);
struct pms_ibs_cpu;
const struct pms_ibs_cpu *pms_smp_sampler_ibs_cpu(const struct pms_sampler *s);

/* Ask the sample-delivering events of the plan for call paths as
 * opts->callgraph says (callgraph.c); notes what cannot have them. */
int pms_smp_callgraph(struct smp_plan *plan, const struct pms_sampler_opts *opts);
/* The user registers a DWARF unwind needs on this architecture
 * (attr.sample_regs_user), 0 where none is known. */
uint64_t pms_smp_unwind_regs(void);

/* Overflow sampling (overflow.c): the events of opts->event as sampling
 * events appended to the plan (how many, or a negative PMS_E*; *needs_hw
 * says whether one needs a hardware PMU), and the cpu-clock fallback. */
int pms_smp_build_overflow(struct smp_plan *plan, struct pms_sys *sys, const struct pms_pmus *pmus,
			   const struct pms_sampler_opts *opts, bool *needs_hw);
int pms_smp_build_cpu_clock(struct smp_plan *plan, const struct pms_sampler_opts *opts);

/* The sample period an engine uses when the options give none. */
uint64_t pms_smp_default_period(enum pms_engine e);

#endif
