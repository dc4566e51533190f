/* The AUX area of a perf ring: placement in the user page, byte ranges
 * handed out contiguous across the wrap, aux_tail published, overwritten and
 * out-of-range requests. */
#include "check.h"
#include "fake_kernel.h"
#include "pmuscope/error.h"
#include "pmuscope/ring.h"

#include <linux/perf_event.h>
#include <unistd.h>

struct seen {
	unsigned char buf[32768];
	size_t len;
	uint64_t first_off;
	int calls;
};

static int collect(void *ud, const void *data, size_t len, uint64_t off)
{
	struct seen *s = ud;
	if (s->calls++ == 0)
		s->first_off = off;
	if (s->len + len <= sizeof(s->buf)) {
		memcpy(s->buf + s->len, data, len);
		s->len += len;
	}
	return 0;
}

static int fail_cb(void *ud, const void *data, size_t len, uint64_t off)
{
	(void)ud; (void)data; (void)len; (void)off;
	return PMS_EBUSY;
}

static unsigned char pat(uint64_t i)
{
	return (unsigned char)(i * 7 + (i >> 8));
}

PMS_TEST(aux_area_placement_wrap_and_tail)
{
	struct fk *fk = fk_new();
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE };
	struct pms_ring *r = NULL;
	struct pms_ring_stats st;
	struct perf_event_mmap_page *pg;
	unsigned char bytes[12000];
	struct seen s;
	uint64_t off;
	long psz = sysconf(_SC_PAGESIZE);
	int fd;

	o.ops = fk_ops(fk);
	CHECK_OK(pms_sys_new(&sys, &o));
	fd = pms_sys_perf_event_open(sys, &a, 0, -1, -1, 0, "sw");
	CHECK_OK(pms_ring_open(sys, fd, 2, &r));
	CHECK_EQ_INT(pms_ring_aux_open(r, 3), PMS_EINVAL); /* not a power of two */
	CHECK_OK(pms_ring_aux_open(r, 2));
	CHECK_EQ_INT(pms_ring_aux_open(r, 2), PMS_EINVAL); /* one AUX area */
	pg = pms_ring_user_page(r);
	CHECK_EQ_U64(pg->aux_offset, 3 * (uint64_t)psz); /* user page + 2 data pages */
	CHECK_EQ_U64(pg->aux_size, 2 * (uint64_t)psz);
	CHECK_EQ_INT(pms_ring_aux_size(r), 2 * psz);
	CHECK(fk_fd(fk, fd)->aux_map != NULL);

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = pat(i);
	/* 5000 bytes, read in two ranges. */
	CHECK_EQ_INT(fk_aux_put(fk, fd, bytes, 5000, &off), 0);
	CHECK_EQ_U64(off, 0);
	CHECK_EQ_INT(pms_ring_aux_pending(r), 5000);
	memset(&s, 0, sizeof(s));
	CHECK_OK(pms_ring_aux_read(r, 0, 3000, collect, &s));
	CHECK_EQ_U64(pg->aux_tail, 3000);
	CHECK_OK(pms_ring_aux_read(r, 3000, 2000, collect, &s));
	CHECK_EQ_U64(pg->aux_tail, 5000);
	CHECK_EQ_INT(s.len, 5000);
	CHECK(memcmp(s.buf, bytes, 5000) == 0);
	/* The next 6000 bytes straddle the end of the 8 KiB area. */
	CHECK_EQ_INT(fk_aux_put(fk, fd, bytes + 5000, 6000, &off), 0);
	CHECK_EQ_U64(off, 5000);
	memset(&s, 0, sizeof(s));
	CHECK_OK(pms_ring_aux_drain(r, collect, &s));
	CHECK_EQ_INT(s.calls, 1);
	CHECK_EQ_U64(s.first_off, 5000);
	CHECK_EQ_INT(s.len, 6000);
	CHECK(memcmp(s.buf, bytes + 5000, 6000) == 0);
	CHECK_EQ_U64(pg->aux_tail, 11000);
	pms_ring_stats(r, &st);
	CHECK_EQ_INT(st.aux_wrapped, 1);
	CHECK_EQ_INT(st.aux_bytes, 11000);
	/* A range past aux_head is refused and the tail stays. */
	CHECK_EQ_INT(pms_ring_aux_read(r, 11000, 10, collect, &s), PMS_ERANGE);
	CHECK_EQ_U64(pg->aux_tail, 11000);
	/* A range the kernel has lapped (overwrite mode, or a tail ignored):
	 * only the last aux_size bytes are still there. */
	pg->aux_head = 11000 + 3 * (uint64_t)psz;
	memset(&s, 0, sizeof(s));
	CHECK_OK(pms_ring_aux_read(r, 11000, 3 * (uint64_t)psz, collect, &s));
	CHECK_EQ_INT(s.len, 2 * psz);
	CHECK_EQ_U64(s.first_off, 11000 + (uint64_t)psz);
	pms_ring_stats(r, &st);
	CHECK_EQ_INT(st.aux_overrun, psz);
	/* A callback's error comes back; the tail still moves (bytes seen). */
	CHECK_EQ_INT(fk_aux_put(fk, fd, bytes, 0, &off), 0);
	pg->aux_head += 16;
	CHECK_EQ_INT(pms_ring_aux_drain(r, fail_cb, NULL), PMS_EBUSY);
	pms_ring_free(r);
	CHECK(fk_fd(fk, fd)->aux_map == NULL); /* unmapped */
	pms_sys_close(sys, fd);
	pms_sys_free(sys);
	fk_free(fk);
}

PMS_TEST(aux_requires_the_ring_and_matching_user_page)
{
	struct fk *fk = fk_new();
	struct fk_fd *f;
	void *p = NULL;
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE };
	int fd = fk_ops(fk)->perf_event_open(fk, &a, 0, -1, -1, 0);

	/* No ring yet: the AUX mmap is EINVAL (kernel/events/core.c perf_mmap). */
	CHECK_EQ_INT(fk_ops(fk)->mmap(fk, 8192, 3, 1, fd, 8192, &p), -22);
	CHECK_OK(fk_ops(fk)->mmap(fk, 8192, 3, 1, fd, 0, &p));
	f = fk_fd(fk, fd);
	/* aux_offset/aux_size not written into the user page: EINVAL. */
	CHECK_EQ_INT(fk_ops(fk)->mmap(fk, 8192, 3, 1, fd, 8192, &p), -22);
	((struct perf_event_mmap_page *)f->map)->aux_offset = 8192;
	((struct perf_event_mmap_page *)f->map)->aux_size = 3 * 4096;
	CHECK_EQ_INT(fk_ops(fk)->mmap(fk, 3 * 4096, 3, 1, fd, 8192, &p), -22); /* 3 pages */
	fk_free(fk);
}

PMS_TEST_MAIN()
