/* Call paths on the sampler's events, on the fake kernel: the attr bits of
 * -g and --call-graph dwarf per engine, the kernel's refusals (stack size,
 * register mask, max_stack), and the frames a memory-sample source gives
 * for a callchain record. */
#include "check.h"
#include "sample_helpers.h"

#include "pmuscope/error.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/record.h"
#include "pmuscope/sampler.h"

#include <errno.h>

#define ZEN4_CAPS ((1u << 0) | (1u << 2) | (1u << 4) | (1u << 6) | (1u << 11) | (1u << 12))

/* The last open fd of a type whose events deliver samples with a callchain. */
static int fd_with_chain(struct fk *fk, uint32_t type)
{
	int found = -1;
	for (int i = 0;; i++) {
		int fd = th_fd_of_type(fk, type, i);
		if (fd < 0)
			break;
		if (fk_fd(fk, fd)->attr.sample_type & PMS_SAMPLE_CALLCHAIN)
			found = fd;
	}
	return found;
}

PMS_TEST(fp_on_ibs_and_software)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_info info;

	if (th_root_open(&r, "zen4-ibs", "0-1", -1, true) < 0)
		goto out;
	r.m.ibs_op_type = 10;
	r.m.ibs_caps = ZEN4_CAPS;
	o.pid = 77;
	o.callgraph = PMS_CALLGRAPH_FP;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	int fd = fd_with_chain(r.fk, 10);
	CHECK(fd >= 0);
	if (fd >= 0) {
		const struct perf_event_attr *a = &fk_fd(r.fk, fd)->attr;
		CHECK(!(a->sample_type & PMS_SAMPLE_REGS_USER));
		CHECK(!(a->sample_type & PMS_SAMPLE_STACK_USER));
		CHECK_EQ_INT(a->exclude_callchain_user, 0);
		CHECK_EQ_INT(a->sample_max_stack, 0);
	}
	pms_sampler_info(s, &info);
	/* ibs.c perf_ibs_handle_irq walks the interrupt registers */
	CHECK(strstr(info.notes, "IBS call paths start at the interrupted instruction") != NULL);
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST(dwarf_attr_and_refusals)
{
#if !defined(__x86_64__)
	PMS_SKIP("the fake kernel's register rule is x86-64's");
#else
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;

	if (th_root_open(&r, "vm-nopmu", "0-1", 2, true) < 0)
		goto out;
	o.pid = 5;
	o.callgraph = PMS_CALLGRAPH_DWARF;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	int fd = fd_with_chain(r.fk, PERF_TYPE_SOFTWARE);
	CHECK(fd >= 0);
	if (fd >= 0) {
		const struct perf_event_attr *a = &fk_fd(r.fk, fd)->attr;
		CHECK(a->sample_type & PMS_SAMPLE_REGS_USER);
		CHECK(a->sample_type & PMS_SAMPLE_STACK_USER);
		CHECK_EQ_U64(a->sample_stack_user, PMS_CALLGRAPH_DWARF_DEFAULT);
		CHECK_EQ_U64(a->sample_regs_user, ((1ULL << 24) - 1) & ~(0xfULL << 12));
		CHECK_EQ_INT(a->exclude_callchain_user, 1); /* the unwind gives the user part */
	}
	pms_sampler_free(s);
	s = NULL;
	/* not a multiple of 8: refused before any open, with the reason */
	o.stack_size = 4100;
	CHECK_EQ_INT(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "multiple of 8") != NULL);
	/* frames beyond the sysctl: the kernel says EOVERFLOW */
	o.stack_size = 0;
	o.callgraph = PMS_CALLGRAPH_FP;
	o.max_stack = 200;
	CHECK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s) < 0);
	CHECK(s == NULL);
	r.m.max_stack = 256;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	/* a version 1 caller never asks for call paths */
	pms_sampler_free(s);
	s = NULL;
	o.version = 1;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	CHECK(th_fd_of_type(r.fk, PERF_TYPE_SOFTWARE, 0) >= 0);
	CHECK_EQ_INT(fd_with_chain(r.fk, PERF_TYPE_SOFTWARE), -1);
out:
	pms_sampler_free(s);
	th_root_close(&r);
#endif
}

PMS_TEST(spe_gets_no_callchain)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_info info;

	if (th_root_open(&r, "neoverse-n1-spe", "0", -1, true) < 0)
		goto out;
	r.m.spe_type = 9;
	r.m.spe_cpus = 0xf;
	o.target = PMS_TARGET_CPUS;
	o.callgraph = PMS_CALLGRAPH_FP;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	CHECK_EQ_INT(fd_with_chain(r.fk, 9), -1);
	pms_sampler_info(s, &info);
	CHECK(strstr(info.notes, "SPE samples carry no call path") != NULL);
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

struct got_path {
	int n;
	struct pms_frame f[8];
	size_t nf;
	enum pms_callgraph how;
};

static int on_sample(void *ud, const struct pms_memsrc_sample *x)
{
	struct got_path *g = ud;
	g->n++;
	g->how = x->path.how;
	g->nf = x->path.n < 8 ? x->path.n : 8;
	memcpy(g->f, x->path.frames, g->nf * sizeof(*g->f));
	return 0;
}

PMS_TEST(memsrc_sample_carries_its_path)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_memsrc *src = NULL;
	struct got_path g = { 0 };

	if (th_root_open(&r, "vm-nopmu", "0", 2, true) < 0)
		goto out;
	o.pid = 5;
	o.callgraph = PMS_CALLGRAPH_FP;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	CHECK_OK(pms_memsrc_open_live(s, NULL, &src));
	/* a live source: its sampler, no reader */
	CHECK(src && pms_memsrc_kind(src) == PMS_MEMSRC_LIVE);
	CHECK(src && pms_memsrc_sampler(src) == s && pms_memsrc_reader(src) == NULL);
	int fd = fd_with_chain(r.fk, PERF_TYPE_SOFTWARE);
	CHECK(fd >= 0);
	if (fd < 0 || !src)
		goto out;
	/* A page fault taken in the kernel (copy_to_user) for user code:
	 * the kernel part, then the user part (callchain.c). */
	const uint64_t chain[] = { (uint64_t)-128, 0xffffffff81001000ULL, (uint64_t)-512,
				   0x401010, 0x402020 };
	struct pms_record rec;
	struct pms_sample_layout l;
	unsigned char buf[512];
	size_t len = 0;
	memset(&rec, 0, sizeof(rec));
	rec.type = PMS_RECORD_SAMPLE;
	rec.sample.misc = PMS_MISC_KERNEL;
	rec.sample.ip = 0xffffffff81001000ULL;
	rec.sample.pid = rec.sample.tid = 5;
	rec.sample.addr = 0x7f0000001000ULL;
	rec.sample.period = 1;
	rec.sample.callchain = chain;
	rec.sample.callchain_nr = 5;
	pms_sample_layout_from_attr(&l, &fk_fd(r.fk, fd)->attr);
	CHECK_OK(pms_record_encode(&l, &rec, buf, sizeof(buf), &len));
	CHECK_OK(fk_ring_put(r.fk, fd, buf, len));
	const struct pms_memsrc_callbacks cb = { on_sample, NULL, NULL };
	CHECK(pms_memsrc_poll(src, 0, &cb, &g) >= 1);
	CHECK_EQ_INT(g.n, 1);
	CHECK_EQ_INT(g.how, PMS_CALLGRAPH_FP);
	CHECK_EQ_U64(g.nf, 3);
	CHECK_EQ_U64(g.f[0].ip, 0xffffffff81001000ULL);
	CHECK_EQ_U64(g.f[0].flags, PMS_FRAME_KERNEL);
	CHECK_EQ_U64(g.f[1].ip, 0x401010);
	CHECK_EQ_U64(g.f[2].ip, 0x402020);
	CHECK_EQ_U64(g.f[2].flags, 0);
out:
	pms_memsrc_free(src);
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST_MAIN()
