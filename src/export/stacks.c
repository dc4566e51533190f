/* The call path of each report sample as frames, and collapsed stacks
 * (flamegraph.pl's input, also read by speedscope) built from them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/export.h"
#include "util/error.h"

int pms_export_stacks_new(const struct pms_memreport *r, struct pms_export_stacks **out)
{
	struct pms_export_stacks *st = NULL;
	if (out)
		*out = NULL;
	if (!r || !out)
		return pms_err(PMS_EINVAL, "export: NULL argument");
	if (r->samples && !r->nall)
		return pms_err(PMS_EINVAL, "export: the report kept no samples (aggregate mode): "
					   "build it with opts.aggregate false");
	st = calloc(1, sizeof(*st));
	if (!st)
		goto nomem;
	st->report = r;
	st->nsamples = r->nall;
	st->off = calloc(r->nall + 1, sizeof(*st->off));
	st->frame = calloc(r->nall ? r->nall : 1, sizeof(*st->frame));
	if (!st->off || !st->frame)
		goto nomem;
	/* One frame per sample: its IP.  A call chain would append its
	 * callers here, leaf first. */
	size_t k = 0;
	for (size_t i = 0; i < r->nall; i++) {
		st->off[i] = k;
		long s = r->all[i].site;
		if (s >= 0 && (size_t)s < r->nsites)
			st->frame[k++] = (size_t)s;
	}
	st->off[r->nall] = k;
	*out = st;
	return 0;
nomem:
	pms_export_stacks_free(st);
	return pms_err(PMS_ENOMEM, "export: no memory for %zu samples' frames", r->nall);
}

void pms_export_stacks_free(struct pms_export_stacks *st)
{
	if (!st)
		return;
	free(st->off);
	free(st->frame);
	free(st);
}

const char *pms_export_frame_name(const struct pms_memreport_site *f, char *buf, size_t size)
{
	if (strcmp(f->name, "[unknown]") || !f->module || !*f->module)
		return f->name;
	const char *base = strrchr(f->module, '/');
	snprintf(buf, size, "[unknown] [%s]", base ? base + 1 : f->module);
	return buf;
}

struct path {
	char *text;
	uint64_t v;
};

static int path_cmp(const void *a, const void *b)
{
	return strcmp(((const struct path *)a)->text, ((const struct path *)b)->text);
}

/* Append s to *buf (growing it); unless raw, ';' and newlines replaced. */
static int put(char **buf, size_t *len, size_t *cap, const char *s, bool raw)
{
	size_t n = strlen(s);
	if (*len + n + 1 > *cap) {
		size_t c = (*cap ? *cap * 2 : 256) + n;
		char *b = realloc(*buf, c);
		if (!b)
			return -1;
		*buf = b;
		*cap = c;
	}
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		(*buf)[(*len)++] = raw ? c : c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
	}
	(*buf)[*len] = 0;
	return 0;
}

int pms_export_folded(const struct pms_export_stacks *st, enum pms_export_weight w, char **out,
		      size_t *len)
{
	struct path *p = NULL;
	size_t np = 0;
	char *txt = NULL, name[512];
	size_t tlen = 0, tcap = 0;
	int rc = 0;
	if (out)
		*out = NULL;
	if (!st || !out)
		return pms_err(PMS_EINVAL, "export: NULL argument");
	const struct pms_memreport *r = st->report;
	p = calloc(st->nsamples ? st->nsamples : 1, sizeof(*p));
	if (!p)
		goto nomem;
	for (size_t i = 0; i < st->nsamples; i++) {
		const struct pms_memsample *s = &r->all[i].s;
		uint64_t v = w == PMS_EXPORT_LATENCY ? ((s->valid & PMS_MS_WEIGHT) ? s->weight : 0) : 1;
		char *b = NULL;
		size_t bl = 0, bc = 0;
		if (!v)
			continue;
		if (st->off[i] == st->off[i + 1] && put(&b, &bl, &bc, "[no ip]", false) < 0)
			goto nomem;
		/* root first: the frames are stored leaf first */
		for (size_t k = st->off[i + 1]; k > st->off[i]; k--) {
			const struct pms_memreport_site *f = &r->sites[st->frame[k - 1]];
			if ((k < st->off[i + 1] && put(&b, &bl, &bc, ";", true) < 0) ||
			    put(&b, &bl, &bc, pms_export_frame_name(f, name, sizeof(name)), false) < 0) {
				free(b);
				goto nomem;
			}
		}
		p[np++] = (struct path){ b, v };
	}
	qsort(p, np, sizeof(*p), path_cmp);
	if (put(&txt, &tlen, &tcap, "", true) < 0)
		goto nomem;
	for (size_t a = 0; a < np;) {
		uint64_t sum = 0;
		size_t b = a;
		char num[32];
		for (; b < np && !strcmp(p[b].text, p[a].text); b++)
			sum += p[b].v;
		snprintf(num, sizeof(num), " %llu\n", (unsigned long long)sum);
		size_t n = strlen(p[a].text) + strlen(num);
		if (tlen + n + 1 > tcap) {
			size_t c = tcap * 2 + n + 1;
			char *nb = realloc(txt, c);
			if (!nb)
				goto nomem;
			txt = nb;
			tcap = c;
		}
		tlen += (size_t)sprintf(txt + tlen, "%s%s", p[a].text, num);
		a = b;
	}
	*out = txt;
	txt = NULL;
	if (len)
		*len = tlen;
	goto out;
nomem:
	rc = pms_err(PMS_ENOMEM, "export: no memory for the collapsed stacks");
out:
	for (size_t i = 0; i < np; i++)
		free(p[i].text);
	free(p);
	free(txt);
	return rc;
}
