/* bedcheck: the in-guest half of the QEMU verification beds (tests/beds).
 *
 * Runs inside a QEMU guest booted from an initramfs, drives the kernel only
 * through pmuscope's seam (struct pms_sys ops: perf_event_open, ioctl, read,
 * mmap, move_pages, get_mempolicy; sysfs through pms_sys_read_*), and prints
 * one line per finding:  BED {"check":"...", ...}  which the host side
 * (beds.py) parses and asserts on.  bedcheck itself asserts nothing: it
 * reports what the kernel said, so a failure on the host shows the numbers.
 *
 * Test-only set-up that has no seam op (mbind, set_mempolicy, the
 * perf_user_access sysctl) is done here with plain syscalls/writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/mempolicy.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pmuscope/cpuset.h"
#include "pmuscope/error.h"
#include "pmuscope/pmu.h"
#include "pmuscope/ring.h"
#include "pmuscope/sampler.h"
#include "pmuscope/selfmon.h"
#include "pmuscope/sys.h"
#include "pmuscope/topo.h"

static struct pms_sys *S;
static const struct pms_sys_ops *OPS;
static long PSZ;

/* ---- output ------------------------------------------------------------ */

static void jstr(const char *key, const char *v)
{
	printf(",\"%s\":\"", key);
	for (const unsigned char *p = (const unsigned char *)(v ? v : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static void jint(const char *key, long long v)
{
	printf(",\"%s\":%lld", key, v);
}

static void ju64(const char *key, uint64_t v)
{
	printf(",\"%s\":%" PRIu64, key, v);
}

static void begin(const char *check)
{
	printf("BED {\"check\":\"%s\"", check);
}

static void end(void)
{
	printf("}\n");
	fflush(stdout);
}

/* A failed set-up step: reported as its own finding, the check goes on. */
static void report_error(const char *check, const char *what, int code)
{
	begin("error");
	jstr("in", check);
	jstr("what", what);
	jint("code", code);
	jstr("message", code < 0 ? pms_error_last() : strerror(errno));
	end();
}

static char *read_line_or_empty(const char *rel)
{
	char *s = NULL;
	if (pms_sys_read_line(S, rel, &s) < 0)
		return strdup("");
	return s;
}

/* ---- sysfs: what QEMU gave the guest (ground truth for the host) --------- */

static uint64_t node_mem_kb(int node)
{
	char path[96], *text = NULL, *p;
	uint64_t kb = 0;

	snprintf(path, sizeof(path), "sys/devices/system/node/node%d/meminfo", node);
	if (pms_sys_read_file(S, path, &text, NULL) < 0)
		return 0;
	p = strstr(text, "MemTotal:");
	if (p)
		kb = strtoull(p + strlen("MemTotal:"), NULL, 10);
	free(text);
	return kb;
}

static int cmd_sysfs(void)
{
	static const char *const lists[] = { "online", "possible", "has_cpu", "has_memory" };
	char **names = NULL;
	size_t n = 0;
	int ret;

	begin("sysfs_nodes");
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		char path[64], *v;
		snprintf(path, sizeof(path), "sys/devices/system/node/%s", lists[i]);
		v = read_line_or_empty(path);
		jstr(lists[i], v);
		free(v);
	}
	end();

	ret = pms_sys_list_dir(S, "sys/devices/system/node", &names, &n);
	if (ret < 0) {
		report_error("sysfs", "list sys/devices/system/node", ret);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		char path[96], *cpus, *dist;
		int node;
		char tail;
		if (sscanf(names[i], "node%d%c", &node, &tail) != 1)
			continue;
		snprintf(path, sizeof(path), "sys/devices/system/node/%s/cpulist", names[i]);
		cpus = read_line_or_empty(path);
		snprintf(path, sizeof(path), "sys/devices/system/node/%s/distance", names[i]);
		dist = read_line_or_empty(path);
		begin("sysfs_node");
		jint("node", node);
		jstr("cpulist", cpus);
		jstr("distance", dist);
		ju64("mem_kb", node_mem_kb(node));
		end();
		free(cpus);
		free(dist);
	}
	pms_sys_names_free(names, n);
	return 0;
}

/* ---- NUMA: bind pages to each node, classify every page ------------------ */

static struct pms_topo *TOPO;

/* The library's physical-address oracle: pagemap gives the page's frame
 * (root only; bit 63 present, bits 0-54 PFN, Documentation/admin-guide/mm/
 * pagemap.rst), pms_topo_node_of_phys() its node from the memory blocks. */
static int phys_node(int pagemap, void *page, uint64_t *paddr)
{
	uint64_t e = 0;
	off_t off = (off_t)((uintptr_t)page / (uintptr_t)PSZ) * 8;

	*paddr = 0;
	if (pread(pagemap, &e, sizeof(e), off) != (ssize_t)sizeof(e))
		return -1000 - errno;
	if (!(e >> 63) || !(e & ((1ULL << 55) - 1)))
		return -2000; /* not present, or the PFN is hidden (not root) */
	*paddr = (e & ((1ULL << 55) - 1)) * (uint64_t)PSZ;
	return pms_topo_node_of_phys(TOPO, *paddr);
}

/* How many of the pages the two seam oracles and the library's phys oracle
 * place on `want`. */
static void classify(void **pages, unsigned long n, int want, unsigned long *mp_ok,
		     unsigned long *gm_ok, int *mp_first_bad, int *gm_first_bad,
		     unsigned long *ph_ok, long long *ph_first_bad)
{
	int *status = calloc(n, sizeof(int));
	int pagemap = open("/proc/self/pagemap", O_RDONLY);
	long r;

	*mp_ok = *gm_ok = *ph_ok = 0;
	*mp_first_bad = *gm_first_bad = -1000;
	*ph_first_bad = -1000;
	for (unsigned long i = 0; TOPO && pagemap >= 0 && i < n; i++) {
		uint64_t pa;
		int node = phys_node(pagemap, pages[i], &pa);
		if (node == want)
			(*ph_ok)++;
		else if (*ph_first_bad == -1000)
			*ph_first_bad = node < 0 ? node : (long long)pa;
	}
	if (pagemap >= 0)
		close(pagemap);
	if (!status)
		return;
	/* nodes == NULL: move_pages only reports where each page is. */
	r = OPS->move_pages(OPS->ud, 0, n, pages, NULL, status, 0);
	for (unsigned long i = 0; r >= 0 && i < n; i++) {
		if (status[i] == want)
			(*mp_ok)++;
		else if (*mp_first_bad == -1000)
			*mp_first_bad = status[i];
	}
	if (r < 0)
		*mp_first_bad = (int)r;
	for (unsigned long i = 0; i < n; i++) {
		int node = -1;
		r = OPS->get_mempolicy(OPS->ud, &node, NULL, 0, pages[i],
				       MPOL_F_NODE | MPOL_F_ADDR);
		if (r >= 0 && node == want)
			(*gm_ok)++;
		else if (*gm_first_bad == -1000)
			*gm_first_bad = r < 0 ? (int)r : node;
	}
	free(status);
}

static void report_numa(const char *how, int from, int node, unsigned long n, void **pages,
			long moved)
{
	unsigned long mp_ok, gm_ok, ph_ok;
	int mp_bad, gm_bad;
	long long ph_bad;

	classify(pages, n, node, &mp_ok, &gm_ok, &mp_bad, &gm_bad, &ph_ok, &ph_bad);
	begin("numa");
	jstr("how", how);
	jint("from", from);
	jint("node", node);
	jint("pages", (long long)n);
	if (moved >= -1)
		jint("moved", moved);
	jint("move_pages", (long long)mp_ok);
	jint("get_mempolicy", (long long)gm_ok);
	if (mp_ok != n)
		jint("move_pages_first_bad", mp_bad);
	if (gm_ok != n)
		jint("get_mempolicy_first_bad", gm_bad);
	jint("phys_oracle", TOPO ? (long long)ph_ok : -1);
	if (TOPO && ph_ok != n)
		jint("phys_oracle_first_bad", ph_bad);
	end();
}

static void *map_pages(unsigned long n, void **pages)
{
	char *buf = mmap(NULL, n * PSZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (buf == MAP_FAILED)
		return NULL;
	/* One node per 4 KiB page is what is checked: keep THP out of it. */
	madvise(buf, n * PSZ, MADV_NOHUGEPAGE);
	for (unsigned long i = 0; i < n; i++)
		pages[i] = buf + i * PSZ;
	return buf;
}

static void touch(void *buf, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		((volatile char *)buf)[i * PSZ] = (char)i;
}

static int cmd_numa(unsigned long n)
{
	struct pms_cpuset mem = { 0 };
	char *has_memory = read_line_or_empty("sys/devices/system/node/has_memory");
	void **pages = calloc(n, sizeof(void *));
	int *target = calloc(n, sizeof(int));
	int *status = calloc(n, sizeof(int));
	int ret = pms_cpuset_parse_list(&mem, has_memory);
	int rc = 0;

	if (ret < 0 || !pages || !target || !status) {
		report_error("numa", "parse has_memory", ret);
		rc = 1;
		goto out;
	}
	ret = pms_topo_load(S, &TOPO);
	if (ret < 0) {
		report_error("numa", "pms_topo_load", ret);
		rc = 1;
	}
	for (int node = pms_cpuset_first(&mem); node >= 0; node = pms_cpuset_next(&mem, node + 1)) {
		unsigned long mask;
		int to = pms_cpuset_next(&mem, node + 1);
		char *buf;
		long r;

		if (node >= 64) /* one-word node masks are plenty for a guest */
			break;
		mask = 1UL << node;
		if (to < 0)
			to = pms_cpuset_first(&mem);

		/* mbind(MPOL_BIND) on a fresh range, then first touch. */
		buf = map_pages(n, pages);
		if (!buf) {
			report_error("numa", "mmap", 0);
			rc = 1;
			goto out;
		}
		r = syscall(SYS_mbind, buf, n * PSZ, MPOL_BIND, &mask, 65UL, 0U);
		if (r < 0)
			report_error("numa", "mbind(MPOL_BIND)", 0);
		touch(buf, n);
		report_numa("mbind", node, node, n, pages, -2);

		/* Drop the binding, then migrate every page to the next node. */
		syscall(SYS_mbind, buf, n * PSZ, MPOL_DEFAULT, NULL, 0UL, 0U);
		for (unsigned long i = 0; i < n; i++)
			target[i] = to;
		r = OPS->move_pages(OPS->ud, 0, n, pages, target, status, MPOL_MF_MOVE);
		{
			long moved = 0;
			for (unsigned long i = 0; r >= 0 && i < n; i++)
				moved += status[i] == to;
			report_numa("move_pages", node, to, n, pages, r < 0 ? r : moved);
		}
		munmap(buf, n * PSZ);

		/* set_mempolicy(MPOL_BIND) for the task, then first touch. */
		r = syscall(SYS_set_mempolicy, MPOL_BIND, &mask, 65UL);
		if (r < 0)
			report_error("numa", "set_mempolicy(MPOL_BIND)", 0);
		buf = map_pages(n, pages);
		if (buf)
			touch(buf, n);
		syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0UL);
		if (!buf) {
			report_error("numa", "mmap", 0);
			rc = 1;
			goto out;
		}
		report_numa("set_mempolicy", node, node, n, pages, -2);
		munmap(buf, n * PSZ);
	}
out:
	pms_topo_free(TOPO);
	TOPO = NULL;
	pms_cpuset_fini(&mem);
	free(has_memory);
	free(pages);
	free(target);
	free(status);
	return rc;
}

/* ---- software-event sampler: page faults with data addresses ------------- */

struct sw_ctx {
	uintptr_t lo, hi;
	unsigned char *seen;
	unsigned long samples, inside, pid_ok, other;
	uint32_t pid;
};

/* sample_type IP|TID|ADDR: header, ip, pid, tid, addr (kernel/events/core.c
 * perf_output_sample writes the fields in PERF_SAMPLE_* bit order). */
static int sw_cb(void *ud, const void *rec, size_t len)
{
	struct sw_ctx *c = ud;
	struct perf_event_header h;
	uint64_t addr;
	uint32_t pid;

	memcpy(&h, rec, sizeof(h));
	if (h.type != PERF_RECORD_SAMPLE || len < sizeof(h) + 24) {
		c->other++;
		return 0;
	}
	memcpy(&pid, (const char *)rec + 16, sizeof(pid));
	memcpy(&addr, (const char *)rec + 24, sizeof(addr));
	c->samples++;
	if (pid == c->pid)
		c->pid_ok++;
	if (addr >= c->lo && addr < c->hi) {
		c->inside++;
		c->seen[(addr - c->lo) / PSZ] = 1;
	}
	return 0;
}

static int cmd_swsample(unsigned long n)
{
	struct perf_event_attr a;
	struct pms_ring *ring = NULL;
	struct sw_ctx c = { 0 };
	unsigned long seen = 0;
	char *buf;
	int fd, ret, drained;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = pms_sys_perf_event_open(S, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, "page-faults");
	if (fd < 0) {
		report_error("swsample", "perf_event_open", fd);
		return 1;
	}
	ret = pms_ring_open(S, fd, 16, &ring);
	if (ret < 0) {
		report_error("swsample", "pms_ring_open", ret);
		return 1;
	}
	buf = mmap(NULL, n * PSZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	c.seen = calloc(n, 1);
	if (buf == MAP_FAILED || !c.seen) {
		report_error("swsample", "mmap", 0);
		return 1;
	}
	madvise(buf, n * PSZ, MADV_NOHUGEPAGE);
	c.lo = (uintptr_t)buf;
	c.hi = c.lo + n * PSZ;
	c.pid = (uint32_t)getpid();
	OPS->ioctl(OPS->ud, fd, PERF_EVENT_IOC_ENABLE, 0);
	touch(buf, n);
	OPS->ioctl(OPS->ud, fd, PERF_EVENT_IOC_DISABLE, 0);
	drained = pms_ring_drain(ring, sw_cb, &c);
	for (unsigned long i = 0; i < n; i++)
		seen += c.seen[i];
	begin("swsample");
	jint("pages", (long long)n);
	jint("drained", drained);
	ju64("samples", c.samples);
	ju64("inside", c.inside);
	ju64("pages_seen", seen);
	ju64("pid_ok", c.pid_ok);
	ju64("other_records", c.other);
	end();
	pms_ring_free(ring);
	OPS->close(OPS->ud, fd);
	munmap(buf, n * PSZ);
	free(c.seen);
	return 0;
}

/* ---- the library's memory sampler (engine ladder, software fallback) ----- */

struct ms_ctx {
	uintptr_t lo, hi;
	unsigned char *seen;
	unsigned long samples, with_addr, inside, our_pid, engine_ok;
	uint32_t pid;
};

static int ms_cb(void *ud, const struct pms_memsample *m)
{
	struct ms_ctx *c = ud;
	c->samples++;
	if (m->engine == PMS_ENG_SOFTWARE)
		c->engine_ok++;
	if ((m->valid & PMS_MS_TID) && m->pid == c->pid)
		c->our_pid++;
	if (!(m->valid & PMS_MS_ADDR))
		return 0;
	c->with_addr++;
	if (m->addr >= c->lo && m->addr < c->hi) {
		c->inside++;
		c->seen[(m->addr - c->lo) / PSZ] = 1;
	}
	return 0;
}

/* pms_sampler on this process: no IBS, PEBS or SPE in a TCG guest, so the
 * ladder must end in the labelled software fallback, and its samples must
 * carry the data addresses of the pages touched. */
static int cmd_sampler(unsigned long n)
{
	struct pms_pmus *pmus = NULL;
	struct pms_topo *topo = NULL;
	struct pms_sampler *sm = NULL;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler_callbacks cb = { ms_cb, NULL };
	struct pms_sampler_info info;
	struct pms_sampler_stats st;
	const struct pms_sampler_attempt *att;
	struct ms_ctx c = { 0 };
	size_t natt = 0;
	unsigned long seen = 0;
	char *buf = MAP_FAILED;
	int ret, rc = 1, polls = 0;

	if ((ret = pms_pmus_load(S, &pmus)) < 0) {
		report_error("sampler", "pms_pmus_load", ret);
		goto out;
	}
	if ((ret = pms_topo_load(S, &topo)) < 0) {
		report_error("sampler", "pms_topo_load", ret);
		goto out;
	}
	o.target = PMS_TARGET_PID;
	o.pid = getpid();
	o.period = 1;
	o.priv = PMS_PRIV_USER;
	if ((ret = pms_sampler_open(S, pmus, topo, &o, &sm)) < 0) {
		report_error("sampler", "pms_sampler_open", ret);
		goto out;
	}
	att = pms_sampler_attempts(sm, &natt);
	for (size_t i = 0; i < natt; i++) {
		begin("sampler_attempt");
		jint("engine", att[i].engine);
		jstr("pmu", att[i].pmu);
		jint("err", att[i].err);
		jint("chosen", att[i].chosen);
		jstr("reason", att[i].reason);
		end();
	}
	buf = mmap(NULL, n * PSZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	c.seen = calloc(n, 1);
	if (buf == MAP_FAILED || !c.seen) {
		report_error("sampler", "mmap", 0);
		goto out;
	}
	madvise(buf, n * PSZ, MADV_NOHUGEPAGE);
	c.lo = (uintptr_t)buf;
	c.hi = c.lo + n * PSZ;
	c.pid = (uint32_t)getpid();
	if ((ret = pms_sampler_enable(sm)) < 0) {
		report_error("sampler", "pms_sampler_enable", ret);
		goto out;
	}
	touch(buf, n);
	pms_sampler_disable(sm);
	/* Drain until a poll finds nothing more. */
	while (polls < 100 && (ret = pms_sampler_poll(sm, 0, &cb, &c)) > 0)
		polls++;
	if (ret < 0)
		report_error("sampler", "pms_sampler_poll", ret);
	pms_sampler_info(sm, &info);
	pms_sampler_stats(sm, &st);
	for (unsigned long i = 0; i < n; i++)
		seen += c.seen[i];
	begin("sampler");
	jint("engine", info.engine);
	jstr("engine_label", pms_engine_label(info.engine));
	jstr("label", info.label);
	jstr("pmus", info.pmus);
	jint("data_src", info.data_src);
	jint("streams", (long long)info.nstreams);
	jint("pages", (long long)n);
	ju64("samples", c.samples);
	ju64("engine_ok", c.engine_ok);
	ju64("our_pid", c.our_pid);
	ju64("with_addr", c.with_addr);
	ju64("inside", c.inside);
	ju64("pages_seen", seen);
	ju64("lost", st.lost);
	ju64("parse_errors", st.parse_errors);
	ju64("corrupt_bytes", st.corrupt_bytes);
	end();
	rc = ret < 0;
out:
	if (buf != MAP_FAILED)
		munmap(buf, n * PSZ);
	free(c.seen);
	pms_sampler_free(sm);
	pms_topo_free(topo);
	pms_pmus_free(pmus);
	return rc;
}

/* ---- ARM PMUv3 counting ------------------------------------------------- */

/* A loop of exactly 2 instructions per iteration at EL0. */
static __attribute__((noinline)) void work(unsigned long iters)
{
#if defined(__aarch64__)
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(iters) : : "cc");
#elif defined(__x86_64__)
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(iters) : : "cc");
#else
	for (volatile unsigned long i = 0; i < iters; i++)
		;
#endif
}

#define PMU_DIR "sys/bus/event_source/devices/armv8_pmuv3"

static int pmu_type(uint64_t *type)
{
	int ret = pms_sys_read_u64(S, PMU_DIR "/type", type);
	if (ret < 0)
		report_error("pmu", "read " PMU_DIR "/type", ret);
	return ret;
}

/* Everything the PMU directory says, for the host to compare `pmuscope list`
 * against. */
static int cmd_pmusysfs(void)
{
	static const char *const subdirs[] = { "format", "events", "caps" };
	uint64_t type;
	char *cpus;

	if (pmu_type(&type) < 0)
		return 1;
	cpus = read_line_or_empty(PMU_DIR "/cpus");
	begin("pmu_sysfs");
	jstr("name", "armv8_pmuv3");
	ju64("type", type);
	jstr("cpus", cpus);
	end();
	free(cpus);
	for (size_t d = 0; d < sizeof(subdirs) / sizeof(subdirs[0]); d++) {
		char path[128], **names = NULL;
		size_t n = 0;
		snprintf(path, sizeof(path), PMU_DIR "/%s", subdirs[d]);
		if (pms_sys_list_dir(S, path, &names, &n) < 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			char file[256], *v;
			snprintf(file, sizeof(file), "%s/%s", path, names[i]);
			v = read_line_or_empty(file);
			begin("pmu_sysfs_entry");
			jstr("dir", subdirs[d]);
			jstr("name", names[i]);
			jstr("value", v);
			end();
			free(v);
		}
		pms_sys_names_free(names, n);
	}
	return 0;
}

static void attr_init(struct perf_event_attr *a, uint32_t type, uint64_t config,
		      uint64_t config1)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->config1 = config1;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

static const struct {
	const char *name;
	uint64_t config; /* ARMv8 common event number (arch/arm64/kernel/perf_event.c) */
} a64_events[] = {
	{ "cpu_cycles", 0x11 },
	{ "inst_retired", 0x08 },
};

static int count_one(uint32_t type, uint64_t config, unsigned long iters, uint64_t v[3])
{
	struct perf_event_attr a;
	int fd;
	ssize_t r;

	attr_init(&a, type, config, 0);
	fd = pms_sys_perf_event_open(S, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, "count");
	if (fd < 0)
		return fd;
	OPS->ioctl(OPS->ud, fd, PERF_EVENT_IOC_RESET, 0);
	OPS->ioctl(OPS->ud, fd, PERF_EVENT_IOC_ENABLE, 0);
	work(iters);
	OPS->ioctl(OPS->ud, fd, PERF_EVENT_IOC_DISABLE, 0);
	r = OPS->read(OPS->ud, fd, v, 3 * sizeof(uint64_t));
	OPS->close(OPS->ud, fd);
	return r == 3 * sizeof(uint64_t) ? 0 : (int)(r < 0 ? r : -EIO);
}

static int cmd_count(unsigned long iters)
{
	uint64_t type;
	int rc = 0;

	if (pmu_type(&type) < 0)
		return 1;
	for (size_t e = 0; e < sizeof(a64_events) / sizeof(a64_events[0]); e++) {
		for (unsigned long mult = 1; mult <= 2; mult++) {
			uint64_t v[3];
			int r = count_one((uint32_t)type, a64_events[e].config, iters * mult, v);
			begin("count");
			jstr("event", a64_events[e].name);
			ju64("type", type);
			ju64("config", a64_events[e].config);
			jint("iters", (long long)(iters * mult));
			jint("insns_in_loop", (long long)(2 * iters * mult));
			jint("rc", r);
			if (r == 0) {
				ju64("value", v[0]);
				ju64("enabled", v[1]);
				ju64("running", v[2]);
			} else {
				jstr("message", pms_error_last());
				rc = 1;
			}
			end();
		}
	}

	/* A {cycles, instructions} group read in one read(). */
	{
		struct perf_event_attr a;
		uint64_t v[5] = { 0 };
		int lead, mem;
		ssize_t r = -1;

		attr_init(&a, (uint32_t)type, 0x11, 0);
		a.read_format |= PERF_FORMAT_GROUP;
		lead = pms_sys_perf_event_open(S, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, "group leader");
		attr_init(&a, (uint32_t)type, 0x08, 0);
		a.read_format |= PERF_FORMAT_GROUP;
		a.disabled = 0;
		mem = lead < 0 ? -1
			       : pms_sys_perf_event_open(S, &a, 0, -1, lead, PERF_FLAG_FD_CLOEXEC,
							 "group member");
		if (lead >= 0 && mem >= 0) {
			OPS->ioctl(OPS->ud, lead, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
			OPS->ioctl(OPS->ud, lead, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
			work(iters);
			OPS->ioctl(OPS->ud, lead, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
			r = OPS->read(OPS->ud, lead, v, sizeof(v));
		}
		begin("group");
		jint("iters", (long long)iters);
		jint("insns_in_loop", (long long)(2 * iters));
		jint("bytes", (long long)r);
		if (r == (ssize_t)sizeof(v)) {
			ju64("nr", v[0]);
			ju64("enabled", v[1]);
			ju64("running", v[2]);
			ju64("cpu_cycles", v[3]);
			ju64("inst_retired", v[4]);
		} else {
			jstr("message", pms_error_last());
			rc = 1;
		}
		end();
		if (mem >= 0)
			OPS->close(OPS->ud, mem);
		if (lead >= 0)
			OPS->close(OPS->ud, lead);
	}
	return rc;
}

/* ---- arm64 user-space counter reads (perf_user_access, config1 rdpmc) ---- */

static sigjmp_buf sigill_jmp;

static void on_sigill(int sig)
{
	siglongjmp(sigill_jmp, sig);
}

#if defined(__aarch64__)
/* PMEVCNTR<n>_EL0 / PMCCNTR_EL0: the register is part of the instruction, so
 * one case per counter.  The kernel's user index - 1 is the counter number,
 * 31 meaning the cycle counter (arch/arm64/kernel/perf_event.c,
 * armv8pmu_user_event_idx: ARMV8_IDX_CYCLE_COUNTER_USER = 32). */
#define RDCNT(n)                                                              \
	case n:                                                               \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v));     \
		break;
static uint64_t read_counter(unsigned idx)
{
	uint64_t v = 0;
	switch (idx) {
	RDCNT(0) RDCNT(1) RDCNT(2) RDCNT(3) RDCNT(4) RDCNT(5) RDCNT(6) RDCNT(7)
	RDCNT(8) RDCNT(9) RDCNT(10) RDCNT(11) RDCNT(12) RDCNT(13) RDCNT(14)
	RDCNT(15) RDCNT(16) RDCNT(17) RDCNT(18) RDCNT(19) RDCNT(20) RDCNT(21)
	RDCNT(22) RDCNT(23) RDCNT(24) RDCNT(25) RDCNT(26) RDCNT(27) RDCNT(28)
	RDCNT(29) RDCNT(30)
	case 31:
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	}
	return v;
}
#define HAVE_READ_COUNTER 1
#endif

struct self_read {
	uint32_t index;
	uint16_t width;
	int cap_user_rdpmc;
	uint64_t value;
	int used_counter;
};

/* The user page seqlock (kernel-abi-facts.md §1.3): retry while `lock`
 * changes; add the sign-extended counter to `offset` when index != 0. */
static void self_read(volatile struct perf_event_mmap_page *pc, struct self_read *out)
{
	uint32_t seq;
	do {
		seq = pc->lock;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		out->index = pc->index;
		out->width = pc->pmc_width;
		out->cap_user_rdpmc = (int)pc->cap_user_rdpmc;
		out->value = (uint64_t)pc->offset;
		out->used_counter = 0;
#ifdef HAVE_READ_COUNTER
		if (out->cap_user_rdpmc && out->index && out->width && out->width <= 64) {
			uint64_t raw = read_counter(out->index - 1);
			unsigned sh = 64u - out->width;
			out->value += (uint64_t)((int64_t)(raw << sh) >> sh);
			out->used_counter = 1;
		}
#endif
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	} while (pc->lock != seq);
}

/* The config1 bit of a one-bit PMU format term ("rdpmc" = "config1:1",
 * "long" = "config1:0"), -1 when absent. */
static int config1_bit(const char *term)
{
	char path[128], *v;
	snprintf(path, sizeof(path), PMU_DIR "/format/%s", term);
	v = read_line_or_empty(path);
	int bit = -1;
	if (sscanf(v, "config1:%d", &bit) != 1)
		bit = -1;
	free(v);
	return bit;
}

static int set_user_access(const char *v, char *old, size_t oldsz)
{
	int fd = open("/proc/sys/kernel/perf_user_access", O_RDWR);
	ssize_t r;
	if (fd < 0)
		return -errno;
	r = read(fd, old, oldsz - 1);
	old[r > 0 ? r : 0] = '\0';
	old[strcspn(old, "\n")] = '\0';
	r = pwrite(fd, v, strlen(v), 0);
	close(fd);
	return r < 0 ? -errno : 0;
}

static void userread_one(uint32_t type, const char *name, uint64_t config,
			 uint64_t config1, int is_long, const char *sysctl, unsigned long iters)
{
	struct perf_event_attr a;
	struct self_read sr = { 0 };
	uint64_t v[3] = { 0 }, v0[3] = { 0 };
	void *page = NULL;
	int fd, mr, sig = 0;
	ssize_t r = -1, r0 = -1;

	attr_init(&a, type, config, config1);
	fd = pms_sys_perf_event_open(S, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, name);
	begin("userread");
	jstr("event", name);
	jint("long", is_long);
	jstr("sysctl", sysctl);
	ju64("config1", a.config1);
	jint("iters", (long long)iters);
	if (fd < 0) {
		jint("rc", fd);
		jstr("message", pms_error_last());
		end();
		return;
	}
	mr = OPS->mmap(OPS->ud, (size_t)PSZ, PROT_READ, MAP_SHARED, fd, 0, &page);
	if (mr < 0) {
		jint("rc", mr);
		jstr("message", "mmap of the user page failed");
		end();
		OPS->close(OPS->ud, fd);
		return;
	}
	OPS->ioctl(OPS->ud, fd, PERF_EVENT_IOC_RESET, 0);
	OPS->ioctl(OPS->ud, fd, PERF_EVENT_IOC_ENABLE, 0);
	work(iters);
	/* read() before and after the EL0 read: a correct self-read lies
	 * between them whatever the clock does (TCG cycles follow host time). */
	r0 = OPS->read(OPS->ud, fd, v0, sizeof(v0));
	sig = sigsetjmp(sigill_jmp, 1);
	if (!sig)
		self_read(page, &sr);
	r = OPS->read(OPS->ud, fd, v, sizeof(v));
	OPS->ioctl(OPS->ud, fd, PERF_EVENT_IOC_DISABLE, 0);
	jint("rc", 0);
	jint("cap_user_rdpmc", sr.cap_user_rdpmc);
	jint("index", sr.index);
	jint("pmc_width", sr.width);
	jint("used_counter", sr.used_counter);
	jint("signal", sig);
	ju64("self", sr.value);
	jint("read_rc", (long long)(r0 < 0 ? r0 : r));
	ju64("read_before", v0[0]);
	ju64("read", v[0]);
	end();
	OPS->munmap(OPS->ud, page, (size_t)PSZ);
	OPS->close(OPS->ud, fd);
}

static int cmd_userread(unsigned long iters)
{
	uint64_t type;
	char old[32] = "";
	int bit = config1_bit("rdpmc");
	int long_bit = config1_bit("long");
	int r;
	struct sigaction sa;

	if (pmu_type(&type) < 0)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigill;
	sigaction(SIGILL, &sa, NULL);
	for (int on = 1; on >= 0; on--) {
		const char *want = on ? "1" : "0";
		r = set_user_access(want, old, sizeof(old));
		begin("user_access_sysctl");
		jstr("set", want);
		jstr("was", old);
		jint("rc", r);
		jint("rdpmc_bit", bit);
		end();
		uint64_t rd = bit >= 0 ? 1ULL << bit : 0;
		for (size_t e = 0; e < sizeof(a64_events) / sizeof(a64_events[0]); e++) {
			userread_one((uint32_t)type, a64_events[e].name, a64_events[e].config, rd,
				     0, r < 0 ? "missing" : want, iters);
			/* 64-bit counters (format "long"): pmc_width 64 when granted. */
			if (long_bit >= 0)
				userread_one((uint32_t)type, a64_events[e].name,
					     a64_events[e].config, rd | 1ULL << long_bit, 1,
					     r < 0 ? "missing" : want, iters);
		}
	}
	return 0;
}

/* ---- the library's self-monitoring read (pms_selfmon) -------------------- */

/* pms_selfmon on the events the raw userread check reads by hand: with
 * perf_user_access=1 the value must come from the user page (PMS_PATH_USER),
 * with 0 through read().  Each value is bracketed by read()s of the same fd
 * so the host can compare them; the loop before it has a known length. */
static void selfmon_report(struct pms_selfmon *sm, size_t i, const char *sysctl, const char *width,
			   const char *phase, unsigned long iters,
			   const struct pms_selfmon_value *v0, int rc,
			   const struct pms_selfmon_value *v, ssize_t n, uint64_t r0, uint64_t r1)
{
	const struct perf_event_mmap_page *pc = pms_selfmon_page(sm, i);
	begin("selfmon");
	jstr("sysctl", sysctl);
	jstr("width", width);
	jstr("phase", phase);
	jstr("event", pms_selfmon_name(sm, i));
	jint("rc", rc);
	jint("iters", (long long)iters);
	jint("insns_in_loop", (long long)(2 * iters));
	jint("arm64_access", pms_selfmon_arm64_access(sm, i));
	jint("arm64_long", pms_selfmon_arm64_long(sm, i));
	jint("pmc_width", pc && (pc->capabilities & (1ULL << 2)) ? pc->pmc_width : 0);
	jstr("path", pms_read_path_name(v->path));
	jstr("why", pms_selfmon_why_name(v->why));
	ju64("start", v0 ? v0->value : 0);
	ju64("value", v->value);
	ju64("enabled", v->enabled);
	ju64("running", v->running);
	jint("retries", v->retries);
	jint("read_rc", (long long)n);
	ju64("read_before", r0);
	ju64("read", r1);
	end();
}

/* width "64": the library's default (arm64 user access with "long" where
 * the PMU has 64-bit counters); "32": opts.no_arm64_long, the 32-bit
 * counters whose user page Linux 6.1 got wrong after a reset of a running
 * event.  Without icount events/ has no inst_retired alias (PMCEID); the
 * library's built-in ARM PMUv3 table resolves the name. */
static void selfmon_one(const struct pms_pmus *pmus, const char *events, const char *sysctl,
			bool width32, unsigned long iters)
{
	struct pms_selfmon_opts o = PMS_SELFMON_OPTS_INIT;
	struct pms_selfmon *sm = NULL;
	const char *width = width32 ? "32" : "64";
	int r;

	o.no_arm64_long = width32;
	r = pms_selfmon_open(S, pmus, events, &o, &sm);
	begin("selfmon_open");
	jstr("events", events);
	jstr("sysctl", sysctl);
	jstr("width", width);
	jint("rc", r);
	jstr("message", r < 0 ? pms_error_last() : "");
	end();
	if (r < 0)
		return;
	size_t nc = pms_selfmon_count(sm);
	struct pms_selfmon_value v0[8] = { 0 };
	int rc0[8] = { 0 };

	if (nc > 8)
		nc = 8;
	/* Opened enabled, no reset yet: each user page is as the kernel set it
	 * when the counter was scheduled in. */
	for (size_t i = 0; i < nc; i++)
		rc0[i] = pms_selfmon_read(sm, i, &v0[i]);
	work(iters);
	for (size_t i = 0; i < nc; i++) {
		struct pms_selfmon_value v = { 0 };
		uint64_t rv[3] = { 0 }, r0;
		int fd = pms_selfmon_fd(sm, i);
		int rc = rc0[i];
		ssize_t n = OPS->read(OPS->ud, fd, rv, sizeof(rv));

		r0 = rv[0];
		if (rc >= 0)
			rc = pms_selfmon_read(sm, i, &v);
		if (n >= 0)
			n = OPS->read(OPS->ud, fd, rv, sizeof(rv));
		selfmon_report(sm, i, sysctl, width, "open", iters, &v0[i], rc, &v, n, r0, rv[0]);
	}
	/* pms_selfmon_reset on the running counters, then the same loop again:
	 * the value must again lie between read()s and count the loop. */
	int rrc = pms_selfmon_reset(sm);
	work(iters);
	for (size_t i = 0; i < nc; i++) {
		struct pms_selfmon_value v = { 0 };
		uint64_t rv[3] = { 0 }, r0;
		int fd = pms_selfmon_fd(sm, i);
		int rc = rrc;
		ssize_t n = OPS->read(OPS->ud, fd, rv, sizeof(rv));

		r0 = rv[0];
		if (rc >= 0)
			rc = pms_selfmon_read(sm, i, &v);
		if (n >= 0)
			n = OPS->read(OPS->ud, fd, rv, sizeof(rv));
		selfmon_report(sm, i, sysctl, width, "after_reset", iters, NULL, rc, &v, n, r0, rv[0]);
	}
	pms_selfmon_free(sm);
}

static int cmd_selfmon(unsigned long iters)
{
	/* :u keeps the syscalls between the reads out of the counts. */
	static const char *const events = "cpu_cycles:u,inst_retired:u";
	struct pms_pmus *pmus = NULL;
	char old[32] = "";

	if (pms_pmus_load(S, &pmus) < 0) {
		report_error("selfmon", "pms_pmus_load", -1);
		return 1;
	}
	for (int on = 1; on >= 0; on--) {
		int r = set_user_access(on ? "1" : "0", old, sizeof(old));
		selfmon_one(pmus, events, r < 0 ? "missing" : on ? "1" : "0", false, iters);
		if (on)
			selfmon_one(pmus, events, r < 0 ? "missing" : "1", true, iters);
	}
	pms_pmus_free(pmus);
	return 0;
}

/* ---- main --------------------------------------------------------------- */

/* `damonwl HOT_MB COLD_MB SECONDS OUTFILE [crash]`: the DAMON bed's workload
 * (docs/damon.md).  On CPU 0: COLD_MB bound to node 0 and touched once,
 * HOT_MB bound to node 1 and touched (every page, then its TLB entries
 * flushed) until SECONDS pass; then
 * exit 0, or die of SIGSEGV with "crash".  Its ranges and the nodes
 * move_pages reports for them go to OUTFILE as one BED line, so the
 * profiler's stdout stays a clean JSON document. */
static int node_of(void *p)
{
	void *pages[1] = { p };
	int status[1] = { -1 };
	if (syscall(SYS_move_pages, 0, 1UL, pages, NULL, status, 0) < 0)
		return -1000 - errno;
	return status[0];
}

static int cmd_damonwl(int argc, char **argv)
{
	size_t hot_sz, cold_sz, psz = (size_t)sysconf(_SC_PAGESIZE);
	double secs;
	cpu_set_t one;
	struct timespec t0, t;
	unsigned long m0 = 1, m1 = 2;
	if (argc < 6)
		return 2;
	hot_sz = strtoul(argv[2], NULL, 0) << 20;
	cold_sz = strtoul(argv[3], NULL, 0) << 20;
	secs = strtod(argv[4], NULL);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	char *cold = mmap(NULL, cold_sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *hot = mmap(NULL, hot_sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (cold == MAP_FAILED || hot == MAP_FAILED)
		return 3;
	if (syscall(SYS_mbind, cold, cold_sz, MPOL_BIND, &m0, 65UL, 0U) < 0 ||
	    syscall(SYS_mbind, hot, hot_sz, MPOL_BIND, &m1, 65UL, 0U) < 0)
		return 4;
	memset(cold, 1, cold_sz);
	memset(hot, 1, hot_sz);
	FILE *f = fopen(argv[5], "w");
	if (!f)
		return 5;
	fprintf(f, "BED {\"check\":\"damonwl\",\"pid\":%d,\"hot_start\":\"0x%lx\","
		"\"hot_end\":\"0x%lx\",\"cold_start\":\"0x%lx\",\"cold_end\":\"0x%lx\","
		"\"hot_node\":%d,\"cold_node\":%d,\"hot_node_last\":%d,\"cold_node_last\":%d}\n",
		(int)getpid(), (unsigned long)hot, (unsigned long)(hot + hot_sz),
		(unsigned long)cold, (unsigned long)(cold + cold_sz), node_of(hot), node_of(cold),
		node_of(hot + hot_sz - psz), node_of(cold + cold_sz - psz));
	fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (size_t i = 0; i < hot_sz; i += psz)
			((volatile char *)hot)[i]++;
		/* DAMON clears Accessed bits without a TLB flush
		 * (mm/damon/ops-common.c:47,62), and a CPU -- TCG too -- sets
		 * them only on a page walk: 8 huge pages would stay in the TLB
		 * and look cold.  A protection round trip flushes the range. */
		mprotect(hot, hot_sz, PROT_READ);
		mprotect(hot, hot_sz, PROT_READ | PROT_WRITE);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	if (argc > 6 && !strcmp(argv[6], "crash"))
		raise(SIGSEGV);
	return 0;
}

/* `touchnode NODE MIB OUTFILE [thp|nothp [LINGER_MS]]`: a short-lived program of the
 * attribution checks (issue 13): map MIB MiB bound to NODE (mbind
 * MPOL_BIND), with THP (MADV_HUGEPAGE, 2 MiB aligned: one fault per huge
 * page) or without (one fault per 4 KiB page), touch each page once, write
 * "PID START LEN NODE" to OUTFILE and exit at once. */
static int cmd_touchnode(int argc, char **argv)
{
	if (argc < 5)
		return 2;
	int node = atoi(argv[2]);
	size_t len = strtoul(argv[3], NULL, 0) << 20, huge = 2u << 20;
	bool thp = argc > 5 && !strcmp(argv[5], "thp");
	unsigned long mask = 1UL << node;
	unsigned char *raw = mmap(NULL, len + huge, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return 3;
	unsigned char *buf = (unsigned char *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
	madvise(buf, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	if (syscall(SYS_mbind, buf, len, MPOL_BIND, &mask, 65UL, 0U) < 0)
		return 4;
	for (size_t off = 0; off < len; off += (size_t)PSZ)
		((volatile unsigned char *)buf)[off] = 1;
	FILE *f = fopen(argv[4], "w");
	if (!f)
		return 5;
	fprintf(f, "%d %" PRIu64 " %zu %d\n", (int)getpid(), (uint64_t)(uintptr_t)buf, len, node);
	if (fclose(f) != 0)
		return 5;
	if (argc > 6) { /* LINGER_MS: live that long after the touch */
		long ms = atol(argv[6]);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* `csvshare CSV OUTFILE...`: of the samples in pmuscope mem's CSV, those of
 * each touchnode program's buffer (its pid, its range), and how many have
 * its node; one BED line each. */
static int cmd_csvshare(int argc, char **argv)
{
	for (int k = 3; k < argc; k++) {
		FILE *r = fopen(argv[k], "r"), *c = fopen(argv[2], "r");
		int pid = -1, node = -1;
		uint64_t start = 0, len = 0, n = 0, on = 0, unres = 0;
		char line[1024];
		if (!r || !c || fscanf(r, "%d %" SCNu64 " %" SCNu64 " %d", &pid, &start, &len, &node) != 4) {
			printf("BED {\"check\":\"csvshare\",\"file\":\"%s\",\"error\":\"unreadable\"}\n",
			       argv[k]);
			if (r)
				fclose(r);
			if (c)
				fclose(c);
			continue;
		}
		while (fgets(line, sizeof(line), c)) {
			/* time,pid,tid,cpu,cpu_node,ip,addr,phys_addr,mem_node,node_status,... */
			char *f[10];
			int nf = 0;
			for (char *p = line; nf < 10; nf++) {
				f[nf] = p;
				char *comma = strchr(p, ',');
				if (!comma) {
					nf++;
					break;
				}
				*comma = 0;
				p = comma + 1;
			}
			if (nf < 10 || atoi(f[1]) != pid || strncmp(f[6], "0x", 2))
				continue;
			uint64_t a = strtoull(f[6], NULL, 16);
			if (a < start || a >= start + len)
				continue;
			n++;
			if (*f[8] && atoi(f[8]) == node)
				on++;
			else if (!*f[8])
				unres++;
		}
		printf("BED {\"check\":\"csvshare\",\"file\":\"%s\",\"pid\":%d,\"node\":%d,"
		       "\"samples\":%" PRIu64 ",\"on_node\":%" PRIu64 ",\"unresolved\":%" PRIu64 "}\n",
		       argv[k], pid, node, n, on, unres);
		fclose(r);
		fclose(c);
	}
	return 0;
}

/* `advwl move|share SECONDS OUTFILE`: the placement advisor's workload
 * (docs/advise.md).  The software engine samples page faults only, so the
 * hot buffer is a shared memfd mapping whose page-table entries are dropped
 * a few pages at a time (MADV_DONTNEED: the pages stay in the page cache,
 * on their node) and read again at once: each read is a minor fault the
 * sampler sees at the page's address, on the reading CPU, while the page
 * stays where it is (or where it was moved).
 *  move:  two threads on node 0's CPUs 0 and 1; hot 8 MiB bound to node 2;
 *         cold 1 MiB private, bound to node 0, written once.
 *  share: a thread on CPU 0 (node 0) and one on CPU 2 (node 1) read a 4 MiB
 *         buffer bound to node 0, every other chunk each.
 * Until SIGINT/SIGTERM or SECONDS; then one BED line to OUTFILE: the ranges
 * and, per buffer, its pages per node by move_pages (query) and by
 * get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR), each page read first. */
#define ADV_CHUNK 4
static volatile sig_atomic_t adv_stop;
static pthread_barrier_t adv_round; /* both threads fault as many pages per round */
static char *adv_buf;
static size_t adv_size, adv_psz;
static double adv_secs;

static void adv_on_sig(int sig)
{
	(void)sig;
	adv_stop = 1;
}

struct adv_thread {
	int cpu, parity;
	pthread_t t;
};

static double adv_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *adv_run(void *arg)
{
	struct adv_thread *th = arg;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(th->cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
	double t0 = adv_now();
	size_t chunk = ADV_CHUNK * adv_psz;
	unsigned sum = 0;
	for (;;) {
		/* both threads agree to go on, so neither runs a round alone */
		int go = !adv_stop && adv_now() - t0 < adv_secs, other;
		static volatile int votes[2];
		votes[th->parity] = go;
		pthread_barrier_wait(&adv_round);
		other = votes[!th->parity];
		pthread_barrier_wait(&adv_round);
		if (!go || !other)
			break;
		for (size_t off = (size_t)th->parity * chunk; off < adv_size && !adv_stop;
		     off += 2 * chunk) {
			size_t len = off + chunk <= adv_size ? chunk : adv_size - off;
			madvise(adv_buf + off, len, MADV_DONTNEED);
			for (size_t p = 0; p < len; p += adv_psz)
				sum += ((volatile char *)adv_buf)[off + p];
		}
		struct timespec nap = { 0, 20 * 1000 * 1000 };
		nanosleep(&nap, NULL);
	}
	return (void *)(uintptr_t)sum;
}

static void adv_count(char *buf, size_t size, int mp[8], int gm[8])
{
	memset(mp, 0, 8 * sizeof(int));
	memset(gm, 0, 8 * sizeof(int));
	for (size_t off = 0; off < size; off += adv_psz) {
		unsigned dummy = ((volatile char *)buf)[off];
		(void)dummy;
		int n = node_of(buf + off), g = -1;
		if (n >= 0 && n < 8)
			mp[n]++;
		if (syscall(SYS_get_mempolicy, &g, NULL, 0UL, buf + off,
			    (unsigned long)(MPOL_F_NODE | MPOL_F_ADDR)) == 0 && g >= 0 && g < 8)
			gm[g]++;
	}
}

static void adv_arr(FILE *f, const char *key, const int v[8])
{
	fprintf(f, ",\"%s\":[%d,%d,%d,%d]", key, v[0], v[1], v[2], v[3]);
}

static int cmd_advwl(int argc, char **argv)
{
	unsigned long m0 = 1, mhot;
	struct adv_thread th[2];
	if (argc < 5)
		return 2;
	bool share = !strcmp(argv[2], "share");
	adv_secs = strtod(argv[3], NULL);
	adv_psz = (size_t)sysconf(_SC_PAGESIZE);
	adv_size = share ? 4u << 20 : 8u << 20;
	mhot = share ? 1 : 4; /* node 0 / node 2 */
	signal(SIGINT, adv_on_sig);
	signal(SIGTERM, adv_on_sig);
	int fd = (int)syscall(SYS_memfd_create, "advhot", 0U);
	if (fd < 0 || ftruncate(fd, (off_t)adv_size) < 0)
		return 3;
	adv_buf = mmap(NULL, adv_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	size_t cold_sz = 1u << 20;
	char *cold = mmap(NULL, cold_sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (adv_buf == MAP_FAILED || cold == MAP_FAILED)
		return 3;
	if (syscall(SYS_mbind, adv_buf, adv_size, MPOL_BIND, &mhot, 65UL, 0U) < 0 ||
	    syscall(SYS_mbind, cold, cold_sz, MPOL_BIND, &m0, 65UL, 0U) < 0)
		return 4;
	/* the buffers are first written from CPU 0 (node 0): the cold buffer's
	 * 256 first-touch faults are then local, as "cold on node 0" means; from
	 * a CPU of another node they are 256 remote samples, and the advisor
	 * rightly proposes to move it (seen once the live source handed samples
	 * out in time order, which names them) */
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	memset(adv_buf, 1, adv_size);
	memset(cold, 1, cold_sz);
	int start_node = node_of(adv_buf);
	pthread_barrier_init(&adv_round, NULL, 2);
	th[0].cpu = 0;
	th[1].cpu = share ? 2 : 1;
	for (int i = 0; i < 2; i++) {
		th[i].parity = i;
		if (pthread_create(&th[i].t, NULL, adv_run, &th[i]) != 0)
			return 5;
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i].t, NULL);
	int hmp[8], hgm[8], cmp[8], cgm[8];
	adv_count(adv_buf, adv_size, hmp, hgm);
	adv_count(cold, cold_sz, cmp, cgm);
	FILE *f = fopen(argv[4], "w");
	if (!f)
		return 6;
	fprintf(f, "BED {\"check\":\"advwl\",\"mode\":\"%s\",\"pid\":%d,\"hot_start\":\"0x%lx\","
		   "\"hot_end\":\"0x%lx\",\"cold_start\":\"0x%lx\",\"cold_end\":\"0x%lx\","
		   "\"hot_start_node\":%d,\"pages\":%zu",
		argv[2], (int)getpid(), (unsigned long)adv_buf, (unsigned long)(adv_buf + adv_size),
		(unsigned long)cold, (unsigned long)(cold + cold_sz), start_node, adv_size / adv_psz);
	adv_arr(f, "hot_mp", hmp);
	adv_arr(f, "hot_gm", hgm);
	adv_arr(f, "cold_mp", cmp);
	adv_arr(f, "cold_gm", cgm);
	fprintf(f, "}\n");
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	cpu_set_t one;
	int rc;

	/* `loop N`: the guest program `pmuscope stat` counts.  Its loop is
	 * exactly 2N instructions; nothing else runs but the static libc's
	 * start-up and exit. */
	if (argc > 2 && !strcmp(argv[1], "loop")) {
		work(n);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "damonwl"))
		return cmd_damonwl(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "advwl"))
		return cmd_advwl(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	PSZ = sysconf(_SC_PAGESIZE);
	if (argc > 1 && !strcmp(argv[1], "touchnode"))
		return cmd_touchnode(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "csvshare"))
		return cmd_csvshare(argc, argv);
	if (argc < 2) {
		fprintf(stderr, "usage: bedcheck sysfs|numa N|swsample N|sampler N|pmusysfs|count N|userread N|selfmon N|loop N\n");
		return 2;
	}
	if (pms_sys_new(&S, NULL) < 0) {
		report_error(argv[1], "pms_sys_new", -1);
		return 1;
	}
	OPS = pms_sys_ops(S);
	/* Counting and self-reads are checked on one CPU; nothing here needs two. */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);

	if (!strcmp(argv[1], "sysfs"))
		rc = cmd_sysfs();
	else if (!strcmp(argv[1], "numa"))
		rc = cmd_numa(n ? n : 256);
	else if (!strcmp(argv[1], "swsample"))
		rc = cmd_swsample(n ? n : 64);
	else if (!strcmp(argv[1], "sampler"))
		rc = cmd_sampler(n ? n : 64);
	else if (!strcmp(argv[1], "pmusysfs"))
		rc = cmd_pmusysfs();
	else if (!strcmp(argv[1], "count"))
		rc = cmd_count(n ? n : 1000000);
	else if (!strcmp(argv[1], "userread"))
		rc = cmd_userread(n ? n : 1000000);
	else if (!strcmp(argv[1], "selfmon"))
		rc = cmd_selfmon(n ? n : 1000000);
	else {
		fprintf(stderr, "bedcheck: unknown check %s\n", argv[1]);
		rc = 2;
	}
	pms_sys_free(S);
	return rc;
}
