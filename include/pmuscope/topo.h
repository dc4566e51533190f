/* CPU, cache and NUMA topology, sub-NUMA clustering, and the uncore box ->
 * NUMA node mapping, all read through the kernel seam (so snapshots replay).
 *
 * Ownership: pms_topo_load() gives the caller a struct pms_topo released with
 * pms_topo_free(), and pms_uncore_map() an array released with
 * pms_uncore_boxes_free(); every pointer inside them is owned by that object.
 * The topo and PMU list passed in are borrowed and may be freed afterwards.
 */
#ifndef PMUSCOPE_TOPO_H
#define PMUSCOPE_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/cpuset.h"
#include "pmuscope/pmu.h"
#include "pmuscope/sys.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* One logical CPU (a cpuN directory).  Fields the kernel did not provide
 * (offline CPUs have no topology/ directory) are -1 / 0 / empty. */
struct pms_topo_cpu {
	int cpu;
	bool online;
	int package;  /* topology/physical_package_id */
	int die;      /* topology/die_id (-1 on most non-x86) */
	int cluster;  /* topology/cluster_id */
	int core;     /* topology/core_id (unique only within a package) */
	int node;     /* NUMA node whose cpulist holds it, -1 if none */
	int l3;       /* logical L3 number (0..nl3-1, in order of first CPU), -1 if none */
	struct pms_cpuset smt_siblings; /* topology/thread_siblings_list (includes cpu) */
	unsigned capacity; /* cpu_capacity (arm64/riscv), 0 if absent */
	uint64_t midr;     /* regs/identification/midr_el1, 0 if absent */
	int core_type;     /* pms_topo_core_type_at's index, -1 if offline */
};

enum pms_cache_type {
	PMS_CACHE_UNIFIED = 0,
	PMS_CACHE_DATA,
	PMS_CACHE_INSTRUCTION,
};

/* One cache instance, deduplicated by (level, type, shared CPUs). */
struct pms_topo_cache {
	int level;
	enum pms_cache_type type;
	int id;            /* cache/indexN/id, -1 if absent */
	int logical;       /* 0.. within its level and type, in order of first CPU */
	uint64_t size;     /* bytes, 0 if absent */
	struct pms_cpuset cpus; /* shared_cpu_list (or shared_cpu_map) */
};

/* One online NUMA node (a nodeN directory), including memory-only nodes. */
struct pms_topo_node {
	int id;
	struct pms_cpuset cpus; /* cpulist, or the hex cpumap where cpulist is absent */
	bool has_cpu;           /* listed in node/has_cpu (or cpus not empty) */
	bool has_memory;        /* listed in node/has_memory (true if the file is absent) */
	int *distances;         /* nodeN/distance; distances[i] is to pms_topo_node_at(i) */
	size_t ndistances;      /* == pms_topo_node_count when the file was consistent, else 0 */
	uint64_t *mem_blocks;   /* sorted memory block numbers (nodeN/memoryM) */
	size_t nmem_blocks;
	/* nodeN/meminfo MemTotal and MemFree in bytes (drivers/base/node.c
	 * node_read_meminfo), read at load time; 0 when the file is absent */
	uint64_t mem_total;
	uint64_t mem_free;
};

/* One package (socket). */
struct pms_topo_package {
	int id;
	struct pms_cpuset cpus;  /* its online CPUs */
	struct pms_cpuset nodes; /* nodes holding those CPUs */
	int ndies;
	int nl3;
	/* Sub-NUMA clustering: NUMA nodes per L3 (1 = none, 2 = SNC2 ...). */
	int snc;
};

/* A kind of core (big.LITTLE / hybrid); index 0 is the least capable. */
struct pms_topo_core_type {
	int index;
	uint64_t midr;       /* implementer+part bits of MIDR_EL1 (0 if unknown) */
	const char *name;    /* "Cortex-X925" from the MIDR table, or NULL */
	unsigned capacity;   /* smallest cpu_capacity among its CPUs, 0 if absent */
	uint64_t base_khz;   /* cpufreq/base_frequency where that told them apart, else 0 */
	struct pms_cpuset cpus;
};

/* The topology (opaque): read it through the functions below.  The CPUs,
 * caches, nodes, packages and core types are plain rows, walked by count
 * and index (pms_topo_*_count / pms_topo_*_at, NULL past the end or for a
 * NULL topology) or looked up by id. */
struct pms_topo;

/* Read the topology below sys's root.  Missing optional files give -1/0
 * fields; a malformed file fails with a message naming it. */
int pms_topo_load(struct pms_sys *sys, struct pms_topo **out);
void pms_topo_free(struct pms_topo *topo);
/* Only the CPU identity, with the same readers: vendor, family, model,
 * stepping, model name, hypervisor, and cpus[] with just cpu and midr (no
 * other field is filled).  Works on snapshots that hold only proc/cpuinfo;
 * fails only on a malformed file. */
int pms_topo_load_cpuid(struct pms_sys *sys, struct pms_topo **out);

/* Lookups; NULL / -1 / negative PMS_E* when not found. */
const struct pms_topo_cpu *pms_topo_cpu(const struct pms_topo *topo, int cpu);
const struct pms_topo_node *pms_topo_node(const struct pms_topo *topo, int node);
/* The nodes in id order: how many, and the i-th (NULL past the end or for a
 * NULL topology). */
size_t pms_topo_node_count(const struct pms_topo *topo);
const struct pms_topo_node *pms_topo_node_at(const struct pms_topo *topo, size_t i);
size_t pms_topo_cpu_count(const struct pms_topo *topo);
const struct pms_topo_cpu *pms_topo_cpu_at(const struct pms_topo *topo, size_t i);
/* Caches in order of (level, type, first CPU). */
size_t pms_topo_cache_count(const struct pms_topo *topo);
const struct pms_topo_cache *pms_topo_cache_at(const struct pms_topo *topo, size_t i);
size_t pms_topo_package_count(const struct pms_topo *topo);
const struct pms_topo_package *pms_topo_package_at(const struct pms_topo *topo, size_t i);
/* Core types, index 0 the least capable. */
size_t pms_topo_core_type_count(const struct pms_topo *topo);
const struct pms_topo_core_type *pms_topo_core_type_at(const struct pms_topo *topo, size_t i);

/* Whole-machine facts (NULL topology: "" / NULL / -1 / 0 / false). */
/* The online CPUs (an empty set for a NULL topology). */
const struct pms_cpuset *pms_topo_online(const struct pms_topo *topo);
/* From /proc/cpuinfo of the first processor: vendor ("GenuineIntel",
 * "AuthenticAMD", "ARM"; "" if absent), family, model, stepping (-1 if
 * absent), model name (NULL if absent). */
const char *pms_topo_vendor(const struct pms_topo *topo);
int pms_topo_family(const struct pms_topo *topo);
int pms_topo_model(const struct pms_topo *topo);
int pms_topo_stepping(const struct pms_topo *topo);
const char *pms_topo_model_name(const struct pms_topo *topo);
/* How a hypervisor was told (pms_hypervisor_detect), "" on bare metal. */
const char *pms_topo_hypervisor(const struct pms_topo *topo);
/* L3 domains; the largest per-package SNC count (1 = no sub-NUMA
 * clustering); whether the SNC nodes of a package are closer to each other
 * than to other packages' nodes (false when distances are missing or
 * disagree). */
int pms_topo_l3_count(const struct pms_topo *topo);
int pms_topo_snc(const struct pms_topo *topo);
bool pms_topo_snc_distances_agree(const struct pms_topo *topo);
/* No node directory: one node 0 was made up. */
bool pms_topo_numa_synthetic(const struct pms_topo *topo);
/* Some CPU is in several nodes' cpulists (broken firmware tables); each CPU
 * keeps its lowest node. */
bool pms_topo_numa_overlap(const struct pms_topo *topo);
/* memory/block_size_bytes, 0 if absent. */
uint64_t pms_topo_mem_block_size(const struct pms_topo *topo);
const struct pms_topo_package *pms_topo_package(const struct pms_topo *topo, int package);
int pms_topo_node_of_cpu(const struct pms_topo *topo, int cpu);
/* Distance between two node ids from the distance files, -1 if unknown. */
int pms_topo_distance(const struct pms_topo *topo, int from, int to);
/* Node holding physical address paddr, via memory blocks; PMS_ENOENT when no
 * block holds it, PMS_ENOTSUP when block_size_bytes is unknown. */
int pms_topo_node_of_phys(const struct pms_topo *topo, uint64_t paddr);
/* The d-th SNC domain (node) of a package, nodes ordered by lowest CPU;
 * -1 if out of range. */
int pms_topo_package_node(const struct pms_topo *topo, int package, int d);

const char *pms_cache_type_name(enum pms_cache_type t);
/* Name of an Arm core from its MIDR ("Cortex-A725"), NULL if not in the table. */
const char *pms_midr_core_name(uint64_t midr);
/* Vendor of an Arm MIDR's implementer ("Fujitsu" for 0x46), NULL if unknown. */
const char *pms_midr_vendor(uint64_t midr);
/* Whether this machine runs under a hypervisor: /sys/hypervisor/type, or the
 * "hypervisor" flag of /proc/cpuinfo (x86).  The one rule every caller uses;
 * what (may be NULL) says which evidence was found. */
bool pms_hypervisor_detect(const struct pms_sys *sys, char *what, size_t size);

/* ---- uncore box -> node ---------------------------------------------- */

enum pms_uncore_how {
	/* The package has one NUMA node: the kernel's cpumask CPU is right. */
	PMS_UNCORE_CPUMASK = 0,
	/* SNC: boxes of the family split evenly and in order over the package's
	 * SNC domains (CHA on Intel). */
	PMS_UNCORE_SPLIT,
	/* SNC: box index -> SNC domain from the platform's lookup table (IMC). */
	PMS_UNCORE_TABLE,
	/* The package has several nodes and no rule places the box: node is -1
	 * and the counts cover the whole package (warning says so). */
	PMS_UNCORE_PER_SOCKET,
};

/* One uncore PMU on one package. */
struct pms_uncore_box {
	const char *pmu;    /* PMU name ("uncore_cha_60"), owned by the array */
	const char *box;    /* family ("uncore_cha"), or the PMU name when it has none */
	int index;          /* box number, -1 if none */
	int package;
	int kernel_cpu;     /* the CPU the kernel's cpumask gives for this package */
	int node;           /* node the box belongs to, -1 = whole package */
	int reader_cpu;     /* CPU to open it on so per-node aggregation is right */
	int snc_domain;     /* 0.. within the package, -1 for PER_SOCKET */
	enum pms_uncore_how how;
	const char *warning; /* NULL, or why the node is not exact */
};

/* Compute, without changing anything, where each uncore box (PMU with a
 * cpumask, kind UNCORE) lives: one entry per (PMU, package in its cpumask),
 * ordered as the PMU list then by package.  Platform rules are data keyed by
 * vendor/family/model (src/topo/uncore_tables.c). */
int pms_uncore_map(const struct pms_topo *topo, const struct pms_pmus *pmus,
		   struct pms_uncore_box **out, size_t *n);
void pms_uncore_boxes_free(struct pms_uncore_box *boxes, size_t n);
const char *pms_uncore_how_name(enum pms_uncore_how how);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
