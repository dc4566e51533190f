/* libFuzzer target for the datasrc decoders.  Input: u64 data_src value,
 * u64 PEBS status, u8 uarch, u8 kind, u32 SPE MIDR, u16 SPE source, u32 SPE
 * events, u8 SPE op, then an IBS op PERF_SAMPLE_RAW payload.  Checks the
 * text contract (<= 99 characters, return = strlen), the pack/unpack round
 * trip, and that every vendor path returns without touching bad memory. */
#include "pmuscope/datasrc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PREFIX 29

static uint64_t get(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	memcpy(&v, p, n);
	return v;
}

static void check_text(uint64_t v)
{
	char buf[128], small[7];
	size_t n = pms_datasrc_format(v, buf, sizeof(buf));
	if (n > PMS_DATASRC_TEXT_MAX || n != strlen(buf))
		abort();
	if (pms_datasrc_format(v, small, sizeof(small)) != n || strlen(small) != sizeof(small) - 1)
		abort();
	n = pms_datasrc_format_script(v, buf, sizeof(buf));
	if (n > PMS_DATASRC_TEXT_MAX || n != strlen(buf))
		abort();
	char col[512];
	size_t (*const cols[])(uint64_t, char *, size_t) = {
		pms_datasrc_format_op,   pms_datasrc_format_mem,  pms_datasrc_format_snoop,
		pms_datasrc_format_tlb,  pms_datasrc_format_lock, pms_datasrc_format_blk,
	};
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (cols[i](v, col, sizeof(col)) != strlen(col))
			abort();
	if (!pms_datasrc_stat_op(v) || !pms_datasrc_stat_cache(v) || !pms_datasrc_stat_memory(v) ||
	    !pms_datasrc_stat_snoop(v) || !pms_datasrc_stat_dtlb(v))
		abort();
	struct pms_datasrc d;
	pms_datasrc_unpack(v, &d);
	if (pms_datasrc_pack(&d) != (v & ~PMS_MEM_RSVD_MASK))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < PREFIX)
		return 0;
	uint64_t v = get(data, 8), status = get(data + 8, 8), out = 0;
	check_text(v);

	enum pms_pebs_uarch u = (enum pms_pebs_uarch)(data[16] % (PMS_PEBS_UARCH_COUNT + 1));
	enum pms_pebs_kind k = (enum pms_pebs_kind)(data[17] % 8);
	if (pms_pebs_data_src(u, k, status, &out) == 0)
		check_text(out);

	struct pms_spe_in in;
	memset(&in, 0, sizeof(in));
	in.midr = get(data + 18, 4);
	in.midr_valid = data[28] & 0x80;
	in.source = (uint16_t)get(data + 22, 2);
	in.events = get(data + 24, 4) << (data[28] & 0x7);
	in.op = data[28] & 0x7;
	in.data_snooped_supported = data[28] & 0x40;
	check_text(pms_spe_data_src(&in));

	struct pms_ibs_op_regs regs;
	uint32_t caps = 0;
	if (pms_ibs_op_raw_parse(data + PREFIX, size - PREFIX, &regs, &caps) == 0) {
		struct pms_ibs_cpu cpu = { 0x17 + (data[16] & 3), data[17], caps };
		struct pms_ibs_op_sample s;
		if (pms_ibs_op_decode(&regs, &cpu, status, (unsigned)(v & 0xfff), &s) != 0)
			abort();
		check_text(s.data_src);
	}
	return 0;
}
