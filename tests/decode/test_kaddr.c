/* The one "may this sample hold a kernel address" test (src/decode/kaddr.h)
 * by which report, report -s and c2c (session.c file_sample: a memory
 * sample's record, or an SPE sample's decoded fields: kaddr_in_memsample)
 * and script (script.c kernel_judge) pick the sample a file's kernel is judged at:
 * each case either caller judged by its own test before (session: a
 * kernel IP, a call path, a branch stack; script: a kernel, guest-kernel
 * or hypervisor mode, a call chain, a branch stack), and the data address
 * neither took. */
#include <string.h>

#include "check.h"
#include "decode/kaddr.h"
#include "pmuscope/error.h"
#include "pmuscope/memsample.h"
#include "pmuscope/record.h"

static struct pms_sample user(void)
{
	struct pms_sample s;
	memset(&s, 0, sizeof(s));
	s.present = PMS_SAMPLE_IP | PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_ADDR;
	s.misc = PMS_MISC_USER;
	s.cpumode = PMS_MISC_USER;
	s.ip = 0x401000;
	s.addr = 0x7f0000001000;
	return s;
}

PMS_TEST(ip_modes)
{
	/* script's kernel modes; the session's kernel IP among them */
	for (unsigned mode = 0; mode < 8; mode++) {
		struct pms_sample s = user();
		s.misc = (uint16_t)mode;
		s.cpumode = (uint8_t)mode;
		bool want = mode == PMS_MISC_KERNEL || mode == PMS_MISC_GUEST_KERNEL ||
			    mode == PMS_MISC_HYPERVISOR;
		CHECK_MSG(kaddr_in_sample(&s) == want, "cpumode %u", mode);
		/* a memory sample's kernel IP (memconv) is always one */
		struct pms_memconv_ctx cx = { PMS_ENG_SOFTWARE, s.present, NULL, 0, 0 };
		struct pms_memsample m;
		unsigned fl = 0;
		CHECK_OK(pms_memsample_from_sample(&s, &cx, &m, &fl));
		if (m.valid & PMS_MS_KERNEL_IP)
			CHECK(kaddr_in_sample(&s) && kaddr_in_memsample(&m));
		CHECK(kaddr_in_memsample(&m) == (mode == PMS_MISC_KERNEL));
	}
	/* the mode is the header's: other misc bits do not count */
	struct pms_sample s = user();
	s.misc = PMS_MISC_USER | PMS_MISC_EXACT_IP;
	CHECK(!kaddr_in_sample(&s));
	s.misc = PMS_MISC_KERNEL | PMS_MISC_EXACT_IP;
	CHECK(kaddr_in_sample(&s));
}

PMS_TEST(chains_and_branches)
{
	struct pms_sample s = user();
	CHECK(!kaddr_in_sample(&s));
	/* a call chain or a branch stack, whatever the mode: both callers */
	s.present |= PMS_SAMPLE_CALLCHAIN;
	CHECK(kaddr_in_sample(&s));
	s = user();
	s.present |= PMS_SAMPLE_BRANCH_STACK;
	CHECK(kaddr_in_sample(&s));
	/* a DWARF sample's user stack alone holds no kernel address (the
	 * session's call path test took it) */
	s = user();
	s.present |= PMS_SAMPLE_REGS_USER | PMS_SAMPLE_STACK_USER;
	CHECK(!kaddr_in_sample(&s));
}

PMS_TEST(data_address)
{
	/* a user IP reading kernel data: neither caller took it before */
	struct pms_sample s = user();
	s.addr = 0xffffffff81001010ULL;
	CHECK(kaddr_in_sample(&s));
	s.addr = 0x8000000000000000ULL;
	CHECK(kaddr_in_sample(&s));
	s.addr = 0x7fffffffffffffffULL;
	CHECK(!kaddr_in_sample(&s));
	/* a page fault at 0 is a user address */
	s.addr = 0;
	CHECK(!kaddr_in_sample(&s));
	/* the field not in the sample: its bytes are no address */
	s.addr = 0xffff888000000000ULL;
	s.present &= ~PMS_SAMPLE_ADDR;
	CHECK(!kaddr_in_sample(&s));
	/* an SPE sample's decoded fields: the same */
	struct pms_memsample m;
	memset(&m, 0, sizeof(m));
	m.valid = PMS_MS_IP | PMS_MS_ADDR;
	m.addr = 0xffff888000000000ULL;
	CHECK(kaddr_in_memsample(&m));
	m.addr = 0x7f0000001000ULL;
	CHECK(!kaddr_in_memsample(&m));
	m.valid = PMS_MS_IP | PMS_MS_KERNEL_IP;
	CHECK(kaddr_in_memsample(&m));
}

PMS_TEST_MAIN()
