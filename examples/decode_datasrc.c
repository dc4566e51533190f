/* Decode perf_mem_data_src values (as recorded by perf mem / perf c2c or by
 * pmuscope) into perf's text and into fields a program can branch on.
 *
 *   build/examples/decode_datasrc 0x1a29081042 0x103a49082042
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmuscope/datasrc.h"

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *end;
		uint64_t v = strtoull(argv[i], &end, 16);
		char text[128];
		struct pms_datasrc d;
		if (*end) {
			fprintf(stderr, "decode_datasrc: '%s' is not a hex value\n", argv[i]);
			return 1;
		}
		pms_datasrc_format(v, text, sizeof(text));
		pms_datasrc_unpack(v, &d);
		printf("%#" PRIx64 "  %s\n", v, text);
		printf("    level number %u, remote %u, hops %u, cache/memory: %s / %s\n", d.lvl_num,
		       d.remote, d.hops, pms_datasrc_stat_cache(v), pms_datasrc_stat_memory(v));
	}
	return 0;
}
