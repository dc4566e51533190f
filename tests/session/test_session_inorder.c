/* One file read first in file order (src/session/session_inorder.c): the
 * aggregate report of one file on one thread, which reads the data once
 * and checks perf's order as it reads, is the report of the same file read
 * through the time-order queue after its look ahead (the serial path a
 * caller's callback keeps, test_session.c's report_of), field by field
 * (report_diff.c), for data in order (the read holds), data in order but
 * for a late COMM and a late sample (the read breaks at the end and the
 * file is read again; the queue sorts them in) and data in rounds out of
 * order (it breaks at the first FINISHED_ROUND).  The late file also
 * reports as the same records in time order.  [fake] files written here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "../perfdata/records.h"
#include "../report/report_diff.h"
#include "pmuscope/error.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/session.h"

#define NS 3000

struct item {
	uint64_t time;
	struct rec r;
};

static struct item items[NS + 2];
static size_t nitems;

static void add_sample(uint64_t time, uint32_t i)
{
	struct item *it = &items[nitems++];
	it->time = time;
	rec_sample(&it->r, 0x401000 + (i % 97) * 16, 100, 101 + i % 3, time,
		   0x7f0000000000ULL + (i % 211) * 64, i % 2, 20 + i % 50,
		   0x68100142ULL + ((uint64_t)(i % 5) << 24));
}

/* Samples at 1000 + 10 i; then a COMM of thread 101 at 1005 and a sample
 * at 5, after all of them in the file. */
static void late_items(void)
{
	nitems = 0;
	for (uint32_t i = 0; i < NS; i++)
		add_sample(1000 + 10 * (uint64_t)i, i);
	items[nitems].time = 1005;
	rec_comm(&items[nitems++].r, 100, 101, "late", 1005, 0);
	add_sample(5, NS);
}

static int by_time(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x < y ? -1 : x > y; /* stable: the file's order */
}

/* The items to a new file at path; round: a FINISHED_ROUND after every
 * round items, each round's samples written newest first. */
static void write_items(const char *path, size_t round)
{
	struct perf_event_attr a = rec_attr();
	const uint64_t id = 7;
	struct pms_perfdata_writer *w = NULL;
	FILE *f = fopen(path, "w+");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_OK(pms_perfdata_writer_open(fileno(f), &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, &id, 1));
	for (size_t i = 0; w && i < nitems; i += round ? round : nitems) {
		size_t n = round ? (nitems - i < round ? nitems - i : round) : nitems - i;
		for (size_t k = 0; k < n; k++) {
			const struct rec *r = &items[round ? i + n - 1 - k : i + k].r;
			CHECK_OK(pms_perfdata_writer_write(w, r->b, r->n));
		}
		if (round) {
			struct rec fin;
			rec_begin(&fin, 68 /* PERF_RECORD_FINISHED_ROUND */, 0);
			rec_end(&fin);
			CHECK_OK(pms_perfdata_writer_write(w, fin.b, fin.n));
		}
	}
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);
	fclose(f);
}

static int count_sample(void *ud, const struct pms_memsrc_sample *x)
{
	(void)x;
	(*(size_t *)ud)++;
	return 0;
}

/* The aggregate report of path on one thread; queue: through a callback
 * (the queue after its look, as before this read). */
static struct pms_memreport *report_of(const char *path, bool queue, uint64_t *records)
{
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	struct pms_session_opts o = PMS_SESSION_OPTS_INIT;
	const struct pms_session_callbacks cb = { count_sample, NULL, NULL };
	const char *paths[1] = { path };
	size_t seen = 0;
	po.aggregate = true;
	o.profile_opts = &po;
	o.symbols = false;
	o.jobs = 1;
	if (queue) {
		o.callbacks = &cb;
		o.ud = &seen;
	}
	struct pms_session *s = NULL;
	struct pms_memreport *rep = NULL;
	CHECK_OK(pms_session_open_files(NULL, paths, 1, &o, &s));
	if (!s)
		return NULL;
	CHECK_OK(pms_session_run(s));
	CHECK_MSG(pms_session_file_error(s, 0) == NULL, "%s: %s", path,
		  pms_session_file_error(s, 0));
	CHECK_OK(pms_session_report(s, NULL, &rep, NULL));
	struct pms_memsrc_stats st;
	pms_session_stats(s, &st);
	CHECK_EQ_U64(st.samples, rep ? rep->samples : 0);
	struct pms_perfdata_stats fs;
	pms_session_file_stats(s, &fs);
	*records = fs.records;
	if (queue)
		CHECK_EQ_U64(seen, st.samples);
	pms_session_free(s);
	return rep;
}

static void same_reports(const char *a, const char *b, bool queue_b, size_t want)
{
	uint64_t ra = 0, rb = 0;
	struct pms_memreport *x = report_of(a, false, &ra), *y = report_of(b, queue_b, &rb);
	CHECK(x && y);
	/* the file's records counted once, whichever reads there were */
	CHECK_EQ_U64(ra, rb);
	if (x && y) {
		CHECK_EQ_U64(x->samples, want);
		CHECK_MSG(pms_t_report_diff(x, y) == 0, "%s against %s%s", a, b,
			  queue_b ? " through the queue" : "");
	}
	pms_memreport_free(x);
	pms_memreport_free(y);
}

PMS_TEST(one_read_reports_as_the_queue)
{
	char dir[] = "/tmp/pms-inorder-XXXXXX", late[64], sorted[64], rounds[64];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(late, sizeof(late), "%s/late.data", dir);
	snprintf(sorted, sizeof(sorted), "%s/sorted.data", dir);
	snprintf(rounds, sizeof(rounds), "%s/rounds.data", dir);
	late_items();
	write_items(late, 0);
	qsort(items, nitems, sizeof(items[0]), by_time);
	write_items(sorted, 0);
	late_items();
	write_items(rounds, 100);

	same_reports(sorted, sorted, true, NS + 1);  /* in order: the read holds */
	same_reports(late, late, true, NS + 1);      /* breaks at its end */
	same_reports(rounds, rounds, true, NS + 1);  /* breaks at its first round */
	/* the queue's order (the late file's rounds aside: no rounds) */
	uint64_t r1 = 0, r2 = 0;
	struct pms_memreport *x = report_of(late, false, &r1), *y = report_of(sorted, false, &r2);
	CHECK(x && y && pms_t_report_diff(x, y) == 0);
	CHECK_EQ_U64(r1, r2);
	CHECK_EQ_U64(r1, NS + 2);
	pms_memreport_free(x);
	pms_memreport_free(y);

	unlink(late);
	unlink(sorted);
	unlink(rounds);
	rmdir(dir);
}

PMS_TEST_MAIN()
