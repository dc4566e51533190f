/* libFuzzer target for the record decoder.  Input: a 22-byte layout prefix
 * (u32 sample_type, u8 read_format, u8 flags: bit0 HW_INDEX, bit1 COUNTERS,
 * bit2 sample_id_all; u64 sample_regs_user; u64 sample_regs_intr), then one
 * record.  A parsed record is encoded again: a sample must come back at its
 * header.size, and parse/encode must then be a fixed point. */
#include "pmuscope/error.h"
#include "pmuscope/record.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PREFIX 22

static unsigned char out1[PMS_RECORD_MAX_SIZE + 8];
static unsigned char out2[PMS_RECORD_MAX_SIZE + 8];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pms_sample_layout l;
	struct pms_record r, r2;
	uint32_t st;
	uint64_t id;
	size_t len1 = 0, len2 = 0;

	if (size < PREFIX)
		return 0;
	memset(&l, 0, sizeof(l));
	memcpy(&st, data, 4);
	/* Bit 25 (unknown to the decoder) stays reachable to test refusal. */
	l.sample_type = st & ((1u << 26) - 1);
	l.read_format = data[4] & 0x3f;
	l.branch_sample_type = ((data[5] & 1) ? PMS_BRANCH_HW_INDEX : 0) |
			       ((data[5] & 2) ? PMS_BRANCH_COUNTERS : 0);
	l.sample_id_all = (data[5] & 4) != 0;
	memcpy(&l.sample_regs_user, data + 6, 8);
	memcpy(&l.sample_regs_intr, data + 14, 8);

	const uint8_t *rec = data + PREFIX;
	size_t n = size - PREFIX;

	(void)pms_record_peek_id(&l, rec, n, &id);
	if (pms_record_parse(&l, rec, n, &r) < 0)
		return 0;
	if (pms_record_encode(&l, &r, out1, sizeof(out1), &len1) < 0)
		abort();
	if (r.type == PMS_RECORD_SAMPLE && len1 != r.size)
		abort();
	if (pms_record_parse(&l, out1, len1, &r2) < 0)
		abort();
	if (r2.type != r.type)
		abort();
	if (pms_record_encode(&l, &r2, out2, sizeof(out2), &len2) < 0)
		abort();
	if (len2 != len1 || memcmp(out1, out2, len1) != 0)
		abort();
	return 0;
}
