/* Arm SPE recorded live: the sampler on the fake kernel (a Neoverse N1 with
 * four CPUs on two nodes) drains random AUX chunks (loads, stores, branches,
 * padding, CONTEXT packets, TIMESTAMP packets, tasks changing between
 * chunks), the recorder writes them (TIME_CONV, AUXTRACE_INFO, AUX +
 * AUXTRACE records), and then:
 *   spe_live_equals_recorded  the recorded source gives the very samples the
 *                             live one gave: ip, addr, phys_addr, data_src,
 *                             latency, pid/tid, cpu, perf time, memory node;
 *   spe_recorded_perf_script  perf 6.12's own arm_spe decoder on that file
 *                             (perf script --itrace=M) gives the same ip,
 *                             addr, phys_addr, latency, cpu and time for
 *                             every sample (data_src: the fields both
 *                             versions' rules agree on, docs/spe.md K3). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "../perfdata/perf_tool.h"
#include "../sample/sample_helpers.h"
#include "fake_kernel.h"

#include "pmuscope/error.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"
#include "pmuscope/recorder.h"
#include "pmuscope/sampler.h"
#include "pmuscope/spe.h"
#include "pmuscope/topo.h"

#define NCPU 4
#define CHUNKS 48
#define SPE_TYPE 9
#define BLOCK 0x8000000ULL /* 128 MiB memory blocks */
#define MAXS 8192

/* The user page's time conversion (arm64: a 25 MHz generic timer, 40 ns a
 * tick, 56-bit counter with cap_user_time_short). */
#define T_SHIFT 25
#define T_MULT (40ULL << T_SHIFT)
#define T_ZERO 1000000000000ULL
#define T_MASK ((1ULL << 56) - 1)

static uint64_t rng;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct got {
	struct pms_memsample ms;
	int mem_node;
};

struct run {
	struct th_root r;
	struct pms_topo *topo;
	struct pms_sampler *s;
	struct pms_memsrc *src;
	struct pms_recorder *rec;
	int fd;
	char path[600];
	struct got *live;
	size_t nlive;
	size_t written; /* memory records put into the AUX areas */
};

static void root_put(const struct th_root *r, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", r->dir, rel);
	for (char *c = path + strlen(r->dir) + 1; *c; c++)
		if (*c == '/') {
			*c = 0;
			mkdir(path, 0755);
			*c = '/';
		}
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

/* CPUs 0-1 and blocks 0-7 on node 0, CPUs 2-3 and blocks 8-15 on node 1. */
static void two_nodes(const struct th_root *r)
{
	char rel[128];
	root_put(r, "sys/devices/system/memory/block_size_bytes", "8000000\n");
	root_put(r, "sys/devices/system/node/online", "0-1\n");
	root_put(r, "sys/devices/system/node/has_cpu", "0-1\n");
	root_put(r, "sys/devices/system/node/has_memory", "0-1\n");
	root_put(r, "sys/devices/system/node/node0/cpulist", "0-1\n");
	root_put(r, "sys/devices/system/node/node1/cpulist", "2-3\n");
	root_put(r, "sys/devices/system/node/node0/distance", "10 20\n");
	root_put(r, "sys/devices/system/node/node1/distance", "20 10\n");
	root_put(r, "proc/sys/kernel/arch", "aarch64\n");
	root_put(r, "proc/sys/kernel/osrelease", "6.12.0\n");
	for (int b = 0; b < 16; b++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/memory%d/online",
			 b < 8 ? 0 : 1, b);
		root_put(r, rel, "1\n");
	}
}

static int on_sample(void *ud, const struct pms_memsrc_sample *x)
{
	struct run *u = ud;
	CHECK_OK(pms_recorder_sample(u->rec, x));
	if (u->nlive < MAXS)
		u->live[u->nlive++] = (struct got){ x->ms, x->mem_node };
	return 0;
}

static int on_side(void *ud, const struct pms_record *r, size_t attr_idx)
{
	struct run *u = ud;
	CHECK_OK(pms_recorder_sideband(u->rec, r, attr_idx));
	return 0;
}

static int on_aux(void *ud, const struct pms_memsrc_aux *a)
{
	struct run *u = ud;
	CHECK_OK(pms_recorder_aux(u->rec, a));
	return 0;
}

/* One random record: a load or store (common-table data source, events as
 * the CPU sets them, latency, VA, PA in node 0 or 1), or now and then a
 * branch, which is no memory sample.  ts: the TIMESTAMP (counter ticks). */
static int gen_record(uint8_t *out, size_t cap, uint64_t ts, bool *mem)
{
	static const unsigned codes[] = { 0x0, 0x8, 0x9, 0xa, 0xb, 0xc, 0xd, 0xe };
	struct pms_spe_record r;

	memset(&r, 0, sizeof(r));
	r.valid = PMS_SPE_R_PC | PMS_SPE_R_OP | PMS_SPE_R_EVENTS | PMS_SPE_R_TIMESTAMP;
	r.pc = 0x400000 + (rnd() % 4096) * 4;
	r.pc_ns = true;
	r.timestamp = ts;
	r.events = PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_RETIRED);
	*mem = rnd() % 16 != 0;
	if (!*mem) {
		r.op_class = PMS_SPE_OPC_BRANCH;
		r.op_raw = 0x01; /* conditional */
		r.valid |= PMS_SPE_R_BRANCH_TARGET | PMS_SPE_R_TOTAL_LAT;
		r.branch_target = 0x400000 + (rnd() % 4096) * 4;
		r.branch_ns = true;
		r.total_lat = (uint16_t)(1 + rnd() % 8);
		if (rnd() % 2)
			r.events |= PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_MISPRED);
		if (rnd() % 3 == 0)
			r.events |= PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_NOT_TAKEN);
	} else {
		bool store = rnd() % 4 == 0;
		unsigned src = codes[rnd() % 8];
		uint64_t page = rnd() % 4096;
		r.op_class = PMS_SPE_OPC_LDST;
		r.op_raw = store ? 0x01 : 0x00;
		r.valid |= PMS_SPE_R_VADDR | PMS_SPE_R_PADDR | PMS_SPE_R_TOTAL_LAT |
			   PMS_SPE_R_ISSUE_LAT | PMS_SPE_R_DATA_SOURCE;
		r.vaddr = 0x7f3300000000ULL + page * 4096 + (rnd() % 512) * 8;
		r.paddr = ((rnd() % 2) ? 9 : 2) * BLOCK + page * 4096 + (r.vaddr & 4095);
		r.paddr_ns = true;
		r.events |= PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_L1D_ACCESS) |
			    PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_TLB_ACCESS);
		if (src != 0x0)
			r.events |= PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_L1D_REFILL);
		if (src == 0xe)
			r.events |= PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_LLC_ACCESS) |
				    PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_LLC_MISS);
		if (rnd() % 8 == 0)
			r.events |= PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_TLB_WALK);
		r.total_lat = (uint16_t)(src == 0xe ? 200 + rnd() % 300 : 2 + rnd() % 60);
		r.issue_lat = (uint16_t)(rnd() % 4);
		r.data_source = src;
		r.data_source_len = 1;
		if (rnd() % 5 == 0) {
			r.valid |= PMS_SPE_R_CONTEXT;
			r.context = (uint32_t)(5000 + rnd() % 4);
		}
	}
	int n = pms_spe_encode_record(&r, out, cap);
	CHECK(n > 0);
	return n;
}

/* Put one record into fd's ring as the kernel would (the event's id in it). */
static void put_rec(struct fk *fk, int fd, struct pms_record *r)
{
	struct fk_fd *f = fk_fd(fk, fd);
	struct pms_sample_layout l;
	unsigned char buf[512];
	size_t len = 0;

	if (!f)
		return;
	pms_sample_layout_from_attr(&l, &f->attr);
	r->sample_id.id = FK_EVENT_ID(fd);
	if (l.sample_type & PMS_SAMPLE_IDENTIFIER)
		r->sample_id.present |= PMS_SAMPLE_IDENTIFIER;
	CHECK_OK(pms_record_encode(&l, r, buf, sizeof(buf), &len));
	CHECK_EQ_INT(fk_ring_put(fk, fd, buf, len), 0);
}

static uint64_t perf_ns(uint64_t cyc)
{
	struct pms_spe_time_conv tc = { T_SHIFT, T_MULT, T_ZERO, 0, T_MASK, true, true };
	uint64_t ns = 0;
	CHECK(pms_spe_time_to_perf(&tc, cyc, &ns));
	return ns;
}

/* Record CHUNKS random chunks on the four CPUs into u->path; u->live gets
 * the live samples.  0, or -1 after a failed CHECK. */
static int record(struct run *u, uint64_t seed, int chunks)
{
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	const struct pms_memsrc_callbacks cb = { on_sample, on_side, on_aux };
	int fds[NCPU];
	uint64_t ts = 0x1000000;

	rng = seed;
	if (th_root_open(&u->r, "neoverse-n1-spe", "0-3", -1, true) < 0)
		return -1;
	two_nodes(&u->r);
	CHECK_OK(pms_topo_load(u->r.sys, &u->topo));
	if (!u->topo)
		return -1;
	u->r.m.spe_type = SPE_TYPE;
	u->r.m.spe_cpus = 0xf;
	o.target = PMS_TARGET_CPUS;
	o.aux_pages = 4;
	o.want_phys = true;
	CHECK_OK(pms_sampler_open(u->r.sys, u->r.pmus, u->topo, &o, &u->s));
	if (!u->s)
		return -1;
	for (int c = 0; c < NCPU; c++) {
		fds[c] = th_fd_of_type(u->r.fk, SPE_TYPE, c);
		CHECK(fds[c] >= 0);
		if (fds[c] < 0)
			return -1;
		CHECK_EQ_INT(fk_fd(u->r.fk, fds[c])->cpu, c);
		/* the user page as arm64's arch_perf_update_userpage fills it */
		struct perf_event_mmap_page *pg = fk_fd(u->r.fk, fds[c])->map;
		pg->cap_user_time_zero = 1;
		pg->cap_user_time_short = 1;
		pg->time_shift = T_SHIFT;
		pg->time_mult = (uint32_t)T_MULT;
		pg->time_zero = T_ZERO;
		pg->time_cycles = 0;
		pg->time_mask = T_MASK;
	}
	CHECK_OK(pms_memsrc_open_live(u->s, u->topo, &u->src));
	if (!u->src)
		return -1;
	u->fd = open(u->path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	CHECK(u->fd >= 0);
	if (u->fd < 0)
		return -1;
	CHECK_OK(pms_recorder_open(u->fd, u->src, NULL, &u->rec));
	if (!u->rec)
		return -1;
	u->live = calloc(MAXS, sizeof(*u->live));
	if (!u->live)
		return -1;
	for (int k = 0; k < chunks; k++) {
		uint8_t bytes[4096];
		size_t n = 0;
		int cpu = (int)(rnd() % NCPU), nrec = 5 + (int)(rnd() % 40);
		uint64_t off = 0;
		for (int i = 0; i < nrec; i++) {
			bool mem;
			size_t pad = rnd() % 4 == 0 ? rnd() % 6 : 0;
			if (n + pad + 128 > sizeof(bytes))
				break;
			memset(bytes + n, 0, pad);
			n += pad;
			ts += 1 + rnd() % 5000;
			n += (size_t)gen_record(bytes + n, sizeof(bytes) - n, ts, &mem);
			u->written += mem;
		}
		CHECK_EQ_INT(fk_aux_put(u->r.fk, fds[cpu], bytes, n, &off), 0);
		struct pms_record a;
		memset(&a, 0, sizeof(a));
		a.type = PMS_RECORD_AUX;
		a.aux.aux_offset = off;
		a.aux.aux_size = n;
		a.sample_id.present = PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_CPU;
		a.sample_id.pid = 700 + (uint32_t)(k % 3);
		a.sample_id.tid = a.sample_id.pid + 10 * (uint32_t)(k % 2);
		a.sample_id.time = perf_ns(ts) + 1;
		a.sample_id.cpu = (uint32_t)cpu;
		put_rec(u->r.fk, fds[cpu], &a);
		/* drain now and then: chunks wait in several rings at once */
		if (rnd() % 3 == 0)
			CHECK(pms_memsrc_poll(u->src, 0, &cb, u) >= 0);
	}
	CHECK(pms_memsrc_poll(u->src, 0, &cb, u) >= 0);
	CHECK_EQ_U64(u->nlive, u->written);
	CHECK_OK(pms_recorder_finish(u->rec, u->r.sys, u->topo, u->r.pmus));
	return 0;
}

static void run_free(struct run *u)
{
	pms_recorder_free(u->rec);
	if (u->fd > 0)
		close(u->fd);
	pms_memsrc_free(u->src);
	pms_sampler_free(u->s);
	pms_topo_free(u->topo);
	th_root_close(&u->r);
	free(u->live);
}

struct fctx {
	struct got *v;
	size_t n;
};

static int file_sample(void *ud, const struct pms_memsrc_sample *x)
{
	struct fctx *f = ud;
	CHECK(x->rec == NULL);
	if (f->n < MAXS)
		f->v[f->n++] = (struct got){ x->ms, x->mem_node };
	return 0;
}

PMS_TEST(spe_live_equals_recorded)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct run u;
		struct pms_perfdata_reader *rd = NULL;
		struct pms_memsrc *fs = NULL;
		struct fctx f = { NULL, 0 };
		struct pms_spe_time_conv tc;
		int rc;

		memset(&u, 0, sizeof(u));
		snprintf(u.path, sizeof(u.path), "/tmp/pms-spe-rec-%d-%" PRIu64 ".data",
			 (int)getpid(), seed);
		if (record(&u, seed * 0x9e3779b97f4a7c15ULL, CHUNKS) < 0)
			goto next;
		f.v = calloc(MAXS, sizeof(*f.v));
		CHECK_OK(pms_perfdata_reader_open_fd(u.fd, &rd));
		if (!rd || !f.v)
			goto next;
		CHECK_OK(pms_memsrc_open_reader(rd, &fs));
		if (!fs)
			goto next;
		const struct pms_memsrc_callbacks cb = { file_sample, NULL, NULL };
		while ((rc = pms_memsrc_poll(fs, 0, &cb, &f)) > 0)
			;
		CHECK_EQ_INT(rc, 0);
		/* the file's conversion is the user page's */
		CHECK_OK(pms_memsrc_time_conv(fs, &tc));
		CHECK_EQ_U64(tc.time_mult, T_MULT);
		CHECK_EQ_U64(tc.time_zero, T_ZERO);
		CHECK_EQ_U64(tc.time_mask, T_MASK);
		CHECK(tc.cap_user_time_short);
		struct pms_memsrc_stats st;
		pms_memsrc_stats(fs, &st);
		CHECK_EQ_U64(st.aux_records, CHUNKS);
		CHECK_EQ_U64(st.aux_cut_records, 0);
		CHECK_EQ_U64(st.aux_decode_errors, 0);
		CHECK_EQ_U64(f.n, u.nlive);
		size_t bad = 0, with_ctx = 0, tasks = 0;
		for (size_t i = 0; i < f.n && i < u.nlive; i++) {
			const struct pms_memsample *a = &u.live[i].ms, *b = &f.v[i].ms;
			bool same = a->valid == b->valid && a->ip == b->ip && a->addr == b->addr &&
				    a->phys_addr == b->phys_addr && a->data_src == b->data_src &&
				    a->weight == b->weight && a->pid == b->pid && a->tid == b->tid &&
				    a->cpu == b->cpu && a->time == b->time &&
				    a->period == b->period && u.live[i].mem_node == f.v[i].mem_node;
			with_ctx += a->pid >= 5000;
			tasks += a->pid >= 700 && a->pid < 703;
			if (!same && bad++ < 5)
				CHECK_MSG(0,
					  "sample %zu: live valid %#x ip %#" PRIx64 " addr %#" PRIx64
					  " pa %#" PRIx64 " ds %#" PRIx64 " w %" PRIu64 " %u/%u cpu %u "
					  "t %" PRIu64 " node %d; file valid %#x ip %#" PRIx64
					  " addr %#" PRIx64 " pa %#" PRIx64 " ds %#" PRIx64 " w %" PRIu64
					  " %u/%u cpu %u t %" PRIu64 " node %d",
					  i, a->valid, a->ip, a->addr, a->phys_addr, a->data_src, a->weight,
					  a->pid, a->tid, a->cpu, a->time, u.live[i].mem_node, b->valid,
					  b->ip, b->addr, b->phys_addr, b->data_src, b->weight, b->pid,
					  b->tid, b->cpu, b->time, f.v[i].mem_node);
			/* every field the live path knows is there */
			CHECK((a->valid & (PMS_MS_TIME | PMS_MS_TID | PMS_MS_CPU | PMS_MS_PHYS |
					   PMS_MS_DATA_SRC | PMS_MS_WEIGHT)) ==
			      (PMS_MS_TIME | PMS_MS_TID | PMS_MS_CPU | PMS_MS_PHYS | PMS_MS_DATA_SRC |
			       PMS_MS_WEIGHT));
			CHECK(u.live[i].mem_node == 0 || u.live[i].mem_node == 1);
		}
		CHECK_EQ_U64(bad, 0);
		/* both task sources were exercised */
		CHECK(with_ctx > 0 && tasks > 0);
	next:
		pms_memsrc_free(fs);
		pms_perfdata_reader_free(rd);
		free(f.v);
		run_free(&u);
		unlink(u.path);
	}
}

/* ---- perf 6.12 as the oracle --------------------------------------------- */

static int by_time(const void *x, const void *y)
{
	const struct got *a = x, *b = y;
	return a->ms.time < b->ms.time ? -1 : a->ms.time > b->ms.time;
}

struct brl_key { unsigned cpu; unsigned long long to, w, ip; };
static int brl_cmp(const void *x, const void *y)
{
	const struct brl_key *a = x, *b = y;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->ip != b->ip)
		return a->ip < b->ip ? -1 : 1;
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	return a->w < b->w ? -1 : a->w > b->w;
}

/* data_src fields perf 6.12 and pmuscope derive alike for the common table
 * (docs/spe.md K3): op, lvl, dtlb, lvl_num, snoopx; not snoop or remote. */
#define DS_ALIKE (0x1fULL | (0x3fffULL << 5) | (0x7fULL << 26) | (0xfULL << 33) | (0x3ULL << 38))

PMS_TEST(spe_recorded_perf_script)
{
	char ver[256], dir[512], cmd[2048], line[4096];
	struct run u;
	size_t n = 0, bad = 0, ds_same = 0;
	FILE *p;

	if (!pt_perf_version(ver, sizeof(ver)))
		PMS_SKIP(PT_SKIP_MSG);
	if (!pt_mkdtemp(dir, sizeof(dir))) {
		CHECK_MSG(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	pt_perf_env(dir);
	memset(&u, 0, sizeof(u));
	snprintf(u.path, sizeof(u.path), "%s/spe.data", dir);
	if (record(&u, 0x5eed5eed5eedULL, CHUNKS) < 0)
		goto out;
	qsort(u.live, u.nlive, sizeof(*u.live), by_time);
	/* perf orders the samples by time, as they were made */
	snprintf(cmd, sizeof(cmd),
		 "perf script -i '%s' --itrace=M --ns -F cpu,time,addr,data_src,weight,ip,"
		 "phys_addr 2>'%s/perf.err'",
		 u.path, dir);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	if (!p)
		goto out;
	while (fgets(line, sizeof(line), p)) {
		/* "[002] 1000.000680280:  addr data_src |OP ...|BLK  N/A  weight ip phys" */
		char *tok[64];
		size_t nt = 0;
		unsigned cpu, sec, nsec;
		for (char *t = strtok(line, " \t\n"); t && nt < 64; t = strtok(NULL, " \t\n"))
			tok[nt++] = t;
		if (nt < 7 || sscanf(tok[0], "[%u]", &cpu) != 1 ||
		    sscanf(tok[1], "%u.%u:", &sec, &nsec) != 2) {
			CHECK_MSG(0, "unexpected perf script line: %s", line);
			continue;
		}
		if (n >= u.nlive) {
			n++;
			continue;
		}
		const struct pms_memsample *a = &u.live[n].ms;
		uint64_t t = (uint64_t)sec * 1000000000ULL + nsec;
		uint64_t addr = strtoull(tok[2], NULL, 16), ds = strtoull(tok[3], NULL, 16);
		uint64_t w = strtoull(tok[nt - 3], NULL, 10), ip = strtoull(tok[nt - 2], NULL, 16);
		uint64_t pa = strtoull(tok[nt - 1], NULL, 16);
		bool same = cpu == a->cpu && t == a->time && addr == a->addr && w == a->weight &&
			    ip == a->ip && pa == a->phys_addr && (ds & DS_ALIKE) == (a->data_src & DS_ALIKE);
		ds_same += ds == a->data_src;
		if (!same && bad++ < 5)
			CHECK_MSG(0,
				  "sample %zu: perf cpu %u t %" PRIu64 " addr %#" PRIx64 " ds %#" PRIx64
				  " w %" PRIu64 " ip %#" PRIx64 " pa %#" PRIx64 "; live cpu %u t %" PRIu64
				  " addr %#" PRIx64 " ds %#" PRIx64 " w %" PRIu64 " ip %#" PRIx64
				  " pa %#" PRIx64,
				  n, cpu, t, addr, ds, w, ip, pa, a->cpu, a->time, a->addr, a->data_src,
				  a->weight, a->ip, a->phys_addr);
		n++;
	}
	int st = pt_status(pclose(p));
	CHECK_EQ_INT(st, 0);
	if (st != 0) {
		char errpath[600];
		snprintf(errpath, sizeof(errpath), "%s/perf.err", dir);
		FILE *e = fopen(errpath, "r");
		while (e && fgets(line, sizeof(line), e))
			fprintf(stderr, "perf: %s", line);
		if (e)
			fclose(e);
	}
	CHECK_EQ_U64(n, u.nlive);
	CHECK_EQ_U64(bad, 0);
	/* loads of the common table agree whole; stores and snoops may not */
	CHECK(ds_same > u.nlive / 4);
	fprintf(stderr, "perf 6.12 read %zu SPE samples of the recording; data_src equal in %zu\n",
		n, ds_same);
	/* Mispredicted branches (--itrace=b, perf's "branch-miss"): pmuscope
	 * script against perf script, as sorted lists of cpu, addr (the branch
	 * target), weight, ip (perf prints its fields in that order and orders
	 * samples by time; pmuscope prints them as asked, in file order). */
	const char *cli = getenv("PMS_CLI");
	if (cli) {
		struct brl_key *v[2] = { NULL, NULL };
		size_t nv[2] = { 0, 0 };
		for (int k = 0; k < 2; k++) {
			char prog[700];
			snprintf(prog, sizeof(prog), k ? "perf" : "'%s'", cli);
			snprintf(cmd, sizeof(cmd),
				 "%s script -i '%s' --itrace=b -F cpu,addr,weight,ip 2>>'%s/perf.err'",
				 prog, u.path, dir);
			FILE *q = popen(cmd, "r");
			CHECK(q != NULL);
			if (!q)
				continue;
			v[k] = calloc(MAXS, sizeof(*v[k]));
			while (v[k] && fgets(line, sizeof(line), q)) {
				struct brl_key b;
				if (sscanf(line, " [%u] %llx %llu %llx", &b.cpu, &b.to, &b.w, &b.ip) != 4) {
					CHECK_MSG(0, "%s: unexpected line %s", k ? "perf" : "pmuscope", line);
					continue;
				}
				if (nv[k] < MAXS)
					v[k][nv[k]++] = b;
			}
			CHECK_EQ_INT(pt_status(pclose(q)), 0);
			if (v[k])
				qsort(v[k], nv[k], sizeof(*v[k]), brl_cmp);
		}
		CHECK(nv[1] > 20);
		CHECK_EQ_U64(nv[0], nv[1]);
		size_t diff = 0;
		for (size_t i = 0; v[0] && v[1] && i < nv[0] && i < nv[1]; i++)
			diff += brl_cmp(&v[0][i], &v[1][i]) != 0;
		CHECK_EQ_U64(diff, 0);
		fprintf(stderr, "perf 6.12 and pmuscope script: the same %zu branch-miss samples\n",
			nv[1]);
		free(v[0]);
		free(v[1]);
	}
out:
	run_free(&u);
	if (!getenv("PMS_KEEP_TMP")) /* keep the recording to look at */
		pt_rmdir(dir);
	else
		fprintf(stderr, "kept %s\n", dir);
}

/* A two-chunk recording, the fuzz seed tests/fuzz/corpus/auxtrace/
 * spe_recorded.data (PMS_SPE_SEED=PATH writes it there): it reads back. */
PMS_TEST(spe_small_recording)
{
	struct run u;
	struct pms_perfdata_reader *rd = NULL;
	const char *seed = getenv("PMS_SPE_SEED");

	memset(&u, 0, sizeof(u));
	snprintf(u.path, sizeof(u.path), "%s", seed ? seed : "/tmp/pms-spe-small.data");
	if (!seed)
		snprintf(u.path, sizeof(u.path), "/tmp/pms-spe-small-%d.data", (int)getpid());
	if (record(&u, 77, 2) == 0) {
		CHECK_OK(pms_perfdata_reader_open_fd(u.fd, &rd));
		if (rd) {
			const struct pms_perfdata_info *in = pms_perfdata_reader_info(rd);
			struct pms_perfdata_event ev;
			size_t chunks = 0;
			while (pms_perfdata_next(rd, &ev) > 0) {
				if (ev.rec.type != PMS_PERFDATA_RECORD_AUXTRACE)
					continue;
				/* per-CPU chunks: the task of the CPU's last AUX
				 * record (record() writes pid 700-702, tid = pid or
				 * pid + 10), the one rule memsrc and script take */
				chunks++;
				CHECK_EQ_U64(ev.auxtrace.tid, UINT32_MAX);
				CHECK(ev.aux_pid >= 700 && ev.aux_pid <= 702);
				CHECK(ev.aux_tid == ev.aux_pid || ev.aux_tid == ev.aux_pid + 10);
			}
			CHECK(chunks > 0);
			CHECK(in->has_time_conv);
			CHECK_EQ_U64(in->auxtrace_type, PMS_AUXTRACE_TYPE_ARM_SPE);
			CHECK_EQ_U64(in->nauxtrace_priv, 2);
		}
	}
	pms_perfdata_reader_free(rd);
	run_free(&u);
	if (!seed)
		unlink(u.path);
}

PMS_TEST_MAIN()
