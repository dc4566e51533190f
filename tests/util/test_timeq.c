#include "check.h"
#include "util/timeq.h"
#include "pmuscope/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct item {
	struct pms_tq_key k;
	int id;
};

static int push(struct pms_timeq *q, uint64_t t, int id, const char *bytes)
{
	void *slot;
	size_t n = bytes ? strlen(bytes) + 1 : 0;
	int rc = pms_tq_push(q, t, n, &slot);
	if (rc < 0)
		return rc;
	struct item *x = slot;
	x->id = id;
	if (n)
		memcpy(pms_tq_bytes(q, x), bytes, n);
	return 0;
}

/* The ids handed out until none is ready, into ids (at most max). */
static size_t drain(struct pms_timeq *q, int *ids, size_t max)
{
	size_t n = 0;
	const struct item *x;
	while ((x = pms_tq_next(q)))
		if (n < max)
			ids[n++] = x->id;
	return n;
}

PMS_TEST(timeq_equal_times_keep_push_order)
{
	struct pms_timeq q;
	int ids[16];
	pms_tq_init(&q, sizeof(struct item), "test queue");
	/* out of order, with ties pushed in the order 1,2,3 (time 5) and 4,5
	 * (time 2): a sort must keep each tie's push order */
	CHECK_OK(push(&q, 5, 1, NULL));
	CHECK_OK(push(&q, 2, 4, NULL));
	CHECK_OK(push(&q, 5, 2, NULL));
	CHECK_OK(push(&q, 9, 6, NULL));
	CHECK_OK(push(&q, 2, 5, NULL));
	CHECK_OK(push(&q, 5, 3, NULL));
	CHECK_EQ_INT(pms_tq_flush(&q), 6);
	CHECK_EQ_INT(drain(&q, ids, 16), 6);
	int want[] = { 4, 5, 1, 2, 3, 6 };
	for (int i = 0; i < 6; i++)
		CHECK_EQ_INT(ids[i], want[i]);
	CHECK_EQ_INT(q.sorts, 1);
	pms_tq_fini(&q);
}

PMS_TEST(timeq_release_up_to_t_holds_the_rest)
{
	struct pms_timeq q;
	int ids[16];
	pms_tq_init(&q, sizeof(struct item), "test queue");
	CHECK_OK(push(&q, 30, 3, "thirty"));
	CHECK_OK(push(&q, 10, 1, "ten"));
	CHECK_OK(push(&q, 40, 4, "forty"));
	CHECK_OK(push(&q, 20, 2, "twenty"));
	CHECK_EQ_U64(q.max_time, 40);
	CHECK_EQ_U64(pms_tq_half_time(&q), 25);
	CHECK_EQ_INT(pms_tq_release(&q, 5), 0); /* nothing that old */
	CHECK(pms_tq_next(&q) == NULL);
	CHECK_EQ_INT(pms_tq_release(&q, 20), 2); /* T itself included */
	const struct item *x = pms_tq_next(&q);
	CHECK(x && x->id == 1 && !strcmp((const char *)pms_tq_bytes(&q, x), "ten"));
	x = pms_tq_next(&q);
	CHECK(x && x->id == 2 && !strcmp((const char *)pms_tq_bytes(&q, x), "twenty"));
	CHECK(pms_tq_next(&q) == NULL);
	CHECK_OK(pms_tq_tidy(&q));
	CHECK_EQ_INT(pms_tq_held(&q), 2);
	/* the held ones' bytes packed again: "thirty" and "forty" only */
	CHECK_EQ_INT(q.nbytes, 7 + 6);
	x = pms_tq_at(&q, 0);
	CHECK(x->id == 3 && !strcmp((const char *)pms_tq_bytes(&q, x), "thirty"));
	/* one that comes after a later one went out: late, first at the next release */
	CHECK_EQ_INT(q.late, 0);
	CHECK_OK(push(&q, 15, 7, "late"));
	CHECK_EQ_INT(q.late, 1);
	CHECK_EQ_INT(pms_tq_release(&q, 35), 2);
	CHECK_EQ_INT(drain(&q, ids, 16), 2);
	CHECK_EQ_INT(ids[0], 7);
	CHECK_EQ_INT(ids[1], 3);
	CHECK_OK(pms_tq_tidy(&q));
	CHECK_EQ_INT(pms_tq_flush(&q), 1);
	x = pms_tq_next(&q);
	CHECK(x && x->id == 4 && !strcmp((const char *)pms_tq_bytes(&q, x), "forty"));
	CHECK_OK(pms_tq_tidy(&q));
	CHECK_EQ_INT(pms_tq_held(&q), 0);
	CHECK_EQ_INT(q.nbytes, 0);
	CHECK_EQ_U64(pms_tq_half_time(&q), 0);
	pms_tq_fini(&q);
}

PMS_TEST(timeq_ready_ones_left_stay_ready_across_pushes)
{
	struct pms_timeq q;
	int ids[16];
	pms_tq_init(&q, sizeof(struct item), "test queue");
	CHECK_OK(push(&q, 1, 1, "a"));
	CHECK_OK(push(&q, 2, 2, "b"));
	CHECK_EQ_INT(pms_tq_release(&q, 2), 2);
	const struct item *x = pms_tq_next(&q); /* a caller stops after one */
	CHECK(x && x->id == 1);
	CHECK_OK(pms_tq_tidy(&q)); /* a ready one left: nothing moves */
	CHECK_EQ_INT(pms_tq_held(&q), 1);
	CHECK_OK(push(&q, 3, 3, "c"));
	CHECK_EQ_INT(pms_tq_release(&q, 3), 2);
	CHECK_EQ_INT(drain(&q, ids, 16), 2);
	CHECK_EQ_INT(ids[0], 2);
	CHECK_EQ_INT(ids[1], 3);
	pms_tq_fini(&q);
}

/* Many entries, with and without bytes, pushed in rounds out of order:
 * the arrays grow, every entry comes out once, in (time, push) order,
 * with its own bytes. */
PMS_TEST(timeq_growth_over_rounds)
{
	struct pms_timeq q;
	enum { N = 20000, ROUND = 1500 };
	uint64_t last_t = 0;
	int last_id = -1, seen = 0;
	unsigned rnd = 12345;
	char buf[32];
	pms_tq_init(&q, sizeof(struct item), "test queue");
	for (int i = 0; i < N; i++) {
		rnd = rnd * 1103515245u + 12345u;
		/* times jitter back by up to 63 behind i*8: ties and reorders */
		uint64_t t = (uint64_t)i * 8 + 64 - ((rnd >> 16) & 63);
		snprintf(buf, sizeof(buf), "%d", i);
		CHECK_OK(push(&q, t, i, (i % 3) ? buf : NULL));
		if (i % ROUND == ROUND - 1 || i == N - 1) {
			/* everything before the round's start is old enough */
			uint64_t limit = i == N - 1 ? UINT64_MAX
					: i >= ROUND ? (uint64_t)(i - ROUND) * 8 : 0;
			pms_tq_release(&q, limit);
			const struct item *x;
			while ((x = pms_tq_next(&q))) {
				CHECK(x->k.time > last_t ||
				      (x->k.time == last_t && x->id > last_id));
				if (x->id % 3) {
					snprintf(buf, sizeof(buf), "%d", x->id);
					CHECK_EQ_STR((const char *)pms_tq_bytes(&q, x), buf);
				}
				last_t = x->k.time;
				last_id = x->id;
				seen++;
			}
			CHECK_OK(pms_tq_tidy(&q));
		}
	}
	CHECK_EQ_INT(seen, N);
	CHECK_EQ_INT(pms_tq_held(&q), 0);
	CHECK_EQ_INT(q.late, 0);
	CHECK(q.cap >= 2048 && q.capbytes >= 1u << 16); /* grew past the first sizes */
	pms_tq_fini(&q);
}

PMS_TEST_MAIN()
