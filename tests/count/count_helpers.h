/* Fixture roots for the counting tests: a fixture machine's sys/ and
 * proc/cpuinfo plus a written proc/ (paranoid level, capabilities, fd limits,
 * task lists), behind the fake kernel. */
#ifndef PMS_TESTS_COUNT_HELPERS_H
#define PMS_TESTS_COUNT_HELPERS_H

#include <stdbool.h>

#include "fake_kernel.h"
#include "fake_rules.h"
#include "pmuscope/pmu.h"
#include "pmuscope/sys.h"
#include "pmuscope/topo.h"

struct ch_root {
	char dir[128];
	struct fk *fk;
	struct fkr_machine m;
	struct pms_sys *sys;
	struct pms_pmus *pmus;
	struct pms_topo *topo; /* NULL when the fixture has no loadable topology */
};

/* paranoid/perfmon feed both the written proc files and the fake's rules
 * (fkr_install); tests may replace fk->rule afterwards. */
int ch_root_open(struct ch_root *r, const char *machine, int paranoid, bool perfmon);
void ch_root_close(struct ch_root *r);
/* Write a file below the root (directories created as needed). */
int ch_put(struct ch_root *r, const char *rel, const char *text);

#endif
