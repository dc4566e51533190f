/* proc/kallsyms read as far as a lookup needs (src/symbols/kallsyms.c):
 * every answer equals perf's rule applied to the whole table (the kept
 * types, the last line at an address, the last line of the core kernel or
 * of a module ending a page past it), on generated
 * tables laid out as x86-64's (modules above the kernel) and arm64's
 * (modules below it, listed after it), and a lookup in the core kernel
 * stops reading early. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/symbols.h"
#include "pmuscope/sys.h"
#include "symbols/kallsyms.h"

struct ent {
	uint64_t addr;
	char type;
	char name[32];
};

/* the index of the first module line of the table written last */
static size_t first_module = SIZE_MAX;

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A root with proc/kallsyms holding the entries in order (modules with a
 * "\t[mod]" suffix), the last line without its newline when cut. */
static struct pms_sys *make_root(char *dir, const struct ent *e, size_t n, size_t nzero,
				 size_t first_mod, bool cut)
{
	char path[256];
	first_module = first_mod;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/proc", dir);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/proc/kallsyms", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return NULL;
	for (size_t i = 0; i < nzero; i++)
		fprintf(f, "0000000000000000 A fixed_percpu_%zu\n", i);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%016llx %c %s%s%s", (unsigned long long)e[i].addr, e[i].type, e[i].name,
			i >= first_mod ? "\t[mod]" : "", i + 1 == n && cut ? "" : "\n");
	fclose(f);
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	o.root = dir;
	CHECK_OK(pms_sys_new(&sys, &o));
	return sys;
}

static void drop_root(const char *dir, struct pms_sys *sys)
{
	char path[256];
	pms_sys_free(sys);
	snprintf(path, sizeof(path), "%s/proc/kallsyms", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc", dir);
	rmdir(path);
	rmdir(dir);
}

/* perf's kallsyms rule (tools/perf/util/symbol.c symbol_type__filter,
 * symbols__fixup_end, symbols__fixup_duplicate) over the whole table, by
 * a scan: the kept line with the highest address at or below ip, the
 * last in file order of equal ones; when no kept line of its part (core
 * or module) lies above it, it ends at the page boundary past the page
 * after it. */
static bool kept(char c)
{
	return (c && strchr("tTwWdDbB", c)) || c == 'u' || c == 'l' || c == 'N';
}

static const struct ent *floor_of(const struct ent *e, size_t n, uint64_t ip)
{
	const struct ent *best = NULL;
	for (size_t i = 0; i < n; i++)
		if (kept(e[i].type) && e[i].addr <= ip && (!best || e[i].addr >= best->addr))
			best = &e[i];
	if (!best)
		return NULL;
	bool bmod = (size_t)(best - e) >= first_module, above = false;
	for (size_t i = 0; i < n; i++)
		if (kept(e[i].type) && e[i].addr > best->addr && (i >= first_module) == bmod)
			above = true;
	uint64_t end = (best->addr + 4095) / 4096 * 4096 + 4096;
	return above || ip < end ? best : NULL;
}

/* n entries: core ones ascending from core0, then nmod module ones in
 * random order from mod0 (distinct addresses throughout). */
static struct ent *make_table(size_t ncore, size_t nmod, uint64_t core0, uint64_t mod0)
{
	static const char types[] = "tTTTtdDbrWw";
	struct ent *e = calloc(ncore + nmod, sizeof(*e));
	uint64_t a = core0;
	for (size_t i = 0; i < ncore; i++) {
		a += 16 + (rnd() % 256) * 16; /* 40000 lines: about 80 MiB of text */
		e[i].addr = a;
		e[i].type = types[rnd() % (sizeof(types) - 1)];
		snprintf(e[i].name, sizeof(e[i].name), "core_fn_%zu", i);
	}
	for (size_t i = 0; i < nmod; i++) {
		e[ncore + i].addr = mod0 + i * 4096 + 16;
		e[ncore + i].type = i % 5 ? 't' : 'd';
		snprintf(e[ncore + i].name, sizeof(e[ncore + i].name), "mod_fn_%zu", i);
	}
	for (size_t i = nmod; i > 1; i--) { /* shuffle the modules' symbols */
		size_t j = (size_t)(rnd() % i);
		struct ent t = e[ncore + i - 1];
		e[ncore + i - 1] = e[ncore + j];
		e[ncore + j] = t;
	}
	return e;
}

static void check_lookups(const char *what, struct pms_ktab *t, const struct ent *e, size_t n,
			  const uint64_t *ips, size_t nips)
{
	size_t bad = 0;
	for (size_t i = 0; i < nips; i++) {
		const struct ent *want = floor_of(e, n, ips[i]);
		const struct ksym *got = pms_ktab_find(t, ips[i]);
		if (!want != !got || (got && (got->addr != want->addr || strcmp(got->name, want->name))))
			bad++;
	}
	CHECK_MSG(bad == 0, "%s: %zu of %zu lookups differ from the whole table's floor", what,
		  bad, nips);
}

PMS_TEST(x86_layout_random_lookups_equal_the_whole_table)
{
	size_t ncore = 30000, nmod = 20000, n = ncore + nmod; /* modules over many pieces */
	struct ent *e = make_table(ncore, nmod, 0xffffffff81000000ULL, 0xffffffffc0000000ULL);
	char dir[] = "/tmp/pms-ksyms-XXXXXX";
	struct pms_sys *sys = make_root(dir, e, n, 3, ncore, true);
	uint64_t lo = e[0].addr - 64, hi = 0xffffffffc0000000ULL + nmod * 4096 + 64;
	uint64_t ips[3000];
	for (size_t i = 0; i < 3000; i++) {
		/* mostly the core kernel, some below it, some in modules */
		uint64_t r = rnd();
		ips[i] = r % 10 == 0 ? 0xffffffffc0000000ULL + r % (nmod * 4096 + 64)
				     : lo + r % (e[ncore - 1].addr + 64 - lo);
	}
	/* last: an address below the first symbol reads the whole table */
	ips[2997] = e[ncore - 1].addr;
	ips[2998] = hi;
	ips[2999] = lo;
	/* in order, each lookup on the table as read so far */
	struct pms_ktab t;
	pms_ktab_init(&t, sys);
	CHECK(pms_ktab_visible(&t));
	check_lookups("x86-64 layout", &t, e, n, ips, 3000);
	CHECK(t.eof);
	pms_ktab_free(&t);
	drop_root(dir, sys);
	free(e);
}

PMS_TEST(core_lookup_stops_reading_early)
{
	size_t ncore = 40000, nmod = 100, n = ncore + nmod;
	struct ent *e = make_table(ncore, nmod, 0xffffffff81000000ULL, 0xffffffffc0000000ULL);
	char dir[] = "/tmp/pms-ksyms-XXXXXX";
	struct pms_sys *sys = make_root(dir, e, n, 0, ncore, false);
	struct pms_ktab t;
	pms_ktab_init(&t, sys);
	const struct ksym *k = pms_ktab_find(&t, e[1000].addr + 3);
	const struct ent *want = floor_of(e, n, e[1000].addr + 3);
	CHECK(k && want && k->addr == want->addr && !strcmp(k->name, want->name));
	/* 40000 lines are about 1.5 MB: one 64 KiB piece holds line 1000 */
	CHECK_MSG(!t.eof && t.n < 4000, "read %zu symbols for line 1000", t.n);
	/* a module address needs the whole table */
	uint64_t ip = 0xffffffffc0000000ULL + 7 * 4096 + 40;
	k = pms_ktab_find(&t, ip);
	want = floor_of(e, n, ip);
	CHECK(k && want && k->addr == want->addr && !strcmp(k->name, want->name));
	CHECK(t.eof);
	pms_ktab_free(&t);
	drop_root(dir, sys);
	free(e);
}

PMS_TEST(arm64_layout_modules_below_the_kernel)
{
	size_t ncore = 5000, nmod = 300, n = ncore + nmod;
	struct ent *e = make_table(ncore, nmod, 0xffff800080000000ULL, 0xffff800000000000ULL);
	char dir[] = "/tmp/pms-ksyms-XXXXXX";
	struct pms_sys *sys = make_root(dir, e, n, 0, ncore, false);
	uint64_t ips[1000];
	for (size_t i = 0; i < 1000; i++)
		ips[i] = i % 2 ? 0xffff800000000000ULL + rnd() % (nmod * 4096)
			       : e[0].addr + rnd() % (e[ncore - 1].addr - e[0].addr + 64);
	struct pms_ktab t;
	pms_ktab_init(&t, sys);
	check_lookups("arm64 layout", &t, e, n, ips, 1000);
	pms_ktab_free(&t);
	/* the first lookup a module address: read whole, answered right */
	pms_ktab_init(&t, sys);
	const struct ent *want = floor_of(e, n, ips[1]);
	const struct ksym *k = pms_ktab_find(&t, ips[1]);
	CHECK(k && want && k->addr == want->addr && t.eof);
	pms_ktab_free(&t);
	drop_root(dir, sys);
	free(e);
}

/* Modules as the kernel lists them: the last loaded (at higher addresses)
 * first, each one's lines in ascending order: a module line above ip read
 * in order does not end the search (the next module lies below). */
PMS_TEST(module_lines_in_order_do_not_end_the_search)
{
	size_t ncore = 3000, na = 6000, nb = 500, n = ncore + na + nb;
	struct ent *e = make_table(ncore, 0, 0xffffffff81000000ULL, 0);
	e = realloc(e, n * sizeof(*e));
	for (size_t i = 0; i < na; i++) {
		e[ncore + i] = (struct ent){ 0xffffffffc1000000ULL + i * 64, 't', "" };
		snprintf(e[ncore + i].name, sizeof(e[0].name), "a_fn_%zu", i);
	}
	for (size_t i = 0; i < nb; i++) {
		e[ncore + na + i] = (struct ent){ 0xffffffffc0000000ULL + i * 64, 't', "" };
		snprintf(e[ncore + na + i].name, sizeof(e[0].name), "b_fn_%zu", i);
	}
	char dir[] = "/tmp/pms-ksyms-XXXXXX";
	struct pms_sys *sys = make_root(dir, e, n, 0, ncore, false);
	struct pms_ktab t;
	pms_ktab_init(&t, sys);
	uint64_t ip = 0xffffffffc0000000ULL + 100 * 64 + 8;
	const struct ksym *k = pms_ktab_find(&t, ip);
	CHECK(k && !strcmp(k->name, "b_fn_100") && k->addr == ip - 8);
	ip = 0xffffffffc1000000ULL + 5 * 64;
	k = pms_ktab_find(&t, ip);
	CHECK(k && !strcmp(k->name, "a_fn_5"));
	/* a module line's tag (perf's module dso name), none in the core;
	 * a code line is not a data object */
	CHECK(!strcmp(pms_ktab_module(&t, k), "[mod]") && !k->object);
	k = pms_ktab_find(&t, e[ncore / 2].addr);
	CHECK(k && !pms_ktab_module(&t, k));
	CHECK(!pms_ktab_module(&t, NULL));
	pms_ktab_free(&t);
	drop_root(dir, sys);
	free(e);
}

/* A module map's name from its MMAP's file name, perf 6.12's rule
 * (dso.c __kmod_path__parse): kept in brackets, else "[base]" up to the
 * last '.' (over a gz/xz suffix) for a .ko, '-' as '_'. */
PMS_TEST(module_map_names_as_perf)
{
	static const char *const cases[][2] = {
		{ "[kvm]", "[kvm]" },
		{ "[dash-mod]", "[dash-mod]" },
		{ "/lib/modules/6.12.0/kernel/arch/x86/kvm/kvm-intel.ko", "[kvm_intel]" },
		{ "/lib/modules/6.12.0/kernel/fs/ext4/ext4.ko.xz", "[ext4]" },
		{ "/lib/modules/6.12.0/kernel/fs/ext4/ext4.ko.gz", "[ext4]" },
		{ "/lib/modules/x/nf.conntrack.ko", "[nf.conntrack]" },
		{ "/lib/modules/x/ext4.ko.zst", "ext4.ko.zst" }, /* no zstd in perf 6.12 */
		{ "/tmp/some-file.bin", "some_file.bin" },
	};
	char out[64];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pms_kmod_short_name(cases[i][0], out, sizeof(out));
		CHECK_EQ_STR(out, cases[i][1]);
	}
}

PMS_TEST(hidden_addresses_and_the_public_calls)
{
	struct ent e[3] = { { 0, 'T', "a" }, { 0, 't', "b" }, { 0, 'T', "c" } };
	char dir[] = "/tmp/pms-ksyms-XXXXXX";
	struct pms_sys *sys = make_root(dir, e, 3, 2, 3, false);
	CHECK(!pms_kernel_addrs_visible(sys));
	struct pms_ktab t;
	pms_ktab_init(&t, sys);
	CHECK(!pms_ktab_visible(&t));
	CHECK(pms_ktab_find(&t, 0xffffffff81000000ULL) == NULL);
	pms_ktab_free(&t);
	struct pms_maps *maps = NULL;
	struct pms_symbolizer *sym = NULL;
	struct pms_symbol s;
	CHECK_OK(pms_maps_new(&maps));
	CHECK_OK(pms_symbolizer_new(sys, maps, &sym));
	CHECK(!pms_symbolizer_kernel_visible(sym));
	CHECK(pms_symbolizer_code(sym, 0xffffffff81000000ULL, true, &s) == PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "kptr_restrict") != NULL);
	pms_symbolizer_free(sym);
	drop_root(dir, sys);

	/* visible: named through the symbolizer, offset from the symbol */
	struct ent v[3] = { { 0xffffffff81000000ULL, 'T', "_stext" },
			    { 0xffffffff81000100ULL, 'd', "data" },
			    { 0xffffffff81000200ULL, 'T', "schedule" } };
	char dir2[] = "/tmp/pms-ksyms-XXXXXX";
	sys = make_root(dir2, v, 3, 1, 3, true);
	CHECK(pms_kernel_addrs_visible(sys));
	CHECK_OK(pms_symbolizer_new(sys, maps, &sym));
	CHECK(pms_symbolizer_kernel_visible(sym));
	/* a data line ends the function before it, as for perf */
	CHECK_OK(pms_symbolizer_code(sym, 0xffffffff81000150ULL, true, &s));
	CHECK(s.func && !strcmp(s.func, "data") && s.offset == 0x50);
	CHECK_OK(pms_symbolizer_code(sym, 0xffffffff810000f0ULL, true, &s));
	CHECK(s.func && !strcmp(s.func, "_stext") && s.offset == 0xf0);
	CHECK_OK(pms_symbolizer_code(sym, 0xffffffff81000204ULL, true, &s));
	CHECK(s.func && !strcmp(s.func, "schedule") && s.offset == 4);
	CHECK(pms_symbolizer_code(sym, 0xffffffff80000000ULL, true, &s) == PMS_ENOENT);
	pms_symbolizer_free(sym);
	pms_maps_free(maps);
	drop_root(dir2, sys);
}

/* perf's choices written out (tools/perf/util/symbol.c): of aliases the
 * last line at the address, also when the file is out of order and the
 * table is sorted; data lines kept, r/A lines not; the last line of the
 * core kernel and of each module ends a page past its page. */
static void write_lines(const char *dir, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/proc/kallsyms", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static const char *name_at(struct pms_ktab *t, uint64_t ip)
{
	const struct ksym *k = pms_ktab_find(t, ip);
	return k ? k->name : "(none)";
}

PMS_TEST(perf_alias_data_and_end_rules)
{
	struct ent one = { 0xffffffff81000000ULL, 'T', "x" };
	char dir[] = "/tmp/pms-ksyms-XXXXXX";
	struct pms_sys *sys = make_root(dir, &one, 1, 0, 1, false);
	write_lines(dir, "ffffffff81000000 T _stext\n"
			 "ffffffff81000000 T _text\n"
			 "ffffffff81000000 T srso_alias_untrain_ret\n"
			 "ffffffff81000100 r ro_thing\n"
			 "ffffffff81000200 A abs_thing\n"
			 "ffffffff81001000 T memcpy\n"
			 "ffffffff81001000 T __memcpy\n"
			 "ffffffff81001000 T __pi_memcpy\n"
			 "ffffffff81002000 t fn_b\n"
			 "ffffffff81000800 D data_in_text\n"
			 "ffffffff81003010 T last_core\n"
			 "ffffffffc0000000 t mod_a\t[m1]\n"
			 "ffffffffc0000040 t mod_b\t[m1]\n"
			 "ffffffffc0100000 t other\t[m2]\n");
	struct pms_ktab t;
	for (int pass = 0; pass < 2; pass++) { /* core first, then modules first */
		pms_ktab_init(&t, sys);
		uint64_t first = pass ? 0xffffffffc0000050ULL : 0xffffffff81000010ULL;
		CHECK(pms_ktab_find(&t, first) != NULL);
		CHECK_EQ_STR(name_at(&t, 0xffffffff81000010ULL), "srso_alias_untrain_ret");
		CHECK_EQ_STR(name_at(&t, 0xffffffff81000300ULL), "srso_alias_untrain_ret");
		CHECK_EQ_STR(name_at(&t, 0xffffffff81000900ULL), "data_in_text");
		CHECK_EQ_STR(name_at(&t, 0xffffffff81001004ULL), "__pi_memcpy");
		CHECK_EQ_STR(name_at(&t, 0xffffffff81004fffULL), "last_core");
		CHECK_EQ_STR(name_at(&t, 0xffffffff81005000ULL), "(none)");
		CHECK_EQ_STR(name_at(&t, 0xffffffffc0000050ULL), "mod_b");
		CHECK_EQ_STR(name_at(&t, 0xffffffffc0001fffULL), "mod_b");
		CHECK_EQ_STR(name_at(&t, 0xffffffffc0002000ULL), "(none)");
		CHECK_EQ_STR(name_at(&t, 0xffffffffc0100008ULL), "other");
		CHECK_EQ_STR(name_at(&t, 0xffffffffc0102000ULL), "(none)");
		pms_ktab_free(&t);
	}
	drop_root(dir, sys);
}

PMS_TEST_MAIN()
