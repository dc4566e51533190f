/* The record decoder on real perf.data files written by other people
 * (../shared/data/perf_data_converter, see its SOURCES.md): every record of
 * every non-piped file must decode, every SAMPLE must re-encode to the same
 * bytes, and the 14 memory samples of perf.data.weight_struct must match what
 * `perf script` (perf 6.12) prints for them.
 *
 * The file walk here is deliberately minimal (perf_file_header, attrs with
 * their id sections, the data section); the real reader is src/perfdata. */
#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/record.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ATTRS 64

struct pfile {
	unsigned char *buf;
	size_t len;
	size_t nattr;
	struct pms_sample_layout layout[MAX_ATTRS];
	uint64_t *ids[MAX_ATTRS];
	size_t nids[MAX_ATTRS];
	uint64_t data_off, data_size;
};

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

static uint64_t u64(const struct pfile *p, size_t off)
{
	return pms_u64_at(p->buf + off, 0);
}

/* perf_file_header: magic, size, attr_size, attrs{off,size}, data{off,size},
 * event_types{off,size}, feature bitmap (tools/perf/util/header.h). */
static int open_pfile(const char *path, struct pfile *p)
{
	memset(p, 0, sizeof(*p));
	p->buf = slurp(path, &p->len);
	if (!p->buf || p->len < 104 || memcmp(p->buf, "PERFILE2", 8) != 0)
		return -1;
	uint64_t attr_size = u64(p, 16), attrs_off = u64(p, 24), attrs_size = u64(p, 32);
	p->data_off = u64(p, 40);
	p->data_size = u64(p, 48);
	if (attr_size < 16 + 64 || attrs_off + attrs_size > p->len ||
	    p->data_off + p->data_size > p->len)
		return -1;
	p->nattr = attrs_size / attr_size;
	if (p->nattr > MAX_ATTRS)
		return -1;
	for (size_t i = 0; i < p->nattr; i++) {
		size_t at = attrs_off + i * attr_size;
		struct perf_event_attr a;
		size_t n = attr_size - 16 < sizeof(a) ? attr_size - 16 : sizeof(a);
		memset(&a, 0, sizeof(a));
		memcpy(&a, p->buf + at, n);
		pms_sample_layout_from_attr(&p->layout[i], &a);
		uint64_t ids_off = u64(p, at + attr_size - 16), ids_size = u64(p, at + attr_size - 8);
		if (ids_off + ids_size > p->len)
			return -1;
		p->ids[i] = (uint64_t *)(void *)(p->buf + ids_off); /* read via pms_u64_at */
		p->nids[i] = ids_size / 8;
	}
	return 0;
}

static const struct pms_sample_layout *layout_for(const struct pfile *p, const void *rec,
						  size_t len)
{
	uint64_t id;
	if (p->nattr == 1 || pms_record_peek_id(&p->layout[0], rec, len, &id) < 0)
		return &p->layout[0];
	for (size_t i = 0; i < p->nattr; i++)
		for (size_t k = 0; k < p->nids[i]; k++)
			if (pms_u64_at(p->ids[i], k) == id)
				return &p->layout[i];
	return &p->layout[0];
}

/* perf fills string padding with whatever its buffer held, so for records
 * with strings compare the decoded re-encoding instead of the bytes. */
static int same_but_string_padding(const struct pms_sample_layout *l,
				   const struct pms_record *a, const void *enc, size_t n)
{
	struct pms_record b;
	if (pms_record_parse(l, enc, n, &b) < 0)
		return 0;
	const struct pms_sample_id *i = &a->sample_id, *j = &b.sample_id;
	if (i->present != j->present || i->pid != j->pid || i->tid != j->tid ||
	    i->time != j->time || i->id != j->id || i->stream_id != j->stream_id ||
	    i->cpu != j->cpu || i->cpu_res != j->cpu_res)
		return 0;
	if (a->type == PMS_RECORD_COMM)
		return a->comm.pid == b.comm.pid && a->comm.tid == b.comm.tid &&
		       strcmp(a->comm.comm, b.comm.comm) == 0;
	const struct pms_rec_mmap *x = &a->mmap, *y = &b.mmap;
	return x->pid == y->pid && x->tid == y->tid && x->addr == y->addr && x->len == y->len &&
	       x->pgoff == y->pgoff && x->has_build_id == y->has_build_id && x->maj == y->maj &&
	       x->min == y->min && x->ino == y->ino && x->ino_generation == y->ino_generation &&
	       x->build_id_size == y->build_id_size &&
	       memcmp(x->build_id, y->build_id, sizeof(x->build_id)) == 0 &&
	       x->prot == y->prot && x->flags == y->flags &&
	       strcmp(x->filename, y->filename) == 0;
}

typedef void (*sample_fn)(const struct pms_sample *s, void *ctx);

struct walk_stats {
	size_t records, samples, failures, sample_mismatch, passthrough, other_mismatch;
};

static void walk(const char *name, struct pfile *p, sample_fn fn, void *ctx,
		 struct walk_stats *st)
{
	static unsigned char enc[PMS_RECORD_MAX_SIZE + 8];
	size_t off = p->data_off, end = p->data_off + p->data_size;

	memset(st, 0, sizeof(*st));
	while (off + 8 <= end) {
		uint16_t size;
		uint32_t type;
		memcpy(&type, p->buf + off, 4);
		memcpy(&size, p->buf + off + 6, 2);
		if (size < 8)
			break;
		/* Exact-size copy so ASan sees any read past the record. */
		unsigned char *rec = malloc(size);
		memcpy(rec, p->buf + off, size);
		const struct pms_sample_layout *l = layout_for(p, rec, size);
		struct pms_record r;
		int rc = pms_record_parse(l, rec, size, &r);
		st->records++;
		if (rc < 0) {
			if (st->failures++ < 5)
				fprintf(stderr, "%s: record at file offset %zu (type %u): %s\n", name,
					off, type, pms_error_last());
		} else if (type == PMS_RECORD_SAMPLE) {
			size_t n = 0;
			st->samples++;
			if (pms_record_encode(l, &r, enc, sizeof(enc), &n) < 0 || n != size ||
			    memcmp(enc, rec, size) != 0)
				st->sample_mismatch++;
			if (fn)
				fn(&r.sample, ctx);
		} else if (r.body) {
			st->passthrough++;
		} else {
			/* Side-band records re-encode to the same bytes too
			 * (strings padded with NULs, trailer at the end). */
			size_t n = 0;
			int strings = type == PMS_RECORD_MMAP || type == PMS_RECORD_MMAP2 ||
				      type == PMS_RECORD_COMM;
			if (pms_record_encode(l, &r, enc, sizeof(enc), &n) < 0 || n != size ||
			    (!strings && memcmp(enc, rec, size) != 0) ||
			    (strings && !same_but_string_padding(l, &r, enc, n))) {
				if (st->other_mismatch++ < 3)
					fprintf(stderr, "%s: %s at file offset %zu re-encodes "
						"differently (%zu vs %u bytes)\n", name,
						pms_record_type_name(type), off, n, size);
			}
		}
		free(rec);
		off += size;
		/* PERF_RECORD_AUXTRACE (71): the trace follows the record, its
		 * length in the u64 after the header (tools/lib/perf event.h). */
		if (type == 71 && off - size + 16 <= end)
			off += u64(p, off - size + 8);
	}
}

static const char *const files[] = {
	"perf.data.weight_struct",
	"perf.data.branch_stack_spec",
	"perf.data.hybrid_topology",
	"perf.data.lost_samples-4.4",
	"perf.data.group_desc-4.14",
	"perf.data.ctx_switch_namespaces-4.14",
	"perf.data.intel_pt-4.14",
	"perf.data.callgraph-3.8",
	"perf.data.singleprocess-3.8",
	"perf.data.numatopology-3.2",
	"perf.data.i686-3.4",
	"perf.data.armv7.perf_3.14-3.8",
};

static int testdata(char *path, size_t cap, const char *name)
{
	const char *shared = pms_t_shared_data();
	if (!shared)
		return -1;
	snprintf(path, cap, "%s/perf_data_converter/src/quipper/testdata/%s", shared, name);
	return 0;
}

PMS_TEST(every_record_of_real_files_decodes)
{
	char path[1024];
	int seen = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct pfile p;
		struct walk_stats st;
		if (testdata(path, sizeof(path), files[i]) < 0)
			PMS_SKIP("shared data (../shared/data) is absent");
		if (open_pfile(path, &p) < 0) {
			free(p.buf);
			fprintf(stderr, "note: %s missing or not a PERFILE2 file\n", files[i]);
			continue;
		}
		seen++;
		walk(files[i], &p, NULL, NULL, &st);
		fprintf(stderr, "%s: %zu records, %zu samples, %zu passed through, %zu failed, "
			"%zu side-band records re-encode differently\n",
			files[i], st.records, st.samples, st.passthrough, st.failures,
			st.other_mismatch);
		CHECK_MSG(st.records > 0, "%s", files[i]);
		CHECK_MSG(st.failures == 0, "%s: %zu records failed", files[i], st.failures);
		CHECK_MSG(st.sample_mismatch == 0, "%s: %zu samples re-encode differently",
			  files[i], st.sample_mismatch);
		CHECK_MSG(st.other_mismatch == 0, "%s: %zu side-band records re-encode differently",
			  files[i], st.other_mismatch);
		free(p.buf);
	}
	if (!seen)
		PMS_SKIP("no perf_data_converter test files under shared data");
}

/* `perf script -F pid,tid,cpu,time,addr,data_src,weight,ip --ns` (perf 6.12)
 * on perf.data.weight_struct; time in ns. */
static const struct mem_row {
	uint32_t pid, tid, cpu;
	uint64_t time, addr, data_src;
	uint32_t weight;
	uint64_t ip;
} mem_rows[] = {
	{20132, 20144, 28, 13166196585610ULL, 0x55ffba5cda08ULL, 0x11868100242ULL, 225, 0xffffffffa4470d46ULL},
	{17689, 18995, 29, 13166270989426ULL, 0xffffffffa5e120e8ULL, 0x11868100242ULL, 96, 0xffffffffa421a5fbULL},
	{3216, 3216, 0, 13167951101717ULL, 0xffffc36a5ba4ba40ULL, 0x10268100142ULL, 71, 0xffffffffa423a747ULL},
	{17662, 20595, 28, 13168187933858ULL, 0x4a1cba76618ULL, 0x11868100242ULL, 70, 0x12daae4ULL},
	{17575, 19460, 29, 13168694911129ULL, 0x4e7ca80ULL, 0x1026a100142ULL, 92, 0x29d9c67ULL},
	{17689, 26755, 28, 13170280662348ULL, 0xffff8b6d0d9cb308ULL, 0x10468100442ULL, 77, 0xffffffffa437f8beULL},
	{17564, 19360, 30, 13170286253167ULL, 0x448253ad3300ULL, 0x10650100842ULL, 240, 0x1ada15aULL},
	{17575, 19993, 0, 13170625334427ULL, 0xffff8b6ce18f1608ULL, 0x10668100842ULL, 70, 0xffffffffa423d68eULL},
	{17575, 20391, 29, 13171295203962ULL, 0x4609440bd6d0ULL, 0x10668100842ULL, 117, 0x19b3df9ULL},
	{3217, 3217, 28, 13171984881540ULL, 0xffffc36abf0c631cULL, 0x1026a100142ULL, 81, 0xffffffffa423a52bULL},
	{0, 0, 0, 13172846193128ULL, 0xffff8b6d1f362fdcULL, 0x10668100842ULL, 80, 0xffffffffa421c0eeULL},
	{0, 0, 1, 13172942733400ULL, 0xffff8b5520563cf8ULL, 0x11868100242ULL, 89, 0xffffffffa4222f49ULL},
	{3216, 3216, 28, 13172946888872ULL, 0xffffc36ac0131180ULL, 0x11868100242ULL, 249, 0xffffffffa423a4feULL},
	{17654, 19892, 29, 13173534502129ULL, 0x7fc3ada9f408ULL, 0x10268100142ULL, 168, 0x561c92f3f3edULL},
};

struct mem_ctx {
	size_t n;
	unsigned matched; /* bit per row */
};

/* perf script sorts by time; the file holds them in ring order, so rows
 * are found by time. */
static void check_mem_sample(const struct pms_sample *s, void *vctx)
{
	struct mem_ctx *c = vctx;
	const struct mem_row *w = NULL;
	size_t i;
	c->n++;
	for (i = 0; i < sizeof(mem_rows) / sizeof(mem_rows[0]); i++)
		if (mem_rows[i].time == s->time) {
			w = &mem_rows[i];
			break;
		}
	CHECK_MSG(w != NULL, "no perf script row has time %llu", (unsigned long long)s->time);
	if (!w)
		return;
	CHECK_MSG(!(c->matched & (1u << i)), "row %zu matched twice", i);
	c->matched |= 1u << i;
	CHECK_MSG(s->pid == w->pid && s->tid == w->tid && s->cpu == w->cpu &&
			  s->addr == w->addr && s->data_src == w->data_src &&
			  s->weight_var1_dw == w->weight && s->ip == w->ip,
		  "row %zu: got pid %u tid %u cpu %u addr 0x%llx data_src 0x%llx "
		  "weight %u ip 0x%llx",
		  i, s->pid, s->tid, s->cpu, (unsigned long long)s->addr,
		  (unsigned long long)s->data_src, s->weight_var1_dw, (unsigned long long)s->ip);
	CHECK(s->present & PMS_SAMPLE_WEIGHT_STRUCT);
}

PMS_TEST(weight_struct_samples_match_perf_script)
{
	char path[1024];
	struct pfile p;
	struct walk_stats st;
	struct mem_ctx c = {0};

	if (testdata(path, sizeof(path), "perf.data.weight_struct") < 0)
		PMS_SKIP("shared data (../shared/data) is absent");
	if (open_pfile(path, &p) < 0) {
		free(p.buf);
		PMS_SKIP("%s is absent", path);
	}
	walk("weight_struct", &p, check_mem_sample, &c, &st);
	CHECK_EQ_INT(c.n, sizeof(mem_rows) / sizeof(mem_rows[0]));
	CHECK_EQ_INT(c.matched, (1u << (sizeof(mem_rows) / sizeof(mem_rows[0]))) - 1);
	free(p.buf);
}

/* perf script -F brstack on perf.data.branch_stack_spec (AMD Zen4, LBRv2):
 * the first sample's first entry is 0xffffffff9dd022c4 -> 0xffffffff9dd022b2,
 * predicted, NON_SPEC_CORRECT_PATH; the second sample's first entry is
 * 0xffffffff9dcfdd1b -> 0xffffffff9dcfdda7, mispredicted. */
struct br_ctx {
	size_t n;
};

static void check_branch_sample(const struct pms_sample *s, void *vctx)
{
	struct br_ctx *c = vctx;
	size_t i = c->n++;
	CHECK(s->present & PMS_SAMPLE_BRANCH_STACK);
	CHECK_MSG(s->branch.nr > 0, "sample %zu has no branches", i);
	if (s->branch.nr == 0 || i > 1)
		return;
	struct pms_branch b = pms_branch_at(s->branch.entries, 0);
	if (i == 0) {
		CHECK_EQ_U64(s->ip, 0xffffffff9dd022bdULL);
		CHECK_EQ_U64(b.from, 0xffffffff9dd022c4ULL);
		CHECK_EQ_U64(b.to, 0xffffffff9dd022b2ULL);
		CHECK(b.predicted && !b.mispred);
		CHECK_EQ_INT(b.spec, 2); /* PERF_BR_NON_SPEC_CORRECT_PATH */
	} else {
		CHECK_EQ_U64(b.from, 0xffffffff9dcfdd1bULL);
		CHECK_EQ_U64(b.to, 0xffffffff9dcfdda7ULL);
		CHECK(b.mispred && !b.predicted);
	}
}

PMS_TEST(branch_stack_matches_perf_script)
{
	char path[1024];
	struct pfile p;
	struct walk_stats st;
	struct br_ctx c = {0};

	if (testdata(path, sizeof(path), "perf.data.branch_stack_spec") < 0)
		PMS_SKIP("shared data (../shared/data) is absent");
	if (open_pfile(path, &p) < 0) {
		free(p.buf);
		PMS_SKIP("%s is absent", path);
	}
	walk("branch_stack_spec", &p, check_branch_sample, &c, &st);
	CHECK_EQ_INT(c.n, 8);
	free(p.buf);
}

PMS_TEST_MAIN()
