/* The whole `pmuscope mem` pipeline on the fake kernel, once per precise
 * engine: samples as the kernel would write them go into the rings of the
 * events the sampler opened (IBS op registers decoded as ibs.c does; PEBS
 * records carrying the data_src ds.c computes; SPE packets in the AUX area),
 * are drained through the sampler's callbacks into the collector, their pages
 * resolved (batched fake move_pages, or physical address -> memory block),
 * and the report's numbers asserted: perf's level text, latency
 * percentiles, the pointer-chase load as the top instruction, nodes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "../sample/sample_helpers.h"

#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/recorder.h"
#include "report_diff.h"
#include "pmuscope/record.h"
#include "pmuscope/report.h"
#include "pmuscope/sampler.h"
#include "pmuscope/spe.h"
#include "pmuscope/topo.h"

/* The workload's dependent load, and a second function for the minority of
 * samples, both symbolized from this process's own maps. */
__attribute__((noinline)) uint64_t pms_t_pipe_chase(const uint64_t *w, uint64_t i, long n);
__attribute__((noinline)) uint64_t pms_t_pipe_chase(const uint64_t *w, uint64_t i, long n)
{
	while (n-- > 0)
		i = w[i];
	return i;
}

__attribute__((noinline)) uint64_t pms_t_pipe_other(const uint64_t *w, long n);
__attribute__((noinline)) uint64_t pms_t_pipe_other(const uint64_t *w, long n)
{
	uint64_t s = 0;
	while (n-- > 0)
		s += w[n];
	return s;
}

#define CHASE_IP ((uint64_t)(uintptr_t)&pms_t_pipe_chase + 12)
#define OTHER_IP ((uint64_t)(uintptr_t)&pms_t_pipe_other + 8)

/* ---- the shared pipeline --------------------------------------------------- */

struct pipe {
	struct th_root r;
	struct pms_topo *topo; /* for memprof: CPU nodes and memory blocks */
	struct pms_sampler *s;
	struct pms_memsrc *src;
	/* the perf.data file recorded in the same run, and its report */
	struct pms_recorder *rec;
	char path[64];
	int fd;
	struct pms_memprof_opts po;
	struct pms_memreport *file_rep;
	struct pms_sampler_info info;
	struct pms_numa_oracle *oracle;
	struct pms_memprof *prof;
	struct pms_memreport *rep;
	struct pms_sys *real;
	struct pms_maps *maps;
	struct pms_symbolizer *sym;
};

static int on_sample(void *ud, const struct pms_memsrc_sample *s)
{
	struct pipe *p = ud;
	CHECK_OK(pms_recorder_sample(p->rec, s));
	return pms_memprof_add_src(p->prof, s);
}

static int on_side(void *ud, const struct pms_record *r, size_t attr_idx)
{
	struct pipe *p = ud;
	CHECK_OK(pms_recorder_sideband(p->rec, r, attr_idx));
	return pms_memprof_sideband(p->prof, r, p->oracle);
}

static int on_aux(void *ud, const struct pms_memsrc_aux *a)
{
	struct pipe *p = ud;
	CHECK_OK(pms_recorder_aux(p->rec, a));
	return 0;
}

static const struct pms_memsrc_callbacks pipe_cb = { on_sample, on_side, on_aux };

/* Open the sampler (which must choose engine), the oracle for po->pid (none
 * when 0: nothing alive to ask) and the collector.  0, or -1 after a failed
 * CHECK. */
static int pipe_open(struct pipe *p, const struct pms_sampler_opts *o, enum pms_engine engine,
		     const struct pms_memprof_opts *po)
{
	CHECK_OK(pms_sampler_open(p->r.sys, p->r.pmus, NULL, o, &p->s));
	if (!p->s)
		return -1;
	pms_sampler_info(p->s, &p->info);
	CHECK_OK(pms_memsrc_open_live(p->s, p->topo, &p->src));
	if (!p->src)
		return -1;
	snprintf(p->path, sizeof(p->path), "/tmp/pms-pipeline-XXXXXX");
	p->fd = mkstemp(p->path);
	CHECK(p->fd >= 0);
	if (p->fd < 0)
		return -1;
	CHECK_OK(pms_recorder_open(p->fd, p->src, NULL, &p->rec));
	if (!p->rec)
		return -1;
	p->po = *po;
	CHECK_EQ_INT(p->info.engine, engine);
	if (p->info.engine != engine) {
		size_t na = 0;
		const struct pms_sampler_attempt *a = pms_sampler_attempts(p->s, &na);
		for (size_t i = 0; i < na; i++)
			fprintf(stderr, "attempt %s err %d: %s\n", a[i].pmu, a[i].err, a[i].reason);
		return -1;
	}
	if (po->pid > 0) {
		struct pms_numa_opts no = PMS_NUMA_OPTS_INIT;
		no.pid = po->pid;
		CHECK_OK(pms_numa_oracle_new(p->r.sys, NULL, &no, &p->oracle));
		if (!p->oracle)
			return -1;
	}
	CHECK_OK(pms_memprof_new(p->topo, po, &p->prof));
	return p->prof ? 0 : -1;
}

static int file_sample(void *ud, const struct pms_memsrc_sample *s)
{
	return pms_memprof_add_src(((struct pipe *)ud)->prof, s);
}

static int file_side(void *ud, const struct pms_record *r, size_t attr_idx)
{
	struct pipe *p = ud;
	(void)attr_idx;
	return pms_memprof_sideband(p->prof, r, p->oracle);
}

/* One drain: expect records read from the rings, then resolve the nodes. */
static void pipe_drain(struct pipe *p, int records)
{
	CHECK_EQ_INT(pms_memsrc_poll(p->src, 0, &pipe_cb, p), records);
	CHECK(pms_memprof_resolve(p->prof, p->oracle) >= 0);
}

/* The report, IPs symbolized through this process's maps (where the chase
 * function lives).  0, or -1 after a failed CHECK. */
static int pipe_report(struct pipe *p)
{
	struct pms_memsrc_stats st;
	struct pms_memsrc_info si;
	struct pms_numa_stats nst;

	CHECK_OK(pms_sys_new(&p->real, NULL));
	CHECK_OK(pms_maps_new(&p->maps));
	if (!p->real || !p->maps)
		return -1;
	CHECK_OK(pms_maps_read_proc(p->maps, p->real, getpid()));
	CHECK_OK(pms_symbolizer_new(p->real, p->maps, &p->sym));
	pms_memsrc_stats(p->src, &st);
	pms_memsrc_info(p->src, &si);
	memset(&nst, 0, sizeof(nst));
	if (p->oracle)
		pms_numa_oracle_stats(p->oracle, &nst);
	struct pms_memreport_input in = { .numa = p->oracle ? &nst : NULL };
	pms_memreport_input_from_src(&in, &si, &st);
	CHECK_OK(pms_memprof_report(p->prof, p->sym, &in, &p->rep));
	if (!p->rep)
		return -1;
	CHECK(p->rep->data_src_available);
	CHECK(p->rep->nattempts >= 1);
	return 0;
}

/* The differential: the perf.data file the recorder wrote in the same run,
 * read back through the recorded source into a collector with the same
 * options, topology, oracle and symbolizer, must give the live report in
 * every field but the live-only ones (docs/mem.md).  Returns the number of
 * samples the file holds. */
static uint64_t pipe_differential(struct pipe *p)
{
	struct pms_perfdata_reader *rd = NULL;
	struct pipe f;
	int rc;

	CHECK_OK(pms_recorder_finish(p->rec, p->r.sys, p->topo, p->r.pmus));
	memset(&f, 0, sizeof(f));
	f.rec = NULL;
	CHECK_OK(pms_perfdata_reader_open_fd(p->fd, &rd));
	if (!rd)
		return 0;
	CHECK_OK(pms_memsrc_open_reader(rd, &f.src));
	CHECK_OK(pms_memprof_new(p->topo, &p->po, &f.prof));
	f.oracle = p->oracle;
	uint64_t n = 0;
	if (f.src && f.prof) {
		const struct pms_memsrc_callbacks cb = { file_sample, file_side, NULL };
		while ((rc = pms_memsrc_poll(f.src, 0, &cb, &f)) > 0)
			;
		CHECK_EQ_INT(rc, 0);
		CHECK(pms_memprof_resolve(f.prof, f.oracle) >= 0);
		struct pms_memsrc_info si;
		struct pms_memsrc_stats st;
		pms_memsrc_info(f.src, &si);
		pms_memsrc_stats(f.src, &st);
		n = st.samples;
		/* several events: every record's id names its event */
		CHECK_EQ_U64(st.unknown_id, 0);
		size_t na = 0, nl = 0;
		const struct pms_memsrc_attr *fa = pms_memsrc_attrs(f.src, &na);
		(void)pms_memsrc_attrs(p->src, &nl);
		CHECK_EQ_INT((int)na, (int)nl);
		for (size_t i = 0; nl > 1 && i < na; i++)
			CHECK(fa[i].nids > 0);
		struct pms_memreport_input in = { 0 };
		pms_memreport_input_from_src(&in, &si, &st);
		CHECK_OK(pms_memprof_report(f.prof, p->sym, &in, &p->file_rep));
		if (p->file_rep && st.samples)
			CHECK_EQ_INT(pms_t_report_diff(p->rep, p->file_rep), 0);
	}
	pms_memprof_free(f.prof);
	pms_memsrc_free(f.src);
	pms_perfdata_reader_free(rd);
	return n;
}

static void pipe_close(struct pipe *p)
{
	pms_memreport_free(p->file_rep);
	pms_recorder_free(p->rec);
	if (p->path[0]) {
		unlink(p->path);
		close(p->fd);
	}
	pms_memreport_free(p->rep);
	pms_symbolizer_free(p->sym);
	pms_maps_free(p->maps);
	pms_sys_free(p->real);
	pms_memprof_free(p->prof);
	pms_numa_oracle_free(p->oracle);
	pms_memsrc_free(p->src);
	pms_sampler_free(p->s);
	pms_topo_free(p->topo);
	th_root_close(&p->r);
}

/* Samples at the level perf prints as name (pms_datasrc_format_mem). */
static uint64_t level(const struct pms_memreport *rep, const char *name)
{
	for (size_t i = 0; i < rep->nlevels; i++)
		if (!strcmp(rep->levels[i].name, name))
			return rep->levels[i].samples;
	return 0;
}

static void check_latency(const struct pms_memreport *rep, uint64_t n, uint64_t min,
			  uint64_t median, uint64_t p90, uint64_t p99, uint64_t max)
{
	CHECK_EQ_U64(rep->latency.n, n);
	CHECK_EQ_U64(rep->latency.min, min);
	CHECK_EQ_U64(rep->latency.median, median);
	CHECK_EQ_U64(rep->latency.p90, p90);
	CHECK_EQ_U64(rep->latency.p99, p99);
	CHECK_EQ_U64(rep->latency.max, max);
}

/* The chase load is the top instruction by samples (n of them) and by total
 * latency, named after its function. */
static void check_top_chase(const struct pms_memreport *rep, uint64_t n)
{
	CHECK(rep->ntop_ips_samples >= 1 && rep->ntop_ips_latency >= 1);
	if (!rep->ntop_ips_samples || !rep->ntop_ips_latency)
		return;
	CHECK_EQ_U64(rep->top_ips_samples[0].addr, CHASE_IP);
	CHECK_EQ_U64(rep->top_ips_samples[0].samples, n);
	CHECK_EQ_STR(rep->top_ips_samples[0].name, "pms_t_pipe_chase");
	CHECK_EQ_U64(rep->top_ips_latency[0].addr, CHASE_IP);
	CHECK_EQ_STR(rep->top_ips_latency[0].name, "pms_t_pipe_chase");
}

/* Encode r under fd's attr and put it into fd's ring. */
static void put_rec(struct fk *fk, int fd, const struct pms_record *r)
{
	struct fk_fd *f = fk_fd(fk, fd);
	struct pms_sample_layout l;
	unsigned char buf[1024];
	size_t len = 0;

	CHECK(f != NULL);
	if (!f)
		return;
	pms_sample_layout_from_attr(&l, &f->attr);
	/* the event's id, as the kernel writes it into every record */
	struct pms_record c = *r;
	c.sample.id = FK_EVENT_ID(fd);
	c.sample_id.id = FK_EVENT_ID(fd);
	if (c.type != PMS_RECORD_SAMPLE && (l.sample_type & PMS_SAMPLE_IDENTIFIER))
		c.sample_id.present |= PMS_SAMPLE_IDENTIFIER;
	CHECK_OK(pms_record_encode(&l, &c, buf, sizeof(buf), &len));
	CHECK_EQ_INT(fk_ring_put(fk, fd, buf, len), 0);
}

#define BASE 0x7f3300000000ULL

/* ---- AMD IBS ----------------------------------------------------------------- */

/* IbsOpData3 / IbsOpCtl bits (arch/x86/include/asm/amd/ibs.h) */
#define D3_LDOP (1ULL << 0)
#define D3_DCMISS (1ULL << 7)
#define D3_LINVALID (1ULL << 17)
#define D3_L2MISS (1ULL << 20)
#define OPCTL_VAL (1ULL << 18)
/* Zen 4 with the load-latency filter, as the sampler tests' fake machine */
#define CAPS ((1u << 11) | (1u << 12) | (1u << 0) | (1u << 2))

/* One IBS op sample as the kernel would write it for these registers. */
static void put_ibs(struct fk *fk, int fd, const struct pms_ibs_op_regs *g, uint32_t tid)
{
	struct fk_fd *f = fk_fd(fk, fd);
	struct pms_ibs_cpu cpu = { 0x19, 0x61, CAPS };
	struct pms_ibs_op_sample d;
	struct pms_record r;
	unsigned char raw[60];
	uint64_t v[7] = { g->op_ctl, g->op_rip, g->op_data, g->op_data2,
			  g->op_data3, g->dc_lin_ad, g->dc_phys_ad };
	uint32_t caps = CAPS;

	CHECK_OK(pms_ibs_op_decode(g, &cpu, f->attr.sample_type, 0, &d));
	memcpy(raw, &caps, 4);
	memcpy(raw + 4, v, sizeof(v));
	memset(&r, 0, sizeof(r));
	r.type = PMS_RECORD_SAMPLE;
	r.sample.misc = PMS_MISC_USER | (d.exact_ip ? PMS_MISC_EXACT_IP : 0);
	r.sample.ip = d.ip;
	r.sample.pid = r.sample.tid = tid;
	r.sample.time = 1000;
	r.sample.addr = d.addr_filled ? d.addr : 0;
	r.sample.cpu = 0;
	r.sample.period = 0x10000;
	r.sample.raw = raw;
	r.sample.raw_size = sizeof(raw);
	r.sample.data_src = d.data_src_filled ? d.data_src : PMS_MEM_NA_VALUE;
	r.sample.weight = d.weight_filled ? d.weight : 0;
	r.sample.weight_var1_dw = d.weight_var1;
	r.sample.weight_var2_w = d.weight_var2;
	r.sample.phys_addr = d.phys_addr_filled ? d.phys_addr : 0;
	put_rec(fk, fd, &r);
}

PMS_TEST(ibs_ring_to_report)
{
	struct pipe p;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;

	memset(&p, 0, sizeof(p));
	if (th_root_open(&p.r, "zen4-ibs", "0", -1, true) < 0)
		goto out;
	p.r.m.ibs_op_type = 10;
	p.r.m.ibs_caps = CAPS;
	o.target = PMS_TARGET_PID;
	o.pid = 777;
	po.pid = 777;
	po.home_node = 0;
	po.home_start = BASE;
	po.home_end = BASE + 16 * 4096;
	if (pipe_open(&p, &o, PMS_ENG_IBS, &po) < 0)
		goto out;
	int fd = th_fd_of_type(p.r.fk, 10, 0);
	CHECK(fd >= 0);
	if (fd < 0)
		goto out;

	/* 16 pages of the chase buffer on node 0 */
	for (int pg = 0; pg < 16; pg++)
		fk_set_page(p.r.fk, BASE + (uint64_t)pg * 4096, 0);
	/* 30 chase loads: every third missed to local DRAM (DataSrc 3) with
	 * DcMissLat 400 + i, the rest hit L1; 5 ALU ops (no memory). */
	for (int i = 0; i < 35; i++) {
		struct pms_ibs_op_regs g = { 0 };
		g.op_ctl = OPCTL_VAL;
		if (i < 30) {
			g.op_rip = CHASE_IP;
			g.op_data3 = D3_LDOP | D3_LINVALID;
			g.dc_lin_ad = BASE + (uint64_t)(i % 16) * 4096 + 8 * (uint64_t)i;
			if (i % 3 == 0) {
				g.op_data2 = 3;
				g.op_data3 |= D3_DCMISS | D3_L2MISS | ((uint64_t)(400 + i) << 32);
			}
		} else {
			g.op_rip = 0x401c00;
		}
		put_ibs(p.r.fk, fd, &g, 777);
		if (i == 19)
			pipe_drain(&p, 20);
	}
	/* the kernel's accounting records travel with the samples (and into
	 * the recording): 3 samples lost, one throttle/unthrottle pair */
	{
		struct pms_record acc;
		memset(&acc, 0, sizeof(acc));
		acc.type = PMS_RECORD_LOST;
		acc.lost.lost = 3;
		acc.sample_id.present = PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_CPU;
		acc.sample_id.pid = acc.sample_id.tid = 777;
		put_rec(p.r.fk, fd, &acc);
		acc.type = PMS_RECORD_THROTTLE;
		acc.throttle.time = 5;
		put_rec(p.r.fk, fd, &acc);
		acc.type = PMS_RECORD_UNTHROTTLE;
		put_rec(p.r.fk, fd, &acc);
	}
	pipe_drain(&p, 18);
	/* the first drain saw all 16 pages; the second is answered from the cache */
	CHECK_EQ_INT((int)p.r.fk->move_pages_calls, 1);

	if (pipe_report(&p) < 0)
		goto out;
	const struct pms_memreport *rep = p.rep;
	CHECK_EQ_U64(rep->samples, 35);
	CHECK_EQ_U64(rep->stats.ibs_raw_mismatch, 0);
	CHECK_EQ_U64(rep->stats.lost_records, 1);
	CHECK_EQ_U64(rep->stats.lost, 3);
	CHECK_EQ_U64(rep->stats.throttle, 1);
	CHECK_EQ_U64(rep->stats.unthrottle, 1);
	/* levels as perf prints the ibs.c data_src */
	CHECK_EQ_U64(level(rep, "RAM hit"), 10);
	CHECK_EQ_U64(level(rep, "L1 hit"), 20);
	/* DcMissLat of the 10 DRAM loads: 400, 403, ..., 427 */
	check_latency(rep, 10, 400, 412, 424, 427, 427);
	CHECK_EQ_U64(rep->resolved, 30);
	CHECK_EQ_U64(rep->on_home, 30);
	CHECK_EQ_U64(rep->no_addr, 5);
	check_top_chase(rep, 30);
	CHECK(rep->ntop_objects >= 1);
	if (rep->ntop_objects) {
		CHECK_EQ_STR(rep->top_objects[0].kind, "workload");
		CHECK_EQ_U64(rep->top_objects[0].samples, 30);
	}
	/* the file recorded in the same run gives the same report */
	CHECK_EQ_U64(pipe_differential(&p), p.rep->samples);
out:
	pipe_close(&p);
}

/* AMD precise cycles forwarded to ibs_op (issue 31 row 1): cycles:pp opened
 * as the core event perf opens (the fake kernel forwards it as ibs.c
 * forward_event_to_ibs, v7.1-rc6 :240-258), IBS-shaped samples decoded as
 * IBS memory samples live, and the file recorded in the same run (its attr
 * PERF_TYPE_HARDWARE cycles, precise_ip 2, HEADER_CPUID AuthenticAMD) read
 * back as IBS with the same report. */
PMS_TEST(amd_precise_cycles_forwarded_ring_to_report_and_file)
{
	struct pipe p;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;

	memset(&p, 0, sizeof(p));
	if (th_root_open(&p.r, "zen4-ibs", "0", -1, true) < 0)
		goto out;
	p.r.m.ibs_op_type = 10;
	p.r.m.ibs_caps = CAPS;
	o.target = PMS_TARGET_PID;
	o.pid = 777;
	o.event = "cycles:pp";
	o.period = 0x10000;
	po.pid = 777;
	po.home_node = 0;
	po.home_start = BASE;
	po.home_end = BASE + 16 * 4096;
	/* the engine line says it: IBS op samples through the core event */
	if (pipe_open(&p, &o, PMS_ENG_IBS, &po) < 0)
		goto out;
	CHECK(strstr(p.info.label, "ibs_op") != NULL);
	int fd = th_fd_of_type(p.r.fk, PERF_TYPE_HARDWARE, 0);
	CHECK(fd >= 0);
	if (fd < 0)
		goto out;
	for (int pg = 0; pg < 16; pg++)
		fk_set_page(p.r.fk, BASE + (uint64_t)pg * 4096, 0);
	/* 9 loads, every third from local DRAM (DcMissLat 300 + i); 3 ALU ops */
	for (int i = 0; i < 12; i++) {
		struct pms_ibs_op_regs g = { 0 };
		g.op_ctl = OPCTL_VAL;
		if (i < 9) {
			g.op_rip = CHASE_IP;
			g.op_data3 = D3_LDOP | D3_LINVALID;
			g.dc_lin_ad = BASE + (uint64_t)i * 4096 + 64;
			g.op_data = (uint64_t)(20 + i) << 16; /* TagToRetCtr */
			if (i % 3 == 0) {
				g.op_data2 = 3;
				g.op_data3 |= D3_DCMISS | D3_L2MISS | ((uint64_t)(300 + i) << 32);
			}
		} else {
			g.op_rip = 0x401c00;
		}
		put_ibs(p.r.fk, fd, &g, 777);
	}
	pipe_drain(&p, 12);
	if (pipe_report(&p) < 0)
		goto out;
	const struct pms_memreport *rep = p.rep;
	CHECK_EQ_U64(rep->samples, 12);
	CHECK_EQ_U64(rep->stats.ibs_raw_checked, 12);
	CHECK_EQ_U64(rep->stats.ibs_raw_mismatch, 0);
	CHECK_EQ_U64(level(rep, "RAM hit"), 3);
	CHECK_EQ_U64(level(rep, "L1 hit"), 6);
	CHECK_EQ_U64(rep->resolved, 9);
	CHECK_EQ_U64(pipe_differential(&p), 12);
	/* the file's event: the core attr, read as IBS (memsrc.c file_attrs) */
	{
		struct pms_perfdata_reader *rd = NULL;
		struct pms_memsrc *src = NULL;
		size_t na = 0;
		CHECK_OK(pms_perfdata_reader_open_fd(p.fd, &rd));
		if (rd)
			CHECK_OK(pms_memsrc_open_reader(rd, &src));
		const struct pms_memsrc_attr *fa = src ? pms_memsrc_attrs(src, &na) : NULL;
		int ibs = 0;
		for (size_t i = 0; i < na; i++)
			if (fa[i].attr->type == PERF_TYPE_HARDWARE && fa[i].attr->precise_ip == 2) {
				CHECK_EQ_INT(fa[i].engine, PMS_ENG_IBS);
				ibs++;
			}
		CHECK_EQ_INT(ibs, 1);
		pms_memsrc_free(src);
		pms_perfdata_reader_free(rd);
	}
out:
	pipe_close(&p);
}

/* ---- Intel PEBS (hybrid Alder Lake) ------------------------------------------ */

/* One load-latency record as intel/ds.c setup_pebs_adaptive_sample_data
 * writes it: data_src from the record's dse by the PMU's uarch
 * (load_latency_data / grt_latency_data), weight struct var1 = latency,
 * var2 = instruction latency. */
static void put_pebs(struct fk *fk, int fd, enum pms_pebs_uarch u, unsigned dse, uint64_t ip,
		     uint64_t addr, uint32_t lat, uint32_t cpu)
{
	struct pms_record r;
	uint64_t ds = 0;

	CHECK_OK(pms_pebs_data_src(u, PMS_PEBS_LOAD_LATENCY, dse, &ds));
	memset(&r, 0, sizeof(r));
	r.type = PMS_RECORD_SAMPLE;
	r.sample.misc = PMS_MISC_USER | PMS_MISC_EXACT_IP;
	r.sample.ip = ip;
	r.sample.pid = r.sample.tid = 777;
	r.sample.time = 2000;
	r.sample.addr = addr;
	r.sample.cpu = cpu;
	r.sample.period = 10007;
	r.sample.data_src = ds;
	r.sample.weight_var1_dw = lat;
	r.sample.weight_var2_w = 9;
	r.sample.weight = lat | (9ULL << 32);
	put_rec(fk, fd, &r);
}

/* The PEBS event of PMU type whose config is code (event | umask << 8). */
static int pebs_fd(struct fk *fk, uint32_t type, uint64_t code)
{
	for (int i = 0; i < FK_MAX_FDS; i++) {
		const struct fk_fd *f = &fk->fds[i];
		if (f->used && f->attr.type == type && (f->attr.config & 0xffff) == code)
			return FK_FD_BASE + i;
	}
	return -1;
}

PMS_TEST(pebs_ring_to_report)
{
	struct pipe p;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;

	memset(&p, 0, sizeof(p));
	/* CPU 0 is a P-core (cpu_core/cpus 0-7), CPU 8 an E-core (cpu_atom 8-15) */
	if (th_root_open(&p.r, "adl-hybrid", "0,8", -1, true) < 0)
		goto out;
	/* cpu_core (Golden Cove: mem-loads needs mem-loads-aux as its leader)
	 * and cpu_atom (Gracemont), the fixture's event encodings */
	p.r.m.npebs = 2;
	p.r.m.pebs[0] = (struct fkr_pebs_pmu){ .type = 4, .max_precise = 3, .pdir_mem = true,
					       .needs_loads_aux = true,
					       .loads_aux_config = 0x8203, .loads_config = 0x01cd };
	p.r.m.pebs[1] = (struct fkr_pebs_pmu){ .type = 10, .max_precise = 3, .pdir_mem = true,
					       .loads_config = 0x05d0 };
	o.target = PMS_TARGET_PID;
	o.pid = 777;
	o.ops = PMS_SAMPLER_LOADS;
	o.ldlat = 35;
	po.pid = 777;
	po.home_node = 0;
	po.home_start = BASE;
	po.home_end = BASE + 16 * 4096;
	if (pipe_open(&p, &o, PMS_ENG_PEBS, &po) < 0)
		goto out;
	int core = pebs_fd(p.r.fk, 4, 0x01cd), aux = pebs_fd(p.r.fk, 4, 0x8203);
	int atom = pebs_fd(p.r.fk, 10, 0x05d0);
	CHECK(core >= 0 && aux >= 0 && atom >= 0);
	if (core < 0 || aux < 0 || atom < 0)
		goto out;
	/* the ldlat term lands in config1 (cpu_core/format/ldlat: config1:0-15) */
	CHECK_EQ_U64(fk_fd(p.r.fk, core)->attr.config1, 35);
	CHECK_EQ_U64(fk_fd(p.r.fk, atom)->attr.config1, 35);
	CHECK(fk_fd(p.r.fk, core)->attr.sample_type & PMS_SAMPLE_DATA_SRC);

	/* The chase buffer: pages 0-11 on node 0, 12-15 on node 1. */
	for (int pg = 0; pg < 16; pg++)
		fk_set_page(p.r.fk, BASE + (uint64_t)pg * 4096, pg < 12 ? 0 : 1);
	/* 20 chase loads on the P-core, by i % 4: local DRAM (dse 0xa, 200 + i
	 * cycles), L3 hit (0x4, 50), remote DRAM (0xb, 400 + i) on the node-1
	 * pages, fill-buffer hit (0x2, 40). */
	static const unsigned dse[4] = { 0xa, 0x4, 0xb, 0x2 };
	static const uint32_t lat0[4] = { 200, 50, 400, 40 }, plus_i[4] = { 1, 0, 1, 0 };
	for (int i = 0; i < 20; i++) {
		uint32_t lat = lat0[i % 4] + plus_i[i % 4] * (uint32_t)i;
		uint64_t pg = i % 4 == 2 ? 12 + (uint64_t)(i / 4 % 4) : (uint64_t)(i % 12);
		put_pebs(p.r.fk, core, PMS_PEBS_UARCH_GLC_HYBRID, dse[i % 4], CHASE_IP,
			 BASE + pg * 4096 + 64 * (uint64_t)i, lat, 0);
		if (i == 9) {
			/* the aux leader's own sample: not a memory sample */
			struct pms_record r;
			memset(&r, 0, sizeof(r));
			r.type = PMS_RECORD_SAMPLE;
			r.sample.misc = PMS_MISC_USER;
			r.sample.ip = CHASE_IP;
			r.sample.pid = r.sample.tid = 777;
			r.sample.period = 10007;
			put_rec(p.r.fk, aux, &r);
			pipe_drain(&p, 11);
		}
	}
	/* 4 loads on the E-core at another function, Gracemont L2 hits (dse
	 * 0x3, 60 cycles), on a page move_pages does not know (-EFAULT). */
	for (int i = 0; i < 4; i++)
		put_pebs(p.r.fk, atom, PMS_PEBS_UARCH_GRT, 0x3, OTHER_IP,
			 0x7ffd00010000ULL + 8 * (uint64_t)i, 60, 8);
	pipe_drain(&p, 14);

	if (pipe_report(&p) < 0)
		goto out;
	const struct pms_memreport *rep = p.rep;
	CHECK_EQ_U64(rep->samples, 24);
	CHECK_EQ_U64(rep->stats.samples_dropped, 1);
	CHECK_EQ_U64(rep->with_data_src, 24);
	CHECK_EQ_U64(level(rep, "RAM hit"), 5);
	CHECK_EQ_U64(level(rep, "Remote RAM hit"), 5);
	CHECK_EQ_U64(level(rep, "L3 hit"), 5);
	CHECK_EQ_U64(level(rep, "LFB/MAB hit"), 5);
	CHECK_EQ_U64(level(rep, "L2 hit"), 4);
	CHECK_EQ_U64(rep->nlevels, 5);
	/* weights sorted: 40 x5, 50 x5, 60 x4, 200..216 by 4, 402..418 by 4 */
	check_latency(rep, 24, 40, 60, 410, 418, 418);
	check_top_chase(rep, 20);
	if (rep->ntop_ips_samples >= 2) {
		CHECK_EQ_U64(rep->top_ips_samples[1].addr, OTHER_IP);
		CHECK_EQ_STR(rep->top_ips_samples[1].name, "pms_t_pipe_other");
	}
	/* nodes from the fake move_pages map, one batch per drain */
	CHECK_EQ_INT((int)p.r.fk->move_pages_calls, 2);
	CHECK_EQ_U64(rep->with_addr, 24);
	CHECK_EQ_U64(rep->resolved, 20);
	CHECK_EQ_U64(rep->on_home, 15);
	CHECK_EQ_U64(rep->elsewhere, 5);
	CHECK_EQ_U64(rep->from_phys, 0);
	CHECK_EQ_U64(rep->unresolved, 4);
	CHECK_EQ_U64(rep->st_efault, 4);
	CHECK_EQ_U64(rep->no_addr, 0);
	/* the loads perf calls remote DRAM are the ones on node 1 */
	int remote_ram = 0;
	CHECK_EQ_U64(rep->nall, 24);
	for (size_t i = 0; i < rep->nall; i++) {
		const struct pms_memreport_sample *x = &rep->all[i];
		struct pms_datasrc d;
		pms_datasrc_unpack(x->s.data_src, &d);
		if (d.lvl_num == PMS_MEM_LVLNUM_RAM && d.remote) {
			remote_ram++;
			CHECK_EQ_INT(x->mem_node, 1);
		} else if (x->s.ip == CHASE_IP) {
			CHECK_EQ_INT(x->mem_node, 0);
		} else {
			CHECK_EQ_INT(x->mem_node, -EFAULT);
			CHECK_EQ_INT(x->s.cpu, 8);
		}
	}
	CHECK_EQ_INT(remote_ram, 5);
	/* the file recorded in the same run gives the same report */
	CHECK_EQ_U64(pipe_differential(&p), p.rep->samples);
out:
	pipe_close(&p);
}

/* ---- Arm SPE (Neoverse N1) ------------------------------------------------- */

/* Write text to rel under the root, creating the directories on the way. */
static void root_put(const struct th_root *r, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", r->dir, rel);
	for (char *c = path + strlen(r->dir) + 1; *c; c++)
		if (*c == '/') {
			*c = 0;
			mkdir(path, 0755);
			*c = '/';
		}
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

/* A two-node machine: CPUs 0-1 and memory blocks 0-7 on node 0, CPUs 2-3 and
 * blocks 8-15 on node 1, 128 MiB blocks (drivers/base/memory.c
 * block_size_bytes is hex without 0x; drivers/base/node.c links memoryM
 * under nodeN). */
#define SPE_BLOCK 0x8000000ULL
static void spe_two_nodes(const struct th_root *r)
{
	char rel[128];
	root_put(r, "sys/devices/system/memory/block_size_bytes", "8000000\n");
	root_put(r, "sys/devices/system/node/online", "0-1\n");
	root_put(r, "sys/devices/system/node/has_cpu", "0-1\n");
	root_put(r, "sys/devices/system/node/has_memory", "0-1\n");
	root_put(r, "sys/devices/system/node/node0/cpulist", "0-1\n");
	root_put(r, "sys/devices/system/node/node1/cpulist", "2-3\n");
	root_put(r, "sys/devices/system/node/node0/distance", "10 20\n");
	root_put(r, "sys/devices/system/node/node1/distance", "20 10\n");
	for (int b = 0; b < 16; b++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/memory%d/online",
			 b < 8 ? 0 : 1, b);
		root_put(r, rel, "1\n");
	}
}

/* A Neoverse N1 load record: source is the Data Source payload (common
 * table: 0x0 L1D, 0x8 L2, 0xe DRAM), events as the CPU sets them for it. */
static int spe_load(uint8_t *out, size_t cap, uint64_t pc, uint64_t va, uint64_t pa,
		    unsigned source, uint16_t lat)
{
	struct pms_spe_record ld;

	memset(&ld, 0, sizeof(ld));
	ld.valid = PMS_SPE_R_PC | PMS_SPE_R_OP | PMS_SPE_R_EVENTS | PMS_SPE_R_TOTAL_LAT |
		   PMS_SPE_R_VADDR | PMS_SPE_R_PADDR | PMS_SPE_R_DATA_SOURCE;
	ld.pc = pc;
	ld.pc_ns = true;
	ld.op_class = PMS_SPE_OPC_LDST;
	ld.op_raw = 0x00; /* load, general-purpose register */
	ld.events = PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_RETIRED) |
		    PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_L1D_ACCESS) |
		    PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_TLB_ACCESS);
	if (source != 0x0)
		ld.events |= PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_L1D_REFILL);
	if (source == 0xe)
		ld.events |= PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_LLC_ACCESS) |
			     PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_LLC_MISS);
	ld.total_lat = lat;
	ld.vaddr = va;
	ld.paddr = pa;
	ld.paddr_ns = true;
	ld.data_source = source;
	ld.data_source_len = 1;
	int n = pms_spe_encode_record(&ld, out, cap);
	CHECK(n > 0);
	return n;
}

/* Hand len bytes to the AUX area and announce them (PERF_RECORD_AUX, the
 * task and CPU in its sample_id). */
static void spe_aux(struct fk *fk, int fd, const uint8_t *bytes, size_t len)
{
	struct pms_record rec;
	uint64_t off = 0;

	CHECK_EQ_INT(fk_aux_put(fk, fd, bytes, len, &off), 0);
	memset(&rec, 0, sizeof(rec));
	rec.type = PMS_RECORD_AUX;
	rec.aux.aux_offset = off;
	rec.aux.aux_size = len;
	rec.sample_id.pid = rec.sample_id.tid = 888;
	rec.sample_id.time = 10;
	rec.sample_id.cpu = 0;
	put_rec(fk, fd, &rec);
}

PMS_TEST(spe_aux_to_report)
{
	struct pipe p;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	uint8_t bytes[4096];
	size_t n = 0;
	/* the chase buffer's physical pages: node 0 (block 2) for the cache
	 * hits, node 1 (block 9) for the DRAM loads */
	const uint64_t pa0 = 2 * SPE_BLOCK, pa1 = 9 * SPE_BLOCK;

	memset(&p, 0, sizeof(p));
	if (th_root_open(&p.r, "neoverse-n1-spe", "0-3", -1, true) < 0)
		goto out;
	spe_two_nodes(&p.r);
	CHECK_OK(pms_topo_load(p.r.sys, &p.topo));
	if (!p.topo)
		goto out;
	CHECK_EQ_INT((int)pms_topo_node_count(p.topo), 2);
	p.r.m.spe_type = 9;
	p.r.m.spe_cpus = 0xf;
	o.target = PMS_TARGET_CPUS;
	o.aux_pages = 2;
	o.want_phys = true; /* pa_enable: the records carry their PA packets */
	/* System-wide: no process to ask, nodes come from physical addresses. */
	po.home_node = 0;
	po.home_start = BASE;
	po.home_end = BASE + 16 * 4096;
	if (pipe_open(&p, &o, PMS_ENG_SPE, &po) < 0)
		goto out;
	int fd = th_fd_of_type(p.r.fk, 9, 0);
	CHECK(fd >= 0);
	if (fd < 0)
		goto out;

	/* 20 chase loads by i % 4: DRAM (0xe, 300 + 10 * i / 4 cycles) on node
	 * 1, L2 (0x8, 20), L1 (0x0, 5) x2, all on node 0 but the DRAM ones;
	 * then 4 L1 loads (5 cycles) at the other function. */
	for (int i = 0; i < 24; i++) {
		unsigned src = i >= 20 ? 0x0 : i % 4 == 0 ? 0xe : i % 4 == 1 ? 0x8 : 0x0;
		uint16_t lat = (uint16_t)(src == 0xe ? 300 + 10 * (i / 4) : src == 0x8 ? 20 : 5);
		uint64_t off = (uint64_t)(i % 16) * 4096 + 8 * (uint64_t)i;
		n += (size_t)spe_load(bytes + n, sizeof(bytes) - n, i < 20 ? CHASE_IP : OTHER_IP,
				      BASE + off, (src == 0xe ? pa1 : pa0) + off, src, lat);
		if (i == 11) { /* two AUX chunks, two drains */
			spe_aux(p.r.fk, fd, bytes, n);
			pipe_drain(&p, 1);
			n = 0;
		}
	}
	spe_aux(p.r.fk, fd, bytes, n);
	pipe_drain(&p, 1);

	if (pipe_report(&p) < 0)
		goto out;
	const struct pms_memreport *rep = p.rep;
	CHECK_EQ_U64(rep->samples, 24);
	CHECK_EQ_U64(rep->stats.aux_decode_errors, 0);
	CHECK_EQ_U64(rep->with_data_src, 24);
	/* perf's text for arm_spe__synth_data_source_common's data_src */
	CHECK_EQ_U64(level(rep, "L1 hit"), 14);
	CHECK_EQ_U64(level(rep, "L2 hit"), 5);
	CHECK_EQ_U64(level(rep, "RAM hit"), 5);
	CHECK_EQ_U64(rep->nlevels, 3);
	/* total latency of every record: 5 x14, 20 x5, 300..340 by 10 */
	check_latency(rep, 24, 5, 5, 320, 340, 340);
	check_top_chase(rep, 20);
	/* every node from the physical address and the memory blocks, no
	 * oracle; CPU 0 is on node 0, so the DRAM loads are remote */
	CHECK_EQ_U64(rep->resolved, 24);
	CHECK_EQ_U64(rep->from_phys, 24);
	CHECK_EQ_U64(rep->on_home, 19);
	CHECK_EQ_U64(rep->elsewhere, 5);
	CHECK_EQ_U64(rep->unresolved, 0);
	CHECK_EQ_INT((int)rep->nnodes, 2);
	if (rep->nnodes == 2 && rep->matrix) {
		CHECK_EQ_U64(rep->matrix[0 * 2 + 0], 19);
		CHECK_EQ_U64(rep->matrix[0 * 2 + 1], 5);
		CHECK_EQ_U64(rep->matrix[1 * 2 + 0], 0);
		CHECK_EQ_U64(rep->matrix[1 * 2 + 1], 0);
	}
	CHECK_EQ_U64(rep->matrix_cpu_unknown, 0);
	if (rep->ntop_ips_samples >= 1) {
		CHECK_EQ_U64(rep->top_ips_samples[0].remote, 5);
		CHECK_EQ_U64(rep->top_ips_samples[0].on_home, 15);
	}
	/* The recorder writes the AUX trace (the samples have no record of
	 * their own): the file's report is the live one. */
	CHECK_EQ_U64(pipe_differential(&p), 24);
	CHECK_EQ_U64(pms_recorder_skipped(p.rec), p.rep->samples);
out:
	pipe_close(&p);
}

PMS_TEST_MAIN()
