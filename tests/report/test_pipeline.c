/* The whole `pmuscope mem` pipeline on the fake kernel: IBS op samples built
 * from op registers (data_src, weight and addresses as ibs.c computes them)
 * go into the ring of an IBS event the sampler opened, are drained through
 * the sampler's callbacks into the collector, their pages resolved by the
 * batched oracle (fake move_pages), and the report's numbers asserted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "../sample/sample_helpers.h"

#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/record.h"
#include "pmuscope/report.h"
#include "pmuscope/sampler.h"

/* IbsOpData3 / IbsOpCtl bits (arch/x86/include/asm/amd/ibs.h) */
#define D3_LDOP (1ULL << 0)
#define D3_DCMISS (1ULL << 7)
#define D3_LINVALID (1ULL << 17)
#define D3_PHYVALID (1ULL << 18)
#define D3_L2MISS (1ULL << 20)
#define OPCTL_VAL (1ULL << 18)
/* Zen 4 with the load-latency filter, as the sampler tests' fake machine */
#define CAPS ((1u << 11) | (1u << 12) | (1u << 0) | (1u << 2))

__attribute__((noinline)) uint64_t pms_t_pipe_chase(const uint64_t *w, uint64_t i, long n);
__attribute__((noinline)) uint64_t pms_t_pipe_chase(const uint64_t *w, uint64_t i, long n)
{
	while (n-- > 0)
		i = w[i];
	return i;
}

struct ctx {
	struct pms_memprof *prof;
	struct pms_numa_oracle *oracle;
};

static int on_sample(void *ud, const struct pms_memsample *s)
{
	return pms_memprof_add(((struct ctx *)ud)->prof, s);
}

static int on_side(void *ud, const struct pms_record *r)
{
	struct ctx *c = ud;
	return pms_memprof_sideband(c->prof, r, c->oracle);
}

/* One IBS op sample as the kernel would write it for these registers. */
static void put_ibs(struct fk *fk, int fd, const struct pms_ibs_op_regs *g, uint32_t tid)
{
	struct fk_fd *f = fk_fd(fk, fd);
	struct pms_sample_layout l;
	struct pms_ibs_cpu cpu = { 0x19, 0x61, CAPS };
	struct pms_ibs_op_sample d;
	struct pms_record r;
	unsigned char raw[60], buf[1024];
	uint64_t v[7] = { g->op_ctl, g->op_rip, g->op_data, g->op_data2,
			  g->op_data3, g->dc_lin_ad, g->dc_phys_ad };
	uint32_t caps = CAPS;
	size_t len = 0;

	pms_sample_layout_from_attr(&l, &f->attr);
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
	CHECK_OK(pms_record_encode(&l, &r, buf, sizeof(buf), &len));
	CHECK_EQ_INT(fk_ring_put(fk, fd, buf, len), 0);
}

#define BASE 0x7f3300000000ULL

PMS_TEST(ibs_ring_to_report)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_numa_oracle *oracle = NULL;
	struct pms_memprof *prof = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_sys *real = NULL;
	struct pms_maps *maps = NULL;
	struct pms_symbolizer *sym = NULL;

	if (th_root_open(&r, "zen4-ibs", "0", -1, true) < 0)
		return;
	r.m.ibs_op_type = 10;
	r.m.ibs_caps = CAPS;
	o.target = PMS_TARGET_PID;
	o.pid = 777;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	struct pms_sampler_info info;
	pms_sampler_info(s, &info);
	CHECK_EQ_INT(info.engine, PMS_ENG_IBS);
	if (info.engine != PMS_ENG_IBS) {
		size_t na = 0;
		const struct pms_sampler_attempt *a = pms_sampler_attempts(s, &na);
		for (size_t i = 0; i < na; i++)
			fprintf(stderr, "attempt %s err %d: %s\n", a[i].pmu, a[i].err, a[i].reason);
	}
	int fd = th_fd_of_type(r.fk, 10, 0);
	CHECK(fd >= 0);
	if (fd < 0)
		goto out;

	/* 16 pages of the chase buffer on node 0 */
	for (int p = 0; p < 16; p++)
		fk_set_page(r.fk, BASE + (uint64_t)p * 4096, 0);
	struct pms_numa_opts no = PMS_NUMA_OPTS_INIT;
	no.pid = 777;
	CHECK_OK(pms_numa_oracle_new(r.sys, NULL, &no, &oracle));
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.pid = 777;
	po.home_node = 0;
	po.home_start = BASE;
	po.home_end = BASE + 16 * 4096;
	CHECK_OK(pms_memprof_new(NULL, &po, &prof));
	struct ctx c = { prof, oracle };
	struct pms_sampler_callbacks cb = { on_sample, on_side };

	uint64_t chase_ip = (uint64_t)(uintptr_t)&pms_t_pipe_chase + 12;
	/* 30 chase loads: every third missed to local DRAM (DataSrc 3) with
	 * DcMissLat 400 + i, the rest hit L1; 5 ALU ops (no memory). */
	for (int i = 0; i < 35; i++) {
		struct pms_ibs_op_regs g = { 0 };
		g.op_ctl = OPCTL_VAL;
		if (i < 30) {
			g.op_rip = chase_ip;
			g.op_data3 = D3_LDOP | D3_LINVALID;
			g.dc_lin_ad = BASE + (uint64_t)(i % 16) * 4096 + 8 * (uint64_t)i;
			if (i % 3 == 0) {
				g.op_data2 = 3;
				g.op_data3 |= D3_DCMISS | D3_L2MISS | ((uint64_t)(400 + i) << 32);
			}
		} else {
			g.op_rip = 0x401c00;
		}
		put_ibs(r.fk, fd, &g, 777);
		if (i == 19) { /* a drain */
			CHECK_EQ_INT(pms_sampler_poll(s, 0, &cb, &c), 20);
			CHECK_OK(pms_memprof_resolve(prof, oracle));
		}
	}
	CHECK_EQ_INT(pms_sampler_poll(s, 0, &cb, &c), 15);
	CHECK_OK(pms_memprof_resolve(prof, oracle));
	/* the first drain saw all 16 pages; the second is answered from the cache */
	CHECK_EQ_INT((int)r.fk->move_pages_calls, 1);

	CHECK_OK(pms_sys_new(&real, NULL));
	CHECK_OK(pms_maps_new(&maps));
	CHECK_OK(pms_maps_read_proc(maps, real, getpid()));
	CHECK_OK(pms_symbolizer_new(real, maps, &sym));
	struct pms_sampler_stats st;
	struct pms_numa_stats nst;
	size_t natt = 0;
	const struct pms_sampler_attempt *att = pms_sampler_attempts(s, &natt);
	pms_sampler_stats(s, &st);
	pms_numa_oracle_stats(oracle, &nst);
	struct pms_memreport_input in = { .engine = info.engine, .pmus = info.pmus, .label = info.label,
					  .notes = info.notes, .data_src = info.data_src,
					  .attempts = att, .nattempts = natt, .stats = &st, .numa = &nst };
	CHECK_OK(pms_memprof_report(prof, sym, &in, &rep));
	if (!rep)
		goto out;
	CHECK_EQ_U64(rep->samples, 35);
	CHECK_EQ_U64(rep->stats.ibs_raw_mismatch, 0);
	CHECK(rep->data_src_available);
	CHECK(rep->nattempts >= 1);
	/* levels as perf prints the ibs.c data_src */
	uint64_t ram = 0, l1 = 0;
	for (size_t i = 0; i < rep->nlevels; i++) {
		if (!strcmp(rep->levels[i].name, "RAM hit"))
			ram = rep->levels[i].samples;
		if (!strcmp(rep->levels[i].name, "L1 hit"))
			l1 = rep->levels[i].samples;
	}
	CHECK_EQ_U64(ram, 10);
	CHECK_EQ_U64(l1, 20);
	/* DcMissLat of the 10 DRAM loads: 400, 403, ..., 427 */
	CHECK_EQ_U64(rep->latency.n, 10);
	CHECK_EQ_U64(rep->latency.min, 400);
	CHECK_EQ_U64(rep->latency.median, 412);
	CHECK_EQ_U64(rep->latency.p90, 424);
	CHECK_EQ_U64(rep->latency.p99, 427);
	CHECK_EQ_U64(rep->latency.max, 427);
	CHECK_EQ_U64(rep->resolved, 30);
	CHECK_EQ_U64(rep->on_home, 30);
	CHECK_EQ_U64(rep->no_addr, 5);
	CHECK_EQ_U64(rep->top_ips_samples[0].addr, chase_ip);
	CHECK_EQ_STR(rep->top_ips_samples[0].name, "pms_t_pipe_chase");
	CHECK_EQ_U64(rep->top_ips_latency[0].addr, chase_ip);
	CHECK_EQ_STR(rep->top_objects[0].kind, "workload");
	CHECK_EQ_U64(rep->top_objects[0].samples, 30);
out:
	pms_memreport_free(rep);
	pms_symbolizer_free(sym);
	pms_maps_free(maps);
	pms_sys_free(real);
	pms_memprof_free(prof);
	pms_numa_oracle_free(oracle);
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST_MAIN()
