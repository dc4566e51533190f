/* Symbols: this test binary's own function by address -> name and
 * file:line (it is built with -g); data addresses -> mappings; maps edits. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/symbols.h"
#include "symbols/symbols_int.h"

int pms_t_symbols_global_table[64] = { 1 };

enum { TARGET_LINE = __LINE__ + 2 };
__attribute__((noinline)) int pms_t_symbols_target(volatile int *p);
__attribute__((noinline)) int pms_t_symbols_target(volatile int *p)
{
	return *p + 1;
}

/* Functions named as a C++ and a Rust compiler would name them (asm labels
 * give a C function the mangled symbol). */
__attribute__((noinline, used)) int pms_t_cxx(volatile int *p) __asm__("_ZN7pmscope5chaseERKSt6vectorIlSaIlEEm");
__attribute__((noinline, used)) int pms_t_cxx(volatile int *p)
{
	return *p + 2;
}
__attribute__((noinline, used)) int pms_t_rust_v0(volatile int *p) __asm__("_RNvNtCs1234_7mycrate5inner5chase");
__attribute__((noinline, used)) int pms_t_rust_v0(volatile int *p)
{
	return *p + 3;
}
__attribute__((noinline, used)) int pms_t_rust_legacy(volatile int *p) __asm__("_ZN7mycrate5inner5chase17h0123456789abcdefE");
__attribute__((noinline, used)) int pms_t_rust_legacy(volatile int *p)
{
	return *p + 4;
}

PMS_TEST(demangled_names)
{
	struct pms_sys *sys = NULL;
	struct pms_maps *maps = NULL;
	struct pms_symbolizer *sym = NULL;
	struct pms_symbol s;
	volatile int x = 1;
	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK_OK(pms_maps_new(&maps));
	CHECK_OK(pms_maps_read_proc(maps, sys, getpid()));
	CHECK_OK(pms_symbolizer_new(sys, maps, &sym));
	if (!sym)
		return;
	CHECK_EQ_INT(pms_t_cxx(&x) + pms_t_rust_v0(&x) + pms_t_rust_legacy(&x), 12);
	CHECK(pms_symbolizer_demangles(sym));
	CHECK_OK(pms_symbolizer_code(sym, (uint64_t)(uintptr_t)&pms_t_cxx + 1, false, &s));
	CHECK_EQ_STR(s.func, "pmscope::chase(std::vector<long, std::allocator<long> > const&, unsigned long)");
	CHECK_OK(pms_symbolizer_code(sym, (uint64_t)(uintptr_t)&pms_t_rust_v0 + 1, false, &s));
	CHECK_EQ_STR(s.func, "mycrate::inner::chase");
	CHECK_OK(pms_symbolizer_code(sym, (uint64_t)(uintptr_t)&pms_t_rust_legacy + 1, false, &s));
	CHECK_EQ_STR(s.func, "mycrate::inner::chase");
	/* A C name stays as it is; the same pointer twice comes from the cache. */
	CHECK_OK(pms_symbolizer_code(sym, (uint64_t)(uintptr_t)&pms_t_symbols_target + 1, false, &s));
	CHECK_EQ_STR(s.func, "pms_t_symbols_target");
	CHECK_OK(pms_symbolizer_code(sym, (uint64_t)(uintptr_t)&pms_t_cxx + 2, false, &s));
	CHECK(s.func && !strncmp(s.func, "pmscope::chase(", 15));
	/* --no-demangle */
	pms_symbolizer_set_demangle(sym, false);
	CHECK(!pms_symbolizer_demangles(sym));
	CHECK_OK(pms_symbolizer_code(sym, (uint64_t)(uintptr_t)&pms_t_cxx + 1, false, &s));
	CHECK_EQ_STR(s.func, "_ZN7pmscope5chaseERKSt6vectorIlSaIlEEm");
	pms_symbolizer_free(sym);
	pms_maps_free(maps);
	pms_sys_free(sys);
}

/* Five names of one function: perf 6.12 keeps one per address
 * (symbols__fixup_duplicate, choose_best_symbol): sized, not weak,
 * global, fewest leading underscores, longest name.  libdwfl's rule (a
 * global first, then the table's order) would name it pms_t_alias_a. */
__attribute__((noinline, used)) int pms_t_alias_a(volatile int *p);
__attribute__((noinline, used)) int pms_t_alias_a(volatile int *p)
{
	return *p + 5;
}
int pms_t_alias_longer_b(volatile int *p) __attribute__((alias("pms_t_alias_a")));
int pms_t_alias_weak_longest_name_c(volatile int *p) __attribute__((weak, alias("pms_t_alias_a")));
int __pms_t_alias_underscored_longest_d(volatile int *p) __attribute__((alias("pms_t_alias_a")));
static int pms_t_alias_local_the_very_longest_e(volatile int *p)
	__attribute__((used, alias("pms_t_alias_a")));

PMS_TEST(aliases_named_as_perf_names_them)
{
	struct pms_sys *sys = NULL;
	struct pms_maps *maps = NULL;
	struct pms_symbolizer *sym = NULL;
	struct pms_symbol s;
	volatile int x = 1;
	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK_OK(pms_maps_new(&maps));
	CHECK_OK(pms_maps_read_proc(maps, sys, getpid()));
	CHECK_OK(pms_symbolizer_new(sys, maps, &sym));
	if (!sym)
		return;
	CHECK_EQ_INT(pms_t_alias_a(&x) + pms_t_alias_local_the_very_longest_e(&x), 12);
	CHECK_OK(pms_symbolizer_code(sym, (uint64_t)(uintptr_t)&pms_t_alias_a + 1, false, &s));
	CHECK_EQ_STR(s.func, "pms_t_alias_longer_b");
	CHECK_EQ_U64(s.offset, 1);
	CHECK(!s.object);
	/* a data object says so (perf prints it name+0xOFF) */
	CHECK_OK(pms_symbolizer_data(sym, (uint64_t)(uintptr_t)&pms_t_symbols_global_table[2], &s));
	CHECK_EQ_STR(s.func, "pms_t_symbols_global_table");
	CHECK(s.object);
	pms_symbolizer_free(sym);
	pms_maps_free(maps);
	pms_sys_free(sys);
}

PMS_TEST(own_function_name_and_line)
{
	struct pms_sys *sys = NULL;
	struct pms_maps *maps = NULL;
	struct pms_symbolizer *sym = NULL;
	void *h = malloc(100); /* before maps are read: the heap may grow */
	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK_OK(pms_maps_new(&maps));
	CHECK_OK(pms_maps_read_proc(maps, sys, getpid()));
	CHECK_OK(pms_symbolizer_new(sys, maps, &sym));
	if (!sym)
		return;
	volatile int x = 1;
	CHECK_EQ_INT(pms_t_symbols_target(&x), 2);
	uint64_t ip = (uint64_t)(uintptr_t)&pms_t_symbols_target;
	struct pms_symbol s;
	CHECK_OK(pms_symbolizer_code(sym, ip + 1, false, &s));
	CHECK(s.func && !strcmp(s.func, "pms_t_symbols_target"));
	CHECK_EQ_U64(s.offset, 1);
	CHECK_MSG(s.file && strstr(s.file, "test_symbols.c"), "file %s", s.file ? s.file : "(null)");
	CHECK_MSG(s.line >= TARGET_LINE && s.line <= TARGET_LINE + 2, "line %d, function at %d",
		  s.line, TARGET_LINE);
	CHECK(s.module && strstr(s.module, "test_symbols_") != NULL);
	CHECK(!s.kernel);

	/* A libc function through its shared library. */
	CHECK_OK(pms_symbolizer_code(sym, (uint64_t)(uintptr_t)&getpid, false, &s));
	CHECK(s.func && strstr(s.func, "getpid"));
	CHECK(s.module && strstr(s.module, "libc"));

	/* Data: the global table is a static object of the binary. */
	CHECK_OK(pms_symbolizer_data(sym, (uint64_t)(uintptr_t)&pms_t_symbols_global_table[3], &s));
	CHECK(s.func && !strcmp(s.func, "pms_t_symbols_global_table"));
	CHECK_EQ_U64(s.offset, 12);

	/* The heap and the stack are mappings, not symbols. */
	const struct pms_map *m = pms_maps_find(maps, (uint64_t)(uintptr_t)h);
	CHECK(m && (m->kind == PMS_MAP_HEAP || m->kind == PMS_MAP_ANON));
	m = pms_maps_find(maps, (uint64_t)(uintptr_t)&x);
	CHECK(m && m->kind == PMS_MAP_STACK);
	CHECK(pms_symbolizer_data(sym, (uint64_t)(uintptr_t)&x, &s) == PMS_ENOENT);
	free(h);

	/* Unmapped: nothing. */
	CHECK(pms_symbolizer_code(sym, 16, false, &s) == PMS_ENOENT);
	pms_symbolizer_free(sym);
	pms_maps_free(maps);
	pms_sys_free(sys);
}

/* pms_sym_code_range: every address of the run it gives for an IP gets
 * the answer the IP got (the same symbol, the offset growing with the
 * address; or none), checked at both ends, the middle and a few more
 * points of the runs around 2,000 IPs spread over libc's text. */
PMS_TEST(code_range_answers_alike)
{
	struct pms_sys *sys = NULL;
	struct pms_maps *maps = NULL;
	struct pms_symbolizer *sym = NULL;
	struct pms_symbol s, t;
	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK_OK(pms_maps_new(&maps));
	CHECK_OK(pms_maps_read_proc(maps, sys, getpid()));
	CHECK_OK(pms_symbolizer_new(sys, maps, &sym));
	if (!sym)
		return;
	const struct pms_map *m = pms_maps_find(maps, (uint64_t)(uintptr_t)&getpid);
	CHECK(m != NULL);
	if (!m) {
		pms_symbolizer_free(sym);
		pms_maps_free(maps);
		pms_sys_free(sys);
		return;
	}
	uint64_t step = (m->end - m->start) / 2000 + 1, runs = 0, named = 0, bad = 0;
	for (uint64_t ip = m->start + 3; ip < m->end; ip += step) {
		uint64_t lo = 1, hi = 0;
		int rc = pms_sym_code_range(sym, 0, ip, &s, &lo, &hi);
		if (lo == hi)
			continue;
		runs++;
		named += rc == 0 && s.func;
		CHECK_MSG(lo <= ip && ip < hi, "0x%llx outside [0x%llx, 0x%llx)",
			  (unsigned long long)ip, (unsigned long long)lo, (unsigned long long)hi);
		uint64_t pts[6] = { lo, hi - 1, lo + (hi - lo) / 2, lo + (hi - lo) / 3, ip + 1, ip - 1 };
		for (int k = 0; k < 6; k++) {
			uint64_t a = pts[k];
			if (a < lo || a >= hi)
				continue;
			(void)pms_symbolizer_code_pid(sym, 0, a, false, false, &t);
			bool same = s.func ? t.func && !strcmp(s.func, t.func) &&
						     t.offset == s.offset + (a - ip)
					   : !t.func;
			bad += !same;
			CHECK_MSG(same, "0x%llx in [0x%llx, 0x%llx) of 0x%llx: %s+%llu, not %s+%llu",
				  (unsigned long long)a, (unsigned long long)lo,
				  (unsigned long long)hi, (unsigned long long)ip,
				  t.func ? t.func : "(none)", (unsigned long long)t.offset,
				  s.func ? s.func : "(none)",
				  (unsigned long long)(s.offset + (a - ip)));
			if (bad > 5)
				break;
		}
		if (bad > 5)
			break;
	}
	pms_error_clear();
	/* libc's text has its table: runs for most IPs, and named ones */
	CHECK_MSG(runs > 1000 && named > 500, "%llu runs, %llu named", (unsigned long long)runs,
		  (unsigned long long)named);
	pms_symbolizer_free(sym);
	pms_maps_free(maps);
	pms_sys_free(sys);
}

PMS_TEST(kernel_addresses_only_when_visible)
{
	struct pms_sys *sys = NULL;
	struct pms_maps *maps = NULL;
	struct pms_symbolizer *sym = NULL;
	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK_OK(pms_maps_new(&maps));
	CHECK_OK(pms_symbolizer_new(sys, maps, &sym));
	struct pms_symbol s;
	if (pms_symbolizer_kernel_visible(sym)) {
		/* Find a real kernel text address the same way a caller would. */
		char *text = NULL;
		CHECK_OK(pms_sys_read_file(sys, "proc/kallsyms", &text, NULL));
		char *p = text ? strstr(text, " T schedule\n") : NULL;
		if (p) {
			while (p > text && p[-1] != '\n')
				p--;
			uint64_t a = strtoull(p, NULL, 16);
			CHECK_OK(pms_symbolizer_code(sym, a + 4, true, &s));
			CHECK(s.func && !strcmp(s.func, "schedule"));
			CHECK_EQ_U64(s.offset, 4);
		}
		free(text);
	} else {
		CHECK(pms_symbolizer_code(sym, 0xffffffff81000000ULL, true, &s) == PMS_ENOENT);
		CHECK(s.func == NULL);
	}
	pms_symbolizer_free(sym);
	pms_maps_free(maps);
	pms_sys_free(sys);
}

PMS_TEST(maps_replace_split_and_parse)
{
	struct pms_maps *m = NULL;
	CHECK_OK(pms_maps_new(&m));
	CHECK_OK(pms_maps_parse(m, "1000-5000 r-xp 00000000 08:01 42 /bin/x\n"
				   "6000-7000 rw-p 00000000 00:00 0 [heap]\n"
				   "7000-8000 rw-p 00000000 00:00 0 \n"));
	CHECK_EQ_INT((int)m->n, 3);
	/* An mmap over the middle of /bin/x splits it; pgoff follows. */
	CHECK_OK(pms_maps_add(m, 0x2000, 0x1000, 0, 0, false, ""));
	CHECK_EQ_INT((int)m->n, 5);
	const struct pms_map *p = pms_maps_find(m, 0x3800);
	CHECK(p && p->start == 0x3000 && p->pgoff == 0x2000 && p->kind == PMS_MAP_FILE);
	p = pms_maps_find(m, 0x2800);
	CHECK(p && p->kind == PMS_MAP_ANON);
	p = pms_maps_find(m, 0x6010);
	CHECK(p && p->kind == PMS_MAP_HEAP);
	CHECK(pms_maps_find(m, 0x5800) == NULL);
	pms_maps_remove(m, 0x0, 0x6800);
	p = pms_maps_find(m, 0x6900);
	CHECK(p && p->start == 0x6800);
	CHECK_EQ_INT((int)m->n, 2);
	CHECK(pms_maps_parse(m, "garbage\n") == PMS_EPARSE);
	pms_maps_free(m);
}

/* Random adds and removes against a unit-by-unit model: after each step
 * the list is exactly the runs of the model (a later mapping replaces what
 * it overlaps; a straddled one splits; pgoff follows the cut). */
PMS_TEST(maps_match_a_unit_model_under_random_adds)
{
	enum { UNITS = 96 };
	struct pms_maps *m = NULL;
	int id[UNITS];
	uint64_t off[UNITS];
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	CHECK_OK(pms_maps_new(&m));
	if (!m)
		return;
	for (int u = 0; u < UNITS; u++)
		id[u] = -1;
	for (int step = 0; step < 4000; step++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		int a = (int)((seed >> 33) % UNITS), len = 1 + (int)((seed >> 20) % 12);
		if (a + len > UNITS)
			len = UNITS - a;
		bool rm = ((seed >> 10) & 7) == 0;
		char path[16];
		snprintf(path, sizeof(path), "/f%d", step);
		if (rm)
			pms_maps_remove(m, (uint64_t)a * 16, (uint64_t)len * 16);
		else
			CHECK_OK(pms_maps_add(m, (uint64_t)a * 16, (uint64_t)len * 16, 1000 + step, 0,
					      false, path));
		for (int u = a; u < a + len; u++) {
			id[u] = rm ? -1 : step;
			off[u] = 1000 + (uint64_t)step + (uint64_t)(u - a) * 16;
		}
		/* the model's runs */
		size_t k = 0;
		bool same = true;
		for (int u = 0; u < UNITS;) {
			if (id[u] < 0) {
				u++;
				continue;
			}
			int v = u;
			while (v < UNITS && id[v] == id[u])
				v++;
			if (k >= m->n || m->v[k].start != (uint64_t)u * 16 ||
			    m->v[k].end != (uint64_t)v * 16 || m->v[k].pgoff != off[u])
				same = false;
			k++;
			u = v;
		}
		if (!same || k != m->n) {
			CHECK(same && k == m->n);
			break;
		}
		/* and find agrees */
		for (int u = 0; u < UNITS; u++) {
			const struct pms_map *f = pms_maps_find(m, (uint64_t)u * 16 + 3);
			if ((f != NULL) != (id[u] >= 0)) {
				CHECK(!"pms_maps_find disagrees with the model");
				step = 1 << 30;
				break;
			}
		}
	}
	pms_maps_free(m);
}

PMS_TEST(map_kind_names)
{
	struct pms_maps *m = NULL;
	CHECK_OK(pms_maps_new(&m));
	if (!m)
		return;
	/* the kind a /proc/PID/maps line parses to, and its name */
	CHECK_OK(pms_maps_parse(m, "00400000-00401000 r-xp 00000000 08:01 12 /bin/x\n"
				   "01000000-01021000 rw-p 00000000 00:00 0 [heap]\n"
				   "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
				   "7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n"
				   "7ffc00100000-7ffc00102000 r-xp 00000000 00:00 0 [vdso]\n"));
	const char *want[][2] = { { "0x400000", "file" }, { "0x1000000", "heap" },
				  { "0x7f0000000000", "anon" }, { "0x7ffc00000000", "stack" },
				  { "0x7ffc00100000", "special" } };
	for (size_t i = 0; i < 5; i++) {
		const struct pms_map *mp = pms_maps_find(m, strtoull(want[i][0], NULL, 16));
		CHECK_MSG(mp != NULL, "%s", want[i][0]);
		if (mp)
			CHECK_EQ_STR(pms_map_kind_name(mp->kind), want[i][1]);
	}
	CHECK_EQ_STR(pms_map_kind_name((enum pms_map_kind)99), "?");
	pms_maps_free(m);
}

PMS_TEST_MAIN()
