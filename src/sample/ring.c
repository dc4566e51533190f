#include "pmuscope/ring.h"
#include "util/error.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct pms_ring {
	struct pms_sys *sys;
	int fd;
	struct perf_event_mmap_page *page;
	size_t map_len;
	unsigned char *data;
	uint64_t data_size; /* power of two */
	unsigned char *scratch; /* for records straddling the end */
	size_t scratch_len;
	struct pms_ring_stats stats;
};

int pms_ring_open(struct pms_sys *sys, int fd, size_t data_pages, struct pms_ring **out)
{
	const struct pms_sys_ops *ops = pms_sys_ops(sys);
	long psz = sysconf(_SC_PAGESIZE);
	struct pms_ring *r = NULL;
	void *map = NULL;
	int ret;

	*out = NULL;
	if (data_pages == 0 || (data_pages & (data_pages - 1)))
		return pms_err(PMS_EINVAL,
			       "ring of %zu data pages: the kernel needs a power of two "
			       "(kernel/events/ring_buffer.c rb_alloc)",
			       data_pages);
	r = calloc(1, sizeof(*r));
	if (!r)
		return pms_err(PMS_ENOMEM, "out of memory for a ring");
	r->sys = sys;
	r->fd = fd;
	r->map_len = (data_pages + 1) * (size_t)psz;
	ret = ops->mmap(ops->ud, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0, &map);
	if (ret < 0) {
		ret = pms_err_errno(0, -ret,
				    "mmap of %zu-page perf ring on fd %d failed (lower the size, or "
				    "raise /proc/sys/kernel/perf_event_mlock_kb)",
				    data_pages, fd);
		free(r);
		return ret;
	}
	r->page = map;
	r->data = (unsigned char *)map + psz;
	r->data_size = (uint64_t)data_pages * (uint64_t)psz;
	*out = r;
	return 0;
}

void pms_ring_free(struct pms_ring *r)
{
	if (!r)
		return;
	if (r->page) {
		const struct pms_sys_ops *ops = pms_sys_ops(r->sys);
		ops->munmap(ops->ud, r->page, r->map_len);
	}
	free(r->scratch);
	free(r);
}

static uint64_t load_head(const struct pms_ring *r)
{
	/* include/uapi/linux/perf_event.h: "User-space reading the @data_head
	 * value should issue an smp_rmb()" — an acquire load does that. */
	return __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
}

static void store_tail(struct pms_ring *r, uint64_t tail)
{
	/* Release: our reads of the records complete before the kernel may
	 * overwrite them (the mb before the data_tail store). */
	__atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
}

uint64_t pms_ring_pending(const struct pms_ring *r)
{
	return load_head(r) - r->page->data_tail;
}

static int ensure_scratch(struct pms_ring *r, size_t len)
{
	unsigned char *p;
	if (r->scratch_len >= len)
		return 0;
	p = realloc(r->scratch, len);
	if (!p)
		return pms_err(PMS_ENOMEM, "out of memory copying a %zu-byte wrapped record", len);
	r->scratch = p;
	r->scratch_len = len;
	return 0;
}

int pms_ring_drain(struct pms_ring *r, pms_ring_cb cb, void *ud)
{
	uint64_t head = load_head(r);
	uint64_t tail = r->page->data_tail;
	uint64_t mask = r->data_size - 1;
	int n = 0, ret = 0;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail & mask;
		const unsigned char *rec;

		if (head - tail < sizeof(h))
			goto corrupt;
		/* The header itself may straddle the end. */
		if (off + sizeof(h) <= r->data_size) {
			memcpy(&h, r->data + off, sizeof(h));
		} else {
			size_t first = (size_t)(r->data_size - off);
			memcpy(&h, r->data + off, first);
			memcpy((unsigned char *)&h + first, r->data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || (h.size & 7) || h.size > head - tail)
			goto corrupt;
		if (off + h.size <= r->data_size) {
			rec = r->data + off;
		} else {
			size_t first = (size_t)(r->data_size - off);
			if ((ret = ensure_scratch(r, h.size)) < 0)
				break;
			memcpy(r->scratch, r->data + off, first);
			memcpy(r->scratch + first, r->data, h.size - first);
			rec = r->scratch;
			r->stats.wrapped++;
		}
		ret = cb(ud, rec, h.size);
		if (ret < 0)
			break;
		tail += h.size;
		r->stats.records++;
		r->stats.bytes += h.size;
		n++;
	}
	store_tail(r, tail);
	return ret < 0 ? ret : n;

corrupt:
	r->stats.corrupt_bytes += head - tail;
	store_tail(r, head);
	return pms_err(PMS_EPARSE,
		       "perf ring of fd %d: impossible record header at ring offset %llu "
		       "(%llu bytes skipped)",
		       r->fd, (unsigned long long)(tail & mask),
		       (unsigned long long)(head - tail));
}

void pms_ring_stats(const struct pms_ring *r, struct pms_ring_stats *out)
{
	*out = r->stats;
}

void *pms_ring_user_page(const struct pms_ring *r)
{
	return r->page;
}

size_t pms_ring_data_size(const struct pms_ring *r)
{
	return (size_t)r->data_size;
}
