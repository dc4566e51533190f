/* The stream file's chunks: where each thread of the preload
 * (src/alloc/preload/preload.c) writes its records, in place, in a chunk
 * of the file mapped shared, claimed from the header's counter; and the
 * chunks' windows, spares and the raw threads' chunks given back. */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload_int.h"

_Atomic uint64_t *hdr;
pthread_key_t exit_key;
bool exit_key_ok;
__thread bool tl_forking;
static __thread unsigned char *tl_chunk; /* this thread's chunk */
static __thread uint32_t tl_pos;
#define SPARES 64
static unsigned char *_Atomic spares[SPARES]; /* chunks of exited threads */

/* Where the records in chunk c end (its first size 0). */
static uint32_t chunk_used(const unsigned char *c)
{
	uint32_t pos = 0;
	while (pos + PMS_ALLOC_REC_MIN <= PMS_ALLOC_CHUNK) {
		uint16_t sz = atomic_load_explicit((_Atomic uint16_t *)(uintptr_t)(c + pos),
						   memory_order_relaxed);
		if (!sz)
			break;
		pos += sz;
	}
	return pos;
}

/* Chunk windows.  A thread maps its chunks into a window of WIN_CHUNKS
 * slots, a range reserved once (PROT_NONE, aligned to its size, so that a
 * chunk's window is its address rounded down): a full chunk stays mapped
 * and the next one is mapped over the next slot (MAP_FIXED on reserved,
 * never touched pages: nothing to unmap there); when the last slot is
 * full, one mmap of the whole window back to PROT_NONE unmaps its chunks at
 * once, and the window is used again from its first slot.  So a thread pays
 * one unmapping (page tables zapped, TLB shot down on every CPU the process
 * runs on) per WIN_CHUNKS chunks, not one per chunk (docs/bench.md: the
 * preload's munmap calls on bench/alloc_bench).  The file's layout is as
 * before: one chunk claimed at a time. */
#define WIN_CHUNKS 8
#define WIN_SIZE ((size_t)WIN_CHUNKS * PMS_ALLOC_CHUNK)

static unsigned char *win_of(unsigned char *c)
{
	return (unsigned char *)((uintptr_t)c & ~(uintptr_t)(WIN_SIZE - 1));
}

bool sys_failed(long r)
{
	return r == -1 || (r < 0 && r > -4096);
}

/* A new window, reserved: 2 sizes mapped, the unaligned ends given back. */
static unsigned char *win_new(void)
{
	long r = syscall(SYS_mmap, NULL, 2 * WIN_SIZE, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, (off_t)0);
	if (sys_failed(r))
		return NULL;
	uintptr_t m = (uintptr_t)r, a = (m + WIN_SIZE - 1) & ~(uintptr_t)(WIN_SIZE - 1);
	if (a > m)
		syscall(SYS_munmap, m, a - m);
	if (m + 2 * WIN_SIZE > a + WIN_SIZE)
		syscall(SYS_munmap, a + WIN_SIZE, m + 2 * WIN_SIZE - (a + WIN_SIZE));
	return (unsigned char *)a;
}

/* An exited thread's chunk goes to the spares, else its window goes. */
static void chunk_drop(unsigned char *c)
{
	for (size_t i = 0; i < SPARES; i++) {
		unsigned char *expect = NULL;
		if (atomic_compare_exchange_strong(&spares[i], &expect, c))
			return;
	}
	syscall(SYS_munmap, win_of(c), WIN_SIZE);
}

/* Raw threads' chunks.  A thread made by a raw clone runs no key destructor
 * at its end (thread_exit in preload.c), so its chunk would stay mapped,
 * its window with it, for the life of the process.  Each chunk such a
 * thread writes is noted here under its pid and tid; a thread that needs a
 * chunk and finds no spare takes the chunk of a noted thread that is gone
 * (tgkill with signal 0: ESRCH), and goes on in its window; a thread
 * that claims its next chunk unmaps the windows of the noted threads that
 * are gone (raw_reap). */
#define RAWS 64
#define RAW_BUSY UINT64_MAX
static struct raw_ent {
	_Atomic uint64_t who; /* pid << 32 | tid; 0: free; RAW_BUSY: being changed */
	unsigned char *_Atomic chunk;
} raws[RAWS];
static __thread unsigned raw_slot; /* this thread's entry + 1; 0: none */

static uint64_t raw_key(void)
{
	return (uint64_t)tl_pid << 32 | tl_tid;
}

/* Note this raw thread's chunk c (its entry made at its first chunk; none
 * free: not noted, the chunk stays with the thread as before). */
static void raw_note(unsigned char *c)
{
	if (raw_slot) {
		atomic_store(&raws[raw_slot - 1].chunk, c);
		return;
	}
	if (!tl_raw)
		return;
	for (unsigned i = 0; i < RAWS; i++) {
		uint64_t expect = 0;
		if (atomic_compare_exchange_strong(&raws[i].who, &expect, RAW_BUSY)) {
			atomic_store(&raws[i].chunk, c);
			atomic_store(&raws[i].who, raw_key());
			raw_slot = i + 1;
			return;
		}
	}
}

void chunk_raw_forget(void)
{
	if (raw_slot)
		atomic_store(&raws[raw_slot - 1].who, 0);
	raw_slot = 0;
}

/* Slot i's thread, when it is gone (tgkill: ESRCH) and the slot is won,
 * released: *chunk its chunk (may be NULL).  errno is the caller's to
 * keep (tgkill's ESRCH is not the program's). */
static bool raw_gone_claim(unsigned i, unsigned char **chunk)
{
	uint64_t k = atomic_load(&raws[i].who);
	if (!k || k == RAW_BUSY || k == raw_key())
		return false;
	if (syscall(SYS_tgkill, (pid_t)(k >> 32), (pid_t)(uint32_t)k, 0) == 0 || errno != ESRCH)
		return false;
	if (!atomic_compare_exchange_strong(&raws[i].who, &k, RAW_BUSY))
		return false;
	*chunk = atomic_load(&raws[i].chunk);
	atomic_store(&raws[i].who, 0);
	return true;
}

/* The chunk of a noted thread that is gone, taken; NULL: none. */
static unsigned char *raw_take(void)
{
	int e = errno;
	unsigned char *got = NULL, *c;
	for (unsigned i = 0; i < RAWS && !got; i++)
		if (raw_gone_claim(i, &c))
			got = c;
	errno = e;
	return got;
}

/* The windows of noted threads that are gone, unmapped (a thread's claim
 * of its next chunk: a raw thread's window stayed mapped after its end
 * until a new thread took its chunk, for the life of the process when none
 * came). */
static void raw_reap(void)
{
	int e = errno;
	unsigned char *c;
	for (unsigned i = 0; i < RAWS; i++)
		if (raw_gone_claim(i, &c) && c)
			syscall(SYS_munmap, win_of(c), WIN_SIZE);
	errno = e;
}

void chunk_drop_mine(void)
{
	chunk_raw_forget();
	if (tl_chunk)
		chunk_drop(tl_chunk);
	tl_chunk = NULL;
}

void chunk_disown(void)
{
	raw_slot = 0; /* (a copy of the creator's) */
	tl_chunk = NULL;
	tl_pos = 0;
}

void chunks_forget(void)
{
	chunk_disown();
	for (size_t i = 0; i < SPARES; i++)
		atomic_store(&spares[i], NULL);
	for (size_t i = 0; i < RAWS; i++)
		atomic_store(&raws[i].who, 0); /* the parent's threads */
}

/* The next chunk for this thread (none yet, or its chunk full): a spare
 * when it has none, else a new one claimed from the header's counter (the
 * file grown with fallocate, which never shrinks it under another
 * process's claim) and mapped shared into the next slot of its window.
 * The descriptor is checked to be the stream's (a program may have closed
 * it and opened another file on its number): else tracking stops. */
static bool chunk_claim(void)
{
	unsigned char *w = NULL;
	size_t slot = 0;
	if (tl_chunk) {
		raw_reap();
		w = win_of(tl_chunk);
		slot = (size_t)(tl_chunk - w) / PMS_ALLOC_CHUNK + 1;
		if (slot == WIN_CHUNKS) {
			/* the window is full: all its chunks unmapped in one call,
			 * the range kept reserved for the next ones */
			long r = syscall(SYS_mmap, w, WIN_SIZE, PROT_NONE,
					 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
					 (off_t)0);
			tl_chunk = NULL;
			if (sys_failed(r)) {
				out_fd = -1;
				return false;
			}
			slot = 0;
		}
	} else {
		for (size_t i = 0; i < SPARES; i++) {
			unsigned char *c = atomic_exchange(&spares[i], NULL);
			if (c) {
				tl_chunk = c;
				tl_pos = chunk_used(c);
				goto got;
			}
		}
		unsigned char *c = raw_take();
		if (c) {
			tl_chunk = c;
			tl_pos = chunk_used(c);
			goto got;
		}
		w = win_new();
		if (!w) {
			out_fd = -1;
			return false;
		}
	}
	struct stat st;
	if (syscall(SYS_fstat, out_fd, &st) != 0 || (unsigned long)st.st_ino != out_ino) {
		out_fd = -1;
		return false;
	}
	uint64_t k = atomic_fetch_add(&hdr[1], 1);
	off_t off = (off_t)(PMS_ALLOC_HDR_SIZE + k * PMS_ALLOC_CHUNK);
	if (syscall(SYS_fallocate, out_fd, 0, off, (off_t)PMS_ALLOC_CHUNK) != 0) {
		out_fd = -1; /* no memory for the stream: stop, consistently */
		return false;
	}
	long m = syscall(SYS_mmap, w + slot * PMS_ALLOC_CHUNK, (size_t)PMS_ALLOC_CHUNK,
			 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_POPULATE, out_fd, off);
	if (sys_failed(m)) {
		out_fd = -1;
		return false;
	}
	tl_chunk = (unsigned char *)m;
	tl_pos = 0;
got:
	raw_note(tl_chunk);
	if (exit_key_ok && !tl_nodtv) /* (a raw thread runs no key destructor) */
		pthread_setspecific(exit_key, (void *)1);
	return true;
}

/* Append r (its frames right after it) to this thread's chunk: the
 * record's body first, its size last (a reader of a chunk still being
 * written stops at a size of 0); its trailing zero fields not written
 * (a free: 32 bytes, an allocation with no old_addr: 48; the stream's rule
 * in include/pmuscope/alloc.h). */
#if defined(__clang__)
/* clang's idiom recognition would make the copy loops below memcpy calls */
#define NO_MEMCPY __attribute__((no_builtin("memcpy")))
#else
#define NO_MEMCPY /* gcc: -fno-tree-loop-distribute-patterns (meson.build) */
#endif

PL_HOT NO_MEMCPY void emit(const struct pms_alloc_rec *r)
{
	if (out_fd < 0 || tl_forking)
		return;
	/* a time in counter ticks: a calibration point first when the last
	 * is CLK_GAP ticks behind (preload_int.h, the records' clock) */
	bool tsc = clk_tsc && r->kind != PMS_ALLOC_CLOCK;
	if (tsc && (int64_t)(r->time - atomic_load_explicit(&clk_last, memory_order_relaxed)) >
			   (int64_t)CLK_GAP)
		clk_point();
	size_t body = sizeof(*r) / 8, nf = r->nframes; /* in words */
	if (!r->old_addr)
		body = r->bytes || r->weight ? 6 : PMS_ALLOC_REC_MIN / 8;
	uint16_t size = (uint16_t)((body + nf) * 8);
	/* (a spare taken may be full: its window's next slot then) */
	for (int i = 0; !tl_chunk || tl_pos + size > PMS_ALLOC_CHUNK; i++)
		if (i == 3 || !chunk_claim())
			return;
	unsigned char *d = tl_chunk + tl_pos;
	/* copied by words here, not by libc's memcpy: a ThreadSanitizer
	 * program intercepts memcpy and, not seeing this library's atomics
	 * that hand a chunk from an exited thread to a new one, reported the
	 * copy as a race (the build keeps gcc from making the loops memcpy
	 * calls: -fno-tree-loop-distribute-patterns) */
	const uint64_t *src = (const uint64_t *)(const void *)r;
	uint64_t *dst = (uint64_t *)(void *)d;
	/* its first two words from their fields, its size (0 here) last: the
	 * fields were stored one by one, and an 8-byte load of them cannot be
	 * served from those stores (a stall at each record in a profile) */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	dst[0] = (uint64_t)r->kind << 16 | (uint64_t)r->nframes << 24 | (uint64_t)r->pid << 32;
	dst[1] = (uint64_t)r->tid | (uint64_t)(r->flags | (tsc ? PMS_ALLOC_F_TSC : 0)) << 32;
#else
	dst[0] = src[0] & ~(uint64_t)0xffff;
	dst[1] = src[1];
	if (tsc)
		((struct pms_alloc_rec *)(void *)d)->flags |= PMS_ALLOC_F_TSC;
#endif
	for (size_t i = 2; i < body; i++)
		dst[i] = src[i];
	for (size_t i = 0; i < nf; i++)
		dst[body + i] = src[sizeof(*r) / 8 + i];
	atomic_store_explicit((_Atomic uint16_t *)(uintptr_t)d, size, memory_order_release);
	tl_pos += size;
}
