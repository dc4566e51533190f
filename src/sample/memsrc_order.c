/* A live source's time order (memsrc_order_int.h).
 *
 * The sampler drains one ring after the other, so the records of one
 * drain come in time order per ring only: a CPU's samples can come before
 * the COMM and MMAP of the exec on another CPU that names them.  The live
 * source (memsrc.c) holds a copy of each record here and hands them out
 * by time, as perf report's ordered queue does with perf record's rounds
 * (src/perfdata/ordered.c does it for a recorded file, over a reader's
 * records in place).  Both are the one time-order queue of util/timeq.c;
 * this holds each record's copy (a sample's memsample first) in its
 * buffer, packed again after each hand-out (the held records are at most
 * about two drains' worth), and the records' distinct layouts. */
#include "sample/memsrc_order_int.h"

#include "util/error.h"
#include "util/grow.h"
#include "util/timeq.h"

#include <stdlib.h>
#include <string.h>

static const char QNAME[] = "the live time-order queue"; /* in out-of-memory messages */

struct ent {
	struct pms_tq_key k; /* its bytes: a sample's memsample, then the record */
	uint16_t lay;
	uint8_t kind;
	int16_t ev;
};

struct lo_queue {
	struct pms_timeq tq;
	struct pms_sample_layout *lays; /* the distinct layouts seen */
	size_t nlays, caplays;
};

int lo_new(struct lo_queue **out)
{
	struct lo_queue *q = calloc(1, sizeof(*q));
	if (!q)
		return pms_err(PMS_ENOMEM, "out of memory for the live time-order queue");
	pms_tq_init(&q->tq, sizeof(struct ent), QNAME);
	*out = q;
	return 0;
}

void lo_free(struct lo_queue *q)
{
	if (!q)
		return;
	pms_tq_fini(&q->tq);
	free(q->lays);
	free(q);
}

static int layout_index(struct lo_queue *q, const struct pms_sample_layout *l)
{
	for (size_t i = 0; i < q->nlays; i++)
		if (!memcmp(&q->lays[i], l, sizeof(*l)))
			return (int)i;
	if (q->nlays == UINT16_MAX)
		return pms_err(PMS_ENOMEM, "too many record layouts in the live time-order queue");
	int rc = pms_grow(&q->lays, &q->caplays, q->nlays + 1, sizeof(*q->lays), 8, QNAME);
	if (rc < 0)
		return rc;
	q->lays[q->nlays] = *l;
	return (int)q->nlays++;
}

int lo_push(struct lo_queue *q, enum lo_kind kind, int ev, uint64_t time,
	    const struct pms_memsample *ms, const void *raw, size_t len,
	    const struct pms_sample_layout *layout)
{
	size_t extra = kind == LO_SAMPLE ? sizeof(*ms) : 0;
	int li = layout_index(q, layout), rc;
	void *slot;
	if (li < 0)
		return li;
	if ((rc = pms_tq_push(&q->tq, time, extra + len, &slot)) < 0)
		return rc;
	struct ent *x = slot;
	unsigned char *b = pms_tq_bytes(&q->tq, x);
	x->lay = (uint16_t)li;
	x->kind = (uint8_t)kind;
	x->ev = (int16_t)ev;
	if (extra)
		memcpy(b, ms, extra);
	if (len)
		memcpy(b + extra, raw, len);
	return 0;
}

void lo_ready(struct lo_queue *q, uint64_t limit)
{
	(void)pms_tq_release(&q->tq, limit);
}

bool lo_next(struct lo_queue *q, struct lo_item *out)
{
	const struct ent *x = pms_tq_next(&q->tq);
	if (!x)
		return false;
	const unsigned char *b = pms_tq_bytes(&q->tq, x);
	size_t extra = x->kind == LO_SAMPLE ? sizeof(out->ms) : 0;
	out->kind = (enum lo_kind)x->kind;
	out->ev = x->ev;
	out->time = x->k.time;
	out->raw = b + extra;
	out->len = x->k.nbytes - extra;
	out->layout = &q->lays[x->lay];
	if (extra)
		memcpy(&out->ms, b, extra);
	return true;
}

int lo_tidy(struct lo_queue *q)
{
	return pms_tq_tidy(&q->tq);
}

uint64_t lo_max_time(const struct lo_queue *q)
{
	return q->tq.max_time;
}

size_t lo_held(const struct lo_queue *q)
{
	return pms_tq_held(&q->tq);
}

size_t lo_bytes(const struct lo_queue *q)
{
	return q->tq.nbytes;
}

uint64_t lo_half_time(struct lo_queue *q)
{
	return pms_tq_half_time(&q->tq);
}

uint64_t lo_late(const struct lo_queue *q)
{
	return q->tq.late;
}
