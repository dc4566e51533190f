/* vDSO names (issue 30): the running kernel's image through the seam, the
 * build-id rule of pms_vdso_image_pick (a mismatching id gives no image, so
 * no wrong name), and this process's own [vdso] addresses named from it,
 * the alias perf 6.12 prints (the global __vdso_ name over the weak one). */
#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/symbols.h"

/* The value of dynamic symbol name in an ELF64 image (0: none), read with
 * the <elf.h> structs alone (not through the symbolizer). */
static uint64_t dynsym_value(const uint8_t *img, size_t len, const char *name)
{
	const Elf64_Ehdr *eh = (const void *)img;
	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len)
		return 0;
	const Elf64_Shdr *sh = (const void *)(img + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
			continue;
		const Elf64_Sym *sym = (const void *)(img + sh[i].sh_offset);
		const char *str = (const char *)img + sh[sh[i].sh_link].sh_offset;
		for (size_t k = 0; k < sh[i].sh_size / sizeof(*sym); k++)
			if (sym[k].st_shndx != SHN_UNDEF && !strcmp(str + sym[k].st_name, name))
				return sym[k].st_value;
	}
	return 0;
}

PMS_TEST(image_and_build_id_rule)
{
	struct pms_sys *sys = NULL, *fake = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	void *img = NULL, *got = NULL;
	size_t len = 0, glen = 0, n = 0;
	uint8_t id[20], pad[20];
	CHECK_OK(pms_sys_new(&sys, NULL));
	if (pms_sys_vdso_image(sys, &img, &len) == PMS_ENOENT) {
		printf("SKIP: this process has no vDSO\n");
		pms_t_skipped++;
		pms_sys_free(sys);
		return;
	}
	CHECK(img && len >= 4096 && !memcmp(img, ELFMAG, SELFMAG));
	/* not this system: no image of the host's */
	o.root = "/tmp";
	CHECK_OK(pms_sys_new(&fake, &o));
	CHECK_EQ_INT(pms_sys_vdso_image(fake, &got, &glen), PMS_ENOTLIVE);
	CHECK(!got);
	CHECK_EQ_INT(pms_vdso_image_pick(fake, NULL, 0, true, &got, &glen), PMS_ENOTLIVE);
	pms_sys_free(fake);

	CHECK_OK(pms_elf_image_build_id(img, len, id, &n));
	CHECK(n >= 8 && n <= 20);
	/* the file's id is the running image's: that image */
	CHECK_OK(pms_vdso_image_pick(sys, id, n, false, &got, &glen));
	CHECK(got && glen == len && !memcmp(got, img, len));
	free(got);
	got = NULL;
	/* a shorter id in perf's 20-byte slot, padded with zeros: the same */
	memset(pad, 0, sizeof(pad));
	memcpy(pad, id, n);
	CHECK_OK(pms_vdso_image_pick(sys, pad, 20, false, &got, &glen));
	CHECK(got != NULL);
	free(got);
	got = NULL;
	/* one byte different, or one byte short: none (never another image) */
	pad[n - 1] ^= 0x5a;
	CHECK_EQ_INT(pms_vdso_image_pick(sys, pad, n, true, &got, &glen), PMS_ENOENT);
	CHECK(!got && !glen);
	CHECK_EQ_INT(pms_vdso_image_pick(sys, id, n - 1, true, &got, &glen), PMS_ENOENT);
	CHECK(!got);
	/* no id listed: only a recording of this host and kernel */
	CHECK_EQ_INT(pms_vdso_image_pick(sys, NULL, 0, false, &got, &glen), PMS_ENOENT);
	CHECK(!got);
	CHECK_OK(pms_vdso_image_pick(sys, NULL, 0, true, &got, &glen));
	CHECK(got && glen == len);
	free(got);
	/* not ELF */
	CHECK_EQ_INT(pms_elf_image_build_id("not an ELF image", 16, id, &n), PMS_EPARSE);
	free(img);
	pms_sys_free(sys);
}

/* Write image to ROOT/h/.debug/[vdso]/<hex of id>/vdso (perf record's
 * build-id cache entry under HOME=/h). */
static void cache_put(const char *root, const uint8_t *id, size_t n, const void *img, size_t len)
{
	char path[512], hex[41];
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	const char *parts[] = { "/h", "/h/.debug", "/h/.debug/[vdso]" };
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s%s", root, parts[i]);
		(void)mkdir(path, 0700);
	}
	snprintf(path, sizeof(path), "%s/h/.debug/[vdso]/%s", root, hex);
	CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s/h/.debug/[vdso]/%s/vdso", root, hex);
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	if (f) {
		CHECK(fwrite(img, 1, len, f) == len);
		fclose(f);
	}
}

/* perf's build-id cache (issue 30 item 2): where the running image is not
 * the recording's (here: not a live system), the image perf record put in
 * $HOME/.debug/[vdso]/<id>/vdso, when its build id is the recording's; an
 * entry holding another image is refused as perf's symsrc__init refuses it. */
PMS_TEST(perf_build_id_cache)
{
	struct pms_sys *sys = NULL, *fake = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	void *img = NULL, *got = NULL;
	size_t len = 0, glen = 0, n = 0;
	uint8_t id[20], other[20];
	char root[] = "/tmp/pms_vdso_cache_XXXXXX", cmd[600];
	const char *home = getenv("HOME");
	char *saved = home ? strdup(home) : NULL;
	CHECK_OK(pms_sys_new(&sys, NULL));
	if (pms_sys_vdso_image(sys, &img, &len) < 0 || pms_elf_image_build_id(img, len, id, &n) < 0) {
		printf("SKIP: this process has no vDSO with a build id\n");
		pms_t_skipped++;
		free(img);
		free(saved);
		pms_sys_free(sys);
		return;
	}
	CHECK(mkdtemp(root) != NULL);
	o.root = root;
	CHECK_OK(pms_sys_new(&fake, &o));
	setenv("HOME", "/h", 1);
	/* nothing cached: none */
	CHECK_EQ_INT(pms_vdso_image_pick(fake, id, n, false, &got, &glen), PMS_ENOTLIVE);
	CHECK(!got);
	cache_put(root, id, n, img, len);
	CHECK_OK(pms_vdso_image_pick(fake, id, n, false, &got, &glen));
	CHECK(got && glen == len && !memcmp(got, img, len));
	free(got);
	got = NULL;
	/* an entry named by another id holding this image: refused */
	memcpy(other, id, n);
	other[0] ^= 0x5a;
	cache_put(root, other, n, img, len);
	CHECK_EQ_INT(pms_vdso_image_pick(fake, other, n, false, &got, &glen), PMS_ENOTLIVE);
	CHECK(!got && !glen);
	if (saved)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
	free(saved);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	free(img);
	pms_sys_free(fake);
	pms_sys_free(sys);
}

PMS_TEST(own_vdso_named)
{
	struct pms_sys *sys = NULL;
	struct pms_maps *maps = NULL, *other = NULL;
	struct pms_symbolizer *sym = NULL, *bare = NULL;
	struct pms_symbol s;
	void *img = NULL;
	size_t len = 0;
	CHECK_OK(pms_sys_new(&sys, NULL));
	if (pms_sys_vdso_image(sys, &img, &len) < 0) {
		printf("SKIP: no vDSO image\n");
		pms_t_skipped++;
		pms_sys_free(sys);
		return;
	}
#if defined(__x86_64__)
	const char *weak = "clock_gettime", *best = "__vdso_clock_gettime";
#elif defined(__aarch64__)
	const char *weak = "__kernel_clock_gettime", *best = "__kernel_clock_gettime";
#else
	const char *weak = NULL, *best = NULL;
#endif
	uint64_t off = weak ? dynsym_value(img, len, weak) : 0;
	if (!off) {
		printf("SKIP: no %s in this vDSO's .dynsym\n", weak ? weak : "known function");
		pms_t_skipped++;
		goto out;
	}
	CHECK_OK(pms_maps_new(&maps));
	CHECK_OK(pms_maps_read_proc(maps, sys, getpid()));
	const struct pms_map *v = NULL;
	for (size_t i = 0; maps && i < maps->n; i++)
		if (!strcmp(maps->v[i].path, "[vdso]"))
			v = &maps->v[i];
	CHECK(v != NULL);
	if (!v)
		goto out;
	uint64_t ip = v->start + off + 3;
	/* without an image: no name, the mapping only */
	CHECK_OK(pms_symbolizer_new(sys, maps, &bare));
	CHECK_EQ_INT(pms_symbolizer_code(bare, ip, false, &s), PMS_ENOENT);
	CHECK(!s.func);
	/* with it: perf's alias, the offset in it */
	CHECK_OK(pms_symbolizer_new(sys, maps, &sym));
	CHECK_OK(pms_symbolizer_set_vdso(sym, img, len));
	CHECK_EQ_INT(pms_symbolizer_set_vdso(sym, img, len), PMS_EBUSY); /* once */
	CHECK_OK(pms_symbolizer_code(sym, ip, false, &s));
	CHECK_EQ_STR(s.func, best);
	CHECK_EQ_U64(s.offset, 3);
	CHECK_EQ_STR(s.module, "[vdso]");
	/* a process added later maps it too */
	CHECK_OK(pms_symbolizer_add_process(sym, getpid(), maps));
	CHECK_OK(pms_symbolizer_code_pid(sym, getpid(), ip, false, false, &s));
	CHECK_EQ_STR(s.func, best);
	/* the live-run helper gives the same */
	pms_symbolizer_free(bare);
	bare = NULL;
	CHECK_OK(pms_symbolizer_new(sys, maps, &bare));
	CHECK_OK(pms_symbolizer_use_running_vdso(bare, sys));
	CHECK_OK(pms_symbolizer_code_func(bare, ip, false, &s));
	CHECK_EQ_STR(s.func, best);
	/* not ELF: refused, nothing named from it */
	pms_symbolizer_free(bare);
	bare = NULL;
	CHECK_OK(pms_symbolizer_new(sys, maps, &bare));
	CHECK_EQ_INT(pms_symbolizer_set_vdso(bare, "junk", 4), PMS_EPARSE);
	CHECK_EQ_INT(pms_symbolizer_code(bare, ip, false, &s), PMS_ENOENT);
	/* excluded [vdso] mappings (a merged report's file that fails the
	 * rule): unnamed in every space, the others named */
	pms_symbolizer_free(bare);
	bare = NULL;
	CHECK_OK(pms_maps_new(&other));
	const uint64_t at = 0x100000000000ull;
	CHECK_OK(pms_maps_add(other, at, v->end - v->start, 0, 0, true, "[vdso]"));
	CHECK_OK(pms_symbolizer_new(sys, maps, &bare));
	CHECK_EQ_INT(pms_symbolizer_vdso_exclude(bare, at, at), PMS_EINVAL);
	CHECK_OK(pms_symbolizer_vdso_exclude(bare, at, at + (v->end - v->start)));
	CHECK_OK(pms_symbolizer_set_vdso(bare, img, len));
	CHECK_EQ_INT(pms_symbolizer_vdso_exclude(bare, v->start, v->end), PMS_EBUSY);
	CHECK_OK(pms_symbolizer_add_process(bare, getpid(), maps));
	CHECK_OK(pms_symbolizer_add_process(bare, getpid() + 1, other));
	CHECK_OK(pms_symbolizer_code_pid(bare, getpid(), ip, false, false, &s));
	CHECK_EQ_STR(s.func, best);
	CHECK_EQ_INT(pms_symbolizer_code_pid(bare, getpid() + 1, at + off + 3, false, false, &s),
		     PMS_ENOENT);
	CHECK(!s.func);
	/* the shared space: a range overlapping its own mapping excluded */
	pms_symbolizer_free(bare);
	bare = NULL;
	CHECK_OK(pms_symbolizer_new(sys, maps, &bare));
	CHECK_OK(pms_symbolizer_vdso_exclude(bare, v->end - 1, v->end + 4096));
	CHECK_OK(pms_symbolizer_set_vdso(bare, img, len));
	CHECK_EQ_INT(pms_symbolizer_code(bare, ip, false, &s), PMS_ENOENT);
	CHECK(!s.func);
out:
	pms_maps_free(other);
	pms_symbolizer_free(bare);
	pms_symbolizer_free(sym);
	pms_maps_free(maps);
	free(img);
	pms_sys_free(sys);
}

PMS_TEST_MAIN()
