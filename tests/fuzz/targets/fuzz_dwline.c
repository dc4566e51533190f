/* libFuzzer target for the .debug_line reader (src/symbols/dwline.c): the
 * section comes from binaries that perf.data files name, so it is untrusted.
 * Input: one byte (bit 0: 4-byte addresses, bit 1: big-endian), then the
 * section; the same bytes serve as .debug_line_str and .debug_str, so string
 * offsets land somewhere.  Whatever is accepted, lookups around every
 * sequence and at addresses taken from the input must return a defined
 * answer, with a NUL-terminated name for a found row, and read nothing past
 * the input (ASan). */
#include "pmuscope/error.h"
#include "symbols/dwline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void probe(struct pms_dwline *d, uint64_t a)
{
	const char *f = NULL;
	int line = 0;
	int r = pms_dwline_find(d, a, &f, &line);
	if (r == PMS_DWLINE_FOUND && (!f || strlen(f) > (size_t)1 << 30))
		abort();
	if (r != PMS_DWLINE_FOUND && r != PMS_DWLINE_NONE && r != PMS_DWLINE_ASK)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > (1u << 20))
		return 0;
	size_t n = size - 1;
	uint8_t *sec = malloc(n ? n : 1); /* exact size: ASan sees overreads */
	if (!sec)
		return 0;
	memcpy(sec, data + 1, n);
	struct pms_dwline_mem m = { sec, sec, sec, n, n, n, (data[0] & 1) ? 4 : 8, (data[0] & 2) != 0 };
	struct pms_dwline *d = NULL;
	int rc = pms_dwline_new(&m, &d);
	if (rc < 0 && pms_error_last()[0] == '\0')
		abort(); /* a refusal always says why */
	if (rc == 0) {
		size_t ns = pms_dwline_nseqs(d);
		for (size_t i = 0; i < ns && i < 4096; i++) {
			uint64_t lo, end;
			pms_dwline_seq(d, i, &lo, &end);
			if (end < lo)
				abort();
			probe(d, lo - 1);
			probe(d, lo);
			probe(d, lo + (end - lo) / 2);
			probe(d, end);
		}
		for (size_t i = 0; i + 8 <= n && i < 512; i += 8) {
			uint64_t a;
			memcpy(&a, sec + i, 8);
			probe(d, a);
		}
	}
	pms_dwline_free(d);
	free(sec);
	return 0;
}
