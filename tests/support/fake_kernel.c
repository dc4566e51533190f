#include "fake_kernel.h"

#include "pmuscope/record.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct fk_fd *fk_fd(struct fk *fk, int fd)
{
	int i = fd - FK_FD_BASE;
	if (i < 0 || i >= FK_MAX_FDS || !fk->fds[i].used)
		return NULL;
	return &fk->fds[i];
}

static int fk_perf_event_open(void *ud, struct perf_event_attr *attr, pid_t pid, int cpu,
			      int group_fd, unsigned long flags)
{
	struct fk *fk = ud;
	int r = 0, i;

	/* kernel/events/core.c perf_copy_attr(): size 0 means VER0, a size
	 * below VER0 or above PAGE_SIZE is E2BIG. */
	if (attr->size && (attr->size < PERF_ATTR_SIZE_VER0 || attr->size > 4096))
		r = -E2BIG;
	/* kernel/events/core.c SYSCALL_DEFINE5(perf_event_open): pid == -1 and
	 * cpu == -1 together is EINVAL. */
	else if (pid == -1 && cpu == -1)
		r = -EINVAL;
	else if (group_fd != -1 && !fk_fd(fk, group_fd))
		r = -EBADF;
	else if (fk->rule)
		r = fk->rule(fk, attr, pid, cpu, group_fd, flags);
	if (r >= 0) {
		for (i = 0; i < FK_MAX_FDS && fk->fds[i].used; i++)
			;
		if (i == FK_MAX_FDS) {
			r = -EMFILE;
		} else {
			memset(&fk->fds[i], 0, sizeof(fk->fds[i]));
			fk->fds[i].used = 1;
			fk->fds[i].attr = *attr;
			fk->fds[i].cpu = cpu;
			fk->fds[i].pid = pid;
			fk->fds[i].group_fd = group_fd;
			/* perf_event_alloc: disabled starts OFF, else INACTIVE;
			 * the period is attr.sample_period (core.c, 6.12) */
			fk->fds[i].on = !attr->disabled;
			fk->fds[i].period = attr->sample_period ? attr->sample_period : 1;
			fk->fds[i].left = fk->fds[i].period;
			fk->nopen++;
			r = FK_FD_BASE + i;
		}
	}
	if (fk->nlog < (int)(sizeof(fk->log) / sizeof(fk->log[0]))) {
		struct fk_open_log *l = &fk->log[fk->nlog++];
		l->attr = *attr;
		l->pid = pid;
		l->cpu = cpu;
		l->group_fd = group_fd;
		l->flags = flags;
		l->result = r;
	}
	return r;
}

static int fk_ioctl(void *ud, int fd, unsigned long request, unsigned long arg)
{
	struct fk_fd *f = fk_fd(ud, fd);
	if (!f)
		return -EBADF;
	/* PERF_EVENT_IOC_ID writes the event's id (kernel/events/core.c
	 * _perf_ioctl -> primary_event_id; ids are unique per event,
	 * perf_event_alloc).  A query: not logged as the last request. */
	if (request == PERF_EVENT_IOC_ID) {
		uint64_t id = FK_EVENT_ID(fd);
		if (!arg)
			return -EFAULT;
		memcpy((void *)(uintptr_t)arg, &id, sizeof(id));
		return 0;
	}
	f->ioctl_last = request;
	f->ioctl_count++;
	if (request == PERF_EVENT_IOC_ENABLE)
		f->enabled = true;
	/* ENABLE / DISABLE reach the event and every event inherited from it
	 * (kernel/events/core.c:6178-6180 _perf_ioctl ->
	 * perf_event_for_each_child, 5938-5950). */
	if (request == PERF_EVENT_IOC_ENABLE || request == PERF_EVENT_IOC_DISABLE) {
		struct fk *fk = ud;
		bool on = request == PERF_EVENT_IOC_ENABLE;
		f->on = on;
		for (int i = 0; i < FK_MAX_INH; i++)
			if (fk->inh[i].used && fk->inh[i].top == fd)
				fk->inh[i].on = on;
		if (on && fk->enable_hook)
			fk->enable_hook(fk, fd);
	}
	/* PERF_EVENT_IOC_PERIOD: the event itself only (core.c:6089-6096 ->
	 * _perf_event_period 6009-6030: EINVAL for a counting event, 0, or
	 * bit 63; __perf_event_period 5967-5980 sets attr.sample_period, so
	 * events inherited later copy it; those inherited before keep theirs). */
	if (request == PERF_EVENT_IOC_PERIOD) {
		uint64_t v;
		if (!arg)
			return -EFAULT;
		memcpy(&v, (const void *)(uintptr_t)arg, sizeof(v));
		if (!f->attr.sample_period || !v || (v >> 63))
			return -EINVAL;
		f->attr.sample_period = v;
		f->period = v;
	}
	return 0;
}

static ssize_t fk_read(void *ud, int fd, void *buf, size_t count)
{
	struct fk_fd *f = fk_fd(ud, fd);
	if (!f)
		return -EBADF;
	if (f->read_errno)
		return -f->read_errno;
	/* perf_read_one (kernel/events/core.c): value, then the lost count
	 * when read_format has PERF_FORMAT_LOST (lost_samples, Linux 6.0). */
	if (!f->read_len && f->attr.read_format == PERF_FORMAT_LOST) {
		uint64_t v[2] = { f->counted, f->lost_samples };
		if (count < sizeof(v))
			return -ENOSPC;
		memcpy(buf, v, sizeof(v));
		return (ssize_t)sizeof(v);
	}
	/* kernel/events/core.c perf_read_one(): a buffer smaller than the
	 * read_format size is ENOSPC. */
	if (count < f->read_len)
		return -ENOSPC;
	memcpy(buf, f->read_data, f->read_len);
	return (ssize_t)f->read_len;
}

static int fk_mmap(void *ud, size_t length, int prot, int flags, int fd, off_t offset,
		   void **out)
{
	struct fk_fd *f = fk_fd(ud, fd);
	void *p;
	(void)prot;
	(void)flags;
	if (!f)
		return -EBADF;
	if (length == 0)
		return -EINVAL;
	if (offset != 0) {
		/* kernel/events/core.c perf_mmap: a non-zero offset maps the AUX
		 * area; it needs the ring first, and must match the aux_offset /
		 * aux_size the user wrote into the user page, with a power-of-two
		 * page count; one AUX area per event (EINVAL otherwise). */
		struct perf_event_mmap_page *pg = f->map;
		size_t pages = length / 4096;
		if (!pg || f->aux_map)
			return -EINVAL;
		if (pg->aux_offset != (uint64_t)offset || pg->aux_size != length ||
		    (length & 4095) || (pages & (pages - 1)) ||
		    (uint64_t)offset < f->map_len)
			return -EINVAL;
	}
	p = aligned_alloc(4096, (length + 4095) & ~(size_t)4095);
	if (!p)
		return -ENOMEM;
	memset(p, 0, length);
	if (offset != 0) {
		f->aux_map = p;
		f->aux_map_len = length;
	} else {
		f->map = p;
		f->map_len = length;
	}
	*out = p;
	return 0;
}

static int fk_munmap(void *ud, void *addr, size_t length)
{
	struct fk *fk = ud;
	(void)length;
	for (int i = 0; i < FK_MAX_FDS; i++) {
		if (fk->fds[i].map == addr)
			fk->fds[i].map = NULL;
		if (fk->fds[i].aux_map == addr)
			fk->fds[i].aux_map = NULL;
	}
	free(addr);
	return 0;
}

static int fk_close(void *ud, int fd)
{
	struct fk *fk = ud;
	struct fk_fd *f = fk_fd(fk, fd);
	if (!f)
		return -EBADF;
	f->used = 0;
	fk->nopen--;
	/* perf_event_release_kernel (core.c:5507, 5581): the events inherited
	 * from it are removed with it. */
	for (int i = 0; i < FK_MAX_INH; i++)
		if (fk->inh[i].used && fk->inh[i].top == fd)
			fk->inh[i].used = 0;
	return 0;
}

static int page_lookup(struct fk *fk, uint64_t addr, int *node)
{
	uint64_t page = addr & ~(uint64_t)(fk->page_size - 1);
	for (int i = 0; i < fk->npages; i++)
		if (fk->page_addr[i] == page) {
			*node = fk->page_node[i];
			return 1;
		}
	return 0;
}

static int page_index(struct fk *fk, uint64_t addr)
{
	uint64_t page = addr & ~(uint64_t)(fk->page_size - 1);
	for (int i = 0; i < fk->npages; i++)
		if (fk->page_addr[i] == page)
			return i;
	return -1;
}

#define FK_MPOL_MF_MOVE (1 << 1)     /* include/uapi/linux/mempolicy.h */
#define FK_MPOL_MF_MOVE_ALL (1 << 2)

/* mm/migrate.c move_pages_and_store_status() -> do_move_pages_to_node() ->
 * migrate_pages(): the queued pages [start, i) go to node; a target page
 * that cannot be allocated (__GFP_THISNODE on a full node,
 * alloc_migration_target) ends it with -ENOMEM; pages migrate_pages could
 * not move make it return their count plus the pages not yet tried
 * (err += nr_pages - i); only full success stores the node as the status
 * of [start, i) (store_status). */
static long fk_flush(struct fk *fk, int node, int *queue, int nq, int *status, int start, int i,
		     unsigned long nr_pages)
{
	long failed = 0;
	if (!nq)
		return 0;
	for (int k = 0; k < nq; k++) {
		int pi = queue[k];
		if (fk->page_flags[pi] & (FK_PAGE_AGAIN | FK_PAGE_AGAIN_ONCE)) {
			fk->page_flags[pi] &= ~FK_PAGE_AGAIN_ONCE;
			failed++;
			continue;
		}
		if (fk->node_free_pages[node] == 0)
			return -ENOMEM;
		if (fk->node_free_pages[node] > 0)
			fk->node_free_pages[node]--;
		int from = fk->page_node[pi];
		if (from >= 0 && from < FK_MAX_NODES && fk->node_free_pages[from] >= 0)
			fk->node_free_pages[from]++;
		fk->page_node[pi] = node;
		fk->pages_moved++;
	}
	if (failed)
		return failed + (long)(nr_pages - (unsigned long)i);
	for (int k = start; k < i; k++)
		status[k] = node;
	return 0;
}

static long fk_move_pages(void *ud, int pid, unsigned long count, void **pages,
			  const int *nodes, int *status, int flags)
{
	struct fk *fk = ud;
	(void)pid;
	fk->move_pages_calls++;
	/* mm/migrate.c kernel_move_pages(): unknown flags -EINVAL; MOVE_ALL
	 * without CAP_SYS_NICE -EPERM; find_mm_struct(): no task -ESRCH,
	 * ptrace_may_access(PTRACE_MODE_READ_REALCREDS) refused -EPERM. */
	if (flags & ~(FK_MPOL_MF_MOVE | FK_MPOL_MF_MOVE_ALL))
		return -EINVAL;
	if ((flags & FK_MPOL_MF_MOVE_ALL) && !fk->cap_sys_nice)
		return -EPERM;
	if (fk->find_mm_errno)
		return -fk->find_mm_errno;
	if (!nodes) {
		/* do_pages_stat(): nodes == NULL queries; a page that is not
		 * mapped reports -EFAULT, one not yet faulted in -ENOENT. */
		if (fk->query_fail_calls > 0 && fk->query_fail_skip > 0)
			fk->query_fail_skip--;
		else if (fk->query_fail_calls > 0) {
			fk->query_fail_calls--;
			return -fk->query_fail_errno;
		}
		for (unsigned long i = 0; i < count; i++) {
			int node;
			uint64_t a = (uint64_t)(uintptr_t)pages[i];
			status[i] = page_lookup(fk, a, &node) ? node : -EFAULT;
			if (fk->flaky_left > 0 &&
			    (a & ~(uint64_t)(fk->page_size - 1)) == fk->flaky_page) {
				fk->flaky_left--;
				status[i] = fk->flaky_status;
			}
		}
		return 0;
	}
	/* do_pages_move(): pages go to their node in runs of the same node;
	 * a bad node stops the call (-ENODEV: out of range or without memory,
	 * N_MEMORY; -EACCES: outside the task's cpuset mems) after flushing
	 * the run so far; a page that is not queued gets its status at once
	 * and flushes the run. */
	fk->move_calls++;
	int *queue = malloc((count ? count : 1) * sizeof(int));
	if (!queue)
		return -ENOMEM;
	int nq = 0, current = -1, start = 0;
	long err = 0, err1;
	unsigned long i;
	for (i = 0; i < count; i++) {
		int node = nodes[i];
		err = -ENODEV;
		if (node < 0 || node >= FK_MAX_NODES)
			goto out_flush;
		if (fk->nodes_with_memory && !(fk->nodes_with_memory & (1ull << node)))
			goto out_flush;
		err = -EACCES;
		if (fk->nodes_allowed && !(fk->nodes_allowed & (1ull << node)))
			goto out_flush;
		if (current < 0) {
			current = node;
			start = (int)i;
		} else if (node != current) {
			err = fk_flush(fk, current, queue, nq, status, start, (int)i, count);
			nq = 0;
			if (err)
				goto out;
			start = (int)i;
			current = node;
		}
		/* add_page_for_migration(): no VMA -EFAULT; not present -ENOENT;
		 * on the node already: 0 (status = node); mapcount > 1 without
		 * MPOL_MF_MOVE_ALL -EACCES; isolate_lru_page failing -EBUSY;
		 * else queued. */
		int pi = page_index(fk, (uint64_t)(uintptr_t)pages[i]);
		if (pi < 0)
			err = -EFAULT;
		else if (fk->page_node[pi] < 0)
			err = fk->page_node[pi];
		else if (fk->page_node[pi] == current)
			err = 0;
		else if ((fk->page_flags[pi] & FK_PAGE_SHARED) && !(flags & FK_MPOL_MF_MOVE_ALL))
			err = -EACCES;
		else if (fk->page_flags[pi] & FK_PAGE_BUSY)
			err = -EBUSY;
		else if (fk->page_flags[pi] & FK_PAGE_BUSY_ONCE) {
			fk->page_flags[pi] &= ~FK_PAGE_BUSY_ONCE;
			err = -EBUSY;
		}
		else
			err = 1;
		if (err > 0) {
			queue[nq++] = pi;
			continue;
		}
		status[i] = err ? (int)err : current;
		err = fk_flush(fk, current, queue, nq, status, start, (int)i, count);
		nq = 0;
		if (err) {
			if (err > 0)
				err--; /* page i is accounted for */
			goto out;
		}
		current = -1;
	}
out_flush:
	err1 = fk_flush(fk, current, queue, nq, status, start, (int)i, count);
	if (err >= 0)
		err = err1;
out:
	free(queue);
	return err;
}

void fk_set_page_flags(struct fk *fk, uint64_t addr, int flags)
{
	int pi = page_index(fk, addr);
	if (pi >= 0)
		fk->page_flags[pi] = flags;
}

static long fk_get_mempolicy(void *ud, int *mode, unsigned long *nodemask,
			     unsigned long maxnode, void *addr, unsigned long flags)
{
	struct fk *fk = ud;
	int node;
	(void)nodemask;
	(void)maxnode;
	(void)flags;
	fk->get_mempolicy_calls++;
	if (!page_lookup(fk, (uint64_t)(uintptr_t)addr, &node) || node < 0)
		return -EFAULT;
	if (mode)
		*mode = node;
	return 0;
}

void fk_set_page(struct fk *fk, uint64_t addr, int node)
{
	uint64_t page = addr & ~(uint64_t)(fk->page_size - 1);
	for (int i = 0; i < fk->npages; i++)
		if (fk->page_addr[i] == page) {
			fk->page_node[i] = node;
			return;
		}
	if (fk->npages < FK_MAX_PAGES) {
		fk->page_addr[fk->npages] = page;
		fk->page_node[fk->npages++] = node;
	}
}

struct fk *fk_new(void)
{
	struct fk *fk = calloc(1, sizeof(*fk));
	if (!fk)
		return NULL;
	fk->page_size = 4096;
	for (int n = 0; n < FK_MAX_NODES; n++)
		fk->node_free_pages[n] = -1;
	fk->ops = (struct pms_sys_ops){
		.ud = fk,
		.perf_event_open = fk_perf_event_open,
		.ioctl = fk_ioctl,
		.read = fk_read,
		.mmap = fk_mmap,
		.munmap = fk_munmap,
		.close = fk_close,
		.move_pages = fk_move_pages,
		.get_mempolicy = fk_get_mempolicy,
	};
	return fk;
}

void fk_free(struct fk *fk)
{
	if (!fk)
		return;
	for (int i = 0; i < FK_MAX_FDS; i++) {
		free(fk->fds[i].map);
		free(fk->fds[i].aux_map);
	}
	free(fk);
}

const struct pms_sys_ops *fk_ops(struct fk *fk)
{
	return &fk->ops;
}

int fk_ring_put(struct fk *fk, int fd, const void *rec, size_t len)
{
	struct fk_fd *f = fk_fd(fk, fd);
	struct perf_event_mmap_page *pg;
	unsigned char *data;
	uint64_t size, head, tail;

	if (!f || !f->map || f->map_len <= 4096)
		return -EBADF;
	pg = f->map;
	data = (unsigned char *)f->map + 4096;
	size = f->map_len - 4096;
	head = pg->data_head;
	tail = __atomic_load_n(&pg->data_tail, __ATOMIC_ACQUIRE);
	if (head + len - tail > size)
		return -ENOSPC;
	for (size_t i = 0; i < len; i++)
		data[(head + i) & (size - 1)] = ((const unsigned char *)rec)[i];
	__atomic_store_n(&pg->data_head, head + len, __ATOMIC_RELEASE);
	return 0;
}

int fk_aux_put(struct fk *fk, int fd, const void *bytes, size_t len, uint64_t *offset)
{
	struct fk_fd *f = fk_fd(fk, fd);
	struct perf_event_mmap_page *pg;
	unsigned char *aux;
	uint64_t size, head, tail;

	if (!f || !f->map || !f->aux_map)
		return -EBADF;
	pg = f->map;
	aux = f->aux_map;
	size = f->aux_map_len;
	head = pg->aux_head;
	tail = __atomic_load_n(&pg->aux_tail, __ATOMIC_ACQUIRE);
	if (head + len - tail > size)
		return -ENOSPC;
	for (size_t i = 0; i < len; i++)
		aux[(head + i) & (size - 1)] = ((const unsigned char *)bytes)[i];
	if (offset)
		*offset = head;
	__atomic_store_n(&pg->aux_head, head + len, __ATOMIC_RELEASE);
	return 0;
}

/* ---- tasks --------------------------------------------------------------- */

static int inh_new(struct fk *fk, int top, pid_t tid, bool on)
{
	struct fk_fd *t = fk_fd(fk, top);
	for (int i = 0; i < FK_MAX_INH; i++)
		if (!fk->inh[i].used) {
			/* inherit_event (core.c:13688-13760): the child is made
			 * from the top parent (13706-13707) with its attr
			 * (perf_event_alloc(&parent_event->attr), 13709), so its
			 * current sample_period; its state follows the forking
			 * task's event (parent_state, 13695, 13747-13750). */
			fk->inh[i].used = 1;
			fk->inh[i].top = top;
			fk->inh[i].tid = tid;
			fk->inh[i].on = on;
			fk->inh[i].period = t->attr.sample_period ? t->attr.sample_period : 1;
			fk->inh[i].left = fk->inh[i].period;
			return 1;
		}
	return 0;
}

int fk_task_fork(struct fk *fk, pid_t parent, pid_t child)
{
	int n = 0, ninh = 0;
	int tops[FK_MAX_INH];
	bool ons[FK_MAX_INH];

	/* inherit_task_group (core.c:13853): only events with attr.inherit. */
	for (int i = 0; i < FK_MAX_FDS; i++) {
		struct fk_fd *f = &fk->fds[i];
		if (f->used && f->pid == parent && f->attr.inherit && ninh < FK_MAX_INH) {
			tops[ninh] = FK_FD_BASE + i;
			ons[ninh++] = f->on;
		}
	}
	for (int i = 0; i < FK_MAX_INH; i++) {
		struct fk_inh *e = &fk->inh[i];
		if (e->used && e->tid == parent && fk_fd(fk, e->top)->attr.inherit &&
		    ninh < FK_MAX_INH) {
			tops[ninh] = e->top;
			ons[ninh++] = e->on;
		}
	}
	for (int k = 0; k < ninh; k++)
		n += inh_new(fk, tops[k], child, ons[k]);
	return n;
}

int fk_inh_count(struct fk *fk, int fd)
{
	int n = 0;
	for (int i = 0; i < FK_MAX_INH; i++)
		n += fk->inh[i].used && fk->inh[i].top == fd;
	return n;
}

/* perf_output_begin (kernel/events/ring_buffer.c:152-266, __perf_output_begin) for a sample of
 * the event whose top parent is fd: the output goes to the parent's ring
 * (171-172); records lost since the last write are reported first in a
 * LOST record with the parent's id (190-191, 248-256); no room: the record
 * is counted in rb->lost and the parent's lost_samples (263-264). */
static int fk_output(struct fk *fk, int fd, pid_t tid, int cpu, uint64_t ip, uint64_t addr,
		     uint64_t period)
{
	struct fk_fd *f = fk_fd(fk, fd);
	struct perf_event_mmap_page *pg;
	struct pms_sample_layout l;
	struct pms_record r;
	unsigned char srec[512], lrec[256];
	size_t slen = 0, llen = 0;
	uint64_t size, head, tail;

	if (!f || !f->map || f->map_len <= 4096)
		return 0;
	pms_sample_layout_from_attr(&l, &f->attr);
	memset(&r, 0, sizeof(r));
	r.type = PMS_RECORD_SAMPLE;
	r.sample.misc = PMS_MISC_USER;
	r.sample.ip = ip;
	r.sample.pid = (uint32_t)tid;
	r.sample.tid = (uint32_t)tid;
	/* an event with use_clockid CLOCK_MONOTONIC stamps its records with
	 * that clock (kernel/events/core.c perf_event_set_clock:
	 * ktime_get_mono_fast_ns); else the fake's own counter */
	if (f->attr.use_clockid && f->attr.clockid == CLOCK_MONOTONIC) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		fk->clock = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	} else {
		++fk->clock;
	}
	r.sample.time = fk->clock;
	r.sample.addr = addr;
	r.sample.id = FK_EVENT_ID(fd);        /* primary_event_id: the parent's */
	r.sample.stream_id = FK_EVENT_ID(fd);
	r.sample.cpu = (uint32_t)cpu;
	r.sample.period = period;
	r.sample.data_src = 0x1e05080021ULL; /* PERF_MEM_NA: software events */
	if (pms_record_encode(&l, &r, srec, sizeof(srec), &slen) < 0)
		return 0;
	if (f->lost) {
		memset(&r, 0, sizeof(r));
		r.type = PMS_RECORD_LOST;
		r.lost.id = FK_EVENT_ID(fd);
		r.lost.lost = f->lost;
		r.sample_id.pid = r.sample_id.tid = (uint32_t)tid;
		r.sample_id.time = fk->clock;
		r.sample_id.cpu = (uint32_t)cpu;
		r.sample_id.id = r.sample_id.stream_id = FK_EVENT_ID(fd);
		if (pms_record_encode(&l, &r, lrec, sizeof(lrec), &llen) < 0)
			return 0;
	}
	pg = f->map;
	size = f->map_len - 4096;
	head = pg->data_head;
	tail = __atomic_load_n(&pg->data_tail, __ATOMIC_ACQUIRE);
	if (head + llen + slen - tail > size) {
		f->lost++;
		f->lost_samples++;
		return 0;
	}
	if (llen) {
		fk_ring_put(fk, fd, lrec, llen);
		f->lost = 0;
	}
	fk_ring_put(fk, fd, srec, slen);
	f->written++;
	return 1;
}

/* perf_swevent_event (kernel/events/core.c:10042-10085): an event that
 * samples PERIOD without freq overflows on every event (10079-10081, the
 * sample's period then 1); else every `period` events. */
static int fk_count(struct fk *fk, int top, uint64_t *left, uint64_t period, pid_t tid, int cpu,
		    uint64_t ip, uint64_t addr)
{
	struct fk_fd *t = fk_fd(fk, top);
	t->counted++;
	if ((t->attr.sample_type & PERF_SAMPLE_PERIOD) && !t->attr.freq)
		return fk_output(fk, top, tid, cpu, ip, addr, 1);
	if (--*left)
		return 0;
	*left = period;
	return fk_output(fk, top, tid, cpu, ip, addr, period);
}

static bool fk_is_fault_event(const struct fk_fd *f)
{
	return f->attr.type == PERF_TYPE_SOFTWARE && f->attr.config == PERF_COUNT_SW_PAGE_FAULTS;
}

int fk_task_fault(struct fk *fk, pid_t tid, int cpu, uint64_t ip, uint64_t addr)
{
	int n = 0;
	for (int i = 0; i < FK_MAX_FDS; i++) {
		struct fk_fd *f = &fk->fds[i];
		if (!f->used || !f->on || !fk_is_fault_event(f) || (f->pid != tid && f->pid != -1) ||
		    (f->cpu != -1 && f->cpu != cpu))
			continue;
		n += fk_count(fk, FK_FD_BASE + i, &f->left, f->period, tid, cpu, ip, addr);
	}
	for (int i = 0; i < FK_MAX_INH; i++) {
		struct fk_inh *e = &fk->inh[i];
		struct fk_fd *t;
		if (!e->used || !e->on || e->tid != tid)
			continue;
		t = fk_fd(fk, e->top);
		/* an inherited event keeps its parent's CPU (inherit_event:
		 * perf_event_alloc(..., parent_event->cpu, ...)) */
		if (!t || !fk_is_fault_event(t) || (t->cpu != -1 && t->cpu != cpu))
			continue;
		n += fk_count(fk, e->top, &e->left, e->period, tid, cpu, ip, addr);
	}
	return n;
}
