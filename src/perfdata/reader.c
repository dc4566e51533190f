/* perf.data reader: see include/pmuscope/perfdata.h.
 *
 * File layout (tools/perf/util/header.h, struct perf_file_header): magic,
 * header size, attr_size, the attrs, data and event_types sections, and a
 * 256-bit feature bitmap; the feature table ({offset, size} per set bit, in
 * bit order) sits at data.offset + data.size (perf_header__process_sections).
 * Pipe mode writes only {magic, size = 16}; attrs, features and build ids
 * then come as HEADER_ATTR, HEADER_FEATURE and HEADER_BUILD_ID records
 * (tools/perf/util/header.c, perf_event__process_attr/_feature). */
#include "reader_int.h"
#include "reader_lazy.h"
#include "decode/record_io.h"

#include "util/error.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
/* Largest decompressed output of one COMPRESSED record we accept; perf's
 * own buffer is the mmap size (HEADER_COMPRESSED mmap_len, a few MB). */
#define MAX_DECOMP (64u << 20)
/* Mapped file pages are given back in chunks of this many bytes (a
 * multiple of every page size).  Small: the kernel unmaps a page while its
 * struct page is still in the cache from mapping it, half the kernel time
 * of unmapping 16 MiB chunks (docs/perfdata.md), and at most this much of
 * the file is resident. */
#define DROP_CHUNK PD_DROP_CHUNK


static int read_file_attrs(struct pms_perfdata_reader *r, uint64_t off, uint64_t size)
{
	uint64_t n;

	if (r->attr_size < PD_ATTR_VER0 + 16 || r->attr_size > 4096)
		return pms_err(PMS_EPARSE,
			       "perf.data: header at offset 16: attr_size %" PRIu64 " is not "
			       "possible (a perf_event_attr of 64..4080 bytes plus its 16-byte "
			       "ids section)",
			       r->attr_size);
	if (off > r->len || size > r->len - off)
		return pms_err(PMS_EPARSE,
			       "perf.data: attrs section (offset %" PRIu64 ", %" PRIu64
			       " bytes) lies past the end of the file (%zu bytes)",
			       off, size, r->len);
	n = size / r->attr_size;
	if (n == 0)
		return pms_err(PMS_EPARSE,
			       "perf.data: attrs section at offset %" PRIu64 " holds no attr "
			       "(%" PRIu64 " bytes, attr_size %" PRIu64 ")",
			       off, size, r->attr_size);
	/* As perf (tools/perf/util/header.c perf_session__read_header and
	 * read_attr): the header's attr_size only counts the entries; each attr
	 * is read by its own attr.size with its 16-byte ids section right
	 * after it, and the next entry follows that.  A file whose attr_size
	 * disagrees with attr.size + 16 (some writers leave the ids out of it)
	 * is read as perf reads it (docs/perfdata.md). */
	uint64_t at = off;
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *p = r->buf + at;
		size_t asz;
		uint64_t ioff, isize;
		int rc;

		if (at > r->len || r->len - at < PD_ATTR_VER0 + 16)
			return pms_err(PMS_EPARSE,
				       "perf.data: attr %" PRIu64 " at offset %" PRIu64
				       " lies past the end of the file (%zu bytes)",
				       i, at, r->len);
		asz = pd_attr_recorded_size(r, p);
		if (asz < PD_ATTR_VER0 || asz > 4096 || asz + 16 > r->len - at)
			return pms_err(PMS_EPARSE,
				       "perf.data: attr %" PRIu64 " at offset %" PRIu64
				       ": attr.size %zu is not possible here (64..4096 bytes and its "
				       "16-byte ids section inside the file)",
				       i, at, asz);
		ioff = pd_rd64(r, p + asz);
		isize = pd_rd64(r, p + asz + 8);
		if (ioff > r->len || isize > r->len - ioff || isize % 8)
			return pms_err(PMS_EPARSE,
				       "perf.data: attr %" PRIu64 " at offset %" PRIu64
				       ": its ids section (offset %" PRIu64 ", %" PRIu64
				       " bytes) is not inside the file (%zu bytes) or not u64s",
				       i, at, ioff, isize, r->len);
		rc = pd_add_attr(r, p, asz, r->buf + ioff, isize / 8, "attrs section", at);
		if (rc < 0)
			return rc;
		at += asz + 16;
	}
	return 0;
}

/* ---- sources ---------------------------------------------------------------- */

static int grow(unsigned char **buf, size_t *cap, size_t need)
{
	unsigned char *nb;
	size_t ncap = *cap ? *cap : 4096;
	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	nb = realloc(*buf, ncap);
	if (!nb)
		return pms_err(PMS_ENOMEM, "perf.data reader: out of memory (%zu bytes)", need);
	*buf = nb;
	*cap = ncap;
	return 0;
}

/* Read exactly n bytes from the stream; returns bytes read (< n at EOF). */
static ssize_t read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = read(fd, (char *)buf + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

static int parse_magic(struct pms_perfdata_reader *r, const unsigned char *p, size_t n)
{
	uint64_t magic, hsize;
	if (n < PIPE_HEADER_SIZE)
		return pms_err(PMS_EPARSE,
			       "perf.data: header at offset 0: %zu bytes, too short for a "
			       "perf.data header (16 in pipe mode, 104 in file mode)",
			       n);
	memcpy(&magic, p, 8);
	if (magic == PMS_PERFDATA_MAGIC)
		r->swap = false;
	else if (pd_bswap64(magic) == PMS_PERFDATA_MAGIC)
		r->swap = true;
	else if (!memcmp(p, "PERFFILE", 8))
		return pms_err(PMS_EPARSE,
			       "perf.data: magic \"PERFFILE\" at offset 0 is the version-1 "
			       "format (before 2010), which this reader does not read");
	else
		return pms_err(PMS_EPARSE,
			       "perf.data: magic at offset 0 is 0x%016" PRIx64 ", not "
			       "\"PERFILE2\" in either byte order: not a perf.data file",
			       magic);
	hsize = pd_rd64(r, p + 8);
	if (hsize == PIPE_HEADER_SIZE)
		r->pipe = true;
	else if (hsize == FILE_HEADER_SIZE)
		r->pipe = false;
	else
		return pms_err(PMS_EPARSE,
			       "perf.data: header at offset 8: header size %" PRIu64 " is "
			       "neither 16 (pipe mode) nor 104 (file mode)",
			       hsize);
	return 0;
}

static const char *feat_label(unsigned f)
{
	const char *n = pms_perfdata_feature_name(f);
	return n ? n : "?";
}

void pd_problem(struct pms_perfdata_reader *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	char *copy;
	const char **grown;

	r->nproblems_all++;
	if (r->nproblems >= PD_MAX_PROBLEMS)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	copy = pd_alloc(r, strlen(msg) + 1);
	grown = pd_alloc(r, (r->nproblems + 1) * sizeof(*grown));
	if (!copy || !grown)
		return;
	memcpy(copy, msg, strlen(msg) + 1);
	if (r->nproblems)
		memcpy(grown, r->problems, r->nproblems * sizeof(*grown));
	grown[r->nproblems++] = copy;
	r->problems = grown;
}

static int read_features(struct pms_perfdata_reader *r, const unsigned char *bitmap,
			 uint64_t table_off)
{
	uint64_t at = table_off;
	for (unsigned f = 0; f < PMS_PERFDATA_FEAT_MAX; f++) {
		uint64_t word = pd_rd64(r, bitmap + (f / 64) * 8), off, size;
		if (!(word & (UINT64_C(1) << (f % 64))))
			continue;
		if (at > r->len || r->len - at < 16) {
			/* every feature from here on is lost */
			for (unsigned g = f; g < PMS_PERFDATA_FEAT_MAX; g++)
				if (pd_rd64(r, bitmap + (g / 64) * 8) & (UINT64_C(1) << (g % 64)))
					r->stats.bad_features++;
			pd_problem(r, "feature %s (%u) and the features after it skipped: the "
				      "feature table entry at offset %" PRIu64 " is past the end of "
				      "the file (%zu bytes); the file is truncated",
				   feat_label(f), f, at, r->len);
			return 0;
		}
		off = pd_rd64(r, r->buf + at);
		size = pd_rd64(r, r->buf + at + 8);
		at += 16;
		if (off > r->len || size > r->len - off) {
			r->stats.bad_features++;
			pd_problem(r, "feature %s (%u) skipped: its section (offset %" PRIu64
				      ", %" PRIu64 " bytes) is not inside the file (%zu bytes)",
				   feat_label(f), f, off, size, r->len);
			continue;
		}
		if (f == PMS_PERFDATA_FEAT_PMUSCOPE_ALLOC) {
			r->alloc_off = off;
			r->alloc_len = size;
		}
		if (f == 1 /* TRACING_DATA: its own format, not needed here */) {
			r->info.has[0] |= 2;
			continue;
		}
		if (pd_feature_parse(r, f, r->buf + off, (size_t)size, off) == PMS_EPARSE)
			pd_problem(r, "feature %s (%u) skipped: %s", feat_label(f), f,
				   pms_error_last());
	}
	return 0;
}

static int open_common(struct pms_perfdata_reader *r)
{
	const unsigned char *p = r->buf;
	uint64_t aoff, asize, doff, dsize;
	int rc;

	r->dummy.pub.attr = &r->dummy.attr;
	if ((rc = parse_magic(r, p, r->len)) < 0)
		return rc;
	if (r->pipe) {
		r->pos = PIPE_HEADER_SIZE;
		r->end = r->len;
		return 0;
	}
	if (r->len < FILE_HEADER_SIZE)
		return pms_err(PMS_EPARSE,
			       "perf.data: header at offset 0: the file has %zu bytes, less than "
			       "the 104-byte file header",
			       r->len);
	r->attr_size = pd_rd64(r, p + 16);
	aoff = pd_rd64(r, p + 24);
	asize = pd_rd64(r, p + 32);
	doff = pd_rd64(r, p + 40);
	dsize = pd_rd64(r, p + 48);
	/* A file whose writer did not finish (killed, power cut) lists no
	 * features: its header was written before the data was complete
	 * (data.size 0 as perf leaves it, or what pmuscope's writer last
	 * synced).  Its records are read up to the end of the file. */
	bool nofeat = true, mark = pd_rd64(r, p + 56) == PMS_PERFDATA_UNFINISHED_MARK;
	for (int i = 0; i < 4; i++)
		nofeat &= pd_rd64(r, p + 72 + 8 * i) == 0;
	if ((mark || nofeat) && doff >= FILE_HEADER_SIZE && doff <= r->len &&
	    (mark || dsize == 0 || dsize > r->len - doff || r->len - doff - dsize >= 8)) {
		r->stats.unfinished = true;
		if (dsize > r->len - doff)
			dsize = r->len - doff;
		r->stats.recovered_bytes = r->len - doff - dsize;
		pd_problem(r, "the file was not finished (its writer was killed, or the disk "
			      "failed): %s; the records up to the end of the file are read (%" PRIu64
			      " bytes past the header's data size)",
			   mark ? "the header still has the writer's in-progress mark"
			   : pd_rd64(r, p + 48) == 0 ? "the header lists no features and data size 0"
			   : pd_rd64(r, p + 48) > r->len - doff
				   ? "the header lists no features and a data size past the end of the file"
				   : "the header lists no features and records follow the data section",
			   r->stats.recovered_bytes);
		dsize = r->len - doff;
		/* a feature table cannot be trusted in a file being written */
		if (mark && !nofeat)
			memset(r->info.has, 0, sizeof(r->info.has));
	}
	if (doff > r->len || dsize > r->len - doff)
		return pms_err(PMS_EPARSE,
			       "perf.data: data section (offset %" PRIu64 ", %" PRIu64
			       " bytes) ends past the end of the file (%zu bytes): truncated "
			       "or corrupt file",
			       doff, dsize, r->len);
	if ((rc = read_file_attrs(r, aoff, asize)) < 0)
		return rc;
	r->pos = doff;
	r->end = doff + dsize;
	if (r->stats.unfinished)
		return 0; /* what follows the data is more data, not features */
	return read_features(r, p + 72, doff + dsize);
}

int pms_perfdata_reader_open_mem(const void *buf, size_t len, struct pms_perfdata_reader **out)
{
	struct pms_perfdata_reader *r;
	int rc;

	if (!out)
		return pms_err(PMS_EINVAL, "pms_perfdata_reader_open_mem: out is NULL");
	*out = NULL;
	if (!buf && len)
		return pms_err(PMS_EINVAL, "pms_perfdata_reader_open_mem: buf is NULL");
	r = calloc(1, sizeof(*r));
	if (!r)
		return pms_err(PMS_ENOMEM, "perf.data reader: out of memory");
	r->fd = -1;
	r->buf = buf;
	r->len = len;
	rc = open_common(r);
	if (rc < 0) {
		pms_perfdata_reader_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int pms_perfdata_reader_open_fd(int fd, struct pms_perfdata_reader **out)
{
	struct pms_perfdata_reader *r = NULL;
	struct stat st;
	unsigned char hdr[PIPE_HEADER_SIZE];
	ssize_t n;
	int rc;

	if (!out)
		return pms_err(PMS_EINVAL, "pms_perfdata_reader_open_fd: out is NULL");
	*out = NULL;
	if (fd < 0)
		return pms_err(PMS_EINVAL, "pms_perfdata_reader_open_fd: fd %d is not an fd", fd);
	if (fstat(fd, &st) < 0)
		return pms_err_errno(PMS_EIO, errno, "perf.data: fstat of fd %d", fd);
	if (S_ISREG(st.st_mode)) {
		void *m;
		if (st.st_size == 0)
			return pms_err(PMS_EPARSE, "perf.data: the file is empty (0 bytes)");
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED)
			return pms_err_errno(PMS_EIO, errno, "perf.data: mapping %lld bytes of fd %d",
					     (long long)st.st_size, fd);
		(void)madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
		rc = pms_perfdata_reader_open_mem(m, (size_t)st.st_size, &r);
		if (rc < 0) {
			munmap(m, (size_t)st.st_size);
			return rc;
		}
		r->map = m;
		r->map_len = (size_t)st.st_size;
		*out = r;
		return 0;
	}
	/* A pipe: only pipe mode can be followed without seeking. */
	n = read_full(fd, hdr, sizeof(hdr));
	if (n < 0)
		return pms_err_errno(PMS_EIO, errno, "perf.data: reading the header from fd %d", fd);
	r = calloc(1, sizeof(*r));
	if (!r)
		return pms_err(PMS_ENOMEM, "perf.data reader: out of memory");
	r->fd = fd;
	r->stream = true;
	r->dummy.pub.attr = &r->dummy.attr;
	rc = parse_magic(r, hdr, (size_t)n);
	if (rc == 0 && !r->pipe)
		rc = pms_err(PMS_EPARSE,
			     "perf.data: fd %d is a stream holding a file-mode perf.data; file "
			     "mode needs a seekable regular file (save it to a file first)",
			     fd);
	if (rc < 0) {
		pms_perfdata_reader_free(r);
		return rc;
	}
	r->stream_pos = PIPE_HEADER_SIZE;
	*out = r;
	return 0;
}

void pms_perfdata_reader_free(struct pms_perfdata_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nattrs; i++)
		free(r->attrs[i].ids);
	free(r->attrs);
	free(r->ids.keys);
	free(r->ids.vals);
	while (r->arena) {
		struct arena_blk *b = r->arena;
		r->arena = b->next;
		free(b);
	}
	if (r->zds)
		ZSTD_freeDStream(r->zds);
	free(r->dbuf);
	free(r->rbuf);
	free(r->abuf);
	free(r->aux_task);
	if (r->map)
		munmap(r->map, r->map_len);
	free(r);
}

/* ---- records ------------------------------------------------------------------ */

/* Where the next raw record comes from. */
struct raw {
	const unsigned char *p; /* file byte order */
	size_t len;
	uint64_t off;
	bool compressed;
};

/* Skip n payload bytes that follow a record (AUXTRACE, pipe TRACING_DATA). */
static int skip_payload(struct pms_perfdata_reader *r, uint64_t n, uint64_t at)
{
	if (r->stream) {
		unsigned char tmp[4096];
		while (n) {
			size_t k = n < sizeof(tmp) ? (size_t)n : sizeof(tmp);
			ssize_t got = read_full(r->fd, tmp, k);
			if (got < 0)
				return pms_err_errno(PMS_EIO, errno, "perf.data: reading fd %d", r->fd);
			if ((size_t)got < k) {
				r->stats.truncated = true;
				r->stream_eof = true;
				return 0;
			}
			r->stream_pos += k;
			n -= k;
		}
		return 0;
	}
	if (n > r->end - r->pos) {
		r->stats.truncated = true;
		return pms_err(PMS_EPARSE,
			       "perf.data: data section: the %" PRIu64 "-byte payload after the "
			       "record at offset %" PRIu64 " runs past the end of the data",
			       n, at);
	}
	r->pos += n;
	return 0;
}

/* The n trace bytes after an AUXTRACE record: pointed to in a buffer, read
 * into abuf from a stream.  Bytes the data does not hold are counted
 * (stats.auxtrace_short) and end the data, like a record cut by the end. */
static int take_payload(struct pms_perfdata_reader *r, uint64_t n, uint64_t at,
			const void **data, size_t *len)
{
	*data = NULL;
	*len = 0;
	if (r->stream) {
		ssize_t got;
		if (n > MAX_DECOMP) {
			r->stats.auxtrace_short++;
			return skip_payload(r, n, at);
		}
		if (grow(&r->abuf, &r->acap, (size_t)n ? (size_t)n : 1) < 0)
			return PMS_ENOMEM;
		got = read_full(r->fd, r->abuf, (size_t)n);
		if (got < 0)
			return pms_err_errno(PMS_EIO, errno, "perf.data: reading fd %d", r->fd);
		r->stream_pos += (uint64_t)got;
		*data = r->abuf;
		*len = (size_t)got;
		if ((uint64_t)got < n) {
			r->stats.auxtrace_short++;
			r->stats.truncated = true;
			r->stream_eof = true;
		}
		return 0;
	}
	*data = r->buf + r->pos;
	if (n > r->end - r->pos) {
		*len = (size_t)(r->end - r->pos);
		r->stats.auxtrace_short++;
		r->stats.truncated = true;
		r->pos = r->end;
		return 0;
	}
	*len = (size_t)n;
	r->pos += n;
	(void)at;
	return 0;
}

/* The next record of the file (not of a COMPRESSED record): 1, 0 at end. */
/* A chunk whose end a walk is finding (pms_pd_reader_follow): wait until
 * the walk is past r->pos (or says where the chunk ends).  Whether there is
 * more to read. */
static bool follow_more(struct pms_perfdata_reader *r)
{
	for (;;) {
		bool done = atomic_load_explicit(&r->follow->done, memory_order_acquire);
		uint64_t upto = atomic_load_explicit(&r->follow->upto, memory_order_acquire);
		if (upto > r->end)
			r->end = upto;
		if (r->pos < r->end)
			return true;
		if (done)
			return false;
		sched_yield();
	}
}

/* Give back the mapped pages already read, so memory stays bounded on
 * files larger than RAM; nothing handed out points there any more (an
 * event is valid until the next call), but what a time-order queue holds
 * by pointer (keep_from).  Before each record of a whole buffer. */
static void drop_read_now(struct pms_perfdata_reader *r)
{
	uint64_t read_upto = r->keep && r->keep_from < r->pos ? r->keep_from : r->pos;
	if ((r->map || r->drop_buf) && read_upto > r->dropped &&
	    read_upto - r->dropped >= DROP_CHUNK) {
		uint64_t upto = read_upto & ~(uint64_t)(DROP_CHUNK - 1);
		if (upto > r->dropped) {
			(void)madvise((void *)(uintptr_t)(r->buf + r->dropped),
				      (size_t)(upto - r->dropped), MADV_DONTNEED);
			r->dropped = upto;
		}
	}
}

/* drop_read_now where it may give something back: what it gives back
 * ends at or before r->pos, a DROP_CHUNK past r->dropped at least */
static inline void drop_read(struct pms_perfdata_reader *r)
{
	if (r->pos - r->dropped >= DROP_CHUNK)
		drop_read_now(r);
}

static int next_outer(struct pms_perfdata_reader *r, struct raw *out)
{
	uint16_t size;
	uint32_t type;

	if (r->stream) {
		unsigned char h[8];
		ssize_t n;
		if (r->stream_eof)
			return 0;
		n = read_full(r->fd, h, 8);
		if (n < 0)
			return pms_err_errno(PMS_EIO, errno, "perf.data: reading fd %d", r->fd);
		if (n == 0)
			return 0;
		if (n < 8) {
			r->stats.truncated = true;
			pd_problem(r, "pipe stream: ends inside a record header at offset %" PRIu64,
				   r->stream_pos);
			return 0;
		}
		memcpy(&size, h + 6, 2);
		memcpy(&type, h, 4);
		if (r->swap) {
			size = pd_bswap16(size);
			type = pd_bswap32(type);
		}
		if (size < 8)
			return pms_err(PMS_EPARSE,
				       "perf.data: pipe stream: record of type %" PRIu32
				       " at offset %" PRIu64 " has size %u, less than its 8-byte "
				       "header; the stream cannot be followed past it",
				       type, r->stream_pos, (unsigned)size);
		if (grow(&r->rbuf, &r->rcap, size) < 0)
			return PMS_ENOMEM;
		memcpy(r->rbuf, h, 8);
		n = read_full(r->fd, r->rbuf + 8, size - 8u);
		if (n < 0)
			return pms_err_errno(PMS_EIO, errno, "perf.data: reading fd %d", r->fd);
		if ((size_t)n < size - 8u) {
			r->stats.truncated = true;
			r->stream_eof = true;
			pd_problem(r, "pipe stream: ends inside the %u-byte record at offset %" PRIu64,
				   (unsigned)size, r->stream_pos);
			return 0;
		}
		out->p = r->rbuf;
		out->len = size;
		out->off = r->stream_pos;
		out->compressed = false;
		r->stream_pos += size;
		return 1;
	}
	drop_read(r);
	if (r->pos >= r->end && !(r->follow && follow_more(r)))
		return 0;
	if (r->end - r->pos < 8) {
		r->stats.truncated = true;
		pd_problem(r, "data section: the last %" PRIu64 " bytes (offset %" PRIu64
			      ") are less than a record header; dropped",
			   r->end - r->pos, r->pos);
		r->pos = r->end;
		return 0;
	}
	size = pd_rd16(r, r->buf + r->pos + 6);
	type = pd_rd32(r, r->buf + r->pos);
	if ((size < 8 || size > r->end - r->pos) && r->stats.unfinished) {
		/* Where an unfinished file was cut: the record being written
		 * when it stopped, or pages that never reached the disk. */
		r->stats.truncated = true;
		pd_problem(r, "unfinished file: the data ends at offset %" PRIu64 " with %" PRIu64
			      " bytes that are not a complete record (record size %u); dropped",
			   r->pos, r->end - r->pos, (unsigned)size);
		r->pos = r->end;
		return 0;
	}
	if (size < 8 || size > r->end - r->pos) {
		r->stats.truncated = true;
		pd_problem(r, "data section: record of type %" PRIu32 " at offset %" PRIu64
			      " has size %u; %" PRIu64 " bytes from there on not read",
			   type, r->pos, (unsigned)size, r->end - r->pos);
		return pms_err(PMS_EPARSE,
			       "perf.data: data section: record of type %" PRIu32 " at offset %" PRIu64
			       " has size %u, %s; the data cannot be followed past it",
			       type, r->pos, (unsigned)size,
			       size < 8 ? "less than its 8-byte header"
					: "more than the bytes left in the data section");
	}
	out->p = r->buf + r->pos;
	out->len = size;
	out->off = r->pos;
	out->compressed = false;
	r->pos += size;
	return 1;
}

/* Unpack a COMPRESSED (body = zstd data) or COMPRESSED2 (u64 data size,
 * then the data, padded) record into dbuf, after what is left there. */
static int decompress(struct pms_perfdata_reader *r, const struct raw *raw, uint32_t type)
{
	const unsigned char *src = raw->p + 8;
	size_t srclen = raw->len - 8, produced = 0, zr = 0;
	ZSTD_inBuffer in;

	if (type == PD_COMPRESSED2) {
		uint64_t dsz;
		if (srclen < 8)
			return pms_err(PMS_EPARSE, "perf.data: COMPRESSED2 record at offset %" PRIu64
						   " has no data size", raw->off);
		dsz = pd_rd64(r, src);
		src += 8;
		srclen -= 8;
		if (dsz > srclen)
			return pms_err(PMS_EPARSE,
				       "perf.data: COMPRESSED2 record at offset %" PRIu64
				       ": data size %" PRIu64 " is more than its %zu bytes",
				       raw->off, dsz, srclen);
		/* perf sizes the record as data_size padded to 8
		 * (record.c, process_comp_header): more than 7 bytes after the
		 * data mean data_size was cut, and the records in those bytes
		 * would be lost; perf: "Couldn't decompress data". */
		if (srclen - dsz >= 8)
			return pms_err(PMS_EPARSE,
				       "perf.data: COMPRESSED2 record at offset %" PRIu64
				       ": data size %" PRIu64 " leaves %" PRIu64 " of its %zu bytes "
				       "unread (padding is at most 7): couldn't decompress data",
				       raw->off, dsz, (uint64_t)(srclen - dsz), srclen);
		srclen = (size_t)dsz;
	}
	if (!r->zds) {
		r->zds = ZSTD_createDStream();
		if (!r->zds)
			return pms_err(PMS_ENOMEM, "perf.data reader: zstd stream");
		ZSTD_initDStream(r->zds);
	}
	/* Drop consumed bytes, keep the partial record. */
	if (r->dpos) {
		memmove(r->dbuf, r->dbuf + r->dpos, r->dlen - r->dpos);
		r->dlen -= r->dpos;
		r->dpos = 0;
	}
	in.src = src;
	in.size = srclen;
	in.pos = 0;
	for (;;) {
		ZSTD_outBuffer o;
		if (grow(&r->dbuf, &r->dcap, r->dlen + 65536) < 0)
			return PMS_ENOMEM;
		o.dst = r->dbuf + r->dlen;
		o.size = r->dcap - r->dlen;
		o.pos = 0;
		zr = ZSTD_decompressStream(r->zds, &o, &in);
		if (ZSTD_isError(zr)) {
			/* As perf (tools/perf/util/zstd.c zstd_decompress_stream,
			 * util/session.c perf_session__process_compressed_event):
			 * what came out before the error is kept and read, the
			 * stream is not reset (the records after it do not
			 * decompress either), and only a record that gives no
			 * bytes at all stops the read. */
			if (!produced && !o.pos)
				return pms_err(PMS_EPARSE,
					       "perf.data: COMPRESSED record at offset %" PRIu64
					       ": zstd: %s",
					       raw->off, ZSTD_getErrorName(zr));
			r->dlen += o.pos;
			produced += o.pos;
			pd_problem(r, "COMPRESSED record at offset %" PRIu64 ": zstd: %s after %zu "
				      "bytes; the rest of the record is lost (perf reads the same "
				      "part)",
				   raw->off, ZSTD_getErrorName(zr), produced);
			break;
		}
		r->dlen += o.pos;
		produced += o.pos;
		if (produced > MAX_DECOMP)
			return pms_err(PMS_EPARSE,
				       "perf.data: COMPRESSED record at offset %" PRIu64
				       " unpacks to more than %u bytes",
				       raw->off, MAX_DECOMP);
		/* done: all input read and no more output can come without
		 * more (a zstd frame may go on in the next record: perf cuts
		 * its output into records of at most 64 KiB, util/zstd.c) */
		if (in.pos == in.size && (zr == 0 || o.pos < o.size))
			break;
	}
	r->comp_off = raw->off;
	r->stats.compressed++;
	r->stats.by_type[type]++;
	return 0;
}

/* A record waiting in dbuf: 1, or 0 when none is complete. */
static int next_inner(struct pms_perfdata_reader *r, struct raw *out)
{
	uint16_t size;
	if (r->dlen - r->dpos < 8)
		return 0;
	size = pd_rd16(r, r->dbuf + r->dpos + 6);
	if (size < 8) {
		/* Nothing after it can be trusted: drop the buffer. */
		r->dpos = r->dlen;
		return pms_err(PMS_EPARSE,
			       "perf.data: record inside the COMPRESSED record at offset %" PRIu64
			       " has size %u",
			       r->comp_off, (unsigned)size);
	}
	if (size > r->dlen - r->dpos)
		return 0;
	out->p = r->dbuf + r->dpos;
	out->len = size;
	out->off = r->comp_off;
	out->compressed = true;
	r->dpos += size;
	return 1;
}

/* The attr a kernel record belongs to (by its id), or -1 (unknown id). */
static long attr_of(struct pms_perfdata_reader *r, const unsigned char *p, size_t len)
{
	uint64_t id;
	long i;
	if (r->nattrs <= 1 || r->ids.n == 0)
		return 0;
	/* perf requires every event's id at the same place (evlist id_pos),
	 * so the first attr's layout finds it. */
	if (pms_record_peek_id(&r->attrs[0].layout, p, len, &id) < 0)
		return 0;
	if (r->swap)
		id = pd_bswap64(id);
	i = pd_idmap_get(&r->ids, id);
	return i;
}

static void note_skip(struct pms_perfdata_reader *r, uint64_t off, bool comp, uint32_t type)
{
	/* perf-tool record types the kernel's name table does not have */
	const char *name = type == PD_COMPRESSED    ? "COMPRESSED"
			   : type == PD_COMPRESSED2 ? "COMPRESSED2"
						    : pms_record_type_name(type);
	r->stats.bad_records++;
	snprintf(r->skipmsg, sizeof(r->skipmsg), "record %s (type %" PRIu32 ") at offset %" PRIu64
		 "%s skipped: %s",
		 name, type, off, comp ? " (in a COMPRESSED record)" : "",
		 pms_error_last());
	pd_problem(r, "%s", r->skipmsg);
}

/* The records of unknown type or size counted by reader_check.c, said once
 * per type (at the end of the data). */
void pd_unknown_summary(struct pms_perfdata_reader *r)
{
	if (r->unknown_said)
		return;
	r->unknown_said = true;
	for (size_t i = 0; i < r->nunknown; i++)
		if (r->unknown[i].badsize)
			pd_problem(r, "%" PRIu64 " %s record%s (type %" PRIu32 ") skipped: the size "
				   "is not that type's (a retyped or corrupt record; the first at "
				   "offset %" PRIu64 ")",
				   r->unknown[i].n, pms_record_type_name(r->unknown[i].type),
				   r->unknown[i].n == 1 ? "" : "s", r->unknown[i].type,
				   r->unknown[i].first_off);
		else
			pd_problem(r, "%" PRIu64 " record%s of unknown type %" PRIu32 " skipped (the first at "
			   "offset %" PRIu64 "); perf refuses such a file (\"failed to process "
			   "type: %" PRIu32 "\")",
			   r->unknown[i].n, r->unknown[i].n == 1 ? "" : "s", r->unknown[i].type,
			   r->unknown[i].first_off, r->unknown[i].type);
	if (r->unknown_other)
		pd_problem(r, "%" PRIu64 " more records of %s unknown types skipped",
			   r->unknown_other, "other");
	/* said: a later call adds only what came after */
	r->nunknown = 0;
	r->unknown_other = 0;
}

/* The record next_event hands out most: a SAMPLE of a buffer in host
 * order (a mapped file or the caller's memory), with no decompressed
 * record waiting.  Handed out as next_event would, without its general
 * steps (the outer and inner record sources, the type and size checks of
 * other types, the AUXTRACE payload, the swap): one whose fields are all
 * of fixed size lazily (reader_lazy.h) in a few loads and stores, another
 * decoded.  1, or 0 when the next record is not such a sample or does not
 * decode (next_event reads it, and says what is wrong with it); 2 when it
 * was decoded over the event before (pms_pd_reader_decode_over). */
/* The attr of the SAMPLE record next in a whole host-order buffer (its
 * size in *size), or NULL when the next record is not one. */
static inline const struct rattr *sample_next(struct pms_perfdata_reader *r, uint16_t *size)
{
	if (r->stream || r->swap || !r->nattrs || r->dpos < r->dlen || r->pos >= r->end ||
	    r->end - r->pos < 8)
		return NULL;
	const unsigned char *p = r->buf + r->pos;
	uint32_t type;
	memcpy(&type, p, 4);
	memcpy(size, p + 6, 2);
	if (type != PMS_RECORD_SAMPLE || *size < 8 || *size > r->end - r->pos)
		return NULL;
	if (r->nattrs > 1 && r->ids.n) {
		long i = attr_of(r, p, *size);
		return i < 0 ? NULL : &r->attrs[i];
	}
	return r->attrs;
}

static inline int next_fast(struct pms_perfdata_reader *r, struct pms_perfdata_event *ev)
{
	uint16_t misc, size;
	const struct rattr *a = sample_next(r, &size);
	if (!a)
		return 0;
	const unsigned char *p = r->buf + r->pos;
	size_t ai = (size_t)(a - r->attrs);
	int ret = 1;
	drop_read(r);
	if (r->lazy_samples && a->fixed.body && size - 8u >= a->fixed.body &&
	    size - 8u - a->fixed.body < 8 && r->over_on) {
		/* decoded here, over the event's last sample when that was
		 * of this plan's sample_type */
		if (r->over.rec == &ev->rec && r->over.sample_type == a->fixed.sample_type) {
			pms_sample_fixed_refill(&a->fixed, p, &ev->rec);
		} else {
			pms_sample_fixed_decode(&a->fixed, p, &ev->rec);
			r->over.rec = &ev->rec;
			r->over.sample_type = a->fixed.sample_type;
		}
		ret = 2;
	} else if (r->lazy_samples && a->fixed.body && size - 8u >= a->fixed.body &&
		   size - 8u - a->fixed.body < 8) {
		memcpy(&misc, p + 4, 2);
		ev->rec.type = PMS_RECORD_SAMPLE;
		ev->rec.misc = misc;
		ev->rec.size = size;
		ev->rec.sample.present = 0;
		if (a->fixed.time_off)
			memcpy(&ev->rec.sample.time, p + a->fixed.time_off, 8);
	} else if (pms_record_parse(&a->layout, p, size, &ev->rec) < 0) {
		return 0;
	}
	ev->raw = p;
	ev->raw_len = size;
	ev->attr = &a->pub;
	ev->attr_idx = ai;
	ev->file_offset = r->pos;
	ev->from_compressed = false;
	memset(&ev->auxtrace, 0, sizeof(ev->auxtrace));
	ev->aux_data = NULL;
	ev->aux_len = 0;
	ev->aux_pid = 0;
	ev->aux_tid = UINT32_MAX;
	r->pos += size;
	r->stats.records++;
	r->stats.by_type[PMS_RECORD_SAMPLE]++;
	r->stats.samples++;
	return ret;
}

/* Over 150 lines on purpose: the per-record loop of every reader (hot: once
 * per record of a file); the record's raw bytes, its attr and the AUX
 * state live across the loop's branches (compressed, AUX, sample).  Not
 * split without a bench run showing no cost per record. */
static int next_event(struct pms_perfdata_reader *r, struct pms_perfdata_event *ev)
{
	if (r->stopped)
		return pms_err(PMS_EPARSE, "perf.data: reading stopped at a record that could "
					   "not be decompressed (%s)", r->skipmsg);
	int fast = next_fast(r, ev);
	if (fast)
		return fast;
	for (;;) {
		struct raw raw = { NULL, 0, 0, false };
		const unsigned char *p;
		uint32_t type;
		long ai = 0;
		const struct rattr *a;
		uint16_t misc;
		int rc;
		struct pms_perfdata_auxtrace aux;
		const void *aux_data;
		size_t aux_len;

		rc = next_inner(r, &raw);
		if (rc < 0) {
			note_skip(r, r->comp_off, true, 0);
			continue;
		}
		if (rc == 0) {
			rc = next_outer(r, &raw);
			if (rc == 0)
				pd_unknown_summary(r);
			if (rc <= 0)
				return rc;
		}
		type = pd_rd32(r, raw.p);
		if (!pd_type_known(type)) {
			pd_unknown_record(r, type, raw.off, false);
			continue;
		}
		if (type == PD_COMPRESSED || type == PD_COMPRESSED2) {
			if (raw.compressed) {
				note_skip(r, raw.off, true, type);
				continue;
			}
			if ((rc = decompress(r, &raw, type)) == PMS_ENOMEM)
				return rc;
			/* perf stops here: process_compressed_event() fails with
			 * "Couldn't decompress data" when a record gives no bytes
			 * (tools/perf/util/session.c), and perf script exits
			 * non-zero after the records before it.  The records in
			 * the rest of the stream cannot be trusted either (the
			 * zstd stream spans records). */
			if (rc < 0) {
				note_skip(r, raw.off, false, type);
				r->stopped = true;
				return pms_err(PMS_EPARSE, "perf.data: couldn't decompress data (%s); "
						"the records after offset %" PRIu64 " are not "
						"read (perf stops there too)",
					       r->skipmsg, raw.off);
			}
			continue;
		}
		if (type < PMS_RECORD_USER_TYPE_START && r->nattrs) {
			ai = attr_of(r, raw.p, raw.len);
			if (ai < 0) {
				if (type == PMS_RECORD_SAMPLE) {
					/* perf drops these (evlist__event2evsel NULL). */
					if (!r->stats.unknown_id++)
						pd_problem(r, "SAMPLE at offset %" PRIu64 " has an id "
							      "of no event; it and any like it are "
							      "dropped, as perf drops them",
							   raw.off);
					continue;
				}
				ai = 0;
			}
		}
		a = r->nattrs && type < PMS_RECORD_USER_TYPE_START ? &r->attrs[ai]
			: r->nattrs ? &r->attrs[0] : &r->dummy;
		if (!pd_size_fits(&a->layout, type, raw.p, raw.len)) {
			pd_unknown_record(r, type, raw.off, true);
			continue;
		}
		/* Header data and payload sizes are read from the bytes as
		 * recorded (the helpers swap), before the record is swapped
		 * for the decoders. */
		misc = pd_rd16(r, raw.p + 4);
		memset(&aux, 0, sizeof(aux));
		aux_data = NULL;
		aux_len = 0;
		if (type == PD_AUXTRACE && raw.len >= 48) {
			aux.size = pd_rd64(r, raw.p + 8);
			aux.offset = pd_rd64(r, raw.p + 16);
			aux.reference = pd_rd64(r, raw.p + 24);
			aux.idx = pd_rd32(r, raw.p + 32);
			aux.tid = pd_rd32(r, raw.p + 36);
			aux.cpu = pd_rd32(r, raw.p + 40);
			if (!raw.compressed &&
			    (rc = take_payload(r, aux.size, raw.off, &aux_data, &aux_len)) < 0)
				return rc;
		} else if (type == PD_AUXTRACE && raw.len >= 16) {
			if (!raw.compressed && (rc = skip_payload(r, pd_rd64(r, raw.p + 8), raw.off)) < 0)
				return rc;
		} else if (type == PD_HEADER_TRACING_DATA && raw.len >= 12 && r->pipe) {
			if (!raw.compressed && (rc = skip_payload(r, pd_rd32(r, raw.p + 8), raw.off)) < 0)
				return rc;
		}
		if (type >= PMS_RECORD_USER_TYPE_START) {
			if (pd_user_record(r, raw.p, raw.len, type, raw.off) < 0) {
				note_skip(r, raw.off, raw.compressed, type);
				continue;
			}
			if (type == PD_HEADER_ATTR)
				a = &r->attrs[r->nattrs - 1];
			else if (!r->nattrs)
				a = &r->dummy;
		}
		p = raw.p;
		if (r->swap) {
			/* A record read from a stream is in rbuf already. */
			if (p != r->rbuf) {
				if (grow(&r->rbuf, &r->rcap, raw.len) < 0)
					return PMS_ENOMEM;
				memcpy(r->rbuf, p, raw.len);
			}
			pd_swap_record(r->rbuf, raw.len,
				       type < PMS_RECORD_USER_TYPE_START ? &a->layout : NULL);
			p = r->rbuf;
		}
		/* Every field of *ev is set below (no clearing of the whole
		 * event: the decoder clears what it fills). */
		if (type >= PMS_RECORD_USER_TYPE_START) {
			/* perf-tool records: passed through as bytes; old perf
			 * wrote some (HEADER_FEATURE, TRACING_DATA) with sizes
			 * that are not multiples of 8. */
			memset(&ev->rec, 0, sizeof(ev->rec));
			ev->rec.type = type;
			ev->rec.misc = misc;
			ev->rec.size = (uint16_t)raw.len;
			ev->rec.body = p + 8;
			ev->rec.body_len = raw.len - 8;
		} else if (type == PMS_RECORD_SAMPLE && r->lazy_samples && a->fixed.body &&
			   raw.len - 8 >= a->fixed.body && raw.len - 8 - a->fixed.body < 8) {
			/* lazy (reader_lazy.h): a body of fixed-size fields of
			 * its size parses whenever it is parsed */
			ev->rec.type = type;
			ev->rec.misc = misc;
			ev->rec.size = (uint16_t)raw.len;
			ev->rec.sample.present = 0;
			if (a->fixed.time_off)
				memcpy(&ev->rec.sample.time, p + a->fixed.time_off, 8);
		} else if (pms_record_parse(&a->layout, p, raw.len, &ev->rec) < 0) {
			note_skip(r, raw.off, raw.compressed, type);
			continue;
		}
		ev->raw = p;
		ev->raw_len = raw.len;
		ev->attr = &a->pub;
		ev->attr_idx = a == &r->dummy ? 0 : (size_t)(a - r->attrs);
		ev->file_offset = raw.off;
		ev->from_compressed = raw.compressed;
		ev->auxtrace = aux;
		ev->aux_data = aux_data;
		ev->aux_len = aux_len;
		ev->aux_pid = 0;
		ev->aux_tid = UINT32_MAX;
		if (type == PD_AUXTRACE) {
			r->stats.auxtrace_bytes += aux_len;
			pd_aux_task_of(r, ev);
		} else if (type == PMS_RECORD_AUX) {
			uint64_t fl = ev->rec.aux.flags;
			if ((rc = pd_aux_task_note(r, &ev->rec)) < 0)
				return rc;
			r->stats.aux_records++;
			r->stats.aux_truncated += !!(fl & PMS_AUX_FLAG_TRUNCATED);
			r->stats.aux_partial += !!(fl & PMS_AUX_FLAG_PARTIAL);
			r->stats.aux_collision += !!(fl & PMS_AUX_FLAG_COLLISION);
		}
		r->stats.records++;
		if (type < 128)
			r->stats.by_type[type]++;
		if (type == PMS_RECORD_SAMPLE) {
			r->stats.samples++;
		} else if (type == PMS_RECORD_LOST) {
			r->stats.lost += ev->rec.lost.lost;
		} else if (type == PMS_RECORD_LOST_SAMPLES) {
			r->stats.lost_samples += ev->rec.lost.lost;
		}
		return 1;
	}
}

/* A chunk's reader (pms_pd_reader_chunk) passes what is in its window. */
static bool in_window(const struct pms_perfdata_reader *r, const struct pms_perfdata_event *ev)
{
	if (ev->rec.type >= PMS_RECORD_USER_TYPE_START)
		return true;
	uint64_t t = pms_pd_rec_time(ev);
	if (!t || t == UINT64_MAX)
		return r->window_untimed;
	return t > r->wlo && t <= r->whi;
}

/* Order hint 2: whether ev keeps the data in perf's order as ordered.c's
 * look ahead (data_in_time_order) judges it; the first that does not ends
 * the reading. */
static inline bool order_time_kept(struct pms_perfdata_reader *r, uint64_t t)
{
	if (!t || t == UINT64_MAX) {
		r->order_untimed = true;
		return !r->order_timed;
	}
	if (r->order_timed && t < r->order_last)
		return false;
	if (!r->order_timed)
		r->order_first = t;
	r->order_timed = true;
	r->order_last = t;
	return true;
}

static bool order_kept(struct pms_perfdata_reader *r, const struct pms_perfdata_event *ev)
{
	if (ev->from_compressed || ev->rec.type == PD_FINISHED_ROUND || ev->rec.type == PD_AUXTRACE)
		return false;
	return order_time_kept(r, pms_pd_rec_time(ev));
}

int pms_perfdata_next(struct pms_perfdata_reader *r, struct pms_perfdata_event *ev)
{
	int rc;
	if (!r || !ev)
		return pms_err(PMS_EINVAL, "pms_perfdata_next: reader or event is NULL");
	if (r->order_broke)
		return 0;
	while ((rc = next_event(r, ev)) > 0 && r->window && !in_window(r, ev))
		;
	/* decoding over the caller's event: what it holds now (2: a plan's
	 * decode, kept by next_fast) */
	if (r->over_on && rc != 2)
		pms_pd_clean_after_read(&r->over, rc, ev);
	/* a plan's sample (rc 2) is neither compressed nor a round: its time */
	const struct pms_sample *x = &ev->rec.sample;
	if (rc > 0 && r->order_hint == 2 &&
	    !(rc == 2 ? order_time_kept(r, (x->present & PMS_SAMPLE_TIME) ? x->time : 0)
		      : order_kept(r, ev))) {
		r->order_broke = true;
		r->over.rec = NULL;
		return 0;
	}
	return rc > 0 ? 1 : rc;
}

/* A plan's SAMPLE next in a whole host-order buffer (what next_fast hands
 * out lazily): its attr, or NULL. */
static inline const struct rattr *plan_sample_next(struct pms_perfdata_reader *r, uint16_t *size)
{
	const struct rattr *a = r->window ? NULL : sample_next(r, size);
	if (!a || !a->fixed.body || *size - 8u < a->fixed.body || *size - 8u - a->fixed.body >= 8)
		return NULL;
	return a;
}

int pms_pd_reader_order_look(struct pms_perfdata_reader *r)
{
	struct pms_perfdata_event ev;
	int rc;
	r->order_hint = 2;
	r->lazy_samples = true;
	/* no attr of fixed-size fields (a call-chain file): no sample to
	 * look at in place */
	bool plans = false;
	for (size_t i = 0; i < r->nattrs; i++)
		plans |= r->attrs[i].fixed.body != 0;
	for (;;) {
		uint16_t size;
		const struct rattr *a;
		/* a plan's sample: its time read in place, as a lazy one's */
		while (plans && !r->order_broke && (a = plan_sample_next(r, &size))) {
			uint64_t t = 0;
			drop_read(r);
			if (a->fixed.time_off)
				memcpy(&t, r->buf + r->pos + a->fixed.time_off, 8);
			r->pos += size;
			r->stats.records++;
			r->stats.by_type[PMS_RECORD_SAMPLE]++;
			r->stats.samples++;
			if (!order_time_kept(r, t))
				r->order_broke = true;
		}
		if (r->order_broke)
			return 0;
		if ((rc = pms_perfdata_next(r, &ev)) <= 0)
			return rc < 0 ? rc : !r->order_broke;
	}
}

struct pms_pd_clean *pms_pd_reader_decode_over(struct pms_perfdata_reader *r)
{
	if (!r->over_on) {
		r->over_on = true;
		r->over.rec = NULL;
	}
	return &r->over;
}

void pms_pd_lazy_samples(struct pms_perfdata_reader *r, bool on)
{
	r->lazy_samples = on;
}

bool pms_pd_event_stable(const struct pms_perfdata_reader *r, const struct pms_perfdata_event *ev)
{
	uintptr_t p = (uintptr_t)ev->raw, b = (uintptr_t)r->buf;
	return !r->stream && r->buf && !ev->from_compressed && p >= b && p - b <= r->end &&
	       ev->raw_len <= r->end - (p - b);
}

void pms_pd_keep_from(struct pms_perfdata_reader *r, uint64_t off)
{
	r->keep = off != UINT64_MAX;
	r->keep_from = off;
}

const struct pms_sample_layout *pms_pd_attr_layout(const struct pms_perfdata_attr *a)
{
	/* every pms_perfdata_attr the reader hands out is a rattr's first
	 * member (its attrs and its dummy) */
	return &((const struct rattr *)(const void *)a)->layout;
}

int pms_pd_reader_twin(const struct pms_perfdata_reader *r, struct pms_perfdata_reader **out)
{
	int rc;
	*out = NULL;
	if (r->stream || !r->buf)
		return 0;
	if ((rc = pms_perfdata_reader_open_mem(r->buf, r->len, out)) < 0)
		return rc;
	/* a mapped file's pages given back as the twin reads past them (never
	 * a caller's memory: MADV_DONTNEED would zero it) */
	(*out)->drop_buf = r->map != NULL;
	return 1;
}


int pms_pd_decode_over(const struct pms_perfdata_attr *attr, const void *raw, size_t len,
		       struct pms_record *out, struct pms_pd_clean *c)
{
	/* every attr the reader hands out is a rattr (pms_pd_attr_layout) */
	const struct rattr *a = (const struct rattr *)(const void *)attr;
	uint32_t type;
	uint16_t size;
	memcpy(&type, raw, 4);
	memcpy(&size, (const unsigned char *)raw + 6, 2);
	if (type == PMS_RECORD_SAMPLE && a->fixed.body && size <= len && size >= 8 &&
	    size - 8u >= a->fixed.body && size - 8u - a->fixed.body < 8) {
		if (c->rec == out && c->sample_type == a->fixed.sample_type) {
			pms_sample_fixed_refill(&a->fixed, raw, out);
		} else {
			pms_sample_fixed_decode(&a->fixed, raw, out);
			c->rec = out;
			c->sample_type = a->fixed.sample_type;
		}
		return 0;
	}
	c->rec = NULL;
	return pms_record_parse(&a->layout, raw, len, out);
}

int pms_pd_decode(const struct pms_perfdata_attr *attr, const void *raw, size_t len,
		  struct pms_record *out)
{
	struct pms_pd_clean c = { NULL, 0 };
	return pms_pd_decode_over(attr, raw, len, out, &c);
}
