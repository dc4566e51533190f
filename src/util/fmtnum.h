/* Internal: unsigned numbers written backwards into a buffer, in base 10
 * and 16, for the writers of millions of lines (session/script_text.c,
 * perf script's text; render/script_json.c, its JSON rows). */
#ifndef PMS_UTIL_FMTNUM_H
#define PMS_UTIL_FMTNUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static const char pms_dig2[] = /* "00" "01" .. "99" */
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* v in base 10 (16) ending at end; the number of digits. */
static inline size_t pms_fmt_dec(char *end, uint64_t v)
{
	char *p = end;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		memcpy(p, pms_dig2 + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pms_dig2 + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return (size_t)(end - p);
}

static inline size_t pms_fmt_hex(char *end, uint64_t v)
{
	char *p = end;
	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	return (size_t)(end - p);
}

#endif
