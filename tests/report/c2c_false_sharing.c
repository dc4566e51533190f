/* Test workload for `pmuscope c2c`: two threads, each incrementing its own
 * counter.  "shared": the counters are 8 bytes apart in one cache line
 * (false sharing); "padded": 64 bytes apart, one line each.
 *
 * usage: c2c_false_sharing shared|padded [MILLISECONDS] [--refault]
 *
 * The threads are pinned to two different CPUs (the first and the last
 * this process may use, so that on a multi-node machine they sit on
 * different nodes where the CPU numbering follows the nodes).  The
 * counters live in a shared anonymous page.  With --refault each thread
 * drops the page's mapping (madvise MADV_DONTNEED, which keeps a shared
 * page's contents) once a millisecond, so the next write faults again:
 * that is what lets the software page-fault engine, which sees only
 * faults, observe both threads writing their counters (the page stays
 * mapped most of the time, so its node can be asked).  A hardware
 * engine (PEBS, IBS, SPE) needs no --refault.  The main thread never
 * touches the page.  After the threads end the process lingers 300 ms, its
 * page still mapped, so that a profiler that reads its samples late can
 * still ask where the page is.  Prints "line 0x... a +0 b +N" on stderr
 * (stdout is the profiler's). */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned char *page;
static size_t page_size;
static long ms = 300;
static int refault;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct worker {
	volatile uint64_t *counter;
	int cpu;
};

static void *run(void *arg)
{
	struct worker *w = arg;
	if (w->cpu >= 0) {
		cpu_set_t cs;
		CPU_ZERO(&cs);
		CPU_SET(w->cpu, &cs);
		(void)pthread_setaffinity_np(pthread_self(), sizeof(cs), &cs);
	}
	double t0 = now_ms(), last = 0;
	for (unsigned long i = 0;; i++) {
		(*w->counter)++;
		if (i % 1024)
			continue;
		double t = now_ms() - t0;
		if (t >= (double)ms)
			break;
		if (refault && t - last >= 1.0) {
			(void)madvise(page, page_size, MADV_DONTNEED);
			last = t;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int padded = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "padded"))
			padded = 1;
		else if (!strcmp(argv[i], "shared"))
			padded = 0;
		else if (!strcmp(argv[i], "--refault"))
			refault = 1;
		else if (atol(argv[i]) > 0)
			ms = atol(argv[i]);
		else {
			fprintf(stderr, "usage: %s shared|padded [MILLISECONDS] [--refault]\n", argv[0]);
			return 2;
		}
	}
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	page = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* the two CPUs: first and last allowed */
	cpu_set_t cs;
	int first = -1, last = -1;
	if (sched_getaffinity(0, sizeof(cs), &cs) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &cs)) {
				if (first < 0)
					first = c;
				last = c;
			}
	/* a line in the middle of the page */
	unsigned char *line = page + 1024;
	struct worker w[2] = {
		{ (volatile uint64_t *)line, first },
		{ (volatile uint64_t *)(line + (padded ? 64 : 8)), last },
	};
	fprintf(stderr, "line %p a +0 b +%d cpus %d %d\n", (void *)line, padded ? 64 : 8, first, last);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, run, &w[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	struct timespec linger = { 0, 300 * 1000 * 1000 };
	nanosleep(&linger, NULL);
	return *w[0].counter && *w[1].counter ? 0 : 3;
}
