/* Helpers for the sampler tests: a temporary root that borrows a fixture
 * machine's sys/bus and adds the proc files the ladder reads. */
#ifndef PMS_TESTS_SAMPLE_HELPERS_H
#define PMS_TESTS_SAMPLE_HELPERS_H

#include "fake_kernel.h"
#include "fake_rules.h"
#include "pmuscope/pmu.h"
#include "pmuscope/sys.h"

struct th_root {
	char dir[256];
	struct fk *fk;
	struct fkr_machine m;
	struct pms_sys *sys;
	struct pms_pmus *pmus;
};

/* machine: a directory under tests/fixtures/machines; online: the CPU list
 * to write (e.g. "0-3"); paranoid: the sysctl value; perfmon: CapEff with
 * CAP_PERFMON.  Returns 0, or -1 after a failed CHECK. */
int th_root_open(struct th_root *r, const char *machine, const char *online, int paranoid,
		 bool perfmon);
void th_root_close(struct th_root *r);

/* Index of the n-th open fake fd whose attr.type is type (n from 0), or -1. */
int th_fd_of_type(struct fk *fk, uint32_t type, int n);

#endif
