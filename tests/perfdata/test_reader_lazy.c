/* The perf.data reader's lazy samples (src/perfdata/reader_lazy.h): a
 * SAMPLE of fixed-size fields comes undecoded with its time, and decodes
 * from its bytes to what the reader decodes when not lazy; samples with a
 * field of variable size (a callchain) are decoded by the reader either way;
 * the statistics are the same.  The per-layout plan that decodes them
 * (pms_sample_fixed_layout/_decode, pms_pd_decode) gives what
 * pms_record_parse gives, byte for byte, for every subset of the fixed
 * fields.  [fake] files written by the library's writer. */
#include "check.h"
#include "perf_tool.h"

#include "decode/record_io.h"
#include "perfdata/reader_lazy.h"
#include "pmuscope/error.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"

#include <fcntl.h>
#include <sys/stat.h>

#define ST_FIXED                                                                     \
	(PMS_SAMPLE_IDENTIFIER | PMS_SAMPLE_IP | PMS_SAMPLE_TID | PMS_SAMPLE_TIME |     \
	 PMS_SAMPLE_ADDR | PMS_SAMPLE_CPU | PMS_SAMPLE_PERIOD | PMS_SAMPLE_WEIGHT |     \
	 PMS_SAMPLE_DATA_SRC)
#define ST_CHAIN (ST_FIXED | PMS_SAMPLE_CALLCHAIN)
#define NSAMPLES 64

static struct perf_event_attr mk_attr(uint64_t st, uint64_t config)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_RAW;
	a.size = sizeof(a);
	a.config = config;
	a.sample_period = 1000;
	a.sample_type = st;
	a.sample_id_all = 1;
	return a;
}

/* Sample i: attr 0 (fixed fields, id 1) when even, attr 1 (a callchain,
 * id 2) when odd. */
static void mk_sample(struct pms_record *r, uint64_t i, const uint64_t *chain)
{
	memset(r, 0, sizeof(*r));
	r->type = PMS_RECORD_SAMPLE;
	r->sample.misc = PMS_MISC_USER;
	r->sample.id = i % 2 ? 2 : 1;
	r->sample.ip = 0x401000 + i;
	r->sample.pid = 100;
	r->sample.tid = 101 + (uint32_t)(i % 3);
	r->sample.time = 5000 + 7 * i;
	r->sample.addr = 0x7f0000001000 + i * 64;
	r->sample.cpu = (uint32_t)(i % 4);
	r->sample.period = 1000 + i;
	r->sample.weight = 30 + i;
	r->sample.data_src = 0x10268100142ULL + (i << 20);
	if (i % 2) {
		r->sample.callchain_nr = 3;
		r->sample.callchain = chain;
	}
}

/* w closed and freed, its file (fd at path in dir) read back whole and
 * removed: the bytes, *len of them. */
static unsigned char *finish_file(struct pms_perfdata_writer *w, int fd, const char *path,
				  const char *dir, size_t *len)
{
	struct stat st;
	unsigned char *buf = NULL;

	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);
	CHECK(fstat(fd, &st) == 0);
	*len = (size_t)st.st_size;
	buf = malloc(*len);
	CHECK(buf && pread(fd, buf, *len, 0) == st.st_size);
	close(fd);
	unlink(path);
	rmdir(dir);
	return buf;
}

/* NSAMPLES samples of two attrs (fixed fields; a call chain), one after the
 * other, with sample back's time before the one ahead of it (SIZE_MAX:
 * none), and a FINISHED_ROUND before sample round (SIZE_MAX: none). */
static unsigned char *write_back(size_t back, size_t round, size_t *len)
{
	char dir[256], path[512];
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a0 = mk_attr(ST_FIXED, 0x1cd), a1 = mk_attr(ST_CHAIN, 0x2cd);
	const uint64_t id0 = 1, id1 = 2, chain[3] = { 0x401000, 0x402000, 0x403000 };
	struct pms_sample_layout l0, l1;
	unsigned char rec[512];

	CHECK(pt_mkdtemp(dir, sizeof(dir)) != NULL);
	snprintf(path, sizeof(path), "%s/back.data", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	pms_sample_layout_from_attr(&l0, &a0);
	pms_sample_layout_from_attr(&l1, &a1);
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a0, &id0, 1));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a1, &id1, 1));
	for (uint64_t i = 0; w && i < NSAMPLES; i++) {
		struct pms_record r;
		size_t n = 0;
		mk_sample(&r, i, chain);
		if (i == back)
			r.sample.time -= 10;
		if (i == round) {
			const unsigned char fin[8] = { 68, 0, 0, 0, 0, 0, 8, 0 };
			CHECK_OK(pms_perfdata_writer_write(w, fin, sizeof(fin)));
		}
		CHECK_OK(pms_record_encode(i % 2 ? &l1 : &l0, &r, rec, sizeof(rec), &n));
		CHECK_OK(pms_perfdata_writer_write(w, rec, n));
	}
	return finish_file(w, fd, path, dir, len);
}

static unsigned char *write_mem(size_t *len)
{
	return write_back(SIZE_MAX, SIZE_MAX, len);
}

PMS_TEST(lazy_samples_decode_as_eager)
{
	size_t len = 0;
	unsigned char *buf = write_mem(&len);
	struct pms_perfdata_reader *eager = NULL, *lazy = NULL;
	struct pms_perfdata_event e, z;
	int re = 0, rz = 0;
	size_t n = 0, nlazy = 0;

	CHECK_OK(pms_perfdata_reader_open_mem(buf, len, &eager));
	CHECK_OK(pms_perfdata_reader_open_mem(buf, len, &lazy));
	if (!eager || !lazy)
		goto out;
	pms_pd_lazy_samples(lazy, true);
	while ((re = pms_perfdata_next(eager, &e)) > 0 && (rz = pms_perfdata_next(lazy, &z)) > 0) {
		CHECK_EQ_INT(z.rec.type, e.rec.type);
		CHECK_EQ_INT(z.attr_idx, e.attr_idx);
		CHECK_EQ_U64(z.file_offset, e.file_offset);
		CHECK(!pms_pd_event_lazy(&e));
		if (e.rec.type != PMS_RECORD_SAMPLE)
			continue;
		n++;
		/* only the fixed-field event is lazy */
		CHECK_EQ_INT(pms_pd_event_lazy(&z), e.attr_idx == 0);
		CHECK_EQ_U64(z.rec.sample.time, e.rec.sample.time);
		CHECK_EQ_INT(z.rec.misc, e.rec.misc);
		if (pms_pd_event_lazy(&z)) {
			struct pms_sample_layout l;
			static struct pms_record planned;
			nlazy++;
			/* the plan's decoding is the general parse's, byte for byte */
			CHECK_OK(pms_pd_decode(z.attr, z.raw, z.raw_len, &planned));
			pms_sample_layout_from_attr(&l, z.attr->attr);
			CHECK_OK(pms_record_parse(&l, z.raw, z.raw_len, &z.rec));
			CHECK(!memcmp(&planned, &z.rec, sizeof(planned)));
		}
		CHECK_EQ_U64(z.rec.sample.present, e.rec.sample.present);
		CHECK_EQ_U64(z.rec.sample.ip, e.rec.sample.ip);
		CHECK_EQ_U64(z.rec.sample.addr, e.rec.sample.addr);
		CHECK_EQ_U64(z.rec.sample.data_src, e.rec.sample.data_src);
		CHECK_EQ_U64(z.rec.sample.period, e.rec.sample.period);
		CHECK_EQ_U64(z.rec.sample.weight, e.rec.sample.weight);
		CHECK_EQ_INT(z.rec.sample.tid, e.rec.sample.tid);
		CHECK_EQ_INT(z.rec.sample.cpu, e.rec.sample.cpu);
		CHECK_EQ_U64(z.rec.sample.callchain_nr, e.rec.sample.callchain_nr);
	}
	/* the eager reader ended first in the loop: the lazy one ends now */
	CHECK_EQ_INT(re, 0);
	CHECK(rz >= 0);
	CHECK_EQ_INT(pms_perfdata_next(lazy, &z), 0);
	CHECK_EQ_INT(n, NSAMPLES);
	CHECK_EQ_INT(nlazy, NSAMPLES / 2);
	CHECK_EQ_U64(pms_perfdata_reader_stats(lazy)->samples, pms_perfdata_reader_stats(eager)->samples);
	CHECK_EQ_U64(pms_perfdata_reader_stats(lazy)->records, pms_perfdata_reader_stats(eager)->records);
	CHECK_EQ_U64(pms_perfdata_reader_stats(lazy)->bad_records, 0);
out:
	pms_perfdata_reader_free(eager);
	pms_perfdata_reader_free(lazy);
	free(buf);
}

/* The fixed fields (WEIGHT_STRUCT stands for either weight) */
static const uint64_t fixed_bits[] = {
	PMS_SAMPLE_IDENTIFIER, PMS_SAMPLE_IP, PMS_SAMPLE_TID, PMS_SAMPLE_TIME,
	PMS_SAMPLE_ADDR, PMS_SAMPLE_ID, PMS_SAMPLE_STREAM_ID, PMS_SAMPLE_CPU,
	PMS_SAMPLE_PERIOD, PMS_SAMPLE_WEIGHT, PMS_SAMPLE_DATA_SRC, PMS_SAMPLE_TRANSACTION,
	PMS_SAMPLE_PHYS_ADDR, PMS_SAMPLE_CGROUP, PMS_SAMPLE_DATA_PAGE_SIZE,
	PMS_SAMPLE_CODE_PAGE_SIZE, PMS_SAMPLE_WEIGHT_STRUCT,
};
#define NFIXED (sizeof(fixed_bits) / sizeof(fixed_bits[0]))

/* Every field its own value (the weight's three WEIGHT_STRUCT parts too). */
static void fill_fixed(struct pms_sample *s, uint64_t k)
{
	memset(s, 0, sizeof(*s));
	s->misc = (uint16_t)(PMS_MISC_USER | (k & 1 ? PMS_MISC_EXACT_IP : 0));
	s->id = 0x1d + k;
	s->ip = 0x401000 + k;
	s->pid = 100;
	s->tid = 101;
	s->time = 123456789 + k;
	s->addr = 0x7fff0000 + k;
	s->stream_id = 0x5d;
	s->cpu = 3;
	s->cpu_res = 7;
	s->period = 10007;
	s->weight = 0x0003000200000123ULL + k;
	s->weight_var1_dw = (uint32_t)s->weight;
	s->weight_var2_w = 2;
	s->weight_var3_w = 3;
	s->data_src = 0x10268100142ULL;
	s->transaction = 0x55;
	s->phys_addr = 0x12345000;
	s->cgroup = 9;
	s->data_page_size = 4096;
	s->code_page_size = 2u << 20;
}

PMS_TEST(fixed_plan_decodes_as_the_general_parse)
{
	unsigned char rec[512];
	static struct pms_record a, b;
	size_t subsets = 0;
	/* every subset of the first 12 fields, and random ones of all */
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	for (uint64_t m = 0; m < (1u << 12) + 4096; m++) {
		uint64_t pick = m;
		if (m >= (1u << 12)) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			pick = seed;
		}
		struct pms_sample_layout l;
		struct pms_sample_fixed f;
		struct pms_sample s;
		memset(&l, 0, sizeof(l));
		for (size_t i = 0; i < NFIXED; i++)
			if (pick & (1ULL << i))
				l.sample_type |= fixed_bits[i];
		if (!l.sample_type)
			continue;
		pms_sample_fixed_layout(&l, &f);
		CHECK(f.body > 0);
		fill_fixed(&s, m);
		size_t n = 0;
		if (pms_sample_encode(&l, &s, rec, sizeof(rec), &n) < 0) {
			CHECK(0);
			continue;
		}
		CHECK_EQ_U64(n, 8 + f.body);
		CHECK_OK(pms_record_parse(&l, rec, n, &a));
		memset(&b, 0xA5, sizeof(b)); /* the plan sets every byte */
		pms_sample_fixed_decode(&f, rec, &b);
		CHECK(!memcmp(&a, &b, sizeof(a)));
		if (l.sample_type & PMS_SAMPLE_TIME) {
			uint64_t t;
			memcpy(&t, rec + f.time_off, 8);
			CHECK_EQ_U64(t, s.time);
		} else {
			CHECK_EQ_U64(f.time_off, 0);
		}
		subsets++;
	}
	CHECK(subsets > 4000);
	/* a field of variable size or a bit the decoder does not know: no plan */
	struct pms_sample_layout l;
	struct pms_sample_fixed f;
	memset(&l, 0, sizeof(l));
	l.sample_type = PMS_SAMPLE_IP | PMS_SAMPLE_CALLCHAIN;
	pms_sample_fixed_layout(&l, &f);
	CHECK_EQ_U64(f.body, 0);
	l.sample_type = PMS_SAMPLE_IP | (1ULL << 62);
	pms_sample_fixed_layout(&l, &f);
	CHECK_EQ_U64(f.body, 0);
}

/* ---- one event decoded over the one before (pms_pd_ordered_own) ---------- */

/* Attr 2: fixed fields of another sample_type (no weight or data source:
 * the fields the first plan sets and it does not must read zero). */
#define ST_FIXED2 (PMS_SAMPLE_IDENTIFIER | PMS_SAMPLE_IP | PMS_SAMPLE_TID | PMS_SAMPLE_TIME | \
		   PMS_SAMPLE_CPU | PMS_SAMPLE_PERIOD | PMS_SAMPLE_PHYS_ADDR)

/* A file of the three attrs' samples in turn (fixed, callchain, fixed
 * twice, other fixed); shuffled: times out of order inside rounds of 7 records with a
 * FINISHED_ROUND after each (the queue's path), else in time order and
 * no rounds (the pass-through). */
static unsigned char *write_mixed(size_t *len, bool shuffled)
{
	char dir[256], path[512];
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a[3] = { mk_attr(ST_FIXED, 0x1cd), mk_attr(ST_CHAIN, 0x2cd),
					mk_attr(ST_FIXED2, 0x3cd) };
	const uint64_t chain[3] = { 0x401000, 0x402000, 0x403000 };
	struct pms_sample_layout l[3];
	unsigned char rec[512];

	CHECK(pt_mkdtemp(dir, sizeof(dir)) != NULL);
	snprintf(path, sizeof(path), "%s/mixed.data", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	for (size_t k = 0; k < 3; k++) {
		const uint64_t id = k + 1;
		pms_sample_layout_from_attr(&l[k], &a[k]);
		CHECK_OK(pms_perfdata_writer_add_attr(w, &a[k], &id, 1));
	}
	for (uint64_t i = 0; w && i < 3 * NSAMPLES; i++) {
		struct pms_record r;
		/* the first plan after itself, after a callchain sample and
		 * after the other plan */
		static const size_t turn[5] = { 0, 1, 0, 0, 2 };
		size_t n = 0, k = turn[i % 5];
		mk_sample(&r, i, chain);
		r.sample.id = k + 1;
		r.sample.callchain_nr = k == 1 ? 3 : 0;
		r.sample.callchain = k == 1 ? chain : NULL;
		r.sample.phys_addr = 0x9000 + i;
		/* out of order inside a round of 7, never before the last round */
		if (shuffled)
			r.sample.time = 5000 + 7 * (i / 7) * 7 + (6 - i % 7) * 3;
		CHECK_OK(pms_record_encode(&l[k], &r, rec, sizeof(rec), &n));
		CHECK_OK(pms_perfdata_writer_write(w, rec, n));
		if (shuffled && i % 7 == 6) {
			const unsigned char fin[8] = { 68, 0, 0, 0, 0, 0, 8, 0 };
			CHECK_OK(pms_perfdata_writer_write(w, fin, sizeof(fin)));
		}
	}
	return finish_file(w, fd, path, dir, len);
}

/* The time-order queue handing out one event its caller owns gives every
 * record byte for byte as one that decodes each afresh: a plan's sample
 * over one of another sample_type, over a callchain sample, over a round's
 * record, in the pass-through and in the queue. */
static void own_as_fresh(bool shuffled)
{
	size_t len = 0;
	unsigned char *buf = write_mixed(&len, shuffled);
	struct pms_perfdata_reader *ra = NULL, *rb = NULL;
	struct pms_perfdata_ordered *qa = NULL, *qb = NULL;
	static struct pms_perfdata_event ea, eb;
	int rca = 0, rcb = 0;
	size_t n = 0, rounds = 0;
	uint64_t last = 0;
	bool ordered = true;

	CHECK_OK(pms_perfdata_reader_open_mem(buf, len, &ra));
	CHECK_OK(pms_perfdata_reader_open_mem(buf, len, &rb));
	if (!ra || !rb)
		goto out;
	CHECK_OK(pms_perfdata_ordered_new(ra, &qa));
	CHECK_OK(pms_perfdata_ordered_new(rb, &qb));
	if (!qa || !qb)
		goto out;
	pms_pd_ordered_own(qb);
	while ((rca = pms_perfdata_ordered_next(qa, &ea)) > 0 &&
	       (rcb = pms_perfdata_ordered_next(qb, &eb)) > 0) {
		CHECK_EQ_U64(eb.file_offset, ea.file_offset);
		CHECK(!memcmp(&ea.rec, &eb.rec, sizeof(ea.rec)));
		if (ea.rec.type == 68)
			rounds++;
		if (ea.rec.type != PMS_RECORD_SAMPLE)
			continue;
		n++;
		ordered = ordered && ea.rec.sample.time >= last;
		last = ea.rec.sample.time;
		/* the other plan's fields are not left behind */
		if (ea.rec.sample.id == 3)
			CHECK(!eb.rec.sample.weight && !eb.rec.sample.data_src && !eb.rec.sample.addr);
		else if (ea.rec.sample.id == 1)
			CHECK(!eb.rec.sample.phys_addr && eb.rec.sample.data_src);
	}
	CHECK_EQ_INT(rca, 0);
	CHECK_EQ_INT(pms_perfdata_ordered_next(qb, &eb), 0);
	CHECK_EQ_INT(n, 3 * NSAMPLES);
	CHECK(ordered);
	CHECK_EQ_INT(rounds, shuffled ? 3 * NSAMPLES / 7 : 0);
	/* the queue's path was taken when the data was out of order */
	CHECK_EQ_INT(pms_perfdata_ordered_stats(qb)->rounds > 0, shuffled);
out:
	pms_perfdata_ordered_free(qa);
	pms_perfdata_ordered_free(qb);
	pms_perfdata_reader_free(ra);
	pms_perfdata_reader_free(rb);
	free(buf);
}

/* The order look (pms_pd_reader_order_look: a fixed-field sample judged
 * by its time in place, the others through the reader) finds what order
 * hint 2's reading finds, record by record: in order to the end; broken
 * by a fixed-field sample, a callchain sample or a round, the times seen
 * ending at the record before. */
PMS_TEST(order_look_judges_as_hint_2)
{
	static const struct {
		size_t back, round;
		int want;
	} cases[] = {
		{ SIZE_MAX, SIZE_MAX, 1 }, { 20, SIZE_MAX, 0 }, { 21, SIZE_MAX, 0 },
		{ SIZE_MAX, 30, 0 },       { SIZE_MAX, 31, 0 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t len = 0;
		unsigned char *buf = write_back(cases[c].back, cases[c].round, &len);
		struct pms_perfdata_reader *look = NULL, *slow = NULL;
		struct pms_perfdata_event ev;
		CHECK_OK(pms_perfdata_reader_open_mem(buf, len, &look));
		CHECK_OK(pms_perfdata_reader_open_mem(buf, len, &slow));
		if (look && slow) {
			CHECK_EQ_INT(pms_pd_reader_order_look(look), cases[c].want);
			/* the same reading, an event a record */
			pms_pd_lazy_samples(slow, true);
			pms_pd_reader_set_order_hint(slow, 2);
			while (pms_perfdata_next(slow, &ev) > 0)
				;
			uint64_t f0, l0, f1, l1;
			bool u0, u1;
			CHECK_EQ_INT(pms_pd_reader_order_seen(look, &f0, &l0, &u0), cases[c].want);
			CHECK_EQ_INT(pms_pd_reader_order_seen(slow, &f1, &l1, &u1), cases[c].want);
			CHECK_EQ_U64(f0, 5000);
			CHECK_EQ_U64(f0, f1);
			CHECK_EQ_U64(l0, l1);
			CHECK_EQ_INT(u0, u1);
			size_t stop = cases[c].back < cases[c].round ? cases[c].back : cases[c].round;
			CHECK_EQ_U64(l0, 5000 + 7 * (stop == SIZE_MAX ? NSAMPLES - 1 : stop - 1));
			CHECK_EQ_U64(pms_perfdata_reader_stats(look)->samples,
				     pms_perfdata_reader_stats(slow)->samples);
		}
		pms_perfdata_reader_free(look);
		pms_perfdata_reader_free(slow);
		free(buf);
	}
}

PMS_TEST(owned_event_decodes_as_fresh_in_order)
{
	own_as_fresh(false);
}

PMS_TEST(owned_event_decodes_as_fresh_through_the_queue)
{
	own_as_fresh(true);
}

PMS_TEST_MAIN()
