/* What the preload's files share (src/alloc/preload/preload.c: the hooks,
 * threads and TLS; preload_stream.c: the stream file's chunks and where
 * each thread writes).  Internal: hidden like every symbol of the library
 * but its hooks. */
#ifndef PMS_ALLOC_PRELOAD_INT_H
#define PMS_ALLOC_PRELOAD_INT_H

/* The functions a tracked allocation or free runs (its record's making):
 * together in .text.hot, a few contiguous lines and one page of code, not
 * spread over the library (the program's own code evicts them between two
 * records: their instruction fetches missed the caches; docs/mem.md
 * "Cost"). */
#define PL_HOT __attribute__((hot))

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/alloc.h"

extern int out_fd; /* the stream's descriptor; -1: tracking off */
extern unsigned long out_ino;
extern uint32_t cur_pid; /* the process the library's state is for */
extern __thread uint32_t tl_tid;
extern __thread uint32_t tl_pid; /* this thread's process (a CLONE_VM one: its own) */
extern __thread bool tl_raw;
extern __thread bool tl_forking; /* between fork's prepare and its end */
/* A raw thread whose thread pointer is not a glibc descriptor at its
 * stack's top: no glibc call that reads its descriptor (pthread_setspecific:
 * a control block not glibc's has none, 0 there, and the call faulted) */
extern __thread bool tl_nodtv;

/* The stream's header page (shared by every process of the command):
 * [0] magic, [1] chunks claimed. */
extern _Atomic uint64_t *hdr;
extern pthread_key_t exit_key;
extern bool exit_key_ok;

bool sys_failed(long r);

/* ---- the records' clock (preload_clock.c) ----
 * A record's time is the time-stamp counter when the kernel's clock source
 * is the TSC (x86-64: rdtsc, about 15 ns of CPU here against 37-55 for
 * clock_gettime, the largest part of a record's cost; docs/mem.md
 * "Cost"), else CLOCK_MONOTONIC ns.  With the counter, emit stamps each
 * record PMS_ALLOC_F_TSC and the stream gets a calibration point
 * (PMS_ALLOC_CLOCK: the counter on each side of a CLOCK_MONOTONIC read)
 * at load (in the command's first process also CLK_SETTLE ticks later),
 * at exit, and whenever a record's time is
 * CLK_GAP ticks past the last point, so that the reader interpolates
 * over short spans. */
extern bool clk_tsc;
extern _Atomic uint64_t clk_last; /* the counter at the last point */
#define CLK_GAP ((uint64_t)1 << 21)    /* 0.5-2 ms at 1-4 GHz */
#define CLK_SETTLE ((uint64_t)1 << 16) /* 16-64 us: the load's second point */
uint64_t clk_mono_ns(void);
static inline uint64_t clk_now(void)
{
#if defined(__x86_64__)
	if (clk_tsc)
		return __builtin_ia32_rdtsc();
#endif
	return clk_mono_ns();
}
/* Whether the counter is used (env: the PMUSCOPE_ALLOC value; clock=mono
 * asks for CLOCK_MONOTONIC), decided at load. */
void clk_init(const char *env);
/* A calibration point written to the stream (emit's, and the load's). */
void clk_point(void);
/* The load's points: one, and in the command's first process a second
 * CLK_SETTLE ticks after it. */
void clk_start(void);
/* Append a record to this thread's chunk (claimed when it has none). */
void emit(const struct pms_alloc_rec *r);
/* The thread ends: its chunk to the next thread. */
void chunk_drop_mine(void);
/* This thread's chunk is not its own (its state a copy of its creator's). */
void chunk_disown(void);
/* This thread is not a raw one (its chunk no longer noted as such). */
void chunk_raw_forget(void);
/* A child with memory of its own: the parent's chunks (still mapped,
 * never written here) and spares are not its own. */
void chunks_forget(void);

/* Which modules' TLS blocks this thread recorded (preload_tlsids.c).
 * tls_seen: whether module id's block was recorded; mark: note it (false:
 * not noted, no memory for the set).  tls_unsee: no longer noted.
 * tls_fp_slot: id's fingerprint slot (NULL: no memory for it).
 * tls_more_free: the thread's pages given back (its end).  tls_ids_reset:
 * none noted (a copy of another thread's state dropped, not freed). */
bool tls_seen(size_t id, bool mark);
void tls_unsee(size_t id);
uint64_t *tls_fp_slot(size_t id);
void tls_more_free(void);
void tls_ids_reset(void);
/* This thread's block of module id when the module asks for static TLS
 * (DF_STATIC_TLS) and dl_iterate_phdr gave none (NULL: not such a module;
 * struct dl_phdr_info from <link.h>). */
struct dl_phdr_info;
void *static_block(const struct dl_phdr_info *info, size_t id);

/* The mapping that holds address sp (/proc/self/maps): [lo, hi), and
 * whether it is an unnamed anonymous one; false: none found
 * (preload_vma.c). */
bool stack_vma(uintptr_t sp, uintptr_t *lo, uintptr_t *hi, bool *anon);
/* The top of the stack mapping holding sp of thread tid, which shares
 * another's TLS (noted once per thread); 0: not known. */
uintptr_t shared_stack_hi(uint32_t tid, uintptr_t sp);

#endif
