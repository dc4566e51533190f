/* Writes a large perf.data file of memory samples for bench/perfdata_bench.sh
 * with the library's writer: one PEBS-style load-latency event (sample_type
 * IP|TID|TIME|ADDR|CPU|PERIOD|WEIGHT|DATA_SRC, like `perf mem record`),
 * COMM and MMAP2 records for THREADS threads that all map real binaries
 * (so perf has symbols to resolve), and SAMPLES samples whose IPs fall in
 * those binaries.  `perfdata_gen --help` lists the options.
 *
 * Shapes: IPs in the first MiB of one binary (default) or drawn at random
 * from a pool of DISTINCT addresses over the executable segments of several
 * binaries (a colon list, each mapped 256 MiB apart); data_src a dozen
 * Skylake values, random bits (rand), or the decoders' own outputs (varied:
 * the words pmuscope's PEBS, IBS and SPE decoders make from random raw
 * records, thousands of distinct op x level x snoop x TLB x lock x block
 * combinations as real files carry); no call stacks, frame-pointer chains
 * (fp: PERF_SAMPLE_CALLCHAIN, a tree of paths) or DWARF stacks (dwarf:
 * REGS_USER + STACK_USER holding return addresses, as `perf record
 * --call-graph dwarf` writes them). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmuscope/datasrc.h"
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
	static unsigned char buf[PMS_RECORD_MAX_SIZE];
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

enum dsrc_shape { DS_FIXED, DS_RAND, DS_VARIED };
enum stack_shape { STK_NONE, STK_FP, STK_DWARF };

struct opts {
	const char *out;
	uint64_t nsamples;
	unsigned threads;
	const char *binlist;
	size_t distinct;
	enum dsrc_shape dsrc;
	enum stack_shape stack;
	unsigned depth;      /* fp: deepest chain */
	size_t chains;       /* fp/dwarf: distinct paths */
	unsigned stack_size; /* dwarf: user stack bytes a sample */
	bool addr_maps;      /* data addresses in the mapped objects */
	uint64_t rounds;     /* a FINISHED_ROUND every so many samples, times out of order */
	uint64_t mmap_every; /* a timed MMAP2 every so many samples (0: none) */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfdata_gen [OPTIONS] OUT [SAMPLES [THREADS [BINARY[:BINARY...] [DISTINCT [rand]]]]]\n"
		"Writes a perf.data file of SAMPLES (default 5000000) PEBS-style memory samples\n"
		"from THREADS (default 64) threads mapping BINARY (default libc).\n"
		"  --ips=DISTINCT        IPs drawn at random from DISTINCT addresses over every\n"
		"                        binary's text (default with several binaries: 300000)\n"
		"  --datasrc=fixed|rand|varied\n"
		"                        fixed: a dozen Skylake words (default); rand: random\n"
		"                        snoop/TLB/lock/block/region bits; varied: the words\n"
		"                        the PEBS, IBS and SPE decoders make from random records\n"
		"  --stack=none|fp|dwarf call stacks: none (default), frame-pointer callchains,\n"
		"                        or DWARF (REGS_USER + STACK_USER) as perf --call-graph dwarf\n"
		"  --depth=N             fp: deepest chain (default 24)\n"
		"  --paths=N             fp/dwarf: distinct call paths (default 20000)\n"
		"  --stack-size=N        dwarf: user stack bytes a sample (default 2048)\n"
		"  --addr=heap|maps      data addresses in one unmapped GiB (heap, default) or at\n"
		"                        random in every binary's mapping (as many data objects)\n"
		"  --rounds=N            a FINISHED_ROUND every N samples, as perf record writes\n"
		"                        them, each sample's time up to a round early (out of\n"
		"                        order within and across one round, as perf's rings)\n"
		"  --mmap-every=N        a timed MMAP2 every N samples, over part of the data\n"
		"                        addresses (mappings that change in the middle)\n"
		"  --help                this text\n");
}

static int parse_num(const char *name, const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	if (!*v || *end || errno || x > max || *v == '-') {
		fprintf(stderr, "perfdata_gen: %s: not a number up to %" PRIu64 ": '%s'\n", name, max, v);
		return -1;
	}
	*out = x;
	return 0;
}

/* 0 ok, 1 help printed, -1 refused. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	const char *pos[6] = { 0 };
	int npos = 0;
	uint64_t v;

	*o = (struct opts){ .nsamples = 5000000, .threads = 64,
			    .binlist = "/usr/lib/x86_64-linux-gnu/libc.so.6", .depth = 24,
			    .chains = 20000, .stack_size = 2048 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		if (a[0] != '-' || !a[1]) {
			if (npos == 6) {
				fprintf(stderr, "perfdata_gen: too many operands ('%s')\n", a);
				return -1;
			}
			pos[npos++] = a;
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 1;
		}
		if (!eq) {
			fprintf(stderr, "perfdata_gen: unknown option '%s' (--help lists them)\n", a);
			return -1;
		}
		size_t k = (size_t)(eq - a);
		const char *val = eq + 1;
		if (k == 5 && !strncmp(a, "--ips", k)) {
			if (parse_num(a, val, 100000000, &v) < 0)
				return -1;
			o->distinct = (size_t)v;
		} else if (k == 9 && !strncmp(a, "--datasrc", k)) {
			if (!strcmp(val, "fixed"))
				o->dsrc = DS_FIXED;
			else if (!strcmp(val, "rand"))
				o->dsrc = DS_RAND;
			else if (!strcmp(val, "varied"))
				o->dsrc = DS_VARIED;
			else {
				fprintf(stderr, "perfdata_gen: --datasrc: fixed, rand or varied, not '%s'\n", val);
				return -1;
			}
		} else if (k == 7 && !strncmp(a, "--stack", k)) {
			if (!strcmp(val, "none"))
				o->stack = STK_NONE;
			else if (!strcmp(val, "fp"))
				o->stack = STK_FP;
			else if (!strcmp(val, "dwarf"))
				o->stack = STK_DWARF;
			else {
				fprintf(stderr, "perfdata_gen: --stack: none, fp or dwarf, not '%s'\n", val);
				return -1;
			}
		} else if (k == 6 && !strncmp(a, "--addr", k)) {
			if (strcmp(val, "heap") && strcmp(val, "maps")) {
				fprintf(stderr, "perfdata_gen: --addr: heap or maps, not '%s'\n", val);
				return -1;
			}
			o->addr_maps = !strcmp(val, "maps");
		} else if (k == 7 && !strncmp(a, "--depth", k)) {
			if (parse_num(a, val, 120, &v) < 0 || !v) {
				fprintf(stderr, "perfdata_gen: --depth: 1 to 120\n");
				return -1;
			}
			o->depth = (unsigned)v;
		} else if (k == 7 && !strncmp(a, "--paths", k)) {
			if (parse_num(a, val, 10000000, &v) < 0 || !v) {
				fprintf(stderr, "perfdata_gen: --paths: 1 to 10000000\n");
				return -1;
			}
			o->chains = (size_t)v;
		} else if (k == 8 && !strncmp(a, "--rounds", k)) {
			if (parse_num(a, val, 100000000, &v) < 0 || !v) {
				fprintf(stderr, "perfdata_gen: --rounds: 1 to 100000000\n");
				return -1;
			}
			o->rounds = v;
		} else if (k == 12 && !strncmp(a, "--mmap-every", k)) {
			if (parse_num(a, val, 100000000, &v) < 0 || !v) {
				fprintf(stderr, "perfdata_gen: --mmap-every: 1 to 100000000\n");
				return -1;
			}
			o->mmap_every = v;
		} else if (k == 12 && !strncmp(a, "--stack-size", k)) {
			if (parse_num(a, val, 60000, &v) < 0 || v < 64) {
				fprintf(stderr, "perfdata_gen: --stack-size: 64 to 60000\n");
				return -1;
			}
			o->stack_size = (unsigned)v & ~7u;
		} else {
			fprintf(stderr, "perfdata_gen: unknown option '%.*s' (--help lists them)\n", (int)k, a);
			return -1;
		}
	}
	if (!npos) {
		usage(stderr);
		return -1;
	}
	o->out = pos[0];
	if (npos > 1 && parse_num("SAMPLES", pos[1], UINT64_MAX, &o->nsamples) < 0)
		return -1;
	if (npos > 2 && (parse_num("THREADS", pos[2], 1000000, &v) < 0 || !v)) {
		fprintf(stderr, "perfdata_gen: THREADS: 1 to 1000000\n");
		return -1;
	}
	if (npos > 2)
		o->threads = (unsigned)v;
	if (npos > 3)
		o->binlist = pos[3];
	if (npos > 4) {
		if (parse_num("DISTINCT", pos[4], 100000000, &v) < 0)
			return -1;
		o->distinct = (size_t)v;
	}
	if (npos > 5) {
		if (strcmp(pos[5], "rand")) {
			fprintf(stderr, "perfdata_gen: the sixth operand is 'rand' or nothing, not '%s'\n", pos[5]);
			return -1;
		}
		o->dsrc = DS_RAND;
	}
	return 0;
}

/* ---- varied data_src: the decoders' outputs ------------------------------ */

struct wordset {
	uint64_t *v;
	size_t n, cap; /* cap a power of two; 0 marks an empty slot (0 is never kept) */
	uint64_t *list;
};

static void ws_add(struct wordset *s, uint64_t w)
{
	if (!w)
		return;
	size_t j = (size_t)((w * 0x9e3779b97f4a7c15ULL) >> 40) & (s->cap - 1);
	while (s->v[j]) {
		if (s->v[j] == w)
			return;
		j = (j + 1) & (s->cap - 1);
	}
	if (s->n * 2 >= s->cap)
		return; /* full enough: the pool is big already */
	s->v[j] = w;
	s->list[s->n++] = w;
}

static void varied_pebs(struct wordset *s)
{
	static const enum pms_pebs_kind kinds[] = { PMS_PEBS_LOAD_LATENCY, PMS_PEBS_STORE_LATENCY,
						    PMS_PEBS_PRECISE_STORE, PMS_PEBS_HSW_LOAD,
						    PMS_PEBS_HSW_STORE };
	for (unsigned u = 0; u < PMS_PEBS_UARCH_COUNT; u++)
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			for (unsigned i = 0; i < 4000; i++) {
				uint64_t w;
				/* low bits (the table index, TLB, lock, block
				 * bits) vary most; the rest now and then */
				uint64_t st = xrand() & (i & 1 ? 0xffffffULL : 0xffffffffffffULL);
				if (pms_pebs_data_src((enum pms_pebs_uarch)u, kinds[k], st, &w) == 0)
					ws_add(s, w);
			}
}

static void varied_ibs(struct wordset *s)
{
	static const struct pms_ibs_cpu cpus[] = {
		{ 0x17, 0x31, PMS_IBS_CAPS_OPDATA4 | PMS_IBS_CAPS_BRNTRGT | PMS_IBS_CAPS_RIPINVALIDCHK },
		{ 0x19, 0x11, PMS_IBS_CAPS_ZEN4 | PMS_IBS_CAPS_OPDATA4 | PMS_IBS_CAPS_BRNTRGT |
			      PMS_IBS_CAPS_RIPINVALIDCHK | PMS_IBS_CAPS_OPLDLAT | PMS_IBS_CAPS_OPDTLBPGSIZE },
		{ 0x1a, 0x02, PMS_IBS_CAPS_ZEN4 | PMS_IBS_CAPS_OPDATA4 | PMS_IBS_CAPS_BRNTRGT |
			      PMS_IBS_CAPS_RIPINVALIDCHK | PMS_IBS_CAPS_OPLDLAT | PMS_IBS_CAPS_OPDTLBPGSIZE },
	};
	for (size_t c = 0; c < sizeof(cpus) / sizeof(cpus[0]); c++)
		for (unsigned i = 0; i < 60000; i++) {
			struct pms_ibs_op_regs r = { 0 };
			struct pms_ibs_op_sample o;
			r.op_ctl = 1ULL << 18 | 1ULL << 17 | 0x1000; /* valid, enabled */
			r.op_rip = 0x7f0000001000ULL;
			r.op_data = xrand() & 0xffffffff;
			r.op_data2 = xrand();
			r.op_data3 = xrand();
			r.dc_lin_ad = 0x55d000001000ULL;
			r.dc_phys_ad = 0x100001000ULL;
			r.has_op_data4 = true;
			if (pms_ibs_op_decode(&r, &cpus[c], PMS_IBS_SAMPLE_ADDR | PMS_IBS_SAMPLE_WEIGHT |
							     PMS_IBS_SAMPLE_DATA_SRC,
					      0, &o) == 0 &&
			    !o.dropped && o.data_src_filled)
				ws_add(s, o.data_src);
		}
}

static void varied_spe(struct wordset *s)
{
	static const uint64_t midrs[] = { 0x410fd0c0, 0x410fd490, 0x410fd4f0, 0xc00fac30 };
	static const uint64_t evs[] = {
		PMS_SPE_EV_L1D_ACCESS, PMS_SPE_EV_L1D_REFILL, PMS_SPE_EV_TLB_ACCESS, PMS_SPE_EV_TLB_WALK,
		PMS_SPE_EV_LLC_ACCESS, PMS_SPE_EV_LLC_MISS, PMS_SPE_EV_REMOTE_ACCESS, PMS_SPE_EV_L2D_ACCESS,
		PMS_SPE_EV_L2D_MISS, PMS_SPE_EV_CACHE_DATA_MODIFIED, PMS_SPE_EV_RECENTLY_FETCHED,
		PMS_SPE_EV_DATA_SNOOPED,
	};
	for (size_t m = 0; m < sizeof(midrs) / sizeof(midrs[0]); m++)
		for (unsigned i = 0; i < 20000; i++) {
			uint64_t x = xrand();
			struct pms_spe_in in = { .midr = midrs[m], .midr_valid = true };
			in.op = PMS_SPE_OP_MEM | (x & 1 ? PMS_SPE_OP_LD : PMS_SPE_OP_ST);
			for (size_t e = 0; e < sizeof(evs) / sizeof(evs[0]); e++)
				if (x >> (8 + e) & 1)
					in.events |= evs[e];
			in.source = (uint16_t)(x >> 24 & 0x1f);
			in.data_snooped_supported = x >> 40 & 1;
			ws_add(s, pms_spe_data_src(&in));
		}
}

/* The pool of distinct words, most frequent first (samples draw with a
 * skew toward the front, as real files repeat a few sources most). */
static uint64_t *varied_pool(size_t *n)
{
	struct wordset s = { .cap = 1 << 18 };
	s.v = calloc(s.cap, sizeof(*s.v));
	s.list = calloc(s.cap / 2, sizeof(*s.list));
	if (!s.v || !s.list) {
		free(s.v);
		free(s.list);
		return NULL;
	}
	varied_pebs(&s);
	varied_ibs(&s);
	varied_spe(&s);
	/* shuffle so no decoder owns the front */
	for (size_t i = s.n; i > 1; i--) {
		size_t j = (size_t)(xrand() % i);
		uint64_t t = s.list[i - 1];
		s.list[i - 1] = s.list[j];
		s.list[j] = t;
	}
	free(s.v);
	*n = s.n;
	return s.list;
}

/* ---- call stacks ---------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Frame j (0 = outermost) of path k: paths that share the high bits of k
 * share their outer frames, so the paths form a tree as real programs' do. */
static uint64_t frame_of(const uint64_t *pool, size_t npool, size_t k, unsigned j, unsigned depth)
{
	unsigned shift = depth > j ? 2 * (depth - 1 - j) : 0;
	uint64_t key = shift >= 64 ? 0 : (uint64_t)k >> shift;
	return pool[mix(key * 131 + j) % npool] + 5; /* a return address: after a call */
}

#define MAXDEPTH 128
#define PERF_CTX_USER 0xfffffffffffffe00ULL

/* fp: PERF_CONTEXT_USER, the sample IP, then the return addresses innermost
 * first.  Returns callchain_nr. */
static uint64_t fp_chain(const struct opts *o, const uint64_t *pool, size_t npool, size_t k,
			 uint64_t ip, uint64_t *chain)
{
	unsigned d = 3 + (unsigned)(mix(k) % o->depth);
	if (d > o->depth)
		d = o->depth;
	chain[0] = PERF_CTX_USER;
	chain[1] = ip;
	for (unsigned j = 0; j < d; j++)
		chain[2 + j] = frame_of(pool, npool, k, d - 1 - j, d);
	return 2 + d;
}

/* dwarf: x86-64 user registers (AX..R15 but DS/ES/FS/GS, perf's mask) and a
 * stack whose words are the path's return addresses interleaved with saved
 * frame pointers and locals. */
#define DWARF_REGS_MASK 0xff0fffULL
static void dwarf_stack(const struct opts *o, const uint64_t *pool, size_t npool, size_t k,
			uint64_t sp, uint64_t *stack, uint64_t *regs, uint64_t ip)
{
	size_t words = o->stack_size / 8;
	unsigned d = 3 + (unsigned)(mix(k) % 24);
	for (size_t i = 0; i < words; i++) {
		size_t f = i / 4;
		if (i % 4 == 3 && f < d)
			stack[i] = frame_of(pool, npool, k, d - 1 - (unsigned)f, d);
		else if (i % 4 == 2)
			stack[i] = sp + (i + 2) * 8; /* a saved frame pointer */
		else
			stack[i] = mix(k + i) & 0xffff;
	}
	/* regs in mask order: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8..R15 */
	for (unsigned i = 0; i < 20; i++)
		regs[i] = mix(k * 20 + i) & 0xffffff;
	regs[6] = sp + 16; /* BP */
	regs[7] = sp;      /* SP */
	regs[8] = ip;      /* IP */
	regs[10] = 0x33;   /* CS */
	regs[11] = 0x2b;   /* SS */
}

/* ---- the file ------------------------------------------------------------- */

struct bins {
	char *name[MAXBIN];
	uint64_t off[MAXBIN], len[MAXBIN], size[MAXBIN], ino[MAXBIN];
	unsigned n;
	char *list;
};

static int bins_load(struct bins *b, const char *binlist)
{
	struct stat st;
	char *save = NULL;
	b->list = strdup(binlist);
	if (!b->list)
		return -1;
	for (char *t = strtok_r(b->list, ":", &save); t && b->n < MAXBIN; t = strtok_r(NULL, ":", &save)) {
		if (stat(t, &st) < 0) {
			perror(t);
			return -1;
		}
		b->name[b->n] = t;
		b->size[b->n] = (uint64_t)st.st_size;
		b->ino[b->n] = (uint64_t)st.st_ino;
		if (text_of(t, &b->off[b->n], &b->len[b->n]) < 0) {
			b->off[b->n] = 0;
			b->len[b->n] = b->size[b->n];
		}
		b->n++;
	}
	if (!b->n)
		fprintf(stderr, "perfdata_gen: no binary\n");
	return b->n ? 0 : -1;
}

static const uint64_t base = 0x7f0000000000ULL;

static int put_tasks(struct pms_perfdata_writer *w, const struct pms_sample_layout *l,
		     const struct opts *o, const struct bins *b)
{
	struct pms_record r;
	for (unsigned t = 0; t < o->threads; t++) {
		char comm[32];
		snprintf(comm, sizeof(comm), "worker-%u", t);
		memset(&r, 0, sizeof(r));
		r.type = PMS_RECORD_COMM;
		r.comm.pid = r.comm.tid = 1000 + t;
		r.comm.comm = comm;
		r.sample_id.pid = r.sample_id.tid = 1000 + t;
		if (put(w, l, &r) < 0)
			return -1;
		for (unsigned i = 0; i < b->n; i++) {
			memset(&r, 0, sizeof(r));
			r.type = PMS_RECORD_MMAP2;
			r.misc = PMS_MISC_USER;
			r.mmap.pid = r.mmap.tid = 1000 + t;
			r.mmap.addr = base + (uint64_t)i * 0x10000000ULL;
			r.mmap.len = (b->size[i] + 4095) & ~4095ULL;
			r.mmap.maj = 8;
			r.mmap.ino = b->ino[i];
			r.mmap.prot = 5;
			r.mmap.flags = 2;
			r.mmap.filename = b->name[i];
			r.sample_id.pid = r.sample_id.tid = 1000 + t;
			if (put(w, l, &r) < 0)
				return -1;
		}
	}
	return 0;
}

struct pools {
	uint64_t *ip;    /* distinct IPs, or NULL: the first MiB of binary 0 */
	size_t nip;
	uint64_t *dsrc;  /* varied words, or NULL */
	size_t ndsrc;
	uint64_t *frames; /* return-address pool for stacks */
	size_t nframes;
};

static uint64_t pick_dsrc(const struct opts *o, const struct pools *p, uint64_t x)
{
	uint64_t v = dsrc[(x >> 50) % (sizeof(dsrc) / sizeof(dsrc[0]))];
	if (o->dsrc == DS_RAND) { /* snoop 19-23, lock 24-25, tlb 26-32, snoopx 38-39, blk 40-42, region 46-50 */
		uint64_t y = xrand();
		v &= ~(0x3fffULL << 19 | 0x3ULL << 38 | 0x7ULL << 40 | 0x1fULL << 46);
		v |= (y & 0x3fffULL) << 19 | ((y >> 14) & 0x3) << 38 | ((y >> 16) & 0x7) << 40 |
		     ((y >> 19) & 0x1f) << 46;
	} else if (o->dsrc == DS_VARIED) { /* skewed: the product of two uniforms */
		uint64_t y = xrand(), n = p->ndsrc;
		v = p->dsrc[((y % n) * ((y >> 32) % n)) / n];
	}
	return v;
}

/* Between samples: a FINISHED_ROUND (--rounds) and a timed MMAP2 of a
 * 16 MiB data mapping in the heap's GiB (--mmap-every). */
static int put_between(struct pms_perfdata_writer *w, const struct pms_sample_layout *l,
		       const struct opts *o, uint64_t i, uint64_t now)
{
	if (o->rounds && i && i % o->rounds == 0) {
		static const unsigned char round[8] = { 68, 0, 0, 0, 0, 0, 8, 0 };
		if (pms_perfdata_writer_write(w, round, sizeof(round)) < 0)
			return -1;
	}
	if (o->mmap_every && i % o->mmap_every == o->mmap_every / 2) {
		struct pms_record r;
		char name[32];
		uint64_t k = i / o->mmap_every;
		unsigned t = (unsigned)(k % o->threads);
		snprintf(name, sizeof(name), "/tmp/pms-gen-mid-%u", (unsigned)(k % 97));
		memset(&r, 0, sizeof(r));
		r.type = PMS_RECORD_MMAP2;
		r.misc = PMS_MISC_USER;
		r.mmap.pid = r.mmap.tid = 1000 + t;
		r.mmap.addr = 0x55d000000000ULL + (k * 7 % 64) * 0x1000000ULL;
		r.mmap.len = 0x1000000ULL;
		r.mmap.ino = 5000 + k;
		r.mmap.prot = 3;
		r.mmap.flags = 2;
		r.mmap.filename = name;
		r.sample_id.pid = r.sample_id.tid = 1000 + t;
		r.sample_id.time = now;
		if (put(w, l, &r) < 0)
			return -1;
	}
	return 0;
}

static int put_samples(struct pms_perfdata_writer *w, const struct pms_sample_layout *l,
		       const struct opts *o, const struct bins *b, const struct pools *p)
{
	static uint64_t chain[MAXDEPTH + 2], stack[60000 / 8], regs[20];
	uint64_t text = b->size[0];
	struct pms_record r;

	for (uint64_t i = 0; i < o->nsamples; i++) {
		uint64_t x = xrand();
		unsigned t = (unsigned)(x % o->threads);
		memset(&r, 0, sizeof(r));
		r.type = PMS_RECORD_SAMPLE;
		r.sample.misc = PMS_MISC_USER | PMS_MISC_EXACT_IP;
		/* IPs in the first 1 MiB of the binary, 4-byte steps: many
		 * distinct IPs, a few thousand functions. */
		r.sample.ip = p->ip ? p->ip[(x >> 8) % p->nip]
				    : base + 0x28000 + ((x >> 8) % (text < 0x128000 ? text / 2 : 0x100000) & ~3ULL);
		r.sample.pid = r.sample.tid = 1000 + t;
		r.sample.time = 1000000000ULL + i * 250;
		if (o->rounds) /* up to a round early */
			r.sample.time -= (x >> 24) % (o->rounds * 250);
		if (put_between(w, l, o, i, r.sample.time) < 0)
			return -1;
		r.sample.addr = 0x55d000000000ULL + ((x >> 20) % (1ULL << 30) & ~7ULL);
		if (o->addr_maps) { /* a random mapping (256 MiB apart), anywhere in it */
			uint64_t y = xrand();
			unsigned k = (unsigned)(y % b->n);
			r.sample.addr = base + (uint64_t)k * 0x10000000ULL + ((y >> 16) % b->size[k] & ~7ULL);
		}
		r.sample.cpu = t % 16;
		r.sample.period = 4000;
		r.sample.weight = 30 + (x >> 40) % 470;
		r.sample.data_src = pick_dsrc(o, p, x);
		if (o->stack != STK_NONE) {
			size_t k = (size_t)(mix(x) % o->chains);
			if (o->stack == STK_FP) {
				r.sample.callchain_nr = fp_chain(o, p->frames, p->nframes, k, r.sample.ip, chain);
				r.sample.callchain = chain;
			} else {
				uint64_t sp = 0x7ffc00000000ULL + (uint64_t)t * 0x100000 - o->stack_size;
				dwarf_stack(o, p->frames, p->nframes, k, sp, stack, regs, r.sample.ip);
				r.sample.callchain_nr = 0; /* exclude_callchain_user: no user part */
				r.sample.callchain = chain;
				r.sample.regs_user.abi = 2; /* PERF_SAMPLE_REGS_ABI_64 */
				r.sample.regs_user.mask = DWARF_REGS_MASK;
				r.sample.regs_user.nr = 20;
				r.sample.regs_user.regs = regs;
				r.sample.stack_size = o->stack_size;
				r.sample.stack_data = stack;
				r.sample.stack_dyn_size = o->stack_size;
			}
		}
		if (put(w, l, &r) < 0)
			return -1;
	}
	return 0;
}

static int make_pools(const struct opts *o, const struct bins *b, struct pools *p)
{
	size_t distinct = o->distinct;
	if (b->n > 1 && !distinct)
		distinct = 300000;
	if (o->stack != STK_NONE && !distinct)
		distinct = 300000; /* return addresses need the pool */
	if (distinct) {
		p->ip = malloc(distinct * sizeof(*p->ip));
		if (!p->ip)
			return -1;
		for (size_t i = 0; i < distinct; i++) {
			unsigned k = (unsigned)(i % b->n);
			p->ip[i] = base + (uint64_t)k * 0x10000000ULL + b->off[k] + (xrand() % b->len[k] & ~3ULL);
		}
		p->nip = distinct;
		p->frames = p->ip;
		p->nframes = distinct;
	}
	if (o->dsrc == DS_VARIED && !(p->dsrc = varied_pool(&p->ndsrc)))
		return -1;
	if (o->dsrc == DS_VARIED && !p->ndsrc) {
		fprintf(stderr, "perfdata_gen: the decoders made no data_src word\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct bins b = { 0 };
	struct pools p = { 0 };
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a;
	struct pms_sample_layout l;
	int fd = -1, rc = 1;

	switch (parse_opts(argc, argv, &o)) {
	case 1:
		return 0;
	case -1:
		return 2;
	}
	if (bins_load(&b, o.binlist) < 0 || make_pools(&o, &b, &p) < 0)
		goto out;
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
	if (o.stack == STK_FP) {
		a.sample_type |= PMS_SAMPLE_CALLCHAIN;
		a.sample_max_stack = (uint16_t)(o.depth + 2);
	} else if (o.stack == STK_DWARF) {
		a.sample_type |= PMS_SAMPLE_CALLCHAIN | PMS_SAMPLE_REGS_USER | PMS_SAMPLE_STACK_USER;
		a.exclude_callchain_user = 1;
		a.sample_regs_user = DWARF_REGS_MASK;
		a.sample_stack_user = o.stack_size;
	}
	pms_sample_layout_from_attr(&l, &a);
	fd = open(o.out, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(o.out);
		goto out;
	}
	if (pms_perfdata_writer_open(fd, &w) < 0 || pms_perfdata_writer_add_attr(w, &a, NULL, 0) < 0 ||
	    put_tasks(w, &l, &o, &b) < 0 || put_samples(w, &l, &o, &b, &p) < 0 ||
	    pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_HOSTNAME, "bench") < 0 ||
	    pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_ARCH, "x86_64") < 0 ||
	    pms_perfdata_writer_set_nrcpus(w, 16, 16) < 0 || pms_perfdata_writer_close(w) < 0) {
		fprintf(stderr, "perfdata_gen: %s\n", pms_error_last());
		goto out;
	}
	printf("%s: %" PRIu64 " samples, %u threads mapping %u binaries (%s%s), %zu distinct IPs%s, "
	       "data_src %s%s, stacks %s\n",
	       o.out, o.nsamples, o.threads, b.n, b.name[0], b.n > 1 ? ", ..." : "", p.nip,
	       p.ip ? "" : " (1 MiB of the first)",
	       o.dsrc == DS_FIXED ? "fixed" : o.dsrc == DS_RAND ? "rand" : "varied", "",
	       o.stack == STK_NONE ? "none" : o.stack == STK_FP ? "fp" : "dwarf");
	if (o.dsrc == DS_VARIED)
		printf("%s: %zu distinct data_src words from the PEBS, IBS and SPE decoders\n", o.out, p.ndsrc);
	rc = 0;
out:
	pms_perfdata_writer_free(w);
	if (fd >= 0)
		close(fd);
	if (rc && fd >= 0)
		unlink(o.out);
	free(p.ip);
	free(p.dsrc);
	free(b.list);
	return rc;
}
