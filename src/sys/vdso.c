/* The running kernel's vDSO image, read from this process (sys.h): the
 * kernel maps the same image into every process, so this process's copy is
 * the one a live run's processes have.  perf takes its own copy the same
 * way (tools/perf/util/vdso.c: find_map over /proc/self/maps, then a copy
 * of the bytes). */
#include "pmuscope/sys.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

/* [start, end) of the "[vdso]" line of maps text; false when none. */
static bool vdso_range(const char *text, uint64_t *start, uint64_t *end)
{
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (n > 7 && !memcmp(l + n - 7, " [vdso]", 7) &&
		    sscanf(l, "%" SCNx64 "-%" SCNx64, start, end) == 2 && *end > *start)
			return true;
		l = nl ? nl + 1 : NULL;
	}
	return false;
}

int pms_sys_vdso_image(const struct pms_sys *sys, void **out, size_t *len)
{
	char *maps = NULL;
	uint64_t start = 0, end = 0;
	int rc;
	if (!sys || !out || !len)
		return pms_err(PMS_EINVAL, "pms_sys_vdso_image: NULL argument");
	*out = NULL;
	*len = 0;
	if (!pms_sys_is_live(sys))
		return pms_err(PMS_ENOTLIVE, "the vDSO image is this system's, not %s's",
			       pms_sys_root(sys));
	/* the ELF header the kernel's auxiliary vector points at starts the
	 * [vdso] mapping; its length is the mapping's */
	uintptr_t ehdr = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (!ehdr)
		return pms_err(PMS_ENOENT, "this process has no vDSO (no AT_SYSINFO_EHDR)");
	if ((rc = pms_sys_read_file(sys, "proc/self/maps", &maps, NULL)) < 0)
		return rc;
	bool found = vdso_range(maps, &start, &end);
	free(maps);
	if (!found || start != (uint64_t)ehdr || end - start > (64u << 20))
		return pms_err(PMS_ENOENT, "no [vdso] mapping at AT_SYSINFO_EHDR 0x%" PRIxPTR
			       " in proc/self/maps", ehdr);
	size_t n = (size_t)(end - start);
	void *b = malloc(n);
	if (!b)
		return pms_err(PMS_ENOMEM, "no memory for the vDSO image (%zu bytes)", n);
	memcpy(b, (const void *)ehdr, n);
	*out = b;
	*len = n;
	return 0;
}
