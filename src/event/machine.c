/* What this machine can count (pms_machine_events_list): generic hardware
 * and software events, PMU sysfs aliases, tracepoints. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "util/error.h"
#include "util/grow.h"

struct list {
	struct pms_machine_event *v;
	size_t n, cap;
};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int add(struct list *l, const char *name, const char *pmu, const char *enc,
	       const char *desc, enum pms_machine_event_kind kind)
{
	struct pms_machine_event *e;
	if (pms_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v), 64, "machine events") < 0)
		return PMS_ENOMEM;
	e = &l->v[l->n];
	e->name = strdup(name);
	e->pmu = dup_or_null(pmu);
	e->encoding = strdup(enc);
	e->desc = dup_or_null(desc);
	e->kind = kind;
	l->n++;
	if (!e->name || !e->encoding || (pmu && !e->pmu) || (desc && !e->desc))
		return pms_err(PMS_ENOMEM, "out of memory listing machine events");
	return 0;
}

/* The generic hardware (with a core PMU) and software events. */
static int add_generic(struct list *l, const struct pms_pmus *pmus)
{
	bool core = pmus && pms_pmus_core_count(pmus) > 0;
	for (int type = PERF_TYPE_HARDWARE; type <= PERF_TYPE_SOFTWARE; type++) {
		bool sw = type == PERF_TYPE_SOFTWARE;
		if (type == PERF_TYPE_HARDWARE && !core)
			continue; /* no core PMU (a VM without vPMU): they cannot count */
		if (type != PERF_TYPE_HARDWARE && !sw)
			continue;
		for (uint64_t cfg = 0; cfg < 64; cfg++) {
			const char *name = pms_event_generic_name((uint32_t)type, cfg);
			if (!name)
				continue;
			if (sw && (cfg == PERF_COUNT_SW_DUMMY || cfg == PERF_COUNT_SW_BPF_OUTPUT))
				continue; /* count nothing */
			if (add(l, name, sw ? "software" : NULL, name, NULL,
				sw ? PMS_MEV_SOFTWARE : PMS_MEV_HARDWARE) < 0)
				return PMS_ENOMEM;
		}
	}
	return 0;
}

static int add_pmu_aliases(struct list *l, const struct pms_pmus *pmus)
{
	char enc[600];
	for (size_t p = 0; pmus && p < pms_pmus_count(pmus); p++) {
		const struct pms_pmu *pp = pms_pmus_at(pmus, p);
		for (size_t e = 0; e < pp->nevents; e++) {
			snprintf(enc, sizeof(enc), "%s/%s/", pp->name, pp->events[e].name);
			if (add(l, enc, pp->name, enc, pp->events[e].value,
				pp->kind == PMS_PMU_UNCORE ? PMS_MEV_UNCORE_PMU : PMS_MEV_KERNEL_PMU) < 0)
				return PMS_ENOMEM;
		}
	}
	return 0;
}

static int add_tracepoints(struct list *l, struct pms_sys *sys)
{
	struct pms_tracepoint *tp = NULL;
	size_t ntp = 0;
	char enc[64];
	int rc = 0;
	if (pms_tracepoints_list(sys, &tp, &ntp) == 0) {
		for (size_t i = 0; i < ntp && rc == 0; i++) {
			snprintf(enc, sizeof(enc), "tracepoint/config=%" PRIu64 "/", tp[i].id);
			rc = add(l, tp[i].name, "tracepoint", enc, NULL, PMS_MEV_TRACEPOINT);
		}
	}
	if (rc == 0)
		pms_error_clear(); /* no tracefs: no tracepoints, not an error */
	pms_tracepoints_free(tp, ntp);
	return rc;
}

int pms_machine_events_list(struct pms_sys *sys, const struct pms_pmus *pmus, bool tracepoints,
			    struct pms_machine_event **out, size_t *n)
{
	struct list l = { 0 };
	int rc;
	if (!out || !n || (tracepoints && !sys))
		return pms_err(PMS_EINVAL, "pms_machine_events_list: out and n (and sys with "
					   "tracepoints) are required");
	rc = add_generic(&l, pmus);
	if (rc == 0)
		rc = add_pmu_aliases(&l, pmus);
	if (rc == 0 && tracepoints)
		rc = add_tracepoints(&l, sys);
	if (rc < 0) {
		pms_machine_events_free(l.v, l.n);
		return rc;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

void pms_machine_events_free(struct pms_machine_event *ev, size_t n)
{
	for (size_t i = 0; ev && i < n; i++) {
		free(ev[i].name);
		free(ev[i].pmu);
		free(ev[i].encoding);
		free(ev[i].desc);
	}
	free(ev);
}

const char *pms_machine_event_kind_name(enum pms_machine_event_kind kind)
{
	static const char *const names[] = {
		[PMS_MEV_HARDWARE] = "hardware event",     [PMS_MEV_SOFTWARE] = "software event",
		[PMS_MEV_KERNEL_PMU] = "kernel PMU event", [PMS_MEV_UNCORE_PMU] = "uncore PMU event",
		[PMS_MEV_TRACEPOINT] = "tracepoint event",
	};
	if ((unsigned)kind >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[kind];
}
