/* Overflow (IP) sampling plans: the caller's events in perf's syntax as
 * sampling events (pmuscope record), and the cpu-clock fallback for a
 * machine without a hardware PMU.  probe.c probes what these build, as it
 * does the memory engines' events. */
#include <stdio.h>
#include <string.h>

#include "pmuscope/event.h"
#include "pmuscope/ibsfwd.h"
#include "sample/sampler_int.h"
#include "util/error.h"

/* perf record's default: 4000 samples per second (tools/perf/util/
 * record.c, opts->user_freq / freq default). */
#define DEFAULT_FREQ 4000

static const struct pms_pmu *pmu_by_name(const struct pms_pmus *pmus, const char *name)
{
	for (size_t i = 0; pmus && name && i < pms_pmus_count(pmus); i++)
		if (!strcmp(pms_pmus_at(pmus, i)->name, name))
			return pms_pmus_at(pmus, i);
	return NULL;
}

static struct smp_event *ev_add(struct smp_plan *p, const struct pms_pmu *pmu, const char *name)
{
	struct smp_event *ev;
	if (p->nev >= SMP_MAX_EVENTS)
		return NULL;
	ev = &p->ev[p->nev++];
	memset(ev, 0, sizeof(*ev));
	ev->engine = PMS_ENG_OVERFLOW;
	ev->pmu = pmu;
	ev->role = p->nev == 1 ? SMP_ROLE_MAIN : SMP_ROLE_EXTRA;
	ev->leader = -1;
	snprintf(ev->pmu_name, sizeof(ev->pmu_name), "%s", name);
	return ev;
}

static void sampling_bits(struct perf_event_attr *a, const struct pms_sampler_opts *o,
			  bool has_period)
{
	a->size = sizeof(*a);
	a->disabled = 1;
	a->sample_id_all = 1;
	a->sample_type |= PMS_SAMPLE_IP | PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_CPU |
			  PMS_SAMPLE_PERIOD;
	if (o->freq) {
		a->freq = 1;
		a->sample_freq = o->freq;
	} else if (o->period) {
		a->freq = 0;
		a->sample_period = o->period;
	} else if (!has_period) {
		a->freq = 1;
		a->sample_freq = DEFAULT_FREQ;
	}
	/* Privilege from the options when the event string said nothing. */
	if (!a->exclude_user && !a->exclude_kernel) {
		if (o->priv == PMS_PRIV_USER)
			a->exclude_kernel = 1;
		else if (o->priv == PMS_PRIV_KERNEL)
			a->exclude_user = 1;
	}
}

static void plan_note(struct smp_plan *p, const char *a, const char *b, const char *c)
{
	size_t len = strlen(p->notes);
	if (len + 3 < sizeof(p->notes))
		snprintf(p->notes + len, sizeof(p->notes) - len, "%s%s%s%s", len ? "; " : "", a,
			 b, c);
}

/* AMD precise core events (issue 31 row 1): the kernel opens cycles:p/:pp
 * and raw 0x76/0xC1 with precise_ip 1-2 on ibs_op (arch/x86/events/amd/
 * core.c amd_pmu_hw_config -> ibs.c forward_event_to_ibs, v7.1-rc6
 * :240-258; the same in 6.12), so the samples are IBS op samples: exact IP
 * (perf_ibs_handle_irq sets PERF_EFLAGS_EXACT), and for memory ops the
 * data address, data source and latency where sample_type asks for them
 * (perf_ibs_parse_ld_st_data fills them only for ibs_op).  The event keeps
 * its core attr, as perf opens it; the samples are decoded as IBS, with
 * the RAW registers as the cross-check the ibs_op engine has. */
static void ibs_forward(struct smp_plan *p, const struct pms_pmus *pmus, struct smp_event *ev,
			const char *text)
{
	struct pms_ibs_forward fw;
	if (pms_event_ibs_forward(pmus, &ev->attr, &fw) < 0 || fw.status == PMS_IBS_FWD_NONE)
		return;
	if (fw.status == PMS_IBS_FWD_REFUSED) {
		plan_note(p, text, ": the kernel will refuse it on this AMD machine: ", fw.why);
		return;
	}
	ev->engine = PMS_ENG_IBS;
	ev->attr.sample_type |= PMS_SAMPLE_ADDR | PMS_SAMPLE_DATA_SRC | PMS_SAMPLE_WEIGHT_STRUCT |
				PMS_SAMPLE_RAW;
	plan_note(p, text, " is forwarded by the kernel to ibs_op (AMD IBS op samples: ", fw.why);
	plan_note(p, "", "", "exact IP; data address, source and latency of memory ops)");
}

/* `-e ibs_fetch//` (issue 31 row 2): the driver fills only the IP
 * (IbsFetchLinAd, exact) and, where PERF_SAMPLE_RAW is asked for, the fetch
 * registers (perf_ibs_handle_irq: perf_ibs_parse_ld_st_data runs for ibs_op
 * only), so the front-end fields exist only in RAW: asked for here, as perf
 * users do with `--raw-samples` (docs/ibs.md). */
static void ibs_fetch_event(struct smp_plan *p, struct smp_event *ev, const char *text)
{
	if (!ev->pmu || strcmp(ev->pmu->name, "ibs_fetch"))
		return;
	ev->attr.sample_type |= PMS_SAMPLE_RAW;
	plan_note(p, text, " samples AMD IBS fetches: ",
		  "exact fetch IP and the IbsFetchCtl/IcIbsExtdCtl registers in RAW "
		  "(latency, iTLB, page size, IC/L2/L3 miss: `report --fetch`)");
}

/* Whether an attr needs a hardware PMU (a generic hardware or cache event,
 * a raw event, or an event of a PMU with its own type). */
static bool hardware(const struct perf_event_attr *a)
{
	return a->type != PERF_TYPE_SOFTWARE && a->type != PERF_TYPE_TRACEPOINT &&
	       a->type != PERF_TYPE_BREAKPOINT;
}

int pms_smp_build_overflow(struct smp_plan *p, struct pms_sys *sys, const struct pms_pmus *pmus,
			   const struct pms_sampler_opts *o, bool *needs_hw)
{
	struct pms_event_list *l = NULL;
	struct pms_event_parse_opts po = PMS_EVENT_PARSE_OPTS_INIT;
	int rc, n = 0;

	*needs_hw = false;
	po.sys = sys; /* tracepoints by name */
	rc = pms_event_parse_ex(pmus, o->event, &po, &l);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < pms_event_list_count(l); i++) {
		const struct pms_event *e = pms_event_list_at(l, i);
		const struct pms_pmu *pmu = pmu_by_name(pmus, e->pmu);
		struct smp_event *ev = ev_add(p, pmu, e->pmu ? e->pmu : "software");
		if (!ev) {
			rc = pms_err(PMS_ERANGE, "record: at most %d events", SMP_MAX_EVENTS);
			goto out;
		}
		ev->attr = e->attr;
		/* Groups are not sampled as groups: each event on its own. */
		sampling_bits(&ev->attr, o, e->attr.sample_period != 0 && !e->attr.freq);
		if (e->attr.freq && !o->freq && !o->period)
			ev->attr.sample_freq = e->attr.sample_freq;
		if (hardware(&ev->attr))
			*needs_hw = true;
		ibs_forward(p, pmus, ev, e->name ? e->name : ev->pmu_name);
		ibs_fetch_event(p, ev, e->name ? e->name : ev->pmu_name);
		n++;
	}
	rc = n;
out:
	pms_event_list_free(l);
	return rc;
}

int pms_smp_build_cpu_clock(struct smp_plan *p, const struct pms_sampler_opts *o)
{
	struct smp_event *ev = ev_add(p, NULL, "software");
	if (!ev)
		return PMS_ERANGE;
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	sampling_bits(&ev->attr, o, false);
	return 1;
}
