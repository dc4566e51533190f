/* The built-in workload, shaped like seed 000's probe: a random cyclic
 * permutation (Sattolo's algorithm) over a buffer of 64-bit words, then a
 * dependent chase i = w[i], so each load waits for the previous one and,
 * with a buffer wider than the L3, most of them go to DRAM.
 *
 * It runs in the profiled child (pmuscope re-executes itself), so its
 * syscalls are the workload's own, not the rest of the library's: mbind(2) is called
 * directly because the seam has no op for it; the home node is then read
 * back through the seam's get_mempolicy op (MPOL_F_NODE|MPOL_F_ADDR), so the
 * report states where the pages really are, not where they were asked to be. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pmuscope/sys.h"
#include "pmuscope/workload.h"
#include "util/error.h"

/* include/uapi/linux/mempolicy.h */
#define MPOL_BIND_ 2
#define MPOL_MF_STRICT_ (1 << 0)
#define MPOL_MF_MOVE_ (1 << 1)
#define MPOL_F_NODE_ (1 << 0)
#define MPOL_F_ADDR_ (1 << 1)

struct chase {
	const uint64_t *w;
	uint64_t start, steps, end;
};

/* xorshift64*: a fixed seed keeps runs comparable. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

__attribute__((noinline)) static uint64_t pms_workload_chase(const uint64_t *w, uint64_t i,
							      uint64_t steps)
{
	/* The load below is the one the report should name. */
	while (steps--)
		i = ((const volatile uint64_t *)w)[i];
	return i;
}

static void *chase_thread(void *arg)
{
	struct chase *c = arg;
	c->end = pms_workload_chase(c->w, c->start, c->steps);
	return NULL;
}

__attribute__((noinline)) static int mem_workload_run(const struct pms_workload_opts *o)
{
	size_t n = o->size / sizeof(uint64_t);
	if (n < 2) {
		pms_err(PMS_EINVAL, "--size %zu is too small", o->size);
		return 2;
	}
	size_t bytes = n * sizeof(uint64_t);
	uint64_t *w = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED) {
		pms_err(PMS_ENOMEM, "mmap %zu bytes: %s", bytes, strerror(errno));
		return 2;
	}
	if (o->node >= 0) {
		unsigned long mask[16] = { 0 };
		if (o->node >= (int)(sizeof(mask) * 8)) {
			pms_err(PMS_EINVAL, "--node %d is out of range", o->node);
			return 2;
		}
		mask[o->node / (8 * sizeof(long))] |= 1UL << (o->node % (8 * sizeof(long)));
		if (syscall(SYS_mbind, w, bytes, MPOL_BIND_, mask, sizeof(mask) * 8 + 1,
			    MPOL_MF_STRICT_ | MPOL_MF_MOVE_) != 0) {
			pms_err(PMS_ESYS, "mbind to node %d: %s", o->node, strerror(errno));
			return 2;
		}
	}
	/* Sattolo: one cycle through every word. */
	for (size_t i = 0; i < n; i++)
		w[i] = i;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(rnd(&seed) % i);
		uint64_t t = w[i];
		w[i] = w[j];
		w[j] = t;
	}
	int home = -1;
	struct pms_sys *sys = NULL;
	if (pms_sys_new(&sys, NULL) == 0) {
		const struct pms_sys_ops *ops = pms_sys_ops(sys);
		int mode = -1;
		if (ops->get_mempolicy(ops->ud, &mode, NULL, 0, w, MPOL_F_NODE_ | MPOL_F_ADDR_) == 0)
			home = mode;
		pms_sys_free(sys);
	}
	/* --verify-node: both page -> node oracles on every page of the buffer,
	 * in the process that owns it (get_mempolicy answers only for its
	 * caller): move_pages batched, get_mempolicy one page at a time. */
	long vchecked = -1, vdis = 0, verr = 0;
	if (o->verify) {
		struct pms_sys *vs = NULL;
		long psz = sysconf(_SC_PAGESIZE);
		size_t np = (bytes + (size_t)psz - 1) / (size_t)psz;
		void **pages = calloc(np, sizeof(*pages));
		int *st = calloc(np, sizeof(*st));
		if (pages && st && pms_sys_new(&vs, NULL) == 0) {
			const struct pms_sys_ops *ops = pms_sys_ops(vs);
			for (size_t i = 0; i < np; i++)
				pages[i] = (char *)w + i * (size_t)psz;
			vchecked = 0;
			for (size_t off = 0; off < np; off += 512) {
				size_t cnt = np - off < 512 ? np - off : 512;
				if (ops->move_pages(ops->ud, 0, cnt, pages + off, NULL, st + off, 0) < 0)
					for (size_t k = 0; k < cnt; k++)
						st[off + k] = -EIO;
			}
			for (size_t i = 0; i < np; i++) {
				int mode = -1;
				long r = ops->get_mempolicy(ops->ud, &mode, NULL, 0, pages[i],
							    MPOL_F_NODE_ | MPOL_F_ADDR_);
				vchecked++;
				if (r < 0 || st[i] < 0)
					verr++;
				else if (mode != st[i])
					vdis++;
			}
		}
		pms_sys_free(vs);
		free(pages);
		free(st);
	}
	if (o->report_fd >= 0) {
		char line[200];
		int len = snprintf(line, sizeof(line),
				   "buffer 0x%" PRIxPTR " 0x%zx home %d threads %d verify %ld %ld %ld\n",
				   (uintptr_t)w, bytes, home, o->threads, vchecked, vdis, verr);
		if (write(o->report_fd, line, (size_t)len) != len) {
			/* the parent went away; the run is still a valid workload */
		}
	}
	int nt = o->threads > 0 ? o->threads : 1;
	uint64_t steps = o->steps ? o->steps : (uint64_t)n; /* one lap of the cycle */
	struct chase *c = calloc((size_t)nt, sizeof(*c));
	pthread_t *tid = calloc((size_t)nt, sizeof(*tid));
	if (!c || !tid)
		return 2;
	for (int t = 0; t < nt; t++) {
		c[t] = (struct chase){ w, (uint64_t)t * (n / (size_t)nt), steps, 0 };
		if (t && pthread_create(&tid[t], NULL, chase_thread, &c[t]) != 0) {
			pms_err(PMS_ESYS, "thread %d: %s", t, strerror(errno));
			return 2;
		}
	}
	chase_thread(&c[0]);
	for (int t = 1; t < nt; t++)
		pthread_join(tid[t], NULL);
	uint64_t sum = 0;
	for (int t = 0; t < nt; t++)
		sum += c[t].end;
	free(c);
	free(tid);
	/* Keep the buffer mapped until the parent has resolved the last
	 * samples' pages: a process that is gone has no pages to ask about. */
	if (o->report_fd >= 0) {
		if (write(o->report_fd, "done\n", 5) != 5) {
			/* nobody listens: nothing to wait for */
		}
		close(o->report_fd);
	}
	if (o->release_fd >= 0) {
		char b;
		while (read(o->release_fd, &b, 1) > 0)
			;
		close(o->release_fd);
	}
	munmap(w, bytes);
	/* sum keeps the chase from being optimised away */
	return sum == UINT64_MAX ? 1 : 0;
}

int pms_workload_run(const struct pms_workload_opts *o)
{
	return mem_workload_run(o);
}

/* ---- the parent's side ---------------------------------------------------- */

static char *self_exe(const char *fallback)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return strdup(fallback);
	buf[n] = 0;
	return strdup(buf);
}

int pms_workload_child_prepare(struct pms_workload_child *c, const char *prog, const struct pms_workload_opts *o,
		     bool verify)
{
	if (pipe(c->pipefd) < 0 || pipe(c->relfd) < 0) {
		return pms_err(PMS_ESYS, "pipe: %s", strerror(errno));
	}
	fcntl(c->pipefd[0], F_SETFD, FD_CLOEXEC);
	fcntl(c->pipefd[0], F_SETFL, O_NONBLOCK);
	fcntl(c->relfd[1], F_SETFD, FD_CLOEXEC);
	c->exe = self_exe(prog);
	char **a = c->argv;
	int k = 0;
	a[k++] = c->exe;
	a[k++] = (char *)"mem";
	a[k++] = (char *)"--run-workload";
	snprintf(c->argbuf[0], sizeof(c->argbuf[0]), "%zu", o->size);
	a[k++] = (char *)"--size";
	a[k++] = c->argbuf[0];
	snprintf(c->argbuf[1], sizeof(c->argbuf[1]), "%d", o->threads);
	a[k++] = (char *)"--threads";
	a[k++] = c->argbuf[1];
	if (o->node >= 0) {
		snprintf(c->argbuf[2], sizeof(c->argbuf[2]), "%d", o->node);
		a[k++] = (char *)"--node";
		a[k++] = c->argbuf[2];
	}
	if (o->steps) {
		snprintf(c->argbuf[3], sizeof(c->argbuf[3]), "%" PRIu64, o->steps);
		a[k++] = (char *)"--steps";
		a[k++] = c->argbuf[3];
	}
	snprintf(c->argbuf[4], sizeof(c->argbuf[4]), "%d", c->pipefd[1]);
	a[k++] = (char *)"--report-fd";
	a[k++] = c->argbuf[4];
	snprintf(c->argbuf[5], sizeof(c->argbuf[5]), "%d", c->relfd[0]);
	a[k++] = (char *)"--release-fd";
	a[k++] = c->argbuf[5];
	if (verify)
		a[k++] = (char *)"--verify-node";
	a[k] = NULL;
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void pms_workload_child_started(struct pms_workload_child *c)
{
	close_fd(&c->pipefd[1]);
	close_fd(&c->relfd[0]);
}

void pms_workload_child_poll(struct pms_workload_child *c)
{
	struct pms_workload_info *wi = &c->wi;
	if (c->pipefd[0] < 0 || wi->done)
		return;
	ssize_t n = read(c->pipefd[0], c->buf + c->len, sizeof(c->buf) - 1 - c->len);
	if (n <= 0)
		return;
	c->len += (size_t)n;
	c->buf[c->len] = 0;
	if (!wi->have && strchr(c->buf, '\n') &&
	    sscanf(c->buf, "buffer %" SCNx64 " %" SCNx64 " home %d threads %d verify %ld %ld %ld",
		   &wi->start, &wi->size, &wi->home, &wi->threads, &wi->vchecked, &wi->vdis,
		   &wi->verr) == 7)
		wi->have = true;
	if (strstr(c->buf, "\ndone\n"))
		wi->done = true;
}

bool pms_workload_child_release(struct pms_workload_child *c)
{
	if (!c->wi.done || c->relfd[1] < 0)
		return false;
	close_fd(&c->relfd[1]);
	return true;
}

void pms_workload_child_close(struct pms_workload_child *c)
{
	close_fd(&c->pipefd[0]);
	close_fd(&c->pipefd[1]);
	close_fd(&c->relfd[0]);
	close_fd(&c->relfd[1]);
	free(c->exe);
	c->exe = NULL;
}
