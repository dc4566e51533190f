/* Encoders for ARM uncore PMUs whose config packs several fields: CMN
 * (mesh), DSU (cluster L3) and DMC-620 (memory controller).  Each encodes a
 * struct into perf_event_attr config words, decodes them back, and refuses a
 * field that does not fit with PMS_ERANGE naming the field and its limit.
 * Uncore counts are per domain (mesh, cluster, controller), never per thread.
 *
 * Ownership: plain value structs; nothing is allocated.
 */
#ifndef PMUSCOPE_UNCORE_ENC_H
#define PMUSCOPE_UNCORE_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* config, config1, config2 */
struct pms_uncore_config {
	uint64_t config, config1, config2;
};

/* CMN node type used for watchpoints (arm-cmn.c: "Not a real node type"). */
#define PMS_CMN_TYPE_WP 0x7770
#define PMS_CMN_WP_UP 0   /* watchpoint eventid: upload direction */
#define PMS_CMN_WP_DOWN 2 /* watchpoint eventid: download direction */

struct pms_cmn_event {
	uint16_t type;     /* node type, config:0-15 */
	uint16_t eventid;  /* config:16-26 (11 bits) */
	uint8_t occupid;   /* config:27-30; not for watchpoints */
	bool bynodeid;     /* config:31: count only node nodeid */
	uint16_t nodeid;   /* config:32-47 */
	/* Watchpoint sub-encoding, used when type == PMS_CMN_TYPE_WP. */
	uint8_t wp_combine;   /* config:27-30 (shares bits with occupid) */
	uint8_t wp_dev_sel;   /* config:48-50 */
	uint8_t wp_chn_sel;   /* config:51-55 */
	uint8_t wp_grp;       /* config:56-57 */
	bool wp_exclusive;    /* config:58 */
	uint64_t wp_val;      /* config1 */
	uint64_t wp_mask;     /* config2 */
};

int pms_cmn_encode(const struct pms_cmn_event *ev, struct pms_uncore_config *out);
/* Bits outside the layout make decode fail with PMS_EPARSE. */
int pms_cmn_decode(const struct pms_uncore_config *cfg, struct pms_cmn_event *out);

/* DSU: the whole config:0-31 is the event number. */
#define PMS_DSU_EVT_CYCLES 0x11 /* counted by the dedicated cycle counter (idx 31) */
struct pms_dsu_event {
	uint32_t event;
};
int pms_dsu_encode(const struct pms_dsu_event *ev, struct pms_uncore_config *out);
int pms_dsu_decode(const struct pms_uncore_config *cfg, struct pms_dsu_event *out);

/* DMC-620, as the Linux driver's format/ lays it out (arm_dmc620_pmu.c). */
struct pms_dmc620_event {
	uint8_t eventid;  /* config2:3-8 (6 bits; format term "event") */
	bool clkdiv2;     /* config2:9: the clkdiv2 counter domain, else clk */
	bool invert;      /* config2:0 */
	uint8_t incr;     /* config2:1-2 */
	uint64_t mask;    /* config:0-44 */
	uint64_t match;   /* config1:0-44 */
};
int pms_dmc620_encode(const struct pms_dmc620_event *ev, struct pms_uncore_config *out);
int pms_dmc620_decode(const struct pms_uncore_config *cfg, struct pms_dmc620_event *out);

enum pms_uncore_device {
	PMS_UNCORE_CMN = 1,
	PMS_UNCORE_DSU,
	PMS_UNCORE_DMC620,
};

/* Parse perf terms for a device ("type=0x5,eventid=0x1,bynodeid=1,nodeid=0x68")
 * into config words, checking every field.  Unknown terms and values that do
 * not fit fail with the term's name in the message. */
int pms_uncore_parse(enum pms_uncore_device dev, const char *terms,
		     struct pms_uncore_config *out);
/* Write config words back as terms (the selector always, other fields when
 * non-zero); returns the length needed, like snprintf, or PMS_EPARSE when
 * bits outside the device's layout are set. */
int pms_uncore_format(enum pms_uncore_device dev, const struct pms_uncore_config *cfg,
		      char *buf, size_t size);
/* "arm_cmn", "arm_dsu", "arm_dmc620" */
const char *pms_uncore_device_pmu(enum pms_uncore_device dev);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
