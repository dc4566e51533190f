/* Mutation check of the perf.data reader on real files (../shared/data):
 * every header field, every word of every attr and its ids section, every
 * feature table entry and the first words of every feature payload are
 * changed in turn (values from a fixed-seed generator, so every run makes
 * the same mutants).  Each mutant must either be refused with a message,
 * or read so that nothing is lost silently:
 *   - every feature the (mutated) header declares is read, or a problem
 *     says it was skipped (pms_perfdata_reader_problem);
 *   - the records come out as in the original file (count by type and
 *     the bytes of each), or a problem says what was skipped.
 * A changed value that still parses (a different config, hostname, node
 * count) is what the file says, not a loss, and is not flagged.
 * Records too (issue 32): up to 12 records of the data section, spread
 * over it, get their type changed (unknown kernel and perf types, 0, huge,
 * and every known kernel type but those of the same fixed shape, which a
 * retyped record really is) and every word of their first 64 body bytes
 * changed; such a mutant must keep the records' count by type or say what
 * it skipped (a changed field value that parses is what the file says).  Files and
 * mutants are bounded so the test runs in seconds under ASan. */
#include "check.h"

#include "pmuscope/error.h"
#include "pmuscope/perfdata.h"

#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const files[] = {
	"perf_data_converter/src/quipper/testdata/perf.data.hybrid_topology",
	"perf_data_converter/src/quipper/testdata/perf.data.lost_samples-4.4",
	"perf_data_converter/src/quipper/testdata/perf.data.group_desc-4.14",
	"perf_data_converter/src/quipper/testdata/perf.data.ctx_switch_namespaces-4.14",
	"perf_data_converter/src/quipper/testdata/perf.data.singleprocess-3.8",
	"kdab-perfparser/tests/auto/perfdata/probe.data.file",
	"kdab-perfparser/tests/auto/perfdata/cpp-inlining/cpp-inlining.perf.data",
};

/* What a read gives: records by type, a hash of their bytes, the features. */
struct outcome {
	int refused;
	uint64_t by_type[128];
	uint64_t records, hash;
	uint64_t has[4];
	size_t nattrs;
	size_t nproblems;
	char first_problem[256];
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static void read_all(const unsigned char *buf, size_t len, struct outcome *o)
{
	struct pms_perfdata_reader *r = NULL;
	struct pms_perfdata_event ev;
	int rc;

	memset(o, 0, sizeof(*o));
	o->hash = 0xcbf29ce484222325ULL;
	pms_error_clear();
	if (pms_perfdata_reader_open_mem(buf, len, &r) < 0) {
		o->refused = 1;
		snprintf(o->first_problem, sizeof(o->first_problem), "%s", pms_error_last());
		return;
	}
	while ((rc = pms_perfdata_next(r, &ev)) > 0) {
		o->records++;
		if (ev.rec.type < 128)
			o->by_type[ev.rec.type]++;
		o->hash = fnv(o->hash, ev.raw, ev.raw_len);
	}
	if (rc < 0 && pms_perfdata_reader_nproblems(r) == 0) {
		/* an error that ends the data must be said too */
		o->nproblems = 0;
		snprintf(o->first_problem, sizeof(o->first_problem), "next: %s", pms_error_last());
	}
	memcpy(o->has, pms_perfdata_reader_info(r)->has, sizeof(o->has));
	o->nattrs = pms_perfdata_reader_nattrs(r);
	o->nproblems = pms_perfdata_reader_nproblems(r);
	if (o->nproblems)
		snprintf(o->first_problem, sizeof(o->first_problem), "%s",
			 pms_perfdata_reader_problem(r, 0));
	pms_perfdata_reader_free(r);
}

static uint64_t rd64(const unsigned char *b, size_t len, uint64_t off)
{
	uint64_t v = 0;
	if (off <= len && len - off >= 8)
		memcpy(&v, b + off, 8);
	return v;
}

/* xorshift64*, fixed seed per file and field */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

struct run {
	const char *name;
	const unsigned char *orig;
	unsigned char *buf;
	size_t len;
	struct outcome base;
	long mutants, refused, same, said, silent;
	int records_mode; /* record mutants: the count by type is what must hold */
	uint32_t from_type, to_type; /* a record type mutant: the types */
	long rec_mutants, rec_said, rec_silent, rec_retyped;
};

/* Every feature the header of buf declares is in has[]. */
static int declared_read(const unsigned char *buf, size_t len, const struct outcome *o)
{
	for (int w = 0; w < 4; w++) {
		uint64_t decl = rd64(buf, len, 72 + 8 * (uint64_t)w);
		if (w == 0)
			decl &= ~(uint64_t)3; /* reserved bit 0; TRACING_DATA is not parsed */
		if ((decl & o->has[w]) != decl)
			return 0;
	}
	return 1;
}

static void try_mutant(struct run *rn, uint64_t off, uint64_t val, const char *what)
{
	struct outcome o;
	uint64_t old;

	if (off + 8 > rn->len)
		return;
	memcpy(&old, rn->buf + off, 8);
	if (old == val)
		return;
	memcpy(rn->buf + off, &val, 8);
	read_all(rn->buf, rn->len, &o);
	rn->mutants++;
	if (o.refused) {
		rn->refused++;
		CHECK_MSG(o.first_problem[0] != '\0', "%s: %s at %" PRIu64 " refused without a message",
			  rn->name, what, off);
	} else {
		int records_same = o.records == rn->base.records &&
				   (rn->records_mode ? !memcmp(o.by_type, rn->base.by_type,
								sizeof(o.by_type))
						     : o.hash == rn->base.hash);
		int feats_ok = declared_read(rn->buf, rn->len, &o);
		rn->rec_mutants += rn->records_mode;
		/* A record whose bytes are a well-formed record of another
		 * kernel type (the size rule of that type holds, it decodes)
		 * reads as that type: what the file says, as for any field.
		 * Unknown types never are. */
		int retyped = rn->to_type != rn->from_type && rn->to_type >= 1 && rn->to_type <= 22 &&
			      o.records == rn->base.records && rn->from_type < 128 &&
			      o.by_type[rn->to_type] == rn->base.by_type[rn->to_type] + 1 &&
			      o.by_type[rn->from_type] + 1 == rn->base.by_type[rn->from_type];
		if (retyped && !o.nproblems) {
			rn->rec_retyped++;
			rn->same++;
		} else if (records_same && feats_ok)
			rn->same++;
		else if (o.nproblems) {
			rn->said++;
			rn->rec_said += rn->records_mode;
		} else {
			rn->silent++;
			rn->rec_silent += rn->records_mode;
			CHECK_MSG(0,
				  "%s: %s at offset %" PRIu64 " = 0x%" PRIx64 " (was 0x%" PRIx64
				  "): %s%s and no problem reported",
				  rn->name, what, off, val, old,
				  records_same ? "" : "records differ",
				  feats_ok ? "" : " declared features not read");
		}
	}
	memcpy(rn->buf + off, &old, 8);
}

/* The values tried for a field: 0, all ones, a high bit, +8 and random. */
static void mutate_word(struct run *rn, uint64_t off, uint64_t *seed, int nrand, const char *what)
{
	uint64_t v = rd64(rn->orig, rn->len, off);
	try_mutant(rn, off, 0, what);
	try_mutant(rn, off, ~UINT64_C(0), what);
	try_mutant(rn, off, v ^ (UINT64_C(1) << 40), what);
	try_mutant(rn, off, v + 8, what);
	for (int i = 0; i < nrand; i++) {
		uint64_t x = rnd(seed);
		/* small values hit sizes and counts; flips hit everything */
		try_mutant(rn, off, (x & 1) ? v ^ (UINT64_C(1) << (x >> 58)) : (x >> 40), what);
	}
}

/* Fixed-shape kernel record types: body bytes before the sample_id
 * trailer (0 for a type of variable size). */
static unsigned shape(uint32_t t)
{
	switch (t) {
	case 2: case 4: case 5: case 6: case 7: case 11: return t == 2 ? 16 : 24;
	case 12: case 13: case 15: case 21: return 8;
	case 18: return 16;
	case 14: return 100; /* SWITCH: no body */
	default: return 0;
	}
}

/* Up to 12 records spread over the data section: their type, then their
 * first 64 body bytes, word by word. */
static void mutate_records(struct run *rn, uint64_t doff, uint64_t dsize, uint64_t *seed)
{
	static const uint32_t types[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
					  14, 15, 16, 17, 18, 19, 20, 21, 22, 30, 63, 84,
					  90, 99, 67108873 };
	uint64_t offs[4096], n = 0, end = doff + dsize;
	if (end > rn->len)
		end = rn->len;
	for (uint64_t p = doff; p + 8 <= end && n < 4096;) {
		uint16_t sz;
		memcpy(&sz, rn->orig + p + 6, 2);
		if (sz < 8)
			break;
		offs[n++] = p;
		p += sz;
	}
	rn->records_mode = 1;
	for (uint64_t k = 0; k < 12 && k < n; k++) {
		uint64_t off = offs[n <= 12 ? k : k * (n / 12)];
		uint64_t hdr = rd64(rn->orig, rn->len, off);
		uint32_t t0 = (uint32_t)hdr;
		uint16_t sz = (uint16_t)(hdr >> 48);
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
			if (shape(t0) && shape(t0) == shape(types[i]))
				continue; /* the same shape: the file says the other type */
			rn->from_type = t0;
			rn->to_type = types[i];
			try_mutant(rn, off, (hdr & ~UINT64_C(0xffffffff)) | types[i], "record type");
			rn->to_type = rn->from_type = 0;
		}
		/* a COMPRESSED record's body is a zstd stream, whose frames
		 * (perf writes them without a checksum) may decompress a
		 * changed byte into other records: not checked here */
		for (uint64_t w = 8; t0 != 81 && t0 != 83 && w < sz && w <= 64; w += 8)
			mutate_word(rn, off + w, seed, 0, "record body word");
	}
	rn->records_mode = 0;
}

static void mutate_file(const char *dir, const char *rel)
{
	char path[1024];
	struct stat st;
	struct run rn;
	unsigned char *orig = NULL, *buf = NULL;
	uint64_t seed = 0x9e3779b97f4a7c15ULL, aoff, asize, asz, doff, dsize, nfeat = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 104) {
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "missing %s\n", path);
		return;
	}
	orig = malloc((size_t)st.st_size);
	buf = malloc((size_t)st.st_size);
	if (!orig || !buf || pread(fd, orig, (size_t)st.st_size, 0) != st.st_size) {
		CHECK_MSG(0, "%s: cannot read", path);
		goto out;
	}
	memcpy(buf, orig, (size_t)st.st_size);
	memset(&rn, 0, sizeof(rn));
	rn.name = rel;
	rn.orig = orig;
	rn.buf = buf;
	rn.len = (size_t)st.st_size;
	for (const char *c = rel; *c; c++)
		seed = (seed ^ (unsigned char)*c) * 0x100000001b3ULL;
	if (rd64(orig, rn.len, 8) != 104) {
		fprintf(stderr, "%s: not a file-mode perf.data\n", rel);
		goto out;
	}
	read_all(orig, rn.len, &rn.base);
	CHECK_MSG(!rn.base.refused && rn.base.nproblems == 0, "%s: the original reads with: %s",
		  rel, rn.base.first_problem);
	if (rn.base.refused)
		goto out;

	/* the header, field by field */
	for (uint64_t off = 8; off < 104; off += 8)
		mutate_word(&rn, off, &seed, 1, "header field");
	/* every word of every attr and of its ids section */
	asz = rd64(orig, rn.len, 16);
	aoff = rd64(orig, rn.len, 24);
	asize = rd64(orig, rn.len, 32);
	for (uint64_t a = 0; asz && a < asize / asz && a < 4; a++) {
		uint64_t base = aoff + a * asz;
		for (uint64_t w = 0; w < asz; w += 8)
			mutate_word(&rn, base + w, &seed, 0, "attr word");
		{
			uint32_t sz;
			memcpy(&sz, orig + base + 4, 4);
			uint64_t ioff = rd64(orig, rn.len, base + (sz ? sz : 64));
			uint64_t isz = rd64(orig, rn.len, base + (sz ? sz : 64) + 8);
			for (uint64_t w = 0; w < isz && w < 16; w += 8)
				mutate_word(&rn, ioff + w, &seed, 0, "attr id");
		}
	}
	/* the feature table and the start of every payload */
	doff = rd64(orig, rn.len, 40);
	dsize = rd64(orig, rn.len, 48);
	for (int w = 0; w < 4; w++)
		nfeat += (uint64_t)__builtin_popcountll(rd64(orig, rn.len, 72 + 8 * (uint64_t)w));
	for (uint64_t i = 0; i < nfeat; i++) {
		uint64_t t = doff + dsize + 16 * i;
		uint64_t poff = rd64(orig, rn.len, t), psize = rd64(orig, rn.len, t + 8);
		mutate_word(&rn, t, &seed, 1, "feature table offset");
		mutate_word(&rn, t + 8, &seed, 1, "feature table size");
		for (uint64_t w = 0; w + 8 <= psize && w < 32; w += 8)
			mutate_word(&rn, poff + w, &seed, 0, "feature payload word");
	}
	mutate_records(&rn, doff, dsize, &seed);
	fprintf(stderr, "%s: %ld mutants: %ld refused, %ld read the same, %ld said what they "
			"skipped, %ld silent; of them %ld record type/body mutants: %ld said, "
			"%ld read as another well-formed kernel record, %ld silent\n",
		rel, rn.mutants, rn.refused, rn.same, rn.said, rn.silent, rn.rec_mutants,
		rn.rec_said, rn.rec_retyped, rn.rec_silent);
out:
	free(orig);
	free(buf);
	close(fd);
}

PMS_TEST(mutants_read_the_same_or_say_what_they_skipped)
{
	const char *dir = pms_t_shared_data();
	if (!dir)
		PMS_SKIP("../shared/data is not there");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		mutate_file(dir, files[i]);
}

PMS_TEST_MAIN()
