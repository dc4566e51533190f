/* `pmuscope mem` report (memprof.c): the per-process and per-thread lists. */
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

/* ---- per process and per thread ------------------------------------------ */

struct taskacc {
	struct pms_memreport_task t;
	struct dsc *ds;  /* level keys and counts */
	size_t nds;
	struct pair *nodes; /* .mem = node, .n = resolved samples on it */
	size_t nnodes;
};

static int taskacc_add(struct taskacc *a, const struct ksample *x, int cpu_node, uint64_t key)
{
	const struct ksample *s = x;
	struct pms_memreport_task *t = &a->t;
	size_t k;
	t->samples++;
	if (s->valid & PMS_MS_WEIGHT) {
		t->weighted++;
		t->latency += s->weight;
	}
	for (k = 0; k < a->nds && a->ds[k].key != key; k++)
		;
	if (k == a->nds) {
		struct dsc *nv = realloc(a->ds, (k + 1) * sizeof(*nv));
		if (!nv)
			return pms_err(PMS_ENOMEM, "memreport: no memory");
		a->ds = nv;
		nv[a->nds++] = (struct dsc){ key, 0 };
	}
	a->ds[k].n++;
	if (!(s->valid & (PMS_MS_ADDR | PMS_MS_PHYS)))
		return 0;
	t->with_addr++;
	if (x->mem_node < 0) {
		t->unresolved++;
		return 0;
	}
	t->resolved++;
	if (cpu_node >= 0) {
		if (cpu_node == x->mem_node)
			t->local++;
		else
			t->remote++;
	}
	for (k = 0; k < a->nnodes && a->nodes[k].mem != x->mem_node; k++)
		;
	if (k == a->nnodes) {
		struct pair *nv = realloc(a->nodes, (k + 1) * sizeof(*nv));
		if (!nv)
			return pms_err(PMS_ENOMEM, "memreport: no memory");
		a->nodes = nv;
		nv[a->nnodes++] = (struct pair){ -1, x->mem_node, 0 };
	}
	a->nodes[k].n++;
	return 0;
}

static int task_cmp(const void *x, const void *y)
{
	const struct pms_memreport_task *a = x, *b = y;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

void mp_task_free(struct pms_memreport_task *t)
{
	free(t->comm);
	for (size_t i = 0; i < t->nlevels; i++)
		free(t->levels[i].name);
	free(t->levels);
}

/* Rows per process (threads false) or per thread, from the kept samples;
 * samples without a pid are in no row. */
int mp_build_tasks(struct pms_memprof *p, bool threads, struct pms_memreport_task **out,
		   size_t *nout)
{
	struct u64map m = { 0 };
	struct taskacc *acc = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	bool added;
	/* the row of each sampled thread (its index in tn), found once */
	long *slot = malloc((p->ntn ? p->ntn : 1) * sizeof(*slot));
	if (!slot)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < p->ntn; i++)
		slot[i] = -1;
	for (size_t i = 0; i < p->n; i++) {
		const struct ksample *s = &p->v[i];
		if (!(s->valid & PMS_MS_TID))
			continue;
		long k = slot[s->task];
		if (k < 0) {
			uint32_t pid = kpid(p, s), tid = threads ? ktid(p, s) : 0;
			if ((rc = mp_grow((void **)&acc, &cap, n, sizeof(*acc))) < 0)
				goto out;
			k = mp_u64map_get(&m, (uint64_t)pid << 32 | tid, n, &added);
			if (k < 0) {
				rc = pms_err(PMS_ENOMEM, "memreport: no memory");
				goto out;
			}
			if (added) {
				memset(&acc[n], 0, sizeof(acc[n]));
				acc[n].t.pid = pid;
				acc[n].t.tid = tid;
				n++;
			}
			slot[s->task] = k;
		}
		if ((rc = taskacc_add(&acc[k], s, kcpu(p, s), mp_level_key_of(s->valid, p->dsv[s->ds]))) < 0)
			goto out;
	}
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct pms_memreport_task *t = &(*out)[i];
		*t = acc[i].t;
		*nout = i + 1;
		t->comm = mp_xstrdup(mp_task_comm(p, t->pid, threads ? t->tid : t->pid), &rc);
		t->home_node = -1;
		for (size_t k = 0; k < acc[i].nnodes; k++)
			if (acc[i].nodes[k].n > t->on_home_node ||
			    (acc[i].nodes[k].n == t->on_home_node && acc[i].nodes[k].mem < t->home_node)) {
				t->home_node = acc[i].nodes[k].mem;
				t->on_home_node = acc[i].nodes[k].n;
			}
		for (size_t k = 0; k < acc[i].nds && rc >= 0; k++) {
			char txt[128];
			pms_datasrc_format_mem(acc[i].ds[k].key, txt, sizeof(txt));
			rc = mp_count_addn(&t->levels, &t->nlevels, txt, acc[i].ds[k].n);
		}
		if (rc < 0)
			goto out;
		if (t->nlevels)
			qsort(t->levels, t->nlevels, sizeof(*t->levels), mp_count_cmp);
	}
	if (n)
		qsort(*out, n, sizeof(**out), task_cmp);
out:
	for (size_t i = 0; i < n; i++) {
		free(acc[i].ds);
		free(acc[i].nodes);
	}
	free(acc);
	free(slot);
	free(m.keys);
	free(m.vals);
	return rc;
}
