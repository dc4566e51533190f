/* Topology on real machine snapshots (hwloc and util-linux tarballs in
 * ../shared/data), checked against the expected output shipped with them,
 * and on the live machine. */
#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/topo.h"
#include "snapshot.h"
#include "topo/topo_int.h" /* a topology built or read whole */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HWLOC "hwloc/tests/hwloc/linux/"
#define ULDUMP "util-linux/tests/ts/lscpu/dumps/"
#define ULEXP "util-linux/tests/expected/lscpu/lscpu-"

static struct pms_topo *load(struct snap *s, const char *rel, const char *name)
{
	struct pms_topo *t = NULL;
	if (snap_open(s, rel, name) < 0)
		return NULL;
	CHECK_OK(pms_topo_load(s->sys, &t));
	return t;
}

static bool set_is(const struct pms_cpuset *s, const char *list)
{
	struct pms_cpuset want = { 0 };
	bool eq;
	if (pms_cpuset_parse_list(&want, list) < 0)
		return false;
	eq = pms_cpuset_equal(s, &want);
	if (!eq) {
		char buf[512];
		pms_cpuset_format(s, buf, sizeof(buf));
		fprintf(stderr, "  set is '%s', expected '%s'\n", buf, list);
	}
	pms_cpuset_fini(&want);
	return eq;
}

#define SKIP_NO_DATA(rel)                                                                 \
	PMS_SKIP("../shared/data/%s not available (tests on real snapshots need the "      \
		 "shared data set)",                                                        \
		 rel)

/* hwloc memorysidecaches.console: Package P#0 holds one L3 with NUMANode P#0
 * and P#2, Package P#1 holds P#1 and P#3 (dual Xeon Gold 6230, SNC2);
 * nodeN/distance 10/11 within a socket, 21 across. */
PMS_TEST(memorysidecaches_is_snc2)
{
	struct snap s;
	struct pms_topo *t = load(&s, HWLOC "memorysidecaches.tar.bz2", "memorysidecaches");
	if (!s.sys)
		SKIP_NO_DATA(HWLOC "memorysidecaches.tar.bz2");
	if (t) {
		CHECK_EQ_INT(t->ncpus, 80);
		CHECK_EQ_INT(t->npackages, 2);
		CHECK_EQ_INT(t->nnodes, 4);
		CHECK_EQ_INT(t->nl3, 2);
		CHECK_EQ_INT(t->snc, 2);
		CHECK(t->snc_distances_agree);
		CHECK_EQ_STR(t->vendor, "GenuineIntel");
		CHECK_EQ_INT(t->family, 6);
		CHECK_EQ_INT(t->model, 85);
		for (size_t i = 0; i < t->npackages; i++)
			CHECK_EQ_INT(t->packages[i].snc, 2);
		CHECK(set_is(&pms_topo_package(t, 0)->nodes, "0,2"));
		CHECK(set_is(&pms_topo_package(t, 1)->nodes, "1,3"));
		CHECK(set_is(&pms_topo_node(t, 0)->cpus,
			     "0,4,8,12,16,20,24,28,32,36,40,44,48,52,56,60,64,68,72,76"));
		CHECK_EQ_INT(pms_topo_distance(t, 0, 2), 11);
		CHECK_EQ_INT(pms_topo_distance(t, 0, 1), 21);
		CHECK_EQ_INT(pms_topo_distance(t, 3, 3), 10);
		CHECK_EQ_INT(pms_topo_node_of_cpu(t, 2), 2);
		CHECK_EQ_INT(pms_topo_cpu(t, 0)->l3, pms_topo_cpu(t, 2)->l3);
		CHECK(pms_topo_cpu(t, 0)->l3 != pms_topo_cpu(t, 1)->l3);
		/* console: Core P#0 has PU P#0 and P#40 */
		CHECK(set_is(&pms_topo_cpu(t, 0)->smt_siblings, "0,40"));
		CHECK_EQ_INT(pms_topo_package_node(t, 0, 0), 0);
		CHECK_EQ_INT(pms_topo_package_node(t, 0, 1), 2);
		CHECK_EQ_INT(pms_topo_package_node(t, 1, 1), 3);
		CHECK_EQ_INT(pms_topo_package_node(t, 1, 2), -1);
	}
	pms_topo_free(t);
	snap_close(&s);
}

/* hwloc 128arm-2pa2n8cluster4co.console: Package P#36 and P#8442, each with
 * two L3s each holding one NUMANode (0-31, 32-63, 64-95, 96-127); node
 * distances 10/16/32/33, 16/10/25/32 ... (nodeN/distance). */
/* The node accessors over a fixture machine (gnr-snc2: 4 nodes): the same
 * nodes as the array, in id order; NULL past the end and for no topology. */
PMS_TEST(node_accessors)
{
	char root[1024];
	struct pms_sys *sys = NULL;
	struct pms_topo *t = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	snprintf(root, sizeof(root), "%s/machines/gnr-snc2", pms_t_fixtures());
	o.root = root;
	CHECK_OK(pms_sys_new(&sys, &o));
	if (sys)
		CHECK_OK(pms_topo_load(sys, &t));
	if (t) {
		CHECK_EQ_INT(pms_topo_node_count(t), t->nnodes);
		CHECK(pms_topo_node_count(t) >= 2);
		for (size_t i = 0; i < pms_topo_node_count(t); i++) {
			CHECK(pms_topo_node_at(t, i) == &t->nodes[i]);
			CHECK(pms_topo_node(t, pms_topo_node_at(t, i)->id) == pms_topo_node_at(t, i));
			if (i)
				CHECK(pms_topo_node_at(t, i)->id > pms_topo_node_at(t, i - 1)->id);
		}
		CHECK(pms_topo_node_at(t, pms_topo_node_count(t)) == NULL);
	}
	CHECK_EQ_INT(pms_topo_node_count(NULL), 0);
	CHECK(pms_topo_node_at(NULL, 0) == NULL);
	pms_topo_free(t);
	pms_sys_free(sys);
}

/* Every row accessor gives the body's array in order, NULL past its end
 * (the functions named whole, so a search for a name finds its test). */
#define CHECK_ROWS(t, count, at, arr, n)                                          \
	do {                                                                      \
		CHECK_EQ_INT(count(t), (t)->n);                                   \
		for (size_t i_ = 0; i_ < (t)->n; i_++)                            \
			CHECK(at(t, i_) == &(t)->arr[i_]);                        \
		CHECK(at(t, (t)->n) == NULL);                                     \
		CHECK_EQ_INT(count(NULL), 0);                                     \
		CHECK(at(NULL, 0) == NULL);                                       \
	} while (0)

/* The opaque topology's accessors over a fixture machine (gnr-snc2, an
 * Intel SNC2 machine): each gives what the body holds; a NULL topology
 * gives the documented empty values. */
PMS_TEST(topo_accessors)
{
	char root[1024];
	struct pms_sys *sys = NULL;
	struct pms_topo *t = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	snprintf(root, sizeof(root), "%s/machines/gnr-snc2", pms_t_fixtures());
	o.root = root;
	CHECK_OK(pms_sys_new(&sys, &o));
	if (sys)
		CHECK_OK(pms_topo_load(sys, &t));
	if (t) {
		CHECK(t->ncpus > 0 && t->ncaches > 0 && t->npackages > 0);
		CHECK_ROWS(t, pms_topo_cpu_count, pms_topo_cpu_at, cpus, ncpus);
		CHECK_ROWS(t, pms_topo_cache_count, pms_topo_cache_at, caches, ncaches);
		CHECK_ROWS(t, pms_topo_package_count, pms_topo_package_at, packages, npackages);
		CHECK_ROWS(t, pms_topo_core_type_count, pms_topo_core_type_at, core_types,
			   ncore_types);
		CHECK(pms_topo_online(t) == &t->online);
		CHECK_EQ_STR(pms_topo_vendor(t), "GenuineIntel");
		CHECK(pms_topo_vendor(t) == t->vendor);
		CHECK_EQ_INT(pms_topo_family(t), t->family);
		CHECK_EQ_INT(pms_topo_model(t), t->model);
		CHECK_EQ_INT(pms_topo_stepping(t), t->stepping);
		CHECK(pms_topo_model_name(t) == t->model_name);
		CHECK(pms_topo_hypervisor(t) == t->hypervisor);
		CHECK_EQ_INT(pms_topo_l3_count(t), t->nl3);
		CHECK_EQ_INT(pms_topo_snc(t), 2);
		CHECK_EQ_INT(pms_topo_snc_distances_agree(t), t->snc_distances_agree);
		CHECK_EQ_INT(pms_topo_numa_synthetic(t), t->numa_synthetic);
		CHECK_EQ_INT(pms_topo_numa_overlap(t), t->numa_overlap);
		CHECK_EQ_U64(pms_topo_mem_block_size(t), t->mem_block_size);
	}
	CHECK_EQ_INT(pms_cpuset_count(pms_topo_online(NULL)), 0);
	CHECK_EQ_STR(pms_topo_vendor(NULL), "");
	CHECK_EQ_INT(pms_topo_family(NULL), -1);
	CHECK_EQ_INT(pms_topo_model(NULL), -1);
	CHECK_EQ_INT(pms_topo_stepping(NULL), -1);
	CHECK(pms_topo_model_name(NULL) == NULL);
	CHECK_EQ_STR(pms_topo_hypervisor(NULL), "");
	CHECK_EQ_INT(pms_topo_l3_count(NULL), 0);
	CHECK_EQ_INT(pms_topo_snc(NULL), 0);
	CHECK(!pms_topo_snc_distances_agree(NULL) && !pms_topo_numa_synthetic(NULL) &&
	      !pms_topo_numa_overlap(NULL));
	CHECK_EQ_U64(pms_topo_mem_block_size(NULL), 0);
	pms_topo_free(t);
	pms_sys_free(sys);
}

PMS_TEST(kunpeng920_four_nodes_no_snc)
{
	struct snap s;
	struct pms_topo *t = load(&s, HWLOC "128arm-2pa2n8cluster4co.tar.bz2",
				  "128arm-2pa2n8cluster4co");
	static const int dist[4][4] = {
		{ 10, 16, 32, 33 }, { 16, 10, 25, 32 }, { 32, 25, 10, 16 }, { 33, 32, 16, 10 }
	};
	if (!s.sys)
		SKIP_NO_DATA(HWLOC "128arm-2pa2n8cluster4co.tar.bz2");
	if (t) {
		CHECK_EQ_INT(t->ncpus, 128);
		CHECK_EQ_INT(t->npackages, 2);
		CHECK_EQ_INT(t->packages[0].id, 36);
		CHECK_EQ_INT(t->packages[1].id, 8442);
		CHECK_EQ_INT(t->nnodes, 4);
		CHECK_EQ_INT(t->nl3, 4);
		CHECK_EQ_INT(t->snc, 1);
		CHECK(!t->snc_distances_agree);
		CHECK(set_is(&t->nodes[1].cpus, "32-63"));
		CHECK(set_is(&t->nodes[3].cpus, "96-127"));
		for (int a = 0; a < 4; a++)
			for (int b = 0; b < 4; b++)
				CHECK_MSG(pms_topo_distance(t, a, b) == dist[a][b], "distance %d->%d",
					  a, b);
		/* cluster_cpus_list of cpu0 is 0-3: same cluster id for 0 and 3 */
		CHECK_EQ_INT(pms_topo_cpu(t, 0)->cluster, pms_topo_cpu(t, 3)->cluster);
		CHECK(pms_topo_cpu(t, 0)->cluster != pms_topo_cpu(t, 4)->cluster);
		CHECK_EQ_STR(t->vendor, "HiSilicon");
		CHECK_EQ_INT(t->ncore_types, 1);
	}
	pms_topo_free(t);
	snap_close(&s);
}

/* hwloc nvidia-dgx-gb10.xml: cpukind cpuset 0x00007c1f (0-4,10-14) CPUPart
 * 0xd87 LinuxCapacity 718, and 0x000f83e0 (5-9,15-19) CPUPart 0xd85
 * LinuxCapacity 997; two L3s 0-9 and 10-19. */
PMS_TEST(gb10_core_types_by_midr)
{
	struct snap s;
	struct pms_topo *t = load(&s, HWLOC "nvidia-dgx-gb10.tar.bz2", "nvidia-dgx-gb10");
	if (!s.sys)
		SKIP_NO_DATA(HWLOC "nvidia-dgx-gb10.tar.bz2");
	if (t) {
		CHECK_EQ_INT(t->ncpus, 20);
		CHECK_EQ_INT(t->ncore_types, 2);
		if (t->ncore_types == 2) {
			CHECK(set_is(&t->core_types[0].cpus, "0-4,10-14"));
			CHECK_EQ_INT(t->core_types[0].capacity, 718);
			CHECK_EQ_STR(t->core_types[0].name, "Cortex-A725");
			CHECK(set_is(&t->core_types[1].cpus, "5-9,15-19"));
			CHECK_EQ_INT(t->core_types[1].capacity, 997);
			CHECK_EQ_STR(t->core_types[1].name, "Cortex-X925");
		}
		CHECK_EQ_U64(pms_topo_cpu(t, 0)->midr, 0x410fd871);
		CHECK_EQ_U64(pms_topo_cpu(t, 5)->midr, 0x410fd851);
		CHECK_EQ_INT(pms_topo_cpu(t, 15)->capacity, 1017);
		CHECK_EQ_INT(pms_topo_cpu(t, 15)->core_type, 1);
		CHECK_EQ_INT(t->nl3, 2);
		CHECK_EQ_INT(pms_topo_cpu(t, 9)->l3, 0);
		CHECK_EQ_INT(pms_topo_cpu(t, 10)->l3, 1);
		CHECK_EQ_INT(t->snc, 1);
	}
	pms_topo_free(t);
	snap_close(&s);
}

/* hwloc 20em64t-hybrid-1p6c2t+2ca4co1t.console: "CPU kind #0 ... cpuset
 * 0x000ff000 FrequencyBaseMHz = 1400", "CPU kind #1 ... cpuset 0x00000fff
 * FrequencyBaseMHz = 1900". */
PMS_TEST(raptorlake_core_types_by_base_frequency)
{
	struct snap s;
	struct pms_topo *t = load(&s, HWLOC "20em64t-hybrid-1p6c2t+2ca4co1t.tar.bz2",
				  "20em64t-hybrid-1p6c2t+2ca4co1t");
	if (!s.sys)
		SKIP_NO_DATA(HWLOC "20em64t-hybrid-1p6c2t+2ca4co1t.tar.bz2");
	if (t) {
		CHECK_EQ_INT(t->ncore_types, 2);
		if (t->ncore_types == 2) {
			CHECK(set_is(&t->core_types[0].cpus, "12-19"));
			CHECK_EQ_U64(t->core_types[0].base_khz, 1400000);
			CHECK(set_is(&t->core_types[1].cpus, "0-11"));
		}
		CHECK_EQ_INT(t->model, 0xba);
	}
	pms_topo_free(t);
	snap_close(&s);
}

/* hwloc fakeheteromemtiers.console: NUMANode P#0,1,2 with CPUs and CPU-less
 * HBM/NVM nodes P#4,6,8,9; one package whose single L3 spans the three CPU
 * nodes at distance 20 (fake NUMA in QEMU): the L3 rule says 3 nodes per L3,
 * the distances must not confirm it. */
PMS_TEST(heteromemtiers_memory_only_nodes)
{
	struct snap s;
	struct pms_topo *t = load(&s, HWLOC "fakeheteromemtiers.tar.bz2", "fakeheteromemtiers");
	static const struct {
		int id;
		bool has_cpu;
	} want[] = { { 0, true },  { 1, true },  { 2, true }, { 4, false },
		     { 6, false }, { 8, false }, { 9, false } };
	if (!s.sys)
		SKIP_NO_DATA(HWLOC "fakeheteromemtiers.tar.bz2");
	if (t) {
		CHECK_EQ_INT(t->nnodes, 7);
		for (size_t i = 0; i < 7 && i < t->nnodes; i++) {
			CHECK_MSG(t->nodes[i].id == want[i].id, "row %zu: node %d", i,
				  t->nodes[i].id);
			CHECK_MSG(t->nodes[i].has_cpu == want[i].has_cpu, "row %zu", i);
			CHECK_MSG(t->nodes[i].has_memory, "row %zu", i);
			CHECK_EQ_INT(t->nodes[i].ndistances, 7);
		}
		CHECK(set_is(&pms_topo_node(t, 4)->cpus, ""));
		CHECK_EQ_INT(pms_topo_distance(t, 0, 9), 20);
		CHECK_EQ_INT(pms_topo_distance(t, 8, 8), 10);
		CHECK_EQ_INT(t->snc, 3);
		CHECK(!t->snc_distances_agree);
		/* no memory/block_size_bytes in the snapshot */
		CHECK_EQ_INT(pms_topo_node_of_phys(t, 0x1000), PMS_ENOTSUP);
	}
	pms_topo_free(t);
	snap_close(&s);
}

/* hwloc offline-cpu0-node0.test/.console: CPUs 0-3,21-23 and node 0 offline;
 * 17 PUs (4-20) in 2 packages; NUMANode P#1 only; "7 processors not
 * represented". */
PMS_TEST(offline_cpu0_node0)
{
	struct snap s;
	struct pms_topo *t = load(&s, HWLOC "offline-cpu0-node0.tar.bz2", "offline-cpu0-node0");
	if (!s.sys)
		SKIP_NO_DATA(HWLOC "offline-cpu0-node0.tar.bz2");
	if (t) {
		CHECK_EQ_INT(t->ncpus, 24);
		CHECK(set_is(&t->online, "4-20"));
		CHECK(!pms_topo_cpu(t, 0)->online);
		CHECK_EQ_INT(pms_topo_cpu(t, 0)->package, -1);
		CHECK_EQ_INT(pms_topo_cpu(t, 0)->core_type, -1);
		CHECK_EQ_INT(t->npackages, 2);
		CHECK_EQ_INT(t->nnodes, 1);
		CHECK_EQ_INT(t->nodes[0].id, 1);
		CHECK(t->nodes[0].has_cpu);
		CHECK_EQ_INT(pms_topo_node_of_cpu(t, 5), 1);
		CHECK_EQ_INT(pms_topo_node_of_cpu(t, 4), -1); /* its node 0 is offline */
		CHECK(set_is(&pms_topo_package(t, 0)->cpus, "4,6,8,10,12,14,16,18,20"));
		CHECK(set_is(&pms_topo_package(t, 1)->cpus, "5,7,9,11,13,15,17,19"));
		CHECK_EQ_INT(t->nl3, 2);
		CHECK_EQ_INT(t->snc, 1);
	}
	pms_topo_free(t);
	snap_close(&s);
}

/* Compare against the parsable sections of an lscpu expected file:
 * "# CPU,Core,Socket,Node,,L1d,L1i,L2,L3" then one row per CPU.  The first
 * section numbers items logically (per core type on ARM), the second gives
 * physical ids (core_id, physical_package_id, cache id): we check the second.
 * Node (empty = no NUMA) and L3 are compared too; in these dumps the L3 ids
 * run in CPU order, so the physical id equals our logical L3 number. */
static void check_lscpu_rows(const struct pms_topo *t, const char *expected)
{
	FILE *f = fopen(expected, "r");
	char line[512];
	int section = 0;
	int rows = 0;

	CHECK_MSG(f != NULL, "cannot open %s", expected);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *fld[16];
		int n = 0;
		char *p = line;
		if (!strncmp(line, "# CPU,Core,Socket,Node", 22)) {
			section++;
			continue;
		}
		if (section != 2 || line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = '\0';
		for (;;) {
			char *c = strchr(p, ',');
			if (n < 16)
				fld[n++] = p;
			if (!c)
				break;
			*c = '\0';
			p = c + 1;
		}
		if (n < 9)
			continue;
		{
			int cpu = atoi(fld[0]);
			const struct pms_topo_cpu *c = pms_topo_cpu(t, cpu);
			CHECK_MSG(c != NULL, "%s: cpu %d missing", expected, cpu);
			if (!c)
				continue;
			CHECK_MSG(c->package == atoi(fld[2]), "%s: cpu %d package %d, lscpu %s",
				  expected, cpu, c->package, fld[2]);
			CHECK_MSG(c->core == atoi(fld[1]), "%s: cpu %d core %d, lscpu %s",
				  expected, cpu, c->core, fld[1]);
			if (fld[3][0])
				CHECK_MSG(c->node == atoi(fld[3]), "%s: cpu %d node %d, lscpu %s",
					  expected, cpu, c->node, fld[3]);
			CHECK_MSG(c->l3 == atoi(fld[8]), "%s: cpu %d L3 %d, lscpu %s", expected,
				  cpu, c->l3, fld[8]);
			rows++;
		}
	}
	fclose(f);
	CHECK_MSG(rows == (int)t->ncpus, "%s: %d rows for %zu CPUs", expected, rows, t->ncpus);
}

/* lscpu-x86_64-epyc_7451: 8 NUMA nodes given only as nodeN/cpumap (node0
 * 0-5,48-53 ... node7 42-47,90-95), 16 L3 instances, 2 sockets. */
PMS_TEST(epyc7451_nodes_from_cpumap)
{
	struct snap s;
	char exp[512];
	struct pms_topo *t = load(&s, ULDUMP "x86_64-epyc_7451.tar.gz", "x86_64-epyc_7451");
	if (!s.sys)
		SKIP_NO_DATA(ULDUMP "x86_64-epyc_7451.tar.gz");
	if (t) {
		CHECK_EQ_INT(t->ncpus, 96);
		CHECK_EQ_INT(t->nnodes, 8);
		CHECK(set_is(&pms_topo_node(t, 0)->cpus, "0-5,48-53"));
		CHECK(set_is(&pms_topo_node(t, 7)->cpus, "42-47,90-95"));
		CHECK_EQ_INT(t->nl3, 16);
		CHECK_EQ_INT(t->npackages, 2);
		CHECK_EQ_INT(t->snc, 1);
		CHECK_EQ_STR(t->vendor, "AuthenticAMD");
		CHECK_EQ_INT(t->family, 23);
		snprintf(exp, sizeof(exp), "%s/" ULEXP "x86_64-epyc_7451", pms_t_shared_data());
		check_lscpu_rows(t, exp);
	}
	pms_topo_free(t);
	snap_close(&s);
}

/* lscpu-arm-A510-A710-A715-X3: four "Model name" blocks (Cortex-A510 x3,
 * A710 x2, A715 x2, X3 x1); cpu_capacity 280/855/1024; no NUMA. */
PMS_TEST(phone_four_core_types)
{
	struct snap s;
	char exp[512];
	struct pms_topo *t =
		load(&s, ULDUMP "arm-A510-A710-A715-X3.tar.gz", "arm-A510-A710-A715-X3");
	static const struct {
		const char *name, *cpus;
		unsigned capacity;
	} want[] = {
		{ "Cortex-A510", "0-2", 280 },
		{ "Cortex-A710", "5-6", 855 },
		{ "Cortex-A715", "3-4", 855 },
		{ "Cortex-X3", "7", 1024 },
	};
	if (!s.sys)
		SKIP_NO_DATA(ULDUMP "arm-A510-A710-A715-X3.tar.gz");
	if (t) {
		CHECK_EQ_INT(t->ncore_types, 4);
		for (size_t i = 0; i < 4 && i < t->ncore_types; i++) {
			CHECK_MSG(t->core_types[i].name &&
					  !strcmp(t->core_types[i].name, want[i].name),
				  "row %zu: %s", i, t->core_types[i].name);
			CHECK_MSG(set_is(&t->core_types[i].cpus, want[i].cpus), "row %zu", i);
			CHECK_MSG(t->core_types[i].capacity == want[i].capacity, "row %zu", i);
		}
		CHECK(t->numa_synthetic);
		CHECK_EQ_INT(t->nnodes, 1);
		CHECK_EQ_INT(pms_topo_node_of_cpu(t, 7), 0);
		snprintf(exp, sizeof(exp), "%s/" ULEXP "arm-A510-A710-A715-X3",
			 pms_t_shared_data());
		check_lscpu_rows(t, exp);
	}
	pms_topo_free(t);
	snap_close(&s);
}

PMS_TEST(live_machine_loads)
{
	struct pms_sys *sys = NULL;
	struct pms_topo *t = NULL;
	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK_OK(pms_topo_load(sys, &t));
	if (t) {
		CHECK(t->ncpus > 0);
		CHECK(pms_cpuset_count(&t->online) > 0);
		CHECK(t->nnodes > 0);
		CHECK(t->ncore_types > 0);
		CHECK(t->snc >= 1);
		for (size_t i = 0; i < t->ncpus; i++)
			if (t->cpus[i].online)
				CHECK_MSG(t->cpus[i].core_type >= 0, "cpu %d", t->cpus[i].cpu);
	}
	pms_topo_free(t);
	pms_sys_free(sys);
}

PMS_TEST(missing_root_is_an_error_naming_the_path)
{
	struct pms_sys *sys = NULL;
	struct pms_topo *t = (struct pms_topo *)1;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	o.root = "/tmp";
	CHECK_OK(pms_sys_new(&sys, &o));
	CHECK(pms_topo_load(sys, &t) < 0);
	CHECK(t == NULL);
	CHECK(strstr(pms_error_last(), "sys/devices/system/cpu") != NULL);
	pms_sys_free(sys);
	pms_topo_free(NULL);
}

PMS_TEST(cache_type_names)
{
	/* the words of sysfs cache/indexN/type, lower case */
	CHECK_EQ_STR(pms_cache_type_name(PMS_CACHE_DATA), "data");
	CHECK_EQ_STR(pms_cache_type_name(PMS_CACHE_INSTRUCTION), "instruction");
	CHECK_EQ_STR(pms_cache_type_name(PMS_CACHE_UNIFIED), "unified");
}

PMS_TEST_MAIN()
