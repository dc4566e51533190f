/* Allocation tracking: the record stream that the preload library
 * (libpmuscope-alloc.so, src/alloc/preload.c) writes from a started command,
 * the per-process allocation table read from it, and the allocation sites
 * (call paths) that sampled data addresses are attributed to.
 *
 * The stream is a file of fixed binary records in the byte order of the
 * machine (struct pms_alloc_rec, then nframes return addresses) on an
 * inherited file descriptor (a memfd opened with pms_alloc_channel_open):
 * a header page, then chunks that each thread of the command fills in
 * place through a shared mapping (PMS_ALLOC_STREAM_*); docs/mem.md
 * describes it.
 * Times are CLOCK_MONOTONIC nanoseconds, as the samples' when the sampler
 * stamps them so (pms_sampler_opts.clock_monotonic, which `mem -- CMD` asks
 * for); another clock's offset can be given (pms_alloc_table_calibrate).
 * In the stream file a record's time may be the CPU's time-stamp counter
 * instead (PMS_ALLOC_F_TSC), made CLOCK_MONOTONIC by the reader from the
 * stream's PMS_ALLOC_CLOCK records (pms_alloc_stream_read): the table and
 * a perf.data file only see CLOCK_MONOTONIC times.
 *
 * Ownership: pms_alloc_table_new() gives the caller a table released with
 * pms_alloc_table_free(); pms_alloc_sites_build() a report released with
 * pms_alloc_report_free(); pointers into either stay valid until then.
 */
#ifndef PMUSCOPE_ALLOC_H
#define PMUSCOPE_ALLOC_H

#include "pmuscope/api.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

PMS_API_BEGIN

/* ---- the record stream ----------------------------------------------- */

enum pms_alloc_kind {
	PMS_ALLOC_MALLOC = 1,
	PMS_ALLOC_CALLOC,
	PMS_ALLOC_REALLOC,       /* old_addr: the block it replaced (0: none tracked) */
	PMS_ALLOC_REALLOCARRAY,  /* as REALLOC */
	PMS_ALLOC_ALIGNED_ALLOC,
	PMS_ALLOC_POSIX_MEMALIGN,
	PMS_ALLOC_MEMALIGN,
	PMS_ALLOC_VALLOC,
	PMS_ALLOC_MMAP,          /* anonymous mmap */
	PMS_ALLOC_MREMAP,        /* old_addr: the mapping it moved from */
	PMS_ALLOC_FREE,          /* a tracked block freed (addr); no frames */
	PMS_ALLOC_MUNMAP,        /* a tracked mapping unmapped from its start */
	PMS_ALLOC_START,         /* the library started in a process (exec);
				  * old_addr: the parent pid */
	PMS_ALLOC_FORK,          /* a forked child; old_addr: the parent pid */
	PMS_ALLOC_THREAD_STACK,  /* a thread's stack block (tid: the thread;
				  * frames: its pthread_create call) */
	PMS_ALLOC_TLS,           /* a module's TLS block of thread tid (one
				  * frame: an address in the module) */
	PMS_ALLOC_CLOCK,         /* stream only (version 2): a calibration
				  * point, time CLOCK_MONOTONIC ns read between
				  * two reads of the time-stamp counter; addr
				  * their midpoint, bytes their distance
				  * (ticks); never given to the table */
	PMS_ALLOC_KIND_MAX
};

#define PMS_ALLOC_MAX_FRAMES 32

/* One record: 56 bytes, then nframes 8-byte return addresses (innermost
 * first: frame 0 is the allocation call's return address). */
struct pms_alloc_rec {
	uint16_t size;       /* bytes of the record, frames included */
	uint8_t kind;        /* enum pms_alloc_kind */
	uint8_t nframes;
	uint32_t pid;
	uint32_t tid;
	uint32_t flags;      /* PMS_ALLOC_F_* */
	uint64_t time;       /* CLOCK_MONOTONIC, ns */
	uint64_t addr;       /* the block (or mapping) returned / released */
	uint64_t bytes;      /* its size asked for */
	uint64_t weight;     /* bytes this record stands for: bytes when
			      * tracked always, bytes / (1 - exp(-bytes/rate))
			      * when sampled */
	uint64_t old_addr;   /* see the kinds */
};
#define PMS_ALLOC_F_SAMPLED 1u  /* chosen by the byte sampling (else always) */
#define PMS_ALLOC_F_TSC 2u      /* stream only: time is in time-stamp counter
				 * ticks, converted by the reader (cleared then) */

/* The stream file: PMS_ALLOC_HDR_SIZE bytes of header (the magic at 0,
 * then the count of chunks claimed, a shared counter), then chunk k at
 * PMS_ALLOC_HDR_SIZE + k * PMS_ALLOC_CHUNK.  A chunk holds records back to
 * back from its start, each thread's in its order; a record size of 0 (or
 * the chunk's end) ends them.  In the stream a record may end early: its
 * body (size - 8 * nframes bytes, its frames right after it) is 32, 40, 48
 * or 56 bytes, the fields past it 0 (a free is 32 bytes, an allocation with
 * no old_addr 48: fewer pages of the stream written per record).  Records
 * of different chunks are merged by time when read (pms_alloc_table_read_fd,
 * pms_alloc_stream_read), each made whole (56 bytes, then its frames). */
/* Version 2 ("PMSALOC2") adds PMS_ALLOC_CLOCK records and PMS_ALLOC_F_TSC
 * times; version 1 ("PMSALOC1", every time CLOCK_MONOTONIC) is still read.
 * A version 2 file's TSC times are converted by linear interpolation
 * between its calibration points (sorted by tick; past the ends, the slope
 * of the first and last points), at least two of them when any time is in
 * ticks (else the file is refused). */
#define PMS_ALLOC_STREAM_MAGIC 0x32434f4c41534d50ull /* "PMSALOC2" */
#define PMS_ALLOC_STREAM_MAGIC_V1 0x31434f4c41534d50ull /* "PMSALOC1" */
#define PMS_ALLOC_HDR_SIZE 4096u
#define PMS_ALLOC_CHUNK (64u << 10)
#define PMS_ALLOC_REC_MIN 32u /* the shortest record body in the stream */

/* A memfd for the stream: O_APPEND, not closed at exec (the command and its
 * children inherit it); its inode in *ino (the preload checks it).  fd or a
 * negative PMS_E*. */
int pms_alloc_channel_open(unsigned long *ino);


/* ---- the allocation table -------------------------------------------- */

struct pms_alloc_table;

int pms_alloc_table_new(struct pms_alloc_table **out);
void pms_alloc_table_free(struct pms_alloc_table *t);

/* Add the records in buf (whole records; a partial tail is left):
 * the bytes used, or a negative PMS_E* on a malformed record. */
long pms_alloc_table_feed(struct pms_alloc_table *t, const void *buf, size_t len);
/* The process space of the records fed from now on and of
 * pms_alloc_table_lookup (0 at first): a merged report's files each get
 * their own, so that equal pids (and times) of different files are
 * different processes.  0 or PMS_EINVAL. */
int pms_alloc_table_set_space(struct pms_alloc_table *t, uint32_t space);
/* Read the stream file on fd (once: the command's processes have written
 * what they will) and feed its records in time order (equal times in the
 * order of their chunk).  A file without the stream's magic is read as
 * records back to back.  Records read, or a negative PMS_E*. */
long pms_alloc_table_read_fd(struct pms_alloc_table *t, int fd);

/* The samples' time = CLOCK_MONOTONIC + offset, measured at mono (ns);
 * offsets between points are interpolated, outside them the nearest is
 * used.  No point: the samples' time is CLOCK_MONOTONIC. */
int pms_alloc_table_calibrate(struct pms_alloc_table *t, uint64_t mono, int64_t offset);

struct pms_alloc_stats {
	uint64_t records, allocs, frees, unmatched_frees, processes, forks, execs;
	uint64_t sampled, always;   /* allocations chosen by sampling / the threshold */
};
void pms_alloc_table_stats(const struct pms_alloc_table *t, struct pms_alloc_stats *out);

/* One tracked allocation. */
struct pms_alloc_info {
	uint32_t pid, tid;       /* the process and thread that made it */
	uint64_t addr, bytes;
	uint64_t t_alloc, t_free; /* perf time; t_free UINT64_MAX: still live */
	uint8_t kind;            /* enum pms_alloc_kind */
	long site;               /* index of its site (pms_alloc_table_site) */
};

/* The allocation of process pid (in the space set last) that held addr at
 * perf time `time` (a forked child's inherited blocks through its parent
 * at the fork): its index, or -1 when none.  *info (may be NULL) gets it. */
long pms_alloc_table_lookup(struct pms_alloc_table *t, uint32_t pid, uint64_t addr, uint64_t time,
			    struct pms_alloc_info *info);
/* How many allocations the table holds (live or freed, every process). */
size_t pms_alloc_table_count(const struct pms_alloc_table *t);

/* A site: one call path (frames equal) in one process space. */
struct pms_alloc_site_key {
	uint32_t pid;            /* a process that allocated there */
	const uint64_t *frames;  /* return addresses, innermost first */
	size_t nframes;
	uint8_t kind;            /* of its first allocation */
	uint64_t allocs;         /* tracked allocations */
	uint64_t bytes;          /* their sizes summed */
	double est_bytes;        /* weights summed: bytes estimated allocated */
	double est_count;        /* allocations estimated (weight / size summed) */
	uint32_t space;          /* its process space (pms_alloc_table_set_space) */
	uint32_t tid;            /* a thread stack's or TLS block's thread, else 0 */
};
size_t pms_alloc_table_nsites(const struct pms_alloc_table *t);
void pms_alloc_table_site(const struct pms_alloc_table *t, size_t i, struct pms_alloc_site_key *out);

/* ---- the sites report ------------------------------------------------- */

struct pms_alloc_frame {
	uint64_t ip;             /* return address */
	char *func;              /* NULL unknown */
	char *file;              /* NULL unknown */
	int line;
	char *module;            /* "" unknown */
};

struct pms_alloc_site {
	uint64_t samples;        /* memory samples in its blocks */
	uint64_t latency, weighted; /* sum of their weights, how many had one */
	uint64_t resolved, remote;  /* with a node; on a node other than the CPU's */
	uint64_t allocs, bytes;  /* tracked allocations and their bytes */
	double est_bytes, est_count; /* what the sampling stands for */
	uint8_t kind;            /* enum pms_alloc_kind of its first allocation */
	uint32_t pid;
	struct pms_alloc_frame *frames;
	size_t nframes;
	size_t table_site;       /* its index in the table (pms_alloc_table_site) */
	uint32_t space;          /* its process space (a merged report: the file) */
	uint32_t tid;            /* a thread stack's or TLS block's thread (a site
				  * of its own per thread), else 0 */
	int node;                /* the memory node that served most of its
				  * resolved samples (nodes 0-63), -1 none */
	uint64_t node_samples;   /* ... how many of them it served */
	/* Its data type (issue 29; filled only with a types sink,
	 * pms_session_set_types, and then pms_alloc_report.types is set):
	 * typed of its samples resolved to a type; type is the one of more
	 * than half of those (type_samples of them), else NULL; member its
	 * member of most samples ("" the whole type; member_samples). */
	uint64_t typed, type_samples, member_samples;
	char *type, *member;
};

struct pms_alloc_report {
	uint64_t rate, threshold;   /* the tracking's options */
	struct pms_alloc_stats stats;
	uint64_t with_addr;         /* samples with a data address */
	uint64_t placed;            /* ... attributed to a tracked allocation */
	struct pms_alloc_site *sites; /* most samples first; those with none left out */
	size_t nsites;
	/* the table's site i is sites[site_rank[i]], -1 when not listed */
	long *site_rank;
	size_t nsite_rank;
	/* Filled by pms_session_alloc_report: for each sample of the memory
	 * report's list (all[i]), the index of its site in sites, -1 none. */
	long *sample_site;
	size_t nsample_site;
	/* the samples were not stamped with CLOCK_MONOTONIC (why, static
	 * text; NULL: they were): times are compared as they are */
	const char *calibration_why;
	bool types; /* the sites' type fields were filled (issue 29) */
};

/* One sample to attribute: its process, data address, perf time, latency
 * (weight; 0 none) and nodes (mem_node < 0 unresolved; cpu_node -1). */
struct pms_alloc_sample {
	uint32_t pid;
	uint64_t addr, time, weight;
	int mem_node, cpu_node;
	uint32_t space;          /* its process space (pms_alloc_table_set_space) */
};

struct pms_alloc_sites;
int pms_alloc_sites_new(struct pms_alloc_table *t, struct pms_alloc_sites **out);
void pms_alloc_sites_free(struct pms_alloc_sites *s);
/* Attribute one sample: the site index or -1. */
long pms_alloc_sites_add(struct pms_alloc_sites *s, const struct pms_alloc_sample *x);
/* The report: sites with samples, most first, at most top (0: all). The
 * frames are named by name(ud, pid, ip, frame) when name is not NULL. */
typedef void (*pms_alloc_namer)(void *ud, uint32_t pid, uint64_t ip, struct pms_alloc_frame *f);
int pms_alloc_sites_report(struct pms_alloc_sites *s, size_t top, pms_alloc_namer name, void *ud,
			   struct pms_alloc_report **out);
void pms_alloc_report_free(struct pms_alloc_report *r);
/* "malloc", "calloc", ... "mmap", "free", ...; "?" outside the enum. */
const char *pms_alloc_kind_name(unsigned kind);

PMS_API_END

#ifdef __cplusplus
}
#endif
#endif
