/* Internal: the counter object shared by count.c and aggregate.c. */
#ifndef PMS_COUNT_INT_H
#define PMS_COUNT_INT_H

#include "pmuscope/count.h"

struct pms_count_inst {
	struct pms_count_instance pub;
	int fd;
	bool leader;      /* leader of a group slot (or a lone event) */
};

/* One opened group (or lone event) on one CPU / thread: instances
 * first .. first+n-1, the first being the leader. */
struct pms_count_slot {
	size_t first, n;
	int group;        /* the event list's group index, -1 alone */
	bool unscheduled; /* last read: enabled > 0, running == 0 */
};

struct pms_counter {
	struct pms_sys *sys;
	const struct pms_pmus *pmus;
	const struct pms_topo *topo;
	const struct pms_event_list *list;
	struct pms_count_opts opts;
	struct pms_count_inst *inst;
	size_t ninst, cap_inst;
	struct pms_count_slot *slots;
	size_t nslots, cap_slots;
	struct pms_uncore_box *boxes;
	size_t nboxes;
	char **unsupported;   /* per event of list: why it was left out, or NULL */
	size_t nunsupported;
	int open_errno;       /* errno of the last failed perf_event_open */
	/* Arm PMUv3 budgets probed for group checks (budget.c); ok false:
	 * the probe failed, the kernel alone decides for that PMU */
	struct pms_count_budget_ent {
		struct pms_count_budget b;
		bool ok;
	} *budgets;
	size_t nbudgets;
	size_t nsplit;        /* weak groups split into lone events */
	char *split_why;      /* the first one's reason */
};

/* budget.c: 0 when the group members[0..n-1] fits its Arm PMUv3 PMU or no
 * budget applies; PMS_ERANGE (message set) when it cannot be scheduled;
 * PMS_ENOMEM. */
int pms_count_budget_check(struct pms_counter *c, const size_t *members, size_t n);

#endif
