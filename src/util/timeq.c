/* The time-order queue (timeq.h): entries sorted by (time, push order)
 * only when one came before the last held, ready up to a time by a binary
 * search, handed out from the front; the handed-out ones are dropped when
 * they are most of the array, and the held entries' bytes packed into the
 * second buffer, which then becomes the first. */
#include "util/timeq.h"

#include "util/error.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

void pms_tq_init(struct pms_timeq *q, size_t esz, const char *what)
{
	memset(q, 0, sizeof(*q));
	q->esz = esz;
	q->what = what;
	q->sorted = true;
}

void pms_tq_fini(struct pms_timeq *q)
{
	if (!q)
		return;
	free(q->e);
	free(q->bytes);
	free(q->alt);
	memset(q, 0, sizeof(*q));
}

static struct pms_tq_key *key(const struct pms_timeq *q, size_t i)
{
	return (struct pms_tq_key *)(void *)(q->e + i * q->esz);
}

int pms_tq_push(struct pms_timeq *q, uint64_t time, size_t nbytes, void **entry)
{
	int rc;
	if ((rc = pms_grow(&q->e, &q->cap, q->n + 1, q->esz, 1024, q->what)) < 0 ||
	    (nbytes &&
	     (rc = pms_grow(&q->bytes, &q->capbytes, q->nbytes + nbytes, 1, 1u << 16, q->what)) < 0))
		return rc;
	if (q->n > q->h && time < key(q, q->n - 1)->time)
		q->sorted = false;
	if (time < q->last_out)
		q->late++;
	struct pms_tq_key *k = key(q, q->n++);
	k->time = time;
	k->seq = q->seq++;
	k->off = nbytes ? q->nbytes : 0;
	k->nbytes = nbytes;
	q->nbytes += nbytes;
	if (time > q->max_time)
		q->max_time = time;
	*entry = k;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct pms_tq_key *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void sort_held(struct pms_timeq *q)
{
	if (!q->sorted) {
		qsort(q->e + q->h * q->esz, q->n - q->h, q->esz, by_time);
		q->sorted = true;
		q->sorts++;
	}
}

size_t pms_tq_release(struct pms_timeq *q, uint64_t limit)
{
	size_t lo = q->h, hi = q->n;
	sort_held(q);
	while (lo < hi) { /* the first entry past limit */
		size_t mid = lo + (hi - lo) / 2;
		if (key(q, mid)->time <= limit)
			lo = mid + 1;
		else
			hi = mid;
	}
	q->dend = lo;
	return lo - q->h;
}

size_t pms_tq_flush(struct pms_timeq *q)
{
	return pms_tq_release(q, UINT64_MAX);
}

int pms_tq_tidy(struct pms_timeq *q)
{
	size_t nb = 0;
	int rc;
	if (q->h < q->dend || !q->out)
		return 0; /* ready ones left, or none handed out */
	for (size_t i = q->h; i < q->n; i++)
		nb += key(q, i)->nbytes;
	if (nb) {
		if ((rc = pms_grow(&q->alt, &q->capalt, nb, 1, 1u << 16, q->what)) < 0)
			return rc;
		nb = 0;
		for (size_t i = q->h; i < q->n; i++) {
			struct pms_tq_key *k = key(q, i);
			if (!k->nbytes)
				continue;
			memcpy(q->alt + nb, q->bytes + k->off, k->nbytes);
			k->off = nb;
			nb += k->nbytes;
		}
		unsigned char *b = q->bytes;
		size_t c = q->capbytes;
		q->bytes = q->alt;
		q->capbytes = q->capalt;
		q->alt = b;
		q->capalt = c;
	}
	q->nbytes = nb;
	if (q->h == q->n) {
		q->h = q->n = 0;
	} else if (q->h >= q->n - q->h) {
		memmove(q->e, q->e + q->h * q->esz, (q->n - q->h) * q->esz);
		q->n -= q->h;
		q->h = 0;
	}
	q->dend = q->h;
	q->out = false;
	return 0;
}

uint64_t pms_tq_half_time(struct pms_timeq *q)
{
	if (q->n == q->h)
		return 0;
	sort_held(q);
	uint64_t lo = key(q, q->h)->time, hi = key(q, q->n - 1)->time;
	return lo + (hi - lo) / 2;
}
