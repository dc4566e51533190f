/* libFuzzer target for the Arm SPE decoder.  Input: a raw SPE byte stream.
 * Checks: every packet_next result is sized within the buffer; the reader
 * always makes progress and accounts for every byte (pos + left == len at
 * the end); each record lies inside the stream; memsample never fails; and
 * decode(encode(record)) gives the same record back. */
#include "pmuscope/error.h"
#include "pmuscope/memsample.h"
#include "pmuscope/spe.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same(const struct pms_spe_record *a, const struct pms_spe_record *b)
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
	       a->op_raw == b->op_raw && a->op_flags == b->op_flags && a->vec_bits == b->vec_bits &&
	       a->data_source == b->data_source && a->data_source_len == b->data_source_len &&
	       a->context == b->context && a->context_el == b->context_el &&
	       a->timestamp == b->timestamp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pms_spe_packet p;
	struct pms_spe_reader r;
	struct pms_spe_record rec, back;
	struct pms_memsample ms;
	uint8_t enc[256];
	int rc;

	/* Packet by packet. */
	for (size_t off = 0; off < size;) {
		rc = pms_spe_packet_next(data + off, size - off, &p);
		if (rc < 0) {
			if (rc != PMS_EPARSE)
				abort();
			if (p.size != 0 && p.size <= size - off)
				abort(); /* a "cut" that was not cut */
			break;
		}
		if (rc == 0 || (size_t)rc > size - off || (size_t)rc != p.size)
			abort();
		off += (size_t)rc;
	}

	/* Record by record. */
	pms_spe_reader_init(&r, data, size);
	for (;;) {
		size_t before = r.pos;
		rc = pms_spe_record_next(&r, &rec);
		if (rc == 0)
			break;
		if (rc == PMS_EPARSE) {
			if (r.pos <= before)
				abort();
			continue;
		}
		if (rc != 1 || r.pos <= before || rec.offset < before ||
		    rec.offset + rec.size != r.pos || r.pos > size)
			abort();
		if (pms_spe_record_memsample(&rec, 0x410fd0c0u, rec.events & 1, &ms) != 0 ||
		    pms_spe_record_memsample(&rec, 0, false, &ms) != 0 || ms.engine != PMS_ENG_SPE)
			abort();
		rc = pms_spe_encode_record(&rec, enc, sizeof(enc));
		if (rc <= 0 || (size_t)rc > sizeof(enc))
			abort();
		struct pms_spe_reader r2;
		pms_spe_reader_init(&r2, enc, (size_t)rc);
		if (pms_spe_record_next(&r2, &back) != 1 || !same(&rec, &back) ||
		    back.size != (size_t)rc)
			abort();
	}
	if (r.pos + r.left != size)
		abort();
	return 0;
}
