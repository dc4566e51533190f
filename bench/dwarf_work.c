/* A small CPU-bound program for bench/perfdata_bench.sh's `realdwarf`
 * shape: `perf record --call-graph dwarf` of it gives a real DWARF-stack
 * file (recursion a few frames deep, a leaf that walks an array).
 *   dwarf_work [ROUNDS]   (default 40) */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long leaf(const unsigned long *a, unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += a[(i * 2654435761u) % n];
	return s;
}

__attribute__((noinline)) static unsigned long walk(const unsigned long *a, unsigned long n, int d)
{
	if (d <= 0)
		return leaf(a, n);
	return walk(a, n, d - 1) + (d & 1 ? walk(a, n / 2 + 1, d - 2) : 0);
}

int main(int argc, char **argv)
{
	unsigned long n = 1ul << 20, rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 40;
	unsigned long *a = calloc(n, sizeof(*a));
	if (!a)
		return 1;
	for (unsigned long r = 0; r < rounds; r++)
		sink += walk(a, n, (int)(r % 9) + 2);
	printf("%lu\n", sink);
	free(a);
	return 0;
}
