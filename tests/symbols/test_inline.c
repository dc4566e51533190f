/* Inline stacks from DWARF (src/symbols/inline.c, issue 30): this test's
 * own t_leaf and t_mid are always inlined into t_outer; the address of a
 * call inside t_leaf (its return address - 1, as a DWARF caller frame)
 * gives t_leaf, t_mid, t_outer, innermost first, each outer one with the
 * line of the call inside it; a file that is not there or has no DWARF
 * gives no frame; an address looked up again gives the same answer.  The
 * DWARF is the symbolizer's handle on the file (pms_sym_dwfile), one per
 * path for the symbolizer's life. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/symbols.h"
#include "pmuscope/sys.h"
#include "symbols/inline_int.h"
#include "symbols/symbols_int.h"

static int mid_call_line, outer_call_line;

__attribute__((noinline)) static uintptr_t t_grab(void)
{
	return (uintptr_t)__builtin_return_address(0) - 1;
}

static inline __attribute__((always_inline)) uintptr_t t_leaf(int k)
{
	return t_grab() + (uintptr_t)(k & 0);
}

static inline __attribute__((always_inline)) uintptr_t t_mid(int k)
{
	mid_call_line = __LINE__ + 1;
	return t_leaf(k + 1);
}

__attribute__((noinline)) static uintptr_t t_outer(int k)
{
	outer_call_line = __LINE__ + 1;
	uintptr_t pc = t_mid(k);
	__asm__ volatile("" ::: "memory");
	return pc;
}

/* A symbolizer with no process mapped (the file handles need none). */
static void sym_open(struct pms_sys **sys, struct pms_symbolizer **s)
{
	struct pms_maps *none = NULL;
	CHECK_OK(pms_sys_new(sys, NULL));
	CHECK_OK(pms_maps_new(&none));
	CHECK_OK(pms_symbolizer_new(*sys, none, s));
	pms_maps_free(none);
}

static void sym_close(struct pms_sys *sys, struct pms_symbolizer *s)
{
	pms_symbolizer_free(s);
	pms_sys_free(sys);
}

/* The file offset of addr in this process's mapping of path. */
static int offset_of(uintptr_t addr, char *path, size_t size, uint64_t *off)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];
	int rc = -1;
	if (!f)
		return -1;
	while (rc < 0 && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, pg;
		int n = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &lo, &hi, &pg, &n) < 3 || !n ||
		    addr < lo || addr >= hi)
			continue;
		snprintf(path, size, "%s", line + n);
		path[strcspn(path, "\n")] = 0;
		*off = addr - lo + pg;
		rc = 0;
	}
	fclose(f);
	return rc;
}

PMS_TEST(stack_of_an_inlined_call)
{
	char path[PATH_MAX];
	uint64_t off;
	uintptr_t pc = t_outer(1);
	struct pms_inline *c = NULL;
	const struct pms_inl_frame *fr;
	size_t n;
	CHECK(offset_of(pc, path, sizeof(path), &off) == 0);
	struct pms_sys *sys;
	struct pms_symbolizer *sym;
	sym_open(&sys, &sym);
	CHECK_OK(pms_inline_new(sym, &c));
	CHECK_OK(pms_inline_at(c, path, off, &fr, &n));
	if (n == 0) {
		pms_inline_free(c);
		sym_close(sys, sym);
		PMS_SKIP("no DWARF in %s (built without -g?)", path);
	}
	CHECK_EQ_INT((int)n, 3);
	CHECK_EQ_STR(fr[0].name, "t_leaf");
	CHECK_EQ_STR(fr[1].name, "t_mid");
	CHECK_EQ_STR(fr[2].name, "t_outer");
	CHECK(fr[0].file == NULL); /* the innermost's line is the line table's */
	CHECK(fr[1].file && strstr(fr[1].file, "test_inline.c"));
	CHECK_EQ_INT((int)fr[1].line, mid_call_line);
	CHECK(fr[2].file && strstr(fr[2].file, "test_inline.c"));
	CHECK_EQ_INT((int)fr[2].line, outer_call_line);
	/* again: the cached answer */
	CHECK_OK(pms_inline_at(c, path, off, &fr, &n));
	CHECK_EQ_INT((int)n, 3);
	CHECK_EQ_STR(fr[1].name, "t_mid");
	/* a function with nothing inlined at the address: itself alone */
	uint64_t fo;
	char p2[PATH_MAX];
	CHECK(offset_of((uintptr_t)&t_grab, p2, sizeof(p2), &fo) == 0);
	CHECK_OK(pms_inline_at(c, p2, fo, &fr, &n));
	CHECK_EQ_INT((int)n, 1);
	CHECK_EQ_STR(fr[0].name, "t_grab");
	/* the symbolizer's handle on the file, the same at each question */
	struct pms_sym_dwfile *f = pms_sym_dwfile(sym, path);
	CHECK(f && f->dw && f->mod);
	CHECK(pms_sym_dwfile(sym, path) == f);
	/* a second inline object over the same symbolizer: the same answer */
	struct pms_inline *c2 = NULL;
	CHECK_OK(pms_inline_new(sym, &c2));
	CHECK_OK(pms_inline_at(c2, path, off, &fr, &n));
	CHECK_EQ_INT((int)n, 3);
	CHECK_EQ_STR(fr[2].name, "t_outer");
	pms_inline_free(c2);
	pms_inline_free(c);
	CHECK(pms_sym_dwfile(sym, path) == f); /* the symbolizer's, kept */
	sym_close(sys, sym);
}

PMS_TEST(no_file_no_dwarf_no_frame)
{
	struct pms_inline *c = NULL;
	const struct pms_inl_frame *fr;
	size_t n = 7;
	struct pms_sys *sys;
	struct pms_symbolizer *sym;
	sym_open(&sys, &sym);
	CHECK_OK(pms_inline_new(sym, &c));
	CHECK_OK(pms_inline_at(c, "/nonexistent/module.so", 0x1000, &fr, &n));
	CHECK_EQ_INT((int)n, 0);
	CHECK_OK(pms_inline_at(c, "/proc/self/status", 0x10, &fr, &n)); /* not ELF */
	CHECK_EQ_INT((int)n, 0);
	CHECK_OK(pms_inline_at(c, "[vdso]", 0x10, &fr, &n)); /* not a path */
	CHECK_EQ_INT((int)n, 0);
	/* the module already known as without DWARF: no frame again */
	CHECK_OK(pms_inline_at(c, "/nonexistent/module.so", 0x2000, &fr, &n));
	CHECK_EQ_INT((int)n, 0);
	CHECK(pms_sym_dwfile(sym, "/nonexistent/module.so") == NULL);
	CHECK(pms_sym_dwfile(sym, "relative/path.so") == NULL);
	pms_inline_free(c);
	pms_inline_free(NULL);
	sym_close(sys, sym);
	/* no symbolizer: no frame, no failure */
	CHECK_OK(pms_inline_new(NULL, &c));
	CHECK_OK(pms_inline_at(c, "/proc/self/exe", 0x10, &fr, &n));
	CHECK_EQ_INT((int)n, 0);
	pms_inline_free(c);
}

PMS_TEST_MAIN()
