/* Arm SPE packet decoder, record assembler, memsample helper and encoder.
 *
 * The byte streams below are written by hand from the architected packet
 * layouts (the fact list at the top of src/decode/spe_packet.c), not produced
 * by the library's encoder, so the decoder is checked against the format and
 * not against itself; the encoder is then checked against the same bytes.
 * data_src expectations are the worked examples of kernel-abi-facts.md 4.
 *
 * With PMS_SPE_CORPUS_OUT=<dir> in the environment, the streams are also
 * written there as the fuzz seed corpus (tests/fuzz/corpus/spe/). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/memsample.h"
#include "pmuscope/spe.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define EVB(n) PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_##n)

#define MIDR_N1 0x410fd0c0u

static void corpus_write(const char *name, const uint8_t *buf, size_t len)
{
	const char *dir = getenv("PMS_SPE_CORPUS_OUT");
	char path[512];
	FILE *f;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(buf, 1, len, f);
	fclose(f);
}

/* ---- single packets, byte by byte ------------------------------------------ */

struct pkt_row {
	const char *name;
	uint8_t bytes[12];
	size_t len;
	int rc; /* expected return: size, or PMS_EPARSE */
	enum pms_spe_pkt_kind kind;
	unsigned index, payload_len;
	uint64_t payload;
	bool extended;
	size_t need; /* pkt.size on PMS_EPARSE */
};

static const struct pkt_row pkt_rows[] = {
	{ "pad run", { 0x00, 0x00, 0x00, 0x01 }, 4, 3, PMS_SPE_PKT_PAD, 0, 0, 0, false, 0 },
	{ "end", { 0x01, 0x00 }, 2, 1, PMS_SPE_PKT_END, 0, 0, 0, false, 0 },
	{ "timestamp", { 0x71, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11 }, 9, 9,
	  PMS_SPE_PKT_TIMESTAMP, 0, 8, 0x1122334455667788ULL, false, 0 },
	{ "address pc", { 0xb0, 0x40, 0x30, 0x20, 0x10, 0x00, 0x80, 0xff, 0xa0 }, 9, 9,
	  PMS_SPE_PKT_ADDRESS, 0, 8, 0xa0ff800010203040ULL, false, 0 },
	{ "address branch", { 0xb1, 1, 2, 3, 4, 5, 6, 7, 8 }, 9, 9, PMS_SPE_PKT_ADDRESS, 1, 8,
	  0x0807060504030201ULL, false, 0 },
	{ "address data va", { 0xb2, 0x34, 0x12, 0x00, 0xc0, 0xff, 0xff, 0x00, 0xf2 }, 9, 9,
	  PMS_SPE_PKT_ADDRESS, 2, 8, 0xf200ffffc0001234ULL, false, 0 },
	{ "address data pa", { 0xb3, 0x78, 0x56, 0x34, 0x12, 0x80, 0x00, 0x00, 0xc5 }, 9, 9,
	  PMS_SPE_PKT_ADDRESS, 3, 8, 0xc500008012345678ULL, false, 0 },
	{ "address prev branch", { 0xb4, 0, 0, 0, 0, 0, 0, 0, 0 }, 9, 9, PMS_SPE_PKT_ADDRESS, 4, 8,
	  0, false, 0 },
	{ "address extended idx 9", { 0x21, 0xb1, 1, 0, 0, 0, 0, 0, 0, 0 }, 10, 10,
	  PMS_SPE_PKT_ADDRESS, 9, 8, 1, true, 0 },
	{ "counter total", { 0x98, 0x34, 0x12 }, 3, 3, PMS_SPE_PKT_COUNTER, 0, 2, 0x1234, false, 0 },
	{ "counter issue", { 0x99, 0x0c, 0x00 }, 3, 3, PMS_SPE_PKT_COUNTER, 1, 2, 12, false, 0 },
	{ "counter xlat", { 0x9a, 0xff, 0xff }, 3, 3, PMS_SPE_PKT_COUNTER, 2, 2, 0xffff, false, 0 },
	{ "counter extended idx 26", { 0x23, 0x9a, 0x01, 0x02 }, 4, 4, PMS_SPE_PKT_COUNTER, 26, 2,
	  0x0201, true, 0 },
	{ "context el1", { 0x64, 0xd2, 0x04, 0x00, 0x00 }, 5, 5, PMS_SPE_PKT_CONTEXT, 0, 4, 1234,
	  false, 0 },
	{ "context el2", { 0x65, 0x78, 0x56, 0x34, 0x12 }, 5, 5, PMS_SPE_PKT_CONTEXT, 1, 4,
	  0x12345678, false, 0 },
	{ "op other", { 0x48, 0x01 }, 2, 2, PMS_SPE_PKT_OP_TYPE, 0, 1, 0x01, false, 0 },
	{ "op ldst", { 0x49, 0x1e }, 2, 2, PMS_SPE_PKT_OP_TYPE, 1, 1, 0x1e, false, 0 },
	{ "op branch", { 0x4a, 0x0b }, 2, 2, PMS_SPE_PKT_OP_TYPE, 2, 1, 0x0b, false, 0 },
	{ "events 1", { 0x42, 0x16 }, 2, 2, PMS_SPE_PKT_EVENTS, 0, 1, 0x16, false, 0 },
	{ "events 2", { 0x52, 0x1e, 0x03 }, 3, 3, PMS_SPE_PKT_EVENTS, 0, 2, 0x031e, false, 0 },
	{ "events 4", { 0x62, 0x02, 0x00, 0x80, 0x00 }, 5, 5, PMS_SPE_PKT_EVENTS, 0, 4, 0x800002,
	  false, 0 },
	{ "events 8", { 0x72, 0, 0, 0, 0, 0, 0, 0, 0x80 }, 9, 9, PMS_SPE_PKT_EVENTS, 0, 8,
	  0x8000000000000000ULL, false, 0 },
	{ "source 1", { 0x43, 0x0e }, 2, 2, PMS_SPE_PKT_DATA_SOURCE, 0, 1, 0x0e, false, 0 },
	{ "source 2", { 0x53, 0x0e, 0x01 }, 3, 3, PMS_SPE_PKT_DATA_SOURCE, 0, 2, 0x010e, false, 0 },
	{ "source 4", { 0x63, 1, 2, 3, 4 }, 5, 5, PMS_SPE_PKT_DATA_SOURCE, 0, 4, 0x04030201, false,
	  0 },
	{ "unknown 0x70 (8 bytes)", { 0x70, 1, 2, 3, 4, 5, 6, 7, 8 }, 9, 9, PMS_SPE_PKT_UNKNOWN, 0,
	  8, 0x0807060504030201ULL, false, 0 },
	{ "unknown 0x02 (1 byte)", { 0x02, 0xaa }, 2, 2, PMS_SPE_PKT_UNKNOWN, 0, 1, 0xaa, false, 0 },
	{ "unknown extended events", { 0x20, 0x52, 1, 2 }, 4, 4, PMS_SPE_PKT_UNKNOWN, 0, 2, 0x0201,
	  true, 0 },
	{ "cut address", { 0xb0, 1, 2 }, 3, PMS_EPARSE, PMS_SPE_PKT_ADDRESS, 0, 8, 0, false, 9 },
	{ "cut counter", { 0x98, 1 }, 2, PMS_EPARSE, PMS_SPE_PKT_COUNTER, 0, 2, 0, false, 3 },
	{ "cut extended prefix", { 0x20 }, 1, PMS_EPARSE, PMS_SPE_PKT_PAD, 0, 0, 0, true, 2 },
	{ "cut timestamp", { 0x71, 1, 2, 3, 4, 5, 6, 7 }, 8, PMS_EPARSE, PMS_SPE_PKT_TIMESTAMP, 0, 8,
	  0, false, 9 },
	{ "invalid prefix + pad", { 0x20, 0x00 }, 2, PMS_EPARSE, PMS_SPE_PKT_PAD, 0, 0, 0, true, 0 },
	{ "invalid prefix + prefix", { 0x22, 0x21, 0xb0 }, 3, PMS_EPARSE, PMS_SPE_PKT_PAD, 0, 0, 0,
	  true, 0 },
};

PMS_TEST(packets_by_hand)
{
	for (size_t i = 0; i < N(pkt_rows); i++) {
		const struct pkt_row *w = &pkt_rows[i];
		struct pms_spe_packet p;
		int rc = pms_spe_packet_next(w->bytes, w->len, &p);

		CHECK_MSG(rc == w->rc, "row '%s': rc %d != %d (%s)", w->name, rc, w->rc,
			  pms_error_last());
		CHECK_MSG(p.extended == w->extended, "row '%s': extended", w->name);
		if (w->rc < 0) {
			CHECK_MSG(p.size == w->need, "row '%s': need %zu != %zu", w->name, p.size,
				  w->need);
			CHECK_MSG(strstr(pms_error_last(), "offset 0") != NULL,
				  "row '%s': message '%s' names no offset", w->name,
				  pms_error_last());
			continue;
		}
		CHECK_MSG(p.size == (size_t)w->rc, "row '%s': size %zu", w->name, p.size);
		CHECK_MSG(p.kind == w->kind, "row '%s': kind %s != %s", w->name,
			  pms_spe_packet_kind_name(p.kind), pms_spe_packet_kind_name(w->kind));
		CHECK_MSG(p.index == w->index, "row '%s': index %u != %u", w->name, p.index,
			  w->index);
		CHECK_MSG(p.payload_len == w->payload_len, "row '%s': payload_len %u != %u",
			  w->name, p.payload_len, w->payload_len);
		CHECK_MSG(p.payload == w->payload, "row '%s': payload 0x%" PRIx64 " != 0x%" PRIx64,
			  w->name, p.payload, w->payload);
	}
	struct pms_spe_packet p;
	CHECK_EQ_INT(pms_spe_packet_next(NULL, 0, &p), 0);
	CHECK_EQ_INT(pms_spe_packet_next(NULL, 3, &p), PMS_EINVAL);
	CHECK_EQ_INT(pms_spe_packet_next((const uint8_t *)"\x01", 1, NULL), PMS_EINVAL);
	CHECK_EQ_STR(pms_spe_packet_kind_name(PMS_SPE_PKT_DATA_SOURCE), "DATA_SOURCE");
}

/* Every possible first header byte decodes to a packet, a cut or (only for
 * the extended prefix) an invalid header; never reads past len. */
PMS_TEST(every_header_byte)
{
	for (unsigned h = 0; h < 256; h++) {
		uint8_t buf[16] = { (uint8_t)h, 0xb0 };
		struct pms_spe_packet p;
		int rc = pms_spe_packet_next(buf, sizeof(buf), &p);
		CHECK_MSG(rc > 0 && rc <= 11, "header 0x%02x: rc %d", h, rc);
		if (rc > 0 && h != 0x00)
			CHECK_MSG((size_t)rc == (p.extended ? 2u : 1u) + p.payload_len,
				  "header 0x%02x: size %d", h, rc);
	}
}

/* ---- operation type payloads ----------------------------------------------- */

static const struct op_row {
	const char *name;
	uint8_t cls, raw;
	uint32_t flags;
	unsigned vec;
} op_rows[] = {
	{ "gp load", 1, 0x00, PMS_SPE_F_LOAD | PMS_SPE_F_GP_REG, 0 },
	{ "gp store", 1, 0x01, PMS_SPE_F_STORE | PMS_SPE_F_GP_REG, 0 },
	{ "atomic excl acqrel load", 1, 0x1e,
	  PMS_SPE_F_LOAD | PMS_SPE_F_GP_REG | PMS_SPE_F_ATOMIC | PMS_SPE_F_EXCLUSIVE |
		  PMS_SPE_F_ACQREL, 0 },
	{ "exclusive store", 1, 0x0b, PMS_SPE_F_STORE | PMS_SPE_F_GP_REG | PMS_SPE_F_EXCLUSIVE, 0 },
	{ "simd-fp store", 1, 0x05, PMS_SPE_F_STORE | PMS_SPE_F_SIMD_FP, 0 },
	{ "sve gather pred 256", 1, 0xbc,
	  PMS_SPE_F_LOAD | PMS_SPE_F_SVE | PMS_SPE_F_GATHER | PMS_SPE_F_PRED, 256 },
	{ "sve store 128", 1, 0x29, PMS_SPE_F_STORE | PMS_SPE_F_SVE, 128 },
	/* bit 1 set with bits [7:5] != 0: no subclass matches, only ST is known */
	{ "unmatched subclass", 1, 0x2b, PMS_SPE_F_STORE, 0 },
	{ "unspec reg", 1, 0x10, PMS_SPE_F_LOAD | PMS_SPE_F_UNSPEC_REG, 0 },
	{ "nv sysreg", 1, 0x31, PMS_SPE_F_STORE | PMS_SPE_F_NV_SYSREG, 0 },
	{ "mte tag", 1, 0x14, PMS_SPE_F_LOAD | PMS_SPE_F_MTE_TAG, 0 },
	{ "memcpy load", 1, 0x20, PMS_SPE_F_LOAD | PMS_SPE_F_MEMCPY, 0 },
	{ "memset", 1, 0x25, PMS_SPE_F_STORE | PMS_SPE_F_MEMSET, 0 },
	{ "gcs comm load", 1, 0x44, PMS_SPE_F_LOAD | PMS_SPE_F_GCS | PMS_SPE_F_GCS_COMM, 0 },
	{ "gcs store", 1, 0x41, PMS_SPE_F_STORE | PMS_SPE_F_GCS, 0 },
	{ "branch direct", 2, 0x00, PMS_SPE_F_BRANCH, 0 },
	{ "branch cond ind call", 2, 0x0b,
	  PMS_SPE_F_BRANCH | PMS_SPE_F_COND | PMS_SPE_F_INDIRECT | PMS_SPE_F_CALL, 0 },
	{ "branch ind return", 2, 0x12, PMS_SPE_F_BRANCH | PMS_SPE_F_INDIRECT | PMS_SPE_F_RETURN, 0 },
	{ "branch gcs cr3", 2, 0x1c, PMS_SPE_F_BRANCH | PMS_SPE_F_GCS | PMS_SPE_F_CR_OTHER, 0 },
	{ "other cond", 0, 0x01, PMS_SPE_F_COND, 0 },
	{ "other ase fp", 0, 0x06, PMS_SPE_F_ASE | PMS_SPE_F_FP, 0 },
	{ "other sve pred fp 128", 0, 0x2e, PMS_SPE_F_SVE | PMS_SPE_F_PRED | PMS_SPE_F_FP, 128 },
	{ "other sme ets 1024", 0, 0x9c, PMS_SPE_F_SME, 1024 },
	{ "class 3 reserved", 3, 0xff, 0, 0 },
};

PMS_TEST(op_type_payloads)
{
	for (size_t i = 0; i < N(op_rows); i++) {
		const struct op_row *w = &op_rows[i];
		uint8_t buf[3] = { (uint8_t)(0x48 | w->cls), w->raw, 0x01 };
		struct pms_spe_reader r;
		struct pms_spe_record rec;

		pms_spe_reader_init(&r, buf, sizeof(buf));
		CHECK_MSG(pms_spe_record_next(&r, &rec) == 1, "row '%s'", w->name);
		CHECK_MSG(rec.valid == PMS_SPE_R_OP, "row '%s': valid 0x%x", w->name, rec.valid);
		CHECK_MSG(rec.op_class == w->cls && rec.op_raw == w->raw, "row '%s'", w->name);
		CHECK_MSG(rec.op_flags == w->flags, "row '%s': flags 0x%x != 0x%x", w->name,
			  rec.op_flags, w->flags);
		CHECK_MSG(rec.vec_bits == w->vec, "row '%s': vec %u != %u", w->name, rec.vec_bits,
			  w->vec);
	}
}

/* ---- whole records ----------------------------------------------------------- */

/* A Neoverse N1 load that went to DRAM (source 0xe), written packet by packet
 * in the order the encoder uses, so encode(decode(bytes)) == bytes. */
static const uint8_t n1_load[] = {
	0x64, 0xd2, 0x04, 0x00, 0x00,                         /* CONTEXT EL1: 1234 */
	0xb0, 0x00, 0x10, 0x40, 0x00, 0xaa, 0xaa, 0x00, 0x80, /* PC 0xaaaa00401000, EL0, NS */
	0x49, 0x00,                                           /* OP: load, GP register */
	0x52, 0x1e, 0x03, /* EVENTS: RETIRED L1D_ACCESS L1D_REFILL TLB_ACCESS LLC_ACCESS LLC_MISS */
	0x99, 0x0c, 0x00,                                     /* issue latency 12 */
	0x98, 0xf4, 0x01,                                     /* total latency 500 */
	0xb2, 0x34, 0x12, 0x00, 0xc0, 0xff, 0xff, 0x00, 0x00, /* VA 0xffffc0001234 */
	0x9a, 0x1e, 0x00,                                     /* translation latency 30 */
	0xb3, 0x78, 0x56, 0x34, 0x12, 0x08, 0x00, 0x00, 0x80, /* PA 0x812345678, NS */
	0x43, 0x0e,                                           /* DATA SOURCE: DRAM */
	0x71, 0x9a, 0x78, 0x56, 0x34, 0x12, 0x00, 0x00, 0x00, /* TIMESTAMP 0x123456789a */
};

/* A store, END-terminated, no timestamp, kernel PC at EL1. */
static const uint8_t n1_store[] = {
	0xb0, 0x40, 0x30, 0x20, 0x10, 0x00, 0x80, 0xff, 0xa0, /* PC 0xffff800010203040 EL1 NS */
	0x49, 0x01,                                           /* OP: store, GP register */
	0x42, 0x06,                                           /* EVENTS: RETIRED L1D_ACCESS */
	0x98, 0x08, 0x00,                                     /* total latency 8 */
	0xb2, 0x00, 0x20, 0x00, 0x00, 0x80, 0xff, 0xff, 0x00, /* VA 0xffffff8000002000 */
	0x43, 0x00,                                           /* DATA SOURCE 0 */
	0x01,                                                 /* END */
};

/* A mispredicted conditional branch: no data address, no data source. */
static const uint8_t branch_rec[] = {
	0xb0, 0x08, 0x10, 0x40, 0x00, 0xaa, 0xaa, 0x00, 0x80, /* PC 0xaaaa00401008 EL0 NS */
	0x4a, 0x01,                                           /* OP: branch, conditional */
	0x42, 0x82,                                           /* EVENTS: RETIRED MISPRED */
	0x98, 0x03, 0x00,                                     /* total latency 3 */
	0xb1, 0x00, 0x20, 0x40, 0x00, 0xaa, 0xaa, 0x00, 0x80, /* target 0xaaaa00402000 */
	0x01,                                                 /* END */
};

static int one_record(const uint8_t *buf, size_t len, struct pms_spe_record *rec)
{
	struct pms_spe_reader r;
	pms_spe_reader_init(&r, buf, len);
	return pms_spe_record_next(&r, rec);
}

PMS_TEST(n1_load_record)
{
	struct pms_spe_record rec;
	struct pms_memsample ms;
	uint8_t again[sizeof(n1_load)];
	char text[128];

	corpus_write("n1_load", n1_load, sizeof(n1_load));
	CHECK_EQ_INT(one_record(n1_load, sizeof(n1_load), &rec), 1);
	CHECK_EQ_U64(rec.valid, PMS_SPE_R_CONTEXT | PMS_SPE_R_PC | PMS_SPE_R_OP | PMS_SPE_R_EVENTS |
					PMS_SPE_R_ISSUE_LAT | PMS_SPE_R_TOTAL_LAT | PMS_SPE_R_VADDR |
					PMS_SPE_R_XLAT_LAT | PMS_SPE_R_PADDR |
					PMS_SPE_R_DATA_SOURCE | PMS_SPE_R_TIMESTAMP);
	CHECK_EQ_INT(rec.offset, 0);
	CHECK_EQ_INT(rec.size, sizeof(n1_load));
	CHECK_EQ_INT(rec.context, 1234);
	CHECK_EQ_INT(rec.context_el, PMS_SPE_CTX_EL1);
	CHECK_EQ_U64(rec.pc, 0xaaaa00401000ULL);
	CHECK_EQ_INT(rec.pc_el, 0);
	CHECK(rec.pc_ns);
	CHECK_EQ_INT(rec.op_class, PMS_SPE_OPC_LDST);
	CHECK_EQ_U64(rec.op_flags, PMS_SPE_F_LOAD | PMS_SPE_F_GP_REG);
	CHECK_EQ_U64(rec.events, EVB(RETIRED) | EVB(L1D_ACCESS) | EVB(L1D_REFILL) |
					 EVB(TLB_ACCESS) | EVB(LLC_ACCESS) | EVB(LLC_MISS));
	CHECK_EQ_INT(rec.issue_lat, 12);
	CHECK_EQ_INT(rec.total_lat, 500);
	CHECK_EQ_INT(rec.xlat_lat, 30);
	CHECK_EQ_U64(rec.vaddr, 0xffffc0001234ULL);
	CHECK_EQ_INT(rec.vaddr_tag, 0);
	CHECK_EQ_U64(rec.paddr, 0x812345678ULL);
	CHECK(rec.paddr_ns);
	CHECK(!rec.paddr_ch);
	CHECK_EQ_U64(rec.data_source, 0xe);
	CHECK_EQ_INT(rec.data_source_len, 1);
	CHECK_EQ_U64(rec.timestamp, 0x123456789aULL);
	CHECK_EQ_INT(rec.unknown_packets, 0);

	CHECK_OK(pms_spe_record_memsample(&rec, MIDR_N1, false, &ms));
	CHECK_EQ_INT(ms.engine, PMS_ENG_SPE);
	CHECK_EQ_U64(ms.valid, PMS_MS_IP | PMS_MS_EXACT_IP | PMS_MS_ADDR | PMS_MS_PHYS |
				       PMS_MS_WEIGHT | PMS_MS_TIME | PMS_MS_DATA_SRC);
	CHECK_EQ_U64(ms.ip, 0xaaaa00401000ULL);
	CHECK_EQ_U64(ms.addr, 0xffffc0001234ULL);
	CHECK_EQ_U64(ms.phys_addr, 0x812345678ULL);
	CHECK_EQ_U64(ms.weight, 500);
	CHECK_EQ_U64(ms.time, 0x123456789aULL);
	/* kernel-abi-facts.md 4: "SPE common load src=0xe DRAM, TLB-access". */
	CHECK_EQ_U64(ms.data_src, 0x0000001a88101042ULL);
	pms_datasrc_format(ms.data_src, text, sizeof(text));
	CHECK_EQ_STR(text, "|OP LOAD|LVL RAM hit|SNP None|TLB Walker hit|LCK No|BLK  N/A");
	/* Variant and revision do not matter (r3p1). */
	CHECK_OK(pms_spe_record_memsample(&rec, 0x413fd0c1u, false, &ms));
	CHECK_EQ_U64(ms.data_src, 0x0000001a88101042ULL);

	/* Encoder: the exact bytes back. */
	CHECK_EQ_INT(pms_spe_encode_record(&rec, NULL, 0), sizeof(n1_load));
	memset(again, 0xcc, sizeof(again));
	CHECK_EQ_INT(pms_spe_encode_record(&rec, again, sizeof(again) - 1), sizeof(n1_load));
	CHECK_EQ_INT(again[0], 0xcc); /* too small: nothing written */
	CHECK_EQ_INT(pms_spe_encode_record(&rec, again, sizeof(again)), sizeof(n1_load));
	CHECK(memcmp(again, n1_load, sizeof(n1_load)) == 0);
}

PMS_TEST(store_record)
{
	struct pms_spe_record rec;
	struct pms_memsample ms;
	uint8_t again[sizeof(n1_store)];

	corpus_write("n1_store", n1_store, sizeof(n1_store));
	CHECK_EQ_INT(one_record(n1_store, sizeof(n1_store), &rec), 1);
	CHECK_EQ_U64(rec.valid, PMS_SPE_R_PC | PMS_SPE_R_OP | PMS_SPE_R_EVENTS | PMS_SPE_R_TOTAL_LAT |
					PMS_SPE_R_VADDR | PMS_SPE_R_DATA_SOURCE);
	CHECK_EQ_U64(rec.pc, 0xffff800010203040ULL);
	CHECK_EQ_INT(rec.pc_el, 1);
	CHECK(rec.pc_ns);
	CHECK_EQ_U64(rec.op_flags, PMS_SPE_F_STORE | PMS_SPE_F_GP_REG);
	CHECK_EQ_U64(rec.vaddr, 0xffffff8000002000ULL); /* bit 55 set: sign-extended */
	CHECK_EQ_INT(rec.total_lat, 8);

	CHECK_OK(pms_spe_record_memsample(&rec, MIDR_N1, false, &ms));
	CHECK_EQ_U64(ms.valid, PMS_MS_IP | PMS_MS_EXACT_IP | PMS_MS_KERNEL_IP | PMS_MS_ADDR |
				       PMS_MS_WEIGHT | PMS_MS_DATA_SRC);
	/* kernel-abi-facts.md 4: "SPE common store (no TLB event)". */
	CHECK_EQ_U64(ms.data_src, 0x0000001e00080024ULL);
	CHECK_EQ_U64(ms.time, 0);
	CHECK_EQ_U64(ms.phys_addr, 0);

	CHECK_EQ_INT(pms_spe_encode_record(&rec, again, sizeof(again)), sizeof(n1_store));
	CHECK(memcmp(again, n1_store, sizeof(n1_store)) == 0);
}

PMS_TEST(branch_record)
{
	struct pms_spe_record rec;
	struct pms_memsample ms;

	corpus_write("branch", branch_rec, sizeof(branch_rec));
	CHECK_EQ_INT(one_record(branch_rec, sizeof(branch_rec), &rec), 1);
	CHECK_EQ_U64(rec.valid, PMS_SPE_R_PC | PMS_SPE_R_OP | PMS_SPE_R_EVENTS |
					PMS_SPE_R_TOTAL_LAT | PMS_SPE_R_BRANCH_TARGET);
	CHECK_EQ_U64(rec.op_flags, PMS_SPE_F_BRANCH | PMS_SPE_F_COND);
	CHECK_EQ_U64(rec.events, EVB(RETIRED) | EVB(MISPRED));
	CHECK_EQ_U64(rec.branch_target, 0xaaaa00402000ULL);
	CHECK_OK(pms_spe_record_memsample(&rec, MIDR_N1, true, &ms));
	/* Not a memory op: no data_src, no address. */
	CHECK_EQ_U64(ms.valid, PMS_MS_IP | PMS_MS_EXACT_IP | PMS_MS_WEIGHT);
	CHECK_EQ_U64(ms.data_src, 0);
	CHECK_EQ_U64(ms.addr, 0);
	CHECK_EQ_U64(ms.ip, 0xaaaa00401008ULL);
	CHECK_EQ_U64(ms.weight, 3);
}

/* The other SPE examples of kernel-abi-facts.md 4, built with the encoder. */
PMS_TEST(facts_examples_via_encoder)
{
	static const struct {
		const char *name;
		uint8_t op_raw;
		uint64_t source, events;
		bool snoop_supported;
		uint64_t want;
	} rows[] = {
		{ "load src=0x9 peer core, TLB walk", 0x00, 0x9, EVB(TLB_ACCESS) | EVB(TLB_WALK),
		  false, 0x0000008490080442ULL },
		{ "load src=0xd remote", 0x00, 0xd, 0, false, 0x000000be00080022ULL },
		{ "load src=0xe DRAM, TLB access", 0x00, 0xe, EVB(TLB_ACCESS), false,
		  0x0000001a88101042ULL },
		{ "store", 0x01, 0x0, EVB(L1D_ACCESS), false, 0x0000001e00080024ULL },
	};
	for (size_t i = 0; i < N(rows); i++) {
		struct pms_spe_record in = { 0 }, out;
		struct pms_memsample ms;
		uint8_t buf[128];
		int n;

		in.valid = PMS_SPE_R_OP | PMS_SPE_R_EVENTS | PMS_SPE_R_DATA_SOURCE;
		in.op_class = PMS_SPE_OPC_LDST;
		in.op_raw = rows[i].op_raw;
		in.events = rows[i].events;
		in.data_source = rows[i].source;
		n = pms_spe_encode_record(&in, buf, sizeof(buf));
		CHECK_MSG(n > 0 && one_record(buf, (size_t)n, &out) == 1, "row '%s'", rows[i].name);
		CHECK_OK(pms_spe_record_memsample(&out, MIDR_N1, rows[i].snoop_supported, &ms));
		CHECK_MSG(ms.data_src == rows[i].want, "row '%s': 0x%016" PRIx64 " != 0x%016" PRIx64,
			  rows[i].name, ms.data_src, rows[i].want);
	}
}

/* A memory op without a Data Source packet: the vendor table is not applied
 * to a made-up code 0 (which would read as an L1D hit); the event fallback
 * gives the level instead. */
PMS_TEST(memsample_without_source_packet)
{
	static const uint8_t bytes[] = {
		0x49, 0x00,       /* load */
		0x52, 0x08, 0x02, /* L1D_REFILL, LLC_MISS */
		0x01,
	};
	struct pms_spe_record rec;
	struct pms_memsample ms;

	CHECK_EQ_INT(one_record(bytes, sizeof(bytes), &rec), 1);
	CHECK_OK(pms_spe_record_memsample(&rec, MIDR_N1, false, &ms));
	CHECK_EQ_U64(ms.valid, PMS_MS_DATA_SRC);
	CHECK(ms.data_src & PMS_MEM_S(LVL, MISS));
	CHECK_EQ_U64((ms.data_src >> PMS_MEM_LVLNUM_SHIFT) & 0xf, PMS_MEM_LVLNUM_L3);
	CHECK_EQ_INT(pms_spe_record_memsample(NULL, 0, false, &ms), PMS_EINVAL);
	CHECK_EQ_INT(pms_spe_record_memsample(&rec, 0, false, NULL), PMS_EINVAL);
}

/* ---- streams ------------------------------------------------------------------ */

PMS_TEST(padding_and_cut_stream)
{
	uint8_t buf[256];
	size_t n = 0, rec2_at, cut_at;
	struct pms_spe_reader r;
	struct pms_spe_record rec;

	memset(buf, 0, 3), n = 3; /* leading padding */
	memcpy(buf + n, n1_load, sizeof(n1_load)), n += sizeof(n1_load);
	memset(buf + n, 0, 2), n += 2;
	rec2_at = n;
	memcpy(buf + n, n1_store, sizeof(n1_store)), n += sizeof(n1_store);
	/* Cut the second record in the middle of its data VA packet (offset 16
	 * of n1_store is the 0xb2 header; keep 4 of its 9 bytes). */
	cut_at = rec2_at + 16 + 4;
	corpus_write("pad_cut", buf, cut_at);

	pms_spe_reader_init(&r, buf, cut_at);
	CHECK_EQ_INT(pms_spe_record_next(&r, &rec), 1);
	CHECK_EQ_INT(rec.offset, 3);
	CHECK_EQ_INT(rec.size, sizeof(n1_load));
	CHECK_EQ_U64(rec.pc, 0xaaaa00401000ULL);
	CHECK_EQ_INT(pms_spe_record_next(&r, &rec), 0);
	CHECK(r.cut);
	CHECK_EQ_INT(r.left, cut_at - rec2_at);
	CHECK_EQ_INT(r.pos, rec2_at);
	CHECK_EQ_INT(r.pad_bytes, 5);
	CHECK_EQ_INT(r.records, 1);
	CHECK_EQ_U64(rec.valid, 0);
	/* Asking again changes nothing. */
	CHECK_EQ_INT(pms_spe_record_next(&r, &rec), 0);
	CHECK_EQ_INT(r.left, cut_at - rec2_at);
	CHECK_EQ_INT(r.pad_bytes, 5);

	/* The caller keeps the left bytes and prepends them to the next chunk. */
	pms_spe_reader_init(&r, buf + rec2_at, n - rec2_at);
	CHECK_EQ_INT(pms_spe_record_next(&r, &rec), 1);
	CHECK_EQ_U64(rec.pc, 0xffff800010203040ULL);
	CHECK_EQ_INT(pms_spe_record_next(&r, &rec), 0);
	CHECK_EQ_INT(r.left, 0);
	CHECK(!r.cut);

	/* Complete packets but no END/TIMESTAMP: left, not cut. */
	pms_spe_reader_init(&r, n1_store, sizeof(n1_store) - 1);
	CHECK_EQ_INT(pms_spe_record_next(&r, &rec), 0);
	CHECK(!r.cut);
	CHECK_EQ_INT(r.left, sizeof(n1_store) - 1);

	/* Padding only. */
	pms_spe_reader_init(&r, buf, 3);
	CHECK_EQ_INT(pms_spe_record_next(&r, &rec), 0);
	CHECK_EQ_INT(r.left, 0);
	CHECK_EQ_INT(r.pad_bytes, 3);

	/* Every cut point of the two-record stream: never a wrong record. */
	for (size_t cut = 0; cut <= n; cut++) {
		int got = 0, rc;
		pms_spe_reader_init(&r, buf, cut);
		while ((rc = pms_spe_record_next(&r, &rec)) == 1)
			got++;
		CHECK_MSG(rc == 0, "cut %zu: rc %d", cut, rc);
		int want = cut >= n ? 2 : cut >= 3 + sizeof(n1_load) ? 1 : 0;
		CHECK_MSG(got == want, "cut %zu: %d records, want %d", cut, got, want);
		CHECK_MSG(r.pos + r.left == cut, "cut %zu: pos %zu + left %zu", cut, r.pos, r.left);
	}
}

/* AUX data arrives in chunks: split a stream at every point, carry the
 * reader's left bytes into the next chunk, and get every record exactly once. */
PMS_TEST(chunked_stream_carry)
{
	uint8_t buf[160], chunk[160];
	size_t n = 0;

	memcpy(buf + n, n1_load, sizeof(n1_load)), n += sizeof(n1_load);
	buf[n++] = 0x00;
	memcpy(buf + n, branch_rec, sizeof(branch_rec)), n += sizeof(branch_rec);
	memcpy(buf + n, n1_store, sizeof(n1_store)), n += sizeof(n1_store);
	for (size_t split = 0; split <= n; split++) {
		struct pms_spe_reader r;
		struct pms_spe_record rec;
		uint64_t pcs[4];
		int got = 0;
		size_t carry;

		pms_spe_reader_init(&r, buf, split);
		while (pms_spe_record_next(&r, &rec) == 1 && got < 4)
			pcs[got++] = rec.pc;
		carry = r.left;
		memcpy(chunk, buf + split - carry, carry);
		memcpy(chunk + carry, buf + split, n - split);
		pms_spe_reader_init(&r, chunk, carry + n - split);
		while (pms_spe_record_next(&r, &rec) == 1 && got < 4)
			pcs[got++] = rec.pc;
		CHECK_MSG(got == 3 && r.left == 0, "split %zu: %d records, %zu left", split, got,
			  r.left);
		if (got == 3)
			CHECK_MSG(pcs[0] == 0xaaaa00401000ULL && pcs[1] == 0xaaaa00401008ULL &&
					  pcs[2] == 0xffff800010203040ULL,
				  "split %zu: records out of order", split);
	}
}

PMS_TEST(unknown_packets_skipped)
{
	static const uint8_t bytes[] = {
		0xb0, 0x00, 0x10, 0x40, 0x00, 0xaa, 0xaa, 0x00, 0x80, /* PC */
		0x70, 1, 2, 3, 4, 5, 6, 7, 8,                         /* unknown, 8-byte payload */
		0x49, 0x00,                                           /* load */
		0x02, 0xee,                                           /* unknown, 1-byte payload */
		0x20, 0x52, 0xff, 0xff,                               /* extended events: unknown */
		0x21, 0xb5, 0, 0, 0, 0, 0, 0, 0, 0,                   /* address index 13: not kept */
		0x9b, 0x01, 0x00,                                     /* counter index 3: not kept */
		0x43, 0x0e,                                           /* DRAM */
		0x01,
	};
	struct pms_spe_reader r;
	struct pms_spe_record rec;

	corpus_write("unknown", bytes, sizeof(bytes));
	pms_spe_reader_init(&r, bytes, sizeof(bytes));
	CHECK_EQ_INT(pms_spe_record_next(&r, &rec), 1);
	CHECK_EQ_INT(rec.unknown_packets, 3);
	CHECK_EQ_INT(rec.other_packets, 2);
	CHECK_EQ_U64(rec.valid, PMS_SPE_R_PC | PMS_SPE_R_OP | PMS_SPE_R_DATA_SOURCE);
	CHECK_EQ_U64(rec.pc, 0xaaaa00401000ULL);
	CHECK_EQ_U64(rec.data_source, 0xe);
	CHECK_EQ_INT(rec.size, sizeof(bytes));
	CHECK_EQ_INT(r.unknown_packets, 3);
	CHECK_EQ_INT(pms_spe_record_next(&r, &rec), 0);
}

PMS_TEST(invalid_header_resumes)
{
	uint8_t buf[128];
	size_t n = 0;
	struct pms_spe_reader r;
	struct pms_spe_record rec;

	buf[n++] = 0x49, buf[n++] = 0x00; /* a record in progress ... */
	buf[n++] = 0x20, buf[n++] = 0x00; /* ... hit by an invalid extended header at 2 */
	memcpy(buf + n, n1_store, sizeof(n1_store)), n += sizeof(n1_store);
	corpus_write("invalid", buf, n);

	pms_spe_reader_init(&r, buf, n);
	CHECK_EQ_INT(pms_spe_record_next(&r, &rec), PMS_EPARSE);
	CHECK_MSG(strstr(pms_error_last(), "offset 2") != NULL, "message: %s", pms_error_last());
	CHECK_EQ_INT(r.bad_headers, 1);
	CHECK_EQ_INT(r.pos, 3);
	CHECK_EQ_INT(pms_spe_record_next(&r, &rec), 1);
	CHECK_EQ_INT(rec.offset, 4);
	CHECK_EQ_U64(rec.pc, 0xffff800010203040ULL);
	CHECK_EQ_INT(pms_spe_record_next(&r, &rec), 0);
	CHECK_EQ_INT(pms_spe_record_next(NULL, &rec), PMS_EINVAL);
	CHECK_EQ_INT(pms_spe_record_next(&r, NULL), PMS_EINVAL);
}

/* Deterministic pseudo-random records, encoded back to back with padding,
 * decoded and compared field by field. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t canon_va(uint64_t v)
{
	v &= 0x00ffffffffffffffULL;
	return (v & (1ULL << 55)) ? (v | 0xff00000000000000ULL) : v;
}

static void random_record(struct pms_spe_record *r)
{
	static const uint8_t ds_lens[] = { 1, 2, 4, 8 };

	memset(r, 0, sizeof(*r));
	r->valid = (uint32_t)rnd() & 0x1fff;
	if (r->valid & PMS_SPE_R_PC)
		r->pc = canon_va(rnd()), r->pc_el = rnd() & 3, r->pc_ns = rnd() & 1;
	if (r->valid & PMS_SPE_R_BRANCH_TARGET)
		r->branch_target = canon_va(rnd()), r->branch_el = rnd() & 3,
		r->branch_ns = rnd() & 1;
	if (r->valid & PMS_SPE_R_PREV_BRANCH)
		r->prev_branch = canon_va(rnd()), r->prev_branch_el = rnd() & 3,
		r->prev_branch_ns = rnd() & 1;
	if (r->valid & PMS_SPE_R_VADDR)
		r->vaddr = canon_va(rnd()), r->vaddr_tag = (uint8_t)rnd();
	if (r->valid & PMS_SPE_R_PADDR)
		r->paddr = rnd() & 0x000fffffffffffffULL, r->paddr_ns = rnd() & 1,
		r->paddr_ch = rnd() & 1, r->paddr_pat = rnd() & 0xf;
	if (r->valid & PMS_SPE_R_TOTAL_LAT)
		r->total_lat = (uint16_t)rnd();
	if (r->valid & PMS_SPE_R_ISSUE_LAT)
		r->issue_lat = (uint16_t)rnd();
	if (r->valid & PMS_SPE_R_XLAT_LAT)
		r->xlat_lat = (uint16_t)rnd();
	if (r->valid & PMS_SPE_R_EVENTS)
		r->events = rnd() >> (rnd() & 63);
	if (r->valid & PMS_SPE_R_OP)
		r->op_class = rnd() % 3, r->op_raw = (uint8_t)rnd();
	if (r->valid & PMS_SPE_R_DATA_SOURCE) {
		r->data_source_len = ds_lens[rnd() & 3];
		r->data_source = r->data_source_len == 8 ? rnd()
						       : rnd() & ((1ULL << (8 * r->data_source_len)) - 1);
	}
	if (r->valid & PMS_SPE_R_CONTEXT)
		r->context = (uint32_t)rnd(), r->context_el = rnd() & 1;
	if (r->valid & PMS_SPE_R_TIMESTAMP)
		r->timestamp = rnd();
}

static bool same_record(const struct pms_spe_record *a, const struct pms_spe_record *b)
{
	return a->valid == b->valid && a->pc == b->pc && a->pc_el == b->pc_el &&
	       a->pc_ns == b->pc_ns && a->branch_target == b->branch_target &&
	       a->branch_el == b->branch_el && a->branch_ns == b->branch_ns &&
	       a->prev_branch == b->prev_branch && a->prev_branch_el == b->prev_branch_el &&
	       a->prev_branch_ns == b->prev_branch_ns && a->vaddr == b->vaddr &&
	       a->vaddr_tag == b->vaddr_tag && a->paddr == b->paddr && a->paddr_ns == b->paddr_ns &&
	       a->paddr_ch == b->paddr_ch && a->paddr_pat == b->paddr_pat &&
	       a->total_lat == b->total_lat && a->issue_lat == b->issue_lat &&
	       a->xlat_lat == b->xlat_lat && a->events == b->events && a->op_class == b->op_class &&
	       a->op_raw == b->op_raw && a->data_source == b->data_source &&
	       a->data_source_len == b->data_source_len && a->context == b->context &&
	       a->context_el == b->context_el && a->timestamp == b->timestamp;
}

PMS_TEST(many_records_round_trip)
{
	enum { COUNT = 2000 };
	static struct pms_spe_record in[COUNT];
	static size_t at[COUNT];
	size_t cap = COUNT * 96, n = 0;
	uint8_t *buf = malloc(cap);
	struct pms_spe_reader r;
	struct pms_spe_record out;
	uint64_t pad = 0;
	int i = 0, rc, bad = 0;

	CHECK(buf != NULL);
	if (!buf)
		return;
	for (i = 0; i < COUNT; i++) {
		size_t p = rnd() % 4;
		memset(buf + n, 0, p), n += p, pad += p;
		random_record(&in[i]);
		at[i] = n;
		rc = pms_spe_encode_record(&in[i], buf + n, cap - n);
		CHECK(rc > 0 && rc <= 90);
		n += (size_t)rc;
	}
	corpus_write("many", buf, n < 4096 ? n : 4096);

	pms_spe_reader_init(&r, buf, n);
	for (i = 0; (rc = pms_spe_record_next(&r, &out)) == 1; i++) {
		if (i >= COUNT)
			break;
		if (!same_record(&in[i], &out) || out.offset != at[i]) {
			if (bad++ < 5)
				fprintf(stderr, "record %d at %zu differs (valid 0x%x vs 0x%x)\n", i,
					at[i], in[i].valid, out.valid);
		}
	}
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(i, COUNT);
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(r.records, COUNT);
	CHECK_EQ_INT(r.pad_bytes, pad);
	CHECK_EQ_INT(r.left, 0);
	CHECK_EQ_INT(r.unknown_packets, 0);
	free(buf);
}

/* A mispredicted branch's record (the MISPRED event, bit 7 as the Arm ARM's
 * event packet numbers it) gives its source, target, latency and flags;
 * a record without it gives nothing and leaves *out as it was. */
PMS_TEST(branch_miss_of_a_record)
{
	struct pms_spe_record r;
	struct pms_spe_branch b;
	memset(&r, 0, sizeof(r));
	r.valid = PMS_SPE_R_PC | PMS_SPE_R_BRANCH_TARGET | PMS_SPE_R_TOTAL_LAT | PMS_SPE_R_EVENTS |
		  PMS_SPE_R_OP;
	r.pc = 0x400100;
	r.branch_target = 0x400800;
	r.total_lat = 21;
	r.op_flags = PMS_SPE_F_BRANCH | PMS_SPE_F_COND;
	r.events = PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_MISPRED) | PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_NOT_TAKEN);
	memset(&b, 0xa5, sizeof(b));
	CHECK_EQ_INT(pms_spe_record_branch_miss(&r, &b), 1);
	CHECK_EQ_U64(b.from, 0x400100);
	CHECK_EQ_U64(b.to, 0x400800);
	CHECK_EQ_INT(b.latency, 21);
	CHECK(b.not_taken);
	CHECK_EQ_U64(b.op_flags, PMS_SPE_F_BRANCH | PMS_SPE_F_COND);
	/* a field whose valid bit is clear reads 0 */
	r.valid &= ~(uint32_t)(PMS_SPE_R_BRANCH_TARGET | PMS_SPE_R_TOTAL_LAT);
	r.events = PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_MISPRED);
	CHECK_EQ_INT(pms_spe_record_branch_miss(&r, &b), 1);
	CHECK_EQ_U64(b.to, 0);
	CHECK_EQ_INT(b.latency, 0);
	CHECK(!b.not_taken);
	/* predicted: no branch miss, *out untouched */
	r.events = PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_NOT_TAKEN);
	b.from = 77;
	CHECK_EQ_INT(pms_spe_record_branch_miss(&r, &b), 0);
	CHECK_EQ_U64(b.from, 77);
	r.valid &= ~(uint32_t)PMS_SPE_R_EVENTS; /* no events packet */
	r.events = PMS_SPE_EVENT_BIT(PMS_SPE_EVENT_MISPRED);
	CHECK_EQ_INT(pms_spe_record_branch_miss(&r, &b), 0);
	CHECK_EQ_INT(pms_spe_record_branch_miss(NULL, &b), 0);
}

PMS_TEST_MAIN()
