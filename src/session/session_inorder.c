/* One file read on one thread in file order, taken as perf's order and
 * checked as it is read (session_int.h sess_decode_in_order; issue 33).
 *
 * The time-order queue (src/perfdata/ordered.c) hands a file's records out
 * as they come when perf's order is the file's; it finds that by reading
 * all the data once ahead (data_in_time_order), which costs a read of the
 * whole file before the one that decodes it (at 5 M samples, 13 % of
 * `report --no-symbols --jobs 1`'s CPU).  Here the one read goes first: a
 * reader over the whole data (a chunk, as the split's quick way reads its
 * first, src/session/session_split.c) with order hint 2 hands the records
 * out in file order and stops at the first that breaks perf's order (the
 * rule ordered.c's look applies); the session's pass takes them straight.
 * When the data held, that was the file's decode: the chunk's counts go to
 * the file's reader and source.  When it did not (a perf record file
 * breaks at its first FINISHED_ROUND), what the pass took is dropped (the
 * profile made again, still without a sample of another file) and the
 * file's own reader reads it again through the queue, the look skipped. */
#include "session/session_int.h"
#include "session/session_split.h"
#include "report/pathprof_merge.h"
#include "sample/memsrc_int.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

int sess_decode_in_order(struct pms_session *s, struct sfile *f, const struct sess_ops *ops)
{
	struct sess_split sp;
	int rc;
	memset(&sp, 0, sizeof(sp));
	if (pms_perfdata_reader_is_pipe(f->r))
		return 0;
	uint64_t start = pms_pd_reader_data_pos(f->r), end = pms_pd_reader_data_end(f->r);
	struct pms_pd_chunk all = { start, end, false, false, 0, 0, 2 };
	if ((rc = pms_pd_reader_chunk(f->r, &all, &sp.r[0])) < 0)
		return rc;
	sp.n = 1;
	if ((rc = pms_memsrc_open_reader(sp.r[0], &sp.src[0])) < 0) {
		sess_split_close(&sp, NULL, NULL);
		return rc;
	}
	/* the file as the pass sees it: its path (the kernel modules are kept
	 * by it, sess_kmod_keep), the chunk's reader and source */
	struct sfile cf = { .path = f->path, .fd = -1, .r = sp.r[0], .src = sp.src[0],
			    .vdso = f->vdso };
	/* the call paths into an empty twin, merged into the session's when
	 * the data held (as a split's chunk's are) */
	struct pms_pathprof *paths = s->ps.paths, *tw = NULL;
	if (paths && (rc = pms_pathprof_twin(paths, &tw)) < 0) {
		sess_split_close(&sp, NULL, NULL);
		return rc;
	}
	s->ps.paths = tw;
	rc = ops->decode(&s->ps, &cf);
	s->ps.paths = paths;
	bool held = rc >= 0 && !cf.err && s->ps.rc >= 0 && sess_split_quick_held(&sp, f->r);
	free(cf.err);
	s->ps.f = f;
	if (held && tw)
		rc = pms_pathprof_merge(paths, tw);
	pms_pathprof_free(tw);
	if (rc < 0) {
		sess_split_close(&sp, NULL, NULL);
		return rc;
	}
	if (held) {
		sess_split_close(&sp, f->src, f->r);
		return 1;
	}
	uint64_t t0, t1;
	bool untimed;
	bool broke = !pms_pd_reader_order_seen(sp.r[0], &t0, &t1, &untimed);
	sess_split_close(&sp, NULL, NULL);
	/* not in perf's order: the pass starts again, the queue reads it (a
	 * read error or a problem: the look decides, as before) */
	struct pms_memprof *p = NULL;
	if ((rc = pms_memprof_new(NULL, &s->po, &p)) < 0)
		return rc;
	pms_memprof_free(s->ps.prof);
	s->ps.prof = p;
	sess_pass_restart(&s->ps);
	pms_pd_reader_set_order_hint(f->r, broke ? -1 : 0);
	if ((rc = ops->decode(&s->ps, f)) < 0)
		return rc;
	return 1;
}
