/* One file's data decoded in chunks (session_split.h, issue 33). */
#include "session/session_split.h"
#include "session/session_int.h"
#include "report/pathprof_merge.h"
#include "sample/memsrc_int.h"
#include "session/types_sink.h"
#include "util/error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A reader and a source for each planned chunk, over base's data. */
static int chunks_open(struct sess_split *sp, const struct pms_perfdata_reader *base)
{
	int rc;
	for (size_t k = 0; k < sp->plan.n; k++) {
		if ((rc = pms_pd_reader_chunk(base, &sp->plan.chunk[k], &sp->r[k])) < 0 ||
		    (rc = pms_memsrc_open_reader(sp->r[k], &sp->src[k])) < 0) {
			sp->n = k + 1;
			sess_split_close(sp, NULL, NULL);
			return rc;
		}
		sp->n = k + 1;
	}
	return 0;
}

int sess_split_first(struct pms_perfdata_reader *fr, struct sess_split *sp)
{
	int rc;
	memset(sp, 0, sizeof(*sp));
	atomic_init(&sp->follow.upto, 0);
	atomic_init(&sp->follow.done, false);
	uint64_t start = pms_pd_reader_data_pos(fr);
	struct pms_pd_chunk c = { start, start, false, false, 0, 0, 2 };
	if (pms_perfdata_reader_is_pipe(fr))
		return 0;
	if ((rc = pms_pd_reader_chunk(fr, &c, &sp->r[0])) < 0)
		return rc;
	sp->n = 1;
	pms_pd_reader_follow(sp->r[0], &sp->follow);
	if ((rc = pms_memsrc_open_reader(sp->r[0], &sp->src[0])) < 0) {
		sess_split_close(sp, NULL, NULL);
		return rc;
	}
	return 1;
}

int sess_split_rest(struct pms_perfdata_reader *fr, size_t parts, struct sess_split *sp)
{
	int rc;
	if ((rc = pms_pd_split_walk(fr, parts, &sp->plan, &sp->follow)) < 0 || sp->plan.n < 2)
		return rc < 0 ? rc : 0;
	for (size_t k = 1; k < sp->plan.n; k++) {
		if ((rc = pms_pd_reader_chunk(fr, &sp->plan.chunk[k], &sp->r[k])) < 0 ||
		    (rc = pms_memsrc_open_reader(sp->r[k], &sp->src[k])) < 0) {
			sp->n = k + 1;
			return rc;
		}
		sp->n = k + 1;
	}
	return 1;
}

bool sess_split_quick_held(const struct sess_split *sp, const struct pms_perfdata_reader *fr)
{
	uint64_t last = 0;
	bool timed = false;
	for (size_t k = 0; k < sp->n; k++) {
		uint64_t t0, t1;
		bool untimed;
		if (!pms_pd_reader_order_seen(sp->r[k], &t0, &t1, &untimed) ||
		    /* a problem found while reading: the file's one reader says it */
		    pms_pd_reader_nproblems_open(sp->r[k]) != pms_pd_reader_nproblems_open(fr) ||
		    (untimed && timed) || (k && untimed))
			return false;
		if (!t0)
			continue;
		if (timed && t0 < last)
			return false;
		timed = true;
		last = t1;
	}
	return true;
}

int sess_split_open(struct pms_perfdata_reader **fr, struct pms_memsrc **fsrc, size_t parts,
		    struct sess_split *sp)
{
	int rc;
	memset(sp, 0, sizeof(*sp));
	if ((rc = pms_pd_split_plan(*fr, parts, &sp->plan)) < 0 || sp->plan.n < 2) {
		/* a read error: the file's own decode meets it again, and says it */
		if (rc == 0 && sp->plan.order)
			pms_pd_reader_set_order_hint(*fr, sp->plan.order);
		pms_pd_split_free(&sp->plan);
		return 0;
	}
	if ((rc = chunks_open(sp, sp->plan.scanned)) < 0)
		return rc;
	/* the file's reader and source: the one that read it all */
	struct pms_memsrc *src = NULL;
	if ((rc = pms_memsrc_open_reader(sp->plan.scanned, &src)) < 0) {
		sess_split_close(sp, NULL, NULL);
		return rc;
	}
	pms_memsrc_free(*fsrc);
	pms_pd_reader_take_map(sp->plan.scanned, *fr);
	pms_perfdata_reader_free(*fr);
	*fr = sp->plan.scanned;
	sp->plan.scanned = NULL;
	*fsrc = src;
	return 1;
}

int sess_split_seed(struct sess_split *sp, size_t k, struct pms_memprof *prof,
		    struct types_sink *types)
{
	const struct pms_pd_chunk *c = &sp->plan.chunk[k];
	struct pms_pd_chunk all = { sp->plan.chunk[0].start, sp->plan.chunk[sp->n - 1].end,
				    false, false, 0, 0, 0 };
	struct pms_perfdata_reader *r = NULL;
	struct pms_perfdata_event ev;
	int rc = 0;
	for (size_t i = 0; i < sp->plan.nsb && rc >= 0; i++) {
		const struct pms_pd_sideband *e = &sp->plan.sb[i];
		if (!pms_pd_split_before(c, e))
			continue;
		if (!r && (rc = pms_pd_reader_chunk(sp->r[0], &all, &r)) < 0)
			break;
		pms_pd_reader_set_range(r, e->off, e->off + e->len);
		if ((rc = pms_perfdata_next(r, &ev)) <= 0) {
			rc = rc < 0 ? rc : pms_err(PMS_EPARSE, "a side-band record at offset %llu "
							       "did not read again",
						   (unsigned long long)e->off);
			break;
		}
		if (prof && !(ev.rec.type == PMS_RECORD_COMM && (ev.rec.misc & PMS_MISC_COMM_EXEC)))
			rc = pms_memprof_sideband(prof, &ev.rec, NULL);
		if (rc >= 0 && types)
			rc = types_sink_sideband(types, &ev.rec);
	}
	pms_perfdata_reader_free(r);
	return rc < 0 ? rc : 0;
}

void sess_split_close(struct sess_split *sp, struct pms_memsrc *fsrc,
		      struct pms_perfdata_reader *fr)
{
	for (size_t k = 0; k < sp->n; k++) {
		if (fsrc && sp->src[k])
			pms_memsrc_absorb(fsrc, sp->src[k]);
		if (fr && sp->r[k])
			pms_pd_reader_stats_absorb(fr, sp->r[k]);
		pms_memsrc_free(sp->src[k]);
		pms_perfdata_reader_free(sp->r[k]);
	}
	pms_pd_split_free(&sp->plan);
	sp->n = 0;
}

/* ---- the decode (session.c's passes, one per chunk) ---------------------- */

/* Chunk k's file and pass: a profile (the side-band before it given, after
 * the first), call paths and a types sink when the session has them (the
 * types sink alone: no profile). */
static int pass_new(const struct sess_ops *ops, struct pms_session *s, const struct sfile *f,
		    struct sess_split *sp, size_t k, struct pass *v, struct sfile *fv)
{
	int rc;
	fv[k] = (struct sfile){ .path = f->path, .fd = -1, .r = sp->r[k], .src = sp->src[k] };
	v[k] = (struct pass){ .s = s, .prof_samples = true };
	if ((ops->po && (rc = pms_memprof_new(NULL, ops->po, &v[k].prof)) < 0) ||
	    (ops->paths && (rc = pms_pathprof_twin(ops->paths, &v[k].paths)) < 0) ||
	    (ops->types && (rc = types_sink_twin(ops->types, &v[k].types)) < 0))
		return rc;
	return k ? sess_split_seed(sp, k, v[k].prof, v[k].types) : 0;
}

/* The chunks of sp (over file f) on threads threads: one pass and profile
 * each in v (fv: the chunks as files), the chunks after the first given
 * the side-band before them. */
static int split_run(const struct sess_ops *ops, struct pms_session *s, const struct sfile *f,
		     struct sess_split *sp,
		     struct pass *v, struct sfile *fv, size_t threads)
{
	int rc;
	for (size_t k = 0; k < sp->n; k++)
		if ((rc = pass_new(ops, s, f, sp, k, v, fv)) < 0)
			return rc;
	struct jobs js = { v, fv, sp->n, 0 };
	ops->run(&js, threads < sp->n ? threads : sp->n);
	return 0;
}

static void split_drop(struct sess_split *sp, struct pass *v, struct sfile *fv)
{
	for (size_t k = 0; k < sp->n; k++) {
		pms_memprof_free(v[k].prof);
		v[k].prof = NULL;
		pms_pathprof_free(v[k].paths);
		v[k].paths = NULL;
		types_sink_free(v[k].types);
		v[k].types = NULL;
		free(fv[k].err);
		fv[k].err = NULL;
	}
}

/* The quick way's other thread: the walk, then the chunks after the
 * first (session_split.h), on threads - 1 threads. */
struct rest_job {
	const struct sess_ops *ops;
	struct pms_session *s;
	struct sfile *f;
	struct sess_split *sp;
	struct pass *v;
	struct sfile *fv;
	size_t threads;
	int rc;
};

static void *rest_worker(void *ud)
{
	struct rest_job *j = ud;
	struct sess_split *sp = j->sp;
	int rc = sess_split_rest(j->f->r, j->threads, sp);
	for (size_t k = 1; rc > 0 && k < sp->n; k++) {
		int e = pass_new(j->ops, j->s, j->f, sp, k, j->v, j->fv);
		if (e < 0)
			rc = e;
	}
	if (rc > 0) {
		struct jobs js = { j->v + 1, j->fv + 1, sp->n - 1, 0 };
		j->ops->run(&js, j->threads - 1);
	}
	j->rc = rc;
	return NULL;
}

/* The quick way: this thread reads the first chunk from the data's start
 * while another walks the record headers for the cuts and then reads the
 * chunks after.  1: the chunks were read (sp->n, v, fv); 0: the long way
 * is needed (all dropped); or an error. */
static int split_quick(const struct sess_ops *ops, struct pms_session *s, struct sfile *f,
		       struct sess_split *sp,
		       struct pass *v, struct sfile *fv, size_t threads)
{
	int rc = sess_split_first(f->r, sp);
	if (rc <= 0)
		return rc;
	struct rest_job rj = { ops, s, f, sp, v, fv, threads, 0 };
	pthread_t tid;
	bool thread = false;
	if ((rc = pass_new(ops, s, f, sp, 0, v, fv)) >= 0) {
		thread = pthread_create(&tid, NULL, rest_worker, &rj) == 0;
		if (!thread)
			rest_worker(&rj); /* the walk first, then the first chunk */
		v[0].rc = ops->decode(&v[0], &fv[0]);
	}
	if (thread)
		pthread_join(tid, NULL);
	if (rc >= 0 && rj.rc < 0)
		rc = rj.rc;
	if (rc >= 0 && !sess_split_quick_held(sp, f->r)) {
		split_drop(sp, v, fv);
		sess_split_close(sp, NULL, NULL);
		return 0;
	}
	return rc < 0 ? rc : 1;
}

/* One file on several threads (issue 33): its data in chunks
 * (session_split.h), one pass and profile each, merged in chunk order.
 * First the quick way (split_quick: cut by the record headers, taken as
 * in perf's order and checked while read); where the data was not in that
 * order, the long way (a look at the whole data plans the chunks).  1:
 * done; 0: the file does not split (read as before). */
int sess_decode_split(struct pms_session *s, struct sfile *f, size_t threads,
		      const struct sess_ops *ops)
{
	struct sess_split sp;
	struct sfile fv[PMS_PD_SPLIT_MAX];
	struct pass v[PMS_PD_SPLIT_MAX];
	bool quick = true;
	memset(fv, 0, sizeof(fv));
	memset(v, 0, sizeof(v));
	int rc = split_quick(ops, s, f, &sp, v, fv, threads);
	if (rc == 0) {
		quick = false;
		if ((rc = sess_split_open(&f->r, &f->src, threads, &sp)) <= 0)
			return rc;
		rc = split_run(ops, s, f, &sp, v, fv, threads);
	}
	for (size_t k = 0; rc >= 0 && k < sp.n && !f->err; k++)
		if (fv[k].err && !(f->err = strdup(fv[k].err)))
			rc = pms_err(PMS_ENOMEM, "pms_session_run: out of memory");
	if (rc >= 0)
		rc = ops->join(s, v, sp.n);
	/* the call paths in chunk order, into the session's (empty so far) */
	for (size_t k = 0; rc >= 0 && ops->paths && k < sp.n; k++)
		rc = pms_pathprof_merge(ops->paths, v[k].paths);
	/* the types likewise (each chunk's twin sink, one resolver) */
	for (size_t k = 0; rc >= 0 && ops->types && k < sp.n; k++)
		rc = types_sink_join(ops->types, v[k].types);
	split_drop(&sp, v, fv);
	sess_split_close(&sp, f->src, quick ? f->r : NULL);
	return rc < 0 ? rc : 1;
}
