/* perf stat's derived metrics of a counted row and whether a row counted
 * (include/pmuscope/countrun.h). */
#include <string.h>

#include "pmuscope/countrun.h"

bool pms_count_row_counted(const struct pms_count_row *row, const struct pms_count_row *cum)
{
	const struct pms_count_row *r = cum ? cum : row;
	return !(r->enabled == 0 || r->nunscheduled == r->ninstances);
}

/* The event's name without modifiers ("page-faults:u" is "page-faults"). */
static bool name_is(const char *name, const char *base)
{
	size_t n = strlen(base);
	return !strncmp(name, base, n) && (name[n] == '\0' || name[n] == ':');
}

static bool name_in(const char *name, const char *const *names)
{
	for (const char *const *nm = names; *nm; nm++)
		if (name_is(name, *nm))
			return true;
	return false;
}

/* The first supported row of the same bucket named one of names. */
static const struct pms_count_row *sibling(const struct pms_count_row *rows, size_t n,
					   const struct pms_count_row *r, const char *const *names)
{
	for (size_t i = 0; i < n; i++)
		for (const char *const *nm = names; *nm; nm++)
			if (!rows[i].unsupported && name_is(rows[i].name, *nm) &&
			    rows[i].id == r->id && rows[i].package == r->package)
				return &rows[i];
	return NULL;
}

/* value / per, when per is a row with a positive count. */
static bool ratio(double value, const struct pms_count_row *per, double per_scale,
		  double *out)
{
	if (!per || per->scaled <= 0)
		return false;
	*out = value / (per->scaled / per_scale);
	return true;
}

bool pms_count_metric(const struct pms_count_row *rows, size_t n, size_t i,
		      const struct pms_count_row *cum, double elapsed_s, double *value,
		      const char **unit)
{
	static const char *const clocks[] = { "task-clock", "cpu-clock", NULL };
	static const char *const cycles[] = { "cycles", "cpu-cycles", "cpu_cycles", NULL };
	static const char *const instrs[] = { "instructions", "inst_retired", NULL };
	static const char *const sw[] = { "context-switches", "cs", "cpu-migrations", "migrations",
					  "page-faults", "faults", "minor-faults", "major-faults",
					  "alignment-faults", "emulation-faults", NULL };
	static const char *const per_sec[] = { "/sec", "K/sec", "M/sec", "G/sec" };
	const struct pms_count_row *r = &rows[i];

	if (i >= n || r->unsupported || !pms_count_row_counted(r, cum ? &cum[i] : NULL))
		return false;
	if (name_in(r->name, clocks)) {
		if (elapsed_s <= 0)
			return false;
		*value = r->scaled / 1e9 / elapsed_s;
		*unit = "CPUs utilized";
		return true;
	}
	if (name_in(r->name, sw)) {
		int k = 0;
		if (!ratio(r->scaled, sibling(rows, n, r, clocks), 1e9, value))
			return false;
		while (*value >= 1000 && k < 3) {
			*value /= 1000;
			k++;
		}
		*unit = per_sec[k];
		return true;
	}
	if (name_in(r->name, instrs)) {
		*unit = "insn per cycle";
		return ratio(r->scaled, sibling(rows, n, r, cycles), 1, value);
	}
	if (name_in(r->name, cycles)) {
		*unit = "GHz";
		return ratio(r->scaled, sibling(rows, n, r, clocks), 1, value);
	}
	return false;
}
