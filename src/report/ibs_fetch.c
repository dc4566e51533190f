/* The front-end view of a recorded file's AMD IBS fetch samples
 * (pmuscope/ibsfetch.h): each sample decoded under the driver's and perf's
 * valid-bit rules (decode/ibs_fetch.c), named by function or source line
 * through the file's MMAP/MMAP2 records (a forked child starts with its
 * parent's mappings), and counted per row: fetch latency over completed
 * fetches, iTLB level, page size where PhyAddrValid, instruction-cache
 * miss, and the L2/L3 misses where the fields are valid.  Kernel IPs are
 * named under the file's kernel rule, which the session gives
 * (fetchview_int.h; session/session_fetch.c), as report names them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/fetchview.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"
#include "pmuscope/symbols.h"
#include "decode/kaddr.h"
#include "report/fetchview_int.h"
#include "util/error.h"
#include "util/grow.h"

#define PROT_EXEC_BIT 4 /* include/uapi/asm-generic/mman-common.h PROT_EXEC */

struct fsample {
	uint32_t pid;
	bool kernel;
	struct pms_ibs_fetch f;
};

struct proc {
	uint32_t pid;
	struct pms_maps *maps;
};

/* The public view's body (opaque in pmuscope/fetchview.h). */
struct pms_ibs_fetch_view {
	struct pms_ibs_fetch_row *rows; /* by samples, descending */
	size_t nrows;
	struct pms_ibs_fetch_row total; /* every sample (func "total") */
	uint64_t dropped;  /* samples the driver would have dropped (not counted) */
	uint64_t bad;      /* fetch samples without a fetch RAW payload */
	const char *cpuid; /* the file's HEADER_CPUID */
};

struct build {
	struct fsample *s;
	size_t ns, scap;
	struct proc *p;
	size_t np, pcap;
	struct pms_ibs_fetch_view *v;
	size_t rcap;
	/* row index by key: open addressing, size a power of two */
	size_t *slot;
	size_t nslot;
	/* the fetch event and its CPU (setup) */
	bool setup;
	uint32_t fetch_type;
	struct pms_ibs_cpu cpu;
};

static struct proc *proc_get(struct build *b, uint32_t pid, bool create)
{
	for (size_t i = 0; i < b->np; i++)
		if (b->p[i].pid == pid)
			return &b->p[i];
	if (!create || pms_grow(&b->p, &b->pcap, b->np + 1, sizeof(*b->p), 16, "fetch view") < 0)
		return NULL;
	b->p[b->np].pid = pid;
	if (pms_maps_new(&b->p[b->np].maps) < 0)
		return NULL;
	return &b->p[b->np++];
}

static int on_mmap(struct build *b, const struct pms_record *r)
{
	const struct pms_rec_mmap *m = &r->mmap;
	bool exec = r->type == PMS_RECORD_MMAP2 ? (m->prot & PROT_EXEC_BIT) != 0
						 : !(r->misc & PMS_MISC_MMAP_DATA);
	struct proc *p;
	/* file mappings, executable or not: the symbolizer finds a module's
	 * load bias from its first (offset 0, read-only) segment */
	if (m->pid == (uint32_t)-1 || !m->filename || m->filename[0] != '/')
		return 0;
	if (!(p = proc_get(b, m->pid, true)))
		return PMS_ENOMEM;
	return pms_maps_add(p->maps, m->addr, m->len, m->pgoff, m->ino, exec, m->filename);
}

static int on_fork(struct build *b, const struct pms_rec_fork *f)
{
	struct proc *parent, *child;
	if (f->pid == f->ppid || !proc_get(b, f->ppid, false))
		return 0;
	if (!(child = proc_get(b, f->pid, true)))
		return PMS_ENOMEM;
	parent = proc_get(b, f->ppid, false); /* child may have moved the array */
	for (size_t i = 0; i < parent->maps->n; i++) {
		const struct pms_map *m = &parent->maps->v[i];
		int rc = pms_maps_add(child->maps, m->start, m->end - m->start, m->pgoff, m->ino,
				      m->exec, m->path);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static size_t hash_key(const char *a, const char *b, int line)
{
	uint64_t h = 1469598103934665603ULL;
	for (const char *s = a; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (const char *s = b; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)(h ^ (uint64_t)(unsigned)line);
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int rehash(struct build *b, size_t nslot)
{
	size_t *slot = malloc(nslot * sizeof(*slot));
	if (!slot)
		return pms_err(PMS_ENOMEM, "fetch view: no memory for the row index");
	for (size_t i = 0; i < nslot; i++)
		slot[i] = (size_t)-1;
	for (size_t r = 0; r < b->v->nrows; r++) {
		const struct pms_ibs_fetch_row *w = &b->v->rows[r];
		size_t h = hash_key(w->func, w->file ? w->file : w->module, w->line) & (nslot - 1);
		while (slot[h] != (size_t)-1)
			h = (h + 1) & (nslot - 1);
		slot[h] = r;
	}
	free(b->slot);
	b->slot = slot;
	b->nslot = nslot;
	return 0;
}

/* The row of (func, module) or (file, line); created empty. */
static struct pms_ibs_fetch_row *row_get(struct build *b, const char *func, const char *module,
					 const char *file, int line)
{
	struct pms_ibs_fetch_view *v = b->v;
	struct pms_ibs_fetch_row *w;
	size_t h;

	if ((v->nrows + 1) * 2 > b->nslot && rehash(b, b->nslot ? b->nslot * 2 : 64) < 0)
		return NULL;
	h = hash_key(func, file ? file : module, line) & (b->nslot - 1);
	for (; b->slot[h] != (size_t)-1; h = (h + 1) & (b->nslot - 1)) {
		w = &v->rows[b->slot[h]];
		if (same(w->func, func) && same(w->file, file) && w->line == line &&
		    (file || same(w->module, module)))
			return w;
	}
	if (pms_grow(&v->rows, &b->rcap, v->nrows + 1, sizeof(*v->rows), 64, "fetch view") < 0)
		return NULL;
	w = &v->rows[v->nrows];
	memset(w, 0, sizeof(*w));
	w->func = strdup(func);
	w->module = strdup(module);
	w->file = file ? strdup(file) : NULL;
	w->line = line;
	if (!w->func || !w->module || (file && !w->file)) {
		free((char *)w->func);
		free((char *)w->module);
		free((char *)w->file);
		pms_err(PMS_ENOMEM, "fetch view: no memory for a row");
		return NULL;
	}
	b->slot[h] = v->nrows++;
	return w;
}

static void count(struct pms_ibs_fetch_row *w, const struct pms_ibs_fetch *f)
{
	w->samples++;
	if (f->comp) {
		w->completed++;
		w->lat_sum += f->lat;
	}
	w->ic_known += f->ic_miss_known;
	w->ic_miss += f->ic_miss;
	w->itlb[f->itlb]++;
	if (f->pgsz_known) {
		w->pgsz_known++;
		w->pgsz_4k += f->pgsz_kib == 4;
		w->pgsz_16k += f->pgsz_kib == 16;
		w->pgsz_2m += f->pgsz_kib == 2048;
		w->pgsz_1g += f->pgsz_kib == 1048576;
	}
	w->l2_known += f->l2_known;
	w->l2_miss += f->l2_miss;
	if (f->l3_known) {
		w->l3_known++;
		w->l3_miss += f->l3_miss;
		w->oc_miss += f->oc_miss;
	}
	/* IcIbsExtdCtl's refill latency means something after an L1 miss */
	if (f->itlb_lat_known && f->itlb != PMS_ITLB_L1_HIT) {
		w->itlb_lat_n++;
		w->itlb_lat_sum += f->itlb_refill_lat;
	}
}

/* The file's fetch event and the CPU its registers are read for, from its
 * header (pipe mode: the HEADER_ATTR and HEADER_FEATURE records read by its
 * first sample). */
static int setup(struct build *b, struct pms_perfdata_reader *rd)
{
	const struct pms_perfdata_info *info = pms_perfdata_reader_info(rd);
	bool have = false;
	int rc;
	b->setup = true;
	for (size_t i = 0; i < info->npmu; i++)
		if (info->pmu[i].name && !strcmp(info->pmu[i].name, "ibs_fetch"))
			b->fetch_type = info->pmu[i].type;
	for (size_t i = 0; b->fetch_type && i < pms_perfdata_reader_nattrs(rd); i++)
		have |= pms_perfdata_reader_attr(rd, i)->attr->type == b->fetch_type;
	if (!have)
		return pms_err(PMS_ENOENT, "the file has no ibs_fetch event (PMU_MAPPINGS names no "
					   "ibs_fetch PMU, or no event is on it)");
	if ((rc = pms_ibs_cpu_from_cpuid(info->cpuid ? info->cpuid : "", 0, &b->cpu)) < 0) {
		char why[256];
		snprintf(why, sizeof(why), "%s", pms_error_last());
		return pms_err(PMS_EPARSE, "ibs_fetch file: %s", why);
	}
	if (!(b->v->cpuid = info->cpuid ? strdup(info->cpuid) : NULL) && info->cpuid)
		return pms_err(PMS_ENOMEM, "fetch view: no memory");
	return 0;
}

/* Pass 1: the fetch samples decoded, the mappings by process, read in
 * perf's order as the session reads them; the file's kernel judged at its
 * first sample that may hold a kernel address, of any event
 * (decode/kaddr.h): the session's point, so report's judgment (a pipe
 * file's build ids read by then, the same). */
static int collect(struct build *b, struct pms_perfdata_reader *rd,
		   const struct fetch_kernel_rule *k)
{
	struct pms_perfdata_ordered *oq = NULL;
	struct pms_perfdata_event ev;
	bool judged = false;
	int rc;

	if ((rc = pms_perfdata_ordered_new(rd, &oq)) < 0)
		return rc;
	while ((rc = pms_perfdata_ordered_next(oq, &ev)) > 0) {
		const struct pms_record *r = &ev.rec;
		if (r->type == PMS_RECORD_SAMPLE && !judged && kaddr_in_sample(&r->sample)) {
			judged = true;
			k->kernel_judge(k->ud, pms_perfdata_reader_info(rd));
		}
		if (r->type == PMS_RECORD_SAMPLE && !b->setup && (rc = setup(b, rd)) < 0)
			break;
		if (r->type == PMS_RECORD_MMAP || r->type == PMS_RECORD_MMAP2) {
			/* the kernel's and its modules' to the rule, the
			 * processes' here */
			if ((rc = k->kernel_mmap(k->ud, r)) >= 0)
				rc = on_mmap(b, r);
		}
		else if (r->type == PMS_RECORD_FORK)
			rc = on_fork(b, &r->fork);
		else if (r->type == PMS_RECORD_SAMPLE && ev.attr->attr->type == b->fetch_type) {
			struct fsample s = { 0 };
			if (!(r->sample.present & PMS_SAMPLE_RAW)) {
				b->v->bad++;
				continue;
			}
			rc = pms_ibs_fetch_decode(r->sample.raw, r->sample.raw_size, &b->cpu, &s.f);
			pms_error_clear();
			if (rc == PMS_ENOENT) {
				b->v->dropped++;
				continue;
			}
			if (rc < 0) {
				b->v->bad++;
				continue;
			}
			s.pid = r->sample.pid;
			s.kernel = r->sample.cpumode == PMS_MISC_KERNEL;
			if ((rc = pms_grow(&b->s, &b->scap, b->ns + 1, sizeof(*b->s), 256,
					   "fetch view")) < 0)
				break;
			b->s[b->ns++] = s;
		}
		if (rc < 0)
			break;
	}
	pms_perfdata_ordered_free(oq);
	/* a pipe file without samples: its header says why there are none */
	return rc < 0 || b->setup ? rc : setup(b, rd);
}

/* Pass 2: each sample named and counted; kernel IPs under the file's
 * kernel rule, "[kernel]" where it leaves them unnamed (as report's rows). */
static int name_and_count(struct build *b, struct pms_sys *sys, bool by_line,
			  const struct pms_perfdata_info *info, const struct fetch_kernel_rule *k)
{
	struct pms_maps *none = NULL;
	struct pms_symbolizer *sym = NULL;
	bool knamed = false;
	int rc = pms_maps_new(&none);

	if (rc == 0)
		rc = pms_symbolizer_new(sys, none, &sym);
	if (rc == 0)
		knamed = k->kernel_named(k->ud, info, sym);
	for (size_t i = 0; rc == 0 && i < b->np; i++)
		rc = pms_symbolizer_add_process(sym, (pid_t)b->p[i].pid, b->p[i].maps);
	for (size_t i = 0; rc == 0 && i < b->ns; i++) {
		const struct fsample *s = &b->s[i];
		struct pms_symbol y;
		struct pms_ibs_fetch_row *w;
		memset(&y, 0, sizeof(y));
		if ((!s->kernel || knamed) &&
		    pms_symbolizer_code_pid(sym, (pid_t)s->pid, s->f.ip, s->kernel, by_line, &y) < 0)
			pms_error_clear();
		w = row_get(b, y.func ? y.func : (s->kernel ? "[kernel]" : "[unknown]"),
			    y.module ? y.module : "",
			    by_line ? (y.file ? y.file : "[unknown]") : NULL, by_line ? y.line : 0);
		if (!w) {
			rc = PMS_ENOMEM;
			break;
		}
		count(w, &s->f);
		count(&b->v->total, &s->f);
	}
	pms_symbolizer_free(sym);
	pms_maps_free(none);
	return rc;
}

static int by_samples(const void *a, const void *b)
{
	const struct pms_ibs_fetch_row *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->func, y->func);
}

int ibs_fetch_view_read(struct pms_sys *sys, int fd, bool by_line,
			const struct fetch_kernel_rule *k, struct pms_ibs_fetch_view **out)
{
	struct pms_perfdata_reader *rd = NULL;
	struct build b;
	int rc;

	if (!sys || !out || !k)
		return pms_err(PMS_EINVAL, "pms_ibs_fetch_view_file: NULL argument");
	*out = NULL;
	memset(&b, 0, sizeof(b));
	if ((rc = pms_perfdata_reader_open_fd(fd, &rd)) < 0)
		return rc;
	if (!(b.v = calloc(1, sizeof(*b.v)))) {
		rc = pms_err(PMS_ENOMEM, "fetch view: no memory");
		goto out;
	}
	b.v->total.func = "total";
	b.v->total.module = "";
	/* a file's header is read now; a pipe's comes in-stream, before its
	 * first sample */
	if (!pms_perfdata_reader_is_pipe(rd) && (rc = setup(&b, rd)) < 0)
		goto out;
	/* the module maps' build ids: those of the whole file, as report's */
	if ((rc = collect(&b, rd, k)) >= 0)
		rc = name_and_count(&b, sys, by_line, pms_perfdata_reader_info(rd), k);
	if (rc >= 0 && b.v->nrows)
		qsort(b.v->rows, b.v->nrows, sizeof(*b.v->rows), by_samples);
out:
	for (size_t i = 0; i < b.np; i++)
		pms_maps_free(b.p[i].maps);
	free(b.p);
	free(b.s);
	free(b.slot);
	pms_perfdata_reader_free(rd);
	if (rc < 0) {
		pms_ibs_fetch_view_free(b.v);
		return rc;
	}
	*out = b.v;
	return 0;
}

void pms_ibs_fetch_view_free(struct pms_ibs_fetch_view *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nrows; i++) {
		free((char *)v->rows[i].func);
		free((char *)v->rows[i].module);
		free((char *)v->rows[i].file);
	}
	free(v->rows);
	free((char *)v->cpuid);
	free(v);
}

size_t pms_ibs_fetch_view_count(const struct pms_ibs_fetch_view *v)
{
	return v ? v->nrows : 0;
}

const struct pms_ibs_fetch_row *pms_ibs_fetch_view_row(const struct pms_ibs_fetch_view *v,
						       size_t i)
{
	return v && i < v->nrows ? &v->rows[i] : NULL;
}

const struct pms_ibs_fetch_row *pms_ibs_fetch_view_total(const struct pms_ibs_fetch_view *v)
{
	return v ? &v->total : NULL;
}

uint64_t pms_ibs_fetch_view_dropped(const struct pms_ibs_fetch_view *v)
{
	return v ? v->dropped : 0;
}

uint64_t pms_ibs_fetch_view_bad(const struct pms_ibs_fetch_view *v)
{
	return v ? v->bad : 0;
}

const char *pms_ibs_fetch_view_cpuid(const struct pms_ibs_fetch_view *v)
{
	return v ? v->cpuid : NULL;
}
