/* `pmuscope report --fetch[=line]`'s text (pmuscope/render_cmd.h): the
 * front-end view of a file's AMD IBS fetch samples (pmuscope/fetchview.h),
 * per function or per source line. */
#include <stdio.h>

#include "pmuscope/render_cmd.h"

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* One row: "-" where no sample of the row had the field valid. */
static void row(FILE *out, const struct pms_ibs_fetch_row *w, bool by_line)
{
	char lat[16] = "-", ic[16] = "-", l2[16] = "-", l3[16] = "-", oc[16] = "-", rl[16] = "-";
	char where[300];
	if (w->completed)
		snprintf(lat, sizeof(lat), "%.1f", (double)w->lat_sum / (double)w->completed);
	if (w->ic_known)
		snprintf(ic, sizeof(ic), "%.1f%%", pct(w->ic_miss, w->ic_known));
	if (w->l2_known)
		snprintf(l2, sizeof(l2), "%.1f%%", pct(w->l2_miss, w->l2_known));
	if (w->l3_known) {
		snprintf(l3, sizeof(l3), "%.1f%%", pct(w->l3_miss, w->l3_known));
		snprintf(oc, sizeof(oc), "%.1f%%", pct(w->oc_miss, w->l3_known));
	}
	if (w->itlb_lat_n)
		snprintf(rl, sizeof(rl), "%.1f", (double)w->itlb_lat_sum / (double)w->itlb_lat_n);
	if (by_line && w->file)
		snprintf(where, sizeof(where), "%s:%d (%s)", w->file, w->line, w->func);
	else
		snprintf(where, sizeof(where), "%s", w->func);
	fprintf(out, "%8llu %7s %6s %6s %6s %6s %5.1f%% %5.1f%% %5.1f%% %6s %5llu/%llu/%llu/%llu  %s\n",
	       (unsigned long long)w->samples, lat, ic, l2, l3, oc, pct(w->itlb[0], w->samples),
	       pct(w->itlb[1], w->samples), pct(w->itlb[2], w->samples), rl,
	       (unsigned long long)w->pgsz_4k, (unsigned long long)w->pgsz_16k,
	       (unsigned long long)w->pgsz_2m, (unsigned long long)w->pgsz_1g, where);
}

void pms_render_ibs_fetch(FILE *out, const char *path, const struct pms_ibs_fetch_view *v,
			  bool by_line, size_t top)
{
	const char *cpuid = pms_ibs_fetch_view_cpuid(v);
	fprintf(out, "# AMD IBS fetch samples of %s (CPU %s): %llu kept, %llu the driver drops "
	       "(IbsFetchVal clear, erratum 1197), %llu without fetch registers\n",
	       path, cpuid ? cpuid : "?", (unsigned long long)pms_ibs_fetch_view_total(v)->samples,
	       (unsigned long long)pms_ibs_fetch_view_dropped(v),
	       (unsigned long long)pms_ibs_fetch_view_bad(v));
	fprintf(out, "# lat: mean IbsFetchLat of completed fetches (cycles); IC/L2/L3/OC miss: share of "
	       "the samples where the field is valid (L2: completed fetches; L3, OC: Zen 4 "
	       "fields); iTLB L1 hit / L2 hit / miss; refill: mean IcIbsExtdCtl iTLB refill "
	       "latency after an L1 miss; pages 4K/16K/2M/1G where IbsPhyAddrValid\n");
	fprintf(out, "%8s %7s %6s %6s %6s %6s %6s %6s %6s %6s %s  %s\n", "samples", "lat", "IC", "L2",
	       "L3", "OC", "iL1", "iL2", "iMiss", "refill", "pages", by_line ? "line" : "function");
	for (size_t i = 0; i < pms_ibs_fetch_view_count(v) && i < top; i++)
		row(out, pms_ibs_fetch_view_row(v, i), by_line);
	row(out, pms_ibs_fetch_view_total(v), false);
}
