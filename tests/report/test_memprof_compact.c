/* The kept-samples report without a sample list (opts.no_sample_list, what
 * a live `pmuscope mem` uses when nothing shows the samples one by one) is
 * the same report as with it, field for field, over a random stream with
 * several processes and threads, kernel IPs, samples without an address,
 * data source or weight, pages that resolve late (retries) or never, and a
 * held process's last asks; and the sample list, where kept, gives back
 * every sample as it was added. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fake_kernel.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/report.h"
#include "report_diff.h"
#include "topo/topo_int.h" /* a topology built or read whole */

#define BASE 0x7f1200000000ULL
#define PG 4096ULL
#define NPAGES 512
#define NS 9000 /* above the radix sort's threshold (8192) */

static struct pms_topo_cpu cpus[4];
static struct pms_topo_node nodes[2];
static struct pms_topo topo;

static void make_topo(void)
{
	memset(&topo, 0, sizeof(topo));
	for (int c = 0; c < 4; c++)
		cpus[c] = (struct pms_topo_cpu){ .cpu = c, .online = true, .node = c / 2 };
	nodes[0] = (struct pms_topo_node){ .id = 0, .has_memory = true };
	nodes[1] = (struct pms_topo_node){ .id = 1, .has_memory = true };
	topo.cpus = cpus;
	topo.ncpus = 4;
	topo.nodes = nodes;
	topo.nnodes = 2;
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static uint64_t dsv(unsigned op, unsigned lvl, unsigned lvlnum)
{
	struct pms_datasrc d = { 0 };
	d.op = op;
	d.lvl = lvl;
	d.lvl_num = lvlnum;
	d.snoop = PMS_MEM_SNOOP_NA;
	d.dtlb = PMS_MEM_TLB_NA;
	return pms_datasrc_pack(&d);
}

static struct pms_memsample random_sample(void)
{
	const uint64_t dss[] = {
		dsv(PMS_MEM_OP_LOAD, PMS_MEM_LVL_L1 | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_L1),
		dsv(PMS_MEM_OP_LOAD, PMS_MEM_LVL_LOC_RAM | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_RAM),
		dsv(PMS_MEM_OP_STORE, PMS_MEM_LVL_L1 | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_L1),
		dsv(PMS_MEM_OP_LOAD, PMS_MEM_LVL_L2 | PMS_MEM_LVL_HIT, PMS_MEM_LVLNUM_L2) | (1ULL << 40),
		0,
		PMS_MEM_NA_VALUE,
	};
	struct pms_memsample s = { 0 };
	uint64_t r = rnd();
	s.engine = r % 5 ? PMS_ENG_PEBS : PMS_ENG_IBS;
	s.valid = PMS_MS_CPU | PMS_MS_TIME;
	s.cpu = (uint32_t)(rnd() % 4);
	s.time = rnd() >> 8;
	if (rnd() % 8) {
		s.valid |= PMS_MS_TID;
		s.pid = 10 + (uint32_t)(rnd() % 3);
		s.tid = s.pid + (uint32_t)(rnd() % 3) * 100;
	}
	if (rnd() % 10) {
		s.valid |= PMS_MS_IP;
		if (rnd() % 6 == 0) {
			s.valid |= PMS_MS_KERNEL_IP;
			s.ip = 0xffffffff81000000ULL + 16 * (rnd() % 50);
		} else {
			s.ip = 0x401000 + 4 * (rnd() % 300) + ((rnd() % 4) << 32);
		}
	}
	if (rnd() % 7) {
		s.valid |= PMS_MS_ADDR;
		s.addr = BASE + (rnd() % (NPAGES + 64)) * PG + rnd() % PG; /* some unmapped */
	}
	uint64_t d = rnd() % 8;
	if (d < 6) {
		s.valid |= PMS_MS_DATA_SRC;
		s.data_src = dss[d];
	} else if (d == 6) {
		s.data_src = dss[1]; /* a value without its bit: N/A all the same */
	}
	if (rnd() % 3) {
		s.valid |= PMS_MS_WEIGHT;
		s.weight = rnd() % 4 ? rnd() % 2000 : rnd();
	}
	if (rnd() % 4 == 0) {
		s.valid |= PMS_MS_PHYS | PMS_MS_PAGE_SIZE | PMS_MS_INS_LAT;
		s.phys_addr = rnd() >> 20;
		s.page_size = 4096;
		s.ins_lat = (uint32_t)rnd();
	}
	s.period = 1 + rnd() % 1000;
	return s;
}

/* Tasks, sites and objects: what pms_t_report_diff does not look at. */
static void same_rest(const struct pms_memreport *a, const struct pms_memreport *b)
{
	CHECK_EQ_U64(a->retried_samples, b->retried_samples);
	CHECK_EQ_U64(a->retries, b->retries);
	CHECK_EQ_U64(a->retry_resolved, b->retry_resolved);
	CHECK_EQ_U64(a->resolved_held, b->resolved_held);
	for (int th = 0; th < 2; th++) {
		const struct pms_memreport_task *x = th ? a->threads : a->procs,
						*y = th ? b->threads : b->procs;
		size_t nx = th ? a->nthreads : a->nprocs, ny = th ? b->nthreads : b->nprocs;
		CHECK_EQ_U64(nx, ny);
		for (size_t i = 0; i < nx && i < ny; i++) {
			CHECK_EQ_U64(x[i].pid, y[i].pid);
			CHECK_EQ_U64(x[i].tid, y[i].tid);
			CHECK_EQ_U64(x[i].samples, y[i].samples);
			CHECK_EQ_U64(x[i].with_addr, y[i].with_addr);
			CHECK_EQ_U64(x[i].resolved, y[i].resolved);
			CHECK_EQ_U64(x[i].remote, y[i].remote);
			CHECK_EQ_U64(x[i].local, y[i].local);
			CHECK_EQ_U64(x[i].latency, y[i].latency);
			CHECK_EQ_INT(x[i].home_node, y[i].home_node);
			CHECK_EQ_U64(x[i].nlevels, y[i].nlevels);
			for (size_t k = 0; k < x[i].nlevels && k < y[i].nlevels; k++) {
				CHECK_EQ_STR(x[i].levels[k].name, y[i].levels[k].name);
				CHECK_EQ_U64(x[i].levels[k].samples, y[i].levels[k].samples);
			}
		}
	}
	for (int o = 0; o < 2; o++) {
		const struct pms_memreport_site *x = o ? a->objects : a->sites,
						*y = o ? b->objects : b->sites;
		size_t nx = o ? a->nobjects : a->nsites, ny = o ? b->nobjects : b->nsites;
		CHECK_EQ_U64(nx, ny);
		for (size_t i = 0; i < nx && i < ny; i++) {
			CHECK_EQ_U64(x[i].addr, y[i].addr);
			CHECK_EQ_U64(x[i].pid, y[i].pid);
			CHECK_EQ_STR(x[i].name, y[i].name);
			CHECK_EQ_U64(x[i].samples, y[i].samples);
			CHECK_EQ_U64(x[i].latency, y[i].latency);
			CHECK_EQ_U64(x[i].resolved, y[i].resolved);
			CHECK_EQ_U64(x[i].remote, y[i].remote);
			CHECK_EQ_U64(x[i].on_home, y[i].on_home);
		}
	}
}

static void run(bool per_pid)
{
	make_topo();
	struct fk *fk = fk_new();
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	so.ops = fk_ops(fk);
	struct pms_sys *sys = NULL;
	CHECK_OK(pms_sys_new(&sys, &so));
	/* 0: with the sample list; 1: without; 2: an older caller's opts
	 * (version 3: no such field, the list is kept) */
	struct pms_memprof *p[3] = { NULL };
	struct pms_numa_oracle *o[3] = { NULL };
	struct pms_memsample *in = calloc(NS, sizeof(*in));
	for (int k = 0; k < 3; k++) {
		struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
		po.home_node = 1;
		po.functions_per_pid = per_pid;
		po.no_sample_list = k == 1;
		if (k == 2)
			po.version = 3;
		CHECK_OK(pms_memprof_new(&topo, &po, &p[k]));
		CHECK_OK(pms_numa_oracle_new(sys, &topo, NULL, &o[k]));
	}
	if (!p[0] || !p[1] || !p[2] || !o[0] || !o[1] || !o[2] || !in)
		goto out;
	struct pms_record rec = { 0 };
	rec.type = PMS_RECORD_MMAP2;
	rec.mmap.pid = 10;
	rec.mmap.addr = BASE;
	rec.mmap.len = NPAGES * PG;
	rec.mmap.prot = 3;
	rec.mmap.filename = "//anon";
	for (int k = 0; k < 3; k++)
		CHECK_OK(pms_memprof_sideband(p[k], &rec, NULL));
	for (int pg = 0; pg < NPAGES / 2; pg++)
		fk_set_page(fk, BASE + (uint64_t)pg * PG, pg % 3 == 0);
	for (size_t i = 0; i < NS; i++) {
		in[i] = random_sample();
		/* a hint for some (a physical address's node), not asked later */
		int mn = (in[i].valid & PMS_MS_PHYS) && (in[i].valid & PMS_MS_ADDR) ? (int)(i % 2)
										    : PMS_NODE_UNKNOWN;
		int cn = (int)(in[i].cpu / 2);
		for (int k = 0; k < 3; k++)
			CHECK_OK(pms_memprof_add_node(p[k], &in[i], mn, cn));
		if (i % 700 == 699) {
			for (int k = 0; k < 3; k++)
				CHECK(pms_memprof_resolve(p[k], o[k]) >= 0);
			/* later pages come in: the retries find them */
			for (int pg = NPAGES / 2 + (int)(i / 700) * 20;
			     pg < NPAGES / 2 + (int)(i / 700 + 1) * 20 && pg < NPAGES; pg++)
				fk_set_page(fk, BASE + (uint64_t)pg * PG, 1);
		}
	}
	for (int k = 0; k < 3; k++) {
		CHECK(pms_memprof_resolve(p[k], o[k]) >= 0);
		CHECK(pms_memprof_resolve_task(p[k], o[k], 11, 111) >= 0);
	}
	struct pms_memreport_input ri = { .engine = PMS_ENG_PEBS, .data_src = true };
	struct pms_memreport *r[3] = { NULL };
	for (int k = 0; k < 3; k++)
		CHECK_OK(pms_memprof_report(p[k], NULL, &ri, &r[k]));
	if (!r[0] || !r[1] || !r[2])
		goto free_reports;
	{
		/* without the list the report is built once: the samples
		 * went when it had counted them */
		struct pms_memreport *again = NULL;
		CHECK_EQ_INT(pms_memprof_report(p[1], NULL, &ri, &again), PMS_EINVAL);
		CHECK(again == NULL);
		CHECK_EQ_INT(pms_memprof_add_node(p[1], &in[0], PMS_NODE_UNKNOWN, 0), PMS_EINVAL);
		CHECK(pms_memprof_resolve(p[1], o[1]) >= 0);
		CHECK_EQ_U64(pms_memprof_count(p[1]), NS);
		/* with it, a second report is the first */
		CHECK_OK(pms_memprof_report(p[0], NULL, &ri, &again));
		if (again)
			CHECK_EQ_INT(pms_t_report_diff(r[0], again), 0);
		pms_memreport_free(again);
	}
	CHECK_EQ_U64(r[0]->nall, NS);
	CHECK_EQ_U64(r[1]->nall, 0);
	CHECK(r[1]->all == NULL);
	CHECK_EQ_U64(r[2]->nall, NS);
	CHECK(r[0]->retried_samples > 0); /* the stream has retries */
	CHECK(r[0]->resolved > 0 && r[0]->unresolved > 0);
	CHECK_EQ_INT(pms_t_report_diff(r[0], r[2]), 0);
	struct pms_memreport nolist = *r[0];
	nolist.nall = 0;
	CHECK_EQ_INT(pms_t_report_diff(&nolist, r[1]), 0);
	same_rest(r[0], r[1]);
	/* the levels and ops, counted here from the inputs one by one */
	{
		uint64_t sum = 0, with_ds = 0;
		for (size_t i = 0; i < r[1]->nlevels; i++) {
			uint64_t want = 0;
			for (size_t j = 0; j < NS; j++) {
				bool has = (in[j].valid & PMS_MS_DATA_SRC) && in[j].data_src &&
					   in[j].data_src != PMS_MEM_NA_VALUE;
				char txt[128];
				pms_datasrc_format_mem(has ? in[j].data_src : PMS_MEM_NA_VALUE, txt,
						       sizeof(txt));
				want += !strcmp(txt, r[1]->levels[i].name);
			}
			CHECK_EQ_U64(r[1]->levels[i].samples, want);
			sum += r[1]->levels[i].samples;
		}
		CHECK_EQ_U64(sum, NS);
		for (size_t j = 0; j < NS; j++)
			with_ds += (in[j].valid & PMS_MS_DATA_SRC) && in[j].data_src &&
				   in[j].data_src != PMS_MEM_NA_VALUE;
		CHECK_EQ_U64(r[1]->with_data_src, with_ds);
		sum = 0;
		for (size_t i = 0; i < r[1]->nops; i++)
			sum += r[1]->ops[i].samples;
		CHECK_EQ_U64(sum, with_ds);
	}
	same_rest(r[0], r[2]);
	/* the list gives back each sample as added (no symbolizer: kernel
	 * addresses are not visible and shown as 0) */
	for (size_t i = 0; i < NS && r[0]->nall == NS; i++) {
		const struct pms_memreport_sample *x = &r[0]->all[i];
		struct pms_memsample w = in[i];
		if (w.valid & PMS_MS_KERNEL_IP)
			w.ip = 0;
		CHECK_EQ_U64(x->s.valid, w.valid);
		CHECK_EQ_INT((int)x->s.engine, (int)w.engine);
		CHECK_EQ_U64(x->s.ip, w.ip);
		CHECK_EQ_U64(x->s.pid, w.pid);
		CHECK_EQ_U64(x->s.tid, w.tid);
		CHECK_EQ_U64(x->s.time, w.time);
		CHECK_EQ_U64(x->s.cpu, w.cpu);
		CHECK_EQ_U64(x->s.addr, w.addr);
		CHECK_EQ_U64(x->s.phys_addr, w.phys_addr);
		CHECK_EQ_U64(x->s.data_src, w.data_src);
		CHECK_EQ_U64(x->s.weight, w.weight);
		CHECK_EQ_U64(x->s.ins_lat, w.ins_lat);
		CHECK_EQ_U64(x->s.page_size, w.page_size);
		CHECK_EQ_U64(x->s.period, w.period);
		CHECK_EQ_INT(x->cpu_node, (int)(w.cpu / 2));
		CHECK_EQ_INT(x->source, -1);
		if (x->site >= 0 && (size_t)x->site < r[0]->nsites && !(w.valid & PMS_MS_KERNEL_IP))
			CHECK_EQ_U64(r[0]->sites[x->site].addr, w.ip);
		CHECK_EQ_INT(x->site < 0, !(w.valid & PMS_MS_IP));
		CHECK_EQ_INT(x->object < 0, !(w.valid & PMS_MS_ADDR));
		if (x->object >= 0 && (size_t)x->object < r[0]->nobjects)
			CHECK(r[0]->objects[x->object].samples > 0);
		CHECK_EQ_INT(x->node_from_phys, x->mem_node >= 0 && (w.valid & PMS_MS_PHYS) &&
							(w.valid & PMS_MS_ADDR));
	}
free_reports:
	for (int k = 0; k < 3; k++)
		pms_memreport_free(r[k]);
out:
	for (int k = 0; k < 3; k++) {
		pms_memprof_free(p[k]);
		pms_numa_oracle_free(o[k]);
	}
	free(in);
	pms_sys_free(sys);
	fk_free(fk);
}

PMS_TEST(no_sample_list_same_report)
{
	run(false);
}

PMS_TEST(no_sample_list_same_report_per_process_functions)
{
	run(true);
}

/* A backlog larger than one oracle call takes (16384 addresses) is asked
 * in several: every sample gets its page's node. */
PMS_TEST(large_backlog_resolved_in_chunks)
{
	make_topo();
	struct fk *fk = fk_new();
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	so.ops = fk_ops(fk);
	struct pms_sys *sys = NULL;
	struct pms_numa_oracle *o = NULL;
	struct pms_memprof *p = NULL;
	struct pms_memreport *r = NULL;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.no_sample_list = true;
	CHECK_OK(pms_sys_new(&sys, &so));
	CHECK_OK(pms_numa_oracle_new(sys, &topo, NULL, &o));
	CHECK_OK(pms_memprof_new(&topo, &po, &p));
	if (!p || !o)
		goto out;
	/* 40000 samples on 4000 pages (the fake kernel's most), the first
	 * 2000 pages mapped, alternately on nodes 0 and 1 */
	const size_t n = 40000, np = 4000;
	for (size_t pg = 0; pg < np / 2; pg++)
		fk_set_page(fk, BASE + pg * PG, (int)(pg % 2));
	for (size_t i = 0; i < n; i++) {
		uint64_t a = BASE + (uint64_t)((i * 7919) % np) * PG;
		struct pms_memsample s = { 0 };
		s.valid = PMS_MS_TID | PMS_MS_ADDR | PMS_MS_CPU;
		s.pid = s.tid = 77;
		s.addr = a;
		CHECK_OK(pms_memprof_add(p, &s));
	}
	CHECK(pms_memprof_resolve(p, o) > 0);
	struct pms_memreport_input ri = { .engine = PMS_ENG_SOFTWARE };
	CHECK_OK(pms_memprof_report(p, NULL, &ri, &r));
	if (r) {
		CHECK_EQ_U64(r->resolved, n / 2);
		CHECK_EQ_U64(r->st_efault + r->st_enoent, n / 2);
		/* CPU 0 is on node 0 */
		CHECK_EQ_U64(r->matrix[0], n / 4);
		CHECK_EQ_U64(r->matrix[1], n / 4);
	}
out:
	pms_memreport_free(r);
	pms_memprof_free(p);
	pms_numa_oracle_free(o);
	pms_sys_free(sys);
	fk_free(fk);
}

PMS_TEST_MAIN()
