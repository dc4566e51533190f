/* One session's allocation sites (include/pmuscope/session.h
 * pms_session_set_alloc .. pms_session_alloc_report): a tracked command's
 * channel or the files' allocation records, each sample's site by time. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "pmuscope/session.h"
#include "session/session_int.h"
#include "session/c2c_sites.h"
#include "session/types_sink.h"
#include "util/error.h"
#include "perfdata/reader_int.h"
#include "alloc/alloc_int.h"

/* ---- allocation sites ------------------------------------------------------ */

int pms_session_set_alloc(struct pms_session *s, int fd, uint64_t rate, uint64_t threshold)
{
	if (!s->run || fd < 0 || s->alloc) {
		if (fd >= 0)
			close(fd);
		return pms_err(PMS_EINVAL, "pms_session_set_alloc: a live session, once, and a channel");
	}
	int rc = pms_alloc_table_new(&s->alloc);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	s->alloc_fd = fd;
	if (s->ps.c2c)
		pms_c2c_keep_touches(s->ps.c2c); /* each line's site (c2c_sites.h) */
	s->alloc_rate = rate;
	s->alloc_threshold = threshold;
	struct pms_memsrc_info info;
	pms_session_info(s, &info);
	if (!(info.sample_type & PERF_SAMPLE_TIME) || !s->clock_mono)
		s->alloc_cal_why = "the samples are not stamped with CLOCK_MONOTONIC "
				   "(pms_sampler_opts.clock_monotonic)";
	return 0;
}

void sess_alloc_namer(void *ud, uint32_t pid, uint64_t ip, struct pms_alloc_frame *f)
{
	struct pms_symbolizer *names = ud;
	struct pms_symbol sym;
	memset(&sym, 0, sizeof(sym));
	/* a return address: its call is the byte before */
	int rc = names ? pms_symbolizer_code_pid(names, (pid_t)pid, ip ? ip - 1 : 0, false, true,
						 &sym)
		       : PMS_ENOENT;
	f->func = rc == 0 && sym.func ? strdup(sym.func) : NULL;
	f->file = rc == 0 && sym.file ? strdup(sym.file) : NULL;
	f->line = rc == 0 ? sym.line : 0;
	f->module = strdup(sym.module ? sym.module : "");
}

long pms_session_alloc_lookup(struct pms_session *s, uint32_t pid, uint64_t addr, uint64_t time,
			      struct pms_alloc_info *info)
{
	return s && s->alloc ? pms_alloc_table_lookup(s->alloc, pid, addr, time, info) : -1;
}

/* Files: the allocation records of every file that has them (`mem -o`,
 * `record -o` with tracking), file i's in process space i: a merged
 * report's files are different runs, whose pids and times are their own.
 * The rate and threshold reported are the first such file's. */
int sess_alloc_from_files(struct pms_session *s)
{
	int rc;
	for (size_t i = 0; i < s->nfiles; i++) {
		const unsigned char *p;
		size_t len;
		if (!s->files[i].r ||
		    pms_perfdata_reader_alloc_records(s->files[i].r, (const void **)&p, &len) < 0 ||
		    len < 16)
			continue;
		uint64_t rate, thr;
		memcpy(&rate, p, 8);
		memcpy(&thr, p + 8, 8);
		if (!s->alloc) {
			if ((rc = pms_alloc_table_new(&s->alloc)) < 0)
				return rc;
			s->alloc_rate = rate;
			s->alloc_threshold = thr;
		}
		(void)pms_alloc_table_set_space(s->alloc, (uint32_t)i);
		long used = pms_alloc_table_feed(s->alloc, p + 16, len - 16);
		if (used < 0)
			return pms_err((int)used, "%s: %s", s->files[i].path, pms_error_last());
	}
	if (!s->alloc)
		return 0;
	(void)pms_alloc_table_set_space(s->alloc, 0);
	struct pms_memsrc_info info;
	pms_session_info(s, &info);
	if (!(info.sample_type & PERF_SAMPLE_TIME))
		s->alloc_cal_why = "the samples have no time";
	return 0;
}

/* The process space of the report's sample i: its file's (files). */
static uint32_t sample_space(const struct pms_session *s, size_t i)
{
	for (size_t f = 0; !s->run && f < s->nfiles; f++)
		if (i >= s->files[f].first && i < s->files[f].end)
			return (uint32_t)f;
	return 0;
}

int pms_session_has_alloc(const struct pms_session *s)
{
	if (s->alloc)
		return 1;
	for (size_t i = 0; i < s->nfiles; i++)
		if (sess_file_has_alloc(&s->files[i]))
			return 1;
	return 0;
}

int pms_session_alloc_report(struct pms_session *s, const struct pms_memreport *rep,
			     struct pms_alloc_report **out)
{
	int rc;
	if (!s->alloc && !s->run && (rc = sess_alloc_from_files(s)) < 0)
		return rc;
	if (!s->alloc)
		return pms_err(PMS_EINVAL, "pms_session_alloc_report: no allocation tracking");
	if (rep->with_addr && !rep->nall)
		return pms_err(PMS_EINVAL, "pms_session_alloc_report: the report has no sample list");
	long n = s->run ? pms_alloc_table_read_fd(s->alloc, s->alloc_fd) : 0;
	if (n < 0)
		return (int)n;
	struct pms_alloc_sites *st = NULL;
	if ((rc = pms_alloc_sites_new(s->alloc, &st)) < 0)
		return rc;
	long *tsite = calloc(rep->nall ? rep->nall : 1, sizeof(*tsite));
	if (!tsite) {
		pms_alloc_sites_free(st);
		return pms_err(PMS_ENOMEM, "pms_session_alloc_report: out of memory");
	}
	for (size_t i = 0; i < rep->nall; i++) {
		const struct pms_memreport_sample *x = &rep->all[i];
		tsite[i] = -1;
		if (!(x->s.valid & PMS_MS_ADDR) || !(x->s.valid & PMS_MS_TIME))
			continue;
		struct pms_alloc_sample a = { x->s.pid,	    x->s.addr,
					      x->s.time,	    (x->s.valid & PMS_MS_WEIGHT) ? x->s.weight : 0,
					      x->mem_node,	    x->cpu_node,
					      sample_space(s, i) };
		tsite[i] = pms_alloc_sites_add(st, &a);
	}
	/* --apply's first measurement (rep is its report, the session already
	 * on the second's fresh profile): named through the first's maps, in
	 * a symbolizer of its own (the session's is made later, for the end) */
	struct pms_symbolizer *names = NULL, *own = NULL;
	if (s->prof_before && !s->sym && s->o.symbols && s->sys) {
		if (pms_symbolizer_new(s->sys, pms_memprof_maps(s->prof_before), &own) < 0)
			own = NULL;
		else if (!s->o.demangle)
			pms_symbolizer_set_demangle(own, false);
		names = own;
	} else {
		sess_symbolizer_make(s);
		names = s->sym;
	}
	struct pms_alloc_report *r = NULL;
	rc = pms_alloc_sites_report(st, 0, sess_alloc_namer, names, &r);
	pms_symbolizer_free(own);
	pms_alloc_sites_free(st);
	if (rc < 0) {
		free(tsite);
		return rc;
	}
	for (size_t i = 0; i < rep->nall; i++)
		if (tsite[i] >= 0)
			tsite[i] = (size_t)tsite[i] < r->nsite_rank ? r->site_rank[tsite[i]] : -1;
	r->sample_site = tsite;
	r->nsample_site = rep->nall;
	r->rate = s->alloc_rate;
	r->threshold = s->alloc_threshold;
	r->calibration_why = s->alloc_cal_why;
	if (s->ps.types && (rc = types_sink_alloc_sites(s->ps.types, rep, r)) < 0) {
		pms_alloc_report_free(r);
		return rc;
	}
	*out = r;
	return 0;
}
