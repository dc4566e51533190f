/* IBS-, PEBS-, SPE- and software-like sample streams through the whole
 * pipeline (collector -> batched node oracle on the fake kernel -> report),
 * with every number asserted. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fake_kernel.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/report.h"
#include "topo/topo_int.h" /* a topology built or read whole */

/* Stand-ins for the workload's code: their addresses are sample IPs, so the
 * symbolizer has real functions to name. */
__attribute__((noinline)) uint64_t pms_t_chase(const uint64_t *w, uint64_t i, long n);
__attribute__((noinline)) uint64_t pms_t_chase(const uint64_t *w, uint64_t i, long n)
{
	while (n-- > 0)
		i = w[i];
	return i;
}
__attribute__((noinline)) void pms_t_fill(uint64_t *w, long n);
__attribute__((noinline)) void pms_t_fill(uint64_t *w, long n)
{
	for (long i = 0; i < n; i++)
		w[i] = (uint64_t)i;
}

#define BASE 0x7f1200000000ULL
#define PG 4096ULL

/* Four CPUs on two nodes; node 0 holds memory blocks 0-1, node 1 blocks 2-3. */
static struct pms_topo_cpu cpus[4];
static struct pms_topo_node nodes[2];
static uint64_t blocks0[2] = { 0, 1 }, blocks1[2] = { 2, 3 };
static struct pms_topo topo;
#define BLOCK (128ULL << 20)

static void make_topo(void)
{
	memset(&topo, 0, sizeof(topo));
	for (int c = 0; c < 4; c++)
		cpus[c] = (struct pms_topo_cpu){ .cpu = c, .online = true, .node = c / 2 };
	nodes[0] = (struct pms_topo_node){ .id = 0, .has_memory = true, .mem_blocks = blocks0,
					   .nmem_blocks = 2 };
	nodes[1] = (struct pms_topo_node){ .id = 1, .has_memory = true, .mem_blocks = blocks1,
					   .nmem_blocks = 2 };
	topo.cpus = cpus;
	topo.ncpus = 4;
	topo.nodes = nodes;
	topo.nnodes = 2;
	topo.mem_block_size = BLOCK;
}

static uint64_t ds(unsigned op, unsigned lvl, unsigned lvlnum)
{
	struct pms_datasrc d = { 0 };
	d.op = op;
	d.lvl = lvl;
	d.lvl_num = lvlnum;
	d.snoop = PMS_MEM_SNOOP_NA;
	d.dtlb = PMS_MEM_TLB_NA;
	return pms_datasrc_pack(&d);
}

static uint64_t level_count(const struct pms_memreport *r, const char *name)
{
	for (size_t i = 0; i < r->nlevels; i++)
		if (!strcmp(r->levels[i].name, name))
			return r->levels[i].samples;
	return 0;
}

static struct pms_symbolizer *self_symbolizer(struct pms_sys *real)
{
	struct pms_maps *m = NULL;
	struct pms_symbolizer *sym = NULL;
	CHECK_OK(pms_maps_new(&m));
	CHECK_OK(pms_maps_read_proc(m, real, getpid()));
	CHECK_OK(pms_symbolizer_new(real, m, &sym));
	pms_maps_free(m);
	return sym;
}

PMS_TEST(ibs_stream_through_the_pipeline)
{
	make_topo();
	struct fk *fk = fk_new();
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	so.ops = fk_ops(fk);
	struct pms_sys *sys = NULL, *real = NULL;
	CHECK_OK(pms_sys_new(&sys, &so));
	CHECK_OK(pms_sys_new(&real, NULL));
	for (int p = 0; p < 64; p++)
		fk_set_page(fk, BASE + (uint64_t)p * PG, p < 48 ? 0 : 1);

	struct pms_numa_opts no = PMS_NUMA_OPTS_INIT;
	no.pid = 4242;
	struct pms_numa_oracle *o = NULL;
	CHECK_OK(pms_numa_oracle_new(sys, &topo, &no, &o));
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.pid = 4242;
	po.home_node = 0;
	po.home_start = BASE;
	po.home_end = BASE + 64 * PG;
	po.home_name = "chase buffer";
	struct pms_memprof *p = NULL;
	CHECK_OK(pms_memprof_new(&topo, &po, &p));

	uint64_t chase_ip = (uint64_t)(uintptr_t)&pms_t_chase + 8;
	uint64_t fill_ip = (uint64_t)(uintptr_t)&pms_t_fill + 4;
	const uint64_t RAM = ds(PMS_MEM_OP_LOAD, PMS_MEM_LVL_LOC_RAM | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_RAM);
	const uint64_t L1 = ds(PMS_MEM_OP_LOAD, PMS_MEM_LVL_L1 | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_L1);
	const uint64_t L2 = ds(PMS_MEM_OP_LOAD, PMS_MEM_LVL_L2 | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_L2);
	const uint64_t ST = ds(PMS_MEM_OP_STORE, PMS_MEM_LVL_L1 | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_L1);
	char l1txt[64], ramtxt[64], l2txt[64];
	pms_datasrc_format_mem(L1, l1txt, sizeof(l1txt));
	pms_datasrc_format_mem(RAM, ramtxt, sizeof(ramtxt));
	pms_datasrc_format_mem(L2, l2txt, sizeof(l2txt));
	CHECK_EQ_STR(ramtxt, "RAM hit");
	CHECK_EQ_STR(l1txt, "L1 hit");

	int calls = 0;
	for (int i = 0; i < 82; i++) {
		struct pms_memsample s = { 0 };
		s.valid = PMS_MS_IP | PMS_MS_TID | PMS_MS_CPU | PMS_MS_ADDR | PMS_MS_DATA_SRC |
			  PMS_MS_EXACT_IP;
		s.engine = PMS_ENG_IBS;
		s.pid = s.tid = 4242;
		if (i < 60) { /* the pointer-chase load */
			s.ip = chase_ip;
			s.addr = BASE + (uint64_t)(i % 64) * PG + 8;
			s.cpu = i < 50 ? (unsigned)(i % 2) : 2u;
			if (i % 3 == 0) {
				s.data_src = RAM;
				s.weight = 300 + (uint64_t)i;
				s.valid |= PMS_MS_WEIGHT;
			} else if (i % 3 == 1) {
				s.data_src = L1;
			} else {
				s.data_src = L2;
				s.weight = 20;
				s.valid |= PMS_MS_WEIGHT;
			}
		} else if (i < 80) { /* stores that hit L1 */
			s.ip = fill_ip;
			s.addr = BASE + 16;
			s.cpu = 0;
			s.data_src = ST;
		} else { /* an unmapped data address */
			s.ip = fill_ip;
			s.addr = 0x1000;
			s.cpu = 1;
			s.data_src = PMS_MEM_NA_VALUE;
		}
		CHECK_OK(pms_memprof_add(p, &s));
		if (i == 39) { /* end of the first drain */
			int c = pms_memprof_resolve(p, o);
			CHECK_OK(c);
			calls += c;
		}
	}
	int c = pms_memprof_resolve(p, o);
	CHECK_OK(c);
	calls += c;
	CHECK_EQ_INT(calls, 2);
	CHECK_EQ_INT((int)fk->move_pages_calls, 2);
	CHECK_EQ_INT((int)fk->get_mempolicy_calls, 0);

	struct pms_symbolizer *sym = self_symbolizer(real);
	struct pms_numa_stats nst;
	pms_numa_oracle_stats(o, &nst);
	struct pms_memreport_input in = { .engine = PMS_ENG_IBS, .pmus = "ibs_op", .label = "IBS",
					  .notes = "", .data_src = true, .numa = &nst };
	struct pms_memreport *r = NULL;
	CHECK_OK(pms_memprof_report(p, sym, &in, &r));
	if (!r)
		return;
	CHECK_EQ_U64(r->samples, 82);
	CHECK(r->data_src_available);
	CHECK_EQ_STR(r->data_src_note, "");
	CHECK_EQ_U64(r->with_data_src, 80);
	CHECK_EQ_U64(level_count(r, "L1 hit"), 40);
	CHECK_EQ_U64(level_count(r, "RAM hit"), 20);
	CHECK_EQ_U64(level_count(r, l2txt), 20);
	CHECK_EQ_STR(r->levels[0].name, "L1 hit"); /* most samples first */
	/* 20 weights of 20 and 300, 303, ..., 357 */
	CHECK_EQ_U64(r->latency.n, 40);
	CHECK_EQ_U64(r->latency.min, 20);
	CHECK_EQ_U64(r->latency.median, 20);
	CHECK_EQ_U64(r->latency.p90, 345);
	CHECK_EQ_U64(r->latency.p99, 357);
	CHECK_EQ_U64(r->latency.max, 357);
	/* nodes */
	CHECK_EQ_U64(r->resolved, 80);
	CHECK_EQ_U64(r->on_home, 68);
	CHECK_EQ_U64(r->elsewhere, 12);
	CHECK_EQ_U64(r->unresolved, 2);
	CHECK_EQ_U64(r->st_efault, 2);
	CHECK_EQ_INT((int)r->nnodes, 2);
	CHECK_EQ_U64(r->matrix[0 * 2 + 0], 68);
	CHECK_EQ_U64(r->matrix[0 * 2 + 1], 2);
	CHECK_EQ_U64(r->matrix[1 * 2 + 0], 0);
	CHECK_EQ_U64(r->matrix[1 * 2 + 1], 10);
	/* the top instruction is the pointer-chase load, by samples and latency */
	CHECK(r->ntop_ips_samples == 2);
	CHECK_EQ_U64(r->top_ips_samples[0].addr, chase_ip);
	CHECK_EQ_U64(r->top_ips_samples[0].samples, 60);
	CHECK_EQ_STR(r->top_ips_samples[0].name, "pms_t_chase");
	CHECK(r->top_ips_samples[0].file && strstr(r->top_ips_samples[0].file, "test_memprof.c"));
	CHECK(r->top_ips_samples[0].line > 0);
	CHECK_EQ_U64(r->top_ips_latency[0].addr, chase_ip);
	CHECK_EQ_U64(r->top_ips_latency[0].latency, 20 * 20 + 20 * 300 + 3 * (19 * 20 / 2));
	CHECK_EQ_INT((int)r->ntop_ips_latency, 1); /* the stores carry no weight */
	CHECK_EQ_STR(r->top_funcs_samples[0].name, "pms_t_chase");
	CHECK_EQ_U64(r->top_funcs_samples[0].remote, 2);
	CHECK_EQ_U64(r->top_funcs_samples[0].resolved, 60);
	CHECK_EQ_STR(r->top_funcs_samples[1].name, "pms_t_fill");
	CHECK_EQ_U64(r->top_funcs_samples[1].remote, 0);
	/* data objects */
	CHECK_EQ_INT((int)r->ntop_objects, 2);
	CHECK_EQ_STR(r->top_objects[0].name, "chase buffer");
	CHECK_EQ_STR(r->top_objects[0].kind, "workload");
	CHECK_EQ_U64(r->top_objects[0].samples, 80);
	CHECK_EQ_U64(r->top_objects[0].on_home, 68);
	CHECK_EQ_STR(r->top_objects[1].name, "[unmapped]");
	CHECK_EQ_U64(r->nall, 82);
	CHECK_EQ_INT(r->all[81].mem_node, -EFAULT);
	CHECK_EQ_INT(r->all[55].mem_node, 1);
	CHECK_EQ_INT(r->all[55].cpu_node, 1);
	pms_memreport_free(r);
	pms_symbolizer_free(sym);
	pms_memprof_free(p);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
	pms_sys_free(real);
	fk_free(fk);
}

PMS_TEST(spe_stream_nodes_from_physical_addresses)
{
	make_topo();
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.home_node = 1;
	struct pms_memprof *p = NULL;
	CHECK_OK(pms_memprof_new(&topo, &po, &p));
	const uint64_t RAM = ds(PMS_MEM_OP_LOAD, PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_RAM);
	for (int i = 0; i < 30; i++) {
		struct pms_memsample s = { 0 };
		s.valid = PMS_MS_IP | PMS_MS_CPU | PMS_MS_ADDR | PMS_MS_PHYS | PMS_MS_DATA_SRC |
			  PMS_MS_WEIGHT;
		s.engine = PMS_ENG_SPE;
		s.ip = 0x400000 + (uint64_t)(i % 2) * 4;
		s.addr = BASE + (uint64_t)i * 64;
		/* 20 in node 1's blocks, 10 in node 0's */
		s.phys_addr = (i < 20 ? 2 * BLOCK : 0) + (uint64_t)i * PG;
		s.cpu = 3;
		s.data_src = RAM;
		s.weight = (uint64_t)(i + 1) * 10;
		CHECK_OK(pms_memprof_add(p, &s));
	}
	/* No live process to ask: physical addresses are enough. */
	CHECK_EQ_INT(pms_memprof_resolve(p, NULL), 0);
	struct pms_memreport_input in = { .engine = PMS_ENG_SPE, .data_src = true, .phys = true };
	struct pms_memreport *r = NULL;
	CHECK_OK(pms_memprof_report(p, NULL, &in, &r));
	if (!r)
		return;
	CHECK_EQ_U64(r->resolved, 30);
	CHECK_EQ_U64(r->from_phys, 30);
	CHECK_EQ_U64(r->on_home, 20);
	CHECK_EQ_U64(r->elsewhere, 10);
	CHECK_EQ_U64(r->matrix[1 * 2 + 1], 20);
	CHECK_EQ_U64(r->matrix[1 * 2 + 0], 10);
	CHECK_EQ_U64(r->latency.min, 10);
	CHECK_EQ_U64(r->latency.median, 150);
	CHECK_EQ_U64(r->latency.p90, 270);
	CHECK_EQ_U64(r->latency.p99, 300);
	CHECK_EQ_U64(level_count(r, "RAM hit"), 30);
	CHECK_EQ_STR(r->top_ips_samples[0].name, "[unknown]");
	CHECK_EQ_U64(r->top_ips_samples[0].remote, 5); /* half of the 10 node-0 samples */
	pms_memreport_free(r);
	pms_memprof_free(p);
}

PMS_TEST(pebs_latency_percentiles_and_kernel_ips_hidden)
{
	make_topo();
	struct pms_memprof *p = NULL;
	CHECK_OK(pms_memprof_new(&topo, NULL, &p));
	/* weights 1..1000 in a scrambled order */
	for (uint64_t i = 0; i < 1000; i++) {
		struct pms_memsample s = { 0 };
		s.valid = PMS_MS_IP | PMS_MS_WEIGHT | PMS_MS_DATA_SRC;
		s.engine = PMS_ENG_PEBS;
		s.ip = i < 10 ? 0xffffffff81234560ULL : 0x401000;
		if (i < 10)
			s.valid |= PMS_MS_KERNEL_IP;
		s.weight = (i * 389) % 1000 + 1;
		s.data_src = ds(PMS_MEM_OP_LOAD, PMS_MEM_LVL_L3 | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_L3);
		CHECK_OK(pms_memprof_add(p, &s));
	}
	CHECK_OK(pms_memprof_resolve(p, NULL));
	struct pms_memreport_input in = { .engine = PMS_ENG_PEBS, .data_src = true };
	struct pms_memreport *r = NULL;
	/* No symbolizer: nobody said kernel addresses may be shown. */
	CHECK_OK(pms_memprof_report(p, NULL, &in, &r));
	if (!r)
		return;
	CHECK_EQ_U64(r->latency.min, 1);
	CHECK_EQ_U64(r->latency.median, 500);
	CHECK_EQ_U64(r->latency.p90, 900);
	CHECK_EQ_U64(r->latency.p99, 990);
	CHECK_EQ_U64(r->latency.max, 1000);
	CHECK_EQ_U64(r->no_addr, 1000);
	CHECK(!r->kernel_visible);
	CHECK_EQ_STR(r->top_ips_samples[1].name, "[kernel]");
	CHECK(r->top_ips_samples[1].addr_hidden);
	CHECK_EQ_U64(r->top_ips_samples[1].addr, 0);
	CHECK_EQ_U64(r->all[0].s.ip, 0);
	pms_memreport_free(r);
	pms_memprof_free(p);
}

PMS_TEST(software_fallback_says_data_source_unavailable)
{
	make_topo();
	struct pms_memprof *p = NULL;
	CHECK_OK(pms_memprof_new(&topo, NULL, &p));
	struct pms_memsample s = { 0 };
	s.valid = PMS_MS_IP | PMS_MS_ADDR | PMS_MS_CPU;
	s.engine = PMS_ENG_SOFTWARE;
	s.ip = 0x401000;
	s.addr = BASE;
	CHECK_OK(pms_memprof_add(p, &s));
	CHECK_OK(pms_memprof_resolve(p, NULL));
	struct pms_memreport_input in = { .engine = PMS_ENG_SOFTWARE, .data_src = false };
	struct pms_memreport *r = NULL;
	CHECK_OK(pms_memprof_report(p, NULL, &in, &r));
	if (!r)
		return;
	CHECK(!r->data_src_available);
	CHECK_EQ_STR(r->data_src_note,
		     "data source unavailable: software-event sampling does not report it");
	/* every sample has a level: without a data source it is perf's "N/A" */
	CHECK_EQ_INT((int)r->nlevels, 1);
	if (r->nlevels) {
		CHECK_EQ_STR(r->levels[0].name, "N/A");
		CHECK_EQ_U64(r->levels[0].samples, 1);
	}
	CHECK_EQ_U64(r->with_data_src, 0);
	CHECK_EQ_INT((int)r->nops, 0);
	CHECK_EQ_U64(r->latency.n, 0);
	CHECK_EQ_U64(r->unresolved, 1);
	CHECK_EQ_U64(r->st_not_asked, 1); /* no oracle: not guessed */
	pms_memreport_free(r);
	pms_memprof_free(p);
}

PMS_TEST(sideband_maps_and_invalidation)
{
	struct fk *fk = fk_new();
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	so.ops = fk_ops(fk);
	struct pms_sys *sys = NULL;
	CHECK_OK(pms_sys_new(&sys, &so));
	struct pms_numa_oracle *o = NULL;
	struct pms_numa_opts no = PMS_NUMA_OPTS_INIT;
	no.pid = 77; /* the cache answers for process 77 */
	CHECK_OK(pms_numa_oracle_new(sys, NULL, &no, &o));
	struct pms_memprof *p = NULL;
	CHECK_OK(pms_memprof_new(NULL, NULL, &p));
	fk_set_page(fk, BASE, 0);
	uint64_t a = BASE;
	int n;
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, &a, 1, &n), 1);
	struct pms_record rec = { 0 };
	rec.type = PMS_RECORD_MMAP2;
	rec.mmap.pid = rec.mmap.tid = 78; /* another process's mmap: 77's pages stay */
	rec.mmap.addr = BASE;
	rec.mmap.len = 2 * PG;
	rec.mmap.prot = 3;
	rec.mmap.filename = "//anon";
	CHECK_OK(pms_memprof_sideband(p, &rec, o));
	CHECK_EQ_INT(pms_numa_oracle_cached(o, BASE), 0);
	rec.mmap.pid = rec.mmap.tid = 77; /* its own: they go */
	CHECK_OK(pms_memprof_sideband(p, &rec, o));
	CHECK_EQ_INT(pms_numa_oracle_cached(o, BASE), PMS_NODE_UNKNOWN);
	/* system-wide: each process's mappings apart, the union for symbols */
	CHECK(pms_maps_find(pms_memprof_maps_pid(p, 77), BASE + 5) != NULL);
	CHECK(pms_maps_find(pms_memprof_maps_pid(p, 78), BASE + 5) != NULL);
	rec.mmap.pid = rec.mmap.tid = 78;
	rec.mmap.addr = BASE + 16 * PG;
	CHECK_OK(pms_memprof_sideband(p, &rec, o));
	CHECK(pms_maps_find(pms_memprof_maps_pid(p, 77), BASE + 16 * PG) == NULL);
	CHECK(pms_maps_find(pms_memprof_maps_pid(p, 78), BASE + 16 * PG) != NULL);
	CHECK(pms_maps_find(pms_memprof_maps(p), BASE + 16 * PG) != NULL);
	rec.mmap.addr = BASE;
	const struct pms_map *m = pms_maps_find(pms_memprof_maps(p), BASE + 5);
	CHECK(m && m->kind == PMS_MAP_ANON && !m->exec);
	CHECK_EQ_INT(pms_numa_oracle_resolve(o, &a, 1, &n), 1);
	rec = (struct pms_record){ 0 };
	/* another process's exit leaves 77's pages; 77's own drops them */
	rec.type = PMS_RECORD_EXIT;
	rec.fork.pid = rec.fork.tid = 78;
	CHECK_OK(pms_memprof_sideband(p, &rec, o));
	CHECK_EQ_INT(pms_numa_oracle_cached(o, BASE), 0);
	rec.fork.pid = rec.fork.tid = 77;
	CHECK_OK(pms_memprof_sideband(p, &rec, o));
	CHECK_EQ_INT(pms_numa_oracle_cached(o, BASE), PMS_NODE_UNKNOWN);
	pms_memprof_free(p);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
	fk_free(fk);
}

PMS_TEST(percentile_nearest_rank)
{
	uint64_t v[5] = { 1, 2, 3, 4, 5 };
	CHECK_EQ_U64(pms_percentile(v, 5, 50), 3);
	CHECK_EQ_U64(pms_percentile(v, 5, 90), 5);
	CHECK_EQ_U64(pms_percentile(v, 5, 20), 1);
	CHECK_EQ_U64(pms_percentile(v, 1, 99), 1);
	CHECK_EQ_U64(pms_percentile(v, 0, 50), 0);
}

/* One stream through both modes: the aggregate report must equal the
 * kept-samples one in every count (weights < 65536 keep exact percentiles). */
static void feed(struct pms_memprof *p)
{
	struct pms_record rec = { 0 };
	rec.type = PMS_RECORD_MMAP2;
	rec.mmap.addr = BASE;
	rec.mmap.len = 64 * PG;
	rec.mmap.prot = 3;
	rec.mmap.filename = "//anon";
	CHECK_OK(pms_memprof_sideband(p, &rec, NULL));
	const uint64_t L1 = ds(PMS_MEM_OP_LOAD, PMS_MEM_LVL_L1 | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_L1);
	const uint64_t RAM = ds(PMS_MEM_OP_LOAD, PMS_MEM_LVL_LOC_RAM | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_RAM);
	const uint64_t ST = ds(PMS_MEM_OP_STORE, PMS_MEM_LVL_L1 | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_L1);
	for (uint64_t i = 0; i < 5000; i++) {
		struct pms_memsample s = { 0 };
		s.valid = PMS_MS_IP | PMS_MS_CPU | PMS_MS_WEIGHT | PMS_MS_DATA_SRC;
		s.ip = 0x401000 + 4 * (i % 37);
		s.cpu = (uint32_t)(i % 4);
		s.weight = (i * 7919) % 3001 + 1;
		s.data_src = i % 3 == 0 ? RAM : i % 3 == 1 ? L1 : ST;
		if (i % 10) {
			s.valid |= PMS_MS_ADDR;
			s.addr = i % 5 ? BASE + (i % 64) * PG : 0x1000;
		}
		int mem = !(s.valid & PMS_MS_ADDR) ? PMS_NODE_UNKNOWN : i % 7 == 0 ? -EFAULT : (int)(i % 2);
		CHECK_OK(pms_memprof_add_node(p, &s, mem, (int)(s.cpu / 2)));
	}
}

PMS_TEST(aggregate_mode_equals_kept_samples)
{
	make_topo();
	struct pms_memprof *pk = NULL, *pa = NULL;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.home_node = 1;
	CHECK_OK(pms_memprof_new(&topo, &po, &pk));
	po.aggregate = true;
	CHECK_OK(pms_memprof_new(&topo, &po, &pa));
	if (!pk || !pa)
		return;
	feed(pk);
	feed(pa);
	CHECK_OK(pms_memprof_resolve(pk, NULL));
	CHECK_EQ_U64(pms_memprof_count(pa), 5000);
	struct pms_memreport_input in = { .engine = PMS_ENG_PEBS, .data_src = true };
	struct pms_memreport *k = NULL, *a = NULL;
	CHECK_OK(pms_memprof_report(pk, NULL, &in, &k));
	CHECK_OK(pms_memprof_report(pa, NULL, &in, &a));
	if (!k || !a)
		return;
	CHECK_EQ_U64(a->nall, 0);
	CHECK_EQ_U64(k->nall, 5000);
	CHECK_EQ_U64(a->samples, k->samples);
	CHECK_EQ_U64(a->with_addr, k->with_addr);
	CHECK_EQ_U64(a->with_data_src, k->with_data_src);
	CHECK_EQ_U64(a->nlevels, k->nlevels);
	for (size_t i = 0; i < k->nlevels && i < a->nlevels; i++) {
		CHECK_EQ_STR(a->levels[i].name, k->levels[i].name);
		CHECK_EQ_U64(a->levels[i].samples, k->levels[i].samples);
	}
	CHECK_EQ_U64(a->nops, k->nops);
	for (size_t i = 0; i < k->nops && i < a->nops; i++)
		CHECK_EQ_U64(a->ops[i].samples, k->ops[i].samples);
	CHECK_EQ_U64(a->latency.n, k->latency.n);
	CHECK_EQ_U64(a->latency.min, k->latency.min);
	CHECK_EQ_U64(a->latency.median, k->latency.median);
	CHECK_EQ_U64(a->latency.p90, k->latency.p90);
	CHECK_EQ_U64(a->latency.p99, k->latency.p99);
	CHECK_EQ_U64(a->latency.max, k->latency.max);
	CHECK(a->latency.mean > k->latency.mean - 1e-6 && a->latency.mean < k->latency.mean + 1e-6);
	CHECK_EQ_U64(a->resolved, k->resolved);
	CHECK_EQ_U64(a->unresolved, k->unresolved);
	CHECK_EQ_U64(a->st_efault, k->st_efault);
	CHECK_EQ_U64(a->st_not_asked, k->st_not_asked);
	CHECK_EQ_U64(a->no_addr, k->no_addr);
	CHECK_EQ_U64(a->on_home, k->on_home);
	CHECK_EQ_U64(a->elsewhere, k->elsewhere);
	CHECK_EQ_U64(a->nnodes, k->nnodes);
	for (size_t i = 0; i < k->nnodes * k->nnodes && a->nnodes == k->nnodes; i++)
		CHECK_EQ_U64(a->matrix[i], k->matrix[i]);
	CHECK_EQ_U64(a->matrix_cpu_unknown, k->matrix_cpu_unknown);
	CHECK_EQ_U64(a->ntop_ips_samples, k->ntop_ips_samples);
	for (size_t i = 0; i < k->ntop_ips_samples && i < a->ntop_ips_samples; i++) {
		CHECK_EQ_U64(a->top_ips_samples[i].addr, k->top_ips_samples[i].addr);
		CHECK_EQ_U64(a->top_ips_samples[i].samples, k->top_ips_samples[i].samples);
		CHECK_EQ_U64(a->top_ips_samples[i].latency, k->top_ips_samples[i].latency);
		CHECK_EQ_U64(a->top_ips_samples[i].remote, k->top_ips_samples[i].remote);
		CHECK_EQ_U64(a->top_ips_latency[i].addr, k->top_ips_latency[i].addr);
	}
	CHECK_EQ_U64(a->ntop_funcs_samples, k->ntop_funcs_samples);
	CHECK_EQ_U64(a->top_funcs_samples[0].samples, k->top_funcs_samples[0].samples);
	CHECK_EQ_U64(a->ntop_objects, k->ntop_objects);
	for (size_t i = 0; i < k->ntop_objects && i < a->ntop_objects; i++) {
		CHECK_EQ_STR(a->top_objects[i].name, k->top_objects[i].name);
		CHECK_EQ_STR(a->top_objects[i].kind, k->top_objects[i].kind);
		CHECK_EQ_U64(a->top_objects[i].samples, k->top_objects[i].samples);
		CHECK_EQ_U64(a->top_objects[i].on_home, k->top_objects[i].on_home);
	}
	/* a second report from the same aggregate is the same */
	struct pms_memreport *a2 = NULL;
	CHECK_OK(pms_memprof_report(pa, NULL, &in, &a2));
	if (a2)
		CHECK_EQ_U64(a2->top_ips_samples[0].samples, a->top_ips_samples[0].samples);
	pms_memreport_free(a2);
	pms_memreport_free(k);
	pms_memreport_free(a);
	pms_memprof_free(pk);
	pms_memprof_free(pa);
	/* set_node_ids is for the aggregate mode only */
	CHECK_OK(pms_memprof_new(&topo, NULL, &pk));
	int ids[1] = { 3 };
	CHECK_EQ_INT(pms_memprof_set_node_ids(pk, ids, 1), PMS_EINVAL);
	pms_memprof_free(pk);
}

/* Above 65536 cycles the histogram keeps 9 significant bits: percentiles
 * are the bucket's lowest value, within 1/256 below the exact one. */
PMS_TEST(aggregate_latency_histogram_bounds)
{
	struct pms_memprof *pa = NULL, *pk = NULL;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	CHECK_OK(pms_memprof_new(NULL, &po, &pk));
	po.aggregate = true;
	CHECK_OK(pms_memprof_new(NULL, &po, &pa));
	if (!pa || !pk)
		return;
	int ids[3] = { 0, 4, 2 };
	CHECK_OK(pms_memprof_set_node_ids(pa, ids, 3));
	for (uint64_t i = 0; i < 10000; i++) {
		struct pms_memsample s = { 0 };
		s.valid = PMS_MS_WEIGHT;
		s.weight = i < 5000 ? i + 1 : 1000000 + (i * 104729) % 9000000;
		CHECK_OK(pms_memprof_add(pa, &s));
		CHECK_OK(pms_memprof_add(pk, &s));
	}
	struct pms_memreport_input in = { .engine = PMS_ENG_PEBS, .data_src = true };
	struct pms_memreport *k = NULL, *a = NULL;
	CHECK_OK(pms_memprof_report(pk, NULL, &in, &k));
	CHECK_OK(pms_memprof_report(pa, NULL, &in, &a));
	if (!k || !a)
		return;
	CHECK_EQ_U64(a->latency.min, k->latency.min);
	CHECK_EQ_U64(a->latency.max, k->latency.max);
	const uint64_t want[3] = { k->latency.median, k->latency.p90, k->latency.p99 };
	const uint64_t got[3] = { a->latency.median, a->latency.p90, a->latency.p99 };
	for (int i = 0; i < 3; i++) {
		if (!(got[i] <= want[i] && got[i] >= want[i] - want[i] / 256))
			printf("percentile %d: histogram %llu, exact %llu\n", i,
			       (unsigned long long)got[i], (unsigned long long)want[i]);
		CHECK(got[i] <= want[i] && got[i] >= want[i] - want[i] / 256);
	}
	CHECK_EQ_U64(a->latency.median, 5000); /* below 65536: exact */
	CHECK_EQ_U64(a->nnodes, 3);
	CHECK_EQ_INT(a->node_ids[0], 0);
	CHECK_EQ_INT(a->node_ids[1], 2);
	CHECK_EQ_INT(a->node_ids[2], 4);
	CHECK_EQ_U64(a->no_addr, 10000);
	pms_memreport_free(k);
	pms_memreport_free(a);
	pms_memprof_free(pk);
	pms_memprof_free(pa);
}

/* The weights' count, least, most and mean: below 65536 read off the
 * histogram, above kept as they come; each of the three mixes (only
 * below, only above, both with the least above and the most below
 * impossible, so the least below and the most above) equal to the kept
 * samples' exact figures. */
PMS_TEST(aggregate_latency_extremes_and_mean)
{
	for (int mix = 0; mix < 3; mix++) {
		struct pms_memprof *pa = NULL, *pk = NULL;
		struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
		CHECK_OK(pms_memprof_new(NULL, &po, &pk));
		po.aggregate = true;
		CHECK_OK(pms_memprof_new(NULL, &po, &pa));
		if (!pa || !pk)
			return;
		for (uint64_t i = 0; i < 3000; i++) {
			struct pms_memsample s = { 0 };
			uint64_t lo = 7 + (i * 7919) % 60000, hi = 65536 + (i * 104729) % 5000000;
			s.valid = i % 5 ? PMS_MS_WEIGHT : 0; /* some without a weight */
			s.weight = mix == 0 ? lo : mix == 1 ? hi : (i % 2 ? lo : hi);
			CHECK_OK(pms_memprof_add(pa, &s));
			CHECK_OK(pms_memprof_add(pk, &s));
		}
		struct pms_memreport_input in = { .engine = PMS_ENG_PEBS, .data_src = true };
		struct pms_memreport *k = NULL, *a = NULL;
		CHECK_OK(pms_memprof_report(pk, NULL, &in, &k));
		CHECK_OK(pms_memprof_report(pa, NULL, &in, &a));
		if (k && a) {
			CHECK_EQ_U64(a->latency.n, 2400);
			CHECK_EQ_U64(a->latency.n, k->latency.n);
			CHECK_EQ_U64(a->latency.min, k->latency.min);
			CHECK_EQ_U64(a->latency.max, k->latency.max);
			CHECK(a->latency.mean == k->latency.mean); /* both exact sums */
			if (mix == 0)
				CHECK_EQ_U64(a->latency.p99, k->latency.p99);
		}
		pms_memreport_free(k);
		pms_memreport_free(a);
		pms_memprof_free(pk);
		pms_memprof_free(pa);
	}
}

PMS_TEST(add_node_survives_resolve)
{
	make_topo();
	struct pms_memprof *p = NULL;
	CHECK_OK(pms_memprof_new(&topo, NULL, &p));
	if (!p)
		return;
	struct pms_memsample s = { 0 };
	s.valid = PMS_MS_ADDR | PMS_MS_PHYS | PMS_MS_CPU;
	s.addr = BASE;
	s.phys_addr = 2 * BLOCK; /* node 1 by the topology */
	CHECK_OK(pms_memprof_add(p, &s));      /* pending: resolved below */
	s.phys_addr = 0;
	CHECK_OK(pms_memprof_add_node(p, &s, 0, 0)); /* given: kept */
	CHECK_OK(pms_memprof_resolve(p, NULL));
	struct pms_memreport_input in = { .engine = PMS_ENG_SPE, .data_src = true };
	struct pms_memreport *r = NULL;
	CHECK_OK(pms_memprof_report(p, NULL, &in, &r));
	if (r) {
		CHECK_EQ_U64(r->nall, 2);
		CHECK_EQ_INT(r->all[0].mem_node, 1);
		CHECK(r->all[0].node_from_phys);
		CHECK_EQ_INT(r->all[1].mem_node, 0);
		CHECK_EQ_U64(r->resolved, 2);
	}
	pms_memreport_free(r);
	pms_memprof_free(p);
}

PMS_TEST_MAIN()

/* ---- issue 13: race retries, held exits, per-process rows, N/A -------- */

static struct pms_memsample pid_sample(uint32_t pid, uint32_t tid, uint64_t addr, int cpu)
{
	struct pms_memsample s = { 0 };
	s.valid = PMS_MS_IP | PMS_MS_TID | PMS_MS_ADDR | PMS_MS_CPU;
	s.engine = PMS_ENG_SOFTWARE;
	s.ip = 0x401000;
	s.pid = pid;
	s.tid = tid;
	s.addr = addr;
	s.cpu = (uint32_t)cpu;
	return s;
}

/* A page-fault sample comes before its page is mapped: the first answer is
 * -EFAULT; later resolves ask again and take the node; a page that never
 * appears is asked PMS_MEMPROF_RESOLVE_TRIES times, then once more when its
 * process is held at exit, and no more. */
PMS_TEST(race_retried_then_resolved_bounded)
{
	make_topo();
	struct fk *fk = fk_new();
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	so.ops = fk_ops(fk);
	struct pms_sys *sys = NULL;
	CHECK_OK(pms_sys_new(&sys, &so));
	struct pms_numa_oracle *o = NULL;
	CHECK_OK(pms_numa_oracle_new(sys, &topo, NULL, &o));
	struct pms_memprof *p = NULL;
	CHECK_OK(pms_memprof_new(&topo, NULL, &p));
	struct pms_memsample a = pid_sample(10, 10, BASE, 0), b = pid_sample(10, 10, BASE + PG, 0);
	CHECK_OK(pms_memprof_add(p, &a));
	CHECK_OK(pms_memprof_add(p, &b));
	CHECK_EQ_INT(pms_memprof_resolve(p, o), 1); /* both -EFAULT: not mapped yet */
	fk_set_page(fk, BASE, 1);                   /* the fault completes */
	long calls = fk->move_pages_calls;
	for (int i = 0; i < 20; i++)
		(void)pms_memprof_resolve(p, o);
	/* BASE resolved on the 2nd ask; BASE+PG asked 6 times in all */
	CHECK_EQ_INT((int)(fk->move_pages_calls - calls), PMS_MEMPROF_RESOLVE_TRIES - 1);
	CHECK_EQ_INT(pms_memprof_resolve_task(p, o, 10, 11), 1); /* the held thread: once more */
	CHECK_EQ_INT(pms_memprof_resolve_task(p, o, 10, 11), 0); /* and no more */
	struct pms_memreport_input in = { .engine = PMS_ENG_SOFTWARE };
	struct pms_memreport *r = NULL;
	CHECK_OK(pms_memprof_report(p, NULL, &in, &r));
	if (r) {
		CHECK_EQ_U64(r->resolved, 1);
		CHECK_EQ_U64(r->st_efault, 1);
		CHECK_EQ_U64(r->retried_samples, 2);
		CHECK_EQ_U64(r->retry_resolved, 1);
		CHECK_EQ_U64(r->retries, 1 + PMS_MEMPROF_RESOLVE_TRIES);
		CHECK_EQ_INT(r->all[0].tries, 2);
		CHECK_EQ_INT(r->all[1].tries, PMS_MEMPROF_RESOLVE_TRIES + 1);
	}
	pms_memreport_free(r);
	pms_memprof_free(p);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
	fk_free(fk);
}

/* Samples are asked about per process (one batch each), a held process
 * only through its own samples; rows per process and thread carry the
 * COMM names (a fork keeps its parent's), levels with N/A, home node and
 * remote share. */
PMS_TEST(per_process_rows_and_batches)
{
	make_topo();
	struct fk *fk = fk_new();
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	so.ops = fk_ops(fk);
	struct pms_sys *sys = NULL;
	CHECK_OK(pms_sys_new(&sys, &so));
	struct pms_numa_oracle *o = NULL;
	CHECK_OK(pms_numa_oracle_new(sys, &topo, NULL, &o));
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.functions_per_pid = true;
	struct pms_memprof *p = NULL;
	CHECK_OK(pms_memprof_new(&topo, &po, &p));
	for (int i = 0; i < 4; i++)
		fk_set_page(fk, BASE + (uint64_t)i * PG, i < 3 ? 0 : 1);
	struct pms_record rec = { 0 };
	rec.type = PMS_RECORD_COMM;
	rec.comm.pid = rec.comm.tid = 20;
	rec.comm.comm = "twenty";
	CHECK_OK(pms_memprof_sideband(p, &rec, o));
	rec = (struct pms_record){ 0 };
	rec.type = PMS_RECORD_FORK;
	rec.fork.pid = rec.fork.tid = 30;
	rec.fork.ppid = rec.fork.ptid = 20;
	CHECK_OK(pms_memprof_sideband(p, &rec, o));
	struct pms_memsample s;
	for (int i = 0; i < 3; i++) { /* pid 10: three threads' samples on node 0 */
		s = pid_sample(10, 10 + (uint32_t)(i > 0), BASE + (uint64_t)i * PG, 0);
		CHECK_OK(pms_memprof_add(p, &s));
	}
	s = pid_sample(20, 20, BASE + 3 * PG, 0); /* remote: node 1 from a node-0 CPU */
	s.valid |= PMS_MS_DATA_SRC;
	s.data_src = ds(PMS_MEM_OP_LOAD, PMS_MEM_LVL_LOC_RAM | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_RAM);
	CHECK_OK(pms_memprof_add(p, &s));
	s = pid_sample(30, 30, BASE, 2);
	CHECK_OK(pms_memprof_add(p, &s));
	long calls = fk->move_pages_calls;
	/* the held pid 20 first: only its sample */
	CHECK_EQ_INT(pms_memprof_resolve_task(p, o, 20, 20), 1);
	CHECK_EQ_INT(pms_memprof_resolve(p, o), 2); /* pids 10 and 30: one batch each */
	CHECK_EQ_INT((int)(fk->move_pages_calls - calls), 3);
	struct pms_memreport_input in = { .engine = PMS_ENG_SOFTWARE };
	struct pms_memreport *r = NULL;
	CHECK_OK(pms_memprof_report(p, NULL, &in, &r));
	if (!r)
		goto out;
	CHECK_EQ_U64(r->resolved_held, 1);
	CHECK_EQ_INT((int)r->nprocs, 3);
	CHECK_EQ_INT((int)r->nthreads, 4);
	uint64_t lv = 0;
	for (size_t i = 0; i < r->nlevels; i++)
		lv += r->levels[i].samples;
	CHECK_EQ_U64(lv, r->samples);
	CHECK_EQ_U64(level_count(r, "N/A"), 4);
	CHECK_EQ_U64(r->with_data_src, 1);
	if (r->nprocs == 3) {
		const struct pms_memreport_task *t = &r->procs[0];
		CHECK_EQ_INT((int)t->pid, 10);
		CHECK_EQ_U64(t->samples, 3);
		CHECK_EQ_INT(t->home_node, 0);
		CHECK_EQ_U64(t->on_home_node, 3);
		CHECK_EQ_U64(t->remote, 0);
		CHECK_EQ_STR(t->comm, "");
		t = &r->procs[1]; /* one sample each: pid order */
		CHECK_EQ_INT((int)t->pid, 20);
		CHECK_EQ_STR(t->comm, "twenty");
		CHECK_EQ_INT(t->home_node, 1);
		CHECK_EQ_U64(t->remote, 1);
		CHECK_EQ_INT((int)t->nlevels, 1);
		t = &r->procs[2];
		CHECK_EQ_INT((int)t->pid, 30);
		CHECK_EQ_STR(t->comm, "twenty"); /* forked, not exec'd */
		CHECK_EQ_U64(t->remote, 1);      /* CPU 2 is node 1, the page node 0 */
	}
	/* one IP, three processes: three function rows, each with its pid */
	CHECK_EQ_INT((int)r->ntop_funcs_samples, 3);
	if (r->ntop_funcs_samples == 3) {
		CHECK_EQ_INT((int)r->top_funcs_samples[0].pid, 10);
		CHECK_EQ_U64(r->top_funcs_samples[0].samples, 3);
		CHECK_EQ_STR(r->top_funcs_samples[1].comm, "twenty");
	}
out:
	pms_memreport_free(r);
	pms_memprof_free(p);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
	fk_free(fk);
}

/* N/A in both modes: a stream where some samples carry PERF_MEM_NA, some
 * none and some a level; the levels add up to the samples in each. */
PMS_TEST(na_levels_both_modes)
{
	make_topo();
	const uint64_t L1 = ds(PMS_MEM_OP_LOAD, PMS_MEM_LVL_L1 | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_L1);
	for (int agg = 0; agg < 2; agg++) {
		struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
		po.aggregate = agg;
		struct pms_memprof *p = NULL;
		CHECK_OK(pms_memprof_new(&topo, &po, &p));
		for (int i = 0; i < 2000; i++) {
			struct pms_memsample s = pid_sample(10, 10, BASE, 0);
			if (i % 7 == 0) { /* 286 samples with PERF_MEM_NA */
				s.valid |= PMS_MS_DATA_SRC;
				s.data_src = PMS_MEM_NA_VALUE;
			} else if (i % 7 == 1) { /* 286 without a data source */
			} else {
				s.valid |= PMS_MS_DATA_SRC;
				s.data_src = L1;
			}
			CHECK_OK(pms_memprof_add(p, &s));
		}
		struct pms_memreport_input in = { .engine = PMS_ENG_PEBS, .data_src = true };
		struct pms_memreport *r = NULL;
		CHECK_OK(pms_memprof_report(p, NULL, &in, &r));
		if (r) {
			CHECK_EQ_U64(level_count(r, "N/A"), 572);
			CHECK_EQ_U64(level_count(r, "L1 hit"), 1428);
			CHECK_EQ_INT((int)r->nlevels, 2);
			CHECK_EQ_U64(r->with_data_src, 1428);
			CHECK_EQ_INT((int)r->nops, 1);
		}
		pms_memreport_free(r);
		pms_memprof_free(p);
	}
}

/* The aggregate's fast paths against the kept samples, on a stream that
 * exercises them: 150 K distinct instructions (the table grows past the
 * size put on huge pages), node counters only from the middle of the
 * stream on (their array comes late), data addresses in mappings, in the
 * gaps between them and in a mapping replaced half way (the remembered
 * object range must be checked again), and more than 16 levels (the
 * scan before the level map).  Every instruction and function row must be
 * the same; data objects are named by the mappings at each sample's time
 * in the aggregate (at the report's in kept samples), so theirs are
 * counted here. */
static uint64_t n_old_map, n_replaced, n_unmapped;

static void feed_many(struct pms_memprof *p)
{
	n_old_map = n_replaced = n_unmapped = 0;
	struct pms_record rec = { 0 };
	rec.type = PMS_RECORD_MMAP2;
	rec.mmap.prot = 3;
	rec.mmap.filename = "//anon";
	for (int m = 0; m < 4; m++) { /* four mappings with gaps between */
		rec.mmap.addr = BASE + (uint64_t)m * 256 * PG;
		rec.mmap.len = 128 * PG;
		CHECK_OK(pms_memprof_sideband(p, &rec, NULL));
	}
	for (uint64_t i = 0; i < 400000; i++) {
		if (i == 200000) { /* a mapping over a gap and all of the next one */
			rec.mmap.addr = BASE + 200 * PG;
			rec.mmap.len = 200 * PG;
			rec.mmap.filename = "/tmp/replaced";
			CHECK_OK(pms_memprof_sideband(p, &rec, NULL));
		}
		struct pms_memsample s = { 0 };
		uint64_t x = i * 0x9e3779b97f4a7c15ULL;
		s.valid = PMS_MS_IP | PMS_MS_CPU | PMS_MS_DATA_SRC | PMS_MS_ADDR;
		s.ip = 0x400000 + 4 * ((i * 7919) % 150000);
		s.cpu = (uint32_t)(i % 4);
		if (i % 3) {
			s.valid |= PMS_MS_WEIGHT;
			s.weight = (x >> 40) % 5000 + 1;
		}
		s.data_src = ds(PMS_MEM_OP_LOAD, 1u << ((x >> 10) % 14), (unsigned)((x >> 14) % 3)) |
			     ((x >> 30) & 1) << PMS_MEM_REMOTE_SHIFT;
		s.addr = BASE + ((x >> 24) % 1024) * PG; /* mapped or in a gap */
		uint64_t pg = (s.addr - BASE) / PG;
		if (i < 200000 && pg >= 256 && pg < 384)
			n_old_map++;
		else if (i >= 200000 && pg >= 200 && pg < 400)
			n_replaced++;
		else if (pg % 256 >= 128)
			n_unmapped++;
		int mem = i < 200000 ? PMS_NODE_UNKNOWN : (int)((x >> 50) % 2);
		CHECK_OK(pms_memprof_add_node(p, &s, mem, (int)(s.cpu / 2)));
	}
}

static void same_sites(const struct pms_memreport_site *a, size_t na,
		       const struct pms_memreport_site *k, size_t nk)
{
	CHECK_EQ_U64(na, nk);
	for (size_t i = 0; i < na && i < nk; i++) {
		CHECK_EQ_U64(a[i].addr, k[i].addr);
		CHECK_EQ_STR(a[i].name, k[i].name);
		CHECK_EQ_STR(a[i].module, k[i].module);
		CHECK_EQ_U64(a[i].samples, k[i].samples);
		CHECK_EQ_U64(a[i].latency, k[i].latency);
		CHECK_EQ_U64(a[i].weighted, k[i].weighted);
		CHECK_EQ_U64(a[i].resolved, k[i].resolved);
		CHECK_EQ_U64(a[i].remote, k[i].remote);
		CHECK_EQ_U64(a[i].on_home, k[i].on_home);
	}
}

PMS_TEST(aggregate_many_ips_equals_kept_samples)
{
	make_topo();
	struct pms_memprof *pk = NULL, *pa = NULL;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.home_node = 1;
	po.top = 40;
	CHECK_OK(pms_memprof_new(&topo, &po, &pk));
	po.aggregate = true;
	CHECK_OK(pms_memprof_new(&topo, &po, &pa));
	if (!pk || !pa)
		return;
	feed_many(pk);
	feed_many(pa);
	struct pms_memreport_input in = { .engine = PMS_ENG_PEBS, .data_src = true };
	struct pms_memreport *k = NULL, *a = NULL;
	CHECK_OK(pms_memprof_report(pk, NULL, &in, &k));
	CHECK_OK(pms_memprof_report(pa, NULL, &in, &a));
	if (!k || !a)
		return;
	CHECK_EQ_U64(a->nsites, 0); /* report.h: no full list in aggregate mode */
	CHECK_EQ_U64(k->nsites, 150000);
	CHECK(a->nlevels > 16);
	CHECK_EQ_U64(a->nlevels, k->nlevels);
	for (size_t i = 0; i < k->nlevels && i < a->nlevels; i++) {
		CHECK_EQ_STR(a->levels[i].name, k->levels[i].name);
		CHECK_EQ_U64(a->levels[i].samples, k->levels[i].samples);
	}
	CHECK_EQ_U64(a->resolved, k->resolved);
	CHECK_EQ_U64(a->on_home, k->on_home);
	same_sites(a->top_ips_samples, a->ntop_ips_samples, k->top_ips_samples, k->ntop_ips_samples);
	same_sites(a->top_ips_latency, a->ntop_ips_latency, k->top_ips_latency, k->ntop_ips_latency);
	same_sites(a->top_funcs_samples, a->ntop_funcs_samples, k->top_funcs_samples,
		   k->ntop_funcs_samples);
	/* four mappings, the replaced one, the gaps */
	CHECK_EQ_U64(a->ntop_objects, 6);
	for (size_t i = 0; i < a->ntop_objects; i++) {
		const struct pms_memreport_site *o = &a->top_objects[i];
		if (!strcmp(o->name, "/tmp/replaced"))
			CHECK_EQ_U64(o->samples, n_replaced);
		else if (!strcmp(o->name, "[unmapped]"))
			CHECK_EQ_U64(o->samples, n_unmapped);
		else if (o->addr == BASE + 256 * PG)
			CHECK_EQ_U64(o->samples, n_old_map);
	}
	pms_memreport_free(k);
	pms_memreport_free(a);
	pms_memprof_free(pk);
	pms_memprof_free(pa);
}

/* Residency's absent pages by reason (issue 28): -ENOENT not present,
 * -EFAULT unmapped (or the zero page), no answer unknown; a page that
 * answered a status a query never gives is asked again and counted by its
 * second answer; a failed call is made again once. */
PMS_TEST(object_residency_absent_by_reason)
{
	make_topo();
	struct fk *fk = fk_new();
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	so.ops = fk_ops(fk);
	struct pms_sys *sys = NULL;
	CHECK_OK(pms_sys_new(&sys, &so));
	struct pms_numa_oracle *o = NULL;
	CHECK_OK(pms_numa_oracle_new(sys, &topo, NULL, &o));
	fk_set_page(fk, BASE, 0);
	fk_set_page(fk, BASE + PG, 1);
	fk_set_page(fk, BASE + 2 * PG, -ENOENT);
	fk_set_page(fk, BASE + 3 * PG, -ENOENT);
	/* BASE + 4 * PG: -EFAULT (the fake knows no page there) */
	fk_set_page(fk, BASE + 5 * PG, 1);
	for (int round = 0; round < 3; round++) {
		struct pms_memprof *p = NULL;
		CHECK_OK(pms_memprof_new(&topo, NULL, &p));
		struct pms_record rec = { 0 };
		rec.type = PMS_RECORD_MMAP2;
		rec.mmap.pid = rec.mmap.tid = 10;
		rec.mmap.addr = BASE;
		rec.mmap.len = 6 * PG;
		rec.mmap.prot = 3;
		rec.mmap.filename = "//anon";
		CHECK_OK(pms_memprof_sideband(p, &rec, o));
		struct pms_memsample a = pid_sample(10, 10, BASE + 8, 0);
		CHECK_OK(pms_memprof_add(p, &a));
		pms_numa_oracle_invalidate(o, 0, 0);
		if (round == 0) { /* page 5 answers -EBUSY once: asked again */
			fk->flaky_page = BASE + 5 * PG;
			fk->flaky_status = -EBUSY;
			fk->flaky_left = 1;
		} else if (round == 1) { /* the residency read fails once: made again */
			fk->query_fail_errno = EINTR;
			fk->query_fail_calls = 1;
			fk->query_fail_skip = 1; /* the samples' batch */
		} else { /* ... fails twice: no answer for its pages */
			fk->query_fail_errno = EAGAIN;
			fk->query_fail_calls = 2;
			fk->query_fail_skip = 1;
		}
		pms_memprof_resolve_task(p, o, 10, 10);
		struct pms_memreport_input in = { .engine = PMS_ENG_SOFTWARE };
		struct pms_memreport *r = NULL;
		CHECK_OK(pms_memprof_report(p, NULL, &in, &r));
		CHECK(r && r->ntop_objects == 1);
		if (r && r->ntop_objects == 1) {
			const struct pms_memreport_site *x = &r->top_objects[0];
			CHECK(x->resident_read);
			if (round < 2) {
				CHECK_EQ_U64(x->pages_absent, 3);
				CHECK_EQ_U64(x->pages_not_present, 2);
				CHECK_EQ_U64(x->pages_efault, 1);
				CHECK_EQ_U64(x->pages_unknown, 0);
				CHECK_EQ_U64(x->nnodes, 2);
				if (x->nnodes == 2)
					CHECK_EQ_U64(x->nodes[1].pages, 2);
			} else {
				CHECK_EQ_U64(x->pages_absent, 6);
				CHECK_EQ_U64(x->pages_unknown, 6);
				CHECK_EQ_U64(x->pages_not_present, 0);
			}
		}
		CHECK_EQ_INT(fk->flaky_left, 0);
		CHECK_EQ_INT(fk->query_fail_calls, 0);
		pms_memreport_free(r);
		pms_memprof_free(p);
	}
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
	fk_free(fk);
}

/* Residency (issue 28): a held process's sampled anonymous mapping, all of
 * its pages asked of the fake kernel's move_pages through the oracle, per
 * node beside the nodes its samples' data was on; none without the hold. */
PMS_TEST(object_residency_at_the_held_exit)
{
	make_topo();
	struct fk *fk = fk_new();
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	so.ops = fk_ops(fk);
	struct pms_sys *sys = NULL;
	CHECK_OK(pms_sys_new(&sys, &so));
	struct pms_numa_oracle *o = NULL;
	CHECK_OK(pms_numa_oracle_new(sys, &topo, NULL, &o));
	fk_set_page(fk, BASE, 0);
	fk_set_page(fk, BASE + PG, 1);
	fk_set_page(fk, BASE + 2 * PG, 1);
	fk_set_page(fk, BASE + 3 * PG, -ENOENT); /* never touched */
	for (int held = 0; held < 2; held++) {
		struct pms_memprof *p = NULL;
		CHECK_OK(pms_memprof_new(&topo, NULL, &p));
		struct pms_record rec = { 0 };
		rec.type = PMS_RECORD_MMAP2;
		rec.mmap.pid = rec.mmap.tid = 10;
		rec.mmap.addr = BASE;
		rec.mmap.len = 4 * PG;
		rec.mmap.prot = 3;
		rec.mmap.filename = "//anon";
		CHECK_OK(pms_memprof_sideband(p, &rec, o));
		struct pms_memsample a = pid_sample(10, 10, BASE + 8, 0);
		struct pms_memsample b = pid_sample(10, 11, BASE + PG + 8, 0);
		CHECK_OK(pms_memprof_add(p, &a));
		CHECK_OK(pms_memprof_add(p, &b));
		long calls = fk->move_pages_calls;
		if (held)
			CHECK_EQ_INT(pms_memprof_resolve_task(p, o, 10, 10), 1);
		else
			CHECK_EQ_INT(pms_memprof_resolve(p, o), 1);
		/* the samples' batch, then (held) the mapping's 4 pages in one */
		CHECK_EQ_INT((int)(fk->move_pages_calls - calls), held ? 2 : 1);
		struct pms_memreport_input in = { .engine = PMS_ENG_SOFTWARE };
		struct pms_memreport *r = NULL;
		CHECK_OK(pms_memprof_report(p, NULL, &in, &r));
		if (r && r->ntop_objects == 1) {
			const struct pms_memreport_site *x = &r->top_objects[0];
			char want[64];
			snprintf(want, sizeof(want), "[anon 0x%llx]", (unsigned long long)BASE);
			CHECK_EQ_STR(x->name, want);
			CHECK_EQ_STR(x->kind, "anon");
			CHECK(!x->section);
			CHECK_EQ_U64(x->size, 4 * PG);
			CHECK_EQ_INT(x->resident_read, held);
			CHECK_EQ_U64(x->pages_absent, held ? 1 : 0);
			CHECK_EQ_U64(x->nnodes, 2);
			if (x->nnodes == 2) {
				CHECK_EQ_INT(x->nodes[0].node, 0);
				CHECK_EQ_U64(x->nodes[0].pages, held ? 1 : 0);
				CHECK_EQ_U64(x->nodes[0].samples, 1);
				CHECK_EQ_INT(x->nodes[1].node, 1);
				CHECK_EQ_U64(x->nodes[1].pages, held ? 2 : 0);
				CHECK_EQ_U64(x->nodes[1].samples, 1);
			}
			/* the full list carries the same */
			CHECK_EQ_U64(r->nobjects, 1);
			CHECK_EQ_U64(r->objects[0].nnodes, 2);
		} else {
			CHECK_MSG(0, "objects: %zu", r ? r->ntop_objects : 0);
		}
		pms_memreport_free(r);
		pms_memprof_free(p);
	}
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
	fk_free(fk);
}
