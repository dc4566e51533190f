/* One decoded PERF_RECORD_SAMPLE -> one engine-neutral memory sample.  The
 * live sampler and the recorded-file source both call this, so a sample means
 * the same whether it came from a ring or from a perf.data file.
 *
 * Validity rules.  The kernel gives every requested field a value, filled or
 * not: kernel/events/core.c perf_prepare_sample() (perf_sample_data_init
 * defaults) leaves addr 0, weight 0 and data_src PERF_MEM_NA when the PMU
 * driver did not fill them (kernel-abi-facts.md §1.1), perf_virt_to_phys()
 * gives phys_addr 0 and perf_get_page_size() 0 when there is no translation.
 * So a field is valid when requested AND not that default, except where the
 * default is a real value:
 *   IP, TID, TIME, CPU, PERIOD   requested (always filled by the core)
 *   KERNEL_IP   cpumode PERF_RECORD_MISC_KERNEL only; GUEST_KERNEL is a
 *               guest's kernel address, not this kernel's (uapi
 *               perf_event.h PERF_RECORD_MISC_*)
 *   EXACT_IP    PERF_RECORD_MISC_EXACT_IP (ibs.c perf_ibs_handle_irq sets
 *               PERF_EFLAGS_EXACT; ds.c for PEBS with precise_ip)
 *   DATA_SRC    not 0 and not PERF_MEM_NA (the core's default: the driver
 *               said nothing; a software event never fills it)
 *   WEIGHT      not 0 (ibs.c perf_ibs_parse_ld_st_data fills it only for a
 *               load with DcMiss; ds.c only for load-latency/store events;
 *               a real latency is never 0 cycles)
 *   INS_LAT     WEIGHT_STRUCT var2 not 0
 *   PHYS        not 0 (perf_virt_to_phys: 0 = no translation)
 *   PAGE_SIZE   not 0 (perf_get_page_size: 0 = not mapped)
 *   ADDR        software page faults: requested, 0 included (the faulting
 *               address is the datum: arch/x86/mm/fault.c and
 *               arch/arm64/mm/fault.c pass it to perf_sw_event, a NULL
 *               dereference faults at 0); every other engine: not 0 (ibs.c
 *               fills it only under DcLinAddrValid, ds.c only for
 *               load-latency/store events; otherwise the core's 0)
 * IBS with a PERF_SAMPLE_RAW payload and the CPU known: the registers' own
 * valid bits decide ADDR (DcLinAddrValid), PHYS (DcPhyAddrValid) and
 * WEIGHT/INS_LAT (load && DcMiss) instead, and a disagreement with the
 * kernel's fields is flagged (kernel-abi-facts.md §3.3). */
#include "decode/record_io.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/memsample.h"
#include "pmuscope/record.h"
#include "util/error.h"

#include <string.h>

static void ibs_raw(const struct pms_sample *in, const struct pms_memconv_ctx *ctx,
		    struct pms_memsample *m, unsigned *flags)
{
	struct pms_ibs_op_regs regs;
	struct pms_ibs_op_sample dec;
	struct pms_ibs_cpu cpu = *ctx->ibs_cpu;
	bool bad;

	if (in->raw && in->raw_size &&
	    pms_ibs_op_raw_parse(in->raw, in->raw_size, &regs, &cpu.caps) < 0) {
		*flags |= PMS_MEMCONV_RAW_MALFORMED; /* said by the source, per event */
		return;
	}
	if (!in->raw || !in->raw_size ||
	    pms_ibs_op_decode(&regs, &cpu, ctx->sample_type ? ctx->sample_type : in->present,
			      ctx->ibs_ldlat, &dec) < 0)
		return;
	bad = dec.dropped;
	*flags |= PMS_MEMCONV_RAW_CHECKED;
	m->valid &= ~(uint32_t)(PMS_MS_ADDR | PMS_MS_WEIGHT | PMS_MS_INS_LAT | PMS_MS_PHYS);
	if (dec.addr_filled && (in->present & PMS_SAMPLE_ADDR)) {
		m->valid |= PMS_MS_ADDR;
		m->addr = in->addr;
	}
	if (dec.weight_filled && (in->present & PMS_SAMPLE_WEIGHT_TYPE)) {
		m->valid |= PMS_MS_WEIGHT;
		if (in->present & PMS_SAMPLE_WEIGHT_STRUCT) {
			m->weight = in->weight_var1_dw;
			m->ins_lat = in->weight_var2_w;
			m->valid |= PMS_MS_INS_LAT;
		} else {
			m->weight = in->weight;
		}
	}
	if (dec.phys_addr_filled && (in->present & PMS_SAMPLE_PHYS_ADDR)) {
		m->valid |= PMS_MS_PHYS;
		m->phys_addr = in->phys_addr;
	}
	/* A recording made without the kernel's fields (`perf record -e
	 * ibs_op//`: RAW only) gets them from the registers, under the same
	 * valid-bit rules (pms_ibs_raw_memsample; docs/ibs.md). */
	{
		struct pms_memsample r;
		uint64_t want = PMS_SAMPLE_DATA_SRC | PMS_SAMPLE_ADDR | PMS_SAMPLE_WEIGHT_TYPE |
				PMS_SAMPLE_PHYS_ADDR;
		if ((in->present & want) != want &&
		    pms_ibs_raw_memsample(in->raw, in->raw_size, false, ctx->ibs_cpu, &r) == 0) {
			if (!(in->present & PMS_SAMPLE_DATA_SRC) && (r.valid & PMS_MS_DATA_SRC)) {
				m->valid |= PMS_MS_DATA_SRC;
				m->data_src = r.data_src;
			}
			if (!(in->present & PMS_SAMPLE_ADDR) && (r.valid & PMS_MS_ADDR)) {
				m->valid |= PMS_MS_ADDR;
				m->addr = r.addr;
			}
			if (!(in->present & PMS_SAMPLE_WEIGHT_TYPE) && (r.valid & PMS_MS_WEIGHT)) {
				m->valid |= PMS_MS_WEIGHT | PMS_MS_INS_LAT;
				m->weight = r.weight;
				m->ins_lat = r.ins_lat;
			}
			if (!(in->present & PMS_SAMPLE_PHYS_ADDR) && (r.valid & PMS_MS_PHYS)) {
				m->valid |= PMS_MS_PHYS;
				m->phys_addr = r.phys_addr;
			}
		}
	}
	if ((in->present & PMS_SAMPLE_DATA_SRC) && dec.data_src_filled &&
	    dec.data_src != in->data_src)
		bad = true;
	if ((in->present & PMS_SAMPLE_WEIGHT_TYPE) &&
	    (dec.weight_filled ? dec.weight : 0) != in->weight)
		bad = true;
	if ((in->present & PMS_SAMPLE_ADDR) && dec.addr_filled && dec.addr != in->addr)
		bad = true;
	if (bad)
		*flags |= PMS_MEMCONV_RAW_MISMATCH;
}

int pms_memsample_from_sample(const struct pms_sample *in, const struct pms_memconv_ctx *ctx,
			      struct pms_memsample *out, unsigned *flags)
{
	struct pms_memsample *m = out; /* filled in place: the call cannot fail from here */
	unsigned fl = 0;

	if (!in || !ctx || !out)
		return pms_err(PMS_EINVAL, "memsample_from_sample: NULL argument");
	/* Every field written once, 0 where the record does not give it (no
	 * clearing of the whole struct first); the valid bits gather in a
	 * register. */
	uint64_t pr = in->present;
	uint32_t valid = 0;
	bool ip = pr & PMS_SAMPLE_IP, tid = pr & PMS_SAMPLE_TID;
	m->engine = ctx->engine;
	if (ip) {
		valid |= PMS_MS_IP;
		if (in->exact_ip)
			valid |= PMS_MS_EXACT_IP;
		if (in->cpumode == PMS_MISC_KERNEL)
			valid |= PMS_MS_KERNEL_IP;
	}
	m->ip = ip ? in->ip : 0;
	if (tid)
		valid |= PMS_MS_TID;
	m->pid = tid ? in->pid : 0;
	m->tid = tid ? in->tid : 0;
	if (pr & PMS_SAMPLE_TIME)
		valid |= PMS_MS_TIME;
	m->time = (pr & PMS_SAMPLE_TIME) ? in->time : 0;
	if (pr & PMS_SAMPLE_CPU)
		valid |= PMS_MS_CPU;
	m->cpu = (pr & PMS_SAMPLE_CPU) ? in->cpu : 0;
	m->period = (pr & PMS_SAMPLE_PERIOD) ? in->period : ctx->fixed_period;
	bool ds = (pr & PMS_SAMPLE_DATA_SRC) && in->data_src && in->data_src != PMS_MEM_NA_VALUE;
	if (ds)
		valid |= PMS_MS_DATA_SRC;
	m->data_src = ds ? in->data_src : 0;
	uint64_t weight = 0;
	uint32_t ins_lat = 0;
	if (pr & PMS_SAMPLE_WEIGHT_STRUCT) {
		/* var1 is what perf shows as "weight", var2 the instruction
		 * latency (uapi perf_event.h, union perf_sample_weight) */
		weight = in->weight_var1_dw;
		ins_lat = in->weight_var2_w;
	} else if (pr & PMS_SAMPLE_WEIGHT) {
		weight = in->weight;
	}
	if (weight)
		valid |= PMS_MS_WEIGHT;
	if (ins_lat)
		valid |= PMS_MS_INS_LAT;
	m->weight = weight;
	m->ins_lat = ins_lat;
	bool phys = (pr & PMS_SAMPLE_PHYS_ADDR) && in->phys_addr;
	if (phys)
		valid |= PMS_MS_PHYS;
	m->phys_addr = phys ? in->phys_addr : 0;
	bool psz = (pr & PMS_SAMPLE_DATA_PAGE_SIZE) && in->data_page_size;
	if (psz)
		valid |= PMS_MS_PAGE_SIZE;
	m->page_size = psz ? in->data_page_size : 0;
	bool addr = (pr & PMS_SAMPLE_ADDR) && (ctx->engine == PMS_ENG_SOFTWARE || in->addr);
	if (addr)
		valid |= PMS_MS_ADDR;
	m->addr = addr ? in->addr : 0;
	m->valid = valid;
	if (ctx->engine == PMS_ENG_IBS && ctx->ibs_cpu) {
		ibs_raw(in, ctx, m, &fl);
		if (!(m->valid & PMS_MS_ADDR))
			m->addr = 0;
		if (!(m->valid & PMS_MS_WEIGHT))
			m->weight = 0;
		if (!(m->valid & PMS_MS_INS_LAT))
			m->ins_lat = 0;
		if (!(m->valid & PMS_MS_PHYS))
			m->phys_addr = 0;
	}
	if (flags)
		*flags = fl;
	return 0;
}
