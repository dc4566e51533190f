/* `pmuscope mem --engine damon`'s text report and CSV of a finished run
 * (include/pmuscope/damon_text.h), written into the caller's FILE. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "damon/damon_int.h"
#include "util/csv.h"
#include "pmuscope/damon_text.h"

static const char *human(uint64_t b, char *buf, size_t n)
{
	static const char u[] = "BKMGTP";
	double v = (double)b;
	int i = 0;
	while (v >= 1024 && i < 5) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, n, "%" PRIu64 "B", b);
	else
		snprintf(buf, n, "%.1f%c", v, u[i]);
	return buf;
}

static void nodes_text(const struct pms_damon_nodes *nd, char *buf, size_t n)
{
	size_t k = 0;
	if (!nd->sampled) {
		snprintf(buf, n, "-");
		return;
	}
	buf[0] = '\0';
	for (int i = 0; i < PMS_DAMON_MAX_NODES && k + 1 < n; i++)
		if (nd->pages[i])
			k += (size_t)snprintf(buf + k, n - k, "%sn%d:%u", k ? " " : "", i,
					      nd->pages[i]);
	if (nd->absent && k + 1 < n)
		k += (size_t)snprintf(buf + k, n - k, "%sabsent:%u", k ? " " : "", nd->absent);
	if (!k)
		snprintf(buf, n, "unknown");
}


void pms_damon_render_csv(FILE *f, const struct pms_damon_run_result *res)
{
	const struct pms_damon *d = res->session;
	const struct pms_damon_report *r = res->report;
	size_t n = 0;
	const struct pms_damon_snapshot *sn = pms_damon_snapshots(d, &n);
	fprintf(f, "# %s\n", r->label);
	fprintf(f, "t_s,pid,start,end,bytes,nr_accesses,freq,age,object\n");
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sn[i].nregions; k++) {
			const struct pms_damon_region *g = &sn[i].regions[k];
			fprintf(f, "%.6f,%d,0x%" PRIx64 ",0x%" PRIx64 ",%" PRIu64 ",%u,%.4f,%u,",
			       (double)sn[i].t_us / 1e6, (int)r->pids[sn[i].target], g->start, g->end,
			       g->end - g->start, g->nr_accesses,
			       g->nr_accesses / r->max_nr_accesses, g->age);
			pms_csv_field(f, pms_damon_object_name(d, sn[i].target, g->start));
			fputc('\n', f);
		}
}

void pms_damon_render_text(FILE *f, const struct pms_damon_run_result *res, size_t top,
			   const char *why)
{
	const struct pms_damon_report *r = res->report;
	const char *kdir = res->kdamond_dir, *outcome = res->outcome;
	char a[32], b[32], c[160];
	fprintf(f, "DAMON memory-access profile: ");
	for (size_t i = 0; i < r->npids; i++)
		fprintf(f, "%spid %d", i ? ", " : "", (int)r->pids[i]);
	fprintf(f, ", %zu snapshots over %.1f s (%s)\n", r->nsnapshots, (double)r->duration_us / 1e6,
	       outcome);
	fprintf(f, "  engine: damon (%s)\n", why ? why : "asked for with --engine damon");
	fprintf(f, "  NOTE: %s.\n", r->label);
	fprintf(f, "  sampling %" PRIu64 " us, aggregation %" PRIu64 " us (frequency 1.0 = %.0f "
	       "accesses seen), update %" PRIu64 " us, regions %" PRIu64 "..%" PRIu64 "\n",
	       r->attrs.sample_us, r->attrs.aggr_us, r->max_nr_accesses, r->attrs.update_us,
	       r->attrs.min_regions, r->attrs.max_regions);
	if (res->cleanup_rc == 0)
		fprintf(f, "  kdamond %s: created by pmuscope, removed\n\n", kdir);
	else
		fprintf(f, "  kdamond %s: NOT removed: %s\n\n", kdir, res->cleanup_msg);

	fprintf(f, "Hot ranges (heat = access frequency x bytes, summed over snapshots)\n");
	fprintf(f, "  %-4s %-31s %8s %7s %6s %6s %5s %-5s %-22s %s\n", "#", "range", "size", "heat%",
	       "freq", "max", "age", "class", "nodes (sampled pages)", "object");
	if (!top)
		top = 10;
	for (size_t i = 0; i < r->nranges && i < top; i++) {
		const struct pms_damon_range *x = &r->ranges[i];
		char rg[64];
		snprintf(rg, sizeof(rg), "%" PRIx64 "-%" PRIx64, x->start, x->end);
		nodes_text(&x->nodes, c, sizeof(c));
		fprintf(f, "  %-4zu %-31s %8s %6.1f%% %6.3f %6.3f %5u %-5s %-22s %s\n", i + 1, rg,
		       human(x->end - x->start, a, sizeof(a)), 100 * x->share, x->freq_mean,
		       x->freq_max, x->age_max, pms_damon_heat_name(x->heat_class), c, x->object);
	}
	if (!r->nranges)
		fprintf(f, "  (no regions were read)\n");

	fprintf(f, "\nData objects (mappings)\n");
	fprintf(f, "  %7s %6s %8s %-22s %s\n", "heat%", "freq", "size", "nodes", "name");
	for (size_t i = 0; i < r->nobjects && i < top; i++) {
		const struct pms_damon_object *x = &r->objects[i];
		nodes_text(&x->nodes, c, sizeof(c));
		fprintf(f, "  %6.1f%% %6.3f %8s %-22s %s\n", 100 * x->share, x->freq_mean,
		       human(x->bytes, b, sizeof(b)), c, x->name);
	}

	fprintf(f, "\nRemote-hot share by CPU node (threads' last CPU at each snapshot, not per "
	       "access)\n");
	if (!r->ncpu_nodes)
		fprintf(f, "  (no thread CPUs or page nodes known)\n");
	for (size_t i = 0; i < r->ncpu_nodes; i++)
		fprintf(f, "  cpu node %d: %5.1f%% of its heat on other nodes' pages\n",
		       r->cpu_nodes[i].node, 100 * r->cpu_nodes[i].remote_share);

	fprintf(f, "\nHeat over time (hottest region of each snapshot%s)\n",
	       r->nsteps > 20 ? "; every step of 20" : "");
	size_t every = r->nsteps > 20 ? (r->nsteps + 19) / 20 : 1;
	for (size_t i = 0; i < r->nsteps; i += every) {
		const struct pms_damon_step *s = &r->steps[i];
		fprintf(f, "  t=%6.2fs heat %8s  hottest %" PRIx64 "-%" PRIx64 " freq %.2f %s", 
		       (double)s->t_us / 1e6, human((uint64_t)s->heat, a, sizeof(a)), s->hot_start,
		       s->hot_end, s->hot_freq, s->hot_object ? s->hot_object : "-");
		for (int n = 0; n < r->nnodes && n < PMS_DAMON_MAX_NODES; n++)
			if (s->heat > 0)
				fprintf(f, "  n%d %.0f%%", n, 100 * s->heat_on_node[n] / s->heat);
		fputc('\n', f);
	}
}
