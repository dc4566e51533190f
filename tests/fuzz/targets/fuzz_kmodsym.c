/* libFuzzer target for the three readers of kmodsym.h: the input's first
 * byte chooses one.  'M': a proc/modules text (src/symbols/kmod.c
 * pms_kmods_parse), then lookups over the module area.  Else even: a
 * perfconfig text (src/symbols/perfconfig.c), whose buildid.dir, when
 * found, must be a NUL-ended string that fits the output.  Else odd: an
 * ELF relocatable image (src/symbols/kmodsym.c), whose symbols must each
 * be found at their own offset (a lookup never reads outside the
 * table). */
#include "pmuscope/error.h"
#include "symbols/kmodsym.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > (1u << 20))
		return 0;
	if (data[0] == 'M') {
		char *t = malloc(size);
		struct pms_kmods *m = NULL;
		if (!t || pms_kmods_new(NULL, &m) < 0) {
			free(t);
			pms_error_clear();
			return 0;
		}
		memcpy(t, data + 1, size - 1);
		t[size - 1] = '\0';
		if (pms_kmods_parse(m, t) == 0)
			for (uint64_t ip = 0xffffffffc0000000ull; ip < 0xffffffffc0000000ull + 4096;
			     ip += 512)
				(void)pms_kmods_at(m, ip);
		pms_kmods_free(m);
		free(t);
		pms_error_clear();
		return 0;
	}
	if (!(data[0] & 1)) {
		char out[32];
		memset(out, 'x', sizeof(out));
		int rc = pms_perfconfig_buildid_dir((const char *)data + 1, size - 1, out,
						    sizeof(out));
		if (rc == 1 && !memchr(out, 0, sizeof(out)))
			abort();
		if (rc < 0 && pms_error_last()[0] == '\0')
			abort(); /* a refusal always says why */
		pms_error_clear();
		return 0;
	}
	/* libelf reads the image in place: an aligned copy */
	void *img = malloc(size - 1 ? size - 1 : 1);
	if (!img)
		return 0;
	memcpy(img, data + 1, size - 1);
	struct pms_kmsyms *k = NULL;
	if (size > 1 && pms_kmsyms_from_image(img, size - 1, &k) == 0) {
		uint64_t pg = pms_kmsyms_pgoff(k);
		for (uint64_t o = 0; o < 4096; o += 7) {
			uint64_t off = 0;
			bool obj = false;
			const char *n = pms_kmsyms_find(k, pg + o, &off, &obj);
			if (n && off > pg + o)
				abort();
		}
	}
	pms_kmsyms_free(k);
	pms_error_clear();
	free(img);
	return 0;
}
