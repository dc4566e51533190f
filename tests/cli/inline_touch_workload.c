/* Workload, not a test: judged by tests/cli/export_inline.sh (the inline
 * stacks of its page faults' DWARF call paths in mem -g and report's
 * exports, against perf).  leaf, mid and top are always inlined into outer
 * (at every -O), and leaf writes a byte of a fresh page: each first touch
 * is a page fault taken inside the three inlined functions. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static inline __attribute__((always_inline)) void leaf(volatile char *p, unsigned long i)
{
	p[i * 4096] = (char)(i * 7 + 1);
}

static inline __attribute__((always_inline)) void mid(volatile char *p, unsigned long i)
{
	leaf(p, i);
}

static inline __attribute__((always_inline)) void top(volatile char *p, unsigned long i)
{
	mid(p, i);
}

__attribute__((noinline)) static void outer(volatile char *p, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		top(p, i);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
	char *p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	outer(p, n);
	printf("%d\n", p[(n - 1) * 4096]);
	return 0;
}
