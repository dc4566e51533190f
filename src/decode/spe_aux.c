/* One AUX chunk of an Arm SPE recording -> records and memory samples; see
 * include/pmuscope/spe.h. */
#include "pmuscope/spe.h"

#include "pmuscope/error.h"
#include "decode/spe_aux_int.h"
#include "util/error.h"

#include <string.h>

bool pms_spe_time_to_perf(const struct pms_spe_time_conv *tc, uint64_t cyc, uint64_t *ns)
{
	uint64_t quot, rem;

	if (!tc || !ns || !tc->cap_user_time_zero || tc->time_shift >= 64)
		return false;
	if (tc->cap_user_time_short)
		cyc = tc->time_cycles + ((cyc - tc->time_cycles) & tc->time_mask);
	quot = cyc >> tc->time_shift;
	rem = cyc & ((UINT64_C(1) << tc->time_shift) - 1);
	*ns = tc->time_zero + quot * tc->time_mult + ((rem * tc->time_mult) >> tc->time_shift);
	return true;
}

int pms_spe_record_branch_miss(const struct pms_spe_record *rec, struct pms_spe_branch *out)
{
	if (!rec || !out || !(rec->valid & PMS_SPE_R_EVENTS) ||
	    !(rec->events & PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_MISPRED)))
		return 0;
	memset(out, 0, sizeof(*out));
	out->from = (rec->valid & PMS_SPE_R_PC) ? rec->pc : 0;
	out->to = (rec->valid & PMS_SPE_R_BRANCH_TARGET) ? rec->branch_target : 0;
	out->latency = (rec->valid & PMS_SPE_R_TOTAL_LAT) ? rec->total_lat : 0;
	out->not_taken = (rec->events & PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_NOT_TAKEN)) != 0;
	out->op_flags = (rec->valid & PMS_SPE_R_OP) ? rec->op_flags : 0;
	return 1;
}

bool pms_spe_record_is_mem(const struct pms_spe_record *rec)
{
	return rec && (rec->valid & PMS_SPE_R_OP) && rec->op_class == PMS_SPE_OPC_LDST;
}

int spe_chunk_walk(const void *buf, size_t len, const struct pms_spe_chunk_ctx *ctx,
		   struct pms_spe_chunk_stats *stats, pms_spe_record_fn fn, void *arg,
		   size_t *used)
{
	struct pms_spe_reader rd;
	struct pms_spe_record rec;
	struct pms_memsample ms;
	int rc;

	*used = 0;
	if ((!buf && len) || !ctx || !stats || !fn)
		return pms_err(PMS_EINVAL, "pms_spe_chunk_decode: NULL argument");
	pms_spe_reader_init(&rd, buf, len);
	stats->chunks++;
	for (;;) {
		rc = pms_spe_record_next(&rd, &rec);
		if (rc == PMS_EPARSE)
			continue; /* counted in rd.bad_headers; the reader resumes */
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;
		pms_spe_record_memsample(&rec, (uint32_t)ctx->midr, ctx->snoop_event_supported, &ms);
		if (ctx->cpu != UINT32_MAX) {
			ms.cpu = ctx->cpu;
			ms.valid |= PMS_MS_CPU;
		}
		if (rec.valid & PMS_SPE_R_CONTEXT) {
			ms.pid = ms.tid = rec.context;
			ms.valid |= PMS_MS_TID;
			stats->context_records++;
		} else if (ctx->tid != UINT32_MAX) {
			ms.tid = ctx->tid;
			ms.pid = ctx->pid ? ctx->pid : ctx->tid;
			ms.valid |= PMS_MS_TID;
		}
		stats->records++;
		if (pms_spe_record_is_mem(&rec))
			stats->mem_records++;
		rc = fn(arg, &rec, &ms);
		if (rc)
			break;
	}
	stats->pad_bytes += rd.pad_bytes;
	stats->unknown_packets += rd.unknown_packets;
	stats->bad_headers += rd.bad_headers;
	if (rc) {
		*used = rd.pos;
		return rc;
	}
	if (rd.left) {
		stats->cut_chunks++;
		stats->cut_bytes += rd.left;
	}
	*used = len - rd.left;
	return 0;
}

int pms_spe_chunk_decode(const void *buf, size_t len, const struct pms_spe_chunk_ctx *ctx,
			 struct pms_spe_chunk_stats *stats, pms_spe_record_fn fn, void *arg)
{
	size_t used;
	return spe_chunk_walk(buf, len, ctx, stats, fn, arg, &used);
}
