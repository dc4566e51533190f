/* `pmuscope mem` report (memprof.c): the report builder (pms_memprof_report)
 * over kept samples or an aggregate, and pms_memreport_free. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pmuscope/datasrc.h"
#include "pmuscope/report.h"
#include "report/memprof_int.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/opts.h"
#include "topo/topo_int.h"

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void pms_memreport_free(struct pms_memreport *r)
{
	if (!r)
		return;
	free(r->pmus);
	free(r->label);
	free(r->notes);
	free(r->data_src_note);
	free(r->attempts);
	for (size_t i = 0; i < r->nlevels; i++)
		free(r->levels[i].name);
	free(r->levels);
	for (size_t i = 0; i < r->nops; i++)
		free(r->ops[i].name);
	free(r->ops);
	free(r->node_ids);
	free(r->matrix);
	mp_sites_free(r->top_ips_samples, r->ntop_ips_samples);
	mp_sites_free(r->top_ips_latency, r->ntop_ips_latency);
	mp_sites_free(r->top_funcs_samples, r->ntop_funcs_samples);
	mp_sites_free(r->top_funcs_latency, r->ntop_funcs_latency);
	mp_sites_free(r->top_objects, r->ntop_objects);
	for (size_t i = 0; i < r->nprocs; i++)
		mp_task_free(&r->procs[i]);
	free(r->procs);
	for (size_t i = 0; i < r->nthreads; i++)
		mp_task_free(&r->threads[i]);
	free(r->threads);
	mp_sites_free(r->sites, r->nsites);
	mp_sites_free(r->objects, r->nobjects);
	for (size_t i = 0; i < r->nsources; i++)
		free(r->sources[i].name);
	free(r->sources);
	free(r->all);
	free(r);
}

static bool kernel_ip(const struct pms_memsample *s)
{
	return (s->valid & PMS_MS_KERNEL_IP) != 0;
}

/* A whole file mapping of the aggregate (its samples were not kept, so it
 * is not cut into sections and globals): the file's base name and the
 * sections it spans, never one symbol's name. */
static int agg_file_name(struct pms_memprof *p, struct pms_symbolizer *sym,
			 struct pms_memreport_site *o)
{
	struct pms_dataobj d;
	char buf[320];
	const char *first = NULL, *last = NULL, *file = o->module;
	int rc = 0;
	bool all = true; /* every byte in a section */
	const struct pms_maps *ms = pms_memprof_maps(p);
	/* walk the mapping object by object (sections, the globals in them,
	 * the gaps between): bounded, a mapping of many globals is long */
	for (uint64_t a = o->addr, n = 0; a < o->addr + o->size && n < 65536; n++) {
		if (pms_data_object(sym, 0, ms, a, &d) < 0 || d.kind == PMS_DOBJ_UNMAPPED ||
		    d.end <= a)
			break;
		if (d.section) {
			first = first ? first : d.section;
			last = d.section;
			file = d.module;
		} else if (!first || d.end - a >= 4096) {
			all = false; /* not the page's round-up after a .bss */
		}
		a = d.end;
	}
	if (!first || (!all && !strcmp(o->kind, "anon")))
		return 0; /* the mapping's path (anonymous: its start), as named when added */
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	if (!strcmp(first, last))
		snprintf(buf, sizeof(buf), "%s %s", base, first);
	else
		snprintf(buf, sizeof(buf), "%s [%s - %s]", base, first, last);
	free(o->name);
	o->name = mp_xstrdup(buf, &rc);
	return rc;
}

/* Data objects from the aggregate: named at first sight (the mapping);
 * a file mapping's sections are looked up now. */
static int agg_objects(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym)
{
	struct agg *a = p->agg;
	size_t no = 0;
	int rc = 0;
	struct pms_memreport_site *objs = calloc(a->nobjs ? a->nobjs : 1, sizeof(*objs));
	if (!objs)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < a->nobjs; i++) {
		struct pms_memreport_site *o = &objs[no];
		rc = mp_site_copy(o, &a->objs[i].site);
		no++;
		if (rc < 0)
			goto out;
		if ((!strcmp(o->kind, "file") || !strcmp(o->kind, "anon")) && sym && o->size &&
		    (rc = agg_file_name(p, sym, o)) < 0)
			goto out;
		if (!r->kernel_visible && o->addr >= (1ULL << 63)) {
			o->addr = 0;
			o->addr_hidden = true;
		}
	}
	rc = mp_top_of(objs, no, p->top, mp_by_samples, false, &r->top_objects, &r->ntop_objects);
out:
	mp_sites_free(objs, no);
	return rc;
}

static int int_cmp(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return a < b ? -1 : a > b;
}

/* Node counters and the matrix from the aggregate; the nodes are the
 * topology's, those named by pms_memprof_set_node_ids, and any seen. */
static int agg_nodes(struct pms_memprof *p, struct pms_memreport *r)
{
	struct agg *a = p->agg;
	size_t tn = p->topo ? p->topo->nnodes : 0, cap = tn + a->nids + 2 * a->npairs, nn = 0;
	int *ids = calloc(cap ? cap : 1, sizeof(*ids));
	if (!ids)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < tn; i++)
		ids[nn++] = p->topo->nodes[i].id;
	for (size_t i = 0; i < a->nids; i++)
		ids[nn++] = a->ids[i];
	for (size_t i = 0; i < a->npairs; i++) {
		if (a->pairs[i].cpu >= 0)
			ids[nn++] = a->pairs[i].cpu;
		ids[nn++] = a->pairs[i].mem;
	}
	qsort(ids, nn, sizeof(*ids), int_cmp);
	size_t u = 0;
	for (size_t i = 0; i < nn; i++)
		if (!u || ids[u - 1] != ids[i])
			ids[u++] = ids[i];
	r->node_ids = ids;
	r->nnodes = u;
	r->matrix = calloc(u ? u * u : 1, sizeof(*r->matrix));
	if (!r->matrix)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < a->npairs; i++) {
		size_t row = u, col = u;
		for (size_t k = 0; k < u; k++) {
			if (ids[k] == a->pairs[i].cpu)
				row = k;
			if (ids[k] == a->pairs[i].mem)
				col = k;
		}
		if (row < u && col < u)
			r->matrix[row * u + col] += a->pairs[i].n;
		else
			r->matrix_cpu_unknown += a->pairs[i].n;
	}
	r->no_addr = a->no_addr;
	r->unresolved = a->unresolved;
	r->resolved = a->resolved;
	r->from_phys = a->from_phys;
	r->on_home = a->on_home;
	r->elsewhere = a->elsewhere;
	r->st_efault = a->st_efault;
	r->st_enoent = a->st_enoent;
	r->st_not_asked = a->st_not_asked;
	r->st_gone = a->st_gone;
	r->st_other = a->st_other;
	return 0;
}

/* Naming's first lookup into each sampled module (its ELF file and symbol
 * table read and sorted, its line table inflated: a fixed cost per file,
 * a fifth of a 1 M-sample report's part after a --jobs merge) made on a
 * thread of its own while this one sorts the IP table and builds the rows;
 * naming waits for it (warm_join), so the symbolizer has one user at a
 * time.  The names do not change: the lookups are the ones naming makes
 * anyway, their answers remembered by the symbolizer. */
#define WARM_MODULES 64  /* mappings warmed at most */
#define WARM_MIN_IPS 4096 /* fewer instructions: not worth a thread */
#define WARM_STRIDE 61   /* every WARM_STRIDE-th instruction looked at */
struct warm {
	struct pms_symbolizer *sym;
	uint64_t ip[WARM_MODULES];
	size_t n;
	pthread_t tid;
	bool started;
};

static void *warm_run(void *ud)
{
	struct warm *w = ud;
	for (size_t i = 0; i < w->n; i++) {
		struct pms_symbol sy = { 0 };
		(void)pms_symbolizer_code_pid(w->sym, 0, w->ip[i], false, true, &sy);
	}
	return NULL;
}

/* Start w on an IP of each mapping that some sampled user instruction of
 * the table is in (a spread of them looked at), when there are many. */
static void warm_start(struct pms_memprof *p, struct pms_symbolizer *sym, struct warm *w)
{
	const struct iptab *t = &p->agg->ipt;
	const struct pms_maps *ms = pms_memprof_maps(p);
	uint64_t start[WARM_MODULES];
	w->n = 0;
	w->started = false;
	if (!sym || !ms || p->per_pid_maps || t->n < WARM_MIN_IPS)
		return;
	for (size_t i = 0; i < t->cap && w->n < WARM_MODULES; i += WARM_STRIDE) {
		const struct ipslot *e = &t->v[i];
		if (!e->samples || (e->wk & 3))
			continue; /* free, or a kernel IP */
		const struct pms_map *m = pms_maps_find(ms, e->ip);
		size_t k = 0;
		if (!m || m->kind == PMS_MAP_ANON)
			continue;
		while (k < w->n && start[k] != m->start)
			k++;
		if (k == w->n) {
			start[w->n] = m->start;
			w->ip[w->n++] = e->ip;
		}
	}
	w->sym = sym;
	w->started = w->n && pthread_create(&w->tid, NULL, warm_run, w) == 0;
}

static void warm_join(struct warm *w)
{
	if (w->started)
		pthread_join(w->tid, NULL);
	w->started = false;
}

/* Everything the kept-samples path computes, from the aggregate. */
static int agg_report(struct pms_memprof *p, struct pms_memreport *r, struct pms_symbolizer *sym)
{
	struct agg *a = p->agg;
	int rc = 0;
	struct warm w;
	warm_start(p, sym, &w);
	r->samples = a->samples;
	r->with_addr = a->with_addr;
	r->with_data_src = a->with_data_src;
	for (size_t i = 0; i < a->nds && rc >= 0; i++) {
		char txt[128];
		pms_datasrc_format_mem(a->ds[i].key, txt, sizeof(txt));
		rc = mp_count_addn(&r->levels, &r->nlevels, txt, a->ds[i].n);
		if (rc >= 0 && a->ds[i].key != PMS_MEM_NA_VALUE)
			rc = mp_count_addn(&r->ops, &r->nops, pms_datasrc_stat_op(a->ds[i].key), a->ds[i].n);
	}
	if (rc < 0) {
		warm_join(&w);
		return rc;
	}
	if (r->nlevels)
		qsort(r->levels, r->nlevels, sizeof(*r->levels), mp_count_cmp);
	if (r->nops)
		qsort(r->ops, r->nops, sizeof(*r->ops), mp_count_cmp);
	struct wstats ws;
	mp_agg_wstats(a, &ws);
	r->latency.n = ws.n;
	if (ws.n) {
		r->latency.min = ws.min;
		r->latency.max = ws.max;
		r->latency.median = mp_agg_pct(a, &ws, 50);
		r->latency.p90 = mp_agg_pct(a, &ws, 90);
		r->latency.p99 = mp_agg_pct(a, &ws, 99);
		r->latency.mean = ws.sum / (double)ws.n;
	}
	if ((rc = agg_nodes(p, r)) < 0) {
		warm_join(&w);
		return rc;
	}
	/* the code sites are named into a copy, so a second report works;
	 * in address order (mp_finish_code's order: its passes then go through
	 * memory in sequence, not a cache miss an instruction) */
	size_t nips = 0, nk = 0, ipsz = (a->ipt.n ? a->ipt.n : 1) * sizeof(struct irow);
	struct irow *ips = mp_big_calloc(ipsz);
	struct skey *keys = malloc((a->ipt.n ? a->ipt.n : 1) * sizeof(*keys));
	if (!ips || !keys) {
		warm_join(&w);
		mp_big_free(ips, ipsz);
		free(keys);
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	}
	for (size_t i = 0; i < a->ipt.cap; i++)
		if (a->ipt.v[i].samples)
			keys[nk++] = (struct skey){ 0, a->ipt.v[i].ip, i };
	mp_skey_sort(keys, nk);
	/* the slots in address order are in no order in the table: each is
	 * fetched IPB_AHEAD rows ahead, so their misses overlap */
	for (size_t k = 0; k < nk; k++) {
		size_t i = keys[k].i;
		if (k + IPB_AHEAD < nk) {
			__builtin_prefetch(&a->ipt.v[keys[k + IPB_AHEAD].i]);
			if (a->ipt.nv)
				__builtin_prefetch(&a->ipt.nv[keys[k + IPB_AHEAD].i]);
		}
		const struct ipslot *e = &a->ipt.v[i];
		struct irow *st = &ips[nips++];
		st->addr = e->ip;
		st->kernel = e->wk & 1;
		st->foreign = (e->wk & 2) != 0;
		st->n.samples = e->samples;
		st->n.latency = e->latency;
		st->n.weighted = e->wk >> 2;
		if (a->ipt.nv) {
			st->n.resolved = a->ipt.nv[i].resolved;
			st->n.remote = a->ipt.nv[i].remote;
			st->n.on_home = a->ipt.nv[i].on_home;
		}
	}
	free(keys);
	warm_join(&w);
	rc = mp_finish_code(p, r, sym, ips, nips);
	/* its rows own nothing (mp_finish_code's names are borrowed): one
	 * free, not a test of each row's pointers */
	mp_big_free(ips, ipsz);
	if (rc >= 0)
		rc = agg_objects(p, r, sym);
	return rc;
}

static int build_nodes(struct pms_memprof *p, struct pms_memreport *r)
{
	size_t nn = p->topo ? p->topo->nnodes : 0;
	r->nnodes = nn;
	r->node_ids = calloc(nn ? nn : 1, sizeof(*r->node_ids));
	r->matrix = calloc(nn ? nn * nn : 1, sizeof(*r->matrix));
	if (!r->node_ids || !r->matrix)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < nn; i++)
		r->node_ids[i] = p->topo->nodes[i].id;
	r->resolved_held = p->resolved_held;
	for (size_t i = 0; i < p->n; i++) {
		const struct ksample *x = &p->v[i];
		if (x->tries > 1) {
			r->retried_samples++;
			r->retries += x->tries - 1u;
			r->retry_resolved += x->mem_node >= 0;
		}
		if (!(x->valid & (PMS_MS_ADDR | PMS_MS_PHYS))) {
			r->no_addr++;
			continue;
		}
		if (x->mem_node < 0) {
			r->unresolved++;
			if (x->mem_node == PMS_NODE_NO_PHYS)
				r->st_efault++;
			else if (x->mem_node == PMS_NODE_NO_BLOCK)
				r->st_enoent++;
			else if (x->mem_node == PMS_NODE_UNKNOWN)
				r->st_not_asked++;
			else if (x->mem_node == PMS_NODE_TASK_GONE || x->mem_node == PMS_NODE_BAD_ADDR)
				r->st_gone++;
			else if (x->mem_node == PMS_NODE_HOLD_BUDGET)
				r->st_hold_budget++;
			else if (x->mem_node == PMS_NODE_EXEC_REPLACED)
				r->st_exec_replaced++;
			else
				r->st_other++;
			continue;
		}
		r->resolved++;
		r->from_phys += x->from_phys;
		if (p->home_node >= 0) {
			if (x->mem_node == p->home_node)
				r->on_home++;
			else
				r->elsewhere++;
		}
		size_t row = nn, col = nn;
		for (size_t k = 0; k < nn; k++) {
			if (r->node_ids[k] == kcpu(p, x))
				row = k;
			if (r->node_ids[k] == x->mem_node)
				col = k;
		}
		if (row < nn && col < nn)
			r->matrix[row * nn + col]++;
		else
			r->matrix_cpu_unknown++;
	}
	return 0;
}

/* report.all from the kept samples and the rest of each. */
static int build_all(struct pms_memprof *p, struct pms_memreport *r)
{
	r->all = calloc(p->n ? p->n : 1, sizeof(*r->all));
	if (!r->all)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	for (size_t i = 0; i < p->n; i++) {
		const struct ksample *k = &p->v[i];
		const struct kextra *e = &p->xv[i];
		struct pms_memreport_sample *x = &r->all[i];
		x->s.valid = k->valid;
		x->s.engine = (enum pms_engine)e->engine;
		x->s.ip = k->ip;
		x->s.pid = e->pid;
		x->s.tid = e->tid;
		x->s.time = e->time;
		x->s.cpu = e->cpu;
		x->s.addr = k->addr;
		x->s.phys_addr = e->phys_addr;
		x->s.data_src = p->dsv[k->ds];
		x->s.weight = k->weight;
		x->s.ins_lat = e->ins_lat;
		x->s.page_size = e->page_size;
		x->s.period = e->period;
		x->mem_node = k->mem_node;
		x->cpu_node = kcpu(p, k);
		x->node_from_phys = k->from_phys;
		x->site = (long)e->site;
		x->object = (long)e->object;
		x->source = e->source;
		x->tries = k->tries;
	}
	r->nall = p->n;
	return 0;
}

static void data_src_note(struct pms_memreport *r, const struct pms_memreport_input *in, int *rc)
{
	char note[256] = "";
	const char *eng = pms_engine_brand(in->engine);
	r->data_src_available = in->data_src && r->with_data_src > 0;
	if (!in->data_src)
		snprintf(note, sizeof(note), "data source unavailable: %s does not report it", eng);
	else if (!r->with_data_src)
		snprintf(note, sizeof(note), "data source unavailable: no %s sample carried one", eng);
	r->data_src_note = mp_xstrdup(note, rc);
}

/* Over 150 lines: the report assembled in one order (totals, levels, sites,
 * objects, tasks, notes) with one error path; not split this round, as
 * issue 33 reworks src/report/memprof*.c in parallel. */
int pms_memprof_report(struct pms_memprof *p, struct pms_symbolizer *sym,
		       const struct pms_memreport_input *in, struct pms_memreport **out)
{
	struct pms_memreport *r = NULL;
	uint64_t *w = NULL, *dsn = NULL;
	int rc = 0;

	if (out)
		*out = NULL;
	if (!p || !in || !out)
		return pms_err(PMS_EINVAL, "memreport: NULL argument");
	if (p->released)
		return pms_err(PMS_EINVAL, "memreport: built once for a no_sample_list profile "
					   "(its samples are gone)");
	if (sym && p->per_pid_maps)
		/* each process's code named from its own mappings */
		for (size_t i = 0; i < p->npm; i++)
			if (p->pm[i].maps->n &&
			    (rc = pms_symbolizer_add_process(sym, (pid_t)p->pm[i].pid, p->pm[i].maps)) < 0)
				return rc;
	r = calloc(1, sizeof(*r));
	if (!r)
		return pms_err(PMS_ENOMEM, "memreport: no memory");
	r->engine = in->engine;
	r->pmus = mp_xstrdup(in->pmus, &rc);
	r->label = mp_xstrdup(in->label, &rc);
	r->notes = mp_xstrdup(in->notes, &rc);
	r->phys = in->phys;
	r->verify_requested = in->verify_requested;
	r->duration_ns = in->duration_ns;
	r->home_node = p->home_node;
	if (in->stats)
		r->stats = *in->stats;
	if (in->numa)
		r->numa = *in->numa;
	if (in->nattempts) {
		r->attempts = calloc(in->nattempts, sizeof(*r->attempts));
		if (!r->attempts) {
			rc = pms_err(PMS_ENOMEM, "memreport: no memory");
			goto out;
		}
		memcpy(r->attempts, in->attempts, in->nattempts * sizeof(*r->attempts));
		r->nattempts = in->nattempts;
	}
	if (rc < 0)
		goto out;

	if (p->nsources) {
		r->sources = calloc(p->nsources, sizeof(*r->sources));
		if (!r->sources) {
			rc = pms_err(PMS_ENOMEM, "memreport: no memory");
			goto out;
		}
		for (size_t i = 0; i < p->nsources; i++) {
			r->sources[i].name = mp_xstrdup(p->sources[i].name, &rc);
			r->sources[i].samples = p->sources[i].samples;
			r->nsources = i + 1;
		}
		if (rc < 0)
			goto out;
	}
	p->recorded = in->recorded;
	if (p->agg) {
		if ((rc = mp_agg_flush(p)) < 0)
			goto out;
		r->kernel_visible = p->agg->any_kernel &&
				    (in->recorded || (sym && pms_symbolizer_kernel_visible(sym)));
		if ((rc = agg_report(p, r, sym)) < 0)
			goto out;
		data_src_note(r, in, &rc);
		if (rc < 0)
			goto out;
		*out = r;
		r = NULL;
		goto out;
	}
	bool any_kernel = false;
	for (size_t i = 0; i < p->n && !any_kernel; i++)
		any_kernel = (p->v[i].valid & PMS_MS_KERNEL_IP) ||
			     ((p->v[i].valid & PMS_MS_ADDR) && p->v[i].addr >= (1ULL << 63));
	r->kernel_visible = any_kernel && (in->recorded || (sym && pms_symbolizer_kernel_visible(sym)));

	/* Levels and ops over samples with a real data source. */
	r->samples = p->n;
	w = calloc(p->n ? p->n : 1, sizeof(*w));
	if (!w) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	size_t nw = 0;
	uint64_t nna = 0; /* samples without PMS_MS_DATA_SRC */
	/* samples per distinct data_src (the kept samples index dsv), both
	 * lists from those: a text per value, not per sample */
	dsn = calloc(p->ndsv ? p->ndsv : 1, sizeof(*dsn));
	if (!dsn) {
		rc = pms_err(PMS_ENOMEM, "memreport: no memory");
		goto out;
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct ksample *s = &p->v[i];
		if (s->valid & PMS_MS_ADDR)
			r->with_addr++;
		if (s->valid & PMS_MS_WEIGHT)
			w[nw++] = s->weight;
		if (s->valid & PMS_MS_DATA_SRC)
			dsn[s->ds]++;
		else
			nna++;
	}
	for (size_t i = 0; i <= p->ndsv; i++) {
		uint64_t n = i < p->ndsv ? dsn[i] : nna;
		if (!n)
			continue;
		/* every sample has a level, "N/A" without a data source (perf) */
		uint64_t key = i < p->ndsv ? mp_level_key_of(PMS_MS_DATA_SRC, p->dsv[i]) : PMS_MEM_NA_VALUE;
		char txt[128];
		pms_datasrc_format_mem(key, txt, sizeof(txt));
		rc = mp_count_addn(&r->levels, &r->nlevels, txt, n);
		if (rc < 0)
			goto out;
		if (key == PMS_MEM_NA_VALUE)
			continue;
		r->with_data_src += n;
		rc = mp_count_addn(&r->ops, &r->nops, pms_datasrc_stat_op(p->dsv[i]), n);
		if (rc < 0)
			goto out;
	}
	if (r->nlevels)
		qsort(r->levels, r->nlevels, sizeof(*r->levels), mp_count_cmp);
	if (r->nops)
		qsort(r->ops, r->nops, sizeof(*r->ops), mp_count_cmp);
	data_src_note(r, in, &rc);
	if (rc < 0)
		goto out;
	qsort(w, nw, sizeof(*w), u64_cmp);
	r->latency.n = nw;
	if (nw) {
		double sum = 0;
		for (size_t i = 0; i < nw; i++)
			sum += (double)w[i];
		r->latency.min = w[0];
		r->latency.max = w[nw - 1];
		r->latency.median = pms_percentile(w, nw, 50);
		r->latency.p90 = pms_percentile(w, nw, 90);
		r->latency.p99 = pms_percentile(w, nw, 99);
		r->latency.mean = sum / (double)nw;
	}
	rc = build_nodes(p, r);
	if (rc >= 0)
		rc = mp_build_tasks(p, false, &r->procs, &r->nprocs);
	if (rc >= 0)
		rc = mp_build_tasks(p, true, &r->threads, &r->nthreads);
	/* the objects first: their per-sample keys are gone before naming
	 * the code loads debug information (the report phase's peak) */
	if (rc >= 0)
		rc = mp_build_objects(p, r, sym);
	if (rc >= 0)
		rc = mp_build_code(p, r, sym);
	if (rc < 0)
		goto out;
	/* Every sample, with what the caller may not see masked. */
	if (p->xv && (rc = build_all(p, r)) < 0)
		goto out;
	if (!r->kernel_visible && !in->unmasked)
		for (size_t i = 0; i < r->nall; i++) {
			struct pms_memsample *s = &r->all[i].s;
			if (kernel_ip(s))
				s->ip = 0;
			if ((s->valid & PMS_MS_ADDR) && s->addr >= (1ULL << 63))
				s->addr = 0;
		}
	*out = r;
	r = NULL;
out:
	free(w);
	free(dsn);
	pms_memreport_free(r);
	return rc;
}
