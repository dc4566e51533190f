/* perf.data in the other byte order: swap attrs and records field by field
 * at each field's own width, so the decoders in record.h read them as host
 * order.  The widths follow include/uapi/linux/perf_event.h; the attr's
 * flag word is a bit-field, which a big-endian compiler allocates from the
 * most significant bit of each byte, so its bits are reversed byte by byte
 * instead (tools/perf/util/session.c, swap_bitfield). */
#include "reader_int.h"

#include <string.h>

uint16_t pd_bswap16(uint16_t v)
{
	return (uint16_t)((v >> 8) | (v << 8));
}

uint32_t pd_bswap32(uint32_t v)
{
	return __builtin_bswap32(v);
}

uint64_t pd_bswap64(uint64_t v)
{
	return __builtin_bswap64(v);
}

static void sw16(unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	v = pd_bswap16(v);
	memcpy(p, &v, 2);
}

static void sw32(unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	v = pd_bswap32(v);
	memcpy(p, &v, 4);
}

static void sw64(unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	v = pd_bswap64(v);
	memcpy(p, &v, 8);
}

/* (offset, width) of every perf_event_attr field (kernel-abi-facts.md 1.7);
 * width 0 = the flag bit-field word. */
static const struct {
	unsigned char off, width;
} attr_fields[] = {
	{ 0, 4 },   { 4, 4 },   { 8, 8 },   { 16, 8 },  { 24, 8 },  { 32, 8 },
	{ 40, 0 },  { 48, 4 },  { 52, 4 },  { 56, 8 },  { 64, 8 },  { 72, 8 },
	{ 80, 8 },  { 88, 4 },  { 92, 4 },  { 96, 8 },  { 104, 4 }, { 108, 2 },
	{ 110, 2 }, { 112, 4 }, { 116, 4 }, { 120, 8 }, { 128, 8 }, { 136, 8 },
};

static unsigned char revbits(unsigned char b)
{
	unsigned char o = 0;
	for (int i = 0; i < 8; i++)
		if (b & (1u << i))
			o |= (unsigned char)(1u << (7 - i));
	return o;
}

void pd_swap_attr(unsigned char *p, size_t size)
{
	for (size_t i = 0; i < sizeof(attr_fields) / sizeof(attr_fields[0]); i++) {
		size_t off = attr_fields[i].off, w = attr_fields[i].width;
		if (off + (w ? w : 8) > size)
			break;
		if (w == 2)
			sw16(p + off);
		else if (w == 4)
			sw32(p + off);
		else if (w == 8)
			sw64(p + off);
		else
			for (size_t b = 0; b < 8; b++)
				p[off + b] = revbits(p[off + b]);
	}
}

/* A cursor that swaps as it walks; stops (ok = false) at the end. */
struct sc {
	unsigned char *p;
	size_t pos, end;
	bool ok;
};

static bool room(struct sc *c, size_t n)
{
	if (!c->ok || n > c->end - c->pos) {
		c->ok = false;
		return false;
	}
	return true;
}

static uint64_t s64(struct sc *c)
{
	uint64_t v = 0;
	if (!room(c, 8))
		return 0;
	sw64(c->p + c->pos);
	memcpy(&v, c->p + c->pos, 8);
	c->pos += 8;
	return v;
}

static uint32_t s32(struct sc *c)
{
	uint32_t v = 0;
	if (!room(c, 4))
		return 0;
	sw32(c->p + c->pos);
	memcpy(&v, c->p + c->pos, 4);
	c->pos += 4;
	return v;
}

static void s16(struct sc *c)
{
	if (room(c, 2)) {
		sw16(c->p + c->pos);
		c->pos += 2;
	}
}

static void skip(struct sc *c, uint64_t n)
{
	if (n > c->end - c->pos || !c->ok) {
		c->ok = false;
		return;
	}
	c->pos += (size_t)n;
}

static void s64n(struct sc *c, uint64_t n)
{
	for (uint64_t i = 0; i < n && c->ok; i++)
		s64(c);
}

static void swap_read(struct sc *c, uint64_t rf)
{
	unsigned per = 1u + !!(rf & PMS_READ_ID) + !!(rf & PMS_READ_LOST);
	if (rf & PMS_READ_GROUP) {
		uint64_t nr = s64(c);
		s64n(c, !!(rf & PMS_READ_TOTAL_TIME_ENABLED) +
				!!(rf & PMS_READ_TOTAL_TIME_RUNNING));
		if (nr > (c->end - c->pos) / 8)
			c->ok = false;
		else
			s64n(c, nr * per);
	} else {
		s64n(c, per + !!(rf & PMS_READ_TOTAL_TIME_ENABLED) +
				!!(rf & PMS_READ_TOTAL_TIME_RUNNING));
	}
}

static void swap_regs(struct sc *c, uint64_t mask)
{
	if (s64(c))
		s64n(c, (uint64_t)__builtin_popcountll(mask));
}

/* The SAMPLE body in perf_output_sample() order (kernel-abi-facts.md 1.6). */
static void swap_sample(struct sc *c, const struct pms_sample_layout *l)
{
	uint64_t st = l->sample_type, n;

	if (st & PMS_SAMPLE_IDENTIFIER)
		s64(c);
	if (st & PMS_SAMPLE_IP)
		s64(c);
	if (st & PMS_SAMPLE_TID) {
		s32(c);
		s32(c);
	}
	if (st & PMS_SAMPLE_TIME)
		s64(c);
	if (st & PMS_SAMPLE_ADDR)
		s64(c);
	if (st & PMS_SAMPLE_ID)
		s64(c);
	if (st & PMS_SAMPLE_STREAM_ID)
		s64(c);
	if (st & PMS_SAMPLE_CPU) {
		s32(c);
		s32(c);
	}
	if (st & PMS_SAMPLE_PERIOD)
		s64(c);
	if (st & PMS_SAMPLE_READ)
		swap_read(c, l->read_format);
	if (st & PMS_SAMPLE_CALLCHAIN) {
		n = s64(c);
		if (n > (c->end - c->pos) / 8)
			c->ok = false;
		s64n(c, n);
	}
	if (st & PMS_SAMPLE_RAW)
		skip(c, s32(c));
	if (st & PMS_SAMPLE_BRANCH_STACK) {
		n = s64(c);
		if (l->branch_sample_type & PMS_BRANCH_HW_INDEX)
			s64(c);
		if (n > (c->end - c->pos) / 24)
			c->ok = false;
		s64n(c, n * 3);
		if (l->branch_sample_type & PMS_BRANCH_COUNTERS)
			s64n(c, n);
	}
	if (st & PMS_SAMPLE_REGS_USER)
		swap_regs(c, l->sample_regs_user);
	if (st & PMS_SAMPLE_STACK_USER) {
		n = s64(c);
		if (n) {
			skip(c, n);
			s64(c);
		}
	}
	if (st & PMS_SAMPLE_WEIGHT_STRUCT) {
		s32(c);
		s16(c);
		s16(c);
	} else if (st & PMS_SAMPLE_WEIGHT) {
		s64(c);
	}
	if (st & PMS_SAMPLE_DATA_SRC)
		s64(c);
	if (st & PMS_SAMPLE_TRANSACTION)
		s64(c);
	if (st & PMS_SAMPLE_REGS_INTR)
		swap_regs(c, l->sample_regs_intr);
	s64n(c, !!(st & PMS_SAMPLE_PHYS_ADDR) + !!(st & PMS_SAMPLE_CGROUP) +
			!!(st & PMS_SAMPLE_DATA_PAGE_SIZE) + !!(st & PMS_SAMPLE_CODE_PAGE_SIZE));
	if (st & PMS_SAMPLE_AUX)
		skip(c, s64(c));
}

/* The sample_id trailer: fixed-size fields at the end of the record. */
static size_t swap_trailer(unsigned char *p, size_t len, const struct pms_sample_layout *l)
{
	uint64_t st = l->sample_type;
	size_t n = 8u * (size_t)__builtin_popcountll(st & PMS_SAMPLE_ID_ALL_MASK);
	struct sc c;

	if (n > len - 8)
		return len;
	c.p = p;
	c.pos = len - n;
	c.end = len;
	c.ok = true;
	if (st & PMS_SAMPLE_TID) {
		s32(&c);
		s32(&c);
	}
	s64n(&c, !!(st & PMS_SAMPLE_TIME) + !!(st & PMS_SAMPLE_ID) +
			 !!(st & PMS_SAMPLE_STREAM_ID));
	if (st & PMS_SAMPLE_CPU) {
		s32(&c);
		s32(&c);
	}
	if (st & PMS_SAMPLE_IDENTIFIER)
		s64(&c);
	return len - n;
}

void pd_swap_record(unsigned char *p, size_t len, const struct pms_sample_layout *l)
{
	uint32_t type;
	uint16_t misc;
	struct sc c;
	size_t end = len;

	if (len < 8)
		return;
	sw32(p);
	sw16(p + 4);
	sw16(p + 6);
	memcpy(&type, p, 4);
	memcpy(&misc, p + 4, 2);
	c.p = p;
	c.pos = 8;
	c.ok = true;
	if (type == PMS_RECORD_SAMPLE) {
		c.end = len;
		if (l)
			swap_sample(&c, l);
		return;
	}
	if (type < PMS_RECORD_USER_TYPE_START && l && l->sample_id_all)
		end = swap_trailer(p, len, l);
	c.end = end;
	switch (type) {
	case PMS_RECORD_MMAP:
		s32(&c);
		s32(&c);
		s64n(&c, 3);
		break;
	case PMS_RECORD_MMAP2:
		s32(&c);
		s32(&c);
		s64n(&c, 3);
		if (misc & PMS_MISC_MMAP_BUILD_ID) {
			skip(&c, 24); /* u8 size, u8, u16, 20 id bytes */
		} else {
			s32(&c);
			s32(&c);
			s64n(&c, 2);
		}
		s32(&c);
		s32(&c);
		break;
	case PMS_RECORD_COMM:
	case PMS_RECORD_ITRACE_START:
	case PMS_RECORD_SWITCH_CPU_WIDE:
		s32(&c);
		s32(&c);
		break;
	case PMS_RECORD_FORK:
	case PMS_RECORD_EXIT:
		for (int i = 0; i < 4; i++)
			s32(&c);
		s64(&c);
		break;
	case PMS_RECORD_READ:
		s32(&c);
		s32(&c);
		s64n(&c, (c.end - c.pos) / 8);
		break;
	case PMS_RECORD_LOST:
	case PMS_RECORD_THROTTLE:
	case PMS_RECORD_UNTHROTTLE:
	case PMS_RECORD_AUX:
	case PMS_RECORD_LOST_SAMPLES:
	case PD_FINISHED_ROUND:
	case PD_ID_INDEX:
		s64n(&c, (c.end - c.pos) / 8);
		break;
	case PD_HEADER_ATTR: {
		/* The attr (its own size), then u64 ids. */
		uint32_t sz = 0;
		if (len >= 16) {
			memcpy(&sz, p + 12, 4);
			sz = pd_bswap32(sz);
			if (sz == 0)
				sz = PD_ATTR_VER0;
			if (sz <= len - 8) {
				pd_swap_attr(p + 8, sz);
				c.pos = 8 + sz;
				s64n(&c, (c.end - c.pos) / 8);
			}
		}
		break;
	}
	case PD_HEADER_FEATURE:
		s64(&c); /* the payload is read with a swapping cursor */
		break;
	case PD_HEADER_TRACING_DATA:
	case PD_HEADER_BUILD_ID:
		s32(&c);
		break;
	case PD_AUXTRACE:
		s64n(&c, 3);
		for (int i = 0; i < 4; i++)
			s32(&c);
		break;
	case PD_COMPRESSED2:
		s64(&c);
		break;
	default:
		break; /* bodies left as they are: bytes or unknown */
	}
}
