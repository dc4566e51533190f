/* One file's data in chunks for a parallel decode (reader_lazy.h,
 * pms_pd_split_plan; issue 33).
 *
 * One pass reads the data (a twin reader in lazy mode: a fixed-field
 * sample is not decoded, only its time read) and plans the chunks so that
 * the chunks' records, each chunk through its own time-order queue
 * (ordered.c), one chunk after the other, are the records perf's queue
 * hands out for the whole data, in that order:
 *
 * - Data whose perf order is its file order (what ordered.c's look finds:
 *   records without a time only before the first with one, times never
 *   going back, no FINISHED_ROUND, AUXTRACE or compressed record): chunks
 *   are byte ranges cut at record boundaries, read without a queue.
 * - Data in rounds (perf record's FINISHED_ROUNDs): with M_j the latest
 *   time up to the end of round j, perf's queue hands a record out late
 *   (after a later one) only if its time is under a limit it flushed by,
 *   which is at most M_{r-2} for a record of round r, and flushes early
 *   (the older half of a full queue) only when what it holds, records of
 *   rounds r-1 and r at most, passes its size limits.  When every timed
 *   record of round r has a time >= M_{r-2} and no two neighbouring rounds
 *   pass the limits, perf's order of the timed records is their order by
 *   (time, file order).  A cut after round b where M_{b+1} > M_b then
 *   splits it by time: the records of time <= M_b all lie in rounds up to
 *   b+2, those after it in rounds from b+1 on.  A chunk is the rounds that
 *   can hold its time window (a+1 to b+2), of which its reader passes the
 *   window's records (pms_pd_reader_chunk), its queue sorting them as
 *   perf's does.  The records without a time must all come before the
 *   first with one (they go out as they come, in the first chunk).
 * - Anything else (a round holding records older than two rounds before,
 *   records without a time among timed ones, AUXTRACE or compressed data,
 *   rounds too big for the queue, a problem found while reading): one
 *   chunk, the file read as before.
 *
 * The side-band records (MMAP, MMAP2, COMM, FORK, EXIT) are listed with
 * their times in perf's order, for a chunk's decoder to take the state
 * they set before its first record (pms_pd_split_before). */
#include "reader_int.h"
#include "reader_lazy.h"
#include "util/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define REC_FINISHED_ROUND 68

struct round {
	uint64_t max;	  /* M_j: the latest time up to the round's end */
	uint64_t end_off; /* where the next round starts */
};

struct scan {
	size_t parts;
	uint64_t start, end;
	bool through, rounds_ok, timed;
	uint64_t last, mglob;
	struct round *rd;
	size_t nrd, caprd;
	/* timed bytes and records of the round before and of this one */
	uint64_t bprev, bcur, nprev, ncur;
	/* data in file order: the record offsets nearest each part's start */
	uint64_t cut[PMS_PD_SPLIT_MAX];
	size_t ncut;
};

static int push_round(struct scan *c, uint64_t end_off)
{
	if (c->nrd == c->caprd) {
		size_t cap = c->caprd ? 2 * c->caprd : 256;
		struct round *v = realloc(c->rd, cap * sizeof(*v));
		if (!v)
			return pms_err(PMS_ENOMEM, "split plan: out of memory");
		c->rd = v;
		c->caprd = cap;
	}
	c->rd[c->nrd++] = (struct round){ c->mglob, end_off };
	c->bprev = c->bcur;
	c->nprev = c->ncur;
	c->bcur = c->ncur = 0;
	return 0;
}

static int push_sideband(struct pms_pd_split *sp, size_t *cap, uint64_t t, uint64_t off,
			 size_t len)
{
	if (sp->nsb == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct pms_pd_sideband *v = realloc(sp->sb, c * sizeof(*v));
		if (!v)
			return pms_err(PMS_ENOMEM, "split plan: out of memory");
		sp->sb = v;
		*cap = c;
	}
	sp->sb[sp->nsb++] = (struct pms_pd_sideband){ t, off, (uint32_t)len };
	return 0;
}

static bool is_sideband(uint32_t type)
{
	return type == PMS_RECORD_MMAP || type == PMS_RECORD_MMAP2 || type == PMS_RECORD_COMM ||
	       type == PMS_RECORD_FORK || type == PMS_RECORD_EXIT;
}

/* One record of the look. */
static int scan_one(struct scan *c, struct pms_pd_split *sp, size_t *sbcap,
		    const struct pms_perfdata_event *ev)
{
	uint32_t type = ev->rec.type;
	if (ev->from_compressed || type == PMS_PERFDATA_RECORD_AUXTRACE)
		c->through = c->rounds_ok = false;
	if (type == REC_FINISHED_ROUND) {
		c->through = false;
		return push_round(c, ev->file_offset + ev->raw_len);
	}
	if (type >= PMS_RECORD_USER_TYPE_START)
		return 0;
	if (c->through && c->ncut < c->parts &&
	    ev->file_offset >= c->start + (c->end - c->start) / c->parts * c->ncut)
		c->cut[c->ncut++] = ev->file_offset;
	uint64_t t = pms_pd_rec_time(ev);
	if (t == UINT64_MAX)
		t = 0;
	if (!t) {
		if (c->timed)
			c->through = c->rounds_ok = false;
	} else {
		if (t < c->last)
			c->through = false;
		else
			c->last = t;
		c->timed = true;
		if (c->nrd >= 2 && t < c->rd[c->nrd - 2].max)
			c->rounds_ok = false; /* perf's queue may hand it out late */
		if (t > c->mglob)
			c->mglob = t;
		c->bcur += ev->raw_len;
		c->ncur++;
		if (c->bprev + c->bcur > PMS_PD_QUEUE_BYTES ||
		    c->nprev + c->ncur > PMS_PD_QUEUE_RECS)
			c->rounds_ok = false; /* it may flush a half early */
	}
	return is_sideband(type) ? push_sideband(sp, sbcap, t, ev->file_offset, ev->raw_len) : 0;
}

static int by_perf_order(const void *a, const void *b)
{
	const struct pms_pd_sideband *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Data in file order: byte ranges from record to record. */
static void plan_through(struct scan *c, struct pms_pd_split *sp)
{
	size_t n = 0;
	for (size_t k = 0; k < c->ncut; k++) {
		uint64_t s = k ? c->cut[k] : c->start;
		if (n && s <= sp->chunk[n - 1].start)
			continue;
		if (n)
			sp->chunk[n - 1].end = s;
		sp->chunk[n++] = (struct pms_pd_chunk){ s, c->end, false, false, 0, 0, 1 };
	}
	sp->n = n;
}

/* Data in rounds: cut after rounds b whose next round reaches later. */
static void plan_rounds(struct scan *c, struct pms_pd_split *sp)
{
	/* the last round (after the last FINISHED_ROUND) ends at the data's end */
	size_t nr = c->nrd, n = 0;
	uint64_t prev_b = UINT64_MAX; /* the round after which the chunk starts */
	uint64_t share = (c->end - c->start) / c->parts;
	for (size_t b = 0; b + 1 < nr && n + 1 < c->parts; b++) {
		uint64_t from = n ? c->rd[prev_b].end_off : c->start;
		if (c->rd[b].end_off < from + share || c->rd[b + 1].max <= c->rd[b].max ||
		    (n && b <= prev_b))
			continue;
		struct pms_pd_chunk *k = &sp->chunk[n++];
		k->start = from;
		k->end = b + 2 < nr ? c->rd[b + 2].end_off : c->end;
		k->window = true;
		k->untimed = n == 1;
		k->tlo = n == 1 ? 0 : c->rd[prev_b].max;
		k->thi = c->rd[b].max;
		k->order = -1;
		prev_b = b;
	}
	if (!n)
		return;
	sp->chunk[n++] = (struct pms_pd_chunk){ c->rd[prev_b].end_off, c->end, true, false,
						c->rd[prev_b].max, UINT64_MAX - 1, -1 };
	sp->n = n;
}

int pms_pd_split_plan(const struct pms_perfdata_reader *r, size_t parts, struct pms_pd_split *sp)
{
	struct pms_perfdata_reader *t = NULL;
	struct pms_perfdata_event ev;
	struct scan c;
	size_t sbcap = 0;
	int rc;
	memset(sp, 0, sizeof(*sp));
	memset(&c, 0, sizeof(c));
	if (parts > PMS_PD_SPLIT_MAX)
		parts = PMS_PD_SPLIT_MAX;
	if (pms_perfdata_reader_is_pipe(r)) {
		/* its attrs come as records: a chunk would not know them */
		sp->why = "pipe mode";
		return 0;
	}
	if ((rc = pms_pd_reader_twin(r, &t)) <= 0) {
		sp->why = "a stream is read as it comes";
		return rc;
	}
	pms_pd_lazy_samples(t, true); /* the queue's mode: the same times, the same statistics */
	c.parts = parts ? parts : 1;
	c.start = pms_pd_reader_data_pos(t);
	c.end = pms_pd_reader_data_end(t);
	c.through = c.rounds_ok = true;
	while ((rc = pms_perfdata_next(t, &ev)) > 0)
		if ((rc = scan_one(&c, sp, &sbcap, &ev)) < 0)
			break;
	sp->scanned = t;
	if (rc < 0) {
		free(c.rd);
		return rc;
	}
	sp->order = c.through ? 1 : -1;
	if (c.nrd && (rc = push_round(&c, c.end)) < 0) { /* the last round */
		free(c.rd);
		return rc;
	}
	if (sp->nsb) /* no side-band: sb is NULL, which qsort may not be given */
		qsort(sp->sb, sp->nsb, sizeof(*sp->sb), by_perf_order);
	if (pms_pd_reader_nproblems_open(t) != pms_pd_reader_nproblems_open(r))
		sp->why = "the data has problems (read as one)";
	else if (c.through)
		plan_through(&c, sp);
	else if (!c.rounds_ok)
		sp->why = "records out of time order beyond two rounds, without a time among "
			  "timed ones, AUXTRACE or compressed";
	else
		plan_rounds(&c, sp);
	if (sp->n < 2 && !sp->why)
		sp->why = "no place to cut";
	if (sp->n < 2)
		sp->n = 0;
	free(c.rd);
	return 0;
}

void pms_pd_split_free(struct pms_pd_split *sp)
{
	pms_perfdata_reader_free(sp->scanned);
	free(sp->sb);
	memset(sp, 0, sizeof(*sp));
}

bool pms_pd_split_before(const struct pms_pd_chunk *c, const struct pms_pd_sideband *e)
{
	if (!c->window)
		return e->off < c->start;
	return !e->time || e->time <= c->tlo;
}

/* The headers' walk (reader_lazy.h): the reader's bytes, read here without
 * a reader's bookkeeping. */
static void publish(struct pms_pd_follow *f, uint64_t upto, bool done)
{
	if (!f)
		return;
	atomic_store_explicit(&f->upto, upto, memory_order_release);
	if (done)
		atomic_store_explicit(&f->done, true, memory_order_release);
}

static int walk(const struct pms_perfdata_reader *r, size_t parts, struct pms_pd_split *sp,
		struct pms_pd_follow *f);

/* The walk's cost beside the first chunk, in shares (walk). */
#define WALK_SHARE 0.15

int pms_pd_split_walk(const struct pms_perfdata_reader *r, size_t parts, struct pms_pd_split *sp,
		      struct pms_pd_follow *f)
{
	int rc = walk(r, parts, sp, f);
	if (f && !atomic_load_explicit(&f->done, memory_order_acquire))
		publish(f, r->end, true); /* the first chunk reads it all */
	return rc;
}

static int walk(const struct pms_perfdata_reader *r, size_t parts, struct pms_pd_split *sp,
		struct pms_pd_follow *f)
{
	size_t sbcap = 0;
	memset(sp, 0, sizeof(*sp));
	if (r->stream || !r->buf || r->pipe) {
		sp->why = "a stream is read as it comes";
		return 0;
	}
	if (parts > PMS_PD_SPLIT_MAX)
		parts = PMS_PD_SPLIT_MAX;
	uint64_t pos = r->pos, end = r->end;
	/* The first chunk is read while the walk goes on; the others start
	 * after it.  The merge and the report come after the last chunk,
	 * whichever thread ends last: the wall time is the longer of the
	 * first chunk and the walk with a later one, then that.  So the first
	 * chunk is WALK_SHARE of a share larger than the others, the walk's
	 * CPU beside the chunk after it (per-thread cpu-clock, bench shape,
	 * --no-symbols: the walk over the first half 0.087 of that half's
	 * decode at 10 M samples, 0.13 at 1 M; with equal shares the first
	 * chunk's thread ended 5-9 % of its CPU before the other, with a
	 * tenth of a share 2-7 %).  A thread's CPU in all
	 * (its chunk, then the merge and the report) is not that critical
	 * path: it does not see the wait. */
	uint64_t first = parts ? (uint64_t)((double)(end - pos) * (1.0 + WALK_SHARE) /
					    ((double)parts + WALK_SHARE))
			       : 0; /* the first chunk's */
	uint64_t share = parts > 1 ? (end - pos - first) / (parts - 1) : 0;
	/* The pages the walk passed go back as it passes them: keeping up to
	 * 192 MiB mapped for the first chunk's reader saved it faulting them
	 * again (its kernel CPU samples 182-220 -> 103-165 at 10 M) but raised
	 * the peak RSS of --jobs 2 from 75 to 248 MB for no wall time out of
	 * the noise (docs/bench.md), so they are not kept. */
	uint64_t dropped = pos & ~(uint64_t)(PD_DROP_CHUNK - 1);
	size_t n = 0;
	/* to the last cut only: the side-band after it precedes no chunk,
	 * and the last chunk's reader meets what is wrong past it */
	uint64_t last_cut = r->pos + first + share * (parts > 1 ? parts - 2 : 0);
	bool done = false;
	while (pos < end) {
		if (end - pos < 8)
			break;
		if (n == parts && pos >= last_cut) {
			done = true;
			break;
		}
		uint16_t size;
		uint32_t type;
		memcpy(&size, r->buf + pos + 6, 2);
		memcpy(&type, r->buf + pos, 4);
		if (r->swap) {
			size = pd_bswap16(size);
			type = pd_bswap32(type);
		}
		if (size < 8 || size > end - pos)
			break; /* the reading says it */
		if (n < parts && (!n || pos >= r->pos + first + share * (n - 1))) {
			sp->chunk[n] = (struct pms_pd_chunk){ n ? pos : r->pos, end, false, false,
							      0, 0, 2 };
			if (n == 1)
				publish(f, pos, true); /* the first chunk's end */
			n++;
		}
		if ((type == PMS_RECORD_MMAP || type == PMS_RECORD_MMAP2 ||
		     type == PMS_RECORD_COMM || type == PMS_RECORD_FORK ||
		     type == PMS_RECORD_EXIT)) {
			if (sp->nsb == sbcap) {
				size_t c = sbcap ? 2 * sbcap : 64;
				struct pms_pd_sideband *v = realloc(sp->sb, c * sizeof(*v));
				if (!v) {
					pms_pd_split_free(sp);
					return pms_err(PMS_ENOMEM, "split walk: out of memory");
				}
				sp->sb = v;
				sbcap = c;
			}
			sp->sb[sp->nsb++] = (struct pms_pd_sideband){ 0, pos, size };
		}
		pos += size;
		if (n < 2 && (pos & 0xffff) < size)
			publish(f, pos, false); /* every 64 KiB */
		if (r->map && pos - dropped >= 4 * PD_DROP_CHUNK) {
			/* headers only: the pages go back as the walk passes */
			uint64_t upto = pos & ~(uint64_t)(PD_DROP_CHUNK - 1);
			(void)madvise((void *)(uintptr_t)(r->buf + dropped), (size_t)(upto - dropped),
				      MADV_DONTNEED);
			dropped = upto;
		}
	}
	if ((pos != end && !done) || n < 2) {
		sp->why = pos != end && !done ? "the data does not walk to its end" : "no place to cut";
		sp->n = 0;
		return 0;
	}
	for (size_t k = 0; k + 1 < n; k++)
		sp->chunk[k].end = sp->chunk[k + 1].start;
	sp->n = n;
	sp->order = 2;
	return 0;
}
