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

/* Two open-addressing tables in one mapping.  The near one, 2^13 slots
 * (64 KiB), takes a block in one of the PRI_PROBES slots from its hash
 * (128 bytes): small enough to stay in the caches more often than a
 * table sized for the worst case (8 MiB, probed at random), which missed
 * them on every tracked allocation and free (3.6 % of the bench's samples;
 * 2^16 slots, 512 KiB, still missed the caches on a free long after the
 * allocation: 2^13 took 15 % fewer of the preload's samples on
 * bench/alloc_bench; docs/mem.md "Cost").  It holds some 4,000 live
 * tracked blocks before its windows fill (128 MiB of small blocks at the
 * default rate).  A block whose slots there are all taken goes to the far one:
 * 2^22 slots (32 MiB) when every allocation is tracked (rate 0), 2^20
 * (8 MiB) when small ones are sampled (the blocks of some 32 GiB live at
 * the default rate), probed only once a block went there (pl_far_used).
 * A slot is 0 (never used), TOMB (freed) or a block, and never goes back
 * to 0: a near slot of 0 among a block's slots means it is in neither
 * table (it would have taken that slot). */
#define PRI_BITS 13
#define PRI_PROBES 16
extern unsigned pl_set_bits; /* the far table's */
#define SET_SLOTS (1ul << pl_set_bits)
#define SET_PROBES 512
#define TOMB ((uintptr_t)1)
extern _Atomic uintptr_t *pl_set;  /* the far table */
extern _Atomic uintptr_t *pl_near; /* the near table */
extern atomic_bool pl_far_used;

static inline size_t set_hash(uintptr_t p)
{
	return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ull >> (64 - pl_set_bits));
}

static inline size_t near_hash(uintptr_t p)
{
	return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ull >> (64 - PRI_BITS));
}

/* A filter in front of the set: per bucket of pointers, how many are in the
 * set (saturating at UINT8_MAX, then never lowered).  A free whose bucket
 * counts 0 is not tracked and costs no access to the tables: most frees,
 * when few blocks are tracked.  One byte a bucket (32 KiB): every free
 * reads it at random. */
#define FILTER_SLOTS (1u << 15)
#define FILTER_MAX UINT8_MAX
extern _Atomic uint8_t pl_filter[FILTER_SLOTS];

static inline size_t filter_slot(uintptr_t p)
{
	return (size_t)(((p >> 4) * 0xD6E8FEB86659FD93ull) >> 49);
}

static inline void filter_inc(uintptr_t p)
{
	_Atomic uint8_t *f = &pl_filter[filter_slot(p)];
	uint8_t v = atomic_load_explicit(f, memory_order_relaxed);
	while (v != FILTER_MAX && !atomic_compare_exchange_weak(f, &v, (uint8_t)(v + 1)))
		;
}

static inline void filter_dec(uintptr_t p)
{
	_Atomic uint8_t *f = &pl_filter[filter_slot(p)];
	uint8_t v = atomic_load_explicit(f, memory_order_relaxed);
	while (v != FILTER_MAX && v && !atomic_compare_exchange_weak(f, &v, (uint8_t)(v - 1)))
		;
}

/* Whether p may be in the set (false: it is not). */
static inline bool set_maybe(uintptr_t p)
{
	return atomic_load_explicit(&pl_filter[filter_slot(p)], memory_order_relaxed) != 0;
}

/* p's near slots asked for ahead of set_add or set_take. */
static inline void set_prefetch(uintptr_t p)
{
	__builtin_prefetch((const void *)&pl_near[near_hash(p)], 1);
}

static inline bool set_put(_Atomic uintptr_t *t, size_t mask, size_t h, size_t probes,
			   uintptr_t p)
{
	for (size_t i = 0; i < probes; i++) {
		_Atomic uintptr_t *slot = &t[(h + i) & mask];
		uintptr_t v = atomic_load_explicit(slot, memory_order_relaxed);
		if ((v == 0 || v == TOMB) && atomic_compare_exchange_strong(slot, &v, p))
			return true;
	}
	return false;
}

static inline bool set_add_slot(uintptr_t p)
{
	if (set_put(pl_near, (1ul << PRI_BITS) - 1, near_hash(p), PRI_PROBES, p))
		return true;
	/* (set before the block is in: a take that finds its near slots
	 * full then looks there) */
	atomic_store_explicit(&pl_far_used, true, memory_order_release);
	return set_put(pl_set, SET_SLOTS - 1, set_hash(p), SET_PROBES, p);
	/* false: full here, the block stays untracked */
}

__attribute__((hot)) static inline bool set_add(uintptr_t p)
{
	filter_inc(p); /* before the slot: a concurrent take never misses it */
	bool ok = set_add_slot(p);
	if (!ok)
		filter_dec(p);
	return ok;
}

/* 1: taken, 0: not there, -1: not in these probes (full of others) */
static inline int set_drop(_Atomic uintptr_t *t, size_t mask, size_t h, size_t probes,
			   uintptr_t p)
{
	for (size_t i = 0; i < probes; i++) {
		_Atomic uintptr_t *slot = &t[(h + i) & mask];
		uintptr_t v = atomic_load_explicit(slot, memory_order_relaxed);
		if (v == 0)
			return 0;
		if (v == p) {
			/* a plain store, not a compare-and-swap: only the block's
			 * free (or realloc) takes it, one call (a second free of
			 * it would be the program's double free), and no put
			 * writes a slot holding a block (a locked instruction
			 * less on each tracked free: about 17 ns of the record's
			 * cost in a tight loop here; docs/mem.md "Cost") */
			atomic_store_explicit(slot, TOMB, memory_order_release);
			return 1;
		}
	}
	return -1;
}

static inline bool set_take_slot(uintptr_t p)
{
	int r = set_drop(pl_near, (1ul << PRI_BITS) - 1, near_hash(p), PRI_PROBES, p);
	if (r >= 0)
		return r;
	if (!atomic_load_explicit(&pl_far_used, memory_order_acquire))
		return false;
	return set_drop(pl_set, SET_SLOTS - 1, set_hash(p), SET_PROBES, p) == 1;
}

__attribute__((hot)) static inline bool set_take(uintptr_t p)
{
	if (!set_maybe(p))
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
