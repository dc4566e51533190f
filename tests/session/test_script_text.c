/* script's names of a branch's type and speculation, as perf script
 * -F brstack prints them (builtin-script.c, util/branch.c branch_type_name
 * and branch_new_type_name); the numbers are the kernel's PERF_BR_* values. */
#include <linux/perf_event.h>
#include <string.h>

#include "check.h"
#include "pmuscope/record.h"
#include "pmuscope/script.h"

PMS_TEST(branch_type_names)
{
	struct pms_branch b;
	memset(&b, 0, sizeof(b));
	CHECK_EQ_STR(pms_script_branch_type(&b), ""); /* PERF_BR_UNKNOWN: nothing printed */
	b.type = PERF_BR_COND;
	CHECK_EQ_STR(pms_script_branch_type(&b), "COND");
	b.type = PERF_BR_IND_CALL;
	CHECK_EQ_STR(pms_script_branch_type(&b), "IND_CALL");
	b.type = PERF_BR_NO_TX;
	CHECK_EQ_STR(pms_script_branch_type(&b), "NO_TX");
	b.type = PERF_BR_EXTEND_ABI; /* the name is new_type's */
	b.new_type = PERF_BR_NEW_FAULT_DATA;
	CHECK_EQ_STR(pms_script_branch_type(&b), "FAULT_DATA");
	b.new_type = PERF_BR_NEW_ARCH_5;
	CHECK_EQ_STR(pms_script_branch_type(&b), "ARCH_5");
	b.new_type = 8;
	CHECK_EQ_STR(pms_script_branch_type(&b), "");
}

PMS_TEST(branch_spec_names)
{
	struct pms_branch b;
	memset(&b, 0, sizeof(b));
	b.spec = PERF_BR_SPEC_NA;
	CHECK_EQ_STR(pms_script_branch_spec(&b), "-");
	b.spec = PERF_BR_SPEC_WRONG_PATH;
	CHECK_EQ_STR(pms_script_branch_spec(&b), "SPEC_WRONG_PATH");
	b.spec = PERF_BR_NON_SPEC_CORRECT_PATH;
	CHECK_EQ_STR(pms_script_branch_spec(&b), "NON_SPEC_CORRECT_PATH");
	b.spec = PERF_BR_SPEC_CORRECT_PATH;
	CHECK_EQ_STR(pms_script_branch_spec(&b), "SPEC_CORRECT_PATH");
}

PMS_TEST_MAIN()
