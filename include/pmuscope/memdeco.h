/* The decoration stage of a memory sample: what a converted sample
 * (pms_memsample_from_sample, the SPE decoder) gets from its source, decided
 * in one place for the live sampler, a perf.data file and `pmuscope script`:
 *   - the node of its CPU (the live topology, or the file's NUMA_TOPOLOGY);
 *   - the node of its physical address (the live topology's memory blocks,
 *     or the file's MEM_TOPOLOGY), as an id or an enum pms_node_status;
 *   - the perf time of an SPE timestamp in a file (its TIME_CONV; the live
 *     AUX path converts with its ring's user page).
 * A context is built once per source; pms_memdeco_apply is a plain function
 * over one sample, with no allocation and no formatted message per sample.
 * Ownership: a pms_memdeco from pms_memdeco_new_* belongs to the caller
 * (pms_memdeco_free); the topology or reader it was built from is borrowed
 * and must outlive it.
 */
#ifndef PMUSCOPE_MEMDECO_H
#define PMUSCOPE_MEMDECO_H

#include <stdbool.h>
#include <stdint.h>

#include "pmuscope/api.h"
#include "pmuscope/memsample.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

struct pms_memdeco;
struct pms_topo;
struct pms_perfdata_reader;
struct pms_spe_time_conv;

/* What the stage decided for one sample. */
struct pms_memdeco_out {
	/* >= 0 node id; a status (enum pms_node_status); PMS_NODE_UNKNOWN
	 * when nothing could tell (the live oracle may resolve it later). */
	int mem_node;
	int cpu_node;        /* >= 0, or -1 unknown */
	bool node_from_phys; /* mem_node came from the physical address */
};

/* A context over the live topology (may be NULL: no nodes).  Only found
 * nodes are given: an address in no block stays PMS_NODE_UNKNOWN for the
 * live oracle. */
int pms_memdeco_new_live(const struct pms_topo *topo, struct pms_memdeco **out);
/* A context over a reader: CPU nodes from NUMA_TOPOLOGY, memory nodes from
 * MEM_TOPOLOGY when pms_perfdata_reader_nodes_why() is NULL (else
 * PMS_NODE_UNKNOWN: nothing alive to ask), SPE times from TIME_CONV.  In
 * pipe mode, build it once the headers have come (the first sample). */
int pms_memdeco_new_file(const struct pms_perfdata_reader *rd, struct pms_memdeco **out);
void pms_memdeco_free(struct pms_memdeco *d);

/* The nodes of one sample: cpu_node from ms->cpu when PMS_MS_CPU is set,
 * mem_node from *phys, the physical address as the source recorded it (0:
 * the kernel had no translation, perf_virt_to_phys), or PMS_NODE_UNKNOWN
 * when phys is NULL (none recorded). */
void pms_memdeco_apply(const struct pms_memdeco *d, const struct pms_memsample *ms,
		       const uint64_t *phys, struct pms_memdeco_out *out);
/* The node of a CPU (-1: unknown). */
int pms_memdeco_cpu_node(const struct pms_memdeco *d, int cpu);
/* An SPE sample's counter timestamp into perf time: ms->time converted, or
 * PMS_MS_TIME cleared and time 0 when there is no conversion. */
void pms_memdeco_spe_time(const struct pms_memdeco *d, struct pms_memsample *ms);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
