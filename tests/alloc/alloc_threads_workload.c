/* Workload, not a test: its samples are judged by tests/alloc/check_threads.py. */
/* Test workload for thread stacks and TLS blocks under `mem`: THREADS
 * threads, all alive at once (so each has a stack block of its own), each
 * touching fresh pages of a buffer on its own stack and of a __thread
 * buffer (this program's TLS block of that thread).  The TLS pages were
 * zeroed by glibc at pthread_create, in the creating thread: each thread
 * drops them first (MADV_DONTNEED) so that its own touches fault again, for
 * the software page-fault engine.  Writes one line per thread to TRUTH:
 * "T tid stack_lo stack_hi tls_lo tls_hi" (the touched ranges).  With
 * MODULE (tests/alloc/alloc_tls_mod_workload.c), loaded by dlopen before the threads
 * start, the main thread and each thread also touch the module's __thread
 * buffer (dynamic TLS, allocated at the first access) the same way:
 * "M tid lo hi".
 *   alloc_threads_prog TRUTH [MODULE] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define THREADS 3
#define STACK_BUF (256 << 10)
#define TLS_BUF (128 << 10)

static __thread char tls_buf[TLS_BUF];
static pthread_barrier_t bar;
static FILE *truth;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char *(*mod_buf)(size_t *);

__attribute__((noinline)) static void touch(volatile char *p, size_t n, size_t pg)
{
	for (size_t i = 0; i < n; i += pg)
		p[i] = 1;
}

/* The module's TLS buffer of this thread: pages dropped, touched again. */
static void mod_touch(size_t pg)
{
	if (!mod_buf)
		return;
	size_t n = 0;
	char *b = mod_buf(&n);
	uintptr_t m0 = ((uintptr_t)b + pg - 1) & ~(pg - 1), m1 = ((uintptr_t)b + n) & ~(pg - 1);
	madvise((void *)m0, m1 - m0, MADV_DONTNEED);
	touch((volatile char *)m0, m1 - m0, pg);
	pthread_mutex_lock(&mu);
	fprintf(truth, "M %ld %#lx %#lx\n", (long)syscall(SYS_gettid), (unsigned long)m0,
		(unsigned long)m1);
	pthread_mutex_unlock(&mu);
}

static void *worker(void *arg)
{
	(void)arg;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	volatile char buf[STACK_BUF];
	pthread_barrier_wait(&bar);
	uintptr_t t0 = ((uintptr_t)tls_buf + pg - 1) & ~(pg - 1);
	uintptr_t t1 = ((uintptr_t)tls_buf + TLS_BUF) & ~(pg - 1);
	madvise((void *)t0, t1 - t0, MADV_DONTNEED);
	touch(buf, STACK_BUF, pg);
	touch((volatile char *)t0, t1 - t0, pg);
	pthread_mutex_lock(&mu);
	fprintf(truth, "T %ld %#lx %#lx %#lx %#lx\n", (long)syscall(SYS_gettid),
		(unsigned long)(uintptr_t)buf, (unsigned long)(uintptr_t)(buf + STACK_BUF),
		(unsigned long)t0, (unsigned long)t1);
	pthread_mutex_unlock(&mu);
	mod_touch(pg);
	pthread_barrier_wait(&bar);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !(truth = fopen(argv[1], "w")))
		return 2;
	if (argc > 2) {
		void *h = dlopen(argv[2], RTLD_NOW);
		if (!h || !(mod_buf = (char *(*)(size_t *))dlsym(h, "alloc_tls_mod_buf")))
			return 3;
		mod_touch((size_t)sysconf(_SC_PAGESIZE));
	}
	pthread_t t[THREADS];
	pthread_barrier_init(&bar, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	fclose(truth);
	return 0;
}
