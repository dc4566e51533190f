/* A program with known allocation sites, for tests/cli/alloc_sites.sh: each
 * site_* function allocates blocks of its own sizes and touches every page
 * of them (each first touch is a page fault the software engine samples,
 * with the faulting address).  Realloc chains, a free followed by a
 * reuse of the same address by another site, threads, a forked child
 * (touching its own block and, copy-on-write, an inherited one), a thread
 * made by a raw clone (CLONE_VM | CLONE_THREAD, no CLONE_SETTLS: it runs
 * on its creator's TLS, while the creator waits) and a process made by a
 * raw clone system call (no fork handlers run), each allocating.  It
 * writes its ground truth to the file given as argv[1]: one line per block
 *   B SITE PID START LEN T_BEFORE T_AFTER_FREE
 * (CLOCK_MONOTONIC ns; T_AFTER_FREE 0: never freed) and one per fork
 *   F CHILD PARENT T_FORK */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/futex.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
static FILE *truth;
static pthread_mutex_t tlock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void note_at(const char *site, uintptr_t p, size_t n, uint64_t t0, uint64_t t1)
{
	pthread_mutex_lock(&tlock);
	fprintf(truth, "B %s %d %lu %zu %lu %lu\n", site, (int)getpid(), (unsigned long)p,
		n, (unsigned long)t0, (unsigned long)t1);
	fflush(truth);
	pthread_mutex_unlock(&tlock);
}

#define note(site, p, n, t0, t1) note_at(site, (uintptr_t)(p), n, t0, t1)

/* Each whole page of the block is dropped first, so that touching it
 * faults (one sample) even where malloc hands out memory touched before:
 * glibc's dynamic mmap threshold puts later blocks on the heap, and a
 * raw clone thread sharing the main arena makes that layout timing-
 * dependent (site_aligned and site_thread once had no sample at all). */
static void touch(char *p, size_t n)
{
	uintptr_t a = ((uintptr_t)p + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)(PAGE - 1);
	if (e > a)
		madvise((void *)a, e - a, MADV_DONTNEED);
	for (size_t i = 0; i < n; i += PAGE)
		((volatile char *)p)[i] = 1;
	((volatile char *)p)[n - 1] = 1;
}

static void pause_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

/* the sites: not inlined, so that each is its own frame */
#if defined(__clang__)
#define SITE __attribute__((noinline))
#else
#define SITE __attribute__((noinline, noclone))
#endif

SITE static char *site_big_malloc(size_t n, uint64_t *t0)
{
	*t0 = now();
	char *p = malloc(n);
	__asm__ volatile("" ::: "memory");
	return p;
}

SITE static char *site_calloc(size_t n, uint64_t *t0)
{
	*t0 = now();
	char *p = calloc(1, n);
	__asm__ volatile("" ::: "memory");
	return p;
}

SITE static char *site_realloc(char *old, size_t n, uint64_t *t0)
{
	*t0 = now();
	char *p = realloc(old, n);
	__asm__ volatile("" ::: "memory");
	return p;
}

SITE static char *site_aligned(size_t n, uint64_t *t0)
{
	*t0 = now();
	void *p = NULL;
	if (posix_memalign(&p, PAGE, n))
		return NULL;
	__asm__ volatile("" ::: "memory");
	return p;
}

SITE static char *site_reuse_a(size_t n, uint64_t *t0)
{
	*t0 = now();
	char *p = malloc(n);
	__asm__ volatile("" ::: "memory");
	return p;
}

SITE static char *site_reuse_b(size_t n, uint64_t *t0)
{
	*t0 = now();
	char *p = malloc(n);
	__asm__ volatile("" ::: "memory");
	return p;
}

SITE static char *site_thread(size_t n, uint64_t *t0)
{
	*t0 = now();
	char *p = malloc(n);
	__asm__ volatile("" ::: "memory");
	return p;
}

SITE static char *site_child(size_t n, uint64_t *t0)
{
	*t0 = now();
	char *p = malloc(n);
	__asm__ volatile("" ::: "memory");
	return p;
}

SITE static char *site_clone_thread(size_t n, uint64_t *t0)
{
	*t0 = now();
	char *p = malloc(n);
	__asm__ volatile("" ::: "memory");
	return p;
}

SITE static char *site_clone_proc(size_t n, uint64_t *t0)
{
	*t0 = now();
	char *p = malloc(n);
	__asm__ volatile("" ::: "memory");
	return p;
}

static void freed(const char *site, char *p, size_t n, uint64_t t0)
{
	uintptr_t at = (uintptr_t)p; /* the address, noted after the free */
	free(p);
	note_at(site, at, n, t0, now());
}

/* The two threads take turns with their blocks: a block one thread frees
 * is often mapped again at once for the other's, and the checker cannot
 * tell two blocks apart at one address within its margin; the pause after
 * each free (under the lock) keeps them further apart. */
static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;

static void *thread_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++) {
		uint64_t t0;
		size_t n = (size_t)(300 + 100 * i) * 1024;
		pthread_mutex_lock(&turn);
		char *p = site_thread(n, &t0);
		touch(p, n);
		freed("site_thread", p, n, t0);
		pause_ms(20);
		pthread_mutex_unlock(&turn);
	}
	return NULL;
}

/* The raw clone thread: a block allocated, touched and freed, and a
 * second one kept (its creator waits for it to end: they share one TLS
 * block, glibc's malloc state in it included). */
static int clone_thread_main(void *arg)
{
	(void)arg;
	uint64_t t0;
	size_t n = 600u << 10;
	char *p = site_clone_thread(n, &t0);
	touch(p, n);
	freed("site_clone_thread", p, n, t0);
	pause_ms(20); /* the next block may take its address: apart in time */
	p = site_clone_thread(n, &t0);
	touch(p, n);
	note("site_clone_thread", p, n, t0, 0);
	return 0;
}

static void raw_clones(char *inherited, size_t in_n)
{
	size_t ss = 256u << 10;
	char *stack = mmap(NULL, ss, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED)
		return;
	static volatile pid_t ctid;
	pid_t ptid = 0;
	ctid = 1;
	int fl = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
		 CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
	if (clone(clone_thread_main, stack + ss, fl, NULL, &ptid, NULL, (pid_t *)&ctid) > 0) {
		while (ctid) /* the kernel clears it at the thread's exit, and wakes */
			syscall(SYS_futex, (pid_t *)&ctid, FUTEX_WAIT, ctid, NULL, NULL, 0);
	}
	munmap(stack, ss);
	pause_ms(20);
	/* a process by the raw system call: a fork whose handlers never run */
	pid_t parent = getpid();
	uint64_t tf = now();
	long ch = syscall(SYS_clone, (unsigned long)SIGCHLD, NULL, NULL, NULL, 0ul);
	if (ch == 0) {
		fprintf(truth, "F %d %d %lu\n", (int)syscall(SYS_getpid), (int)parent,
			(unsigned long)tf);
		fflush(truth);
		uint64_t t0;
		size_t n = 700u << 10;
		char *p = site_clone_proc(n, &t0);
		touch(p, n);
		note("site_clone_proc", p, n, t0, 0);
		touch(inherited, in_n); /* copy on write: the parent's block */
		fclose(truth);
		syscall(SYS_exit_group, 0);
	}
	if (ch > 0) {
		int st;
		waitpid((pid_t)ch, &st, 0);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2 || !(truth = fopen(argv[1], "w")))
		return 2;
	/* blocks from 256 KiB are mapped on their own, freed ones unmapped
	 * (no dynamic threshold): a freed address is mapped again for the
	 * next block of its size, and its pages fault again */
	mallopt(M_MMAP_THRESHOLD, 256 << 10);
	uint64_t t0;
	/* several sizes: mapped blocks and heap blocks */
	static const size_t sizes[] = { 2u << 20, 512u << 10, 96u << 10, 160u << 10 };
	for (size_t i = 0; i < 4; i++) {
		char *p = site_big_malloc(sizes[i], &t0);
		touch(p, sizes[i]);
		note("site_big_malloc", p, sizes[i], t0, 0);
	}
	char *c = site_calloc(1u << 20, &t0);
	touch(c, 1u << 20);
	note("site_calloc", c, 1u << 20, t0, 0);
	/* a realloc chain: each step a new block of the realloc site */
	char *r = NULL;
	uint64_t rt0 = 0;
	size_t rn = 0;
	for (size_t n = 200u << 10; n <= (3u << 20); n *= 2) {
		char *old = r;
		uint64_t ot0 = rt0;
		size_t on = rn;
		r = site_realloc(r, n, &rt0);
		if (old)
			note("site_realloc", old, on, ot0, rt0); /* ended by the realloc */
		rn = n;
		touch(r, n);
	}
	note("site_realloc", r, rn, rt0, 0);
	/* realloc's moves freed blocks this one may reuse: apart by more
	 * than the checker's margin */
	pause_ms(20);
	char *al = site_aligned(640u << 10, &t0);
	touch(al, 640u << 10);
	note("site_aligned", al, 640u << 10, t0, 0);
	/* free and reuse: b gets a's address (same size, just freed) */
	for (int k = 0; k < 3; k++) {
		size_t n = 400u << 10;
		char *a = site_reuse_a(n, &t0);
		touch(a, n);
		freed("site_reuse_a", a, n, t0);
		pause_ms(20);
		char *b = site_reuse_b(n, &t0);
		touch(b, n);
		freed("site_reuse_b", b, n, t0);
		pause_ms(20);
	}
	/* heap blocks freed and reused, their pages given back between
	 * (malloc_trim), so that the reuse faults again */
	for (int k = 0; k < 3; k++) {
		size_t n = 128u << 10;
		char *a = site_reuse_a(n, &t0);
		touch(a, n);
		freed("site_reuse_a", a, n, t0);
		malloc_trim(0);
		pause_ms(20);
		char *b = site_reuse_b(n, &t0);
		touch(b, n);
		freed("site_reuse_b", b, n, t0);
		malloc_trim(0);
		pause_ms(20);
	}
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, thread_main, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	/* a forked child: its own block, and a copy-on-write touch of the
	 * parent's calloc block */
	pause_ms(20);
	pid_t parent = getpid();
	uint64_t tf = now();
	pid_t ch = fork();
	if (ch == 0) {
		pthread_mutex_lock(&tlock);
		fprintf(truth, "F %d %d %lu\n", (int)getpid(), (int)parent, (unsigned long)tf);
		fflush(truth);
		pthread_mutex_unlock(&tlock);
		size_t n = 800u << 10;
		char *p = site_child(n, &t0);
		touch(p, n);
		note("site_child", p, n, t0, 0);
		touch(c, 1u << 20); /* inherited: site_calloc */
		fclose(truth);
		_exit(0);
	}
	int st;
	waitpid(ch, &st, 0);
	raw_clones(c, 1u << 20);
	fclose(truth);
	return 0;
}
