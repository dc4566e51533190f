/* Cost per record of the live source's time order (src/sample/
 * memsrc_order.c over util/timeq.c): each sample's memsample and record
 * copied into the queue, sorted, handed out and packed again, against
 * what the source does with every record anyway (decoding it from the
 * ring's bytes, pms_record_parse; it decodes each held one again when
 * handed out).  Records of two rings interleaved per drain (each ring in
 * time order, the drain not), drains of DRAIN records, released up to the
 * latest time of the drain before, as memsrc.c does.  Prints ns per record
 * and ratios; never pass/fail (CPU time, so a loaded machine slows both).
 *
 *   build/bench/timeq_copy [RECORDS [DRAIN [REPS [RINGS]]]]   (1000000 4096 5 2)
 *
 * RINGS 1: every drain in time order (the queue never sorts: the copies
 * alone); 2: two rings interleaved (a sort per drain).
 */
#include "pmuscope/memsample.h"
#include "pmuscope/record.h"
#include "sample/memsrc_order_int.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	size_t drain = argc > 2 ? strtoul(argv[2], NULL, 10) : 4096;
	int reps = argc > 3 ? atoi(argv[3]) : 5;
	int rings = argc > 4 ? atoi(argv[4]) : 2;
	struct perf_event_attr attr;
	struct pms_sample_layout lay;
	unsigned char rec[256];
	size_t len = 0;
	if (!n || !drain || reps < 1 || reps > 100 || rings < 1 || rings > 2) {
		fprintf(stderr, "usage: timeq_copy [RECORDS [DRAIN [REPS [RINGS]]]]\n");
		return 2;
	}
	/* a page-fault sample with the fields a memory sample carries */
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			   PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
			   PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	attr.sample_id_all = 1;
	pms_sample_layout_from_attr(&lay, &attr);
	struct pms_record r;
	memset(&r, 0, sizeof(r));
	r.type = PMS_RECORD_SAMPLE;
	r.sample.ip = 0x401000;
	r.sample.pid = r.sample.tid = 1234;
	r.sample.addr = 0x7f0000000000;
	r.sample.period = 1;
	if (pms_record_encode(&lay, &r, rec, sizeof(rec), &len) < 0) {
		fprintf(stderr, "timeq_copy: encode failed\n");
		return 1;
	}
	/* the time field's place in the record, to stamp each copy */
	size_t toff = 0;
	for (size_t o = 8; o + 8 <= len; o += 8) {
		struct pms_record x;
		uint64_t t = 0x1122334455667788ull;
		unsigned char c[256];
		memcpy(c, rec, len);
		memcpy(c + o, &t, 8);
		if (pms_record_parse(&lay, c, len, &x) == 0 && x.sample.time == t) {
			toff = o;
			break;
		}
	}
	if (!toff) {
		fprintf(stderr, "timeq_copy: no time field found\n");
		return 1;
	}
	unsigned char *recs = malloc(n * len);
	if (!recs)
		return 1;
	/* per drain: ring 0's records then ring 1's, each in time order,
	 * the two interleaved in time */
	for (size_t i = 0; i < n; i++) {
		size_t d = i / drain * drain, k = i - d, m = (n - d < drain ? n - d : drain);
		uint64_t t = rings == 1		? 1000 + 2 * i
			     : k < (m + 1) / 2 ? 1000 + 2 * (d + k)
					       : 1001 + 2 * (d + k - (m + 1) / 2);
		memcpy(recs + i * len, rec, len);
		memcpy(recs + i * len + toff, &t, 8);
	}
	struct pms_memsample ms;
	memset(&ms, 0, sizeof(ms));
	double *dec = calloc((size_t)reps, sizeof(double)), *q = calloc((size_t)reps, sizeof(double));
	if (!dec || !q)
		return 1;
	uint64_t sink = 0;
	for (int rep = 0; rep < reps; rep++) {
		/* what the source does anyway: one decode per record */
		double t0 = cpu_ns();
		for (size_t i = 0; i < n; i++) {
			struct pms_record x;
			if (pms_record_parse(&lay, recs + i * len, len, &x) == 0)
				sink += x.sample.time;
		}
		dec[rep] = (cpu_ns() - t0) / (double)n;
		/* the queue: push each, then per drain release up to the latest
		 * time of the drain before, hand out, pack */
		struct lo_queue *lq = NULL;
		struct lo_item it;
		uint64_t limit = 0, round_max = 0;
		if (lo_new(&lq) < 0)
			return 1;
		t0 = cpu_ns();
		for (size_t d = 0; d < n; d += drain) {
			size_t e = d + drain < n ? d + drain : n;
			for (size_t i = d; i < e; i++) {
				uint64_t t;
				memcpy(&t, recs + i * len + toff, 8);
				if (lo_push(lq, LO_SAMPLE, 0, t, &ms, recs + i * len, len, &lay) < 0)
					return 1;
			}
			limit = round_max;
			round_max = lo_max_time(lq);
			lo_ready(lq, limit);
			while (lo_next(lq, &it))
				sink += it.time;
			if (lo_tidy(lq) < 0)
				return 1;
		}
		lo_ready(lq, UINT64_MAX);
		while (lo_next(lq, &it))
			sink += it.time;
		q[rep] = (cpu_ns() - t0) / (double)n;
		lo_free(lq);
	}
	qsort(dec, (size_t)reps, sizeof(double), cmp_double);
	qsort(q, (size_t)reps, sizeof(double), cmp_double);
	double dm = dec[reps / 2], qm = q[reps / 2];
	printf("records %zu of %zu bytes (+ a %zu-byte memsample), drains of %zu from %d "
	       "ring(s), %d reps (medians, CPU time)\n",
	       n, len, sizeof(struct pms_memsample), drain, rings, reps);
	printf("decode once:      %.1f ns/record\n", dm);
	printf("time-order queue: %.1f ns/record  (%.2fx one decode)\n", qm, qm / dm);
	printf("at 1 M records/s the queue costs %.1f%% of one CPU\n", qm * 1e6 / 1e9 * 100);
	fprintf(stderr, "(checksum %llu)\n", (unsigned long long)sink);
	free(dec);
	free(q);
	free(recs);
	return 0;
}
