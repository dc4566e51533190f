/* `pmuscope datasrc`'s rows (pmuscope/render_cmd.h): a perf_mem_data_src
 * word in perf script's and perf mem's words, perf c2c's statistics and its
 * fields, as a JSON object or one tab-separated row. */
#include <inttypes.h>
#include <stdio.h>

#include "pmuscope/datasrc.h"
#include "pmuscope/render_cmd.h"

void pms_render_datasrc_json(struct pms_json *j, const char *input, uint64_t v)
{
	char b[256], hex[24];
	struct pms_datasrc d;

	pms_json_begin_object(j, NULL);
	pms_json_str(j, "input", input);
	snprintf(hex, sizeof(hex), "0x%016" PRIx64, v);
	pms_json_str(j, "value", hex);
	pms_datasrc_format_script(v, b, sizeof(b));
	pms_json_str(j, "script", b);
	pms_datasrc_format(v, b, sizeof(b));
	pms_json_str(j, "meminfo", b);

	pms_json_begin_object(j, "columns");
	pms_datasrc_format_op(v, b, sizeof(b));
	pms_json_str(j, "op", b);
	pms_datasrc_format_mem(v, b, sizeof(b));
	pms_json_str(j, "mem", b);
	pms_datasrc_format_snoop(v, b, sizeof(b));
	pms_json_str(j, "snoop", b);
	pms_datasrc_format_tlb(v, b, sizeof(b));
	pms_json_str(j, "tlb", b);
	pms_datasrc_format_lock(v, b, sizeof(b));
	pms_json_str(j, "locked", b);
	pms_datasrc_format_blk(v, b, sizeof(b));
	pms_json_str(j, "blocked", b);
	pms_json_end_object(j);

	pms_json_begin_object(j, "stat");
	pms_json_str(j, "op", pms_datasrc_stat_op(v));
	pms_json_str(j, "cache", pms_datasrc_stat_cache(v));
	pms_json_str(j, "memory", pms_datasrc_stat_memory(v));
	pms_json_str(j, "snoop", pms_datasrc_stat_snoop(v));
	pms_json_str(j, "dtlb", pms_datasrc_stat_dtlb(v));
	pms_json_end_object(j);

	pms_datasrc_unpack(v, &d);
	pms_json_begin_object(j, "fields");
	pms_json_uint(j, "op", d.op);
	pms_json_uint(j, "lvl", d.lvl);
	pms_json_uint(j, "snoop", d.snoop);
	pms_json_uint(j, "lock", d.lock);
	pms_json_uint(j, "dtlb", d.dtlb);
	pms_json_uint(j, "lvl_num", d.lvl_num);
	pms_json_uint(j, "remote", d.remote);
	pms_json_uint(j, "snoopx", d.snoopx);
	pms_json_uint(j, "blk", d.blk);
	pms_json_uint(j, "hops", d.hops);
	pms_json_uint(j, "region", d.region);
	pms_json_uint(j, "rsvd", v >> PMS_MEM_RSVD_SHIFT);
	pms_json_end_object(j);
	pms_json_end_object(j);
}

void pms_render_datasrc_columns(FILE *out, uint64_t v)
{
	char op[64], mem[256], snp[128], tlb[128], lck[16], blk[32];
	pms_datasrc_format_op(v, op, sizeof(op));
	pms_datasrc_format_mem(v, mem, sizeof(mem));
	pms_datasrc_format_snoop(v, snp, sizeof(snp));
	pms_datasrc_format_tlb(v, tlb, sizeof(tlb));
	pms_datasrc_format_lock(v, lck, sizeof(lck));
	pms_datasrc_format_blk(v, blk, sizeof(blk));
	fprintf(out, "0x%016" PRIx64 "\t%s\t%s\t%s\t%s\t%s\t%s\n", v, op, mem, snp, tlb, lck, blk);
}
