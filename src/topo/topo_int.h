/* Internal to the library: the body of struct pms_topo, which the public
 * header keeps opaque (callers use the pms_topo_* accessors).  src/topo
 * fills it; other concerns and tests that read it whole include this. */
#ifndef PMS_TOPO_INT_H
#define PMS_TOPO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/topo.h"

struct pms_topo {
	struct pms_topo_cpu *cpus; /* sorted by cpu number */
	size_t ncpus;
	struct pms_cpuset online;
	struct pms_topo_cache *caches;
	size_t ncaches;
	struct pms_topo_node *nodes; /* sorted by id */
	size_t nnodes;
	bool numa_synthetic; /* no node directory: one node 0 was made up */
	/* Some CPU is in several nodes' cpulists (broken firmware tables, as in
	 * hwloc's 8em64t-2s2ca2c-buggynuma); each CPU keeps its lowest node. */
	bool numa_overlap;
	struct pms_topo_package *packages; /* sorted by id */
	size_t npackages;
	struct pms_topo_core_type *core_types;
	size_t ncore_types;
	int nl3;
	int snc; /* largest per-package SNC count (1 = no sub-NUMA clustering) */
	/* SNC nodes of one package are closer to each other than to other
	 * packages' nodes (false when distances are missing or disagree). */
	bool snc_distances_agree;
	uint64_t mem_block_size; /* memory/block_size_bytes, 0 if absent */
	/* From /proc/cpuinfo of the first processor ("" / -1 if absent). */
	char vendor[32];   /* "GenuineIntel", "AuthenticAMD", "ARM" ... */
	int family;
	int model;
	int stepping;
	char *model_name;  /* NULL if absent */
	/* How a hypervisor was told (pms_hypervisor_detect), "" on bare metal. */
	char hypervisor[96];
};

#endif
