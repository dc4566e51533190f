/* Uncore box -> NUMA node under sub-NUMA clustering, on the synthetic Granite
 * Rapids fixtures (tests/fixtures/machines/gnr-*, written by gen_gnr.py after
 * seed 003's example: 2 sockets x 120 cores, every uncore_cha/uncore_imc
 * cpumask "0,120"). */
#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/pmu.h"
#include "pmu/pmu_int.h" /* a PMU list built by hand */
#include "pmuscope/topo.h"
#include "topo/topo_int.h" /* a topology built or read whole */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct machine {
	struct pms_sys *sys;
	struct pms_topo *topo;
	struct pms_pmus *pmus;
	struct pms_uncore_box *boxes;
	size_t n;
};

static bool open_machine(struct machine *m, const char *name)
{
	char root[512];
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	memset(m, 0, sizeof(*m));
	snprintf(root, sizeof(root), "%s/machines/%s", pms_t_fixtures(), name);
	o.root = root;
	CHECK_OK(pms_sys_new(&m->sys, &o));
	if (!m->sys)
		return false;
	CHECK_OK(pms_topo_load(m->sys, &m->topo));
	CHECK_OK(pms_pmus_load(m->sys, &m->pmus));
	if (!m->topo || !m->pmus)
		return false;
	CHECK_OK(pms_uncore_map(m->topo, m->pmus, &m->boxes, &m->n));
	return m->boxes != NULL;
}

static void close_machine(struct machine *m)
{
	pms_uncore_boxes_free(m->boxes, m->n);
	pms_pmus_free(m->pmus);
	pms_topo_free(m->topo);
	pms_sys_free(m->sys);
}

static const struct pms_uncore_box *box(const struct machine *m, const char *pmu, int pkg)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->boxes[i].pmu, pmu) && m->boxes[i].package == pkg)
			return &m->boxes[i];
	return NULL;
}

/* IMC index -> SNC domain as printed in seed 003 (snc2_map / snc3_map),
 * transcribed here independently of src/topo/uncore_tables.c. */
static const int seed_snc2[] = { 1, 1, 0, 0, 1, 1, 0, 0 };
static const int seed_snc3[] = { 1, 1, 0, 0, 2, 2, 1, 1, 0, 0, 2, 2 };

PMS_TEST(gnr_snc3_matches_seed_003)
{
	struct machine m;
	bool readers[240] = { false };
	int per_domain[6] = { 0 };
	if (!open_machine(&m, "gnr-snc3"))
		goto out;
	CHECK_EQ_INT(m.topo->snc, 3);
	CHECK_EQ_INT(m.topo->nnodes, 6);
	CHECK(m.topo->snc_distances_agree);
	/* 120 CHA + 12 IMC + 4 UPI PMUs, each on 2 packages */
	CHECK_EQ_INT(m.n, 2 * (120 + 12 + 4));

	/* The seed: uncore_cha_60 must move from "0,120" to "40,160". */
	CHECK_EQ_INT(box(&m, "uncore_cha_60", 0)->reader_cpu, 40);
	CHECK_EQ_INT(box(&m, "uncore_cha_60", 1)->reader_cpu, 160);
	CHECK_EQ_INT(box(&m, "uncore_cha_60", 0)->node, 1);
	CHECK_EQ_INT(box(&m, "uncore_cha_60", 1)->node, 4);
	CHECK_EQ_INT(box(&m, "uncore_cha_0", 1)->reader_cpu, 120);
	CHECK_EQ_INT(box(&m, "uncore_cha_119", 0)->reader_cpu, 80);
	CHECK_EQ_INT(box(&m, "uncore_cha_119", 1)->reader_cpu, 200);
	CHECK_EQ_INT(box(&m, "uncore_cha_119", 1)->node, 5);

	for (size_t i = 0; i < m.n; i++) {
		const struct pms_uncore_box *b = &m.boxes[i];
		CHECK_MSG(b->kernel_cpu == 120 * b->package, "%s: kernel cpu %d", b->pmu,
			  b->kernel_cpu);
		if (!strcmp(b->box, "uncore_cha")) {
			/* split evenly and in order: 40 CHAs per SNC domain */
			CHECK_MSG(b->how == PMS_UNCORE_SPLIT && b->snc_domain == b->index / 40,
				  "%s pkg %d: %s domain %d", b->pmu, b->package,
				  pms_uncore_how_name(b->how), b->snc_domain);
			CHECK_MSG(b->warning == NULL, "%s: %s", b->pmu, b->warning);
			per_domain[b->package * 3 + b->snc_domain]++;
		} else if (!strcmp(b->box, "uncore_imc")) {
			CHECK_MSG(b->how == PMS_UNCORE_TABLE &&
					  b->snc_domain == seed_snc3[b->index],
				  "%s pkg %d: domain %d, seed says %d", b->pmu, b->package,
				  b->snc_domain, seed_snc3[b->index]);
		} else {
			/* UPI links are package-wide: no node, and a warning. */
			CHECK_MSG(b->how == PMS_UNCORE_PER_SOCKET && b->node == -1 && b->warning,
				  "%s", b->pmu);
			continue;
		}
		CHECK_MSG(b->reader_cpu == b->package * 120 + b->snc_domain * 40, "%s: cpu %d",
			  b->pmu, b->reader_cpu);
		CHECK_MSG(b->node == b->package * 3 + b->snc_domain, "%s: node %d", b->pmu,
			  b->node);
		CHECK_EQ_INT(pms_topo_node_of_cpu(m.topo, b->reader_cpu), b->node);
		if (b->reader_cpu >= 0 && b->reader_cpu < 240)
			readers[b->reader_cpu] = true;
	}
	/* Reading CPUs 0/120, 40/160, 80/200: exactly six, one per node. */
	for (int c = 0; c < 240; c++)
		CHECK_MSG(readers[c] == (c % 40 == 0), "cpu %d reader=%d", c, readers[c]);
	for (int d = 0; d < 6; d++)
		CHECK_EQ_INT(per_domain[d], 40);
	/* Nothing was mutated: the PMU still has the kernel's cpumask. */
	{
		struct pms_cpuset want = { 0 };
		CHECK_OK(pms_cpuset_parse_list(&want, "0,120"));
		CHECK(pms_cpuset_equal(&pms_pmu_find(m.pmus, "uncore_cha_60")->cpus, &want));
		pms_cpuset_fini(&want);
	}
out:
	close_machine(&m);
}

PMS_TEST(gnr_snc2)
{
	struct machine m;
	if (!open_machine(&m, "gnr-snc2"))
		goto out;
	CHECK_EQ_INT(m.topo->snc, 2);
	CHECK_EQ_INT(m.topo->nnodes, 4);
	CHECK_EQ_INT(m.n, 2 * (120 + 8 + 4));
	CHECK_EQ_INT(box(&m, "uncore_cha_59", 0)->reader_cpu, 0);
	CHECK_EQ_INT(box(&m, "uncore_cha_60", 0)->reader_cpu, 60);
	CHECK_EQ_INT(box(&m, "uncore_cha_60", 1)->reader_cpu, 180);
	CHECK_EQ_INT(box(&m, "uncore_cha_60", 1)->node, 3);
	for (size_t i = 0; i < m.n; i++) {
		const struct pms_uncore_box *b = &m.boxes[i];
		if (strcmp(b->box, "uncore_imc"))
			continue;
		CHECK_MSG(b->how == PMS_UNCORE_TABLE && b->snc_domain == seed_snc2[b->index],
			  "%s pkg %d: domain %d, seed says %d", b->pmu, b->package,
			  b->snc_domain, seed_snc2[b->index]);
		CHECK_MSG(b->reader_cpu == b->package * 120 + b->snc_domain * 60, "%s: cpu %d",
			  b->pmu, b->reader_cpu);
		CHECK_MSG(b->node == b->package * 2 + b->snc_domain, "%s: node %d", b->pmu,
			  b->node);
	}
out:
	close_machine(&m);
}

PMS_TEST(gnr_without_snc_keeps_the_kernel_cpumask)
{
	struct machine m;
	if (!open_machine(&m, "gnr-nosnc"))
		goto out;
	CHECK_EQ_INT(m.topo->snc, 1);
	CHECK_EQ_INT(m.topo->nnodes, 2);
	for (size_t i = 0; i < m.n; i++) {
		const struct pms_uncore_box *b = &m.boxes[i];
		CHECK_MSG(b->how == PMS_UNCORE_CPUMASK && b->reader_cpu == b->kernel_cpu &&
				  b->node == b->package && b->warning == NULL,
			  "%s pkg %d: %s cpu %d node %d", b->pmu, b->package,
			  pms_uncore_how_name(b->how), b->reader_cpu, b->node);
	}
out:
	close_machine(&m);
}

/* A CPU model without a table row: per-socket with a warning, never a node
 * guessed from the cpumask. */
PMS_TEST(unknown_platform_falls_back_per_socket)
{
	struct machine m;
	struct pms_uncore_box *b2 = NULL;
	size_t n2 = 0;
	if (!open_machine(&m, "gnr-snc3"))
		goto out;
	m.topo->model = 0x8f; /* Sapphire Rapids: no row in the table */
	CHECK_OK(pms_uncore_map(m.topo, m.pmus, &b2, &n2));
	CHECK_EQ_INT(n2, m.n);
	for (size_t i = 0; i < n2; i++) {
		CHECK_MSG(b2[i].how == PMS_UNCORE_PER_SOCKET && b2[i].node == -1 &&
				  b2[i].reader_cpu == b2[i].kernel_cpu && b2[i].warning &&
				  strstr(b2[i].warning, "no uncore table"),
			  "%s: %s node %d warning %s", b2[i].pmu, pms_uncore_how_name(b2[i].how),
			  b2[i].node, b2[i].warning ? b2[i].warning : "(none)");
	}
	pms_uncore_boxes_free(b2, n2);
out:
	close_machine(&m);
}

/* Hand-built PMU lists: a box beyond the IMC table, a box without a number,
 * and a non-uncore PMU (ignored). */
PMS_TEST(table_edges_warn)
{
	struct machine m;
	struct pms_pmu p[3];
	struct pms_pmus list = { p, 3 };
	struct pms_uncore_box *b = NULL;
	size_t n = 0;
	if (!open_machine(&m, "gnr-snc3"))
		goto out;
	memset(p, 0, sizeof(p));
	p[0].name = (char *)"uncore_imc_12";
	p[0].box = (char *)"uncore_imc";
	p[0].box_index = 12;
	p[1].name = (char *)"uncore_cha";
	p[1].box = (char *)"uncore_cha";
	p[1].box_index = -1;
	for (int i = 0; i < 2; i++) {
		p[i].kind = PMS_PMU_UNCORE;
		p[i].has_cpumask = true;
		CHECK_OK(pms_cpuset_parse_list(&p[i].cpus, "0,120"));
	}
	p[2].name = (char *)"cpu";
	p[2].kind = PMS_PMU_CORE;
	CHECK_OK(pms_uncore_map(m.topo, &list, &b, &n));
	CHECK_EQ_INT(n, 4);
	for (size_t i = 0; i < n; i++)
		CHECK_MSG(b[i].how == PMS_UNCORE_PER_SOCKET && b[i].node == -1 && b[i].warning,
			  "%s", b[i].pmu);
	if (n == 4) {
		CHECK(strstr(b[0].warning, "12-entry SNC3 table") != NULL ||
		      strstr(b[0].warning, "beyond") != NULL);
		CHECK(strstr(b[2].warning, "no box number") != NULL);
	}
	pms_uncore_boxes_free(b, n);
	pms_cpuset_fini(&p[0].cpus);
	pms_cpuset_fini(&p[1].cpus);
	CHECK_EQ_INT(pms_uncore_map(m.topo, NULL, &b, &n), PMS_EINVAL);
out:
	close_machine(&m);
}

PMS_TEST(physical_address_to_node_by_memory_block)
{
	struct machine m;
	const uint64_t blk = 0x80000000ull;
	if (!open_machine(&m, "gnr-snc3"))
		goto out;
	CHECK_EQ_U64(m.topo->mem_block_size, blk);
	/* gen_gnr.py: node K owns blocks 2K and 2K+1 */
	CHECK_EQ_INT(pms_topo_node_of_phys(m.topo, 0), 0);
	CHECK_EQ_INT(pms_topo_node_of_phys(m.topo, 5 * blk + 0x1234), 2);
	CHECK_EQ_INT(pms_topo_node_of_phys(m.topo, 11 * blk + blk - 1), 5);
	CHECK_EQ_INT(pms_topo_node_of_phys(m.topo, 12 * blk), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "block 12") != NULL);
out:
	close_machine(&m);
}

PMS_TEST_MAIN()
