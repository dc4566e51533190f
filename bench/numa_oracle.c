/* Address -> node oracle benchmark: the batched, cached oracle
 * (pms_numa_oracle) against the kernel's own batched limit (move_pages
 * alone over the same distinct pages) and against seed 000's method,
 * get_mempolicy + move_pages for every sample, on the same sample stream.
 * Prints rates, ratios and the issue-21 goals; no pass/fail.
 *
 * usage: numa_oracle [BUFFER_MIB [SAMPLES [DRAIN [REPS]]]]
 *        (default 64 1000000 4096 5)
 *
 * The stream is what a pointer chase over the buffer samples: uniformly
 * random words, so most pages repeat across drains only by chance.
 *
 * Each repetition runs, one after the other: a fresh oracle over the stream
 * (cold), the same oracle again (warm: every page cached), and the limit in
 * stream (first-seen) order and in address order.  A shared machine makes
 * wall time meaningless, so the rates are per second of this thread's CPU
 * time (user + sys, CLOCK_THREAD_CPUTIME_ID), medians over the repetitions;
 * wall-time medians are printed beside them.  One untimed pass over every
 * page comes first, so that no phase pays for the first walk alone.  The
 * oracle must ask about exactly the stream's distinct pages (checked: the
 * paired ratio compares times over the same pages); the limit asks in the
 * oracle's default batch (512) and does not read the addresses, so it is
 * an upper bound no oracle reaches. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pmuscope/error.h"
#include "pmuscope/numa.h"
#include "pmuscope/sys.h"

#define MPOL_F_NODE_ (1u << 0)
#define MPOL_F_ADDR_ (1u << 1)
#define MAX_REPS 64

struct t {
	double wall, cpu;
};

static struct t now(void)
{
	struct timespec w, c;
	clock_gettime(CLOCK_MONOTONIC, &w);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
	return (struct t){ (double)w.tv_sec + (double)w.tv_nsec / 1e9,
			   (double)c.tv_sec + (double)c.tv_nsec / 1e9 };
}

static struct t since(struct t a)
{
	struct t b = now();
	return (struct t){ b.wall - a.wall, b.cpu - a.cpu };
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(const double *v, size_t n)
{
	double s[MAX_REPS];
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), dbl_cmp);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* move_pages alone over pg[0..n), 512 pages a call. */
static struct t limit_pass(const struct pms_sys_ops *ops, void **pg, int *st, size_t n)
{
	struct t t0 = now();
	for (size_t off = 0; off < n; off += 512) {
		size_t k = n - off < 512 ? n - off : 512;
		ops->move_pages(ops->ud, 0, k, pg + off, NULL, st + off, 0);
	}
	return since(t0);
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 64;
	size_t nsamples = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000000;
	size_t drain = argc > 3 ? strtoul(argv[3], NULL, 0) : 4096;
	size_t reps = argc > 4 ? strtoul(argv[4], NULL, 0) : 5;
	size_t bytes = mib << 20;
	long psz = sysconf(_SC_PAGESIZE);
	if (!mib || !nsamples || !drain || !reps || reps > MAX_REPS) {
		fprintf(stderr, "usage: numa_oracle [BUFFER_MIB [SAMPLES [DRAIN [REPS (1-%d)]]]]\n",
			MAX_REPS);
		return 2;
	}
	unsigned char *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(buf, 1, bytes);
	uint64_t *addrs = malloc(nsamples * sizeof(*addrs));
	int *nodes = malloc(drain * sizeof(*nodes));
	size_t pages = bytes / (size_t)psz;
	void **pg_stream = malloc(pages * sizeof(*pg_stream));
	void **pg_sorted = malloc(pages * sizeof(*pg_sorted));
	int *pst = malloc(pages * sizeof(*pst));
	unsigned char *seen = calloc(pages, 1);
	if (!addrs || !nodes || !pg_stream || !pg_sorted || !pst || !seen)
		return 1;
	uint64_t seed = 42;
	for (size_t i = 0; i < nsamples; i++)
		addrs[i] = (uint64_t)(uintptr_t)buf + (rnd(&seed) % (bytes / 8)) * 8;
	/* The distinct pages of the stream, in first-seen order and in
	 * address order: what the kernel is asked about, at best. */
	size_t ndistinct = 0;
	for (size_t i = 0; i < nsamples; i++) {
		size_t pg = (size_t)((addrs[i] - (uint64_t)(uintptr_t)buf) / (uint64_t)psz);
		if (!seen[pg]) {
			seen[pg] = 1;
			pg_stream[ndistinct++] = buf + pg * (size_t)psz;
		}
	}
	for (size_t pg = 0, k = 0; pg < pages; pg++)
		if (seen[pg])
			pg_sorted[k++] = buf + pg * (size_t)psz;
	free(seen);

	struct pms_sys *sys = NULL;
	if (pms_sys_new(&sys, NULL) < 0) {
		fprintf(stderr, "numa_oracle: %s\n", pms_error_last());
		return 1;
	}
	const struct pms_sys_ops *ops = pms_sys_ops(sys);
	(void)limit_pass(ops, pg_stream, pst, ndistinct); /* untimed first walk */

	double cold_cpu[MAX_REPS], cold_wall[MAX_REPS], warm_cpu[MAX_REPS], warm_wall[MAX_REPS];
	double ls_cpu[MAX_REPS], ls_wall[MAX_REPS], la_cpu[MAX_REPS], la_wall[MAX_REPS];
	double ratio[MAX_REPS];
	struct pms_numa_stats cold = { 0 };
	for (size_t r = 0; r < reps; r++) {
		struct pms_numa_opts no = PMS_NUMA_OPTS_INIT;
		no.page_size = (size_t)psz;
		struct pms_numa_oracle *o = NULL;
		if (pms_numa_oracle_new(sys, NULL, &no, &o) < 0) {
			fprintf(stderr, "numa_oracle: %s\n", pms_error_last());
			return 1;
		}
		/* 1. Batched oracle, cold cache, drain by drain. */
		struct t t0 = now();
		for (size_t off = 0; off < nsamples; off += drain) {
			size_t n = nsamples - off < drain ? nsamples - off : drain;
			if (pms_numa_oracle_resolve(o, addrs + off, n, nodes) < 0) {
				fprintf(stderr, "numa_oracle: %s\n", pms_error_last());
				return 1;
			}
		}
		struct t tc = since(t0);
		pms_numa_oracle_stats(o, &cold);
		/* the ratio below compares times over the same pages */
		if (cold.pages_queried != ndistinct) {
			fprintf(stderr, "numa_oracle: the oracle asked about %" PRIu64
				" pages, the stream has %zu\n", cold.pages_queried, ndistinct);
			return 1;
		}
		/* 2. The same stream again: every page is cached, no syscall. */
		t0 = now();
		for (size_t off = 0; off < nsamples; off += drain) {
			size_t n = nsamples - off < drain ? nsamples - off : drain;
			pms_numa_oracle_resolve(o, addrs + off, n, nodes);
		}
		struct t tw = since(t0);
		struct pms_numa_stats warm;
		pms_numa_oracle_stats(o, &warm);
		if (warm.move_pages_calls != cold.move_pages_calls) {
			fprintf(stderr, "numa_oracle: the warm pass made syscalls\n");
			return 1;
		}
		pms_numa_oracle_free(o);
		/* 3. The kernel's limit over the same distinct pages. */
		struct t ts = limit_pass(ops, pg_stream, pst, ndistinct);
		struct t ta = limit_pass(ops, pg_sorted, pst, ndistinct);
		cold_cpu[r] = tc.cpu, cold_wall[r] = tc.wall;
		warm_cpu[r] = tw.cpu, warm_wall[r] = tw.wall;
		ls_cpu[r] = ts.cpu, ls_wall[r] = ts.wall;
		la_cpu[r] = ta.cpu, la_wall[r] = ta.wall;
		ratio[r] = ts.cpu / tc.cpu; /* same page count: rate ratio */
	}

	/* 4. Seed 000: get_mempolicy + move_pages for every sample (once). */
	size_t nseed = nsamples;
	long seed_calls = 0, disagree = 0;
	struct t t0 = now();
	for (size_t i = 0; i < nseed; i++) {
		void *page = (void *)(uintptr_t)(addrs[i] & ~(uint64_t)(psz - 1));
		int mode = -1, st = -1;
		ops->get_mempolicy(ops->ud, &mode, NULL, 0, (void *)(uintptr_t)addrs[i],
				   MPOL_F_NODE_ | MPOL_F_ADDR_);
		ops->move_pages(ops->ud, 0, 1, &page, NULL, &st, 0);
		seed_calls += 2;
		disagree += mode != st;
	}
	struct t tseed = since(t0);

	double M = 1e6, q = (double)cold.pages_queried, d = (double)ndistinct;
	double ns = (double)nsamples;
	printf("stream: %zu samples over a %zu MiB buffer (%zu pages of %ld B), drains of %zu, "
	       "%zu repetitions; rates per CPU second (user + sys), medians [wall-time medians]\n",
	       nsamples, mib, pages, psz, drain, reps);
	printf("kernel limit, move_pages alone over the %zu distinct pages, 512 a call: "
	       "%.2f M pages/s in stream order [%.2f], %.2f M pages/s in address order [%.2f]\n",
	       ndistinct, d / median(ls_cpu, reps) / M, d / median(ls_wall, reps) / M,
	       d / median(la_cpu, reps) / M, d / median(la_wall, reps) / M);
	printf("oracle cold: %.2f M distinct pages/s [%.2f], %.2f M addresses/s [%.2f]; "
	       "%" PRIu64 " move_pages calls for %" PRIu64 " pages (%.1f a call)\n",
	       q / median(cold_cpu, reps) / M, q / median(cold_wall, reps) / M,
	       ns / median(cold_cpu, reps) / M, ns / median(cold_wall, reps) / M,
	       cold.move_pages_calls, cold.pages_queried,
	       q / (double)(cold.move_pages_calls ? cold.move_pages_calls : 1));
	printf("oracle warm (all cached, no syscall): %.2f M addresses/s [%.2f]\n",
	       ns / median(warm_cpu, reps) / M, ns / median(warm_wall, reps) / M);
	printf("seed 000 (get_mempolicy + move_pages per sample): %.2f M addresses/s [%.2f], "
	       "%ld syscalls, %ld disagreements\n",
	       ns / tseed.cpu / M, ns / tseed.wall / M, seed_calls, disagree);
	printf("ratio to seed 000: cold %.1fx, warm %.1fx; %.0fx fewer syscalls\n",
	       tseed.cpu / median(cold_cpu, reps), tseed.cpu / median(warm_cpu, reps),
	       (double)seed_calls / (double)(cold.move_pages_calls ? cold.move_pages_calls : 1));
	double cold_pct = 100.0 * median(ratio, reps), rlo = ratio[0], rhi = ratio[0];
	for (size_t r = 1; r < reps; r++) {
		rlo = ratio[r] < rlo ? ratio[r] : rlo;
		rhi = ratio[r] > rhi ? ratio[r] : rhi;
	}
	double warm_rate = ns / median(warm_cpu, reps) / M;
	printf("goal: cold >= 80 %% of the stream-order limit: %.0f %% (median of the paired "
	       "ratios, %.0f-%.0f %%; %.0f %% of the address-order limit): %s\n",
	       cold_pct, 100.0 * rlo, 100.0 * rhi,
	       100.0 * median(la_cpu, reps) / median(cold_cpu, reps),
	       cold_pct >= 80 ? "met" : "not met");
	printf("goal: warm >= 50 M addresses/s: %.1f M/s: %s\n", warm_rate,
	       warm_rate >= 50 ? "met" : "not met");
	pms_sys_free(sys);
	free(addrs);
	free(nodes);
	free(pg_stream);
	free(pg_sorted);
	free(pst);
	munmap(buf, bytes);
	return 0;
}
