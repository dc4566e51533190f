/* A kernel module's symbols from its .ko (src/symbols/kmodsym.c) and perf's
 * build-id cache directory from its config (src/symbols/perfconfig.c).
 * The module is an ELF relocatable image written here section by section
 * (.text, .text.unlikely right after it, .init.text after that, .exit.text
 * past a gap, .data), so each rule perf 6.12 applies is seen on its own:
 * the map offset (.text's file offset), the sections that share the
 * module's map, the symbols kept (labels only in text), one symbol an
 * address (sized, not weak, global, fewer '_', longer name), unsized ends.
 * tests/cli/kernel_modules_ko.sh compares the same rules with perf on an
 * object made by cc and ld. */
#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/symbols.h"
#include "pmuscope/sys.h"
#include "symbols/kmodsym.h"

/* sections: their names in .shstrtab, offsets and sizes in the image */
enum { S_NULL, S_TEXT, S_UNLIKELY, S_INIT, S_EXIT, S_DATA, S_NOTE, S_SYMTAB, S_STRTAB, S_SHSTR, S_N };
static const char *const secname[S_N] = { "", ".text", ".text.unlikely", ".init.text", ".exit.text",
					  ".data", ".note.gnu.build-id", ".symtab", ".strtab",
					  ".shstrtab" };

struct wsym {
	const char *name;
	int sec;
	uint64_t value, size;
	int bind, type;
};

/* The module's symbols: value is the offset in the section. */
static const struct wsym syms[] = {
	{ "mod_asm", S_TEXT, 0x0, 0, STB_GLOBAL, STT_NOTYPE },   /* a label: to mod_label */
	{ "mod_label", S_TEXT, 0x4, 0, STB_LOCAL, STT_NOTYPE },  /* a label: to helper */
	{ "helper", S_TEXT, 0x8, 0x10, STB_LOCAL, STT_FUNC },
	{ "mod_weak", S_TEXT, 0x20, 0x8, STB_WEAK, STT_FUNC },   /* loses to the global */
	{ "__mod_weak_u", S_TEXT, 0x20, 0x8, STB_GLOBAL, STT_FUNC },
	{ "mod_fn", S_TEXT, 0x30, 0x10, STB_GLOBAL, STT_FUNC },  /* loses to the longer name */
	{ "mod_fn_alias", S_TEXT, 0x30, 0x10, STB_GLOBAL, STT_FUNC },
	{ "mod_cold", S_UNLIKELY, 0x0, 0x8, STB_GLOBAL, STT_FUNC },
	{ "mod_init", S_INIT, 0x2, 0x6, STB_GLOBAL, STT_FUNC },  /* at the end of the run: kept */
	{ "mod_exit", S_EXIT, 0x0, 0x8, STB_GLOBAL, STT_FUNC },  /* past the gap: another map */
	{ "mod_var", S_DATA, 0x0, 0x4, STB_GLOBAL, STT_OBJECT }, /* data: another map */
	{ "data_label", S_DATA, 0x4, 0, STB_LOCAL, STT_NOTYPE }, /* a label not in text */
	{ "$x", S_TEXT, 0x18, 0, STB_LOCAL, STT_NOTYPE },        /* x86-64: a label like any */
};
#define NSYMS (sizeof(syms) / sizeof(syms[0]))

static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
				 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

/* Offsets in the image: .text at 0x100 (0x40 long), .text.unlikely right
 * after (0x140, 0x10), .init.text right after (0x150, 0x10), .exit.text
 * past a gap (0x180, 0x10), .data at 0x200. */
static const uint64_t off[S_N] = { 0, 0x100, 0x140, 0x150, 0x180, 0x200, 0x220, 0x300, 0x600, 0x700 };
static const uint64_t len[S_N] = { 0, 0x40, 0x10, 0x10, 0x10, 0x8, 36, 0, 0, 0 };

static size_t write_image(uint8_t *img, size_t cap)
{
	memset(img, 0, cap);
	Elf64_Ehdr *eh = (void *)img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_REL;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = S_N;
	eh->e_shstrndx = S_SHSTR;
	eh->e_shoff = 0x800;
	Elf64_Shdr *sh = (void *)(img + eh->e_shoff);
	/* .shstrtab */
	size_t sl = 1, nameoff[S_N] = { 0 };
	for (int i = 1; i < S_N; i++) {
		nameoff[i] = sl;
		strcpy((char *)img + off[S_SHSTR] + sl, secname[i]);
		sl += strlen(secname[i]) + 1;
	}
	/* .strtab and .symtab (a null symbol first) */
	size_t tl = 1;
	Elf64_Sym *st = (void *)(img + off[S_SYMTAB]);
	for (size_t i = 0; i < NSYMS; i++) {
		Elf64_Sym *s = &st[i + 1];
		s->st_name = (uint32_t)tl;
		strcpy((char *)img + off[S_STRTAB] + tl, syms[i].name);
		tl += strlen(syms[i].name) + 1;
		s->st_info = (unsigned char)ELF64_ST_INFO(syms[i].bind, syms[i].type);
		s->st_shndx = (uint16_t)syms[i].sec;
		s->st_value = syms[i].value;
		s->st_size = syms[i].size;
	}
	/* the build id note */
	uint32_t nh[3] = { 4, 20, NT_GNU_BUILD_ID };
	memcpy(img + off[S_NOTE], nh, sizeof(nh));
	memcpy(img + off[S_NOTE] + 12, "GNU", 4);
	memcpy(img + off[S_NOTE] + 16, bid, 20);
	for (int i = 1; i < S_N; i++) {
		sh[i].sh_name = (uint32_t)nameoff[i];
		sh[i].sh_offset = off[i];
		sh[i].sh_size = len[i];
		sh[i].sh_addralign = 1;
		sh[i].sh_type = SHT_PROGBITS;
	}
	for (int i = S_TEXT; i <= S_EXIT; i++)
		sh[i].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	sh[S_DATA].sh_flags = SHF_ALLOC | SHF_WRITE;
	sh[S_NOTE].sh_type = SHT_NOTE;
	sh[S_NOTE].sh_flags = SHF_ALLOC;
	sh[S_NOTE].sh_addralign = 4;
	sh[S_SYMTAB].sh_type = SHT_SYMTAB;
	sh[S_SYMTAB].sh_size = (NSYMS + 1) * sizeof(Elf64_Sym);
	sh[S_SYMTAB].sh_entsize = sizeof(Elf64_Sym);
	sh[S_SYMTAB].sh_link = S_STRTAB;
	sh[S_SYMTAB].sh_info = 1;
	sh[S_SYMTAB].sh_addralign = 8;
	sh[S_STRTAB].sh_type = SHT_STRTAB;
	sh[S_STRTAB].sh_size = tl;
	sh[S_SHSTR].sh_type = SHT_STRTAB;
	sh[S_SHSTR].sh_size = sl;
	return eh->e_shoff + S_N * sizeof(Elf64_Shdr);
}

/* The name at module offset o (ip - the map's start). */
static const char *at(const struct pms_kmsyms *k, uint64_t o, uint64_t *symoff)
{
	bool obj = false;
	return pms_kmsyms_find(k, o + pms_kmsyms_pgoff(k), symoff, &obj);
}

static void check_rules(const struct pms_kmsyms *k)
{
	uint64_t so = 0;
	const char *n;
	CHECK_EQ_U64(pms_kmsyms_pgoff(k), 0x100); /* .text's file offset */
	CHECK((n = at(k, 0x0, &so)) && !strcmp(n, "mod_asm") && so == 0);
	CHECK((n = at(k, 0x3, &so)) && !strcmp(n, "mod_asm") && so == 3);
	CHECK((n = at(k, 0x4, &so)) && !strcmp(n, "mod_label") && so == 0);
	CHECK((n = at(k, 0x9, &so)) && !strcmp(n, "helper") && so == 1);
	/* "$x" is an ordinary label on x86-64: unsized, to the next symbol */
	CHECK((n = at(k, 0x1a, &so)) && !strcmp(n, "$x") && so == 2);
	CHECK((n = at(k, 0x1f, &so)) && !strcmp(n, "$x"));
	CHECK((n = at(k, 0x24, &so)) && !strcmp(n, "__mod_weak_u") && so == 4);
	CHECK(!at(k, 0x28, &so)); /* past the sized symbol */
	CHECK((n = at(k, 0x3f, &so)) && !strcmp(n, "mod_fn_alias") && so == 0xf);
	CHECK((n = at(k, 0x40, &so)) && !strcmp(n, "mod_cold") && so == 0);
	CHECK((n = at(k, 0x52, &so)) && !strcmp(n, "mod_init") && so == 0);
	CHECK(!at(k, 0x80, &so));  /* .exit.text: not the module's map */
	CHECK(!at(k, 0x100, &so)); /* .data */
	CHECK(!at(k, 0x104, &so));
}

PMS_TEST(relocatable_image)
{
	static uint8_t img[0x800 + S_N * sizeof(Elf64_Shdr)];
	size_t n = write_image(img, sizeof(img));
	struct pms_kmsyms *k = NULL;
	CHECK_OK(pms_kmsyms_from_image(img, n, &k));
	if (k)
		check_rules(k);
	pms_kmsyms_free(k);
	/* not relocatable: refused, no symbols from another layout */
	((Elf64_Ehdr *)img)->e_type = ET_DYN;
	CHECK(pms_kmsyms_from_image(img, n, &k) == PMS_ENOTSUP && !k);
	/* truncated and garbage images: errors, no crash */
	((Elf64_Ehdr *)img)->e_type = ET_REL;
	for (size_t cut = 0; cut < n; cut += 97) {
		k = NULL;
		if (pms_kmsyms_from_image(img, cut, &k) == 0)
			pms_kmsyms_free(k);
		pms_error_clear();
	}
	CHECK(pms_kmsyms_from_image("not an ELF", 10, &k) < 0);
	pms_error_clear();
}

static void put(const char *dir, const char *rel, const void *b, size_t n)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "wb");
	CHECK(f != NULL);
	if (f) {
		fwrite(b, 1, n, f);
		fclose(f);
	}
}

PMS_TEST(load_by_build_id_and_cache)
{
	static uint8_t img[0x800 + S_N * sizeof(Elf64_Shdr)];
	size_t n = write_image(img, sizeof(img));
	char dir[] = "/tmp/pms_kmodsym_XXXXXX", cmd[600];
	CHECK(mkdtemp(dir) != NULL);
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	o.root = dir;
	CHECK_OK(pms_sys_new(&sys, &o));
	setenv("HOME", "/home/u", 1);
	setenv("PERF_CONFIG", "/dev/null", 1);
	struct pms_kmsyms *k = NULL;
	uint8_t other[20];
	memcpy(other, bid, 20);
	other[19] ^= 1;
	/* the file at its path: read with its id or none, not with another */
	put(dir, "lib/modules/x/m.ko", img, n);
	CHECK_OK(pms_kmsyms_load(sys, "/lib/modules/x/m.ko", bid, 20, &k));
	if (k)
		check_rules(k);
	pms_kmsyms_free(k);
	k = NULL;
	CHECK_OK(pms_kmsyms_load(sys, "/lib/modules/x/m.ko", NULL, 0, &k));
	pms_kmsyms_free(k);
	k = NULL;
	CHECK(pms_kmsyms_load(sys, "/lib/modules/x/m.ko", other, 20, &k) < 0 && !k);
	/* compressed, by the suffix: a gzip'd image is read, with its id;
	 * an uncompressed one named .xz or .gz is not (nor a cut stream) */
	static uint8_t gz[sizeof(img) + 256];
	z_stream z;
	memset(&z, 0, sizeof(z));
	CHECK(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
	z.next_in = img;
	z.avail_in = (uInt)n;
	z.next_out = gz;
	z.avail_out = sizeof(gz);
	CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
	size_t gzn = sizeof(gz) - z.avail_out;
	deflateEnd(&z);
	put(dir, "lib/modules/x/z.ko.gz", gz, gzn);
	CHECK_OK(pms_kmsyms_load(sys, "/lib/modules/x/z.ko.gz", bid, 20, &k));
	if (k)
		check_rules(k);
	pms_kmsyms_free(k);
	k = NULL;
	put(dir, "lib/modules/x/cut.ko.gz", gz, gzn / 2);
	CHECK(pms_kmsyms_load(sys, "/lib/modules/x/cut.ko.gz", NULL, 0, &k) < 0 && !k);
	put(dir, "lib/modules/x/p.ko.xz", img, n);
	CHECK(pms_kmsyms_load(sys, "/lib/modules/x/p.ko.xz", NULL, 0, &k) < 0 && !k);
	put(dir, "lib/modules/x/p.ko.gz", img, n);
	CHECK(pms_kmsyms_load(sys, "/lib/modules/x/p.ko.gz", NULL, 0, &k) < 0 && !k);
	pms_error_clear();
	/* perf's cache, the new layout: .build-id/de/adbeef.../elf */
	put(dir, "home/u/.debug/.build-id/de/adbeef0102030405060708090a0b0c0d0e0f10/elf", img, n);
	CHECK_OK(pms_kmsyms_load(sys, "/gone/m.ko", bid, 20, &k));
	pms_kmsyms_free(k);
	k = NULL;
	CHECK(pms_kmsyms_load(sys, "/gone/m.ko", NULL, 0, &k) < 0 && !k); /* no id: no cache */
	pms_error_clear();
	/* buildid.dir from $HOME/.perfconfig (PERF_CONFIG unset), from
	 * PERF_CONFIG's file; not under PERF_CONFIG_NOGLOBAL */
	char d[4096];
	snprintf(cmd, sizeof(cmd), "[buildid]\n\tdir = /cache\n");
	put(dir, "home/u/.perfconfig", cmd, strlen(cmd));
	CHECK_OK(pms_perf_buildid_dir(sys, d, sizeof(d)));
	CHECK_EQ_STR(d, "/home/u/.debug");
	unsetenv("PERF_CONFIG");
	CHECK_OK(pms_perf_buildid_dir(sys, d, sizeof(d)));
	CHECK_EQ_STR(d, "/cache");
	setenv("PERF_CONFIG_NOGLOBAL", "1", 1);
	CHECK_OK(pms_perf_buildid_dir(sys, d, sizeof(d)));
	CHECK_EQ_STR(d, "/home/u/.debug");
	unsetenv("PERF_CONFIG_NOGLOBAL");
	/* /etc/perfconfig, overridden by the user's */
	snprintf(cmd, sizeof(cmd), "[buildid]\ndir=/sys-cache\n");
	put(dir, "etc/perfconfig", cmd, strlen(cmd));
	CHECK_OK(pms_perf_buildid_dir(sys, d, sizeof(d)));
	CHECK_EQ_STR(d, "/cache");
	setenv("PERF_CONFIG_NOGLOBAL", "yes", 1);
	CHECK_OK(pms_perf_buildid_dir(sys, d, sizeof(d)));
	CHECK_EQ_STR(d, "/sys-cache");
	unsetenv("PERF_CONFIG_NOGLOBAL");
	setenv("PERF_CONFIG", "/etc/perfconfig", 1);
	CHECK_OK(pms_perf_buildid_dir(sys, d, sizeof(d)));
	CHECK_EQ_STR(d, "/sys-cache");
	/* the cache where buildid.dir says */
	put(dir, "sys-cache/.build-id/de/adbeef0102030405060708090a0b0c0d0e0f10", img, n);
	CHECK_OK(pms_kmsyms_load(sys, "/gone/m.ko", bid, 20, &k));
	pms_kmsyms_free(k);
	pms_sys_free(sys);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* buildid.dir in a config text: 1 and the value, 0 for none. */
static int dirof(const char *t, char *out, size_t n)
{
	return pms_perfconfig_buildid_dir(t, strlen(t), out, n);
}

PMS_TEST(perfconfig_text)
{
	char v[64];
	CHECK_EQ_INT(dirof("", v, sizeof(v)), 0);
	CHECK_EQ_INT(dirof("[buildid]\ndir = /a\n", v, sizeof(v)), 1);
	CHECK_EQ_STR(v, "/a");
	/* names in any case, quotes, escapes, comments, inner blanks kept once */
	CHECK_EQ_INT(dirof("# c\n[BuildID]\n  DIR = \"/a b\\\\c\"  ; x\n", v, sizeof(v)), 1);
	CHECK_EQ_STR(v, "/a b\\c");
	CHECK_EQ_INT(dirof("[buildid]\ndir = /a   b  # x\n", v, sizeof(v)), 1);
	CHECK_EQ_STR(v, "/a b");
	/* the last setting wins; other sections and sub-sections are not ours */
	CHECK_EQ_INT(dirof("[buildid]\ndir=/a\n[x]\ndir=/x\n[buildid]\ndir=/b\n", v, sizeof(v)), 1);
	CHECK_EQ_STR(v, "/b");
	CHECK_EQ_INT(dirof("[buildid \"s\"]\ndir=/s\n[report]\ndir=/r\n", v, sizeof(v)), 0);
	CHECK_EQ_INT(dirof("[buildid]\ndirx=/a\nxdir=/b\n", v, sizeof(v)), 0);
	/* too long for out */
	CHECK_EQ_INT(dirof("[buildid]\ndir=/0123456789\n", v, 6), PMS_ERANGE);
	pms_error_clear();
	/* malformed: an open quote, a bad escape, a key without a value */
	CHECK_EQ_INT(dirof("[buildid]\ndir=\"/a\n", v, sizeof(v)), 0);
	CHECK_EQ_INT(dirof("[buildid]\ndir=/a\\q\n", v, sizeof(v)), 0);
	CHECK_EQ_INT(dirof("[buildid]\ndir\n", v, sizeof(v)), 0);
	/* no end of line, binary bytes: no crash */
	CHECK_EQ_INT(dirof("[buildid]\ndir=/z", v, sizeof(v)), 1);
	CHECK_EQ_STR(v, "/z");
	const char bin[] = "[buildid\x01\xff]\n\x00dir=\x7f\n[";
	(void)pms_perfconfig_buildid_dir(bin, sizeof(bin) - 1, v, sizeof(v));
}

/* A live session's kernel modules (kmodsym.h pms_kmods_running): the
 * running kernel's proc/modules maps, each named from the .ko found below
 * lib/modules/<osrelease> (not through the top level's source/ and
 * build/) when its build id is the one sys/module/<name>/notes gives; a
 * module without such a file is named by kallsyms' lines; a symbolizer
 * handed a file's own module maps does not read the running ones. */
PMS_TEST(running_kernel_modules_name_module_ips)
{
	static uint8_t img[0x800 + S_N * sizeof(Elf64_Shdr)];
	size_t n = write_image(img, sizeof(img));
	char dir[] = "/tmp/pms_kmodrun_XXXXXX", cmd[600];
	CHECK(mkdtemp(dir) != NULL);
	setenv("HOME", "/home/u", 1);
	setenv("PERF_CONFIG", "/dev/null", 1);
	const char *ks = "ffffffff81000000 T _text\n"
			 "ffffffff81001000 T core_fn\n"
			 "ffffffffc0000000 t ks_mod_a\t[fake_mod]\n"
			 "ffffffffc0000020 t ks_mod_b\t[fake_mod]\n"
			 "ffffffffc0010000 t other_fn\t[other_mod]\n"
			 "ffffffffc0020000 t third_fn\t[third_mod]\n";
	put(dir, "proc/kallsyms", ks, strlen(ks));
	const char *mods = "fake_mod 4096 0 - Live 0xffffffffc0000000\n"
			   "other_mod 4096 0 - Live 0xffffffffc0010000 (OE)\n"
			   "third_mod 4096 0 - Live 0xffffffffc0020000\n"
			   "hidden_mod 4096 0 - Live 0x0000000000000000\n";
	put(dir, "proc/modules", mods, strlen(mods));
	put(dir, "proc/sys/kernel/osrelease", "6.12.0-t\n", 9);
	put(dir, "lib/modules/6.12.0-t/kernel/drivers/fake-mod.ko", img, n);
	/* other_mod's only file lies below source/: not searched */
	put(dir, "lib/modules/6.12.0-t/source/other_mod.ko", img, n);
	/* third_mod's file has fake_mod's id, the running module another */
	put(dir, "lib/modules/6.12.0-t/extra/third_mod.ko", img, n);
	uint8_t note[12 + 4 + 20];
	Elf64_Nhdr h = { 4, 20, NT_GNU_BUILD_ID };
	memcpy(note, &h, 12);
	memcpy(note + 12, "GNU", 4);
	memcpy(note + 16, bid, 20);
	put(dir, "sys/module/fake_mod/notes/.note.gnu.build-id", note, sizeof(note));
	note[35] ^= 1;
	put(dir, "sys/module/third_mod/notes/.note.gnu.build-id", note, sizeof(note));
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	o.root = dir;
	CHECK_OK(pms_sys_new(&sys, &o));
	struct pms_maps *none = NULL;
	struct pms_symbolizer *sym = NULL;
	struct pms_symbol s;
	CHECK_OK(pms_maps_new(&none));
	CHECK_OK(pms_symbolizer_new(sys, none, &sym));
	/* fake_mod's .ko: .text at map offset 0 (pgoff 0x100) */
	memset(&s, 0, sizeof(s));
	CHECK_OK(pms_symbolizer_code(sym, 0xffffffffc0000009, true, &s));
	CHECK(s.func && !strcmp(s.func, "helper") && s.offset == 1);
	CHECK(s.module && !strcmp(s.module, "[fake_mod]") && s.kernel);
	CHECK_OK(pms_symbolizer_code(sym, 0xffffffffc0000024, true, &s));
	CHECK(s.func && !strcmp(s.func, "__mod_weak_u") && s.offset == 4);
	/* in the map, no symbol of the .ko there: unnamed, not kallsyms' */
	CHECK(pms_symbolizer_code(sym, 0xffffffffc0000100, true, &s) < 0);
	pms_error_clear();
	/* no file found, another id: kallsyms' lines */
	CHECK_OK(pms_symbolizer_code(sym, 0xffffffffc0010004, true, &s));
	CHECK(s.func && !strcmp(s.func, "other_fn") && !strcmp(s.module, "[other_mod]"));
	CHECK_OK(pms_symbolizer_code(sym, 0xffffffffc0020009, true, &s));
	CHECK(s.func && !strcmp(s.func, "third_fn") && !strcmp(s.module, "[third_mod]"));
	CHECK_OK(pms_symbolizer_code(sym, 0xffffffff81001004, true, &s));
	CHECK(s.func && !strcmp(s.func, "core_fn") && !strcmp(s.module, "[kernel]"));
	pms_symbolizer_free(sym);
	/* handed a file's maps (none here): kallsyms names fake_mod's IPs */
	struct pms_kmods *file = NULL;
	CHECK_OK(pms_symbolizer_new(sys, none, &sym));
	CHECK_OK(pms_kmods_new(sys, &file));
	pms_symbolizer_set_kmods(sym, file);
	CHECK_OK(pms_symbolizer_code(sym, 0xffffffffc0000009, true, &s));
	CHECK(s.func && !strcmp(s.func, "ks_mod_a") && !strcmp(s.module, "[fake_mod]"));
	/* and with fake_mod mapped from its path, with its id: the .ko */
	CHECK_OK(pms_kmods_add(file, 0xffffffffc0000000, 0xffffffffc0001000,
			       "/lib/modules/6.12.0-t/kernel/drivers/fake-mod.ko", bid, 20));
	CHECK_OK(pms_symbolizer_code(sym, 0xffffffffc0000030, true, &s));
	CHECK(s.func && !strcmp(s.func, "mod_fn_alias"));
	pms_symbolizer_free(sym);
	pms_kmods_free(file);
	pms_maps_free(none);
	pms_sys_free(sys);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

PMS_TEST_MAIN()
