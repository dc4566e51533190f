/* The kernel module maps of a session's files, for the symbolizer that
 * names their kernel IPs (session_int.h; kmodsym.h); the same per-file
 * kernel rule for the IBS fetch view (pms_ibs_fetch_view_file). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/fetchview.h"
#include "report/fetchview_int.h"
#include "session/session_int.h"
#include "session/symtrack_int.h"
#include "symbols/kmodsym.h"
#include "util/error.h"
#include "util/grow.h"

/* a file's chunks decode on several threads: one lock for the rare kernel
 * MMAP records of every session */
static pthread_mutex_t kmlock = PTHREAD_MUTEX_INITIALIZER;

/* The session's file of f (a chunk's: the file of its path), NULL: none. */
static struct sfile *session_file(struct pms_session *s, const struct sfile *f)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i].path == f->path)
			return &s->files[i];
	return NULL;
}

/* A kernel module MMAP of one file kept in km (the caller serializes). */
int kmod_maps_keep(struct kmod_maps *km, const struct pms_record *rec)
{
	const struct pms_rec_mmap *m = &rec->mmap;
	if ((rec->type != PMS_RECORD_MMAP && rec->type != PMS_RECORD_MMAP2) || !m->filename ||
	    !m->len ||
	    ((rec->misc & PMS_MISC_CPUMODE_MASK) != PMS_MISC_KERNEL && m->pid != UINT32_MAX))
		return 0;
	if (!strncmp(m->filename, "[kernel.kallsyms]", 17)) {
		km->kernel_mapped = true;
		return 0;
	}
	for (size_t i = 0; i < km->n; i++)
		if (km->v[i].start == m->addr && km->v[i].end == m->addr + m->len &&
		    !strcmp(km->v[i].path, m->filename))
			return 0;
	int rc = pms_grow(&km->v, &km->cap, km->n + 1, sizeof(*km->v), 8, "kernel modules");
	if (rc < 0)
		return rc;
	if (!(km->v[km->n].path = strdup(m->filename)))
		return pms_err(PMS_ENOMEM, "kernel modules: no memory");
	km->v[km->n].start = m->addr;
	km->v[km->n++].end = m->addr + m->len;
	return 0;
}

int sess_kmod_keep(struct pms_session *s, const struct sfile *f, const struct pms_record *rec)
{
	if ((rec->type != PMS_RECORD_MMAP && rec->type != PMS_RECORD_MMAP2) || !rec->mmap.filename)
		return 0;
	/* a chunk's file is the session's file of its path */
	struct sfile *sf = session_file(s, f);
	if (!sf)
		return 0;
	pthread_mutex_lock(&kmlock);
	int rc = kmod_maps_keep(&sf->kmaps, rec);
	pthread_mutex_unlock(&kmlock);
	return rc;
}

bool sess_kernel_judge(struct pms_session *s, const struct sfile *f)
{
	struct sfile *sf = session_file(s, f);
	const struct pms_perfdata_info *info = f->r ? pms_perfdata_reader_info(f->r) : NULL;
	bool here;
	pthread_mutex_lock(&kmlock);
	/* the first judgment holds (a file's chunks: the same header) */
	if (sf && sf->kjudged) {
		here = sf->khere;
	} else {
		here = info && symtrack_kernel_here(s->sys, info);
		/* no seam yet (pms_session_set_sys after the run): a merge
		 * leaves the kernel IPs unnamed, a file alone is judged at
		 * the report */
		if (sf && s->sys) {
			sf->kjudged = true;
			sf->khere = here;
		}
	}
	pthread_mutex_unlock(&kmlock);
	return here;
}

bool sess_file_kernel_here(struct pms_session *s, const struct sfile *f)
{
	if (f->kjudged)
		return f->khere;
	return f->r && symtrack_kernel_here(s->sys, pms_perfdata_reader_info(f->r));
}

static int by_start(const void *a, const void *b)
{
	const struct kmod_map *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* One file's module maps added to k, each .ko with the build id the file
 * (info) lists for it. */
void kmod_maps_add(struct pms_kmods *k, struct kmod_maps *km, const struct pms_perfdata_info *info)
{
	/* chunks keep them in any order: one order for every run */
	if (km->n > 1)
		qsort(km->v, km->n, sizeof(*km->v), by_start);
	for (size_t i = 0; i < km->n; i++) {
		const struct pms_perfdata_build_id *b = symtrack_listed_id(info, km->v[i].path);
		if (pms_kmods_add(k, km->v[i].start, km->v[i].end, km->v[i].path, b ? b->id : NULL,
				  b ? (b->size && b->size <= 20 ? b->size : 20) : 0) < 0)
			pms_error_clear();
	}
}

void kmod_maps_free(struct kmod_maps *km)
{
	for (size_t i = 0; i < km->n; i++)
		free(km->v[i].path);
	free(km->v);
	memset(km, 0, sizeof(*km));
}

void sess_kmods_apply(struct pms_session *s)
{
	bool mapped = false;
	for (size_t i = 0; i < s->nfiles; i++)
		mapped |= s->files[i].kmaps.kernel_mapped || s->files[i].kmaps.n;
	if (!s->sym || s->kmods || !mapped)
		return;
	if (pms_kmods_new(s->sys, &s->kmods) < 0) {
		pms_error_clear();
		return;
	}
	for (size_t i = 0; i < s->nfiles; i++)
		kmod_maps_add(s->kmods, &s->files[i].kmaps,
			      s->files[i].r ? pms_perfdata_reader_info(s->files[i].r) : NULL);
	pms_symbolizer_set_kmods(s->sym, s->kmods);
}

void sess_kmods_free(struct pms_session *s)
{
	for (size_t i = 0; i < s->nfiles; i++)
		kmod_maps_free(&s->files[i].kmaps);
	pms_kmods_free(s->kmods);
	s->kmods = NULL;
}

/* ---- the IBS fetch view's kernel rule (report/fetchview_int.h) ----------- */

/* A file read outside a session (the fetch view) under the session's
 * per-file kernel rule: its kernel IPs named from this machine's kallsyms
 * when it lists the running kernel's build id and kernel addresses are
 * visible (sess_files_kernel_here), its modules from its own MMAPs and
 * build ids (sess_kmods_apply). */
struct fetch_rule {
	struct pms_sys *sys;
	struct kmod_maps km;
	struct pms_kmods *kmods; /* the symbolizer's, freed after it */
	bool judged, here;       /* the file's kernel, as sess_kernel_judge */
};

static int fetch_kernel_mmap(void *ud, const struct pms_record *rec)
{
	return kmod_maps_keep(&((struct fetch_rule *)ud)->km, rec);
}

static void fetch_kernel_judge(void *ud, const struct pms_perfdata_info *info)
{
	struct fetch_rule *fr = ud;
	fr->judged = true;
	fr->here = symtrack_kernel_here(fr->sys, info);
}

static bool fetch_kernel_named(void *ud, const struct pms_perfdata_info *info,
			       struct pms_symbolizer *sym)
{
	struct fetch_rule *fr = ud;
	/* sess_file_kernel_here's rule */
	bool here = fr->judged ? fr->here : symtrack_kernel_here(fr->sys, info);
	if (!pms_symbolizer_kernel_visible(sym) || !here)
		return false;
	if ((fr->km.kernel_mapped || fr->km.n) && pms_kmods_new(fr->sys, &fr->kmods) == 0) {
		kmod_maps_add(fr->kmods, &fr->km, info);
		pms_symbolizer_set_kmods(sym, fr->kmods);
	}
	pms_error_clear();
	return true;
}

int pms_ibs_fetch_view_file(struct pms_sys *sys, int fd, bool by_line,
			    struct pms_ibs_fetch_view **out)
{
	struct fetch_rule fr = { .sys = sys };
	const struct fetch_kernel_rule k = { &fr, fetch_kernel_mmap, fetch_kernel_judge,
					     fetch_kernel_named };
	int rc = ibs_fetch_view_read(sys, fd, by_line, &k, out);
	kmod_maps_free(&fr.km);
	pms_kmods_free(fr.kmods);
	return rc;
}
