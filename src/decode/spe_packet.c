/* Arm SPE packet stream decoder, record assembler and the inverse encoder.
 *
 * What each layout rests on.  The format is the architected one, Arm ARM
 * DDI 0487 chapter "The Statistical Profiling Extension" (sample record
 * specification); that PDF was not available while writing this, so the
 * facts below come from knowledge of the architecture, cross-checked against
 * the header constants of the Linux perf tool's independent implementation
 * (tools/perf/util/arm-spe-decoder/arm-spe-pkt-decoder.h, read for facts
 * only; no code taken) and kernel-abi-facts.md 4 (event numbers).
 *
 *  - Header byte classes.  0x00 PADDING and 0x01 END have no payload.  Every
 *    other header carries the payload size in bits [5:4]: sz, 1 << sz bytes.
 *    A first byte 0b001000xx is an extended-header prefix: bits [1:0] are
 *    index bits [4:3] of the packet named by the second byte (address and
 *    counter packets).  Unknown headers are skipped by that size rule; this
 *    assumes future packets keep sz in [5:4] (true of every packet listed
 *    here), and treats a prefix followed by PAD, END or another prefix as an
 *    invalid header.
 *  - TIMESTAMP 0x71 (0b01110001): 8-byte counter value; the last packet of a
 *    record when timestamps are on, so it ends a record like END does.
 *  - ADDRESS 0b10110iii (0xb0 | index), sz fixed 0b11: 8-byte payload.
 *    Index 0 PC (INS), 1 branch target, 2 data VA, 3 data PA, 4 previous
 *    branch target.  Bits [55:0] are the address.  PC/branch/prev-branch:
 *    bit 63 NS, bits [62:61] EL.  Data VA: bits [63:56] the top-byte tag.
 *    Data PA: bit 63 NS, bit 62 CH (tag checked), bits [59:56] PAT.
 *    Virtual addresses are rebuilt by sign-extending bit 55 (VA bit 55
 *    selects the TTBR0/TTBR1 half); perf instead patches the top byte from
 *    NS/EL, which agrees for canonical addresses.
 *  - COUNTER 0b10011iii (0x98 | index), sz fixed 0b01: 2-byte payload.
 *    Index 0 total latency, 1 issue latency, 2 translation latency.
 *  - CONTEXT 0b011001ii (0x64 | index), sz fixed 0b10: 4-byte CONTEXTIDR;
 *    index 0 CONTEXTIDR_EL1, 1 CONTEXTIDR_EL2.
 *  - OPERATION TYPE 0b010010cc (0x48 | class), sz 0b00: 1-byte payload.
 *    Class 0 other, 1 load/store/atomic, 2 branch/ERET.  Payload bits: see
 *    the tables and decode_op() below.
 *  - EVENTS 0b01ss0010 (0x42/0x52/0x62/0x72): 1/2/4/8-byte bitmask, bit n =
 *    event n (kernel-abi-facts.md 4 lists the numbers).
 *  - DATA SOURCE 0b01ss0011 (0x43/0x53/0x63/0x73): implementation-defined
 *    source code, decoded by pms_spe_data_src (datasrc.h).
 *  - Payloads are little-endian.
 *
 * Verified on synthetic streams only (tests/decode/test_spe.c), never on SPE
 * hardware. */
#include <stdint.h>
#include <string.h>

#include "pmuscope/datasrc.h"
#include "pmuscope/spe.h"
#include "util/error.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define HDR_PAD 0x00
#define HDR_END 0x01
#define HDR_TIMESTAMP 0x71
#define HDR_EXT_MASK 0xfc
#define HDR_EXT 0x20
#define ADDR56 0x00ffffffffffffffULL
#define PAD_RUN_MAX ((size_t)1 << 30)

/* Header classes of the packets that have a fixed pattern: header & mask ==
 * match.  ext_ok: the class may follow an extended-header prefix. */
static const struct hdr_class {
	uint8_t mask, match;
	enum pms_spe_pkt_kind kind;
	uint8_t index_mask; /* header bits that are the (low) index */
	bool ext_ok;
} hdr_classes[] = {
	{ 0xff, HDR_TIMESTAMP, PMS_SPE_PKT_TIMESTAMP, 0x0, false },
	{ 0xf8, 0xb0, PMS_SPE_PKT_ADDRESS, 0x7, true },
	{ 0xf8, 0x98, PMS_SPE_PKT_COUNTER, 0x7, true },
	{ 0xfc, 0x64, PMS_SPE_PKT_CONTEXT, 0x3, false },
	{ 0xfc, 0x48, PMS_SPE_PKT_OP_TYPE, 0x3, false },
	{ 0xcf, 0x42, PMS_SPE_PKT_EVENTS, 0x0, false },
	{ 0xcf, 0x43, PMS_SPE_PKT_DATA_SOURCE, 0x0, false },
};

static const char *const kind_names[] = {
	[PMS_SPE_PKT_PAD] = "PAD",
	[PMS_SPE_PKT_END] = "END",
	[PMS_SPE_PKT_TIMESTAMP] = "TIMESTAMP",
	[PMS_SPE_PKT_ADDRESS] = "ADDRESS",
	[PMS_SPE_PKT_COUNTER] = "COUNTER",
	[PMS_SPE_PKT_CONTEXT] = "CONTEXT",
	[PMS_SPE_PKT_OP_TYPE] = "OP_TYPE",
	[PMS_SPE_PKT_EVENTS] = "EVENTS",
	[PMS_SPE_PKT_DATA_SOURCE] = "DATA_SOURCE",
	[PMS_SPE_PKT_UNKNOWN] = "UNKNOWN",
};

const char *pms_spe_packet_kind_name(enum pms_spe_pkt_kind kind)
{
	if ((unsigned)kind < N(kind_names) && kind_names[kind])
		return kind_names[kind];
	return "?";
}

enum parse_status { P_OK, P_CUT, P_INVALID };

/* Decode the packet at buf[0] without touching the error state. */
static enum parse_status parse(const uint8_t *buf, size_t len, struct pms_spe_packet *p)
{
	uint8_t hdr = buf[0];
	size_t hlen = 1;
	unsigned ext_idx = 0;

	memset(p, 0, sizeof(*p));
	p->header = hdr;
	if (hdr == HDR_PAD) {
		/* Capped so the size always fits the int return. */
		size_t n = 1, max = len < PAD_RUN_MAX ? len : PAD_RUN_MAX;
		while (n < max && buf[n] == HDR_PAD)
			n++;
		p->kind = PMS_SPE_PKT_PAD;
		p->size = n;
		return P_OK;
	}
	if (hdr == HDR_END) {
		p->kind = PMS_SPE_PKT_END;
		p->size = 1;
		return P_OK;
	}
	if ((hdr & HDR_EXT_MASK) == HDR_EXT) {
		p->extended = true;
		if (len < 2) {
			p->size = 2; /* at least the second header byte */
			return P_CUT;
		}
		hdr = buf[1];
		p->header = hdr;
		if (hdr == HDR_PAD || hdr == HDR_END || (hdr & HDR_EXT_MASK) == HDR_EXT)
			return P_INVALID;
		ext_idx = buf[0] & 0x3;
		hlen = 2;
	}

	p->kind = PMS_SPE_PKT_UNKNOWN;
	for (size_t i = 0; i < N(hdr_classes); i++) {
		const struct hdr_class *c = &hdr_classes[i];
		if ((hdr & c->mask) != c->match || (p->extended && !c->ext_ok))
			continue;
		p->kind = c->kind;
		p->index = (ext_idx << 3) | (hdr & c->index_mask);
		break;
	}
	p->payload_len = 1u << ((hdr >> 4) & 0x3);
	p->size = hlen + p->payload_len;
	if (len < p->size)
		return P_CUT;
	for (unsigned i = 0; i < p->payload_len; i++)
		p->payload |= (uint64_t)buf[hlen + i] << (8 * i);
	return P_OK;
}

int pms_spe_packet_next(const uint8_t *buf, size_t len, struct pms_spe_packet *pkt)
{
	if (!pkt || (!buf && len))
		return pms_err(PMS_EINVAL, "pms_spe_packet_next: NULL %s", pkt ? "buffer" : "packet");
	if (len == 0) {
		memset(pkt, 0, sizeof(*pkt));
		return 0;
	}
	switch (parse(buf, len, pkt)) {
	case P_OK:
		return (int)pkt->size;
	case P_CUT:
		return pms_err(PMS_EPARSE,
			       "SPE packet at buffer offset 0: header 0x%02x (%s) needs %zu bytes, "
			       "only %zu given; pass the rest of the stream",
			       buf[0], pms_spe_packet_kind_name(pkt->kind), pkt->size, len);
	case P_INVALID:
		break;
	}
	pkt->size = 0;
	return pms_err(PMS_EPARSE,
		       "SPE packet at buffer offset 0: invalid header 0x%02x 0x%02x (the extended "
		       "prefix 0b001000xx cannot precede PAD, END or another prefix)",
		       buf[0], buf[1]);
}

/* ---- Operation type payload ------------------------------------------------ */

static inline uint32_t bit_flag(uint8_t v, unsigned bit, uint32_t flag)
{
	return (v >> bit) & 1u ? flag : 0;
}

/* Load/store subclasses without sub-fields: payload & 0xfe (bits [7:1];
 * bit 0 is ST) == match, except MEMSET whose whole byte is 0x25. */
static const struct {
	uint8_t mask, match;
	uint32_t flags;
} ldst_plain[] = {
	{ 0xfe, 0x00, PMS_SPE_F_GP_REG },
	{ 0xfe, 0x04, PMS_SPE_F_SIMD_FP },
	{ 0xfe, 0x10, PMS_SPE_F_UNSPEC_REG },
	{ 0xfe, 0x30, PMS_SPE_F_NV_SYSREG },
	{ 0xfe, 0x14, PMS_SPE_F_MTE_TAG },
	{ 0xfe, 0x20, PMS_SPE_F_MEMCPY },
	{ 0xff, 0x25, PMS_SPE_F_MEMSET },
};

static void decode_op(struct pms_spe_record *rec, unsigned cls, uint8_t v)
{
	uint32_t f = 0;
	unsigned vec = 0;

	switch (cls) {
	case PMS_SPE_OPC_OTHER:
		if ((v & 0x89) == 0x08) { /* SVE other: EVL [6:4], PRED 2, FP 1 */
			f = PMS_SPE_F_SVE | bit_flag(v, 2, PMS_SPE_F_PRED) | bit_flag(v, 1, PMS_SPE_F_FP);
			vec = 32u << ((v >> 4) & 0x7);
		} else if ((v & 0x89) == 0x88) { /* SME other: ETS [6:4]:[2], FP 1 */
			f = PMS_SPE_F_SME | bit_flag(v, 1, PMS_SPE_F_FP);
			vec = 128u << ((((v >> 4) & 0x7u) << 1) | ((v >> 2) & 0x1u));
		} else if ((v & 0xf8) == 0) { /* other: ASE 2, FP 1, COND 0 */
			f = bit_flag(v, 2, PMS_SPE_F_ASE) | bit_flag(v, 1, PMS_SPE_F_FP) |
			    bit_flag(v, 0, PMS_SPE_F_COND);
		}
		break;
	case PMS_SPE_OPC_LDST:
		f = (v & 0x1) ? PMS_SPE_F_STORE : PMS_SPE_F_LOAD;
		if ((v & 0xe2) == 0x02) { /* GP extended: AR 4, EXCL 3, AT 2 */
			f |= PMS_SPE_F_GP_REG | bit_flag(v, 4, PMS_SPE_F_ACQREL) |
			     bit_flag(v, 3, PMS_SPE_F_EXCLUSIVE) | bit_flag(v, 2, PMS_SPE_F_ATOMIC);
		} else if ((v & 0x0a) == 0x08) { /* SVE/SME reg: SG 7, EVL [6:4], PRED 2 */
			f |= PMS_SPE_F_SVE | bit_flag(v, 7, PMS_SPE_F_GATHER) |
			     bit_flag(v, 2, PMS_SPE_F_PRED);
			vec = 32u << ((v >> 4) & 0x7);
		} else if ((v & 0xfa) == 0x40) { /* GCS: COMM 2 */
			f |= PMS_SPE_F_GCS | bit_flag(v, 2, PMS_SPE_F_GCS_COMM);
		} else {
			for (size_t i = 0; i < N(ldst_plain); i++) {
				if ((v & ldst_plain[i].mask) == ldst_plain[i].match) {
					f |= ldst_plain[i].flags;
					break;
				}
			}
		}
		break;
	case PMS_SPE_OPC_BRANCH: { /* CR [4:3], GCS 2, INDIRECT 1, COND 0 */
		static const uint32_t cr[4] = { 0, PMS_SPE_F_CALL, PMS_SPE_F_RETURN,
						PMS_SPE_F_CR_OTHER };
		f = PMS_SPE_F_BRANCH | cr[(v >> 3) & 0x3] | bit_flag(v, 2, PMS_SPE_F_GCS) |
		    bit_flag(v, 1, PMS_SPE_F_INDIRECT) | bit_flag(v, 0, PMS_SPE_F_COND);
		break;
	}
	default: /* class 3: reserved, keep the raw byte only */
		break;
	}
	rec->op_flags = f;
	rec->vec_bits = vec;
}

/* ---- Record assembly ------------------------------------------------------- */

static uint64_t sext55(uint64_t v)
{
	v &= ADDR56;
	return (v & (1ULL << 55)) ? (v | ~ADDR56) : v;
}

/* Fold one non-padding packet into the record. */
static void apply(struct pms_spe_record *rec, const struct pms_spe_packet *p)
{
	uint64_t v = p->payload;
	uint8_t el = (uint8_t)((v >> 61) & 0x3);
	bool ns = (v >> 63) & 1;

	switch (p->kind) {
	case PMS_SPE_PKT_ADDRESS:
		switch (p->index) {
		case PMS_SPE_ADDR_PC:
			rec->pc = sext55(v), rec->pc_el = el, rec->pc_ns = ns;
			rec->valid |= PMS_SPE_R_PC;
			return;
		case PMS_SPE_ADDR_BRANCH_TARGET:
			rec->branch_target = sext55(v), rec->branch_el = el, rec->branch_ns = ns;
			rec->valid |= PMS_SPE_R_BRANCH_TARGET;
			return;
		case PMS_SPE_ADDR_PREV_BRANCH:
			rec->prev_branch = sext55(v), rec->prev_branch_el = el, rec->prev_branch_ns = ns;
			rec->valid |= PMS_SPE_R_PREV_BRANCH;
			return;
		case PMS_SPE_ADDR_DATA_VIRT:
			rec->vaddr = sext55(v);
			rec->vaddr_tag = (uint8_t)(v >> 56);
			rec->valid |= PMS_SPE_R_VADDR;
			return;
		case PMS_SPE_ADDR_DATA_PHYS:
			rec->paddr = v & ADDR56;
			rec->paddr_ns = ns;
			rec->paddr_ch = (v >> 62) & 1;
			rec->paddr_pat = (uint8_t)((v >> 56) & 0xf);
			rec->valid |= PMS_SPE_R_PADDR;
			return;
		default:
			rec->other_packets++;
			return;
		}
	case PMS_SPE_PKT_COUNTER:
		switch (p->index) {
		case PMS_SPE_CNT_TOTAL_LAT:
			rec->total_lat = (uint16_t)v, rec->valid |= PMS_SPE_R_TOTAL_LAT;
			return;
		case PMS_SPE_CNT_ISSUE_LAT:
			rec->issue_lat = (uint16_t)v, rec->valid |= PMS_SPE_R_ISSUE_LAT;
			return;
		case PMS_SPE_CNT_XLAT_LAT:
			rec->xlat_lat = (uint16_t)v, rec->valid |= PMS_SPE_R_XLAT_LAT;
			return;
		default:
			rec->other_packets++;
			return;
		}
	case PMS_SPE_PKT_CONTEXT:
		rec->context = (uint32_t)v;
		rec->context_el = (uint8_t)p->index;
		rec->valid |= PMS_SPE_R_CONTEXT;
		return;
	case PMS_SPE_PKT_OP_TYPE:
		rec->op_class = (uint8_t)p->index;
		rec->op_raw = (uint8_t)v;
		decode_op(rec, p->index, (uint8_t)v);
		rec->valid |= PMS_SPE_R_OP;
		return;
	case PMS_SPE_PKT_EVENTS:
		rec->events = v;
		rec->valid |= PMS_SPE_R_EVENTS;
		return;
	case PMS_SPE_PKT_DATA_SOURCE:
		rec->data_source = v;
		rec->data_source_len = (uint8_t)p->payload_len;
		rec->valid |= PMS_SPE_R_DATA_SOURCE;
		return;
	case PMS_SPE_PKT_TIMESTAMP:
		rec->timestamp = v;
		rec->valid |= PMS_SPE_R_TIMESTAMP;
		return;
	case PMS_SPE_PKT_UNKNOWN:
		rec->unknown_packets++;
		return;
	case PMS_SPE_PKT_PAD:
	case PMS_SPE_PKT_END:
		return;
	}
}

void pms_spe_reader_init(struct pms_spe_reader *r, const void *buf, size_t len)
{
	if (!r)
		return;
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->len = buf ? len : 0;
}

int pms_spe_record_next(struct pms_spe_reader *r, struct pms_spe_record *rec)
{
	struct pms_spe_packet p;
	size_t pos, start = 0;
	bool started = false;
	uint64_t lead_pad = 0, pad = 0;

	if (!r || !rec)
		return pms_err(PMS_EINVAL, "pms_spe_record_next: NULL %s", r ? "record" : "reader");
	memset(rec, 0, sizeof(*rec));
	r->left = 0;
	r->cut = false;
	if (!r->buf || r->pos > r->len)
		return 0;

	for (pos = r->pos; pos < r->len; pos += p.size) {
		enum parse_status st = parse(r->buf + pos, r->len - pos, &p);
		if (st == P_CUT) {
			r->cut = true;
			break;
		}
		if (st == P_INVALID) {
			r->pad_bytes += pad;
			r->unknown_packets += rec->unknown_packets;
			r->bad_headers++;
			r->pos = pos + 1;
			memset(rec, 0, sizeof(*rec));
			return pms_err(PMS_EPARSE,
				       "SPE stream offset %zu: invalid header 0x%02x 0x%02x (the "
				       "extended prefix cannot precede PAD, END or another prefix); "
				       "record from offset %zu dropped, resuming at offset %zu",
				       pos, r->buf[pos], r->buf[pos + 1], started ? start : pos,
				       pos + 1);
		}
		if (p.kind == PMS_SPE_PKT_PAD) {
			pad += p.size;
			if (!started)
				lead_pad += p.size;
			continue;
		}
		if (!started) {
			started = true;
			start = pos;
		}
		apply(rec, &p);
		if (p.kind == PMS_SPE_PKT_END || p.kind == PMS_SPE_PKT_TIMESTAMP) {
			rec->offset = start;
			rec->size = pos + p.size - start;
			r->pos = pos + p.size;
			r->records++;
			r->pad_bytes += pad;
			r->unknown_packets += rec->unknown_packets;
			return 1;
		}
	}
	/* End of the bytes: keep the unfinished record (and a cut packet) for the
	 * caller; leading padding is consumed. */
	r->pad_bytes += lead_pad;
	r->pos = started ? start : pos;
	if (r->pos > r->len)
		r->pos = r->len;
	r->left = r->len - r->pos;
	memset(rec, 0, sizeof(*rec));
	return 0;
}

/* ---- Memory sample ---------------------------------------------------------- */

int pms_spe_record_memsample(const struct pms_spe_record *r, uint32_t midr,
			     bool snoop_event_supported, struct pms_memsample *out)
{
	if (!r || !out)
		return pms_err(PMS_EINVAL, "pms_spe_record_memsample: NULL %s",
			       r ? "output" : "record");
	memset(out, 0, sizeof(*out));
	out->engine = PMS_ENG_SPE;
	if (r->valid & PMS_SPE_R_PC) {
		out->ip = r->pc;
		/* The PC packet is the sampled instruction itself: no skid. */
		out->valid |= PMS_MS_IP | PMS_MS_EXACT_IP;
		if (r->pc_el != 0)
			out->valid |= PMS_MS_KERNEL_IP;
	}
	if (r->valid & PMS_SPE_R_VADDR) {
		out->addr = r->vaddr;
		out->valid |= PMS_MS_ADDR;
	}
	if (r->valid & PMS_SPE_R_PADDR) {
		out->phys_addr = r->paddr;
		out->valid |= PMS_MS_PHYS;
	}
	if (r->valid & PMS_SPE_R_TOTAL_LAT) {
		out->weight = r->total_lat;
		out->valid |= PMS_MS_WEIGHT;
	}
	if (r->valid & PMS_SPE_R_TIMESTAMP) {
		out->time = r->timestamp;
		out->valid |= PMS_MS_TIME;
	}
	if ((r->valid & PMS_SPE_R_OP) && r->op_class == PMS_SPE_OPC_LDST) {
		struct pms_spe_in in = {
			.midr = midr,
			.midr_valid = midr != 0 && (r->valid & PMS_SPE_R_DATA_SOURCE),
			.op = PMS_SPE_OP_MEM |
			      ((r->op_flags & PMS_SPE_F_STORE) ? PMS_SPE_OP_ST : PMS_SPE_OP_LD),
			.events = (r->valid & PMS_SPE_R_EVENTS) ? r->events : 0,
			.source = (uint16_t)r->data_source,
			.data_snooped_supported = snoop_event_supported,
		};
		out->data_src = pms_spe_data_src(&in);
		out->valid |= PMS_MS_DATA_SRC;
	}
	return 0;
}

/* ---- Encoder ---------------------------------------------------------------- */

struct out {
	uint8_t *buf;
	size_t size, n;
};

static void put(struct out *o, uint8_t hdr_ext, bool ext, uint8_t hdr, uint64_t v, unsigned len)
{
	uint8_t tmp[11];
	size_t k = 0;

	if (ext)
		tmp[k++] = hdr_ext;
	tmp[k++] = hdr;
	for (unsigned i = 0; i < len; i++)
		tmp[k++] = (uint8_t)(v >> (8 * i));
	if (o->buf && o->n + k <= o->size)
		memcpy(o->buf + o->n, tmp, k);
	o->n += k;
}

/* Short or extended header for an ADDRESS/COUNTER packet of this index. */
static void put_indexed(struct out *o, uint8_t base, unsigned index, uint64_t v, unsigned len)
{
	bool ext = index > 7;
	put(o, (uint8_t)(HDR_EXT | ((index >> 3) & 0x3)), ext, (uint8_t)(base | (index & 0x7)), v,
	    len);
}

static unsigned size_code(uint64_t v, unsigned want)
{
	unsigned sz;

	for (sz = 0; sz <= 3; sz++)
		if ((1u << sz) == want)
			return sz;
	for (sz = 0; sz < 3 && (v >> (8u << sz)) != 0; sz++)
		;
	return sz;
}

static uint64_t pc_payload(uint64_t a, uint8_t el, bool ns)
{
	return (a & ADDR56) | ((uint64_t)(el & 0x3) << 61) | ((uint64_t)ns << 63);
}

static void emit(const struct pms_spe_record *rec, struct out *o)
{
	uint32_t v = rec->valid;
	unsigned sz;

	if (v & PMS_SPE_R_CONTEXT)
		put(o, 0, false, (uint8_t)(0x64 | (rec->context_el & 0x3)), rec->context, 4);
	if (v & PMS_SPE_R_PC)
		put_indexed(o, 0xb0, PMS_SPE_ADDR_PC, pc_payload(rec->pc, rec->pc_el, rec->pc_ns), 8);
	if (v & PMS_SPE_R_OP)
		put(o, 0, false, (uint8_t)(0x48 | (rec->op_class & 0x3)), rec->op_raw, 1);
	if (v & PMS_SPE_R_EVENTS) {
		sz = size_code(rec->events, 0);
		put(o, 0, false, (uint8_t)(0x42 | (sz << 4)), rec->events, 1u << sz);
	}
	if (v & PMS_SPE_R_ISSUE_LAT)
		put_indexed(o, 0x98, PMS_SPE_CNT_ISSUE_LAT, rec->issue_lat, 2);
	if (v & PMS_SPE_R_TOTAL_LAT)
		put_indexed(o, 0x98, PMS_SPE_CNT_TOTAL_LAT, rec->total_lat, 2);
	if (v & PMS_SPE_R_VADDR)
		put_indexed(o, 0xb0, PMS_SPE_ADDR_DATA_VIRT,
			    (rec->vaddr & ADDR56) | ((uint64_t)rec->vaddr_tag << 56), 8);
	if (v & PMS_SPE_R_XLAT_LAT)
		put_indexed(o, 0x98, PMS_SPE_CNT_XLAT_LAT, rec->xlat_lat, 2);
	if (v & PMS_SPE_R_PADDR)
		put_indexed(o, 0xb0, PMS_SPE_ADDR_DATA_PHYS,
			    (rec->paddr & ADDR56) | ((uint64_t)(rec->paddr_pat & 0xf) << 56) |
				    ((uint64_t)rec->paddr_ch << 62) | ((uint64_t)rec->paddr_ns << 63),
			    8);
	if (v & PMS_SPE_R_DATA_SOURCE) {
		sz = size_code(rec->data_source, rec->data_source_len ? rec->data_source_len : 2);
		put(o, 0, false, (uint8_t)(0x43 | (sz << 4)), rec->data_source, 1u << sz);
	}
	if (v & PMS_SPE_R_BRANCH_TARGET)
		put_indexed(o, 0xb0, PMS_SPE_ADDR_BRANCH_TARGET,
			    pc_payload(rec->branch_target, rec->branch_el, rec->branch_ns), 8);
	if (v & PMS_SPE_R_PREV_BRANCH)
		put_indexed(o, 0xb0, PMS_SPE_ADDR_PREV_BRANCH,
			    pc_payload(rec->prev_branch, rec->prev_branch_el, rec->prev_branch_ns), 8);
	if (v & PMS_SPE_R_TIMESTAMP)
		put(o, 0, false, HDR_TIMESTAMP, rec->timestamp, 8);
	else
		put(o, 0, false, HDR_END, 0, 0);
}

int pms_spe_encode_record(const struct pms_spe_record *rec, uint8_t *buf, size_t size)
{
	struct out o = { NULL, 0, 0 };

	if (!rec)
		return pms_err(PMS_EINVAL, "pms_spe_encode_record: NULL record");
	emit(rec, &o); /* measure */
	if (buf && size >= o.n) {
		struct out w = { buf, size, 0 };
		emit(rec, &w);
	}
	return (int)o.n;
}
