/* Record decode/encode: round trips for every sample_type bit alone, all
 * together and random subsets; canary-filled buffers; every truncation point;
 * overflowing counts; hand-written golden records; non-sample records with
 * and without the sample_id trailer. */
#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/record.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CANARY 0xA5
#define BUFCAP 70000

static unsigned char big[BUFCAP];

/* Data the borrowed arrays of the reference sample point at. */
static uint64_t chain[5] = {(uint64_t)-128, 0xffffffff81000010ULL, 0xffffffff81000020ULL,
			    (uint64_t)-512, 0x401234};
static unsigned char rawb[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static uint64_t branches[3 * 3] = {0x1000, 0x2000, 0x15, 0x3000, 0x4000, 0x7,
				   0x5000, 0x6000, 0xdeadbeef};
static uint64_t bcounters[3] = {11, 22, 33};
static uint64_t uregs[64], iregs[64];
static unsigned char stackb[32];
static unsigned char auxb[16];
static uint64_t group[4 * 3];

/* A sample with every field set to a distinct value. */
static void full_sample(const struct pms_sample_layout *l, struct pms_sample *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < 64; i++) {
		uregs[i] = 0x1000 + (uint64_t)i;
		iregs[i] = 0x2000 + (uint64_t)i;
	}
	for (size_t i = 0; i < sizeof(stackb); i++)
		stackb[i] = (unsigned char)(0x40 + i);
	for (size_t i = 0; i < sizeof(auxb); i++)
		auxb[i] = (unsigned char)(0x80 + i);
	for (size_t i = 0; i < sizeof(group) / 8; i++)
		group[i] = 0x300 + i;
	s->misc = PMS_MISC_USER | PMS_MISC_EXACT_IP;
	s->id = 0x1d;
	s->ip = 0x401000;
	s->pid = 100;
	s->tid = 101;
	s->time = 123456789;
	s->addr = 0x7fff0000;
	s->stream_id = 0x5d;
	s->cpu = 3;
	s->cpu_res = 0;
	s->period = 10007;
	s->read.time_enabled = 500;
	s->read.time_running = 400;
	if (l->read_format & PMS_READ_GROUP) {
		s->read.nr = 3;
		s->read.entries = group;
	} else {
		s->read.nr = 1;
		s->read.one.value = 77;
		s->read.one.id = (l->read_format & PMS_READ_ID) ? 78 : 0;
		s->read.one.lost = (l->read_format & PMS_READ_LOST) ? 79 : 0;
	}
	s->callchain_nr = 5;
	s->callchain = chain;
	s->raw_size = sizeof(rawb);
	s->raw = rawb;
	s->branch.nr = 3;
	s->branch.hw_idx = (l->branch_sample_type & PMS_BRANCH_HW_INDEX) ? 2 : 0;
	s->branch.entries = branches;
	s->branch.counters = (l->branch_sample_type & PMS_BRANCH_COUNTERS) ? bcounters : NULL;
	s->regs_user.abi = 2;
	s->regs_user.regs = uregs;
	s->stack_size = sizeof(stackb);
	s->stack_data = stackb;
	s->stack_dyn_size = 20;
	if (l->sample_type & PMS_SAMPLE_WEIGHT_STRUCT) {
		s->weight_var1_dw = 0x11223344;
		s->weight_var2_w = 0x5566;
		s->weight_var3_w = 0x7788;
		s->weight = 0x7788556611223344ULL;
	} else {
		s->weight = 0x99;
		s->weight_var1_dw = 0x99;
	}
	s->data_src = 0x29080142ULL;
	s->transaction = 0x4;
	s->regs_intr.abi = 2;
	s->regs_intr.regs = iregs;
	s->phys_addr = 0x12345000;
	s->cgroup = 0xc9;
	s->data_page_size = 4096;
	s->code_page_size = 2 << 20;
	s->aux_size = sizeof(auxb);
	s->aux = auxb;
}

static int mem_eq(const void *a, const void *b, size_t n)
{
	if (n == 0)
		return 1;
	if (!a || !b)
		return 0;
	return memcmp(a, b, n) == 0;
}

/* Compare the fields the layout says are present; returns failures. */
static int compare(const struct pms_sample_layout *l, const struct pms_sample *a,
		   const struct pms_sample *b, const char *ctx)
{
	uint64_t st = l->sample_type;
	int before = pms_t_failures;

#define EQ(bit, f)                                                                \
	if (st & (bit))                                                           \
	CHECK_MSG(a->f == b->f, "%s: " #f " 0x%llx != 0x%llx", ctx,              \
		  (unsigned long long)a->f, (unsigned long long)b->f)
	CHECK_MSG(b->present == st, "%s: present 0x%llx", ctx, (unsigned long long)b->present);
	CHECK_EQ_INT(a->misc, b->misc);
	EQ(PMS_SAMPLE_ID | PMS_SAMPLE_IDENTIFIER, id);
	EQ(PMS_SAMPLE_IP, ip);
	EQ(PMS_SAMPLE_TID, pid);
	EQ(PMS_SAMPLE_TID, tid);
	EQ(PMS_SAMPLE_TIME, time);
	EQ(PMS_SAMPLE_ADDR, addr);
	EQ(PMS_SAMPLE_STREAM_ID, stream_id);
	EQ(PMS_SAMPLE_CPU, cpu);
	EQ(PMS_SAMPLE_CPU, cpu_res);
	EQ(PMS_SAMPLE_PERIOD, period);
	if (st & PMS_SAMPLE_READ) {
		uint64_t rf = l->read_format;
		CHECK_EQ_U64(a->read.nr, b->read.nr);
		if (rf & PMS_READ_TOTAL_TIME_ENABLED)
			CHECK_EQ_U64(a->read.time_enabled, b->read.time_enabled);
		if (rf & PMS_READ_TOTAL_TIME_RUNNING)
			CHECK_EQ_U64(a->read.time_running, b->read.time_running);
		for (uint64_t i = 0; i < b->read.nr && i < a->read.nr; i++) {
			struct pms_read_entry eb;
			CHECK_OK(pms_sample_read_entry(&b->read, i, &eb));
			if (rf & PMS_READ_GROUP) {
				unsigned w = 1 + !!(rf & PMS_READ_ID) + !!(rf & PMS_READ_LOST);
				const uint64_t *e = (const uint64_t *)a->read.entries + i * w;
				CHECK_EQ_U64(eb.value, e[0]);
				if (rf & PMS_READ_ID)
					CHECK_EQ_U64(eb.id, e[1]);
				if (rf & PMS_READ_LOST)
					CHECK_EQ_U64(eb.lost, e[w - 1]);
			} else {
				CHECK_EQ_U64(eb.value, a->read.one.value);
				CHECK_EQ_U64(eb.id, a->read.one.id);
				CHECK_EQ_U64(eb.lost, a->read.one.lost);
			}
		}
	}
	if (st & PMS_SAMPLE_CALLCHAIN) {
		CHECK_EQ_U64(a->callchain_nr, b->callchain_nr);
		CHECK(mem_eq(a->callchain, b->callchain, a->callchain_nr * 8));
	}
	if (st & PMS_SAMPLE_RAW) {
		CHECK_EQ_U64(a->raw_size, b->raw_size);
		CHECK(mem_eq(a->raw, b->raw, a->raw_size));
	}
	if (st & PMS_SAMPLE_BRANCH_STACK) {
		CHECK_EQ_U64(a->branch.nr, b->branch.nr);
		if (l->branch_sample_type & PMS_BRANCH_HW_INDEX)
			CHECK_EQ_U64(a->branch.hw_idx, b->branch.hw_idx);
		CHECK(mem_eq(a->branch.entries, b->branch.entries, a->branch.nr * 24));
		if (l->branch_sample_type & PMS_BRANCH_COUNTERS)
			CHECK(mem_eq(a->branch.counters, b->branch.counters, a->branch.nr * 8));
		else
			CHECK(b->branch.counters == NULL);
	}
	if (st & PMS_SAMPLE_REGS_USER) {
		CHECK_EQ_U64(a->regs_user.abi, b->regs_user.abi);
		CHECK_EQ_U64(b->regs_user.mask, l->sample_regs_user);
		CHECK_EQ_INT(b->regs_user.nr,
			     a->regs_user.abi ? __builtin_popcountll(l->sample_regs_user) : 0);
		CHECK(mem_eq(a->regs_user.regs, b->regs_user.regs, b->regs_user.nr * 8u));
	}
	if (st & PMS_SAMPLE_STACK_USER) {
		CHECK_EQ_U64(a->stack_size, b->stack_size);
		CHECK(mem_eq(a->stack_data, b->stack_data, a->stack_size));
		CHECK_EQ_U64(a->stack_dyn_size, b->stack_dyn_size);
	}
	EQ(PMS_SAMPLE_WEIGHT_TYPE, weight);
	EQ(PMS_SAMPLE_WEIGHT_TYPE, weight_var1_dw);
	EQ(PMS_SAMPLE_WEIGHT_STRUCT, weight_var2_w);
	EQ(PMS_SAMPLE_WEIGHT_STRUCT, weight_var3_w);
	EQ(PMS_SAMPLE_DATA_SRC, data_src);
	EQ(PMS_SAMPLE_TRANSACTION, transaction);
	if (st & PMS_SAMPLE_REGS_INTR) {
		CHECK_EQ_U64(a->regs_intr.abi, b->regs_intr.abi);
		CHECK_EQ_INT(b->regs_intr.nr,
			     a->regs_intr.abi ? __builtin_popcountll(l->sample_regs_intr) : 0);
		CHECK(mem_eq(a->regs_intr.regs, b->regs_intr.regs, b->regs_intr.nr * 8u));
	}
	EQ(PMS_SAMPLE_PHYS_ADDR, phys_addr);
	EQ(PMS_SAMPLE_CGROUP, cgroup);
	EQ(PMS_SAMPLE_DATA_PAGE_SIZE, data_page_size);
	EQ(PMS_SAMPLE_CODE_PAGE_SIZE, code_page_size);
	if (st & PMS_SAMPLE_AUX) {
		CHECK_EQ_U64(a->aux_size, b->aux_size);
		CHECK(mem_eq(a->aux, b->aux, a->aux_size));
	}
#undef EQ
	if (pms_t_failures != before)
		fprintf(stderr, "  ^ in %s (sample_type 0x%llx read_format 0x%llx branch 0x%llx)\n",
			ctx, (unsigned long long)st, (unsigned long long)l->read_format,
			(unsigned long long)l->branch_sample_type);
	return pms_t_failures - before;
}

/* Encode into a canary-filled buffer, check nothing past len changed, parse
 * from an exactly-len malloc'd copy (ASan catches over-reads), compare, and
 * check that a buffer one byte short is refused without writing. */
static void roundtrip(const struct pms_sample_layout *l, const struct pms_sample *s,
		      const char *ctx)
{
	size_t len = 0;
	memset(big, CANARY, sizeof(big));
	int rc = pms_sample_encode(l, s, big, BUFCAP, &len);
	CHECK_MSG(rc == 0, "%s: encode %d: %s", ctx, rc, pms_error_last());
	if (rc)
		return;
	CHECK_MSG(len % 8 == 0 && len >= 8, "%s: len %zu", ctx, len);
	uint16_t hsize;
	memcpy(&hsize, big + 6, 2);
	CHECK_EQ_INT(hsize, len);
	int canary_ok = 1;
	for (size_t i = len; i < BUFCAP; i++)
		if (big[i] != CANARY) {
			canary_ok = 0;
			break;
		}
	CHECK_MSG(canary_ok, "%s: encoder wrote past len %zu", ctx, len);

	unsigned char *copy = malloc(len);
	memcpy(copy, big, len);
	struct pms_sample out;
	rc = pms_sample_parse(l, copy, len, &out);
	CHECK_MSG(rc == 0, "%s: parse %d: %s", ctx, rc, pms_error_last());
	if (rc == 0)
		compare(l, s, &out, ctx);

	/* Re-encoding what was parsed gives the same bytes. */
	if (rc == 0) {
		unsigned char *again = malloc(len);
		size_t len2 = 0;
		CHECK_OK(pms_sample_encode(l, &out, again, len, &len2));
		CHECK_EQ_INT(len2, len);
		CHECK_MSG(memcmp(again, copy, len) == 0, "%s: re-encode differs", ctx);
		free(again);
	}
	free(copy);

	/* One byte short: PMS_ERANGE, *len says what is needed, nothing written. */
	memset(big, CANARY, sizeof(big));
	size_t need = 0;
	CHECK_EQ_INT(pms_sample_encode(l, s, big, len - 1, &need), PMS_ERANGE);
	CHECK_EQ_INT(need, len);
	CHECK(big[0] == CANARY && big[len - 1] == CANARY);
}

static void layout_init(struct pms_sample_layout *l, uint64_t st)
{
	memset(l, 0, sizeof(*l));
	l->sample_type = st;
	l->sample_regs_user = 0xff0fULL;        /* 12 registers */
	l->sample_regs_intr = 0x8000000000000003ULL; /* 3 registers */
}

PMS_TEST(every_bit_alone)
{
	struct pms_sample_layout l;
	struct pms_sample s;
	char ctx[128];

	for (int bit = 0; bit < 25; bit++) {
		layout_init(&l, 1ULL << bit);
		if (l.sample_type == PMS_SAMPLE_READ) {
			for (uint64_t rf = 0; rf <= PMS_READ_KNOWN_MASK; rf++) {
				l.read_format = rf;
				full_sample(&l, &s);
				snprintf(ctx, sizeof(ctx), "READ read_format 0x%llx",
					 (unsigned long long)rf);
				roundtrip(&l, &s, ctx);
			}
			continue;
		}
		if (l.sample_type == PMS_SAMPLE_BRANCH_STACK) {
			for (int b = 0; b < 4; b++) {
				l.branch_sample_type = ((b & 1) ? PMS_BRANCH_HW_INDEX : 0) |
						       ((b & 2) ? PMS_BRANCH_COUNTERS : 0);
				full_sample(&l, &s);
				snprintf(ctx, sizeof(ctx), "BRANCH_STACK 0x%llx",
					 (unsigned long long)l.branch_sample_type);
				roundtrip(&l, &s, ctx);
			}
			continue;
		}
		full_sample(&l, &s);
		snprintf(ctx, sizeof(ctx), "bit %d alone", bit);
		roundtrip(&l, &s, ctx);
	}
}

PMS_TEST(all_bits_together)
{
	struct pms_sample_layout l;
	struct pms_sample s;

	/* WEIGHT and WEIGHT_STRUCT are exclusive for the kernel
	 * (perf_event_open refuses both); test each with everything else. */
	uint64_t all = PMS_SAMPLE_KNOWN_MASK;
	uint64_t variants[2] = {all & ~PMS_SAMPLE_WEIGHT, all & ~PMS_SAMPLE_WEIGHT_STRUCT};
	for (int v = 0; v < 2; v++)
		for (uint64_t rf = 0; rf <= PMS_READ_KNOWN_MASK; rf++) {
			layout_init(&l, variants[v]);
			l.read_format = rf;
			l.branch_sample_type = PMS_BRANCH_HW_INDEX | PMS_BRANCH_COUNTERS;
			full_sample(&l, &s);
			roundtrip(&l, &s, "all bits");
		}
	/* Empty arrays and abi 0 registers too. */
	layout_init(&l, variants[0]);
	l.read_format = PMS_READ_GROUP | PMS_READ_ID;
	full_sample(&l, &s);
	s.read.nr = 0;
	s.callchain_nr = 0;
	s.raw_size = 4;
	s.branch.nr = 0;
	s.regs_user.abi = 0;
	s.regs_intr.abi = 0;
	s.stack_size = 0;
	s.stack_dyn_size = 0;
	s.aux_size = 0;
	roundtrip(&l, &s, "all bits, empty arrays");
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng(void)
{
	/* xorshift64*: fixed seed so failures reproduce. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

PMS_TEST(random_subsets)
{
	struct pms_sample_layout l;
	struct pms_sample s;
	char ctx[96];

	for (int i = 0; i < 3000; i++) {
		layout_init(&l, rng() & PMS_SAMPLE_KNOWN_MASK);
		if ((l.sample_type & PMS_SAMPLE_WEIGHT_TYPE) == PMS_SAMPLE_WEIGHT_TYPE)
			l.sample_type &= ~(rng() & 1 ? PMS_SAMPLE_WEIGHT : PMS_SAMPLE_WEIGHT_STRUCT);
		l.read_format = rng() & PMS_READ_KNOWN_MASK;
		l.branch_sample_type = rng() & (PMS_BRANCH_HW_INDEX | PMS_BRANCH_COUNTERS | 0x3);
		l.sample_regs_user = rng();
		l.sample_regs_intr = rng() & rng();
		full_sample(&l, &s);
		s.callchain_nr = rng() % 6;
		s.branch.nr = rng() % 4;
		s.raw_size = (rng() & 1) ? 4 : 12;
		s.regs_user.abi = rng() % 3;
		if (rng() & 1) {
			s.stack_size = 0;
			s.stack_dyn_size = 0;
		}
		s.aux_size = (rng() % 3) * 8;
		snprintf(ctx, sizeof(ctx), "random #%d", i);
		roundtrip(&l, &s, ctx);
	}
}

/* Every truncation of a full record fails cleanly: shorter buffers (header
 * size > len) and shorter header.size (fields missing). */
PMS_TEST(every_truncation_fails)
{
	struct pms_sample_layout l;
	struct pms_sample s, out;
	size_t len = 0;

	layout_init(&l, PMS_SAMPLE_KNOWN_MASK & ~PMS_SAMPLE_WEIGHT);
	l.read_format = PMS_READ_KNOWN_MASK;
	l.branch_sample_type = PMS_BRANCH_HW_INDEX | PMS_BRANCH_COUNTERS;
	full_sample(&l, &s);
	CHECK_OK(pms_sample_encode(&l, &s, big, BUFCAP, &len));
	unsigned char *full = malloc(len);
	memcpy(full, big, len);

	for (size_t cut = 0; cut < len; cut++) {
		unsigned char *p = malloc(cut ? cut : 1);
		memcpy(p, full, cut);
		int rc = pms_sample_parse(&l, p, cut, &out);
		CHECK_MSG(rc == PMS_EPARSE, "len %zu: rc %d", cut, rc);
		if (cut >= 8 && cut % 8 == 0) {
			/* Consistent header.size: a field runs past it. */
			uint16_t sz = (uint16_t)cut;
			memcpy(p + 6, &sz, 2);
			rc = pms_sample_parse(&l, p, cut, &out);
			CHECK_MSG(rc == PMS_EPARSE, "header.size %zu: rc %d", cut, rc);
			CHECK_MSG(strstr(pms_error_last(), "byte offset") != NULL, "msg: %s",
				  pms_error_last());
			struct pms_record rec;
			rc = pms_record_parse(&l, p, cut, &rec);
			CHECK_MSG(rc == PMS_EPARSE, "record, header.size %zu: rc %d", cut, rc);
		}
		free(p);
	}
	free(full);
}

static unsigned char *dup_exact(const void *src, size_t n)
{
	unsigned char *p = malloc(n);
	memcpy(p, src, n);
	return p;
}

/* Parse a hand-patched record and expect PMS_EPARSE naming field. */
static void expect_eparse(const struct pms_sample_layout *l, const void *rec, size_t n,
			  const char *field)
{
	unsigned char *p = dup_exact(rec, n);
	struct pms_sample out;
	int rc = pms_sample_parse(l, p, n, &out);
	CHECK_MSG(rc == PMS_EPARSE, "%s: rc %d", field, rc);
	CHECK_MSG(strstr(pms_error_last(), field) != NULL, "want '%s' in: %s", field,
		  pms_error_last());
	CHECK_MSG(strstr(pms_error_last(), "offset") != NULL, "want offset in: %s",
		  pms_error_last());
	free(p);
}

PMS_TEST(overflowing_counts)
{
	struct pms_sample_layout l;
	uint64_t r[16];
	uint16_t sz;

	/* callchain nr huge and nr whose nr*8 wraps. */
	layout_init(&l, PMS_SAMPLE_CALLCHAIN);
	const uint64_t bad_nr[] = {~0ULL, 1ULL << 61, 0x2000000000000001ULL, 2};
	for (size_t i = 0; i < sizeof(bad_nr) / 8; i++) {
		memset(r, 0, sizeof(r));
		r[0] = PMS_RECORD_SAMPLE | (24ULL << 48);
		r[1] = bad_nr[i];
		expect_eparse(&l, r, 24, "callchain.ips");
	}

	/* raw size past the end. */
	layout_init(&l, PMS_SAMPLE_RAW);
	memset(r, 0, sizeof(r));
	r[0] = PMS_RECORD_SAMPLE | (16ULL << 48);
	r[1] = 0xfffffff0; /* u32 size; data would follow */
	expect_eparse(&l, r, 16, "raw.data");
	r[1] = 5;
	expect_eparse(&l, r, 16, "raw.data");

	/* branch nr*24 wrapping to a small number: 0x0aaaaaaaaaaaaaab * 24 = 8 mod 2^64. */
	layout_init(&l, PMS_SAMPLE_BRANCH_STACK);
	memset(r, 0, sizeof(r));
	r[0] = PMS_RECORD_SAMPLE | (32ULL << 48);
	r[1] = 0x0aaaaaaaaaaaaaabULL;
	expect_eparse(&l, r, 32, "branch_stack.entries");
	l.branch_sample_type = PMS_BRANCH_COUNTERS;
	r[1] = 1; /* one entry fits (24 bytes), its counter does not */
	sz = 40;
	memcpy((unsigned char *)r + 6, &sz, 2);
	expect_eparse(&l, r, 40, "branch_stack.counters");
	l.branch_sample_type = PMS_BRANCH_HW_INDEX;
	r[1] = 0;
	sz = 16;
	memcpy((unsigned char *)r + 6, &sz, 2);
	expect_eparse(&l, r, 16, "branch_stack.hw_idx");

	/* stack size past the end, huge, and dyn_size missing / too big. */
	layout_init(&l, PMS_SAMPLE_STACK_USER);
	memset(r, 0, sizeof(r));
	r[0] = PMS_RECORD_SAMPLE | (32ULL << 48);
	r[1] = 64;
	expect_eparse(&l, r, 32, "stack_user.data");
	r[1] = ~7ULL;
	expect_eparse(&l, r, 32, "stack_user.data");
	r[1] = 16;
	expect_eparse(&l, r, 32, "stack_user.dyn_size");
	r[0] = PMS_RECORD_SAMPLE | (40ULL << 48);
	r[4] = 17;
	expect_eparse(&l, r, 40, "stack_user.dyn_size");

	/* read group nr huge. */
	layout_init(&l, PMS_SAMPLE_READ);
	l.read_format = PMS_READ_GROUP | PMS_READ_ID | PMS_READ_LOST;
	memset(r, 0, sizeof(r));
	r[0] = PMS_RECORD_SAMPLE | (40ULL << 48);
	r[1] = 0x5555555555555556ULL; /* * 24 wraps */
	expect_eparse(&l, r, 40, "read.values");

	/* regs: abi set but the mask's registers are missing. */
	layout_init(&l, PMS_SAMPLE_REGS_INTR);
	memset(r, 0, sizeof(r));
	r[0] = PMS_RECORD_SAMPLE | (24ULL << 48);
	r[1] = 2;
	expect_eparse(&l, r, 24, "regs_intr.regs");

	/* aux size huge. */
	layout_init(&l, PMS_SAMPLE_AUX);
	memset(r, 0, sizeof(r));
	r[0] = PMS_RECORD_SAMPLE | (24ULL << 48);
	r[1] = ~0ULL;
	expect_eparse(&l, r, 24, "aux.data");
}

PMS_TEST(bad_headers)
{
	struct pms_sample_layout l;
	struct pms_sample out;
	struct pms_record rec;
	uint64_t r[4] = {0};
	unsigned char *p;

	layout_init(&l, PMS_SAMPLE_IP);
	/* size not a multiple of 8 */
	r[0] = PMS_RECORD_SAMPLE | (20ULL << 48);
	p = dup_exact(r, 24);
	CHECK_EQ_INT(pms_sample_parse(&l, p, 24, &out), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "multiple of 8") != NULL);
	CHECK_EQ_INT(pms_record_parse(&l, p, 24, &rec), PMS_EPARSE);
	free(p);
	/* size smaller than the header */
	r[0] = PMS_RECORD_SAMPLE;
	p = dup_exact(r, 16);
	CHECK_EQ_INT(pms_sample_parse(&l, p, 16, &out), PMS_EPARSE);
	free(p);
	/* size larger than len */
	r[0] = PMS_RECORD_SAMPLE | (32ULL << 48);
	p = dup_exact(r, 16);
	CHECK_EQ_INT(pms_sample_parse(&l, p, 16, &out), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "larger than") != NULL);
	CHECK_EQ_INT(pms_record_parse(&l, p, 16, &rec), PMS_EPARSE);
	free(p);
	/* len smaller than a header, and NULL */
	CHECK_EQ_INT(pms_sample_parse(&l, r, 7, &out), PMS_EPARSE);
	CHECK_EQ_INT(pms_sample_parse(&l, NULL, 0, &out), PMS_EPARSE);
	/* a longer buffer is fine: only header.size bytes are the record */
	r[0] = PMS_RECORD_SAMPLE | (16ULL << 48);
	r[1] = 0x1234;
	r[2] = 0xffff;
	CHECK_OK(pms_sample_parse(&l, r, 32, &out));
	CHECK_EQ_U64(out.ip, 0x1234);
	/* bytes left over: the layout does not match */
	r[0] = PMS_RECORD_SAMPLE | (24ULL << 48);
	CHECK_EQ_INT(pms_sample_parse(&l, r, 24, &out), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "left after") != NULL);
	/* not a sample */
	r[0] = PMS_RECORD_MMAP | (16ULL << 48);
	CHECK_EQ_INT(pms_sample_parse(&l, r, 16, &out), PMS_EINVAL);
	/* unknown sample_type / read_format bits */
	r[0] = PMS_RECORD_SAMPLE | (16ULL << 48);
	l.sample_type = PMS_SAMPLE_IP | (1ULL << 30);
	CHECK_EQ_INT(pms_sample_parse(&l, r, 16, &out), PMS_ENOTSUP);
	l.sample_type = PMS_SAMPLE_READ;
	l.read_format = 1ULL << 7;
	CHECK_EQ_INT(pms_sample_parse(&l, r, 16, &out), PMS_ENOTSUP);
}

/* Golden record 1, written byte by byte from kernel-abi-facts.md 1.6: a
 * typical precise memory sample, sample_type IP|TID|TIME|ADDR|CPU|PERIOD|
 * DATA_SRC|WEIGHT_STRUCT, misc USER|EXACT_IP. */
static const unsigned char golden1[] = {
	/* header: type 9, misc 0x4002, size 72 */
	0x09, 0x00, 0x00, 0x00, 0x02, 0x40, 0x48, 0x00,
	/* IP 0x0000000000401136 */
	0x36, 0x11, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* TID: pid 0x1234, tid 0x1235 */
	0x34, 0x12, 0x00, 0x00, 0x35, 0x12, 0x00, 0x00,
	/* TIME 0x0000001122334455 */
	0x55, 0x44, 0x33, 0x22, 0x11, 0x00, 0x00, 0x00,
	/* ADDR 0x00007ffd12345678 */
	0x78, 0x56, 0x34, 0x12, 0xfd, 0x7f, 0x00, 0x00,
	/* CPU: cpu 7, res 0 */
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* PERIOD 10007 = 0x2717 */
	0x17, 0x27, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* WEIGHT_STRUCT: var1_dw 0x000000c8 (200), var2_w 0x0020, var3_w 0x0003 */
	0xc8, 0x00, 0x00, 0x00, 0x20, 0x00, 0x03, 0x00,
	/* DATA_SRC 0x0000000068100142 */
	0x42, 0x01, 0x10, 0x68, 0x00, 0x00, 0x00, 0x00,
};

static int little_endian(void)
{
	uint16_t one = 1;
	unsigned char b;
	memcpy(&b, &one, 1);
	return b == 1;
}

PMS_TEST(golden_memory_sample)
{
	if (!little_endian())
		PMS_SKIP("golden records are little-endian");
	struct pms_sample_layout l;
	struct pms_sample s;
	layout_init(&l, PMS_SAMPLE_IP | PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_ADDR |
				PMS_SAMPLE_CPU | PMS_SAMPLE_PERIOD | PMS_SAMPLE_DATA_SRC |
				PMS_SAMPLE_WEIGHT_STRUCT);
	unsigned char *p = dup_exact(golden1, sizeof(golden1));
	CHECK_OK(pms_sample_parse(&l, p, sizeof(golden1), &s));
	CHECK_EQ_INT(s.misc, 0x4002);
	CHECK_EQ_INT(s.cpumode, PMS_MISC_USER);
	CHECK(s.exact_ip);
	CHECK_EQ_U64(s.ip, 0x401136);
	CHECK_EQ_INT(s.pid, 0x1234);
	CHECK_EQ_INT(s.tid, 0x1235);
	CHECK_EQ_U64(s.time, 0x1122334455ULL);
	CHECK_EQ_U64(s.addr, 0x7ffd12345678ULL);
	CHECK_EQ_INT(s.cpu, 7);
	CHECK_EQ_U64(s.period, 10007);
	CHECK_EQ_INT(s.weight_var1_dw, 200);
	CHECK_EQ_INT(s.weight_var2_w, 0x20);
	CHECK_EQ_INT(s.weight_var3_w, 3);
	CHECK_EQ_U64(s.weight, 0x00030020000000c8ULL);
	CHECK_EQ_U64(s.data_src, 0x68100142ULL);
	CHECK_EQ_U64(s.present, l.sample_type);

	/* The encoder reproduces the bytes. */
	size_t len = 0;
	memset(big, CANARY, sizeof(big));
	CHECK_OK(pms_sample_encode(&l, &s, big, BUFCAP, &len));
	CHECK_EQ_INT(len, sizeof(golden1));
	CHECK(memcmp(big, golden1, sizeof(golden1)) == 0);
	free(p);
}

/* Golden record 2: IDENTIFIER|IP|READ(group: TOTAL_TIME_ENABLED|ID)|
 * CALLCHAIN|RAW|BRANCH_STACK(HW_INDEX)|REGS_USER(mask 0x5)|STACK_USER,
 * misc KERNEL. */
static const unsigned char golden2[] = {
	/* header: type 9, misc 1, size 0xc0 = 192 */
	0x09, 0x00, 0x00, 0x00, 0x01, 0x00, 0xc0, 0x00,
	/* IDENTIFIER 0x2a */
	0x2a, 0, 0, 0, 0, 0, 0, 0,
	/* IP 0xffffffff81001000 */
	0x00, 0x10, 0x00, 0x81, 0xff, 0xff, 0xff, 0xff,
	/* READ group: nr 2, time_enabled 0x64, {value 5, id 0x2a}, {value 6, id 0x2b} */
	0x02, 0, 0, 0, 0, 0, 0, 0,
	0x64, 0, 0, 0, 0, 0, 0, 0,
	0x05, 0, 0, 0, 0, 0, 0, 0,
	0x2a, 0, 0, 0, 0, 0, 0, 0,
	0x06, 0, 0, 0, 0, 0, 0, 0,
	0x2b, 0, 0, 0, 0, 0, 0, 0,
	/* CALLCHAIN nr 2: PERF_CONTEXT_KERNEL (-128), 0xffffffff81001000 */
	0x02, 0, 0, 0, 0, 0, 0, 0,
	0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0x00, 0x10, 0x00, 0x81, 0xff, 0xff, 0xff, 0xff,
	/* RAW: u32 size 4, then 4 bytes de ad be ef (4 + 4 = 8) */
	0x04, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef,
	/* BRANCH_STACK: nr 1, hw_idx 7, {from 0x1000, to 0x2000,
	 * flags mispred|cycles 5|type 3 = 0x1 | 5<<4 | 3<<20 = 0x300051} */
	0x01, 0, 0, 0, 0, 0, 0, 0,
	0x07, 0, 0, 0, 0, 0, 0, 0,
	0x00, 0x10, 0, 0, 0, 0, 0, 0,
	0x00, 0x20, 0, 0, 0, 0, 0, 0,
	0x51, 0x00, 0x30, 0, 0, 0, 0, 0,
	/* REGS_USER: abi 2 (64-bit), regs 0 and 2 = 0xa0, 0xa2 */
	0x02, 0, 0, 0, 0, 0, 0, 0,
	0xa0, 0, 0, 0, 0, 0, 0, 0,
	0xa2, 0, 0, 0, 0, 0, 0, 0,
	/* STACK_USER: size 8, data 01..08, dyn_size 6 */
	0x08, 0, 0, 0, 0, 0, 0, 0,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x06, 0, 0, 0, 0, 0, 0, 0,
};

PMS_TEST(golden_callchain_branch_sample)
{
	if (!little_endian())
		PMS_SKIP("golden records are little-endian");
	CHECK_EQ_INT(sizeof(golden2), 192);
	struct pms_sample_layout l;
	struct pms_sample s;
	memset(&l, 0, sizeof(l));
	l.sample_type = PMS_SAMPLE_IDENTIFIER | PMS_SAMPLE_IP | PMS_SAMPLE_READ |
			PMS_SAMPLE_CALLCHAIN | PMS_SAMPLE_RAW | PMS_SAMPLE_BRANCH_STACK |
			PMS_SAMPLE_REGS_USER | PMS_SAMPLE_STACK_USER;
	l.read_format = PMS_READ_GROUP | PMS_READ_TOTAL_TIME_ENABLED | PMS_READ_ID;
	l.branch_sample_type = PMS_BRANCH_HW_INDEX;
	l.sample_regs_user = 0x5;
	unsigned char *p = dup_exact(golden2, sizeof(golden2));
	CHECK_OK(pms_sample_parse(&l, p, sizeof(golden2), &s));
	CHECK_EQ_INT(s.cpumode, PMS_MISC_KERNEL);
	CHECK(!s.exact_ip);
	CHECK_EQ_U64(s.id, 0x2a);
	CHECK_EQ_U64(s.ip, 0xffffffff81001000ULL);
	CHECK_EQ_U64(s.read.nr, 2);
	CHECK_EQ_U64(s.read.time_enabled, 0x64);
	struct pms_read_entry e;
	CHECK_OK(pms_sample_read_entry(&s.read, 1, &e));
	CHECK_EQ_U64(e.value, 6);
	CHECK_EQ_U64(e.id, 0x2b);
	CHECK_EQ_INT(pms_sample_read_entry(&s.read, 2, &e), PMS_ERANGE);
	CHECK_EQ_U64(s.callchain_nr, 2);
	CHECK_EQ_U64(pms_u64_at(s.callchain, 0), (uint64_t)-128);
	CHECK_EQ_U64(pms_u64_at(s.callchain, 1), 0xffffffff81001000ULL);
	CHECK(s.callchain == p + 80); /* header, id, ip, 48-byte read, nr */
	CHECK_EQ_INT(s.raw_size, 4);
	CHECK(memcmp(s.raw, "\xde\xad\xbe\xef", 4) == 0);
	CHECK_EQ_U64(s.branch.nr, 1);
	CHECK_EQ_U64(s.branch.hw_idx, 7);
	struct pms_branch b = pms_branch_at(s.branch.entries, 0);
	CHECK_EQ_U64(b.from, 0x1000);
	CHECK_EQ_U64(b.to, 0x2000);
	CHECK(b.mispred && !b.predicted && !b.in_tx && !b.abort);
	CHECK_EQ_INT(b.cycles, 5);
	CHECK_EQ_INT(b.type, 3);
	CHECK(s.branch.counters == NULL);
	CHECK_EQ_U64(s.regs_user.abi, 2);
	CHECK_EQ_INT(s.regs_user.nr, 2);
	uint64_t v = 0;
	CHECK_OK(pms_sample_regs_get(&s.regs_user, 2, &v));
	CHECK_EQ_U64(v, 0xa2);
	CHECK_OK(pms_sample_regs_get(&s.regs_user, 0, &v));
	CHECK_EQ_U64(v, 0xa0);
	CHECK_EQ_INT(pms_sample_regs_get(&s.regs_user, 1, &v), PMS_ENOENT);
	CHECK_EQ_U64(s.stack_size, 8);
	CHECK(memcmp(s.stack_data, "\x01\x02\x03\x04\x05\x06\x07\x08", 8) == 0);
	CHECK_EQ_U64(s.stack_dyn_size, 6);

	uint64_t id = 0;
	CHECK_OK(pms_record_peek_id(&l, p, sizeof(golden2), &id));
	CHECK_EQ_U64(id, 0x2a);

	size_t len = 0;
	CHECK_OK(pms_sample_encode(&l, &s, big, BUFCAP, &len));
	CHECK_EQ_INT(len, sizeof(golden2));
	CHECK(memcmp(big, golden2, sizeof(golden2)) == 0);

	/* The same bytes one byte off alignment decode the same (borrowed
	 * arrays are read with memcpy). */
	unsigned char *odd = malloc(sizeof(golden2) + 1);
	memcpy(odd + 1, golden2, sizeof(golden2));
	struct pms_sample s2;
	CHECK_OK(pms_sample_parse(&l, odd + 1, sizeof(golden2), &s2));
	CHECK_EQ_U64(pms_u64_at(s2.callchain, 1), 0xffffffff81001000ULL);
	CHECK_EQ_U64(pms_branch_at(s2.branch.entries, 0).to, 0x2000);
	free(odd);
	free(p);
}

/* Golden record 3: MMAP2 (maj/min/ino form) with a sample_id trailer of
 * TID|TIME|CPU|IDENTIFIER. */
static const unsigned char golden3[] = {
	/* header: type 10, misc 2 (user), size 0x78 = 120 */
	0x0a, 0, 0, 0, 0x02, 0x00, 0x78, 0x00,
	/* pid 0x10, tid 0x11 */
	0x10, 0, 0, 0, 0x11, 0, 0, 0,
	/* addr 0x400000, len 0x1000, pgoff 0 */
	0x00, 0x00, 0x40, 0, 0, 0, 0, 0,
	0x00, 0x10, 0x00, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	/* maj 8, min 1, ino 0x99, ino_generation 3 */
	0x08, 0, 0, 0, 0x01, 0, 0, 0,
	0x99, 0, 0, 0, 0, 0, 0, 0,
	0x03, 0, 0, 0, 0, 0, 0, 0,
	/* prot 5 (r-x), flags 2 (MAP_PRIVATE) */
	0x05, 0, 0, 0, 0x02, 0, 0, 0,
	/* filename "/bin/true" + NUL, padded to 16 */
	'/', 'b', 'i', 'n', '/', 't', 'r', 'u', 'e', 0, 0, 0, 0, 0, 0, 0,
	/* sample_id: pid 0x10, tid 0x11; time 0x77; cpu 2, res 0; identifier 0x2a */
	0x10, 0, 0, 0, 0x11, 0, 0, 0,
	0x77, 0, 0, 0, 0, 0, 0, 0,
	0x02, 0, 0, 0, 0, 0, 0, 0,
	0x2a, 0, 0, 0, 0, 0, 0, 0,
};

PMS_TEST(golden_mmap2_with_trailer)
{
	if (!little_endian())
		PMS_SKIP("golden records are little-endian");
	CHECK_EQ_INT(sizeof(golden3), 120);
	struct pms_sample_layout l;
	struct pms_record r;
	memset(&l, 0, sizeof(l));
	l.sample_type = PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_CPU |
			PMS_SAMPLE_IDENTIFIER | PMS_SAMPLE_IP | PMS_SAMPLE_ADDR;
	l.sample_id_all = true;
	unsigned char *p = dup_exact(golden3, sizeof(golden3));
	CHECK_OK(pms_record_parse(&l, p, sizeof(golden3), &r));
	CHECK_EQ_INT(r.type, PMS_RECORD_MMAP2);
	CHECK_EQ_INT(r.size, 120);
	CHECK_EQ_INT(r.mmap.pid, 0x10);
	CHECK_EQ_INT(r.mmap.tid, 0x11);
	CHECK_EQ_U64(r.mmap.addr, 0x400000);
	CHECK_EQ_U64(r.mmap.len, 0x1000);
	CHECK_EQ_U64(r.mmap.pgoff, 0);
	CHECK(!r.mmap.has_build_id);
	CHECK_EQ_INT(r.mmap.maj, 8);
	CHECK_EQ_INT(r.mmap.min, 1);
	CHECK_EQ_U64(r.mmap.ino, 0x99);
	CHECK_EQ_U64(r.mmap.ino_generation, 3);
	CHECK_EQ_INT(r.mmap.prot, 5);
	CHECK_EQ_INT(r.mmap.flags, 2);
	CHECK_EQ_STR(r.mmap.filename, "/bin/true");
	CHECK_EQ_U64(r.sample_id.present, PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_CPU |
						  PMS_SAMPLE_IDENTIFIER);
	CHECK_EQ_INT(r.sample_id.pid, 0x10);
	CHECK_EQ_INT(r.sample_id.tid, 0x11);
	CHECK_EQ_U64(r.sample_id.time, 0x77);
	CHECK_EQ_INT(r.sample_id.cpu, 2);
	CHECK_EQ_U64(r.sample_id.id, 0x2a);
	uint64_t id = 0;
	CHECK_OK(pms_record_peek_id(&l, p, sizeof(golden3), &id));
	CHECK_EQ_U64(id, 0x2a);

	size_t len = 0;
	CHECK_OK(pms_record_encode(&l, &r, big, BUFCAP, &len));
	CHECK_EQ_INT(len, sizeof(golden3));
	CHECK(memcmp(big, golden3, sizeof(golden3)) == 0);

	/* Filename without its NUL (overwrite the padding): refused. */
	memset(p + 72 + 9, 'x', 7); /* filename starts at 72 */
	CHECK_EQ_INT(pms_record_parse(&l, p, sizeof(golden3), &r), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "filename") != NULL);
	/* Without sample_id_all the trailer is read as filename bytes; the
	 * string still has to end inside the record. */
	memcpy(p, golden3, sizeof(golden3));
	l.sample_id_all = false;
	CHECK_OK(pms_record_parse(&l, p, sizeof(golden3), &r));
	CHECK_EQ_STR(r.mmap.filename, "/bin/true");
	CHECK_EQ_U64(r.sample_id.present, 0);
	free(p);
}

/* Round trip a non-sample record through a canary buffer and an
 * exactly-sized copy; returns the parsed record in *out (borrowing *keep). */
static void record_roundtrip(const struct pms_sample_layout *l, const struct pms_record *in,
			     struct pms_record *out, unsigned char **keep, const char *ctx)
{
	size_t len = 0;
	*keep = NULL;
	memset(big, CANARY, sizeof(big));
	int rc = pms_record_encode(l, in, big, BUFCAP, &len);
	CHECK_MSG(rc == 0, "%s: encode %d: %s", ctx, rc, pms_error_last());
	if (rc)
		return;
	CHECK_MSG(len % 8 == 0, "%s: len %zu", ctx, len);
	int canary_ok = 1;
	for (size_t i = len; i < len + 256; i++)
		canary_ok &= big[i] == CANARY;
	CHECK_MSG(canary_ok, "%s: wrote past len", ctx);
	*keep = dup_exact(big, len);
	rc = pms_record_parse(l, *keep, len, out);
	CHECK_MSG(rc == 0, "%s: parse %d: %s", ctx, rc, pms_error_last());
	CHECK_EQ_INT(out->type, in->type);
	CHECK_EQ_INT(out->misc, in->misc);
	CHECK_EQ_INT(out->size, len);
	if (l->sample_id_all && in->type != PMS_RECORD_SAMPLE) {
		uint64_t st = l->sample_type;
		CHECK_EQ_U64(out->sample_id.present, st & PMS_SAMPLE_ID_ALL_MASK);
		if (st & PMS_SAMPLE_TID) {
			CHECK_EQ_INT(out->sample_id.pid, in->sample_id.pid);
			CHECK_EQ_INT(out->sample_id.tid, in->sample_id.tid);
		}
		if (st & PMS_SAMPLE_TIME)
			CHECK_EQ_U64(out->sample_id.time, in->sample_id.time);
		if (st & (PMS_SAMPLE_ID | PMS_SAMPLE_IDENTIFIER))
			CHECK_EQ_U64(out->sample_id.id, in->sample_id.id);
		if (st & PMS_SAMPLE_STREAM_ID)
			CHECK_EQ_U64(out->sample_id.stream_id, in->sample_id.stream_id);
		if (st & PMS_SAMPLE_CPU)
			CHECK_EQ_INT(out->sample_id.cpu, in->sample_id.cpu);
		if (st & (PMS_SAMPLE_ID | PMS_SAMPLE_IDENTIFIER)) {
			uint64_t id = 0;
			CHECK_OK(pms_record_peek_id(l, *keep, len, &id));
			CHECK_EQ_U64(id, in->sample_id.id);
		}
	} else {
		CHECK_EQ_U64(out->sample_id.present, 0);
	}
	/* Every truncation of header.size fails cleanly (except for
	 * pass-through types, whose body may be any length). */
	for (size_t cut = 8; cut < len; cut += 8) {
		unsigned char *p = dup_exact(*keep, cut);
		uint16_t sz = (uint16_t)cut;
		memcpy(p + 6, &sz, 2);
		struct pms_record tr;
		rc = pms_record_parse(l, p, cut, &tr);
		if (in->type <= PMS_RECORD_SWITCH_CPU_WIDE)
			CHECK_MSG(rc == PMS_EPARSE, "%s: cut %zu rc %d", ctx, cut, rc);
		free(p);
	}
}

static const uint64_t trailer_types[] = {
	0,
	PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_ID | PMS_SAMPLE_STREAM_ID | PMS_SAMPLE_CPU |
		PMS_SAMPLE_IDENTIFIER,
	PMS_SAMPLE_IDENTIFIER | PMS_SAMPLE_IP,
	PMS_SAMPLE_TID | PMS_SAMPLE_ID | PMS_SAMPLE_CPU,
	PMS_SAMPLE_TIME,
};

PMS_TEST(non_sample_roundtrips)
{
	struct pms_sample_layout l;
	struct pms_record in, out;
	unsigned char *keep;
	char ctx[96];

	for (size_t t = 0; t < sizeof(trailer_types) / 8; t++)
		for (int all = 0; all < 2; all++) {
			memset(&l, 0, sizeof(l));
			l.sample_type = trailer_types[t];
			l.sample_id_all = all;
			l.read_format = PMS_READ_GROUP | PMS_READ_ID | PMS_READ_LOST |
					PMS_READ_TOTAL_TIME_RUNNING;
			for (uint32_t type = 1; type <= 15; type++) {
				if (type == PMS_RECORD_SAMPLE)
					continue;
				for (int variant = 0; variant < 2; variant++) {
					memset(&in, 0, sizeof(in));
					in.type = type;
					in.sample_id = (struct pms_sample_id){
						0, 7, 8, 0x1111, 0x2a, 0x5d, 3, 0};
					snprintf(ctx, sizeof(ctx), "%s st 0x%llx all %d v%d",
						 pms_record_type_name(type),
						 (unsigned long long)l.sample_type, all, variant);
					switch (type) {
					case PMS_RECORD_MMAP:
					case PMS_RECORD_MMAP2:
						in.misc = variant ? PMS_MISC_MMAP_BUILD_ID : PMS_MISC_MMAP_DATA;
						in.mmap = (struct pms_rec_mmap){0};
						in.mmap.pid = 1;
						in.mmap.tid = 2;
						in.mmap.addr = 0x7f0000000000ULL;
						in.mmap.len = 0x21000;
						in.mmap.pgoff = 0x3000;
						in.mmap.maj = 259;
						in.mmap.min = 3;
						in.mmap.ino = 123456;
						in.mmap.ino_generation = 9;
						in.mmap.build_id_size = 20;
						for (int i = 0; i < 20; i++)
							in.mmap.build_id[i] = (uint8_t)(0xb0 + i);
						in.mmap.prot = 5;
						in.mmap.flags = 2;
						in.mmap.filename = variant ? "/usr/lib/x86_64-linux-gnu/libc.so.6"
									   : "1234567";
						break;
					case PMS_RECORD_COMM:
						in.misc = variant ? PMS_MISC_COMM_EXEC : 0;
						in.comm.pid = 5;
						in.comm.tid = 6;
						in.comm.comm = variant ? "abcdefgh" : "";
						break;
					case PMS_RECORD_FORK:
					case PMS_RECORD_EXIT:
						in.fork = (struct pms_rec_fork){1, 2, 3, 4, 5};
						break;
					case PMS_RECORD_LOST:
					case PMS_RECORD_LOST_SAMPLES:
						in.lost.id = type == PMS_RECORD_LOST ? 0x2a : 0;
						in.lost.lost = 99;
						break;
					case PMS_RECORD_THROTTLE:
					case PMS_RECORD_UNTHROTTLE:
						in.throttle = (struct pms_rec_throttle){1000, 0x2a, 0x5d};
						break;
					case PMS_RECORD_AUX:
						in.aux.aux_offset = 0x10000;
						in.aux.aux_size = 0x800;
						in.aux.flags = variant ? (PMS_AUX_FLAG_TRUNCATED |
									  PMS_AUX_FLAG_OVERWRITE |
									  PMS_AUX_FLAG_PARTIAL |
									  PMS_AUX_FLAG_COLLISION | 0x100)
								       : 0;
						break;
					case PMS_RECORD_ITRACE_START:
						in.itrace = (struct pms_rec_pid_tid){11, 12};
						break;
					case PMS_RECORD_SWITCH:
						in.misc = variant ? PMS_MISC_SWITCH_OUT |
									    PMS_MISC_SWITCH_OUT_PREEMPT
								  : 0;
						break;
					case PMS_RECORD_SWITCH_CPU_WIDE:
						in.misc = variant ? PMS_MISC_SWITCH_OUT : 0;
						in.switch_cpu_wide = (struct pms_rec_pid_tid){13, 14};
						break;
					case PMS_RECORD_READ:
						in.read.pid = 21;
						in.read.tid = 22;
						in.read.values.time_running = 1234;
						in.read.values.nr = variant ? 4 : 0;
						in.read.values.entries = group;
						break;
					}
					record_roundtrip(&l, &in, &out, &keep, ctx);
					if (!keep)
						continue;
					switch (type) {
					case PMS_RECORD_MMAP:
					case PMS_RECORD_MMAP2:
						CHECK_EQ_INT(out.mmap.pid, 1);
						CHECK_EQ_INT(out.mmap.tid, 2);
						CHECK_EQ_U64(out.mmap.addr, in.mmap.addr);
						CHECK_EQ_U64(out.mmap.len, in.mmap.len);
						CHECK_EQ_U64(out.mmap.pgoff, in.mmap.pgoff);
						CHECK_EQ_STR(out.mmap.filename, in.mmap.filename);
						if (type == PMS_RECORD_MMAP2) {
							CHECK_EQ_INT(out.mmap.prot, 5);
							CHECK_EQ_INT(out.mmap.flags, 2);
							CHECK_EQ_INT(out.mmap.has_build_id, variant);
							if (variant) {
								CHECK_EQ_INT(out.mmap.build_id_size, 20);
								CHECK(memcmp(out.mmap.build_id,
									     in.mmap.build_id, 20) == 0);
							} else {
								CHECK_EQ_INT(out.mmap.maj, 259);
								CHECK_EQ_INT(out.mmap.min, 3);
								CHECK_EQ_U64(out.mmap.ino, 123456);
								CHECK_EQ_U64(out.mmap.ino_generation, 9);
							}
						}
						break;
					case PMS_RECORD_COMM:
						CHECK_EQ_INT(out.comm.pid, 5);
						CHECK_EQ_INT(out.comm.tid, 6);
						CHECK_EQ_STR(out.comm.comm, in.comm.comm);
						break;
					case PMS_RECORD_FORK:
					case PMS_RECORD_EXIT:
						CHECK(memcmp(&out.fork, &in.fork, sizeof(in.fork)) == 0);
						break;
					case PMS_RECORD_LOST:
					case PMS_RECORD_LOST_SAMPLES:
						CHECK_EQ_U64(out.lost.id, in.lost.id);
						CHECK_EQ_U64(out.lost.lost, 99);
						break;
					case PMS_RECORD_THROTTLE:
					case PMS_RECORD_UNTHROTTLE:
						CHECK_EQ_U64(out.throttle.time, 1000);
						CHECK_EQ_U64(out.throttle.id, 0x2a);
						CHECK_EQ_U64(out.throttle.stream_id, 0x5d);
						break;
					case PMS_RECORD_AUX:
						CHECK_EQ_U64(out.aux.aux_offset, 0x10000);
						CHECK_EQ_U64(out.aux.aux_size, 0x800);
						CHECK_EQ_U64(out.aux.flags, in.aux.flags);
						break;
					case PMS_RECORD_ITRACE_START:
						CHECK_EQ_INT(out.itrace.pid, 11);
						CHECK_EQ_INT(out.itrace.tid, 12);
						break;
					case PMS_RECORD_SWITCH_CPU_WIDE:
						CHECK_EQ_INT(out.switch_cpu_wide.pid, 13);
						CHECK_EQ_INT(out.switch_cpu_wide.tid, 14);
						break;
					case PMS_RECORD_READ: {
						CHECK_EQ_INT(out.read.pid, 21);
						CHECK_EQ_U64(out.read.values.nr, in.read.values.nr);
						CHECK_EQ_U64(out.read.values.time_running, 1234);
						struct pms_read_entry e;
						if (variant) {
							CHECK_OK(pms_sample_read_entry(&out.read.values, 3, &e));
							CHECK_EQ_U64(e.value, group[9]);
							CHECK_EQ_U64(e.id, group[10]);
							CHECK_EQ_U64(e.lost, group[11]);
						}
						break;
					}
					}
					free(keep);
				}
			}
		}
}

PMS_TEST(sample_through_record_parse)
{
	struct pms_sample_layout l;
	struct pms_record in, out;
	unsigned char *keep;

	layout_init(&l, PMS_SAMPLE_IP | PMS_SAMPLE_TID | PMS_SAMPLE_ID | PMS_SAMPLE_CALLCHAIN);
	l.sample_id_all = true;
	memset(&in, 0, sizeof(in));
	in.type = PMS_RECORD_SAMPLE;
	full_sample(&l, &in.sample);
	in.misc = in.sample.misc;
	record_roundtrip(&l, &in, &out, &keep, "SAMPLE via record");
	if (keep) {
		compare(&l, &in.sample, &out.sample, "SAMPLE via record");
		uint64_t id = 0;
		CHECK_OK(pms_record_peek_id(&l, keep, out.size, &id));
		CHECK_EQ_U64(id, 0x1d);
		free(keep);
	}
}

PMS_TEST(unknown_types_pass_through)
{
	struct pms_sample_layout l;
	struct pms_record in, out;
	unsigned char *keep;
	static const unsigned char body[16] = "ksymbol-ish...";

	memset(&l, 0, sizeof(l));
	l.sample_type = PMS_SAMPLE_TIME | PMS_SAMPLE_IDENTIFIER;
	l.sample_id_all = true;
	memset(&in, 0, sizeof(in));
	in.type = PMS_RECORD_KSYMBOL;
	in.body = body;
	in.body_len = sizeof(body);
	in.sample_id.time = 5;
	in.sample_id.id = 6;
	record_roundtrip(&l, &in, &out, &keep, "KSYMBOL");
	if (keep) {
		CHECK_EQ_INT(out.body_len, 16);
		CHECK(memcmp(out.body, body, 16) == 0);
		CHECK_EQ_U64(out.sample_id.time, 5);
		free(keep);
	}
	/* perf-tool synthetic types have no trailer. */
	in.type = 68; /* FINISHED_ROUND */
	in.body = NULL;
	in.body_len = 0;
	size_t len = 0;
	CHECK_OK(pms_record_encode(&l, &in, big, BUFCAP, &len));
	CHECK_EQ_INT(len, 8);
	CHECK_OK(pms_record_parse(&l, big, len, &out));
	CHECK_EQ_INT(out.body_len, 0);
	CHECK_EQ_STR(pms_record_type_name(68), "UNKNOWN");
	CHECK_EQ_STR(pms_record_type_name(PMS_RECORD_MMAP2), "MMAP2");
}

PMS_TEST(bad_non_sample_records)
{
	struct pms_sample_layout l;
	struct pms_record r;
	uint64_t w[8];

	memset(&l, 0, sizeof(l));
	/* COMM with no NUL at all */
	memset(w, 'a', sizeof(w));
	w[0] = PMS_RECORD_COMM | (24ULL << 48);
	w[1] = 0;
	unsigned char *p = dup_exact(w, 24);
	CHECK_EQ_INT(pms_record_parse(&l, p, 24, &r), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "comm") != NULL);
	free(p);
	/* COMM with an empty string area */
	w[0] = PMS_RECORD_COMM | (16ULL << 48);
	p = dup_exact(w, 16);
	CHECK_EQ_INT(pms_record_parse(&l, p, 16, &r), PMS_EPARSE);
	free(p);
	/* MMAP2 build-id form with build_id_size > 20 */
	memset(w, 0, sizeof(w));
	w[0] = PMS_RECORD_MMAP2 | ((uint64_t)PMS_MISC_MMAP_BUILD_ID << 32) | (64ULL << 48);
	w[5] = 21; /* build_id_size: the byte at offset 40 */
	p = dup_exact(w, 64);
	CHECK_EQ_INT(pms_record_parse(&l, p, 64, &r), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "build_id_size") != NULL);
	free(p);
	/* trailer larger than the record */
	l.sample_type = PMS_SAMPLE_ID_ALL_MASK;
	l.sample_id_all = true;
	w[0] = PMS_RECORD_LOST_SAMPLES | (16ULL << 48);
	p = dup_exact(w, 16);
	CHECK_EQ_INT(pms_record_parse(&l, p, 16, &r), PMS_EPARSE);
	uint64_t id;
	CHECK_EQ_INT(pms_record_peek_id(&l, p, 16, &id), PMS_EPARSE);
	free(p);
	/* peek without an id in the layout */
	l.sample_type = PMS_SAMPLE_TIME;
	w[0] = PMS_RECORD_LOST_SAMPLES | (24ULL << 48);
	CHECK_EQ_INT(pms_record_peek_id(&l, w, 24, &id), PMS_ENOENT);
	l.sample_id_all = false;
	l.sample_type = PMS_SAMPLE_IDENTIFIER;
	CHECK_EQ_INT(pms_record_peek_id(&l, w, 24, &id), PMS_ENOENT);
	/* peek at ID (not IDENTIFIER) position in a sample and a trailer */
	l.sample_type = PMS_SAMPLE_IP | PMS_SAMPLE_TIME | PMS_SAMPLE_ID | PMS_SAMPLE_CPU;
	w[0] = PMS_RECORD_SAMPLE | (40ULL << 48);
	w[1] = 1;
	w[2] = 2;
	w[3] = 0x77;
	w[4] = 4;
	CHECK_OK(pms_record_peek_id(&l, w, 40, &id));
	CHECK_EQ_U64(id, 0x77);
	l.sample_id_all = true;
	w[0] = PMS_RECORD_LOST_SAMPLES | (40ULL << 48); /* lost, time, id, cpu */
	w[2] = 0x10;
	w[3] = 0x88;
	CHECK_OK(pms_record_peek_id(&l, w, 40, &id));
	CHECK_EQ_U64(id, 0x88);
	CHECK_OK(pms_record_parse(&l, w, 40, &r));
	CHECK_EQ_U64(r.lost.lost, 1);
	CHECK_EQ_U64(r.sample_id.time, 0x10);
	CHECK_EQ_U64(r.sample_id.id, 0x88);
	CHECK_EQ_INT(r.sample_id.cpu, 4);
}

PMS_TEST(encoder_limits)
{
	struct pms_sample_layout l;
	struct pms_sample s;
	size_t len = 0;

	layout_init(&l, PMS_SAMPLE_CALLCHAIN);
	memset(&s, 0, sizeof(s));
	s.callchain_nr = 3;
	CHECK_EQ_INT(pms_sample_encode(&l, &s, big, BUFCAP, &len), PMS_EINVAL);
	static uint64_t huge[9000];
	s.callchain = huge;
	s.callchain_nr = 9000; /* 72 KB: over the u16 header.size */
	CHECK_EQ_INT(pms_sample_encode(&l, &s, big, BUFCAP, &len), PMS_ERANGE);
	s.callchain_nr = ~0ULL;
	CHECK_EQ_INT(pms_sample_encode(&l, &s, big, BUFCAP, &len), PMS_ERANGE);
	s.callchain_nr = 8189; /* 8 + 8 + 8189*8 = 65528: the largest record */
	CHECK_OK(pms_sample_encode(&l, &s, big, BUFCAP, &len));
	CHECK_EQ_INT(len, PMS_RECORD_MAX_SIZE);
	struct pms_sample out;
	CHECK_OK(pms_sample_parse(&l, big, len, &out));
	CHECK_EQ_U64(out.callchain_nr, 8189);
	s.callchain_nr = 8190;
	CHECK_EQ_INT(pms_sample_encode(&l, &s, big, BUFCAP, &len), PMS_ERANGE);

	/* A RAW payload that is not padded by the caller: the record is padded
	 * at its end, and it still round-trips. */
	layout_init(&l, PMS_SAMPLE_RAW | PMS_SAMPLE_PERIOD);
	memset(&s, 0, sizeof(s));
	s.raw = rawb;
	s.raw_size = 5;
	s.period = 3;
	roundtrip(&l, &s, "raw of 5 bytes");
}

PMS_TEST(layout_from_attr)
{
	struct perf_event_attr a;
	struct pms_sample_layout l;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sample_type = PMS_SAMPLE_IP | PMS_SAMPLE_BRANCH_STACK;
	a.read_format = PMS_READ_ID;
	a.sample_id_all = 1;
	a.branch_sample_type = PMS_BRANCH_HW_INDEX;
	a.sample_regs_user = 0xff;
	a.sample_regs_intr = 0xf0;
	pms_sample_layout_from_attr(&l, &a);
	CHECK_EQ_U64(l.sample_type, a.sample_type);
	CHECK_EQ_U64(l.read_format, PMS_READ_ID);
	CHECK(l.sample_id_all);
	CHECK_EQ_U64(l.branch_sample_type, PMS_BRANCH_HW_INDEX);
	CHECK_EQ_U64(l.sample_regs_user, 0xff);
	CHECK_EQ_U64(l.sample_regs_intr, 0xf0);
	/* PERF_ATTR_SIZE_VER2 (80) has branch_sample_type but not the regs. */
	a.size = 80;
	pms_sample_layout_from_attr(&l, &a);
	CHECK_EQ_U64(l.branch_sample_type, PMS_BRANCH_HW_INDEX);
	CHECK_EQ_U64(l.sample_regs_user, 0);
	CHECK_EQ_U64(l.sample_regs_intr, 0);
	/* VER0 (64): none of them. */
	a.size = 64;
	pms_sample_layout_from_attr(&l, &a);
	CHECK_EQ_U64(l.branch_sample_type, 0);
	/* UAPI-header constants agree with ours where the header has them. */
	CHECK_EQ_U64(PMS_SAMPLE_WEIGHT_STRUCT, PERF_SAMPLE_WEIGHT_STRUCT);
	CHECK_EQ_U64(PMS_SAMPLE_CODE_PAGE_SIZE, PERF_SAMPLE_CODE_PAGE_SIZE);
	CHECK_EQ_U64(PMS_BRANCH_HW_INDEX, PERF_SAMPLE_BRANCH_HW_INDEX);
	CHECK_EQ_U64(PMS_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_SWITCH_CPU_WIDE);
	CHECK_EQ_U64(PMS_MISC_MMAP_BUILD_ID, PERF_RECORD_MISC_MMAP_BUILD_ID);
	CHECK_EQ_U64(PMS_AUX_FLAG_COLLISION, PERF_AUX_FLAG_COLLISION);
	CHECK_EQ_U64(PMS_READ_GROUP, PERF_FORMAT_GROUP);
}

PMS_TEST_MAIN()
