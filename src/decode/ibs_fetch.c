/* One AMD IBS fetch sample's front-end fields (pmuscope/ibsfetch.h).
 *
 * Which samples exist is the driver's rule (arch/x86/events/amd/ibs.c
 * perf_ibs_handle_irq, v6.12 and torvalds/linux@003c0414 alike): IbsFetchVal
 * (bit 49) clear is no sample; with erratum 1197 (perf_event_ibs_init sets
 * fetch_ignore_if_zero_rip on family 0x19 model < 0x10) a zero IbsFetchLinAd
 * is none either; the IP is IbsFetchLinAd.  Which fields mean something is
 * perf's rule, as perf 6.12's amd-sample-raw.c pr_ibs_fetch_ctl prints them
 * (and as tests/perfdata/test_ibs_perf_diff.c checks against `perf report
 * -D`): IcMiss not under erratum 1347 (family 0x19 model < 0x10), whose
 * L1TlbPgSz table is 4K/16K/2M/1G instead of 4K/2M/1G/reserved;
 * L1TlbPgSz only with PhyAddrValid; fetch L2Miss only for a completed fetch
 * (Comp); L3MissOnly, OcMiss and L3Miss only with the Zen 4 extensions
 * (IBS_CAPS_ZEN4, which the caps word of the payload carries). */
#include <string.h>

#include "pmuscope/ibsfetch.h"
#include "util/error.h"

int pms_ibs_fetch_decode(const void *raw, size_t size, const struct pms_ibs_cpu *cpu,
			 struct pms_ibs_fetch *out)
{
	static const uint32_t pgsz[4] = { 4, 2048, 1048576, 0 };
	static const uint32_t pgsz_e1347[4] = { 4, 16, 2048, 1048576 };
	struct pms_ibs_fetch_regs regs;
	struct pms_ibs_fetch_fields f;
	uint32_t caps = 0;
	bool e1347;
	int rc;

	if (!raw || !cpu || !out)
		return pms_err(PMS_EINVAL, "pms_ibs_fetch_decode: NULL argument");
	memset(out, 0, sizeof(*out));
	if ((rc = pms_ibs_fetch_raw_parse(raw, size, &regs, &caps)) < 0)
		return rc;
	if ((rc = pms_ibs_fetch_fields_decode(&regs, &f)) < 0)
		return rc;
	e1347 = cpu->family == 0x19 && cpu->model < 0x10;
	if (!f.val)
		return pms_err(PMS_ENOENT, "IBS fetch sample: IbsFetchVal (bit 49) is clear; the "
					   "driver drops it");
	if (e1347 && !regs.lin_ad)
		return pms_err(PMS_ENOENT, "IBS fetch sample: zero IbsFetchLinAd on family 0x19 "
					   "model < 0x10 (erratum 1197); the driver drops it");
	out->ip = regs.lin_ad;
	out->lat = f.lat;
	out->comp = f.comp;
	out->ic_miss_known = !e1347;
	out->ic_miss = !e1347 && f.ic_miss;
	out->itlb = !f.l1tlb_miss ? PMS_ITLB_L1_HIT
				  : !f.l2tlb_miss ? PMS_ITLB_L2_HIT : PMS_ITLB_MISS;
	out->pgsz_known = f.phy_addr_valid;
	if (f.phy_addr_valid)
		out->pgsz_kib = (e1347 ? pgsz_e1347 : pgsz)[f.l1tlb_pgsz & 3];
	out->l2_known = f.comp;
	out->l2_miss = f.comp && f.l2_miss;
	out->l3_known = (caps & PMS_IBS_CAPS_ZEN4) != 0;
	if (out->l3_known) {
		out->oc_miss = f.oc_miss;
		out->l3_miss = f.l3_miss;
		out->l3_miss_only = f.l3_miss_only;
	}
	out->itlb_lat_known = regs.has_extd_ctl;
	out->itlb_refill_lat = f.itlb_refill_lat;
	return 0;
}
