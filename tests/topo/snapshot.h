/* Test helper: unpack a real machine snapshot (hwloc / util-linux tarball)
 * into a temporary directory and open a pms_sys on it. */
#ifndef PMS_TESTS_TOPO_SNAPSHOT_H
#define PMS_TESTS_TOPO_SNAPSHOT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/sys.h"

struct snap {
	char tmp[64];
	char root[512];
	struct pms_sys *sys;
};

/* rel: path below ../shared/data of a .tar.bz2/.tar.gz whose top directory is
 * name.  Returns 0, or -1 when the data is absent (caller skips). */
static inline int snap_open(struct snap *s, const char *rel, const char *name)
{
	const char *data = pms_t_shared_data();
	char tarball[512], cmd[1400];
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;

	memset(s, 0, sizeof(*s));
	if (!data)
		return -1;
	snprintf(tarball, sizeof(tarball), "%s/%s", data, rel);
	if (access(tarball, R_OK) != 0)
		return -1;
	/* tmpfs when there is one: unpacking thousands of sysfs files onto a
	 * slow disk costs seconds per snapshot. */
	snprintf(s->tmp, sizeof(s->tmp), "%s/pms_topo_XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(s->tmp))
		return -1;
	snprintf(cmd, sizeof(cmd), "tar -xf '%s' -C '%s' 2>/dev/null", tarball, s->tmp);
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot unpack %s\n", tarball);
		return -1;
	}
	snprintf(s->root, sizeof(s->root), "%s/%s", s->tmp, name);
	o.root = s->root;
	if (pms_sys_new(&s->sys, &o) < 0)
		return -1;
	return 0;
}

static inline void snap_close(struct snap *s)
{
	char cmd[128];
	pms_sys_free(s->sys);
	s->sys = NULL;
	if (strstr(s->tmp, "/pms_topo_")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->tmp);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", s->tmp);
	}
}

#endif
