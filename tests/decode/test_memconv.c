/* pms_memsample_from_sample: the one converter from a decoded sample to a
 * memory sample, rule by rule and engine by engine (src/decode/memconv.c
 * cites the kernel code behind each rule), and the PMU-name -> engine
 * mapping. */
#include <string.h>

#include "check.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/memsample.h"
#include "pmuscope/record.h"

static struct pms_sample base(void)
{
	struct pms_sample s;
	memset(&s, 0, sizeof(s));
	s.present = PMS_SAMPLE_IP | PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_ADDR |
		    PMS_SAMPLE_CPU | PMS_SAMPLE_PERIOD | PMS_SAMPLE_WEIGHT | PMS_SAMPLE_DATA_SRC |
		    PMS_SAMPLE_PHYS_ADDR;
	s.ip = 0x401000;
	s.cpumode = PMS_MISC_USER;
	s.pid = 10;
	s.tid = 11;
	s.time = 1234;
	s.cpu = 3;
	s.period = 100;
	return s;
}

static struct pms_memsample conv(enum pms_engine e, const struct pms_sample *s)
{
	struct pms_memconv_ctx cx = { e, s->present, NULL, 0, 0 };
	struct pms_memsample m;
	unsigned fl = 99;
	memset(&m, 0xff, sizeof(m));
	CHECK_OK(pms_memsample_from_sample(s, &cx, &m, &fl));
	CHECK_EQ_INT((int)fl, 0);
	return m;
}

/* The kernel's defaults for what a driver did not fill (perf_prepare_sample:
 * addr 0, weight 0, data_src PERF_MEM_NA; phys 0 = no translation) are not
 * values, for every precise engine. */
PMS_TEST(defaults_are_not_values_for_precise_engines)
{
	static const enum pms_engine eng[] = { PMS_ENG_IBS, PMS_ENG_PEBS, PMS_ENG_SPE,
					       PMS_ENG_NONE };
	for (size_t i = 0; i < sizeof(eng) / sizeof(eng[0]); i++) {
		struct pms_sample s = base();
		s.data_src = PMS_MEM_NA_VALUE;
		struct pms_memsample m = conv(eng[i], &s);
		CHECK_EQ_INT((int)m.engine, (int)eng[i]);
		CHECK(m.valid & PMS_MS_IP);
		CHECK(m.valid & PMS_MS_TID);
		CHECK(m.valid & PMS_MS_TIME);
		CHECK(m.valid & PMS_MS_CPU);
		CHECK(!(m.valid & (PMS_MS_ADDR | PMS_MS_WEIGHT | PMS_MS_DATA_SRC | PMS_MS_PHYS |
				   PMS_MS_INS_LAT | PMS_MS_PAGE_SIZE | PMS_MS_KERNEL_IP)));
		CHECK_EQ_U64(m.addr, 0);
		CHECK_EQ_U64(m.data_src, 0);
		CHECK_EQ_U64(m.period, 100);
		/* 0 as data_src is no value either */
		s.data_src = 0;
		m = conv(eng[i], &s);
		CHECK(!(m.valid & PMS_MS_DATA_SRC));
		/* filled fields are values */
		s.addr = 0x7f0000001000ULL;
		s.weight = 77;
		s.data_src = 0x68100142;
		s.phys_addr = 0x12345000;
		m = conv(eng[i], &s);
		CHECK((m.valid & (PMS_MS_ADDR | PMS_MS_WEIGHT | PMS_MS_DATA_SRC | PMS_MS_PHYS)) ==
		      (PMS_MS_ADDR | PMS_MS_WEIGHT | PMS_MS_DATA_SRC | PMS_MS_PHYS));
		CHECK_EQ_U64(m.addr, 0x7f0000001000ULL);
		CHECK_EQ_U64(m.weight, 77);
		CHECK_EQ_U64(m.data_src, 0x68100142);
		CHECK_EQ_U64(m.phys_addr, 0x12345000);
	}
}

/* A software page fault's address is the datum: 0 is a real fault address
 * (a NULL dereference); the kernel never fills a data source for it. */
PMS_TEST(software_fault_address_zero_is_valid)
{
	struct pms_sample s = base();
	s.present = PMS_SAMPLE_IP | PMS_SAMPLE_TID | PMS_SAMPLE_ADDR | PMS_SAMPLE_DATA_SRC;
	s.data_src = PMS_MEM_NA_VALUE;
	struct pms_memsample m = conv(PMS_ENG_SOFTWARE, &s);
	CHECK(m.valid & PMS_MS_ADDR);
	CHECK_EQ_U64(m.addr, 0);
	CHECK(!(m.valid & PMS_MS_DATA_SRC));
	CHECK(!(m.valid & (PMS_MS_TIME | PMS_MS_CPU)));
	/* without PERF_SAMPLE_ADDR there is no address at all */
	s.present &= ~PMS_SAMPLE_ADDR;
	s.addr = 0x1000;
	m = conv(PMS_ENG_SOFTWARE, &s);
	CHECK(!(m.valid & PMS_MS_ADDR));
	CHECK_EQ_U64(m.addr, 0);
}

/* Only this kernel's IPs are kernel IPs: a guest kernel's are another
 * address space (uapi PERF_RECORD_MISC_GUEST_KERNEL). */
PMS_TEST(kernel_ip_is_host_kernel_only)
{
	struct pms_sample s = base();
	s.cpumode = PMS_MISC_KERNEL;
	s.exact_ip = true;
	struct pms_memsample m = conv(PMS_ENG_PEBS, &s);
	CHECK(m.valid & PMS_MS_KERNEL_IP);
	CHECK(m.valid & PMS_MS_EXACT_IP);
	s.cpumode = PMS_MISC_GUEST_KERNEL;
	s.exact_ip = false;
	m = conv(PMS_ENG_PEBS, &s);
	CHECK(!(m.valid & PMS_MS_KERNEL_IP));
	CHECK(!(m.valid & PMS_MS_EXACT_IP));
}

/* WEIGHT_STRUCT: var1 is the weight, var2 the instruction latency; each
 * counts only when not 0. */
PMS_TEST(weight_struct_var1_var2)
{
	struct pms_sample s = base();
	s.present = (s.present & ~PMS_SAMPLE_WEIGHT) | PMS_SAMPLE_WEIGHT_STRUCT |
		    PMS_SAMPLE_DATA_PAGE_SIZE;
	s.weight_var1_dw = 250;
	s.weight_var2_w = 0;
	s.data_page_size = 4096;
	struct pms_memsample m = conv(PMS_ENG_PEBS, &s);
	CHECK(m.valid & PMS_MS_WEIGHT);
	CHECK_EQ_U64(m.weight, 250);
	CHECK(!(m.valid & PMS_MS_INS_LAT));
	CHECK(m.valid & PMS_MS_PAGE_SIZE);
	CHECK_EQ_U64(m.page_size, 4096);
	s.weight_var2_w = 31;
	m = conv(PMS_ENG_PEBS, &s);
	CHECK(m.valid & PMS_MS_INS_LAT);
	CHECK_EQ_INT((int)m.ins_lat, 31);
}

PMS_TEST(null_arguments)
{
	struct pms_sample s = base();
	struct pms_memsample m;
	struct pms_memconv_ctx cx = { PMS_ENG_IBS, 0, NULL, 0, 0 };
	CHECK(pms_memsample_from_sample(NULL, &cx, &m, NULL) < 0);
	CHECK(pms_memsample_from_sample(&s, NULL, &m, NULL) < 0);
	CHECK(pms_memsample_from_sample(&s, &cx, NULL, NULL) < 0);
	CHECK_OK(pms_memsample_from_sample(&s, &cx, &m, NULL));
}

/* AMD's core PMU is called "cpu" too: it is no PEBS. */
PMS_TEST(engine_of_pmu)
{
	CHECK_EQ_INT(pms_engine_of_pmu("ibs_op", NULL), PMS_ENG_IBS);
	CHECK_EQ_INT(pms_engine_of_pmu("ibs_fetch", "AuthenticAMD"), PMS_ENG_IBS_FETCH);
	CHECK_EQ_INT(pms_engine_of_pmu("arm_spe_0", ""), PMS_ENG_SPE);
	CHECK_EQ_INT(pms_engine_of_pmu("cpu_core", "GenuineIntel"), PMS_ENG_PEBS);
	CHECK_EQ_INT(pms_engine_of_pmu("cpu_atom", NULL), PMS_ENG_PEBS);
	CHECK_EQ_INT(pms_engine_of_pmu("cpu", "GenuineIntel"), PMS_ENG_PEBS);
	CHECK_EQ_INT(pms_engine_of_pmu("cpu", NULL), PMS_ENG_PEBS);
	CHECK_EQ_INT(pms_engine_of_pmu("cpu", "AuthenticAMD"), PMS_ENG_NONE);
	CHECK_EQ_INT(pms_engine_of_pmu("cpu", "HygonGenuine"), PMS_ENG_NONE);
	CHECK_EQ_INT(pms_engine_of_pmu("software", NULL), PMS_ENG_SOFTWARE);
	CHECK_EQ_INT(pms_engine_of_pmu("cpus", NULL), PMS_ENG_NONE);
	CHECK_EQ_INT(pms_engine_of_pmu("uncore_imc_0", NULL), PMS_ENG_NONE);
	CHECK_EQ_INT(pms_engine_of_pmu(NULL, NULL), PMS_ENG_NONE);
}

/* The one engine name table: names round-trip, labels and brands exist. */
PMS_TEST(engine_names)
{
	static const enum pms_engine all[] = { PMS_ENG_NONE, PMS_ENG_IBS, PMS_ENG_PEBS,
					       PMS_ENG_SPE, PMS_ENG_SOFTWARE,
					       PMS_ENG_IBS_FETCH };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		enum pms_engine e = PMS_ENG_NONE;
		CHECK_OK(pms_engine_parse(pms_engine_name(all[i]), &e));
		CHECK_EQ_INT(e, all[i]);
		CHECK(strcmp(pms_engine_label(all[i]), "?") != 0);
		CHECK(strcmp(pms_engine_brand(all[i]), "?") != 0);
	}
	CHECK_EQ_STR(pms_engine_name(PMS_ENG_IBS), "ibs");
	CHECK_EQ_STR(pms_engine_name(PMS_ENG_SPE), "spe");
	CHECK_EQ_STR(pms_engine_name((enum pms_engine)99), "?");
	enum pms_engine e = PMS_ENG_SPE;
	CHECK(pms_engine_parse("ibs_op", &e) < 0);
	CHECK_EQ_INT(e, PMS_ENG_SPE);
}

PMS_TEST_MAIN()
