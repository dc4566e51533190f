#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/* Run under libpmuscope-alloc.so (tests/alloc/meson.build sets
 * LD_PRELOAD and PMUSCOPE_ALLOC on a memfd): the program behaves as without
 * it.  errno kept through every hook, malloc_usable_size, realloc chains,
 * aligned allocations, fork (the child allocates and frees), threads that
 * allocate and free each other's blocks, a signal handler that allocates,
 * dlopen, anonymous mmap/mremap/munmap.  Exits 0 when all hold. */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static int fails;
#define CHECK(c)                                                                           \
	do {                                                                               \
		if (!(c)) {                                                                \
			fprintf(stderr, "alloc_behave: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			fails++;                                                           \
		}                                                                          \
	} while (0)

static void *volatile shared[64];
static volatile size_t huge = (size_t)-1 / 2, all_ones = (size_t)-1;

static void *worker(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	for (int i = 0; i < 20000; i++) {
		size_t n = (size_t)(16 + (i * 37 + id * 101) % 5000);
		char *p = malloc(n);
		if (!p)
			return (void *)1;
		memset(p, (int)id, n);
		/* hand blocks across threads: free another thread's block */
		void *old = __atomic_exchange_n(&shared[(i + id) % 64], p, __ATOMIC_ACQ_REL);
		free(old);
	}
	return NULL;
}

static volatile sig_atomic_t handled;
static void on_usr1(int sig)
{
	(void)sig;
	void *p = malloc(100); /* not async-signal-safe in general; works in practice */
	free(p);
	handled = 1;
}

int main(void)
{
	/* errno as the real call leaves it */
	errno = 1234;
	void *p = malloc(10);
	CHECK(p && errno == 1234);
	free(p);
	CHECK(errno == 1234);
	errno = 0;
	p = malloc(huge);
	CHECK(!p && errno == ENOMEM);
	errno = 0;
	p = calloc(huge, 4);
	CHECK(!p && errno == ENOMEM);
	/* a calloc of the program's own (the loader's are not tracked) */
	int *z = calloc(64, sizeof(int));
	CHECK(z != NULL);
	for (int i = 0; z && i < 64; i++)
		CHECK(z[i] == 0);
	free(z);
	/* usable size, realloc chains keeping the data */
	char *q = malloc(100);
	CHECK(q && malloc_usable_size(q) >= 100);
	for (int i = 0; i < 100; i++)
		q[i] = (char)i;
	for (size_t n = 200; n < (1u << 22); n *= 3) {
		q = realloc(q, n);
		CHECK(q && malloc_usable_size(q) >= n);
		CHECK(q[0] == 0 && q[99] == 99);
	}
	free(q);
	q = reallocarray(NULL, 10, 10);
	CHECK(q != NULL);
	errno = 0;
	void *volatile keep = q; /* a failed reallocarray leaves q allocated */
	CHECK(reallocarray(q, all_ones, 16) == NULL && errno == ENOMEM);
	free(keep);
	/* aligned */
	void *a = NULL;
	CHECK(posix_memalign(&a, 4096, 5000) == 0 && a && ((uintptr_t)a & 4095) == 0);
	free(a);
	CHECK(posix_memalign(&a, 3, 10) == EINVAL);
	a = aligned_alloc(64, 640);
	CHECK(a && ((uintptr_t)a & 63) == 0);
	free(a);
	a = memalign(256, 1000);
	CHECK(a && ((uintptr_t)a & 255) == 0);
	free(a);
	a = valloc(100);
	CHECK(a && ((uintptr_t)a & 4095) == 0);
	free(a);
	/* anonymous mappings */
	char *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	m[0] = 1;
	m = mremap(m, 1 << 20, 4 << 20, MREMAP_MAYMOVE);
	CHECK(m != MAP_FAILED && m[0] == 1);
	errno = 0;
	CHECK(munmap(m, 4 << 20) == 0);
	CHECK(munmap((void *)1, 10) == -1 && errno == EINVAL);
	CHECK(mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED &&
	      errno == EINVAL);
	/* threads */
	pthread_t th[4];
	for (uintptr_t i = 0; i < 4; i++)
		CHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0);
	for (int i = 0; i < 4; i++) {
		void *r = (void *)1;
		pthread_join(th[i], &r);
		CHECK(r == NULL);
	}
	for (int i = 0; i < 64; i++)
		free(shared[i]);
	/* fork: the child allocates, frees an inherited block, exits 7 */
	char *inh = malloc(5000);
	pid_t c = fork();
	if (c == 0) {
		char *x = malloc(300000);
		if (!x)
			_exit(1);
		memset(x, 1, 300000);
		free(x);
		free(inh);
		_exit(7);
	}
	int st = 0;
	CHECK(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 7);
	free(inh);
	/* a signal handler that allocates */
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	CHECK(handled == 1);
	/* dlopen and its allocations */
	void *h = dlopen("libm.so.6", RTLD_NOW);
	CHECK(h != NULL && dlsym(h, "cos") != NULL);
	if (h)
		dlclose(h);
	if (fails)
		return 1;
	printf("alloc_behave: ok\n");
	return 0;
}
