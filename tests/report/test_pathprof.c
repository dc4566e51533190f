/* Samples by call path: interning, the three top lists, kept-mode nodes from
 * the memory report, hidden kernel frames, folded stacks; and the DWARF
 * unwinder on this process's own stack (registers and a stack copy taken
 * here, as the kernel would put them in a sample). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/pathprof.h"
#include "pmuscope/unwind.h"

static struct pms_memsrc_sample mk(const struct pms_frame *f, size_t n, uint64_t weight,
				   int mem, int cpu)
{
	struct pms_memsrc_sample x;
	memset(&x, 0, sizeof(x));
	x.ms.valid = PMS_MS_IP | (weight ? PMS_MS_WEIGHT : 0);
	x.ms.weight = weight;
	x.mem_node = mem;
	x.cpu_node = cpu;
	x.path.frames = f;
	x.path.n = n;
	x.path.how = n ? PMS_CALLGRAPH_FP : PMS_CALLGRAPH_NONE;
	return x;
}

PMS_TEST(top_lists)
{
	struct pms_sys *sys = NULL;
	struct pms_pathprof *p = NULL;
	struct pms_pathreport *r = NULL;
	struct pms_pathprof_opts o = PMS_PATHPROF_OPTS_INIT;
	const struct pms_frame a[] = { { 0x1000, 0 }, { 0x2000, 0 }, { 0x3000, 0 } };
	const struct pms_frame b[] = { { 0x1100, 0 }, { 0x2000, 0 }, { 0x3000, 0 } };
	const struct pms_frame c[] = { { 0xffffffff81000000ULL, PMS_FRAME_KERNEL },
				       { 0x1200, 0 } };

	CHECK_OK(pms_sys_new(&sys, NULL));
	o.top = 2;
	CHECK_OK(pms_pathprof_new(sys, &o, &p));
	/* a: 5 samples, light, local; b: 2 samples, slow, remote; c: 1 sample,
	 * half ... only one: remote */
	for (int i = 0; i < 5; i++) {
		struct pms_memsrc_sample x = mk(a, 3, 10, 0, 0);
		CHECK_OK(pms_pathprof_add_src(p, &x, NULL));
	}
	for (int i = 0; i < 2; i++) {
		struct pms_memsrc_sample x = mk(b, 3, 500, 1, 0);
		CHECK_OK(pms_pathprof_add_src(p, &x, NULL));
	}
	struct pms_memsrc_sample x = mk(c, 2, 0, PMS_NODE_UNKNOWN, 0);
	CHECK_OK(pms_pathprof_add_src(p, &x, NULL));
	x = mk(NULL, 0, 0, 0, 0);
	CHECK_OK(pms_pathprof_add_src(p, &x, NULL));

	CHECK_OK(pms_pathprof_report(p, NULL, NULL, false, &r));
	if (r) {
		CHECK_EQ_U64(pms_pathreport_samples(r), 9);
		CHECK_EQ_U64(pms_pathreport_with_path(r), 8);
		CHECK_EQ_U64(pms_pathreport_without_path(r), 1);
		CHECK_EQ_U64(pms_pathreport_distinct(r), 3);
		CHECK_EQ_U64(pms_pathreport_truncated(r), 0); /* no path was cut */
		CHECK_EQ_INT(pms_pathreport_how(r), PMS_CALLGRAPH_FP);
		CHECK_EQ_U64(pms_pathreport_path_count(r, PMS_PATHS_BY_SAMPLES), 2);
		CHECK_EQ_U64(pms_pathreport_path_at(r, PMS_PATHS_BY_SAMPLES, 0)->samples, 5);
		CHECK_EQ_U64(pms_pathreport_path_at(r, PMS_PATHS_BY_SAMPLES, 0)->frames[0].ip, 0x1000);
		CHECK_EQ_U64(pms_pathreport_path_at(r, PMS_PATHS_BY_SAMPLES, 0)->nframes, 3);
		CHECK_EQ_U64(pms_pathreport_path_at(r, PMS_PATHS_BY_LATENCY, 0)->latency, 1000);
		CHECK_EQ_U64(pms_pathreport_path_at(r, PMS_PATHS_BY_LATENCY, 0)->frames[0].ip, 0x1100);
		CHECK_EQ_U64(pms_pathreport_path_count(r, PMS_PATHS_BY_LATENCY), 2); /* c has no weight: not listed */
		CHECK_EQ_U64(pms_pathreport_path_count(r, PMS_PATHS_BY_REMOTE), 2);  /* c has no node: not listed */
		CHECK_EQ_U64(pms_pathreport_path_at(r, PMS_PATHS_BY_REMOTE, 0)->remote, 2);
		CHECK_EQ_U64(pms_pathreport_path_at(r, PMS_PATHS_BY_REMOTE, 0)->resolved, 2);
		CHECK_EQ_U64(pms_pathreport_path_at(r, PMS_PATHS_BY_REMOTE, 1)->remote, 0);
		CHECK_EQ_U64(pms_pathreport_path_count(r, PMS_PATHS_ALL), 3);
		CHECK_EQ_U64(pms_pathreport_path_at(r, PMS_PATHS_ALL, 2)->frames[0].flags, PMS_FRAME_KERNEL);
		CHECK_EQ_STR(pms_pathreport_path_at(r, PMS_PATHS_ALL, 2)->frames[0].module, "[kernel]");
		/* folded: root first; no names: module+address or the address */
		char buf[256];
		size_t need = pms_pathreport_folded(pms_pathreport_path_at(r, PMS_PATHS_ALL, 0), buf, sizeof(buf));
		CHECK_EQ_STR(buf, "0x3000;0x2000;0x1000");
		CHECK_EQ_U64(need, strlen("0x3000;0x2000;0x1000"));
		char small[8];
		CHECK_EQ_U64(pms_pathreport_folded(pms_pathreport_path_at(r, PMS_PATHS_ALL, 0), small, sizeof(small)), need);
		CHECK_EQ_STR(small, "0x3000;");
		CHECK(!pms_pathreport_kept(r)); /* not kept-samples mode */
		CHECK_EQ_U64(pms_pathreport_sample_path_count(r), 0);
		CHECK_EQ_U64(pms_pathreport_sample_path(r, 0), 0);
		CHECK(pms_pathreport_unwind(r) && pms_pathreport_unwind(r)->samples == 0);
		CHECK(!pms_pathreport_path_at(r, PMS_PATHS_ALL, 3));
		CHECK(!pms_pathreport_branch_at(r, PMS_BRANCHES_BY_SAMPLES, 0));
	}
	/* a NULL report reads as empty */
	CHECK_EQ_U64(pms_pathreport_samples(NULL), 0);
	CHECK_EQ_INT(pms_pathreport_how(NULL), PMS_CALLGRAPH_NONE);
	CHECK_EQ_U64(pms_pathreport_path_count(NULL, PMS_PATHS_ALL), 0);
	CHECK(!pms_pathreport_path_at(NULL, PMS_PATHS_BY_SAMPLES, 0));
	CHECK_EQ_U64(pms_pathreport_branch_count(NULL, PMS_BRANCHES_BY_LATENCY), 0);
	CHECK(!pms_pathreport_unwind(NULL));
	pms_pathreport_free(r);
	pms_pathprof_free(p);
	pms_sys_free(sys);
}

/* top_only (version 2) builds the same top lists and leaves `all` empty;
 * a version-1 struct never reads it. */
static struct pms_pathreport *three_paths(struct pms_sys *sys, unsigned version, bool top_only)
{
	struct pms_pathprof *p = NULL;
	struct pms_pathreport *r = NULL;
	struct pms_pathprof_opts o = PMS_PATHPROF_OPTS_INIT;
	const struct pms_frame a[] = { { 0x1000, 0 }, { 0x2000, 0 } };
	const struct pms_frame b[] = { { 0x1100, 0 }, { 0x2000, 0 } };
	const struct pms_frame c[] = { { 0x1200, 0 } };
	o.version = version;
	o.top = 2;
	o.top_only = top_only;
	CHECK_OK(pms_pathprof_new(sys, &o, &p));
	for (int i = 0; i < 6; i++) {
		struct pms_memsrc_sample x = i < 3 ? mk(a, 2, 10, 0, 0)
					   : i < 5 ? mk(b, 2, 400, 1, 0) : mk(c, 1, 50, 1, 0);
		CHECK_OK(pms_pathprof_add_src(p, &x, NULL));
	}
	CHECK_OK(pms_pathprof_report(p, NULL, NULL, false, &r));
	pms_pathprof_free(p);
	return r;
}

static void same_list(const struct pms_pathreport *x, const struct pms_pathreport *y,
		      enum pms_pathreport_order which)
{
	size_t nx = pms_pathreport_path_count(x, which), ny = pms_pathreport_path_count(y, which);
	CHECK_EQ_U64(nx, ny);
	for (size_t i = 0; i < nx && i < ny; i++) {
		const struct pms_pathreport_path *px = pms_pathreport_path_at(x, which, i);
		const struct pms_pathreport_path *py = pms_pathreport_path_at(y, which, i);
		CHECK_EQ_U64(px->samples, py->samples);
		CHECK_EQ_U64(px->latency, py->latency);
		CHECK_EQ_U64(px->nframes, py->nframes);
		CHECK_EQ_U64(px->frames[0].ip, py->frames[0].ip);
	}
	CHECK(!pms_pathreport_path_at(x, which, nx)); /* past the end */
}

PMS_TEST(top_only)
{
	struct pms_sys *sys = NULL;
	CHECK_OK(pms_sys_new(&sys, NULL));
	struct pms_pathreport *full = three_paths(sys, PMS_PATHPROF_OPTS_VERSION, false);
	struct pms_pathreport *top = three_paths(sys, PMS_PATHPROF_OPTS_VERSION, true);
	struct pms_pathreport *v1 = three_paths(sys, 1, true);
	if (full && top && v1) {
		CHECK_EQ_U64(pms_pathreport_path_count(full, PMS_PATHS_ALL), 3);
		CHECK_EQ_U64(pms_pathreport_path_count(top, PMS_PATHS_ALL), 0);
		CHECK_EQ_U64(pms_pathreport_path_count(v1, PMS_PATHS_ALL), 3); /* version 1: top_only not read */
		CHECK_EQ_U64(pms_pathreport_distinct(top), 3);
		same_list(full, top, PMS_PATHS_BY_SAMPLES);
		same_list(full, top, PMS_PATHS_BY_LATENCY);
		same_list(full, top, PMS_PATHS_BY_REMOTE);
		CHECK_EQ_U64(pms_pathreport_path_at(top, PMS_PATHS_BY_SAMPLES, 0)->samples, 3);
		CHECK_EQ_U64(pms_pathreport_path_at(top, PMS_PATHS_BY_LATENCY, 0)->frames[0].ip, 0x1100);
	}
	pms_pathreport_free(full);
	pms_pathreport_free(top);
	pms_pathreport_free(v1);
	pms_sys_free(sys);
}

PMS_TEST(kept_nodes_and_hidden_kernel)
{
	struct pms_sys *sys = NULL;
	struct pms_pathprof *p = NULL;
	struct pms_pathreport *r = NULL;
	struct pms_pathprof_opts o = PMS_PATHPROF_OPTS_INIT;
	const struct pms_frame a[] = { { 0xffffffff81000000ULL, PMS_FRAME_KERNEL },
				       { 0xffffffff81000100ULL, PMS_FRAME_KERNEL },
				       { 0x1000, 0 } };
	const struct pms_frame b[] = { { 0xffffffff82000000ULL, PMS_FRAME_KERNEL },
				       { 0x1000, 0 } };
	struct pms_memreport_sample all[3];
	struct pms_memreport mem;

	CHECK_OK(pms_sys_new(&sys, NULL));
	o.hide_kernel = true;
	o.kept_samples = true;
	CHECK_OK(pms_pathprof_new(sys, &o, &p));
	struct pms_memsrc_sample x = mk(a, 3, 0, PMS_NODE_UNKNOWN, 0);
	CHECK_OK(pms_pathprof_add_src(p, &x, NULL));
	x = mk(b, 2, 0, PMS_NODE_UNKNOWN, 0);
	CHECK_OK(pms_pathprof_add_src(p, &x, NULL));
	x = mk(NULL, 0, 0, PMS_NODE_UNKNOWN, 0);
	CHECK_OK(pms_pathprof_add_src(p, &x, NULL));
	/* nodes resolved later, as the memory report has them */
	memset(all, 0, sizeof(all));
	memset(&mem, 0, sizeof(mem));
	all[0].mem_node = 1;
	all[0].cpu_node = 0;
	all[1].mem_node = 0;
	all[1].cpu_node = 0;
	mem.all = all;
	mem.nall = 3;
	CHECK_OK(pms_pathprof_report(p, &mem, NULL, false, &r));
	if (r) {
		/* both kernel parts fold into one hidden frame: one path */
		CHECK_EQ_U64(pms_pathreport_distinct(r), 1);
		CHECK_EQ_U64(pms_pathreport_path_at(r, PMS_PATHS_BY_SAMPLES, 0)->samples, 2);
		CHECK_EQ_U64(pms_pathreport_path_at(r, PMS_PATHS_BY_SAMPLES, 0)->nframes, 2);
		CHECK_EQ_U64(pms_pathreport_path_at(r, PMS_PATHS_BY_SAMPLES, 0)->frames[0].ip, 0);
		CHECK(pms_pathreport_path_at(r, PMS_PATHS_BY_SAMPLES, 0)->frames[0].flags & PMS_FRAME_HIDDEN);
		CHECK_EQ_U64(pms_pathreport_path_at(r, PMS_PATHS_BY_SAMPLES, 0)->resolved, 2);
		CHECK_EQ_U64(pms_pathreport_path_at(r, PMS_PATHS_BY_SAMPLES, 0)->remote, 1);
		char buf[64];
		pms_pathreport_folded(pms_pathreport_path_at(r, PMS_PATHS_BY_SAMPLES, 0), buf, sizeof(buf));
		CHECK_EQ_STR(buf, "0x1000;[kernel]");
	}
	pms_pathreport_free(r);
	pms_pathprof_free(p);
	o.version = PMS_PATHPROF_OPTS_VERSION + 1;
	CHECK_EQ_INT(pms_pathprof_new(sys, &o, &p), PMS_EINVAL);
	CHECK_EQ_INT(pms_pathprof_new(sys, NULL, NULL), PMS_EINVAL);
	pms_sys_free(sys);
}

PMS_TEST(last_branches)
{
	struct pms_sys *sys = NULL;
	struct pms_pathprof *p = NULL;
	struct pms_pathreport *r = NULL;
	/* struct perf_branch_entry: from, to, flags (mispred is bit 0) */
	const uint64_t st1[] = { 0x1000, 0x2000, 1, 0x3000, 0x4000, 0 };
	const uint64_t st2[] = { 0x5000, 0x6000, 0 };
	struct pms_record rec;

	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK_OK(pms_pathprof_new(sys, NULL, &p));
	memset(&rec, 0, sizeof(rec));
	rec.type = PMS_RECORD_SAMPLE;
	rec.sample.present = PMS_SAMPLE_BRANCH_STACK;
	for (int i = 0; i < 3; i++) {
		struct pms_memsrc_sample x = mk(NULL, 0, 100, 0, 0);
		rec.sample.branch.nr = 2;
		rec.sample.branch.entries = st1;
		x.rec = &rec;
		CHECK_OK(pms_pathprof_add_src(p, &x, NULL));
	}
	struct pms_memsrc_sample x = mk(NULL, 0, 1000, 0, 0);
	rec.sample.branch.nr = 1;
	rec.sample.branch.entries = st2;
	x.rec = &rec;
	CHECK_OK(pms_pathprof_add_src(p, &x, NULL));
	rec.sample.branch.nr = 0; /* an empty stack counts for nothing */
	CHECK_OK(pms_pathprof_add_src(p, &x, NULL));
	CHECK_OK(pms_pathprof_report(p, NULL, NULL, false, &r));
	if (r) {
		CHECK_EQ_U64(pms_pathreport_with_branches(r), 4);
		CHECK_EQ_U64(pms_pathreport_branch_count(r, PMS_BRANCHES_BY_SAMPLES), 2);
		CHECK_EQ_U64(pms_pathreport_branch_at(r, PMS_BRANCHES_BY_SAMPLES, 0)->from, 0x1000);
		CHECK_EQ_U64(pms_pathreport_branch_at(r, PMS_BRANCHES_BY_SAMPLES, 0)->to, 0x2000);
		CHECK_EQ_U64(pms_pathreport_branch_at(r, PMS_BRANCHES_BY_SAMPLES, 0)->samples, 3);
		CHECK_EQ_U64(pms_pathreport_branch_at(r, PMS_BRANCHES_BY_SAMPLES, 0)->mispredicted, 3);
		CHECK_EQ_U64(pms_pathreport_branch_at(r, PMS_BRANCHES_BY_LATENCY, 0)->from, 0x5000);
		CHECK_EQ_U64(pms_pathreport_branch_at(r, PMS_BRANCHES_BY_LATENCY, 0)->latency, 1000);
		CHECK_EQ_U64(pms_pathreport_with_path(r), 0);
	}
	pms_pathreport_free(r);
	pms_pathprof_free(p);
	pms_sys_free(sys);
}

/* ---- the unwinder on this process's stack ----------------------------------- */

#if defined(__x86_64__)
#define HAVE_CAPTURE 1
#define NREGS 24
#define STACK_BYTES 8192
static uint64_t cap_regs[NREGS];
static unsigned char cap_stack[STACK_BYTES];
static uint64_t cap_sp;
static uint64_t cap_ip;
static uint64_t cap_top; /* end of the stack mapping */
static size_t cap_len;

/* Byte copy of the live stack above sp: not instrumented (ASan would see
 * other frames' redzones). */
__attribute__((no_sanitize_address, noinline)) static void copy_stack(const unsigned char *sp)
{
	cap_len = STACK_BYTES;
	if (cap_top > (uintptr_t)sp && cap_top - (uintptr_t)sp < STACK_BYTES)
		cap_len = (size_t)(cap_top - (uintptr_t)sp);
	for (size_t i = 0; i < cap_len; i++)
		((volatile unsigned char *)cap_stack)[i] = ((const volatile unsigned char *)sp)[i];
}

void pms_t_cp_c(void);
void pms_t_cp_b(void);
void pms_t_cp_a(void);
volatile int pms_t_cp_sink;

/* The registers as PERF_SAMPLE_REGS_USER gives them (perf register
 * numbers: BP 6, SP 7, IP 8), the stack copy from SP. */
__attribute__((noinline)) void pms_t_cp_c(void)
{
	uint64_t sp, bp, ip;
	__asm__ volatile("mov %%rsp, %0\n\tmov %%rbp, %1\n\tlea 0(%%rip), %2"
			 : "=r"(sp), "=r"(bp), "=r"(ip));
	memset(cap_regs, 0, sizeof(cap_regs));
	cap_regs[6] = bp;
	cap_regs[7] = sp;
	cap_regs[8] = ip;
	cap_sp = sp;
	cap_ip = ip;
	copy_stack((const unsigned char *)(uintptr_t)sp);
	pms_t_cp_sink++;
}
__attribute__((noinline)) void pms_t_cp_b(void)
{
	pms_t_cp_c();
	pms_t_cp_sink++;
}
__attribute__((noinline)) void pms_t_cp_a(void)
{
	pms_t_cp_b();
	pms_t_cp_sink++;
}
#endif

PMS_TEST(unwind_own_stack)
{
#ifndef HAVE_CAPTURE
	PMS_SKIP("register capture is written for x86-64 only");
#else
	struct pms_sys *sys = NULL;
	struct pms_maps *maps = NULL;
	struct pms_unwinder *u = NULL;
	struct pms_symbolizer *sym = NULL;
	struct pms_frame f[64];
	size_t n = 0;

	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK_OK(pms_maps_new(&maps));
	CHECK_OK(pms_maps_read_proc(maps, sys, getpid()));
	int here = 0;
	const struct pms_map *stk = pms_maps_find(maps, (uint64_t)(uintptr_t)&here);
	cap_top = stk ? stk->end : 0;
	pms_t_cp_a();
	CHECK_OK(pms_unwinder_new(sys, &u));

	/* The sample: REGS_USER (abi 2 = 64-bit, mask = bits 0-23 without
	 * DS-GS, as the sampler asks) + STACK_USER. */
	uint64_t vals[NREGS];
	size_t k = 0;
	uint64_t mask = ((1ULL << 24) - 1) & ~(0xfULL << 12);
	for (unsigned r = 0; r < NREGS; r++)
		if (mask & (1ULL << r))
			vals[k++] = cap_regs[r];
	struct pms_sample s;
	memset(&s, 0, sizeof(s));
	s.present = PMS_SAMPLE_REGS_USER | PMS_SAMPLE_STACK_USER | PMS_SAMPLE_TID;
	s.tid = (uint32_t)getpid();
	s.regs_user.abi = 2;
	s.regs_user.mask = mask;
	s.regs_user.nr = (uint32_t)k;
	s.regs_user.regs = vals;
	s.stack_size = STACK_BYTES;
	s.stack_dyn_size = cap_len;
	s.stack_data = cap_stack;
	CHECK_EQ_INT(pms_unwinder_sample(u, maps, &s, f, 64, &n), 0);
	CHECK(n >= 4);
	CHECK_OK(pms_symbolizer_new(sys, maps, &sym));
	const char *want[] = { "pms_t_cp_c", "pms_t_cp_b", "pms_t_cp_a" };
	for (size_t i = 0; i < 3 && i < n; i++) {
		struct pms_symbol sy = { 0 };
		CHECK(f[i].flags & PMS_FRAME_DWARF);
		CHECK_OK(pms_symbolizer_code(sym, i ? f[i].ip - 1 : f[i].ip, false, &sy));
		CHECK_MSG(sy.func && !strcmp(sy.func, want[i]), "frame %zu is %s, want %s", i,
			  sy.func ? sy.func : "(none)", want[i]);
	}
	CHECK_EQ_U64(f[0].ip, cap_ip);
	/* cut: room for two frames */
	CHECK_EQ_INT(pms_unwinder_sample(u, maps, &s, f, 2, &n), 1);
	CHECK_EQ_U64(n, 2);
	/* a sample without a stack */
	s.present = PMS_SAMPLE_TID;
	CHECK_EQ_INT(pms_unwinder_sample(u, maps, &s, f, 64, &n), PMS_ENOTSUP);
	/* a kernel thread: no user registers (abi 0) */
	s.present = PMS_SAMPLE_REGS_USER | PMS_SAMPLE_STACK_USER;
	s.regs_user.abi = 0;
	CHECK_EQ_INT(pms_unwinder_sample(u, maps, &s, f, 64, &n), 0);
	CHECK_EQ_U64(n, 0);
	/* registers but an empty stack dump (the kernel copied no byte, as
	 * on a fault at the stack page): no user frame, not even the PC */
	s.regs_user.abi = 2;
	s.stack_dyn_size = 0;
	n = 99;
	CHECK_EQ_INT(pms_unwinder_sample(u, maps, &s, f, 64, &n), 0);
	CHECK_EQ_U64(n, 0);
	struct pms_unwinder_stats st;
	pms_unwinder_stats(u, &st);
	CHECK_EQ_U64(st.samples, 5);
	CHECK_EQ_U64(st.no_regs, 1);
	CHECK_EQ_U64(st.no_stack, 1);
	CHECK(st.unwound >= 2);
	pms_symbolizer_free(sym);
	pms_unwinder_free(u);
	pms_maps_free(maps);
	pms_sys_free(sys);
#endif
}

/* Paths of the same ips apart only in a frame's flags stay apart, and each
 * comes back with its own flags (the collector keeps flags only for paths
 * that have one set: odd and even lengths, an inline depth). */
PMS_TEST(flags_apart)
{
	struct pms_sys *sys = NULL;
	struct pms_pathprof *p = NULL;
	struct pms_pathreport *r = NULL;
	struct pms_pathprof_opts o = PMS_PATHPROF_OPTS_INIT;
	const uint32_t inl = PMS_FRAME_INLINE | (2u << PMS_FRAME_INLINE_SHIFT);
	const struct pms_frame v[4][3] = {
		{ { 0x1000, 0 }, { 0x2000, 0 }, { 0x3000, 0 } },
		{ { 0x1000, 0 }, { 0x2000, PMS_FRAME_DWARF }, { 0x3000, 0 } },
		{ { 0x1000, inl }, { 0x2000, 0 }, { 0x3000, 0 } },
		{ { 0x1000, 0 }, { 0x2000, 0 }, { 0x3000, PMS_FRAME_DWARF } },
	};
	CHECK_OK(pms_sys_new(&sys, NULL));
	o.top = 8;
	CHECK_OK(pms_pathprof_new(sys, &o, &p));
	/* path i: i + 1 samples, as 3 frames; and path 1 as its first 2 */
	for (size_t i = 0; i < 4; i++)
		for (size_t k = 0; k <= i; k++) {
			struct pms_memsrc_sample x = mk(v[i], 3, 0, 0, 0);
			CHECK_OK(pms_pathprof_add_src(p, &x, NULL));
		}
	for (int k = 0; k < 6; k++) {
		struct pms_memsrc_sample x = mk(v[1], 2, 0, 0, 0);
		CHECK_OK(pms_pathprof_add_src(p, &x, NULL));
	}
	CHECK_OK(pms_pathprof_report(p, NULL, NULL, false, &r));
	if (r) {
		CHECK_EQ_U64(pms_pathreport_distinct(r), 5);
		CHECK_EQ_U64(pms_pathreport_path_count(r, PMS_PATHS_BY_SAMPLES), 5);
		const struct pms_pathreport_path *two = pms_pathreport_path_at(r, PMS_PATHS_BY_SAMPLES, 0);
		CHECK_EQ_U64(two->samples, 6);
		CHECK_EQ_U64(two->nframes, 2);
		CHECK_EQ_U64(two->frames[1].flags, PMS_FRAME_DWARF);
		/* then v[3], v[2], v[1], v[0]: 4, 3, 2, 1 samples */
		for (size_t j = 1; j < 5; j++) {
			const struct pms_pathreport_path *x = pms_pathreport_path_at(r, PMS_PATHS_BY_SAMPLES, j);
			const struct pms_frame *want = v[4 - j];
			CHECK_EQ_U64(x->samples, 5 - j);
			CHECK_EQ_U64(x->nframes, 3);
			for (size_t f = 0; f < 3 && f < x->nframes; f++) {
				CHECK_EQ_U64(x->frames[f].ip, want[f].ip);
				CHECK_EQ_U64(x->frames[f].flags, want[f].flags);
			}
		}
	}
	pms_pathreport_free(r);
	pms_pathprof_free(p);
	pms_sys_free(sys);
}

PMS_TEST_MAIN()
