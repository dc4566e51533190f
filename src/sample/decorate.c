/* The decoration stage of memory samples (include/pmuscope/memdeco.h): the
 * CPU node, the memory node from a physical address and the SPE time of a
 * sample, decided here once for the live sampler, perf.data files and
 * `pmuscope script`.  The per-sample functions read tables the context
 * built and never format a message. */
#include "util/error.h"

#include "pmuscope/cpuset.h"
#include "pmuscope/memdeco.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/spe.h"
#include "pmuscope/topo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The status values are move_pages(2)'s, so the oracle's statuses need no
 * translation. */
_Static_assert(PMS_NODE_NO_BLOCK == -ENOENT && PMS_NODE_TASK_GONE == -ESRCH &&
		       PMS_NODE_NO_PHYS == -EFAULT && PMS_NODE_BAD_ADDR == -EINVAL,
	       "enum pms_node_status follows the errno values");

struct pms_memdeco {
	const struct pms_topo *topo;             /* live */
	const struct pms_perfdata_info *info;    /* file */
	bool file;
	bool phys_nodes;                         /* file: MEM_TOPOLOGY usable */
	int *cpunode;                            /* file: CPU -> node (NUMA_TOPOLOGY) */
	size_t ncpunode;
};

const char *pms_node_status_name(int node)
{
	if (node >= 0)
		return "node";
	switch (node) {
	case PMS_NODE_NO_BLOCK: return "in no memory block";
	case PMS_NODE_TASK_GONE: return "task gone";
	case PMS_NODE_NO_PHYS: return "no physical address";
	case PMS_NODE_BAD_ADDR: return "not a user page";
	case PMS_NODE_NOT_ASKED: return "not known";
	default: return "other";
	}
}

int pms_memdeco_new_live(const struct pms_topo *topo, struct pms_memdeco **out)
{
	struct pms_memdeco *d;
	if (!out)
		return pms_err(PMS_EINVAL, "memdeco_new_live: NULL argument");
	d = calloc(1, sizeof(*d));
	if (!d)
		return pms_err(PMS_ENOMEM, "out of memory for the decoration stage");
	d->topo = topo;
	*out = d;
	return 0;
}

/* CPU -> node from the file's NUMA_TOPOLOGY cpu lists; a list that does not
 * parse gives its node no CPU. */
static int file_cpu_table(struct pms_memdeco *d)
{
	const struct pms_perfdata_info *in = d->info;
	for (size_t i = 0; i < in->nnuma; i++) {
		struct pms_cpuset cs = { 0 };
		if (!in->numa[i].cpus || pms_cpuset_parse_list(&cs, in->numa[i].cpus) < 0) {
			pms_cpuset_fini(&cs); /* a failed parse may have grown it */
			continue;
		}
		for (int c = pms_cpuset_first(&cs); c >= 0; c = pms_cpuset_next(&cs, c + 1)) {
			if ((size_t)c >= d->ncpunode) {
				size_t n = (size_t)c + 64;
				int *v = realloc(d->cpunode, n * sizeof(*v));
				if (!v) {
					pms_cpuset_fini(&cs);
					return pms_err(PMS_ENOMEM, "out of memory for the CPU node table");
				}
				for (size_t k = d->ncpunode; k < n; k++)
					v[k] = -1;
				d->cpunode = v;
				d->ncpunode = n;
			}
			d->cpunode[c] = (int)in->numa[i].node;
		}
		pms_cpuset_fini(&cs);
	}
	return 0;
}

int pms_memdeco_new_file(const struct pms_perfdata_reader *rd, struct pms_memdeco **out)
{
	struct pms_memdeco *d;
	int rc;
	if (!rd || !out)
		return pms_err(PMS_EINVAL, "memdeco_new_file: NULL argument");
	d = calloc(1, sizeof(*d));
	if (!d)
		return pms_err(PMS_ENOMEM, "out of memory for the decoration stage");
	d->file = true;
	d->info = pms_perfdata_reader_info(rd);
	/* once per source: nodes_why formats its reason when there is one */
	d->phys_nodes = !pms_perfdata_reader_nodes_why(rd);
	if ((rc = file_cpu_table(d)) < 0) {
		pms_memdeco_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void pms_memdeco_free(struct pms_memdeco *d)
{
	if (!d)
		return;
	free(d->cpunode);
	free(d);
}

int pms_memdeco_cpu_node(const struct pms_memdeco *d, int cpu)
{
	if (cpu < 0)
		return -1;
	if (!d->file) {
		int nd = d->topo ? pms_topo_node_of_cpu(d->topo, cpu) : -1;
		return nd >= 0 ? nd : -1;
	}
	return (size_t)cpu < d->ncpunode ? d->cpunode[cpu] : -1;
}

/* The MEM_TOPOLOGY node whose block bitmap holds phys (perf's rule), or
 * PMS_NODE_NO_BLOCK; the phys_nodes test made sure of a block size. */
static int file_phys_node(const struct pms_perfdata_info *in, uint64_t phys)
{
	uint64_t block = phys / in->mem_block_size;
	for (size_t i = 0; i < in->nmem; i++) {
		const struct pms_perfdata_mem_node *m = &in->mem[i];
		if (block < m->nbits && (m->bitmap[block / 64] >> (block % 64)) & 1)
			return m->node > INT32_MAX ? PMS_NODE_NO_BLOCK : (int)m->node;
	}
	return PMS_NODE_NO_BLOCK;
}

void pms_memdeco_apply(const struct pms_memdeco *d, const struct pms_memsample *ms,
		       const uint64_t *phys, struct pms_memdeco_out *out)
{
	out->cpu_node = (ms->valid & PMS_MS_CPU) ? pms_memdeco_cpu_node(d, (int)ms->cpu) : -1;
	out->mem_node = PMS_NODE_UNKNOWN;
	out->node_from_phys = false;
	if (!phys)
		return;
	if (!d->file) {
		/* live: only a found node; the rest is the oracle's to ask */
		int nd = d->topo ? pms_topo_node_of_phys(d->topo, *phys) : -1;
		if (nd >= 0) {
			out->mem_node = nd;
			out->node_from_phys = true;
		}
		return;
	}
	if (!d->phys_nodes)
		return; /* nothing alive to ask: not known */
	/* 0 is the kernel's "no translation" (kernel/events/core.c
	 * perf_virt_to_phys) */
	out->mem_node = *phys ? file_phys_node(d->info, *phys) : PMS_NODE_NO_PHYS;
	out->node_from_phys = out->mem_node >= 0;
}

void pms_memdeco_spe_time(const struct pms_memdeco *d, struct pms_memsample *ms)
{
	uint64_t ns = 0;
	if ((ms->valid & PMS_MS_TIME) && d->file && d->info->has_time_conv &&
	    pms_spe_time_to_perf(&d->info->time_conv, ms->time, &ns)) {
		ms->time = ns;
		return;
	}
	ms->valid &= ~(uint32_t)PMS_MS_TIME;
	ms->time = 0;
}
