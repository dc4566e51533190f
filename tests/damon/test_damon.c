/* The DAMON session against the fake DAMON sysfs (tests/support/fake_damon.c):
 * the state machine (busy, refused, partial creation, cleanup, target exit)
 * and the rule that nothing pmuscope did not create is written. */
#include "check.h"
#include "fake_damon.h"
#include "pmuscope/damon.h"
#include "pmuscope/damon_text.h"
#include "pmuscope/error.h"
#include "pmuscope/sys.h"
#include "pmuscope/topo.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K0 "sys/kernel/mm/damon/admin/kdamonds/0/"
#define NR "sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"

static struct pms_sys *sys_on(struct fdm *f)
{
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	o.root = f->root;
	o.ops = fdm_ops(f);
	CHECK_OK(pms_sys_new(&sys, &o));
	return sys;
}

/* Every write went to nr_kdamonds or below kdamonds/0 that we created. */
static void only_ours(struct fdm *f)
{
	for (size_t i = 0; i < f->nwrites; i++)
		CHECK_MSG(!strcmp(f->writes[i], NR) ||
				  !strncmp(f->writes[i], K0, strlen(K0)),
			  "write outside our kdamond: %s", f->writes[i]);
}

static void gone(struct fdm *f)
{
	char *nr = fdm_get(f, NR);
	CHECK_EQ_STR(nr, "0\n");
	free(nr);
	char *st = fdm_get(f, K0 "state");
	CHECK(st == NULL);
	free(st);
}

static const pid_t pid1[] = { 4321 };

PMS_TEST(no_damon_sysfs_is_not_supported_and_writes_nothing)
{
	struct fdm *f = fdm_new();
	struct pms_sys *sys;
	struct pms_damon *d = NULL;
	struct pms_damon_probe pr;
	struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
	char rm[200];
	snprintf(rm, sizeof(rm), "rm -rf %s/sys", f->root);
	CHECK(system(rm) == 0);
	sys = sys_on(f);
	CHECK_OK(pms_damon_probe(sys, &pr));
	CHECK(!pr.usable);
	CHECK(strstr(pr.reason, "CONFIG_DAMON_SYSFS") != NULL);
	o.pids = pid1;
	o.npids = 1;
	CHECK_EQ_INT(pms_damon_start(sys, NULL, &o, &d), PMS_ENOTSUP);
	CHECK(d == NULL);
	CHECK_EQ_INT(f->nwrites, 0);
	pms_sys_free(sys);
	fdm_free(f);
}

/* Someone else's kdamond, stopped or running: refused before any write, and
 * the tree stays byte-identical. */
PMS_TEST(preexisting_kdamond_stays_byte_identical)
{
	for (int running = 0; running < 2; running++) {
		struct fdm *f = fdm_new();
		struct pms_damon *d = NULL;
		struct pms_damon_probe pr;
		struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
		fdm_preexisting(f, running);
		f->live_pids[0] = 4321;
		char *before = fdm_digest(f);
		struct pms_sys *sys = sys_on(f);
		CHECK_OK(pms_damon_probe(sys, &pr));
		CHECK(!pr.usable);
		CHECK_EQ_INT(pr.nr_kdamonds, 1);
		CHECK_EQ_INT(pr.running, running);
		o.pids = pid1;
		o.npids = 1;
		CHECK_EQ_INT(pms_damon_start(sys, NULL, &o, &d), PMS_EBUSY);
		CHECK(strstr(pms_error_last(), "did not create") != NULL);
		CHECK(strstr(pms_error_last(), "nothing was written") != NULL);
		CHECK_EQ_INT(f->nwrites, 0);
		char *after = fdm_digest(f);
		CHECK(before && after && !strcmp(before, after));
		free(before);
		free(after);
		pms_sys_free(sys);
		fdm_free(f);
	}
}

PMS_TEST(refused_add_writes_once_and_says_why)
{
	struct { int err; int code; const char *msg; } cases[] = {
		{ EACCES, PMS_EPERM, "needs root" },
		{ EPERM, PMS_EPERM, "needs root" },
		{ ENOMEM, PMS_ENOMEM, "refused to add" },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct fdm *f = fdm_new();
		struct pms_damon *d = NULL;
		struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
		struct pms_sys *sys = sys_on(f);
		f->fail_path = "nr_kdamonds";
		f->fail_errno = cases[c].err;
		o.pids = pid1;
		o.npids = 1;
		CHECK_EQ_INT(pms_damon_start(sys, NULL, &o, &d), cases[c].code);
		CHECK_MSG(strstr(pms_error_last(), cases[c].msg) != NULL, "%s", pms_error_last());
		/* the failed add made nothing of ours: no second write */
		CHECK_EQ_INT(f->nwrites, 1);
		pms_sys_free(sys);
		fdm_free(f);
	}
}

/* damon_sysfs_lock's trylock (sysfs.c:1776-1783) gives a transient -EBUSY:
 * retried; a lasting one is "busy". */
PMS_TEST(busy_lock_is_retried_then_reported)
{
	struct fdm *f = fdm_new();
	struct pms_damon *d = NULL;
	struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
	struct pms_sys *sys = sys_on(f);
	f->live_pids[0] = 4321;
	f->busy_writes = 3;
	o.pids = pid1;
	o.npids = 1;
	CHECK_OK(pms_damon_start(sys, NULL, &o, &d));
	CHECK_EQ_INT(pms_damon_state(d), PMS_DAMON_RUNNING);
	CHECK_EQ_INT(pms_damon_pid(d, 0), pid1[0]);
	pms_damon_free(d);
	gone(f);
	pms_sys_free(sys);
	fdm_free(f);

	f = fdm_new();
	sys = sys_on(f);
	f->busy_writes = 1000;
	d = NULL;
	CHECK_EQ_INT(pms_damon_start(sys, NULL, &o, &d), PMS_EBUSY);
	CHECK(strstr(pms_error_last(), "refused to add") != NULL);
	pms_sys_free(sys);
	fdm_free(f);
}

/* An exclusive DAMON user (core.c:1104): "on" is refused; what we made goes. */
PMS_TEST(busy_on_cleans_up)
{
	struct fdm *f = fdm_new();
	struct pms_damon *d = NULL;
	struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
	struct pms_sys *sys = sys_on(f);
	f->live_pids[0] = 4321;
	f->exclusive_busy = true;
	o.pids = pid1;
	o.npids = 1;
	CHECK_EQ_INT(pms_damon_start(sys, NULL, &o, &d), PMS_EBUSY);
	CHECK(strstr(pms_error_last(), "busy") != NULL);
	gone(f);
	only_ours(f);
	pms_sys_free(sys);
	fdm_free(f);
}

/* A failure at any configuration step removes our kdamond. */
PMS_TEST(partial_creation_is_removed)
{
	static const char *const steps[] = {
		"contexts/nr_contexts", "/operations", "intervals/sample_us",
		"intervals/aggr_us", "intervals/update_us", "nr_regions/min",
		"nr_regions/max", "targets/nr_targets", "/pid_target",
		"schemes/nr_schemes", "/action", "sz/max", "nr_accesses/max",
		"age/max", "0/state",
	};
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		struct fdm *f = fdm_new();
		struct pms_damon *d = NULL;
		struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
		struct pms_sys *sys = sys_on(f);
		f->live_pids[0] = 4321;
		f->fail_path = steps[s];
		f->fail_errno = ENOMEM;
		o.pids = pid1;
		o.npids = 1;
		int r = pms_damon_start(sys, NULL, &o, &d);
		CHECK_MSG(r < 0 && d == NULL, "step %s: %d", steps[s], r);
		CHECK_MSG(strstr(pms_error_last(), steps[s][0] == '/' ? steps[s] + 1 : steps[s]),
			  "step %s: %s", steps[s], pms_error_last());
		gone(f);
		only_ours(f);
		pms_sys_free(sys);
		fdm_free(f);
	}
	/* a pid DAMON cannot find: "on" is -EINVAL, cleaned up */
	struct fdm *f = fdm_new();
	struct pms_damon *d = NULL;
	struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
	struct pms_sys *sys = sys_on(f);
	o.pids = pid1;
	o.npids = 1;
	CHECK_EQ_INT(pms_damon_start(sys, NULL, &o, &d), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "target pid gone") != NULL);
	gone(f);
	pms_sys_free(sys);
	fdm_free(f);
}

/* Someone writes nr_kdamonds between our add and our configuration: kdamond
 * 0 may not be ours, so nothing more is written. */
PMS_TEST(concurrent_writer_means_hands_off)
{
	struct fdm *f = fdm_new();
	struct pms_damon *d = NULL;
	struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
	struct pms_sys *sys = sys_on(f);
	f->live_pids[0] = 4321;
	f->other_writer = true;
	o.pids = pid1;
	o.npids = 1;
	CHECK_EQ_INT(pms_damon_start(sys, NULL, &o, &d), PMS_EBUSY);
	CHECK(strstr(pms_error_last(), "another writer") != NULL);
	CHECK_EQ_INT(f->nwrites, 1);
	pms_sys_free(sys);
	fdm_free(f);
}

PMS_TEST(bad_limits_refused_before_writing)
{
	struct fdm *f = fdm_new();
	struct pms_damon *d = NULL;
	struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
	struct pms_sys *sys = sys_on(f);
	o.pids = pid1;
	o.npids = 1;
	o.min_regions = 2;
	CHECK_EQ_INT(pms_damon_start(sys, NULL, &o, &d), PMS_EINVAL);
	o.min_regions = 10;
	o.sample_us = 200000;
	CHECK_EQ_INT(pms_damon_start(sys, NULL, &o, &d), PMS_EINVAL);
	o.npids = 0;
	CHECK_EQ_INT(pms_damon_start(sys, NULL, &o, &d), PMS_EINVAL);
	CHECK_EQ_INT(f->nwrites, 0);
	pms_sys_free(sys);
	fdm_free(f);
}

/* ---- a whole run: hot 16 MiB on node 1, cold 256 MiB on node 0 ---------- */

#define HOT_S 0x7f0000000000ull
#define HOT_E (HOT_S + (16ull << 20))
#define COLD_S 0x7f1000000000ull
#define COLD_E (COLD_S + (256ull << 20))

/* DAMON's regions move: each round cuts the ranges differently. */
static void rounds(struct fdm *f, unsigned round, void *ud)
{
	(void)ud;
	size_t n = 0;
	uint64_t cut = HOT_S + ((uint64_t)(round % 3) + 1) * (4ull << 20);
	f->regions[0][n++] = (struct pms_damon_region){ HOT_S, cut, 19 + round % 2, round };
	f->regions[0][n++] = (struct pms_damon_region){ cut, HOT_E, 20, round };
	uint64_t c2 = COLD_S + ((uint64_t)(round % 4) + 1) * (32ull << 20);
	f->regions[0][n++] = (struct pms_damon_region){ COLD_S, c2, round == 0 ? 1 : 0, round };
	f->regions[0][n++] = (struct pms_damon_region){ c2, COLD_E, 0, round + 3 };
	f->nregions[0] = n;
}

static void run_setup(struct fdm *f)
{
	char maps[512];
	f->live_pids[0] = 4321;
	f->on_update = rounds;
	f->node_ranges[0].start = HOT_S;
	f->node_ranges[0].end = HOT_E;
	f->node_ranges[0].node = 1;
	f->node_ranges[1].start = COLD_S;
	f->node_ranges[1].end = COLD_E;
	f->node_ranges[1].node = 0;
	f->nnode_ranges = 2;
	snprintf(maps, sizeof(maps),
		 "%llx-%llx rw-p 00000000 00:00 0 \n"
		 "%llx-%llx rw-p 00000000 00:00 0 \n"
		 "%llx-%llx rw-p 00000000 00:00 0                          [heap]\n",
		 (unsigned long long)HOT_S, (unsigned long long)HOT_E,
		 (unsigned long long)COLD_S, (unsigned long long)COLD_E, 0x600000ull,
		 0x700000ull);
	fdm_put(f, "proc/4321/maps", maps);
	/* thread 4321 last ran on CPU 0 (node 0), 4322 on CPU 1 (node 1):
	 * field 39 of stat, after fields 4..38 */
	for (int t = 0; t < 2; t++) {
		char st[512], rel[64];
		int n = snprintf(st, sizeof(st), "%d (a b) S", 4321 + t);
		for (int k = 4; k <= 38; k++)
			n += snprintf(st + n, sizeof(st) - (size_t)n, " %d", k == 38 ? 17 : 0);
		snprintf(st + n, sizeof(st) - (size_t)n, " %d 0 0\n", t);
		snprintf(rel, sizeof(rel), "proc/4321/task/%d/stat", 4321 + t);
		fdm_put(f, rel, st);
	}
	fdm_put(f, "sys/devices/system/node/online", "0-1\n");
	fdm_put(f, "sys/devices/system/node/node0/cpulist", "0\n");
	fdm_put(f, "sys/devices/system/node/node1/cpulist", "1\n");
	fdm_put(f, "sys/devices/system/cpu/online", "0-1\n");
	fdm_put(f, "sys/devices/system/cpu/possible", "0-1\n");
	fdm_put(f, "sys/devices/system/cpu/cpu0/topology/physical_package_id", "0\n");
	fdm_put(f, "sys/devices/system/cpu/cpu1/topology/physical_package_id", "0\n");
	fdm_put(f, "sys/devices/system/node/node0/cpumap", "1\n");
	fdm_put(f, "sys/devices/system/node/node1/cpumap", "2\n");
}

PMS_TEST(run_reports_hot_and_cold_with_nodes_and_cleans_up)
{
	struct fdm *f = fdm_new();
	struct pms_damon *d = NULL;
	struct pms_damon_report *rep = NULL;
	struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
	struct pms_topo *topo = NULL;
	run_setup(f);
	struct pms_sys *sys = sys_on(f);
	CHECK_OK(pms_topo_load(sys, &topo));
	o.pids = pid1;
	o.npids = 1;
	o.sample_us = 5000;
	o.aggr_us = 100000;
	CHECK_OK(pms_damon_start(sys, topo, &o, &d));
	CHECK_EQ_STR(pms_damon_kdamond_dir(d), "sys/kernel/mm/damon/admin/kdamonds/0");
	char *v = fdm_get(f, K0 "contexts/0/operations");
	CHECK_EQ_STR(v, "vaddr\n");
	free(v);
	v = fdm_get(f, K0 "contexts/0/schemes/0/access_pattern/sz/max");
	CHECK_EQ_STR(v, "18446744073709551615\n");
	free(v);
	v = fdm_get(f, K0 "contexts/0/targets/0/pid_target");
	CHECK_EQ_STR(v, "4321\n");
	free(v);
	for (int i = 0; i < 5; i++)
		CHECK_EQ_INT(pms_damon_sample(d), 1);
	/* the last snapshot while the process exits: move_pages fails as a
	 * whole (ESRCH), which must not undo what earlier snapshots knew */
	f->move_pages_err = ESRCH;
	CHECK_EQ_INT(pms_damon_sample(d), 1);
	size_t ns = 0;
	const struct pms_damon_snapshot *sn = pms_damon_snapshots(d, &ns);
	CHECK_EQ_INT(ns, 6);
	CHECK_EQ_INT(sn[0].nregions, 4);
	CHECK_EQ_U64(sn[0].regions[0].start, HOT_S);
	CHECK_EQ_INT(sn[0].thread_nodes[0], 1);
	CHECK_EQ_INT(sn[0].thread_nodes[1], 1);
	CHECK_OK(pms_damon_report_build(d, NULL, &rep));
	CHECK(strstr(rep->label, "no IP, no data source, no latency") != NULL);
	CHECK_EQ_INT(rep->nsnapshots, 6);
	CHECK(rep->nranges >= 2);
	if (rep->nranges >= 2) {
		const struct pms_damon_range *h = &rep->ranges[0];
		CHECK_EQ_U64(h->start, HOT_S);
		CHECK_EQ_U64(h->end, HOT_E);
		CHECK(h->heat_class == PMS_DAMON_HOT);
		CHECK_MSG(h->share >= 0.9, "hot share %f", h->share);
		CHECK_EQ_INT(h->nodes.node, 1);
		CHECK_EQ_STR(h->object, "[anon]");
		const struct pms_damon_range *c = NULL;
		for (size_t i = 0; i < rep->nranges; i++)
			if (rep->ranges[i].start == COLD_S)
				c = &rep->ranges[i];
		CHECK(c != NULL);
		if (c) {
			CHECK_EQ_U64(c->end, COLD_E);
			CHECK(c->heat_class == PMS_DAMON_COLD);
			CHECK_EQ_INT(c->nodes.node, 0);
			CHECK(c->share < 0.05);
		}
	}
	CHECK_EQ_INT(rep->nobjects, 2);
	CHECK_EQ_INT(rep->nsteps, 6);
	if (rep->nsteps == 6) {
		CHECK_EQ_U64(rep->steps[4].hot_start >= HOT_S, 1);
		CHECK(rep->steps[4].hot_end <= HOT_E);
		CHECK(rep->steps[4].heat_on_node[1] > 0.99 * rep->steps[4].heat);
	}
	/* threads half on node 0, half on node 1; all heat on node 1 pages */
	CHECK_EQ_INT(rep->ncpu_nodes, 2);
	if (rep->ncpu_nodes == 2) {
		CHECK_EQ_INT(rep->cpu_nodes[0].node, 0);
		CHECK(rep->cpu_nodes[0].remote_share > 0.95); /* cold had 2 % in round 0 */
		CHECK(rep->cpu_nodes[1].remote_share < 0.05);
	}
	pms_damon_report_free(rep);
	CHECK_OK(pms_damon_stop(d));
	CHECK_EQ_INT(pms_damon_state(d), PMS_DAMON_REMOVED);
	CHECK_OK(pms_damon_stop(d)); /* idempotent */
	gone(f);
	only_ours(f);
	pms_damon_free(d);
	pms_topo_free(topo);
	pms_sys_free(sys);
	fdm_free(f);
}

/* The workload exits (or crashes): the kdamond stops by itself; sampling
 * says so, and stop still removes it ("off" -> -EPERM is expected). */
PMS_TEST(target_exit_then_cleanup)
{
	struct fdm *f = fdm_new();
	struct pms_damon *d = NULL;
	struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
	run_setup(f);
	struct pms_sys *sys = sys_on(f);
	o.pids = pid1;
	o.npids = 1;
	CHECK_OK(pms_damon_start(sys, NULL, &o, &d));
	CHECK_EQ_INT(pms_damon_sample(d), 1);
	fdm_targets_exit(f);
	CHECK_EQ_INT(pms_damon_sample(d), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "stopped") != NULL);
	CHECK_EQ_INT(pms_damon_state(d), PMS_DAMON_STOPPED);
	CHECK_OK(pms_damon_stop(d));
	gone(f);
	only_ours(f);
	pms_damon_free(d);
	pms_sys_free(sys);
	fdm_free(f);
}

/* free() without stop() (an error path in a caller) still removes it. */
PMS_TEST(free_removes)
{
	struct fdm *f = fdm_new();
	struct pms_damon *d = NULL;
	struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
	run_setup(f);
	struct pms_sys *sys = sys_on(f);
	o.pids = pid1;
	o.npids = 1;
	CHECK_OK(pms_damon_start(sys, NULL, &o, &d));
	pms_damon_free(d);
	gone(f);
	pms_sys_free(sys);
	fdm_free(f);
}

/* Two targets: one scheme each with a "target" filter (matching N) so each
 * scheme's tried_regions hold only its target's regions (core.c:1422). */
PMS_TEST(two_targets_are_told_apart)
{
	struct fdm *f = fdm_new();
	struct pms_damon *d = NULL;
	struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
	static const pid_t two[] = { 4321, 4400 };
	run_setup(f);
	f->live_pids[1] = 4400;
	f->on_update = NULL;
	f->regions[0][0] = (struct pms_damon_region){ 0x1000, 0x5000, 3, 1 };
	f->nregions[0] = 1;
	f->regions[1][0] = (struct pms_damon_region){ 0x9000, 0xa000, 7, 2 };
	f->regions[1][1] = (struct pms_damon_region){ 0xa000, 0xc000, 0, 2 };
	f->nregions[1] = 2;
	struct pms_sys *sys = sys_on(f);
	o.pids = two;
	o.npids = 2;
	CHECK_OK(pms_damon_start(sys, NULL, &o, &d));
	char *v = fdm_get(f, K0 "contexts/0/schemes/1/filters/0/type");
	CHECK_EQ_STR(v, "target\n");
	free(v);
	CHECK_EQ_INT(pms_damon_sample(d), 2);
	size_t ns = 0;
	const struct pms_damon_snapshot *sn = pms_damon_snapshots(d, &ns);
	CHECK_EQ_INT(ns, 2);
	if (ns == 2) {
		CHECK_EQ_INT(sn[0].target, 0);
		CHECK_EQ_INT(sn[0].nregions, 1);
		CHECK_EQ_INT(sn[1].target, 1);
		CHECK_EQ_INT(sn[1].nregions, 2);
		CHECK_EQ_U64(sn[1].regions[0].nr_accesses, 7);
	}
	pms_damon_free(d);
	gone(f);
	only_ours(f);
	pms_sys_free(sys);
	fdm_free(f);
}

/* ---- pms_damon_run: the whole run against the fake sysfs --------------- */

struct run_seen {
	struct pms_damon_run *run;
	struct fdm *f;
	int calls;
	int stop_at;   /* pms_damon_run_stop(SIGINT) at this call */
	int exit_at;   /* the targets exit at this call */
	size_t last_snapshots;
	bool grows;
};

static void run_progress(void *ud, const struct pms_damon_run_progress *p)
{
	struct run_seen *s = ud;
	s->calls++;
	if (p->snapshots < s->last_snapshots || p->seconds < 0)
		s->grows = false;
	s->last_snapshots = p->snapshots;
	if (s->calls == s->stop_at)
		pms_damon_run_stop(s->run, SIGINT);
	if (s->calls == s->exit_at)
		fdm_targets_exit(s->f);
}

static int run_once(struct fdm *f, struct pms_sys *sys, const struct pms_topo *topo,
		    double duration, struct run_seen *s, struct pms_damon_run **out)
{
	struct pms_damon_run_opts ro = PMS_DAMON_RUN_OPTS_INIT;
	struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
	o.pids = pid1;
	o.npids = 1;
	o.aggr_us = 20000; /* 5 ms between snapshots */
	ro.damon = &o;
	ro.duration_s = duration;
	ro.progress = run_progress;
	ro.ud = s;
	s->f = f;
	s->grows = true;
	CHECK_OK(pms_damon_run_new(sys, topo, &ro, out));
	s->run = *out;
	return *out ? pms_damon_run(*out) : -1;
}

/* The text report and CSV of a finished run (damon_text.h), as mem
 * --engine damon prints them: the hottest range first, one CSV row per
 * snapshot region. */
static void render_checks(const struct pms_damon_run_result *res)
{
	char *buf = NULL, want[96];
	size_t len = 0, rows = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	if (!f)
		return;
	pms_damon_render_text(f, res, 0, NULL);
	fclose(f);
	CHECK(strstr(buf, "DAMON memory-access profile: pid ") == buf);
	CHECK(strstr(buf, "  engine: damon (asked for with --engine damon)\n") != NULL);
	CHECK(strstr(buf, "  kdamond sys/kernel/mm/damon/admin/kdamonds/0: created by pmuscope, removed\n") != NULL);
	snprintf(want, sizeof(want), "\n  1    %" PRIx64 "-", (uint64_t)HOT_S);
	CHECK(strstr(buf, want) != NULL);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	if (!f)
		return;
	pms_damon_render_csv(f, res);
	fclose(f);
	CHECK(buf[0] == '#');
	CHECK(strstr(buf, "\nt_s,pid,start,end,bytes,nr_accesses,freq,age,object\n") != NULL);
	for (char *p = buf; (p = strchr(p, '\n')); p++)
		rows++;
	size_t n = 0, regions = 0;
	const struct pms_damon_snapshot *sn = pms_damon_snapshots(res->session, &n);
	for (size_t i = 0; i < n; i++)
		regions += sn[i].nregions;
	CHECK_EQ_U64(rows, regions + 2);
	free(buf);
}

PMS_TEST(run_until_duration_reports_and_cleans_up)
{
	struct fdm *f = fdm_new();
	struct pms_topo *topo = NULL;
	struct pms_damon_run *run = NULL;
	struct run_seen s = { 0 };
	run_setup(f);
	struct pms_sys *sys = sys_on(f);
	CHECK_OK(pms_topo_load(sys, &topo));
	CHECK_OK(run_once(f, sys, topo, 0.1, &s, &run));
	if (run) {
		const struct pms_damon_run_result *res = pms_damon_run_result(run);
		CHECK_EQ_STR(res->outcome, "--duration reached");
		CHECK_EQ_INT(res->exit_code, 0);
		CHECK_EQ_INT(res->stop_signal, 0);
		CHECK(!res->have_status);
		CHECK_EQ_INT(res->cleanup_rc, 0);
		CHECK_EQ_STR(res->kdamond_dir, "sys/kernel/mm/damon/admin/kdamonds/0");
		CHECK(s.calls >= 1 && s.grows);
		CHECK(res->report != NULL && res->session != NULL);
		if (res->report) {
			CHECK_EQ_INT(res->report->nsnapshots, s.last_snapshots);
			CHECK(res->report->nranges >= 1);
			CHECK_EQ_U64(res->report->ranges[0].start, HOT_S);
			render_checks(res);
		}
		CHECK_EQ_INT(pms_damon_state(res->session), PMS_DAMON_REMOVED);
	}
	gone(f);
	only_ours(f);
	pms_damon_run_free(run);
	pms_topo_free(topo);
	pms_sys_free(sys);
	fdm_free(f);
}

PMS_TEST(run_stop_and_targets_exit)
{
	struct fdm *f = fdm_new();
	struct pms_damon_run *run = NULL;
	struct run_seen s = { .stop_at = 3 };
	run_setup(f);
	struct pms_sys *sys = sys_on(f);
	CHECK_OK(run_once(f, sys, NULL, 0, &s, &run));
	if (run) {
		const struct pms_damon_run_result *res = pms_damon_run_result(run);
		CHECK_EQ_STR(res->outcome, "interrupted (SIGINT)");
		CHECK_EQ_INT(res->stop_signal, SIGINT);
		CHECK_EQ_INT(res->exit_code, 128 + SIGINT);
		CHECK_EQ_INT(s.calls, 3);
		CHECK(res->report && res->report->nsnapshots == 3);
	}
	pms_damon_run_free(run);
	gone(f);
	only_ours(f);
	pms_sys_free(sys);
	fdm_free(f);

	f = fdm_new();
	run_setup(f);
	sys = sys_on(f);
	run = NULL;
	s = (struct run_seen){ .exit_at = 2 };
	CHECK_OK(run_once(f, sys, NULL, 0, &s, &run));
	if (run) {
		const struct pms_damon_run_result *res = pms_damon_run_result(run);
		CHECK_EQ_STR(res->outcome, "the targets exited (kdamond stopped by itself)");
		CHECK_EQ_INT(res->exit_code, 0);
		CHECK_EQ_INT(res->cleanup_rc, 0);
		CHECK(!res->sample_failed);
	}
	pms_damon_run_free(run);
	gone(f);
	only_ours(f);
	pms_sys_free(sys);
	fdm_free(f);
}

PMS_TEST(run_refused_start_writes_nothing)
{
	struct fdm *f = fdm_new();
	struct pms_damon_run *run = NULL;
	struct run_seen s = { 0 };
	fdm_preexisting(f, true);
	f->live_pids[0] = 4321;
	char *before = fdm_digest(f);
	struct pms_sys *sys = sys_on(f);
	CHECK_EQ_INT(run_once(f, sys, NULL, 0, &s, &run), PMS_EBUSY);
	if (run) {
		const struct pms_damon_run_result *res = pms_damon_run_result(run);
		CHECK_EQ_INT(res->failed, PMS_DAMON_RUN_START);
		CHECK(res->session == NULL && res->report == NULL);
	}
	pms_damon_run_free(run);
	CHECK_EQ_INT(f->nwrites, 0);
	char *after = fdm_digest(f);
	CHECK(before && after && !strcmp(before, after));
	free(before);
	free(after);
	pms_sys_free(sys);
	fdm_free(f);
}

PMS_TEST(run_options_are_checked)
{
	struct fdm *f = fdm_new();
	struct pms_sys *sys = sys_on(f);
	struct pms_damon_run *run = NULL;
	struct pms_damon_run_opts ro = PMS_DAMON_RUN_OPTS_INIT;
	struct pms_damon_opts o = PMS_DAMON_OPTS_INIT;
	static char *argv[] = { "true", NULL };
	CHECK_EQ_INT(pms_damon_run_new(sys, NULL, NULL, &run), PMS_EINVAL); /* no target */
	o.pids = pid1;
	o.npids = 1;
	ro.damon = &o;
	ro.argv = argv;
	CHECK_EQ_INT(pms_damon_run_new(sys, NULL, &ro, &run), PMS_EINVAL); /* both */
	ro.argv = NULL;
	ro.version = 0;
	CHECK_EQ_INT(pms_damon_run_new(sys, NULL, &ro, &run), PMS_EINVAL);
	ro.version = PMS_DAMON_RUN_OPTS_VERSION + 1;
	CHECK_EQ_INT(pms_damon_run_new(sys, NULL, &ro, &run), PMS_EINVAL);
	CHECK(run == NULL);
	CHECK_EQ_INT(f->nwrites, 0);
	pms_damon_run_free(NULL);
	pms_sys_free(sys);
	fdm_free(f);
}

PMS_TEST(state_and_heat_names)
{
	CHECK_EQ_STR(pms_damon_state_name(PMS_DAMON_IDLE), "idle");
	CHECK_EQ_STR(pms_damon_state_name(PMS_DAMON_RUNNING), "running");
	CHECK_EQ_STR(pms_damon_state_name(PMS_DAMON_STOPPED), "stopped");
	CHECK_EQ_STR(pms_damon_state_name(PMS_DAMON_REMOVED), "removed");
	CHECK_EQ_STR(pms_damon_state_name((enum pms_damon_state)99), "?");
	CHECK_EQ_STR(pms_damon_heat_name(PMS_DAMON_COLD), "cold");
	CHECK_EQ_STR(pms_damon_heat_name(PMS_DAMON_WARM), "warm");
	CHECK_EQ_STR(pms_damon_heat_name(PMS_DAMON_HOT), "hot");
}

PMS_TEST_MAIN()
