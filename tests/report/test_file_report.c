/* `pmuscope report` of a file written here with the library's writer: two
 * nodes in NUMA_TOPOLOGY (CPUs 0-1, 2-3) and MEM_TOPOLOGY (128 MiB blocks
 * 0-1 on node 0, 2-3 on node 1), samples with PHYS_ADDR.  Each sample's
 * node must come from the file (never from this machine), a physical
 * address of 0 counts as not mapped, one in no block as not present, and
 * the CPU-node x memory-node matrix must follow the file's CPU lists. */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"

#define BLOCK (128ULL << 20)

static void sample(struct pms_perfdata_writer *w, const struct pms_sample_layout *lay, uint32_t cpu,
		   uint64_t phys, uint64_t weight)
{
	unsigned char buf[512];
	size_t len = 0;
	struct pms_record r;
	memset(&r, 0, sizeof(r));
	r.type = PMS_RECORD_SAMPLE;
	r.sample.misc = PERF_RECORD_MISC_USER;
	r.sample.ip = 0x401000 + cpu * 4;
	r.sample.pid = r.sample.tid = 77;
	r.sample.time = 1000 + phys;
	r.sample.addr = 0x7f0000001000ULL;
	r.sample.cpu = cpu;
	r.sample.weight = weight;
	r.sample.data_src = 0x68100142; /* a load that hit L1 */
	r.sample.phys_addr = phys;
	CHECK_OK(pms_record_encode(lay, &r, buf, sizeof(buf), &len));
	CHECK_OK(pms_perfdata_writer_write(w, buf, len));
}

/* Run the CLI; its stdout into out (NUL-terminated). */
static int run(const char *args, char *out, size_t size)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "%s report %s", pms_t_cli(), args);
	FILE *f = popen(cmd, "r");
	if (!f)
		return -1;
	size_t n = fread(out, 1, size - 1, f);
	out[n] = 0;
	return pclose(f);
}

PMS_TEST(nodes_from_the_files_mem_topology)
{
	char path[] = "/tmp/pms-file-report-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
			PERF_SAMPLE_PHYS_ADDR;
	struct pms_sample_layout lay;
	pms_sample_layout_from_attr(&lay, &a);
	struct pms_perfdata_writer *w = NULL;
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	if (!w)
		return;
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, NULL, 0));
	/* 10 remote (CPU node 0, memory node 1), 5 local on node 0 from CPU
	 * node 1 ... */
	for (int i = 0; i < 10; i++)
		sample(w, &lay, 0, 3 * BLOCK + 4096 * (uint64_t)i, 100 + (uint64_t)i);
	for (int i = 0; i < 5; i++)
		sample(w, &lay, 2, 4096 * (uint64_t)(i + 1), 300);
	/* ... 2 untranslated (phys 0), 3 outside every block */
	for (int i = 0; i < 2; i++)
		sample(w, &lay, 1, 0, 50);
	for (int i = 0; i < 3; i++)
		sample(w, &lay, 3, 9 * BLOCK + 64, 50);
	const struct pms_perfdata_numa_node numa[2] = {
		{ 0, 1000, 500, "0-1" },
		{ 1, 1000, 500, "2-3" },
	};
	uint64_t b0 = 0x3, b1 = 0xc;
	const struct pms_perfdata_mem_node mem[2] = { { 0, 4, 4, &b0 }, { 1, 4, 4, &b1 } };
	CHECK_OK(pms_perfdata_writer_set_numa_topology(w, numa, 2));
	CHECK_OK(pms_perfdata_writer_set_mem_topology(w, BLOCK, mem, 2));
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);
	close(fd);

	static char out[65536];
	char args[256];
	snprintf(args, sizeof(args), "--no-symbols -i %s", path);
	CHECK_EQ_INT(run(args, out, sizeof(out)), 0);
	const char *want[] = {
		"samples: 20 (20 with a data address)",
		("  resolved 15 (15 from physical addresses); unresolved 5 (not mapped/EFAULT 2, "
		 "not present/ENOENT 3, process gone 0, other 0, not asked 0)"),
		"  cpu\\mem          0         1\n  0                0        10\n  1                5         0\n",
		"latency (cycles, 20 samples with a valid weight): min 50  median 104  p90 300  p99 300  max 300",
		"  L1 hit                         20 100.0%",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (!strstr(out, want[i]))
			printf("row %zu: no \"%s\" in:\n%s\n", i, want[i], out);
		CHECK(strstr(out, want[i]) != NULL);
	}
	CHECK(strstr(out, "nodes unavailable") == NULL);
	/* CSV: one row per sample with the node the file gives it */
	snprintf(args, sizeof(args), "--csv -i %s", path);
	CHECK_EQ_INT(run(args, out, sizeof(out)), 0);
	int rows = 0, node1 = 0, efault = 0, enoent = 0;
	char *save = NULL;
	/* time,pid,tid,cpu,cpu_node,ip,addr,phys_addr,mem_node,node_status,... */
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, "time,", 5))
			continue;
		rows++;
		node1 += strstr(l, ",0,0x401000,") && strstr(l, ",1,ok,");
		efault += strstr(l, ",0x0,,EFAULT,") != NULL;
		enoent += strstr(l, ",,ENOENT,") != NULL;
	}
	CHECK_EQ_INT(rows, 20);
	CHECK_EQ_INT(node1, 10);
	CHECK_EQ_INT(efault, 2);
	CHECK_EQ_INT(enoent, 3);
	unlink(path);
}

PMS_TEST_MAIN()
