/* Reading the stream file (include/pmuscope/alloc.h, PMS_ALLOC_STREAM_*):
 * the preload's threads fill chunks in place, so records of different
 * threads and processes lie in the file in no global order; they are put in
 * time order here (a stable sort: a chunk's own order kept for equal
 * times) before the table takes them, since a free must come after the
 * allocation it ends and before the allocation that gets the address
 * again.  Records that end early in the file (a free's 32 bytes) are
 * made whole here, and times in counter ticks (PMS_ALLOC_F_TSC) made
 * CLOCK_MONOTONIC ns from the calibration points (PMS_ALLOC_CLOCK, not
 * given on): the table and a perf.data file only see whole records in
 * CLOCK_MONOTONIC ns. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc/alloc_int.h"
#include "util/error.h"
#include "util/grow.h"

struct recref {
	uint64_t time; /* CLOCK_MONOTONIC ns (converted from ticks: tsc) */
	size_t off; /* in the file: also the tie-break, chunk order */
	uint16_t body; /* bytes of its body in the file (a short one: PMS_ALLOC_REC_MIN..) */
	uint8_t nframes;
	bool tsc;   /* its time was in counter ticks */
	bool clock; /* a calibration point (PMS_ALLOC_CLOCK): not given on */
};

/* A calibration point: the counter's tick and CLOCK_MONOTONIC's ns. */
struct clkpt {
	uint64_t tick, ns, width;
};

static int recref_cmp(const void *a, const void *b)
{
	const struct recref *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int read_all(int fd, unsigned char **out, size_t *len)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return pms_err_errno(PMS_ESYS, errno, "allocation stream: fstat");
	size_t n = (size_t)st.st_size;
	unsigned char *b = malloc(n ? n : 1);
	if (!b)
		return pms_err(PMS_ENOMEM, "allocation stream: out of memory (%zu bytes)", n);
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, b + got, n - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(b);
			return pms_err_errno(PMS_ESYS, e, "allocation stream: read");
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	*out = b;
	*len = got;
	return 0;
}

/* The records of one chunk [c, c + len) into refs (a record's body may end
 * early: include/pmuscope/alloc.h). */
static int index_chunk(const unsigned char *b, size_t c, size_t len, struct recref **refs,
		       size_t *n, size_t *cap, struct clkpt **pts, size_t *npts, size_t *ptcap)
{
	size_t pos = 0;
	while (len - pos >= PMS_ALLOC_REC_MIN) {
		struct pms_alloc_rec r;
		memset(&r, 0, sizeof(r));
		memcpy(&r, b + c + pos, PMS_ALLOC_REC_MIN);
		if (!r.size)
			break;
		size_t frames = (size_t)r.nframes * 8;
		size_t body = r.size >= frames ? r.size - frames : 0;
		if (body < PMS_ALLOC_REC_MIN || body > sizeof(r) || body % 8 ||
		    r.nframes > PMS_ALLOC_MAX_FRAMES || !r.kind || r.kind >= PMS_ALLOC_KIND_MAX ||
		    r.size > len - pos)
			return pms_err(PMS_EINVAL,
				       "allocation stream: malformed record at byte %zu (size %u, "
				       "kind %u, %u frames)",
				       c + pos, (unsigned)r.size, (unsigned)r.kind,
				       (unsigned)r.nframes);
		if (pms_grow(refs, cap, *n + 1, sizeof(**refs), 4096, "allocation stream") < 0)
			return PMS_ENOMEM;
		bool clock = r.kind == PMS_ALLOC_CLOCK;
		if (clock) {
			memcpy(&r, b + c + pos, body); /* its addr and bytes */
			if (pms_grow(pts, ptcap, *npts + 1, sizeof(**pts), 256, "allocation stream") < 0)
				return PMS_ENOMEM;
			(*pts)[(*npts)++] = (struct clkpt){ r.addr, r.time, r.bytes };
		}
		(*refs)[(*n)++] = (struct recref){ r.time, c + pos, (uint16_t)body, r.nframes,
						   !clock && (r.flags & PMS_ALLOC_F_TSC), clock };
		pos += r.size;
	}
	return 0;
}

static int clkpt_cmp(const void *a, const void *b)
{
	const struct clkpt *x = a, *y = b;
	if (x->tick != y->tick)
		return x->tick < y->tick ? -1 : 1;
	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

/* The points kept for the conversion: sorted by tick, those read across a
 * preemption dropped (wider than twice the narrowest and 256 ticks: its
 * midpoint may be that far from the clock's own read; on the loaded VM
 * most are 120-160 ticks, one in some hundreds 10,000) unless fewer than
 * two would be left, and each one's ns past the last kept one's (its tick
 * too): a conversion that keeps the records' order.  How many. */
static size_t clk_keep(struct clkpt *p, size_t n)
{
	qsort(p, n, sizeof(*p), clkpt_cmp);
	uint64_t wmin = UINT64_MAX;
	for (size_t i = 0; i < n; i++)
		wmin = p[i].width < wmin ? p[i].width : wmin;
	uint64_t wide = wmin < UINT64_MAX / 4 ? 2 * wmin + 256 : UINT64_MAX;
	size_t narrow = 0;
	for (size_t i = 0; i < n; i++)
		narrow += p[i].width <= wide;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (narrow >= 2 && p[i].width > wide)
			continue;
		if (k && (p[i].tick <= p[k - 1].tick || p[i].ns <= p[k - 1].ns))
			continue;
		p[k++] = p[i];
	}
	return k;
}

/* Counter tick x as CLOCK_MONOTONIC ns: linear between the points around
 * it, past either end along the line through the first and last points
 * (n >= 2, sorted, increasing). */
static uint64_t clk_ns(const struct clkpt *p, size_t n, uint64_t x)
{
	const struct clkpt *a = &p[0], *b = &p[n - 1];
	if (x >= p[0].tick && x < p[n - 1].tick) {
		size_t lo = 0, hi = n - 1; /* p[lo].tick <= x < p[hi].tick */
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (p[mid].tick <= x)
				lo = mid;
			else
				hi = mid;
		}
		a = &p[lo];
		b = &p[hi];
	}
	double slope = (double)(b->ns - a->ns) / (double)(b->tick - a->tick);
	double d = x >= a->tick ? (double)(x - a->tick) * slope : -(double)(a->tick - x) * slope;
	double ns = (double)a->ns + d;
	if (ns >= 18446744073709549568.0) /* (a file's points far apart) */
		return UINT64_MAX;
	return ns <= 0 ? 0 : (uint64_t)(ns + 0.5);
}

/* The records' times in ticks made CLOCK_MONOTONIC ns. */
static int clk_convert(struct recref *refs, size_t n, struct clkpt *pts, size_t npts)
{
	bool any = false;
	for (size_t i = 0; i < n && !any; i++)
		any = refs[i].tsc;
	if (!any)
		return 0;
	size_t k = clk_keep(pts, npts);
	if (k < 2)
		return pms_err(PMS_EINVAL, "allocation stream: times in counter ticks and %zu "
					   "usable calibration points (two needed)", k);
	for (size_t i = 0; i < n; i++)
		if (refs[i].tsc)
			refs[i].time = clk_ns(pts, k, refs[i].time);
	return 0;
}

/* The chunked file b[0, len) as records back to back in time order
 * (*out, malloc'd). */
static long sort_chunked(const unsigned char *b, size_t len, unsigned char **out, size_t *olen)
{
	uint64_t claimed;
	memcpy(&claimed, b + 8, sizeof(claimed));
	struct recref *refs = NULL;
	struct clkpt *pts = NULL;
	size_t n = 0, cap = 0, total = 0, npts = 0, ptcap = 0;
	int rc = 0;
	for (uint64_t k = 0; k < claimed && rc == 0; k++) {
		size_t c = PMS_ALLOC_HDR_SIZE + (size_t)k * PMS_ALLOC_CHUNK;
		if (c >= len)
			break; /* claimed, never grown into (the claim failed) */
		size_t clen = len - c < PMS_ALLOC_CHUNK ? len - c : PMS_ALLOC_CHUNK;
		rc = index_chunk(b, c, clen, &refs, &n, &cap, &pts, &npts, &ptcap);
	}
	if (rc == 0)
		rc = clk_convert(refs, n, pts, npts);
	free(pts);
	if (rc < 0) {
		free(refs);
		return rc;
	}
	if (n)
		qsort(refs, n, sizeof(*refs), recref_cmp);
	size_t given = 0;
	for (size_t i = 0; i < n; i++)
		if (!refs[i].clock) {
			refs[given++] = refs[i];
			total += sizeof(struct pms_alloc_rec) + (size_t)refs[i].nframes * 8;
		}
	n = given;
	unsigned char *o = malloc(total ? total : 1);
	if (!o) {
		free(refs);
		return pms_err(PMS_ENOMEM, "allocation stream: out of memory");
	}
	/* each record made whole: its body, the fields past it 0, its frames */
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		struct pms_alloc_rec r;
		size_t frames = (size_t)refs[i].nframes * 8;
		memset(&r, 0, sizeof(r));
		memcpy(&r, b + refs[i].off, refs[i].body);
		r.size = (uint16_t)(sizeof(r) + frames);
		r.time = refs[i].time;
		r.flags &= ~PMS_ALLOC_F_TSC;
		memcpy(o + at, &r, sizeof(r));
		memcpy(o + at + sizeof(r), b + refs[i].off + refs[i].body, frames);
		at += r.size;
	}
	free(refs);
	*out = o;
	*olen = total;
	return (long)n;
}

int pms_alloc_stream_read(int fd, void **out, size_t *len)
{
	unsigned char *b = NULL;
	size_t blen = 0;
	int rc = read_all(fd, &b, &blen);
	if (rc < 0)
		return rc;
	uint64_t magic = 0;
	if (blen >= PMS_ALLOC_HDR_SIZE)
		memcpy(&magic, b, sizeof(magic));
	if (magic != PMS_ALLOC_STREAM_MAGIC && magic != PMS_ALLOC_STREAM_MAGIC_V1) {
		*out = b;
		*len = blen;
		return 0;
	}
	unsigned char *o = NULL;
	size_t olen = 0;
	long n = sort_chunked(b, blen, &o, &olen);
	free(b);
	if (n < 0)
		return (int)n;
	*out = o;
	*len = olen;
	return 0;
}

long pms_alloc_table_read_fd(struct pms_alloc_table *t, int fd)
{
	if (t->read_done)
		return 0;
	void *b = NULL;
	size_t len = 0;
	int rc = pms_alloc_stream_read(fd, &b, &len);
	if (rc < 0)
		return rc;
	uint64_t before = t->st.records;
	long used = pms_alloc_table_feed(t, b, len);
	free(b);
	if (used < 0)
		return used;
	t->read_done = true;
	return (long)(t->st.records - before);
}
