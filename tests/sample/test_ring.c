#include "check.h"
#include "fake_kernel.h"
#include "pmuscope/error.h"
#include "pmuscope/ring.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

struct got {
	int n;
	uint64_t tags[64];
	size_t lens[64];
	int stop_after;
};

static int collect(void *ud, const void *rec, size_t len)
{
	struct got *g = ud;
	uint64_t tag;
	if (g->stop_after && g->n == g->stop_after)
		return PMS_EBUSY;
	memcpy(&tag, (const unsigned char *)rec + 8, sizeof(tag));
	/* every byte after the tag repeats the tag's low byte */
	for (size_t i = 16; i < len; i++)
		if (((const unsigned char *)rec)[i] != (unsigned char)tag)
			return PMS_EPARSE;
	if (g->n < 64) {
		g->tags[g->n] = tag;
		g->lens[g->n] = len;
	}
	g->n++;
	return 0;
}

/* Write one record the way the kernel does (kernel/events/ring_buffer.c
 * perf_output_copy wraps byte-wise at the end of the data area). */
static void kput(unsigned char *data, uint64_t size, uint64_t *head, uint16_t len, uint64_t tag)
{
	unsigned char rec[512];
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = 0, .size = len };
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, &tag, 8);
	memset(rec + 16, (unsigned char)tag, len - 16);
	for (uint16_t i = 0; i < len; i++)
		data[(*head + i) & (size - 1)] = rec[i];
	*head += len;
}

static struct pms_sys *fake_sys(struct fk *fk)
{
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	o.ops = fk_ops(fk);
	CHECK_OK(pms_sys_new(&sys, &o));
	return sys;
}

PMS_TEST(drain_handles_wrap_and_publishes_tail)
{
	struct fk *fk = fk_new();
	struct pms_sys *sys = fake_sys(fk);
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE };
	struct pms_ring *r = NULL;
	struct got g = { 0 };
	int fd = pms_sys_perf_event_open(sys, &a, 0, -1, -1, 0, "sw");
	long psz = sysconf(_SC_PAGESIZE);

	CHECK_OK(pms_ring_open(sys, fd, 1, &r));
	CHECK_EQ_INT(pms_ring_data_size(r), psz);
	struct perf_event_mmap_page *pg = pms_ring_user_page(r);
	unsigned char *data = (unsigned char *)pg + psz;
	uint64_t head = 0, size = (uint64_t)psz;

	/* Fill to 40 bytes short of the end, so the next record straddles. */
	for (uint64_t t = 1; head + 64 <= size - 40; t++)
		kput(data, size, &head, 64, t);
	int before = (int)(head / 64);
	pg->data_head = head;
	CHECK_EQ_INT(pms_ring_drain(r, collect, &g), before);
	CHECK_EQ_U64(pg->data_tail, head);
	CHECK_EQ_U64(pms_ring_pending(r), 0);
	/* A 96-byte record across the end, then one whose header straddles. */
	kput(data, size, &head, 96, 1000);
	pg->data_head = head;
	g.n = 0;
	CHECK_EQ_INT(pms_ring_drain(r, collect, &g), 1);
	CHECK_EQ_U64(g.tags[0], 1000);
	CHECK_EQ_INT(g.lens[0], 96);
	struct pms_ring_stats st;
	pms_ring_stats(r, &st);
	CHECK_EQ_U64(st.wrapped, 1);
	CHECK_EQ_U64(st.records, (uint64_t)before + 1);

	/* Header straddling: place tail 4 bytes before the end. */
	pg->data_tail = head = size * 3 - 4 + 0; /* any absolute position works */
	kput(data, size, &head, 24, 7);
	pg->data_head = head;
	g.n = 0;
	CHECK_EQ_INT(pms_ring_drain(r, collect, &g), 1);
	CHECK_EQ_U64(g.tags[0], 7);

	/* A callback that stops leaves the record unconsumed. */
	kput(data, size, &head, 32, 8);
	kput(data, size, &head, 32, 9);
	pg->data_head = head;
	g.n = 0;
	g.stop_after = 1;
	CHECK_EQ_INT(pms_ring_drain(r, collect, &g), PMS_EBUSY);
	CHECK_EQ_U64(pms_ring_pending(r), 32);
	g.stop_after = 0;
	g.n = 0;
	CHECK_EQ_INT(pms_ring_drain(r, collect, &g), 1);
	CHECK_EQ_U64(g.tags[0], 9);
	pms_ring_free(r);
	pms_sys_close(sys, fd);
	pms_sys_free(sys);
	fk_free(fk);
}

PMS_TEST(corrupt_header_is_reported_and_skipped)
{
	struct fk *fk = fk_new();
	struct pms_sys *sys = fake_sys(fk);
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE };
	struct pms_ring *r = NULL;
	struct got g = { 0 };
	int fd = pms_sys_perf_event_open(sys, &a, 0, -1, -1, 0, "sw");
	long psz = sysconf(_SC_PAGESIZE);

	CHECK_OK(pms_ring_open(sys, fd, 2, &r));
	struct perf_event_mmap_page *pg = pms_ring_user_page(r);
	unsigned char *data = (unsigned char *)pg + psz;
	uint64_t head = 0;
	kput(data, 2 * (uint64_t)psz, &head, 32, 1);
	struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .size = 12 };
	memcpy(data + head, &bad, sizeof(bad));
	head += 16;
	pg->data_head = head;
	CHECK_EQ_INT(pms_ring_drain(r, collect, &g), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "ring offset 32") != NULL);
	CHECK_EQ_INT(g.n, 1);
	CHECK_EQ_U64(pg->data_tail, head);
	struct pms_ring_stats st;
	pms_ring_stats(r, &st);
	CHECK_EQ_U64(st.corrupt_bytes, 16);
	struct pms_ring *r3 = NULL;
	CHECK_EQ_INT(pms_ring_open(sys, fd, 3, &r3), PMS_EINVAL);
	CHECK(r3 == NULL);
	pms_ring_free(r);
	pms_sys_free(sys);
	fk_free(fk);
}

/* pms_ring_copy: whole records only, unwrapped, the tail published at once;
 * a cap stops at a record boundary; an impossible header keeps the good
 * records before it. */
PMS_TEST(copy_unwraps_records_and_publishes_tail)
{
	struct fk *fk = fk_new();
	struct pms_sys *sys = fake_sys(fk);
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE };
	struct pms_ring *r = NULL;
	struct got g = { 0 };
	int fd = pms_sys_perf_event_open(sys, &a, 0, -1, -1, 0, "sw");
	long psz = sysconf(_SC_PAGESIZE);
	unsigned char buf[512];
	size_t len = 99;

	CHECK_OK(pms_ring_open(sys, fd, 1, &r));
	struct perf_event_mmap_page *pg = pms_ring_user_page(r);
	unsigned char *data = (unsigned char *)pg + psz;
	uint64_t size = (uint64_t)psz, head = size * 5 - 40;

	pg->data_tail = head;
	CHECK_EQ_INT(pms_ring_copy(r, buf, sizeof(buf), &len), 0);
	CHECK_EQ_INT(len, 0);
	kput(data, size, &head, 96, 1); /* straddles the end */
	kput(data, size, &head, 64, 2);
	kput(data, size, &head, 64, 3);
	pg->data_head = head;
	/* room for two records: the third stays in the ring */
	CHECK_EQ_INT(pms_ring_copy(r, buf, 96 + 64 + 8, &len), 2);
	CHECK_EQ_INT(len, 160);
	CHECK_EQ_U64(pms_ring_pending(r), 64);
	CHECK_EQ_INT(collect(&g, buf, 96), 0);
	CHECK_EQ_INT(collect(&g, buf + 96, 64), 0);
	CHECK_EQ_U64(g.tags[0], 1);
	CHECK_EQ_U64(g.tags[1], 2);
	CHECK_EQ_INT(pms_ring_copy(r, buf, 32, &len), 0); /* does not fit */
	CHECK_EQ_INT(len, 0);
	CHECK_EQ_INT(pms_ring_copy(r, buf, sizeof(buf), &len), 1);
	CHECK_EQ_INT(len, 64);
	CHECK_EQ_INT(collect(&g, buf, 64), 0);
	CHECK_EQ_U64(g.tags[2], 3);
	CHECK_EQ_U64(pg->data_tail, head);
	struct pms_ring_stats st;
	pms_ring_stats(r, &st);
	CHECK_EQ_U64(st.records, 3);
	CHECK_EQ_U64(st.bytes, 224);
	CHECK_EQ_U64(st.wrapped, 1);

	/* a good record, then an impossible header */
	kput(data, size, &head, 32, 4);
	struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .size = 12 };
	for (size_t i = 0; i < sizeof(bad); i++)
		data[(head + i) & (size - 1)] = ((unsigned char *)&bad)[i];
	head += 16;
	pg->data_head = head;
	CHECK_EQ_INT(pms_ring_copy(r, buf, sizeof(buf), &len), PMS_EPARSE);
	CHECK_EQ_INT(len, 32);
	CHECK_EQ_INT(collect(&g, buf, 32), 0);
	CHECK_EQ_U64(g.tags[3], 4);
	CHECK_EQ_U64(pg->data_tail, head);
	pms_ring_stats(r, &st);
	CHECK_EQ_U64(st.corrupt_bytes, 16);
	pms_ring_free(r);
	pms_sys_close(sys, fd);
	pms_sys_free(sys);
	fk_free(fk);
}

struct addr_seen {
	uint64_t lo, hi;
	int inside, samples;
};

static int count_addrs(void *ud, const void *rec, size_t len)
{
	struct addr_seen *s = ud;
	struct perf_event_header h;
	uint64_t addr;
	memcpy(&h, rec, sizeof(h));
	/* sample_type IP|TID|ADDR: ip, pid/tid, addr (kernel-abi-facts §1.6) */
	if (h.type != PERF_RECORD_SAMPLE || len < 32)
		return 0;
	memcpy(&addr, (const unsigned char *)rec + 24, 8);
	s->samples++;
	if (addr >= s->lo && addr < s->hi)
		s->inside++;
	return 0;
}

PMS_TEST(real_kernel_page_fault_samples_carry_addresses)
{
	struct pms_sys *sys = NULL;
	struct perf_event_attr a = { 0 };
	struct pms_ring *r = NULL;
	struct addr_seen s = { 0 };
	size_t npages = 256;
	long psz = sysconf(_SC_PAGESIZE);

	CHECK_OK(pms_sys_new(&sys, NULL));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = pms_sys_perf_event_open(sys, &a, 0, -1, -1, 0, "page-faults");
	if (fd < 0) {
		pms_sys_free(sys);
		PMS_SKIP("software page-fault sampling refused here: %s", pms_error_last());
	}
	CHECK_OK(pms_ring_open(sys, fd, 64, &r));
	unsigned char *buf = mmap(NULL, npages * (size_t)psz, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(buf != MAP_FAILED);
	s.lo = (uint64_t)(uintptr_t)buf;
	s.hi = s.lo + npages * (uint64_t)psz;
	const struct pms_sys_ops *ops = pms_sys_ops(sys);
	ops->ioctl(ops->ud, fd, PERF_EVENT_IOC_ENABLE, 0);
	for (size_t i = 0; i < npages; i++)
		buf[i * (size_t)psz] = 1;
	ops->ioctl(ops->ud, fd, PERF_EVENT_IOC_DISABLE, 0);
	CHECK(pms_ring_drain(r, count_addrs, &s) >= 0);
	/* Every first touch of a fresh anonymous page faults once. */
	CHECK_MSG(s.inside >= (int)npages, "%d of %d samples inside the buffer (%zu pages)",
		  s.inside, s.samples, npages);
	munmap(buf, npages * (size_t)psz);
	pms_ring_free(r);
	pms_sys_close(sys, fd);
	pms_sys_free(sys);
}

PMS_TEST_MAIN()
