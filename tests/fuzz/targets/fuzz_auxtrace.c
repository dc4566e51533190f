/* libFuzzer target for the recorded-hardware-sample paths of a perf.data
 * file: the AUXTRACE_INFO metadata of Arm SPE (versions 1 and 2, per-CPU
 * MIDR), the AUXTRACE payloads decoded as SPE records and memory samples,
 * AUX record flags, and PERF_SAMPLE_RAW payloads decoded as AMD IBS op and
 * fetch samples with the CPU from HEADER_CPUID.  Bad input must end in an
 * error code, never a crash, hang or leak. */
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/memsample.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"
#include "pmuscope/spe.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static int on_record(void *arg, const struct pms_spe_record *rec, const struct pms_memsample *ms)
{
	uint64_t *sum = arg;
	*sum += rec->size + ms->ip + ms->data_src;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pms_perfdata_reader *r = NULL;
	struct pms_perfdata_event ev;
	struct pms_spe_chunk_stats st = { 0 };
	uint64_t sum = 0;
	int rc, n = 0;

	if (pms_perfdata_reader_open_mem(data, size, &r) < 0)
		return 0;
	while ((rc = pms_perfdata_next(r, &ev)) > 0) {
		if (++n > 1000000)
			__builtin_trap(); /* a loop that does not advance */
		if (ev.rec.type == PMS_PERFDATA_RECORD_AUXTRACE) {
			struct pms_perfdata_spe_meta m;
			struct pms_spe_chunk_ctx ctx = { 0 };
			uint64_t midr = 0;
			if (ev.aux_len && !ev.aux_data)
				__builtin_trap();
			if (pms_perfdata_reader_spe_meta(r, &m) == 0)
				for (size_t i = 0; i < m.ncpus; i++)
					sum += m.cpus[i].midr + m.cpus[i].pmu_type;
			(void)pms_perfdata_reader_spe_midr(r, ev.auxtrace.cpu, &midr);
			ctx.midr = midr;
			ctx.cpu = ev.auxtrace.cpu;
			ctx.tid = ev.auxtrace.tid;
			if (pms_spe_chunk_decode(ev.aux_data, ev.aux_len, &ctx, &st, on_record,
						 &sum) < 0)
				__builtin_trap(); /* only NULL arguments fail */
		} else if (ev.rec.type == PMS_RECORD_SAMPLE &&
			   (ev.rec.sample.present & PMS_SAMPLE_RAW)) {
			const struct pms_perfdata_info *in = pms_perfdata_reader_info(r);
			struct pms_ibs_cpu cpu = { 0x19, 0x11, 0 };
			struct pms_memsample ms;
			struct pms_ibs_op_regs opr;
			struct pms_ibs_fetch_regs fr;
			struct pms_ibs_op_fields of;
			struct pms_ibs_fetch_fields ff;
			uint32_t caps = 0;
			if (in->cpuid)
				(void)pms_ibs_cpu_from_cpuid(in->cpuid, 0, &cpu);
			(void)pms_ibs_raw_memsample(ev.rec.sample.raw, ev.rec.sample.raw_size, false,
						    &cpu, &ms);
			(void)pms_ibs_raw_memsample(ev.rec.sample.raw, ev.rec.sample.raw_size, true,
						    &cpu, &ms);
			if (pms_ibs_op_raw_parse(ev.rec.sample.raw, ev.rec.sample.raw_size, &opr,
						 &caps) == 0) {
				cpu.caps = caps;
				pms_ibs_op_fields_decode(&opr, &cpu, &of);
				sum += of.data_src + of.dc_miss_lat;
			}
			if (pms_ibs_fetch_raw_parse(ev.rec.sample.raw, ev.rec.sample.raw_size, &fr,
						    &caps) == 0) {
				pms_ibs_fetch_fields_decode(&fr, &ff);
				sum += ff.lat;
			}
		}
	}
	sum += pms_perfdata_reader_stats(r)->aux_truncated;
	pms_perfdata_reader_free(r);
	sink = sum; /* keep the decoding from being optimized away */
	return 0;
}
