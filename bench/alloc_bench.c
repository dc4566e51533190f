/* A malloc-heavy workload for the allocation tracker's cost
 * (bench/alloc_overhead.py runs it with and without libpmuscope-alloc.so
 * and prints the ratio): THREADS threads each make ROUNDS allocations, most
 * small (16 B to 4 KiB), one in 64 large (64 KiB to 1 MiB), each written
 * once, and free blocks other threads made (a shared slot table).
 *   alloc_bench [THREADS [ROUNDS]]   prints its run time in seconds */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOTS 4096
static void *_Atomic slots[SLOTS];
static long rounds = 200000;

static void *worker(void *arg)
{
	uint64_t x = (uintptr_t)arg * 0x9E3779B97F4A7C15ull + 1;
	for (long i = 0; i < rounds; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		size_t n = (x & 63) == 0 ? (64u << 10) + (size_t)(x >> 8) % (960u << 10)
					 : 16 + (size_t)(x >> 8) % 4080;
		char *p = malloc(n);
		if (!p)
			return (void *)1;
		p[0] = (char)i;
		p[n - 1] = (char)i;
		/* cross-thread frees: the slot's previous block is another's */
		void *old = atomic_exchange(&slots[(x >> 20) % SLOTS], p);
		free(old);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	if (argc > 2)
		rounds = atol(argv[2]);
	if (threads < 1 || threads > 256 || rounds < 1)
		return 2;
	pthread_t th[256];
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	for (int i = 0; i < SLOTS; i++)
		free(slots[i]);
	printf("%.6f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
