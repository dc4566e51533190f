/* `pmuscope mem` residency per data object (memprof_objects.c): the pages
 * of the sampled mappings, each's node, read while a process is held at
 * its exit; an object's pages per node counted from them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/numa.h"
#include "pmuscope/report.h"
#include "report/memprof_int.h"
#include "util/error.h"

/* Residency: all pages of the mappings a process's samples fell in, each's
 * node, read while the process is held at exit (its memory is there for
 * the last time); an object's pages per node are counted from them. */

#define MP_RES_MAX_PAGES (1u << 20) /* 4 GiB of 4 KiB pages: 2 MiB of nodes */
#define MP_RES_CHUNK 16384          /* pages per oracle call */

/* Read one mapping's pages [start, end) of pid through tid. */
static int res_read_map(struct pms_memprof *p, struct pms_numa_oracle *oracle, pid_t pid,
			pid_t tid, uint64_t start, uint64_t end, uint64_t *addrs, int *nodes)
{
	size_t np = (size_t)((end - start) / 4096);
	if (p->res_pages + np > MP_RES_MAX_PAGES) {
		p->res_capped = true;
		return 0;
	}
	struct resmap *v = realloc(p->res, (p->nres + 1) * sizeof(*v));
	if (!v)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	p->res = v;
	int16_t *nd = malloc(np * sizeof(*nd));
	if (!nd)
		return pms_err(PMS_ENOMEM, "memprof: no memory");
	for (size_t k = 0; k < np; k += MP_RES_CHUNK) {
		size_t m = np - k < MP_RES_CHUNK ? np - k : MP_RES_CHUNK;
		for (size_t j = 0; j < m; j++)
			addrs[j] = start + (uint64_t)(k + j) * 4096;
		int r = pms_numa_oracle_resolve_pid(oracle, tid, addrs, m, nodes);
		if (r == PMS_ENOMEM) {
			free(nd);
			return r;
		}
		/* a failed call's pages: no answer (INT16_MIN; PMS_NODE_UNKNOWN
		 * does not fit 16 bits: it wrapped to a positive "node") */
		for (size_t j = 0; j < m; j++)
			nd[k + j] = (int16_t)(r < 0 || nodes[j] < INT16_MIN ? INT16_MIN : nodes[j]);
	}
	p->res[p->nres++] = (struct resmap){ (uint32_t)pid, start, end, nd };
	p->res_pages += np;
	return 0;
}

int mp_residency_read(struct pms_memprof *p, struct pms_numa_oracle *oracle, pid_t pid, pid_t tid)
{
	if (!p->v || !p->n)
		return 0;
	const struct pms_maps *ms = p->per_pid_maps ? pms_memprof_maps_pid(p, pid) : p->maps;
	bool *want = ms && ms->n ? calloc(ms->n, sizeof(*want)) : NULL;
	uint64_t *addrs = malloc(MP_RES_CHUNK * sizeof(*addrs));
	int *nodes = malloc(MP_RES_CHUNK * sizeof(*nodes)), rc = 0;
	if (!want || !addrs || !nodes) {
		rc = ms && ms->n ? pms_err(PMS_ENOMEM, "memprof: no memory") : 0;
		goto out;
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct ksample *s = &p->v[i];
		if (!(s->valid & PMS_MS_ADDR) || !(s->valid & PMS_MS_TID) || kpid(p, s) != (uint32_t)pid)
			continue;
		const struct pms_map *m = pms_maps_find(ms, s->addr);
		if (m)
			want[m - ms->v] = true;
	}
	for (size_t k = 0; k < ms->n && rc >= 0; k++) {
		uint64_t a = ms->v[k].start & ~4095ULL, b = (ms->v[k].end + 4095) & ~4095ULL;
		bool seen = false; /* a pid's mapping read once (several held threads) */
		for (size_t j = 0; j < p->nres && !seen; j++)
			seen = p->res[j].pid == (uint32_t)pid && p->res[j].start == a && p->res[j].end == b;
		if (want[k] && !seen)
			rc = res_read_map(p, oracle, pid, tid, a, b, addrs, nodes);
	}
out:
	free(want);
	free(addrs);
	free(nodes);
	return rc;
}

/* Add k to node's entry of o (pages or samples). */
int mp_objnode_add(struct pms_memreport_site *o, int node, uint64_t pages, uint64_t samples)
{
	size_t i = 0;
	while (i < o->nnodes && o->nodes[i].node < node)
		i++;
	if (i == o->nnodes || o->nodes[i].node != node) {
		struct pms_memreport_objnode *v = realloc(o->nodes, (o->nnodes + 1) * sizeof(*v));
		if (!v)
			return pms_err(PMS_ENOMEM, "memreport: no memory");
		o->nodes = v;
		memmove(&v[i + 1], &v[i], (o->nnodes - i) * sizeof(*v));
		v[i] = (struct pms_memreport_objnode){ node, 0, 0 };
		o->nnodes++;
	}
	o->nodes[i].pages += pages;
	o->nodes[i].samples += samples;
	return 0;
}

/* o's pages per node from the residency read (the pages its range
 * touches, in every process's read mappings holding it). */
int mp_object_residency(const struct pms_memprof *p, struct pms_memreport_site *o)
{
	if (!o->size || o->size == UINT64_MAX)
		return 0;
	uint64_t lo = o->addr & ~4095ULL, hi = (o->addr + o->size + 4095) & ~4095ULL;
	for (size_t j = 0; j < p->nres; j++) {
		const struct resmap *m = &p->res[j];
		if (m->end <= lo || m->start >= hi)
			continue;
		uint64_t a = lo > m->start ? lo : m->start, b = hi < m->end ? hi : m->end;
		o->resident_read = true;
		for (uint64_t x = a; x < b; x += 4096) {
			int nd = m->node[(x - m->start) / 4096];
			int rc = nd >= 0 ? mp_objnode_add(o, nd, 1, 0) : 0;
			if (rc < 0)
				return rc;
			o->pages_absent += nd < 0;
			o->pages_not_present += nd == -ENOENT;
			o->pages_efault += nd == -EFAULT;
			o->pages_unknown += nd < 0 && nd != -ENOENT && nd != -EFAULT;
		}
	}
	return 0;
}
