/* Test-only record encoder for the perf.data tests: SAMPLE, COMM and MMAP2
 * records for one attr with sample_type REC_SAMPLE_TYPE and sample_id_all.
 * Field order: kernel-abi-facts.md §1.6 (SAMPLE body) and §1.5 (sample_id
 * trailer); COMM/MMAP2 bodies from include/uapi/linux/perf_event.h. */
#ifndef PMS_TESTS_PERFDATA_RECORDS_H
#define PMS_TESTS_PERFDATA_RECORDS_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

#define REC_SAMPLE_TYPE                                                             \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |   \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)

struct rec {
	unsigned char b[512];
	size_t n;
};

static inline void rec_begin(struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, 0 };
	memset(r->b, 0, sizeof(r->b));
	memcpy(r->b, &h, sizeof(h));
	r->n = sizeof(h);
}

static inline void rec_u32(struct rec *r, uint32_t v)
{
	memcpy(r->b + r->n, &v, 4);
	r->n += 4;
}

static inline void rec_u64(struct rec *r, uint64_t v)
{
	memcpy(r->b + r->n, &v, 8);
	r->n += 8;
}

/* A NUL-terminated string padded with zeroes to a multiple of 8. */
static inline void rec_str(struct rec *r, const char *s)
{
	size_t len = strlen(s) + 1;
	memcpy(r->b + r->n, s, len);
	r->n += (len + 7) / 8 * 8;
}

/* Sets header.size; returns the record length. */
static inline size_t rec_end(struct rec *r)
{
	uint16_t size = (uint16_t)r->n;
	memcpy(r->b + 6, &size, 2);
	return r->n;
}

/* The sample_id trailer for REC_SAMPLE_TYPE: TID, TIME, CPU. */
static inline void rec_sample_id(struct rec *r, uint32_t pid, uint32_t tid, uint64_t time,
				 uint32_t cpu)
{
	rec_u32(r, pid);
	rec_u32(r, tid);
	rec_u64(r, time);
	rec_u32(r, cpu);
	rec_u32(r, 0);
}

static inline size_t rec_sample(struct rec *r, uint64_t ip, uint32_t pid, uint32_t tid,
				uint64_t time, uint64_t addr, uint32_t cpu, uint64_t weight,
				uint64_t data_src)
{
	rec_begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rec_u64(r, ip);
	rec_u32(r, pid);
	rec_u32(r, tid);
	rec_u64(r, time);
	rec_u64(r, addr);
	rec_u32(r, cpu);
	rec_u32(r, 0);
	rec_u64(r, weight);
	rec_u64(r, data_src);
	return rec_end(r);
}

static inline size_t rec_comm(struct rec *r, uint32_t pid, uint32_t tid, const char *comm,
			      uint64_t time, uint32_t cpu)
{
	rec_begin(r, PERF_RECORD_COMM, 0);
	rec_u32(r, pid);
	rec_u32(r, tid);
	rec_str(r, comm);
	rec_sample_id(r, pid, tid, time, cpu);
	return rec_end(r);
}

static inline size_t rec_mmap2(struct rec *r, uint32_t pid, uint32_t tid, uint64_t addr,
			       uint64_t len, uint64_t pgoff, const char *file, uint64_t time,
			       uint32_t cpu)
{
	rec_begin(r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	rec_u32(r, pid);
	rec_u32(r, tid);
	rec_u64(r, addr);
	rec_u64(r, len);
	rec_u64(r, pgoff);
	rec_u32(r, 8);     /* maj */
	rec_u32(r, 1);     /* min */
	rec_u64(r, 4242);  /* ino */
	rec_u64(r, 0);     /* ino_generation */
	rec_u32(r, 5);     /* prot: PROT_READ|PROT_EXEC */
	rec_u32(r, 2);     /* flags: MAP_PRIVATE */
	rec_str(r, file);
	rec_sample_id(r, pid, tid, time, cpu);
	return rec_end(r);
}

/* The attr the tests write: a raw event with the sample layout above. */
static inline struct perf_event_attr rec_attr(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_RAW;
	a.size = sizeof(a);
	a.config = 0x1cd;
	a.sample_period = 10007;
	a.sample_type = REC_SAMPLE_TYPE;
	a.sample_id_all = 1;
	a.precise_ip = 2;
	a.mmap = 1;
	a.comm = 1;
	a.mmap2 = 1;
	return a;
}

#endif
