/* Data addresses named by the truth of their mapping (pms_data_object):
 * this test binary's own objects.  An ELF object symbol names an address
 * only inside [value, value + size); data with no symbol, and data inside
 * a function's range, get the section's name (issue 28: a whole libc
 * mapping was named after a function before). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/symbols.h"

/* A 64-byte object with 192 bytes after it that no symbol covers, in a
 * section of its own; a 64-byte function (STT_FUNC, sized) in .text. */
__asm__(".pushsection pms_objsec,\"aw\",@progbits\n"
	".balign 64\n"
	".globl pms_t_dobj_obj\n"
	".type pms_t_dobj_obj,@object\n"
	".size pms_t_dobj_obj,64\n"
	"pms_t_dobj_obj: .zero 64\n"
	".zero 192\n"
	".popsection\n"
	".pushsection .text,\"ax\",@progbits\n"
	".balign 64\n"
	".globl pms_t_dobj_fn\n"
	".type pms_t_dobj_fn,@function\n"
	".size pms_t_dobj_fn,64\n"
	"pms_t_dobj_fn: ret\n"
	".fill 63,1,0x90\n"
	".popsection\n");
extern char pms_t_dobj_obj[];
extern char pms_t_dobj_fn[];

/* A .bss object big enough to run past the file's last page into the
 * anonymous mapping the kernel adds after it. */
char pms_t_dobj_bss[1 << 20];

static uint64_t u(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

PMS_TEST(objects_sections_and_kernel_names)
{
	struct pms_sys *sys = NULL;
	struct pms_maps *maps = NULL;
	struct pms_symbolizer *sym = NULL;
	struct pms_dataobj o;
	struct pms_symbol s;
	char buf[256];
	void *h = malloc(64);
	void *an = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile int local = 1;
	CHECK(an != MAP_FAILED);
	pms_t_dobj_bss[sizeof(pms_t_dobj_bss) - 1] = 1;
	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK_OK(pms_maps_new(&maps));
	CHECK_OK(pms_maps_read_proc(maps, sys, getpid()));
	CHECK_OK(pms_symbolizer_new(sys, maps, &sym));
	if (!sym)
		return;

	/* inside the object's size: the global, its section */
	CHECK_OK(pms_data_object(sym, 0, maps, u(pms_t_dobj_obj + 10), &o));
	CHECK_EQ_INT(o.kind, PMS_DOBJ_GLOBAL);
	CHECK_EQ_STR(o.symbol, "pms_t_dobj_obj");
	CHECK(o.section && !strcmp(o.section, "pms_objsec"));
	CHECK_EQ_U64(o.start, u(pms_t_dobj_obj));
	CHECK_EQ_U64(o.end, u(pms_t_dobj_obj) + 64);
	CHECK_EQ_STR(pms_dataobj_format(&o, buf, sizeof(buf)), "pms_t_dobj_obj");
	CHECK_EQ_STR(pms_dataobj_kind_name(o.kind), "global");
	/* past its size: data no symbol covers, named by its section */
	for (int off = 64; off < 256; off += 100) {
		CHECK_OK(pms_data_object(sym, 0, maps, u(pms_t_dobj_obj + off), &o));
		CHECK_MSG(o.kind == PMS_DOBJ_SEGMENT, "+%d: kind %s", off,
			  pms_dataobj_kind_name(o.kind));
		CHECK(!o.symbol);
		CHECK(o.section && !strcmp(o.section, "pms_objsec"));
		CHECK(o.start <= u(pms_t_dobj_obj) && o.end >= u(pms_t_dobj_obj) + 256);
		CHECK(strstr(pms_dataobj_format(&o, buf, sizeof(buf)), "test_symbols_dataobj pms_objsec"));
		CHECK(pms_symbolizer_data(sym, u(pms_t_dobj_obj + off), &s) == PMS_ENOENT);
	}
	/* inside a function: never its name, the section's */
	CHECK_OK(pms_data_object(sym, 0, maps, u(pms_t_dobj_fn + 8), &o));
	CHECK_EQ_INT(o.kind, PMS_DOBJ_SEGMENT);
	CHECK(o.section && !strcmp(o.section, ".text"));
	CHECK(strstr(pms_dataobj_format(&o, buf, sizeof(buf)), " .text") != NULL);
	CHECK(pms_symbolizer_data(sym, u(pms_t_dobj_fn + 8), &s) == PMS_ENOENT);
	/* ... while code lookups still name it */
	CHECK_OK(pms_symbolizer_code_func(sym, u(pms_t_dobj_fn + 8), false, &s));
	CHECK(s.func && !strcmp(s.func, "pms_t_dobj_fn"));

	/* a .bss object's last byte, in the anonymous tail mapping or not */
	CHECK_OK(pms_data_object(sym, 0, maps, u(&pms_t_dobj_bss[sizeof(pms_t_dobj_bss) - 1]), &o));
	CHECK_EQ_INT(o.kind, PMS_DOBJ_GLOBAL);
	CHECK_EQ_STR(o.symbol, "pms_t_dobj_bss");
	CHECK(o.section && !strcmp(o.section, ".bss"));

	/* the kernel's names: heap (or an anonymous range), stack, anon */
	CHECK_OK(pms_data_object(sym, 0, maps, u(h), &o));
	CHECK(o.kind == PMS_DOBJ_HEAP || o.kind == PMS_DOBJ_ANON);
	CHECK_OK(pms_data_object(sym, 0, maps, u((const void *)&local), &o));
	CHECK_EQ_INT(o.kind, PMS_DOBJ_STACK);
	CHECK_EQ_STR(pms_dataobj_format(&o, buf, sizeof(buf)), "[stack]");
	CHECK_OK(pms_data_object(sym, 0, maps, u((char *)an + 100), &o));
	CHECK_EQ_INT(o.kind, PMS_DOBJ_ANON);
	CHECK(o.start <= u(an) && o.end >= u(an) + (1 << 16));
	snprintf(buf, sizeof(buf), "[anon 0x%llx]", (unsigned long long)o.start);
	char b2[256];
	CHECK_EQ_STR(pms_dataobj_format(&o, b2, sizeof(b2)), buf);
	CHECK_OK(pms_data_object(sym, 0, maps, 16, &o));
	CHECK_EQ_INT(o.kind, PMS_DOBJ_UNMAPPED);
	CHECK_EQ_STR(pms_dataobj_format(&o, buf, sizeof(buf)), "[unmapped]");

	/* no symbolizer: a file mapping is a segment with no section */
	CHECK_OK(pms_data_object(NULL, 0, maps, u(pms_t_dobj_obj + 10), &o));
	CHECK_EQ_INT(o.kind, PMS_DOBJ_SEGMENT);
	CHECK(!o.section && !o.symbol);
	CHECK(pms_data_object(sym, 0, NULL, 0, &o) == PMS_EINVAL);

	munmap(an, 1 << 16);
	free(h);
	pms_symbolizer_free(sym);
	pms_maps_free(maps);
	pms_sys_free(sys);
}

PMS_TEST_MAIN()
