/* The NUMA placement advisor's text (docs/advise.md): a plan, what --apply
 * moved, the before/after comparison of the two measurements, each item's
 * runnable commands, and a pms_migrate_range result line; written into a
 * caller's FILE (the library prints nothing on its own).
 *
 * Ownership: nothing here allocates; everything is borrowed for the call.
 */
#ifndef PMUSCOPE_ADVISE_TEXT_H
#define PMUSCOPE_ADVISE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pmuscope/advise.h"
#include "pmuscope/report.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

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
/* One pms_migrate_range result: pages moved, already there, not present,
 * failed (by errno), on target after, move_pages calls. */
void pms_migrate_render_text(FILE *f, const struct pms_migrate_result *r, const int *nodes,
			     size_t nnodes);

/* The samples of a report's node matrix, and those off the CPU's node. */
void pms_memreport_remote_totals(const struct pms_memreport *r, uint64_t *all, uint64_t *remote);

PMS_API_END
#ifdef __cplusplus
}
#endif

#endif
