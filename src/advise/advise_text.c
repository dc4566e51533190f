/* The advisor's text: a plan, what --apply moved, the before/after
 * comparison, the runnable commands, and pmuscope migrate's result line
 * (src/advise/advise_text_int.h; the migrate line: pmuscope/advise_text.h).
 * Written into the caller's FILE. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pmuscope/advise_text.h"
#include "pmuscope/util.h"
#include "advise/advise_text_int.h"

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);
	return n ? n : "?";
}

void pms_advice_nodes_text(char *buf, size_t len, const int *nodes, size_t n)
{
	size_t at = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? "," : "", nodes[i]);
}

void pms_advice_command_text(char *buf, size_t len, char *const *cmd)
{
	size_t at = 0;
	if (!cmd || !*cmd) {
		snprintf(buf, len, "COMMAND");
		return;
	}
	buf[0] = 0;
	for (char *const *a = cmd; *a && at < len; a++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", a == cmd ? "" : " ", *a);
}

/* the runnable lines of an item: numactl for a new run, pmuscope migrate
 * for the live process (when there is something to migrate) */
void pms_advice_item_commands(const struct pms_advice_item *it, pid_t pid, char *const *cmd,
			      char *numactl, size_t nlen, char *migrate, size_t mlen)
{
	char c[512], nl[128], ps[16];
	pms_advice_command_text(c, sizeof(c), cmd);
	if (pid > 0)
		snprintf(ps, sizeof(ps), "%d", (int)pid);
	else
		snprintf(ps, sizeof(ps), "PID");
	numactl[0] = migrate[0] = 0;
	switch (it->action) {
	case PMS_ADVICE_MOVE:
		snprintf(numactl, nlen, "numactl --preferred=%d -- %.300s", it->target, c);
		snprintf(migrate, mlen, "pmuscope migrate -p %s --range 0x%" PRIx64 "-0x%" PRIx64
			 " --to %d", ps, it->start, it->end, it->target);
		break;
	case PMS_ADVICE_INTERLEAVE:
		pms_advice_nodes_text(nl, sizeof(nl), it->nodes, it->nnodes);
		snprintf(numactl, nlen, "numactl --interleave=%s -- %.300s", nl, c);
		snprintf(migrate, mlen, "pmuscope migrate -p %s --range 0x%" PRIx64 "-0x%" PRIx64
			 " --to %s", ps, it->start, it->end, nl);
		break;
	case PMS_ADVICE_MOVE_THREADS:
		snprintf(numactl, nlen, "numactl --cpunodebind=%d -- %.300s", it->target, c);
		break;
	case PMS_ADVICE_LEAVE:
		break;
	}
}

static void node_shares(char *buf, size_t len, const struct pms_advice_node *v, size_t n,
			bool pages, bool latency)
{
	size_t at = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n && at < len; i++) {
		at += (size_t)snprintf(buf + at, len - at, "%snode %d %.1f %%", i ? ", " : "",
				       v[i].node, 100 * v[i].share);
		if (pages && at < len)
			at += (size_t)snprintf(buf + at, len - at, " (%" PRIu64 " pages sampled)",
					       v[i].pages);
		if (latency && at < len) {
			if (v[i].latency_n)
				at += (size_t)snprintf(buf + at, len - at, " (latency %.0f cycles, distance %.1f)",
						       v[i].latency_mean, v[i].cost);
			else
				at += (size_t)snprintf(buf + at, len - at, " (distance %.1f)", v[i].cost);
		}
	}
}

void pms_advice_render_plan(FILE *f, const struct pms_advice *p, pid_t pid, char *const *cmd)
{
	char hs[32], buf[1024], nl[512], ml[512];
	fprintf(f, "\nPlacement advice (%" PRIu64 " resolved samples with a CPU node; %s; %s):\n",
	       p->samples,
	       p->distances_assumed ? "distances assumed 10 local / 20 remote"
				    : "costs from the node distance matrix",
	       p->capacity_checked ? "capacity checked against node free memory"
				   : "node free memory unknown: capacity not checked");
	if (!p->samples)
		fprintf(f, "  no sample has both a memory node and a CPU node: nothing to advise on (a "
		       "recorded file needs physical addresses: pmuscope mem --phys -o, perf mem "
		       "record --phys-data)\n");
	else if (!p->nitems)
		fprintf(f, "  no hot data object or page range (each needs >= 2 %% of the samples)\n");
	for (size_t i = 0; i < p->nitems; i++) {
		const struct pms_advice_item *it = &p->items[i];
		fprintf(f, "  #%zu %s [%s] 0x%" PRIx64 "-0x%" PRIx64 " (%s), %" PRIu64 " samples\n", i + 1,
		       it->name, it->kind, it->start, it->end,
		       pms_human_size(it->end - it->start, hs, sizeof(hs)), it->samples);
		node_shares(buf, sizeof(buf), it->mems, it->nmems, true, false);
		fprintf(f, "     held on:       %s\n", buf);
		node_shares(buf, sizeof(buf), it->cpus, it->ncpus, false, true);
		fprintf(f, "     accessed from: %s\n", buf);
		fprintf(f, "     remote share %.1f %% (95 %% interval %.1f-%.1f %%), stores %.0f %%, %s\n",
		       100 * it->remote_share, 100 * it->remote_lo, 100 * it->remote_hi,
		       100 * it->store_share, it->sure ? "sure" : "tentative");
		switch (it->action) {
		case PMS_ADVICE_MOVE:
			fprintf(f, "     advice: MOVE to node %d: mean distance %.1f -> %.1f, remote share "
			       "-> %.0f %%; moves ~%s (%" PRIu64 " pages)\n",
			       it->target, it->cost_now, it->cost_after, 100 * it->predicted_remote,
			       pms_human_size(it->move_bytes, hs, sizeof(hs)), it->move_pages);
			break;
		case PMS_ADVICE_INTERLEAVE:
			pms_advice_nodes_text(nl, sizeof(nl), it->nodes, it->nnodes);
			fprintf(f, "     advice: INTERLEAVE across nodes %s: mean distance %.1f -> %.1f, "
			       "remote share -> %.0f %%; moves ~%s (%" PRIu64 " pages)\n",
			       nl, it->cost_now, it->cost_after, 100 * it->predicted_remote,
			       pms_human_size(it->move_bytes, hs, sizeof(hs)), it->move_pages);
			break;
		case PMS_ADVICE_MOVE_THREADS:
			fprintf(f, "     advice: MOVE THE THREADS to node %d: remote share -> %.0f %%; "
			       "moves no memory\n",
			       it->target, 100 * it->predicted_remote);
			break;
		case PMS_ADVICE_LEAVE:
			fprintf(f, "     advice: LEAVE it\n");
			break;
		}
		fprintf(f, "     why: %s\n", it->reason);
		pms_advice_item_commands(it, pid, cmd, nl, sizeof(nl), ml, sizeof(ml));
		if (nl[0])
			fprintf(f, "     new run:  %s\n", nl);
		if (ml[0])
			fprintf(f, "     live:     %s\n", ml);
	}
}

void pms_migrate_render_text(FILE *f, const struct pms_migrate_result *r, const int *nodes,
			     size_t nnodes)
{
	char nl[128];
	pms_advice_nodes_text(nl, sizeof(nl), nodes, nnodes);
	fprintf(f, "%" PRIu64 " pages -> node%s %s: moved %" PRIu64 ", already there %" PRIu64
		   ", not present %" PRIu64 ", failed %" PRIu64,
		r->pages, nnodes > 1 ? "s" : "", nl, r->moved, r->already, r->not_present, r->failed);
	for (size_t i = 0; i < r->nerrs; i++)
		fprintf(f, "%s%s %" PRIu64, i ? ", " : " (", errname(r->errs[i].err), r->errs[i].pages);
	if (r->nerrs)
		fprintf(f, ")");
	fprintf(f, "; on target after: %" PRIu64 " (%.1f %%), %" PRIu64 " move_pages calls\n",
		r->after_on_target,
		r->pages ? 100.0 * (double)r->after_on_target / (double)r->pages : 0, r->calls);
}

/* remote share and accesses per memory node over a whole report's matrix */
void pms_memreport_remote_totals(const struct pms_memreport *r, uint64_t *all, uint64_t *remote)
{
	*all = *remote = 0;
	for (size_t i = 0; i < r->nnodes; i++)
		for (size_t k = 0; k < r->nnodes; k++) {
			uint64_t v = r->matrix[i * r->nnodes + k];
			*all += v;
			if (i != k)
				*remote += v;
		}
}

static void matrix_columns(char *buf, size_t len, const struct pms_memreport *r)
{
	size_t at = 0;
	buf[0] = 0;
	for (size_t k = 0; k < r->nnodes && at < len; k++) {
		uint64_t col = 0;
		for (size_t i = 0; i < r->nnodes; i++)
			col += r->matrix[i * r->nnodes + k];
		at += (size_t)snprintf(buf + at, len - at, "%sn%d:%" PRIu64, k ? " " : "",
				       r->node_ids[k], col);
	}
}

static void range_line(FILE *f, const char *label, const struct pms_advice_range *x)
{
	char buf[512], lat[32];
	size_t at = 0;
	buf[0] = 0;
	for (size_t i = 0; i < x->nmems && at < sizeof(buf); i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%sn%d:%" PRIu64, i ? " " : "",
				       x->mems[i].node, x->mems[i].accesses);
	if (x->latency_n)
		snprintf(lat, sizeof(lat), "%.0f cyc", x->latency_mean);
	else
		snprintf(lat, sizeof(lat), "-");
	fprintf(f, "     %-7s %8" PRIu64 "  %6.1f %% [%5.1f-%5.1f]  %9s  %s\n", label, x->samples,
	       100 * x->remote_share, 100 * x->remote_lo, 100 * x->remote_hi, lat, buf);
}

void pms_advice_render_applied(FILE *f, const struct pms_advice *plan,
			       const struct pms_advice_applied *rows, size_t nrows, pid_t pid,
			       double before_s, bool sites_applied)
{
	fprintf(f, "\nApplied to pid %d (move_pages, after %.1f s of measuring):\n", (int)pid,
	       before_s);
	if (sites_applied)
		fprintf(f, "  the advised allocation sites' blocks only (above); no object range\n");
	else if (!nrows)
		fprintf(f, "  nothing to move: no item is advised to move or interleave\n");
	for (size_t i = 0; i < nrows; i++) {
		const struct pms_advice_applied *row = &rows[i];
		const struct pms_advice_item *it = &plan->items[row->item];
		fprintf(f, "  #%zu %s: ", row->item + 1, it->name);
		if (it->action == PMS_ADVICE_MOVE)
			pms_migrate_render_text(f, &row->res, &it->target, 1);
		else
			pms_migrate_render_text(f, &row->res, it->nodes, it->nnodes);
		if (row->rc < 0)
			fprintf(f, "     stopped: %s\n", row->err);
	}
}

void pms_advice_render_compare(FILE *f, const struct pms_advice *plan,
			       const struct pms_advisor *adv_before, const struct pms_advisor *adv_after,
			       const struct pms_memreport *before, const struct pms_memreport *after,
			       double before_s)
{
	fprintf(f, "\nBefore / after (%.1f s each; remote share with its 95 %% interval; accesses per "
	       "memory node):\n",
	       before_s);
	fprintf(f, "     %-7s %8s  %-22s  %9s  %s\n", "", "samples", "remote share", "latency",
	       "per node");
	for (size_t i = 0; i < plan->nitems; i++) {
		const struct pms_advice_item *it = &plan->items[i];
		struct pms_advice_range b, a;
		fprintf(f, "  #%zu %s (%s)\n", i + 1, it->name, pms_advice_action_name(it->action));
		if (pms_advisor_range(adv_before, it->pid, it->start, it->end, &b) == 0) {
			range_line(f, "before", &b);
			pms_advice_range_release(&b);
		}
		if (pms_advisor_range(adv_after, it->pid, it->start, it->end, &a) == 0) {
			range_line(f, "after", &a);
			pms_advice_range_release(&a);
		}
	}
	uint64_t ba, br, aa, ar;
	char cb[512], ca[512];
	pms_memreport_remote_totals(before, &ba, &br);
	pms_memreport_remote_totals(after, &aa, &ar);
	matrix_columns(cb, sizeof(cb), before);
	matrix_columns(ca, sizeof(ca), after);
	fprintf(f, "  all resolved samples\n");
	fprintf(f, "     %-7s %8" PRIu64 "  %6.1f %%                  %9s  %s\n", "before", ba,
	       ba ? 100.0 * (double)br / (double)ba : 0, "", cb);
	fprintf(f, "     %-7s %8" PRIu64 "  %6.1f %%                  %9s  %s\n", "after", aa,
	       aa ? 100.0 * (double)ar / (double)aa : 0, "", ca);
	if (before->latency.n || after->latency.n)
		fprintf(f, "     latency mean: before %.0f, after %.0f cycles (median %" PRIu64
		       " -> %" PRIu64 ")\n",
		       before->latency.mean, after->latency.mean, before->latency.median,
		       after->latency.median);
}
