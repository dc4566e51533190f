/* The decoration stage (include/pmuscope/memdeco.h): each node source (the
 * live topology's CPUs and memory blocks, a file's NUMA_TOPOLOGY and
 * MEM_TOPOLOGY), each node status, and the SPE time conversion through a
 * file's TIME_CONV. */
#include "check.h"

#include "pmuscope/error.h"
#include "pmuscope/memdeco.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/spe.h"
#include "pmuscope/topo.h"
#include "topo/topo_int.h" /* a topology built or read whole */

#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (UINT64_C(128) << 20)

static struct pms_memdeco_out deco(const struct pms_memdeco *d, int cpu, const uint64_t *phys)
{
	struct pms_memsample ms = { .valid = cpu >= 0 ? PMS_MS_CPU : 0,
				    .cpu = cpu >= 0 ? (uint32_t)cpu : 0 };
	struct pms_memdeco_out o = { .mem_node = 12345, .cpu_node = 12345 };
	pms_memdeco_apply(d, &ms, phys, &o);
	return o;
}

/* A file with one PHYS_ADDR event and, as asked, NUMA_TOPOLOGY,
 * MEM_TOPOLOGY (blocks 0-1 on node 0, block 2 on node 1) and TIME_CONV;
 * returns its reader (and leaves *fp open under it). */
static struct pms_perfdata_reader *mk_file(FILE **fp, bool phys, bool mem, bool tc)
{
	struct pms_perfdata_writer *w = NULL;
	struct pms_perfdata_reader *r = NULL;
	struct perf_event_attr a;
	const uint64_t ids[1] = { 7 };
	uint64_t bm0 = 0x3, bm1 = 0x4;
	const struct pms_perfdata_numa_node numa[2] = { { 0, 1000, 500, "0-1" },
							 { 1, 2000, 700, "2-3" } };
	const struct pms_perfdata_mem_node mn[2] = { { 0, 3, 3, &bm0 }, { 1, 3, 3, &bm1 } };
	const struct pms_spe_time_conv conv = { .time_shift = 1, .time_mult = 3,
						.time_zero = 1000, .cap_user_time_zero = true };

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_RAW;
	a.size = sizeof(a);
	a.sample_period = 1000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
			(phys ? PERF_SAMPLE_PHYS_ADDR : 0);
	a.sample_id_all = 1;
	*fp = tmpfile();
	CHECK(*fp != NULL);
	if (!*fp)
		return NULL;
	CHECK_OK(pms_perfdata_writer_open(fileno(*fp), &w));
	if (!w)
		return NULL;
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, ids, 1));
	CHECK_OK(pms_perfdata_writer_set_numa_topology(w, numa, 2));
	if (mem)
		CHECK_OK(pms_perfdata_writer_set_mem_topology(w, BLOCK, mn, 2));
	if (tc)
		CHECK_OK(pms_perfdata_writer_write_time_conv(w, &conv));
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);
	CHECK_OK(pms_perfdata_reader_open_fd(fileno(*fp), &r));
	if (r) { /* TIME_CONV is a record: read it in */
		struct pms_perfdata_event ev;
		int rc;
		while ((rc = pms_perfdata_next(r, &ev)) > 0)
			;
		CHECK_EQ_INT(rc, 0);
		CHECK_EQ_INT(pms_perfdata_reader_info(r)->has_time_conv, tc);
	}
	return r;
}

PMS_TEST(file_nodes_and_statuses)
{
	FILE *fp = NULL;
	struct pms_perfdata_reader *r = mk_file(&fp, true, true, true);
	struct pms_memdeco *d = NULL;
	struct pms_memdeco_out o;
	uint64_t p;

	CHECK(r != NULL);
	if (!r)
		goto out;
	CHECK(pms_perfdata_reader_nodes_why(r) == NULL);
	CHECK_OK(pms_memdeco_new_file(r, &d));
	if (!d)
		goto out;
	/* CPU -> node from NUMA_TOPOLOGY's cpu lists */
	CHECK_EQ_INT(pms_memdeco_cpu_node(d, 0), 0);
	CHECK_EQ_INT(pms_memdeco_cpu_node(d, 1), 0);
	CHECK_EQ_INT(pms_memdeco_cpu_node(d, 3), 1);
	CHECK_EQ_INT(pms_memdeco_cpu_node(d, 4), -1);
	CHECK_EQ_INT(pms_memdeco_cpu_node(d, -1), -1);
	/* physical address -> node from MEM_TOPOLOGY */
	p = BLOCK + 0x40;
	o = deco(d, 2, &p);
	CHECK_EQ_INT(o.cpu_node, 1);
	CHECK_EQ_INT(o.mem_node, 0);
	CHECK(o.node_from_phys);
	p = 2 * BLOCK + 8;
	o = deco(d, 0, &p);
	CHECK_EQ_INT(o.cpu_node, 0);
	CHECK_EQ_INT(o.mem_node, 1);
	CHECK(o.node_from_phys);
	/* each status */
	p = 5 * BLOCK;
	o = deco(d, -1, &p);
	CHECK_EQ_INT(o.cpu_node, -1); /* no PMS_MS_CPU */
	CHECK_EQ_INT(o.mem_node, PMS_NODE_NO_BLOCK);
	CHECK(!o.node_from_phys);
	p = 0;
	o = deco(d, 9, &p);
	CHECK_EQ_INT(o.cpu_node, -1); /* in no node's list */
	CHECK_EQ_INT(o.mem_node, PMS_NODE_NO_PHYS);
	CHECK(!o.node_from_phys);
	o = deco(d, 0, NULL);
	CHECK_EQ_INT(o.mem_node, PMS_NODE_NOT_ASKED);
	CHECK(!o.node_from_phys);
out:
	pms_memdeco_free(d);
	pms_perfdata_reader_free(r);
	if (fp)
		fclose(fp);
}

PMS_TEST(file_without_mem_topology_or_phys_gives_no_node)
{
	for (int k = 0; k < 2; k++) {
		FILE *fp = NULL;
		/* k 0: no MEM_TOPOLOGY; k 1: no event samples PHYS_ADDR */
		struct pms_perfdata_reader *r = mk_file(&fp, k == 0, k == 1, false);
		struct pms_memdeco *d = NULL;
		uint64_t p = BLOCK;
		CHECK(r != NULL);
		if (r) {
			CHECK(pms_perfdata_reader_nodes_why(r) != NULL);
			CHECK_OK(pms_memdeco_new_file(r, &d));
		}
		if (d) {
			struct pms_memdeco_out o = deco(d, 3, &p);
			CHECK_EQ_INT(o.mem_node, PMS_NODE_UNKNOWN);
			CHECK(!o.node_from_phys);
			CHECK_EQ_INT(o.cpu_node, 1); /* NUMA_TOPOLOGY is still there */
			p = 0;
			CHECK_EQ_INT(deco(d, 3, &p).mem_node, PMS_NODE_UNKNOWN);
		}
		pms_memdeco_free(d);
		pms_perfdata_reader_free(r);
		if (fp)
			fclose(fp);
	}
}

PMS_TEST(file_spe_time)
{
	for (int k = 0; k < 2; k++) {
		FILE *fp = NULL;
		struct pms_perfdata_reader *r = mk_file(&fp, true, true, k == 0);
		struct pms_memdeco *d = NULL;
		CHECK(r != NULL);
		if (r)
			CHECK_OK(pms_memdeco_new_file(r, &d));
		if (d) {
			struct pms_memsample ms = { .valid = PMS_MS_TIME | PMS_MS_IP, .time = 400 };
			pms_memdeco_spe_time(d, &ms);
			if (k == 0) { /* 1000 + 400 * 3 / 2 (perf's tsc_to_perf_time) */
				CHECK(ms.valid & PMS_MS_TIME);
				CHECK_EQ_U64(ms.time, 1600);
			} else { /* no TIME_CONV: no time */
				CHECK(!(ms.valid & PMS_MS_TIME));
				CHECK_EQ_U64(ms.time, 0);
			}
			CHECK(ms.valid & PMS_MS_IP);
			/* a sample without a time stays without one */
			ms = (struct pms_memsample){ .valid = PMS_MS_IP, .time = 0 };
			pms_memdeco_spe_time(d, &ms);
			CHECK_EQ_U64(ms.valid, PMS_MS_IP);
			CHECK_EQ_U64(ms.time, 0);
		}
		pms_memdeco_free(d);
		pms_perfdata_reader_free(r);
		if (fp)
			fclose(fp);
	}
}

PMS_TEST(live_topology_nodes)
{
	struct pms_topo_cpu cpus[3];
	struct pms_topo_node nodes[2];
	uint64_t b0[2] = { 0, 1 }, b1[1] = { 4 };
	struct pms_topo t;
	struct pms_memdeco *d = NULL;
	struct pms_memdeco_out o;
	uint64_t p;

	memset(cpus, 0, sizeof(cpus));
	memset(nodes, 0, sizeof(nodes));
	memset(&t, 0, sizeof(t));
	for (int i = 0; i < 3; i++) {
		cpus[i].cpu = i;
		cpus[i].online = true;
		cpus[i].node = i == 2 ? 1 : 0;
	}
	nodes[0] = (struct pms_topo_node){ .id = 0, .mem_blocks = b0, .nmem_blocks = 2 };
	nodes[1] = (struct pms_topo_node){ .id = 1, .mem_blocks = b1, .nmem_blocks = 1 };
	t.cpus = cpus;
	t.ncpus = 3;
	t.nodes = nodes;
	t.nnodes = 2;
	t.mem_block_size = BLOCK;

	CHECK_OK(pms_memdeco_new_live(&t, &d));
	if (!d)
		return;
	CHECK_EQ_INT(pms_memdeco_cpu_node(d, 2), 1);
	CHECK_EQ_INT(pms_memdeco_cpu_node(d, 7), -1);
	p = 4 * BLOCK + 1;
	o = deco(d, 0, &p);
	CHECK_EQ_INT(o.cpu_node, 0);
	CHECK_EQ_INT(o.mem_node, 1);
	CHECK(o.node_from_phys);
	/* live: what the blocks do not hold is the oracle's to ask later */
	p = 3 * BLOCK;
	o = deco(d, 2, &p);
	CHECK_EQ_INT(o.cpu_node, 1);
	CHECK_EQ_INT(o.mem_node, PMS_NODE_UNKNOWN);
	CHECK(!o.node_from_phys);
	o = deco(d, 2, NULL);
	CHECK_EQ_INT(o.mem_node, PMS_NODE_UNKNOWN);
	pms_memdeco_free(d);
	d = NULL;
	/* no topology: no nodes */
	CHECK_OK(pms_memdeco_new_live(NULL, &d));
	if (d) {
		p = BLOCK;
		o = deco(d, 0, &p);
		CHECK_EQ_INT(o.cpu_node, -1);
		CHECK_EQ_INT(o.mem_node, PMS_NODE_UNKNOWN);
	}
	pms_memdeco_free(d);
}

PMS_TEST(status_names_and_arguments)
{
	struct pms_memdeco *d = NULL;
	CHECK_EQ_STR(pms_node_status_name(3), "node");
	CHECK_EQ_STR(pms_node_status_name(PMS_NODE_NO_BLOCK), "in no memory block");
	CHECK_EQ_STR(pms_node_status_name(PMS_NODE_TASK_GONE), "task gone");
	CHECK_EQ_STR(pms_node_status_name(PMS_NODE_NO_PHYS), "no physical address");
	CHECK_EQ_STR(pms_node_status_name(PMS_NODE_BAD_ADDR), "not a user page");
	CHECK_EQ_STR(pms_node_status_name(PMS_NODE_NOT_ASKED), "not known");
	CHECK_EQ_STR(pms_node_status_name(-7), "other");
	CHECK_EQ_INT(PMS_NODE_NOT_ASKED, PMS_NODE_UNKNOWN);
	CHECK_EQ_INT(pms_memdeco_new_file(NULL, &d), PMS_EINVAL);
	CHECK(d == NULL);
	CHECK_EQ_INT(pms_memdeco_new_live(NULL, NULL), PMS_EINVAL);
	pms_memdeco_free(NULL);
}

PMS_TEST_MAIN()
