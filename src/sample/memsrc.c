/* The memory-sample source (include/pmuscope/memsrc.h): one callback set,
 * one info struct and one statistics struct over the live sampler and over a
 * perf.data reader.  Both kinds convert records with
 * pms_memsample_from_sample (src/decode/memconv.c). */
#include "sample/decorate_int.h"
#include "sample/memsrc_order_int.h"
#include "sample/sampler_int.h"
#include "sample/memsrc_int.h"
#include "perfdata/reader_lazy.h"
#include "util/error.h"

#include "pmuscope/datasrc.h"
#include "pmuscope/event.h"
#include "pmuscope/ibsfwd.h"
#include "pmuscope/memdeco.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/spe.h"
#include "topo/topo_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records a recorded source hands out per pms_memsrc_poll call. */
#define FILE_BATCH 4096
struct pms_memsrc {
	enum pms_memsrc_kind kind;
	/* live */
	struct pms_sampler *smp;
	const struct pms_topo *topo;
	/* recorded */
	struct pms_perfdata_reader *rd;
	bool started;       /* the first sample came: pipe-mode headers are known */
	bool ended;
	char vendor[32];
	struct pms_ibs_cpu ibs_cpu;
	bool ibs_cpu_known;
	/* both */
	struct pms_memsrc_attr *attrs;
	struct pms_memconv_ctx *conv; /* recorded: each attr's converter context */
	size_t nattrs;
	uint64_t *ids[SMP_MAX_EVENTS]; /* live: per event, its fds' ids */
	struct pms_memdeco *deco; /* nodes and SPE times of each sample */
	int *node_ids;
	size_t nnode_ids;
	struct pms_memsrc_stats st;  /* what the source counts itself */
	uint64_t t0, t1;
	char pmus[512], label[512], notes[512];
	struct pms_frame frames[PMS_CALLPATH_MAX]; /* the path of the sample being delivered */
	/* recorded: the records in perf's time order (perfdata/ordered.c) */
	struct pms_perfdata_ordered *oq;
	/* the one event it hands out, never written here: a sample is decoded
	 * over the one before (pms_pd_ordered_own) */
	struct pms_perfdata_event ev;
	/* live: the records held until their time order is known
	 * (memsrc_order.c): those up to limit go out, limit is the latest
	 * time of the drains before the last one (perf's rounds) */
	struct lo_queue *lq;
	uint64_t limit, round_max;
	/* the callbacks of the poll in progress */
	const struct pms_memsrc_callbacks *cb;
	void *ud;
	/* recorded: per event (the last slot: the events after it), IBS RAW
	 * payloads that did not parse, and how the first did not */
	uint64_t raw_bad[16];
	char raw_bad_why[16][200];
	char problem[512]; /* pms_memsrc_problem's sentence past the reader's */
};

#define RAW_BAD_SLOTS 16

static void span_note(struct pms_memsrc *s, const struct pms_memsample *m)
{
	if (!(m->valid & PMS_MS_TIME))
		return;
	if (!s->t0 || m->time < s->t0)
		s->t0 = m->time;
	if (m->time > s->t1)
		s->t1 = m->time;
}

/* The path of a sample: the callchain's frames (FP), or, when the record
 * carries the user registers and stack for a DWARF unwind, only the
 * kernel part of the chain (the unwinder adds the user frames). */
static void fill_path(struct pms_memsrc *s, struct pms_memsrc_sample *x)
{
	const struct pms_sample *in;
	size_t n = 0;
	bool dwarf;
	int rc;

	if (!x->rec)
		return;
	in = &x->rec->sample;
	dwarf = (in->present & PMS_SAMPLE_STACK_USER) && (in->present & PMS_SAMPLE_REGS_USER);
	if (!(in->present & PMS_SAMPLE_CALLCHAIN) && !dwarf)
		return;
	rc = pms_callpath_from_chain(in->callchain, in->callchain_nr, !dwarf, s->frames,
				     PMS_CALLPATH_MAX, &n);
	if (rc < 0)
		return;
	/* A chain the kernel could not walk (no frame): the sampled IP alone,
	 * as perf script shows it. */
	if (!n && !dwarf && (in->present & PMS_SAMPLE_IP)) {
		s->frames[0].ip = in->ip;
		s->frames[0].flags = in->cpumode == PMS_MISC_USER ? 0 : PMS_FRAME_KERNEL;
		n = 1;
	}
	x->path.frames = s->frames;
	x->path.n = n;
	x->path.truncated = rc > 0;
	x->path.how = dwarf ? PMS_CALLGRAPH_DWARF : PMS_CALLGRAPH_FP;
}

/* The sample's nodes: the decoration stage's (src/sample/decorate_int.h). */
static inline void decorate(const struct pms_memsrc *s, struct pms_memsrc_sample *x,
			    const uint64_t *phys)
{
	if (s->kind == PMS_MEMSRC_FILE)
		deco_file_nodes(s->deco, &x->ms, phys, &x->mem_node, &x->cpu_node,
				&x->node_from_phys);
	else
		deco_live_nodes(s->deco, &x->ms, phys, &x->mem_node, &x->cpu_node,
				&x->node_from_phys);
}

/* ---- live --------------------------------------------------------------- */

/* One sample handed out: its path, nodes and span, then the caller's. */
static int live_deliver(struct pms_memsrc *s, const struct pms_memsample *m,
			const struct pms_record *rec, int ev)
{
	struct pms_memsrc_sample x;

	memset(&x, 0, sizeof(x));
	x.ms = *m;
	x.rec = rec;
	x.attr_idx = (size_t)ev;
	fill_path(s, &x);
	decorate(s, &x, (m->valid & PMS_MS_PHYS) ? &m->phys_addr : NULL);
	span_note(s, m);
	if (s->cb && s->cb->sample)
		return s->cb->sample(s->ud, &x);
	return 0;
}

/* Hand out the held records of time <= limit, in time order.  A caller's
 * stop leaves the rest ready for the next poll. */
static int live_release(struct pms_memsrc *s, uint64_t limit)
{
	struct lo_item it;
	struct pms_record r;
	int rc = 0;
	lo_ready(s->lq, limit);
	while (rc >= 0 && lo_next(s->lq, &it)) {
		/* the bytes decoded when they were drained: they decode again */
		if (pms_record_parse(it.layout, it.raw, it.len, &r) < 0)
			return pms_err(PMS_EPARSE, "a held live record did not decode again");
		if (it.kind == LO_SAMPLE)
			rc = live_deliver(s, &it.ms, &r, it.ev);
		else if (s->cb && s->cb->sideband)
			rc = s->cb->sideband(s->ud, &r, (size_t)it.ev);
	}
	if (rc < 0)
		return rc;
	return lo_tidy(s->lq);
}

/* The queue's bound: past it the older half goes out (as perf's ordered
 * queue does at its size limit); a record of that half's time range that
 * comes later goes out late. */
#define LIVE_QUEUE_BYTES ((size_t)256 << 20)

static int live_hold(struct pms_memsrc *s, enum lo_kind kind, const struct pms_memsample *m,
		     const struct smp_raw *raw, uint64_t t, int ev)
{
	int rc = lo_push(s->lq, kind, ev, t, m, raw->bytes, raw->len, raw->layout);
	if (rc < 0 || lo_bytes(s->lq) <= LIVE_QUEUE_BYTES)
		return rc;
	return live_release(s, lo_half_time(s->lq));
}

static int live_sample(void *ud, const struct pms_memsample *m, const struct pms_record *rec,
		       const struct smp_raw *raw, int ev)
{
	struct pms_memsrc *s = ud;
	int rc;
	if (rec && raw && (rec->sample.present & PMS_SAMPLE_TIME) && rec->sample.time)
		return live_hold(s, LO_SAMPLE, m, raw, rec->sample.time, ev);
	/* no time to order it by (an AUX-decoded SPE sample, decoded as its
	 * trace is read): what is held goes first */
	if ((rc = live_release(s, UINT64_MAX)) < 0)
		return rc;
	return live_deliver(s, m, rec, ev);
}

static int live_sideband(void *ud, const struct pms_record *rec, const struct smp_raw *raw,
			 int ev)
{
	struct pms_memsrc *s = ud;
	int rc;
	if (raw && (rec->sample_id.present & PMS_SAMPLE_TIME) && rec->sample_id.time)
		return live_hold(s, LO_SIDEBAND, NULL, raw, rec->sample_id.time, ev);
	if ((rc = live_release(s, UINT64_MAX)) < 0)
		return rc;
	if (s->cb && s->cb->sideband)
		return s->cb->sideband(s->ud, rec, (size_t)ev);
	return 0;
}

static int live_aux(void *ud, const struct pms_memsrc_aux *a)
{
	struct pms_memsrc *s = ud;
	int rc = live_release(s, UINT64_MAX); /* its samples went out already */
	if (rc < 0)
		return rc;
	if (s->cb && s->cb->aux)
		return s->cb->aux(s->ud, a);
	return 0;
}

static const struct smp_hooks live_hooks = { live_sample, live_sideband, live_aux };

/* One live poll: the records held and ready from a stopped poll first,
 * then one drain of every ring into the queue, then those of time up to
 * the latest of the drains before this one: perf's rule for its rounds (a
 * record the kernel stamped before the end of one drain is in its ring by
 * the next; docs/mem.md "Time order").  Everything once no more can come
 * (pms_smp_quiet). */
static int live_poll(struct pms_memsrc *s, int timeout_ms)
{
	int rc = live_release(s, s->limit);
	if (rc < 0)
		return rc;
	int n = pms_smp_poll_hooks(s->smp, timeout_ms, &live_hooks, s);
	if (n < 0)
		return n;
	s->limit = pms_smp_quiet(s->smp) ? UINT64_MAX : s->round_max;
	s->round_max = lo_max_time(s->lq);
	rc = live_release(s, s->limit);
	return rc < 0 ? rc : n;
}


int pms_memsrc_open_live(struct pms_sampler *smp, const struct pms_topo *topo,
			 struct pms_memsrc **out)
{
	struct pms_memsrc *s;
	const struct smp_plan *p;

	if (!out || !smp)
		return pms_err(PMS_EINVAL, "memsrc_open_live: NULL argument");
	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return pms_err(PMS_ENOMEM, "out of memory for a memory-sample source");
	s->kind = PMS_MEMSRC_LIVE;
	s->smp = smp;
	s->topo = topo;
	{
		int rc = lo_new(&s->lq);
		if (rc < 0) {
			free(s);
			return rc;
		}
	}
	p = pms_smp_sampler_plan(smp);
	s->attrs = calloc((size_t)(p->nev ? p->nev : 1), sizeof(*s->attrs));
	if (topo && topo->nnodes)
		s->node_ids = calloc(topo->nnodes, sizeof(*s->node_ids));
	if (!s->attrs || (topo && topo->nnodes && !s->node_ids)) {
		pms_memsrc_free(s);
		return pms_err(PMS_ENOMEM, "out of memory for a memory-sample source");
	}
	{
		int rc = pms_memdeco_new_live(topo, &s->deco);
		if (rc < 0) {
			pms_memsrc_free(s);
			return rc;
		}
	}
	for (int i = 0; i < p->nev; i++) {
		const struct smp_event *ev = &p->ev[i];
		size_t nids = pms_smp_event_ids(smp, i, NULL, 0);
		s->attrs[i] = (struct pms_memsrc_attr){
			.attr = &ev->attr, .name = ev->pmu_name, .pmu = ev->pmu_name,
			.engine = ev->engine,
			.samples = ev->role == SMP_ROLE_MAIN || ev->role == SMP_ROLE_EXTRA,
		};
		if (nids) {
			if (!(s->ids[i] = calloc(nids, sizeof(uint64_t)))) {
				pms_memsrc_free(s);
				return pms_err(PMS_ENOMEM, "out of memory for event ids");
			}
			pms_smp_event_ids(smp, i, s->ids[i], nids);
			s->attrs[i].ids = s->ids[i];
			s->attrs[i].nids = nids;
		}
	}
	s->nattrs = (size_t)p->nev;
	for (size_t i = 0; topo && i < topo->nnodes; i++)
		s->node_ids[i] = topo->nodes[i].id;
	s->nnode_ids = topo ? topo->nnodes : 0;
	if (topo)
		snprintf(s->vendor, sizeof(s->vendor), "%s", topo->vendor);
	*out = s;
	return 0;
}

/* ---- recorded ------------------------------------------------------------ */

static const char *pmu_name_of(const struct pms_perfdata_info *in, uint32_t type)
{
	for (size_t i = 0; i < in->npmu; i++)
		if (in->pmu[i].type == type)
			return in->pmu[i].name;
	/* The fixed types (uapi perf_event.h enum perf_type_id): SOFTWARE is
	 * the "software" PMU; HARDWARE and RAW go to the core PMU, which
	 * registers as "cpu" on x86 (arch/x86/events/core.c). */
	switch (type) {
	case 1: return "software";
	case 0:
	case 4: return "cpu";
	default: return "";
	}
}

/* The file's core PMU type: its "cpu" mapping, else x86's PERF_TYPE_RAW
 * (arch/x86/events/core.c registers "cpu" with PERF_TYPE_RAW). */
static uint32_t core_type_of(const struct pms_perfdata_info *in)
{
	for (size_t i = 0; i < in->npmu; i++)
		if (!strcmp(in->pmu[i].name, "cpu"))
			return in->pmu[i].type;
	return PERF_TYPE_RAW;
}

/* An AMD machine with IBS: its CPUID says AMD, or, without one, its PMU
 * mappings hold ibs_op (registered only by arch/x86/events/amd/ibs.c). */
static bool amd_ibs(const struct pms_memsrc *s, const struct pms_perfdata_info *in)
{
	if (s->vendor[0])
		return !strcmp(s->vendor, "AuthenticAMD");
	for (size_t i = 0; i < in->npmu; i++)
		if (!strcmp(in->pmu[i].name, "ibs_op"))
			return true;
	return false;
}

/* The recording's vendor and, on an AMD machine, its IBS CPU, from perf's
 * CPUID string (pms_cpuid_parse). */
static void vendor_from_cpuid(struct pms_memsrc *s, const char *cpuid)
{
	struct pms_cpuid c;
	s->vendor[0] = 0;
	s->ibs_cpu_known = false;
	if (!cpuid)
		return;
	int rc = pms_cpuid_parse(cpuid, &c);
	snprintf(s->vendor, sizeof(s->vendor), "%s", c.vendor);
	if (rc == 0 && c.amd) {
		memset(&s->ibs_cpu, 0, sizeof(s->ibs_cpu));
		s->ibs_cpu.family = (unsigned)c.family;
		s->ibs_cpu.model = (unsigned)c.model;
		s->ibs_cpu_known = true;
	}
}

/* The attrs as the reader knows them now (pipe mode: they grow). */
static int file_attrs(struct pms_memsrc *s)
{
	const struct pms_perfdata_info *in = pms_perfdata_reader_info(s->rd);
	size_t n = pms_perfdata_reader_nattrs(s->rd);
	struct pms_memsrc_attr *v;

	vendor_from_cpuid(s, in->cpuid);
	v = calloc(n ? n : 1, sizeof(*v));
	struct pms_memconv_ctx *cv = calloc(n ? n : 1, sizeof(*cv));
	if (!v || !cv) {
		free(v);
		free(cv);
		return pms_err(PMS_ENOMEM, "out of memory for %zu attrs", n);
	}
	for (size_t i = 0; i < n; i++) {
		const struct pms_perfdata_attr *a = pms_perfdata_reader_attr(s->rd, i);
		const char *pmu = pmu_name_of(in, a->attr->type);
		v[i].attr = a->attr;
		v[i].ids = a->ids;
		v[i].nids = a->nids;
		/* the file's own name, else perf's name of a generic event
		 * ("page-faults", not "type1/0x2/"), else the PMU's */
		v[i].name = a->name ? a->name
			  : pms_event_generic_name(a->attr->type, a->attr->config)
			  ? pms_event_generic_name(a->attr->type, a->attr->config)
			  : pmu;
		v[i].pmu = pmu;
		v[i].engine = pms_engine_of_pmu(pmu, s->vendor);
		/* an AMD precise core event came back from ibs_op (the kernel
		 * forwards it, ibs.c forward_event_to_ibs; without IBS the core
		 * PMU, max_precise 0, would have refused it): IBS op samples
		 * (issue 31 row 1) */
		if ((v[i].engine == PMS_ENG_NONE || v[i].engine == PMS_ENG_PEBS) && amd_ibs(s, in) &&
		    pms_ibs_attr_forwarded(a->attr, core_type_of(in)))
			v[i].engine = PMS_ENG_IBS;
		/* a dummy event (PERF_COUNT_SW_DUMMY, 9) carries side-band only */
		v[i].samples = !(a->attr->type == 1 && a->attr->config == 9);
		/* what the converter needs of the attr, once, not per sample */
		cv[i].engine = v[i].engine;
		cv[i].sample_type = a->attr->sample_type;
		cv[i].fixed_period = a->attr->freq ? 0 : a->attr->sample_period;
		if (v[i].engine == PMS_ENG_IBS && s->ibs_cpu_known) {
			cv[i].ibs_cpu = &s->ibs_cpu;
			cv[i].ibs_ldlat = (unsigned)(a->attr->config1 & 0xfff);
		}
	}
	free(s->attrs);
	free(s->conv);
	s->attrs = v;
	s->conv = cv;
	s->nattrs = n;
	return 0;
}

/* The node list and the decoration stage from the file's headers. */
static int file_nodes(struct pms_memsrc *s)
{
	const struct pms_perfdata_info *in = pms_perfdata_reader_info(s->rd);
	int rc;
	pms_memdeco_free(s->deco);
	s->deco = NULL;
	if ((rc = pms_memdeco_new_file(s->rd, &s->deco)) < 0)
		return rc;
	free(s->node_ids);
	s->node_ids = calloc(in->nnuma ? in->nnuma : 1, sizeof(*s->node_ids));
	if (!s->node_ids)
		return pms_err(PMS_ENOMEM, "out of memory for the node list");
	s->nnode_ids = in->nnuma;
	for (size_t i = 0; i < in->nnuma; i++)
		s->node_ids[i] = (int)in->numa[i].node;
	return 0;
}

/* In pipe mode the attrs and features come as records before the data, so
 * what depends on them is settled at the first sample. */
static int file_start(struct pms_memsrc *s)
{
	int rc;
	s->started = true;
	if ((rc = file_attrs(s)) < 0)
		return rc;
	return file_nodes(s);
}

static int file_sample(struct pms_memsrc *s, const struct pms_perfdata_event *ev)
{
	const struct pms_memsrc_attr *a;
	struct pms_memsrc_sample x;
	unsigned flags = 0;
	int rc;

	if (!s->started && (rc = file_start(s)) < 0)
		return rc;
	if (ev->attr_idx >= s->nattrs) {
		s->st.parse_errors++;
		return 0;
	}
	a = &s->attrs[ev->attr_idx];
	if (!a->samples) {
		s->st.samples_dropped++;
		return 0;
	}
	/* every field of x is set below (no clearing of the whole struct) */
	if (pms_memsample_from_sample(&ev->rec.sample, &s->conv[ev->attr_idx], &x.ms, &flags) < 0) {
		s->st.parse_errors++;
		return 0;
	}
	if (flags & PMS_MEMCONV_RAW_CHECKED)
		s->st.ibs_raw_checked++;
	if (flags & PMS_MEMCONV_RAW_MISMATCH)
		s->st.ibs_raw_mismatch++;
	if (flags & PMS_MEMCONV_RAW_MALFORMED) {
		size_t k = ev->attr_idx < RAW_BAD_SLOTS ? ev->attr_idx : RAW_BAD_SLOTS - 1;
		if (!s->raw_bad[k]++)
			snprintf(s->raw_bad_why[k], sizeof(s->raw_bad_why[k]), "%s", pms_error_last());
	}
	/* the record's PHYS_ADDR as recorded: the converter keeps a 0 out
	 * of x.ms, which says "no translation" here */
	deco_file_nodes(s->deco, &x.ms,
			(ev->rec.sample.present & PMS_SAMPLE_PHYS_ADDR) ? &ev->rec.sample.phys_addr
									 : NULL,
			&x.mem_node, &x.cpu_node, &x.node_from_phys);
	x.rec = &ev->rec;
	x.attr_idx = ev->attr_idx;
	memset(&x.path, 0, sizeof(x.path));
	/* fill_path finds a path only with a callchain or a user stack */
	if (ev->rec.sample.present & (PMS_SAMPLE_CALLCHAIN | PMS_SAMPLE_STACK_USER))
		fill_path(s, &x);
	s->st.samples++;
	span_note(s, &x.ms);
	if (s->cb && s->cb->sample)
		return s->cb->sample(s->ud, &x);
	return 0;
}

/* ---- recorded SPE: AUXTRACE payloads ------------------------------------- */

struct aux_ctx {
	struct pms_memsrc *s;
	size_t attr_idx;
	uint64_t period;
	int stop;
};

static int file_spe_record(void *arg, const struct pms_spe_record *rec,
			   const struct pms_memsample *ms)
{
	struct aux_ctx *c = arg;
	struct pms_memsrc *s = c->s;
	struct pms_memsrc_sample x;

	if (!pms_spe_record_is_mem(rec))
		return 0;
	memset(&x, 0, sizeof(x));
	x.ms = *ms;
	/* SPE timestamps are counter ticks: perf time through the file's
	 * TIME_CONV, none without one */
	pms_memdeco_spe_time(s->deco, &x.ms);
	x.ms.period = c->period;
	decorate(s, &x, (x.ms.valid & PMS_MS_PHYS) ? &x.ms.phys_addr : NULL);
	x.rec = NULL; /* decoded from an AUX trace: no record */
	x.attr_idx = c->attr_idx;
	s->st.samples++;
	span_note(s, &x.ms);
	if (s->cb && s->cb->sample) {
		int rc = s->cb->sample(s->ud, &x);
		if (rc < 0) {
			c->stop = rc;
			return rc;
		}
	}
	return 0;
}

/* One PERF_RECORD_AUXTRACE of an arm_spe recording: its records through the
 * SPE chunk decoder with the MIDR of the chunk's CPU (docs/spe.md). */
static int file_auxtrace(struct pms_memsrc *s, const struct pms_perfdata_event *ev)
{
	struct pms_perfdata_spe_meta meta;
	struct pms_spe_chunk_ctx cx = { 0 };
	struct pms_spe_chunk_stats cs = { 0 };
	struct aux_ctx c = { s, 0, 0, 0 };
	uint64_t midr = 0;
	int rc;

	if (!s->started && (rc = file_start(s)) < 0)
		return rc;
	s->st.aux_bytes += ev->aux_len;
	if (pms_perfdata_reader_spe_meta(s->rd, &meta) < 0) {
		s->st.aux_decode_errors++; /* an AUX trace this source cannot decode */
		return 0;
	}
	for (size_t i = 0; i < s->nattrs; i++)
		if (s->attrs[i].attr->type == meta.pmu_type) {
			c.attr_idx = i;
			c.period = s->attrs[i].attr->sample_period;
			break;
		}
	if (pms_perfdata_reader_spe_midr(s->rd, ev->auxtrace.cpu, &midr) < 0)
		midr = 0; /* no data-source table: events only */
	cx.midr = midr;
	cx.cpu = ev->auxtrace.cpu;
	cx.tid = ev->aux_tid; /* the reader's rule: the buffer's or the CPU's task */
	cx.pid = ev->aux_pid;
	rc = pms_spe_chunk_decode(ev->aux_data, ev->aux_len, &cx, &cs, file_spe_record, &c);
	s->st.aux_decode_errors += cs.bad_headers;
	s->st.aux_cut_records += cs.cut_chunks;
	s->st.aux_cut_bytes += cs.cut_bytes;
	if (c.stop)
		return c.stop;
	return rc < 0 ? rc : 0;
}

static int file_record(struct pms_memsrc *s, const struct pms_perfdata_event *ev)
{
	const struct pms_record *r = &ev->rec;
	int rc;
	/* A pipe-mode stream may add attrs (HEADER_ATTR) at any point: the
	 * reader's array moves, so the view of it is taken again.  The reader
	 * adds one only with a perf-tool record (type >= 64), which it hands
	 * out next: the kernel's records need no look. */
	if (r->type >= PMS_RECORD_USER_TYPE_START && pms_perfdata_reader_nattrs(s->rd) != s->nattrs &&
	    (rc = file_attrs(s)) < 0)
		return rc;
	if (r->type == PMS_PERFDATA_RECORD_AUXTRACE)
		return file_auxtrace(s, ev);
	switch (r->type) {
	case PMS_RECORD_SAMPLE:
		return file_sample(s, ev);
	case PMS_RECORD_MMAP:
	case PMS_RECORD_MMAP2:
	case PMS_RECORD_COMM:
	case PMS_RECORD_FORK:
	case PMS_RECORD_EXIT:
		s->st.sideband++;
		if (s->cb && s->cb->sideband)
			return s->cb->sideband(s->ud, r, ev->attr_idx);
		return 0;
	case PMS_RECORD_LOST:
	case PMS_RECORD_LOST_SAMPLES:
	case PMS_RECORD_THROTTLE:
	case PMS_RECORD_UNTHROTTLE:
		if (r->type == PMS_RECORD_LOST)
			s->st.lost_records++;
		else if (r->type == PMS_RECORD_THROTTLE)
			s->st.throttle++;
		else if (r->type == PMS_RECORD_UNTHROTTLE)
			s->st.unthrottle++;
		if (s->cb && s->cb->sideband)
			return s->cb->sideband(s->ud, r, ev->attr_idx);
		return 0;
	case PMS_RECORD_AUX:
		s->st.aux_records++;
		if (r->aux.flags & PMS_AUX_FLAG_TRUNCATED)
			s->st.aux_truncated++;
		if (r->aux.flags & PMS_AUX_FLAG_OVERWRITE)
			s->st.aux_overwrite++;
		if (r->aux.flags & PMS_AUX_FLAG_PARTIAL)
			s->st.aux_partial++;
		if (r->aux.flags & PMS_AUX_FLAG_COLLISION)
			s->st.aux_collision++;
		return 0;
	default:
		return 0;
	}
}

int pms_memsrc_open_reader(struct pms_perfdata_reader *r, struct pms_memsrc **out)
{
	struct pms_memsrc *s;
	int rc;

	if (!out || !r)
		return pms_err(PMS_EINVAL, "memsrc_open_reader: NULL argument");
	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return pms_err(PMS_ENOMEM, "out of memory for a memory-sample source");
	s->kind = PMS_MEMSRC_FILE;
	s->rd = r;
	/* file mode: everything is known now; pipe mode: again at the first
	 * sample */
	if ((rc = file_attrs(s)) < 0 || (rc = file_nodes(s)) < 0 ||
	    (rc = pms_perfdata_ordered_new(r, &s->oq)) < 0) {
		pms_memsrc_free(s);
		return rc;
	}
	pms_pd_ordered_own(s->oq);
	*out = s;
	return 0;
}

/* ---- both ---------------------------------------------------------------- */

void pms_memsrc_free(struct pms_memsrc *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < SMP_MAX_EVENTS; i++)
		free(s->ids[i]);
	free(s->attrs);
	free(s->conv);
	free(s->node_ids);
	pms_memdeco_free(s->deco);
	pms_perfdata_ordered_free(s->oq);
	lo_free(s->lq);
	free(s);
}

int pms_memsrc_poll(struct pms_memsrc *s, int timeout_ms, const struct pms_memsrc_callbacks *cb,
		    void *ud)
{
	int rc = 0, n = 0;

	if (!s)
		return pms_err(PMS_EINVAL, "memsrc_poll: NULL source");
	s->cb = cb;
	s->ud = ud;
	if (s->kind == PMS_MEMSRC_LIVE) {
		rc = live_poll(s, timeout_ms);
		s->cb = NULL;
		return rc;
	}
	while (!s->ended && n < FILE_BATCH) {
		/* perf's time order: side-band before the samples after it */
		rc = pms_perfdata_ordered_next(s->oq, &s->ev);
		if (rc <= 0) {
			s->ended = true;
			break;
		}
		n++;
		if ((rc = file_record(s, &s->ev)) < 0)
			break;
	}
	s->cb = NULL;
	return rc < 0 ? rc : n;
}

enum pms_memsrc_kind pms_memsrc_kind(const struct pms_memsrc *s)
{
	return s->kind;
}

void pms_memsrc_info(const struct pms_memsrc *cs, struct pms_memsrc_info *out)
{
	struct pms_memsrc *s = (struct pms_memsrc *)cs; /* the text buffers */
	memset(out, 0, sizeof(*out));
	out->kind = s->kind;
	out->vendor = s->vendor;
	if (s->kind == PMS_MEMSRC_LIVE) {
		struct pms_sampler_info si;
		pms_sampler_info(s->smp, &si);
		out->engine = si.engine;
		out->pmus = si.pmus;
		out->label = si.label;
		out->notes = si.notes;
		out->phys = si.phys;
		out->data_src = si.data_src;
		out->sample_type = si.sample_type;
		out->nstreams = si.nstreams;
		out->attempts = pms_sampler_attempts(s->smp, &out->nattempts);
		out->nodes_why = !si.phys ? "the samples carry no physical address"
				 : !s->topo || !s->topo->mem_block_size
					 ? "this machine's memory blocks are not known"
					 : NULL;
		return;
	}
	const struct pms_perfdata_stats *st = pms_perfdata_reader_stats(s->rd);
	if (pms_perfdata_reader_nattrs(s->rd) != s->nattrs)
		(void)file_attrs(s);
	size_t lp = 0, ll = 0;
	s->pmus[0] = s->label[0] = 0;
	for (size_t i = 0; i < s->nattrs; i++) {
		const struct pms_memsrc_attr *a = &s->attrs[i];
		uint64_t t = a->attr->sample_type;
		if (a->samples) {
			if (out->engine == PMS_ENG_NONE ||
			    ((t & PMS_SAMPLE_DATA_SRC) && !out->data_src))
				out->engine = a->engine;
			out->data_src |= (t & PMS_SAMPLE_DATA_SRC) != 0;
			out->phys |= (t & PMS_SAMPLE_PHYS_ADDR) != 0;
			out->sample_type |= t;
		}
		if (lp < sizeof(s->pmus) - 12)
			lp += (size_t)snprintf(s->pmus + lp, sizeof(s->pmus) - lp, "%s%s",
					       i ? "," : "", a->pmu[0] ? a->pmu : "?");
		if (ll < sizeof(s->label) - 12)
			ll += (size_t)snprintf(s->label + ll, sizeof(s->label) - ll, "%s%s",
					       i ? ", " : "recorded: ", a->name ? a->name : "?");
	}
	if (out->engine == PMS_ENG_SOFTWARE)
		out->data_src = false;
	snprintf(s->notes, sizeof(s->notes), "from a recorded file; %" PRIu64 " records%s%s%s%s",
		 st->records, st->bad_records ? ", some skipped" : "",
		 st->truncated ? ", data truncated" : "",
		 st->unfinished ? "; the file was NOT FINISHED (its recorder was killed or the "
				  "disk failed): read up to its end" : "",
		 st->bad_features ? "; some header features skipped (see the warnings)" : "");
	out->pmus = s->pmus;
	out->label = s->label;
	out->notes = s->notes;
	out->pipe = pms_perfdata_reader_is_pipe(s->rd);
	out->nodes_why = pms_perfdata_reader_nodes_why(s->rd);
}

static size_t raw_bad_events(const struct pms_memsrc *s)
{
	size_t n = 0;
	for (size_t k = 0; k < RAW_BAD_SLOTS; k++)
		n += s->raw_bad[k] != 0;
	return n;
}

size_t pms_memsrc_nproblems(const struct pms_memsrc *s)
{
	return s && s->rd ? pms_perfdata_reader_nproblems(s->rd) + raw_bad_events(s) : 0;
}

const char *pms_memsrc_problem(const struct pms_memsrc *s, size_t i)
{
	if (!s || !s->rd)
		return NULL;
	const char *p = pms_perfdata_reader_problem(s->rd, i);
	size_t kept = 0;
	while (pms_perfdata_reader_problem(s->rd, kept))
		kept++;
	if (p || i < kept || i - kept >= raw_bad_events(s))
		return p;
	/* the source's own: malformed IBS payloads, one sentence per event */
	i -= kept;
	for (size_t k = 0; k < RAW_BAD_SLOTS; k++) {
		if (!s->raw_bad[k] || i--)
			continue;
		struct pms_memsrc *w = (struct pms_memsrc *)s; /* the sentence buffer */
		const char *name = k < s->nattrs && s->attrs[k].name ? s->attrs[k].name : "?";
		snprintf(w->problem, sizeof(w->problem),
			 "%" PRIu64 " %s sample%s with a malformed IBS raw payload%s (their "
			 "registers not read; the first: %s)",
			 s->raw_bad[k], name, s->raw_bad[k] == 1 ? "" : "s",
			 k == RAW_BAD_SLOTS - 1 ? " (this event and the ones after it)" : "",
			 s->raw_bad_why[k]);
		return w->problem;
	}
	return NULL;
}

void pms_memsrc_stats(const struct pms_memsrc *s, struct pms_memsrc_stats *out)
{
	*out = s->st;
	if (s->kind == PMS_MEMSRC_LIVE) {
		struct pms_sampler_stats ss;
		pms_sampler_stats(s->smp, &ss);
		memset(out, 0, sizeof(*out));
		out->samples = ss.samples;
		out->samples_dropped = ss.samples_dropped;
		out->records = ss.records;
		out->wrapped = ss.wrapped;
		out->corrupt_bytes = ss.corrupt_bytes;
		out->parse_errors = ss.parse_errors;
		out->lost_records = ss.lost_records;
		out->lost = ss.lost;
		out->lost_samples = ss.lost_samples;
		out->throttle = ss.throttle;
		out->unthrottle = ss.unthrottle;
		out->sideband = ss.sideband;
		out->aux_records = ss.aux_records;
		out->aux_bytes = ss.aux_bytes;
		out->aux_truncated = ss.aux_truncated;
		out->aux_overwrite = ss.aux_overwrite;
		out->aux_partial = ss.aux_partial;
		out->aux_collision = ss.aux_collision;
		out->aux_decode_errors = ss.aux_decode_errors;
		out->aux_overrun = ss.aux_overrun;
		out->ibs_raw_checked = ss.ibs_raw_checked;
		out->ibs_raw_mismatch = ss.ibs_raw_mismatch;
		out->streams_hup = ss.streams_hup;
		out->samples_excluded = ss.samples_excluded;
		out->lost_total = ss.lost > ss.lost_samples ? ss.lost : ss.lost_samples;
		return;
	}
	const struct pms_perfdata_stats *st = pms_perfdata_reader_stats(s->rd);
	out->records = st->records;
	out->parse_errors += st->bad_records;
	out->lost = st->lost;
	out->lost_samples = st->lost_samples;
	out->lost_total = st->lost > st->lost_samples ? st->lost : st->lost_samples;
	out->unknown_id = st->unknown_id;
	out->compressed = st->compressed;
	out->bad_features = st->bad_features;
	out->truncated = st->truncated;
}

const struct pms_memsrc_attr *pms_memsrc_attrs(const struct pms_memsrc *s, size_t *n)
{
	if (s->kind == PMS_MEMSRC_FILE && pms_perfdata_reader_nattrs(s->rd) != s->nattrs)
		(void)file_attrs((struct pms_memsrc *)s);
	*n = s->nattrs;
	return s->attrs;
}

int pms_memsrc_cpu_node(const struct pms_memsrc *s, int cpu)
{
	return s->deco ? deco_cpu_node(s->deco, cpu) : -1;
}

const int *pms_memsrc_node_ids(const struct pms_memsrc *s, size_t *n)
{
	*n = s->nnode_ids;
	return s->node_ids;
}

int pms_memsrc_time_conv(const struct pms_memsrc *s, struct pms_spe_time_conv *out)
{
	if (!s || !out)
		return pms_err(PMS_EINVAL, "memsrc_time_conv: NULL argument");
	if (s->kind == PMS_MEMSRC_LIVE) {
		if (pms_smp_time_conv(s->smp, out) < 0)
			return pms_err(PMS_ENOENT, "no SPE ring with a time conversion (its user page "
						   "has cap_user_time_zero clear)");
		return 0;
	}
	const struct pms_perfdata_info *in = pms_perfdata_reader_info(s->rd);
	if (!in->has_time_conv || !in->time_conv.cap_user_time_zero)
		return pms_err(PMS_ENOENT, "the file has no PERF_RECORD_TIME_CONV%s",
			       in->has_time_conv ? " with cap_user_time_zero" : "");
	*out = in->time_conv;
	return 0;
}

uint64_t pms_memsrc_span_ns(const struct pms_memsrc *s)
{
	return s->t1 > s->t0 ? s->t1 - s->t0 : 0;
}

struct pms_sampler *pms_memsrc_sampler(const struct pms_memsrc *s)
{
	return s->kind == PMS_MEMSRC_LIVE ? s->smp : NULL;
}

struct pms_perfdata_reader *pms_memsrc_reader(const struct pms_memsrc *s)
{
	return s->kind == PMS_MEMSRC_FILE ? s->rd : NULL;
}

void pms_memsrc_absorb(struct pms_memsrc *d, const struct pms_memsrc *p)
{
#define ADD(f) d->st.f += p->st.f
	ADD(samples); ADD(samples_dropped); ADD(parse_errors); ADD(ibs_raw_checked);
	ADD(ibs_raw_mismatch); ADD(sideband); ADD(lost_records); ADD(throttle); ADD(unthrottle);
	ADD(aux_records); ADD(aux_truncated); ADD(aux_overwrite); ADD(aux_partial);
	ADD(aux_collision); ADD(aux_bytes); ADD(aux_decode_errors); ADD(aux_cut_records);
	ADD(aux_cut_bytes);
#undef ADD
	if (p->t0 && (!d->t0 || p->t0 < d->t0))
		d->t0 = p->t0;
	if (p->t1 > d->t1)
		d->t1 = p->t1;
	for (size_t k = 0; k < RAW_BAD_SLOTS; k++) {
		if (p->raw_bad[k] && !d->raw_bad[k])
			memcpy(d->raw_bad_why[k], p->raw_bad_why[k], sizeof(d->raw_bad_why[k]));
		d->raw_bad[k] += p->raw_bad[k];
	}
}
