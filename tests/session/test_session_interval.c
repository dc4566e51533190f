/* pms_session_interval (pmuscope top's intervals) on this kernel: a live
 * session of a command touching 3000 fresh pages with the software engine,
 * cut into intervals while it runs and once after it ended: every
 * interval's report holds exactly the samples taken since the last one (its
 * kept samples are its own), together they hold every first touch, the
 * profile after a cut is fresh, and the call is refused where it does not
 * apply (a files session, after pms_session_remeasure). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/session.h"

PMS_TEST(intervals_add_up_to_the_run)
{
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_session *s = NULL;
	char exe[512], file[] = "/tmp/pms_interval_XXXXXX";
	struct stat st;
	const char *b = pms_t_build_dir();
	snprintf(exe, sizeof(exe), "%s/tests/sample/pms_touch_pages", b ? b : ".");
	int fd = mkstemp(file);
	if (fd < 0 || stat(exe, &st) < 0 || pms_sys_new(&sys, NULL) < 0 ||
	    pms_pmus_load(sys, &pmus) < 0) {
		if (fd >= 0)
			unlink(file);
		pms_sys_free(sys);
		PMS_SKIP("no live context or pms_touch_pages not built");
	}
	close(fd);
	/* 3000 pages, 200 ms before the touches and 300 ms after */
	char *argv[] = { exe, "3000", file, "200", "1", "300", NULL };
	struct pms_sampler_opts so = PMS_SAMPLER_OPTS_INIT;
	so.engine = PMS_ENG_SOFTWARE;
	struct pms_liverun_opts lo = PMS_LIVERUN_OPTS_INIT;
	lo.argv = argv;
	lo.sampler = &so;
	lo.resolve = true;
	struct pms_session_opts o = PMS_SESSION_OPTS_INIT;
	o.symbols = false;
	if (pms_session_open_live(sys, pmus, NULL, &lo, &o, &s) < 0) {
		char why[512];
		snprintf(why, sizeof(why), "no live session here: %s", pms_error_last());
		pms_pmus_free(pmus);
		pms_sys_free(sys);
		unlink(file);
		PMS_SKIP("%s", why);
	}
	CHECK_OK(pms_session_start(s));
	uint64_t total = 0, cuts = 0, nonempty = 0;
	double last = 0;
	int sr;
	while ((sr = pms_session_step(s)) > 0) {
		double t = pms_session_elapsed(s);
		if (t - last < 0.05)
			continue;
		struct pms_memreport *rep = NULL;
		CHECK_OK(pms_session_interval(s, t - last, &rep));
		if (!rep)
			break;
		CHECK_EQ_U64(rep->nall, rep->samples);
		CHECK(rep->duration_ns > 0);
		total += rep->samples;
		nonempty += rep->samples > 0;
		cuts++;
		/* the next interval starts empty */
		CHECK_EQ_U64(pms_memprof_count(pms_session_profile(s)), 0);
		pms_memreport_free(rep);
		last = t;
	}
	CHECK_EQ_INT(sr, 0);
	CHECK_OK(pms_session_finish(s));
	struct pms_memreport *rep = NULL;
	CHECK_OK(pms_session_interval(s, pms_session_elapsed(s) - last, &rep));
	if (rep) {
		total += rep->samples;
		nonempty += rep->samples > 0;
		pms_memreport_free(rep);
	}
	struct pms_memsrc_stats sst;
	pms_session_stats(s, &sst);
	/* every delivered sample is in exactly one interval; every first
	 * touch of the 3000 pages is one of them */
	CHECK_EQ_U64(total, sst.samples);
	CHECK(total >= 3000);
	CHECK(cuts >= 2);
	CHECK(nonempty >= 1);
	/* after --apply's switch there are two profiles: no intervals */
	struct pms_memreport *before = NULL;
	CHECK_OK(pms_session_remeasure(s, 1.0, &before));
	pms_memreport_free(before);
	rep = NULL;
	CHECK_EQ_INT(pms_session_interval(s, 1.0, &rep), PMS_EINVAL);
	CHECK(rep == NULL);
	pms_session_free(s);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	unlink(file);
}

PMS_TEST(refused_for_files)
{
	const char *fx = getenv("PMS_FIXTURES");
	char path[4200];
	snprintf(path, sizeof(path), "%s/../fuzz/corpus/memsrc/file_be.data",
		 fx ? fx : "tests/fixtures");
	const char *paths[1] = { path };
	struct pms_session *s = NULL;
	struct pms_memreport *rep = NULL;
	CHECK_OK(pms_session_open_files(NULL, paths, 1, NULL, &s));
	CHECK_OK(pms_session_run(s));
	CHECK_EQ_INT(pms_session_interval(s, 1.0, &rep), PMS_EINVAL);
	CHECK(rep == NULL);
	pms_session_free(s);
}

int main(int argc, char **argv)
{
	return pms_t_run(argc, argv);
}
