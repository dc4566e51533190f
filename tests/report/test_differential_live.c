/* The differential of the one sample path on this kernel's software engine
 * (page faults, first touches): a child touching 2000 fresh pages is
 * sampled live through the memory-sample source into a collector while the
 * recorder writes the same run to perf.data; the file, read back through
 * the recorded source into a collector with the same options, must give the
 * same report in every field but the live-only ones (docs/mem.md).  No
 * oracle on either side (the child is gone when the file is read; the
 * oracle's nodes are live-only), no /proc maps (live-only), user IPs only
 * (kernel names are live-only). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "report_diff.h"

#include "pmuscope/error.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/recorder.h"
#include "pmuscope/report.h"
#include "pmuscope/sampler.h"
#include "pmuscope/symbols.h"
#include "pmuscope/topo.h"

struct side {
	struct pms_memprof *prof;
	struct pms_recorder *rec;
};

static int on_sample(void *ud, const struct pms_memsrc_sample *s)
{
	struct side *d = ud;
	if (d->rec)
		CHECK_OK(pms_recorder_sample(d->rec, s));
	return pms_memprof_add_src(d->prof, s);
}

static int on_side(void *ud, const struct pms_record *r, size_t attr_idx)
{
	struct side *d = ud;
	if (d->rec)
		CHECK_OK(pms_recorder_sideband(d->rec, r, attr_idx));
	return pms_memprof_sideband(d->prof, r, NULL);
}

static const struct pms_memsrc_callbacks cbs = { on_sample, on_side, NULL };

/* The report of one side, its IPs named through its own maps. */
static struct pms_memreport *report(struct pms_sys *sys, struct pms_memsrc *src,
				    struct pms_memprof *prof)
{
	struct pms_symbolizer *sym = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_memsrc_info info;
	struct pms_memsrc_stats st;
	pms_memsrc_info(src, &info);
	pms_memsrc_stats(src, &st);
	struct pms_memreport_input in = { 0 };
	pms_memreport_input_from_src(&in, &info, &st);
	CHECK_OK(pms_symbolizer_new(sys, pms_memprof_maps(prof), &sym));
	CHECK_OK(pms_memprof_report(prof, sym, &in, &rep));
	pms_symbolizer_free(sym);
	return rep;
}

PMS_TEST(software_engine_live_equals_its_recording)
{
	const char *b = getenv("PMS_BUILD_DIR");
	char exe[4096], range[64], path[64];
	struct stat stt;
	char skip[512] = "";
	if (!b)
		PMS_SKIP("PMS_BUILD_DIR not set (run through meson test)");
	snprintf(exe, sizeof(exe), "%s/tests/sample/pms_touch_pages", b);
	if (stat(exe, &stt) < 0)
		PMS_SKIP("no %s built", exe);
	snprintf(range, sizeof(range), "/tmp/pms-diff-range-%d", (int)getpid());
	snprintf(path, sizeof(path), "/tmp/pms-diff-XXXXXX");
	char *argv[] = { exe, (char *)"2000", range, NULL };

	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_topo *topo = NULL;
	struct pms_child *ch = NULL;
	struct pms_sampler *smp = NULL;
	struct pms_memsrc *live = NULL, *file = NULL;
	struct pms_perfdata_reader *rd = NULL;
	struct pms_memreport *lrep = NULL, *frep = NULL;
	struct side ls = { 0 }, fs = { 0 };
	int fd = mkstemp(path), status = -1, r;

	CHECK(fd >= 0);
	CHECK_OK(pms_sys_new(&sys, NULL));
	if (fd < 0 || !sys)
		goto out;
	CHECK_OK(pms_pmus_load(sys, &pmus));
	CHECK_OK(pms_topo_load(sys, &topo));
	if (!pmus || !topo)
		goto out;
	CHECK_OK(pms_child_spawn(sys, argv, &ch));
	if (!ch)
		goto out;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	o.target = PMS_TARGET_CHILD;
	o.pid = pms_child_pid(ch);
	o.engine = PMS_ENG_SOFTWARE;
	/* user IPs only: kernel IPs are named from this machine's kallsyms
	 * live and stay "[kernel]" from a file (a live-only field) */
	o.priv = PMS_PRIV_USER;
	if (pms_sampler_open(sys, pmus, topo, &o, &smp) < 0) {
		snprintf(skip, sizeof(skip), "no software sampling here: %s", pms_error_last());
		goto out;
	}
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.pid = pms_child_pid(ch);
	po.top = 100000;
	CHECK_OK(pms_memsrc_open_live(smp, topo, &live));
	CHECK_OK(pms_memprof_new(topo, &po, &ls.prof));
	CHECK_OK(pms_memprof_new(topo, &po, &fs.prof));
	if (!live || !ls.prof || !fs.prof)
		goto out;
	CHECK_OK(pms_recorder_open(fd, live, NULL, &ls.rec));
	if (!ls.rec)
		goto out;
	CHECK_OK(pms_child_start(ch));
	time_t t0 = time(NULL);
	for (;;) {
		CHECK((r = pms_memsrc_poll(live, 50, &cbs, &ls)) >= 0);
		if (r < 0)
			goto out;
		if ((r = pms_child_wait(ch, true, &status)) == 0)
			break;
		if (r < 0 || time(NULL) - t0 > 120) {
			CHECK_MSG(0, "child did not exit (wait %d)", r);
			goto out;
		}
	}
	/* disabled: the poll after it hands out every record held for its
	 * time order (docs/mem.md "Time order") */
	CHECK_OK(pms_sampler_disable(smp));
	CHECK((r = pms_memsrc_poll(live, 0, &cbs, &ls)) >= 0);
	CHECK_OK(pms_recorder_finish(ls.rec, sys, topo, pmus));
	lrep = report(sys, live, ls.prof);

	CHECK_OK(pms_perfdata_reader_open_fd(fd, &rd));
	if (rd)
		CHECK_OK(pms_memsrc_open_reader(rd, &file));
	if (!file || !lrep)
		goto out;
	while ((r = pms_memsrc_poll(file, 0, &cbs, &fs)) > 0)
		;
	CHECK_EQ_INT(r, 0);
	frep = report(sys, file, fs.prof);
	if (!frep)
		goto out;
	CHECK(lrep->samples >= 2000);
	CHECK_EQ_U64(frep->samples, lrep->samples);
	CHECK_EQ_INT(lrep->engine, PMS_ENG_SOFTWARE);
	/* per sample, as they came: the live source hands them out in time
	 * order (docs/mem.md "Time order"), the file's are read in perf's time order
	 * (pms_perfdata_ordered) */
	for (size_t i = 1; i < lrep->nall; i++)
		CHECK_MSG(lrep->all[i].s.time >= lrep->all[i - 1].s.time,
			  "live sample %zu at %llu after one at %llu", i,
			  (unsigned long long)lrep->all[i].s.time,
			  (unsigned long long)lrep->all[i - 1].s.time);
	CHECK_EQ_INT(pms_t_report_diff(lrep, frep), 0);
	/* the buffer's 2000 first touches: one instruction, one data object */
	CHECK(lrep->ntop_ips_samples >= 1 && lrep->top_ips_samples[0].samples >= 2000);
out:
	pms_memreport_free(lrep);
	pms_memreport_free(frep);
	pms_recorder_free(ls.rec);
	pms_memprof_free(ls.prof);
	pms_memprof_free(fs.prof);
	pms_memsrc_free(live);
	pms_memsrc_free(file);
	pms_perfdata_reader_free(rd);
	pms_sampler_free(smp);
	pms_child_free(ch);
	pms_topo_free(topo);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	unlink(range);
	if (skip[0])
		PMS_SKIP("%s", skip);
}

PMS_TEST_MAIN()
