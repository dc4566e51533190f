/* Internal: the one loop over an Arm SPE AUX chunk, for a recorded file
 * (pms_spe_chunk_decode) and the live sampler (sample/sampler_aux.c). */
#ifndef PMS_DECODE_SPE_AUX_INT_H
#define PMS_DECODE_SPE_AUX_INT_H

#include "pmuscope/spe.h"

#include <stddef.h>

/* pms_spe_chunk_decode's walk over buf[0..len): every complete record and
 * its memory sample to fn, stats as that function counts them.  *used gets
 * the bytes of the records handed out: all but the record cut at the end
 * (len - used bytes, which a live reader carries into the next chunk), or,
 * when fn returned non-zero (returned here), up to and including the
 * record fn stopped at. */
int spe_chunk_walk(const void *buf, size_t len, const struct pms_spe_chunk_ctx *ctx,
		   struct pms_spe_chunk_stats *stats, pms_spe_record_fn fn, void *arg,
		   size_t *used);

#endif
