/* The .debug_line reader (src/symbols/dwline.c) against libdw as the oracle:
 * for every address (a stride of 1-3 bytes) of every sized function symbol
 * of real binaries, the reader's (file, line) equals what libdw's
 * dwfl_module_getsrc, then its walk of the units' ranges with
 * dwarf_getsrc_die (the rule the symbolizer used before the reader), say;
 * "no line" where libdw has none.  Where the reader says libdw must answer
 * (PMS_DWLINE_ASK: a DWARF 2-4 file relative to the compilation directory)
 * the address is counted apart, and the symbolizer asks libdw there.
 * Binaries: libc with libc6-dbg's separate debug file (compressed DWARF 5),
 * this build's pmuscope (gcc, DWARF 5), and a few project sources built
 * here with gcc -gdwarf-2/3/4/5 (-gz) and clang -gdwarf-4/5.
 * Also: truncated and corrupted sections read without a crash or overread
 * (run under ASan). */
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
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
#include "symbols/dwline.h"
#include "symbols/symbols_int.h"

static const Dwfl_Callbacks offline_cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* The oracle: the symbolizer's libdw rule. */
static const char *libdw_line(Dwfl_Module *mod, Dwarf_Addr addr, int *lineno)
{
	Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
	const char *src = l ? dwfl_lineinfo(l, NULL, lineno, NULL, NULL, NULL) : NULL;
	if (src)
		return src;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = NULL;
	while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL) {
		Dwarf_Addr base, start, end, a = addr - bias;
		ptrdiff_t off = 0;
		while ((off = dwarf_ranges(cu, off, &base, &start, &end)) > 0) {
			if (a < start || a >= end)
				continue;
			Dwarf_Line *dl = dwarf_getsrc_die(cu, a);
			src = dl ? dwarf_linesrc(dl, NULL, NULL) : NULL;
			if (src && dwarf_lineno(dl, lineno) == 0)
				return src;
			return NULL;
		}
	}
	return NULL;
}

struct span {
	uint64_t lo, hi;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

struct tally {
	size_t compared, found, none, asked, differ;
};

/* Compare reader and libdw over the sized functions of path; stride bytes
 * apart.  Returns false when the file (or its DWARF) is not there. */
static bool differential(const char *path, unsigned stride, struct tally *t)
{
	memset(t, 0, sizeof(*t));
	if (access(path, R_OK) != 0)
		return false;
	Dwfl *dwfl = dwfl_begin(&offline_cbs);
	CHECK(dwfl != NULL);
	if (!dwfl)
		return false;
	dwfl_report_begin(dwfl);
	Dwfl_Module *mod = dwfl_report_offline(dwfl, path, path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	Dwarf_Addr dbias = 0;
	if (!mod || !dwfl_module_getdwarf(mod, &dbias)) {
		dwfl_end(dwfl);
		return false;
	}
	struct pms_dwline *dl = NULL;
	uint64_t bias = 0;
	int rc = pms_sym_dwline_open(mod, &dl, &bias);
	CHECK_MSG(rc == 0, "%s: %s", path, pms_error_last());
	int n = dwfl_module_getsymtab(mod);
	struct span *v = n > 0 ? calloc((size_t)n, sizeof(*v)) : NULL;
	size_t nv = 0;
	for (int i = 1; v && i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a = 0;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &a, NULL, NULL, NULL);
		if (name && GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_size && sym.st_shndx != SHN_UNDEF)
			v[nv++] = (struct span){ a, a + sym.st_size };
	}
	if (nv)
		qsort(v, nv, sizeof(*v), span_cmp);
	uint64_t done = 0; /* aliases and overlaps: each address once */
	for (size_t i = 0; dl && i < nv; i++) {
		uint64_t a = v[i].lo > done ? v[i].lo : done;
		for (; a < v[i].hi; a += stride) {
			int l1 = 0, l2 = 0;
			const char *f1 = libdw_line(mod, a, &l1), *f2 = NULL;
			int r = pms_dwline_find(dl, a - bias, &f2, &l2);
			t->compared++;
			if (r == PMS_DWLINE_ASK) {
				t->asked++;
				continue;
			}
			bool same = r == PMS_DWLINE_FOUND ? f1 && !strcmp(f1, f2) && l1 == l2 : !f1;
			if (!same) {
				if (t->differ++ < 10)
					fprintf(stderr, "%s: 0x%" PRIx64 ": libdw %s:%d, reader %s:%d (%d)\n",
						path, a, f1 ? f1 : "-", l1, r == PMS_DWLINE_FOUND ? f2 : "-",
						l2, r);
				continue;
			}
			if (r == PMS_DWLINE_FOUND)
				t->found++;
			else
				t->none++;
		}
		done = v[i].hi > done ? v[i].hi : done;
	}
	printf("%s: %zu addresses compared in %zu functions: %zu same file:line, %zu no line in "
	       "both, %zu left to libdw (DWARF 2-4 comp dir), %zu differ\n",
	       path, t->compared, nv, t->found, t->none, t->asked, t->differ);
	CHECK_EQ_INT(t->differ, 0);
	free(v);
	pms_dwline_free(dl);
	dwfl_end(dwfl);
	return true;
}


/* The symbolizer itself (the reader, or libdw where the reader asks) gives
 * libdw's file:line for every function address of path mapped at a made-up
 * base; returns how many addresses had a line. */
static size_t symbolizer_agrees(const char *path)
{
	struct stat st;
	struct pms_sys *sys = NULL;
	struct pms_maps *maps = NULL;
	struct pms_symbolizer *sym = NULL;
	size_t lines = 0;
	const uint64_t base = 0x7f0000000000ull;
	if (stat(path, &st) != 0)
		return 0;
	Dwfl *dwfl = dwfl_begin(&offline_cbs);
	dwfl_report_begin(dwfl);
	Dwfl_Module *mod = dwfl_report_offline(dwfl, path, path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	Dwarf_Addr obias = 0;
	CHECK(mod && dwfl_module_getelf(mod, &obias));
	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK_OK(pms_maps_new(&maps));
	CHECK_OK(pms_maps_add(maps, base, ((uint64_t)st.st_size + 4095) & ~(uint64_t)4095, 0,
			      (uint64_t)st.st_ino, true, path));
	CHECK_OK(pms_symbolizer_new(sys, maps, &sym));
	int n = mod && sym ? dwfl_module_getsymtab(mod) : 0;
	for (int i = 1; i < n; i++) {
		GElf_Sym es;
		GElf_Addr a = 0;
		const char *name = dwfl_module_getsym_info(mod, i, &es, &a, NULL, NULL, NULL);
		if (!name || GELF_ST_TYPE(es.st_info) != STT_FUNC || !es.st_size)
			continue;
		for (GElf_Addr x = a; x < a + es.st_size; x++) {
			int l1 = 0;
			const char *f1 = libdw_line(mod, x, &l1);
			struct pms_symbol out;
			(void)pms_symbolizer_code(sym, base + (x - obias), false, &out);
			bool same = f1 ? out.file && !strcmp(out.file, f1) && out.line == l1 : !out.file;
			CHECK_MSG(same, "%s+0x%" PRIx64 ": libdw %s:%d, symbolizer %s:%d", path,
				  (uint64_t)(x - obias), f1 ? f1 : "-", l1, out.file ? out.file : "-",
				  out.line);
			if (!same)
				goto out;
			lines += f1 != NULL;
		}
	}
out:
	pms_error_clear();
	pms_symbolizer_free(sym);
	pms_maps_free(maps);
	pms_sys_free(sys);
	dwfl_end(dwfl);
	printf("%s: the symbolizer gives libdw's file:line at %zu addresses\n", path, lines);
	return lines;
}

PMS_TEST(libc_with_debug_file)
{
	struct tally t;
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	if (!differential(libc, 3, &t))
		PMS_SKIP("%s or its debug file (libc6-dbg) is not here", libc);
	CHECK(t.found > 100000);
	CHECK_EQ_INT(t.asked, 0);
}

PMS_TEST(own_binary)
{
	struct tally t;
	const char *cli = pms_t_cli();
	if (!cli || !differential(cli, 1, &t))
		PMS_SKIP("the pmuscope executable (PMS_CLI) or its DWARF is not here");
	CHECK(t.found > 10000);
	CHECK_EQ_INT(t.asked, 0);
}

/* Project sources built here into shared objects, one per compiler and
 * DWARF version; relative source paths (so DWARF 2-4 name the compilation
 * directory) and absolute ones. */
PMS_TEST(built_here)
{
	const char *fx = pms_t_fixtures(), *build = pms_t_build_dir();
	if (!fx || !build)
		PMS_SKIP("PMS_FIXTURES or PMS_BUILD_DIR unset");
	char root[1024], tmp[] = "/tmp/pms-dwline-XXXXXX";
	snprintf(root, sizeof(root), "%s/../..", fx);
	if (!mkdtemp(tmp))
		PMS_SKIP("no temporary directory");
	static const struct {
		const char *cc, *flags;
		bool abs;
	} v[] = {
		{ "gcc", "-gdwarf-2", false },	   { "gcc", "-gdwarf-3", false },
		{ "gcc", "-gdwarf-4", false },	   { "gcc", "-gdwarf-4", true },
		{ "gcc", "-gdwarf-5 -gz=zlib", false }, { "clang", "-gdwarf-4", true },
		{ "clang", "-gdwarf-4", false },   { "clang", "-gdwarf-5", false },
	};
	static const char *srcs[] = { "src/symbols/dwline.c", "src/decode/datasrc.c",
				      "src/util/natsort.c", "src/decode/callpath.c" };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char cmd[16384], out[512], list[8192] = "";
		snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", v[i].cc);
		if (system(cmd) != 0) {
			PMS_SKIP_PART("%s is not installed", v[i].cc);
			continue;
		}
		for (size_t k = 0; k < sizeof(srcs) / sizeof(srcs[0]); k++) {
			size_t l = strlen(list);
			if (v[i].abs)
				snprintf(list + l, sizeof(list) - l, " $(realpath %s)", srcs[k]);
			else
				snprintf(list + l, sizeof(list) - l, " %s", srcs[k]);
		}
		snprintf(out, sizeof(out), "%s/v%zu.so", tmp, i);
		snprintf(cmd, sizeof(cmd),
			 "cd '%s' && %s -O2 -fPIC -shared -D_GNU_SOURCE -Iinclude -Isrc -I. -I'%s' %s -o '%s'%s",
			 root, v[i].cc, build, v[i].flags, out, list);
		int rc = system(cmd);
		CHECK_MSG(rc == 0, "%s", cmd);
		if (rc != 0)
			continue;
		struct tally t;
		CHECK_MSG(differential(out, 1, &t), "%s: libdw finds no DWARF", out);
		CHECK(t.compared > 1000);
		CHECK(t.found + t.asked > t.compared / 2);
		if (strstr(v[i].flags, "dwarf-5") || v[i].abs)
			CHECK(t.found > t.compared / 2); /* DWARF 5 names its directories */
		if (i == 3 || i == 4)
			CHECK(symbolizer_agrees(out) > t.compared / 2); /* through the reader */
		unlink(out);
	}
	/* a source in the compilation directory itself: DWARF 4 names it
	 * relative to directory 0, the unit's DW_AT_comp_dir, which only
	 * .debug_info holds: the reader leaves those addresses to libdw */
	char cmd[16384], out[512];
	snprintf(out, sizeof(out), "%s/cwd.so", tmp);
	snprintf(cmd, sizeof(cmd),
		 "cp '%s/src/util/natsort.c' '%s/natsort_here.c' && cd '%s' && gcc -O2 -fPIC -shared "
		 "-gdwarf-4 -D_GNU_SOURCE -I'%s/include' -I'%s/src' natsort_here.c -o '%s'",
		 root, tmp, tmp, root, root, out);
	int rc = system(cmd);
	CHECK_MSG(rc == 0, "%s", cmd);
	struct tally t;
	if (rc == 0) {
		CHECK(differential(out, 1, &t));
		CHECK(t.asked > t.compared / 2);
		CHECK(symbolizer_agrees(out) > t.compared / 2); /* through libdw */
		unlink(out);
	}
	/* a relocatable object: its addresses are not final, the reader
	 * refuses it (the symbolizer only meets mapped executables and
	 * shared objects) */
	snprintf(out, sizeof(out), "%s/here.o", tmp);
	snprintf(cmd, sizeof(cmd), "cd '%s' && gcc -c -g -I'%s/include' -I'%s/src' natsort_here.c -o '%s'",
		 tmp, root, root, out);
	if (system(cmd) == 0) {
		struct pms_dwline *d = NULL;
		CHECK_EQ_INT(pms_dwline_open(out, &d), PMS_ENOTSUP);
		CHECK(d == NULL);
		unlink(out);
	}
	snprintf(out, sizeof(out), "%s/natsort_here.c", tmp);
	unlink(out);
	rmdir(tmp);
}

/* The .debug_line bytes of path (malloc'd), or NULL. */
static uint8_t *line_section(const char *path, size_t *n)
{
	uint8_t *copy = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fileno(f), ELF_C_READ, NULL);
	size_t shstr;
	Elf_Scn *scn = NULL;
	if (e && elf_getshdrstrndx(e, &shstr) == 0)
		while (!copy && (scn = elf_nextscn(e, scn)) != NULL) {
			GElf_Shdr sh;
			const char *name;
			Elf_Data *d;
			if (gelf_getshdr(scn, &sh) && (name = elf_strptr(e, shstr, sh.sh_name)) &&
			    !strcmp(name, ".debug_line") && !(sh.sh_flags & SHF_COMPRESSED) &&
			    (d = elf_getdata(scn, NULL)) && d->d_size && (copy = malloc(d->d_size))) {
				memcpy(copy, d->d_buf, d->d_size);
				*n = d->d_size;
			}
		}
	if (e)
		elf_end(e);
	fclose(f);
	return copy;
}

/* Look up addresses around every sequence (decoding the programs). */
static void probe_all(struct pms_dwline *d)
{
	size_t n = pms_dwline_nseqs(d);
	for (size_t i = 0; i < n; i++) {
		uint64_t lo, end;
		pms_dwline_seq(d, i, &lo, &end);
		uint64_t at[] = { lo - 1, lo, lo + (end - lo) / 2, end - 1, end };
		for (size_t k = 0; k < 5; k++) {
			const char *f = NULL;
			int l = 0;
			int r = pms_dwline_find(d, at[k], &f, &l);
			CHECK(r == PMS_DWLINE_NONE || r == PMS_DWLINE_ASK || (r == PMS_DWLINE_FOUND && f));
		}
	}
}

PMS_TEST(hostile_sections)
{
	const char *cli = pms_t_cli();
	size_t n = 0;
	uint8_t *sec = cli ? line_section(cli, &n) : NULL;
	if (!sec)
		PMS_SKIP("no uncompressed .debug_line in the pmuscope executable");
	/* the first few programs, truncated at every length: each read must
	 * stay inside the exact-size copy (ASan) */
	size_t lim = n < 6000 ? n : 6000;
	size_t accepted = 0;
	for (size_t len = 0; len <= lim; len++) {
		uint8_t *b = malloc(len ? len : 1);
		memcpy(b, sec, len);
		struct pms_dwline_mem m = { b, b, b, len, len, len, 8, false };
		struct pms_dwline *d = NULL;
		if (pms_dwline_new(&m, &d) == 0) {
			accepted++;
			probe_all(d);
		}
		pms_dwline_free(d);
		free(b);
	}
	CHECK(accepted > 0);
	/* bytes flipped at random (fixed seed) */
	srand(21);
	for (int i = 0; i < 3000; i++) {
		uint8_t *b = malloc(lim);
		memcpy(b, sec, lim);
		for (int k = 0; k < 1 + rand() % 4; k++)
			b[(size_t)rand() % lim] = (uint8_t)rand();
		struct pms_dwline_mem m = { b, b, b, lim, lim, lim, (i & 1) ? 8 : 4, (i & 2) != 0 };
		struct pms_dwline *d = NULL;
		if (pms_dwline_new(&m, &d) == 0)
			probe_all(d);
		pms_dwline_free(d);
		free(b);
	}
	free(sec);
}

PMS_TEST_MAIN()
