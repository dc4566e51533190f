/* The allocation table's lookups (include/pmuscope/alloc.h): a process's
 * address at a perf time to the allocation live then, through the clock
 * calibration between the preload's CLOCK_MONOTONIC and perf time. */
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc_int.h"
#include "util/error.h"
#include "util/grow.h"

#define SMALL_MAX (256u << 10) /* as table.c */

int pms_alloc_table_calibrate(struct pms_alloc_table *t, uint64_t mono, int64_t offset)
{
	int e = pms_grow(&t->cal, &t->ccal, t->ncal + 1, sizeof(*t->cal), 16, "alloc table");
	if (e < 0)
		return e;
	size_t i = t->ncal;
	while (i > 0 && t->cal[i - 1].mono > mono) { /* kept in time order */
		t->cal[i] = t->cal[i - 1];
		i--;
	}
	t->cal[i] = (struct calpt){ mono, offset };
	t->ncal++;
	return 0;
}

/* The offset (perf - mono) near CLOCK_MONOTONIC time mono. */
static int64_t offset_at(const struct pms_alloc_table *t, uint64_t mono)
{
	if (!t->ncal)
		return 0;
	if (mono <= t->cal[0].mono)
		return t->cal[0].offset;
	for (size_t i = 1; i < t->ncal; i++) {
		const struct calpt *a = &t->cal[i - 1], *b = &t->cal[i];
		if (mono <= b->mono) {
			double f = b->mono > a->mono
					   ? (double)(mono - a->mono) / (double)(b->mono - a->mono)
					   : 0;
			return a->offset + (int64_t)((double)(b->offset - a->offset) * f);
		}
	}
	return t->cal[t->ncal - 1].offset;
}

static uint64_t perf_to_mono(const struct pms_alloc_table *t, uint64_t perf)
{
	/* the offset moves by microseconds over seconds: two rounds settle */
	uint64_t m = perf - (uint64_t)offset_at(t, perf);
	return perf - (uint64_t)offset_at(t, m);
}

static uint64_t mono_to_perf(const struct pms_alloc_table *t, uint64_t mono)
{
	return mono == UINT64_MAX ? mono : mono + (uint64_t)offset_at(t, mono);
}

static int by_addr(const void *a, const void *b, void *ud)
{
	const struct pms_alloc_info *v = ud;
	const struct pms_alloc_info *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->t_alloc < y->t_alloc ? -1 : x->t_alloc > y->t_alloc;
}

static void proc_sort(struct pms_alloc_table *t, struct aproc *p)
{
	if (p->sorted)
		return;
	if (p->nsmall)
		qsort_r(p->small, p->nsmall, sizeof(size_t), by_addr, t->allocs);
	if (p->nlarge)
		qsort_r(p->large, p->nlarge, sizeof(size_t), by_addr, t->allocs);
	p->sorted = true;
}

static bool covers(const struct pms_alloc_info *a, uint64_t addr, uint64_t tm)
{
	uint64_t len = a->bytes ? a->bytes : 1;
	return addr >= a->addr && addr - a->addr < len && a->t_alloc <= tm && tm < a->t_free;
}

static long find_own(struct pms_alloc_table *t, struct aproc *p, uint64_t addr, uint64_t tm)
{
	proc_sort(t, p);
	long best = -1;
	/* the first small block starting above addr */
	size_t lo = 0, hi = p->nsmall;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->allocs[p->small[mid]].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct pms_alloc_info *a = &t->allocs[p->small[i]];
		if (addr - a->addr >= SMALL_MAX)
			break;
		if (covers(a, addr, tm) && (best < 0 || a->t_alloc > t->allocs[best].t_alloc))
			best = (long)p->small[i];
	}
	for (size_t i = 0; i < p->nlarge; i++) {
		const struct pms_alloc_info *a = &t->allocs[p->large[i]];
		if (covers(a, addr, tm) && (best < 0 || a->t_alloc > t->allocs[best].t_alloc))
			best = (long)p->large[i];
	}
	return best;
}

static struct aproc *proc_find(struct pms_alloc_table *t, uint32_t space, uint32_t pid)
{
	for (size_t i = t->nprocs; i-- > 0;)
		if (t->procs[i].pid == pid && t->procs[i].space == space)
			return &t->procs[i];
	return NULL;
}

static long find_mono(struct pms_alloc_table *t, uint32_t space, uint32_t pid, uint64_t addr,
		      uint64_t tm, int depth)
{
	struct aproc *p = proc_find(t, space, pid);
	if (!p || depth > 64)
		return -1;
	long i = find_own(t, p, addr, tm);
	if (i >= 0 || !p->parent || tm < p->fork_time || (p->exec_time && tm >= p->exec_time))
		return i;
	/* a block inherited at the fork, unless the child freed it since */
	i = find_mono(t, space, p->parent, addr, p->fork_time, depth + 1);
	uint64_t tf;
	if (i >= 0 && pms_alloc_hmap_get(&p->inh_free, t->allocs[i].addr, &tf) && tf <= tm)
		return -1;
	return i;
}

long pms_alloc_table_lookup(struct pms_alloc_table *t, uint32_t pid, uint64_t addr, uint64_t time,
			    struct pms_alloc_info *info)
{
	return pms_alloc_table_lookup_in(t, t->space, pid, addr, time, info);
}

long pms_alloc_table_lookup_in(struct pms_alloc_table *t, uint32_t space, uint32_t pid,
			       uint64_t addr, uint64_t time, struct pms_alloc_info *info)
{
	long i = find_mono(t, space, pid, addr, perf_to_mono(t, time), 0);
	if (i >= 0 && info) {
		*info = t->allocs[i];
		info->t_alloc = mono_to_perf(t, info->t_alloc);
		info->t_free = mono_to_perf(t, info->t_free);
	}
	return i;
}
