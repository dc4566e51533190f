/* `pmuscope report` aggregation of a recorded file: counts keyed by
 * data_src value, IP, node and weight, each in an open-addressing table, so
 * memory follows the number of distinct keys and not of samples. */
#include "pmuscope/perfdata.h"

#include "util/error.h"

#include <stdlib.h>
#include <string.h>

struct ctab {
	uint64_t *keys;
	uint64_t *samples; /* 0 = empty slot (a used slot has >= 1) */
	uint64_t *weight;
	size_t cap, n;
};

enum { T_DSRC, T_IP, T_NODE, T_WEIGHT, T_N };

struct pms_perfdata_summary {
	struct ctab t[T_N];
	uint64_t samples, mem_samples, weighted;
};

static uint64_t mix(uint64_t k)
{
	k ^= k >> 31;
	k *= 0x9e3779b97f4a7c15ULL;
	k ^= k >> 29;
	return k;
}

static int ctab_grow(struct ctab *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 256;
	uint64_t *k = calloc(ncap, 8), *s = calloc(ncap, 8), *w = calloc(ncap, 8);
	if (!k || !s || !w) {
		free(k);
		free(s);
		free(w);
		return pms_err(PMS_ENOMEM, "report summary: out of memory (%zu keys)", t->n);
	}
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;
		if (!t->samples[i])
			continue;
		for (j = mix(t->keys[i]) & (ncap - 1); s[j]; j = (j + 1) & (ncap - 1))
			;
		k[j] = t->keys[i];
		s[j] = t->samples[i];
		w[j] = t->weight[i];
	}
	free(t->keys);
	free(t->samples);
	free(t->weight);
	t->keys = k;
	t->samples = s;
	t->weight = w;
	t->cap = ncap;
	return 0;
}

static int ctab_add(struct ctab *t, uint64_t key, uint64_t weight)
{
	size_t j;
	if ((t->n + 1) * 4 > t->cap * 3) {
		int rc = ctab_grow(t);
		if (rc < 0)
			return rc;
	}
	for (j = mix(key) & (t->cap - 1); t->samples[j]; j = (j + 1) & (t->cap - 1)) {
		if (t->keys[j] == key) {
			t->samples[j]++;
			t->weight[j] += weight;
			return 0;
		}
	}
	t->keys[j] = key;
	t->samples[j] = 1;
	t->weight[j] = weight;
	t->n++;
	return 0;
}

int pms_perfdata_summary_new(struct pms_perfdata_summary **out)
{
	if (!out)
		return pms_err(PMS_EINVAL, "pms_perfdata_summary_new: out is NULL");
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return pms_err(PMS_ENOMEM, "report summary: out of memory");
	return 0;
}

int pms_perfdata_summary_add(struct pms_perfdata_summary *s, const struct pms_perfdata_event *ev)
{
	const struct pms_sample *smp;
	uint64_t w;
	int rc;

	if (!s || !ev)
		return pms_err(PMS_EINVAL, "pms_perfdata_summary_add: NULL argument");
	if (ev->rec.type != PMS_RECORD_SAMPLE)
		return 0;
	smp = &ev->rec.sample;
	/* WEIGHT_STRUCT's var1 is the latency perf shows as "weight". */
	w = (smp->present & PMS_SAMPLE_WEIGHT_STRUCT) ? smp->weight_var1_dw : smp->weight;
	s->samples++;
	if ((rc = ctab_add(&s->t[T_IP], smp->ip, w)) < 0)
		return rc;
	if (smp->present & PMS_SAMPLE_DATA_SRC) {
		s->mem_samples++;
		if ((rc = ctab_add(&s->t[T_DSRC], smp->data_src, w)) < 0)
			return rc;
	}
	if (smp->present & PMS_SAMPLE_WEIGHT_TYPE) {
		s->weighted++;
		if ((rc = ctab_add(&s->t[T_WEIGHT], w, w)) < 0)
			return rc;
	}
	if (smp->present & PMS_SAMPLE_PHYS_ADDR)
		return ctab_add(&s->t[T_NODE], ev->node >= 0 ? (uint64_t)ev->node : ~UINT64_C(0), w);
	return 0;
}

uint64_t pms_perfdata_summary_samples(const struct pms_perfdata_summary *s)
{
	return s ? s->samples : 0;
}

uint64_t pms_perfdata_summary_mem_samples(const struct pms_perfdata_summary *s)
{
	return s ? s->mem_samples : 0;
}

static int by_samples(const void *a, const void *b)
{
	const struct pms_perfdata_summary_row *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int by_key(const void *a, const void *b)
{
	const struct pms_perfdata_summary_row *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* All rows of table t, sorted; the caller frees. */
static struct pms_perfdata_summary_row *all_rows(const struct ctab *t, bool keyed)
{
	struct pms_perfdata_summary_row *v = malloc((t->n ? t->n : 1) * sizeof(*v));
	size_t n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->samples[i])
			continue;
		v[n].key = t->keys[i];
		v[n].samples = t->samples[i];
		v[n].weight = t->weight[i];
		n++;
	}
	qsort(v, n, sizeof(*v), keyed ? by_key : by_samples);
	return v;
}

size_t pms_perfdata_summary_rows(const struct pms_perfdata_summary *s, int what,
				 struct pms_perfdata_summary_row *rows, size_t max)
{
	const struct ctab *t;
	struct pms_perfdata_summary_row *all;

	if (!s || what < 0 || what >= T_N)
		return 0;
	t = &s->t[what];
	if (!rows || !max || !t->n)
		return t->n;
	all = all_rows(t, what == T_WEIGHT);
	if (!all)
		return 0;
	memcpy(rows, all, (t->n < max ? t->n : max) * sizeof(*rows));
	free(all);
	return t->n;
}

uint64_t pms_perfdata_summary_weight_pct(const struct pms_perfdata_summary *s, double p)
{
	const struct ctab *t;
	struct pms_perfdata_summary_row *all;
	uint64_t rank, seen = 0, v = 0;

	if (!s || !s->weighted)
		return 0;
	t = &s->t[T_WEIGHT];
	all = all_rows(t, true);
	if (!all)
		return 0;
	if (p < 0)
		p = 0;
	if (p > 100)
		p = 100;
	/* Nearest rank: the smallest value with at least p% of samples at or
	 * below it. */
	rank = (uint64_t)(p / 100.0 * (double)s->weighted + 0.999999);
	if (rank == 0)
		rank = 1;
	for (size_t i = 0; i < t->n; i++) {
		seen += all[i].samples;
		v = all[i].key;
		if (seen >= rank)
			break;
	}
	free(all);
	return v;
}

void pms_perfdata_summary_free(struct pms_perfdata_summary *s)
{
	if (!s)
		return;
	for (int i = 0; i < T_N; i++) {
		free(s->t[i].keys);
		free(s->t[i].samples);
		free(s->t[i].weight);
	}
	free(s);
}
