/* `pmuscope topology`'s documents (pmuscope/render_cmd.h): packages, dies,
 * L3 domains, NUMA nodes, distances, sub-NUMA clustering, core types, and
 * where each uncore box's counts belong, as text or JSON
 * (docs/json-topology.md), into the caller's stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/render_cmd.h"
#include "pmuscope/util.h"
#include "fields.h"

static const char *set_str(const struct pms_cpuset *s, char *buf, size_t size)
{
	pms_cpuset_format(s, buf, size);
	return buf;
}

/* Large enough for any list a real machine prints; longer is cut. */
#define SETBUF 8192

int pms_render_topology_json(struct pms_json *j, const char *root, const struct pms_topo *t,
			     const struct pms_uncore_box *boxes, size_t nboxes,
			     const char *uncore_error)
{
	char *b = malloc(SETBUF);
	if (!b)
		return -1;
	pms_json_begin_object(j, NULL);
	const char *vendor = pms_topo_vendor(t);
	PMS_JSON_FIELDS(j, JI("schema_version", 1), JS("root", root ? root : "/"),
			JS("vendor", vendor[0] ? vendor : NULL), JI("family", pms_topo_family(t)),
			JI("model", pms_topo_model(t)), JI("stepping", pms_topo_stepping(t)),
			JS("model_name", pms_topo_model_name(t)),
			JI("ncpus", (long long)pms_topo_cpu_count(t)),
			JS("online", set_str(pms_topo_online(t), b, SETBUF)),
			JI("snc", pms_topo_snc(t)),
			JB("snc_distances_agree", pms_topo_snc_distances_agree(t)),
			JB("numa_synthetic", pms_topo_numa_synthetic(t)),
			JB("numa_overlap", pms_topo_numa_overlap(t)),
			JU("mem_block_size", pms_topo_mem_block_size(t)));

	pms_json_begin_array(j, "packages");
	for (size_t i = 0; i < pms_topo_package_count(t); i++) {
		const struct pms_topo_package *p = pms_topo_package_at(t, i);
		pms_json_begin_object(j, NULL);
		/* one set_str buffer: cpus written before nodes is formatted */
		PMS_JSON_FIELDS(j, JI("id", p->id), JS("cpus", set_str(&p->cpus, b, SETBUF)));
		PMS_JSON_FIELDS(j, JS("nodes", set_str(&p->nodes, b, SETBUF)), JI("dies", p->ndies),
				JI("l3", p->nl3), JI("snc", p->snc));
		pms_json_end_object(j);
	}
	pms_json_end_array(j);

	pms_json_begin_array(j, "caches");
	for (size_t i = 0; i < pms_topo_cache_count(t); i++) {
		const struct pms_topo_cache *c = pms_topo_cache_at(t, i);
		pms_json_begin_object(j, NULL);
		PMS_JSON_FIELDS(j, JI("level", c->level), JS("type", pms_cache_type_name(c->type)),
				JI("logical", c->logical), JI("id", c->id), JU("size", c->size),
				JS("cpus", set_str(&c->cpus, b, SETBUF)));
		pms_json_end_object(j);
	}
	pms_json_end_array(j);

	pms_json_begin_array(j, "nodes");
	for (size_t i = 0; i < pms_topo_node_count(t); i++) {
		const struct pms_topo_node *n = pms_topo_node_at(t, i);
		pms_json_begin_object(j, NULL);
		PMS_JSON_FIELDS(j, JI("id", n->id), JS("cpus", set_str(&n->cpus, b, SETBUF)),
				JB("has_cpu", n->has_cpu), JB("has_memory", n->has_memory),
				JU("memory_blocks", n->nmem_blocks),
				JUQ("mem_total_bytes", n->mem_total, n->mem_total),
				JUQ("mem_free_bytes", n->mem_total, n->mem_free));
		pms_json_begin_array(j, "distances");
		for (size_t k = 0; k < n->ndistances; k++)
			pms_json_int(j, NULL, n->distances[k]);
		pms_json_end_array(j);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);

	pms_json_begin_array(j, "core_types");
	for (size_t i = 0; i < pms_topo_core_type_count(t); i++) {
		const struct pms_topo_core_type *ct = pms_topo_core_type_at(t, i);
		char midr[24];
		snprintf(midr, sizeof(midr), "0x%llx", (unsigned long long)ct->midr);
		pms_json_begin_object(j, NULL);
		PMS_JSON_FIELDS(j, JI("index", ct->index), JS("cpus", set_str(&ct->cpus, b, SETBUF)),
				JS("midr", ct->midr ? midr : NULL), JS("name", ct->name),
				JU("capacity", ct->capacity), JU("base_khz", ct->base_khz));
		pms_json_end_object(j);
	}
	pms_json_end_array(j);

	pms_json_begin_array(j, "cpus");
	for (size_t i = 0; i < pms_topo_cpu_count(t); i++) {
		const struct pms_topo_cpu *c = pms_topo_cpu_at(t, i);
		pms_json_begin_object(j, NULL);
		PMS_JSON_FIELDS(j, JI("cpu", c->cpu), JB("online", c->online),
				JI("package", c->package), JI("die", c->die),
				JI("cluster", c->cluster), JI("core", c->core), JI("node", c->node),
				JI("l3", c->l3),
				JS("smt_siblings", set_str(&c->smt_siblings, b, SETBUF)),
				JU("capacity", c->capacity), JU("midr", c->midr),
				JI("core_type", c->core_type));
		pms_json_end_object(j);
	}
	pms_json_end_array(j);

	if (uncore_error) {
		pms_json_str(j, "uncore_error", uncore_error);
	} else {
		pms_json_begin_array(j, "uncore");
		for (size_t i = 0; i < nboxes; i++) {
			const struct pms_uncore_box *x = &boxes[i];
			pms_json_begin_object(j, NULL);
			PMS_JSON_FIELDS(j, JS("pmu", x->pmu), JS("box", x->box),
					JI("index", x->index), JI("package", x->package),
					JI("kernel_cpu", x->kernel_cpu), JI("node", x->node),
					JI("reader_cpu", x->reader_cpu), JI("snc_domain", x->snc_domain),
					JS("how", pms_uncore_how_name(x->how)),
					JS("warning", x->warning));
			pms_json_end_object(j);
		}
		pms_json_end_array(j);
	}
	pms_json_end_object(j);
	free(b);
	return 0;
}

void pms_render_topology_text(FILE *out, const struct pms_topo *t,
			      const struct pms_uncore_box *boxes, size_t nboxes,
			      const char *uncore_error)
{
	char *b = malloc(SETBUF), *b2 = malloc(SETBUF);
	const char *vendor = pms_topo_vendor(t);
	int snc = pms_topo_snc(t);
	if (!b || !b2)
		goto out;
	fprintf(out, "CPU:        %s", vendor[0] ? vendor : "unknown vendor");
	if (pms_topo_family(t) >= 0)
		fprintf(out, " family %d", pms_topo_family(t));
	if (pms_topo_model(t) >= 0)
		fprintf(out, " model 0x%x", pms_topo_model(t));
	if (pms_topo_model_name(t))
		fprintf(out, " (%s)", pms_topo_model_name(t));
	fprintf(out, "\nCPUs:       %zu, online %s\n", pms_topo_cpu_count(t),
		set_str(pms_topo_online(t), b, SETBUF));
	fprintf(out, "SNC:        %s%d%s\n", snc > 1 ? "SNC" : "none (", snc,
		snc > 1 ? (pms_topo_snc_distances_agree(t) ? " (distances agree)"
							   : " (distances do not confirm)")
			: " node per L3)");
	fprintf(out, "Packages:   %zu\n", pms_topo_package_count(t));
	for (size_t i = 0; i < pms_topo_package_count(t); i++) {
		const struct pms_topo_package *p = pms_topo_package_at(t, i);
		fprintf(out, "  package %d: cpus %s, %d die(s), %d L3, nodes %s", p->id,
		       set_str(&p->cpus, b, SETBUF), p->ndies, p->nl3,
		       set_str(&p->nodes, b2, SETBUF));
		if (p->snc > 1)
			fprintf(out, ", SNC%d", p->snc);
		fprintf(out, "\n");
	}
	fprintf(out, "L3 domains: %d\n", pms_topo_l3_count(t));
	for (size_t i = 0; i < pms_topo_cache_count(t); i++) {
		const struct pms_topo_cache *c = pms_topo_cache_at(t, i);
		if (c->level != 3 || c->type == PMS_CACHE_INSTRUCTION)
			continue;
		char hs[32];
		fprintf(out, "  L3 #%d: %s, cpus %s\n", c->logical, pms_human_size(c->size, hs, sizeof(hs)),
		       set_str(&c->cpus, b, SETBUF));
	}
	fprintf(out, "NUMA nodes: %zu%s%s\n", pms_topo_node_count(t),
	       pms_topo_numa_synthetic(t) ? " (no NUMA in sysfs)" : "",
	       pms_topo_numa_overlap(t) ? " (warning: nodes share CPUs; each CPU kept its lowest node)"
			       : "");
	for (size_t i = 0; i < pms_topo_node_count(t); i++) {
		const struct pms_topo_node *n = pms_topo_node_at(t, i);
		fprintf(out, "  node %d: cpus %s%s%s", n->id,
		       pms_cpuset_count(&n->cpus) ? set_str(&n->cpus, b, SETBUF) : "-",
		       n->has_memory ? "" : ", no memory", n->has_cpu ? "" : ", memory only");
		if (n->mem_total) {
			char h1[32], h2[32];
			fprintf(out, ", size %s, free %s", pms_human_size(n->mem_total, h1, sizeof(h1)),
			       pms_human_size(n->mem_free, h2, sizeof(h2)));
		}
		if (n->nmem_blocks) {
			char h1[32];
			fprintf(out, ", %zu memory blocks", n->nmem_blocks);
			if (pms_topo_mem_block_size(t))
				fprintf(out, " of %s",
					pms_human_size(pms_topo_mem_block_size(t), h1, sizeof(h1)));
		}
		fprintf(out, "\n");
	}
	if (pms_topo_node_count(t) > 1 && pms_topo_node_at(t, 0)->ndistances) {
		fprintf(out, "Distances:\n      ");
		for (size_t i = 0; i < pms_topo_node_count(t); i++)
			fprintf(out, "%4d", pms_topo_node_at(t, i)->id);
		fprintf(out, "\n");
		for (size_t i = 0; i < pms_topo_node_count(t); i++) {
			const struct pms_topo_node *n = pms_topo_node_at(t, i);
			fprintf(out, "  %4d", n->id);
			for (size_t k = 0; k < n->ndistances; k++)
				fprintf(out, "%4d", n->distances[k]);
			fprintf(out, "\n");
		}
	}
	fprintf(out, "Core types: %zu\n", pms_topo_core_type_count(t));
	for (size_t i = 0; i < pms_topo_core_type_count(t); i++) {
		const struct pms_topo_core_type *ct = pms_topo_core_type_at(t, i);
		fprintf(out, "  type %d: cpus %s", ct->index, set_str(&ct->cpus, b, SETBUF));
		if (ct->name)
			fprintf(out, ", %s", ct->name);
		if (ct->midr)
			fprintf(out, ", MIDR 0x%llx", (unsigned long long)ct->midr);
		if (ct->capacity)
			fprintf(out, ", capacity %u", ct->capacity);
		if (ct->base_khz)
			fprintf(out, ", base %llu MHz", (unsigned long long)(ct->base_khz / 1000));
		fprintf(out, "\n");
	}
	if (uncore_error) {
		fprintf(out, "Uncore:     not mapped: %s\n", uncore_error);
		goto out;
	}
	fprintf(out, "Uncore boxes: %zu\n", nboxes);
	for (size_t i = 0; i < nboxes; i++) {
		const struct pms_uncore_box *x = &boxes[i];
		fprintf(out, "  %-20s package %d node ", x->pmu, x->package);
		if (x->node >= 0)
			fprintf(out, "%-3d", x->node);
		else
			fprintf(out, "all");
		fprintf(out, " read on cpu %-4d (kernel cpumask %d, %s)\n", x->reader_cpu, x->kernel_cpu,
		       pms_uncore_how_name(x->how));
		if (x->warning)
			fprintf(out, "    warning: %s\n", x->warning);
	}
out:
	free(b);
	free(b2);
}
