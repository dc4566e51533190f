/* Internal: the script object (pmuscope/script.h), shared by script.c (the
 * pull loop, filters), script_fields.c (perf's -F grammar and checks) and
 * script_text.c (perf's text); script.c and script_text.c call
 * script_fields.c, not each other. */
#ifndef PMS_SESSION_SCRIPT_INT_H
#define PMS_SESSION_SCRIPT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/cpuset.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/memdeco.h"
#include "pmuscope/script.h"
#include "session/dwpath.h"
#include "session/inlpath.h"
#include "session/symtrack_int.h"

/* ---- perf script's text: its fields, its order, its widths ---------------
 * (tools/perf/builtin-script.c process_event and perf_sample__fprintf_start,
 * util/evsel_fprintf.c sample__fprintf_sym and sample__fprintf_callchain:
 * facts read there, the code written here). */


enum pf {
	PF_COMM = 1u << 0, PF_TID = 1u << 1, PF_PID = 1u << 2, PF_TIME = 1u << 3,
	PF_CPU = 1u << 4, PF_EVENT = 1u << 5, PF_TRACE = 1u << 6, PF_IP = 1u << 7,
	PF_SYM = 1u << 8, PF_DSO = 1u << 9, PF_ADDR = 1u << 10, PF_SYMOFF = 1u << 11,
	PF_SRCLINE = 1u << 12, PF_PERIOD = 1u << 13, PF_BRSTACK = 1u << 14,
	PF_DSRC = 1u << 15, PF_WEIGHT = 1u << 16, PF_PHYS = 1u << 17, PF_INSLAT = 1u << 18,
	PF_BPF = 1u << 19, PF_RETLAT = 1u << 20,
	/* this tool's own: the node of phys_addr, the record type, the chain's
	 * addresses alone (perf's -F ip of a sample with a call chain) */
	PX_NODE = 1u << 24, PX_TYPE = 1u << 25, PX_CHAIN = 1u << 26,
};

/* perf's output types: PERF_TYPE_* 0..5, then synth and other */
enum { OT_HW, OT_SW, OT_TRACE, OT_CACHE, OT_RAW, OT_BREAK, OT_SYNTH, OT_OTHER, OT_N };

struct pf_out {
	unsigned fields, invalid, user_set_fields;
	bool user_set;
};

/* tid -> comm from COMM records (open addressing; comm is <= 16 bytes). */
struct script_comms {
	uint32_t *tid;
	char (*name)[16];
	size_t cap, n;
};

/* One sample made from an AUX trace, waiting to be pulled. */
struct script_q {
	struct pms_perfdata_event ev;
	int node;
};

struct script_evname {
	const struct pms_perfdata_attr *a;
	char name[64];
};

/* --time: START,END (either may be empty), perf's absolute form. */
struct script_trange {
	bool set;
	uint64_t start, end; /* absolute ns, 0: unbounded */
};

struct pms_script {
	struct pms_perfdata_reader *r;
	struct pms_perfdata_ordered *oq; /* r's records in perf's time order */
	unsigned flags;
	struct pms_symtrack *st;
	struct dwpath dw; /* DWARF samples' user frames (with symbols: st's maps) */
	struct inlpath inl; /* their inline stacks (not with PMS_SCRIPT_NO_INLINE) */
	struct pms_frame *chain; /* PMS_SCRIPT_CHAIN: PMS_CALLPATH_MAX frames */
	struct pms_memdeco *deco;
	struct script_comms comms;
	struct pf_out o[OT_N];
	bool checked, use_chain, want_node;
	bool kjudged; /* the file's kernel judged (script.c kernel_judge) */
	/* the fields of f_type's samples (script_text.c print_perf; f_set:
	 * known, cleared when perf's checks change the fields) */
	uint32_t f_type;
	unsigned f_fields;
	bool f_set;
	int name_width;
	size_t dsrc_max; /* perf pads data_src to the longest printed so far */
	/* filters: -S (syms), --comms, --pid, --tid, -C, --time */
	char *copy[4];
	char **list[4];
	size_t nlist[4];
	struct pms_cpuset cpus;
	bool cpu;
	struct script_trange tr;
	/* the event names (a few a file; beyond, the last one in evx) */
	struct script_evname ev[64];
	size_t nev;
	char evx[64];
	/* perf's -F event names (script_text.c), made once an event */
	struct script_evname pfev[64];
	size_t pfevlen[64], npfev;
	/* samples of the last AUX trace chunk, pulled one by one */
	struct script_q *q;
	size_t qn, qi, qcap;
	const struct pms_perfdata_attr *spe_attr;
	struct pms_spe_chunk_stats spe_st;
	struct pms_perfdata_event cur;
	/* the formatter's scratch when the caller's buffer may be too small */
	char *scratch;
	size_t scratch_cap;
};

/* script_fields.c */
const char *pms_script_event_name_(const struct pms_perfdata_attr *a, char *buf, size_t size);
const char *pms_script_pf_event_name_(const struct pms_perfdata_attr *a, char *buf, size_t size);
void pms_script_pf_defaults_(struct pf_out o[OT_N]);
int pms_script_ot_of_(uint32_t type);
/* The frames of s's call chain as the text prints them (script_text.c):
 * true with *frp, *nfr (fr: PMS_CALLPATH_MAX frames of scratch), false
 * when s has none. */
bool pms_script_chain_(struct pms_script *pf, const struct pms_sample *s, struct pms_frame *fr,
		       const struct pms_frame **frp, size_t *nfr);
int pms_script_pf_parse_(struct pf_out o[OT_N], const char *arg);
int pms_script_pf_check_(struct pf_out o[OT_N], struct pms_perfdata_reader *r, bool aux);
bool pms_script_ibs_raw_(struct pms_perfdata_reader *r, const struct pms_perfdata_attr *a);

#endif
