/* perf.data reader on files built here: writer -> reader round trip (every
 * record's bytes and fields, attrs by id, features, offline nodes), pipe
 * mode through a real pipe, a big-endian stream encoded by hand, zstd
 * COMPRESSED records with a record straddling two of them, corrupt inputs
 * (refused with the section and offset, or skipped and counted), and the
 * report summary. */
#include "check.h"
#include "perf_tool.h"

#include "pmuscope/error.h"
#include "pmuscope/memdeco.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <zstd.h>

#define ST (PMS_SAMPLE_IDENTIFIER | PMS_SAMPLE_IP | PMS_SAMPLE_TID | PMS_SAMPLE_TIME | \
	    PMS_SAMPLE_ADDR | PMS_SAMPLE_CPU | PMS_SAMPLE_WEIGHT_STRUCT |              \
	    PMS_SAMPLE_DATA_SRC | PMS_SAMPLE_PHYS_ADDR)

static struct perf_event_attr mk_attr(uint64_t config)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_RAW;
	a.size = sizeof(a);
	a.config = config;
	a.sample_period = 1000;
	a.sample_type = ST;
	a.sample_id_all = 1;
	a.comm = 1;
	a.mmap2 = 1;
	return a;
}

/* A growing byte buffer. */
struct bb {
	unsigned char b[1 << 16];
	size_t n;
};

static void bb_put(struct bb *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

struct expect {
	unsigned char raw[512];
	size_t len;
};

/* Encode a record; returns its length. */
static size_t enc(const struct pms_sample_layout *l, const struct pms_record *r,
		  unsigned char *buf, size_t cap)
{
	size_t len = 0;
	int rc = pms_record_encode(l, r, buf, cap, &len);
	CHECK_MSG(rc == 0, "encode: %s", pms_error_last());
	return len;
}

static void mk_sample(struct pms_record *r, uint64_t id, uint64_t i)
{
	memset(r, 0, sizeof(*r));
	r->type = PMS_RECORD_SAMPLE;
	r->sample.misc = PMS_MISC_USER;
	r->sample.id = id;
	r->sample.ip = 0x401000 + i;
	r->sample.pid = 100;
	r->sample.tid = 101;
	r->sample.time = 1000000 + i;
	r->sample.addr = 0x7f0000001000 + i * 64;
	r->sample.cpu = (uint32_t)(i % 4);
	r->sample.weight = (uint64_t)(30 + i) | (UINT64_C(7) << 32);
	r->sample.weight_var1_dw = (uint32_t)(30 + i);
	r->sample.weight_var2_w = 7;
	r->sample.data_src = 0x10268100142ULL;
	/* Block 0..3 of 128 MiB: node 0 holds 0,1 and node 1 holds 2; block 5
	 * is in no node. */
	r->sample.phys_addr = (i % 4 == 3 ? 5 : i % 3) * (UINT64_C(128) << 20) + 0x40;
}

static void mk_comm(struct pms_record *r, uint32_t pid, const char *comm, uint64_t id)
{
	memset(r, 0, sizeof(*r));
	r->type = PMS_RECORD_COMM;
	r->comm.pid = pid;
	r->comm.tid = pid;
	r->comm.comm = comm;
	r->sample_id.pid = pid;
	r->sample_id.tid = pid;
	r->sample_id.time = 5;
	r->sample_id.id = id;
	r->sample_id.cpu = 1;
}

static void mk_mmap2(struct pms_record *r, uint64_t id)
{
	memset(r, 0, sizeof(*r));
	r->type = PMS_RECORD_MMAP2;
	r->misc = PMS_MISC_USER;
	r->mmap.pid = 100;
	r->mmap.tid = 100;
	r->mmap.addr = 0x400000;
	r->mmap.len = 0x10000;
	r->mmap.maj = 8;
	r->mmap.ino = 42;
	r->mmap.prot = 5;
	r->mmap.flags = 2;
	r->mmap.filename = "/usr/bin/workload";
	r->sample_id.pid = 100;
	r->sample_id.tid = 100;
	r->sample_id.time = 6;
	r->sample_id.id = id;
}

#define NREC 40

/* Writes a file with two attrs (ids 11,12 and 21,22) and NREC records. */
static int write_file(int fd, struct expect *ex, size_t *nex)
{
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a0 = mk_attr(0x1cd), a1 = mk_attr(0x2cd);
	const uint64_t ids0[2] = { 11, 12 }, ids1[2] = { 21, 22 };
	struct pms_sample_layout l;
	struct pms_record r;
	uint64_t bm0 = 0x3, bm1 = 0x4;
	const struct pms_perfdata_numa_node numa[2] = { { 0, 1000, 500, "0-1" },
							 { 1, 2000, 700, "2-3" } };
	const struct pms_perfdata_mem_node mem[2] = { { 0, 3, 3, &bm0 }, { 1, 3, 3, &bm1 } };
	const struct pms_perfdata_pmu_map pmus[2] = { { 4, "cpu" }, { 24, "uncore_imc_0" } };
	const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef };

	pms_sample_layout_from_attr(&l, &a0);
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a0, ids0, 2));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a1, ids1, 2));
	*nex = 0;
	mk_comm(&r, 100, "workload", 11);
	ex[*nex].len = enc(&l, &r, ex[*nex].raw, sizeof(ex[0].raw));
	(*nex)++;
	mk_mmap2(&r, 21);
	ex[*nex].len = enc(&l, &r, ex[*nex].raw, sizeof(ex[0].raw));
	(*nex)++;
	while (*nex < NREC) {
		uint64_t i = *nex;
		mk_sample(&r, i % 2 ? 22 : 12, i);
		ex[*nex].len = enc(&l, &r, ex[*nex].raw, sizeof(ex[0].raw));
		(*nex)++;
	}
	for (size_t i = 0; i < *nex; i++)
		CHECK_OK(pms_perfdata_writer_write(w, ex[i].raw, ex[i].len));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_HOSTNAME, "testhost"));
	CHECK_OK(pms_perfdata_writer_set_nrcpus(w, 4, 4));
	CHECK_OK(pms_perfdata_writer_set_numa_topology(w, numa, 2));
	CHECK_OK(pms_perfdata_writer_set_mem_topology(w, UINT64_C(128) << 20, mem, 2));
	CHECK_OK(pms_perfdata_writer_set_pmu_mappings(w, pmus, 2));
	CHECK_OK(pms_perfdata_writer_add_build_id(w, -1, bid, 20, "[kernel.kallsyms]"));
	CHECK_OK(pms_perfdata_writer_add_build_id(w, 100, bid, 4, "/usr/bin/workload"));
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);
	return 0;
}

static void check_roundtrip(struct pms_perfdata_reader *r, const struct expect *ex, size_t nex)
{
	const struct pms_perfdata_info *in = pms_perfdata_reader_info(r);
	struct pms_perfdata_event ev;
	struct pms_memdeco *deco = NULL;
	size_t i = 0;
	int rc = 0;

	CHECK_EQ_INT(pms_perfdata_reader_nattrs(r), 2);
	CHECK_EQ_U64(pms_perfdata_reader_attr(r, 1)->attr->config, 0x2cd);
	CHECK_EQ_INT(pms_perfdata_reader_attr(r, 1)->nids, 2);
	CHECK_EQ_STR(in->hostname, "testhost");
	CHECK_EQ_INT(in->nr_cpus_online, 4);
	CHECK_EQ_INT(in->nnuma, 2);
	if (in->nnuma == 2) {
		CHECK_EQ_STR(in->numa[1].cpus, "2-3");
		CHECK_EQ_U64(in->numa[1].mem_total_kb, 2000);
		CHECK_EQ_U64(in->numa[1].mem_free_kb, 700);
	}
	CHECK_EQ_INT(in->npmu, 2);
	if (in->npmu == 2) {
		CHECK_EQ_STR(in->pmu[1].name, "uncore_imc_0");
		CHECK_EQ_INT(in->pmu[1].type, 24);
	}
	CHECK_EQ_INT(in->nbuild_ids, 2);
	if (in->nbuild_ids == 2) {
		CHECK_EQ_INT(in->build_ids[0].pid, -1);
		CHECK_EQ_STR(in->build_ids[1].filename, "/usr/bin/workload");
		CHECK_EQ_INT(in->build_ids[1].size, 4);
		CHECK_EQ_INT(in->build_ids[1].id[3], 0xef);
	}
	CHECK_EQ_U64(in->mem_block_size, UINT64_C(128) << 20);
	CHECK(pms_perfdata_reader_nodes_why(r) == NULL);
	CHECK_EQ_INT(pms_perfdata_reader_node_of_phys(r, UINT64_C(128) << 20), 0);
	CHECK_EQ_INT(pms_perfdata_reader_node_of_phys(r, UINT64_C(2) << 27), 1);
	CHECK_EQ_INT(pms_perfdata_reader_node_of_phys(r, UINT64_C(5) << 27), PMS_ENOENT);
	CHECK_OK(pms_memdeco_new_file(r, &deco));
	while (deco && (rc = pms_perfdata_next(r, &ev)) > 0) {
		if (i >= nex) {
			CHECK_MSG(0, "more records than written");
			break;
		}
		CHECK_EQ_INT(ev.raw_len, ex[i].len);
		CHECK_MSG(ev.raw_len == ex[i].len && !memcmp(ev.raw, ex[i].raw, ex[i].len),
			  "record %zu bytes differ", i);
		if (ev.rec.type == PMS_RECORD_SAMPLE) {
			struct pms_record want;
			mk_sample(&want, i % 2 ? 22 : 12, i);
			CHECK_EQ_INT(ev.attr_idx, i % 2);
			CHECK_EQ_U64(ev.rec.sample.ip, want.sample.ip);
			CHECK_EQ_U64(ev.rec.sample.addr, want.sample.addr);
			CHECK_EQ_U64(ev.rec.sample.weight_var1_dw, 30 + i);
			CHECK_EQ_U64(ev.rec.sample.data_src, want.sample.data_src);
			{
				/* the node of its PHYS_ADDR: the decoration stage's */
				struct pms_memsample ms = { .valid = 0 };
				struct pms_memdeco_out o;
				pms_memdeco_apply(deco, &ms, &ev.rec.sample.phys_addr, &o);
				CHECK_EQ_INT(o.mem_node, i % 4 == 3 ? PMS_NODE_NO_BLOCK
								    : (i % 3 == 2 ? 1 : 0));
				CHECK_EQ_INT(o.node_from_phys, i % 4 != 3);
			}
		} else if (ev.rec.type == PMS_RECORD_COMM) {
			CHECK_EQ_STR(ev.rec.comm.comm, "workload");
			CHECK_EQ_INT(ev.attr_idx, 0);
		} else {
			CHECK_EQ_INT(ev.rec.type, PMS_RECORD_MMAP2);
			CHECK_EQ_STR(ev.rec.mmap.filename, "/usr/bin/workload");
			CHECK_EQ_INT(ev.attr_idx, 1);
		}
		i++;
	}
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(i, nex);
	CHECK_EQ_U64(pms_perfdata_reader_stats(r)->samples, nex - 2);
	CHECK_EQ_U64(pms_perfdata_reader_stats(r)->bad_records, 0);
	pms_memdeco_free(deco);
}

static struct expect ex_g[NREC];

PMS_TEST(roundtrip_file_fd_and_memory)
{
	char dir[256], path[512];
	struct pms_perfdata_reader *r = NULL;
	size_t nex = 0;
	struct stat st;
	unsigned char *buf;
	int fd;

	CHECK(pt_mkdtemp(dir, sizeof(dir)) != NULL);
	snprintf(path, sizeof(path), "%s/rt.data", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	write_file(fd, ex_g, &nex);
	CHECK_OK(pms_perfdata_reader_open_fd(fd, &r));
	if (r) {
		CHECK(!pms_perfdata_reader_is_pipe(r));
		CHECK_EQ_U64(pms_perfdata_reader_attr_size(r), sizeof(struct perf_event_attr) + 16);
		check_roundtrip(r, ex_g, nex);
	}
	pms_perfdata_reader_free(r);
	r = NULL;
	CHECK(fstat(fd, &st) == 0);
	buf = malloc((size_t)st.st_size);
	CHECK(pread(fd, buf, (size_t)st.st_size, 0) == st.st_size);
	CHECK_OK(pms_perfdata_reader_open_mem(buf, (size_t)st.st_size, &r));
	if (r)
		check_roundtrip(r, ex_g, nex);
	pms_perfdata_reader_free(r);

	/* Truncating the file cuts the data section: refused, naming it. */
	r = NULL;
	CHECK_EQ_INT(pms_perfdata_reader_open_mem(buf, 300, &r), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "data section") != NULL);
	CHECK(r == NULL);
	/* A bad magic. */
	buf[0] ^= 0xff;
	CHECK_EQ_INT(pms_perfdata_reader_open_mem(buf, (size_t)st.st_size, &r), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "magic") != NULL);
	buf[0] ^= 0xff;
	/* A record size of 0 in the data: the records before it come, then
	 * PMS_EPARSE naming the offset. */
	{
		uint64_t off, doff;
		memcpy(&doff, buf + 40, 8);
		off = doff + ex_g[0].len + ex_g[1].len;
		struct pms_perfdata_event ev;
		int rc = 0, n = 0;
		char want[64];
		memset(buf + off + 6, 0, 2);
		CHECK_OK(pms_perfdata_reader_open_mem(buf, (size_t)st.st_size, &r));
		while (r && (rc = pms_perfdata_next(r, &ev)) > 0)
			n++;
		CHECK_EQ_INT(n, 2);
		CHECK_EQ_INT(rc, PMS_EPARSE);
		snprintf(want, sizeof(want), "offset %" PRIu64, off);
		CHECK_MSG(strstr(pms_error_last(), want) != NULL, "%s", pms_error_last());
		pms_perfdata_reader_free(r);
		r = NULL;
		/* A sample one u64 shorter than its layout: skipped and counted,
		 * the rest still read.  Shrink the record and pad a FINISHED_ROUND
		 * into the freed 8 bytes. */
		memcpy(buf + off + 6, &(uint16_t){ (uint16_t)(ex_g[2].len - 8) }, 2);
		{
			struct perf_event_header fr = { 68, 0, 8 };
			memcpy(buf + off + ex_g[2].len - 8, &fr, 8);
		}
		CHECK_OK(pms_perfdata_reader_open_mem(buf, (size_t)st.st_size, &r));
		n = 0;
		while (r && (rc = pms_perfdata_next(r, &ev)) > 0)
			n++;
		CHECK_EQ_INT(rc, 0);
		CHECK_EQ_INT(n, (int)nex); /* nex - 1 records + the FINISHED_ROUND */
		CHECK_EQ_U64(pms_perfdata_reader_stats(r)->bad_records, 1);
		CHECK(strstr(pms_perfdata_reader_last_skip(r), "SAMPLE") != NULL);
		pms_perfdata_reader_free(r);
	}
	free(buf);
	close(fd);
	pt_rmdir(dir);
}

/* ---- pipe mode and the other byte order, encoded by hand ---------------- */

struct enc_be {
	struct bb b;
	bool be;
};

static void e32(struct enc_be *e, uint32_t v)
{
	if (e->be)
		v = __builtin_bswap32(v);
	bb_put(&e->b, &v, 4);
}

static void e64(struct enc_be *e, uint64_t v)
{
	if (e->be)
		v = __builtin_bswap64(v);
	bb_put(&e->b, &v, 8);
}

static void e16(struct enc_be *e, uint16_t v)
{
	if (e->be)
		v = (uint16_t)(v >> 8 | v << 8);
	bb_put(&e->b, &v, 2);
}

static void ehdr(struct enc_be *e, uint32_t type, uint16_t misc, uint16_t size)
{
	e32(e, type);
	e16(e, misc);
	e16(e, size);
}

static unsigned char rev8(unsigned char b)
{
	unsigned char o = 0;
	for (int i = 0; i < 8; i++)
		if (b & (1u << i))
			o |= (unsigned char)(0x80u >> i);
	return o;
}

/* The 112-byte (VER5) attr of the hand-encoded files: raw 0x1cd, id 77's
 * layout, sample_id_all and comm set. */
#define HAND_ST (PMS_SAMPLE_IP | PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_ID | \
		 PMS_SAMPLE_CPU | PMS_SAMPLE_WEIGHT_STRUCT | PMS_SAMPLE_DATA_SRC)

static void e_attr(struct enc_be *e)
{
	uint64_t flags = (UINT64_C(1) << 18) /* sample_id_all */ | (UINT64_C(1) << 9) /* comm */;
	unsigned char fb[8];
	e32(e, PERF_TYPE_RAW);
	e32(e, 112);
	e64(e, 0x1cd);
	e64(e, 4000);
	e64(e, HAND_ST);
	e64(e, 0);
	/* The flag word: little-endian bit order in memory, or big-endian's
	 * most-significant-first bit-field order. */
	memcpy(fb, &flags, 8);
	if (e->be)
		for (int i = 0; i < 8; i++)
			fb[i] = rev8(fb[i]);
	bb_put(&e->b, fb, 8);
	for (int i = 0; i < (112 - 48) / 8; i++)
		e64(e, 0);
}

/* COMM pid 9 "cat", SAMPLE, FINISHED_ROUND. */
static void e_records(struct enc_be *e)
{
	/* COMM + trailer TID TIME ID CPU */
	ehdr(e, PMS_RECORD_COMM, 0, 8 + 8 + 8 + 32);
	e32(e, 9);
	e32(e, 9);
	bb_put(&e->b, "cat\0\0\0\0\0", 8);
	e32(e, 9);
	e32(e, 9);
	e64(e, 123);
	e64(e, 77);
	e32(e, 3);
	e32(e, 0);
	/* SAMPLE: IP TID TIME ID CPU WEIGHT_STRUCT DATA_SRC */
	ehdr(e, PMS_RECORD_SAMPLE, PMS_MISC_USER, 8 + 7 * 8);
	e64(e, 0xabcdef);
	e32(e, 9);
	e32(e, 10);
	e64(e, 456);
	e64(e, 77);
	e32(e, 3);
	e32(e, 0);
	e32(e, 250); /* var1 */
	e16(e, 12);  /* var2 ins_lat */
	e16(e, 0);
	e64(e, 0x11868100242ULL);
	ehdr(e, 68, 0, 8);
}

/* A pipe-mode stream: header, HEADER_ATTR (the attr, id 77), HEADER_FEATURE
 * HOSTNAME, then the records. */
static void mk_stream(struct enc_be *e, bool be)
{
	memset(e, 0, sizeof(*e));
	e->be = be;
	bb_put(&e->b, be ? "2ELIFREP" : "PERFILE2", 8);
	e64(e, 16);
	ehdr(e, 64, 0, 128); /* HEADER_ATTR: 8 + 112 + one id */
	e_attr(e);
	e64(e, 77);
	/* HEADER_FEATURE HOSTNAME: u64 feat, u32 len 8, "bigbox\0\0", pad 4 */
	ehdr(e, 80, 0, 8 + 8 + 4 + 8 + 4);
	e64(e, PMS_PERFDATA_FEAT_HOSTNAME);
	e32(e, 8);
	bb_put(&e->b, be ? "bigbox\0\0" : "litbox\0\0", 8);
	e32(e, 0);
	e_records(e);
}

/* The same in file mode: header, data, feature table (HOSTNAME, NRCPUS),
 * payloads, ids, attrs. */
static void mk_file(struct enc_be *e, bool be)
{
	size_t data_off = 104, data_size = 56 + 64 + 8, ft, ids, attrs;
	memset(e, 0, sizeof(*e));
	e->be = be;
	ft = data_off + data_size;
	ids = ft + 2 * 16 + 12 + 8;
	attrs = ids + 8;
	bb_put(&e->b, be ? "2ELIFREP" : "PERFILE2", 8);
	e64(e, 104);
	e64(e, 112 + 16);
	e64(e, attrs);
	e64(e, 112 + 16);
	e64(e, data_off);
	e64(e, data_size);
	e64(e, 0);
	e64(e, 0);
	e64(e, (UINT64_C(1) << PMS_PERFDATA_FEAT_HOSTNAME) | (UINT64_C(1) << PMS_PERFDATA_FEAT_NRCPUS));
	e64(e, 0);
	e64(e, 0);
	e64(e, 0);
	e_records(e);
	e64(e, ft + 32);
	e64(e, 12);
	e64(e, ft + 32 + 12);
	e64(e, 8);
	e32(e, 8);
	bb_put(&e->b, be ? "bigbox\0\0" : "litbox\0\0", 8);
	e32(e, 6); /* avail */
	e32(e, 5); /* online */
	e64(e, 77);
	e_attr(e);
	e64(e, ids);
	e64(e, 8);
}

static void check_stream(struct pms_perfdata_reader *r, bool be, bool pipe)
{
	struct pms_perfdata_event ev;
	int rc, n = 0, samples = 0;

	while ((rc = pms_perfdata_next(r, &ev)) > 0) {
		n++;
		if (ev.rec.type == PMS_RECORD_COMM) {
			CHECK_EQ_STR(ev.rec.comm.comm, "cat");
			CHECK_EQ_INT(ev.rec.sample_id.cpu, 3);
			CHECK_EQ_U64(ev.rec.sample_id.time, 123);
		} else if (ev.rec.type == PMS_RECORD_SAMPLE) {
			samples++;
			CHECK_EQ_U64(ev.rec.sample.ip, 0xabcdef);
			CHECK_EQ_INT(ev.rec.sample.pid, 9);
			CHECK_EQ_INT(ev.rec.sample.tid, 10);
			CHECK_EQ_U64(ev.rec.sample.time, 456);
			CHECK_EQ_U64(ev.rec.sample.id, 77);
			CHECK_EQ_INT(ev.rec.sample.cpu, 3);
			CHECK_EQ_INT(ev.rec.sample.weight_var1_dw, 250);
			CHECK_EQ_INT(ev.rec.sample.weight_var2_w, 12);
			CHECK_EQ_U64(ev.rec.sample.data_src, 0x11868100242ULL);
		}
	}
	CHECK_EQ_INT(rc, 0);
	/* (pipe: ATTR, FEATURE,) COMM, SAMPLE, FINISHED_ROUND */
	CHECK_EQ_INT(n, pipe ? 5 : 3);
	CHECK_EQ_INT(samples, 1);
	CHECK(pms_perfdata_reader_is_pipe(r) == pipe);
	CHECK(pms_perfdata_reader_swapped(r) == be);
	CHECK_EQ_INT(pms_perfdata_reader_nattrs(r), 1);
	if (pms_perfdata_reader_nattrs(r) == 1) {
		const struct pms_perfdata_attr *a = pms_perfdata_reader_attr(r, 0);
		CHECK_EQ_U64(a->attr->config, 0x1cd);
		CHECK_EQ_INT(a->recorded_size, 112);
		CHECK_EQ_INT(a->attr->sample_id_all, 1);
		CHECK_EQ_INT(a->attr->comm, 1);
		CHECK_EQ_INT(a->attr->mmap, 0);
	}
	CHECK_EQ_STR(pms_perfdata_reader_info(r)->hostname, be ? "bigbox" : "litbox");
	CHECK_EQ_STR(pms_perfdata_reader_nodes_why(r),
		     "no event samples PHYS_ADDR (record with pmuscope mem --phys, or perf record --phys-data); the file has no "
		     "MEM_TOPOLOGY header");
}

PMS_TEST(pipe_mode_both_byte_orders_memory_and_pipe)
{
	static struct enc_be e;
	for (int be = 0; be < 2; be++) {
		struct pms_perfdata_reader *r = NULL;
		int p[2];
		mk_stream(&e, be);
		CHECK_OK(pms_perfdata_reader_open_mem(e.b.b, e.b.n, &r));
		if (r)
			check_stream(r, be, true);
		pms_perfdata_reader_free(r);
		r = NULL;
		/* The same bytes through a pipe (read as a stream). */
		CHECK(pipe(p) == 0);
		CHECK(write(p[1], e.b.b, e.b.n) == (ssize_t)e.b.n);
		close(p[1]);
		CHECK_OK(pms_perfdata_reader_open_fd(p[0], &r));
		if (r)
			check_stream(r, be, true);
		pms_perfdata_reader_free(r);
		close(p[0]);
	}
}

PMS_TEST(file_mode_both_byte_orders)
{
	static struct enc_be e;
	for (int be = 0; be < 2; be++) {
		struct pms_perfdata_reader *r = NULL;
		mk_file(&e, be);
		CHECK_OK(pms_perfdata_reader_open_mem(e.b.b, e.b.n, &r));
		if (r) {
			CHECK_EQ_U64(pms_perfdata_reader_attr_size(r), 128);
			CHECK_EQ_INT(pms_perfdata_reader_info(r)->nr_cpus_avail, 6);
			CHECK_EQ_INT(pms_perfdata_reader_info(r)->nr_cpus_online, 5);
			CHECK_EQ_INT(pms_perfdata_reader_attr(r, 0)->nids, 1);
			CHECK_EQ_U64(pms_perfdata_reader_attr(r, 0)->ids[0], 77);
			check_stream(r, be, false);
		}
		pms_perfdata_reader_free(r);
	}
}

PMS_TEST(compressed_records_with_a_straddling_record)
{
	static struct enc_be e, out;
	unsigned char z[4096];
	size_t inner_off, inner_len, half, zn, c2_off = 0;
	struct pms_perfdata_reader *r = NULL;
	struct pms_perfdata_event ev;
	int rc = 0, n = 0, samples = 0, from_comp = 0;

	mk_stream(&e, false);
	/* Everything after HEADER_ATTR and HEADER_FEATURE (COMM, SAMPLE,
	 * FINISHED_ROUND) goes into two COMPRESSED records, split inside the
	 * SAMPLE. */
	inner_off = 16 + 128 + 32;
	inner_len = e.b.n - inner_off;
	half = 56 + 20;
	memset(&out, 0, sizeof(out));
	bb_put(&out.b, e.b.b, inner_off);
	for (int part = 0; part < 2; part++) {
		const unsigned char *src = e.b.b + inner_off + (part ? half : 0);
		size_t sn = part ? inner_len - half : half;
		struct perf_event_header h = { part ? 83 : 81, 0, 0 };
		static const unsigned char zero[8];
		zn = ZSTD_compress(z, sizeof(z), src, sn, 1);
		CHECK(!ZSTD_isError(zn));
		if (part == 0) {
			/* COMPRESSED: the size is exact, not a multiple of 8
			 * (perf's zstd_compress_stream_to_records). */
			h.size = (uint16_t)(8 + zn);
			bb_put(&out.b, &h, 8);
			bb_put(&out.b, z, zn);
		} else {
			/* COMPRESSED2: u64 data size, data, zero padding to 8. */
			uint64_t dsz = zn;
			h.size = (uint16_t)(16 + (zn + 7) / 8 * 8);
			c2_off = out.b.n;
			bb_put(&out.b, &h, 8);
			bb_put(&out.b, &dsz, 8);
			bb_put(&out.b, z, zn);
			bb_put(&out.b, zero, (zn + 7) / 8 * 8 - zn);
		}
	}
	CHECK_OK(pms_perfdata_reader_open_mem(out.b.b, out.b.n, &r));
	while (r && (rc = pms_perfdata_next(r, &ev)) > 0) {
		n++;
		samples += ev.rec.type == PMS_RECORD_SAMPLE;
		from_comp += ev.from_compressed;
		if (ev.rec.type == PMS_RECORD_SAMPLE)
			CHECK_EQ_U64(ev.rec.sample.data_src, 0x11868100242ULL);
	}
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(n, 5);
	CHECK_EQ_INT(samples, 1);
	CHECK_EQ_INT(from_comp, 3);
	CHECK_EQ_U64(pms_perfdata_reader_stats(r)->compressed, 2);
	CHECK_EQ_INT((int)pms_perfdata_reader_nproblems(r), 0);
	pms_perfdata_reader_free(r);

	/* COMPRESSED2 whose data_size is 8 bytes short: perf says "Couldn't
	 * decompress data"; the reader skips it and says so, it does not
	 * hand out what the cut frame gives. */
	{
		uint64_t dsz;
		memcpy(&dsz, out.b.b + c2_off + 8, 8);
		dsz -= 8;
		memcpy(out.b.b + c2_off + 8, &dsz, 8);
		r = NULL;
		n = samples = 0;
		CHECK_OK(pms_perfdata_reader_open_mem(out.b.b, out.b.n, &r));
		while (r && (rc = pms_perfdata_next(r, &ev)) > 0) {
			n++;
			samples += ev.rec.type == PMS_RECORD_SAMPLE;
		}
		/* perf stops at it (session.c process_compressed_event
		 * fails): so does the reader, and stays stopped */
		CHECK_EQ_INT(rc, PMS_EPARSE);
		CHECK_MSG(strstr(pms_error_last(), "couldn't decompress data"), "%s",
			  pms_error_last());
		CHECK_EQ_INT(pms_perfdata_next(r, &ev), PMS_EPARSE);
		CHECK_EQ_INT(samples, 0);
		CHECK_EQ_U64(pms_perfdata_reader_stats(r)->bad_records, 1);
		CHECK(pms_perfdata_reader_nproblems(r) >= 1);
		CHECK_MSG(pms_perfdata_reader_problem(r, 0) &&
				  strstr(pms_perfdata_reader_problem(r, 0), "couldn't decompress"),
			  "%s", pms_perfdata_reader_problem(r, 0));
		pms_perfdata_reader_free(r);
	}
}

/* The features the writer adds are read by perf itself. */
PMS_TEST(perf_reads_the_written_features)
{
	char dir[256], path[512], ver[128], cmd[2048], line[1024];
	static struct expect ex[NREC];
	size_t nex = 0;
	FILE *p;
	int fd, seen = 0;
	static const char *const want[] = {
		"# hostname : testhost",
		"# node0 meminfo  : total = 1000 kB, free = 500 kB",
		"# node1 cpu list : 2-3",
		"# pmu mappings: cpu = 4, uncore_imc_0 = 24",
		"# memory nodes (nr 2, block size 0x8000000):",
		"deadbeef00000000000000000000000000000000 [kernel.kallsyms]",
		"deadbeef                                 /usr/bin/workload",
		"SAMPLE events:         38",
	};

	if (!pt_perf_version(ver, sizeof(ver)))
		PMS_SKIP(PT_SKIP_MSG);
	CHECK(pt_mkdtemp(dir, sizeof(dir)) != NULL);
	pt_perf_env(dir);
	snprintf(path, sizeof(path), "%s/feat.data", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	write_file(fd, ex, &nex);
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "(perf report --force --header-only -I -i '%s'; perf buildid-list --force -i '%s'; "
		 "perf report --force --stats -i '%s') 2>/dev/null </dev/null",
		 path, path, path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		if (getenv("PMS_DEBUG_PERF"))
			fprintf(stderr, "perf: %s\n", line);
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			if (strstr(line, want[i]) && !strncmp(line + strspn(line, " "), want[i], strlen(want[i])))
				seen |= 1 << i;
	}
	if (p)
		pclose(p);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK_MSG(seen & (1 << i), "perf output has no line '%s'", want[i]);
	pt_rmdir(dir);
}

PMS_TEST(refuses_bad_arguments_and_short_headers)
{
	struct pms_perfdata_reader *r = (struct pms_perfdata_reader *)1;
	unsigned char b[104] = "PERFILE2";
	CHECK_EQ_INT(pms_perfdata_reader_open_mem(b, 8, &r), PMS_EPARSE);
	CHECK(r == NULL);
	b[8] = 104; /* file mode, but no attrs */
	CHECK_EQ_INT(pms_perfdata_reader_open_mem(b, sizeof(b), &r), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "attr_size") != NULL);
	CHECK_EQ_INT(pms_perfdata_reader_open_fd(-1, &r), PMS_EINVAL);
	pms_perfdata_reader_free(NULL);
}

/* kB of file pages mapped into this process (/proc/self/status RssFile). */
static long rss_file_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "RssFile: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* The reader maps a regular file whole but gives the pages it has read
 * back as it goes: reading 48 MiB of records leaves no more than a few MiB
 * of the file resident at any time (memory stays bounded on files larger
 * than RAM), and every record still reads whole across the chunk edges. */
PMS_TEST(mapped_pages_given_back_as_read)
{
	char dir[256], path[512];
	struct pms_perfdata_writer *w = NULL;
	struct pms_perfdata_reader *r = NULL;
	struct perf_event_attr a = mk_attr(0x1cd);
	const uint64_t ids[1] = { 12 };
	struct pms_sample_layout l;
	struct pms_record rec;
	static unsigned char chunk[1 << 16];
	size_t n = 0, per = 0, nrec = 0, reclen = 0;
	long before, peak = 0;
	int fd, rc;

	CHECK(pt_mkdtemp(dir, sizeof(dir)) != NULL);
	snprintf(path, sizeof(path), "%s/big.data", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	pms_sample_layout_from_attr(&l, &a);
	mk_sample(&rec, 12, 7);
	reclen = enc(&l, &rec, chunk, sizeof(chunk));
	per = sizeof(chunk) / reclen;
	for (size_t i = 1; i < per; i++)
		memcpy(chunk + i * reclen, chunk, reclen);
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, ids, 1));
	while (nrec * reclen < (size_t)48 << 20) {
		for (size_t i = 0; i < per; i++)
			CHECK_OK(pms_perfdata_writer_write(w, chunk + i * reclen, reclen));
		nrec += per;
	}
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);

	before = rss_file_kb();
	CHECK_MSG(before >= 0, "no RssFile in /proc/self/status");
	CHECK_OK(pms_perfdata_reader_open_fd(fd, &r));
	if (r) {
		struct pms_perfdata_event ev;
		while ((rc = pms_perfdata_next(r, &ev)) > 0) {
			if (ev.raw_len != reclen || memcmp(ev.raw, chunk, reclen)) {
				CHECK_MSG(0, "record %zu at offset %" PRIu64 " differs", n,
					  ev.file_offset);
				break;
			}
			if (++n % 4096 == 0) {
				long now = rss_file_kb();
				peak = now > peak ? now : peak;
			}
		}
		CHECK_EQ_INT(rc, 0);
		CHECK_EQ_U64(n, nrec);
	}
	CHECK_MSG(peak - before < 8 * 1024,
		  "%ld kB of the 48 MiB file resident while reading it (bound 8 MiB)",
		  peak - before);
	pms_perfdata_reader_free(r);
	close(fd);
	pt_rmdir(dir);
}

/* Feature numbers as perf's util/header.h HEADER_* enum names them. */
PMS_TEST(feature_names)
{
	CHECK_EQ_STR(pms_perfdata_feature_name(2), "BUILD_ID");
	CHECK_EQ_STR(pms_perfdata_feature_name(9), "CPUID");
	CHECK_EQ_STR(pms_perfdata_feature_name(14), "NUMA_TOPOLOGY");
	CHECK_EQ_STR(pms_perfdata_feature_name(16), "PMU_MAPPINGS");
	CHECK(pms_perfdata_feature_name(255) == NULL);
}

PMS_TEST_MAIN()
