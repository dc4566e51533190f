/* pms_memprof_merge: profiles of several "files" (mappings and samples each,
 * one source each) merged in order give the report of one profile fed the
 * files one after the other, field by field (report_diff.c) and in the
 * sources; the merge refuses what it cannot merge. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/report.h"
#include "report_diff.h"

#define PG 4096ULL
#define NFILES 3

static uint64_t ds(unsigned op, unsigned lvl, unsigned lvlnum, unsigned snoop)
{
	struct pms_datasrc d = { 0 };
	d.op = op;
	d.lvl = lvl;
	d.lvl_num = lvlnum;
	d.snoop = snoop;
	d.dtlb = PMS_MEM_TLB_NA;
	return pms_datasrc_pack(&d);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void mmap2(struct pms_memprof *p, uint32_t pid, uint64_t addr, uint64_t len,
		  const char *path, uint32_t prot)
{
	struct pms_record rec = { 0 };
	rec.type = PMS_RECORD_MMAP2;
	rec.mmap.pid = rec.mmap.tid = pid;
	rec.mmap.addr = addr;
	rec.mmap.len = len;
	rec.mmap.prot = prot;
	rec.mmap.filename = path;
	CHECK_OK(pms_memprof_sideband(p, &rec, NULL));
}

/* File f: a host of its own, a shared mapping (the same start in every
 * file: one object, the first file's name), mappings of its own (one
 * replaced half-way), code, and samples over all of them and over
 * addresses no file maps; some weights above the histogram's exact part;
 * nodes resolved, not present, not mapped and not asked. */
static void feed(struct pms_memprof *p, int f)
{
	static const char *hosts[NFILES] = { "alpha", "beta", "alpha" };
	const uint64_t lv[4] = {
		ds(PMS_MEM_OP_LOAD, PMS_MEM_LVL_L1 | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_L1, PMS_MEM_SNOOP_NA),
		ds(PMS_MEM_OP_LOAD, PMS_MEM_LVL_LOC_RAM | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_RAM,
		   PMS_MEM_SNOOP_HIT),
		ds(PMS_MEM_OP_STORE, PMS_MEM_LVL_L1 | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_L1, PMS_MEM_SNOOP_NA),
		ds(PMS_MEM_OP_LOAD, PMS_MEM_LVL_L3 | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_L3, PMS_MEM_SNOOP_MISS),
	};
	uint64_t own = 0x7f0000000000ULL + (uint64_t)f * 0x10000000ULL;
	uint64_t seed = 0x9e3779b97f4a7c15ULL * (uint64_t)(f + 1);
	CHECK_OK(pms_memprof_set_source(p, hosts[f]));
	mmap2(p, 100, 0x400000, 0x10000, "/usr/bin/app", 5);
	mmap2(p, 100, 0x600000000000ULL, 64 * PG, "//anon", 3);
	mmap2(p, 100 + (uint32_t)f, own, 256 * PG, "//anon", 3);
	for (int i = 0; i < 3000; i++) {
		if (i == 1500) /* half of its own region becomes a file */
			mmap2(p, 100 + (uint32_t)f, own + 128 * PG, 128 * PG, "/data/f.bin", 3);
		uint64_t x = rnd(&seed);
		struct pms_memsample s = { 0 };
		s.valid = PMS_MS_IP | PMS_MS_CPU | PMS_MS_WEIGHT | PMS_MS_DATA_SRC | PMS_MS_TID;
		s.pid = s.tid = 100 + (uint32_t)f;
		s.ip = 0x401000 + 4 * (x % (97 + 31 * (uint64_t)f));
		s.cpu = (uint32_t)(x >> 8) % 4;
		s.weight = x % 50 ? (x >> 16) % 3000 + 1 : 70000 + (x >> 20) % 5000000;
		s.data_src = lv[(x >> 24) % 4];
		int mem = PMS_NODE_UNKNOWN;
		switch ((x >> 28) % 5) {
		case 0:
			s.addr = 0x600000000000ULL + (x >> 32) % (64 * PG);
			break;
		case 1:
		case 2:
			s.addr = own + (x >> 32) % (256 * PG);
			break;
		case 3:
			s.addr = 0x10000 + (x >> 32) % PG; /* no file maps it */
			break;
		default:
			break; /* no address */
		}
		if ((x >> 28) % 5 != 4) {
			s.valid |= PMS_MS_ADDR;
			mem = (x >> 40) % 9 == 0 ? -ENOENT : (x >> 40) % 9 == 1 ? -EFAULT : (int)((x >> 44) % 3);
		}
		CHECK_OK(pms_memprof_add_node(p, &s, mem, (int)(s.cpu / 2)));
	}
}

static struct pms_memprof *profile(void)
{
	struct pms_memprof *p = NULL;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.aggregate = true;
	po.top = 1000;
	CHECK_OK(pms_memprof_new(NULL, &po, &p));
	return p;
}

static struct pms_memreport *report_of(struct pms_memprof *p)
{
	struct pms_memreport_input in = { .engine = PMS_ENG_PEBS, .data_src = true };
	struct pms_memreport *r = NULL;
	CHECK_OK(pms_memprof_report(p, NULL, &in, &r));
	return r;
}

static void same_reports(struct pms_memreport *a, struct pms_memreport *b)
{
	CHECK(a && b);
	if (!a || !b)
		return;
	CHECK_EQ_INT(pms_t_report_diff(a, b), 0);
	CHECK_EQ_U64(a->nsources, b->nsources);
	for (size_t i = 0; i < a->nsources && i < b->nsources; i++) {
		CHECK_EQ_STR(a->sources[i].name, b->sources[i].name);
		CHECK_EQ_U64(a->sources[i].samples, b->sources[i].samples);
	}
	CHECK_EQ_U64(a->nobjects, b->nobjects);
}

PMS_TEST(merged_in_order_equals_one_after_the_other)
{
	struct pms_memprof *one = profile(), *part[NFILES], *into = profile();
	for (int f = 0; f < NFILES; f++) {
		feed(one, f);
		part[f] = profile();
		feed(part[f], f);
	}
	/* into an empty profile, and into the first file's own */
	for (int f = 0; f < NFILES; f++)
		CHECK_OK(pms_memprof_merge(into, part[f]));
	for (int f = 1; f < NFILES; f++)
		CHECK_OK(pms_memprof_merge(part[0], part[f]));
	CHECK_EQ_U64(pms_memprof_count(into), 3 * 3000);
	struct pms_memreport *r1 = report_of(one), *r2 = report_of(into), *r3 = report_of(part[0]);
	same_reports(r1, r2);
	same_reports(r1, r3);
	if (r1) {
		CHECK_EQ_U64(r1->nsources, 2); /* alpha (files 0 and 2), beta */
		CHECK(r1->latency.max >= 70000);
	}
	/* the sources each part had are still its own */
	struct pms_memreport *r4 = report_of(part[1]);
	if (r4) {
		CHECK_EQ_U64(r4->samples, 3000);
		CHECK_EQ_U64(r4->nsources, 1);
	}
	pms_memreport_free(r1);
	pms_memreport_free(r2);
	pms_memreport_free(r3);
	pms_memreport_free(r4);
	for (int f = 0; f < NFILES; f++)
		pms_memprof_free(part[f]);
	pms_memprof_free(one);
	pms_memprof_free(into);
}

PMS_TEST(merge_refuses_what_it_cannot_merge)
{
	struct pms_memprof *a = profile(), *k = NULL;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT; /* kept samples */
	CHECK_OK(pms_memprof_new(NULL, &po, &k));
	CHECK(pms_memprof_merge(a, k) == PMS_EINVAL);
	CHECK(pms_memprof_merge(k, a) == PMS_EINVAL);
	CHECK(pms_memprof_merge(a, a) == PMS_EINVAL);
	CHECK(pms_memprof_merge(NULL, a) == PMS_EINVAL);
	CHECK(pms_memprof_merge(a, NULL) == PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "memprof merge") != NULL);
	/* an empty profile merges to nothing */
	struct pms_memprof *e = profile();
	CHECK_OK(pms_memprof_merge(a, e));
	CHECK_EQ_U64(pms_memprof_count(a), 0);
	pms_memprof_free(a);
	pms_memprof_free(e);
	pms_memprof_free(k);
}

PMS_TEST_MAIN()
