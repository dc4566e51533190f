/* Workload, not a test: its records are judged by tests/alloc/check_raw.py. */
/* Test workload for the preload's raw-clone threads and late TLS blocks
 * (tests/alloc/check_raw.py runs it under libpmuscope-alloc.so and checks
 * the records against the lines it writes to TRUTH).
 *
 *   alloc_raw_prog TRUTH clone
 * Three threads made by a raw clone (not pthread_create), one after the
 * other, the creator waiting for each (CLONE_CHILD_CLEARTID futex):
 *   - "fresh": CLONE_SETTLS with a TLS area made as glibc lays one out (each
 *     static TLS module's block at its offset below the thread pointer,
 *     filled from the module's image; the TCB's header from the creator's,
 *     its self pointers its own): the library's own state there is zero;
 *   - "copy": CLONE_SETTLS with the creator's static TLS blocks copied (the
 *     library's state of the creator included);
 *   - "shared": CLONE_VM | CLONE_THREAD without CLONE_SETTLS (the creator's
 *     very TLS block);
 *   - "vmproc": a process, CLONE_VM | CLONE_SETTLS without CLONE_THREAD (a
 *     fresh TLS area, then a copy of its creator's; this memory, the
 *     library's state included, shared).
 * Each runs on an mmap'd stack between PROT_NONE guard pages and calls
 * malloc through two functions of its own; it writes
 *   A TID ADDR SITE_FN RET1 RET2   its block, the function that called
 *                                  malloc, and the return addresses into
 *                                  the two functions above it
 *   P PID ADDR                     its process (vmproc: its own)
 *   S TID LO HI                    (SETTLS threads) its stack mapping
 *   L TID LO HI MODBASE            (SETTLS threads) its block of this
 *                                  program's __thread buffer, the program's
 *                                  first byte
 * (x86-64 only: the TLS layout is the architecture's; elsewhere it exits 77.)
 *
 *   alloc_raw_prog TRUTH mods MODULE...
 * dlopens every MODULE (copies of tests/alloc/alloc_tls_mod_workload.c's module, so
 * that the last one's TLS module id is past 255), writes "I ID" (the last
 * one's id), then the main thread and a pthread each touch their block of
 * the last module's __thread buffer (dynamic TLS, allocated at the first
 * access) and allocate once: "L TID LO HI MODBASE" each.
 *
 *   alloc_raw_prog TRUTH maps
 * One "shared" thread that makes and frees 10 more tracked blocks after its
 * first: "M TID" (its reads of /proc/self/maps are counted under strace by
 * check_raw.py: once per thread, not per record).
 *
 *   alloc_raw_prog TRUTH rawie MODULE
 * A raw thread with no dtv at all (nor glibc's self word) started before
 * MODULE (initial-exec TLS) is dlopen'ed touches its block of the module's
 * buffer and allocates: "L TID LO HI MODBASE" (see rawie).
 *
 *   alloc_raw_prog TRUTH clock
 * Tracked blocks made and freed between reads of CLOCK_MONOTONIC: "C ADDR
 * T0 T1 T2 T3" (see clock_times).
 *
 *   alloc_raw_prog TRUTH rawdyn|rawdyn_noself MODULE
 * dlopens MODULE, then a "fresh" raw thread touches its block of the
 * module's __thread buffer first (dynamic TLS: the loader allocates it in
 * that thread) and allocates: "L TID LO HI MODBASE".  rawdyn_noself: the
 * thread's control block keeps the ABI's words (the TCB, the dtv) but not
 * glibc's own descriptor word (0 there: a control block not glibc's).
 *
 *   alloc_raw_prog TRUTH reuse
 * Eight "fresh" raw threads one after the other (each waited for until the
 * kernel has let it go: tgkill ESRCH), each allocating once; then "W N": the
 * mappings of the stream file past its header that this process holds
 * (/proc/self/maps, the memfd named pmuscope-alloc-*): a raw thread's chunk
 * is taken over by the next one, not left mapped.
 *
 *   alloc_raw_prog TRUTH reap
 * A "fresh" raw thread allocates and ends (waited for as in reuse); the
 * main thread then makes 3,000 tracked blocks (new chunks claimed): "X N",
 * N 1 when the stream's mapping that held the raw thread's record is
 * still mapped.
 *
 *   alloc_raw_prog TRUTH reload MODULE_A MODULE_B MODULE_C
 * dlopens C, touches its __thread buffer and allocates (C stays loaded);
 * dlopens A, touches its __thread buffer and allocates (its TLS block
 * recorded), dlcloses it, dlopens B (copies of alloc_tls_mod: B gets
 * A's TLS module id again), writes "R IDA IDB", then touches B's buffer and
 * allocates: "L TID LO HI MODBASE T" with T the time (CLOCK_MONOTONIC ns)
 * before B was touched: B's block is recorded then, not taken for A's;
 * and "U TID LO HI MODBASE": C's block recorded once (not again after A's
 * dlclose). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__clang__)
#define SITE __attribute__((noinline))
#else
#define SITE __attribute__((noinline, noclone))
#endif

#define TLS_BUF (64 << 10)
#define STACK (512u << 10)
#define PG 4096u

static __thread char tls_buf[TLS_BUF];
static FILE *truth;

/* The first byte of the module whose TLS module id is id (0: this program). */
struct modq {
	size_t id;
	int main;
	uintptr_t base;
};

static int find_mod(struct dl_phdr_info *info, size_t size, void *ud)
{
	(void)size;
	struct modq *q = ud;
	if (q->main ? info->dlpi_name[0] != 0 : info->dlpi_tls_modid != q->id)
		return 0;
	for (size_t i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD) {
			q->base = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			return 1;
		}
	return 0;
}

static uintptr_t mod_base(size_t id, int main_prog)
{
	struct modq q = { id, main_prog, 0 };
	dl_iterate_phdr(find_mod, &q);
	return q.base;
}

#if defined(__x86_64__)

struct job {
	volatile pid_t ctid;
	pid_t tid;
	char *blk;
	uintptr_t ret1, ret2;
	uintptr_t tls_lo;
	int reps; /* more tracked blocks made and freed after the first */
	char *(*dyn)(size_t *); /* rawdyn: a dlopen'ed module's __thread buffer */
	char *dyn_lo;
	size_t dyn_n;
};

static void hook_call(void);

SITE static char *raw_site(struct job *j, size_t n)
{
	j->ret1 = (uintptr_t)__builtin_return_address(0);
	char *p = malloc(n);
	__asm__ volatile("" ::: "memory");
	return p;
}

SITE static void raw_work(struct job *j)
{
	j->ret2 = (uintptr_t)__builtin_return_address(0);
	j->blk = raw_site(j, 100000);
	for (int i = 0; i < j->reps; i++) {
		char *volatile q = malloc(100000);
		free(q);
	}
	if (j->dyn) {
		j->dyn_lo = j->dyn(&j->dyn_n); /* its block allocated here */
		memset(j->dyn_lo, 3, 4096);
		hook_call();
	}
	tls_buf[0] = 1;
	j->tls_lo = (uintptr_t)tls_buf;
	__asm__ volatile("" ::: "memory");
}

static int raw_main(void *arg)
{
	raw_work(arg);
	return 0;
}

/* The static TLS modules: each block's offset below the thread pointer. */
static struct smod {
	uintptr_t off;
	const void *img;
	size_t filesz;
} smods[64];
static size_t nsmods;
static uintptr_t max_off;

static uintptr_t tp_now(void)
{
	uintptr_t tp;
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return tp;
}

static int learn(struct dl_phdr_info *info, size_t size, void *ud)
{
	(void)size;
	(void)ud;
	if (!info->dlpi_tls_modid || !info->dlpi_tls_data || nsmods == 64)
		return 0;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_TLS)
			continue;
		uintptr_t off = tp_now() - (uintptr_t)info->dlpi_tls_data;
		smods[nsmods++] = (struct smod){ off, (const void *)(info->dlpi_addr + ph->p_vaddr),
						 ph->p_filesz };
		max_off = off > max_off ? off : max_off;
	}
	return 0;
}

/* A mapping of n usable bytes between two PROT_NONE guard pages. */
static char *guarded(size_t n)
{
	char *m = mmap(NULL, n + 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	mprotect(m, PG, PROT_NONE);
	mprotect(m + PG + n, PG, PROT_NONE);
	return m + PG;
}

/* A thread pointer with glibc's x86-64 layout: static TLS blocks below it,
 * the TCB above (its header from the creator's: the stack protector's
 * canary, the pointer guard, the dtv; tcb and self its own). */
static int tcb_noself; /* rawdyn_noself: a TCB without glibc's self word */
static int tcb_nodtv;  /* rawie: nor a dtv (0 there) */
static size_t tls_extra; /* rawie: bytes more below the blocks (a module's
			  * block placed in the surplus after the thread started) */

static uintptr_t make_tls(int copy)
{
	size_t below = ((max_off + PG - 1) & ~(size_t)(PG - 1)) + tls_extra;
	char *m = guarded(below + 4 * PG);
	if (!m)
		return 0;
	uintptr_t tp = tp_now(), nt = (uintptr_t)m + below;
	if (copy) {
		memcpy((void *)(nt - max_off), (const void *)(tp - max_off), max_off);
	} else {
		for (size_t i = 0; i < nsmods; i++)
			memcpy((void *)(nt - smods[i].off), smods[i].img, smods[i].filesz);
	}
	memcpy((void *)nt, (const void *)tp, 0x80);
	((uintptr_t *)nt)[0] = nt; /* tcb */
	((uintptr_t *)nt)[2] = tcb_noself ? 0 : nt; /* self (glibc's own: none in rawdyn_noself) */
	if (tcb_nodtv)
		((uintptr_t *)nt)[1] = 0; /* no dtv at all */
	return nt;
}

/* Whether thread tid of this process is gone (the kernel let it go). */
static int gone(pid_t tid)
{
	return syscall(SYS_tgkill, getpid(), tid, 0) != 0 && errno == ESRCH;
}

static char *(*dyn_buf)(size_t *);
static uintptr_t dyn_base;

static uintptr_t last_blk; /* the last raw thread's tracked block */

static int run_one(const char *what, int settls)
{
	struct job j;
	memset(&j, 0, sizeof(j));
	if (!strcmp(what, "rawdyn"))
		j.dyn = dyn_buf;
	if (!strcmp(what, "maps"))
		j.reps = 10;
	char *stack = guarded(STACK);
	uintptr_t tp = 0;
	if (!stack)
		return 1;
	int vmproc = !strcmp(what, "vmproc");
	int fl = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
		 CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
	if (vmproc)
		fl = CLONE_VM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD;
	if (settls) {
		tp = make_tls(settls == 2);
		if (!tp)
			return 1;
		fl |= CLONE_SETTLS;
	}
	j.ctid = 1;
	if (clone(raw_main, stack + STACK, fl, &j, &j.tid, (void *)tp, (pid_t *)&j.ctid) <= 0)
		return 1;
	if (vmproc) {
		int st;
		if (waitpid(j.tid, &st, __WALL) != j.tid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	} else {
		while (j.ctid) /* the kernel clears it at the thread's exit, and wakes */
			syscall(SYS_futex, (pid_t *)&j.ctid, FUTEX_WAIT, j.ctid, NULL, NULL, 0);
		while (!gone(j.tid))
			sched_yield();
	}
	if (!j.blk)
		return 1;
	last_blk = (uintptr_t)j.blk;
	fprintf(truth, "A %d %#lx %#lx %#lx %#lx %s\n", (int)j.tid, (unsigned long)j.blk,
		(unsigned long)(uintptr_t)raw_site, (unsigned long)j.ret1, (unsigned long)j.ret2,
		what);
	fprintf(truth, "P %d %#lx\n", vmproc ? (int)j.tid : (int)getpid(), (unsigned long)j.blk);
	if (j.reps)
		fprintf(truth, "M %d\n", (int)j.tid);
	if (j.dyn)
		fprintf(truth, "L %d %#lx %#lx %#lx\n", (int)j.tid, (unsigned long)j.dyn_lo,
			(unsigned long)(j.dyn_lo + j.dyn_n), (unsigned long)dyn_base);
	if (settls) {
		fprintf(truth, "S %d %#lx %#lx\n", (int)j.tid, (unsigned long)stack,
			(unsigned long)(stack + STACK));
		fprintf(truth, "L %d %#lx %#lx %#lx\n", (int)j.tid, (unsigned long)j.tls_lo,
			(unsigned long)(j.tls_lo + TLS_BUF), (unsigned long)mod_base(0, 1));
	}
	return 0;
}

static int clones(void)
{
	dl_iterate_phdr(learn, NULL);
	if (!nsmods)
		return 1;
	return run_one("fresh", 1) || run_one("copy", 2) || run_one("shared", 0) ||
	       run_one("vmproc", 1) || run_one("vmproc", 2);
}

/* The stream file's mappings past its header page in this process. */
static int stream_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long off = 0;
		if (strstr(line, "/memfd:pmuscope-alloc") && sscanf(line, "%*s %*s %lx", &off) == 1 &&
		    off)
			n++;
	}
	fclose(f);
	return n;
}

/* A thread sharing this one's TLS that makes 11 tracked blocks and frees
 * 10: "M TID" (tests/alloc/check_raw.py counts its reads of
 * /proc/self/maps under strace). */
static int maps(void)
{
	return run_one("maps", 0);
}

/* A fresh raw thread's first touch of a dlopen'ed module's __thread
 * buffer (its block allocated by the loader in that thread). */
static int rawdyn(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	size_t id = 0;
	if (!h || dlinfo(h, RTLD_DI_TLS_MODID, &id) != 0 ||
	    !(dyn_buf = (char *(*)(size_t *))dlsym(h, "alloc_tls_mod_buf")))
		return 1;
	dyn_base = mod_base(id, 0);
	dl_iterate_phdr(learn, NULL);
	return nsmods ? run_one("rawdyn", 1) : 1;
}

/* rawie: a "fresh" raw thread with no dtv and no self word allocates, then
 * waits; the main thread dlopens MODULE (initial-exec TLS: its block in the
 * static area's surplus) and allocates (a hook: its late blocks looked at);
 * the raw thread then touches its own block of the module's buffer and
 * allocates: "L TID LO HI MODBASE". */
static volatile int ie_go;
static char *(*ie_buf)(size_t *);

static int ie_main(void *arg)
{
	struct job *j = arg;
	char *volatile q = malloc(100000); /* its first hook: set up */
	free(q);
	while (!ie_go)
		sched_yield();
	j->dyn_lo = ie_buf(&j->dyn_n);
	memset(j->dyn_lo, 3, j->dyn_n);
	j->blk = malloc(100000); /* a hook after the module came */
	__asm__ volatile("" ::: "memory");
	return 0;
}

static int rawie(const char *path)
{
	dl_iterate_phdr(learn, NULL);
	if (!nsmods)
		return 1;
	tcb_noself = tcb_nodtv = 1;
	tls_extra = 4 * PG;
	struct job j;
	memset(&j, 0, sizeof(j));
	char *stack = guarded(STACK);
	uintptr_t tp = make_tls(0);
	if (!stack || !tp)
		return 1;
	j.ctid = 1;
	int fl = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
		 CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_SETTLS;
	if (clone(ie_main, stack + STACK, fl, &j, &j.tid, (void *)tp, (pid_t *)&j.ctid) <= 0)
		return 1;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	size_t id = 0;
	if (!h || dlinfo(h, RTLD_DI_TLS_MODID, &id) != 0 ||
	    !(ie_buf = (char *(*)(size_t *))dlsym(h, "alloc_tls_ie_buf"))) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		ie_go = 1;
		return 1;
	}
	void *volatile q = malloc(100000);
	free(q);
	ie_go = 1;
	while (j.ctid)
		syscall(SYS_futex, (pid_t *)&j.ctid, FUTEX_WAIT, j.ctid, NULL, NULL, 0);
	while (!gone(j.tid))
		sched_yield();
	if (!j.blk || !j.dyn_lo)
		return 1;
	fprintf(truth, "L %d %#lx %#lx %#lx\n", (int)j.tid, (unsigned long)j.dyn_lo,
		(unsigned long)(j.dyn_lo + j.dyn_n), (unsigned long)mod_base(id, 0));
	return 0;
}

/* The stream's mapping past its header that holds the 8-byte value v (a
 * record's address field) or, v 0, the address lo: its start; 0 none. */
static uintptr_t stream_map_with(uintptr_t v, uintptr_t lo)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uintptr_t got = 0;
	if (!f)
		return 0;
	while (!got && fgets(line, sizeof(line), f)) {
		unsigned long a, e, off = 0;
		if (!strstr(line, "/memfd:pmuscope-alloc") ||
		    sscanf(line, "%lx-%lx %*s %lx", &a, &e, &off) != 3 || !off)
			continue;
		if (!v) {
			got = lo >= a && lo < e ? a : 0;
			continue;
		}
		for (const uintptr_t *w = (const uintptr_t *)a; (uintptr_t)(w + 1) <= e; w++)
			if (*w == v) {
				got = a;
				break;
			}
	}
	fclose(f);
	return got;
}

/* A raw thread ends; the main thread then claims new chunks: "X N", N 1
 * when the raw thread's chunk is still mapped (no thread took it). */
static int reap(void)
{
	dl_iterate_phdr(learn, NULL);
	if (!nsmods || run_one("fresh", 1))
		return 1;
	uintptr_t raw = stream_map_with(last_blk, 0);
	if (!raw)
		return 1;
	for (int i = 0; i < 3000; i++) {
		void *volatile q = malloc(100000);
		free(q);
	}
	fprintf(truth, "X %d\n", stream_map_with(0, raw) != 0);
	return 0;
}

static int reuse(void)
{
	dl_iterate_phdr(learn, NULL);
	if (!nsmods)
		return 1;
	for (int i = 0; i < 8; i++)
		if (run_one("fresh", 1))
			return 1;
	fprintf(truth, "W %d\n", stream_maps());
	return 0;
}

#else
static int clones(void)
{
	return 77;
}

static int maps(void)
{
	return 77;
}

static int rawdyn(const char *path)
{
	(void)path;
	return 77;
}

static int rawie(const char *path)
{
	(void)path;
	return 77;
}

static int reuse(void)
{
	return 77;
}

static int reap(void)
{
	return 77;
}
#endif

/* ---- reload ---- */

/* A call of a hook that enters (the compiler may drop free(malloc(n))). */
static void hook_call(void)
{
	void *volatile q = malloc(64);
	free(q);
}

static int reload(char **paths)
{
	/* C: loaded late, before A, and kept */
	void *c = dlopen(paths[2], RTLD_NOW | RTLD_LOCAL), *a, *b;
	size_t ida = 0, idb = 0, idc = 0, n = 0, nc = 0;
	char *(*buf)(size_t *);
	if (!c || dlinfo(c, RTLD_DI_TLS_MODID, &idc) != 0 ||
	    !(buf = (char *(*)(size_t *))dlsym(c, "alloc_tls_mod_buf")))
		return 1;
	char *pc = buf(&nc); /* C's block, allocated here */
	memset(pc, 3, 4096);
	hook_call();
	a = dlopen(paths[0], RTLD_NOW | RTLD_LOCAL);
	if (!a || dlinfo(a, RTLD_DI_TLS_MODID, &ida) != 0 ||
	    !(buf = (char *(*)(size_t *))dlsym(a, "alloc_tls_mod_buf")))
		return 1;
	memset(buf(&n), 1, 4096);
	hook_call();
	if (dlclose(a) != 0 || !(b = dlopen(paths[1], RTLD_NOW | RTLD_LOCAL)) ||
	    dlinfo(b, RTLD_DI_TLS_MODID, &idb) != 0 ||
	    !(buf = (char *(*)(size_t *))dlsym(b, "alloc_tls_mod_buf")))
		return 1;
	fprintf(truth, "R %zu %zu\n", ida, idb);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	char *p = buf(&n); /* B's block, allocated here */
	memset(p, 2, 4096);
	hook_call();
	fprintf(truth, "L %ld %#lx %#lx %#lx %llu\n", (long)syscall(SYS_gettid), (unsigned long)p,
		(unsigned long)(p + n), (unsigned long)mod_base(idb, 0),
		(unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
	fprintf(truth, "U %ld %#lx %#lx %#lx\n", (long)syscall(SYS_gettid), (unsigned long)pc,
		(unsigned long)(pc + nc), (unsigned long)mod_base(idc, 0));
	return 0;
}

/* ---- mods ---- */

static char *(*mod_buf)(size_t *);
static uintptr_t last_base;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void *mod_touch(void *arg)
{
	(void)arg;
	size_t n = 0;
	char *b = mod_buf(&n); /* the block is allocated here (dynamic TLS) */
	memset(b, 1, 4096);
	hook_call(); /* a hook that enters: the late block is looked at */
	pthread_mutex_lock(&mu);
	fprintf(truth, "L %ld %#lx %#lx %#lx\n", (long)syscall(SYS_gettid), (unsigned long)b,
		(unsigned long)(b + n), (unsigned long)last_base);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static int mods(int n, char **paths)
{
	void *h = NULL;
	for (int i = 0; i < n; i++)
		if (!(h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL))) {
			fprintf(stderr, "dlopen %s: %s\n", paths[i], dlerror());
			return 1;
		}
	size_t id = 0;
	if (!h || dlinfo(h, RTLD_DI_TLS_MODID, &id) != 0 ||
	    !(mod_buf = (char *(*)(size_t *))dlsym(h, "alloc_tls_mod_buf")))
		return 1;
	last_base = mod_base(id, 0);
	fprintf(truth, "I %zu\n", id);
	mod_touch(NULL);
	pthread_t t;
	if (pthread_create(&t, NULL, mod_touch, NULL))
		return 1;
	pthread_join(t, NULL);
	return 0;
}

/* clock: tracked blocks (100,000 bytes) made and freed between reads of
 * CLOCK_MONOTONIC, 0.2 ms apart (the stream's calibration points come
 * every 0.5-2 ms), by the main thread and a pthread at once: "C ADDR T0 T1
 * T2 T3" with malloc between T0 and T1, free between T2 and T3. */
static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static pthread_mutex_t clock_mu = PTHREAD_MUTEX_INITIALIZER;

static void *clock_loop(void *arg)
{
	(void)arg;
	for (int i = 0; i < 150; i++) {
		uint64_t t0 = mono_ns();
		char *volatile p = malloc(100000);
		uint64_t t1 = mono_ns();
		if (!p)
			return (void *)1;
		p[0] = 1;
		struct timespec d = { 0, 200000 };
		nanosleep(&d, NULL);
		uint64_t t2 = mono_ns();
		free(p);
		uint64_t t3 = mono_ns();
		pthread_mutex_lock(&clock_mu);
		fprintf(truth, "C %#lx %llu %llu %llu %llu\n", (unsigned long)(uintptr_t)p,
			(unsigned long long)t0, (unsigned long long)t1, (unsigned long long)t2,
			(unsigned long long)t3);
		pthread_mutex_unlock(&clock_mu);
	}
	return NULL;
}

static int clock_times(void)
{
	pthread_t t;
	void *r1 = NULL;
	if (pthread_create(&t, NULL, clock_loop, NULL))
		return 1;
	void *r0 = clock_loop(NULL);
	pthread_join(t, &r1);
	return r0 || r1;
}

int main(int argc, char **argv)
{
	if (argc < 3 || !(truth = fopen(argv[1], "w")))
		return 2;
	int rc = !strcmp(argv[2], "clock")    ? clock_times()
		 : !strcmp(argv[2], "maps")     ? maps()
		 : !strcmp(argv[2], "rawie")    ? (argc == 4 ? rawie(argv[3]) : 2)
		 : !strcmp(argv[2], "rawdyn") ? (argc == 4 ? rawdyn(argv[3]) : 2)
		 : !strcmp(argv[2], "rawdyn_noself") ? (argc == 4 ? (tcb_noself = 1, rawdyn(argv[3])) : 2)
		 : !strcmp(argv[2], "clone")    ? clones()
		 : !strcmp(argv[2], "reuse")  ? reuse()
		 : !strcmp(argv[2], "reap")   ? reap()
		 : !strcmp(argv[2], "reload") ? (argc == 6 ? reload(argv + 3) : 2)
					      : mods(argc - 3, argv + 3);
	fclose(truth);
	return rc;
}
