/* Workload, not a test: judged by tests/cli/script_inline.sh (its script and
 * report -g output against perf's).  Inlined functions three deep, in a loop
 * (issue 30's inline frames): leaf, mid and top are always inlined (at every -O and
 * under the sanitizers), so the DWARF of outer holds DW_TAG_inlined_subroutine
 * scopes for them; outer itself is not inlined. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long leaf(unsigned long x)
{
	unsigned long r = x;
	for (int i = 0; i < 50; i++)
		r = r * 6364136223846793005ul + 1442695040888963407ul;
	return r;
}

static inline __attribute__((always_inline)) unsigned long mid(unsigned long x)
{
	unsigned long s = 0;
	for (int j = 0; j < 20; j++)
		s += leaf(x + (unsigned long)j);
	return s;
}

static inline __attribute__((always_inline)) unsigned long top(unsigned long x)
{
	return mid(x) ^ mid(x + 7);
}

__attribute__((noinline)) static unsigned long outer(unsigned long n)
{
	unsigned long acc = 0;
	for (unsigned long k = 0; k < n; k++)
		acc += top(k);
	return acc;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	sink = outer(n);
	printf("%lu\n", sink);
	return 0;
}
