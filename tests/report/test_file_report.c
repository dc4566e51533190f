/* The report of a file written here with the library's writer: two
 * nodes in NUMA_TOPOLOGY (CPUs 0-1, 2-3) and MEM_TOPOLOGY (128 MiB blocks
 * 0-1 on node 0, 2-3 on node 1), samples with PHYS_ADDR.  Each sample's
 * node must come from the file (never from this machine), a physical
 * address of 0 counts as not mapped, one in no block as not present, and
 * the CPU-node x memory-node matrix must follow the file's CPU lists.
 * Also: ibs_op samples whose RAW payload is shorter than its caps announce
 * are said, per event, by the source and by `pmuscope report`. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"
#include "pmuscope/report.h"

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

/* Per-sample node hints, as the source gives them. */
struct tally {
	struct pms_memprof *prof;
	int rows, node1_cpu0, efault, enoent;
};

static int on_sample(void *ud, const struct pms_memsrc_sample *x)
{
	struct tally *t = ud;
	t->rows++;
	t->node1_cpu0 += x->mem_node == 1 && x->cpu_node == 0 && x->ms.cpu == 0 &&
			 x->node_from_phys;
	t->efault += x->mem_node == -EFAULT && !(x->ms.valid & PMS_MS_PHYS);
	t->enoent += x->mem_node == -ENOENT;
	return pms_memprof_add_src(t->prof, x);
}

static int on_side(void *ud, const struct pms_record *r, size_t attr_idx)
{
	(void)attr_idx;
	return pms_memprof_sideband(((struct tally *)ud)->prof, r, NULL);
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

	/* The file through the recorded source into the report builder, as
	 * `pmuscope report` does. */
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	struct pms_perfdata_reader *rd = NULL;
	struct pms_memsrc *src = NULL;
	struct pms_memreport *rep = NULL;
	struct tally t = { 0 };
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.aggregate = true;
	CHECK_OK(pms_perfdata_reader_open_fd(fd, &rd));
	CHECK_OK(pms_memprof_new(NULL, &po, &t.prof));
	if (rd)
		CHECK_OK(pms_memsrc_open_reader(rd, &src));
	if (!src || !t.prof)
		goto out;
	/* a recorded source: its reader, no sampler */
	CHECK_EQ_INT(pms_memsrc_kind(src), PMS_MEMSRC_FILE);
	CHECK(pms_memsrc_reader(src) == rd);
	CHECK(pms_memsrc_sampler(src) == NULL);
	size_t nids = 0;
	const int *ids = pms_memsrc_node_ids(src, &nids);
	CHECK_EQ_INT((int)nids, 2);
	CHECK_OK(pms_memprof_set_node_ids(t.prof, ids, nids));
	CHECK_EQ_INT(pms_memsrc_cpu_node(src, 1), 0);
	CHECK_EQ_INT(pms_memsrc_cpu_node(src, 3), 1);
	CHECK_EQ_INT(pms_memsrc_cpu_node(src, 4), -1);
	const struct pms_memsrc_callbacks cb = { on_sample, on_side, NULL };
	int rc;
	while ((rc = pms_memsrc_poll(src, 0, &cb, &t)) > 0)
		;
	CHECK_EQ_INT(rc, 0);
	/* one row per sample with the node the file gives it */
	CHECK_EQ_INT(t.rows, 20);
	CHECK_EQ_INT(t.node1_cpu0, 10);
	CHECK_EQ_INT(t.efault, 2);
	CHECK_EQ_INT(t.enoent, 3);

	struct pms_memsrc_info info;
	struct pms_memsrc_stats st;
	pms_memsrc_info(src, &info);
	pms_memsrc_stats(src, &st);
	CHECK_EQ_INT(info.kind, PMS_MEMSRC_FILE);
	CHECK(info.nodes_why == NULL);
	CHECK(info.phys);
	CHECK_EQ_U64(st.samples, 20);
	CHECK_EQ_U64(st.records, 20);
	struct pms_memreport_input in = { 0 };
	pms_memreport_input_from_src(&in, &info, &st);
	CHECK_OK(pms_memprof_report(t.prof, NULL, &in, &rep));
	if (!rep)
		goto out;
	CHECK_EQ_U64(rep->samples, 20);
	CHECK_EQ_U64(rep->with_addr, 20);
	CHECK_EQ_U64(rep->resolved, 15);
	CHECK_EQ_U64(rep->from_phys, 15);
	CHECK_EQ_U64(rep->unresolved, 5);
	CHECK_EQ_U64(rep->st_efault, 2);
	CHECK_EQ_U64(rep->st_enoent, 3);
	CHECK_EQ_U64(rep->st_not_asked, 0);
	/* CPU node x memory node: row = CPU node */
	CHECK_EQ_INT((int)rep->nnodes, 2);
	if (rep->nnodes == 2) {
		CHECK_EQ_U64(rep->matrix[0 * 2 + 0], 0);
		CHECK_EQ_U64(rep->matrix[0 * 2 + 1], 10);
		CHECK_EQ_U64(rep->matrix[1 * 2 + 0], 5);
		CHECK_EQ_U64(rep->matrix[1 * 2 + 1], 0);
	}
	CHECK_EQ_U64(rep->latency.n, 20);
	CHECK_EQ_U64(rep->latency.min, 50);
	CHECK_EQ_U64(rep->latency.median, 104);
	CHECK_EQ_U64(rep->latency.p90, 300);
	CHECK_EQ_U64(rep->latency.max, 300);
	CHECK_EQ_INT((int)rep->nlevels, 1);
	if (rep->nlevels == 1) {
		CHECK_EQ_STR(rep->levels[0].name, "L1 hit");
		CHECK_EQ_U64(rep->levels[0].samples, 20);
	}
out:
	pms_memreport_free(rep);
	pms_memsrc_free(src);
	pms_memprof_free(t.prof);
	pms_perfdata_reader_free(rd);
	if (fd >= 0)
		close(fd);
	unlink(path);
}

/* The core PMU "cpu" is PEBS on Intel and not on AMD: the recorded source
 * decides by the file's CPUID header (perf's "vendor,family,model,stepping"). */
static enum pms_engine engine_with_cpuid(const char *cpuid, char *vendor, size_t vsize)
{
	char path[] = "/tmp/pms-file-cpuid-XXXXXX";
	enum pms_engine e = (enum pms_engine)-1;
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return e;
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.config = 0x1cd;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	struct pms_sample_layout lay;
	pms_sample_layout_from_attr(&lay, &a);
	struct pms_perfdata_writer *w = NULL;
	const struct pms_perfdata_pmu_map pm[1] = { { PERF_TYPE_RAW, "cpu" } };
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	if (w) {
		CHECK_OK(pms_perfdata_writer_add_attr(w, &a, NULL, 0));
		sample(w, &lay, 0, 0, 0);
		CHECK_OK(pms_perfdata_writer_set_pmu_mappings(w, pm, 1));
		CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_CPUID, cpuid));
		CHECK_OK(pms_perfdata_writer_close(w));
	}
	pms_perfdata_writer_free(w);
	struct pms_perfdata_reader *rd = NULL;
	struct pms_memsrc *src = NULL;
	CHECK_OK(pms_perfdata_reader_open_fd(fd, &rd));
	if (rd)
		CHECK_OK(pms_memsrc_open_reader(rd, &src));
	if (src) {
		size_t n = 0;
		const struct pms_memsrc_attr *at = pms_memsrc_attrs(src, &n);
		struct pms_memsrc_info info;
		pms_memsrc_info(src, &info);
		CHECK_EQ_INT((int)n, 1);
		CHECK_EQ_STR(at[0].pmu, "cpu");
		e = at[0].engine;
		CHECK_EQ_INT(info.engine, e);
		snprintf(vendor, vsize, "%s", info.vendor);
	}
	pms_memsrc_free(src);
	pms_perfdata_reader_free(rd);
	close(fd);
	unlink(path);
	return e;
}

PMS_TEST(cpu_pmu_engine_from_the_files_vendor)
{
	char v[32] = "";
	CHECK_EQ_INT(engine_with_cpuid("GenuineIntel,6,143,8", v, sizeof(v)), PMS_ENG_PEBS);
	CHECK_EQ_STR(v, "GenuineIntel");
	CHECK_EQ_INT(engine_with_cpuid("AuthenticAMD,25,17,1", v, sizeof(v)), PMS_ENG_NONE);
	CHECK_EQ_STR(v, "AuthenticAMD");
	/* an arm64 MIDR names no x86 vendor: unknown, "cpu" is taken as PEBS */
	CHECK_EQ_INT(engine_with_cpuid("0x00000000410fd0c0", v, sizeof(v)), PMS_ENG_PEBS);
	CHECK_EQ_STR(v, "");
}

/* perf record writes one ring per CPU in turn: inside a round, a sample
 * from CPU 0's ring can come before the COMM and MMAP2 that CPU 1 wrote
 * earlier in time (the binary's exec).  The source hands the side-band out
 * before the first sample of a later time (as perf's time order would),
 * the samples in file order; a sample older than the side-band still comes
 * before it.  In file order, the sample of time 150 came before its MMAP2
 * of time 100 (the DWARF unwind of callpath.sh part 3 found no mapping). */
struct order {
	char seq[16];
	size_t n;
};

static int order_sample(void *ud, const struct pms_memsrc_sample *x)
{
	struct order *o = ud;
	if (o->n + 1 < sizeof(o->seq))
		o->seq[o->n++] = (char)('0' + x->ms.time / 100);
	return 0;
}

static int order_side(void *ud, const struct pms_record *r, size_t attr_idx)
{
	struct order *o = ud;
	(void)attr_idx;
	if (o->n + 1 < sizeof(o->seq))
		o->seq[o->n++] = r->type == PMS_RECORD_MMAP2 ? 'M' : r->type == PMS_RECORD_COMM ? 'C' : '?';
	return 0;
}

static void side(struct pms_perfdata_writer *w, const struct pms_sample_layout *lay, uint32_t type,
		 uint64_t time)
{
	unsigned char buf[512];
	size_t len = 0;
	struct pms_record r;
	memset(&r, 0, sizeof(r));
	r.type = type;
	if (type == PMS_RECORD_MMAP2) {
		r.misc = PERF_RECORD_MISC_USER;
		r.mmap.pid = r.mmap.tid = 77;
		r.mmap.addr = 0x400000;
		r.mmap.len = 0x10000;
		r.mmap.prot = 5;
		r.mmap.filename = "/usr/bin/wl";
	} else {
		r.misc = PMS_MISC_COMM_EXEC;
		r.comm.pid = r.comm.tid = 77;
		r.comm.comm = "wl";
	}
	r.sample_id.pid = r.sample_id.tid = 77;
	r.sample_id.time = time;
	r.sample_id.cpu = 1;
	CHECK_OK(pms_record_encode(lay, &r, buf, sizeof(buf), &len));
	CHECK_OK(pms_perfdata_writer_write(w, buf, len));
}

PMS_TEST(side_band_before_the_later_samples_of_its_round)
{
	char path[] = "/tmp/pms-file-order-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	struct pms_sample_layout lay;
	pms_sample_layout_from_attr(&lay, &a);
	struct pms_perfdata_writer *w = NULL;
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	if (!w)
		return;
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, NULL, 0));
	/* round 1: CPU 0's ring (samples of times 90 and 150), then CPU 1's
	 * (COMM 95, MMAP2 100), then CPU 0 again (250) */
	sample(w, &lay, 0, (uint64_t)90 - 1000, 0); /* time 90 */
	sample(w, &lay, 0, (uint64_t)150 - 1000, 0); /* time 150 */
	side(w, &lay, PMS_RECORD_COMM, 95);
	side(w, &lay, PMS_RECORD_MMAP2, 100);
	sample(w, &lay, 0, (uint64_t)250 - 1000, 0); /* time 250 */
	const uint32_t round[2] = { 68 /* FINISHED_ROUND */, 8 << 16 };
	CHECK_OK(pms_perfdata_writer_write(w, round, sizeof(round)));
	/* round 2: a sample of time 350, then an older MMAP2 (300) of the
	 * same round, then the end of the data */
	sample(w, &lay, 0, (uint64_t)350 - 1000, 0); /* time 350 */
	side(w, &lay, PMS_RECORD_MMAP2, 300);
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);
	close(fd);

	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	struct pms_perfdata_reader *rd = NULL;
	struct pms_memsrc *src = NULL;
	struct order o = { "", 0 };
	CHECK_OK(pms_perfdata_reader_open_fd(fd, &rd));
	if (rd)
		CHECK_OK(pms_memsrc_open_reader(rd, &src));
	if (src) {
		const struct pms_memsrc_callbacks cb = { order_sample, order_side, NULL };
		int rc;
		while ((rc = pms_memsrc_poll(src, -1, &cb, &o)) > 0)
			;
		CHECK_EQ_INT(rc, 0);
		CHECK_EQ_STR(o.seq, "0CM12M3");
		struct pms_memsrc_stats st;
		pms_memsrc_stats(src, &st);
		CHECK_EQ_U64(st.samples, 4);
		CHECK_EQ_U64(st.sideband, 3);
	}
	pms_memsrc_free(src);
	pms_perfdata_reader_free(rd);
	close(fd);
	unlink(path);
}

/* Issue 32 item 6: an ibs_op sample whose caps word announces registers
 * (IbsBrTarget, IbsOpData4) that its RAW payload lacks is malformed, not a
 * sample "without a data source": the source counts such samples per event
 * and says how the first did not parse, and `pmuscope report` prints it.
 * The file: 2 well-formed op samples (9 registers) and 3 whose caps announce
 * 9 but which carry 7. */
static void ibs_sample(struct pms_perfdata_writer *w, uint64_t id, uint32_t i, size_t nregs)
{
	unsigned char b[256];
	size_t k = 8;
	uint32_t pid = 55, cpu = 0, z = 0;
	uint32_t caps = PMS_IBS_CAPS_BRNTRGT | PMS_IBS_CAPS_OPDATA4;
	uint64_t regs[9] = { 0 }, v;
	regs[0] = 1ULL << 18;              /* IbsOpCtl: IbsOpVal */
	regs[1] = 0x401000 + i;            /* IbsOpRip */
	regs[4] = 1 | (1ULL << 17);        /* IbsOpData3: load, IbsDcLinAddrValid */
	regs[5] = 0x7f0000002000ULL + i;   /* IbsDCLinAd */
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
	memcpy(b + k, &id, 8), k += 8;                 /* IDENTIFIER */
	v = 0x401000 + i;
	memcpy(b + k, &v, 8), k += 8;                  /* IP */
	memcpy(b + k, &pid, 4), k += 4;                /* TID */
	memcpy(b + k, &pid, 4), k += 4;
	memcpy(b + k, &cpu, 4), k += 4;                /* CPU */
	memcpy(b + k, &z, 4), k += 4;
	v = 100000;
	memcpy(b + k, &v, 8), k += 8;                  /* PERIOD */
	uint32_t raw_size = (uint32_t)(4 + 8 * nregs); /* 4 + raw_size: a multiple of 8 */
	memcpy(b + k, &raw_size, 4), k += 4;
	memcpy(b + k, &caps, 4), k += 4;
	memcpy(b + k, regs, 8 * nregs), k += 8 * nregs;
	h.size = (uint16_t)k;
	memcpy(b, &h, 8);
	CHECK_OK(pms_perfdata_writer_write(w, b, k));
}

PMS_TEST(malformed_ibs_payloads_are_said_per_event)
{
	char path[] = "/tmp/pms_ibs_bad_XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a;
	uint64_t id = 1;
	struct pms_perfdata_pmu_map pmus[2] = { { 4, "cpu" }, { 11, "ibs_op" } };
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = 11;
	a.sample_period = 100000;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	a.sample_id_all = 1;
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, &id, 1));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_ARCH, "x86_64"));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_CPUID, "AuthenticAMD,25,17,1"));
	CHECK_OK(pms_perfdata_writer_set_nrcpus(w, 4, 4));
	CHECK_OK(pms_perfdata_writer_set_pmu_mappings(w, pmus, 2));
	for (uint32_t i = 0; i < 5; i++)
		ibs_sample(w, id, i, i % 2 ? 9 : (i == 4 ? 9 : 7)); /* 0, 2: 7; 1, 3, 4: 9 */
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);
	close(fd);

	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	struct pms_perfdata_reader *rd = NULL;
	struct pms_memsrc *src = NULL;
	CHECK_OK(pms_perfdata_reader_open_fd(fd, &rd));
	if (rd)
		CHECK_OK(pms_memsrc_open_reader(rd, &src));
	if (src) {
		const struct pms_memsrc_callbacks cb = { NULL, NULL, NULL };
		int rc;
		while ((rc = pms_memsrc_poll(src, 0, &cb, NULL)) > 0)
			;
		CHECK_EQ_INT(rc, 0);
		size_t n = pms_memsrc_nproblems(src);
		CHECK_EQ_INT((int)n, 1);
		const char *p = n ? pms_memsrc_problem(src, n - 1) : NULL;
		if (p)
			printf("problem: %s\n", p);
		CHECK(p && strstr(p, "2 ibs_op samples with a malformed IBS raw payload"));
		CHECK(p && strstr(p, "but caps 0x420 announce 9 registers"));
	}
	pms_memsrc_free(src);
	pms_perfdata_reader_free(rd);
	close(fd);

	/* the CLI says it on stderr (report reads through the session) */
	const char *cli = getenv("PMS_CLI");
	if (cli) {
		char cmd[1024], line[1024];
		int found = 0;
		snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' 2>&1 >/dev/null", cli, path);
		FILE *f = popen(cmd, "r");
		CHECK(f != NULL);
		while (f && fgets(line, sizeof(line), f))
			found |= strstr(line, "warning: 2 ibs_op samples with a malformed IBS raw "
					      "payload") != NULL;
		if (f)
			pclose(f);
		CHECK(found);
	}
	unlink(path);
}

PMS_TEST_MAIN()
