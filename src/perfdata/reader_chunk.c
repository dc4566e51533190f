/* A perf.data reader over a chunk of its file's data (reader_lazy.h; issue
 * 33's split decode, split.c): its range, its time window, the data's
 * order as known or checked, a walk it follows, its counts. */
#include "reader_int.h"
#include "reader_lazy.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdatomic.h>

int pms_pd_reader_chunk(const struct pms_perfdata_reader *r, const struct pms_pd_chunk *c,
			struct pms_perfdata_reader **out)
{
	int rc = pms_pd_reader_twin(r, out);
	if (rc <= 0)
		return rc < 0 ? rc : pms_err(PMS_EINVAL, "a stream cannot be read in chunks");
	struct pms_perfdata_reader *t = *out;
	if (c->start < t->pos || c->end > t->end || c->start > c->end) {
		pms_perfdata_reader_free(t);
		*out = NULL;
		return pms_err(PMS_EINVAL, "chunk [%" PRIu64 ", %" PRIu64 ") is not in the data",
			       c->start, c->end);
	}
	t->pos = c->start;
	t->end = c->end;
	/* the pages before the chunk are another reader's to give back */
	t->dropped = c->start & ~(uint64_t)(PD_DROP_CHUNK - 1);
	t->window = c->window;
	t->window_untimed = c->untimed;
	t->wlo = c->tlo;
	t->whi = c->thi;
	t->order_hint = c->order;
	return 0;
}

void pms_pd_reader_follow(struct pms_perfdata_reader *r, struct pms_pd_follow *f)
{
	r->follow = f;
}

void pms_pd_reader_set_range(struct pms_perfdata_reader *r, uint64_t start, uint64_t end)
{
	r->pos = start;
	r->end = end;
	r->stopped = false;
	if (r->dropped < (start & ~(uint64_t)(PD_DROP_CHUNK - 1)))
		r->dropped = start & ~(uint64_t)(PD_DROP_CHUNK - 1); /* not its to give back */
}

size_t pms_pd_reader_nproblems_open(const struct pms_perfdata_reader *r)
{
	return r->nproblems_all;
}

uint64_t pms_pd_reader_data_pos(const struct pms_perfdata_reader *r)
{
	return r->pos;
}

uint64_t pms_pd_reader_data_end(const struct pms_perfdata_reader *r)
{
	return r->end;
}

int pms_pd_reader_order_hint(const struct pms_perfdata_reader *r)
{
	return r->order_hint;
}

void pms_pd_reader_set_order_hint(struct pms_perfdata_reader *r, int order)
{
	r->order_hint = order;
}

void pms_pd_reader_take_map(struct pms_perfdata_reader *to, struct pms_perfdata_reader *from)
{
	if (!from->map || to->buf != from->buf)
		return;
	to->map = from->map;
	to->map_len = from->map_len;
	to->drop_buf = false;
	from->map = NULL;
	from->map_len = 0;
}

bool pms_pd_reader_order_seen(const struct pms_perfdata_reader *r, uint64_t *first, uint64_t *last,
			      bool *untimed)
{
	*first = r->order_timed ? r->order_first : 0;
	*last = r->order_timed ? r->order_last : 0;
	*untimed = r->order_untimed;
	return !r->order_broke;
}

void pms_pd_reader_stats_absorb(struct pms_perfdata_reader *r,
				const struct pms_perfdata_reader *part)
{
	struct pms_perfdata_stats *d = &r->stats;
	const struct pms_perfdata_stats *p = &part->stats;
	d->records += p->records;
	d->samples += p->samples;
	for (size_t i = 0; i < 128; i++)
		d->by_type[i] += p->by_type[i];
	d->bad_records += p->bad_records;
	d->unknown_id += p->unknown_id;
	d->compressed += p->compressed;
	d->lost += p->lost;
	d->lost_samples += p->lost_samples;
	d->truncated |= p->truncated;
	d->aux_records += p->aux_records;
	d->aux_truncated += p->aux_truncated;
	d->aux_partial += p->aux_partial;
	d->aux_collision += p->aux_collision;
	d->auxtrace_bytes += p->auxtrace_bytes;
	d->auxtrace_short += p->auxtrace_short;
	d->unknown_type += p->unknown_type;
}
