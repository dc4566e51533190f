/* Internal: the perf.data reader's state, shared by reader.c (sections,
 * records, compression), features.c (header features) and swap.c (foreign
 * byte order). */
#ifndef PMS_PERFDATA_READER_INT_H
#define PMS_PERFDATA_READER_INT_H

#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	/* lazy samples (reader_lazy.h): the size of a SAMPLE whose fields are
	 * all of fixed size (0: the layout has a field of variable size or
	 * bits the decoder does not know), and the offset of its TIME (0:
	 * none) */
	size_t fixed_len;
	size_t time_off;
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

/* The payload of feature PMS_PERFDATA_FEAT_PMUSCOPE_ALLOC (pointing into the
 * reader's file, valid while it is open): 0, or PMS_ENOENT when the file
 * has none (or is a pipe-mode file). */
int pms_perfdata_reader_alloc_records(const struct pms_perfdata_reader *r, const void **p,
				      size_t *len);

#endif
