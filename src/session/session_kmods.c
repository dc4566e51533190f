/* The kernel module maps of a session's files, for the symbolizer that
 * names their kernel IPs (session_int.h; kmodsym.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "session/session_int.h"
#include "session/symtrack_int.h"
#include "symbols/kmodsym.h"
#include "util/error.h"
#include "util/grow.h"

/* a file's chunks decode on several threads: one lock for the rare kernel
 * MMAP records of every session */
static pthread_mutex_t kmlock = PTHREAD_MUTEX_INITIALIZER;

int sess_kmod_keep(struct pms_session *s, const struct sfile *f, const struct pms_record *rec)
{
	const struct pms_rec_mmap *m = &rec->mmap;
	if ((rec->type != PMS_RECORD_MMAP && rec->type != PMS_RECORD_MMAP2) || !m->filename ||
	    !m->len ||
	    ((rec->misc & PMS_MISC_CPUMODE_MASK) != PMS_MISC_KERNEL && m->pid != UINT32_MAX))
		return 0;
	/* a chunk's file is the session's file of its path */
	struct sfile *sf = NULL;
	for (size_t i = 0; i < s->nfiles && !sf; i++)
		if (s->files[i].path == f->path)
			sf = &s->files[i];
	if (!sf)
		return 0;
	struct kmod_maps *km = &sf->kmaps;
	int rc = 0;
	pthread_mutex_lock(&kmlock);
	if (!strncmp(m->filename, "[kernel.kallsyms]", 17)) {
		km->kernel_mapped = true;
		goto out;
	}
	for (size_t i = 0; i < km->n; i++)
		if (km->v[i].start == m->addr && km->v[i].end == m->addr + m->len &&
		    !strcmp(km->v[i].path, m->filename))
			goto out;
	if ((rc = pms_grow(&km->v, &km->cap, km->n + 1, sizeof(*km->v), 8, "kernel modules")) < 0)
		goto out;
	if (!(km->v[km->n].path = strdup(m->filename))) {
		rc = pms_err(PMS_ENOMEM, "kernel modules: no memory");
		goto out;
	}
	km->v[km->n].start = m->addr;
	km->v[km->n++].end = m->addr + m->len;
out:
	pthread_mutex_unlock(&kmlock);
	return rc;
}

static int by_start(const void *a, const void *b)
{
	const struct kmod_map *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->path, y->path);
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
	for (size_t i = 0; i < s->nfiles; i++) {
		struct kmod_maps *km = &s->files[i].kmaps;
		const struct pms_perfdata_info *info =
			s->files[i].r ? pms_perfdata_reader_info(s->files[i].r) : NULL;
		/* chunks keep them in any order: one order for every run */
		if (km->n > 1)
			qsort(km->v, km->n, sizeof(*km->v), by_start);
		for (size_t k = 0; k < km->n; k++) {
			const struct pms_perfdata_build_id *b = symtrack_listed_id(info, km->v[k].path);
			if (pms_kmods_add(s->kmods, km->v[k].start, km->v[k].end, km->v[k].path,
					  b ? b->id : NULL,
					  b ? (b->size && b->size <= 20 ? b->size : 20) : 0) < 0)
				pms_error_clear();
		}
	}
	pms_symbolizer_set_kmods(s->sym, s->kmods);
}

void sess_kmods_free(struct pms_session *s)
{
	for (size_t i = 0; i < s->nfiles; i++) {
		for (size_t k = 0; k < s->files[i].kmaps.n; k++)
			free(s->files[i].kmaps.v[k].path);
		free(s->files[i].kmaps.v);
	}
	pms_kmods_free(s->kmods);
	s->kmods = NULL;
}
