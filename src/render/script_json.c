/* script --json's rows (pmuscope/render.h): one JSON object per sample
 * (JSON Lines), the fields in the order given, from the library's pull
 * (pmuscope/script.h). */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmuscope/callpath.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/memdeco.h"
#include "pmuscope/render.h"
#include "render_int.h"
#include "util/error.h"
#include "util/fmtnum.h"


enum field {
	F_COMM, F_PID, F_TID, F_CPU, F_TIME, F_EVENT, F_IP, F_ADDR, F_PHYS, F_NODE,
	F_PERIOD, F_WEIGHT, F_INSLAT, F_DSRC, F_TYPE, F_CALLCHAIN, F_BRSTACK, F_N
};

static const char *const field_names[F_N] = {
	"comm", "pid", "tid", "cpu", "time", "event", "ip", "addr", "phys_addr", "node",
	"period", "weight", "ins_lat", "data_src", "type", "callchain", "brstack",
};

/* Event names as JSON strings, once per event (a few events a file;
 * beyond the cache, built each time). */
struct evname {
	const struct pms_perfdata_attr *a;
	char *q;
	size_t qn;
};

/* What every row of a run shares: the fields, the event names and each
 * field's key quoted once with its ',' and ':'. */
struct pms_render_script {
	enum field fs[32];
	size_t nf;
	struct pms_datasrc_memo *dm;
	bool json_direct; /* no field needs a jansson value: rows built in place */
	bool want_node, want_chain;
	struct evname e[64];
	size_t ne;
	char key[32][24];
	size_t keyn[32];
};

static const struct evname *ev_get(struct pms_render_script *c, const struct pms_perfdata_attr *a,
				   const char *name)
{
	size_t len;
	struct evname *e;
	for (size_t i = 0; i < c->ne; i++)
		if (c->e[i].a == a)
			return &c->e[i];
	if (c->ne == sizeof(c->e) / sizeof(c->e[0]))
		return NULL;
	len = strlen(name);
	e = &c->e[c->ne];
	if (!(e->q = malloc(6 * len + 4)))
		return NULL;
	e->qn = pms_json_quote(name, e->q, 6 * len + 4);
	e->a = a;
	c->ne++;
	return e;
}

/* The buffer straight to f's descriptor once f's own buffer is empty: a
 * buffer's worth through stdio was copied into stdio's buffer first (the
 * copy and the cache lines it evicted were a few per cent of a `script`);
 * through stdio where f has no descriptor or the write fails. */
void pms_render_out_flush(struct pms_render_out *o)
{
	const char *p = o->b;
	size_t n = o->n;
	int fd;
	o->n = 0;
	if (!n)
		return;
	if (fflush(o->f) != 0 || (fd = fileno(o->f)) < 0) {
		fwrite(p, 1, n, o->f);
		return;
	}
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			fwrite(p, 1, n, o->f);
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Room for need more bytes at o->b + o->n (need <= o->cap). */
static void out_room(struct pms_render_out *o, size_t need)
{
	if (o->n + need > o->cap)
		pms_render_out_flush(o);
}

static void out_put(struct pms_render_out *o, const char *s, size_t n)
{
	out_room(o, n);
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

#define LINE_CAP 8192

/* A comm as a JSON string (the common one needs no escape). */
static size_t comm_quote(const char *c, char *q, size_t size)
{
	size_t n = 0;
	q[n++] = '"';
	for (; *c; c++) {
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f || *c == '"' || *c == '\\')
			return pms_json_quote(c - (n - 1), q, size);
		q[n++] = *c;
	}
	q[n++] = '"';
	return n;
}

static void jrow_json(struct pms_json_row *j, const char *k, json_t *v)
{
	char *txt = v ? json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
	if (txt)
		pms_jrow_raw(j, k, txt, strlen(txt));
	else
		pms_jrow_null(j, k);
	free(txt);
	json_decref(v);
}

/* Pieces of a row gathered here and handed to the row a few at a time:
 * the row cuts them at its end exactly as it would one by one. */
/* A JSON row's text: straight into the output buffer (j NULL: a row that
 * does not fit, or needs a jansson value, sets over and is printed again
 * through a json_row), else pending in own and flushed into j. */
struct jpend {
	struct pms_json_row *j;
	char *b;
	size_t n, cap;
	bool over;
	char own[512];
};

static void jp_flush(struct jpend *p)
{
	if (p->n && p->j)
		pms_jrow_text(p->j, p->b, p->n);
	p->n = 0;
}

static __attribute__((noinline)) void jp_put_slow(struct jpend *p, const char *s, size_t n)
{
	if (!p->j) {
		p->over = true;
		return;
	}
	jp_flush(p);
	if (n > p->cap) {
		pms_jrow_text(p->j, s, n);
		return;
	}
	memcpy(p->b, s, n);
	p->n = n;
}

static inline __attribute__((always_inline)) void jp_put(struct jpend *p, const char *s, size_t n)
{
	if (p->n + n > p->cap) {
		jp_put_slow(p, s, n);
		return;
	}
	memcpy(p->b + p->n, s, n);
	p->n += n;
}

static inline __attribute__((always_inline)) void jp_uint(struct jpend *p, uint64_t v)
{
	char t[24];
	size_t n = pms_fmt_dec(t + sizeof(t), v);
	jp_put(p, t + sizeof(t) - n, n);
}

static inline __attribute__((always_inline)) void jp_hex(struct jpend *p, uint64_t v)
{
	char t[24];
	size_t n = pms_fmt_hex(t + sizeof(t) - 1, v);
	t[sizeof(t) - 1] = '"';
	memcpy(t + sizeof(t) - 1 - n - 3, "\"0x", 3);
	jp_put(p, t + sizeof(t) - 1 - n - 3, n + 4);
}

/* The fields of a sample's JSON row into p (j: the row, or NULL when p
 * writes straight into the output: what needs the row sets p->over). */
static void json_fields(struct jpend *pp, struct pms_json_row *jr, struct pms_render_script *fm,
			const struct pms_script_sample *smp)
{
	const struct pms_perfdata_event *ev = smp->ev;
	const struct pms_sample *s = &ev->rec.sample;
	int node = smp->node;
	const enum field *fs = fm->fs;
	for (size_t i = 0; i < fm->nf && !pp->over; i++) {
		const char *k = field_names[fs[i]];
		switch (fs[i]) {
		case F_COMM: {
			char q[16 * 6 + 4];
			jp_put(pp, fm->key[i], fm->keyn[i]);
			if (smp->comm)
				jp_put(pp, q, comm_quote(smp->comm, q, sizeof(q)));
			else
				jp_put(pp, "null", 4);
			break;
		}
		case F_PID:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_uint(pp, s->pid);
			break;
		case F_TID:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_uint(pp, s->tid);
			break;
		case F_CPU:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_uint(pp, s->cpu);
			break;
		case F_TIME:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_uint(pp, s->time);
			break;
		case F_EVENT: {
			const struct evname *e = ev_get(fm, ev->attr, smp->event);
			if (e) {
				jp_put(pp, fm->key[i], fm->keyn[i]);
				jp_put(pp, e->q, e->qn);
			} else {
				if (!jr) {
					pp->over = true;
					break;
				}
				jp_flush(pp);
				pms_jrow_str(jr, k, smp->event);
			}
			break;
		}
		case F_IP:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_hex(pp, s->ip);
			break;
		case F_ADDR:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_hex(pp, s->addr);
			break;
		case F_PHYS:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_hex(pp, s->phys_addr);
			break;
		case F_NODE:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			if (node >= 0)
				jp_uint(pp, (uint64_t)node);
			else
				jp_put(pp, "null", 4);
			break;
		case F_PERIOD:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_uint(pp, s->period);
			break;
		case F_WEIGHT:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_uint(pp, (s->present & PMS_SAMPLE_WEIGHT_STRUCT) ? s->weight_var1_dw : s->weight);
			break;
		case F_INSLAT:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_uint(pp, s->weight_var2_w);
			break;
		case F_DSRC: {
			size_t qn;
			/* the text needs no escape (pmuscope/datasrc.h) */
			const char *q = pms_datasrc_memo_text(fm->dm, s->data_src, &qn);
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_hex(pp, s->data_src);
			jp_put(pp, ",\"data_src_text\":\"", 18);
			jp_put(pp, q, qn);
			jp_put(pp, "\"", 1);
			break;
		}
		case F_TYPE:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_put(pp, "\"SAMPLE\"", 8);
			break;
		case F_BRSTACK:
			if (!jr) {
				pp->over = true;
				break;
			}
			jp_flush(pp);
			if (!(s->present & PMS_SAMPLE_BRANCH_STACK)) {
				pms_jrow_null(jr, k);
				break;
			}
			{
				json_t *arr = json_array();
				for (uint64_t b = 0; arr && b < s->branch.nr; b++) {
					struct pms_branch br = pms_branch_at(s->branch.entries, (size_t)b);
					char from[24], to[24];
					snprintf(from, sizeof(from), "0x%" PRIx64, br.from);
					snprintf(to, sizeof(to), "0x%" PRIx64, br.to);
					json_array_append_new(arr, json_pack("{s:s,s:s,s:b,s:b,s:b,s:b,s:I,s:s,s:s}",
						"from", from, "to", to, "mispred", br.mispred,
						"predicted", br.predicted, "in_tx", br.in_tx, "abort", br.abort,
						"cycles", (json_int_t)br.cycles,
						"type", pms_script_branch_type(&br),
						"spec", pms_script_branch_spec(&br)));
				}
				jrow_json(jr, k, arr);
			}
			break;
		case F_CALLCHAIN: {
			/* the frames the text prints (smp: PMS_SCRIPT_CHAIN) */
			if (!jr) {
				pp->over = true;
				break;
			}
			jp_flush(pp);
			if (!smp->chain) {
				pms_jrow_null(jr, k);
				break;
			}
			json_t *arr = json_array();
			for (size_t c = 0; arr && c < smp->nframes; c++) {
				char hx[24];
				snprintf(hx, sizeof(hx), "0x%" PRIx64, smp->frames[c].ip);
				json_array_append_new(arr, json_string(hx));
			}
			jrow_json(jr, k, arr);
			break;
		}
		case F_N:
			break;
		}
	}
}

void pms_render_script_row(struct pms_render_script *fm, struct pms_render_out *o,
		       const struct pms_script_sample *smp)
{
	struct pms_json_row j;
	struct jpend p;
	if (fm->json_direct) {
		out_room(o, LINE_CAP);
		p.j = NULL; /* not a compound literal: own[] stays unwritten */
		p.b = o->b + o->n + 1;
		p.n = 0;
		p.cap = LINE_CAP - 3;
		p.over = false;
		json_fields(&p, NULL, fm, smp);
		if (!p.over) { /* as pms_jrow_begin/_close make it */
			o->b[o->n] = '{';
			p.b[p.n] = '}';
			p.b[p.n + 1] = '\n';
			o->n += p.n + 3;
			return;
		}
	}
	pms_jrow_begin(&j);
	p.j = &j;
	p.b = p.own;
	p.n = 0;
	p.cap = sizeof(p.own);
	p.over = false;
	json_fields(&p, &j, fm, smp);
	jp_flush(&p);
	size_t n = pms_jrow_close(&j);
	out_put(o, j.b, n);
}


int pms_render_script_new(const char *fields, struct pms_render_script **out)
{
	struct pms_render_script *f = calloc(1, sizeof(*f));
	int rc;
	*out = NULL;
	if (!f)
		return pms_err(PMS_ENOMEM, "script: out of memory");
	if ((rc = pms_datasrc_memo_new(PMS_DATASRC_MEMO_TEXT, 0, &f->dm)) < 0)
		goto fail;
	for (const char *p = fields; *p;) {
		size_t n = strcspn(p, ",");
		size_t k;
		for (k = 0; k < F_N; k++)
			if (strlen(field_names[k]) == n && !strncmp(p, field_names[k], n))
				break;
		if (k == F_N) {
			rc = pms_err(PMS_EINVAL, "-F: unknown field '%.*s'", (int)n, p);
			goto fail;
		}
		if (f->nf == sizeof(f->fs) / sizeof(f->fs[0])) {
			rc = pms_err(PMS_EINVAL, "-F: at most %zu fields; '%.*s' would be field %zu",
				     sizeof(f->fs) / sizeof(f->fs[0]), (int)n, p, f->nf + 1);
			goto fail;
		}
		f->fs[f->nf++] = (enum field)k;
		p += n;
		if (*p == ',')
			p++;
	}
	f->json_direct = true;
	for (size_t i = 0; i < f->nf; i++) {
		char q[20];
		(void)pms_json_quote(field_names[f->fs[i]], q, sizeof(q));
		snprintf(f->key[i], sizeof(f->key[i]), "%s%s:", i ? "," : "", q);
		f->keyn[i] = strlen(f->key[i]);
		if (f->fs[i] == F_BRSTACK || f->fs[i] == F_CALLCHAIN)
			f->json_direct = false;
		f->want_node |= f->fs[i] == F_NODE;
		f->want_chain |= f->fs[i] == F_CALLCHAIN;
	}
	*out = f;
	return 0;
fail:
	pms_render_script_free(f);
	return rc;
}

bool pms_render_script_node(const struct pms_render_script *j)
{
	return j->want_node;
}

bool pms_render_script_chain(const struct pms_render_script *j)
{
	return j->want_chain;
}

void pms_render_script_free(struct pms_render_script *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->ne; i++)
		free(j->e[i].q);
	pms_datasrc_memo_free(j->dm);
	free(j);
}
