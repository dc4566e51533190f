/* perf's time order over a perf.data reader (include/pmuscope/perfdata.h,
 * pms_perfdata_ordered_*).
 *
 * perf record drains the CPUs' rings one after the other and writes a
 * FINISHED_ROUND after each pass, so the file is in time order only per
 * ring: inside a round, and across one round boundary, a record of one CPU
 * can come before an earlier record of another CPU (an exec's COMM after
 * the new program's first samples).  perf report and perf script take the
 * records through a queue sorted by time (its ordered events): a kernel
 * record with a time is queued; at a FINISHED_ROUND the queued records up
 * to the latest time seen at the round before are handed out in time order
 * (equal times in file order), and the latest time seen now becomes the
 * next round's limit; at the end everything left.  Records without a time
 * (none in the record, or 0) and perf's own records (type 64 and up:
 * AUXTRACE, HEADER_ATTR, ...) are handed out as they come.  This does the
 * same, with the one time-order queue (util/timeq.c, also under the live
 * source's, src/sample/memsrc_order.c).  A held record of a mapped file
 * (or of the caller's buffer) is held by pointer into it, as perf holds
 * its mmap'ed file's records, and the reader keeps those pages mapped
 * (pms_pd_keep_from); only a record
 * whose bytes do not live on (a stream's, a decompressed or a byte-swapped
 * one) is copied.  Data whose perf order is its file order (looked at
 * once, ahead, data_in_time_order) goes out as it comes, with no queue;
 * otherwise a run of records in order is never sorted (the queue notes
 * that each record came at or after the one before).  Held records are decoded when handed out: the
 * reader hands out samples of fixed-size fields undecoded, with only their
 * time (reader_lazy.h), so each such sample is decoded once; the others
 * are decoded again.  A queue past QUEUE_BYTES or
 * QUEUE_RECS hands out its older half by time, as perf does at its queue's
 * size limit (OE_FLUSH__HALF: up to the time halfway between the oldest and
 * the newest held); perf report's queue has no limit unless configured, so
 * a file without FINISHED_ROUNDs whose records are out of order by more
 * than that window can come out otherwise than perf's.  An AUXTRACE record
 * (SPE, ...) hands out everything held before it: its samples are decoded
 * when it comes, and perf, which decodes a trace in time order with the
 * side-band, names them with the side-band before them (the order of the
 * other records around a trace can then differ from perf's).
 */
#include "pmuscope/perfdata.h"

#include "reader_lazy.h"
#include "util/error.h"
#include "util/timeq.h"

#include <stdlib.h>
#include <string.h>

static const char QNAME[] = "the time-order queue"; /* in out-of-memory messages */

#define QUEUE_BYTES PMS_PD_QUEUE_BYTES
#define QUEUE_RECS PMS_PD_QUEUE_RECS
#define REC_FINISHED_ROUND 68

struct oent {
	struct pms_tq_key k; /* k.nbytes: a copy's (the queue's buffer) */
	const unsigned char *p; /* the bytes in the reader's buffer; NULL: copied */
	size_t len;
	size_t attr_idx;
	const struct pms_perfdata_attr *attr;
	uint64_t file_offset;
	bool from_compressed;
};

struct pms_perfdata_ordered {
	struct pms_perfdata_reader *r;
	struct pms_timeq tq; /* the held records (struct oent), the copies' bytes */
	bool flushed;	  /* ready ones are a flush's (tidied up once handed out) */
	size_t held;	  /* bytes of the held records (the queue's size limit) */
	uint64_t keep; /* the lowest file offset held by pointer, UINT64_MAX: none */
	uint64_t next_flush;
	struct pms_perfdata_event cur; /* a FINISHED_ROUND, out after the flushed ones */
	bool pend;
	bool ended;
	bool checked, through; /* the data looked at ahead; in time order: no queue */
	/* the caller passes one event it does not write (pms_pd_ordered_own):
	 * what its record holds, so a plan's sample is decoded over the one
	 * before without clearing it (reader_lazy.h) */
	bool own;
	struct pms_pd_clean clean;
	struct pms_pd_clean *rclean; /* the reader's (pms_pd_reader_decode_over), or NULL */
	struct pms_perfdata_ordered_stats st;
};

int pms_perfdata_ordered_new(struct pms_perfdata_reader *r, struct pms_perfdata_ordered **out)
{
	struct pms_perfdata_ordered *q;
	if (!r || !out)
		return pms_err(PMS_EINVAL, "perfdata_ordered_new: NULL argument");
	q = calloc(1, sizeof(*q));
	if (!q)
		return pms_err(PMS_ENOMEM, "out of memory for the time-order queue");
	q->r = r;
	pms_tq_init(&q->tq, sizeof(struct oent), QNAME);
	q->keep = UINT64_MAX;
	pms_pd_lazy_samples(r, true); /* each fixed-field sample decoded once */
	*out = q;
	return 0;
}

void pms_perfdata_ordered_free(struct pms_perfdata_ordered *q)
{
	if (!q)
		return;
	pms_tq_fini(&q->tq); /* the reader may be gone: its keep_from is left */
	free(q);
}

const struct pms_perfdata_ordered_stats *
pms_perfdata_ordered_stats(const struct pms_perfdata_ordered *q)
{
	return &q->st;
}

void pms_pd_ordered_own(struct pms_perfdata_ordered *q)
{
	q->own = true;
	q->clean.rec = NULL;
}

/* A record read into ev: what ev's record holds now. */
static inline int read_into(struct pms_perfdata_ordered *q, struct pms_perfdata_event *ev)
{
	int rc = pms_perfdata_next(q->r, ev);
	if (!q->rclean) /* else the reader keeps its own */
		pms_pd_clean_after_read(&q->clean, rc, ev);
	return rc;
}

/* Decode into ev's record: over the last decode when the caller owns ev. */
static inline int decode_into(struct pms_perfdata_ordered *q, const struct pms_perfdata_attr *attr,
			      const void *raw, size_t len, struct pms_record *out)
{
	if (!q->own)
		return pms_pd_decode(attr, raw, len, out);
	return pms_pd_decode_over(attr, raw, len, out, q->rclean ? q->rclean : &q->clean);
}

/* The time perf orders the record by; 0 when it has none. */
static uint64_t rec_time(const struct pms_perfdata_event *ev)
{
	return pms_pd_rec_time(ev);
}

static int queue(struct pms_perfdata_ordered *q, const struct pms_perfdata_event *ev, uint64_t t)
{
	struct oent *x;
	void *slot;
	bool stable = pms_pd_event_stable(q->r, ev);
	int rc = pms_tq_push(&q->tq, t, stable ? 0 : ev->raw_len, &slot);
	if (rc < 0)
		return rc;
	q->st.late = q->tq.late; /* perf's "out of order events": after later ones */
	x = slot;
	x->len = ev->raw_len;
	x->attr_idx = ev->attr_idx;
	x->attr = ev->attr;
	x->file_offset = ev->file_offset;
	x->from_compressed = ev->from_compressed;
	if (stable) {
		x->p = ev->raw;
		if (q->keep == UINT64_MAX) { /* the queue's lowest: records come in file order */
			q->keep = ev->file_offset;
			pms_pd_keep_from(q->r, q->keep);
		}
	} else {
		x->p = NULL;
		memcpy(pms_tq_bytes(&q->tq, x), ev->raw, ev->raw_len);
	}
	q->held += ev->raw_len;
	q->st.queued++;
	return 0;
}

/* Hand out the queued records of time <= limit (in time order); half:
 * up to halfway between the oldest and the newest held. */
static void flush(struct pms_perfdata_ordered *q, uint64_t limit, bool half)
{
	if (half && pms_tq_held(&q->tq))
		limit = pms_tq_half_time(&q->tq);
	size_t ready = pms_tq_release(&q->tq, limit);
	q->st.sorts = q->tq.sorts;
	q->flushed = ready > 0;
	if (ready) {
		const struct oent *last = pms_tq_at(&q->tq, ready - 1);
		if (last->k.time > q->st.last_flush)
			q->st.last_flush = last->k.time;
	}
}

/* After a flush is handed out: the held records' size, their lowest file
 * offset (for the reader's mapped pages) and their copies packed again;
 * the entries moved down once the handed-out ones are most of the array. */
static int tidy(struct pms_perfdata_ordered *q)
{
	size_t held = 0;
	uint64_t keep = UINT64_MAX;
	int rc = pms_tq_tidy(&q->tq);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < pms_tq_held(&q->tq); i++) {
		const struct oent *x = pms_tq_at(&q->tq, i);
		held += x->len;
		if (x->p && x->file_offset < keep)
			keep = x->file_offset;
	}
	q->held = held;
	if (keep != q->keep) {
		q->keep = keep;
		pms_pd_keep_from(q->r, keep);
	}
	q->flushed = false;
	return 0;
}

/* A lazy sample handed out as it came: decoded now (it always parses). */
static int decode_now(struct pms_perfdata_ordered *q, struct pms_perfdata_event *ev)
{
	if (!pms_pd_event_lazy(ev))
		return 1;
	if (decode_into(q, ev->attr, ev->raw, ev->raw_len, &ev->rec) < 0)
		return pms_err(PMS_EPARSE, "a sample at offset %llu did not decode",
			       (unsigned long long)ev->file_offset);
	return 1;
}

/* Whether perf's order of the whole data is its file order, so that the
 * records can go out as they come: records without a time only before the
 * first with one, then every record with a time at or after the one
 * before, and no FINISHED_ROUND, AUXTRACE or compressed record (perf
 * would hand out a record without a time, or the round's, ahead of held
 * ones).  Read with a second reader over the same buffer, in the same lazy
 * mode, so each record's time is the one the queue would order it by,
 * judged by the reader's order hint 2 (the rule the split's chunks are
 * read by, pms_pd_reader_order_look); the first record that breaks it ends
 * the look (a file from perf record, with its rounds, at once).  A read
 * error: no (the queue reports it). */
static bool data_in_time_order(struct pms_perfdata_ordered *q)
{
	struct pms_perfdata_reader *t = NULL;
	if (pms_pd_reader_twin(q->r, &t) <= 0)
		return false;
	int rc = pms_pd_reader_order_look(t);
	pms_perfdata_reader_free(t);
	return rc > 0;
}

/* A record of data in time order, handed out as it comes (the statistics:
 * queued counts the records with a time, last_flush the latest). */
static int pass_through(struct pms_perfdata_ordered *q, struct pms_perfdata_event *ev)
{
	int rc = q->ended ? 0 : read_into(q, ev);
	if (rc <= 0) {
		q->ended = true;
		return rc;
	}
	uint64_t t = rec_time(ev);
	if (t && t != UINT64_MAX) {
		q->st.queued++;
		q->st.last_flush = t;
	}
	return decode_now(q, ev);
}

/* One held record, decoded from its bytes (again, unless the reader left it
 * undecoded). */
static int deliver(struct pms_perfdata_ordered *q, const struct oent *x,
		   struct pms_perfdata_event *out)
{
	out->raw = x->p ? x->p : pms_tq_bytes(&q->tq, x);
	out->raw_len = x->len;
	/* a pipe-mode HEADER_ATTR may have moved the reader's attrs */
	out->attr = pms_perfdata_reader_attr(q->r, x->attr_idx);
	if (!out->attr)
		out->attr = x->attr; /* the reader's stand-in of a file without attrs */
	out->attr_idx = x->attr_idx;
	out->file_offset = x->file_offset;
	out->from_compressed = x->from_compressed;
	memset(&out->auxtrace, 0, sizeof(out->auxtrace));
	out->aux_data = NULL;
	out->aux_len = 0;
	out->aux_pid = 0;
	out->aux_tid = UINT32_MAX;
	/* it decoded (or, lazy, its layout was checked) when the reader read
	 * it: the same bytes decode again */
	if (decode_into(q, out->attr, out->raw, out->raw_len, &out->rec) < 0)
		return pms_err(PMS_EPARSE, "a held record at offset %llu did not decode again",
			       (unsigned long long)x->file_offset);
	return 1;
}

int pms_perfdata_ordered_next(struct pms_perfdata_ordered *q, struct pms_perfdata_event *ev)
{
	int rc;
	if (!q || !ev)
		return pms_err(PMS_EINVAL, "perfdata_ordered_next: NULL argument");
	if (!q->checked) {
		q->checked = true;
		/* a split decode's chunk: its plan looked already (split.c) */
		int hint = pms_pd_reader_order_hint(q->r);
		q->through = hint ? hint > 0 : data_in_time_order(q);
		/* records out as they come, into the owner's one event: the
		 * reader decodes them there */
		if (q->through && q->own)
			q->rclean = pms_pd_reader_decode_over(q->r);
	}
	if (q->through)
		return pass_through(q, ev);
	for (;;) {
		const struct oent *x = pms_tq_next(&q->tq);
		if (x)
			return deliver(q, x, ev);
		if (q->flushed && (rc = tidy(q)) < 0)
			return rc;
		if (q->pend) {
			q->pend = false;
			*ev = q->cur;
			q->clean.rec = NULL;
			return 1;
		}
		if (q->ended)
			return 0;
		/* straight into the caller's: most records are held, and the
		 * others go out as they are */
		rc = read_into(q, ev);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			q->ended = true;
			flush(q, UINT64_MAX, false);
			continue;
		}
		uint64_t t = rec_time(ev);
		if (ev->rec.type == REC_FINISHED_ROUND) {
			q->st.rounds++;
			flush(q, q->next_flush, false);
			q->next_flush = q->tq.max_time;
			if (!q->flushed)
				return 1; /* nothing old enough: the round's record alone */
			q->cur = *ev;
			q->pend = true;
			continue;
		}
		if (ev->rec.type == PMS_PERFDATA_RECORD_AUXTRACE && pms_tq_held(&q->tq)) {
			/* its samples are decoded as it comes: the held side-band
			 * goes first (perf decodes the trace in time order) */
			q->st.aux_flushes++;
			flush(q, UINT64_MAX, false);
			q->cur = *ev;
			q->pend = true;
			continue;
		}
		if (!t || t == UINT64_MAX)
			return decode_now(q, ev);
		if ((rc = queue(q, ev, t)) < 0)
			return rc;
		if (q->held > QUEUE_BYTES || pms_tq_held(&q->tq) > QUEUE_RECS) {
			q->st.full++;
			flush(q, 0, true);
		}
	}
}
