#include "check.h"
#include "pmuscope/util.h"
#include "pmuscope/cpuset.h"
#include "pmuscope/error.h"

static void fmt(const struct pms_cpuset *s, char *buf, size_t n)
{
	pms_cpuset_format(s, buf, n);
}

PMS_TEST(list_forms)
{
	static const struct {
		const char *in;
		const char *out;
		int count;
	} rows[] = {
		{ "0-3,8,10-11\n", "0-3,8,10-11", 7 },
		{ "0", "0", 1 },
		{ "", "", 0 },
		{ "\n", "", 0 },
		{ "5,1,2,3", "1-3,5", 4 },
		{ "0-0", "0", 1 },
		{ "64-65,127", "64-65,127", 3 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pms_cpuset s = { 0 };
		char buf[128];
		CHECK_OK(pms_cpuset_parse_list(&s, rows[i].in));
		fmt(&s, buf, sizeof(buf));
		CHECK_EQ_STR(buf, rows[i].out);
		CHECK_EQ_INT(pms_cpuset_count(&s), rows[i].count);
		pms_cpuset_fini(&s);
	}
}

PMS_TEST(list_errors_name_the_column)
{
	static const char *bad[] = { "0-", "a", "3-1", "1,,2", "1 2", "0-70000", "-1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pms_cpuset s = { 0 };
		int r = pms_cpuset_parse_list(&s, bad[i]);
		CHECK_MSG(r == PMS_EPARSE || r == PMS_ERANGE, "'%s' gave %d", bad[i], r);
		CHECK(strstr(pms_error_last(), "CPU list") != NULL);
		CHECK_EQ_INT(pms_cpuset_count(&s), 0);
		pms_cpuset_fini(&s);
	}
	struct pms_cpuset s = { 0 };
	pms_cpuset_parse_list(&s, "1 2");
	CHECK(strstr(pms_error_last(), "column 3") != NULL);
	pms_cpuset_fini(&s);
}

/* A failed parse leaves nothing allocated: `stat -C 0-3,zz` and a bad
 * NUMA_TOPOLOGY cpu list in `report` dropped the set without fini. */
PMS_TEST(failed_parse_frees_the_set)
{
	struct pms_cpuset s = { 0 };
	CHECK_EQ_INT(pms_cpuset_parse_list(&s, "0-3,zz"), PMS_EPARSE);
	CHECK(s.bits == NULL);
	CHECK_EQ_U64(s.nwords, 0);
	CHECK_EQ_INT(pms_cpuset_parse_list(&s, "0-200,300-"), PMS_EPARSE);
	CHECK(s.bits == NULL);
	CHECK(pms_cpuset_parse_mask(&s, "ff,ff,zz") < 0);
	CHECK(s.bits == NULL);
	/* and the set is usable again */
	CHECK_OK(pms_cpuset_parse_list(&s, "1-2"));
	CHECK_EQ_INT(pms_cpuset_count(&s), 2);
	pms_cpuset_fini(&s);
}

PMS_TEST(mask_forms)
{
	struct pms_cpuset s = { 0 };
	char buf[128];
	/* hwloc/util-linux snapshots write node cpumaps as 32-bit groups. */
	CHECK_OK(pms_cpuset_parse_mask(&s, "00000000,00000000,0000003f,0000003f\n"));
	fmt(&s, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "0-5,32-37");
	CHECK_OK(pms_cpuset_parse_mask(&s, "0x5"));
	fmt(&s, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "0,2");
	CHECK_OK(pms_cpuset_parse_mask(&s, "80000000,00000001"));
	fmt(&s, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "0,63");
	CHECK(pms_cpuset_parse_mask(&s, "00g0") == PMS_EPARSE);
	pms_cpuset_fini(&s);
}

PMS_TEST(set_algebra)
{
	struct pms_cpuset a = { 0 }, b = { 0 }, c = { 0 };
	CHECK_OK(pms_cpuset_parse_list(&a, "0-7"));
	CHECK_OK(pms_cpuset_parse_list(&b, "4-5,200"));
	CHECK(pms_cpuset_intersects(&a, &b));
	CHECK(!pms_cpuset_subset(&b, &a));
	CHECK_EQ_INT(pms_cpuset_next(&b, 6), 200);
	CHECK_EQ_INT(pms_cpuset_next(&b, 201), -1);
	CHECK_OK(pms_cpuset_copy(&c, &a));
	CHECK(pms_cpuset_equal(&c, &a));
	CHECK_OK(pms_cpuset_or(&c, &b));
	CHECK_EQ_INT(pms_cpuset_count(&c), 9);
	CHECK(pms_cpuset_subset(&b, &c));
	char small[5];
	size_t need = pms_cpuset_format(&c, small, sizeof(small));
	CHECK_EQ_INT(need, strlen("0-7,200"));
	CHECK_EQ_STR(small, "0-7");
	pms_cpuset_fini(&a);
	pms_cpuset_fini(&b);
	pms_cpuset_fini(&c);
}

/* A range adds every CPU from first to last; clear empties the set and
 * keeps it usable. */
PMS_TEST(add_range_and_clear)
{
	struct pms_cpuset s = { 0 };
	CHECK_OK(pms_cpuset_add_range(&s, 3, 6));
	CHECK_OK(pms_cpuset_add_range(&s, 70, 70)); /* one CPU, past the first word */
	CHECK_EQ_INT(pms_cpuset_count(&s), 5);
	CHECK(!pms_cpuset_has(&s, 2) && pms_cpuset_has(&s, 3) && pms_cpuset_has(&s, 6));
	CHECK(!pms_cpuset_has(&s, 7) && pms_cpuset_has(&s, 70));
	CHECK_OK(pms_cpuset_add_range(&s, 9, 8)); /* empty range: nothing added */
	CHECK_EQ_INT(pms_cpuset_count(&s), 5);
	CHECK(pms_cpuset_add_range(&s, 0, PMS_CPUSET_MAX + 1) < 0); /* past the cap */
	pms_cpuset_clear(&s);
	CHECK_EQ_INT(pms_cpuset_count(&s), 0);
	CHECK(!pms_cpuset_has(&s, 3));
	CHECK_OK(pms_cpuset_add(&s, 1));
	CHECK_EQ_INT(pms_cpuset_count(&s), 1);
	pms_cpuset_fini(&s);
	struct pms_cpuset e = { 0 };
	pms_cpuset_clear(&e); /* never grown: nothing to clear */
	CHECK_EQ_INT(pms_cpuset_count(&e), 0);
}

/* Binary units, one decimal unless whole (util.h). */
PMS_TEST(human_size)
{
	char b[32];
	CHECK_EQ_STR(pms_human_size(0, b, sizeof(b)), "0 bytes");
	CHECK_EQ_STR(pms_human_size(512, b, sizeof(b)), "512 bytes");
	CHECK_EQ_STR(pms_human_size(1023, b, sizeof(b)), "1023 bytes");
	CHECK_EQ_STR(pms_human_size(4096, b, sizeof(b)), "4 KiB");
	CHECK_EQ_STR(pms_human_size(1536ULL << 20, b, sizeof(b)), "1.5 GiB");
	CHECK_EQ_STR(pms_human_size(3ULL << 40, b, sizeof(b)), "3 TiB");
	char small[4];
	CHECK(pms_human_size(4096, small, sizeof(small)) == small);
	CHECK_EQ_STR(small, "4 K"); /* cut to the buffer, NUL-terminated */
}

PMS_TEST_MAIN()
