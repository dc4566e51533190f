/* perf's time order over a reader (pms_perfdata_ordered): a file written
 * here with records out of time order inside a round and across a round
 * boundary (an exec's COMM after the new program's samples, as perf record
 * writes them from two CPUs' rings), a record of time 0, and FINISHED_ROUND
 * records; the order perf's ordered events give (a round's records go out
 * at the next FINISHED_ROUND up to the latest time of the round before),
 * and the same records with the same bytes as the plain reader's. */
#include "check.h"
#include "records.h"

#include "pmuscope/error.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct want {
	uint32_t type;
	uint64_t time;
};

static void put(struct pms_perfdata_writer *w, struct rec *r)
{
	CHECK_OK(pms_perfdata_writer_write(w, r->b, r->n));
}

static void round_end(struct pms_perfdata_writer *w)
{
	struct rec r;
	rec_begin(&r, 68 /* PERF_RECORD_FINISHED_ROUND */, 0);
	rec_end(&r);
	put(w, &r);
}

static uint64_t ev_time(const struct pms_perfdata_event *ev)
{
	if (ev->rec.type == PMS_RECORD_SAMPLE)
		return ev->rec.sample.time;
	return ev->rec.type < 64 ? ev->rec.sample_id.time : 0;
}

PMS_TEST(rounds_in_time_order_as_perf_orders_them)
{
	FILE *f = tmpfile();
	struct perf_event_attr a = rec_attr();
	const uint64_t id = 7;
	struct pms_perfdata_writer *w = NULL;
	struct pms_perfdata_reader *rd = NULL;
	struct pms_perfdata_ordered *q = NULL;
	struct rec r;
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_OK(pms_perfdata_writer_open(fileno(f), &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, &id, 1));
	/* round 1: CPU 0's ring, then CPU 1's (a COMM older than a sample) */
	rec_sample(&r, 0x400000, 10, 10, 10, 0x1000, 0, 1, 0);
	put(w, &r);
	rec_sample(&r, 0x400010, 10, 11, 30, 0x1000, 0, 1, 0);
	put(w, &r);
	rec_comm(&r, 10, 11, "ls", 20, 1);
	put(w, &r);
	round_end(w);
	/* round 2: a COMM older than round 1's last sample, a sample of no
	 * time (goes out at once), a later sample */
	rec_comm(&r, 10, 12, "cat", 25, 1);
	put(w, &r);
	rec_sample(&r, 0x400020, 10, 12, 0, 0x1000, 1, 1, 0);
	put(w, &r);
	rec_sample(&r, 0x400030, 10, 12, 40, 0x1000, 1, 1, 0);
	put(w, &r);
	round_end(w);
	/* the last round has no FINISHED_ROUND: the end hands it out */
	rec_sample(&r, 0x400040, 10, 12, 35, 0x1000, 0, 1, 0);
	put(w, &r);
	rec_sample(&r, 0x400050, 10, 12, 35, 0x1000, 1, 1, 0);
	put(w, &r);
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);

	const struct want want[] = {
		{ 68, 0 }, /* round 1 ends: nothing is old enough yet */
		{ PMS_RECORD_SAMPLE, 0 },  /* no time: at once */
		{ PMS_RECORD_SAMPLE, 10 }, /* round 2 ends: up to round 1's latest, 30 */
		{ PMS_RECORD_COMM, 20 },
		{ PMS_RECORD_COMM, 25 },
		{ PMS_RECORD_SAMPLE, 30 },
		{ 68, 0 },
		{ PMS_RECORD_SAMPLE, 35 }, /* the end: the rest, equal times in file order */
		{ PMS_RECORD_SAMPLE, 35 },
		{ PMS_RECORD_SAMPLE, 40 },
	};
	const uint64_t ip35[2] = { 0x400040, 0x400050 };
	size_t n = 0, n35 = 0;
	int rc;
	CHECK_OK(pms_perfdata_reader_open_fd(fileno(f), &rd));
	CHECK_OK(pms_perfdata_ordered_new(rd, &q));
	if (rd && q) {
		struct pms_perfdata_event ev;
		while ((rc = pms_perfdata_ordered_next(q, &ev)) > 0) {
			if (n < sizeof(want) / sizeof(want[0])) {
				CHECK_MSG(ev.rec.type == want[n].type && ev_time(&ev) == want[n].time,
					  "record %zu: type %u time %" PRIu64 ", want type %u time %" PRIu64,
					  n, ev.rec.type, ev_time(&ev), want[n].type, want[n].time);
				if (ev.rec.type == PMS_RECORD_COMM)
					CHECK_EQ_STR(ev.rec.comm.comm, want[n].time == 20 ? "ls" : "cat");
				if (ev.rec.type == PMS_RECORD_SAMPLE && ev.rec.sample.time == 35 && n35 < 2)
					CHECK_EQ_U64(ev.rec.sample.ip, ip35[n35++]);
				CHECK(ev.attr != NULL && ev.attr_idx == 0);
			}
			n++;
		}
		CHECK_EQ_INT(rc, 0);
		CHECK_EQ_U64(n, sizeof(want) / sizeof(want[0]));
		const struct pms_perfdata_ordered_stats *st = pms_perfdata_ordered_stats(q);
		CHECK_EQ_U64(st->rounds, 2);
		CHECK_EQ_U64(st->queued, 7);
		CHECK(st->sorts >= 1);
		CHECK_EQ_INT(pms_perfdata_ordered_next(q, &ev), 0); /* stays ended */
	}
	pms_perfdata_ordered_free(q);
	pms_perfdata_reader_free(rd);
	CHECK_EQ_INT(pms_perfdata_ordered_new(NULL, &q), PMS_EINVAL);
	fclose(f);
}

/* A mapped file of many MiB with no FINISHED_ROUND, out of time order:
 * the queue holds its records by pointer into the mapping (the reader
 * keeps those pages while it reads on past them) and hands out the ones of
 * no time at once, then the rest by time, equal times in file order; each
 * record's own bytes (its ip) come with it.  The same from a buffer. */
#define MANY 60000
static uint64_t many_time(uint32_t i)
{
	uint32_t h = i * 2654435761u;
	return i % 97 == 5 ? 0 : 1000 + (h >> 8) % 50000; /* many equal times */
}

static int by_time_then_index(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t tx = many_time(x), ty = many_time(y);
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void check_many(struct pms_perfdata_reader *rd, const uint32_t *order)
{
	struct pms_perfdata_ordered *q = NULL;
	struct pms_perfdata_event ev;
	size_t n = 0, bad = 0;
	int rc;
	CHECK_OK(pms_perfdata_ordered_new(rd, &q));
	if (!q)
		return;
	while ((rc = pms_perfdata_ordered_next(q, &ev)) > 0) {
		if (ev.rec.type != PMS_RECORD_SAMPLE)
			continue;
		if (n >= MANY || ev.rec.sample.ip != 0x400000u + order[n] ||
		    ev.rec.sample.time != many_time(order[n]))
			bad++;
		n++;
	}
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_U64(n, MANY);
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(pms_perfdata_ordered_stats(q)->queued, MANY - (MANY + 91) / 97);
	pms_perfdata_ordered_free(q);
}

PMS_TEST(mapped_file_held_by_pointer_in_time_order)
{
	FILE *f = tmpfile();
	struct perf_event_attr a = rec_attr();
	const uint64_t id = 7;
	struct pms_perfdata_writer *w = NULL;
	struct pms_perfdata_reader *rd = NULL;
	static uint32_t order[MANY];
	size_t k = 0;
	struct rec r;
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_OK(pms_perfdata_writer_open(fileno(f), &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, &id, 1));
	for (uint32_t i = 0; i < MANY; i++) {
		rec_sample(&r, 0x400000u + i, 10, 10, many_time(i), 0x1000, i & 1, 1, 0);
		put(w, &r);
	}
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);
	/* expected: untimed in file order, then a stable sort by time */
	for (uint32_t i = 0; i < MANY; i++)
		if (!many_time(i))
			order[k++] = i;
	size_t timed = k;
	for (uint32_t i = 0; i < MANY; i++)
		if (many_time(i))
			order[k++] = i;
	qsort(order + timed, k - timed, sizeof(order[0]), by_time_then_index);
	CHECK_OK(pms_perfdata_reader_open_fd(fileno(f), &rd));
	if (rd)
		check_many(rd, order);
	pms_perfdata_reader_free(rd);
	rd = NULL;
	long len = (fseek(f, 0, SEEK_END), ftell(f));
	unsigned char *buf = len > 0 ? malloc((size_t)len) : NULL;
	CHECK(buf != NULL);
	if (buf && pread(fileno(f), buf, (size_t)len, 0) == len) {
		CHECK_OK(pms_perfdata_reader_open_mem(buf, (size_t)len, &rd));
		if (rd)
			check_many(rd, order);
		pms_perfdata_reader_free(rd);
	}
	free(buf);
	fclose(f);
}

/* A file in time order goes out as it is (the queue looks ahead and holds
 * nothing), records without a time before the first with one included;
 * one without a time after them goes out ahead of them, as perf orders it
 * (the look ahead finds it and the queue holds the rest). */
static void in_order_file(uint32_t untimed_at, const uint32_t *want, size_t nwant)
{
	FILE *f = tmpfile();
	struct perf_event_attr a = rec_attr();
	const uint64_t id = 7;
	struct pms_perfdata_writer *w = NULL;
	struct pms_perfdata_reader *rd = NULL;
	struct pms_perfdata_ordered *q = NULL;
	struct pms_perfdata_event ev;
	struct rec r;
	size_t n = 0;
	int rc;
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_OK(pms_perfdata_writer_open(fileno(f), &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, &id, 1));
	for (uint32_t i = 0; i < 6; i++) {
		rec_sample(&r, 0x400000u + i, 10, 10, i == untimed_at ? 0 : 100 + i / 2, 0x1000, 0,
			   1, 0);
		put(w, &r);
	}
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);
	CHECK_OK(pms_perfdata_reader_open_fd(fileno(f), &rd));
	CHECK_OK(rd ? pms_perfdata_ordered_new(rd, &q) : PMS_EINVAL);
	while (q && (rc = pms_perfdata_ordered_next(q, &ev)) > 0) {
		CHECK(n < nwant && ev.rec.type == PMS_RECORD_SAMPLE &&
		      ev.rec.sample.ip == 0x400000u + want[n]);
		n++;
	}
	CHECK_EQ_U64(n, nwant);
	if (q)
		CHECK_EQ_U64(pms_perfdata_ordered_stats(q)->queued, 5);
	pms_perfdata_ordered_free(q);
	pms_perfdata_reader_free(rd);
	fclose(f);
}

PMS_TEST(file_in_time_order_as_it_is)
{
	static const uint32_t file_order[] = { 0, 1, 2, 3, 4, 5 };
	static const uint32_t untimed_first[] = { 3, 0, 1, 2, 4, 5 };
	in_order_file(0, file_order, 6);
	in_order_file(3, untimed_first, 6);
}

PMS_TEST_MAIN()
