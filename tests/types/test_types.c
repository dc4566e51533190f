/* The type resolver: capstone decoding of written x86-64 and aarch64
 * instructions (memory operand, load/store, written registers), and the
 * globals of this very program (built with -g) resolved to their members
 * through nested structs, arrays and unions by address. */

#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/types.h"
#include "types/types_int.h"

PMS_TEST(x86_64_memory_operands)
{
	struct ty_decoder *d;
	struct ty_insn in;
	CHECK_OK(ty_decoder_new(TY_ARCH_X86_64, &d));
	static const uint8_t load[] = { 0x8b, 0x50, 0x10 };       /* mov 0x10(%rax),%edx */
	CHECK(ty_decode(d, load, sizeof(load), 0x1000, &in) == 0);
	CHECK(in.has_mem && in.base == 0 && in.disp == 0x10 && in.load && !in.store);
	CHECK(in.mem_size == 4 && in.kind == TY_K_OTHER && (in.written & 2));
	static const uint8_t store[] = { 0x89, 0x57, 0x08 };      /* mov %edx,0x8(%rdi) */
	CHECK(ty_decode(d, store, sizeof(store), 0x1000, &in) == 0);
	CHECK(in.has_mem && in.base == 5 && in.disp == 8 && in.store && in.kind == TY_K_STORE);
	static const uint8_t slot[] = { 0x48, 0x8b, 0x45, 0xe8 }; /* mov -0x18(%rbp),%rax */
	CHECK(ty_decode(d, slot, sizeof(slot), 0x1000, &in) == 0);
	CHECK(in.kind == TY_K_LOAD && in.dst == 0 && in.base == 6 && in.disp == -0x18);
	CHECK(in.mem_size == 8);
	/* mov 0x2f00(%rip),%eax: RIP-relative */
	static const uint8_t rip[] = { 0x8b, 0x05, 0x00, 0x2f, 0x00, 0x00 };
	CHECK(ty_decode(d, rip, sizeof(rip), 0x1000, &in) == 0);
	CHECK(in.rip_rel && in.disp == 0x2f00 && in.size == 6);
	/* mov %fs:0xfffffffffffffffc,%eax: TLS (local exec) */
	static const uint8_t tls[] = { 0x64, 0x8b, 0x04, 0x25, 0xfc, 0xff, 0xff, 0xff };
	CHECK(ty_decode(d, tls, sizeof(tls), 0x1000, &in) == 0);
	CHECK(in.fs_seg && in.base == TY_REG_NONE && in.disp == -4);
	static const uint8_t add[] = { 0x01, 0xd0 };              /* add %edx,%eax */
	CHECK(ty_decode(d, add, sizeof(add), 0x1000, &in) == 0);
	CHECK(!in.has_mem && (in.written & 1));
	static const uint8_t bad[] = { 0x0f, 0xff };
	CHECK(ty_decode(d, bad, 1, 0x1000, &in) == -1);
	ty_decoder_free(d);
}

PMS_TEST(aarch64_memory_operands)
{
	struct ty_decoder *d;
	struct ty_insn in;
	CHECK_OK(ty_decoder_new(TY_ARCH_AARCH64, &d));
	static const uint8_t ldr[] = { 0x01, 0x08, 0x40, 0xf9 }; /* ldr x1, [x0, #16] */
	CHECK(ty_decode(d, ldr, 4, 0x400000, &in) == 0);
	CHECK(in.has_mem && in.base == 0 && in.disp == 16 && in.load && !in.store);
	CHECK(in.kind == TY_K_LOAD && in.dst == 1 && in.mem_size == 8);
	static const uint8_t str[] = { 0x22, 0x04, 0x00, 0xb9 }; /* str w2, [x1, #4] */
	CHECK(ty_decode(d, str, 4, 0x400000, &in) == 0);
	CHECK(in.has_mem && in.base == 1 && in.disp == 4 && in.store && in.mem_size == 4);
	static const uint8_t sp[] = { 0xe0, 0x0f, 0x40, 0xf9 };  /* ldr x0, [sp, #24] */
	CHECK(ty_decode(d, sp, 4, 0x400000, &in) == 0);
	CHECK(in.base == 31 && in.disp == 24);
	/* index arithmetic the tracked walk follows (issue 29, aarch64 bed) */
	static const uint8_t madd[] = { 0x41, 0x00, 0x03, 0x9b }; /* madd x1, x2, x3, x0 */
	CHECK(ty_decode(d, madd, 4, 0x400000, &in) == 0);
	CHECK(in.kind == TY_K_LEA && in.dst == 1 && in.base == 0 && in.index == 2 && !in.has_mem);
	static const uint8_t smaddl[] = { 0x21, 0x00, 0x23, 0x9b }; /* smaddl x1, w1, w3, x0 */
	CHECK(ty_decode(d, smaddl, 4, 0x400000, &in) == 0);
	CHECK(in.kind == TY_K_LEA && in.dst == 1 && in.base == 0 && in.index == 1);
	static const uint8_t addsh[] = { 0x81, 0x0e, 0x00, 0x8b }; /* add x1, x20, x0, lsl #3 */
	CHECK(ty_decode(d, addsh, 4, 0x400000, &in) == 0);
	CHECK(in.kind == TY_K_LEA && in.base == 20 && in.index == 0 && in.scale == 8);
	static const uint8_t add[] = { 0x09, 0x01, 0x09, 0x8b }; /* add x9, x8, x9 */
	CHECK(ty_decode(d, add, 4, 0x400000, &in) == 0);
	CHECK(in.kind == TY_K_LEA && in.base == 8 && in.index == 9 && in.scale == 1);
	static const uint8_t movi[] = { 0x09, 0x0e, 0x80, 0xd2 }; /* mov x9, #0x70 */
	CHECK(ty_decode(d, movi, 4, 0x400000, &in) == 0);
	CHECK(in.kind == TY_K_MOVI && in.dst == 9 && in.disp == 0x70);
	ty_decoder_free(d);
}

struct t_in {
	int x;
	short y[4];
};
struct t_rec {
	long a;
	struct t_in b[3];
	union {
		int u;
		char c[8];
	} un;
	double tail;
};
struct t_rec t_global_rec;
struct t_in t_global_arr[5];

static int bias_cb(struct dl_phdr_info *info, size_t size, void *ud)
{
	(void)size;
	*(uint64_t *)ud = info->dlpi_addr; /* the first is the program */
	return 1;
}

static void expect(struct pms_typeres *r, const char *exe, uint64_t bias, const void *addr,
		   const char *type, const char *member, int64_t offset)
{
	struct pms_type_hit h;
	CHECK_OK(pms_typeres_lookup(r, exe, bias, (uint64_t)(uintptr_t)&expect,
				    (uint64_t)(uintptr_t)addr, true, &h));
	CHECK_MSG(h.status == PMS_TYPE_OK, "status %s", pms_type_status_name(h.status));
	if (h.status != PMS_TYPE_OK)
		return;
	CHECK_EQ_STR(h.type, type);
	CHECK_EQ_STR(h.member, member);
	CHECK(h.offset == offset && h.via == PMS_TYPE_VIA_GLOBAL);
	/* perf's sort keys */
	char want[300], got[300];
	pms_type_hit_key(&h, PMS_TYPE_KEY_TYPE, got, sizeof(got));
	CHECK_EQ_STR(got, type);
	/* perf's member name stops at the first array */
	int cut = (int)strcspn(member, "[");
	if (cut)
		snprintf(want, sizeof(want), "%s +%#llx (%.*s)", type, (unsigned long long)offset,
			 cut, member);
	else
		snprintf(want, sizeof(want), "%s +%#llx (no field)", type,
			 (unsigned long long)offset);
	pms_type_hit_key(&h, PMS_TYPE_KEY_TYPEOFF, got, sizeof(got));
	CHECK_EQ_STR(got, want);
	snprintf(want, sizeof(want), "%s: cache-line %lld", type, (long long)offset / 64);
	pms_type_hit_key(&h, PMS_TYPE_KEY_TYPECLN, got, sizeof(got));
	CHECK_EQ_STR(got, want);
}

PMS_TEST(globals_by_address_name_members)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0);
	exe[n > 0 ? n : 0] = 0;
	uint64_t bias = 0;
	dl_iterate_phdr(bias_cb, &bias);
	struct pms_typeres *r;
	CHECK_OK(pms_typeres_new(&r));
	expect(r, exe, bias, &t_global_rec.a, "struct t_rec", "a", 0);
	expect(r, exe, bias, &t_global_rec.b[2].y[3], "struct t_rec", "b[2].y[3]",
	       (int64_t)offsetof(struct t_rec, b[2].y[3]));
	expect(r, exe, bias, (char *)&t_global_rec.b[1].x + 1, "struct t_rec", "b[1].x",
	       (int64_t)offsetof(struct t_rec, b[1].x) + 1);
	expect(r, exe, bias, &t_global_rec.un.c[5], "struct t_rec", "un.c[5]",
	       (int64_t)offsetof(struct t_rec, un.c[5]));
	expect(r, exe, bias, &t_global_rec.tail, "struct t_rec", "tail",
	       (int64_t)offsetof(struct t_rec, tail));
	expect(r, exe, bias, &t_global_arr[3].y[1], "struct t_in[]", "[3].y[1]",
	       (int64_t)(3 * sizeof(struct t_in) + offsetof(struct t_in, y[1])));
	/* no binary, a file without DWARF */
	struct pms_type_hit h;
	CHECK_OK(pms_typeres_lookup(r, "", 0, 1, 0, false, &h));
	CHECK(h.status == PMS_TYPE_NO_BINARY);
	CHECK_OK(pms_typeres_lookup(r, "/nonexistent/bin", 0, 1, 0, false, &h));
	CHECK(h.status == PMS_TYPE_NO_BINARY);
	char key[32];
	pms_type_hit_key(&h, PMS_TYPE_KEY_TYPEOFF, key, sizeof(key));
	CHECK_EQ_STR(key, "(unknown) +0 (no field)");
	pms_type_hit_key(&h, PMS_TYPE_KEY_TYPECLN, key, sizeof(key));
	CHECK_EQ_STR(key, "(unknown): cache-line 0");
	pms_type_hit_key(&h, PMS_TYPE_KEY_TYPE, key, sizeof(key));
	CHECK_EQ_STR(key, "(unknown)");
	CHECK(!strcmp(pms_type_status_name(PMS_TYPE_NO_DEBUG), "no-debug"));
	pms_typeres_free(r);
}

__thread struct t_rec t_tls_rec;

__attribute__((noinline)) static void tls_touch(int v)
{
	t_tls_rec.b[1].y[2] = (short)v;
}

PMS_TEST(tls_through_the_fs_operand)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0);
	exe[n > 0 ? n : 0] = 0;
	uint64_t bias = 0;
	dl_iterate_phdr(bias_cb, &bias);
	tls_touch(3);
	/* the function's instructions: the first one with an %fs operand */
	struct ty_decoder *d;
	CHECK_OK(ty_decoder_new(TY_ARCH_X86_64, &d));
	const uint8_t *code = (const uint8_t *)&tls_touch;
	uint64_t ip = 0;
	for (size_t off = 0; off < 64;) {
		struct ty_insn in;
		if (ty_decode(d, code + off, 16, (uint64_t)(uintptr_t)(code + off), &in) != 0)
			break;
		if (in.fs_seg && in.has_mem && in.base == TY_REG_NONE) {
			ip = (uint64_t)(uintptr_t)(code + off);
			break;
		}
		off += in.size;
	}
	ty_decoder_free(d);
	if (!ip)
		PMS_SKIP("no local-exec %%fs access in tls_touch (another TLS model)");
	struct pms_typeres *r;
	struct pms_type_hit h;
	CHECK_OK(pms_typeres_new(&r));
	CHECK_OK(pms_typeres_lookup(r, exe, bias, ip, 0, false, &h));
	CHECK_MSG(h.status == PMS_TYPE_OK, "status %s", pms_type_status_name(h.status));
	if (h.status == PMS_TYPE_OK) {
		CHECK_EQ_STR(h.type, "struct t_rec");
		CHECK_EQ_STR(h.member, "b[1].y[2]");
		CHECK(h.via == PMS_TYPE_VIA_TLS && h.store);
	}
	pms_typeres_free(r);
}

/* The advice on a generated layout: a and b, written by two threads on one
 * line (pad), the hot members a, b, c, hot2 on lines 0, 1 and 3 (hot/cold:
 * one line when put first), c mostly accessed remotely from two nodes
 * (per node). */
struct t_adv {
	long a, b;
	char cold1[48];
	long c;
	char cold2[168];
	long hot2;
};
struct t_adv t_adv_g;

struct exec_map {
	uint64_t start, pgoff;
};

static int exec_cb(struct dl_phdr_info *info, size_t size, void *ud)
{
	(void)size;
	struct exec_map *m = ud;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			m->start = info->dlpi_addr + (ph->p_vaddr & ~(uint64_t)0xfff);
			m->pgoff = ph->p_offset & ~(uint64_t)0xfff;
			break;
		}
	}
	return 1; /* the first is the program */
}

static void adv_add(struct pms_typeprof *p, const char *exe, const struct exec_map *m,
		    const void *addr, uint32_t tid, int store, int cpu_node, int mem_node, int times)
{
	struct pms_typeprof_sample s = { 0 };
	s.path = exe;
	s.map_start = m->start;
	s.map_pgoff = m->pgoff;
	s.ip = (uint64_t)(uintptr_t)&adv_add;
	s.addr = (uint64_t)(uintptr_t)addr;
	s.has_addr = true;
	s.tid = tid;
	s.store = store;
	s.cpu_node = cpu_node;
	s.mem_node = mem_node;
	s.hitm = store == 0 && tid == 2;
	for (int i = 0; i < times; i++)
		CHECK_OK(pms_typeprof_add(p, &s, NULL));
}

static const struct pms_type_advice *adv_find(const struct pms_type_advice *a, size_t n,
					      enum pms_type_advice_kind kind)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].kind == kind && !strcmp(a[i].type, "struct t_adv"))
			return &a[i];
	return NULL;
}

PMS_TEST(advice_pad_hotcold_pernode)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0);
	exe[n > 0 ? n : 0] = 0;
	struct exec_map m = { 0, 0 };
	dl_iterate_phdr(exec_cb, &m);
	struct pms_typeprof *p;
	CHECK_OK(pms_typeprof_new(&p));
	adv_add(p, exe, &m, &t_adv_g.a, 1, 1, 0, 0, 20);
	adv_add(p, exe, &m, &t_adv_g.b, 2, 1, 0, 0, 20);
	adv_add(p, exe, &m, &t_adv_g.b, 2, 0, 0, 0, 5);
	adv_add(p, exe, &m, &t_adv_g.c, 3, 0, 1, 0, 12);
	adv_add(p, exe, &m, &t_adv_g.c, 1, 0, 0, 0, 3);
	adv_add(p, exe, &m, &t_adv_g.hot2, 1, 0, 0, 0, 10);
	adv_add(p, exe, &m, &t_adv_g.cold1[3], 1, 0, 0, 0, 1);
	struct pms_type_advice *a = NULL;
	size_t na = 0;
	CHECK_OK(pms_typeprof_advise(p, &a, &na));
	const struct pms_type_advice *pad = adv_find(a, na, PMS_TYPE_ADVICE_PAD);
	CHECK(pad != NULL);
	if (pad) {
		CHECK(pad->line == 0 && pad->n_members == 2 && pad->writer_threads == 2);
		CHECK(!pad->elements);
		CHECK(pad->n_members == 2 && !strcmp(pad->members[0], "a") &&
		      !strcmp(pad->members[1], "b"));
		CHECK(pad->hitm == 5 && pad->stores == 40);
		/* a and b each on a line of their own, cold1 after b's line */
		CHECK(pad->n_layout == 6 && pad->layout[0].offset == 0 &&
		      pad->layout[1].offset == 64 && pad->layout[2].offset == 128);
		CHECK(pad->layout[0].hole == 56 && pad->lines_before == 1 && pad->lines_after == 2);
	}
	/* hot: b (written by thread 2), a (thread 1), c and hot2 (read): b, c
	 * and hot2 on one line, a (another thread's writes) from the next */
	const struct pms_type_advice *hc = adv_find(a, na, PMS_TYPE_ADVICE_HOTCOLD);
	CHECK(hc != NULL);
	if (hc) {
		CHECK(hc->lines_before == 3 && hc->lines_after == 2);
		CHECK(hc->n_members == 4 && hc->n_layout == 6);
		CHECK(hc->n_layout == 6 && !strcmp(hc->layout[0].name, "b") &&
		      !strcmp(hc->layout[1].name, "c") && !strcmp(hc->layout[2].name, "hot2") &&
		      !strcmp(hc->layout[3].name, "a") && hc->layout[3].offset == 64 &&
		      !strcmp(hc->layout[5].name, "cold2"));
		CHECK(hc->layout[2].hole == 64 - 24);
	}
	const struct pms_type_advice *pn = adv_find(a, na, PMS_TYPE_ADVICE_PERNODE);
	CHECK(pn != NULL);
	if (pn) {
		CHECK(pn->n_members == 1 && !strcmp(pn->members[0], "c"));
		CHECK(pn->remote == 12 && pn->node_known == 15 && pn->cpu_nodes == 3);
	}
	pms_type_advice_free(a, na);
	pms_typeprof_free(p);
}

/* Hot/cold and writer threads (issue 29): w1 and w2 hot, far apart,
 * written by two threads: no layout puts them on one line (here none helps:
 * no advice); x and y hot, far apart, written by one thread: put together. */
struct t_adv2 {
	long w1;
	char cold[200];
	long w2;
};
struct t_adv2 t_adv2_g;
struct t_adv3 {
	long x;
	char cold[200];
	long y;
};
struct t_adv3 t_adv3_g;

static const struct pms_type_advice *adv_of(const struct pms_type_advice *a, size_t n,
					    enum pms_type_advice_kind kind, const char *type)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].kind == kind && !strcmp(a[i].type, type))
			return &a[i];
	return NULL;
}

PMS_TEST(advice_hotcold_writer_threads)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0);
	exe[n > 0 ? n : 0] = 0;
	struct exec_map m = { 0, 0 };
	dl_iterate_phdr(exec_cb, &m);
	struct pms_typeprof *p;
	CHECK_OK(pms_typeprof_new(&p));
	adv_add(p, exe, &m, &t_adv2_g.w1, 1, 1, 0, 0, 20);
	adv_add(p, exe, &m, &t_adv2_g.w2, 2, 1, 0, 0, 20);
	adv_add(p, exe, &m, &t_adv2_g.cold[100], 1, 0, 0, 0, 1);
	adv_add(p, exe, &m, &t_adv3_g.x, 7, 1, 0, 0, 20);
	adv_add(p, exe, &m, &t_adv3_g.y, 7, 1, 0, 0, 20);
	adv_add(p, exe, &m, &t_adv3_g.x, 8, 0, 0, 0, 4); /* another thread reads */
	adv_add(p, exe, &m, &t_adv3_g.cold[100], 7, 0, 0, 0, 1);
	struct pms_type_advice *a = NULL;
	size_t na = 0;
	CHECK_OK(pms_typeprof_advise(p, &a, &na));
	/* two threads' hot writes: not proposed together */
	CHECK(adv_of(a, na, PMS_TYPE_ADVICE_HOTCOLD, "struct t_adv2") == NULL);
	for (size_t i = 0; i < na; i++)
		if (!strcmp(a[i].type, "struct t_adv2") && a[i].kind == PMS_TYPE_ADVICE_HOTCOLD)
			CHECK(a[i].n_members < 2);
	/* one thread's: still proposed, on one line */
	const struct pms_type_advice *hc = adv_of(a, na, PMS_TYPE_ADVICE_HOTCOLD, "struct t_adv3");
	CHECK(hc != NULL);
	if (hc) {
		CHECK(hc->n_members == 2 && hc->lines_before == 2 && hc->lines_after == 1);
		CHECK(hc->n_layout == 3 && !strcmp(hc->layout[0].name, "x") &&
		      !strcmp(hc->layout[1].name, "y") && hc->layout[1].offset == 8 &&
		      !strcmp(hc->layout[2].name, "cold"));
	}
	pms_type_advice_free(a, na);
	pms_typeprof_free(p);
}

/* Hot/cold and the cold members' writer threads (issue 29): the cold ones
 * after the hot in groups by writing thread, each group after the first
 * from a line's start (c2, thread 2's, apart from c1 and c3, thread 1's);
 * the first group too where it would share the last hot line with another
 * thread's writes (t_adv5: c1, thread 8's, after h1 and h2, thread 7's). */
struct t_adv4 {
	long h1;
	long c1;
	char pad1[100];
	long c2;
	long c3;
	char pad2[100];
	long h2;
};
struct t_adv4 t_adv4_g;
struct t_adv5 {
	long h1;
	long c1;
	char pad[200];
	long h2;
};
struct t_adv5 t_adv5_g;

PMS_TEST(advice_hotcold_cold_writer_threads)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0);
	exe[n > 0 ? n : 0] = 0;
	struct exec_map m = { 0, 0 };
	dl_iterate_phdr(exec_cb, &m);
	struct pms_typeprof *p;
	CHECK_OK(pms_typeprof_new(&p));
	adv_add(p, exe, &m, &t_adv4_g.h1, 7, 0, 0, 0, 20);
	adv_add(p, exe, &m, &t_adv4_g.h2, 7, 0, 0, 0, 20);
	adv_add(p, exe, &m, &t_adv4_g.c1, 1, 1, 0, 0, 1);
	adv_add(p, exe, &m, &t_adv4_g.c2, 2, 1, 0, 0, 1);
	adv_add(p, exe, &m, &t_adv4_g.c3, 1, 1, 0, 0, 1);
	adv_add(p, exe, &m, &t_adv5_g.h1, 7, 1, 0, 0, 20);
	adv_add(p, exe, &m, &t_adv5_g.h2, 7, 1, 0, 0, 20);
	adv_add(p, exe, &m, &t_adv5_g.c1, 8, 1, 0, 0, 1);
	struct pms_type_advice *a = NULL;
	size_t na = 0;
	CHECK_OK(pms_typeprof_advise(p, &a, &na));
	const struct pms_type_advice *hc = adv_of(a, na, PMS_TYPE_ADVICE_HOTCOLD, "struct t_adv4");
	CHECK(hc != NULL);
	if (hc) {
		static const char *const want[] = { "h1", "h2", "c1", "pad1", "c3", "pad2", "c2" };
		static const uint64_t off[] = { 0, 8, 16, 24, 128, 136, 256 };
		CHECK(hc->n_members == 2 && hc->lines_before == 2 && hc->lines_after == 1);
		CHECK(hc->n_layout == 7);
		for (size_t i = 0; hc->n_layout == 7 && i < 7; i++)
			CHECK(!strcmp(hc->layout[i].name, want[i]) && hc->layout[i].offset == off[i]);
		CHECK(hc->size_after == 264);
	}
	hc = adv_of(a, na, PMS_TYPE_ADVICE_HOTCOLD, "struct t_adv5");
	CHECK(hc != NULL);
	if (hc) {
		CHECK(hc->n_members == 2 && hc->lines_before == 2 && hc->lines_after == 1);
		CHECK(hc->n_layout == 4 && !strcmp(hc->layout[0].name, "h1") &&
		      !strcmp(hc->layout[1].name, "h2") && !strcmp(hc->layout[2].name, "c1") &&
		      hc->layout[2].offset == 64 && !strcmp(hc->layout[3].name, "pad") &&
		      hc->layout[3].offset == 72);
	}
	pms_type_advice_free(a, na);
	pms_typeprof_free(p);
}

PMS_TEST_MAIN()
