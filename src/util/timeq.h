/* Internal: the one time-order queue (timeq.c) under the live source's
 * (src/sample/memsrc_order.c) and the perf.data reader's
 * (src/perfdata/ordered.c): entries pushed with a time, handed out by
 * time (equal times in the order they were pushed), those up to a time T
 * at a time, as perf's ordered events do at each round.
 *
 * An entry is the caller's struct whose first member is a struct
 * pms_tq_key; the queue fills the key, the caller the rest.  An entry may
 * hold a copy of bytes in the queue's one buffer (its key's off, nbytes),
 * packed again by pms_tq_tidy once the ready ones are handed out. */
#ifndef PMS_UTIL_TIMEQ_H
#define PMS_UTIL_TIMEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pms_tq_key {
	uint64_t time, seq; /* seq: push order, for equal times */
	size_t off, nbytes; /* the entry's bytes in the buffer (nbytes 0: none) */
};

/* Embedded in its owner; the fields are the queue's own. */
struct pms_timeq {
	unsigned char *e; /* entries of esz bytes: e[h..dend) ready, e[h..n) held */
	size_t esz, h, dend, n, cap;
	unsigned char *bytes, *alt;
	size_t nbytes, capbytes, capalt;
	uint64_t seq, max_time, last_out, late, sorts;
	bool sorted, out; /* out: handed one out since the last tidy */
	const char *what; /* in out-of-memory messages */
};

/* esz: the caller's entry size (its first member a struct pms_tq_key). */
void pms_tq_init(struct pms_timeq *q, size_t esz, const char *what);
void pms_tq_fini(struct pms_timeq *q);
/* Hold one entry of the given time with room for nbytes of bytes: *entry
 * is its slot (key filled, the rest the caller's to fill), valid until the next push or
 * tidy; its bytes at pms_tq_bytes.  0, or PMS_ENOMEM (nothing pushed). */
int pms_tq_push(struct pms_timeq *q, uint64_t time, size_t nbytes, void **entry);
/* An entry's bytes (valid until the next push or tidy). */
static inline unsigned char *pms_tq_bytes(const struct pms_timeq *q, const void *entry)
{
	return q->bytes + ((const struct pms_tq_key *)entry)->off;
}
/* Make the held entries of time <= limit ready, in time order (a caller's
 * ready ones not handed out yet stay ready); returns how many are ready. */
size_t pms_tq_release(struct pms_timeq *q, uint64_t limit);
/* Everything held ready (pms_tq_release(q, UINT64_MAX)). */
size_t pms_tq_flush(struct pms_timeq *q);
/* The next ready entry, NULL when none; valid until the next push or tidy. */
static inline void *pms_tq_next(struct pms_timeq *q)
{
	if (q->h >= q->dend)
		return NULL;
	struct pms_tq_key *k = (struct pms_tq_key *)(void *)(q->e + q->h++ * q->esz);
	if (k->time > q->last_out)
		q->last_out = k->time;
	q->out = true;
	return k;
}
/* Once the ready ones are handed out: the handed-out ones dropped, the
 * held ones' bytes packed again.  0, or PMS_ENOMEM (the queue unchanged). */
int pms_tq_tidy(struct pms_timeq *q);
/* The i-th held entry (0 <= i < pms_tq_held; in time order after a
 * release, otherwise in push order). */
static inline void *pms_tq_at(const struct pms_timeq *q, size_t i)
{
	return q->e + (q->h + i) * q->esz;
}
static inline size_t pms_tq_held(const struct pms_timeq *q)
{
	return q->n - q->h;
}
/* The time halfway between the oldest and the newest held (0: none). */
uint64_t pms_tq_half_time(struct pms_timeq *q);

#endif
