/* The library's JSON writer (pmuscope/render.h): a flat row is the text the
 * tree's compact dump writes, a pretty document starts with schema_version
 * and the caller's meta object, a u64 above LLONG_MAX is written exactly,
 * and invalid UTF-8 becomes U+FFFD. */
#include "check.h"
#include "pmuscope/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What fn writes into a FILE *, as a string (the caller frees it). */
static char *doc(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fn(f);
	fclose(f);
	return buf;
}

static void row(FILE *f)
{
	struct pms_json_row r;
	char q[32];
	pms_jrow_begin(&r);
	pms_jrow_str(&r, "s", "a\"b\n\xff");
	pms_jrow_uint(&r, "u", 18446744073709551615ull);
	pms_jrow_int(&r, "i", -5);
	pms_jrow_hex(&r, "h", 0xbeef);
	pms_jrow_null(&r, "n");
	size_t n = pms_json_quote("q", q, sizeof(q));
	pms_jrow_raw(&r, "r", q, n);
	pms_jrow_end(&r, f);
}

PMS_TEST(a_row_is_one_compact_line)
{
	char *s = doc(row);
	CHECK(s != NULL);
	CHECK_MSG(s && !strcmp(s, "{\"s\":\"a\\\"b\\n\xef\xbf\xbd\",\"u\":18446744073709551615,"
				  "\"i\":-5,\"h\":\"0xbeef\",\"n\":null,\"r\":\"q\"}\n"),
		  "row: %s", s ? s : "(null)");
	free(s);
}

static void pretty(FILE *f)
{
	struct pms_json j;
	struct pms_json_meta m = { "9.9.9", "box", "6.1", "", true, true, false };
	pms_json_init(&j, f);
	j.meta = &m;
	pms_json_begin_object(&j, NULL);
	pms_json_uint(&j, "big", 18446744073709551615ull);
	pms_json_hex(&j, "addr", true, 0x10);
	pms_json_hex(&j, "none", false, 0);
	pms_json_begin_array(&j, "v");
	pms_json_bool(&j, NULL, true);
	pms_json_double(&j, NULL, 0.5);
	pms_json_end_array(&j);
	pms_json_end_object(&j);
	CHECK_EQ_INT(pms_json_finish(&j), 0);
}

PMS_TEST(a_document_has_the_callers_meta_first)
{
	char *s = doc(pretty);
	const char *want = "{\n  \"schema_version\": 1,\n  \"pmuscope\": {\n"
			   "    \"version\": \"9.9.9\",\n    \"host\": \"box\",\n"
			   "    \"kernel\": \"6.1\",\n    \"cpu_model\": null\n  },\n"
			   "  \"big\": 18446744073709551615,\n  \"addr\": \"0x10\",\n"
			   "  \"none\": null,\n  \"v\": [\n    true,\n    0.5\n  ]\n}\n";
	CHECK_MSG(s && !strcmp(s, want), "document:\n%s", s ? s : "(null)");
	free(s);
}

static void no_meta(FILE *f)
{
	struct pms_json j;
	pms_json_init(&j, f);
	pms_json_begin_object(&j, NULL);
	pms_json_int(&j, "a", 1);
	pms_json_end_object(&j);
	CHECK_EQ_INT(pms_json_finish(&j), 0);
}

PMS_TEST(without_meta_no_producer_object)
{
	char *s = doc(no_meta);
	CHECK_MSG(s && !strcmp(s, "{\n  \"schema_version\": 1,\n  \"a\": 1\n}\n"), "document:\n%s",
		  s ? s : "(null)");
	free(s);
}
PMS_TEST_MAIN()
