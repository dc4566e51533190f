/* perf.data reader (include/pmuscope/perfdata.h), split from reader.c:
 * the perf-tool records that carry header data or id maps (pipe mode's
 * HEADER_ATTR, HEADER_FEATURE, HEADER_BUILD_ID; AUXTRACE_INFO, TIME_CONV,
 * ID_INDEX), the AUX records' tasks, and the reader's accessors.  reader.c
 * keeps the file's sections and the per-record loop. */
#include "reader_int.h"

#include "util/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- id -> attr ----------------------------------------------------------- */

static int idmap_put(struct idmap *m, uint64_t id, uint32_t idx)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		uint64_t *nk = calloc(ncap, sizeof(*nk));
		uint32_t *nv = calloc(ncap, sizeof(*nv));
		if (!nk || !nv) {
			free(nk);
			free(nv);
			return pms_err(PMS_ENOMEM, "perf.data reader: out of memory for ids");
		}
		for (size_t i = 0; i < m->cap; i++) {
			size_t j;
			if (!m->vals[i])
				continue;
			for (j = pd_idmix(m->keys[i]) & (ncap - 1); nv[j]; j = (j + 1) & (ncap - 1))
				;
			nk[j] = m->keys[i];
			nv[j] = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		m->keys = nk;
		m->vals = nv;
		m->cap = ncap;
	}
	for (size_t j = pd_idmix(id) & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
		if (!m->vals[j]) {
			m->keys[j] = id;
			m->vals[j] = idx + 1;
			m->n++;
			return 0;
		}
		if (m->keys[j] == id) {
			m->vals[j] = idx + 1; /* the later mapping wins, as in perf */
			return 0;
		}
	}
}

/* ---- attrs ------------------------------------------------------------------ */

/* Add an attr from its recorded bytes (host order after swapping). */
int pd_add_attr(struct pms_perfdata_reader *r, const unsigned char *abytes, size_t asz,
		const unsigned char *ids, uint64_t nids, const char *where, uint64_t off)
{
	struct rattr *grown, *a;
	unsigned char tmp[512];
	size_t copy = asz < sizeof(struct perf_event_attr) ? asz : sizeof(struct perf_event_attr);

	if (asz > sizeof(tmp))
		return pms_err(PMS_EPARSE,
			       "perf.data: %s at offset %" PRIu64 ": attr.size %zu is not a "
			       "perf_event_attr size (64..%zu)",
			       where, off, asz, sizeof(tmp));
	if (r->nattrs >= 1u << 20)
		return pms_err(PMS_EPARSE, "perf.data: %s at offset %" PRIu64 ": too many attrs",
			       where, off);
	grown = realloc(r->attrs, (r->nattrs + 1) * sizeof(*grown));
	if (!grown)
		return pms_err(PMS_ENOMEM, "perf.data reader: out of memory for attrs");
	r->attrs = grown;
	/* Re-point the public views: realloc may have moved them. */
	for (size_t i = 0; i < r->nattrs; i++)
		r->attrs[i].pub.attr = &r->attrs[i].attr;
	a = &r->attrs[r->nattrs];
	memset(a, 0, sizeof(*a));
	memcpy(tmp, abytes, asz);
	if (r->swap)
		pd_swap_attr(tmp, asz);
	memcpy(&a->attr, tmp, copy);
	a->pub.recorded_size = a->attr.size;
	a->attr.size = (uint32_t)copy;
	if (nids) {
		a->ids = malloc(nids * sizeof(uint64_t));
		if (!a->ids)
			return pms_err(PMS_ENOMEM, "perf.data reader: out of memory for ids");
		for (uint64_t i = 0; i < nids; i++) {
			int rc;
			a->ids[i] = pd_rd64(r, ids + i * 8);
			rc = idmap_put(&r->ids, a->ids[i], (uint32_t)r->nattrs);
			if (rc < 0) {
				free(a->ids);
				return rc;
			}
		}
	}
	a->pub.attr = &a->attr;
	a->pub.ids = a->ids;
	a->pub.nids = (size_t)nids;
	a->pub.sample_type = a->attr.sample_type;
	pms_sample_layout_from_attr(&a->layout, &a->attr);
	pms_sample_fixed_layout(&a->layout, &a->fixed);
	if (a->attr.sample_type & PMS_SAMPLE_PHYS_ADDR)
		r->any_phys = true;
	r->nattrs++;
	return 0;
}

/* The recorded attr.size at p (0 means PERF_ATTR_SIZE_VER0). */
size_t pd_attr_recorded_size(const struct pms_perfdata_reader *r, const unsigned char *p)
{
	uint32_t sz = pd_rd32(r, p + 4);
	return sz ? sz : PD_ATTR_VER0;
}

/* ---- perf-tool records ------------------------------------------------------- */

/* perf-tool records that carry header data (pipe mode) or id maps. */
int pd_user_record(struct pms_perfdata_reader *r, const unsigned char *p, size_t len,
		       uint32_t type, uint64_t off)
{
	switch (type) {
	case PD_HEADER_ATTR: {
		size_t asz;
		if (len < 8 + PD_ATTR_VER0)
			return pms_err(PMS_EPARSE, "perf.data: HEADER_ATTR at offset %" PRIu64
						   " is %zu bytes, too short for an attr",
				       off, len);
		asz = pd_attr_recorded_size(r, p + 8);
		if (asz < PD_ATTR_VER0 || asz > len - 8 || (len - 8 - asz) % 8)
			return pms_err(PMS_EPARSE,
				       "perf.data: HEADER_ATTR at offset %" PRIu64 ": attr.size %zu "
				       "does not fit its %zu-byte record",
				       off, asz, len);
		return pd_add_attr(r, p + 8, asz, p + 8 + asz, (len - 8 - asz) / 8, "HEADER_ATTR",
				off);
	}
	case PD_HEADER_FEATURE: {
		uint64_t feat;
		if (len < 16)
			return pms_err(PMS_EPARSE, "perf.data: HEADER_FEATURE at offset %" PRIu64
						   " has no feature number", off);
		feat = pd_rd64(r, p + 8);
		if (feat >= PMS_PERFDATA_FEAT_MAX)
			return pms_err(PMS_EPARSE, "perf.data: HEADER_FEATURE at offset %" PRIu64
						   ": feature %" PRIu64 " is out of range", off, feat);
		if (feat == 1) {
			r->info.has[0] |= 2;
			return 0;
		}
		return pd_feature_parse(r, (unsigned)feat, p + 16, len - 16, off + 16);
	}
	case PD_HEADER_BUILD_ID: {
		struct pms_perfdata_info *in = &r->info;
		struct pms_perfdata_build_id *v = pd_alloc(r, (in->nbuild_ids + 1) * sizeof(*v));
		if (!v)
			return pms_err(PMS_ENOMEM, "perf.data reader: out of memory");
		if (in->nbuild_ids)
			memcpy(v, in->build_ids, in->nbuild_ids * sizeof(*v));
		if (pd_build_id_add(r, p, len, r->swap, &v[in->nbuild_ids]) < 0)
			return pms_err(PMS_EPARSE, "perf.data: HEADER_BUILD_ID at offset %" PRIu64
						   " is malformed", off);
		in->build_ids = v;
		in->nbuild_ids++;
		in->has[0] |= UINT64_C(1) << PMS_PERFDATA_FEAT_BUILD_ID;
		return 0;
	}
	case PD_AUXTRACE_INFO: {
		/* u32 type, u32 reserved, u64 priv[] (perf/event.h). */
		uint64_t *priv;
		size_t n;
		if (len < 16)
			return pms_err(PMS_EPARSE, "perf.data: AUXTRACE_INFO at offset %" PRIu64
						   " has no type", off);
		if (r->info.auxtrace_type)
			return 0; /* perf keeps the first one too */
		n = (len - 16) / 8;
		priv = pd_alloc(r, n ? n * 8 : 8);
		if (!priv)
			return pms_err(PMS_ENOMEM, "perf.data reader: out of memory");
		for (size_t i = 0; i < n; i++)
			priv[i] = pd_rd64(r, p + 16 + i * 8);
		r->info.auxtrace_type = pd_rd32(r, p + 8);
		r->info.auxtrace_priv = priv;
		r->info.nauxtrace_priv = n;
		return 0;
	}
	case PD_TIME_CONV: {
		/* struct perf_record_time_conv: 3 u64s, then (since perf 5.13)
		 * time_cycles, time_mask and the two capability bytes. */
		struct pms_spe_time_conv tc = { 0 };
		if (len < 8 + 24)
			return pms_err(PMS_EPARSE, "perf.data: TIME_CONV at offset %" PRIu64
						   " is %zu bytes, too short for its 3 words", off, len);
		if (r->info.has_time_conv)
			return 0; /* the first one, as AUXTRACE_INFO */
		tc.time_shift = pd_rd64(r, p + 8);
		tc.time_mult = pd_rd64(r, p + 16);
		tc.time_zero = pd_rd64(r, p + 24);
		tc.cap_user_time_zero = true;
		if (len >= 8 + 40 + 2) {
			tc.time_cycles = pd_rd64(r, p + 32);
			tc.time_mask = pd_rd64(r, p + 40);
			tc.cap_user_time_zero = p[48] != 0;
			tc.cap_user_time_short = p[49] != 0;
		}
		r->info.time_conv = tc;
		r->info.has_time_conv = true;
		return 0;
	}
	case PD_ID_INDEX: {
		/* u64 nr, then nr {id, idx, cpu, tid} (perf/event.h
		 * id_index_entry); idx is the ring-buffer index, not the
		 * attr's, so the entries only need to fit.  Newer perf may
		 * append a second table after them. */
		uint64_t nr;
		if (len < 16)
			return pms_err(PMS_EPARSE, "perf.data: ID_INDEX at offset %" PRIu64
						   " has no count", off);
		nr = pd_rd64(r, p + 8);
		if (nr > (len - 16) / 32)
			return pms_err(PMS_EPARSE,
				       "perf.data: ID_INDEX at offset %" PRIu64 ": %" PRIu64
				       " entries do not fit its %zu bytes",
				       off, nr, len);
		return 0;
	}
	default:
		return 0;
	}
}

/* A PERF_RECORD_AUX: its CPU's task, for that CPU's AUXTRACE chunks. */
int pd_aux_task_note(struct pms_perfdata_reader *r, const struct pms_record *rec)
{
	const struct pms_sample_id *id = &rec->sample_id;
	if (!(id->present & PMS_SAMPLE_CPU) || !(id->present & PMS_SAMPLE_TID) || id->cpu >= 4096)
		return 0;
	if (id->cpu >= r->naux_task) {
		size_t n = (size_t)id->cpu + 64;
		struct aux_task *v = realloc(r->aux_task, n * sizeof(*v));
		if (!v)
			return pms_err(PMS_ENOMEM, "perf.data: out of memory for the AUX task table");
		memset(v + r->naux_task, 0, (n - r->naux_task) * sizeof(*v));
		r->aux_task = v;
		r->naux_task = n;
	}
	r->aux_task[id->cpu] = (struct aux_task){ true, id->pid, id->tid };
	return 0;
}

/* An AUXTRACE chunk's task (pms_perfdata_event.aux_pid/aux_tid). */
void pd_aux_task_of(const struct pms_perfdata_reader *r, struct pms_perfdata_event *ev)
{
	uint32_t cpu = ev->auxtrace.cpu;
	if (ev->auxtrace.tid != UINT32_MAX) {
		ev->aux_tid = ev->auxtrace.tid; /* a per-thread buffer */
	} else if (cpu < r->naux_task && r->aux_task[cpu].valid) {
		ev->aux_pid = r->aux_task[cpu].pid;
		ev->aux_tid = r->aux_task[cpu].tid;
	}
}

/* ---- accessors ----------------------------------------------------------------- */

const struct pms_perfdata_info *pms_perfdata_reader_info(const struct pms_perfdata_reader *r)
{
	return r ? &r->info : NULL;
}

size_t pms_perfdata_reader_nattrs(const struct pms_perfdata_reader *r)
{
	return r ? r->nattrs : 0;
}

const struct pms_perfdata_attr *pms_perfdata_reader_attr(const struct pms_perfdata_reader *r,
							 size_t i)
{
	return r && i < r->nattrs ? &r->attrs[i].pub : NULL;
}

const struct pms_perfdata_stats *pms_perfdata_reader_stats(const struct pms_perfdata_reader *r)
{
	return r ? &r->stats : NULL;
}

bool pms_perfdata_reader_is_pipe(const struct pms_perfdata_reader *r)
{
	return r && r->pipe;
}

bool pms_perfdata_reader_swapped(const struct pms_perfdata_reader *r)
{
	return r && r->swap;
}

uint64_t pms_perfdata_reader_attr_size(const struct pms_perfdata_reader *r)
{
	return r ? r->attr_size : 0;
}

size_t pms_perfdata_reader_nproblems(const struct pms_perfdata_reader *r)
{
	return r ? r->nproblems_all : 0;
}

const char *pms_perfdata_reader_problem(const struct pms_perfdata_reader *r, size_t i)
{
	return r && i < r->nproblems ? r->problems[i] : NULL;
}

const char *pms_perfdata_reader_last_skip(const struct pms_perfdata_reader *r)
{
	return r ? r->skipmsg : "";
}

int pms_perfdata_reader_node_of_phys(const struct pms_perfdata_reader *r, uint64_t phys)
{
	const struct pms_perfdata_info *in;
	uint64_t block;

	if (!r)
		return pms_err(PMS_EINVAL, "pms_perfdata_reader_node_of_phys: reader is NULL");
	in = &r->info;
	if (!in->nmem)
		return pms_err(PMS_ENOTSUP,
			       "perf.data: no MEM_TOPOLOGY header (perf writes it since 4.19 "
			       "when /sys/devices/system/memory exists): the physical address "
			       "cannot be put on a node offline");
	if (!in->mem_block_size)
		return pms_err(PMS_ENOTSUP,
			       "perf.data: MEM_TOPOLOGY has block size 0; nodes cannot be resolved");
	block = phys / in->mem_block_size;
	for (size_t i = 0; i < in->nmem; i++) {
		const struct pms_perfdata_mem_node *m = &in->mem[i];
		if (block < m->nbits && (m->bitmap[block / 64] >> (block % 64)) & 1)
			return m->node > INT32_MAX ? PMS_ERANGE : (int)m->node;
	}
	return pms_err(PMS_ENOENT,
		       "perf.data: physical address 0x%" PRIx64 " (memory block %" PRIu64
		       ") is in no node's block list in MEM_TOPOLOGY",
		       phys, block);
}

const char *pms_perfdata_reader_nodes_why(const struct pms_perfdata_reader *r)
{
	struct pms_perfdata_reader *w = (struct pms_perfdata_reader *)r;
	if (!r)
		return "no reader";
	if (r->any_phys && r->info.nmem && r->info.mem_block_size)
		return NULL;
	snprintf(w->nodes_why, sizeof(w->nodes_why), "%s%s%s",
		 r->any_phys ? "" : "no event samples PHYS_ADDR (record with pmuscope mem --phys, or perf record --phys-data)",
		 !r->any_phys && !(r->info.nmem && r->info.mem_block_size) ? "; " : "",
		 !r->info.nmem ? "the file has no MEM_TOPOLOGY header"
		 : !r->info.mem_block_size ? "MEM_TOPOLOGY has block size 0" : "");
	return w->nodes_why;
}
