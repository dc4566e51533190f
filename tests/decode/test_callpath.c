/* Callchain arrays -> frames, and perf's --call-graph words. */
#include <stdint.h>

#include "check.h"
#include "pmuscope/callpath.h"
#include "pmuscope/error.h"

#define KERNEL ((uint64_t)-128)
#define USER ((uint64_t)-512)
#define GUEST_KERNEL ((uint64_t)-2176)

PMS_TEST(chain_markers_and_flags)
{
	/* The kernel writes a KERNEL marker, its frames, a USER marker, the
	 * user frames (kernel/events/callchain.c get_perf_callchain). */
	const uint64_t chain[] = { KERNEL, 0xffffffff81000010ULL, 0xffffffff81000020ULL,
				   USER,   0x401000,              0x401100,
				   0x401200 };
	struct pms_frame f[8];
	size_t n = 99;
	CHECK_EQ_INT(pms_callpath_from_chain(chain, 7, true, f, 8, &n), 0);
	CHECK_EQ_U64(n, 5);
	CHECK_EQ_U64(f[0].ip, 0xffffffff81000010ULL);
	CHECK_EQ_U64(f[0].flags, PMS_FRAME_KERNEL);
	CHECK_EQ_U64(f[1].flags, PMS_FRAME_KERNEL);
	CHECK_EQ_U64(f[2].ip, 0x401000);
	CHECK_EQ_U64(f[2].flags, 0);
	CHECK_EQ_U64(f[4].ip, 0x401200);
	/* without the user part (a DWARF unwind gives it) */
	CHECK_EQ_INT(pms_callpath_from_chain(chain, 7, false, f, 8, &n), 0);
	CHECK_EQ_U64(n, 2);
	/* cut for want of room */
	CHECK_EQ_INT(pms_callpath_from_chain(chain, 7, true, f, 3, &n), 1);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(f[2].ip, 0x401000);
	/* a user-only chain, a guest kernel marker counts as kernel */
	const uint64_t u[] = { USER, 0x10, GUEST_KERNEL, 0x20 };
	CHECK_EQ_INT(pms_callpath_from_chain(u, 4, true, f, 8, &n), 0);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(f[0].flags, 0);
	CHECK_EQ_U64(f[1].flags, PMS_FRAME_KERNEL);
	/* empty, and NULL with a count */
	CHECK_EQ_INT(pms_callpath_from_chain(NULL, 0, true, f, 8, &n), 0);
	CHECK_EQ_U64(n, 0);
	CHECK_EQ_INT(pms_callpath_from_chain(NULL, 3, true, f, 8, &n), PMS_EINVAL);
	CHECK_EQ_INT(pms_callpath_from_chain(chain, 7, true, NULL, 8, &n), PMS_EINVAL);
}

PMS_TEST(callgraph_words)
{
	enum pms_callgraph g = PMS_CALLGRAPH_NONE;
	uint32_t sz = 0;
	CHECK_EQ_INT(pms_callgraph_parse("fp", &g, &sz), 0);
	CHECK_EQ_INT(g, PMS_CALLGRAPH_FP);
	CHECK_EQ_INT(pms_callgraph_parse("dwarf", &g, &sz), 0);
	CHECK_EQ_INT(g, PMS_CALLGRAPH_DWARF);
	CHECK_EQ_U64(sz, PMS_CALLGRAPH_DWARF_DEFAULT);
	CHECK_EQ_INT(pms_callgraph_parse("dwarf,4096", &g, &sz), 0);
	CHECK_EQ_U64(sz, 4096);
	CHECK_EQ_INT(pms_callgraph_parse("dwarf,13", &g, &sz), 0);
	CHECK_EQ_U64(sz, 16); /* the kernel wants a multiple of 8 */
	CHECK_EQ_INT(pms_callgraph_parse("dwarf,65528", &g, &sz), 0);
	CHECK_EQ_INT(pms_callgraph_parse("dwarf,65536", &g, &sz), PMS_EINVAL);
	CHECK_EQ_INT(pms_callgraph_parse("dwarf,0", &g, &sz), PMS_EINVAL);
	CHECK_EQ_INT(pms_callgraph_parse("dwarf,", &g, &sz), PMS_EINVAL);
	CHECK_EQ_INT(pms_callgraph_parse("dwarf,1k", &g, &sz), PMS_EINVAL);
	CHECK_EQ_INT(pms_callgraph_parse("dwarfish", &g, &sz), PMS_EINVAL);
	CHECK_EQ_INT(pms_callgraph_parse("lbr", &g, &sz), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "lbr") != NULL);
	CHECK_EQ_INT(pms_callgraph_parse(NULL, &g, &sz), PMS_EINVAL);
	CHECK_EQ_STR(pms_callgraph_name(PMS_CALLGRAPH_FP), "fp");
	CHECK_EQ_STR(pms_callgraph_name(PMS_CALLGRAPH_DWARF), "dwarf");
	CHECK_EQ_STR(pms_callgraph_name(PMS_CALLGRAPH_NONE), "none");
}

PMS_TEST_MAIN()
