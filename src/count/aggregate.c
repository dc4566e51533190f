/* Aggregating the last read of a counter into rows per CPU, core, cluster,
 * L3, die, socket, NUMA node, core type, thread, or globally. */
#include "count/count_int.h"
#include "event/event_list_int.h" /* the counter reads its events whole */

#include "util/error.h"
#include "topo/topo_int.h"

#include <stdlib.h>
#include <string.h>

static const char *const agg_names[] = {
	[PMS_AGG_GLOBAL] = "global", [PMS_AGG_CPU] = "cpu",     [PMS_AGG_CORE] = "core",
	[PMS_AGG_CLUSTER] = "cluster", [PMS_AGG_L3] = "cache",  [PMS_AGG_DIE] = "die",
	[PMS_AGG_SOCKET] = "socket", [PMS_AGG_NODE] = "node",   [PMS_AGG_CORE_TYPE] = "core-type",
	[PMS_AGG_THREAD] = "thread",
};

const char *pms_count_agg_name(enum pms_count_agg agg)
{
	if ((unsigned)agg >= sizeof(agg_names) / sizeof(agg_names[0]))
		return "?";
	return agg_names[agg];
}

struct key {
	int id, package;
	const char *type_name;
};

/* Index of a core PMU among the core PMUs, -1 if it is not one. */
static int core_pmu_index(const struct pms_pmus *pmus, const char *name)
{
	int k = 0;
	if (!pmus || !name)
		return -1;
	for (size_t i = 0; i < pms_pmus_count(pmus); i++) {
		if (pms_pmus_at(pmus, i)->kind != PMS_PMU_CORE)
			continue;
		if (!strcmp(pms_pmus_at(pmus, i)->name, name))
			return k;
		k++;
	}
	return -1;
}

static struct key bucket(const struct pms_counter *c, const struct pms_count_instance *in,
			 enum pms_count_agg agg)
{
	struct key k = { -1, -1, NULL };
	const struct pms_topo_cpu *tc = NULL;
	const struct pms_event *ev = &c->list->events[in->event];

	/* Uncore boxes have a socket and a node, but no core, cluster or L3:
	 * the reader CPU is only where the kernel reads them. */
	if (in->cpu >= 0 && c->topo && !(in->box && agg != PMS_AGG_CPU))
		tc = pms_topo_cpu(c->topo, in->cpu);
	switch (agg) {
	case PMS_AGG_GLOBAL:
		break;
	case PMS_AGG_CPU:
		k.id = in->cpu;
		break;
	case PMS_AGG_CORE:
		if (tc) {
			k.id = tc->core;
			k.package = tc->package;
		}
		break;
	case PMS_AGG_CLUSTER:
		if (tc) {
			k.id = tc->cluster;
			k.package = tc->package;
		}
		break;
	case PMS_AGG_L3:
		if (tc)
			k.id = tc->l3;
		break;
	case PMS_AGG_DIE:
		if (tc) {
			k.id = tc->die;
			k.package = tc->package;
		}
		break;
	case PMS_AGG_SOCKET:
		k.id = in->package;
		break;
	case PMS_AGG_NODE:
		k.id = in->node;
		break;
	case PMS_AGG_CORE_TYPE:
		/* Hybrid expansions: the core PMU is the core type. */
		if (c->pmus && pms_pmus_core_count(c->pmus) > 1 &&
		    (k.id = core_pmu_index(c->pmus, ev->pmu)) >= 0) {
			k.type_name = ev->pmu;
		} else if (tc && c->topo->ncore_types > 1 && tc->core_type >= 0) {
			k.id = tc->core_type;
			k.type_name = c->topo->core_types[tc->core_type].name;
		}
		break;
	case PMS_AGG_THREAD:
		k.id = in->tid;
		break;
	}
	return k;
}

/* The first event written at the same place with the same name: hybrid
 * expansions of one written event share both. */
static size_t source_event(const struct pms_event_list *l, size_t e)
{
	for (size_t i = 0; i < e; i++)
		if (l->events[i].column == l->events[e].column &&
		    !strcmp(l->events[i].name, l->events[e].name))
			return i;
	return e;
}

static int row_cmp(const void *a, const void *b)
{
	const struct pms_count_row *x = a, *y = b;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->package != y->package)
		return x->package < y->package ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return 0;
}

int pms_counter_rows(const struct pms_counter *c, enum pms_count_agg agg,
		     struct pms_count_row **rows, size_t *n)
{
	struct pms_count_row *r;
	size_t nr = 0;

	*rows = NULL;
	*n = 0;
	if ((unsigned)agg >= sizeof(agg_names) / sizeof(agg_names[0]))
		return pms_err(PMS_EINVAL, "unknown aggregation %d", (int)agg);
	if (agg != PMS_AGG_GLOBAL && agg != PMS_AGG_CPU && agg != PMS_AGG_THREAD &&
	    agg != PMS_AGG_CORE_TYPE && agg != PMS_AGG_SOCKET && agg != PMS_AGG_NODE &&
	    !c->topo)
		return pms_err(PMS_EINVAL, "aggregation per %s needs the topology",
			       pms_count_agg_name(agg));
	r = calloc(c->ninst + c->list->count + 1, sizeof(*r));
	if (!r)
		return pms_err(PMS_ENOMEM, "out of memory for %zu rows", c->ninst);
	for (size_t i = 0; i < c->ninst; i++) {
		const struct pms_count_instance *in = &c->inst[i].pub;
		const struct pms_event *ev = &c->list->events[in->event];
		size_t src = source_event(c->list, in->event);
		struct key k = bucket(c, in, agg);
		struct pms_count_row *row = NULL;

		for (size_t j = 0; j < nr; j++)
			if (r[j].event == src && r[j].id == k.id && r[j].package == k.package &&
			    (r[j].type_name == k.type_name ||
			     (r[j].type_name && k.type_name && !strcmp(r[j].type_name, k.type_name)))) {
				row = &r[j];
				break;
			}
		if (!row) {
			row = &r[nr++];
			row->event = src;
			row->name = ev->name;
			row->pmu = ev->pmu;
			row->agg = agg;
			row->id = k.id;
			row->package = k.package;
			row->type_name = k.type_name;
			row->scale = ev->scale;
			row->unit = ev->unit;
		} else if (row->pmu && (!ev->pmu || strcmp(row->pmu, ev->pmu))) {
			row->pmu = NULL; /* several PMUs summed */
		}
		row->ninstances++;
		if (in->v.enabled > 0 && in->v.running == 0)
			row->nunscheduled++;
		row->raw += in->v.raw;
		row->enabled += in->v.enabled;
		row->running += in->v.running;
		row->scaled += in->v.scaled;
	}
	for (size_t e = 0; e < c->list->count; e++) {
		const struct pms_event *ev = &c->list->events[e];
		bool have = false;
		if (!c->unsupported[e] || source_event(c->list, e) != e)
			continue;
		for (size_t j = 0; j < nr && !have; j++)
			have = r[j].event == e;
		if (have)
			continue; /* a hybrid sibling counts: that row stands for it */
		r[nr++] = (struct pms_count_row){ .event = e, .name = ev->name, .pmu = ev->pmu,
						 .agg = agg, .id = -1, .package = -1,
						 .scale = ev->scale, .unit = ev->unit,
						 .unsupported = c->unsupported[e] };
	}
	for (size_t j = 0; j < nr; j++)
		r[j].fraction = r[j].enabled ? (double)r[j].running / (double)r[j].enabled : 1.0;
	qsort(r, nr, sizeof(*r), row_cmp);
	*rows = r;
	*n = nr;
	return 0;
}

void pms_count_rows_free(struct pms_count_row *rows)
{
	free(rows);
}
