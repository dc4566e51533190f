#include "count_helpers.h"

#include "check.h"
#include "pmuscope/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ch_put(struct ch_root *r, const char *rel, const char *text)
{
	char path[512];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", r->dir, rel);
	for (char *p = path + strlen(r->dir) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	return 0;
}

int ch_root_open(struct ch_root *r, const char *machine, int paranoid, bool perfmon)
{
	char path[512], link[512], text[64];
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "/tmp/pms_count_XXXXXX");
	if (!mkdtemp(r->dir)) {
		CHECK(!"mkdtemp");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/machines/%s/sys", pms_t_fixtures(), machine);
	snprintf(link, sizeof(link), "%s/sys", r->dir);
	if (symlink(path, link) < 0) {
		CHECK(!"symlink sys");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/machines/%s/proc/cpuinfo", pms_t_fixtures(), machine);
	snprintf(link, sizeof(link), "%s/proc", r->dir);
	mkdir(link, 0755);
	snprintf(link, sizeof(link), "%s/proc/cpuinfo", r->dir);
	if (symlink(path, link) < 0) {
		CHECK(!"symlink cpuinfo");
		return -1;
	}
	snprintf(text, sizeof(text), "%d\n", paranoid);
	ch_put(r, "proc/sys/kernel/perf_event_paranoid", text);
	ch_put(r, "proc/self/status",
	       perfmon ? "Name:\ttest\nCapEff:\t000001ffffffffff\n"
		       : "Name:\ttest\nCapEff:\t0000000000000000\n");
	ch_put(r, "proc/self/limits",
	       "Limit                     Soft Limit           Hard Limit           Units     \n"
	       "Max open files            1024                 524288               files     \n");
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
	if (pms_topo_load(r->sys, &r->topo) < 0)
		r->topo = NULL;
	return r->pmus ? 0 : -1;
}

void ch_root_close(struct ch_root *r)
{
	char cmd[200];
	pms_topo_free(r->topo);
	pms_pmus_free(r->pmus);
	pms_sys_free(r->sys);
	fk_free(r->fk);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", r->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", r->dir);
}
