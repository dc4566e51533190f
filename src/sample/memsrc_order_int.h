/* Internal: a live source's records held until their time order is known
 * (memsrc_order.c, used by memsrc.c). */
#ifndef PMS_SAMPLE_MEMSRC_ORDER_INT_H
#define PMS_SAMPLE_MEMSRC_ORDER_INT_H

#include "pmuscope/memsample.h"
#include "pmuscope/record.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lo_queue;

enum lo_kind { LO_SAMPLE = 1, LO_SIDEBAND };

/* One held record as it is handed out: its bytes (borrowed until the next
 * lo_next after lo_tidy), the layout they decode with, its event, and for
 * a sample the memory sample the sampler made of it. */
struct lo_item {
	enum lo_kind kind;
	int ev;
	uint64_t time;
	const void *raw;
	size_t len;
	const struct pms_sample_layout *layout;
	struct pms_memsample ms;
};

int lo_new(struct lo_queue **out);
void lo_free(struct lo_queue *q);
/* Hold a copy of one record (ms: a sample's, NULL for side-band). */
int lo_push(struct lo_queue *q, enum lo_kind kind, int ev, uint64_t time,
	    const struct pms_memsample *ms, const void *raw, size_t len,
	    const struct pms_sample_layout *layout);
/* Make the held records of time <= limit ready, in time order (equal
 * times in the order they came); lo_next hands them out one by one. */
void lo_ready(struct lo_queue *q, uint64_t limit);
bool lo_next(struct lo_queue *q, struct lo_item *out);
/* After the ready records are handed out: the rest packed again. */
int lo_tidy(struct lo_queue *q);
/* The latest time held so far (0: none). */
uint64_t lo_max_time(const struct lo_queue *q);
size_t lo_held(const struct lo_queue *q);
/* The bytes held, the queue's size limit (memsrc.c flushes older half past it). */
size_t lo_bytes(const struct lo_queue *q);
/* The time halfway between the oldest and newest held. */
uint64_t lo_half_time(struct lo_queue *q);
/* Records that came after a later one had been handed out. */
uint64_t lo_late(const struct lo_queue *q);

#endif
