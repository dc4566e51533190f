/* mem_objects.sh's workload: writes every page of a 4 MiB global (.bss)
 * and of 64 KiB of data that no symbol covers (a section of its own). */
#include <stddef.h>

__asm__(".pushsection pms_nosym,\"aw\",@progbits\n"
	".balign 4096\n"
	"pms_objnames_blob: .zero 65536\n"
	".popsection\n");
extern char __start_pms_nosym[]; /* the linker's, sizeless (STT_NOTYPE) */

char pms_objnames_table[4 << 20];

int main(void)
{
	volatile char *t = pms_objnames_table, *b = __start_pms_nosym;
	for (size_t i = 0; i < sizeof(pms_objnames_table); i += 4096)
		t[i] = 1;
	for (size_t i = 0; i < 65536; i += 4096)
		b[i] = 1;
	return 0;
}
