/* Address -> node oracle benchmark: the batched, cached oracle
 * (pms_numa_oracle) against seed 000's method, get_mempolicy + move_pages for
 * every sample (two syscalls per sample), on the same sample stream.
 * Prints rates and ratios; no pass/fail.
 *
 * usage: numa_oracle [BUFFER_MIB [SAMPLES [DRAIN]]]   (default 64 1000000 4096)
 *
 * The stream is what a pointer chase over the buffer samples: uniformly
 * random words, so most pages repeat across drains only by chance. */
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

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 64;
	size_t nsamples = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000000;
	size_t drain = argc > 3 ? strtoul(argv[3], NULL, 0) : 4096;
	size_t bytes = mib << 20;
	long psz = sysconf(_SC_PAGESIZE);
	if (!mib || !nsamples || !drain) {
		fprintf(stderr, "usage: numa_oracle [BUFFER_MIB [SAMPLES [DRAIN]]]\n");
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
	if (!addrs || !nodes)
		return 1;
	uint64_t seed = 42;
	for (size_t i = 0; i < nsamples; i++)
		addrs[i] = (uint64_t)(uintptr_t)buf + (rnd(&seed) % (bytes / 8)) * 8;

	struct pms_sys *sys = NULL;
	if (pms_sys_new(&sys, NULL) < 0) {
		fprintf(stderr, "numa_oracle: %s\n", pms_error_last());
		return 1;
	}
	const struct pms_sys_ops *ops = pms_sys_ops(sys);

	/* 1. Batched oracle, cold cache, drain by drain. */
	struct pms_numa_opts no = PMS_NUMA_OPTS_INIT;
	no.page_size = (size_t)psz;
	struct pms_numa_oracle *o = NULL;
	if (pms_numa_oracle_new(sys, NULL, &no, &o) < 0) {
		fprintf(stderr, "numa_oracle: %s\n", pms_error_last());
		return 1;
	}
	double t0 = now();
	for (size_t off = 0; off < nsamples; off += drain) {
		size_t n = nsamples - off < drain ? nsamples - off : drain;
		if (pms_numa_oracle_resolve(o, addrs + off, n, nodes) < 0) {
			fprintf(stderr, "numa_oracle: %s\n", pms_error_last());
			return 1;
		}
	}
	double t_cold = now() - t0;
	struct pms_numa_stats cold;
	pms_numa_oracle_stats(o, &cold);

	/* 2. The same stream again: every page is cached, no syscall. */
	t0 = now();
	for (size_t off = 0; off < nsamples; off += drain) {
		size_t n = nsamples - off < drain ? nsamples - off : drain;
		pms_numa_oracle_resolve(o, addrs + off, n, nodes);
	}
	double t_warm = now() - t0;
	struct pms_numa_stats warm;
	pms_numa_oracle_stats(o, &warm);

	/* 3. Seed 000: get_mempolicy + move_pages for every sample. */
	size_t nseed = nsamples;
	long seed_calls = 0, disagree = 0;
	t0 = now();
	for (size_t i = 0; i < nseed; i++) {
		void *page = (void *)(uintptr_t)(addrs[i] & ~(uint64_t)(psz - 1));
		int mode = -1, st = -1;
		ops->get_mempolicy(ops->ud, &mode, NULL, 0, (void *)(uintptr_t)addrs[i],
				   MPOL_F_NODE_ | MPOL_F_ADDR_);
		ops->move_pages(ops->ud, 0, 1, &page, NULL, &st, 0);
		seed_calls += 2;
		disagree += mode != st;
	}
	double t_seed = now() - t0;

	/* 4. The kernel's own limit for the same distinct pages: move_pages
	 * alone, 512 pages a call, in the stream's (first-seen) order and in
	 * address order.  The oracle's cold rate in distinct pages/s is
	 * compared with these (issue: at least 80 % of the batched limit). */
	size_t ndistinct = 0;
	{
		unsigned char *seen = calloc(bytes / (size_t)psz, 1);
		if (!seen)
			return 1;
		for (size_t i = 0; i < nsamples; i++) {
			size_t pg = (size_t)((addrs[i] - (uint64_t)(uintptr_t)buf) / (uint64_t)psz);
			if (!seen[pg]) {
				seen[pg] = 1;
				addrs[ndistinct++] = (uint64_t)(uintptr_t)buf + (uint64_t)pg * (uint64_t)psz;
			}
		}
		free(seen);
	}
	void **pg = malloc(ndistinct * sizeof(*pg));
	int *pst = malloc(ndistinct * sizeof(*pst));
	if (!pg || !pst)
		return 1;
	double t_lim[2];
	for (int sorted = 0; sorted < 2; sorted++) {
		for (size_t i = 0; i < ndistinct; i++)
			pg[i] = sorted ? buf + i * (size_t)psz : (void *)(uintptr_t)addrs[i];
		t0 = now();
		for (size_t off = 0; off < ndistinct; off += 512) {
			size_t n = ndistinct - off < 512 ? ndistinct - off : 512;
			ops->move_pages(ops->ud, 0, n, pg + off, NULL, pst + off, 0);
		}
		t_lim[sorted] = now() - t0;
	}
	free(pg);
	free(pst);

	size_t pages = bytes / (size_t)psz;
	double cold_pps = (double)cold.pages_queried / t_cold;
	printf("kernel limit, move_pages alone over the %zu distinct pages, 512 a call: "
	       "%.2f M pages/s in stream order, %.2f M pages/s in address order\n",
	       ndistinct, (double)ndistinct / t_lim[0] / 1e6, (double)ndistinct / t_lim[1] / 1e6);
	printf("oracle cold: %.2f M distinct pages/s = %.0f %% of the stream-order limit, %.0f %% of "
	       "the address-order limit\n",
	       cold_pps / 1e6, 100.0 * cold_pps / ((double)ndistinct / t_lim[0]),
	       100.0 * cold_pps / ((double)ndistinct / t_lim[1]));
	printf("stream: %zu samples over a %zu MiB buffer (%zu pages of %ld B), drains of %zu\n",
	       nsamples, mib, pages, psz, drain);
	printf("batched oracle, cold: %.2f M addresses/s; %" PRIu64 " move_pages calls for %" PRIu64
	       " unique-per-drain pages (%.1f pages per call), %.4f syscalls per sample\n",
	       (double)nsamples / t_cold / 1e6, cold.move_pages_calls, cold.pages_queried,
	       (double)cold.pages_queried / (double)(cold.move_pages_calls ? cold.move_pages_calls : 1),
	       (double)cold.move_pages_calls / (double)nsamples);
	printf("  distinct pages cached: %" PRIu64 "; syscalls per distinct page: %.4f\n", cold.cached,
	       (double)cold.move_pages_calls / (double)(cold.cached ? cold.cached : 1));
	printf("batched oracle, warm (all cached): %.2f M addresses/s, %" PRIu64 " syscalls\n",
	       (double)nsamples / t_warm / 1e6, warm.move_pages_calls - cold.move_pages_calls);
	printf("seed 000 (get_mempolicy + move_pages per sample): %.2f M addresses/s, %ld syscalls "
	       "(2 per sample), %ld disagreements\n",
	       (double)nseed / t_seed / 1e6, seed_calls, disagree);
	printf("ratio: cold %.1fx faster, warm %.1fx faster; %.0fx fewer syscalls\n",
	       ((double)nsamples / t_cold) / ((double)nseed / t_seed),
	       ((double)nsamples / t_warm) / ((double)nseed / t_seed),
	       (double)seed_calls / (double)(cold.move_pages_calls ? cold.move_pages_calls : 1));
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
	free(addrs);
	free(nodes);
	munmap(buf, bytes);
	return 0;
}
