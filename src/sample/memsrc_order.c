/* A live source's time order (memsrc_order_int.h).
 *
 * The sampler drains one ring after the other, so the records of one
 * drain come in time order per ring only: a CPU's samples can come before
 * the COMM and MMAP of the exec on another CPU that names them.  The live
 * source (memsrc.c) holds a copy of each record here and hands them out
 * by time, as perf report's ordered queue does with perf record's rounds
 * (src/perfdata/ordered.c does it for a recorded file; it works over a
 * reader's records in place, so it is not used for the rings' copies).
 * Entries keep their bytes in one buffer, packed again after each hand-out
 * (the held records are at most about two drains' worth). */
#include "sample/memsrc_order_int.h"

#include "util/error.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

static const char QNAME[] = "the live time-order queue"; /* in out-of-memory messages */

struct ent {
	uint64_t time, seq;
	size_t off;   /* in bytes: a sample's memsample, then the record */
	uint32_t len; /* the record's */
	uint16_t lay;
	uint8_t kind;
	int16_t ev;
};

struct lo_queue {
	struct ent *e;
	size_t h, dend, n, cap; /* e[h..dend): ready, e[h..n): held */
	unsigned char *bytes, *alt;
	size_t nbytes, capbytes, capalt;
	struct pms_sample_layout *lays; /* the distinct layouts seen */
	size_t nlays, caplays;
	uint64_t seq, max_time, last_out, late;
	bool sorted;
};

int lo_new(struct lo_queue **out)
{
	struct lo_queue *q = calloc(1, sizeof(*q));
	if (!q)
		return pms_err(PMS_ENOMEM, "out of memory for the live time-order queue");
	q->sorted = true;
	*out = q;
	return 0;
}

void lo_free(struct lo_queue *q)
{
	if (!q)
		return;
	free(q->e);
	free(q->bytes);
	free(q->alt);
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
	if (li < 0)
		return li;
	if ((rc = pms_grow(&q->e, &q->cap, q->n + 1, sizeof(*q->e), 1024, QNAME)) < 0 ||
	    (rc = pms_grow(&q->bytes, &q->capbytes, q->nbytes + extra + len, 1, 1u << 16, QNAME)) < 0)
		return rc;
	if (q->n > q->h && time < q->e[q->n - 1].time)
		q->sorted = false;
	if (time < q->last_out)
		q->late++;
	struct ent *x = &q->e[q->n++];
	*x = (struct ent){ time, q->seq++, q->nbytes, (uint32_t)len, (uint16_t)li, (uint8_t)kind,
			   (int16_t)ev };
	if (extra)
		memcpy(q->bytes + q->nbytes, ms, extra);
	memcpy(q->bytes + q->nbytes + extra, raw, len);
	q->nbytes += extra + len;
	if (time > q->max_time)
		q->max_time = time;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void sort_held(struct lo_queue *q)
{
	if (!q->sorted) {
		qsort(q->e + q->h, q->n - q->h, sizeof(*q->e), by_time);
		q->sorted = true;
	}
}

void lo_ready(struct lo_queue *q, uint64_t limit)
{
	size_t lo = q->h, hi = q->n;
	sort_held(q);
	while (lo < hi) { /* the first entry past limit */
		size_t mid = lo + (hi - lo) / 2;
		if (q->e[mid].time <= limit)
			lo = mid + 1;
		else
			hi = mid;
	}
	q->dend = lo;
}

bool lo_next(struct lo_queue *q, struct lo_item *out)
{
	if (q->h >= q->dend)
		return false;
	const struct ent *x = &q->e[q->h++];
	size_t extra = x->kind == LO_SAMPLE ? sizeof(out->ms) : 0;
	out->kind = (enum lo_kind)x->kind;
	out->ev = x->ev;
	out->time = x->time;
	out->raw = q->bytes + x->off + extra;
	out->len = x->len;
	out->layout = &q->lays[x->lay];
	if (extra)
		memcpy(&out->ms, q->bytes + x->off, extra);
	if (x->time > q->last_out)
		q->last_out = x->time;
	return true;
}

int lo_tidy(struct lo_queue *q)
{
	size_t nb = 0;
	int rc;
	if (q->h < q->dend || !q->h)
		return 0; /* ready ones left, or nothing handed out */
	for (size_t i = q->h; i < q->n; i++)
		nb += (q->e[i].kind == LO_SAMPLE ? sizeof(struct pms_memsample) : 0) + q->e[i].len;
	if (nb && (rc = pms_grow(&q->alt, &q->capalt, nb, 1, 1u << 16, QNAME)) < 0)
		return rc;
	nb = 0;
	for (size_t i = q->h; i < q->n; i++) {
		struct ent *x = &q->e[i];
		size_t l = (x->kind == LO_SAMPLE ? sizeof(struct pms_memsample) : 0) + x->len;
		memcpy(q->alt + nb, q->bytes + x->off, l);
		x->off = nb;
		nb += l;
	}
	unsigned char *b = q->bytes;
	size_t c = q->capbytes;
	q->bytes = q->alt;
	q->capbytes = q->capalt;
	q->alt = b;
	q->capalt = c;
	q->nbytes = nb;
	memmove(q->e, q->e + q->h, (q->n - q->h) * sizeof(*q->e));
	q->n -= q->h;
	q->h = q->dend = 0;
	return 0;
}

uint64_t lo_max_time(const struct lo_queue *q)
{
	return q->max_time;
}

size_t lo_held(const struct lo_queue *q)
{
	return q->n - q->h;
}

size_t lo_bytes(const struct lo_queue *q)
{
	return q->nbytes;
}

uint64_t lo_half_time(struct lo_queue *q)
{
	if (q->n == q->h)
		return 0;
	sort_held(q);
	return q->e[q->h].time + (q->e[q->n - 1].time - q->e[q->h].time) / 2;
}

uint64_t lo_late(const struct lo_queue *q)
{
	return q->late;
}
