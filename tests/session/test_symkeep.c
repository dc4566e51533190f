/* The symbolizer a live session keeps across its intervals (symkeep.h,
 * pmuscope top): made once for the same mappings, kept (the same object,
 * the same names) while they stay, made again when they change; a
 * process's own mappings given again unchanged keep its names, and changed
 * ones name from the new mappings.  Names this test binary's own function
 * from /proc/self/maps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/symbols.h"
#include "pmuscope/sys.h"
#include "session/symkeep.h"

__attribute__((noinline)) int pms_t_symkeep_target(int x);
__attribute__((noinline)) int pms_t_symkeep_target(int x)
{
	return x * 3 + 1;
}

static bool names_target(struct pms_symbolizer *sym, pid_t pid)
{
	struct pms_symbol out;
	memset(&out, 0, sizeof(out));
	uint64_t ip = (uint64_t)(uintptr_t)&pms_t_symkeep_target;
	int rc = pid ? pms_symbolizer_code_pid(sym, pid, ip, false, false, &out)
		     : pms_symbolizer_code_func(sym, ip, false, &out);
	return rc == 0 && out.func && !strcmp(out.func, "pms_t_symkeep_target");
}

PMS_TEST(kept_while_the_maps_stay)
{
	struct pms_sys *sys = NULL;
	struct pms_maps *maps = NULL, *other = NULL, *made_from = NULL;
	struct pms_symbolizer *sym = NULL;
	if (pms_sys_new(&sys, NULL) < 0 || pms_maps_new(&maps) < 0 ||
	    pms_maps_read_proc(maps, sys, getpid()) < 0) {
		pms_maps_free(maps);
		pms_sys_free(sys);
		PMS_SKIP("no /proc/self/maps here");
	}
	CHECK(pms_t_symkeep_target(1) == 4);
	CHECK_OK(pms_maps_new(&other));
	for (size_t i = 0; i < maps->n; i++)
		CHECK_OK(pms_maps_add(other, maps->v[i].start, maps->v[i].end - maps->v[i].start,
				      maps->v[i].pgoff, maps->v[i].ino, maps->v[i].exec,
				      maps->v[i].path));
	CHECK(pms_maps_equal(maps, other));
	CHECK(!pms_maps_equal(maps, NULL));
	/* made, then kept for equal mappings (a copy, not the same object) */
	CHECK_EQ_INT(pms_symkeep_refresh(&sym, &made_from, sys, maps, true), 1);
	CHECK(sym != NULL && pms_maps_equal(made_from, maps));
	struct pms_symbolizer *first = sym;
	CHECK(names_target(sym, 0));
	CHECK_EQ_INT(pms_symkeep_refresh(&sym, &made_from, sys, other, true), 0);
	CHECK(sym == first);
	CHECK(names_target(sym, 0));
	/* a process's own mappings, given again unchanged, then changed */
	CHECK_OK(pms_symbolizer_add_process(sym, getpid(), maps));
	CHECK(names_target(sym, getpid()));
	CHECK_OK(pms_symbolizer_add_process(sym, getpid(), other));
	CHECK(names_target(sym, getpid()));
	/* a new mapping far below the others: made again, names still right */
	CHECK_OK(pms_maps_add(other, 0x10000, 0x1000, 0, 0, false, ""));
	CHECK(!pms_maps_equal(maps, other));
	CHECK_OK(pms_symbolizer_add_process(sym, getpid(), other));
	CHECK(names_target(sym, getpid()));
	CHECK_EQ_INT(pms_symkeep_refresh(&sym, &made_from, sys, other, false), 1);
	CHECK(sym != NULL && pms_maps_equal(made_from, other));
	CHECK(!pms_symbolizer_demangles(sym));
	CHECK(names_target(sym, 0));
	/* changed mappings and no seam: no symbolizer, nothing kept */
	CHECK_EQ_INT(pms_symkeep_refresh(&sym, &made_from, NULL, maps, true), 0);
	CHECK(sym == NULL && made_from == NULL);
	pms_maps_free(other);
	pms_maps_free(maps);
	pms_sys_free(sys);
}

int main(int argc, char **argv)
{
	return pms_t_run(argc, argv);
}
