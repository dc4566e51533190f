/* The engine ladder: build the attr each engine needs from the PMUs' sysfs
 * formats and caps, open it once on the target to see what the kernel says,
 * relax it step by step on refusal, and log every attempt.
 *
 * Facts: reference/kernel-abi-facts.md §3.4 (IBS perf_ibs_init rules), seed
 * 000 (the IBS exclude_* / swfilt errno matrix), §5 (PEBS), §4 (SPE).
 */
#include "pmu/pmu_int.h" /* the empty list used when the caller gives none */
#include "sample/sampler_int.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/opts.h"

#include "pmuscope/event.h"
#include "topo/topo_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers -------------------------------------------------------- */

static void note_add(struct smp_plan *p, const char *fmt, ...) PMS_PRINTF(2, 3);
static void note_add(struct smp_plan *p, const char *fmt, ...)
{
	size_t len = strlen(p->notes);
	va_list ap;

	if (len + 3 >= sizeof(p->notes))
		return;
	if (len) {
		memcpy(p->notes + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(p->notes + len, sizeof(p->notes) - len, fmt, ap);
	va_end(ap);
}

static const char *errno_name(int err)
{
	/* The errnos perf_event_open gives for attr problems, by name, so the
	 * log reads like the kernel source. */
	static const struct {
		int err;
		const char *name;
	} names[] = {
		{ 0, "ok" },           { EINVAL, "EINVAL" }, { EACCES, "EACCES" },
		{ EPERM, "EPERM" },    { ENOENT, "ENOENT" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ ENODEV, "ENODEV" },  { ENODATA, "ENODATA" }, { E2BIG, "E2BIG" },
		{ EBUSY, "EBUSY" },    { EMFILE, "EMFILE" }, { ENOSPC, "ENOSPC" },
		{ ESRCH, "ESRCH" },    { EBADF, "EBADF" },   { ENOMEM, "ENOMEM" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	return "errno";
}

static int attempt_add(struct smp_plan *p, const struct smp_event *ev, pid_t pid, int cpu,
		       int err, const char *fmt, ...) PMS_PRINTF(6, 7);
static int attempt_add(struct smp_plan *p, const struct smp_event *ev, pid_t pid, int cpu,
		       int err, const char *fmt, ...)
{
	struct pms_sampler_attempt *a;
	va_list ap;

	if (pms_grow(&p->att, &p->catt, p->natt + 1, sizeof(*p->att), 16,
		     "the engine ladder log") < 0)
		return PMS_ENOMEM;
	a = &p->att[p->natt++];
	memset(a, 0, sizeof(*a));
	a->engine = ev ? ev->engine : PMS_ENG_NONE;
	if (ev) {
		snprintf(a->pmu, sizeof(a->pmu), "%s", ev->pmu_name);
		if (ev->attr.size)
			pms_event_attr_describe(&ev->attr, a->attr, sizeof(a->attr));
	}
	a->pid = pid;
	a->cpu = cpu;
	a->err = err;
	va_start(ap, fmt);
	vsnprintf(a->reason, sizeof(a->reason), fmt, ap);
	va_end(ap);
	return 0;
}

static int set_term(struct smp_event *ev, const char *term, uint64_t value)
{
	const struct pms_format *f = ev->pmu ? pms_pmu_format(ev->pmu, term) : NULL;

	if (!f)
		return PMS_ENOENT;
	return pms_format_attr_set(f, &ev->attr, value);
}

static bool term_set(const struct smp_event *ev, const char *term)
{
	const struct pms_format *f = ev->pmu ? pms_pmu_format(ev->pmu, term) : NULL;
	uint64_t word;

	if (!f || pms_format_attr_get(f, &ev->attr, &word) < 0)
		return false;
	return (word & pms_format_mask(f)) != 0;
}

bool pms_smp_event_on_cpu(const struct smp_event *ev, int cpu)
{
	if (!ev->pmu || pms_cpuset_count(&ev->pmu->cpus) <= 0)
		return true;
	return pms_cpuset_has(&ev->pmu->cpus, cpu);
}

static int first_cpu(const struct smp_plan *p, const struct smp_event *ev)
{
	for (int c = pms_cpuset_first(&p->cpus); c >= 0; c = pms_cpuset_next(&p->cpus, c + 1))
		if (pms_smp_event_on_cpu(ev, c))
			return c;
	return -1;
}

/* Defaults when the options give neither period nor frequency. */
static const struct {
	enum pms_engine engine;
	uint64_t period;
} default_periods[] = {
	/* IBS op counts in units of 16 (ibs.c perf_ibs_init drops the low
	 * nibble); 0x10000 ops is perf mem's order of magnitude. */
	{ PMS_ENG_IBS, 0x10000 },
	{ PMS_ENG_PEBS, 10007 },
	/* SPE: a sampling interval in operations, at least caps/min_interval. */
	{ PMS_ENG_SPE, 4096 },
	/* Every page fault: the fallback is a first-touch map. */
	{ PMS_ENG_SOFTWARE, 1 },
};

uint64_t pms_smp_default_period(enum pms_engine e)
{
	for (size_t i = 0; i < sizeof(default_periods) / sizeof(default_periods[0]); i++)
		if (default_periods[i].engine == e)
			return default_periods[i].period;
	return 1;
}

/* ---- the build context ---------------------------------------------------- */

struct ctx {
	struct pms_sys *sys;
	const struct pms_pmus *pmus;
	const struct pms_sampler_opts *o;
	struct smp_plan *p;
	pid_t probe_pid;
	bool needs_hw; /* overflow: an event of the caller's needs a hardware PMU */
};

static unsigned want_ops(const struct pms_sampler_opts *o)
{
	return o->ops ? o->ops : (PMS_SAMPLER_LOADS | PMS_SAMPLER_STORES);
}

static struct smp_event *ev_new(struct ctx *c, enum pms_engine e, const struct pms_pmu *pmu,
				const char *name, enum smp_role role)
{
	struct smp_event *ev;

	if (c->p->nev >= SMP_MAX_EVENTS)
		return NULL;
	ev = &c->p->ev[c->p->nev++];
	memset(ev, 0, sizeof(*ev));
	ev->engine = e;
	ev->pmu = pmu;
	ev->role = role;
	ev->leader = -1;
	snprintf(ev->pmu_name, sizeof(ev->pmu_name), "%s", name);
	ev->attr.size = sizeof(ev->attr);
	ev->attr.disabled = 1;
	ev->attr.sample_id_all = 1;
	return ev;
}

/* period / freq per the options and the engine's default. */
static void set_period(struct ctx *c, struct smp_event *ev)
{
	if (c->o->freq) {
		ev->attr.freq = 1;
		ev->attr.sample_freq = c->o->freq;
	} else {
		ev->attr.sample_period = c->o->period ? c->o->period
						      : pms_smp_default_period(ev->engine);
	}
}

static uint64_t base_sample_type(const struct pms_sampler_opts *o)
{
	uint64_t st = PMS_SAMPLE_IP | PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_ADDR |
		      PMS_SAMPLE_CPU | PMS_SAMPLE_PERIOD;
	if (o->want_phys)
		st |= PMS_SAMPLE_PHYS_ADDR;
	return st;
}

/* Native exclude_* bits for engines whose driver honours them. */
static void set_priv_native(struct ctx *c, struct smp_event *ev)
{
	if (c->o->priv == PMS_PRIV_USER)
		ev->attr.exclude_kernel = 1;
	else if (c->o->priv == PMS_PRIV_KERNEL)
		ev->attr.exclude_user = 1;
}

/* ---- AMD IBS -------------------------------------------------------------- */

static int build_ibs(struct ctx *c)
{
	const struct pms_pmu *pmu = NULL;
	struct smp_event *ev;
	uint64_t period;

	for (size_t i = 0; i < pms_pmus_count(c->pmus); i++)
		if (pms_pmus_at(c->pmus, i)->engine == PMS_ENG_IBS)
			pmu = pms_pmus_at(c->pmus, i);
	if (!pmu)
		return 0;
	ev = ev_new(c, PMS_ENG_IBS, pmu, pmu->name, SMP_ROLE_MAIN);
	if (!ev)
		return PMS_ERANGE;
	ev->attr.type = pmu->type;
	/* Weight as the struct (var1 DcMissLat, var2 TagToRetCtr;
	 * ibs.c perf_ibs_handle_irq) so the instruction latency comes too. */
	ev->attr.sample_type = base_sample_type(c->o) | PMS_SAMPLE_DATA_SRC |
			       PMS_SAMPLE_WEIGHT_STRUCT;
	if (c->o->want_raw)
		ev->attr.sample_type |= PMS_SAMPLE_RAW;
	if (c->o->freq) {
		ev->attr.freq = 1;
		ev->attr.sample_freq = c->o->freq;
	} else {
		/* perf_ibs_init: the low 4 bits are dropped and the result must
		 * reach the op minimum 0x90 (kernel-abi-facts §3.4). */
		period = c->o->period ? c->o->period : pms_smp_default_period(PMS_ENG_IBS);
		if (period & 0xf) {
			note_add(c->p, "IBS period %llu rounded down to %llu (the kernel drops "
				       "the low 4 bits)",
				 (unsigned long long)period, (unsigned long long)(period & ~0xfULL));
			period &= ~0xfULL;
		}
		if (period < 0x90) {
			note_add(c->p, "IBS period raised to the op minimum 144 (ibs.c perf_ibs_init)");
			period = 0x90;
		}
		ev->attr.sample_period = period;
	}
	/* Never exclude_hv: ibs_op refuses it (seed 000 E2).  User- or
	 * kernel-only only through swfilt (config2:0) where the format has it;
	 * a bare exclude_* is EINVAL without BIT63 filtering (ibs.c
	 * perf_ibs_init, kernel-abi-facts §3.4). */
	if (c->o->priv != PMS_PRIV_ANY) {
		if (set_term(ev, "swfilt", 1) == 0) {
			set_priv_native(c, ev);
		} else {
			ev->filter_priv = true;
			note_add(c->p, "%s has no swfilt term: %s-only is applied by pmuscope to the "
				       "samples' cpumode, not by the kernel",
				 pmu->name, c->o->priv == PMS_PRIV_USER ? "user" : "kernel");
		}
	}
	if (c->o->ldlat) {
		bool cap = pms_pmu_cap(pmu, "ldlat") != NULL;
		if (!cap || !pms_pmu_format(pmu, "ldlat"))
			note_add(c->p, "%s lacks caps/ldlat: load-latency filter %u not applied",
				 pmu->name, c->o->ldlat);
		else if (c->o->ldlat < 128 || c->o->ldlat > 2048)
			note_add(c->p, "IBS ldlat %u outside [128, 2048] (ibs.c perf_ibs_init): not "
				       "applied",
				 c->o->ldlat);
		else
			set_term(ev, "ldlat", c->o->ldlat);
	}
	/* cnt_ctl (config:19) is visible and in the op config mask only with
	 * IBS_CAPS_OPCNT (ibs.c v6.12:635-653, 1228-1229); outside the mask the
	 * kernel says EINVAL (ibs.c:287). */
	if (c->o->ibs_count_ops && set_term(ev, "cnt_ctl", 1) < 0)
		note_add(c->p, "%s has no cnt_ctl term (no IBS_CAPS_OPCNT): the period counts "
			       "cycles, not dispatched ops",
			 pmu->name);
	if (c->o->l3missonly) {
		if (set_term(ev, "l3missonly", 1) == 0)
			note_add(c->p, "l3missonly: only ops that miss L3 are tagged, so the sample "
				       "period counts ops between L3 misses and per-sample weights "
				       "are skewed towards misses");
		else
			note_add(c->p, "%s has no l3missonly term (Zen 4+): not applied", pmu->name);
	}
	return 1;
}

/* ---- Intel PEBS ----------------------------------------------------------- */

static int parse_one(struct ctx *c, const char *text, struct perf_event_attr *out)
{
	struct pms_event_list *l = NULL;
	int ret = pms_event_parse(c->pmus, text, &l);
	if (ret < 0)
		return ret;
	if (pms_event_list_count(l) != 1) {
		pms_event_list_free(l);
		return pms_err(PMS_EINVAL, "%s: expected one event", text);
	}
	*out = pms_event_list_at(l, 0)->attr;
	pms_event_list_free(l);
	return 0;
}

static int build_pebs(struct ctx *c)
{
	unsigned ops = want_ops(c->o);
	int added = 0;
	char text[128];

	for (size_t i = 0; i < pms_pmus_count(c->pmus); i++) {
		const struct pms_pmu *pmu = pms_pmus_at(c->pmus, i);
		struct perf_event_attr a;
		struct smp_event *ev;
		int leader = -1;

		if (pmu->engine != PMS_ENG_PEBS || pmu->kind != PMS_PMU_CORE)
			continue;
		if ((ops & PMS_SAMPLER_LOADS) && pms_pmu_event(pmu, "mem-loads")) {
			/* Where the PMU has mem-loads-aux, the kernel wants it as the
			 * group leader of a DATA_SRC mem-loads event (ENODATA
			 * otherwise: arch/x86/events/intel/core.c intel_pmu_hw_config,
			 * require_mem_loads_aux_event); perf mem pairs them the same
			 * way (tools/perf/arch/x86/util/mem-events.c). */
			if (pms_pmu_event(pmu, "mem-loads-aux")) {
				snprintf(text, sizeof(text), "%s/mem-loads-aux/", pmu->name);
				if (parse_one(c, text, &a) == 0 &&
				    (ev = ev_new(c, PMS_ENG_PEBS, pmu, pmu->name,
						 SMP_ROLE_AUX_LEADER))) {
					uint32_t sz = ev->attr.size;
					ev->attr = a;
					ev->attr.size = sz;
					ev->attr.disabled = 1;
					ev->attr.sample_id_all = 1;
					set_period(c, ev);
					ev->attr.sample_type = base_sample_type(c->o);
					ev->attr.precise_ip = pmu->max_precise > 0 ? (unsigned)pmu->max_precise : 0;
					set_priv_native(c, ev);
					leader = c->p->nev - 1;
				}
			}
			if (pms_pmu_format(pmu, "ldlat"))
				snprintf(text, sizeof(text), "%s/mem-loads,ldlat=%u/", pmu->name,
					 c->o->ldlat ? c->o->ldlat : 30u);
			else
				snprintf(text, sizeof(text), "%s/mem-loads/", pmu->name);
			if (parse_one(c, text, &a) == 0 &&
			    (ev = ev_new(c, PMS_ENG_PEBS, pmu, pmu->name,
					 added ? SMP_ROLE_EXTRA : SMP_ROLE_MAIN))) {
				uint32_t sz = ev->attr.size;
				ev->attr = a;
				ev->attr.size = sz;
				ev->attr.disabled = 1;
				ev->attr.sample_id_all = 1;
				ev->leader = leader;
				if (leader >= 0)
					ev->attr.disabled = 0; /* follows its leader */
				set_period(c, ev);
				ev->attr.sample_type = base_sample_type(c->o) | PMS_SAMPLE_DATA_SRC |
						       PMS_SAMPLE_WEIGHT_STRUCT;
				/* Start at the PMU's best level; relaxed 3 -> 2 -> 1. */
				ev->attr.precise_ip = pmu->max_precise > 0 ? (unsigned)pmu->max_precise : 1;
				if (ev->attr.precise_ip > 3)
					ev->attr.precise_ip = 3;
				set_priv_native(c, ev);
				added++;
			}
		}
		if ((ops & PMS_SAMPLER_STORES) && pms_pmu_event(pmu, "mem-stores")) {
			snprintf(text, sizeof(text), "%s/mem-stores/", pmu->name);
			if (parse_one(c, text, &a) == 0 &&
			    (ev = ev_new(c, PMS_ENG_PEBS, pmu, pmu->name,
					 added ? SMP_ROLE_EXTRA : SMP_ROLE_MAIN))) {
				uint32_t sz = ev->attr.size;
				ev->attr = a;
				ev->attr.size = sz;
				ev->attr.disabled = 1;
				ev->attr.sample_id_all = 1;
				set_period(c, ev);
				ev->attr.sample_type = base_sample_type(c->o) | PMS_SAMPLE_DATA_SRC |
						       PMS_SAMPLE_WEIGHT_STRUCT;
				ev->attr.precise_ip = pmu->max_precise > 0 ? (unsigned)pmu->max_precise : 1;
				if (ev->attr.precise_ip > 3)
					ev->attr.precise_ip = 3;
				set_priv_native(c, ev);
				added++;
			}
		}
	}
	if (added && c->o->l3missonly)
		note_add(c->p, "l3missonly is an IBS term: ignored for PEBS");
	return added;
}

/* ---- Arm SPE -------------------------------------------------------------- */

/* min_latency (PMSLATFR_EL1.MINLAT, config2:0-11): the counters are
 * caps/count_size bits wide (arm_spe_pmu.c, SPE_PMU_CAP_CNT_SZ), so a
 * threshold above their maximum would never match; clamp to it and to the
 * format's width. */
static void spe_min_latency(struct ctx *c, struct smp_event *ev, const struct pms_pmu *pmu)
{
	const struct pms_format *f = pms_pmu_format(pmu, "min_latency");
	const char *cs = pms_pmu_cap(pmu, "count_size");
	uint64_t max = f ? pms_format_mask(f) >> __builtin_ctzll(pms_format_mask(f) | 1) : 0;
	uint64_t lat = c->o->ldlat;

	if (!f) {
		note_add(c->p, "%s has no min_latency term: latency filter not applied", pmu->name);
		return;
	}
	if (cs && strtoull(cs, NULL, 0) > 0 && strtoull(cs, NULL, 0) < 64) {
		uint64_t cmax = (1ULL << strtoull(cs, NULL, 0)) - 1;
		if (cmax < max)
			max = cmax;
	}
	if (lat > max) {
		note_add(c->p, "%s min_latency %llu clamped to %llu (caps/count_size %s, format "
			       "width)",
			 pmu->name, (unsigned long long)lat, (unsigned long long)max, cs ? cs : "?");
		lat = max;
	}
	set_term(ev, "min_latency", lat);
}

/* Whether the caller wants SPE filters it asked for programmed or refused. */
static bool spe_required(const struct pms_sampler_opts *o)
{
	return o->spe_filters_required;
}

/* event_filter (config1:0-63, PMSEVFR_EL1), inv_event_filter (config3:0-63,
 * PMSNEVFR_EL1, a format only where FEAT_SPEv1p2 is: arm_spe_pmu.c v6.12
 * :200-210 and the is_visible rule :244) and branch_filter (config:32); the
 * data-source filter (inv_data_src_filter) no 6.12 driver has.  Event bits
 * the CPU does not implement (caps/event_filter, the complement of its
 * PMSEVFR RES0 bits) are EOPNOTSUPP in arm_spe_pmu_event_init (:716-720).
 * What cannot be programmed is dropped with a note, or, with
 * spe_filters_required, refuses the engine: a negative PMS_E* with why. */
static int spe_filters(struct ctx *c, struct smp_event *ev, const struct pms_pmu *pmu)
{
	const char *capf = pms_pmu_cap(pmu, "event_filter");
	uint64_t ok = capf ? strtoull(capf, NULL, 0) : UINT64_MAX;
	uint64_t want[3] = { c->o->spe_events, c->o->spe_not_events,
			     c->o->spe_inv_data_src };
	static const char *const term[3] = { "event_filter", "inv_event_filter",
					     "inv_data_src_filter" };
	bool req = spe_required(c->o);

	for (int i = 0; i < 3; i++) {
		int rc;
		if (!want[i])
			continue;
		if (i < 2 && (want[i] & ~ok)) {
			if (req)
				return pms_err(PMS_ENOTSUP,
					       "%s %s bits 0x%llx are not in caps/event_filter 0x%llx: "
					       "this CPU does not implement those events "
					       "(arm_spe_pmu_event_init refuses them, EOPNOTSUPP, "
					       "arm_spe_pmu.c v6.12:716-720); filter on the events "
					       "caps/event_filter lists",
					       pmu->name, term[i], (unsigned long long)(want[i] & ~ok),
					       (unsigned long long)ok);
			note_add(c->p, "%s %s bits 0x%llx are not in caps/event_filter 0x%llx "
				       "(EOPNOTSUPP in arm_spe_pmu_event_init): dropped",
				 pmu->name, term[i], (unsigned long long)(want[i] & ~ok),
				 (unsigned long long)ok);
		}
		uint64_t v = i < 2 ? want[i] & ok : want[i];
		if (!v)
			continue;
		rc = set_term(ev, term[i], v);
		if (rc == PMS_ENOENT) {
			static const char *const why[3] = {
				"", " (the driver shows it only with FEAT_SPEv1p2, "
				    "arm_spe_pmu.c v6.12:244)",
				" (no kernel up to 6.12 has a data-source filter: arm_spe_pmu.c "
				"v6.12:212-234 lists the formats; FEAT_SPE_FDS filtering came later)",
			};
			if (req)
				return pms_err(PMS_ENOTSUP, "%s has no %s format term%s: the filter "
							    "cannot be programmed on this machine",
					       pmu->name, term[i], why[i]);
			note_add(c->p, "%s has no %s term%s: not applied", pmu->name, term[i],
				 i == 1 ? " (FEAT_SPEv1p2 absent)" : "");
		} else if (rc < 0) {
			if (req)
				return pms_err(PMS_ENOTSUP, "%s %s lives in a config word this build's "
							    "perf_event_attr lacks (config4 needs "
							    "PERF_ATTR_SIZE_VER9): not programmable here",
					       pmu->name, term[i]);
			note_add(c->p, "%s %s lives in a config word this build's perf_event_attr "
				       "lacks: not applied",
				 pmu->name, term[i]);
		}
	}
	if (c->o->spe_branches && set_term(ev, "branch_filter", 1) < 0)
		note_add(c->p, "%s has no branch_filter term: branches not sampled", pmu->name);
	return 0;
}

static int build_spe(struct ctx *c)
{
	unsigned ops = want_ops(c->o);
	int added = 0;

	for (size_t i = 0; i < pms_pmus_count(c->pmus); i++) {
		const struct pms_pmu *pmu = pms_pmus_at(c->pmus, i);
		struct smp_event *ev;
		const char *mi;
		uint64_t period;

		if (pmu->engine != PMS_ENG_SPE)
			continue;
		ev = ev_new(c, PMS_ENG_SPE, pmu, pmu->name, added ? SMP_ROLE_EXTRA : SMP_ROLE_MAIN);
		if (!ev)
			break;
		ev->attr.type = pmu->type;
		/* Records arrive in the AUX area; the data ring carries AUX,
		 * ITRACE_START and side-band records with a sample_id trailer. */
		ev->attr.sample_type = PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_CPU;
		/* arm_spe_pmu_event_init refuses freq: a fixed interval only. */
		period = c->o->period ? c->o->period : pms_smp_default_period(PMS_ENG_SPE);
		if (c->o->freq)
			note_add(c->p, "%s samples by interval, not frequency (arm_spe_pmu_event_init "
				       "refuses freq): using an interval of %llu ops",
				 pmu->name, (unsigned long long)period);
		mi = pms_pmu_cap(pmu, "min_interval");
		if (mi && strtoull(mi, NULL, 0) > period) {
			note_add(c->p, "%s interval raised to caps/min_interval %s", pmu->name, mi);
			period = strtoull(mi, NULL, 0);
		}
		ev->attr.sample_period = period;
		set_term(ev, "ts_enable", 1);
		set_term(ev, "jitter", 1);
		if ((ops & PMS_SAMPLER_LOADS) && !(ops & PMS_SAMPLER_STORES))
			set_term(ev, "load_filter", 1);
		else if ((ops & PMS_SAMPLER_STORES) && !(ops & PMS_SAMPLER_LOADS))
			set_term(ev, "store_filter", 1);
		else {
			set_term(ev, "load_filter", 1);
			set_term(ev, "store_filter", 1);
		}
		if (c->o->want_phys && set_term(ev, "pa_enable", 1) < 0)
			note_add(c->p, "%s has no pa_enable term: no physical addresses", pmu->name);
		/* The sample bits `perf mem record -e arm_spe//` gives the SPE
		 * event (tools/perf/arch/arm64/util/arm-spe.c
		 * arm_spe_recording_options: DATA_SRC, PHYS_ADDR with
		 * pa_enable; evsel__config: IP; perf mem's -d and -W: ADDR,
		 * WEIGHT): the kernel writes no SAMPLE for it, but a
		 * recording's readers take the decoded fields by these bits
		 * (perf script refuses -F ip,addr,weight,data_src,phys_addr
		 * without them; pmuscope's recorded source says whether there
		 * is a data source and physical addresses). */
		ev->attr.sample_type |= PMS_SAMPLE_IP | PMS_SAMPLE_ADDR | PMS_SAMPLE_WEIGHT |
					PMS_SAMPLE_DATA_SRC;
		if (term_set(ev, "pa_enable"))
			ev->attr.sample_type |= PMS_SAMPLE_PHYS_ADDR;
		if (c->o->ldlat)
			spe_min_latency(c, ev, pmu);
		int rc = spe_filters(c, ev, pmu);
		if (rc < 0)
			return rc;
		set_priv_native(c, ev);
		added++;
	}
	return added;
}

/* ---- software fallback ---------------------------------------------------- */

static int build_sw(struct ctx *c)
{
	struct smp_event *ev = ev_new(c, PMS_ENG_SOFTWARE, NULL, "software", SMP_ROLE_MAIN);
	if (!ev)
		return PMS_ERANGE;
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	/* DATA_SRC too, though no software event fills it: the kernel then
	 * writes PERF_MEM_NA (kernel/events/core.c perf_prepare_sample),
	 * which the converter does not count as a value, and a `mem -o` file
	 * is one `perf mem report` accepts (it wants DATA_SRC in the attr,
	 * tools/perf/builtin-report.c), as perf record -d writes.  No WEIGHT:
	 * the kernel would write 0 in every record. */
	ev->attr.sample_type = base_sample_type(c->o) | PMS_SAMPLE_DATA_SRC;
	set_period(c, ev);
	/* kernel/events/core.c perf_swevent_event: a software event that
	 * samples PERIOD without freq overflows on every event, whatever
	 * sample_period says.  Without PERIOD it counts sample_period events
	 * per sample, so a fixed period drops PERIOD: each sample stands for
	 * the attr's N faults (the sampler fills it in), as perf record -c
	 * writes; at period 1 that is 8 bytes less a record, and the ring
	 * holds a seventh more records before it drops. */
	if (!ev->attr.freq)
		ev->attr.sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	set_priv_native(c, ev);
	return 1;
}

/* ---- relaxations ------------------------------------------------------------
 * Tried in order after a refusal; the first that applies changes the attr and
 * the open is retried.  Each cites the kernel rule it answers. */

typedef bool (*relax_fn)(struct ctx *c, struct smp_event *ev, int err, char *why, size_t n);

static void priv_text(const struct smp_plan *p, char *buf, size_t n)
{
	if (p->paranoid == -99)
		snprintf(buf, n, "perf_event_paranoid unreadable");
	else
		snprintf(buf, n, "perf_event_paranoid=%d, %s", p->paranoid,
			 p->perfmon ? "with CAP_PERFMON/CAP_SYS_ADMIN"
				    : "without CAP_PERFMON/CAP_SYS_ADMIN");
}

/* kernel/events/core.c perf_event_open: PERF_SAMPLE_PHYS_ADDR needs
 * perf_allow_kernel() (EACCES at paranoid > 1 without CAP_PERFMON). */
static bool relax_phys(struct ctx *c, struct smp_event *ev, int err, char *why, size_t n)
{
	char pt[96];
	if ((err != EACCES && err != EPERM) || !(ev->attr.sample_type & PMS_SAMPLE_PHYS_ADDR) ||
	    ev->engine == PMS_ENG_SPE) /* pa_enable decides there: relax_spe_pa */
		return false;
	ev->attr.sample_type &= ~PMS_SAMPLE_PHYS_ADDR;
	priv_text(c->p, pt, sizeof(pt));
	snprintf(why, n,
		 "PHYS_ADDR refused (%s): physical addresses need perf_allow_kernel() "
		 "(kernel/events/core.c perf_event_open; %s); retrying without PHYS_ADDR",
		 errno_name(err), pt);
	return true;
}

/* drivers/perf/arm_spe_pmu.c arm_spe_pmu_event_init: pa_enable (PMSCR_EL1.PA)
 * and pct_enable return perf_allow_kernel(). */
static bool relax_spe_pa(struct ctx *c, struct smp_event *ev, int err, char *why, size_t n)
{
	char pt[96];
	if ((err != EACCES && err != EPERM) || ev->engine != PMS_ENG_SPE ||
	    !term_set(ev, "pa_enable"))
		return false;
	set_term(ev, "pa_enable", 0);
	ev->attr.sample_type &= ~PMS_SAMPLE_PHYS_ADDR;
	priv_text(c->p, pt, sizeof(pt));
	snprintf(why, n,
		 "pa_enable refused (%s): arm_spe_pmu_event_init requires perf_allow_kernel() "
		 "for physical addresses (%s); retrying without pa_enable",
		 errno_name(err), pt);
	return true;
}

/* kernel/events/core.c perf_event_open: !exclude_kernel needs
 * perf_allow_kernel(); fall back to user-only, on IBS through swfilt. */
static bool relax_user_only(struct ctx *c, struct smp_event *ev, int err, char *why, size_t n)
{
	char pt[96];
	if ((err != EACCES && err != EPERM) || ev->attr.exclude_kernel ||
	    c->o->priv != PMS_PRIV_ANY)
		return false;
	priv_text(c->p, pt, sizeof(pt));
	if (ev->engine == PMS_ENG_IBS) {
		if (set_term(ev, "swfilt", 1) < 0)
			return false; /* a bare exclude_kernel would be EINVAL */
		ev->attr.exclude_kernel = 1;
		snprintf(why, n,
			 "kernel samples refused (%s; %s): retrying user-only through swfilt "
			 "(config2:0), since ibs_op refuses a bare exclude_kernel without BIT63 "
			 "filtering (arch/x86/events/amd/ibs.c perf_ibs_init)",
			 errno_name(err), pt);
	} else {
		ev->attr.exclude_kernel = 1;
		snprintf(why, n, "kernel samples refused (%s; %s): retrying user-only",
			 errno_name(err), pt);
	}
	return true;
}

/* arch/x86/events/core.c x86_pmu_hw_config: precise_ip above
 * x86_pmu_max_precise() is EOPNOTSUPP; level 3 also needs a counter the
 * event's constraint allows (intel/core.c), else EINVAL at validation. */
static bool relax_precise(struct ctx *c, struct smp_event *ev, int err, char *why, size_t n)
{
	unsigned from = ev->attr.precise_ip;
	(void)c;
	if ((err != EOPNOTSUPP && err != EINVAL) || ev->engine != PMS_ENG_PEBS || from <= 1)
		return false;
	ev->attr.precise_ip = from - 1;
	snprintf(why, n, "precise_ip=%u refused (%s): retrying with precise_ip=%u", from,
		 errno_name(err), from - 1);
	return true;
}

/* arm_spe_pmu_event_init: a latency filter without FEAT_FILT_LAT is
 * EOPNOTSUPP. */
static bool relax_spe_lat(struct ctx *c, struct smp_event *ev, int err, char *why, size_t n)
{
	(void)c;
	if (err != EOPNOTSUPP || ev->engine != PMS_ENG_SPE || !term_set(ev, "min_latency"))
		return false;
	set_term(ev, "min_latency", 0);
	snprintf(why, n,
		 "min_latency refused (EOPNOTSUPP): this SPE has no latency filter "
		 "(arm_spe_pmu_event_init, FEAT_FILT_LAT); retrying without it");
	return true;
}

/* arm_spe_pmu_event_init (v6.12:735-746): an event filter without
 * FEAT_FILT_EVT (or an inverted one without FEAT_SPEv1p2) is EOPNOTSUPP. */
static bool relax_spe_filters(struct ctx *c, struct smp_event *ev, int err, char *why, size_t n)
{
	/* asked for as required: the refusal stands (the attempt says why) */
	if (err != EOPNOTSUPP || ev->engine != PMS_ENG_SPE || spe_required(c->o))
		return false;
	if (term_set(ev, "inv_event_filter")) {
		set_term(ev, "inv_event_filter", 0);
		snprintf(why, n, "inv_event_filter refused (EOPNOTSUPP): no FEAT_SPEv1p2 inverted "
				 "event filter (arm_spe_pmu_event_init); retrying without it");
		return true;
	}
	if (term_set(ev, "event_filter")) {
		set_term(ev, "event_filter", 0);
		snprintf(why, n, "event_filter refused (EOPNOTSUPP): no event filtering or an "
				 "unimplemented event (arm_spe_pmu_event_init); retrying without it");
		return true;
	}
	return false;
}

/* perf_ibs_init (ibs.c v6.12.95:287): cnt_ctl outside the op config mask
 * (no IBS_CAPS_OPCNT) is EINVAL. */
static bool relax_ibs_cnt_ctl(struct ctx *c, struct smp_event *ev, int err, char *why, size_t n)
{
	(void)c;
	if (err != EINVAL || ev->engine != PMS_ENG_IBS || !term_set(ev, "cnt_ctl"))
		return false;
	set_term(ev, "cnt_ctl", 0);
	snprintf(why, n, "cnt_ctl refused (EINVAL): no IBS_CAPS_OPCNT, so IbsOpCntCtl is not in "
			 "the op config mask (ibs.c perf_ibs_init); retrying counting cycles");
	return true;
}

/* An AMD precise event forwarded to ibs_op (overflow.c) meets
 * perf_ibs_init, where exclude_host/exclude_guest are EINVAL (ibs.c
 * v6.12.95 perf_ibs_init; reference kernel-abi-facts §3.4).  perf 6.12 sets
 * exclude_guest for every :p event and drops it on EINVAL
 * (tools/perf/util/evsel.c evsel__detect_missing_features, "switching off
 * exclude_guest, exclude_host"); the same here, said. */
static bool relax_ibs_fwd_gh(struct ctx *c, struct smp_event *ev, int err, char *why, size_t n)
{
	(void)c;
	if (err != EINVAL || ev->engine != PMS_ENG_IBS || !strcmp(ev->pmu_name, "ibs_op") ||
	    !(ev->attr.exclude_guest || ev->attr.exclude_host))
		return false;
	ev->attr.exclude_guest = 0;
	ev->attr.exclude_host = 0;
	snprintf(why, n, "refused (EINVAL): the event is forwarded to ibs_op, which takes no "
			 "exclude_guest/exclude_host (ibs.c perf_ibs_init); retrying without them "
			 "as perf does");
	return true;
}

/* A user- or kernel-only IBS event (`ibs_fetch//u`), or an AMD precise event
 * forwarded to ibs_op (`cycles:ppu`),
 * meets perf_ibs_init with exclude_kernel/exclude_user (and perf's `:u`
 * exclude_hv): without IBS_CAPS_BIT63_FILTER the driver takes them only
 * with swfilt (config2:0, IBS_SW_FILTER_MASK), and exclude_hv never (ibs.c
 * perf_ibs_init, seed 000 E2 at v7.1-rc6 :346-370; kernel-abi-facts §3.4).
 * The forwarded event keeps its attr, config2 included (forward_event_to_ibs
 * rewrites only type and config), so swfilt is set on the core attr where
 * ibs_op's format has the term; the privilege filter then runs in the IBS
 * NMI (perf_ibs_handle_irq: perf_exclude_event on the sample's IP). */
static bool relax_ibs_fwd_swfilt(struct ctx *c, struct smp_event *ev, int err, char *why,
				 size_t n)
{
	/* an event of record's on ibs_fetch/ibs_op itself (`ibs_fetch//u`), or
	 * a forwarded core event, whose swfilt is ibs_op's term */
	bool direct = ev->engine == PMS_ENG_OVERFLOW && ev->pmu &&
		      (!strcmp(ev->pmu->name, "ibs_fetch") || !strcmp(ev->pmu->name, "ibs_op"));
	bool fwd = ev->engine == PMS_ENG_IBS && strcmp(ev->pmu_name, "ibs_op");
	const struct pms_pmu *op = direct ? ev->pmu : pms_pmu_find(c->pmus, "ibs_op");
	const struct pms_format *f = op ? pms_pmu_format(op, "swfilt") : NULL;
	struct smp_event probe;
	if (err != EINVAL || !(direct || fwd) || !f ||
	    !(ev->attr.exclude_kernel || ev->attr.exclude_user || ev->attr.exclude_hv))
		return false;
	probe = *ev;
	probe.pmu = op;
	if (term_set(&probe, "swfilt") && !ev->attr.exclude_hv)
		return false; /* swfilt already on: the refusal is something else */
	if (pms_format_attr_set(f, &ev->attr, 1) < 0)
		return false;
	ev->attr.exclude_hv = 0;
	snprintf(why, n,
		 "refused (EINVAL): %s takes %s-only only through swfilt (config2:0) without "
		 "BIT63 filtering, and never exclude_hv (ibs.c perf_ibs_init); retrying with "
		 "swfilt, exclude_hv clear",
		 direct ? op->name : "the event is forwarded to ibs_op, which",
		 ev->attr.exclude_kernel ? "user" : "kernel");
	return true;
}

/* kernel/events/core.c perf_copy_attr: sample_type bits past the kernel's
 * PERF_SAMPLE_MAX are EINVAL; WEIGHT_STRUCT arrived in Linux 5.12. */
static bool relax_weight(struct ctx *c, struct smp_event *ev, int err, char *why, size_t n)
{
	(void)c;
	if (err != EINVAL || !(ev->attr.sample_type & PMS_SAMPLE_WEIGHT_STRUCT))
		return false;
	ev->attr.sample_type &= ~PMS_SAMPLE_WEIGHT_STRUCT;
	ev->attr.sample_type |= PMS_SAMPLE_WEIGHT;
	snprintf(why, n,
		 "refused (EINVAL) with WEIGHT_STRUCT: retrying with PERF_SAMPLE_WEIGHT "
		 "(kernels before 5.12 do not know WEIGHT_STRUCT)");
	return true;
}

static const relax_fn relaxations[] = {
	relax_phys, relax_spe_pa, relax_user_only, relax_precise, relax_spe_lat,
	relax_ibs_fwd_gh, /* before relax_weight: both answer EINVAL */
	relax_ibs_fwd_swfilt,
	relax_weight, relax_spe_filters, relax_ibs_cnt_ctl,
};

/* ---- probing ---------------------------------------------------------------- */

static int open_one(struct ctx *c, struct perf_event_attr *a, int cpu, int group_fd)
{
	const struct pms_sys_ops *ops = pms_sys_ops(c->sys);
	return ops->perf_event_open(ops->ud, a, c->probe_pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

static void close_one(struct ctx *c, int fd)
{
	const struct pms_sys_ops *ops = pms_sys_ops(c->sys);
	if (fd >= 0)
		ops->close(ops->ud, fd);
}

/* Open event i (with its leader, already probed, when it has one) until the
 * kernel accepts or no relaxation applies. */
static int probe_event(struct ctx *c, int i)
{
	struct smp_event *ev = &c->p->ev[i];
	struct smp_event *ld = ev->leader >= 0 ? &c->p->ev[ev->leader] : NULL;
	int cpu = first_cpu(c->p, ev);
	char why[256];
	int ret;

	if (cpu < 0)
		return attempt_add(c->p, ev, c->probe_pid, -1, ENODEV,
				   "no target CPU is served by %s", ev->pmu_name);
	snprintf(why, sizeof(why), "first try");
	/* A member starts at its leader's accepted level: a group shares one
	 * precise level in practice (perf applies :P to the whole group). */
	if (ld && ld->attr.precise_ip < ev->attr.precise_ip) {
		ev->attr.precise_ip = ld->attr.precise_ip;
		snprintf(why, sizeof(why), "precise_ip=%u as its group leader",
			 ev->attr.precise_ip);
	}
	for (int tries = 0; tries < 12; tries++) {
		int lfd = -1, fd, err;

		if (ld) {
			if (!ld->ok)
				return attempt_add(c->p, ev, c->probe_pid, cpu, ENODATA,
						   "its group leader (mem-loads-aux) was refused");
			lfd = open_one(c, &ld->attr, cpu, -1);
			if (lfd < 0) {
				ld->ok = false;
				return attempt_add(c->p, ev, c->probe_pid, cpu, -lfd,
						   "its group leader (mem-loads-aux) was refused");
			}
		}
		fd = open_one(c, &ev->attr, cpu, lfd);
		err = fd < 0 ? -fd : 0;
		close_one(c, fd);
		close_one(c, lfd);
		if (!err) {
			ev->ok = true;
			return attempt_add(c->p, ev, c->probe_pid, cpu, 0, "%s: accepted", why);
		}
		/* Log the refusal, then look for a relaxation. */
		ret = attempt_add(c->p, ev, c->probe_pid, cpu, err, "%s: refused (%s)", why,
				  errno_name(err));
		if (ret < 0)
			return ret;
		why[0] = 0;
		for (size_t r = 0; r < sizeof(relaxations) / sizeof(relaxations[0]); r++)
			if (relaxations[r](c, ev, err, why, sizeof(why)))
				break;
		if (!why[0])
			return 0;
		/* A relaxed leader pairs with a relaxed member: keep the
		 * precise level and privilege of the two in step. */
		if (ld) {
			if (ev->attr.precise_ip < ld->attr.precise_ip)
				ld->attr.precise_ip = ev->attr.precise_ip;
			ld->attr.exclude_kernel = ev->attr.exclude_kernel;
		}
	}
	return 0;
}

static int read_paranoid(struct pms_sys *sys, int *out)
{
	int ret = pms_sys_perf_paranoid(sys, out);
	if (ret < 0)
		*out = -99;
	return ret;
}

/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in CapEff: include/linux/capability.h
 * perfmon_capable(). */
static bool read_perfmon(struct pms_sys *sys)
{
	char *text = NULL, *p;
	bool ok = false;
	if (pms_sys_read_file(sys, "proc/self/status", &text, NULL) < 0)
		return false;
	p = strstr(text, "CapEff:");
	if (p) {
		unsigned long long caps = strtoull(p + 7, NULL, 16);
		ok = (caps >> 38 & 1) || (caps >> 21 & 1);
	}
	free(text);
	return ok;
}

static int plan_cpus(struct pms_sys *sys, const struct pms_topo *topo,
		     const struct pms_sampler_opts *o, struct pms_cpuset *out)
{
	struct pms_cpuset online = { 0 };
	char *line = NULL;
	int ret;

	if (topo) {
		ret = pms_cpuset_copy(&online, &topo->online);
	} else {
		ret = pms_sys_read_line(sys, "sys/devices/system/cpu/online", &line);
		if (ret >= 0)
			ret = pms_cpuset_parse_list(&online, line);
		free(line);
	}
	if (ret < 0)
		goto out;
	if (o->target == PMS_TARGET_CPUS && pms_cpuset_count(&o->cpus) > 0) {
		for (int cpu = pms_cpuset_first(&o->cpus); cpu >= 0;
		     cpu = pms_cpuset_next(&o->cpus, cpu + 1)) {
			if (!pms_cpuset_has(&online, cpu)) {
				ret = pms_err(PMS_EINVAL, "CPU %d is not online", cpu);
				goto out;
			}
			if ((ret = pms_cpuset_add(out, cpu)) < 0)
				goto out;
		}
	} else {
		ret = pms_cpuset_copy(out, &online);
	}
	if (ret >= 0 && pms_cpuset_count(out) <= 0)
		ret = pms_err(PMS_EINVAL, "no online CPU to sample on");
out:
	pms_cpuset_fini(&online);
	return ret < 0 ? ret : 0;
}

/* The ladder: precise engines first, in this order, then the fallback. */
struct rung {
	enum pms_engine engine;
	int (*build)(struct ctx *c);
	const char *absent;
};
static const struct rung ladder[] = {
	{ PMS_ENG_IBS, build_ibs,
	  "no ibs_op PMU (AMD IBS op sampling) under sys/bus/event_source/devices" },
	{ PMS_ENG_PEBS, build_pebs,
	  "no core PMU with caps/max_precise > 0 and a mem-loads or mem-stores event "
	  "(Intel PEBS)" },
	{ PMS_ENG_SPE, build_spe,
	  "no arm_spe_N PMU (Arm SPE; the driver registers none when a higher exception "
	  "level owns the profiling buffer, PMBIDR_EL1.P, arm_spe_pmu.c v6.12:1001, and "
	  "says so in dmesg)" },
	{ PMS_ENG_SOFTWARE, build_sw, NULL },
};

/* Overflow sampling (opts.event): the caller's events, then cpu-clock when
 * a hardware event was refused. */
static int build_overflow(struct ctx *c)
{
	return pms_smp_build_overflow(c->p, c->sys, c->pmus, c->o, &c->needs_hw);
}

static int build_cpu_clock(struct ctx *c)
{
	return pms_smp_build_cpu_clock(c->p, c->o);
}

static const struct rung overflow_ladder[] = {
	{ PMS_ENG_OVERFLOW, build_overflow, "the event list is empty" },
	{ PMS_ENG_OVERFLOW, build_cpu_clock, NULL },
};

/* The errno name of the first refused attempt. */
static const char *first_refusal(const struct smp_plan *p)
{
	for (size_t a = 0; a < p->natt; a++)
		if (p->att[a].err)
			return errno_name(p->att[a].err);
	return "refused";
}

/* Why the first refusal happened, in words: a permission refusal is not a
 * missing PMU (issue 32: cycles:k under perf_event_paranoid 2). */
static const char *refusal_why(const struct smp_plan *p)
{
	for (size_t a = 0; a < p->natt; a++) {
		int e = p->att[a].err;
		if (e < 0)
			e = -e;
		if (e == EACCES || e == EPERM)
			return "not permitted: kernel.perf_event_paranoid or a missing "
			       "CAP_PERFMON refuses it (kernel-mode or CPU-wide sampling needs "
			       "paranoid <= 1)";
		if (e)
			break;
	}
	return "no hardware PMU for it here";
}

void pms_smp_plan_fini(struct smp_plan *p)
{
	if (!p)
		return;
	free(p->att);
	p->att = NULL;
	pms_cpuset_fini(&p->cpus);
}

/* The sampler's options: a version-1 caller's struct ends at ibs_count_ops,
 * version 2 added callgraph .. branch_filter, 3 exclude_pid, 4
 * spe_inv_data_src and spe_filters_required, 5 adapt. */
PMS_OPTS_LAYOUT(PMS_SAMPLER_OPTS, struct pms_sampler_opts,
		PMS_OPTS_END(struct pms_sampler_opts, ibs_count_ops),
		PMS_OPTS_END(struct pms_sampler_opts, branch_filter),
		PMS_OPTS_END(struct pms_sampler_opts, exclude_pid),
		PMS_OPTS_END(struct pms_sampler_opts, spe_filters_required),
		PMS_OPTS_END(struct pms_sampler_opts, adapt),
		PMS_OPTS_END(struct pms_sampler_opts, clock_monotonic));

int pms_smp_plan(struct pms_sys *sys, const struct pms_pmus *pmus, const struct pms_topo *topo,
		 const struct pms_sampler_opts *opts, struct smp_plan *p)
{
	struct pms_sampler_opts copy; /* the plan reads only its own copy */
	const struct pms_sampler_opts *o = &copy;
	struct ctx c = { sys, pmus, o, p, -1, false };
	static const struct pms_pmus no_pmus = { NULL, 0 };
	int ret;

	memset(p, 0, sizeof(*p));
	if ((ret = PMS_OPTS_TAKE("pms_sampler_open", PMS_SAMPLER_OPTS, opts, &copy)) < 0)
		return ret;
	if (!pmus)
		c.pmus = &no_pmus;
	if (o->target != PMS_TARGET_CPUS) {
		if (o->pid <= 0)
			return pms_err(PMS_EINVAL, "a child or pid target needs a pid (got %d)",
				       (int)o->pid);
		c.probe_pid = o->pid;
	}
	read_paranoid(sys, &p->paranoid);
	p->perfmon = read_perfmon(sys);
	if ((ret = plan_cpus(sys, topo, o, &p->cpus)) < 0)
		return ret;

	bool overflow = o->event;
	const struct rung *lad = overflow ? overflow_ladder : ladder;
	size_t nrungs = overflow ? sizeof(overflow_ladder) / sizeof(overflow_ladder[0])
				 : sizeof(ladder) / sizeof(ladder[0]);
	for (size_t r = 0; r < nrungs; r++) {
		enum pms_engine e = lad[r].engine;
		int first = p->nev, n, main_ok = 0;

		bool want = o->engine == PMS_ENG_NONE ? (e != PMS_ENG_SOFTWARE || !o->no_fallback)
						      : o->engine == e;
		if (overflow)
			want = r == 0 || (c.needs_hw && !o->no_fallback);
		if (!want)
			continue;
		n = lad[r].build(&c);
		if (n < 0)
			return n;
		if (n == 0) {
			struct smp_event none = { .engine = e };
			if ((ret = attempt_add(p, &none, c.probe_pid, -1, ENOENT, "%s",
					       lad[r].absent)) < 0)
				return ret;
			continue;
		}
		for (int i = first; i < p->nev; i++) {
			if ((ret = probe_event(&c, i)) < 0)
				return ret;
			if (p->ev[i].ok && p->ev[i].role != SMP_ROLE_AUX_LEADER)
				main_ok++;
		}
		if (main_ok) {
			/* Keep only this engine's accepted events, in order (an
			 * aux leader only while a member uses it). */
			int k = first, map[SMP_MAX_EVENTS];
			for (int i = first; i < p->nev; i++) {
				bool keep = p->ev[i].ok;
				if (keep && p->ev[i].role == SMP_ROLE_AUX_LEADER) {
					keep = false;
					for (int j = i + 1; j < p->nev; j++)
						if (p->ev[j].leader == i && p->ev[j].ok)
							keep = true;
				}
				map[i] = keep ? k : -1;
				if (!keep)
					continue;
				p->ev[k] = p->ev[i];
				if (p->ev[k].leader >= 0)
					p->ev[k].leader = map[p->ev[k].leader];
				k++;
			}
			p->nev = k;
			/* The first sampling event carries the side-band bits. */
			for (int i = 0; i < p->nev; i++)
				if (p->ev[i].role != SMP_ROLE_AUX_LEADER) {
					p->ev[i].role = SMP_ROLE_MAIN;
					for (int j = i + 1; j < p->nev; j++)
						if (p->ev[j].role == SMP_ROLE_MAIN)
							p->ev[j].role = SMP_ROLE_EXTRA;
					break;
				}
			p->engine = e;
			p->phys = false;
			for (int i = 0; i < p->nev; i++) {
				if (e == PMS_ENG_SPE ? term_set(&p->ev[i], "pa_enable")
						     : (p->ev[i].attr.sample_type & PMS_SAMPLE_PHYS_ADDR) != 0)
					p->phys = true;
			}
			for (size_t a = 0; a < p->natt; a++) {
				/* Mark the final, accepted attempts as chosen. */
				for (int i = 0; i < p->nev; i++) {
					char d[sizeof(p->att[a].attr)];
					pms_event_attr_describe(&p->ev[i].attr, d, sizeof(d));
					if (p->att[a].err == 0 && p->att[a].engine == e &&
					    strcmp(p->att[a].attr, d) == 0 &&
					    strcmp(p->att[a].pmu, p->ev[i].pmu_name) == 0)
						p->att[a].chosen = true;
				}
			}
			if (o->want_phys && !p->phys)
				note_add(p, "no physical addresses: see the PHYS_ADDR attempts");
			if (overflow && r > 0)
				note_add(p, "FALLBACK: the kernel refused '%s' (%s: %s, see the "
					    "attempts); sampling cpu-clock, a timer, instead",
					 o->event, first_refusal(p), refusal_why(p));
			return 0;
		}
		p->nev = first;
	}
	p->engine = PMS_ENG_NONE;
	return 0;
}

int pms_sampler_probe(struct pms_sys *sys, const struct pms_pmus *pmus,
		      const struct pms_topo *topo, const struct pms_sampler_opts *opts,
		      enum pms_engine *engine, struct pms_sampler_attempt **attempts,
		      size_t *count)
{
	struct smp_plan p;
	int ret;

	*attempts = NULL;
	*count = 0;
	*engine = PMS_ENG_NONE;
	ret = pms_smp_plan(sys, pmus, topo, opts, &p);
	if (ret < 0) {
		pms_smp_plan_fini(&p);
		return ret;
	}
	*engine = p.engine;
	*attempts = p.att;
	*count = p.natt;
	p.att = NULL;
	pms_smp_plan_fini(&p);
	return 0;
}
