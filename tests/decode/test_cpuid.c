/* pms_cpuid_parse, the one parser of a recording's HEADER_CPUID string, on
 * the strings real perf.data files carry (the six of
 * ../shared/data/derived/perf_data_headers.txt, read at test time when it is
 * there, and the same six written here) and on the arm64 MIDR form. */
#include "check.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"

#include <stdio.h>
#include <string.h>

/* The feat9 (HEADER_CPUID) lines of the real files, as the derived list gives them. */
static const struct {
	const char *s;
	const char *vendor;
	int family, model, stepping;
	bool amd;
} real[] = {
	{ "AuthenticAMD,25,17,0", "AuthenticAMD", 25, 17, 0, true },
	{ "GenuineIntel,6,154,3", "GenuineIntel", 6, 154, 3, false },
	{ "GenuineIntel,6,186,3", "GenuineIntel", 6, 186, 3, false },
	{ "GenuineIntel,6,45,7", "GenuineIntel", 6, 45, 7, false },
	{ "GenuineIntel,6,58,9", "GenuineIntel", 6, 58, 9, false },
	{ "GenuineIntel,6,85,4", "GenuineIntel", 6, 85, 4, false },
};

PMS_TEST(real_x86_strings)
{
	for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
		struct pms_cpuid c;
		CHECK_OK(pms_cpuid_parse(real[i].s, &c));
		CHECK_EQ_STR(c.vendor, real[i].vendor);
		CHECK_EQ_INT(c.family, real[i].family);
		CHECK_EQ_INT(c.model, real[i].model);
		CHECK_EQ_INT(c.stepping, real[i].stepping);
		CHECK_EQ_INT(c.amd, real[i].amd);
		CHECK(!c.has_midr);
		/* the IBS CPU comes from the same parse, for AMD only */
		struct pms_ibs_cpu ic;
		int rc = pms_ibs_cpu_from_cpuid(real[i].s, 7, &ic);
		if (real[i].amd) {
			CHECK_OK(rc);
			CHECK_EQ_INT(ic.family, (unsigned)real[i].family);
			CHECK_EQ_INT(ic.model, (unsigned)real[i].model);
			CHECK_EQ_INT(ic.caps, 7);
		} else {
			CHECK_EQ_INT(rc, PMS_ENOENT);
		}
	}
}

/* Every feat9 line of the derived header list parses, with the vendor rule. */
PMS_TEST(derived_header_list)
{
	char path[4096], line[1024];
	const char *sd = pms_t_shared_data();
	if (!sd)
		PMS_SKIP("no ../shared/data");
	snprintf(path, sizeof(path), "%s/derived/perf_data_headers.txt", sd);
	FILE *f = fopen(path, "r");
	if (!f)
		PMS_SKIP("no %s", path);
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "feat9: ");
		if (!p)
			continue;
		p += 7;
		p[strcspn(p, "\r\n")] = 0;
		struct pms_cpuid c;
		CHECK_OK(pms_cpuid_parse(p, &c));
		CHECK(c.family >= 0 && c.model >= 0 && c.stepping >= 0);
		CHECK_EQ_INT(c.amd, !strncmp(p, "AuthenticAMD,", 13) || !strncmp(p, "HygonGenuine,", 13));
		n++;
	}
	fclose(f);
	CHECK(n >= 6);
}

PMS_TEST(other_forms)
{
	struct pms_cpuid c;
	/* arm64: the MIDR as perf writes it (0x%016lx): Neoverse N1 r3p1 */
	CHECK_OK(pms_cpuid_parse("0x00000000413fd0c1", &c));
	CHECK(c.has_midr);
	CHECK(c.midr == 0x413fd0c1ull);
	CHECK_EQ_STR(c.vendor, "");
	CHECK(!c.amd);
	CHECK_EQ_INT(c.family, -1);
	/* Hygon is AMD's for IBS; no stepping is fine */
	CHECK_OK(pms_cpuid_parse("HygonGenuine,24,0", &c));
	CHECK(c.amd);
	CHECK_EQ_INT(c.model, 0);
	CHECK_EQ_INT(c.stepping, -1);
	/* malformed: refused, the vendor still named */
	CHECK_EQ_INT(pms_cpuid_parse("AuthenticAMD,x,1,1", &c), PMS_EPARSE);
	CHECK_EQ_STR(c.vendor, "AuthenticAMD");
	CHECK(strstr(pms_error_last(), "no family") != NULL);
	CHECK_EQ_INT(pms_cpuid_parse("AuthenticAMD,25,", &c), PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "no model") != NULL);
	CHECK_EQ_INT(pms_cpuid_parse("AuthenticAMD,25,", &c), PMS_EPARSE);
	CHECK_EQ_INT(pms_ibs_cpu_from_cpuid("AuthenticAMD,25,", 0, &(struct pms_ibs_cpu){ 0 }),
		     PMS_EPARSE);
	CHECK_EQ_INT(pms_cpuid_parse(",6,85,4", &c), PMS_EPARSE);
	CHECK_EQ_INT(pms_cpuid_parse("a-vendor-name-too-long,6,85,4", &c), PMS_EPARSE);
	CHECK_EQ_INT(pms_cpuid_parse("0xzz", &c), PMS_EPARSE);
	CHECK_EQ_INT(pms_cpuid_parse("", &c), PMS_EPARSE);
	CHECK_EQ_INT(pms_cpuid_parse(NULL, &c), PMS_EINVAL);
}

PMS_TEST_MAIN()
