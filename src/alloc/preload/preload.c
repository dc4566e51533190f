/* libpmuscope-alloc.so: the allocation tracker that `pmuscope mem -- CMD`
 * (record, c2c) preloads into a started command (LD_PRELOAD).  Not part of
 * libpmuscope: it links only libc (and libm), and writes the records of
 * include/pmuscope/alloc.h to the inherited descriptor named by
 * PMUSCOPE_ALLOC="fd=N,ino=I,rate=R,threshold=T".  Without that variable,
 * or when the descriptor is not the inode named, every hook only calls the
 * real function.
 *
 * Rules kept in every hook (docs/mem.md, "Allocation tracking"):
 *   - no allocation: records are built on the stack, the tracked-pointer set
 *     is one mmap'd open-addressing table made at load;
 *   - reentrancy: a thread-local depth; a nested call (the real allocator,
 *     dlsym, a signal handler that allocates inside a hook) goes straight
 *     to the real function, untracked;
 *   - errno: the real call's errno is what the caller sees;
 *   - dlsym(RTLD_NEXT) bootstrapping: while it resolves, calloc/malloc are
 *     served from a static buffer (never freed, never tracked);
 *   - fork: a child handler (pthread_atfork) refreshes the cached pid and
 *     writes a FORK record; the tracked set is inherited with the heap;
 *   - threads: the set is lock-free (compare-and-swap); each thread writes
 *     its records in place into its own chunk of the stream file, mapped
 *     shared (a chunk claimed from a counter in the file's header, shared by
 *     every process of the command), so a record costs no system call and
 *     is in the file the moment it is written: nothing to flush at thread
 *     exit, exit, exec, fork or a crash.  A thread's chunks are mapped
 *     into a window of slots unmapped all at once when full (chunk_claim,
 *     preload_stream.c); its chunk is handed to the next thread at its
 *     exit (a small lock-free array of spares; a raw clone's thread, which
 *     runs no exit hook: once the kernel says it is gone); the
 *     forked child drops the parent's chunks (they stay mapped there,
 *     unwritten) and claims its own; a record made while fork runs in the
 *     forking thread (another library's atfork handler) is dropped.
 *   - signals: a handler that allocates outside a hook writes into the
 *     thread's chunk like any call (a hook never runs inside another, so a
 *     record is never half written under it).
 * Sampling by bytes (heapprofd's rule): each thread draws the bytes until
 * its next sample from an exponential law of mean `rate`; an allocation
 * that reaches the draw is tracked with weight bytes / (1 - exp(-bytes /
 * rate)); allocations of `threshold` bytes or more always are (weight =
 * bytes).  rate 0: every allocation.  A free is written only for a tracked
 * pointer.
 * Call path: frame 0 is the hook's return address (exact with or without
 * frame pointers); then a frame-pointer walk, each frame checked to lie
 * above the last and below the top of the thread's stack (a raw clone's
 * thread: of the mapping that holds its stack; who(), thread_init). */
/* mmap and mmap64 both hooked: the plain names, not the 64-bit offset
 * renames meson's default _FILE_OFFSET_BITS=64 would give */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <link.h>
#include <malloc.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "pmuscope/alloc.h"
#include "preload_int.h"
#include "preload_set.h"

#define EXPORT __attribute__((visibility("default")))

_Static_assert(sizeof(struct pms_alloc_rec) == 56, "record layout");

struct real_fns {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*reallocarray)(void *, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void (*free)(void *);
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	int (*munmap)(void *, size_t);
	void *(*mremap)(void *, size_t, size_t, int, ...);
	int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
};
/* ThreadSanitizer's own pthread_create calls this library's as its "real"
 * one: a TSan-built program segfaulted when its threads started in
 * thread_start (clang 14), so a program with a TSan runtime (its
 * __tsan_init, bound here weakly: no lookup, no allocation) keeps its
 * threads as they are (no stack or TLS sites; docs/mem.md). */
extern void __tsan_init(void) __attribute__((weak));
static struct real_fns real;
static atomic_int resolved; /* 0 not yet, 1 resolving, 2 done */

int out_fd = -1;
unsigned long out_ino;
static uint64_t rate, threshold;
static double rate_inv; /* 1 / rate (choose: a product, not a division) */
/* (ldso_find below; defined here, beside what the hooks' common cases read
 * with them, resolved and threshold: one line, not two pages apart with
 * the boot buffer between) */
static uintptr_t ldso_lo, ldso_hi;
uint32_t cur_pid;

static __thread int depth;  /* > 0: inside a hook */
__thread uint32_t tl_tid;
__thread uint32_t tl_pid;
static __thread int64_t tl_left;   /* bytes until this thread's next sample */
static __thread uint64_t tl_rng;
static __thread uintptr_t tl_stack_hi;
static __thread uintptr_t tl_stack_lo; /* [lo, hi): this thread's frames; lo = hi: not known */
static __thread bool tl_init;
/* The address of tl_self itself when this thread's state was made: another
 * value is a copy of another thread's (a raw clone given, with
 * CLONE_SETTLS, a TLS block copied from its creator's) */
static __thread uintptr_t tl_self;
static __thread bool tl_pthread; /* started by pthread_create (thread_start) */
static __thread bool tl_raw_anon; /* tl_raw: its stack is an unnamed anonymous mapping */
__thread bool tl_raw;     /* started without thread_start (a raw clone, or a
				  * thread that ran a hook before thread_start) */
__thread bool tl_nodtv;          /* tl_raw, and its thread pointer not a glibc
				  * descriptor at its stack's top: no
				  * dl_iterate_phdr, whose TLS lookup reads a dtv
				  * the program may not have */
static uint32_t load_tid;        /* the thread that loaded the library */
/* late TLS blocks (tls_late below) */
static __thread bool tl_tls_late;
static __thread uint64_t tl_tls_time;
static __thread int64_t tl_tls_left; /* tl_left while parked */
static __thread bool tl_tls_parked;
static void tls_late(void);
static void raw_blocks(void);
static void raw_static_tls(void);
static _Atomic size_t nstls; /* (below: stls) */
static size_t tls_static_size; /* glibc's static TLS area, surplus included (0: not known) */
static __thread size_t tl_stls_done; /* stls entries this raw thread looked at */
extern void *__libc_stack_end; /* ld.so's: the main thread's stack at start */

/* ---- bootstrap buffer ----------------------------------------------------- */

static _Alignas(64) unsigned char boot_buf[128 << 10];
static atomic_size_t boot_used;

static void *boot_alloc(size_t n)
{
	size_t need = (n + 15) & ~(size_t)15;
	size_t off = atomic_fetch_add(&boot_used, need);
	if (off + need > sizeof(boot_buf))
		return NULL;
	return boot_buf + off;
}

static bool is_boot(const void *p)
{
	return (const unsigned char *)p >= boot_buf &&
	       (const unsigned char *)p < boot_buf + sizeof(boot_buf);
}

static void resolve(void)
{
	int expect = 0;
	if (!atomic_compare_exchange_strong(&resolved, &expect, 1)) {
		while (atomic_load(&resolved) != 2)
			; /* another thread resolves: rare, at load */
		return;
	}
	depth++;
	real.malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real.calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real.realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	real.reallocarray = (void *(*)(void *, size_t, size_t))dlsym(RTLD_NEXT, "reallocarray");
	real.aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	real.posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	real.memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	real.valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
	real.free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	real.mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	real.munmap = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
	real.mremap = (void *(*)(void *, size_t, size_t, int, ...))dlsym(RTLD_NEXT, "mremap");
	real.pthread_create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				       void *))dlsym(RTLD_NEXT, "pthread_create");
	depth--;
	atomic_store(&resolved, 2);
}

static inline bool ready(void)
{
	if (atomic_load_explicit(&resolved, memory_order_acquire) == 2)
		return true;
	if (atomic_load(&resolved) == 1 && depth > 0)
		return false; /* inside dlsym: the caller uses the boot buffer */
	resolve();
	return true;
}

/* ---- per thread ----------------------------------------------------------- */

PL_HOT static uint64_t rng_next(void)
{
	uint64_t x = tl_rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	tl_rng = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/* -log(u) for u in (0, 1), without libm's call (each sampled allocation
 * draws one; libm's log and expm1 were 17 % of the preload's samples on
 * bench/alloc_bench): u = m 2^e, m in [1, 2), log m = 2 atanh((m-1)/(m+1))
 * by its series to t^9 (error under 1.2e-6 of the mean: 0.04 bytes of a
 * 32 KiB draw; docs/mem.md "Cost"). */
PL_HOT static double neg_log(double u)
{
	uint64_t bits;
	memcpy(&bits, &u, sizeof(bits));
	int e = (int)((bits >> 52) & 0x7ff) - 1023;
	bits = (bits & ((1ull << 52) - 1)) | (1023ull << 52);
	double m;
	memcpy(&m, &bits, sizeof(m));
	double t = (m - 1) / (m + 1), t2 = t * t;
	double lm = 2 * t * (1 + t2 * (1.0 / 3 + t2 * (1.0 / 5 + t2 * (1.0 / 7 + t2 / 9))));
	return -(e * 0.69314718055994530942 + lm);
}

/* 1 - exp(-x) for x >= 0: its series to x^6 when x < 1/4 (a small block at
 * the default rate; relative error under 1e-6), else libm's.  The series'
 * divisions are products by constants (a division takes 13-20 cycles and
 * these five were a chain: a rounding's difference, far inside the
 * series' own error). */
PL_HOT static double one_minus_exp(double x)
{
	if (x >= 0.25)
		return -expm1(-x);
	return x * (1 - x * 0.5 *
			    (1 - x * (1.0 / 3) *
					 (1 - x * 0.25 * (1 - x * 0.2 * (1 - x * (1.0 / 6))))));
}

PL_HOT static int64_t draw(void)
{
	double u = ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0; /* (0,1) */
	double v = neg_log(u) * (double)rate;
	return v > 9e18 ? INT64_MAX : (int64_t)v + 1;
}

static uint32_t raw_pid; /* a raw clone's process announced by a FORK record */
static void vm_process_new(void);

static void thread_init(void)
{
	tl_init = true;
	tl_self = (uintptr_t)&tl_self;
	tl_tid = (uint32_t)syscall(SYS_gettid);
	/* its own, not cur_pid: a process made by a raw clone with CLONE_VM
	 * shares this memory, cur_pid with it (getpid's cache is its
	 * creator's too) */
	tl_pid = (uint32_t)syscall(SYS_getpid);
	tl_rng = (clk_now() ^ ((uint64_t)tl_tid << 32) ^ (uintptr_t)&tl_rng) | 1;
	tl_left = rate ? draw() : 0;
	/* The top of this thread's stack, for the walk's bound, read without a
	 * lock: pthread_getattr_np (what this did first) takes the thread's own
	 * lock and allocates under it, so a first hook called from inside it
	 * deadlocked on that lock (an ASan program's every new thread: its
	 * runtime asks for the stack at thread start; docs/mem.md).  A thread
	 * glibc created has its descriptor (pthread_self) at the top of its
	 * stack block, above every frame, its own stack or one the program gave;
	 * the main thread's frames lie below __libc_stack_end. */
	if (tl_tid == load_tid) {
		/* the main thread: its frames lie within the stack limit below
		 * __libc_stack_end (deeper ones, rare, take who()'s slow path) */
		tl_stack_hi = (uintptr_t)__libc_stack_end;
		struct rlimit rl;
		uintptr_t span = 8u << 20;
		if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur > span)
			span = rl.rlim_cur < (64u << 20) ? (uintptr_t)rl.rlim_cur : 64u << 20;
		tl_stack_lo = tl_stack_hi > span ? tl_stack_hi - span : 0;
	} else if (tl_pthread) {
		/* another thread: its block's low end is set by thread_blocks */
		tl_stack_hi = (uintptr_t)pthread_self();
		tl_stack_lo = tl_stack_hi;
	} else {
		/* a thread pthread_create did not start (a raw clone; or an
		 * ASan or TSan program's thread, whose runtime allocates before
		 * thread_start or starts it itself): its thread pointer need not
		 * be a glibc descriptor at its stack's top, so the bound is the
		 * mapping that holds its stack (none known: frame 0 only) */
		uintptr_t lo = 0, hi = 0;
		bool anon = false;
		tl_raw = true;
		if (!stack_vma((uintptr_t)__builtin_frame_address(0), &lo, &hi, &anon))
			lo = hi = 0;
		tl_stack_lo = lo;
		tl_stack_hi = hi;
		tl_raw_anon = anon;
		/* glibc's own threads (its internal ones, a sanitizer's) have
		 * their descriptor at the top of their stack's mapping */
		uintptr_t self = (uintptr_t)pthread_self();
		tl_nodtv = !(self > (uintptr_t)__builtin_frame_address(0) && self < hi);
	}
	if (tl_pid != cur_pid && tl_pid != raw_pid && out_fd >= 0)
		vm_process_new();
}

/* The thread ends (a pthread key's destructor): its chunk goes to the next
 * thread.  A record written after this (another key's destructor frees)
 * claims a chunk again and sets the key again (glibc runs the destructors
 * again, PTHREAD_DESTRUCTOR_ITERATIONS times). */
static void thread_exit(void *unused)
{
	(void)unused;
	if (tl_tls_late && out_fd >= 0 && !depth) {
		depth++;
		tls_late();
		depth--;
	}
	chunk_drop_mine();
	tls_more_free();
}

struct recbuf {
	struct pms_alloc_rec r;
	uint64_t frames[PMS_ALLOC_MAX_FRAMES];
	uintptr_t hi; /* the walk's bound: the top of the stack it is made on */
};
_Static_assert(offsetof(struct recbuf, frames) == sizeof(struct pms_alloc_rec),
	       "emit: the frames right after the record");

/* Threads and processes made by a raw clone (clone(2), clone3, not
 * pthread_create or fork) run no hook of this library when they start, and
 * keep their creator's thread-local state: CLONE_VM | CLONE_THREAD without
 * CLONE_SETTLS shares the creator's very TLS block, a child process gets a
 * copy of it (its chunk pointer included: a chunk mapped shared, that the
 * creator keeps writing).  Each record checks, without a system call, that
 * it is made on this thread's stack ([tl_stack_lo, tl_stack_hi)) and in the
 * process the library set up: a word on a MADV_WIPEONFORK page, zero in any
 * child whose memory is a copy (fork or raw clone).  Else it asks the
 * kernel (gettid, getpid):
 *   - a child with its own memory (the word zero) takes over this state as
 *     a forked child does (its own pid, tid, chunk, spares; a FORK record,
 *     its parent the creator), and keeps the stack bound when it runs on
 *     the creator's stack (fork-like), else the mapping that holds its
 *     stack (stack_vma) bounds its walk;
 *   - a thread on a TLS block of its own (CLONE_SETTLS) whose state was
 *     copied from another thread's (tl_self is not its own address): a new
 *     thread, made anew as a raw one (raw_thread_new; a TLS block made
 *     from the modules' images, not a copy, has zeroed state and is made a
 *     raw thread by its first hook: thread_init);
 *   - a thread or process sharing this memory and TLS (CLONE_VM without
 *     CLONE_SETTLS) and not the thread this TLS was set up for: the record
 *     carries the real tid and pid, its walk is bounded by the mapping that
 *     holds its stack pointer, read for each such record (these threads
 *     cannot run beside their creator anyway: glibc's malloc state is in
 *     the TLS they share); a new process first drops the inherited chunk
 *     and spares, claims its own and writes a FORK record once (its
 *     samples then read its parent's blocks as a forked child's);
 *   - this very thread on another stack (sigaltstack) or deeper than the
 *     bound: as before.
 * A raw-clone thread whose stack lies inside its creator's stack block and
 * that shares its TLS is taken for the creator (its tid); its walk stays
 * within that block. */
static volatile uint64_t *wipe_tok; /* the MADV_WIPEONFORK word; NULL: none */

static void rec_init(struct recbuf *b, uint64_t time, unsigned kind, uint64_t addr,
		     uint64_t bytes, uint64_t weight, uint64_t old);

static void raw_clone_process(uint32_t pid, uint32_t tid)
{
	chunks_forget(); /* inherited: stay mapped, never written here */
	raw_pid = pid;
	struct recbuf f;
	rec_init(&f, 0, PMS_ALLOC_FORK, 0, 0, 0, (uint64_t)syscall(SYS_getppid));
	f.r.pid = pid;
	f.r.tid = tid;
	emit(&f.r);
}

/* A process made by a raw clone with CLONE_VM and thread-local state of its
 * own (thread_init): announced once by a FORK record, as raw_clone_process
 * does (its chunk is its own already). */
static void vm_process_new(void)
{
	raw_pid = tl_pid;
	struct recbuf f;
	rec_init(&f, 0, PMS_ALLOC_FORK, 0, 0, 0, (uint64_t)syscall(SYS_getppid));
	emit(&f.r);
}

static void raw_fork_child(uint32_t pid, uint32_t tid, bool same_stack);
static void raw_thread_new(void);

PL_HOT static void who(struct recbuf *b)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	bool same_stack = sp - tl_stack_lo < tl_stack_hi - tl_stack_lo;
	bool same_tls = tl_self == (uintptr_t)&tl_self;
	b->hi = tl_stack_hi;
	if (same_stack && same_tls && wipe_tok && *wipe_tok)
		return; /* the common case: no system call */
	if (tl_forking || b->r.kind == PMS_ALLOC_FORK)
		return; /* dropped (fork runs), or the FORK record below */
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	uint32_t pid = (uint32_t)syscall(SYS_getpid);
	if (wipe_tok && !*wipe_tok && pid != cur_pid) {
		raw_fork_child(pid, tid, same_stack);
		b->hi = tl_stack_hi;
	} else if (!same_tls) {
		raw_thread_new();
		tid = tl_tid;
		b->hi = tl_stack_hi;
	} else if (tid != tl_tid || pid != tl_pid) {
		b->hi = shared_stack_hi(tid, sp);
		if (pid != tl_pid && pid != raw_pid)
			raw_clone_process(pid, tid);
	}
	b->r.pid = pid;
	b->r.tid = tid;
}

PL_HOT static void rec_init(struct recbuf *b, uint64_t time, unsigned kind, uint64_t addr,
		     uint64_t bytes, uint64_t weight, uint64_t old)
{
	memset(&b->r, 0, sizeof(b->r));
	b->r.size = sizeof(b->r);
	b->r.kind = (uint8_t)kind;
	b->r.pid = tl_pid;
	b->r.tid = tl_tid;
	who(b);
	b->r.time = time ? time : clk_now();
	b->r.addr = addr;
	b->r.bytes = bytes;
	b->r.weight = weight;
	b->r.old_addr = old;
}

/* frame 0 is ret (the hook's return address); then the frame-pointer chain
 * from the hook's frame fp, bounded by the thread's stack. */
PL_HOT static void walk(struct recbuf *b, uintptr_t ret, uintptr_t fp)
{
	size_t n = 0;
	b->frames[n++] = ret;
	uintptr_t lo = (uintptr_t)__builtin_frame_address(0);
	uintptr_t hi = b->hi;
	/* the hook's own frame: [fp] is its caller's frame pointer */
	if (fp < lo || fp + 16 > hi || (fp & 7))
		goto done;
	uintptr_t prev = fp;
	fp = ((const uintptr_t *)prev)[0];
	while (n < PMS_ALLOC_MAX_FRAMES && fp > prev && fp + 16 <= hi && !(fp & 7)) {
		uintptr_t ra = ((const uintptr_t *)fp)[1];
		if (ra < 4096)
			break;
		b->frames[n++] = ra;
		prev = fp;
		fp = ((const uintptr_t *)fp)[0];
	}
done:
	b->r.nframes = (uint8_t)n;
	b->r.size = (uint16_t)(sizeof(b->r) + n * 8);
}

/* Whether this allocation is tracked, and its weight. */
PL_HOT static bool choose(size_t n, uint64_t *weight, uint32_t *flags)
{
	if (!rate || n >= threshold) {
		*weight = n;
		*flags = 0;
		return true;
	}
	tl_left -= (int64_t)n;
	if (tl_left > 0)
		return false;
	tl_left = draw();
	double p = one_minus_exp((double)n * rate_inv);
	*weight = (uint64_t)((double)n / (p > 0 ? p : 1) + 0.5);
	*flags = PMS_ALLOC_F_SAMPLED;
	return true;
}

/* Before the real call: whether it will be tracked, its weight, and the
 * time (taken before the call, so that the allocator's own first touches of
 * the block, calloc's zeroing or realloc's copy, fall inside its life). */
struct pre {
	bool want;
	uint32_t flags;
	uint64_t weight, time;
};

PL_HOT static void pre_choose(struct pre *pr, size_t n)
{
	pr->want = choose(n, &pr->weight, &pr->flags);
	pr->time = pr->want ? clk_now() : 0;
}

/* The set's near slots for a tracked block are fetched first and used
 * last: a cache miss there overlaps the record's making. */
PL_HOT static void track(const struct pre *pr, unsigned kind, void *p, size_t n, uint64_t old,
		  uintptr_t ret, uintptr_t fp)
{
	if (!p || !pr->want)
		return;
	set_prefetch((uintptr_t)p);
	struct recbuf b;
	rec_init(&b, pr->time, kind, (uintptr_t)p, n, pr->weight, old);
	b.r.flags = pr->flags;
	walk(&b, ret, fp);
	/* (the block is not the caller's yet: no free of it can come first) */
	if (set_add((uintptr_t)p))
		emit(&b.r);
}

PL_HOT static void untrack(unsigned kind, void *p)
{
	if (!p || !set_maybe((uintptr_t)p))
		return;
	set_prefetch((uintptr_t)p);
	uint64_t t = clk_now(); /* while the slots come (the block freed long
				* after it was made: they left the cache) */
	if (!set_take((uintptr_t)p))
		return;
	struct recbuf b;
	rec_init(&b, t, kind, (uintptr_t)p, 0, 0, 0);
	emit(&b.r);
}

/* TLS blocks of modules loaded by dlopen (docs/mem.md): glibc allocates a
 * thread's block of such a module (dynamic TLS) at the thread's first
 * access to it, with malloc called from the loader (__tls_get_addr), which
 * is not tracked (FROM_LOADER below), and dlpi_tls_data is NULL until then.
 * So a loader allocation marks the thread (the time of the first one since
 * the last look: the block's life starts no later), and forces its next
 * malloc onto the slow path (tl_left parked); the next hook that enters
 * (or the thread's end, or exit) looks at the modules again and records
 * each TLS block of this thread not yet recorded (by module id). */

static inline void loader_alloc(void)
{
	if (out_fd < 0 || depth || tl_tls_late)
		return;
	tl_tls_late = true;
	tl_tls_time = clk_now();
	/* (a thread not set up yet, a raw clone's whose first hook this is:
	 * its next malloc takes the slow path anyway) */
	tl_tls_parked = tl_init;
	if (tl_init) {
		tl_tls_left = tl_left;
		tl_left = INT64_MIN / 2; /* the next malloc takes the slow path */
	}
}

/* A hook's prologue: 1 when this call is tracked (depth taken). */
static inline bool enter(void)
{
	if (out_fd < 0 || depth)
		return false;
	depth++;
	if (!tl_init) {
		thread_init();
		if (tl_raw)
			raw_blocks();
	}
	if (tl_tls_late)
		tls_late();
	if (tl_raw && tl_stls_done != atomic_load_explicit(&nstls, memory_order_relaxed) &&
	    tl_self == (uintptr_t)&tl_self)
		raw_static_tls();
	return true;
}

#define RET_FP (uintptr_t) __builtin_return_address(0), (uintptr_t)__builtin_frame_address(0)

/* The dynamic loader's own allocations (its link maps, at dlopen) are not
 * tracked, and the real call is a tail call: a sanitizer's runtime that
 * takes its caller for the loader's (LeakSanitizer treats what the loader
 * allocated as reachable, by the caller's address) then sees the loader,
 * not this library (an ASan program reported the link map of every dlopen
 * as leaked). */
static int ldso_find(struct dl_phdr_info *info, size_t size, void *ud)
{
	(void)size;
	(void)ud;
	uintptr_t a = (uintptr_t)&__libc_stack_end, lo = UINTPTR_MAX, hi = 0;
	bool has = false;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t b = info->dlpi_addr + ph->p_vaddr, e = b + ph->p_memsz;
		lo = b < lo ? b : lo;
		hi = e > hi ? e : hi;
		has |= a >= b && a < e;
	}
	if (!has)
		return 0;
	ldso_lo = lo;
	ldso_hi = hi;
	return 1;
}

#define FROM_LOADER() \
	((uintptr_t)__builtin_return_address(0) - ldso_lo < ldso_hi - ldso_lo)

/* ---- the hooks ------------------------------------------------------------ */

/* The hooks' common cases are small functions that test and tail-call the
 * real one (no register saved, no frame: a few loads), their other cases
 * out of line (the _slow functions, given the caller's return address and
 * frame). */
__attribute__((noinline)) PL_HOT static void *malloc_slow(size_t n, uintptr_t ret, uintptr_t fp)
{
	if (!ready())
		return boot_alloc(n);
	if (ret - ldso_lo < ldso_hi - ldso_lo) {
		loader_alloc();
		return real.malloc(n);
	}
	if (!enter())
		return real.malloc(n);
	struct pre pr;
	pre_choose(&pr, n);
	void *p = real.malloc(n);
	int e = errno;
	track(&pr, PMS_ALLOC_MALLOC, p, n, 0, ret, fp);
	depth--;
	errno = e;
	return p;
}

PL_HOT EXPORT void *malloc(size_t n)
{
	/* a small allocation not sampled (choose() would decide the same):
	 * tl_left is 0 in a thread not set up and with rate 0, and made
	 * negative by loader_alloc */
	if (atomic_load_explicit(&resolved, memory_order_acquire) == 2 &&
	    !FROM_LOADER() && n < threshold && tl_left > (int64_t)n && !depth) {
		tl_left -= (int64_t)n;
		return real.malloc(n);
	}
	return malloc_slow(n, RET_FP);
}

__attribute__((noinline)) static void *calloc_slow(size_t k, size_t n, uintptr_t ret,
						   uintptr_t fp)
{
	if (!ready() || !real.calloc) {
		size_t t;
		if (__builtin_mul_overflow(k, n, &t))
			return NULL;
		return boot_alloc(t); /* static: zeroed */
	}
	if (ret - ldso_lo < ldso_hi - ldso_lo) {
		loader_alloc();
		return real.calloc(k, n);
	}
	if (!enter())
		return real.calloc(k, n);
	struct pre pr;
	pre_choose(&pr, k * n);
	void *p = real.calloc(k, n);
	int e = errno;
	track(&pr, PMS_ALLOC_CALLOC, p, k * n, 0, ret, fp);
	depth--;
	errno = e;
	return p;
}

EXPORT void *calloc(size_t k, size_t n)
{
	size_t t;
	if (atomic_load_explicit(&resolved, memory_order_acquire) == 2 && real.calloc &&
	    !FROM_LOADER() && !__builtin_mul_overflow(k, n, &t) && t < threshold &&
	    tl_left > (int64_t)t && !depth) {
		tl_left -= (int64_t)t; /* as malloc's */
		return real.calloc(k, n);
	}
	return calloc_slow(k, n, RET_FP);
}

static void *realloc_common(unsigned kind, void *old, size_t k, size_t n, uintptr_t ret,
			    uintptr_t fp)
{
	size_t t;
	if (__builtin_mul_overflow(k, n, &t)) {
		errno = ENOMEM;
		return NULL;
	}
	if (is_boot(old)) {
		/* a boot block moves to the real heap (its size is unknown:
		 * copy what the buffer can hold past it) */
		void *p = real.malloc(t);
		if (p && old) {
			size_t avail = (size_t)(boot_buf + sizeof(boot_buf) - (unsigned char *)old);
			memcpy(p, old, t < avail ? t : avail);
		}
		return p;
	}
	if (!enter())
		return kind == PMS_ALLOC_REALLOC ? real.realloc(old, n)
						 : real.reallocarray(old, k, n);
	struct pre pr;
	pre_choose(&pr, t);
	uint64_t t0 = pr.time ? pr.time : clk_now();
	void *p = kind == PMS_ALLOC_REALLOC ? real.realloc(old, n) : real.reallocarray(old, k, n);
	int e = errno;
	if (p || t == 0) {
		/* the old block is gone (moved, or freed by a zero size) */
		bool had = old && set_take((uintptr_t)old);
		if (p && pr.want && set_add((uintptr_t)p)) {
			struct recbuf b;
			rec_init(&b, t0, kind, (uintptr_t)p, t, pr.weight, had ? (uintptr_t)old : 0);
			b.r.flags = pr.flags;
			walk(&b, ret, fp);
			emit(&b.r);
		} else if (had) {
			struct recbuf b;
			rec_init(&b, t0, PMS_ALLOC_FREE, (uintptr_t)old, 0, 0, 0);
			emit(&b.r);
		}
	}
	depth--;
	errno = e;
	return p;
}

__attribute__((noinline)) static void *realloc_slow(void *old, size_t n, uintptr_t ret,
						    uintptr_t fp)
{
	if (!ready())
		return boot_alloc(n);
	if (ret - ldso_lo < ldso_hi - ldso_lo && !is_boot(old)) {
		loader_alloc();
		return real.realloc(old, n);
	}
	return realloc_common(PMS_ALLOC_REALLOC, old, 1, n, ret, fp);
}

EXPORT void *realloc(void *old, size_t n)
{
	/* a block not tracked (the filter's 0, or none) resized and not
	 * sampled: as malloc's (a zero size, a free, takes the slow path) */
	if (atomic_load_explicit(&resolved, memory_order_acquire) == 2 && !FROM_LOADER() &&
	    !is_boot(old) && (!old || !set_maybe((uintptr_t)old)) && n && n < threshold &&
	    tl_left > (int64_t)n && !depth) {
		tl_left -= (int64_t)n;
		return real.realloc(old, n);
	}
	return realloc_slow(old, n, RET_FP);
}

EXPORT void *reallocarray(void *old, size_t k, size_t n)
{
	if (!ready()) {
		size_t t;
		return __builtin_mul_overflow(k, n, &t) ? NULL : boot_alloc(t);
	}
	return realloc_common(PMS_ALLOC_REALLOCARRAY, old, k, n, RET_FP);
}

#define ALIGNED_HOOK(name, kind, call, ...)                                                 \
	EXPORT void *name(__VA_ARGS__)                                                       \
	{                                                                                    \
		if (!ready())                                                                \
			return NULL;                                                         \
		if (!enter())                                                                \
			return call;                                                         \
		struct pre pr;                                                               \
		pre_choose(&pr, n);                                                          \
		void *p = call;                                                              \
		int e = errno;                                                               \
		track(&pr, kind, p, n, 0, RET_FP);                                           \
		depth--;                                                                     \
		errno = e;                                                                   \
		return p;                                                                    \
	}

ALIGNED_HOOK(aligned_alloc, PMS_ALLOC_ALIGNED_ALLOC, real.aligned_alloc(al, n), size_t al, size_t n)
ALIGNED_HOOK(memalign, PMS_ALLOC_MEMALIGN, real.memalign(al, n), size_t al, size_t n)
ALIGNED_HOOK(valloc, PMS_ALLOC_VALLOC, real.valloc(n), size_t n)

EXPORT int posix_memalign(void **out, size_t al, size_t n)
{
	if (!ready())
		return ENOMEM;
	if (!enter())
		return real.posix_memalign(out, al, n);
	int e = errno;
	struct pre pr;
	pre_choose(&pr, n);
	int rc = real.posix_memalign(out, al, n);
	if (rc == 0)
		track(&pr, PMS_ALLOC_POSIX_MEMALIGN, *out, n, 0, RET_FP);
	depth--;
	errno = e;
	return rc;
}

__attribute__((noinline)) PL_HOT static void free_slow(void *p)
{
	if (!ready())
		return;
	if (!atomic_load_explicit(&pl_filter[filter_slot((uintptr_t)p)], memory_order_relaxed) ||
	    !enter()) {
		real.free(p);
		return;
	}
	int e = errno;
	/* written before the block can be handed out again */
	untrack(PMS_ALLOC_FREE, p);
	real.free(p);
	depth--;
	errno = e;
}

PL_HOT EXPORT void free(void *p)
{
	if (!p || is_boot(p))
		return;
	/* a block the filter says is not tracked (most): a tail call */
	if (atomic_load_explicit(&resolved, memory_order_acquire) == 2 &&
	    !atomic_load_explicit(&pl_filter[filter_slot((uintptr_t)p)], memory_order_relaxed)) {
		real.free(p);
		return;
	}
	free_slow(p);
}

static void *sys_mmap(void *a, size_t n, int prot, int fl, int fd, off_t off)
{
	if (real.mmap)
		return real.mmap(a, n, prot, fl, fd, off);
	long r = syscall(SYS_mmap, a, n, prot, fl, fd, off);
	return (void *)r;
}

EXPORT void *mmap(void *a, size_t n, int prot, int fl, int fd, off_t off)
{
	if (atomic_load(&resolved) != 2 || !enter())
		return sys_mmap(a, n, prot, fl, fd, off);
	struct pre pr = { false, 0, 0, 0 };
	if (fl & MAP_ANONYMOUS) /* private or shared (a shared one: c2c's contended lines) */
		pre_choose(&pr, n);
	void *p = real.mmap(a, n, prot, fl, fd, off);
	int e = errno;
	if (p != MAP_FAILED)
		track(&pr, PMS_ALLOC_MMAP, p, n, 0, RET_FP);
	depth--;
	errno = e;
	return p;
}

EXPORT void *mmap64(void *a, size_t n, int prot, int fl, int fd, off64_t off)
	__attribute__((alias("mmap")));

EXPORT int munmap(void *a, size_t n)
{
	if (atomic_load(&resolved) != 2)
		return (int)syscall(SYS_munmap, a, n);
	if (!enter())
		return real.munmap(a, n);
	int e = errno;
	untrack(PMS_ALLOC_MUNMAP, a);
	int rc = real.munmap(a, n);
	e = rc ? errno : e;
	depth--;
	errno = e;
	return rc;
}

EXPORT void *mremap(void *old, size_t on, size_t nn, int fl, ...)
{
	void *na = NULL;
	if (fl & MREMAP_FIXED) {
		__builtin_va_list ap;
		__builtin_va_start(ap, fl);
		na = __builtin_va_arg(ap, void *);
		__builtin_va_end(ap);
	}
	if (atomic_load(&resolved) != 2)
		return (void *)syscall(SYS_mremap, old, on, nn, fl, na);
	if (!enter())
		return real.mremap(old, on, nn, fl, na);
	uint64_t t0 = clk_now();
	void *p = real.mremap(old, on, nn, fl, na);
	int e = errno;
	if (p != MAP_FAILED && set_take((uintptr_t)old)) {
		/* a tracked mapping moved or grew: it stays tracked */
		uint64_t w;
		uint32_t f2;
		if (!choose(nn, &w, &f2)) {
			w = nn;
			f2 = 0;
		}
		if (set_add((uintptr_t)p)) {
			struct recbuf b;
			rec_init(&b, t0, PMS_ALLOC_MREMAP, (uintptr_t)p, nn, w, (uintptr_t)old);
			b.r.flags = f2;
			walk(&b, RET_FP);
			emit(&b.r);
		}
	}
	depth--;
	errno = e;
	return p;
}

/* ---- load, fork ----------------------------------------------------------- */

static uint64_t env_num(const char *s, const char *key, bool *found)
{
	size_t kl = strlen(key);
	for (const char *p = s; p && *p;) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			*found = true;
			return strtoull(p + kl + 1, NULL, 10);
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

/* The stream's header, mapped shared: the first process makes it (the
 * file grown to the header's size, the magic set once); a file that holds
 * something else, or not the inode named, is not written. */
static bool map_header(int fd)
{
	struct stat st;
	if (syscall(SYS_fstat, fd, &st) != 0 || (unsigned long)st.st_ino != out_ino)
		return false;
	if (syscall(SYS_fallocate, fd, 0, (off_t)0, (off_t)PMS_ALLOC_HDR_SIZE) != 0)
		return false;
	void *m = (void *)syscall(SYS_mmap, NULL, (size_t)PMS_ALLOC_HDR_SIZE,
				  PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)0);
	if (m == MAP_FAILED)
		return false;
	_Atomic uint64_t *h = m;
	uint64_t expect = 0;
	if (!atomic_compare_exchange_strong(&h[0], &expect, PMS_ALLOC_STREAM_MAGIC) &&
	    expect != PMS_ALLOC_STREAM_MAGIC) {
		syscall(SYS_munmap, m, (size_t)PMS_ALLOC_HDR_SIZE);
		return false;
	}
	hdr = h;
	return true;
}

static void fork_prepare(void)
{
	tl_forking = true;
}

static void fork_parent(void)
{
	tl_forking = false;
}

static void child_after_fork(void)
{
	if (wipe_tok)
		*wipe_tok = 1; /* zero in this child (MADV_WIPEONFORK) */
	uint32_t parent = cur_pid;
	cur_pid = (uint32_t)getpid();
	tl_pid = cur_pid;
	tl_tid = (uint32_t)syscall(SYS_gettid);
	/* the parent's chunks stay mapped here (shared): never written by
	 * the child, which claims its own */
	tl_forking = false;
	chunks_forget();
	if (out_fd < 0)
		return;
	struct recbuf b;
	depth++;
	rec_init(&b, 0, PMS_ALLOC_FORK, 0, 0, 0, parent);
	emit(&b.r);
	depth--;
}

static void main_tls(void);

/* A child with memory of its own made without fork's handlers (raw clone
 * without CLONE_VM): this state becomes its own, as child_after_fork does;
 * off its creator's stack the walk's bound is not known (frame 0 only). */
static void raw_fork_child(uint32_t pid, uint32_t tid, bool same_stack)
{
	uint32_t parent = cur_pid;
	*wipe_tok = 1;
	cur_pid = pid;
	tl_pid = pid;
	tl_tid = tid;
	tl_self = (uintptr_t)&tl_self; /* its TLS, a copy or not, is its own now */
	if (!same_stack) {
		uintptr_t lo = 0, hi = 0;
		bool anon;
		if (!stack_vma((uintptr_t)__builtin_frame_address(0), &lo, &hi, &anon))
			lo = hi = 0;
		tl_stack_lo = lo;
		tl_stack_hi = hi;
	}
	chunks_forget();
	struct recbuf f;
	rec_init(&f, 0, PMS_ALLOC_FORK, 0, 0, 0, parent);
	emit(&f.r);
}

__attribute__((constructor)) static void pms_alloc_load(void)
{
	resolve();
	const char *env = getenv("PMUSCOPE_ALLOC");
	bool has_fd = false, has_ino = false, dummy = false;
	if (!env)
		return;
	int fd = (int)env_num(env, "fd", &has_fd);
	out_ino = (unsigned long)env_num(env, "ino", &has_ino);
	rate = env_num(env, "rate", &dummy);
	rate_inv = rate ? 1.0 / (double)rate : 0;
	threshold = env_num(env, "threshold", &dummy);
	if (!threshold)
		threshold = UINT64_MAX;
	if (!has_fd || !has_ino || !map_header(fd))
		return;
	clk_init(env);
	if (!pl_set_map(rate))
		return;
	void *w = (void *)syscall(SYS_mmap, NULL, (size_t)4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w != MAP_FAILED && syscall(SYS_madvise, w, (size_t)4096, MADV_WIPEONFORK) == 0) {
		wipe_tok = w;
		*wipe_tok = 1;
	}
	dl_iterate_phdr(ldso_find, NULL);
	/* glibc's static TLS area's size (stls_late; ld.so's, GLIBC_PRIVATE) */
	void (*tsi)(size_t *, size_t *) =
		(void (*)(size_t *, size_t *))dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info");
	size_t tsz = 0, tal = 0;
	if (tsi) {
		tsi(&tsz, &tal);
		tls_static_size = tsz;
	}
	exit_key_ok = pthread_key_create(&exit_key, thread_exit) == 0;
	cur_pid = (uint32_t)getpid();
	load_tid = (uint32_t)syscall(SYS_gettid);
	depth++;
	pthread_atfork(fork_prepare, fork_parent, child_after_fork);
	thread_init();
	out_fd = fd;
	clk_start();
	struct recbuf b;
	rec_init(&b, 0, PMS_ALLOC_START, 0, 0, 0, (uint64_t)getppid());
	emit(&b.r);
	main_tls();
	depth--;
}

/* exit: the exiting thread's late TLS blocks not yet looked at */
__attribute__((destructor)) static void pms_alloc_unload(void)
{
	if (tl_tls_late && out_fd >= 0 && !depth) {
		depth++;
		tls_late();
		depth--;
	}
	if (!depth) /* a calibration point at the end (the records' clock) */
		clk_point();
}

/* ---- threads: their stacks and TLS blocks --------------------------------- */

/* pthread_create: the new thread, before its start routine, records its
 * stack block (pthread_getattr_np: the whole block glibc mapped, its TLS
 * and descriptor at the top included) as a PMS_ALLOC_THREAD_STACK and each
 * module's TLS block of this thread (dl_iterate_phdr's dlpi_tls_data,
 * PT_TLS's size) as a PMS_ALLOC_TLS, whose one frame is an address of the
 * module (its name); the stack's frames are the pthread_create call's, in
 * the creating thread.  A later thread given the same block (glibc reuses
 * stacks) ends the earlier one's. */
struct tstart {
	void *(*fn)(void *);
	void *arg;
	struct recbuf b;
};

/* One module's TLS block of this thread, recorded once (ud: NULL at a
 * thread's start, else the time of a late block). */
/* A loaded object's first PT_LOAD address (*mod) and the size of its TLS
 * image (PT_TLS memsz; 0: none). */
static uint64_t mod_tls(const struct dl_phdr_info *info, uintptr_t *mod)
{
	uint64_t memsz = 0;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && !*mod)
			*mod = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_TLS)
			memsz = ph->p_memsz;
	}
	return memsz;
}

/* The ids of the modules with static TLS (loaded with the program, never
 * unloaded), < 256; and the loader's count of unloaded modules when this
 * thread last looked at its late blocks. */
static uint64_t tls_static[4];
static __thread unsigned long long tl_tls_subs;
static __thread bool tl_tls_check; /* this look: a module was unloaded since the last */

static uint64_t tls_fingerprint(const struct dl_phdr_info *info, uintptr_t mod)
{
	uint64_t h = ((uintptr_t)info->dlpi_tls_data ^ mod * 0x9E3779B97F4A7C15ull) | 1;
	for (const char *c = info->dlpi_name; c && *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001B3ull;
	return h | 1;
}

/* A module was unloaded since this thread noted its late ids (dlclose):
 * the id of a module loaded since may be the unloaded one's again.  So a
 * late id noted is looked at again: recorded again only when its module
 * instance is not the one recorded (another fingerprint), not for the
 * late modules still loaded (each got a second record before). */
static bool tls_same_late(const struct dl_phdr_info *info, size_t id)
{
	if (!tl_tls_check || (id < 256 && (tls_static[id / 64] >> (id % 64) & 1)))
		return true;
	uintptr_t mod = 0;
	mod_tls(info, &mod);
	uint64_t *fp = tls_fp_slot(id);
	return fp && *fp == tls_fingerprint(info, mod);
}

/* The modules with static TLS (those loaded with the program, present when
 * this library loads, and those dlopen'ed later into the static area's
 * surplus: stls_late): where each one's block lies from this library's own
 * (tl_self's address), the same in every thread that runs glibc's code,
 * since their code reaches these blocks at fixed offsets from the thread
 * pointer (initial-exec and local-exec TLS).  Appended under stls_lock,
 * read without it (nstls published last). */
#define STLS_MAX 64
static struct stls {
	intptr_t delta;   /* block - &tl_self */
	uint64_t memsz;
	uintptr_t mod;    /* the module's first byte */
	size_t id;
} stls[STLS_MAX];
static atomic_flag stls_lock = ATOMIC_FLAG_INIT;

/* A late module (dlopen'ed) whose block lies in this thread's static TLS
 * area (initial-exec TLS: glibc put it in the area's surplus, at one
 * offset from every thread's pointer), noted in stls: a raw thread reaches
 * it without a dtv, and has none to find it by (raw_static_tls). */
static void stls_late(const struct dl_phdr_info *info, uintptr_t a, uintptr_t mod, uint64_t memsz)
{
#if defined(__x86_64__)
	uintptr_t tp;
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	if (!tls_static_size || a >= tp || tp - a > tls_static_size ||
	    tl_self != (uintptr_t)&tl_self)
		return; /* a dynamic block (allocated), or not known */
	intptr_t delta = (intptr_t)(a - (uintptr_t)&tl_self);
	while (atomic_flag_test_and_set_explicit(&stls_lock, memory_order_acquire))
		;
	size_t n = atomic_load_explicit(&nstls, memory_order_relaxed);
	bool known = false;
	for (size_t i = 0; i < n && !known; i++)
		known = stls[i].id == info->dlpi_tls_modid && stls[i].mod == mod &&
			stls[i].delta == delta;
	if (!known && n < STLS_MAX) {
		stls[n] = (struct stls){ delta, memsz, mod, info->dlpi_tls_modid };
		atomic_store_explicit(&nstls, n + 1, memory_order_release);
	}
	atomic_flag_clear_explicit(&stls_lock, memory_order_release);
#else
	(void)info;
	(void)a;
	(void)mod;
	(void)memsz;
#endif
}



static int tls_one(struct dl_phdr_info *info, size_t size, void *ud)
{
	uint64_t time = ud ? *(const uint64_t *)ud : 0;
	size_t id = size >= offsetof(struct dl_phdr_info, dlpi_tls_data) + sizeof(void *)
			    ? info->dlpi_tls_modid : 0;
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs) &&
	    info->dlpi_subs != tl_tls_subs) {
		tl_tls_subs = info->dlpi_subs;
		tl_tls_check = true;
	}
	if (id && tls_seen(id, false)) {
		if (tls_same_late(info, id))
			return 0;
		tls_unsee(id); /* another module's now (its block may come later) */
	}
	uintptr_t mod = 0;
	uint64_t memsz = mod_tls(info, &mod);
	void *data = info->dlpi_tls_data;
	if (!data && memsz && mod)
		data = static_block(info, id);
	/* a late block is recorded once: its id noted first */
	if (!memsz || !data || !mod || (time && (!id || !tls_seen(id, true))))
		return 0;
	if (id)
		tls_seen(id, true);
	if (id && (id >= 256 || !(tls_static[id / 64] >> (id % 64) & 1))) {
		uint64_t *fp = tls_fp_slot(id);
		if (fp)
			*fp = tls_fingerprint(info, mod);
		stls_late(info, (uintptr_t)data, mod, memsz);
	}
	struct recbuf b;
	rec_init(&b, time, PMS_ALLOC_TLS, (uintptr_t)data, memsz, memsz, 0);
	b.frames[0] = mod + 1; /* named as the module's first byte (ip - 1) */
	b.r.nframes = 1;
	b.r.size = (uint16_t)(sizeof(b.r) + 8);
	emit(&b.r);
	return 0;
}

/* Whether a raw clone's thread (tl_nodtv) has a dtv that dl_iterate_phdr's
 * TLS lookup may read (the loader's __tls_get_addr reads only the thread
 * pointer's first two words, the TCB and the dtv, never glibc's third, its
 * own descriptor: a control block that is not glibc's but keeps the ABI's
 * has dynamic TLS too): its first word the thread pointer, this library's
 * static TLS below it, and its second a dtv, read here through the kernel
 * (process_vm_readv: a bad pointer answers EFAULT, not a fault) with a
 * length (dtv[-1]) and a generation (dtv[0]) that a dtv can have.
 * (x86-64; elsewhere: no.) */
static bool tcb_usable(void)
{
#if defined(__x86_64__)
	uintptr_t tcb, dtv;
	__asm__ volatile("mov %%fs:0, %0" : "=r"(tcb));
	__asm__ volatile("mov %%fs:8, %0" : "=r"(dtv));
	if (!tcb || !dtv || (dtv & 7) || tcb <= (uintptr_t)&tl_self ||
	    tcb - (uintptr_t)&tl_self >= (64u << 20))
		return false;
	uint64_t w[3]; /* dtv[-1] (16 bytes: its length first), dtv[0].counter */
	struct iovec local = { w, sizeof(w) }, remote = { (void *)(dtv - 16), sizeof(w) };
	int e = errno;
	long n = syscall(SYS_process_vm_readv, (pid_t)syscall(SYS_getpid), &local, 1ul, &remote,
			 1ul, 0ul);
	errno = e;
	return n == (long)sizeof(w) && w[0] && w[0] < (1u << 20) && w[2] < (1ull << 48);
#else
	return false;
#endif
}

/* The TLS blocks the loader allocated for this thread since the last look
 * (depth held), and tl_left back. */
static void tls_late(void)
{
	uint64_t t = tl_tls_time;
	tl_tls_late = false;
	if (tl_tls_parked)
		tl_left = tl_tls_left;
	tl_tls_parked = false;
	if (tl_self != (uintptr_t)&tl_self || (tl_nodtv && !tcb_usable()))
		return; /* a raw clone's thread whose dtv is not glibc's */
	dl_iterate_phdr(tls_one, &t);
	tl_tls_check = false;
}

/* This thread's stack block and TLS blocks, frames from b (the creator's
 * call; NULL: none). */
static void thread_blocks(const struct recbuf *from)
{
	pthread_attr_t at;
	void *lo = NULL;
	size_t sz = 0;
	if (pthread_getattr_np(pthread_self(), &at) == 0) {
		if (pthread_attr_getstack(&at, &lo, &sz) != 0)
			sz = 0;
		pthread_attr_destroy(&at);
	}
	if (sz && (uintptr_t)lo < tl_stack_hi && (uintptr_t)lo + sz >= tl_stack_hi)
		tl_stack_lo = (uintptr_t)lo; /* the block holding its descriptor */
	if (sz) {
		struct recbuf b;
		if (from)
			b = *from;
		else
			memset(&b, 0, sizeof(b));
		rec_init(&b, 0, PMS_ALLOC_THREAD_STACK, (uintptr_t)lo, sz, sz, 0);
		b.r.nframes = from ? from->r.nframes : 0;
		b.r.size = (uint16_t)(sizeof(b.r) + (size_t)b.r.nframes * 8);
		emit(&b.r);
	}
	dl_iterate_phdr(tls_one, NULL);
}

static void *thread_start(void *p)
{
	struct tstart *ts = p;
	void *(*fn)(void *) = ts->fn;
	void *arg = ts->arg;
	if (out_fd >= 0) {
		depth++;
		tl_pthread = true;
		if (!tl_init)
			thread_init();
		thread_blocks(&ts->b);
		tl_raw = tl_nodtv = false; /* (a hook that ran first took it for a raw one) */
		chunk_raw_forget();
		depth--;
	}
	real.free(ts);
	return fn(arg);
}

EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	if (!ready() || !real.pthread_create)
		return ENOSYS;
	if (__tsan_init || !enter())
		return real.pthread_create(t, a, fn, arg);
	struct tstart *ts = real.malloc(sizeof(*ts));
	int rc;
	if (!ts) {
		depth--;
		return real.pthread_create(t, a, fn, arg);
	}
	ts->fn = fn;
	ts->arg = arg;
	rec_init(&ts->b, 0, PMS_ALLOC_THREAD_STACK, 0, 0, 0, 0);
	walk(&ts->b, RET_FP);
	depth--;
	rc = real.pthread_create(t, a, thread_start, ts);
	if (rc)
		real.free(ts);
	return rc;
}


static int stls_learn(struct dl_phdr_info *info, size_t size, void *ud)
{
	(void)ud;
	if (size < offsetof(struct dl_phdr_info, dlpi_tls_data) + sizeof(void *) ||
	    !info->dlpi_tls_modid || !info->dlpi_tls_data || nstls == STLS_MAX)
		return 0; /* (at load: one thread, no lock) */
	uintptr_t mod = 0;
	uint64_t memsz = mod_tls(info, &mod);
	if (!memsz || !mod)
		return 0;
	if (info->dlpi_tls_modid < 256)
		tls_static[info->dlpi_tls_modid / 64] |= 1ull << (info->dlpi_tls_modid % 64);
	size_t n = atomic_load(&nstls);
	stls[n] = (struct stls){ (intptr_t)((uintptr_t)info->dlpi_tls_data - tl_self), memsz, mod,
				 info->dlpi_tls_modid };
	atomic_store(&nstls, n + 1);
	return 0;
}

/* The main thread's TLS blocks, at load (its stack is the [stack] mapping),
 * and the static TLS modules. */
static void main_tls(void)
{
	dl_iterate_phdr(stls_learn, NULL); /* first: none taken for late (stls_late) */
	dl_iterate_phdr(tls_one, NULL);
}

/* A raw thread's blocks, at its first hook: its stack (the mapping that
 * holds it, when that is an unnamed anonymous one: a stack the program
 * mapped; no call path, clone is not interposed) and its static TLS blocks
 * (stls: at their offsets from its own thread pointer).  The TLS blocks of
 * modules loaded later are looked up in such a thread only when its thread
 * control block is glibc's (tls_late, tcb_usable). */
static void raw_blocks(void)
{
	struct recbuf b;
	if (tl_raw_anon && tl_stack_hi > tl_stack_lo) {
		rec_init(&b, 0, PMS_ALLOC_THREAD_STACK, tl_stack_lo, tl_stack_hi - tl_stack_lo,
			 tl_stack_hi - tl_stack_lo, 0);
		emit(&b.r);
	}
	tl_stls_done = 0;
	raw_static_tls();
}

/* This raw thread's blocks of the static TLS modules (stls) it has not
 * recorded: at its first hook all, later those noted since (stls_late; a
 * raw thread's hooks look, enter: it has no dtv to find them by, maybe no
 * dtv at all, and touching such a block allocates nothing). */
static void raw_static_tls(void)
{
	size_t n = atomic_load_explicit(&nstls, memory_order_acquire);
	for (size_t i = tl_stls_done; i < n; i++) {
		if (tls_seen(stls[i].id, false))
			continue;
		struct recbuf b;
		uintptr_t a = (uintptr_t)&tl_self + (uintptr_t)stls[i].delta;
		rec_init(&b, 0, PMS_ALLOC_TLS, a, stls[i].memsz, stls[i].memsz, 0);
		b.frames[0] = stls[i].mod + 1; /* named as the module's first byte */
		b.r.nframes = 1;
		b.r.size = (uint16_t)(sizeof(b.r) + 8);
		emit(&b.r);
		tls_seen(stls[i].id, true);
	}
	tl_stls_done = n;
}

/* A thread whose TLS state is a copy of another thread's (who()): made anew,
 * as a raw thread's (its own chunk; the copied chunk is its creator's). */
static void raw_thread_new(void)
{
	tl_init = false;
	chunk_disown();
	tl_forking = false;
	tl_pthread = false;
	tl_tls_late = tl_tls_parked = false;
	tl_tls_subs = 0;
	tls_ids_reset(); /* (the creator's) */
	tl_tls_check = false;
	thread_init();
	raw_blocks();
}
