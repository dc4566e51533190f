/* report --sort / -s, -F and -g: perf's arguments parsed; the table is the
 * library's (pms_render_sort_table, pmuscope/render_cmd.h). */
#include "report_sort.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli_opt.h"

int report_cg_parse(const char *arg, struct report_cg *cg, const char **bad)
{
	static const char *const modes[] = { "graph", "fractal", "flat", "folded", "none" };
	static const char *const values[] = { "percent", "period", "count" };
	char buf[256];
	int nums = 0;
	snprintf(buf, sizeof(buf), "%s", arg);
	cg->set = true;
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		bool done = false;
		for (size_t i = 0; i < 5 && !done; i++)
			if (!strcmp(t, modes[i])) {
				cg->ch.mode = (enum pms_cg_mode)i;
				cg->mode_set = done = true;
			}
		for (size_t i = 0; i < 3 && !done; i++)
			if (!strcmp(t, values[i])) {
				cg->ch.value = (enum pms_cg_value)i;
				done = true;
			}
		if (done)
			continue;
		if (!strcmp(t, "caller") || !strcmp(t, "callee")) {
			cg->order = t[5] == 'r'; /* caller, callee */
		} else if (!strcmp(t, "function")) {
			; /* perf's default key */
		} else if (!strcmp(t, "address") || !strcmp(t, "branch") || !strcmp(t, "srcline")) {
			*bad = "only the 'function' key is taken (address, srcline and branch are not)";
			return -1;
		} else if (nums == 0 && cli_parse_double(t, 0, 100, &cg->ch.threshold) == 0) {
			nums++;
		} else if (nums == 1 && cli_parse_long(t, 0, 1000000, &cg->ch.print_limit) == 0) {
			nums++;
		} else {
			*bad = "not a word of perf's -g: graph, fractal, flat, folded, none, caller, "
			       "callee, function, percent, period, count, THRESHOLD, PRINT_LIMIT";
			return -1;
		}
	}
	return 0;
}

int report_fields_parse(const char *fields, char *keys, size_t nkeys, int *cols, size_t *ncols,
			const char **bad)
{
	char buf[512];
	size_t nk = 0, len = 0, max = *ncols;
	*ncols = 0;
	snprintf(buf, sizeof(buf), "%s", fields);
	keys[0] = 0;
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*ncols == max)
			return *bad = "too many fields", -1;
		if (!strcmp(t, "overhead"))
			cols[(*ncols)++] = PMS_SORT_COL_OVERHEAD;
		else if (!strcmp(t, "sample"))
			cols[(*ncols)++] = PMS_SORT_COL_SAMPLES;
		else if (!strcmp(t, "period"))
			cols[(*ncols)++] = PMS_SORT_COL_PERIOD;
		else {
			/* a sort key: the library says whether it knows it */
			len += (size_t)snprintf(keys + len, nkeys - len, "%s%s", nk ? "," : "", t);
			if (len >= nkeys)
				return *bad = "too long", -1;
			cols[(*ncols)++] = (int)nk++;
		}
	}
	if (!nk)
		return *bad = "no sort key among the fields", -1;
	return 0;
}
