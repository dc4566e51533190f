#include "sample_helpers.h"

#include "check.h"
#include "pmuscope/error.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int put(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	return 0;
}

int th_root_open(struct th_root *r, const char *machine, const char *online, int paranoid,
		 bool perfmon)
{
	char path[1024], text[1024];
	const char *dirs[] = { "sys", "sys/devices", "sys/devices/system",
			       "sys/devices/system/cpu", "proc", "proc/sys",
			       "proc/sys/kernel", "proc/self" };
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "/tmp/pms_sample_XXXXXX");
	if (!mkdtemp(r->dir)) {
		CHECK(!"mkdtemp");
		return -1;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", r->dir, dirs[i]);
		mkdir(path, 0755);
	}
	snprintf(path, sizeof(path), "%s/machines/%s/sys/bus", pms_t_fixtures(), machine);
	snprintf(text, sizeof(text), "%s/sys/bus", r->dir);
	if (symlink(path, text) < 0) {
		CHECK(!"symlink");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/machines/%s/proc/cpuinfo", pms_t_fixtures(), machine);
	snprintf(text, sizeof(text), "%s/proc/cpuinfo", r->dir);
	if (symlink(path, text) < 0) {
		CHECK(!"symlink cpuinfo");
		return -1;
	}
	/* The per-CPU directories (MIDR for arm64 machines). */
	{
		char cpus[512];
		DIR *d;
		struct dirent *e;
		snprintf(cpus, sizeof(cpus), "%s/machines/%s/sys/devices/system/cpu",
			 pms_t_fixtures(), machine);
		if ((d = opendir(cpus))) {
			while ((e = readdir(d)))
				if (strncmp(e->d_name, "cpu", 3) == 0 && e->d_name[3] >= '0' &&
				    e->d_name[3] <= '9') {
					snprintf(path, sizeof(path), "%s/%s", cpus, e->d_name);
					snprintf(text, sizeof(text), "%s/sys/devices/system/cpu/%s",
						 r->dir, e->d_name);
					if (symlink(path, text) < 0)
						CHECK(!"symlink cpu dir");
				}
			closedir(d);
		}
	}
	snprintf(text, sizeof(text), "%s\n", online);
	put(r->dir, "sys/devices/system/cpu/online", text);
	snprintf(text, sizeof(text), "%d\n", paranoid);
	put(r->dir, "proc/sys/kernel/perf_event_paranoid", text);
	put(r->dir, "proc/self/status",
	    perfmon ? "Name:\ttest\nCapEff:\t000001ffffffffff\n"
		    : "Name:\ttest\nCapEff:\t0000000000000000\n");
	r->fk = fk_new();
	r->m.paranoid = paranoid;
	r->m.perfmon = perfmon;
	fkr_install(r->fk, &r->m);
	o.root = r->dir;
	o.ops = fk_ops(r->fk);
	CHECK_OK(pms_sys_new(&r->sys, &o));
	if (!r->sys)
		return -1;
	CHECK_OK(pms_pmus_load(r->sys, &r->pmus));
	return r->pmus ? 0 : -1;
}

static void rm_rf(const char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

void th_root_close(struct th_root *r)
{
	pms_pmus_free(r->pmus);
	pms_sys_free(r->sys);
	fk_free(r->fk);
	if (r->dir[0])
		rm_rf(r->dir);
}

int th_fd_of_type(struct fk *fk, uint32_t type, int n)
{
	for (int i = 0; i < FK_MAX_FDS; i++)
		if (fk->fds[i].used && fk->fds[i].attr.type == type && n-- == 0)
			return FK_FD_BASE + i;
	return -1;
}
