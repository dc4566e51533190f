/* perf report's histogram of samples by sort keys (`report -s k1,k2`,
 * issue 30 item 4): each key is a sample's text as perf prints it (pid as
 * "tid:comm" with the thread's last comm, tid,
 * tgid, cpu, mem, snoop, tlb, locked, dcacheline, phys_daddr, node,
 * memnode, comm, sym, dso, symbol_daddr, type, typeoff, typecln); a row is
 * the samples whose keys' texts are all equal, with their count and summed
 * period (perf's overhead).  Fed by a session (pms_session_set_sort), the
 * same for a live run and for files: comm, sym, dso and symbol_daddr from
 * the side-band at each sample's point of the stream (session/symtrack_int.h;
 * kernel names only where the file's kernel is the running one), type,
 * typeoff and typecln from the session's types sink (pmuscope/types.h).
 *
 * Ownership: pms_sorthist_new() gives the caller a histogram released with
 * pms_sorthist_free(), or handed to a session (pms_session_set_sort); the
 * result's rows are borrowed until the next call or the free.
 */
#ifndef PMUSCOPE_SORTHIST_H
#define PMUSCOPE_SORTHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

#define PMS_SORTHIST_MAXKEYS 8

struct pms_sorthist;

/* keys: "k1,k2" as perf's -s takes them.  PMS_EINVAL with a message naming
 * the key and listing the keys there are; PMS_ENOMEM. */
int pms_sorthist_new(const char *keys, struct pms_sorthist **out);
void pms_sorthist_free(struct pms_sorthist *h);

/* perf report's call-graph views of files with call paths (frame
 * pointers, or DWARF unwound here with the binaries found below sys's
 * root), set before the first sample:
 *  CHILDREN: perf's --children: besides the sampled function's row (its
 *    Self period), every distinct row among the sample's path frames (each
 *    frame's keys: sym and dso of the frame, the others of the sample)
 *    gets the period in its inclusive total, once per sample;
 *  CHAINS: each row keeps its call chains (perf report -g folded): the
 *    frames' function names (else the address "%#x") joined by ';'; a
 *    row's own samples give their whole path, a CHILDREN row the part from
 *    its frame to the leaf (CALLER) or to the root;
 *  CALLER: chains root first (perf's caller order), else leaf first;
 *  NO_INLINE: a DWARF frame inside inlined code stays one frame (perf's
 *    --no-inline); by default it is its inline stack, as perf 6.12 shows
 *    it ("NAME (inlined)" frames and rows, session/inlpath.c).
 * 0, or PMS_EINVAL after the first sample or for unknown flags. */
#define PMS_SORTHIST_CHILDREN 0x1u
#define PMS_SORTHIST_CHAINS 0x2u
#define PMS_SORTHIST_CALLER 0x4u
#define PMS_SORTHIST_NO_INLINE 0x8u /* perf's --no-inline: DWARF frames not expanded */
int pms_sorthist_set_callgraph(struct pms_sorthist *h, unsigned flags);

struct pms_sorthist_chain {
	const char *text;         /* frame names joined by ';' */
	uint64_t samples, period;
};

struct pms_sorthist_row {
	const char *text;          /* the keys' texts joined by '\t' */
	uint64_t samples, period;  /* period: the samples' periods (1 when none) */
	/* PMS_SORTHIST_CHILDREN: the period of the samples with this row in
	 * their path or as their own (perf's Children) */
	uint64_t children;
	/* PMS_SORTHIST_CHAINS: by period descending, then text */
	const struct pms_sorthist_chain *chains;
	size_t nchains;
};

struct pms_sorthist_result {
	/* by period descending, then text; CHILDREN: by children, period,
	 * then text (perf's order of Children, Self, keys) */
	const struct pms_sorthist_row *rows;
	size_t n_rows;
	const char *titles[PMS_SORTHIST_MAXKEYS]; /* perf's column titles */
	size_t nkeys;
	uint64_t samples, period;
	uint64_t with_path;        /* samples that had a call path */
	bool children;             /* PMS_SORTHIST_CHILDREN was set */
};
int pms_sorthist_result(struct pms_sorthist *h, struct pms_sorthist_result *out);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
