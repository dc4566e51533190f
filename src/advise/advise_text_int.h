/* Internal to the library: functions that only library code calls, kept
 * out of the exported API (docs/api.md "Opaque objects, accessors and the
 * exported set"). */
#ifndef PMS_ADVISE_ADVISE_TEXT_INT_H
#define PMS_ADVISE_ADVISE_TEXT_INT_H

#include "pmuscope/advise_text.h"

/* "0,1,3" into buf (always terminated). */
void pms_advice_nodes_text(char *buf, size_t len, const int *nodes, size_t n);

/* cmd's words joined by spaces, "COMMAND" for none. */
void pms_advice_command_text(char *buf, size_t len, char *const *cmd);

/* An item's runnable lines: numactl for a new run of cmd, and pmuscope
 * migrate for the live process pid (0: "PID"); "" where none applies. */
void pms_advice_item_commands(const struct pms_advice_item *it, pid_t pid, char *const *cmd,
			      char *numactl, size_t nlen, char *migrate, size_t mlen);

/* The plan: per item where it is held, accessed from, its remote share,
 * the advice, why, and the commands. */
void pms_advice_render_plan(FILE *f, const struct pms_advice *p, pid_t pid, char *const *cmd);

/* --apply: what pms_advice_apply moved per item (sites_applied: the
 * allocation sites' blocks were moved instead of the objects). */
void pms_advice_render_applied(FILE *f, const struct pms_advice *plan,
			       const struct pms_advice_applied *rows, size_t nrows, pid_t pid,
			       double before_s, bool sites_applied);

/* --apply: each item's remote share, latency and accesses per node before
 * and after, then the whole reports'. */
void pms_advice_render_compare(FILE *f, const struct pms_advice *plan,
			       const struct pms_advisor *adv_before, const struct pms_advisor *adv_after,
			       const struct pms_memreport *before, const struct pms_memreport *after,
			       double before_s);

/* The samples of a report's node matrix, and those off the CPU's node. */
void pms_memreport_remote_totals(const struct pms_memreport *r, uint64_t *all, uint64_t *remote);

#endif
