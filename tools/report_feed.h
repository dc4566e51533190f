/* The samples of a recorded perf.data file as memory samples with their
 * nodes (cmd_report.c); `pmuscope report` and `pmuscope c2c -i` share them
 * until the one sample path (include/pmuscope/memsrc.h) takes their place. */
#ifndef PMS_TOOLS_REPORT_FEED_H
#define PMS_TOOLS_REPORT_FEED_H

#include <stdbool.h>
#include <stddef.h>

#include "pmuscope/memsample.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/symbols.h"

/* CPU -> node from the file's NUMA_TOPOLOGY cpu lists (-1: unknown). */
struct cpunodes {
	int *node;
	size_t n;
};
int cpunodes_load(const struct pms_perfdata_info *in, struct cpunodes *cn);
/* Engine of a recorded event, from its PMU's name or type. */
enum pms_engine attr_engine(const struct pms_perfdata_info *in, const struct pms_perfdata_attr *a);
/* One SAMPLE as the engine-neutral memory sample. */
void to_memsample(const struct pms_perfdata_event *ev, enum pms_engine eng, struct pms_memsample *m);
/* Memory node of a sample from PHYS_ADDR and MEM_TOPOLOGY, else not asked. */
int mem_node_of(const struct pms_perfdata_event *ev, bool nodes_ok);
/* An MMAP/MMAP2 record of a process: adds the stand-in mapping of an ELF's
 * offset 0 below its text when none is known; false for the kernel's own
 * maps or an empty one (then the record adds nothing). */
bool mmap_standin(struct pms_maps *pm, const struct pms_record *rec);

#endif
