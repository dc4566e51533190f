/* Workload, not a test: its [vdso] samples are judged by tests/cli/script_vdso.sh. */
/* Calls clock_gettime (the vDSO's) in a loop: argv[1] times (default
 * 300000), so that a cpu-clock recording has samples in [vdso]. */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300000;
	struct timespec ts;
	unsigned long sum = 0;
	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += (unsigned long)ts.tv_nsec;
	}
	return sum == 1 ? 1 : 0;
}
