/* Deterministic workload for the live sampler tests: after an optional
 * delay, map N fresh anonymous pages, write one byte to each (N first-touch
 * page faults), and write "START LEN" of the buffer to a file.
 * usage: pms_touch_pages N OUTFILE [DELAY_MS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n, psz = sysconf(_SC_PAGESIZE);
	unsigned char *buf;
	FILE *f;

	if (argc < 3)
		return 2;
	n = strtol(argv[1], NULL, 10);
	if (argc > 3) {
		long ms = strtol(argv[3], NULL, 10);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	buf = mmap(NULL, (size_t)(n * psz), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (buf == MAP_FAILED)
		return 3;
	/* One fault per 4 KiB page, not one per huge page. */
	madvise(buf, (size_t)(n * psz), MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		((volatile unsigned char *)buf)[i * psz] = (unsigned char)i;
	f = fopen(argv[2], "w");
	if (!f)
		return 4;
	fprintf(f, "%llu %llu\n", (unsigned long long)(uintptr_t)buf,
		(unsigned long long)(n * psz));
	fclose(f);
	return 0;
}
