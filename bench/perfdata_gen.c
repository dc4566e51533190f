/* Writes a large perf.data file of memory samples for bench/perfdata_bench.sh
 * with the library's writer: one PEBS-style load-latency event (sample_type
 * IP|TID|TIME|ADDR|CPU|PERIOD|WEIGHT|DATA_SRC, like `perf mem record`),
 * COMM and MMAP2 records for THREADS threads that all map a real binary
 * (so perf has symbols to resolve), and SAMPLES samples whose IPs fall in
 * that binary, with a dozen real data_src values and latencies.
 *
 * usage: perfdata_gen OUT [SAMPLES [THREADS [BINARY[:BINARY...] [DISTINCT [rand]]]]]
 *        (default 5000000 64 /usr/lib/x86_64-linux-gnu/libc.so.6)
 *
 * With several binaries (a colon list) or DISTINCT, the samples' IPs come
 * from a pool of DISTINCT addresses (default 300000) spread evenly over the
 * executable segments of all the binaries, each mapped 256 MiB apart: the
 * "many DSOs with symbols" shape of bench/perfdata_bench.sh.  "rand" sets
 * random snoop, TLB, lock, block and region bits in each data_src, so
 * distinct data_src words track samples (24 bits of them) while the
 * levels stay a dozen: the shape of the report memory bound. */
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmuscope/error.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"

#define ST (PMS_SAMPLE_IP | PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_ADDR | \
	    PMS_SAMPLE_CPU | PMS_SAMPLE_PERIOD | PMS_SAMPLE_WEIGHT | PMS_SAMPLE_DATA_SRC)

/* Skylake-SP load-latency data_src values (quipper's weight_struct file)
 * and a few remote/RAM ones. */
static const uint64_t dsrc[] = {
	0x10268100142ULL, 0x11868100242ULL, 0x1026a100142ULL, 0x10668100842ULL,
	0x10468100442ULL, 0x10650100842ULL, 0x1a29081042ULL,  0x183a00000040ULL,
	0x10668100842ULL, 0x11868100242ULL, 0x10268100142ULL, 0x10268100142ULL,
};

static uint64_t rng = 88172645463325252ULL;
static uint64_t xrand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int put(struct pms_perfdata_writer *w, const struct pms_sample_layout *l,
	       const struct pms_record *r)
{
	unsigned char buf[512];
	size_t len = 0;
	if (pms_record_encode(l, r, buf, sizeof(buf), &len) < 0 ||
	    pms_perfdata_writer_write(w, buf, len) < 0) {
		fprintf(stderr, "perfdata_gen: %s\n", pms_error_last());
		return -1;
	}
	return 0;
}

/* The executable PT_LOAD of an ELF file: file offset and size. */
static int text_of(const char *path, uint64_t *off, uint64_t *len)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY);
	int rc = -1;
	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64) {
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
			    (ssize_t)sizeof(ph))
				break;
			if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_filesz >= 4096) {
				*off = ph.p_offset;
				*len = ph.p_filesz;
				rc = 0;
				break;
			}
		}
	}
	close(fd);
	return rc;
}

#define MAXBIN 64

int main(int argc, char **argv)
{
	const char *out = argc > 1 ? argv[1] : NULL;
	uint64_t nsamples = argc > 2 ? strtoull(argv[2], NULL, 10) : 5000000;
	unsigned threads = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 64;
	const char *binlist = argc > 4 ? argv[4] : "/usr/lib/x86_64-linux-gnu/libc.so.6";
	size_t distinct = argc > 5 ? (size_t)strtoull(argv[5], NULL, 10) : 0;
	int randsrc = argc > 6 && !strcmp(argv[6], "rand");
	char *bins[MAXBIN], *list = strdup(binlist), *save = NULL;
	uint64_t boff[MAXBIN], blen[MAXBIN], bsize[MAXBIN], bino[MAXBIN];
	uint64_t *pool = NULL;
	unsigned nbin = 0;
	const char *bin;
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a;
	struct pms_sample_layout l;
	struct pms_record r;
	struct stat st;
	uint64_t base = 0x7f0000000000ULL, text;
	int fd;

	if (!out || !threads) {
		fprintf(stderr, "usage: perfdata_gen OUT [SAMPLES [THREADS [BINARY]]]\n");
		return 2;
	}
	for (char *t = strtok_r(list, ":", &save); t && nbin < MAXBIN; t = strtok_r(NULL, ":", &save)) {
		if (stat(t, &st) < 0) {
			perror(t);
			return 1;
		}
		bins[nbin] = t;
		bsize[nbin] = (uint64_t)st.st_size;
		bino[nbin] = (uint64_t)st.st_ino;
		if (text_of(t, &boff[nbin], &blen[nbin]) < 0) {
			boff[nbin] = 0;
			blen[nbin] = bsize[nbin];
		}
		nbin++;
	}
	if (!nbin) {
		fprintf(stderr, "perfdata_gen: no binary\n");
		return 2;
	}
	if (nbin > 1 && !distinct)
		distinct = 300000;
	if (distinct) {
		pool = malloc(distinct * sizeof(*pool));
		if (!pool)
			return 1;
		for (size_t i = 0; i < distinct; i++) {
			unsigned b = (unsigned)(i % nbin);
			pool[i] = base + (uint64_t)b * 0x10000000ULL + boff[b] + (xrand() % blen[b] & ~3ULL);
		}
	}
	bin = bins[0];
	text = bsize[0];
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_RAW;
	a.size = sizeof(a);
	a.config = 0x1cd;
	a.config1 = 30; /* ldlat */
	a.sample_period = 4000;
	a.sample_type = ST;
	a.precise_ip = 2;
	a.sample_id_all = 1;
	a.mmap = a.comm = a.mmap2 = a.mmap_data = 1;
	pms_sample_layout_from_attr(&l, &a);
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(out);
		return 1;
	}
	if (pms_perfdata_writer_open(fd, &w) < 0 || pms_perfdata_writer_add_attr(w, &a, NULL, 0) < 0)
		goto fail;
	for (unsigned t = 0; t < threads; t++) {
		char comm[32];
		snprintf(comm, sizeof(comm), "worker-%u", t);
		memset(&r, 0, sizeof(r));
		r.type = PMS_RECORD_COMM;
		r.comm.pid = r.comm.tid = 1000 + t;
		r.comm.comm = comm;
		r.sample_id.pid = r.sample_id.tid = 1000 + t;
		if (put(w, &l, &r) < 0)
			goto fail;
		for (unsigned b = 0; b < nbin; b++) {
			memset(&r, 0, sizeof(r));
			r.type = PMS_RECORD_MMAP2;
			r.misc = PMS_MISC_USER;
			r.mmap.pid = r.mmap.tid = 1000 + t;
			r.mmap.addr = base + (uint64_t)b * 0x10000000ULL;
			r.mmap.len = (bsize[b] + 4095) & ~4095ULL;
			r.mmap.maj = 8;
			r.mmap.ino = bino[b];
			r.mmap.prot = 5;
			r.mmap.flags = 2;
			r.mmap.filename = bins[b];
			r.sample_id.pid = r.sample_id.tid = 1000 + t;
			if (put(w, &l, &r) < 0)
				goto fail;
		}
	}
	for (uint64_t i = 0; i < nsamples; i++) {
		uint64_t x = xrand();
		unsigned t = (unsigned)(x % threads);
		memset(&r, 0, sizeof(r));
		r.type = PMS_RECORD_SAMPLE;
		r.sample.misc = PMS_MISC_USER | PMS_MISC_EXACT_IP;
		/* IPs in the first 1 MiB of the binary, 4-byte steps: many
		 * distinct IPs, a few thousand functions. */
		r.sample.ip = pool ? pool[(x >> 8) % distinct]
				   : base + 0x28000 + ((x >> 8) % (text < 0x128000 ? text / 2 : 0x100000) & ~3ULL);
		r.sample.pid = r.sample.tid = 1000 + t;
		r.sample.time = 1000000000ULL + i * 250;
		r.sample.addr = 0x55d000000000ULL + ((x >> 20) % (1ULL << 30) & ~7ULL);
		r.sample.cpu = t % 16;
		r.sample.period = 4000;
		r.sample.weight = 30 + (x >> 40) % 470;
		r.sample.data_src = dsrc[(x >> 50) % (sizeof(dsrc) / sizeof(dsrc[0]))];
		if (randsrc) { /* snoop 19-23, lock 24-25, tlb 26-32, snoopx 38-39, blk 40-42, region 46-50 */
			uint64_t y = xrand();
			r.sample.data_src &= ~(0x3fffULL << 19 | 0x3ULL << 38 | 0x7ULL << 40 | 0x1fULL << 46);
			r.sample.data_src |= (y & 0x3fffULL) << 19 | ((y >> 14) & 0x3) << 38 |
					     ((y >> 16) & 0x7) << 40 | ((y >> 19) & 0x1f) << 46;
		}
		if (put(w, &l, &r) < 0)
			goto fail;
	}
	if (pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_HOSTNAME, "bench") < 0 ||
	    pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_ARCH, "x86_64") < 0 ||
	    pms_perfdata_writer_set_nrcpus(w, 16, 16) < 0 || pms_perfdata_writer_close(w) < 0)
		goto fail;
	pms_perfdata_writer_free(w);
	close(fd);
	printf("%s: %" PRIu64 " samples, %u threads mapping %u binaries (%s%s), %zu distinct IPs%s\n",
	       out, nsamples, threads, nbin, bin, nbin > 1 ? ", ..." : "", distinct,
	       distinct ? "" : " (1 MiB of the first)");
	free(pool);
	free(list);
	return 0;
fail:
	fprintf(stderr, "perfdata_gen: %s\n", pms_error_last());
	pms_perfdata_writer_free(w);
	close(fd);
	free(pool);
	free(list);
	return 1;
}
