/* Internal: bounds-checked cursor over one record, and a two-pass writer
 * (measure with p == NULL, then write), shared by record.c and
 * record_sample.c. */
#ifndef PMS_DECODE_RECORD_IO_H
#define PMS_DECODE_RECORD_IO_H

#include "pmuscope/record.h"
#include "util/error.h"

#include <stdint.h>
#include <string.h>

/* A reader never looks at bytes at or past `end`, which is
 * min(len, header.size). */
struct pms_rd {
	const unsigned char *p;
	size_t pos, end;
	uint32_t type; /* the record's type: its name (pms_rd_what) for messages */
};

/* "PERF_RECORD_SAMPLE" ...: looked up only for a message, not per record. */
static inline const char *pms_rd_what(const struct pms_rd *r)
{
	return pms_record_type_name(r->type);
}

/* Fail on field `field` at the current position needing `need` bytes. */
static inline int pms_rd_short(const struct pms_rd *r, const char *field, uint64_t need)
{
	return pms_err(PMS_EPARSE,
		       "%s: field %s at byte offset %zu needs %llu bytes but the record "
		       "ends at offset %zu (truncated record, or a layout - sample_type, "
		       "read_format, branch_sample_type, regs masks - other than the one "
		       "it was written with)",
		       pms_rd_what(r), field, r->pos, (unsigned long long)need, r->end);
}

static inline int pms_rd_take(struct pms_rd *r, const char *field, uint64_t n,
			      const void **ptr)
{
	if (n > r->end - r->pos)
		return pms_rd_short(r, field, n);
	if (ptr)
		*ptr = r->p + r->pos;
	r->pos += (size_t)n;
	return 0;
}

/* count elements of elem bytes, refusing counts whose size would overflow. */
static inline int pms_rd_array(struct pms_rd *r, const char *field, uint64_t count,
			       size_t elem, const void **ptr)
{
	if (count > (r->end - r->pos) / elem)
		return pms_err(PMS_EPARSE,
			       "%s: field %s at byte offset %zu: %llu entries of %zu bytes "
			       "do not fit in the %zu bytes left in the record",
			       pms_rd_what(r), field, r->pos, (unsigned long long)count, elem,
			       r->end - r->pos);
	return pms_rd_take(r, field, count * elem, ptr);
}

static inline int pms_rd_u64(struct pms_rd *r, const char *field, uint64_t *v)
{
	const void *p = NULL;
	int rc = pms_rd_take(r, field, 8, &p);
	if (rc == 0)
		memcpy(v, p, 8);
	return rc;
}

static inline int pms_rd_u32(struct pms_rd *r, const char *field, uint32_t *v)
{
	const void *p = NULL;
	int rc = pms_rd_take(r, field, 4, &p);
	if (rc == 0)
		memcpy(v, p, 4);
	return rc;
}

static inline int pms_rd_u32x2(struct pms_rd *r, const char *field, uint32_t *a,
			       uint32_t *b)
{
	const void *p = NULL;
	int rc = pms_rd_take(r, field, 8, &p);
	if (rc == 0) {
		memcpy(a, p, 4);
		memcpy(b, (const unsigned char *)p + 4, 4);
	}
	return rc;
}

/* Writer limit: anything past this cannot be a record (header.size is u16). */
#define PMS_WR_LIMIT 65536u

struct pms_wr {
	unsigned char *p; /* NULL while measuring */
	size_t pos;
	int too_big;
};

static inline void pms_wr_bytes(struct pms_wr *w, const void *src, uint64_t n)
{
	if (w->too_big || n > PMS_WR_LIMIT - w->pos) {
		w->too_big = 1;
		return;
	}
	if (w->p && n)
		memcpy(w->p + w->pos, src, (size_t)n);
	w->pos += (size_t)n;
}

static inline void pms_wr_zero(struct pms_wr *w, uint64_t n)
{
	if (w->too_big || n > PMS_WR_LIMIT - w->pos) {
		w->too_big = 1;
		return;
	}
	if (w->p && n)
		memset(w->p + w->pos, 0, (size_t)n);
	w->pos += (size_t)n;
}

static inline void pms_wr_u64(struct pms_wr *w, uint64_t v)
{
	pms_wr_bytes(w, &v, 8);
}

static inline void pms_wr_u32(struct pms_wr *w, uint32_t v)
{
	pms_wr_bytes(w, &v, 4);
}

static inline void pms_wr_u16(struct pms_wr *w, uint16_t v)
{
	pms_wr_bytes(w, &v, 2);
}

/* count elements of elem bytes from src (already checked non-NULL if count). */
static inline void pms_wr_array(struct pms_wr *w, const void *src, uint64_t count,
				size_t elem)
{
	if (count > PMS_WR_LIMIT / elem) {
		w->too_big = 1;
		return;
	}
	pms_wr_bytes(w, src, count * elem);
}

/* Start a record: header with size 0, patched by pms_wr_finish. */
static inline void pms_wr_header(struct pms_wr *w, uint32_t type, uint16_t misc)
{
	pms_wr_u32(w, type);
	pms_wr_u16(w, misc);
	pms_wr_u16(w, 0);
}

/* Pad to 8 and patch header.size (write pass only). */
static inline void pms_wr_finish(struct pms_wr *w)
{
	pms_wr_zero(w, (8 - (w->pos & 7)) & 7);
	if (w->p && !w->too_big) {
		uint16_t sz = (uint16_t)w->pos;
		memcpy(w->p + 6, &sz, 2);
	}
}

/* The C library's memset, called through a pointer the compiler cannot
 * see through: for the hundred or few hundred bytes cleared per record
 * (a sample, a memory sample) gcc inlines `rep stos`, whose start-up
 * cost more than the library's vector stores (the bench file's report
 * --no-symbols took 15 % longer). */
extern void *(*const volatile pms_rd_clear)(void *, int, size_t);

/* Common header checks; sets up r over min(len, header.size). */
int pms_rd_open(struct pms_rd *r, const void *rec, size_t len, uint32_t *type,
		uint16_t *misc, uint16_t *size);

/* A SAMPLE's body after pms_rd_open (pms_sample_parse's rules): record.c
 * decodes the header once and hands the cursor on. */
int pms_sample_parse_rd(const struct pms_sample_layout *l, struct pms_rd *r, uint16_t misc,
			struct pms_sample *out);

/* A SAMPLE layout whose fields are all of fixed size and known to the
 * decoder (the layouts of PEBS/IBS/SPE load-latency files): where each
 * 8-byte word of the body goes in struct pms_sample, worked out once per
 * layout, so that such a sample decodes with a copy a word.  body: the
 * body's size (0: the layout has a field of variable size or bits the
 * decoder does not know; a body of that size, plus at most 7 bytes of
 * padding, always parses); time_off: the byte offset of TIME in the
 * record (0: none). */
#define PMS_SAMPLE_FIXED_MAX 18
struct pms_sample_fixed {
	uint64_t sample_type;
	size_t body, time_off;
	unsigned n;    /* words */
	bool weight;   /* one word is the weight: its WEIGHT_STRUCT views too */
	uint16_t dst[PMS_SAMPLE_FIXED_MAX]; /* word i: its offset in struct pms_sample */
};
/* The plan of layout l (out->body 0: not such a layout); the perf.data
 * reader's lazy samples (perfdata/reader_lazy.h). */
void pms_sample_fixed_layout(const struct pms_sample_layout *l, struct pms_sample_fixed *out);
/* Decode the SAMPLE at rec by plan f (f->body != 0): what pms_record_parse
 * gives for it, without its checks; the caller has checked that the
 * record's header.size is 8 + f->body plus at most 7. */
void pms_sample_fixed_decode(const struct pms_sample_fixed *f, const void *rec,
			     struct pms_record *out);
/* The same into an out that holds nothing but a decode by a plan of the
 * same sample_type (pms_sample_fixed_decode's, or this): only what the
 * plan sets is written (every other byte is zero already), without the
 * clear of the whole record. */
void pms_sample_fixed_refill(const struct pms_sample_fixed *f, const void *rec,
			     struct pms_record *out);

/* read_format values (shared by SAMPLE and READ records). */
int pms_rd_read_format(struct pms_rd *r, uint64_t read_format, struct pms_sample_read *out);
int pms_wr_read_format(struct pms_wr *w, uint64_t read_format,
		       const struct pms_sample_read *in);

#endif
