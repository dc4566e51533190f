/* `pmuscope mem` aggregation (memprof.c): the kept samples' memory nodes,
 * asked of the NUMA oracle in batches per process. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pmuscope/datasrc.h"
#include "pmuscope/report.h"
#include "report/memprof_int.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/opts.h"

static int scratch(struct pms_memprof *p, size_t n)
{
	if (n <= p->scratch_cap)
		return 0;
	size_t cap = p->scratch_cap ? p->scratch_cap : 1024;
	while (cap < n)
		cap *= 2;
	uint64_t *a = realloc(p->addrs, cap * sizeof(*a));
	if (!a)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	p->addrs = a;
	int *nd = realloc(p->nodes, cap * sizeof(*nd));
	if (!nd)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	p->nodes = nd;
	p->scratch_cap = cap;
	return 0;
}



int mp_skey_cmp(const void *a, const void *b)
{
	const struct skey *x = a, *y = b;
	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Sort by (major, minor), ties in their order (the order mp_skey_cmp gives
 * when i rises with the position, as the callers fill them): a stable
 * radix sort, minor's digits first, over the bits that differ between the
 * keys only (found in one pass first), SKEY_BITS of them a pass: counters
 * that stay in the first-level cache, where 16-bit digits scattered into
 * 65,536 places (a third of building the report of 262 K instructions
 * was their sort).  A comparison sort of every sample's key was most of a
 * report's and a resolve's instructions.  Few keys, or no memory for the
 * radix's buffers: qsort. */
#define SKEY_BITS 11
void mp_skey_sort(struct skey *v, size_t n)
{
	struct skey *tmp = n >= 8192 ? malloc(n * sizeof(*tmp)) : NULL;
	size_t *cnt = tmp ? malloc(((size_t)1 << SKEY_BITS) * sizeof(*cnt)) : NULL;
	struct skey *src = v, *dst = tmp;

	if (!tmp || !cnt) {
		free(tmp);
		free(cnt);
		if (n > 1)
			qsort(v, n, sizeof(*v), mp_skey_cmp);
		return;
	}
	uint64_t dmin = 0, dmaj = 0; /* the bits that differ from the first key's */
	for (size_t i = 1; i < n; i++) {
		dmin |= v[i].minor ^ v[0].minor;
		dmaj |= v[i].major ^ v[0].major;
	}
	for (unsigned w = 0; w < 2; w++) {
		uint64_t d = w ? dmaj : dmin;
		if (!d)
			continue;
		unsigned lo = (unsigned)__builtin_ctzll(d), hi = 64u - (unsigned)__builtin_clzll(d);
		for (unsigned sh = lo; sh < hi; sh += SKEY_BITS) {
			uint64_t m = ((uint64_t)1 << SKEY_BITS) - 1;
#define SKEY_DIGIT(k) ((size_t)(((w ? (k).major : (k).minor) >> sh) & m))
			memset(cnt, 0, ((size_t)1 << SKEY_BITS) * sizeof(*cnt));
			for (size_t i = 0; i < n; i++)
				cnt[SKEY_DIGIT(src[i])]++;
			for (size_t x = 0, sum = 0; x < ((size_t)1 << SKEY_BITS); x++) {
				size_t c = cnt[x];
				cnt[x] = sum;
				sum += c;
			}
			for (size_t i = 0; i < n; i++)
				dst[cnt[SKEY_DIGIT(src[i])]++] = src[i];
#undef SKEY_DIGIT
			struct skey *t = src;
			src = dst;
			dst = t;
		}
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	free(cnt);
}

/* The most addresses one oracle call gets: its scratch (and ours) grows
 * to the largest call and stays; a backlog of a whole run's pages was
 * megabytes resident through the report (issue 21). */
#define RESOLVE_CHUNK 16384

/* Ask about the mp_askable samples (of process only, 0 = all) in one batch
 * per process (of at most RESOLVE_CHUNK addresses), through thread as_tid
 * when given. */
static int resolve_some(struct pms_memprof *p, struct pms_numa_oracle *oracle, pid_t only,
			pid_t as_tid, unsigned max)
{
	if (!p)
		return pms_err(PMS_EINVAL, "memprof resolve: NULL argument");
	if (p->agg || !oracle)
		return 0; /* aggregate: resolved as they were added */
	size_t k = 0, nopen = 0;
	int rc = 0, calls = 0;
	struct skey *keys = NULL;
	for (size_t j = 0; j < p->nopen; j++) {
		const struct ksample *x = &p->v[p->open[j]];
		/* nodes come from the source's hints (given when the sample
		 * was added) or from the oracle, nowhere else */
		if (!mp_askable(p, x, PMS_MEMPROF_RESOLVE_TRIES + 1))
			continue; /* final: no longer open */
		p->open[nopen++] = p->open[j];
		if ((!only || mp_ask_pid(p, x) == only) && mp_askable(p, x, max))
			k++;
	}
	p->nopen = nopen;
	if (!k)
		return 0;
	if ((rc = scratch(p, k < RESOLVE_CHUNK ? k : RESOLVE_CHUNK)) < 0)
		return rc;
	keys = malloc(k * sizeof(*keys));
	if (!keys)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	k = 0;
	for (size_t j = 0; j < p->nopen; j++) {
		size_t i = p->open[j];
		const struct ksample *x = &p->v[i];
		if ((!only || mp_ask_pid(p, x) == only) && mp_askable(p, x, max))
			keys[k++] = (struct skey){ (uint32_t)mp_ask_pid(p, x), x->addr, i };
	}
	/* by process (pids are > 0 here), then address: the oracle's calls
	 * go fastest in address order */
	mp_skey_sort(keys, k);
	for (size_t a = 0; a < k;) {
		size_t b = a, m = 0;
		for (; b < k && keys[b].major == keys[a].major && m < RESOLVE_CHUNK; b++)
			p->addrs[m++] = keys[b].minor;
		int r = pms_numa_oracle_resolve_pid(oracle,
						    as_tid > 0 ? as_tid : (pid_t)keys[a].major,
						    p->addrs, m, p->nodes);
		if (r == PMS_ENOMEM) {
			rc = r;
			goto out;
		}
		if (r > 0)
			calls += r;
		for (size_t j = 0; j < m; j++) {
			struct ksample *x = &p->v[keys[a + j].i];
			int nd = p->nodes[j];
			if (x->tries < PMS_MEMPROF_RESOLVE_TRIES + 1)
				x->tries++;
			if ((nd == PMS_NODE_TASK_GONE || nd == PMS_NODE_BAD_ADDR) &&
			    (x->mem_node == PMS_NODE_NO_PHYS || x->mem_node == PMS_NODE_NO_BLOCK)) {
				/* gone by the retry: the page was not there
				 * while it lived, which says more; no more asks */
				x->tries = PMS_MEMPROF_RESOLVE_TRIES + 1;
				continue;
			}
			x->mem_node = nd;
			if (as_tid > 0 && x->mem_node >= 0)
				p->resolved_held++;
		}
		a = b;
	}
	rc = calls;
out:
	free(keys);
	return rc;
}

int pms_memprof_resolve(struct pms_memprof *p, struct pms_numa_oracle *oracle)
{
	return resolve_some(p, oracle, 0, 0, PMS_MEMPROF_RESOLVE_TRIES);
}

int pms_memprof_give_up_task(struct pms_memprof *p, pid_t pid, int why)
{
	if (!p || pid <= 0)
		return pms_err(PMS_EINVAL, "memprof give_up_task: NULL argument or no pid");
	if (p->agg)
		return 0; /* aggregate: resolved as they were added */
	int n = 0;
	size_t nopen = 0;
	for (size_t j = 0; j < p->nopen; j++) {
		struct ksample *x = &p->v[p->open[j]];
		if (mp_askable(p, x, PMS_MEMPROF_RESOLVE_TRIES + 1) && mp_ask_pid(p, x) == pid) {
			x->mem_node = why;
			n++;
			continue; /* final: no longer open */
		}
		p->open[nopen++] = p->open[j];
	}
	p->nopen = nopen;
	return n;
}

int pms_memprof_resolve_task(struct pms_memprof *p, struct pms_numa_oracle *oracle, pid_t pid,
			     pid_t tid)
{
	if (!p || pid <= 0)
		return pms_err(PMS_EINVAL, "memprof resolve_task: NULL argument or no pid");
	int rc = resolve_some(p, oracle, pid, tid, PMS_MEMPROF_RESOLVE_TRIES + 1);
	/* held at exit: all of its memory is still there, for the last time */
	if (rc >= 0 && oracle && !p->agg && tid > 0 && mp_residency_read(p, oracle, pid, tid) == PMS_ENOMEM)
		rc = PMS_ENOMEM;
	return rc;
}
