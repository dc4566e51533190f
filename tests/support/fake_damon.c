/* Fake DAMON sysfs; see fake_damon.h.  Rules cite Linux 6.12.95 mm/damon/. */
#include "fake_damon.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ADMIN "sys/kernel/mm/damon/admin/"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

static void path_of(struct fdm *f, const char *rel, char *out, size_t n)
{
	snprintf(out, n, "%s/%s", f->root, rel);
}

static void mkdirs(const char *path)
{
	char d[1024];
	snprintf(d, sizeof(d), "%s", path);
	for (char *p = d + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(d, 0755);
			*p = '/';
		}
	mkdir(d, 0755);
}

void fdm_put(struct fdm *f, const char *rel, const char *text)
{
	char p[1024], dir[1024];
	path_of(f, rel, p, sizeof(p));
	snprintf(dir, sizeof(dir), "%s", p);
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		mkdirs(dir);
	}
	FILE *fp = fopen(p, "w");
	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
}

char *fdm_get(struct fdm *f, const char *rel)
{
	char p[1024];
	path_of(f, rel, p, sizeof(p));
	FILE *fp = fopen(p, "r");
	if (!fp)
		return NULL;
	char *buf = calloc(1, 65536);
	size_t n = buf ? fread(buf, 1, 65535, fp) : 0;
	(void)n;
	fclose(fp);
	return buf;
}

static long get_long(struct fdm *f, const char *rel, long dflt)
{
	char *s = fdm_get(f, rel);
	long v = s ? strtol(s, NULL, 0) : dflt;
	free(s);
	return v;
}

static bool get_is(struct fdm *f, const char *rel, const char *want)
{
	char *s = fdm_get(f, rel);
	bool r = false;
	if (s) {
		size_t n = strlen(s);
		while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
			s[--n] = '\0';
		r = !strcmp(s, want);
	}
	free(s);
	return r;
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void rmrf(const char *path)
{
	nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* Remove the numbered subdirectories of dir (rel), then make 0..n-1 with
 * make(). */
static void renumber(struct fdm *f, const char *dir, long n,
		     void (*make)(struct fdm *f, const char *sub))
{
	char p[1024];
	path_of(f, dir, p, sizeof(p));
	DIR *d = opendir(p);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] < '0' || de->d_name[0] > '9')
				continue;
			char q[1300];
			snprintf(q, sizeof(q), "%s/%s", p, de->d_name);
			rmrf(q);
		}
		closedir(d);
	}
	for (long i = 0; i < n; i++) {
		char sub[1024];
		snprintf(sub, sizeof(sub), "%s/%ld", dir, i);
		make(f, sub);
	}
}

static void put2(struct fdm *f, const char *dir, const char *name, const char *v)
{
	char rel[1024];
	snprintf(rel, sizeof(rel), "%s/%s", dir, name);
	fdm_put(f, rel, v);
}

/* sysfs.c:1731-1750 damon_sysfs_kdamond_alloc + add_dirs: state, pid,
 * contexts/nr_contexts */
static void make_kdamond(struct fdm *f, const char *d)
{
	put2(f, d, "state", "off\n");
	put2(f, d, "pid", "-1\n");
	put2(f, d, "contexts/nr_contexts", "0\n");
}

/* sysfs.c:576 nr_regions default 10..1000; intervals 5000/100000/1000000 */
static void make_context(struct fdm *f, const char *d)
{
	put2(f, d, "avail_operations", "vaddr\nfvaddr\npaddr\n");
	put2(f, d, "operations", "vaddr\n");
	put2(f, d, "monitoring_attrs/intervals/sample_us", "5000\n");
	put2(f, d, "monitoring_attrs/intervals/aggr_us", "100000\n");
	put2(f, d, "monitoring_attrs/intervals/update_us", "1000000\n");
	put2(f, d, "monitoring_attrs/nr_regions/min", "10\n");
	put2(f, d, "monitoring_attrs/nr_regions/max", "1000\n");
	put2(f, d, "targets/nr_targets", "0\n");
	put2(f, d, "schemes/nr_schemes", "0\n");
}

static void make_target(struct fdm *f, const char *d)
{
	put2(f, d, "pid_target", "0\n");
	put2(f, d, "regions/nr_regions", "0\n");
}

/* sysfs-schemes.c:1374 access_pattern ranges start as 0..0 */
static void make_scheme(struct fdm *f, const char *d)
{
	put2(f, d, "action", "stat\n");
	put2(f, d, "apply_interval_us", "0\n");
	static const char *const r[] = { "sz", "nr_accesses", "age" };
	for (int i = 0; i < 3; i++) {
		char n[64];
		snprintf(n, sizeof(n), "access_pattern/%s/min", r[i]);
		put2(f, d, n, "0\n");
		snprintf(n, sizeof(n), "access_pattern/%s/max", r[i]);
		put2(f, d, n, "0\n");
	}
	put2(f, d, "filters/nr_filters", "0\n");
	put2(f, d, "tried_regions/total_bytes", "0\n");
}

static void make_filter(struct fdm *f, const char *d)
{
	put2(f, d, "type", "anon\n");
	put2(f, d, "matching", "N\n");
	put2(f, d, "damon_target_idx", "0\n");
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

static long nr_kdamonds(struct fdm *f)
{
	return get_long(f, ADMIN "kdamonds/nr_kdamonds", 0);
}

static bool any_running(struct fdm *f)
{
	for (long i = 0; i < nr_kdamonds(f); i++) {
		char rel[256];
		snprintf(rel, sizeof(rel), ADMIN "kdamonds/%ld/state", i);
		if (get_is(f, rel, "on"))
			return true;
	}
	return false;
}

static bool pid_alive(struct fdm *f, long pid)
{
	for (int i = 0; i < 8 && f->live_pids[i]; i++)
		if (f->live_pids[i] == pid)
			return true;
	return false;
}

/* sysfs-schemes.c:2155-2196: each scheme's tried_regions get the regions it
 * was tried on (after filters, core.c:1422), numbered by one counter. */
static void fill_tried(struct fdm *f, const char *kd)
{
	char ctx[512];
	snprintf(ctx, sizeof(ctx), "%s/contexts/0", kd);
	long nsch = 0, ntgt = 0, idx = 0;
	char rel[1024];
	snprintf(rel, sizeof(rel), "%s/schemes/nr_schemes", ctx);
	nsch = get_long(f, rel, 0);
	snprintf(rel, sizeof(rel), "%s/targets/nr_targets", ctx);
	ntgt = get_long(f, rel, 0);
	if (f->on_update)
		f->on_update(f, f->updates, f->ud);
	f->updates++;
	for (long s = 0; s < nsch; s++) {
		char tr[600];
		snprintf(tr, sizeof(tr), "%s/schemes/%ld/tried_regions", ctx, s);
		renumber(f, tr, 0, NULL);
		long only = -1;
		snprintf(rel, sizeof(rel), "%s/schemes/%ld/filters/nr_filters", ctx, s);
		if (get_long(f, rel, 0) >= 1) {
			snprintf(rel, sizeof(rel), "%s/schemes/%ld/filters/0/type", ctx, s);
			bool tgt = get_is(f, rel, "target");
			snprintf(rel, sizeof(rel), "%s/schemes/%ld/filters/0/matching", ctx, s);
			bool matching_n = get_is(f, rel, "N");
			snprintf(rel, sizeof(rel), "%s/schemes/%ld/filters/0/damon_target_idx", ctx, s);
			if (tgt && matching_n)
				only = get_long(f, rel, 0);
		}
		uint64_t total = 0;
		for (long t = 0; t < ntgt && t < PMS_DAMON_MAX_TARGETS; t++) {
			if (only >= 0 && t != only)
				continue;
			for (size_t i = 0; i < f->nregions[t]; i++) {
				const struct pms_damon_region *r = &f->regions[t][i];
				char d[700], v[32];
				snprintf(d, sizeof(d), "%s/%ld", tr, idx++);
				snprintf(v, sizeof(v), "%" PRIu64 "\n", r->start);
				put2(f, d, "start", v);
				snprintf(v, sizeof(v), "%" PRIu64 "\n", r->end);
				put2(f, d, "end", v);
				snprintf(v, sizeof(v), "%u\n", r->nr_accesses);
				put2(f, d, "nr_accesses", v);
				snprintf(v, sizeof(v), "%u\n", r->age);
				put2(f, d, "age", v);
				total += r->end - r->start;
			}
		}
		char v[32];
		snprintf(v, sizeof(v), "%" PRIu64 "\n", total);
		put2(f, tr, "total_bytes", v);
	}
}

static int state_cmd(struct fdm *f, const char *kd, const char *cmd)
{
	char rel[600];
	snprintf(rel, sizeof(rel), "%s/state", kd);
	bool running = get_is(f, rel, "on");
	snprintf(rel, sizeof(rel), "%s/pid", kd);
	bool ever = !get_is(f, rel, "-1");
	if (!strcmp(cmd, "on")) {
		/* sysfs.c:1498-1503 */
		if (running)
			return -EBUSY;
		snprintf(rel, sizeof(rel), "%s/contexts/nr_contexts", kd);
		if (get_long(f, rel, 0) != 1)
			return -EINVAL;
		if (f->exclusive_busy)
			return -EBUSY; /* core.c:1104-1107 */
		snprintf(rel, sizeof(rel), "%s/contexts/0/targets/nr_targets", kd);
		long nt = get_long(f, rel, 0);
		for (long t = 0; t < nt; t++) {
			snprintf(rel, sizeof(rel), "%s/contexts/0/targets/%ld/pid_target", kd, t);
			if (!pid_alive(f, get_long(f, rel, 0)))
				return -EINVAL; /* find_get_pid() failed */
		}
		put2(f, kd, "state", "on\n");
		put2(f, kd, "pid", "4242\n");
		return 0;
	}
	if (!strcmp(cmd, "off")) {
		/* sysfs.c:1524 no ctx -> -EINVAL; damon_stop() of a stopped
		 * kdamond -> -EPERM */
		if (!running)
			return ever ? -EPERM : -EINVAL;
		put2(f, kd, "state", "off\n");
		return 0;
	}
	if (!strcmp(cmd, "update_schemes_tried_regions")) {
		if (!running)
			return -EINVAL; /* sysfs.c:1567 */
		fill_tried(f, kd);
		return 0;
	}
	if (!strcmp(cmd, "commit") || !strcmp(cmd, "update_schemes_stats") ||
	    !strcmp(cmd, "clear_schemes_tried_regions"))
		return running ? 0 : -EINVAL;
	return -EINVAL; /* sysfs.c:1601 no command matched */
}

static int do_write(struct fdm *f, const char *relpath, const char *val)
{
	char p[1024];
	struct stat st;
	if (f->busy_writes > 0) {
		f->busy_writes--;
		return -EBUSY;
	}
	if (f->fail_path && ends_with(relpath, f->fail_path))
		return -f->fail_errno;
	path_of(f, relpath, p, sizeof(p));
	if (stat(p, &st) < 0 || !S_ISREG(st.st_mode))
		return -ENOENT;
	if (strncmp(relpath, ADMIN, strlen(ADMIN)) != 0) {
		fdm_put(f, relpath, val);
		return 0;
	}
	const char *a = relpath + strlen(ADMIN);
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s", relpath);
	*strrchr(dir, '/') = '\0';
	char *end;
	long n = strtol(val, &end, 0);
	bool num = end != val && (*end == '\0' || *end == '\n');

	if (!strcmp(a, "kdamonds/nr_kdamonds")) {
		if (!num || n < 0)
			return -EINVAL; /* sysfs.c:1774-1778 */
		if (any_running(f))
			return -EBUSY; /* sysfs.c:1718 */
		/* sysfs.c:1721: every kdamond directory goes, N new ones come */
		renumber(f, ADMIN "kdamonds", n, make_kdamond);
		char v[32];
		snprintf(v, sizeof(v), "%ld\n", n);
		fdm_put(f, relpath, v);
		if (f->other_writer && n >= 1) {
			f->other_writer = false;
			renumber(f, ADMIN "kdamonds", 2, make_kdamond);
			fdm_put(f, relpath, "2\n");
		}
		return 0;
	}
	if (ends_with(a, "/state") && !strncmp(a, "kdamonds/", 9) && strchr(a + 9, '/') &&
	    !strcmp(strchr(a + 9, '/'), "/state")) {
		char cmd[64];
		snprintf(cmd, sizeof(cmd), "%s", val);
		cmd[strcspn(cmd, "\n")] = '\0';
		return state_cmd(f, dir, cmd);
	}
	struct {
		const char *file, *sub;
		void (*make)(struct fdm *, const char *);
	} nr[] = {
		{ "/contexts/nr_contexts", "", make_context },
		{ "/targets/nr_targets", "", make_target },
		{ "/schemes/nr_schemes", "", make_scheme },
		{ "/filters/nr_filters", "", make_filter },
	};
	for (size_t i = 0; i < sizeof(nr) / sizeof(nr[0]); i++)
		if (ends_with(a, nr[i].file)) {
			if (!num || n < 0)
				return -EINVAL;
			renumber(f, dir, n, nr[i].make);
			char v[32];
			snprintf(v, sizeof(v), "%ld\n", n);
			fdm_put(f, relpath, v);
			return 0;
		}
	if (ends_with(a, "/operations") && strcmp(val, "vaddr") && strcmp(val, "paddr") &&
	    strcmp(val, "fvaddr"))
		return -EINVAL; /* sysfs.c:783 */
	if (ends_with(a, "/pid") || ends_with(a, "/avail_operations") ||
	    strstr(a, "/tried_regions/"))
		return -EACCES; /* read-only files (0400) */
	char v[256];
	snprintf(v, sizeof(v), "%s\n", val);
	fdm_put(f, relpath, v);
	return 0;
}

static int fdm_write_file(void *ud, int dirfd, const char *relpath, const void *buf,
			  size_t len)
{
	struct fdm *f = ud;
	(void)dirfd;
	char val[256];
	snprintf(val, sizeof(val), "%.*s", (int)(len < 255 ? len : 255), (const char *)buf);
	int r = do_write(f, relpath, val);
	if (f->nwrites < FDM_MAX_WRITES) {
		f->writes[f->nwrites] = strdup(relpath);
		f->results[f->nwrites] = r;
		f->nwrites++;
	}
	return r;
}

static long fdm_move_pages(void *ud, int pid, unsigned long count, void **pages,
			   const int *nodes, int *status, int flags)
{
	struct fdm *f = ud;
	(void)pid;
	(void)nodes;
	(void)flags;
	f->move_pages_calls++;
	if (f->move_pages_err)
		return -f->move_pages_err;
	for (unsigned long i = 0; i < count; i++) {
		uint64_t a = (uint64_t)(uintptr_t)pages[i];
		status[i] = -EFAULT;
		for (size_t k = 0; k < f->nnode_ranges; k++)
			if (a >= f->node_ranges[k].start && a < f->node_ranges[k].end)
				status[i] = f->node_ranges[k].node;
	}
	return 0;
}

struct fdm *fdm_new(void)
{
	struct fdm *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	snprintf(f->root, sizeof(f->root), "/tmp/pms_fdm_XXXXXX");
	if (!mkdtemp(f->root)) {
		free(f);
		return NULL;
	}
	fdm_put(f, ADMIN "kdamonds/nr_kdamonds", "0\n");
	f->ops = *pms_sys_real_ops();
	f->ops.ud = f;
	f->ops.write_file = fdm_write_file;
	f->ops.move_pages = fdm_move_pages;
	return f;
}

const struct pms_sys_ops *fdm_ops(struct fdm *f)
{
	return &f->ops;
}

void fdm_free(struct fdm *f)
{
	if (!f)
		return;
	rmrf(f->root);
	for (size_t i = 0; i < f->nwrites; i++)
		free(f->writes[i]);
	free(f);
}

void fdm_preexisting(struct fdm *f, bool running)
{
	const char *k = ADMIN "kdamonds/0";
	fdm_put(f, ADMIN "kdamonds/nr_kdamonds", "1\n");
	make_kdamond(f, k);
	put2(f, k, "contexts/nr_contexts", "1\n");
	make_context(f, ADMIN "kdamonds/0/contexts/0");
	put2(f, ADMIN "kdamonds/0/contexts/0", "operations", "paddr\n");
	put2(f, ADMIN "kdamonds/0/contexts/0", "targets/nr_targets", "1\n");
	make_target(f, ADMIN "kdamonds/0/contexts/0/targets/0");
	if (running) {
		put2(f, k, "state", "on\n");
		put2(f, k, "pid", "777\n");
	}
}

void fdm_targets_exit(struct fdm *f)
{
	for (long i = 0; i < nr_kdamonds(f); i++) {
		char rel[256];
		snprintf(rel, sizeof(rel), ADMIN "kdamonds/%ld/state", i);
		if (get_is(f, rel, "on"))
			fdm_put(f, rel, "off\n");
	}
}

static char **dg_v;
static size_t dg_n, dg_cap;
static size_t dg_root_len;

static int dg_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)ftw;
	(void)sb;
	if (dg_n == dg_cap) {
		dg_cap = dg_cap ? 2 * dg_cap : 64;
		dg_v = realloc(dg_v, dg_cap * sizeof(*dg_v));
	}
	char *content = NULL;
	if (flag == FTW_F) {
		FILE *fp = fopen(p, "r");
		content = calloc(1, 4096);
		if (fp) {
			size_t n = fread(content, 1, 4095, fp);
			(void)n;
			fclose(fp);
		}
	}
	char *line = NULL;
	if (asprintf(&line, "%s%s=%s", p + dg_root_len, flag == FTW_D ? "/" : "",
		     content ? content : "") < 0)
		line = NULL;
	free(content);
	dg_v[dg_n++] = line;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *fdm_digest(struct fdm *f)
{
	dg_v = NULL;
	dg_n = dg_cap = 0;
	dg_root_len = strlen(f->root);
	nftw(f->root, dg_cb, 16, FTW_PHYS);
	qsort(dg_v, dg_n, sizeof(*dg_v), cmp_str);
	size_t len = 1;
	for (size_t i = 0; i < dg_n; i++)
		len += (dg_v[i] ? strlen(dg_v[i]) : 0) + 1;
	char *out = calloc(1, len);
	for (size_t i = 0; i < dg_n; i++) {
		if (dg_v[i])
			strcat(out, dg_v[i]);
		strcat(out, "\n");
		free(dg_v[i]);
	}
	free(dg_v);
	dg_v = NULL;
	return out;
}
