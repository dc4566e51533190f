/* Uncore box -> NUMA node, SNC-correct (see include/pmuscope/topo.h).
 *
 * Nothing is changed: we compute, per uncore PMU and package, the node its
 * counts belong to and the CPU to open it on.  A package with one node needs
 * no rule; with several, a platform rule (uncore_tables.c) places the box on
 * an SNC domain, and without one the box is reported package-wide with a
 * warning instead of being pinned to the socket's first node. */
#include "topo/topo_int.h"
#include "topo/topo_internal.h"
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *fmt(const char *f, ...) PMS_PRINTF(1, 2);
static char *fmt(const char *f, ...)
{
	va_list ap;
	int n;
	char *s;
	va_start(ap, f);
	n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (!s)
		return NULL;
	va_start(ap, f);
	vsnprintf(s, (size_t)n + 1, f, ap);
	va_end(ap);
	return s;
}

static const struct pms_uncore_platform *find_platform(const struct pms_topo *t)
{
	for (size_t i = 0; i < pms_uncore_nplatforms; i++) {
		const struct pms_uncore_platform *p = &pms_uncore_platforms[i];
		if (!strcmp(p->vendor, t->vendor) && p->family == t->family &&
		    p->model == t->model)
			return p;
	}
	return NULL;
}

static const struct pms_uncore_rule *find_rule(const struct pms_uncore_platform *p,
					       const char *box)
{
	for (size_t i = 0; p && i < p->nrules; i++)
		if (!strcmp(p->rules[i].box, box))
			return &p->rules[i];
	return NULL;
}

static bool is_box(const struct pms_pmu *p)
{
	return p->kind == PMS_PMU_UNCORE && p->has_cpumask && pms_cpuset_count(&p->cpus) > 0;
}

static const char *family_of(const struct pms_pmu *p)
{
	return p->box ? p->box : p->name;
}

static int first_online(const struct pms_topo *t, int node)
{
	const struct pms_topo_node *n = pms_topo_node(t, node);
	if (!n)
		return -1;
	for (int c = pms_cpuset_first(&n->cpus); c >= 0; c = pms_cpuset_next(&n->cpus, c + 1))
		if (pms_cpuset_has(&t->online, c))
			return c;
	return -1;
}

/* Decide the SNC domain of one box, or -1 with *why set (malloc'd). */
static int snc_domain(const struct pms_topo *t, const struct pms_uncore_platform *plat,
		      const struct pms_uncore_rule *rule, const struct pms_pmu *pmu,
		      int nboxes, int snc, char **why)
{
	int idx = pmu->box_index;
	const char *fam = family_of(pmu);

	*why = NULL;
	if (!plat) {
		*why = fmt("no uncore table for %s family %d model 0x%x: %s counts cover the "
			   "whole package, not one node",
			   t->vendor[0] ? t->vendor : "unknown vendor", t->family, t->model,
			   pmu->name);
		return -1;
	}
	if (!rule) {
		*why = fmt("%s: %s boxes are package-wide on %s; counts cover every node of "
			   "the package",
			   pmu->name, fam, plat->name);
		return -1;
	}
	if (snc <= 1) {
		*why = fmt("%s: package has several nodes but no sub-NUMA clustering; counts "
			   "cover every node of the package",
			   pmu->name);
		return -1;
	}
	if (idx < 0) {
		*why = fmt("%s: no box number in the PMU name", pmu->name);
		return -1;
	}
	if (rule->how == PMS_UNCORE_SPLIT) {
		int per = nboxes / snc, d = per > 0 ? idx / per : -1;
		if (d < 0 || d >= snc) {
			*why = fmt("%s: box %d does not fit %d %s boxes split over SNC%d", pmu->name,
				   idx, nboxes, fam, snc);
			return -1;
		}
		return d;
	}
	if (snc >= (int)(sizeof(rule->maps) / sizeof(rule->maps[0])) || !rule->maps[snc]) {
		*why = fmt("%s: %s has no %s table for SNC%d; counts cover the whole package",
			   pmu->name, plat->name, fam, snc);
		return -1;
	}
	if ((size_t)idx >= rule->map_len[snc]) {
		*why = fmt("%s: box %d is beyond the %zu-entry SNC%d table of %s", pmu->name, idx,
			   rule->map_len[snc], snc, plat->name);
		return -1;
	}
	if (rule->maps[snc][idx] >= snc) {
		*why = fmt("%s: table gives SNC domain %d of %d", pmu->name, rule->maps[snc][idx],
			   snc);
		return -1;
	}
	return rule->maps[snc][idx];
}

static int fill_box(const struct pms_topo *t, const struct pms_uncore_platform *plat,
		    const struct pms_pmus *pmus, const struct pms_pmu *pmu, int kcpu,
		    struct pms_uncore_box *b)
{
	const struct pms_topo_cpu *c = pms_topo_cpu(t, kcpu);
	const struct pms_topo_package *pk = c ? pms_topo_package(t, c->package) : NULL;
	char *why = NULL;
	int nboxes = 0;

	b->pmu = strdup(pmu->name);
	b->box = strdup(family_of(pmu));
	if (!b->pmu || !b->box)
		return pms_err(PMS_ENOMEM, "out of memory mapping %s", pmu->name);
	b->index = pmu->box_index;
	b->kernel_cpu = kcpu;
	b->reader_cpu = kcpu;
	b->package = c ? c->package : -1;
	b->node = -1;
	b->snc_domain = -1;
	b->how = PMS_UNCORE_PER_SOCKET;

	if (!pk) {
		b->warning = fmt("%s: cpumask CPU %d is not an online CPU of the topology",
				 pmu->name, kcpu);
		return b->warning ? 0 : pms_err(PMS_ENOMEM, "out of memory");
	}
	if (pms_cpuset_count(&pk->nodes) <= 1) {
		b->how = PMS_UNCORE_CPUMASK;
		b->node = c->node;
		b->snc_domain = 0;
		return 0;
	}
	for (size_t i = 0; i < pms_pmus_count(pmus); i++)
		if (is_box(pms_pmus_at(pmus, i)) && !strcmp(family_of(pms_pmus_at(pmus, i)), b->box))
			nboxes++;
	{
		const struct pms_uncore_rule *rule = find_rule(plat, b->box);
		int d = snc_domain(t, plat, rule, pmu, nboxes, pk->snc, &why);
		if (d >= 0) {
			int node = pms_topo_package_node(t, pk->id, d);
			int rc = first_online(t, node);
			if (node < 0 || rc < 0) {
				why = fmt("%s: package %d has no online SNC domain %d", pmu->name,
					  pk->id, d);
			} else {
				b->how = rule->how;
				b->node = node;
				b->reader_cpu = rc;
				b->snc_domain = d;
				return 0;
			}
		}
	}
	if (!why)
		return pms_err(PMS_ENOMEM, "out of memory mapping %s", pmu->name);
	b->warning = why;
	return 0;
}

int pms_uncore_map(const struct pms_topo *t, const struct pms_pmus *pmus,
		   struct pms_uncore_box **out, size_t *n)
{
	const struct pms_uncore_platform *plat;
	struct pms_uncore_box *v = NULL;
	size_t cnt = 0, k = 0;
	int ret = 0;

	if (!out || !n)
		return pms_err(PMS_EINVAL, "pms_uncore_map: out or n is NULL");
	*out = NULL;
	*n = 0;
	if (!t || !pmus)
		return pms_err(PMS_EINVAL, "pms_uncore_map: topo or pmus is NULL");
	plat = find_platform(t);
	for (size_t i = 0; i < pms_pmus_count(pmus); i++)
		if (is_box(pms_pmus_at(pmus, i)))
			cnt += (size_t)pms_cpuset_count(&pms_pmus_at(pmus, i)->cpus);
	if (!cnt)
		return 0;
	v = calloc(cnt, sizeof(*v));
	if (!v)
		return pms_err(PMS_ENOMEM, "pms_uncore_map: out of memory");
	for (size_t i = 0; i < pms_pmus_count(pmus); i++) {
		const struct pms_pmu *p = pms_pmus_at(pmus, i);
		if (!is_box(p))
			continue;
		for (int c = pms_cpuset_first(&p->cpus); c >= 0;
		     c = pms_cpuset_next(&p->cpus, c + 1)) {
			if ((ret = fill_box(t, plat, pmus, p, c, &v[k++])) < 0)
				goto out;
		}
	}
	*out = v;
	*n = k;
	v = NULL;
out:
	pms_uncore_boxes_free(v, k);
	return ret;
}

void pms_uncore_boxes_free(struct pms_uncore_box *boxes, size_t n)
{
	if (!boxes)
		return;
	for (size_t i = 0; i < n; i++) {
		free((char *)boxes[i].pmu);
		free((char *)boxes[i].box);
		free((char *)boxes[i].warning);
	}
	free(boxes);
}

const char *pms_uncore_how_name(enum pms_uncore_how how)
{
	switch (how) {
	case PMS_UNCORE_CPUMASK: return "cpumask";
	case PMS_UNCORE_SPLIT: return "cha-split";
	case PMS_UNCORE_TABLE: return "imc-table";
	case PMS_UNCORE_PER_SOCKET: return "per-socket";
	}
	return "?";
}
