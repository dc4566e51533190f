/* Internal: what the session's other parts ask of a symtrack. */
#ifndef PMS_SESSION_SYMTRACK_INT_H
#define PMS_SESSION_SYMTRACK_INT_H

#include "pmuscope/symbols.h"
#include "pmuscope/symtrack.h"

/* Process pid's mappings at this point of the stream (the DWARF unwinder's
 * modules), NULL when none were seen; borrowed until the next record. */
const struct pms_maps *symtrack_maps(struct pms_symtrack *t, uint32_t pid);

/* The vDSO image (malloc'd, the caller's) for a recording's [vdso]
 * mappings: the running kernel's (pms_vdso_image_pick) when info lists
 * that image's build id for [vdso], or lists none and the file is of this
 * host and kernel (hostname, release, the kernel's build id where listed):
 * *fits true.  With no id listed the image is given with *fits false (a
 * mapping's MMAP2 build id may still match it).  PMS_ENOENT when the
 * listed id is another image's. */
struct pms_perfdata_info;
int symtrack_vdso_image(struct pms_sys *sys, const struct pms_perfdata_info *info, void **img,
			size_t *len, bool *fits);

#endif
