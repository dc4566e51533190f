/* Internal: the perf.data reader's state, shared by reader.c (sections,
 * records, compression), reader_user.c (perf-tool records, accessors),
 * features.c (header features) and swap.c (foreign byte order). */
#ifndef PMS_PERFDATA_READER_INT_H
#define PMS_PERFDATA_READER_INT_H

#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"
#include "decode/record_io.h"
#include "perfdata/reader_lazy.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* perf-tool record types (tools/lib/perf/include/perf/event.h). */
#define PD_HEADER_ATTR 64
#define PD_HEADER_EVENT_TYPE 65
#define PD_HEADER_TRACING_DATA 66
#define PD_HEADER_BUILD_ID 67
#define PD_FINISHED_ROUND 68
#define PD_ID_INDEX 69
#define PD_AUXTRACE_INFO 70
#define PD_AUXTRACE 71
#define PD_TIME_CONV 79
#define PD_HEADER_FEATURE 80
#define PD_COMPRESSED 81
#define PD_COMPRESSED2 83

/* PERF_ATTR_SIZE_VER0: the smallest attr perf accepts. */
#define PD_ATTR_VER0 64

struct rattr {
	struct pms_perfdata_attr pub;
	struct perf_event_attr attr;
	uint64_t *ids;
	struct pms_sample_layout layout;
	char *name;
	/* lazy samples (reader_lazy.h): the layout's plan when its fields
	 * are all of fixed size (fixed.body 0: a field of variable size or
	 * bits the decoder does not know) */
	struct pms_sample_fixed fixed;
};

/* A block of memory freed with the reader. */
struct arena_blk {
	struct arena_blk *next;
	max_align_t data[];
};

/* id -> attr index, open addressing (key 0 is stored apart: ids may be 0). */
struct idmap {
	uint64_t *keys;
	uint32_t *vals; /* attr index + 1; 0 = empty slot */
	size_t cap, n;
};

struct pms_perfdata_reader {
	uint64_t alloc_off, alloc_len; /* PMS_PERFDATA_FEAT_PMUSCOPE_ALLOC's payload */
	/* Source: a whole buffer (memory or mapped file), or a stream fd. */
	const unsigned char *buf;
	size_t len;
	void *map;
	size_t map_len;
	uint64_t dropped; /* mapped bytes before this were given back */
	/* reader_lazy.h: mapped bytes from keep_from on are kept (records
	 * held by pointer) */
	bool keep;
	uint64_t keep_from;
	bool drop_buf; /* a twin over a mapped file's buffer: gives back as map does */
	int fd;
	bool stream, stream_eof;
	uint64_t stream_pos;

	bool pipe, swap;
	uint64_t attr_size;
	uint64_t pos, end; /* next record and end of the data (buffer modes) */

	unsigned char *rbuf; /* one record (stream reads, swapped copies) */
	size_t rcap;
	unsigned char *abuf; /* AUXTRACE trace bytes read from a stream */
	/* per CPU: the task of its last PERF_RECORD_AUX (event.aux_pid/tid) */
	struct aux_task { bool valid; uint32_t pid, tid; } *aux_task;
	size_t naux_task;
	size_t acap;

	struct rattr *attrs;
	size_t nattrs;
	struct idmap ids;
	struct rattr dummy; /* for records before any attr (pipe mode) */

	struct pms_perfdata_info info;
	struct arena_blk *arena;

	/* Decompressed records of COMPRESSED, with what is left over from the
	 * previous one (records may straddle two). */
	void *zds;
	unsigned char *dbuf;
	size_t dlen, dpos, dcap;
	uint64_t comp_off;

	struct pms_perfdata_stats stats;
	char skipmsg[512];
	bool stopped; /* a COMPRESSED record failed: no record after it is read */
	bool lazy_samples; /* reader_lazy.h */
	/* reader_lazy.h pms_pd_reader_decode_over: a plan's sample decoded
	 * here over the caller's one event, which over describes */
	bool over_on;
	struct pms_pd_clean over;
	/* What was skipped or found corrupt, in file order (the first
	 * PD_MAX_PROBLEMS kept; nproblems_all counts all). */
	const char **problems;
	size_t nproblems, nproblems_all;
	bool any_phys;
	char nodes_why[200];
	/* records of unknown type, by type, not yet said (reader_check.c) */
	struct { uint32_t type; bool badsize; uint64_t n, first_off; } unknown[8];
	size_t nunknown;
	uint64_t unknown_other;
	bool unknown_said;
	/* a chunk of a split decode (reader_lazy.h, split.c): only the timed
	 * kernel records of time in (wlo, whi], the untimed ones when
	 * window_untimed, and perf's own records */
	bool window, window_untimed;
	uint64_t wlo, whi;
	int order_hint; /* 1: the data is in perf's order, -1: not, 0: unknown,
			 * 2: taken as in order, checked as read (order_*) */
	struct pms_pd_follow *follow; /* the end grows with a walk (reader_lazy.h) */
	bool order_broke, order_timed, order_untimed;
	uint64_t order_first, order_last;
};

#define PD_MAX_PROBLEMS 32
/* Mapped data is given back in steps of this many bytes (reader.c). */
#define PD_DROP_CHUNK (UINT64_C(2) << 20)
#define PD_MAX_UNKNOWN 8

/* reader_check.c: whether type is a kernel or perf record type; a record
 * of another type counted and skipped; the count said as problems (at the
 * end of the data). */
bool pd_type_known(uint32_t type);
/* Whether a record of a fixed-size kernel type has that type's size. */
bool pd_size_fits(const struct pms_sample_layout *l, uint32_t type, const unsigned char *p,
		  size_t len);
/* badsize: a known type whose size is not its own (not counted in
 * stats.unknown_type; in bad_records as every skipped record). */
void pd_unknown_record(struct pms_perfdata_reader *r, uint32_t type, uint64_t off, bool badsize);
void pd_unknown_summary(struct pms_perfdata_reader *r);

/* Record something skipped or corrupt, as a sentence (no "perf.data: "
 * prefix needed). */
void pd_problem(struct pms_perfdata_reader *r, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* Zeroed memory owned by the reader; NULL when out of memory. */
void *pd_alloc(struct pms_perfdata_reader *r, size_t size);

/* Bounds-checked cursor over a feature payload, swapping when asked. */
struct pd_cur {
	const unsigned char *p;
	size_t len, pos;
	bool swap;
	bool bad;
};

/* Parse feature feat from payload (len bytes at p).  0 or PMS_EPARSE /
 * PMS_ENOMEM with a message naming the feature. */
int pd_feature_parse(struct pms_perfdata_reader *r, unsigned feat, const unsigned char *p,
		     size_t len, uint64_t file_off);

/* Parse one BUILD_ID record body (pipe HEADER_BUILD_ID or feature entry). */
int pd_build_id_add(struct pms_perfdata_reader *r, const unsigned char *rec, size_t len,
		    bool swap, struct pms_perfdata_build_id *out);

/* Byte swapping. */
uint16_t pd_bswap16(uint16_t v);
uint32_t pd_bswap32(uint32_t v);
uint64_t pd_bswap64(uint64_t v);
/* Swap a recorded attr in place (size bytes at p). */
void pd_swap_attr(unsigned char *p, size_t size);
/* Swap a whole record in place, header first; l is the layout of the event
 * it belongs to (NULL for perf-tool types). */
void pd_swap_record(unsigned char *p, size_t len, const struct pms_sample_layout *l);

/* Fields as recorded, in host order (swapped when the file is foreign). */
static inline uint64_t pd_rd64(const struct pms_perfdata_reader *r, const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return r->swap ? pd_bswap64(v) : v;
}

static inline uint32_t pd_rd32(const struct pms_perfdata_reader *r, const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return r->swap ? pd_bswap32(v) : v;
}

static inline uint16_t pd_rd16(const struct pms_perfdata_reader *r, const unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return r->swap ? pd_bswap16(v) : v;
}

/* id -> attr index (reader_user.c fills it): the index, or -1. */
static inline uint64_t pd_idmix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

static inline long pd_idmap_get(const struct idmap *m, uint64_t id)
{
	if (!m->cap)
		return -1;
	for (size_t j = pd_idmix(id) & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
		if (!m->vals[j])
			return -1;
		if (m->keys[j] == id)
			return (long)m->vals[j] - 1;
	}
}

/* reader_user.c: an attr from its recorded bytes (ids: nids of them as
 * recorded); the size an attr's bytes say they have. */
int pd_add_attr(struct pms_perfdata_reader *r, const unsigned char *abytes, size_t asz,
		const unsigned char *ids, uint64_t nids, const char *where, uint64_t off);
size_t pd_attr_recorded_size(const struct pms_perfdata_reader *r, const unsigned char *p);

/* reader_user.c: a perf-tool record that carries header data (pipe mode)
 * or id maps, taken into the reader's state; a PERF_RECORD_AUX's task for
 * its CPU, and an AUXTRACE chunk's task (event.aux_pid/aux_tid). */
int pd_user_record(struct pms_perfdata_reader *r, const unsigned char *p, size_t len,
		   uint32_t type, uint64_t off);
int pd_aux_task_note(struct pms_perfdata_reader *r, const struct pms_record *rec);
void pd_aux_task_of(const struct pms_perfdata_reader *r, struct pms_perfdata_event *ev);

/* The payload of feature PMS_PERFDATA_FEAT_PMUSCOPE_ALLOC (pointing into the
 * reader's file, valid while it is open): 0, or PMS_ENOENT when the file
 * has none (or is a pipe-mode file). */
int pms_perfdata_reader_alloc_records(const struct pms_perfdata_reader *r, const void **p,
				      size_t *len);

#endif
