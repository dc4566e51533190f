/* Self-monitoring for harnesses: counters on the calling thread, read from
 * the event's mmap'd user page without a syscall when the kernel allows it
 * (x86 rdpmc; arm64 user access with config1:1 and perf_user_access = 1,
 * with 64-bit counters (config1:0) where the PMU has them), else with read().
 * Each value says which path served it.
 *
 * The user-space read follows the loop documented in
 * include/uapi/linux/perf_event.h (struct perf_event_mmap_page): seqlock on
 * `lock`, `index` 0 = not readable now, sign extension by `pmc_width`, and
 * time_enabled/time_running advanced with time_mult/time_shift (and
 * time_cycles/time_mask under cap_user_time_short).
 *
 * Ownership: pms_selfmon_open() gives the caller an object released with
 * pms_selfmon_free(); sys and pmus are borrowed during open only, except sys,
 * which must outlive the object.  Use it on the thread that opened it.
 */
#ifndef PMUSCOPE_SELFMON_H
#define PMUSCOPE_SELFMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/pmu.h"
#include "pmuscope/sys.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

enum pms_read_path {
	PMS_PATH_USER = 0, /* rdpmc / mrs from the user page */
	PMS_PATH_SYSCALL,  /* read() on the fd */
};

/* Why a read went through read(). */
enum pms_selfmon_why {
	PMS_WHY_NONE = 0,      /* served in user space */
	PMS_WHY_NO_CAP,        /* cap_user_rdpmc is 0 (e.g. software events) */
	PMS_WHY_INDEX0,        /* index 0: the counter is not on the PMU right now */
	PMS_WHY_NO_MMAP,       /* the user page could not be mapped */
	PMS_WHY_NOT_BUILT,     /* no user-space read for this architecture */
	PMS_WHY_DISABLED,      /* opts.no_user_read */
	PMS_WHY_SEQ_RETRIES,   /* the seqlock kept changing (max_retries) */
	PMS_WHY_NO_TIME,       /* multiplexed and cap_user_time is 0: times would be stale */
};

struct pms_selfmon_value {
	uint64_t value;     /* raw count (offset + counter) */
	uint64_t enabled;   /* ns */
	uint64_t running;   /* ns */
	double scaled;      /* value * enabled / running */
	enum pms_read_path path;
	enum pms_selfmon_why why;
	unsigned retries;   /* seqlock retries of the user-space loop */
};

/* Test seam: stands in for rdpmc/mrs (counter = index - 1) and for the cycle
 * counter (rdtsc / cntvct_el0) so the arithmetic runs without hardware. */
struct pms_selfmon_hooks {
	void *ud;
	uint64_t (*read_counter)(void *ud, uint32_t counter);
	uint64_t (*read_cycles)(void *ud);
};

struct pms_catalog;

/* Fields are only ever appended; version says which the caller has (1: up to
 * hooks, 2: catalog).  NULL and versions follow docs/api.md. */
#define PMS_SELFMON_OPTS_VERSION 2
struct pms_selfmon_opts {
	unsigned version;          /* PMS_SELFMON_OPTS_VERSION */
	bool no_user_read;         /* always read() */
	bool no_arm64_user_access; /* do not set config1 bit 1 on arm64 PMUs */
	unsigned max_retries;      /* seqlock retries before read(); 0 = 1000 */
	const struct pms_selfmon_hooks *hooks; /* NULL = the real instructions */
	/* Version 2.  Named events from a catalog, as pms_event_parse_ex takes
	 * them (borrowed during open only).  NULL: on an arm64 machine (a MIDR
	 * in sysfs) the built-in ARM PMUv3 table, so "inst_retired" resolves
	 * even when the PMU's events/ lacks the alias; elsewhere sysfs names
	 * only. */
	const struct pms_catalog *catalog;
	/* Version 2.  With arm64 user access, keep 32-bit counters (do not set
	 * the PMU's "long" term, config1:0). */
	bool no_arm64_long;
};
#define PMS_SELFMON_OPTS_INIT { PMS_SELFMON_OPTS_VERSION, false, false, 0, NULL, NULL, false }

struct pms_selfmon;

/* Open events (a comma-separated event string, perf syntax; groups are
 * opened as separate counters) on the calling thread, enabled, and map each
 * one's user page.  pmus may be NULL (generic and software events only). */
int pms_selfmon_open(struct pms_sys *sys, const struct pms_pmus *pmus, const char *events,
		     const struct pms_selfmon_opts *opts, struct pms_selfmon **out);
void pms_selfmon_free(struct pms_selfmon *s);

size_t pms_selfmon_count(const struct pms_selfmon *s);
const char *pms_selfmon_name(const struct pms_selfmon *s, size_t i);
int pms_selfmon_fd(const struct pms_selfmon *s, size_t i);
/* The mapped user page of counter i (struct perf_event_mmap_page), or NULL. */
void *pms_selfmon_page(const struct pms_selfmon *s, size_t i);
/* True when the kernel granted arm64 user access (config1:1 with
 * /proc/sys/kernel/perf_user_access = 1) for counter i. */
bool pms_selfmon_arm64_access(const struct pms_selfmon *s, size_t i);
/* True when counter i was opened with the arm64 PMU's "long" term (config1:0,
 * a 64-bit counter: pmc_width 64); false where the kernel refused it
 * (EOPNOTSUPP: no 64-bit event counters) and the open was retried without. */
bool pms_selfmon_arm64_long(const struct pms_selfmon *s, size_t i);

/* Read counter i. */
int pms_selfmon_read(struct pms_selfmon *s, size_t i, struct pms_selfmon_value *out);

/* Zero every counter.  While the counters are enabled this is DISABLE,
 * RESET, ENABLE on each (the user page is then recomputed when the counter is
 * programmed again, see selfmon.c); while disabled, RESET alone. */
int pms_selfmon_reset(struct pms_selfmon *s);
/* PERF_EVENT_IOC_ENABLE / DISABLE on every counter. */
int pms_selfmon_enable(struct pms_selfmon *s);
int pms_selfmon_disable(struct pms_selfmon *s);

const char *pms_read_path_name(enum pms_read_path p);
const char *pms_selfmon_why_name(enum pms_selfmon_why w);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
