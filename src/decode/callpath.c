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

/* include/uapi/linux/perf_event.h enum perf_branch_sample_type_shift */
static const struct {
	const char *name;
	unsigned bit;
} branch_words[] = {
	{ "u", 0 },         { "k", 1 },         { "hv", 2 },       { "any", 3 },
	{ "any_call", 4 },  { "any_ret", 5 },   { "ind_call", 6 }, { "abort_tx", 7 },
	{ "in_tx", 8 },     { "no_tx", 9 },     { "cond", 10 },    { "stack", 11 },
	{ "ind_jmp", 12 },  { "call", 13 },     { "no_flags", 14 }, { "no_cycles", 15 },
	{ "save_type", 16 }, { "priv", 18 },
};

int pms_branch_filter_parse(const char *text, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = text;
	if (!text || !out)
		return pms_err(PMS_EINVAL, "branch filter: NULL argument");
	while (*p) {
		size_t n = strcspn(p, ",");
		bool found = false;
		for (size_t i = 0; i < sizeof(branch_words) / sizeof(branch_words[0]); i++)
			if (strlen(branch_words[i].name) == n && !strncmp(p, branch_words[i].name, n)) {
				v |= 1ULL << branch_words[i].bit;
				found = true;
			}
		if (!found)
			return pms_err(PMS_EINVAL,
				       "branch filter '%.*s' is not known: use any, any_call, any_ret, "
				       "ind_call, ind_jmp, call, cond, abort_tx, in_tx, no_tx, stack, "
				       "save_type, priv, no_flags, no_cycles, u, k, hv",
				       (int)n, p);
		p += n;
		if (*p == ',')
			p++;
	}
	/* kernel/events/core.c perf_copy_attr(): at least one branch type
	 * besides the privilege bits (u, k, hv). */
	if (!(v & ~7ULL))
		return pms_err(PMS_EINVAL, "branch filter '%s' names no branch type (add any, call, ...)",
			       text);
	*out = v;
	return 0;
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
