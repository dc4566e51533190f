/* perf.data from a memory-sample source (include/pmuscope/recorder.h): the
 * source's attrs and records, and the header features from this machine
 * through the seam, the topology and the PMU list.  The byte work (header,
 * sections, feature payloads) is the perfdata writer's. */
#include "pmuscope/perfdata.h"
#include "pmuscope/recorder.h"
#include "pmuscope/symbols.h"
#include "util/error.h"
#include "util/opts.h"
#include "topo/topo_int.h"
#include "recorder/recorder_int.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A record holds at most this many u64s. */
#define PMS_RECORDER_CHAIN_MAX (PMS_RECORD_MAX_SIZE / 8)

struct pms_recorder {
	struct pms_perfdata_writer *w;
	struct pms_recorder_opts o;
	size_t nattrs;
	struct pms_sample_layout *lay; /* per source attr */
	size_t side_attr;              /* the layout side-band records take */
	char **paths;                  /* distinct mapped files, for BUILD_ID */
	size_t npaths, cpaths;
	uint64_t skipped;
	bool aux_started;              /* TIME_CONV and AUXTRACE_INFO are down */
	uint32_t *aux_attr_type;       /* per source attr: its PMU type */
	uint64_t **ids;                /* per source attr: the ids written with it */
	size_t *nids;
	uint64_t aux_ref;              /* AUXTRACE reference: a counter */
	unsigned char buf[PMS_RECORD_MAX_SIZE + 8];
	uint64_t chain[PMS_RECORDER_CHAIN_MAX]; /* a callchain with its kernel part hidden */
};

PMS_OPTS_LAYOUT(PMS_RECORDER_OPTS, struct pms_recorder_opts,
		PMS_OPTS_END(struct pms_recorder_opts, hide_kernel_ips));

int pms_recorder_open(int fd, const struct pms_memsrc *src, const struct pms_recorder_opts *opts,
		      struct pms_recorder **out)
{
	struct pms_recorder_opts o;
	const struct pms_memsrc_attr *a;
	struct pms_recorder *r;
	size_t n = 0;
	int rc;

	if ((rc = PMS_OPTS_TAKE("pms_recorder_open", PMS_RECORDER_OPTS, opts, &o)) < 0)
		return rc;
	if (!src || !out)
		return pms_err(PMS_EINVAL, "recorder_open: NULL argument");
	*out = NULL;
	a = pms_memsrc_attrs(src, &n);
	if (!n)
		return pms_err(PMS_EINVAL, "recorder_open: the source has no events yet");
	r = calloc(1, sizeof(*r));
	if (!r)
		return pms_err(PMS_ENOMEM, "out of memory for a recorder");
	r->o = o;
	r->nattrs = n;
	r->lay = calloc(n, sizeof(*r->lay));
	r->aux_attr_type = calloc(n, sizeof(*r->aux_attr_type));
	r->ids = calloc(n, sizeof(*r->ids));
	r->nids = calloc(n, sizeof(*r->nids));
	if (!r->lay || !r->aux_attr_type || !r->ids || !r->nids) {
		rc = pms_err(PMS_ENOMEM, "out of memory for a recorder");
		goto out;
	}
	if ((rc = pms_perfdata_writer_open(fd, &r->w)) < 0)
		goto out;
	/* Sample events first: a reader without sample ids gives every
	 * record to the first attr. */
	r->side_attr = SIZE_MAX;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			if (a[i].samples != (pass == 0))
				continue;
			pms_sample_layout_from_attr(&r->lay[i], a[i].attr);
			r->aux_attr_type[i] = a[i].attr->type;
			if (r->side_attr == SIZE_MAX)
				r->side_attr = i;
			if (a[i].nids) {
				if (!(r->ids[i] = malloc(a[i].nids * sizeof(uint64_t)))) {
					rc = pms_err(PMS_ENOMEM, "out of memory for event ids");
					goto out;
				}
				memcpy(r->ids[i], a[i].ids, a[i].nids * sizeof(uint64_t));
				r->nids[i] = a[i].nids;
			}
			if ((rc = pms_perfdata_writer_add_attr(r->w, a[i].attr, a[i].ids,
							       a[i].nids)) < 0)
				goto out;
		}
	*out = r;
	r = NULL;
	rc = 0;
out:
	pms_recorder_free(r);
	return rc;
}

void pms_recorder_free(struct pms_recorder *r)
{
	if (!r)
		return;
	pms_perfdata_writer_free(r->w);
	for (size_t i = 0; i < r->npaths; i++)
		free(r->paths[i]);
	free(r->paths);
	free(r->lay);
	free(r->aux_attr_type);
	for (size_t i = 0; r->ids && i < r->nattrs; i++)
		free(r->ids[i]);
	free(r->ids);
	free(r->nids);
	free(r);
}

/* Whether id is one written with attr i (a sampler that adapted to loss
 * reopened its events: their records carry ids the file's attrs do not
 * list). */
static bool id_known(const struct pms_recorder *r, size_t i, uint64_t id)
{
	for (size_t k = 0; k < r->nids[i]; k++)
		if (r->ids[i][k] == id)
			return true;
	return false;
}

static int put(struct pms_recorder *r, const struct pms_sample_layout *l,
	       const struct pms_record *rec)
{
	size_t len = 0;
	int rc = pms_record_encode(l, rec, r->buf, sizeof(r->buf), &len);
	if (rc < 0)
		return rc;
	return pms_perfdata_writer_write(r->w, r->buf, len);
}

/* A callchain without its kernel part (PERF_CONTEXT_KERNEL and the frames
 * after it up to the next user marker), for a caller who may not see
 * kernel addresses; the user part stays as the kernel wrote it. */
static void hide_kernel_chain(struct pms_recorder *r, struct pms_sample *smp)
{
	const uint64_t ctx_max = (uint64_t)-4095, ctx_user = (uint64_t)-512;
	size_t k = 0;
	bool kernel = true;
	if (!(smp->present & PMS_SAMPLE_CALLCHAIN) || !smp->callchain_nr)
		return;
	for (uint64_t i = 0; i < smp->callchain_nr && k < PMS_RECORDER_CHAIN_MAX; i++) {
		uint64_t v = pms_u64_at(smp->callchain, (size_t)i);
		if (v >= ctx_max)
			kernel = v != ctx_user;
		if (!kernel)
			r->chain[k++] = v;
	}
	smp->callchain = r->chain;
	smp->callchain_nr = k;
}

int pms_recorder_sample(struct pms_recorder *r, const struct pms_memsrc_sample *s)
{
	if (!r || !s)
		return pms_err(PMS_EINVAL, "recorder_sample: NULL argument");
	if (!s->rec || s->attr_idx >= r->nattrs) {
		r->skipped++;
		return 0;
	}
	const struct pms_sample_layout *l = &r->lay[s->attr_idx];
	bool period = (l->sample_type & PMS_SAMPLE_PERIOD) &&
		      !(s->rec->sample.present & PMS_SAMPLE_PERIOD);
	bool id = (l->sample_type & (PMS_SAMPLE_ID | PMS_SAMPLE_IDENTIFIER)) &&
		  r->nids[s->attr_idx] && !id_known(r, s->attr_idx, s->rec->sample.id);
	/* every address in the kernel half, whatever the sample's mode (a
	 * user-mode sample's skid IP or data address may be one) */
	const struct pms_sample *sm = &s->rec->sample;
	bool hide = r->o.hide_kernel_ips &&
		    (sm->cpumode == PMS_MISC_KERNEL || (sm->ip >> 63) ||
		     ((sm->present & PMS_SAMPLE_ADDR) && (sm->addr >> 63)) ||
		     (sm->present & PMS_SAMPLE_CALLCHAIN));
	if (period || id || hide) {
		struct pms_record c = *s->rec;
		/* A sampler that adapted to loss (pms_sampler_opts.adapt)
		 * reopened its events with a larger period: a software event's
		 * new records leave PERIOD out (the kernel would sample every
		 * event with it), so each sample gets its period here, as perf
		 * writes a frequency-mode event's: one attr, a period in every
		 * sample, which perf report weights by.  The new events' ids
		 * are not in the attr's list: such a sample takes the event's
		 * first id, which names the same event. */
		if (period)
			c.sample.period = s->ms.period;
		if (id)
			c.sample.id = r->ids[s->attr_idx][0];
		if (hide) {
			if (c.sample.cpumode == PMS_MISC_KERNEL || (c.sample.ip >> 63))
				c.sample.ip = 0;
			if (c.sample.addr >> 63)
				c.sample.addr = 0;
			hide_kernel_chain(r, &c.sample);
		}
		return put(r, l, &c);
	}
	return put(r, l, s->rec);
}

int pms_recorder_aux(struct pms_recorder *r, const struct pms_memsrc_aux *a)
{
	int rc;

	if (!r || !a || !a->rec || (a->len && !a->data))
		return pms_err(PMS_EINVAL, "recorder_aux: NULL argument");
	if (a->attr_idx >= r->nattrs)
		return pms_err(PMS_EINVAL, "recorder_aux: event %zu of %zu", a->attr_idx, r->nattrs);
	if (!r->aux_started) {
		/* perf's arm_spe decoder copies the session's TIME_CONV when it
		 * meets AUXTRACE_INFO (tools/perf/util/arm-spe.c
		 * arm_spe_process_auxtrace_info), so TIME_CONV comes first.
		 * Version-1 metadata: perf 6.12 reads a version-2 record as
		 * version 1 (docs/spe.md). */
		uint64_t priv[2] = { r->aux_attr_type[a->attr_idx], a->cpu != UINT32_MAX };
		if (a->tc && (rc = pms_perfdata_writer_write_time_conv(r->w, a->tc)) < 0)
			return rc;
		if ((rc = pms_perfdata_writer_write_auxtrace_info(r->w, PMS_AUXTRACE_TYPE_ARM_SPE,
								  priv, 2)) < 0)
			return rc;
		r->aux_started = true;
	}
	if ((rc = put(r, &r->lay[a->attr_idx], a->rec)) < 0)
		return rc;
	if (!a->len)
		return 0;
	struct pms_perfdata_auxtrace t = { 0 };
	t.offset = a->rec->aux.aux_offset;
	t.reference = ++r->aux_ref;
	t.idx = a->idx;
	t.tid = a->tid;
	t.cpu = a->cpu;
	return pms_perfdata_writer_write_auxtrace(r->w, &t, a->data, a->len);
}

/* Remember a mapped file once (a process maps a few dozen). */
static int path_note(struct pms_recorder *r, const char *path)
{
	for (size_t i = 0; i < r->npaths; i++)
		if (!strcmp(r->paths[i], path))
			return 0;
	if (r->npaths == r->cpaths) {
		size_t n = r->cpaths ? 2 * r->cpaths : 32;
		char **v = realloc(r->paths, n * sizeof(*v));
		if (!v)
			return pms_err(PMS_ENOMEM, "out of memory for the mapped-file list");
		r->paths = v;
		r->cpaths = n;
	}
	if (!(r->paths[r->npaths] = strdup(path)))
		return pms_err(PMS_ENOMEM, "out of memory for the mapped-file list");
	r->npaths++;
	return 0;
}

int pms_recorder_sideband(struct pms_recorder *r, const struct pms_record *rec, size_t attr_idx)
{
	int rc;
	if (!r || !rec)
		return pms_err(PMS_EINVAL, "recorder_sideband: NULL argument");
	/* every side-band record takes the first attr's sample_id */
	if ((rec->type == PMS_RECORD_MMAP || rec->type == PMS_RECORD_MMAP2) && rec->mmap.filename &&
	    rec->mmap.filename[0] == '/' && (rc = path_note(r, rec->mmap.filename)) < 0)
		return rc;
	if (attr_idx < r->nattrs && r->nids[attr_idx] &&
	    (rec->sample_id.present & (PMS_SAMPLE_ID | PMS_SAMPLE_IDENTIFIER)) &&
	    !id_known(r, attr_idx, rec->sample_id.id)) {
		/* an event reopened by adaptation: its event's first id */
		struct pms_record c = *rec;
		c.sample_id.id = r->ids[attr_idx][0];
		return put(r, &r->lay[r->side_attr], &c);
	}
	return put(r, &r->lay[r->side_attr], rec);
}

/* "Node 0 MemTotal:  123 kB" from nodeN/meminfo text. */
static uint64_t meminfo_kb(const char *text, const char *key)
{
	const char *p = text ? strstr(text, key) : NULL;
	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static int host_features(struct pms_recorder *r, struct pms_sys *sys)
{
	struct pms_host_facts h;
	int rc = pms_host_facts_read(sys, &h);
	if (rc == 0 && h.has_hostname)
		rc = pms_perfdata_writer_set_string(r->w, PMS_PERFDATA_FEAT_HOSTNAME, h.hostname);
	if (rc == 0 && h.has_osrelease)
		rc = pms_perfdata_writer_set_string(r->w, PMS_PERFDATA_FEAT_OSRELEASE, h.osrelease);
	if (rc == 0 && h.has_arch)
		rc = pms_perfdata_writer_set_string(r->w, PMS_PERFDATA_FEAT_ARCH, h.arch);
	return rc;
}

/* NRCPUS, NUMA_TOPOLOGY and MEM_TOPOLOGY (tools/perf/util/header.c
 * write_nrcpus, write_numa_topology, write_mem_topology). */
static int topo_features(struct pms_recorder *r, struct pms_sys *sys,
			 const struct pms_topo *topo)
{
	size_t nn = topo->nnodes;
	struct pms_perfdata_numa_node *numa = calloc(nn ? nn : 1, sizeof(*numa));
	struct pms_perfdata_mem_node *mem = calloc(nn ? nn : 1, sizeof(*mem));
	char **cpus = calloc(nn ? nn : 1, sizeof(*cpus));
	uint64_t **bits = calloc(nn ? nn : 1, sizeof(*bits));
	uint64_t nbits = 0;
	uint32_t avail = 0;
	int rc;

	if (!numa || !mem || !cpus || !bits) {
		rc = pms_err(PMS_ENOMEM, "out of memory for the topology features");
		goto out;
	}
	for (size_t i = 0; i < topo->ncpus; i++)
		if ((uint32_t)topo->cpus[i].cpu + 1 > avail)
			avail = (uint32_t)topo->cpus[i].cpu + 1;
	rc = pms_perfdata_writer_set_nrcpus(r->w, (uint32_t)pms_cpuset_count(&topo->online), avail);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < nn; i++) {
		const struct pms_topo_node *n = &topo->nodes[i];
		char rel[96], *text = NULL;
		if (!(cpus[i] = malloc(4096))) {
			rc = pms_err(PMS_ENOMEM, "out of memory for the topology features");
			goto out;
		}
		pms_cpuset_format(&n->cpus, cpus[i], 4096);
		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/meminfo", n->id);
		if (pms_sys_read_file(sys, rel, &text, NULL) < 0)
			text = NULL; /* sizes are informative: 0 when unreadable */
		numa[i] = (struct pms_perfdata_numa_node){ (uint32_t)n->id,
							  meminfo_kb(text, "MemTotal:"),
							  meminfo_kb(text, "MemFree:"), cpus[i] };
		free(text);
		for (size_t b = 0; b < n->nmem_blocks; b++)
			if (n->mem_blocks[b] + 1 > nbits)
				nbits = n->mem_blocks[b] + 1;
	}
	if (nn && (rc = pms_perfdata_writer_set_numa_topology(r->w, numa, nn)) < 0)
		goto out;
	if (topo->mem_block_size && nbits) {
		/* every node's bitmap spans all blocks, as perf's does */
		for (size_t i = 0; i < nn; i++) {
			const struct pms_topo_node *n = &topo->nodes[i];
			if (!(bits[i] = calloc((nbits + 63) / 64, sizeof(uint64_t)))) {
				rc = pms_err(PMS_ENOMEM, "out of memory for MEM_TOPOLOGY");
				goto out;
			}
			for (size_t b = 0; b < n->nmem_blocks; b++)
				bits[i][n->mem_blocks[b] / 64] |= 1ULL << (n->mem_blocks[b] % 64);
			mem[i] = (struct pms_perfdata_mem_node){ (uint64_t)n->id, nbits, nbits,
								bits[i] };
		}
		if ((rc = pms_perfdata_writer_set_mem_topology(r->w, topo->mem_block_size, mem,
							      nn)) < 0)
			goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; i < nn && cpus && bits; i++) {
		free(cpus[i]);
		free(bits[i]);
	}
	free(cpus);
	free(bits);
	free(numa);
	free(mem);
	return rc;
}

/* CPUID as perf writes it: "vendor,family,model,stepping" on x86
 * (tools/perf/arch/x86/util/header.c get_cpuid), the MIDR as 0x%016lx on
 * arm64 (tools/perf/arch/arm64/util/header.c).  A reader takes the vendor
 * for the PMU -> engine mapping and family/model for the IBS RAW check. */
static int cpuid_feature(struct pms_recorder *r, const struct pms_topo *topo)
{
	char buf[96];
	if (topo->vendor[0] && topo->family >= 0 && topo->model >= 0 &&
	    (!strcmp(topo->vendor, "GenuineIntel") || !strcmp(topo->vendor, "AuthenticAMD") ||
	     !strcmp(topo->vendor, "HygonGenuine")))
		snprintf(buf, sizeof(buf), "%s,%d,%d,%d", topo->vendor, topo->family, topo->model,
			 topo->stepping >= 0 ? topo->stepping : 0);
	else if (topo->ncpus && topo->cpus[0].midr)
		snprintf(buf, sizeof(buf), "0x%016llx", (unsigned long long)topo->cpus[0].midr);
	else
		return 0;
	return pms_perfdata_writer_set_string(r->w, PMS_PERFDATA_FEAT_CPUID, buf);
}

int pms_recorder_sync(struct pms_recorder *r)
{
	if (!r)
		return pms_err(PMS_EINVAL, "recorder_sync: NULL recorder");
	return pms_perfdata_writer_sync(r->w);
}

/* PMU_CAPS for ibs_op, as perf writes it (one PMU per feature section
 * here): perf's amd-sample-raw.c decodes the Zen 4 fields of IBS fetch and
 * op samples only where the file says ibs_op zen4_ibs_extensions=1. */
static int ibs_caps_feature(struct pms_recorder *r, const struct pms_pmus *pmus)
{
	const struct pms_pmu *op = pms_pmu_find(pmus, "ibs_op");
	struct pms_perfdata_str_pair *c;
	int rc;
	if (!op || !op->ncaps)
		return 0;
	if (!(c = calloc(op->ncaps, sizeof(*c))))
		return pms_err(PMS_ENOMEM, "out of memory for PMU_CAPS");
	for (size_t i = 0; i < op->ncaps; i++)
		c[i] = (struct pms_perfdata_str_pair){ op->caps[i].name, op->caps[i].value };
	rc = pms_perfdata_writer_set_pmu_caps(r->w, "ibs_op", c, op->ncaps);
	free(c);
	return rc;
}

/* The header features; the first failure, or 0. */
static int features(struct pms_recorder *r, struct pms_sys *sys, const struct pms_topo *topo,
		    const struct pms_pmus *pmus)
{
	int rc = 0;

	if (sys && (rc = host_features(r, sys)) < 0)
		return rc;
	if (topo && ((rc = topo_features(r, sys, topo)) < 0 || (rc = cpuid_feature(r, topo)) < 0))
		return rc;
	if (pmus && pms_pmus_count(pmus)) {
		struct pms_perfdata_pmu_map *pm = calloc(pms_pmus_count(pmus), sizeof(*pm));
		if (!pm)
			return pms_err(PMS_ENOMEM, "out of memory for PMU_MAPPINGS");
		for (size_t i = 0; i < pms_pmus_count(pmus); i++) {
			const struct pms_pmu *p = pms_pmus_at(pmus, i);
			pm[i] = (struct pms_perfdata_pmu_map){ p->type, p->name };
		}
		rc = pms_perfdata_writer_set_pmu_mappings(r->w, pm, pms_pmus_count(pmus));
		free(pm);
		if (rc < 0 || (rc = ibs_caps_feature(r, pmus)) < 0)
			return rc;
	}
	for (size_t i = 0; i < r->npaths; i++) {
		uint8_t id[20];
		size_t n = 0;
		if (pms_elf_build_id(r->paths[i], id, &n) < 0)
			continue; /* gone, not ELF or no note: perf goes without it too */
		if ((rc = pms_perfdata_writer_add_build_id(r->w, -1, id, (uint8_t)n, r->paths[i])) < 0)
			return rc;
	}
	/* the kernel's, as perf record files it for [kernel.kallsyms]: a reader
	 * names the file's kernel IPs from its own kallsyms only when its
	 * kernel has this id (session/symtrack.c symtrack_kernel_here) */
	uint8_t kid[20];
	size_t kn = 0;
	if (sys && !r->o.hide_kernel_ips && pms_kernel_build_id(sys, kid, &kn) == 0)
		return pms_perfdata_writer_add_build_id(r->w, -1, kid, (uint8_t)kn,
							"[kernel.kallsyms]");
	pms_error_clear();
	return 0;
}

int pms_recorder_finish(struct pms_recorder *r, struct pms_sys *sys, const struct pms_topo *topo,
			const struct pms_pmus *pmus)
{
	if (!r)
		return pms_err(PMS_EINVAL, "recorder_finish: NULL recorder");
	int rc = features(r, sys, topo, pmus);
	/* Close even after a failure: the writer puts down a header covering
	 * every record before it, and returns its own first failure. */
	char msg[512] = "";
	if (rc < 0)
		snprintf(msg, sizeof(msg), "%s", pms_error_last());
	int crc = pms_perfdata_writer_close(r->w);
	if (rc < 0)
		return pms_err(rc, "%s", msg);
	return crc;
}

uint64_t pms_recorder_records(const struct pms_recorder *r)
{
	return pms_perfdata_writer_records(r->w);
}

uint64_t pms_recorder_skipped(const struct pms_recorder *r)
{
	return r->skipped;
}

int pms_recorder_set_feature(struct pms_recorder *r, unsigned feat, const void *payload,
			     size_t len)
{
	return pms_perfdata_writer_set_feature(r->w, feat, payload, len);
}
