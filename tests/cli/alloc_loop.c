/* A workload for mem --apply with allocations tracked (tests/cli/objects.py):
 * two blocks from two functions, re-faulted every round (MADV_DONTNEED) so
 * that the page-fault engine samples them in both measurements.
 * alloc_loop SECONDS */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define MiB (1ul << 20)

__attribute__((noinline)) static char *hot_a(void)
{
	char *p = malloc(8 * MiB);
	__asm__ volatile("" ::: "memory"); /* no tail call: hot_a is the caller */
	return p;
}

__attribute__((noinline)) static char *hot_b(void)
{
	char *p = malloc(4 * MiB);
	__asm__ volatile("" ::: "memory"); /* no tail call: hot_b is the caller */
	return p;
}

static void touch(char *p, size_t n)
{
	/* the page-aligned interior: its pages fault again next round */
	char *lo = (char *)(((unsigned long)p + 4095) & ~4095ul);
	size_t len = (n - (size_t)(lo - p)) & ~4095ul;
	memset(lo, 1, len);
	madvise(lo, len, MADV_DONTNEED);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3;
	char *a = hot_a(), *b = hot_b();
	if (!a || !b)
		return 1;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		touch(a, 8 * MiB);
		touch(b, 4 * MiB);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < secs);
	free(a);
	free(b);
	return 0;
}
