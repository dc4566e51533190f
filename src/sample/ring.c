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
	unsigned char *aux;     /* AUX area, NULL until pms_ring_aux_open */
	uint64_t aux_size;      /* power of two */
	unsigned char *aux_scratch;
	size_t aux_scratch_len;
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
	if (r->aux) {
		const struct pms_sys_ops *ops = pms_sys_ops(r->sys);
		ops->munmap(ops->ud, r->aux, (size_t)r->aux_size);
	}
	if (r->page) {
		const struct pms_sys_ops *ops = pms_sys_ops(r->sys);
		ops->munmap(ops->ud, r->page, r->map_len);
	}
	free(r->scratch);
	free(r->aux_scratch);
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

	/* In non-overwrite mode the kernel never runs more than one ring ahead
	 * of data_tail (kernel/events/ring_buffer.c perf_output_begin); a larger
	 * gap means the control page is garbage. */
	if (head > tail && head - tail > r->data_size)
		goto corrupt;
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
		if (h.size < sizeof(h) || (h.size & 7) || h.size > head - tail ||
		    h.size > r->data_size)
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

/* The bytes [from, to) of the ring into dst, unwrapped. */
static size_t copy_out(struct pms_ring *r, void *dst, uint64_t from, uint64_t to)
{
	size_t n = (size_t)(to - from), off = (size_t)(from & (r->data_size - 1));
	size_t first = n < r->data_size - off ? n : (size_t)(r->data_size - off);

	if (!n)
		return 0;
	memcpy(dst, r->data + off, first);
	if (n > first)
		memcpy((unsigned char *)dst + first, r->data, n - first);
	r->stats.bytes += n;
	return n;
}

int pms_ring_copy(struct pms_ring *r, void *dst, size_t cap, size_t *len)
{
	uint64_t head = load_head(r);
	uint64_t tail = r->page->data_tail;
	uint64_t mask = r->data_size - 1;
	uint64_t end = tail;
	size_t nbytes;
	int n = 0;

	*len = 0;
	if (head > tail && head - tail > r->data_size)
		goto corrupt;
	/* Find the whole records that fit: one header load per record, the
	 * bytes then move in at most two copies. */
	while (end < head) {
		struct perf_event_header h;
		uint64_t o = end & mask;

		if (head - end < sizeof(h))
			goto corrupt;
		if (o + sizeof(h) <= r->data_size) {
			memcpy(&h, r->data + o, sizeof(h));
		} else {
			size_t f = (size_t)(r->data_size - o);
			memcpy(&h, r->data + o, f);
			memcpy((unsigned char *)&h + f, r->data, sizeof(h) - f);
		}
		if (h.size < sizeof(h) || (h.size & 7) || h.size > head - end ||
		    h.size > r->data_size)
			goto corrupt; /* the records before it are good */
		if (end - tail + h.size > cap)
			break;
		if (o + h.size > r->data_size)
			r->stats.wrapped++;
		end += h.size;
		n++;
	}
	nbytes = copy_out(r, dst, tail, end);
	store_tail(r, end);
	r->stats.records += (uint64_t)n;
	*len = nbytes;
	return n;

corrupt:
	/* Hand out the good records before the bad header, skip the rest. */
	*len = copy_out(r, dst, tail, end);
	r->stats.records += (uint64_t)n;
	r->stats.corrupt_bytes += head - end;
	store_tail(r, head);
	return pms_err(PMS_EPARSE,
		       "perf ring of fd %d: impossible record header at ring offset %llu "
		       "(%llu bytes skipped)",
		       r->fd, (unsigned long long)(end & mask),
		       (unsigned long long)(head - end));
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

int pms_ring_aux_open(struct pms_ring *r, size_t aux_pages)
{
	const struct pms_sys_ops *ops = pms_sys_ops(r->sys);
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t off = r->map_len, size;
	void *map = NULL;
	int ret;

	if (r->aux)
		return pms_err(PMS_EINVAL, "fd %d already has an AUX area", r->fd);
	/* kernel/events/core.c perf_mmap: the AUX pages must be a power of two. */
	if (aux_pages < 2 || (aux_pages & (aux_pages - 1)))
		return pms_err(PMS_EINVAL,
			       "AUX area of %zu pages: needs a power of two >= 2 "
			       "(kernel/events/core.c perf_mmap, arm_spe_pmu_setup_aux)",
			       aux_pages);
	size = (uint64_t)aux_pages * (uint64_t)psz;
	/* The kernel takes the AUX placement from the user page: aux_offset
	 * must be page aligned and past the data area, aux_size must equal the
	 * mapping length (kernel/events/core.c perf_mmap). */
	__atomic_store_n(&r->page->aux_offset, off, __ATOMIC_RELAXED);
	__atomic_store_n(&r->page->aux_size, size, __ATOMIC_RELAXED);
	ret = ops->mmap(ops->ud, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
			(off_t)off, &map);
	if (ret < 0)
		return pms_err_errno(0, -ret,
				     "mmap of the %zu-page AUX area of fd %d at offset %llu failed "
				     "(fewer --aux-pages, or raise perf_event_mlock_kb)",
				     aux_pages, r->fd, (unsigned long long)off);
	r->aux = map;
	r->aux_size = size;
	return 0;
}

size_t pms_ring_aux_size(const struct pms_ring *r)
{
	return (size_t)r->aux_size;
}

static uint64_t load_aux_head(const struct pms_ring *r)
{
	/* Same protocol as data_head (include/uapi/linux/perf_event.h, the
	 * aux_head comment): acquire pairs with the kernel's publication. */
	return __atomic_load_n(&r->page->aux_head, __ATOMIC_ACQUIRE);
}

uint64_t pms_ring_aux_pending(const struct pms_ring *r)
{
	if (!r->aux)
		return 0;
	return load_aux_head(r) - __atomic_load_n(&r->page->aux_tail, __ATOMIC_RELAXED);
}

int pms_ring_aux_read(struct pms_ring *r, uint64_t offset, uint64_t size, pms_ring_aux_cb cb,
		      void *ud)
{
	uint64_t head, end, off, mask;
	const unsigned char *p;
	int ret = 0;

	if (!r->aux)
		return pms_err(PMS_EINVAL, "fd %d has no AUX area", r->fd);
	head = load_aux_head(r);
	end = offset + size;
	if (end < offset || end > head)
		return pms_err(PMS_ERANGE,
			       "AUX range [%llu, %llu) of fd %d lies past aux_head %llu",
			       (unsigned long long)offset, (unsigned long long)end, r->fd,
			       (unsigned long long)head);
	/* Anything older than head - aux_size has been overwritten. */
	if (head - offset > r->aux_size) {
		uint64_t keep_from = head - r->aux_size;
		uint64_t lost = (keep_from < end ? keep_from : end) - offset;
		r->stats.aux_overrun += lost;
		offset += lost;
		size -= lost;
	}
	if (size) {
		mask = r->aux_size - 1;
		off = offset & mask;
		if (off + size <= r->aux_size) {
			p = r->aux + off;
		} else {
			size_t first = (size_t)(r->aux_size - off);
			if (r->aux_scratch_len < size) {
				unsigned char *n = realloc(r->aux_scratch, (size_t)size);
				if (!n)
					return pms_err(PMS_ENOMEM,
						       "out of memory copying %llu wrapped AUX bytes",
						       (unsigned long long)size);
				r->aux_scratch = n;
				r->aux_scratch_len = (size_t)size;
			}
			memcpy(r->aux_scratch, r->aux + off, first);
			memcpy(r->aux_scratch + first, r->aux, (size_t)size - first);
			p = r->aux_scratch;
			r->stats.aux_wrapped++;
		}
		ret = cb(ud, p, (size_t)size, offset);
		r->stats.aux_bytes += size;
	}
	/* Release: our reads of the AUX bytes are done before the kernel may
	 * reuse them.  Never move the tail backwards. */
	if (end > __atomic_load_n(&r->page->aux_tail, __ATOMIC_RELAXED))
		__atomic_store_n(&r->page->aux_tail, end, __ATOMIC_RELEASE);
	return ret < 0 ? ret : 0;
}

int pms_ring_aux_drain(struct pms_ring *r, pms_ring_aux_cb cb, void *ud)
{
	uint64_t head, tail;

	if (!r->aux)
		return pms_err(PMS_EINVAL, "fd %d has no AUX area", r->fd);
	head = load_aux_head(r);
	tail = __atomic_load_n(&r->page->aux_tail, __ATOMIC_RELAXED);
	if (head <= tail)
		return 0;
	return pms_ring_aux_read(r, tail, head - tail, cb, ud);
}
