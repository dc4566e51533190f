/* Counter budget of Arm PMUv3 core PMUs (include/pmuscope/count.h): probed
 * through the kernel's group check, and a group's fit computed the way the
 * driver places events.  Driver lines: Linux 6.12.117
 * (drivers/perf/arm_pmuv3.c, drivers/perf/arm_pmu.c). */
#include "count/count_int.h"

#include "pmuscope/armpmu.h"
#include "pmuscope/error.h"
#include "pmuscope/pmuv3.h"
#include "util/error.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CYCLE_IDX 31   /* include/linux/perf/arm_pmuv3.h:10 */
#define INSTR_IDX 32   /* include/linux/perf/arm_pmuv3.h:11 */
#define MAX_GENERAL 31 /* include/linux/perf/arm_pmuv3.h:9 */
#define MAX_HWEVENTS 33 /* include/linux/perf/arm_pmu.h:26 (arm64) */
#define EV_SW_INCR 0x00
#define EV_INST_RETIRED 0x08
#define EV_CPU_CYCLES 0x11

static bool is_pmuv3(const struct pms_pmu *p)
{
	/* drivers/perf/arm_pmuv3.c names its PMUs armv8_pmuv3[_N], armv8_<core>
	 * and armv9_<core> (armv8_pmu_init and the per-core init tables). */
	return p && p->kind == PMS_PMU_CORE &&
	       (!strncmp(p->name, "armv8_", 6) || !strncmp(p->name, "armv9_", 6));
}

/* drivers/perf/apple_m1_cpu_pmu.c registers apple_<core>_pmu. */
static bool is_apple(const struct pms_pmu *p)
{
	size_t n = p && p->name ? strlen(p->name) : 0;
	return p && p->kind == PMS_PMU_CORE && n > 10 && !strncmp(p->name, "apple_", 6) &&
	       !strcmp(p->name + n - 4, "_pmu");
}

static uint64_t term(const struct pms_pmu *p, const char *name, const struct perf_event_attr *a)
{
	const struct pms_format *f = pms_pmu_format(p, name);
	uint64_t word;
	if (!f || pms_format_attr_get(f, a, &word) < 0)
		return 0;
	return word & pms_format_mask(f);
}

static void set_term(const struct pms_pmu *p, const char *name, struct perf_event_attr *a,
		     uint64_t bit_default)
{
	const struct pms_format *f = pms_pmu_format(p, name);
	if (!f || pms_format_attr_set(f, a, 1) < 0)
		a->config1 |= bit_default;
}

/* Opens a group on the calling thread: a leader with event `first`, then
 * members with event `ev`, until `max` are open or the kernel refuses one.
 * Returns how many opened; *err is the refusal's errno (0 if none). */
static int probe_group(struct pms_sys *sys, const struct pms_pmu *p, uint64_t first,
		       uint64_t ev, bool want_long, int max, int *err)
{
	const struct pms_sys_ops *ops = pms_sys_ops(sys);
	int fds[MAX_HWEVENTS + 1], n = 0;
	*err = 0;
	while (n < max) {
		struct perf_event_attr a;
		int fd;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = p->type;
		a.config = n ? ev : first;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		if (want_long)
			set_term(p, "long", &a, 1);
		fd = ops->perf_event_open(ops->ud, &a, 0, -1, n ? fds[0] : -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			*err = -fd;
			break;
		}
		fds[n++] = fd;
	}
	for (int i = n; i-- > 0;)
		pms_sys_close(sys, fds[i]);
	return n;
}

int pms_count_budget_probe(struct pms_sys *sys, const struct pms_pmus *pmus, const char *name,
			   struct pms_count_budget *out)
{
	const struct pms_pmu *p = pmus && name ? pms_pmu_find(pmus, name) : NULL;
	struct pms_count_budget b;
	int err, k;

	if (!sys || !out)
		return pms_err(PMS_EINVAL, "pms_count_budget_probe: missing sys or out");
	memset(&b, 0, sizeof(b));
	if (is_apple(p)) {
		/* m1_pmu_init: bitmap_set(cntr_mask, 0, M1_PMU_NR_COUNTERS);
		 * counters 0/1 are cycles/instructions, the rest by affinity */
		snprintf(out->pmu, sizeof(out->pmu), "%s", p->name);
		out->general = PMS_APPLE_NCOUNTERS - 2;
		out->cycle_counter = out->instr_counter = true;
		out->chained_long = false;
		out->apple_affinity = true;
		out->counter_bits = pms_apple_pmu_counter_bits(p->name);
		return 0;
	}
	if (!is_pmuv3(p))
		return pms_err(PMS_ENOTSUP, "'%s' is not an Arm PMUv3 core PMU: no counter budget to probe",
			       name ? name : "(null)");
	snprintf(b.pmu, sizeof(b.pmu), "%s", p->name);
	/* SW_INCR never takes the cycle or instruction counter
	 * (armv8pmu_get_event_idx, arm_pmuv3.c:929-967): the group that fits
	 * holds exactly the general counters, bitmap_set(cntr_mask, 0,
	 * PMCR_EL0.N) (arm_pmuv3.c:1210-1212). */
	k = probe_group(sys, p, EV_SW_INCR, EV_SW_INCR, false, MAX_HWEVENTS, &err);
	if (err && err != EINVAL)
		return pms_err_errno(PMS_ESYS, err,
				     "probing the counters of %s: perf_event_open of a group of %d "
				     "SW_INCR events on this thread failed",
				     p->name, k + 1);
	if (!err || k == 0)
		return pms_err(PMS_ENOTSUP,
			       "probing the counters of %s: the kernel %s, which is not the Arm PMUv3 "
			       "group check (drivers/perf/arm_pmu.c validate_group)",
			       p->name, err ? "refused a lone event with EINVAL" : "accepted 33 events in one group");
	b.general = k;
	k = probe_group(sys, p, EV_CPU_CYCLES, EV_SW_INCR, false, b.general + 1, &err);
	b.cycle_counter = k == b.general + 1;
	k = probe_group(sys, p, EV_INST_RETIRED, EV_SW_INCR, false, b.general + 1, &err);
	b.instr_counter = k == b.general + 1;
	/* 64-bit events chain an even/odd pair without PMUv3p5
	 * (armv8pmu_event_is_chained, arm_pmuv3.c:477-486; get_chain_idx,
	 * :906-927): then only general / 2 of them fit. */
	k = probe_group(sys, p, EV_SW_INCR, EV_SW_INCR, true, b.general, &err);
	b.chained_long = k < b.general;
	*out = b;
	return 0;
}

/* PERF_TYPE_HARDWARE -> event number, armv8_pmuv3_perf_map (arm_pmuv3.c:43-53);
 * branch-instructions is BR_RETIRED (0x21) or PC_WRITE_RETIRED (0x0c), both
 * general counters.  -1: unmapped. */
static int hw_event(uint64_t id)
{
	static const int map[] = { EV_CPU_CYCLES, EV_INST_RETIRED, 0x04, 0x03, 0x21, 0x10, 0x1d, 0x23, 0x24 };
	return id < sizeof(map) / sizeof(map[0]) ? map[id] : -1;
}

struct member {
	bool counted;
	int ev;
	bool chained, is_long, user, threshold;
};

static struct member classify(const struct pms_pmu *p, const struct pms_pmus *pmus,
			      const struct perf_event_attr *a, bool has_long_counters)
{
	struct member m = { 0 };
	uint32_t ext = (uint32_t)(a->config >> 32);
	bool generic = a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE;
	bool mine;
	/* kernel/events/core.c perf_init_event(): generic types go to the PMU
	 * in config:32-63 when set; raw and plain generic ones to the core
	 * PMU (counted here only when there is one). */
	if (a->type == p->type)
		mine = true;
	else if (generic && ext)
		mine = ext == p->type;
	else
		mine = (generic || a->type == PERF_TYPE_RAW) && pms_pmus_core_count(pmus) == 1;
	if (!mine)
		return m;
	m.counted = true;
	if (is_apple(p)) {
		/* m1_pmu_map_event: m1_pmu_perf_map, no cache map; raw config:0-7 */
		m.ev = a->type == PERF_TYPE_HARDWARE ? pms_apple_hw_event((uint32_t)a->config)
		       : a->type == PERF_TYPE_HW_CACHE ? -1
						       : (int)(a->config & 0xff);
		return m;
	}
	if (a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE) {
		/* what the driver programs (catalog/pmuv3.c); -1 when it refuses */
		struct pms_pmuv3_mapping map;
		m.ev = hw_event((uint32_t)a->config);
		if (a->type == PERF_TYPE_HW_CACHE)
			m.ev = 0x04;
		if (pms_pmuv3_map_generic(p, a->type, a->config, &map) == 0 &&
		    map.status != PMS_PMUV3_NOT_GENERIC)
			m.ev = map.status == PMS_PMUV3_MAPPED ? map.event : -1;
	} else
		m.ev = (int)(a->config & 0xffff);
	m.user = term(p, "rdpmc", a) != 0;
	m.threshold = term(p, "threshold", a) != 0;
	/* chained: 64-bit, no user read, no long counters (arm_pmuv3.c:477-486) */
	m.is_long = pms_pmu_format(p, "long") ? term(p, "long", a) != 0 : (a->config1 & 1);
	m.chained = m.is_long && !m.user && !has_long_counters;
	return m;
}

/* armv8pmu_get_event_idx() (arm_pmuv3.c:929-967); on Apple
 * m1_pmu_get_event_idx(): the first free counter of the event's affinity. */
static int place(const struct pms_count_budget *b, uint64_t *used, const struct member *m)
{
	if (b->apple_affinity) {
		uint16_t aff = m->ev >= 0 ? pms_apple_event_affinity((uint32_t)m->ev) : 0;
		for (int i = 0; i < PMS_APPLE_NCOUNTERS; i++)
			if ((aff >> i & 1) && !(*used & (1ULL << i))) {
				*used |= 1ULL << i;
				return i;
			}
		return -1;
	}
	if (m->ev == EV_CPU_CYCLES && !m->threshold && b->cycle_counter) {
		if (!(*used & (1ULL << CYCLE_IDX))) {
			*used |= 1ULL << CYCLE_IDX;
			return CYCLE_IDX;
		}
		/* a 64-bit user-read CPU_CYCLES needs PMCCNTR without long
		 * counters (arm_pmuv3.c:939-945) */
		if (m->is_long && m->user && b->chained_long)
			return -1;
	}
	if (m->ev == EV_INST_RETIRED && !m->threshold && b->instr_counter && !m->user &&
	    !(*used & (1ULL << INSTR_IDX))) {
		*used |= 1ULL << INSTR_IDX;
		return INSTR_IDX;
	}
	for (int i = 0; i < b->general && i < MAX_GENERAL; i++) {
		if (m->chained) {
			/* the odd counter and the even one below it */
			uint64_t pair = (i & 1) ? (1ULL << i) | (1ULL << (i - 1)) : 0;
			if (pair && !(*used & pair)) {
				*used |= pair;
				return i;
			}
		} else if (!(*used & (1ULL << i))) {
			*used |= 1ULL << i;
			return i;
		}
	}
	return -1;
}

int pms_count_budget_fit(const struct pms_count_budget *b, const struct pms_pmus *pmus,
			 const struct perf_event_attr *attrs, const char *const *names, size_t n)
{
	const struct pms_pmu *p = b && pmus ? pms_pmu_find(pmus, b->pmu) : NULL;
	uint64_t used = 0;
	size_t first_fail = n, nchained = 0, ncounted = 0;
	int general = 0;
	bool cyc = false, ins = false;
	char grp[512];
	size_t len = 0;

	if (!p)
		return pms_err(PMS_EINVAL, "pms_count_budget_fit: no PMU '%s'", b ? b->pmu : "(null)");
	for (size_t i = 0; i < n; i++) {
		struct member m = classify(p, pmus, &attrs[i], !b->chained_long);
		int idx;
		if (!m.counted)
			continue;
		ncounted++;
		idx = place(b, &used, &m);
		if (idx < 0 && first_fail == n)
			first_fail = i;
		/* what the group asks for, whatever the placement order */
		if (m.ev == EV_CPU_CYCLES && !m.threshold && b->cycle_counter && !cyc)
			cyc = true;
		else if (m.ev == EV_INST_RETIRED && !m.threshold && b->instr_counter && !m.user && !ins)
			ins = true;
		else {
			general += m.chained ? 2 : 1;
			nchained += m.chained;
		}
	}
	if (first_fail == n)
		return 0;
	for (size_t i = 0; i < n && len < sizeof(grp); i++)
		len += (size_t)snprintf(grp + len, sizeof(grp) - len, "%s%s", i ? "," : "",
					names && names[i] ? names[i] : "?");
	if (b->apple_affinity) {
		struct member m = classify(p, pmus, &attrs[first_fail], true);
		uint16_t aff = m.ev >= 0 ? pms_apple_event_affinity((uint32_t)m.ev) : 0;
		char cl[64];
		size_t cn = 0;
		cl[0] = '\0';
		for (int i = 0; i < PMS_APPLE_NCOUNTERS && cn < sizeof(cl); i++)
			if (aff >> i & 1)
				cn += (size_t)snprintf(cl + cn, sizeof(cl) - cn, "%s%d", cn ? "," : "", i);
		return pms_err(PMS_ERANGE,
			       "group {%s} cannot be scheduled on %s: %s (event 0x%x) may use only "
			       "counter%s %s (the driver's affinity table, apple_m1_cpu_pmu.c "
			       "m1_pmu_event_affinity), and the members before it took %s.  Split "
			       "the group, or write it {...}:W to let pmuscope split it",
			       grp, b->pmu, names && names[first_fail] ? names[first_fail] : "a member",
			       m.ev < 0 ? 0 : (unsigned)m.ev, strchr(cl, ',') ? "s" : "",
			       cn ? cl : "(none: not an event the driver maps)", cn ? "them" : "nothing it can use");
	}
	return pms_err(PMS_ERANGE,
		       "group {%s} cannot be scheduled on %s: its %zu events need %d general "
		       "counter%s%s%s%s, and %s has %d (PMCR_EL0.N, probed through the kernel's "
		       "group check)%s%s; %s did not fit.  Split the group (events outside a "
		       "group are multiplexed), or write it {...}:W to let pmuscope split it",
		       grp, b->pmu, ncounted, general, general == 1 ? "" : "s",
		       cyc ? " plus the cycle counter" : "", ins ? " plus the instruction counter" : "",
		       nchained ? " (64-bit `long` events take two chained counters each: this PMU has no PMUv3p5 64-bit counters)"
				: "",
		       b->pmu, b->general, b->cycle_counter ? " plus the cycle counter" : "",
		       b->instr_counter ? " and the instruction counter" : "",
		       names && names[first_fail] ? names[first_fail] : "a member");
}

/* The Arm PMUv3 PMU a group is counted on: the first member's PMU, or for
 * generic and raw events the machine's one core PMU. */
static const struct pms_pmu *group_pmu(const struct pms_counter *c, const size_t *members, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct pms_event *ev = pms_event_list_at(c->list, members[k]);
		const struct pms_pmu *p = ev->pmu ? pms_pmu_find(c->pmus, ev->pmu) : NULL;
		if (is_pmuv3(p) || is_apple(p))
			return p;
		if (!ev->pmu && (ev->attr.type == PERF_TYPE_HARDWARE || ev->attr.type == PERF_TYPE_HW_CACHE ||
				 ev->attr.type == PERF_TYPE_RAW) &&
		    pms_pmus_core_count(c->pmus) == 1)
			for (size_t i = 0; i < pms_pmus_count(c->pmus); i++)
				if (is_pmuv3(pms_pmus_at(c->pmus, i)) || is_apple(pms_pmus_at(c->pmus, i)))
					return pms_pmus_at(c->pmus, i);
	}
	return NULL;
}

int pms_count_budget_check(struct pms_counter *c, const size_t *members, size_t n)
{
	const struct pms_pmu *p = c->pmus && n > 1 ? group_pmu(c, members, n) : NULL;
	struct pms_count_budget_ent *e = NULL;
	struct perf_event_attr attrs[64];
	const char *names[64];
	int r;

	if (!p || n > 64)
		return 0;
	for (size_t i = 0; i < c->nbudgets; i++)
		if (!strcmp(c->budgets[i].b.pmu, p->name))
			e = &c->budgets[i];
	if (!e) {
		struct pms_count_budget_ent *nb =
			realloc(c->budgets, (c->nbudgets + 1) * sizeof(*c->budgets));
		if (!nb)
			return pms_err(PMS_ENOMEM, "out of memory for a counter budget");
		c->budgets = nb;
		e = &c->budgets[c->nbudgets++];
		memset(e, 0, sizeof(*e));
		snprintf(e->b.pmu, sizeof(e->b.pmu), "%s", p->name);
		/* A probe that fails (no privilege, not the PMUv3 rule) leaves
		 * the group to the kernel's own check. */
		e->ok = pms_count_budget_probe(c->sys, c->pmus, p->name, &e->b) == 0;
		snprintf(e->b.pmu, sizeof(e->b.pmu), "%s", p->name);
		pms_error_clear();
	}
	if (!e->ok)
		return 0;
	for (size_t k = 0; k < n; k++) {
		attrs[k] = pms_event_list_at(c->list, members[k])->attr;
		names[k] = pms_event_list_at(c->list, members[k])->name;
	}
	r = pms_count_budget_fit(&e->b, c->pmus, attrs, names, n);
	return r;
}

size_t pms_counter_nbudgets(const struct pms_counter *c)
{
	size_t n = 0;
	for (size_t i = 0; c && i < c->nbudgets; i++)
		n += c->budgets[i].ok;
	return n;
}

const struct pms_count_budget *pms_counter_budget(const struct pms_counter *c, size_t i)
{
	for (size_t k = 0; c && k < c->nbudgets; k++)
		if (c->budgets[k].ok && i-- == 0)
			return &c->budgets[k].b;
	return NULL;
}

size_t pms_counter_split_groups(const struct pms_counter *c, char *buf, size_t size)
{
	if (buf && size)
		snprintf(buf, size, "%s", c && c->split_why ? c->split_why : "");
	return c ? c->nsplit : 0;
}
