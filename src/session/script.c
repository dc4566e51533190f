/* perf script over a perf.data file, pulled one sample at a time
 * (pmuscope/script.h): comms, symbols' side band, the decoration stage,
 * samples made from SPE AUX traces and RAW-only ibs_op samples, perf's
 * checks of the fields and its filters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/kaddr.h"
#include "perfdata/reader_lazy.h"
#include "pmuscope/memsample.h"
#include "session/script_int.h"
#include "util/error.h"

static void comms_free(struct script_comms *c)
{
	free(c->tid);
	free(c->name);
}

static void comm_set(struct script_comms *c, uint32_t tid, const char *name)
{
	size_t j;
	if ((c->n + 1) * 2 > c->cap) {
		struct script_comms nc = { .cap = c->cap ? c->cap * 2 : 1024 };
		nc.tid = calloc(nc.cap, sizeof(*nc.tid));
		nc.name = calloc(nc.cap, sizeof(*nc.name));
		if (!nc.tid || !nc.name) {
			comms_free(&nc);
			return;
		}
		for (size_t i = 0; i < c->cap; i++)
			if (c->name[i][0])
				comm_set(&nc, c->tid[i], c->name[i]);
		comms_free(c);
		*c = nc;
	}
	for (j = (tid * 2654435761u) & (c->cap - 1); c->name[j][0] && c->tid[j] != tid;
	     j = (j + 1) & (c->cap - 1))
		;
	if (!c->name[j][0])
		c->n++;
	c->tid[j] = tid;
	snprintf(c->name[j], sizeof(c->name[j]), "%s", name[0] ? name : ":");
}

/* The slot of tid's comm, SIZE_MAX when no COMM record named it. */
static size_t comm_find(const struct script_comms *c, uint32_t tid)
{
	if (!c->cap)
		return SIZE_MAX;
	for (size_t j = (tid * 2654435761u) & (c->cap - 1); c->name[j][0];
	     j = (j + 1) & (c->cap - 1))
		if (c->tid[j] == tid)
			return j;
	return SIZE_MAX;
}

/* The event's name, once per event (beyond the cache, built each time). */
static const char *ev_name(struct pms_script *s, const struct pms_perfdata_attr *a)
{
	for (size_t i = 0; i < s->nev; i++)
		if (s->ev[i].a == a)
			return s->ev[i].name;
	if (s->nev == sizeof(s->ev) / sizeof(s->ev[0]))
		return pms_script_event_name_(a, s->evx, sizeof(s->evx));
	s->ev[s->nev].a = a;
	snprintf(s->ev[s->nev].name, sizeof(s->ev[0].name), "%s",
		 pms_script_event_name_(a, s->evx, sizeof(s->evx)));
	return s->ev[s->nev++].name;
}

/* ---- recorded hardware samples the kernel did not write as records -------- */

/* A memory sample as a SAMPLE line: only the fields it has; returns the
 * node of its physical address when -F asks for it. */
static int memsample_as_event(const struct pms_memsample *m, const struct pms_perfdata_attr *a,
			      const struct pms_script *sc, struct pms_perfdata_event *ev)
{
	struct pms_sample *s = &ev->rec.sample;
	struct pms_memsample t = *m;
	struct pms_memdeco_out o = { .mem_node = PMS_NODE_UNKNOWN };
	memset(ev, 0, sizeof(*ev));
	ev->rec.type = PMS_RECORD_SAMPLE;
	ev->attr = a;
	s->ip = m->ip;
	s->pid = m->pid;
	s->tid = m->tid;
	s->cpu = m->cpu;
	s->addr = m->addr;
	s->phys_addr = m->phys_addr;
	s->weight = m->weight;
	s->data_src = m->data_src;
	s->period = m->period;
	/* SPE timestamps are counter ticks: perf time through the file's
	 * TIME_CONV (the decoration stage's), else none */
	pms_memdeco_spe_time(sc->deco, &t);
	s->time = t.time;
	if (sc->want_node)
		pms_memdeco_apply(sc->deco, &t, (t.valid & PMS_MS_PHYS) ? &t.phys_addr : NULL, &o);
	return o.mem_node;
}

/* One sample made from an SPE record, with the SPE event's period (each
 * record stands for sample_period operations), queued for the pull. */
static void spe_emit(struct pms_script *s, const struct pms_perfdata_event *ev, int node)
{
	struct script_q *q;
	if (s->qn == s->qcap) {
		size_t cap = s->qcap ? 2 * s->qcap : 64;
		struct script_q *nq = realloc(s->q, cap * sizeof(*nq));
		if (!nq)
			return;
		s->q = nq;
		s->qcap = cap;
	}
	q = &s->q[s->qn++];
	q->ev = *ev;
	q->ev.rec.sample.period = s->spe_attr ? s->spe_attr->attr->sample_period : 0;
	q->node = node;
}

static int spe_one(void *arg, const struct pms_spe_record *rec, const struct pms_memsample *m)
{
	struct pms_script *s = arg;
	struct pms_perfdata_event ev;
	struct pms_spe_branch br;
	/* perf's order: the branch-miss sample before the memory one
	 * (arm-spe.c arm_spe_sample) */
	if ((s->flags & PMS_SCRIPT_ITRACE_BRANCH) && pms_spe_record_branch_miss(rec, &br)) {
		(void)memsample_as_event(m, s->spe_attr, s, &ev);
		ev.rec.sample.ip = br.from;
		ev.rec.sample.addr = br.to;
		ev.rec.sample.weight = br.latency;
		ev.rec.sample.data_src = 0;
		ev.rec.sample.phys_addr = 0;
		spe_emit(s, &ev, PMS_NODE_UNKNOWN);
	}
	if (!(s->flags & PMS_SCRIPT_ITRACE_MEM) || !pms_spe_record_is_mem(rec))
		return 0;
	int node = memsample_as_event(m, s->spe_attr, s, &ev);
	spe_emit(s, &ev, node);
	return 0;
}

/* An arm_spe AUXTRACE chunk: its load/store records, as perf script
 * --itrace=M shows them (docs/spe.md), queued. */
static void script_spe(struct pms_script *s, const struct pms_perfdata_event *ev)
{
	struct pms_perfdata_spe_meta meta;
	struct pms_spe_chunk_ctx cx = { 0 };
	uint64_t midr = 0;

	s->qn = s->qi = 0;
	if (pms_perfdata_reader_spe_meta(s->r, &meta) < 0)
		return;
	s->spe_attr = NULL;
	for (size_t i = 0; i < pms_perfdata_reader_nattrs(s->r); i++)
		if (pms_perfdata_reader_attr(s->r, i)->attr->type == meta.pmu_type)
			s->spe_attr = pms_perfdata_reader_attr(s->r, i);
	if (!s->spe_attr)
		s->spe_attr = ev->attr;
	(void)pms_perfdata_reader_spe_midr(s->r, ev->auxtrace.cpu, &midr);
	cx.midr = midr;
	cx.cpu = ev->auxtrace.cpu;
	cx.tid = ev->aux_tid; /* the reader's rule, as report's */
	cx.pid = ev->aux_pid;
	(void)pms_spe_chunk_decode(ev->aux_data, ev->aux_len, &cx, &s->spe_st, spe_one, s);
}

/* An ibs_op sample recorded with RAW only: the fields the kernel did not
 * write, as the one converter fills them from the registers
 * (pms_memsample_from_sample; docs/ibs.md). */
static void ibs_fill(struct pms_perfdata_reader *r, struct pms_perfdata_event *ev)
{
	struct pms_sample *s = &ev->rec.sample;
	const struct pms_perfdata_info *in = pms_perfdata_reader_info(r);
	const char *pmu = NULL;
	struct pms_ibs_cpu cpu;
	struct pms_memconv_ctx cx;
	struct pms_memsample m;

	if (!(s->present & PMS_SAMPLE_RAW) || !in->cpuid ||
	    pms_ibs_cpu_from_cpuid(in->cpuid, 0, &cpu) < 0)
		return;
	for (size_t i = 0; i < in->npmu; i++)
		if (in->pmu[i].type == ev->attr->attr->type)
			pmu = in->pmu[i].name;
	if (pms_engine_of_pmu(pmu, NULL) != PMS_ENG_IBS)
		return;
	memset(&cx, 0, sizeof(cx));
	cx.engine = PMS_ENG_IBS;
	cx.sample_type = ev->attr->sample_type;
	cx.ibs_cpu = &cpu;
	cx.ibs_ldlat = (unsigned)(ev->attr->attr->config1 & 0xfff);
	if (pms_memsample_from_sample(s, &cx, &m, NULL) < 0)
		return;
	if (!(s->present & PMS_SAMPLE_DATA_SRC) && (m.valid & PMS_MS_DATA_SRC))
		s->data_src = m.data_src;
	if (!(s->present & PMS_SAMPLE_ADDR) && (m.valid & PMS_MS_ADDR))
		s->addr = m.addr;
	if (!(s->present & PMS_SAMPLE_PHYS_ADDR) && (m.valid & PMS_MS_PHYS))
		s->phys_addr = m.phys_addr;
	if (!(s->present & (PMS_SAMPLE_WEIGHT | PMS_SAMPLE_WEIGHT_STRUCT)) &&
	    (m.valid & PMS_MS_WEIGHT)) {
		s->weight = m.weight;
		s->weight_var2_w = (uint16_t)m.ins_lat;
	}
}


/* A comma-separated list into v (pointers into a copy the caller frees). */
static int split_list(const char *arg, char **copy, char ***v, size_t *n)
{
	size_t k = 1;
	for (const char *p = arg; *p; p++)
		k += *p == ',';
	*copy = strdup(arg);
	*v = calloc(k, sizeof(**v));
	*n = 0;
	if (!*copy || !*v)
		return -1;
	for (char *save = NULL, *t = strtok_r(*copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		(*v)[(*n)++] = t;
	return 0;
}

static bool in_list(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static bool in_ids(char **v, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (strtoul(v[i], NULL, 10) == id)
			return true;
	return false;
}

/* perf's time form (util/time-utils.c parse_timestr_sec_nsec): seconds,
 * then up to nine digits of fraction; empty is 0 (no bound). */
static int time_ns(const char *s, size_t len, uint64_t *out)
{
	uint64_t sec = 0, ns = 0;
	size_t i = 0, d = 0;
	*out = 0;
	if (!len)
		return 0;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, d++)
			if (d < 9)
				ns = ns * 10 + (uint64_t)(s[i] - '0');
		for (; d < 9; d++)
			ns *= 10;
	}
	if (i != len)
		return -1;
	*out = sec * 1000000000u + ns;
	return 0;
}

static int parse_time(const char *arg, struct script_trange *t)
{
	const char *c = strchr(arg, ',');
	t->set = true;
	if (!c)
		return time_ns(arg, strlen(arg), &t->start);
	if (time_ns(arg, (size_t)(c - arg), &t->start) < 0 ||
	    time_ns(c + 1, strlen(c + 1), &t->end) < 0 || (t->end && t->start > t->end))
		return -1;
	return 0;
}

static bool time_skip(const struct script_trange *t, uint64_t ts)
{
	return t->set && ((t->start && ts < t->start) || (t->end && ts > t->end));
}

/* perf's checks of the fields against the events and what the lines share,
 * once the attrs are in (pipe mode: at the first sample). */
static int pf_setup(struct pms_script *s)
{
	struct pms_perfdata_reader *r = s->r;
	const struct pms_perfdata_info *in = pms_perfdata_reader_info(r);
	bool aux = (in->has[PMS_PERFDATA_FEAT_AUXTRACE / 64] >>
		    (PMS_PERFDATA_FEAT_AUXTRACE % 64)) & 1;
	int rc = pms_script_pf_check_(s->o, r, aux);
	s->f_set = false;
	if (rc < 0)
		return rc;
	s->use_chain = !(s->flags & PMS_SCRIPT_HIDE_CHAIN);
	if (s->cpu) {
		bool has_cpu = false;
		for (size_t i = 0; i < pms_perfdata_reader_nattrs(r); i++)
			has_cpu |= (pms_perfdata_reader_attr(r, i)->sample_type & PMS_SAMPLE_CPU) != 0;
		if (!has_cpu)
			return pms_err(PMS_EINVAL, "File does not contain CPU events. "
						   "Remove -C option to proceed.");
	}
	for (size_t i = 0; i < pms_perfdata_reader_nattrs(r); i++) {
		char nb[64];
		int w = (int)strlen(pms_script_pf_event_name_(pms_perfdata_reader_attr(r, i), nb,
							      sizeof(nb)));
		s->name_width = w > s->name_width ? w : s->name_width;
	}
	for (int k = 0; k < OT_N; k++)
		s->want_node |= (s->o[k].fields & PX_NODE) != 0;
	return 0;
}

static bool drops(const struct pms_script *f, const struct pms_sample *s)
{
	size_t ci;
	return time_skip(&f->tr, s->time) ||
	       (f->cpu && s->cpu != UINT32_MAX && !pms_cpuset_has(&f->cpus, (int)s->cpu)) ||
	       (f->nlist[2] && !in_ids(f->list[2], f->nlist[2], s->pid)) ||
	       (f->nlist[3] && !in_ids(f->list[3], f->nlist[3], s->tid)) ||
	       (f->nlist[1] && ((ci = comm_find(&f->comms, s->tid)) == SIZE_MAX ||
				!in_list(f->list[1], f->nlist[1], f->comms.name[ci])));
}

int pms_script_new(unsigned flags, struct pms_script **out)
{
	struct pms_script *s = calloc(1, sizeof(*s));
	*out = s;
	if (!s)
		return pms_err(PMS_ENOMEM, "script: out of memory");
	s->flags = flags;
	s->want_node = (flags & PMS_SCRIPT_NODE) != 0;
	pms_script_pf_defaults_(s->o);
	if ((flags & PMS_SCRIPT_CHAIN) && !(s->chain = calloc(PMS_CALLPATH_MAX, sizeof(*s->chain))))
		return pms_err(PMS_ENOMEM, "script: out of memory");
	return 0;
}

int pms_script_read(struct pms_script *s, int fd, struct pms_sys *sys)
{
	int rc;
	if (s->r)
		return pms_err(PMS_EINVAL, "pms_script_read: a file is already read");
	if ((rc = pms_perfdata_reader_open_fd(fd, &s->r)) < 0 ||
	    (rc = pms_perfdata_ordered_new(s->r, &s->oq)) < 0)
		return rc;
	/* s->cur is the one event pms_script_next reads into and only reads
	 * (ibs_fill writes a RAW sample, which no plan decodes): samples are
	 * decoded over the one before (perfdata/reader_lazy.h) */
	pms_pd_ordered_own(s->oq);
	s->dw.sys = sys;
	if ((s->flags & PMS_SCRIPT_SYMBOLS) && !(s->flags & PMS_SCRIPT_RECORDS_ONLY)) {
		rc = pms_symtrack_new(sys, pms_perfdata_reader_info(s->r), &s->st);
		s->dw.sym = symtrack_symbolizer(s->st); /* one DWARF per file */
		return rc;
	}
	return 0;
}

void pms_script_free(struct pms_script *s)
{
	if (!s)
		return;
	dwpath_fini(&s->dw); /* its unwinder borrows st's symbolizer */
	pms_symtrack_free(s->st);
	inlpath_fini(&s->inl);
	free(s->chain);
	pms_memdeco_free(s->deco);
	pms_perfdata_ordered_free(s->oq);
	pms_perfdata_reader_free(s->r);
	comms_free(&s->comms);
	for (size_t i = 0; i < 4; i++) {
		free(s->copy[i]);
		free(s->list[i]);
	}
	pms_cpuset_fini(&s->cpus);
	free(s->q);
	free(s->scratch);
	free(s);
}

int pms_script_fields(struct pms_script *s, const char *arg)
{
	s->f_set = false;
	return pms_script_pf_parse_(s->o, arg);
}

int pms_script_filter(struct pms_script *s, int which, const char *arg)
{
	if (which == PMS_SCRIPT_F_CPUS) {
		int rc = pms_cpuset_parse_list(&s->cpus, arg);
		s->cpu = rc >= 0;
		return rc;
	}
	if (which == PMS_SCRIPT_F_TIME)
		return parse_time(arg, &s->tr) < 0 ? pms_err(PMS_EINVAL, "bad time range '%s'", arg) : 0;
	if (which < PMS_SCRIPT_F_SYMBOLS || which > PMS_SCRIPT_F_TIDS)
		return pms_err(PMS_EINVAL, "script: no filter %d", which);
	free(s->copy[which]);
	free(s->list[which]);
	s->copy[which] = NULL;
	s->list[which] = NULL;
	return split_list(arg, &s->copy[which], &s->list[which], &s->nlist[which]) < 0
		       ? pms_err(PMS_ENOMEM, "script: out of memory") : 0;
}

/* A side-band record: comms (a forked thread starts with its parent's, as
 * perf has it) and the symbols' mappings. */
static int side_band(struct pms_script *s, const struct pms_record *rec)
{
	if (rec->type == PMS_RECORD_COMM)
		comm_set(&s->comms, rec->comm.tid, rec->comm.comm);
	if (rec->type == PMS_RECORD_FORK && (s->flags & PMS_SCRIPT_TEXT) &&
	    comm_find(&s->comms, rec->fork.tid) == SIZE_MAX) {
		size_t pc = comm_find(&s->comms, rec->fork.ptid);
		if (pc != SIZE_MAX) {
			char cn[16];
			memcpy(cn, s->comms.name[pc], sizeof(cn));
			comm_set(&s->comms, rec->fork.tid, cn);
		}
	}
	if (s->st && rec->type != PMS_RECORD_SAMPLE)
		return pms_symtrack_record(s->st, rec);
	return 0;
}

static void fill(struct pms_script *s, const struct pms_perfdata_event *ev, int node,
		 struct pms_script_sample *out)
{
	size_t c = comm_find(&s->comms, ev->rec.sample.tid);
	out->ev = ev;
	out->comm = c != SIZE_MAX ? s->comms.name[c] : NULL;
	out->event = ev_name(s, ev->attr);
	out->node = node;
	out->chain = false;
	out->frames = NULL;
	out->nframes = 0;
	if (s->chain && !(s->flags & PMS_SCRIPT_HIDE_CHAIN))
		out->chain = pms_script_chain_(s, &ev->rec.sample, s->chain, &out->frames,
					       &out->nframes);
}

/* The per-file kernel rule (session_int.h sess_kernel_judge), as report
 * keeps it: the file's kernel judged once, at its first sample that may hold
 * a kernel address (decode/kaddr.h, report's test), from the build ids read
 * by then (a pipe file's HEADER_BUILD_ID records before it; a later one
 * changes nothing). */
static void kernel_judge(struct pms_script *s, const struct pms_sample *x)
{
	if (s->kjudged || !s->st || !kaddr_in_sample(x))
		return;
	s->kjudged = true;
	symtrack_kernel_set(s->st, symtrack_kernel_here(s->dw.sys, pms_perfdata_reader_info(s->r)));
}

int pms_script_next(struct pms_script *s, struct pms_script_sample *out)
{
	struct pms_perfdata_event *ev = &s->cur;
	int rc;
	if (s->qi < s->qn) {
		fill(s, &s->q[s->qi].ev, s->q[s->qi].node, out);
		s->qi++;
		return 1;
	}
	/* perf script's order: by time (its ordered events) */
	while ((rc = pms_perfdata_ordered_next(s->oq, ev)) > 0) {
		bool hw = ev->rec.type == PMS_RECORD_SAMPLE ||
			  ev->rec.type == PMS_PERFDATA_RECORD_AUXTRACE;
		int node = PMS_NODE_UNKNOWN;
		if ((rc = side_band(s, &ev->rec)) < 0)
			return rc;
		if (!hw || (s->flags & PMS_SCRIPT_RECORDS_ONLY))
			continue;
		/* the decoration stage and perf's checks of the fields, once
		 * the headers are in (pipe mode: at the first sample or trace) */
		if (!s->deco && (rc = pms_memdeco_new_file(s->r, &s->deco)) < 0)
			return rc;
		if ((s->flags & PMS_SCRIPT_TEXT) && !s->checked) {
			s->checked = true;
			if ((rc = pf_setup(s)) < 0)
				return rc;
		}
		if (ev->rec.type == PMS_PERFDATA_RECORD_AUXTRACE) {
			script_spe(s, ev);
			if (s->qi < s->qn) {
				fill(s, &s->q[s->qi].ev, s->q[s->qi].node, out);
				s->qi++;
				return 1;
			}
			continue;
		}
		kernel_judge(s, &ev->rec.sample);
		if (drops(s, &ev->rec.sample))
			continue;
		ibs_fill(s->r, ev);
		if (s->want_node && (ev->rec.sample.present & PMS_SAMPLE_PHYS_ADDR)) {
			struct pms_memsample none = { .valid = 0 };
			struct pms_memdeco_out o;
			pms_memdeco_apply(s->deco, &none, &ev->rec.sample.phys_addr, &o);
			node = o.mem_node;
		}
		fill(s, ev, node, out);
		return 1;
	}
	return rc;
}

struct pms_perfdata_reader *pms_script_reader(const struct pms_script *s)
{
	return s->r;
}

const struct pms_spe_chunk_stats *pms_script_spe_stats(const struct pms_script *s)
{
	return &s->spe_st;
}
