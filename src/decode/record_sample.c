/* PERF_RECORD_SAMPLE decode/encode.  Field order is the order
 * perf_output_sample() (kernel/events/core.c) writes; see
 * reference/kernel-abi-facts.md 1.6.  Note that the UAPI header comment
 * lists AUX before DATA_PAGE_SIZE, but the kernel writes AUX last (and
 * CGROUP, missing from that comment, after PHYS_ADDR). */
#include "decode/record_io.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int pms_rd_open(struct pms_rd *r, const void *rec, size_t len, uint32_t *type,
		uint16_t *misc, uint16_t *size)
{
	const unsigned char *p = (const unsigned char *)rec;

	if (!rec || len < 8)
		return pms_err(PMS_EPARSE,
			       "record header at byte offset 0 needs 8 bytes, have %zu", len);
	memcpy(type, p, 4);
	memcpy(misc, p + 4, 2);
	memcpy(size, p + 6, 2);
	if (*size < 8 || (*size & 7))
		return pms_err(PMS_EPARSE,
			       "record type %u: header.size %u (byte offset 6) is %s",
			       *type, *size,
			       *size < 8 ? "smaller than the 8-byte header"
					 : "not a multiple of 8");
	if (*size > len)
		return pms_err(PMS_EPARSE,
			       "record type %u: header.size %u (byte offset 6) is larger than "
			       "the %zu bytes available (truncated record)",
			       *type, *size, len);
	r->p = p;
	r->pos = 8;
	r->end = *size;
	r->type = *type;
	return 0;
}

static unsigned read_entry_words(uint64_t rf)
{
	return 1u + !!(rf & PMS_READ_ID) + !!(rf & PMS_READ_LOST);
}

/* read_format layout: include/uapi/linux/perf_event.h struct read_format;
 * reference/kernel-abi-facts.md 1.4. */
int pms_rd_read_format(struct pms_rd *r, uint64_t rf, struct pms_sample_read *out)
{
	int rc;

	if (rf & ~PMS_READ_KNOWN_MASK)
		return pms_err(PMS_ENOTSUP,
			       "%s: read_format 0x%llx has bits this decoder does not know "
			       "(known: 0x%llx)",
			       pms_rd_what(r), (unsigned long long)rf,
			       (unsigned long long)PMS_READ_KNOWN_MASK);
	memset(out, 0, sizeof(*out));
	out->read_format = rf;
	out->entry_words = read_entry_words(rf);
	if (rf & PMS_READ_GROUP) {
		if ((rc = pms_rd_u64(r, "read.nr", &out->nr)) < 0)
			return rc;
		if ((rf & PMS_READ_TOTAL_TIME_ENABLED) &&
		    (rc = pms_rd_u64(r, "read.time_enabled", &out->time_enabled)) < 0)
			return rc;
		if ((rf & PMS_READ_TOTAL_TIME_RUNNING) &&
		    (rc = pms_rd_u64(r, "read.time_running", &out->time_running)) < 0)
			return rc;
		return pms_rd_array(r, "read.values", out->nr, 8u * out->entry_words,
				    &out->entries);
	}
	out->nr = 1;
	if ((rc = pms_rd_u64(r, "read.value", &out->one.value)) < 0)
		return rc;
	if ((rf & PMS_READ_TOTAL_TIME_ENABLED) &&
	    (rc = pms_rd_u64(r, "read.time_enabled", &out->time_enabled)) < 0)
		return rc;
	if ((rf & PMS_READ_TOTAL_TIME_RUNNING) &&
	    (rc = pms_rd_u64(r, "read.time_running", &out->time_running)) < 0)
		return rc;
	if ((rf & PMS_READ_ID) && (rc = pms_rd_u64(r, "read.id", &out->one.id)) < 0)
		return rc;
	if ((rf & PMS_READ_LOST) && (rc = pms_rd_u64(r, "read.lost", &out->one.lost)) < 0)
		return rc;
	return 0;
}

int pms_wr_read_format(struct pms_wr *w, uint64_t rf, const struct pms_sample_read *in)
{
	if (rf & ~PMS_READ_KNOWN_MASK)
		return pms_err(PMS_ENOTSUP, "encode: read_format 0x%llx has unknown bits",
			       (unsigned long long)rf);
	if (rf & PMS_READ_GROUP) {
		if (in->nr && !in->entries)
			return pms_err(PMS_EINVAL,
				       "encode: read.nr is %llu but read.entries is NULL",
				       (unsigned long long)in->nr);
		pms_wr_u64(w, in->nr);
		if (rf & PMS_READ_TOTAL_TIME_ENABLED)
			pms_wr_u64(w, in->time_enabled);
		if (rf & PMS_READ_TOTAL_TIME_RUNNING)
			pms_wr_u64(w, in->time_running);
		pms_wr_array(w, in->entries, in->nr, 8u * read_entry_words(rf));
		return 0;
	}
	pms_wr_u64(w, in->one.value);
	if (rf & PMS_READ_TOTAL_TIME_ENABLED)
		pms_wr_u64(w, in->time_enabled);
	if (rf & PMS_READ_TOTAL_TIME_RUNNING)
		pms_wr_u64(w, in->time_running);
	if (rf & PMS_READ_ID)
		pms_wr_u64(w, in->one.id);
	if (rf & PMS_READ_LOST)
		pms_wr_u64(w, in->one.lost);
	return 0;
}

int pms_sample_read_entry(const struct pms_sample_read *r, uint64_t i,
			  struct pms_read_entry *out)
{
	memset(out, 0, sizeof(*out));
	if (i >= r->nr)
		return pms_err(PMS_ERANGE, "read entry %llu: the read has %llu entries",
			       (unsigned long long)i, (unsigned long long)r->nr);
	if (!r->entries) {
		*out = r->one;
		return 0;
	}
	const unsigned char *e = (const unsigned char *)r->entries + i * 8u * r->entry_words;
	size_t k = 0;
	out->value = pms_u64_at(e, k++);
	if (r->read_format & PMS_READ_ID)
		out->id = pms_u64_at(e, k++);
	if (r->read_format & PMS_READ_LOST)
		out->lost = pms_u64_at(e, k);
	return 0;
}

struct pms_branch pms_branch_at(const void *entries, size_t i)
{
	struct pms_branch b;
	const unsigned char *e = (const unsigned char *)entries + i * 24;
	uint64_t f;

	memset(&b, 0, sizeof(b));
	b.from = pms_u64_at(e, 0);
	b.to = pms_u64_at(e, 1);
	b.flags = f = pms_u64_at(e, 2);
	/* struct perf_branch_entry bit-fields, LSB first (little-endian
	 * bit-field order; kernel-abi-facts.md 1.6). */
	b.mispred = f & 1;
	b.predicted = (f >> 1) & 1;
	b.in_tx = (f >> 2) & 1;
	b.abort = (f >> 3) & 1;
	b.cycles = (uint16_t)((f >> 4) & 0xffff);
	b.type = (uint8_t)((f >> 20) & 0xf);
	b.spec = (uint8_t)((f >> 24) & 0x3);
	b.new_type = (uint8_t)((f >> 26) & 0xf);
	b.priv = (uint8_t)((f >> 30) & 0x7);
	return b;
}

int pms_sample_regs_get(const struct pms_sample_regs *r, unsigned regno, uint64_t *out)
{
	*out = 0;
	if (!r->abi || regno >= 64 || !(r->mask & (1ULL << regno)) || !r->regs)
		return pms_err(PMS_ENOENT, "register %u was not sampled (abi %llu, mask 0x%llx)",
			       regno, (unsigned long long)r->abi,
			       (unsigned long long)r->mask);
	/* Registers are stored lowest mask bit first. */
	unsigned idx = (unsigned)__builtin_popcountll(r->mask & ((1ULL << regno) - 1));
	*out = pms_u64_at(r->regs, idx);
	return 0;
}

static int rd_regs(struct pms_rd *r, const char *abi_field, const char *regs_field,
		   uint64_t mask, struct pms_sample_regs *out)
{
	int rc = pms_rd_u64(r, abi_field, &out->abi);
	if (rc < 0)
		return rc;
	out->mask = mask;
	if (!out->abi)
		return 0;
	out->nr = (uint32_t)__builtin_popcountll(mask);
	return pms_rd_array(r, regs_field, out->nr, 8, &out->regs);
}

static int check_layout(const struct pms_sample_layout *l, const char *what)
{
	if (l->sample_type & ~PMS_SAMPLE_KNOWN_MASK)
		return pms_err(PMS_ENOTSUP,
			       "%s: sample_type 0x%llx has bits this decoder does not know "
			       "(0x%llx)",
			       what, (unsigned long long)l->sample_type,
			       (unsigned long long)(l->sample_type & ~PMS_SAMPLE_KNOWN_MASK));
	return 0;
}

/* The fields of fixed size (8 bytes each; WEIGHT and WEIGHT_STRUCT share
 * one u64) and those of variable size. */
#define SAMPLE_FIXED8                                                                      \
	(PMS_SAMPLE_IDENTIFIER | PMS_SAMPLE_IP | PMS_SAMPLE_TID | PMS_SAMPLE_TIME |         \
	 PMS_SAMPLE_ADDR | PMS_SAMPLE_ID | PMS_SAMPLE_STREAM_ID | PMS_SAMPLE_CPU |           \
	 PMS_SAMPLE_PERIOD | PMS_SAMPLE_WEIGHT | PMS_SAMPLE_DATA_SRC |                      \
	 PMS_SAMPLE_TRANSACTION | PMS_SAMPLE_PHYS_ADDR | PMS_SAMPLE_CGROUP |                \
	 PMS_SAMPLE_DATA_PAGE_SIZE | PMS_SAMPLE_CODE_PAGE_SIZE)
#define SAMPLE_VARIABLE                                                                    \
	(PMS_SAMPLE_READ | PMS_SAMPLE_CALLCHAIN | PMS_SAMPLE_RAW | PMS_SAMPLE_BRANCH_STACK | \
	 PMS_SAMPLE_REGS_USER | PMS_SAMPLE_STACK_USER | PMS_SAMPLE_REGS_INTR | PMS_SAMPLE_AUX)

/* Set bits of v, inline (without -mpopcnt the builtin is a libgcc call
 * on every record). */
static inline unsigned bits_set(uint64_t v)
{
	v = v - ((v >> 1) & 0x5555555555555555ULL);
	v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned)((v * 0x0101010101010101ULL) >> 56);
}

/* Bytes of a body of only fixed-size fields; SIZE_MAX when st has a
 * field of variable size. */
static size_t fixed_body_size(uint64_t st)
{
	if (st & SAMPLE_VARIABLE)
		return SIZE_MAX;
	return 8u * ((size_t)bits_set(st & SAMPLE_FIXED8) +
		     ((st & PMS_SAMPLE_WEIGHT_TYPE) == PMS_SAMPLE_WEIGHT_STRUCT));
}

void pms_sample_fixed_layout(const struct pms_sample_layout *l, struct pms_sample_fixed *out)
{
	uint64_t st = l->sample_type;
	size_t n = fixed_body_size(st);
	memset(out, 0, sizeof(*out));
	if (n == SIZE_MAX || (st & ~PMS_SAMPLE_KNOWN_MASK) || !n)
		return;
	/* the body's words in the order sample_body reads them (pid/tid and
	 * cpu/res: two u32s side by side in struct pms_sample) */
	static const struct {
		uint64_t bit;
		uint16_t dst;
	} order[] = {
		{ PMS_SAMPLE_IDENTIFIER, offsetof(struct pms_sample, id) },
		{ PMS_SAMPLE_IP, offsetof(struct pms_sample, ip) },
		{ PMS_SAMPLE_TID, offsetof(struct pms_sample, pid) },
		{ PMS_SAMPLE_TIME, offsetof(struct pms_sample, time) },
		{ PMS_SAMPLE_ADDR, offsetof(struct pms_sample, addr) },
		{ PMS_SAMPLE_ID, offsetof(struct pms_sample, id) },
		{ PMS_SAMPLE_STREAM_ID, offsetof(struct pms_sample, stream_id) },
		{ PMS_SAMPLE_CPU, offsetof(struct pms_sample, cpu) },
		{ PMS_SAMPLE_PERIOD, offsetof(struct pms_sample, period) },
		{ PMS_SAMPLE_WEIGHT_TYPE, offsetof(struct pms_sample, weight) },
		{ PMS_SAMPLE_DATA_SRC, offsetof(struct pms_sample, data_src) },
		{ PMS_SAMPLE_TRANSACTION, offsetof(struct pms_sample, transaction) },
		{ PMS_SAMPLE_PHYS_ADDR, offsetof(struct pms_sample, phys_addr) },
		{ PMS_SAMPLE_CGROUP, offsetof(struct pms_sample, cgroup) },
		{ PMS_SAMPLE_DATA_PAGE_SIZE, offsetof(struct pms_sample, data_page_size) },
		{ PMS_SAMPLE_CODE_PAGE_SIZE, offsetof(struct pms_sample, code_page_size) },
	};
	_Static_assert(offsetof(struct pms_sample, tid) == offsetof(struct pms_sample, pid) + 4 &&
			       offsetof(struct pms_sample, cpu_res) ==
				       offsetof(struct pms_sample, cpu) + 4,
		       "pid/tid and cpu/cpu_res are read as one word each");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(st & order[i].bit))
			continue;
		if (order[i].bit == PMS_SAMPLE_TIME)
			out->time_off = 8 + 8u * out->n;
		if (order[i].bit == PMS_SAMPLE_WEIGHT_TYPE)
			out->weight = true;
		out->dst[out->n++] = order[i].dst;
	}
	if (8u * out->n != n) { /* not reached: the table has every fixed field */
		memset(out, 0, sizeof(*out));
		return;
	}
	out->sample_type = st;
	out->body = n;
}

void pms_sample_fixed_decode(const struct pms_sample_fixed *f, const void *rec,
			     struct pms_record *out)
{
	pms_rd_clear(out, 0, sizeof(*out));
	pms_sample_fixed_refill(f, rec, out);
}

void pms_sample_fixed_refill(const struct pms_sample_fixed *f, const void *rec,
			     struct pms_record *out)
{
	const unsigned char *q = (const unsigned char *)rec;
	struct pms_sample *s = &out->sample;
	uint16_t misc, size;
	memcpy(&misc, q + 4, 2);
	memcpy(&size, q + 6, 2);
	out->type = PMS_RECORD_SAMPLE;
	out->misc = misc;
	out->size = size;
	s->misc = misc;
	s->cpumode = (uint8_t)(misc & PMS_MISC_CPUMODE_MASK);
	s->exact_ip = (misc & PMS_MISC_EXACT_IP) != 0;
	q += 8;
	for (unsigned i = 0; i < f->n; i++, q += 8)
		memcpy((unsigned char *)s + f->dst[i], q, 8);
	if (f->weight) {
		s->weight_var1_dw = (uint32_t)s->weight;
		s->weight_var2_w = (uint16_t)(s->weight >> 32);
		s->weight_var3_w = (uint16_t)(s->weight >> 48);
	}
	s->present = f->sample_type;
}

/* One field read: checked against the record's end, or not when the
 * caller has checked the whole body's size (trusted). */
static inline int body_u64(struct pms_rd *r, bool trusted, const unsigned char **q,
			   const char *field, uint64_t *v)
{
	if (trusted) {
		memcpy(v, *q, 8);
		*q += 8;
		return 0;
	}
	return pms_rd_u64(r, field, v);
}

static inline int body_u32x2(struct pms_rd *r, bool trusted, const unsigned char **q,
			     const char *field, uint32_t *a, uint32_t *b)
{
	if (trusted) {
		memcpy(a, *q, 4);
		memcpy(b, *q + 4, 4);
		*q += 8;
		return 0;
	}
	return pms_rd_u32x2(r, field, a, b);
}

/* Decode the body of a sample; r is positioned after the header.  One
 * field order for both callers: trusted (a body of only fixed-size fields
 * whose size the record has) reads without a bound check a field, the
 * rest checks each. */
static inline __attribute__((always_inline)) int
sample_body(const struct pms_sample_layout *l, struct pms_rd *r, struct pms_sample *s, bool trusted)
{
	uint64_t st = l->sample_type;
	const unsigned char *q = r->p + r->pos; /* trusted: the cursor */
	int rc = 0;

#define U64(bit, field, dst)                                                      \
	if ((st & (bit)) && (rc = body_u64(r, trusted, &q, field, dst)) < 0)           \
		return rc

	U64(PMS_SAMPLE_IDENTIFIER, "identifier", &s->id);
	U64(PMS_SAMPLE_IP, "ip", &s->ip);
	if ((st & PMS_SAMPLE_TID) && (rc = body_u32x2(r, trusted, &q, "pid/tid", &s->pid, &s->tid)) < 0)
		return rc;
	U64(PMS_SAMPLE_TIME, "time", &s->time);
	U64(PMS_SAMPLE_ADDR, "addr", &s->addr);
	U64(PMS_SAMPLE_ID, "id", &s->id);
	U64(PMS_SAMPLE_STREAM_ID, "stream_id", &s->stream_id);
	if ((st & PMS_SAMPLE_CPU) &&
	    (rc = body_u32x2(r, trusted, &q, "cpu/res", &s->cpu, &s->cpu_res)) < 0)
		return rc;
	U64(PMS_SAMPLE_PERIOD, "period", &s->period);
	if ((st & PMS_SAMPLE_READ) && (rc = pms_rd_read_format(r, l->read_format, &s->read)) < 0)
		return rc;
	if (st & PMS_SAMPLE_CALLCHAIN) {
		if ((rc = pms_rd_u64(r, "callchain.nr", &s->callchain_nr)) < 0 ||
		    (rc = pms_rd_array(r, "callchain.ips", s->callchain_nr, 8, &s->callchain)) < 0)
			return rc;
	}
	if (st & PMS_SAMPLE_RAW) {
		/* u32 size then size bytes; the kernel pads so 4 + size is a
		 * multiple of 8 but we do not rely on it. */
		if ((rc = pms_rd_u32(r, "raw.size", &s->raw_size)) < 0 ||
		    (rc = pms_rd_take(r, "raw.data", s->raw_size, &s->raw)) < 0)
			return rc;
	}
	if (st & PMS_SAMPLE_BRANCH_STACK) {
		if ((rc = pms_rd_u64(r, "branch_stack.nr", &s->branch.nr)) < 0)
			return rc;
		if ((l->branch_sample_type & PMS_BRANCH_HW_INDEX) &&
		    (rc = pms_rd_u64(r, "branch_stack.hw_idx", &s->branch.hw_idx)) < 0)
			return rc;
		if ((rc = pms_rd_array(r, "branch_stack.entries", s->branch.nr, 24,
				       &s->branch.entries)) < 0)
			return rc;
		if ((l->branch_sample_type & PMS_BRANCH_COUNTERS) &&
		    (rc = pms_rd_array(r, "branch_stack.counters", s->branch.nr, 8,
				       &s->branch.counters)) < 0)
			return rc;
	}
	if ((st & PMS_SAMPLE_REGS_USER) &&
	    (rc = rd_regs(r, "regs_user.abi", "regs_user.regs", l->sample_regs_user,
			  &s->regs_user)) < 0)
		return rc;
	if (st & PMS_SAMPLE_STACK_USER) {
		if ((rc = pms_rd_u64(r, "stack_user.size", &s->stack_size)) < 0)
			return rc;
		if (s->stack_size) {
			size_t at = r->pos;
			if ((rc = pms_rd_take(r, "stack_user.data", s->stack_size,
					      &s->stack_data)) < 0 ||
			    (rc = pms_rd_u64(r, "stack_user.dyn_size", &s->stack_dyn_size)) < 0)
				return rc;
			if (s->stack_dyn_size > s->stack_size)
				return pms_err(PMS_EPARSE,
					       "%s: field stack_user.dyn_size at byte offset %zu: "
					       "%llu is larger than the dump size %llu",
					       pms_rd_what(r), at + (size_t)s->stack_size,
					       (unsigned long long)s->stack_dyn_size,
					       (unsigned long long)s->stack_size);
		}
	}
	if (st & PMS_SAMPLE_WEIGHT_TYPE) {
		if ((rc = body_u64(r, trusted, &q, "weight", &s->weight)) < 0)
			return rc;
		/* union perf_sample_weight: var1_dw is the low 32 bits of the
		 * u64, var2_w the next 16, var3_w the top 16, in either byte
		 * order (the BE struct lists them in reverse). */
		s->weight_var1_dw = (uint32_t)s->weight;
		s->weight_var2_w = (uint16_t)(s->weight >> 32);
		s->weight_var3_w = (uint16_t)(s->weight >> 48);
	}
	U64(PMS_SAMPLE_DATA_SRC, "data_src", &s->data_src);
	U64(PMS_SAMPLE_TRANSACTION, "transaction", &s->transaction);
	if ((st & PMS_SAMPLE_REGS_INTR) &&
	    (rc = rd_regs(r, "regs_intr.abi", "regs_intr.regs", l->sample_regs_intr,
			  &s->regs_intr)) < 0)
		return rc;
	U64(PMS_SAMPLE_PHYS_ADDR, "phys_addr", &s->phys_addr);
	U64(PMS_SAMPLE_CGROUP, "cgroup", &s->cgroup);
	U64(PMS_SAMPLE_DATA_PAGE_SIZE, "data_page_size", &s->data_page_size);
	U64(PMS_SAMPLE_CODE_PAGE_SIZE, "code_page_size", &s->code_page_size);
	if (st & PMS_SAMPLE_AUX) {
		if ((rc = pms_rd_u64(r, "aux.size", &s->aux_size)) < 0 ||
		    (rc = pms_rd_take(r, "aux.data", s->aux_size, &s->aux)) < 0)
			return rc;
	}
#undef U64
	/* trusted: the fields went through q, in a register (r->pos is
	 * memory that every store to *s might change) */
	if (trusted)
		r->pos = (size_t)(q - r->p);
	/* The kernel sizes a sample exactly; anything beyond the 8-byte
	 * padding means the layout does not match the record. */
	if (!trusted && r->end - r->pos >= 8)
		return pms_err(PMS_EPARSE,
			       "%s: %zu bytes left after the last field at byte offset %zu "
			       "(the record was written with a different sample_type/"
			       "read_format/branch_sample_type/regs mask than 0x%llx/0x%llx/"
			       "0x%llx/...)",
			       pms_rd_what(r), r->end - r->pos, r->pos,
			       (unsigned long long)l->sample_type,
			       (unsigned long long)l->read_format,
			       (unsigned long long)l->branch_sample_type);
	s->present = st;
	return 0;
}

void *(*const volatile pms_rd_clear)(void *, int, size_t) = memset;

int pms_sample_parse_rd(const struct pms_sample_layout *l, struct pms_rd *r, uint16_t misc,
			struct pms_sample *out)
{
	int rc;

	pms_rd_clear(out, 0, sizeof(*out));
	if ((l->sample_type & ~PMS_SAMPLE_KNOWN_MASK) && (rc = check_layout(l, pms_rd_what(r))) < 0)
		return rc;
	out->misc = misc;
	out->cpumode = (uint8_t)(misc & PMS_MISC_CPUMODE_MASK);
	out->exact_ip = (misc & PMS_MISC_EXACT_IP) != 0;
	size_t need = fixed_body_size(l->sample_type), left = r->end - r->pos;
	if (need != SIZE_MAX && left >= need && left - need < 8)
		rc = sample_body(l, r, out, true);
	else
		rc = sample_body(l, r, out, false);
	if (rc < 0) {
		memset(out, 0, sizeof(*out));
		out->misc = misc;
	}
	return rc;
}

int pms_sample_parse(const struct pms_sample_layout *l, const void *rec, size_t len,
		     struct pms_sample *out)
{
	struct pms_rd r;
	uint32_t type;
	uint16_t misc, size;
	int rc;

	if ((rc = pms_rd_open(&r, rec, len, &type, &misc, &size)) < 0) {
		memset(out, 0, sizeof(*out));
		return rc;
	}
	if (type != PMS_RECORD_SAMPLE) {
		memset(out, 0, sizeof(*out));
		return pms_err(PMS_EINVAL, "pms_sample_parse: record type %u (%s) is not a SAMPLE",
			       type, pms_record_type_name(type));
	}
	return pms_sample_parse_rd(l, &r, misc, out);
}

static int need_ptr(const void *p, uint64_t n, const char *field)
{
	if (n && !p)
		return pms_err(PMS_EINVAL, "encode: %s is NULL but its count/size is %llu",
			       field, (unsigned long long)n);
	return 0;
}

static int wr_regs(struct pms_wr *w, const struct pms_sample_regs *in, uint64_t mask,
		   const char *field)
{
	pms_wr_u64(w, in->abi);
	if (!in->abi)
		return 0;
	uint64_t n = (uint64_t)__builtin_popcountll(mask);
	int rc = need_ptr(in->regs, n, field);
	if (rc < 0)
		return rc;
	pms_wr_array(w, in->regs, n, 8);
	return 0;
}

static int sample_write(const struct pms_sample_layout *l, const struct pms_sample *s,
			struct pms_wr *w)
{
	uint64_t st = l->sample_type;
	int rc;

	pms_wr_header(w, PMS_RECORD_SAMPLE, s->misc);
	if (st & PMS_SAMPLE_IDENTIFIER)
		pms_wr_u64(w, s->id);
	if (st & PMS_SAMPLE_IP)
		pms_wr_u64(w, s->ip);
	if (st & PMS_SAMPLE_TID) {
		pms_wr_u32(w, s->pid);
		pms_wr_u32(w, s->tid);
	}
	if (st & PMS_SAMPLE_TIME)
		pms_wr_u64(w, s->time);
	if (st & PMS_SAMPLE_ADDR)
		pms_wr_u64(w, s->addr);
	if (st & PMS_SAMPLE_ID)
		pms_wr_u64(w, s->id);
	if (st & PMS_SAMPLE_STREAM_ID)
		pms_wr_u64(w, s->stream_id);
	if (st & PMS_SAMPLE_CPU) {
		pms_wr_u32(w, s->cpu);
		pms_wr_u32(w, s->cpu_res);
	}
	if (st & PMS_SAMPLE_PERIOD)
		pms_wr_u64(w, s->period);
	if ((st & PMS_SAMPLE_READ) && (rc = pms_wr_read_format(w, l->read_format, &s->read)) < 0)
		return rc;
	if (st & PMS_SAMPLE_CALLCHAIN) {
		if ((rc = need_ptr(s->callchain, s->callchain_nr, "callchain")) < 0)
			return rc;
		pms_wr_u64(w, s->callchain_nr);
		pms_wr_array(w, s->callchain, s->callchain_nr, 8);
	}
	if (st & PMS_SAMPLE_RAW) {
		if ((rc = need_ptr(s->raw, s->raw_size, "raw")) < 0)
			return rc;
		pms_wr_u32(w, s->raw_size);
		pms_wr_bytes(w, s->raw, s->raw_size);
	}
	if (st & PMS_SAMPLE_BRANCH_STACK) {
		if ((rc = need_ptr(s->branch.entries, s->branch.nr, "branch.entries")) < 0)
			return rc;
		pms_wr_u64(w, s->branch.nr);
		if (l->branch_sample_type & PMS_BRANCH_HW_INDEX)
			pms_wr_u64(w, s->branch.hw_idx);
		pms_wr_array(w, s->branch.entries, s->branch.nr, 24);
		if (l->branch_sample_type & PMS_BRANCH_COUNTERS) {
			if ((rc = need_ptr(s->branch.counters, s->branch.nr,
					   "branch.counters")) < 0)
				return rc;
			pms_wr_array(w, s->branch.counters, s->branch.nr, 8);
		}
	}
	if ((st & PMS_SAMPLE_REGS_USER) &&
	    (rc = wr_regs(w, &s->regs_user, l->sample_regs_user, "regs_user.regs")) < 0)
		return rc;
	if (st & PMS_SAMPLE_STACK_USER) {
		pms_wr_u64(w, s->stack_size);
		if (s->stack_size) {
			if ((rc = need_ptr(s->stack_data, s->stack_size, "stack_data")) < 0)
				return rc;
			pms_wr_bytes(w, s->stack_data, s->stack_size);
			pms_wr_u64(w, s->stack_dyn_size);
		}
	}
	if (st & PMS_SAMPLE_WEIGHT_STRUCT)
		pms_wr_u64(w, (uint64_t)s->weight_var1_dw | (uint64_t)s->weight_var2_w << 32 |
				      (uint64_t)s->weight_var3_w << 48);
	else if (st & PMS_SAMPLE_WEIGHT)
		pms_wr_u64(w, s->weight);
	if (st & PMS_SAMPLE_DATA_SRC)
		pms_wr_u64(w, s->data_src);
	if (st & PMS_SAMPLE_TRANSACTION)
		pms_wr_u64(w, s->transaction);
	if ((st & PMS_SAMPLE_REGS_INTR) &&
	    (rc = wr_regs(w, &s->regs_intr, l->sample_regs_intr, "regs_intr.regs")) < 0)
		return rc;
	if (st & PMS_SAMPLE_PHYS_ADDR)
		pms_wr_u64(w, s->phys_addr);
	if (st & PMS_SAMPLE_CGROUP)
		pms_wr_u64(w, s->cgroup);
	if (st & PMS_SAMPLE_DATA_PAGE_SIZE)
		pms_wr_u64(w, s->data_page_size);
	if (st & PMS_SAMPLE_CODE_PAGE_SIZE)
		pms_wr_u64(w, s->code_page_size);
	if (st & PMS_SAMPLE_AUX) {
		if ((rc = need_ptr(s->aux, s->aux_size, "aux")) < 0)
			return rc;
		pms_wr_u64(w, s->aux_size);
		pms_wr_bytes(w, s->aux, s->aux_size);
	}
	pms_wr_finish(w);
	return 0;
}

/* Two passes: measure, check room, write. */
int pms_sample_encode(const struct pms_sample_layout *l, const struct pms_sample *s,
		      void *buf, size_t cap, size_t *len)
{
	struct pms_wr w = {NULL, 0, 0};
	int rc;

	*len = 0;
	if ((rc = check_layout(l, "encode SAMPLE")) < 0)
		return rc;
	if ((rc = sample_write(l, s, &w)) < 0)
		return rc;
	if (w.too_big || w.pos > PMS_RECORD_MAX_SIZE) {
		*len = w.pos;
		return pms_err(PMS_ERANGE,
			       "encode SAMPLE: the record would exceed the %u-byte limit of "
			       "header.size (shorten callchain/raw/stack/aux)",
			       PMS_RECORD_MAX_SIZE);
	}
	*len = w.pos;
	if (w.pos > cap || !buf)
		return pms_err(PMS_ERANGE, "encode SAMPLE: needs %zu bytes, buffer has %zu",
			       w.pos, cap);
	w.p = (unsigned char *)buf;
	w.pos = 0;
	return sample_write(l, s, &w);
}
