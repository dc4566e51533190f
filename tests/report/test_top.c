/* top's view and sort names: each parses back to itself (top.h), and an
 * unknown value is "?". */
#include <string.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/top.h"

PMS_TEST(view_and_sort_names_round_trip)
{
	for (int v = 0; v < PMS_TOP_NVIEWS; v++) {
		const char *n = pms_top_view_name((enum pms_top_view)v);
		enum pms_top_view back = PMS_TOP_NVIEWS;
		CHECK_MSG(pms_top_view_parse(n, &back) == 0, "view %s: %s", n, pms_error_last());
		CHECK_EQ_INT(back, v);
	}
	for (int s = 0; s < PMS_TOP_NSORTS; s++) {
		const char *n = pms_top_sort_name((enum pms_top_sort)s);
		enum pms_top_sort back = PMS_TOP_NSORTS;
		CHECK_MSG(pms_top_sort_parse(n, &back) == 0, "sort %s: %s", n, pms_error_last());
		CHECK_EQ_INT(back, s);
	}
	CHECK_EQ_STR(pms_top_view_name(PMS_TOP_NVIEWS), "?");
	CHECK_EQ_STR(pms_top_sort_name(PMS_TOP_NSORTS), "?");
	CHECK_EQ_STR(pms_top_view_name(PMS_TOP_THREAD), "thread");
	CHECK_EQ_STR(pms_top_sort_name(PMS_TOP_BY_LATENCY), "latency");
}

PMS_TEST_MAIN()
