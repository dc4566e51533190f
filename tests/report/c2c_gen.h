/* Test-only: perf.data files for `perf c2c report` and `pmuscope c2c`,
 * written with the library's writer and randomized by a seed.
 *
 * One process (pid 4000) with several threads on 4 CPUs over 2 nodes
 * (NUMA_TOPOLOGY: CPUs 0-1 on node 0, 2-3 on node 1; MEM_TOPOLOGY: 128 MiB
 * blocks, 0-1 on node 0, 2-3 on node 1), an executable mapping and an
 * anonymous data mapping (MMAP2 records, so perf's maps hold every sample's
 * IP and data address), a few cache lines in the data mapping, and per
 * sample a data source drawn from what PEBS, IBS and SPE report: L1/LFB/L2/
 * L3 hits, local and remote HITM, peer hits (local and remote), remote
 * clean hits, local and remote DRAM, stores that hit, missed or have no
 * level, locked and blocked accesses, uncached and IO, loads without an
 * address and data sources perf cannot parse. */
#ifndef PMS_TESTS_REPORT_C2C_GEN_H
#define PMS_TESTS_REPORT_C2C_GEN_H

#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"

#define C2G_BLOCK (128ULL << 20)
#define C2G_PID 4000u
#define C2G_TEXT 0x400000ULL
#define C2G_DATA 0x7f1234500000ULL
/* physical bases of the lines: node 0 (block 0) for even line numbers,
 * node 1 (block 2) for odd ones */
#define C2G_PHYS0 0x100000ULL
#define C2G_PHYS1 (2 * C2G_BLOCK + 0x100000)

static inline uint64_t c2g_rand(uint64_t *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static inline uint64_t c2g_ds(unsigned op, unsigned lvl, unsigned snoop, unsigned lock,
			      unsigned lvl_num, unsigned remote, unsigned snoopx, unsigned blk,
			      unsigned hops)
{
	struct pms_datasrc d;
	memset(&d, 0, sizeof(d));
	d.op = op;
	d.lvl = lvl;
	d.snoop = snoop;
	d.lock = lock ? lock : PMS_MEM_LOCK_NA;
	d.dtlb = PMS_MEM_TLB_L1 | PMS_MEM_TLB_HIT;
	d.lvl_num = lvl_num;
	d.remote = remote;
	d.snoopx = snoopx;
	d.blk = blk;
	d.hops = hops;
	return pms_datasrc_pack(&d);
}

/* A data source drawn from the kinds above. */
static inline uint64_t c2g_pick_ds(uint64_t *s)
{
	const unsigned L = PMS_MEM_OP_LOAD, S = PMS_MEM_OP_STORE, H = PMS_MEM_LVL_HIT,
		       M = PMS_MEM_LVL_MISS;
	uint64_t r = c2g_rand(s);
	unsigned lock = (r >> 40) % 8 == 0 ? PMS_MEM_LOCK_LOCKED : PMS_MEM_LOCK_NA;
	unsigned blk = (r >> 44) % 10 == 0 ? PMS_MEM_BLK_DATA
		       : (r >> 44) % 10 == 1 ? PMS_MEM_BLK_ADDR : 0;
	switch (r % 24) {
	case 0: case 1: return c2g_ds(L, PMS_MEM_LVL_L1 | H, PMS_MEM_SNOOP_NONE, lock, PMS_MEM_LVLNUM_L1, 0, 0, blk, 0);
	case 2: return c2g_ds(L, PMS_MEM_LVL_LFB | H, PMS_MEM_SNOOP_NONE, lock, PMS_MEM_LVLNUM_LFB, 0, 0, blk, 0);
	case 3: return c2g_ds(L, PMS_MEM_LVL_L2 | H, PMS_MEM_SNOOP_NONE, lock, PMS_MEM_LVLNUM_L2, 0, 0, blk, 0);
	case 4: return c2g_ds(L, PMS_MEM_LVL_L2 | H, PMS_MEM_SNOOP_NA, lock, PMS_MEM_LVLNUM_L2, 0, PMS_MEM_SNOOPX_PEER, 0, 0);
	case 5: return c2g_ds(L, PMS_MEM_LVL_L3 | H, PMS_MEM_SNOOP_HIT, lock, PMS_MEM_LVLNUM_L3, 0, 0, blk, 0);
	case 6: case 7: return c2g_ds(L, PMS_MEM_LVL_L3 | H, PMS_MEM_SNOOP_HITM, lock, PMS_MEM_LVLNUM_L3, 0, 0, 0, 0);
	case 8: return c2g_ds(L, PMS_MEM_LVL_L3 | H, PMS_MEM_SNOOP_NA, lock, PMS_MEM_LVLNUM_L3, 0, PMS_MEM_SNOOPX_PEER, 0, 0);
	case 9: case 10: return c2g_ds(L, PMS_MEM_LVL_REM_CCE1 | H, PMS_MEM_SNOOP_HITM, lock, PMS_MEM_LVLNUM_ANY_CACHE, 1, 0, 0, 0);
	case 11: return c2g_ds(L, PMS_MEM_LVL_REM_CCE1 | H, PMS_MEM_SNOOP_HIT, lock, PMS_MEM_LVLNUM_ANY_CACHE, 1, 0, 0, 0);
	case 12: return c2g_ds(L, PMS_MEM_LVL_REM_CCE1, PMS_MEM_SNOOP_NA, 0, PMS_MEM_LVLNUM_ANY_CACHE, 1, PMS_MEM_SNOOPX_PEER, 0, 0);
	case 13: return c2g_ds(L, PMS_MEM_LVL_LOC_RAM | H, PMS_MEM_SNOOP_NONE, lock, PMS_MEM_LVLNUM_RAM, 0, 0, 0, 0);
	case 14: return c2g_ds(L, PMS_MEM_LVL_LOC_RAM | H, PMS_MEM_SNOOP_HIT, lock, PMS_MEM_LVLNUM_RAM, 0, 0, 0, 0);
	case 15: return c2g_ds(L, PMS_MEM_LVL_REM_RAM1 | H, PMS_MEM_SNOOP_NONE, lock, PMS_MEM_LVLNUM_RAM, 1, 0, 0, 0);
	/* Skylake's "remote, level unknown" (remote bit, no hops): perf's mrem */
	case 16: return c2g_ds(L, PMS_MEM_LVL_L3 | M, PMS_MEM_SNOOP_HITM, lock, PMS_MEM_LVLNUM_ANY_CACHE, 1, 0, 0, 0);
	/* remote with hops (Power): not mrem */
	case 17: return c2g_ds(L, PMS_MEM_LVL_L3 | H, PMS_MEM_SNOOP_HIT, lock, PMS_MEM_LVLNUM_L3, 1, 0, 0, PMS_MEM_HOPS_1);
	case 18: return c2g_ds(L, (r >> 8) & 1 ? PMS_MEM_LVL_UNC | H : PMS_MEM_LVL_IO | H, PMS_MEM_SNOOP_NONE, 0, 0, 0, 0, 0, 0);
	case 19: return c2g_ds(S, PMS_MEM_LVL_L1 | H, PMS_MEM_SNOOP_NA, lock, PMS_MEM_LVLNUM_L1, 0, 0, 0, 0);
	case 20: return c2g_ds(S, PMS_MEM_LVL_L1 | M, PMS_MEM_SNOOP_NA, lock, PMS_MEM_LVLNUM_L1, 0, 0, 0, 0);
	case 21: return c2g_ds(S, PMS_MEM_LVL_NA, PMS_MEM_SNOOP_NA, lock, PMS_MEM_LVLNUM_NA, 0, 0, 0, 0);
	case 22: return c2g_ds(S, (r >> 8) & 1 ? PMS_MEM_LVL_UNC | H : PMS_MEM_LVL_L1 | H, PMS_MEM_SNOOP_NA, 0, 0, 0, 0, 0, 0);
	default: /* op not available: perf cannot parse it */
		return (r >> 8) & 1 ? PMS_MEM_NA_VALUE : c2g_ds(PMS_MEM_OP_PFETCH, PMS_MEM_LVL_L1 | H, 0, 0, 0, 0, 0, 0, 0);
	}
}

/* EVENT_DESC as perf writes it (tools/perf/util/header.c write_event_desc):
 * u32 nr, u32 attr size, then per event the attr, u32 nr_ids, the name as
 * a perf string (u32 len padded to 64, bytes, NULs) and the ids. */
static inline size_t c2g_event_desc(unsigned char *buf, const struct perf_event_attr *a,
				    const char *const *names, const uint64_t *ids, unsigned n)
{
	size_t p = 0;
	uint32_t v = n, sz = sizeof(*a);
	memcpy(buf + p, &v, 4), p += 4;
	memcpy(buf + p, &sz, 4), p += 4;
	for (unsigned i = 0; i < n; i++) {
		memcpy(buf + p, &a[i], sizeof(*a)), p += sizeof(*a);
		v = 1;
		memcpy(buf + p, &v, 4), p += 4;
		uint32_t len = (uint32_t)((strlen(names[i]) + 1 + 63) / 64 * 64);
		memcpy(buf + p, &len, 4), p += 4;
		memset(buf + p, 0, len);
		memcpy(buf + p, names[i], strlen(names[i]));
		p += len;
		memcpy(buf + p, &ids[i], 8), p += 8;
	}
	return p;
}

static inline void c2g_write(struct pms_perfdata_writer *w, const struct pms_sample_layout *lay,
			     const struct pms_record *r)
{
	unsigned char buf[1024];
	size_t len = 0;
	CHECK_OK(pms_record_encode(lay, r, buf, sizeof(buf), &len));
	CHECK_OK(pms_perfdata_writer_write(w, buf, len));
}

/* Write the file for seed into fd; *nsamples gets the number of samples. */
static inline int c2g_file(int fd, uint64_t seed, unsigned *nsamples)
{
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.config = 0x1cd;
	a.sample_period = 1000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT |
			PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
	a.sample_id_all = 1;
	a.mmap = a.mmap2 = a.comm = 1;
	a.precise_ip = 2;
	bool two = seed % 2 == 0;
	struct perf_event_attr a2[2];
	static const char *const names[2] = { "cpu/mem-loads,ldlat=30/P", "cpu/mem-stores/P" };
	const uint64_t ids[2] = { 101, 102 };
	if (two) {
		a.type = 4; /* the core PMU "cpu" of PMU_MAPPINGS */
		a.sample_type |= PERF_SAMPLE_IDENTIFIER;
		a2[0] = a;
		a2[0].config = 0x1cd;
		a2[0].config1 = 30;
		a2[1] = a;
		a2[1].config = 0x82d0;
		a2[1].config1 = 0;
	}
	struct pms_sample_layout lay;
	pms_sample_layout_from_attr(&lay, &a);
	struct pms_perfdata_writer *w = NULL;
	if (pms_perfdata_writer_open(fd, &w) < 0)
		return -1;
	if (two) {
		CHECK_OK(pms_perfdata_writer_add_attr(w, &a2[0], &ids[0], 1));
		CHECK_OK(pms_perfdata_writer_add_attr(w, &a2[1], &ids[1], 1));
		static unsigned char desc[2048];
		size_t dl = c2g_event_desc(desc, a2, names, ids, 2);
		CHECK_OK(pms_perfdata_writer_set_feature(w, PMS_PERFDATA_FEAT_EVENT_DESC, desc, dl));
	} else {
		CHECK_OK(pms_perfdata_writer_add_attr(w, &a, NULL, 0));
	}

	struct pms_record r;
	uint64_t t = 1000000;
	unsigned nthreads = 2 + (unsigned)(c2g_rand(&s) % 5);
	memset(&r, 0, sizeof(r));
	r.type = PMS_RECORD_COMM;
	r.misc = PERF_RECORD_MISC_COMM_EXEC;
	r.comm.pid = r.comm.tid = C2G_PID;
	r.comm.comm = "c2cgen";
	r.sample_id.present = PMS_SAMPLE_TID | PMS_SAMPLE_TIME | (two ? PMS_SAMPLE_IDENTIFIER : 0);
	r.sample_id.id = ids[0];
	r.sample_id.pid = r.sample_id.tid = C2G_PID;
	r.sample_id.time = t++;
	c2g_write(w, &lay, &r);
	for (unsigned i = 1; i < nthreads; i++) {
		memset(&r, 0, sizeof(r));
		r.type = PMS_RECORD_FORK;
		r.fork.pid = C2G_PID;
		r.fork.ppid = C2G_PID;
		r.fork.tid = C2G_PID + i;
		r.fork.ptid = C2G_PID;
		r.fork.time = t;
		r.sample_id.present = PMS_SAMPLE_TID | PMS_SAMPLE_TIME | (two ? PMS_SAMPLE_IDENTIFIER : 0);
		r.sample_id.id = ids[0];
		r.sample_id.pid = C2G_PID;
		r.sample_id.tid = C2G_PID + i;
		r.sample_id.time = t++;
		c2g_write(w, &lay, &r);
	}
	/* the text (exec) and the data (anonymous, private) */
	memset(&r, 0, sizeof(r));
	r.type = PMS_RECORD_MMAP2;
	r.misc = PERF_RECORD_MISC_USER;
	r.mmap.pid = r.mmap.tid = C2G_PID;
	r.mmap.addr = C2G_TEXT;
	r.mmap.len = 0x10000;
	r.mmap.prot = 5; /* PROT_READ | PROT_EXEC */
	r.mmap.flags = 2; /* MAP_PRIVATE */
	r.mmap.ino = 99;
	r.mmap.filename = "/nonexistent/c2cgen";
	r.sample_id.present = PMS_SAMPLE_TID | PMS_SAMPLE_TIME | (two ? PMS_SAMPLE_IDENTIFIER : 0);
	r.sample_id.id = ids[0];
	r.sample_id.pid = r.sample_id.tid = C2G_PID;
	r.sample_id.time = t++;
	c2g_write(w, &lay, &r);
	r.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA;
	r.mmap.addr = C2G_DATA;
	r.mmap.len = 0x100000;
	r.mmap.prot = 3;
	r.mmap.flags = 0x22; /* MAP_PRIVATE | MAP_ANONYMOUS */
	r.mmap.ino = 0;
	r.mmap.filename = "//anon";
	r.sample_id.time = t++;
	c2g_write(w, &lay, &r);

	/* lines: 2..6, at random line indices in the mapping */
	unsigned nlines = 2 + (unsigned)(c2g_rand(&s) % 5);
	uint64_t lines[8];
	for (unsigned i = 0; i < nlines; i++) {
		uint64_t l;
		bool dup;
		do {
			l = 1 + c2g_rand(&s) % 2000;
			dup = false;
			for (unsigned k = 0; k < i; k++)
				dup |= lines[k] == l;
		} while (dup);
		lines[i] = l;
	}
	unsigned n = 150 + (unsigned)(c2g_rand(&s) % 250);
	for (unsigned i = 0; i < n; i++) {
		uint64_t ln = lines[c2g_rand(&s) % nlines];
		unsigned th = (unsigned)(c2g_rand(&s) % nthreads);
		unsigned off = (unsigned)(c2g_rand(&s) % 8) * 8;
		memset(&r, 0, sizeof(r));
		r.type = PMS_RECORD_SAMPLE;
		r.sample.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP;
		r.sample.ip = C2G_TEXT + 0x1000 + (c2g_rand(&s) % 12) * 4;
		r.sample.pid = C2G_PID;
		r.sample.tid = C2G_PID + th;
		r.sample.time = t++;
		/* threads stay on their CPU, mostly */
		r.sample.cpu = (unsigned)((th + (c2g_rand(&s) % 5 == 0)) % 4);
		r.sample.period = 1000;
		r.sample.weight = 20 + c2g_rand(&s) % 400;
		r.sample.data_src = c2g_pick_ds(&s);
		if (two) {
			struct pms_datasrc dd;
			pms_datasrc_unpack(r.sample.data_src, &dd);
			r.sample.id = (dd.op & PMS_MEM_OP_STORE) ? ids[1] : ids[0];
		}
		r.sample.addr = C2G_DATA + ln * 64 + off;
		if (c2g_rand(&s) % 40 == 0)
			r.sample.addr = 0; /* no address */
		r.sample.phys_addr = r.sample.addr ? (ln & 1 ? C2G_PHYS1 : C2G_PHYS0) + ln * 64 + off : 0;
		c2g_write(w, &lay, &r);
	}
	*nsamples = n;

	const struct pms_perfdata_numa_node numa[2] = {
		{ 0, 1000000, 500000, "0-1" },
		{ 1, 1000000, 500000, "2-3" },
	};
	uint64_t b0 = 0x3, b1 = 0xc;
	const struct pms_perfdata_mem_node mem[2] = { { 0, 4, 4, &b0 }, { 1, 4, 4, &b1 } };
	CHECK_OK(pms_perfdata_writer_set_numa_topology(w, numa, 2));
	CHECK_OK(pms_perfdata_writer_set_mem_topology(w, C2G_BLOCK, mem, 2));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_ARCH, "x86_64"));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_HOSTNAME, "c2cgen"));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_OSRELEASE, "6.12.0"));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_VERSION, "6.12"));
	CHECK_OK(pms_perfdata_writer_set_nrcpus(w, 4, 4));
	const struct pms_perfdata_pmu_map pmus[1] = { { 4, "cpu" } };
	CHECK_OK(pms_perfdata_writer_set_pmu_mappings(w, pmus, 1));
	int rc = pms_perfdata_writer_close(w);
	pms_perfdata_writer_free(w);
	return rc;
}

#endif
