/* `pmuscope c2c`'s text and CSV renderings of a finished c2c report
 * (include/pmuscope/c2c.h), written into a caller's FILE (the library
 * prints nothing on its own), and the table of perf's c2c_stats fields
 * the JSON and CSV name.
 *
 * Ownership: nothing here allocates; everything is borrowed for the call.
 */
#ifndef PMUSCOPE_C2C_TEXT_H
#define PMUSCOPE_C2C_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmuscope/c2c.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* What was profiled, for the text report's header lines. */
struct pms_c2c_source {
	const char *what;       /* the target: "FILE (file mode, N samples)", "command ..." */
	const char *label;      /* engine label / recorded events ("" none) */
	const char *nodes_why;  /* a file without memory nodes: why; NULL */
	uint64_t records;       /* a file's records (0: no file line) */
	uint64_t skipped, lost;
	bool truncated, unfinished;
};

/* The text report (perf c2c report's global counts, the shared lines,
 * per line its offsets and instructions), sort naming the table's order. */
void pms_c2c_render_text(FILE *f, const struct pms_c2c_source *src,
			 const struct pms_c2c_report *r, enum pms_c2c_sort sort);

/* One CSV row per (line, offset, instruction), with a header row. */
void pms_c2c_render_csv(FILE *f, const struct pms_c2c_report *r);

/* perf's c2c_stats fields in their order: how many, the i-th's name
 * (NULL past the end) and its value in s (0 past the end). */
size_t pms_c2c_stat_count(void);
const char *pms_c2c_stat_name(size_t i);
uint64_t pms_c2c_stat_value(const struct pms_c2c_stats *s, size_t i);

PMS_API_END
#ifdef __cplusplus
}
#endif

#endif
