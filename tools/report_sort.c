/* report --sort / -s: perf report's histogram of samples by sort keys
 * (issue 30 item 4).  One table of keys below: a key is a row (its name as
 * perf spells it, its column title, how a sample gives its value), so a
 * key that lands later (type, typeoff, typecln, object, sym, dso) is one
 * row.  Rows are ordered as perf orders them: by overhead (the samples'
 * periods), then by the key text. */
#include "report_sort.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_opt.h"
#include "pmuscope/datasrc.h"

#include <linux/perf_event.h>

typedef void (*key_fn)(const struct pms_memsrc_sample *x, char *buf, size_t size);

static void k_tgid(const struct pms_memsrc_sample *x, char *b, size_t n)
{
	snprintf(b, n, "%" PRIu32, x->ms.pid);
}

static void k_tid(const struct pms_memsrc_sample *x, char *b, size_t n)
{
	snprintf(b, n, "%" PRIu32, x->ms.tid);
}

static void k_cpu(const struct pms_memsrc_sample *x, char *b, size_t n)
{
	if (x->ms.valid & PMS_MS_CPU)
		snprintf(b, n, "%03" PRIu32, x->ms.cpu);
	else
		snprintf(b, n, "-001"); /* perf's "no CPU in the sample" */
}

/* A sample without a data source has the kernel's default, every field
 * N/A (perf_sample_data_init: PERF_MEM_NA), as perf shows it. */
static uint64_t dsrc(const struct pms_memsrc_sample *x)
{
	if (x->ms.valid & PMS_MS_DATA_SRC)
		return x->ms.data_src;
	return PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) |
	       PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA);
}

static void k_mem(const struct pms_memsrc_sample *x, char *b, size_t n)
{
	pms_datasrc_format_mem(dsrc(x), b, n);
}

static void k_snoop(const struct pms_memsrc_sample *x, char *b, size_t n)
{
	pms_datasrc_format_snoop(dsrc(x), b, n);
}

static void k_tlb(const struct pms_memsrc_sample *x, char *b, size_t n)
{
	pms_datasrc_format_tlb(dsrc(x), b, n);
}

static void k_locked(const struct pms_memsrc_sample *x, char *b, size_t n)
{
	pms_datasrc_format_lock(dsrc(x), b, n);
}

static void k_dcacheline(const struct pms_memsrc_sample *x, char *b, size_t n)
{
	/* perf's cache line is 64 bytes unless the file says otherwise */
	snprintf(b, n, "0x%016" PRIx64, x->ms.addr & ~(uint64_t)63);
}

static void k_phys(const struct pms_memsrc_sample *x, char *b, size_t n)
{
	snprintf(b, n, "0x%016" PRIx64, x->ms.phys_addr);
}

static void node_text(int node, char *b, size_t n)
{
	if (node >= 0)
		snprintf(b, n, "%d", node);
	else
		snprintf(b, n, "-");
}

static void k_memnode(const struct pms_memsrc_sample *x, char *b, size_t n)
{
	node_text(x->mem_node, b, n);
}

static void k_node(const struct pms_memsrc_sample *x, char *b, size_t n)
{
	node_text(x->cpu_node, b, n);
}

static const struct sort_key {
	const char *name;  /* as perf's -s takes it */
	const char *title; /* the column title */
	key_fn fn;         /* NULL: not yet (says so) */
} keys[] = {
	{ "pid", "Pid", k_tid }, /* perf's pid key is the thread */
	{ "tid", "Tid", k_tid },
	{ "tgid", "Tgid", k_tgid },
	{ "cpu", "CPU", k_cpu },
	{ "mem", "Memory access", k_mem },
	{ "snoop", "Snoop", k_snoop },
	{ "tlb", "TLB access", k_tlb },
	{ "locked", "Locked", k_locked },
	{ "dcacheline", "Data Cacheline", k_dcacheline },
	{ "phys_daddr", "Data Physical Address", k_phys },
	{ "node", "CPU node", k_node },
	{ "memnode", "Memory node", k_memnode },
	{ "comm", "Command", NULL },
	{ "sym", "Symbol", NULL },
	{ "dso", "Shared Object", NULL },
	{ "symbol_daddr", "Data Symbol", NULL },
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))
#define MAXSEL 8

struct row {
	char *text; /* the key values joined by '\t' */
	uint64_t samples, period;
};

struct report_sort {
	const struct sort_key *sel[MAXSEL];
	size_t nsel;
	struct row *rows; /* open addressing on text */
	size_t cap, n;
	uint64_t samples, period;
	bool oom;
};

int report_sort_new(const char *list, struct report_sort **out, char *err, size_t errsz)
{
	struct report_sort *s = calloc(1, sizeof(*s));
	char buf[256];
	*out = NULL;
	if (!s) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct sort_key *k = NULL;
		for (size_t i = 0; i < NKEYS && !k; i++)
			if (!strcmp(keys[i].name, t))
				k = &keys[i];
		if (!k || !k->fn || s->nsel == MAXSEL) {
			size_t len = (size_t)snprintf(err, errsz, "sort key '%s' %s; the keys: ", t,
						      !k ? "is unknown" : !k->fn ? "is not there yet"
										 : "is one too many");
			for (size_t i = 0; i < NKEYS && len < errsz; i++)
				if (keys[i].fn)
					len += (size_t)snprintf(err + len, errsz - len, "%s%s",
								i ? ", " : "", keys[i].name);
			free(s);
			return -1;
		}
		s->sel[s->nsel++] = k;
	}
	if (!s->nsel) {
		snprintf(err, errsz, "no sort key");
		free(s);
		return -1;
	}
	*out = s;
	return 0;
}

static uint64_t hash(const char *t)
{
	uint64_t h = 1469598103934665603ull;
	for (; *t; t++)
		h = (h ^ (unsigned char)*t) * 1099511628211ull;
	return h;
}

static struct row *slot(struct report_sort *s, const char *text)
{
	if (s->n * 2 >= s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 256;
		struct row *nr = calloc(nc, sizeof(*nr));
		if (!nr)
			return NULL;
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->rows[i].text)
				continue;
			size_t j = hash(s->rows[i].text) & (nc - 1);
			while (nr[j].text)
				j = (j + 1) & (nc - 1);
			nr[j] = s->rows[i];
		}
		free(s->rows);
		s->rows = nr;
		s->cap = nc;
	}
	size_t j = hash(text) & (s->cap - 1);
	while (s->rows[j].text && strcmp(s->rows[j].text, text))
		j = (j + 1) & (s->cap - 1);
	if (!s->rows[j].text) {
		if (!(s->rows[j].text = strdup(text)))
			return NULL;
		s->n++;
	}
	return &s->rows[j];
}

int report_sort_add(void *ud, const struct pms_memsrc_sample *x)
{
	struct report_sort *s = ud;
	char text[1024], v[256];
	size_t len = 0;
	for (size_t i = 0; i < s->nsel; i++) {
		s->sel[i]->fn(x, v, sizeof(v));
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s", i ? "\t" : "", v);
		if (len >= sizeof(text))
			len = sizeof(text) - 1;
	}
	struct row *r = slot(s, text);
	if (!r) {
		s->oom = true;
		return -1;
	}
	uint64_t period = x->ms.period ? x->ms.period : 1;
	r->samples++;
	r->period += period;
	s->samples++;
	s->period += period;
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return strcmp(x->text, y->text);
}

void report_sort_print(struct report_sort *s, bool nr, double percent_limit, FILE *f)
{
	size_t k = 0;
	for (size_t i = 0; i < s->cap; i++)
		if (s->rows[i].text)
			s->rows[k++] = s->rows[i];
	s->cap = k; /* the table is a sorted array from here */
	qsort(s->rows, k, sizeof(*s->rows), row_cmp);
	fprintf(f, "# Samples: %" PRIu64 "  Event count (approx.): %" PRIu64 "\n#\n# Overhead",
		s->samples, s->period);
	if (nr)
		fprintf(f, "       Samples");
	for (size_t i = 0; i < s->nsel; i++)
		fprintf(f, "  %s", s->sel[i]->title);
	fprintf(f, "\n#\n");
	size_t hidden = 0;
	for (size_t i = 0; i < k; i++) {
		const struct row *r = &s->rows[i];
		double pct = s->period ? 100.0 * (double)r->period / (double)s->period : 0;
		if (pct < percent_limit) {
			hidden++;
			continue;
		}
		fprintf(f, "  %7.2f%%", pct);
		if (nr)
			fprintf(f, "  %12" PRIu64, r->samples);
		const char *t = r->text;
		while (t) {
			const char *tab = strchr(t, '\t');
			fprintf(f, "  %.*s", tab ? (int)(tab - t) : (int)strlen(t), t);
			t = tab ? tab + 1 : NULL;
		}
		fputc('\n', f);
	}
	if (hidden && cli_verbosity >= 0)
		fprintf(f, "#\n# %zu rows under --percent-limit %.2f%% not shown\n", hidden,
			percent_limit);
}

bool report_sort_failed(const struct report_sort *s)
{
	return s && s->oom;
}

void report_sort_free(struct report_sort *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->cap; i++)
		free(s->rows[i].text);
	free(s->rows);
	free(s);
}
