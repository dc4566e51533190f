/* The sampler draining rings the fake kernel fills the way the real one
 * would: IBS samples built from the op registers (with the RAW payload),
 * PEBS samples with the data_src ds.c computes, side-band, LOST, THROTTLE,
 * wrap-around and AUX records. */
#include "check.h"
#include "sample_helpers.h"

#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/record.h"
#include "pmuscope/sampler.h"
#include "pmuscope/spe.h"

#include <errno.h>

#define MAXS 256

struct got {
	struct pms_memsample s[MAXS];
	int n;
	int comm, mmap2, fork, exit;
	char comm_name[32], mmap_file[64];
	int stop_at; /* return PMS_EBUSY from the stop_at-th sample (1-based) */
};

static int got_sample(void *ud, const struct pms_memsample *s)
{
	struct got *g = ud;
	if (g->n < MAXS)
		g->s[g->n] = *s;
	g->n++;
	if (g->stop_at && g->n == g->stop_at)
		return PMS_EBUSY;
	return 0;
}

static int got_side(void *ud, const struct pms_record *r)
{
	struct got *g = ud;
	switch (r->type) {
	case PMS_RECORD_COMM:
		g->comm++;
		snprintf(g->comm_name, sizeof(g->comm_name), "%s", r->comm.comm);
		break;
	case PMS_RECORD_MMAP2:
		g->mmap2++;
		snprintf(g->mmap_file, sizeof(g->mmap_file), "%s", r->mmap.filename);
		break;
	case PMS_RECORD_FORK: g->fork++; break;
	case PMS_RECORD_EXIT: g->exit++; break;
	}
	return 0;
}

static const struct pms_sampler_callbacks cbs = { got_sample, got_side };

/* Encode r under fd's attr and put it into fd's ring. */
static int put_rec(struct fk *fk, int fd, struct pms_record *r)
{
	struct fk_fd *f = fk_fd(fk, fd);
	struct pms_sample_layout l;
	unsigned char buf[1024];
	size_t len = 0;
	int ret;

	if (!f)
		return -EBADF;
	pms_sample_layout_from_attr(&l, &f->attr);
	ret = pms_record_encode(&l, r, buf, sizeof(buf), &len);
	CHECK_OK(ret);
	if (ret < 0)
		return ret;
	return fk_ring_put(fk, fd, buf, len);
}

static void sid(struct pms_record *r, uint32_t pid, uint64_t time, uint32_t cpu)
{
	r->sample_id.pid = pid;
	r->sample_id.tid = pid;
	r->sample_id.time = time;
	r->sample_id.cpu = cpu;
}

/* ---- IBS -------------------------------------------------------------------- */

#define D3_LDOP (1ULL << 0)
#define D3_STOP (1ULL << 1)
#define D3_L1TLBMISS (1ULL << 2)
#define D3_DCMISS (1ULL << 7)
#define D3_LINVALID (1ULL << 17)
#define D3_PHYVALID (1ULL << 18)
#define D3_L2MISS (1ULL << 20)
#define OPCTL_VAL (1ULL << 18)
#define IBS_CAPS_ZEN4_LDLAT ((1u << 11) | (1u << 12) | (1u << 0) | (1u << 2))

/* RAW payload as ibs.c perf_ibs_handle_irq writes it: u32 caps, then the 7
 * op MSRs (no BrTarget, no OpData4 for these caps). */
static void ibs_raw(const struct pms_ibs_op_regs *g, uint32_t caps, unsigned char out[60])
{
	uint64_t v[7] = { g->op_ctl, g->op_rip, g->op_data, g->op_data2,
			  g->op_data3, g->dc_lin_ad, g->dc_phys_ad };
	memcpy(out, &caps, 4);
	memcpy(out + 4, v, sizeof(v));
}

static void ibs_sample(struct fk *fk, int fd, const struct pms_ibs_op_regs *g, uint64_t data_src,
		       uint32_t var1, uint16_t var2, uint64_t addr, uint64_t phys, uint32_t tid)
{
	struct pms_record r;
	unsigned char raw[60];

	memset(&r, 0, sizeof(r));
	ibs_raw(g, IBS_CAPS_ZEN4_LDLAT, raw);
	r.type = PMS_RECORD_SAMPLE;
	r.sample.misc = PMS_MISC_USER | PMS_MISC_EXACT_IP;
	r.sample.ip = g->op_rip;
	r.sample.pid = tid;
	r.sample.tid = tid;
	r.sample.time = 1000 + tid;
	r.sample.addr = addr;
	r.sample.cpu = 0;
	r.sample.period = 0x10000;
	r.sample.raw = raw;
	r.sample.raw_size = sizeof(raw);
	r.sample.data_src = data_src;
	r.sample.weight = (uint64_t)var1 | (uint64_t)var2 << 32;
	r.sample.weight_var1_dw = var1;
	r.sample.weight_var2_w = var2;
	r.sample.phys_addr = phys;
	CHECK_EQ_INT(put_rec(fk, fd, &r), 0);
}

PMS_TEST(ibs_samples_field_by_field_with_raw_cross_check)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_stats st;
	struct got *g = calloc(1, sizeof(*g));
	int fd;

	if (th_root_open(&r, "zen4-ibs", "0", -1, true) < 0)
		goto out;
	r.m.ibs_op_type = 10;
	r.m.ibs_caps = IBS_CAPS_ZEN4_LDLAT;
	o.target = PMS_TARGET_CPUS;
	o.want_raw = true;
	o.want_phys = true;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	fd = th_fd_of_type(r.fk, 10, 0);
	CHECK(fd >= 0);
	CHECK(fk_fd(r.fk, fd)->attr.sample_type & PMS_SAMPLE_RAW);

	/* 1: Zen 4 load from remote DRAM (DataSrc 3 + RmtNode), L1 TLB miss /
	 * L2 TLB hit, DcMissLat 415, TagToRetCtr 37: kernel-abi-facts §3.3
	 * worked example 0x0000103a49082042. */
	struct pms_ibs_op_regs load = { 0 };
	load.op_ctl = OPCTL_VAL | (1ULL << 17) | 0x1000;
	load.op_rip = 0x401a2c;
	load.op_data = 37ULL << 16;
	load.op_data2 = 3 | (1 << 4);
	load.op_data3 = D3_LDOP | D3_L1TLBMISS | D3_DCMISS | D3_L2MISS | D3_LINVALID |
			D3_PHYVALID | (415ULL << 32);
	load.dc_lin_ad = 0x7f1234567890;
	load.dc_phys_ad = 0x2345678890;
	ibs_sample(r.fk, fd, &load, 0x0000103a49082042ULL, 415, 37, load.dc_lin_ad,
		   load.dc_phys_ad, 501);
	/* 2: store hitting L2: no weight (load-miss only), address valid;
	 * worked example 0x0000000429080444. */
	struct pms_ibs_op_regs store = { 0 };
	store.op_ctl = OPCTL_VAL;
	store.op_rip = 0x401b00;
	store.op_data3 = D3_STOP | D3_DCMISS | D3_LINVALID;
	store.dc_lin_ad = 0x7f0000002000;
	ibs_sample(r.fk, fd, &store, 0x0000000429080444ULL, 0, 0, store.dc_lin_ad, 0, 502);
	/* 3: the kernel's data_src disagrees with its own registers. */
	ibs_sample(r.fk, fd, &load, 0x0000000229080142ULL, 415, 37, load.dc_lin_ad,
		   load.dc_phys_ad, 503);
	/* 4: not a memory op: PERF_MEM_NA, no address. */
	struct pms_ibs_op_regs alu = { 0 };
	alu.op_ctl = OPCTL_VAL;
	alu.op_rip = 0x401c00;
	ibs_sample(r.fk, fd, &alu, PMS_MEM_NA_VALUE, 0, 0, 0, 0, 504);

	CHECK_EQ_INT(pms_sampler_poll(s, 0, &cbs, g), 4);
	CHECK_EQ_INT(g->n, 4);
	if (g->n == 4) {
		const struct pms_memsample *m = &g->s[0];
		CHECK_EQ_INT(m->engine, PMS_ENG_IBS);
		CHECK_EQ_U64(m->ip, 0x401a2c);
		CHECK(m->valid & PMS_MS_EXACT_IP);
		CHECK(!(m->valid & PMS_MS_KERNEL_IP));
		CHECK_EQ_INT(m->tid, 501);
		CHECK_EQ_U64(m->time, 1501);
		CHECK_EQ_U64(m->period, 0x10000);
		CHECK(m->valid & PMS_MS_DATA_SRC);
		CHECK_EQ_U64(m->data_src, 0x0000103a49082042ULL);
		{
			struct pms_datasrc d;
			pms_datasrc_unpack(m->data_src, &d);
			CHECK_EQ_INT(d.op, PMS_MEM_OP_LOAD);
			CHECK_EQ_INT(d.lvl_num, PMS_MEM_LVLNUM_RAM);
			CHECK_EQ_INT(d.remote, 1);
			CHECK_EQ_INT(d.hops, PMS_MEM_HOPS_1);
		}
		CHECK(m->valid & PMS_MS_WEIGHT);
		CHECK_EQ_U64(m->weight, 415);
		CHECK(m->valid & PMS_MS_INS_LAT);
		CHECK_EQ_INT(m->ins_lat, 37);
		CHECK(m->valid & PMS_MS_ADDR);
		CHECK_EQ_U64(m->addr, 0x7f1234567890);
		CHECK(m->valid & PMS_MS_PHYS);
		CHECK_EQ_U64(m->phys_addr, 0x2345678890);

		m = &g->s[1];
		CHECK_EQ_U64(m->data_src, 0x0000000429080444ULL);
		CHECK(!(m->valid & PMS_MS_WEIGHT));
		CHECK_EQ_U64(m->weight, 0);
		CHECK(m->valid & PMS_MS_ADDR);
		CHECK_EQ_U64(m->addr, 0x7f0000002000);
		CHECK(!(m->valid & PMS_MS_PHYS)); /* DcPhyAddrValid clear */

		m = &g->s[2]; /* delivered as the kernel said, but flagged */
		CHECK_EQ_U64(m->data_src, 0x0000000229080142ULL);

		m = &g->s[3];
		CHECK(!(m->valid & PMS_MS_DATA_SRC));
		CHECK(!(m->valid & PMS_MS_ADDR));
		CHECK(!(m->valid & PMS_MS_WEIGHT));
	}
	pms_sampler_stats(s, &st);
	CHECK_EQ_INT(st.ibs_raw_checked, 4);
	CHECK_EQ_INT(st.ibs_raw_mismatch, 1);
	CHECK_EQ_INT(st.samples, 4);
out:
	free(g);
	pms_sampler_free(s);
	th_root_close(&r);
}

/* ---- PEBS ------------------------------------------------------------------- */

PMS_TEST(pebs_load_latency_sample_and_aux_leader_dropped)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_stats st;
	struct got *g = calloc(1, sizeof(*g));
	uint64_t ds = 0;
	int lfd = -1, mfd = -1;

	if (th_root_open(&r, "adl-hybrid", "0", -1, true) < 0)
		goto out;
	r.m.npebs = 1;
	r.m.pebs[0] = (struct fkr_pebs_pmu){ .type = 4, .max_precise = 3, .pdir_mem = true,
					     .needs_loads_aux = true,
					     .loads_aux_config = 0x8203, .loads_config = 0x01cd };
	o.target = PMS_TARGET_CPUS;
	o.ops = PMS_SAMPLER_LOADS;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	for (int i = 0; i < FK_MAX_FDS; i++) {
		struct fk_fd *f = &r.fk->fds[i];
		if (f->used && f->attr.type == 4 && (f->attr.config & 0xffff) == 0x8203)
			lfd = FK_FD_BASE + i;
		if (f->used && f->attr.type == 4 && (f->attr.config & 0xffff) == 0x01cd)
			mfd = FK_FD_BASE + i;
	}
	CHECK(lfd >= 0 && mfd >= 0);
	/* ds.c load_latency_data on a Skylake-family table, dse 0x1 (L1 hit):
	 * kernel-abi-facts §5.3 worked example. */
	CHECK_OK(pms_pebs_data_src(PMS_PEBS_UARCH_SKL, PMS_PEBS_LOAD_LATENCY, 0x1, &ds));
	CHECK_EQ_U64(ds, 0x0000010268100142ULL);
	{
		struct pms_record rec;
		memset(&rec, 0, sizeof(rec));
		rec.type = PMS_RECORD_SAMPLE;
		rec.sample.misc = PMS_MISC_USER | PMS_MISC_EXACT_IP;
		rec.sample.ip = 0x4005d0;
		rec.sample.pid = rec.sample.tid = 900;
		rec.sample.time = 77;
		rec.sample.addr = 0x7ffd0000aa00;
		rec.sample.period = 10007;
		rec.sample.data_src = ds;
		/* adaptive PEBS: var1 = latency, var2 = instruction latency */
		rec.sample.weight_var1_dw = 31;
		rec.sample.weight_var2_w = 12;
		rec.sample.weight = 31 | (12ULL << 32);
		CHECK_EQ_INT(put_rec(r.fk, mfd, &rec), 0);
		/* the aux leader's own sample: not a memory sample */
		rec.sample.data_src = 0;
		CHECK_EQ_INT(put_rec(r.fk, lfd, &rec), 0);
	}
	CHECK_EQ_INT(pms_sampler_poll(s, 0, &cbs, g), 2);
	CHECK_EQ_INT(g->n, 1);
	if (g->n >= 1) {
		const struct pms_memsample *m = &g->s[0];
		CHECK_EQ_INT(m->engine, PMS_ENG_PEBS);
		CHECK_EQ_U64(m->data_src, 0x0000010268100142ULL);
		CHECK(m->valid & PMS_MS_DATA_SRC);
		CHECK_EQ_U64(m->weight, 31);
		CHECK_EQ_INT(m->ins_lat, 12);
		CHECK_EQ_U64(m->addr, 0x7ffd0000aa00);
		CHECK(m->valid & PMS_MS_ADDR);
		CHECK(m->valid & PMS_MS_EXACT_IP);
		CHECK(!(m->valid & PMS_MS_PHYS));
	}
	pms_sampler_stats(s, &st);
	CHECK_EQ_INT(st.samples_dropped, 1);
out:
	free(g);
	pms_sampler_free(s);
	th_root_close(&r);
}

/* A system-wide run leaves out the observer: samples of exclude_pid are
 * counted, not converted or delivered; the others go through. */
PMS_TEST(system_wide_excludes_the_observer)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_stats st;
	struct got *g = calloc(1, sizeof(*g));
	int mfd = -1;

	if (!g || th_root_open(&r, "adl-hybrid", "0", -1, true) < 0)
		goto out;
	r.m.npebs = 1;
	r.m.pebs[0] = (struct fkr_pebs_pmu){ .type = 4, .max_precise = 3, .pdir_mem = true,
					     .needs_loads_aux = true,
					     .loads_aux_config = 0x8203, .loads_config = 0x01cd };
	o.target = PMS_TARGET_CPUS;
	o.ops = PMS_SAMPLER_LOADS;
	o.exclude_pid = 4242;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	for (int i = 0; i < FK_MAX_FDS; i++) {
		struct fk_fd *f = &r.fk->fds[i];
		if (f->used && f->attr.type == 4 && (f->attr.config & 0xffff) == 0x01cd)
			mfd = FK_FD_BASE + i;
	}
	CHECK(mfd >= 0);
	for (uint32_t pid = 4241; pid <= 4243; pid++) {
		struct pms_record rec;
		memset(&rec, 0, sizeof(rec));
		rec.type = PMS_RECORD_SAMPLE;
		rec.sample.misc = PMS_MISC_USER | PMS_MISC_EXACT_IP;
		rec.sample.ip = 0x4005d0;
		rec.sample.pid = rec.sample.tid = pid;
		rec.sample.addr = 0x7ffd0000aa00;
		rec.sample.period = 10007;
		rec.sample.data_src = 0x0000010268100142ULL;
		CHECK_EQ_INT(put_rec(r.fk, mfd, &rec), 0);
	}
	CHECK_EQ_INT(pms_sampler_poll(s, 0, &cbs, g), 3);
	CHECK_EQ_INT(g->n, 2);
	for (int i = 0; i < g->n && i < 2; i++)
		CHECK(g->s[i].pid != 4242);
	pms_sampler_stats(s, &st);
	CHECK_EQ_U64(st.samples_excluded, 1);
	CHECK_EQ_U64(st.samples, 2);
	CHECK_EQ_U64(st.samples_dropped, 0);
out:
	free(g);
	pms_sampler_free(s);
	th_root_close(&r);
}

/* ---- ring events: side-band, LOST, THROTTLE, wrap --------------------------- */

PMS_TEST(sideband_lost_throttle_and_wrap)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_stats st;
	struct got *g = calloc(1, sizeof(*g));
	int fd, put = 0, full = 0;

	if (th_root_open(&r, "vm-nopmu", "0", 2, true) < 0)
		goto out;
	o.pid = 1234;
	o.data_pages = 1; /* 4 KiB: wraps quickly */
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	fd = th_fd_of_type(r.fk, PERF_TYPE_SOFTWARE, 0);
	CHECK(fd >= 0);
	CHECK_EQ_INT(fk_fd(r.fk, fd)->attr.comm, 1);
	{
		struct pms_record rec;
		memset(&rec, 0, sizeof(rec));
		rec.type = PMS_RECORD_COMM;
		rec.misc = PMS_MISC_COMM_EXEC;
		rec.comm.pid = rec.comm.tid = 1234;
		rec.comm.comm = "touch_pages";
		sid(&rec, 1234, 5, 0);
		CHECK_EQ_INT(put_rec(r.fk, fd, &rec), 0);
		memset(&rec, 0, sizeof(rec));
		rec.type = PMS_RECORD_MMAP2;
		rec.misc = PMS_MISC_USER | PMS_MISC_MMAP_DATA;
		rec.mmap.pid = rec.mmap.tid = 1234;
		rec.mmap.addr = 0x7f0000000000;
		rec.mmap.len = 1 << 20;
		rec.mmap.prot = 3;
		rec.mmap.filename = "//anon";
		sid(&rec, 1234, 6, 0);
		CHECK_EQ_INT(put_rec(r.fk, fd, &rec), 0);
		memset(&rec, 0, sizeof(rec));
		rec.type = PMS_RECORD_FORK;
		rec.fork.pid = 1235;
		rec.fork.ppid = 1234;
		rec.fork.tid = 1235;
		rec.fork.ptid = 1234;
		sid(&rec, 1235, 7, 0);
		CHECK_EQ_INT(put_rec(r.fk, fd, &rec), 0);
	}
	/* Page-fault samples until the 4 KiB ring is full. */
	for (int round = 0; round < 3; round++) {
		for (;;) {
			struct pms_record rec;
			memset(&rec, 0, sizeof(rec));
			rec.type = PMS_RECORD_SAMPLE;
			rec.sample.misc = PMS_MISC_USER;
			rec.sample.ip = 0x401000 + (uint64_t)put;
			rec.sample.pid = rec.sample.tid = 1234;
			rec.sample.time = 100 + (uint64_t)put;
			rec.sample.addr = 0x7f0000000000 + 4096 * (uint64_t)put;
			rec.sample.period = 1;
			if (put_rec(r.fk, fd, &rec) == -ENOSPC) {
				full++;
				break;
			}
			put++;
		}
		/* The kernel counts what did not fit and says so with LOST once
		 * there is room (kernel/events/ring_buffer.c perf_output_begin). */
		CHECK(pms_sampler_poll(s, 0, &cbs, g) > 0);
		{
			struct pms_record rec;
			memset(&rec, 0, sizeof(rec));
			rec.type = PMS_RECORD_LOST;
			rec.lost.id = 1;
			rec.lost.lost = 5;
			sid(&rec, 1234, 1000, 0);
			CHECK_EQ_INT(put_rec(r.fk, fd, &rec), 0);
		}
	}
	{
		struct pms_record rec;
		memset(&rec, 0, sizeof(rec));
		rec.type = PMS_RECORD_THROTTLE;
		rec.throttle.time = 2000;
		sid(&rec, 1234, 2000, 0);
		CHECK_EQ_INT(put_rec(r.fk, fd, &rec), 0);
		rec.type = PMS_RECORD_UNTHROTTLE;
		CHECK_EQ_INT(put_rec(r.fk, fd, &rec), 0);
		memset(&rec, 0, sizeof(rec));
		rec.type = PMS_RECORD_LOST_SAMPLES;
		rec.lost.lost = 3;
		sid(&rec, 1234, 2001, 0);
		CHECK_EQ_INT(put_rec(r.fk, fd, &rec), 0);
		memset(&rec, 0, sizeof(rec));
		rec.type = PMS_RECORD_EXIT;
		rec.fork.pid = rec.fork.tid = 1235;
		rec.fork.ppid = rec.fork.ptid = 1234;
		sid(&rec, 1235, 2002, 0);
		CHECK_EQ_INT(put_rec(r.fk, fd, &rec), 0);
	}
	CHECK(pms_sampler_poll(s, 0, &cbs, g) > 0);
	pms_sampler_stats(s, &st);
	CHECK_EQ_INT(full, 3);
	CHECK_EQ_INT(g->n, put);
	CHECK_EQ_INT(st.samples, (uint64_t)put);
	CHECK(st.wrapped >= 1);
	CHECK_EQ_INT(st.lost_records, 3);
	CHECK_EQ_INT(st.lost, 15);
	CHECK_EQ_INT(st.lost_samples, 3);
	CHECK_EQ_INT(st.throttle, 1);
	CHECK_EQ_INT(st.unthrottle, 1);
	CHECK_EQ_INT(st.sideband, 4);
	CHECK_EQ_INT(st.corrupt_bytes, 0);
	CHECK_EQ_INT(st.parse_errors, 0);
	CHECK_EQ_INT(g->comm, 1);
	CHECK_EQ_STR(g->comm_name, "touch_pages");
	CHECK_EQ_INT(g->mmap2, 1);
	CHECK_EQ_STR(g->mmap_file, "//anon");
	CHECK_EQ_INT(g->fork, 1);
	CHECK_EQ_INT(g->exit, 1);
	/* Fallback samples: address valid, no data source, no weight. */
	if (g->n > 10) {
		const struct pms_memsample *m = &g->s[10];
		CHECK_EQ_INT(m->engine, PMS_ENG_SOFTWARE);
		CHECK(m->valid & PMS_MS_ADDR);
		CHECK_EQ_U64(m->addr, 0x7f0000000000 + 4096 * 10);
		CHECK(!(m->valid & (PMS_MS_DATA_SRC | PMS_MS_WEIGHT | PMS_MS_EXACT_IP)));
		CHECK_EQ_U64(m->ip, 0x401000 + 10);
	}
out:
	free(g);
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST(callback_stop_consumes_only_what_it_saw)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct got *g = calloc(1, sizeof(*g));
	int fd;

	if (th_root_open(&r, "vm-nopmu", "0", 2, true) < 0)
		goto out;
	o.pid = 1234;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	fd = th_fd_of_type(r.fk, PERF_TYPE_SOFTWARE, 0);
	for (int i = 0; i < 5; i++) {
		struct pms_record rec;
		memset(&rec, 0, sizeof(rec));
		rec.type = PMS_RECORD_SAMPLE;
		rec.sample.addr = 0x1000 * (uint64_t)(i + 1);
		CHECK_EQ_INT(put_rec(r.fk, fd, &rec), 0);
	}
	g->stop_at = 2;
	CHECK_EQ_INT(pms_sampler_poll(s, 0, &cbs, g), PMS_EBUSY);
	CHECK_EQ_INT(g->n, 2);
	g->stop_at = 0;
	CHECK_EQ_INT(pms_sampler_poll(s, 0, &cbs, g), 3);
	CHECK_EQ_INT(g->n, 5);
	if (g->n == 5)
		for (int i = 0; i < 5; i++)
			CHECK_EQ_U64(g->s[i].addr, 0x1000 * (uint64_t)(i + 1));
out:
	free(g);
	pms_sampler_free(s);
	th_root_close(&r);
}

/* ---- SPE AUX plumbing ---------------------------------------------------------- */

PMS_TEST(spe_aux_records_flags_and_truncation)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_stats st;
	struct got *g = calloc(1, sizeof(*g));
	unsigned char bytes[6000];
	uint64_t off = 0;
	int fd;

	if (th_root_open(&r, "neoverse-n1-spe", "0", -1, true) < 0)
		goto out;
	r.m.spe_type = 9;
	r.m.spe_cpus = 0xf;
	o.target = PMS_TARGET_CPUS;
	o.aux_pages = 2;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	fd = th_fd_of_type(r.fk, 9, 0);
	CHECK(fd >= 0);
	memset(bytes, 0, sizeof(bytes)); /* SPE padding: no records */
	CHECK_EQ_INT(fk_aux_put(r.fk, fd, bytes, sizeof(bytes), &off), 0);
	{
		struct pms_record rec;
		memset(&rec, 0, sizeof(rec));
		rec.type = PMS_RECORD_AUX;
		rec.aux.aux_offset = off;
		rec.aux.aux_size = sizeof(bytes);
		sid(&rec, 1, 10, 0);
		CHECK_EQ_INT(put_rec(r.fk, fd, &rec), 0);
	}
	CHECK_EQ_INT(pms_sampler_poll(s, 0, &cbs, g), 1);
	/* The second chunk wraps the 8 KiB area and the kernel flags it. */
	CHECK_EQ_INT(fk_aux_put(r.fk, fd, bytes, 4000, &off), 0);
	{
		struct pms_record rec;
		memset(&rec, 0, sizeof(rec));
		rec.type = PMS_RECORD_AUX;
		rec.aux.aux_offset = off;
		rec.aux.aux_size = 4000;
		rec.aux.flags = PMS_AUX_FLAG_TRUNCATED | PMS_AUX_FLAG_COLLISION;
		sid(&rec, 1, 11, 0);
		CHECK_EQ_INT(put_rec(r.fk, fd, &rec), 0);
		/* A record naming bytes past aux_head (a truncated stream). */
		rec.aux.aux_offset = off + 4000;
		rec.aux.aux_size = 512;
		rec.aux.flags = PMS_AUX_FLAG_PARTIAL;
		CHECK_EQ_INT(put_rec(r.fk, fd, &rec), 0);
	}
	CHECK_EQ_INT(pms_sampler_poll(s, 0, &cbs, g), 2);
	pms_sampler_stats(s, &st);
	CHECK_EQ_INT(st.aux_records, 3);
	CHECK_EQ_INT(st.aux_bytes, 10000);
	CHECK_EQ_INT(st.aux_truncated, 1);
	CHECK_EQ_INT(st.aux_collision, 1);
	CHECK_EQ_INT(st.aux_partial, 1);
	CHECK_EQ_INT(st.aux_decode_errors, 1);
	{
		struct perf_event_mmap_page *pg = fk_fd(r.fk, fd)->map;
		CHECK_EQ_U64(pg->aux_tail, 10000);
		CHECK_EQ_U64(pg->aux_offset, 4096 * (1 + 128)); /* default ring: 512 KiB */
		CHECK_EQ_U64(pg->aux_size, 8192);
	}
out:
	free(g);
	pms_sampler_free(s);
	th_root_close(&r);
}

/* Two SPE records (a Neoverse N1 DRAM load and a store) in the AUX area, the
 * store cut across two AUX chunks. */
static size_t spe_records(uint8_t *out, size_t cap, size_t *first_len)
{
	struct pms_spe_record ld, st;
	int n1, n2;

	memset(&ld, 0, sizeof(ld));
	ld.valid = PMS_SPE_R_PC | PMS_SPE_R_OP | PMS_SPE_R_EVENTS | PMS_SPE_R_TOTAL_LAT |
		   PMS_SPE_R_VADDR | PMS_SPE_R_PADDR | PMS_SPE_R_DATA_SOURCE |
		   PMS_SPE_R_TIMESTAMP;
	ld.pc = 0xaaaa00401000ULL;
	ld.pc_ns = true;
	ld.op_class = PMS_SPE_OPC_LDST;
	ld.op_raw = 0x00; /* load, general-purpose register */
	ld.events = PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_RETIRED) |
		    PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_L1D_ACCESS) |
		    PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_L1D_REFILL) |
		    PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_TLB_ACCESS) |
		    PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_LLC_ACCESS) |
		    PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_LLC_MISS);
	ld.total_lat = 500;
	ld.vaddr = 0xaaaa12345678ULL;
	ld.paddr = 0x812345678ULL;
	ld.paddr_ns = true;
	ld.data_source = 0xe; /* DRAM on the Neoverse common table */
	ld.data_source_len = 1;
	ld.timestamp = 1000000;
	memset(&st, 0, sizeof(st));
	st.valid = PMS_SPE_R_PC | PMS_SPE_R_OP | PMS_SPE_R_EVENTS | PMS_SPE_R_TOTAL_LAT |
		   PMS_SPE_R_VADDR;
	st.pc = 0xaaaa00401040ULL;
	st.pc_ns = true;
	st.op_class = PMS_SPE_OPC_LDST;
	st.op_raw = 0x01; /* store, general-purpose register */
	st.events = PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_RETIRED) |
		    PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_L1D_ACCESS);
	st.total_lat = 8;
	st.vaddr = 0xaaaa12346000ULL;
	n1 = pms_spe_encode_record(&ld, out, cap);
	CHECK(n1 > 0);
	n2 = pms_spe_encode_record(&st, out + n1, cap - (size_t)n1);
	CHECK(n2 > 0);
	*first_len = (size_t)n1;
	return (size_t)(n1 + n2);
}

static void aux_rec(struct fk *fk, int fd, uint64_t off, uint64_t size)
{
	struct pms_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.type = PMS_RECORD_AUX;
	rec.aux.aux_offset = off;
	rec.aux.aux_size = size;
	sid(&rec, 1, 10, 0);
	CHECK_EQ_INT(put_rec(fk, fd, &rec), 0);
}

PMS_TEST(spe_records_decoded_across_aux_chunks)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_stats st;
	struct got *g = calloc(1, sizeof(*g));
	uint8_t bytes[256];
	size_t n, first, cut;
	uint64_t off = 0;
	int fd;

	if (th_root_open(&r, "neoverse-n1-spe", "0", -1, true) < 0)
		goto out;
	r.m.spe_type = 9;
	r.m.spe_cpus = 0xf;
	o.target = PMS_TARGET_CPUS;
	o.aux_pages = 2;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	fd = th_fd_of_type(r.fk, 9, 0);
	CHECK(fd >= 0);
	{
		/* perf time = time_zero + ticks * mult >> shift (user page). */
		struct perf_event_mmap_page *pg = fk_fd(r.fk, fd)->map;
		pg->capabilities |= 1ULL << 4; /* cap_user_time_zero */
		pg->time_zero = 5000;
		pg->time_mult = 3;
		pg->time_shift = 1;
	}
	n = spe_records(bytes, sizeof(bytes), &first);
	cut = first + 7; /* inside the store record */
	CHECK_EQ_INT(fk_aux_put(r.fk, fd, bytes, cut, &off), 0);
	aux_rec(r.fk, fd, off, cut);
	CHECK_EQ_INT(pms_sampler_poll(s, 0, &cbs, g), 1);
	CHECK_EQ_INT(g->n, 1);
	CHECK_EQ_INT(fk_aux_put(r.fk, fd, bytes + cut, n - cut, &off), 0);
	aux_rec(r.fk, fd, off, n - cut);
	CHECK_EQ_INT(pms_sampler_poll(s, 0, &cbs, g), 1);
	CHECK_EQ_INT(g->n, 2);
	if (g->n == 2) {
		const struct pms_memsample *m = &g->s[0];
		CHECK_EQ_INT(m->engine, PMS_ENG_SPE);
		CHECK_EQ_U64(m->ip, 0xaaaa00401000ULL);
		CHECK(m->valid & PMS_MS_EXACT_IP);
		CHECK_EQ_U64(m->addr, 0xaaaa12345678ULL);
		CHECK(m->valid & PMS_MS_PHYS);
		CHECK_EQ_U64(m->phys_addr, 0x812345678ULL);
		CHECK(m->valid & PMS_MS_WEIGHT);
		CHECK_EQ_U64(m->weight, 500);
		/* kernel-abi-facts §4.4: "SPE common load src=0xe DRAM, TLB-access";
		 * the N1 MIDR came from the fixture's cpu0/regs/identification. */
		CHECK(m->valid & PMS_MS_DATA_SRC);
		CHECK_EQ_U64(m->data_src, 0x0000001a88101042ULL);
		CHECK(m->valid & PMS_MS_TIME);
		CHECK_EQ_U64(m->time, 5000 + (1000000ULL * 3 >> 1));
		CHECK(m->valid & PMS_MS_CPU);
		CHECK_EQ_INT(m->cpu, 0);
		CHECK_EQ_U64(m->period, 4096);
		/* The task from the AUX record's sample_id (sid(): pid = tid = 1). */
		CHECK(m->valid & PMS_MS_TID);
		CHECK_EQ_INT(m->pid, 1);
		CHECK_EQ_INT(m->tid, 1);
		m = &g->s[1];
		CHECK_EQ_U64(m->ip, 0xaaaa00401040ULL);
		CHECK_EQ_U64(m->addr, 0xaaaa12346000ULL);
		CHECK(!(m->valid & PMS_MS_PHYS));
		CHECK(!(m->valid & PMS_MS_TIME)); /* END-terminated: no timestamp */
		CHECK_EQ_U64(m->weight, 8);
		{
			struct pms_datasrc d;
			pms_datasrc_unpack(m->data_src, &d);
			CHECK_EQ_INT(d.op, PMS_MEM_OP_STORE);
		}
	}
	/* Both records in one chunk, the callback stops after the first: the
	 * second comes on the next poll without new AUX data. */
	CHECK_EQ_INT(fk_aux_put(r.fk, fd, bytes, n, &off), 0);
	aux_rec(r.fk, fd, off, n);
	g->stop_at = 3;
	CHECK_EQ_INT(pms_sampler_poll(s, 0, &cbs, g), PMS_EBUSY);
	CHECK_EQ_INT(g->n, 3);
	g->stop_at = 0;
	CHECK(pms_sampler_poll(s, 0, &cbs, g) >= 0);
	CHECK_EQ_INT(g->n, 4);
	if (g->n == 4)
		CHECK_EQ_U64(g->s[3].addr, 0xaaaa12346000ULL);
	pms_sampler_stats(s, &st);
	CHECK_EQ_INT(st.samples, 4);
	CHECK_EQ_INT(st.aux_decode_errors, 0);
	CHECK_EQ_INT(st.aux_bytes, 2 * n);
	CHECK_EQ_INT(st.aux_overrun, 0);
out:
	free(g);
	pms_sampler_free(s);
	th_root_close(&r);
}

/* AMD precise events forwarded to IBS (issue 31 row 1): cycles:pp on the
 * Zen 4 fixture keeps its core attr (PERF_TYPE_HARDWARE, precise_ip 2, as
 * perf opens it); the fake kernel forwards it as amd_pmu_hw_config ->
 * forward_event_to_ibs do (ibs.c v7.1-rc6 :240-258; fake_rules_ibs.c
 * fkr_amd_precise) and applies perf_ibs_init; the samples that come back
 * are IBS-shaped (exact IP, RAW op registers, ADDR/DATA_SRC/WEIGHT from
 * perf_ibs_parse_ld_st_data) and are decoded as IBS memory samples. */
PMS_TEST(amd_precise_cycles_forwarded_to_ibs_decoded_as_ibs)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_info info;
	struct pms_sampler_stats st;
	struct got *g = calloc(1, sizeof(*g));
	int fd;

	if (th_root_open(&r, "zen4-ibs", "0", -1, true) < 0)
		goto out;
	r.m.ibs_op_type = 10;
	r.m.ibs_caps = IBS_CAPS_ZEN4_LDLAT;
	o.target = PMS_TARGET_CPUS;
	o.event = "cycles:ppH"; /* H: exclude_guest, which perf 6.12 sets for every :p */
	o.period = 0x10000;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	pms_sampler_info(s, &info);
	CHECK_EQ_INT(info.engine, PMS_ENG_IBS);
	CHECK_MSG(strstr(info.label, "forwards AMD precise events to ibs_op") != NULL, "%s",
		  info.label);
	CHECK(strstr(info.notes, "cycles:ppH is forwarded by the kernel to ibs_op") != NULL);
	/* perf_ibs_init refused exclude_guest (EINVAL); retried without it
	 * as perf's evsel__detect_missing_features does */
	size_t na = 0, refused = 0, retried = 0;
	const struct pms_sampler_attempt *at = pms_sampler_attempts(s, &na);
	for (size_t i = 0; i < na; i++) {
		refused += at[i].err == EINVAL;
		retried += at[i].err == 0 && strstr(at[i].reason, "exclude_guest") != NULL;
	}
	CHECK_EQ_INT(refused, 1);
	CHECK_EQ_INT(retried, 1);
	fd = th_fd_of_type(r.fk, PERF_TYPE_HARDWARE, 0);
	CHECK(fd >= 0);
	if (fd < 0)
		goto out;
	const struct perf_event_attr *a = &fk_fd(r.fk, fd)->attr;
	CHECK_EQ_INT(a->precise_ip, 2);
	CHECK_EQ_U64(a->config, PERF_COUNT_HW_CPU_CYCLES);
	CHECK_EQ_INT(a->exclude_guest, 0);
	CHECK(a->sample_type & PMS_SAMPLE_RAW);
	CHECK(a->sample_type & PMS_SAMPLE_DATA_SRC);
	CHECK(th_fd_of_type(r.fk, 10, 0) < 0); /* opened as the core event, not as ibs_op */

	struct pms_ibs_op_regs load = { 0 };
	load.op_ctl = OPCTL_VAL | (1ULL << 17) | 0x1000;
	load.op_rip = 0x401a2c;
	load.op_data = 37ULL << 16;
	load.op_data2 = 3 | (1 << 4);
	load.op_data3 = D3_LDOP | D3_L1TLBMISS | D3_DCMISS | D3_L2MISS | D3_LINVALID |
			D3_PHYVALID | (415ULL << 32);
	load.dc_lin_ad = 0x7f1234567890;
	load.dc_phys_ad = 0x2345678890;
	ibs_sample(r.fk, fd, &load, 0x0000103a49082042ULL, 415, 37, load.dc_lin_ad, 0, 601);
	CHECK_EQ_INT(pms_sampler_poll(s, 0, &cbs, g), 1);
	if (g->n == 1) {
		const struct pms_memsample *m = &g->s[0];
		CHECK_EQ_INT(m->engine, PMS_ENG_IBS);
		CHECK(m->valid & PMS_MS_EXACT_IP);
		CHECK_EQ_U64(m->data_src, 0x0000103a49082042ULL);
		CHECK_EQ_U64(m->addr, 0x7f1234567890);
		CHECK_EQ_U64(m->weight, 415);
		CHECK_EQ_INT(m->ins_lat, 37);
	}
	pms_sampler_stats(s, &st);
	CHECK_EQ_INT(st.ibs_raw_checked, 1);
	CHECK_EQ_INT(st.ibs_raw_mismatch, 0);
	pms_sampler_free(s);
	s = NULL;

	/* cycles:ppp: forward_event_to_ibs says EOPNOTSUPP; instructions:pp:
	 * perf_ibs_precise_event has no form, ENOENT.  Both said, neither
	 * decoded as IBS. */
	static const struct {
		const char *ev;
		int err;
	} refused_cases[] = { { "cycles:ppp", EOPNOTSUPP }, { "instructions:pp", ENOENT } };
	for (size_t k = 0; k < 2; k++) {
		o.event = refused_cases[k].ev;
		CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
		if (!s)
			continue;
		pms_sampler_info(s, &info);
		CHECK_MSG(strstr(info.notes, "the kernel will refuse it on this AMD machine") != NULL,
			  "%s", info.notes);
		CHECK(strstr(info.label, "ibs_op") == NULL);
		at = pms_sampler_attempts(s, &na);
		CHECK(na >= 1 && at[0].err == refused_cases[k].err);
		pms_sampler_free(s);
		s = NULL;
	}
out:
	free(g);
	pms_sampler_free(s);
	th_root_close(&r);
}

/* Issue 31 row 1, user-only: `cycles:ppu` on the Zen 4 fixture (no BIT63
 * filtering).  The forwarded attr meets perf_ibs_init with exclude_kernel and
 * perf's exclude_hv: EINVAL without swfilt (ibs.c perf_ibs_init; seed 000
 * E2, v7.1-rc6 :346-370; the fake's fkr_amd_precise -> fkr_ibs_op), so the
 * sampler retries with config2:0 (ibs_op's swfilt term) and exclude_hv
 * clear, still as the core attr; the engine line says the forward. */
PMS_TEST(amd_precise_user_only_forwarded_through_swfilt)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_info info;
	size_t na = 0, refused = 0, swfilt = 0;
	int fd;

	if (th_root_open(&r, "zen4-ibs", "0", -1, true) < 0)
		goto out;
	r.m.ibs_op_type = 10;
	r.m.ibs_caps = IBS_CAPS_ZEN4_LDLAT;
	o.target = PMS_TARGET_CPUS;
	o.event = "cycles:ppu";
	o.period = 0x10000;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	pms_sampler_info(s, &info);
	CHECK_EQ_INT(info.engine, PMS_ENG_IBS);
	CHECK_MSG(strstr(info.label, "forwards AMD precise events to ibs_op") != NULL, "%s",
		  info.label);
	const struct pms_sampler_attempt *at = pms_sampler_attempts(s, &na);
	for (size_t i = 0; i < na; i++) {
		refused += at[i].err == EINVAL;
		swfilt += at[i].err == 0 && strstr(at[i].reason, "swfilt") != NULL;
	}
	CHECK(refused >= 1);
	CHECK_EQ_INT(swfilt, 1);
	fd = th_fd_of_type(r.fk, PERF_TYPE_HARDWARE, 0);
	CHECK(fd >= 0);
	if (fd >= 0) {
		const struct perf_event_attr *a = &fk_fd(r.fk, fd)->attr;
		CHECK_EQ_INT(a->precise_ip, 2);
		CHECK_EQ_INT(a->exclude_kernel, 1);
		CHECK_EQ_INT(a->exclude_hv, 0);
		CHECK_EQ_U64(a->config2 & 1, 1);
		/* the fake kernel's forward accepts exactly this attr */
		CHECK_EQ_INT(fkr_amd_precise(&r.m, a), 0);
		struct perf_event_attr bare = *a;
		bare.config2 = 0;
		CHECK_EQ_INT(fkr_amd_precise(&r.m, &bare), -EINVAL);
	}
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST_MAIN()
