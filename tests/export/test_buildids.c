/* pms_export_build_ids: from perf.data headers (several files, perf's
 * [kernel.kallsyms] named [kernel]) and from the report's module files
 * (this test's own ELF note; each path once; modules that are not files
 * or have no note left out). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/export.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/symbols.h"

PMS_TEST(from_headers)
{
	struct pms_perfdata_build_id a[2], b[1];
	struct pms_perfdata_info ia, ib;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	memset(&ia, 0, sizeof(ia));
	memset(&ib, 0, sizeof(ib));
	a[0].filename = "[kernel.kallsyms]";
	a[0].size = 20;
	a[0].id[0] = 0xab;
	a[1].filename = "/usr/bin/x";
	a[1].size = 16;
	b[0].filename = "/usr/lib/y.so";
	b[0].size = 20;
	ia.build_ids = a;
	ia.nbuild_ids = 2;
	ib.build_ids = b;
	ib.nbuild_ids = 1;
	const struct pms_perfdata_info *infos[] = { &ia, &ib };
	struct pms_export_build_id *ids = NULL;
	size_t n = 0;
	CHECK_OK(pms_export_build_ids(NULL, infos, 2, &ids, &n));
	CHECK_EQ_INT(n, 3);
	if (n == 3) {
		CHECK_EQ_STR(ids[0].path, "[kernel]");
		CHECK(ids[0].id == a[0].id && ids[0].size == 20);
		CHECK_EQ_STR(ids[1].path, "/usr/bin/x");
		CHECK_EQ_INT(ids[1].size, 16);
		CHECK_EQ_STR(ids[2].path, "/usr/lib/y.so");
	}
	free(ids);
	CHECK_EQ_INT(pms_export_build_ids(NULL, NULL, 1, &ids, &n), PMS_EINVAL);
}

PMS_TEST(from_module_files)
{
	char exe[4096];
	uint8_t want[20];
	size_t wlen = 0;
	ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(k > 0);
	if (k <= 0)
		return;
	exe[k] = '\0';
	if (pms_elf_build_id(exe, want, &wlen) < 0 || !wlen)
		PMS_SKIP("this test binary has no build-id note");
	struct pms_memreport_site sites[5];
	memset(sites, 0, sizeof(sites));
	sites[0].module = exe;
	sites[1].module = (char *)"[kernel]";   /* not a file */
	sites[2].module = exe;                  /* the same path again */
	sites[3].module = (char *)"/dev/null";  /* no ELF note */
	sites[4].module = NULL;
	struct pms_memreport r;
	memset(&r, 0, sizeof(r));
	r.sites = sites;
	r.nsites = 5;
	struct pms_export_build_id *ids = NULL;
	size_t n = 0;
	CHECK_OK(pms_export_build_ids(&r, NULL, 0, &ids, &n));
	CHECK_EQ_INT(n, 1);
	if (n == 1) {
		CHECK_EQ_STR(ids[0].path, exe);
		CHECK_EQ_INT(ids[0].size, wlen);
		CHECK(!memcmp(ids[0].id, want, wlen));
	}
	free(ids);
	/* no report: none */
	CHECK_OK(pms_export_build_ids(NULL, NULL, 0, &ids, &n));
	CHECK_EQ_INT(n, 0);
	free(ids);
}

PMS_TEST_MAIN()
