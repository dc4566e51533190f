/* Workload, not a test: its ground truth is judged by tests/beds/beds.py check_x86_allocsites. */
/* allocnuma SECONDS OUTFILE: the allocation-site workload of the x86 NUMA bed
 * (issue 28, beds.py check_x86_allocsites).  Unlike bedcheck it is linked
 * dynamically, so that `pmuscope mem -- allocnuma` can preload
 * libpmuscope-alloc.so into it (build.sh copies the loader and the
 * libraries into the guest).
 *
 * Two allocation sites, each an anonymous shared mapping of 2 MiB made by
 * its own function: "near" bound (mbind MPOL_BIND) to node 0, "far" bound
 * to node 2.  Two threads on node 0's CPUs 0 and 1 read both.  The software
 * engine samples page faults only, so the readers drop the page-table
 * entries of a few pages at a time (MADV_DONTNEED: a shared mapping's pages
 * stay in the page cache, on their node, or where they were moved) and read
 * them again at once: each read is a minor fault sampled at the page's
 * address on the reading CPU.  A private mapping would not do: its pages
 * would be freed and the refault would allocate them on the bound node
 * again, undoing a migration.
 *
 * Until SIGINT/SIGTERM or SECONDS; then one BED line to OUTFILE: the pid,
 * both ranges and their pages per node after the first touch and at the
 * end (move_pages queries).  The source lines of the two mmap calls are
 * marked "site:near" and "site:far": the bed looks them up here. */
#include <errno.h>
#include <linux/mempolicy.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SIZE (2u << 20)
#define CHUNK 1 /* pages dropped and read again at a time: the fewer, the fewer
		  * are out of the page table when --apply moves them */
#define NNODES 4

static volatile sig_atomic_t stop;
static pthread_barrier_t round_bar;
static char *near, *far;
static size_t psz;
static double secs;

static void on_sig(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

/* The two allocation sites: one mmap call each, on a line of its own. */
static __attribute__((noinline)) char *alloc_near(void)
{
	char *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0); /* site:near */
	return p == MAP_FAILED ? NULL : p;
}

static __attribute__((noinline)) char *alloc_far(void)
{
	char *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0); /* site:far */
	return p == MAP_FAILED ? NULL : p;
}

static int bind_node(char *p, int node)
{
	unsigned long mask = 1UL << node;
	return (int)syscall(SYS_mbind, p, (unsigned long)SIZE, MPOL_BIND, &mask, 65UL, 0U);
}

static unsigned sweep(char *buf, int parity)
{
	size_t chunk = CHUNK * psz;
	unsigned sum = 0;
	for (size_t off = (size_t)parity * chunk; off < SIZE && !stop; off += 2 * chunk) {
		madvise(buf + off, chunk, MADV_DONTNEED);
		for (size_t p = 0; p < chunk; p += psz)
			sum += ((volatile char *)buf)[off + p];
	}
	return sum;
}

struct reader {
	int cpu, parity;
	pthread_t t;
};

static void *reader_run(void *arg)
{
	struct reader *r = arg;
	static volatile int votes[2];
	unsigned sum = 0;
	pin(r->cpu);
	double t0 = now();
	for (;;) {
		/* both go on or both stop, so neither runs a round alone */
		int go = !stop && now() - t0 < secs;
		votes[r->parity] = go;
		pthread_barrier_wait(&round_bar);
		int other = votes[!r->parity];
		pthread_barrier_wait(&round_bar);
		if (!go || !other)
			break;
		sum += sweep(near, r->parity);
		sum += sweep(far, r->parity);
		struct timespec nap = { 0, 20 * 1000 * 1000 };
		nanosleep(&nap, NULL);
	}
	return (void *)(uintptr_t)sum;
}

/* pages of buf per node: each page read first (mapped), then one
 * move_pages query for all of them */
static void count(char *buf, int out[NNODES])
{
	enum { NPG = SIZE / 4096 };
	static void *pg[NPG];
	static int st[NPG];
	size_t n = 0;
	memset(out, 0, NNODES * sizeof(int));
	for (size_t off = 0; off < SIZE && n < NPG; off += psz, n++) {
		(void)((volatile char *)buf)[off];
		pg[n] = buf + off;
		st[n] = -1;
	}
	if (syscall(SYS_move_pages, 0, (unsigned long)n, pg, NULL, st, 0) != 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (st[i] >= 0 && st[i] < NNODES)
			out[st[i]]++;
}

static void put(FILE *f, const char *key, const int v[NNODES])
{
	fprintf(f, ",\"%s\":[%d,%d,%d,%d]", key, v[0], v[1], v[2], v[3]);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: allocnuma SECONDS OUTFILE\n");
		return 2;
	}
	secs = strtod(argv[1], NULL);
	psz = (size_t)sysconf(_SC_PAGESIZE);
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	pin(0); /* the first touch too is made on node 0 */
	near = alloc_near();
	far = alloc_far();
	if (!near || !far)
		return 3;
	if (bind_node(near, 0) < 0 || bind_node(far, 2) < 0) {
		fprintf(stderr, "allocnuma: mbind: %s\n", strerror(errno));
		return 4;
	}
	memset(near, 1, SIZE);
	memset(far, 1, SIZE);
	int near0[NNODES], far0[NNODES], near1[NNODES], far1[NNODES];
	count(near, near0);
	count(far, far0);
	struct reader rd[2] = { { .cpu = 0, .parity = 0 }, { .cpu = 1, .parity = 1 } };
	pthread_barrier_init(&round_bar, NULL, 2);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&rd[i].t, NULL, reader_run, &rd[i]) != 0)
			return 5;
	for (int i = 0; i < 2; i++)
		pthread_join(rd[i].t, NULL);
	count(near, near1);
	count(far, far1);
	FILE *f = fopen(argv[2], "w");
	if (!f)
		return 6;
	fprintf(f, "BED {\"check\":\"allocnuma\",\"pid\":%d,\"pages\":%zu,\"near_start\":\"%p\","
		   "\"near_end\":\"%p\",\"far_start\":\"%p\",\"far_end\":\"%p\"",
		(int)getpid(), (size_t)SIZE / psz, (void *)near, (void *)(near + SIZE), (void *)far,
		(void *)(far + SIZE));
	put(f, "near_first", near0);
	put(f, "far_first", far0);
	put(f, "near_end_nodes", near1);
	put(f, "far_end_nodes", far1);
	fprintf(f, "}\n");
	return fclose(f) == 0 ? 0 : 6;
}
