/* `perf script` over a perf.data file, pulled one sample at a time: the
 * library reads the records in file order, keeps what the lines need
 * (comms from COMM and FORK records, the processes' mappings for symbols,
 * the decoration stage for nodes and SPE times), turns an Arm SPE AUX
 * trace and an ibs_op sample recorded with RAW only into samples with the
 * fields perf shows, applies perf's filters, and hands each sample out with
 * its record (pms_script_next).  pms_script_format writes perf script's
 * text of one sample (its fields, order, widths, call chain, symbols) into
 * the caller's buffer; the caller writes it.
 *
 * Ownership: pms_script_new() gives the caller an object released with
 * pms_script_free() (even when it failed); the fd and sys of
 * pms_script_read are borrowed (the fd is not closed; sys must outlive the
 * object, and may be NULL without PMS_SCRIPT_SYMBOLS).  What a struct pms_script_sample
 * points to is the object's, valid until the next pms_script_next().
 */
#ifndef PMUSCOPE_SCRIPT_H
#define PMUSCOPE_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/api.h"
#include "pmuscope/callpath.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"
#include "pmuscope/spe.h"
#include "pmuscope/sys.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

struct pms_script;

enum pms_script_flag {
	PMS_SCRIPT_TEXT = 1u << 0,        /* perf's text: -F checks, forks inherit comms */
	PMS_SCRIPT_SYMBOLS = 1u << 1,     /* name IPs (needs sys) */
	PMS_SCRIPT_NODE = 1u << 2,        /* each sample's node of its phys_addr */
	PMS_SCRIPT_NS = 1u << 3,          /* times in nanoseconds (perf's --ns) */
	PMS_SCRIPT_HIDE_CHAIN = 1u << 4,  /* -G: the sample's IP, not its call chain */
	PMS_SCRIPT_ITRACE_MEM = 1u << 5,  /* SPE: memory operations (--itrace M) */
	PMS_SCRIPT_ITRACE_BRANCH = 1u << 6, /* SPE: mispredicted branches (--itrace b) */
	PMS_SCRIPT_RECORDS_ONLY = 1u << 7,  /* read the records, yield no sample (--header) */
	PMS_SCRIPT_CHAIN = 1u << 8, /* each sample's call chain in its frames (a DWARF
				     * sample's user frames need PMS_SCRIPT_SYMBOLS) */
	PMS_SCRIPT_NO_INLINE = 1u << 9, /* perf's --no-inline: a DWARF frame inside inlined
					 * code is not expanded into its inline stack */
};

/* Filters, perf's options: a comma-separated list each. */
enum pms_script_filter {
	PMS_SCRIPT_F_SYMBOLS, /* -S: the sample's own function */
	PMS_SCRIPT_F_COMMS,   /* --comms */
	PMS_SCRIPT_F_PIDS,    /* --pid */
	PMS_SCRIPT_F_TIDS,    /* --tid */
	PMS_SCRIPT_F_CPUS,    /* -C: a CPU list (0-3,7) */
	PMS_SCRIPT_F_TIME,    /* --time START,END in seconds (either may be empty) */
};

struct pms_script_sample {
	const struct pms_perfdata_event *ev; /* its record, or one made from an AUX trace */
	const char *comm;  /* the thread's comm from COMM (and, in text, FORK) records; NULL: none */
	const char *event; /* the event's name (the file's, perf's generic one, else typeN/0xC/) */
	int node;          /* node of its phys_addr with PMS_SCRIPT_NODE, else PMS_NODE_UNKNOWN */
	/* With PMS_SCRIPT_CHAIN (and not -G): the frames the text prints for
	 * its call chain, leaf first (perf's -F ip of a chain: the IP alone
	 * for an empty one; a --call-graph dwarf sample's kernel part, then
	 * its user stack unwound, src/session/dwpath.c, each unwound frame in
	 * inlined code as its inline stack unless PMS_SCRIPT_NO_INLINE:
	 * PMS_FRAME_INLINE frames at one ip); chain false when the sample has
	 * none.  Borrowed until the next pms_script_next. */
	bool chain;
	const struct pms_frame *frames;
	size_t nframes;
};

/* flags: enum pms_script_flag.  Then fields and filters, then the file. */
int pms_script_new(unsigned flags, struct pms_script **out);
/* A reader on fd (a file, or a pipe-mode stream read as it comes). */
int pms_script_read(struct pms_script *s, int fd, struct pms_sys *sys);
void pms_script_free(struct pms_script *s);
/* One -F argument in perf's grammar ([type:]fields, +field, -field), applied
 * in order after perf's defaults; PMS_EINVAL with perf's message, or
 * PMS_ENOTSUP for a perf field this project does not print. */
int pms_script_fields(struct pms_script *s, const char *arg);
/* A filter (enum pms_script_filter); PMS_EINVAL when arg does not parse. */
int pms_script_filter(struct pms_script *s, int which, const char *arg);
/* The next sample: 1, 0 at the end, or an error: PMS_EINVAL when the
 * fields cannot be printed for the file's events (perf's message; checked
 * at the first sample), else the reader's error. */
int pms_script_next(struct pms_script *s, struct pms_script_sample *out);
/* perf script's text of one sample (with PMS_SCRIPT_TEXT), its call chain
 * and branch stack included, written into buf (at most size bytes, no NUL);
 * the text's full length (0 when -S drops it).  A length over size means
 * buf holds part of it: call again with a buffer that large. */
size_t pms_script_format(struct pms_script *s, const struct pms_script_sample *smp, char *buf,
			 size_t size);
/* The reader (header, stats, problems) and the SPE trace's stats. */
struct pms_perfdata_reader *pms_script_reader(const struct pms_script *s);
const struct pms_spe_chunk_stats *pms_script_spe_stats(const struct pms_script *s);
/* perf's names of a branch's type and speculation (perf script -F brstack). */
const char *pms_script_branch_type(const struct pms_branch *b);
const char *pms_script_branch_spec(const struct pms_branch *b);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
