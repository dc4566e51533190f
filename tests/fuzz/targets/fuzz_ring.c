/* libFuzzer target for the perf ring drain and its AUX area.  Input:
 * u64 data_head, u64 data_tail, u32 sample_type, u8 flags (bit0
 * sample_id_all), u64 aux_head, u64 aux_tail, u64 (aux_off | aux_len << 32), then
 * bytes that fill the 4 KiB data area and the 8 KiB AUX area (zeros past the
 * input).  Every record drained is parsed; nothing may crash or read outside
 * the two areas. */
#include "pmuscope/error.h"
#include "pmuscope/record.h"
#include "pmuscope/ring.h"
#include "pmuscope/sys.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PAGE 4096
#define PREFIX 45

static unsigned char *ring_map;  /* user page + one data page */
static unsigned char *aux_map;   /* two AUX pages */

static int f_mmap(void *ud, size_t length, int prot, int flags, int fd, off_t offset, void **out)
{
	(void)ud; (void)prot; (void)flags; (void)fd;
	if (offset == 0 && length == 2 * PAGE)
		*out = ring_map;
	else if (offset != 0 && length == 2 * PAGE)
		*out = aux_map;
	else
		return -EINVAL;
	return 0;
}

static int f_munmap(void *ud, void *addr, size_t length)
{
	(void)ud; (void)addr; (void)length;
	return 0;
}

struct ctx {
	struct pms_sample_layout l;
	uint64_t sum;
};

static int on_rec(void *ud, const void *rec, size_t len)
{
	struct ctx *c = ud;
	struct pms_record r;
	if (pms_record_parse(&c->l, rec, len, &r) == 0)
		c->sum += r.type;
	return 0;
}

static int on_aux(void *ud, const void *bytes, size_t len, uint64_t offset)
{
	struct ctx *c = ud;
	const unsigned char *p = bytes;
	(void)offset;
	/* Touch every byte handed out: ASan catches a range past the area. */
	for (size_t i = 0; i < len; i++)
		c->sum += p[i];
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pms_sys *sys;
	static struct pms_sys_ops ops;
	struct perf_event_mmap_page *pg;
	struct pms_ring *ring = NULL;
	struct ctx c;
	uint64_t head, tail, ahead, atail, aoff;
	uint32_t st, alen;
	size_t rest;

	if (size < PREFIX)
		return 0;
	if (!sys) {
		struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
		ring_map = aligned_alloc(PAGE, 2 * PAGE);
		aux_map = aligned_alloc(PAGE, 2 * PAGE);
		ops = *pms_sys_real_ops();
		ops.mmap = f_mmap;
		ops.munmap = f_munmap;
		o.ops = &ops;
		if (!ring_map || !aux_map || pms_sys_new(&sys, &o) < 0)
			abort();
	}
	memset(ring_map, 0, 2 * PAGE);
	memset(aux_map, 0, 2 * PAGE);
	memcpy(&head, data, 8);
	memcpy(&tail, data + 8, 8);
	memcpy(&st, data + 16, 4);
	memset(&c, 0, sizeof(c));
	c.l.sample_type = st & PMS_SAMPLE_KNOWN_MASK & ~(PMS_SAMPLE_READ | PMS_SAMPLE_REGS_USER |
							  PMS_SAMPLE_REGS_INTR);
	c.l.sample_id_all = data[20] & 1;
	memcpy(&ahead, data + 21, 8);
	memcpy(&atail, data + 29, 8);
	memcpy(&aoff, data + 37, 8);
	alen = (uint32_t)(aoff >> 32);
	aoff &= 0xffffffffULL;
	rest = size - PREFIX;
	if (rest > PAGE) {
		memcpy(ring_map + PAGE, data + PREFIX, PAGE);
		size_t more = rest - PAGE < 2 * PAGE ? rest - PAGE : 2 * PAGE;
		memcpy(aux_map, data + PREFIX + PAGE, more);
	} else {
		memcpy(ring_map + PAGE, data + PREFIX, rest);
	}
	if (pms_ring_open(sys, 3, 1, &ring) < 0)
		abort();
	pg = pms_ring_user_page(ring);
	/* Keep the bytes honest but the pointers wild. */
	pg->data_head = head;
	pg->data_tail = tail;
	(void)pms_ring_drain(ring, on_rec, &c);
	(void)pms_ring_drain(ring, on_rec, &c);
	if (pms_ring_aux_open(ring, 2) == 0) {
		pg->aux_head = ahead;
		pg->aux_tail = atail;
		(void)pms_ring_aux_read(ring, aoff, alen, on_aux, &c);
		(void)pms_ring_aux_drain(ring, on_aux, &c);
		(void)pms_ring_aux_pending(ring);
	}
	pms_ring_free(ring);
	return (int)(c.sum & 0);
}
