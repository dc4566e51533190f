/* pms_session over recorded files: the options rule (NULL = INIT, versions
 * 0 and N+1 refused), the files decoded in parallel (one profile each,
 * joined in file order) give the report of the same files decoded one after
 * the other into one profile, field by field (report_diff.c), whatever the
 * number of threads; a caller's callback sees every sample the profile
 * took; the c2c model; a missing file stops the run with its path; the
 * session's parts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/session.h"
#include "../report/report_diff.h"

static char corpus[4096];

static const char *fixture(const char *rel, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", corpus, rel);
	return buf;
}

static void setup(void)
{
	const char *fx = getenv("PMS_FIXTURES");
	snprintf(corpus, sizeof(corpus), "%s/../fuzz/corpus", fx ? fx : "tests/fixtures");
}

PMS_TEST(opts_rule)
{
	setup();
	char a[4200];
	const char *paths[1] = { fixture("memsrc/file_be.data", a, sizeof(a)) };
	struct pms_session *s = NULL;
	CHECK_OK(pms_session_open_files(NULL, paths, 1, NULL, &s));
	CHECK_OK(pms_session_run(s));
	CHECK(pms_session_profile(s) != NULL);
	pms_session_free(s);
	struct pms_session_opts o = PMS_SESSION_OPTS_INIT;
	o.version = 0;
	s = NULL;
	CHECK_EQ_INT(pms_session_open_files(NULL, paths, 1, &o, &s), PMS_EINVAL);
	CHECK(s == NULL);
	o.version = PMS_SESSION_OPTS_VERSION + 1;
	CHECK_EQ_INT(pms_session_open_files(NULL, paths, 1, &o, &s), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "newer") != NULL);
	const char *twice[2] = { "-", "-" };
	CHECK_EQ_INT(pms_session_open_files(NULL, twice, 2, NULL, &s), PMS_EINVAL);
}

struct counter {
	size_t samples;
};

static int count_sample(void *ud, const struct pms_memsrc_sample *x)
{
	struct counter *c = ud;
	(void)x;
	c->samples++;
	return 0;
}

/* The report of the files with jobs threads (0: serial, through a
 * callback, which keeps the session from decoding in parallel). */
static struct pms_memreport *report_of(const char *const *paths, size_t n, size_t jobs,
				       size_t *cb_samples)
{
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.aggregate = true;
	struct pms_session_opts o = PMS_SESSION_OPTS_INIT;
	struct counter c = { 0 };
	const struct pms_session_callbacks cb = { count_sample, NULL, NULL };
	o.profile_opts = &po;
	o.symbols = false;
	o.jobs = jobs;
	if (!jobs) {
		o.callbacks = &cb;
		o.ud = &c;
	}
	struct pms_session *s = NULL;
	struct pms_memreport *rep = NULL;
	CHECK_OK(pms_session_open_files(NULL, paths, n, &o, &s));
	if (!s)
		return NULL;
	CHECK_OK(pms_session_run(s));
	for (size_t i = 0; i < n; i++)
		CHECK_MSG(pms_session_file_error(s, i) == NULL, "%s: %s", paths[i],
			  pms_session_file_error(s, i));
	CHECK_OK(pms_session_report(s, NULL, &rep, NULL));
	uint64_t sum = 0, mn = 0, mx = 0;
	pms_session_periods(s, &sum, &mn, &mx);
	CHECK(mn <= mx);
	if (cb_samples)
		*cb_samples = c.samples;
	struct pms_memsrc_stats st;
	pms_session_stats(s, &st);
	CHECK_EQ_U64(st.samples, rep ? rep->samples : 0);
	pms_session_free(s);
	return rep;
}

PMS_TEST(parallel_is_serial)
{
	setup();
	char a[4200], b[4200], c[4200];
	const char *paths[3] = { fixture("memsrc/file_two_attrs_features.data", a, sizeof(a)),
				 fixture("memsrc/mem_o_software.data", b, sizeof(b)),
				 fixture("auxtrace/ibs_zen4.data", c, sizeof(c)) };
	size_t seen = 0;
	struct pms_memreport *serial = report_of(paths, 3, 0, &seen);
	struct pms_memreport *one = report_of(paths, 3, 1, NULL);
	struct pms_memreport *three = report_of(paths, 3, 3, NULL);
	CHECK(serial && one && three);
	if (serial && one && three) {
		CHECK(serial->samples > 0);
		CHECK_EQ_U64(seen, serial->samples);
		CHECK_EQ_INT(pms_t_report_diff(serial, one), 0);
		CHECK_EQ_INT(pms_t_report_diff(serial, three), 0);
	}
	pms_memreport_free(serial);
	pms_memreport_free(one);
	pms_memreport_free(three);
}

PMS_TEST(c2c_sink)
{
	setup();
	char a[4200];
	const char *paths[1] = { fixture("c2c/hitm_peer_seed3.data", a, sizeof(a)) };
	struct pms_c2c_opts co = PMS_C2C_OPTS_INIT;
	struct pms_session_opts o = PMS_SESSION_OPTS_INIT;
	o.profile = false;
	o.symbols = false;
	o.c2c_opts = &co;
	struct pms_session *s = NULL;
	struct pms_c2c_report *rep = NULL;
	struct pms_memreport *mrep = NULL;
	CHECK_OK(pms_session_open_files(NULL, paths, 1, &o, &s));
	CHECK_OK(pms_session_run(s));
	CHECK_OK(pms_session_c2c_report(s, &rep));
	CHECK(rep && rep->nlines > 0);
	/* no profile asked for: the maps-only one gives no report */
	CHECK_EQ_INT(pms_session_report(s, NULL, &mrep, NULL), PMS_EINVAL);
	pms_c2c_report_free(rep);
	pms_session_free(s);
}

PMS_TEST(missing_file)
{
	setup();
	char a[4200];
	const char *paths[2] = { fixture("memsrc/file_be.data", a, sizeof(a)),
				 "/nonexistent/pmuscope-session.data" };
	struct pms_session *s = NULL;
	CHECK_OK(pms_session_open_files(NULL, paths, 2, NULL, &s));
	CHECK(pms_session_run(s) < 0);
	CHECK(strstr(pms_error_last(), "/nonexistent/pmuscope-session.data: ") != NULL);
	/* the first file was read before the second failed to open */
	CHECK(pms_session_source(s, 0) != NULL);
	CHECK(pms_session_source(s, 1) == NULL);
	pms_session_free(s);
}

/* The parts of a files session: as many files as opened, no live run, no
 * first measurement, no symbolizer before the report nor without symbols. */
PMS_TEST(parts)
{
	setup();
	char a[4200], b[4200];
	const char *paths[2] = { fixture("memsrc/file_be.data", a, sizeof(a)),
				 fixture("memsrc/mem_o_software.data", b, sizeof(b)) };
	struct pms_session_opts o = PMS_SESSION_OPTS_INIT;
	o.symbols = false;
	struct pms_session *s = NULL;
	CHECK_OK(pms_session_open_files(NULL, paths, 2, &o, &s));
	CHECK_EQ_INT((int)pms_session_nfiles(s), 2);
	CHECK(pms_session_liverun(s) == NULL);
	CHECK(pms_session_symbolizer(s) == NULL);
	CHECK_OK(pms_session_run(s));
	CHECK(pms_session_profile(s) != NULL);
	CHECK(pms_session_profile_before(s) == NULL);
	struct pms_memreport *rep = NULL;
	struct pms_pathreport *prep = NULL;
	CHECK_OK(pms_session_report(s, NULL, &rep, &prep));
	CHECK(pms_session_symbolizer(s) == NULL);
	pms_memreport_free(rep);
	pms_pathreport_free(prep);
	pms_session_free(s);
}

int main(int argc, char **argv)
{
	return pms_t_run(argc, argv);
}
