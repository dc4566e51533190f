/* Call-path collectors merged (report/pathprof_merge.h, issue 33's --jobs
 * split): a stream of samples cut in parts, one collector each, merged in
 * order, reports what one collector of the whole stream reports: counts,
 * the top lists in the same order, every path (`all`), the kept samples'
 * path of each, the last branches.  And the top lists of many paths with
 * ties (the selection of the top, not a sort of all) match a full order. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/pathprof.h"
#include "pmuscope/record.h"
#include "report/pathprof_merge.h"

#define NSAMPLES 6000

static uint64_t rng = 88172645463325252ULL;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Sample i of the stream: a path of 1-5 frames over a few hundred distinct
 * ones (some kernel, some none), a weight or not, nodes or not, and a
 * branch entry on every third. */
struct one {
	struct pms_frame f[5];
	size_t n;
	uint64_t weight;
	int mem, cpu;
	unsigned char br[24];
	bool has_br;
};

static struct one stream[NSAMPLES];

static void make_stream(void)
{
	for (size_t i = 0; i < NSAMPLES; i++) {
		struct one *o = &stream[i];
		uint64_t r = next_rand();
		o->n = (size_t)(r % 6); /* 0: no path */
		for (size_t k = 0; k < o->n; k++) {
			uint64_t q = next_rand();
			o->f[k].ip = k == 0 && (q & 7) == 0 ? 0xffffffff81000000ULL + (q >> 60)
							    : 0x400000 + 0x10 * ((q >> 8) % 7);
			o->f[k].flags = o->f[k].ip >= 0xffffffff80000000ULL ? PMS_FRAME_KERNEL : 0;
		}
		o->weight = (r >> 8) & 1 ? (r >> 16) % 500 : 0;
		o->mem = (r >> 30) % 3 - 1;
		o->cpu = (r >> 33) % 2;
		o->has_br = i % 3 == 0;
		uint64_t from = 0x500000 + 8 * ((r >> 40) % 9), to = from + 0x100;
		uint64_t fl = (r >> 50) & 1; /* mispredicted */
		memcpy(o->br, &from, 8);
		memcpy(o->br + 8, &to, 8);
		memcpy(o->br + 16, &fl, 8);
	}
}

static void add(struct pms_pathprof *p, const struct one *o)
{
	struct pms_record rec;
	struct pms_memsrc_sample x;
	memset(&rec, 0, sizeof(rec));
	memset(&x, 0, sizeof(x));
	x.ms.valid = PMS_MS_IP | (o->weight ? PMS_MS_WEIGHT : 0);
	x.ms.weight = o->weight;
	x.mem_node = o->mem;
	x.cpu_node = o->cpu;
	x.path.frames = o->f;
	x.path.n = o->n;
	x.path.how = o->n ? PMS_CALLGRAPH_FP : PMS_CALLGRAPH_NONE;
	x.path.truncated = o->n == 5 && o->weight > 400;
	if (o->has_br) {
		rec.sample.present = PMS_SAMPLE_BRANCH_STACK;
		rec.sample.branch.nr = 1;
		rec.sample.branch.entries = o->br;
		x.rec = &rec;
	}
	CHECK_OK(pms_pathprof_add_src(p, &x, NULL));
}

static void same_paths(const struct pms_pathreport *x, const struct pms_pathreport *y,
		       enum pms_pathreport_order which)
{
	size_t nx = pms_pathreport_path_count(x, which), ny = pms_pathreport_path_count(y, which);
	CHECK_EQ_U64(nx, ny);
	for (size_t i = 0; i < nx && i < ny; i++) {
		const struct pms_pathreport_path *a = pms_pathreport_path_at(x, which, i);
		const struct pms_pathreport_path *b = pms_pathreport_path_at(y, which, i);
		CHECK_EQ_U64(a->samples, b->samples);
		CHECK_EQ_U64(a->latency, b->latency);
		CHECK_EQ_U64(a->weighted, b->weighted);
		CHECK_EQ_U64(a->resolved, b->resolved);
		CHECK_EQ_U64(a->remote, b->remote);
		CHECK_EQ_INT(a->truncated, b->truncated);
		CHECK_EQ_U64(a->nframes, b->nframes);
		for (size_t k = 0; k < a->nframes && k < b->nframes; k++) {
			CHECK_EQ_U64(a->frames[k].ip, b->frames[k].ip);
			CHECK_EQ_U64(a->frames[k].flags, b->frames[k].flags);
		}
	}
}

static void same_branches(const struct pms_pathreport *x, const struct pms_pathreport *y,
			  enum pms_pathreport_branch_order which)
{
	size_t nx = pms_pathreport_branch_count(x, which), ny = pms_pathreport_branch_count(y, which);
	CHECK_EQ_U64(nx, ny);
	CHECK(nx > 0);
	for (size_t i = 0; i < nx && i < ny; i++) {
		const struct pms_pathreport_branch *a = pms_pathreport_branch_at(x, which, i);
		const struct pms_pathreport_branch *b = pms_pathreport_branch_at(y, which, i);
		CHECK_EQ_U64(a->from, b->from);
		CHECK_EQ_U64(a->to, b->to);
		CHECK_EQ_U64(a->samples, b->samples);
		CHECK_EQ_U64(a->latency, b->latency);
		CHECK_EQ_U64(a->mispredicted, b->mispredicted);
	}
}

static void same_report(const struct pms_pathreport *x, const struct pms_pathreport *y)
{
	CHECK_EQ_U64(pms_pathreport_samples(x), pms_pathreport_samples(y));
	CHECK_EQ_U64(pms_pathreport_samples(x), NSAMPLES);
	CHECK_EQ_U64(pms_pathreport_with_path(x), pms_pathreport_with_path(y));
	CHECK_EQ_U64(pms_pathreport_without_path(x), pms_pathreport_without_path(y));
	CHECK_EQ_U64(pms_pathreport_truncated(x), pms_pathreport_truncated(y));
	CHECK_EQ_U64(pms_pathreport_distinct(x), pms_pathreport_distinct(y));
	CHECK(pms_pathreport_distinct(x) > 100);
	CHECK_EQ_U64(pms_pathreport_with_branches(x), pms_pathreport_with_branches(y));
	CHECK_EQ_INT(pms_pathreport_how(x), pms_pathreport_how(y));
	same_paths(x, y, PMS_PATHS_BY_SAMPLES);
	same_paths(x, y, PMS_PATHS_BY_LATENCY);
	same_paths(x, y, PMS_PATHS_BY_REMOTE);
	same_paths(x, y, PMS_PATHS_ALL);
	same_branches(x, y, PMS_BRANCHES_BY_SAMPLES);
	same_branches(x, y, PMS_BRANCHES_BY_LATENCY);
	CHECK_EQ_U64(pms_pathreport_sample_path_count(x), pms_pathreport_sample_path_count(y));
	for (size_t i = 0; i < pms_pathreport_sample_path_count(x); i++)
		if (pms_pathreport_sample_path(x, i) != pms_pathreport_sample_path(y, i)) {
			CHECK_EQ_U64(pms_pathreport_sample_path(x, i), pms_pathreport_sample_path(y, i));
			break;
		}
}

/* The stream cut at cuts[0..ncut) (ascending), one collector a part,
 * merged in order into a fresh one (the session's). */
static struct pms_pathreport *merged(struct pms_sys *sys, const struct pms_pathprof_opts *o,
				     const size_t *cuts, size_t ncut)
{
	struct pms_pathprof *dst = NULL, *part = NULL;
	struct pms_pathreport *r = NULL;
	CHECK_OK(pms_pathprof_new(sys, o, &dst));
	for (size_t k = 0, from = 0; dst && k <= ncut; k++) {
		size_t to = k < ncut ? cuts[k] : NSAMPLES;
		CHECK_OK(pms_pathprof_twin(dst, &part));
		for (size_t i = from; part && i < to; i++)
			add(part, &stream[i]);
		CHECK_OK(pms_pathprof_merge(dst, part));
		pms_pathprof_free(part);
		part = NULL;
		from = to;
	}
	CHECK_OK(pms_pathprof_report(dst, NULL, NULL, false, &r));
	pms_pathprof_free(dst);
	return r;
}

PMS_TEST(merge_in_parts)
{
	struct pms_sys *sys = NULL;
	CHECK_OK(pms_sys_new(&sys, NULL));
	make_stream();
	static const size_t cut1[] = { 3000 }, cut3[] = { 1, 2500, 2501 }, cut0[] = { 0, NSAMPLES };
	for (int mode = 0; mode < 4; mode++) {
		struct pms_pathprof_opts o = PMS_PATHPROF_OPTS_INIT;
		o.top = mode == 3 ? 200 : 7;
		o.kept_samples = mode == 1;
		o.top_only = mode >= 2;
		o.hide_kernel = mode == 2;
		struct pms_pathprof *one = NULL;
		struct pms_pathreport *r1 = NULL;
		CHECK_OK(pms_pathprof_new(sys, &o, &one));
		for (size_t i = 0; one && i < NSAMPLES; i++)
			add(one, &stream[i]);
		CHECK_OK(pms_pathprof_report(one, NULL, NULL, false, &r1));
		struct pms_pathreport *ra = merged(sys, &o, cut1, 1);
		struct pms_pathreport *rb = merged(sys, &o, cut3, 3);
		struct pms_pathreport *rc = merged(sys, &o, cut0, 2);
		if (r1 && ra && rb && rc) {
			CHECK_EQ_INT(pms_pathreport_kept(r1), o.kept_samples);
			if (o.kept_samples)
				CHECK_EQ_U64(pms_pathreport_sample_path_count(r1), NSAMPLES);
			same_report(r1, ra);
			same_report(r1, rb);
			same_report(r1, rc);
		}
		pms_pathreport_free(r1);
		pms_pathreport_free(ra);
		pms_pathreport_free(rb);
		pms_pathreport_free(rc);
		pms_pathprof_free(one);
	}
	pms_sys_free(sys);
}

PMS_TEST(merge_refuses)
{
	struct pms_sys *sys = NULL;
	struct pms_pathprof *a = NULL, *b = NULL;
	struct pms_pathprof_opts o = PMS_PATHPROF_OPTS_INIT, k = PMS_PATHPROF_OPTS_INIT;
	k.kept_samples = true;
	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK_OK(pms_pathprof_new(sys, &o, &a));
	CHECK_OK(pms_pathprof_new(sys, &k, &b));
	CHECK_EQ_INT(pms_pathprof_merge(a, b), PMS_EINVAL); /* different options */
	CHECK_EQ_INT(pms_pathprof_merge(a, a), PMS_EINVAL);
	CHECK_EQ_INT(pms_pathprof_merge(NULL, a), PMS_EINVAL);
	CHECK_EQ_INT(pms_pathprof_twin(NULL, &b), PMS_EINVAL);
	pms_pathprof_free(a);
	pms_pathprof_free(b);
	pms_sys_free(sys);
}

/* Many paths with equal counts: the top lists (a selection of the top) are
 * the first of one full order, the same as with every path listed. */
PMS_TEST(top_of_ties)
{
	struct pms_sys *sys = NULL;
	CHECK_OK(pms_sys_new(&sys, NULL));
	struct pms_pathreport *r[2] = { NULL, NULL };
	for (int m = 0; m < 2; m++) {
		struct pms_pathprof_opts o = PMS_PATHPROF_OPTS_INIT;
		struct pms_pathprof *p = NULL;
		o.top = 9;
		o.top_only = m == 1;
		CHECK_OK(pms_pathprof_new(sys, &o, &p));
		for (uint64_t i = 0; p && i < 3000; i++) {
			struct one s;
			memset(&s, 0, sizeof(s));
			s.n = 2;
			s.f[0].ip = 0x1000 + 0x10 * ((i * 7919) % 1500); /* 1500 paths, 2 samples each */
			s.f[1].ip = 0x9000;
			s.weight = i % 4 ? 100 : 0;
			s.mem = 0;
			s.cpu = i % 5 ? 0 : 1;
			add(p, &s);
		}
		CHECK_OK(pms_pathprof_report(p, NULL, NULL, false, &r[m]));
		pms_pathprof_free(p);
	}
	if (r[0] && r[1]) {
		CHECK_EQ_U64(pms_pathreport_path_count(r[1], PMS_PATHS_BY_SAMPLES), 9);
		CHECK_EQ_U64(pms_pathreport_path_count(r[1], PMS_PATHS_ALL), 0);
		same_paths(r[0], r[1], PMS_PATHS_BY_SAMPLES);
		same_paths(r[0], r[1], PMS_PATHS_BY_LATENCY);
		same_paths(r[0], r[1], PMS_PATHS_BY_REMOTE);
		/* the first by samples is the first of `all` */
		CHECK_EQ_U64(pms_pathreport_path_at(r[0], PMS_PATHS_ALL, 0)->frames[0].ip,
			     pms_pathreport_path_at(r[1], PMS_PATHS_BY_SAMPLES, 0)->frames[0].ip);
	}
	pms_pathreport_free(r[0]);
	pms_pathreport_free(r[1]);
	pms_sys_free(sys);
}

PMS_TEST_MAIN()
