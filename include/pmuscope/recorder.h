/* Writing a memory-sample source to perf.data: the source's events (attrs)
 * as they were opened, its records as the kernel wrote them (each encoded
 * with its own event's layout), and the header features perf needs to name
 * code and place memory: HOSTNAME, OSRELEASE, ARCH, NRCPUS, CPUID,
 * NUMA_TOPOLOGY, MEM_TOPOLOGY, PMU_MAPPINGS and the build ids of the
 * mapped files.
 *
 * With several events the sampler asks for PERF_SAMPLE_IDENTIFIER and the
 * source gives each event's ids, which the recorder writes with its attr,
 * so every record names its event.  The events that deliver samples come
 * first (a reader without ids gives records to the first attr).  Side-band
 * records are encoded with that first event's layout; their sample_id
 * fields (TID, TIME, CPU, IDENTIFIER) are the same in every event of a
 * sampler.  Samples decoded from an AUX trace (SPE) have no record of their
 * own: the trace is written instead (pms_recorder_aux), as perf record
 * writes it: PERF_RECORD_TIME_CONV and PERF_RECORD_AUXTRACE_INFO (arm_spe,
 * version 1: {PMU type, per-CPU mmaps}, the layout perf 6.12 reads; the
 * MIDR then comes from the CPUID feature) before the first chunk, then per
 * chunk its PERF_RECORD_AUX and a PERF_RECORD_AUXTRACE with the bytes.  A
 * reader (pmuscope's recorded source, perf's arm_spe decoder) decodes the
 * samples again from them.
 *
 * Ownership: pms_recorder_open() gives the caller a recorder released with
 * pms_recorder_free(), which does not close fd; the source, sys, topo and
 * pmus are borrowed for the calls that take them.
 */
#ifndef PMUSCOPE_RECORDER_H
#define PMUSCOPE_RECORDER_H

#include "pmuscope/api.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/memsrc.h"
#include "pmuscope/pmu.h"
#include "pmuscope/record.h"
#include "pmuscope/sys.h"
#include "pmuscope/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

PMS_API_BEGIN

#define PMS_RECORDER_OPTS_VERSION 1
struct pms_recorder_opts {
	unsigned version;  /* PMS_RECORDER_OPTS_VERSION */
	/* Write every IP and data address in the kernel half as 0 (a
	 * kernel-mode sample's, and a user-mode one's too) and leave the
	 * kernel part out of callchains (for a caller that proc/kallsyms hides
	 * kernel addresses from: the file then shows no more than the report). */
	bool hide_kernel_ips;
};
#define PMS_RECORDER_OPTS_INIT { PMS_RECORDER_OPTS_VERSION, false }

struct pms_recorder;

/* Start a perf.data file on fd (open for writing, pwrite-able) with the
 * source's attrs (pms_memsrc_attrs; a pipe-mode file source knows them
 * only after its first poll).  opts may be NULL (defaults). */
int pms_recorder_open(int fd, const struct pms_memsrc *src, const struct pms_recorder_opts *opts,
		      struct pms_recorder **out);
void pms_recorder_free(struct pms_recorder *r);

/* Write the record a sample came from (s->rec); a sample without one (AUX:
 * its trace is written by pms_recorder_aux) is counted in
 * pms_recorder_skipped and is not an error. */
int pms_recorder_sample(struct pms_recorder *r, const struct pms_memsrc_sample *s);
/* Write an AUX chunk (the live source's aux callback): its AUX record and
 * the trace bytes; the first one is preceded by TIME_CONV (when a->tc) and
 * AUXTRACE_INFO. */
int pms_recorder_aux(struct pms_recorder *r, const struct pms_memsrc_aux *a);
/* Write a side-band record of event attr_idx. */
int pms_recorder_sideband(struct pms_recorder *r, const struct pms_record *rec, size_t attr_idx);


/* Add the header features from this machine (sys: HOSTNAME, OSRELEASE and
 * ARCH from proc/sys/kernel, node meminfo; topo: NRCPUS, CPUID (vendor,
 * family, model, stepping on x86, the MIDR on arm64), NUMA_TOPOLOGY,
 * MEM_TOPOLOGY; pmus: PMU_MAPPINGS, may be NULL; build ids of the files the
 * MMAP/MMAP2 records named), then finish the file.  A feature whose facts
 * cannot be read is left out.  The file is closed even after a failure (its
 * records before the failure stay readable) and the first failure is
 * returned. */
int pms_recorder_finish(struct pms_recorder *r, struct pms_sys *sys, const struct pms_topo *topo,
			const struct pms_pmus *pmus);


uint64_t pms_recorder_records(const struct pms_recorder *r);
uint64_t pms_recorder_skipped(const struct pms_recorder *r);

PMS_API_END

#ifdef __cplusplus
}
#endif
#endif
