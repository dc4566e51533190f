/* Cost of one counter read: pmuscope's self-monitoring read vs a raw read()
 * syscall on the same fd and, where the kernel allows user reads, a raw
 * rdpmc.  Prints ns per read and ratios; never pass/fail.
 *
 *   build/bench/selfmon_read [EVENT [READS]]     (default: cycles if a core
 *   PMU exists, else task-clock; 1000000 reads)
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "pmuscope/error.h"
#include "pmuscope/pmu.h"
#include "pmuscope/selfmon.h"
#include "pmuscope/sys.h"

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#if defined(__x86_64__)
static inline uint64_t raw_rdpmc(uint32_t c)
{
	uint32_t lo, hi;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(c));
	return (uint64_t)hi << 32 | lo;
}
#endif

int main(int argc, char **argv)
{
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_selfmon *sm = NULL;
	struct pms_selfmon_value v;
	long reads = argc > 2 ? atol(argv[2]) : 1000000;
	const char *ev;
	volatile uint64_t sink = 0;
	double t0, t_pms, t_sys, t_rdpmc = 0;

	if (pms_sys_new(&sys, NULL) < 0 || pms_pmus_load(sys, &pmus) < 0) {
		fprintf(stderr, "selfmon_read: %s\n", pms_error_last());
		return 1;
	}
	ev = argc > 1 ? argv[1] : (pms_pmus_has_hardware(pmus) ? "cycles" : "task-clock");
	if (pms_selfmon_open(sys, pmus, ev, NULL, &sm) < 0) {
		fprintf(stderr, "selfmon_read: cannot open %s: %s\n", ev, pms_error_last());
		return 1;
	}
	pms_selfmon_read(sm, 0, &v);
	printf("event %s, %ld reads, pmuscope path: %s (%s)\n", ev, reads,
	       pms_read_path_name(v.path), pms_selfmon_why_name(v.why));

	t0 = now_ns();
	for (long i = 0; i < reads; i++) {
		pms_selfmon_read(sm, 0, &v);
		sink += v.value;
	}
	t_pms = (now_ns() - t0) / (double)reads;

	int fd = pms_selfmon_fd(sm, 0);
	uint64_t buf[4];
	t0 = now_ns();
	for (long i = 0; i < reads; i++) {
		if (read(fd, buf, sizeof(buf)) > 0)
			sink += buf[0];
	}
	t_sys = (now_ns() - t0) / (double)reads;

#if defined(__x86_64__)
	struct perf_event_mmap_page *pg = pms_selfmon_page(sm, 0);
	if (pg && pg->cap_user_rdpmc && pg->index) {
		uint32_t idx = pg->index - 1;
		t0 = now_ns();
		for (long i = 0; i < reads; i++)
			sink += raw_rdpmc(idx);
		t_rdpmc = (now_ns() - t0) / (double)reads;
	}
#endif
	printf("pmuscope read:  %8.1f ns/read\n", t_pms);
	printf("raw read():     %8.1f ns/read   ratio pmuscope/read() = %.2f\n", t_sys,
	       t_pms / t_sys);
	if (t_rdpmc > 0)
		printf("raw rdpmc:      %8.1f ns/read   ratio pmuscope/rdpmc = %.2f\n", t_rdpmc,
		       t_pms / t_rdpmc);
	else
		printf("raw rdpmc:      not available here (no user-readable counter: %s)\n",
		       pms_selfmon_why_name(v.why));
	(void)sink;
	pms_selfmon_free(sm);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	return 0;
}
