/* Reading the stream file (include/pmuscope/alloc.h, PMS_ALLOC_STREAM_*):
 * the preload's threads fill chunks in place, so records of different
 * threads and processes lie in the file in no global order; they are put in
 * time order here (a stable sort: a chunk's own order kept for equal
 * times) before the table takes them, since a free must come after the
 * allocation it ends and before the allocation that gets the address
 * again.  Records that end early in the file (a free's 32 bytes) are
 * made whole here: the table and a perf.data file only see whole ones. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc/alloc_int.h"
#include "util/error.h"
#include "util/grow.h"

struct recref {
	uint64_t time;
	size_t off; /* in the file: also the tie-break, chunk order */
	uint16_t body; /* bytes of its body in the file (a short one: PMS_ALLOC_REC_MIN..) */
	uint8_t nframes;
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
		       size_t *n, size_t *cap)
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
		(*refs)[(*n)++] = (struct recref){ r.time, c + pos, (uint16_t)body, r.nframes };
		pos += r.size;
	}
	return 0;
}

/* The chunked file b[0, len) as records back to back in time order
 * (*out, malloc'd). */
static long sort_chunked(const unsigned char *b, size_t len, unsigned char **out, size_t *olen)
{
	uint64_t claimed;
	memcpy(&claimed, b + 8, sizeof(claimed));
	struct recref *refs = NULL;
	size_t n = 0, cap = 0, total = 0;
	int rc = 0;
	for (uint64_t k = 0; k < claimed && rc == 0; k++) {
		size_t c = PMS_ALLOC_HDR_SIZE + (size_t)k * PMS_ALLOC_CHUNK;
		if (c >= len)
			break; /* claimed, never grown into (the claim failed) */
		size_t clen = len - c < PMS_ALLOC_CHUNK ? len - c : PMS_ALLOC_CHUNK;
		rc = index_chunk(b, c, clen, &refs, &n, &cap);
	}
	if (rc < 0) {
		free(refs);
		return rc;
	}
	if (n)
		qsort(refs, n, sizeof(*refs), recref_cmp);
	for (size_t i = 0; i < n; i++)
		total += sizeof(struct pms_alloc_rec) + (size_t)refs[i].nframes * 8;
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
	if (magic != PMS_ALLOC_STREAM_MAGIC) {
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
