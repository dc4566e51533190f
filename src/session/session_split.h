/* Internal: one file's data decoded in chunks on several threads (issue 33;
 * the plan: src/perfdata/split.c).  session.c runs the chunks, one pass
 * and profile each, and merges the profiles in chunk order. */
#ifndef PMS_SESSION_SPLIT_H
#define PMS_SESSION_SPLIT_H

#include "pmuscope/memsrc.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/report.h"
#include "perfdata/reader_lazy.h"

struct sess_split {
	struct pms_pd_split plan;
	size_t n;
	struct pms_perfdata_reader *r[PMS_PD_SPLIT_MAX];
	struct pms_memsrc *src[PMS_PD_SPLIT_MAX];
	struct pms_pd_follow follow; /* the quick way: the first chunk's end */
};

/* The quick way, for data in perf's order: chunks cut by a walk over the
 * record headers (pms_pd_split_walk), each read in file order and checked
 * to be in perf's order as it is read.  In two steps, the walk going on while the first chunk is
 * read: the first chunk (a reader from the data's start whose end follows
 * the walk, and a source; sp->n 1), then, on another thread, the walk and
 * the other chunks (1: sp->n chunks; 0: no cut, the first chunk reads all
 * the data). */
int sess_split_first(struct pms_perfdata_reader *fr, struct sess_split *sp);
int sess_split_rest(struct pms_perfdata_reader *fr, size_t parts, struct sess_split *sp);
/* After the quick way's chunks were read: whether the data was in perf's
 * order, as taken.  If not, their reading counts for nothing (close them
 * with NULLs and take the long way, sess_split_open). */
bool sess_split_quick_held(const struct sess_split *sp, const struct pms_perfdata_reader *fr);
/* The long way: plan at most parts chunks of the file whose reader and source are *fr
 * and *fsrc (not yet read).  1: split (sp->n chunks, each a reader and a
 * source; *fr and *fsrc replaced by the reader that read the data for the
 * plan, whose statistics and problems are the file's, and a source over
 * it); 0: not split (the file is read as before, what the look found of
 * its order kept for its queue); or an error. */
int sess_split_open(struct pms_perfdata_reader **fr, struct pms_memsrc **fsrc, size_t parts,
		    struct sess_split *sp);
/* Give prof (and types, when not NULL) the side-band that precedes chunk
 * k in perf's order, as the session's file_sideband gives it (COMM exec
 * aside for prof). */
struct types_sink;
int sess_split_seed(struct sess_split *sp, size_t k, struct pms_memprof *prof,
		    struct types_sink *types);
/* What the chunks' sources counted into fsrc, and (the quick way) what
 * their readers counted into fr, when not NULL; the chunks freed. */
void sess_split_close(struct sess_split *sp, struct pms_memsrc *fsrc,
		      struct pms_perfdata_reader *fr);

#endif
