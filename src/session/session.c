/* One memory-profiling session (include/pmuscope/session.h): a live run or
 * perf.data files, and the sinks their samples go to.  The files' parallel
 * decode (one profile per file, merged in file order) and the per-file
 * bookkeeping (node ids, source names) moved here from tools/cmd_report.c,
 * the live wiring (profile, call paths, the --apply switch) from
 * tools/cmd_mem.c and tools/mem_advise.c. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "pmuscope/session.h"
#include "session/c2c_sites.h"
#include "session/inlpath.h"
#include "session/session_int.h"
#include "session/session_split.h"
#include "session/symkeep.h"
#include "session/symtrack_int.h"
#include "session/sorthist_int.h"
#include "session/types_sink.h"
#include "decode/kaddr.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/opts.h"
#include "report/c2c_int.h"
#include "liverun/liverun_int.h"
#include "recorder/recorder_int.h"
#include "sample/memsrc_int.h"
#include "perfdata/reader_int.h"
#include "alloc/alloc_int.h"

PMS_OPTS_LAYOUT(PMS_SESSION_OPTS, struct pms_session_opts,
		PMS_OPTS_END(struct pms_session_opts, c2c_opts));

/* The session's own copies: its options, and the sinks' options each taken
 * by its own struct's rule (an older caller's shorter struct included). */
static int opts_take(struct pms_session *s, const struct pms_session_opts *opts)
{
	int rc;
	if ((rc = PMS_OPTS_TAKE("pms_session_open", PMS_SESSION_OPTS, opts, &s->o)) < 0)
		return rc;
	if ((rc = PMS_OPTS_TAKE("pms_session_open (profile_opts)", PMS_MEMPROF_OPTS,
				s->o.profile_opts, &s->po)) < 0)
		return rc;
	if (s->o.paths_opts) {
		if ((rc = PMS_OPTS_TAKE("pms_session_open (paths_opts)", PMS_PATHPROF_OPTS,
					s->o.paths_opts, &s->pp)) < 0)
			return rc;
		s->have_paths = true;
	}
	if (s->o.advise_opts) {
		if ((rc = PMS_OPTS_TAKE("pms_session_open (advise_opts)", PMS_ADVISE_OPTS,
					s->o.advise_opts, &s->ao)) < 0)
			return rc;
		s->have_adv = true;
	}
	if (s->o.c2c_opts) {
		if ((rc = PMS_OPTS_TAKE("pms_session_open (c2c_opts)", PMS_C2C_OPTS, s->o.c2c_opts,
					&s->co)) < 0)
			return rc;
		s->have_c2c = true;
	}
	if (s->o.callbacks)
		s->cb = *s->o.callbacks;
	s->o.callbacks = NULL;
	s->o.profile_opts = NULL;
	s->o.paths_opts = NULL;
	s->o.advise_opts = NULL;
	s->o.c2c_opts = NULL;
	return 0;
}

/* ---- the sinks ------------------------------------------------------------ */

/* The pass at its file's first sample (session_int.h sess_pass_restart
 * undoes it and what the samples counted). */
static void pass_started(struct pass *ps)
{
	size_t n = 0;
	const int *ids = pms_memsrc_node_ids(ps->f->src, &n);
	ps->started = true;
	/* the file's kernel is judged at its first sample that may hold a
	 * kernel address (file_sample; session_kmods.c sess_kernel_judge) */
	ps->kjudge = ps->f->r != NULL;
	ps->kforeign = false;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < ps->nids && ps->ids[k] != ids[i])
			k++;
		if (k == ps->nids && ps->nids < MAX_NODE_IDS)
			ps->ids[ps->nids++] = ids[i];
	}
	if (!ps->prof)
		return;
	/* the CPU-node x memory-node matrix lists the files' nodes */
	if (ps->nids)
		(void)pms_memprof_set_node_ids(ps->prof, ps->ids, ps->nids);
	if (ps->merge) {
		/* in pipe mode the HOSTNAME feature came before the data */
		const char *h = pms_perfdata_reader_info(ps->f->r)->hostname;
		int rc = pms_memprof_set_source(ps->prof, h && *h ? h : ps->f->path);
		if (rc < 0)
			ps->rc = rc;
	}
}

/* The sort histogram's naming bound to the file being read (each file of
 * a merged report -s: its own, sorthist_bind). */
static void sort_bind(struct pass *ps)
{
	sorthist_bind(ps->sort, ps->s->sys, ps->f ? pms_perfdata_reader_info(ps->f->r) : NULL);
}

/* The types sink and the sort histogram (its type keys take the sink's
 * hit), files and live alike. */
static int extra_sample(struct pass *ps, const struct pms_memsrc_sample *x)
{
	struct pms_type_hit hit;
	int rc = ps->types ? types_sink_sample(ps->types, x, &hit) : 0;
	if (rc >= 0 && ps->sort) {
		sort_bind(ps);
		rc = sorthist_sample(ps->sort, x, ps->types ? &hit : NULL);
	}
	return rc;
}

static int extra_sideband(struct pass *ps, const struct pms_record *rec)
{
	int rc = ps->types ? types_sink_sideband(ps->types, rec) : 0;
	if (rc >= 0 && ps->sort) {
		sort_bind(ps);
		rc = sorthist_sideband(ps->sort, rec);
	}
	return rc;
}

static int file_sample(void *ud, const struct pms_memsrc_sample *x)
{
	struct pass *ps = ud;
	if (!ps->started) {
		pass_started(ps);
		if (ps->rc < 0)
			return ps->rc;
	}
	ps->events += x->ms.period;
	if (!ps->pmin || x->ms.period < ps->pmin)
		ps->pmin = x->ms.period;
	if (x->ms.period > ps->pmax)
		ps->pmax = x->ms.period;
	struct pms_memsrc_sample fx;
	if ((ps->kjudge || ps->kforeign) &&
	    (x->rec ? kaddr_in_sample(&x->rec->sample) : kaddr_in_memsample(&x->ms))) {
		/* a merged report names each file's kernel IPs when its
		 * kernel is the running one (the [vdso] rule is per file
		 * too); the others' samples that may hold a kernel address
		 * are marked: the tables, call paths and c2c keep them apart,
		 * unnamed (not a copy each) */
		if (ps->kjudge) {
			ps->kjudge = false;
			bool here = sess_kernel_judge(ps->s, ps->f);
			ps->kforeign = !here && ps->merge;
			if (ps->sort) { /* report -s: the same judgment, per file */
				sort_bind(ps);
				sorthist_kernel(ps->sort, here);
			}
		}
		if (ps->kforeign) {
			fx = *x;
			fx.ms.valid |= PMS_MS_KERNEL_FOREIGN;
			x = &fx;
		}
	}
	if (ps->adv && (x->ms.valid & PMS_MS_ADDR)) {
		/* PERF_MEM_OP_STORE: bit 2 of data_src's mem_op */
		bool store = (x->ms.valid & PMS_MS_DATA_SRC) && (x->ms.data_src & 0x04);
		int arc = pms_advisor_add(ps->adv, x->ms.pid, x->ms.addr, x->mem_node, x->cpu_node,
					  (x->ms.valid & PMS_MS_WEIGHT) ? x->ms.weight : 0, store);
		if (arc < 0)
			return arc;
	}
	int rc = 0;
	if (ps->c2c) {
		if (!pms_c2c_count(ps->c2c)) {
			/* the model's engine, once the source knows it (pipe
			 * mode: at the first sample) */
			struct pms_memsrc_info info;
			pms_memsrc_info(ps->f->src, &info);
			pms_c2c_set_engine(ps->c2c, info.engine);
		}
		rc = pms_c2c_add_src(ps->c2c, x);
	}
	if (rc >= 0 && ps->prof && ps->prof_samples)
		rc = pms_memprof_add_src(ps->prof, x);
	/* the mappings matter only to a DWARF unwind (its user stack) */
	if (rc >= 0 && ps->paths)
		rc = pms_pathprof_add_src(ps->paths, x,
					  x->path.how == PMS_CALLGRAPH_DWARF && ps->prof
						  ? pms_memprof_maps(ps->prof)
						  : NULL);
	if (rc >= 0 && (ps->types || ps->sort))
		rc = extra_sample(ps, x);
	if (rc >= 0 && ps->s->cb.sample)
		rc = ps->s->cb.sample(ps->s->o.ud, x);
	return rc;
}

/* A [vdso] mapping of a merged report's file kept (vdso_maps). */
static int vdso_keep(struct vdso_maps *m, const struct pms_record *rec)
{
	if (!m || (rec->type != PMS_RECORD_MMAP && rec->type != PMS_RECORD_MMAP2) ||
	    !rec->mmap.filename || strcmp(rec->mmap.filename, "[vdso]") || !rec->mmap.len)
		return 0;
	uint64_t start = rec->mmap.addr, end = start + rec->mmap.len;
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].start == start && m->v[i].end == end)
			return 0;
	if (pms_grow(&m->v, &m->cap, m->n + 1, sizeof(*m->v), 8, "[vdso] mappings") < 0)
		return PMS_ENOMEM;
	m->v[m->n].start = start;
	m->v[m->n++].end = end;
	return 0;
}

static int file_sideband(void *ud, const struct pms_record *rec, size_t attr_idx)
{
	struct pass *ps = ud;
	int rc = 0;
	if (ps->f && ((rc = vdso_keep(ps->f->vdso, rec)) < 0 ||
		      (rc = sess_kmod_keep(ps->s, ps->f, rec)) < 0))
		return rc;
	/* the model keeps each process's maps and the kernel's for perf's
	 * nomap at each sample's time */
	if (ps->c2c && (rc = pms_c2c_sideband(ps->c2c, rec)) < 0)
		return rc;
	/* A file holds many processes (and a merged report many files): keep
	 * every mapping across exec, a later one replacing what it overlaps,
	 * as the aggregate mode does, so that keeping the samples names code
	 * and data as the aggregate profile does. */
	if (ps->prof && !(rec->type == PMS_RECORD_COMM && (rec->misc & PMS_MISC_COMM_EXEC)))
		rc = pms_memprof_sideband(ps->prof, rec, NULL);
	if (rc >= 0 && (ps->types || ps->sort))
		rc = extra_sideband(ps, rec);
	if (rc >= 0 && ps->s->cb.sideband)
		rc = ps->s->cb.sideband(ps->s->o.ud, rec, attr_idx);
	return rc;
}

static int live_sample(void *ud, const struct pms_memsrc_sample *x)
{
	struct pms_session *s = ud;
	int rc = 0;
	if (x->ms.period) {
		s->ps.events += x->ms.period;
		if (!s->ps.pmin || x->ms.period < s->ps.pmin)
			s->ps.pmin = x->ms.period;
		if (x->ms.period > s->ps.pmax)
			s->ps.pmax = x->ms.period;
	}
	if (s->ps.paths)
		rc = pms_pathprof_add_src(s->ps.paths, x,
					  s->ps.prof ? pms_memprof_maps_pid(s->ps.prof,
									  (pid_t)x->ms.pid)
						     : NULL);
	if (rc >= 0 && (s->ps.types || s->ps.sort))
		rc = extra_sample(&s->ps, x);
	if (rc >= 0 && s->cb.sample)
		rc = s->cb.sample(s->o.ud, x);
	return rc;
}

static int live_sideband(void *ud, const struct pms_record *rec, size_t attr_idx)
{
	struct pms_session *s = ud;
	int rc = s->ps.types || s->ps.sort ? extra_sideband(&s->ps, rec) : 0;
	return rc >= 0 && s->cb.sideband ? s->cb.sideband(s->o.ud, rec, attr_idx) : rc;
}

static void live_progress(void *ud, const struct pms_liverun_progress *p)
{
	struct pms_session *s = ud;
	if (s->cb.progress)
		s->cb.progress(s->o.ud, p);
}

static int sinks_new(struct pms_session *s, const struct pms_topo *topo)
{
	int rc;
	if (!s->o.profile && s->have_c2c && !s->run) {
		/* the mappings only, for the model's names */
		struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
		po.aggregate = true;
		s->po = po;
	}
	s->ps.prof_samples = s->o.profile;
	if ((s->o.profile || s->have_c2c) && (rc = pms_memprof_new(topo, &s->po, &s->ps.prof)) < 0)
		return rc;
	if (s->have_c2c) {
		s->co.recorded = !s->run;
		if ((rc = pms_c2c_new(PMS_ENG_NONE, &s->co, &s->ps.c2c)) < 0)
			return rc;
	}
	if (s->have_paths && s->sys && (rc = pms_pathprof_new(s->sys, &s->pp, &s->ps.paths)) < 0)
		return rc;
	if (s->have_adv && !s->run && (rc = pms_advisor_new(topo, &s->ao, &s->ps.adv)) < 0)
		return rc;
	return 0;
}

/* ---- open / free ---------------------------------------------------------- */

int pms_session_open_live(struct pms_sys *sys, const struct pms_pmus *pmus,
			  const struct pms_topo *topo, const struct pms_liverun_opts *lo,
			  const struct pms_session_opts *opts, struct pms_session **out)
{
	int rc;
	if (!sys || !lo || !out)
		return pms_err(PMS_EINVAL, "pms_session_open_live: sys, lo and out are required");
	struct pms_session *s = calloc(1, sizeof(*s));
	if (!s)
		return pms_err(PMS_ENOMEM, "pms_session_open_live: out of memory");
	s->sys = sys;
	s->topo = topo;
	s->ps.s = s;
	s->clock_mono = lo->sampler && lo->sampler->version >= 6 && lo->sampler->clock_monotonic;
	if ((rc = opts_take(s, opts)) < 0)
		goto fail;
	static const struct pms_liverun_callbacks lcb = { live_sample, live_sideband,
							   live_progress };
	struct pms_liverun_opts l = *lo;
	l.callbacks = &lcb;
	l.ud = s;
	if ((rc = pms_liverun_open(sys, pmus, topo, &l, &s->run)) < 0)
		goto fail;
	pid_t pid = lo->target == PMS_LIVERUN_SYSTEM ? -1 : pms_liverun_pid(s->run);
	s->po.pid = pid > 0 ? pid : 0;
	if ((rc = sinks_new(s, topo)) < 0)
		goto fail;
	pms_liverun_set_profile(s->run, s->ps.prof);
	*out = s;
	return 0;
fail:
	pms_session_free(s);
	return rc;
}

size_t pms_session_permission_hint(const struct pms_sys *sys, const struct pms_liverun_opts *lo,
				   char *buf, size_t len)
{
	/* the library's message says it ("no sampling engine could be
	 * opened: ..."); the engines' refusals name their errnos */
	const char *m = pms_error_last();
	bool denied = pms_error_errno() == EACCES || pms_error_errno() == EPERM ||
		      (m && (strstr(m, "EACCES") || strstr(m, "EPERM")));
	int n = 0;
	if (!len)
		return 0;
	buf[0] = 0;
	if (!denied || !lo)
		return 0;
	if (lo->target == PMS_LIVERUN_SYSTEM) {
		int par;
		char pbuf[16] = "unreadable";
		if (pms_sys_perf_paranoid(sys, &par) == 0)
			snprintf(pbuf, sizeof(pbuf), "%d", par);
		n = snprintf(buf, len,
			     "system-wide sampling (-a) needs CAP_PERFMON (or root), or "
			     "kernel.perf_event_paranoid <= 0 (it is %s)",
			     pbuf);
	} else if (lo->target == PMS_LIVERUN_PID) {
		n = snprintf(buf, len,
			     "-p %d: watching another user's process needs the right to ptrace it "
			     "(same user), or CAP_PERFMON (or root)",
			     (int)lo->pid);
	}
	return n > 0 ? ((size_t)n < len ? (size_t)n : len - 1) : 0;
}

int pms_session_open_files(struct pms_sys *sys, const char *const *paths, size_t npaths,
			   const struct pms_session_opts *opts, struct pms_session **out)
{
	int rc;
	if (!paths || !npaths || !out)
		return pms_err(PMS_EINVAL, "pms_session_open_files: no files");
	for (size_t i = 0; i < npaths; i++)
		for (size_t k = 0; k < i; k++)
			if (!strcmp(paths[i], "-") && !strcmp(paths[k], "-"))
				return pms_err(PMS_EINVAL, "stdin ('-') can be read once");
	struct pms_session *s = calloc(1, sizeof(*s));
	if (!s)
		return pms_err(PMS_ENOMEM, "pms_session_open_files: out of memory");
	s->sys = sys;
	s->ps.s = s;
	if ((rc = opts_take(s, opts)) < 0)
		goto fail;
	s->files = calloc(npaths, sizeof(*s->files));
	if (!s->files) {
		rc = pms_err(PMS_ENOMEM, "pms_session_open_files: out of memory");
		goto fail;
	}
	for (size_t i = 0; i < npaths; i++) {
		s->files[s->nfiles].fd = -1;
		if (!(s->files[s->nfiles].path = strdup(paths[i]))) {
			rc = pms_err(PMS_ENOMEM, "pms_session_open_files: out of memory");
			goto fail;
		}
		s->nfiles++;
		if (npaths > 1 && !(s->files[i].vdso = calloc(1, sizeof(struct vdso_maps)))) {
			rc = pms_err(PMS_ENOMEM, "pms_session_open_files: out of memory");
			goto fail;
		}
	}
	s->ps.merge = npaths > 1;
	if ((rc = sinks_new(s, NULL)) < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	pms_session_free(s);
	return rc;
}

void pms_session_free(struct pms_session *s)
{
	if (!s)
		return;
	/* the run owns the sampler, source, oracle, command and recorder; it
	 * puts the signal handlers back */
	pms_liverun_free(s->run);
	pms_symbolizer_free(s->sym);
	sess_kmods_free(s);
	pms_maps_free(s->sym_maps);
	pms_pathprof_free(s->ps.paths);
	pms_advisor_free(s->ps.adv);
	pms_c2c_free(s->ps.c2c);
	types_sink_free(s->ps.types);
	pms_sorthist_free(s->ps.sort);
	pms_memprof_free(s->ps.prof);
	pms_memprof_free(s->prof_before);
	for (size_t i = 0; i < s->nfiles; i++) {
		struct sfile *f = &s->files[i];
		pms_memsrc_free(f->src);
		pms_perfdata_reader_free(f->r);
		if (f->fd > 0)
			close(f->fd);
		free(f->path);
		free(f->err);
		if (f->vdso)
			free(f->vdso->v);
		free(f->vdso);
	}
	free(s->files);
	pms_alloc_table_free(s->alloc);
	if (s->alloc_fd > 0)
		close(s->alloc_fd);
	for (size_t i = 0; i < s->nproblems; i++)
		free(s->problems[i]);
	free(s->problems);
	free(s->problem_file);
	free(s);
}

void pms_session_set_sys(struct pms_session *s, struct pms_sys *sys)
{
	if (!s->run && !s->sys)
		s->sys = sys;
}

int pms_session_set_types(struct pms_session *s)
{
	if (s->ran)
		return pms_err(PMS_EINVAL, "pms_session_set_types: after the run started");
	return s->ps.types ? 0 : types_sink_new(&s->ps.types);
}

struct pms_typeprof *pms_session_typeprof(const struct pms_session *s)
{
	return s->ps.types ? types_sink_profile(s->ps.types) : NULL;
}

int pms_session_type_hits(struct pms_session *s, const struct pms_memreport *r,
			  struct pms_type_hit **out)
{
	*out = NULL;
	if (!s->ps.types)
		return pms_err(PMS_EINVAL, "pms_session_type_hits: no types sink");
	struct pms_type_hit *h = calloc(r->nall ? r->nall : 1, sizeof(*h));
	if (!h)
		return pms_err(PMS_ENOMEM, "types: hits");
	for (size_t i = 0; i < r->nall; i++) {
		int rc = types_sink_hit(s->ps.types, &r->all[i].s, &h[i]);
		if (rc < 0) {
			free(h);
			return rc;
		}
	}
	*out = h;
	return 0;
}

int pms_session_set_sort(struct pms_session *s, struct pms_sorthist *h)
{
	int rc = 0;
	if (s->ran || s->ps.sort)
		rc = pms_err(PMS_EINVAL, "pms_session_set_sort: after the run or a second time");
	else if (sorthist_wants_types(h))
		rc = pms_session_set_types(s);
	if (rc < 0) {
		pms_sorthist_free(h);
		return rc;
	}
	s->ps.sort = h;
	return 0;
}

/* ---- files ---------------------------------------------------------------- */

static int file_open(struct sfile *f)
{
	if (f->src)
		return 0;
	if (!f->r) {
		f->fd = strcmp(f->path, "-") ? open(f->path, O_RDONLY | O_CLOEXEC) : 0;
		if (f->fd < 0) {
			int e = errno;
			return pms_err(pms_code_from_errno(e), "%s: %s", f->path, strerror(e));
		}
		int rc = pms_perfdata_reader_open_fd(f->fd, &f->r);
		if (rc < 0) {
			char msg[1024];
			snprintf(msg, sizeof(msg), "%s", pms_error_last());
			if (f->fd > 0)
				close(f->fd);
			f->fd = -1;
			return pms_err(rc, "%s: %s", f->path, msg);
		}
	}
	return pms_memsrc_open_reader(f->r, &f->src);
}

/* Decode one file to its end; a read error is kept as the file's. */
int sess_file_decode(struct pass *ps, struct sfile *f)
{
	const struct pms_memsrc_callbacks cb = { file_sample, file_sideband, NULL };
	int rc;
	ps->f = f;
	ps->started = false;
	while ((rc = pms_memsrc_poll(f->src, -1, &cb, ps)) > 0)
		;
	if (rc < 0 && !(f->err = strdup(pms_error_last())))
		return pms_err(PMS_ENOMEM, "pms_session_run: out of memory");
	return 0;
}

static void *job_worker(void *ud)
{
	struct jobs *js = ud;
	size_t i;
	while ((i = atomic_fetch_add(&js->next, 1)) < js->n)
		js->v[i].rc = sess_file_decode(&js->v[i], &js->f[i]);
	return NULL;
}

/* Run the jobs on threads threads (this one among them). */
void sess_jobs_run(struct jobs *js, size_t threads)
{
	pthread_t tid[64];
	size_t started = 0;
	if (threads > 64)
		threads = 64;
	for (; started + 1 < threads; started++)
		if (pthread_create(&tid[started], NULL, job_worker, js))
			break; /* fewer threads: the others and this one do the rest */
	job_worker(js);
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
}

/* Join n passes into the session's, in order (files, or one file's
 * chunks). */
int sess_passes_join(struct pms_session *s, struct pass *v, size_t n)
{
	struct pass *ps = &s->ps;
	for (size_t i = 0; i < n; i++) {
		struct pass *jp = &v[i];
		if (jp->rc < 0)
			return jp->rc;
		for (size_t k = 0; jp->started && k < jp->nids; k++) {
			size_t q = 0;
			while (q < ps->nids && ps->ids[q] != jp->ids[k])
				q++;
			if (q == ps->nids && ps->nids < MAX_NODE_IDS)
				ps->ids[ps->nids++] = jp->ids[k];
		}
		ps->events += jp->events;
		if (jp->pmin && (!ps->pmin || jp->pmin < ps->pmin))
			ps->pmin = jp->pmin;
		if (jp->pmax > ps->pmax)
			ps->pmax = jp->pmax;
		if (i == 0) {
			/* the first file's profile becomes the session's (made
			 * with the same options): one merge less */
			pms_memprof_free(ps->prof);
			ps->prof = jp->prof;
			jp->prof = NULL;
		} else if (jp->prof) {
			int rc = pms_memprof_merge(ps->prof, jp->prof);
			if (rc < 0)
				return rc;
		}
	}
	if (ps->nids && ps->prof)
		return pms_memprof_set_node_ids(ps->prof, ps->ids, ps->nids);
	return 0;
}

/* Several files, one thread and one profile each, merged in file order. */
static int decode_parallel(struct pms_session *s, size_t threads)
{
	struct jobs js = { calloc(s->nfiles, sizeof(*js.v)), s->files, s->nfiles, 0 };
	int rc = 0;
	if (!js.v) {
		rc = pms_err(PMS_ENOMEM, "pms_session_run: out of memory");
		goto out;
	}
	for (size_t i = 0; i < s->nfiles; i++) {
		js.v[i].s = s;
		js.v[i].merge = true;
		js.v[i].prof_samples = true;
		if ((rc = pms_memprof_new(NULL, &s->po, &js.v[i].prof)) < 0)
			goto out;
	}
	sess_jobs_run(&js, threads);
	rc = sess_passes_join(s, js.v, s->nfiles);
out:
	for (size_t i = 0; js.v && i < s->nfiles; i++)
		pms_memprof_free(js.v[i].prof);
	free(js.v);
	return rc;
}

/* The files can be decoded one profile each: an aggregate profile and
 * nothing else to feed, files (not a pipe) without SESS_UNSPLIT_*. */
static bool parallel_ok(const struct pms_session *s, size_t min_files)
{
	/* one file of the types sink alone splits too (its chunks' sinks) */
	bool agg = s->ps.prof ? s->po.aggregate : s->ps.types && min_files == 1;
	if (s->nfiles < min_files || !agg || s->ps.adv || s->ps.c2c ||
	    (s->ps.types && min_files > 1) || s->ps.sort || s->cb.sample || s->cb.sideband)
		return false;
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct sfile *f = &s->files[i];
		if (!strcmp(f->path, "-"))
			return false;
		size_t na = pms_perfdata_reader_nattrs(f->r);
		for (size_t k = 0; k < na; k++)
			if (pms_perfdata_reader_attr(f->r, k)->attr->sample_type &
			    (min_files > 1 ? SESS_UNSPLIT_FILES : SESS_UNSPLIT_CHUNKS))
				return false;
	}
	return true;
}

bool sess_file_has_alloc(const struct sfile *f)
{
	const void *p;
	size_t len;
	return f->r && pms_perfdata_reader_alloc_records(f->r, &p, &len) == 0;
}

/* A file of a tracked run (`mem -o`, `record -o`) has its allocation
 * records: the profile keeps the samples, for the allocation sites
 * (pms_session_alloc_report), decided here once the files are open (a
 * pipe's features come with its data: not seen here).  The profile has
 * had no sample yet: it is made again, keeping them. */
static int files_keep_for_alloc(struct pms_session *s)
{
	int rc;
	if (!s->ps.c2c && (!s->ps.prof || !s->ps.prof_samples || !s->po.aggregate))
		return 0;
	bool any = false;
	for (size_t i = 0; i < s->nfiles && !any; i++) {
		if (!strcmp(s->files[i].path, "-"))
			continue;
		if ((rc = file_open(&s->files[i])) < 0)
			return rc;
		any = sess_file_has_alloc(&s->files[i]);
	}
	if (!any)
		return 0;
	if (s->ps.c2c)
		pms_c2c_keep_touches(s->ps.c2c); /* each line's site (c2c_sites.h) */
	if (!s->ps.prof || !s->ps.prof_samples || !s->po.aggregate)
		return 0;
	struct pms_memprof *p = NULL;
	s->po.aggregate = false;
	if ((rc = pms_memprof_new(NULL, &s->po, &p)) < 0)
		return rc;
	pms_memprof_free(s->ps.prof);
	s->ps.prof = p;
	return 0;
}

/* One file of an aggregate profile and nothing else to feed, its order
 * not known yet: read first as in perf's order (sess_decode_in_order). */
static bool in_order_ok(const struct pms_session *s)
{
	const struct sfile *f = &s->files[0];
	return s->nfiles == 1 && s->ps.prof && s->po.aggregate && !s->ps.types &&
	       parallel_ok(s, 1) && !sess_file_has_alloc(f) && !pms_pd_reader_order_hint(f->r);
}

static int files_run(struct pms_session *s)
{
	int rc;
	if (s->ran)
		return 0;
	s->ran = true;
	/* Several files of an aggregate profile: opened here in order, then
	 * decoded in parallel.  Otherwise one after the other into the one
	 * profile, each opened when its turn comes. */
	bool parallel = s->nfiles > 1 && s->ps.prof && s->po.aggregate && !s->ps.adv &&
			!s->ps.c2c && !s->ps.types && !s->ps.sort && !s->cb.sample && !s->cb.sideband;
	for (size_t i = 0; parallel && i < s->nfiles; i++) {
		if (!strcmp(s->files[i].path, "-"))
			break;
		if ((rc = file_open(&s->files[i])) < 0)
			return rc;
	}
	size_t jobs = s->o.jobs;
	if (!jobs) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = ncpu > 0 ? (size_t)ncpu : 1;
	}
	if (parallel && parallel_ok(s, 2))
		return decode_parallel(s, jobs < s->nfiles ? jobs : s->nfiles);
	/* one file on several threads: the same (call paths too), and the
	 * file's data splits (decode_split) */
	const struct sess_ops ops = { sess_file_decode, sess_jobs_run, sess_passes_join,
				      s->ps.prof ? &s->po : NULL, s->ps.paths, s->ps.types };
	if (s->nfiles == 1 && jobs > 1 && (s->ps.prof ? s->po.aggregate : !!s->ps.types) &&
	    !s->ps.adv &&
	    !s->ps.c2c && !s->ps.sort && !s->cb.sample && !s->cb.sideband &&
	    strcmp(s->files[0].path, "-")) {
		if ((rc = file_open(&s->files[0])) < 0)
			return rc;
		if (!sess_file_has_alloc(&s->files[0]) && parallel_ok(s, 1) &&
		    (rc = sess_decode_split(s, &s->files[0], jobs, &ops)) != 0) {
			s->files[0].first = 0;
			s->files[0].end = pms_memprof_count(s->ps.prof);
			return rc < 0 ? rc : 0;
		}
	}
	if ((rc = files_keep_for_alloc(s)) < 0)
		return rc;
	for (size_t i = 0; i < s->nfiles; i++) {
		if ((rc = file_open(&s->files[i])) < 0)
			return rc;
		s->files[i].first = pms_memprof_count(s->ps.prof);
		if ((rc = in_order_ok(s) ? sess_decode_in_order(s, &s->files[i], &ops) : 0) == 0)
			rc = sess_file_decode(&s->ps, &s->files[i]);
		if (rc < 0)
			return rc;
		s->files[i].end = pms_memprof_count(s->ps.prof);
		if (s->ps.rc < 0)
			return s->ps.rc;
	}
	return 0;
}

/* ---- run ------------------------------------------------------------------ */

int pms_session_record(struct pms_session *s, int fd, const struct pms_recorder_opts *ropts)
{
	if (!s->run)
		return pms_err(PMS_EINVAL, "pms_session_record: files are not recorded again");
	return pms_liverun_record(s->run, fd, ropts);
}

int pms_session_start(struct pms_session *s)
{
	if (!s->run)
		return 0;
	return pms_liverun_start(s->run);
}

int pms_session_step(struct pms_session *s)
{
	if (!s->run) {
		int rc = files_run(s);
		return rc < 0 ? rc : 0;
	}
	return pms_liverun_step(s->run);
}

int pms_session_run(struct pms_session *s)
{
	if (!s->run)
		return files_run(s);
	return pms_liverun_run(s->run);
}

int pms_session_drain(struct pms_session *s)
{
	return s->run ? pms_liverun_drain(s->run) : 0;
}

void pms_session_set_duration(struct pms_session *s, double seconds)
{
	if (s->run)
		pms_liverun_set_duration(s->run, seconds);
}

/* -o with allocation tracking: the records go into the perf.data as the
 * feature PMS_PERFDATA_FEAT_PMUSCOPE_ALLOC (u64 rate, u64 threshold, then
 * the records in time order; docs/mem.md), for `report -i`.  Not fatal:
 * the file is whole without it. */
static void alloc_to_file(struct pms_session *s)
{
	struct pms_recorder *rec = s->run ? pms_liverun_recorder(s->run) : NULL;
	void *b = NULL;
	size_t len = 0;
	if (!rec || !s->alloc || pms_alloc_stream_read(s->alloc_fd, &b, &len) < 0)
		return;
	unsigned char *p = malloc(16 + len);
	if (p) {
		memcpy(p, &s->alloc_rate, 8);
		memcpy(p + 8, &s->alloc_threshold, 8);
		memcpy(p + 16, b, len);
		(void)pms_recorder_set_feature(rec, PMS_PERFDATA_FEAT_PMUSCOPE_ALLOC, p, 16 + len);
	}
	free(p);
	free(b);
}

int pms_session_finish(struct pms_session *s)
{
	if (!s->run || s->finished)
		return 0;
	s->finished = true;
	alloc_to_file(s);
	return pms_liverun_finish(s->run);
}

void pms_session_result(const struct pms_session *s, struct pms_liverun_result *out)
{
	if (s->run)
		pms_liverun_result(s->run, out);
	else
		memset(out, 0, sizeof(*out));
}

double pms_session_elapsed(const struct pms_session *s)
{
	return s->run ? pms_liverun_elapsed(s->run) : 0;
}

pid_t pms_session_pid(const struct pms_session *s)
{
	return s->run ? pms_liverun_pid(s->run) : 0;
}

uint64_t pms_session_left_running(const struct pms_session *s)
{
	return s->run ? pms_liverun_left_running(s->run) : 0;
}

void pms_session_holds(const struct pms_session *s, struct pms_liverun_holds *out)
{
	if (s->run)
		pms_liverun_holds(s->run, out);
	else
		*out = (struct pms_liverun_holds){ 0 };
}

struct pms_sampler *pms_session_sampler(const struct pms_session *s)
{
	return s->run ? pms_liverun_sampler(s->run) : NULL;
}

struct pms_numa_oracle *pms_session_oracle(const struct pms_session *s)
{
	return s->run ? pms_liverun_oracle(s->run) : NULL;
}

struct pms_recorder *pms_session_recorder(const struct pms_session *s)
{
	return s->run ? pms_liverun_recorder(s->run) : NULL;
}

void pms_session_stop(struct pms_session *s, int sig)
{
	if (s->run)
		pms_liverun_stop(s->run, sig);
}

/* ---- what it gives -------------------------------------------------------- */

static void stats_add(struct pms_memsrc_stats *a, const struct pms_memsrc_stats *b)
{
#define ADD(f) a->f += b->f
	ADD(samples); ADD(samples_dropped); ADD(records); ADD(wrapped); ADD(corrupt_bytes);
	ADD(parse_errors); ADD(lost_records); ADD(lost); ADD(lost_samples); ADD(lost_total);
	ADD(throttle);
	ADD(unthrottle); ADD(sideband); ADD(aux_records); ADD(aux_bytes); ADD(aux_truncated);
	ADD(aux_overwrite); ADD(aux_partial); ADD(aux_collision); ADD(aux_decode_errors);
	ADD(aux_cut_records); ADD(aux_cut_bytes);
	ADD(aux_overrun); ADD(ibs_raw_checked); ADD(ibs_raw_mismatch); ADD(streams_hup);
	ADD(unknown_id); ADD(compressed); ADD(bad_features); ADD(samples_excluded);
#undef ADD
	a->truncated |= b->truncated;
}

void pms_session_stats(const struct pms_session *s, struct pms_memsrc_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (s->run) {
		pms_memsrc_stats(pms_liverun_source(s->run), out);
		return;
	}
	for (size_t i = 0; i < s->nfiles; i++) {
		struct pms_memsrc_stats one;
		if (!s->files[i].src)
			continue;
		pms_memsrc_stats(s->files[i].src, &one);
		stats_add(out, &one);
	}
}

void pms_session_info(const struct pms_session *s, struct pms_memsrc_info *out)
{
	memset(out, 0, sizeof(*out));
	if (s->run) {
		pms_memsrc_info(pms_liverun_source(s->run), out);
		return;
	}
	/* the first file whose engine gives a data source, else the first */
	bool have = false;
	for (size_t i = 0; i < s->nfiles; i++) {
		struct pms_memsrc_info one;
		if (!s->files[i].src)
			continue;
		pms_memsrc_info(s->files[i].src, &one);
		if (!have || (!out->data_src && one.data_src))
			*out = one;
		have = true;
	}
}

void pms_session_file_stats(const struct pms_session *s, struct pms_perfdata_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < s->nfiles; i++) {
		if (!s->files[i].r)
			continue;
		const struct pms_perfdata_stats *st = pms_perfdata_reader_stats(s->files[i].r);
		out->records += st->records;
		out->bad_records += st->bad_records;
		out->bad_features += st->bad_features;
		out->truncated |= st->truncated;
		out->unfinished |= st->unfinished;
	}
}

uint64_t pms_session_span_ns(const struct pms_session *s)
{
	if (s->run)
		return pms_memsrc_span_ns(pms_liverun_source(s->run));
	uint64_t span = 0;
	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i].src && pms_memsrc_span_ns(s->files[i].src) > span)
			span = pms_memsrc_span_ns(s->files[i].src);
	return span;
}

void pms_session_periods(const struct pms_session *s, uint64_t *sum, uint64_t *min, uint64_t *max)
{
	if (sum)
		*sum = s->ps.events;
	if (min)
		*min = s->ps.pmin;
	if (max)
		*max = s->ps.pmax;
}

/* A file's i-th problem: its source's list (the reader's problems, then
 * the source's own, such as malformed raw payloads), else the reader's. */
static const char *file_problem(const struct sfile *f, size_t i)
{
	if (f->src)
		return pms_memsrc_problem(f->src, i);
	return f->r ? pms_perfdata_reader_problem(f->r, i) : NULL;
}

static int problems_collect(struct pms_session *s)
{
	size_t n = 0;
	const char *m;
	for (size_t f = 0; f < s->nfiles; f++)
		for (size_t i = 0; file_problem(&s->files[f], i); i++)
			n++;
	s->problems = calloc(n ? n : 1, sizeof(*s->problems));
	s->problem_file = calloc(n ? n : 1, sizeof(*s->problem_file));
	if (!s->problems || !s->problem_file)
		return PMS_ENOMEM;
	for (size_t f = 0; f < s->nfiles; f++)
		for (size_t i = 0; (m = file_problem(&s->files[f], i)); i++) {
			if (!(s->problems[s->nproblems] = strdup(m)))
				return PMS_ENOMEM;
			s->problem_file[s->nproblems++] = f;
		}
	s->problems_done = true;
	return 0;
}

const char *pms_session_problem(const struct pms_session *s, size_t i, size_t *file)
{
	/* collected once, after the run: a reader adds problems as it reads */
	struct pms_session *w = (struct pms_session *)s;
	if (!s->problems_done && (!s->ran || problems_collect(w) < 0))
		return NULL;
	if (i >= s->nproblems)
		return NULL;
	if (file)
		*file = s->problem_file[i];
	return s->problems[i];
}

size_t pms_session_problems_unlisted(const struct pms_session *s, size_t file)
{
	if (file >= s->nfiles)
		return 0;
	const struct sfile *f = &s->files[file];
	size_t n = f->src ? pms_memsrc_nproblems(f->src)
			  : f->r ? pms_perfdata_reader_nproblems(f->r) : 0, i = 0;
	while (file_problem(f, i))
		i++;
	return n > i ? n - i : 0;
}

size_t pms_session_nfiles(const struct pms_session *s)
{
	return s->nfiles;
}

const char *pms_session_file_path(const struct pms_session *s, size_t i)
{
	return i < s->nfiles ? s->files[i].path : NULL;
}

struct pms_perfdata_reader *pms_session_reader(const struct pms_session *s, size_t i)
{
	return i < s->nfiles ? s->files[i].r : NULL;
}

struct pms_memsrc *pms_session_source(const struct pms_session *s, size_t i)
{
	if (s->run)
		return i == 0 ? pms_liverun_source(s->run) : NULL;
	return i < s->nfiles ? s->files[i].src : NULL;
}

const char *pms_session_file_error(const struct pms_session *s, size_t i)
{
	return i < s->nfiles ? s->files[i].err : NULL;
}

struct pms_liverun *pms_session_liverun(const struct pms_session *s)
{
	return s->run;
}

struct pms_memprof *pms_session_profile(const struct pms_session *s)
{
	return s->ps.prof;
}

struct pms_memprof *pms_session_profile_before(const struct pms_session *s)
{
	return s->prof_before;
}

struct pms_symbolizer *pms_session_symbolizer(const struct pms_session *s)
{
	return s->sym;
}

struct pms_advisor *pms_session_take_advisor(struct pms_session *s)
{
	struct pms_advisor *a = s->ps.adv;
	s->ps.adv = NULL;
	return a;
}

/* ---- the report ----------------------------------------------------------- */

/* Files: kernel IPs are named from this machine's kallsyms, in every table
 * and call path, when their file's kernel is the running one (the build-id
 * check symtrack makes for report -s and script), as a live run names them:
 * true when a file's is.  A merged report's files of another kernel have
 * their samples marked (file_sample), so their kernel IPs are rows of
 * their own, unnamed, as in their own reports. */
bool sess_files_kernel_here(struct pms_session *s)
{
	if (s->run || !s->nfiles || !s->sym || !pms_symbolizer_kernel_visible(s->sym))
		return false;
	for (size_t i = 0; i < s->nfiles; i++)
		if (sess_file_kernel_here(s, &s->files[i]))
			return true;
	return false;
}

void sess_symbolizer_make(struct pms_session *s)
{
	if (!s->o.symbols || s->sym || !s->sys)
		return;
	if (pms_symbolizer_new(s->sys, pms_memprof_maps(s->ps.prof), &s->sym) < 0) {
		s->sym = NULL; /* names are a nicety: the numbers stand without them */
		return;
	}
	if (!s->o.demangle)
		pms_symbolizer_set_demangle(s->sym, false);
	/* a live run's processes map the running kernel's vDSO */
	if (s->run) {
		if (pms_symbolizer_use_running_vdso(s->sym, s->sys) < 0)
			pms_error_clear();
		return;
	}
	/* files: their module maps (else the running kernel's) */
	sess_kmods_apply(s);
	/* files: the running image names the [vdso] mappings of those that
	 * pass the rule (symtrack.c); a merged report's other files' [vdso]
	 * mappings are excluded (they stay unnamed) */
	void *img = NULL;
	size_t len = 0;
	bool ok = true;
	for (size_t i = 0; ok && i < s->nfiles; i++) {
		void *fi = NULL;
		size_t fl = 0;
		bool f = false;
		bool fits = s->files[i].r &&
			    symtrack_vdso_image(s->sys, pms_perfdata_reader_info(s->files[i].r), &fi,
						&fl, &f) == 0 &&
			    f;
		if (fits && !img) {
			img = fi;
			len = fl;
			fi = NULL;
		}
		free(fi);
		const struct vdso_maps *m = s->files[i].vdso;
		for (size_t k = 0; !fits && m && ok && k < m->n; k++)
			ok = pms_symbolizer_vdso_exclude(s->sym, m->v[k].start, m->v[k].end) == 0;
		/* one file: no mappings kept, its rule is the rule */
		if (!fits && !m)
			ok = false;
	}
	if (ok && img)
		(void)pms_symbolizer_set_vdso(s->sym, img, len);
	free(img);
	pms_error_clear();
}

int pms_session_report(struct pms_session *s, const struct pms_memreport_input *base,
		       struct pms_memreport **out, struct pms_pathreport **paths)
{
	int rc;
	if (paths)
		*paths = NULL;
	if (!s->ps.prof || !s->ps.prof_samples)
		return pms_err(PMS_EINVAL, "pms_session_report: the session builds no profile");
	struct pms_memsrc_info info;
	struct pms_memsrc_stats sst;
	struct pms_numa_stats nst;
	struct pms_memreport_input in = { 0 };
	pms_session_info(s, &info);
	pms_session_stats(s, &sst);
	if (base) {
		in.numa = base->numa;
		in.verify_requested = base->verify_requested;
		in.duration_ns = base->duration_ns;
	} else if (s->run) {
		pms_numa_oracle_stats(pms_liverun_oracle(s->run), &nst);
		in.numa = &nst;
		in.duration_ns = (uint64_t)(pms_liverun_elapsed(s->run) * 1e9);
	} else {
		in.duration_ns = pms_session_span_ns(s);
	}
	pms_memreport_input_from_src(&in, &info, &sst);
	sess_symbolizer_make(s);
	bool here = sess_files_kernel_here(s);
	in.recorded = in.recorded && !here;
	struct pms_memreport *rep = NULL;
	if ((rc = pms_memprof_report(s->ps.prof, s->sym, &in, &rep)) < 0)
		return rc;
	if (paths && s->ps.paths) {
		bool kvis = s->run ? s->o.kernel_visible : here;
		/* perf's inline stacks, one expansion for every output (inlpath.h) */
		if ((rc = pms_pathprof_report(s->ps.paths, rep, s->sym, kvis, paths)) < 0 ||
		    (s->sym && !s->pp.no_inline &&
		     (rc = inlpath_report(s->sym, pms_memprof_maps(s->ps.prof), *paths)) < 0)) {
			pms_pathreport_free(*paths);
			*paths = NULL;
			pms_memreport_free(rep);
			return rc;
		}
		if (!s->run && !pms_pathreport_with_path(*paths) &&
		    !pms_pathreport_with_branches(*paths)) {
			pms_pathreport_free(*paths); /* neither: no section */
			*paths = NULL;
		}
	}
	*out = rep;
	return 0;
}

int pms_session_remeasure(struct pms_session *s, double seconds, struct pms_memreport **before)
{
	int rc;
	if (!s->run || !s->ps.prof || s->prof_before)
		return pms_err(PMS_EINVAL, "pms_session_remeasure: a live session's first measurement");
	(void)pms_liverun_drain(s->run);
	struct pms_numa_stats nst;
	pms_numa_oracle_stats(pms_liverun_oracle(s->run), &nst);
	struct pms_memreport_input base = { .numa = &nst,
					    .duration_ns = (uint64_t)(seconds * 1e9) };
	struct pms_symbolizer *sym = NULL;
	struct pms_memsrc_info info;
	struct pms_memsrc_stats sst;
	pms_session_info(s, &info);
	pms_session_stats(s, &sst);
	pms_memreport_input_from_src(&base, &info, &sst);
	if (pms_symbolizer_new(s->sys, pms_memprof_maps(s->ps.prof), &sym) < 0)
		sym = NULL;
	rc = pms_memprof_report(s->ps.prof, sym, &base, before);
	pms_symbolizer_free(sym);
	if (rc < 0)
		return rc;
	/* the pages move next: what the oracle cached is stale */
	pms_numa_oracle_invalidate(pms_liverun_oracle(s->run), 0, 0);
	struct pms_memprof *next = NULL;
	if ((rc = pms_memprof_new(s->topo, &s->po, &next)) < 0) {
		pms_memreport_free(*before);
		*before = NULL;
		return rc;
	}
	s->prof_before = s->ps.prof;
	s->ps.prof = next;
	pms_liverun_set_profile(s->run, next);
	return 0;
}

int pms_session_interval(struct pms_session *s, double seconds, struct pms_memreport **out)
{
	int rc;
	*out = NULL;
	if (!s->run || !s->ps.prof || !s->ps.prof_samples || s->prof_before)
		return pms_err(PMS_EINVAL, "pms_session_interval: a live session with one profile");
	(void)pms_liverun_drain(s->run);
	/* the next interval's profile first: a failure leaves the run as it was */
	struct pms_memprof *next = NULL;
	if ((rc = pms_memprof_new(s->topo, &s->po, &next)) < 0)
		return rc;
	struct pms_numa_stats nst;
	pms_numa_oracle_stats(pms_liverun_oracle(s->run), &nst);
	struct pms_memreport_input in = { .numa = &nst,
					  .duration_ns = (uint64_t)(seconds * 1e9) };
	struct pms_memsrc_info info;
	struct pms_memsrc_stats sst;
	pms_session_info(s, &info);
	pms_session_stats(s, &sst);
	pms_memreport_input_from_src(&in, &info, &sst);
	/* names from this interval's mappings (a library loaded since the
	 * last one is named): the symbolizer copies them, so it is remade when
	 * they changed and kept while they did not (symkeep.h) */
	if (s->o.symbols && (rc = pms_symkeep_refresh(&s->sym, &s->sym_maps, s->sys,
						      pms_memprof_maps(s->ps.prof),
						      s->o.demangle)) < 0) {
		pms_memprof_free(next);
		return rc;
	}
	rc = pms_memprof_report(s->ps.prof, s->sym, &in, out);
	if (rc < 0) {
		pms_memprof_free(next);
		*out = NULL;
		return rc;
	}
	pms_memprof_free(s->ps.prof);
	s->ps.prof = next;
	pms_liverun_set_profile(s->run, next);
	return 0;
}

