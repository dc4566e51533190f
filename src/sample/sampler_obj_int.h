/* Internal: the sampler object (struct pms_sampler) and what the files of
 * sampler*.c share.  They build on each other in this order, each calling
 * only files before it: sampler_streams.c, sampler_aux.c, sampler_adapt.c,
 * sampler_drain.c, sampler.c. */
#ifndef PMS_SAMPLE_SAMPLER_OBJ_INT_H
#define PMS_SAMPLE_SAMPLER_OBJ_INT_H

#include "sample/sampler_int.h"

#include "pmuscope/datasrc.h"
#include "pmuscope/ring.h"
#include "pmuscope/spe.h"

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct stream {
	int fd;
	int ev;  /* index into plan.ev */
	int cpu;
	struct pms_ring *ring;
	struct pms_sample_layout layout;
	/* SPE: bytes after the last complete record of the previous AUX chunk,
	 * and the MIDR of the stream's CPU for the data-source tables. */
	uint8_t *carry;
	size_t ncarry, capcarry;
	bool carry_whole; /* carry holds records left by a callback stop */
	/* The task of the AUX data being decoded: the AUX record's sample_id.
	 * The driver ends an AUX transaction at sched-out or from its IRQ, both
	 * in the context of the task the per-task event ran for. */
	bool aux_tid_valid;
	uint32_t aux_pid, aux_tid;
	uint32_t midr;
	uint64_t id; /* PERF_EVENT_IOC_ID, when the events carry IDENTIFIER */
	/* Adaptation (adapt.c's part of the sampler, below): */
	uint64_t period; /* sample_period (or sample_freq) the event was opened with */
	unsigned gen;    /* adaptations made before it was opened */
	pid_t root;      /* the task it was opened on; -1 per CPU */
	bool retired;    /* disabled by an adaptation: drained once more, closed */
	uint64_t kept, lost; /* records read / lost (PERF_RECORD_LOST) */
	uint64_t nsamples;   /* samples delivered */
	bool hup;            /* poll said POLLHUP: its task is gone */
	unsigned fill_pct;   /* the fullest the ring was when a drain began */
	unsigned rate_pct;   /* the most it received between two polls, % */
	uint64_t last_written; /* bytes written into it at the last poll */
	bool rate_known;
};

struct root_slot {
	int32_t tid, root; /* tid 0: empty */
	unsigned gen;      /* the generation whose lineage this is */
};

struct stage {
	unsigned char *buf;
	size_t pos, len, cap;
};

struct pms_sampler {
	struct pms_sys *sys;
	struct pms_sampler_opts o;
	struct smp_plan plan;
	struct stream *st;
	size_t nst;
	struct pollfd *pfd;
	struct pms_sampler_stats stats;
	struct pms_ibs_cpu ibs_cpu;
	const struct pms_topo *id; /* CPU identity: the caller's topo or own_id */
	struct pms_topo *own_id;
	char pmus[160];
	char label[256];
	/* Records copied out of the rings and not yet looked at: chunks of a
	 * struct stage_chunk and its stream's records.  The copier (the drain
	 * thread of a live sampler, and poll itself) appends to `in` under mu;
	 * poll swaps it with `out` once out's records are all handed out. */
	struct stage in, out;
	pthread_mutex_t mu;
	pthread_cond_t cv;  /* the copier put records in `in` */
	pthread_t thr;
	bool thr_on;
	int thr_stop;       /* atomic */
	struct pollfd *tpfd; /* the drain thread's own poll set */
	size_t ntpfd, captpfd;
	unsigned tpver;     /* the stream set tpfd was built from */
	uint64_t thr_hup;   /* under mu */
	/* pms_sampler_wake: an eventfd polled with the rings (by the drain
	 * thread, or by poll_in_place), -1 without one; the drain thread
	 * sets woken (under mu) when it fired, and the poller's wait ends */
	int wake_fd;
	bool woken;
	/* Records go through the stage (the drain thread's, or a test's
	 * copier: pms_smp_stage_on).  The stream set then changes only under
	 * mu, by the poller; fdver counts those changes. */
	bool staged;
	unsigned fdver;     /* under mu */
	size_t nst_pub;     /* the streams the copier may read (under mu) */
	bool st_unlocked;   /* adapt_now is opening streams without mu */
	int adapt_hint;     /* atomic: the copier found a ring filling */
	bool disabled;      /* pms_sampler_disable: no more adaptation */
	/* The bytes of the AUX record being read, for the source's aux hook. */
	uint8_t *auxbuf;
	size_t auxlen, auxcap;
	bool aux_acc;
	/* Adaptation to loss (opts.adapt) */
	size_t pages;          /* ring data pages of the current generation */
	unsigned gen;
	bool adapt_ok;         /* the plan can be reopened (no groups, no AUX) */
	struct pms_sampler_adaptation *adapt;
	size_t nadapt;
	uint64_t dups;         /* samples dropped as a second lineage's */
	struct root_slot *roots; /* tid -> the task whose events sample it */
	size_t caproots, nroots;
	uint64_t events;       /* sum of the delivered samples' periods */
	uint64_t unreported_lost; /* found by retired_lost */
	uint64_t t_open;       /* mono_ns() at open */
};

/* A run of one stream's records in a stage. */
struct stage_chunk {
	uint32_t stream;
	uint32_t len; /* bytes of records after this header */
};

/* The most the stage holds (records copied out and not yet converted):
 * beyond it the rings keep the rest and the kernel counts what it cannot
 * write (PERF_RECORD_LOST), as it would without the stage. */
#define STAGE_MAX ((size_t)64 << 20)
/* An emptied stage larger than this is freed, not kept for reuse. */
#define STAGE_KEEP ((size_t)1 << 20)
struct drain_ctx {
	struct pms_sampler *s;
	struct stream *st;
	const struct pms_sampler_callbacks *cb;
	const struct smp_hooks *h; /* the memory-sample source's, or NULL */
	void *ud;
	int stop; /* a callback's negative code */
	struct smp_raw raw; /* the record being handed out */
};
/* on_record's stop that asks poll_impl to adapt and drain on (not a code
 * any caller sees) */
#define SMP_ADAPT_STOP (-100000)

/* sampler_streams.c */
size_t smp_ring_pages(const struct pms_sampler *s);
int smp_open_gen(struct pms_sampler *s, const pid_t *tids, size_t ntids, size_t pages);
int smp_open_streams(struct pms_sampler *s);
void smp_close_streams(struct pms_sampler *s);
int smp_build_pfd(struct pms_sampler *s);
void smp_note_append(struct smp_plan *p, const char *text);
bool smp_adaptable(const struct smp_plan *p);

/* sampler_aux.c */
void smp_ring_time_conv(const struct stream *st, struct pms_spe_time_conv *tc);
int smp_on_aux_bytes(void *ud, const void *data, size_t len, uint64_t offset);

/* sampler_adapt.c */
bool smp_root_keep(struct pms_sampler *s, unsigned gen, int32_t tid, pid_t root);
uint64_t smp_mono_ns(void);
void smp_note_fill(struct stream *st);
unsigned smp_fill_trigger(const struct pms_sampler *s);
bool smp_adapt_due(struct pms_sampler *s);
void smp_adapt_check(struct pms_sampler *s, bool interval);
void smp_retired_lost(struct pms_sampler *s, struct stream *st);
void smp_adapt_check_one(struct pms_sampler *s, size_t i);

/* sampler_drain.c */
void smp_drain_thread_start(struct pms_sampler *s);
void smp_drain_thread_stop(struct pms_sampler *s);

/* Make the sampler's current or next poll wait (pms_sampler_poll with a
 * timeout) return at once, records or not.  Async-signal safe (one write
 * to an eventfd polled with the rings): a signal handler may call it,
 * e.g. on SIGCHLD, so that a held exit is served without waiting for the
 * poll timeout.  A sampler on a fake context, or NULL, ignores it. */
void pms_sampler_wake(struct pms_sampler *s);

#endif
