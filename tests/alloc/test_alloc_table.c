/* The allocation table (src/alloc): records built here, as the preload
 * writes them; a freed and reused address goes to the allocation live at
 * the time asked; realloc ends the old block; a forked child sees its
 * parent's blocks live at the fork until it frees them; an exec ends them
 * all; the clock calibration moves perf times onto the records' clock;
 * samples by site; malformed records are refused; a chunked stream file
 * (as the preload's threads fill it) is read in time order; two files'
 * records (a merged report) each in their own process space. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/alloc.h"
#include "pmuscope/error.h"
#include "alloc/alloc_int.h" /* pms_alloc_stream_read */

static unsigned char buf[1 << 16];
static size_t blen;

static void rec(unsigned kind, uint32_t pid, uint64_t time, uint64_t addr, uint64_t bytes,
		uint64_t old, uint64_t frame0)
{
	struct pms_alloc_rec r;
	memset(&r, 0, sizeof(r));
	r.kind = (uint8_t)kind;
	r.pid = pid;
	r.tid = pid;
	r.time = time;
	r.addr = addr;
	r.bytes = bytes;
	r.weight = bytes;
	r.old_addr = old;
	r.nframes = frame0 ? 2 : 0;
	r.size = (uint16_t)(sizeof(r) + r.nframes * 8);
	memcpy(buf + blen, &r, sizeof(r));
	blen += sizeof(r);
	if (frame0) {
		uint64_t f[2] = { frame0, 0x400000 };
		memcpy(buf + blen, f, sizeof(f));
		blen += sizeof(f);
	}
}

static struct pms_alloc_table *fed(void)
{
	struct pms_alloc_table *t = NULL;
	if (pms_alloc_table_new(&t) < 0)
		return NULL;
	long used = pms_alloc_table_feed(t, buf, blen);
	if (used != (long)blen) {
		pms_alloc_table_free(t);
		return NULL;
	}
	return t;
}

/* A stream file's header page in file (len bytes, zeroed first): magic,
 * then nchunks chunks claimed. */
static void file_head(unsigned char *file, size_t len, uint64_t magic, uint64_t nchunks)
{
	memset(file, 0, len);
	uint64_t h[2] = { magic, nchunks };
	memcpy(file, h, sizeof(h));
}

/* The records built since the last chunk (buf) as chunk k of the stream
 * file, as one thread of the preload writes them; buf emptied for the
 * next. */
static void put_chunk(unsigned char *file, size_t k)
{
	memcpy(file + PMS_ALLOC_HDR_SIZE + k * PMS_ALLOC_CHUNK, buf, blen);
	blen = 0;
}

static long site_at(struct pms_alloc_table *t, uint32_t pid, uint64_t addr, uint64_t time)
{
	struct pms_alloc_info a;
	if (pms_alloc_table_lookup(t, pid, addr, time, &a) < 0)
		return -1;
	struct pms_alloc_site_key k;
	pms_alloc_table_site(t, (size_t)a.site, &k);
	return k.nframes ? (long)k.frames[0] : 0;
}

PMS_TEST(reuse_by_time)
{
	blen = 0;
	rec(PMS_ALLOC_START, 10, 1, 0, 0, 1, 0);
	rec(PMS_ALLOC_MALLOC, 10, 100, 0x1000, 64, 0, 0xA);
	rec(PMS_ALLOC_FREE, 10, 200, 0x1000, 0, 0, 0);
	rec(PMS_ALLOC_MALLOC, 10, 300, 0x1000, 32, 0, 0xB); /* same address, new site */
	rec(PMS_ALLOC_MALLOC, 10, 310, 0x1040, 4096, 0, 0xC);
	rec(PMS_ALLOC_REALLOC, 10, 400, 0x9000, 8192, 0x1040, 0xD); /* C moved to D */
	struct pms_alloc_table *t = fed();
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ_INT(site_at(t, 10, 0x1000, 150), 0xA);
	CHECK_EQ_INT(site_at(t, 10, 0x1030, 150), 0xA);
	CHECK_EQ_INT(site_at(t, 10, 0x1030, 350), -1); /* past B's 32 bytes */
	CHECK_EQ_INT(site_at(t, 10, 0x1010, 250), -1); /* freed, not yet reused */
	CHECK_EQ_INT(site_at(t, 10, 0x1010, 350), 0xB);
	CHECK_EQ_INT(site_at(t, 10, 0x1000, 50), -1);  /* before any */
	CHECK_EQ_INT(site_at(t, 10, 0x1040 + 4000, 350), 0xC);
	CHECK_EQ_INT(site_at(t, 10, 0x1040 + 4000, 450), -1);
	CHECK_EQ_INT(site_at(t, 10, 0x9000 + 8000, 450), 0xD);
	CHECK_EQ_INT(site_at(t, 11, 0x1010, 350), -1); /* another process */
	struct pms_alloc_stats st;
	pms_alloc_table_stats(t, &st);
	CHECK_EQ_U64(st.allocs, 4);
	CHECK_EQ_U64(st.frees, 2);
	CHECK_EQ_U64(pms_alloc_table_nsites(t), 4);
	CHECK_EQ_U64(pms_alloc_table_count(t), 4); /* A, B, C and C's move to D */
	pms_alloc_table_free(t);
}

PMS_TEST(fork_and_exec)
{
	blen = 0;
	rec(PMS_ALLOC_START, 20, 1, 0, 0, 1, 0);
	rec(PMS_ALLOC_MALLOC, 20, 100, 0x5000, 100, 0, 0xA);
	rec(PMS_ALLOC_MALLOC, 20, 110, 0x6000, 100, 0, 0xB);
	rec(PMS_ALLOC_FORK, 21, 200, 0, 0, 20, 0);
	rec(PMS_ALLOC_FREE, 20, 250, 0x5000, 0, 0, 0); /* the parent frees its copy */
	rec(PMS_ALLOC_FREE, 21, 300, 0x6000, 0, 0, 0); /* the child frees its copy */
	rec(PMS_ALLOC_MALLOC, 21, 310, 0x6000, 50, 0, 0xC);
	rec(PMS_ALLOC_MALLOC, 20, 320, 0x7000, 50, 0, 0xE);
	rec(PMS_ALLOC_START, 20, 400, 0, 0, 1, 0); /* exec */
	struct pms_alloc_table *t = fed();
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ_INT(site_at(t, 21, 0x5010, 280), 0xA); /* the child's copy lives on */
	CHECK_EQ_INT(site_at(t, 20, 0x5010, 280), -1);
	CHECK_EQ_INT(site_at(t, 21, 0x6010, 250), 0xB);
	CHECK_EQ_INT(site_at(t, 21, 0x6010, 305), -1);
	CHECK_EQ_INT(site_at(t, 21, 0x6010, 350), 0xC);
	CHECK_EQ_INT(site_at(t, 20, 0x6010, 350), 0xB); /* the parent's own */
	CHECK_EQ_INT(site_at(t, 21, 0x7010, 350), -1);  /* made after the fork */
	CHECK_EQ_INT(site_at(t, 20, 0x7010, 350), 0xE);
	CHECK_EQ_INT(site_at(t, 20, 0x7010, 450), -1);  /* the exec ended it */
	struct pms_alloc_stats st;
	pms_alloc_table_stats(t, &st);
	CHECK_EQ_U64(st.forks, 1);
	CHECK_EQ_U64(st.execs, 1);
	CHECK_EQ_U64(st.processes, 2);
	pms_alloc_table_free(t);
}

PMS_TEST(calibration_and_sites)
{
	blen = 0;
	rec(PMS_ALLOC_MALLOC, 30, 1000, 0x1000, 64, 0, 0xA);
	rec(PMS_ALLOC_FREE, 30, 2000, 0x1000, 0, 0, 0);
	rec(PMS_ALLOC_MALLOC, 30, 2100, 0x1000, 64, 0, 0xB);
	struct pms_alloc_table *t = fed();
	CHECK(t != NULL);
	if (!t)
		return;
	/* perf time runs 500 ns ahead: perf 2400 is monotonic 1900 (A) */
	CHECK_OK(pms_alloc_table_calibrate(t, 0, 500));
	CHECK_OK(pms_alloc_table_calibrate(t, 100000, 500));
	CHECK_EQ_INT(site_at(t, 30, 0x1000, 2400), 0xA);
	CHECK_EQ_INT(site_at(t, 30, 0x1000, 2550), -1);
	CHECK_EQ_INT(site_at(t, 30, 0x1000, 2700), 0xB);
	struct pms_alloc_sites *s = NULL;
	CHECK_OK(pms_alloc_sites_new(t, &s));
	struct pms_alloc_sample x = { 30, 0x1008, 2400, 50, 0, 1, 0 };
	CHECK(pms_alloc_sites_add(s, &x) >= 0);
	x.time = 2700;
	CHECK(pms_alloc_sites_add(s, &x) >= 0);
	x.mem_node = 1;
	CHECK(pms_alloc_sites_add(s, &x) >= 0);
	CHECK(pms_alloc_sites_add(s, &x) >= 0);
	x.mem_node = -1; /* unresolved: no node */
	x.time = 2400;
	x.addr = 0x1010;
	CHECK(pms_alloc_sites_add(s, &x) >= 0);
	x.addr = 0x9999;
	CHECK(pms_alloc_sites_add(s, &x) < 0);
	struct pms_alloc_report *r = NULL;
	CHECK_OK(pms_alloc_sites_report(s, 0, NULL, NULL, &r));
	if (r) {
		CHECK_EQ_U64(r->with_addr, 6);
		CHECK_EQ_U64(r->placed, 5);
		CHECK_EQ_U64(r->nsites, 2);
		CHECK_EQ_U64(r->sites[0].samples, 3);
		CHECK_EQ_U64(r->sites[0].frames[0].ip, 0xB);
		CHECK_EQ_U64(r->sites[0].resolved, 3);
		CHECK_EQ_U64(r->sites[0].remote, 1);
		CHECK_EQ_U64(r->sites[0].latency, 150);
		/* the node that served most of its resolved samples (issue 28) */
		CHECK_EQ_INT(r->sites[0].node, 1);
		CHECK_EQ_U64(r->sites[0].node_samples, 2);
		CHECK_EQ_U64(r->sites[1].samples, 2);
		CHECK_EQ_U64(r->sites[1].resolved, 1);
		CHECK_EQ_INT(r->sites[1].node, 0);
		CHECK_EQ_U64(r->sites[1].node_samples, 1);
	}
	pms_alloc_report_free(r);
	pms_alloc_sites_free(s);
	pms_alloc_table_free(t);
}

/* Two runs' files of a merged report: the same pid, address and times in
 * both, each with its own block and call path (the same frames in both
 * are two sites, one per file); a fork's parent is found in its own file
 * only. */
PMS_TEST(process_spaces)
{
	struct pms_alloc_table *t = NULL;
	CHECK_OK(pms_alloc_table_new(&t));
	if (!t)
		return;
	blen = 0;
	rec(PMS_ALLOC_MALLOC, 40, 100, 0x1000, 64, 0, 0xA);
	rec(PMS_ALLOC_MALLOC, 40, 100, 0x5000, 64, 0, 0xC);
	rec(PMS_ALLOC_FORK, 41, 150, 0, 0, 40, 0);
	CHECK_EQ_INT(pms_alloc_table_feed(t, buf, blen), (long)blen);
	CHECK_OK(pms_alloc_table_set_space(t, 1));
	blen = 0;
	rec(PMS_ALLOC_MALLOC, 40, 100, 0x1000, 4096, 0, 0xB);
	rec(PMS_ALLOC_FREE, 40, 120, 0x1000, 0, 0, 0);
	rec(PMS_ALLOC_MALLOC, 40, 130, 0x5000, 64, 0, 0xC);
	CHECK_EQ_INT(pms_alloc_table_feed(t, buf, blen), (long)blen);
	/* lookups in the space set last, then in the first */
	CHECK_EQ_INT(site_at(t, 40, 0x1800, 110), 0xB);
	CHECK_EQ_INT(site_at(t, 40, 0x1010, 200), -1); /* freed in file 2 */
	CHECK_EQ_INT(site_at(t, 41, 0x1010, 200), -1); /* no fork in file 2 */
	CHECK_OK(pms_alloc_table_set_space(t, 0));
	CHECK_EQ_INT(site_at(t, 40, 0x1010, 200), 0xA);
	CHECK_EQ_INT(site_at(t, 40, 0x1800, 110), -1); /* past A's 64 bytes */
	CHECK_EQ_INT(site_at(t, 41, 0x1010, 200), 0xA);
	CHECK_EQ_U64(pms_alloc_table_nsites(t), 4);
	struct pms_alloc_stats st;
	pms_alloc_table_stats(t, &st);
	CHECK_EQ_U64(st.processes, 3);
	CHECK_EQ_U64(st.unmatched_frees, 0);
	/* the samples say their space */
	struct pms_alloc_sites *s = NULL;
	CHECK_OK(pms_alloc_sites_new(t, &s));
	struct pms_alloc_sample x = { 40, 0x5008, 200, 0, -1, -1, 0 };
	long s0 = pms_alloc_sites_add(s, &x);
	x.space = 1;
	long s1 = pms_alloc_sites_add(s, &x);
	CHECK(s0 >= 0 && s1 >= 0 && s0 != s1);
	x.addr = 0x1008;
	CHECK(pms_alloc_sites_add(s, &x) < 0);
	x.space = 0;
	CHECK(pms_alloc_sites_add(s, &x) >= 0);
	struct pms_alloc_report *r = NULL;
	CHECK_OK(pms_alloc_sites_report(s, 0, NULL, NULL, &r));
	if (r) {
		CHECK_EQ_U64(r->placed, 3);
		CHECK_EQ_U64(r->nsites, 3);
		for (size_t i = 0; i < r->nsites; i++)
			CHECK_EQ_U64(r->sites[i].space, r->sites[i].frames[0].ip == 0xC &&
								(long)r->sites[i].table_site == s1
							? 1
							: 0);
	}
	pms_alloc_report_free(r);
	pms_alloc_sites_free(s);
	pms_alloc_table_free(t);
}

PMS_TEST(malformed)
{
	blen = 0;
	rec(PMS_ALLOC_MALLOC, 30, 1000, 0x1000, 64, 0, 0xA);
	struct pms_alloc_table *t = NULL;
	CHECK_OK(pms_alloc_table_new(&t));
	/* a partial record waits for its tail */
	CHECK_EQ_INT(pms_alloc_table_feed(t, buf, blen - 3), 0);
	CHECK_EQ_INT(pms_alloc_table_feed(t, buf, blen), (long)blen);
	buf[2] = 99; /* kind */
	CHECK_EQ_INT(pms_alloc_table_feed(t, buf, blen), PMS_EINVAL);
	pms_alloc_table_free(t);
}

/* The stream file as two threads of one process fill it: chunk 0 (thread
 * A) and chunk 1 (thread B), each in its own time order, the file in none.
 * A frees 0x1000 stamped at 210, B's malloc that gets 0x1000 back was
 * stamped at 205 (before its real malloc, which returned after A's real
 * free): the free ends the old block, not the new one. */
PMS_TEST(chunked_time_order)
{
	int fd = memfd_create("alloc-test", 0);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	static unsigned char file[PMS_ALLOC_HDR_SIZE + 2 * PMS_ALLOC_CHUNK];
	/* chunk 2 claimed, never grown */
	file_head(file, sizeof(file), PMS_ALLOC_STREAM_MAGIC, 3);
	blen = 0; /* thread A's chunk */
	rec(PMS_ALLOC_START, 40, 1, 0, 0, 1, 0);
	rec(PMS_ALLOC_MALLOC, 40, 100, 0x1000, 64, 0, 0xA);
	rec(PMS_ALLOC_FREE, 40, 210, 0x1000, 0, 0, 0);
	rec(PMS_ALLOC_MALLOC, 40, 400, 0x8000, 64, 0, 0xC);
	put_chunk(file, 0); /* then thread B's chunk */
	rec(PMS_ALLOC_MALLOC, 40, 150, 0x5000, 64, 0, 0xD);
	rec(PMS_ALLOC_MALLOC, 40, 205, 0x1000, 32, 0, 0xB);
	rec(PMS_ALLOC_FREE, 40, 300, 0x8000, 0, 0, 0); /* before its malloc in time: unmatched */
	put_chunk(file, 1);
	CHECK(write(fd, file, sizeof(file)) == (ssize_t)sizeof(file));
	struct pms_alloc_table *t = NULL;
	CHECK_OK(pms_alloc_table_new(&t));
	CHECK_EQ_INT(pms_alloc_table_read_fd(t, fd), 7);
	CHECK_EQ_INT(pms_alloc_table_read_fd(t, fd), 0); /* once */
	CHECK_EQ_INT(site_at(t, 40, 0x1010, 150), 0xA);
	CHECK_EQ_INT(site_at(t, 40, 0x1010, 250), 0xB); /* not ended by A's free */
	CHECK_EQ_INT(site_at(t, 40, 0x1010, 5000), 0xB);
	CHECK_EQ_INT(site_at(t, 40, 0x5010, 5000), 0xD);
	CHECK_EQ_INT(site_at(t, 40, 0x8010, 5000), 0xC);
	struct pms_alloc_stats st;
	pms_alloc_table_stats(t, &st);
	CHECK_EQ_U64(st.allocs, 4);
	CHECK_EQ_U64(st.unmatched_frees, 1);
	pms_alloc_table_free(t);
	/* a malformed record in a chunk is refused */
	file[PMS_ALLOC_HDR_SIZE + 2] = 99;
	CHECK(pwrite(fd, file, sizeof(file), 0) == (ssize_t)sizeof(file));
	CHECK_OK(pms_alloc_table_new(&t));
	CHECK_EQ_INT(pms_alloc_table_read_fd(t, fd), PMS_EINVAL);
	pms_alloc_table_free(t);
	close(fd);
}

/* A record ended early in the stream (the preload writes a free's first 32
 * bytes, an allocation with no old_addr 48, the frames right after): read
 * back whole, as the same records written in full; a body past 56 bytes or
 * not a multiple of 8 is refused. */
PMS_TEST(short_records)
{
	blen = 0;
	rec(PMS_ALLOC_START, 41, 1, 0, 0, 1, 0);
	rec(PMS_ALLOC_MALLOC, 41, 100, 0x1000, 64, 0, 0xA);
	rec(PMS_ALLOC_FREE, 41, 210, 0x1000, 0, 0, 0);
	unsigned char whole[512];
	size_t wlen = blen;
	memcpy(whole, buf, blen);
	/* the same three, cut as the preload cuts them */
	static unsigned char file[PMS_ALLOC_HDR_SIZE + PMS_ALLOC_CHUNK];
	file_head(file, sizeof(file), PMS_ALLOC_STREAM_MAGIC, 1);
	unsigned char *c = file + PMS_ALLOC_HDR_SIZE;
	size_t at = 0, from = 0;
	const size_t bodies[3] = { 56, 48, 32 };
	for (size_t i = 0; i < 3; i++) {
		struct pms_alloc_rec r;
		memcpy(&r, whole + from, sizeof(r));
		size_t frames = (size_t)r.nframes * 8;
		r.size = (uint16_t)(bodies[i] + frames);
		memcpy(c + at, &r, bodies[i]);
		memcpy(c + at + bodies[i], whole + from + sizeof(r), frames);
		at += r.size;
		from += sizeof(r) + frames;
	}
	CHECK_EQ_U64(at, wlen - 8 - 24); /* 8 and 24 bytes shorter */
	int fd = memfd_create("alloc-test", 0);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, file, sizeof(file)) == (ssize_t)sizeof(file));
	void *got = NULL;
	size_t glen = 0;
	CHECK_OK(pms_alloc_stream_read(fd, &got, &glen));
	CHECK_EQ_U64(glen, wlen);
	CHECK(got && glen == wlen && memcmp(got, whole, wlen) == 0);
	free(got);
	struct pms_alloc_table *t = NULL;
	CHECK_OK(pms_alloc_table_new(&t));
	CHECK_EQ_INT(pms_alloc_table_read_fd(t, fd), 3);
	CHECK_EQ_INT(site_at(t, 41, 0x1010, 150), 0xA);
	CHECK_EQ_INT(site_at(t, 41, 0x1010, 250), -1);
	pms_alloc_table_free(t);
	/* a body of 36 bytes (not a multiple of 8) is refused */
	uint16_t bad = 36;
	memcpy(c + 56, &bad, sizeof(bad));
	CHECK(pwrite(fd, file, sizeof(file), 0) == (ssize_t)sizeof(file));
	CHECK_EQ_INT(pms_alloc_stream_read(fd, &got, &glen), PMS_EINVAL);
	close(fd);
}

/* rec(), its time in counter ticks (PMS_ALLOC_F_TSC). */
static void rec_tsc(unsigned kind, uint32_t pid, uint64_t tick, uint64_t addr, uint64_t bytes,
		    uint64_t frame0)
{
	size_t at = blen;
	rec(kind, pid, tick, addr, bytes, 0, frame0);
	uint32_t fl = PMS_ALLOC_F_TSC;
	memcpy(buf + at + offsetof(struct pms_alloc_rec, flags), &fl, sizeof(fl));
}

/* A calibration point: CLOCK_MONOTONIC ns at a tick, read width ticks apart. */
static void clock_point(uint64_t ns, uint64_t tick, uint64_t width)
{
	rec(PMS_ALLOC_CLOCK, 42, ns, tick, width, 0, 0);
}

/* Times in counter ticks (the preload's, where the kernel's clock is the
 * TSC) are made CLOCK_MONOTONIC ns by the reader: linear between the
 * calibration points around them, past the last one along the first and
 * last; a point read across a preemption (wide) is not used; the points
 * are not given on, and the flag is cleared.  Points here: tick 3,000,000
 * at 1,000,000 ns and 3,012,000 at 1,004,000 (1/3 ns a tick); a wide one
 * at 3,006,000 claims 999 ns. */
PMS_TEST(tsc_times)
{
	static unsigned char file[PMS_ALLOC_HDR_SIZE + 2 * PMS_ALLOC_CHUNK];
	file_head(file, sizeof(file), PMS_ALLOC_STREAM_MAGIC, 2);
	blen = 0;
	clock_point(1000000, 3000000, 40);
	rec_tsc(PMS_ALLOC_START, 42, 3000300, 0, 0, 0);
	rec_tsc(PMS_ALLOC_MALLOC, 42, 3003000, 0x1000, 64, 0xA);
	rec_tsc(PMS_ALLOC_FREE, 42, 3009000, 0x1000, 0, 0);
	put_chunk(file, 0);
	clock_point(1004000, 3012000, 30);
	clock_point(999, 3006000, 100000);
	rec_tsc(PMS_ALLOC_MALLOC, 42, 3010500, 0x1000, 64, 0xB);
	rec_tsc(PMS_ALLOC_MALLOC, 42, 3015000, 0x9000, 64, 0xC);
	put_chunk(file, 1);
	int fd = memfd_create("alloc-test", 0);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, file, sizeof(file)) == (ssize_t)sizeof(file));
	void *got = NULL;
	size_t glen = 0;
	CHECK_OK(pms_alloc_stream_read(fd, &got, &glen));
	const uint64_t want[5] = { 1000100, 1001000, 1003000, 1003500, 1005000 };
	size_t at = 0, k = 0;
	while (got && at + sizeof(struct pms_alloc_rec) <= glen && k < 5) {
		struct pms_alloc_rec r;
		memcpy(&r, (unsigned char *)got + at, sizeof(r));
		CHECK_MSG(r.kind != PMS_ALLOC_CLOCK, "a calibration point given on");
		CHECK_EQ_U64(r.time, want[k]);
		CHECK_EQ_U64(r.flags & PMS_ALLOC_F_TSC, 0);
		at += r.size;
		k++;
	}
	CHECK_EQ_U64(k, 5);
	CHECK_EQ_U64(at, glen);
	free(got);
	struct pms_alloc_table *t = NULL;
	CHECK_OK(pms_alloc_table_new(&t));
	CHECK_EQ_INT(pms_alloc_table_read_fd(t, fd), 5);
	CHECK_EQ_INT(site_at(t, 42, 0x1010, 1002000), 0xA);
	CHECK_EQ_INT(site_at(t, 42, 0x1010, 1003200), -1); /* freed, not yet B's */
	CHECK_EQ_INT(site_at(t, 42, 0x1010, 1003600), 0xB);
	pms_alloc_table_free(t);
	/* one point only: refused */
	blen = 0;
	clock_point(1000000, 3000000, 40);
	rec_tsc(PMS_ALLOC_MALLOC, 42, 3003000, 0x1000, 64, 0xA);
	file_head(file, sizeof(file), PMS_ALLOC_STREAM_MAGIC, 2);
	put_chunk(file, 0);
	CHECK(pwrite(fd, file, sizeof(file), 0) == (ssize_t)sizeof(file));
	CHECK_EQ_INT(pms_alloc_stream_read(fd, &got, &glen), PMS_EINVAL);
	/* a version 1 file (no points, every time in ns) is read as before */
	file_head(file, sizeof(file), PMS_ALLOC_STREAM_MAGIC_V1, 2);
	blen = 0;
	rec(PMS_ALLOC_START, 42, 1, 0, 0, 1, 0);
	rec(PMS_ALLOC_MALLOC, 42, 100, 0x1000, 64, 0, 0xA);
	put_chunk(file, 0);
	CHECK(pwrite(fd, file, sizeof(file), 0) == (ssize_t)sizeof(file));
	CHECK_OK(pms_alloc_table_new(&t));
	CHECK_EQ_INT(pms_alloc_table_read_fd(t, fd), 2);
	CHECK_EQ_INT(site_at(t, 42, 0x1010, 150), 0xA);
	pms_alloc_table_free(t);
	close(fd);
}

/* Every kind below PMS_ALLOC_KIND_MAX has its own name; others are "?". */
PMS_TEST(kind_names)
{
	CHECK_EQ_STR(pms_alloc_kind_name(PMS_ALLOC_MALLOC), "malloc");
	CHECK_EQ_STR(pms_alloc_kind_name(PMS_ALLOC_POSIX_MEMALIGN), "posix_memalign");
	CHECK_EQ_STR(pms_alloc_kind_name(PMS_ALLOC_MMAP), "mmap");
	CHECK_EQ_STR(pms_alloc_kind_name(PMS_ALLOC_FREE), "free");
	CHECK_EQ_STR(pms_alloc_kind_name(PMS_ALLOC_TLS), "tls");
	CHECK_EQ_STR(pms_alloc_kind_name(PMS_ALLOC_CLOCK), "clock");
	CHECK_EQ_STR(pms_alloc_kind_name(PMS_ALLOC_KIND_MAX), "?");
	for (unsigned k = 0; k < PMS_ALLOC_KIND_MAX; k++)
		for (unsigned j = k + 1; j < PMS_ALLOC_KIND_MAX; j++)
			if (strcmp(pms_alloc_kind_name(k), "?"))
				CHECK_MSG(strcmp(pms_alloc_kind_name(k), pms_alloc_kind_name(j)) != 0,
					  "kinds %u and %u share a name", k, j);
}

PMS_TEST_MAIN()
