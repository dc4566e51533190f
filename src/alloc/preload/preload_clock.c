/* The records' clock (preload_int.h, "the records' clock"): the
 * time-stamp counter where the kernel keeps CLOCK_MONOTONIC on it, with
 * calibration points in the stream for the reader (src/alloc/stream.c),
 * else CLOCK_MONOTONIC itself. */
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload_int.h"

bool clk_tsc;
_Atomic uint64_t clk_last;
static _Atomic uint64_t clk_narrow = UINT64_MAX / 2; /* the narrowest read's width */
#define CLK_TRIES 8
#define CLK_NEAR 64

PL_HOT uint64_t clk_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The kernel's clock source is the TSC: it found the counter constant and
 * the same on every CPU (else it would have left it), so one counter
 * serves every thread and process of the command. */
static bool clocksource_tsc(void)
{
	char b[16] = { 0 };
	long fd = syscall(SYS_openat, AT_FDCWD,
			  "/sys/devices/system/clocksource/clocksource0/current_clocksource",
			  O_RDONLY | O_CLOEXEC);
	if (sys_failed(fd))
		return false;
	long n = syscall(SYS_read, (int)fd, b, sizeof(b) - 1);
	syscall(SYS_close, (int)fd);
	return n == 4 && !memcmp(b, "tsc\n", 4);
}

void clk_init(const char *env)
{
#if defined(__x86_64__)
	clk_tsc = !(env && strstr(env, "clock=mono")) && clocksource_tsc();
#else
	(void)env; /* (aarch64's cntvct_el0 would serve as well: not done) */
	clk_tsc = false;
#endif
}

#if defined(__x86_64__)
/* The counter read after everything before it (the pair's reads). */
static inline uint64_t tsc_fenced(void)
{
	__builtin_ia32_lfence();
	return __builtin_ia32_rdtsc();
}
#endif

void clk_point(void)
{
#if defined(__x86_64__)
	if (!clk_tsc || out_fd < 0)
		return;
	/* the tightest of up to CLK_TRIES reads: a read is taken once it is
	 * within CLK_NEAR ticks of the narrowest one seen in this process (a
	 * read the hypervisor or the scheduler cut is wide, and its midpoint
	 * is as far from the clock's own read: on the loaded 2-CPU VM, 120 to
	 * 2,000 ticks wide, half of them past 500, when the first of 4 under
	 * 2,048 was taken) */
	uint64_t best = UINT64_MAX, tsc = 0, mono = 0;
	uint64_t near = atomic_load_explicit(&clk_narrow, memory_order_relaxed) + CLK_NEAR;
	for (int i = 0; i < CLK_TRIES && best > near; i++) {
		uint64_t t0 = tsc_fenced(), m = clk_mono_ns(), t1 = tsc_fenced();
		if (t1 - t0 < best) {
			best = t1 - t0;
			tsc = t0 + best / 2;
			mono = m;
		}
	}
	if (best < atomic_load_explicit(&clk_narrow, memory_order_relaxed))
		atomic_store_explicit(&clk_narrow, best, memory_order_relaxed);
	atomic_store_explicit(&clk_last, tsc, memory_order_relaxed);
	struct pms_alloc_rec r;
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.kind = PMS_ALLOC_CLOCK;
	r.pid = tl_pid;
	r.tid = tl_tid;
	r.time = mono;
	r.addr = tsc;
	r.bytes = best;
	emit(&r);
#endif
}

void clk_start(void)
{
#if defined(__x86_64__)
	if (!clk_tsc || out_fd < 0)
		return;
	/* (no chunk claimed yet: the command's first process) */
	bool first = atomic_load(&hdr[1]) == 0;
	clk_point();
	if (!first)
		return; /* the points of the processes before serve the slope */
	/* a second point a little later: two at least for the reader's slope,
	 * whatever the program does next (the wait paid once per command,
	 * not per exec) */
	uint64_t t0 = __builtin_ia32_rdtsc();
	while (__builtin_ia32_rdtsc() - t0 < CLK_SETTLE)
		__builtin_ia32_pause();
	clk_point();
#endif
}
