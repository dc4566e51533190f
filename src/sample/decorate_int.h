/* The decoration stage's context and its per-sample path, inline for the
 * sources of this module (memsrc.c); pmuscope/memdeco.h is its public face.
 * Internal to src/sample. */
#ifndef PMS_SAMPLE_DECORATE_INT_H
#define PMS_SAMPLE_DECORATE_INT_H

#include "pmuscope/memdeco.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/topo.h"

struct pms_memdeco {
	const struct pms_topo *topo;             /* live */
	const struct pms_perfdata_info *info;    /* file */
	bool file;
	bool phys_nodes;                         /* file: MEM_TOPOLOGY usable */
	int *cpunode;                            /* file: CPU -> node (NUMA_TOPOLOGY) */
	size_t ncpunode;
};

/* The MEM_TOPOLOGY node whose block bitmap holds phys, or
 * PMS_NODE_NO_BLOCK (decorate.c). */
int deco_file_phys_node(const struct pms_perfdata_info *in, uint64_t phys);

/* A recorded CPU's node from the file's NUMA_TOPOLOGY (-1: none). */
static inline int deco_file_cpu_node(const struct pms_memdeco *d, uint32_t cpu)
{
	return cpu < d->ncpunode ? d->cpunode[cpu] : -1;
}

static inline int deco_cpu_node(const struct pms_memdeco *d, int cpu)
{
	if (cpu < 0)
		return -1;
	if (!d->file) {
		int nd = d->topo ? pms_topo_node_of_cpu(d->topo, cpu) : -1;
		return nd >= 0 ? nd : -1;
	}
	return deco_file_cpu_node(d, (uint32_t)cpu);
}

/* The per-sample decision for a file source, writing straight into the
 * caller's fields: MEM_TOPOLOGY when nodes_why said it is usable (else not
 * known: nothing alive to ask); 0 is the kernel's "no translation"
 * (kernel/events/core.c perf_virt_to_phys). */
static inline void deco_file_nodes(const struct pms_memdeco *d, const struct pms_memsample *ms,
				   const uint64_t *phys, int *mem_node, int *cpu_node,
				   bool *from_phys)
{
	*cpu_node = (ms->valid & PMS_MS_CPU) ? deco_file_cpu_node(d, ms->cpu) : -1;
	if (!phys || !d->phys_nodes) {
		*mem_node = PMS_NODE_UNKNOWN;
		*from_phys = false;
		return;
	}
	*mem_node = *phys ? deco_file_phys_node(d->info, *phys) : PMS_NODE_NO_PHYS;
	*from_phys = *mem_node >= 0;
}

/* ... and for the live topology: only a found node; the rest is the
 * oracle's to ask. */
static inline void deco_live_nodes(const struct pms_memdeco *d, const struct pms_memsample *ms,
				   const uint64_t *phys, int *mem_node, int *cpu_node,
				   bool *from_phys)
{
	int nd = phys && d->topo ? pms_topo_node_of_phys(d->topo, *phys) : -1;
	*cpu_node = (ms->valid & PMS_MS_CPU) ? deco_cpu_node(d, (int)ms->cpu) : -1;
	*mem_node = nd >= 0 ? nd : PMS_NODE_UNKNOWN;
	*from_phys = nd >= 0;
}

#endif
