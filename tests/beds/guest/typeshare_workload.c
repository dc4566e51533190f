/* Workload, not a test: its ground truth is judged by tests/beds/beds.py check_x86_typeshare. */
/* Bed workload for `pmuscope mem --types` (issue 29, beds.py
 * check_x86_typeshare): two threads, each writing its own counter of one
 * struct ctrs.  Built twice (build.sh): as is, a and b 8 bytes apart on one
 * cache line (false sharing); with -DPADDED, b on the next line.
 *
 * usage: typeshare [MILLISECONDS]
 *
 * The threads are pinned to the first and the last CPU this process may use
 * (different nodes where the CPU numbering follows the nodes).  The struct
 * lives in a shared anonymous page that each thread drops (madvise
 * MADV_DONTNEED) once a millisecond, so that its next write faults again: the
 * software page-fault engine sees both threads write their members.  The
 * writes are plain stores (volatile, never read), so the faulting
 * instruction is the store.  Prints "ctrs 0x... b +N cpus C0 C1" on stderr. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

struct ctrs {
	volatile unsigned long a; /* thread 0's */
#ifdef PADDED
	char pad[56];
#endif
	volatile unsigned long b; /* thread 1's */
};

static long ms = 300;
static size_t page_size;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void put_a(struct ctrs *c, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		c->a = i;
}

__attribute__((noinline)) static void put_b(struct ctrs *c, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		c->b = i;
}

struct worker {
	struct ctrs *c;
	int cpu, which;
};

static void *run(void *arg)
{
	struct worker *w = arg;
	cpu_set_t cs;
	CPU_ZERO(&cs);
	CPU_SET(w->cpu, &cs);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(cs), &cs);
	double t0 = now_ms(), last = 0;
	for (;;) {
		if (w->which)
			put_b(w->c, 1024);
		else
			put_a(w->c, 1024);
		double t = now_ms() - t0;
		if (t >= (double)ms)
			break;
		if (t - last >= 1.0) {
			(void)madvise((void *)w->c, page_size, MADV_DONTNEED);
			last = t;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		ms = atol(argv[1]);
	page_size = 4096;
	struct ctrs *c = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			      -1, 0);
	if (c == MAP_FAILED)
		return 1;
	cpu_set_t cs;
	int first = -1, last = -1;
	if (sched_getaffinity(0, sizeof(cs), &cs) == 0)
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &cs)) {
				first = first < 0 ? i : first;
				last = i;
			}
	if (first < 0)
		first = last = 0;
	fprintf(stderr, "ctrs %p b +%zu cpus %d %d\n", (void *)c,
		(size_t)((char *)&c->b - (char *)c), first, last);
	struct worker w[2] = { { c, first, 0 }, { c, last, 1 } };
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, run, &w[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
