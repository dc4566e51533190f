/* A benchmark harness that counts its own kernel loop with pmuscope's
 * self-monitoring API: open once, read around each repetition (from the user
 * page without a syscall where the kernel allows it, read() otherwise), and
 * report per-repetition deltas with the read path that served them.
 *
 *   build/examples/harness_selfmon [EVENTS]
 *   (default: cycles,instructions where a core PMU exists, else task-clock)
 */
#include <stdio.h>
#include <stdlib.h>

#include "pmuscope/error.h"
#include "pmuscope/pmu.h"
#include "pmuscope/selfmon.h"
#include "pmuscope/sys.h"

static volatile unsigned long sink;

static void kernel_under_test(void)
{
	unsigned long x = 0;
	for (unsigned long i = 0; i < 2000000; i++)
		x += i ^ (x >> 3);
	sink = x;
}

int main(int argc, char **argv)
{
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_selfmon *sm = NULL;
	int rc = 1;

	if (pms_sys_new(&sys, NULL) < 0 || pms_pmus_load(sys, &pmus) < 0)
		goto fail;
	const char *events = argc > 1 ? argv[1]
			     : pms_pmus_has_hardware(pmus) ? "cycles,instructions" : "task-clock";
	if (pms_selfmon_open(sys, pmus, events, NULL, &sm) < 0)
		goto fail;

	size_t n = pms_selfmon_count(sm);
	struct pms_selfmon_value before[8], after[8];
	if (n > 8)
		n = 8;
	for (int rep = 0; rep < 5; rep++) {
		for (size_t i = 0; i < n; i++)
			if (pms_selfmon_read(sm, i, &before[i]) < 0)
				goto fail;
		kernel_under_test();
		for (size_t i = 0; i < n; i++)
			if (pms_selfmon_read(sm, i, &after[i]) < 0)
				goto fail;
		printf("rep %d:", rep);
		for (size_t i = 0; i < n; i++)
			printf("  %s %llu (%s)", pms_selfmon_name(sm, i),
			       (unsigned long long)(after[i].value - before[i].value),
			       pms_read_path_name(after[i].path));
		printf("\n");
	}
	if (after[0].why != PMS_WHY_NONE)
		printf("read() was used because: %s\n", pms_selfmon_why_name(after[0].why));
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "harness_selfmon: %s\n", pms_error_last());
out:
	pms_selfmon_free(sm);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	return rc;
}
