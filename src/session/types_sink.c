/* The session's data-type sink (types_sink.h): moved from the CLI's
 * report --types callbacks, so that a live run and files share it. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pmuscope/datasrc.h"
#include "pmuscope/symbols.h"
#include "session/types_sink.h"
#include "types/typeprof_int.h"
#include "util/error.h"

struct types_sink {
	struct pms_typeprof *tp;
	struct pms_maps *maps;
};

int types_sink_new(struct types_sink **out)
{
	struct types_sink *t = calloc(1, sizeof(*t));
	if (!t)
		return pms_err(PMS_ENOMEM, "types: sink");
	int rc = pms_typeprof_new(&t->tp);
	if (rc == 0)
		rc = pms_maps_new(&t->maps);
	if (rc == 0) /* the paths are the mappings', changed only here */
		ty_prof_memo_paths(t->tp, true);
	if (rc < 0) {
		types_sink_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int types_sink_twin(struct types_sink *t, struct types_sink **out)
{
	struct types_sink *n = calloc(1, sizeof(*n));
	if (!n)
		return pms_err(PMS_ENOMEM, "types: sink");
	int rc = ty_prof_twin(t->tp, &n->tp);
	if (rc == 0)
		rc = pms_maps_new(&n->maps);
	if (rc == 0)
		ty_prof_memo_paths(n->tp, true);
	if (rc < 0) {
		types_sink_free(n);
		return rc;
	}
	*out = n;
	return 0;
}

int types_sink_join(struct types_sink *t, struct types_sink *part)
{
	struct pms_maps *m = t->maps;
	t->maps = part->maps;
	part->maps = m;
	ty_prof_memo_paths(t->tp, true);
	ty_prof_memo_paths(part->tp, true);
	return ty_prof_merge(t->tp, part->tp);
}

void types_sink_free(struct types_sink *t)
{
	if (!t)
		return;
	pms_typeprof_free(t->tp);
	pms_maps_free(t->maps);
	free(t);
}

int types_sink_sideband(struct types_sink *t, const struct pms_record *rec)
{
	if (rec->type != PMS_RECORD_MMAP && rec->type != PMS_RECORD_MMAP2)
		return 0;
	const struct pms_rec_mmap *m = &rec->mmap;
	bool exec = rec->type == PMS_RECORD_MMAP2 ? (m->prot & PROT_EXEC) != 0
						 : !(rec->misc & PMS_MISC_MMAP_DATA);
	if (!exec || !m->filename)
		return 0;
	/* a mapping the maps refuse (empty) is left out, not fatal; the
	 * paths of those it replaces are freed: the profile forgets them */
	ty_prof_memo_paths(t->tp, true);
	int rc = pms_maps_add(t->maps, m->addr, m->len, m->pgoff, m->ino, true, m->filename);
	return rc == PMS_ENOMEM ? rc : 0;
}

/* The profile's sample of ms (its IP placed in the sink's mappings),
 * written in place (each sample passes here). */
static void sink_sample_of(struct types_sink *t, const struct pms_memsample *ms, int mem_node,
			   int cpu_node, struct pms_typeprof_sample *s)
{
	s->ip = ms->ip;
	s->addr = ms->addr;
	s->has_addr = (ms->valid & PMS_MS_ADDR) != 0;
	s->kernel = (ms->valid & PMS_MS_KERNEL_IP) != 0;
	s->tid = ms->tid;
	s->weight = ms->weight;
	s->has_weight = (ms->valid & PMS_MS_WEIGHT) != 0;
	s->mem_node = mem_node;
	s->cpu_node = cpu_node;
	s->store = -1;
	s->hitm = false;
	if (ms->valid & PMS_MS_DATA_SRC) {
		uint64_t op = ms->data_src & 0x1f;
		s->store = op & PMS_MEM_OP_STORE ? 1 : op & PMS_MEM_OP_LOAD ? 0 : -1;
		/* the snoop field exactly HitM (pms_datasrc_stat_snoop's "HitM") */
		s->hitm = ((ms->data_src >> PMS_MEM_SNOOP_SHIFT) &
			   ((1u << PMS_MEM_SNOOP_WIDTH) - 1)) == PMS_MEM_SNOOP_HITM;
	}
	const struct pms_map *m = s->kernel ? NULL : pms_maps_find(t->maps, ms->ip);
	bool file = m && m->kind == PMS_MAP_FILE;
	s->path = file ? m->path : NULL;
	s->map_start = file ? m->start : 0;
	s->map_pgoff = file ? m->pgoff : 0;
}

int types_sink_sample(struct types_sink *t, const struct pms_memsrc_sample *x,
		      struct pms_type_hit *hit)
{
	const struct pms_memsample *ms = &x->ms;
	if (!(ms->valid & PMS_MS_IP)) {
		if (hit) {
			memset(hit, 0, sizeof(*hit));
			hit->status = PMS_TYPE_NO_BINARY;
		}
		return 0;
	}
	struct pms_typeprof_sample s;
	sink_sample_of(t, ms, x->mem_node, x->cpu_node, &s);
	int rc = pms_typeprof_add(t->tp, &s, hit);
	return rc < 0 ? rc : 0;
}

int types_sink_hit(struct types_sink *t, const struct pms_memsample *ms, struct pms_type_hit *hit)
{
	if (!(ms->valid & PMS_MS_IP)) {
		memset(hit, 0, sizeof(*hit));
		hit->status = PMS_TYPE_NO_BINARY;
		return 0;
	}
	struct pms_typeprof_sample s;
	sink_sample_of(t, ms, -1, -1, &s);
	return pms_typeprof_hit(t->tp, &s, hit);
}

struct pms_typeprof *types_sink_profile(struct types_sink *t)
{
	return t->tp;
}
