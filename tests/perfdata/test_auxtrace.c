/* AUX traces in perf.data: the writer's AUXTRACE_INFO/AUXTRACE records, the
 * reader's payloads (file and pipe mode, cut files), AUX flag counts, the SPE
 * metadata of both versions with per-CPU MIDRs, and the chunk decoder's cut
 * accounting (docs/spe.md). */
#include "check.h"

#include "pmuscope/error.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"
#include "pmuscope/spe.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define SPE_TYPE 8

/* Write a file with the given AUXTRACE_INFO priv words, one AUXTRACE per cpu
 * in cpus[] with payload pl (len bytes), and an AUX record with flags. */
static char *write_file(const uint64_t *priv, size_t npriv, const uint32_t *cpus, size_t ncpus,
			const uint8_t *pl, size_t len, uint64_t aux_flags, const char *cpuid,
			size_t *size)
{
	char path[] = "/tmp/pms-auxtrace-XXXXXX";
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a;
	uint64_t id = 5;
	int fd = mkstemp(path);
	char *buf = NULL;
	struct stat st;

	CHECK(fd >= 0);
	memset(&a, 0, sizeof(a));
	a.type = SPE_TYPE;
	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.sample_id_all = 0;
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, &id, 1));
	if (cpuid)
		CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_CPUID, cpuid));
	CHECK_OK(pms_perfdata_writer_write_auxtrace_info(w, PMS_AUXTRACE_TYPE_ARM_SPE, priv,
							 npriv));
	for (size_t i = 0; i < ncpus; i++) {
		struct pms_perfdata_auxtrace at = { 0 };
		at.idx = (uint32_t)i;
		at.cpu = cpus[i];
		at.tid = UINT32_MAX;
		at.offset = 4096 * i;
		at.reference = 0x1234 + i;
		CHECK_OK(pms_perfdata_writer_write_auxtrace(w, &at, pl, len));
	}
	{
		/* PERF_RECORD_AUX: aux_offset, aux_size, flags (no sample_id). */
		uint64_t rec[4];
		struct perf_event_header h = { PERF_RECORD_AUX, 0, sizeof(rec) };
		memcpy(rec, &h, 8);
		rec[1] = 0;
		rec[2] = len;
		rec[3] = aux_flags;
		CHECK_OK(pms_perfdata_writer_write(w, rec, sizeof(rec)));
	}
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);
	CHECK(fstat(fd, &st) == 0);
	buf = malloc((size_t)st.st_size);
	CHECK(buf && pread(fd, buf, (size_t)st.st_size, 0) == st.st_size);
	*size = (size_t)st.st_size;
	close(fd);
	unlink(path);
	return buf;
}

/* Two records: a load with a Data Source packet, then a store. */
static size_t two_records(uint8_t *out, size_t cap)
{
	struct pms_spe_record r;
	size_t n = 0;
	memset(&r, 0, sizeof(r));
	r.valid = PMS_SPE_R_PC | PMS_SPE_R_OP | PMS_SPE_R_DATA_SOURCE | PMS_SPE_R_TOTAL_LAT;
	r.pc = 0x400100;
	r.pc_ns = true;
	r.op_class = PMS_SPE_OPC_LDST;
	r.data_source = 0xe; /* DRAM on the common table */
	r.data_source_len = 2;
	r.total_lat = 300;
	n += (size_t)pms_spe_encode_record(&r, out + n, cap - n);
	r.op_raw = 1; /* store */
	r.valid &= ~(uint32_t)PMS_SPE_R_DATA_SOURCE;
	n += (size_t)pms_spe_encode_record(&r, out + n, cap - n);
	return n;
}

struct got {
	uint64_t loads, stores, dram;
};

static int count(void *arg, const struct pms_spe_record *rec, const struct pms_memsample *ms)
{
	struct got *g = arg;
	if (!pms_spe_record_is_mem(rec))
		return 0;
	if (rec->op_flags & PMS_SPE_F_STORE)
		g->stores++;
	else
		g->loads++;
	/* LVL LOC_RAM|HIT, LVLNUM RAM: the common table ran for this MIDR. */
	if ((ms->valid & PMS_MS_DATA_SRC) && ((ms->data_src >> 33) & 0xf) == 0xd)
		g->dram++;
	return 0;
}

PMS_TEST(spe_v2_metadata_per_cpu_midr_and_payloads)
{
	/* Version 2: {version, header words, PMU type, nr CPUs}, then per CPU
	 * {magic, cpu, nr_params, MIDR, PMU type, min interval[, filter]}. */
	const uint64_t M = 0x1010101010101010ULL;
	uint64_t priv[] = { 2, 4, SPE_TYPE, 2,
			    M, 0, 3, 0x410fd0c0, SPE_TYPE, 1024,          /* N1 */
			    M, 5, 4, 0x410fd030, SPE_TYPE, 256, 0xffff }; /* A53 */
	uint32_t cpus[] = { 0, 5 };
	uint8_t pl[128];
	size_t len = two_records(pl, sizeof(pl)), size = 0;
	char *f = write_file(priv, sizeof(priv) / 8, cpus, 2, pl, len,
			     PMS_AUX_FLAG_TRUNCATED | PMS_AUX_FLAG_PARTIAL, NULL, &size);
	struct pms_perfdata_reader *r = NULL;
	struct pms_perfdata_event ev;
	struct pms_perfdata_spe_meta m;
	struct got g[2];
	size_t seen = 0;
	uint64_t midr = 0;
	int rc;

	memset(g, 0, sizeof(g));
	CHECK_OK(pms_perfdata_reader_open_mem(f, size, &r));
	if (!r)
		goto out;
	/* Before the AUXTRACE_INFO record is read, there is none. */
	CHECK_EQ_INT(pms_perfdata_reader_spe_meta(r, &m), PMS_ENOENT);
	while ((rc = pms_perfdata_next(r, &ev)) > 0) {
		struct pms_spe_chunk_ctx cx = { 0 };
		struct pms_spe_chunk_stats cs = { 0 };
		if (ev.rec.type != PMS_PERFDATA_RECORD_AUXTRACE)
			continue;
		CHECK(seen < 2);
		if (seen >= 2)
			break;
		CHECK_EQ_INT(ev.auxtrace.cpu, cpus[seen]);
		CHECK_EQ_INT(ev.auxtrace.idx, seen);
		CHECK_EQ_U64(ev.auxtrace.offset, 4096 * seen);
		CHECK_EQ_U64(ev.auxtrace.reference, 0x1234 + seen);
		CHECK_EQ_U64(ev.auxtrace.size, (len + 7) & ~(size_t)7);
		CHECK_EQ_INT(ev.aux_len, ev.auxtrace.size);
		CHECK(ev.aux_data && memcmp(ev.aux_data, pl, len) == 0);
		CHECK_OK(pms_perfdata_reader_spe_midr(r, ev.auxtrace.cpu, &midr));
		cx.midr = midr;
		cx.cpu = ev.auxtrace.cpu;
		cx.tid = ev.auxtrace.tid;
		CHECK_OK(pms_spe_chunk_decode(ev.aux_data, ev.aux_len, &cx, &cs, count, &g[seen]));
		CHECK_EQ_INT(cs.records, 2);
		CHECK_EQ_INT(cs.cut_chunks, 0);
		seen++;
	}
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(seen, 2);
	CHECK_OK(pms_perfdata_reader_spe_meta(r, &m));
	CHECK_EQ_INT(m.version, 2);
	CHECK_EQ_U64(m.pmu_type, SPE_TYPE);
	CHECK_EQ_INT(m.ncpus, 2);
	if (m.ncpus == 2) {
		CHECK_EQ_U64(m.cpus[0].midr, 0x410fd0c0);
		CHECK_EQ_U64(m.cpus[0].min_interval, 1024);
		CHECK(!m.cpus[0].has_event_filter);
		CHECK_EQ_INT(m.cpus[1].cpu, 5);
		CHECK(m.cpus[1].has_event_filter);
		CHECK_EQ_U64(m.cpus[1].event_filter, 0xffff);
	}
	/* The N1 chunk gets the common table (DRAM), the A53 chunk none. */
	CHECK_EQ_INT(g[0].loads, 1);
	CHECK_EQ_INT(g[0].stores, 1);
	CHECK_EQ_INT(g[0].dram, 1);
	CHECK_EQ_INT(g[1].dram, 0);
	CHECK_EQ_INT(pms_perfdata_reader_spe_midr(r, 7, &midr), PMS_ENOENT);
	{
		const struct pms_perfdata_stats *st = pms_perfdata_reader_stats(r);
		CHECK_EQ_INT(st->aux_records, 1);
		CHECK_EQ_INT(st->aux_truncated, 1);
		CHECK_EQ_INT(st->aux_partial, 1);
		CHECK_EQ_INT(st->aux_collision, 0);
		CHECK_EQ_INT(st->auxtrace_bytes, 2 * ((len + 7) & ~(size_t)7));
		CHECK(!st->truncated);
	}
out:
	pms_perfdata_reader_free(r);
	free(f);
}

PMS_TEST(spe_v1_midr_from_cpuid_and_bad_metadata)
{
	uint64_t v1[] = { SPE_TYPE, 1 };
	uint64_t bad_magic[] = { 2, 4, SPE_TYPE, 1, 0x1234, 0, 3, 1, 2, 3 };
	uint64_t too_many[] = { 2, 4, SPE_TYPE, 1000, 0x1010101010101010ULL, 0, 3, 1, 2, 3 };
	uint64_t three[] = { SPE_TYPE, 1, 0 };
	uint32_t cpu0 = 0;
	uint8_t pl[128];
	size_t len = two_records(pl, sizeof(pl)), size;
	struct {
		const uint64_t *priv;
		size_t n;
		const char *cpuid;
		int meta_rc;
		int midr_rc;
		uint64_t midr;
	} rows[] = {
		{ v1, 2, "0x00000000410fd0c0", 0, 0, 0x410fd0c0 },
		{ v1, 2, NULL, 0, PMS_ENOENT, 0 },
		{ v1, 2, "AuthenticAMD,25,17,1", 0, PMS_ENOENT, 0 },
		{ bad_magic, 10, NULL, PMS_EPARSE, PMS_ENOENT, 0 },
		{ too_many, 10, NULL, PMS_EPARSE, PMS_ENOENT, 0 },
		{ three, 3, NULL, PMS_EPARSE, PMS_ENOENT, 0 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *f = write_file(rows[i].priv, rows[i].n, &cpu0, 1, pl, len, 0, rows[i].cpuid,
				     &size);
		struct pms_perfdata_reader *r = NULL;
		struct pms_perfdata_event ev;
		struct pms_perfdata_spe_meta m;
		uint64_t midr = 0;
		CHECK_OK(pms_perfdata_reader_open_mem(f, size, &r));
		while (r && pms_perfdata_next(r, &ev) > 0)
			;
		if (r) {
			int mrc = pms_perfdata_reader_spe_meta(r, &m);
			int rc = pms_perfdata_reader_spe_midr(r, 0, &midr);
			CHECK_MSG(mrc == rows[i].meta_rc, "row %zu: meta %d", i, mrc);
			CHECK_MSG(rc == rows[i].midr_rc, "row %zu: midr %d (%s)", i, rc,
				  pms_error_last());
			if (rc == 0)
				CHECK_EQ_U64(midr, rows[i].midr);
			if (mrc == 0)
				CHECK_EQ_INT(m.version, 1);
		}
		pms_perfdata_reader_free(r);
		free(f);
	}
}

/* A file cut inside an AUXTRACE payload: the bytes there are are handed
 * out, the shortfall counted; the same file through a pipe. */
PMS_TEST(auxtrace_payload_cut_and_pipe_mode_stream)
{
	uint64_t v1[] = { SPE_TYPE, 1 };
	uint32_t cpu0 = 0;
	uint8_t pl[128];
	size_t len = two_records(pl, sizeof(pl)), size;
	char *f = write_file(v1, 2, &cpu0, 1, pl, len, 0, NULL, &size);
	struct pms_perfdata_reader *r = NULL;
	struct pms_perfdata_event ev;
	uint64_t data_off = 0, data_size = 0;
	size_t aux_at = 0;
	int rc;

	/* The data section: header words 5 and 6 (offset, size). */
	memcpy(&data_off, f + 40, 8);
	memcpy(&data_size, f + 48, 8);
	/* Find the AUXTRACE record (after the 32-byte AUXTRACE_INFO) and cut
	 * the file 5 bytes into its payload, as a killed recorder leaves it:
	 * the header's data section then runs past the end of the file, which
	 * the reader reads up to its end (an unfinished file). */
	aux_at = (size_t)data_off + 32; /* AUXTRACE_INFO: header 8, type 4, reserved 4, 2 words */
	CHECK_OK(pms_perfdata_reader_open_mem(f, aux_at + 48 + 5, &r));
	while (r && (rc = pms_perfdata_next(r, &ev)) > 0)
		if (ev.rec.type == PMS_PERFDATA_RECORD_AUXTRACE) {
			CHECK_EQ_INT(ev.aux_len, 5);
			CHECK(memcmp(ev.aux_data, pl, 5) == 0);
		}
	if (r) {
		CHECK_EQ_INT(pms_perfdata_reader_stats(r)->auxtrace_short, 1);
		CHECK(pms_perfdata_reader_stats(r)->truncated);
	}
	pms_perfdata_reader_free(r);
	memcpy(f + 48, &data_size, 8);

	/* Pipe mode: a 16-byte header, HEADER_ATTR, then the data records. */
	{
		int p[2];
		unsigned char hdr[16];
		uint64_t magic = PMS_PERFDATA_MAGIC, hsize = 16;
		unsigned char ha[8 + sizeof(struct perf_event_attr) + 8];
		struct perf_event_header h = { 64, 0, sizeof(ha) };
		struct perf_event_attr a;
		uint64_t id = 5;
		bool got = false;
		CHECK(pipe(p) == 0);
		memcpy(hdr, &magic, 8);
		memcpy(hdr + 8, &hsize, 8);
		memset(&a, 0, sizeof(a));
		a.type = SPE_TYPE;
		a.size = sizeof(a);
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
		memcpy(ha, &h, 8);
		memcpy(ha + 8, &a, sizeof(a));
		memcpy(ha + 8 + sizeof(a), &id, 8);
		CHECK(write(p[1], hdr, 16) == 16);
		CHECK(write(p[1], ha, sizeof(ha)) == (ssize_t)sizeof(ha));
		CHECK(write(p[1], f + data_off, (size_t)data_size) == (ssize_t)data_size);
		close(p[1]);
		r = NULL;
		CHECK_OK(pms_perfdata_reader_open_fd(p[0], &r));
		while (r && (rc = pms_perfdata_next(r, &ev)) > 0)
			if (ev.rec.type == PMS_PERFDATA_RECORD_AUXTRACE) {
				struct pms_spe_chunk_ctx cx = { 0x410fd0c0, false, 0, UINT32_MAX, 0 };
				struct pms_spe_chunk_stats cs = { 0 };
				struct got g = { 0, 0, 0 };
				CHECK_EQ_INT(ev.aux_len, (len + 7) & ~(size_t)7);
				CHECK_OK(pms_spe_chunk_decode(ev.aux_data, ev.aux_len, &cx, &cs,
							      count, &g));
				CHECK_EQ_INT(g.loads + g.stores, 2);
				got = true;
			}
		CHECK(got);
		if (r)
			CHECK(pms_perfdata_reader_is_pipe(r));
		pms_perfdata_reader_free(r);
		close(p[0]);
	}
	free(f);
}

PMS_TEST(chunk_decode_counts_a_cut_record)
{
	uint8_t pl[128];
	size_t len = two_records(pl, sizeof(pl));
	struct pms_spe_chunk_ctx cx = { 0x410fd0c0, false, 3, 77, 0 };
	struct pms_spe_chunk_stats cs = { 0 };
	struct got g = { 0, 0, 0 };

	/* Drop the last 4 bytes: the store is cut. */
	CHECK_OK(pms_spe_chunk_decode(pl, len - 4, &cx, &cs, count, &g));
	CHECK_EQ_INT(cs.records, 1);
	CHECK_EQ_INT(cs.cut_chunks, 1);
	CHECK(cs.cut_bytes > 0);
	CHECK_EQ_INT(g.loads, 1);
	CHECK_EQ_INT(g.stores, 0);
	CHECK_EQ_INT(pms_spe_chunk_decode(NULL, 4, &cx, &cs, count, &g), PMS_EINVAL);
}

PMS_TEST_MAIN()
