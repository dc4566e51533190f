/* Internal to the library: call-path collectors of one file's chunks
 * (issue 33's --jobs split, src/session/session_split.c), one per chunk,
 * merged in the chunks' order into the session's. */
#ifndef PMS_PATHPROF_MERGE_H
#define PMS_PATHPROF_MERGE_H

#include "pmuscope/pathprof.h"

/* An empty collector with p's options (and system). */
int pms_pathprof_twin(const struct pms_pathprof *p, struct pms_pathprof **out);
/* Everything src counted, added to dst as if src's samples had been added
 * to dst after dst's own: the paths first seen in src follow dst's, the
 * kept samples' paths (opts.kept_samples) follow dst's.  The two have the
 * same options.  src's paths move to dst (src is only to be freed after,
 * also on an error).  A DWARF unwind's statistics are the unwinder's and
 * are not merged: DWARF samples are not split (session_int.h). */
int pms_pathprof_merge(struct pms_pathprof *dst, struct pms_pathprof *src);

#endif
