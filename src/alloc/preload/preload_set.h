/* The preload's tracked-pointer set: the blocks it sampled, found again at
 * their free or realloc (src/alloc/preload/preload.c).  Lock-free (compare-
 * and-swap on each slot), allocation-free (one anonymous mapping made by
 * pl_set_map at load), inherited across fork with the heap.  Inline: every
 * free asks it. */
#ifndef PMS_ALLOC_PRELOAD_SET_H
#define PMS_ALLOC_PRELOAD_SET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 2^22 slots (32 MiB) when every allocation is tracked (rate 0), 2^20
 * (8 MiB) when small ones are sampled: the probes are random, so every
 * page of the table is soon touched, and zeroing 32 MiB of huge pages was
 * 2.7 % of the bench's CPU (perf, cpu-clock) for a set that holds a few
 * hundred live blocks there; 2^20 slots still hold the blocks of some
 * 32 GiB live at the default rate. */
extern unsigned pl_set_bits;
#define SET_SLOTS (1ul << pl_set_bits)
#define SET_PROBES 512
#define TOMB ((uintptr_t)1)
extern _Atomic uintptr_t *pl_set;

static inline size_t set_hash(uintptr_t p)
{
	return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ull >> (64 - pl_set_bits));
}

/* A filter in front of the set: per bucket of pointers, how many are in the
 * set (saturating at UINT16_MAX, then never lowered).  A free whose bucket
 * counts 0 is not tracked and costs no access to the large table: most
 * frees, when few blocks are tracked. */
#define FILTER_SLOTS (1u << 15)
extern _Atomic uint16_t pl_filter[FILTER_SLOTS];

static inline size_t filter_slot(uintptr_t p)
{
	return (size_t)(((p >> 4) * 0xD6E8FEB86659FD93ull) >> 49);
}

static inline void filter_inc(uintptr_t p)
{
	_Atomic uint16_t *f = &pl_filter[filter_slot(p)];
	uint16_t v = atomic_load_explicit(f, memory_order_relaxed);
	while (v != UINT16_MAX && !atomic_compare_exchange_weak(f, &v, (uint16_t)(v + 1)))
		;
}

static inline void filter_dec(uintptr_t p)
{
	_Atomic uint16_t *f = &pl_filter[filter_slot(p)];
	uint16_t v = atomic_load_explicit(f, memory_order_relaxed);
	while (v != UINT16_MAX && v && !atomic_compare_exchange_weak(f, &v, (uint16_t)(v - 1)))
		;
}

static inline bool set_add_slot(uintptr_t p)
{
	size_t h = set_hash(p);
	for (size_t i = 0; i < SET_PROBES; i++) {
		_Atomic uintptr_t *slot = &pl_set[(h + i) & (SET_SLOTS - 1)];
		uintptr_t v = atomic_load_explicit(slot, memory_order_relaxed);
		if ((v == 0 || v == TOMB) &&
		    atomic_compare_exchange_strong(slot, &v, p))
			return true;
	}
	return false; /* full here: the block stays untracked */
}

static inline bool set_add(uintptr_t p)
{
	filter_inc(p); /* before the slot: a concurrent take never misses it */
	bool ok = set_add_slot(p);
	if (!ok)
		filter_dec(p);
	return ok;
}

static inline bool set_take_slot(uintptr_t p)
{
	size_t h = set_hash(p);
	for (size_t i = 0; i < SET_PROBES; i++) {
		_Atomic uintptr_t *slot = &pl_set[(h + i) & (SET_SLOTS - 1)];
		uintptr_t v = atomic_load_explicit(slot, memory_order_relaxed);
		if (v == 0)
			return false;
		if (v == p)
			return atomic_compare_exchange_strong(slot, &v, TOMB);
	}
	return false;
}

static inline bool set_take(uintptr_t p)
{
	if (!atomic_load_explicit(&pl_filter[filter_slot(p)], memory_order_relaxed))
		return false;
	if (!set_take_slot(p))
		return false;
	filter_dec(p);
	return true;
}

/* Map the set for a sampling rate (0: every block tracked); false when the
 * mapping fails (nothing is tracked then). */
bool pl_set_map(uint64_t rate);

#endif
