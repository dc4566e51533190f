/* perf report's histogram by sort keys (pmuscope/sorthist.h): one table of
 * keys (perf's name, its column title, how a sample gives its text), moved
 * from the CLI (tools/report_sort.c keeps the printing), and the keys that
 * need the stream's side-band (comm, sym, dso, symbol_daddr) or the types
 * sink (type, typeoff, typecln). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "pmuscope/datasrc.h"
#include "pmuscope/symtrack.h"
#include "session/sorthist_int.h"
#include "util/error.h"
#include "util/grow.h"

struct ctx {
	struct pms_sorthist *h;
	const struct pms_memsrc_sample *x;
	const struct pms_type_hit *hit;
};

typedef void (*key_fn)(const struct ctx *c, char *b, size_t n);

struct comm {
	uint32_t tid;
	char name[24];
};

struct row {
	char *text; /* the key values joined by '\t' */
	uint64_t samples, period;
};

struct sort_key {
	const char *name;  /* as perf's -s takes it */
	const char *title; /* the column title */
	key_fn fn;
	unsigned needs;    /* NEED_* */
};
#define NEED_TYPES 1u
#define NEED_NAMES 2u
#define NEED_COMM 4u

struct pms_sorthist {
	const struct sort_key *sel[PMS_SORTHIST_MAXKEYS];
	size_t nsel;
	unsigned needs;
	struct row *rows; /* open addressing on text; sorted by the result */
	size_t cap, n;
	bool sorted;
	struct pms_sorthist_row *out;
	uint64_t samples, period;
	/* the side-band's names */
	bool bound;
	struct pms_symtrack *st;
	struct comm *comms; /* by tid, in arrival order (a tid's last wins) */
	size_t ncomms, capcomms;
};

/* ---- the keys ------------------------------------------------------------ */

static void k_tgid(const struct ctx *c, char *b, size_t n)
{
	snprintf(b, n, "%" PRIu32, c->x->ms.pid);
}

static void k_tid(const struct ctx *c, char *b, size_t n)
{
	snprintf(b, n, "%" PRIu32, c->x->ms.tid);
}

static void k_cpu(const struct ctx *c, char *b, size_t n)
{
	if (c->x->ms.valid & PMS_MS_CPU)
		snprintf(b, n, "%03" PRIu32, c->x->ms.cpu);
	else
		snprintf(b, n, "-001"); /* perf's "no CPU in the sample" */
}

/* A sample without a data source has the kernel's default, every field
 * N/A (perf_sample_data_init: PERF_MEM_NA), as perf shows it. */
static uint64_t dsrc(const struct ctx *c)
{
	if (c->x->ms.valid & PMS_MS_DATA_SRC)
		return c->x->ms.data_src;
	return PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) |
	       PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA);
}

static void k_mem(const struct ctx *c, char *b, size_t n)
{
	pms_datasrc_format_mem(dsrc(c), b, n);
}

static void k_snoop(const struct ctx *c, char *b, size_t n)
{
	pms_datasrc_format_snoop(dsrc(c), b, n);
}

static void k_tlb(const struct ctx *c, char *b, size_t n)
{
	pms_datasrc_format_tlb(dsrc(c), b, n);
}

static void k_locked(const struct ctx *c, char *b, size_t n)
{
	pms_datasrc_format_lock(dsrc(c), b, n);
}

static void k_dcacheline(const struct ctx *c, char *b, size_t n)
{
	/* perf's cache line is 64 bytes unless the file says otherwise */
	snprintf(b, n, "0x%016" PRIx64, c->x->ms.addr & ~(uint64_t)63);
}

static void k_phys(const struct ctx *c, char *b, size_t n)
{
	snprintf(b, n, "0x%016" PRIx64, c->x->ms.phys_addr);
}

static void node_text(int node, char *b, size_t n)
{
	if (node >= 0)
		snprintf(b, n, "%d", node);
	else
		snprintf(b, n, "-");
}

static void k_memnode(const struct ctx *c, char *b, size_t n)
{
	node_text(c->x->mem_node, b, n);
}

static void k_node(const struct ctx *c, char *b, size_t n)
{
	node_text(c->x->cpu_node, b, n);
}

/* perf names a thread it has no COMM for ":tid" (thread__new). */
static void k_comm(const struct ctx *c, char *b, size_t n)
{
	const struct pms_sorthist *h = c->h;
	for (size_t i = h->ncomms; i-- > 0;)
		if (h->comms[i].tid == c->x->ms.tid) {
			snprintf(b, n, "%s", h->comms[i].name);
			return;
		}
	snprintf(b, n, ":%" PRIu32, c->x->ms.tid);
}

static bool kernel_ip(const struct ctx *c)
{
	return (c->x->ms.valid & PMS_MS_KERNEL_IP) != 0;
}

/* perf's _hist_entry__sym_snprintf: "[level] name", else the address (in
 * its module where one maps it) as "%-#.16llx" (no "0x" for 0); the level
 * is the sample's mode. */
static void sym_text(bool kernel, const struct pms_symtrack_name *nm, uint64_t addr, char *b,
		     size_t n)
{
	char lvl = kernel ? 'k' : '.';
	if (nm->sym)
		snprintf(b, n, "[%c] %s", lvl, nm->sym);
	else
		snprintf(b, n, "[%c] %#.16" PRIx64, lvl, nm->dso ? nm->map_ip : addr);
}

static void code_name(const struct ctx *c, struct pms_symtrack_name *nm)
{
	memset(nm, 0, sizeof(*nm));
	if (c->h->st && (c->x->ms.valid & PMS_MS_IP))
		(void)pms_symtrack_code(c->h->st, c->x->ms.pid, c->x->ms.ip, kernel_ip(c), false,
					nm);
}

static void k_sym(const struct ctx *c, char *b, size_t n)
{
	struct pms_symtrack_name nm;
	code_name(c, &nm);
	sym_text(kernel_ip(c), &nm, c->x->ms.ip, b, n);
}

/* perf's dso__short_name: the file's base name; "[unknown]" unmapped. */
static void k_dso(const struct ctx *c, char *b, size_t n)
{
	struct pms_symtrack_name nm;
	code_name(c, &nm);
	const char *d = nm.dso;
	if (!d) {
		snprintf(b, n, "[unknown]");
		return;
	}
	const char *base = d[0] == '[' ? NULL : strrchr(d, '/');
	snprintf(b, n, "%s", base ? base + 1 : d);
}

/* perf report --mem-mode names a data address by the function holding
 * it (an instruction fetch's fault); other addresses stay raw (perf 6.12
 * prints them so even where perf script names the object: not matched yet
 * for data objects, see docs/types.md). */
static void k_daddr(const struct ctx *c, char *b, size_t n)
{
	struct pms_symtrack_name nm;
	memset(&nm, 0, sizeof(nm));
	uint64_t a = c->x->ms.addr;
	if (c->h->st && (c->x->ms.valid & PMS_MS_ADDR))
		(void)pms_symtrack_data(c->h->st, c->x->ms.pid, a, &nm);
	nm.dso = NULL; /* perf prints the raw address */
	sym_text(kernel_ip(c), &nm, a, b, n);
}

static void k_type(const struct ctx *c, char *b, size_t n)
{
	struct pms_type_hit none = { .status = PMS_TYPE_NO_BINARY };
	pms_type_hit_key(c->hit ? c->hit : &none, PMS_TYPE_KEY_TYPE, b, n);
}

static void k_typeoff(const struct ctx *c, char *b, size_t n)
{
	struct pms_type_hit none = { .status = PMS_TYPE_NO_BINARY };
	pms_type_hit_key(c->hit ? c->hit : &none, PMS_TYPE_KEY_TYPEOFF, b, n);
}

static void k_typecln(const struct ctx *c, char *b, size_t n)
{
	struct pms_type_hit none = { .status = PMS_TYPE_NO_BINARY };
	pms_type_hit_key(c->hit ? c->hit : &none, PMS_TYPE_KEY_TYPECLN, b, n);
}

static const struct sort_key keys[] = {
	{ "pid", "Pid", k_tid, 0 }, /* perf's pid key is the thread */
	{ "tid", "Tid", k_tid, 0 },
	{ "tgid", "Tgid", k_tgid, 0 },
	{ "cpu", "CPU", k_cpu, 0 },
	{ "mem", "Memory access", k_mem, 0 },
	{ "snoop", "Snoop", k_snoop, 0 },
	{ "tlb", "TLB access", k_tlb, 0 },
	{ "locked", "Locked", k_locked, 0 },
	{ "dcacheline", "Data Cacheline", k_dcacheline, 0 },
	{ "phys_daddr", "Data Physical Address", k_phys, 0 },
	{ "node", "CPU node", k_node, 0 },
	{ "memnode", "Memory node", k_memnode, 0 },
	{ "comm", "Command", k_comm, NEED_COMM },
	{ "sym", "Symbol", k_sym, NEED_NAMES },
	{ "dso", "Shared Object", k_dso, NEED_NAMES },
	{ "symbol_daddr", "Data Symbol", k_daddr, NEED_NAMES },
	{ "type", "Data Type", k_type, NEED_TYPES },
	{ "typeoff", "Data Type Offset", k_typeoff, NEED_TYPES },
	{ "typecln", "Data Type Cacheline", k_typecln, NEED_TYPES },
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

int pms_sorthist_new(const char *list, struct pms_sorthist **out)
{
	char buf[256], names[512];
	size_t len = 0;
	*out = NULL;
	for (size_t i = 0; i < NKEYS && len < sizeof(names); i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
					keys[i].name);
	struct pms_sorthist *h = calloc(1, sizeof(*h));
	if (!h)
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	snprintf(buf, sizeof(buf), "%s", list ? list : "");
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct sort_key *k = NULL;
		for (size_t i = 0; i < NKEYS && !k; i++)
			if (!strcmp(keys[i].name, t))
				k = &keys[i];
		if (!k || h->nsel == PMS_SORTHIST_MAXKEYS) {
			free(h);
			return pms_err(PMS_EINVAL, "sort key '%s' %s; the keys: %s", t,
				       !k ? "is unknown" : "is one too many", names);
		}
		h->sel[h->nsel++] = k;
		h->needs |= k->needs;
	}
	if (!h->nsel) {
		free(h);
		return pms_err(PMS_EINVAL, "no sort key");
	}
	*out = h;
	return 0;
}

void pms_sorthist_free(struct pms_sorthist *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->cap; i++)
		free(h->rows[i].text);
	free(h->rows);
	free(h->out);
	free(h->comms);
	pms_symtrack_free(h->st);
	free(h);
}

/* ---- feeding ------------------------------------------------------------- */

bool sorthist_wants_types(const struct pms_sorthist *h)
{
	return (h->needs & NEED_TYPES) != 0;
}

void sorthist_bind(struct pms_sorthist *h, struct pms_sys *sys,
		   const struct pms_perfdata_info *info)
{
	if (h->bound)
		return;
	h->bound = true;
	/* no names without the seam: the keys print perf's unresolved text */
	if ((h->needs & NEED_NAMES) && sys && pms_symtrack_new(sys, info, &h->st) < 0)
		h->st = NULL;
}

static int comm_set(struct pms_sorthist *h, uint32_t tid, const char *name)
{
	for (size_t i = 0; i < h->ncomms; i++)
		if (h->comms[i].tid == tid) {
			snprintf(h->comms[i].name, sizeof(h->comms[i].name), "%s", name);
			return 0;
		}
	int rc = pms_grow(&h->comms, &h->capcomms, h->ncomms + 1, sizeof(*h->comms), 16,
			  "sort: threads");
	if (rc < 0)
		return rc;
	struct comm *c = &h->comms[h->ncomms++];
	c->tid = tid;
	snprintf(c->name, sizeof(c->name), "%s", name);
	return 0;
}

int sorthist_sideband(struct pms_sorthist *h, const struct pms_record *rec)
{
	int rc = 0;
	if (h->st)
		rc = pms_symtrack_record(h->st, rec);
	if (rc < 0 || !(h->needs & NEED_COMM))
		return rc;
	if (rec->type == PMS_RECORD_COMM && rec->comm.comm)
		return comm_set(h, rec->comm.tid, rec->comm.comm);
	if (rec->type == PMS_RECORD_FORK) {
		/* a new thread starts with its parent's name (perf's thread__fork) */
		for (size_t i = h->ncomms; i-- > 0;)
			if (h->comms[i].tid == rec->fork.ptid) {
				char name[24];
				memcpy(name, h->comms[i].name, sizeof(name));
				return comm_set(h, rec->fork.tid, name);
			}
	}
	return 0;
}

static uint64_t hash(const char *t)
{
	uint64_t v = 1469598103934665603ull;
	for (; *t; t++)
		v = (v ^ (unsigned char)*t) * 1099511628211ull;
	return v;
}

static struct row *slot(struct pms_sorthist *h, const char *text)
{
	if (h->n * 2 >= h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 256;
		struct row *nr = calloc(nc, sizeof(*nr));
		if (!nr)
			return NULL;
		for (size_t i = 0; i < h->cap; i++) {
			if (!h->rows[i].text)
				continue;
			size_t j = hash(h->rows[i].text) & (nc - 1);
			while (nr[j].text)
				j = (j + 1) & (nc - 1);
			nr[j] = h->rows[i];
		}
		free(h->rows);
		h->rows = nr;
		h->cap = nc;
	}
	size_t j = hash(text) & (h->cap - 1);
	while (h->rows[j].text && strcmp(h->rows[j].text, text))
		j = (j + 1) & (h->cap - 1);
	if (!h->rows[j].text) {
		if (!(h->rows[j].text = strdup(text)))
			return NULL;
		h->n++;
	}
	return &h->rows[j];
}

int sorthist_sample(struct pms_sorthist *h, const struct pms_memsrc_sample *x,
		    const struct pms_type_hit *hit)
{
	char text[1024], v[512];
	size_t len = 0;
	const struct ctx c = { h, x, hit };
	for (size_t i = 0; i < h->nsel; i++) {
		h->sel[i]->fn(&c, v, sizeof(v));
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s", i ? "\t" : "", v);
		if (len >= sizeof(text))
			len = sizeof(text) - 1;
	}
	struct row *r = slot(h, text);
	if (!r)
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	uint64_t period = x->ms.period ? x->ms.period : 1;
	r->samples++;
	r->period += period;
	h->samples++;
	h->period += period;
	return 0;
}

/* ---- the result ------------------------------------------------------------ */

static int row_cmp(const void *a, const void *b)
{
	const struct pms_sorthist_row *x = a, *y = b;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return strcmp(x->text, y->text);
}

int pms_sorthist_result(struct pms_sorthist *h, struct pms_sorthist_result *out)
{
	memset(out, 0, sizeof(*out));
	free(h->out);
	if (!(h->out = calloc(h->n ? h->n : 1, sizeof(*h->out))))
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	size_t k = 0;
	for (size_t i = 0; i < h->cap; i++)
		if (h->rows[i].text)
			h->out[k++] = (struct pms_sorthist_row){ h->rows[i].text, h->rows[i].samples,
								 h->rows[i].period };
	if (k)
		qsort(h->out, k, sizeof(*h->out), row_cmp);
	out->rows = h->out;
	out->n_rows = k;
	for (size_t i = 0; i < h->nsel; i++)
		out->titles[i] = h->sel[i]->title;
	out->nkeys = h->nsel;
	out->samples = h->samples;
	out->period = h->period;
	return 0;
}
