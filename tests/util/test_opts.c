/* The one options rule (docs/api.md, src/util/opts.h).
 *
 * Every `#define PMS_X_VERSION N` in include/pmuscope/ (read at test time, so
 * a new options struct cannot be missed) must have a row below: its layout
 * (PMS_OPTS_LAYOUT in the consuming concern) and a check of the function that
 * takes it.  For every layout, pms_opts_take gives the _INIT value for NULL,
 * refuses version 0 and N+1, and for each version 1..N copies exactly the
 * bytes that version has (the caller's struct is allocated at that size, so
 * the sanitizer build catches a read past it) and the defaults after them.
 * Each consumer: NULL behaves as _INIT, versions 0 and N+1 are refused with
 * PMS_EINVAL and a message naming the function and why. */
#include "check.h"
#include "pmuscope/advise.h"
#include "pmuscope/c2c.h"
#include "pmuscope/catalog.h"
#include "pmuscope/count.h"
#include "pmuscope/countrun.h"
#include "pmuscope/damon.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/export.h"
#include "pmuscope/liverun.h"
#include "pmuscope/numa.h"
#include "pmuscope/pathprof.h"
#include "pmuscope/pmu.h"
#include "pmuscope/recorder.h"
#include "pmuscope/render.h"
#include "pmuscope/report.h"
#include "pmuscope/sampler.h"
#include "pmuscope/selfmon.h"
#include "pmuscope/session.h"
#include "pmuscope/sys.h"
#include "pmuscope/topo.h"
#include "util/opts.h"

#include <dirent.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* rc and message of the last call, to compare a NULL-options call with an
 * _INIT one. */
struct outcome {
	int rc;
	char msg[512];
};

static struct outcome took(int rc)
{
	struct outcome o = { rc, "" };
	if (rc < 0)
		snprintf(o.msg, sizeof(o.msg), "%s", pms_error_last());
	return o;
}

#define CHECK_SAME(a, b)                                                                  \
	do {                                                                              \
		CHECK_EQ_INT((a).rc, (b).rc);                                             \
		CHECK_EQ_STR((a).msg, (b).msg);                                           \
	} while (0)

/* A refused version: PMS_EINVAL, and the message says why. */
#define CHECK_REFUSED(rc, fn, why)                                                        \
	do {                                                                              \
		CHECK_EQ_INT((rc), PMS_EINVAL);                                           \
		CHECK_MSG(strstr(pms_error_last(), fn) && strstr(pms_error_last(), why), \
			  "message \"%s\" lacks \"%s\" or \"%s\"", pms_error_last(), fn, why); \
	} while (0)

#define CHECK_VERSIONS(call, opts, known, fn)                                             \
	do {                                                                              \
		(opts).version = 0;                                                       \
		CHECK_REFUSED(call, fn, "version 0");                                     \
		(opts).version = (known) + 1;                                             \
		CHECK_REFUSED(call, fn, "newer than this library");                       \
	} while (0)

struct machine {
	struct pms_sys *sys;
	struct pms_pmus *pmus;
	struct pms_topo *topo;
};

static int machine_load(struct machine *m)
{
	char root[4096];
	struct pms_sys_opts so = PMS_SYS_OPTS_INIT;
	memset(m, 0, sizeof(*m));
	snprintf(root, sizeof(root), "%s/machines/gnr-snc2", pms_t_fixtures());
	so.root = root;
	if (pms_sys_new(&m->sys, &so) < 0 || pms_pmus_load(m->sys, &m->pmus) < 0 ||
	    pms_topo_load(m->sys, &m->topo) < 0)
		return -1;
	return 0;
}

static void machine_free(struct machine *m)
{
	pms_topo_free(m->topo);
	pms_pmus_free(m->pmus);
	pms_sys_free(m->sys);
}

static void sys_opts(void)
{
	struct pms_sys *a = NULL, *b = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	CHECK_OK(pms_sys_new(&a, NULL));
	CHECK_OK(pms_sys_new(&b, &o));
	CHECK(a && b && pms_sys_is_live(a) == pms_sys_is_live(b));
	CHECK_EQ_STR(a ? pms_sys_root(a) : NULL, b ? pms_sys_root(b) : NULL);
	pms_sys_free(a);
	pms_sys_free(b);
	CHECK_VERSIONS(pms_sys_new(&a, &o), o, PMS_SYS_OPTS_VERSION, "pms_sys_new");
	CHECK(a == NULL);
}

static void event_parse_opts(void)
{
	struct machine m;
	struct pms_event_list *a = NULL, *b = NULL;
	struct pms_event_parse_opts o = PMS_EVENT_PARSE_OPTS_INIT;
	CHECK_OK(machine_load(&m));
	CHECK_OK(pms_event_parse_ex(m.pmus, "page-faults,task-clock", NULL, &a));
	CHECK_OK(pms_event_parse_ex(m.pmus, "page-faults,task-clock", &o, &b));
	CHECK(a && b && pms_event_list_count(a) == pms_event_list_count(b) && pms_event_list_count(a) == 2);
	pms_event_list_free(a);
	pms_event_list_free(b);
	CHECK_VERSIONS(pms_event_parse_ex(m.pmus, "page-faults", &o, &a), o,
		       PMS_EVENT_PARSE_OPTS_VERSION, "pms_event_parse_ex");
	machine_free(&m);
}

static void numa_opts(void)
{
	struct machine m;
	struct pms_numa_oracle *a = NULL, *b = NULL;
	struct pms_numa_opts o = PMS_NUMA_OPTS_INIT;
	CHECK_OK(machine_load(&m));
	struct outcome na = took(pms_numa_oracle_new(m.sys, m.topo, NULL, &a));
	struct outcome nb = took(pms_numa_oracle_new(m.sys, m.topo, &o, &b));
	CHECK_SAME(na, nb);
	pms_numa_oracle_free(a);
	pms_numa_oracle_free(b);
	CHECK_VERSIONS(pms_numa_oracle_new(m.sys, m.topo, &o, &a), o, PMS_NUMA_OPTS_VERSION,
		       "pms_numa_oracle_new");
	machine_free(&m);
}

static void memprof_opts(void)
{
	struct pms_memprof *a = NULL, *b = NULL;
	struct pms_memprof_opts o = PMS_MEMPROF_OPTS_INIT;
	CHECK_OK(pms_memprof_new(NULL, NULL, &a));
	CHECK_OK(pms_memprof_new(NULL, &o, &b));
	pms_memprof_free(a);
	pms_memprof_free(b);
	/* A version-1 caller (before `aggregate`) keeps working. */
	o.version = 1;
	CHECK_OK(pms_memprof_new(NULL, &o, &a));
	pms_memprof_free(a);
	CHECK_VERSIONS(pms_memprof_new(NULL, &o, &a), o, PMS_MEMPROF_OPTS_VERSION,
		       "pms_memprof_new");
}

static void sampler_opts(void)
{
	struct machine m;
	struct pms_sampler *a = NULL, *b = NULL;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	CHECK_OK(machine_load(&m));
	/* The defaults name no task: both are refused for that, not for NULL. */
	struct outcome na = took(pms_sampler_open(m.sys, m.pmus, m.topo, NULL, &a));
	struct outcome nb = took(pms_sampler_open(m.sys, m.pmus, m.topo, &o, &b));
	CHECK_SAME(na, nb);
	CHECK(!strstr(na.msg, "version") && !strstr(na.msg, "options"));
	pms_sampler_free(a);
	pms_sampler_free(b);
	CHECK_VERSIONS(pms_sampler_open(m.sys, m.pmus, m.topo, &o, &a), o,
		       PMS_SAMPLER_OPTS_VERSION, "pms_sampler_open");
	enum pms_engine eng;
	struct pms_sampler_attempt *att = NULL;
	size_t natt = 0;
	CHECK_VERSIONS(pms_sampler_probe(m.sys, m.pmus, m.topo, &o, &eng, &att, &natt), o,
		       PMS_SAMPLER_OPTS_VERSION, "pms_sampler_open");
	free(att);
	machine_free(&m);
}

static void count_opts(void)
{
	struct machine m;
	struct pms_event_list *list = NULL;
	struct pms_counter *a = NULL, *b = NULL;
	struct pms_count_opts o = PMS_COUNT_OPTS_INIT;
	CHECK_OK(machine_load(&m));
	CHECK_OK(pms_event_parse(m.pmus, "page-faults", &list));
	struct outcome na = took(pms_counter_open(m.sys, m.pmus, m.topo, list, NULL, &a));
	struct outcome nb = took(pms_counter_open(m.sys, m.pmus, m.topo, list, &o, &b));
	CHECK_SAME(na, nb);
	CHECK(!strstr(na.msg, "version") && !strstr(na.msg, "options"));
	pms_counter_free(a);
	pms_counter_free(b);
	CHECK_VERSIONS(pms_counter_open(m.sys, m.pmus, m.topo, list, &o, &a), o,
		       PMS_COUNT_OPTS_VERSION, "pms_counter_open");
	pms_event_list_free(list);
	machine_free(&m);
}

static void selfmon_opts(void)
{
	struct machine m;
	struct pms_selfmon *a = NULL, *b = NULL;
	struct pms_selfmon_opts o = PMS_SELFMON_OPTS_INIT;
	CHECK_OK(machine_load(&m));
	struct outcome na = took(pms_selfmon_open(m.sys, m.pmus, "page-faults", NULL, &a));
	struct outcome nb = took(pms_selfmon_open(m.sys, m.pmus, "page-faults", &o, &b));
	CHECK_SAME(na, nb);
	pms_selfmon_free(a);
	pms_selfmon_free(b);
	/* A version-1 caller (before `catalog`) is not refused for its version. */
	o.version = 1;
	struct outcome v1 = took(pms_selfmon_open(m.sys, m.pmus, "page-faults", &o, &a));
	CHECK_SAME(v1, nb);
	pms_selfmon_free(a);
	CHECK_VERSIONS(pms_selfmon_open(m.sys, m.pmus, "page-faults", &o, &a), o,
		       PMS_SELFMON_OPTS_VERSION, "pms_selfmon_open");
	machine_free(&m);
}

static void catalog_select(void)
{
	static const char json[] = "[{\"EventName\": \"A\", \"EventCode\": \"0x1\"},"
				   " {\"EventName\": \"B\", \"EventCode\": \"0x2\"}]";
	char path[] = "/tmp/pms_opts_XXXXXX";
	int fd = mkstemp(path);
	struct pms_catalog *a = NULL, *b = NULL;
	struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, json, sizeof(json) - 1) == (ssize_t)(sizeof(json) - 1));
	close(fd);
	CHECK_OK(pms_catalog_new(&a));
	CHECK_OK(pms_catalog_new(&b));
	CHECK_OK(pms_catalog_load(a, path, NULL));
	CHECK_OK(pms_catalog_load(b, path, &sel));
	CHECK_EQ_INT(pms_catalog_count(a), 2);
	CHECK_EQ_INT(pms_catalog_count(b), pms_catalog_count(a));
	CHECK_VERSIONS(pms_catalog_load(b, path, &sel), sel, PMS_CATALOG_SELECT_VERSION,
		       "pms_catalog_load");
	CHECK_EQ_INT(pms_catalog_count(b), 2);
	pms_catalog_free(a);
	pms_catalog_free(b);
	unlink(path);
}

static void advise_opts(void)
{
	struct pms_advisor *a = NULL, *b = NULL;
	struct pms_advise_opts o = PMS_ADVISE_OPTS_INIT;
	CHECK_OK(pms_advisor_new(NULL, NULL, &a));
	CHECK_OK(pms_advisor_new(NULL, &o, &b));
	pms_advisor_free(a);
	pms_advisor_free(b);
	o.page_size = 3; /* read from the copy: refused */
	CHECK_EQ_INT(pms_advisor_new(NULL, &o, &a), PMS_EINVAL);
	CHECK_VERSIONS(pms_advisor_new(NULL, &o, &a), o, PMS_ADVISE_OPTS_VERSION,
		       "pms_advisor_new");
}

static void migrate_opts(void)
{
	struct machine m;
	struct pms_migrate_result res;
	struct pms_migrate_opts o = PMS_MIGRATE_OPTS_INIT;
	int node = 0;
	CHECK_OK(machine_load(&m));
	/* an empty range: refused for it, the same way with NULL and _INIT */
	struct outcome na = took(pms_migrate_range(m.sys, 0, 8192, 4096, &node, 1, NULL, &res));
	struct outcome nb = took(pms_migrate_range(m.sys, 0, 8192, 4096, &node, 1, &o, &res));
	CHECK_SAME(na, nb);
	CHECK(strstr(na.msg, "empty range") != NULL);
	CHECK_VERSIONS(pms_migrate_range(m.sys, 0, 8192, 4096, &node, 1, &o, &res), o,
		       PMS_MIGRATE_OPTS_VERSION, "pms_migrate_range");
	machine_free(&m);
}

static void c2c_opts(void)
{
	struct pms_c2c *a = NULL, *b = NULL;
	struct pms_c2c_opts o = PMS_C2C_OPTS_INIT;
	CHECK_OK(pms_c2c_new(PMS_ENG_SOFTWARE, NULL, &a));
	CHECK_OK(pms_c2c_new(PMS_ENG_SOFTWARE, &o, &b));
	pms_c2c_free(a);
	pms_c2c_free(b);
	CHECK_VERSIONS(pms_c2c_new(PMS_ENG_SOFTWARE, &o, &a), o, PMS_C2C_OPTS_VERSION,
		       "pms_c2c_new");
}

static void child_opts(void)
{
	struct machine m;
	struct pms_child *a = NULL, *b = NULL;
	struct pms_child_opts o = PMS_CHILD_OPTS_INIT;
	char *argv[] = { (char *)"true", NULL };
	CHECK_OK(machine_load(&m));
	/* a snapshot root starts no command: refused for that, not for NULL */
	struct outcome na = took(pms_child_spawn_opts(m.sys, argv, NULL, &a));
	struct outcome nb = took(pms_child_spawn_opts(m.sys, argv, &o, &b));
	CHECK_SAME(na, nb);
	CHECK_EQ_INT(na.rc, PMS_ENOTLIVE);
	CHECK_VERSIONS(pms_child_spawn_opts(m.sys, argv, &o, &a), o, PMS_CHILD_OPTS_VERSION,
		       "pms_child_spawn_opts");
	machine_free(&m);
}

static void damon_opts(void)
{
	struct machine m;
	struct pms_damon *a = NULL, *b = NULL;
	struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
	CHECK_OK(machine_load(&m));
	/* the defaults name no process: both refused for that */
	struct outcome na = took(pms_damon_start(m.sys, m.topo, NULL, &a));
	struct outcome nb = took(pms_damon_start(m.sys, m.topo, &o, &b));
	CHECK_SAME(na, nb);
	CHECK(na.rc < 0 && strstr(na.msg, "target pids") != NULL);
	CHECK_VERSIONS(pms_damon_start(m.sys, m.topo, &o, &a), o, PMS_DAMON_OPTS_VERSION,
		       "pms_damon_start");
	machine_free(&m);
}

static void damon_report_opts(void)
{
	struct pms_damon_report *r = NULL;
	struct pms_damon_report_opts o = PMS_DAMON_REPORT_OPTS_INIT;
	/* no session: refused for it, after the options were taken */
	struct outcome na = took(pms_damon_report_build(NULL, NULL, &r));
	struct outcome nb = took(pms_damon_report_build(NULL, &o, &r));
	CHECK_SAME(na, nb);
	CHECK_VERSIONS(pms_damon_report_build(NULL, &o, &r), o, PMS_DAMON_REPORT_OPTS_VERSION,
		       "pms_damon_report_build");
}

static void export_pprof_opts(void)
{
	void *buf = NULL;
	size_t len = 0;
	struct pms_export_pprof_opts o = PMS_EXPORT_PPROF_OPTS_INIT;
	struct outcome na = took(pms_export_pprof(NULL, NULL, &buf, &len));
	struct outcome nb = took(pms_export_pprof(NULL, &o, &buf, &len));
	CHECK_SAME(na, nb);
	CHECK_VERSIONS(pms_export_pprof(NULL, &o, &buf, &len), o, PMS_EXPORT_PPROF_OPTS_VERSION,
		       "pms_export_pprof");
}

static void render_mem_opts(void)
{
	struct pms_render_mem_opts o = PMS_RENDER_MEM_OPTS_INIT;
	/* no stream and no report: refused for them, after the options were taken */
	struct outcome na = took(pms_render_mem_text(NULL, NULL));
	struct outcome nb = took(pms_render_mem_text(&o, NULL));
	CHECK_SAME(na, nb);
	CHECK_VERSIONS(pms_render_mem_text(&o, NULL), o, PMS_RENDER_MEM_OPTS_VERSION,
		       "pms_render_mem_text");
	CHECK_VERSIONS(pms_render_mem_json(&o, NULL), o, PMS_RENDER_MEM_OPTS_VERSION,
		       "pms_render_mem_json");
}

static void pathprof_opts(void)
{
	struct machine m;
	struct pms_pathprof *a = NULL, *b = NULL;
	struct pms_pathprof_opts o = PMS_PATHPROF_OPTS_INIT;
	CHECK_OK(machine_load(&m));
	struct outcome na = took(pms_pathprof_new(m.sys, NULL, &a));
	struct outcome nb = took(pms_pathprof_new(m.sys, &o, &b));
	CHECK_SAME(na, nb);
	pms_pathprof_free(a);
	pms_pathprof_free(b);
	CHECK_VERSIONS(pms_pathprof_new(m.sys, &o, &a), o, PMS_PATHPROF_OPTS_VERSION,
		       "pms_pathprof_new");
	machine_free(&m);
}

static void recorder_opts(void)
{
	struct pms_recorder *r = NULL;
	struct pms_recorder_opts o = PMS_RECORDER_OPTS_INIT;
	/* no source: refused for it, after the options were taken */
	struct outcome na = took(pms_recorder_open(-1, NULL, NULL, &r));
	struct outcome nb = took(pms_recorder_open(-1, NULL, &o, &r));
	CHECK_SAME(na, nb);
	CHECK_VERSIONS(pms_recorder_open(-1, NULL, &o, &r), o, PMS_RECORDER_OPTS_VERSION,
		       "pms_recorder_open");
}

static void liverun_opts(void)
{
	struct machine m;
	struct pms_liverun *a = NULL, *b = NULL;
	struct pms_liverun_opts o = PMS_LIVERUN_OPTS_INIT;
	struct pms_sampler_opts so = PMS_SAMPLER_OPTS_INIT;
	CHECK_OK(machine_load(&m));
	/* the defaults run no command: both refused for that */
	struct outcome na = took(pms_liverun_open(m.sys, m.pmus, m.topo, NULL, &a));
	struct outcome nb = took(pms_liverun_open(m.sys, m.pmus, m.topo, &o, &b));
	CHECK_SAME(na, nb);
	CHECK(na.rc < 0 && strstr(na.msg, "no command") != NULL);
	CHECK_VERSIONS(pms_liverun_open(m.sys, m.pmus, m.topo, &o, &a), o,
		       PMS_LIVERUN_OPTS_VERSION, "pms_liverun_open");
	/* the sampler options inside are taken by the same rule */
	o.version = PMS_LIVERUN_OPTS_VERSION;
	o.target = PMS_LIVERUN_PID;
	o.pid = getpid();
	o.sampler = &so;
	CHECK_VERSIONS(pms_liverun_open(m.sys, m.pmus, m.topo, &o, &a), so,
		       PMS_SAMPLER_OPTS_VERSION, "pms_liverun_open (sampler)");
	CHECK(a == NULL);
	machine_free(&m);
}

static void countrun_opts(void)
{
	struct machine m;
	struct pms_countrun *a = NULL;
	struct pms_countrun_opts o = PMS_COUNTRUN_OPTS_INIT;
	CHECK_OK(machine_load(&m));
	/* repeat without a command: refused for that after the options were taken */
	o.repeat = 2;
	struct outcome nb = took(pms_countrun_new(m.sys, m.pmus, m.topo, &o, &a));
	CHECK(nb.rc == PMS_EINVAL && strstr(nb.msg, "repeat") != NULL);
	CHECK_VERSIONS(pms_countrun_new(m.sys, m.pmus, m.topo, &o, &a), o,
		       PMS_COUNTRUN_OPTS_VERSION, "pms_countrun_new");
	CHECK(a == NULL);
	machine_free(&m);
}

static void damon_run_opts(void)
{
	struct machine m;
	struct pms_damon_run *a = NULL, *b = NULL;
	struct pms_damon_run_opts o = PMS_DAMON_RUN_OPTS_INIT;
	CHECK_OK(machine_load(&m));
	/* the defaults name neither pids nor a command: both refused for that */
	struct outcome na = took(pms_damon_run_new(m.sys, m.topo, NULL, &a));
	struct outcome nb = took(pms_damon_run_new(m.sys, m.topo, &o, &b));
	CHECK_SAME(na, nb);
	CHECK(na.rc < 0 && strstr(na.msg, "give one") != NULL);
	CHECK_VERSIONS(pms_damon_run_new(m.sys, m.topo, &o, &a), o, PMS_DAMON_RUN_OPTS_VERSION,
		       "pms_damon_run_new");
	machine_free(&m);
}

static void session_opts(void)
{
	struct machine m;
	struct pms_session *a = NULL, *b = NULL;
	struct pms_session_opts o = PMS_SESSION_OPTS_INIT;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	const char *paths[] = { "/nonexistent/perf.data" };
	CHECK_OK(machine_load(&m));
	/* files are opened when the session runs: both open */
	struct outcome na = took(pms_session_open_files(m.sys, paths, 1, NULL, &a));
	struct outcome nb = took(pms_session_open_files(m.sys, paths, 1, &o, &b));
	CHECK_SAME(na, nb);
	pms_session_free(a);
	pms_session_free(b);
	a = NULL;
	CHECK_VERSIONS(pms_session_open_files(m.sys, paths, 1, &o, &a), o,
		       PMS_SESSION_OPTS_VERSION, "pms_session_open");
	/* the profile's options inside are taken by their own rule */
	o.version = PMS_SESSION_OPTS_VERSION;
	o.profile_opts = &po;
	CHECK_VERSIONS(pms_session_open_files(m.sys, paths, 1, &o, &a), po,
		       PMS_MEMPROF_OPTS_VERSION, "pms_session_open (profile_opts)");
	CHECK(a == NULL);
	machine_free(&m);
}

/* One row per options struct of include/pmuscope/: its macros' prefix, its
 * layout and the check of the function that takes it. */
static const struct row {
	const char *name;
	const struct pms_opts_layout *layout;
	void (*consumer)(void);
} rows[] = {
	{ "PMS_ADVISE_OPTS", &pms_opts_layout_PMS_ADVISE_OPTS, advise_opts },
	{ "PMS_C2C_OPTS", &pms_opts_layout_PMS_C2C_OPTS, c2c_opts },
	{ "PMS_CATALOG_SELECT", &pms_opts_layout_PMS_CATALOG_SELECT, catalog_select },
	{ "PMS_CHILD_OPTS", &pms_opts_layout_PMS_CHILD_OPTS, child_opts },
	{ "PMS_COUNT_OPTS", &pms_opts_layout_PMS_COUNT_OPTS, count_opts },
	{ "PMS_COUNTRUN_OPTS", &pms_opts_layout_PMS_COUNTRUN_OPTS, countrun_opts },
	{ "PMS_DAMON_OPTS", &pms_opts_layout_PMS_DAMON_OPTS, damon_opts },
	{ "PMS_DAMON_REPORT_OPTS", &pms_opts_layout_PMS_DAMON_REPORT_OPTS, damon_report_opts },
	{ "PMS_DAMON_RUN_OPTS", &pms_opts_layout_PMS_DAMON_RUN_OPTS, damon_run_opts },
	{ "PMS_EVENT_PARSE_OPTS", &pms_opts_layout_PMS_EVENT_PARSE_OPTS, event_parse_opts },
	{ "PMS_EXPORT_PPROF_OPTS", &pms_opts_layout_PMS_EXPORT_PPROF_OPTS, export_pprof_opts },
	{ "PMS_LIVERUN_OPTS", &pms_opts_layout_PMS_LIVERUN_OPTS, liverun_opts },
	{ "PMS_MEMPROF_OPTS", &pms_opts_layout_PMS_MEMPROF_OPTS, memprof_opts },
	{ "PMS_MIGRATE_OPTS", &pms_opts_layout_PMS_MIGRATE_OPTS, migrate_opts },
	{ "PMS_NUMA_OPTS", &pms_opts_layout_PMS_NUMA_OPTS, numa_opts },
	{ "PMS_PATHPROF_OPTS", &pms_opts_layout_PMS_PATHPROF_OPTS, pathprof_opts },
	{ "PMS_RECORDER_OPTS", &pms_opts_layout_PMS_RECORDER_OPTS, recorder_opts },
	{ "PMS_RENDER_MEM_OPTS", &pms_opts_layout_PMS_RENDER_MEM_OPTS, render_mem_opts },
	{ "PMS_SAMPLER_OPTS", &pms_opts_layout_PMS_SAMPLER_OPTS, sampler_opts },
	{ "PMS_SELFMON_OPTS", &pms_opts_layout_PMS_SELFMON_OPTS, selfmon_opts },
	{ "PMS_SESSION_OPTS", &pms_opts_layout_PMS_SESSION_OPTS, session_opts },
	{ "PMS_SYS_OPTS", &pms_opts_layout_PMS_SYS_OPTS, sys_opts },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static const struct row *row_of(const char *name)
{
	for (size_t i = 0; i < NROWS; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

/* Every `#define PMS_X_VERSION N` of the public headers: its row exists and
 * its layout has N versions.  Returns how many were found. */
static size_t scan_headers(bool *seen)
{
	char dir[4096], path[4600], line[1024];
	size_t found = 0;
	snprintf(dir, sizeof(dir), "%s/../../include/pmuscope", pms_t_fixtures());
	DIR *d = opendir(dir);
	CHECK_MSG(d != NULL, "cannot list %s", dir);
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 3 || strcmp(e->d_name + n - 2, ".h"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "r");
		CHECK_MSG(f != NULL, "cannot read %s", path);
		while (f && fgets(line, sizeof(line), f)) {
			char name[128];
			unsigned version;
			if (sscanf(line, " #define %127s %u", name, &version) != 2)
				continue;
			size_t len = strlen(name);
			if (len <= 8 || strcmp(name + len - 8, "_VERSION") ||
			    strncmp(name, "PMS_", 4))
				continue;
			name[len - 8] = 0;
			found++;
			const struct row *r = row_of(name);
			CHECK_MSG(r != NULL, "%s: %s_VERSION has no row in test_opts.c (and no "
				  "PMS_OPTS_LAYOUT?): every options struct is taken by "
				  "PMS_OPTS_TAKE", e->d_name, name);
			if (!r)
				continue;
			seen[r - rows] = true;
			CHECK_MSG(r->layout->known == version, "%s: header version %u, layout %u",
				  name, version, r->layout->known);
			CHECK_EQ_STR(r->layout->name, name);
		}
		if (f)
			fclose(f);
	}
	closedir(d);
	return found;
}

PMS_TEST(every_struct_has_a_layout_and_a_row)
{
	bool seen[NROWS] = { false };
	size_t found = scan_headers(seen);
	CHECK_MSG(found >= NROWS, "%zu PMS_*_VERSION defines found, %zu rows", found,
		  (size_t)NROWS);
	for (size_t i = 0; i < NROWS; i++)
		CHECK_MSG(seen[i], "row %s: no such PMS_*_VERSION in include/pmuscope",
			  rows[i].name);
}

/* The rule itself, on each layout: sizes grow with the version and the last
 * one is the struct's (up to tail padding); NULL gives the defaults; 0 and
 * N+1 are refused; version v copies exactly its bytes, defaults after them. */
PMS_TEST(take_follows_each_layout)
{
	for (size_t i = 0; i < NROWS; i++) {
		const struct pms_opts_layout *l = rows[i].layout;
		unsigned char *copy = malloc(l->size), *src;
		CHECK(copy != NULL);
		if (!copy)
			return;
		CHECK_MSG(l->sizes[0] > sizeof(unsigned), "%s: version 1 holds no field", l->name);
		for (unsigned v = 2; v <= l->known; v++)
			CHECK_MSG(l->sizes[v - 1] > l->sizes[v - 2], "%s: version %u adds nothing",
				  l->name, v);
		CHECK_MSG(l->sizes[l->known - 1] <= l->size &&
				  l->size - l->sizes[l->known - 1] < alignof(max_align_t),
			  "%s: the last version's size %zu is not the struct's %zu", l->name,
			  l->sizes[l->known - 1], l->size);

		memset(copy, 0xEE, l->size);
		CHECK_OK(pms_opts_take("t", l, NULL, copy, l->size));
		CHECK_MSG(!memcmp(copy, l->defaults, l->size), "%s: NULL is not _INIT", l->name);
		CHECK_EQ_INT(*(const unsigned *)l->defaults, l->known);

		for (unsigned v = 0; v <= l->known + 1; v++) {
			size_t have = v >= 1 && v <= l->known ? l->sizes[v - 1] : sizeof(unsigned);
			src = malloc(have); /* exactly the caller's size */
			CHECK(src != NULL);
			if (!src)
				break;
			memset(src, 0x5A, have);
			memcpy(src, &v, sizeof(v));
			int rc = pms_opts_take("pms_t_fn", l, src, copy, l->size);
			if (v == 0 || v > l->known) {
				char init[96];
				snprintf(init, sizeof(init), "%s_INIT", l->name);
				CHECK_EQ_INT(rc, PMS_EINVAL);
				CHECK(strstr(pms_error_last(), "pms_t_fn") != NULL);
				CHECK(strstr(pms_error_last(), v ? "newer than this library"
								 : init) != NULL);
			} else {
				unsigned got;
				CHECK_OK(rc);
				memcpy(&got, copy, sizeof(got));
				CHECK_EQ_INT(got, l->known);
				CHECK_MSG(!memcmp(copy + sizeof(unsigned), src + sizeof(unsigned),
						  have - sizeof(unsigned)),
					  "%s v%u: the caller's fields not copied", l->name, v);
				CHECK_MSG(!memcmp(copy + have, (const unsigned char *)l->defaults + have,
						  l->size - have),
					  "%s v%u: later fields are not the defaults", l->name, v);
			}
			free(src);
		}
		/* a copy of another size is an internal error, not a crash */
		CHECK_EQ_INT(pms_opts_take("t", l, NULL, copy, l->size + 1), PMS_EINVAL);
		free(copy);
	}
}

/* Each consumer takes its struct by the rule. */
PMS_TEST(each_consumer_takes_its_opts)
{
	for (size_t i = 0; i < NROWS; i++)
		rows[i].consumer();
}

PMS_TEST_MAIN()
