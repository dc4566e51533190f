/* Callchain arrays -> frames, and perf's --call-graph words. */
#include <stdlib.h>
#include <string.h>

#include "pmuscope/callpath.h"
#include "pmuscope/error.h"
#include "pmuscope/record.h"
#include "util/error.h"

/* include/uapi/linux/perf_event.h enum perf_callchain_context: the markers
 * are the u64 values -32 (HV), -128 (KERNEL), -512 (USER), -640
 * (USER_DEFERRED), -2048 (GUEST), -2176 (GUEST_KERNEL), -2560 (GUEST_USER),
 * all >= PERF_CONTEXT_MAX (-4095). */
#define CTX_USER ((uint64_t)-512)
#define CTX_USER_DEFERRED ((uint64_t)-640)
#define CTX_GUEST_USER ((uint64_t)-2560)
#define CTX_MAX ((uint64_t)-4095)

const char *pms_callgraph_name(enum pms_callgraph g)
{
	switch (g) {
	case PMS_CALLGRAPH_NONE: return "none";
	case PMS_CALLGRAPH_FP: return "fp";
	case PMS_CALLGRAPH_DWARF: return "dwarf";
	}
	return "?";
}

int pms_callgraph_parse(const char *arg, enum pms_callgraph *g, uint32_t *stack_size)
{
	if (!arg || !g)
		return pms_err(PMS_EINVAL, "call graph: NULL argument");
	if (!strcmp(arg, "fp")) {
		*g = PMS_CALLGRAPH_FP;
		return 0;
	}
	if (!strcmp(arg, "none")) {
		*g = PMS_CALLGRAPH_NONE;
		return 0;
	}
	if (!strncmp(arg, "dwarf", 5) && (arg[5] == 0 || arg[5] == ',')) {
		unsigned long long v = PMS_CALLGRAPH_DWARF_DEFAULT;
		if (arg[5] == ',') {
			char *end = NULL;
			v = strtoull(arg + 6, &end, 0);
			if (!arg[6] || *end || v == 0 || v > PMS_CALLGRAPH_DWARF_MAX)
				return pms_err(PMS_EINVAL,
					       "call graph '%s': the stack size must be 8..%u bytes "
					       "(the kernel copies at most that much)",
					       arg, PMS_CALLGRAPH_DWARF_MAX);
			v = (v + 7) & ~7ULL;
		}
		*g = PMS_CALLGRAPH_DWARF;
		if (stack_size)
			*stack_size = (uint32_t)v;
		return 0;
	}
	return pms_err(PMS_EINVAL,
		       "call graph '%s' is not known: use fp (frame pointers), dwarf or "
		       "dwarf,SIZE (lbr is not supported)",
		       arg);
}

int pms_callpath_from_chain(const void *chain, uint64_t nr, bool user, struct pms_frame *out,
			    size_t cap, size_t *n)
{
	size_t k = 0;
	bool dropped = false;
	uint32_t flags = PMS_FRAME_KERNEL; /* the kernel writes a marker first */

	if (n)
		*n = 0;
	if (!n || (nr && !chain) || (cap && !out))
		return pms_err(PMS_EINVAL, "callpath: NULL argument");
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t ip = pms_u64_at(chain, (size_t)i);
		if (ip >= CTX_MAX) {
			flags = (ip == CTX_USER || ip == CTX_USER_DEFERRED || ip == CTX_GUEST_USER)
					? 0
					: PMS_FRAME_KERNEL;
			continue;
		}
		if (!flags && !user)
			continue;
		if (k == cap) {
			dropped = true;
			break;
		}
		out[k].ip = ip;
		out[k].flags = flags;
		k++;
	}
	*n = k;
	return dropped ? 1 : 0;
}
