/* Internal: the session's file decode shared by session.c and
 * session_split.c (one file on several threads, issue 33). */
#ifndef PMS_SESSION_INT_H
#define PMS_SESSION_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/record.h"
#include "pmuscope/session.h"

#define MAX_NODE_IDS 256

/* The [vdso] mappings a file of a merged report has ([start, end)): the
 * symbolizer leaves them unnamed when the file fails the vDSO rule
 * (session.c symbolizer_make). */
struct vdso_maps {
	struct {
		uint64_t start, end;
	} *v;
	size_t n, cap;
};

/* A file's kernel module maps (its kernel MMAPs other than the kernel's
 * own), for the session's symbolizer (session_kmods.c). */
struct kmod_maps {
	struct kmod_map {
		uint64_t start, end;
		char *path;
	} *v;
	size_t n, cap;
	bool kernel_mapped; /* the file maps [kernel.kallsyms] (perf's files) */
};

struct sfile {
	char *path;
	int fd;
	struct pms_perfdata_reader *r;
	struct pms_memsrc *src;
	char *err;         /* what stopped its decoding, NULL: none */
	/* its samples in the kept profile's list: [first, end) (the
	 * allocation table's process space of each, docs/mem.md) */
	size_t first, end;
	struct vdso_maps *vdso; /* several files only, else NULL */
	struct kmod_maps kmaps;
	/* its kernel judged (sess_kernel_judge): khere, the running one */
	bool kjudged, khere;
};

/* The per-sample state of one decode pass (one per file in parallel). */
struct pass {
	struct pms_session *s;
	struct pms_memprof *prof;
	struct pms_pathprof *paths;
	struct pms_advisor *adv;
	struct pms_c2c *c2c;
	struct types_sink *types; /* pms_session_set_types */
	struct pms_sorthist *sort; /* pms_session_set_sort */
	bool prof_samples;       /* the profile takes the samples (not only maps) */
	const struct sfile *f;   /* the file being read */
	bool started;            /* its first sample came: its headers are known */
	bool merge;              /* several files: name each sample's source */
	bool kjudge;             /* this file's kernel is judged at the next
				  * sample that may hold a kernel address */
	bool kforeign;           /* merged, and its kernel is not the running
				  * one: its samples that may hold a kernel
				  * address are PMS_MS_KERNEL_FOREIGN */
	int ids[MAX_NODE_IDS];   /* node ids of the files read so far */
	size_t nids;
	uint64_t events, pmin, pmax;
	int rc;
	/* The counters above are written every sample by the pass's thread;
	 * the next pass in an array (one file's chunks, several files) is
	 * read every sample by its own: a cache line apart, or the two
	 * threads share one line (seen: `report --jobs 2` at 3.0 s of CPU
	 * instead of 1.85 in one run of four, as the stack's place moved). */
	char apart[64];
};

/* The pass as before its file's first sample: every field its samples set
 * or count (started and what session.c pass_started sets up, the kernel
 * judgment's flags, the node ids, events and periods, rc) back to none;
 * its sinks, file and options are left as they are.  Here, not in
 * session.c: session_inorder.c uses it, and session.c calls into
 * session_inorder.c. */
static inline void sess_pass_restart(struct pass *ps)
{
	ps->started = ps->kjudge = ps->kforeign = false;
	ps->nids = 0;
	ps->events = ps->pmin = ps->pmax = 0;
	ps->rc = 0;
}


/* Passes v[i] over files f[i] (the session's, or one file's chunks). */
struct jobs {
	struct pass *v;
	struct sfile *f;
	size_t n;
	atomic_size_t next;
};

/* Decode one file to its end; a read error is kept as the file's. */
int sess_file_decode(struct pass *ps, struct sfile *f);
/* Run the jobs on threads threads (this one among them). */
void sess_jobs_run(struct jobs *js, size_t threads);
/* Join n passes into the session's, in order (files, or one file's
 * chunks). */
int sess_passes_join(struct pms_session *s, struct pass *v, size_t n);
/* What session_split.c uses of session.c, handed to it (so that it builds
 * on session.c's parts without calling into session.c). */
struct sess_ops {
	int (*decode)(struct pass *ps, struct sfile *f);
	void (*run)(struct jobs *js, size_t threads);
	int (*join)(struct pms_session *s, struct pass *v, size_t n);
	const struct pms_memprof_opts *po; /* NULL: the session has no profile */
	struct pms_pathprof *paths; /* the session's call paths, or NULL */
	struct types_sink *types;   /* the session's types sink, or NULL */
};
/* The sample fields that keep files from their own passes: several files
 * (their passes would need the session's call paths), one file's chunks
 * (each has a call-path collector, merged in order, but a DWARF unwind's
 * statistics are its unwinder's and its maps the chunk's). */
#define SESS_UNSPLIT_FILES (PMS_SAMPLE_CALLCHAIN | PMS_SAMPLE_BRANCH_STACK | PMS_SAMPLE_STACK_USER)
#define SESS_UNSPLIT_CHUNKS PMS_SAMPLE_STACK_USER
/* One file (the session's only) into the session's pass, read in file
 * order and checked to be in perf's order as it is read; where it was not,
 * the pass starts again and the file is read through the time-order queue
 * (session_inorder.c; ops->decode reads, as a split's chunks are).  1:
 * done; 0: not taken (a pipe file: read as before); or an error. */
int sess_decode_in_order(struct pms_session *s, struct sfile *f, const struct sess_ops *ops);
/* One file on several threads (session_split.c).  1: done; 0: the file
 * does not split (read as before); or an error. */
int sess_decode_split(struct pms_session *s, struct sfile *f, size_t threads,
		      const struct sess_ops *ops);

/* The session (session.c; its allocation sites and c2c report in
 * session_sites.c, which builds on session.c). */
struct pms_session {
	struct pms_sys *sys;
	const struct pms_topo *topo;
	struct pms_session_opts o;
	struct pms_memprof_opts po;
	struct pms_pathprof_opts pp;
	struct pms_advise_opts ao;
	struct pms_c2c_opts co;
	bool have_paths, have_adv, have_c2c;
	struct pms_session_callbacks cb;
	/* live */
	struct pms_liverun *run;
	bool finished;
	struct pms_memprof *prof_before;
	/* files */
	struct sfile *files;
	size_t nfiles;
	bool ran;
	/* the sinks */
	struct pass ps;
	struct pms_symbolizer *sym;
	struct pms_maps *sym_maps; /* what sym was made from (symkeep.h), or NULL */
	struct pms_kmods *kmods;   /* the files' module maps sym names from */
	/* allocation tracking (pms_session_set_alloc) */
	struct pms_alloc_table *alloc;
	int alloc_fd;
	uint64_t alloc_rate, alloc_threshold;
	const char *alloc_cal_why;
	bool clock_mono;          /* the live sampler stamps CLOCK_MONOTONIC */
	char **problems;         /* "path"-less texts, in file order */
	size_t *problem_file, nproblems;
	bool problems_done;
};

/* session.c: whether a file holds allocation records; the session's
 * symbolizer, made once from the profile's mappings (names are a nicety:
 * NULL on failure). */
bool sess_file_has_alloc(const struct sfile *f);
void sess_symbolizer_make(struct pms_session *s);
/* session.c: files: whether a file's kernel is the running one: its kernel
 * IPs are then named from this machine's kallsyms, as a live run names
 * them; a merged report's other files' stay unnamed (their samples are
 * PMS_MS_KERNEL_FOREIGN, pass.kforeign). */
bool sess_files_kernel_here(struct pms_session *s);

/* session_kmods.c: a file's kernel module MMAP kept (f: the file or one
 * of its chunks; any thread), 0 or PMS_ENOMEM; the files' module maps
 * handed to the session's symbolizer (each .ko read with the build id its
 * file lists), when a file maps its kernel: else the running kernel's
 * modules name them, as in the live run (a pmuscope file); freed. */
int sess_kmod_keep(struct pms_session *s, const struct sfile *f, const struct pms_record *rec);
void sess_kmods_apply(struct pms_session *s);
void sess_kmods_free(struct pms_session *s);
/* One file's module MMAP kept in km (a record of any type: the kernel's
 * and its modules' are kept), its maps added to k (pms_kmods_add, each
 * with the id info lists), freed. */
/* session_kmods.c: the per-file kernel rule.  A file's kernel is the
 * running one when the build ids it lists when judged name the running
 * kernel's (symtrack_kernel_here).  It is judged once, at its first sample
 * that may hold a kernel address (f: the file or one of its chunks; any
 * thread): in pipe mode from the HEADER_BUILD_ID records before that
 * sample, a later one changes nothing (docs/report.md).  Every output
 * keeps that judgment: sess_file_kernel_here gives it, else (no such
 * sample yet) the file's ids as read so far. */
bool sess_kernel_judge(struct pms_session *s, const struct sfile *f);
bool sess_file_kernel_here(struct pms_session *s, const struct sfile *f);
int kmod_maps_keep(struct kmod_maps *km, const struct pms_record *rec);
void kmod_maps_add(struct pms_kmods *k, struct kmod_maps *km, const struct pms_perfdata_info *info);
void kmod_maps_free(struct kmod_maps *km);

#endif
