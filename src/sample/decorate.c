/* The decoration stage of memory samples (include/pmuscope/memdeco.h): the
 * CPU node, the memory node from a physical address and the SPE time of a
 * sample, decided here once for the live sampler, perf.data files and
 * `pmuscope script`.  The per-sample functions read tables the context
 * built and never format a message. */
#include "sample/decorate_int.h"
#include "util/error.h"

#include "pmuscope/cpuset.h"
#include "pmuscope/spe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The status values are move_pages(2)'s, so the oracle's statuses need no
 * translation. */
_Static_assert(PMS_NODE_NO_BLOCK == -ENOENT && PMS_NODE_TASK_GONE == -ESRCH &&
		       PMS_NODE_NO_PHYS == -EFAULT && PMS_NODE_BAD_ADDR == -EINVAL,
	       "enum pms_node_status follows the errno values");

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
	case PMS_NODE_HOLD_BUDGET: return "released at the hold budget";
	case PMS_NODE_EXEC_REPLACED: return "exec replaced";
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

/* The MEM_TOPOLOGY node whose block bitmap holds phys (perf's rule), or
 * PMS_NODE_NO_BLOCK; the phys_nodes test made sure of a block size. */
int deco_file_phys_node(const struct pms_perfdata_info *in, uint64_t phys)
{
	uint64_t block = phys / in->mem_block_size;
	for (size_t i = 0; i < in->nmem; i++) {
		const struct pms_perfdata_mem_node *m = &in->mem[i];
		if (block < m->nbits && (m->bitmap[block / 64] >> (block % 64)) & 1)
			return m->node > INT32_MAX ? PMS_NODE_NO_BLOCK : (int)m->node;
	}
	return PMS_NODE_NO_BLOCK;
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
int pms_memdeco_cpu_node(const struct pms_memdeco *d, int cpu)
{
	return deco_cpu_node(d, cpu);
}

void pms_memdeco_apply(const struct pms_memdeco *d, const struct pms_memsample *ms,
		       const uint64_t *phys, struct pms_memdeco_out *out)
{
	if (d->file)
		deco_file_nodes(d, ms, phys, &out->mem_node, &out->cpu_node, &out->node_from_phys);
	else
		deco_live_nodes(d, ms, phys, &out->mem_node, &out->cpu_node, &out->node_from_phys);
}
