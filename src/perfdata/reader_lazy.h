/* Lazy samples: the perf.data reader hands out a SAMPLE whose fields are all
 * of fixed size (the layouts of PEBS/IBS/SPE load-latency files) without
 * decoding it: ev->rec has type, misc and size, sample.present is 0 and
 * sample.time is set when the layout has TIME; the rest is for the caller
 * to decode from ev->raw with pms_record_parse (it cannot fail on such a
 * record).  For a consumer that copies records and decodes them later
 * (the memory-sample source's held round, src/sample/memsrc.c), so that
 * each record is decoded once.  Off by default; the reader's statistics
 * are the same either way. */
#ifndef PMS_PERFDATA_READER_LAZY_H
#define PMS_PERFDATA_READER_LAZY_H

#include "pmuscope/perfdata.h"

#include <stdatomic.h>
#include <stdbool.h>

void pms_pd_lazy_samples(struct pms_perfdata_reader *r, bool on);
/* ev came from a lazy reader undecoded (see above). */
static inline bool pms_pd_event_lazy(const struct pms_perfdata_event *ev)
{
	return ev->rec.type == PMS_RECORD_SAMPLE && !ev->rec.sample.present &&
	       ev->attr->sample_type;
}
/* Decode the record at raw (len bytes, in host order) of attr (an attr the
 * reader handed out: ev->attr) into out, as pms_record_parse with the
 * attr's layout does; a lazy sample by its layout's plan (a copy a field,
 * decode/record_io.h pms_sample_fixed_decode). */
int pms_pd_decode(const struct pms_perfdata_attr *attr, const void *raw, size_t len,
		  struct pms_record *out);
/* What a record the caller decodes into again and again holds: rec
 * (NULL: unknown) holds a plan's decode of a sample of sample_type and
 * nothing else (every other byte zero), so the next such sample of that
 * sample_type into it writes only the plan's fields (no clear of the
 * whole record, decode/record_io.h pms_sample_fixed_refill).  Whoever
 * writes rec otherwise sets rec NULL (or keeps it only as
 * pms_pd_clean_after_read says). */
struct pms_pd_clean {
	const struct pms_record *rec;
	uint64_t sample_type;
};
/* pms_pd_decode into out, keeping c (above). */
int pms_pd_decode_over(const struct pms_perfdata_attr *attr, const void *raw, size_t len,
		       struct pms_record *out, struct pms_pd_clean *c);
/* For one caller that passes the same event to every pms_perfdata_next
 * and only reads it (the time-order queue handing records out as they
 * come, ordered.c): from now on a lazy reader decodes a plan's sample
 * itself, over the sample before (pms_pd_decode_over's rule), instead of
 * leaving it to the caller; a lazy sample it still hands out (one from a
 * COMPRESSED record) the caller decodes with the state returned, the
 * reader's (valid while the reader lives). */
struct pms_pd_clean *pms_pd_reader_decode_over(struct pms_perfdata_reader *r);
/* The caller of pms_perfdata_ordered_next passes the same event each
 * time and never writes it: a plan's sample is decoded over the one
 * before (struct pms_pd_clean). */
struct pms_perfdata_ordered;
void pms_pd_ordered_own(struct pms_perfdata_ordered *q);
/* After the reader handed out ev (rc its pms_perfdata_next's result): a
 * lazy sample of c's sample_type wrote only fields its plan writes again
 * (the header, present, time); anything else leaves ev->rec unknown. */
static inline void pms_pd_clean_after_read(struct pms_pd_clean *c, int rc,
					   const struct pms_perfdata_event *ev)
{
	if (c->rec == &ev->rec &&
	    (rc <= 0 || !pms_pd_event_lazy(ev) || ev->attr->sample_type != c->sample_type))
		c->rec = NULL;
}

/* Records held by pointer (the time-order queue, ordered.c): true when
 * ev->raw lies in the reader's whole buffer (a mapped file or the caller's
 * memory) and stays valid while the reader lives, unlike a stream's,
 * a swapped copy or a decompressed record. */
bool pms_pd_event_stable(const struct pms_perfdata_reader *r, const struct pms_perfdata_event *ev);
/* Mapped data from offset off on (ev->file_offset) is not given back to
 * the kernel while read (UINT64_MAX: all may be). */
void pms_pd_keep_from(struct pms_perfdata_reader *r, uint64_t off);
/* A second reader over the same whole buffer, from the start of the data
 * (1; 0 for a stream, which has none), for a look ahead of r: it gives a
 * mapped file's pages back as it reads, as r does. */
int pms_pd_reader_twin(const struct pms_perfdata_reader *r, struct pms_perfdata_reader **out);
/* The decoding layout of an attr the reader handed out (ev->attr). */
const struct pms_sample_layout *pms_pd_attr_layout(const struct pms_perfdata_attr *a);

/* The time perf orders a record by (its queue, ordered.c); 0: none. */
static inline uint64_t pms_pd_rec_time(const struct pms_perfdata_event *ev)
{
	const struct pms_record *r = &ev->rec;
	if (r->type >= PMS_RECORD_USER_TYPE_START)
		return 0;
	if (pms_pd_event_lazy(ev)) /* undecoded: its time only, when it has one */
		return (ev->attr->sample_type & PMS_SAMPLE_TIME) ? r->sample.time : 0;
	if (r->type == PMS_RECORD_SAMPLE)
		return (r->sample.present & PMS_SAMPLE_TIME) ? r->sample.time : 0;
	return (r->sample_id.present & PMS_SAMPLE_TIME) ? r->sample_id.time : 0;
}

/* ---- one file's data in chunks (split.c; docs/perfdata.md) ---------------- */

/* Bytes [start, end) of the data section (record boundaries); with window,
 * only the kernel records of time in (tlo, thi], those without a time when
 * untimed, and perf's own records (type 64 and up); order: the data's
 * order as its queue would find it (1: perf's order is the file's, -1: not,
 * 0: look). */
struct pms_pd_chunk {
	uint64_t start, end;
	bool window, untimed;
	uint64_t tlo, thi;
	int order;
};
/* A reader over chunk c of r's data (r's buffer: a mapped file, not a
 * stream). */
int pms_pd_reader_chunk(const struct pms_perfdata_reader *r, const struct pms_pd_chunk *c,
			struct pms_perfdata_reader **out);
/* The first chunk read while a walk finds where it ends
 * (pms_pd_split_walk): upto, a record boundary the walk has passed, grows;
 * done: upto is the chunk's end. */
struct pms_pd_follow {
	_Atomic uint64_t upto;
	atomic_bool done;
};
/* r's end follows f (r: a chunk from the data's start, end = start). */
void pms_pd_reader_follow(struct pms_perfdata_reader *r, struct pms_pd_follow *f);
/* Read [start, end) of the data next (one record at a known offset). */
void pms_pd_reader_set_range(struct pms_perfdata_reader *r, uint64_t start, uint64_t end);
uint64_t pms_pd_reader_data_pos(const struct pms_perfdata_reader *r);
uint64_t pms_pd_reader_data_end(const struct pms_perfdata_reader *r);
/* What the time-order queue takes as known of the data's order (see
 * struct pms_pd_chunk's order). */
int pms_pd_reader_order_hint(const struct pms_perfdata_reader *r);
void pms_pd_reader_set_order_hint(struct pms_perfdata_reader *r, int order);
/* Hint 2 (struct pms_pd_chunk's order): whether the records read kept the
 * data in perf's order (as ordered.c's look would find it: no round,
 * AUXTRACE or compressed record, records without a time only before the
 * first with one, times never going back; the reading ends at the first
 * that does not), the first and last times read (0: none) and whether a
 * record without a time was read. */
bool pms_pd_reader_order_seen(const struct pms_perfdata_reader *r, uint64_t *first, uint64_t *last,
			      bool *untimed);
/* Read r's data to its end as order hint 2 reads it (r: a reader no one
 * else reads, a twin): 1 when it kept perf's order to the end, 0 when a
 * record broke it (the reading stops there), or a read error.  A sample
 * of a fixed-field layout is judged by its time where it lies, without an
 * event. */
int pms_pd_reader_order_look(struct pms_perfdata_reader *r);
/* Add what a chunk's reader counted record by record to r's statistics. */
void pms_pd_reader_stats_absorb(struct pms_perfdata_reader *r,
				const struct pms_perfdata_reader *part);
/* The problems r said (all, kept or not). */
size_t pms_pd_reader_nproblems_open(const struct pms_perfdata_reader *r);
/* to (a twin of from) owns from's mapping from now on: freed with to. */
void pms_pd_reader_take_map(struct pms_perfdata_reader *to, struct pms_perfdata_reader *from);

#define PMS_PD_SPLIT_MAX 64
/* The time-order queue's size limits (ordered.c): past them it hands out
 * its older half. */
#define PMS_PD_QUEUE_BYTES (32u << 20)
#define PMS_PD_QUEUE_RECS 262144

/* A side-band record (MMAP, MMAP2, COMM, FORK, EXIT): where it is, and its
 * time (0: none). */
struct pms_pd_sideband {
	uint64_t time, off;
	uint32_t len;
};

/* How one file's data splits into chunks whose records, each chunk in
 * perf's time order, are the data in perf's time order, one chunk after
 * the other. */
struct pms_pd_split {
	/* the reader that read the whole data for the plan: its statistics
	 * and problems are the file's */
	struct pms_perfdata_reader *scanned;
	size_t n; /* chunks; under 2: no split (why says why) */
	struct pms_pd_chunk chunk[PMS_PD_SPLIT_MAX];
	/* the side-band, in perf's order */
	struct pms_pd_sideband *sb;
	size_t nsb;
	int order; /* what the look found of the data's order (1: perf's is the file's) */
	const char *why;
};
/* Read r's data once (a twin of r, from the start) and plan at most parts
 * chunks.  0 (sp->n < 2 when it does not split) or an error. */
int pms_pd_split_plan(const struct pms_perfdata_reader *r, size_t parts, struct pms_pd_split *sp);
/* Headers only (each record's size and type): at most parts chunks of
 * about equal bytes, each taken as in perf's order and checked as read
 * (order 2), and the side-band records' places (no times).  No reader
 * reads; the walk gives the mapped pages back as it passes. */
/* f (not NULL): the walk's progress and the first chunk's end published
 * there as it goes (done set in every case, upto the data's end when the
 * walk fails). */
int pms_pd_split_walk(const struct pms_perfdata_reader *r, size_t parts, struct pms_pd_split *sp,
		      struct pms_pd_follow *f);
void pms_pd_split_free(struct pms_pd_split *sp);
/* Whether side-band record e precedes chunk c's first record in perf's
 * order. */
bool pms_pd_split_before(const struct pms_pd_chunk *c, const struct pms_pd_sideband *e);

#endif
