/* The types sink and the sort histogram live and from the file that live run
 * wrote (issues 29, 27): a live session of a command touching fresh pages
 * with the software engine, recording as it goes, then a files session over
 * the recording: the type profile (samples, resolved, each unresolved
 * reason) and the `-s type,typeoff,comm,dso` rows are the same, because both
 * go through the session's one sink. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/session.h"

struct seen {
	struct pms_typeprof_result r;
	char **rows; /* "text\tsamples" */
	size_t n;
};

static void take(struct pms_session *s, struct pms_sorthist *h, struct seen *out)
{
	CHECK_OK(pms_typeprof_result(pms_session_typeprof(s), &out->r));
	struct pms_sorthist_result sr;
	CHECK_OK(pms_sorthist_result(h, &sr));
	out->rows = calloc(sr.n_rows + 1, sizeof(*out->rows));
	for (size_t i = 0; out->rows && i < sr.n_rows; i++) {
		char b[1200];
		snprintf(b, sizeof(b), "%s\t%llu", sr.rows[i].text,
			 (unsigned long long)sr.rows[i].samples);
		out->rows[out->n++] = strdup(b);
	}
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

PMS_TEST(types_and_sort_live_equal_file)
{
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_session *s = NULL;
	char exe[512], file[] = "/tmp/pms_stypes_XXXXXX", data[] = "/tmp/pms_stypes_d_XXXXXX";
	struct stat st;
	const char *b = pms_t_build_dir();
	snprintf(exe, sizeof(exe), "%s/tests/sample/pms_touch_pages", b ? b : ".");
	int fd = mkstemp(file), dfd = mkstemp(data);
	if (fd < 0 || dfd < 0 || stat(exe, &st) < 0 || pms_sys_new(&sys, NULL) < 0 ||
	    pms_pmus_load(sys, &pmus) < 0) {
		unlink(file);
		unlink(data);
		pms_sys_free(sys);
		PMS_SKIP("no live context or pms_touch_pages not built");
	}
	close(fd);
	char *argv[] = { exe, "2000", file, "0", "1", "0", NULL };
	struct pms_sampler_opts so = PMS_SAMPLER_OPTS_INIT;
	so.engine = PMS_ENG_SOFTWARE;
	struct pms_liverun_opts lo = PMS_LIVERUN_OPTS_INIT;
	lo.argv = argv;
	lo.sampler = &so;
	struct pms_session_opts o = PMS_SESSION_OPTS_INIT;
	o.symbols = false;
	struct pms_sorthist *h1 = NULL, *h2 = NULL;
	CHECK_OK(pms_sorthist_new("type,typeoff,comm,dso", &h1));
	if (pms_session_open_live(sys, pmus, NULL, &lo, &o, &s) < 0) {
		char why[512];
		snprintf(why, sizeof(why), "no live session here: %s", pms_error_last());
		pms_sorthist_free(h1);
		pms_pmus_free(pmus);
		pms_sys_free(sys);
		unlink(file);
		unlink(data);
		PMS_SKIP("%s", why);
	}
	CHECK_OK(pms_session_set_types(s));
	CHECK_OK(pms_session_set_sort(s, h1));
	CHECK_OK(pms_session_record(s, dfd, NULL));
	CHECK_OK(pms_session_start(s));
	int sr;
	while ((sr = pms_session_step(s)) > 0)
		;
	CHECK_EQ_INT(sr, 0);
	CHECK_OK(pms_session_finish(s));
	struct seen live = { 0 }, rec = { 0 };
	take(s, h1, &live);
	CHECK(live.r.total > 100); /* the touches' first faults at least */
	pms_session_free(s);
	close(dfd);

	const char *paths[] = { data };
	CHECK_OK(pms_sorthist_new("type,typeoff,comm,dso", &h2));
	CHECK_OK(pms_session_open_files(sys, paths, 1, &o, &s));
	CHECK_OK(pms_session_set_types(s));
	CHECK_OK(pms_session_set_sort(s, h2));
	CHECK_OK(pms_session_run(s));
	take(s, h2, &rec);
	/* the same samples, the same types and reasons */
	CHECK_EQ_U64(rec.r.total, live.r.total);
	CHECK_EQ_U64(rec.r.resolved, live.r.resolved);
	for (int i = 0; i < PMS_TYPE__COUNT; i++)
		CHECK_MSG(rec.r.unresolved[i] == live.r.unresolved[i], "%s: file %llu live %llu",
			  pms_type_status_name(i), (unsigned long long)rec.r.unresolved[i],
			  (unsigned long long)live.r.unresolved[i]);
	CHECK_EQ_U64(rec.n, live.n);
	qsort(live.rows, live.n, sizeof(char *), str_cmp);
	qsort(rec.rows, rec.n, sizeof(char *), str_cmp);
	for (size_t i = 0; i < live.n && i < rec.n; i++)
		CHECK_MSG(!strcmp(live.rows[i], rec.rows[i]), "row %zu: live [%s] file [%s]", i,
			  live.rows[i], rec.rows[i]);
	/* the command is named, and its binary */
	bool comm = false;
	for (size_t i = 0; i < rec.n; i++)
		comm |= strstr(rec.rows[i], "pms_touch_pages") != NULL;
	CHECK_MSG(comm, "no row names pms_touch_pages: %s", rec.n ? rec.rows[0] : "(none)");
	/* too late for a second sort, or after the run */
	struct pms_sorthist *h3 = NULL;
	CHECK_OK(pms_sorthist_new("sym", &h3));
	CHECK_EQ_INT(pms_session_set_sort(s, h3), PMS_EINVAL);
	CHECK_EQ_INT(pms_session_set_types(s), PMS_EINVAL);
	CHECK_EQ_INT(pms_sorthist_new("nosuchkey", &h3), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "sort key 'nosuchkey' is unknown; the keys: pid") != NULL);
	for (size_t i = 0; i < live.n; i++)
		free(live.rows[i]);
	for (size_t i = 0; i < rec.n; i++)
		free(rec.rows[i]);
	free(live.rows);
	free(rec.rows);
	pms_session_free(s);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	unlink(file);
	unlink(data);
}

PMS_TEST_MAIN()
