/* report --sort / -s: perf report's histogram of samples by sort keys
 * (issue 30 item 4), printed as perf report --stdio prints it.  The keys and
 * the grouping are the library's (pmuscope/sorthist.h). */
#include "report_sort.h"

#include <inttypes.h>
#include <string.h>

#include "cli_opt.h"

int report_sort_print(struct pms_sorthist *h, bool nr, double percent_limit, FILE *f)
{
	struct pms_sorthist_result r;
	if (pms_sorthist_result(h, &r) < 0)
		return -1;
	fprintf(f, "# Samples: %" PRIu64 "  Event count (approx.): %" PRIu64 "\n#\n# Overhead",
		r.samples, r.period);
	if (nr)
		fprintf(f, "       Samples");
	for (size_t i = 0; i < r.nkeys; i++)
		fprintf(f, "  %s", r.titles[i]);
	fprintf(f, "\n#\n");
	size_t hidden = 0;
	for (size_t i = 0; i < r.n_rows; i++) {
		const struct pms_sorthist_row *w = &r.rows[i];
		double pct = r.period ? 100.0 * (double)w->period / (double)r.period : 0;
		if (pct < percent_limit) {
			hidden++;
			continue;
		}
		fprintf(f, "  %7.2f%%", pct);
		if (nr)
			fprintf(f, "  %12" PRIu64, w->samples);
		const char *t = w->text;
		while (t) {
			const char *tab = strchr(t, '\t');
			fprintf(f, "  %.*s", tab ? (int)(tab - t) : (int)strlen(t), t);
			t = tab ? tab + 1 : NULL;
		}
		fputc('\n', f);
	}
	if (hidden && cli_verbosity >= 0)
		fprintf(f, "#\n# %zu rows under --percent-limit %.2f%% not shown\n", hidden,
			percent_limit);
	return 0;
}
