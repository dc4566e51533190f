/* perf_mem_data_src: the union, its text exactly as perf prints it, and the
 * vendor raw -> data_src tables (AMD IBS, Intel PEBS, Arm SPE).
 *
 * Ownership: everything here is pure computation on values; arguments are
 * borrowed, results are written into caller buffers or returned by value, and
 * returned const char * names are static strings owned by the library.
 */
#ifndef PMUSCOPE_DATASRC_H
#define PMUSCOPE_DATASRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* ---- The union (include/uapi/linux/perf_event.h, v7.3-rc7) ---------------
 * Field values below are the unshifted field values, as in the kernel's
 * PERF_MEM_<GROUP>_<NAME>; PMS_MEM_S(GROUP, NAME) shifts one into place. */

#define PMS_MEM_OP_SHIFT 0
#define PMS_MEM_LVL_SHIFT 5
#define PMS_MEM_SNOOP_SHIFT 19
#define PMS_MEM_LOCK_SHIFT 24
#define PMS_MEM_TLB_SHIFT 26
#define PMS_MEM_LVLNUM_SHIFT 33
#define PMS_MEM_REMOTE_SHIFT 37
#define PMS_MEM_SNOOPX_SHIFT 38
#define PMS_MEM_BLK_SHIFT 40
#define PMS_MEM_HOPS_SHIFT 43
#define PMS_MEM_REGION_SHIFT 46
#define PMS_MEM_RSVD_SHIFT 51

#define PMS_MEM_OP_WIDTH 5
#define PMS_MEM_LVL_WIDTH 14
#define PMS_MEM_SNOOP_WIDTH 5
#define PMS_MEM_LOCK_WIDTH 2
#define PMS_MEM_TLB_WIDTH 7
#define PMS_MEM_LVLNUM_WIDTH 4
#define PMS_MEM_REMOTE_WIDTH 1
#define PMS_MEM_SNOOPX_WIDTH 2
#define PMS_MEM_BLK_WIDTH 3
#define PMS_MEM_HOPS_WIDTH 3
#define PMS_MEM_REGION_WIDTH 5

/* Bits 51..63 (mem_rsvd): pms_datasrc_pack() never sets them. */
#define PMS_MEM_RSVD_MASK 0xfff8000000000000ULL

#define PMS_MEM_S(group, name) \
	((uint64_t)PMS_MEM_##group##_##name << PMS_MEM_##group##_SHIFT)

/* mem_op (bitmask) */
#define PMS_MEM_OP_NA 0x01u
#define PMS_MEM_OP_LOAD 0x02u
#define PMS_MEM_OP_STORE 0x04u
#define PMS_MEM_OP_PFETCH 0x08u
#define PMS_MEM_OP_EXEC 0x10u
/* mem_lvl (bitmask; legacy) */
#define PMS_MEM_LVL_NA 0x01u
#define PMS_MEM_LVL_HIT 0x02u
#define PMS_MEM_LVL_MISS 0x04u
#define PMS_MEM_LVL_L1 0x08u
#define PMS_MEM_LVL_LFB 0x10u
#define PMS_MEM_LVL_L2 0x20u
#define PMS_MEM_LVL_L3 0x40u
#define PMS_MEM_LVL_LOC_RAM 0x80u
#define PMS_MEM_LVL_REM_RAM1 0x100u
#define PMS_MEM_LVL_REM_RAM2 0x200u
#define PMS_MEM_LVL_REM_CCE1 0x400u
#define PMS_MEM_LVL_REM_CCE2 0x800u
#define PMS_MEM_LVL_IO 0x1000u
#define PMS_MEM_LVL_UNC 0x2000u
/* mem_snoop (bitmask) */
#define PMS_MEM_SNOOP_NA 0x01u
#define PMS_MEM_SNOOP_NONE 0x02u
#define PMS_MEM_SNOOP_HIT 0x04u
#define PMS_MEM_SNOOP_MISS 0x08u
#define PMS_MEM_SNOOP_HITM 0x10u
/* mem_lock (bitmask) */
#define PMS_MEM_LOCK_NA 0x01u
#define PMS_MEM_LOCK_LOCKED 0x02u
/* mem_dtlb (bitmask) */
#define PMS_MEM_TLB_NA 0x01u
#define PMS_MEM_TLB_HIT 0x02u
#define PMS_MEM_TLB_MISS 0x04u
#define PMS_MEM_TLB_L1 0x08u
#define PMS_MEM_TLB_L2 0x10u
#define PMS_MEM_TLB_WK 0x20u
#define PMS_MEM_TLB_OS 0x40u
/* mem_lvl_num (enumeration; 0 = not set) */
#define PMS_MEM_LVLNUM_L1 0x01u
#define PMS_MEM_LVLNUM_L2 0x02u
#define PMS_MEM_LVLNUM_L3 0x03u
#define PMS_MEM_LVLNUM_L4 0x04u
#define PMS_MEM_LVLNUM_L2_MHB 0x05u
#define PMS_MEM_LVLNUM_MSC 0x06u
#define PMS_MEM_LVLNUM_L0 0x07u
#define PMS_MEM_LVLNUM_UNC 0x08u
#define PMS_MEM_LVLNUM_CXL 0x09u
#define PMS_MEM_LVLNUM_IO 0x0au
#define PMS_MEM_LVLNUM_ANY_CACHE 0x0bu
#define PMS_MEM_LVLNUM_LFB 0x0cu
#define PMS_MEM_LVLNUM_RAM 0x0du
#define PMS_MEM_LVLNUM_PMEM 0x0eu
#define PMS_MEM_LVLNUM_NA 0x0fu
/* mem_remote */
#define PMS_MEM_REMOTE_REMOTE 0x01u
/* mem_snoopx (bitmask) */
#define PMS_MEM_SNOOPX_FWD 0x01u
#define PMS_MEM_SNOOPX_PEER 0x02u
/* mem_blk (bitmask) */
#define PMS_MEM_BLK_NA 0x01u
#define PMS_MEM_BLK_DATA 0x02u
#define PMS_MEM_BLK_ADDR 0x04u
/* mem_hops (enumeration; 5..7 unused) */
#define PMS_MEM_HOPS_0 0x01u
#define PMS_MEM_HOPS_1 0x02u
#define PMS_MEM_HOPS_2 0x03u
#define PMS_MEM_HOPS_3 0x04u
/* mem_region (enumeration; 0x10..0x1f unused) */
#define PMS_MEM_REGION_NA 0x00u
#define PMS_MEM_REGION_RSVD 0x01u
#define PMS_MEM_REGION_L_SHARE 0x02u
#define PMS_MEM_REGION_L_NON_SHARE 0x03u
#define PMS_MEM_REGION_O_IO 0x04u
#define PMS_MEM_REGION_O_SHARE 0x05u
#define PMS_MEM_REGION_O_NON_SHARE 0x06u
#define PMS_MEM_REGION_MMIO 0x07u
#define PMS_MEM_REGION_MEM0 0x08u
#define PMS_MEM_REGION_MEM1 0x09u
#define PMS_MEM_REGION_MEM2 0x0au
#define PMS_MEM_REGION_MEM3 0x0bu
#define PMS_MEM_REGION_MEM4 0x0cu
#define PMS_MEM_REGION_MEM5 0x0du
#define PMS_MEM_REGION_MEM6 0x0eu
#define PMS_MEM_REGION_MEM7 0x0fu

/* PERF_MEM_NA (include/linux/perf_event.h): OP_NA|LVL_NA|SNOOP_NA|LOCK_NA|
 * TLB_NA|LVLNUM_NA.  What the core reports for PERF_SAMPLE_DATA_SRC when the
 * PMU driver did not fill data_src (kernel/events/core.c perf_prepare_sample). */
#define PMS_MEM_NA_VALUE 0x0000001e05080021ULL

/* The union split into its fields (mem_rsvd dropped). */
struct pms_datasrc {
	unsigned op, lvl, snoop, lock, dtlb, lvl_num, remote, snoopx, blk, hops, region;
};

void pms_datasrc_unpack(uint64_t val, struct pms_datasrc *out);
/* Each field is masked to its width; bits above a field's width are dropped,
 * so pack(unpack(v)) == v & ~PMS_MEM_RSVD_MASK. */
uint64_t pms_datasrc_pack(const struct pms_datasrc *d);

/* ---- Text, exactly as perf 7.3 prints it (tools/perf/util/mem-events.c) ----
 *
 * Every formatter has the snprintf contract: it writes at most size-1
 * characters plus a NUL (nothing when size is 0; buf may then be NULL) and
 * returns the length of the whole text, so a return >= size means the
 * output was cut.
 *
 * Length policy.  perf formats the script decode into a 100-byte buffer, so
 * its text is at most 99 characters.  For decodes whose full text is longer
 * (many level, snoop or TLB bits at once) perf's own output is not well
 * defined: several of its piece printers join names with strcat and size
 * arithmetic that is not bounded, so perf garbles or overruns there.
 * pmuscope builds the full text and cuts it at 99 characters; for every text
 * that fits, this is byte-for-byte perf's output.
 *
 * mem_hops 5..7 index past perf's mem_hops[] table (undefined in perf);
 * pmuscope prints them as "Unknown hops N " in the level text.
 * mem_region and the LVLNUM_L0 name are not printed by perf 7.3 (L0 shows
 * as "Unknown level 7"); pmuscope does the same. */

/* Longest text perf produces for the script decodes (100-byte buffer). */
#define PMS_DATASRC_TEXT_MAX 99

/* perf_script__meminfo_scnprintf:
 * "|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A".
 * Returns the length of the text (<= 99). */
size_t pms_datasrc_format(uint64_t val, char *buf, size_t size);

/* The perf script -F data_src field before its padding (builtin-script.c
 * data_src__fprintf): "%16" PRIx64 " " + the decode above, all cut at 99. */
size_t pms_datasrc_format_script(uint64_t val, char *buf, size_t size);

/* A memo of data_src texts, for printing many samples: each distinct word
 * is formatted once (pms_datasrc_format or _format_script, by kind) and its
 * text kept, up to max_entries words (0: PMS_DATASRC_MEMO_DEFAULT); past the
 * bound a word is formatted into a scratch buffer on each call (and while
 * a full memo's words come up rarely, every word is, for a while: the same
 * texts without a lookup that misses).  The texts
 * are printable ASCII without '"' or '\\' (the vocabularies above and
 * decimal digits), so a JSON string needs only the quotes around them.  The
 * memo belongs to the caller (pms_datasrc_memo_free); one thread at a time. */
enum pms_datasrc_memo_kind {
	PMS_DATASRC_MEMO_TEXT,   /* pms_datasrc_format */
	PMS_DATASRC_MEMO_SCRIPT  /* pms_datasrc_format_script */
};
#define PMS_DATASRC_MEMO_DEFAULT 65536
struct pms_datasrc_memo;
int pms_datasrc_memo_new(enum pms_datasrc_memo_kind kind, size_t max_entries,
			 struct pms_datasrc_memo **out);
void pms_datasrc_memo_free(struct pms_datasrc_memo *m);
/* val's text (not NUL-terminated) and its length in *len; the pointer is
 * valid until the next call on m or its free. */
const char *pms_datasrc_memo_text(struct pms_datasrc_memo *m, uint64_t val, size_t *len);
/* Words kept. */
size_t pms_datasrc_memo_size(const struct pms_datasrc_memo *m);

/* perf mem report columns (tools/perf/util/sort.c), uncut: the caller pads
 * or truncates to its column width.  Return the full length of the piece. */
size_t pms_datasrc_format_op(uint64_t val, char *buf, size_t size);    /* "LOAD", "No" */
size_t pms_datasrc_format_mem(uint64_t val, char *buf, size_t size);   /* "Memory access": "L1 hit", "PMEM ", "Unknown level 7 hit" */
size_t pms_datasrc_format_snoop(uint64_t val, char *buf, size_t size); /* "Snoop": "None or Miss", "Fwd" */
size_t pms_datasrc_format_tlb(uint64_t val, char *buf, size_t size);   /* "TLB access": "L1 or L2 hit" */
size_t pms_datasrc_format_lock(uint64_t val, char *buf, size_t size);  /* "Locked": "Yes", "No", "N/A" */
size_t pms_datasrc_format_blk(uint64_t val, char *buf, size_t size);   /* "Blocked": " N/A", " Data Addr" (leading space) */

/* perf mem report mem-stat names (mem_stat_index/mem_stat_name). */
const char *pms_datasrc_stat_op(uint64_t val);     /* Load Store Ld+St Pfetch Exec Other */
const char *pms_datasrc_stat_cache(uint64_t val);  /* L1 L2 L3 L4 L1-buf L2-buf Other */
const char *pms_datasrc_stat_memory(uint64_t val); /* RAM MSC Uncach CXL IO PMEM Other */
const char *pms_datasrc_stat_snoop(uint64_t val);  /* Hit HitM Miss Other */
const char *pms_datasrc_stat_dtlb(uint64_t val);   /* L1-Hit L2-Hit L?-Hit Miss Other */

/* ---- AMD IBS op samples (arch/x86/events/amd/ibs.c, v7.3-rc7) ------------ */

/* CPUID 0x8000001B EAX (IBS caps) bits used here. */
#define PMS_IBS_CAPS_BRNTRGT (1u << 5)
#define PMS_IBS_CAPS_RIPINVALIDCHK (1u << 7)
#define PMS_IBS_CAPS_OPDATA4 (1u << 10)
#define PMS_IBS_CAPS_ZEN4 (1u << 11)
#define PMS_IBS_CAPS_OPLDLAT (1u << 12)
#define PMS_IBS_CAPS_OPDTLBPGSIZE (1u << 19)

/* attr.sample_type bits this decoder looks at (uapi perf_event.h). */
#define PMS_IBS_SAMPLE_ADDR (1ULL << 3)
#define PMS_IBS_SAMPLE_WEIGHT (1ULL << 14)
#define PMS_IBS_SAMPLE_DATA_SRC (1ULL << 15)
#define PMS_IBS_SAMPLE_PHYS_ADDR (1ULL << 19)
#define PMS_IBS_SAMPLE_WEIGHT_STRUCT (1ULL << 24)

/* The op MSRs as the driver reads them (also the PERF_SAMPLE_RAW order). */
struct pms_ibs_op_regs {
	uint64_t op_ctl;      /* IbsOpCtl     0xC0011033 */
	uint64_t op_rip;      /* IbsOpRip     0xC0011034 */
	uint64_t op_data;     /* IbsOpData    0xC0011035 */
	uint64_t op_data2;    /* IbsOpData2   0xC0011036 */
	uint64_t op_data3;    /* IbsOpData3   0xC0011037 */
	uint64_t dc_lin_ad;   /* IbsDcLinAd   0xC0011038 */
	uint64_t dc_phys_ad;  /* IbsDcPhysAd  0xC0011039 */
	uint64_t br_target;   /* IbsBrTarget  0xC001103B, if has_br_target */
	uint64_t op_data4;    /* IbsOpData4   0xC001103D, if has_op_data4 */
	bool has_br_target, has_op_data4;
};

/* The CPU the sample came from. */
struct pms_ibs_cpu {
	unsigned family, model; /* boot_cpu_data.x86 / x86_model */
	uint32_t caps;          /* IBS caps word (PMS_IBS_CAPS_*) */
};

/* What the driver would put into the sample.  A field whose *_filled is false
 * holds the core's default (data_src PERF_MEM_NA, weight 0, addr 0); the
 * core's phys_addr fallback (a page walk of addr) cannot be reproduced here,
 * so phys_addr is then 0. */
struct pms_ibs_op_sample {
	bool dropped;            /* the driver would discard the sample */
	const char *drop_reason; /* static text when dropped, else NULL */
	bool exact_ip;           /* PERF_RECORD_MISC_EXACT_IP */
	bool ip_from_regs;       /* RipInvalid: IP is the interrupted IP, unknown here */
	uint64_t ip;             /* IbsOpRip when !ip_from_regs, else 0 */
	bool data_src_filled;
	uint64_t data_src;
	bool weight_filled;
	uint64_t weight;         /* as the u64 in the sample (WEIGHT or WEIGHT_STRUCT) */
	uint32_t weight_var1;    /* WEIGHT_STRUCT var1_dw: DcMissLat */
	uint16_t weight_var2;    /* WEIGHT_STRUCT var2_w: TagToRetCtr */
	bool addr_filled;
	uint64_t addr;
	bool phys_addr_filled;
	uint64_t phys_addr;
};

/* Decode one op sample as perf_ibs_handle_irq/perf_ibs_parse_ld_st_data do.
 * ldlat is the event's config1 ldlat value (0 = not used); a non-zero value
 * needs PMS_IBS_CAPS_OPLDLAT to take effect.  Returns 0, or PMS_EINVAL for
 * NULL arguments. */
int pms_ibs_op_decode(const struct pms_ibs_op_regs *regs, const struct pms_ibs_cpu *cpu,
		      uint64_t sample_type, unsigned ldlat, struct pms_ibs_op_sample *out);

/* The level/lvl_num/remote/hops part of one DataSrc table entry: the legacy
 * 3-bit g_data_src[] (zen4 false) or the 5-bit g_zen4_data_src[] (zen4 true),
 * with the RmtNode rule applied when rmt_node is set.  0 = no information. */
uint64_t pms_ibs_data_src_entry(bool zen4, unsigned code, bool rmt_node);

/* Parse an IBS op PERF_SAMPLE_RAW payload (the bytes after the record's u32
 * size: u32 caps, then u64 registers in MSR order, then IbsBrTarget if caps
 * has BRNTRGT and IbsOpData4 if caps has OPDATA4), in host byte order.
 * *caps gets the caps word (may be NULL).  Returns 0, or PMS_EPARSE when the
 * size does not match what the caps word announces. */
int pms_ibs_op_raw_parse(const void *raw, size_t size, struct pms_ibs_op_regs *regs,
			 uint32_t *caps);

/* Every field of the op registers (arch/x86/include/asm/amd/ibs.h), as a
 * recording's PERF_SAMPLE_RAW carries them. */
struct pms_ibs_op_fields {
	bool zen4;                /* caps has PMS_IBS_CAPS_ZEN4: 5-bit DataSrc, L3MissOnly */
	/* IbsOpCtl */
	uint32_t max_cnt;         /* ((MaxCntExt[26:20] << 16) | MaxCnt[15:0]) << 4 */
	bool l3_miss_only, en, val;
	bool cnt_ctl;             /* 1: counts dispatched ops, 0: cycles */
	uint32_t cur_cnt;         /* [58:32] */
	unsigned ldlat_thrsh;     /* [62:59] */
	bool ldlat_en;            /* 63 */
	/* IbsOpData */
	uint16_t comp_to_ret_ctr, tag_to_ret_ctr;
	bool op_return, brn_taken, brn_misp, brn_ret, rip_invalid, brn_fuse, microcode;
	/* IbsOpData2; data2_valid is false where erratum 1293 makes the
	 * register meaningless (family 0x19 model < 0x10 with SwPf or
	 * DcMissNoMabAlloc); the fields below then still hold its bits */
	bool data2_valid;
	unsigned data_src;        /* DataSrc: [2:0], or [7:6]:[2:0] on Zen 4 */
	bool rmt_node, cache_hit_st, strm_st, rmt_socket;
	/* IbsOpData3 */
	bool ld_op, st_op, dc_l1tlb_miss, dc_l2tlb_miss, dc_l1tlb_hit_2m, dc_l1tlb_hit_1g;
	bool dc_l2tlb_hit_2m, dc_miss, dc_mis_acc, dc_wc_mem_acc, dc_uc_mem_acc, dc_locked_op;
	bool dc_miss_no_mab_alloc, dc_lin_addr_valid, dc_phy_addr_valid, dc_l2tlb_hit_1g;
	bool l2_miss, sw_pf;
	bool l2_miss_valid;       /* false under erratum 1293, as for OpDcMissOpenMemReqs */
	unsigned op_mem_width;    /* bytes: 1 << (OpMemWidth - 1); 0 when the field is 0 */
	unsigned op_dc_miss_open_mem_reqs;
	uint16_t dc_miss_lat, tlb_refill_lat;
};

/* Decode every field; cpu gives the family/model (errata) and caps.
 * Returns 0 or PMS_EINVAL. */
int pms_ibs_op_fields_decode(const struct pms_ibs_op_regs *regs, const struct pms_ibs_cpu *cpu,
			     struct pms_ibs_op_fields *out);

/* The fetch MSRs as the driver reads them (PERF_SAMPLE_RAW order). */
struct pms_ibs_fetch_regs {
	uint64_t fetch_ctl;  /* IbsFetchCtl    0xC0011030 */
	uint64_t lin_ad;     /* IbsFetchLinAd  0xC0011031 */
	uint64_t phys_ad;    /* IbsFetchPhysAd 0xC0011032 */
	uint64_t extd_ctl;   /* IcIbsExtdCtl   0xC001103C, if has_extd_ctl */
	bool has_extd_ctl;
};

struct pms_ibs_fetch_fields {
	uint32_t max_cnt, cnt;   /* << 4, as the hardware counts */
	uint16_t lat;
	bool en, val, comp, ic_miss, phy_addr_valid;
	unsigned l1tlb_pgsz;     /* field value 0..3 */
	bool l1tlb_miss, l2tlb_miss, rand_en, l2_miss, l3_miss_only, oc_miss, l3_miss;
	uint16_t itlb_refill_lat; /* IcIbsExtdCtl[15:0] */
};

/* Parse an ibs_fetch PERF_SAMPLE_RAW payload (u32 caps, IbsFetchCtl,
 * IbsFetchLinAd, IbsFetchPhysAd, then IcIbsExtdCtl if caps has
 * FETCHCTLEXTD), host byte order.  0 or PMS_EPARSE. */
#define PMS_IBS_CAPS_FETCHCTLEXTD (1u << 9)
int pms_ibs_fetch_raw_parse(const void *raw, size_t size, struct pms_ibs_fetch_regs *regs,
			    uint32_t *caps);
int pms_ibs_fetch_fields_decode(const struct pms_ibs_fetch_regs *regs,
				struct pms_ibs_fetch_fields *out);

/* A recording's HEADER_CPUID string, parsed by this one function: perf's x86
 * form "GenuineIntel,6,85,4" (tools/perf/arch/x86/util/header.c get_cpuid:
 * vendor, family, model, stepping, decimal; stepping may be missing) or the
 * arm64 MIDR in hex, "0x00000000410fd0c0" (tools/perf/arch/arm64/util/
 * header.c).  The vendor is the text before the first comma; an AMD machine
 * (IBS) is vendor AuthenticAMD or HygonGenuine.  0, or PMS_EPARSE (with
 * vendor filled when the string has one) or PMS_EINVAL for NULL. */
struct pms_cpuid {
	char vendor[16];     /* "GenuineIntel", "AuthenticAMD", ...; "" for a MIDR */
	int family, model;   /* -1 when absent */
	int stepping;        /* -1 when absent */
	uint64_t midr;       /* arm64 */
	bool has_midr;
	bool amd;            /* AuthenticAMD or HygonGenuine */
};
int pms_cpuid_parse(const char *cpuid, struct pms_cpuid *out);

/* The CPU of a recording from its HEADER_CPUID string ("AuthenticAMD,25,17,1",
 * pms_cpuid_parse) and the caps word of a raw sample.  PMS_ENOENT for a
 * string that is not AMD's. */
int pms_ibs_cpu_from_cpuid(const char *cpuid, uint32_t caps, struct pms_ibs_cpu *out);

/* A raw IBS sample of a recording (`perf record -e ibs_op//` with
 * PERF_SAMPLE_RAW) as the memory sample the kernel would have produced had
 * DATA_SRC, WEIGHT, ADDR and PHYS_ADDR been requested: ibs_op (fetch false)
 * through pms_ibs_op_decode, its valid-bit rules included (ip only when
 * RipInvalid is clear; addr only with DcLinAddrValid, phys_addr with
 * DcPhyAddrValid; data_src and addr only for loads and stores; weight =
 * DcMissLat and ins_lat = TagToRetCtr only for loads that missed); ibs_fetch
 * (fetch true): ip = IbsFetchLinAd, phys_addr = IbsFetchPhysAd when
 * PhyAddrValid, no data source.  The caps word is the raw sample's own; cpu
 * gives family and model (errata).  Returns 0; PMS_ENOENT when the driver
 * drops the sample (Val clear; a zero fetch address on family 0x19 model <
 * 0x10, erratum 1197); PMS_EPARSE for a payload whose size does not match
 * its caps; PMS_EINVAL. */
struct pms_memsample;
int pms_ibs_raw_memsample(const void *raw, size_t size, bool fetch, const struct pms_ibs_cpu *cpu,
			  struct pms_memsample *out);

/* ---- Intel PEBS (arch/x86/events/intel/ds.c, core.c; v7.3-rc7) ----------- */

/* The tables, as the kernel builds them (patched copies of the default). */
enum pms_pebs_table {
	PMS_PEBS_TBL_DEFAULT,   /* pebs_data_source[] (SNB and later) */
	PMS_PEBS_TBL_NHM,       /* intel_pmu_pebs_data_source_nhm() */
	PMS_PEBS_TBL_SKL,       /* intel_pmu_pebs_data_source_skl(false) */
	PMS_PEBS_TBL_SKL_PMEM,  /* intel_pmu_pebs_data_source_skl(true) */
	PMS_PEBS_TBL_GRT,       /* intel_pmu_pebs_data_source_grt() */
	PMS_PEBS_TBL_CMT,       /* intel_pmu_pebs_data_source_cmt() */
	PMS_PEBS_TBL_LNC,       /* lnc_pebs_data_source[] */
	PMS_PEBS_TBL_PNC_L2HIT, /* pnc_pebs_l2_hit_data_source[] */
	PMS_PEBS_TBL_ARW_L2HIT, /* arw_pebs_l2_hit_data_source[] */
	PMS_PEBS_TBL_OMR,       /* omr_data_source[] before parse_omr_data_source() */
	PMS_PEBS_TBL_COUNT
};

/* One entry (0 past a table's end or for an unknown table). */
uint64_t pms_pebs_table_entry(enum pms_pebs_table t, unsigned idx);
const char *pms_pebs_table_name(enum pms_pebs_table t);

/* Core microarchitectures, each with its latency function and table. */
enum pms_pebs_uarch {
	PMS_PEBS_UARCH_NHM,        /* Nehalem/Westmere: load_latency_data, nhm, no TLB info */
	PMS_PEBS_UARCH_SNB,        /* SNB/IVB/HSW/BDW: load_latency_data, default */
	PMS_PEBS_UARCH_SKL,        /* client SKL..RKL: load_latency_data, skl(false) */
	PMS_PEBS_UARCH_SKX,        /* SKX/ICX: load_latency_data, skl(true) */
	PMS_PEBS_UARCH_GLC,        /* SPR/EMR/GNR: load_latency_data, skl(true), block info */
	PMS_PEBS_UARCH_GLC_HYBRID, /* ADL/RPL/MTL P-core: load_latency_data, skl(false), block info */
	PMS_PEBS_UARCH_GRT,        /* Gracemont: grt_latency_data, grt */
	PMS_PEBS_UARCH_CMT,        /* Crestmont/Skymont/Darkmont: cmt_latency_data, cmt */
	PMS_PEBS_UARCH_LNC,        /* Lion Cove/Cougar Cove P-core: lnc_latency_data, lnc */
	PMS_PEBS_UARCH_PNC,        /* Panther Cove: pnc_latency_data, pnc + OMR */
	PMS_PEBS_UARCH_ARW,        /* Arctic Wolf: arw_latency_data, arw + OMR */
	PMS_PEBS_UARCH_COUNT
};

/* Which kernel path produced the sample (get_data_src's selection). */
enum pms_pebs_kind {
	PMS_PEBS_LOAD_LATENCY,  /* ldlat event (PEBS_LDLAT or hybrid latency, load) */
	PMS_PEBS_STORE_LATENCY, /* store-latency event (PEBS_STLAT or hybrid latency, store) */
	PMS_PEBS_PRECISE_STORE, /* pre-HSW precise store: precise_store_data */
	PMS_PEBS_HSW_LOAD,      /* precise_datala_hsw, PEBS_LD_HSW */
	PMS_PEBS_HSW_STORE,     /* precise_datala_hsw, PEBS_ST_HSW */
	PMS_PEBS_HSW_NA,        /* precise_datala_hsw, PEBS_NA_HSW */
	PMS_PEBS_OTHER          /* no data-source path: PERF_MEM_NA */
};

/* data_src for one PEBS record's status/aux word ("dse").  Returns 0, or
 * PMS_EINVAL for an unknown uarch/kind or a NULL out. */
int pms_pebs_data_src(enum pms_pebs_uarch u, enum pms_pebs_kind kind, uint64_t status,
		      uint64_t *out);

const char *pms_pebs_uarch_name(enum pms_pebs_uarch u); /* "skl", "grt", ... */
/* Name -> uarch; PMS_ENOENT (message lists the names) when unknown. */
int pms_pebs_uarch_from_name(const char *name, enum pms_pebs_uarch *out);
/* The table a uarch's latency function indexes (for PNC/ARW: the L2-hit one). */
enum pms_pebs_table pms_pebs_uarch_table(enum pms_pebs_uarch u);

/* Intel family/model -> core uarch.  e_core selects the E-core of a hybrid
 * part (ignored, i.e. the only core type used, on non-hybrid parts).
 * Returns 0, or PMS_ENOENT when the model has no PEBS data-source support
 * known to pmuscope. */
int pms_pebs_uarch_for_cpu(unsigned family, unsigned model, bool e_core,
			   enum pms_pebs_uarch *out);

/* ---- Arm SPE (tools/perf/util/arm-spe.c, v7.3-rc7) ------------------------ */

/* SPE event numbers as bits of pms_spe_in.events (record->type). */
#define PMS_SPE_EV_L1D_ACCESS (1ULL << 2)
#define PMS_SPE_EV_L1D_REFILL (1ULL << 3)
#define PMS_SPE_EV_TLB_ACCESS (1ULL << 4)
#define PMS_SPE_EV_TLB_WALK (1ULL << 5)
#define PMS_SPE_EV_LLC_ACCESS (1ULL << 8)
#define PMS_SPE_EV_LLC_MISS (1ULL << 9)
#define PMS_SPE_EV_REMOTE_ACCESS (1ULL << 10)
#define PMS_SPE_EV_L2D_ACCESS (1ULL << 19)
#define PMS_SPE_EV_L2D_MISS (1ULL << 20)
#define PMS_SPE_EV_CACHE_DATA_MODIFIED (1ULL << 21)
#define PMS_SPE_EV_RECENTLY_FETCHED (1ULL << 22)
#define PMS_SPE_EV_DATA_SNOOPED (1ULL << 23)

/* Operation class flags. */
#define PMS_SPE_OP_MEM 0x1u   /* a memory op: LDST class or SIMD/SVE/SME/ASE ld/st */
#define PMS_SPE_OP_LD 0x2u
#define PMS_SPE_OP_ST 0x4u

enum pms_spe_decoder {
	PMS_SPE_DEC_NONE,      /* no source decoder: events only */
	PMS_SPE_DEC_COMMON,    /* Neoverse/Cortex */
	PMS_SPE_DEC_AMPEREONE, /* AmpereOne: remap to common codes */
	PMS_SPE_DEC_HIP12      /* HiSilicon HIP12 */
};

struct pms_spe_in {
	uint64_t midr;        /* MIDR_EL1 of the recording CPU */
	bool midr_valid;      /* false: no decoder (perf had no MIDR) */
	unsigned op;          /* PMS_SPE_OP_* */
	uint64_t events;      /* PMS_SPE_EV_* */
	uint16_t source;      /* Data Source packet payload */
	bool data_snooped_supported; /* metadata says DATA_SNOOPED is implemented */
};

/* Decoder for a MIDR (matched on implementer, architecture and part number;
 * any variant and revision). */
enum pms_spe_decoder pms_spe_decoder_for_midr(uint64_t midr);
/* data_src as perf synthesises it (arm_spe__synth_data_source). */
uint64_t pms_spe_data_src(const struct pms_spe_in *in);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
