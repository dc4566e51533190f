/* AMD IBS fetch sampling: one fetch sample's front-end fields under the
 * valid-bit rules of the kernel (arch/x86/events/amd/ibs.c
 * perf_ibs_handle_irq) and of perf's decoder (tools/perf/util/
 * amd-sample-raw.c pr_ibs_fetch_ctl, perf 6.12); the front-end view of a
 * recorded file is pmuscope/fetchview.h (docs/ibs.md).
 *
 * Ownership: fills a caller struct.
 */
#ifndef PMUSCOPE_IBSFETCH_H
#define PMUSCOPE_IBSFETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/datasrc.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

enum pms_itlb_level {
	PMS_ITLB_L1_HIT = 0, /* IbsL1TlbMiss clear */
	PMS_ITLB_L2_HIT,     /* L1 miss, IbsL2TlbMiss clear */
	PMS_ITLB_MISS,       /* both missed: a page walk */
};

/* One fetch sample.  A field whose valid flag is false is not known for
 * this sample (perf prints no value for it). */
struct pms_ibs_fetch {
	uint64_t ip;             /* IbsFetchLinAd: the sample's exact IP */
	uint16_t lat;            /* IbsFetchLat: cycles from the fetch's start to its
				  * completion or abort */
	bool comp;               /* IbsFetchComp: the fetch completed */
	bool ic_miss_known, ic_miss;   /* IbsIcMiss; unknown under erratum 1347 */
	enum pms_itlb_level itlb;
	bool pgsz_known;         /* IbsL1TlbPgSz only with IbsPhyAddrValid */
	uint32_t pgsz_kib;       /* 4, 16 (erratum 1347 table), 2048, 1048576; 0 reserved */
	bool l2_known, l2_miss;  /* IbsFetchL2Miss: only for completed fetches */
	bool l3_known;           /* the Zen 4 fields (IBS_CAPS_ZEN4 in the caps word) */
	bool oc_miss, l3_miss, l3_miss_only;
	bool itlb_lat_known;     /* IcIbsExtdCtl present (IBS_CAPS_FETCHCTLEXTD) */
	uint16_t itlb_refill_lat;
};

/* Decode an ibs_fetch PERF_SAMPLE_RAW payload on cpu (family, model; caps
 * come from the payload).  0; PMS_ENOENT for a sample the driver drops
 * (IbsFetchVal clear; a zero IbsFetchLinAd on family 0x19 model < 0x10,
 * erratum 1197); PMS_EPARSE for a payload that is not a fetch one. */
int pms_ibs_fetch_decode(const void *raw, size_t size, const struct pms_ibs_cpu *cpu,
			 struct pms_ibs_fetch *out);

PMS_API_END
#ifdef __cplusplus
}
#endif

#endif
