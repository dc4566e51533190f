/* The live source's time order (docs/mem.md "Time order", issue 30) on the
 * fake kernel: two CPUs' rings, the exec's COMM and MMAP2 in CPU 1's ring
 * and the program's first samples in CPU 0's, which the sampler drains
 * first.  One poll hands them out by time, side-band and samples
 * interleaved; before the change CPU 0's samples came first, unnamed. */
#include "check.h"
#include "sample_helpers.h"

#include "pmuscope/error.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/record.h"
#include "pmuscope/sampler.h"

#include <errno.h>
#include <string.h>

struct seen {
	uint64_t t[16];
	char what[16];
	size_t n;
};

static int on_sample(void *ud, const struct pms_memsrc_sample *s)
{
	struct seen *g = ud;
	if (g->n < 16) {
		g->t[g->n] = s->ms.time;
		g->what[g->n++] = 'S';
	}
	return 0;
}

static int on_side(void *ud, const struct pms_record *r, size_t attr_idx)
{
	struct seen *g = ud;
	(void)attr_idx;
	if (g->n < 16) {
		g->t[g->n] = r->sample_id.time;
		g->what[g->n++] = r->type == PMS_RECORD_COMM ? 'C' : r->type == PMS_RECORD_MMAP2 ? 'M'
												 : '?';
	}
	return 0;
}

static const struct pms_memsrc_callbacks cbs = { on_sample, on_side, NULL };

static void put(struct fk *fk, int fd, struct pms_record *r)
{
	struct fk_fd *f = fk_fd(fk, fd);
	struct pms_sample_layout l;
	unsigned char buf[512];
	size_t len = 0;
	CHECK(f != NULL);
	if (!f)
		return;
	pms_sample_layout_from_attr(&l, &f->attr);
	CHECK_OK(pms_record_encode(&l, r, buf, sizeof(buf), &len));
	CHECK_EQ_INT(fk_ring_put(fk, fd, buf, len), 0);
}

static void sample(struct fk *fk, int fd, uint64_t time, uint32_t cpu)
{
	struct pms_record r;
	memset(&r, 0, sizeof(r));
	r.type = PMS_RECORD_SAMPLE;
	r.sample.misc = PMS_MISC_USER;
	r.sample.ip = 0x401000;
	r.sample.pid = r.sample.tid = 1234;
	r.sample.time = time;
	r.sample.cpu = cpu;
	r.sample.addr = 0x7f0000000000 + time;
	r.sample.period = 1;
	put(fk, fd, &r);
}

static void side(struct fk *fk, int fd, uint32_t type, uint64_t time, uint32_t cpu)
{
	struct pms_record r;
	memset(&r, 0, sizeof(r));
	r.type = type;
	if (type == PMS_RECORD_COMM) {
		r.misc = PMS_MISC_COMM_EXEC;
		r.comm.pid = r.comm.tid = 1234;
		r.comm.comm = "touch_pages";
	} else {
		r.misc = PMS_MISC_USER;
		r.mmap.pid = r.mmap.tid = 1234;
		r.mmap.addr = 0x400000;
		r.mmap.len = 1 << 20;
		r.mmap.prot = 5;
		r.mmap.filename = "/usr/bin/touch_pages";
	}
	r.sample_id.pid = r.sample_id.tid = 1234;
	r.sample_id.time = time;
	r.sample_id.cpu = cpu;
	put(fk, fd, &r);
}

PMS_TEST(two_rings_handed_out_in_time_order)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_memsrc *src = NULL;
	struct seen g;

	memset(&g, 0, sizeof(g));
	if (th_root_open(&r, "vm-nopmu", "0-1", 2, true) < 0)
		goto out;
	o.pid = 1234;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	CHECK_OK(pms_memsrc_open_live(s, NULL, &src));
	int fd0 = th_fd_of_type(r.fk, PERF_TYPE_SOFTWARE, 0);
	int fd1 = th_fd_of_type(r.fk, PERF_TYPE_SOFTWARE, 1);
	CHECK(fd0 >= 0 && fd1 >= 0 && fd0 != fd1);
	if (!src || fd0 < 0 || fd1 < 0)
		goto out;
	/* the first ring drained: the samples after the exec */
	sample(r.fk, fd0, 20, 0);
	sample(r.fk, fd0, 40, 0);
	/* the second: the exec's COMM and MMAP2, and a sample between */
	side(r.fk, fd1, PMS_RECORD_COMM, 10, 1);
	side(r.fk, fd1, PMS_RECORD_MMAP2, 15, 1);
	sample(r.fk, fd1, 30, 1);
	CHECK_EQ_INT(pms_memsrc_poll(src, 0, &cbs, &g), 5);
	CHECK_EQ_INT((int)g.n, 5);
	CHECK_EQ_STR(g.what, "CMSSS");
	for (size_t i = 1; i < g.n; i++)
		CHECK_MSG(g.t[i] >= g.t[i - 1], "record %zu at %llu after one at %llu", i,
			  (unsigned long long)g.t[i], (unsigned long long)g.t[i - 1]);
	/* a later drain goes on in order */
	memset(&g, 0, sizeof(g));
	sample(r.fk, fd1, 50, 1);
	sample(r.fk, fd0, 45, 0);
	CHECK_EQ_INT(pms_memsrc_poll(src, 0, &cbs, &g), 2);
	CHECK_EQ_INT((int)g.n, 2);
	CHECK_EQ_U64(g.t[0], 45);
	CHECK_EQ_U64(g.t[1], 50);
out:
	pms_memsrc_free(src);
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST_MAIN()
