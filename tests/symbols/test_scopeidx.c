/* The code scopes of a DWARF unit by address (src/symbols/scopeidx.c),
 * against libdw itself as the oracle: at the first, middle and last address
 * of each range of each scope the index holds, and at each unit range's
 * ends, the chain of functions the index gives (the innermost, then each
 * function around it up to the first subprogram) is the chain libdw's
 * dwarf_getscopes + dwarf_getscopes_die give (what inline.c asked before the
 * index), DIE for DIE, including where libdw gives none.  Files: this
 * test's own binary (its inlined code: bump, and more at -O2) and, when installed, the
 * C library's separate debug file (gcc -O2, lexical blocks, many inlined
 * instances); PMS_SCOPEIDX_PROBES raises the number of addresses asked (a
 * full run), the default keeps the test light. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/error.h"
#include "symbols/scopeidx.h"

#define CHAIN_MAX 64

/* libdw's answer, as inline.c asked it before the index. */
static int oracle(Dwarf_Die *cu, Dwarf_Addr a, const void **out)
{
	Dwarf_Die *scopes = NULL, *chain = NULL;
	int ns = dwarf_getscopes(cu, a, &scopes), nc = 0, n = 0;
	for (int i = 0; i < ns && !nc; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			nc = dwarf_getscopes_die(&scopes[i], &chain);
	}
	for (int i = 0; i < nc && n < CHAIN_MAX; i++) {
		int tag = dwarf_tag(&chain[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		out[n++] = chain[i].addr;
		if (tag == DW_TAG_subprogram)
			break;
	}
	free(chain);
	free(scopes);
	return n;
}

static int indexed(struct pms_scopeidx *x, Dwarf_Addr a, const void **out)
{
	int n = 0;
	for (uint32_t i = pms_scopeidx_func(x, a); i != PMS_SCOPE_NONE && n < CHAIN_MAX;
	     i = x->s[i].parent) {
		int tag = x->s[i].tag;
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		out[n++] = x->s[i].die.addr;
		if (tag == DW_TAG_subprogram)
			break;
	}
	return n;
}

struct tally {
	size_t asked, framed, inlined, budget;
};

/* inlined in every build (-O0 too): this binary has inlined instances */
static inline __attribute__((always_inline)) size_t bump(size_t v, bool yes)
{
	return v + (yes ? 1 : 0);
}

static void probe(Dwarf_Die *cu, struct pms_scopeidx *x, Dwarf_Addr a, struct tally *t)
{
	const void *want[CHAIN_MAX], *got[CHAIN_MAX];
	int nw = oracle(cu, a, want), ng = indexed(x, a, got);
	if (nw != ng || memcmp(want, got, (size_t)nw * sizeof(*want)))
		fprintf(stderr, "FAIL unit %#llx address %#llx: libdw %d functions, index %d\n",
			(unsigned long long)dwarf_dieoffset(cu), (unsigned long long)a, nw, ng);
	CHECK(nw == ng);
	CHECK(!memcmp(want, got, (size_t)nw * sizeof(*want)));
	t->asked = bump(t->asked, true);
	t->framed = bump(t->framed, nw > 0);
	t->inlined = bump(t->inlined, nw > 1);
}

/* Every unit of dw (units spread evenly while the budget lasts). */
static void check_file(const char *path, struct tally *t)
{
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	CHECK(dw != NULL);
	size_t units = 0, skip, k = 0;
	Dwarf_Off off = 0, next;
	size_t hs;
	while (dwarf_nextcu(dw, off, &next, &hs, NULL, NULL, NULL) == 0) {
		units++;
		off = next;
	}
	/* about 40 addresses a unit */
	skip = units * 40 / (t->budget ? t->budget : 1) + 1;
	off = 0;
	while (dwarf_nextcu(dw, off, &next, &hs, NULL, NULL, NULL) == 0 && t->asked < t->budget) {
		Dwarf_Die cu;
		if (k++ % skip == 0 && dwarf_offdie(dw, off + hs, &cu)) {
			struct pms_scopeidx *x = NULL;
			CHECK_OK(pms_scopeidx_build(&cu, &x));
			for (size_t i = 0; i < x->niv; i++) {
				const struct pms_scopeiv *v = &x->iv[i];
				probe(&cu, x, v->lo, t);
				probe(&cu, x, v->lo + (v->hi - v->lo) / 2, t);
				probe(&cu, x, v->hi - 1, t);
			}
			Dwarf_Addr base, lo, hi;
			ptrdiff_t it = 0;
			while ((it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0)
				if (hi > lo) {
					probe(&cu, x, lo, t);
					probe(&cu, x, hi - 1, t);
					probe(&cu, x, hi, t);
				}
			pms_scopeidx_free(x);
		}
		off = next;
	}
	dwarf_end(dw);
	close(fd);
}

/* The C library's separate debug file, by its build id; NULL when not
 * installed. */
static char *libc_debug(void)
{
	static const char *const libs[] = { "/lib/x86_64-linux-gnu/libc.so.6",
					    "/lib/aarch64-linux-gnu/libc.so.6", "/lib64/libc.so.6" };
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		int fd = open(libs[i], O_RDONLY);
		if (fd < 0)
			continue;
		elf_version(EV_CURRENT);
		Elf *e = elf_begin(fd, ELF_C_READ, NULL);
		Elf_Scn *scn = NULL;
		char *path = NULL;
		while (e && !path && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
				continue;
			GElf_Nhdr nh;
			size_t o = 0, no, doff;
			while ((o = gelf_getnote(d, o, &nh, &no, &doff)) > 0)
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz > 1 && nh.n_descsz < 64) {
					const unsigned char *id = (const unsigned char *)d->d_buf + doff;
					char hex[160];
					size_t h = 0;
					for (size_t j = 0; j < nh.n_descsz; j++)
						h += (size_t)snprintf(hex + h, sizeof(hex) - h, "%02x%s", id[j],
								      j == 0 ? "/" : "");
					path = malloc(256);
					CHECK(path != NULL);
					snprintf(path, 256, "/usr/lib/debug/.build-id/%s.debug", hex);
					if (access(path, R_OK)) {
						free(path);
						path = NULL;
					}
					break;
				}
		}
		elf_end(e);
		close(fd);
		if (path)
			return path;
	}
	return NULL;
}

PMS_TEST(function_chains_as_libdw)
{
	const char *env = getenv("PMS_SCOPEIDX_PROBES");
	struct tally self = { .budget = env ? strtoul(env, NULL, 10) : 20000 };
	check_file("/proc/self/exe", &self);
	printf("own binary: %zu addresses, %zu in a function, %zu in an inlined one\n", self.asked,
	       self.framed, self.inlined);
	CHECK(self.inlined > 0);
	char *lc = libc_debug();
	if (!lc) {
		printf("no C library debug file: own binary only\n");
		return;
	}
	struct tally libc = { .budget = env ? strtoul(env, NULL, 10) : 6000 };
	check_file(lc, &libc);
	printf("%s: %zu addresses, %zu in a function, %zu in an inlined one\n", lc, libc.asked,
	       libc.framed, libc.inlined);
	CHECK(libc.inlined > 0);
	free(lc);
}

PMS_TEST_MAIN()
