/* The one options rule (docs/api.md, src/util/opts.h), per options struct:
 * NULL means the _INIT defaults (the call behaves exactly as with the _INIT
 * value), version 0 and a version above the library's are refused with
 * PMS_EINVAL and a message saying which, and every version from 1 up to the
 * library's is accepted (an older caller keeps working). */
#include "check.h"
#include "pmuscope/catalog.h"
#include "pmuscope/count.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/numa.h"
#include "pmuscope/pmu.h"
#include "pmuscope/report.h"
#include "pmuscope/sampler.h"
#include "pmuscope/selfmon.h"
#include "pmuscope/sys.h"
#include "pmuscope/topo.h"

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

PMS_TEST(sys_opts)
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

PMS_TEST(event_parse_opts)
{
	struct machine m;
	struct pms_event_list *a = NULL, *b = NULL;
	struct pms_event_parse_opts o = PMS_EVENT_PARSE_OPTS_INIT;
	CHECK_OK(machine_load(&m));
	CHECK_OK(pms_event_parse_ex(m.pmus, "page-faults,task-clock", NULL, &a));
	CHECK_OK(pms_event_parse_ex(m.pmus, "page-faults,task-clock", &o, &b));
	CHECK(a && b && a->count == b->count && a->count == 2);
	pms_event_list_free(a);
	pms_event_list_free(b);
	CHECK_VERSIONS(pms_event_parse_ex(m.pmus, "page-faults", &o, &a), o,
		       PMS_EVENT_PARSE_OPTS_VERSION, "pms_event_parse_ex");
	machine_free(&m);
}

PMS_TEST(numa_opts)
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

PMS_TEST(memprof_opts)
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

PMS_TEST(sampler_opts)
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

PMS_TEST(count_opts)
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

PMS_TEST(selfmon_opts)
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

PMS_TEST(catalog_select)
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

PMS_TEST_MAIN()
