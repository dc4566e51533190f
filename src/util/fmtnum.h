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

static const char pms_hex2[] = /* "00" "01" .. "ff" */
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627"
	"28292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f"
	"505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f7071727374757677"
	"78797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7"
	"c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeef"
	"f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

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
	/* two digits a step, as pms_fmt_dec */
	while (v >= 0x100) {
		p -= 2;
		memcpy(p, pms_hex2 + 2 * (v & 0xff), 2);
		v >>= 8;
	}
	if (v >= 0x10) {
		p -= 2;
		memcpy(p, pms_hex2 + 2 * v, 2);
	} else {
		*--p = "0123456789abcdef"[v];
	}
	return (size_t)(end - p);
}

#endif
