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

/* The mapping that holds address sp (/proc/self/maps): [lo, hi), and
 * whether it is an unnamed anonymous one; false: none found
 * (preload_vma.c). */
bool stack_vma(uintptr_t sp, uintptr_t *lo, uintptr_t *hi, bool *anon);
/* The top of the stack mapping holding sp of thread tid, which shares
 * another's TLS (noted once per thread); 0: not known. */
uintptr_t shared_stack_hi(uint32_t tid, uintptr_t sp);

#endif
