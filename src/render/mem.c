/* The `pmuscope mem` report rendered as text, JSON and CSV: shared by
 * `pmuscope mem` (a live run) and `pmuscope report` (a recorded file), so
 * both print the same structure.  JSON schema: docs/mem.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/csv.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/render.h"
#include "fields.h"
#include "render_int.h"
#include "util/error.h"
#include "util/opts.h"

static void hex(char *buf, size_t n, uint64_t v)
{
	snprintf(buf, n, "0x%" PRIx64, v);
}


/* What would have resolved the unresolved samples, one clause per reason
 * that has any; "" when all resolved. */
static void unresolved_hint(const struct pms_render_mem_opts *m, const struct pms_memreport *r, char *buf,
			    size_t size)
{
	size_t k = 0;
	buf[0] = '\0';
#define ADD(...)                                                                              \
	do {                                                                                  \
		if (k < size)                                                                 \
			k += (size_t)snprintf(buf + k, size - k, "%s", k ? "; " : "");        \
		if (k < size)                                                                 \
			k += (size_t)snprintf(buf + k, size - k, __VA_ARGS__);                 \
	} while (0)
	if (r->st_gone) {
		if (m->hold < 0)
			ADD("%" PRIu64 " process gone: holding the command's processes at exit "
			    "would have (it was off: --no-hold, or ptrace refused)", r->st_gone);
		else if (m->hold > 0)
			ADD("%" PRIu64 " process gone: they ended outside the held tree (a "
			    "process that left it, or a daemon it started)", r->st_gone);
		else
			ADD("%" PRIu64 " process gone: the process ended before it was asked "
			    "about; --phys (privileged) gives addresses that outlive it, or "
			    "start it under pmuscope mem -- COMMAND (held at exit)", r->st_gone);
	}
	if (r->st_efault || r->st_enoent)
		ADD("%" PRIu64 " not mapped / %" PRIu64 " not present after up to %d asks: "
		    "the page was unmapped, or never faulted in, by then (memory the "
		    "program freed); --phys (privileged) takes the node when sampled",
		    r->st_efault, r->st_enoent, PMS_MEMPROF_RESOLVE_TRIES);
	if (r->st_exec_replaced)
		ADD("%" PRIu64 " exec replaced: taken in an address space that an exec of "
		    "their process replaced before they were asked about (the new image's "
		    "pages say nothing of them); --phys (privileged) takes the node when "
		    "sampled", r->st_exec_replaced);
	if (r->st_hold_budget)
		ADD("%" PRIu64 " released at the hold budget: their process was let go "
		    "unasked, after waiting %g ms for others that exited with it; a larger "
		    "--hold-budget asks about them", r->st_hold_budget, m->hold_budget_ms);
	if (r->st_not_asked)
		ADD("%" PRIu64 " not asked: %s", r->st_not_asked,
		    m->oracle ? "samples without a process id, or no live process to ask"
			      : "a recorded file has nodes only from physical addresses "
				"(record with --phys, privileged)");
	if (r->st_other)
		ADD("%" PRIu64 " other status (see sample_list node_status)", r->st_other);
#undef ADD
}

static bool empty(const struct pms_render_mem_opts *m, const struct pms_memreport *r, char *buf,
		      size_t size)
{
	if (!r->samples) {
		const char *what = r->engine == PMS_ENG_SOFTWARE
					   ? "the software engine samples page faults, and the target "
					     "made none while watched (it touched no new memory: a "
					     "sleeping process, or memory it had already touched)"
					   : "the target ran no sampled memory operation while watched "
					     "(it slept, or ran too briefly for the sample period)";
		snprintf(buf, size,
			 "no samples: %s; try a busier target, a longer --duration, or a smaller "
			 "--period/-c (or -F)%s",
			 what, m->system_wide ? "" : ", or -a (system-wide)");
		return true;
	}
	/* a file without physical addresses: the report says why already */
	if (r->with_addr && !r->resolved && !m->nodes_why) {
		char hint[700];
		unresolved_hint(m, r, hint, sizeof(hint));
		snprintf(buf, size, "no sampled address resolved to a node: %s",
			 hint[0] ? hint : "no address was asked about");
		return true;
	}
	return false;
}

static void json_task(struct pms_json *j, const struct pms_memreport_task *t, bool thread)
{
	pms_json_begin_object(j, NULL);
	pms_json_uint(j, "pid", t->pid);
	if (thread)
		pms_json_uint(j, "tid", t->tid);
	pms_json_str(j, "command", t->comm);
	pms_json_uint(j, "samples", t->samples);
	pms_json_uint(j, "with_addr", t->with_addr);
	pms_json_uint(j, "resolved", t->resolved);
	pms_json_uint(j, "unresolved", t->unresolved);
	pms_json_uint(j, "local", t->local);
	pms_json_uint(j, "remote", t->remote);
	if (t->local + t->remote)
		pms_json_double(j, "remote_share", (double)t->remote / (double)(t->local + t->remote));
	else
		pms_json_null(j, "remote_share");
	if (t->home_node >= 0) {
		pms_json_int(j, "home_node", t->home_node);
		pms_json_uint(j, "on_home_node", t->on_home_node);
	} else {
		pms_json_null(j, "home_node");
		pms_json_uint(j, "on_home_node", 0);
	}
	pms_json_uint(j, "latency_samples", t->weighted);
	pms_json_uint(j, "latency_total", t->latency);
	if (t->weighted)
		pms_json_double(j, "latency_mean", (double)t->latency / (double)t->weighted);
	else
		pms_json_null(j, "latency_mean");
	pms_json_begin_array(j, "levels");
	for (size_t i = 0; i < t->nlevels; i++) {
		pms_json_begin_object(j, NULL);
		pms_json_str(j, "level", t->levels[i].name);
		pms_json_uint(j, "samples", t->levels[i].samples);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
	pms_json_end_object(j);
}

static void json_site(struct pms_json *j, const struct pms_memreport_site *s, bool object)
{
	pms_json_begin_object(j, NULL);
	pms_json_hex(j, object ? "start" : "addr", !s->addr_hidden && (object ? s->size != 0 : true),
		 s->addr);
	if (object)
		pms_json_uint(j, "size", s->size);
	pms_json_str(j, "name", s->name);
	pms_json_str(j, object ? "kind" : "file", object ? s->kind : s->file);
	if (object) {
		if (s->section)
			pms_json_str(j, "section", s->section);
		else
			pms_json_null(j, "section");
		pms_json_bool(j, "resident_read", s->resident_read);
		if (s->resident_read) {
			pms_json_uint(j, "pages_absent", s->pages_absent);
			pms_json_uint(j, "pages_not_present", s->pages_not_present);
			pms_json_uint(j, "pages_efault", s->pages_efault);
			pms_json_uint(j, "pages_unknown", s->pages_unknown);
		} else {
			pms_json_null(j, "pages_absent");
		}
		pms_json_begin_array(j, "nodes");
		for (size_t i = 0; i < s->nnodes; i++) {
			pms_json_begin_object(j, NULL);
			pms_json_int(j, "node", s->nodes[i].node);
			if (s->resident_read)
				pms_json_uint(j, "pages", s->nodes[i].pages);
			else
				pms_json_null(j, "pages");
			pms_json_uint(j, "samples", s->nodes[i].samples);
			pms_json_end_object(j);
		}
		pms_json_end_array(j);
	}
	if (!object) {
		if (s->line)
			pms_json_int(j, "line", s->line);
		else
			pms_json_null(j, "line");
	}
	PMS_JSON_FIELDS(j, JS("module", s->module), JB("kernel", s->kernel),
			JU("samples", s->samples), JU("latency_total", s->latency),
			JU("latency_samples", s->weighted), JU("resolved", s->resolved),
			JU("remote", s->remote),
			JDQ("remote_share", s->resolved, (double)s->remote / (double)s->resolved),
			JU("on_home", s->on_home));
	if (!object) {
		if (s->pid) {
			pms_json_uint(j, "pid", s->pid);
			pms_json_str(j, "command", s->comm ? s->comm : "");
		} else {
			pms_json_null(j, "pid");
			pms_json_null(j, "command");
		}
	}
	pms_json_end_object(j);
}

static void json_sites(struct pms_json *j, const char *key, const struct pms_memreport_site *v,
		       size_t n, bool object)
{
	pms_json_begin_array(j, key);
	for (size_t i = 0; i < n; i++)
		json_site(j, &v[i], object);
	pms_json_end_array(j);
}

static const char *status_name(int node)
{
	if (node >= 0)
		return "ok";
	if (node == PMS_NODE_UNKNOWN)
		return "not_asked";
	if (node == PMS_NODE_HOLD_BUDGET)
		return "hold_budget";
	if (node == PMS_NODE_EXEC_REPLACED)
		return "exec_replaced";
	if (node == -EFAULT)
		return "EFAULT";
	if (node == -ENOENT)
		return "ENOENT";
	const char *n = strerrorname_np(-node);
	return n ? n : "error";
}

/* Loss above this share of samples+lost is warned about (text and JSON). */
#define LOSS_WARN_RATIO 0.02

/* lost / (samples + lost), and the warning to give when it is high (NULL
 * when it is not): what was lost and what to do. */
static double loss_ratio(const struct pms_render_mem_opts *m, const struct pms_memreport *r, char *warn,
			 size_t size)
{
	uint64_t lost = r->stats.lost_total; /* once, as perf (memsrc.h) */
	double ratio = r->samples + lost ? (double)lost / (double)(r->samples + lost) : 0.0;
	warn[0] = '\0';
	if (ratio > LOSS_WARN_RATIO)
		snprintf(warn, size,
			 "lost %.1f%% of the samples (%" PRIu64 " lost, %" PRIu64 " kept): the "
			 "kernel dropped them while the ring buffer was full, so the profile "
			 "under-counts the busiest moments; %s",
			 100.0 * ratio, lost, r->samples,
			 m->adapt_on && m->nadapt
				 ? "--adapt raised the period (below) but not soon enough; start "
				   "with a larger --period"
			 : m->adapt_on ? "--adapt could not help (see the notes); sample less often "
					 "(a larger --period) or watch fewer threads or CPUs"
			 : !strcmp(m->command, "mem")
				 ? "sample less often (a larger --period), let pmuscope adapt "
				   "(--adapt), or watch fewer threads or CPUs"
				 : "sample less often (a larger --period) or watch fewer threads or "
				   "CPUs");
	return ratio;
}

double pms_render_mem_loss(const struct pms_render_mem_opts *opts, const struct pms_memreport *r,
			   char *warn, size_t size)
{
	struct pms_render_mem_opts m;
	if (pms_render_mem_take("pms_render_mem_loss", opts, &m) < 0 || !r || !warn || !size)
		return 0.0;
	return loss_ratio(&m, r, warn, size);
}

static void json_unhonoured(struct pms_json *j, const void *ctx, size_t i)
{
	const struct pms_render_mem_opts *m = ctx;
	PMS_JSON_FIELDS(j, JS("option", m->unhonoured[i].option), JS("why", m->unhonoured[i].why));
}

static void json_attempt(struct pms_json *j, const void *ctx, size_t i)
{
	const struct pms_sampler_attempt *a = &((const struct pms_sampler_attempt *)ctx)[i];
	PMS_JSON_FIELDS(j, JS("engine", pms_engine_name(a->engine)), JS("pmu", a->pmu),
			JS("attr", a->attr), JI("errno", a->err),
			JS("error", a->err ? strerrorname_np(a->err) : NULL),
			JB("chosen", a->chosen), JS("reason", a->reason));
}

/* Engine and the ladder's attempts. */
static void json_engine(struct pms_json *j, const struct pms_render_mem_opts *m,
			const struct pms_memreport *r)
{
	pms_json_begin_object(j, "engine");
	PMS_JSON_FIELDS(j, JS("name", pms_engine_name(r->engine)), JS("label", r->label),
			JS("pmus", r->pmus), JS("notes", r->notes),
			JB("data_src", r->data_src_available), JB("phys", r->phys),
			JX("sample_type", true, m->sample_type));
	pms_json_rows(j, "not_honoured", m->nunhonoured, json_unhonoured, m);
	pms_json_end_object(j);
	pms_json_rows(j, "attempts", r->nattempts, json_attempt, r->attempts);
}

/* A list of counts by name (sources, levels, ops), for pms_json_rows. */
struct counts_ctx {
	const struct pms_memreport_count *v;
	const char *name; /* the key of each count's name */
};

static void json_count(struct pms_json *j, const void *ctx, size_t i)
{
	const struct counts_ctx *c = ctx;
	PMS_JSON_FIELDS(j, JS(c->name, c->v[i].name), JU("samples", c->v[i].samples));
}

static void json_counts(struct pms_json *j, const char *key, const char *name,
			const struct pms_memreport_count *v, size_t n)
{
	struct counts_ctx c = { v, name };
	pms_json_rows(j, key, n, json_count, &c);
}

/* Sample counts, losses, adaptations; the hosts of a merged report. */
static void json_samples(struct pms_json *j, const struct pms_render_mem_opts *m,
			 const struct pms_memreport *r)
{
	pms_json_begin_object(j, "samples");
	const struct pms_memsrc_stats *st = &r->stats;
	PMS_JSON_FIELDS(j, JU("total", r->samples), JU("with_addr", r->with_addr),
			JU("with_data_src", r->with_data_src), JU("dropped", st->samples_dropped),
			JU("excluded_self", st->samples_excluded), JU("lost", st->lost),
			JU("lost_records", st->lost_records), JU("lost_samples", st->lost_samples),
			JU("throttle", st->throttle), JU("unthrottle", st->unthrottle));
	{
		char warn[400];
		pms_json_double(j, "loss_ratio", loss_ratio(m, r, warn, sizeof(warn)));
		pms_json_str(j, "loss_warning", warn[0] ? warn : NULL);
	}
	/* the tables count samples; events: the sum of their periods */
	pms_json_str(j, "tables_count", "samples");
	if (m->events && !m->adapt_on && !m->nadapt)
		pms_json_uint(j, "events", m->events);
	if (m->period_min && m->period_max > m->period_min) { /* mixed periods */
		pms_json_uint(j, "period_min", m->period_min);
		pms_json_uint(j, "period_max", m->period_max);
	}
	if (m->adapt_on || m->nadapt) {
		pms_json_bool(j, "adapt", m->adapt_on);
		if (m->events)
			pms_json_uint(j, "events", m->events);
		pms_json_uint(j, "adapt_duplicates", m->adapt_dups);
		pms_json_begin_array(j, "adaptations");
		for (size_t i = 0; i < m->nadapt; i++) {
			const struct pms_sampler_adaptation *a = &m->adapt[i];
			pms_json_begin_object(j, NULL);
			PMS_JSON_FIELDS(
				j, JD("at_s", (double)a->at_ns / 1e9),
				JS("what", a->freq ? "frequency" : "period"), JU("old", a->old_period),
				JU("new", a->new_period), JU("old_ring_pages", a->old_pages),
				JU("new_ring_pages", a->new_pages), JU("kept_records", a->kept),
				JU("lost_records", a->lost), JU("fill_pct", a->fill_pct),
				JU("rate_pct", a->rate_pct), JU("old_samples", a->old_samples),
				JU("old_events", a->old_samples * a->old_period),
				JU("old_streams", a->old_streams), JU("new_streams", a->new_streams),
				JU("tasks", a->tasks), JD("gap_us", (double)a->gap_ns / 1e3));
			pms_json_end_object(j);
		}
		pms_json_end_array(j);
	}
	PMS_JSON_FIELDS(j, JU("parse_errors", st->parse_errors),
			JU("corrupt_bytes", st->corrupt_bytes), JU("aux_truncated", st->aux_truncated),
			JU("aux_decode_errors", st->aux_decode_errors),
			JU("aux_partial", st->aux_partial), JU("aux_cut_records", st->aux_cut_records));
	pms_json_end_object(j);
	/* the hosts of a merged report (`report -i A -i B`), else empty */
	json_counts(j, "sources", "host", r->sources, r->nsources);
}

/* Data-source levels, operations and latency. */
static void json_levels(struct pms_json *j, const struct pms_render_mem_opts *m,
			const struct pms_memreport *r)
{
	pms_json_begin_object(j, "data_source");
	pms_json_bool(j, "available", r->data_src_available);
	pms_json_str(j, "note", r->data_src_note);
	/* the levels count every sample ("N/A": none), so they add up to this */
	pms_json_uint(j, "levels_total", r->samples);
	json_counts(j, "levels", "level", r->levels, r->nlevels);
	json_counts(j, "ops", "op", r->ops, r->nops);
	pms_json_end_object(j);

	pms_json_begin_object(j, "latency");
	const bool lat = r->latency.n != 0;
	PMS_JSON_FIELDS(j, JU("samples", r->latency.n), JUQ("min", lat, r->latency.min),
			JUQ("median", lat, r->latency.median), JUQ("p90", lat, r->latency.p90),
			JUQ("p99", lat, r->latency.p99), JUQ("max", lat, r->latency.max),
			JDQ("mean", lat, r->latency.mean));
	pms_json_end_object(j);
}

/* Nodes: resolution, exit holds, oracle, verify, the matrix. */
static void json_numa(struct pms_json *j, const struct pms_render_mem_opts *m,
		      const struct pms_memreport *r)
{
	pms_json_begin_object(j, "numa");
	PMS_JSON_FIELDS(j, JIQ("home_node", r->home_node >= 0, r->home_node),
			JU("resolved", r->resolved), JU("on_home", r->on_home),
			JU("elsewhere", r->elsewhere), JU("from_phys", r->from_phys),
			JU("unresolved", r->unresolved), JU("efault", r->st_efault),
			JU("enoent", r->st_enoent), JU("other_status", r->st_other),
			JU("not_asked", r->st_not_asked), JU("process_gone", r->st_gone),
			JU("no_addr", r->no_addr), JU("retried_samples", r->retried_samples),
			JU("retries", r->retries), JU("resolved_on_retry", r->retry_resolved),
			JU("resolved_held", r->resolved_held),
			JU("exec_replaced", r->st_exec_replaced),
			JU("hold_budget", r->st_hold_budget));
	pms_json_str(j, "exit_hold", m->hold > 0 ? "held" : m->hold < 0 ? "off" : NULL);
	if (m->hold > 0) {
		const struct pms_liverun_holds *h = &m->holds;
		pms_json_begin_object(j, "exit_holds");
		PMS_JSON_FIELDS(j, JU("processes", h->processes), JU("threads", h->threads),
				JU("batches", h->batches),
				JD("total_ms", (double)h->total_ns / 1e6),
				JD("longest_ms", (double)h->longest_ns / 1e6),
				JU("released_at_budget", h->budget_released),
				JDQ("budget_ms", m->hold_budget_ms >= 0, m->hold_budget_ms));
		pms_json_end_object(j);
	} else {
		pms_json_null(j, "exit_holds");
	}
	{
		char hint[900];
		unresolved_hint(m, r, hint, sizeof(hint));
		pms_json_str(j, "unresolved_hint", hint[0] ? hint : NULL);
	}
	pms_json_begin_object(j, "oracle");
	PMS_JSON_FIELDS(j, JU("lookups", r->numa.lookups), JU("cache_hits", r->numa.cache_hits),
			JU("pages_queried", r->numa.pages_queried),
			JU("move_pages_calls", r->numa.move_pages_calls),
			JU("call_errors", r->numa.call_errors),
			JU("invalidations", r->numa.invalidations));
	pms_json_end_object(j);
	if (m->nodes_why)
		pms_json_str(j, "nodes_unavailable", m->nodes_why);
	else
		pms_json_null(j, "nodes_unavailable");
	pms_json_begin_object(j, "verify");
	if (m->json_verify) {
		m->json_verify(j, m->ud);
	} else {
		PMS_JSON_FIELDS(j, JB("requested", false), JS("how", NULL), JS("checked", NULL),
				JS("disagree", NULL), JS("errors", NULL));
	}
	pms_json_end_object(j);
	pms_json_begin_array(j, "nodes");
	for (size_t i = 0; i < r->nnodes; i++)
		pms_json_int(j, NULL, r->node_ids[i]);
	pms_json_end_array(j);
	pms_json_begin_array(j, "matrix");
	for (size_t a = 0; a < r->nnodes; a++) {
		pms_json_begin_array(j, NULL);
		for (size_t c = 0; c < r->nnodes; c++)
			pms_json_uint(j, NULL, r->matrix[a * r->nnodes + c]);
		pms_json_end_array(j);
	}
	pms_json_end_array(j);
	pms_json_uint(j, "matrix_outside", r->matrix_cpu_unknown);
	pms_json_end_object(j);
}

/* Every sample (--samples). */
static void json_sample_list(struct pms_json *j, const struct pms_render_mem_opts *m,
			     const struct pms_memreport *r)
{
	if (m->samples) {
		pms_json_begin_array(j, "sample_list");
		for (size_t i = 0; i < r->nall; i++) {
			const struct pms_memreport_sample *x = &r->all[i];
			const struct pms_memsample *s = &x->s;
			pms_json_begin_object(j, NULL);
			if (s->valid & PMS_MS_TIME)
				pms_json_uint(j, "time", s->time);
			else
				pms_json_null(j, "time");
			if (s->valid & PMS_MS_TID) {
				pms_json_uint(j, "pid", s->pid);
				pms_json_uint(j, "tid", s->tid);
			} else {
				pms_json_null(j, "pid");
				pms_json_null(j, "tid");
			}
			if (s->valid & PMS_MS_CPU)
				pms_json_uint(j, "cpu", s->cpu);
			else
				pms_json_null(j, "cpu");
			if (x->cpu_node >= 0)
				pms_json_int(j, "cpu_node", x->cpu_node);
			else
				pms_json_null(j, "cpu_node");
			pms_json_hex(j, "ip", (s->valid & PMS_MS_IP) && s->ip, s->ip);
			pms_json_hex(j, "addr", (s->valid & PMS_MS_ADDR) != 0, s->addr);
			pms_json_hex(j, "phys_addr", (s->valid & PMS_MS_PHYS) != 0, s->phys_addr);
			if (x->mem_node >= 0)
				pms_json_int(j, "mem_node", x->mem_node);
			else
				pms_json_null(j, "mem_node");
			pms_json_str(j, "node_status", status_name(x->mem_node));
			if (s->valid & PMS_MS_DATA_SRC) {
				char t[128];
				pms_json_hex(j, "data_src", true, s->data_src);
				pms_datasrc_format_mem(s->data_src, t, sizeof(t));
				pms_json_str(j, "level", t);
			} else {
				pms_json_null(j, "data_src");
				pms_json_null(j, "level");
			}
			if (s->valid & PMS_MS_WEIGHT)
				pms_json_uint(j, "weight", s->weight);
			else
				pms_json_null(j, "weight");
			pms_json_end_object(j);
		}
		pms_json_end_array(j);
	}
}

int pms_render_mem_json(const struct pms_render_mem_opts *opts, const struct pms_memreport *r)
{
	struct pms_render_mem_opts m0;
	const struct pms_render_mem_opts *m = &m0;
	struct pms_json j;
	int rc = pms_render_mem_take("pms_render_mem_json", opts, &m0);
	if (rc < 0)
		return rc;
	if (!m->out || !r)
		return pms_err(PMS_EINVAL, "render: mem json: NULL argument");
	pms_json_init(&j, m->out);
	j.meta = m->meta;
	pms_json_begin_object(&j, NULL);
	pms_json_int(&j, "schema_version", 1);
	if (m->json_run)
		m->json_run(&j, m->ud);
	json_engine(&j, m, r);

	json_samples(&j, m, r);

	json_levels(&j, m, r);

	json_numa(&j, m, r);
	pms_json_bool(&j, "kernel_addresses_visible", r->kernel_visible);
	{
		char why[900];
		if (empty(m, r, why, sizeof(why)))
			pms_json_str(&j, "empty", why);
		else
			pms_json_null(&j, "empty");
	}
	pms_json_begin_array(&j, "processes");
	for (size_t i = 0; i < r->nprocs; i++)
		json_task(&j, &r->procs[i], false);
	pms_json_end_array(&j);
	pms_json_begin_array(&j, "threads");
	for (size_t i = 0; i < r->nthreads; i++)
		json_task(&j, &r->threads[i], true);
	pms_json_end_array(&j);

	pms_json_begin_object(&j, "top");
	json_sites(&j, "instructions_by_samples", r->top_ips_samples, r->ntop_ips_samples, false);
	json_sites(&j, "instructions_by_latency", r->top_ips_latency, r->ntop_ips_latency, false);
	json_sites(&j, "functions_by_samples", r->top_funcs_samples, r->ntop_funcs_samples, false);
	json_sites(&j, "functions_by_latency", r->top_funcs_latency, r->ntop_funcs_latency, false);
	json_sites(&j, "data_objects", r->top_objects, r->ntop_objects, true);
	pms_json_end_object(&j);

	json_sample_list(&j, m, r);
	if (m->paths)
		pms_render_callpath_json(&j, m->paths);
	if (m->alloc)
		pms_render_alloc_json(&j, m->alloc);
	if (m->types && pms_render_types_json_section(&j, "types", m->types) < 0)
		pms_json_null(&j, "types"); /* the profile could not be built */
	pms_json_end_object(&j);
	return pms_json_finish(&j);
}

void pms_render_mem_csv_header(FILE *out)
{
	fprintf(out, "%s\n", PMS_RENDER_MEM_CSV_COLUMNS);
}

void pms_render_mem_csv_row(FILE *out, const struct pms_memreport_sample *x,
			    const struct pms_memreport_site *o)
{
	pms_render_mem_csv_fields(out, x, o);
	fprintf(out, "\n");
}

void pms_render_mem_csv_fields(FILE *out, const struct pms_memreport_sample *x,
			       const struct pms_memreport_site *o)
{
	const struct pms_memsample *s = &x->s;
	char lvl[128] = "";
	if (s->valid & PMS_MS_DATA_SRC)
		pms_datasrc_format_mem(s->data_src, lvl, sizeof(lvl));
	if (s->valid & PMS_MS_TIME)
		fprintf(out, "%" PRIu64, s->time);
	fprintf(out, ",");
	if (s->valid & PMS_MS_TID)
		fprintf(out, "%u,%u", s->pid, s->tid);
	else
		fprintf(out, ",");
	fprintf(out, ",");
	if (s->valid & PMS_MS_CPU)
		fprintf(out, "%u", s->cpu);
	fprintf(out, ",");
	if (x->cpu_node >= 0)
		fprintf(out, "%d", x->cpu_node);
	fprintf(out, ",");
	if ((s->valid & PMS_MS_IP) && s->ip)
		fprintf(out, "0x%" PRIx64, s->ip);
	fprintf(out, ",");
	if (s->valid & PMS_MS_ADDR)
		fprintf(out, "0x%" PRIx64, s->addr);
	fprintf(out, ",");
	if (s->valid & PMS_MS_PHYS)
		fprintf(out, "0x%" PRIx64, s->phys_addr);
	fprintf(out, ",");
	if (x->mem_node >= 0)
		fprintf(out, "%d", x->mem_node);
	fprintf(out, ",%s,", status_name(x->mem_node));
	if (s->valid & PMS_MS_DATA_SRC)
		fprintf(out, "0x%" PRIx64, s->data_src);
	fprintf(out, ",\"%s\",", lvl);
	if (s->valid & PMS_MS_WEIGHT)
		fprintf(out, "%" PRIu64, s->weight);
	fprintf(out, ",");
	if (o) {
		pms_csv_quoted(out, o->name);
		fprintf(out, ",%s,%s", o->kind ? o->kind : "", o->section ? o->section : "");
	} else {
		fprintf(out, ",,");
	}
}

void pms_render_mem_csv(FILE *out, const struct pms_memreport *r)
{
	pms_render_mem_csv_header(out);
	for (size_t i = 0; i < r->nall; i++)
		pms_render_mem_csv_row(out, &r->all[i], r->all[i].object >= 0 &&
							(size_t)r->all[i].object < r->nobjects
						? &r->objects[r->all[i].object]
						: NULL);
}


static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void text_sites(FILE *out, const char *title, const struct pms_memreport_site *v, size_t n,
		       uint64_t total)
{
	fprintf(out, "\n%s (%% of all %" PRIu64 " samples):\n", title, total);
	if (!n) {
		fprintf(out, "  (none)\n");
		return;
	}
	fprintf(out, "  %8s %6s %12s %7s  %-18s %s\n", "samples", "%", "latency", "remote", "address",
	       "where");
	for (size_t i = 0; i < n; i++) {
		const struct pms_memreport_site *s = &v[i];
		char addr[32] = "-", lat[32] = "-", rem[16] = "-";
		if (!s->addr_hidden && s->addr)
			hex(addr, sizeof(addr), s->addr);
		if (s->weighted)
			snprintf(lat, sizeof(lat), "%" PRIu64, s->latency);
		if (s->resolved)
			snprintf(rem, sizeof(rem), "%.0f%%", pct(s->remote, s->resolved));
		fprintf(out, "  %8" PRIu64 " %5.1f%% %12s %7s  %-18s ", s->samples, pct(s->samples, total),
		       lat, rem, addr);
		if (s->pid)
			fprintf(out, "%u/%s  ", s->pid, s->comm && *s->comm ? s->comm : "?");
		if (!strcmp(s->name, "[unknown]") && s->module && *s->module)
			fprintf(out, "[unknown] (%s)", s->module); /* perf's way: the binary it is in */
		else
			fprintf(out, "%s", s->name);
		if (s->file && s->line)
			fprintf(out, "  %s:%d", s->file, s->line);
		else if (s->file)
			fprintf(out, "  %s", s->file);
		else if (s->module && *s->module && strcmp(s->module, s->name) &&
			 strcmp(s->name, "[unknown]"))
			fprintf(out, "  (%s)", s->module);
		fprintf(out, "\n");
	}
}

/* numatop's process view: samples, latency, home node and remote share. */
static void text_tasks(FILE *out, const char *title, const struct pms_memreport_task *v, size_t n,
		       bool thread)
{
	fprintf(out, "\n%s (%% = of its samples; remote = of its resolved samples with a CPU node):\n",
	       title);
	if (!n) {
		fprintf(out, "  (none)\n");
		return;
	}
	fprintf(out, "  %7s %7s %-16s %8s %9s %6s %7s %10s  %s\n", "pid", thread ? "tid" : "", "command",
	       "samples", "resolved", "home", "remote", "lat mean", "top level");
	for (size_t i = 0; i < n; i++) {
		const struct pms_memreport_task *t = &v[i];
		char tid[16] = "", home[24] = "-", rem[16] = "-", lat[24] = "-", lvl[160] = "-";
		if (thread)
			snprintf(tid, sizeof(tid), "%u", t->tid);
		if (t->home_node >= 0)
			snprintf(home, sizeof(home), "%d", t->home_node);
		if (t->local + t->remote)
			snprintf(rem, sizeof(rem), "%.1f%%", pct(t->remote, t->local + t->remote));
		if (t->weighted)
			snprintf(lat, sizeof(lat), "%.0f", (double)t->latency / (double)t->weighted);
		if (t->nlevels)
			snprintf(lvl, sizeof(lvl), "%s %.0f%%", t->levels[0].name,
				 pct(t->levels[0].samples, t->samples));
		char res[24];
		snprintf(res, sizeof(res), "%.1f%%", pct(t->resolved, t->with_addr));
		fprintf(out, "  %7u %7s %-16s %8" PRIu64 " %9s %6s %7s %10s  %s\n", t->pid, tid,
		       *t->comm ? t->comm : "?", t->samples, t->with_addr ? res : "-", home, rem, lat,
		       lvl);
	}
}

/* 12345 -> "12345 B", "12.1 KiB", "36.0 MiB" */
static void human(char *buf, size_t n, uint64_t v)
{
	if (v < 1024)
		snprintf(buf, n, "%" PRIu64 " B", v);
	else if (v < (1ULL << 20))
		snprintf(buf, n, "%.1f KiB", (double)v / 1024.0);
	else if (v < (1ULL << 30))
		snprintf(buf, n, "%.1f MiB", (double)v / (1024.0 * 1024.0));
	else
		snprintf(buf, n, "%.1f GiB", (double)v / (1024.0 * 1024.0 * 1024.0));
}

/* "0:9216p/1024s 1:12p/-": per node, its pages now (residency) and its
 * samples' data there. */
static void objnodes(char *buf, size_t n, const struct pms_memreport_site *s)
{
	size_t k = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < s->nnodes && k + 1 < n; i++) {
		const struct pms_memreport_objnode *x = &s->nodes[i];
		char pg[24] = "-", sm[24] = "-";
		if (s->resident_read)
			snprintf(pg, sizeof(pg), "%" PRIu64 "p", x->pages);
		if (x->samples)
			snprintf(sm, sizeof(sm), "%" PRIu64 "s", x->samples);
		int w = snprintf(buf + k, n - k, "%s%d:%s/%s", i ? " " : "", x->node, pg, sm);
		if (w < 0)
			break;
		k += (size_t)w;
	}
	/* absent pages by the query's status: -ENOENT, -EFAULT, no answer
	 * (include/pmuscope/report.h) */
	const struct { const char *what; uint64_t v; } why[] = {
		{ "absent", s->pages_not_present }, { "efault", s->pages_efault },
		{ "unknown", s->pages_unknown },
	};
	for (size_t i = 0; s->resident_read && i < 3 && k + 1 < n; i++) {
		int w = why[i].v ? snprintf(buf + k, n - k, "%s%s:%" PRIu64 "p", k ? " " : "",
					    why[i].what, why[i].v) : 0;
		if (w < 0)
			break;
		k += (size_t)w;
	}
	if (!buf[0])
		snprintf(buf, n, "-");
}

/* The data objects: how each was named (kind), where it is, its size. */
static void text_objects(const struct pms_render_mem_opts *m, const struct pms_memreport *r)
{
	FILE *out = m->out;
	fprintf(out, "\ntop data objects (%% of the %" PRIu64 " samples with an address; remote = share "
	       "of its resolved samples on another node than the CPU's):\n",
	       r->with_addr);
	if (!r->ntop_objects) {
		fprintf(out, "  (none)\n");
		return;
	}
	bool res = false;
	for (size_t i = 0; i < r->ntop_objects; i++)
		res |= r->top_objects[i].resident_read;
	fprintf(out, "  nodes = node:pages there now (residency)/samples whose data was there; %s\n",
	       res ? "residency read while the process was held at its exit"
	       : strcmp(m->command, "mem") ? "residency not recorded in a file (pages: -)"
					   : "residency not read (pages: -): read only while a "
					     "started command's process is held at its exit");
	fprintf(out, "  %8s %6s %7s %-8s %-18s %10s  %-24s %s\n", "samples", "%", "remote", "kind",
	       "start", "size", "nodes", "object");
	for (size_t i = 0; i < r->ntop_objects; i++) {
		const struct pms_memreport_site *s = &r->top_objects[i];
		char addr[32] = "-", size[32] = "-", rem[16] = "-";
		if (!s->addr_hidden && s->size)
			hex(addr, sizeof(addr), s->addr);
		if (s->size && s->size != UINT64_MAX)
			human(size, sizeof(size), s->size);
		if (s->resolved)
			snprintf(rem, sizeof(rem), "%.0f%%", pct(s->remote, s->resolved));
		char nodes[160];
		objnodes(nodes, sizeof(nodes), s);
		fprintf(out, "  %8" PRIu64 " %5.1f%% %7s %-8s %-18s %10s  %-24s %s", s->samples,
		       pct(s->samples, r->with_addr), rem, s->kind, addr, size, nodes, s->name);
		if (!strcmp(s->kind, "global")) {
			const char *b = s->module ? strrchr(s->module, '/') : NULL;
			fprintf(out, "  (%s%s%s)", b ? b + 1 : s->module ? s->module : "?",
			       s->section ? " " : "", s->section ? s->section : "");
		}
		if (s->resolved && r->home_node >= 0)
			fprintf(out, "  (%.0f%% on home node)", pct(s->on_home, s->resolved));
		fprintf(out, "\n");
	}
}

/* A live run's engine in a few words (issue 30: the ladder only with -v):
 * the engine, its PMU, and why not a better one. */
static void engine_short(FILE *out, const struct pms_memreport *r)
{
	size_t refused = 0, enoent = 0, perm = 0;
	int other = 0;
	for (size_t i = 0; i < r->nattempts; i++) {
		const struct pms_sampler_attempt *a = &r->attempts[i];
		if (a->chosen || !a->err || a->engine == r->engine)
			continue;
		refused++;
		if (a->err == ENOENT || a->err == ENODEV || a->err == EOPNOTSUPP)
			enoent++;
		else if (a->err == EACCES || a->err == EPERM)
			perm++;
		else if (!other)
			other = a->err;
	}
	char why[96] = "";
	if (refused == enoent && refused)
		snprintf(why, sizeof(why), "no precise PMU here");
	else if (perm)
		snprintf(why, sizeof(why), "precise engine not permitted");
	else if (refused)
		snprintf(why, sizeof(why), "precise engine refused: %s",
			 other ? strerrorname_np(other) : "?");
	const char *en = pms_engine_name(r->engine);
	if (r->engine == PMS_ENG_SOFTWARE)
		fprintf(out, "engine: software page faults (%s%s-v: the attempts)\n", why,
		       *why ? "; " : "");
	else if (*why)
		fprintf(out, "engine: %s [%s] (%s; -v: the attempts)\n", en, r->pmus ? r->pmus : "", why);
	else
		fprintf(out, "engine: %s [%s]\n", en, r->pmus ? r->pmus : "");
}

/* The sample counts, losses, adaptations and what the samples stand for. */
static void text_samples(const struct pms_render_mem_opts *m, const struct pms_memreport *r)
{
	FILE *out = m->out;
	fprintf(out, "samples: %" PRIu64 " (%" PRIu64 " with a data address); lost %" PRIu64
	       " in %" PRIu64 " records, lost samples %" PRIu64 ", throttled %" PRIu64
	       ", dropped %" PRIu64 "\n",
	       r->samples, r->with_addr, r->stats.lost, r->stats.lost_records, r->stats.lost_samples,
	       r->stats.throttle, r->stats.samples_dropped);
	if (r->stats.samples_excluded)
		fprintf(out, "  (%" PRIu64 " samples of pmuscope itself left out: the observer's own work"
		       " is not part of a system-wide profile)\n",
		       r->stats.samples_excluded);
	{
		char warn[400];
		loss_ratio(m, r, warn, sizeof(warn));
		if (warn[0])
			fprintf(out, "  WARNING: %s\n", warn);
	}
	for (size_t i = 0; i < m->nadapt; i++) {
		const struct pms_sampler_adaptation *a = &m->adapt[i];
		fprintf(out, "  adapted at %.2f s: %s %" PRIu64 " -> %" PRIu64 ", ring %zu -> %zu pages, "
		       "%zu -> %zu streams%s; why: %" PRIu64 " of %" PRIu64 " records lost since the "
		       "last change, a ring %u%% full, %u%% of a ring written between two polls; "
		       "%" PRIu64 " samples at the old %s; %.0f us unsampled while switching\n",
		       (double)a->at_ns / 1e9, a->freq ? "frequency" : "period", a->old_period,
		       a->new_period, a->old_pages, a->new_pages, a->old_streams, a->new_streams,
		       a->tasks ? " on the target's tasks" : "", a->lost, a->kept + a->lost,
		       a->fill_pct, a->rate_pct, a->old_samples, a->freq ? "frequency" : "period",
		       (double)a->gap_ns / 1e3);
	}
	if (m->nadapt) {
		/* The tables count samples (perf report weights each by its
		 * period): say how much that tilts them toward the samples
		 * taken before the first change. */
		const struct pms_sampler_adaptation *a0 = &m->adapt[0];
		uint64_t ev0 = a0->old_samples * a0->old_period;
		fprintf(out, "  the samples stand for %" PRIu64 " events (the sum of their periods); the "
		       "tables count samples, not events (perf report weights by period): the %" PRIu64
		       " samples before the first change are %.1f%% of the samples and %.1f%% of the "
		       "events\n",
		       m->events, a0->old_samples, pct(a0->old_samples, r->samples),
		       pct(ev0, m->events));
	} else if (m->period_min && m->period_max > m->period_min) {
		/* a recording of mem --adapt -o, or files merged */
		fprintf(out, "  the samples stand for %" PRIu64 " events (periods %" PRIu64 " to %" PRIu64
		       "); the tables count samples, not events (perf report weights by period), "
		       "so the samples of the smaller periods weigh more than their events\n",
		       m->events, m->period_min, m->period_max);
	} else if (m->events > r->samples && r->samples) {
		fprintf(out, "  the samples stand for %" PRIu64 " events (period %.0f); the tables count "
		       "samples, the same shares as perf report's period-weighted ones when every "
		       "sample has one period\n",
		       m->events, (double)m->events / (double)r->samples);
	}
	if (!m->nadapt && m->adapt_on)
		fprintf(out, "  --adapt: no change was needed (loss stayed under 2%% of the records)\n");
	for (size_t i = 0; i < r->nsources; i++)
		fprintf(out, "%s%s %" PRIu64 "%s", i ? ", " : "merged from: ", r->sources[i].name,
		       r->sources[i].samples, i + 1 == r->nsources ? "\n" : "");
}

/* The data's nodes: resolution, holds, the oracle, the matrix. */
static void text_numa(const struct pms_render_mem_opts *m, const struct pms_memreport *r)
{
	FILE *out = m->out;
	fprintf(out, "\nNUMA nodes of sampled data (%" PRIu64 " with an address):\n",
	       r->with_addr);
	if (r->home_node >= 0)
		fprintf(out, "  home node %d: %" PRIu64 " on it (%.1f%% of resolved), %" PRIu64 " elsewhere\n",
		       r->home_node, r->on_home, pct(r->on_home, r->resolved), r->elsewhere);
	fprintf(out, "  resolved %" PRIu64 " (%" PRIu64 " from physical addresses); unresolved %" PRIu64
	       " (not mapped/EFAULT %" PRIu64 ", not present/ENOENT %" PRIu64 ", process gone %" PRIu64
	       ", other %" PRIu64 ", not asked %" PRIu64 ")\n",
	       r->resolved, r->from_phys, r->unresolved, r->st_efault, r->st_enoent, r->st_gone,
	       r->st_other, r->st_not_asked);
	if (r->st_exec_replaced || r->st_hold_budget)
		fprintf(out, "  unresolved also: exec replaced %" PRIu64 ", released at the hold budget %" PRIu64
		       "\n", r->st_exec_replaced, r->st_hold_budget);
	if (r->retried_samples || r->resolved_held || m->hold)
		fprintf(out, "  retried %" PRIu64 " samples whose page was not there yet (%" PRIu64
		       " resolved on a retry); %" PRIu64 " resolved while held at exit%s\n",
		       r->retried_samples, r->retry_resolved, r->resolved_held,
		       m->hold < 0 ? " (exit hold off)" : "");
	if (m->hold > 0)
		fprintf(out, "  exit holds: %" PRIu64 " processes held (%" PRIu64 " threads), %.1f ms in "
		       "all, longest %.2f ms; %" PRIu64 " let go at the hold budget\n",
		       m->holds.processes, m->holds.threads, (double)m->holds.total_ns / 1e6,
		       (double)m->holds.longest_ns / 1e6, m->holds.budget_released);
	{
		char hint[900];
		unresolved_hint(m, r, hint, sizeof(hint));
		if (hint[0])
			fprintf(out, "  unresolved: %s\n", hint);
	}
	if (m->nodes_why)
		fprintf(out, "  nodes unavailable: %s\n", m->nodes_why);
	if (m->oracle)
		fprintf(out, "  oracle: %" PRIu64 " lookups, %" PRIu64 " cache hits, %" PRIu64
		       " unique pages in %" PRIu64 " move_pages calls\n",
		       r->numa.lookups, r->numa.cache_hits, r->numa.pages_queried, r->numa.move_pages_calls);
	if (m->text_verify)
		m->text_verify(out, m->ud);
	if (r->nnodes) {
		fprintf(out, "\nCPU node x memory node (resolved samples):\n  %-8s", "cpu\\mem");
		for (size_t c = 0; c < r->nnodes; c++)
			fprintf(out, " %9d", r->node_ids[c]);
		fprintf(out, "\n");
		for (size_t a = 0; a < r->nnodes; a++) {
			fprintf(out, "  %-8d", r->node_ids[a]);
			for (size_t c = 0; c < r->nnodes; c++)
				fprintf(out, " %9" PRIu64, r->matrix[a * r->nnodes + c]);
			fprintf(out, "\n");
		}
		if (r->matrix_cpu_unknown)
			fprintf(out, "  (%" PRIu64 " resolved samples without a CPU node)\n",
			       r->matrix_cpu_unknown);
	}
}

int pms_render_mem_text(const struct pms_render_mem_opts *opts, const struct pms_memreport *r)
{
	struct pms_render_mem_opts m0;
	const struct pms_render_mem_opts *m = &m0;
	int rc = pms_render_mem_take("pms_render_mem_text", opts, &m0);
	if (rc < 0)
		return rc;
	if (!m->out || !r)
		return pms_err(PMS_EINVAL, "render: mem text: NULL argument");
	FILE *out = m->out;
	fprintf(out, "pmuscope %s: %s (%.2f s)\n", m->command, m->target_text, m->seconds);
	if (r->nattempts && m->verbosity <= 0)
		engine_short(out, r);
	else {
		const char *lab = r->label && *r->label ? r->label : pms_engine_name(r->engine);
		/* "[pmus]" only where it adds something to the label */
		if (r->pmus && *r->pmus && strcmp(r->pmus, lab) && !strstr(lab, r->pmus))
			fprintf(out, "engine: %s [%s]\n", lab, r->pmus);
		else
			fprintf(out, "engine: %s\n", lab);
	}
	for (size_t i = 0; i < m->nunhonoured; i++)
		fprintf(out, "  not honoured: %s: %s\n", m->unhonoured[i].option, m->unhonoured[i].why);
	if (r->notes && *r->notes)
		fprintf(out, "  notes: %s\n", r->notes);
	for (size_t i = 0; i < r->nattempts && m->verbosity > 0; i++) {
		const struct pms_sampler_attempt *a = &r->attempts[i];
		const char *en = pms_engine_name(a->engine);
		char what[64];
		/* the PMU only where it says more than the engine's name */
		if (*a->pmu && strcmp(a->pmu, en))
			snprintf(what, sizeof(what), "%s (%s)", en, a->pmu);
		else
			snprintf(what, sizeof(what), "%s", en);
		fprintf(out, "  tried %-22s %s%s%s\n", what,
		       a->chosen ? "chosen" : a->err ? strerrorname_np(a->err) : "ok",
		       *a->reason ? ": " : "", a->reason);
	}
	text_samples(m, r);

	fprintf(out, "\ndata source levels (%% of all %" PRIu64 " samples; N/A = no data source):\n",
	       r->samples);
	if (*r->data_src_note)
		fprintf(out, "  %s\n", r->data_src_note);
	if (r->nlevels)
		fprintf(out, "  %-24s %8s %6s\n", "level", "samples", "%");
	for (size_t i = 0; i < r->nlevels; i++)
		fprintf(out, "  %-24s %8" PRIu64 " %5.1f%%\n", r->levels[i].name, r->levels[i].samples,
		       pct(r->levels[i].samples, r->samples));

	fprintf(out, "\nlatency (cycles, %" PRIu64 " samples with a valid weight):", r->latency.n);
	if (r->latency.n)
		fprintf(out, " min %" PRIu64 "  median %" PRIu64 "  p90 %" PRIu64 "  p99 %" PRIu64
		       "  max %" PRIu64 "\n",
		       r->latency.min, r->latency.median, r->latency.p90, r->latency.p99, r->latency.max);
	else
		fprintf(out, " none (%s)\n", pms_engine_name(r->engine));

	text_numa(m, r);
	if (m->per_process)
		text_tasks(out, "per process", r->procs, r->nprocs, false);
	if (m->per_thread)
		text_tasks(out, "per thread", r->threads, r->nthreads, true);
	text_sites(out, "top instructions by samples", r->top_ips_samples, r->ntop_ips_samples,
		   r->samples);
	if (r->latency.n)
		text_sites(out, "top instructions by total latency", r->top_ips_latency,
			   r->ntop_ips_latency, r->samples);
	text_sites(out, "top functions by samples, remote = share on another node than the CPU's",
		   r->top_funcs_samples, r->ntop_funcs_samples, r->samples);
	if (r->latency.n)
		text_sites(out, "top functions by total latency", r->top_funcs_latency,
			   r->ntop_funcs_latency, r->samples);
	text_objects(m, r);
	if (m->paths)
		pms_render_callpath_text(out, m->paths);
	if (m->alloc)
		pms_render_alloc_text(out, m->alloc);
	return ferror(out) ? pms_err(PMS_EIO, "render: mem text: writing failed") : 0;
}

PMS_OPTS_LAYOUT(PMS_RENDER_MEM_OPTS, struct pms_render_mem_opts,
		PMS_OPTS_END(struct pms_render_mem_opts, types));

int pms_render_mem_take(const char *fn, const struct pms_render_mem_opts *opts,
			struct pms_render_mem_opts *copy)
{
	int rc = PMS_OPTS_TAKE(fn, PMS_RENDER_MEM_OPTS, opts, copy);
	if (rc < 0)
		return rc;
	if (!copy->command)
		copy->command = "mem";
	return 0;
}

bool pms_render_mem_empty(const struct pms_render_mem_opts *opts, const struct pms_memreport *r,
			  char *buf, size_t size)
{
	struct pms_render_mem_opts m;
	if (pms_render_mem_take("pms_render_mem_empty", opts, &m) < 0 || !r || !buf || !size)
		return false;
	return empty(&m, r, buf, size);
}
