/* A kernel module's symbols from its .ko file, as perf 6.12 reads them for
 * a module map (kmodsym.h).  Facts from tools/perf/util/symbol-elf.c
 * (dso__load_sym_internal, dso__process_kernel_symbol, max_text_section,
 * symsrc__init) and util/symbol.c (dso__load, symbols__fixup_end,
 * symbols__fixup_duplicate, choose_best_symbol):
 *  - the symbols kept: named functions (STT_FUNC, STT_GNU_IFUNC) and
 *    objects defined in a section, and labels (STT_NOTYPE, not hidden or
 *    internal, not absolute) in a section whose name holds "text"; on Arm
 *    and RISC-V their "$x"-style mapping symbols are not;
 *  - a module's ELF is relocatable: each symbol's value is made an offset
 *    in the file (st_value - sh_addr + sh_offset of its section), and the
 *    module map's offset (pgoff) becomes .text's file offset, so that an ip
 *    maps to ip - start + pgoff;
 *  - only .text's symbols and those of executable sections laid out after
 *    it (before the first .init / .exit one, each where the previous ended,
 *    aligned; max_text_section, compared with <=) belong to the module's
 *    map; perf puts every other section's in a map of its own that a
 *    sample in the module's map does not reach;
 *  - sizes: a symbol without one reaches to the next (the last one to the
 *    page after the page boundary past it); of several at one address one
 *    is kept (a sized one, not weak, global, fewer leading '_', the longer
 *    name, else the first). */
#include <elfutils/libdwelf.h>
#include <gelf.h>
#ifdef PMS_HAVE_LZMA
#include <lzma.h>
#endif
#include <zlib.h>
#include <libelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/kmodsym.h"
#include "sys/sys_int.h"
#include "util/error.h"
#include "util/lastle.h"

struct kms {
	uint64_t start, end;
	char *name;
	uint32_t seq; /* symtab order: equal starts keep it */
	unsigned char bind;
	bool object;
};

struct pms_kmsyms {
	struct kms *v;
	size_t n;
	uint64_t pgoff;
};

void pms_kmsyms_free(struct pms_kmsyms *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	free(k);
}

uint64_t pms_kmsyms_pgoff(const struct pms_kmsyms *k)
{
	return k ? k->pgoff : 0;
}

static bool exe_text(uint64_t flags)
{
	return (flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR);
}

/* The end of the executable sections laid out with .text (perf's
 * max_text_section): 0 where perf gives up on the architecture. */
static uint64_t max_text(Elf *e, const GElf_Ehdr *eh, size_t shstrndx)
{
	Elf_Scn *s = NULL;
	GElf_Shdr sh;
	uint64_t offs = 0;
	if (eh->e_machine == EM_PARISC || eh->e_machine == EM_ALPHA)
		return 0;
	while ((s = elf_nextscn(e, s)) != NULL) {
		if (!gelf_getshdr(s, &sh))
			break;
		if (!exe_text(sh.sh_flags))
			continue;
		const char *nm = elf_strptr(e, shstrndx, sh.sh_name);
		if (!nm || !strncmp(nm, ".init", 5) || !strncmp(nm, ".exit", 5))
			break;
		uint64_t al = sh.sh_addralign ? sh.sh_addralign : 1;
		if (offs && ((offs + al - 1) & ~(al - 1)) != sh.sh_offset)
			break;
		offs = sh.sh_offset + sh.sh_size;
	}
	return offs;
}

static int kms_cmp(const void *a, const void *b)
{
	const struct kms *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static size_t underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol: true when a is kept over b. */
static bool better(const struct kms *a, const struct kms *b)
{
	bool az = a->end == a->start, bz = b->end == b->start;
	if (az != bz)
		return !az;
	bool aw = a->bind == STB_WEAK, bw = b->bind == STB_WEAK;
	if (aw != bw)
		return !aw;
	bool ag = a->bind == STB_GLOBAL, bg = b->bind == STB_GLOBAL;
	if (ag != bg)
		return ag;
	size_t au = underscores(a->name), bu = underscores(b->name);
	if (au != bu)
		return au < bu;
	return strlen(a->name) >= strlen(b->name);
}

/* Sizes fixed and one symbol an address, as perf's loader leaves them. */
static void fixup(struct pms_kmsyms *k)
{
	if (!k->n)
		return;
	qsort(k->v, k->n, sizeof(*k->v), kms_cmp);
	for (size_t i = 0; i + 1 < k->n; i++)
		if (k->v[i].end == k->v[i].start)
			k->v[i].end = k->v[i + 1].start;
	struct kms *last = &k->v[k->n - 1];
	if (last->end == last->start)
		last->end = ((last->start + 4095) & ~(uint64_t)4095) + 4096;
	size_t w = 0;
	for (size_t i = 0; i < k->n; i++) {
		if (w && k->v[w - 1].start == k->v[i].start) {
			if (better(&k->v[w - 1], &k->v[i])) {
				free(k->v[i].name);
			} else {
				free(k->v[w - 1].name);
				k->v[w - 1] = k->v[i];
			}
			continue;
		}
		k->v[w++] = k->v[i];
	}
	k->n = w;
}

static bool mapping_symbol(const GElf_Ehdr *eh, const char *nm)
{
	if (nm[0] != '$')
		return false;
	if (eh->e_machine == EM_ARM || eh->e_machine == EM_AARCH64)
		return nm[1] && strchr("adtx", nm[1]) && (nm[2] == 0 || nm[2] == '.');
	if (eh->e_machine == EM_RISCV)
		return nm[1] == 'd' || nm[1] == 'x';
	return false;
}

static int add(struct pms_kmsyms *k, size_t *cap, uint64_t start, uint64_t size,
	       const char *name, unsigned char bind, bool object)
{
	if (k->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct kms *v = realloc(k->v, nc * sizeof(*v));
		if (!v)
			return pms_err(PMS_ENOMEM, "kernel module symbols: no memory");
		k->v = v;
		*cap = nc;
	}
	char *nm = strdup(name);
	if (!nm)
		return pms_err(PMS_ENOMEM, "kernel module symbols: no memory");
	k->v[k->n] = (struct kms){ start, start + size, nm, (uint32_t)k->n, bind, object };
	k->n++;
	return 0;
}

static int read_elf(Elf *e, struct pms_kmsyms **out)
{
	GElf_Ehdr eh;
	size_t shstrndx, cap = 0;
	Elf_Scn *s = NULL, *symscn = NULL;
	GElf_Shdr sh, symsh;
	int rc = 0;
	if (!gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx) < 0)
		return pms_err(PMS_EPARSE, "kernel module: no ELF header");
	if (eh.e_type != ET_REL)
		return pms_err(PMS_ENOTSUP, "kernel module: not a relocatable ELF file");
	/* perf's symtab: the section named .symtab, of its type */
	while ((s = elf_nextscn(e, s)) != NULL) {
		const char *nm;
		if (gelf_getshdr(s, &sh) && sh.sh_type == SHT_SYMTAB &&
		    (nm = elf_strptr(e, shstrndx, sh.sh_name)) && !strcmp(nm, ".symtab")) {
			symscn = s;
			symsh = sh;
			break;
		}
	}
	Elf_Data *d = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!d || !symsh.sh_entsize)
		return pms_err(PMS_ENOENT, "kernel module: no symbol table");
	struct pms_kmsyms *k = calloc(1, sizeof(*k));
	if (!k)
		return pms_err(PMS_ENOMEM, "kernel module symbols: no memory");
	uint64_t mt = max_text(e, &eh, shstrndx);
	bool remapped = false;
	size_t nsyms = symsh.sh_size / symsh.sh_entsize;
	for (size_t i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym))
			break;
		int type = GELF_ST_TYPE(sym.st_info);
		int vis = GELF_ST_VISIBILITY(sym.st_other);
		if (!sym.st_name || sym.st_shndx == SHN_UNDEF)
			continue;
		bool label = type == STT_NOTYPE && sym.st_shndx != SHN_ABS && vis != STV_HIDDEN &&
			     vis != STV_INTERNAL;
		bool object = type == STT_OBJECT;
		if (!label && type != STT_FUNC && type != STT_GNU_IFUNC && !object)
			continue;
		const char *name = elf_strptr(e, symsh.sh_link, sym.st_name);
		Elf_Scn *sec = sym.st_shndx < SHN_LORESERVE ? elf_getscn(e, sym.st_shndx) : NULL;
		const char *secname;
		if (!name || mapping_symbol(&eh, name) || !sec || !gelf_getshdr(sec, &sh) ||
		    !(secname = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (label && !strstr(secname, "text"))
			continue;
		bool text = !strcmp(secname, ".text");
		if (!text && !(exe_text(sh.sh_flags) && sh.sh_offset <= mt))
			continue; /* another map's symbol */
		if (text && !remapped) {
			remapped = true;
			k->pgoff = sh.sh_offset;
		}
		uint64_t at = sym.st_value - sh.sh_addr + sh.sh_offset;
		if ((rc = add(k, &cap, at, sym.st_size, name, (unsigned char)GELF_ST_BIND(sym.st_info),
			      object)) < 0) {
			pms_kmsyms_free(k);
			return rc;
		}
	}
	fixup(k);
	*out = k;
	return 0;
}

int pms_kmsyms_from_image(const void *image, size_t len, struct pms_kmsyms **out)
{
	if (!image || !len || !out)
		return pms_err(PMS_EINVAL, "kmsyms_from_image: bad argument");
	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pms_err(PMS_ENOTSUP, "libelf: %s", elf_errmsg(-1));
	Elf *e = elf_memory((char *)(uintptr_t)image, len);
	int rc = e && elf_kind(e) == ELF_K_ELF ? read_elf(e, out)
					       : pms_err(PMS_EPARSE, "kernel module: not an ELF file");
	if (e)
		elf_end(e);
	return rc;
}

/* Whether e's GNU build id is id (a 20-byte slot holds a shorter id padded
 * with zeros: vdso.c's rule). */
static bool elf_has_id(Elf *e, const uint8_t *id, size_t idlen)
{
	const void *bid = NULL;
	ssize_t rn = dwelf_elf_gnu_build_id(e, &bid);
	size_t m = idlen;
	if (rn <= 0 || !bid)
		return false;
	if (rn > 20)
		rn = 20;
	while (m > (size_t)rn && !id[m - 1])
		m--;
	return m == (size_t)rn && !memcmp(id, bid, m);
}

/* A compressed module, by its name's suffix as perf's __kmod_path__parse
 * tells it (the file's bytes are not looked at: perf's decompressor is
 * chosen by the suffix too). */
enum comp { C_NONE, C_GZ, C_XZ };

static enum comp comp_of(const char *path)
{
	size_t l = strlen(path);
	if (l > 3 && !strcmp(path + l - 3, ".gz"))
		return C_GZ;
	if (l > 3 && !strcmp(path + l - 3, ".xz"))
		return C_XZ;
	return C_NONE;
}

/* A module's uncompressed size is bounded: a larger one is refused. */
#define KMOD_MAX ((size_t)512 << 20)

/* Grow *b (of *cap bytes) for more output; false at the bound. */
static bool grow(unsigned char **b, size_t *cap)
{
	size_t nc = *cap ? *cap * 2 : (size_t)256 << 10;
	if (*cap >= KMOD_MAX)
		return false;
	if (nc > KMOD_MAX)
		nc = KMOD_MAX;
	unsigned char *n = realloc(*b, nc);
	if (!n)
		return false;
	*b = n;
	*cap = nc;
	return true;
}

/* in (n bytes) inflated (gzip) or decoded (xz) into a malloc'd buffer. */
static int decompress(enum comp c, const unsigned char *in, size_t n, unsigned char **out,
		      size_t *len)
{
	unsigned char *b = NULL;
	size_t cap = 0, have = 0;
	int rc = 0;
	*out = NULL;
	*len = 0;
	if (c == C_GZ) {
		z_stream z;
		memset(&z, 0, sizeof(z));
		if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
			return pms_err(PMS_ENOMEM, "kernel module: zlib: no memory");
		z.next_in = (unsigned char *)(uintptr_t)in;
		for (size_t left = n;;) {
			if (have == cap && !grow(&b, &cap)) {
				rc = pms_err(PMS_ERANGE, "kernel module: too large inflated");
				break;
			}
			uInt in_now = left > (1u << 30) ? (1u << 30) : (uInt)left;
			uInt room = cap - have > (1u << 30) ? (1u << 30) : (uInt)(cap - have);
			z.avail_in = in_now;
			z.next_out = b + have;
			z.avail_out = room;
			int r = inflate(&z, Z_NO_FLUSH);
			left -= in_now - z.avail_in;
			have += room - z.avail_out;
			if (r == Z_STREAM_END)
				break;
			if ((r != Z_OK && r != Z_BUF_ERROR) || (r == Z_BUF_ERROR && z.avail_out)) {
				rc = pms_err(PMS_EPARSE, "kernel module: not a whole gzip stream");
				break;
			}
		}
		inflateEnd(&z);
	} else {
#ifdef PMS_HAVE_LZMA
		lzma_stream z = LZMA_STREAM_INIT;
		if (lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
			return pms_err(PMS_ENOMEM, "kernel module: liblzma: no memory");
		z.next_in = in;
		z.avail_in = n;
		for (;;) {
			if (have == cap && !grow(&b, &cap)) {
				rc = pms_err(PMS_ERANGE, "kernel module: too large decoded");
				break;
			}
			z.next_out = b + have;
			z.avail_out = cap - have;
			lzma_ret r = lzma_code(&z, LZMA_FINISH);
			have = cap - z.avail_out;
			if (r == LZMA_STREAM_END)
				break;
			if (r != LZMA_OK) {
				rc = pms_err(PMS_EPARSE, "kernel module: not a whole xz stream");
				break;
			}
		}
		lzma_end(&z);
#else
		(void)in;
		(void)n;
		return pms_err(PMS_ENOTSUP, "kernel module: built without liblzma (.ko.xz)");
#endif
	}
	if (rc < 0 || !have) {
		free(b);
		return rc < 0 ? rc : pms_err(PMS_EPARSE, "kernel module: empty once decompressed");
	}
	*out = b;
	*len = have;
	return 0;
}

/* The symbols of an opened ELF when its id is the recording's (or none is
 * asked). */
static int read_checked(Elf *e, const char *path, const uint8_t *id, size_t idlen,
			struct pms_kmsyms **out)
{
	if (!e || elf_kind(e) != ELF_K_ELF)
		return pms_err(PMS_EPARSE, "%s: not an ELF file", path);
	if (idlen && !elf_has_id(e, id, idlen))
		return pms_err(PMS_ENOENT, "%s: not the recording's build id", path);
	return read_elf(e, out);
}

/* One candidate file (absolute path, read below the root), compressed as
 * c says (perf decompresses a cached copy of a compressed module too). */
static int try_file(const struct pms_sys *sys, const char *path, enum comp c,
		    const uint8_t *id, size_t idlen, struct pms_kmsyms **out)
{
	int rc;
	while (*path == '/')
		path++;
	if (!*path)
		return PMS_ENOENT;
	if (c != C_NONE) {
		char *raw = NULL;
		unsigned char *img = NULL;
		size_t n = 0, len = 0;
		if ((rc = pms_sys_read_file(sys, path, &raw, &n)) < 0)
			return rc;
		rc = decompress(c, (const unsigned char *)raw, n, &img, &len);
		free(raw);
		if (rc < 0)
			return rc;
		Elf *e = elf_memory((char *)img, len);
		rc = read_checked(e, path, id, idlen, out);
		if (e)
			elf_end(e);
		free(img);
		return rc;
	}
	struct pms_sys_stream *f = NULL;
	if ((rc = pms_sys_stream_open(sys, path, &f)) < 0)
		return rc;
	Elf *e = elf_begin(pms_sys_stream_fd(f), ELF_C_READ_MMAP, NULL);
	rc = read_checked(e, path, id, idlen, out);
	if (e)
		elf_end(e);
	pms_sys_stream_close(f);
	return rc;
}

int pms_kmsyms_load(const struct pms_sys *sys, const char *path, const uint8_t *id,
		    size_t idlen, struct pms_kmsyms **out)
{
	if (!sys || !path || !out || (idlen && !id) || idlen > 20)
		return pms_err(PMS_EINVAL, "kmsyms_load: bad argument");
	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pms_err(PMS_ENOTSUP, "libelf: %s", elf_errmsg(-1));
	if (idlen) {
		/* perf's BUILD_ID_CACHE first: <dir>/.build-id/xx/<rest>, the
		 * link build_id_cache__add leaves there, a file (the old
		 * layout) or a directory holding "elf" (build-id.c
		 * __dso__build_id_filename, build_id_cache__basename) */
		char dir[4096], p[4352], hex[41];
		for (size_t i = 0; i < idlen; i++)
			snprintf(hex + 2 * i, 3, "%02x", id[i]);
		if (pms_perf_buildid_dir(sys, dir, sizeof(dir)) == 0) {
			int k = snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
			if (k > 0 && (size_t)k < sizeof(p) &&
			    try_file(sys, p, comp_of(path), id, idlen, out) == 0)
				return 0;
			k = snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
			if (k > 0 && (size_t)k < sizeof(p) &&
			    try_file(sys, p, comp_of(path), id, idlen, out) == 0)
				return 0;
		}
		pms_error_clear();
	}
	if (path[0] != '/')
		return pms_err(PMS_ENOENT, "%s: no module file", path);
	return try_file(sys, path, comp_of(path), id, idlen, out);
}

const char *pms_kmsyms_find(const struct pms_kmsyms *k, uint64_t map_ip, uint64_t *off,
			    bool *object)
{
	size_t i = k ? pms_last_le(k->v, k->n, sizeof(*k->v), offsetof(struct kms, start), map_ip)
		     : SIZE_MAX;
	if (i == SIZE_MAX)
		return NULL;
	const struct kms *s = &k->v[i];
	if (map_ip >= s->end)
		return NULL;
	if (off)
		*off = map_ip - s->start;
	if (object)
		*object = s->object;
	return s->name;
}
