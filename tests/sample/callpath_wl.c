/* Workload with a known call path for the call-path tests, built twice:
 * with frame pointers (pms_callpath_fp) and without (pms_callpath_nofp,
 * -O2 -fomit-frame-pointer: only DWARF unwinding finds the callers).
 *   pms_callpath_xx touch N      main -> cp_outer -> cp_middle -> cp_leaf_touch
 *                                writes one byte to each of N fresh pages
 *   pms_callpath_xx spin MS      main -> cp_outer_spin -> cp_middle_spin ->
 *                                cp_leaf_spin, computing for MS milliseconds */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

volatile uint64_t cp_sink;

/* Not static: the names stay as written (no .constprop clones). */
void cp_note(long n);
void cp_leaf_touch(unsigned char *p, long n, long psz);
void cp_middle(unsigned char *p, long n, long psz);
void cp_outer(long n);
uint64_t cp_leaf_spin(uint64_t x, long iters);
uint64_t cp_middle_spin(uint64_t x, long iters);
void cp_outer_spin(double ms);

__attribute__((noinline)) void cp_note(long n)
{
	cp_sink += (uint64_t)n;
}

/* Not a leaf (it calls cp_note first): gcc 12 drops the frame pointer of
 * leaf functions even with -mno-omit-leaf-frame-pointer, and a
 * frame-pointer walk then skips the caller. */
__attribute__((noinline)) void cp_leaf_touch(unsigned char *p, long n, long psz)
{
	cp_note(n); /* first: the frame is set up before the loop */
	for (long i = 0; i < n; i++)
		p[i * psz] = (unsigned char)i;
}

__attribute__((noinline)) void cp_middle(unsigned char *p, long n, long psz)
{
	cp_leaf_touch(p, n, psz);
	cp_sink += p[0]; /* no tail call: the frame stays */
}

__attribute__((noinline)) void cp_outer(long n)
{
	long psz = sysconf(_SC_PAGESIZE);
	unsigned char *p = mmap(NULL, (size_t)(n * psz), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(2);
	cp_middle(p, n, psz);
	cp_sink += p[psz];
	munmap(p, (size_t)(n * psz));
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline)) uint64_t cp_leaf_spin(uint64_t x, long iters)
{
	cp_note(iters); /* not a leaf: see cp_leaf_touch */
	for (long i = 0; i < iters; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

__attribute__((noinline)) uint64_t cp_middle_spin(uint64_t x, long iters)
{
	x = cp_leaf_spin(x, iters);
	cp_sink += x; /* no tail call */
	return x ^ cp_sink;
}

__attribute__((noinline)) void cp_outer_spin(double ms)
{
	double end = now_ms() + ms;
	uint64_t x = 1;
	while (now_ms() < end)
		x = cp_middle_spin(x, 200000);
	cp_sink += x;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "touch"))
		cp_outer(atol(argv[2]));
	else if (argc == 3 && !strcmp(argv[1], "spin"))
		cp_outer_spin(atof(argv[2]));
	else {
		fprintf(stderr, "usage: %s touch N | spin MS\n", argv[0]);
		return 2;
	}
	return 0;
}
