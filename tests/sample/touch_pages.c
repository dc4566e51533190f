/* Deterministic workload for the live sampler tests: map N fresh anonymous
 * pages, write one byte to each (N first-touch page faults), and write
 * "START LEN" of the buffer to a file.  With THREADS > 1 the threads are
 * started first, then wait DELAY_MS, then each touches its share, so a
 * sampler attaching during the delay meets threads that already exist.
 * With LINGER_MS the program stays that long after writing the file (a
 * process living a few hundred milliseconds), then exits.
 * usage: pms_touch_pages N OUTFILE [DELAY_MS [THREADS [LINGER_MS]]] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16

static unsigned char *buf;
static long npages, psz, nthreads = 1, delay_ms, linger_ms;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static void *touch(void *arg)
{
	long t = (long)(intptr_t)arg;
	sleep_ms(delay_ms);
	for (long i = t; i < npages; i += nthreads)
		((volatile unsigned char *)buf)[i * psz] = (unsigned char)i;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	FILE *f;

	if (argc < 3)
		return 2;
	psz = sysconf(_SC_PAGESIZE);
	npages = strtol(argv[1], NULL, 10);
	if (argc > 3)
		delay_ms = strtol(argv[3], NULL, 10);
	if (argc > 4)
		nthreads = strtol(argv[4], NULL, 10);
	if (argc > 5)
		linger_ms = strtol(argv[5], NULL, 10);
	if (nthreads < 1 || nthreads > MAX_THREADS)
		return 2;
	buf = mmap(NULL, (size_t)(npages * psz), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 3;
	/* One fault per 4 KiB page, not one per huge page. */
	madvise(buf, (size_t)(npages * psz), MADV_NOHUGEPAGE);
	for (long t = 1; t < nthreads; t++)
		if (pthread_create(&th[t], NULL, touch, (void *)(intptr_t)t) != 0)
			return 5;
	touch((void *)(intptr_t)0);
	for (long t = 1; t < nthreads; t++)
		pthread_join(th[t], NULL);
	f = fopen(argv[2], "w");
	if (!f)
		return 4;
	fprintf(f, "%llu %llu\n", (unsigned long long)(uintptr_t)buf,
		(unsigned long long)(npages * psz));
	fclose(f);
	if (linger_ms > 0)
		sleep_ms(linger_ms);
	return 0;
}
