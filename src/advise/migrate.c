/* Page migration through the seam's move_pages: query, move what is not on
 * its target, query again; every page's outcome counted by errno.
 * The kernel's rules (mm/migrate.c, torvalds/linux, v6.x):
 *  - kernel_move_pages: flags other than MPOL_MF_MOVE|MOVE_ALL -> -EINVAL;
 *    find_mm_struct: no such task -> -ESRCH, ptrace_may_access(READ_REALCREDS)
 *    refused (another user's process without CAP_SYS_PTRACE) -> -EPERM, no mm
 *    -> -EINVAL;
 *  - do_pages_move: a node < 0, >= MAX_NUMNODES or without memory (N_MEMORY)
 *    -> the call fails with -ENODEV; a node outside the task's cpuset mems ->
 *    -EACCES for the call;
 *  - add_page_for_migration, per page status: no VMA or a special (zero)
 *    page -> -EFAULT, not faulted in -> -ENOENT, already on the node -> the
 *    node, mapped by several processes without MPOL_MF_MOVE_ALL -> -EACCES,
 *    not isolatable from the LRU (pinned, under writeback) -> -EBUSY;
 *  - move_pages_and_store_status: migrate_pages failing for some pages
 *    returns their count (positive) and the statuses of that batch are not
 *    written; a failed target allocation (node full, __GFP_THISNODE) ends
 *    the call with -ENOMEM, also without those statuses.
 * Pages whose status the kernel did not write keep our sentinel and are
 * counted under the call's errno (EAGAIN for a positive return). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmuscope/advise.h"
#include "util/error.h"
#include "util/opts.h"

#define MPOL_MF_MOVE_ (1 << 1) /* include/uapi/linux/mempolicy.h */
#define NOT_WRITTEN INT_MIN

static void pause_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void count_err(struct pms_migrate_result *r, int err, uint64_t n)
{
	if (err < 0)
		err = -err;
	for (size_t i = 0; i < r->nerrs; i++)
		if (r->errs[i].err == err) {
			r->errs[i].pages += n;
			return;
		}
	if (r->nerrs < PMS_MIGRATE_MAX_ERRNOS) {
		r->errs[r->nerrs].err = err;
		r->errs[r->nerrs++].pages = n;
	} else {
		r->errs[PMS_MIGRATE_MAX_ERRNOS - 1].pages += n; /* the last slot takes the rest */
	}
}

static int fatal_errno(long e)
{
	/* errors that hold for every page of the process, not for this batch */
	return e == -ESRCH || e == -EPERM || e == -ENODEV || e == -EACCES || e == -EINVAL ||
	       e == -ENOSYS;
}

PMS_OPTS_LAYOUT(PMS_MIGRATE_OPTS, struct pms_migrate_opts,
		PMS_OPTS_END(struct pms_migrate_opts, headroom));

/* The pages of one range, walked in batches (pms_migrate_range). */
struct mrange {
	const struct pms_sys_ops *ops;
	pid_t pid;
	uint64_t first, npages;
	size_t ps, batch;
	const int *nodes;
	size_t nnodes;
	void **pages;
};

/* Batch p0's page addresses into m->pages; how many. */
static size_t batch_pages(const struct mrange *m, uint64_t p0)
{
	size_t n = (size_t)(m->npages - p0 < m->batch ? m->npages - p0 : m->batch);
	for (size_t i = 0; i < n; i++)
		m->pages[i] = (void *)(uintptr_t)(m->first + (p0 + i) * m->ps);
	return n;
}

/* Capacity: what is not on its target already must fit there (the query
 * pass before anything moves).  0, or the error (nothing moved). */
static int capacity_check(const struct mrange *m, const struct pms_migrate_opts *opts,
			  struct pms_migrate_result *res, int *before)
{
	uint64_t *need = calloc(m->nnodes, sizeof(*need));
	int rc = 0;
	if (!need)
		return pms_err(PMS_ENOMEM, "pms_migrate_range: out of memory");
	for (uint64_t p0 = 0; p0 < m->npages; p0 += m->batch) {
		size_t n = batch_pages(m, p0);
		res->calls++;
		long q = m->ops->move_pages(m->ops->ud, (int)m->pid, n, m->pages, NULL, before, 0);
		if (q < 0)
			break; /* the moving pass says why */
		for (size_t i = 0; i < n; i++) {
			size_t k = (size_t)((p0 + i) % m->nnodes);
			if (before[i] >= 0 && before[i] != m->nodes[k])
				need[k] += m->ps;
		}
	}
	for (size_t k = 0; k < m->nnodes && !rc; k++) {
		const struct pms_topo_node *tn = pms_topo_node(opts->topo, m->nodes[k]);
		if (!tn) {
			rc = pms_err(PMS_ENOENT, "migrate: node %d does not exist", m->nodes[k]);
			break;
		}
		if (!tn->has_memory) {
			rc = pms_err(PMS_ENOTSUP, "migrate: node %d has no memory", m->nodes[k]);
			break;
		}
		uint64_t room = tn->mem_free > opts->headroom ? tn->mem_free - opts->headroom : 0;
		if (tn->mem_total && need[k] > room)
			rc = pms_err(PMS_ERANGE,
				     "migrate: node %d has %llu bytes free (less %llu headroom), the "
				     "range needs %llu there: nothing moved; choose another node or "
				     "a smaller range",
				     m->nodes[k], (unsigned long long)room,
				     (unsigned long long)opts->headroom, (unsigned long long)need[k]);
	}
	free(need);
	return rc;
}

/* The final word: a query of the whole range, pages found on their target. */
static void final_query(const struct mrange *m, struct pms_migrate_result *res, int *st)
{
	for (uint64_t p0 = 0; p0 < m->npages; p0 += m->batch) {
		size_t n = batch_pages(m, p0);
		res->calls++;
		if (m->ops->move_pages(m->ops->ud, (int)m->pid, n, m->pages, NULL, st, 0) < 0)
			break;
		for (size_t i = 0; i < n; i++)
			if (st[i] == m->nodes[(p0 + i) % m->nnodes])
				res->after_on_target++;
	}
}

int pms_migrate_range(struct pms_sys *sys, pid_t pid, uint64_t start, uint64_t end,
		      const int *nodes, size_t nnodes, const struct pms_migrate_opts *opts,
		      struct pms_migrate_result *res)
{
	struct pms_migrate_opts o;
	void **pages = NULL;
	int *tnodes = NULL, *before = NULL, *st = NULL;
	int rc;
	if (!res)
		return pms_err(PMS_EINVAL, "pms_migrate_range: res is NULL");
	memset(res, 0, sizeof(*res));
	if (!sys || !nodes || !nnodes)
		return pms_err(PMS_EINVAL, "pms_migrate_range: no context or no target node");
	if ((rc = PMS_OPTS_TAKE("pms_migrate_range", PMS_MIGRATE_OPTS, opts, &o)) < 0)
		return rc;
	opts = &o;
	size_t ps = opts->page_size ? opts->page_size : 4096;
	size_t batch = opts->batch ? opts->batch : 512;
	if (ps & (ps - 1))
		return pms_err(PMS_EINVAL, "pms_migrate_range: page size %zu is not a power of two", ps);
	if (end <= start)
		return pms_err(PMS_EINVAL, "pms_migrate_range: empty range 0x%llx-0x%llx",
			       (unsigned long long)start, (unsigned long long)end);
	for (size_t i = 0; i < nnodes; i++)
		if (nodes[i] < 0)
			return pms_err(PMS_EINVAL, "pms_migrate_range: node %d", nodes[i]);
	uint64_t first = start & ~(uint64_t)(ps - 1);
	uint64_t npages = (end - first + ps - 1) / ps;
	res->pages = npages;
	const struct pms_sys_ops *ops = pms_sys_ops(sys);

	pages = malloc(batch * sizeof(*pages));
	tnodes = malloc(batch * sizeof(*tnodes));
	before = malloc(batch * sizeof(*before));
	st = malloc(batch * sizeof(*st));
	if (!pages || !tnodes || !before || !st) {
		rc = pms_err(PMS_ENOMEM, "pms_migrate_range: out of memory");
		goto out;
	}

	const struct mrange mr = { ops, pid, first, npages, ps, batch, nodes, nnodes, pages };
	if (opts->topo && (rc = capacity_check(&mr, opts, res, before)) < 0)
		goto out;

	for (uint64_t p0 = 0; p0 < npages; p0 += batch) {
		size_t n = batch_pages(&mr, p0);
		res->calls++;
		long q = ops->move_pages(ops->ud, (int)pid, n, pages, NULL, before, 0);
		if (q < 0) {
			if (!res->call_errno)
				res->call_errno = (int)-q;
			if (fatal_errno(q)) {
				count_err(res, (int)q, npages - p0);
				res->failed += npages - p0;
				rc = pms_err_errno(0, (int)-q, "move_pages(pid %d) query", (int)pid);
				goto out;
			}
			count_err(res, (int)q, n);
			res->failed += n;
			continue;
		}
		/* what to move: present pages not on their target */
		size_t m = 0;
		for (size_t i = 0; i < n; i++) {
			int want = nodes[(p0 + i) % nnodes];
			if (before[i] == want) {
				res->already++;
			} else if (before[i] == -ENOENT || before[i] == -EFAULT) {
				res->not_present++;
			} else if (before[i] < 0) {
				res->failed++;
				count_err(res, before[i], 1);
			} else {
				pages[m] = pages[i];
				tnodes[m] = want;
				before[m] = before[i];
				st[m] = NOT_WRITTEN;
				m++;
			}
		}
		if (!m)
			continue;
		for (int pass = 0; m; pass++) {
			if (pass)
				pause_ms(20 * pass);
			for (size_t i = 0; i < m; i++)
				st[i] = NOT_WRITTEN;
			res->calls++;
			q = ops->move_pages(ops->ud, (int)pid, m, pages, tnodes, st, MPOL_MF_MOVE_);
			if (q < 0 && !res->call_errno)
				res->call_errno = (int)-q;
			/* the kernel's answer per page, then what a query finds */
			int callerr = q < 0 ? (int)-q : q > 0 ? EAGAIN : 0;
			res->calls++;
			int *after = before; /* reuse: the before values are no longer needed */
			long q2 = ops->move_pages(ops->ud, (int)pid, m, pages, NULL, after, 0);
			size_t again = 0;
			for (size_t i = 0; i < m; i++) {
				/* the query's word, unless it cannot see the page now
				 * (not present: reclaimed or unmapped since): then the
				 * move's */
				bool there = q2 >= 0 && after[i] >= 0 ? after[i] == tnodes[i]
								       : st[i] == tnodes[i];
				int err = st[i] != NOT_WRITTEN && st[i] < 0 ? -st[i]
					  : st[i] == NOT_WRITTEN && callerr ? callerr
					  : EAGAIN; /* said done, found elsewhere */
				if (there) {
					res->moved++;
					res->retried += pass > 0;
				} else if ((err == EAGAIN || err == EBUSY) && pass < PMS_MIGRATE_RETRIES &&
					   !(q < 0 && fatal_errno(q))) {
					/* busy now (referenced, locked, under writeback;
					 * or not tried after another page failed): again,
					 * a little later, in order */
					pages[again] = pages[i];
					tnodes[again] = tnodes[i];
					again++;
				} else {
					res->failed++;
					count_err(res, err, 1);
				}
			}
			m = again;
		}
		if (q < 0 && fatal_errno(q)) {
			uint64_t rest = npages - p0 - n;
			count_err(res, (int)q, rest);
			res->failed += rest;
			rc = pms_err_errno(0, (int)-q, "move_pages(pid %d) to node %d", (int)pid,
					   tnodes[0]);
			goto out;
		}
	}
	final_query(&mr, res, st);
	rc = 0;
out:
	free(pages);
	free(tnodes);
	free(before);
	free(st);
	return rc;
}

int pms_advice_apply(struct pms_sys *sys, pid_t pid, const struct pms_advice *plan,
		     const struct pms_migrate_opts *opts, struct pms_advice_applied **out,
		     size_t *n)
{
	if (!plan || !out || !n)
		return pms_err(PMS_EINVAL, "pms_advice_apply: NULL argument");
	*out = NULL;
	*n = 0;
	struct pms_advice_applied *rows = calloc(plan->nitems ? plan->nitems : 1, sizeof(*rows));
	if (!rows)
		return pms_err(PMS_ENOMEM, "out of memory for %zu advice items", plan->nitems);
	size_t k = 0;
	for (size_t i = 0; i < plan->nitems; i++) {
		const struct pms_advice_item *it = &plan->items[i];
		const int *nodes = NULL;
		size_t nn = 0;
		if (it->action == PMS_ADVICE_MOVE) {
			nodes = &it->target;
			nn = 1;
		} else if (it->action == PMS_ADVICE_INTERLEAVE) {
			nodes = it->nodes;
			nn = it->nnodes;
		}
		if (!nn || pid <= 0)
			continue;
		struct pms_advice_applied *row = &rows[k++];
		row->item = i;
		row->rc = pms_migrate_range(sys, pid, it->start, it->end, nodes, nn, opts, &row->res);
		if (row->rc < 0)
			snprintf(row->err, sizeof(row->err), "%s", pms_error_last());
	}
	*out = rows;
	*n = k;
	return 0;
}
