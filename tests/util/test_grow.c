#include "check.h"
#include "util/grow.h"
#include "pmuscope/error.h"

#include <stdint.h>

PMS_TEST(grow_doubles_from_first_and_keeps_contents)
{
	int *v = NULL;
	size_t cap = 0;
	CHECK_OK(pms_grow(&v, &cap, 1, sizeof(*v), 4, "ints"));
	CHECK_EQ_INT(cap, 4);
	for (int i = 0; i < 4; i++)
		v[i] = i;
	CHECK_OK(pms_grow(&v, &cap, 4, sizeof(*v), 4, "ints")); /* fits: no change */
	CHECK_EQ_INT(cap, 4);
	CHECK_OK(pms_grow(&v, &cap, 5, sizeof(*v), 4, "ints"));
	CHECK_EQ_INT(cap, 8);
	CHECK_OK(pms_grow(&v, &cap, 100, sizeof(*v), 4, "ints")); /* several doublings */
	CHECK_EQ_INT(cap, 128);
	for (int i = 0; i < 4; i++)
		CHECK_EQ_INT(v[i], i);
	free(v);
}

PMS_TEST(grow_refuses_overflow_and_leaves_the_array)
{
	char *v = NULL;
	size_t cap = 0;
	CHECK_OK(pms_grow(&v, &cap, 3, 1, 2, "bytes"));
	char *before = v;
	CHECK_EQ_INT(pms_grow(&v, &cap, SIZE_MAX / 2 + 2, 16, 2, "big things"), PMS_ENOMEM);
	CHECK(v == before);
	CHECK_EQ_INT(cap, 4);
	CHECK(strstr(pms_error_last(), "big things") != NULL);
	free(v);
}

PMS_TEST_MAIN()
