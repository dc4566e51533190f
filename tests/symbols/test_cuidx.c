/* The units of a DWARF file by address (src/symbols/cuidx.c): on this
 * test's own binary (gcc writes .debug_aranges, clang by default does not),
 * every unit's ranges at their first, middle and last address are answered
 * with the unit a walk of the units in section order finds first (the
 * rule the symbolizer's walk had), and that unit is libdw's own answer
 * wherever .debug_aranges gives one; an address outside every range gets
 * none; a second question (the index built) answers alike. */
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "symbols/cuidx.h"

/* The first unit in section order whose ranges hold a: its DIE offset, 0
 * when none does. */
static Dwarf_Off walk(Dwarf *dw, Dwarf_Addr a)
{
	Dwarf_Off off = 0, next;
	size_t hs;
	while (dwarf_nextcu(dw, off, &next, &hs, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t it = 0;
		if (dwarf_offdie(dw, off + hs, &cu))
			while ((it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0)
				if (a >= lo && a < hi)
					return off + hs;
		off = next;
	}
	return 0;
}

static int ask(struct pms_cuidx *x, Dwarf *dw, Dwarf_Addr a, Dwarf_Off *got)
{
	Dwarf_Die cu;
	int r = pms_cuidx_find(x, dw, a, &cu);
	*got = r > 0 ? dwarf_dieoffset(&cu) : 0;
	return r;
}

PMS_TEST(units_by_address_as_a_walk_and_libdw)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	CHECK(fd >= 0);
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	CHECK(dw != NULL);
	struct pms_cuidx x = { 0 };
	size_t asked = 0, aranged = 0;
	uint64_t top = 0;
	Dwarf_Off off = 0, next;
	size_t hs;
	while (dwarf_nextcu(dw, off, &next, &hs, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t it = 0;
		if (dwarf_offdie(dw, off + hs, &cu))
			while ((it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0) {
				Dwarf_Addr probe[3] = { lo, lo + (hi - lo) / 2, hi - 1 };
				top = hi > top ? hi : top;
				for (int k = 0; k < 3 && hi > lo; k++) {
					Dwarf_Off want = walk(dw, probe[k]), got;
					CHECK(want != 0);
					CHECK(ask(&x, dw, probe[k], &got) == 1);
					CHECK(got == want);
					Dwarf_Die ad;
					if (dwarf_addrdie(dw, probe[k], &ad)) {
						CHECK(dwarf_dieoffset(&ad) == got);
						aranged++;
					}
					asked++;
				}
			}
		off = next;
	}
	printf("%zu addresses answered as the walk, %zu of them also by .debug_aranges\n", asked,
	       aranged);
	CHECK(asked >= 3); /* this file's own unit at least */
	Dwarf_Off got;
	CHECK(ask(&x, dw, top, &got) == 0); /* past every unit */
	CHECK(got == 0);
	CHECK(x.built && !x.failed);
	pms_cuidx_free(&x);
	CHECK(x.v == NULL && !x.built);
	dwarf_end(dw);
	close(fd);
}

PMS_TEST_MAIN()
