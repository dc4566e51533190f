/* DAMON sysfs session: our own kdamond, one vaddr context, a "stat" scheme
 * per target whose tried_regions give the regions (include/pmuscope/damon.h).
 *
 * Kernel facts (Linux 6.12.95, mm/damon/):
 *  - sysfs.c:1712-1723  writing nr_kdamonds fails -EBUSY while any kdamond
 *    runs, else removes EVERY kdamond directory and makes N fresh ones: a
 *    kdamond can only be added without touching others when there are none.
 *  - sysfs.c:1776-1783  nr_kdamonds/state stores take damon_sysfs_lock with
 *    trylock: a concurrent writer gives a transient -EBUSY (retried here).
 *  - sysfs.c:1492-1519  "on" needs exactly one context (-EINVAL), -EBUSY when
 *    already running; core.c:1104 damon_start() -EBUSY while an exclusive
 *    DAMON user runs (DAMON_RECLAIM and DAMON_LRU_SORT: reclaim.c:248,
 *    lru_sort.c:240).
 *  - sysfs.c:1546-1592  commands other than on/off (update_schemes_tried_
 *    regions) need a running kdamond (-EINVAL) and the write returns after
 *    the kdamond handled it (or finished).
 *  - sysfs.c:1401-1418 + sysfs-schemes.c:2155-2196  tried_regions/N/{start,
 *    end,nr_accesses,age} are the regions a scheme was tried on in one
 *    aggregation; nr_accesses is nr_accesses_bp / 10000
 *    (sysfs-schemes.c:34).
 *  - core.c:1422-1425  scheme filters apply before the tried-region hook, so
 *    a "target" filter per scheme splits the regions by target.
 *  - sysfs-schemes.c:1374  access_pattern ranges default to 0..0: every max
 *    is written so the scheme is tried on every region.
 *  - core.c:1890-1905  the kdamond stops by itself once no target is valid
 *    (vaddr.c:612: the pid is gone); its directory stays, state "off".
 *  - sysfs.c:1527  "off" on a stopped kdamond fails (damon_stop -EPERM). */
#include "pmuscope/damon.h"
#include "pmuscope/numa.h"
#include "pmuscope/symbols.h"
#include "damon/damon_int.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/opts.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KDAMONDS PMS_DAMON_ADMIN "/kdamonds"

const char *pms_damon_state_name(enum pms_damon_state s)
{
	switch (s) {
	case PMS_DAMON_IDLE: return "idle";
	case PMS_DAMON_ADDED: return "added";
	case PMS_DAMON_CONFIGURED: return "configured";
	case PMS_DAMON_RUNNING: return "running";
	case PMS_DAMON_STOPPED: return "stopped";
	case PMS_DAMON_REMOVED: return "removed";
	}
	return "?";
}

const char *pms_damon_label(void)
{
	return "DAMON access-frequency regions (page-table Accessed bits sampled per "
	       "region): no IP, no data source, no latency; frequency = fraction of "
	       "samples a region was found accessed";
}

/* Prefix the last error's message (copied first: pms_err writes the buffer
 * pms_error_last() points into). */
static int rewrap(int code, const char *fmt, ...) PMS_PRINTF(2, 3);
static int rewrap(int code, const char *fmt, ...)
{
	char last[768], head[512];
	va_list ap;
	snprintf(last, sizeof(last), "%s", pms_error_last());
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	return pms_err(code, "%s: %s", head, last);
}

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* One write below our kdamond (or nr_kdamonds), retrying damon_sysfs_lock's
 * transient -EBUSY (sysfs.c:1776-1783).  The error message names the file. */
static int wr(struct pms_damon *d, const char *rel, const char *val)
{
	int r = 0;
	for (int i = 0; i < 10; i++) {
		r = pms_sys_write_file(d->sys, rel, val);
		if (r != PMS_EBUSY)
			break;
		nap_ms(20);
	}
	return r;
}

static int wrf(struct pms_damon *d, const char *val, const char *fmt, ...)
	PMS_PRINTF(3, 4);
static int wrf(struct pms_damon *d, const char *val, const char *fmt, ...)
{
	char rel[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	return wr(d, rel, val);
}

static int rdu(struct pms_damon *d, uint64_t *v, const char *fmt, ...) PMS_PRINTF(3, 4);
static int rdu(struct pms_damon *d, uint64_t *v, const char *fmt, ...)
{
	char rel[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	return pms_sys_read_u64(d->sys, rel, v);
}

static bool state_on(struct pms_sys *sys, const char *kdir)
{
	char rel[512], *s = NULL;
	bool on = false;
	snprintf(rel, sizeof(rel), "%s/state", kdir);
	if (pms_sys_read_line(sys, rel, &s) == 0)
		on = !strcmp(s, "on");
	free(s);
	return on;
}

int pms_damon_probe(struct pms_sys *sys, struct pms_damon_probe *out)
{
	uint64_t nr = 0;
	if (!sys || !out)
		return pms_err(PMS_EINVAL, "pms_damon_probe: NULL argument");
	memset(out, 0, sizeof(*out));
	out->nr_kdamonds = -1;
	if (!pms_sys_exists(sys, KDAMONDS "/nr_kdamonds")) {
		snprintf(out->reason, sizeof(out->reason),
			 "no DAMON sysfs at %s/" PMS_DAMON_ADMIN
			 " (kernel without CONFIG_DAMON_SYSFS, or sysfs not mounted)",
			 strcmp(pms_sys_root(sys), "/") ? pms_sys_root(sys) : "");
		return 0;
	}
	if (pms_sys_read_u64(sys, KDAMONDS "/nr_kdamonds", &nr) < 0) {
		snprintf(out->reason, sizeof(out->reason), "cannot read " KDAMONDS
			 "/nr_kdamonds (DAMON needs root): %s", pms_error_last());
		return 0;
	}
	out->nr_kdamonds = (int)(nr > 1000000 ? 1000000 : nr);
	for (uint64_t i = 0; i < nr && i < 4096; i++) {
		char kdir[256];
		snprintf(kdir, sizeof(kdir), KDAMONDS "/%" PRIu64, i);
		if (state_on(sys, kdir))
			out->running++;
	}
	if (nr) {
		snprintf(out->reason, sizeof(out->reason),
			 "DAMON is in use: %d kdamond(s) exist (%d running) that pmuscope did "
			 "not create; adding one would rebuild them (mm/damon/sysfs.c "
			 "nr_kdamonds), so DAMON is left alone",
			 out->nr_kdamonds, out->running);
		return 0;
	}
	out->usable = true;
	snprintf(out->reason, sizeof(out->reason),
		 "DAMON sysfs present with no kdamond: pmuscope can add its own");
	return 0;
}

const char *pms_damon_kdamond_dir(const struct pms_damon *d)
{
	return d->state >= PMS_DAMON_ADDED && d->state < PMS_DAMON_REMOVED ? d->kdir : "";
}

enum pms_damon_state pms_damon_state(const struct pms_damon *d)
{
	return d->state;
}

void pms_damon_effective(const struct pms_damon *d, struct pms_damon_opts *out)
{
	*out = d->opts;
	out->pids = NULL;
}

const struct pms_damon_snapshot *pms_damon_snapshots(const struct pms_damon *d,
						     size_t *count)
{
	*count = d->nsnaps;
	return d->snaps;
}

static int configure(struct pms_damon *d)
{
	char v[32], C[400];
	const struct pms_damon_opts *o = &d->opts;
	int r;

	snprintf(C, sizeof(C), "%s/contexts/0", d->kdir);
	if ((r = wrf(d, "1", "%s/contexts/nr_contexts", d->kdir)) < 0)
		return r;
	if ((r = wrf(d, "vaddr", "%s/operations", C)) < 0)
		return r == PMS_EINVAL ? rewrap(PMS_ENOTSUP, "this kernel's DAMON has no "
						"virtual-address operations")
				       : r;
#define W(val, ...) \
	do { if ((r = wrf(d, val, __VA_ARGS__)) < 0) return r; } while (0)
	snprintf(v, sizeof(v), "%" PRIu64, o->sample_us);
	W(v, "%s/monitoring_attrs/intervals/sample_us", C);
	snprintf(v, sizeof(v), "%" PRIu64, o->aggr_us);
	W(v, "%s/monitoring_attrs/intervals/aggr_us", C);
	snprintf(v, sizeof(v), "%" PRIu64, o->update_us);
	W(v, "%s/monitoring_attrs/intervals/update_us", C);
	snprintf(v, sizeof(v), "%" PRIu64, o->min_regions);
	W(v, "%s/monitoring_attrs/nr_regions/min", C);
	snprintf(v, sizeof(v), "%" PRIu64, o->max_regions);
	W(v, "%s/monitoring_attrs/nr_regions/max", C);
	snprintf(v, sizeof(v), "%zu", d->npids);
	W(v, "%s/targets/nr_targets", C);
	for (size_t i = 0; i < d->npids; i++) {
		snprintf(v, sizeof(v), "%d", (int)d->pids[i]);
		W(v, "%s/targets/%zu/pid_target", C, i);
	}
	snprintf(v, sizeof(v), "%zu", d->npids);
	W(v, "%s/schemes/nr_schemes", C);
	for (size_t i = 0; i < d->npids; i++) {
		W("stat", "%s/schemes/%zu/action", C, i);
		W("0", "%s/schemes/%zu/access_pattern/sz/min", C, i);
		W("18446744073709551615", "%s/schemes/%zu/access_pattern/sz/max", C, i);
		W("0", "%s/schemes/%zu/access_pattern/nr_accesses/min", C, i);
		W("4294967295", "%s/schemes/%zu/access_pattern/nr_accesses/max", C, i);
		W("0", "%s/schemes/%zu/access_pattern/age/min", C, i);
		W("4294967295", "%s/schemes/%zu/access_pattern/age/max", C, i);
		if (d->npids > 1) {
			W("1", "%s/schemes/%zu/filters/nr_filters", C, i);
			W("target", "%s/schemes/%zu/filters/0/type", C, i);
			snprintf(v, sizeof(v), "%zu", i);
			W(v, "%s/schemes/%zu/filters/0/damon_target_idx", C, i);
			/* matching N: regions of every other target are filtered out */
			W("N", "%s/schemes/%zu/filters/0/matching", C, i);
		}
	}
#undef W
	return 0;
}

static void defaults(struct pms_damon_opts *o)
{
	if (!o->sample_us)
		o->sample_us = 5000;
	if (!o->aggr_us)
		o->aggr_us = 100000;
	if (!o->update_us)
		o->update_us = 1000000;
	if (!o->min_regions)
		o->min_regions = 10;
	if (!o->max_regions)
		o->max_regions = 1000;
	if (!o->pages_per_region)
		o->pages_per_region = 4;
}

PMS_OPTS_LAYOUT(PMS_DAMON_OPTS, struct pms_damon_opts,
		PMS_OPTS_END(struct pms_damon_opts, pages_per_region));

int pms_damon_start(struct pms_sys *sys, const struct pms_topo *topo,
		    const struct pms_damon_opts *opts, struct pms_damon **out)
{
	struct pms_damon_opts o;
	struct pms_damon *d = NULL;
	struct pms_damon_probe pr;
	uint64_t nr = 0;
	int ret = 0;

	if (!sys || !out)
		return pms_err(PMS_EINVAL, "pms_damon_start: NULL argument");
	*out = NULL;
	if ((ret = PMS_OPTS_TAKE("pms_damon_start", PMS_DAMON_OPTS, opts, &o)) < 0)
		return ret;
	opts = &o; /* NULL: no pids, refused below */
	if (!opts->npids || opts->npids > PMS_DAMON_MAX_TARGETS || !opts->pids)
		return pms_err(PMS_EINVAL, "DAMON: want 1 to %d target pids, got %zu",
			       PMS_DAMON_MAX_TARGETS, opts->npids);
	d = calloc(1, sizeof(*d));
	if (!d)
		return pms_err(PMS_ENOMEM, "DAMON session: out of memory");
	d->sys = sys;
	d->topo = topo;
	d->opts = *opts;
	d->opts.pids = NULL;
	defaults(&d->opts);
	d->npids = opts->npids;
	for (size_t i = 0; i < d->npids; i++) {
		if (opts->pids[i] <= 0) {
			ret = pms_err(PMS_EINVAL, "DAMON: target pid %d is not a process id",
				      (int)opts->pids[i]);
			goto out;
		}
		d->pids[i] = opts->pids[i];
	}
	/* damon_set_attrs() wants min >= 3, max >= min, aggr >= sample
	 * (core.c); say it here rather than as an -EINVAL at "on". */
	if (d->opts.min_regions < 3 || d->opts.max_regions < d->opts.min_regions ||
	    d->opts.aggr_us < d->opts.sample_us || d->opts.update_us < d->opts.aggr_us) {
		ret = pms_err(PMS_EINVAL,
			      "DAMON: want min regions >= 3, max >= min, and sample <= "
			      "aggregation <= update interval (got %" PRIu64 "/%" PRIu64
			      " regions, %" PRIu64 "/%" PRIu64 "/%" PRIu64 " us)",
			      d->opts.min_regions, d->opts.max_regions, d->opts.sample_us,
			      d->opts.aggr_us, d->opts.update_us);
		goto out;
	}
	snprintf(d->kdir, sizeof(d->kdir), KDAMONDS "/0");

	/* Only reads until we know nothing else is there. */
	if ((ret = pms_damon_probe(sys, &pr)) < 0)
		goto out;
	if (!pr.usable) {
		ret = pms_err(pr.nr_kdamonds > 0 ? PMS_EBUSY
			      : pr.nr_kdamonds < 0 && pms_sys_exists(sys, KDAMONDS "/nr_kdamonds")
				      ? PMS_EPERM
				      : PMS_ENOTSUP,
			      "%s; nothing was written", pr.reason);
		goto out;
	}
	if ((ret = wr(d, KDAMONDS "/nr_kdamonds", "1")) < 0) {
		/* The write failed: the kernel made nothing we own, and
		 * writing nr_kdamonds again could touch someone else's. */
		int e = pms_error_errno();
		ret = rewrap(e == EBUSY ? PMS_EBUSY : e == EACCES || e == EPERM ? PMS_EPERM : ret,
			     "DAMON refused to add a kdamond%s",
			     e == EACCES || e == EPERM ? " (DAMON needs root)" : "");
		goto out;
	}
	d->state = PMS_DAMON_ADDED;
	if (pms_sys_read_u64(sys, KDAMONDS "/nr_kdamonds", &nr) < 0 || nr != 1 ||
	    !pms_sys_exists(sys, KDAMONDS "/0/state")) {
		/* Someone else wrote nr_kdamonds in between: kdamond 0 may
		 * not be ours any more, so we forget it rather than touch it. */
		d->state = PMS_DAMON_REMOVED;
		ret = pms_err(PMS_EBUSY, "DAMON: another writer changed " KDAMONDS
			      "/nr_kdamonds while pmuscope added its kdamond (now %" PRIu64
			      "); pmuscope leaves DAMON alone", nr);
		goto out;
	}
	if ((ret = configure(d)) < 0) {
		ret = rewrap(ret, "DAMON: configuring kdamond %s", d->kdir);
		goto out;
	}
	d->state = PMS_DAMON_CONFIGURED;
	if ((ret = wrf(d, "on", "%s/state", d->kdir)) < 0) {
		int e = pms_error_errno();
		if (e == EBUSY)
			ret = rewrap(PMS_EBUSY, "DAMON is busy: turning kdamond %s on was refused "
				     "(another DAMON user runs exclusively, mm/damon/core.c "
				     "damon_start)", d->kdir);
		else
			ret = rewrap(ret, "DAMON: turning kdamond %s on failed (target pid "
				     "gone, or the intervals/region limits refused)", d->kdir);
		goto out;
	}
	d->state = PMS_DAMON_RUNNING;
	d->t0 = now_us();
	for (size_t i = 0; i < d->npids; i++) {
		struct pms_numa_opts no = PMS_NUMA_OPTS_INIT;
		no.pid = d->pids[i];
		if (topo && pms_numa_oracle_new(sys, topo, &no, &d->oracle[i]) < 0)
			d->oracle[i] = NULL; /* nodes unknown; the report says so */
		if (pms_maps_new(&d->maps[i]) < 0) {
			ret = PMS_ENOMEM;
			goto out;
		}
	}
	*out = d;
	d = NULL;
out:
	if (d) {
		char keep[512];
		snprintf(keep, sizeof(keep), "%s", pms_error_last());
		pms_damon_free(d);
		pms_err(ret, "%s", keep);
	}
	return ret;
}

int pms_damon_stop(struct pms_damon *d)
{
	char rel[512];
	uint64_t nr = 0;
	int first = 0, r;

	if (!d || d->state == PMS_DAMON_IDLE || d->state == PMS_DAMON_REMOVED)
		return 0;
	if (d->state == PMS_DAMON_RUNNING || d->state == PMS_DAMON_STOPPED) {
		snprintf(rel, sizeof(rel), "%s/state", d->kdir);
		r = wr(d, rel, "off");
		/* already off by itself: damon_stop() says -EPERM */
		if (r < 0 && state_on(d->sys, d->kdir))
			first = r;
		d->state = PMS_DAMON_STOPPED;
	}
	/* Remove it only while ours is the only kdamond: writing nr_kdamonds
	 * rebuilds all of them (sysfs.c:1712-1723). */
	r = pms_sys_read_u64(d->sys, KDAMONDS "/nr_kdamonds", &nr);
	if (r == 0 && nr == 1) {
		for (int i = 0; i < 50; i++) {
			r = wr(d, KDAMONDS "/nr_kdamonds", "0");
			if (r != PMS_EBUSY)
				break;
			nap_ms(20); /* a pending command or the kdamond still exiting */
		}
		if (r < 0 && !first)
			first = rewrap(r, "DAMON: removing kdamond %s failed (remove it with "
				       "'echo off > /%s/state; echo 0 > /" KDAMONDS
				       "/nr_kdamonds')", d->kdir, d->kdir);
		if (r == 0)
			d->state = PMS_DAMON_REMOVED;
	} else if (r == 0 && !first) {
		first = pms_err(PMS_EBUSY, "DAMON: %" PRIu64 " kdamonds exist now, so kdamond "
				"%s is left in place (removing it would rebuild the others)",
				nr, d->kdir);
	} else if (r < 0 && !first) {
		first = r;
	}
	if (first == 0)
		d->state = PMS_DAMON_REMOVED;
	return first;
}

void pms_damon_free(struct pms_damon *d)
{
	if (!d)
		return;
	(void)pms_damon_stop(d);
	for (size_t i = 0; i < d->nsnaps; i++)
		free(d->snaps[i].regions);
	free(d->snaps);
	free(d->pages);
	for (size_t i = 0; i < PMS_DAMON_MAX_TARGETS; i++) {
		pms_numa_oracle_free(d->oracle[i]);
		pms_maps_free(d->maps[i]);
	}
	free(d);
}

static int cmp_region(const void *a, const void *b)
{
	const struct pms_damon_region *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* schemes/<target>/tried_regions/N/{start,end,nr_accesses,age} */
static int read_regions(struct pms_damon *d, unsigned t, struct pms_damon_region **out,
			size_t *nout)
{
	char dir[512], **names = NULL;
	size_t n = 0, k = 0;
	struct pms_damon_region *v = NULL;
	int ret;

	*out = NULL;
	*nout = 0;
	snprintf(dir, sizeof(dir), "%s/contexts/0/schemes/%u/tried_regions", d->kdir, t);
	if ((ret = pms_sys_list_dir(d->sys, dir, &names, &n)) < 0)
		return ret;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		ret = pms_err(PMS_ENOMEM, "DAMON: out of memory reading %zu regions", n);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t s, e, a, g;
		if (names[i][0] < '0' || names[i][0] > '9')
			continue; /* total_bytes */
		if ((ret = rdu(d, &s, "%s/%s/start", dir, names[i])) < 0 ||
		    (ret = rdu(d, &e, "%s/%s/end", dir, names[i])) < 0 ||
		    (ret = rdu(d, &a, "%s/%s/nr_accesses", dir, names[i])) < 0 ||
		    (ret = rdu(d, &g, "%s/%s/age", dir, names[i])) < 0)
			goto out;
		if (e <= s)
			continue;
		v[k].start = s;
		v[k].end = e;
		v[k].nr_accesses = a > UINT32_MAX ? UINT32_MAX : (uint32_t)a;
		v[k].age = g > UINT32_MAX ? UINT32_MAX : (uint32_t)g;
		k++;
	}
	qsort(v, k, sizeof(*v), cmp_region);
	*out = v;
	*nout = k;
	v = NULL;
	ret = 0;
out:
	free(v);
	pms_sys_names_free(names, n);
	return ret;
}

/* The node of each thread's last CPU: field 39 of /proc/PID/task/TID/stat. */
static void thread_nodes(struct pms_damon *d, pid_t pid, uint16_t *hist)
{
	char dir[64], **names = NULL;
	size_t n = 0;
	if (!d->topo)
		return;
	snprintf(dir, sizeof(dir), "proc/%d/task", (int)pid);
	if (pms_sys_list_dir(d->sys, dir, &names, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		char rel[128], *s = NULL;
		snprintf(rel, sizeof(rel), "%s/%s/stat", dir, names[i]);
		if (pms_sys_read_line(d->sys, rel, &s) < 0)
			continue;
		char *p = strrchr(s, ')');
		int field = 2, cpu = -1;
		for (; p && *p; p++) {
			if (*p != ' ')
				continue;
			field++;
			if (field == 39) {
				cpu = atoi(p + 1);
				break;
			}
		}
		free(s);
		int node = cpu >= 0 ? pms_topo_node_of_cpu(d->topo, cpu) : -1;
		if (node >= 0 && node < PMS_DAMON_MAX_NODES && hist[node] < UINT16_MAX)
			hist[node]++;
	}
	pms_sys_names_free(names, n);
}

/* A few pages per region, evenly spread, asked for their node in one batch. */
static int sample_nodes(struct pms_damon *d, unsigned t, const struct pms_damon_region *r,
			size_t n)
{
	size_t ppr = d->opts.pages_per_region, want = n * ppr, k = 0;
	uint64_t *addrs;
	int *nodes, ret = 0;

	if (!d->oracle[t] || !want)
		return 0;
	addrs = calloc(want, sizeof(*addrs));
	nodes = calloc(want, sizeof(*nodes));
	if (!addrs || !nodes) {
		ret = pms_err(PMS_ENOMEM, "DAMON: out of memory sampling pages");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t pages = (r[i].end - r[i].start) / 4096u;
		uint64_t take = pages < ppr ? pages : ppr;
		for (uint64_t j = 0; j < take; j++)
			addrs[k++] = (r[i].start + (r[i].end - r[i].start) / take * j +
				      (r[i].end - r[i].start) / take / 2) & ~(uint64_t)4095;
	}
	/* pages move (NUMA balancing, migration): ask afresh each time */
	pms_numa_oracle_invalidate(d->oracle[t], 0, 0);
	(void)pms_numa_oracle_resolve(d->oracle[t], addrs, k, nodes);
	if ((ret = pms_grow(&d->pages, &d->pages_cap, d->npages + k, sizeof(*d->pages), 1024,
			    "DAMON page samples")) < 0)
		goto out;
	for (size_t i = 0; i < k; i++) {
		struct pms_damon_page *p = &d->pages[d->npages++];
		p->addr = addrs[i];
		p->target = t;
		/* -ENOENT (not present) and -EFAULT (not mapped) are the
		 * page's status; anything else (a failed call: the process is
		 * exiting) says nothing about it */
		p->node = nodes[i] >= 0 ? nodes[i]
			  : nodes[i] == -ENOENT || nodes[i] == -EFAULT ? -2 : -1;
		p->snap = d->nsnaps;
	}
out:
	free(addrs);
	free(nodes);
	return ret;
}

int pms_damon_sample(struct pms_damon *d)
{
	char rel[512];
	int ret, added = 0;

	if (!d)
		return pms_err(PMS_EINVAL, "pms_damon_sample: NULL session");
	if (d->state == PMS_DAMON_STOPPED)
		return pms_err(PMS_ENOENT, "DAMON: kdamond %s has stopped (its targets exited)",
			       d->kdir);
	if (d->state != PMS_DAMON_RUNNING)
		return pms_err(PMS_EINVAL, "DAMON: session is %s, not running",
			       pms_damon_state_name(d->state));
	if (!state_on(d->sys, d->kdir)) {
		d->state = PMS_DAMON_STOPPED;
		return pms_err(PMS_ENOENT, "DAMON: kdamond %s has stopped (its targets exited)",
			       d->kdir);
	}
	snprintf(rel, sizeof(rel), "%s/state", d->kdir);
	if ((ret = wr(d, rel, "update_schemes_tried_regions")) < 0) {
		if (!state_on(d->sys, d->kdir)) {
			d->state = PMS_DAMON_STOPPED;
			return pms_err(PMS_ENOENT, "DAMON: kdamond %s has stopped (its targets "
				       "exited)", d->kdir);
		}
		return ret;
	}
	uint64_t t = now_us() - d->t0;
	for (unsigned i = 0; i < d->npids; i++) {
		struct pms_damon_snapshot s;
		memset(&s, 0, sizeof(s));
		s.t_us = t;
		s.target = i;
		if ((ret = read_regions(d, i, &s.regions, &s.nregions)) < 0)
			return ret;
		if (!s.nregions) {
			free(s.regions);
			continue; /* nothing tried this round (target exiting) */
		}
		(void)pms_maps_read_proc(d->maps[i], d->sys, d->pids[i]);
		thread_nodes(d, d->pids[i], s.thread_nodes);
		if ((ret = sample_nodes(d, i, s.regions, s.nregions)) < 0 ||
		    (ret = pms_grow(&d->snaps, &d->snaps_cap, d->nsnaps + 1, sizeof(*d->snaps),
				    64, "DAMON snapshots")) < 0) {
			free(s.regions);
			return ret;
		}
		d->snaps[d->nsnaps++] = s;
		added++;
	}
	return added;
}

const char *pms_damon_object_name(const struct pms_damon *d, unsigned target, uint64_t addr)
{
	if (!d || target >= d->npids || !d->maps[target])
		return "[unmapped]";
	const struct pms_map *m = pms_maps_find(d->maps[target], addr);
	if (!m)
		return "[unmapped]";
	return m->path && m->path[0] ? m->path : "[anon]";
}

pid_t pms_damon_pid(const struct pms_damon *d, unsigned t)
{
	return d && t < d->npids ? d->pids[t] : 0;
}
