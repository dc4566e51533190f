/* perf's generic event names: hardware, software and hardware-cache events.
 * Ids are the enums of include/uapi/linux/perf_event.h (perf_hw_id,
 * perf_sw_ids, perf_hw_cache_id / _op_id / _op_result_id); the spellings are
 * perf's (tools/perf/util/parse-events.c event_symbols_hw/_sw, and
 * tools/perf/util/evsel.c evsel__hw_cache, evsel__hw_cache_op,
 * evsel__hw_cache_result, evsel__hw_cache_stat). */
#include "event/event_int.h"
#include "pmuscope/event.h"

#include <linux/perf_event.h>
#include <string.h>
#include <strings.h>

struct gen_name {
	const char *name;
	uint64_t id;
};

/* include/uapi/linux/perf_event.h enum perf_hw_id.  In this table and the
 * software one the first spelling of each id is the name perf prints for an
 * attr (tools/perf/util/evsel.c evsel__hw_names, evsel__sw_names):
 * pms_event_generic_name() answers with it. */
static const struct gen_name hw_names[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

/* include/uapi/linux/perf_event.h enum perf_sw_ids */
static const struct gen_name sw_names[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_COUNT_SW_DUMMY },
	{ "bpf-output", PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches", PERF_COUNT_SW_CGROUP_SWITCHES },
};

/* Spellings of the cache, op and result parts; perf matches them without
 * regard to case (tools/perf/util/parse-events.c parse_aliases). */
static const struct gen_name cache_names[] = {
	{ "L1-dcache", PERF_COUNT_HW_CACHE_L1D },
	{ "l1-d", PERF_COUNT_HW_CACHE_L1D },
	{ "l1d", PERF_COUNT_HW_CACHE_L1D },
	{ "L1-data", PERF_COUNT_HW_CACHE_L1D },
	{ "L1-icache", PERF_COUNT_HW_CACHE_L1I },
	{ "l1-i", PERF_COUNT_HW_CACHE_L1I },
	{ "l1i", PERF_COUNT_HW_CACHE_L1I },
	{ "L1-instruction", PERF_COUNT_HW_CACHE_L1I },
	{ "LLC", PERF_COUNT_HW_CACHE_LL },
	{ "L2", PERF_COUNT_HW_CACHE_LL },
	{ "dTLB", PERF_COUNT_HW_CACHE_DTLB },
	{ "d-tlb", PERF_COUNT_HW_CACHE_DTLB },
	{ "Data-TLB", PERF_COUNT_HW_CACHE_DTLB },
	{ "iTLB", PERF_COUNT_HW_CACHE_ITLB },
	{ "i-tlb", PERF_COUNT_HW_CACHE_ITLB },
	{ "Instruction-TLB", PERF_COUNT_HW_CACHE_ITLB },
	{ "branch", PERF_COUNT_HW_CACHE_BPU },
	{ "branches", PERF_COUNT_HW_CACHE_BPU },
	{ "bpu", PERF_COUNT_HW_CACHE_BPU },
	{ "btb", PERF_COUNT_HW_CACHE_BPU },
	{ "bpc", PERF_COUNT_HW_CACHE_BPU },
	{ "node", PERF_COUNT_HW_CACHE_NODE },
};

static const struct gen_name cache_ops[] = {
	{ "load", PERF_COUNT_HW_CACHE_OP_READ },
	{ "loads", PERF_COUNT_HW_CACHE_OP_READ },
	{ "read", PERF_COUNT_HW_CACHE_OP_READ },
	{ "store", PERF_COUNT_HW_CACHE_OP_WRITE },
	{ "stores", PERF_COUNT_HW_CACHE_OP_WRITE },
	{ "write", PERF_COUNT_HW_CACHE_OP_WRITE },
	{ "prefetch", PERF_COUNT_HW_CACHE_OP_PREFETCH },
	{ "prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH },
	{ "speculative-read", PERF_COUNT_HW_CACHE_OP_PREFETCH },
	{ "speculative-load", PERF_COUNT_HW_CACHE_OP_PREFETCH },
};

static const struct gen_name cache_results[] = {
	{ "refs", PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "Reference", PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "ops", PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "access", PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "misses", PERF_COUNT_HW_CACHE_RESULT_MISS },
	{ "miss", PERF_COUNT_HW_CACHE_RESULT_MISS },
};

#define OPS(r, w, p)                                                                \
	((r) << PERF_COUNT_HW_CACHE_OP_READ | (w) << PERF_COUNT_HW_CACHE_OP_WRITE | \
	 (p) << PERF_COUNT_HW_CACHE_OP_PREFETCH)
/* Which ops perf offers per cache (tools/perf/util/evsel.c
 * evsel__hw_cache_stat); other combinations are not generic events. */
static const unsigned cache_valid_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = OPS(1, 1, 1),
	[PERF_COUNT_HW_CACHE_L1I] = OPS(1, 0, 1),
	[PERF_COUNT_HW_CACHE_LL] = OPS(1, 1, 1),
	[PERF_COUNT_HW_CACHE_DTLB] = OPS(1, 1, 1),
	[PERF_COUNT_HW_CACHE_ITLB] = OPS(1, 0, 0),
	[PERF_COUNT_HW_CACHE_BPU] = OPS(1, 0, 0),
	[PERF_COUNT_HW_CACHE_NODE] = OPS(1, 1, 1),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct gen_name *find_exact(const struct gen_name *t, size_t n,
					 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

/* The longest spelling in t that starts s and ends at '-' or the end. */
static const struct gen_name *match_part(const struct gen_name *t, size_t n,
					 const char *s, size_t *len)
{
	const struct gen_name *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(t[i].name);
		if (l > best_len && !strncasecmp(s, t[i].name, l) &&
		    (s[l] == '\0' || s[l] == '-')) {
			best = &t[i];
			best_len = l;
		}
	}
	*len = best_len;
	return best;
}

static bool cache_lookup(const char *name, uint64_t *config)
{
	const struct gen_name *c, *op = NULL, *res = NULL;
	size_t len;
	const char *s = name;

	c = match_part(cache_names, N(cache_names), s, &len);
	if (!c)
		return false;
	s += len;
	while (*s == '-') {
		const struct gen_name *g;
		s++;
		if (!op && (g = match_part(cache_ops, N(cache_ops), s, &len)))
			op = g;
		else if (!res && (g = match_part(cache_results, N(cache_results), s, &len)))
			res = g;
		else
			return false;
		s += len;
	}
	if (*s)
		return false;
	uint64_t o = op ? op->id : PERF_COUNT_HW_CACHE_OP_READ;
	uint64_t r = res ? res->id : PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(cache_valid_ops[c->id] & (1u << o)))
		return false;
	/* include/uapi/linux/perf_event.h: config = id | op << 8 | result << 16 */
	*config = c->id | o << 8 | r << 16;
	return true;
}

enum ev_generic_kind pms_ev_generic_lookup(const char *name, uint64_t *config)
{
	const struct gen_name *g;
	if ((g = find_exact(hw_names, N(hw_names), name))) {
		*config = g->id;
		return EV_GEN_HW;
	}
	if ((g = find_exact(sw_names, N(sw_names), name))) {
		*config = g->id;
		return EV_GEN_SW;
	}
	if (cache_lookup(name, config))
		return EV_GEN_CACHE;
	return EV_GEN_NONE;
}

const char *pms_event_generic_name(uint32_t type, uint64_t config)
{
	const struct gen_name *t = type == PERF_TYPE_HARDWARE ? hw_names
				   : type == PERF_TYPE_SOFTWARE ? sw_names : NULL;
	size_t n = type == PERF_TYPE_HARDWARE ? sizeof(hw_names) / sizeof(hw_names[0])
					      : sizeof(sw_names) / sizeof(sw_names[0]);
	for (size_t i = 0; t && i < n; i++)
		if (t[i].id == config)
			return t[i].name;
	return NULL;
}
