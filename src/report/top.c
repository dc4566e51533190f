/* pmuscope top: rows, order and text frames of one interval (pmuscope/top.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/memsample.h"
#include "pmuscope/top.h"

static const char *const view_names[PMS_TOP_NVIEWS] = { "process", "thread", "object", "function" };
static const char *const sort_names[PMS_TOP_NSORTS] = { "samples", "latency", "local",
						    "remote", "remote%", "name" };

const char *pms_top_view_name(enum pms_top_view v)
{
	return (unsigned)v < PMS_TOP_NVIEWS ? view_names[v] : "?";
}

const char *pms_top_sort_name(enum pms_top_sort s)
{
	return (unsigned)s < PMS_TOP_NSORTS ? sort_names[s] : "?";
}

int pms_top_view_parse(const char *s, enum pms_top_view *v)
{
	for (int i = 0; i < PMS_TOP_NVIEWS; i++) {
		size_t n = strlen(view_names[i]);
		/* "process" or "processes", "thread(s)", ... */
		if (!strcmp(s, view_names[i]) ||
		    (!strncmp(s, view_names[i], n) && (!strcmp(s + n, "s") || !strcmp(s + n, "es")))) {
			*v = (enum pms_top_view)i;
			return 0;
		}
	}
	return -1;
}

int pms_top_sort_parse(const char *s, enum pms_top_sort *v)
{
	for (int i = 0; i < PMS_TOP_NSORTS; i++)
		if (!strcmp(s, sort_names[i])) {
			*v = (enum pms_top_sort)i;
			return 0;
		}
	if (!strcmp(s, "share")) { /* the share is the samples' */
		*v = PMS_TOP_BY_SAMPLES;
		return 0;
	}
	return -1;
}

/* ---- the rows ---------------------------------------------------------- */

/* One sample's row key. */
struct key {
	uint64_t a;        /* pid (process, thread, function per pid), object index + 1 */
	uint32_t b;        /* tid */
	const char *name, *extra;
	size_t i;          /* the sample in r->all */
};

static int strcmp0(const char *x, const char *y)
{
	return strcmp(x ? x : "", y ? y : "");
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct key *x = pa, *y = pb;
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	int c = strcmp0(x->name, y->name);
	return c ? c : strcmp0(x->extra, y->extra);
}

static void key_of(struct key *k, const struct pms_memreport *r, size_t i, enum pms_top_view v,
		   bool per_pid)
{
	const struct pms_memreport_sample *s = &r->all[i];
	uint32_t pid = s->s.valid & PMS_MS_TID ? s->s.pid : 0;
	memset(k, 0, sizeof(*k));
	k->i = i;
	switch (v) {
	case PMS_TOP_PROCESS:
		k->a = pid;
		break;
	case PMS_TOP_THREAD:
		k->a = pid;
		k->b = s->s.valid & PMS_MS_TID ? s->s.tid : 0;
		break;
	case PMS_TOP_OBJECT:
		if (s->object >= 0 && (size_t)s->object < r->nobjects) {
			k->a = (uint64_t)s->object + 1;
			k->name = r->objects[s->object].name;
			k->extra = r->objects[s->object].kind;
		} else {
			k->name = "[no data address]";
		}
		break;
	default:
		k->a = per_pid ? pid : 0;
		if (s->site >= 0 && (size_t)s->site < r->nsites) {
			k->name = r->sites[s->site].name;
			k->extra = r->sites[s->site].module;
		} else {
			k->name = "[unknown]";
		}
		break;
	}
}

static const char *task_comm(const struct pms_memreport *r, uint32_t pid, uint32_t tid)
{
	const struct pms_memreport_task *ts = tid ? r->threads : r->procs;
	size_t n = tid ? r->nthreads : r->nprocs;
	for (size_t i = 0; i < n; i++)
		if (ts[i].pid == pid && ts[i].tid == tid)
			return ts[i].comm && *ts[i].comm ? ts[i].comm : "?";
	/* a thread without its own row: its process's name */
	return tid ? task_comm(r, pid, 0) : "?";
}

static void row_add(struct pms_top_row *row, const struct pms_memreport *r, size_t i, size_t nnodes)
{
	const struct pms_memreport_sample *s = &r->all[i];
	row->samples++;
	if (s->s.valid & PMS_MS_WEIGHT) {
		row->weighted++;
		row->latency += s->s.weight;
	}
	if (s->mem_node < 0)
		return;
	row->resolved++;
	for (size_t n = 0; n < nnodes; n++)
		if (r->node_ids[n] == s->mem_node) {
			row->nodes[n]++;
			break;
		}
	if (s->cpu_node >= 0)
		*(s->cpu_node == s->mem_node ? &row->local : &row->remote) += 1;
}

void pms_top_table_free(struct pms_top_table *t)
{
	free(t->rows);
	free(t->nodebuf);
	memset(t, 0, sizeof(*t));
}

int pms_top_table_build(struct pms_top_table *t, const struct pms_memreport *r, enum pms_top_view v,
		    bool per_pid)
{
	memset(t, 0, sizeof(*t));
	if (!r->nall)
		return 0;
	struct key *keys = malloc(r->nall * sizeof(*keys));
	if (!keys)
		return -1;
	for (size_t i = 0; i < r->nall; i++)
		key_of(&keys[i], r, i, v, per_pid);
	qsort(keys, r->nall, sizeof(*keys), cmp_key);
	size_t ngroups = 0;
	for (size_t i = 0; i < r->nall; i++)
		ngroups += !i || cmp_key(&keys[i - 1], &keys[i]);
	t->nnodes = r->nnodes;
	t->rows = calloc(ngroups, sizeof(*t->rows));
	t->nodebuf = calloc(ngroups * (r->nnodes ? r->nnodes : 1), sizeof(*t->nodebuf));
	if (!t->rows || !t->nodebuf) {
		free(keys);
		pms_top_table_free(t);
		return -1;
	}
	struct pms_top_row *row = NULL;
	for (size_t i = 0; i < r->nall; i++) {
		if (!i || cmp_key(&keys[i - 1], &keys[i])) {
			row = &t->rows[t->nrows];
			row->nodes = t->nodebuf + t->nrows * (r->nnodes ? r->nnodes : 1);
			t->nrows++;
			const struct key *k = &keys[i];
			row->name = k->name;
			row->extra = k->extra;
			if (v == PMS_TOP_PROCESS || v == PMS_TOP_THREAD || (v == PMS_TOP_FUNCTION && per_pid))
				row->pid = (uint32_t)k->a;
			row->tid = k->b;
			if (v == PMS_TOP_PROCESS || v == PMS_TOP_THREAD)
				row->name = task_comm(r, row->pid, row->tid);
		}
		row_add(row, r, keys[i].i, r->nnodes);
	}
	free(keys);
	return 0;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* -1, 0, 1: how x goes before y under s (most first) */
static int cmp_by(const struct pms_top_row *x, const struct pms_top_row *y, enum pms_top_sort s)
{
	double a = 0, b = 0;
	switch (s) {
	case PMS_TOP_BY_LATENCY:
		/* rows without a latency after every row with one */
		a = x->weighted ? (double)x->latency / (double)x->weighted : -1;
		b = y->weighted ? (double)y->latency / (double)y->weighted : -1;
		break;
	case PMS_TOP_BY_LOCAL: a = (double)x->local; b = (double)y->local; break;
	case PMS_TOP_BY_REMOTE: a = (double)x->remote; b = (double)y->remote; break;
	case PMS_TOP_BY_RMT_SHARE:
		a = x->local + x->remote ? share(x->remote, x->local + x->remote) : -1;
		b = y->local + y->remote ? share(y->remote, y->local + y->remote) : -1;
		break;
	case PMS_TOP_BY_NAME: {
		int c = strcmp0(x->name, y->name);
		if (c)
			return c;
		break;
	}
	default: break;
	}
	if (a != b)
		return a > b ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	int c = strcmp0(x->name, y->name);
	if (c)
		return c;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_rows(const void *pa, const void *pb, void *ud)
{
	return cmp_by(pa, pb, *(const enum pms_top_sort *)ud);
}

void pms_top_table_sort(struct pms_top_table *t, enum pms_top_sort s)
{
	if (t->nrows)
		qsort_r(t->rows, t->nrows, sizeof(*t->rows), cmp_rows, &s);
}

/* ---- text -------------------------------------------------------------- */

struct out {
	FILE *f;
	int width;
	bool term;
	size_t lines, max_lines;
};

static void out_line(struct out *o, const char *text)
{
	if (o->max_lines && o->lines >= o->max_lines)
		return;
	size_t n = strlen(text);
	if (o->width > 0 && n > (size_t)o->width)
		n = (size_t)o->width;
	fwrite(text, 1, n, o->f);
	if (o->term)
		fputs("\033[K", o->f);
	/* a terminal's last line gets no newline: it would scroll */
	if (!o->term || !o->max_lines || o->lines + 1 < o->max_lines)
		fputc('\n', o->f);
	o->lines++;
}

/* "N0 75% N1 25%": the nodes of a row's resolved samples, most first */
static void nodes_text(const struct pms_top_row *row, const struct pms_memreport *r, char *buf,
		       size_t size)
{
	size_t len = 0, shown = 0;
	bool used[64] = { false };
	buf[0] = 0;
	if (!row->resolved) {
		snprintf(buf, size, "-");
		return;
	}
	while (shown < 3 && len + 1 < size) {
		size_t best = SIZE_MAX;
		for (size_t n = 0; n < r->nnodes && n < 64; n++)
			if (!used[n] && row->nodes[n] && (best == SIZE_MAX || row->nodes[n] > row->nodes[best]))
				best = n;
		if (best == SIZE_MAX)
			break;
		used[best] = true;
		len += (size_t)snprintf(buf + len, size - len, "%sN%d %.0f%%", shown ? " " : "",
					r->node_ids[best], share(row->nodes[best], row->resolved));
		shown++;
	}
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "";
}

static void title_line(struct out *o, const struct pms_top_frame *fr)
{
	char line[512], cols[PMS_TOP_BY_NAME][16], name[40];
	static const char *const titles[PMS_TOP_BY_NAME] = { "SAMPLES", "LAT", "LOCAL", "REMOTE",
							 "RMT%" };
	for (int i = 0; i < PMS_TOP_BY_NAME; i++)
		snprintf(cols[i], sizeof(cols[i]), "%s%s", titles[i], (int)fr->sort == i ? "*" : "");
	const char *nm = fr->sort == PMS_TOP_BY_NAME ? "*" : "";
	size_t len = 0;
	if (fr->view == PMS_TOP_PROCESS || fr->view == PMS_TOP_THREAD) {
		snprintf(name, sizeof(name), "COMMAND%s", nm);
		if (fr->view == PMS_TOP_PROCESS)
			len = (size_t)snprintf(line, sizeof(line), "%8s %-16s ", "PID", name);
		else
			len = (size_t)snprintf(line, sizeof(line), "%8s %8s %-16s ", "PID", "TID",
					       name);
		name[0] = 0;
	} else if (fr->view == PMS_TOP_OBJECT) {
		snprintf(name, sizeof(name), "DATA OBJECT%s", nm);
	} else {
		snprintf(name, sizeof(name), "FUNCTION%s [MODULE]%s", nm,
			 fr->per_pid ? " (PID COMMAND)" : "");
	}
	snprintf(line + len, sizeof(line) - len, "%9s %6s %8s %8s %8s %6s  %-13s %s", cols[0],
		 "SHARE", cols[1], cols[2], cols[3], cols[4], "NODES", name);
	out_line(o, line);
}

static void row_line(struct out *o, const struct pms_top_frame *fr, const struct pms_memreport *r,
		     const struct pms_top_row *row, uint64_t total)
{
	char line[1024], lat[24], rmt[16], nodes[64];
	size_t len = 0;
	snprintf(lat, sizeof(lat), "-");
	if (row->weighted)
		snprintf(lat, sizeof(lat), "%.0f", (double)row->latency / (double)row->weighted);
	snprintf(rmt, sizeof(rmt), "-");
	if (row->local + row->remote)
		snprintf(rmt, sizeof(rmt), "%.1f", share(row->remote, row->local + row->remote));
	nodes_text(row, r, nodes, sizeof(nodes));
	if (fr->view == PMS_TOP_PROCESS)
		len = (size_t)snprintf(line, sizeof(line), "%8u %-16.16s ", row->pid, row->name);
	else if (fr->view == PMS_TOP_THREAD)
		len = (size_t)snprintf(line, sizeof(line), "%8u %8u %-16.16s ", row->pid, row->tid,
				       row->name);
	len += (size_t)snprintf(line + len, sizeof(line) - len,
				"%9" PRIu64 " %5.1f%% %8s %8" PRIu64 " %8" PRIu64 " %6s  %-13s",
				row->samples, share(row->samples, total), lat, row->local,
				row->remote, rmt, nodes);
	if (fr->view == PMS_TOP_OBJECT)
		snprintf(line + len, sizeof(line) - len, " %s%s%s%s", row->name,
			 row->extra && *row->extra ? " (" : "", row->extra ? row->extra : "",
			 row->extra && *row->extra ? ")" : "");
	else if (fr->view == PMS_TOP_FUNCTION)
		snprintf(line + len, sizeof(line) - len, " %s%s%s%s", row->name,
			 row->extra && *row->extra ? " [" : "", base_name(row->extra),
			 row->extra && *row->extra ? "]" : "");
	if (fr->view == PMS_TOP_FUNCTION && fr->per_pid) {
		len = strlen(line);
		snprintf(line + len, sizeof(line) - len, " (%u %s)", row->pid,
			 row->pid ? task_comm(r, row->pid, 0) : "?");
	}
	out_line(o, line);
}

static void header_lines(struct out *o, const struct pms_top_frame *fr, const struct pms_memreport *r)
{
	char line[1024];
	const char *lab = r->label && *r->label ? r->label : pms_engine_name(r->engine);
	snprintf(line, sizeof(line), "pmuscope top: frame %u, %s, %.1f s (every %.1f s)", fr->number,
		 fr->target, fr->seconds, fr->interval);
	out_line(o, line);
	if (r->pmus && *r->pmus && strcmp(r->pmus, lab) && !strstr(lab, r->pmus))
		snprintf(line, sizeof(line), "engine: %s [%s]", lab, r->pmus);
	else
		snprintf(line, sizeof(line), "engine: %s", lab);
	out_line(o, line);
	uint64_t seen = r->samples + fr->lost;
	snprintf(line, sizeof(line),
		 "samples: %" PRIu64 " (%.0f/s), %" PRIu64 " in all; lost: %" PRIu64
		 " (%.1f%%), %" PRIu64 " in all; with a node: %.1f%%; latency: %s",
		 r->samples, fr->interval > 0 ? (double)r->samples / fr->interval : 0.0,
		 fr->samples_total, fr->lost, share(fr->lost, seen), fr->lost_total,
		 share(r->resolved, r->with_addr), r->latency.n ? "cycles" : "none from this engine");
	out_line(o, line);
	snprintf(line, sizeof(line), "view: %s   sort: %s%s", pms_top_view_name(fr->view),
		 pms_top_sort_name(fr->sort),
		 fr->keys ? "   keys: p t o f (Tab) view, s l r n < > sort, q quit" : "");
	out_line(o, line);
	out_line(o, fr->message ? fr->message : "");
}

void pms_top_render_text(FILE *f, const struct pms_top_frame *fr, const struct pms_memreport *r,
		     const struct pms_top_table *t, size_t max_rows, int width, bool term,
		     size_t lines)
{
	struct out o = { f, width, term, 0, lines };
	header_lines(&o, fr, r);
	title_line(&o, fr);
	for (size_t i = 0; i < t->nrows && i < max_rows; i++)
		row_line(&o, fr, r, &t->rows[i], r->samples);
	if (!t->nrows)
		out_line(&o, r->samples ? "(no rows)" : "(no samples in this interval)");
}

/* ---- JSON -------------------------------------------------------------- */
