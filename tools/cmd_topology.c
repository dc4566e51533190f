/* pmuscope topology: packages, dies, L3 domains, NUMA nodes, distances,
 * sub-NUMA clustering, core types, and where each uncore box's counts belong.
 * JSON schema: docs/json-topology.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opt.h"
#include "pmuscope/error.h"
#include "pmuscope/pmu.h"
#include "pmuscope/topo.h"

int cmd_topology(const struct cli_global *g, int argc, char **argv);

enum { O_JSON = 256 };

static const struct cli_opt opts[] = {
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "machine-readable output (schema: docs/json-topology.md)" },
	{ 0 },
};

const struct cli_spec cli_spec_topology = {
	.name = "topology",
	.synopsis = "[--root DIR] topology [--json]",
	.description =
		"Show packages, dies, L3 domains, NUMA nodes and their distances,\n"
		"sub-NUMA clustering (SNC-N per package), core types (big.LITTLE /\n"
		"hybrid), and for every uncore PMU the NUMA node its counts belong to\n"
		"and the CPU to read it on (corrected for SNC where the platform is\n"
		"known; otherwise reported per socket with a warning).",
	.opts = opts,
	.footer = "Exit status: 0 ok, 1 the machine's topology cannot be read, 2 usage error.",
};

static const char *set_str(const struct pms_cpuset *s, char *buf, size_t size)
{
	pms_cpuset_format(s, buf, size);
	return buf;
}

/* Large enough for any list a real machine prints; longer is cut. */
#define SETBUF 8192

static void print_json(const char *root, const struct pms_topo *t,
		       const struct pms_uncore_box *boxes, size_t nboxes, const char *uncore_error)
{
	struct json j;
	char *b = malloc(SETBUF);
	if (!b)
		return;
	cli_json_init(&j, stdout);
	cli_json_begin_object(&j, NULL);
	cli_json_int(&j, "schema_version", 1);
	cli_json_str(&j, "root", root ? root : "/");
	cli_json_str(&j, "vendor", t->vendor[0] ? t->vendor : NULL);
	cli_json_int(&j, "family", t->family);
	cli_json_int(&j, "model", t->model);
	cli_json_int(&j, "stepping", t->stepping);
	cli_json_str(&j, "model_name", t->model_name);
	cli_json_int(&j, "ncpus", (long long)t->ncpus);
	cli_json_str(&j, "online", set_str(&t->online, b, SETBUF));
	cli_json_int(&j, "snc", t->snc);
	cli_json_bool(&j, "snc_distances_agree", t->snc_distances_agree);
	cli_json_bool(&j, "numa_synthetic", t->numa_synthetic);
	cli_json_bool(&j, "numa_overlap", t->numa_overlap);
	cli_json_uint(&j, "mem_block_size", t->mem_block_size);

	cli_json_begin_array(&j, "packages");
	for (size_t i = 0; i < t->npackages; i++) {
		const struct pms_topo_package *p = &t->packages[i];
		cli_json_begin_object(&j, NULL);
		cli_json_int(&j, "id", p->id);
		cli_json_str(&j, "cpus", set_str(&p->cpus, b, SETBUF));
		cli_json_str(&j, "nodes", set_str(&p->nodes, b, SETBUF));
		cli_json_int(&j, "dies", p->ndies);
		cli_json_int(&j, "l3", p->nl3);
		cli_json_int(&j, "snc", p->snc);
		cli_json_end_object(&j);
	}
	cli_json_end_array(&j);

	cli_json_begin_array(&j, "caches");
	for (size_t i = 0; i < t->ncaches; i++) {
		const struct pms_topo_cache *c = &t->caches[i];
		cli_json_begin_object(&j, NULL);
		cli_json_int(&j, "level", c->level);
		cli_json_str(&j, "type", pms_cache_type_name(c->type));
		cli_json_int(&j, "logical", c->logical);
		cli_json_int(&j, "id", c->id);
		cli_json_uint(&j, "size", c->size);
		cli_json_str(&j, "cpus", set_str(&c->cpus, b, SETBUF));
		cli_json_end_object(&j);
	}
	cli_json_end_array(&j);

	cli_json_begin_array(&j, "nodes");
	for (size_t i = 0; i < pms_topo_node_count(t); i++) {
		const struct pms_topo_node *n = pms_topo_node_at(t, i);
		cli_json_begin_object(&j, NULL);
		cli_json_int(&j, "id", n->id);
		cli_json_str(&j, "cpus", set_str(&n->cpus, b, SETBUF));
		cli_json_bool(&j, "has_cpu", n->has_cpu);
		cli_json_bool(&j, "has_memory", n->has_memory);
		cli_json_uint(&j, "memory_blocks", n->nmem_blocks);
		if (n->mem_total) {
			cli_json_uint(&j, "mem_total_bytes", n->mem_total);
			cli_json_uint(&j, "mem_free_bytes", n->mem_free);
		} else {
			cli_json_null(&j, "mem_total_bytes");
			cli_json_null(&j, "mem_free_bytes");
		}
		cli_json_begin_array(&j, "distances");
		for (size_t k = 0; k < n->ndistances; k++)
			cli_json_int(&j, NULL, n->distances[k]);
		cli_json_end_array(&j);
		cli_json_end_object(&j);
	}
	cli_json_end_array(&j);

	cli_json_begin_array(&j, "core_types");
	for (size_t i = 0; i < t->ncore_types; i++) {
		const struct pms_topo_core_type *ct = &t->core_types[i];
		char midr[24];
		snprintf(midr, sizeof(midr), "0x%llx", (unsigned long long)ct->midr);
		cli_json_begin_object(&j, NULL);
		cli_json_int(&j, "index", ct->index);
		cli_json_str(&j, "cpus", set_str(&ct->cpus, b, SETBUF));
		cli_json_str(&j, "midr", ct->midr ? midr : NULL);
		cli_json_str(&j, "name", ct->name);
		cli_json_uint(&j, "capacity", ct->capacity);
		cli_json_uint(&j, "base_khz", ct->base_khz);
		cli_json_end_object(&j);
	}
	cli_json_end_array(&j);

	cli_json_begin_array(&j, "cpus");
	for (size_t i = 0; i < t->ncpus; i++) {
		const struct pms_topo_cpu *c = &t->cpus[i];
		cli_json_begin_object(&j, NULL);
		cli_json_int(&j, "cpu", c->cpu);
		cli_json_bool(&j, "online", c->online);
		cli_json_int(&j, "package", c->package);
		cli_json_int(&j, "die", c->die);
		cli_json_int(&j, "cluster", c->cluster);
		cli_json_int(&j, "core", c->core);
		cli_json_int(&j, "node", c->node);
		cli_json_int(&j, "l3", c->l3);
		cli_json_str(&j, "smt_siblings", set_str(&c->smt_siblings, b, SETBUF));
		cli_json_uint(&j, "capacity", c->capacity);
		cli_json_uint(&j, "midr", c->midr);
		cli_json_int(&j, "core_type", c->core_type);
		cli_json_end_object(&j);
	}
	cli_json_end_array(&j);

	if (uncore_error) {
		cli_json_str(&j, "uncore_error", uncore_error);
	} else {
		cli_json_begin_array(&j, "uncore");
		for (size_t i = 0; i < nboxes; i++) {
			const struct pms_uncore_box *x = &boxes[i];
			cli_json_begin_object(&j, NULL);
			cli_json_str(&j, "pmu", x->pmu);
			cli_json_str(&j, "box", x->box);
			cli_json_int(&j, "index", x->index);
			cli_json_int(&j, "package", x->package);
			cli_json_int(&j, "kernel_cpu", x->kernel_cpu);
			cli_json_int(&j, "node", x->node);
			cli_json_int(&j, "reader_cpu", x->reader_cpu);
			cli_json_int(&j, "snc_domain", x->snc_domain);
			cli_json_str(&j, "how", pms_uncore_how_name(x->how));
			cli_json_str(&j, "warning", x->warning);
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
	}
	cli_json_end_object(&j);
	cli_json_finish(&j);
	free(b);
}

static void print_text(const struct pms_topo *t, const struct pms_uncore_box *boxes,
		       size_t nboxes, const char *uncore_error)
{
	char *b = malloc(SETBUF), *b2 = malloc(SETBUF);
	if (!b || !b2)
		goto out;
	printf("CPU:        %s", t->vendor[0] ? t->vendor : "unknown vendor");
	if (t->family >= 0)
		printf(" family %d", t->family);
	if (t->model >= 0)
		printf(" model 0x%x", t->model);
	if (t->model_name)
		printf(" (%s)", t->model_name);
	printf("\nCPUs:       %zu, online %s\n", t->ncpus, set_str(&t->online, b, SETBUF));
	printf("SNC:        %s%d%s\n", t->snc > 1 ? "SNC" : "none (", t->snc,
	       t->snc > 1 ? (t->snc_distances_agree ? " (distances agree)"
						    : " (distances do not confirm)")
			  : " node per L3)");
	printf("Packages:   %zu\n", t->npackages);
	for (size_t i = 0; i < t->npackages; i++) {
		const struct pms_topo_package *p = &t->packages[i];
		printf("  package %d: cpus %s, %d die(s), %d L3, nodes %s", p->id,
		       set_str(&p->cpus, b, SETBUF), p->ndies, p->nl3,
		       set_str(&p->nodes, b2, SETBUF));
		if (p->snc > 1)
			printf(", SNC%d", p->snc);
		printf("\n");
	}
	printf("L3 domains: %d\n", t->nl3);
	for (size_t i = 0; i < t->ncaches; i++) {
		const struct pms_topo_cache *c = &t->caches[i];
		if (c->level != 3 || c->type == PMS_CACHE_INSTRUCTION)
			continue;
		char hs[32];
		printf("  L3 #%d: %s, cpus %s\n", c->logical, cli_human_size(c->size, hs, sizeof(hs)),
		       set_str(&c->cpus, b, SETBUF));
	}
	printf("NUMA nodes: %zu%s%s\n", pms_topo_node_count(t),
	       t->numa_synthetic ? " (no NUMA in sysfs)" : "",
	       t->numa_overlap ? " (warning: nodes share CPUs; each CPU kept its lowest node)"
			       : "");
	for (size_t i = 0; i < pms_topo_node_count(t); i++) {
		const struct pms_topo_node *n = pms_topo_node_at(t, i);
		printf("  node %d: cpus %s%s%s", n->id,
		       pms_cpuset_count(&n->cpus) ? set_str(&n->cpus, b, SETBUF) : "-",
		       n->has_memory ? "" : ", no memory", n->has_cpu ? "" : ", memory only");
		if (n->mem_total) {
			char h1[32], h2[32];
			printf(", size %s, free %s", cli_human_size(n->mem_total, h1, sizeof(h1)),
			       cli_human_size(n->mem_free, h2, sizeof(h2)));
		}
		if (n->nmem_blocks) {
			char h1[32];
			printf(", %zu memory blocks", n->nmem_blocks);
			if (t->mem_block_size)
				printf(" of %s", cli_human_size(t->mem_block_size, h1, sizeof(h1)));
		}
		printf("\n");
	}
	if (pms_topo_node_count(t) > 1 && pms_topo_node_at(t, 0)->ndistances) {
		printf("Distances:\n      ");
		for (size_t i = 0; i < pms_topo_node_count(t); i++)
			printf("%4d", pms_topo_node_at(t, i)->id);
		printf("\n");
		for (size_t i = 0; i < pms_topo_node_count(t); i++) {
			const struct pms_topo_node *n = pms_topo_node_at(t, i);
			printf("  %4d", n->id);
			for (size_t k = 0; k < n->ndistances; k++)
				printf("%4d", n->distances[k]);
			printf("\n");
		}
	}
	printf("Core types: %zu\n", t->ncore_types);
	for (size_t i = 0; i < t->ncore_types; i++) {
		const struct pms_topo_core_type *ct = &t->core_types[i];
		printf("  type %d: cpus %s", ct->index, set_str(&ct->cpus, b, SETBUF));
		if (ct->name)
			printf(", %s", ct->name);
		if (ct->midr)
			printf(", MIDR 0x%llx", (unsigned long long)ct->midr);
		if (ct->capacity)
			printf(", capacity %u", ct->capacity);
		if (ct->base_khz)
			printf(", base %llu MHz", (unsigned long long)(ct->base_khz / 1000));
		printf("\n");
	}
	if (uncore_error) {
		printf("Uncore:     not mapped: %s\n", uncore_error);
		goto out;
	}
	printf("Uncore boxes: %zu\n", nboxes);
	for (size_t i = 0; i < nboxes; i++) {
		const struct pms_uncore_box *x = &boxes[i];
		printf("  %-20s package %d node ", x->pmu, x->package);
		if (x->node >= 0)
			printf("%-3d", x->node);
		else
			printf("all");
		printf(" read on cpu %-4d (kernel cpumask %d, %s)\n", x->reader_cpu, x->kernel_cpu,
		       pms_uncore_how_name(x->how));
		if (x->warning)
			printf("    warning: %s\n", x->warning);
	}
out:
	free(b);
	free(b2);
}

int cmd_topology(const struct cli_global *g, int argc, char **argv)
{
	struct pms_sys *sys = NULL;
	struct pms_topo *topo = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_uncore_box *boxes = NULL;
	size_t nboxes = 0;
	char *uncore_error = NULL;
	bool json = false;
	int rc = 1;

	struct cli_parser p;
	int c;
	cli_parser_init(&p, &cli_spec_topology, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		if (c == O_JSON)
			json = true;
		else
			return cli_usage(&cli_spec_topology, "'%s' is not an argument of topology", p.arg);
	}
	if (c != CLI_END)
		return cli_exit_code(c);
	if (p.ind < argc)
		return cli_usage(&cli_spec_topology, "'%s' is not an argument of topology", argv[p.ind]);
	sys = cli_open_sys(g);
	if (!sys)
		return 1;
	if (pms_topo_load(sys, &topo) < 0) {
		rc = cli_fail("topology");
		goto out;
	}
	/* The topology stands without the PMUs: a PMU directory that fails to
	 * load costs only the uncore section, and says why. */
	if (pms_pmus_load(sys, &pmus) < 0 || pms_uncore_map(topo, pmus, &boxes, &nboxes) < 0) {
		uncore_error = strdup(pms_error_last());
		fprintf(stderr, "pmuscope: topology: uncore mapping skipped: %s\n",
			pms_error_last());
	}
	if (json)
		print_json(g->root, topo, boxes, nboxes, uncore_error);
	else
		print_text(topo, boxes, nboxes, uncore_error);
	rc = 0;
out:
	free(uncore_error);
	pms_uncore_boxes_free(boxes, nboxes);
	pms_pmus_free(pmus);
	pms_topo_free(topo);
	pms_sys_free(sys);
	return rc;
}
