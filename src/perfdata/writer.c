/* perf.data writer: see include/pmuscope/perfdata.h for the layout.
 *
 * Everything is written in host byte order; readers detect the order from
 * the magic (tools/perf/util/header.c, check_magic_endian). */
#include "pmuscope/perfdata.h"

#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* struct perf_file_section (tools/perf/util/header.h). */
struct file_section {
	uint64_t offset;
	uint64_t size;
};

/* struct perf_file_header (tools/perf/util/header.h): 104 bytes. */
struct file_header {
	uint64_t magic;
	uint64_t size;      /* sizeof(struct file_header) */
	uint64_t attr_size; /* sizeof(attr) + sizeof(struct file_section) */
	struct file_section attrs;
	struct file_section data;
	struct file_section event_types; /* obsolete; left zero */
	uint64_t adds_features[PMS_PERFDATA_FEAT_MAX / 64];
};

_Static_assert(sizeof(struct file_header) == PMS_PERFDATA_HEADER_SIZE,
	       "perf_file_header is 104 bytes");

/* perf's NAME_ALIGN (tools/perf/util/header.h) for string features. */
#define STRING_ALIGN 64

struct wattr {
	struct perf_event_attr attr;
	uint64_t *ids;
	size_t nids;
};

struct feature {
	unsigned char *payload; /* NULL = not set */
	size_t len;
};

/* The header is rewritten (data.size brought up to date) each time this
 * many data bytes were added since the last rewrite: a file cut by SIGKILL
 * or a power cut then reads, with perf too, up to the last rewrite, and
 * pmuscope's reader recovers the records after it. */
#define SYNC_BYTES (UINT64_C(1) << 20)

struct pms_perfdata_writer {
	int fd;
	bool closed;
	struct wattr *attrs;
	size_t nattrs;
	uint64_t data_off;  /* 0 until the ids and attrs are on disk */
	uint64_t data_size; /* bytes of complete records */
	uint64_t synced;    /* data.size in the header on disk */
	uint64_t nrecords;
	int err;            /* first write failure, kept: see sticky() */
	char errmsg[512];
	struct feature feats[PMS_PERFDATA_FEAT_MAX];
};

/* Write all of buf at off; what names the section for the message. */
static int write_at(int fd, const void *buf, size_t len, uint64_t off, const char *what)
{
	const unsigned char *p = buf;
	while (len > 0) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return pms_err_errno(PMS_EIO, errno,
					     "perf.data: writing %s (%zu bytes at offset %" PRIu64 ")",
					     what, len, off);
		if (n == 0)
			return pms_err(PMS_EIO,
				       "perf.data: writing %s (%zu bytes at offset %" PRIu64
				       "): the fd accepted no bytes",
				       what, len, off);
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* A write failure is kept: every later call that writes returns it again,
 * with its message, so a caller that checks only close() still learns of
 * it, and never from a stale message. */
static int sticky(struct pms_perfdata_writer *w, int rc)
{
	if (rc < 0 && !w->err) {
		w->err = rc;
		snprintf(w->errmsg, sizeof(w->errmsg), "%s", pms_error_last());
	}
	return rc;
}

static int replay(const struct pms_perfdata_writer *w)
{
	return pms_err(w->err, "%s", w->errmsg);
}

int pms_perfdata_writer_open(int fd, struct pms_perfdata_writer **out)
{
	struct pms_perfdata_writer *w = NULL;
	static const unsigned char zero[PMS_PERFDATA_HEADER_SIZE];
	int r;

	if (!out)
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_open: out is NULL");
	*out = NULL;
	if (fd < 0)
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_open: fd %d is not an fd", fd);
	w = calloc(1, sizeof(*w));
	if (!w)
		return pms_err(PMS_ENOMEM, "perf.data writer: out of memory");
	w->fd = fd;
	/* Zeroed placeholder: a file left unfinished has no magic and no
	 * reader mistakes it for a complete one. */
	r = write_at(fd, zero, sizeof(zero), 0, "header placeholder");
	if (r < 0)
		goto out;
	*out = w;
	w = NULL;
out:
	pms_perfdata_writer_free(w);
	return r;
}

static int check_open(const struct pms_perfdata_writer *w, const char *fn)
{
	if (!w)
		return pms_err(PMS_EINVAL, "%s: writer is NULL", fn);
	if (w->closed)
		return pms_err(PMS_EINVAL, "%s: the writer is already closed", fn);
	return 0;
}

int pms_perfdata_writer_add_attr(struct pms_perfdata_writer *w,
				 const struct perf_event_attr *attr,
				 const uint64_t *ids, size_t nids)
{
	struct wattr *grown, *a;
	int r = check_open(w, "pms_perfdata_writer_add_attr");

	if (r < 0)
		return r;
	if (!attr || (nids && !ids))
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_add_attr: attr or ids is NULL");
	if (w->nrecords)
		return pms_err(PMS_EINVAL,
			       "pms_perfdata_writer_add_attr: attr %zu added after %" PRIu64
			       " records; add every attr before the first record",
			       w->nattrs, w->nrecords);
	if (nids > SIZE_MAX / sizeof(uint64_t))
		return pms_err(PMS_ERANGE, "pms_perfdata_writer_add_attr: %zu ids", nids);
	grown = realloc(w->attrs, (w->nattrs + 1) * sizeof(*grown));
	if (!grown)
		return pms_err(PMS_ENOMEM, "perf.data writer: out of memory for attr %zu",
			       w->nattrs);
	w->attrs = grown;
	a = &w->attrs[w->nattrs];
	memset(a, 0, sizeof(*a));
	if (nids) {
		a->ids = malloc(nids * sizeof(uint64_t));
		if (!a->ids)
			return pms_err(PMS_ENOMEM, "perf.data writer: out of memory for %zu ids",
				       nids);
		memcpy(a->ids, ids, nids * sizeof(uint64_t));
	}
	a->attr = *attr;
	a->attr.size = sizeof(struct perf_event_attr);
	a->nids = nids;
	w->nattrs++;
	return 0;
}

/* struct perf_file_attr: the attr, then the section holding its ids. */
struct file_attr {
	struct perf_event_attr attr;
	struct file_section ids;
};

static void header_init(const struct pms_perfdata_writer *w, struct file_header *fh)
{
	memset(fh, 0, sizeof(*fh));
	fh->magic = PMS_PERFDATA_MAGIC;
	fh->size = sizeof(*fh);
	fh->attr_size = sizeof(struct file_attr);
	fh->attrs.offset = w->data_off - w->nattrs * sizeof(struct file_attr);
	fh->attrs.size = w->nattrs * sizeof(struct file_attr);
	fh->data.offset = w->data_off;
	fh->data.size = w->data_size;
	/* Until close, the obsolete event_types section (perf ignores it)
	 * carries a mark that says the file is being written. */
	if (!w->closed)
		fh->event_types.offset = PMS_PERFDATA_UNFINISHED_MARK;
}

/* Lay the ids and attrs down right after the header, as perf does
 * (header.c, perf_session__do_write_header), and write a header that
 * makes the file readable from now on: data.size 0 and no features, which
 * perf reads as "not properly terminated" and pmuscope as unfinished. */
static int commit_attrs(struct pms_perfdata_writer *w)
{
	struct file_attr *fattrs = NULL;
	struct file_header fh;
	uint64_t off = PMS_PERFDATA_HEADER_SIZE;
	int r = 0;

	fattrs = calloc(w->nattrs, sizeof(*fattrs));
	if (!fattrs)
		return pms_err(PMS_ENOMEM, "perf.data writer: out of memory for attrs");
	for (size_t i = 0; i < w->nattrs; i++) {
		fattrs[i].attr = w->attrs[i].attr;
		fattrs[i].ids.offset = off;
		fattrs[i].ids.size = w->attrs[i].nids * sizeof(uint64_t);
		if (w->attrs[i].nids) {
			char what[48];
			snprintf(what, sizeof(what), "ids of attr %zu", i);
			r = write_at(w->fd, w->attrs[i].ids, fattrs[i].ids.size, off, what);
			if (r < 0)
				goto out;
		}
		off += fattrs[i].ids.size;
	}
	r = write_at(w->fd, fattrs, w->nattrs * sizeof(*fattrs), off, "attrs");
	if (r < 0)
		goto out;
	w->data_off = off + w->nattrs * sizeof(*fattrs);
	header_init(w, &fh);
	fh.data.size = 0;
	r = write_at(w->fd, &fh, sizeof(fh), 0, "header");
	if (r < 0)
		w->data_off = 0;
out:
	free(fattrs);
	return sticky(w, r);
}

int pms_perfdata_writer_sync(struct pms_perfdata_writer *w)
{
	struct file_header fh;
	int r = check_open(w, "pms_perfdata_writer_sync");

	if (r < 0)
		return r;
	if (w->err)
		return replay(w);
	if (w->nattrs == 0)
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_sync: no attr added; add the events first");
	if (!w->data_off)
		return commit_attrs(w);
	header_init(w, &fh);
	r = write_at(w->fd, &fh, sizeof(fh), 0, "header");
	if (r < 0)
		return sticky(w, r);
	w->synced = w->data_size;
	return 0;
}

int pms_perfdata_writer_write(struct pms_perfdata_writer *w, const void *record, size_t len)
{
	struct perf_event_header h;
	int r = check_open(w, "pms_perfdata_writer_write");

	if (r < 0)
		return r;
	if (!record)
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_write: record is NULL");
	if (w->nattrs == 0)
		return pms_err(PMS_EINVAL,
			       "pms_perfdata_writer_write: no attr added; add the events first");
	if (len < sizeof(h) || len % 8 != 0)
		return pms_err(PMS_EINVAL,
			       "pms_perfdata_writer_write: record %" PRIu64 " is %zu bytes; "
			       "records are at least 8 bytes and a multiple of 8",
			       w->nrecords, len);
	memcpy(&h, record, sizeof(h));
	if (h.size != len)
		return pms_err(PMS_EINVAL,
			       "pms_perfdata_writer_write: record %" PRIu64
			       " (type %" PRIu32 ") has header.size %u but %zu bytes were given",
			       w->nrecords, h.type, (unsigned)h.size, len);
	if (w->err)
		return replay(w);
	if (!w->data_off && (r = commit_attrs(w)) < 0)
		return r;
	if (w->data_size > UINT64_MAX - w->data_off - len)
		return pms_err(PMS_ERANGE, "pms_perfdata_writer_write: data section too large");
	{
		char what[64];
		snprintf(what, sizeof(what), "data section record %" PRIu64, w->nrecords);
		r = write_at(w->fd, record, len, w->data_off + w->data_size, what);
	}
	if (r < 0)
		return sticky(w, r);
	w->data_size += len;
	w->nrecords++;
	if (w->data_size - w->synced >= SYNC_BYTES)
		return pms_perfdata_writer_sync(w);
	return 0;
}

/* A record with the sample_id trailer attr 0 asks for (sample_id_all):
 * TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER (uapi perf_event.h, struct
 * sample_id), zero but for the ids.  body is len bytes after the header. */
static int write_accounting(struct pms_perfdata_writer *w, uint32_t type, const void *body,
			    size_t len, uint64_t id)
{
	unsigned char rec[64];
	struct perf_event_header h;
	size_t n = sizeof(h) + len;
	int r = check_open(w, "pms_perfdata_writer_lost");

	if (r < 0)
		return r;
	if (w->nattrs == 0)
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_lost: no attr added; add the events first");
	memcpy(rec + sizeof(h), body, len);
	if (w->attrs[0].attr.sample_id_all) {
		uint64_t st = w->attrs[0].attr.sample_type;
		const uint64_t bits[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
					  PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
					  PERF_SAMPLE_IDENTIFIER };
		for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
			uint64_t v = 0;
			if (!(st & bits[i]))
				continue;
			if (bits[i] == PERF_SAMPLE_ID || bits[i] == PERF_SAMPLE_IDENTIFIER)
				v = id;
			memcpy(rec + n, &v, 8);
			n += 8;
		}
	}
	memset(&h, 0, sizeof(h));
	h.type = type;
	h.size = (uint16_t)n;
	memcpy(rec, &h, sizeof(h));
	return pms_perfdata_writer_write(w, rec, n);
}

int pms_perfdata_writer_lost(struct pms_perfdata_writer *w, uint64_t id, uint64_t lost)
{
	uint64_t body[2] = { id, lost };
	return write_accounting(w, PERF_RECORD_LOST, body, sizeof(body), id);
}

int pms_perfdata_writer_lost_samples(struct pms_perfdata_writer *w, uint64_t lost)
{
	return write_accounting(w, PERF_RECORD_LOST_SAMPLES, &lost, sizeof(lost), 0);
}

int pms_perfdata_writer_set_feature(struct pms_perfdata_writer *w, unsigned feat,
				    const void *payload, size_t len)
{
	unsigned char *copy;
	int r = check_open(w, "pms_perfdata_writer_set_feature");

	if (r < 0)
		return r;
	/* Bit 0 is HEADER_RESERVED and bit 1 TRACING_DATA, whose payload perf
	 * reads from outside the table; neither is a plain byte blob. */
	if (feat < 2 || feat >= PMS_PERFDATA_FEAT_MAX)
		return pms_err(PMS_EINVAL,
			       "pms_perfdata_writer_set_feature: feature %u is not one this "
			       "writer can store (2..%d)",
			       feat, PMS_PERFDATA_FEAT_MAX - 1);
	if (!payload && len)
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_set_feature: payload is NULL");
	copy = malloc(len ? len : 1);
	if (!copy)
		return pms_err(PMS_ENOMEM, "perf.data writer: out of memory for feature %u",
			       feat);
	if (len)
		memcpy(copy, payload, len);
	free(w->feats[feat].payload);
	w->feats[feat].payload = copy;
	w->feats[feat].len = len;
	return 0;
}

int pms_perfdata_writer_set_string(struct pms_perfdata_writer *w, unsigned feat,
				   const char *s)
{
	unsigned char *buf;
	size_t slen, padded;
	uint32_t len32;
	int r;

	if (!s)
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_set_string: string is NULL");
	slen = strlen(s) + 1;
	if (slen > UINT32_MAX - STRING_ALIGN)
		return pms_err(PMS_ERANGE, "pms_perfdata_writer_set_string: string too long");
	padded = (slen + STRING_ALIGN - 1) / STRING_ALIGN * STRING_ALIGN;
	buf = calloc(1, sizeof(len32) + padded);
	if (!buf)
		return pms_err(PMS_ENOMEM, "perf.data writer: out of memory for feature %u",
			       feat);
	len32 = (uint32_t)padded;
	memcpy(buf, &len32, sizeof(len32));
	memcpy(buf + sizeof(len32), s, slen);
	r = pms_perfdata_writer_set_feature(w, feat, buf, sizeof(len32) + padded);
	free(buf);
	return r;
}

int pms_perfdata_writer_set_nrcpus(struct pms_perfdata_writer *w, uint32_t online,
				   uint32_t avail)
{
	/* header.c write_nrcpus: nr_cpus_avail first, then nr_cpus_online. */
	uint32_t v[2] = { avail, online };
	return pms_perfdata_writer_set_feature(w, PMS_PERFDATA_FEAT_NRCPUS, v, sizeof(v));
}

uint64_t pms_perfdata_writer_records(const struct pms_perfdata_writer *w)
{
	return w ? w->nrecords : 0;
}

uint64_t pms_perfdata_writer_data_size(const struct pms_perfdata_writer *w)
{
	return w ? w->data_size : 0;
}

uint64_t pms_perfdata_writer_next_offset(const struct pms_perfdata_writer *w)
{
	return w && w->data_off ? w->data_off + w->data_size : 0;
}

/* Feature table: one {offset,size} per set bit, in bit order, at the end of
 * the data section; the payloads follow the table. Returns the end offset in
 * *end. */
static int write_features(struct pms_perfdata_writer *w, struct file_header *fh,
			  uint64_t *end)
{
	struct file_section *table = NULL;
	size_t n = 0, i = 0;
	uint64_t table_off = fh->data.offset + fh->data.size, off;
	int r = 0;

	for (unsigned f = 0; f < PMS_PERFDATA_FEAT_MAX; f++)
		if (w->feats[f].payload)
			n++;
	*end = table_off;
	if (n == 0)
		return 0;
	table = calloc(n, sizeof(*table));
	if (!table)
		return pms_err(PMS_ENOMEM, "perf.data writer: out of memory for the feature table");
	off = table_off + n * sizeof(*table);
	for (unsigned f = 0; f < PMS_PERFDATA_FEAT_MAX; f++) {
		char what[40];
		if (!w->feats[f].payload)
			continue;
		fh->adds_features[f / 64] |= UINT64_C(1) << (f % 64);
		table[i].offset = off;
		table[i].size = w->feats[f].len;
		snprintf(what, sizeof(what), "feature %u payload", f);
		r = write_at(w->fd, w->feats[f].payload, w->feats[f].len, off, what);
		if (r < 0)
			goto out;
		off += w->feats[f].len;
		i++;
	}
	r = write_at(w->fd, table, n * sizeof(*table), table_off, "feature table");
	if (r < 0)
		goto out;
	*end = off;
out:
	free(table);
	return r;
}

int pms_perfdata_writer_close(struct pms_perfdata_writer *w)
{
	struct file_header fh;
	uint64_t off;
	int r = check_open(w, "pms_perfdata_writer_close");

	if (r < 0)
		return r;
	if (w->nattrs == 0) {
		w->closed = true;
		return pms_err(PMS_EINVAL,
			       "pms_perfdata_writer_close: no attr added; perf cannot read a "
			       "file without events");
	}
	if (!w->data_off && !w->err && (r = commit_attrs(w)) < 0) {
		w->closed = true;
		return r;
	}
	w->closed = true;
	if (!w->data_off)
		return replay(w);
	/* After a failed write (a full disk) the records written before it
	 * are still made readable: features if they fit, then the header with
	 * the data that is complete; the first failure is what is returned. */
	header_init(w, &fh);
	r = write_features(w, &fh, &off);
	if (r < 0) {
		/* no features: the data stays readable, and readers are told
		 * the file is not whole */
		(void)sticky(w, r);
		header_init(w, &fh);
		fh.event_types.offset = PMS_PERFDATA_UNFINISHED_MARK;
	}
	r = write_at(w->fd, &fh, sizeof(fh), 0, "header");
	if (r < 0)
		(void)sticky(w, r);
	return w->err ? replay(w) : 0;
}

void pms_perfdata_writer_free(struct pms_perfdata_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nattrs; i++)
		free(w->attrs[i].ids);
	free(w->attrs);
	for (unsigned f = 0; f < PMS_PERFDATA_FEAT_MAX; f++)
		free(w->feats[f].payload);
	free(w);
}

/* ---- structured features ------------------------------------------------- */

/* A growing byte buffer for feature payloads. */
struct wbuf {
	unsigned char *b;
	size_t n, cap;
	bool oom;
};

static void wb_put(struct wbuf *wb, const void *p, size_t n)
{
	if (wb->oom)
		return;
	if (wb->n + n > wb->cap) {
		size_t ncap = wb->cap ? wb->cap : 256;
		unsigned char *nb;
		while (ncap < wb->n + n)
			ncap *= 2;
		nb = realloc(wb->b, ncap);
		if (!nb) {
			wb->oom = true;
			return;
		}
		wb->b = nb;
		wb->cap = ncap;
	}
	memcpy(wb->b + wb->n, p, n);
	wb->n += n;
}

static void wb_u32(struct wbuf *wb, uint32_t v)
{
	wb_put(wb, &v, 4);
}

static void wb_u64(struct wbuf *wb, uint64_t v)
{
	wb_put(wb, &v, 8);
}

/* do_write_string: u32 len (NUL included, rounded up to 64), then the bytes. */
static void wb_str(struct wbuf *wb, const char *s)
{
	static const unsigned char zero[STRING_ALIGN];
	size_t slen = strlen(s ? s : "") + 1;
	size_t padded = (slen + STRING_ALIGN - 1) / STRING_ALIGN * STRING_ALIGN;
	wb_u32(wb, (uint32_t)padded);
	wb_put(wb, s ? s : "", slen);
	wb_put(wb, zero, padded - slen);
}

static int wb_finish(struct pms_perfdata_writer *w, unsigned feat, struct wbuf *wb)
{
	int r;
	if (wb->oom) {
		free(wb->b);
		return pms_err(PMS_ENOMEM, "perf.data writer: out of memory for feature %u", feat);
	}
	r = pms_perfdata_writer_set_feature(w, feat, wb->b, wb->n);
	free(wb->b);
	return r;
}

int pms_perfdata_writer_set_numa_topology(struct pms_perfdata_writer *w,
					  const struct pms_perfdata_numa_node *nodes, size_t n)
{
	struct wbuf wb = { 0 };
	if (n && !nodes)
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_set_numa_topology: nodes is NULL");
	wb_u32(&wb, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		wb_u32(&wb, nodes[i].node);
		wb_u64(&wb, nodes[i].mem_total_kb);
		wb_u64(&wb, nodes[i].mem_free_kb);
		wb_str(&wb, nodes[i].cpus);
	}
	return wb_finish(w, PMS_PERFDATA_FEAT_NUMA_TOPOLOGY, &wb);
}

int pms_perfdata_writer_set_mem_topology(struct pms_perfdata_writer *w, uint64_t block_size,
					 const struct pms_perfdata_mem_node *nodes, size_t n)
{
	struct wbuf wb = { 0 };
	if (n && !nodes)
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_set_mem_topology: nodes is NULL");
	wb_u64(&wb, 1); /* version */
	wb_u64(&wb, block_size);
	wb_u64(&wb, n);
	for (size_t i = 0; i < n; i++) {
		if (nodes[i].nbits && !nodes[i].bitmap) {
			free(wb.b);
			return pms_err(PMS_EINVAL,
				       "pms_perfdata_writer_set_mem_topology: node %zu has no bitmap", i);
		}
		wb_u64(&wb, nodes[i].node);
		wb_u64(&wb, nodes[i].nbits);
		wb_u64(&wb, nodes[i].nbits);
		wb_put(&wb, nodes[i].bitmap, (size_t)((nodes[i].nbits + 63) / 64) * 8);
	}
	return wb_finish(w, PMS_PERFDATA_FEAT_MEM_TOPOLOGY, &wb);
}

int pms_perfdata_writer_set_pmu_mappings(struct pms_perfdata_writer *w,
					 const struct pms_perfdata_pmu_map *pmus, size_t n)
{
	struct wbuf wb = { 0 };
	if (n && !pmus)
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_set_pmu_mappings: pmus is NULL");
	wb_u32(&wb, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		wb_u32(&wb, pmus[i].type);
		wb_str(&wb, pmus[i].name);
	}
	return wb_finish(w, PMS_PERFDATA_FEAT_PMU_MAPPINGS, &wb);
}

/* perf files a build id under a kernel DSO ([kernel.kallsyms], modules)
 * when misc says KERNEL (header.c, __event_process_build_id). */
static bool kernel_dso(const char *f)
{
	size_t n = strlen(f);
	return !strncmp(f, "[kernel", 7) || (n > 3 && !strcmp(f + n - 3, ".ko")) ||
	       strstr(f, ".ko.") != NULL;
}

int pms_perfdata_writer_add_build_id(struct pms_perfdata_writer *w, int32_t pid,
				     const uint8_t *id, uint8_t size, const char *filename)
{
	struct feature *f;
	struct wbuf wb = { 0 };
	unsigned char idb[24] = { 0 };
	size_t flen, padded;
	struct perf_event_header h;
	static const unsigned char zero[8];
	int r = check_open(w, "pms_perfdata_writer_add_build_id");

	if (r < 0)
		return r;
	if (!id || !filename || size > 20)
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_add_build_id: id or filename "
					   "is NULL, or size %u > 20", size);
	flen = strlen(filename) + 1;
	padded = (flen + 7) / 8 * 8;
	if (36 + padded > UINT16_MAX)
		return pms_err(PMS_ERANGE, "pms_perfdata_writer_add_build_id: filename too long");
	f = &w->feats[PMS_PERFDATA_FEAT_BUILD_ID];
	if (f->payload)
		wb_put(&wb, f->payload, f->len);
	memcpy(idb, id, size);
	idb[20] = size;
	/* header.type is PERF_RECORD_HEADER_BUILD_ID; misc carries
	 * PERF_RECORD_MISC_BUILD_ID_SIZE (bit 15) so the size byte is read. */
	h.type = 67;
	h.misc = (uint16_t)((kernel_dso(filename) ? PERF_RECORD_MISC_KERNEL
						  : PERF_RECORD_MISC_USER) | (1u << 15));
	h.size = (uint16_t)(36 + padded);
	wb_put(&wb, &h, sizeof(h));
	wb_put(&wb, &pid, 4);
	wb_put(&wb, idb, sizeof(idb));
	wb_put(&wb, filename, flen);
	wb_put(&wb, zero, padded - flen);
	return wb_finish(w, PMS_PERFDATA_FEAT_BUILD_ID, &wb);
}

int pms_perfdata_writer_set_pmu_caps(struct pms_perfdata_writer *w, const char *pmu,
				     const struct pms_perfdata_str_pair *caps, size_t ncaps)
{
	struct wbuf wb = { 0 };
	if (!pmu || (ncaps && !caps))
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_set_pmu_caps: pmu or caps is NULL");
	for (size_t i = 0; i < ncaps; i++)
		if (!caps[i].a || !caps[i].b)
			return pms_err(PMS_EINVAL,
				       "pms_perfdata_writer_set_pmu_caps: cap %zu has a NULL name "
				       "or value", i);
	wb_u32(&wb, 1);
	wb_u32(&wb, (uint32_t)ncaps);
	for (size_t i = 0; i < ncaps; i++) {
		wb_str(&wb, caps[i].a);
		wb_str(&wb, caps[i].b);
	}
	wb_str(&wb, pmu);
	return wb_finish(w, PMS_PERFDATA_FEAT_PMU_CAPS, &wb);
}

/* ---- AUX traces ---------------------------------------------------------- */

/* Append len bytes to the data section as part of record number w->nrecords
 * (no header check: AUXTRACE payloads follow their record). */
/* Bytes of one record into the data section, where pms_perfdata_writer_write
 * puts records (after the attrs, which go down with the first record), with
 * its kept-failure rule; the caller counts the record. */
static int append_data(struct pms_perfdata_writer *w, const void *p, size_t len)
{
	char what[64];
	int r;
	if (w->err)
		return replay(w);
	if (!w->data_off && (r = commit_attrs(w)) < 0)
		return r;
	if (w->data_size > UINT64_MAX - w->data_off - len)
		return pms_err(PMS_ERANGE, "perf.data writer: data section too large");
	snprintf(what, sizeof(what), "data section record %" PRIu64, w->nrecords);
	r = write_at(w->fd, p, len, w->data_off + w->data_size, what);
	if (r < 0)
		return sticky(w, r);
	w->data_size += len;
	return 0;
}

int pms_perfdata_writer_write_auxtrace_info(struct pms_perfdata_writer *w, uint32_t type,
					    const uint64_t *priv, size_t npriv)
{
	unsigned char *buf;
	size_t len;
	struct perf_event_header h;
	uint32_t reserved = 0;
	int r = check_open(w, "pms_perfdata_writer_write_auxtrace_info");

	if (r < 0)
		return r;
	if (npriv && !priv)
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_write_auxtrace_info: priv is NULL");
	if (npriv > (UINT16_MAX - 16) / 8)
		return pms_err(PMS_ERANGE,
			       "pms_perfdata_writer_write_auxtrace_info: %zu priv words do not fit "
			       "a record (at most %d)", npriv, (UINT16_MAX - 16) / 8);
	len = 16 + npriv * 8;
	buf = malloc(len);
	if (!buf)
		return pms_err(PMS_ENOMEM, "perf.data writer: out of memory");
	h.type = PMS_PERFDATA_RECORD_AUXTRACE_INFO;
	h.misc = 0;
	h.size = (uint16_t)len;
	memcpy(buf, &h, 8);
	memcpy(buf + 8, &type, 4);
	memcpy(buf + 12, &reserved, 4);
	if (npriv)
		memcpy(buf + 16, priv, npriv * 8);
	r = pms_perfdata_writer_write(w, buf, len);
	free(buf);
	return r;
}

int pms_perfdata_writer_write_time_conv(struct pms_perfdata_writer *w,
					const struct pms_spe_time_conv *tc)
{
	unsigned char buf[56];
	struct perf_event_header h;
	uint64_t v[5];

	if (!tc)
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_write_time_conv: tc is NULL");
	h.type = PMS_PERFDATA_RECORD_TIME_CONV;
	h.misc = 0;
	h.size = sizeof(buf);
	v[0] = tc->time_shift;
	v[1] = tc->time_mult;
	v[2] = tc->time_zero;
	v[3] = tc->time_cycles;
	v[4] = tc->time_mask;
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &h, 8);
	memcpy(buf + 8, v, sizeof(v));
	buf[48] = tc->cap_user_time_zero;
	buf[49] = tc->cap_user_time_short;
	return pms_perfdata_writer_write(w, buf, sizeof(buf));
}

int pms_perfdata_writer_write_auxtrace(struct pms_perfdata_writer *w,
				       const struct pms_perfdata_auxtrace *a, const void *data,
				       size_t len)
{
	static const unsigned char zero[8];
	unsigned char rec[48];
	struct perf_event_header h;
	uint64_t padded;
	uint32_t reserved = 0;
	int r = check_open(w, "pms_perfdata_writer_write_auxtrace");

	if (r < 0)
		return r;
	if (!a || (len && !data))
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_write_auxtrace: a or data is NULL");
	if (len > UINT64_MAX - 8)
		return pms_err(PMS_ERANGE, "pms_perfdata_writer_write_auxtrace: %zu bytes", len);
	padded = ((uint64_t)len + 7) & ~UINT64_C(7);
	h.type = PMS_PERFDATA_RECORD_AUXTRACE;
	h.misc = 0;
	h.size = sizeof(rec);
	memcpy(rec, &h, 8);
	memcpy(rec + 8, &padded, 8);
	memcpy(rec + 16, &a->offset, 8);
	memcpy(rec + 24, &a->reference, 8);
	memcpy(rec + 32, &a->idx, 4);
	memcpy(rec + 36, &a->tid, 4);
	memcpy(rec + 40, &a->cpu, 4);
	memcpy(rec + 44, &reserved, 4);
	if (w->nattrs == 0)
		return pms_err(PMS_EINVAL, "pms_perfdata_writer_write_auxtrace: no attr added; "
					   "add the events first");
	/* The record, then its payload: both belong to record nrecords. */
	if ((r = append_data(w, rec, sizeof(rec))) < 0)
		return r;
	if (len && (r = append_data(w, data, len)) < 0)
		return r;
	if (padded > len && (r = append_data(w, zero, (size_t)(padded - len))) < 0)
		return r;
	w->nrecords++;
	if (w->data_size - w->synced >= SYNC_BYTES)
		return pms_perfdata_writer_sync(w);
	return 0;
}
