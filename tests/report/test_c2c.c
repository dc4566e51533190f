/* The c2c model on synthetic samples: the metric each engine gets (HITM,
 * the SPE contention score, software sharers), --double-cl pairs, per-
 * process lines, nodes, threads and writers, latency classes, sort keys,
 * the line limit, nomap against maps, and option errors.  (perf's counts
 * themselves: test_c2c_perf.c, against perf c2c report.) */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pmuscope/c2c_text.h"
#include "pmuscope/c2c.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"

static uint64_t ds(unsigned op, unsigned lvl, unsigned snoop, unsigned snoopx, unsigned remote)
{
	struct pms_datasrc d;
	memset(&d, 0, sizeof(d));
	d.op = op;
	d.lvl = lvl;
	d.snoop = snoop;
	d.snoopx = snoopx;
	d.remote = remote;
	d.lock = PMS_MEM_LOCK_NA;
	return pms_datasrc_pack(&d);
}

#define LD PMS_MEM_OP_LOAD
#define ST PMS_MEM_OP_STORE
#define HIT PMS_MEM_LVL_HIT

static void add(struct pms_c2c *c, uint32_t pid, uint32_t tid, uint32_t cpu, uint64_t addr,
		uint64_t ip, bool has_ds, uint64_t d, uint64_t weight, int mem_node, int cpu_node)
{
	struct pms_memreport_sample x;
	memset(&x, 0, sizeof(x));
	x.s.valid = PMS_MS_IP | PMS_MS_TID | PMS_MS_CPU | PMS_MS_ADDR;
	x.s.ip = ip;
	x.s.pid = pid;
	x.s.tid = tid;
	x.s.cpu = cpu;
	x.s.addr = addr;
	if (has_ds) {
		x.s.valid |= PMS_MS_DATA_SRC;
		x.s.data_src = d;
	}
	if (weight) {
		x.s.valid |= PMS_MS_WEIGHT;
		x.s.weight = weight;
	}
	x.mem_node = mem_node;
	x.cpu_node = cpu_node;
	CHECK_OK(pms_c2c_add(c, &x));
}

PMS_TEST(classify_follows_perfs_rules)
{
	struct pms_c2c_stats s;
	memset(&s, 0, sizeof(s));
	/* L3 HITM: local HITM, not an LLC hit */
	CHECK_EQ_INT(pms_c2c_classify(ds(LD, PMS_MEM_LVL_L3 | HIT, PMS_MEM_SNOOP_HITM, 0, 0), true, &s), 0);
	CHECK_EQ_INT(s.lcl_hitm, 1);
	CHECK_EQ_INT(s.tot_hitm, 1);
	CHECK_EQ_INT(s.ld_llchit, 0);
	/* remote cache, no hit bit, peer: a remote hit and a remote peer */
	CHECK_EQ_INT(pms_c2c_classify(ds(LD, PMS_MEM_LVL_REM_CCE1, 0, PMS_MEM_SNOOPX_PEER, 1), true, &s), 0);
	CHECK_EQ_INT(s.rmt_hit, 1);
	CHECK_EQ_INT(s.rmt_peer, 1);
	CHECK_EQ_INT(s.tot_peer, 1);
	/* remote bit without hops (Skylake's "remote, level unknown") with
	 * HITM: a remote HITM, not remote DRAM (DRAM needs the hit bit) */
	CHECK_EQ_INT(pms_c2c_classify(ds(LD, PMS_MEM_LVL_L3 | PMS_MEM_LVL_MISS, PMS_MEM_SNOOP_HITM, 0, 1), true, &s), 0);
	CHECK_EQ_INT(s.rmt_hitm, 1);
	CHECK_EQ_INT(s.rmt_dram, 0);
	CHECK_EQ_INT(s.ld_miss, 1);
	/* a load without an address stops after the op */
	CHECK_EQ_INT(pms_c2c_classify(ds(LD, PMS_MEM_LVL_L1 | HIT, 0, 0, 0), false, &s), -1);
	CHECK_EQ_INT(s.ld_noadrs, 1);
	CHECK_EQ_INT(s.ld_l1hit, 0);
	/* store L1 miss; the "not available" value is unparsable */
	CHECK_EQ_INT(pms_c2c_classify(ds(ST, PMS_MEM_LVL_L1 | PMS_MEM_LVL_MISS, 0, 0, 0), true, &s), 0);
	CHECK_EQ_INT(s.st_l1miss, 1);
	CHECK_EQ_INT(pms_c2c_classify(PMS_MEM_NA_VALUE, true, &s), -1);
	CHECK_EQ_INT(s.noparse, 1);
	CHECK_EQ_INT(s.nr_entries, 6);
	CHECK_EQ_INT(pms_c2c_llc_misses(&s), 2); /* rmt_hit 1 + rmt_hitm 1 */
}

PMS_TEST(hitm_engine_lists_lines_with_hitm_and_sorts)
{
	struct pms_c2c *c = NULL;
	struct pms_c2c_report *r = NULL;
	CHECK_OK(pms_c2c_new(PMS_ENG_PEBS, NULL, &c));
	uint64_t hitm = ds(LD, PMS_MEM_LVL_L3 | HIT, PMS_MEM_SNOOP_HITM, 0, 0);
	uint64_t rhitm = ds(LD, PMS_MEM_LVL_REM_CCE1 | HIT, PMS_MEM_SNOOP_HITM, 0, 1);
	uint64_t st = ds(ST, PMS_MEM_LVL_L1 | HIT, 0, 0, 0);
	/* line A (0x1000): 3 HITM loads by tid 11 at +0, 2 stores by tid 12 at +8 */
	for (int i = 0; i < 3; i++)
		add(c, 10, 11, 0, 0x1000, 0x400100, true, hitm, 100 + (uint64_t)i, 0, 0);
	for (int i = 0; i < 2; i++)
		add(c, 10, 12, 2, 0x1008, 0x400200, true, st, 0, 0, 1);
	/* line B (0x2040): 1 remote HITM with weight 500 */
	add(c, 10, 11, 0, 0x2050, 0x400100, true, rhitm, 500, 1, 0);
	/* line C: only stores (not shared); same address in another process */
	add(c, 10, 11, 0, 0x3000, 0x400300, true, st, 0, 0, 0);
	add(c, 20, 21, 1, 0x1000, 0x400100, true, hitm, 0, 1, 0);
	CHECK_EQ_INT(pms_c2c_count(c), 8);
	CHECK_OK(pms_c2c_report(c, NULL, NULL, &r));
	if (r) {
		CHECK_EQ_INT(r->metric, PMS_C2C_TOT_HITM);
		CHECK(r->hitm_available);
		CHECK_EQ_INT(r->nlines_seen, 4);
		CHECK_EQ_INT(r->nshared, 3);
		CHECK_EQ_INT(r->nlines, 3);
		CHECK_EQ_INT(r->shared.store, 2);
		CHECK_EQ_U64(r->lines[0].addr, 0x1000);
		CHECK_EQ_INT(r->lines[0].pid, 10);
		CHECK_EQ_INT(r->lines[0].metric, 3);
		CHECK_EQ_INT(r->lines[0].nthreads, 2);
		CHECK_EQ_INT(r->lines[0].nwriters, 1);
		CHECK_EQ_INT(r->lines[0].nacc, 2);
		CHECK_EQ_INT(r->lines[0].ncpu_nodes, 2);
		CHECK_EQ_INT(r->lines[0].acc[0].offset, 0);
		CHECK_EQ_INT(r->lines[0].acc[0].lat[PMS_C2C_LAT_LCL_HITM].n, 3);
		CHECK_EQ_INT(r->lines[0].acc[0].lat[PMS_C2C_LAT_LCL_HITM].sum, 303);
		CHECK_EQ_INT(r->lines[0].acc[1].offset, 8);
		CHECK_EQ_INT(r->lines[0].acc[1].threads[0].tid, 12);
		CHECK_EQ_INT(r->lines[0].acc[1].threads[0].stores, 2);
		CHECK_EQ_STR(r->lines[0].acc[0].func, "[unknown]");
		/* ties (1 HITM each) in address, then pid order */
		CHECK_EQ_U64(r->lines[1].addr, 0x1000);
		CHECK_EQ_INT(r->lines[1].pid, 20);
		CHECK_EQ_U64(r->lines[2].addr, 0x2040);
		CHECK_EQ_INT(r->lines[2].nmem_nodes, 1);
		CHECK_EQ_INT(r->lines[2].mem_nodes[0], 1);
		CHECK_EQ_INT(r->lines[2].acc[0].offset, 0x10);
		CHECK_EQ_INT(r->lines[2].acc[0].lat[PMS_C2C_LAT_RMT_HITM].sum, 500);
	}
	pms_c2c_report_free(r);
	pms_c2c_free(c);

	/* sort by latency and a one-line limit; --all lists the store-only line */
	struct pms_c2c_opts o = PMS_C2C_OPTS_INIT;
	o.sort = PMS_C2C_SORT_LATENCY;
	o.max_lines = 1;
	CHECK_OK(pms_c2c_new(PMS_ENG_PEBS, &o, &c));
	add(c, 10, 11, 0, 0x1000, 0x400100, true, hitm, 100, 0, 0);
	add(c, 10, 11, 0, 0x2000, 0x400100, true, hitm, 900, 0, 0);
	add(c, 10, 11, 0, 0x3000, 0x400100, true, st, 0, 0, 0);
	CHECK_OK(pms_c2c_report(c, NULL, NULL, &r));
	if (r) {
		CHECK_EQ_INT(r->nlines, 1);
		CHECK_EQ_U64(r->lines[0].addr, 0x2000);
	}
	pms_c2c_report_free(r);
	pms_c2c_free(c);
	o = (struct pms_c2c_opts)PMS_C2C_OPTS_INIT;
	o.all_lines = true;
	o.sort = PMS_C2C_SORT_ADDRESS;
	CHECK_OK(pms_c2c_new(PMS_ENG_PEBS, &o, &c));
	add(c, 10, 11, 0, 0x3000, 0x400100, true, st, 0, 0, 0);
	add(c, 10, 11, 0, 0x1000, 0x400100, true, hitm, 0, 0, 0);
	CHECK_OK(pms_c2c_report(c, NULL, NULL, &r));
	if (r) {
		CHECK_EQ_INT(r->nlines, 2);
		CHECK_EQ_INT(r->nshared, 1);
		CHECK_EQ_U64(r->lines[0].addr, 0x1000);
	}
	pms_c2c_report_free(r);
	pms_c2c_free(c);
}

PMS_TEST(spe_gets_the_labelled_score_and_double_cl_pairs)
{
	struct pms_c2c *c = NULL;
	struct pms_c2c_report *r = NULL;
	struct pms_c2c_opts o = PMS_C2C_OPTS_INIT;
	o.double_cl = true;
	CHECK_OK(pms_c2c_new(PMS_ENG_SPE, &o, &c));
	uint64_t peer = ds(LD, PMS_MEM_LVL_L2 | HIT, 0, PMS_MEM_SNOOPX_PEER, 0);
	uint64_t rmt = ds(LD, PMS_MEM_LVL_REM_CCE1 | HIT, PMS_MEM_SNOOP_HIT, 0, 1);
	/* 0x1000 and 0x1040 are one 128-byte pair */
	add(c, 10, 11, 0, 0x1000, 0x400100, true, peer, 50, 0, 0);
	add(c, 10, 12, 1, 0x1048, 0x400200, true, rmt, 70, 1, 1);
	add(c, 10, 12, 1, 0x1080, 0x400200, true, ds(LD, PMS_MEM_LVL_L1 | HIT, 0, 0, 0), 5, 1, 1);
	CHECK_OK(pms_c2c_report(c, NULL, NULL, &r));
	if (r) {
		CHECK_EQ_INT(r->metric, PMS_C2C_SCORE);
		CHECK(!r->hitm_available);
		CHECK(strstr(r->metric_label, "contention score") != NULL);
		CHECK(strstr(r->metric_label, "no HITM") != NULL);
		CHECK_EQ_INT(r->nlines_seen, 2);
		CHECK_EQ_INT(r->nlines, 1);
		CHECK_EQ_U64(r->lines[0].addr, 0x1000);
		CHECK_EQ_INT(r->lines[0].size, 128);
		CHECK_EQ_INT(r->lines[0].metric, 2); /* lcl_peer 1 + rmt_hit 1 */
		CHECK_EQ_INT(r->lines[0].nmem_nodes, 2);
		CHECK_EQ_INT(r->lines[0].acc[1].offset, 0x48);
	}
	pms_c2c_report_free(r);
	pms_c2c_free(c);
}

PMS_TEST(software_lists_lines_of_several_threads)
{
	struct pms_c2c *c = NULL;
	struct pms_c2c_report *r = NULL;
	struct pms_maps *m = NULL;
	CHECK_OK(pms_c2c_new(PMS_ENG_SOFTWARE, NULL, &c));
	CHECK_OK(pms_maps_new(&m));
	CHECK_OK(pms_maps_add(m, 0x400000, 0x1000, 0, 5, true, "/bin/x"));
	CHECK_OK(pms_maps_add(m, 0x7f0000000000ULL, 0x10000, 0, 0, false, ""));
	/* line 1: two threads, different nodes; line 2: one thread */
	add(c, 10, 11, 0, 0x7f0000000400ULL, 0x400010, false, 0, 0, 0, 0);
	add(c, 10, 12, 3, 0x7f0000000408ULL, 0x400020, false, 0, 0, 0, 1);
	add(c, 10, 12, 3, 0x7f0000000440ULL, 0x400020, false, 0, 0, 0, 1);
	/* an IP in no mapping: perf's nomap only counts parsed samples */
	add(c, 10, 12, 3, 0x7f0000000440ULL, 0x999000, false, 0, 0, 0, 1);
	CHECK_OK(pms_c2c_report(c, m, NULL, &r));
	if (r) {
		CHECK_EQ_INT(r->metric, PMS_C2C_SHARERS);
		CHECK(strstr(r->metric_label, "no data source") != NULL);
		CHECK_EQ_INT(r->total.noparse, 4);
		CHECK_EQ_INT(r->total.nomap, 0);
		CHECK_EQ_INT(r->nshared, 1);
		CHECK_EQ_INT(r->nlines, 1);
		CHECK_EQ_U64(r->lines[0].addr, 0x7f0000000400ULL);
		CHECK_EQ_INT(r->lines[0].nthreads, 2);
		CHECK_EQ_INT(r->lines[0].ncpu_nodes, 2);
		CHECK_EQ_STR(r->lines[0].object_kind, "anon");
		CHECK_EQ_INT(r->lines[0].mem_nodes[0], 0);
	}
	pms_c2c_report_free(r);
	pms_c2c_free(c);

	/* nomap: a parsed load whose IP is in no mapping */
	CHECK_OK(pms_c2c_new(PMS_ENG_PEBS, NULL, &c));
	add(c, 10, 11, 0, 0x7f0000000400ULL, 0x999000, true, ds(LD, PMS_MEM_LVL_L1 | HIT, 0, 0, 0), 0, 0, 0);
	add(c, 10, 11, 0, 0x7f0000000400ULL, 0x400010, true, ds(LD, PMS_MEM_LVL_L1 | HIT, 0, 0, 0), 0, 0, 0);
	add(c, 10, 11, 0, 0x100, 0x400010, true, ds(LD, PMS_MEM_LVL_L1 | HIT, 0, 0, 0), 0, 0, 0);
	CHECK_OK(pms_c2c_report(c, m, NULL, &r));
	if (r)
		CHECK_EQ_INT(r->total.nomap, 2);
	pms_c2c_report_free(r);
	pms_c2c_free(c);
	pms_maps_free(m);
}

static void sb_mmap(struct pms_c2c *c, uint32_t pid, uint64_t addr, uint64_t len, const char *path)
{
	struct pms_record r;
	memset(&r, 0, sizeof(r));
	r.type = PMS_RECORD_MMAP2;
	r.mmap.pid = r.mmap.tid = pid;
	r.mmap.addr = addr;
	r.mmap.len = len;
	r.mmap.filename = path;
	CHECK_OK(pms_c2c_sideband(c, &r));
}

/* perf's nomap with side-band: per process, a forked process inherits its
 * parent's maps, a kernel-mode sample's data address is looked up in the
 * kernel's maps only, its IP in both. */
PMS_TEST(nomap_per_process_from_sideband)
{
	struct pms_c2c *c = NULL;
	struct pms_c2c_report *r = NULL;
	uint64_t l1 = ds(LD, PMS_MEM_LVL_L1 | HIT, 0, 0, 0);
	CHECK_OK(pms_c2c_new(PMS_ENG_PEBS, NULL, &c));
	sb_mmap(c, 10, 0x400000, 0x1000, "/bin/x");
	sb_mmap(c, 10, 0x600000, 0x1000, "//anon");
	sb_mmap(c, UINT32_MAX, 0xffffffff81000000ULL, 0x1000000, "[kernel.kallsyms]_text");
	struct pms_record f;
	memset(&f, 0, sizeof(f));
	f.type = PMS_RECORD_FORK;
	f.fork.pid = f.fork.tid = 20;
	f.fork.ppid = f.fork.ptid = 10;
	CHECK_OK(pms_c2c_sideband(c, &f));
	add(c, 10, 10, 0, 0x600010, 0x400010, true, l1, 0, -1, -1); /* mapped */
	add(c, 20, 20, 0, 0x600010, 0x400010, true, l1, 0, -1, -1); /* inherited: mapped */
	add(c, 30, 30, 0, 0x600010, 0x400010, true, l1, 0, -1, -1); /* pid 30: no maps */
	/* a kernel-mode sample: its IP in the kernel's maps; a user data
	 * address does not count as mapped, a kernel text one does */
	struct pms_memreport_sample x;
	memset(&x, 0, sizeof(x));
	x.s.valid = PMS_MS_IP | PMS_MS_TID | PMS_MS_ADDR | PMS_MS_DATA_SRC | PMS_MS_KERNEL_IP;
	x.s.pid = x.s.tid = 10;
	x.s.ip = 0xffffffff81000100ULL;
	x.s.addr = 0x600020;
	x.s.data_src = l1;
	x.mem_node = x.cpu_node = -1;
	CHECK_OK(pms_c2c_add(c, &x));
	x.s.addr = 0xffffffff81000800ULL;
	CHECK_OK(pms_c2c_add(c, &x));
	CHECK_OK(pms_c2c_report(c, NULL, NULL, &r));
	if (r)
		CHECK_EQ_INT(r->total.nomap, 2);
	pms_c2c_report_free(r);
	pms_c2c_free(c);
}

PMS_TEST(names_and_errors)
{
	enum pms_c2c_metric m;
	enum pms_c2c_sort s;
	CHECK_OK(pms_c2c_metric_parse("tot", &m));
	CHECK_EQ_INT(m, PMS_C2C_TOT_HITM);
	CHECK_OK(pms_c2c_metric_parse("peer", &m));
	CHECK_EQ_STR(pms_c2c_metric_name(m), "peer");
	CHECK_EQ_INT(pms_c2c_metric_parse("hitm!", &m), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "hitm!") != NULL);
	CHECK_OK(pms_c2c_sort_parse("latency", &s));
	CHECK_EQ_STR(pms_c2c_sort_name(s), "latency");
	CHECK_EQ_INT(pms_c2c_sort_parse(NULL, &s), PMS_EINVAL);
	struct pms_c2c_opts o = PMS_C2C_OPTS_INIT;
	struct pms_c2c *c = NULL;
	o.version = 99;
	CHECK_EQ_INT(pms_c2c_new(PMS_ENG_PEBS, &o, &c), PMS_EINVAL);
	CHECK(c == NULL);
	pms_c2c_free(NULL);
	pms_c2c_report_free(NULL);
	/* an empty collector gives an empty report */
	struct pms_c2c_report *r = NULL;
	CHECK_OK(pms_c2c_new(PMS_ENG_NONE, NULL, &c));
	CHECK_OK(pms_c2c_report(c, NULL, NULL, &r));
	if (r) {
		CHECK_EQ_INT(r->nlines, 0);
		CHECK_EQ_INT(r->samples, 0);
	}
	pms_c2c_report_free(r);
	pms_c2c_free(c);
}

/* Each named statistic reads its own field of the stats struct. */
PMS_TEST(stat_names_and_values)
{
	struct pms_c2c_stats s;
	memset(&s, 0, sizeof(s));
	s.nr_entries = 11;
	s.load = 7;
	s.rmt_hitm = 3;
	s.store = 2;
	size_t n = pms_c2c_stat_count();
	CHECK(n > 20);
	size_t seen = 0;
	for (size_t i = 0; i < n; i++) {
		const char *k = pms_c2c_stat_name(i);
		CHECK(k != NULL);
		if (!k)
			continue;
		uint64_t v = pms_c2c_stat_value(&s, i);
		uint64_t want = !strcmp(k, "nr_entries") ? 11 : !strcmp(k, "load") ? 7
			      : !strcmp(k, "rmt_hitm") ? 3 : !strcmp(k, "store") ? 2 : 0;
		CHECK_MSG(v == want, "%s = %llu", k, (unsigned long long)v);
		seen += want != 0;
	}
	CHECK_EQ_U64(seen, 4);
	CHECK(pms_c2c_stat_name(n) == NULL);
	CHECK_EQ_U64(pms_c2c_stat_value(&s, n), 0);
}

PMS_TEST_MAIN()
